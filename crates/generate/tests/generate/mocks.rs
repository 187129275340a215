//! Functional mocking end to end: collaborators nothing on the class path implements become
//! Mockito mocks whose answers the search evolves; the emitted tests stub exactly what the
//! code calls, compile and pass with Debian's Mockito 2.23 and with Mockito 5 (when the local
//! Maven repository has it), for JUnit 5 and 4, and are the same for the same seed.

use std::path::PathBuf;

use ferrosuite_emit::JUnit;
use ferrosuite_generate::{Config, JarSearch, generate};
use ferrosuite_search::engine::{Budget, Quiet};

use crate::common::{fixtures, worker};

fn config(junit: JUnit, mockito: Vec<PathBuf>) -> Option<Config> {
    let mut c = Config {
        classpath: vec![fixtures().clone()],
        budget: Budget::statements(20_000),
        seed: 3,
        worker: Some(worker()?),
        test_classpath: mockito,
        ..Config::default()
    };
    c.emit.junit = junit;
    Some(c)
}

/// Mockito 5 from the local Maven repository, if it is there.
fn mockito5() -> Option<Vec<PathBuf>> {
    let jars = JarSearch::new(Vec::new(), None, Some(PathBuf::from("/nonexistent")))
        .mockito()
        .ok()?;
    jars.iter()
        .any(|j| j.to_string_lossy().contains("mockito-core-5."))
        .then_some(jars)
}

#[test]
fn collaborators_without_implementations_are_mocked_and_the_tests_pass() {
    let mut mockitos = vec![("2.23", ferrosuite_testkit::mockito())];
    match mockito5() {
        Some(jars) => mockitos.push(("5", jars)),
        None => eprintln!("no Mockito 5 in ~/.m2/repository: only Mockito 2.23 is tried"),
    }
    for (version, jars) in mockitos {
        for junit in [JUnit::Five, JUnit::Four] {
            let Some(config) = config(junit, jars.clone()) else {
                return;
            };
            let g = generate(&config, "mocking.Meter", &mut Quiet).unwrap();
            let class = g.class.as_ref().expect("a test class");
            eprintln!(
                "Mockito {version}, {junit:?}: {}/{} branches, {} tests\n{}",
                g.branches_covered, g.branches, g.tests_emitted, class.source
            );
            assert_eq!(g.tests_uncompilable + g.tests_failing, 0, "{g:?}");
            let s = &class.source;
            assert!(s.contains("mock(Sensor.class, UNSTUBBED)"), "{s}");
            assert!(s.contains("mock(Source.class, UNSTUBBED)"), "{s}");
            assert!(s.contains(".when(sensor).read();"), "{s}");
            // Every outcome of level() and label() needs answers the search chose.
            for outcome in ["\"high\"", "\"broken\"", "\"steady\"", "\"N\"", "\"?\""] {
                assert!(s.contains(outcome), "{outcome} is not asserted:\n{s}");
            }
            let aborted = match junit {
                JUnit::Five => "TestAbortedException",
                JUnit::Four => "AssumptionViolatedException",
            };
            assert!(s.contains(aborted), "{s}");
            if version == "2.23" && junit == JUnit::Five {
                let again = generate(&config, "mocking.Meter", &mut Quiet).unwrap();
                assert_eq!(again.class.unwrap().source, class.source);
            }
        }
    }
}

#[test]
fn without_mocks_nothing_is_mocked() {
    let Some(mut config) = config(JUnit::Five, ferrosuite_testkit::mockito()) else {
        return;
    };
    let with = generate(&config, "mocking.Meter", &mut Quiet).unwrap();
    config.search.mocking.mocks = false;
    let without = generate(&config, "mocking.Meter", &mut Quiet).unwrap();
    let source = without.class.map(|c| c.source).unwrap_or_default();
    assert!(!source.contains("mock("), "{source}");
    assert!(
        without.branches_covered < with.branches_covered,
        "{} without mocks, {} with",
        without.branches_covered,
        with.branches_covered
    );
}

