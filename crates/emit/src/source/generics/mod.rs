//! Type arguments for one test's variables: which values are declared with a parameterised
//! type (`List<String> list = splitter.splitToList(s);`) and which stay raw.
//!
//! Statements carry erased types (descriptors). The generic signatures of the members they
//! use (from the class path, [`TypeInfo`](crate::TypeInfo)) give each value a candidate type, inferred as
//! `javac` would for the cases that matter:
//!
//! ```text
//! new ArrayList()            → ArrayList<Object>      unbounded parameters become Object
//! Range.between(1, 5)        → Range<Integer>         T from the arguments (boxed), bound checked
//! splitter.splitToList(s)    → List<String>           the signature's own arguments
//! map.keySet()   (map: HashMap<Object, Object>) → Set<Object>   the receiver's arguments
//! Lists.newArrayList()       → ArrayList<Object>      a free type variable becomes Object
//! ```
//!
//! Each use is then checked against the parameter types the generic signature gives (the
//! receiver's type arguments substituted): an argument must be a subtype (wildcards
//! included) of a parameter type without type variables; a parameter that mentions a type
//! variable of the method is left to `javac`'s inference. A use that does not fit makes a value
//! raw again — the argument (a raw argument is an unchecked conversion, which compiles), or the
//! receiver whose arguments made the parameter type — and the candidates are recomputed until
//! nothing changes. Arrays, casts and `null`s of generic classes stay raw; so does anything
//! whose class a test in the package cannot name. The method writer then marks a test that
//! still writes a generic class raw with `@SuppressWarnings({"rawtypes", "unchecked"})`, and
//! validation writes a test whose types do not compile again with raw types.

use std::collections::{BTreeMap, BTreeSet};

use ferrosuite_bytecode::descriptor::{FieldType, MethodDescriptor};
use ferrosuite_testcase::cluster::{
    ClassType, GenericType, MethodSignature, TypeArg, TypeParameter,
};
use ferrosuite_testcase::statement::CLASS;
use ferrosuite_testcase::{Statement, VarRef};

mod relations;
mod uses;

pub(super) use relations::Generics;

const OBJECT: &str = "java/lang/Object";

/// The class `T` of the literal `ty.class` (a `Class<T>`): the box of a primitive type.
fn boxed(ty: &FieldType) -> FieldType {
    ty.boxed_class()
        .map_or_else(|| ty.clone(), |b| FieldType::Object(b.into()))
}

/// A class's type parameters and direct supertypes (superclass first), as [`TypeInfo::generic_class`](crate::TypeInfo::generic_class)
/// gives them.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct GenericClass {
    /// The type parameters (empty: not generic).
    pub type_params: Vec<TypeParameter>,
    /// The superclass and interfaces with their type arguments (raw class types when the
    /// class has no `Signature`).
    pub supertypes: Vec<GenericType>,
}

/// The generic type of an erased type: a class type without arguments, an array of such.
#[must_use]
pub fn generic_of(t: &FieldType) -> GenericType {
    match t {
        FieldType::Object(c) => GenericType::Class(ClassType {
            name: c.clone(),
            args: Vec::new(),
            inner: Vec::new(),
        }),
        FieldType::Array(c) => GenericType::Array(Box::new(generic_of(c))),
        p => GenericType::Primitive(p.clone()),
    }
}

/// Whether `g` names no type variable.
#[must_use]
pub fn is_closed(g: &GenericType) -> bool {
    match g {
        GenericType::Primitive(_) => true,
        GenericType::Variable(_) => false,
        GenericType::Array(c) => is_closed(c),
        GenericType::Class(c) => c
            .args
            .iter()
            .chain(c.inner.iter().flat_map(|i| &i.args))
            .all(|a| a.ty().is_none_or(is_closed)),
    }
}

/// The type variables `g` names.
fn variables(g: &GenericType, out: &mut BTreeSet<String>) {
    match g {
        GenericType::Primitive(_) => {}
        GenericType::Variable(v) => {
            out.insert(v.clone());
        }
        GenericType::Array(c) => variables(c, out),
        GenericType::Class(c) => {
            for a in c.args.iter().chain(c.inner.iter().flat_map(|i| &i.args)) {
                if let Some(t) = a.ty() {
                    variables(t, out);
                }
            }
        }
    }
}

