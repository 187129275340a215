//! Class names in one file (imported, simple or in full) and the classes a test names.

use std::collections::{BTreeMap, BTreeSet};

use ferrosuite_bytecode::descriptor::{FieldType, MethodDescriptor};
use ferrosuite_executor::Observed;
use ferrosuite_testcase::Statement;
use ferrosuite_testcase::statement::{CLASS, java_type};

use super::{EmitTest, TypeInfo};
use crate::names::{package_of, simple_name};

/// How each class is written in one file: simple (imported or not needing an import) or in
/// full.
pub(super) struct TypeNames {
    /// Top-level class (internal name) → how it is written.
    written: BTreeMap<String, String>,
    imports: BTreeSet<String>,
    /// Names a variable must not take: simple type names and first package segments.
    pub(super) reserved: BTreeSet<String>,
}

pub(super) fn top_level(internal: &str) -> (&str, &str) {
    let start = internal.rfind('/').map_or(0, |i| i + 1);
    match internal[start..].find('$') {
        Some(j) => (&internal[..start + j], &internal[start + j..]),
        None => (internal, ""),
    }
}

impl TypeNames {
    /// How the classes `used` are written in a file of `package` declaring `test_class`;
    /// classes for which `no_import` holds are written in full (an import of a deprecated
    /// class draws a warning under `--release 8` that no annotation can suppress).
    pub(super) fn with(
        used: &BTreeSet<String>,
        package: &str,
        test_class: &str,
        no_import: &dyn Fn(&str) -> bool,
    ) -> Self {
        let mut by_simple: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
        for c in used {
            let (top, _) = top_level(c);
            by_simple.entry(simple_name(top)).or_default().insert(top);
        }
        let mut written = BTreeMap::new();
        let mut imports = BTreeSet::new();
        let mut reserved = BTreeSet::new();
        for (simple, tops) in &by_simple {
            let local = |t: &str| package_of(t) == package;
            let lang = |t: &str| package_of(t) == "java.lang";
            // Who gets the simple name: a class of the test's package, else one of
            // java.lang, else a lone class (imported). The others are written in full.
            let winner: Option<&str> = if *simple == test_class {
                None
            } else if let Some(t) = tops.iter().find(|t| local(t)) {
                Some(t)
            } else if let Some(t) = tops.iter().find(|t| lang(t)) {
                Some(t)
            } else if tops.len() == 1 {
                tops.iter().next().copied().filter(|t| !no_import(t))
            } else {
                None
            };
            for t in tops {
                if Some(*t) == winner {
                    written.insert((*t).to_string(), (*simple).to_string());
                    if !local(t) && !lang(t) {
                        imports.insert(t.replace('/', "."));
                    }
                } else {
                    written.insert((*t).to_string(), t.replace('/', "."));
                    if let Some(first) = t.split('/').next() {
                        reserved.insert(first.to_string());
                    }
                }
                reserved.insert((*simple).to_string());
            }
        }
        TypeNames {
            written,
            imports,
            reserved,
        }
    }

    /// How class `internal` is written (nested classes through their top-level class).
    pub(super) fn name(&self, internal: &str) -> String {
        let (top, rest) = top_level(internal);
        let base = self
            .written
            .get(top)
            .cloned()
            .unwrap_or_else(|| top.replace('/', "."));
        format!("{base}{}", rest.replace('$', "."))
    }

    pub(super) fn ty(&self, t: &FieldType) -> String {
        match t {
            FieldType::Object(c) => self.name(c),
            FieldType::Array(c) => format!("{}[]", self.ty(c)),
            prim => java_type(prim),
        }
    }

    pub(super) fn imports(&self) -> impl Iterator<Item = &String> {
        self.imports.iter()
    }
}

fn add_type(t: &FieldType, used: &mut BTreeSet<String>) {
    match t {
        FieldType::Object(c) => {
            used.insert(c.clone());
        }
        FieldType::Array(c) => add_type(c, used),
        _ => {}
    }
}

pub(super) fn value_type(s: &Statement) -> std::result::Result<Option<FieldType>, String> {
    s.value_type().map_err(|e| e.to_string())
}

/// The classes a test's source names (a superset is harmless: an unused import is only
/// noise, and names not collected are written in full).
pub(super) fn collect_classes(
    t: &EmitTest,
    used: &mut BTreeSet<String>,
    types: &dyn TypeInfo,
    package: &str,
) -> std::result::Result<(), String> {
    for s in &t.test.statements {
        if let Some(ty) = value_type(s)? {
            add_type(&ty, used);
        }
        match s.unwrapped() {
            Statement::Constructor {
                class, descriptor, ..
            }
            | Statement::Method {
                class, descriptor, ..
            } => {
                used.insert(class.to_string());
                let d = MethodDescriptor::parse(descriptor).map_err(|e| e.to_string())?;
                for p in &d.params {
                    add_type(p, used);
                }
            }
            Statement::FieldRead {
                class, descriptor, ..
            }
            | Statement::FieldWrite {
                class, descriptor, ..
            } => {
                used.insert(class.to_string());
                add_type(
                    &FieldType::parse(descriptor).map_err(|e| e.to_string())?,
                    used,
                );
            }
            Statement::EnumConstant { class, .. } => {
                used.insert(class.to_string());
            }
            Statement::ArrayNew { component, .. } => add_type(component, used),
            Statement::Cast { ty, .. } | Statement::Null { ty } => add_type(ty, used),
            Statement::ClassLiteral { ty } => {
                used.insert(CLASS.to_string());
                add_type(ty, used);
            }
            Statement::Mock { class, stubs } => {
                used.insert(class.to_string());
                for stub in stubs {
                    let d = MethodDescriptor::parse(&stub.descriptor).map_err(|e| e.to_string())?;
                    d.params
                        .iter()
                        .chain(&d.ret)
                        .for_each(|t| add_type(t, used));
                }
            }
            _ => {}
        }
    }
    for a in &t.assertions {
        if let Observed::Enum { class, .. } = &a.expected {
            used.insert(class.replace('.', "/"));
        }
    }
    if let Some((_, e)) = &t.expected {
        used.insert(catchable(&e.replace('.', "/"), types, package));
    }
    used.insert("java/lang/Exception".into());
    Ok(())
}

/// The exception class to name for `class`: itself when accessible from the test's
/// package, else its nearest accessible superclass (`Throwable` when none is known).
pub(super) fn catchable(class: &str, types: &dyn TypeInfo, package: &str) -> String {
    let mut c = class.to_string();
    for _ in 0..64 {
        if types.accessible(&c, package) {
            return c;
        }
        match types.superclass(&c) {
            Some(s) => c = s,
            None => break,
        }
    }
    "java/lang/Throwable".into()
}

/// Whether catching `class` needs a `throws` in the `try` body: a checked exception (known
/// to extend `Exception` but not `RuntimeException`). Unknown hierarchies count as
/// unchecked.
pub(super) fn is_checked(class: &str, types: &dyn TypeInfo) -> bool {
    let mut c = class.to_string();
    for _ in 0..64 {
        match c.as_str() {
            "java/lang/RuntimeException" | "java/lang/Error" => return false,
            "java/lang/Exception" | "java/lang/Throwable" => return true,
            _ => {}
        }
        match types.superclass(&c) {
            Some(s) => c = s,
            None => return false,
        }
    }
    false
}
