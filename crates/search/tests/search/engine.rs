//! The algorithms on the whole-suite paper's `Stack`, through the real execution host: every
//! feasible goal is covered, the infeasible branch is reported uncovered, and a statement budget
//! with a seed gives the same suite twice.

use ferrosuite_cfg::Analyzer;
use ferrosuite_exec::{Host, HostConfig, WorkerProgram};
use ferrosuite_fitness::{GoalSet, Trace, names};
use ferrosuite_search::engine::{
    Algorithms, Budget, EngineConfig, Evaluator, Progress, ScoreAhead, SearchResult, search,
};
use ferrosuite_search::{Config, TestId};
use rand_chacha::ChaCha8Rng;
use rand_chacha::rand_core::SeedableRng;

use crate::common::{Subject, fixture_cp, fixtures};

const STACK: &str = "examples/Stack";

/// The worker program, or `None` (with a note) when it is not built and not required.
fn worker() -> Option<WorkerProgram> {
    ferrosuite_testkit::or_skip(WorkerProgram::locate(), "FERROSUITE_REQUIRE_WORKER")
}

/// Every built-in algorithm's name.
fn all_algorithms() -> Vec<&'static str> {
    Algorithms::builtin().names()
}

fn stack_search(
    algorithm: &str,
    seed: u64,
    budget: Budget,
    config: Config,
) -> Option<(SearchResult, GoalSet)> {
    fixture_search(STACK, algorithm, seed, budget, config)
}

fn fixture_search(
    cut: &str,
    algorithm: &str,
    seed: u64,
    budget: Budget,
    config: Config,
) -> Option<(SearchResult, GoalSet)> {
    engine_search(
        cut,
        algorithm,
        &EngineConfig::default(),
        seed,
        budget,
        config,
    )
}

/// A host running `cut` instrumented, with the class's goals; `None` when the worker program
/// is not built and not required.
fn host_and_goals(cut: &str) -> Option<(Host, GoalSet)> {
    let host = Host::start(HostConfig {
        classpath: vec![fixtures().clone()],
        instrument: vec![cut.into()],
        worker: Some(worker()?),
        ..HostConfig::default()
    })
    .unwrap();
    let cp = fixture_cp();
    let analysis = Analyzer::new(cp, ferrosuite_cfg::Config::default())
        .class(cut)
        .unwrap();
    let goals = GoalSet::for_class(
        host.map(),
        ferrosuite_fitness::Config::default(),
        &analysis,
        Some(&cp.load(cut).unwrap()),
    )
    .unwrap();
    Some((host, goals))
}

fn engine_search(
    cut: &str,
    algorithm: &str,
    engine: &EngineConfig,
    seed: u64,
    budget: Budget,
    config: Config,
) -> Option<(SearchResult, GoalSet)> {
    let algorithm = Algorithms::builtin().get(algorithm).unwrap();
    let algorithm = &*algorithm;
    let (mut host, goals) = host_and_goals(cut)?;
    let cp = fixture_cp();
    let subject = Subject::build(cp, cut);
    let mut factory = subject.factory(config);
    let mut eval = Evaluator::new(&mut host, goals, budget);
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut generations = 0u64;
    let mut observer = |p: &Progress| {
        generations += 1;
        assert!(p.covered <= p.goals);
    };
    let result = search(
        algorithm,
        engine,
        &mut factory,
        &mut eval,
        &mut rng,
        &mut observer,
    )
    .unwrap();
    assert_eq!(generations, result.usage.generations);
    let goals = eval.into_goals();
    // The minimised suite, run again, covers exactly what the search reports.
    let m = result.minimised.unwrap();
    assert!(
        m.tests.1 <= m.tests.0 && m.statements.1 <= m.statements.0,
        "{m:?}"
    );
    let results = host.run(&result.tests, false).unwrap();
    let mut covered = std::collections::BTreeSet::new();
    for (t, r) in result.tests.iter().zip(&results) {
        covered.extend(goals.covered(&Trace::from_result(&goals, t, r)));
    }
    covered.extend(goals.covered(&Trace::from_probes(&host.ready().init_probes)));
    assert_eq!(
        covered.into_iter().collect::<Vec<_>>(),
        result.covered,
        "{}: the minimised suite",
        algorithm.name()
    );
    Some((result, goals))
}

/// The paper's representation: the Stack's state only through its methods (no writes to its
/// package-private fields).
fn paper_representation() -> Config {
    Config {
        field_writes: false,
        ..Config::default()
    }
}

