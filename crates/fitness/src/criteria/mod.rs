//! Coverage criteria behind one trait, their registry, and sets of them.
//!
//! A [`Criterion`] decides which goals a class has (from the analysis, as the goal-set builder
//! matched it with the probe map: methods, branch outcomes, lines) and which a trace reveals
//! at run time, how far a test is from one of its goals (by default the distance of the goal's
//! probe event: approach level + ν(branch distance) for branches and lines, 0 or 1 for method
//! entries), and its term of whole-suite fitness, read from a [`SuiteView`] of the suite's
//! probe data. Two scorers offer that view — the merged trace of the suite (the reference) and
//! the search's bit-set fold of compiled traces (fast) — and every criterion's term is the
//! same on both.
//!
//! The built-in criteria ([`builtin`]):
//!
//! - `branch`: each branch outcome, plus each method without branches; suite term
//!   `|M| − |M_T| + Σ d(b,T)` (the whole-suite paper's);
//! - `line`: each source line with a line probe; suite term: lines not hit;
//! - `method`: each method with code entered; suite term `|M| − |M_T|`;
//! - `method-no-exception`: each non-private method and constructor called by a test statement
//!   and returning normally; suite term 0, ½ or 1 per goal;
//! - `exception`: one goal per (method, exception class) seen at run time; suite term
//!   `1 / (1 + n)`.
//!
//! [`Registry`] maps names (and aliases) to criteria, in goal-list order: [`Registry::builtin`]
//! holds the five; a criterion of another crate is [`register`](Registry::register)ed after
//! them. A [`Criteria`] is a set of registered criteria, kept in registry order.
//!
//! ```
//! use ferrosuite_fitness::Criteria;
//! let c: Criteria = "line,branch".parse().unwrap();
//! assert!(c.contains("branch") && !c.contains("method"));
//! assert_eq!(c.to_string(), "branch,line");
//! assert_eq!(Criteria::default().to_string(), "branch,line,method,exception");
//! ```

pub mod builtin;

use std::fmt;
use std::str::FromStr;
use std::sync::Arc;

use serde::{Serialize, Serializer};

use crate::Trace;
use crate::error::Error;
use crate::goals::{ClassGoals, GoalSet, Link};
use crate::ids::GoalId;

pub use builtin::{Branch, Exception, Line, Method, MethodNoException};

/// The built-in criteria's names.
pub mod names {
    /// Branch coverage.
    pub const BRANCH: &str = "branch";
    /// Line coverage.
    pub const LINE: &str = "line";
    /// Method coverage.
    pub const METHOD: &str = "method";
    /// Methods returning normally when called by a test.
    pub const METHOD_NO_EXCEPTION: &str = "method-no-exception";
    /// Exceptions thrown per method.
    pub const EXCEPTION: &str = "exception";
}

/// A goal a criterion asks for: the probe event it reads, and a suffix for its description.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NewGoal {
    /// What covers it.
    pub link: Link,
    /// Appended to the goal's description (` (no branches)`), or empty.
    pub suffix: &'static str,
}

/// A coverage criterion (see the module documentation).
pub trait Criterion: Send + Sync + fmt::Debug {
    /// Its name on command lines and in reports (`branch`).
    fn name(&self) -> &'static str;

    /// Other spellings accepted when parsing (`branches`).
    fn aliases(&self) -> &'static [&'static str] {
        &[]
    }

    /// One line saying what it covers, for help texts.
    fn summary(&self) -> &'static str;

    /// The goals of one class, in code order (none for a criterion whose goals appear at run
    /// time).
    fn goals(&self, class: &ClassGoals<'_>) -> Vec<NewGoal>;

    /// Goals `trace` reveals that `set` does not have yet, added with
    /// [`GoalSet::add_goal`] (which covered checks then ask one by one, except exception goals,
    /// which the goal set indexes); their ids. By default none.
    fn discover(&self, set: &mut GoalSet, trace: &Trace) -> Vec<GoalId> {
        let _ = (set, trace);
        Vec::new()
    }

    /// Whether DynaMOSA activates its goals along control dependence (the analysis's goal
    /// hierarchy); otherwise they are active from the start. By default not.
    fn in_hierarchy(&self) -> bool {
        false
    }

    /// The fitness of one of its goals for one test, when the criterion has its own: 0 exactly
    /// when the trace covers the goal (its probe event happened), otherwise positive. `None`
    /// (the default): the distance of the goal's probe event ([`GoalSet::fitness`]: approach
    /// level + ν(branch distance) for branches and lines, 0 or 1 for entries, ½ for a method
    /// whose direct calls all threw).
    fn fitness(&self, set: &GoalSet, goal: GoalId, trace: &Trace) -> Option<f64> {
        let _ = (set, goal, trace);
        None
    }

    /// Its term of whole-suite fitness (lower is better): 0 when the suite covers each of its
    /// goals that can be known before running (its static goals).
    fn suite_term(&self, set: &GoalSet, suite: &dyn SuiteView) -> f64;

    /// The term of a suite that lost a test (a time-out, a crashed worker): its largest.
    fn max_suite_term(&self, set: &GoalSet) -> f64;
}

