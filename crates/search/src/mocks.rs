//! Stubs that follow the calls (PAFM III-B): after a test ran, each of its mocks gets one stub
//! per method the run called, with as many answers as calls (at most five), and loses the
//! stubs of methods no longer called.
//!
//! ```text
//! before:  int v0 = 7;  Sensor v1 = mock(Sensor) { read()I -> [v0] }
//! ran:     read() called 3 times, name() once
//! after:   int v0 = 7;  int v1 = 4;  int v2 = -1;  String v3 = "x";
//!          Sensor v4 = mock(Sensor) { read()I -> [v0, v1, v2]; name()… -> [v3] }
//! ```
//!
//! New answers are made by a [`ValueMaker`]: during the search, new random values of the
//! return type ([`follow_calls_with`] on the factory); after the search, the values the
//! worker answered unstubbed calls with (`0`, `false`, `null`), so that the test behaves as it
//! did ([`follow_calls_with`] on [`default_value`]).

use std::hash::BuildHasher;

use ferrosuite_bytecode::descriptor::{FieldType, MethodDescriptor};
use ferrosuite_testcase::statement::{
    JDouble, JFloat, MockCalls, Prim, Statement, Stub, Test, VarRef, wanted_answers,
};

/// Makes `types.len()` new values of these types as statements spliced in at `pos` of the
/// test; returns their references (in the changed test), or `None` when it cannot.
pub trait ValueMaker {
    /// See the trait.
    fn make(&mut self, test: &mut Test, pos: usize, types: &[FieldType]) -> Option<Vec<VarRef>>;
}

impl<F: FnMut(&mut Test, usize, &[FieldType]) -> Option<Vec<VarRef>>> ValueMaker for F {
    fn make(&mut self, test: &mut Test, pos: usize, types: &[FieldType]) -> Option<Vec<VarRef>> {
        self(test, pos, types)
    }
}

/// Whether the test has a mock statement.
#[must_use]
pub fn has_mocks(test: &Test) -> bool {
    test.statements
        .iter()
        .any(|s| matches!(s, Statement::Mock { .. }))
}

/// What a test should use only when nothing else reaches its goal: mocks and private access
/// (PAFM), and the library's internals — members that are not public (package-private or
/// protected constructors, methods and fields) and classes that are not public (named in a
/// call, a cast, a `null` or an array). The archive prefers tests with fewer; the report
/// counts the tests that still use internals.
#[derive(Debug, Clone, Default)]
pub struct LastResorts {
    members: std::collections::HashSet<(String, String, String)>,
    classes: std::collections::HashSet<String>,
}

impl LastResorts {
    /// The internals of a cluster: its members and generators without `public`, and its
    /// classes that are not public.
    #[must_use]
    pub fn of(cluster: &ferrosuite_testcase::cluster::TestCluster) -> Self {
        let mut lr = LastResorts::default();
        let ops = cluster
            .members()
            .chain(cluster.types.values().flat_map(|t| &t.generators));
        for op in ops {
            if op.access & ferrosuite_bytecode::access::PUBLIC == 0 {
                lr.members.insert((
                    op.class.to_string(),
                    op.name.to_string(),
                    op.descriptor.to_string(),
                ));
            }
        }
        for t in cluster.types.values() {
            if let (FieldType::Object(c), false) = (&t.ty, t.public) {
                lr.classes.insert(c.clone());
            }
        }
        lr
    }

    /// Whether a statement uses a non-public member or class of the library.
    #[must_use]
    pub fn internal(&self, s: &Statement) -> bool {
        let named = |ty: &FieldType| matches!(ty.innermost(), FieldType::Object(c) if self.classes.contains(&**c));
        match s {
            Statement::Constructor {
                class, descriptor, ..
            } => {
                self.classes.contains(&**class)
                    || self.members.contains(&(
                        class.to_string(),
                        "<init>".into(),
                        descriptor.to_string(),
                    ))
            }
            Statement::Method {
                class,
                name,
                descriptor,
                ..
            }
            | Statement::FieldRead {
                class,
                name,
                descriptor,
                ..
            }
            | Statement::FieldWrite {
                class,
                name,
                descriptor,
                ..
            } => {
                self.classes.contains(&**class)
                    || self.members.contains(&(
                        class.to_string(),
                        name.to_string(),
                        descriptor.to_string(),
                    ))
            }
            Statement::Cast { ty, .. }
            | Statement::Null { ty }
            | Statement::ClassLiteral { ty } => named(ty),
            Statement::ArrayNew { component, .. } => named(component),
            Statement::Mock { class, .. } => self.classes.contains(&**class),
            _ => false,
        }
    }

