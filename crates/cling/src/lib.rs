//! Class-integration testing of a caller/callee pair by coupled branches: Cling (Derakhshanfar,
//! Devroey, Zaidman, van Deursen and Panichella, "Generating Class-Level Integration Tests
//! Using Call Site Information", TSE 2022) for ferrosuite, built on the public interfaces of
//! `ferrosuite-fitness` (a [`Criterion`](ferrosuite_fitness::Criterion)) and
//! `ferrosuite-search` (an [`Algorithm`](ferrosuite_search::engine::Algorithm) over MOSA's
//! loop with its own [`Breeding`](ferrosuite_search::engine::Breeding)), as a third party
//! would add them.
//!
//! For a caller R and a callee E, `ferrosuite-cfg`'s [`CoupledBranches`] finds the call sites
//! from R to E and the coupled branches `CB = ∪_s B_R(s) × B_E(s)`: a branch of R that the
//! call site depends on, paired with a branch of the called method of E. A [`Plan`] turns that
//! analysis into what a generation run needs:
//!
//! - the goals: [`criterion::CoupledBranch`], one per pair, covered when one test takes both
//!   branches, with Cling's fitness `D(r) + 1` while `r` is not taken, else `D(e)`;
//! - the search: [`algorithm::Cling`], MOSA whose tests all call a covering method (a method
//!   of R reaching E), repaired after mutation and replaced by a parent after crossover;
//! - the class the tests are for: R, or E when E extends R (Section 3.2.5: R's calls to
//!   methods E redefines are reached through E's instances);
//! - the classes to instrument: those whose branches the pairs name (R, E, and superclasses
//!   whose inherited code holds call sites).
//!
//! ```no_run
//! use ferrosuite_bytecode::classpath::ClassPath;
//! use ferrosuite_cfg::Analyzer;
//! let cp = ClassPath::parse("fixtures/classes/java8")?;
//! let analyzer = Analyzer::new(&cp, ferrosuite_cfg::Config::default());
//! let plan = ferrosuite_cling::Plan::new(&analyzer, "cling.Person", "cling.Car")?;
//! assert_eq!(plan.pairs.len(), 2);
//! assert_eq!(plan.test_class("IT"), "PersonCarIT");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub mod algorithm;
pub mod criterion;
pub mod error;
pub mod pairs;

use std::collections::BTreeSet;
use std::sync::Arc;

use ferrosuite_cfg::{Analyzer, BranchRef, CoupledBranches, Relation};
use ferrosuite_fitness::CriterionRegistry;
use ferrosuite_search::engine::Algorithms;

pub use algorithm::{Cling, Covering};
pub use criterion::CoupledBranch;
pub use error::{Error, Result};

/// Registers the coupled-branch criterion (`coupled-branch`, without pairs: a run for a pair
/// puts its own in place) and the `cling` algorithm.
///
/// # Errors
/// When either name is taken.
pub fn register(
    criteria: &mut CriterionRegistry,
    algorithms: &mut Algorithms,
) -> std::result::Result<(), String> {
    criteria
        .register(Arc::new(CoupledBranch::default()))
        .map_err(|e| e.to_string())?;
    algorithms
        .register(Arc::new(Cling::default()))
        .map_err(|e| e.to_string())
}

/// What a generation run for one pair needs (see the crate documentation).
#[derive(Debug, Clone)]
pub struct Plan {
    /// The caller R (internal name).
    pub caller: String,
    /// The callee E (internal name).
    pub callee: String,
    /// How they are related.
    pub relation: Relation,
    /// The class the tests are written for (internal name).
    pub cut: String,
    /// The classes whose branches the pairs name, R and E first (internal names).
    pub classes: Vec<String>,
    /// The coupled branches, (caller branch, callee branch), sorted.
    pub pairs: Vec<(BranchRef, BranchRef)>,
    /// Each pair's branches described (`cling.Person.addEnergy()V line 13 @4 ifeq taken`).
    pub descriptions: Vec<(String, String)>,
    /// The covering methods, as calls on the class under test.
    pub covering: Covering,
    /// The covering methods, qualified (`cling.Person.addEnergy()V`), for reports.
    pub covering_names: Vec<String>,
}

impl Plan {
    /// Analyses the pair (binary or internal names).
    ///
    /// # Errors
    /// When a class cannot be analysed, the pair is not one (the same class, a callee without
    /// code), or it has no coupled branch.
    pub fn new(analyzer: &Analyzer<'_>, caller: &str, callee: &str) -> Result<Plan> {
        let cb = CoupledBranches::analyze(analyzer, caller, callee)?;
        let (caller, callee) = (cb.caller.class.clone(), cb.callee.class.clone());
        if cb.pairs.is_empty() {
            return Err(Error::Pair {
                caller: caller.replace('/', "."),
                callee: callee.replace('/', "."),
                problem: if cb.sites.is_empty() {
                    "the caller has no call site of the callee".into()
                } else {
                    format!(
                        "{} call sites but no coupled branch (no branch on either side)",
                        cb.sites.len()
                    )
                },
            });
        }
        let cut = if cb.relation == Relation::CallerIsSuper {
            callee.clone()
        } else {
            caller.clone()
        };
        let mut classes = vec![caller.clone(), callee.clone()];
        for (r, e) in &cb.pairs {
            for c in [&r.class, &e.class] {
                if !classes.contains(c) {
                    classes.push(c.clone());
                }
            }
        }
        let mut methods = BTreeSet::new();
        let mut covering_names = Vec::new();
        for &i in &cb.covering {
            let Some(m) = cb.caller.members.get(i) else {
                continue;
            };
            let a = m.analysis();
            if a.name == "<clinit>" || !m.callable {
                continue;
            }
            methods.insert((a.name.clone(), a.descriptor.clone()));
            covering_names.push(m.qualified());
        }
        let descriptions = cb
            .pairs
            .iter()
            .map(|(r, e)| (cb.describe(r), cb.describe(e)))
            .collect();
        Ok(Plan {
            caller,
            callee,
            relation: cb.relation,
            covering: Covering {
                cut: cut.clone(),
                methods,
            },
            cut,
            classes,
            pairs: cb.pairs,
            descriptions,
            covering_names,
        })
    }

    /// The criterion over the pair's coupled branches.
    #[must_use]
    pub fn criterion(&self) -> CoupledBranch {
        CoupledBranch::new(self.pairs.clone())
    }

    /// Cling's search for the pair (over DynaMOSA's loop when `dynamic`).
    #[must_use]
    pub fn algorithm(&self, dynamic: bool) -> Cling {
        Cling::new(dynamic, self.covering.clone())
    }

    /// The simple name of the pair's test class: R's and E's simple names and `suffix`
    /// (`PersonCarIT`; a nested class as `Outer_Inner`).
    #[must_use]
    pub fn test_class(&self, suffix: &str) -> String {
        format!("{}{suffix}", pair_name(&self.caller, &self.callee))
    }
}

/// The name a pair's test class starts with: the caller's and the callee's simple names, a
/// nested class as unit tests name it (`Outer_Inner`); binary or internal names
/// (`a.Person`, `a/Car` give `PersonCar`).
#[must_use]
pub fn pair_name(caller: &str, callee: &str) -> String {
    let simple = |c: &str| c.rsplit(['.', '/']).next().unwrap_or(c).replace('$', "_");
    format!("{}{}", simple(caller), simple(callee))
}
