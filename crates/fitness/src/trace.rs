//! The execution trace fitness reads: a compact summary of one test's execution (or, merged,
//! of a whole suite's).
//!
//! A [`Trace`] keeps exactly what the criteria need and nothing else, so the search can cache
//! one per test instead of the whole [`TestResult`]:
//!
//! - per branch slot: times taken and the smallest distance to taking it (the probe data);
//! - line probes and method-entry probes that ran;
//! - per method of the classes under test called *directly* by a test statement: whether some
//!   call returned normally (method-no-exception criterion);
//! - per such method: the exception classes its calls threw (exception criterion);
//! - whether the test was lost (time-out or crashed worker).
//!
//! Merging traces ([`Trace::merge`], [`Trace::merged`]) sums hits, keeps the smallest
//! distances and unites the rest: the merged trace of a suite is what whole-suite fitness
//! reads. Every list is kept sorted, so traces compare and serialise deterministically.
//!
//! ```
//! use ferrosuite_bytecode::instrument::map::BranchSlot;
//! use ferrosuite_fitness::Trace;
//! let mut a = Trace::new();
//! a.add_branch(BranchSlot(0), 1, 0.0);
//! a.add_branch(BranchSlot(1), 0, 4.0);
//! let mut b = Trace::new();
//! b.add_branch(BranchSlot(1), 0, 2.0);
//! let suite = Trace::merged([&a, &b]);
//! assert_eq!(suite.branch(BranchSlot(0)), (1, 0.0));
//! assert_eq!(suite.branch(BranchSlot(1)), (0, 2.0));
//! assert_eq!(suite.branch(BranchSlot(7)), (0, f64::INFINITY)); // never ran
//! ```

use std::cmp::Ordering;

use ferrosuite_bytecode::instrument::map::{BranchSlot, LineId, MethodId as ProbeMethodId};
use ferrosuite_cfg::MethodId;
use ferrosuite_executor::{
    Outcome as StatementOutcome, ProbeSnapshot, Status, TestResult, ThrowKind,
};
use ferrosuite_testcase::{Statement, Test};
use serde::{Deserialize, Serialize};

use crate::goals::GoalSet;
use crate::ids::ClassIndex;

/// One method of a class under test, as the trace names it.
pub type MethodKey = (ClassIndex, MethodId);

/// A compact summary of one execution (see the module documentation).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Trace {
    branches: Vec<(BranchSlot, u32, f64)>,
    lines: Vec<LineId>,
    methods: Vec<ProbeMethodId>,
    calls: Vec<(MethodKey, bool)>,
    exceptions: Vec<(MethodKey, String)>,
    lost: bool,
}

impl Trace {
    /// An empty trace: nothing ran.
    #[must_use]
    pub fn new() -> Self {
        Trace::default()
    }

    /// The probe part of a trace, from an execution host's snapshot (also how the probe data
    /// of the static initialisers, `Ready::init_probes`, becomes a trace to merge into every
    /// test's).
    #[must_use]
    pub fn from_probes(p: &ProbeSnapshot) -> Self {
        let mut branches: Vec<(BranchSlot, u32, f64)> = p
            .branches
            .iter()
            .map(|&(s, h, d)| (BranchSlot(s), h, d))
            .collect();
        // A worker reports each slot once, in slot order: then there is nothing to sort (the
        // check costs one pass; the merge of repeated slots below finds none).
        if !branches.is_sorted_by(|a, b| a.0 < b.0) {
            branches.sort_by_key(|b| b.0);
        }
        branches.dedup_by(|later, kept| {
            if later.0 == kept.0 {
                kept.1 = kept.1.saturating_add(later.1);
                kept.2 = kept.2.min(later.2);
                true
            } else {
                false
            }
        });
        let mut lines: Vec<LineId> = p
            .lines
            .iter()
            .filter(|l| l.1 > 0)
            .map(|l| LineId(l.0))
            .collect();
        sort_unique(&mut lines);
        let mut methods: Vec<ProbeMethodId> = p
            .methods
            .iter()
            .filter(|m| m.1 > 0)
            .map(|m| ProbeMethodId(m.0))
            .collect();
        sort_unique(&mut methods);
        Trace {
            branches,
            lines,
            methods,
            ..Trace::default()
        }
    }

