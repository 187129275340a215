package org.ferrosuite.rt;

import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

/**
 * The console that code under test uses instead of the machine's. Reads of {@code System.in}
 * in rewritten classes read {@link #in}, which gives what the test provided with {@link
 * #provide(String)} (UTF-8) and then end of input; {@code System.out} and {@code System.err}
 * are {@link #out} and {@link #err}, which keep what the test printed ({@link #output()},
 * {@link #errors()}; the first {@link #KEPT} bytes of each) instead of printing it; {@code
 * System.setIn/setOut/setErr} replace these for the rest of the test only. Every test starts
 * with nothing to read and nothing printed; {@link #reads} counts the reads of this test (the
 * search adds console input statements once a test read the console).
 */
public final class VirtualConsole {
    /** How many bytes of each output stream a test keeps. */
    public static final int KEPT = 1 << 20;

    private static final InputStream INPUT = new Input();
    private static final Capture OUT = new Capture();
    private static final Capture ERR = new Capture();
    private static final PrintStream OUT_STREAM = new PrintStream(OUT, true);
    private static final PrintStream ERR_STREAM = new PrintStream(ERR, true);

    /** The stand-in of {@code System.in}: one stream whose content each test replaces. */
    public static InputStream in = INPUT;
    /** The stand-in of {@code System.out}. */
    public static PrintStream out = OUT_STREAM;
    /** The stand-in of {@code System.err}. */
    public static PrintStream err = ERR_STREAM;

    /** Reads of {@link #in} in this test. */
    public static int reads;

    private static byte[] input = new byte[0];
    private static int at;

    private VirtualConsole() {
    }

    /** Starts a test: nothing to read, nothing printed, the test's own streams. */
    public static synchronized void begin() {
        input = new byte[0];
        at = 0;
        reads = 0;
        in = INPUT;
        out = OUT_STREAM;
        err = ERR_STREAM;
        OUT.reset();
        ERR.reset();
    }

    /** {@code System.setIn}: this test reads {@code s} from now on. */
    public static synchronized void setIn(InputStream s) {
        in = s;
    }

    /** {@code System.setOut}: this test prints to {@code s} from now on. */
    public static synchronized void setOut(PrintStream s) {
        out = s;
    }

    /** {@code System.setErr}. */
    public static synchronized void setErr(PrintStream s) {
        err = s;
    }

    /** What this test printed to {@code System.out} (UTF-8, at most {@link #KEPT} bytes). */
    public static String output() {
        OUT_STREAM.flush();
        return OUT.text();
    }

    /** What this test printed to {@code System.err}. */
    public static String errors() {
        ERR_STREAM.flush();
        return ERR.text();
    }

    /** Appends text to what the console gives. */
    public static synchronized void provide(String text) {
        byte[] more = text == null ? new byte[0] : text.getBytes(StandardCharsets.UTF_8);
        byte[] all = new byte[input.length - at + more.length];
        System.arraycopy(input, at, all, 0, input.length - at);
        System.arraycopy(more, 0, all, input.length - at, more.length);
        input = all;
        at = 0;
    }

    private static final class Input extends InputStream {
        @Override
        public int read() {
            synchronized (VirtualConsole.class) {
                reads++;
                return at < input.length ? input[at++] & 0xff : -1;
            }
        }

        @Override
        public int read(byte[] b, int off, int len) {
            if (off < 0 || len < 0 || len > b.length - off) {
                throw new IndexOutOfBoundsException();
            }
            synchronized (VirtualConsole.class) {
                reads++;
                if (len == 0) {
                    return 0;
                }
                if (at >= input.length) {
                    return -1;
                }
                int n = Math.min(len, input.length - at);
                System.arraycopy(input, at, b, off, n);
                at += n;
                return n;
            }
        }

        @Override
        public int available() {
            synchronized (VirtualConsole.class) {
                return input.length - at;
            }
        }
    }

    /** Keeps the first {@link #KEPT} bytes written; the rest is counted and dropped. */
    private static final class Capture extends OutputStream {
        private final ByteArrayOutputStream kept = new ByteArrayOutputStream();

        synchronized void reset() {
            kept.reset();
        }

        synchronized String text() {
            return new String(kept.toByteArray(), StandardCharsets.UTF_8);
        }

        @Override
        public synchronized void write(int b) {
            if (kept.size() < KEPT) {
                kept.write(b);
            }
        }

        @Override
        public synchronized void write(byte[] b, int off, int len) {
            if (off < 0 || len < 0 || len > b.length - off) {
                throw new IndexOutOfBoundsException();
            }
            kept.write(b, off, Math.min(len, KEPT - kept.size()));
        }
    }
}
