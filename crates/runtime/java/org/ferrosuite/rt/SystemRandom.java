package org.ferrosuite.rt;

import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.security.NoSuchAlgorithmException;
import java.security.NoSuchProviderException;
import java.security.Provider;
import java.security.SecureRandom;
import java.security.SecureRandomSpi;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The randomness that code under test draws in the controlled environment. Calls of the JDK's
 * unseeded sources in the classes the execution host loads are redirected here (see the Rust
 * module {@code ferrosuite_bytecode::instrument::random}): {@code new Random()} becomes
 * {@code new Random(SystemRandom.seed())}, and {@code Math.random()}, {@code
 * UUID.randomUUID()} and {@code Collections.shuffle(List)} become the methods of the same
 * descriptors below. Each test starts the same sequence of seeds again ({@link #begin}), so a
 * test draws the same numbers however often and in whatever order it runs; {@link #salt}
 * (set by the worker) gives reruns other numbers, so that values that depend on them show.
 */
public final class SystemRandom {
    /** Mixed into every seed; 0 in the search, another value in the stability reruns. */
    public static long salt;

    /** Seeds handed out in this test (the worker asks whether there were any). */
    public static long drawn;

    /** The sources behind {@code Math.random()}, {@code UUID.randomUUID()} and shuffles. */
    private static Random math;
    private static Random uuids;
    private static Random shuffles;
    private static Random threadLocals;

    private SystemRandom() {
    }

    /** Tests begun so far: a thread's {@code ThreadLocalRandom} is seeded once per test. */
    private static volatile int epoch;

    /** The test (epoch) in which each thread's {@code ThreadLocalRandom} was last seeded. */
    private static final ThreadLocal<int[]> SEEDED = new ThreadLocal<int[]>() {
        @Override
        protected int[] initialValue() {
            return new int[] {-1};
        }
    };

    /** Values {@code Math.random()} gives next, set by the test ({@link Environment#nextRandoms}). */
    private static final java.util.ArrayDeque<Double> NEXT_DOUBLES = new java.util.ArrayDeque<Double>();

    /** Seeds {@code new Random()} takes next, set by the test ({@link Environment#nextSeeds}). */
    private static final java.util.ArrayDeque<Long> NEXT_SEEDS = new java.util.ArrayDeque<Long>();

    /** Starts a test: the seeds start over. */
    public static synchronized void begin() {
        NEXT_DOUBLES.clear();
        NEXT_SEEDS.clear();
        chosen = 0;
        drawn = 0;
        math = null;
        uuids = null;
        shuffles = null;
        threadLocals = null;
        epoch++;
    }

    /**
     * {@code ThreadLocalRandom.current()} in emitted tests (see {@link Patcher}): the calling
     * thread's seed is set to {@link #threadSeed()} the first time in a test, so that a test
     * body JUnit runs in another thread than its set-up (JUnit 4's {@code timeout}) draws what
     * the worker's executing thread drew.
     */
    public static ThreadLocalRandom threadLocalRandom() {
        int[] seeded = SEEDED.get();
        if (seeded[0] != epoch) {
            seedThread();
        }
        return ThreadLocalRandom.current();
    }

    /**
     * Sets this thread's {@code ThreadLocalRandom} seed as the worker does through JNI before
     * each test, where the JDK lets it ({@code sun.misc.Unsafe}); elsewhere the seed stays the
     * machine's.
     */
    static void seedThread() {
        SEEDED.get()[0] = epoch;
        try {
            Class<?> unsafeClass = Class.forName("sun.misc.Unsafe");
            Field theUnsafe = unsafeClass.getDeclaredField("theUnsafe");
            theUnsafe.setAccessible(true);
            Object unsafe = theUnsafe.get(null);
            Method offset = unsafeClass.getMethod("objectFieldOffset", Field.class);
            Method putLong = unsafeClass.getMethod("putLong", Object.class, long.class, long.class);
            Method putInt = unsafeClass.getMethod("putInt", Object.class, long.class, int.class);
            Thread me = Thread.currentThread();
            long seed = threadSeed();
            putLong.invoke(unsafe, me,
                offset.invoke(unsafe, Thread.class.getDeclaredField("threadLocalRandomSeed")), seed);
            putInt.invoke(unsafe, me,
                offset.invoke(unsafe, Thread.class.getDeclaredField("threadLocalRandomProbe")),
                0x61c88647);
            putInt.invoke(unsafe, me,
                offset.invoke(unsafe,
                    Thread.class.getDeclaredField("threadLocalRandomSecondarySeed")),
                (int) seed | 1);
        } catch (Throwable e) {
            // Not on this JDK: ThreadLocalRandom stays unseeded.
        }
    }

    /** A seed the test chose ({@link Environment#seedRandom}), mixed into every later seed. */
    private static long chosen;

    /** Makes the seeds from now on depend on {@code seed} (0: as at the start of a test). */
    static synchronized void choose(long seed) {
        chosen = seed;
    }

    /** The next seed of this test (SplitMix64 of the salted count). */
    public static synchronized long seed() {
        long z = (salt ^ chosen) * 0x9E3779B97F4A7C15L + (++drawn) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }

    /**
     * The seed {@code ThreadLocalRandom} starts each test from in the executing thread (the
     * worker and {@link Environment#begin()} set it): SplitMix64 of the salt.
     */
    public static long threadSeed() {
        long z = salt + 0x7F4A7C15L + 0x9E3779B97F4A7C15L;
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }

    /** Makes {@code values} the next values of {@code Math.random()}, in order. */
    static synchronized void nextDoubles(double[] values) {
        for (double v : values) {
            NEXT_DOUBLES.add(v);
        }
    }

    /** Makes {@code seeds} the seeds of the next {@code new Random()}s, in order. */
    static synchronized void nextSeeds(long[] seeds) {
        for (long v : seeds) {
            NEXT_SEEDS.add(v);
        }
    }

    /**
     * The seed of a {@code new Random()} (or of a subclass's {@code super()}): the next one the
     * test set, else this test's next seed.
     */
    public static synchronized long constructorSeed() {
        Long s = NEXT_SEEDS.poll();
        return s != null ? s.longValue() : seed();
    }

    /** {@code new Random()}: seeded with {@link #constructorSeed()} (for {@link Patcher}). */
    public static Random newRandom() {
        return new Random(constructorSeed());
    }

    /** {@code new SplittableRandom()}: seeded with this test's next seed (for {@link Patcher}). */
    public static java.util.SplittableRandom newSplittableRandom() {
        return new java.util.SplittableRandom(seed());
    }

    /** {@code Math.random()}: the next value the test set, else this test's next number. */
    public static double random() {
        Random r;
        synchronized (SystemRandom.class) {
            Double next = NEXT_DOUBLES.poll();
            if (next != null) {
                return next.doubleValue();
            }
            if (math == null) {
                math = new Random(seed());
            }
            r = math;
        }
        return r.nextDouble();
    }

    /** {@code UUID.randomUUID()}: a version 4 UUID from this test's numbers. */
    public static UUID randomUUID() {
        Random r;
        synchronized (SystemRandom.class) {
            if (uuids == null) {
                uuids = new Random(seed());
            }
            r = uuids;
        }
        long msb = (r.nextLong() & ~0xF000L) | 0x4000L;
        long lsb = (r.nextLong() & 0x3FFFFFFFFFFFFFFFL) | 0x8000000000000000L;
        return new UUID(msb, lsb);
    }

    /** {@code Collections.shuffle(List)}. */
    public static void shuffle(List<?> list) {
        Random r;
        synchronized (SystemRandom.class) {
            if (shuffles == null) {
                shuffles = new Random(seed());
            }
            r = shuffles;
        }
        Collections.shuffle(list, r);
    }

    /** The source behind the {@code ThreadLocalRandom} calls below, whatever the thread. */
    private static synchronized Random threadLocals() {
        if (threadLocals == null) {
            threadLocals = new Random(seed());
        }
        return threadLocals;
    }

    /** {@code ThreadLocalRandom.nextInt()}. */
    public static int nextInt(ThreadLocalRandom r) {
        return threadLocals().nextInt();
    }

    /** {@code ThreadLocalRandom.nextInt(int)}. */
    public static int nextInt(ThreadLocalRandom r, int bound) {
        if (bound <= 0) {
            throw new IllegalArgumentException("bound must be positive");
        }
        return threadLocals().nextInt(bound);
    }

    /** {@code ThreadLocalRandom.nextInt(int, int)}. */
    public static int nextInt(ThreadLocalRandom r, int origin, int bound) {
        if (origin >= bound) {
            throw new IllegalArgumentException("bound must be greater than origin");
        }
        return (int) nextLong(r, origin, bound);
    }

    /** {@code ThreadLocalRandom.nextLong()}. */
    public static long nextLong(ThreadLocalRandom r) {
        return threadLocals().nextLong();
    }

    /** {@code ThreadLocalRandom.nextLong(long)}. */
    public static long nextLong(ThreadLocalRandom r, long bound) {
        if (bound <= 0) {
            throw new IllegalArgumentException("bound must be positive");
        }
        return nextLong(r, 0, bound);
    }

    /** {@code ThreadLocalRandom.nextLong(long, long)}: uniform by rejection. */
    public static long nextLong(ThreadLocalRandom r, long origin, long bound) {
        if (origin >= bound) {
            throw new IllegalArgumentException("bound must be greater than origin");
        }
        Random s = threadLocals();
        long n = bound - origin;
        if (n > 0) {
            long bits;
            long v;
            do {
                bits = s.nextLong() >>> 1;
                v = bits % n;
            } while (bits - v + (n - 1) < 0);
            return origin + v;
        }
        long v;
        do {
            v = s.nextLong();
        } while (v < origin || v >= bound);
        return v;
    }

    /** {@code ThreadLocalRandom.nextDouble()}. */
    public static double nextDouble(ThreadLocalRandom r) {
        return threadLocals().nextDouble();
    }

    /** {@code ThreadLocalRandom.nextDouble(double)}. */
    public static double nextDouble(ThreadLocalRandom r, double bound) {
        if (!(bound > 0.0)) {
            throw new IllegalArgumentException("bound must be positive");
        }
        return nextDouble(r, 0.0, bound);
    }

    /** {@code ThreadLocalRandom.nextDouble(double, double)}. */
    public static double nextDouble(ThreadLocalRandom r, double origin, double bound) {
        if (!(origin < bound)) {
            throw new IllegalArgumentException("bound must be greater than origin");
        }
        double v = threadLocals().nextDouble() * (bound - origin) + origin;
        return v < bound ? v : Math.nextDown(bound);
    }

    /** {@code ThreadLocalRandom.nextBoolean()}. */
    public static boolean nextBoolean(ThreadLocalRandom r) {
        return threadLocals().nextBoolean();
    }

    /** {@code ThreadLocalRandom.nextFloat()}. */
    public static float nextFloat(ThreadLocalRandom r) {
        return threadLocals().nextFloat();
    }

    /** {@code ThreadLocalRandom.nextGaussian()}. */
    public static double nextGaussian(ThreadLocalRandom r) {
        return threadLocals().nextGaussian();
    }

    // ---- SecureRandom ----

    /** {@code new SecureRandom()}: a generator drawing from this test's next seed. */
    public static SecureRandom newSecureRandom() {
        return new Secure(seed());
    }

    /** {@code new SecureRandom(byte[])}: this test's next seed, then {@code seed} mixed in. */
    public static SecureRandom newSecureRandom(byte[] seed) {
        SecureRandom r = new Secure(seed());
        r.setSeed(seed);
        return r;
    }

    /** {@code SecureRandom.getInstance(String)}: the JDK's exceptions, this test's numbers. */
    public static SecureRandom getInstance(String algorithm) throws NoSuchAlgorithmException {
        SecureRandom.getInstance(algorithm);
        return new Secure(seed());
    }

    /** {@code SecureRandom.getInstance(String, String)}. */
    public static SecureRandom getInstance(String algorithm, String provider)
            throws NoSuchAlgorithmException, NoSuchProviderException {
        SecureRandom.getInstance(algorithm, provider);
        return new Secure(seed());
    }

    /** {@code SecureRandom.getInstance(String, Provider)}. */
    public static SecureRandom getInstance(String algorithm, Provider provider)
            throws NoSuchAlgorithmException {
        SecureRandom.getInstance(algorithm, provider);
        return new Secure(seed());
    }

    /** {@code SecureRandom.getInstanceStrong()}. */
    public static SecureRandom getInstanceStrong() throws NoSuchAlgorithmException {
        return new Secure(seed());
    }

    /** {@code SecureRandom.getSeed(int)}. */
    public static byte[] getSeed(int numBytes) {
        return new Secure(seed()).generateSeed(numBytes);
    }

    /** A {@code SecureRandom} whose numbers come from a seeded {@code Random}. */
    static final class Secure extends SecureRandom {
        private static final long serialVersionUID = 1L;

        Secure(long seed) {
            super(new Spi(seed), null);
        }

        @Override
        public String getAlgorithm() {
            return "ferrosuite";
        }
    }

    /** The engine of {@link Secure}: {@code setSeed} mixes into the sequence, never resets it. */
    static final class Spi extends SecureRandomSpi {
        private static final long serialVersionUID = 1L;
        private final Random random;

        Spi(long seed) {
            random = new Random(seed);
        }

        @Override
        protected void engineSetSeed(byte[] seed) {
            long h = random.nextLong();
            for (byte b : seed) {
                h = h * 31 + b;
            }
            random.setSeed(h);
        }

        @Override
        protected void engineNextBytes(byte[] bytes) {
            random.nextBytes(bytes);
        }

        @Override
        protected byte[] engineGenerateSeed(int numBytes) {
            if (numBytes < 0) {
                throw new IllegalArgumentException("numBytes cannot be negative");
            }
            byte[] b = new byte[numBytes];
            random.nextBytes(b);
            return b;
        }
    }
}
