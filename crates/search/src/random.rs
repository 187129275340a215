//! Uniform random choices on top of any [`Rng`] (`rand_core` 0.10, re-exported by
//! `rand_chacha`): coin flips, unbiased integers in a range, floats in \[0, 1\), picks from a
//! slice. The operators take the generator as an argument, never from a global, so a seeded
//! `ChaCha8Rng` makes every run reproducible.
//!
//! Integers are unbiased (rejection sampling: a draw from the short last "zone" of the 64-bit
//! range is redrawn); floats use the top 53 bits of a 64-bit draw.
//!
//! ```
//! use ferrosuite_search::random::{chance, int_in, index};
//! use rand_chacha::ChaCha8Rng;
//! use rand_chacha::rand_core::SeedableRng;
//! let mut rng = ChaCha8Rng::seed_from_u64(1);
//! let x = int_in(&mut rng, -20, 20);
//! assert!((-20..=20).contains(&x));
//! assert!(index(&mut rng, 3) < 3);
//! assert!(chance(&mut rng, 1.0) && !chance(&mut rng, 0.0));
//! ```

pub use rand_chacha::rand_core::Rng;

/// A float uniformly in \[0, 1\).
pub fn unit<R: Rng + ?Sized>(rng: &mut R) -> f64 {
    (rng.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
}

/// `true` with probability `p` (`p ≤ 0` never, `p ≥ 1` always, without drawing).
pub fn chance<R: Rng + ?Sized>(rng: &mut R, p: f64) -> bool {
    if p >= 1.0 {
        true
    } else if p > 0.0 {
        unit(rng) < p
    } else {
        false
    }
}

/// A `u64` uniformly in \[0, n\); 0 for `n == 0`.
pub fn below<R: Rng + ?Sized>(rng: &mut R, n: u64) -> u64 {
    if n <= 1 {
        return 0;
    }
    // The largest multiple of n that fits: draws at or above it would bias small values.
    let zone = u64::MAX - (u64::MAX % n + 1) % n;
    loop {
        let x = rng.next_u64();
        if x <= zone {
            return x % n;
        }
    }
}

/// An index uniformly in \[0, n\); 0 for `n == 0`.
pub fn index<R: Rng + ?Sized>(rng: &mut R, n: usize) -> usize {
    below(rng, n as u64) as usize
}

/// An `i64` uniformly in \[lo, hi\] (the bounds swapped if needed).
pub fn int_in<R: Rng + ?Sized>(rng: &mut R, lo: i64, hi: i64) -> i64 {
    let (lo, hi) = if lo <= hi { (lo, hi) } else { (hi, lo) };
    let span = hi.wrapping_sub(lo) as u64;
    if span == u64::MAX {
        return rng.next_u64() as i64;
    }
    lo.wrapping_add(below(rng, span + 1) as i64)
}

/// A float uniformly in \[lo, hi\).
pub fn float_in<R: Rng + ?Sized>(rng: &mut R, lo: f64, hi: f64) -> f64 {
    lo + (hi - lo) * unit(rng)
}

/// A uniformly chosen element, `None` for an empty slice.
pub fn pick<'a, T, R: Rng + ?Sized>(rng: &mut R, items: &'a [T]) -> Option<&'a T> {
    if items.is_empty() {
        None
    } else {
        items.get(index(rng, items.len()))
    }
}

/// Index of a uniformly chosen `k < n` with `fits(k)`, `None` when none fits: the same draw
/// and the same answer as [`pick`] on the list of such `k`, without building the list. Up to
/// 128 candidates are tested once (their answers kept as bits); beyond that they are counted,
/// then tested again up to the one drawn.
pub fn pick_index_where<R: Rng + ?Sized>(
    rng: &mut R,
    n: usize,
    mut fits: impl FnMut(usize) -> bool,
) -> Option<usize> {
    if n <= 128 {
        let mut bits = 0u128;
        for k in 0..n {
            if fits(k) {
                bits |= 1 << k;
            }
        }
        if bits == 0 {
            return None;
        }
        let chosen = index(rng, bits.count_ones() as usize);
        for _ in 0..chosen {
            bits &= bits - 1;
        }
        return Some(bits.trailing_zeros() as usize);
    }
    let count = (0..n).filter(|&k| fits(k)).count();
    if count == 0 {
        return None;
    }
    let chosen = index(rng, count);
    (0..n).filter(|&k| fits(k)).nth(chosen)
}

/// The number of successes of the paper's "with probability p, then p², then p³, …" scheme:
/// the k-th event happens with probability p^k once the first k − 1 happened, and counting
/// stops at the first failure or at `max`.
pub fn geometric_count<R: Rng + ?Sized>(rng: &mut R, p: f64, max: usize) -> usize {
    let mut k = 0;
    let mut pk = p;
    while k < max && chance(rng, pk) {
        k += 1;
        pk *= p;
    }
    k
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use rand_chacha::ChaCha8Rng;
    use rand_chacha::rand_core::SeedableRng;

    #[test]
    fn ranges_hold_and_cover_their_ends() {
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        let mut seen = [false; 5];
        for _ in 0..1000 {
            let x = int_in(&mut rng, -2, 2);
            assert!((-2..=2).contains(&x));
            seen[(x + 2) as usize] = true;
        }
        assert!(seen.iter().all(|s| *s));
        let _ = int_in(&mut rng, i64::MIN, i64::MAX);
        assert_eq!(int_in(&mut rng, 5, 5), 5);
        let swapped = int_in(&mut rng, 6, 4);
        assert!((4..=6).contains(&swapped));
        for _ in 0..100 {
            let u = unit(&mut rng);
            assert!((0.0..1.0).contains(&u));
        }
        assert_eq!(below(&mut rng, 0), 0);
        assert!(pick::<u8, _>(&mut rng, &[]).is_none());
        assert_eq!(*pick(&mut rng, &[9]).unwrap(), 9);
    }

    proptest::proptest! {
        /// Choosing among the fitting indices draws as `pick` on their list, and answers the
        /// same, on both sides of the 128 bound.
        #[test]
        fn picking_where_is_picking_from_the_list(
            fit in proptest::collection::vec(proptest::bool::weighted(0.3), 0..300),
            seed: u64,
        ) {
            let list: Vec<usize> = (0..fit.len()).filter(|&k| fit[k]).collect();
            let mut a = ChaCha8Rng::seed_from_u64(seed);
            let mut b = ChaCha8Rng::seed_from_u64(seed);
            let expected = pick(&mut a, &list).copied();
            proptest::prop_assert_eq!(pick_index_where(&mut b, fit.len(), |k| fit[k]), expected);
            proptest::prop_assert_eq!(a.next_u64(), b.next_u64());
        }
    }

    #[test]
    fn geometric_counts_respect_their_cap_and_mean() {
        let mut rng = ChaCha8Rng::seed_from_u64(4);
        assert_eq!(geometric_count(&mut rng, 1.0, 7), 7);
        assert_eq!(geometric_count(&mut rng, 0.0, 7), 0);
        // P(k ≥ 1) = σ: about 10% of draws add at least one test with σ = 0.1.
        let hits = (0..10_000)
            .filter(|_| geometric_count(&mut rng, 0.1, 100) > 0)
            .count();
        assert!((800..1200).contains(&hits), "{hits}");
    }
}
