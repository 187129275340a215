//! MIO, the Many Independent Objective algorithm (Arcuri, "Test suite generation with the Many
//! Independent Objective (MIO) algorithm", IST 2018; the default of `EvoMaster`), for ferrosuite: an
//! [`Algorithm`] built on `ferrosuite-search`'s public interface only, registered by name
//! (`mio`) with [`register`].
//!
//! MIO keeps one population of tests per uncovered target ([`archive`]). Each step either
//! samples a new random test (probability `P_r`) or takes a test from the population of the
//! target sampled least often since it last improved, and mutates it `m` times, each mutant run
//! and offered to every target; a mutant replaces the test it came from when it is not worse
//! (better on some target, or equal everywhere and not longer), else it is dropped. The
//! parameters move linearly from exploration to a focused search as the budget is used: until
//! the share `F` of the budget, `P_r` goes from 0.5 to 0, the population size `n` from 10 to 1
//! and `m` from 1 to 10; after it they stay there (a hill climb on the least-sampled target).
//! The result is what the search's coverage archive holds: the shortest test per covered goal.
//!
//! ```text
//! budget used   0 %        25 %       50 % (F) … 100 %
//! P_r           0.5        0.25       0
//! n             10         6 (5.5)    1
//! m             1          6 (5.5)    10
//! ```
//!
//! A target's heuristic value is `h = 1 / (1 + d)`, `d` the goal's per-test fitness (approach
//! level + normalised branch distance; 0 when covered), so `h = 1` exactly when covered.
//!
//! One adaptation for ferrosuite's execution host, which runs tests in batches: MIO's steps are
//! taken in `lanes` independent chains at once (default 64), each chain one sampled test and its
//! mutants; a round builds one test per chain, streams them to the host in chunks, and takes
//! each result in (in chain order) as soon as its chunk is back, while later chunks run. With
//! one lane this is the paper's sequence of steps. A round has a fixed cost (a stream opened on
//! the host, the workers woken), so more lanes run more tests per second: on commons-lang3's
//! Conversion 16 lanes ran 106k statements/s and 64 lanes 203k, with the same coverage at 10 s
//! (`search-bench --algorithm mio --seconds 10`). Everything random comes from the run's RNG in
//! a fixed order, so a seed and a statement budget give the same suite.
//!
//! ```no_run
//! use ferrosuite_search::engine::Algorithms;
//! let mut algorithms = Algorithms::builtin();
//! ferrosuite_mio::register(&mut algorithms)?;
//! let mio = algorithms.get("mio")?;
//! assert_eq!(mio.name(), "mio");
//! # Ok::<(), ferrosuite_search::Error>(())
//! ```

pub mod archive;
pub mod error;

use std::sync::Arc;

use ferrosuite_fitness::{GoalId, GoalSet};
use ferrosuite_search::engine::{Algorithm, Algorithms, Chunk, Run, dominates};
use ferrosuite_search::mutation::mutate_test;
use ferrosuite_search::random::chance;
use ferrosuite_search::{Error as SearchError, Result as SearchResult, TestId};
use ferrosuite_testcase::Test;
use serde::{Deserialize, Serialize};

use archive::{Held, MioArchive};
pub use error::{Error, Result};

/// MIO's parameters, with the paper's defaults.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MioConfig {
    /// `P_r` at the start: the probability of a new random test instead of one from the
    /// archive (paper: 0.5; it falls linearly to 0 at [`focus_start`](Self::focus_start)).
    pub random_probability: f64,
    /// `n` at the start: the most tests per target (paper: 10; it falls to 1).
    pub population: usize,
    /// `m` once focused: mutations of a sampled test, each run (paper: 10; it rises from 1).
    pub mutations: usize,
    /// `F`: the share of the budget after which the search is focused (paper: 0.5).
    pub focus_start: f64,
    /// Chains of steps taken at once, one test each per round (see the crate documentation; 1 is
    /// the paper's sequence; default 64).
    pub lanes: usize,
}

impl Default for MioConfig {
    fn default() -> Self {
        MioConfig {
            random_probability: 0.5,
            population: 10,
            mutations: 10,
            focus_start: 0.5,
            lanes: 64,
        }
    }
}

impl MioConfig {
    /// Checks the parameters.
    pub fn validate(&self) -> Result<()> {
        if !(0.0..=1.0).contains(&self.random_probability) {
            return Err(Error::Config("random_probability: in [0, 1]".into()));
        }
        if !(self.focus_start > 0.0 && self.focus_start <= 1.0) {
            return Err(Error::Config("focus_start: in (0, 1]".into()));
        }
        if self.population == 0 || self.mutations == 0 || self.lanes == 0 {
            return Err(Error::Config(
                "population, mutations and lanes: at least 1".into(),
            ));
        }
        Ok(())
    }

