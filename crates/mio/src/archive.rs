//! MIO's archive: for each uncovered target a population of at most `n` tests, each with its
//! heuristic value `h` in \[0, 1\] for the target (1: covered), and a counter of the times the
//! target was sampled since it last improved.
//!
//! A test offered for a target (rule by rule, the first that applies):
//!
//! 1. `h = 0`: not added (it says nothing about the target);
//! 2. `h = 1`: the target is covered — its population is dropped and it is never sampled
//!    again (the search's coverage archive keeps the shortest covering test);
//! 3. an empty population: the test is added, and the counter reset (an improvement);
//! 4. otherwise the population is cut to its best `n` (a lower `h` is worse; at equal `h`,
//!    longer is worse) and the test is *better* than the worst when its `h` is higher, or
//!    equal and it is shorter; a better test resets the counter (the paper resets it when a
//!    better test enters the population; "better than the worst" is the reading of
//!    `EvoMaster`). With room it is added; without, it replaces the worst when better or
//!    equivalent (same `h`, same length).
//!
//! Sampling picks, among the targets with a population, one with the lowest counter (ties at
//! random), increments its counter, and returns one of its tests at random.
//!
//! ```text
//! n = 2, target t:  offer a (h .3)      -> [a]          counter 0
//!                   offer b (h .5)      -> [a b]        counter 0 (better than a)
//!                   offer c (h .4)      -> [c b]        (replaces a, the worst)
//!                   offer d (h .2)      -> [c b]        (worse than c: dropped)
//!                   offer e (h 1)       -> covered: t leaves the archive
//! ```

use std::sync::Arc;

use ferrosuite_fitness::{GoalId, Trace};
use ferrosuite_search::TestId;
use ferrosuite_search::random::{Rng, index};
use ferrosuite_testcase::Test;

/// A test held by populations, with its trace (for the fitness of later comparisons).
#[derive(Debug, Clone)]
pub struct Held {
    /// Its id.
    pub id: TestId,
    /// The test.
    pub test: Arc<Test>,
    /// Its trace.
    pub trace: Arc<Trace>,
}

impl Held {
    fn len(&self) -> usize {
        self.test.len()
    }
}

/// One test of a population, with its heuristic value for the population's target.
#[derive(Debug, Clone)]
struct Member {
    held: Held,
    h: f64,
}

/// Whether `a` is worse than `b` for a target: lower `h`, or the same `h` and longer.
fn worse(a: &Member, b: &Member) -> bool {
    a.h.total_cmp(&b.h)
        .then(b.held.len().cmp(&a.held.len()))
        .is_lt()
}

/// A target's population and counter.
#[derive(Debug, Clone, Default)]
struct Population {
    members: Vec<Member>,
    counter: u64,
}

impl Population {
    /// The population cut to its best `n` (the worst dropped first; among equals the later
    /// added goes first).
    fn shrink(&mut self, n: usize) {
        while self.members.len() > n.max(1) {
            if let Some(w) = self.worst() {
                self.members.remove(w);
            }
        }
    }

    /// The index of the worst member (the last of equals).
    fn worst(&self) -> Option<usize> {
        let mut w: Option<usize> = None;
        for (i, m) in self.members.iter().enumerate() {
            if w.is_none_or(|w| !worse(&self.members[w], m)) {
                w = Some(i);
            }
        }
        w
    }
}

/// What an offer did for a target.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Offered {
    /// Not added.
    Ignored,
    /// Added or put in place of the worst (`true`: an improvement, the counter was reset).
    Added(bool),
    /// The test covers the target: it left the archive.
    Covered,
}

/// The archive (see the module documentation). Targets are goal ids (dense, so a vector
/// indexes them); a target without a population and not covered has never been reached.
#[derive(Debug, Clone, Default)]
pub struct MioArchive {
    populations: Vec<Option<Population>>,
    covered: Vec<bool>,
}

