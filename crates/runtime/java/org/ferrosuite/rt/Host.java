package org.ferrosuite.rt;

import java.util.IdentityHashMap;
import java.util.Map;

/** Helpers the execution host calls between tests. */
public final class Host {
    private Host() {}

    private static ThreadGroup root() {
        ThreadGroup g = Thread.currentThread().getThreadGroup();
        while (g.getParent() != null) g = g.getParent();
        return g;
    }

    /** The live threads now (a baseline taken before tests run). */
    public static Thread[] threads() {
        ThreadGroup root = root();
        Thread[] all = new Thread[root.activeCount() + 16];
        int n = root.enumerate(all, true);
        while (n == all.length) {
            all = new Thread[all.length * 2];
            n = root.enumerate(all, true);
        }
        Thread[] out = new Thread[n];
        System.arraycopy(all, 0, out, 0, n);
        return out;
    }

    /**
     * Stops the threads not in {@code baseline}: sets the abort flag (so that their probes throw
     * {@link AbortError}), interrupts them and waits up to {@code graceMillis} in total.
     * Returns the names of those still alive.
     */
    public static String[] stopThreads(Thread[] baseline, long graceMillis) {
        Map<Thread, Boolean> known = new IdentityHashMap<Thread, Boolean>();
        for (Thread t : baseline) known.put(t, Boolean.TRUE);
        // Threads the JDK starts lazily outside the executor's group, such as "Common-Cleaner"
        // (in the system group's InnocuousThreadGroup) the first time a class registers a
        // cleaner: JDK infrastructure that lives as long as the JVM, not the test's. Test code
        // starts its threads in the executor's group (main) or below. (Code that builds a
        // ThreadGroup under the system group on purpose is not told apart.)
        Thread self = Thread.currentThread();
        ThreadGroup tests = self.getThreadGroup();
        Thread[] now = threads();
        int started = 0;
        for (Thread t : now) {
            if (t == self || known.containsKey(t) || !t.isAlive()) continue;
            ThreadGroup g = t.getThreadGroup();
            if (g != null && !tests.parentOf(g)) {
                known.put(t, Boolean.TRUE);
            } else {
                started++;
            }
        }
        if (started == 0) return new String[0];
        Probe.abort = true;
        for (Thread t : now) {
            if (t != self && !known.containsKey(t)) t.interrupt();
        }
        long deadline = System.nanoTime() + graceMillis * 1000000L;
        java.util.List<String> alive = new java.util.ArrayList<String>();
        for (Thread t : now) {
            if (t == self || known.containsKey(t)) continue;
            long left = (deadline - System.nanoTime()) / 1000000L;
            if (left > 0) {
                try {
                    t.join(left);
                } catch (InterruptedException e) {
                    Thread.interrupted();
                }
            }
            if (t.isAlive()) alive.add(describe(t));
        }
        return alive.toArray(new String[0]);
    }

    /** "name (STATE at class.method)" of a thread, for reports. */
    private static String describe(Thread t) {
        String where = "";
        try {
            StackTraceElement[] st = t.getStackTrace();
            if (st.length > 0) where = " at " + st[0].getClassName() + "." + st[0].getMethodName();
        } catch (Throwable e) {
            // no stack
        }
        return t.getName() + " (" + t.getState() + where + ")";
    }

    /** The message of a throwable, or null; never throws (a hostile getMessage is tolerated). */
    public static String message(Throwable t) {
        try {
            return t.getMessage();
        } catch (Throwable e) {
            return "<getMessage threw " + e.getClass().getName() + ">";
        }
    }

    /**
     * The classes of a throwable's stack frames, innermost first, one per line (a class
     * repeated in a row once, at most 32); empty when it has no stack trace. Never throws.
     */
    public static String frames(Throwable t) {
        try {
            StringBuilder out = new StringBuilder();
            String last = null;
            int n = 0;
            for (StackTraceElement e : t.getStackTrace()) {
                String c = e.getClassName();
                if (c.equals(last)) continue;
                out.append(c).append('\n');
                last = c;
                if (++n == 32) break;
            }
            return out.toString();
        } catch (Throwable e) {
            return "";
        }
    }

