//! Trace probes for recording a real run (carving, `ferrosuite record`): every call of a method of
//! an included class is reported with its receiver, arguments and outcome, together with the
//! calls it makes on objects of other classes and the static fields it reads.
//!
//! A method `int m(String s)` of an included class becomes two methods:
//!
//! ```text
//! int m(String s) {                       // same name, flags and attributes: callers see no change
//!     if (!Recorder.live(ID)) return m$ferrosuite(s);
//!     int t = Recorder.enter(ID, this, new Object[] {s});
//!     try { int r = m$ferrosuite(s); Recorder.exit(Integer.valueOf(r), t); return r; }
//!     catch (Throwable e) { Recorder.thrown(e, t); throw e; }
//! }
//! private synthetic int m$ferrosuite(String s) { ...the original body, with the call sites below }
//! ```
//!
//! The wrapper is generated whole (with its own stack-map frames), so the original body keeps
//! its code and frames; `live` is false once the method has been recorded often enough, and then
//! a call costs one static call and one branch more. Constructors cannot be wrapped: they report
//! their arguments at entry (`enterInit`) and the finished object before each `return`
//! (`exitInit`); a constructor that throws leaves its frame to be discarded by the caller's exit.
//!
//! In the bodies of included methods:
//! - `invokevirtual`/`invokeinterface` of a method of another class (not the class itself, not
//!   its direct superclass, not an array, not `java.lang.Object`) becomes `invokestatic` of a
//!   private bridge `__ferrosuite$call$K(Owner, args…)` that asks whether the receiver is a
//!   collaborator of a recorded call on this thread (`watched`: an object that reached a recorded
//!   call through its receiver or arguments) and then reports the call (`callOut`), makes it, and
//!   reports its result (`callReturn`) or exception (`callThrew`);
//! - `getstatic` of a field of an included class (but a final field of the class itself) is
//!   followed by `staticRead(value, FIELD)`.
//!
//! Before that, the class's reads of the clock, randomness, files and console go through the
//! stand-ins of [`observe`](super::observe), which report them as events too.
//!
//! Every instrumented class gets a `private transient synthetic long __ferrosuite$id`, the
//! runtime's identity for its objects (so that a receiver can name the recorded construction
//! that built it); private and transient members leave the default `serialVersionUID` unchanged.
//! Interfaces, annotations, module descriptors, synthetic and bridge methods and class
//! initialisers are left as they are. Method, call-target and field ids index the
//! [`RecordMap`], which the recording process keeps for the store.

use std::collections::HashMap;

use crate::attributes::{Attribute, AttributeBody, Code, ExceptionHandler};
use crate::classfile::{ClassFile, Member, access};
use crate::constant_pool::ConstantPool;
use crate::descriptor::{FieldType, MethodDescriptor};
use crate::error::{Error, Result, ResultExt};
use crate::insn::{Insn, encode_at};
use crate::instrument::editor::{CodeEditor, Landing};
use crate::instrument::initial_frame;
use crate::instrument::probes::push_int;
use crate::opcodes as op;
use crate::stackmap::{FrameState, VType, encode_frames};

/// The runtime class instrumented code calls.
pub const RECORDER: &str = "org/ferrosuite/rt/rec/Recorder";
/// The identity field added to instrumented classes.
pub const ID_FIELD: &str = "__ferrosuite$id";
/// Suffix of the method that keeps a wrapped method's original body.
pub const INNER_SUFFIX: &str = "$ferrosuite";
/// Prefix of the call-site bridges.
pub const BRIDGE_PREFIX: &str = "__ferrosuite$call$";

const LLOAD: u8 = 0x16;
const FLOAD: u8 = 0x17;
const DLOAD: u8 = 0x18;
const AASTORE: u8 = 0x53;
const LRETURN: u8 = 0xad;
const FRETURN: u8 = 0xae;
const DRETURN: u8 = 0xaf;
const ARETURN: u8 = 0xb0;

/// Which classes are recorded: names (dotted or internal) starting with an include prefix and
/// with no exclude prefix. With no include prefix, every class but the JDK's and ferrosuite's.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RecordFilter {
    /// Prefixes of recorded classes.
    pub include: Vec<String>,
    /// Prefixes of classes never recorded.
    pub exclude: Vec<String>,
}