/// The classes `g` names (internal names).
pub(super) fn classes_of(g: &GenericType, out: &mut BTreeSet<String>) {
    match g {
        GenericType::Primitive(_) | GenericType::Variable(_) => {}
        GenericType::Array(c) => classes_of(c, out),
        GenericType::Class(c) => {
            out.insert(c.erasure());
            for a in c.args.iter().chain(c.inner.iter().flat_map(|i| &i.args)) {
                if let Some(t) = a.ty() {
                    classes_of(t, out);
                }
            }
        }
    }
}

fn class_type(name: &str, args: Vec<TypeArg>) -> GenericType {
    GenericType::Class(ClassType {
        name: name.to_string(),
        args,
        inner: Vec::new(),
    })
}

/// The argument's type when it is exact (not a wildcard).
fn exact(a: &TypeArg) -> Option<&GenericType> {
    match a {
        TypeArg::Exact(t) => Some(t),
        _ => None,
    }
}

/// Whether a type parameter has no bound but `Object`.
fn unbounded(p: &TypeParameter) -> bool {
    p.class_bound
        .iter()
        .chain(&p.interface_bounds)
        .all(|b| b.class_name().as_deref() == Some(OBJECT))
}

/// What a call statement reaches: the substitution of its declaring class's variables (from
/// the receiver or the constructed type) and its signature.
struct Callee {
    sig: MethodSignature,
    /// Class variables → types; unresolved ones (raw receiver) are absent.
    map: BTreeMap<String, GenericType>,
    /// Whether the class's variables are unknown (a raw receiver): the call is unchecked and
    /// its parameters erased.
    raw: bool,
}

/// The declared types of one test's values (see the [module documentation](self)).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(super) struct Typing {
    /// Per statement: the parameterised type its value is declared with (`None`: its erased
    /// type).
    pub(super) types: Vec<Option<GenericType>>,
    /// Per statement: the type arguments written for a constructor (`new ArrayList<Object>()`).
    pub(super) constructed: Vec<Option<Vec<GenericType>>>,
    /// The type to cast a `null` argument to, by (statement, argument): the parameter's type,
    /// its variables as the call binds them (`(List<Object>) null`).
    pub(super) null_casts: BTreeMap<(usize, usize), GenericType>,
    /// Calls whose arguments keep every cast to the erased parameter types: their typed
    /// arguments would bind a method's type variable two ways, or outside its bounds.
    pub(super) cast_all: BTreeSet<usize>,
    /// Every argument keeps its cast (the raw typing of a test that did not compile).
    pub(super) all_casts: bool,
    /// The values' erased types (what an untyped value is declared as).
    decl: Vec<Option<FieldType>>,
    /// Statements whose receiver, an untyped value cast to a generic class, is cast to
    /// `C<?, …>` (with this many wildcards): the member's parameters (a field's type, for a
    /// write) do not name the class's type variables, so no raw type is needed.
    pub(super) wild_receivers: BTreeMap<usize, usize>,
}

impl Typing {
    /// No parameterised types (every value its erased type).
    pub(super) fn erased(n: usize) -> Self {
        Typing {
            types: vec![None; n],
            constructed: vec![None; n],
            null_casts: BTreeMap::new(),
            cast_all: BTreeSet::new(),
            all_casts: false,
            decl: Vec::new(),
            wild_receivers: BTreeMap::new(),
        }
    }

    /// Erased types and every argument cast, as written before parameterised types: for a
    /// test whose inferred types did not compile.
    pub(super) fn raw(n: usize) -> Self {
        Typing {
            all_casts: true,
            ..Self::erased(n)
        }
    }

    /// Whether argument of statement `at` declared `have` is cast to `want` (see
    /// [`Generics::needs_cast`]).
    pub(super) fn casts(
        &self,
        g: &Generics<'_>,
        at: Option<usize>,
        site: Option<Site<'_>>,
        k: usize,
        have: &FieldType,
        want: &FieldType,
    ) -> bool {
        if have == want {
            return false;
        }
        self.all_casts
            || at.is_none_or(|at| self.cast_all.contains(&at))
            || g.needs_cast(site, k, have, want)
    }