/// Compiles `fixtures/java`'s `mocking` package as changed by a refactoring (a private field
/// and a private method renamed) into a scratch directory.
fn changed_meter() -> PathBuf {
    let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/generate/changed");
    let out = crate::common::scratch("changed-meter");
    let sources: Vec<PathBuf> = ["mocking/Meter.java"].iter().map(PathBuf::from).collect();
    // The collaborators come from the fixtures; the changed class is found first.
    ferrosuite_testkit::javac(&src, &sources, &[fixtures().clone()], &out).unwrap();
    out
}

#[test]
fn private_access_reaches_private_state_and_a_refactoring_skips_tests_instead_of_failing() {
    for junit in [JUnit::Five, JUnit::Four] {
        refactoring_skips_tests(junit);
    }
}

/// A suite for `mocking.Meter` in `junit` reaches its private state; run against the class
/// with a private field and method renamed, nothing fails and the tests that reach them are
/// skipped (JUnit 4's too: validation's runner names assumption failures).
fn refactoring_skips_tests(junit: JUnit) {
    let Some(mut config) = config(junit, ferrosuite_testkit::mockito()) else {
        return;
    };
    // Private access starts late (at 80 % of the budget).
    config.budget = Budget::statements(60_000);
    let g = generate(&config, "mocking.Meter", &mut Quiet).unwrap();
    let class = g.class.as_ref().expect("a test class");
    let s = &class.source;
    assert!(
        s.contains("PrivateAccess.set(") || s.contains("PrivateAccess.call("),
        "{s}"
    );
    // ready() is true only with private state set.
    assert!(s.contains("assertTrue(flag)"), "{s}");
    let jdk = ferrosuite_bytecode::jdk::JdkSearch::from_env()
        .choose(None, 52)
        .unwrap();
    // The suite against the refactored class, with each Mockito: nothing fails; the tests
    // that reach a renamed member are skipped.
    let changed = changed_meter();
    let mut mockitos = vec![ferrosuite_testkit::mockito()];
    mockitos.extend(mockito5());
    for jars in mockitos {
        let tools = ferrosuite_generate::Tools::new(&jdk, JarSearch::new(jars, None, None));
        let dir = crate::common::scratch("changed-meter-run");
        let round = ferrosuite_generate::validate::check(
            &tools,
            junit,
            8,
            &dir,
            &class.path,
            "mocking.MeterTest",
            s,
            &class.test_names,
            &[changed.clone(), fixtures().clone()],
        )
        .unwrap();
        eprintln!("{junit:?}: {round:?}");
        assert!(
            round.uncompilable.is_empty() && round.failing.is_empty(),
            "{round:?}\n{s}"
        );
        assert!(!round.skipped.is_empty(), "{round:?}");
        // And against the class it was generated for, nothing is skipped.
        let round = ferrosuite_generate::validate::check(
            &tools,
            junit,
            8,
            &dir,
            &class.path,
            "mocking.MeterTest",
            s,
            &class.test_names,
            &[fixtures().clone()],
        )
        .unwrap();
        assert_eq!(
            round,
            ferrosuite_generate::validate::Round::default(),
            "{junit:?}\n{s}"
        );
    }
}

#[test]
fn cast_classes_are_mocked_where_the_code_tests_for_them() {
    let Some(mut config) = config(JUnit::Five, ferrosuite_testkit::mockito()) else {
        return;
    };
    config.budget = Budget::statements(10_000);
    let g = generate(&config, "mocking.Kinds", &mut Quiet).unwrap();
    let class = g.class.as_ref().expect("a test class");
    let s = &class.source;
    assert_eq!(g.tests_uncompilable + g.tests_failing, 0, "{g:?}\n{s}");
    for (outcome, mock) in [
        (
            "\"parameterized\"",
            "mock(ParameterizedType.class, UNSTUBBED)",
        ),
        (
            "\"parameterized ?\"",
            ".when(parameterizedType).getRawType();",
        ),
        ("\"wildcard\"", "mock(WildcardType.class, UNSTUBBED)"),
        ("\"array\"", "mock(GenericArrayType.class, UNSTUBBED)"),
    ] {
        assert!(s.contains(outcome), "{outcome} is not asserted:\n{s}");
        assert!(s.contains(mock), "no {mock}:\n{s}");
    }
    config.search.mocking.mocks = false;
    let without = generate(&config, "mocking.Kinds", &mut Quiet).unwrap();
    assert!(without.branches_covered < g.branches_covered, "{without:?}");
}
