//! Random tests on real clusters: 200 per class, all valid, all calling the class under test.

use std::collections::BTreeSet;

use ferrosuite_bytecode::classpath::ClassPath;
use ferrosuite_search::Config;
use ferrosuite_testcase::statement::{Prim, Statement};
use rand_chacha::ChaCha8Rng;
use rand_chacha::rand_core::SeedableRng;

use crate::common::{
    Subject, TypeCheck, check_test, fixture_cp, registry, stack, subject_jar, touches_cut,
};

/// Generates 200 random tests and checks them; returns the CUT members they call.
fn two_hundred(subject: &Subject, cp: &ClassPath, seed: u64) -> BTreeSet<String> {
    let config = Config::default();
    let types = TypeCheck::new(cp, &subject.cluster);
    let f = subject.factory(config.clone());
    let cut = &subject.cluster.cut;
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut members = BTreeSet::new();
    let mut total = 0;
    for i in 0..200 {
        let t = f.random_test(&mut rng).unwrap();
        check_test(&t, &config);
        types.check(&t);
        assert!(
            t.statements.iter().any(|s| touches_cut(s, cut)),
            "test {i} does not call {cut}:\n{t}"
        );
        for s in &t.statements {
            if touches_cut(s, cut) {
                if let Statement::Method { name, .. }
                | Statement::FieldRead { name, .. }
                | Statement::FieldWrite { name, .. } = s
                {
                    members.insert(name.to_string());
                }
                if let Statement::Constructor { descriptor, .. } = s {
                    members.insert(format!("<init>{descriptor}"));
                }
            }
        }
        total += t.len();
        if i < 3 {
            println!("--- {cut} test {i} ({} statements)\n{t}", t.len());
        }
    }
    println!("{cut}: 200 tests, {total} statements, members used: {members:?}");
    members
}

#[test]
fn stack_tests_are_valid_and_exercise_push_and_pop() {
    let used = two_hundred(stack(), fixture_cp(), 1);
    for m in ["<init>()V", "push", "pop"] {
        assert!(used.contains(m), "{m} never used: {used:?}");
    }
}

#[test]
fn registry_tests_are_valid_and_cover_most_of_its_api() {
    let s = registry();
    let used = two_hundred(s, fixture_cp(), 2);
    let api: BTreeSet<String> = s
        .cluster
        .methods
        .iter()
        .map(|m| m.name.to_string())
        .collect();
    let missing: Vec<&String> = api.iter().filter(|m| !used.contains(*m)).collect();
    assert!(missing.is_empty(), "never called: {missing:?}");
}

#[test]
fn registry_parameters_use_generators_subtypes_and_enums() {
    let s = registry();
    let f = s.factory(Config::default());
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    let mut classes = BTreeSet::new();
    let mut enum_constants = 0;
    let mut arrays = 0;
    for _ in 0..200 {
        let t = f.random_test(&mut rng).unwrap();
        for st in &t.statements {
            match st {
                Statement::Constructor { class, .. } | Statement::Method { class, .. } => {
                    classes.insert(class.clone());
                }
                Statement::EnumConstant { .. } => enum_constants += 1,
                Statement::ArrayNew { .. } => arrays += 1,
                _ => {}
            }
        }
    }
    // Shape is an interface made through its implementation Circle; Money through its static
    // factory; Counter (abstract) through SimpleCounter or Counter.create().
    for c in ["cluster/Circle", "cluster/Money", "java/lang/Integer"] {
        assert!(classes.contains(c), "{c} never created: {classes:?}");
    }
    assert!(enum_constants > 0 && arrays > 0);
}

#[test]
fn harvested_constants_seed_values() {
    // With seeding always on, every string comes from Registry's literals.
    let s = registry();
    let f = s.factory(Config {
        seed_probability: 1.0,
        primitive_reuse_probability: 0.0,
        ..Config::default()
    });
    let mut rng = ChaCha8Rng::seed_from_u64(4);
    let mut strings = BTreeSet::new();
    for _ in 0..100 {
        let t = f.random_test(&mut rng).unwrap();
        for st in &t.statements {
            if let Statement::Primitive(Prim::String(x)) = st {
                strings.insert(x.clone());
            }
        }
    }
    let harvested: BTreeSet<String> = s.constants.strings.iter().cloned().collect();
    assert!(
        !harvested.is_empty() && strings.is_subset(&harvested),
        "{strings:?} vs {harvested:?}"
    );
}

#[test]
fn commons_lang_tests_are_valid() {
    let Some(jar) = subject_jar("commons-lang3") else {
        return;
    };
    let cp = ClassPath::parse(&format!("{}:jrt", jar.display())).unwrap();
    for cut in [
        "org/apache/commons/lang3/StringUtils",
        "org/apache/commons/lang3/mutable/MutableInt",
        "org/apache/commons/lang3/text/StrBuilder",
    ] {
        let s = Subject::build(&cp, cut);
        let used = two_hundred(&s, &cp, 5);
        assert!(used.len() > 20, "{cut}: only {used:?}");
    }
}
