//! Regression assertions from what the final run observed.
//!
//! The execution host reports, per executed statement, the value it defined and the results
//! of *inspectors* (public no-argument getters, `size()`, `isEmpty()`, `toString()`) on that
//! value and, after a method call, on its receiver. [`candidates`] turns these into
//! [`Assertion`]s, keeping the set small:
//!
//! - no assertion on a constant the test itself wrote (primitives, `null`, enum constants,
//!   casts), nor a non-null check on a `new` (it cannot be null);
//! - a call that returned an object the test already held (a builder returning itself, a
//!   method returning its argument) gets `assertSame` with that variable instead of
//!   `assertNotNull`;
//! - an inspector on a receiver is asserted only when its result differs from the previous
//!   observation of the same inspector on the same value (`size()` after every `push` is
//!   asserted when it changes, not repeated when it does not);
//! - values that cannot be written back as they were seen are skipped: strings cut by the
//!   host, `toString()` results that show an identity hash (`Foo@1b6d3586`), and strings that
//!   name where a class or resource was found (`jar:file:/usr/share/java/x.jar!/a/b`,
//!   `jrt:/java.base/…`, a `file:` URL outside the virtual file system's `/work` and `/tmp`),
//!   which change with the class path and the machine;
//! - at most [`Limits::per_statement`] per statement and [`Limits::per_test`] per test,
//!   taken from the last statements backwards (the last calls are the ones a test is about).
//!
//! [`stable`] then keeps only the assertions whose observation was the same in every rerun
//! (the stability check runs the tests again with a perturbed clock, seeds and order).
//!
//! ```
//! use ferrosuite_emit::assertions::{Check, Limits, candidates};
//! use ferrosuite_executor::{Observation, Observed, Outcome, ProbeSnapshot, Status, TestResult};
//! use ferrosuite_testcase::{Prim, Statement, Test, VarRef};
//! // Stack s = new Stack(); s.push(3); s.size() → 1
//! let test = Test::new(vec![
//!     Statement::constructor("examples/Stack", "()V", vec![]),
//!     Statement::Primitive(Prim::Int(3)),
//!     Statement::method("examples/Stack", "push", "(I)V", Some(VarRef(0)), vec![VarRef(1)]),
//!     Statement::method("examples/Stack", "size", "()I", Some(VarRef(0)), vec![]),
//! ]);
//! let obs = |value: Option<Observed>| Observation { value, ..Observation::default() };
//! let result = TestResult {
//!     status: Status::Completed,
//!     outcomes: vec![Outcome::Normal; 4],
//!     observations: vec![
//!         obs(Some(Observed::Object { class: "examples.Stack".into() })),
//!         obs(Some(Observed::Integer(3))),
//!         obs(None),
//!         obs(Some(Observed::Integer(1))),
//!     ],
//!     executed: 4,
//!     probes: ProbeSnapshot::default(),
//!     leaked_threads: vec![],
//!     reset_classes: vec![],
//!     mock_calls: vec![],
//!     reads_environment: false,
//!     reached_sites: Vec::new(),
//!     resources: Default::default(),
//!     micros: 0,
//! };
//! let a = candidates(&test, &result, &Limits::default());
//! assert_eq!(a.len(), 1);
//! assert_eq!((a[0].statement, &a[0].check), (3, &Check::Value));
//! ```

use std::collections::BTreeMap;

use ferrosuite_executor::{Observation, Observed, Outcome, TestResult};
use ferrosuite_testcase::{Statement, Test};
use serde::{Deserialize, Serialize};

/// What an assertion looks at.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Check {
    /// The value the statement defined.
    Value,
    /// The object the statement (a call) returned is the very object statement `k` defined:
    /// its receiver or an argument (`assertSame(builder, builder.append(x))`). Its expected
    /// value is [`Observed::Boolean`]`(true)`.
    Same(u32),
    /// An inspector (by method name) called on the value the statement defined.
    Inspector(String),
    /// An inspector called on the receiver of the statement (a method call), after the call.
    ReceiverInspector(String),
    /// Argument `k` of the statement (a call) after the call, which changed it: an array's
    /// contents (the name `""`) or an inspector of another object.
    Argument(u32, String),
}

/// One regression assertion: after statement `statement`, `check` gives `expected`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Assertion {
    /// Index of the statement in the test.
    pub statement: usize,
    /// What is checked.
    pub check: Check,
    /// The value observed.
    pub expected: Observed,
}

