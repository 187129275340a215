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
