//! Tests on the wire: names sent once per worker, statements referring to them by number.
//!
//! Most of a test's bytes are names: the class, member name and descriptor of each call,
//! repeated in every test that makes it. Decoding them (UTF-8 checks, one allocation per name)
//! was the worker's largest cost outside the tests on cheap code under test. So the master
//! keeps, per worker process, a [`NameTable`] of the names it has sent; a request carries the
//! names new to that worker once, and its statements carry [`NameId`]s. The worker appends
//! the new names to its own list and turns each [`WireStatement`] back into a
//! [`Statement`] whose names are shared (`Arc`) with that list: no name is decoded or
//! allocated twice.
//!
//! ```text
//! request 1: names ["a/B", "m", "(I)V"]      tests [[Int 3, Method{0, 1, 2, args [0]}]]
//! request 2: names ["()V"]                    tests [[Constructor{0, 3}, Method{0, 1, 2, …}]]
//! ```
//!
//! A table belongs to one worker process: a fresh worker starts with an empty one, and a
//! request that was encoded but not sent is taken back with [`NameTable::truncate`].

use std::borrow::{Borrow, Cow};
use std::collections::HashMap;

use ferrosuite_bytecode::descriptor::FieldType;
use ferrosuite_testcase::statement::{Name, Stub};
use ferrosuite_testcase::{Prim, Statement, Test, VarRef};
use serde::ser::{Error as _, SerializeSeq};
use serde::{Deserialize, Serialize, Serializer};

/// A name's number in a worker's name table (its position in the order sent).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct NameId(pub u32);

/// The names sent to one worker process, numbered in the order sent (master side).
///
/// Names are looked up first by the address of their shared text: the statements a search
/// builds share their names with the test cluster's operations, and hashing an address is much
/// cheaper than hashing the text (which, twice per name of every statement sent, was most of the
/// host thread's instructions). An address entry holds its `Arc`, so the address cannot be
/// reused by another name while the entry is there; names that come as fresh copies fall back to
/// the text, and the address entries are dropped when they grow past [`MAX_ADDRESSES`].
#[derive(Debug, Default)]
pub struct NameTable {
    ids: HashMap<Name, NameId, foldhash::fast::FixedState>,
    names: Vec<Name>,
    by_address: HashMap<usize, (Name, NameId), foldhash::fast::FixedState>,
}

/// Most address entries a [`NameTable`] keeps (then it starts them over).
pub const MAX_ADDRESSES: usize = 1 << 16;

/// The address of a name's shared text.
fn address(name: &Name) -> usize {
    Name::as_ptr(name).cast::<u8>() as usize
}

impl NameTable {
    /// Number of names the table holds.
    #[must_use]
    pub fn len(&self) -> usize {
        self.names.len()
    }

    /// Whether the table is empty.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }

    /// The names from position `from` on (those a request adds).
    #[must_use]
    pub fn names_from(&self, from: usize) -> &[Name] {
        self.names.get(from..).unwrap_or(&[])
    }

    /// Forgets the names from position `len` on (a request that was not sent after all).
    pub fn truncate(&mut self, len: usize) {
        for n in self.names.drain(len.min(self.names.len())..) {
            self.ids.remove(&n);
        }
        self.by_address.retain(|_, (_, id)| (id.0 as usize) < len);
    }

    /// The number of `name`, if the table has it.
    #[must_use]
    pub fn get(&self, name: &Name) -> Option<NameId> {
        match self.by_address.get(&address(name)) {
            Some((_, id)) => Some(*id),
            None => self.ids.get(&**name).copied(),
        }
    }

    /// The number of `name`, adding it if new; `None` when the table is full (`u32` names).
    pub fn intern(&mut self, name: &Name) -> Option<NameId> {
        if let Some((_, id)) = self.by_address.get(&address(name)) {
            return Some(*id);
        }
        let id = if let Some(id) = self.ids.get(&**name) {
            *id
        } else {
            let id = NameId(u32::try_from(self.names.len()).ok()?);
            self.ids.insert(Name::clone(name), id);
            self.names.push(Name::clone(name));
            id
        };
        if self.by_address.len() >= MAX_ADDRESSES {
            self.by_address.clear();
        }
        self.by_address
            .insert(address(name), (Name::clone(name), id));
        Some(id)
    }

