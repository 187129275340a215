//! The uses of a test's typed values: which do not fit the parameter types they are passed
//! for (and so go raw), the types of `null` arguments, and the receivers a wildcard type
//! serves.

use std::collections::{BTreeMap, BTreeSet};

use ferrosuite_bytecode::descriptor::FieldType;
use ferrosuite_testcase::Statement;
use ferrosuite_testcase::cluster::GenericType;

use super::{
    Call, Generics, OBJECT, Typing, class_type, classes_of, is_closed, unbounded, variables, wants,
};

impl Typing {
    /// The casts of `null` arguments (see [`Typing::null_casts`]): for each call whose
    /// signature is known, the parameter's type with the class's variables from the receiver
    /// and the method's from the other arguments (unbounded ones unbound: Object), when that
    /// leaves it closed and nameable.
    pub(super) fn null_casts(
        &self,
        stmts: &[Statement],
        decl: &[Option<FieldType>],
        g: &Generics<'_>,
        package: &str,
    ) -> BTreeMap<(usize, usize), GenericType> {
        let mut out = BTreeMap::new();
        let null = |a: &ferrosuite_testcase::VarRef| {
            matches!(stmts.get(a.index()), Some(Statement::Null { .. }))
        };
        for (i, s) in stmts.iter().enumerate() {
            let Some(call) = Call::of(s) else { continue };
            let args = call.args;
            if !args.iter().any(null) || self.cast_all.contains(&i) {
                continue;
            }
            let Some(callee) = self.callee(g, i, &call) else {
                continue;
            };
            let Ok(wants) = wants(g, &call) else {
                continue;
            };
            if callee.raw || callee.sig.params.len() != args.len() || wants.len() != args.len() {
                continue;
            }
            let vars: BTreeSet<String> = callee
                .sig
                .type_params
                .iter()
                .map(|p| p.name.clone())
                .collect();
            let mut bound = callee.map.clone();
            let site = Some(call.site());
            for (k, ((param, a), want)) in
                callee.sig.params.iter().zip(args).zip(&wants).enumerate()
            {
                if null(a) {
                    continue;
                }
                if let Some(have) = self.written(g, stmts, decl, a.index(), want, site, k, i) {
                    if !g.unify(&param.substitute(&callee.map), &have, &vars, &mut bound) {
                        bound.clear();
                        break;
                    }
                }
            }
            for p in &callee.sig.type_params {
                if !bound.contains_key(&p.name) && unbounded(p) {
                    bound.insert(p.name.clone(), class_type(OBJECT, Vec::new()));
                }
            }
            if callee
                .sig
                .type_params
                .iter()
                .any(|p| bound.get(&p.name).is_some_and(|t| !g.within(t, p, &bound)))
            {
                continue;
            }
            for (k, (param, a)) in callee.sig.params.iter().zip(args).enumerate() {
                if !null(a) {
                    continue;
                }
                let t = param.substitute(&bound);
                // Only where no overload could take the null instead: another class than the
                // erased parameter's (`between((String) null, "a")`) or a parameterised one
                // could make two of them applicable, and the call ambiguous.
                let unique =
                    site.is_some_and(|s| g.info.overloads(s.class, s.name, s.arity) == Some(1));
                let mut names = BTreeSet::new();
                classes_of(&t, &mut names);
                if unique
                    && matches!(t, GenericType::Class(_))
                    && is_closed(&t)
                    && names.iter().all(|n| g.info.accessible(n, package))
                {
                    out.insert((i, k), t);
                }
            }
        }
        out
    }

