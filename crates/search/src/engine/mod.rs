//! The search algorithms behind one interface, with their shared machinery.
//!
//! A search gets a [`Factory`] (the test cluster and the operators' parameters), an
//! [`Evaluator`] (the execution host and the goals), a seeded RNG and a [`Budget`]; it offers
//! every executed test to the [`Archive`], and its result is the archive's tests. The algorithms
//! ([`AlgorithmKind`]):
//!
//! - **whole-suite GA** (Fraser & Arcuri, Algorithm 1): a population of suites evolved by suite
//!   crossover and mutation under whole-suite fitness, rank selection, elitism, and bloat control
//!   (an offspring longer than twice the best suite is replaced by its parent);
//! - **MOSA** and **DynaMOSA** (Panichella et al.): a population of tests under one objective
//!   per uncovered goal, preference sorting, non-dominated fronts and crowding distance;
//!   DynaMOSA targets only the goals whose controlling branches are covered;
//! - **random search**: random tests until the budget is spent (the baseline);
//! - **single target**: one goal at a time, the budget shared among the goals and
//!   redistributed after each round (the whole-suite paper's comparison).
//!
//! Each generation's new tests go to the host in one batch. With a statement budget only, the
//! same class path, CUT and seed give the same suite (the engine's state depends only on the
//! RNG and on execution results, which are deterministic).
//!
//! ```no_run
//! # use ferrosuite_search::engine::{AlgorithmKind, Budget, EngineConfig, Evaluator, Quiet, search};
//! # fn demo(factory: &mut ferrosuite_search::Factory<'_>, host: &mut dyn ferrosuite_executor::Executor,
//! #         goals: ferrosuite_fitness::GoalSet) -> ferrosuite_search::Result<()> {
//! use rand_chacha::{ChaCha8Rng, rand_core::SeedableRng};
//! let mut eval = Evaluator::new(host, goals, Budget::statements(50_000));
//! let mut rng = ChaCha8Rng::seed_from_u64(1);
//! let config = EngineConfig { algorithm: AlgorithmKind::WholeSuite, ..EngineConfig::default() };
//! let result = search(&config, factory, &mut eval, &mut rng, &mut Quiet)?;
//! println!("{} of {} goals with {} tests", result.covered.len(), result.goals, result.tests.len());
//! # Ok(()) }
//! ```

mod archive;
mod budget;
mod evaluate;
mod minimise;
mod mosa;
mod random_search;
mod single_target;
mod whole_suite;

use std::collections::BTreeSet;
use std::str::FromStr;
use std::sync::Arc;
use std::time::Duration;

use ferrosuite_fitness::{GoalId, GoalSet, Trace};
use ferrosuite_testcase::Test;
use ferrosuite_testcase::statement::{JFloat, Prim};
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

pub use archive::{Archive, Kept};
pub use budget::{Budget, Usage};
pub use evaluate::{Chunk, Evaluator, Prepared, Scoring};
pub use minimise::{Minimised, minimise};

use crate::error::{Error, Result};
use crate::factory::Factory;
use crate::suite::{TestId, TestIds};

/// The search algorithms.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum AlgorithmKind {
    /// The whole-suite GA (Fraser & Arcuri, Algorithm 1).
    WholeSuite,
    /// MOSA: one objective per uncovered goal (Panichella et al.).
    Mosa,
    /// DynaMOSA: MOSA with the goals activated along control dependence.
    #[serde(rename = "dynamosa")]
    DynaMosa,
    /// Random tests, kept by the archive.
    Random,
    /// One goal at a time with budget redistribution (the whole-suite paper's baseline).
    SingleTarget,
}

impl AlgorithmKind {
    /// Every algorithm, in a fixed order.
    pub const ALL: [AlgorithmKind; 5] = [
        AlgorithmKind::WholeSuite,
        AlgorithmKind::Mosa,
        AlgorithmKind::DynaMosa,
        AlgorithmKind::Random,
        AlgorithmKind::SingleTarget,
    ];

    /// The name used on the command line and in reports.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            AlgorithmKind::WholeSuite => "whole-suite",
            AlgorithmKind::Mosa => "mosa",
            AlgorithmKind::DynaMosa => "dynamosa",
            AlgorithmKind::Random => "random",
            AlgorithmKind::SingleTarget => "single-target",
        }
    }
}