    /// The trace of one executed test: its probe data, and the direct calls of methods of
    /// `goals`' classes with how they ended.
    ///
    /// A statement counts as a call of a method under test when it is a `Method` or
    /// `Constructor` statement naming a class of the goal set and a method declared there.
    /// Its exception counts for the exception criterion when the host attributes it to the code
    /// ([`ThrowKind::Code`]: not sandbox refusals, aborts or resource exhaustion), the call was
    /// not made on a `null` receiver (a `null` statement, or a value observed to be `null`:
    /// that exception is the test's doing), and — unless configured otherwise — the method does
    /// not declare the class in its `throws` clause (exact name). Tests the host reports as
    /// invalid contribute their probe data only; dropped tests (time-out, crash, exhausted
    /// memory: [`Status::dropped`]) are marked lost.
    #[must_use]
    pub fn from_result(goals: &GoalSet, test: &Test, result: &TestResult) -> Self {
        let mut t = Trace::from_probes(&result.probes);
        if result.status.dropped() {
            t.lost = true;
        }
        if matches!(result.status, Status::Invalid(_)) {
            return t;
        }
        for (stmt, outcome) in test.statements.iter().zip(&result.outcomes) {
            let (class, name, descriptor, receiver) = match stmt {
                Statement::Method {
                    class,
                    name,
                    descriptor,
                    receiver,
                    ..
                } => (class, &**name, descriptor, *receiver),
                Statement::Constructor {
                    class, descriptor, ..
                } => (class, "<init>", descriptor, None),
                _ => continue,
            };
            let Some(method) = goals.resolve(class, name, descriptor) else {
                continue;
            };
            let key = (method.class, method.id);
            match outcome {
                StatementOutcome::Normal => t.add_call(key, true),
                StatementOutcome::Threw(thrown) => {
                    t.add_call(key, false);
                    let null_receiver = receiver.is_some_and(|r| {
                        matches!(test.statements.get(r.index()), Some(Statement::Null { .. }))
                            || result.observations.get(r.index()).is_some_and(|o| {
                                o.value == Some(ferrosuite_executor::Observed::Null)
                            })
                    });
                    let counted = thrown.kind == ThrowKind::Code
                        && !null_receiver
                        && (goals.config().declared_exceptions || !method.declares(&thrown.class));
                    if counted {
                        t.add_exception(key, &thrown.class);
                    }
                }
            }
        }
        t
    }

    /// Records that outcome `slot` ran: taken `hits` times, smallest distance to taking it
    /// `distance` (0 when taken). Adds to what the trace already holds.
    pub fn add_branch(&mut self, slot: BranchSlot, hits: u32, distance: f64) {
        match self.branches.binary_search_by_key(&slot, |b| b.0) {
            Ok(i) => {
                let b = &mut self.branches[i];
                b.1 = b.1.saturating_add(hits);
                b.2 = b.2.min(distance);
            }
            Err(i) => self.branches.insert(i, (slot, hits, distance)),
        }
    }

    /// Records that a line probe ran.
    pub fn add_line(&mut self, line: LineId) {
        insert_sorted(&mut self.lines, line);
    }

    /// Records that a method was entered.
    pub fn add_method(&mut self, method: ProbeMethodId) {
        insert_sorted(&mut self.methods, method);
    }

    /// Records a direct call of a method under test from a test statement, and whether it
    /// returned normally.
    pub fn add_call(&mut self, method: MethodKey, returned: bool) {
        match self.calls.binary_search_by_key(&method, |c| c.0) {
            Ok(i) => self.calls[i].1 |= returned,
            Err(i) => self.calls.insert(i, (method, returned)),
        }
    }

    /// Records that a direct call of `method` threw `exception` (binary class name).
    pub fn add_exception(&mut self, method: MethodKey, exception: &str) {
        let probe = (method, exception);
        if let Err(i) = self
            .exceptions
            .binary_search_by(|(m, e)| (*m, e.as_str()).cmp(&probe))
        {
            self.exceptions.insert(i, (method, exception.to_string()));
        }
    }

