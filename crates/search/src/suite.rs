//! Test suites and the suite-level operators (whole-suite paper, Section III-E).
//!
//! A [`Suite`] is a list of [`SuiteTest`]s: a test with a [`TestId`] and a `changed` flag. The
//! id names the test's *content*: it is fresh whenever an operator changes the test and is kept
//! when a test is copied unchanged (into an offspring by crossover, into the next generation),
//! so the engine can cache execution results by id and re-execute only what changed — the
//! paper's "coverage information can be carried over from the previous execution". The
//! `changed` flag says the same per suite, until the engine calls [`Suite::mark_executed`].
//!
//! # Crossover ([`crossover`], paper III-E1)
//!
//! α is drawn uniformly from \[0, 1\]; with parents P1, P2 the first offspring gets the first
//! ⌊α|P1|⌋ tests of P1 and the tests of P2 after its first ⌊α|P2|⌋, the second offspring the
//! other parts. With α = 0.5, P1 = \[a, b, c, d\] and P2 = \[x, y\]: O1 = \[a, b, y\],
//! O2 = \[x, c, d\]. Tests are independent, so the offspring are valid; neither has more tests
//! than the larger parent.
//!
//! # Mutation ([`mutate_suite`], paper III-E2)
//!
//! Each test of a suite of n tests is mutated ([`mutate_test`](crate::mutation::mutate_test))
//! with probability 1/n (copied first only when it is shared and a step is drawn); tests left
//! empty are dropped. Then a new random test is added with probability σ (0.1), a second with
//! σ², …, while the suite has fewer than N tests.
//!
//! ```
//! use ferrosuite_search::suite::crossover_at;
//! use ferrosuite_search::{Config, Suite, TestIds};
//! use ferrosuite_testcase::{Statement, Test};
//! let mut ids = TestIds::new();
//! let t = |s: &str| Test::new(vec![Statement::string(s)]);
//! let p1 = Suite::from_tests(["a", "b", "c", "d"].map(t), &mut ids);
//! let p2 = Suite::from_tests(["x", "y"].map(t), &mut ids);
//! let (o1, o2) = crossover_at(&p1, &p2, 0.5, &Config::default());
//! let names = |s: &Suite| s.tests.iter().map(|t| t.test.to_string()).collect::<String>();
//! assert_eq!(names(&o1), names(&Suite::from_tests(["a", "b", "y"].map(t), &mut ids)));
//! assert_eq!(o2.len(), 3);
//! assert_eq!(o1.tests[2].id, p2.tests[1].id); // copied, not changed: same id
//! ```
//!
//! [`random_suite`] makes an initial suite of [`Config::initial_suite_size`] random tests
//! (paper IV-D: two).

use std::sync::Arc;

use serde::{Deserialize, Serialize};

use ferrosuite_testcase::statement::Test;

use crate::config::Config;
use crate::error::{Error, Result};
use crate::factory::Factory;
use crate::mutation::mutate_shared;
use crate::random::{Rng, chance, unit};

/// Identity of a test's content (fresh after every change).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, Default,
)]
#[serde(transparent)]
pub struct TestId(pub u64);

/// The source of fresh [`TestId`]s: one per search run, passed to the operators that change
/// tests.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TestIds {
    next: u64,
}

impl TestIds {
    /// A source starting at 0.
    #[must_use]
    pub fn new() -> Self {
        TestIds::default()
    }

    /// The id the next [`fresh`](Self::fresh) gives: every id given before is smaller.
    #[must_use]
    pub fn upcoming(&self) -> TestId {
        TestId(self.next)
    }

    /// A new id.
    pub fn fresh(&mut self) -> TestId {
        let id = TestId(self.next);
        self.next += 1;
        id
    }
}

/// A test in a suite.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct SuiteTest {
    /// Identity of the content.
    pub id: TestId,
    /// The test (shared between the suites that hold it unchanged; copied when mutated).
    pub test: Arc<Test>,
    /// Whether the test is new or changed since [`Suite::mark_executed`].
    pub changed: bool,
}

/// A test suite: the individual of the whole-suite GA.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Suite {
    /// The tests, in order.
    pub tests: Vec<SuiteTest>,
}

impl Suite {
    /// An empty suite.
    #[must_use]
    pub fn new() -> Self {
        Suite::default()
    }

    /// A suite of these tests, each with a fresh id and marked changed.
    pub fn from_tests(tests: impl IntoIterator<Item = Test>, ids: &mut TestIds) -> Self {
        let mut s = Suite::new();
        for t in tests {
            s.push(t, ids);
        }
        s
    }

    /// Appends a test with a fresh id, marked changed; returns the id.
    pub fn push(&mut self, test: Test, ids: &mut TestIds) -> TestId {
        let id = ids.fresh();
        self.tests.push(SuiteTest {
            id,
            test: Arc::new(test),
            changed: true,
        });
        id
    }

    /// Number of tests.
    #[must_use]
    pub fn len(&self) -> usize {
        self.tests.len()
    }

    /// Whether the suite has no test.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.tests.is_empty()
    }

    /// The suite's length: the number of statements of all its tests (paper III-B).
    #[must_use]
    pub fn length(&self) -> usize {
        self.tests.iter().map(|t| t.test.len()).sum()
    }

    /// The tests that are new or changed since [`Suite::mark_executed`].
    pub fn changed(&self) -> impl Iterator<Item = &SuiteTest> {
        self.tests.iter().filter(|t| t.changed)
    }

    /// Clears every test's changed flag (after the engine executed them).
    pub fn mark_executed(&mut self) {
        for t in &mut self.tests {
            t.changed = false;
        }
    }
}

