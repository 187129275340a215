//! Property tests: any sequence of operators, from any seed, on real clusters keeps every test
//! valid and within L statements and every suite within N tests; the same seed gives the same
//! suites byte for byte.

use std::sync::OnceLock;

use ferrosuite_bytecode::classpath::ClassPath;
use ferrosuite_search::crossover::test_crossover;
use ferrosuite_search::mutation::{change_step, insert_step, mutate_test, remove_step};
use ferrosuite_search::random::index;
use ferrosuite_search::suite::{TestStore, crossover, mutate_suite, random_suite};
use ferrosuite_search::{Config, Factory, Suite, TestIds};
use ferrosuite_testcase::Test;
use proptest::prelude::*;
use rand_chacha::ChaCha8Rng;
use rand_chacha::rand_core::SeedableRng;

use crate::common::{Subject, TypeCheck, check_suite, fixture_cp, registry, stack, subject_jar};

/// One operator applied to a population of suites.
#[derive(Debug, Clone, Copy)]
enum Op {
    MutateSuite,
    Crossover,
    TestCrossover,
    MutateTest,
    Remove,
    Change,
    Insert,
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        3 => Just(Op::MutateSuite),
        2 => Just(Op::Crossover),
        2 => Just(Op::TestCrossover),
        2 => Just(Op::MutateTest),
        1 => Just(Op::Remove),
        1 => Just(Op::Change),
        1 => Just(Op::Insert),
    ]
}

/// Sequences of 1 to `max - 1` operators.
fn op_sequence(max: usize) -> impl Strategy<Value = Vec<Op>> {
    prop::collection::vec(op(), 1..max)
}

/// Runs `ops` on a population of four random suites; checks the invariants (and, with the
/// class hierarchy of `cp`, the types) after each step and returns the population: each suite
/// (ids, lengths, flags) with its tests.
fn evolve(factory: &Factory<'_>, cp: &ClassPath, seed: u64, ops: &[Op]) -> Vec<(Suite, Vec<Test>)> {
    let config = factory.config().clone();
    let types = TypeCheck::new(cp, factory.cluster());
    let check = |suite: &Suite, store: &TestStore| {
        check_suite(suite, store, &config);
        for t in store.tests(suite) {
            types.check(t);
        }
    };
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let (mut ids, mut store) = (TestIds::new(), TestStore::new());
    let mut pop: Vec<Suite> = (0..4)
        .map(|_| random_suite(factory, &mut store, &mut ids, &mut rng).unwrap())
        .collect();
    for s in &pop {
        check(s, &store);
    }
    for &o in ops {
        let first = index(&mut rng, pop.len());
        match o {
            Op::MutateSuite => {
                mutate_suite(factory, &mut pop[first], &mut store, &mut ids, &mut rng).unwrap();
            }
            Op::Crossover => {
                let second = index(&mut rng, pop.len());
                let (a, b) = crossover(&pop[first], &pop[second], &config, &mut rng);
                pop[first] = a;
                pop[second] = b;
            }
            Op::TestCrossover => {
                let second = index(&mut rng, pop.len());
                if pop[first].is_empty() || pop[second].is_empty() {
                    continue;
                }
                let i = index(&mut rng, pop[first].len());
                let j = index(&mut rng, pop[second].len());
                let child = test_crossover(
                    factory,
                    store.get(pop[first].tests[i].id).unwrap(),
                    store.get(pop[second].tests[j].id).unwrap(),
                    &mut rng,
                );
                replace(&mut pop[first], i, child, &mut ids, &mut store);
            }
            Op::MutateTest | Op::Remove | Op::Change | Op::Insert => {
                let suite = &mut pop[first];
                if suite.is_empty() {
                    continue;
                }
                let which = index(&mut rng, suite.len());
                let mut copy = Test::clone(store.get(suite.tests[which].id).unwrap());
                let test = &mut copy;
                match o {
                    Op::MutateTest => {
                        let before = test.clone();
                        if !mutate_test(factory, test, &mut rng).unwrap() {
                            // "Unchanged" is never wrong (the converse may be: see the docs).
                            assert_eq!(*test, before);
                        }
                    }
                    Op::Remove => {
                        remove_step(test, &mut rng).unwrap();
                    }
                    Op::Change => {
                        change_step(factory, test, &mut rng).unwrap();
                    }
                    _ => {
                        insert_step(factory, test, &mut rng).unwrap();
                    }
                }
                replace(suite, which, copy, &mut ids, &mut store);
                suite.tests.retain(|t| t.len > 0);
            }
        }
        for s in &pop {
            check(s, &store);
        }
    }
    pop.into_iter()
        .map(|s| {
            let tests = store.tests(&s).cloned().collect();
            (s, tests)
        })
        .collect()
}