    /// `(P_r, n, m)` once the share `used` of the budget is spent: linear from the start
    /// values to the focused ones (0, 1, `mutations`) until `focus_start`, then those; `n` and
    /// `m` rounded to the nearest integer.
    #[must_use]
    pub fn schedule(&self, used: f64) -> (f64, usize, usize) {
        let t = (used / self.focus_start).clamp(0.0, 1.0);
        let lerp = |from: f64, to: f64| from + t * (to - from);
        let p = lerp(self.random_probability, 0.0);
        #[allow(clippy::cast_precision_loss)]
        let n = lerp(self.population as f64, 1.0).round() as usize;
        #[allow(clippy::cast_precision_loss)]
        let m = lerp(1.0, self.mutations as f64).round() as usize;
        (p, n.max(1), m.max(1))
    }
}

/// The MIO algorithm with its parameters.
#[derive(Debug, Clone, Default)]
pub struct Mio {
    /// Its parameters.
    pub config: MioConfig,
}

/// Registers MIO (default parameters) as `mio`.
pub fn register(algorithms: &mut Algorithms) -> SearchResult<()> {
    algorithms.register(Arc::new(Mio::default()))
}

/// Rounds in a row without a test after which the search gives up (the last ones sampling
/// random tests only): the cluster cannot build one.
const MAX_BARREN_ROUNDS: usize = 50;

/// One chain of steps: the test the mutants come from, its fitness over the targets it was
/// last compared on, and the mutations left.
struct Chain {
    current: Held,
    targets: Arc<[GoalId]>,
    fitness: Vec<f64>,
    left: usize,
}

/// What a lane runs this round.
#[derive(Debug, Clone, Copy)]
enum Step {
    /// A new random test.
    Random,
    /// A mutant of the lane's chain.
    Mutant,
}

impl Algorithm for Mio {
    fn name(&self) -> &'static str {
        "mio"
    }

    fn summary(&self) -> &'static str {
        "MIO: a population per target, feedback-directed sampling, focused search after half the budget"
    }

    fn search(&self, run: &mut Run<'_, '_, '_>) -> SearchResult<()> {
        self.config.validate().map_err(|e| match e {
            Error::Config(what) => SearchError::Config(format!("mio: {what}")),
        })?;
        let lanes = self.config.lanes;
        let mut archive = MioArchive::default();
        let mut chains: Vec<Option<Chain>> = (0..lanes).map(|_| None).collect();
        let mut open: Arc<[GoalId]> = Arc::from(Vec::new());
        // Rounds in a row that built no test (every mutant unchanged or empty, no random test
        // built): the next round samples random tests only, and many of them end the search.
        let mut barren = 0usize;
        while !run.done() {
            let (scheduled, n, m) = self.config.schedule(run.eval.progress());
            let p_random = if barren > 0 { 1.0 } else { scheduled };
            // Targets are the goals the coverage archive does not cover (exception goals
            // found on the way are covered by the test that found them). The list is shared
            // by the chains while it stays the same.
            let now: Vec<GoalId> = run
                .eval
                .goals()
                .goals()
                .iter()
                .map(|g| g.id)
                .filter(|g| !run.archive.covers(*g))
                .collect();
            if *open != *now {
                open = Arc::from(now);
            }
            for g in run.eval.goals().goals().iter().map(|g| g.id) {
                if run.archive.covers(g) && !archive.is_covered(g) {
                    archive.cover(g);
                }
            }
            // One test per lane, in lane order.
            let mut steps: Vec<(usize, Step, TestId, Arc<Test>)> = Vec::with_capacity(lanes);
            for (lane, chain) in chains.iter_mut().enumerate() {
                if chain.as_ref().is_none_or(|c| c.left == 0) {
                    *chain = None;
                    if !chance(run.rng, p_random)
                        && let Some((_, held)) = archive.sample(n, run.rng)
                    {
                        let fitness = run.eval.goals().fitness_vector(&open, &held.trace);
                        *chain = Some(Chain {
                            current: held,
                            targets: Arc::clone(&open),
                            fitness,
                            left: m,
                        });
                    }
                }
                match chain {
                    None => match run.factory.random_test(run.rng) {
                        Ok(t) => steps.push((lane, Step::Random, run.ids.fresh(), Arc::new(t))),
                        Err(SearchError::Construction { .. }) => {}
                        Err(e) => return Err(e),
                    },
                    Some(c) => {
                        c.left -= 1;
                        let mut mutant = Test::clone(&c.current.test);
                        let changed = mutate_test(run.factory, &mut mutant, run.rng)?;
                        if changed && !mutant.is_empty() {
                            steps.push((lane, Step::Mutant, run.ids.fresh(), Arc::new(mutant)));
                        }
                    }
                }
            }
            if steps.is_empty() {
                barren += 1;
                if barren > MAX_BARREN_ROUNDS {
                    // Nothing can be built: more attempts would not change that.
                    return Err(SearchError::Construction {
                        cut: run.factory.cluster().cut.clone(),
                        attempts: barren * lanes,
                    });
                }
                continue;
            }
            barren = 0;
            let tests_before = run.eval.usage().tests;
            // The round's tests go to the host in chunks; each is taken in (its distances to
            // the open targets, the archive, its lane's chain) as soon as its chunk is back,
            // in lane order, while the later chunks run.
            let mut next = 0;
            let steps = &steps;
            run.execute_streamed(
                |_, _, _, want| {
                    if next >= steps.len() {
                        return Ok(None);
                    }
                    let end = next.saturating_add(want.max(1)).min(steps.len());
                    let chunk: Chunk = steps[next..end]
                        .iter()
                        .map(|(_, _, id, t)| (*id, Arc::clone(t)))
                        .collect();
                    next = end;
                    Ok(Some(chunk))
                },
                |goals, id, trace| {
                    let Ok(k) = steps.binary_search_by_key(&id, |s| s.2) else {
                        return;
                    };
                    let (lane, step, _, test) = &steps[k];
                    let held = Held {
                        id,
                        test: Arc::clone(test),
                        trace: Arc::clone(trace),
                    };
                    take_in(
                        goals,
                        &mut archive,
                        &mut chains[*lane],
                        *step,
                        &open,
                        held,
                        n,
                    );
                },
                |_| {},
                |_| false,
            )?;
            run.eval.usage_mut().evaluations += run.eval.usage().tests - tests_before;
            // The populations hold their tests' traces: the evaluator keeps none.
            run.eval.retain(|_| false);
            run.generation(None);
        }
        Ok(())
    }
}