    /// Whether the test uses the library's internals or private access.
    #[must_use]
    pub fn uses_internals(&self, test: &Test) -> bool {
        test.statements
            .iter()
            .any(|s| matches!(s, Statement::Private(_)) || self.internal(s))
    }

    /// The test's last-resort statements: mocks, private accesses and uses of internals.
    #[must_use]
    pub fn count(&self, test: &Test) -> usize {
        test.statements
            .iter()
            .filter(|s| {
                matches!(s, Statement::Mock { .. } | Statement::Private(_)) || self.internal(s)
            })
            .count()
    }
}

/// A key of the test's content, the same in every run (feedback on a test's mocks is kept
/// under it until the test is next mutated).
#[must_use]
pub fn test_key(test: &Test) -> u64 {
    foldhash::fast::FixedState::with_seed(0x6d6f_636b).hash_one(test)
}

/// Whether the stubs of every mock of `test` say what `calls` (from a run of it) did.
#[must_use]
pub fn follows(test: &Test, calls: &[MockCalls]) -> bool {
    calls
        .iter()
        .all(|c| match test.statements.get(c.statement as usize) {
            Some(Statement::Mock { stubs, .. }) => c.matches(stubs),
            _ => true,
        })
}

/// The statement of the value an unstubbed call of a method returning `ty` gives in the
/// worker: `0`, `false`, `'\0'` or `null`.
#[must_use]
pub fn default_value(ty: &FieldType) -> Statement {
    Statement::Primitive(match ty {
        FieldType::Boolean => Prim::Boolean(false),
        FieldType::Byte => Prim::Byte(0),
        FieldType::Char => Prim::Char(0),
        FieldType::Short => Prim::Short(0),
        FieldType::Int => Prim::Int(0),
        FieldType::Long => Prim::Long(0),
        FieldType::Float => Prim::Float(JFloat(0.0)),
        FieldType::Double => Prim::Double(JDouble(0.0)),
        FieldType::Object(_) | FieldType::Array(_) => return Statement::Null { ty: ty.clone() },
    })
}

/// Inserts `stmts` (which refer to nothing) at `pos`, renumbering the references to the
/// statements after it; returns the new statements' references.
pub fn insert_values(test: &mut Test, pos: usize, stmts: Vec<Statement>) -> Vec<VarRef> {
    let k = stmts.len() as u32;
    for s in &mut test.statements[pos..] {
        for r in s.uses_mut() {
            if r.index() >= pos {
                r.0 += k;
            }
        }
    }
    let refs = (0..k).map(|i| VarRef(pos as u32 + i)).collect();
    test.statements.splice(pos..pos, stmts);
    refs
}

/// Makes the stubs of the mocks of `test` follow `calls` (see the module documentation);
/// returns whether the test changed. Mocks are handled from the last to the first, so that
/// values spliced in before one mock do not move those still to be handled. A mock whose new
/// answers `make` cannot give keeps its stubs.
pub fn follow_calls_with(test: &mut Test, calls: &[MockCalls], make: &mut dyn ValueMaker) -> bool {
    let mut order: Vec<&MockCalls> = calls.iter().collect();
    order.sort_by_key(|c| std::cmp::Reverse(c.statement));
    let mut changed = false;
    for c in order {
        let at = c.statement as usize;
        let Some(Statement::Mock { stubs, .. }) = test.statements.get(at) else {
            continue;
        };
        if c.matches(stubs) {
            continue;
        }
        // Per method called: the answers kept, and the return type of those still needed.
        let mut plan: Vec<Stub> = Vec::with_capacity(c.calls.len());
        let mut needed: Vec<(usize, FieldType)> = Vec::new();
        for (name, descriptor, count) in &c.calls {
            let want = wanted_answers(descriptor, *count);
            let mut answers: Vec<VarRef> = stubs
                .iter()
                .find(|s| s.name == *name && s.descriptor == *descriptor)
                .map(|s| s.answers.clone())
                .unwrap_or_default();
            answers.truncate(want);
            if answers.len() < want {
                let Ok(Some(ret)) = MethodDescriptor::parse_return(descriptor) else {
                    continue;
                };
                for _ in answers.len()..want {
                    needed.push((plan.len(), ret.clone()));
                }
            }
            plan.push(Stub {
                name: name.clone(),
                descriptor: descriptor.clone(),
                answers,
            });
        }
        let mut mock_at = at;
        if !needed.is_empty() {
            let types: Vec<FieldType> = needed.iter().map(|(_, t)| t.clone()).collect();
            let before = test.len();
            let Some(made) = make.make(test, at, &types) else {
                continue;
            };
            mock_at = at + (test.len() - before);
            for ((k, _), r) in needed.iter().zip(made) {
                plan[*k].answers.push(r);
            }
        }
        if let Some(Statement::Mock { stubs, .. }) = test.statements.get_mut(mock_at) {
            *stubs = plan;
            changed = true;
        }
    }
    changed
}

