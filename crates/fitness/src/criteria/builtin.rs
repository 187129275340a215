//! The five built-in criteria: branch, line, method, method-no-exception and exception.
//!
//! Their goals are probe events (a branch outcome taken, a line hit, a method entered, a
//! direct call returning, a direct call throwing an exception class); their terms follow the
//! whole-suite paper for branches and EvoSuite for the others:
//!
//! ```text
//! Stack: M = {<init>, push, pop, resize}, B = 8 branches
//! suite {new Stack(); s.push(3)}: M_T = {<init>, push}; push's predicates ran once each
//!   branch term = 4 - 2 + (d = 0, 1, 1, 0 for push) + 1 + 1 (pop) + 1 + 1 (resize) = 8
//! ```

use super::{Criterion, NewGoal, SuiteView, names};
use crate::Trace;
use crate::goals::{ClassGoals, GoalSet, Link, Target};
use crate::ids::GoalId;

/// Branch coverage (whole-suite paper): every outcome of every conditional jump and switch,
/// and every method without branches (covered when entered). Term `|M| − |M_T| + Σ_b d(b, T)`,
/// `d(b, T)` = 0 when taken, ν(smallest distance) when its predicate ran at least twice (a
/// predicate that ran once and took the other outcome cannot take `b` as well without losing
/// that), 1 otherwise.
#[derive(Debug, Clone, Copy, Default)]
pub struct Branch;

impl Criterion for Branch {
    fn name(&self) -> &'static str {
        names::BRANCH
    }

    fn aliases(&self) -> &'static [&'static str] {
        &["branches"]
    }

    fn summary(&self) -> &'static str {
        "every branch outcome, and every method without branches"
    }

    fn goals(&self, class: &ClassGoals<'_>) -> Vec<NewGoal> {
        let branches = class.branches().map(|n| NewGoal {
            link: Link::Branch(n),
            suffix: "",
        });
        let branchless = class
            .methods()
            .filter(|(_, m)| m.branchless)
            .map(|(m, _)| NewGoal {
                link: Link::Method(m),
                suffix: " (no branches)",
            });
        branches.chain(branchless).collect()
    }

    fn in_hierarchy(&self) -> bool {
        true
    }

    fn suite_term(&self, set: &GoalSet, suite: &dyn SuiteView) -> f64 {
        // Methods not entered, then only the outcomes not taken (the others add 0), in
        // branch order.
        let unentered = set.methods().len().saturating_sub(suite.methods_entered()) as f64;
        suite.add_branch_distances(unentered)
    }

    fn max_suite_term(&self, set: &GoalSet) -> f64 {
        (set.methods().len() + set.branch_count()) as f64
    }
}

/// Line coverage: every source line with a line probe. Term: the lines not hit (guidance
/// towards lines comes from the branch term when both are on, as in the default set).
#[derive(Debug, Clone, Copy, Default)]
pub struct Line;

impl Criterion for Line {
    fn name(&self) -> &'static str {
        names::LINE
    }

    fn aliases(&self) -> &'static [&'static str] {
        &["lines"]
    }

    fn summary(&self) -> &'static str {
        "every source line with a line probe"
    }

    fn goals(&self, class: &ClassGoals<'_>) -> Vec<NewGoal> {
        class
            .lines()
            .map(|l| NewGoal {
                link: Link::Line(l),
                suffix: "",
            })
            .collect()
    }

    fn suite_term(&self, set: &GoalSet, suite: &dyn SuiteView) -> f64 {
        set.line_count().saturating_sub(suite.lines_hit()) as f64
    }

    fn max_suite_term(&self, set: &GoalSet) -> f64 {
        set.line_count() as f64
    }
}

/// Method coverage: every method with code entered at least once. Term `|M| − |M_T|`.
#[derive(Debug, Clone, Copy, Default)]
pub struct Method;

