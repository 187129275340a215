//! The search algorithms behind one interface ([`Algorithm`], registered in [`Algorithms`]),
//! with their shared machinery.
//!
//! A search gets a [`Factory`] (the test cluster and the operators' parameters), an
//! [`Evaluator`] (an executor and the goals), a seeded RNG and a [`Budget`]; it offers every
//! executed test to the [`Archive`], and its result is the archive's tests. The built-in
//! algorithms ([`Algorithms::builtin`]):
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
//! Each generation's new tests go to the host in chunks, built while earlier chunks run
//! ([`Run::execute_streamed`]). With a statement budget only, the
//! same class path, CUT and seed give the same suite (the engine's state depends only on the
//! RNG and on execution results, which are deterministic).
//!
//! ```no_run
//! # use ferrosuite_search::engine::{Algorithms, Budget, EngineConfig, Evaluator, Quiet, search};
//! # fn demo(factory: &mut ferrosuite_search::Factory<'_>, host: &mut dyn ferrosuite_executor::Executor,
//! #         goals: ferrosuite_fitness::GoalSet) -> ferrosuite_search::Result<()> {
//! use rand_chacha::{ChaCha8Rng, rand_core::SeedableRng};
//! let mut eval = Evaluator::new(host, goals, Budget::statements(50_000));
//! let mut rng = ChaCha8Rng::seed_from_u64(1);
//! let algorithm = Algorithms::builtin().get("whole-suite")?;
//! let result = search(&*algorithm, &EngineConfig::default(), factory, &mut eval, &mut rng, &mut Quiet)?;
//! println!("{} of {} goals with {} tests", result.covered.len(), result.goals, result.tests.len());
//! # Ok(()) }
//! ```

mod algorithm;
mod archive;
mod budget;
mod config;
mod evaluate;
mod minimise;
mod mosa;
mod random_search;
mod run;
mod single_target;
mod whole_suite;

use rand_chacha::ChaCha8Rng;

pub use algorithm::{Algorithm, Algorithms};
pub use archive::{Archive, Kept};
pub use budget::{Budget, Usage};
pub use config::{EngineConfig, ScoreAhead};
pub use evaluate::{Chunk, Evaluator, Prepared, Scoring};
pub use minimise::{Minimised, minimise};
pub use mosa::{Breeding, MAX_BARREN_GENERATIONS, Mosa, Plain, dominates, run_with};
pub use random_search::RandomSearch;
pub use run::{Observer, Progress, Quiet, Run, SearchResult};
pub use single_target::SingleTarget;
pub use whole_suite::WholeSuite;

use crate::error::Result;
use crate::factory::Factory;
use crate::suite::TestIds;

/// Runs `algorithm` until the budget is spent or every goal is covered, then minimises the
/// archive's tests when configured.
pub fn search(
    algorithm: &dyn Algorithm,
    config: &EngineConfig,
    factory: &mut Factory<'_>,
    eval: &mut Evaluator<'_>,
    rng: &mut ChaCha8Rng,
    observer: &mut dyn Observer,
) -> Result<SearchResult> {
    config.validate()?;
    factory.config().validate()?;
    let archive = Archive::with_last_resorts(std::sync::Arc::new(crate::mocks::LastResorts::of(
        factory.cluster(),
    )));
    let mut run = Run {
        factory,
        eval,
        rng,
        archive,
        ids: TestIds::new(),
        config,
        algorithm: algorithm.name(),
        observer,
    };
    algorithm.search(&mut run)?;
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
        algorithm: algorithm.name(),
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
