//! The pipeline end to end on the whole-suite paper's `Stack`: search, observed run,
//! stability reruns, emission, `javac` and JUnit — the class written is green, covers what
//! the search covered, and is byte-identical for the same seed and statement budget; bad
//! input gives clear errors.

use std::path::Path;

use ferrosuite_emit::JUnit;
use ferrosuite_generate::{Config, Error, generate, write};
use ferrosuite_search::engine::{Budget, Quiet};

use crate::common::{fixtures, worker};

fn config(junit: JUnit) -> Option<Config> {
    let mut c = Config {
        classpath: vec![fixtures().clone()],
        budget: Budget::statements(30_000),
        seed: 7,
        worker: Some(worker()?),
        ..Config::default()
    };
    c.emit.junit = junit;
    Some(c)
}

#[test]
fn stack_gets_a_green_deterministic_test_class() {
    for junit in [JUnit::Five, JUnit::Four] {
        let Some(config) = config(junit) else { return };
        let g = generate(&config, "examples.Stack", &mut Quiet).unwrap();
        eprintln!(
            "{junit:?}: {}/{} goals, {}/{} branches, {} tests found, {} emitted, unstable {} tests / {} assertions, removed {} uncompilable + {} failing",
            g.covered,
            g.goals,
            g.branches_covered,
            g.branches,
            g.tests_found,
            g.tests_emitted,
            g.tests_unstable,
            g.assertions_unstable,
            g.tests_uncompilable,
            g.tests_failing
        );
        let class = g.class.as_ref().expect("a test class");
        eprintln!("{}", class.source);
        // Validation passed without removing anything, and every feasible branch is covered
        // (the Stack's one infeasible branch aside; with field writes allowed it is feasible).
        assert_eq!(g.tests_uncompilable + g.tests_failing, 0);
        assert!(g.tests_emitted >= 3, "{}", class.source);
        assert!(g.branches_covered + 1 >= g.branches, "{g:?}");
        assert!(
            class.source.contains("EmptyStackException"),
            "{}",
            class.source
        );
        // Same seed and statement budget: the same bytes.
        let again = generate(&config, "examples.Stack", &mut Quiet).unwrap();
        assert_eq!(again.class.as_ref().unwrap().source, class.source);
        // Written under a source root; never over an existing file without being told.
        let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("generate-out-{junit:?}"));
        let _ = std::fs::remove_dir_all(&out);
        let path = write(&out, class, false).unwrap();
        assert_eq!(path, out.join("examples/StackTest.java"));
        let e = write(&out, class, false).unwrap_err();
        assert!(e.to_string().contains("exists"), "{e}");
        write(&out, class, true).unwrap();
    }
}

/// The methods of `env.Clocks` whose value depends on the time.
const TIME_METHODS: [&str; 9] = [
    "dayOfMonth",
    "year",
    "today",
    "hour",
    "millis",
    "epochSecond",
    "clockMillis",
    "viaSupplier",
    "created",
];

/// The assertions of `source` on a value one of `methods` returned: in the assertion itself,
/// or through the variable that holds it.
fn asserted_values<'s>(source: &'s str, methods: &[&str]) -> Vec<&'s str> {
    let mut out = Vec::new();
    for test in source.split("@Test").skip(1) {
        // Variables holding such a value, and the calls that produce one.
        let mut held: Vec<String> = Vec::new();
        for line in test.lines().map(str::trim) {
            let call = methods.iter().any(|t| line.contains(&format!(".{t}(")));
            if let Some((lhs, _)) = line.split_once(" = ")
                && call
                && let Some(var) = lhs.split_whitespace().last()
            {
                held.push(var.to_string());
            }
            if line.starts_with("assert") && !line.starts_with("assertThrows") {
                let words: Vec<&str> = line
                    .split(|c: char| !c.is_alphanumeric() && c != '_')
                    .collect();
                if call || held.iter().any(|v| words.contains(&v.as_str())) {
                    out.push(line);
                }
            }
        }
    }
    out
}

/// Fails when `source` asserts a value one of `methods` returned.
fn assert_none_asserted(source: &str, methods: &[&str]) {
    let found = asserted_values(source, methods);
    assert!(
        found.is_empty(),
        "values of {methods:?} are asserted: {found:?}\n{source}"
    );
}