/// What whole-suite terms read of a suite: its probe data against the goal set's methods,
/// branch outcomes and lines (indices into [`GoalSet::methods`], its branch nodes and its line
/// nodes).
pub trait SuiteView {
    /// Methods of the goal set the suite entered.
    fn methods_entered(&self) -> usize;
    /// Whether the suite entered method `method`.
    fn method_entered(&self, method: usize) -> bool;
    /// Lines of the goal set the suite hit.
    fn lines_hit(&self) -> usize;
    /// Whether the suite hit line node `line`.
    fn line_hit(&self, line: usize) -> bool;
    /// Whether the suite took branch node `branch`.
    fn branch_taken(&self, branch: usize) -> bool;
    /// `sum` plus the whole-suite paper's `Σ_b d(b, T)` over the branch nodes, each term added
    /// in index order (so that the sum is the same, to the last bit, whichever view computes
    /// it): nothing for a branch the suite took, ν(smallest distance) for one whose predicate it
    /// evaluated at least twice, 1 otherwise. What
    /// [`for_each_open_branch`](Self::for_each_open_branch) gives, computed by each view its
    /// fastest way: the branch term reads it for every suite scored.
    fn add_branch_distances(&self, mut sum: f64) -> f64 {
        self.for_each_open_branch(&mut |_, twice, d| {
            sum += if twice { crate::normalize(d) } else { 1.0 };
        });
        sum
    }
    /// Calls `f(branch, twice, distance)` for each branch node the suite did not take, in
    /// index order: `twice` when its predicate was evaluated at least twice, `distance` the
    /// smallest branch distance a test of the suite reached (`+∞` when none).
    fn for_each_open_branch(&self, f: &mut dyn FnMut(usize, bool, f64));
    /// Whether a test statement called method `m` directly: `Some(true)` when a call
    /// returned normally, `Some(false)` when every call threw.
    fn called(&self, method: usize) -> Option<bool>;
    /// Distinct (method of the goal set, exception class) pairs the suite's direct calls threw.
    fn exceptions(&self) -> usize;
}

/// Criteria by name, in goal-list order (see the module documentation).
#[derive(Clone)]
pub struct Registry {
    list: Vec<Arc<dyn Criterion>>,
}

impl Registry {
    /// The built-in criteria: branch, line, method, method-no-exception, exception.
    #[must_use]
    pub fn builtin() -> Self {
        Registry {
            list: vec![
                Arc::new(Branch),
                Arc::new(Line),
                Arc::new(Method),
                Arc::new(MethodNoException),
                Arc::new(Exception),
            ],
        }
    }

    /// Adds a criterion after those registered; an error when its name or an alias is taken.
    pub fn register(&mut self, criterion: Arc<dyn Criterion>) -> Result<(), Error> {
        for name in std::iter::once(criterion.name()).chain(criterion.aliases().iter().copied()) {
            if self.find(name).is_some() {
                return Err(Error::Criterion(format!(
                    "a criterion named `{name}` is registered already"
                )));
            }
        }
        self.list.push(criterion);
        Ok(())
    }

    /// The criteria, in order.
    pub fn iter(&self) -> impl Iterator<Item = &Arc<dyn Criterion>> {
        self.list.iter()
    }

    /// The names, in order.
    #[must_use]
    pub fn names(&self) -> Vec<&'static str> {
        self.list.iter().map(|c| c.name()).collect()
    }

    fn find(&self, name: &str) -> Option<usize> {
        let name = name.trim().to_ascii_lowercase();
        self.list
            .iter()
            .position(|c| c.name() == name || c.aliases().contains(&name.as_str()))
    }

    /// The criterion named (or aliased) `name`.
    pub fn get(&self, name: &str) -> Result<Arc<dyn Criterion>, Error> {
        self.find(name)
            .map(|i| Arc::clone(&self.list[i]))
            .ok_or_else(|| self.unknown(name))
    }

    fn unknown(&self, name: &str) -> Error {
        Error::UnknownCriterion(format!(
            "{name:?} (known: {}, or all)",
            self.names().join(", ")
        ))
    }

    /// The set of the named criteria, in registry order (repetitions do not matter).
    pub fn select<'n>(&self, names: impl IntoIterator<Item = &'n str>) -> Result<Criteria, Error> {
        let mut picked = Vec::new();
        for n in names {
            let i = self.find(n).ok_or_else(|| self.unknown(n))?;
            picked.push(i);
        }
        picked.sort_unstable();
        picked.dedup();
        Ok(Criteria {
            list: picked
                .into_iter()
                .map(|i| Arc::clone(&self.list[i]))
                .collect(),
        })
    }

    /// A comma-separated list of names, or `all` (every registered criterion).
    pub fn parse(&self, s: &str) -> Result<Criteria, Error> {
        if s.trim() == "all" {
            return Ok(Criteria {
                list: self.list.clone(),
            });
        }
        self.select(s.split(',').map(str::trim).filter(|x| !x.is_empty()))
    }
}

