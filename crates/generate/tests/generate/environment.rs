//! Environment statements end to end on `env.Settings`, which branches on a settings file at a
//! fixed path and on console input: the search adds `Environment.writeFile(…)` and
//! `Environment.consoleInput(…)` once the code looked for the file and read the console, the
//! emitted class passes under JUnit 5 and 4 with the runtime jar, and without the controlled
//! environment no such statement appears (the file stays missing).

use ferrosuite_emit::JUnit;
use ferrosuite_generate::{Config, generate};
use ferrosuite_search::engine::{Budget, Quiet};

use crate::common::{fixtures, worker};

fn config(junit: JUnit) -> Option<Config> {
    let mut c = Config {
        classpath: vec![fixtures().clone()],
        budget: Budget::statements(40_000),
        seed: 3,
        worker: Some(worker()?),
        ..Config::default()
    };
    c.emit.junit = junit;
    Some(c)
}

#[test]
fn files_the_code_looks_for_are_created_by_statements_and_reproduced() {
    for junit in [JUnit::Five, JUnit::Four] {
        let Some(config) = config(junit) else { return };
        let g = generate(&config, "env.Settings", &mut Quiet).unwrap();
        let class = g.class.as_ref().expect("a test class");
        eprintln!("{junit:?}:\n{}", class.source);
        let s = &class.source;
        assert!(g.environment, "{g:?}");
        assert_eq!(g.tests_uncompilable + g.tests_failing, 0, "{g:?}");
        assert!(s.contains("Environment.writeFile("), "{s}");
        // The four outcomes of `load`: missing, empty, "mode=fast" and other content.
        for outcome in ["\"defaults\"", "\"empty\"", "\"fast\"", "\"custom\""] {
            assert!(s.contains(outcome), "{outcome} not asserted:\n{s}");
        }
        assert!(g.branches_covered >= 8, "{g:?}");
    }
}

#[test]
fn without_the_environment_there_are_no_environment_statements() {
    let Some(mut config) = config(JUnit::Five) else {
        return;
    };
    config.environment = false;
    config.budget = Budget::statements(10_000);
    let g = generate(&config, "env.Settings", &mut Quiet).unwrap();
    let s = g.class.as_ref().map_or("", |c| c.source.as_str());
    assert!(!s.contains("Environment"), "{s}");
    assert!(!s.contains("\"fast\""), "{s}");
}