    /// Adds the names of `tests` that are new; `None` when the table is full.
    pub fn intern_tests<T: Borrow<Test>>(&mut self, tests: &[T]) -> Option<()> {
        for t in tests {
            for s in &t.borrow().statements {
                for name in names_of(s) {
                    self.intern(name)?;
                }
            }
        }
        Some(())
    }
}

/// The names a statement holds, in a fixed order.
fn names_of(s: &Statement) -> impl Iterator<Item = &Name> {
    let s = s.unwrapped();
    let stubs: &[Stub] = match s {
        Statement::Mock { stubs, .. } => stubs,
        _ => &[],
    };
    let (a, b, c) = match s {
        Statement::EnumConstant { class, name } => (Some(class), Some(name), None),
        Statement::Constructor {
            class, descriptor, ..
        } => (Some(class), Some(descriptor), None),
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
        } => (Some(class), Some(name), Some(descriptor)),
        Statement::Mock { class, .. } => (Some(class), None, None),
        // Primitives, null, arrays and casts hold no name; a statement kind added later
        // fails to encode in `WireStatement::of` until it is handled there and here.
        _ => (None, None, None),
    };
    a.into_iter()
        .chain(b)
        .chain(c)
        .chain(stubs.iter().flat_map(|s| [&s.name, &s.descriptor]))
}

/// A [`Stub`] with its names as [`NameId`]s.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[allow(missing_docs)] // The fields are those of `Stub`.
pub struct WireStub<'a> {
    pub name: NameId,
    pub descriptor: NameId,
    pub answers: Cow<'a, [VarRef]>,
}