/// Suite crossover with a random α (see the [module documentation](self)). The offspring keep
/// the ids and flags of the tests they copy, and at most [`Config::max_suite_size`] tests.
pub fn crossover<R: Rng + ?Sized>(
    p1: &Suite,
    p2: &Suite,
    config: &Config,
    rng: &mut R,
) -> (Suite, Suite) {
    let alpha = unit(rng);
    crossover_at(p1, p2, alpha, config)
}

/// Suite crossover at a given α in \[0, 1\] (clamped).
#[must_use]
pub fn crossover_at(p1: &Suite, p2: &Suite, alpha: f64, config: &Config) -> (Suite, Suite) {
    let alpha = alpha.clamp(0.0, 1.0);
    let split = |s: &Suite| ((alpha * s.len() as f64).floor() as usize).min(s.len());
    let (s1, s2) = (split(p1), split(p2));
    let join = |a: &[SuiteTest], b: &[SuiteTest]| {
        let mut tests: Vec<SuiteTest> = a.iter().chain(b).cloned().collect();
        tests.truncate(config.max_suite_size);
        Suite { tests }
    };
    (
        join(&p1.tests[..s1], &p2.tests[s2..]),
        join(&p2.tests[..s2], &p1.tests[s1..]),
    )
}

/// Suite mutation (see the [module documentation](self)). Returns whether the suite changed.
pub fn mutate_suite<R: Rng + ?Sized>(
    f: &Factory<'_>,
    suite: &mut Suite,
    ids: &mut TestIds,
    rng: &mut R,
) -> Result<bool> {
    let mut changed = false;
    let n = suite.len();
    if n > 0 {
        let p = 1.0 / n as f64;
        for t in &mut suite.tests {
            if chance(rng, p) && mutate_shared(f, &mut t.test, rng)? {
                t.id = ids.fresh();
                t.changed = true;
                changed = true;
            }
        }
        suite.tests.retain(|t| !t.test.is_empty());
        changed |= suite.len() != n;
    }
    let sigma = f.config().test_insertion_probability;
    let mut pk = sigma;
    while suite.len() < f.config().max_suite_size && chance(rng, pk) {
        match f.random_test(rng) {
            Ok(t) => {
                suite.push(t, ids);
                changed = true;
            }
            Err(Error::Construction { .. }) => break,
            Err(e) => return Err(e),
        }
        pk *= sigma;
    }
    Ok(changed)
}

/// A random suite of [`Config::initial_suite_size`] random tests.
pub fn random_suite<R: Rng + ?Sized>(
    f: &Factory<'_>,
    ids: &mut TestIds,
    rng: &mut R,
) -> Result<Suite> {
    let mut s = Suite::new();
    for _ in 0..f.config().initial_suite_size {
        let t = f.random_test(rng)?;
        s.push(t, ids);
    }
    Ok(s)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use ferrosuite_testcase::statement::{Prim, Statement};
    use proptest::prelude::*;

    fn suite(values: impl IntoIterator<Item = i32>, ids: &mut TestIds) -> Suite {
        Suite::from_tests(
            values
                .into_iter()
                .map(|i| Test::new(vec![Statement::Primitive(Prim::Int(i))])),
            ids,
        )
    }

    fn ints(s: &Suite) -> Vec<i32> {
        s.tests
            .iter()
            .map(|t| match t.test.statements[0] {
                Statement::Primitive(Prim::Int(i)) => i,
                _ => -1,
            })
            .collect()
    }

    #[test]
    fn crossover_splits_at_alpha() {
        let mut ids = TestIds::new();
        let p1 = suite([1, 2, 3, 4], &mut ids);
        let p2 = suite([10, 20], &mut ids);
        let c = Config::default();
        let (o1, o2) = crossover_at(&p1, &p2, 0.5, &c);
        assert_eq!(ints(&o1), [1, 2, 20]);
        assert_eq!(ints(&o2), [10, 3, 4]);
        assert_eq!(o1.tests[0].id, p1.tests[0].id, "copied tests keep their id");
        let (o1, o2) = crossover_at(&p1, &p2, 0.0, &c);
        assert_eq!((ints(&o1), ints(&o2)), (ints(&p2), ints(&p1)));
        let (o1, o2) = crossover_at(&p1, &p2, 1.0, &c);
        assert_eq!((ints(&o1), ints(&o2)), (ints(&p1), ints(&p2)));
    }

    #[test]
    fn changed_flags_and_ids() {
        let mut ids = TestIds::new();
        let mut s = suite([1, 2], &mut ids);
        assert_eq!(s.changed().count(), 2);
        s.mark_executed();
        assert_eq!(s.changed().count(), 0);
        assert_eq!(s.length(), 2);
        assert_eq!(ids.fresh(), TestId(2));
    }

    proptest! {
        #[test]
        fn crossover_never_grows_beyond_the_larger_parent(
            a in 0usize..120, b in 0usize..120, alpha in 0.0f64..=1.0,
        ) {
            let mut ids = TestIds::new();
            let p1 = suite((0..a).map(|i| i as i32), &mut ids);
            let p2 = suite((0..b).map(|i| 1000 + i as i32), &mut ids);
            let c = Config::default();
            let (o1, o2) = crossover_at(&p1, &p2, alpha, &c);
            prop_assert!(o1.len() <= a.max(b).min(c.max_suite_size));
            prop_assert!(o2.len() <= a.max(b).min(c.max_suite_size));
            if a.max(b) <= c.max_suite_size {
                prop_assert_eq!(o1.len() + o2.len(), a + b);
            }
            prop_assert!(o1.len().abs_diff(o2.len()) <= a.abs_diff(b));
        }
    }
}