impl MioArchive {
    /// Offers `held` for `target` with heuristic value `h`, under population size `n`.
    pub fn offer(&mut self, target: GoalId, h: f64, held: &Held, n: usize) -> Offered {
        let i = target.index();
        if self.covered.get(i).copied().unwrap_or(false) || h <= 0.0 {
            return Offered::Ignored;
        }
        if self.populations.len() <= i {
            self.populations.resize_with(i + 1, || None);
            self.covered.resize(i + 1, false);
        }
        if h >= 1.0 {
            self.covered[i] = true;
            self.populations[i] = None;
            return Offered::Covered;
        }
        let member = Member {
            held: held.clone(),
            h,
        };
        let pop = self.populations[i].get_or_insert_with(Population::default);
        if pop.members.is_empty() {
            pop.members.push(member);
            pop.counter = 0;
            return Offered::Added(true);
        }
        pop.shrink(n);
        let Some(w) = pop.worst() else {
            return Offered::Ignored;
        };
        let worst = &pop.members[w];
        let better = worse(worst, &member);
        let equivalent =
            member.h.total_cmp(&worst.h).is_eq() && member.held.len() == worst.held.len();
        if better {
            pop.counter = 0;
        }
        if pop.members.len() < n.max(1) {
            pop.members.push(member);
            Offered::Added(better)
        } else if better || equivalent {
            pop.members[w] = member;
            Offered::Added(better)
        } else {
            Offered::Ignored
        }
    }

    /// Marks `target` covered (by a test the coverage archive holds): it leaves the archive.
    pub fn cover(&mut self, target: GoalId) {
        let i = target.index();
        if self.populations.len() <= i {
            self.populations.resize_with(i + 1, || None);
            self.covered.resize(i + 1, false);
        }
        self.covered[i] = true;
        self.populations[i] = None;
    }

    /// Whether `target` is covered.
    #[must_use]
    pub fn is_covered(&self, target: GoalId) -> bool {
        self.covered.get(target.index()).copied().unwrap_or(false)
    }

    /// A test to start from: among the targets with a population, one with the lowest counter
    /// (ties at random), whose counter goes up; from its population (cut to `n` first) a test at
    /// random. `None` when no target has a population.
    pub fn sample<R: Rng + ?Sized>(&mut self, n: usize, rng: &mut R) -> Option<(GoalId, Held)> {
        let mut lowest = u64::MAX;
        let mut ties: Vec<usize> = Vec::new();
        for (i, p) in self.populations.iter().enumerate() {
            let Some(p) = p.as_ref().filter(|p| !p.members.is_empty()) else {
                continue;
            };
            if p.counter < lowest {
                lowest = p.counter;
                ties.clear();
            }
            if p.counter == lowest {
                ties.push(i);
            }
        }
        if ties.is_empty() {
            return None;
        }
        let t = ties[index(rng, ties.len())];
        let pop = self.populations[t].as_mut()?;
        pop.counter += 1;
        pop.shrink(n);
        let m = &pop.members[index(rng, pop.members.len())];
        Some((GoalId(u32::try_from(t).ok()?), m.held.clone()))
    }

    /// The targets with a population, in id order.
    pub fn targets(&self) -> impl Iterator<Item = GoalId> + '_ {
        self.populations
            .iter()
            .enumerate()
            .filter(|(_, p)| p.as_ref().is_some_and(|p| !p.members.is_empty()))
            .filter_map(|(i, _)| u32::try_from(i).ok().map(GoalId))
    }

    /// The ids of every test a population holds.
    pub fn held_ids(&self) -> impl Iterator<Item = TestId> + '_ {
        self.populations
            .iter()
            .flatten()
            .flat_map(|p| p.members.iter().map(|m| m.held.id))
    }

    /// The size of a target's population and its counter (for tests and reports).
    #[must_use]
    pub fn population(&self, target: GoalId) -> Option<(usize, u64)> {
        self.populations
            .get(target.index())?
            .as_ref()
            .map(|p| (p.members.len(), p.counter))
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::float_cmp)]
mod tests {
    use std::sync::Arc;