/// A [`Statement`] with its names as [`NameId`]s; borrowed from the statement when sent,
/// owned when received.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[allow(missing_docs)] // The fields are those of the `Statement` variant of the same name.
pub enum WireStatement<'a> {
    Primitive(Cow<'a, Prim>),
    Null {
        ty: Cow<'a, FieldType>,
    },
    EnumConstant {
        class: NameId,
        name: NameId,
    },
    Constructor {
        class: NameId,
        descriptor: NameId,
        args: Cow<'a, [VarRef]>,
    },
    Method {
        class: NameId,
        name: NameId,
        descriptor: NameId,
        receiver: Option<VarRef>,
        args: Cow<'a, [VarRef]>,
    },
    FieldRead {
        class: NameId,
        name: NameId,
        descriptor: NameId,
        receiver: Option<VarRef>,
    },
    FieldWrite {
        class: NameId,
        name: NameId,
        descriptor: NameId,
        receiver: Option<VarRef>,
        value: VarRef,
    },
    ArrayNew {
        component: Cow<'a, FieldType>,
        length: u32,
    },
    ArrayStore {
        array: VarRef,
        index: u32,
        value: VarRef,
    },
    Cast {
        value: VarRef,
        ty: Cow<'a, FieldType>,
    },
    Mock {
        class: NameId,
        stubs: Vec<WireStub<'a>>,
    },
    Private(Box<WireStatement<'a>>),
    ClassLiteral {
        ty: Cow<'a, FieldType>,
    },
}

impl<'a> WireStatement<'a> {
    /// The statement with its names numbered by `table`; `None` when a name is not in it (or
    /// the statement is of a kind this module does not know).
    #[must_use]
    pub fn of(s: &'a Statement, table: &NameTable) -> Option<WireStatement<'a>> {
        let id = |n: &Name| table.get(n);
        Some(match s {
            Statement::Primitive(p) => WireStatement::Primitive(Cow::Borrowed(p)),
            Statement::Null { ty } => WireStatement::Null {
                ty: Cow::Borrowed(ty),
            },
            Statement::EnumConstant { class, name } => WireStatement::EnumConstant {
                class: id(class)?,
                name: id(name)?,
            },
            Statement::Constructor {
                class,
                descriptor,
                args,
            } => WireStatement::Constructor {
                class: id(class)?,
                descriptor: id(descriptor)?,
                args: Cow::Borrowed(args),
            },
            Statement::Method {
                class,
                name,
                descriptor,
                receiver,
                args,
            } => WireStatement::Method {
                class: id(class)?,
                name: id(name)?,
                descriptor: id(descriptor)?,
                receiver: *receiver,
                args: Cow::Borrowed(args),
            },
            Statement::FieldRead {
                class,
                name,
                descriptor,
                receiver,
            } => WireStatement::FieldRead {
                class: id(class)?,
                name: id(name)?,
                descriptor: id(descriptor)?,
                receiver: *receiver,
            },
            Statement::FieldWrite {
                class,
                name,
                descriptor,
                receiver,
                value,
            } => WireStatement::FieldWrite {
                class: id(class)?,
                name: id(name)?,
                descriptor: id(descriptor)?,
                receiver: *receiver,
                value: *value,
            },
            Statement::ArrayNew { component, length } => WireStatement::ArrayNew {
                component: Cow::Borrowed(component),
                length: *length,
            },
            Statement::ArrayStore {
                array,
                index,
                value,
            } => WireStatement::ArrayStore {
                array: *array,
                index: *index,
                value: *value,
            },
            Statement::Cast { value, ty } => WireStatement::Cast {
                value: *value,
                ty: Cow::Borrowed(ty),
            },
            Statement::Mock { class, stubs } => WireStatement::Mock {
                class: id(class)?,
                stubs: stubs
                    .iter()
                    .map(|s| {
                        Some(WireStub {
                            name: id(&s.name)?,
                            descriptor: id(&s.descriptor)?,
                            answers: Cow::Borrowed(&s.answers),
                        })
                    })
                    .collect::<Option<_>>()?,
            },
            Statement::Private(inner) => WireStatement::Private(Box::new(Self::of(inner, table)?)),
            Statement::ClassLiteral { ty } => WireStatement::ClassLiteral {
                ty: Cow::Borrowed(ty),
            },
            // (`Statement` is non-exhaustive.)
            _ => return None,
        })
    }

    /// The statement, its names taken (shared) from `names`; the first number `names` lacks
    /// when one is missing.
    pub fn into_statement(self, names: &[Name]) -> std::result::Result<Statement, NameId> {
        let name = |id: NameId| names.get(id.0 as usize).map(Name::clone).ok_or(id);
        Ok(match self {
            WireStatement::Primitive(p) => Statement::Primitive(p.into_owned()),
            WireStatement::Null { ty } => Statement::Null {
                ty: ty.into_owned(),
            },
            WireStatement::ClassLiteral { ty } => Statement::ClassLiteral {
                ty: ty.into_owned(),
            },
            WireStatement::EnumConstant { class, name: n } => Statement::EnumConstant {
                class: name(class)?,
                name: name(n)?,
            },
            WireStatement::Constructor {
                class,
                descriptor,
                args,
            } => Statement::Constructor {
                class: name(class)?,
                descriptor: name(descriptor)?,
                args: args.into_owned(),
            },
            WireStatement::Method {
                class,
                name: n,
                descriptor,
                receiver,
                args,
            } => Statement::Method {
                class: name(class)?,
                name: name(n)?,
                descriptor: name(descriptor)?,
                receiver,
                args: args.into_owned(),
            },
            WireStatement::FieldRead {
                class,
                name: n,
                descriptor,
                receiver,
            } => Statement::FieldRead {
                class: name(class)?,
                name: name(n)?,
                descriptor: name(descriptor)?,
                receiver,
            },
            WireStatement::FieldWrite {
                class,
                name: n,
                descriptor,
                receiver,
                value,
            } => Statement::FieldWrite {
                class: name(class)?,
                name: name(n)?,
                descriptor: name(descriptor)?,
                receiver,
                value,
            },
            WireStatement::ArrayNew { component, length } => Statement::ArrayNew {
                component: component.into_owned(),
                length,
            },
            WireStatement::ArrayStore {
                array,
                index,
                value,
            } => Statement::ArrayStore {
                array,
                index,
                value,
            },
            WireStatement::Cast { value, ty } => Statement::Cast {
                value,
                ty: ty.into_owned(),
            },
            WireStatement::Private(inner) => {
                Statement::Private(Box::new(inner.into_statement(names)?))
            }
            WireStatement::Mock { class, stubs } => Statement::Mock {
                class: name(class)?,
                stubs: stubs
                    .into_iter()
                    .map(|s| {
                        Ok(Stub {
                            name: name(s.name)?,
                            descriptor: name(s.descriptor)?,
                            answers: s.answers.into_owned(),
                        })
                    })
                    .collect::<std::result::Result<_, NameId>>()?,
            },
        })
    }
}

/// Tests serialised as lists of [`WireStatement`]s numbered by a table that already holds
/// their names (see [`NameTable::intern_tests`]); the wire format of `Vec<Vec<WireStatement>>`.
pub struct WireTests<'a, T> {
    /// The tests.
    pub tests: &'a [T],
    /// The table their names are numbered by.
    pub table: &'a NameTable,
}

impl<T: Borrow<Test>> Serialize for WireTests<'_, T> {
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        let mut seq = s.serialize_seq(Some(self.tests.len()))?;
        for t in self.tests {
            seq.serialize_element(&WireTest {
                test: t.borrow(),
                table: self.table,
            })?;
        }
        seq.end()
    }
}