#[test]
fn every_algorithm_covers_the_feasible_stack_goals() {
    for algorithm in all_algorithms() {
        let Some((result, goals)) = stack_search(
            algorithm,
            11,
            Budget::statements(60_000),
            paper_representation(),
        ) else {
            return;
        };
        let uncovered: Vec<String> = goals
            .goals()
            .iter()
            .filter(|g| !result.covered.contains(&g.id))
            .map(ToString::to_string)
            .collect();
        eprintln!(
            "{algorithm}: {} of {} goals, {} tests ({:?}), {} statements, {} generations; uncovered: {uncovered:?}",
            result.covered.len(),
            result.goals,
            result.tests.len(),
            result.minimised,
            result.usage.statements,
            result.usage.generations
        );
        // Only the infeasible branch of push (`size < values.length` false) is left.
        assert_eq!(uncovered.len(), 1, "{algorithm}: {uncovered:?}");
        let g = goals
            .goals()
            .iter()
            .find(|g| !result.covered.contains(&g.id))
            .unwrap();
        assert_eq!(g.criterion, names::BRANCH);
        assert!(g.description.contains("push"), "{g}");
        // The exception goal of pop on an empty stack was found.
        assert!(
            goals
                .goals_of(names::EXCEPTION)
                .any(|g| result.covered.contains(&g.id) && g.description.contains("EmptyStack")),
            "{algorithm}"
        );
        assert!(
            result.usage.statements >= 60_000,
            "the infeasible goal keeps it going"
        );
        for t in &result.tests {
            t.validate().unwrap();
        }
    }
}

/// Values the code under test compares at run time become seeds (the paper's values observed
/// at run time): `seeding.Secret` opens only for a string and an int it computes, which are
/// not in its constant pool. With the observed pool every algorithm that runs long enough
/// covers both true branches; with seeds from the constants only (`observed_share` 0 and an
/// empty pool) the same seeds and budget do not reach the int.
#[test]
fn compared_values_seed_the_search() {
    let true_branches = |result: &SearchResult, goals: &GoalSet| -> usize {
        result
            .covered
            .iter()
            .filter_map(|g| goals.goal(*g))
            .filter(|g| {
                g.criterion == names::BRANCH
                    && (g.description.contains("open") || g.description.contains("unlock"))
            })
            .count()
    };
    for algorithm in ["whole-suite", "dynamosa"] {
        let Some((with_pool, goals)) = fixture_search(
            "seeding/Secret",
            algorithm,
            3,
            Budget::statements(50_000),
            Config::default(),
        ) else {
            return;
        };
        let Some((without, goals_without)) = fixture_search(
            "seeding/Secret",
            algorithm,
            3,
            Budget::statements(50_000),
            Config {
                observed_share: 0.0,
                observed_pool_capacity: 0,
                ..Config::default()
            },
        ) else {
            return;
        };
        eprintln!(
            "{algorithm}: with the pool {} of {} goals, without {}; uncovered with the pool: {:?}",
            with_pool.covered.len(),
            with_pool.goals,
            without.covered.len(),
            goals
                .goals()
                .iter()
                .filter(|g| !with_pool.covered.contains(&g.id))
                .map(|g| &g.description)
                .collect::<Vec<_>>()
        );
        assert_eq!(
            with_pool.covered.len(),
            with_pool.goals,
            "{algorithm}: {:?}",
            goals.goals()
        );
        assert!(
            true_branches(&without, &goals_without) < true_branches(&with_pool, &goals),
            "{algorithm}"
        );
    }
}

/// With writes to its package-private fields (ferrosuite's default representation: tests live
/// in the CUT's package), the paper's infeasible branch is feasible: `s.size = 2010; s.push(x)`
/// resizes to 6 and still finds `size >= values.length`. The search finds that.
#[test]
fn field_writes_make_the_papers_infeasible_branch_feasible() {
    let Some((result, goals)) = stack_search(
        "whole-suite",
        11,
        Budget::statements(60_000),
        Config::default(),
    ) else {
        return;
    };
    assert_eq!(result.covered.len(), goals.goals().len());
}

#[test]
fn a_seed_and_a_statement_budget_give_the_same_suite() {
    for algorithm in all_algorithms() {
        let run = |seed| {
            stack_search(
                algorithm,
                seed,
                Budget::statements(8_000),
                Config::default(),
            )
            .map(|(r, _)| serde_json::to_string(&r.tests).unwrap())
        };
        let Some(a) = run(5) else { return };
        assert_eq!(Some(a.clone()), run(5), "{algorithm}");
        assert_ne!(Some(a), run(6), "{algorithm}: another seed, another suite");
    }
}

