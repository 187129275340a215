//! The coupled-branch criterion: one goal per coupled branch pair of a caller R and a callee E.
//!
//! A goal `(r, e)` is covered by a test that takes both the caller's branch `r` and the
//! callee's branch `e` in one run ([`Link::Pair`]). Its per-test fitness is Cling's
//! (Section 3.2.1): `d = D(r) + 1` while `r` is not taken, else `D(e)`, with `D` = approach level
//! + ν(branch distance) — the goal set's own distance of a pair link.
//!
//! ```text
//! Person -> Car: CB = {(<13,16>, <8,9>), (<13,16>, <8,10>)}
//! test: p.addEnergy() (lazy false, fuel 0): r = <13,16> taken, e = <8,9> taken  => (r, <8,9>) covered
//!       (r, <8,10>): D(r) = 0, so d = D(<8,10>) = ν(distance of fuelAmount < 90 to false) > 0
//! ```
//!
//! The criterion's whole-suite term reads the suite's merged probe data, which cannot tell
//! whether one test took both branches: per pair, `1 + d(r, T)` while no test took `r`, `d(e, T)`
//! while none took `e`, else 0 (`d(b, T)` as in the branch term). MOSA and DynaMOSA, which Cling
//! uses, score each test on its own.

use std::collections::BTreeMap;
use std::sync::Arc;

use ferrosuite_cfg::BranchRef;
use ferrosuite_fitness::{ClassGoals, Criterion, GoalSet, Link, NewGoal, SuiteView, normalize};

/// The criterion's name on command lines and in reports.
pub const NAME: &str = "coupled-branch";

/// Coupled-branch coverage of one pair (see the module documentation). The registry holds
/// one without pairs ([`CoupledBranch::default`]: no goals) so that `--criteria` knows the
/// name; a run for a pair puts the pair's in its place
/// ([`Criteria::with`](ferrosuite_fitness::Criteria::with)).
#[derive(Debug, Clone, Default)]
pub struct CoupledBranch {
    pairs: Arc<Vec<(BranchRef, BranchRef)>>,
}

impl CoupledBranch {
    /// The criterion over these (caller branch, callee branch) pairs.
    #[must_use]
    pub fn new(pairs: Vec<(BranchRef, BranchRef)>) -> Self {
        CoupledBranch {
            pairs: Arc::new(pairs),
        }
    }

    /// The pairs, in goal order.
    #[must_use]
    pub fn pairs(&self) -> &[(BranchRef, BranchRef)] {
        &self.pairs
    }

    /// The branch nodes of a pair in `set`; `None` when a class of the pair is not one of the
    /// set's or a branch has no probe.
    #[must_use]
    pub fn nodes(set: &GoalSet, pair: &(BranchRef, BranchRef)) -> Option<(usize, usize)> {
        let node = |b: &BranchRef| set.branch_node(set.class_named(&b.class)?, b.branch);
        Some((node(&pair.0)?, node(&pair.1)?))
    }
}

impl Criterion for CoupledBranch {
    fn name(&self) -> &'static str {
        NAME
    }

    fn aliases(&self) -> &'static [&'static str] {
        &["coupled-branches", "cbc"]
    }

    fn summary(&self) -> &'static str {
        "each coupled pair of a caller's and a callee's branch, taken by one test (Cling)"
    }

    fn goals(&self, class: &ClassGoals<'_>) -> Vec<NewGoal> {
        // Each pair once: with the class of its caller branch.
        let mine = class.branches();
        let set = class.set();
        let Some(this) = class.methods().next().map(|(_, m)| m.class) else {
            return Vec::new();
        };
        self.pairs
            .iter()
            .filter(|p| set.class_named(&p.0.class) == Some(this))
            .filter_map(|p| Self::nodes(set, p))
            .filter(|(r, _)| mine.contains(r))
            .map(|(r, e)| NewGoal {
                link: Link::Pair(r, e),
                suffix: "",
            })
            .collect()
    }

    fn suite_term(&self, set: &GoalSet, suite: &dyn SuiteView) -> f64 {
        let mut open: BTreeMap<usize, f64> = BTreeMap::new();
        suite.for_each_open_branch(&mut |b, twice, d| {
            open.insert(b, if twice { normalize(d) } else { 1.0 });
        });
        let mut sum = 0.0;
        for link in set.links_of(NAME) {
            if let Link::Pair(r, e) = link {
                if let Some(d) = open.get(&r) {
                    sum += 1.0 + d;
                } else if let Some(d) = open.get(&e) {
                    sum += d;
                }
            }
        }
        sum
    }

    fn max_suite_term(&self, set: &GoalSet) -> f64 {
        2.0 * set.links_of(NAME).count() as f64
    }
}
