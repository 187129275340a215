package org.ferrosuite.rt;

/** String distances for the testability transformation of String comparisons. */
final class Distance {
    private Distance() {}

    /** Above this many cells the quadratic algorithms fall back to a linear estimate. */
    private static final long MAX_CELLS = 1L << 20;

    /** Levenshtein distance (at least 1 for different strings). */
    static double edit(String a, String b) {
        int n = a.length(), m = b.length();
        if ((long) n * m > MAX_CELLS) return Math.abs(n - m) + mismatches(a, b);
        int[] prev = new int[m + 1], cur = new int[m + 1];
        for (int j = 0; j <= m; j++) prev[j] = j;
        for (int i = 1; i <= n; i++) {
            cur[0] = i;
            char c = a.charAt(i - 1);
            for (int j = 1; j <= m; j++) {
                int sub = prev[j - 1] + (c == b.charAt(j - 1) ? 0 : 1);
                cur[j] = Math.min(sub, Math.min(prev[j], cur[j - 1]) + 1);
            }
            int[] t = prev; prev = cur; cur = t;
        }
        return Math.max(1, prev[m]);
    }

    private static int mismatches(String a, String b) {
        int k = Math.min(a.length(), b.length()), d = 0;
        for (int i = 0; i < k; i++) if (a.charAt(i) != b.charAt(i)) d++;
        return d;
    }

    /** How far {@code s} is from containing {@code t}: the best window's character mismatches. */
    static double containment(String s, String t) {
        int n = s.length(), m = t.length();
        if (m > n) return edit(s, t);
        if ((long) (n - m + 1) * m > MAX_CELLS) return 1;
        int best = m;
        for (int i = 0; i + m <= n && best > 1; i++) {
            int d = 0;
            for (int j = 0; j < m && d < best; j++) if (s.charAt(i + j) != t.charAt(j)) d++;
            best = Math.min(best, d);
        }
        return Math.max(1, best);
    }
}