/// Packages never recorded: the JDK's and the recorder's own.
pub const NEVER_RECORDED: &[&str] = &[
    "java/",
    "javax/",
    "jdk/",
    "sun/",
    "com/sun/",
    "org/ferrosuite/",
    "org/junit/",
    "org/mockito/",
];

impl RecordFilter {
    /// Whether `class` (internal or dotted name) is recorded.
    #[must_use]
    pub fn accepts(&self, class: &str) -> bool {
        let name = class.replace('.', "/");
        let norm = |p: &String| p.replace('.', "/");
        if NEVER_RECORDED.iter().any(|p| name.starts_with(p)) {
            return false;
        }
        if self.exclude.iter().any(|p| name.starts_with(&norm(p))) {
            return false;
        }
        self.include.is_empty() || self.include.iter().any(|p| name.starts_with(&norm(p)))
    }
}

/// A recorded method or constructor.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecordedMethod {
    /// Internal name of the declaring class.
    pub class: String,
    /// Name (`<init>` for constructors).
    pub name: String,
    /// Descriptor.
    pub descriptor: String,
    /// Static method.
    pub is_static: bool,
}

/// The method a call-site bridge calls.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct CallTarget {
    /// Internal name of the owner the call names.
    pub owner: String,
    /// Method name.
    pub name: String,
    /// Descriptor.
    pub descriptor: String,
    /// Called through `invokeinterface`.
    pub interface: bool,
}

/// A static field whose reads are reported.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct StaticField {
    /// Internal name of the owner the access names.
    pub owner: String,
    /// Field name.
    pub name: String,
    /// Descriptor.
    pub descriptor: String,
}

/// What the ids in recorded events mean; ids are indices, stable for one recording.
#[derive(Debug, Clone, Default)]
pub struct RecordMap {
    /// Recorded methods (ids of `enter`/`enterInit`).
    pub methods: Vec<RecordedMethod>,
    /// Call targets (ids of `callOut`).
    pub targets: Vec<CallTarget>,
    /// Static fields (ids of `staticRead`).
    pub fields: Vec<StaticField>,
    /// Classes and methods left as they were: (class, method or empty for the whole class,
    /// reason).
    pub skipped: Vec<(String, String, String)>,
    /// Classes instrumented.
    pub classes: usize,
}

/// Inserts the trace probes; keeps the [`RecordMap`] across classes.
#[derive(Debug, Default)]
pub struct RecordInstrumenter {
    filter: RecordFilter,
    map: RecordMap,
    target_ids: HashMap<CallTarget, u32>,
    field_ids: HashMap<StaticField, u32>,
}

/// Where a type's values load, return and box.
fn load_op(t: &FieldType) -> u8 {
    match t {
        FieldType::Long => LLOAD,
        FieldType::Float => FLOAD,
        FieldType::Double => DLOAD,
        FieldType::Object(_) | FieldType::Array(_) => op::ALOAD,
        _ => op::ILOAD,
    }
}

fn return_op(t: Option<&FieldType>) -> u8 {
    match t {
        None => op::RETURN,
        Some(FieldType::Long) => LRETURN,
        Some(FieldType::Float) => FRETURN,
        Some(FieldType::Double) => DRETURN,
        Some(FieldType::Object(_) | FieldType::Array(_)) => ARETURN,
        Some(_) => op::IRETURN,
    }
}

fn local(opc: u8, index: u16) -> Insn<usize> {
    Insn::Local {
        op: opc,
        index,
        wide: index > 255,
    }
}

/// `T.valueOf(t)` for a primitive, nothing for a reference.
fn boxing(cp: &mut ConstantPool, t: &FieldType) -> Result<Option<Insn<usize>>> {
    let Some(class) = t.boxed_class() else {
        return Ok(None);
    };
    let desc = format!("({t})L{class};");
    Ok(Some(Insn::Cp {
        op: op::INVOKESTATIC,
        index: cp.add_method_ref(class, "valueOf", &desc, false)?,
    }))
}

fn call_recorder(cp: &mut ConstantPool, name: &str, desc: &str) -> Result<Insn<usize>> {
    Ok(Insn::Cp {
        op: op::INVOKESTATIC,
        index: cp.add_method_ref(RECORDER, name, desc, false)?,
    })
}

