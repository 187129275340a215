package org.ferrosuite.rt;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * System properties, environment variables and the host name as code under test sees them: the
 * same on every machine and in every test. Properties that name the machine's user and
 * directories ({@code user.dir} is the virtual working directory {@value VirtualFs#WORK},
 * {@code user.home}, {@code user.name}, {@code java.io.tmpdir}, {@code os.version}) have fixed
 * values; {@code System.setProperty} and {@code clearProperty} change a per-test overlay, so a
 * test never changes the JVM's own properties; other properties are the JVM's. Environment
 * variables are a small fixed set ({@code HOME}, {@code USER}, {@code PATH}, {@code LANG},
 * {@code PWD}, {@code TMPDIR}, {@code SHELL}); any other is unset. The local host is
 * {@code localhost/127.0.0.1}. Thread names and ids are {@link VirtualThreads}'.
 */
public final class VirtualSystem {
    private static final String[][] PROPERTIES = {
        {"user.dir", VirtualFs.WORK}, {"user.home", "/home/user"}, {"user.name", "user"},
        {"java.io.tmpdir", VirtualFs.TMP}, {"os.version", "6.1.0"},
    };

    private static final String[][] VARIABLES = {
        {"HOME", "/home/user"}, {"USER", "user"}, {"PATH", "/usr/local/bin:/usr/bin:/bin"},
        {"LANG", "C.UTF-8"}, {"PWD", VirtualFs.WORK}, {"TMPDIR", VirtualFs.TMP},
        {"SHELL", "/bin/sh"},
    };

    private static final Map<String, String> FIXED = new HashMap<String, String>();
    private static final Map<String, String> ENV;

    static {
        for (String[] p : PROPERTIES) {
            FIXED.put(p[0], p[1]);
        }
        Map<String, String> env = new TreeMap<String, String>();
        for (String[] v : VARIABLES) {
            env.put(v[0], v[1]);
        }
        ENV = Collections.unmodifiableMap(env);
    }

    private static final Map<String, String> SET = new HashMap<String, String>();
    private static final Set<String> CLEARED = new HashSet<String>();

    /** Reads of properties, variables and the host name in this test. */
    public static int reads;

    private VirtualSystem() {
    }

    /**
     * Starts a test: no property set or cleared, nothing read, thread names and ids numbered
     * from the start ({@link VirtualThreads#begin()}).
     */
    public static synchronized void begin() {
        SET.clear();
        CLEARED.clear();
        reads = 0;
        VirtualThreads.begin();
    }

    private static void check(String key) {
        if (key == null) {
            throw new NullPointerException("key can't be null");
        }
        if (key.isEmpty()) {
            throw new IllegalArgumentException("key can't be empty");
        }
    }

    public static synchronized String getProperty(String key) {
        check(key);
        reads++;
        if (SET.containsKey(key)) {
            return SET.get(key);
        }
        if (CLEARED.contains(key)) {
            return null;
        }
        String fixed = FIXED.get(key);
        return fixed != null ? fixed : System.getProperty(key);
    }

    public static String getProperty(String key, String def) {
        String v = getProperty(key);
        return v == null ? def : v;
    }

    public static synchronized String setProperty(String key, String value) {
        check(key);
        if (value == null) {
            throw new NullPointerException();
        }
        String old = getProperty(key);
        SET.put(key, value);
        CLEARED.remove(key);
        return old;
    }

    public static synchronized String clearProperty(String key) {
        String old = getProperty(key);
        SET.remove(key);
        CLEARED.add(key);
        return old;
    }

    public static synchronized String getenv(String name) {
        if (name == null) {
            throw new NullPointerException();
        }
        reads++;
        return ENV.get(name);
    }

    public static synchronized Map<String, String> getenv() {
        reads++;
        return ENV;
    }

    public static synchronized InetAddress getLocalHost() throws UnknownHostException {
        reads++;
        return InetAddress.getByAddress("localhost", new byte[] {127, 0, 0, 1});
    }
}