/// Building tests while earlier ones run (`stream_chunk`, `stream_ahead`) changes when tests
/// run, not which: the suite is the one built a generation at a time (whole-suite excepted:
/// without streaming its last generation may stop between batches of 128 tests, so there it
/// is only the same for the same chunk size), and the same however many chunks are out.
#[test]
fn streaming_tests_to_the_host_gives_the_same_suite() {
    for algorithm in all_algorithms() {
        let run_ahead = |stream_chunk, stream_ahead| {
            let engine = EngineConfig {
                stream_chunk,
                stream_ahead,
                ..EngineConfig::default()
            };
            engine_search(
                STACK,
                algorithm,
                &engine,
                3,
                Budget::statements(8_000),
                Config::default(),
            )
            .map(|(r, _)| serde_json::to_string(&r.tests).unwrap())
        };
        let run = |stream_chunk| run_ahead(stream_chunk, EngineConfig::default().stream_ahead);
        let Some(whole) = run(0) else { return };
        let streamed = run(7);
        assert_eq!(streamed, run(7), "{algorithm}: streamed twice");
        for ahead in [1, 12] {
            assert_eq!(
                streamed,
                run_ahead(7, ahead),
                "{algorithm}: {ahead} chunks out"
            );
        }
        if algorithm != "whole-suite" {
            assert_eq!(
                Some(whole),
                streamed,
                "{algorithm}: streamed and whole generations"
            );
        }
    }
}

/// The whole-suite GA scores each offspring while later chunks run: the suites are those of
/// scoring every offspring after the generation (fitness does not depend on exception goals
/// later chunks reveal). Under an evaluation budget both run whole generations; under a
/// statement budget only the last generation may stop elsewhere.
#[test]
fn whole_suite_scores_offspring_in_the_stream_as_after_the_generation() {
    let run = |stream_chunk| {
        let engine = EngineConfig {
            stream_chunk,
            ..EngineConfig::default()
        };
        let budget = Budget {
            evaluations: Some(1_500),
            ..Budget::default()
        };
        // Branches: many goals (not all covered within the budget) and exceptions that appear
        // during generations (new exception goals registered between offspring scored early).
        engine_search(
            "examples/Branches",
            "whole-suite",
            &engine,
            5,
            budget,
            Config::default(),
        )
        .map(|(r, _)| {
            (
                serde_json::to_string(&r.tests).unwrap(),
                r.usage.evaluations,
                r.usage.generations,
            )
        })
    };
    let Some(whole) = run(0) else { return };
    for chunk in [1, 3, 10] {
        assert_eq!(run(chunk).as_ref(), Some(&whole), "chunks of {chunk}");
    }
}

/// Scoring ahead while the whole-suite GA waits for results does not change the search: with
/// it off, while waiting (the default, as much as timing allows) and before every wait (as
/// much as can be done), the same suites, evaluations and generations, under a statement
/// budget and under an evaluation budget. Before every wait both kinds of work ahead happen
/// (offspring scored, offspring prepared), whatever the timing; off, none.
#[test]
fn whole_suite_scoring_ahead_does_not_change_the_search() {
    let budgets = [
        Budget::statements(40_000),
        Budget {
            evaluations: Some(1_500),
            ..Budget::default()
        },
    ];
    for budget in budgets {
        let run = |score_ahead| {
            let engine = EngineConfig {
                score_ahead,
                ..EngineConfig::default()
            };
            engine_search(
                "examples/Branches",
                "whole-suite",
                &engine,
                7,
                budget,
                Config::default(),
            )
            .map(|(r, _)| r)
        };
        let Some(off) = run(ScoreAhead::Off) else {
            return;
        };
        assert_eq!(off.usage.scored_ahead + off.usage.prepared_ahead, 0);
        let same = |r: &SearchResult| {
            (
                serde_json::to_string(&r.tests).unwrap(),
                r.usage.evaluations,
                r.usage.generations,
                r.usage.statements,
            )
        };
        for mode in [ScoreAhead::WhileWaiting, ScoreAhead::Always] {
            let r = run(mode).unwrap();
            assert_eq!(same(&r), same(&off), "{mode:?} under {budget:?}");
            if mode == ScoreAhead::Always {
                assert!(
                    r.usage.scored_ahead > 0 && r.usage.prepared_ahead > 0,
                    "{budget:?}: scored ahead {}, prepared {}",
                    r.usage.scored_ahead,
                    r.usage.prepared_ahead
                );
            }
        }
    }
}