    /// The statements whose receiver cast can be `C<?, …>` (see [`Typing::wild_receivers`]).
    pub(super) fn wild_receivers(
        &self,
        stmts: &[Statement],
        decl: &[Option<FieldType>],
        g: &Generics<'_>,
    ) -> BTreeMap<usize, usize> {
        let mut out = BTreeMap::new();
        for (i, s) in stmts.iter().enumerate() {
            let (class, receiver) = match s {
                Statement::Method {
                    class,
                    receiver: Some(r),
                    ..
                }
                | Statement::FieldRead {
                    class,
                    receiver: Some(r),
                    ..
                }
                | Statement::FieldWrite {
                    class,
                    receiver: Some(r),
                    ..
                } => (class, r.index()),
                _ => continue,
            };
            let want = FieldType::Object(class.to_string());
            if self.types.get(receiver).is_some_and(Option::is_some)
                || decl
                    .get(receiver)
                    .is_some_and(|d| d.as_ref() == Some(&want))
            {
                continue;
            }
            let Some(gc) = g.class(class) else { continue };
            if gc.type_params.is_empty() {
                continue;
            }
            // The member's types in its declaring class's terms: they must not name a type
            // variable of that class (a method's own variables are fine).
            let (owner, types) = match s {
                Statement::Method {
                    name, descriptor, ..
                } => {
                    let Some((owner, sig)) = g.info.method_signature(class, name, descriptor)
                    else {
                        continue;
                    };
                    // The call was typed as raw (unchecked): on `C<?>` javac checks it, so
                    // only plain parameters (no type arguments, no method variables) may stay.
                    let plain = sig.type_params.is_empty()
                        && sig.params.iter().all(|p| {
                            let mut base = p;
                            while let GenericType::Array(c) = base {
                                base = c;
                            }
                            matches!(base, GenericType::Primitive(_))
                                || matches!(base, GenericType::Class(c)
                                    if c.args.is_empty() && c.inner.iter().all(|i| i.args.is_empty()))
                        });
                    if !plain {
                        continue;
                    }
                    (owner, sig.params)
                }
                Statement::FieldWrite { name, .. } => {
                    let Some((owner, ty)) = g.info.field_signature(class, name) else {
                        continue;
                    };
                    let plain = match &ty {
                        GenericType::Primitive(_) => true,
                        GenericType::Class(c) => c.args.is_empty(),
                        _ => false,
                    };
                    if !plain {
                        continue;
                    }
                    (owner, vec![ty])
                }
                _ => (class.to_string(), Vec::new()),
            };
            let Some(oc) = g.class(&owner) else { continue };
            let class_vars: BTreeSet<&str> =
                oc.type_params.iter().map(|p| p.name.as_str()).collect();
            let mut named = BTreeSet::new();
            for t in &types {
                variables(t, &mut named);
            }
            if named.iter().any(|v| class_vars.contains(v.as_str())) {
                continue;
            }
            out.insert(i, gc.type_params.len());
        }
        out
    }

