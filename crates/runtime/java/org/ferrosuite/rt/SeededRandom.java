package org.ferrosuite.rt;

import java.util.Random;

/**
 * The superclass {@link Patcher} gives a class that extends {@code Random}: its no-argument
 * constructor draws this test's next seed ({@link SystemRandom#seed()}), as the worker's
 * rewrite of such a class's {@code super()} does.
 */
public class SeededRandom extends Random {
    private static final long serialVersionUID = 1L;

    /** {@code Random()}, seeded from the controlled environment. */
    public SeededRandom() {
        super(SystemRandom.seed());
    }

    /** {@code Random(long)}. */
    public SeededRandom(long seed) {
        super(seed);
    }
}
