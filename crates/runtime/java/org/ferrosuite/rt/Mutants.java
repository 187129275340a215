package org.ferrosuite.rt;

import java.util.Arrays;
import java.util.Collections;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * The run-time half of mutation schemata (the Rust module {@code
 * ferrosuite_bytecode::instrument::mutation}): a mutated class calls these helpers at every
 * site a mutant changes, and each computes the original result unless {@link #active} is one
 * of the site's mutant ids. A site's {@code code} argument carries its first id in the high
 * bits and what the helper needs in the low ones (the comparison, the opcode, the kind of
 * empty value). Every call also marks the site reached in this test ({@link #reached()}), so
 * the host runs a mutant only with the tests that reach it.
 */
public final class Mutants {
    /** The mutant that runs; 0: none (the original code). */
    public static volatile int active;

    private static boolean[] reached = new boolean[0];
    private static int[] reachedList = new int[64];
    private static int reachedCount;

    private Mutants() {
    }

    /** Makes room for mutant ids up to {@code last} and forgets what was reached. */
    public static synchronized void prepare(int last) {
        reached = new boolean[last + 1];
        reachedCount = 0;
    }

    /** Starts a test: no site reached yet. */
    public static synchronized void begin() {
        for (int k = 0; k < reachedCount; k++) {
            int id = reachedList[k];
            if (id < reached.length) {
                reached[id] = false;
            }
        }
        reachedCount = 0;
    }

    /** The first ids of the sites this test reached, in the order first reached. */
    public static synchronized int[] reached() {
        return Arrays.copyOf(reachedList, reachedCount);
    }

    private static void reach(int site) {
        boolean[] r = reached;
        if (site < r.length && !r[site]) {
            synchronized (Mutants.class) {
                if (site < reached.length && !reached[site]) {
                    reached[site] = true;
                    if (reachedCount == reachedList.length) {
                        reachedList = Arrays.copyOf(reachedList, 2 * reachedCount);
                    }
                    reachedList[reachedCount++] = site;
                }
            }
        }
    }

    // ---- conditions: code = site << 3 | comparison (0 ==, 1 !=, 2 <, 3 >=, 4 >, 5 <=) ----

    private static boolean compare(int cmp, int a, int b) {
        switch (cmp) {
            case 0:
                return a == b;
            case 1:
                return a != b;
            case 2:
                return a < b;
            case 3:
                return a >= b;
            case 4:
                return a > b;
            default:
                return a <= b;
        }
    }

    /** The order comparison with the boundary moved: {@code <} ↔ {@code <=}, {@code >} ↔ {@code >=}. */
    private static int boundary(int cmp) {
        switch (cmp) {
            case 2:
                return 5;
            case 3:
                return 4;
            case 4:
                return 3;
            default:
                return 2;
        }
    }

    /**
     * An int comparison (against 0 for the one-operand jumps): whether the jump is taken. The
     * site's mutants: negated; for order comparisons the boundary moved; then the jump always
     * taken.
     */
    public static boolean icmp(int a, int b, int code) {
        int site = code >>> 3;
        int cmp = code & 7;
        reach(site);
        int m = active - site;
        if (m == 0) {
            return !compare(cmp, a, b);
        }
        if (cmp >= 2) {
            if (m == 1) {
                return compare(boundary(cmp), a, b);
            }
            if (m == 2) {
                return true;
            }
        } else if (m == 1) {
            return true;
        }
        return compare(cmp, a, b);
    }

    /**
     * A reference comparison (against null for {@code ifnull}/{@code ifnonnull}); its mutants:
     * negated, then the jump always taken.
     */
    public static boolean acmp(Object a, Object b, int code) {
        int site = code >>> 3;
        reach(site);
        boolean same = a == b;
        boolean taken = (code & 7) == 0 ? same : !same;
        if (active == site) {
            return !taken;
        }
        return active == site + 1 || taken;
    }

    // ---- arithmetic: code = site << 8 | opcode ----

    private static int mutatedOpcode(int opcode) {
        switch (opcode) {
            case 0x60: case 0x61: case 0x62: case 0x63:
                return opcode + 4;
            case 0x64: case 0x65: case 0x66: case 0x67:
                return opcode - 4;
            case 0x68: case 0x69: case 0x6a: case 0x6b:
                return opcode + 4;
            case 0x6c: case 0x6d: case 0x6e: case 0x6f:
                return opcode - 4;
            case 0x70: case 0x71: case 0x72: case 0x73:
                return opcode - 8;
            case 0x78: case 0x79:
                return opcode + 2;
            case 0x7a: case 0x7b:
                return opcode - 2;
            case 0x7c: case 0x7d:
                return opcode - 4;
            case 0x7e: case 0x7f:
                return opcode + 2;
            case 0x80: case 0x81:
                return opcode - 2;
            default:
                return opcode - 4;
        }
    }

    private static int opcode(int code) {
        int site = code >>> 8;
        reach(site);
        int o = code & 0xff;
        return active == site ? mutatedOpcode(o) : o;
    }

    public static int imath(int a, int b, int code) {
        switch (opcode(code)) {
            case 0x60: return a + b;
            case 0x64: return a - b;
            case 0x68: return a * b;
            case 0x6c: return a / b;
            case 0x70: return a % b;
            case 0x78: return a << b;
            case 0x7a: return a >> b;
            case 0x7c: return a >>> b;
            case 0x7e: return a & b;
            case 0x80: return a | b;
            default: return a ^ b;
        }
    }

    public static long lmath(long a, long b, int code) {
        switch (opcode(code)) {
            case 0x61: return a + b;
            case 0x65: return a - b;
            case 0x69: return a * b;
            case 0x6d: return a / b;
            case 0x71: return a % b;
            case 0x7f: return a & b;
            case 0x81: return a | b;
            default: return a ^ b;
        }
    }

    public static long lshift(long a, int b, int code) {
        switch (opcode(code)) {
            case 0x79: return a << b;
            case 0x7b: return a >> b;
            default: return a >>> b;
        }
    }

    public static float fmath(float a, float b, int code) {
        switch (opcode(code)) {
            case 0x62: return a + b;
            case 0x66: return a - b;
            case 0x6a: return a * b;
            case 0x6e: return a / b;
            default: return a % b;
        }
    }

    public static double dmath(double a, double b, int code) {
        switch (opcode(code)) {
            case 0x63: return a + b;
            case 0x67: return a - b;
            case 0x6b: return a * b;
            case 0x6f: return a / b;
            default: return a % b;
        }
    }

    // ---- increments and negations: code = site ----

    /** {@code iinc}: {@code value + delta}, or {@code value - delta} when mutated. */
    public static int inc(int value, int delta, int site) {
        reach(site);
        return active == site ? value - delta : value + delta;
    }

    public static int ineg(int v, int site) {
        reach(site);
        return active == site ? v : -v;
    }

    public static long lneg(long v, int site) {
        reach(site);
        return active == site ? v : -v;
    }

    public static float fneg(float v, int site) {
        reach(site);
        return active == site ? v : -v;
    }

    public static double dneg(double v, int site) {
        reach(site);
        return active == site ? v : -v;
    }

    // ---- returns ----

    /** An int-like or boolean return: 0 becomes 1, anything else 0 (true ↔ false). */
    public static int iret(int v, int site) {
        reach(site);
        return active == site ? (v == 0 ? 1 : 0) : v;
    }

    public static long lret(long v, int site) {
        reach(site);
        return active == site ? (v == 0 ? 1 : 0) : v;
    }

    public static float fret(float v, int site) {
        reach(site);
        return active == site ? (v == 0 ? 1 : 0) : v;
    }

    public static double dret(double v, int site) {
        reach(site);
        return active == site ? (v == 0 ? 1 : 0) : v;
    }

    /**
     * A reference return: code = site << 4 | kind. Mutant {@code site} returns null, mutant
     * {@code site + 1} the empty value of the kind (1 "", 2 Optional, 3 List, 4 Set, 5 Map,
     * 6 Collection, 7 to 13 a zero box, 14 false, 15 an empty stream).
     */
    public static Object aret(Object v, int code) {
        int site = code >>> 4;
        reach(site);
        int m = active - site;
        if (m == 0) {
            return null;
        }
        if (m != 1) {
            return v;
        }
        switch (code & 15) {
            case 1: return "";
            case 2: return Optional.empty();
            case 3: return Collections.emptyList();
            case 4: return Collections.emptySet();
            case 5: return Collections.emptyMap();
            case 6: return Collections.emptyList();
            case 7: return Integer.valueOf(0);
            case 8: return Long.valueOf(0);
            case 9: return Short.valueOf((short) 0);
            case 10: return Byte.valueOf((byte) 0);
            case 11: return Float.valueOf(0);
            case 12: return Double.valueOf(0);
            case 13: return Character.valueOf('\0');
            case 14: return Boolean.FALSE;
            case 15: return Stream.empty();
            default: return v;
        }
    }

    // ---- void calls ----

    /** Whether the void call of mutant {@code site} is skipped (its mutant is active). */
    public static boolean skip(int site) {
        reach(site);
        return active == site;
    }
}