/// The example of the crossover module: the tail's receiver and argument are rebound to the
/// head's values of the same types.
#[test]
fn test_crossover_rebinds_the_tail() {
    use ferrosuite_search::crossover::crossover_at;
    use ferrosuite_testcase::{Prim, Statement, Test, VarRef};
    let subject = Subject::build(fixture_cp(), STACK);
    let f = subject.factory(Config::default());
    let new = || Statement::constructor(STACK, "()V", vec![]);
    let push = |s, x| Statement::method(STACK, "push", "(I)V", Some(VarRef(s)), vec![VarRef(x)]);
    let pop = |s| Statement::method(STACK, "pop", "()I", Some(VarRef(s)), vec![]);
    let t1 = Test::new(vec![new(), Statement::Primitive(Prim::Int(1)), push(0, 1)]);
    let t2 = Test::new(vec![
        new(),
        Statement::Primitive(Prim::Int(5)),
        push(0, 1),
        pop(0),
    ]);
    let child = crossover_at(&f, &t1, &t2, 2, 2).unwrap();
    assert_eq!(
        child,
        Test::new(vec![
            new(),
            Statement::Primitive(Prim::Int(1)),
            push(0, 1),
            pop(0)
        ])
    );
    // A head without a Stack: the tail cannot be rebound, nothing valid is left.
    let head_int = Test::new(vec![Statement::Primitive(Prim::Int(1))]);
    assert_eq!(crossover_at(&f, &head_int, &t2, 0, 2), None);
    // Cut points at the ends give the parents' parts.
    assert_eq!(crossover_at(&f, &t1, &t2, 3, 4).unwrap(), t1);
    assert_eq!(crossover_at(&f, &t1, &t2, 0, 0).unwrap(), t2);
}

/// A suite scored in part before some of its tests ran ([`Scoring::prepare`]) and finished
/// after they did scores as the suite scored whole, and as the goal set's own fitness of the
/// traces (the reference): for suites small (folded test by test) and large (in blocks), with
/// repeats, in random order, with tests that never run (no trace: left out alike); and for
/// suites where one test is the only one to reach a predicate, once, so that folding its
/// block twice would count the predicate as run twice (the reference shows that it would
/// change the fitness). Preparing is not an evaluation, finishing is one.
///
/// [`Scoring::prepare`]: ferrosuite_search::engine::Scoring::prepare
#[test]
fn a_suite_prepared_before_its_last_tests_ran_scores_as_a_whole() {
    use ferrosuite_testcase::{Prim, Statement, Test, VarRef};
    let Some((mut host, goals)) = host_and_goals(STACK) else {
        return;
    };
    let cp = fixture_cp();
    let init = Trace::from_probes(&host.ready().init_probes);
    let subject = Subject::build(cp, STACK);
    let factory = subject.factory(Config::default());
    let mut rng = ChaCha8Rng::seed_from_u64(17);
    // Random tests 0..90 (0..60 run first, 60..90 after preparing, 90..120 never).
    let mut tests: Vec<(TestId, Test)> = (0..120)
        .map(|k| (TestId(k), factory.random_test(&mut rng).unwrap()))
        .collect();
    // One push on a new stack: push's two predicates run once each, each with an outcome not
    // taken (200 runs first, 201 after preparing); pops of an empty stack never reach them
    // (300..340 first, 340..380 after).
    let new = || Statement::constructor(STACK, "()V", vec![]);
    let push_once = Test::new(vec![
        new(),
        Statement::Primitive(Prim::Int(7)),
        Statement::method(STACK, "push", "(I)V", Some(VarRef(0)), vec![VarRef(1)]),
    ]);
    let pop_empty = Test::new(vec![
        new(),
        Statement::method(STACK, "pop", "()I", Some(VarRef(0)), vec![]),
    ]);
    tests.push((TestId(200), push_once.clone()));
    tests.push((TestId(201), push_once));
    tests.extend((300..380).map(|k| (TestId(k), pop_empty.clone())));
    let mut eval = Evaluator::new(&mut host, goals, Budget::statements(1_000_000));
    let first = |id: TestId| id.0 < 60 || id.0 == 200 || (300..340).contains(&id.0);
    let after = |id: TestId| (60..90).contains(&id.0) || id.0 == 201 || id.0 >= 340;
    let run = |eval: &mut Evaluator<'_>, which: &dyn Fn(TestId) -> bool| {
        let refs: Vec<(TestId, &Test)> = tests
            .iter()
            .filter(|(id, _)| which(*id))
            .map(|(id, t)| (*id, t))
            .collect();
        eval.run(&refs).unwrap();
    };
    run(&mut eval, &first);
    // Suites of 5 to 83 tests drawn from the 120 random ones, repeats allowed.
    let mut suites: Vec<Vec<TestId>> = (0..40)
        .map(|k| {
            let len = 5 + 2 * k;
            (0..len)
                .map(|_| TestId(ferrosuite_search::random::below(&mut rng, 120)))
                .collect()
        })
        .collect();
    // The lone push alone, early or late, in a small suite and in the middle of large ones
    // (blocks), with the pops early, late or both.
    let pops = |from: u64, n: u64| (from..from + n).map(TestId);
    for push in [TestId(200), TestId(201)] {
        suites.push(vec![push]);
        for (from, n) in [(300, 3), (300, 30), (340, 30), (320, 40)] {
            let mut suite: Vec<TestId> = pops(from, n).collect();
            suite.insert(suite.len() / 2, push);
            suites.push(suite);
        }
    }
    let evaluations = eval.usage().evaluations;
    let prepared_before = eval.usage().prepared_ahead;
    let mut prepared = Vec::new();
    eval.scoring(&mut |s| {
        prepared = suites.iter().map(|ids| s.prepare(ids.clone())).collect();
    });
    assert_eq!(eval.usage().evaluations, evaluations, "preparing evaluates");
    assert_eq!(
        eval.usage().prepared_ahead,
        prepared_before + suites.len() as u64
    );
    run(&mut eval, &after);
    let mut unrun = 0;
    for (ids, p) in suites.iter().zip(&prepared) {
        let mut finished = None;
        eval.scoring(&mut |s| finished = Some(s.finish(p)));
        let finished = finished.unwrap();
        let whole = eval.suite_fitness(ids.iter().copied());
        let traces: Vec<&Trace> = std::iter::once(&init)
            .chain(ids.iter().filter_map(|id| eval.trace(*id).map(|t| &**t)))
            .collect();
        unrun += ids.len() + 1 - traces.len();
        let reference = eval.goals().suite_fitness(&traces);
        assert_eq!(finished, whole, "{ids:?}");
        assert_eq!(finished, reference, "{ids:?}");
    }
    assert!(unrun > 100, "tests that never ran: {unrun}");
    // Folding the lone push twice would change the fitness (the predicates it runs once
    // would count as run twice): the cases above can see a block folded twice.
    let push = &**eval.trace(TestId(200)).unwrap();
    let once = eval.goals().suite_fitness(&[&init, push]);
    let twice = eval.goals().suite_fitness(&[&init, push, push]);
    assert_ne!(once, twice, "a test folded twice scores as itself once");
    assert_eq!(
        eval.usage().evaluations,
        evaluations + 2 * suites.len() as u64,
        "finishing and scoring whole are one evaluation each"
    );
}