/// `new Object[] {boxed params…}` from locals starting at `first` (pushes 1; needs 5 more).
fn args_array(
    cp: &mut ConstantPool,
    params: &[FieldType],
    first: u16,
    out: &mut Vec<Insn<usize>>,
) -> Result<()> {
    out.push(push_int(cp, params.len() as i32)?);
    out.push(Insn::Cp {
        op: op::ANEWARRAY,
        index: cp.add_class("java/lang/Object")?,
    });
    let mut slot = first;
    for (i, p) in params.iter().enumerate() {
        out.push(Insn::Simple(op::DUP));
        out.push(push_int(cp, i as i32)?);
        out.push(local(load_op(p), slot));
        if let Some(b) = boxing(cp, p)? {
            out.push(b);
        }
        out.push(Insn::Simple(AASTORE));
        slot += p.slots();
    }
    Ok(())
}

/// Loads `params` from locals starting at `first`.
fn load_all(params: &[FieldType], first: u16, out: &mut Vec<Insn<usize>>) {
    let mut slot = first;
    for p in params {
        out.push(local(load_op(p), slot));
        slot += p.slots();
    }
}

/// Lays out straight code whose branch targets are indices into `insns`; returns the bytes and
/// each instruction's offset (plus the end).
fn assemble(insns: &[Insn<usize>]) -> Result<(Vec<u8>, Vec<u32>)> {
    let mut offsets = Vec::with_capacity(insns.len() + 1);
    let mut at = 0u32;
    for i in insns {
        offsets.push(at);
        at += i.size_at(at);
    }
    offsets.push(at);
    let mut out = Vec::with_capacity(at as usize);
    for (k, i) in insns.iter().enumerate() {
        let here = offsets[k];
        encode_at(&mut out, i, here, |t| {
            offsets
                .get(*t)
                .map(|o| *o as i32 - here as i32)
                .ok_or_else(|| Error::Rewrite(format!("no instruction #{t} to jump to")))
        })?;
    }
    if out.len() > 65_535 {
        return Err(Error::Rewrite(
            "generated code longer than 65535 bytes".into(),
        ));
    }
    Ok((out, offsets))
}

/// A generated method body: code, the try range `[start, end)` and handler (instruction
/// indices), and the frames at instruction indices.
struct Body {
    insns: Vec<Insn<usize>>,
    try_range: (usize, usize, usize),
    frames: Vec<(usize, FrameState)>,
    max_stack: u16,
    max_locals: u16,
}

impl Body {
    fn into_code(self, cp: &mut ConstantPool, initial: &FrameState, frames: bool) -> Result<Code> {
        let (bytes, offsets) = assemble(&self.insns)?;
        let (s, e, h) = self.try_range;
        let mut attributes = Vec::new();
        if frames {
            let abs: Vec<(u32, FrameState)> = self
                .frames
                .into_iter()
                .map(|(i, f)| (offsets[i], f))
                .collect();
            attributes.push(Attribute {
                name: cp.add_utf8("StackMapTable")?,
                body: AttributeBody::StackMapTable(encode_frames(initial, &abs)?),
            });
        }
        Ok(Code {
            max_stack: self.max_stack,
            max_locals: self.max_locals,
            code: bytes,
            exception_table: vec![ExceptionHandler {
                start_pc: offsets[s] as u16,
                end_pc: offsets[e] as u16,
                handler_pc: offsets[h] as u16,
                catch_type: cp.add_class("java/lang/Throwable")?,
            }],
            attributes,
        })
    }
}

/// The shared shape of the wrapper and the bridge: `pre` decides whether to report (a `Z` on
/// the stack), `enter` pushes the token (an int, kept in local `token`), `call` makes the real
/// call, and the result or exception is reported through `exit_name`/`threw_name`.
struct Shape<'a> {
    params: &'a [FieldType],
    first_param: u16,
    ret: Option<&'a FieldType>,
    initial: FrameState,
    live: Vec<Insn<usize>>,
    enter: Vec<Insn<usize>>,
    call: Vec<Insn<usize>>,
    exit_name: &'a str,
    threw_name: &'a str,
}

