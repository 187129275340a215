//! Whole-suite fitness (Fraser & Arcuri, "Whole Test Suite Generation", III-C), one term per
//! criterion (each criterion's [`suite_term`](crate::criteria::Criterion::suite_term)), summed;
//! computed two ways: here from the merged trace of the suite (the reference), and by the
//! [`SuiteScorer`] from a fold of compiled traces (what the search uses). Each offers the
//! criteria a [`SuiteView`](crate::criteria::SuiteView) of the suite.
//!
//! The reference reads the merged trace of the suite ([`Trace::merged`]: hits add up over
//! tests, distances are the smallest any test reached); the scorer reads its fold.
//!
//! - **branch**: `|M| − |M_T| + Σ_b d(b, T)`, with `M` the methods with goals, `M_T` those
//!   entered, and `d(b, T)` = 0 when `b` was taken, `ν(d_min(b, T))` when its predicate ran at
//!   least twice (a predicate that ran once and took the other outcome cannot take `b` as well
//!   without losing that), 1 otherwise. Methods without branches count through `|M| − |M_T|`.
//! - **line**: the number of lines not hit. (Guidance towards lines comes from the branch
//!   term when both are on, as in the default set.)
//! - **method**: `|M| − |M_T|`.
//! - **method-no-exception**: per goal 0 (a direct call returned normally), ½ (called directly,
//!   every call threw) or 1.
//! - **exception**: 1 / (1 + n), n the number of distinct (method, exception class) pairs the
//!   suite's direct calls threw (as EvoSuite): more exceptions, lower fitness. It has no
//!   a-priori goals and is never 0, so with this criterion on a suite's fitness is never 0;
//!   [`SuiteFitness::complete`] tells whether every a-priori goal is covered.
//!
//! A suite with a lost test (time-out, crashed worker) gets the maximum of every term
//! (`|M| + |B|` for branches, as in the paper) when [`crate::Config::lost_test_is_max`] is set.
//! Apart from that, adding a test to a suite never increases its fitness, and the fitness is
//! 0 exactly when every goal is covered (without the exception criterion).
//!
//! ```text
//! Stack: M = {<init>, push, pop, resize}, B = 8 branches
//! suite {new Stack(); s.push(3)}: M_T = {<init>, push}; push's predicates ran once each
//!   => 4 - 2 + (d = 0, 1, 1, 0 for push) + 1 + 1 (pop) + 1 + 1 (resize) = 8
//! ```

mod scorer;

use serde::Serialize;

pub use scorer::{CompiledTrace, SuiteScorer};

use crate::Trace;
use crate::criteria::{Criterion, SuiteView};
use crate::goals::GoalSet;

/// The whole-suite fitness of a suite, with its parts.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SuiteFitness {
    /// The sum of the parts (to minimise).
    pub total: f64,
    /// Each criterion's term (by name), in criterion order.
    pub parts: Vec<(&'static str, f64)>,
    /// A-priori goals covered.
    pub covered: usize,
    /// A-priori goals.
    pub goals: usize,
    /// Distinct (method, exception class) pairs thrown.
    pub exceptions: usize,
    /// Whether a test of the suite was lost (time-out, crash).
    pub lost: bool,
}

impl SuiteFitness {
    /// The term of the criterion named `criterion`, if it is on.
    #[must_use]
    pub fn part(&self, criterion: &str) -> Option<f64> {
        self.parts
            .iter()
            .find(|(c, _)| *c == criterion)
            .map(|(_, v)| *v)
    }

    /// Whether every a-priori goal is covered (the search may stop).
    #[must_use]
    pub fn complete(&self) -> bool {
        self.covered == self.goals
    }

    /// Covered a-priori goals as a fraction (1 when there are none).
    #[must_use]
    pub fn coverage(&self) -> f64 {
        if self.goals == 0 {
            1.0
        } else {
            self.covered as f64 / self.goals as f64
        }
    }
}

/// Covered goals of one criterion, for reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Coverage {
    /// The criterion's name.
    pub criterion: &'static str,
    /// Goals covered.
    pub covered: usize,
    /// Goals (for exceptions: those registered so far).
    pub total: usize,
}

impl GoalSet {
    /// Covered goals per criterion of the configuration, in criterion order.
    #[must_use]
    pub fn coverage(&self, suite: &Trace) -> Vec<Coverage> {
        self.config
            .criteria
            .iter()
            .map(|criterion| {
                let criterion = criterion.name();
                let (mut covered, mut total) = (0, 0);
                for g in self.goals_of(criterion) {
                    total += 1;
                    covered += usize::from(self.is_covered(g.id, suite));
                }
                Coverage {
                    criterion,
                    covered,
                    total,
                }
            })
            .collect()
    }

