//! Goal sets of real classes: every branch of the analysis finds its probe slot, every probe
//! slot of a method with goals belongs to exactly one branch goal, and goal lists are
//! deterministic.

use std::collections::BTreeSet;
use std::path::Path;

use ferrosuite_bytecode::classpath::ClassPath;
use ferrosuite_bytecode::instrument::map::{BranchSlot, ProbeMap};
use ferrosuite_bytecode::instrument::probes::{Instrumenter, ProbeConfig};
use ferrosuite_cfg::Analyzer;
use ferrosuite_fitness::{Config, Criteria, GoalSet, Target, names};

use crate::{fixtures, subject};

/// Instruments and analyses every class of `path` (those the instrumenter accepts), builds
/// one goal set over all of them, and checks it against the probe map. Returns the number of
/// classes and branch goals.
fn check_all(path: &Path, limit: usize) -> (usize, usize) {
    let cp = ClassPath::parse(&path.display().to_string()).unwrap();
    let mut names = cp.class_names().unwrap();
    names.sort();
    names.truncate(limit);
    let mut inst = Instrumenter::new(ProbeConfig::default()).with_classpath(&cp);
    let mut instrumented = Vec::new();
    for n in &names {
        let cf = cp.load(n).unwrap();
        if inst.instrument(&cf).is_ok() {
            instrumented.push(n.clone());
        }
    }
    let map: ProbeMap = inst.into_map();
    let analyzer = Analyzer::new(&cp, ferrosuite_cfg::Config::default());
    let config = Config {
        criteria: Criteria::all(),
        ..Config::default()
    };
    let mut b = GoalSet::builder(&map, config.clone());
    let mut analyses = Vec::new();
    for n in &instrumented {
        let a = analyzer.class(n).unwrap();
        let file = cp.load(n).unwrap();
        b.add_class(&a, Some(&file))
            .unwrap_or_else(|e| panic!("{n}: {e}"));
        analyses.push(a);
    }
    let goals = b.build();

    // Branch goals: one per slot of every instrumented method with goals, no slot twice.
    let mut slots = BTreeSet::new();
    for g in goals.goals_of(names::BRANCH) {
        if let Target::Branch { slot, .. } = g.target {
            assert!(slots.insert(slot), "slot {slot} twice: {g}");
        }
    }
    let mut expected: BTreeSet<BranchSlot> = BTreeSet::new();
    for c in &map.classes {
        for m in &c.methods {
            if m.skipped.is_some()
                || m.name == "<clinit>"
                || goals.resolve(&c.name, &m.name, &m.descriptor).is_none()
            {
                continue;
            }
            for site in &m.branches {
                expected.extend(site.outcomes.iter().map(|o| o.slot));
            }
        }
    }
    assert_eq!(slots, expected);
    // Each analysis branch of a method with goals has a goal.
    let mut branches = 0;
    for (ci, a) in analyses.iter().enumerate() {
        for br in &a.branches {
            let m = a.method(br.method);
            if goals.resolve(&a.name, &m.name, &m.descriptor).is_none() {
                continue;
            }
            branches += 1;
            let class = goals.classes()[ci].index;
            assert!(
                goals.branch_goal(class, br.id).is_some(),
                "{}: {}",
                a.name,
                a.describe(br.id)
            );
        }
    }
    assert_eq!(branches, slots.len());
    // Line goals have their probe; the hierarchy is well formed.
    for g in goals.goals() {
        for c in goals.activated_by(g.id) {
            assert_eq!(goals.goal(*c).unwrap().criterion, names::BRANCH);
        }
    }
    for g in goals.initial_goals() {
        assert!(goals.goal(*g).is_some());
    }
    // The same inputs give the same goals.
    let mut again = GoalSet::builder(&map, config);
    for (n, a) in instrumented.iter().zip(&analyses) {
        again.add_class(a, Some(&cp.load(n).unwrap())).unwrap();
    }
    let again = again.build();
    assert_eq!(again.goals(), goals.goals());
    assert_eq!(again.initial_goals(), goals.initial_goals());
    (instrumented.len(), slots.len())
}

#[test]
fn every_fixture_branch_has_its_probe_slot() {
    let (classes, branches) = check_all(&fixtures().join("java8"), usize::MAX);
    assert!(
        classes > 40 && branches > 200,
        "{classes} classes, {branches} branches"
    );
    let (classes, branches) = check_all(&fixtures().join("java17"), usize::MAX);
    assert!(
        classes > 5 && branches > 10,
        "{classes} classes, {branches} branches"
    );
}

#[test]
fn every_commons_lang_branch_has_its_probe_slot() {
    let Some(jar) = subject("commons-lang3") else {
        return;
    };
    let (classes, branches) = check_all(&jar, 400);
    eprintln!("commons-lang3 (first 400 classes): {classes} classes, {branches} branch goals");
    assert!(
        classes > 100 && branches > 5_000,
        "{classes} classes, {branches} branches"
    );
}

/// Every class of the Debian subject jars (slow: run with `--ignored`).
#[test]
#[ignore = "slow: every class of five subject jars"]
fn every_subject_branch_has_its_probe_slot() {
    for name in [
        "commons-lang3",
        "commons-collections4",
        "commons-math3",
        "joda-time",
        "guava",
    ] {
        if let Some(jar) = subject(name) {
            let (classes, branches) = check_all(&jar, usize::MAX);
            eprintln!("{name}: {classes} classes, {branches} branch goals");
        }
    }
}