/// Minimisation drops every statement that can go in a few batches, not a round per
/// statement: a Stack test of 20 pushes kept for its goals, where all pushes but four can go,
/// shrinks to the statements its goals need in fewer than three runs per statement (one
/// round per statement took about ten).
#[test]
fn minimisation_drops_what_can_go_in_few_rounds() {
    use ferrosuite_search::TestIds;
    use ferrosuite_search::engine::{Archive, minimise};
    use ferrosuite_testcase::{Prim, Statement, Test, VarRef};
    let Some((mut host, goals)) = host_and_goals(STACK) else {
        return;
    };
    let mut statements = vec![Statement::constructor(STACK, "()V", vec![])];
    for k in 0..20u32 {
        statements.push(Statement::Primitive(Prim::Int(k as i32)));
        statements.push(Statement::method(
            STACK,
            "push",
            "(I)V",
            Some(VarRef(0)),
            vec![VarRef(2 * k + 1)],
        ));
    }
    let test = Test::new(statements);
    let mut eval = Evaluator::new(&mut host, goals, Budget::statements(10_000_000));
    let mut ids = TestIds::new();
    let id = ids.fresh();
    let ran = eval.run(&[(id, &test)]).unwrap();
    let mut archive = Archive::default();
    assert!(archive.offer(eval.goals(), id, &test, &ran[0].1) > 0);
    let before = eval.usage().tests;
    let (tests, m) = minimise(&mut eval, &archive, &mut ids).unwrap();
    let runs = eval.usage().tests - before;
    eprintln!("{m:?}, {runs} runs: {tests:?}");
    assert_eq!(tests.len(), 1);
    // `new Stack()` and four pushes (the fourth resizes the array of three): what the test's
    // goals need, and nothing more.
    assert_eq!(tests[0].len(), 9, "{:?}", tests[0]);
    assert!(
        runs < 3 * test.len() as u64,
        "{runs} runs for {} statements",
        test.len()
    );
}
