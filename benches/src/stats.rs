//! Statistics for comparing search algorithms over repeated runs, as the whole-suite paper
//! (and Arcuri & Briand's guidelines for randomised algorithms) report them: medians, the
//! Vargha–Delaney effect size Â12 and the two-sided Mann–Whitney U test.
//!
//! Â12 is the probability that a run of the first algorithm gives a higher value than a run of
//! the second (ties count half): 0.5 is no difference, 1 means the first always wins. From the
//! rank sum R1 of the first sample (midranks for ties) in the pooled data,
//! `Â12 = (R1/m − (m+1)/2) / n`.
//!
//! The p-value of U is exact when there are no ties and both samples have at most 20 values
//! (the distribution of U counted by dynamic programming), otherwise from the normal
//! approximation with tie correction and continuity correction — the same choice R's
//! `wilcox.test` makes.
//!
//! ```
//! use ferrosuite_benches::stats::{a12, mann_whitney_p, median};
//! let ws = [0.91, 0.93, 0.92, 0.95, 0.94];
//! let st = [0.81, 0.83, 0.82, 0.85, 0.84];
//! assert_eq!(a12(&ws, &st), 1.0);
//! assert!((mann_whitney_p(&ws, &st) - 0.007_937).abs() < 1e-5); // 2 / C(10, 5)
//! assert_eq!(median(&ws), Some(0.93));
//! ```

// The textbook names (m, n, u, r…); ties are exact equality by definition; the DP indexes
// three dimensions at once.
#![allow(
    clippy::many_single_char_names,
    clippy::float_cmp,
    clippy::needless_range_loop
)]

/// The median (mean of the middle two for an even count); `None` for no values.
#[must_use]
pub fn median(values: &[f64]) -> Option<f64> {
    if values.is_empty() {
        return None;
    }
    let mut v = values.to_vec();
    v.sort_by(f64::total_cmp);
    let n = v.len();
    Some(if n % 2 == 1 {
        v[n / 2]
    } else {
        f64::midpoint(v[n / 2 - 1], v[n / 2])
    })
}

/// Ranks of `a` followed by `b` in the pooled sample (1-based, midranks for ties), and the
/// sizes of the tie groups.
fn ranks(a: &[f64], b: &[f64]) -> (Vec<f64>, Vec<usize>) {
    let pooled: Vec<f64> = a.iter().chain(b).copied().collect();
    let mut order: Vec<usize> = (0..pooled.len()).collect();
    order.sort_by(|&i, &j| pooled[i].total_cmp(&pooled[j]));
    let mut r = vec![0.0; pooled.len()];
    let mut ties = Vec::new();
    let mut i = 0;
    while i < order.len() {
        let mut j = i;
        while j + 1 < order.len() && pooled[order[j + 1]] == pooled[order[i]] {
            j += 1;
        }
        #[allow(clippy::cast_precision_loss)]
        let mid = (i + j) as f64 / 2.0 + 1.0;
        for &k in &order[i..=j] {
            r[k] = mid;
        }
        if j > i {
            ties.push(j - i + 1);
        }
        i = j + 1;
    }
    (r, ties)
}

/// Vargha–Delaney Â12 of `a` over `b` (0.5 when either is empty).
#[must_use]
#[allow(clippy::cast_precision_loss)]
pub fn a12(a: &[f64], b: &[f64]) -> f64 {
    if a.is_empty() || b.is_empty() {
        return 0.5;
    }
    let (r, _) = ranks(a, b);
    let (m, n) = (a.len() as f64, b.len() as f64);
    let r1: f64 = r[..a.len()].iter().sum();
    (r1 / m - f64::midpoint(m, 1.0)) / n
}

/// The number of ways to get each U value for samples of sizes m and n without ties.
fn u_counts(m: usize, n: usize) -> Vec<f64> {
    // f[i][j][u]: arrangements of i values of the first and j of the second sample with
    // statistic u (u = number of pairs where the first sample's value is larger).
    let max = m * n;
    let mut f = vec![vec![vec![0.0f64; max + 1]; n + 1]; m + 1];
    for row in &mut f {
        row[0][0] = 1.0;
    }
    for j in 0..=n {
        f[0][j][0] = 1.0;
    }
    for i in 1..=m {
        for j in 1..=n {
            for u in 0..=i * j {
                // The largest value is from the first sample (it beats all j) or the second.
                let from_first = if u >= j { f[i - 1][j][u - j] } else { 0.0 };
                let from_second = f[i][j - 1][u];
                f[i][j][u] = from_first + from_second;
            }
        }
    }
    std::mem::take(&mut f[m][n])
}

/// Two-sided p-value of the Mann–Whitney U test of `a` against `b` (1 when either is empty).
#[must_use]
#[allow(clippy::cast_precision_loss)]
pub fn mann_whitney_p(a: &[f64], b: &[f64]) -> f64 {
    let (m, n) = (a.len(), b.len());
    if m == 0 || n == 0 {
        return 1.0;
    }
    let (r, ties) = ranks(a, b);
    let r1: f64 = r[..m].iter().sum();
    let (mf, nf) = (m as f64, n as f64);
    let u = r1 - mf * (mf + 1.0) / 2.0;
    let mean = mf * nf / 2.0;
    if ties.is_empty() && m <= 20 && n <= 20 {
        let counts = u_counts(m, n);
        let total: f64 = counts.iter().sum();
        // P(U <= min(u, mn - u)), doubled.
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
        let low = u.min(mf * nf - u).round() as usize;
        let tail: f64 = counts[..=low].iter().sum::<f64>() / total;
        return (2.0 * tail).min(1.0);
    }
    let total = mf + nf;
    let tie_term: f64 = ties
        .iter()
        .map(|&t| {
            let t = t as f64;
            t * t * t - t
        })
        .sum();
    let var = mf * nf / 12.0 * ((total + 1.0) - tie_term / (total * (total - 1.0)));
    if var <= 0.0 {
        return 1.0;
    }
    let z = ((u - mean).abs() - 0.5).max(0.0) / var.sqrt();
    (2.0 * (1.0 - normal_cdf(z))).min(1.0)
}