impl std::fmt::Display for AlgorithmKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for AlgorithmKind {
    type Err = Error;

    fn from_str(s: &str) -> Result<Self> {
        by_name(&AlgorithmKind::ALL, AlgorithmKind::name, "algorithm", s)
    }
}

/// The one of `all` whose `name` is `s`, or an error naming `what` and the known names.
fn by_name<T: Copy>(all: &[T], name: fn(T) -> &'static str, what: &str, s: &str) -> Result<T> {
    all.iter().copied().find(|t| name(*t) == s).ok_or_else(|| {
        let names: Vec<&str> = all.iter().map(|t| name(*t)).collect();
        Error::Config(format!(
            "unknown {what} `{s}` (known: {})",
            names.join(", ")
        ))
    })
}

/// Parameters of the algorithms (the operators' own are in [`Config`](crate::Config)).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EngineConfig {
    /// Which algorithm.
    pub algorithm: AlgorithmKind,
    /// Suites in the whole-suite GA's population (DESIGN 4.4: 80).
    pub population: usize,
    /// Tests in the population of MOSA and DynaMOSA (EvoSuite: 50).
    pub test_population: usize,
    /// Probability of crossover for a pair of parents (DESIGN 4.4: 0.75).
    pub crossover_rate: f64,
    /// Best individuals copied unchanged into the next generation.
    pub elite: usize,
    /// Minimise the final suite (statements, then redundant tests).
    pub minimise: bool,
    /// Rank selection bias in (1, 2] (EvoSuite's `rank_bias`: 1.7).
    pub rank_bias: f64,
    /// Bloat control: an offspring longer than this many times the best individual is not
    /// accepted (whole-suite paper: 2).
    pub bloat_factor: f64,
    /// Random tests run per batch by random search.
    pub random_batch: usize,
    /// Tests handed to the host at once while the search builds the next ones (every
    /// algorithm: MOSA, DynaMOSA, whole-suite, random, single-target): building overlaps
    /// running, and the next chunk waits in the worker's pipe while the worker runs the
    /// current one; the first chunk of a generation is a quarter of this, so that the worker
    /// starts soon. 0 builds a whole generation before running it. Default 10: on 2 cores,
    /// 1.0–1.34× the statements per second of whole generations (BENCHMARKS.md, issue 5); 5
    /// and 25 did no better (rechecked in the tenth increment: 5, 20 and 40). The tests built
    /// do not depend on it; under a statement budget neither does the suite,
    /// except where the last generation stops (with 0, a generation of more than 128 new
    /// tests stops between batches of 128 once the budget is spent; streamed generations run
    /// to their end).
    pub stream_chunk: usize,
    /// Chunks out at a time while streaming (built, not yet taken in): with this many out,
    /// the search takes the oldest one's results in (and scores what they complete) before
    /// it builds the next. More lets the search build on while the host catches up instead
    /// of waiting for results. The tests built do not depend on it, nor (streamed
    /// generations run to their end) does the suite under a statement budget (a test compares
    /// 1, 3 and 12 for every algorithm); under a time budget the deadline may cut elsewhere.
    /// Default 3: the one the worker runs, the one waiting in its pipe, one more built.
    pub stream_ahead: usize,
    /// What the whole-suite GA does while it waits for the host's results (the other
    /// algorithms have nothing to score ahead). Under a statement or evaluation budget the suite
    /// does not depend on it; under a time budget the deadline may cut elsewhere.
    #[serde(default)]
    pub score_ahead: ScoreAhead,
}