fn report_and_call(cp: &mut ConstantPool, s: Shape<'_>) -> Result<Body> {
    let param_slots: u16 = s.params.iter().map(FieldType::slots).sum();
    let token = s.first_param + param_slots;
    let mut insns = s.live;
    let branch_at = insns.len();
    insns.push(Insn::Branch {
        op: op::IFEQ,
        target: 0, // patched below
    });
    insns.extend(s.enter);
    insns.push(local(op::ISTORE, token));
    let try_start = insns.len();
    insns.extend(s.call.iter().cloned());
    let try_end = insns.len();
    let ret_op = return_op(s.ret);
    match s.ret {
        None => insns.push(Insn::Simple(op::ACONST_NULL)),
        Some(t) => {
            insns.push(Insn::Simple(if t.slots() == 2 {
                op::DUP2
            } else {
                op::DUP
            }));
            if let Some(b) = boxing(cp, t)? {
                insns.push(b);
            }
        }
    }
    insns.push(local(op::ILOAD, token));
    insns.push(call_recorder(cp, s.exit_name, "(Ljava/lang/Object;I)V")?);
    insns.push(Insn::Simple(ret_op));
    let handler = insns.len();
    insns.push(Insn::Simple(op::DUP));
    insns.push(local(op::ILOAD, token));
    insns.push(call_recorder(
        cp,
        s.threw_name,
        "(Ljava/lang/Throwable;I)V",
    )?);
    insns.push(Insn::Simple(op::ATHROW));
    let fast = insns.len();
    insns[branch_at] = Insn::Branch {
        op: op::IFEQ,
        target: fast,
    };
    insns.extend(s.call);
    insns.push(Insn::Simple(ret_op));
    let mut handler_frame = s.initial.clone();
    handler_frame.locals.push(VType::Integer);
    handler_frame.stack = vec![VType::Object(cp.add_class("java/lang/Throwable")?)];
    let fast_frame = s.initial.clone();
    let max_locals = token + 1;
    // Receiver, params and the boxed-argument array building (array, array, index, 2-slot value).
    let max_stack = (param_slots + 1).max(8) + 4;
    let frames = vec![(handler, handler_frame), (fast, fast_frame)];
    Ok(Body {
        insns,
        try_range: (try_start, try_end, handler),
        frames,
        max_stack,
        max_locals,
    })
}

impl RecordInstrumenter {
    /// An instrumenter recording the classes `filter` accepts.
    #[must_use]
    pub fn new(filter: RecordFilter) -> Self {
        Self {
            filter,
            ..Self::default()
        }
    }

    /// The filter.
    #[must_use]
    pub fn filter(&self) -> &RecordFilter {
        &self.filter
    }

    /// The ids given out so far.
    #[must_use]
    pub fn map(&self) -> &RecordMap {
        &self.map
    }

    /// Notes a class (empty `member`) or method left unrecorded, with the reason.
    pub fn note_skipped(&mut self, class: &str, member: &str, reason: &str) {
        self.map
            .skipped
            .push((class.to_string(), member.to_string(), reason.to_string()));
    }

    fn target_id(&mut self, t: CallTarget) -> u32 {
        let next = self.map.targets.len() as u32;
        *self.target_ids.entry(t.clone()).or_insert_with(|| {
            self.map.targets.push(t);
            next
        })
    }

    fn field_id(&mut self, f: StaticField) -> u32 {
        let next = self.map.fields.len() as u32;
        *self.field_ids.entry(f.clone()).or_insert_with(|| {
            self.map.fields.push(f);
            next
        })
    }

    /// The class with trace probes, or `None` when it is not recorded (filtered out, an
    /// interface, already instrumented).
    ///
    /// # Errors
    /// When the class is malformed; the error names the class and method.
    pub fn instrument(&mut self, input: &ClassFile) -> Result<Option<ClassFile>> {
        let name = input.name()?.into_owned();
        if !self.filter.accepts(&name)
            || input.is(access::INTERFACE)
            || input.is(access::MODULE)
            || input
                .fields
                .iter()
                .any(|f| input.member_name(f).is_ok_and(|n| n == ID_FIELD))
        {
            return Ok(None);
        }
        let mut class = input.clone();
        // The environment the class reads is watched where the rewrite succeeds; a class it
        // fails on is recorded all the same, without it.
        let mut watched = class.clone();
        match crate::instrument::observe::observe(&mut watched, &name) {
            Ok(_) => class = watched,
            Err(e) => self.note_skipped(&name, "<environment>", &format!("not watched: {e}")),
        }
        let result = self.instrument_class(&mut class, &name);
        result.context_with(|| name.clone())?;
        self.map.classes += 1;
        Ok(Some(class))
    }

