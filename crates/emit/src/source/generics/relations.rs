//! Relations between generic types over a class path: supertypes seen with their type
//! arguments, subtyping with wildcards, inference of a method's type variables from one
//! argument, and whether an argument needs a cast.

use std::collections::{BTreeMap, BTreeSet};

use ferrosuite_bytecode::descriptor::FieldType;
use ferrosuite_testcase::cluster::{GenericType, TypeArg, TypeParameter};

use super::{GenericClass, OBJECT, Site, class_type, exact, generic_of, is_closed, variables};
use crate::source::TypeInfo;

/// Generic questions about classes, over a [`TypeInfo`], with the answers kept.
pub(in crate::source) struct Generics<'a> {
    pub(in crate::source) info: &'a dyn TypeInfo,
    classes: std::cell::RefCell<BTreeMap<String, Option<GenericClass>>>,
}

impl<'a> Generics<'a> {
    pub(in crate::source) fn new(info: &'a dyn TypeInfo) -> Self {
        Generics {
            info,
            classes: std::cell::RefCell::new(BTreeMap::new()),
        }
    }

    pub(in crate::source) fn class(&self, name: &str) -> Option<GenericClass> {
        if let Some(c) = self.classes.borrow().get(name) {
            return c.clone();
        }
        let c = self.info.generic_class(name);
        self.classes
            .borrow_mut()
            .insert(name.to_string(), c.clone());
        c
    }

    /// Whether `class` has type parameters (written without arguments, it is raw).
    pub(in crate::source) fn is_generic(&self, class: &str) -> bool {
        self.class(class).is_some_and(|c| !c.type_params.is_empty())
    }

    /// Whether `t` is (or is an array of) a generic class: written so, it is a raw type.
    pub(in crate::source) fn is_raw(&self, t: &FieldType) -> bool {
        match t {
            FieldType::Object(c) => self.is_generic(c),
            FieldType::Array(c) => self.is_raw(c),
            _ => false,
        }
    }

    /// `t` seen as its supertype `target` (a class), type arguments substituted along the
    /// way: `ArrayList<String>` as `java/util/Collection` is `Collection<String>`. A raw `t` of
    /// a generic class gives a raw view. `None` when `target` is not a supertype.
    pub(in crate::source) fn view(&self, t: &GenericType, target: &str) -> Option<GenericType> {
        let mut seen = BTreeSet::new();
        self.view_in(t, target, &mut seen, 0)
    }

    fn view_in(
        &self,
        t: &GenericType,
        target: &str,
        seen: &mut BTreeSet<String>,
        depth: u32,
    ) -> Option<GenericType> {
        let GenericType::Class(c) = t else {
            return None;
        };
        if !c.inner.is_empty() && c.inner.iter().any(|i| !i.args.is_empty()) {
            return None;
        }
        let name = c.erasure();
        if name == target {
            return Some(t.clone());
        }
        if depth > 32 || !seen.insert(name.clone()) {
            return None;
        }
        let class = self.class(&name)?;
        let raw = c.args.is_empty() && !class.type_params.is_empty();
        let map: BTreeMap<String, GenericType> = if raw {
            BTreeMap::new()
        } else {
            class
                .type_params
                .iter()
                .zip(&c.args)
                .filter_map(|(p, a)| Some((p.name.clone(), exact(a)?.clone())))
                .collect()
        };
        if !raw && map.len() != class.type_params.len() {
            // A wildcard argument: its members need capture, which this does not model.
            return None;
        }
        for s in &class.supertypes {
            let s = if raw {
                // The supertypes of a raw type are raw.
                match s {
                    GenericType::Class(sc) => class_type(&sc.erasure(), Vec::new()),
                    other => other.clone(),
                }
            } else {
                s.substitute(&map)
            };
            if let Some(v) = self.view_in(&s, target, seen, depth + 1) {
                return Some(v);
            }
        }
        if target == OBJECT {
            return Some(class_type(OBJECT, Vec::new()));
        }
        None
    }

