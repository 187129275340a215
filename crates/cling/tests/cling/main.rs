//! Cling through the real execution host on the paper's own examples: the plan of a pair
//! (coupled branches, covering methods, the class the tests are for), pair goals covered only
//! by one test taking both branches with Cling's fitness, and the search covering every
//! coupled branch of Person -> Car, each of its tests calling a covering method, the same
//! suite for the same seed.
//!
//! The host tests need the `ferrosuite-worker` binary next to the test binary's directory
//! (`cargo build -p ferrosuite-exec` with the same target directory) or `FERROSUITE_WORKER`;
//! without it they are skipped with a note, unless `FERROSUITE_REQUIRE_WORKER=1`.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::PathBuf;
use std::sync::Arc;

use ferrosuite_bytecode::classpath::ClassPath;
use ferrosuite_cfg::{Analyzer, Relation};
use ferrosuite_cling::{Plan, criterion};
use ferrosuite_exec::{Host, HostConfig, WorkerProgram};
use ferrosuite_fitness::{Criteria, CriterionRegistry, GoalSet, Trace};
use ferrosuite_search::engine::{Algorithms, Breeding, Budget, EngineConfig, Evaluator, search};
use ferrosuite_search::{Config, Factory};
use ferrosuite_testcase::cluster::{ClusterConfig, TestCluster};
use ferrosuite_testcase::constants::harvest_nested;
use ferrosuite_testcase::{Statement, Test, VarRef};
use rand_chacha::ChaCha8Rng;
use rand_chacha::rand_core::SeedableRng;

fn fixtures() -> &'static PathBuf {
    ferrosuite_testkit::java8(env!("CARGO_TARGET_TMPDIR"))
}

fn worker() -> Option<WorkerProgram> {
    ferrosuite_testkit::or_skip(WorkerProgram::locate(), "FERROSUITE_REQUIRE_WORKER")
}

fn classpath() -> ClassPath {
    ClassPath::parse(&format!("{}:jrt", fixtures().display())).unwrap()
}

fn plan(caller: &str, callee: &str) -> Plan {
    let cp = ClassPath::parse(&fixtures().display().to_string()).unwrap();
    Plan::new(
        &Analyzer::new(&cp, ferrosuite_cfg::Config::default()),
        caller,
        callee,
    )
    .unwrap()
}

/// A host probing the plan's classes and the goal set of its coupled branches.
fn host_and_goals(plan: &Plan) -> Option<(Host, GoalSet)> {
    let host = Host::start(HostConfig {
        classpath: vec![fixtures().clone()],
        instrument: plan.classes.clone(),
        worker: Some(worker()?),
        ..HostConfig::default()
    })
    .unwrap();
    let cp = classpath();
    let analyzer = Analyzer::new(&cp, ferrosuite_cfg::Config::default());
    let config = ferrosuite_fitness::Config {
        criteria: Criteria::only(Arc::new(plan.criterion())),
        ..ferrosuite_fitness::Config::default()
    };
    let goals = {
        let mut b = GoalSet::builder(host.map(), config);
        for c in &plan.classes {
            b.add_class(&analyzer.class(c).unwrap(), None).unwrap();
        }
        b.build()
    };
    Some((host, goals))
}

#[test]
fn the_plan_of_person_and_car_follows_the_paper() {
    let p = plan("cling.Person", "cling.Car");
    assert_eq!(p.relation, Relation::Unrelated);
    assert_eq!(p.cut, "cling/Person");
    assert_eq!(p.classes, ["cling/Person", "cling/Car"]);
    // Listing 1 / Figure 3: the branch <13,16> (lazy is false) with refuel's two outcomes.
    assert_eq!(p.pairs.len(), 2);
    assert!(
        p.descriptions
            .iter()
            .all(|(r, e)| r.contains("addEnergy") && e.contains("cling.Car.refuel"))
    );
    let covering: Vec<&str> = p.covering_names.iter().map(String::as_str).collect();
    assert!(
        covering.contains(&"cling.Person.addEnergy()V"),
        "{covering:?}"
    );
    assert!(
        covering.contains(&"cling.Person.driveToHome()V"),
        "{covering:?}"
    );
    assert_eq!(p.test_class("IT"), "PersonCarIT");
    // GreenPerson -> Person: the caller extends the callee; its calls of inherited methods.
    let g = plan("cling.GreenPerson", "cling.Person");
    assert_eq!(g.relation, Relation::CallerIsSub);
    assert_eq!(g.cut, "cling/GreenPerson");
    assert!(!g.pairs.is_empty());
}

#[test]
fn a_pair_without_call_sites_is_an_error_naming_it() {
    let cp = ClassPath::parse(&fixtures().display().to_string()).unwrap();
    let analyzer = Analyzer::new(&cp, ferrosuite_cfg::Config::default());
    let err = Plan::new(&analyzer, "cling.Car", "cling.Person")
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("cling.Car") && err.contains("cling.Person"),
        "{err}"
    );
}

#[test]
fn the_criterion_and_the_algorithm_register_by_name() {
    let mut criteria = CriterionRegistry::builtin();
    let mut algorithms = Algorithms::builtin();
    ferrosuite_cling::register(&mut criteria, &mut algorithms).unwrap();
    assert_eq!(criteria.get("cbc").unwrap().name(), criterion::NAME);
    assert_eq!(algorithms.get("cling").unwrap().name(), "cling");
    assert!(ferrosuite_cling::register(&mut criteria, &mut algorithms).is_err());
}

fn person_test(energy_calls: usize) -> Test {
    let mut s = vec![Statement::constructor("cling/Person", "()V", vec![])];
    for _ in 0..energy_calls {
        s.push(Statement::method(
            "cling/Person",
            "addEnergy",
            "()V",
            Some(VarRef(0)),
            vec![],
        ));
    }
    Test::new(s)
}

