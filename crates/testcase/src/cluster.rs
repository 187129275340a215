//! The test cluster (whole-suite paper, Section III-B; DESIGN 4.4): what the search may put in a
//! test for a class under test (CUT), read from bytecode alone.
//!
//! # What is in it
//!
//! - **The CUT's accessible API** ([`TestCluster::constructors`], [`TestCluster::methods`],
//!   [`TestCluster::fields`]): its constructors (none for an abstract class or an interface),
//!   and its methods and fields *including inherited ones*, from the superclass chain and from
//!   superinterfaces (default and abstract methods; interface static methods are not inherited
//!   in Java and are left out). A member redefined lower in the hierarchy hides the one above
//!   (methods by name and descriptor, fields by name). The methods of `java.lang.Object` are
//!   left out unless a class below redefines them (they test nothing of the CUT), and so are
//!   interfaces' abstract restatements of `equals`, `hashCode` and `toString`;
//!   [`ClusterConfig::object_methods`] adds these three.
//! - **Generators** ([`TestCluster::types`]) for every type a member needs, recursively: for a
//!   type `T`, the accessible constructors of `T` when `T` is concrete, the static methods of
//!   `T` and of the CUT returning `T` or a subtype (static factories such as Guava's
//!   `Joiner.on(String)`), the static fields of `T` and of the CUT of such a type, and for an
//!   interface or abstract class the concrete subtypes to use instead ([`TypeInfo::subtypes`]):
//!   the user's class-path entries are scanned for implementations of the user's types, only
//!   the CUT's package for implementations of JDK types, and never the JDK itself (27,000
//!   class headers): JDK types get the default implementations of [`JDK_DEFAULT_SUBTYPES`]
//!   (`List` → `ArrayList`, `LinkedList`; `CharSequence` → `String`, `StringBuilder`; `Object`
//!   → `Object`, `String`, `Integer`; …). Enums list their constants; boxed types (`Integer`,
//!   …) are made from their primitive with `valueOf`; primitives and `String` need no generator
//!   (the search makes constants); arrays need their component type.
//! - **Generic types** ([`TypeUse`]): each parameter, return and field type keeps its erased
//!   type (the descriptor, which is what the JVM and the statements use) and the generic type of
//!   its `Signature` attribute ([`GenericType`], JVMS 4.7.9.1), with the type arguments resolved
//!   to classes: a parameter `List<String>` records `String` as its element type, `List<? extends
//!   Number>` records `Number`, a type variable falls back to its bound, and an unbounded type
//!   variable (erased to `Object`) to [`ClusterConfig::erased_generic_fallback`] (`Integer`, then
//!   `String`: the paper's "Integer for erased generics"; a value typed `Object` by erasure is
//!   cast back with a `Cast` statement). Type arguments of a generic superclass are substituted:
//!   in `class Names extends Base<String>`, the inherited `Base.add(T)` takes a `String`.
//!
//! # Accessibility
//!
//! Generated tests live in the CUT's package, so a member is accessible when it is `public`,
//! or `protected` or package-private and declared in a class of the CUT's package (JLS 6.6.2: a
//! `protected` member of a class in another package is not accessible to a non-subclass);
//! [`ClusterConfig::package_private`] turns the second rule off. Private members never are.
//! A class is accessible when it is `public` or in the CUT's package, and, when nested, its
//! `InnerClasses` flags say the same (and its enclosing class is accessible). Synthetic and
//! bridge methods, `<clinit>`, lambda bodies and `access$` accessors are skipped. Constructors of
//! non-static inner classes (which need an enclosing instance: `outer.new Inner()`) and local
//! and anonymous classes are not used.
//!
//! # Algorithm
//!
//! 1. Load the CUT; walk its superclass chain, then its superinterfaces breadth-first, carrying
//!    the substitution of each supertype's type parameters; keep the accessible members.
//! 2. Breadth-first over needed types, starting with the CUT (depth 0) and the types of the
//!    CUT's parameters and writable fields (depth 1): for each type, find its generators and
//!    subtypes; queue the subtypes at the same depth and the generators' parameter types (and
//!    their resolved type arguments) at depth + 1, up to [`ClusterConfig::max_depth`] and
//!    [`ClusterConfig::max_types`] types. A type that is needed beyond the depth has no entry:
//!    the search uses `null` for it.
//!
//! For example, with `Catalog` an interface that only `FileCatalog` implements in the same jar:
//!
//! ```text
//! public class Shop { public Shop(Catalog c) …  public int buy(List<Item> items, Color c) … }
//!
//! [0] Shop (class): new Shop(Catalog)
//! [1] Catalog (interface); use FileCatalog
//! [1] FileCatalog (class): new FileCatalog(String)     ← a subtype: same depth as Catalog
//! [1] List (interface): static List.of(…), …; use ArrayList, LinkedList
//! [1] Item (class): new Item(String, int)              ← the element type of `items`
//! [1] Color (enum): RED, GREEN
//! [2] String, int …                                    ← constants, no generators
//! ```
//!
//! Everything is sorted (members by name and descriptor, types by descriptor in a `BTreeMap`), so
//! the same class path gives the same cluster. Malformed signatures never fail the build: they
//! are reported in [`TestCluster::warnings`] (as [`Error::BadSignature`] messages naming the
//! class and member) and the member keeps its descriptor types.
//!
//! ```no_run
//! use ferrosuite_bytecode::classpath::ClassPath;
//! use ferrosuite_testcase::cluster::{ClusterConfig, TestCluster};
//! # fn main() -> ferrosuite_testcase::Result<()> {
//! let cp = ClassPath::parse("/usr/share/java/guava.jar:jrt")?;
//! let c = TestCluster::build(&cp, "com/google/common/base/Joiner", &ClusterConfig::default())?;
//! assert!(c.constructors.is_empty()); // Joiner's constructors are private
//! let on: Vec<_> = c.methods.iter().filter(|m| &*m.name == "on").map(|m| &*m.descriptor).collect();
//! assert_eq!(on, ["(C)Lcom/google/common/base/Joiner;", "(Ljava/lang/String;)Lcom/google/common/base/Joiner;"]);
//! println!("{}", c.describe());
//! # Ok(()) }
//! ```

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet, VecDeque};
use std::fmt;
use std::sync::Arc;

use ferrosuite_bytecode::attributes::{Attribute, AttributeBody};
use ferrosuite_bytecode::classpath::ClassPath;
use ferrosuite_bytecode::descriptor::{FieldType, MethodDescriptor};
use ferrosuite_bytecode::hierarchy::Hierarchy;
use ferrosuite_bytecode::{ClassFile, Member, access};
use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::statement::{Name, Statement, VarRef, java_name, java_type};

const OBJECT: &str = "java/lang/Object";
const STRING: &str = "java/lang/String";

// ---------------------------------------------------------------------------------------------
// Generic signatures (JVMS 4.7.9.1)
// ---------------------------------------------------------------------------------------------

/// A type of a `Signature` attribute (JVMS 4.7.9.1 `JavaTypeSignature`). [`fmt::Display`] gives
/// the signature text back, [`GenericType::java`] Java source.
///
/// ```
/// use ferrosuite_testcase::cluster::GenericType;
/// let t = GenericType::parse("Ljava/util/Map<Ljava/lang/String;+Ljava/lang/Number;>;").unwrap();
/// assert_eq!(t.java(), "java.util.Map<java.lang.String, ? extends java.lang.Number>");
/// assert_eq!(t.to_string(), "Ljava/util/Map<Ljava/lang/String;+Ljava/lang/Number;>;");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum GenericType {
    /// A primitive type (never [`FieldType::Object`] or [`FieldType::Array`]).
    Primitive(FieldType),
    /// A class or interface type with its type arguments.
    Class(ClassType),
    /// A type variable (`TT;`).
    Variable(String),
    /// An array of the component type.
    Array(Box<GenericType>),
}

/// A parameterised class type: `Lpkg/Outer<TA;>.Inner<TB;>;`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct ClassType {
    /// Internal name of the outermost class in the signature (`pkg/Outer`).
    pub name: String,
    /// Its type arguments.
    pub args: Vec<TypeArg>,
    /// Inner classes selected with `.` (their simple names), each with its arguments.
    pub inner: Vec<InnerClassType>,
}

/// One `.Inner<…>` suffix of a [`ClassType`].
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct InnerClassType {
    /// Simple name of the inner class.
    pub name: String,
    /// Its type arguments.
    pub args: Vec<TypeArg>,
}

/// A type argument.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TypeArg {
    /// `*` (`?`).
    Any,
    /// A type.
    Exact(GenericType),
    /// `+T` (`? extends T`).
    Extends(GenericType),
    /// `-T` (`? super T`).
    Super(GenericType),
}

/// A formal type parameter: `T:Ljava/lang/Object;`, `E::Ljava/lang/Comparable<TE;>;`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct TypeParameter {
    /// The name.
    pub name: String,
    /// The class bound (absent when the first bound is an interface).
    pub class_bound: Option<GenericType>,
    /// The interface bounds.
    pub interface_bounds: Vec<GenericType>,
}

/// A method's `Signature`: `<T:Ljava/lang/Object;>(TT;)Ljava/util/List<TT;>;^TE;`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct MethodSignature {
    /// The method's type parameters.
    pub type_params: Vec<TypeParameter>,
    /// Parameter types (without synthetic or mandated parameters the descriptor may have).
    pub params: Vec<GenericType>,
    /// Result type, `None` for `void`.
    pub ret: Option<GenericType>,
    /// Thrown types (`^`).
    pub throws: Vec<GenericType>,
}

/// A class's `Signature`: type parameters, superclass and superinterfaces.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct ClassSignature {
    /// The class's type parameters.
    pub type_params: Vec<TypeParameter>,
    /// The superclass (a class type).
    pub superclass: GenericType,
    /// The superinterfaces (class types).
    pub interfaces: Vec<GenericType>,
}

/// Why a signature does not parse: the character offset and what was expected there.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SignatureError {
    /// Byte offset in the signature text.
    pub position: usize,
    /// What is wrong.
    pub detail: String,
}

impl fmt::Display for SignatureError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "at offset {}: {}", self.position, self.detail)
    }
}

impl std::error::Error for SignatureError {}

impl SignatureError {
    /// The crate error for this failure, naming the class and member.
    #[must_use]
    pub fn at(self, class: &str, member: &str, signature: &str) -> Error {
        Error::BadSignature {
            class: class.to_string(),
            member: member.to_string(),
            signature: signature.to_string(),
            detail: self.to_string(),
        }
    }
}

type SigResult<T> = std::result::Result<T, SignatureError>;

/// Nesting limit of type arguments and arrays: deeper signatures are rejected rather than
/// risking the stack.
const MAX_NESTING: u32 = 100;

struct Parser<'s> {
    s: &'s str,
    pos: usize,
    depth: u32,
}

impl<'s> Parser<'s> {
    fn new(s: &'s str) -> Self {
        Parser {
            s,
            pos: 0,
            depth: 0,
        }
    }

    fn peek(&self) -> Option<char> {
        self.s.get(self.pos..).and_then(|r| r.chars().next())
    }

    fn bump(&mut self) -> Option<char> {
        let c = self.peek()?;
        self.pos += c.len_utf8();
        Some(c)
    }