/// The standard normal distribution function (Abramowitz & Stegun 26.2.17 via erfc, error
/// below 1.5e-7).
fn normal_cdf(z: f64) -> f64 {
    0.5 * erfc(-z / std::f64::consts::SQRT_2)
}

fn erfc(x: f64) -> f64 {
    // Numerical Recipes' erfcc (Chebyshev fit), fractional error below 1.2e-7.
    let z = x.abs();
    let t = 1.0 / (1.0 + 0.5 * z);
    let poly = -z * z - 1.265_512_23
        + t * (1.000_023_68
            + t * (0.374_091_96
                + t * (0.096_784_18
                    + t * (-0.186_288_06
                        + t * (0.278_868_07
                            + t * (-1.135_203_98
                                + t * (1.488_515_87 + t * (-0.822_152_23 + t * 0.170_872_77))))))));
    let r = t * poly.exp();
    if x >= 0.0 { r } else { 2.0 - r }
}

#[cfg(test)]
#[allow(clippy::float_cmp)]
mod tests {
    use super::*;

    #[test]
    fn medians() {
        assert_eq!(median(&[]), None);
        assert_eq!(median(&[3.0]), Some(3.0));
        assert_eq!(median(&[4.0, 1.0, 3.0, 2.0]), Some(2.5));
    }

    #[test]
    fn a12_counts_wins_and_half_ties() {
        assert_eq!(a12(&[1.0, 2.0], &[1.0, 2.0]), 0.5);
        assert_eq!(a12(&[3.0], &[1.0, 2.0]), 1.0);
        assert_eq!(a12(&[0.0], &[1.0, 2.0]), 0.0);
        // Pairs: (2 vs 1) win, (2 vs 2) tie, (2 vs 3) loss => (1 + 0.5) / 3.
        assert!((a12(&[2.0], &[1.0, 2.0, 3.0]) - 0.5).abs() < 1e-12);
        // Brute force on a mixed sample.
        let a = [0.9, 0.92, 0.92, 0.95, 0.88];
        let b = [0.92, 0.85, 0.9, 0.91];
        let mut wins = 0.0;
        for x in a {
            for y in b {
                wins += if x > y {
                    1.0
                } else if x == y {
                    0.5
                } else {
                    0.0
                };
            }
        }
        assert!((a12(&a, &b) - wins / 20.0).abs() < 1e-12);
    }

    #[test]
    fn exact_p_values_match_r() {
        // R: wilcox.test(c(1,2,3,4,5), c(6,7,8,9,10))$p.value = 0.007936508
        let p = mann_whitney_p(&[1.0, 2.0, 3.0, 4.0, 5.0], &[6.0, 7.0, 8.0, 9.0, 10.0]);
        assert!((p - 0.007_936_508).abs() < 1e-9, "{p}");
        // R: wilcox.test(c(1.1,2.2,3.3,4.4), c(2.5,3.5,4.5,5.5,6.5))$p.value = 0.1111111
        let p = mann_whitney_p(&[1.1, 2.2, 3.3, 4.4], &[2.5, 3.5, 4.5, 5.5, 6.5]);
        assert!((p - 0.111_111_1).abs() < 1e-6, "{p}");
        // Symmetric, and 1 for interleaved samples.
        let q = mann_whitney_p(&[2.5, 3.5, 4.5, 5.5, 6.5], &[1.1, 2.2, 3.3, 4.4]);
        assert!((p - q).abs() < 1e-12);
        assert_eq!(mann_whitney_p(&[1.0, 4.0], &[2.0, 3.0]), 1.0);
    }

    #[test]
    fn tied_p_values_use_the_corrected_normal_approximation() {
        // By hand: midranks give R1 = 19.5, U = 4.5; ties 2 x3, 3 x2, 6 x2 make
        // var = 25/12 (11 − 36/90) = 22.083; z = (|4.5 − 12.5| − 0.5) / √var = 1.59599;
        // p = 2 (1 − Φ(z)) = 0.110492 (what R's wilcox.test reports with its correction).
        let p = mann_whitney_p(&[1.0, 2.0, 2.0, 3.0, 4.0], &[2.0, 3.0, 5.0, 6.0, 6.0]);
        assert!((p - 0.110_492).abs() < 1e-5, "{p}");
        // Everything tied: no evidence at all.
        assert_eq!(mann_whitney_p(&[1.0, 1.0], &[1.0, 1.0]), 1.0);
        assert_eq!(mann_whitney_p(&[], &[1.0]), 1.0);
    }

    #[test]
    fn normal_cdf_is_accurate() {
        assert!((normal_cdf(0.0) - 0.5).abs() < 1e-7);
        assert!((normal_cdf(1.959_964) - 0.975).abs() < 1e-6);
        assert!((normal_cdf(-1.0) - 0.158_655_25).abs() < 1e-6);
    }
}