    fn instrument_class(&mut self, class: &mut ClassFile, name: &str) -> Result<()> {
        let super_name = class.super_name()?.map(std::borrow::Cow::into_owned);
        let frames_version = class.major_version >= 50;
        let own_finals: Vec<String> = class
            .fields
            .iter()
            .filter(|f| f.is(access::STATIC) && f.is(access::FINAL))
            .filter_map(|f| class.member_name(f).ok().map(std::borrow::Cow::into_owned))
            .collect();
        let mut bridges: Vec<(String, u8, CallTarget)> = Vec::new();
        let mut bridge_names: HashMap<(u8, CallTarget), String> = HashMap::new();
        let mut added: Vec<Member> = Vec::new();
        let count = class.methods.len();
        for k in 0..count {
            let m = &class.methods[k];
            let flags = m.access_flags;
            let mname = class.member_name(m)?.into_owned();
            let mdesc = class.member_descriptor(m)?.into_owned();
            if m.code().is_none() || mname == "<clinit>" {
                continue;
            }
            if flags & (access::SYNTHETIC | access::BRIDGE) != 0 {
                continue;
            }
            let is_static = flags & access::STATIC != 0;
            let ctx = || format!("{mname}{mdesc}");
            // The body: call sites and static reads.
            let mut body = self
                .edit_body(
                    class,
                    k,
                    name,
                    super_name.as_deref(),
                    &own_finals,
                    &mut bridges,
                    &mut bridge_names,
                )
                .context_with(ctx)?;
            let id = self.map.methods.len() as u32;
            let desc = MethodDescriptor::parse(&mdesc)?;
            if mname == "<init>" {
                let helper_name = format!("__ferrosuite$init${k}");
                let helper = Self::constructor_probes(
                    class,
                    &mut body,
                    &desc,
                    id,
                    name,
                    &mdesc,
                    &helper_name,
                    frames_version,
                )
                .context_with(ctx)?;
                added.push(helper);
                self.map.methods.push(RecordedMethod {
                    class: name.to_string(),
                    name: mname,
                    descriptor: mdesc,
                    is_static: false,
                });
                set_code(&mut class.methods[k], body);
                continue;
            }
            let inner_name = format!("{mname}{INNER_SUFFIX}");
            let cp = &mut class.constant_pool;
            let initial = initial_frame(cp, name, &mname, &mdesc, is_static)?;
            let first = u16::from(!is_static);
            let inner_ref = cp.add_method_ref(name, &inner_name, &mdesc, false)?;
            let mut call = Vec::new();
            if !is_static {
                call.push(local(op::ALOAD, 0));
            }
            load_all(&desc.params, first, &mut call);
            call.push(Insn::Cp {
                op: if is_static {
                    op::INVOKESTATIC
                } else {
                    op::INVOKESPECIAL
                },
                index: inner_ref,
            });
            let live = vec![push_int(cp, id as i32)?, call_recorder(cp, "live", "(I)Z")?];
            let mut enter = vec![push_int(cp, id as i32)?];
            enter.push(if is_static {
                Insn::Simple(op::ACONST_NULL)
            } else {
                local(op::ALOAD, 0)
            });
            args_array(cp, &desc.params, first, &mut enter)?;
            enter.push(call_recorder(
                cp,
                "enter",
                "(ILjava/lang/Object;[Ljava/lang/Object;)I",
            )?);
            let wrapper = report_and_call(
                cp,
                Shape {
                    params: &desc.params,
                    first_param: first,
                    ret: desc.ret.as_ref(),
                    initial: initial.clone(),
                    live,
                    enter,
                    call,
                    exit_name: "exit",
                    threw_name: "thrown",
                },
            )?
            .into_code(cp, &initial, frames_version)
            .context_with(ctx)?;
            let inner = Member {
                access_flags: (flags & (access::STATIC | access::STRICT))
                    | access::PRIVATE
                    | access::SYNTHETIC,
                name: cp.add_utf8(&inner_name)?,
                descriptor: cp.add_utf8(&mdesc)?,
                attributes: vec![Attribute {
                    name: cp.add_utf8("Code")?,
                    body: AttributeBody::Code(body),
                }],
            };
            added.push(inner);
            set_code(&mut class.methods[k], wrapper);
            self.map.methods.push(RecordedMethod {
                class: name.to_string(),
                name: mname,
                descriptor: mdesc,
                is_static,
            });
        }
        for (bname, opc, target) in bridges {
            let m = self
                .bridge(class, name, &bname, opc, &target, frames_version)
                .context_with(|| format!("{bname} ({}.{})", target.owner, target.name))?;
            added.push(m);
        }
        class.methods.extend(added);
        let cp = &mut class.constant_pool;
        class.fields.push(Member {
            access_flags: access::PRIVATE | access::TRANSIENT | access::SYNTHETIC,
            name: cp.add_utf8(ID_FIELD)?,
            descriptor: cp.add_utf8("J")?,
            attributes: Vec::new(),
        });
        Ok(())
    }