    /// Marks the trace as coming from a lost test (time-out, crashed worker, exhausted memory).
    pub fn mark_lost(&mut self) {
        self.lost = true;
    }

    /// Adds everything `other` holds (hits summed, smallest distances, unions).
    pub fn merge(&mut self, other: &Trace) {
        self.branches = merge_by(
            &self.branches,
            &other.branches,
            |a, b| a.0.cmp(&b.0),
            |a, b| (a.0, a.1.saturating_add(b.1), a.2.min(b.2)),
        );
        self.lines = merge_by(&self.lines, &other.lines, Ord::cmp, |a, _| *a);
        self.methods = merge_by(&self.methods, &other.methods, Ord::cmp, |a, _| *a);
        self.calls = merge_by(
            &self.calls,
            &other.calls,
            |a, b| a.0.cmp(&b.0),
            |a, b| (a.0, a.1 || b.1),
        );
        self.exceptions = merge_by(&self.exceptions, &other.exceptions, Ord::cmp, |a, _| {
            a.clone()
        });
        self.lost |= other.lost;
    }

    /// The merge of several traces: what a suite of tests covered together.
    ///
    /// All entries are gathered, sorted once and folded (not merged pair by pair, which would
    /// copy the growing result once per trace): the whole-suite GA merges every suite of every
    /// generation.
    #[must_use]
    pub fn merged<'a>(traces: impl IntoIterator<Item = &'a Trace>) -> Trace {
        let traces: Vec<&Trace> = traces.into_iter().collect();
        if let [one] = traces.as_slice() {
            return (*one).clone();
        }
        let mut out = Trace {
            branches: Vec::with_capacity(traces.iter().map(|t| t.branches.len()).sum()),
            lines: Vec::with_capacity(traces.iter().map(|t| t.lines.len()).sum()),
            methods: Vec::with_capacity(traces.iter().map(|t| t.methods.len()).sum()),
            calls: Vec::new(),
            exceptions: Vec::new(),
            lost: false,
        };
        for t in &traces {
            out.branches.extend_from_slice(&t.branches);
            out.lines.extend_from_slice(&t.lines);
            out.methods.extend_from_slice(&t.methods);
            out.calls.extend_from_slice(&t.calls);
            out.exceptions.extend(t.exceptions.iter().cloned());
            out.lost |= t.lost;
        }
        out.branches.sort_by_key(|b| b.0);
        out.branches.dedup_by(|later, kept| {
            if later.0 == kept.0 {
                kept.1 = kept.1.saturating_add(later.1);
                kept.2 = kept.2.min(later.2);
                true
            } else {
                false
            }
        });
        out.lines.sort_unstable();
        out.lines.dedup();
        out.methods.sort_unstable();
        out.methods.dedup();
        out.calls.sort_by_key(|c| c.0);
        out.calls.dedup_by(|later, kept| {
            if later.0 == kept.0 {
                kept.1 |= later.1;
                true
            } else {
                false
            }
        });
        out.exceptions.sort();
        out.exceptions.dedup();
        out
    }

    /// Times outcome `slot` was taken and the smallest distance to taking it: `(0, +∞)` when
    /// its predicate never ran.
    #[must_use]
    pub fn branch(&self, slot: BranchSlot) -> (u32, f64) {
        match self.branches.binary_search_by_key(&slot, |b| b.0) {
            Ok(i) => (self.branches[i].1, self.branches[i].2),
            Err(_) => (0, f64::INFINITY),
        }
    }

    /// Whether a line probe ran.
    #[must_use]
    pub fn line_hit(&self, line: LineId) -> bool {
        self.lines.binary_search(&line).is_ok()
    }

    /// Whether a method was entered.
    #[must_use]
    pub fn method_entered(&self, method: ProbeMethodId) -> bool {
        self.methods.binary_search(&method).is_ok()
    }

    /// How direct calls of `method` ended: `None` when no test statement called it,
    /// `Some(true)` when some call returned normally, `Some(false)` when every call threw.
    #[must_use]
    pub fn call(&self, method: MethodKey) -> Option<bool> {
        self.calls
            .binary_search_by_key(&method, |c| c.0)
            .ok()
            .map(|i| self.calls[i].1)
    }

    /// Whether a direct call of `method` threw `exception`.
    #[must_use]
    pub fn threw(&self, method: MethodKey, exception: &str) -> bool {
        let probe = (method, exception);
        self.exceptions
            .binary_search_by(|(m, e)| (*m, e.as_str()).cmp(&probe))
            .is_ok()
    }

    /// The (method, exception class) pairs of the trace, sorted.
    #[must_use]
    pub fn exceptions(&self) -> &[(MethodKey, String)] {
        &self.exceptions
    }

    /// The branch slots that ran: (slot, hits, smallest distance), sorted by slot.
    #[must_use]
    pub fn branches(&self) -> &[(BranchSlot, u32, f64)] {
        &self.branches
    }

    /// Whether the trace comes from (or contains) a lost test: one the search drops
    /// ([`Status::dropped`]).
    #[must_use]
    pub fn is_lost(&self) -> bool {
        self.lost
    }

    /// The line probes that ran, sorted.
    #[must_use]
    pub fn lines(&self) -> &[LineId] {
        &self.lines
    }

    /// The method-entry probes that ran, sorted.
    #[must_use]
    pub fn methods(&self) -> &[ProbeMethodId] {
        &self.methods
    }

    /// Direct calls of methods under test, and whether some call returned normally; sorted.
    #[must_use]
    pub fn calls(&self) -> &[(MethodKey, bool)] {
        &self.calls
    }
}

