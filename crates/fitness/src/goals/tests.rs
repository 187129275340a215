//! Unit tests of goal sets: listing by criterion, lookups, DynaMOSA activation, options, errors.

use ferrosuite_bytecode::instrument::map::ProbeMap;

use super::*;
use crate::criteria::names;
use crate::testutil::sample;
use crate::{Criteria, Error, Trace};

fn descriptions(goals: &GoalSet, c: &str) -> Vec<String> {
    goals.goals_of(c).map(|g| g.description.clone()).collect()
}

#[test]
fn goals_are_listed_by_criterion_class_and_code_order() {
    let s = sample();
    let goals = s.goals(Config::default());
    assert_eq!(
        descriptions(&goals, names::BRANCH),
        [
            "t.Sample.abs(I)I line 10 @1 ifge taken",
            "t.Sample.abs(I)I line 10 @1 ifge not taken",
            "t.Sample.nested(II)I line 20 @1 ifle taken",
            "t.Sample.nested(II)I line 20 @1 ifle not taken",
            "t.Sample.nested(II)I line 21 @5 ifle taken",
            "t.Sample.nested(II)I line 21 @5 ifle not taken",
            "t.Sample.dead(I)I line 31 @3 ifeq taken [unreachable]",
            "t.Sample.dead(I)I line 31 @3 ifeq not taken [unreachable]",
            "t.Sample.pick(I)I line 40 @1 lookupswitch case 1",
            "t.Sample.pick(I)I line 40 @1 lookupswitch case 5",
            "t.Sample.pick(I)I line 40 @1 lookupswitch default",
            "t.Sample.<init>()V (no branches)",
            "t.Sample.fail()V (no branches)",
            "t.Sample.helper()V (no branches)",
        ]
    );
    let lines: Vec<u16> = goals
        .goals_of(names::LINE)
        .map(|g| g.line.unwrap())
        .collect();
    assert_eq!(
        lines,
        [
            1, 10, 11, 12, 20, 21, 22, 23, 24, 30, 31, 40, 41, 42, 43, 50, 60
        ]
    );
    assert_eq!(goals.goals_of(names::METHOD).count(), 7);
    assert_eq!(goals.goals_of(names::EXCEPTION).count(), 0);
    assert_eq!(goals.static_goal_count(), 14 + 17 + 7);
    for (i, g) in goals.goals().iter().enumerate() {
        assert_eq!(g.id, GoalId(i as u32));
    }
    // Dead code is flagged, for branches and lines.
    let dead: Vec<&str> = goals
        .goals()
        .iter()
        .filter(|g| !g.reachable)
        .map(|g| g.description.as_str())
        .collect();
    assert_eq!(dead.len(), 3, "{dead:?}");
    assert_eq!(dead[2], "t.Sample line 31 [unreachable]");
    // The same inputs give the same goals.
    assert_eq!(sample().goals(Config::default()).goals(), goals.goals());
}

#[test]
fn methods_resolve_by_hash_as_by_scanning_their_class() {
    let goals = sample().goals(Config::default());
    let mut asked = Vec::new();
    for m in &goals.methods {
        let class = &goals.classes[m.class.index()].name;
        for c in [class.clone(), class.replace('/', ".")] {
            asked.push((c.clone(), m.name.clone(), m.descriptor.clone()));
            asked.push((c.clone(), m.name.clone(), "()J".to_string()));
            asked.push((c, format!("{}x", m.name), m.descriptor.clone()));
        }
        asked.push(("t/Other".into(), m.name.clone(), m.descriptor.clone()));
    }
    let mut found = 0;
    for (c, n, d) in &asked {
        let fast = goals.resolve(c, n, d).map(|m| (m.class, m.id));
        let scan = goals.resolve_by_scan(c, n, d).map(|m| (m.class, m.id));
        assert_eq!(fast, scan, "{c}.{n}{d}");
        found += usize::from(fast.is_some());
    }
    assert_eq!(found, 2 * goals.methods.len());
}

