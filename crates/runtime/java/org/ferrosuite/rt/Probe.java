package org.ferrosuite.rt;

import java.io.FileOutputStream;
import java.io.IOException;
import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.util.Arrays;

/**
 * The probe runtime: instrumented code calls these static methods, which record what they see
 * into plain arrays that the execution host (or the dump at exit, in offline mode) reads.
 *
 * <p>Branch outcomes live in slots: a conditional jump at slot s has outcome s (taken) and s+1
 * (not taken); a switch with n keys has s..s+n-1 for the keys and s+n for default.
 * {@code dist[k]} is the smallest distance seen to taking outcome k (0 once taken,
 * +Infinity while its site never ran); {@code hits[k]} counts how often it was taken.
 *
 * <p>Arrays grow on demand, so instrumented classes need no registration. Updates are not
 * synchronised: concurrent code under test may lose a count, but a probe never indexes an
 * array it has not checked (each probe reads the arrays into locals, checks their lengths, and
 * re-reads them after a synchronised grow), so probes never throw into the code under test,
 * except {@link AbortError} on purpose.
 *
 * <p>Static initialisers use {@link #enterInit} and {@link #loopInit}, which never throw: an
 * exception in {@code <clinit>} would leave the class unusable in this JVM for good. A static
 * initialiser that never ends is left to the watchdog's last resort (killing the worker).
 */
public final class Probe {
    private Probe() {}

    /** Smallest distance to taking each branch outcome. */
    public static double[] dist = new double[0];
    /** Times each branch outcome was taken. */
    public static int[] hits = new int[0];
    /** Executions of each line probe. */
    public static int[] lineHits = new int[0];
    /** Executions of each method-entry probe. */
    public static int[] methodHits = new int[0];
    /** Iterations counted by each loop probe since the last reset. */
    public static int[] loopCounts = new int[0];
    /** Classes (by class id) whose static fields were written since the last reset. */
    public static boolean[] staticWritten = new boolean[0];
    /** Per switch slot: the decoded keys (wrapped so that a racy read sees a complete array). */
    private static Keys[] switchKeys = new Keys[0];

    private static final class Keys {
        final int[] keys;

        Keys(int[] keys) {
            this.keys = keys;
        }
    }
    /** Iterations per loop before a test is aborted; 0 disables the limit (offline default). */
    public static int loopLimit = Integer.getInteger("ferrosuite.loopLimit", 0);
    /** Set by the watchdog: every probe that can throw then aborts the running test. */
    public static volatile boolean abort;
    /** Distance to flipping the last String comparison's result, NaN when none is pending. */
    private static double pending = Double.NaN;

    /*
     * Values the code under test compared (the operands of int, long, float and double
     * comparisons and of String comparisons), the first ones of each test: the search reuses
     * them as seeds (the whole-suite paper's values "observed at run time", EvoSuite's dynamic
     * pool). Numbers skip only a repeat of the value just recorded (a cheap test on the hot
     * path; a loop `i < n` fills the buffer with its indices, then costs one compare per
     * branch); strings are kept once each. The buffers never grow; a racy write loses a
     * value, never indexes out of bounds.
     */
    /** Compared {@code int} operands of the current test. */
    public static final int[] seenInts = new int[32];
    /** Number of {@link #seenInts} in use. */
    public static int seenIntCount;
    /** Compared {@code long} operands of the current test. */
    public static final long[] seenLongs = new long[8];
    /** Number of {@link #seenLongs} in use. */
    public static int seenLongCount;
    /** Compared {@code float} and {@code double} operands of the current test. */
    public static final double[] seenDoubles = new double[8];
    /** Number of {@link #seenDoubles} in use. */
    public static int seenDoubleCount;
    /** Compared strings of the current test. */
    public static final String[] seenStrings = new String[16];
    /** Number of {@link #seenStrings} in use. */
    public static int seenStringCount;

