//! [`TypeInfo`] from a real class path: access flags (with the `InnerClasses` flags of
//! nested classes, which the class file's own header does not carry faithfully), the
//! superclass chain, and public no-argument methods for inspector assertions.
//!
//! Emitted sources compile with `javac --release 8` (or another release), but the JDK on
//! the machine is newer: `StringBuilder.isEmpty()` exists in 17 and not in 8. With
//! [`ClassPathTypes::for_release`], JDK classes are read from the JDK's `lib/ct.sym` — the
//! signatures `javac --release N` itself compiles against — so an inspector the release
//! lacks is never asserted and a class it lacks is never named. `ct.sym` is a zip whose
//! top directories name the releases they hold in one character each (`8`, `9A` = 9 and
//! 10, `BC` = 11 and 12, …), with `<module>/<package>/<Class>.sig` class files below.
//!
//! ```no_run
//! use ferrosuite_bytecode::classpath::ClassPath;
//! use ferrosuite_bytecode::descriptor::FieldType;
//! use ferrosuite_emit::{ClassPathTypes, TypeInfo};
//! # fn main() -> ferrosuite_emit::Result<()> {
//! let cp = ClassPath::parse("jrt").expect("the JDK");
//! let t = ClassPathTypes::for_release(&cp, 8, None)?;
//! assert!(t.accessible("java/util/Map$Entry", "p"));
//! assert_eq!(t.inspector_type("java/util/ArrayList", "size"), Some(FieldType::Int));
//! assert_eq!(t.inspector_type("java/lang/StringBuilder", "isEmpty"), None); // Java 15
//! # Ok(()) }
//! ```

use std::collections::HashMap;
use std::path::Path;
use std::sync::{Arc, Mutex, PoisonError};

use ferrosuite_bytecode::attributes::{Attribute, AttributeBody};
use ferrosuite_bytecode::classfile::{ClassFile, access};
use ferrosuite_bytecode::classpath::{ClassPath, ClassPathEntry, find_java_home};
use ferrosuite_bytecode::descriptor::{FieldType, MethodDescriptor};
use ferrosuite_bytecode::insn::{self, Insn};
use ferrosuite_bytecode::jdk::Jdk;
use ferrosuite_bytecode::opcodes as op;

use crate::error::{Error, Result};
use crate::names::package_of;
use crate::source::{GenericClass, TypeInfo, generic_of};
use ferrosuite_testcase::cluster::{ClassSignature, GenericType, MethodSignature};

/// The descriptor of the method a bridge method `name``descriptor` of `file` stands for,
/// read from its code: javac's bridge casts its arguments and invokes the method of the same
/// name it bridges to (`BigFraction.add(Object)` calls `add(BigFraction)`, where
/// `add(BigInteger)` has the same arity). `None` without code or such a call.
fn bridge_target(
    file: &ClassFile,
    bridge: &ferrosuite_bytecode::classfile::Member,
    name: &str,
    descriptor: &str,
) -> Option<MethodDescriptor> {
    let code = bridge.code()?;
    let arity = MethodDescriptor::parse(descriptor).ok()?.params.len();
    insn::decode(&code.code).ok()?.iter().find_map(|(_, i)| {
        let index = match i {
            Insn::Cp { op, index }
                if matches!(
                    *op,
                    op::INVOKEVIRTUAL | op::INVOKESPECIAL | op::INVOKESTATIC
                ) =>
            {
                *index
            }
            Insn::InvokeInterface { index, .. } => *index,
            _ => return None,
        };
        let called = file.constant_pool.member_ref(index).ok()?;
        if called.name != name || called.descriptor == descriptor {
            return None;
        }
        MethodDescriptor::parse(&called.descriptor)
            .ok()
            .filter(|d| d.params.len() == arity)
    })
}

/// The JDK's signatures of one release, from `lib/ct.sym`.
#[derive(Debug)]
struct CtSym {
    entry: ClassPathEntry,
    /// Internal class name → entry path, for the release.
    index: HashMap<String, String>,
}

/// The character `ct.sym` uses for a release (7 → `7`, 10 → `A`, 11 → `B`, …).
fn release_char(release: u16) -> Option<char> {
    char::from_digit(u32::from(release), 36).map(|c| c.to_ascii_uppercase())
}