impl Criterion for Method {
    fn name(&self) -> &'static str {
        names::METHOD
    }

    fn aliases(&self) -> &'static [&'static str] {
        &["methods"]
    }

    fn summary(&self) -> &'static str {
        "every method with code, entered"
    }

    fn goals(&self, class: &ClassGoals<'_>) -> Vec<NewGoal> {
        class
            .methods()
            .map(|(m, _)| NewGoal {
                link: Link::Method(m),
                suffix: "",
            })
            .collect()
    }

    fn suite_term(&self, set: &GoalSet, suite: &dyn SuiteView) -> f64 {
        set.methods().len().saturating_sub(suite.methods_entered()) as f64
    }

    fn max_suite_term(&self, set: &GoalSet) -> f64 {
        set.methods().len() as f64
    }
}

/// Every non-private method and constructor called by a test statement and returning
/// normally at least once. Term per goal: 0 (a direct call returned), ½ (called directly,
/// every call threw) or 1 (never called directly).
#[derive(Debug, Clone, Copy, Default)]
pub struct MethodNoException;

impl MethodNoException {
    /// The methods of its goals, in goal order.
    fn methods(set: &GoalSet) -> impl Iterator<Item = usize> + '_ {
        set.links_of(names::METHOD_NO_EXCEPTION)
            .filter_map(|link| match link {
                Link::MethodNoException(m) => Some(m),
                _ => None,
            })
    }
}

impl Criterion for MethodNoException {
    fn name(&self) -> &'static str {
        names::METHOD_NO_EXCEPTION
    }

    fn aliases(&self) -> &'static [&'static str] {
        &["methodnoexception", "method-no-exc"]
    }

    fn summary(&self) -> &'static str {
        "every non-private method called by a test and returning normally"
    }

    fn goals(&self, class: &ClassGoals<'_>) -> Vec<NewGoal> {
        class
            .methods()
            .filter(|(_, m)| !m.is_private())
            .map(|(m, _)| NewGoal {
                link: Link::MethodNoException(m),
                suffix: "",
            })
            .collect()
    }

    fn suite_term(&self, set: &GoalSet, suite: &dyn SuiteView) -> f64 {
        Self::methods(set)
            .map(|m| match suite.called(m) {
                Some(true) => 0.0,
                Some(false) => 0.5,
                None => 1.0,
            })
            .sum()
    }

    fn max_suite_term(&self, set: &GoalSet) -> f64 {
        Self::methods(set).count() as f64
    }
}

/// Distinct exception classes thrown per method called by a test statement (undeclared ones
/// unless configured otherwise); no goals up front, one per (method, exception class) seen.
/// Term `1 / (1 + n)`, n the distinct pairs the suite threw (as EvoSuite): more exceptions,
/// lower fitness; never 0, so a suite's fitness with this criterion on is never 0.
#[derive(Debug, Clone, Copy, Default)]
pub struct Exception;

impl Criterion for Exception {
    fn name(&self) -> &'static str {
        names::EXCEPTION
    }

    fn aliases(&self) -> &'static [&'static str] {
        &["exceptions"]
    }

    fn summary(&self) -> &'static str {
        "each exception class a method called by a test throws (found at run time)"
    }

    fn goals(&self, _class: &ClassGoals<'_>) -> Vec<NewGoal> {
        Vec::new()
    }

    fn discover(&self, set: &mut GoalSet, trace: &Trace) -> Vec<GoalId> {
        let mut out = Vec::new();
        for ((class, method), exception) in trace.exceptions() {
            let Some(m) = set.method_index(*class, *method) else {
                continue;
            };
            if set.exception_goal_of(m, exception).is_some() {
                continue;
            }
            let cm = &set.methods()[m];
            let description = format!(
                "{}.{} throws {exception}",
                set.classes()[cm.class.index()].binary_name(),
                cm.signature()
            );
            let target = Target::Exception {
                method: cm.id,
                exception: exception.clone(),
            };
            // (The link and target agree and the pair is new: it cannot be refused.)
            if let Ok(id) = set.add_goal(self.name(), Link::Exception(m), target, description) {
                out.push(id);
            }
        }
        out
    }

    fn suite_term(&self, _set: &GoalSet, suite: &dyn SuiteView) -> f64 {
        1.0 / (1.0 + suite.exceptions() as f64)
    }

    fn max_suite_term(&self, _set: &GoalSet) -> f64 {
        1.0
    }
}
