//! The archive: for every covered goal, the shortest test found that covers it.
//!
//! Every executed test is offered to the archive. A test replaces the one kept for a goal when
//! it has fewer last-resort statements (mocks, private access, the library's non-public
//! members and classes: [`LastResorts`]), or as many and is shorter (ties keep the
//! older test, so the archive only changes for a reason). The final suite of every algorithm
//! is the archive's distinct tests, in the order of the goals they were kept for.
//!
//! ```
//! use ferrosuite_search::engine::Archive;
//! let archive = Archive::default();
//! assert_eq!(archive.covered_count(), 0);
//! assert!(archive.tests().is_empty());
//! ```

use std::collections::BTreeSet;
use std::sync::Arc;

use ferrosuite_fitness::{GoalId, GoalSet, Trace};
use ferrosuite_testcase::Test;

use crate::mocks::LastResorts;
use crate::suite::TestId;

/// A kept test.
#[derive(Debug, Clone)]
pub struct Kept {
    /// Its id.
    pub id: TestId,
    /// The test.
    pub test: Test,
    /// Its trace.
    pub trace: Arc<Trace>,
    /// Its last-resort statements (fewer wins over shorter).
    pub last_resorts: usize,
}

/// The best test per covered goal.
#[derive(Debug, Clone, Default)]
pub struct Archive {
    /// Indexed by goal (goal ids are dense): every executed test is offered, and most of the
    /// goals it covers already have a test, so the look-up is the common case.
    best: Vec<Option<Kept>>,
    covered: usize,
    last_resorts: Arc<LastResorts>,
}

impl Archive {
    /// An empty archive that counts `last_resorts` (the default counts mocks and private
    /// access only).
    #[must_use]
    pub fn with_last_resorts(last_resorts: Arc<LastResorts>) -> Self {
        Archive {
            last_resorts,
            ..Archive::default()
        }
    }

    /// Offers an executed test; returns the goals it newly covered (goals covered before and
    /// only made shorter are not counted). Lost tests (time-out, crash) are not kept.
    pub fn offer(&mut self, goals: &GoalSet, id: TestId, test: &Test, trace: &Arc<Trace>) -> usize {
        if trace.is_lost() {
            return 0;
        }
        let mut new = 0;
        // A test with fewer mocks and private accesses wins, then a shorter one (PAFM: a test
        // without them replaces an equally covering one with them).
        let last_resorts = self.last_resorts.count(test);
        // Each goal on its own: the order does not matter, and a goal met again is kept by
        // this test already (its length is not below itself).
        goals.for_each_covered(trace, |covered| {
            for g in covered {
                let i = g.index();
                if self.best.len() <= i {
                    self.best.resize_with(i + 1, || None);
                }
                let slot = &mut self.best[i];
                match slot {
                    Some(k) if (k.last_resorts, k.test.len()) <= (last_resorts, test.len()) => {}
                    prev => {
                        if prev.is_none() {
                            new += 1;
                        }
                        *prev = Some(Kept {
                            last_resorts,
                            id,
                            test: test.clone(),
                            trace: Arc::clone(trace),
                        });
                    }
                }
            }
        });
        self.covered += new;
        new
    }

    /// Whether a goal is covered.
    #[must_use]
    pub fn covers(&self, goal: GoalId) -> bool {
        self.get(goal).is_some()
    }

    /// Number of covered goals.
    #[must_use]
    pub fn covered_count(&self) -> usize {
        self.covered
    }

    /// The covered goals, in id order.
    pub fn covered(&self) -> impl Iterator<Item = GoalId> + '_ {
        self.best
            .iter()
            .enumerate()
            .filter(|(_, k)| k.is_some())
            .filter_map(|(i, _)| u32::try_from(i).ok().map(GoalId))
    }

    /// The test kept for a goal.
    #[must_use]
    pub fn get(&self, goal: GoalId) -> Option<&Kept> {
        self.best.get(goal.index())?.as_ref()
    }

    /// The distinct kept tests, in the order of the first goal each is kept for.
    #[must_use]
    pub fn tests(&self) -> Vec<&Kept> {
        let mut seen = BTreeSet::new();
        self.best
            .iter()
            .flatten()
            .filter(|k| seen.insert(k.id))
            .collect()
    }
}
