//! Statements and tests (whole-suite paper, Section III-B).
//!
//! A [`Test`] is a sequence of statements; statement `i` defines value `i` (written `v{i}`)
//! unless it is void (a void method call, a field write, an array store). Statements refer to
//! values only through a [`VarRef`] to an *earlier* statement, so a test is always executable
//! front to back, and removing a statement only requires repairing the statements after it.
//!
//! ```
//! use ferrosuite_testcase::statement::{Prim, Statement, Test, VarRef};
//! // Stack s = new Stack(); s.push(3);
//! let t = Test::new(vec![
//!     Statement::constructor("examples/Stack", "()V", vec![]),
//!     Statement::Primitive(Prim::Int(3)),
//!     Statement::method("examples/Stack", "push", "(I)V", Some(VarRef(0)), vec![VarRef(1)]),
//! ]);
//! assert!(t.validate().is_ok());
//! assert_eq!(t.to_string(), "examples.Stack v0 = new examples.Stack();\nint v1 = 3;\nv0.push(v1);\n");
//! ```
//!
//! The enum is `#[non_exhaustive]`: new kinds keep the same contract (a typed value,
//! references only backwards). A [`Statement::Mock`] is such a kind: its answers are earlier
//! values of the test, so the search mutates them like any other value:
//!
//! ```
//! use ferrosuite_testcase::statement::{Prim, Statement, Stub, Test, VarRef};
//! // long v0 = 5L; Ticker v1 = mock(Ticker.class); doReturn(v0).when(v1).read();
//! let t = Test::new(vec![
//!     Statement::Primitive(Prim::Long(5)),
//!     Statement::Mock {
//!         class: "com/google/common/base/Ticker".into(),
//!         stubs: vec![Stub::new("read", "()J", vec![VarRef(0)])],
//!     },
//! ]);
//! assert!(t.validate().is_ok());
//! assert_eq!(t.statements[1].to_string(), "mock(com.google.common.base.Ticker.class) { read()J -> [v0] }");
//! ```

use std::fmt::{self, Write as _};

use ferrosuite_bytecode::descriptor::{FieldType, MethodDescriptor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::error::{Error, Result};
pub use crate::mock::{MAX_ANSWERS, MockCalls, Stub, wanted_answers};

/// Internal name of `java.lang.Class`, the type of a class literal.
pub const CLASS: &str = "java/lang/Class";

/// A class, member or descriptor name in a statement: shared, so that copying a test (every
/// mutation copies one) copies no string.
pub type Name = std::sync::Arc<str>;

/// A reference to the value defined by an earlier statement (its index in the test).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(transparent)]
pub struct VarRef(pub u32);

impl VarRef {
    /// The statement index.
    #[must_use]
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

impl fmt::Display for VarRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "v{}", self.0)
    }
}

/// A `float` that survives every wire format: a number (or `"NaN"`, `"Infinity"`,
/// `"-Infinity"`) in human-readable formats such as JSON, the exact bits in binary ones.
/// (JSON keeps a NaN as the canonical NaN: its payload bits are not kept.)
#[derive(Debug, Clone, Copy)]
pub struct JFloat(pub f32);

/// A `double` with the same wire rules as [`JFloat`].
#[derive(Debug, Clone, Copy)]
pub struct JDouble(pub f64);