/// [`follow_calls_with`] answering new stubs with the worker's unstubbed values
/// ([`default_value`]): the test then behaves as in the run that gave `calls`.
pub fn follow_calls_with_defaults(test: &mut Test, calls: &[MockCalls]) -> bool {
    let mut make = |t: &mut Test, pos: usize, types: &[FieldType]| {
        Some(insert_values(
            t,
            pos,
            types.iter().map(default_value).collect(),
        ))
    };
    follow_calls_with(test, calls, &mut make)
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::panic)]
mod tests {
    use super::*;
    use ferrosuite_testcase::statement::Name;

    fn calls(statement: u32, list: &[(&str, &str, u32)]) -> MockCalls {
        MockCalls {
            statement,
            calls: list
                .iter()
                .map(|(n, d, c)| (Name::from(*n), Name::from(*d), *c))
                .collect(),
        }
    }

    #[test]
    fn stubs_are_added_resized_and_dropped_as_the_calls_say() {
        let mut t = Test::new(vec![
            Statement::Primitive(Prim::Int(7)),
            Statement::Primitive(Prim::Int(8)),
            Statement::Mock {
                class: "a/Sensor".into(),
                stubs: vec![
                    Stub::new("read", "()I", vec![VarRef(0), VarRef(1)]),
                    Stub::new("gone", "()I", vec![VarRef(1)]),
                ],
            },
            Statement::constructor("a/Meter", "(La/Sensor;)V", vec![VarRef(2)]),
        ]);
        let c = [calls(
            2,
            &[
                ("name", "()Ljava/lang/String;", 1),
                ("read", "()I", 9),
                ("reset", "()V", 2),
            ],
        )];
        assert!(!follows(&t, &c));
        assert!(follow_calls_with_defaults(&mut t, &c));
        assert!(t.validate().is_ok(), "{t}");
        // Three answers more for read (5 in all), a null for name; gone is dropped.
        assert_eq!(t.len(), 8);
        let Statement::Mock { stubs, .. } = &t.statements[6] else {
            panic!("{t}")
        };
        let names: Vec<(&str, usize)> = stubs.iter().map(|s| (&*s.name, s.answers.len())).collect();
        assert_eq!(names, [("name", 1), ("read", 5), ("reset", 0)]);
        assert_eq!(stubs[1].answers[..2], [VarRef(0), VarRef(1)]);
        assert_eq!(
            t.statements[7],
            Statement::constructor("a/Meter", "(La/Sensor;)V", vec![VarRef(6)])
        );
        let c = [calls(
            6,
            &[
                ("name", "()Ljava/lang/String;", 1),
                ("read", "()I", 9),
                ("reset", "()V", 2),
            ],
        )];
        assert!(follows(&t, &c));
        assert!(!follow_calls_with_defaults(&mut t, &c));
        // Fewer calls: fewer answers.
        let c = [calls(6, &[("read", "()I", 2)])];
        assert!(follow_calls_with_defaults(&mut t, &c));
        let Statement::Mock { stubs, .. } = &t.statements[6] else {
            panic!()
        };
        assert_eq!(stubs.len(), 1);
        assert_eq!(stubs[0].answers.len(), 2);
        assert!(t.validate().is_ok());
    }
}