    fn eat(&mut self, c: char) -> bool {
        if self.peek() == Some(c) {
            self.pos += c.len_utf8();
            true
        } else {
            false
        }
    }

    fn found(&self) -> String {
        match self.peek() {
            Some(c) => format!("{c:?}"),
            None => "the end".into(),
        }
    }

    fn err<T>(&self, detail: impl Into<String>) -> SigResult<T> {
        Err(SignatureError {
            position: self.pos,
            detail: detail.into(),
        })
    }

    fn expect(&mut self, c: char) -> SigResult<()> {
        if self.eat(c) {
            Ok(())
        } else {
            self.err(format!("expected {c:?}, found {}", self.found()))
        }
    }

    fn end(&self) -> SigResult<()> {
        if self.pos == self.s.len() {
            Ok(())
        } else {
            self.err(format!("trailing characters from {}", self.found()))
        }
    }

    fn enter(&mut self) -> SigResult<()> {
        self.depth += 1;
        if self.depth > MAX_NESTING {
            return self.err("types nested too deeply");
        }
        Ok(())
    }

    fn leave(&mut self) {
        self.depth = self.depth.saturating_sub(1);
    }

    fn identifier(&mut self, what: &str) -> SigResult<String> {
        let start = self.pos;
        while let Some(c) = self.peek() {
            if matches!(c, '.' | ';' | '[' | '/' | '<' | '>' | ':') {
                break;
            }
            self.pos += c.len_utf8();
        }
        if self.pos == start {
            return self.err(format!("expected {what}, found {}", self.found()));
        }
        Ok(self.s[start..self.pos].to_string())
    }

    fn java_type(&mut self) -> SigResult<GenericType> {
        let p = match self.peek() {
            Some('B') => FieldType::Byte,
            Some('C') => FieldType::Char,
            Some('D') => FieldType::Double,
            Some('F') => FieldType::Float,
            Some('I') => FieldType::Int,
            Some('J') => FieldType::Long,
            Some('S') => FieldType::Short,
            Some('Z') => FieldType::Boolean,
            _ => return self.reference_type(),
        };
        self.bump();
        Ok(GenericType::Primitive(p))
    }

    fn reference_type(&mut self) -> SigResult<GenericType> {
        self.enter()?;
        let t = match self.peek() {
            Some('L') => {
                self.bump();
                GenericType::Class(self.class_type_body()?)
            }
            Some('T') => {
                self.bump();
                let n = self.identifier("a type variable name")?;
                self.expect(';')?;
                GenericType::Variable(n)
            }
            Some('[') => {
                self.bump();
                GenericType::Array(Box::new(self.java_type()?))
            }
            _ => {
                return self.err(format!(
                    "expected a reference type ('L', 'T' or '['), found {}",
                    self.found()
                ));
            }
        };
        self.leave();
        Ok(t)
    }

    fn class_type(&mut self) -> SigResult<GenericType> {
        if self.peek() != Some('L') {
            return self.err(format!(
                "expected a class type ('L'), found {}",
                self.found()
            ));
        }
        self.reference_type()
    }

    fn class_type_body(&mut self) -> SigResult<ClassType> {
        let mut name = self.identifier("a class name")?;
        while self.eat('/') {
            name.push('/');
            name.push_str(&self.identifier("a name after '/'")?);
        }
        let args = self.type_args()?;
        let mut inner = Vec::new();
        while self.eat('.') {
            let name = self.identifier("an inner class name")?;
            let args = self.type_args()?;
            inner.push(InnerClassType { name, args });
        }
        self.expect(';')?;
        Ok(ClassType { name, args, inner })
    }

    fn type_args(&mut self) -> SigResult<Vec<TypeArg>> {
        if !self.eat('<') {
            return Ok(Vec::new());
        }
        let mut args = Vec::new();
        loop {
            let a = match self.peek() {
                Some('*') => {
                    self.bump();
                    TypeArg::Any
                }
                Some('+') => {
                    self.bump();
                    TypeArg::Extends(self.reference_type()?)
                }
                Some('-') => {
                    self.bump();
                    TypeArg::Super(self.reference_type()?)
                }
                _ => TypeArg::Exact(self.reference_type()?),
            };
            args.push(a);
            if self.eat('>') {
                return Ok(args);
            }
        }
    }

    fn type_params(&mut self) -> SigResult<Vec<TypeParameter>> {
        if !self.eat('<') {
            return Ok(Vec::new());
        }
        let mut out = Vec::new();
        loop {
            let name = self.identifier("a type parameter name")?;
            self.expect(':')?;
            let class_bound = if matches!(self.peek(), Some('L' | 'T' | '[')) {
                Some(self.reference_type()?)
            } else {
                None
            };
            let mut interface_bounds = Vec::new();
            while self.eat(':') {
                interface_bounds.push(self.reference_type()?);
            }
            out.push(TypeParameter {
                name,
                class_bound,
                interface_bounds,
            });
            if self.eat('>') {
                return Ok(out);
            }
        }
    }
}

impl GenericType {
    /// Parses a complete `JavaTypeSignature` (a field's `Signature` is a reference type; a
    /// primitive is accepted too).
    pub fn parse(s: &str) -> SigResult<Self> {
        let mut p = Parser::new(s);
        let t = p.java_type()?;
        p.end()?;
        Ok(t)
    }

    /// The erased class name of a class type (`pkg/Outer$Inner`), `None` for other types.
    #[must_use]
    pub fn class_name(&self) -> Option<String> {
        match self {
            GenericType::Class(c) => Some(c.erasure()),
            _ => None,
        }
    }

    /// Replaces type variables by the types `map` gives them.
    #[must_use]
    pub fn substitute(&self, map: &BTreeMap<String, GenericType>) -> GenericType {
        if map.is_empty() {
            return self.clone();
        }
        match self {
            GenericType::Primitive(_) => self.clone(),
            GenericType::Variable(v) => map.get(v).cloned().unwrap_or_else(|| self.clone()),
            GenericType::Array(c) => GenericType::Array(Box::new(c.substitute(map))),
            GenericType::Class(c) => GenericType::Class(ClassType {
                name: c.name.clone(),
                args: c.args.iter().map(|a| a.substitute(map)).collect(),
                inner: c
                    .inner
                    .iter()
                    .map(|i| InnerClassType {
                        name: i.name.clone(),
                        args: i.args.iter().map(|a| a.substitute(map)).collect(),
                    })
                    .collect(),
            }),
        }
    }

    /// Java source text (`java.util.List<? extends T>[]`).
    #[must_use]
    pub fn java(&self) -> String {
        match self {
            GenericType::Primitive(p) => java_type(p),
            GenericType::Variable(v) => v.clone(),
            GenericType::Array(c) => format!("{}[]", c.java()),
            GenericType::Class(c) => {
                let mut s = java_name(&c.name);
                push_java_args(&mut s, &c.args);
                for i in &c.inner {
                    s.push('.');
                    s.push_str(&i.name);
                    push_java_args(&mut s, &i.args);
                }
                s
            }
        }
    }

    /// Whether this generic type erases to `erased` (a type variable to any class type).
    #[must_use]
    pub fn matches_erasure(&self, erased: &FieldType) -> bool {
        match (self, erased) {
            (GenericType::Primitive(p), e) => p == e,
            (GenericType::Class(c), FieldType::Object(n)) => c.erasure() == *n,
            (GenericType::Variable(_), FieldType::Object(_)) => true,
            (GenericType::Array(g), FieldType::Array(e)) => g.matches_erasure(e),
            _ => false,
        }
    }
}

fn push_java_args(s: &mut String, args: &[TypeArg]) {
    if args.is_empty() {
        return;
    }
    s.push('<');
    for (i, a) in args.iter().enumerate() {
        if i > 0 {
            s.push_str(", ");
        }
        match a {
            TypeArg::Any => s.push('?'),
            TypeArg::Exact(t) => s.push_str(&t.java()),
            TypeArg::Extends(t) => {
                s.push_str("? extends ");
                s.push_str(&t.java());
            }
            TypeArg::Super(t) => {
                s.push_str("? super ");
                s.push_str(&t.java());
            }
        }
    }
    s.push('>');
}

impl ClassType {
    /// The erased internal name: `pkg/Outer$Inner`.
    #[must_use]
    pub fn erasure(&self) -> String {
        let mut s = self.name.clone();
        for i in &self.inner {
            s.push('$');
            s.push_str(&i.name);
        }
        s
    }

    /// The type arguments of the innermost class (`Outer<A>.Inner<B>` → `B`).
    #[must_use]
    pub fn last_args(&self) -> &[TypeArg] {
        self.inner.last().map_or(&self.args, |i| &i.args)
    }
}

impl TypeArg {
    /// Replaces type variables by the types `map` gives them.
    #[must_use]
    pub fn substitute(&self, map: &BTreeMap<String, GenericType>) -> TypeArg {
        match self {
            TypeArg::Any => TypeArg::Any,
            TypeArg::Exact(t) => TypeArg::Exact(t.substitute(map)),
            TypeArg::Extends(t) => TypeArg::Extends(t.substitute(map)),
            TypeArg::Super(t) => TypeArg::Super(t.substitute(map)),
        }
    }

    /// The type of the argument: `None` for `?`, the bound for a wildcard.
    #[must_use]
    pub fn ty(&self) -> Option<&GenericType> {
        match self {
            TypeArg::Any => None,
            TypeArg::Exact(t) | TypeArg::Extends(t) | TypeArg::Super(t) => Some(t),
        }
    }
}

impl TypeParameter {
    /// The bound the parameter erases to: the class bound, else the first interface bound.
    #[must_use]
    pub fn bound(&self) -> Option<&GenericType> {
        self.class_bound.as_ref().or(self.interface_bounds.first())
    }

    /// Java source text (`T extends java.lang.Comparable<T>`).
    #[must_use]
    pub fn java(&self) -> String {
        let bounds: Vec<String> = self
            .class_bound
            .iter()
            .chain(&self.interface_bounds)
            .filter(|b| b.class_name().as_deref() != Some(OBJECT))
            .map(GenericType::java)
            .collect();
        if bounds.is_empty() {
            self.name.clone()
        } else {
            format!("{} extends {}", self.name, bounds.join(" & "))
        }
    }
}

impl MethodSignature {
    /// Parses a method's `Signature`.
    pub fn parse(s: &str) -> SigResult<Self> {
        let mut p = Parser::new(s);
        let type_params = p.type_params()?;
        p.expect('(')?;
        let mut params = Vec::new();
        while !p.eat(')') {
            if p.peek().is_none() {
                return p.err("unterminated parameter list");
            }
            params.push(p.java_type()?);
        }
        let ret = if p.eat('V') {
            None
        } else {
            Some(p.java_type()?)
        };
        let mut throws = Vec::new();
        while p.eat('^') {
            if !matches!(p.peek(), Some('L' | 'T')) {
                return p.err(format!(
                    "expected a thrown class or type variable, found {}",
                    p.found()
                ));
            }
            throws.push(p.reference_type()?);
        }
        p.end()?;
        Ok(MethodSignature {
            type_params,
            params,
            ret,
            throws,
        })
    }
}