struct WireTest<'a> {
    test: &'a Test,
    table: &'a NameTable,
}

impl Serialize for WireTest<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        let mut seq = s.serialize_seq(Some(self.test.statements.len()))?;
        for st in &self.test.statements {
            let w = WireStatement::of(st, self.table)
                .ok_or_else(|| S::Error::custom("a name of the test is not in the name table"))?;
            seq.serialize_element(&w)?;
        }
        seq.end()
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::panic)]
mod tests {
    use super::*;

    fn every_kind() -> Test {
        Test::new(vec![
            Statement::Primitive(Prim::Int(3)),
            Statement::string("a\u{0}é"),
            Statement::Null {
                ty: FieldType::Object("a/B".into()),
            },
            Statement::EnumConstant {
                class: "a/E".into(),
                name: "X".into(),
            },
            Statement::constructor("a/B", "(I)V", vec![VarRef(0)]),
            Statement::method("a/B", "m", "(I)V", Some(VarRef(4)), vec![VarRef(0)]),
            Statement::FieldRead {
                class: "a/B".into(),
                name: "f".into(),
                descriptor: "I".into(),
                receiver: None,
            },
            Statement::FieldWrite {
                class: "a/B".into(),
                name: "f".into(),
                descriptor: "I".into(),
                receiver: Some(VarRef(4)),
                value: VarRef(0),
            },
            Statement::ArrayNew {
                component: FieldType::Int,
                length: 2,
            },
            Statement::ArrayStore {
                array: VarRef(8),
                index: 1,
                value: VarRef(0),
            },
            Statement::Cast {
                value: VarRef(2),
                ty: FieldType::Object("a/C".into()),
            },
            Statement::Mock {
                class: "a/I".into(),
                stubs: vec![
                    Stub::new("m", "(I)V", vec![]),
                    Stub::new("g", "()I", vec![VarRef(0), VarRef(0)]),
                ],
            },
            Statement::Private(Box::new(Statement::method(
                "a/B",
                "hidden",
                "(I)I",
                Some(VarRef(4)),
                vec![VarRef(0)],
            ))),
            Statement::ClassLiteral {
                ty: FieldType::Array(Box::new(FieldType::Object("a/B".into()))),
            },
        ])
    }

    fn send(tests: &[Test], table: &mut NameTable) -> (Vec<String>, Vec<u8>) {
        let from = table.len();
        table.intern_tests(tests).unwrap();
        let names = table
            .names_from(from)
            .iter()
            .map(ToString::to_string)
            .collect();
        let bytes = postcard::to_allocvec(&WireTests { tests, table }).unwrap();
        (names, bytes)
    }

    fn receive(names: &mut Vec<Name>, new: Vec<String>, bytes: &[u8]) -> Vec<Test> {
        names.extend(new.into_iter().map(Name::from));
        let wire: Vec<Vec<WireStatement<'static>>> = postcard::from_bytes(bytes).unwrap();
        wire.into_iter()
            .map(|t| {
                Test::new(
                    t.into_iter()
                        .map(|s| s.into_statement(names).unwrap())
                        .collect(),
                )
            })
            .collect()
    }