/// Scoring ahead ([`EngineConfig::score_ahead`]): the whole-suite GA scores its offspring in
/// the order bred, each once its tests have run. While it would wait for a chunk's results,
/// it can instead score a later offspring whose tests have all run (one bred from old tests
/// only, or one of a chunk that came back out of order), or prepare one still waiting for a
/// test ([`Scoring::prepare`]: fold what has run, so that only the rest is folded once the
/// results are in). The scores are the same whenever they are computed, so the search does not
/// depend on the mode; only where its time goes does.
///
/// ```text
/// offspring   o1 o2 o3 o4 o5    (chunk 1 ran: o1 o2; chunk 2 out: o3 o4 o5)
/// Off         score o1 o2 | wait | score o3 o4 o5
/// WhileWaiting score o1 o2 | prepare o3, o4, o5 while waiting | finish o3 o4 o5
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ScoreAhead {
    /// Never: each offspring is scored in order once its tests have run.
    Off,
    /// While the search would otherwise wait for results, one offspring at a time, until the
    /// results are in (the default).
    #[default]
    WhileWaiting,
    /// Before each wait for a chunk's results, every offspring bred so far is scored or
    /// prepared ahead, whether or not the results are already in. No faster; it makes the
    /// work ahead happen at every chunk whatever the timing (the search is the same), which is
    /// what tests of it want.
    Always,
}

impl ScoreAhead {
    /// Every mode.
    pub const ALL: [ScoreAhead; 3] = [
        ScoreAhead::Off,
        ScoreAhead::WhileWaiting,
        ScoreAhead::Always,
    ];

    /// The mode's name (`off`, `while-waiting`, `always`).
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            ScoreAhead::Off => "off",
            ScoreAhead::WhileWaiting => "while-waiting",
            ScoreAhead::Always => "always",
        }
    }
}

impl FromStr for ScoreAhead {
    type Err = Error;

    fn from_str(s: &str) -> Result<Self> {
        by_name(&ScoreAhead::ALL, ScoreAhead::name, "score-ahead mode", s)
    }
}

impl Default for EngineConfig {
    fn default() -> Self {
        EngineConfig {
            algorithm: AlgorithmKind::WholeSuite,
            population: 80,
            test_population: 50,
            crossover_rate: 0.75,
            elite: 1,
            minimise: true,
            rank_bias: 1.7,
            bloat_factor: 2.0,
            random_batch: 50,
            stream_chunk: 10,
            stream_ahead: 3,
            score_ahead: ScoreAhead::WhileWaiting,
        }
    }
}

impl EngineConfig {
    /// Checks the parameters.
    pub fn validate(&self) -> Result<()> {
        if self.population < 2 {
            return Err(Error::Config("population: at least 2".into()));
        }
        if self.test_population < 2 {
            return Err(Error::Config("test_population: at least 2".into()));
        }
        if !(0.0..=1.0).contains(&self.crossover_rate) {
            return Err(Error::Config("crossover_rate: in [0, 1]".into()));
        }
        if self.elite >= self.population {
            return Err(Error::Config("elite: below the population size".into()));
        }
        if !(self.rank_bias > 1.0 && self.rank_bias <= 2.0) {
            return Err(Error::Config("rank_bias: in (1, 2]".into()));
        }
        if self.stream_ahead == 0 {
            return Err(Error::Config("stream_ahead: at least 1".into()));
        }
        if self.bloat_factor < 1.0 {
            return Err(Error::Config("bloat_factor: at least 1".into()));
        }
        if self.random_batch == 0 {
            return Err(Error::Config("random_batch: at least 1".into()));
        }
        Ok(())
    }
}

/// A progress report, after each generation.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Progress {
    /// The algorithm.
    pub algorithm: AlgorithmKind,
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
    /// The algorithm.
    pub algorithm: AlgorithmKind,
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

