//! The operations of methods, constructors and fields, and a class's accessible members.

use std::collections::{HashSet, VecDeque};

use ferrosuite_bytecode::descriptor::{FieldType, MethodDescriptor};
use ferrosuite_bytecode::{ClassFile, Member, access};

use super::{Builder, Subst, signature_text};
use crate::cluster::{
    ClassSignature, GenericType, MethodSignature, OBJECT, Operation, OperationKind, TypeParameter,
    TypeUse,
};
use crate::statement::java_name;

impl Builder<'_> {
    // --- operations --------------------------------------------------------------------------

    /// An operation for method `m` of `cf` (declared in `declared_in`, named through `class`),
    /// with `subst` applied to its generic types and `scope` the enclosing type parameters.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn method_op(
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
    pub(super) fn field_op(
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
    pub(super) fn collect_members(
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
}

impl Builder<'_> {
    /// Whether a test in the CUT's package can name every class of the operation's parameter
    /// and value types (a private method often takes or returns a private nested class).
    fn nameable(&mut self, op: &Operation) -> bool {
        op.params
            .iter()
            .chain(&op.ret)
            .all(|u| self.type_nameable(&u.ty))
    }

    /// Whether a test in the CUT's package can name `ty` (the element class of an array
    /// type; primitive types always).
    pub(super) fn type_nameable(&mut self, ty: &FieldType) -> bool {
        match ty.innermost() {
            FieldType::Object(c) => self.class_accessible(c),
            _ => true,
        }
    }

    /// The CUT's own private methods (not constructors, synthetic or lambda bodies) and
    /// private instance fields that are not final, static first, then by name and descriptor,
    /// whose types a test can name.
    pub(super) fn private_members(
        &mut self,
        cut: &str,
        cf: &ClassFile,
        scope: &[TypeParameter],
    ) -> Vec<Operation> {
        let subst = Subst::new();
        let mut scope = scope.to_vec();
        scope.extend(self.outer_params(cut));
        let mut out = Vec::new();
        for m in &cf.methods {
            let (Ok(name), Ok(desc)) = (cf.member_name(m), cf.member_descriptor(m)) else {
                continue;
            };
            if !m.is(access::PRIVATE)
                || m.is(access::SYNTHETIC)
                || name.starts_with('<')
                || name.starts_with("lambda$")
            {
                continue;
            }
            if let Some(op) = self.method_op(cf, cut, cut, m, &name, &desc, &subst, &scope) {
                if self.nameable(&op) {
                    out.push(op);
                }
            }
        }
        for f in &cf.fields {
            let (Ok(name), Ok(desc)) = (cf.member_name(f), cf.member_descriptor(f)) else {
                continue;
            };
            if !f.is(access::PRIVATE)
                || f.is(access::SYNTHETIC)
                || f.is(access::STATIC)
                || f.is(access::FINAL)
            {
                continue;
            }
            if let Some(op) = self.field_op(cf, cut, cut, f, &name, &desc, &subst, &scope) {
                if self.nameable(&op) {
                    out.push(op);
                }
            }
        }
        out.sort_by(|a, b| {
            (!a.is_static, a.kind, &a.name, &a.descriptor).cmp(&(
                !b.is_static,
                b.kind,
                &b.name,
                &b.descriptor,
            ))
        });
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