    /**
     * "class: message" of the innermost cause of {@code t} (for a failed class initialisation:
     * what the static initialiser threw, not the {@code ExceptionInInitializerError} around it).
     */
    public static String rootCause(Throwable t) {
        try {
            Throwable c = t;
            for (int i = 0; i < 16 && c.getCause() != null && c.getCause() != c; i++) c = c.getCause();
            String m = c.getMessage();
            return c.getClass().getName() + (m == null ? "" : ": " + m);
        } catch (Throwable e) {
            return t.getClass().getName();
        }
    }

    /**
     * Whether a {@code StackOverflowError} or {@code OutOfMemoryError} that ended a test left
     * the JVM as a fresh one would be, as far as its stack trace tells: false when a static
     * initialiser was running (the class would stay erroneous, and later tests would fail
     * differently than in a fresh JVM). The trace is only a partial witness: the JVM gives a
     * stack trace to only the first few out-of-memory errors (its preallocated ones), and a
     * stack overflow's trace holds only the innermost frames; the worker therefore bounds how
     * many errors it goes on after. The heap is judged afterwards, by {@link #heapRecovered},
     * once the test's values are released.
     */
    public static boolean recoverable(Throwable t) {
        try {
            StackTraceElement[] st = t.getStackTrace();
            for (StackTraceElement e : st) {
                if ("<clinit>".equals(e.getMethodName())) return false;
            }
            return true;
        } catch (Throwable e) {
            return false;
        }
    }

    /**
     * After a test that ran out of memory: collects garbage and tells whether at most half of
     * the maximum heap is still in use, i.e. what the test allocated was its own and is gone
     * (a single allocation larger than the heap, such as {@code new long[Integer.MAX_VALUE]},
     * never took anything). A heap still full means something static holds on to it.
     */
    public static boolean heapRecovered() {
        try {
            Runtime r = Runtime.getRuntime();
            System.gc();
            long used = r.totalMemory() - r.freeMemory();
            return used <= r.maxMemory() / 2;
        } catch (Throwable e) {
            return false;
        }
    }

    /**
     * HotSpot's per-thread allocation counter ({@code com.sun.management.ThreadMXBean}), in a
     * class of its own: a JVM without it fails only when this class is first used.
     */
    private static final class Allocations {
        static final com.sun.management.ThreadMXBean BEAN = bean();

        private static com.sun.management.ThreadMXBean bean() {
            java.lang.management.ThreadMXBean b =
                    java.lang.management.ManagementFactory.getThreadMXBean();
            if (!(b instanceof com.sun.management.ThreadMXBean)) return null;
            com.sun.management.ThreadMXBean s = (com.sun.management.ThreadMXBean) b;
            if (!s.isThreadAllocatedMemorySupported()) return null;
            s.setThreadAllocatedMemoryEnabled(true);
            return s;
        }
    }

    /** Set once the counter failed: the JVM does not have it. */
    private static boolean noAllocationCounter;

    /**
     * Bytes the current thread has allocated on the heap since it started, or -1 when the JVM
     * does not count them. The worker reads it before and after a test of the search: one that
     * allocates hundreds of megabytes (a {@code BitSet} with bit {@code Integer.MAX_VALUE} set)
     * costs the zeroing of all of them each time it runs, whatever its statement count.
     */
    public static long allocatedBytes() {
        return allocatedBy(Thread.currentThread().getId());
    }

    /**
     * Bytes {@code thread} has allocated on the heap since it started, or -1 as for {@link
     * #allocatedBytes()}. The worker's watchdog reads the executor thread's counter this way
     * while a test of the search runs, to stop one that allocates past the limit at once.
     */
    public static long allocatedBytes(Thread thread) {
        return allocatedBy(thread.getId());
    }

