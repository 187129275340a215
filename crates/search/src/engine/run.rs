//! One search in progress ([`Run`]): what the algorithms share — running tests and offering
//! them to the archive (in a batch, or streamed while the next tests are built), the stop
//! condition, progress reports — and what a search produces ([`SearchResult`]).

use std::collections::BTreeSet;
use std::sync::Arc;
use std::time::Duration;

use ferrosuite_fitness::{GoalId, GoalSet, Trace};
use ferrosuite_testcase::Test;
use ferrosuite_testcase::statement::{JFloat, Prim};
use rand_chacha::ChaCha8Rng;
use serde::Serialize;

use super::{Archive, Chunk, EngineConfig, Evaluator, Minimised, Scoring, Usage};
use crate::error::Result;
use crate::factory::Factory;
use crate::suite::{TestId, TestIds};

/// A progress report, after each generation.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Progress {
    /// The algorithm's name.
    pub algorithm: &'static str,
    /// Resources used.
    pub usage: Usage,
    /// Goals covered by the archive.
    pub covered: usize,
    /// Goals known (grows with exception goals).
    pub goals: usize,
    /// Best fitness of the population (whole-suite fitness for the GA), if the algorithm has
    /// one.
    pub best_fitness: Option<f64>,
    /// Share of the budget used, in \[0, 1\].
    pub budget_used: f64,
    /// Wall time so far.
    pub elapsed: Duration,
}

/// Receives progress reports (statistics, progress bars). Closures taking a [`Progress`] are
/// observers.
pub trait Observer {
    /// Called after each generation.
    fn generation(&mut self, progress: &Progress);
}

impl<F: FnMut(&Progress)> Observer for F {
    fn generation(&mut self, progress: &Progress) {
        self(progress);
    }
}

/// An observer that ignores every report.
#[derive(Debug, Clone, Copy, Default)]
pub struct Quiet;

impl Observer for Quiet {
    fn generation(&mut self, _: &Progress) {}
}

/// What a search produced.
#[derive(Debug, Clone, Serialize)]
pub struct SearchResult {
    /// The algorithm's name.
    pub algorithm: &'static str,
    /// The archive's tests (one per covered goal at most, shortest found), minimised when
    /// configured.
    pub tests: Vec<Test>,
    /// What minimisation did (`None` when it was off).
    pub minimised: Option<Minimised>,
    /// Goals covered by those tests.
    pub covered: Vec<GoalId>,
    /// Goals known at the end.
    pub goals: usize,
    /// Resources used by the search (minimisation not included).
    pub usage: Usage,
    /// Wall time of the search (minimisation not included).
    pub elapsed: Duration,
    /// Wall time of the search spent in the execution host (minimisation not included).
    pub in_host: Duration,
    /// Wall time of the search inside calls that run tests, streams included while the host
    /// waits in them for the search ([`Evaluator::in_calls`]); `elapsed − in_calls` is the
    /// time between such calls (between generations), when the host cannot work.
    pub in_calls: Duration,
}

/// One search in progress, what an [`Algorithm`](super::Algorithm) works on: the fields are
/// public so that an algorithm can borrow several at once (the factory and the RNG to build a
/// test, say).
pub struct Run<'a, 'f, 'h> {
    /// Builds and changes tests (the test cluster and the operators' parameters).
    pub factory: &'a mut Factory<'f>,
    /// Runs tests and keeps their traces, the goals and the books (usage, times).
    pub eval: &'a mut Evaluator<'h>,
    /// The one source of randomness of the search.
    pub rng: &'a mut ChaCha8Rng,
    /// The best test per covered goal: every test run through [`Run::execute`] or
    /// [`Run::execute_streamed`] is offered to it; its tests are the search's result.
    pub archive: Archive,
    /// Fresh test ids (a changed test gets a new one: traces are cached by id).
    pub ids: TestIds,
    /// The engine's parameters.
    pub config: &'a EngineConfig,
    pub(super) algorithm: &'static str,
    pub(super) observer: &'a mut dyn Observer,
}

