//! Test suites and the suite-level operators (whole-suite paper, Section III-E).
//!
//! A [`Suite`] is a list of [`SuiteTest`]s: a test's [`TestId`], its length and a `changed`
//! flag; the tests themselves are in a [`TestStore`], by id, one copy for all the suites that
//! hold a test. The id names the test's *content*: it is fresh whenever an operator changes the
//! test and is kept when a test is copied unchanged (into an offspring by crossover, into the
//! next generation), so the engine can cache execution results by id and re-execute only what
//! changed — the paper's "coverage information can be carried over from the previous
//! execution". The `changed` flag says the same per suite, until the engine calls
//! [`Suite::mark_executed`].
//!
//! Suites are copied and dropped far more often than tests change (every offspring starts as
//! copies of its parents' tests, every individual that leaves the population drops its tests),
//! so a suite holds no pointer to a test: copying one is a copy of ids, not a reference count
//! touched per test in the test's own memory. The engine drops the tests no suite holds any
//! more ([`TestStore::retain`]).
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
//! with probability 1/n (copied first only when a step is drawn; the changed copy goes into the
//! store under a fresh id); tests left empty are dropped. Then a new random test is added with
//! probability σ (0.1), a second with σ², …, while the suite has fewer than N tests.
//!
//! ```
//! use ferrosuite_search::suite::{TestStore, crossover_at};
//! use ferrosuite_search::{Config, Suite, TestIds};
//! use ferrosuite_testcase::{Statement, Test};
//! let (mut ids, mut store) = (TestIds::new(), TestStore::new());
//! let t = |s: &str| Test::new(vec![Statement::string(s)]);
//! let p1 = Suite::from_tests(["a", "b", "c", "d"].map(t), &mut ids, &mut store);
//! let p2 = Suite::from_tests(["x", "y"].map(t), &mut ids, &mut store);
//! let (o1, o2) = crossover_at(&p1, &p2, 0.5, &Config::default());
//! let names = |s: &Suite| store.tests(s).map(|t| t.to_string()).collect::<String>();
//! let expected = ["a", "b", "y"].map(t).map(|t| t.to_string()).concat();
//! assert_eq!(names(&o1), expected);
//! assert_eq!(o2.len(), 3);
//! assert_eq!(o1.tests[2].id, p2.tests[1].id); // copied, not changed: same id
//! ```
//!
//! [`random_suite`] makes an initial suite of [`Config::initial_suite_size`] random tests
//! (paper IV-D: two).

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use ferrosuite_testcase::statement::Test;

use crate::config::Config;
use crate::error::{Error, Result};
use crate::factory::Factory;
use crate::mutation::mutate_copy;
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

/// A test in a suite: which one (the test is in the [`TestStore`]), its length, and whether
/// it is new or changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct SuiteTest {
    /// Identity of the content.
    pub id: TestId,
    /// Number of statements of the test (so that a suite's length is known without the
    /// tests).
    pub len: usize,
    /// Whether the test is new or changed since [`Suite::mark_executed`].
    pub changed: bool,
}