    private static long allocatedBy(long threadId) {
        if (noAllocationCounter) return -1;
        try {
            com.sun.management.ThreadMXBean b = Allocations.BEAN;
            return b == null ? -1 : b.getThreadAllocatedBytes(threadId);
        } catch (VirtualMachineError e) {
            // A full heap or stack now says nothing about the counter later.
            return -1;
        } catch (Throwable e) {
            noAllocationCounter = true;
            return -1;
        }
    }

    /** Makes a URL of a class-path entry (a file or directory path). */
    public static java.net.URL[] urls(String[] paths) throws java.net.MalformedURLException {
        java.net.URL[] out = new java.net.URL[paths.length];
        for (int i = 0; i < paths.length; i++) out[i] = new java.io.File(paths[i]).toURI().toURL();
        return out;
    }

    /** {@code toString()} guarded like {@link #message}: null when it throws. */
    public static String safeToString(Object o) {
        try {
            return String.valueOf(o);
        } catch (Throwable e) {
            return null;
        }
    }

    private static final int MAX_INSPECTORS = 16;

    /**
     * Whether a class of the user's (defined by the {@link HostLoader}) with no public getter
     * is inspected through its own private instance fields of primitive and String types
     * instead ({@code #name:descriptor}): the host sets it when private access is on.
     */
    public static boolean privateFields;

    /**
     * The inspectors of a class, as {@code name + descriptor} ({@code size()I}): its public,
     * non-static, no-argument, non-void methods named {@code get*}, {@code is*}, {@code has*},
     * {@code size}, {@code isEmpty}, {@code length}, or {@code toString} when a class other
     * than {@code Object} declares it; never {@code getClass}, {@code hashCode} or the
     * {@code getAndX} updaters ({@code getAndIncrement}: calling them changes the object).
     * Sorted, at most 16.
     */
    public static String[] inspectors(Class<?> c) {
        java.util.TreeSet<String> out = new java.util.TreeSet<String>();
        java.lang.reflect.Method[] ms;
        try {
            ms = c.getMethods();
        } catch (Throwable e) {
            return new String[0];
        }
        for (java.lang.reflect.Method m : ms) {
            int mod = m.getModifiers();
            if (!java.lang.reflect.Modifier.isPublic(mod) || java.lang.reflect.Modifier.isStatic(mod)) continue;
            if (m.isBridge() || m.isSynthetic() || m.getParameterTypes().length != 0) continue;
            Class<?> r = m.getReturnType();
            if (r == Void.TYPE) continue;
            String n = m.getName();
            boolean pick;
            if (n.equals("toString")) pick = m.getDeclaringClass() != Object.class;
            else if (n.equals("getClass") || n.equals("hashCode") || prefixed(n, "getAnd")) pick = false;
            else pick = n.equals("size") || n.equals("isEmpty") || n.equals("length")
                || prefixed(n, "get") || prefixed(n, "is") || prefixed(n, "has");
            if (pick) out.add(n + "()" + Types.descriptor(r));
        }
        if (out.isEmpty() && privateFields && c.getClassLoader() instanceof HostLoader) {
            java.lang.reflect.Field[] fs;
            try {
                fs = c.getDeclaredFields();
            } catch (Throwable e) {
                fs = new java.lang.reflect.Field[0];
            }
            for (java.lang.reflect.Field f : fs) {
                int mod = f.getModifiers();
                if (!java.lang.reflect.Modifier.isPrivate(mod) || java.lang.reflect.Modifier.isStatic(mod)
                        || f.isSynthetic()) continue;
                Class<?> t = f.getType();
                if (t.isPrimitive() || t == String.class) out.add("#" + f.getName() + ":" + Types.descriptor(t));
            }
        }
        String[] all = out.toArray(new String[0]);
        if (all.length <= MAX_INSPECTORS) return all;
        String[] cut = new String[MAX_INSPECTORS];
        System.arraycopy(all, 0, cut, 0, MAX_INSPECTORS);
        return cut;
    }

    private static boolean prefixed(String n, String p) {
        return n.length() > p.length() && n.startsWith(p) && Character.isUpperCase(n.charAt(p.length()));
    }
}