/// State shared by the algorithms during one search.
pub(crate) struct Run<'a, 'f, 'h> {
    pub factory: &'a mut Factory<'f>,
    pub eval: &'a mut Evaluator<'h>,
    pub rng: &'a mut ChaCha8Rng,
    pub archive: Archive,
    pub ids: TestIds,
    pub config: &'a EngineConfig,
    observer: &'a mut dyn Observer,
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
        mut after_chunk: impl FnMut(&mut evaluate::Scoring<'_>),
        idle: impl FnMut(&mut evaluate::Scoring<'_>) -> bool,
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
    }

    /// Whether every known goal is covered.
    pub fn all_covered(&self) -> bool {
        self.archive.covered_count() >= self.eval.goals().goals().len()
    }

    /// Whether to stop: budget spent or nothing left to cover.
    pub fn done(&self) -> bool {
        self.eval.exhausted() || self.all_covered()
    }

    /// Counts a generation and reports progress.
    pub fn generation(&mut self, best_fitness: Option<f64>) {
        self.eval.usage_mut().generations += 1;
        let p = Progress {
            algorithm: self.config.algorithm,
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

/// Runs the configured algorithm until the budget is spent or every goal is covered.
pub fn search(
    config: &EngineConfig,
    factory: &mut Factory<'_>,
    eval: &mut Evaluator<'_>,
    rng: &mut ChaCha8Rng,
    observer: &mut dyn Observer,
) -> Result<SearchResult> {
    config.validate()?;
    factory.config().validate()?;
    let mut run = Run {
        factory,
        eval,
        rng,
        archive: Archive::default(),
        ids: TestIds::new(),
        config,
        observer,
    };
    match config.algorithm {
        AlgorithmKind::WholeSuite => whole_suite::run(&mut run)?,
        AlgorithmKind::Mosa => mosa::run(&mut run, false)?,
        AlgorithmKind::DynaMosa => mosa::run(&mut run, true)?,
        AlgorithmKind::Random => random_search::run(&mut run)?,
        AlgorithmKind::SingleTarget => single_target::run(&mut run)?,
    }
    let search_usage = run.eval.usage();
    let search_elapsed = run.eval.elapsed();
    let search_in_host = run.eval.in_host();
    let search_in_calls = run.eval.in_calls();
    run.eval.freeze_goals();
    let (tests, minimised) = if config.minimise {
        let (t, m) = minimise(run.eval, &run.archive, &mut run.ids)?;
        (t, Some(m))
    } else {
        let t = run
            .archive
            .tests()
            .into_iter()
            .map(|k| k.test.clone())
            .collect();
        (t, None)
    };
    Ok(SearchResult {
        algorithm: config.algorithm,
        tests,
        minimised,
        covered: run.archive.covered().collect(),
        goals: run.eval.goals().goals().len(),
        usage: search_usage,
        elapsed: search_elapsed,
        in_host: search_in_host,
        in_calls: search_in_calls,
    })
}

#[cfg(test)]
#[allow(clippy::expect_used)]
mod tests {
    use super::{EngineConfig, ScoreAhead};

    /// Each mode reads back from its name (the command lines' spelling), and serde spells it
    /// the same; an unknown name is refused with the known ones.
    #[test]
    fn score_ahead_modes_read_back_from_their_names() {
        for mode in ScoreAhead::ALL {
            assert_eq!(mode.name().parse::<ScoreAhead>().ok(), Some(mode));
            let json = serde_json::to_string(&mode).expect("serialises");
            assert_eq!(json, format!("\"{}\"", mode.name()));
        }
        let err = "sometimes".parse::<ScoreAhead>().expect_err("unknown");
        assert!(
            err.to_string().contains("off, while-waiting, always"),
            "{err}"
        );
    }

    /// Puts one parameter out of range.
    type Spoil = fn(&mut EngineConfig);

    /// The defaults pass; each parameter out of range is refused with its name.
    #[test]
    fn engine_parameters_out_of_range_are_refused_by_name() {
        assert!(EngineConfig::default().validate().is_ok());
        let cases: [(&str, Spoil); 8] = [
            ("population", |c| c.population = 1),
            ("test_population", |c| c.test_population = 1),
            ("crossover_rate", |c| c.crossover_rate = 1.5),
            ("elite", |c| c.elite = c.population),
            ("rank_bias", |c| c.rank_bias = 1.0),
            ("stream_ahead", |c| c.stream_ahead = 0),
            ("bloat_factor", |c| c.bloat_factor = 0.5),
            ("random_batch", |c| c.random_batch = 0),
        ];
        for (name, spoil) in cases {
            let mut config = EngineConfig::default();
            spoil(&mut config);
            let err = config.validate().expect_err(name).to_string();
            // (Not `test_population` for `population`: the name starts a word.)
            let named = err
                .match_indices(name)
                .any(|(i, _)| !err[..i].ends_with(|c: char| c == '_' || c.is_alphanumeric()));
            assert!(named, "{name}: {err}");
        }
    }
}