    /// The values whose types do not fit a use (see the module documentation).
    pub(super) fn misfits(
        &self,
        stmts: &[Statement],
        decl: &[Option<FieldType>],
        g: &Generics<'_>,
    ) -> (Vec<usize>, Vec<usize>) {
        let mut out = Vec::new();
        let mut cast = Vec::new();
        for (i, s) in stmts.iter().enumerate() {
            let call = Call::of(s);
            match s {
                _ if call.is_some_and(|c| !c.args.is_empty()) => {
                    let Some(call) = call else { continue };
                    let args = call.args;
                    let receiver = call.receiver;
                    let typed_receiver = receiver.filter(|r| self.types[r.index()].is_some());
                    let Some(callee) = self.callee(g, i, &call) else {
                        // Unknown signature: typed arguments and receiver go raw, as before.
                        out.extend(
                            args.iter()
                                .map(|a| a.index())
                                .filter(|a| self.types[*a].is_some()),
                        );
                        out.extend(typed_receiver.map(ferrosuite_testcase::VarRef::index));
                        continue;
                    };
                    if callee.raw {
                        // A typed receiver whose arguments give no substitution (wildcards,
                        // or not seen as the member's class): javac still checks the call,
                        // which this cannot; the receiver goes raw.
                        out.extend(typed_receiver.map(ferrosuite_testcase::VarRef::index));
                    }
                    let Ok(wants) = wants(g, &call) else {
                        continue;
                    };
                    let site = Some(call.site());
                    // An overloaded method: a typed argument's parameterised cast beside a raw
                    // cast can make two overloads applicable; every argument keeps its raw cast.
                    let unique =
                        site.is_some_and(|s| g.info.overloads(s.class, s.name, s.arity) == Some(1));
                    if !unique && !self.cast_all.contains(&i) {
                        let raw_cast = args.iter().zip(&wants).enumerate().any(|(k, (a, want))| {
                            let Some(have) = decl.get(a.index()).and_then(Option::as_ref) else {
                                return false;
                            };
                            let null = matches!(stmts.get(a.index()), Some(Statement::Null { .. }));
                            self.types[a.index()].is_none()
                                && g.is_raw(want)
                                && (null || self.casts(g, Some(i), site, k, have, want))
                        });
                        if raw_cast && args.iter().any(|a| self.types[a.index()].is_some()) {
                            cast.push(i);
                            out.extend(
                                args.iter()
                                    .map(|a| a.index())
                                    .filter(|a| self.types[*a].is_some()),
                            );
                        }
                    }
                    if callee.sig.params.len() != wants.len() {
                        out.extend(
                            args.iter()
                                .map(|a| a.index())
                                .filter(|a| self.types[*a].is_some()),
                        );
                        continue;
                    }
                    let method_vars: BTreeSet<String> = callee
                        .sig
                        .type_params
                        .iter()
                        .map(|p| p.name.clone())
                        .collect();
                    // The method's variables as the typed arguments bind them: a conflict, or
                    // a binding outside its bounds, makes those arguments raw.
                    let mut bound = BTreeMap::new();
                    let mut conflict = false;
                    for (k, ((param, a), want)) in
                        callee.sig.params.iter().zip(args).zip(&wants).enumerate()
                    {
                        let p = param.substitute(&callee.map);
                        let mut vars = BTreeSet::new();
                        variables(&p, &mut vars);
                        if callee.raw || !vars.iter().any(|v| method_vars.contains(v)) {
                            continue;
                        }
                        if let Some(have) =
                            self.written(g, stmts, decl, a.index(), want, site, k, i)
                        {
                            conflict |= !g.unify(&p, &have, &method_vars, &mut bound);
                        }
                    }
                    let mut all = callee.map.clone();
                    all.extend(bound.clone());
                    let violated = callee
                        .sig
                        .type_params
                        .iter()
                        .any(|p| bound.get(&p.name).is_some_and(|t| !g.within(t, p, &all)));
                    if conflict || violated {
                        // Every argument raw and cast, as when no type was inferred.
                        out.extend(
                            args.iter()
                                .map(|a| a.index())
                                .filter(|a| self.types[*a].is_some()),
                        );
                        cast.push(i);
                    }
                    for (k, ((param, a), want)) in
                        callee.sig.params.iter().zip(args).zip(&wants).enumerate()
                    {
                        let p = param.substitute(&callee.map);
                        let mut vars = BTreeSet::new();
                        variables(&p, &mut vars);
                        if vars.iter().any(|v| method_vars.contains(v)) || callee.raw {
                            // Checked above through the bindings; a raw call is unchecked.
                            continue;
                        }
                        if !vars.is_empty() {
                            // A class variable the receiver does not give: its typing is off.
                            if let Some(r) = receiver {
                                out.push(r.index());
                            }
                            continue;
                        }
                        let have = self.written(g, stmts, decl, a.index(), want, site, k, i);
                        self.check(
                            g,
                            have,
                            a.index(),
                            &p,
                            receiver,
                            !callee.map.is_empty(),
                            &mut out,
                        );
                    }
                }
                Statement::FieldWrite {
                    class,
                    name,
                    descriptor,
                    receiver,
                    value,
                } => {
                    let Some((owner, ty)) = g.info.field_signature(class, name) else {
                        continue;
                    };
                    let map = match receiver {
                        None => Some(BTreeMap::new()),
                        Some(r) => self.class_map(g, r.index(), class, &owner),
                    };
                    if map.is_none() {
                        out.extend(
                            receiver
                                .filter(|r| self.types[r.index()].is_some())
                                .map(ferrosuite_testcase::VarRef::index),
                        );
                    }
                    if let Some(m) = map {
                        let p = ty.substitute(&m);
                        if is_closed(&p) {
                            let have = FieldType::parse(descriptor).ok().and_then(|want| {
                                self.written(g, stmts, decl, value.index(), &want, None, 0, i)
                            });
                            self.check(
                                g,
                                have,
                                value.index(),
                                &p,
                                *receiver,
                                !m.is_empty(),
                                &mut out,
                            );
                        }
                    }
                }
                _ => {}
            }
        }
        (out, cast)
    }

    /// Checks that value `a` fits parameter type `p` (closed); on a misfit, the value to
    /// make raw goes to `out`: `a` when it is typed, else the receiver whose arguments made
    /// `p` (when `via_receiver`).
    #[allow(clippy::too_many_arguments)]
    fn check(
        &self,
        g: &Generics<'_>,
        have: Option<GenericType>,
        a: usize,
        p: &GenericType,
        receiver: Option<ferrosuite_testcase::VarRef>,
        via_receiver: bool,
        out: &mut Vec<usize>,
    ) {
        let Some(have) = have else { return };
        if matches!(p, GenericType::Primitive(_)) {
            return;
        }
        // A primitive passed for a type the receiver's arguments give (`List<String>.add(3)`)
        // is boxed: the box must fit.
        let have = match have {
            GenericType::Primitive(prim) => match prim.boxed_class() {
                Some(b) => class_type(b, Vec::new()),
                None => return,
            },
            other => other,
        };
        let mut element = p;
        while let GenericType::Array(c) = element {
            element = c;
        }
        if !matches!(element, GenericType::Class(c) if !c.last_args().is_empty()) && !via_receiver {
            // A raw or non-generic parameter: the existing casts make any value fit.
            return;
        }
        if g.is_subtype(&have, p) {
            return;
        }
        if self.types[a].is_some() {
            out.push(a);
        } else if let (Some(r), true) = (receiver, via_receiver) {
            out.push(r.index());
        }
    }
}