impl ClassSignature {
    /// Parses a class's `Signature`.
    pub fn parse(s: &str) -> SigResult<Self> {
        let mut p = Parser::new(s);
        let type_params = p.type_params()?;
        let superclass = p.class_type()?;
        let mut interfaces = Vec::new();
        while p.peek().is_some() {
            interfaces.push(p.class_type()?);
        }
        Ok(ClassSignature {
            type_params,
            superclass,
            interfaces,
        })
    }
}

fn write_args(f: &mut fmt::Formatter<'_>, args: &[TypeArg]) -> fmt::Result {
    if args.is_empty() {
        return Ok(());
    }
    f.write_str("<")?;
    for a in args {
        match a {
            TypeArg::Any => f.write_str("*")?,
            TypeArg::Exact(t) => write!(f, "{t}")?,
            TypeArg::Extends(t) => write!(f, "+{t}")?,
            TypeArg::Super(t) => write!(f, "-{t}")?,
        }
    }
    f.write_str(">")
}

fn write_type_params(f: &mut fmt::Formatter<'_>, ps: &[TypeParameter]) -> fmt::Result {
    if ps.is_empty() {
        return Ok(());
    }
    f.write_str("<")?;
    for p in ps {
        write!(f, "{p}")?;
    }
    f.write_str(">")
}

impl fmt::Display for GenericType {
    /// The signature text (JVMS 4.7.9.1).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GenericType::Primitive(p) => write!(f, "{p}"),
            GenericType::Variable(v) => write!(f, "T{v};"),
            GenericType::Array(c) => write!(f, "[{c}"),
            GenericType::Class(c) => {
                write!(f, "L{}", c.name)?;
                write_args(f, &c.args)?;
                for i in &c.inner {
                    write!(f, ".{}", i.name)?;
                    write_args(f, &i.args)?;
                }
                f.write_str(";")
            }
        }
    }
}

impl fmt::Display for TypeParameter {
    /// The signature text (`T:Ljava/lang/Object;`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:", self.name)?;
        if let Some(b) = &self.class_bound {
            write!(f, "{b}")?;
        }
        for b in &self.interface_bounds {
            write!(f, ":{b}")?;
        }
        Ok(())
    }
}

impl fmt::Display for MethodSignature {
    /// The signature text.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_type_params(f, &self.type_params)?;
        f.write_str("(")?;
        for p in &self.params {
            write!(f, "{p}")?;
        }
        f.write_str(")")?;
        match &self.ret {
            None => f.write_str("V")?,
            Some(r) => write!(f, "{r}")?,
        }
        for t in &self.throws {
            write!(f, "^{t}")?;
        }
        Ok(())
    }
}

impl fmt::Display for ClassSignature {
    /// The signature text.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_type_params(f, &self.type_params)?;
        write!(f, "{}", self.superclass)?;
        for i in &self.interfaces {
            write!(f, "{i}")?;
        }
        Ok(())
    }
}

// ---------------------------------------------------------------------------------------------
// The cluster
// ---------------------------------------------------------------------------------------------

/// Default concrete implementations of JDK interfaces and abstract classes (and of `Object`),
/// used because the JDK is not scanned for subtypes. The first entry is the preferred one.
pub const JDK_DEFAULT_SUBTYPES: &[(&str, &[&str])] = &[
    ("java/io/InputStream", &["java/io/ByteArrayInputStream"]),
    ("java/io/OutputStream", &["java/io/ByteArrayOutputStream"]),
    ("java/io/Reader", &["java/io/StringReader"]),
    (
        "java/io/Serializable",
        &["java/lang/String", "java/lang/Integer"],
    ),
    ("java/io/Writer", &["java/io/StringWriter"]),
    ("java/lang/Appendable", &["java/lang/StringBuilder"]),
    (
        "java/lang/CharSequence",
        &["java/lang/String", "java/lang/StringBuilder"],
    ),
    (
        "java/lang/Comparable",
        &["java/lang/Integer", "java/lang/String"],
    ),
    ("java/lang/Iterable", &["java/util/ArrayList"]),
    (
        "java/lang/Number",
        &["java/lang/Integer", "java/lang/Long", "java/lang/Double"],
    ),
    (
        "java/lang/Object",
        &["java/lang/String", "java/lang/Integer"],
    ),
    ("java/util/AbstractCollection", &["java/util/ArrayList"]),
    ("java/util/AbstractList", &["java/util/ArrayList"]),
    ("java/util/AbstractMap", &["java/util/HashMap"]),
    ("java/util/AbstractSet", &["java/util/HashSet"]),
    ("java/util/Collection", &["java/util/ArrayList"]),
    ("java/util/Deque", &["java/util/ArrayDeque"]),
    (
        "java/util/List",
        &["java/util/ArrayList", "java/util/LinkedList"],
    ),
    ("java/util/Map", &["java/util/HashMap", "java/util/TreeMap"]),
    (
        "java/util/Map$Entry",
        &["java/util/AbstractMap$SimpleEntry"],
    ),
    ("java/util/NavigableMap", &["java/util/TreeMap"]),
    ("java/util/NavigableSet", &["java/util/TreeSet"]),
    ("java/util/Queue", &["java/util/ArrayDeque"]),
    ("java/util/Set", &["java/util/HashSet", "java/util/TreeSet"]),
    ("java/util/SortedMap", &["java/util/TreeMap"]),
    ("java/util/SortedSet", &["java/util/TreeSet"]),
];

/// The default implementations of a JDK type from [`JDK_DEFAULT_SUBTYPES`].
#[must_use]
pub fn jdk_default_subtypes(class: &str) -> &'static [&'static str] {
    JDK_DEFAULT_SUBTYPES
        .iter()
        .find(|(c, _)| *c == class)
        .map_or(&[], |(_, s)| s)
}

/// Boxed types and their primitives.
const BOXES: &[(&str, FieldType)] = &[
    ("java/lang/Boolean", FieldType::Boolean),
    ("java/lang/Byte", FieldType::Byte),
    ("java/lang/Character", FieldType::Char),
    ("java/lang/Double", FieldType::Double),
    ("java/lang/Float", FieldType::Float),
    ("java/lang/Integer", FieldType::Int),
    ("java/lang/Long", FieldType::Long),
    ("java/lang/Short", FieldType::Short),
];

/// How the cluster is built.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClusterConfig {
    /// Depth of generator discovery: the CUT is at depth 0, the CUT's parameter types at 1, the
    /// parameter types of their generators at 2, … Types deeper than this get no entry.
    pub max_depth: u32,
    /// Concrete subtypes kept per interface or abstract class (found on the user's class-path
    /// entries; the JDK defaults are always kept).
    pub max_subtypes: usize,
    /// Types in the cluster at most (a safety net for very wide APIs; a warning says when it
    /// was reached).
    pub max_types: usize,
    /// Whether package-private and `protected` members of classes in the CUT's package are
    /// accessible (the generated tests live in that package).
    pub package_private: bool,
    /// Whether the CUT gets `equals`, `hashCode` and `toString` of `java.lang.Object` when no
    /// class below redefines them.
    pub object_methods: bool,
    /// What an unbounded type variable (or `?`) stands for, in order of preference.
    pub erased_generic_fallback: Vec<FieldType>,
    /// Levels of [`TestCluster::result_methods`]: 0 for none, 1 for the classes the CUT
    /// returns, 2 for the classes their methods return too.
    pub result_depth: u32,
    /// Classes in [`TestCluster::result_methods`] at most.
    pub max_result_types: usize,
    /// Methods per class in [`TestCluster::result_methods`] at most.
    pub max_result_methods: usize,
}

impl Default for ClusterConfig {
    fn default() -> Self {
        ClusterConfig {
            max_depth: 3,
            max_subtypes: 5,
            max_types: 400,
            package_private: true,
            object_methods: false,
            erased_generic_fallback: vec![
                FieldType::Object("java/lang/Integer".into()),
                FieldType::Object(STRING.into()),
            ],
            result_depth: 2,
            max_result_types: 24,
            max_result_methods: 64,
        }
    }
}

/// A parameter, return or field type: the erased type and what its generic signature says.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct TypeUse {
    /// The erased type (from the descriptor): what statements use.
    pub ty: FieldType,
    /// The declared generic type, after substituting the type arguments of generic
    /// superclasses; `None` without a `Signature` (or with a malformed one).
    pub generic: Option<GenericType>,
    /// The type arguments of the (innermost, array-element) class type resolved to erased
    /// types: `List<String>` → `[String]`, `Map<K, ? extends Number>` → `[Integer, Number]`
    /// for an unbounded `K`. An argument that resolves to `Object` (`?`, `? extends Object`, an
    /// unbounded variable, `Object` itself) becomes the first erased-generic fallback. Empty
    /// for raw and non-generic types.
    pub type_args: Vec<FieldType>,
    /// Whether the type (or its array element type) is a type variable erased to `Object`
    /// without a bound: any object fits, and [`ClusterConfig::erased_generic_fallback`] is the
    /// suggested class.
    pub erased_generic: bool,
}

impl TypeUse {
    /// A non-generic use of `ty`.
    #[must_use]
    pub fn plain(ty: FieldType) -> Self {
        TypeUse {
            ty,
            generic: None,
            type_args: Vec::new(),
            erased_generic: false,
        }
    }

    /// Java source text: the generic type when known, else the erased one.
    #[must_use]
    pub fn java(&self) -> String {
        self.generic
            .as_ref()
            .map_or_else(|| java_type(&self.ty), GenericType::java)
    }
}

/// What an [`Operation`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OperationKind {
    /// `new C(…)`.
    Constructor,
    /// A method call (static or on a receiver).
    Method,
    /// A field (read; written too unless `final`).
    Field,
    /// An enum constant.
    EnumConstant,
}

/// A constructor, method, field or enum constant the search may use.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Operation {
    /// What it is.
    pub kind: OperationKind,
    /// Internal name of the class a statement names (the CUT for the CUT's inherited members).
    pub class: Name,
    /// Internal name of the class that declares it.
    pub declared_in: String,
    /// Name (`<init>` for constructors).
    pub name: Name,
    /// Descriptor (method or field).
    pub descriptor: Name,
    /// Access flags of the member.
    pub access: u16,
    /// Whether it is static (no receiver).
    pub is_static: bool,
    /// Parameter types (empty for fields and constants).
    pub params: Vec<TypeUse>,
    /// The value it gives: the class for a constructor, the field's type, the return type;
    /// `None` for a `void` method.
    pub ret: Option<TypeUse>,
    /// The method's own type parameters.
    pub type_params: Vec<TypeParameter>,
}

impl Operation {
    /// Whether a `final` field (not writable) — false for other kinds.
    #[must_use]
    pub fn is_final_field(&self) -> bool {
        matches!(
            self.kind,
            OperationKind::Field | OperationKind::EnumConstant
        ) && self.access & access::FINAL != 0
    }

    /// Whether it needs a receiver.
    #[must_use]
    pub fn needs_receiver(&self) -> bool {
        !self.is_static && matches!(self.kind, OperationKind::Method | OperationKind::Field)
    }