    /// Whether a value of type `a` can be passed where `b` is wanted (both closed), without
    /// an unchecked conversion.
    pub(in crate::source) fn is_subtype(&self, a: &GenericType, b: &GenericType) -> bool {
        match (a, b) {
            (GenericType::Primitive(x), GenericType::Primitive(y)) => x == y,
            (_, GenericType::Class(bc)) if bc.name == OBJECT && bc.inner.is_empty() => {
                !matches!(a, GenericType::Primitive(_))
            }
            (GenericType::Array(x), GenericType::Array(y)) => match (&**x, &**y) {
                (GenericType::Primitive(xp), GenericType::Primitive(yp)) => xp == yp,
                (GenericType::Primitive(_), _) | (_, GenericType::Primitive(_)) => false,
                (xc, yc) => self.is_subtype(xc, yc),
            },
            (GenericType::Array(_), GenericType::Class(bc)) => {
                bc.args.is_empty()
                    && matches!(
                        bc.name.as_str(),
                        "java/lang/Cloneable" | "java/io/Serializable"
                    )
            }
            (GenericType::Class(_), GenericType::Class(bc)) => {
                let Some(GenericType::Class(v)) = self.view(a, &bc.erasure()) else {
                    return false;
                };
                let want = bc.last_args();
                if want.is_empty() {
                    // Raw wanted: fine when the class is not generic, else unchecked.
                    return !self.is_generic(&bc.erasure()) || v.last_args().is_empty();
                }
                let have = v.last_args();
                have.len() == want.len() && have.iter().zip(want).all(|(h, w)| self.contains(w, h))
            }
            _ => false,
        }
    }

    /// Whether type argument `w` contains `h` (JLS 4.5.1).
    fn contains(&self, w: &TypeArg, h: &TypeArg) -> bool {
        match (w, h) {
            (TypeArg::Any, _) => true,
            (TypeArg::Exact(x), TypeArg::Exact(y)) => x == y,
            (TypeArg::Extends(x), TypeArg::Exact(y) | TypeArg::Extends(y)) => self.is_subtype(y, x),
            (TypeArg::Extends(x), TypeArg::Any | TypeArg::Super(_)) => {
                x.class_name().as_deref() == Some(OBJECT)
            }
            (TypeArg::Super(x), TypeArg::Exact(y) | TypeArg::Super(y)) => self.is_subtype(x, y),
            _ => false,
        }
    }

    /// Binds the variables `vars` of `pattern` so that a value of type `actual` fits it, as
    /// `javac`'s inference would from this argument: `List<T>` against `ArrayList<String>`
    /// binds `T` to `String`. False when a variable would need two types (`javac` would take
    /// a common supertype, which this does not compute). A raw or unrelated `actual` binds
    /// nothing (an unchecked conversion, or not this method's business).
    pub(in crate::source) fn unify(
        &self,
        pattern: &GenericType,
        actual: &GenericType,
        vars: &BTreeSet<String>,
        map: &mut BTreeMap<String, GenericType>,
    ) -> bool {
        match pattern {
            GenericType::Variable(v) if vars.contains(v) => {
                let actual = match actual {
                    GenericType::Primitive(p) => match p.boxed_class() {
                        Some(b) => class_type(b, Vec::new()),
                        None => return true,
                    },
                    other => other.clone(),
                };
                if !is_closed(&actual) {
                    return true;
                }
                if let Some(bound) = map.get(v) {
                    *bound == actual
                } else {
                    map.insert(v.clone(), actual);
                    true
                }
            }
            GenericType::Variable(_) | GenericType::Primitive(_) => true,
            GenericType::Array(pc) => match actual {
                GenericType::Array(ac) if !matches!(**ac, GenericType::Primitive(_)) => {
                    self.unify(pc, ac, vars, map)
                }
                _ => true,
            },
            GenericType::Class(pcls) => {
                if pcls.last_args().is_empty() {
                    return true;
                }
                // Not a subtype of the parameter's class at all: nothing javac could infer.
                let Some(GenericType::Class(v)) = self.view(actual, &pcls.erasure()) else {
                    return false;
                };
                if v.last_args().is_empty() {
                    // Raw: an unchecked conversion binds nothing.
                    return true;
                }
                if v.last_args().len() != pcls.last_args().len() {
                    return false;
                }
                let ours = |t: &GenericType| {
                    let mut named = BTreeSet::new();
                    variables(t, &mut named);
                    named.iter().any(|n| vars.contains(n))
                };
                pcls.last_args()
                    .iter()
                    .zip(v.last_args())
                    .all(|(p, a)| match (p, a) {
                        (TypeArg::Any, _) => true,
                        (TypeArg::Exact(p), TypeArg::Exact(a)) => {
                            // An exact argument is the same type, not a subtype: the classes
                            // must be the same before their own arguments bind.
                            let same_class = match (p, a) {
                                (GenericType::Class(pc), GenericType::Class(ac)) => {
                                    pc.erasure() == ac.erasure()
                                }
                                _ => true,
                            };
                            if ours(p) {
                                same_class && self.unify(p, a, vars, map)
                            } else {
                                p == a
                            }
                        }
                        (TypeArg::Extends(p), TypeArg::Exact(a) | TypeArg::Extends(a)) => {
                            if ours(p) {
                                self.unify(p, a, vars, map)
                            } else {
                                is_closed(p) && self.is_subtype(a, p)
                            }
                        }
                        (TypeArg::Super(p), TypeArg::Exact(a) | TypeArg::Super(a)) => {
                            if ours(p) {
                                self.unify(p, a, vars, map)
                            } else {
                                is_closed(p) && self.is_subtype(p, a)
                            }
                        }
                        (TypeArg::Extends(p), TypeArg::Any) => {
                            !ours(p) && p.class_name().as_deref() == Some(OBJECT)
                        }
                        // A wildcard where the parameter wants an exact type, or bounds the
                        // other way: javac captures or rejects it; not something to rely on.
                        _ => false,
                    })
            }
        }
    }

