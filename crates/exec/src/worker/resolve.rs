//! The classes, methods and fields statements name, resolved through the host loader, cached.

use std::collections::HashMap;
use std::rc::Rc;

use ferrosuite_bytecode::descriptor::{FieldType, MethodDescriptor};
use jni::sys::{jclass, jfieldID, jmethodID, jvalue};

use super::{Executor, cstring};
use crate::raw::{self, Kind};
use crate::result::MAX_STRING;

pub(super) struct MethodInfo {
    pub(super) class: jclass,
    pub(super) id: jmethodID,
    /// Shared, so that a statement takes them without copying.
    pub(super) params: Rc<[(Kind, Option<jclass>)]>,
    pub(super) ret: Kind,
}

/// Resolutions of members (methods, fields, sandbox verdicts), keyed by one byte string
/// `len(class) class len(name) name descriptor S|I` (lengths as 4 little-endian bytes) built in
/// a reused buffer: looking a statement's member up neither allocates, formats nor hashes three
/// strings with `SipHash` (which, with the allocations, was about 8 % of a worker's time on
/// cheap code under test; formatting the lengths as text was another 6 %). The lengths keep the
/// key unambiguous whatever the names hold (JVM names may contain NUL).
///
/// ```text
/// ("a/B", "m", "(I)V", static) → 03 00 00 00 "a/B" 01 00 00 00 "m(I)VS"
/// ```
pub(super) struct Members<V> {
    map: HashMap<Box<[u8]>, V, foldhash::fast::FixedState>,
    key: Vec<u8>,
}

impl<V> Members<V> {
    pub(super) fn new() -> Self {
        Members {
            map: HashMap::with_hasher(foldhash::fast::FixedState::default()),
            key: Vec::new(),
        }
    }

    /// Sets the key buffer to the member's key; whether it is cached.
    pub(super) fn probe(&mut self, class: &str, name: &str, desc: &str, is_static: bool) -> bool {
        self.key.clear();
        for part in [class, name] {
            // A name longer than 4 GiB cannot come through a frame (`MAX_FRAME`).
            let len = u32::try_from(part.len()).unwrap_or(u32::MAX);
            self.key.extend_from_slice(&len.to_le_bytes());
            self.key.extend_from_slice(part.as_bytes());
        }
        self.key.extend_from_slice(desc.as_bytes());
        self.key.push(if is_static { b'S' } else { b'I' });
        self.map.contains_key(self.key.as_slice())
    }

    /// Caches `v` under the key of the last [`Members::probe`].
    pub(super) fn insert(&mut self, v: V) {
        self.map.insert(self.key.as_slice().into(), v);
    }

    /// The value under the key of the last [`Members::probe`].
    pub(super) fn last(&self) -> Option<&V> {
        self.map.get(self.key.as_slice())
    }
}

pub(super) struct FieldInfo {
    pub(super) class: jclass,
    pub(super) id: jfieldID,
    pub(super) kind: Kind,
    pub(super) ty: Option<jclass>,
}