    /// The whole-suite fitness of the suite whose tests left these traces.
    #[must_use]
    pub fn suite_fitness(&self, traces: &[&Trace]) -> SuiteFitness {
        self.suite_fitness_merged(&Trace::merged(traces.iter().copied()))
    }

    /// The whole-suite fitness from the suite's merged trace (for searches that keep the
    /// merge up to date themselves).
    #[must_use]
    pub fn suite_fitness_merged(&self, suite: &Trace) -> SuiteFitness {
        let statics = &self.goals[..self.static_goal_count()];
        // A pair goal needs one test taking both branches, which a merged trace cannot
        // tell: the suite's count leaves pairs out (the archive counts them per test).
        let covered = statics
            .iter()
            .filter(|g| {
                !matches!(self.link(g.id), Some(crate::Link::Pair(..)))
                    && self.is_covered(g.id, suite)
            })
            .count();
        let exceptions = suite
            .exceptions()
            .iter()
            .filter(|((c, m), _)| self.method_index(*c, *m).is_some())
            .count();
        let view = MergedView {
            set: self,
            suite,
            exceptions,
        };
        self.assemble(covered, exceptions, suite.is_lost(), |c| {
            c.suite_term(self, &view)
        })
    }

    /// A [`SuiteFitness`] from its counts and a term per criterion (every term at its maximum
    /// when the suite lost a test and the configuration says so).
    pub(crate) fn assemble(
        &self,
        covered: usize,
        exceptions: usize,
        lost: bool,
        part: impl Fn(&dyn Criterion) -> f64,
    ) -> SuiteFitness {
        let max = lost && self.config.lost_test_is_max;
        let parts: Vec<(&'static str, f64)> = self
            .config
            .criteria
            .iter()
            .map(|c| {
                let term = if max {
                    c.max_suite_term(self)
                } else {
                    part(&**c)
                };
                (c.name(), term)
            })
            .collect();
        SuiteFitness {
            total: parts.iter().map(|p| p.1).sum(),
            parts,
            covered,
            goals: self.static_goal_count(),
            exceptions,
            lost,
        }
    }

    /// The largest whole-suite fitness: what a suite with a lost test gets.
    #[must_use]
    pub fn max_suite_fitness(&self) -> f64 {
        self.config
            .criteria
            .iter()
            .map(|c| c.max_suite_term(self))
            .sum()
    }

    /// How often `predicate`'s outcomes were hit (each as often as the predicate lists it).
    pub(crate) fn predicate_ran_twice(&self, predicate: usize, suite: &Trace) -> bool {
        self.predicate_hits(predicate, suite) >= 2
    }
}

/// The reference's view of a suite: its merged trace, read goal by goal.
struct MergedView<'a> {
    set: &'a GoalSet,
    suite: &'a Trace,
    exceptions: usize,
}

impl SuiteView for MergedView<'_> {
    fn methods_entered(&self) -> usize {
        self.set
            .methods
            .iter()
            .filter(|m| self.suite.method_entered(m.probe))
            .count()
    }

    fn method_entered(&self, method: usize) -> bool {
        self.set
            .methods
            .get(method)
            .is_some_and(|m| self.suite.method_entered(m.probe))
    }

    fn lines_hit(&self) -> usize {
        self.set
            .lines
            .iter()
            .filter(|l| self.suite.line_hit(l.probe))
            .count()
    }

    fn line_hit(&self, line: usize) -> bool {
        self.set
            .lines
            .get(line)
            .is_some_and(|l| self.suite.line_hit(l.probe))
    }

    fn branch_taken(&self, branch: usize) -> bool {
        self.set
            .branches
            .get(branch)
            .is_some_and(|b| self.suite.branch(b.slot).0 > 0)
    }

    fn for_each_open_branch(&self, f: &mut dyn FnMut(usize, bool, f64)) {
        for (n, b) in self.set.branches.iter().enumerate() {
            let (hits, distance) = self.suite.branch(b.slot);
            if hits == 0 {
                f(
                    n,
                    self.set.predicate_ran_twice(b.predicate, self.suite),
                    distance,
                );
            }
        }
    }

    fn called(&self, method: usize) -> Option<bool> {
        let cm = self.set.methods.get(method)?;
        self.suite.call((cm.class, cm.id))
    }

    fn exceptions(&self) -> usize {
        self.exceptions
    }
}