macro_rules! java_float {
    ($name:ident, $t:ty, $bits:ty, $to:ident, $from:ident) => {
        impl PartialEq for $name {
            /// Bitwise equality (so that `NaN == NaN` and `0.0 != -0.0`, as for test values).
            fn eq(&self, other: &Self) -> bool {
                self.0.$to() == other.0.$to()
            }
        }
        impl Eq for $name {}
        impl std::hash::Hash for $name {
            fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
                self.0.$to().hash(state);
            }
        }
        impl Serialize for $name {
            fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
                if !s.is_human_readable() {
                    return self.0.$to().serialize(s);
                }
                let v = self.0;
                if v.is_nan() {
                    s.serialize_str("NaN")
                } else if v.is_infinite() {
                    s.serialize_str(if v > 0.0 { "Infinity" } else { "-Infinity" })
                } else {
                    v.serialize(s)
                }
            }
        }
        impl<'de> Deserialize<'de> for $name {
            fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
                #[derive(Deserialize)]
                #[serde(untagged)]
                enum Text {
                    Num($t),
                    Word(String),
                }
                if !d.is_human_readable() {
                    return Ok($name(<$t>::$from(<$bits>::deserialize(d)?)));
                }
                match Text::deserialize(d)? {
                    Text::Num(v) => Ok($name(v)),
                    Text::Word(w) => match w.as_str() {
                        "NaN" => Ok($name(<$t>::NAN)),
                        "Infinity" => Ok($name(<$t>::INFINITY)),
                        "-Infinity" => Ok($name(<$t>::NEG_INFINITY)),
                        _ => Err(serde::de::Error::custom(format!(
                            "expected a number, NaN, Infinity or -Infinity, found {w:?}"
                        ))),
                    },
                }
            }
        }
    };
}
java_float!(JFloat, f32, u32, to_bits, from_bits);
java_float!(JDouble, f64, u64, to_bits, from_bits);

/// A primitive or `String` constant.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Prim {
    /// `boolean`
    Boolean(bool),
    /// `byte`
    Byte(i8),
    /// `char` (a UTF-16 code unit)
    Char(u16),
    /// `short`
    Short(i16),
    /// `int`
    Int(i32),
    /// `long`
    Long(i64),
    /// `float`
    Float(JFloat),
    /// `double`
    Double(JDouble),
    /// `java.lang.String` (never null: a null string is a [`Statement::Null`])
    String(String),
}

impl Prim {
    /// The `int` the JVM computes with for a `boolean` (0/1), `byte`, `short`, `char` or
    /// `int` value (the operand stack has no smaller kinds); `None` for the other kinds.
    #[must_use]
    pub fn as_jvm_int(&self) -> Option<i32> {
        match self {
            Prim::Boolean(b) => Some(i32::from(*b)),
            Prim::Byte(b) => Some(i32::from(*b)),
            Prim::Short(v) => Some(i32::from(*v)),
            Prim::Char(c) => Some(i32::from(*c)),
            Prim::Int(i) => Some(*i),
            Prim::Long(_) | Prim::Float(_) | Prim::Double(_) | Prim::String(_) => None,
        }
    }

    /// The Java type of the constant.
    #[must_use]
    pub fn field_type(&self) -> FieldType {
        match self {
            Prim::Boolean(_) => FieldType::Boolean,
            Prim::Byte(_) => FieldType::Byte,
            Prim::Char(_) => FieldType::Char,
            Prim::Short(_) => FieldType::Short,
            Prim::Int(_) => FieldType::Int,
            Prim::Long(_) => FieldType::Long,
            Prim::Float(_) => FieldType::Float,
            Prim::Double(_) => FieldType::Double,
            Prim::String(_) => FieldType::Object("java/lang/String".into()),
        }
    }

    /// The constant as Java source text (a literal, or an expression for special values).
    #[must_use]
    pub fn java_literal(&self) -> String {
        match self {
            Prim::Boolean(b) => b.to_string(),
            Prim::Byte(b) => format!("(byte) {b}"),
            Prim::Char(c) => char_literal(*c),
            Prim::Short(s) => format!("(short) {s}"),
            Prim::Int(i) => {
                if *i == i32::MIN {
                    "Integer.MIN_VALUE".into()
                } else {
                    i.to_string()
                }
            }
            Prim::Long(l) => {
                if *l == i64::MIN {
                    "Long.MIN_VALUE".into()
                } else {
                    format!("{l}L")
                }
            }
            Prim::Float(JFloat(f)) => {
                if f.is_nan() {
                    "Float.NaN".into()
                } else if f.is_infinite() {
                    if *f > 0.0 {
                        "Float.POSITIVE_INFINITY"
                    } else {
                        "Float.NEGATIVE_INFINITY"
                    }
                    .into()
                } else {
                    format!("{f:?}F")
                }
            }
            Prim::Double(JDouble(d)) => {
                if d.is_nan() {
                    "Double.NaN".into()
                } else if d.is_infinite() {
                    if *d > 0.0 {
                        "Double.POSITIVE_INFINITY"
                    } else {
                        "Double.NEGATIVE_INFINITY"
                    }
                    .into()
                } else {
                    format!("{d:?}")
                }
            }
            Prim::String(s) => string_literal(s),
        }
    }
}

