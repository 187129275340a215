package org.ferrosuite.rt;

import java.util.Random;

/**
 * The superclass {@link Patcher} gives a class that extends {@code Random}: its no-argument
 * constructor takes the seed {@link SystemRandom#constructorSeed()} gives (one a carved test
 * queued, else this test's next seed), as the worker's rewrite of such a class's
 * {@code super()} does.
 */
public class SeededRandom extends Random {
    private static final long serialVersionUID = 1L;

    /** {@code Random()}, seeded from the controlled environment. */
    public SeededRandom() {
        super(SystemRandom.constructorSeed());
    }

    /** {@code Random(long)}. */
    public SeededRandom(long seed) {
        super(seed);
    }
}