    /// The types of `stmts` (values `decl`), for a test in `package`.
    pub(super) fn infer(
        stmts: &[Statement],
        decl: &[Option<FieldType>],
        g: &Generics<'_>,
        package: &str,
    ) -> Self {
        let n = stmts.len();
        // A value used before it is defined: the writer reports the test as malformed.
        if stmts
            .iter()
            .enumerate()
            .any(|(j, s)| s.uses().iter().any(|r| r.index() >= j))
            || decl.len() != n
        {
            return Self::raw(n);
        }
        // Values that must stay raw and calls that keep their casts, grown until the uses fit.
        let mut raw = vec![false; n];
        let mut cast_all = BTreeSet::new();
        for _ in 0..=2 * n + 1 {
            let mut typing = Self::candidates(stmts, decl, g, package, &raw, &cast_all);
            let (demoted, cast) = typing.misfits(stmts, decl, g);
            let mut changed = false;
            for i in demoted {
                if let Some(r) = raw.get_mut(i) {
                    changed |= !*r;
                    *r = true;
                }
            }
            for i in cast {
                changed |= cast_all.insert(i);
            }
            if !changed {
                typing.null_casts = typing.null_casts(stmts, decl, g, package);
                typing.wild_receivers = typing.wild_receivers(stmts, decl, g);
                return typing;
            }
        }
        Self::raw(n)
    }

    /// The type `javac` sees for value `a` passed where the erased type `want` is expected:
    /// the method writer casts it to `want` when its own type differs, or when it is a `null`
    /// (to its parameterised type seen as `want` when it has one).
    #[allow(clippy::too_many_arguments)]
    fn written(
        &self,
        g: &Generics<'_>,
        stmts: &[Statement],
        decl: &[Option<FieldType>],
        a: usize,
        want: &FieldType,
        site: Option<Site<'_>>,
        k: usize,
        at: usize,
    ) -> Option<GenericType> {
        let have = decl.get(a)?.as_ref()?;
        let null = matches!(stmts.get(a), Some(Statement::Null { .. }));
        if !null && !self.casts(g, Some(at), site, k, have, want) {
            return self.of(a, decl);
        }
        let raw = self.all_casts || self.cast_all.contains(&at);
        if let (false, false, Some(Some(t)), FieldType::Object(c)) =
            (null, raw, self.types.get(a), want)
        {
            if let Some(v) = g.view(t, c).filter(is_closed) {
                return Some(v);
            }
        }
        Some(generic_of(want))
    }

    /// The declared type of value `i`: its parameterised type, else its erased one.
    pub(super) fn of(&self, i: usize, decl: &[Option<FieldType>]) -> Option<GenericType> {
        self.types
            .get(i)
            .cloned()
            .flatten()
            .or_else(|| decl.get(i).cloned().flatten().map(|t| generic_of(&t)))
    }