    /// The statement that performs it (a field is read). `receiver` is ignored for static
    /// members and constructors.
    #[must_use]
    pub fn statement(&self, receiver: Option<VarRef>, args: Vec<VarRef>) -> Statement {
        let receiver = if self.needs_receiver() {
            receiver
        } else {
            None
        };
        match self.kind {
            // The statement shares the operation's names (no string is copied).
            OperationKind::Constructor => Statement::Constructor {
                class: self.class.clone(),
                descriptor: self.descriptor.clone(),
                args,
            },
            OperationKind::Method => Statement::Method {
                class: self.class.clone(),
                name: self.name.clone(),
                descriptor: self.descriptor.clone(),
                receiver,
                args,
            },
            OperationKind::Field => Statement::FieldRead {
                class: self.class.clone(),
                name: self.name.clone(),
                descriptor: self.descriptor.clone(),
                receiver,
            },
            OperationKind::EnumConstant => Statement::EnumConstant {
                class: self.class.clone(),
                name: self.name.clone(),
            },
        }
    }

    fn sort_key(&self) -> (OperationKind, bool, &str, &str, &str) {
        (
            self.kind,
            !self.is_static,
            &*self.class,
            &*self.name,
            &*self.descriptor,
        )
    }
}

impl fmt::Display for Operation {
    /// Java-like text: `static java.lang.String abbreviate(java.lang.String, int)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_static && self.kind != OperationKind::EnumConstant {
            f.write_str("static ")?;
        }
        if !self.type_params.is_empty() {
            let tps: Vec<String> = self.type_params.iter().map(TypeParameter::java).collect();
            write!(f, "<{}> ", tps.join(", "))?;
        }
        let params = || {
            self.params
                .iter()
                .map(TypeUse::java)
                .collect::<Vec<_>>()
                .join(", ")
        };
        match self.kind {
            OperationKind::Constructor => {
                write!(f, "new {}({})", java_name(&self.class), params())?;
            }
            OperationKind::Method => {
                let ret = self
                    .ret
                    .as_ref()
                    .map_or_else(|| "void".into(), TypeUse::java);
                write!(
                    f,
                    "{ret} {}.{}({})",
                    java_name(&self.class),
                    self.name,
                    params()
                )?;
            }
            OperationKind::Field | OperationKind::EnumConstant => {
                if self.is_final_field() && self.kind == OperationKind::Field {
                    f.write_str("final ")?;
                }
                let ty = self.ret.as_ref().map_or_else(String::new, TypeUse::java);
                write!(f, "{ty} {}.{}", java_name(&self.class), self.name)?;
            }
        }
        if *self.declared_in != *self.class {
            write!(f, " [from {}]", java_name(&self.declared_in))?;
        }
        Ok(())
    }
}

/// What kind of type a [`TypeInfo`] describes.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TypeKind {
    /// A primitive: the search makes constants.
    Primitive,
    /// `java.lang.String`: the search makes constants.
    String,
    /// A boxed primitive, made with `valueOf(primitive)`.
    Boxed {
        /// The primitive.
        primitive: FieldType,
    },
    /// An enum.
    Enum {
        /// Its constants in declaration order.
        constants: Vec<String>,
    },
    /// An array.
    Array {
        /// The component type.
        component: FieldType,
    },
    /// A concrete class.
    Class,
    /// An abstract class.
    Abstract,
    /// An interface (or annotation type).
    Interface,
    /// Not on the class path (or unreadable: see the warnings).
    Missing,
}

/// A type the cluster needs, with its generators.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TypeInfo {
    /// The type.
    pub ty: FieldType,
    /// What kind of type it is.
    pub kind: TypeKind,
    /// Whether tests in the CUT's package can name the class (else only its subtypes and the
    /// CUT's factories can provide values).
    pub accessible: bool,
    /// Discovery depth (0 for the CUT).
    pub depth: u32,
    /// Constructors, static factories, static fields and enum constants giving a value of the
    /// type: constructors first, then static methods, then fields (each by class, name and
    /// descriptor; enum constants in declaration order).
    pub generators: Vec<Operation>,
    /// Internal names of concrete subtypes to use instead (for interfaces and abstract classes,
    /// and the JDK defaults): the JDK defaults first, then the user's classes in the CUT's
    /// package, then other user classes, each by name.
    pub subtypes: Vec<String>,
}

/// The test cluster of a class under test. See the [module documentation](self).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TestCluster {
    /// Internal name of the CUT.
    pub cut: String,
    /// The CUT's type parameters.
    pub type_params: Vec<TypeParameter>,
    /// The CUT's accessible constructors, by descriptor.
    pub constructors: Vec<Operation>,
    /// The CUT's accessible methods, declared and inherited, static first, then by name and
    /// descriptor. Their `class` is the CUT.
    pub methods: Vec<Operation>,
    /// The CUT's accessible fields, declared and inherited, static first, then by name.
    pub fields: Vec<Operation>,
    /// Instance methods to call on values of other classes that the CUT's methods and fields
    /// return (and, one level down, that those methods return), by internal class name: the
    /// `Iterable` that `Splitter.split` returns gets `iterator()`, the `Iterator` gets
    /// `hasNext()` and `next()`, whose code is often the CUT's own (nested) code.
    pub result_methods: BTreeMap<String, Vec<Operation>>,
    /// Every type needed, by descriptor (the CUT included).
    pub types: BTreeMap<String, TypeInfo>,
    /// [`ClusterConfig::erased_generic_fallback`] as used.
    pub erased_generic_fallback: Vec<FieldType>,
    /// What could not be read or was cut short: malformed signatures, missing classes, limits.
    pub warnings: Vec<String>,
}

impl TestCluster {
    /// Builds the cluster of `cut` (an internal name; a binary name with dots is accepted too)
    /// from `classpath`, which should include the JDK (`ClassPathEntry::jdk`, or `jrt` in
    /// `ClassPath::parse`). Fails when the CUT is missing, unreadable, an annotation, a module
    /// descriptor, or a local, anonymous or private nested class.
    pub fn build(classpath: &ClassPath, cut: &str, config: &ClusterConfig) -> Result<TestCluster> {
        Builder::new(classpath, cut, config)?.run()
    }

    /// Keeps only the operations `keep` accepts — members of the CUT, generators of every
    /// type, result methods — and returns how many went. For a compilation target older than
    /// the running JDK, say, whose tests cannot call `List.of`.
    pub fn retain_operations(&mut self, mut keep: impl FnMut(&Operation) -> bool) -> usize {
        let mut removed = 0;
        let mut filter = |ops: &mut Vec<Operation>| {
            let before = ops.len();
            ops.retain(|op| keep(op));
            removed += before - ops.len();
        };
        filter(&mut self.constructors);
        filter(&mut self.methods);
        filter(&mut self.fields);
        for info in self.types.values_mut() {
            filter(&mut info.generators);
            // An enum's constant list goes with its constants' operations.
            if let TypeKind::Enum { constants } = &mut info.kind {
                let generators = &info.generators;
                constants.retain(|c| {
                    generators
                        .iter()
                        .any(|g| g.kind == OperationKind::EnumConstant && *g.name == **c)
                });
            }
        }
        for ops in self.result_methods.values_mut() {
            filter(ops);
        }
        self.result_methods.retain(|_, ops| !ops.is_empty());
        removed
    }

    /// The entry of a type, if the cluster needed it.
    #[must_use]
    pub fn type_info(&self, ty: &FieldType) -> Option<&TypeInfo> {
        self.types.get(&ty.descriptor())
    }

    /// The entry of the CUT.
    #[must_use]
    pub fn cut_info(&self) -> Option<&TypeInfo> {
        self.types.get(&format!("L{};", self.cut))
    }

    /// Everything that can give a value of `ty`: its own generators, then those of its
    /// subtypes (one level: the subtypes listed are concrete).
    #[must_use]
    pub fn generators_for(&self, ty: &FieldType) -> Vec<&Operation> {
        let Some(info) = self.type_info(ty) else {
            return Vec::new();
        };
        let mut out: Vec<&Operation> = info.generators.iter().collect();
        for s in &info.subtypes {
            if let Some(si) = self.types.get(&format!("L{s};")) {
                out.extend(&si.generators);
            }
        }
        out
    }

    /// The constants of an enum in the cluster.
    #[must_use]
    pub fn enum_constants(&self, class: &str) -> Option<&[String]> {
        match &self.types.get(&format!("L{class};"))?.kind {
            TypeKind::Enum { constants } => Some(constants),
            _ => None,
        }
    }

    /// The CUT's constructors, methods and fields.
    pub fn members(&self) -> impl Iterator<Item = &Operation> {
        self.constructors
            .iter()
            .chain(&self.methods)
            .chain(&self.fields)
    }

    /// A readable multi-line summary.
    #[must_use]
    pub fn describe(&self) -> String {
        use std::fmt::Write as _;
        let mut s = String::new();
        let kind = self.cut_info().map_or("class", |i| kind_name(&i.kind));
        let tps = if self.type_params.is_empty() {
            String::new()
        } else {
            let t: Vec<String> = self.type_params.iter().map(TypeParameter::java).collect();
            format!("<{}>", t.join(", "))
        };
        let _ = writeln!(s, "test cluster of {kind} {}{tps}", java_name(&self.cut));
        let without = self
            .types
            .values()
            .filter(|t| {
                needs_generator(&t.kind) && t.generators.is_empty() && t.subtypes.is_empty()
            })
            .count();
        let _ = writeln!(
            s,
            "  {} constructors, {} methods, {} fields; {} types ({without} without generators); {} warnings",
            self.constructors.len(),
            self.methods.len(),
            self.fields.len(),
            self.types.len(),
            self.warnings.len()
        );
        for (title, ops) in [
            ("constructors", &self.constructors),
            ("methods", &self.methods),
            ("fields", &self.fields),
        ] {
            if !ops.is_empty() {
                let _ = writeln!(s, "{title}:");
                for o in ops {
                    let _ = writeln!(s, "  {o}");
                }
            }
        }
        let _ = writeln!(s, "types:");
        let mut by_depth: Vec<&TypeInfo> = self.types.values().collect();
        by_depth.sort_by_key(|t| t.depth);
        for t in by_depth {
            let mut line = format!(
                "  [{}] {} ({}",
                t.depth,
                java_type(&t.ty),
                kind_name(&t.kind)
            );
            if !t.accessible {
                line.push_str(", inaccessible");
            }
            line.push(')');
            if let TypeKind::Enum { constants } = &t.kind {
                let _ = write!(line, ": {}", constants.join(", "));
            } else if !t.generators.is_empty() {
                let _ = write!(line, ": {} generators", t.generators.len());
            }
            if !t.subtypes.is_empty() {
                let subs: Vec<String> = t.subtypes.iter().map(|x| java_name(x)).collect();
                let _ = write!(line, "; use {}", subs.join(", "));
            }
            let _ = writeln!(s, "{line}");
            if !matches!(t.kind, TypeKind::Enum { .. }) {
                for g in &t.generators {
                    let _ = writeln!(s, "      {g}");
                }
            }
        }
        if !self.warnings.is_empty() {
            let _ = writeln!(s, "warnings:");
            for w in &self.warnings {
                let _ = writeln!(s, "  {w}");
            }
        }
        s
    }
}

impl fmt::Display for TestCluster {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.describe())
    }
}

