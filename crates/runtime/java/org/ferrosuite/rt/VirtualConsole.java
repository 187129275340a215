package org.ferrosuite.rt;

import java.io.InputStream;
import java.nio.charset.StandardCharsets;

/**
 * The console input that code under test reads instead of the machine's: reads of
 * {@code System.in} in rewritten classes read {@link #in}, which gives what the test provided
 * with {@link #provide(String)} (UTF-8) and then end of input. Every test starts with nothing
 * to read; {@link #reads} counts the reads of this test (the search adds console input
 * statements once a test read the console).
 */
public final class VirtualConsole {
    /** The stand-in of {@code System.in}: one stream whose content each test replaces. */
    public static final InputStream in = new Input();

    /** Reads of {@link #in} in this test. */
    public static int reads;

    private static byte[] input = new byte[0];
    private static int at;

    private VirtualConsole() {
    }

    /** Starts a test: nothing to read. */
    public static synchronized void begin() {
        input = new byte[0];
        at = 0;
        reads = 0;
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
}