impl Run<'_, '_, '_> {
    /// Runs tests not run before and offers them to the archive.
    pub fn execute(&mut self, tests: &[(TestId, &Test)]) -> Result<()> {
        // The evaluator returns the tests it ran in the order given: one pass pairs them up.
        let mut given = tests.iter();
        for (id, trace) in self.eval.run(tests)? {
            if let Some((_, t)) = given.find(|(i, _)| *i == id) {
                self.archive.offer(self.eval.goals(), id, t, &trace);
            }
        }
        self.seed_compared();
        Ok(())
    }

    /// [`execute`](Self::execute) for tests built while earlier ones run (see
    /// [`Evaluator::run_streamed`]): `produce` gets the factory, the RNG, the id source and
    /// how many tests the chunk should have, and returns the next chunk, or `None` when the
    /// generation is complete. The first chunk of a call is a quarter of `stream_chunk`
    /// (rounded up), the others `stream_chunk`: the worker waits for the first chunk, so it
    /// should come soon; later ones are built while it runs. With
    /// `stream_chunk` 0 every chunk is built first and the tests run in one batch (what the
    /// streaming overlaps is then done in sequence; the tests are the same).
    ///
    /// The archive, and then `on_trace`, take in each test that ran with its trace, in the
    /// order produced: while streaming as soon as its chunk's results are in (so this work
    /// overlaps the next chunks' runs), otherwise after the batch. `after_chunk` is called
    /// after each chunk is taken in (once after the batch without streaming), to score suites
    /// whose tests have run; `idle` while the search waits for results (see
    /// [`Evaluator::run_streamed`]; never without streaming).
    pub fn execute_streamed(
        &mut self,
        mut produce: impl FnMut(
            &mut Factory<'_>,
            &mut ChaCha8Rng,
            &mut TestIds,
            usize,
        ) -> Result<Option<Chunk>>,
        mut on_trace: impl FnMut(&GoalSet, TestId, &Arc<Trace>),
        mut after_chunk: impl FnMut(&mut Scoring<'_>),
        idle: impl FnMut(&mut Scoring<'_>) -> bool,
    ) -> Result<()> {
        if self.config.stream_chunk == 0 {
            let mut all: Chunk = Vec::new();
            while let Some(chunk) = produce(self.factory, self.rng, &mut self.ids, usize::MAX)? {
                all.extend(chunk);
            }
            let mut seen = BTreeSet::new();
            let fresh: Vec<TestId> = all
                .iter()
                .map(|(id, _)| *id)
                .filter(|id| self.eval.trace(*id).is_none() && seen.insert(*id))
                .collect();
            let refs: Vec<(TestId, &Test)> = all.iter().map(|(id, t)| (*id, &**t)).collect();
            self.execute(&refs)?;
            for id in fresh {
                if let Some(trace) = self.eval.trace(id) {
                    on_trace(self.eval.goals(), id, trace);
                }
            }
            self.eval.scoring(&mut after_chunk);
            return Ok(());
        }
        let (factory, rng, ids) = (&mut *self.factory, &mut *self.rng, &mut self.ids);
        let chunk = self.config.stream_chunk;
        let mut want = chunk.div_ceil(4);
        let archive = &mut self.archive;
        self.eval.run_streamed(
            self.config.stream_ahead,
            self.config.score_ahead,
            || produce(factory, rng, ids, std::mem::replace(&mut want, chunk)),
            |goals, id, test, trace| {
                archive.offer(goals, id, test, trace);
                on_trace(goals, id, trace);
            },
            after_chunk,
            idle,
        )?;
        self.seed_compared();
        Ok(())
    }

    /// Feeds the values the tests compared to the factory's observed pool.
    fn seed_compared(&mut self) {
        // What the code compared becomes seeds (the whole-suite paper's values observed at run
        // time): a string the code under test compares an argument with, a number it checks.
        // Harvested constants are seeds already: the pool keeps what only execution shows.
        // (A value the code derives from the clock or an identity hash enters the pool too;
        // such a value already moves branch distances, so the search was not reproducible on
        // that code before the pool either.)
        let mut fresh: Vec<Prim> = Vec::new();
        for v in self.eval.take_compared() {
            if let Prim::Double(d) = &v {
                // The probes report float operands widened: a double a float holds exactly may
                // have been one, so it is a float seed too.
                #[allow(clippy::cast_possible_truncation)]
                let x = d.0 as f32;
                if f64::from(x).to_bits() == d.0.to_bits() {
                    fresh.push(Prim::Float(JFloat(x)));
                }
            }
            fresh.push(v);
        }
        let constants = &self.factory.seeds().constants;
        fresh.retain(|v| !constants.contains(v));
        let pool = self.factory.observed_mut();
        for v in &fresh {
            pool.add(v);
        }
        // The mocks' calls, for the stubs to follow at the next mutation, and the budget
        // spent, after which optional mocks start.
        let calls = self.eval.take_mock_calls();
        self.factory.add_mock_feedback(calls);
        // What of the controlled environment the code used: its statements join the search.
        let used = self.eval.take_resources();
        self.factory.add_environment_feedback(&used);
        self.factory.set_progress(self.eval.progress());
    }

    /// Whether every known goal is covered.
    #[must_use]
    pub fn all_covered(&self) -> bool {
        self.archive.covered_count() >= self.eval.goals().goals().len()
    }

    /// Whether to stop: budget spent or nothing left to cover.
    #[must_use]
    pub fn done(&self) -> bool {
        self.eval.exhausted() || self.all_covered()
    }

    /// Counts a generation and reports progress.
    pub fn generation(&mut self, best_fitness: Option<f64>) {
        self.eval.usage_mut().generations += 1;
        let p = Progress {
            algorithm: self.algorithm,
            usage: self.eval.usage(),
            covered: self.archive.covered_count(),
            goals: self.eval.goals().goals().len(),
            best_fitness,
            budget_used: self.eval.progress(),
            elapsed: self.eval.elapsed(),
        };
        self.observer.generation(&p);
    }
}