/// A test suite: the individual of the whole-suite GA. (Serialised, it is its tests' ids,
/// lengths and flags: the tests are in the [`TestStore`].)
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

    /// A suite of these tests, each with a fresh id (put into `store`) and marked changed.
    pub fn from_tests(
        tests: impl IntoIterator<Item = Test>,
        ids: &mut TestIds,
        store: &mut TestStore,
    ) -> Self {
        let mut s = Suite::new();
        for t in tests {
            s.push(t, ids, store);
        }
        s
    }

    /// Appends a test with a fresh id (put into `store`), marked changed; returns the id.
    pub fn push(&mut self, test: Test, ids: &mut TestIds, store: &mut TestStore) -> TestId {
        let id = ids.fresh();
        self.tests.push(SuiteTest {
            id,
            len: test.len(),
            changed: true,
        });
        store.insert(id, test);
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
        self.tests.iter().map(|t| t.len).sum()
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

/// The tests suites hold, by id: one copy of each, whatever the number of suites holding it
/// (shared with the host while it runs the test).
#[derive(Debug, Clone, Default)]
pub struct TestStore {
    tests: HashMap<TestId, Arc<Test>, BuildHasherDefault<IdHasher>>,
}

impl TestStore {
    /// An empty store.
    #[must_use]
    pub fn new() -> Self {
        TestStore::default()
    }

    /// The test with this id, if the store holds it.
    #[must_use]
    pub fn get(&self, id: TestId) -> Option<&Arc<Test>> {
        self.tests.get(&id)
    }

    /// The test with this id, which a suite of this store holds: [`Error::UnknownTest`] if
    /// the store lacks it.
    pub fn held(&self, id: TestId) -> Result<&Arc<Test>> {
        self.get(id).ok_or(Error::UnknownTest(id))
    }

    /// Puts in a test under its id (replacing any test under that id).
    pub fn insert(&mut self, id: TestId, test: Test) {
        self.tests.insert(id, Arc::new(test));
    }

    /// Keeps the tests whose id `keep` accepts.
    pub fn retain(&mut self, keep: impl Fn(TestId) -> bool) {
        self.tests.retain(|id, _| keep(*id));
    }

    /// The ids of the tests held, in no particular order.
    pub fn ids(&self) -> impl Iterator<Item = TestId> + '_ {
        self.tests.keys().copied()
    }

    /// Number of tests held.
    #[must_use]
    pub fn len(&self) -> usize {
        self.tests.len()
    }

    /// Whether the store holds no test.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.tests.is_empty()
    }

    /// The tests of `suite`, in order (a test the store lacks is left out).
    pub fn tests<'s>(&'s self, suite: &'s Suite) -> impl Iterator<Item = &'s Test> + 's {
        suite
            .tests
            .iter()
            .filter_map(|t| self.get(t.id).map(|t| &**t))
    }
}

/// A hasher for test ids and lists of them (hashed for every test looked up and every block of
/// every suite scored): a multiply-rotate mix per word, as rustc's `FxHasher`, instead of the
/// default `SipHash`, which is made to resist keys chosen by an attacker (ids are ours).
#[derive(Default)]
pub(crate) struct IdHasher(u64);

impl Hasher for IdHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut word = [0u8; 8];
            word[..chunk.len()].copy_from_slice(chunk);
            self.write_u64(u64::from_le_bytes(word));
        }
    }

    fn write_u64(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }

    fn write_usize(&mut self, word: usize) {
        self.write_u64(word as u64);
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
        let mut tests: Vec<SuiteTest> = a.iter().chain(b).copied().collect();
        tests.truncate(config.max_suite_size);
        Suite { tests }
    };
    (
        join(&p1.tests[..s1], &p2.tests[s2..]),
        join(&p2.tests[..s2], &p1.tests[s1..]),
    )
}

/// Suite mutation (see the [module documentation](self)). Returns whether the suite changed.
/// The tests of `suite` must be in `store`; changed and new tests go into it.
pub fn mutate_suite<R: Rng + ?Sized>(
    f: &Factory<'_>,
    suite: &mut Suite,
    store: &mut TestStore,
    ids: &mut TestIds,
    rng: &mut R,
) -> Result<bool> {
    let mut changed = false;
    let n = suite.len();
    if n > 0 {
        let p = 1.0 / n as f64;
        for t in &mut suite.tests {
            if !chance(rng, p) {
                continue;
            }
            if let Some(copy) = mutate_copy(f, store.held(t.id)?, rng)? {
                t.id = ids.fresh();
                t.len = copy.len();
                t.changed = true;
                changed = true;
                if !copy.is_empty() {
                    store.insert(t.id, copy);
                }
            }
        }
        // (Also drops an empty test the suite was given.)
        suite.tests.retain(|t| t.len > 0);
        changed |= suite.len() != n;
    }
    let sigma = f.config().test_insertion_probability;
    let mut pk = sigma;
    while suite.len() < f.config().max_suite_size && chance(rng, pk) {
        match f.random_test(rng) {
            Ok(t) => {
                suite.push(t, ids, store);
                changed = true;
            }
            Err(Error::Construction { .. }) => break,
            Err(e) => return Err(e),
        }
        pk *= sigma;
    }
    Ok(changed)
}

