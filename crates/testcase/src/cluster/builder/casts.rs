//! Cast classes: the interfaces and abstract classes the CUT's code tests values for.
//!
//! Code that branches on `x instanceof ParameterizedType` or casts `(Comparable) x` needs
//! values of that exact subtype, while its parameter says only `Type` or `Object`. The classes
//! named by `instanceof` and `checkcast` in the CUT, its nested classes and the classes of its
//! package they refer to are the cast classes (EvoSuite collects them the same way). An
//! interface or abstract cast class that is a strict subtype of a needed type `T` becomes one
//! of `T`'s [`cast_subtypes`](super::super::TypeInfo::cast_subtypes): nothing may build it,
//! but a mock of it is a value of `T` the code can tell apart.
//!
//! For example, guava's `TypeResolver.resolveType(Type)` tests `type instanceof
//! TypeVariable`, `ParameterizedType`, `GenericArrayType` and `WildcardType`; the JDK has no
//! public implementation of any of them, so before cast classes a test could only pass a
//! `Class` or a mock of `Type`, and three of the four branches stayed out of reach.

use std::collections::BTreeSet;

use ferrosuite_bytecode::constant_pool::Constant;
use ferrosuite_bytecode::descriptor::FieldType;
use ferrosuite_bytecode::insn::{Insn, decode};
use ferrosuite_bytecode::{ClassFile, access, opcodes};

use super::{Builder, package_of};

/// Classes of the CUT's package, besides its nested ones, whose code is read for casts.
const MAX_REFERENCED: usize = 32;

impl Builder<'_> {
    /// The cast classes of the CUT (see the module documentation), by internal name.
    pub(super) fn cast_classes(&mut self, cut: &str) -> BTreeSet<String> {
        let mut scanned: Vec<String> = vec![cut.to_string()];
        scanned.extend(self.cp.nested_classes(cut).unwrap_or_default());
        let mut referenced = BTreeSet::new();
        let mut out = BTreeSet::new();
        for name in scanned.clone() {
            let Some(cf) = self.load(&name) else {
                continue;
            };
            collect_casts(&cf, &mut out);
            for c in class_constants(&cf) {
                if package_of(&c) == self.package
                    && !c.starts_with(&format!("{cut}$"))
                    && c != cut
                    && self.user.contains(&c)
                {
                    referenced.insert(c);
                }
            }
        }
        for name in referenced.into_iter().take(MAX_REFERENCED) {
            if let Ok(cf) = self.cp.load(&name) {
                collect_casts(&cf, &mut out);
            }
        }
        out
    }

    /// The interface and abstract cast classes tests can name that are strict subtypes of
    /// `class`, at most [`max_subtypes`](super::super::ClusterConfig::max_subtypes).
    pub(super) fn cast_subtypes(&mut self, class: &str) -> Vec<String> {
        let mut out = Vec::new();
        for c in self.casts.clone() {
            if out.len() >= self.config.max_subtypes {
                break;
            }
            if c == class || c == self.cut {
                continue;
            }
            let Ok(h) = self.cp.header(&c) else {
                continue;
            };
            if h.access_flags & (access::ABSTRACT | access::INTERFACE) == 0
                || h.access_flags & access::FINAL != 0
            {
                continue;
            }
            if self.hierarchy.is_subtype(&c, class).unwrap_or(false) && self.class_accessible(&c) {
                out.push(c);
            }
        }
        out
    }
}

/// The reference classes named by `checkcast` and `instanceof` in `cf`'s methods (arrays
/// left out).
fn collect_casts(cf: &ClassFile, out: &mut BTreeSet<String>) {
    for m in &cf.methods {
        let Some(code) = m.code() else {
            continue;
        };
        let Ok(insns) = decode(&code.code) else {
            continue;
        };
        for (_, insn) in insns {
            if let Insn::Cp { op, index } = insn {
                if op == opcodes::CHECKCAST || op == opcodes::INSTANCEOF {
                    if let Ok(n) = cf.constant_pool.class_name(index) {
                        if !n.starts_with('[') {
                            out.insert(n.into_owned());
                        }
                    }
                }
            }
        }
    }
}

/// The classes `cf`'s constant pool names (arrays left out).
fn class_constants(cf: &ClassFile) -> Vec<String> {
    class_constant_types(cf)
        .into_iter()
        .filter_map(|t| match t {
            FieldType::Object(n) => Some(n),
            _ => None,
        })
        .collect()
}

/// The class and array types `cf`'s constant pool names (its `Class` entries), in pool order.
pub(super) fn class_constant_types(cf: &ClassFile) -> Vec<FieldType> {
    let cp = &cf.constant_pool;
    cp.entries()
        .iter()
        .filter_map(|c| match c {
            Constant::Class(i) => {
                let n = cp.utf8(*i).ok()?;
                if n.starts_with('[') {
                    FieldType::parse(&n).ok()
                } else {
                    Some(FieldType::Object(n.into_owned()))
                }
            }
            _ => None,
        })
        .collect()
}