#[test]
fn branch_goals_know_their_slots_and_predicates_their_siblings() {
    let s = sample();
    let goals = s.goals(Config::default());
    let site = |m: &str, off: u32| {
        let mp = s.map.classes[0]
            .methods
            .iter()
            .find(|x| x.name == m)
            .unwrap();
        mp.branches
            .iter()
            .find(|b| b.offset == off)
            .unwrap()
            .clone()
    };
    for g in goals.goals_of(names::BRANCH) {
        let Target::Branch {
            branch,
            outcome,
            predicate,
            slot,
        } = g.target
        else {
            continue;
        };
        let b = s.analysis.branch(branch);
        assert_eq!(b.outcome, outcome);
        let p = goals.predicate(predicate).unwrap();
        assert_eq!(p.offset, b.offset);
        let name = &s.analysis.method(b.method).name;
        let site = site(name, b.offset);
        let slots: Vec<BranchSlot> = site.outcomes.iter().map(|o| o.slot).collect();
        assert_eq!(p.slots, slots);
        assert!(p.slots.contains(&slot));
        let label = site
            .outcomes
            .iter()
            .find(|o| o.slot == slot)
            .unwrap()
            .label
            .clone();
        assert_eq!(label, outcome.to_string());
    }
    assert_eq!(goals.predicates().len(), 5);
    // Method goals know their entry probes; the private helper has no
    // method-no-exception goal; `fail` declares IOException.
    let all = sample().goals(Config {
        criteria: Criteria::all(),
        ..Config::default()
    });
    for m in all.methods() {
        let mp = s.map.classes[0]
            .methods
            .iter()
            .find(|x| x.name == m.name)
            .unwrap();
        assert_eq!(m.probe, mp.id);
    }
    assert_eq!(all.goals_of(names::METHOD_NO_EXCEPTION).count(), 6);
    let fail = all.resolve("t/Sample", "fail", "()V").unwrap();
    assert!(fail.declares("java.io.IOException"));
    assert!(
        all.resolve("t.Sample", "helper", "()V")
            .unwrap()
            .is_private()
    );
    assert!(all.resolve("t/Other", "fail", "()V").is_none());
}

#[test]
fn dynamosa_starts_with_uncontrolled_goals_and_activates_nested_ones() {
    let s = sample();
    let goals = s.goals(Config::default());
    let id = |what: &str| {
        goals
            .goals()
            .iter()
            .find(|g| g.description == what)
            .unwrap()
            .id
    };
    let outer_true = id("t.Sample.nested(II)I line 20 @1 ifle not taken");
    let inner: Vec<GoalId> = vec![
        id("t.Sample.nested(II)I line 21 @5 ifle taken"),
        id("t.Sample.nested(II)I line 21 @5 ifle not taken"),
    ];
    assert_eq!(goals.activated_by(outer_true), inner.as_slice());
    let initial = goals.initial_goals();
    for g in &inner {
        assert!(!initial.contains(g));
    }
    let dead = id("t.Sample.dead(I)I line 31 @3 ifeq taken [unreachable]");
    assert!(!initial.contains(&dead));
    // Everything else starts active, lines and methods included.
    assert_eq!(initial.len(), goals.static_goal_count() - 4);
    assert!(initial.windows(2).all(|w| w[0] < w[1]));
    assert!(goals.activated_by(GoalId(9999)).is_empty());
}

#[test]
fn exception_goals_are_registered_once_in_trace_order() {
    let s = sample();
    let mut goals = s.goals(Config::default());
    let fail = goals.resolve("t/Sample", "fail", "()V").unwrap();
    let key = (fail.class, fail.id);
    let abs = goals.resolve("t/Sample", "abs", "(I)I").unwrap();
    let abs_key = (abs.class, abs.id);
    let mut t = Trace::new();
    t.add_exception(key, "java.lang.NullPointerException");
    t.add_exception(abs_key, "java.lang.Error");
    let n = goals.goals().len();
    let new = goals.discover_goals(&t);
    assert_eq!(new, [GoalId(n as u32), GoalId(n as u32 + 1)]);
    assert_eq!(
        goals.goals()[n].description,
        "t.Sample.abs(I)I throws java.lang.Error"
    );
    assert!(goals.discover_goals(&t).is_empty());
    assert_eq!(
        goals.exception_goal(key.0, key.1, "java.lang.NullPointerException"),
        Some(GoalId(n as u32 + 1))
    );
    assert_eq!(goals.fitness(new[1], &t), 0.0);
    assert_eq!(goals.fitness(new[1], &Trace::new()), 1.0);
    assert_eq!(goals.static_goal_count(), n);
    // Without the criterion nothing is registered.
    let mut plain = s.goals(Config {
        criteria: Criteria::branch(),
        ..Config::default()
    });
    assert!(plain.discover_goals(&t).is_empty());
}