    private static void seeInt(int v) {
        int n = seenIntCount;
        if (n < seenInts.length && (n == 0 || seenInts[n - 1] != v)) {
            seenInts[n] = v;
            seenIntCount = n + 1;
        }
    }

    private static void seeLong(long v) {
        int n = seenLongCount;
        if (n < seenLongs.length && (n == 0 || seenLongs[n - 1] != v)) {
            seenLongs[n] = v;
            seenLongCount = n + 1;
        }
    }

    private static void seeDouble(double v) {
        int n = seenDoubleCount;
        if (n < seenDoubles.length && (n == 0 || Double.compare(seenDoubles[n - 1], v) != 0)) {
            seenDoubles[n] = v;
            seenDoubleCount = n + 1;
        }
    }

    /** Longest string kept: longer ones are not seeds (the host drops them as well). */
    private static final int SEEN_STRING_MAX = 256;

    /**
     * Strings are few and their comparisons costly anyway: a string is kept once per test
     * (the buffer holds 16 distinct ones, not one key repeated by a loop), and only if short.
     */
    private static void seeString(Object s) {
        int n = seenStringCount;
        if (n >= seenStrings.length || !(s instanceof String) || ((String) s).length() > SEEN_STRING_MAX) {
            return;
        }
        for (int i = 0; i < n; i++) {
            if (s.equals(seenStrings[i])) return;
        }
        seenStrings[n] = (String) s;
        seenStringCount = n + 1;
    }

    private static void clearSeen() {
        seenIntCount = 0;
        seenLongCount = 0;
        seenDoubleCount = 0;
        if (seenStringCount > 0) {
            Arrays.fill(seenStrings, null);
            seenStringCount = 0;
        }
    }

    static {
        String out = System.getProperty("ferrosuite.probes.out");
        if (out != null) {
            final String path = out;
            Runtime.getRuntime().addShutdownHook(new Thread("ferrosuite-probe-dump") {
                @Override
                public void run() {
                    try {
                        dump(path);
                    } catch (IOException e) {
                        System.err.println("ferrosuite: cannot write probe data to " + path + ": " + e);
                    }
                }
            });
        }
    }

    // ---- growth -------------------------------------------------------------------------

    private static synchronized void growSlots(int needed) {
        if (needed <= hits.length && needed <= dist.length) return;
        int n = Math.max(needed, Math.max(hits.length, dist.length) * 2 + 64);
        int old = dist.length;
        double[] d = Arrays.copyOf(dist, n);
        Arrays.fill(d, old, n, Double.POSITIVE_INFINITY);
        dist = d;
        hits = Arrays.copyOf(hits, n);
    }

    /** Grows the slot arrays if either is shorter than {@code needed}; true when it had to. */
    private static boolean tooShort(double[] d, int[] h, int needed) {
        if (needed <= d.length && needed <= h.length) return false;
        growSlots(needed);
        return true;
    }

    private static synchronized int[] grow(int[] a, int needed, int which) {
        int[] cur = which == 0 ? lineHits : which == 1 ? methodHits : loopCounts;
        if (needed <= cur.length) return cur;
        int[] b = Arrays.copyOf(cur, Math.max(needed, cur.length * 2 + 64));
        if (which == 0) lineHits = b; else if (which == 1) methodHits = b; else loopCounts = b;
        return b;
    }

    /** Clears all recorded data (the host calls this before each test). */
    public static synchronized void reset() {
        Arrays.fill(dist, Double.POSITIVE_INFINITY);
        Arrays.fill(hits, 0);
        Arrays.fill(lineHits, 0);
        Arrays.fill(methodHits, 0);
        Arrays.fill(loopCounts, 0);
        Arrays.fill(staticWritten, false);
        pending = Double.NaN;
        clearSeen();
        abort = false;
    }