impl CtSym {
    fn open(java_home: &Path, release: u16) -> Result<Self> {
        let path = java_home.join("lib/ct.sym");
        let bad = |detail: String| Error::Types(format!("{}: {detail}", path.display()));
        let entry = ClassPathEntry::open(&path).map_err(|e| bad(e.to_string()))?;
        let c = release_char(release).ok_or_else(|| bad(format!("no release {release}")))?;
        let mut index = HashMap::new();
        for f in entry.files().map_err(|e| bad(e.to_string()))? {
            let Some(rest) = f.strip_suffix(".sig") else {
                continue;
            };
            let mut parts = rest.splitn(2, '/');
            let (Some(dir), Some(path)) = (parts.next(), parts.next()) else {
                continue;
            };
            if !dir.contains(c) {
                continue;
            }
            // `<module>/<class>` (module names have dots; keep a bare `<class>` too).
            let class = match path.split_once('/') {
                Some((module, class)) if module.contains('.') => class,
                _ => path,
            };
            index.insert(class.to_string(), f.clone());
        }
        if index.is_empty() {
            return Err(bad(format!("holds no classes of release {release}")));
        }
        Ok(CtSym { entry, index })
    }
}

/// Type questions answered from a class path (see the module documentation). Classes that
/// cannot be read count as inaccessible; their members as unknown.
#[derive(Debug)]
pub struct ClassPathTypes<'a> {
    cp: &'a ClassPath,
    jdk: Option<CtSym>,
    cache: Mutex<HashMap<String, Option<Arc<ClassFile>>>>,
}

impl<'a> ClassPathTypes<'a> {
    /// Answers from `cp` alone (JDK classes as the running JDK has them).
    #[must_use]
    pub fn new(cp: &'a ClassPath) -> Self {
        ClassPathTypes {
            cp,
            jdk: None,
            cache: Mutex::new(HashMap::new()),
        }
    }

    /// Answers from `cp`, with JDK classes as `javac --release release` sees them (from the
    /// `ct.sym` of `java_home`, or of the JDK found through `JAVA_HOME` / `java` on `PATH`).
    /// When that JDK is itself of `release`, its own modules are the release (`ct.sym` holds
    /// only the older ones), as for `javac`.
    pub fn for_release(cp: &'a ClassPath, release: u16, java_home: Option<&Path>) -> Result<Self> {
        let home = match java_home {
            Some(h) => h.to_path_buf(),
            None => find_java_home().map_err(|e| Error::Types(e.to_string()))?,
        };
        let own = Jdk::at(&home).is_ok_and(|j| j.feature == release);
        Ok(ClassPathTypes {
            cp,
            jdk: if own {
                None
            } else {
                Some(CtSym::open(&home, release)?)
            },
            cache: Mutex::new(HashMap::new()),
        })
    }

    fn is_jdk(class: &str) -> bool {
        [
            "java/",
            "javax/",
            "jdk/",
            "sun/",
            "com/sun/",
            "org/w3c/",
            "org/xml/",
            "org/ietf/",
        ]
        .iter()
        .any(|p| class.starts_with(p))
    }

    /// The class file of `class`: the release's signature for JDK classes (none when the
    /// release lacks it), else the class path's.
    fn load(&self, class: &str) -> Option<Arc<ClassFile>> {
        let mut cache = self.cache.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(c) = cache.get(class) {
            return c.clone();
        }
        let file = match &self.jdk {
            Some(ct) if Self::is_jdk(class) => match ct.index.get(class) {
                Some(path) => ct
                    .entry
                    .read_file(path)
                    .ok()
                    .flatten()
                    .and_then(|bytes| ClassFile::parse(&bytes).ok().map(Arc::new)),
                // Not in the release: a user library in a JDK-looking package
                // (`javax.servlet`, `com.sun.jna`) comes from the user's entries; a JDK class
                // newer than the release does not exist.
                None if self.in_user_entry(class) => self.cp.load(class).ok(),
                None => None,
            },
            _ => self.cp.load(class).ok(),
        };
        cache.insert(class.to_string(), file.clone());
        file
    }

    /// Whether `class` is in one of the class path's directories or jars (not the JDK).
    fn in_user_entry(&self, class: &str) -> bool {
        self.cp.entries().iter().any(|e| {
            matches!(e.kind(), "directory" | "jar") && e.class_bytes(class).ok().flatten().is_some()
        })
    }

    /// The access flags a nested class was declared with (from its `InnerClasses` entry).
    fn inner_flags(file: &ClassFile, class: &str) -> Option<u16> {
        file.attributes.iter().find_map(|a| match &a.body {
            AttributeBody::InnerClasses(list) => list.iter().find_map(|ic| {
                let inner = file.constant_pool.class_name(ic.inner).ok()?;
                (inner == class).then_some(ic.flags)
            }),
            _ => None,
        })
    }