/// Sorts `v` and drops repeats, unless it is strictly ascending already (as a worker sends its
/// probe data: then the check is the only cost).
fn sort_unique<T: Ord>(v: &mut Vec<T>) {
    if !v.is_sorted_by(|a, b| a < b) {
        v.sort_unstable();
        v.dedup();
    }
}

fn insert_sorted<T: Ord>(v: &mut Vec<T>, x: T) {
    if let Err(i) = v.binary_search(&x) {
        v.insert(i, x);
    }
}

/// Merges two sorted, duplicate-free lists; `join` combines elements present in both.
fn merge_by<T: Clone>(
    a: &[T],
    b: &[T],
    cmp: impl Fn(&T, &T) -> Ordering,
    join: impl Fn(&T, &T) -> T,
) -> Vec<T> {
    let mut out = Vec::with_capacity(a.len().max(b.len()));
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        match cmp(&a[i], &b[j]) {
            Ordering::Less => {
                out.push(a[i].clone());
                i += 1;
            }
            Ordering::Greater => {
                out.push(b[j].clone());
                j += 1;
            }
            Ordering::Equal => {
                out.push(join(&a[i], &b[j]));
                i += 1;
                j += 1;
            }
        }
    }
    out.extend_from_slice(&a[i..]);
    out.extend_from_slice(&b[j..]);
    out
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::float_cmp)]
mod tests {
    use ferrosuite_executor::{Observation, Observed, Thrown};
    use ferrosuite_testcase::{Prim, VarRef};

    use super::*;
    use crate::Config;
    use crate::testutil::sample;

    fn result(outcomes: Vec<StatementOutcome>, probes: ProbeSnapshot) -> TestResult {
        TestResult {
            status: Status::Completed,
            executed: outcomes.len() as u32,
            outcomes,
            observations: Vec::new(),
            probes,
            leaked_threads: Vec::new(),
            reset_classes: Vec::new(),
            mock_calls: Vec::new(),
            reads_environment: false,
            reached_sites: Vec::new(),
            resources: ferrosuite_executor::Resources::default(),
            micros: 0,
        }
    }

    fn threw(class: &str, kind: ThrowKind) -> StatementOutcome {
        StatementOutcome::Threw(Thrown {
            class: class.into(),
            message: None,
            kind,
            frames: Vec::new(),
        })
    }

