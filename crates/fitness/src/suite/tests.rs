//! Tests of whole-suite fitness: the terms of each criterion on the sample class, and the
//! scorer against the merged reference for any traces and any combination of criteria.

#![allow(clippy::unwrap_used, clippy::float_cmp, clippy::many_single_char_names)]

use proptest::prelude::*;

use super::*;
use crate::testutil::{Sample, sample, slot};
use crate::{Config, Criteria, GoalSet, Target, names};

fn enter(goals: &GoalSet, t: &mut Trace, name: &str) {
    let m = goals.methods().iter().find(|m| m.name == name).unwrap();
    t.add_method(m.probe);
}

#[test]
fn branch_term_follows_the_paper() {
    let s = sample();
    let goals = s.goals(Config {
        criteria: Criteria::branch(),
        ..Config::default()
    });
    // 7 methods, 11 branches: nothing ran.
    let empty = goals.suite_fitness(&[]);
    assert_eq!(empty.total, 18.0);
    assert_eq!(goals.max_suite_fitness(), 18.0);
    assert_eq!((empty.covered, empty.goals), (0, 14));
    // abs(-1): entered, taken once the `not taken` way (a < 0), distance 1 to `taken`.
    let mut t = Trace::new();
    enter(&goals, &mut t, "abs");
    t.add_branch(slot(&goals, "abs(I)I line 10 @1 ifge not taken"), 1, 0.0);
    t.add_branch(slot(&goals, "abs(I)I line 10 @1 ifge taken"), 0, 1.0);
    // The predicate ran once: the other branch counts 1, not ν(1).
    let f1 = goals.suite_fitness(&[&t]);
    assert_eq!(f1.total, 18.0 - 1.0 - 1.0);
    // A second test running it again the same way: now ν(1) = 0.5.
    let f2 = goals.suite_fitness(&[&t, &t]);
    assert_eq!(f2.total, 18.0 - 1.0 - 1.0 - 0.5);
    assert_eq!(f2.part(names::BRANCH), Some(f2.total));
    assert_eq!(f2.part(names::LINE), None);
    assert!(!f2.complete());
}

#[test]
fn terms_of_the_other_criteria() {
    let s = sample();
    let goals = s.goals(Config {
        criteria: Criteria::all(),
        ..Config::default()
    });
    let empty = goals.suite_fitness(&[]);
    let parts: Vec<(&str, f64)> = empty.parts.clone();
    assert_eq!(
        parts,
        [
            (names::BRANCH, 18.0),
            (names::LINE, 17.0),
            (names::METHOD, 7.0),
            (names::METHOD_NO_EXCEPTION, 6.0),
            (names::EXCEPTION, 1.0),
        ]
    );
    assert_eq!(empty.total, 49.0);
    assert_eq!(goals.max_suite_fitness(), 49.0);
    let fail = goals.resolve("t/Sample", "fail", "()V").unwrap();
    let key = (fail.class, fail.id);
    let mut t = Trace::new();
    enter(&goals, &mut t, "fail");
    t.add_call(key, false);
    t.add_exception(key, "java.lang.NullPointerException");
    let f = goals.suite_fitness(&[&t]);
    assert_eq!(f.part(names::METHOD), Some(6.0));
    assert_eq!(f.part(names::METHOD_NO_EXCEPTION), Some(5.5));
    assert_eq!(f.part(names::EXCEPTION), Some(0.5));
    assert_eq!(f.exceptions, 1);
    let c: Vec<(&str, usize, usize)> = goals
        .coverage(&t)
        .iter()
        .map(|c| (c.criterion, c.covered, c.total))
        .collect();
    assert_eq!(
        c,
        [
            (names::BRANCH, 1, 14),
            (names::LINE, 0, 17),
            (names::METHOD, 1, 7),
            (names::METHOD_NO_EXCEPTION, 0, 6),
            (names::EXCEPTION, 0, 0),
        ]
    );
    // A lost test makes the suite as bad as it gets.
    let mut lost = Trace::new();
    lost.mark_lost();
    let l = goals.suite_fitness(&[&t, &lost]);
    assert!(l.lost);
    assert_eq!(l.total, goals.max_suite_fitness());
    let lenient = s.goals(Config {
        lost_test_is_max: false,
        ..Config::default()
    });
    assert!(lenient.suite_fitness(&[&t, &lost]).total < lenient.max_suite_fitness());
}

/// Everything the sample's goals can observe, as indices: per slot (hits, distance),
/// methods entered, lines hit, direct calls.
#[derive(Debug, Clone)]
struct Spec {
    branches: Vec<(u32, u32)>,
    methods: Vec<bool>,
    lines: Vec<bool>,
    calls: Vec<u8>,
}

