//! Mutation analysis on a real host (`ferrosuite_generate::mutation`): hand-built tests of the
//! fixture `mutation.Ops`, their assertions from the original run, and which mutants their
//! assertions and outcomes kill; the greedy choice keeps few assertions and loses no kill.

use std::collections::BTreeSet;

use ferrosuite_bytecode::instrument::mutation::{Config, Operator};
use ferrosuite_emit::Limits;
use ferrosuite_emit::assertions::{Assertion, candidates};
use ferrosuite_exec::{Host, HostConfig, WorkerProgram};
use ferrosuite_generate::mutation::{analyse, choose, returned_values};
use ferrosuite_testcase::statement::Prim;
use ferrosuite_testcase::{Statement, Test, VarRef};

use crate::common::{fixtures, worker};

const OPS: &str = "mutation/Ops";

fn call(name: &str, desc: &str, args: &[u32]) -> Statement {
    Statement::method(
        OPS,
        name,
        desc,
        None,
        args.iter().map(|a| VarRef(*a)).collect(),
    )
}

fn int(v: i32) -> Statement {
    Statement::Primitive(Prim::Int(v))
}

/// A host whose `mutation.Ops` is a mutation schema (`None` without a worker binary).
fn ops_host() -> Option<Host> {
    let worker = worker()?;
    Some(
        Host::start(HostConfig {
            classpath: vec![fixtures().clone()],
            instrument: vec![OPS.into()],
            worker: Some(worker),
            mutation: Some(Config::default()),
            ..HostConfig::default()
        })
        .unwrap(),
    )
}

/// Each test's candidate assertions (the default limits) from its run against the original.
fn candidate_assertions(host: &mut Host, tests: &[Test]) -> Vec<Vec<Assertion>> {
    let original = host.run_mutant(tests, true, 0).unwrap();
    tests
        .iter()
        .zip(&original)
        .map(|(t, r)| candidates(t, r, &Limits::default()))
        .collect()
}

#[test]
fn assertions_kill_the_mutants_of_what_they_check_and_the_choice_keeps_every_kill() {
    let Some(mut host) = ops_host() else { return };
    let tests = vec![
        Test::new(vec![int(3), int(4), call("add", "(II)I", &[0, 1])]),
        Test::new(vec![int(2), int(2), call("less", "(II)Z", &[0, 1])]),
        Test::new(vec![int(7), call("notes", "(I)Ljava/lang/String;", &[0])]),
        // Twice the same check: the choice keeps one.
        Test::new(vec![int(3), int(4), call("add", "(II)I", &[0, 1])]),
    ];
    let assertions = candidate_assertions(&mut host, &tests);
    assert!(assertions.iter().all(|a| !a.is_empty()), "{assertions:?}");
    let kills = analyse(&mut host, &tests, &assertions, None).unwrap();
    let mutants = host.mutants().to_vec();
    assert_eq!(kills.mutants, mutants.len());
    assert!(kills.reached < kills.mutants, "{kills:?}");
    assert_eq!(kills.analysed, kills.reached);
    let id = |method: &str, op: Operator| {
        mutants
            .iter()
            .find(|m| m.method.starts_with(&format!("{method} ")) && m.operator == op)
            .unwrap()
            .id
    };
    // `add`'s value assertion kills `+ → -` and the changed return; `less(2, 2)` is false and
    // becomes true under the boundary mutant; `notes(7)` without its `note` call is "!".
    let value_kills = |t: usize| kills.by_assertion[t][0].clone();
    assert!(value_kills(0).contains(&id("add", Operator::Math)));
    assert!(value_kills(0).contains(&id("add", Operator::PrimitiveReturns)));
    assert!(value_kills(1).contains(&id("less", Operator::ConditionalsBoundary)));
    assert!(value_kills(2).contains(&id("notes", Operator::VoidMethodCalls)));
    // `notes` returning null: no exception in the test, the value assertion kills it.
    assert!(value_kills(2).contains(&id("notes", Operator::NullReturns)));

    let chosen = choose(&kills, &returned_values(&tests, &assertions));
    let mut covered: BTreeSet<u32> = kills.by_outcome.iter().flatten().copied().collect();
    for (i, keep) in chosen.iter().enumerate() {
        for &k in keep {
            covered.extend(kills.by_assertion[i][k].iter().copied());
        }
    }
    assert_eq!(covered, kills.killed(), "the choice loses no kill");
    // The repeated test adds nothing.
    assert!(chosen[3].is_empty(), "{chosen:?}");
    assert_eq!(chosen[0].len(), 1, "{chosen:?}");
}

/// A mutant that the shortest tests reaching its site leave alive is run against the longer
/// ones too: the only test whose assertion sees `less`'s boundary mutant is the longest.
#[test]
fn a_mutant_the_shortest_tests_miss_meets_the_longer_ones() {
    use ferrosuite_generate::mutation::MAX_TESTS_PER_MUTANT;
    let Some(mut host) = ops_host() else { return };
    // `less(a, 50)` with a far below 50: `<` and `<=` agree.
    let mut tests: Vec<Test> = (0..2 * MAX_TESTS_PER_MUTANT)
        .map(|a| {
            let a = i32::try_from(a).unwrap();
            Test::new(vec![int(a), int(50), call("less", "(II)Z", &[0, 1])])
        })
        .collect();
    // One statement longer, so that it comes last: `less(2, 2)`.
    tests.push(Test::new(vec![
        int(9),
        int(2),
        int(2),
        call("less", "(II)Z", &[1, 2]),
    ]));
    let assertions = candidate_assertions(&mut host, &tests);
    let kills = analyse(&mut host, &tests, &assertions, None).unwrap();
    let boundary = host
        .mutants()
        .iter()
        .find(|m| m.method.starts_with("less ") && m.operator == Operator::ConditionalsBoundary)
        .unwrap()
        .id;
    let last = tests.len() - 1;
    assert!(
        kills.by_assertion[last]
            .iter()
            .any(|k| k.contains(&boundary)),
        "{:?}",
        kills.by_assertion[last]
    );
    assert!(
        (0..last).all(|i| kills.by_assertion[i].iter().all(|k| !k.contains(&boundary))),
        "only the longest test sees it"
    );
}