    #[test]
    fn merging_sums_hits_keeps_minima_and_unites() {
        let mut a = Trace::new();
        a.add_branch(BranchSlot(3), 1, 0.0);
        a.add_branch(BranchSlot(4), 0, 7.0);
        a.add_line(LineId(2));
        a.add_method(ProbeMethodId(1));
        let key = (ClassIndex(0), MethodId(1));
        a.add_call(key, false);
        let mut b = Trace::new();
        b.add_branch(BranchSlot(4), 0, 2.0);
        b.add_branch(BranchSlot(3), 2, 0.0);
        b.add_branch(BranchSlot(0), 1, 0.0);
        b.add_line(LineId(1));
        b.add_call(key, true);
        b.add_exception(key, "E");
        b.mark_lost();
        let m = Trace::merged([&a, &b]);
        assert_eq!(m, Trace::merged([&b, &a]));
        assert_eq!(m.branch(BranchSlot(3)), (3, 0.0));
        assert_eq!(m.branch(BranchSlot(4)), (0, 2.0));
        assert_eq!(m.branches().len(), 3);
        assert!(m.line_hit(LineId(1)) && m.line_hit(LineId(2)));
        assert!(m.method_entered(ProbeMethodId(1)));
        assert_eq!(m.call(key), Some(true));
        assert_eq!(a.call((ClassIndex(0), MethodId(9))), None);
        assert!(m.threw(key, "E") && !m.threw(key, "F"));
        assert!(m.is_lost() && !a.is_lost());
        // Adding the same facts twice changes nothing but hit counts.
        let mut twice = a.clone();
        twice.add_line(LineId(2));
        twice.add_exception(key, "E");
        twice.add_exception(key, "E");
        assert_eq!(twice.exceptions().len(), 1);
    }

    #[test]
    fn probes_snapshot_becomes_a_sorted_trace() {
        let snap = ProbeSnapshot {
            branches: vec![(5, 0, 3.0), (2, 1, 0.0), (5, 1, 0.0)],
            lines: vec![(9, 1), (3, 0)],
            methods: vec![(4, 2)],
            loops: vec![(0, 10)],
            statics_written: vec![1],
            compared: vec![],
        };
        let t = Trace::from_probes(&snap);
        assert_eq!(t.branch(BranchSlot(5)), (1, 0.0));
        assert_eq!(t.branch(BranchSlot(2)), (1, 0.0));
        assert!(t.line_hit(LineId(9)) && !t.line_hit(LineId(3)));
        assert!(t.method_entered(ProbeMethodId(4)));
    }