impl Default for Registry {
    fn default() -> Self {
        Registry::builtin()
    }
}

impl fmt::Debug for Registry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.names()).finish()
    }
}

/// A set of criteria, in the order of the registry they came from (goal-list order).
#[derive(Clone)]
pub struct Criteria {
    list: Vec<Arc<dyn Criterion>>,
}

impl Criteria {
    /// Just branch coverage (the whole-suite paper's setting).
    #[must_use]
    pub fn branch() -> Self {
        Criteria {
            list: vec![Arc::new(Branch)],
        }
    }

    /// Every built-in criterion.
    #[must_use]
    pub fn all() -> Self {
        Criteria {
            list: Registry::builtin().list,
        }
    }

    /// Whether the criterion named `name` is in the set.
    #[must_use]
    pub fn contains(&self, name: &str) -> bool {
        self.list.iter().any(|c| c.name() == name)
    }

    /// The set without the criterion named `name`.
    #[must_use]
    pub fn without(mut self, name: &str) -> Self {
        self.list.retain(|c| c.name() != name);
        self
    }

    /// The set of `criterion` alone (a configured instance: the coupled branches of a pair).
    #[must_use]
    pub fn only(criterion: Arc<dyn Criterion>) -> Self {
        Criteria {
            list: vec![criterion],
        }
    }

    /// The set with `criterion` in place of the criterion of the same name (a configured
    /// instance for the registry's: the coupled branches of one pair), or after the others
    /// when the set has none of that name.
    #[must_use]
    pub fn with(mut self, criterion: Arc<dyn Criterion>) -> Self {
        match self.list.iter().position(|c| c.name() == criterion.name()) {
            Some(i) => self.list[i] = criterion,
            None => self.list.push(criterion),
        }
        self
    }

    /// The criteria in order.
    pub fn iter(&self) -> impl Iterator<Item = &Arc<dyn Criterion>> {
        self.list.iter()
    }

    /// Their names, in order.
    #[must_use]
    pub fn names(&self) -> Vec<&'static str> {
        self.list.iter().map(|c| c.name()).collect()
    }

    /// Whether the set is empty.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.list.is_empty()
    }

    /// How many criteria the set holds.
    #[must_use]
    pub fn len(&self) -> usize {
        self.list.len()
    }

    /// The criterion at position `i`.
    #[must_use]
    pub fn get(&self, i: usize) -> Option<&Arc<dyn Criterion>> {
        self.list.get(i)
    }
}

impl Default for Criteria {
    /// Branch, line, method and exception, as EvoSuite's default combination minus the
    /// criteria that need more than probe data (output, weak mutation).
    fn default() -> Self {
        Criteria {
            list: vec![
                Arc::new(Branch),
                Arc::new(Line),
                Arc::new(Method),
                Arc::new(Exception),
            ],
        }
    }
}

impl PartialEq for Criteria {
    fn eq(&self, other: &Self) -> bool {
        self.names() == other.names()
    }
}

impl Eq for Criteria {}

impl fmt::Debug for Criteria {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.names()).finish()
    }
}

impl fmt::Display for Criteria {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.names().join(","))
    }
}

impl Serialize for Criteria {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.names().serialize(s)
    }
}

impl FromStr for Criteria {
    type Err = Error;

    /// A comma-separated list of built-in criterion names, or `all` (see [`Registry::parse`]
    /// for criteria of other crates).
    fn from_str(s: &str) -> Result<Self, Error> {
        Registry::builtin().parse(s)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use std::sync::Arc;

    use super::*;

    #[test]
    fn sets_are_ordered_and_parse_round_trip() {
        let c: Criteria = "exception,branch,branches".parse().unwrap();
        assert_eq!(c.names(), ["branch", "exception"]);
        assert_eq!(c.to_string().parse::<Criteria>().unwrap(), c);
        assert_eq!("all".parse::<Criteria>().unwrap(), Criteria::all());
        let err = "branch,bogus".parse::<Criteria>().unwrap_err().to_string();
        assert!(
            err.contains("bogus") && err.contains("method-no-exception"),
            "{err}"
        );
        let w = Criteria::branch()
            .with(Arc::new(Line))
            .with(Arc::new(Branch));
        assert_eq!(w.names(), ["branch", "line"]);
        let d = Criteria::default().without(names::LINE);
        assert_eq!(d.to_string(), "branch,method,exception");
        assert!(Criteria::default().without("x").contains(names::LINE));
    }

    #[test]
    fn a_name_or_alias_is_registered_once() {
        let mut r = Registry::builtin();
        let err = r.register(Arc::new(Branch)).unwrap_err().to_string();
        assert!(err.contains("`branch`"), "{err}");
        assert_eq!(r.get("METHODS").unwrap().name(), "method");
        assert!(r.get("nope").is_err());
    }
}