/// A random suite of [`Config::initial_suite_size`] random tests (put into `store`).
pub fn random_suite<R: Rng + ?Sized>(
    f: &Factory<'_>,
    store: &mut TestStore,
    ids: &mut TestIds,
    rng: &mut R,
) -> Result<Suite> {
    let mut s = Suite::new();
    for _ in 0..f.config().initial_suite_size {
        let t = f.random_test(rng)?;
        s.push(t, ids, store);
    }
    Ok(s)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use ferrosuite_testcase::statement::{Prim, Statement};
    use proptest::prelude::*;

    fn suite(
        values: impl IntoIterator<Item = i32>,
        ids: &mut TestIds,
        store: &mut TestStore,
    ) -> Suite {
        Suite::from_tests(
            values
                .into_iter()
                .map(|i| Test::new(vec![Statement::Primitive(Prim::Int(i))])),
            ids,
            store,
        )
    }

    fn ints(s: &Suite, store: &TestStore) -> Vec<i32> {
        store
            .tests(s)
            .map(|t| match t.statements[0] {
                Statement::Primitive(Prim::Int(i)) => i,
                _ => -1,
            })
            .collect()
    }

    #[test]
    fn crossover_splits_at_alpha() {
        let (mut ids, mut store) = (TestIds::new(), TestStore::new());
        let p1 = suite([1, 2, 3, 4], &mut ids, &mut store);
        let p2 = suite([10, 20], &mut ids, &mut store);
        let c = Config::default();
        let ints = |s: &Suite| ints(s, &store);
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
        let (mut ids, mut store) = (TestIds::new(), TestStore::new());
        let mut s = suite([1, 2], &mut ids, &mut store);
        assert_eq!(s.changed().count(), 2);
        s.mark_executed();
        assert_eq!(s.changed().count(), 0);
        assert_eq!(s.length(), 2);
        assert_eq!(ids.fresh(), TestId(2));
        assert_eq!(store.len(), 2);
        store.retain(|id| id != s.tests[0].id);
        assert_eq!(ints(&s, &store), [2], "a test the store lacks is left out");
    }

    #[test]
    fn a_test_missing_from_the_store_is_an_error() {
        let c = crate::factory::tests::toy_cluster();
        let f = Factory::new(
            &c,
            ferrosuite_testcase::constants::Constants::default(),
            Config::default(),
        )
        .unwrap();
        let mut ids = TestIds::new();
        // One test: it is mutated with probability 1, and looked up.
        let mut s = suite([1], &mut ids, &mut TestStore::new());
        let mut rng =
            <rand_chacha::ChaCha8Rng as rand_chacha::rand_core::SeedableRng>::seed_from_u64(0);
        let err = mutate_suite(&f, &mut s, &mut TestStore::new(), &mut ids, &mut rng).unwrap_err();
        assert!(
            matches!(err, Error::UnknownTest(id) if id == s.tests[0].id),
            "{err}"
        );
    }

    proptest! {
        #[test]
        fn crossover_never_grows_beyond_the_larger_parent(
            a in 0usize..120, b in 0usize..120, alpha in 0.0f64..=1.0,
        ) {
            let (mut ids, mut store) = (TestIds::new(), TestStore::new());
            let p1 = suite((0..a).map(|i| i as i32), &mut ids, &mut store);
            let p2 = suite((0..b).map(|i| 1000 + i as i32), &mut ids, &mut store);
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
