//! MIO through the real execution host, chosen by name from a registry it registered itself
//! in: on the whole-suite paper's `Stack` it covers every feasible goal, and a seed with a
//! statement budget gives the same suite twice (another seed, another suite).
//!
//! The tests need the `ferrosuite-worker` binary next to the test binary's directory (`cargo
//! build -p ferrosuite-exec` with the same target directory) or `FERROSUITE_WORKER`; without it
//! they are skipped with a note, unless `FERROSUITE_REQUIRE_WORKER=1`.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::PathBuf;

use ferrosuite_bytecode::classpath::ClassPath;
use ferrosuite_cfg::Analyzer;
use ferrosuite_exec::{Host, HostConfig, WorkerProgram};
use ferrosuite_fitness::GoalSet;
use ferrosuite_search::engine::{
    Algorithms, Budget, EngineConfig, Evaluator, Progress, SearchResult, search,
};
use ferrosuite_search::{Config, Factory};
use ferrosuite_testcase::cluster::{ClusterConfig, TestCluster};
use ferrosuite_testcase::constants::harvest_nested;
use rand_chacha::ChaCha8Rng;
use rand_chacha::rand_core::SeedableRng;

/// The Java 8 fixtures compiled by `fixtures/build.sh`, once per test run.
fn fixtures() -> &'static PathBuf {
    ferrosuite_testkit::java8(env!("CARGO_TARGET_TMPDIR"))
}

/// The worker program, or `None` (with a note) when it is not built and not required.
fn worker() -> Option<WorkerProgram> {
    ferrosuite_testkit::or_skip(WorkerProgram::locate(), "FERROSUITE_REQUIRE_WORKER")
}

/// MIO, as a tool finds it: by name in a registry it was registered in.
fn registry() -> Algorithms {
    let mut a = Algorithms::builtin();
    ferrosuite_mio::register(&mut a).unwrap();
    a
}

/// A search of `cut` by MIO; the result and the goal set.
fn mio_search(cut: &str, seed: u64, budget: Budget) -> Option<(SearchResult, GoalSet)> {
    mio_search_with(cut, seed, budget, &EngineConfig::default())
}

/// [`mio_search`] with the engine's parameters given.
fn mio_search_with(
    cut: &str,
    seed: u64,
    budget: Budget,
    engine: &EngineConfig,
) -> Option<(SearchResult, GoalSet)> {
    let mut host = Host::start(HostConfig {
        classpath: vec![fixtures().clone()],
        instrument: vec![cut.into()],
        worker: Some(worker()?),
        ..HostConfig::default()
    })
    .unwrap();
    let cp = ClassPath::parse(&format!("{}:jrt", fixtures().display())).unwrap();
    let analysis = Analyzer::new(&cp, ferrosuite_cfg::Config::default())
        .class(cut)
        .unwrap();
    let goals = GoalSet::for_class(
        host.map(),
        ferrosuite_fitness::Config::default(),
        &analysis,
        Some(&cp.load(cut).unwrap()),
    )
    .unwrap();
    let cluster = TestCluster::build(&cp, cut, &ClusterConfig::default()).unwrap();
    let constants = harvest_nested(&cp, cut).unwrap();
    // The paper's representation of the Stack: its state only through its methods.
    let config = Config {
        field_writes: false,
        ..Config::default()
    };
    let mut factory = Factory::new(&cluster, constants, config).unwrap();
    let mut eval = Evaluator::new(&mut host, goals, budget);
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut rounds = 0u64;
    let mut observer = |p: &Progress| {
        rounds += 1;
        assert_eq!(p.algorithm, "mio");
    };
    let mio = registry().get("mio").unwrap();
    let result = search(
        &*mio,
        engine,
        &mut factory,
        &mut eval,
        &mut rng,
        &mut observer,
    )
    .unwrap();
    assert_eq!(rounds, result.usage.generations);
    assert_eq!(result.algorithm, "mio");
    Some((result, eval.into_goals()))
}

#[test]
fn mio_covers_the_feasible_stack_goals() {
    let Some((result, goals)) = mio_search("examples/Stack", 11, Budget::statements(60_000)) else {
        return;
    };
    let uncovered: Vec<String> = goals
        .goals()
        .iter()
        .filter(|g| !result.covered.contains(&g.id))
        .map(|g| g.description.clone())
        .collect();
    // The paper's infeasible branch (`size >= values.length` after a resize, unreachable
    // through the Stack's methods) is the only goal left.
    assert!(uncovered.len() <= 1, "{uncovered:?}");
    assert!(!result.tests.is_empty());
    assert!(result.usage.evaluations >= result.usage.tests);
}

#[test]
fn a_seed_and_a_statement_budget_give_the_same_suite() {
    let run = |seed| {
        mio_search("examples/Branches", seed, Budget::statements(20_000))
            .map(|(r, _)| serde_json::to_string(&r.tests).unwrap())
    };
    let Some(a) = run(5) else { return };
    assert_eq!(Some(a.clone()), run(5));
    assert_ne!(Some(a), run(6), "another seed, another suite");
}

/// A round's tests are all built before any runs: how they are cut into chunks and how many are
/// out at once changes when they run, not the suite.
#[test]
fn streaming_parameters_do_not_change_the_suite() {
    let run = |stream_chunk, stream_ahead| {
        let engine = EngineConfig {
            stream_chunk,
            stream_ahead,
            ..EngineConfig::default()
        };
        mio_search_with("examples/Branches", 3, Budget::statements(15_000), &engine)
            .map(|(r, _)| serde_json::to_string(&r.tests).unwrap())
    };
    let Some(whole) = run(0, 3) else { return };
    assert_eq!(Some(whole.clone()), run(7, 1));
    assert_eq!(Some(whole), run(10, 12));
}