fn spec() -> impl Strategy<Value = Spec> {
    (
        prop::collection::vec((0u32..3, 0u32..6), 11),
        prop::collection::vec(any::<bool>(), 7),
        prop::collection::vec(prop::bool::weighted(0.7), 17),
        prop::collection::vec(0u8..3, 7),
    )
        .prop_map(|(branches, methods, lines, calls)| Spec {
            branches,
            methods,
            lines,
            calls,
        })
}

/// A trace consistent with real executions: a taken outcome has distance 0, and the
/// method of a predicate that ran was entered.
fn trace(s: &GoalSet, spec: &Spec) -> Trace {
    let mut t = Trace::new();
    let mut entered = spec.methods.clone();
    let slots: Vec<(BranchSlot, usize)> = s
        .goals_of(names::BRANCH)
        .filter_map(|g| match g.target {
            Target::Branch {
                slot, predicate, ..
            } => {
                let p = s.predicate(predicate).unwrap();
                let m = s.methods().iter().position(|m| m.id == p.method).unwrap();
                Some((slot, m))
            }
            _ => None,
        })
        .collect();
    // Predicates run as a whole: every outcome gets a distance when any does.
    for (k, &(slot, m)) in slots.iter().enumerate() {
        let (hits, d) = spec.branches[k];
        let pred_ran = slots
            .iter()
            .enumerate()
            .any(|(j, &(_, mm))| mm == m && spec.branches[j].0 > 0);
        if pred_ran {
            t.add_branch(slot, hits, if hits > 0 { 0.0 } else { f64::from(d + 1) });
            entered[m] = true;
        }
    }
    for (m, e) in entered.iter().enumerate() {
        if *e {
            t.add_method(s.methods()[m].probe);
        }
    }
    for (g, hit) in s.goals_of(names::LINE).zip(&spec.lines) {
        if let (Target::Line { probe, .. }, true) = (&g.target, hit) {
            t.add_line(*probe);
        }
    }
    for (m, c) in s.methods().iter().zip(&spec.calls) {
        if *c > 0 {
            t.add_call((m.class, m.id), *c == 2);
        }
    }
    t
}

fn static_criteria(s: &Sample) -> GoalSet {
    s.goals(Config {
        criteria: Criteria::all().without(names::EXCEPTION),
        ..Config::default()
    })
}

/// A criterion of branch pairs, as class-integration testing has: each branch node with the
/// next one, covered by one test taking both.
#[derive(Debug)]
struct Pairs;

impl crate::Criterion for Pairs {
    fn name(&self) -> &'static str {
        "pairs"
    }

    fn summary(&self) -> &'static str {
        "each branch with the next, taken by one test"
    }

    fn goals(&self, class: &crate::ClassGoals<'_>) -> Vec<crate::criteria::NewGoal> {
        let b = class.branches();
        b.clone()
            .zip(b.skip(1))
            .map(|(r, e)| crate::criteria::NewGoal {
                link: crate::Link::Pair(r, e),
                suffix: "",
            })
            .collect()
    }

    fn suite_term(&self, _: &GoalSet, _: &dyn crate::SuiteView) -> f64 {
        0.0
    }

    fn max_suite_term(&self, _: &GoalSet) -> f64 {
        0.0
    }
}

use ferrosuite_bytecode::instrument::map::BranchSlot;

/// A criterion from outside the built-in five, as another crate would add one: every method
/// called directly by a test statement; its term counts the methods no test called.
#[derive(Debug)]
struct Called;

impl crate::Criterion for Called {
    fn name(&self) -> &'static str {
        "called"
    }

    fn summary(&self) -> &'static str {
        "every method called directly by a test"
    }

    fn goals(&self, class: &crate::ClassGoals<'_>) -> Vec<crate::criteria::NewGoal> {
        class
            .methods()
            .map(|(m, _)| crate::criteria::NewGoal {
                link: crate::Link::MethodNoException(m),
                suffix: " is called",
            })
            .collect()
    }

    fn suite_term(&self, set: &GoalSet, suite: &dyn crate::SuiteView) -> f64 {
        (0..set.methods().len())
            .filter(|&m| suite.called(m).is_none())
            .count() as f64
    }

    fn max_suite_term(&self, set: &GoalSet) -> f64 {
        set.methods().len() as f64
    }
}

fn registry_with_called() -> crate::CriterionRegistry {
    let mut r = crate::CriterionRegistry::builtin();
    r.register(std::sync::Arc::new(Called)).unwrap();
    r
}

