//! Search budgets: wall time, statements executed, fitness evaluations.
//!
//! A search stops when any limit set is reached (or when every goal is covered). Statements and
//! evaluations are counted from execution results, so a run with only those limits is
//! reproducible; wall time is not.
//!
//! ```
//! use std::time::Duration;
//! use ferrosuite_search::engine::{Budget, Usage};
//!
//! let budget = Budget { statements: Some(1_000), ..Budget::default() };
//! let mut used = Usage::default();
//! used.statements = 999;
//! assert!(!budget.exhausted(&used, Duration::ZERO));
//! used.statements = 1_000;
//! assert!(budget.exhausted(&used, Duration::ZERO));
//! ```

use std::time::Duration;

use serde::{Deserialize, Serialize};

/// Limits of one search; `None` is no limit. With no limit at all a search runs until every
/// goal is covered.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Budget {
    /// Wall time (60 s by default in `ferrosuite generate`).
    pub time: Option<Duration>,
    /// Statements executed, counting every executed statement of every test run.
    pub statements: Option<u64>,
    /// Fitness evaluations (one per suite scored for the whole-suite GA — an offspring that
    /// is its parent unchanged is not scored — and one per test run for the test-level
    /// algorithms: a MOSA/DynaMOSA parent kept from the last generation, whose trace is
    /// cached, is not evaluated again).
    pub evaluations: Option<u64>,
}

/// What a search has used so far.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Usage {
    /// Statements executed.
    pub statements: u64,
    /// Tests executed (not counting those whose results came from the cache).
    pub tests: u64,
    /// Fitness evaluations.
    pub evaluations: u64,
    /// Generations (iterations of the algorithm's main loop).
    pub generations: u64,
    /// Time the workers spent running those tests, in microseconds (summed over workers; not
    /// deterministic).
    pub test_micros: u64,
    /// Offspring the whole-suite GA scored ahead of their turn while it waited for the
    /// host's results ([`ScoreAhead`](super::ScoreAhead); each also counts as an evaluation).
    /// Not deterministic: what can be done ahead depends on when results arrive; the search
    /// does not.
    #[serde(default)]
    pub scored_ahead: u64,
    /// Offspring the whole-suite GA prepared (scored in part, before their last tests ran)
    /// while it waited for the host's results; not evaluations. Not deterministic, as
    /// `scored_ahead`.
    #[serde(default)]
    pub prepared_ahead: u64,
}

impl Budget {
    /// A wall-time budget only.
    #[must_use]
    pub fn time(limit: Duration) -> Self {
        Budget {
            time: Some(limit),
            ..Budget::default()
        }
    }

    /// A statement budget only (reproducible).
    #[must_use]
    pub fn statements(limit: u64) -> Self {
        Budget {
            statements: Some(limit),
            ..Budget::default()
        }
    }

    /// Whether a limit is reached.
    #[must_use]
    pub fn exhausted(&self, used: &Usage, elapsed: Duration) -> bool {
        self.time.is_some_and(|t| elapsed >= t)
            || self.statements.is_some_and(|s| used.statements >= s)
            || self.evaluations.is_some_and(|e| used.evaluations >= e)
    }

    /// The share of the budget used, in \[0, 1\] (the largest over the limits set; 0 without
    /// limits), for progress reports.
    #[must_use]
    pub fn progress(&self, used: &Usage, elapsed: Duration) -> f64 {
        #[allow(clippy::cast_precision_loss)]
        let parts = [
            self.time
                .map(|t| elapsed.as_secs_f64() / t.as_secs_f64().max(1e-9)),
            self.statements
                .map(|s| used.statements as f64 / (s.max(1)) as f64),
            self.evaluations
                .map(|e| used.evaluations as f64 / (e.max(1)) as f64),
        ];
        parts.into_iter().flatten().fold(0.0, f64::max).min(1.0)
    }
}
