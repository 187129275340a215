//! The test cluster (whole-suite paper, Section III-B): what the search may put in a
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
//!   → `Object`, `String`, `Integer`; …), and the static factories other JDK classes declare
//!   for them of [`JDK_FACTORIES`] (`Paths.get` for `Path`). Enums list their constants; boxed types (`Integer`,
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
//!
//! [`Error::BadSignature`]: crate::Error::BadSignature

mod builder;
pub mod environment;
mod signature;
#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::panic)]
mod tests;

use std::collections::BTreeMap;
use std::fmt;

use ferrosuite_bytecode::access;
use ferrosuite_bytecode::classpath::ClassPath;
use ferrosuite_bytecode::descriptor::FieldType;
use serde::{Deserialize, Serialize};

use crate::error::Result;
use crate::statement::{Name, Statement, VarRef, java_name, java_type};

pub use builder::{JDK_DEFAULT_SUBTYPES, JDK_FACTORIES, jdk_default_subtypes};
pub use signature::{
    ClassSignature, ClassType, GenericType, InnerClassType, MethodSignature, SignatureError,
    TypeArg, TypeParameter,
};

use builder::Builder;

const OBJECT: &str = "java/lang/Object";
const STRING: &str = "java/lang/String";

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
    /// Whether the static methods and fields of other classes of the CUT's package that the
    /// CUT's code reads, giving a reference, join its members (shared state a test can then
    /// set up; see `builder/statics.rs`). Off by default; class-integration runs turn it on.
    pub package_statics: bool,
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
            package_statics: false,
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

fn public_by_default() -> bool {
    true
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
    /// Whether the class is public, and so are the classes it is nested in (else it is part
    /// of the library's internals, a last resort for tests: see the search's archive).
    #[serde(default = "public_by_default")]
    pub public: bool,
    /// Whether the class is `final` (no subclass, so no subclass mock either).
    #[serde(default)]
    pub is_final: bool,
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
    /// Interfaces and abstract classes that are strict subtypes of the type and that the CUT's
    /// code tests for with `instanceof` or `checkcast` (its cast classes): values of them are
    /// mocks, by name.
    #[serde(default)]
    pub cast_subtypes: Vec<String>,
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
    /// The CUT's own private methods and private non-final instance fields, static first,
    /// then by name and descriptor: what tests reach by reflection (PAFM III-A) when nothing
    /// accessible does. Not part of [`members`](Self::members).
    #[serde(default)]
    pub private_members: Vec<Operation>,
    /// Instance methods to call on values of other classes that the CUT's methods and fields
    /// return (and, one level down, that those methods return), by internal class name: the
    /// `Iterable` that `Splitter.split` returns gets `iterator()`, the `Iterator` gets
    /// `hasNext()` and `next()`, whose code is often the CUT's own (nested) code. Also the
    /// `void` and self-returning instance methods of the library's (non-JDK) classes the CUT's
    /// constructors and methods take, up to eight classes: what configures an argument before
    /// the CUT reads it (`options.addOption(…)` before `formatter.printHelp("app", options)`).
    pub result_methods: BTreeMap<String, Vec<Operation>>,
    /// Every type needed, by descriptor (the CUT included).
    pub types: BTreeMap<String, TypeInfo>,
    /// [`ClusterConfig::erased_generic_fallback`] as used.
    pub erased_generic_fallback: Vec<FieldType>,
    /// What could not be read or was cut short: malformed signatures, missing classes, limits.
    pub warnings: Vec<String>,
    /// The [environment statements](environment) the search may use once a test's code used
    /// their resource (empty unless [`TestCluster::add_environment`] was called).
    #[serde(default)]
    pub environment: Vec<(environment::Resource, Operation)>,
    /// The types whose class literals (`String.class`) tests may pass for `Class`
    /// parameters: what the CUT's members and code name, then `Object`, `String`, `Integer`
    /// and the primitive types; only classes tests in the CUT's package can name (see
    /// `builder/literals.rs`).
    #[serde(default)]
    pub class_literals: Vec<ClassLiteral>,
}

/// A class literal the search may write (`Number.class`), with what it is assignable to.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClassLiteral {
    /// The type whose `Class` object it is.
    pub ty: FieldType,
    /// The class `T` of its type `Class<T>` (the box of a primitive type: `int.class` is a
    /// `Class<Integer>`), then every supertype of `T` as far as the class path shows them
    /// (internal names; for an array type `Object`, `Cloneable` and `Serializable`).
    pub supertypes: Vec<String>,
}

impl ClassLiteral {
    /// Whether the literal is a `Class<? extends bound>`.
    #[must_use]
    pub fn within(&self, bound: &str) -> bool {
        bound == OBJECT || self.supertypes.iter().any(|s| s == bound)
    }

    /// Whether the literal is a `Class<class>` (`class` as an internal name).
    #[must_use]
    pub fn is_of(&self, class: &str) -> bool {
        self.supertypes.first().is_some_and(|s| s == class)
    }
}

impl TestCluster {
    /// Builds the cluster of `cut` (an internal name; a binary name with dots is accepted too)
    /// from `classpath`, which should include the JDK (`ClassPathEntry::jdk`, or `jrt` in
    /// `ClassPath::parse`). Fails when the CUT is missing, unreadable, an annotation, a module
    /// descriptor, or a local, anonymous or private nested class.
    pub fn build(classpath: &ClassPath, cut: &str, config: &ClusterConfig) -> Result<TestCluster> {
        Builder::new(classpath, cut, config)?.run()
    }

    /// Adds the [environment statements](environment), for a search in the controlled
    /// environment.
    pub fn add_environment(&mut self) {
        self.environment = environment::operations();
    }

    /// Keeps only the class literals whose class (the element class of an array type)
    /// `keep` accepts, by internal name; primitive types stay. Returns how many went. For a
    /// compilation target whose tests cannot name a class the class path has.
    pub fn retain_class_literals(&mut self, mut keep: impl FnMut(&str) -> bool) -> usize {
        let before = self.class_literals.len();
        self.class_literals.retain(|l| match l.ty.innermost() {
            FieldType::Object(c) => keep(c),
            _ => true,
        });
        before - self.class_literals.len()
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