    use ferrosuite_fitness::{GoalId, Trace};
    use ferrosuite_search::TestId;
    use ferrosuite_testcase::{Prim, Statement, Test};
    use rand_chacha::ChaCha8Rng;
    use rand_chacha::rand_core::SeedableRng;

    use super::{Held, MioArchive, Offered};

    fn held(id: u64, len: usize) -> Held {
        Held {
            id: TestId(id),
            test: Arc::new(Test::new(vec![Statement::Primitive(Prim::Int(1)); len])),
            trace: Arc::new(Trace::default()),
        }
    }

    const T: GoalId = GoalId(3);

    #[test]
    fn the_module_example_holds() {
        let mut a = MioArchive::default();
        assert_eq!(a.offer(T, 0.3, &held(1, 3), 2), Offered::Added(true));
        assert_eq!(a.offer(T, 0.5, &held(2, 3), 2), Offered::Added(true));
        assert_eq!(a.offer(T, 0.4, &held(3, 3), 2), Offered::Added(true));
        let mut ids: Vec<u64> = a.held_ids().map(|i| i.0).collect();
        ids.sort_unstable();
        assert_eq!(ids, [2, 3]);
        assert_eq!(a.offer(T, 0.2, &held(4, 3), 2), Offered::Ignored);
        assert_eq!(a.offer(T, 0.0, &held(5, 3), 2), Offered::Ignored);
        assert_eq!(a.offer(T, 1.0, &held(6, 3), 2), Offered::Covered);
        assert!(a.is_covered(T) && a.targets().next().is_none());
        // Covered targets take nothing more.
        assert_eq!(a.offer(T, 0.9, &held(7, 3), 2), Offered::Ignored);
    }

    #[test]
    fn shorter_is_better_at_equal_h_and_equivalent_tests_replace_the_worst() {
        let mut a = MioArchive::default();
        a.offer(T, 0.5, &held(1, 5), 1);
        // Equal h, shorter: better (the counter resets), and it replaces.
        assert_eq!(a.offer(T, 0.5, &held(2, 4), 1), Offered::Added(true));
        // Equal h and length: equivalent, it replaces without an improvement.
        assert_eq!(a.offer(T, 0.5, &held(3, 4), 1), Offered::Added(false));
        // Longer at equal h: worse.
        assert_eq!(a.offer(T, 0.5, &held(4, 6), 1), Offered::Ignored);
        assert_eq!(a.held_ids().map(|i| i.0).collect::<Vec<_>>(), [3]);
    }

    #[test]
    fn sampling_takes_the_least_sampled_target_and_shrinks_to_n() {
        let mut a = MioArchive::default();
        let (t1, t2) = (GoalId(0), GoalId(1));
        for k in 0..4 {
            a.offer(t1, 0.1 + 0.1 * k as f64, &held(k, 2), 10);
        }
        a.offer(t2, 0.5, &held(9, 2), 10);
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        let mut seen = [0, 0];
        for _ in 0..6 {
            let (t, _) = a.sample(2, &mut rng).unwrap();
            seen[t.index()] += 1;
        }
        // The counters alternate: each target is sampled in turn.
        assert_eq!(seen, [3, 3]);
        // t1 was cut to its best two when sampled.
        assert_eq!(a.population(t1), Some((2, 3)));
        let mut ids: Vec<u64> = a.held_ids().map(|i| i.0).collect();
        ids.sort_unstable();
        assert_eq!(ids, [2, 3, 9]);
        // An improvement resets the counter.
        a.offer(t1, 0.9, &held(20, 2), 2);
        assert_eq!(a.population(t1), Some((2, 0)));
        assert!(MioArchive::default().sample(2, &mut rng).is_none());
    }
}