    /**
     * Starts a test whose probe arrays the host has already cleared (it clears only the ranges
     * of the methods the previous test entered): resets the flags only.
     */
    public static synchronized void begin() {
        pending = Double.NaN;
        clearSeen();
        abort = false;
    }

    // ---- method, line, loop ---------------------------------------------------------------

    /** Method entry. */
    public static void enter(int id) {
        int[] a = methodHits;
        if (id >= a.length) a = grow(a, id + 1, 1);
        a[id]++;
        if (abort) throw new AbortError("test aborted");
    }

    /** Line reached. */
    public static void line(int id) {
        int[] a = lineHits;
        if (id >= a.length) a = grow(a, id + 1, 0);
        a[id]++;
    }

    /** Entry of a static initialiser: counts, never throws. */
    public static void enterInit(int id) {
        int[] a = methodHits;
        if (id >= a.length) a = grow(a, id + 1, 1);
        a[id]++;
    }

    /** Loop back edge inside a static initialiser: counts, never throws. */
    public static void loopInit(int id) {
        int[] a = loopCounts;
        if (id >= a.length) a = grow(a, id + 1, 2);
        a[id]++;
    }

    /** Loop back edge: counts, and aborts the test past the limit or when asked to. */
    public static void loop(int id) {
        int[] a = loopCounts;
        if (id >= a.length) a = grow(a, id + 1, 2);
        int c = ++a[id];
        if (abort) throw new AbortError("test aborted");
        if (loopLimit > 0 && c > loopLimit) {
            abort = true;
            throw new AbortError("loop limit of " + loopLimit + " iterations exceeded");
        }
    }

    /** A static field of class {@code classId} is about to be written. */
    public static void staticWrite(int classId) {
        boolean[] a = staticWritten;
        if (classId >= a.length) a = growStatic(classId + 1);
        a[classId] = true;
    }

    private static synchronized boolean[] growStatic(int needed) {
        if (needed > staticWritten.length) {
            staticWritten = Arrays.copyOf(staticWritten, Math.max(needed, staticWritten.length * 2 + 16));
        }
        return staticWritten;
    }

    // ---- branches -------------------------------------------------------------------------

    private static void record(int slot, boolean taken, double toTaken, double toNotTaken) {
        double[] d = dist;
        int[] h = hits;
        if (tooShort(d, h, slot + 2)) {
            d = dist;
            h = hits;
        }
        if (taken) {
            h[slot]++;
            d[slot] = 0;
            if (toNotTaken < d[slot + 1]) d[slot + 1] = toNotTaken;
        } else {
            h[slot + 1]++;
            d[slot + 1] = 0;
            if (toTaken < d[slot]) d[slot] = toTaken;
        }
    }

    // Opcodes of the comparisons (JVMS): if_icmpeq..if_icmple = 0x9f..0xa4.
    private static final int EQ = 0x9f, NE = 0xa0, LT = 0xa1, GE = 0xa2, GT = 0xa3, LE = 0xa4;

    private static void compare(long a, long b, int op, int slot) {
        switch (op) {
            case EQ: record(slot, a == b, Math.abs(a - b), 1); break;
            case NE: record(slot, a != b, 1, Math.abs(a - b)); break;
            case LT: record(slot, a < b, a - b + 1, b - a); break;
            case GE: record(slot, a >= b, b - a, a - b + 1); break;
            case GT: record(slot, a > b, b - a + 1, a - b); break;
            case LE: record(slot, a <= b, a - b, b - a + 1); break;
            default: throw new IllegalArgumentException("bad comparison opcode " + op);
        }
    }

    /** {@code if<cond> v} (ifeq..ifle): compares v with 0. */
    public static void branch(int v, int op, int slot) {
        compare(v, 0, op + (EQ - 0x99), slot);
    }

    /** {@code if_icmp<cond> a b}. */
    public static void branch2(int a, int b, int op, int slot) {
        seeInt(a);
        seeInt(b);
        compare(a, b, op, slot);
    }