impl Executor<'_> {
    /// Loads (and optionally initialises) a class through the host loader.
    pub(super) fn load(&self, binary: &str, initialize: bool) -> Result<jclass, String> {
        let name = self.jni.new_string(binary);
        let c = raw::reference(self.jni.call(
            self.ids.class_cls,
            self.ids.class_for_name,
            Kind::Object,
            &[
                jvalue { l: name },
                jvalue { z: initialize },
                jvalue { l: self.loader },
            ],
            true,
        ));
        self.jni.delete_local(name);
        if let Some(t) = self.jni.take_exception() {
            let d = self.describe(t);
            // A failed initialisation: say what the static initialiser threw.
            let cause = if d.class == "java.lang.ExceptionInInitializerError" {
                let s = raw::reference(self.jni.call(
                    self.ids.host,
                    self.ids.host_root_cause,
                    Kind::Object,
                    &[jvalue { l: t }],
                    true,
                ));
                self.jni.clear_exception();
                if s.is_null() {
                    None
                } else {
                    let text = self.jni.read_string(s, MAX_STRING).0;
                    self.jni.delete_local(s);
                    Some(text)
                }
            } else {
                None
            };
            self.jni.delete_local(t);
            return Err(match (cause, d.message) {
                (Some(c), _) => format!("{} ({c})", d.class),
                (None, Some(m)) => format!("{}: {m}", d.class),
                (None, None) => d.class,
            });
        }
        Ok(c)
    }

    /// The class of a field type, cached (a global reference).
    pub(super) fn class(&mut self, t: &FieldType) -> Result<jclass, String> {
        let binary = match t {
            FieldType::Object(n) => n.replace('/', "."),
            FieldType::Array(_) => t.descriptor().replace('/', "."),
            _ => return Err(format!("{} is not a class", t.descriptor())),
        };
        if let Some(c) = self.classes.get(&binary) {
            return c.clone();
        }
        let r = self
            .load(&binary, false)
            .map(|c| self.jni.global(c))
            .map_err(|e| format!("class {binary} cannot be loaded: {e}"));
        self.classes.insert(binary, r.clone());
        r
    }

    /// The `Class` object of any field type (a global reference): `int.class` is the
    /// `TYPE` field of `Integer`.
    pub(super) fn class_object(&mut self, ty: &FieldType) -> Result<jclass, String> {
        let Some(owner) = ty.boxed_class() else {
            return self.class(ty);
        };
        // A key no class's binary name takes (`java.lang.Integer.TYPE` is a field).
        let key = format!("{}.TYPE", owner.replace('/', "."));
        if let Some(c) = self.classes.get(&key) {
            return c.clone();
        }
        let field = self.field(owner, "TYPE", "Ljava/lang/Class;", true)?;
        let (class, id) = (field.class, field.id);
        let value = raw::reference(self.jni.get_field(class, id, Kind::Object, true));
        let found = if value.is_null() {
            self.jni.clear_exception();
            Err(format!("{} has no TYPE", owner.replace('/', ".")))
        } else {
            let global = self.jni.global(value);
            self.jni.delete_local(value);
            Ok(global)
        };
        self.classes.insert(key, found.clone());
        found
    }

    pub(super) fn class_named(&mut self, internal: &str) -> Result<jclass, String> {
        self.class(&FieldType::Object(internal.to_string()))
    }

    pub(super) fn method(
        &mut self,
        class: &str,
        name: &str,
        desc: &str,
        is_static: bool,
    ) -> Result<&MethodInfo, String> {
        if !self.methods.probe(class, name, desc, is_static) {
            let info = self.resolve_method(class, name, desc, is_static);
            self.methods.insert(info);
        }
        match self.methods.last() {
            Some(r) => r.as_ref().map_err(Clone::clone),
            None => Err(format!(
                "no method {}.{name}{desc}",
                class.replace('/', ".")
            )),
        }
    }

    fn resolve_method(
        &mut self,
        class: &str,
        name: &str,
        desc: &str,
        is_static: bool,
    ) -> Result<MethodInfo, String> {
        let d = MethodDescriptor::parse(desc).map_err(|e| e.to_string())?;
        let cls = self.class_named(class)?;
        let id = self
            .jni
            .method_id(cls, &cstring(name), &cstring(desc), is_static);
        if id.is_null() {
            self.jni.clear_exception();
            return Err(format!(
                "no {}method {}.{name}{desc}",
                if is_static { "static " } else { "" },
                class.replace('/', ".")
            ));
        }
        let mut params = Vec::with_capacity(d.params.len());
        for p in &d.params {
            let k = Kind::of(p);
            let c = if k == Kind::Object {
                Some(self.class(p)?)
            } else {
                None
            };
            params.push((k, c));
        }
        Ok(MethodInfo {
            class: cls,
            id,
            params: params.into(),
            ret: d.ret.as_ref().map_or(Kind::Void, Kind::of),
        })
    }

    pub(super) fn field(
        &mut self,
        class: &str,
        name: &str,
        desc: &str,
        is_static: bool,
    ) -> Result<&FieldInfo, String> {
        if !self.fields.probe(class, name, desc, is_static) {
            let r = self.resolve_field(class, name, desc, is_static);
            self.fields.insert(r);
        }
        match self.fields.last() {
            Some(r) => r.as_ref().map_err(Clone::clone),
            None => Err(format!(
                "no field {}.{name} of type {desc}",
                class.replace('/', ".")
            )),
        }
    }

    fn resolve_field(
        &mut self,
        class: &str,
        name: &str,
        desc: &str,
        is_static: bool,
    ) -> Result<FieldInfo, String> {
        let t = FieldType::parse(desc).map_err(|e| e.to_string())?;
        let cls = self.class_named(class)?;
        let id = self
            .jni
            .field_id(cls, &cstring(name), &cstring(desc), is_static);
        if id.is_null() {
            self.jni.clear_exception();
            return Err(format!(
                "no {}field {}.{name} of type {desc}",
                if is_static { "static " } else { "" },
                class.replace('/', ".")
            ));
        }
        let kind = Kind::of(&t);
        let ty = if kind == Kind::Object {
            Some(self.class(&t)?)
        } else {
            None
        };
        Ok(FieldInfo {
            class: cls,
            id,
            kind,
            ty,
        })
    }
}