    fn candidates(
        stmts: &[Statement],
        decl: &[Option<FieldType>],
        g: &Generics<'_>,
        package: &str,
        raw: &[bool],
        cast_all: &BTreeSet<usize>,
    ) -> Self {
        let mut t = Self::erased(stmts.len());
        t.cast_all.clone_from(cast_all);
        t.decl = decl.to_vec();
        for (i, s) in stmts.iter().enumerate() {
            if raw[i] {
                continue;
            }
            if let Statement::ArrayNew { component, .. } = s {
                // `new C<?>[n]`: an array of a generic class needs no raw type when its
                // elements may be any `C` (an unbounded wildcard is reifiable).
                let mut base = component;
                let mut dims = 1;
                while let FieldType::Array(c) = base {
                    base = c;
                    dims += 1;
                }
                if let FieldType::Object(c) = base {
                    if let Some(gc) = g.class(c).filter(|gc| !gc.type_params.is_empty()) {
                        let mut arr = class_type(c, vec![TypeArg::Any; gc.type_params.len()]);
                        for _ in 0..dims {
                            arr = GenericType::Array(Box::new(arr));
                        }
                        if g.info.accessible(c, package) {
                            t.types[i] = Some(arr);
                        }
                    }
                }
                continue;
            }
            let Some(FieldType::Object(erased)) = decl[i].as_ref() else {
                continue;
            };
            let candidate = match s {
                Statement::Constructor { class, .. } => {
                    let Some(gc) = g.class(class) else { continue };
                    if gc.type_params.is_empty() || !gc.type_params.iter().all(unbounded) {
                        continue;
                    }
                    let args = vec![class_type(OBJECT, Vec::new()); gc.type_params.len()];
                    t.constructed[i] = Some(args.clone());
                    Some(class_type(
                        class,
                        args.into_iter().map(TypeArg::Exact).collect(),
                    ))
                }
                Statement::Method { .. } => {
                    Call::of(s).and_then(|call| t.returned(g, i, stmts, decl, &call))
                }
                // `String.class` is a `Class<String>`, `int.class` a `Class<Integer>`.
                Statement::ClassLiteral { ty } => Some(class_type(
                    CLASS,
                    vec![TypeArg::Exact(generic_of(&boxed(ty)))],
                )),
                Statement::FieldRead {
                    class,
                    name,
                    receiver,
                    ..
                } => {
                    let Some((owner, ty)) = g.info.field_signature(class, name) else {
                        continue;
                    };
                    let map = match receiver {
                        None => Some(BTreeMap::new()),
                        Some(r) => t.class_map(g, r.index(), class, &owner),
                    };
                    map.map(|m| ty.substitute(&m))
                }
                _ => None,
            };
            let Some(c) = candidate else { continue };
            // Only parameterised class types of the value's erased class, closed, nameable.
            let fits = matches!(&c, GenericType::Class(cc) if cc.erasure() == *erased
                && !cc.last_args().is_empty() && cc.inner.iter().all(|i| i.args.is_empty()))
                && is_closed(&c)
                && {
                    let mut names = BTreeSet::new();
                    classes_of(&c, &mut names);
                    names.iter().all(|n| g.info.accessible(n, package))
                };
            if fits {
                t.types[i] = Some(c);
            } else {
                t.constructed[i] = None;
            }
        }
        t
    }

    /// The substitution of `owner`'s type variables that value `r`, a receiver of a member
    /// of `class`, gives: `None` when `r` is raw or not seen as `owner`. An untyped receiver
    /// counts as written: its own class (`Names extends ArrayList<String>` gives `E =
    /// String`) when that is `class`, else `class` (raw when generic).
    fn class_map(
        &self,
        g: &Generics<'_>,
        r: usize,
        class: &str,
        owner: &str,
    ) -> Option<BTreeMap<String, GenericType>> {
        let gc = g.class(owner)?;
        if gc.type_params.is_empty() {
            return Some(BTreeMap::new());
        }
        let have = if let Some(t) = self.types.get(r)? {
            t.clone()
        } else {
            let want = FieldType::Object(class.to_string());
            match self.decl.get(r)? {
                Some(d) if *d == want => generic_of(d),
                _ => generic_of(&want),
            }
        };
        let GenericType::Class(v) = g.view(&have, owner)? else {
            return None;
        };
        let args: Vec<&GenericType> = v.last_args().iter().map(exact).collect::<Option<_>>()?;
        (args.len() == gc.type_params.len()).then(|| {
            gc.type_params
                .iter()
                .map(|p| p.name.clone())
                .zip(args.into_iter().cloned())
                .collect()
        })
    }

    /// The callee of a call statement: its signature and the substitution of its class's
    /// variables (from the receiver, or the constructed type's arguments).
    #[allow(clippy::many_single_char_names)]
    fn callee(&self, g: &Generics<'_>, i: usize, call: &Call<'_>) -> Option<Callee> {
        let Call {
            class,
            name,
            descriptor,
            receiver,
            ..
        } = *call;
        let (owner, sig) = g.info.method_signature(class, name, descriptor)?;
        let (map, raw) = match (receiver, self.constructed.get(i).cloned().flatten()) {
            (Some(r), _) => match self.class_map(g, r.index(), class, &owner) {
                Some(m) => (m, false),
                None => (BTreeMap::new(), g.is_generic(&owner)),
            },
            (None, Some(args)) => {
                let gc = g.class(&owner)?;
                let m = gc
                    .type_params
                    .iter()
                    .map(|p| p.name.clone())
                    .zip(args)
                    .collect();
                (m, false)
            }
            // A static method (no class variables), or a raw construction.
            (None, None) => (BTreeMap::new(), name == "<init>" && g.is_generic(&owner)),
        };
        Some(Callee { sig, map, raw })
    }