    /** {@code ifeq}/{@code ifne} consuming a String comparison's result. */
    public static void branchBool(int v, int op, int slot) {
        double d = pending;
        pending = Double.NaN;
        if (d != d) d = 1;
        boolean taken = op == 0x99 ? v == 0 : v != 0;
        record(slot, taken, taken ? 0 : d, taken ? d : 0);
    }

    /** {@code ifnull}/{@code ifnonnull}. */
    public static void branchRef(Object o, int op, int slot) {
        boolean taken = op == 0xc6 ? o == null : o != null;
        record(slot, taken, 1, 1);
    }

    /** {@code if_acmpeq}/{@code if_acmpne}. */
    public static void branchRef2(Object a, Object b, int op, int slot) {
        boolean taken = op == 0xa5 ? a == b : a != b;
        record(slot, taken, 1, 1);
    }

    /** {@code tableswitch} and {@code lookupswitch}: the case keys (those not jumping to the
     * default target), encoded two chars each (high, low 16 bits). */
    public static void lookupSwitch(int v, String encoded, int slot) {
        int[] keys = keys(encoded, slot);
        int n = keys.length;
        double[] d = dist;
        int[] h = hits;
        if (tooShort(d, h, slot + n + 1)) {
            d = dist;
            h = hits;
        }
        boolean matched = false;
        for (int k = 0; k < n; k++) {
            long diff = Math.abs((long) v - (long) keys[k]);
            if (diff == 0) { h[slot + k]++; d[slot + k] = 0; matched = true; }
            else if (diff < d[slot + k]) d[slot + k] = diff;
        }
        if (!matched) { h[slot + n]++; d[slot + n] = 0; }
        else if (1 < d[slot + n]) d[slot + n] = 1;
    }

    private static int[] keys(String encoded, int slot) {
        Keys[] cache = switchKeys;
        if (slot < cache.length) {
            Keys cached = cache[slot];
            if (cached != null) return cached.keys;
        }
        int[] k = new int[encoded.length() / 2];
        for (int i = 0; i < k.length; i++) {
            k[i] = (encoded.charAt(2 * i) << 16) | encoded.charAt(2 * i + 1);
        }
        synchronized (Probe.class) {
            if (slot >= switchKeys.length) switchKeys = Arrays.copyOf(switchKeys, Math.max(slot + 1, switchKeys.length * 2 + 16));
            switchKeys[slot] = new Keys(k);
        }
        return k;
    }

    // ---- testability transformations -------------------------------------------------------

    private static int signed(boolean less, double magnitude) {
        int m = magnitude >= Integer.MAX_VALUE ? Integer.MAX_VALUE : Math.max(1, (int) Math.ceil(magnitude));
        return less ? -m : m;
    }

    /** Replaces {@code lcmp}: same sign, magnitude |a-b| (saturated). */
    public static int lcmp(long a, long b) {
        seeLong(a);
        seeLong(b);
        if (a == b) return 0;
        boolean less = a < b;
        long mag = less ? b - a : a - b; // the unsigned difference, wrapped
        int m = (mag < 0 || mag > Integer.MAX_VALUE) ? Integer.MAX_VALUE : (int) mag;
        return less ? -m : m;
    }

    /** Replaces {@code fcmpl}: NaN gives -1. */
    public static int fcmpl(float a, float b) {
        seeDouble(a);
        seeDouble(b);
        if (a != a || b != b) return -1;
        if (a == b) return 0;
        return signed(a < b, Math.abs((double) a - (double) b));
    }

    /** Replaces {@code fcmpg}: NaN gives 1. */
    public static int fcmpg(float a, float b) {
        seeDouble(a);
        seeDouble(b);
        if (a != a || b != b) return 1;
        if (a == b) return 0;
        return signed(a < b, Math.abs((double) a - (double) b));
    }