/// Without the controlled environment, values that depend on the date or the time are not
/// asserted, even those that a rerun on the same day would reproduce (the day of the month,
/// the year, today's date): the stability reruns read shifted clocks. Values that do not
/// depend on the time still are.
#[test]
fn time_dependent_values_are_not_asserted() {
    let Some(mut config) = config(JUnit::Five) else {
        return;
    };
    config.budget = Budget::statements(20_000);
    config.environment = false;
    let g = generate(&config, "env.Clocks", &mut Quiet).unwrap();
    let class = g.class.as_ref().expect("a test class");
    eprintln!("{}", class.source);
    assert!(g.assertions_unstable > 0, "{g:?}");
    assert_none_asserted(&class.source, &TIME_METHODS);
    // `twice` is asserted wherever it is called with its result kept.
    if class.source.contains("Clocks.twice(") {
        assert!(class.source.contains("assertEquals("), "{}", class.source);
    }
}

/// The machine's time zone, locale and default charset are not asserted: the stability reruns
/// run under others (`RERUN_LOCALES`). The machine's home, user and host are, as the
/// controlled environment fixes them.
#[test]
fn values_of_the_time_zone_locale_and_charset_are_not_asserted() {
    let Some(mut config) = config(JUnit::Five) else {
        return;
    };
    config.budget = Budget::statements(10_000);
    let g = generate(&config, "env.Machine", &mut Quiet).unwrap();
    let class = g.class.as_ref().expect("a test class");
    eprintln!("{}", class.source);
    assert!(
        class.source.contains("Machine.settings("),
        "{}",
        class.source
    );
    assert_none_asserted(&class.source, &["settings"]);
    assert!(class.source.contains("/home/user"), "{}", class.source);
}

#[test]
fn bad_input_gives_clear_errors() {
    let Some(config) = config(JUnit::Five) else {
        return;
    };
    let e = generate(&config, "examples.NoSuchClass", &mut Quiet).unwrap_err();
    assert!(matches!(e, Error::Class { .. }), "{e}");
    assert!(e.to_string().contains("examples.NoSuchClass"), "{e}");
    let e = generate(&config, "examples.Shape", &mut Quiet).unwrap_err();
    assert!(e.to_string().contains("examples.Shape"), "{e}");
    let e = generate(&config, "hostile.BadInit", &mut Quiet).unwrap_err();
    assert!(
        e.to_string().contains("static initialiser throws")
            && e.to_string().contains("NumberFormatException"),
        "{e}"
    );
    let empty = Config {
        classpath: vec![],
        ..config
    };
    let e = generate(&empty, "examples.Stack", &mut Quiet).unwrap_err();
    assert!(e.to_string().contains("class path is empty"), "{e}");
}

/// Java 25 class files: the pipeline takes a JDK that loads them (the default JDK when it
/// does, else an installed one), emits for `--release 25` and validates with that JDK; a JDK
/// named explicitly that is too old is refused with the version needed.
#[test]
fn java_25_class_files_get_a_jdk_that_loads_them() {
    let Some(classes) = crate::common::java25() else {
        return;
    };
    let Some(mut config) = config(JUnit::Five) else {
        return;
    };
    config.classpath = vec![classes];
    let g = generate(&config, "examples.Stack", &mut Quiet).unwrap();
    assert!(g.java >= 25, "{g:?}");
    assert_eq!(g.release, 25);
    let class = g.class.as_ref().expect("a test class");
    assert_eq!(
        g.tests_uncompilable + g.tests_failing,
        0,
        "{}",
        class.source
    );
    assert!(g.tests_emitted >= 3, "{}", class.source);
    assert!(g.branches_covered + 1 >= g.branches, "{g:?}");
    // The same class files with a JDK too old for them, named explicitly.
    let old = ferrosuite_bytecode::jdk::JdkSearch::from_env()
        .installed()
        .into_iter()
        .find(|j| j.feature < 25);
    if let Some(old) = old {
        let named = Config {
            java_home: Some(old.home.clone()),
            ..config
        };
        let e = generate(&named, "examples.Stack", &mut Quiet)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("examples.Stack") && e.contains("need Java 25 or newer"),
            "{e}"
        );
        assert!(e.contains(&old.home.display().to_string()), "{e}");
    }
}

/// The release follows the class files: Java 8 class files give `--release 8`, Java 17 ones
/// `--release 17`, unless a release is given.
#[test]
fn the_release_follows_the_class_files() {
    let Some(mut config) = config(JUnit::Five) else {
        return;
    };
    config.budget = Budget::statements(3_000);
    config.validate = false;
    let g = generate(&config, "examples.Stack", &mut Quiet).unwrap();
    assert_eq!(g.release, 8);
    config.classpath = vec![crate::common::java17()];
    let g = generate(&config, "modern.Shapes", &mut Quiet).unwrap();
    assert_eq!(g.release, 17);
    config.release = Some(11);
    let g = generate(&config, "modern.Shapes", &mut Quiet).unwrap();
    assert_eq!(g.release, 11);
}