    /// Rewrites the call sites and static reads of method `k`; returns its new code.
    #[allow(clippy::too_many_arguments)]
    fn edit_body(
        &mut self,
        class: &mut ClassFile,
        k: usize,
        name: &str,
        super_name: Option<&str>,
        own_finals: &[String],
        bridges: &mut Vec<(String, u8, CallTarget)>,
        bridge_names: &mut HashMap<(u8, CallTarget), String>,
    ) -> Result<Code> {
        let m = &class.methods[k];
        let mname = class.member_name(m)?.into_owned();
        let mdesc = class.member_descriptor(m)?.into_owned();
        let is_static = m.is(access::STATIC);
        let code = m
            .code()
            .cloned()
            .ok_or_else(|| Error::Rewrite("no code".into()))?;
        let mut ed = CodeEditor::new(&code)?;
        let mut changed = false;
        for i in 0..ed.len() {
            let Some((_, insn)) = ed.insn(i) else {
                continue;
            };
            let insn = insn.clone();
            let call = match &insn {
                Insn::Cp {
                    op: op::INVOKEVIRTUAL,
                    index,
                } => Some((op::INVOKEVIRTUAL, *index)),
                Insn::InvokeInterface { index, .. } => Some((op::INVOKEINTERFACE, *index)),
                _ => None,
            };
            if let Some((opc, index)) = call {
                let r = class.constant_pool.member_ref(index)?;
                let target = CallTarget {
                    owner: r.class.into_owned(),
                    name: r.name.into_owned(),
                    descriptor: r.descriptor.into_owned(),
                    interface: r.interface,
                };
                if target.owner == name
                    || Some(target.owner.as_str()) == super_name
                    || target.owner.starts_with('[')
                    || target.owner == "java/lang/Object"
                    || target.owner.starts_with("java/lang/invoke/")
                {
                    continue;
                }
                let key = (opc, target.clone());
                let bname = if let Some(b) = bridge_names.get(&key) {
                    b.clone()
                } else {
                    let b = format!("{BRIDGE_PREFIX}{}", bridge_names.len());
                    bridge_names.insert(key, b.clone());
                    bridges.push((b.clone(), opc, target.clone()));
                    b
                };
                let bdesc = bridge_descriptor(&target);
                let index = class
                    .constant_pool
                    .add_method_ref(name, &bname, &bdesc, false)?;
                ed.replace_insn(
                    i,
                    Insn::Cp {
                        op: op::INVOKESTATIC,
                        index,
                    },
                )?;
                changed = true;
                continue;
            }
            if let Insn::Cp {
                op: op::GETSTATIC,
                index,
            } = insn
            {
                let r = class.constant_pool.member_ref(index)?;
                let field = StaticField {
                    owner: r.class.into_owned(),
                    name: r.name.into_owned(),
                    descriptor: r.descriptor.into_owned(),
                };
                if !self.filter.accepts(&field.owner)
                    || (field.owner == name && own_finals.contains(&field.name))
                {
                    continue;
                }
                let t = FieldType::parse(&field.descriptor)?;
                let fid = self.field_id(field);
                let cp = &mut class.constant_pool;
                let mut code = vec![
                    insn.clone(),
                    Insn::Simple(if t.slots() == 2 { op::DUP2 } else { op::DUP }),
                ];
                if let Some(b) = boxing(cp, &t)? {
                    code.push(b);
                }
                code.push(push_int(cp, fid as i32)?);
                code.push(call_recorder(cp, "staticRead", "(Ljava/lang/Object;I)V")?);
                ed.replace(i, code, 3)?;
                changed = true;
            }
        }
        if !changed {
            return Ok(code);
        }
        let cp = &mut class.constant_pool;
        let initial = if code.stack_map().is_some() {
            initial_frame(cp, name, &mname, &mdesc, is_static)?
        } else {
            FrameState::default()
        };
        let needs = class.major_version >= 51 || code.stack_map().is_some();
        ed.finish(&code, &initial, needs)
    }