    #[test]
    fn direct_calls_and_their_exceptions_come_from_the_statements() {
        let s = sample();
        let goals = s.goals(Config::default());
        let test = Test::new(vec![
            Statement::Primitive(Prim::Int(-1)),
            Statement::method("t/Sample", "abs", "(I)I", None, vec![VarRef(0)]),
            Statement::method("t/Sample", "fail", "()V", None, vec![]),
            Statement::method("t/Sample", "pick", "(I)I", None, vec![VarRef(0)]),
            Statement::method("t/Sample", "fail", "()V", None, vec![]),
            Statement::method("java/lang/Math", "abs", "(I)I", None, vec![VarRef(0)]),
            Statement::constructor("t/Sample", "()V", vec![]),
            Statement::Null {
                ty: ferrosuite_bytecode::descriptor::FieldType::Object("t/Sample".into()),
            },
            Statement::method("t/Sample", "abs", "(I)I", Some(VarRef(7)), vec![VarRef(0)]),
        ]);
        let r = result(
            vec![
                StatementOutcome::Normal,
                StatementOutcome::Normal,
                threw("java.lang.NullPointerException", ThrowKind::Code),
                threw("java.lang.IllegalStateException", ThrowKind::Abort),
                threw("java.io.IOException", ThrowKind::Code),
                threw("java.lang.Error", ThrowKind::Code),
                StatementOutcome::Normal,
                StatementOutcome::Normal,
                threw("java.lang.NullPointerException", ThrowKind::Code),
            ],
            ProbeSnapshot {
                methods: vec![(1, 1)],
                ..ProbeSnapshot::default()
            },
        );
        let t = Trace::from_result(&goals, &test, &r);
        let key = |n: &str| {
            let m = goals.methods().iter().find(|m| m.name == n).unwrap();
            (m.class, m.id)
        };
        assert_eq!(t.call(key("abs")), Some(true));
        assert_eq!(t.call(key("fail")), Some(false));
        assert_eq!(t.call(key("<init>")), Some(true));
        assert_eq!(t.call(key("helper")), None);
        // Only code exceptions count; the declared IOException does not; the NPE on a null
        // receiver is the test's doing.
        assert_eq!(
            t.exceptions(),
            [(key("fail"), "java.lang.NullPointerException".to_string())]
        );
        assert!(t.method_entered(ProbeMethodId(1)));
        // Declared exceptions count when configured.
        let declared = s.goals(Config {
            declared_exceptions: true,
            ..Config::default()
        });
        assert_eq!(
            Trace::from_result(&declared, &test, &r).exceptions().len(),
            2
        );
        // A receiver observed to be null counts as the test's doing too.
        let test2 = Test::new(vec![
            Statement::Primitive(Prim::Int(1)),
            Statement::method("t/Sample", "abs", "(I)I", None, vec![VarRef(0)]),
            Statement::method("t/Sample", "abs", "(I)I", Some(VarRef(1)), vec![VarRef(0)]),
        ]);
        let mut r2 = result(
            vec![
                StatementOutcome::Normal,
                StatementOutcome::Normal,
                threw("java.lang.NullPointerException", ThrowKind::Code),
            ],
            ProbeSnapshot::default(),
        );
        r2.observations = vec![
            Observation::default(),
            Observation {
                value: Some(Observed::Null),
                ..Observation::default()
            },
            Observation::default(),
        ];
        assert!(
            Trace::from_result(&goals, &test2, &r2)
                .exceptions()
                .is_empty()
        );
        // Invalid tests keep their probes only; lost ones are marked.
        let mut invalid = r.clone();
        invalid.status = Status::Invalid("bad".into());
        let ti = Trace::from_result(&goals, &test, &invalid);
        assert_eq!(ti.call(key("abs")), None);
        assert!(ti.method_entered(ProbeMethodId(1)));
        let lost = TestResult::lost(Status::Timeout);
        assert!(Trace::from_result(&goals, &test, &lost).is_lost());
        // So is a test that exhausted memory, though its worker goes on.
        let mut exhausted = r.clone();
        exhausted.status = Status::Exhausted("out of memory".into());
        assert!(Trace::from_result(&goals, &test, &exhausted).is_lost());
        assert!(!Trace::from_result(&goals, &test, &r).is_lost());
    }

    fn arbitrary_trace() -> impl proptest::strategy::Strategy<Value = Trace> {
        use proptest::prelude::*;
        (
            proptest::collection::vec((0u32..20, 0u32..3, 0.0f64..5.0), 0..12),
            proptest::collection::vec(0u32..15, 0..8),
            proptest::collection::vec(0u32..6, 0..4),
            proptest::collection::vec((0u32..4, any::<bool>()), 0..4),
            proptest::collection::vec((0u32..4, 0u8..3), 0..3),
            any::<bool>(),
        )
            .prop_map(|(branches, lines, methods, calls, exceptions, lost)| {
                let mut t = Trace::new();
                for (slot, hits, d) in branches {
                    t.add_branch(BranchSlot(slot), hits, d);
                }
                for l in lines {
                    t.add_line(LineId(l));
                }
                for m in methods {
                    t.add_method(ProbeMethodId(m));
                }
                for (m, returned) in calls {
                    t.add_call((ClassIndex(0), MethodId(m)), returned);
                }
                for (m, e) in exceptions {
                    t.add_exception((ClassIndex(0), MethodId(m)), &format!("E{e}"));
                }
                if lost {
                    t.mark_lost();
                }
                t
            })
    }

    proptest::proptest! {
        /// The one-pass merge of many traces equals merging them pair by pair.
        #[test]
        fn merged_equals_pairwise_merges(traces in proptest::collection::vec(arbitrary_trace(), 0..6)) {
            let mut pairwise = Trace::new();
            for t in &traces {
                pairwise.merge(t);
            }
            proptest::prop_assert_eq!(Trace::merged(traces.iter()), pairwise);
        }
    }
}