/// How many assertions to keep.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Limits {
    /// At most this many per statement.
    pub per_statement: usize,
    /// At most this many per test.
    pub per_test: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            per_statement: 3,
            per_test: 8,
        }
    }
}

/// Whether an observed value can be written back as a Java literal or check.
pub(crate) fn writable(o: &Observed) -> bool {
    match o {
        Observed::String { text, truncated } => {
            !*truncated && !shows_identity(text) && !shows_location(text)
        }
        _ => true,
    }
}

/// A URL of a place on this machine: a jar or the JDK's modules (where a class or resource was
/// found), or a file outside the virtual file system's directories (`/work`, `/tmp`), whose
/// paths are the same on every machine.
fn shows_location(text: &str) -> bool {
    if text.contains("jar:file:") || text.contains("jrt:/") {
        return true;
    }
    text.match_indices("file:").any(|(at, _)| {
        let path = text[at + 5..].trim_start_matches("//");
        let virtual_root = |root: &str| {
            path.strip_prefix(root)
                .is_some_and(|rest| rest.is_empty() || rest.starts_with(['/', ' ', ',', ']']))
        };
        path.starts_with('/') && !virtual_root("/work") && !virtual_root("/tmp")
    })
}

/// `Foo@1b6d3586`-style text: `Object.toString` with an identity hash, different per run.
fn shows_identity(text: &str) -> bool {
    text.split('@').skip(1).any(|after| {
        let hex: String = after.chars().take_while(char::is_ascii_hexdigit).collect();
        hex.len() >= 4
    })
}

/// Whether the value a statement defines is worth an assertion.
fn asserts_value(s: &Statement, o: &Observed) -> bool {
    match s {
        Statement::Method { .. } | Statement::FieldRead { .. } => true,
        // `new` cannot give null, and an object's class is not a regression property.
        Statement::Constructor { .. } => false,
        // Constants the test wrote itself.
        _ => {
            let _ = o;
            false
        }
    }
}

/// Whether a statement is a method call (through reflection or not).
fn is_method(s: &Statement) -> bool {
    matches!(s.unwrapped(), Statement::Method { .. })
}

/// The receiver of a statement, if it has one.
fn receiver(s: &Statement) -> Option<usize> {
    match s {
        Statement::Method { receiver, .. } => receiver.map(ferrosuite_testcase::VarRef::index),
        _ => None,
    }
}

/// Candidate assertions for one executed test (see the module documentation).
#[must_use]
pub fn candidates(test: &Test, result: &TestResult, limits: &Limits) -> Vec<Assertion> {
    let mut all: Vec<Vec<Assertion>> = Vec::new();
    // The last result of each inspector per value (statement index): a receiver inspector is
    // asserted only when it changed.
    let mut last: BTreeMap<(usize, String), Observed> = BTreeMap::new();
    for (i, s) in test.statements.iter().enumerate() {
        let mut here = Vec::new();
        let normal = matches!(result.outcomes.get(i), Some(Outcome::Normal));
        let Some(obs) = result.observations.get(i).filter(|_| normal) else {
            all.push(here);
            continue;
        };
        let Observation {
            value,
            inspectors,
            receiver_inspectors,
            arguments,
            ..
        } = obs;
        if let Some(v) = value {
            // A call that returned an object the test held: `assertSame` says more than
            // `assertNotNull`, and checks what a builder returning itself did.
            let same = obs
                .same
                .filter(|_| matches!(v, Observed::Object { .. }) && is_method(s));
            if let Some(k) = same {
                here.push(Assertion {
                    statement: i,
                    check: Check::Same(k),
                    expected: Observed::Boolean(true),
                });
            } else if asserts_value(s, v) && writable(v) {
                here.push(Assertion {
                    statement: i,
                    check: Check::Value,
                    expected: v.clone(),
                });
            }
        }
        if !matches!(value, Some(Observed::Null) | None) {
            for (name, v) in inspectors {
                last.insert((i, name.clone()), v.clone());
                // Inspectors of a value the test built itself (a `new`) describe the
                // constructor's effect; of a constant they say nothing.
                if matches!(s, Statement::Constructor { .. } | Statement::Method { .. })
                    && writable(v)
                    && !matches!(v, Observed::Object { .. } | Observed::Array { .. })
                {
                    here.push(Assertion {
                        statement: i,
                        check: Check::Inspector(name.clone()),
                        expected: v.clone(),
                    });
                }
            }
        }
        for (k, name, v) in arguments {
            // Only what the call changed is observed (the worker compares with before).
            let whole = name.is_empty()
                && matches!(
                    v,
                    Observed::Array {
                        elements: Some(_),
                        ..
                    }
                );
            if writable(v)
                && (whole || !matches!(v, Observed::Object { .. } | Observed::Array { .. }))
            {
                here.push(Assertion {
                    statement: i,
                    check: Check::Argument(*k, name.clone()),
                    expected: v.clone(),
                });
            }
        }
        if let Some(r) = receiver(s) {
            for (name, v) in receiver_inspectors {
                let key = (r, name.clone());
                let changed = last.get(&key) != Some(v);
                last.insert(key, v.clone());
                if changed
                    && writable(v)
                    && !matches!(v, Observed::Object { .. } | Observed::Array { .. })
                {
                    here.push(Assertion {
                        statement: i,
                        check: Check::ReceiverInspector(name.clone()),
                        expected: v.clone(),
                    });
                }
            }
        }
        here.truncate(limits.per_statement);
        all.push(here);
    }
    // From the last statement backwards, up to the per-test limit; then in test order.
    let mut kept = Vec::new();
    for here in all.into_iter().rev() {
        for a in here {
            if kept.len() < limits.per_test {
                kept.push(a);
            }
        }
    }
    kept.sort_by(|a, b| (a.statement, &a.check).cmp(&(b.statement, &b.check)));
    kept
}