fn kind_name(k: &TypeKind) -> &'static str {
    match k {
        TypeKind::Primitive => "primitive",
        TypeKind::String => "string",
        TypeKind::Boxed { .. } => "boxed",
        TypeKind::Enum { .. } => "enum",
        TypeKind::Array { .. } => "array",
        TypeKind::Class => "class",
        TypeKind::Abstract => "abstract class",
        TypeKind::Interface => "interface",
        TypeKind::Missing => "missing",
    }
}

fn needs_generator(k: &TypeKind) -> bool {
    matches!(
        k,
        TypeKind::Class | TypeKind::Abstract | TypeKind::Interface | TypeKind::Missing
    )
}

// ---------------------------------------------------------------------------------------------
// Building
// ---------------------------------------------------------------------------------------------

fn package_of(class: &str) -> &str {
    class.rsplit_once('/').map_or("", |(p, _)| p)
}

/// Where a class sits: top level, a member of another class, or local/anonymous.
#[derive(Debug, Clone)]
enum Nesting {
    TopLevel,
    Member { outer: String, is_static: bool },
    Local,
}

#[derive(Debug, Clone)]
struct Facts {
    /// Class flags, or the `InnerClasses` flags for a nested class.
    flags: u16,
    nesting: Nesting,
}

type Subst = BTreeMap<String, GenericType>;

fn signature_text(cf: &ClassFile, attrs: &[Attribute]) -> Option<String> {
    attrs.iter().find_map(|a| match a.body {
        AttributeBody::Signature(i) => cf
            .constant_pool
            .utf8(i)
            .ok()
            .map(std::borrow::Cow::into_owned),
        _ => None,
    })
}

struct Builder<'a> {
    cp: &'a ClassPath,
    config: &'a ClusterConfig,
    cut: String,
    package: String,
    hierarchy: Hierarchy<'a>,
    /// Classes of the user's (non-JDK) class-path entries.
    user: BTreeSet<String>,
    /// Direct subtypes among the user's classes, built on first use: of all of them, or of
    /// those in the CUT's package only (enough for JDK types).
    full_index: Option<HashMap<String, Vec<String>>>,
    package_index: Option<HashMap<String, Vec<String>>>,
    facts: HashMap<String, Option<Facts>>,
    class_sigs: HashMap<String, Option<ClassSignature>>,
    warnings: Vec<String>,
    warned: HashSet<String>,
    types: BTreeMap<String, TypeInfo>,
    queue: VecDeque<(FieldType, u32)>,
    queued: HashSet<String>,
    /// The CUT's static methods and fields with a reference result: factories for other types.
    cut_statics: Vec<Operation>,
    cut_params: Vec<TypeParameter>,
}

impl<'a> Builder<'a> {
    fn new(cp: &'a ClassPath, cut: &str, config: &'a ClusterConfig) -> Result<Self> {
        let mut user = BTreeSet::new();
        for e in cp.entries() {
            if matches!(e.kind(), "directory" | "jar") {
                user.extend(e.class_names()?);
            }
        }
        Ok(Builder {
            cp,
            config,
            cut: cut.replace('.', "/"),
            package: package_of(&cut.replace('.', "/")).to_string(),
            hierarchy: Hierarchy::new(cp),
            user,
            full_index: None,
            package_index: None,
            facts: HashMap::new(),
            class_sigs: HashMap::new(),
            warnings: Vec::new(),
            warned: HashSet::new(),
            types: BTreeMap::new(),
            queue: VecDeque::new(),
            queued: HashSet::new(),
            cut_statics: Vec::new(),
            cut_params: Vec::new(),
        })
    }

    fn warn(&mut self, w: String) {
        if self.warned.insert(w.clone()) {
            self.warnings.push(w);
        }
    }

    fn load(&mut self, class: &str) -> Option<Arc<ClassFile>> {
        match self.cp.load(class) {
            Ok(c) => Some(c),
            Err(ferrosuite_bytecode::Error::ClassNotFound(_)) => {
                self.warn(format!("{} is not on the class path", java_name(class)));
                None
            }
            Err(e) => {
                self.warn(format!("cannot read {}: {e}", java_name(class)));
                None
            }
        }
    }

    fn run(mut self) -> Result<TestCluster> {
        let cut = self.cut.clone();
        let cf = self.cp.load(&cut).map_err(|e| match e {
            ferrosuite_bytecode::Error::ClassNotFound(_) => Error::ClassNotFound(java_name(&cut)),
            e => Error::Bytecode(e),
        })?;
        let untestable = |why: &str| Error::Untestable {
            class: cut.replace('/', "."),
            why: why.into(),
        };
        if cf.is(access::MODULE) {
            return Err(untestable("it is a module descriptor"));
        }
        if cf.is(access::ANNOTATION) {
            return Err(untestable("it is an annotation type"));
        }
        match self.facts(&cut).map(|f| (f.flags, f.nesting)) {
            Some((_, Nesting::Local)) => {
                return Err(untestable("it is a local or anonymous class"));
            }
            Some((flags, Nesting::Member { .. })) if flags & access::PRIVATE != 0 => {
                return Err(untestable("it is a private nested class"));
            }
            _ => {}
        }
        self.cut_params = self
            .class_signature(&cut)
            .map(|s| s.type_params)
            .unwrap_or_default();

        let cut_params = self.cut_params.clone();
        let (constructors, methods, fields) = self.collect_members(&cut, &cf, &cut_params);
        self.cut_statics = methods
            .iter()
            .chain(&fields)
            .filter(|o| o.is_static && o.ret.as_ref().is_some_and(|r| r.ty.is_reference()))
            .cloned()
            .collect();

        self.enqueue(&FieldType::Object(cut.clone()), 0);
        for op in constructors.iter().chain(&methods) {
            for p in op.params.clone() {
                self.enqueue_use(&p, 1);
            }
        }
        for f in &fields {
            if !f.is_final_field() {
                if let Some(r) = f.ret.clone() {
                    self.enqueue_use(&r, 1);
                }
            }
        }
        // Calls on returned values need arguments too (one step further from the CUT).
        let result_methods = self.result_methods(methods.iter().chain(&fields));
        for op in result_methods.values().flatten() {
            for p in op.params.clone() {
                self.enqueue_use(&p, 2);
            }
        }
        let mut truncated = false;
        while let Some((ty, depth)) = self.queue.pop_front() {
            if self.types.len() >= self.config.max_types {
                truncated = true;
                break;
            }
            self.process(&ty, depth);
        }
        if truncated {
            self.warn(format!(
                "stopped at {} types (max_types); {} more were queued",
                self.config.max_types,
                self.queue.len() + 1
            ));
        }
        Ok(TestCluster {
            cut,
            type_params: self.cut_params,
            constructors,
            methods,
            fields,
            result_methods,
            types: self.types,
            erased_generic_fallback: self.config.erased_generic_fallback.clone(),
            warnings: self.warnings,
        })
    }

    // --- calls on returned values -------------------------------------------------------------