fn char_literal(c: u16) -> String {
    match c {
        0x27 => "'\\''".into(),
        0x5c => "'\\\\'".into(),
        0x0a => "'\\n'".into(),
        0x0d => "'\\r'".into(),
        0x09 => "'\\t'".into(),
        0x20..=0x7e => format!("'{}'", char::from(c as u8)),
        _ => format!("'\\u{c:04x}'"),
    }
}

/// A Java string literal with every character outside printable ASCII escaped.
#[must_use]
pub fn string_literal(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for unit in s.encode_utf16() {
        match unit {
            0x22 => out.push_str("\\\""),
            0x5c => out.push_str("\\\\"),
            0x0a => out.push_str("\\n"),
            0x0d => out.push_str("\\r"),
            0x09 => out.push_str("\\t"),
            0x20..=0x7e => out.push(char::from(unit as u8)),
            _ => {
                let _ = write!(out, "\\u{unit:04x}");
            }
        }
    }
    out.push('"');
    out
}

/// One statement of a test.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum Statement {
    /// A primitive or string constant.
    Primitive(Prim),
    /// `null` of a reference type.
    Null {
        /// The declared type of the value.
        ty: FieldType,
    },
    /// `T.class`: the `Class` object of a class, interface, array or primitive type, for
    /// parameters of type `Class` (`createValue(str, String.class)`). Loading it runs no
    /// static initialiser, as in Java.
    ClassLiteral {
        /// The type whose `Class` object the value is.
        ty: FieldType,
    },
    /// `Enum.CONSTANT`.
    EnumConstant {
        /// Internal name of the enum class.
        class: Name,
        /// The constant's name.
        name: Name,
    },
    /// `new C(args)`.
    Constructor {
        /// Internal name of the class.
        class: Name,
        /// Constructor descriptor (`(I)V`).
        descriptor: Name,
        /// Arguments.
        args: Vec<VarRef>,
    },
    /// `receiver.m(args)` or `C.m(args)` for a static method (no receiver).
    Method {
        /// Internal name of the class the method is looked up in.
        class: Name,
        /// Method name.
        name: Name,
        /// Method descriptor.
        descriptor: Name,
        /// The receiver; `None` for a static method.
        receiver: Option<VarRef>,
        /// Arguments.
        args: Vec<VarRef>,
    },
    /// `receiver.f` or `C.f`.
    FieldRead {
        /// Internal name of the class the field is looked up in.
        class: Name,
        /// Field name.
        name: Name,
        /// Field descriptor.
        descriptor: Name,
        /// The receiver; `None` for a static field.
        receiver: Option<VarRef>,
    },
    /// `receiver.f = value` or `C.f = value`.
    FieldWrite {
        /// Internal name of the class the field is looked up in.
        class: Name,
        /// Field name.
        name: Name,
        /// Field descriptor.
        descriptor: Name,
        /// The receiver; `None` for a static field.
        receiver: Option<VarRef>,
        /// The value written.
        value: VarRef,
    },
    /// `new T[length]`.
    ArrayNew {
        /// Component type.
        component: FieldType,
        /// Length.
        length: u32,
    },
    /// `array[index] = value`.
    ArrayStore {
        /// The array.
        array: VarRef,
        /// Index.
        index: u32,
        /// The value stored.
        value: VarRef,
    },
    /// `(T) value`: a checked cast, used where an erased generic returns `Object`.
    Cast {
        /// The value cast.
        value: VarRef,
        /// The target reference type.
        ty: FieldType,
    },
    /// `mock(T.class)` with its stubs: a Mockito mock of an interface or a non-final class
    /// whose methods answer the stubs' values (functional mocking, PAFM paper III-B).
    Mock {
        /// Internal name of the mocked type.
        class: Name,
        /// One stub per method the test's run called, by name and descriptor.
        stubs: Vec<Stub>,
    },
    /// A [`Method`](Statement::Method) call, [`FieldRead`](Statement::FieldRead) or
    /// [`FieldWrite`](Statement::FieldWrite) of a private member of the class under test,
    /// which tests reach by reflection (PAFM III-A). It defines what the inner statement
    /// defines and reads what it reads.
    Private(Box<Statement>),
}

