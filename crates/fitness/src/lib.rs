//! Coverage goals, branch distance and fitness for ferrosuite's searches.
//!
//! Fitness only *reads* execution results; it never runs anything. The pieces:
//!
//! - [`criteria`]: the [`Criterion`] trait (goals from the analysis and at run time, per-test
//!   fitness, the whole-suite term), the five built-in criteria (branch, line, method,
//!   method-no-exception, exception), their [`CriterionRegistry`] and sets of them;
//! - [`goals`]: a [`GoalSet`] — the goals of the classes under test for a set of criteria,
//!   built from the `ferrosuite-cfg` analysis of each class and the probe map of its
//!   instrumentation; each goal knows the probe that measures it, and DynaMOSA's activation
//!   hierarchy comes with it;
//! - [`trace`]: a [`Trace`] — the compact summary of one test's execution that fitness reads
//!   (probe hits and distances, direct calls and their exceptions); traces merge into the
//!   trace of a suite;
//! - [`distance`]: the normalisation ν(x) = x / (x + 1);
//! - [`objective`]: per-goal fitness of a test, approach level + ν(branch distance), for
//!   MOSA/DynaMOSA;
//! - [`suite`]: whole-suite fitness, `|M| − |M_T| + Σ d(b, T)` for branches plus one term per
//!   other criterion, for the whole-suite GA: [`GoalSet::suite_fitness`] (merge, then read:
//!   the reference) and [`SuiteScorer`] (dense tables, no merge: what the search uses).
//!
//! Everything is deterministic: goals are listed in a fixed order (criterion, class, code
//! order), traces keep sorted lists, and sums run in goal order.
//!
//! ```no_run
//! use ferrosuite_bytecode::classpath::ClassPath;
//! use ferrosuite_cfg::Analyzer;
//! use ferrosuite_executor::Executor;
//! use ferrosuite_fitness::{Config, GoalSet, Trace};
//! use ferrosuite_testcase::{Prim, Statement, Test, VarRef};
//! # fn demo(executor: &mut dyn Executor) -> Result<(), Box<dyn std::error::Error>> {
//! // `executor` instruments and runs `examples/Stack` (for example `ferrosuite-exec`'s host).
//! let cp = ClassPath::parse("fixtures/classes/java8")?;
//! let stack = Analyzer::new(&cp, ferrosuite_cfg::Config::default()).class("examples.Stack")?;
//! let goals = GoalSet::for_class(executor.map(), Config::default(), &stack, None)?;
//!
//! let test = Test::new(vec![
//!     Statement::constructor("examples/Stack", "()V", vec![]),
//!     Statement::Primitive(Prim::Int(3)),
//!     Statement::method("examples/Stack", "push", "(I)V", Some(VarRef(0)), vec![VarRef(1)]),
//! ]);
//! let results = executor.run(std::slice::from_ref(&test), false)?;
//! let trace = Trace::from_result(&goals, &test, &results[0]);
//! for g in goals.covered(&trace) {
//!     println!("covered {}", goals.goals()[g.index()]);
//! }
//! println!("suite fitness {}", goals.suite_fitness(&[&trace]).total);
//! # Ok(()) }
//! ```

pub mod criteria;
pub mod distance;
pub mod error;
pub mod goals;
pub mod ids;
pub mod objective;
pub mod suite;
pub mod trace;

#[cfg(test)]
mod testutil;

pub use criteria::{Criteria, Criterion, NewGoal, Registry as CriterionRegistry, SuiteView, names};
pub use distance::normalize;
pub use error::{Error, Result};
pub use goals::{
    ClassGoals, CutClass, CutMethod, Goal, GoalSet, GoalSetBuilder, Link, Predicate, Target,
};
pub use ids::{ClassIndex, GoalId, PredicateId};
pub use suite::{CompiledTrace, Coverage, SuiteFitness, SuiteScorer};
pub use trace::{MethodKey, Trace};

/// Fitness settings.
#[derive(Debug, Clone, PartialEq, Eq)]
#[allow(clippy::struct_excessive_bools)]
pub struct Config {
    /// The criteria whose goals are built and whose terms make up whole-suite fitness
    /// (default: branch, line, method, exception).
    pub criteria: Criteria,
    /// Give static initialisers goals (default: false: a `<clinit>` runs once per worker JVM,
    /// before any test, so no test can change its coverage).
    pub static_initializers: bool,
    /// Give bridge methods goals (default: false: they only forward to the real method).
    pub bridge_methods: bool,
    /// Count exceptions a method declares in its `throws` clause for the exception criterion
    /// (default: false: only undeclared ones count).
    pub declared_exceptions: bool,
    /// Give a suite with a lost test (time-out, crashed worker) the maximum fitness, as the
    /// whole-suite paper does (default: true).
    pub lost_test_is_max: bool,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            criteria: Criteria::default(),
            static_initializers: false,
            bridge_methods: false,
            declared_exceptions: false,
            lost_test_is_max: true,
        }
    }
}
