package org.ferrosuite.rt;

import java.util.Map;
import java.util.Timer;
import java.util.WeakHashMap;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionHandler;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Thread names and ids as code under test sees them: numbered from the start in every test,
 * where the JDK numbers them across the whole JVM. Unnamed threads are {@code Thread-0},
 * {@code Thread-1}, …, timers {@code Timer-0}, …, threads of pools without a thread factory
 * {@code pool-1-thread-1}, … (the JDK's patterns), and {@link #getId(Thread)} numbers threads
 * 1, 2, … in the order the test first asks about them. Every name or id handed out counts as a
 * read of the environment ({@link VirtualSystem#reads}), so that the emitted test installs
 * this numbering too.
 */
public final class VirtualThreads {
    private static int threads;
    private static int timers;
    private static int pools;
    private static long nextId = 1;
    private static final Map<Thread, Long> IDS = new WeakHashMap<Thread, Long>();

    private VirtualThreads() {
    }

    /** Starts a test: every counter from the beginning, no thread numbered. */
    public static synchronized void begin() {
        threads = 0;
        timers = 0;
        pools = 0;
        nextId = 1;
        IDS.clear();
    }

    /** Counts a read; never while holding this class's lock (begin() is called under
     * {@link VirtualSystem}'s). */
    private static void read() {
        synchronized (VirtualSystem.class) {
            VirtualSystem.reads++;
        }
    }

    /** This test's next unnamed thread's name. */
    public static String name() {
        read();
        synchronized (VirtualThreads.class) {
            return "Thread-" + threads++;
        }
    }

    /** This test's number for {@code thread} ({@code Thread.getId()}). */
    public static long getId(Thread thread) {
        if (thread == null) {
            throw new NullPointerException();
        }
        read();
        synchronized (VirtualThreads.class) {
            Long id = IDS.get(thread);
            if (id == null) {
                id = nextId++;
                IDS.put(thread, id);
            }
            return id;
        }
    }

    /** {@code Thread.threadId()} (JDK 19): {@link #getId(Thread)}. */
    public static long threadId(Thread thread) {
        return getId(thread);
    }

    /** {@code new Thread()}. */
    public static Thread newThread() {
        return new Thread(name());
    }

    /** {@code new Thread(target)}. */
    public static Thread newThread(Runnable target) {
        return new Thread(target, name());
    }

    /** {@code new Thread(group, target)}. */
    public static Thread newThread(ThreadGroup group, Runnable target) {
        return new Thread(group, target, name());
    }

    private static String timerName() {
        read();
        synchronized (VirtualThreads.class) {
            return "Timer-" + timers++;
        }
    }

    /** {@code new Timer()}. */
    public static Timer newTimer() {
        return new Timer(timerName());
    }

    /** {@code new Timer(isDaemon)}. */
    public static Timer newTimer(boolean isDaemon) {
        return new Timer(timerName(), isDaemon);
    }

    private static int nextPool() {
        read();
        synchronized (VirtualThreads.class) {
            return ++pools;
        }
    }

    /** {@code Executors.defaultThreadFactory()}: the JDK's, named with this test's numbers. */
    public static ThreadFactory defaultThreadFactory() {
        return new Factory(nextPool());
    }

    /** {@code Executors.newFixedThreadPool(n)}. */
    public static ExecutorService newFixedThreadPool(int n) {
        return Executors.newFixedThreadPool(n, defaultThreadFactory());
    }

    /** {@code Executors.newSingleThreadExecutor()}. */
    public static ExecutorService newSingleThreadExecutor() {
        return Executors.newSingleThreadExecutor(defaultThreadFactory());
    }

    /** {@code Executors.newCachedThreadPool()}. */
    public static ExecutorService newCachedThreadPool() {
        return Executors.newCachedThreadPool(defaultThreadFactory());
    }

    /** {@code Executors.newScheduledThreadPool(n)}. */
    public static ScheduledExecutorService newScheduledThreadPool(int n) {
        return Executors.newScheduledThreadPool(n, defaultThreadFactory());
    }

    /** {@code Executors.newSingleThreadScheduledExecutor()}. */
    public static ScheduledExecutorService newSingleThreadScheduledExecutor() {
        return Executors.newSingleThreadScheduledExecutor(defaultThreadFactory());
    }

    /** {@code new ThreadPoolExecutor(core, max, keepAlive, unit, queue)}. */
    public static ThreadPoolExecutor newThreadPoolExecutor(int core, int max, long keepAlive,
            TimeUnit unit, BlockingQueue<Runnable> queue) {
        return new ThreadPoolExecutor(core, max, keepAlive, unit, queue, defaultThreadFactory());
    }

    /** {@code new ThreadPoolExecutor(core, max, keepAlive, unit, queue, handler)}. */
    public static ThreadPoolExecutor newThreadPoolExecutor(int core, int max, long keepAlive,
            TimeUnit unit, BlockingQueue<Runnable> queue, RejectedExecutionHandler handler) {
        return new ThreadPoolExecutor(core, max, keepAlive, unit, queue, defaultThreadFactory(),
            handler);
    }

    /** {@code new ScheduledThreadPoolExecutor(core)}. */
    public static ScheduledThreadPoolExecutor newScheduledThreadPoolExecutor(int core) {
        return new ScheduledThreadPoolExecutor(core, defaultThreadFactory());
    }

    /** {@code new ScheduledThreadPoolExecutor(core, handler)}. */
    public static ScheduledThreadPoolExecutor newScheduledThreadPoolExecutor(int core,
            RejectedExecutionHandler handler) {
        return new ScheduledThreadPoolExecutor(core, defaultThreadFactory(), handler);
    }

    /** The JDK's default thread factory with a pool number of this test. */
    private static final class Factory implements ThreadFactory {
        private final ThreadGroup group = Thread.currentThread().getThreadGroup();
        private final AtomicInteger number = new AtomicInteger(1);
        private final String prefix;

        Factory(int pool) {
            prefix = "pool-" + pool + "-thread-";
        }

        @Override
        public Thread newThread(Runnable r) {
            Thread t = new Thread(group, r, prefix + number.getAndIncrement(), 0);
            if (t.isDaemon()) {
                t.setDaemon(false);
            }
            if (t.getPriority() != Thread.NORM_PRIORITY) {
                t.setPriority(Thread.NORM_PRIORITY);
            }
            return t;
        }
    }
}