impl Statement {
    /// `new class(args)`.
    #[must_use]
    pub fn constructor(class: &str, descriptor: &str, args: Vec<VarRef>) -> Self {
        Statement::Constructor {
            class: class.into(),
            descriptor: descriptor.into(),
            args,
        }
    }

    /// A method call.
    #[must_use]
    pub fn method(
        class: &str,
        name: &str,
        descriptor: &str,
        receiver: Option<VarRef>,
        args: Vec<VarRef>,
    ) -> Self {
        Statement::Method {
            class: class.into(),
            name: name.into(),
            descriptor: descriptor.into(),
            receiver,
            args,
        }
    }

    /// A string constant.
    #[must_use]
    pub fn string(s: &str) -> Self {
        Statement::Primitive(Prim::String(s.into()))
    }

    /// The type of the value the statement defines; `None` for void statements.
    /// Fails only on a malformed descriptor.
    pub fn value_type(&self) -> Result<Option<FieldType>> {
        Ok(match self {
            Statement::Primitive(p) => Some(p.field_type()),
            Statement::Null { ty } | Statement::Cast { ty, .. } => Some(ty.clone()),
            Statement::ClassLiteral { .. } => Some(FieldType::Object(CLASS.into())),
            Statement::EnumConstant { class, .. }
            | Statement::Constructor { class, .. }
            | Statement::Mock { class, .. } => Some(FieldType::Object(class.to_string())),
            Statement::Method { descriptor, .. } => MethodDescriptor::parse_return(descriptor)?,
            Statement::Private(inner) => return inner.value_type(),
            Statement::FieldRead { descriptor, .. } => Some(FieldType::parse(descriptor)?),
            Statement::ArrayNew { component, .. } => {
                Some(FieldType::Array(Box::new(component.clone())))
            }
            Statement::FieldWrite { .. } | Statement::ArrayStore { .. } => None,
        })
    }

    /// The values the statement reads, in order (receiver first).
    #[must_use]
    pub fn uses(&self) -> Vec<VarRef> {
        let mut out = Vec::new();
        match self {
            Statement::Primitive(_)
            | Statement::Null { .. }
            | Statement::ClassLiteral { .. }
            | Statement::EnumConstant { .. }
            | Statement::ArrayNew { .. } => {}
            Statement::Constructor { args, .. } => out.extend(args),
            Statement::Method { receiver, args, .. } => {
                out.extend(receiver);
                out.extend(args);
            }
            Statement::FieldRead { receiver, .. } => out.extend(receiver),
            Statement::FieldWrite {
                receiver, value, ..
            } => {
                out.extend(receiver);
                out.push(*value);
            }
            Statement::ArrayStore { array, value, .. } => {
                out.push(*array);
                out.push(*value);
            }
            Statement::Cast { value, .. } => out.push(*value),
            Statement::Mock { stubs, .. } => {
                out.extend(stubs.iter().flat_map(|s| s.answers.iter()));
            }
            Statement::Private(inner) => return inner.uses(),
        }
        out
    }