    /// Whether an argument declared `have` needs a cast to `want` as argument `k` of a call
    /// of `site`: when the method has overloads of that arity (the cast picks the one
    /// executed), when `want` is an array other than a method's `T[]` (a `String[]` passed
    /// for an `Object...` is an inexact varargs call, which javac warns about), or when
    /// `have` is not assignable to `want` (a reference type or a boxed primitive; primitives
    /// keep their casts unless equal).
    pub(in crate::source) fn needs_cast(
        &self,
        site: Option<Site<'_>>,
        k: usize,
        have: &FieldType,
        want: &FieldType,
    ) -> bool {
        if have == want {
            return false;
        }
        let Some(site) = site else {
            return true;
        };
        if self.info.overloads(site.class, site.name, site.arity) != Some(1) {
            return true;
        }
        if matches!(want, FieldType::Array(_)) && !self.variable_array(site, k) {
            return true;
        }
        let have = match have {
            p if !p.is_reference() => match p.boxed_class() {
                Some(b) if want.is_reference() => FieldType::Object(b.to_string()),
                _ => return true,
            },
            other => other.clone(),
        };
        !self.assignable(&have, want)
    }

    /// Whether parameter `k` of `site` is an array of one of the method's type variables.
    fn variable_array(&self, site: Site<'_>, k: usize) -> bool {
        self.info
            .method_signature(site.class, site.name, site.descriptor)
            .is_some_and(|(_, sig)| match sig.params.get(k) {
                Some(GenericType::Array(c)) => matches!(&**c, GenericType::Variable(v)
                    if sig.type_params.iter().any(|p| &p.name == v)),
                _ => false,
            })
    }

    /// Whether erased reference type `have` is assignable to `want` without a cast.
    fn assignable(&self, have: &FieldType, want: &FieldType) -> bool {
        match (have, want) {
            (_, FieldType::Object(w)) if w == OBJECT => true,
            (FieldType::Object(h), FieldType::Object(w)) => self
                .view(&generic_of(&FieldType::Object(h.clone())), w)
                .is_some(),
            (FieldType::Array(h), FieldType::Array(w)) => match (&**h, &**w) {
                (h, w) if !h.is_reference() || !w.is_reference() => h == w,
                (h, w) => self.assignable(h, w),
            },
            (FieldType::Array(_), FieldType::Object(w)) => {
                matches!(w.as_str(), "java/lang/Cloneable" | "java/io/Serializable")
            }
            _ => false,
        }
    }

    /// Whether `t` satisfies the bounds of `p` (its own variables replaced by `map`).
    pub(in crate::source) fn within(
        &self,
        t: &GenericType,
        p: &TypeParameter,
        map: &BTreeMap<String, GenericType>,
    ) -> bool {
        p.class_bound.iter().chain(&p.interface_bounds).all(|b| {
            let b = b.substitute(map);
            is_closed(&b) && self.is_subtype(t, &b)
        })
    }
}