#[test]
fn a_pair_is_covered_by_one_test_taking_both_branches_with_clings_fitness() {
    let p = plan("cling.Person", "cling.Car");
    let Some((mut host, goals)) = host_and_goals(&p) else {
        return;
    };
    let tests = [person_test(0), person_test(1), person_test(2)];
    let results = host.run(&tests, false).unwrap();
    let traces: Vec<Trace> = tests
        .iter()
        .zip(&results)
        .map(|(t, r)| Trace::from_result(&goals, t, r))
        .collect();
    let ids: Vec<_> = goals.goals().iter().map(|g| g.id).collect();
    assert_eq!(ids.len(), 2, "{:?}", goals.goals());
    // No call of addEnergy: the caller branch is not taken, d = D(r) + 1 > 1.
    for &g in &ids {
        assert!(goals.fitness(g, &traces[0]) > 1.0);
    }
    // One call: fuel 0 < 90, one pair covered; the other at D(e) in (0, 1).
    assert_eq!(goals.covered(&traces[1]).len(), 1);
    let open: Vec<f64> = ids
        .iter()
        .map(|&g| goals.fitness(g, &traces[1]))
        .filter(|f| *f > 0.0)
        .collect();
    assert_eq!(open.len(), 1);
    assert!(open[0] > 0.0 && open[0] < 1.0, "{open:?}");
    // Two calls: the second finds the tank full: both pairs.
    assert_eq!(goals.covered(&traces[2]), ids);
    // Two tests each taking one callee branch alone would not do: the merged trace of the
    // suite is not asked.
    assert!(goals.suite_fitness(&[&traces[1]]).total > 0.0);
}

/// A search of the pair's class under test by `algorithm` over the pair's goals; the result
/// and the number of goals.
fn search_pair(
    p: &Plan,
    algorithm: &dyn ferrosuite_search::engine::Algorithm,
    budget: Budget,
    seed: u64,
) -> Option<(ferrosuite_search::engine::SearchResult, usize)> {
    let (mut host, goals) = host_and_goals(p)?;
    let cp = classpath();
    let cluster = TestCluster::build(&cp, &p.cut, &ClusterConfig::default()).unwrap();
    let constants = harvest_nested(&cp, &p.cut).unwrap();
    let mut factory = Factory::new(&cluster, constants, Config::default()).unwrap();
    let total = goals.goals().len();
    let mut eval = Evaluator::new(&mut host, goals, budget);
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let result = search(
        algorithm,
        &EngineConfig::default(),
        &mut factory,
        &mut eval,
        &mut rng,
        &mut ferrosuite_search::engine::Quiet,
    )
    .unwrap();
    Some((result, total))
}

fn cling_search(p: &Plan, seed: u64) -> Option<(Vec<Test>, usize, usize)> {
    let (result, total) = search_pair(p, &p.algorithm(false), Budget::statements(30_000), seed)?;
    Some((result.tests, result.covered.len(), total))
}

#[test]
fn cling_covers_every_coupled_branch_of_person_and_car_with_covering_tests() {
    let p = plan("cling.Person", "cling.Car");
    let Some((tests, covered, total)) = cling_search(&p, 3) else {
        return;
    };
    assert_eq!((covered, total), (2, 2));
    assert!(!tests.is_empty());
    for t in &tests {
        assert!(p.covering.covers(t), "no covering call in {t:?}");
    }
    // The same seed and statement budget, the same suite.
    let again = cling_search(&p, 3).unwrap().0;
    assert_eq!(
        serde_json::to_string(&tests).unwrap(),
        serde_json::to_string(&again).unwrap()
    );
}

#[test]
fn crossover_children_without_a_covering_call_give_way_to_their_parent() {
    let p = plan("cling.Person", "cling.Car");
    let parent = person_test(1);
    let child = Test::new(vec![Statement::constructor("cling/Car", "()V", vec![])]);
    assert!(!p.covering.covers(&child));
    assert_eq!(p.covering.crossed(child.clone(), &parent), parent);
    // A child with a covering call stays.
    assert_eq!(p.covering.crossed(person_test(2), &parent), person_test(2));
}

/// Drops every offspring: the search must still end under a statement budget.
#[derive(Debug)]
struct Barren;

impl Breeding for Barren {
    fn mutated(
        &self,
        _: &mut Factory<'_>,
        _: &mut ChaCha8Rng,
        _: Test,
    ) -> ferrosuite_search::Result<Option<Test>> {
        Ok(None)
    }
}

#[derive(Debug)]
struct BarrenSearch;

impl ferrosuite_search::engine::Algorithm for BarrenSearch {
    fn name(&self) -> &'static str {
        "barren"
    }
    fn summary(&self) -> &'static str {
        "MOSA whose breeding keeps nothing"
    }
    fn search(
        &self,
        run: &mut ferrosuite_search::engine::Run<'_, '_, '_>,
    ) -> ferrosuite_search::Result<()> {
        ferrosuite_search::engine::run_with(run, false, &Barren)
    }
}

#[test]
fn a_breeding_that_keeps_no_offspring_ends_the_search() {
    let p = plan("cling.Person", "cling.Car");
    // A budget the initial population alone never spends.
    let Some((result, _)) = search_pair(&p, &BarrenSearch, Budget::statements(100_000_000), 1)
    else {
        return;
    };
    assert!(
        result.usage.generations <= 1 + ferrosuite_search::engine::MAX_BARREN_GENERATIONS as u64,
        "{:?}",
        result.usage
    );
}
