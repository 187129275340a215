package org.ferrosuite.rt;

import java.lang.instrument.ClassFileTransformer;
import java.lang.instrument.Instrumentation;
import java.security.ProtectionDomain;
import java.util.ArrayList;
import java.util.List;

/**
 * The controlled environment in emitted tests: {@link #install()} (once per JVM, from a
 * {@code @BeforeAll}/{@code @BeforeClass} method) makes every class of the code under test, and
 * the test class itself, read the virtual clock, seeded randomness, files and console through {@link Patcher},
 * as the worker did during the search; {@link #begin()} (from {@code @BeforeEach}/{@code
 * @Before}) starts a test at the same instant with the same seeds.
 *
 * <p>No JVM flag is needed: the {@code Instrumentation} comes from Byte Buddy's agent (
 * {@code net.bytebuddy.agent.ByteBuddyAgent.install()}, on the test class path wherever Mockito
 * is), which attaches to the running JVM; classes loaded before are retransformed (method
 * bodies and constant pool only, which is all the patch changes). The JDK, the test tools and
 * this runtime are never patched.
 */
public final class Environment {
    /** Package prefixes of classes never patched (binary names). */
    private static final String[] LEFT_ALONE = {
        "java.", "javax.", "jdk.", "sun.", "com.sun.", "org.ferrosuite.rt.", "org.junit.",
        "junit.", "org.hamcrest.", "org.opentest4j.", "org.apiguardian.", "org.mockito.",
        "net.bytebuddy.", "org.objenesis.", "org.jacoco.", "org.apache.maven.", "org.gradle.",
        "worker.org.gradle.",
        // Other runners and harnesses time the tests with the machine's clock: PIT's minions
        // (a virtual clock there makes every test look minutes long and every mutant time
        // out), TestNG, the IDEs' and Ant's JUnit runners.
        "org.pitest.", "org.testng.", "com.intellij.rt.", "org.eclipse.jdt.internal.junit",
        "org.apache.tools.ant.",
    };

    private static boolean installed;

    private Environment() {
    }

    /**
     * Makes the code under test read the controlled environment, once per JVM.
     *
     * @throws IllegalStateException when Byte Buddy's agent is not on the class path or the JVM
     *     refuses it
     */
    public static synchronized void install() {
        if (installed) {
            return;
        }
        Instrumentation inst = instrumentation();
        removeAttachSocket();
        SystemTime.virtual = true;
        inst.addTransformer(new Transformer(), true);
        List<Class<?>> loaded = new ArrayList<Class<?>>();
        for (Class<?> c : inst.getAllLoadedClasses()) {
            if (inst.isModifiableClass(c) && wanted(c.getName(), c.getClassLoader())) {
                loaded.add(c);
            }
        }
        for (Class<?> c : loaded) {
            try {
                inst.retransformClasses(c);
            } catch (Throwable e) {
                // A class the JVM will not retransform keeps reading the machine.
            }
        }
        installed = true;
    }

    /**
     * Starts a test: the virtual clock, the seeds and this thread's random seed start over, the
     * virtual file system is back to its empty working and temporary directories, and the
     * console has nothing to read.
     */
    public static void begin() {
        SystemTime.begin();
        SystemRandom.begin();
        SystemRandom.seedThread();
        VirtualFs.begin();
        VirtualConsole.begin();
        VirtualSystem.begin();
    }

    /**
     * Puts a file with {@code content} (UTF-8) at {@code path} (relative paths start at the
     * working directory {@value VirtualFs#WORK}), and the directories above it; replaces a file
     * there. Nothing happens when an argument is null or a file is in the way of a directory.
     */
    public static void writeFile(String path, String content) {
        if (path != null && content != null) {
            VirtualFs.put(path, content.getBytes(java.nio.charset.StandardCharsets.UTF_8));
        }
    }

    /**
     * Puts a file with the bytes {@code base64} gives (RFC 4648, as {@link java.util.Base64}
     * reads it) at {@code path}, as {@link #writeFile(String, String)} does with text.
     */
    public static void writeFileBase64(String path, String base64) {
        if (path != null && base64 != null) {
            VirtualFs.put(path, java.util.Base64.getDecoder().decode(base64));
        }
    }

    /**
     * The content of the file at {@code path} as UTF-8 text, or null when there is no file
     * there (for checks after the call under test; reading does not count as the code's).
     */
    public static String readFile(String path) {
        VirtualFs.Node n = path == null ? null : VirtualFs.peek(path);
        return n == null || n.dir ? null
            : new String(n.bytes(), java.nio.charset.StandardCharsets.UTF_8);
    }

