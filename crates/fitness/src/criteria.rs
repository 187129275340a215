//! Coverage criteria and sets of them.
//!
//! Each criterion has the same shape: goals derived from the analysis and probe map, a
//! per-test fitness of each goal, and a whole-suite term:
//!
//! - [`Branch`](Criterion::Branch): each branch, plus each method without branches; covered
//!   when the outcome was taken / the method was entered; suite term `|M| − |M_T| + Σ d(b,T)`.
//! - [`Line`](Criterion::Line): each source line with a line probe; covered when the probe
//!   ran; suite term: uncovered lines.
//! - [`Method`](Criterion::Method): each method with code; covered when it was entered
//!   (directly or not); suite term `|M| − |M_T|`.
//! - [`MethodNoException`](Criterion::MethodNoException): each non-private method and
//!   constructor; covered when a test statement called it and it returned normally; suite
//!   term: 0, ½ or 1 per goal.
//! - [`Exception`](Criterion::Exception): no goals up front, one per (method, exception class)
//!   seen; covered when a test statement calling the method threw that class; suite term
//!   `1 / (1 + n)`.
//!
//! The default set is branch, line, method and exception (see [`Criteria::default`]).
//!
//! ```
//! use ferrosuite_fitness::{Criteria, Criterion};
//! let c: Criteria = "branch,line".parse().unwrap();
//! assert!(c.contains(Criterion::Branch) && !c.contains(Criterion::Method));
//! assert_eq!(c.to_string(), "branch,line");
//! assert_eq!(Criteria::default().to_string(), "branch,line,method,exception");
//! ```

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use crate::error::Error;

/// A coverage criterion.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Criterion {
    /// Branch coverage (whole-suite paper): every outcome of every conditional jump and switch,
    /// and every method without branches.
    Branch,
    /// Line coverage: every source line with a line probe.
    Line,
    /// Method coverage: every method with code entered at least once.
    Method,
    /// Every non-private method and constructor called by a test statement and returning
    /// normally at least once.
    MethodNoException,
    /// Distinct exception classes thrown per method called by a test statement (undeclared
    /// ones unless configured otherwise); goals are discovered at run time.
    Exception,
}

impl Criterion {
    /// Every criterion, in goal-list order.
    pub const ALL: [Criterion; 5] = [
        Criterion::Branch,
        Criterion::Line,
        Criterion::Method,
        Criterion::MethodNoException,
        Criterion::Exception,
    ];

    /// The name used on command lines and in reports.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Criterion::Branch => "branch",
            Criterion::Line => "line",
            Criterion::Method => "method",
            Criterion::MethodNoException => "method-no-exception",
            Criterion::Exception => "exception",
        }
    }

    /// Whether the criterion's goals are known before anything runs (all but
    /// [`Criterion::Exception`]).
    #[must_use]
    pub fn has_static_goals(self) -> bool {
        self != Criterion::Exception
    }
}

impl fmt::Display for Criterion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Criterion {
    type Err = Error;

    fn from_str(s: &str) -> Result<Self, Error> {
        match s.trim().to_ascii_lowercase().as_str() {
            "branch" | "branches" => Ok(Criterion::Branch),
            "line" | "lines" => Ok(Criterion::Line),
            "method" | "methods" => Ok(Criterion::Method),
            "method-no-exception" | "methodnoexception" | "method-no-exc" => {
                Ok(Criterion::MethodNoException)
            }
            "exception" | "exceptions" => Ok(Criterion::Exception),
            _ => Err(Error::UnknownCriterion(s.to_string())),
        }
    }
}

/// A set of criteria, kept in [`Criterion`] order.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Criteria(Vec<Criterion>);

impl Criteria {
    /// The set of the given criteria (order and repetitions do not matter).
    #[must_use]
    pub fn new(criteria: &[Criterion]) -> Self {
        let mut v = criteria.to_vec();
        v.sort_unstable();
        v.dedup();
        Criteria(v)
    }

    /// Just branch coverage (the whole-suite paper's setting).
    #[must_use]
    pub fn branch() -> Self {
        Criteria(vec![Criterion::Branch])
    }

    /// Every criterion.
    #[must_use]
    pub fn all() -> Self {
        Criteria(Criterion::ALL.to_vec())
    }

    /// Whether `c` is in the set.
    #[must_use]
    pub fn contains(&self, c: Criterion) -> bool {
        self.0.binary_search(&c).is_ok()
    }

    /// The set with `c` added.
    #[must_use]
    pub fn with(mut self, c: Criterion) -> Self {
        if let Err(i) = self.0.binary_search(&c) {
            self.0.insert(i, c);
        }
        self
    }

    /// The set without `c`.
    #[must_use]
    pub fn without(mut self, c: Criterion) -> Self {
        self.0.retain(|&x| x != c);
        self
    }

    /// The criteria in order.
    pub fn iter(&self) -> impl Iterator<Item = Criterion> + '_ {
        self.0.iter().copied()
    }

    /// Whether the set is empty.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl Default for Criteria {
    /// Branch, line, method and exception, as EvoSuite's default combination minus the
    /// criteria that need more than probe data (output, weak mutation).
    fn default() -> Self {
        Criteria(vec![
            Criterion::Branch,
            Criterion::Line,
            Criterion::Method,
            Criterion::Exception,
        ])
    }
}

impl fmt::Display for Criteria {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, c) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str(",")?;
            }
            f.write_str(c.name())?;
        }
        Ok(())
    }
}

impl FromStr for Criteria {
    type Err = Error;

    /// A comma-separated list of criterion names, or `all`.
    fn from_str(s: &str) -> Result<Self, Error> {
        if s.trim() == "all" {
            return Ok(Criteria::all());
        }
        let list = s
            .split(',')
            .map(str::trim)
            .filter(|x| !x.is_empty())
            .map(str::parse)
            .collect::<Result<Vec<Criterion>, Error>>()?;
        Ok(Criteria::new(&list))
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::float_cmp)]
mod tests {
    use super::*;

    #[test]
    fn sets_are_ordered_and_parse_round_trip() {
        let c = Criteria::new(&[Criterion::Exception, Criterion::Branch, Criterion::Branch]);
        assert_eq!(
            c.iter().collect::<Vec<_>>(),
            [Criterion::Branch, Criterion::Exception]
        );
        assert_eq!(c.to_string().parse::<Criteria>().unwrap(), c);
        assert_eq!("all".parse::<Criteria>().unwrap(), Criteria::all());
        assert!("branch,bogus".parse::<Criteria>().is_err());
        let d = Criteria::default()
            .without(Criterion::Line)
            .with(Criterion::MethodNoException);
        assert_eq!(d.to_string(), "branch,method,method-no-exception,exception");
        assert!(Criteria::new(&[]).is_empty());
    }
}