    /// Mutable access to every reference the statement holds, in the order of
    /// [`uses`](Self::uses) (for repair after removal, renumbering); collects nothing.
    pub fn uses_mut(&mut self) -> impl Iterator<Item = &mut VarRef> {
        type Parts<'s> = (
            Option<&'s mut VarRef>,
            &'s mut [VarRef],
            Option<&'s mut VarRef>,
            &'s mut [Stub],
        );
        // A private access reads what its inner statement reads.
        let mut this = self;
        while let Statement::Private(inner) = this {
            this = &mut **inner;
        }
        // Every statement reads an optional first value (receiver, array), a list
        // (arguments), an optional last value (the value written or cast) and, for a mock, its
        // stubs' answers.
        let (first, list, last, stubs): Parts<'_> = match this {
            // (A private access is unwrapped above.)
            Statement::Primitive(_)
            | Statement::Null { .. }
            | Statement::ClassLiteral { .. }
            | Statement::EnumConstant { .. }
            | Statement::ArrayNew { .. }
            | Statement::Private(_) => (None, &mut [], None, &mut []),
            Statement::Constructor { args, .. } => (None, args.as_mut_slice(), None, &mut []),
            Statement::Method { receiver, args, .. } => {
                (receiver.as_mut(), args.as_mut_slice(), None, &mut [])
            }
            Statement::FieldRead { receiver, .. } => (receiver.as_mut(), &mut [], None, &mut []),
            Statement::FieldWrite {
                receiver, value, ..
            } => (receiver.as_mut(), &mut [], Some(value), &mut []),
            Statement::ArrayStore { array, value, .. } => {
                (Some(array), &mut [], Some(value), &mut [])
            }
            Statement::Cast { value, .. } => (None, &mut [], Some(value), &mut []),
            Statement::Mock { stubs, .. } => (None, &mut [], None, stubs.as_mut_slice()),
        };
        first
            .into_iter()
            .chain(list.iter_mut())
            .chain(last)
            .chain(stubs.iter_mut().flat_map(|s| s.answers.iter_mut()))
    }

    /// Whether executing the statement calls code (constructors, methods); constants, field
    /// accesses, arrays and casts do not.
    #[must_use]
    pub fn is_call(&self) -> bool {
        match self {
            Statement::Constructor { .. } | Statement::Method { .. } => true,
            Statement::Private(inner) => inner.is_call(),
            _ => false,
        }
    }

    /// The statement itself, or the member access a [`Statement::Private`] wraps.
    #[must_use]
    pub fn unwrapped(&self) -> &Statement {
        match self {
            Statement::Private(inner) => inner.unwrapped(),
            s => s,
        }
    }
}

/// Internal name → Java source name (`java/util/Map$Entry` → `java.util.Map.Entry`).
#[must_use]
pub fn java_name(internal: &str) -> String {
    internal.replace(['/', '$'], ".")
}

/// A field type as Java source text.
#[must_use]
pub fn java_type(t: &FieldType) -> String {
    match t {
        FieldType::Byte => "byte".into(),
        FieldType::Char => "char".into(),
        FieldType::Double => "double".into(),
        FieldType::Float => "float".into(),
        FieldType::Int => "int".into(),
        FieldType::Long => "long".into(),
        FieldType::Short => "short".into(),
        FieldType::Boolean => "boolean".into(),
        FieldType::Object(n) => java_name(n),
        FieldType::Array(c) => format!("{}[]", java_type(c)),
    }
}

fn join(args: &[VarRef]) -> String {
    args.iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join(", ")
}

impl fmt::Display for Statement {
    /// Java-like text without the declaration (`new Foo(v0, v1)`, `v2.bar()`, `v0[1] = v3`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Statement::Primitive(p) => write!(f, "{}", p.java_literal()),
            Statement::Null { .. } => write!(f, "null"),
            Statement::ClassLiteral { ty } => write!(f, "{}.class", java_type(ty)),
            Statement::EnumConstant { class, name } => write!(f, "{}.{name}", java_name(class)),
            Statement::Constructor { class, args, .. } => {
                write!(f, "new {}({})", java_name(class), join(args))
            }
            Statement::Method {
                class,
                name,
                receiver,
                args,
                ..
            } => match receiver {
                Some(r) => write!(f, "{r}.{name}({})", join(args)),
                None => write!(f, "{}.{name}({})", java_name(class), join(args)),
            },
            Statement::FieldRead {
                class,
                name,
                receiver,
                ..
            } => match receiver {
                Some(r) => write!(f, "{r}.{name}"),
                None => write!(f, "{}.{name}", java_name(class)),
            },
            Statement::FieldWrite {
                class,
                name,
                receiver,
                value,
                ..
            } => match receiver {
                Some(r) => write!(f, "{r}.{name} = {value}"),
                None => write!(f, "{}.{name} = {value}", java_name(class)),
            },
            Statement::ArrayNew { component, length } => {
                // `new int[3]`, `new int[3][]` for a component that is itself an array.
                let mut base = component;
                let mut dims = 0;
                while let FieldType::Array(c) = base {
                    base = c;
                    dims += 1;
                }
                write!(f, "new {}[{length}]{}", java_type(base), "[]".repeat(dims))
            }
            Statement::ArrayStore {
                array,
                index,
                value,
            } => write!(f, "{array}[{index}] = {value}"),
            Statement::Cast { value, ty } => write!(f, "({}) {value}", java_type(ty)),
            Statement::Private(inner) => write!(f, "private {inner}"),
            Statement::Mock { class, stubs } => {
                write!(f, "mock({}.class)", java_name(class))?;
                if !stubs.is_empty() {
                    let text: Vec<String> = stubs
                        .iter()
                        .map(|s| format!("{}{} -> [{}]", s.name, s.descriptor, join(&s.answers)))
                        .collect();
                    write!(f, " {{ {} }}", text.join("; "))?;
                }
                Ok(())
            }
        }
    }
}