#[test]
fn options_exclude_and_include_methods() {
    let s = sample();
    let only_branch = s.goals(Config {
        criteria: Criteria::branch(),
        ..Config::default()
    });
    assert_eq!(only_branch.goals().len(), 14);
    assert!(only_branch.initial_goals().len() < 14);
    let lines = s.goals(Config {
        criteria: "line".parse::<Criteria>().unwrap(),
        ..Config::default()
    });
    assert_eq!(lines.goals().len(), 17);
    assert_eq!(lines.initial_goals().len(), 17);
    assert!(lines.notes().is_empty());
}

#[test]
fn mismatches_and_misuse_are_errors() {
    let s = sample();
    let err = |map: &ProbeMap| {
        GoalSet::for_class(map, Config::default(), &s.analysis, None)
            .unwrap_err()
            .to_string()
    };
    assert!(err(&ProbeMap::new()).contains("not in the probe map"));
    let mut moved = s.map.clone();
    moved.classes[0].methods[1].branches[0].offset = 2;
    let e = err(&moved);
    assert!(
        e.contains("t.Sample.abs(I)I") && e.contains("offset 1"),
        "{e}"
    );
    let mut retargeted = s.map.clone();
    retargeted.classes[0].methods[1].branches[0].outcomes[0].target = 4;
    assert!(err(&retargeted).contains("leads to offset 7"));
    let mut extra = s.map.clone();
    let mut site = extra.classes[0].methods[1].branches[0].clone();
    site.offset = 5;
    extra.classes[0].methods[1].branches.push(site);
    assert!(err(&extra).contains("2 outcomes, the analysis 0 branches"));
    let mut b = GoalSet::builder(&s.map, Config::default());
    b.add_class(&s.analysis, None).unwrap();
    assert!(matches!(
        b.add_class(&s.analysis, None),
        Err(Error::DuplicateClass { .. })
    ));
    // A failed class leaves the builder as it was.
    let mut b = GoalSet::builder(&moved, Config::default());
    assert!(b.add_class(&s.analysis, None).is_err());
    assert!(b.set.methods.is_empty() && b.set.predicates.is_empty());
    assert!(b.set.branches.is_empty() && b.set.classes.is_empty());
    assert_eq!(b.build().goals().len(), 0);
    let other =
        ferrosuite_bytecode::ClassFile::new_class("t/Other", "java/lang/Object", 50).unwrap();
    let mut b = GoalSet::builder(&s.map, Config::default());
    assert!(matches!(
        b.add_class(&s.analysis, Some(&other)),
        Err(Error::WrongClassFile { .. })
    ));
    // A method the instrumenter skipped has no goals, and a note says why.
    let mut skipped = s.map.clone();
    skipped.classes[0].methods[1].skipped = Some("too large".into());
    skipped.classes[0].methods[1].branches.clear();
    let g = GoalSet::for_class(&skipped, Config::default(), &s.analysis, None).unwrap();
    assert!(g.resolve("t/Sample", "abs", "(I)I").is_none());
    assert_eq!(g.notes().len(), 1);
    assert!(g.notes()[0].contains("too large"));
}

