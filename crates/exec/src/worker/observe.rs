//! Observations of a test's values: primitives, strings, enums, arrays, and inspectors.

use ferrosuite_bytecode::descriptor::{FieldType, MethodDescriptor};
use ferrosuite_testcase::statement::{JDouble, Statement};
use jni::sys::{jclass, jfieldID, jmethodID, jobject, jsize, jvalue};

use super::run::Val;
use super::{Executor, cstring};
use crate::raw::{self, Kind};
use crate::result::{MAX_ARRAY_ELEMENTS, MAX_STRING, Observation, Observed};

impl Executor<'_> {
    #[allow(clippy::many_single_char_names)]
    pub(super) fn observe_statement(&mut self, s: &Statement, v: Val, vals: &[Val]) -> Observation {
        let mut o = Observation::default();
        match v {
            Val::Void => {}
            Val::Prim(k, x) => o.value = Some(observe_prim(k, x)),
            Val::Ref(r) => {
                o.same = self.held_before(s, r, vals);
                if let Some(class) = self.mocked_type(r) {
                    // A mock is not inspected: its getters would answer stubs and count as
                    // calls.
                    o.value = Some(Observed::Object { class });
                } else {
                    let value = self.observe_object(r);
                    o.value = Some(match self.box_primitive(r) {
                        Some(primitive) if !declared_box(s) => Observed::Boxed {
                            primitive,
                            value: Box::new(value),
                        },
                        _ => value,
                    });
                    if !r.is_null() && !self.is_value_like(r) {
                        o.inspectors = self.inspect(r);
                    }
                }
            }
        }
        if let Statement::Method {
            receiver: Some(rv), ..
        } = s
            && let Some(Val::Ref(r)) = vals.get(rv.index()).copied()
            && !r.is_null()
            && !self.is_value_like(r)
            && self.mocked_type(r).is_none()
        {
            o.receiver_inspectors = self.inspect(r);
        }
        o
    }

    /// The statement whose object a method call returned: its receiver, else the first
    /// argument that is the very same object; `None` for other statements, `null`, and
    /// values (strings, boxes, enums, arrays: their identity is no check an assertion makes).
    fn held_before(&self, s: &Statement, r: jobject, vals: &[Val]) -> Option<u32> {
        let Statement::Method { receiver, args, .. } = s.unwrapped() else {
            return None;
        };
        if r.is_null() || self.is_value_like(r) {
            return None;
        }
        let jni = self.jni;
        receiver
            .iter()
            .chain(args)
            .find_map(|v| match vals.get(v.index()) {
                Some(Val::Ref(h)) if !h.is_null() && jni.same_object(*h, r) => {
                    u32::try_from(v.index()).ok()
                }
                _ => None,
            })
    }

    /// The state of a call's arguments the call could change in place, by argument position:
    /// an array's contents (named `""`) and the inspectors of other objects — not of strings,
    /// boxes, enums, mocks, `null` or the receiver; each argument once.
    pub(super) fn argument_state(
        &mut self,
        s: &Statement,
        vals: &[Val],
    ) -> Vec<(u32, String, Observed)> {
        let (args, receiver) = match s.unwrapped() {
            Statement::Method { args, receiver, .. } => (args, *receiver),
            Statement::Constructor { args, .. } => (args, None),
            _ => return Vec::new(),
        };
        let mut out = Vec::new();
        for (k, a) in args.iter().enumerate() {
            if Some(*a) == receiver || args[..k].contains(a) {
                continue;
            }
            let Some(Val::Ref(r)) = vals.get(a.index()).copied() else {
                continue;
            };
            if r.is_null() || self.mocked_type(r).is_some() {
                continue;
            }
            let k = k as u32;
            if self.class_name(r).starts_with('[') {
                out.push((k, String::new(), self.observe_object(r)));
            } else if !self.is_value_like(r) {
                out.extend(self.inspect(r).into_iter().map(|(n, v)| (k, n, v)));
            }
        }
        out
    }

    /// The descriptor character of the primitive type of `r`'s class when it is a box.
    fn box_primitive(&self, r: jobject) -> Option<char> {
        let jni = self.jni;
        let (_, k) = self
            .ids
            .boxed
            .iter()
            .find(|(c, _)| jni.is_instance(r, *c))?;
        Some(match k {
            Kind::Boolean => 'Z',
            Kind::Byte => 'B',
            Kind::Char => 'C',
            Kind::Short => 'S',
            Kind::Int => 'I',
            Kind::Long => 'J',
            Kind::Float => 'F',
            Kind::Double => 'D',
            _ => return None,
        })
    }

    /// Strings, enums, boxed primitives and arrays are observed as values, not inspected.
    fn is_value_like(&self, r: jobject) -> bool {
        let jni = self.jni;
        jni.is_instance(r, self.ids.string)
            || jni.is_instance(r, self.ids.enum_cls)
            || self.ids.boxed.iter().any(|(c, _)| jni.is_instance(r, *c))
            || self.class_name(r).starts_with('[')
    }

    fn observe_object(&self, r: jobject) -> Observed {
        let jni = self.jni;
        if r.is_null() {
            return Observed::Null;
        }
        if jni.is_instance(r, self.ids.string) {
            let (text, truncated) = jni.read_string(r, MAX_STRING);
            return Observed::String { text, truncated };
        }
        if jni.is_instance(r, self.ids.enum_cls) {
            let n = raw::reference(jni.call(r, self.ids.enum_name, Kind::Object, &[], false));
            jni.clear_exception();
            let name = if n.is_null() {
                String::new()
            } else {
                jni.read_string(n, MAX_STRING).0
            };
            // The enum's class, not the class of a constant with a body (`Format$2`).
            let declaring = jni.call(r, self.ids.enum_declaring_class, Kind::Object, &[], false);
            jni.clear_exception();
            return Observed::Enum {
                class: self.name_of_class(raw::reference(declaring)),
                name,
            };
        }
        for (c, k) in &self.ids.boxed {
            if jni.is_instance(r, *c) {
                let v = match k {
                    Kind::Boolean => jni.call(r, self.ids.boolean_value, Kind::Boolean, &[], false),
                    Kind::Char => jni.call(r, self.ids.char_value, Kind::Char, &[], false),
                    Kind::Float | Kind::Double => {
                        jni.call(r, self.ids.double_value, Kind::Double, &[], false)
                    }
                    _ => jni.call(r, self.ids.long_value, Kind::Long, &[], false),
                };
                jni.clear_exception();
                return match k {
                    Kind::Boolean => Observed::Boolean(raw::boolean(v)),
                    Kind::Char => Observed::Char(raw::character(v)),
                    Kind::Float | Kind::Double => Observed::Floating(JDouble(
                        raw::floating(Kind::Double, v).unwrap_or(f64::NAN),
                    )),
                    _ => Observed::Integer(raw::integral(Kind::Long, v).unwrap_or(0)),
                };
            }
        }
        let class = self.class_name(r);
        if class.starts_with('[') {
            let length = jni.array_length(r);
            let elements = self.array_elements(r, &class, length);
            return Observed::Array {
                class,
                length: length as u32,
                elements,
            };
        }
        Observed::Object { class }
    }

    /// The elements of an array of primitives or strings with at most
    /// [`MAX_ARRAY_ELEMENTS`] elements.
    fn array_elements(&self, r: jobject, class: &str, length: usize) -> Option<Vec<Observed>> {
        let jni = self.jni;
        if length > MAX_ARRAY_ELEMENTS {
            return None;
        }
        let kind = match class {
            "[Z" => Kind::Boolean,
            "[B" => Kind::Byte,
            "[C" => Kind::Char,
            "[S" => Kind::Short,
            "[I" => Kind::Int,
            "[J" => Kind::Long,
            "[F" => Kind::Float,
            "[D" => Kind::Double,
            "[Ljava.lang.String;" => Kind::Object,
            _ => return None,
        };
        let mut out = Vec::with_capacity(length);
        for i in 0..length {
            let i = i as jsize;
            out.push(match kind {
                Kind::Object => {
                    let e = jni.array_element(r, i);
                    if e.is_null() {
                        Observed::Null
                    } else {
                        let (text, truncated) = jni.read_string(e, MAX_STRING);
                        jni.delete_local(e);
                        Observed::String { text, truncated }
                    }
                }
                Kind::Boolean => Observed::Boolean(raw::boolean(jni.array_load(r, kind, i))),
                Kind::Char => Observed::Char(raw::character(jni.array_load(r, kind, i))),
                Kind::Float | Kind::Double => Observed::Floating(JDouble(
                    raw::floating(kind, jni.array_load(r, kind, i)).unwrap_or(f64::NAN),
                )),
                _ => {
                    Observed::Integer(raw::integral(kind, jni.array_load(r, kind, i)).unwrap_or(0))
                }
            });
        }
        Some(out)
    }

    fn inspect(&mut self, r: jobject) -> Vec<(String, Observed)> {
        let jni = self.jni;
        let class = self.class_name(r);
        if !self.inspectors.contains_key(&class) {
            let mut list = Vec::new();
            let c = jni.class_of(r);
            let arr = raw::reference(jni.call(
                self.ids.host,
                self.ids.host_inspectors,
                Kind::Object,
                &[jvalue { l: c }],
                true,
            ));
            jni.clear_exception();
            if !arr.is_null() {
                for i in 0..jni.array_length(arr) {
                    let s = jni.array_element(arr, i as jsize);
                    if s.is_null() {
                        continue;
                    }
                    let sig = jni.read_string(s, 1024).0;
                    jni.delete_local(s);
                    // A private field (`#name:descriptor`), read through JNI.
                    if let Some((name, desc)) =
                        sig.strip_prefix('#').and_then(|f| f.split_once(':'))
                    {
                        let f = jni.field_id(c, &cstring(name), &cstring(desc), false);
                        let Ok(ty) = FieldType::parse(desc) else {
                            continue;
                        };
                        if f.is_null() {
                            jni.clear_exception();
                            continue;
                        }
                        list.push(Inspector {
                            name: sig.clone(),
                            method: std::ptr::null_mut(),
                            field: Some(f),
                            kind: Kind::of(&ty),
                            checked: true,
                            stand_in: None,
                        });
                        continue;
                    }
                    let Some(open) = sig.find('(') else { continue };
                    let (name, desc) = sig.split_at(open);
                    let kind = MethodDescriptor::parse(desc)
                        .ok()
                        .and_then(|d| d.ret)
                        .as_ref()
                        .map_or(Kind::Void, Kind::of);
                    // A getter the controlled environment stands in for (`File.length()`)
                    // asks the stand-in, as the emitted test's patched assertion will.
                    let internal = class.replace('.', "/");
                    if let Some(to) = self.fetcher.control.instance_target(&internal, name, desc) {
                        if let Ok(m) = self.method(&to.owner, &to.name, &to.descriptor, true) {
                            let (owner, id) = (m.class, m.id);
                            list.push(Inspector {
                                name: name.to_string(),
                                method: id,
                                field: None,
                                kind,
                                checked: false,
                                stand_in: Some(owner),
                            });
                        }
                        continue;
                    }
                    let m = jni.method_id(c, &cstring(name), &cstring(desc), false);
                    if m.is_null() {
                        jni.clear_exception();
                        continue;
                    }
                    list.push(Inspector {
                        name: name.to_string(),
                        method: m,
                        field: None,
                        kind,
                        checked: false,
                        stand_in: None,
                    });
                }
                jni.delete_local(arr);
            }
            jni.delete_local(c);
            self.inspectors.insert(class.clone(), list);
        }
        let list = self.inspectors.get(&class).cloned().unwrap_or_default();
        // An inspector not yet known to leave the object alone is called twice in a row: one
        // whose value moves (a `getNext()` handing out numbers) changes the object, is no
        // inspector, and is dropped for the class; the test is then run again (see `serve`),
        // so that its result is what the test alone does. Both calls throwing proves nothing:
        // it stays unchecked.
        let mut out = Vec::with_capacity(list.len());
        let mut kept = Vec::with_capacity(list.len());
        let mut changed = false;
        for mut ins in list {
            let first = self.call_inspector(r, &ins);
            if !ins.checked {
                let again = self.call_inspector(r, &ins);
                if first != again {
                    self.inspection_changed = true;
                    changed = true;
                    continue;
                }
                if first.is_some() {
                    ins.checked = true;
                    changed = true;
                }
            }
            if let Some(o) = first {
                out.push((ins.name.clone(), o));
            }
            kept.push(ins);
        }
        if changed {
            self.inspectors.insert(class, kept);
        }
        out
    }

    /// Calls one inspector on `r`: `None` when it throws.
    fn call_inspector(&mut self, r: jobject, ins: &Inspector) -> Option<Observed> {
        let jni = self.jni;
        let v = match (ins.field, ins.stand_in) {
            (Some(f), _) => jni.get_field(r, f, ins.kind, false),
            (None, Some(owner)) => jni.call(owner, ins.method, ins.kind, &[jvalue { l: r }], true),
            (None, None) => jni.call(r, ins.method, ins.kind, &[], false),
        };
        if let Some(t) = jni.take_exception() {
            jni.delete_local(t);
            return None;
        }
        Some(if ins.kind == Kind::Object {
            let obj = raw::reference(v);
            let o = self.observe_object(obj);
            jni.delete_local(obj);
            o
        } else {
            observe_prim(ins.kind, v)
        })
    }
}