/// A test: a sequence of statements.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Test {
    /// The statements, in execution order.
    pub statements: Vec<Statement>,
}

impl Test {
    /// A test of these statements.
    #[must_use]
    pub fn new(statements: Vec<Statement>) -> Self {
        Test { statements }
    }

    /// Number of statements.
    #[must_use]
    pub fn len(&self) -> usize {
        self.statements.len()
    }

    /// Whether the test has no statement.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.statements.is_empty()
    }

    /// Checks the model's rules: references only to earlier, non-void values; argument counts
    /// and primitive kinds that match the descriptors; receivers and arrays that are
    /// references. Assignability between reference types needs the class hierarchy and is
    /// checked by the executor (each reference argument is checked with `instanceof` before a
    /// call).
    pub fn validate(&self) -> Result<()> {
        let mut types: Vec<Option<FieldType>> = Vec::with_capacity(self.statements.len());
        for (index, s) in self.statements.iter().enumerate() {
            let bad = |problem: String| Error::IllFormed {
                index,
                statement: s.to_string(),
                problem,
            };
            let ty_of = |r: VarRef| -> Result<&FieldType> {
                match types.get(r.index()) {
                    None => Err(bad(format!("{r} is not an earlier value"))),
                    Some(None) => Err(bad(format!("{r} is void"))),
                    Some(Some(t)) => Ok(t),
                }
            };
            let want_ref = |r: VarRef, what: &str| -> Result<()> {
                if ty_of(r)?.is_reference() {
                    Ok(())
                } else {
                    Err(bad(format!("{what} {r} is not a reference")))
                }
            };
            // Gives the descriptor's return type (parsed once for both).
            let check_args = |desc: &str, args: &[VarRef]| -> Result<Option<FieldType>> {
                let d = MethodDescriptor::parse(desc).map_err(|e| bad(e.to_string()))?;
                if d.params.len() != args.len() {
                    return Err(bad(format!(
                        "{} arguments for {} parameters",
                        args.len(),
                        d.params.len()
                    )));
                }
                for (p, a) in d.params.iter().zip(args) {
                    fits(ty_of(*a)?, p).map_err(|why| bad(format!("argument {a}: {why}")))?;
                }
                Ok(d.ret)
            };
            let mut ret = None;
            // A private access is checked as the member access it wraps, standing here.
            if let Statement::Private(inner) = s
                && !matches!(
                    **inner,
                    Statement::Method { .. }
                        | Statement::FieldRead { .. }
                        | Statement::FieldWrite { .. }
                )
            {
                return Err(bad(
                    "private access to something other than a method or field".into(),
                ));
            }
            match s.unwrapped() {
                // (A private access is unwrapped above.)
                Statement::Primitive(_)
                | Statement::EnumConstant { .. }
                | Statement::ArrayNew { .. }
                | Statement::ClassLiteral { .. }
                | Statement::Private(_) => {}
                Statement::Null { ty } => {
                    if !ty.is_reference() {
                        return Err(bad(format!("null of primitive type {}", java_type(ty))));
                    }
                }
                Statement::Constructor {
                    descriptor, args, ..
                } => {
                    check_args(descriptor, args)?;
                }
                Statement::Method {
                    descriptor,
                    receiver,
                    args,
                    ..
                } => {
                    if let Some(r) = receiver {
                        want_ref(*r, "receiver")?;
                    }
                    ret = Some(check_args(descriptor, args)?);
                }
                Statement::FieldRead {
                    descriptor,
                    receiver,
                    ..
                } => {
                    FieldType::parse(descriptor).map_err(|e| bad(e.to_string()))?;
                    if let Some(r) = receiver {
                        want_ref(*r, "receiver")?;
                    }
                }
                Statement::FieldWrite {
                    descriptor,
                    receiver,
                    value,
                    ..
                } => {
                    let t = FieldType::parse(descriptor).map_err(|e| bad(e.to_string()))?;
                    if let Some(r) = receiver {
                        want_ref(*r, "receiver")?;
                    }
                    fits(ty_of(*value)?, &t).map_err(|why| bad(format!("value {value}: {why}")))?;
                }
                Statement::ArrayStore { array, value, .. } => {
                    let FieldType::Array(component) = ty_of(*array)? else {
                        return Err(bad(format!("{array} is not an array")));
                    };
                    fits(ty_of(*value)?, component)
                        .map_err(|why| bad(format!("value {value}: {why}")))?;
                }
                Statement::Cast { value, ty } => {
                    want_ref(*value, "cast operand")?;
                    if !ty.is_reference() {
                        return Err(bad("cast to a primitive type".into()));
                    }
                }
                Statement::Mock { stubs, .. } => {
                    for (k, stub) in stubs.iter().enumerate() {
                        let ret = stub.check(&stubs[..k]).map_err(bad)?;
                        let Some(r) = &ret else { continue };
                        for a in &stub.answers {
                            fits(ty_of(*a)?, r).map_err(|why| {
                                bad(format!(
                                    "stub {}{}: answer {a}: {why}",
                                    stub.name, stub.descriptor
                                ))
                            })?;
                        }
                    }
                }
            }
            let ty = match ret {
                Some(t) => t,
                None => s.value_type().map_err(|e| bad(e.to_string()))?,
            };
            types.push(ty);
        }
        Ok(())
    }

    /// Removes statement `index` and every statement that (transitively) uses its value,
    /// renumbering the references of the statements kept. Returns how many were removed.
    pub fn remove_with_dependents(&mut self, index: usize) -> usize {
        if index >= self.statements.len() {
            return 0;
        }
        let n = self.statements.len();
        let mut dead = vec![false; n];
        dead[index] = true;
        for i in index + 1..n {
            if self.statements[i].uses().iter().any(|r| dead[r.index()]) {
                dead[i] = true;
            }
        }
        let mut new_index = vec![0u32; n];
        let mut next = 0u32;
        for (i, d) in dead.iter().enumerate() {
            new_index[i] = next;
            if !d {
                next += 1;
            }
        }
        let old = std::mem::take(&mut self.statements);
        for (i, mut s) in old.into_iter().enumerate() {
            if dead[i] {
                continue;
            }
            for r in s.uses_mut() {
                *r = VarRef(new_index[r.index()]);
            }
            self.statements.push(s);
        }
        dead.iter().filter(|d| **d).count()
    }
}