    /// Adds a call of the entry helper (`__ferrosuite$init$K`, returned) at a constructor's start
    /// and `exitInit` before each `return`.
    #[allow(clippy::too_many_arguments)]
    fn constructor_probes(
        class: &mut ClassFile,
        body: &mut Code,
        desc: &MethodDescriptor,
        id: u32,
        name: &str,
        mdesc: &str,
        helper_name: &str,
        frames_version: bool,
    ) -> Result<Member> {
        let helper = init_helper(class, name, helper_name, desc, id, frames_version)?;
        let cp = &mut class.constant_pool;
        let hdesc = format!("{}V", &mdesc[..=mdesc.rfind(')').unwrap_or(0)]);
        let href = cp.add_method_ref(name, helper_name, &hdesc, false)?;
        let mut ed = CodeEditor::new(body)?;
        let mut entry = Vec::new();
        load_all(&desc.params, 1, &mut entry);
        entry.push(Insn::Cp {
            op: op::INVOKESTATIC,
            index: href,
        });
        ed.insert_before(0, entry, Landing::AfterInserted, desc.param_slots())?;
        for i in 0..ed.len() {
            if ed.insn(i).is_some_and(|(_, x)| x.opcode() == op::RETURN) {
                let exit = vec![
                    local(op::ALOAD, 0),
                    push_int(cp, id as i32)?,
                    call_recorder(cp, "exitInit", "(Ljava/lang/Object;I)V")?,
                ];
                ed.insert_before(i, exit, Landing::OnInserted, 2)?;
            }
        }
        let initial = if body.stack_map().is_some() {
            initial_frame(cp, name, "<init>", mdesc, false)?
        } else {
            FrameState::default()
        };
        let needs = class.major_version >= 51 || body.stack_map().is_some();
        *body = ed.finish(body, &initial, needs)?;
        Ok(helper)
    }

    /// `private static synthetic R __ferrosuite$call$K(Owner o, args…)`: reports and makes the call.
    fn bridge(
        &mut self,
        class: &mut ClassFile,
        name: &str,
        bname: &str,
        opc: u8,
        target: &CallTarget,
        frames: bool,
    ) -> Result<Member> {
        let tid = self.target_id(target.clone());
        let desc = MethodDescriptor::parse(&target.descriptor)?;
        let bdesc = bridge_descriptor(target);
        let cp = &mut class.constant_pool;
        let initial = initial_frame(cp, name, bname, &bdesc, true)?;
        let mut call = vec![local(op::ALOAD, 0)];
        load_all(&desc.params, 1, &mut call);
        let mref = cp.add_method_ref(
            &target.owner,
            &target.name,
            &target.descriptor,
            target.interface,
        )?;
        call.push(if opc == op::INVOKEINTERFACE {
            Insn::InvokeInterface {
                index: mref,
                count: (desc.param_slots() + 1) as u8,
                zero: 0,
            }
        } else {
            Insn::Cp {
                op: op::INVOKEVIRTUAL,
                index: mref,
            }
        });
        let live = vec![
            local(op::ALOAD, 0),
            call_recorder(cp, "watched", "(Ljava/lang/Object;)Z")?,
        ];
        let mut enter = vec![push_int(cp, tid as i32)?, local(op::ALOAD, 0)];
        args_array(cp, &desc.params, 1, &mut enter)?;
        enter.push(call_recorder(
            cp,
            "callOut",
            "(ILjava/lang/Object;[Ljava/lang/Object;)I",
        )?);
        let mut all_params = vec![FieldType::Object(target.owner.clone())];
        all_params.extend(desc.params.iter().cloned());
        let code = report_and_call(
            cp,
            Shape {
                params: &all_params,
                first_param: 0,
                ret: desc.ret.as_ref(),
                initial: initial.clone(),
                live,
                enter,
                call,
                exit_name: "callReturn",
                threw_name: "callThrew",
            },
        )?
        .into_code(cp, &initial, frames)?;
        Ok(Member {
            access_flags: access::PRIVATE | access::STATIC | access::SYNTHETIC,
            name: cp.add_utf8(bname)?,
            descriptor: cp.add_utf8(&bdesc)?,
            attributes: vec![Attribute {
                name: cp.add_utf8("Code")?,
                body: AttributeBody::Code(code),
            }],
        })
    }
}

