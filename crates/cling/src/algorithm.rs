//! Cling's search: MOSA (or DynaMOSA) over the coupled branches, with every test holding a
//! call of a covering method (Sections 3.2.2–3.2.4).
//!
//! The covering methods are the caller's methods that call the callee, directly or through
//! the caller's own methods. [`Covering`] is a [`Breeding`] for the search's MOSA loop
//! ([`run_with`]):
//!
//! - an initial test is a random test with a call of a covering method inserted when it has
//!   none (Cling's initialisation favours them; the random part keeps the other methods of R,
//!   which set up the state the covering call needs);
//! - an offspring of crossover without a covering call is replaced by its parent;
//! - an offspring of mutation without one is repaired: up to [`REPAIR_ATTEMPTS`] insertions
//!   of a call of a random covering method at a random position; when none succeeds the
//!   offspring is dropped.
//!
//! When the cluster offers no call of a covering method (all private, say), the breeding
//! does nothing and the search is plain MOSA.

use std::collections::BTreeSet;
use std::sync::Arc;

use ferrosuite_search::Factory;
use ferrosuite_search::engine::{Algorithm, Breeding, Run, run_with};
use ferrosuite_search::factory::Call;
use ferrosuite_search::random::{index, pick};
use ferrosuite_testcase::{Statement, Test};
use rand_chacha::ChaCha8Rng;

/// Insertions tried to put a covering call back into an offspring (the paper's threshold).
pub const REPAIR_ATTEMPTS: usize = 50;

/// The covering methods of a pair, as calls on the class under test (see the module
/// documentation).
#[derive(Debug, Clone, Default)]
pub struct Covering {
    /// Internal name of the class under test (the statements' class).
    pub cut: String,
    /// `(name, descriptor)` of each covering method (`<init>` for constructors).
    pub methods: BTreeSet<(String, String)>,
}

impl Covering {
    /// Whether `s` calls a covering method.
    #[must_use]
    pub fn is_covering(&self, s: &Statement) -> bool {
        let (class, name, descriptor) = match s {
            Statement::Method {
                class,
                name,
                descriptor,
                ..
            } => (class, &**name, descriptor),
            Statement::Constructor {
                class, descriptor, ..
            } => (class, "<init>", descriptor),
            Statement::Private(inner) => return self.is_covering(inner),
            _ => return false,
        };
        **class == *self.cut
            && self
                .methods
                .iter()
                .any(|(n, d)| n == name && **d == **descriptor)
    }

    /// Whether the test calls a covering method.
    #[must_use]
    pub fn covers(&self, test: &Test) -> bool {
        test.statements.iter().any(|s| self.is_covering(s))
    }

    /// The calls of covering methods the factory offers, in cluster order.
    #[must_use]
    pub fn calls<'a>(&self, factory: &Factory<'a>) -> Vec<Call<'a>> {
        factory
            .cut_calls()
            .iter()
            .copied()
            .filter(|c| {
                let op = c.operation();
                matches!(c, Call::Op(_))
                    && *op.class == *self.cut
                    && self
                        .methods
                        .iter()
                        .any(|(n, d)| *n == *op.name && *d == *op.descriptor)
            })
            .collect()
    }

    /// Inserts a call of a random covering method at a random position, up to `attempts`
    /// times until one succeeds; whether one did.
    fn insert<'a>(
        &self,
        factory: &Factory<'a>,
        calls: &[Call<'a>],
        rng: &mut ChaCha8Rng,
        test: &mut Test,
        attempts: usize,
    ) -> ferrosuite_search::Result<bool> {
        for _ in 0..attempts {
            let Some(&call) = pick(rng, calls) else {
                return Ok(false);
            };
            let pos = index(rng, test.len() + 1);
            if factory.insert_given_call(test, pos, call, rng)? && self.covers(test) {
                return Ok(true);
            }
        }
        Ok(false)
    }
}

impl Breeding for Covering {
    fn initial(
        &self,
        factory: &mut Factory<'_>,
        rng: &mut ChaCha8Rng,
    ) -> ferrosuite_search::Result<Test> {
        let mut test = factory.random_test(rng)?;
        if !self.covers(&test) {
            let calls = self.calls(factory);
            self.insert(factory, &calls, rng, &mut test, REPAIR_ATTEMPTS)?;
        }
        Ok(test)
    }

    fn crossed(&self, child: Test, parent: &Test) -> Test {
        if self.covers(&child) || !self.covers(parent) {
            child
        } else {
            parent.clone()
        }
    }

    fn mutated(
        &self,
        factory: &mut Factory<'_>,
        rng: &mut ChaCha8Rng,
        mut test: Test,
    ) -> ferrosuite_search::Result<Option<Test>> {
        if self.covers(&test) {
            return Ok(Some(test));
        }
        let calls = self.calls(factory);
        if calls.is_empty() {
            return Ok(Some(test));
        }
        Ok(self
            .insert(factory, &calls, rng, &mut test, REPAIR_ATTEMPTS)?
            .then_some(test))
    }
}

/// Cling's search (see the module documentation): `cling` in the algorithm registry (MOSA
/// over the goals with [`Covering`]); a run for a pair makes one with the pair's covering
/// methods ([`Cling::new`]).
#[derive(Debug, Clone, Default)]
pub struct Cling {
    /// DynaMOSA's activation of goals along control dependence instead of MOSA's all at once
    /// (pair goals are outside the hierarchy: for them the two coincide).
    pub dynamic: bool,
    /// The covering methods.
    pub covering: Arc<Covering>,
}

impl Cling {
    /// Cling's search over MOSA (`dynamic`: DynaMOSA) with these covering methods.
    #[must_use]
    pub fn new(dynamic: bool, covering: Covering) -> Self {
        Cling {
            dynamic,
            covering: Arc::new(covering),
        }
    }
}

impl Algorithm for Cling {
    fn name(&self) -> &'static str {
        "cling"
    }

    fn summary(&self) -> &'static str {
        "Cling: MOSA whose tests all call a covering method of the caller (integration)"
    }

    fn search(&self, run: &mut Run<'_, '_, '_>) -> ferrosuite_search::Result<()> {
        run_with(run, self.dynamic, &*self.covering)
    }
}
