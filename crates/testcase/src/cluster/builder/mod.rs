//! Building the cluster: class facts, type resolution, the walk over needed types, result calls.

mod casts;
mod generators;
mod literals;
mod members;
mod statics;

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet, VecDeque};
use std::sync::Arc;

use ferrosuite_bytecode::attributes::{Attribute, AttributeBody};
use ferrosuite_bytecode::classpath::ClassPath;
use ferrosuite_bytecode::descriptor::FieldType;
use ferrosuite_bytecode::hierarchy::Hierarchy;
use ferrosuite_bytecode::{ClassFile, access};

use super::{
    ClassSignature, ClusterConfig, GenericType, OBJECT, Operation, STRING, TestCluster, TypeInfo,
    TypeParameter, TypeUse,
};
use crate::error::{Error, Result};
use crate::statement::java_name;

pub use generators::{JDK_DEFAULT_SUBTYPES, JDK_FACTORIES, jdk_default_subtypes};

use generators::BOXES;

/// Argument classes whose instance methods join [`TestCluster::result_methods`] at most.
const MAX_ARGUMENT_CLASSES: usize = 8;

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

pub(super) type Subst = BTreeMap<String, GenericType>;

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

pub(super) struct Builder<'a> {
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
    /// The CUT's cast classes (see `casts`).
    casts: BTreeSet<String>,
}

impl<'a> Builder<'a> {
    pub(super) fn new(cp: &'a ClassPath, cut: &str, config: &'a ClusterConfig) -> Result<Self> {
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
            casts: BTreeSet::new(),
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

    pub(super) fn run(mut self) -> Result<TestCluster> {
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

        self.casts = self.cast_classes(&cut);
        let cut_params = self.cut_params.clone();
        let (constructors, mut methods, mut fields) = self.collect_members(&cut, &cf, &cut_params);
        if self.config.package_statics {
            let (m, f) = self.package_statics(&cut);
            methods.extend(m);
            fields.extend(f);
        }
        let private_members = self.private_members(&cut, &cf, &cut_params);
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
        for op in &private_members {
            for p in op.params.iter().chain(&op.ret).cloned().collect::<Vec<_>>() {
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
        let mut result_methods = self.result_methods(methods.iter().chain(&fields));
        self.argument_methods(
            &cut,
            constructors.iter().chain(&methods),
            &mut result_methods,
        );
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
        let class_literals =
            self.class_literals(&cut, constructors.iter().chain(&methods).chain(&fields));
        Ok(TestCluster {
            cut,
            type_params: self.cut_params,
            constructors,
            methods,
            fields,
            private_members,
            result_methods,
            types: self.types,
            erased_generic_fallback: self.config.erased_generic_fallback.clone(),
            warnings: self.warnings,
            environment: Vec::new(),
            class_literals,
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
                let Some(methods) = self.instance_methods(&class, |_| true) else {
                    continue;
                };
                next.extend(methods.iter().filter_map(|m| self.result_class(m)));
                out.insert(class, methods);
            }
            level = next;
        }
        out.retain(|_, m| !m.is_empty());
        out
    }

    /// Adds to `out` the instance methods of the library's classes that `ops` take as
    /// parameters (not JDK classes, not the CUT) that return nothing or the class itself, at
    /// most [`MAX_ARGUMENT_CLASSES`] classes in name order: the calls that configure an
    /// argument before the CUT gets it (`options.addOption("v", "verbose", false, "…")` before
    /// `formatter.printHelp("app", options)`). A class already there (the CUT returns it too)
    /// keeps its entry.
    fn argument_methods<'o>(
        &mut self,
        cut: &str,
        ops: impl Iterator<Item = &'o Operation>,
        out: &mut BTreeMap<String, Vec<Operation>>,
    ) {
        if self.config.result_depth == 0 {
            return;
        }
        let classes: BTreeSet<String> = ops
            .flat_map(|op| &op.params)
            .filter_map(|p| match &p.ty {
                FieldType::Object(c) if c != cut && self.user.contains(c) => Some(c.clone()),
                _ => None,
            })
            .collect();
        let mut added = 0;
        for class in classes {
            if added >= MAX_ARGUMENT_CLASSES {
                break;
            }
            if out.contains_key(&class) || !self.class_accessible(&class) {
                continue;
            }
            // Calls that change the argument: `void` ones and those giving the class back
            // (`addOption` returns the `Options`); its getters would only crowd the CUT's calls.
            let own = FieldType::Object(class.clone());
            let Some(methods) =
                self.instance_methods(&class, |m| m.ret.as_ref().is_none_or(|r| r.ty == own))
            else {
                continue;
            };
            if !methods.is_empty() {
                out.insert(class, methods);
                added += 1;
            }
        }
    }

    /// The accessible instance methods of `class` that `keep` accepts, at most
    /// [`ClusterConfig::max_result_methods`]; `None` when the class cannot be read.
    fn instance_methods(
        &mut self,
        class: &str,
        keep: impl Fn(&Operation) -> bool,
    ) -> Option<Vec<Operation>> {
        let cf = self.load(class)?;
        let params = self
            .class_signature(class)
            .map(|s| s.type_params)
            .unwrap_or_default();
        let (_, mut methods, _) = self.collect_members(class, &cf, &params);
        methods.retain(|m| !m.is_static && keep(m));
        methods.truncate(self.config.max_result_methods);
        Some(methods)
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
        self.visible_outwards(class, true)
    }

    /// Whether `class` and every class it is nested in are public.
    fn class_public(&mut self, class: &str) -> bool {
        self.visible_outwards(class, false)
    }

    /// Whether `class` and every class it is nested in are public, or (with `package`)
    /// package-private in the CUT's package; none private or local.
    fn visible_outwards(&mut self, class: &str, package: bool) -> bool {
        let mut c = class.to_string();
        for _ in 0..16 {
            let Some(f) = self.facts(&c) else {
                return false;
            };
            if f.flags & access::PRIVATE != 0 {
                return false;
            }
            if f.flags & access::PUBLIC == 0 && !(package && self.same_package(&c)) {
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
}