/// An inspector of a class: a public no-argument getter whose result observation records.
#[derive(Debug, Clone)]
pub(super) struct Inspector {
    name: String,
    method: jmethodID,
    /// For a private field (`#name:descriptor`), read instead of calling `method`.
    field: Option<jfieldID>,
    kind: Kind,
    /// Called twice in a row on some object with the same result both times.
    checked: bool,
    /// The class of the controlled environment's static stand-in `method` is, which takes
    /// the object first (`VirtualFiles.length(File)` for `File.length()`).
    stand_in: Option<jclass>,
}

/// Whether the value `s` defines is declared as a box type (`Integer`, not `Object`).
fn declared_box(s: &Statement) -> bool {
    matches!(s.value_type(), Ok(Some(FieldType::Object(n))) if FieldType::unboxed(&n).is_some())
}

fn observe_prim(k: Kind, v: jvalue) -> Observed {
    match k {
        Kind::Boolean => Observed::Boolean(raw::boolean(v)),
        Kind::Char => Observed::Char(raw::character(v)),
        Kind::Float | Kind::Double => {
            Observed::Floating(JDouble(raw::floating(k, v).unwrap_or(f64::NAN)))
        }
        _ => Observed::Integer(raw::integral(k, v).unwrap_or(0)),
    }
}