    /** The content of the file at {@code path} in base64, or null when there is no file there. */
    public static String readFileBase64(String path) {
        VirtualFs.Node n = path == null ? null : VirtualFs.peek(path);
        return n == null || n.dir ? null : java.util.Base64.getEncoder().encodeToString(n.bytes());
    }

    /** Makes a directory and those above it (nothing when null or a file is in the way). */
    public static void makeDirectory(String path) {
        if (path != null) {
            VirtualFs.putDirectory(path);
        }
    }

    /** Makes an existing file or directory unreadable (nothing when there is none). */
    public static void makeUnreadable(String path) {
        VirtualFs.Node n = path == null ? null : VirtualFs.peek(path);
        if (n != null) {
            n.readable = false;
        }
    }

    /** Makes an existing file or directory read-only (nothing when there is none). */
    public static void makeReadOnly(String path) {
        VirtualFs.Node n = path == null ? null : VirtualFs.peek(path);
        if (n != null) {
            n.writable = false;
        }
    }

    /** Appends {@code text} (UTF-8) to what the console ({@code System.in}) gives. */
    public static void consoleInput(String text) {
        if (text != null) {
            VirtualConsole.provide(text);
        }
    }

    /** Sets the virtual clock: its next read gives {@code epochMillis} (not before the start). */
    public static void setTime(long epochMillis) {
        SystemTime.set(epochMillis);
    }

    /** Makes {@code values} what the next calls of {@code Math.random()} give, in order. */
    public static void nextRandoms(double... values) {
        SystemRandom.nextDoubles(values);
    }

    /** Makes {@code seeds} the seeds of the next {@code new Random()}s, in order. */
    public static void nextSeeds(long... seeds) {
        SystemRandom.nextSeeds(seeds);
    }

    /** Makes the random numbers drawn from now on those of {@code seed}. */
    public static void seedRandom(long seed) {
        SystemRandom.choose(seed);
    }

    /**
     * Removes the socket file {@code /tmp/.java_pid<pid>} that attaching the agent made this
     * JVM create (HotSpot leaves it behind after the JVM exits), so that a test run leaves no
     * file on the machine. The JVM makes it again if a tool attaches later.
     */
    private static void removeAttachSocket() {
        try {
            String name = java.lang.management.ManagementFactory.getRuntimeMXBean().getName();
            int at = name.indexOf('@');
            if (at > 0) {
                java.io.File socket = new java.io.File("/tmp/.java_pid" + name.substring(0, at));
                if (socket.exists() && !socket.isDirectory()) {
                    socket.delete();
                }
            }
        } catch (Throwable e) {
            // Not a HotSpot JVM on a Unix: nothing to remove.
        }
    }

    /** Whether a class is patched: loaded by an application loader, not a tool's. */
    static boolean wanted(String name, ClassLoader loader) {
        if (loader == null || name == null || loader == platformLoader()) {
            return false;
        }
        for (String p : LEFT_ALONE) {
            if (name.startsWith(p)) {
                return false;
            }
        }
        return true;
    }

    private static ClassLoader platformLoader() {
        ClassLoader system = ClassLoader.getSystemClassLoader();
        return system == null ? null : system.getParent();
    }

    private static Instrumentation instrumentation() {
        try {
            Class<?> agent = Class.forName("net.bytebuddy.agent.ByteBuddyAgent");
            return (Instrumentation) agent.getMethod("install").invoke(null);
        } catch (ClassNotFoundException e) {
            throw new IllegalStateException("the controlled environment needs Byte Buddy's agent"
                + " (net.bytebuddy:byte-buddy-agent, which Mockito depends on) on the test class"
                + " path", e);
        } catch (ReflectiveOperationException e) {
            Throwable cause = e.getCause() == null ? e : e.getCause();
            throw new IllegalStateException("cannot attach Byte Buddy's agent to this JVM: "
                + cause, cause);
        }
    }

    /** Patches each class as it loads or is retransformed. */
    private static final class Transformer implements ClassFileTransformer {
        @Override
        public byte[] transform(ClassLoader loader, String className, Class<?> redefined,
                ProtectionDomain domain, byte[] bytes) {
            if (className == null || !wanted(className.replace('/', '.'), loader)) {
                return null;
            }
            try {
                // A class being retransformed keeps its superclass.
                return Patcher.patch(bytes, redefined == null);
            } catch (Throwable e) {
                // A class the patcher cannot read is defined as it is: say so, since it then
                // reads the machine's clock and files.
                System.err.println("ferrosuite: cannot control the environment of "
                    + className.replace('/', '.') + ": " + e);
                return null;
            }
        }
    }
}