/// Assertions (in statement order) cut down to `limits` as [`candidates`] would: each
/// statement's first `per_statement`, then from the last statement backwards up to
/// `per_test`.
#[must_use]
pub fn limited(assertions: &[Assertion], limits: &Limits) -> Vec<Assertion> {
    let mut per_statement: BTreeMap<usize, usize> = BTreeMap::new();
    let mut kept: Vec<Assertion> = assertions
        .iter()
        .filter(|a| {
            let n = per_statement.entry(a.statement).or_insert(0);
            *n += 1;
            *n <= limits.per_statement
        })
        .cloned()
        .collect();
    let drop = kept.len().saturating_sub(limits.per_test);
    kept.drain(..drop);
    kept
}

/// What a run observed for `a`'s check, if anything.
#[must_use]
pub fn observed<'r>(test: &Test, result: &'r TestResult, a: &Assertion) -> Option<&'r Observed> {
    let obs = result.observations.get(a.statement)?;
    if !matches!(result.outcomes.get(a.statement), Some(Outcome::Normal)) {
        return None;
    }
    let _ = test;
    match &a.check {
        Check::Value => obs.value.as_ref(),
        Check::Inspector(name) => obs.inspectors.iter().find(|i| &i.0 == name).map(|i| &i.1),
        Check::ReceiverInspector(name) => obs
            .receiver_inspectors
            .iter()
            .find(|i| &i.0 == name)
            .map(|i| &i.1),
        Check::Argument(k, name) => obs
            .arguments
            .iter()
            .find(|(a, n, _)| a == k && n == name)
            .map(|(_, _, v)| v),
        Check::Same(k) => Some(if obs.same == Some(*k) {
            &SAME
        } else {
            &NOT_SAME
        }),
    }
}

/// What [`observed`] gives for a [`Check::Same`] that holds.
static SAME: Observed = Observed::Boolean(true);
/// What [`observed`] gives for a [`Check::Same`] that does not.
static NOT_SAME: Observed = Observed::Boolean(false);

