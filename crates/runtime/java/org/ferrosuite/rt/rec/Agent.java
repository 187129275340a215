package org.ferrosuite.rt.rec;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.lang.instrument.ClassFileTransformer;
import java.lang.instrument.Instrumentation;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.security.ProtectionDomain;

/**
 * The Java agent of {@code ferrosuite record}: connects to the recording process, which inserts
 * the trace probes into every class it is sent, and starts the {@link Recorder}.
 *
 * <p>Agent arguments: {@code port;token;key=value;...} with keys {@code include} and
 * {@code exclude} (comma-separated prefixes, internal names), {@code max} (calls recorded per
 * method), {@code depth} (object snapshot depth), {@code values} (values per snapshot),
 * {@code strings} (characters kept of a string), {@code arrays} (elements kept of an array or
 * collection), {@code events} (calls on collaborators and static reads kept per call). Two connections: one for class bytes (a request and its answer, in turn), one
 * for the recorded calls (a stream, written by a daemon thread). When the recording process
 * cannot be reached the program runs unrecorded; the agent itself never prints.
 */
public final class Agent {
    private Agent() {
    }

    /**
     * Entry point of {@code -javaagent}.
     *
     * @param args the agent arguments
     * @param inst the instrumentation service
     */
    public static void premain(String args, Instrumentation inst) {
        try {
            Config cfg = Config.parse(args);
            InetAddress lo = InetAddress.getLoopbackAddress();
            Socket ctl = new Socket(lo, cfg.port);
            ctl.setTcpNoDelay(true);
            DataOutputStream ctlOut = new DataOutputStream(new BufferedOutputStream(ctl.getOutputStream()));
            DataInputStream ctlIn = new DataInputStream(new BufferedInputStream(ctl.getInputStream()));
            hello(ctlOut, "FSCTL", cfg.token);
            Socket ev = new Socket(lo, cfg.port);
            DataOutputStream evOut = new DataOutputStream(new BufferedOutputStream(ev.getOutputStream(), 1 << 16));
            hello(evOut, "FSEVT", cfg.token);
            Recorder.start(cfg, evOut);
            inst.addTransformer(new Transformer(cfg, ctlOut, ctlIn));
        } catch (Throwable t) {
            // Unrecorded: the recording process reports that no one connected.
        }
    }

    private static void hello(DataOutputStream out, String kind, String token) throws IOException {
        out.write(kind.getBytes(StandardCharsets.US_ASCII));
        byte[] t = token.getBytes(StandardCharsets.UTF_8);
        out.writeInt(t.length);
        out.write(t);
        out.flush();
    }

    /** Sends each recorded class to the recording process and defines what it answers. */
    static final class Transformer implements ClassFileTransformer {
        private final Config cfg;
        private final DataOutputStream out;
        private final DataInputStream in;
        private boolean broken;

        Transformer(Config cfg, DataOutputStream out, DataInputStream in) {
            this.cfg = cfg;
            this.out = out;
            this.in = in;
        }

        @Override
        public byte[] transform(ClassLoader loader, String className, Class<?> redefined,
                ProtectionDomain domain, byte[] bytes) {
            if (loader == null || className == null || redefined != null || !cfg.accepts(className)) {
                return null;
            }
            synchronized (this) {
                if (broken) {
                    return null;
                }
                try {
                    byte[] name = className.getBytes(StandardCharsets.UTF_8);
                    out.writeInt(name.length);
                    out.write(name);
                    out.writeInt(bytes.length);
                    out.write(bytes);
                    out.flush();
                    int n = in.readInt();
                    if (n <= 0) {
                        return null;
                    }
                    byte[] result = new byte[n];
                    in.readFully(result);
                    return result;
                } catch (Throwable t) {
                    broken = true;
                    return null;
                }
            }
        }
    }
}