    /// The candidate type of a method's result.
    #[allow(clippy::too_many_arguments)]
    fn returned(
        &self,
        g: &Generics<'_>,
        at: usize,
        stmts: &[Statement],
        decl: &[Option<FieldType>],
        call: &Call<'_>,
    ) -> Option<GenericType> {
        let Call {
            class,
            name,
            descriptor,
            receiver,
            args,
        } = *call;
        let (owner, sig) = g.info.method_signature(class, name, descriptor)?;
        let mut map = match receiver {
            None => BTreeMap::new(),
            Some(r) => self.class_map(g, r.index(), class, &owner)?,
        };
        let ret = sig.ret.as_ref()?;
        let mut free = BTreeSet::new();
        variables(&ret.substitute(&map), &mut free);
        // The method's variables, from the arguments as javac infers them; one the result
        // names that no argument binds becomes Object when no parameter names it either (javac
        // then takes it from the declaration's type).
        let vars: BTreeSet<String> = sig.type_params.iter().map(|p| p.name.clone()).collect();
        let mut bound = BTreeMap::new();
        let wants = wants(g, call).ok()?;
        let site = Some(call.site());
        for (k, ((param, a), want)) in sig.params.iter().zip(args).zip(&wants).enumerate() {
            let have = self.written(g, stmts, decl, a.index(), want, site, k, at)?;
            if !g.unify(&param.substitute(&map), &have, &vars, &mut bound) {
                return None;
            }
        }
        for p in &sig.type_params {
            if !free.contains(&p.name) {
                continue;
            }
            let in_params = sig.params.iter().any(|q| {
                let mut vs = BTreeSet::new();
                variables(q, &mut vs);
                vs.contains(&p.name)
            });
            let chosen = match bound.get(&p.name) {
                Some(t) => t.clone(),
                None if !in_params && unbounded(p) => class_type(OBJECT, Vec::new()),
                None => return None,
            };
            map.insert(p.name.clone(), chosen);
        }
        for p in &sig.type_params {
            if let Some(t) = map.get(&p.name) {
                if !g.within(t, p, &map) {
                    return None;
                }
            }
        }
        Some(ret.substitute(&map))
    }
}

/// A call's method or constructor (`<init>`): where an argument goes (see
/// [`Generics::needs_cast`]).
#[derive(Debug, Clone, Copy)]
pub(super) struct Site<'a> {
    pub(super) class: &'a str,
    pub(super) name: &'a str,
    pub(super) descriptor: &'a str,
    pub(super) arity: usize,
}

/// A call statement seen whole: the class it names, the member (`<init>` for a
/// constructor), its descriptor, receiver and arguments.
#[derive(Debug, Clone, Copy)]
pub(super) struct Call<'s> {
    pub(super) class: &'s str,
    pub(super) name: &'s str,
    pub(super) descriptor: &'s str,
    pub(super) receiver: Option<VarRef>,
    pub(super) args: &'s [VarRef],
}

impl<'s> Call<'s> {
    /// The call a constructor or method statement makes; `None` for other statements.
    pub(super) fn of(s: &'s Statement) -> Option<Self> {
        match s {
            Statement::Constructor {
                class,
                descriptor,
                args,
            } => Some(Call {
                class,
                name: "<init>",
                descriptor,
                receiver: None,
                args,
            }),
            Statement::Method {
                class,
                name,
                descriptor,
                receiver,
                args,
            } => Some(Call {
                class,
                name,
                descriptor,
                receiver: *receiver,
                args,
            }),
            _ => None,
        }
    }

    /// Where its arguments go.
    pub(super) fn site(&self) -> Site<'s> {
        Site {
            class: self.class,
            name: self.name,
            descriptor: self.descriptor,
            arity: self.args.len(),
        }
    }
}

/// The parameter types the method writer writes arguments for: the descriptor's, or for a
/// bridge the method it stands for ([`TypeInfo::source_params`](crate::TypeInfo::source_params)).
pub(super) fn wants(g: &Generics<'_>, call: &Call<'_>) -> Result<Vec<FieldType>, String> {
    let mut d = MethodDescriptor::parse(call.descriptor).map_err(|e| e.to_string())?;
    if let Some(params) = g
        .info
        .source_params(call.class, call.name, call.descriptor)
        .filter(|p| p.len() == d.params.len())
    {
        d.params = params;
    }
    Ok(d.params)
}