#[test]
fn a_criterion_from_outside_gets_goals_and_a_term() {
    let s = sample();
    let registry = registry_with_called();
    let goals = s.goals(Config {
        criteria: registry.parse("called,branch").unwrap(),
        ..Config::default()
    });
    // Registry order: the built-in ones first.
    assert_eq!(goals.config().criteria.to_string(), "branch,called");
    assert_eq!(goals.goals_of("called").count(), 7);
    let g = goals.goals_of("called").next().unwrap();
    assert!(g.description.ends_with(" is called"), "{}", g.description);
    let empty = goals.suite_fitness(&[]);
    assert_eq!(empty.part("called"), Some(7.0));
    let m = &goals.methods()[0];
    let mut t = Trace::new();
    t.add_call((m.class, m.id), false);
    assert_eq!(goals.suite_fitness(&[&t]).part("called"), Some(6.0));
    assert_eq!(
        SuiteScorer::new(&goals).score(&goals, [&t]).part("called"),
        Some(6.0)
    );
}

proptest! {
    #[test]
    fn the_scorer_equals_the_merged_reference(
        specs in prop::collection::vec(spec(), 0..6),
        lost in any::<bool>(),
        lenient in any::<bool>(),
        subset in 1u32..64,
    ) {
        // Any combination of the built-in criteria and of one from outside (`Called`).
        let s = sample();
        let registry = registry_with_called();
        let names: Vec<&str> = registry
            .names()
            .into_iter()
            .enumerate()
            .filter(|(i, _)| subset & (1 << i) != 0)
            .map(|(_, n)| n)
            .collect();
        let criteria = registry.select(names.iter().copied()).unwrap();
        let goals = s.goals(Config {
            criteria,
            lost_test_is_max: !lenient,
            ..Config::default()
        });
        let full = static_criteria(&s);
        let mut traces: Vec<Trace> = specs.iter().map(|x| trace(&full, x)).collect();
        // Exceptions (twice, and from a method outside the goal set) and a lost test.
        if let Some(t) = traces.first_mut() {
            let m = &goals.methods()[0];
            t.add_exception((m.class, m.id), "java.lang.IllegalStateException");
            t.add_exception((m.class, ferrosuite_cfg::MethodId(999)), "java.lang.Error");
            if lost {
                t.mark_lost();
            }
        }
        if let Some(t) = traces.get_mut(1) {
            let m = &goals.methods()[0];
            t.add_exception((m.class, m.id), "java.lang.IllegalStateException");
            // A probe of another class.
            t.add_branch(BranchSlot(10_000), 3, 0.0);
        }
        let refs: Vec<&Trace> = traces.iter().collect();
        let mut scorer = SuiteScorer::new(&goals);
        // Twice: the scratch tables must not keep anything from the first call.
        let _ = scorer.score(&goals, refs.iter().copied().rev());
        let fast = scorer.score(&goals, refs.iter().copied());
        prop_assert_eq!(fast.parts.len(), names.len());
        prop_assert_eq!(&fast, &goals.suite_fitness(&refs));
    }

    #[test]
    fn merged_blocks_score_as_their_tests(
        specs in prop::collection::vec(spec(), 0..8),
        cuts in prop::collection::vec(any::<bool>(), 8),
        nested in any::<bool>(),
        lost in 0usize..10,
    ) {
        let s = sample();
        let goals = s.goals(Config { criteria: Criteria::all(), ..Config::default() });
        let mut traces: Vec<Trace> = specs.iter().map(|x| trace(&goals, x)).collect();
        let m = goals.methods()[0].clone();
        for (k, t) in traces.iter_mut().enumerate() {
            // Exceptions repeated across blocks, and now and then a lost test.
            t.add_exception((m.class, m.id), if k % 2 == 0 { "E0" } else { "E1" });
            if k == lost {
                t.mark_lost();
            }
        }
        let mut scorer = SuiteScorer::new(&goals);
        let compiled: Vec<CompiledTrace> = traces.iter().map(|t| scorer.compile(t)).collect();
        // Cut the suite into blocks where `cuts` says, and merge each.
        let mut blocks: Vec<Vec<&CompiledTrace>> = vec![Vec::new()];
        for (k, c) in compiled.iter().enumerate() {
            blocks.last_mut().unwrap().push(c);
            if cuts[k] {
                blocks.push(Vec::new());
            }
        }
        let mut merged: Vec<CompiledTrace> =
            blocks.iter().map(|b| scorer.merge(b.iter().copied())).collect();
        // The scorer's merge is the simple one.
        for (b, m) in blocks.iter().zip(&merged) {
            prop_assert_eq!(m, &CompiledTrace::merge(b.iter().copied()));
        }
        if nested && merged.len() >= 2 {
            let tail = merged.split_off(merged.len() / 2);
            let m = scorer.merge(&tail);
            merged.push(m);
        }
        let whole = scorer.score_compiled(&goals, &compiled);
        prop_assert_eq!(&scorer.score_compiled(&goals, &merged), &whole);
        let all = scorer.merge(&compiled);
        prop_assert_eq!(&scorer.score_compiled(&goals, [&all]), &whole);
        let refs: Vec<&Trace> = traces.iter().collect();
        prop_assert_eq!(&whole, &goals.suite_fitness(&refs));
        // A merge of one trace is that trace.
        for c in &compiled {
            prop_assert_eq!(&scorer.merge([c]), c);
        }
    }

    #[test]
    fn predicates_counted_by_slot_as_by_asking_every_predicate(spec in spec()) {
        // Compiling counts a predicate's evaluations from the outcome slots a trace holds;
        // asking every predicate for the hits of its slots must give the same sets.
        let s = sample();
        let goals = static_criteria(&s);
        let t = trace(&goals, &spec);
        let mut scorer = SuiteScorer::new(&goals);
        let (mut once, mut twice) = (Vec::new(), Vec::new());
        for (p, predicate) in goals.predicates().iter().enumerate() {
            let n: u32 = predicate.slots.iter().map(|&slot| t.branch(slot).0).sum();
            if n >= 1 {
                set_bit(&mut once, p);
            }
            if n >= 2 {
                set_bit(&mut twice, p);
            }
        }
        let c = scorer.compile(&t);
        prop_assert_eq!(c.once, once);
        prop_assert_eq!(c.twice, twice);
    }

    #[test]
    fn shared_slots_score_as_the_reference(
        specs in prop::collection::vec(spec(), 0..4),
        shared in 0usize..100,
        shared_branch in any::<bool>(),
    ) {
        // Not what instrumentation produces (every outcome has its own slot), but the
        // scorer must not depend on it: one predicate lists an outcome slot twice, or
        // another predicate lists it too.
        let s = sample();
        let mut goals = static_criteria(&s);
        let n = goals.predicates.len();
        prop_assume!(n >= 2);
        let (a, b) = (shared % n, (shared / n + 1) % n);
        let slot = goals.predicates[a].slots[0];
        goals.predicates[a].slots.push(slot);
        if a != b {
            goals.predicates[b].slots.push(slot);
        }
        if shared_branch {
            // Two branch nodes on one slot: the scorer cannot visit the branches not
            // taken in slot order and takes the loop over every branch.
            let last = goals.branches.len() - 1;
            goals.branches[last].slot = goals.branches[0].slot;
        }
        let traces: Vec<Trace> = specs.iter().map(|x| trace(&goals, x)).collect();
        let refs: Vec<&Trace> = traces.iter().collect();
        let mut scorer = SuiteScorer::new(&goals);
        let i = lookup(&scorer.slot_index, slot.0).unwrap();
        prop_assert!(scorer.slot_predicates[i].len() >= 2);
        prop_assert_eq!(scorer.branches_in_slot_order, !shared_branch);
        prop_assert_eq!(scorer.score(&goals, refs.iter().copied()), goals.suite_fitness(&refs));
    }

    #[test]
    fn covered_goals_by_index_equal_asking_every_goal(
        specs in prop::collection::vec(spec(), 1..5),
        criteria in 0usize..3,
    ) {
        let s = sample();
        let criteria = [
            Criteria::all().with(std::sync::Arc::new(Pairs)),
            Criteria::branch(),
            Criteria::all().without(names::LINE),
        ][criteria]
            .clone();
        let mut goals = s.goals(Config { criteria, ..Config::default() });
        let mut traces: Vec<Trace> = specs.iter().map(|x| trace(&goals, x)).collect();
        // Exception goals registered at run time, one trace that throws another, and a
        // probe of another class.
        let m = goals.methods()[0].clone();
        traces[0].add_exception((m.class, m.id), "java.lang.IllegalStateException");
        let _ = goals.discover_goals(&traces[0]);
        traces[0].add_exception((m.class, m.id), "java.lang.Error");
        traces[0].add_branch(BranchSlot(10_000), 3, 0.0);
        for t in &traces {
            prop_assert_eq!(goals.covered(t), goals.covered_by_every_goal(t));
        }
    }

    #[test]
    fn adding_a_test_never_increases_suite_fitness(
        specs in prop::collection::vec(spec(), 1..5),
        extra in spec(),
    ) {
        let s = sample();
        let goals = s.goals(Config { criteria: Criteria::all(), ..Config::default() });
        let traces: Vec<Trace> = specs.iter().map(|x| trace(&goals, x)).collect();
        let refs: Vec<&Trace> = traces.iter().collect();
        let before = goals.suite_fitness(&refs);
        let t = trace(&goals, &extra);
        let mut more = refs.clone();
        more.push(&t);
        let after = goals.suite_fitness(&more);
        prop_assert!(after.total <= before.total, "{} > {}", after.total, before.total);
        prop_assert!(after.covered >= before.covered);
        for ((_, a), (_, b)) in after.parts.iter().zip(&before.parts) {
            prop_assert!(a <= b);
        }
        // The order of the tests does not matter.
        let mut rev = more.clone();
        rev.reverse();
        prop_assert_eq!(&goals.suite_fitness(&rev), &after);
        prop_assert!(after.total >= 0.0 && after.total <= goals.max_suite_fitness());
    }

    #[test]
    fn suite_fitness_is_zero_iff_every_goal_is_covered(
        specs in prop::collection::vec(spec(), 1..6),
    ) {
        let s = sample();
        let goals = static_criteria(&s);
        let traces: Vec<Trace> = specs.iter().map(|x| trace(&goals, x)).collect();
        let refs: Vec<&Trace> = traces.iter().collect();
        let f = goals.suite_fitness(&refs);
        let merged = Trace::merged(refs.iter().copied());
        let all = goals
            .goals()
            .iter()
            .all(|g| goals.is_covered(g.id, &merged));
        prop_assert_eq!(f.total == 0.0, all);
        prop_assert_eq!(f.complete(), all);
        prop_assert_eq!(f.covered, goals.covered(&merged).len());
    }

    #[test]
    fn per_goal_fitness_is_zero_exactly_when_covered(spec in spec()) {
        let s = sample();
        // With branch pairs: covered by one test taking both branches.
        let goals = s.goals(Config {
            criteria: Criteria::all()
                .without(names::EXCEPTION)
                .with(std::sync::Arc::new(Pairs)),
            ..Config::default()
        });
        let t = trace(&goals, &spec);
        assert!(goals.goals().iter().any(|g| matches!(g.target, Target::BranchPair { .. })));
        for g in goals.goals() {
            let f = goals.fitness(g.id, &t);
            prop_assert!(f >= 0.0 && f.is_finite());
            // An oracle straight from the trace.
            let covered = match &g.target {
                Target::Branch { slot, .. } => t.branch(*slot).0 > 0,
                Target::Line { probe, .. } => t.line_hit(*probe),
                Target::Method { probe, .. } => t.method_entered(*probe),
                Target::MethodNoException { method } => {
                    t.call((g.class, *method)) == Some(true)
                }
                Target::Exception { method, exception } => {
                    t.threw((g.class, *method), exception)
                }
                Target::BranchPair { first_class, first, second_class, second } => {
                    let taken = |c, b| {
                        let n = goals.branch_node(c, b).unwrap();
                        t.branch(goals.branches[n].slot).0 > 0
                    };
                    taken(*first_class, *first) && taken(*second_class, *second)
                }
            };
            prop_assert_eq!(f == 0.0, covered, "{}", g);
            // Uncovered goals whose predicate or method ran are closer than 1.
            if let Target::Branch { predicate, .. } = &g.target {
                let ran = goals.predicate(*predicate).unwrap().slots.iter()
                    .any(|&x| t.branch(x).0 > 0);
                prop_assert!(!ran || f < 1.0);
                prop_assert!(ran || f >= 1.0);
            }
        }
    }
}

#[test]
fn zero_is_reached_when_everything_is_covered() {
    // The sample's dead branches can be "covered" by a made-up trace: then, and only then,
    // the static criteria reach 0.
    let s = sample();
    let goals = static_criteria(&s);
    let mut t = Trace::new();
    for p in goals.predicates() {
        for &slot in &p.slots {
            t.add_branch(slot, 2, 0.0);
        }
    }
    for m in goals.methods() {
        t.add_method(m.probe);
        t.add_call((m.class, m.id), true);
    }
    let mut lines = t.clone();
    for g in goals.goals_of(names::LINE) {
        if let Target::Line { probe, .. } = g.target {
            lines.add_line(probe);
        }
    }
    assert!(goals.suite_fitness(&[&t]).total > 0.0);
    let f = goals.suite_fitness(&[&lines]);
    assert_eq!(f.total, 0.0);
    assert!(f.complete());
    assert_eq!(f.coverage(), 1.0);
}
