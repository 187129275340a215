//! Branch distance normalisation.
//!
//! The probes compute a raw branch distance whenever a predicate runs (`|a - b| + k`-style
//! distances for comparisons, graded distances for string predicates, 0 for the outcome
//! taken); the runtime keeps the smallest distance seen per outcome. Fitness works with the
//! normalised value ν(x) = x / (x + 1) (Arcuri, "It does matter how you normalise the branch
//! distance"), which maps [0, ∞) monotonically onto [0, 1): any approach-level step (1) weighs
//! more than any branch distance.
//!
//! ```
//! use ferrosuite_fitness::distance::normalize;
//! assert_eq!(normalize(0.0), 0.0);
//! assert_eq!(normalize(1.0), 0.5);
//! assert_eq!(normalize(3.0), 0.75);
//! assert_eq!(normalize(f64::INFINITY), 1.0); // never ran: no distance known
//! ```

/// ν(x) = x / (x + 1) for a raw branch distance `x ≥ 0`: 0 for 0, in (0, 1) for finite positive
/// distances. Distances the probes could not compute are treated as "no information": `+∞`
/// and NaN give 1 (the value of a predicate that never ran); negative values (which the probes
/// do not produce) count as 0.
#[must_use]
pub fn normalize(x: f64) -> f64 {
    if x.is_nan() || x == f64::INFINITY {
        1.0
    } else if x <= 0.0 {
        0.0
    } else {
        // For huge finite x, x / (x + 1) rounds to 1.0; keep results below 1 so a finite
        // distance always beats "never ran".
        let v = x / (x + 1.0);
        if v < 1.0 { v } else { ONE_MINUS_EPSILON }
    }
}

/// The largest `f64` below 1.
const ONE_MINUS_EPSILON: f64 = 1.0 - f64::EPSILON / 2.0;

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::float_cmp)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn fixed_points() {
        assert_eq!(normalize(0.0), 0.0);
        assert_eq!(normalize(-3.0), 0.0);
        assert_eq!(normalize(1.0), 0.5);
        assert_eq!(normalize(f64::NAN), 1.0);
        assert_eq!(normalize(f64::INFINITY), 1.0);
        assert!(normalize(f64::MAX) < 1.0);
        assert!(normalize(1e300) < 1.0);
    }

    proptest! {
        #[test]
        fn normalised_distances_are_in_zero_one(x in 0.0f64..1e308) {
            let v = normalize(x);
            prop_assert!((0.0..1.0).contains(&v), "ν({x}) = {v}");
            prop_assert_eq!(v == 0.0, x == 0.0);
        }

        #[test]
        fn normalisation_is_monotone(a in 0.0f64..1e12, b in 0.0f64..1e12) {
            let (lo, hi) = if a <= b { (a, b) } else { (b, a) };
            prop_assert!(normalize(lo) <= normalize(hi));
            if hi - lo > 1e-3 && hi < 1e6 {
                prop_assert!(normalize(lo) < normalize(hi));
            }
        }
    }
}