    /** Replaces {@code dcmpl}: NaN gives -1. */
    public static int dcmpl(double a, double b) {
        seeDouble(a);
        seeDouble(b);
        if (a != a || b != b) return -1;
        if (a == b) return 0;
        return signed(a < b, Math.abs(a - b));
    }

    /** Replaces {@code dcmpg}: NaN gives 1. */
    public static int dcmpg(double a, double b) {
        seeDouble(a);
        seeDouble(b);
        if (a != a || b != b) return 1;
        if (a == b) return 0;
        return signed(a < b, Math.abs(a - b));
    }

    /** Before {@code String.equals(Object)}. */
    public static void strEquals(String s, Object o) {
        seeString(s);
        seeString(o);
        if (s == null) { pending = Double.NaN; return; }
        if (s.equals(o)) pending = 1;
        else pending = o instanceof String ? Distance.edit(s, (String) o) : 1 + s.length();
    }

    /** Before {@code String.equalsIgnoreCase(String)}. */
    public static void strEqualsIgnoreCase(String s, String t) {
        seeString(s);
        seeString(t);
        if (s == null) { pending = Double.NaN; return; }
        if (t == null) { pending = 1 + s.length(); return; }
        pending = s.equalsIgnoreCase(t) ? 1 : Distance.edit(s.toLowerCase(java.util.Locale.ROOT), t.toLowerCase(java.util.Locale.ROOT));
    }

    /** Before {@code String.startsWith(String)}. */
    public static void strStartsWith(String s, String p) {
        seeString(p);
        if (s == null || p == null) { pending = Double.NaN; return; }
        if (s.startsWith(p)) { pending = 1; return; }
        pending = Distance.edit(s.length() >= p.length() ? s.substring(0, p.length()) : s, p);
    }

    /** Before {@code String.endsWith(String)}. */
    public static void strEndsWith(String s, String p) {
        seeString(p);
        if (s == null || p == null) { pending = Double.NaN; return; }
        if (s.endsWith(p)) { pending = 1; return; }
        pending = Distance.edit(s.length() >= p.length() ? s.substring(s.length() - p.length()) : s, p);
    }

    /** Before {@code String.contains(CharSequence)}; other CharSequences are not read. */
    public static void strContains(String s, CharSequence cs) {
        seeString(cs);
        if (s == null || !(cs instanceof String)) { pending = Double.NaN; return; }
        String t = (String) cs;
        pending = s.contains(t) ? 1 : Distance.containment(s, t);
    }

    /** Before {@code String.isEmpty()}. */
    public static void strIsEmpty(String s) {
        if (s == null) { pending = Double.NaN; return; }
        pending = s.isEmpty() ? 1 : s.length();
    }

    // ---- offline dump -----------------------------------------------------------------------

    /** Writes all recorded data as text (the format ferrosuite's report reads). */
    public static synchronized void dump(String path) throws IOException {
        PrintWriter w = new PrintWriter(new OutputStreamWriter(new FileOutputStream(path), "UTF-8"));
        try {
            w.println("ferrosuite-probe-data 1");
            for (int i = 0; i < hits.length; i++) {
                if (hits[i] != 0 || dist[i] != Double.POSITIVE_INFINITY) {
                    w.println("branch " + i + " " + hits[i] + " " + dist[i]);
                }
            }
            for (int i = 0; i < lineHits.length; i++) if (lineHits[i] != 0) w.println("line " + i + " " + lineHits[i]);
            for (int i = 0; i < methodHits.length; i++) if (methodHits[i] != 0) w.println("method " + i + " " + methodHits[i]);
            for (int i = 0; i < loopCounts.length; i++) if (loopCounts[i] != 0) w.println("loop " + i + " " + loopCounts[i]);
            for (int i = 0; i < staticWritten.length; i++) if (staticWritten[i]) w.println("static " + i);
            w.println("end");
        } finally {
            w.close();
        }
    }
}