/// Takes in a test that ran (`held`), built for `step` of a lane whose chain is `chain`: its
/// distances to the open targets; a random test is offered to the archive; a mutant is offered
/// and goes on as its chain's test when it reaches a target never reached before or is not
/// worse than the test it came from (compared on the targets open now: those covered since the
/// chain started no longer matter), else it is dropped.
fn take_in(
    goals: &GoalSet,
    archive: &mut MioArchive,
    chain: &mut Option<Chain>,
    step: Step,
    open: &Arc<[GoalId]>,
    held: Held,
    n: usize,
) {
    let fitness = goals.fitness_vector(open, &held.trace);
    match step {
        Step::Random => offer(goals, archive, open, &fitness, &held, n),
        Step::Mutant => {
            let Some(chain) = chain.as_mut() else {
                return;
            };
            if !Arc::ptr_eq(&chain.targets, open) {
                chain.fitness = goals.fitness_vector(open, &chain.current.trace);
                chain.targets = Arc::clone(open);
            }
            let reached_new = open.iter().any(|g| {
                !archive.is_covered(*g)
                    && archive.population(*g).is_none()
                    && goals.reached(*g, &held.trace)
            });
            if reached_new || !subsumes(&chain.current, &chain.fitness, &held, &fitness) {
                offer(goals, archive, open, &fitness, &held, n);
                chain.current = held;
                chain.fitness = fitness;
            }
        }
    }
}

/// Offers a test that ran to every open target (`fitness` its distance to each), with
/// `h = 1 / (1 + d)` when it reached the target's code and 0 (not added) when it did not.
/// (A target it covers leaves the archive; the coverage archive, which every test run is
/// offered to, keeps the test.)
fn offer(
    goals: &GoalSet,
    archive: &mut MioArchive,
    open: &[GoalId],
    fitness: &[f64],
    held: &Held,
    n: usize,
) {
    for (g, d) in open.iter().zip(fitness) {
        let h = if d.is_finite() && goals.reached(*g, &held.trace) {
            1.0 / (1.0 + d)
        } else {
            0.0
        };
        archive.offer(*g, h, held, n);
    }
}

/// Whether `a` (with fitness `fa` over a chain's targets) subsumes `b`: no worse on any target
/// and better on one (it dominates), or as good everywhere and shorter.
fn subsumes(a: &Held, fa: &[f64], b: &Held, fb: &[f64]) -> bool {
    dominates(fa, fb) || (a.test.len() < b.test.len() && fa.iter().zip(fb).all(|(x, y)| x <= y))
}

#[cfg(test)]
#[allow(clippy::float_cmp)]
mod tests {
    use super::MioConfig;

    #[test]
    fn parameters_move_linearly_to_the_focused_search() {
        let c = MioConfig::default();
        assert_eq!(c.schedule(0.0), (0.5, 10, 1));
        let (p, n, m) = c.schedule(0.25);
        assert!((p - 0.25).abs() < 1e-12);
        // 5.5 rounds to 6 both ways.
        assert_eq!((n, m), (6, 6));
        assert_eq!(c.schedule(0.5), (0.0, 1, 10));
        assert_eq!(c.schedule(0.9), (0.0, 1, 10));
        assert!(c.validate().is_ok());
        assert!(
            MioConfig {
                lanes: 0,
                ..MioConfig::default()
            }
            .validate()
            .is_err()
        );
    }
}
