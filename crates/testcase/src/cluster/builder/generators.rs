//! Generators per needed type (constructors, factories, constants) and the subtypes to use.

use std::collections::{BTreeSet, HashMap};

use ferrosuite_bytecode::access;
use ferrosuite_bytecode::descriptor::{FieldType, MethodDescriptor};

use super::{Builder, Nesting, Subst, package_of};
use crate::cluster::{OBJECT, Operation, OperationKind, STRING, TypeInfo, TypeKind, TypeUse};

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

/// Static factories of JDK types declared in another class, which the type's own statics do
/// not give (`Paths.get` makes a `Path`, an interface whose implementations are not public):
/// (type, declaring class, name, descriptor).
pub const JDK_FACTORIES: &[(&str, &str, &str, &str)] = &[
    (
        "java/nio/file/Path",
        "java/nio/file/Paths",
        "get",
        "(Ljava/lang/String;[Ljava/lang/String;)Ljava/nio/file/Path;",
    ),
    (
        "java/nio/file/FileSystem",
        "java/nio/file/FileSystems",
        "getDefault",
        "()Ljava/nio/file/FileSystem;",
    ),
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
pub(super) const BOXES: &[(&str, FieldType)] = &[
    ("java/lang/Boolean", FieldType::Boolean),
    ("java/lang/Byte", FieldType::Byte),
    ("java/lang/Character", FieldType::Char),
    ("java/lang/Double", FieldType::Double),
    ("java/lang/Float", FieldType::Float),
    ("java/lang/Integer", FieldType::Int),
    ("java/lang/Long", FieldType::Long),
    ("java/lang/Short", FieldType::Short),
];

impl Builder<'_> {
    // --- needed types ------------------------------------------------------------------------

    pub(super) fn enqueue(&mut self, ty: &FieldType, depth: u32) {
        if depth > self.config.max_depth {
            return;
        }
        let key = ty.descriptor();
        if self.queued.insert(key) {
            self.queue.push_back((ty.clone(), depth));
        }
    }

    pub(super) fn enqueue_use(&mut self, u: &TypeUse, depth: u32) {
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

    pub(super) fn process(&mut self, ty: &FieldType, depth: u32) {
        let mut info = TypeInfo {
            ty: ty.clone(),
            kind: TypeKind::Primitive,
            accessible: true,
            public: true,
            is_final: false,
            depth,
            generators: Vec::new(),
            subtypes: Vec::new(),
            cast_subtypes: Vec::new(),
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
        for s in info
            .subtypes
            .iter()
            .chain(&info.cast_subtypes)
            .cloned()
            .collect::<Vec<_>>()
        {
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
            info.public = false;
            return;
        };
        info.accessible = self.class_accessible(name);
        info.public = self.class_public(name);
        info.is_final = cf.is(access::FINAL);
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
        // JDK factories declared elsewhere (`Paths.get` for `Path`).
        for &(_, owner, fname, fdesc) in JDK_FACTORIES.iter().filter(|(t, ..)| *t == name) {
            let Some(of) = self.load(owner) else { continue };
            let found = of
                .declared_method(fname, fdesc)
                .filter(|m| m.is(access::STATIC));
            if let Some(m) = found {
                if let Some(op) = self.method_op(&of, owner, owner, m, fname, fdesc, &no_subst, &[])
                {
                    statics.push(op);
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
        info.cast_subtypes = self.cast_subtypes(name);
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