/// Whether a value of type `have` may be passed where `want` is declared, without the class
/// hierarchy: primitives must match exactly; any reference fits any reference type (the
/// executor checks the class with `instanceof`).
fn fits(have: &FieldType, want: &FieldType) -> std::result::Result<(), String> {
    match (have.is_reference(), want.is_reference()) {
        (true, true) => Ok(()),
        (false, false) if have == want => Ok(()),
        _ => Err(format!(
            "a {} where a {} is expected",
            java_type(have),
            java_type(want)
        )),
    }
}

impl fmt::Display for Test {
    /// Java-like source, one statement per line.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, s) in self.statements.iter().enumerate() {
            match s.value_type() {
                Ok(Some(t)) => writeln!(f, "{} v{i} = {s};", java_type(&t))?,
                _ => writeln!(f, "{s};")?,
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uses_mut_visits_what_uses_lists_in_order() {
        let object = || FieldType::Object("java/lang/Object".into());
        let mut all = vec![
            Statement::Primitive(Prim::Int(1)),
            Statement::Null { ty: object() },
            Statement::EnumConstant {
                class: "E".into(),
                name: "A".into(),
            },
            Statement::ArrayNew {
                component: FieldType::Int,
                length: 2,
            },
            Statement::constructor("C", "(II)V", vec![VarRef(3), VarRef(1)]),
            Statement::method("C", "m", "(I)I", Some(VarRef(4)), vec![VarRef(0)]),
            Statement::method("C", "s", "(II)I", None, vec![VarRef(2), VarRef(0)]),
            Statement::FieldRead {
                class: "C".into(),
                name: "f".into(),
                descriptor: "I".into(),
                receiver: Some(VarRef(5)),
            },
            Statement::FieldWrite {
                class: "C".into(),
                name: "f".into(),
                descriptor: "I".into(),
                receiver: Some(VarRef(6)),
                value: VarRef(2),
            },
            Statement::FieldWrite {
                class: "C".into(),
                name: "g".into(),
                descriptor: "I".into(),
                receiver: None,
                value: VarRef(7),
            },
            Statement::ArrayStore {
                array: VarRef(3),
                index: 1,
                value: VarRef(8),
            },
            Statement::Cast {
                ty: object(),
                value: VarRef(9),
            },
            Statement::Mock {
                class: "I".into(),
                stubs: vec![
                    Stub::new("a", "()I", vec![VarRef(0), VarRef(2)]),
                    Stub::new("b", "()V", vec![]),
                    Stub::new("c", "()I", vec![VarRef(1)]),
                ],
            },
            Statement::Private(Box::new(Statement::method(
                "C",
                "p",
                "(I)I",
                Some(VarRef(4)),
                vec![VarRef(0)],
            ))),
        ];
        for s in &mut all {
            let before = s.uses();
            let seen: Vec<VarRef> = s.uses_mut().map(|r| *r).collect();
            assert_eq!(seen, before, "{s:?}");
            // Changing references through it changes what `uses` reports, in place.
            s.uses_mut().for_each(|r| r.0 += 100);
            let after: Vec<VarRef> = before.iter().map(|r| VarRef(r.0 + 100)).collect();
            assert_eq!(s.uses(), after, "{s:?}");
        }
    }

    #[test]
    fn literals_escape_everything_outside_printable_ascii() {
        assert_eq!(
            string_literal("a\"b\\c\n\u{e9}\u{1F600}"),
            "\"a\\\"b\\\\c\\n\\u00e9\\ud83d\\ude00\""
        );
        assert_eq!(Prim::Char(0x27).java_literal(), "'\\''");
        assert_eq!(Prim::Int(i32::MIN).java_literal(), "Integer.MIN_VALUE");
        assert_eq!(Prim::Long(-3).java_literal(), "-3L");
        assert_eq!(Prim::Double(JDouble(f64::NAN)).java_literal(), "Double.NaN");
        assert_eq!(Prim::Float(JFloat(1.5)).java_literal(), "1.5F");
        assert_eq!(Prim::Double(JDouble(1e300)).java_literal(), "1e300");
    }

    #[test]
    fn removal_repairs_later_references() {
        let mut t = Test::new(vec![
            Statement::Primitive(Prim::Int(1)),
            Statement::Primitive(Prim::Int(2)),
            Statement::constructor("A", "(I)V", vec![VarRef(0)]),
            Statement::method("A", "m", "(I)V", Some(VarRef(2)), vec![VarRef(1)]),
        ]);
        assert_eq!(t.remove_with_dependents(0), 3);
        assert_eq!(t.statements, vec![Statement::Primitive(Prim::Int(2))]);
        let mut t = Test::new(vec![
            Statement::Primitive(Prim::Int(1)),
            Statement::Primitive(Prim::Int(2)),
            Statement::constructor("A", "(I)V", vec![VarRef(1)]),
        ]);
        assert_eq!(t.remove_with_dependents(0), 1);
        assert_eq!(
            t.statements[1],
            Statement::constructor("A", "(I)V", vec![VarRef(0)])
        );
        assert!(t.validate().is_ok());
    }
}