/// Puts `test` in place of the suite's test `i`, under a fresh id and marked changed (an empty
/// test is stored too: the caller drops it from the suite).
fn replace(suite: &mut Suite, i: usize, test: Test, ids: &mut TestIds, store: &mut TestStore) {
    let t = &mut suite.tests[i];
    t.id = ids.fresh();
    t.len = test.len();
    t.changed = true;
    store.insert(t.id, test);
}

/// Tight limits make the limits bite: tests of at most 6 statements, suites of at most 3 tests,
/// and frequent insertions.
fn tight() -> Config {
    Config {
        max_test_length: 6,
        max_suite_size: 3,
        initial_suite_size: 3,
        test_insertion_probability: 0.9,
        statement_insertion_probability: 0.9,
        ..Config::default()
    }
}

fn run(subject: &Subject, config: Config, seed: u64, ops: &[Op]) {
    evolve(&subject.factory(config), fixture_cp(), seed, ops);
}

/// commons-lang3 classes with richer types (builders, nested matcher classes, generic
/// interfaces), or `None` when the jar is missing.
fn commons_lang() -> Option<&'static (ClassPath, Vec<Subject>)> {
    static S: OnceLock<Option<(ClassPath, Vec<Subject>)>> = OnceLock::new();
    S.get_or_init(|| {
        let jar = subject_jar("commons-lang3")?;
        let cp = ClassPath::parse(&format!("{}:jrt", jar.display())).unwrap();
        let subjects = [
            "org/apache/commons/lang3/text/StrBuilder",
            "org/apache/commons/lang3/mutable/MutableInt",
        ]
        .iter()
        .map(|c| Subject::build(&cp, c))
        .collect();
        Some((cp, subjects))
    })
    .as_ref()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn stack_operators_keep_tests_valid(seed in any::<u64>(), ops in op_sequence(25)) {
        run(stack(), Config::default(), seed, &ops);
    }

    #[test]
    fn registry_operators_keep_tests_valid(seed in any::<u64>(), ops in op_sequence(25)) {
        run(registry(), Config::default(), seed, &ops);
    }

    #[test]
    fn operators_respect_tight_limits(seed in any::<u64>(), ops in op_sequence(40)) {
        run(stack(), tight(), seed, &ops);
        run(registry(), tight(), seed, &ops);
    }

    #[test]
    fn commons_lang_operators_keep_tests_well_typed(seed in any::<u64>(), ops in op_sequence(15)) {
        if let Some((cp, subjects)) = commons_lang() {
            for s in subjects {
                evolve(&s.factory(Config::default()), cp, seed, &ops);
            }
        }
    }

    #[test]
    fn the_same_seed_gives_the_same_suites(seed in any::<u64>(), ops in op_sequence(15)) {
        let f = registry().factory(Config::default());
        let a = serde_json::to_string(&evolve(&f, fixture_cp(), seed, &ops)).unwrap();
        let b = serde_json::to_string(&evolve(&f, fixture_cp(), seed, &ops)).unwrap();
        prop_assert_eq!(a, b);
    }
}

#[test]
fn different_seeds_give_different_suites() {
    let f = stack().factory(Config::default());
    let ops = [Op::MutateSuite; 5];
    let a = serde_json::to_string(&evolve(&f, fixture_cp(), 1, &ops)).unwrap();
    let b = serde_json::to_string(&evolve(&f, fixture_cp(), 2, &ops)).unwrap();
    assert_ne!(a, b);
}

#[test]
fn many_generations_stay_valid() {
    // A long run of whole-suite steps (crossover, then mutation of both offspring) on a
    // population of 20, as Algorithm 1 does, without selection.
    let f = registry().factory(Config::default());
    let config = f.config().clone();
    let mut rng = ChaCha8Rng::seed_from_u64(77);
    let (mut ids, mut store) = (TestIds::new(), TestStore::new());
    let mut pop: Vec<Suite> = (0..20)
        .map(|_| random_suite(&f, &mut store, &mut ids, &mut rng).unwrap())
        .collect();
    for _ in 0..30 {
        for i in (0..pop.len()).step_by(2) {
            let (mut a, mut b) = crossover(&pop[i], &pop[i + 1], &config, &mut rng);
            mutate_suite(&f, &mut a, &mut store, &mut ids, &mut rng).unwrap();
            mutate_suite(&f, &mut b, &mut store, &mut ids, &mut rng).unwrap();
            check_suite(&a, &store, &config);
            check_suite(&b, &store, &config);
            pop[i] = a;
            pop[i + 1] = b;
        }
    }
    let changed: usize = pop.iter().map(|s| s.changed().count()).sum();
    let total: usize = pop.iter().map(Suite::len).sum();
    println!("after 30 generations: {total} tests, {changed} changed since creation");
}