proptest::proptest! {
    #[test]
    fn keyed_goals_list_what_a_scan_of_the_pairs_finds(
        pairs in proptest::collection::vec((0u32..40, 0u32..100), 0..30),
        spread in proptest::prelude::any::<bool>(),
    ) {
        // Spread keys take the sparse path (binary search), close ones the rows.
        let key = |k: u32| if spread { k * 100_000 } else { 1_000 + k };
        let pairs: Vec<(u32, GoalId)> = pairs.iter().map(|&(k, g)| (key(k), GoalId(g))).collect();
        let keyed = KeyedGoals::new(pairs.clone());
        let distinct: std::collections::BTreeSet<u32> = pairs.iter().map(|p| p.0).collect();
        proptest::prop_assert_eq!(keyed.keys.is_empty(), !spread || distinct.len() < 2);
        for k in (0..42).map(key).chain([0, u32::MAX]) {
            let mut want: Vec<GoalId> =
                pairs.iter().filter(|p| p.0 == k).map(|p| p.1).collect();
            want.sort_unstable();
            proptest::prop_assert_eq!(keyed.get(k), want.as_slice());
        }
    }
}

/// A criterion from outside with goals found at run time: each method a test entered, once,
/// as a goal of its own (covered by entering it).
#[derive(Debug)]
struct Seen;

impl crate::Criterion for Seen {
    fn name(&self) -> &'static str {
        "seen"
    }

    fn summary(&self) -> &'static str {
        "every method some test entered"
    }

    fn goals(&self, _class: &ClassGoals<'_>) -> Vec<crate::NewGoal> {
        Vec::new()
    }

    fn discover(&self, set: &mut GoalSet, trace: &Trace) -> Vec<GoalId> {
        let entered: Vec<usize> = (0..set.methods().len())
            .filter(|&m| trace.method_entered(set.methods()[m].probe))
            .filter(|&m| !set.links_of("seen").any(|l| l == Link::Method(m)))
            .collect();
        entered
            .into_iter()
            .filter_map(|m| {
                let cm = &set.methods()[m];
                let target = Target::Method {
                    method: cm.id,
                    probe: cm.probe,
                };
                let description = format!("{} seen", cm.name);
                set.add_goal("seen", Link::Method(m), target, description)
                    .ok()
            })
            .collect()
    }

    fn suite_term(&self, _set: &GoalSet, _suite: &dyn crate::SuiteView) -> f64 {
        0.0
    }

    fn max_suite_term(&self, _set: &GoalSet) -> f64 {
        0.0
    }
}

#[test]
fn goals_found_at_run_time_by_a_criterion_from_outside_are_covered() {
    let s = sample();
    let mut registry = crate::CriterionRegistry::builtin();
    registry.register(std::sync::Arc::new(Seen)).unwrap();
    let mut goals = s.goals(Config {
        criteria: registry.parse("branch,seen").unwrap(),
        ..Config::default()
    });
    let before = goals.goals().len();
    let abs = goals
        .methods()
        .iter()
        .position(|m| m.name == "abs")
        .unwrap();
    let mut t = Trace::new();
    t.add_method(goals.methods()[abs].probe);
    let new = goals.discover_goals(&t);
    assert_eq!(new.len(), 1);
    assert!(goals.discover_goals(&t).is_empty(), "found once");
    assert_eq!(goals.goals().len(), before + 1);
    assert_eq!(goals.goal(new[0]).unwrap().criterion, "seen");
    // Covered as the index-free reference says, through `covered` (what the archive reads).
    assert!(goals.covered(&t).contains(&new[0]));
    assert_eq!(goals.covered(&t), goals.covered_by_every_goal(&t));
    assert!(goals.reached(new[0], &t) && !goals.covered(&Trace::new()).contains(&new[0]));
    // What add_goal refuses: another criterion's name, a link that names nothing, an
    // exception link without an exception.
    let target = || Target::Method {
        method: goals.methods()[abs].id,
        probe: goals.methods()[abs].probe,
    };
    let (t1, t2, t3) = (target(), target(), target());
    assert!(
        goals
            .add_goal("line", Link::Method(abs), t1, "x".into())
            .is_err()
    );
    assert!(
        goals
            .add_goal("seen", Link::Method(9_999), t2, "x".into())
            .is_err()
    );
    assert!(
        goals
            .add_goal("seen", Link::Exception(abs), t3, "x".into())
            .is_err()
    );
}
