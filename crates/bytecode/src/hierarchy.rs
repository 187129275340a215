//! Class hierarchy queries over a [`ClassPath`]: supertypes, subtypes, overriders,
//! assignability, and member resolution.
//!
//! Supertype queries read only class headers, lazily. Subtype queries need the whole class
//! path: the first one indexes every class header once (for the JDK image that is about 27,000
//! classes), later ones use the index.
//!
//! ```no_run
//! use ferrosuite_bytecode::classpath::ClassPath;
//! use ferrosuite_bytecode::hierarchy::Hierarchy;
//! # fn main() -> ferrosuite_bytecode::Result<()> {
//! let cp = ClassPath::parse("/usr/share/java/guava.jar:jrt")?;
//! let h = Hierarchy::new(&cp);
//! assert!(h.is_subtype("com/google/common/collect/ImmutableList", "java/util/Collection")?);
//! let lists = h.subtypes("com/google/common/collect/ImmutableList")?;
//! # Ok(()) }
//! ```

use std::collections::{BTreeSet, HashMap, VecDeque};
use std::sync::OnceLock;

use crate::classfile::access;
use crate::classpath::ClassPath;
use crate::descriptor::FieldType;
use crate::error::{Error, Result};

/// Hierarchy queries over a class path.
#[derive(Debug)]
pub struct Hierarchy<'a> {
    cp: &'a ClassPath,
    subtypes: OnceLock<HashMap<String, Vec<String>>>,
}

impl<'a> Hierarchy<'a> {
    /// Queries over `cp`.
    #[must_use]
    pub fn new(cp: &'a ClassPath) -> Self {
        Hierarchy {
            cp,
            subtypes: OnceLock::new(),
        }
    }

    /// The direct superclass.
    pub fn superclass(&self, class: &str) -> Result<Option<String>> {
        Ok(self.cp.header(class)?.super_name.clone())
    }

    /// All supertypes, nearest first: the superclass chain, then interfaces breadth-first.
    pub fn supertypes(&self, class: &str) -> Result<Vec<String>> {
        let mut out = Vec::new();
        let mut seen = BTreeSet::new();
        let mut queue = VecDeque::from([class.to_string()]);
        while let Some(c) = queue.pop_front() {
            let h = self.cp.header(&c)?;
            for s in h.super_name.iter().chain(&h.interfaces) {
                if seen.insert(s.clone()) {
                    out.push(s.clone());
                    queue.push_back(s.clone());
                }
            }
        }
        Ok(out)
    }

    /// True when `class` is `ancestor` or a subtype of it.
    pub fn is_subtype(&self, class: &str, ancestor: &str) -> Result<bool> {
        if class == ancestor || ancestor == "java/lang/Object" {
            return Ok(true);
        }
        Ok(self.supertypes(class)?.iter().any(|s| s == ancestor))
    }

    fn index(&self) -> Result<&HashMap<String, Vec<String>>> {
        if let Some(i) = self.subtypes.get() {
            return Ok(i);
        }
        let mut idx: HashMap<String, Vec<String>> = HashMap::new();
        for name in self.cp.class_names()? {
            let h = self.cp.header(&name)?;
            for s in h.super_name.iter().chain(&h.interfaces) {
                idx.entry(s.clone()).or_default().push(name.clone());
            }
        }
        for v in idx.values_mut() {
            v.sort();
        }
        Ok(self.subtypes.get_or_init(|| idx))
    }

    /// Direct subtypes (classes extending it, interfaces extending it, classes implementing it).
    pub fn direct_subtypes(&self, class: &str) -> Result<Vec<String>> {
        Ok(self.index()?.get(class).cloned().unwrap_or_default())
    }

    /// All transitive subtypes, sorted.
    pub fn subtypes(&self, class: &str) -> Result<Vec<String>> {
        let idx = self.index()?;
        let mut seen = BTreeSet::new();
        let mut stack = vec![class.to_string()];
        while let Some(c) = stack.pop() {
            for s in idx.get(&c).into_iter().flatten() {
                if seen.insert(s.clone()) {
                    stack.push(s.clone());
                }
            }
        }
        Ok(seen.into_iter().collect())
    }

    /// Subtypes of `class` that declare a method overriding `class.name desc` (JVMS 5.4.5: not
    /// private or static, and a package-private method only from the same package).
    pub fn overriders(&self, class: &str, name: &str, desc: &str) -> Result<Vec<String>> {
        let decl = self.cp.load(class)?;
        let Some(m) = decl.declared_method(name, desc) else {
            return Err(Error::Rewrite(format!(
                "{class} declares no method {name}{desc}"
            )));
        };
        if m.is(access::PRIVATE) || m.is(access::STATIC) || name == "<init>" {
            return Ok(Vec::new());
        }
        let package_private = !m.is(access::PUBLIC) && !m.is(access::PROTECTED);
        let pkg = |c: &str| {
            c.rsplit_once('/')
                .map_or(String::new(), |(p, _)| p.to_string())
        };
        let mut out = Vec::new();
        for sub in self.subtypes(class)? {
            if package_private && pkg(&sub) != pkg(class) {
                continue;
            }
            let c = self.cp.load(&sub)?;
            let overrides = c
                .declared_method(name, desc)
                .is_some_and(|sm| !sm.is(access::STATIC) && !sm.is(access::PRIVATE));
            if overrides {
                out.push(sub);
            }
        }
        Ok(out)
    }

    /// Whether a value of type `from` may be assigned to `to` (JVMS 4.10.1.2 for references,
    /// identity for primitives).
    pub fn is_assignable(&self, from: &FieldType, to: &FieldType) -> Result<bool> {
        Ok(match (from, to) {
            (FieldType::Object(f), FieldType::Object(t)) => self.is_subtype(f, t)?,
            (FieldType::Array(_), FieldType::Object(t)) => {
                matches!(
                    t.as_str(),
                    "java/lang/Object" | "java/lang/Cloneable" | "java/io/Serializable"
                )
            }
            (FieldType::Array(f), FieldType::Array(t)) => {
                if f.is_reference() && t.is_reference() {
                    self.is_assignable(f, t)?
                } else {
                    f == t
                }
            }
            (f, t) => f == t,
        })
    }
}

/// The class that declares the field `owner.name:desc` as `getstatic`/`putstatic` resolve it
/// (JVMS 5.4.3.2: the class, its superinterfaces, then its superclass), or `None`.
pub fn resolve_field(
    cp: &ClassPath,
    owner: &str,
    name: &str,
    desc: &str,
) -> Result<Option<String>> {
    let mut seen = BTreeSet::new();
    resolve_field_in(cp, owner, name, desc, &mut seen)
}

fn resolve_field_in(
    cp: &ClassPath,
    class: &str,
    name: &str,
    desc: &str,
    seen: &mut BTreeSet<String>,
) -> Result<Option<String>> {
    if !seen.insert(class.to_string()) {
        return Ok(None);
    }
    let c = match cp.load(class) {
        Ok(c) => c,
        Err(Error::ClassNotFound(_)) => return Ok(None),
        Err(e) => return Err(e),
    };
    if c.declared_field(name, desc).is_some() {
        return Ok(Some(class.to_string()));
    }
    for i in c.interface_names()? {
        if let Some(found) = resolve_field_in(cp, &i, name, desc, seen)? {
            return Ok(Some(found));
        }
    }
    match c.super_name()? {
        Some(s) => resolve_field_in(cp, &s, name, desc, seen),
        None => Ok(None),
    }
}
