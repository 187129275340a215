//! Class literals: the `Class` objects a test may pass where the code under test takes a
//! `Class` parameter.
//!
//! Code that takes a `Class` usually compares it with a few classes it knows
//! (`if (clazz == PatternOptionBuilder.NUMBER_VALUE)`), looks it up in a table, or checks
//! what it is (`isAssignableFrom`, `isEnum`, `isArray`). No generator gives such values, so
//! without literals a test can only pass `null`. The candidates, in this order, without
//! repeats and at most [`MAX_LITERALS`]:
//!
//! 1. the types the CUT's accessible members take and return, elements of arrays included
//!    (a method returning `Number` or `File[]` is likely to be asked for one);
//! 2. the classes and array types the CUT's code and its nested classes' code name in their
//!    constant pools (`new`, `checkcast`, `instanceof`, owners of members, `ldc` of a class
//!    literal, caught exceptions) — the classes the code works with;
//! 3. the enums the cluster reached (a parameter `Class<E extends Enum<E>>` wants one);
//! 4. `Object`, `String`, `Integer` and the primitive types, so that any `Class` parameter
//!    has candidates (code that takes a `Class` often treats `int.class` and the other
//!    primitive types apart: `Defaults.defaultValue`, `ClassUtils.isAssignable`).
//!
//! The defaults always have a place. Only classes a test in the CUT's package can name are
//! kept; the search chooses among those that fit the parameter's generic type
//! (`Class<? extends Number>` takes `Integer.class`).
//!
//! ```text
//! class TypeHandler { static Object createValue(String s, Class<?> c) { … }
//!                     static Number createNumber(String s) … static File[] createFiles(…) … }
//! => [Class, File, File[], Number, Object, String, …, FileInputStream, URL, …, Integer, int, …]
//! ```

use std::collections::BTreeSet;

use ferrosuite_bytecode::descriptor::FieldType;

use super::casts::class_constant_types;
use super::{Builder, OBJECT, Operation, STRING};
use crate::cluster::{ClassLiteral, TypeKind};

/// Candidates kept at most (the earlier sources first).
pub(super) const MAX_LITERALS: usize = 64;

impl Builder<'_> {
    /// The class-literal candidates of `cut` whose members are `members` (see the module
    /// documentation).
    pub(super) fn class_literals<'o>(
        &mut self,
        cut: &str,
        members: impl Iterator<Item = &'o Operation>,
    ) -> Vec<ClassLiteral> {
        let mut from_members = BTreeSet::new();
        for op in members {
            for u in op.params.iter().chain(&op.ret) {
                from_members.insert(u.ty.clone());
                if let FieldType::Array(_) = u.ty {
                    from_members.insert(u.ty.innermost().clone());
                }
            }
        }
        let mut from_code = BTreeSet::new();
        let mut scanned = vec![cut.to_string()];
        scanned.extend(self.cp.nested_classes(cut).unwrap_or_default());
        for name in &scanned {
            if let Ok(cf) = self.cp.load(name) {
                from_code.extend(class_constant_types(&cf));
            }
        }
        // The enums the cluster reached (`Class<E extends Enum<E>>` wants one).
        let enums: Vec<FieldType> = self
            .types
            .values()
            .filter(|t| matches!(t.kind, TypeKind::Enum { .. }) && t.accessible)
            .map(|t| t.ty.clone())
            .collect();
        let defaults = [
            FieldType::Object(OBJECT.into()),
            FieldType::Object(STRING.into()),
            FieldType::Object("java/lang/Integer".into()),
            FieldType::Int,
            FieldType::Long,
            FieldType::Double,
            FieldType::Boolean,
            FieldType::Char,
            FieldType::Byte,
            FieldType::Short,
            FieldType::Float,
        ];
        // The defaults always have room: what the CUT names fills the rest.
        let named_room = MAX_LITERALS - defaults.len();
        let mut seen = BTreeSet::new();
        let mut out = Vec::new();
        let named = from_members
            .into_iter()
            .chain(from_code)
            .chain(enums)
            .map(|t| (t, true));
        for (ty, is_named) in named.chain(defaults.into_iter().map(|t| (t, false))) {
            if seen.contains(&ty) || (is_named && out.len() >= named_room) {
                continue;
            }
            seen.insert(ty.clone());
            if self.type_nameable(&ty) {
                let supertypes = self.literal_supertypes(&ty);
                out.push(ClassLiteral { ty, supertypes });
            }
        }
        out
    }

    /// [`ClassLiteral::supertypes`] of `ty`.
    fn literal_supertypes(&self, ty: &FieldType) -> Vec<String> {
        let class = match ty {
            FieldType::Object(c) => c.clone(),
            FieldType::Array(_) => {
                return [OBJECT, "java/lang/Cloneable", "java/io/Serializable"]
                    .map(String::from)
                    .to_vec();
            }
            p => match p.boxed_class() {
                Some(b) => b.to_string(),
                None => return Vec::new(),
            },
        };
        let mut out = vec![class.clone()];
        out.extend(self.hierarchy.supertypes(&class).unwrap_or_default());
        out
    }
}