/// The methods of `env.Dice` whose value depends on randomness or on how fast time passes.
const RANDOM_METHODS: [&str; 10] = [
    "roll",
    "math",
    "uuid",
    "threadLocal",
    "shuffled",
    "draw",
    "loaded",
    "elapsed",
    "secure",
    "splittable",
];

/// With the controlled environment, code that draws unseeded randomness or times itself gives
/// the same output for the same seed and statement budget, and the emitted class reproduces the
/// environment (hooks calling `ferrosuite-runtime.jar`, no JVM flag): values drawn from
/// randomness or read from the clock are asserted, and the class passes under JUnit 5 and 4.
#[test]
fn the_environment_is_reproduced_and_its_values_asserted() {
    for junit in [JUnit::Five, JUnit::Four] {
        let Some(mut config) = config(junit) else {
            return;
        };
        config.budget = Budget::statements(10_000);
        let g = generate(&config, "env.Dice", &mut Quiet).unwrap();
        let class = g.class.as_ref().expect("a test class");
        eprintln!("{junit:?}:\n{}", class.source);
        assert!(g.environment, "{g:?}");
        assert_eq!(g.tests_uncompilable + g.tests_failing, 0, "{g:?}");
        let s = &class.source;
        assert!(s.contains("import org.ferrosuite.rt.Environment;"), "{s}");
        assert!(s.contains("Environment.install();") && s.contains("Environment.begin();"));
        // Values of randomness and of the clock are asserted, as the search saw them.
        assert!(
            !asserted_values(s, &RANDOM_METHODS).is_empty(),
            "no value of randomness is asserted:\n{s}"
        );
        if junit == JUnit::Five {
            let again = generate(&config, "env.Dice", &mut Quiet).unwrap();
            assert_eq!(again.class.as_ref().unwrap().source, class.source);
        }
    }
}

/// Without the controlled environment, values drawn from the machine's randomness or measured
/// on its clock are not asserted (the reruns draw other numbers), and no hook is written.
#[test]
fn without_the_environment_random_values_are_not_asserted() {
    let Some(mut config) = config(JUnit::Five) else {
        return;
    };
    config.budget = Budget::statements(10_000);
    config.environment = false;
    let g = generate(&config, "env.Dice", &mut Quiet).unwrap();
    let class = g.class.as_ref().expect("a test class");
    eprintln!("{}", class.source);
    assert!(!g.environment && !class.source.contains("Environment"));
    assert_eq!(g.tests_uncompilable + g.tests_failing, 0, "{g:?}");
    assert!(g.assertions_unstable > 0, "{g:?}");
    // `draw(Random)` draws from the test's own `Random`: one built with a seed (`new
    // Random(659L)`) gives the same number in every run, and it may be asserted.
    let unseeded: Vec<&str> = RANDOM_METHODS
        .iter()
        .copied()
        .filter(|m| *m != "draw")
        .collect();
    assert_none_asserted(&class.source, &unseeded);
}

/// Code that branches on a `Class` argument is covered with class literals (`int.class`,
/// `File[].class`, an enum for `Class<E extends Enum<E>>`, a `Number` for
/// `Class<? extends Number>`), and the tests compile and pass. Left out: `first`'s empty-enum
/// branch and `none`'s true branch (they need classes the code does not name or no test can),
/// the private constructor and the private nested class. A boxed result of a method declared
/// to return `Object` is asserted through its box.
#[test]
fn class_parameters_get_class_literals() {
    let Some(config) = config(JUnit::Five) else {
        return;
    };
    let g = generate(&config, "examples.Units", &mut Quiet).unwrap();
    let source = &g.class.as_ref().expect("a test class").source;
    assert_eq!(g.tests_uncompilable + g.tests_failing, 0, "{source}");
    assert!(
        g.branches_covered + 4 >= g.branches,
        "{}/{}\n{source}",
        g.branches_covered,
        g.branches
    );
    for literal in [
        "int.class",
        "File[].class",
        "BigDecimal.class",
        "TimeUnit.class",
    ] {
        assert!(source.contains(literal), "{literal}\n{source}");
    }
    assert!(source.contains(", (int) (Integer) object);"), "{source}");
}