/// The pipeline with `mutation_assertions`: the class stays green and the same for a seed and
/// statement budget, every kept assertion was chosen for a kill, and there are fewer of them
/// than candidates.
/// The whole pipeline on the fixtures with mutation analysis on, 20,000 statements, `seed`.
fn pipeline_config(worker: WorkerProgram, seed: u64) -> ferrosuite_generate::Config {
    ferrosuite_generate::Config {
        classpath: vec![fixtures().clone()],
        budget: ferrosuite_search::engine::Budget::statements(20_000),
        seed,
        worker: Some(worker),
        mutation_assertions: true,
        ..ferrosuite_generate::Config::default()
    }
}

#[test]
fn the_pipeline_chooses_assertions_by_mutants_and_stays_green_and_deterministic() {
    let Some(worker) = worker() else { return };
    let config = pipeline_config(worker, 3);
    let quiet = &mut ferrosuite_search::engine::Quiet;
    let g = ferrosuite_generate::generate(&config, "mutation.Ops", quiet).unwrap();
    let m = g.mutation.expect("mutation analysis ran");
    eprintln!("{m:?}");
    let class = g.class.as_ref().expect("a test class");
    assert_eq!(
        g.tests_uncompilable + g.tests_failing,
        0,
        "{}",
        class.source
    );
    assert!(
        m.mutants > 20 && m.reached > 0 && m.analysed == m.reached,
        "{m:?}"
    );
    assert!(m.killed > 0 && m.kept > 0 && m.kept < m.candidates, "{m:?}");
    let again = ferrosuite_generate::generate(&config, "mutation.Ops", quiet).unwrap();
    assert_eq!(again.class.unwrap().source, class.source);
    assert_eq!(again.mutation, Some(m));
}

/// What a call did to its arguments is checked (an array reversed: the arrays get elements
/// first), and the exception the class throws comes with its message.
#[test]
fn arguments_changed_in_place_and_exception_messages_are_asserted() {
    let Some(worker) = worker() else { return };
    let config = pipeline_config(worker, 5);
    let quiet = &mut ferrosuite_search::engine::Quiet;
    let g = ferrosuite_generate::generate(&config, "mutation.Shelf", quiet).unwrap();
    let class = g.class.as_ref().expect("a test class");
    let source = &class.source;
    assert_eq!(g.tests_uncompilable + g.tests_failing, 0, "{source}");
    // `reverse(intArray)` followed by a check of the array's new contents.
    let reversed = source
        .split("@Test")
        .any(|t| t.contains("Shelf.reverse(") && t.contains("assertArrayEquals(new int[] {"));
    assert!(reversed, "{source}");
    assert!(source.contains("getMessage());"), "{source}");
    assert!(source.contains("\"negative: "), "{source}");
    let m = g.mutation.expect("mutation analysis ran");
    assert!(m.killed > 0 && m.kept > 0, "{m:?}");
}

/// A builder's call returning the builder itself is checked with `assertSame`, not with
/// `assertNotNull`; a call returning a new object (`copy()`) never with `assertSame`.
#[test]
fn a_builder_returning_itself_is_checked_with_assert_same() {
    let Some(worker) = worker() else { return };
    let config = pipeline_config(worker, 1);
    let quiet = &mut ferrosuite_search::engine::Quiet;
    let g = ferrosuite_generate::generate(&config, "mutation.Chain", quiet).unwrap();
    let class = g.class.as_ref().expect("a test class");
    let source = &class.source;
    assert_eq!(g.tests_uncompilable + g.tests_failing, 0, "{source}");
    let tests: Vec<&str> = source.split("@Test").skip(1).collect();
    // `Chain chain2 = chain.add(…); assertSame(chain, chain2);`
    let same = tests.iter().any(|t| {
        t.lines().any(|l| {
            let l = l.trim();
            l.starts_with("assertSame(") && t.contains(".add(")
        })
    });
    assert!(same, "{source}");
    for t in &tests {
        for l in t.lines().map(str::trim) {
            if let Some(args) = l.strip_prefix("assertSame(") {
                // The checked variable is what `add` returned, never what `copy` did.
                let got = args.split(", ").nth(1).unwrap_or("").trim_end_matches(");");
                let defined = t
                    .lines()
                    .find(|d| d.contains(&format!(" {got} = ")))
                    .unwrap_or_default();
                assert!(defined.contains(".add("), "{t}");
            }
        }
    }
    // No `assertNotNull` on what `add` returned once its identity is checked.
    assert!(
        !tests
            .iter()
            .any(|t| t.contains(".add(") && t.contains("assertNotNull(") && !t.contains(".copy(")),
        "{source}"
    );
}