    #[test]
    fn tests_come_back_equal_and_each_name_is_sent_once() {
        let (mut table, mut names) = (NameTable::default(), Vec::new());
        let first = vec![every_kind()];
        let (new, bytes) = send(&first, &mut table);
        assert_eq!(
            new,
            [
                "a/E", "X", "a/B", "(I)V", "m", "f", "I", "a/I", "g", "()I", "hidden", "(I)I"
            ]
        );
        assert_eq!(receive(&mut names, new, &bytes), first);
        // The same names again: none is sent; a new one is.
        let second = vec![
            every_kind(),
            Test::new(vec![Statement::constructor("a/B", "()V", vec![])]),
        ];
        let (new, bytes) = send(&second, &mut table);
        assert_eq!(new, ["()V"]);
        let back = receive(&mut names, new, &bytes);
        assert_eq!(back, second);
        // The worker's statements share its names.
        let (Statement::Constructor { class: a, .. }, Statement::Constructor { class: b, .. }) =
            (&back[0].statements[4], &back[1].statements[0])
        else {
            panic!("not constructors");
        };
        assert!(Name::ptr_eq(a, b));
    }

    #[test]
    fn a_request_taken_back_forgets_its_names() {
        let mut table = NameTable::default();
        send(&[every_kind()], &mut table);
        let mark = table.len();
        send(
            &[Test::new(vec![Statement::constructor(
                "z/Z",
                "()V",
                vec![],
            )])],
            &mut table,
        );
        assert_eq!(table.len(), mark + 2);
        table.truncate(mark);
        assert_eq!(table.len(), mark);
        assert_eq!(table.get(&Name::from("z/Z")), None);
        // Sent again, the names are numbered as before and sent with it.
        let (new, _) = send(
            &[Test::new(vec![Statement::constructor(
                "z/Z",
                "()V",
                vec![],
            )])],
            &mut table,
        );
        assert_eq!(new, ["z/Z", "()V"]);
        assert_eq!(
            table.get(&Name::from("z/Z")),
            Some(NameId(u32::try_from(mark).unwrap()))
        );
    }

    #[test]
    fn a_name_is_found_by_its_address_and_by_its_text() {
        let mut table = NameTable::default();
        let shared = Name::from("a/B");
        let id = table.intern(&shared).unwrap();
        // The same text in another allocation: the same number, no new name.
        let copy = Name::from("a/B");
        assert!(!Name::ptr_eq(&shared, &copy));
        assert_eq!(table.intern(&copy), Some(id));
        assert_eq!(table.get(&copy), Some(id));
        assert_eq!(table.len(), 1);
        // Taken back, a name is gone under its address too.
        let other = Name::from("c/D");
        table.intern(&other).unwrap();
        table.truncate(1);
        assert_eq!(table.get(&other), None);
        assert_eq!(table.get(&shared), Some(id));
        // Past the cap the address entries start over; every name keeps its number.
        for k in 0..MAX_ADDRESSES + 10 {
            let fresh = Name::from(if k % 2 == 0 { "a/B" } else { "e/F" });
            table.intern(&fresh).unwrap();
        }
        assert_eq!(table.len(), 2);
        assert!(table.by_address.len() <= MAX_ADDRESSES);
        assert_eq!(table.get(&shared), Some(id));
    }

    #[test]
    fn a_number_the_worker_lacks_is_an_error_and_a_name_the_table_lacks_is_not_encoded() {
        let s = WireStatement::EnumConstant {
            class: NameId(0),
            name: NameId(5),
        };
        assert_eq!(
            s.into_statement(&[Name::from("a/E")]).unwrap_err(),
            NameId(5)
        );
        let t = [Test::new(vec![Statement::constructor(
            "a/B",
            "()V",
            vec![],
        )])];
        let table = NameTable::default();
        assert!(
            postcard::to_allocvec(&WireTests {
                tests: &t,
                table: &table
            })
            .is_err()
        );
    }
}