    /// `class` and its supertypes, nearest first (superclasses, then interfaces).
    fn lineage(&self, class: &str) -> Vec<Arc<ClassFile>> {
        let mut out = Vec::new();
        let mut seen = std::collections::BTreeSet::new();
        let mut queue = std::collections::VecDeque::from([class.to_string()]);
        while let Some(c) = queue.pop_front() {
            if !seen.insert(c.clone()) {
                continue;
            }
            let Some(f) = self.load(&c) else {
                continue;
            };
            if let Ok(Some(s)) = f.super_name() {
                queue.push_back(s.into_owned());
            }
            for i in f.interface_names().unwrap_or_default() {
                queue.push_back(i.into_owned());
            }
            out.push(f);
        }
        out
    }
}

impl TypeInfo for ClassPathTypes<'_> {
    fn accessible(&self, class: &str, package: &str) -> bool {
        let same_package = package_of(class) == package;
        let Some(file) = self.load(class) else {
            return false;
        };
        match class.rfind('$') {
            Some(i) if class.rfind('/').is_none_or(|s| s < i) => {
                let Some(flags) = Self::inner_flags(&file, class) else {
                    return false;
                };
                let here = if flags & access::PRIVATE != 0 {
                    false
                } else {
                    flags & access::PUBLIC != 0 || same_package
                };
                here && self.accessible(&class[..i], package)
            }
            _ => file.access_flags & access::PUBLIC != 0 || same_package,
        }
    }

    fn superclass(&self, class: &str) -> Option<String> {
        self.load(class)?
            .super_name()
            .ok()
            .flatten()
            .map(std::borrow::Cow::into_owned)
    }

    fn source_params(&self, class: &str, name: &str, descriptor: &str) -> Option<Vec<FieldType>> {
        let arity = MethodDescriptor::parse(descriptor).ok()?.params.len();
        for file in self.lineage(class) {
            let named = |m: &&ferrosuite_bytecode::classfile::Member| {
                file.member_name(m).ok().as_deref() == Some(name)
            };
            let Some(bridge) = file.declared_method(name, descriptor) else {
                continue;
            };
            if bridge.access_flags & access::BRIDGE == 0 {
                return None;
            }
            if let Some(target) = bridge_target(&file, bridge, name, descriptor) {
                return Some(target.params);
            }
            // Without code to read (the JDK's signatures in `ct.sym`): the method the bridge
            // stands for has the same name and arity, is not a bridge itself, and has a
            // reference type wherever the bridge has one (`MutableInt.setValue(Object)`
            // bridges to `setValue(Number)`, not to `setValue(int)`).
            let bridged = MethodDescriptor::parse(descriptor).ok()?;
            return file
                .methods
                .iter()
                .filter(named)
                .filter(|m| m.access_flags & (access::BRIDGE | access::SYNTHETIC) == 0)
                .filter_map(|m| MethodDescriptor::parse(&file.member_descriptor(m).ok()?).ok())
                .find(|d| {
                    d.params.len() == arity
                        && d.params
                            .iter()
                            .zip(&bridged.params)
                            .all(|(p, b)| p.is_reference() == b.is_reference())
                })
                .map(|d| d.params);
        }
        None
    }

    fn has_member(&self, class: &str, name: &str, descriptor: &str) -> bool {
        let declares = |file: &ClassFile| {
            file.declared_method(name, descriptor).is_some()
                || file.declared_field(name, descriptor).is_some()
        };
        if name == "<init>" {
            return self.load(class).is_some_and(|f| declares(&f));
        }
        self.lineage(class).iter().any(|f| declares(f))
    }

    fn generic_class(&self, class: &str) -> Option<GenericClass> {
        let file = self.load(class)?;
        if let Some(sig) =
            signature_text(&file, &file.attributes).and_then(|t| ClassSignature::parse(&t).ok())
        {
            let mut supertypes = vec![sig.superclass];
            supertypes.extend(sig.interfaces);
            return Some(GenericClass {
                type_params: sig.type_params,
                supertypes,
            });
        }
        let mut supertypes = Vec::new();
        if let Ok(Some(s)) = file.super_name() {
            supertypes.push(generic_of(&FieldType::Object(s.into_owned())));
        }
        for i in file.interface_names().unwrap_or_default() {
            supertypes.push(generic_of(&FieldType::Object(i.into_owned())));
        }
        Some(GenericClass {
            type_params: Vec::new(),
            supertypes,
        })
    }

    fn method_signature(
        &self,
        class: &str,
        name: &str,
        descriptor: &str,
    ) -> Option<(String, MethodSignature)> {
        let d = MethodDescriptor::parse(descriptor).ok()?;
        let lineage = if name == "<init>" {
            self.load(class).into_iter().collect()
        } else {
            self.lineage(class)
        };
        for file in lineage {
            let Some(m) = file.declared_method(name, descriptor) else {
                continue;
            };
            let owner = file.name().ok()?.into_owned();
            let sig = match signature_text(&file, &m.attributes) {
                Some(text) => MethodSignature::parse(&text).ok()?,
                None => MethodSignature {
                    type_params: Vec::new(),
                    params: d.params.iter().map(generic_of).collect(),
                    ret: d.ret.as_ref().map(generic_of),
                    throws: Vec::new(),
                },
            };
            if sig.params.len() != d.params.len()
                || sig
                    .params
                    .iter()
                    .zip(&d.params)
                    .any(|(g, e)| !g.matches_erasure(e))
            {
                return None;
            }
            return Some((owner, sig));
        }
        None
    }

    fn overloads(&self, class: &str, name: &str, arity: usize) -> Option<usize> {
        let lineage = if name == "<init>" {
            self.load(class).into_iter().collect()
        } else {
            self.lineage(class)
        };
        if lineage.is_empty() {
            return None;
        }
        let mut descriptors = std::collections::BTreeSet::new();
        for file in lineage {
            for m in &file.methods {
                if m.access_flags & (access::BRIDGE | access::SYNTHETIC) != 0
                    || file.member_name(m).ok().as_deref() != Some(name)
                {
                    continue;
                }
                let desc = file.member_descriptor(m).ok()?;
                if MethodDescriptor::parse(&desc).ok()?.params.len() == arity {
                    descriptors.insert(desc.into_owned());
                }
            }
        }
        Some(descriptors.len())
    }

    fn deprecated(&self, class: &str, member: Option<(&str, &str)>) -> bool {
        let marked = |attrs: &[Attribute]| {
            attrs
                .iter()
                .any(|a| matches!(a.body, AttributeBody::Deprecated))
        };
        let Some(file) = self.load(class) else {
            return false;
        };
        if marked(&file.attributes) {
            return true;
        }
        let Some((name, descriptor)) = member else {
            return false;
        };
        let lineage = if name == "<init>" {
            vec![file]
        } else {
            self.lineage(class)
        };
        for f in lineage {
            let found = f
                .declared_method(name, descriptor)
                .or_else(|| f.declared_field(name, descriptor));
            if let Some(m) = found {
                if m.access_flags & access::BRIDGE == 0 {
                    return marked(&m.attributes);
                }
                // A bridge: source calls the method it stands for.
                if let Some(target) = bridge_target(&f, m, name, descriptor) {
                    let target = target.to_string();
                    return f
                        .declared_method(name, &target)
                        .is_some_and(|o| marked(&o.attributes));
                }
                let arity = MethodDescriptor::parse(descriptor).map_or(0, |d| d.params.len());
                return f.methods.iter().any(|o| {
                    o.access_flags & access::BRIDGE == 0
                        && f.member_name(o).ok().as_deref() == Some(name)
                        && f.member_descriptor(o)
                            .ok()
                            .and_then(|d| MethodDescriptor::parse(&d).ok())
                            .is_some_and(|d| d.params.len() == arity)
                        && marked(&o.attributes)
                });
            }
        }
        false
    }

    fn field_signature(&self, class: &str, name: &str) -> Option<(String, GenericType)> {
        for file in self.lineage(class) {
            let Some(f) = file
                .fields
                .iter()
                .find(|f| file.member_name(f).ok().as_deref() == Some(name))
            else {
                continue;
            };
            let owner = file.name().ok()?.into_owned();
            let ty = match signature_text(&file, &f.attributes) {
                Some(text) => GenericType::parse(&text).ok()?,
                None => generic_of(&FieldType::parse(&file.member_descriptor(f).ok()?).ok()?),
            };
            return Some((owner, ty));
        }
        None
    }

    fn inspector_type(&self, class: &str, name: &str) -> Option<FieldType> {
        for file in self.lineage(class) {
            for m in &file.methods {
                let public = m.access_flags & access::PUBLIC != 0
                    && m.access_flags & (access::STATIC | access::BRIDGE) == 0;
                if !public || file.member_name(m).ok().as_deref() != Some(name) {
                    continue;
                }
                let Ok(desc) = file.member_descriptor(m) else {
                    continue;
                };
                if let Ok(d) = MethodDescriptor::parse(&desc) {
                    if d.params.is_empty() {
                        return d.ret;
                    }
                }
            }
        }
        None
    }
}

/// The text of a class's or member's `Signature` attribute, if it has one.
fn signature_text(file: &ClassFile, attrs: &[Attribute]) -> Option<String> {
    attrs.iter().find_map(|a| match a.body {
        AttributeBody::Signature(i) => file
            .constant_pool
            .utf8(i)
            .ok()
            .map(std::borrow::Cow::into_owned),
        _ => None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn release_characters() {
        assert_eq!(release_char(7), Some('7'));
        assert_eq!(release_char(8), Some('8'));
        assert_eq!(release_char(10), Some('A'));
        assert_eq!(release_char(17), Some('H'));
    }
}