/// `private static synthetic void __ferrosuite$init$K(params…)`: reports a constructor's
/// arguments when it is recorded (`liveInit`), so that the constructor itself boxes nothing.
fn init_helper(
    class: &mut ClassFile,
    name: &str,
    helper_name: &str,
    desc: &MethodDescriptor,
    id: u32,
    frames: bool,
) -> Result<Member> {
    let cp = &mut class.constant_pool;
    let params: String = desc.params.iter().map(FieldType::descriptor).collect();
    let hdesc = format!("({params})V");
    let initial = initial_frame(cp, name, helper_name, &hdesc, true)?;
    let mut insns = vec![
        push_int(cp, id as i32)?,
        call_recorder(cp, "liveInit", "(I)Z")?,
    ];
    let branch = insns.len();
    insns.push(Insn::Branch {
        op: op::IFEQ,
        target: 0,
    });
    insns.push(push_int(cp, id as i32)?);
    args_array(cp, &desc.params, 0, &mut insns)?;
    insns.push(call_recorder(cp, "enterInit", "(I[Ljava/lang/Object;)V")?);
    let end = insns.len();
    insns.push(Insn::Simple(op::RETURN));
    insns[branch] = Insn::Branch {
        op: op::IFEQ,
        target: end,
    };
    let (bytes, offsets) = assemble(&insns)?;
    let mut attributes = Vec::new();
    if frames {
        attributes.push(Attribute {
            name: cp.add_utf8("StackMapTable")?,
            body: AttributeBody::StackMapTable(encode_frames(
                &initial,
                &[(offsets[end], initial.clone())],
            )?),
        });
    }
    let code = Code {
        max_stack: 7,
        max_locals: desc.param_slots(),
        code: bytes,
        exception_table: Vec::new(),
        attributes,
    };
    Ok(Member {
        access_flags: access::PRIVATE | access::STATIC | access::SYNTHETIC,
        name: cp.add_utf8(helper_name)?,
        descriptor: cp.add_utf8(&hdesc)?,
        attributes: vec![Attribute {
            name: cp.add_utf8("Code")?,
            body: AttributeBody::Code(code),
        }],
    })
}

/// `(LOwner;params…)R`: the bridge of a call takes the receiver first.
fn bridge_descriptor(target: &CallTarget) -> String {
    format!("(L{};{}", target.owner, &target.descriptor[1..])
}

fn set_code(m: &mut Member, code: Code) {
    for a in &mut m.attributes {
        if let AttributeBody::Code(c) = &mut a.body {
            *c = code;
            return;
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn filter_accepts_included_and_never_the_jdk() {
        let f = RecordFilter {
            include: vec!["com.example".into()],
            exclude: vec!["com/example/internal".into()],
        };
        assert!(f.accepts("com.example.Foo"));
        assert!(f.accepts("com/example/sub/Bar"));
        assert!(!f.accepts("com/example/internal/X"));
        assert!(!f.accepts("org/other/Y"));
        let all = RecordFilter::default();
        assert!(all.accepts("org/other/Y"));
        assert!(!all.accepts("java/util/List"));
        assert!(!all.accepts("org/ferrosuite/rt/rec/Recorder"));
    }
}