    /// The instance methods to call on values the CUT returns, by returned class: the returned
    /// types of `ops`, then the types those methods return, up to
    /// [`ClusterConfig::result_depth`] levels.
    fn result_methods<'o>(
        &mut self,
        ops: impl Iterator<Item = &'o Operation>,
    ) -> BTreeMap<String, Vec<Operation>> {
        let mut out: BTreeMap<String, Vec<Operation>> = BTreeMap::new();
        if self.config.result_depth == 0 {
            return out;
        }
        let mut level: BTreeSet<String> = ops.filter_map(|op| self.result_class(op)).collect();
        for _ in 0..self.config.result_depth {
            let mut next = BTreeSet::new();
            for class in level {
                if out.contains_key(&class) || out.len() >= self.config.max_result_types {
                    continue;
                }
                let Some(cf) = self.load(&class) else {
                    continue;
                };
                let params = self
                    .class_signature(&class)
                    .map(|s| s.type_params)
                    .unwrap_or_default();
                let (_, mut methods, _) = self.collect_members(&class, &cf, &params);
                methods.retain(|m| !m.is_static);
                methods.truncate(self.config.max_result_methods);
                next.extend(methods.iter().filter_map(|m| self.result_class(m)));
                out.insert(class, methods);
            }
            level = next;
        }
        out.retain(|_, m| !m.is_empty());
        out
    }

    /// The class of `op`'s result when calls on it are worth making: an accessible class
    /// other than the CUT, `Object`, `String` and the boxes, and not a reflective or
    /// thread type.
    fn result_class(&mut self, op: &Operation) -> Option<String> {
        let FieldType::Object(c) = &op.ret.as_ref()?.ty else {
            return None;
        };
        let skipped = *c == self.cut
            || c == OBJECT
            || c == STRING
            || BOXES.iter().any(|(b, _)| b == c)
            || matches!(
                c.as_str(),
                "java/lang/Class" | "java/lang/ClassLoader" | "java/lang/Thread"
            )
            || c.starts_with("java/lang/reflect/")
            || c.starts_with("java/lang/invoke/");
        (!skipped && self.class_accessible(c)).then(|| c.clone())
    }

    // --- class facts -------------------------------------------------------------------------

    fn facts(&mut self, class: &str) -> Option<Facts> {
        if let Some(f) = self.facts.get(class) {
            return f.clone();
        }
        let f = self.cp.load(class).ok().map(|cf| {
            let mut facts = Facts {
                flags: cf.access_flags,
                nesting: Nesting::TopLevel,
            };
            let cp = &cf.constant_pool;
            for a in &cf.attributes {
                let AttributeBody::InnerClasses(ics) = &a.body else {
                    continue;
                };
                for ic in ics {
                    if cp.class_name(ic.inner).is_ok_and(|n| n == class) {
                        facts.flags = ic.flags;
                        facts.nesting = if ic.outer.0 == 0 || ic.name.0 == 0 {
                            Nesting::Local
                        } else {
                            match cp.class_name(ic.outer) {
                                Ok(o) => Nesting::Member {
                                    outer: o.into_owned(),
                                    is_static: ic.flags & access::STATIC != 0,
                                },
                                Err(_) => Nesting::Local,
                            }
                        };
                    }
                }
            }
            facts
        });
        self.facts.insert(class.to_string(), f.clone());
        f
    }

    fn same_package(&self, class: &str) -> bool {
        self.config.package_private && package_of(class) == self.package
    }

    /// Whether tests in the CUT's package can name `class`.
    fn class_accessible(&mut self, class: &str) -> bool {
        let mut c = class.to_string();
        for _ in 0..16 {
            let Some(f) = self.facts(&c) else {
                return false;
            };
            if f.flags & access::PRIVATE != 0 {
                return false;
            }
            if f.flags & access::PUBLIC == 0 && !self.same_package(&c) {
                return false;
            }
            match f.nesting {
                Nesting::TopLevel => return true,
                Nesting::Local => return false,
                Nesting::Member { outer, .. } => c = outer,
            }
        }
        false
    }

    fn member_accessible(&self, flags: u16, declared_in: &str) -> bool {
        flags & access::PRIVATE == 0
            && (flags & access::PUBLIC != 0 || self.same_package(declared_in))
    }

    fn is_inner_instance_class(&mut self, class: &str) -> bool {
        matches!(
            self.facts(class).map(|f| f.nesting),
            Some(Nesting::Member {
                is_static: false,
                ..
            })
        )
    }

    // --- generics ----------------------------------------------------------------------------

    fn class_signature(&mut self, class: &str) -> Option<ClassSignature> {
        if let Some(s) = self.class_sigs.get(class) {
            return s.clone();
        }
        let sig = self.cp.load(class).ok().and_then(|cf| {
            let text = signature_text(&cf, &cf.attributes)?;
            match ClassSignature::parse(&text) {
                Ok(s) => Some(s),
                Err(e) => {
                    self.warn(e.at(class, "class", &text).to_string());
                    None
                }
            }
        });
        self.class_sigs.insert(class.to_string(), sig.clone());
        sig
    }

    /// Type parameters in scope inside `class` besides its own: those of enclosing classes
    /// of a non-static member class.
    fn outer_params(&mut self, class: &str) -> Vec<TypeParameter> {
        let mut out = Vec::new();
        let mut c = class.to_string();
        for _ in 0..16 {
            match self.facts(&c).map(|f| f.nesting) {
                Some(Nesting::Member {
                    outer,
                    is_static: false,
                }) => {
                    if let Some(s) = self.class_signature(&outer) {
                        out.extend(s.type_params);
                    }
                    c = outer;
                }
                _ => break,
            }
        }
        out
    }

    fn fallback(&self) -> FieldType {
        self.config
            .erased_generic_fallback
            .first()
            .cloned()
            .unwrap_or_else(|| FieldType::Object(OBJECT.into()))
    }

    /// The erased type a generic type stands for: type variables resolve to their bound, an
    /// unbounded one to the fallback (flag set).
    fn resolve(&self, t: &GenericType, scope: &[TypeParameter], depth: u32) -> (FieldType, bool) {
        match t {
            GenericType::Primitive(p) => (p.clone(), false),
            GenericType::Class(c) => (FieldType::Object(c.erasure()), false),
            GenericType::Array(c) => {
                let (e, fb) = self.resolve(c, scope, depth + 1);
                (FieldType::Array(Box::new(e)), fb)
            }
            GenericType::Variable(v) => {
                let bound = if depth > 8 {
                    None
                } else {
                    scope
                        .iter()
                        .find(|p| p.name == *v)
                        .and_then(TypeParameter::bound)
                };
                match bound.map(|b| self.resolve(b, scope, depth + 1)) {
                    Some((FieldType::Object(n), _)) if n == OBJECT => (self.fallback(), true),
                    Some(r) => r,
                    None => (self.fallback(), true),
                }
            }
        }
    }

    fn type_use(
        &self,
        ty: FieldType,
        generic: Option<GenericType>,
        scope: &[TypeParameter],
    ) -> TypeUse {
        let Some(g) = generic else {
            return TypeUse::plain(ty);
        };
        let mut base = &g;
        while let GenericType::Array(c) = base {
            base = c;
        }
        let (type_args, erased_generic) = match base {
            GenericType::Class(c) => (
                c.last_args()
                    .iter()
                    .map(|a| match a.ty().map(|t| self.resolve(t, scope, 0).0) {
                        Some(FieldType::Object(n)) if n == OBJECT => self.fallback(),
                        Some(t) => t,
                        None => self.fallback(),
                    })
                    .collect(),
                false,
            ),
            GenericType::Variable(_) => (Vec::new(), self.resolve(base, scope, 0).1),
            _ => (Vec::new(), false),
        };
        TypeUse {
            ty,
            generic: Some(g),
            type_args,
            erased_generic,
        }
    }

    // --- operations --------------------------------------------------------------------------

    /// An operation for method `m` of `cf` (declared in `declared_in`, named through `class`),
    /// with `subst` applied to its generic types and `scope` the enclosing type parameters.
    #[allow(clippy::too_many_arguments)]
    fn method_op(
        &mut self,
        cf: &ClassFile,
        declared_in: &str,
        class: &str,
        m: &Member,
        name: &str,
        desc: &str,
        subst: &Subst,
        scope: &[TypeParameter],
    ) -> Option<Operation> {
        let is_ctor = name == "<init>";
        let md = match MethodDescriptor::parse(desc) {
            Ok(d) => d,
            Err(e) => {
                self.warn(format!("{}.{name}: {e}", java_name(declared_in)));
                return None;
            }
        };
        let member = format!("method {name}{desc}");
        let mut sig = None;
        if let Some(text) = signature_text(cf, &m.attributes) {
            match MethodSignature::parse(&text) {
                Ok(s) => sig = Some(s),
                Err(e) => self.warn(e.at(declared_in, &member, &text).to_string()),
            }
        }
        let mut type_params = Vec::new();
        let mut gparams: Vec<Option<GenericType>> = vec![None; md.params.len()];
        let mut gret = None;
        if let Some(s) = sig {
            // The method's own type parameters hide the class's.
            let mut sub = subst.clone();
            for tp in &s.type_params {
                sub.remove(&tp.name);
            }
            // javac leaves synthetic and mandated leading parameters (the enclosing instance,
            // an enum's name and ordinal) out of constructor signatures.
            let aligned =
                s.params.len() == md.params.len() || (is_ctor && s.params.len() < md.params.len());
            let skip = md.params.len().saturating_sub(s.params.len());
            let consistent = aligned
                && s.params
                    .iter()
                    .zip(&md.params[skip..])
                    .all(|(g, e)| g.matches_erasure(e))
                && match (&s.ret, &md.ret) {
                    (Some(g), Some(e)) => g.matches_erasure(e),
                    (None, None) => true,
                    _ => false,
                };
            if consistent {
                let params: Vec<GenericType> =
                    s.params.iter().map(|p| p.substitute(&sub)).collect();
                let ret = s.ret.as_ref().map(|r| r.substitute(&sub));
                for (i, p) in params.into_iter().enumerate() {
                    gparams[skip + i] = Some(p);
                }
                gret = ret;
                type_params = s
                    .type_params
                    .iter()
                    .map(|tp| TypeParameter {
                        name: tp.name.clone(),
                        class_bound: tp.class_bound.as_ref().map(|b| b.substitute(&sub)),
                        interface_bounds: tp
                            .interface_bounds
                            .iter()
                            .map(|b| b.substitute(&sub))
                            .collect(),
                    })
                    .collect();
            } else {
                self.warn(format!(
                    "generic signature {s} of {member} in {} does not match the descriptor; using the descriptor",
                    java_name(declared_in)
                ));
            }
        }
        let full_scope: Vec<TypeParameter> = type_params.iter().chain(scope).cloned().collect();
        let params = md
            .params
            .into_iter()
            .zip(gparams)
            .map(|(e, g)| self.type_use(e, g, &full_scope))
            .collect();
        let ret = if is_ctor {
            Some(TypeUse::plain(FieldType::Object(class.to_string())))
        } else {
            md.ret.map(|e| self.type_use(e, gret, &full_scope))
        };
        Some(Operation {
            kind: if is_ctor {
                OperationKind::Constructor
            } else {
                OperationKind::Method
            },
            class: class.into(),
            declared_in: declared_in.to_string(),
            name: name.into(),
            descriptor: desc.into(),
            access: m.access_flags,
            is_static: m.is(access::STATIC),
            params,
            ret,
            type_params,
        })
    }

    #[allow(clippy::too_many_arguments)]
    fn field_op(
        &mut self,
        cf: &ClassFile,
        declared_in: &str,
        class: &str,
        m: &Member,
        name: &str,
        desc: &str,
        subst: &Subst,
        scope: &[TypeParameter],
    ) -> Option<Operation> {
        let ty = match FieldType::parse(desc) {
            Ok(t) => t,
            Err(e) => {
                self.warn(format!("{}.{name}: {e}", java_name(declared_in)));
                return None;
            }
        };
        let mut generic = None;
        if let Some(text) = signature_text(cf, &m.attributes) {
            let member = format!("field {name}");
            match GenericType::parse(&text) {
                Ok(g) if g.matches_erasure(&ty) => generic = Some(g.substitute(subst)),
                Ok(g) => self.warn(format!(
                    "generic signature {g} of {member} in {} does not match the descriptor; using the descriptor",
                    java_name(declared_in)
                )),
                Err(e) => self.warn(e.at(declared_in, &member, &text).to_string()),
            }
        }
        let is_enum_constant = m.is(access::ENUM);
        Some(Operation {
            kind: if is_enum_constant {
                OperationKind::EnumConstant
            } else {
                OperationKind::Field
            },
            class: class.into(),
            declared_in: declared_in.to_string(),
            name: name.into(),
            descriptor: desc.into(),
            access: m.access_flags,
            is_static: m.is(access::STATIC),
            params: Vec::new(),
            ret: Some(self.type_use(ty, generic, scope)),
            type_params: Vec::new(),
        })
    }

    // --- the CUT's members -------------------------------------------------------------------

    /// The substitution for the type parameters of supertype `sup` as `class` (whose own
    /// variables are substituted by `subst`) extends or implements it.
    fn super_subst(
        &mut self,
        class_sig: Option<&ClassSignature>,
        sup: &str,
        subst: &Subst,
    ) -> Subst {
        let Some(sig) = class_sig else {
            return Subst::new();
        };
        let Some(GenericType::Class(ct)) = std::iter::once(&sig.superclass)
            .chain(&sig.interfaces)
            .find(|g| g.class_name().as_deref() == Some(sup))
        else {
            return Subst::new();
        };
        let args = ct.last_args().to_vec();
        if args.is_empty() {
            return Subst::new();
        }
        let Some(sup_sig) = self.class_signature(sup) else {
            return Subst::new();
        };
        if sup_sig.type_params.len() != args.len() {
            return Subst::new();
        }
        sup_sig
            .type_params
            .iter()
            .zip(args)
            .filter_map(|(p, a)| a.ty().map(|t| (p.name.clone(), t.substitute(subst))))
            .collect()
    }

    /// The accessible members of `cut` (the CUT, or a type whose methods are called on
    /// returned values), declared and inherited; `root_params` are the type parameters of
    /// `cut` itself, in scope in its supertypes' substituted signatures.
    fn collect_members(
        &mut self,
        cut: &str,
        cut_cf: &ClassFile,
        root_params: &[TypeParameter],
    ) -> (Vec<Operation>, Vec<Operation>, Vec<Operation>) {
        let cut = cut.to_string();
        let cut_abstract = cut_cf.is(access::ABSTRACT) || cut_cf.is(access::INTERFACE);
        let cut_inner = self.is_inner_instance_class(&cut);
        let mut constructors = Vec::new();
        let mut methods = Vec::new();
        let mut fields = Vec::new();
        let mut seen_methods: HashSet<(String, String)> = HashSet::new();
        let mut seen_fields: HashSet<String> = HashSet::new();
        let mut visited: HashSet<String> = HashSet::new();

        // The superclass chain first, then superinterfaces breadth-first.
        let mut chain: Vec<(String, Subst)> = Vec::new();
        let mut ifaces: VecDeque<(String, Subst)> = VecDeque::new();
        let mut next = Some((cut.clone(), Subst::new()));
        while let Some((c, s)) = next.take() {
            if !visited.insert(c.clone()) {
                break;
            }
            let Some(cf) = self.load(&c) else { break };
            let sig = self.class_signature(&c);
            if let Ok(Some(sup)) = cf.super_name() {
                let sub = self.super_subst(sig.as_ref(), &sup, &s);
                next = Some((sup.into_owned(), sub));
            }
            for i in cf.interface_names().unwrap_or_default() {
                let sub = self.super_subst(sig.as_ref(), &i, &s);
                ifaces.push_back((i.into_owned(), sub));
            }
            chain.push((c, s));
        }
        let mut order = chain;
        while let Some((i, s)) = ifaces.pop_front() {
            if !visited.insert(i.clone()) {
                continue;
            }
            if let Some(cf) = self.load(&i) {
                let sig = self.class_signature(&i);
                for j in cf.interface_names().unwrap_or_default() {
                    let sub = self.super_subst(sig.as_ref(), &j, &s);
                    ifaces.push_back((j.into_owned(), sub));
                }
            }
            order.push((i, s));
        }

        for (d, subst) in order {
            let is_cut = d == cut;
            if d == OBJECT && !is_cut && !self.config.object_methods {
                continue;
            }
            let Some(cf) = self.load(&d) else { continue };
            let is_iface = cf.is(access::INTERFACE);
            let own: Vec<TypeParameter> = self
                .class_signature(&d)
                .map(|s| s.type_params)
                .unwrap_or_default()
                .into_iter()
                .filter(|p| !subst.contains_key(&p.name))
                .collect();
            let mut scope = own;
            scope.extend(self.outer_params(&d));
            if !is_cut {
                scope.extend(root_params.iter().cloned());
            }
            for m in &cf.methods {
                let (Ok(name), Ok(desc)) = (cf.member_name(m), cf.member_descriptor(m)) else {
                    continue;
                };
                if m.is(access::SYNTHETIC)
                    || m.is(access::BRIDGE)
                    || name == "<clinit>"
                    || name.starts_with("lambda$")
                    || name.starts_with("access$")
                {
                    continue;
                }
                if name == "<init>" {
                    if !is_cut || cut_abstract {
                        continue;
                    }
                    if cut_inner {
                        if cut != self.cut {
                            continue;
                        }
                        self.warn(format!(
                            "constructors of {} need an enclosing instance and are left out",
                            java_name(&cut)
                        ));
                        continue;
                    }
                    if self.member_accessible(m.access_flags, &d) {
                        if let Some(op) =
                            self.method_op(&cf, &d, &cut, m, &name, &desc, &subst, &scope)
                        {
                            constructors.push(op);
                        }
                    }
                    continue;
                }
                if m.is(access::STATIC) && is_iface && !is_cut {
                    continue; // interface static methods are not inherited
                }
                if !seen_methods.insert((name.to_string(), desc.to_string())) {
                    continue; // redefined below
                }
                if d == OBJECT && !is_cut && !matches!(&*name, "equals" | "hashCode" | "toString") {
                    continue;
                }
                if is_iface
                    && !is_cut
                    && !self.config.object_methods
                    && is_object_method(&name, &desc)
                {
                    continue; // an interface restating `Object.equals` and the like
                }
                if !self.member_accessible(m.access_flags, &d) {
                    continue;
                }
                if let Some(op) = self.method_op(&cf, &d, &cut, m, &name, &desc, &subst, &scope) {
                    methods.push(op);
                }
            }
            for f in &cf.fields {
                let (Ok(name), Ok(desc)) = (cf.member_name(f), cf.member_descriptor(f)) else {
                    continue;
                };
                if f.is(access::SYNTHETIC) || !seen_fields.insert(name.to_string()) {
                    continue;
                }
                if !self.member_accessible(f.access_flags, &d) {
                    continue;
                }
                if let Some(op) = self.field_op(&cf, &d, &cut, f, &name, &desc, &subst, &scope) {
                    fields.push(op);
                }
            }
        }
        for v in [&mut constructors, &mut methods, &mut fields] {
            v.sort_by(|a, b| {
                (!a.is_static, &a.name, &a.descriptor, &a.declared_in).cmp(&(
                    !b.is_static,
                    &b.name,
                    &b.descriptor,
                    &b.declared_in,
                ))
            });
        }
        (constructors, methods, fields)
    }

    // --- needed types ------------------------------------------------------------------------

    fn enqueue(&mut self, ty: &FieldType, depth: u32) {
        if depth > self.config.max_depth {
            return;
        }
        let key = ty.descriptor();
        if self.queued.insert(key) {
            self.queue.push_back((ty.clone(), depth));
        }
    }

    fn enqueue_use(&mut self, u: &TypeUse, depth: u32) {
        self.enqueue(&u.ty, depth);
        for a in &u.type_args {
            self.enqueue(a, depth);
        }
        if u.erased_generic {
            for f in self.config.erased_generic_fallback.clone() {
                self.enqueue(&f, depth);
            }
        }
    }

    fn process(&mut self, ty: &FieldType, depth: u32) {
        let mut info = TypeInfo {
            ty: ty.clone(),
            kind: TypeKind::Primitive,
            accessible: true,
            depth,
            generators: Vec::new(),
            subtypes: Vec::new(),
        };
        match ty {
            FieldType::Array(c) => {
                info.kind = TypeKind::Array {
                    component: (**c).clone(),
                };
                self.enqueue(c, depth);
            }
            FieldType::Object(n) if n == STRING => info.kind = TypeKind::String,
            FieldType::Object(n) => {
                if let Some((_, p)) = BOXES.iter().find(|(b, _)| b == n) {
                    info.kind = TypeKind::Boxed {
                        primitive: p.clone(),
                    };
                    info.generators.push(value_of(n, p));
                } else {
                    self.class_type(&mut info, n);
                }
            }
            _ => {}
        }
        if depth < self.config.max_depth {
            for g in info.generators.clone() {
                for p in &g.params {
                    self.enqueue_use(p, depth + 1);
                }
            }
        }
        for s in info.subtypes.clone() {
            self.enqueue(&FieldType::Object(s), depth);
        }
        self.types.insert(ty.descriptor(), info);
    }

    fn assignable(&self, from: &FieldType, to: &str) -> bool {
        match from {
            FieldType::Object(f) => f == to || self.hierarchy.is_subtype(f, to).unwrap_or(false),
            _ => false,
        }
    }

    fn class_type(&mut self, info: &mut TypeInfo, name: &str) {
        let Some(cf) = self.load(name) else {
            info.kind = TypeKind::Missing;
            info.accessible = false;
            return;
        };
        info.accessible = self.class_accessible(name);
        let is_enum = cf.is(access::ENUM)
            && cf.super_name().ok().flatten().as_deref() == Some("java/lang/Enum");
        let is_iface = cf.is(access::INTERFACE);
        let is_abstract = cf.is(access::ABSTRACT);
        info.kind = if is_enum {
            TypeKind::Enum {
                constants: Vec::new(),
            }
        } else if is_iface {
            TypeKind::Interface
        } else if is_abstract {
            TypeKind::Abstract
        } else {
            TypeKind::Class
        };
        let mut scope = self
            .class_signature(name)
            .map(|s| s.type_params)
            .unwrap_or_default();
        scope.extend(self.outer_params(name));
        let no_subst = Subst::new();
        let mut ctors = Vec::new();
        let mut statics = Vec::new();
        let mut fields = Vec::new();
        let mut constants = Vec::new();
        if info.accessible {
            let usable_ctors =
                !is_iface && !is_abstract && !is_enum && !self.is_inner_instance_class(name);
            for m in &cf.methods {
                let (Ok(mname), Ok(desc)) = (cf.member_name(m), cf.member_descriptor(m)) else {
                    continue;
                };
                if m.is(access::SYNTHETIC)
                    || m.is(access::BRIDGE)
                    || !self.member_accessible(m.access_flags, name)
                {
                    continue;
                }
                if mname == "<init>" {
                    if usable_ctors {
                        if let Some(op) =
                            self.method_op(&cf, name, name, m, &mname, &desc, &no_subst, &scope)
                        {
                            ctors.push(op);
                        }
                    }
                } else if m.is(access::STATIC) && !is_enum && name != OBJECT && mname != "<clinit>"
                {
                    let returns_t = MethodDescriptor::parse(&desc)
                        .ok()
                        .and_then(|d| d.ret)
                        .is_some_and(|r| self.assignable(&r, name));
                    if returns_t {
                        if let Some(op) =
                            self.method_op(&cf, name, name, m, &mname, &desc, &no_subst, &scope)
                        {
                            statics.push(op);
                        }
                    }
                }
            }
            for f in &cf.fields {
                let (Ok(fname), Ok(desc)) = (cf.member_name(f), cf.member_descriptor(f)) else {
                    continue;
                };
                if !f.is(access::STATIC)
                    || f.is(access::SYNTHETIC)
                    || !self.member_accessible(f.access_flags, name)
                {
                    continue;
                }
                if is_enum {
                    if f.is(access::ENUM) {
                        constants.push(fname.to_string());
                        if let Some(op) =
                            self.field_op(&cf, name, name, f, &fname, &desc, &no_subst, &scope)
                        {
                            fields.push(op);
                        }
                    }
                } else if name != OBJECT
                    && FieldType::parse(&desc).is_ok_and(|t| self.assignable(&t, name))
                {
                    if let Some(op) =
                        self.field_op(&cf, name, name, f, &fname, &desc, &no_subst, &scope)
                    {
                        fields.push(op);
                    }
                }
            }
        }
        // The CUT's static factories and fields giving this type.
        if name != OBJECT && name != self.cut {
            for op in self.cut_statics.clone() {
                if op
                    .ret
                    .as_ref()
                    .is_some_and(|r| self.assignable(&r.ty, name))
                {
                    match op.kind {
                        OperationKind::Method => statics.push(op),
                        _ => fields.push(op),
                    }
                }
            }
        }
        if let TypeKind::Enum { constants: c } = &mut info.kind {
            *c = constants;
        } else {
            fields.sort_by(|a, b| a.sort_key().cmp(&b.sort_key()));
        }
        ctors.sort_by(|a, b| a.sort_key().cmp(&b.sort_key()));
        statics.sort_by(|a, b| a.sort_key().cmp(&b.sort_key()));
        statics.dedup_by(|a, b| a.sort_key() == b.sort_key());
        info.generators = ctors.into_iter().chain(statics).chain(fields).collect();
        if is_iface || is_abstract || !jdk_default_subtypes(name).is_empty() {
            info.subtypes = self.subtypes(name);
        }
    }

    // --- subtypes ----------------------------------------------------------------------------

    /// Direct subtypes among the user's classes (`full`), or among those of the CUT's package
    /// (reading a few class headers instead of a whole jar's).
    fn user_index(&mut self, full: bool) -> &HashMap<String, Vec<String>> {
        let build = |only_package: bool| {
            let mut idx: HashMap<String, Vec<String>> = HashMap::new();
            for name in &self.user {
                if only_package && package_of(name) != self.package {
                    continue;
                }
                let Ok(h) = self.cp.header(name) else {
                    continue;
                };
                for s in h.super_name.iter().chain(&h.interfaces) {
                    idx.entry(s.clone()).or_default().push(name.clone());
                }
            }
            idx
        };
        if full || self.full_index.is_some() {
            if self.full_index.is_none() {
                self.full_index = Some(build(false));
            }
            return self.full_index.get_or_insert_with(HashMap::new);
        }
        if self.package_index.is_none() {
            self.package_index = Some(build(true));
        }
        self.package_index.get_or_insert_with(HashMap::new)
    }

    /// Whether `class` can stand in for an abstract type: concrete, accessible, and neither a
    /// local, anonymous nor non-static inner class.
    fn usable_subtype(&mut self, class: &str) -> bool {
        let Ok(h) = self.cp.header(class) else {
            return false;
        };
        if h.access_flags & (access::ABSTRACT | access::INTERFACE) != 0 {
            return false;
        }
        match self.facts(class).map(|f| f.nesting) {
            Some(
                Nesting::TopLevel
                | Nesting::Member {
                    is_static: true, ..
                },
            ) => {}
            _ => return false,
        }
        self.class_accessible(class)
    }

    fn subtypes(&mut self, class: &str) -> Vec<String> {
        let mut out: Vec<String> = jdk_default_subtypes(class)
            .iter()
            .map(|s| (*s).to_string())
            .collect();
        if class == OBJECT {
            return out;
        }
        let jdk = !self.user.contains(class);
        let mut all = BTreeSet::new();
        let mut stack = vec![class.to_string()];
        while let Some(c) = stack.pop() {
            for s in self.user_index(!jdk).get(&c).cloned().unwrap_or_default() {
                if all.insert(s.clone()) {
                    stack.push(s);
                }
            }
        }
        let (mut near, mut far): (Vec<String>, Vec<String>) =
            all.into_iter().partition(|s| package_of(s) == self.package);
        if jdk {
            far.clear(); // for JDK types only the CUT's own package is worth a look
        }
        near.append(&mut far);
        let mut taken = 0;
        for s in near {
            if taken >= self.config.max_subtypes {
                break;
            }
            if !out.contains(&s) && self.usable_subtype(&s) {
                out.push(s);
                taken += 1;
            }
        }
        out
    }
}

