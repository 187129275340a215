//! Generic signatures (JVMS 4.7.9.1): their types, parser, substitution and Java text.

use std::collections::BTreeMap;
use std::fmt;

use ferrosuite_bytecode::descriptor::FieldType;
use serde::{Deserialize, Serialize};

use super::OBJECT;
use crate::error::Error;
use crate::statement::{java_name, java_type};

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