/// The assertions whose observation is the same in every rerun (an assertion any rerun did
/// not observe, or observed differently, is dropped).
#[must_use]
pub fn stable(test: &Test, assertions: &[Assertion], reruns: &[&TestResult]) -> Vec<Assertion> {
    assertions
        .iter()
        .filter(|a| {
            reruns
                .iter()
                .all(|r| observed(test, r, a) == Some(&a.expected))
        })
        .cloned()
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use ferrosuite_executor::{ProbeSnapshot, Status};
    use ferrosuite_testcase::{Prim, VarRef};

    fn result(observations: Vec<Observation>) -> TestResult {
        TestResult {
            status: Status::Completed,
            outcomes: vec![Outcome::Normal; observations.len()],
            executed: u32::try_from(observations.len()).unwrap_or(0),
            observations,
            probes: ProbeSnapshot::default(),
            leaked_threads: vec![],
            reset_classes: vec![],
            mock_calls: vec![],
            reads_environment: false,
            reached_sites: Vec::new(),
            resources: ferrosuite_executor::Resources::default(),
            micros: 0,
        }
    }

    fn stack_test(pushes: usize) -> Test {
        let mut s = vec![
            Statement::constructor("examples/Stack", "()V", vec![]),
            Statement::Primitive(Prim::Int(3)),
        ];
        for _ in 0..pushes {
            s.push(Statement::method(
                "examples/Stack",
                "push",
                "(I)V",
                Some(VarRef(0)),
                vec![VarRef(1)],
            ));
        }
        Test::new(s)
    }

    fn size(n: i64) -> Vec<(String, Observed)> {
        vec![("size".into(), Observed::Integer(n))]
    }

    #[test]
    fn limiting_keeps_each_statements_first_then_the_last_statements() {
        let a = |statement, name: &str| Assertion {
            statement,
            check: Check::Inspector(name.into()),
            expected: Observed::Integer(0),
        };
        let all = vec![
            a(0, "a"),
            a(0, "b"),
            a(1, "a"),
            a(1, "b"),
            a(1, "c"),
            a(2, "a"),
        ];
        let limits = Limits {
            per_statement: 2,
            per_test: 3,
        };
        assert_eq!(
            limited(&all, &limits),
            vec![a(1, "a"), a(1, "b"), a(2, "a")]
        );
    }

    #[test]
    fn arguments_a_call_changed_are_checked_after_it() {
        // int[] a = new int[2]; reverse(a): the worker saw a change from {3, 1} to {1, 3}.
        let t = Test::new(vec![
            Statement::ArrayNew {
                component: ferrosuite_bytecode::descriptor::FieldType::Int,
                length: 2,
            },
            Statement::method("p/A", "reverse", "([I)V", None, vec![VarRef(0)]),
        ]);
        let after = Observed::Array {
            class: "[I".into(),
            length: 2,
            elements: Some(vec![Observed::Integer(1), Observed::Integer(3)]),
        };
        let r = result(vec![
            Observation::default(),
            Observation {
                arguments: vec![(0, String::new(), after.clone())],
                ..Observation::default()
            },
        ]);
        let a = candidates(&t, &r, &Limits::default());
        assert_eq!(a.len(), 1);
        assert_eq!(a[0].check, Check::Argument(0, String::new()));
        assert_eq!(observed(&t, &r, &a[0]), Some(&after));
        // A rerun where the call left the argument as it was observes nothing: unstable.
        assert!(stable(&t, &a, &[&result(vec![Observation::default(); 2])]).is_empty());
    }

    #[test]
    fn a_call_returning_an_object_the_test_held_is_checked_with_assert_same() {
        // StringBuilder b = new StringBuilder(); StringBuilder b2 = b.append(…) (b itself).
        let t = Test::new(vec![
            Statement::constructor("java/lang/StringBuilder", "()V", vec![]),
            Statement::method(
                "java/lang/StringBuilder",
                "reverse",
                "()Ljava/lang/StringBuilder;",
                Some(VarRef(0)),
                vec![],
            ),
        ]);
        let object = || {
            Some(Observed::Object {
                class: "java.lang.StringBuilder".into(),
            })
        };
        let returned = |same| Observation {
            value: object(),
            same,
            ..Observation::default()
        };
        let r = result(vec![returned(None), returned(Some(0))]);
        let a = candidates(&t, &r, &Limits::default());
        assert_eq!(a.len(), 1, "{a:?}");
        assert_eq!(a[0].check, Check::Same(0));
        assert_eq!(observed(&t, &r, &a[0]), Some(&a[0].expected));
        // A run where the call returned another object (or null) fails the check.
        let other = result(vec![returned(None), returned(None)]);
        assert_eq!(observed(&t, &other, &a[0]), Some(&Observed::Boolean(false)));
        assert!(stable(&t, &a, &[&other]).is_empty());
        assert_eq!(stable(&t, &a, &[&r]), a);
        // Without the identity the returned object gets the plain non-null check.
        let plain = candidates(&t, &other, &Limits::default());
        assert_eq!(plain.len(), 1);
        assert_eq!(plain[0].check, Check::Value);
    }

    #[test]
    fn receiver_inspectors_only_when_changed() {
        let t = stack_test(3);
        let r = result(vec![
            Observation {
                value: Some(Observed::Object {
                    class: "examples.Stack".into(),
                }),
                inspectors: size(0),
                ..Observation::default()
            },
            Observation {
                value: Some(Observed::Integer(3)),
                ..Observation::default()
            },
            Observation {
                receiver_inspectors: size(1),
                ..Observation::default()
            },
            Observation {
                receiver_inspectors: size(1),
                ..Observation::default()
            },
            Observation {
                receiver_inspectors: size(2),
                ..Observation::default()
            },
        ]);
        let a = candidates(&t, &r, &Limits::default());
        let got: Vec<(usize, Check, Observed)> = a
            .into_iter()
            .map(|a| (a.statement, a.check, a.expected))
            .collect();
        let size_check = || Check::ReceiverInspector("size".into());
        assert_eq!(
            got,
            [
                (0, Check::Inspector("size".into()), Observed::Integer(0)),
                (2, size_check(), Observed::Integer(1)),
                (4, size_check(), Observed::Integer(2)),
            ]
        );
    }

    #[test]
    fn limits_prefer_the_last_statements() {
        let t = stack_test(12);
        let mut obs = vec![Observation::default(), Observation::default()];
        for k in 0..12 {
            obs.push(Observation {
                receiver_inspectors: vec![
                    ("size".into(), Observed::Integer(k + 1)),
                    ("isEmpty".into(), Observed::Boolean(false)),
                    ("peek".into(), Observed::Integer(3)),
                    (
                        "toString".into(),
                        Observed::String {
                            text: format!("Stack{k}"),
                            truncated: false,
                        },
                    ),
                ],
                ..Observation::default()
            });
        }
        let r = result(obs);
        let limits = Limits {
            per_statement: 2,
            per_test: 5,
        };
        let a = candidates(&t, &r, &limits);
        assert_eq!(a.len(), 5);
        // The last three statements: 2 + 2 + 1.
        assert!(a.iter().all(|a| a.statement >= 11), "{a:?}");
        assert!(a.windows(2).all(|w| w[0].statement <= w[1].statement));
    }

    #[test]
    fn unwritable_values_are_skipped() {
        assert!(shows_identity("examples.Stack@1b6d3586"));
        assert!(shows_identity("[Foo@ab12, x]"));
        assert!(!shows_identity("user@example.org"));
        assert!(!shows_identity("a@b"));
        assert!(shows_location(
            "jar:file:/usr/share/java/commons-io.jar!/org/apache/commons/io/"
        ));
        assert!(shows_location("jrt:/java.base/java/lang/Object.class"));
        assert!(shows_location(
            "file:/home/ann/project/target/classes/a.txt"
        ));
        assert!(shows_location("file:///home/ann/x"));
        assert!(!shows_location("file:/work/notes/a.txt"));
        assert!(!shows_location("[file:/tmp/x, file:/work]"));
        assert!(!shows_location("profile: none"));
        assert!(!writable(&Observed::String {
            text: "jar:file:/x.jar!/a".into(),
            truncated: false
        }));
        assert!(!writable(&Observed::String {
            text: "x".into(),
            truncated: true
        }));
        assert!(writable(&Observed::Null));
    }

    #[test]
    fn stability_drops_what_changed() {
        let t = Test::new(vec![Statement::method(
            "java/lang/System",
            "nanoTime",
            "()J",
            None,
            vec![],
        )]);
        let run = |v: i64| {
            result(vec![Observation {
                value: Some(Observed::Integer(v)),
                ..Observation::default()
            }])
        };
        let first = run(5);
        let a = candidates(&t, &first, &Limits::default());
        assert_eq!(a.len(), 1);
        assert_eq!(stable(&t, &a, &[&run(5), &run(5)]).len(), 1);
        assert!(stable(&t, &a, &[&run(5), &run(6)]).is_empty());
        // A rerun where the statement threw observes nothing: dropped too.
        let mut threw = run(5);
        threw.outcomes[0] = Outcome::Threw(ferrosuite_executor::Thrown {
            class: "java.lang.Error".into(),
            message: None,
            kind: ferrosuite_executor::ThrowKind::Code,
            frames: Vec::new(),
        });
        assert!(stable(&t, &a, &[&threw]).is_empty());
    }
}