/// Whether `name desc` is one of the public methods of `Object` an interface may restate.
fn is_object_method(name: &str, desc: &str) -> bool {
    matches!(
        (name, desc),
        ("equals", "(Ljava/lang/Object;)Z")
            | ("hashCode", "()I")
            | ("toString", "()Ljava/lang/String;")
    )
}

/// `Box.valueOf(primitive)`.
fn value_of(boxed: &str, p: &FieldType) -> Operation {
    let ret = FieldType::Object(boxed.to_string());
    Operation {
        kind: OperationKind::Method,
        class: boxed.into(),
        declared_in: boxed.to_string(),
        name: "valueOf".into(),
        descriptor: format!("({p}){ret}").into(),
        access: access::PUBLIC | access::STATIC,
        is_static: true,
        params: vec![TypeUse::plain(p.clone())],
        ret: Some(TypeUse::plain(ret)),
        type_params: Vec::new(),
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::panic)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn class(name: &str, args: Vec<TypeArg>) -> GenericType {
        GenericType::Class(ClassType {
            name: name.into(),
            args,
            inner: Vec::new(),
        })
    }

    #[test]
    fn parses_the_jvms_forms() {
        let m = MethodSignature::parse(
            "<T:Ljava/lang/Object;E:Ljava/lang/Exception;>(Ljava/util/List<Ljava/lang/String;>;[TT;I)Ljava/util/Map<*+TT;>;^TE;^Ljava/io/IOException;",
        )
        .unwrap();
        assert_eq!(m.type_params.len(), 2);
        assert_eq!(
            m.params[0],
            class(
                "java/util/List",
                vec![TypeArg::Exact(class(STRING, vec![]))]
            )
        );
        assert_eq!(
            m.params[1],
            GenericType::Array(Box::new(GenericType::Variable("T".into())))
        );
        assert_eq!(m.params[2], GenericType::Primitive(FieldType::Int));
        assert_eq!(m.throws.len(), 2);
        assert_eq!(m.ret.unwrap().java(), "java.util.Map<?, ? extends T>");

        let c = ClassSignature::parse(
            "<E::Ljava/lang/Comparable<-TE;>;>Ljava/util/AbstractList<TE;>;Ljava/util/List<TE;>;",
        )
        .unwrap();
        assert_eq!(c.type_params[0].class_bound, None);
        assert_eq!(
            c.type_params[0].java(),
            "E extends java.lang.Comparable<? super E>"
        );
        assert_eq!(c.interfaces.len(), 1);

        let inner = GenericType::parse("Lp/Outer<TK;>.Inner<Ljava/lang/String;>.Deep;").unwrap();
        let GenericType::Class(ct) = &inner else {
            panic!()
        };
        assert_eq!(ct.erasure(), "p/Outer$Inner$Deep");
        assert!(ct.last_args().is_empty());
        assert_eq!(inner.java(), "p.Outer<K>.Inner<java.lang.String>.Deep");
        assert!(inner.matches_erasure(&FieldType::Object("p/Outer$Inner$Deep".into())));
    }

    #[test]
    fn rejects_malformed_signatures_with_a_position() {
        for bad in [
            "",
            "L;",
            "Ljava/util/List<>;",
            "Ljava/util/List<Ljava/lang/String;",
            "TT",
            "[",
            "Q",
            "Ljava//List;",
            "Lx;Ly;",
            "<>()V",
            "<T>()V",
            "(I",
            "()",
            "()VV",
            "()V^I",
            "Lx<I>;",
            "Lx.;",
        ] {
            let r = GenericType::parse(bad)
                .map(|_| ())
                .or_else(|_| MethodSignature::parse(bad).map(|_| ()));
            assert!(r.is_err(), "{bad:?} parsed");
        }
        let e = MethodSignature::parse("(Ljava/util/List<Q>;)V").unwrap_err();
        assert_eq!(e.position, 17, "{e}");
        let err = e
            .at(
                "p/C",
                "method m(Ljava/util/List;)V",
                "(Ljava/util/List<Q>;)V",
            )
            .to_string();
        assert!(err.contains("p/C") && err.contains("method m"), "{err}");
        assert!(ClassSignature::parse("<T:>Ljava/lang/Object;").is_ok());
        assert!(ClassSignature::parse("TT;").is_err());
        let deep = format!("{}I", "[".repeat(10_000));
        assert!(GenericType::parse(&deep).is_err());
        let deep = format!("{}Lx;{}", "Lx<".repeat(5_000), ">;".repeat(5_000));
        assert!(GenericType::parse(&deep).is_err());
    }

    #[test]
    fn substitution_and_erasure_checks() {
        let mut map = Subst::new();
        map.insert("T".into(), class(STRING, vec![]));
        let t = GenericType::parse("Ljava/util/List<+TT;>;").unwrap();
        assert_eq!(
            t.substitute(&map).java(),
            "java.util.List<? extends java.lang.String>"
        );
        assert!(!t.matches_erasure(&FieldType::Object("java/util/Set".into())));
        let arr = GenericType::parse("[[TT;").unwrap();
        assert!(arr.matches_erasure(&FieldType::parse("[[Ljava/lang/Number;").unwrap()));
        assert!(!arr.matches_erasure(&FieldType::parse("[Ljava/lang/Number;").unwrap()));
    }

    fn ident() -> impl Strategy<Value = String> {
        "[A-Za-z_$][A-Za-z0-9_$\u{e9}]{0,4}"
    }

    fn class_name() -> impl Strategy<Value = String> {
        prop::collection::vec(ident(), 1..4).prop_map(|v| v.join("/"))
    }

    fn prim() -> impl Strategy<Value = FieldType> {
        prop_oneof![
            Just(FieldType::Byte),
            Just(FieldType::Char),
            Just(FieldType::Double),
            Just(FieldType::Float),
            Just(FieldType::Int),
            Just(FieldType::Long),
            Just(FieldType::Short),
            Just(FieldType::Boolean),
        ]
    }

    fn ref_type() -> impl Strategy<Value = GenericType> {
        let leaf = prop_oneof![
            ident().prop_map(GenericType::Variable),
            class_name().prop_map(|n| class(&n, vec![])),
            prim().prop_map(|p| GenericType::Array(Box::new(GenericType::Primitive(p)))),
        ];
        leaf.prop_recursive(4, 40, 4, |inner| {
            let arg = prop_oneof![
                Just(TypeArg::Any),
                inner.clone().prop_map(TypeArg::Exact),
                inner.clone().prop_map(TypeArg::Extends),
                inner.clone().prop_map(TypeArg::Super),
            ];
            prop_oneof![
                (
                    class_name(),
                    prop::collection::vec(arg.clone(), 0..3),
                    prop::collection::vec((ident(), prop::collection::vec(arg, 0..2)), 0..2),
                )
                    .prop_map(|(name, args, inner)| GenericType::Class(
                        ClassType {
                            name,
                            args,
                            inner: inner
                                .into_iter()
                                .map(|(name, args)| InnerClassType { name, args })
                                .collect(),
                        }
                    )),
                inner.prop_map(|t| GenericType::Array(Box::new(t))),
            ]
        })
    }

    fn class_type() -> impl Strategy<Value = GenericType> {
        ref_type().prop_map(|t| match t {
            GenericType::Class(_) => t,
            _ => class(OBJECT, vec![TypeArg::Exact(t)]),
        })
    }

    fn java_type() -> impl Strategy<Value = GenericType> {
        prop_oneof![prim().prop_map(GenericType::Primitive), ref_type()]
    }

    fn type_param() -> impl Strategy<Value = TypeParameter> {
        (
            ident(),
            prop::option::of(ref_type()),
            prop::collection::vec(ref_type(), 0..3),
        )
            .prop_map(|(name, class_bound, mut interface_bounds)| {
                // javac always writes a bound; without one the grammar is ambiguous.
                if class_bound.is_none() && interface_bounds.is_empty() {
                    interface_bounds.push(class(OBJECT, vec![]));
                }
                TypeParameter {
                    name,
                    class_bound,
                    interface_bounds,
                }
            })
    }

    proptest! {
        #[test]
        fn parsing_never_panics(s in "\\PC{0,60}") {
            let _ = GenericType::parse(&s);
            let _ = MethodSignature::parse(&s);
            let _ = ClassSignature::parse(&s);
        }

        #[test]
        fn parsing_never_panics_on_signature_alphabet(s in "[LT;<>*+\\-\\[\\]:/.()^VIZa-c]{0,60}") {
            let _ = GenericType::parse(&s);
            let _ = MethodSignature::parse(&s);
            let _ = ClassSignature::parse(&s);
        }

        #[test]
        fn display_then_parse_round_trips(
            t in java_type(),
            tps in prop::collection::vec(type_param(), 0..3),
            params in prop::collection::vec(java_type(), 0..4),
            ret in prop::option::of(java_type()),
            throws in prop::collection::vec(prop_oneof![class_type(), ident().prop_map(GenericType::Variable)], 0..2),
            sup in class_type(),
            ifaces in prop::collection::vec(class_type(), 0..3),
        ) {
            prop_assert_eq!(GenericType::parse(&t.to_string()).unwrap(), t);
            let m = MethodSignature { type_params: tps.clone(), params, ret, throws };
            prop_assert_eq!(MethodSignature::parse(&m.to_string()).unwrap(), m);
            let c = ClassSignature { type_params: tps, superclass: sup, interfaces: ifaces };
            prop_assert_eq!(ClassSignature::parse(&c.to_string()).unwrap(), c);
        }
    }
}
