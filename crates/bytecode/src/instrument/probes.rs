//! The probe catalogue (branch, line, method-entry, loop, comparison and static-write probes),
//! built on the [`CodeEditor`].
//!
//! | probe | inserted before | code | landing |
//! |---|---|---|---|
//! | method entry | offset 0 | `push id; invokestatic enter(I)V` | after |
//! | line | each `LineNumberTable` start | `push id; invokestatic line(I)V` | on probe |
//! | branch | `if<cond> v` | `dup; push op; push slot; invokestatic branch(III)V` | on probe |
//! | branch | `if_icmp<cond> a b` | `dup2; push op; push slot; invokestatic branch2(IIII)V` | on probe |
//! | branch | `ifnull`, `if_acmp<cond>` | reference variants | on probe |
//! | switch | `tableswitch` | `dup; push low; push high; push slot; invokestatic tableSwitch(IIII)V` | on probe |
//! | switch | `lookupswitch` | `dup; ldc "<keys>"; push slot; invokestatic lookupSwitch(ILjava/lang/String;I)V` | on probe |
//! | loop | backward jumps | `push id; invokestatic loop(I)V` (counts, aborts past the limit) | on probe |
//! | static write | `putstatic` | `push class id; invokestatic staticWrite(I)V` | on probe |
//! | static write | `getstatic` of an array or object that can change ([`holds_mutable`]) | `push class id; invokestatic staticWrite(I)V` | on probe |
//!
//! Testability transformations: `lcmp`, `fcmpl/g`, `dcmpl/g` directly followed by an `if<cond>`
//! are replaced by static calls with the same stack effect that return the sign of the comparison
//! (so the jump goes the same way) with a magnitude that encodes the distance, which the branch
//! probe on the `if` then sees. Calls of `String.equals`, `equalsIgnoreCase`, `startsWith`,
//! `endsWith`, `contains` and `isEmpty` get a stack-neutral probe before them that computes a
//! graded distance (edit distance, character distance) and leaves it for the branch probe of an
//! `ifeq`/`ifne` that directly consumes the boolean (`branchBool`).
//!
//! The runtime behind `branch2`, the comparison replacements and the string probes also keeps
//! the first operands each test compares (`Probe.seen*`: 32 `int`s, 8 `long`s, 8 floating
//! values, 16 distinct strings): the execution host reports them and the search seeds value
//! generation with them. This needs no code of its own in the instrumented method.
//!
//! The static reset adds `__ferrosuite_reset()V`: default values for the class's static fields,
//! then a copy of the original `<clinit>`. Static finals assigned there are made non-final (the
//! JVM forbids `putstatic` on finals outside `<clinit>`); compile-time constants,
//! `serialVersionUID` and `serialPersistentFields` stay final, and the copy discards writes to them.
//!
//! A method whose rewritten code would break a class-file limit keeps its original code and is
//! listed with the reason in the probe map.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use crate::attributes::{Attribute, AttributeBody, Code};
use crate::classfile::{ClassFile, Member, access};
use crate::classpath::ClassPath;
use crate::constant_pool::{ConstantPool, CpIndex};
use crate::descriptor::FieldType;
use crate::error::{Error, Result, ResultExt};
use crate::hierarchy;
use crate::insn::Insn;
use crate::instrument::editor::{CodeEditor, Landing};
use crate::instrument::map::{
    BranchKind, BranchSite, BranchSlot, ClassProbes, LineId, LineProbe, LoopId, LoopProbe,
    MethodId, MethodProbes, Outcome, ProbeMap,
};
use crate::instrument::{RESET_METHOD, RUNTIME_PACKAGE, initial_frame};
use crate::opcodes::{self as op};
use crate::stackmap::FrameState;

/// Which probes to insert.
#[derive(Debug, Clone, PartialEq, Eq)]
#[allow(clippy::struct_excessive_bools)]
pub struct ProbeConfig {
    /// Branch probes on conditional jumps and switches.
    pub branches: bool,
    /// Line probes.
    pub lines: bool,
    /// Method-entry probes.
    pub methods: bool,
    /// Loop counters on backward jumps.
    pub loops: bool,
    /// `lcmp`/`fcmp*`/`dcmp*` testability transformation.
    pub compare: bool,
    /// String-comparison distances.
    pub strings: bool,
    /// Tracking of static state a test may change: `putstatic`, and `getstatic` of a field
    /// whose value can change through the reference read ([`holds_mutable`]: a cache filled
    /// lazily, a table the caller is given). The execution host resets the classes marked,
    /// so that no test sees what an earlier one left in the same JVM.
    pub static_writes: bool,
    /// Static-reset method and non-final static fields.
    pub static_reset: bool,
}

impl Default for ProbeConfig {
    fn default() -> Self {
        ProbeConfig {
            branches: true,
            lines: true,
            methods: true,
            loops: true,
            compare: true,
            strings: true,
            static_writes: true,
            static_reset: true,
        }
    }
}

impl ProbeConfig {
    /// No probes at all (enable the ones wanted).
    #[must_use]
    pub fn none() -> Self {
        ProbeConfig {
            branches: false,
            lines: false,
            methods: false,
            loops: false,
            compare: false,
            strings: false,
            static_writes: false,
            static_reset: false,
        }
    }

    /// Parses a comma-separated list: `all`, `branch`, `line`, `method`, `loop`, `compare`,
    /// `string`, `static-write`, `static-reset`.
    pub fn parse_list(list: &str) -> Result<Self> {
        let mut c = Self::none();
        for item in list.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            match item {
                "all" => c = Self::default(),
                "branch" | "branches" => c.branches = true,
                "line" | "lines" => c.lines = true,
                "method" | "methods" => c.methods = true,
                "loop" | "loops" => c.loops = true,
                "compare" => c.compare = true,
                "string" | "strings" => c.strings = true,
                "static-write" | "static-writes" => c.static_writes = true,
                "static-reset" => c.static_reset = true,
                other => {
                    return Err(Error::Rewrite(format!(
                        "unknown probe kind {other:?} (known: all, branch, line, method, loop, compare, string, \
                         static-write, static-reset)"
                    )));
                }
            }
        }
        Ok(c)
    }
}

/// Instruments classes one by one, numbering probes across all of them.
#[derive(Debug)]
pub struct Instrumenter<'a> {
    config: ProbeConfig,
    map: ProbeMap,
    class_index: HashMap<String, u32>,
    classpath: Option<&'a ClassPath>,
    runtime: String,
}

/// Runtime method references, added to a class's constant pool on first use.
struct Rt<'c> {
    cp: &'c mut ConstantPool,
    class: &'c str,
    refs: &'c mut HashMap<&'static str, CpIndex>,
}

impl Rt<'_> {
    fn call(&mut self, name: &'static str, desc: &'static str) -> Result<Insn<usize>> {
        if let Some(i) = self.refs.get(name) {
            return Ok(Insn::Cp {
                op: op::INVOKESTATIC,
                index: *i,
            });
        }
        let i = self.cp.add_method_ref(self.class, name, desc, false)?;
        self.refs.insert(name, i);
        Ok(Insn::Cp {
            op: op::INVOKESTATIC,
            index: i,
        })
    }

    fn push(&mut self, v: i32) -> Result<Insn<usize>> {
        push_int(self.cp, v)
    }
}

/// The shortest instruction pushing an `int` constant.
pub fn push_int(cp: &mut ConstantPool, v: i32) -> Result<Insn<usize>> {
    Ok(match v {
        -1..=5 => Insn::Simple((i32::from(op::ICONST_0) + v) as u8),
        -128..=127 => Insn::Bipush(v as i8),
        -32768..=32767 => Insn::Sipush(v as i16),
        _ => {
            let i = cp.add_integer(v)?;
            if i.0 <= 255 {
                Insn::Ldc {
                    op: op::LDC,
                    index: i,
                }
            } else {
                Insn::Ldc {
                    op: op::LDC_W,
                    index: i,
                }
            }
        }
    })
}

fn ldc(index: CpIndex) -> Insn<usize> {
    if index.0 <= 255 {
        Insn::Ldc { op: op::LDC, index }
    } else {
        Insn::Ldc {
            op: op::LDC_W,
            index,
        }
    }
}

/// Identifiers assigned while planning one method, committed only if the method succeeds.
#[derive(Debug, Clone)]
struct Counters {
    slots: u32,
    lines: u32,
    methods: u32,
    loops: u32,
    class_ids: usize,
    class_lines: BTreeMap<u16, LineId>,
}

impl<'a> Instrumenter<'a> {
    /// An instrumenter with the given probes.
    #[must_use]
    pub fn new(config: ProbeConfig) -> Self {
        Instrumenter {
            config,
            map: ProbeMap::new(),
            class_index: HashMap::new(),
            classpath: None,
            runtime: format!("{RUNTIME_PACKAGE}/Probe"),
        }
    }

    /// Resolves `putstatic` owners to the declaring class through this class path.
    #[must_use]
    pub fn with_classpath(mut self, cp: &'a ClassPath) -> Self {
        self.classpath = Some(cp);
        self
    }

    /// The probe map so far.
    #[must_use]
    pub fn map(&self) -> &ProbeMap {
        &self.map
    }

    /// The probe map.
    #[must_use]
    pub fn into_map(self) -> ProbeMap {
        self.map
    }

    fn class_id(&mut self, name: &str) -> u32 {
        if let Some(&i) = self.class_index.get(name) {
            return i;
        }
        let id = self.map.class_id(name).0;
        self.class_index.insert(name.to_string(), id);
        id
    }

    /// Instruments one class, returning the rewritten class file. Methods that cannot be
    /// rewritten keep their code and are noted in the probe map.
    pub fn instrument(&mut self, input: &ClassFile) -> Result<ClassFile> {
        self.instrument_owned(input.clone())
    }

    /// Like [`Instrumenter::instrument`], taking the class by value (no copy).
    pub fn instrument_owned(&mut self, class: ClassFile) -> Result<ClassFile> {
        let name = class.name()?.into_owned();
        self.instrument_inner(class, &name)
            .context_with(|| name.replace('/', "."))
    }

    fn instrument_inner(&mut self, mut class: ClassFile, name: &str) -> Result<ClassFile> {
        let input = &class;
        if name.starts_with(RUNTIME_PACKAGE) {
            return Err(Error::Rewrite(
                "the probe runtime itself is not instrumented".into(),
            ));
        }
        if input.is(access::MODULE) {
            return Err(Error::Rewrite(
                "module-info has no code to instrument".into(),
            ));
        }
        if input.constant_pool.find_class(&self.runtime).is_some()
            || input
                .methods
                .iter()
                .any(|m| input.member_name(m).is_ok_and(|n| n == RESET_METHOD))
        {
            return Err(Error::Rewrite(
                "class is already instrumented by ferrosuite".into(),
            ));
        }
        // The static reset copies the original `<clinit>`, before probes go into it.
        let original_clinit = input
            .methods
            .iter()
            .find(|m| input.member_name(m).is_ok_and(|n| n == "<clinit>"))
            .and_then(Member::code)
            .cloned();
        let source_file = input.source_file().map(std::borrow::Cow::into_owned);
        let class_id = self.class_id(name);
        let mut probes = ClassProbes {
            id: crate::instrument::map::ClassId(class_id),
            name: name.to_string(),
            source_file,
            methods: Vec::new(),
            lines: Vec::new(),
            reset_method: None,
            definalized: Vec::new(),
            notes: Vec::new(),
        };
        let mut class_lines: BTreeMap<u16, LineId> = BTreeMap::new();
        let needs_frames_version = class.major_version >= 51;
        let mut refs: HashMap<&'static str, CpIndex> = HashMap::new();
        let runtime = self.runtime.clone();
        let ClassFile {
            constant_pool: cp,
            methods,
            ..
        } = &mut class;
        for m in methods.iter_mut() {
            let Some(code) = m.code() else { continue };
            let mname = cp.utf8(m.name)?.into_owned();
            let mdesc = cp.utf8(m.descriptor)?.into_owned();
            let maccess = m.access_flags;
            let saved = Counters {
                slots: self.map.branch_slots,
                lines: self.map.line_ids,
                methods: self.map.method_ids,
                loops: self.map.loop_ids,
                class_ids: self.map.class_ids.len(),
                class_lines: class_lines.clone(),
            };
            let cp_before = cp.count();
            let result = self.instrument_method(
                &mut Rt {
                    cp,
                    class: &runtime,
                    refs: &mut refs,
                },
                name,
                &mname,
                &mdesc,
                maccess,
                code,
                needs_frames_version,
                &mut class_lines,
            );
            match result {
                Ok((new_code, mp)) => {
                    if let Some(c) = m.code_mut() {
                        *c = new_code;
                    }
                    probes.methods.push(mp);
                }
                Err(e) => {
                    // Roll back ids and constants so numbering stays dense and deterministic.
                    self.map.branch_slots = saved.slots;
                    self.map.line_ids = saved.lines;
                    self.map.method_ids = saved.methods;
                    self.map.loop_ids = saved.loops;
                    for dropped in self.map.class_ids.drain(saved.class_ids..) {
                        self.class_index.remove(&dropped);
                    }
                    class_lines = saved.class_lines;
                    cp.truncate(cp_before);
                    refs.retain(|_, i| usize::from(i.0) < cp_before);
                    probes.methods.push(MethodProbes {
                        id: MethodId(u32::MAX),
                        name: mname,
                        descriptor: mdesc,
                        access: maccess,
                        branches: Vec::new(),
                        lines: Vec::new(),
                        loops: Vec::new(),
                        skipped: Some(e.to_string()),
                    });
                }
            }
        }
        probes.lines = class_lines
            .into_iter()
            .map(|(line, id)| LineProbe { id, line })
            .collect();
        if self.config.static_reset {
            match add_static_reset(original_clinit.as_ref(), &mut class) {
                Ok(Some(definalized)) => {
                    probes.reset_method = Some(RESET_METHOD.to_string());
                    probes.definalized = definalized;
                }
                Ok(None) => {}
                Err(e) => probes.notes.push(format!("no static reset: {e}")),
            }
        }
        self.map.classes.push(probes);
        Ok(class)
    }

    #[allow(clippy::too_many_arguments)]
    fn instrument_method(
        &mut self,
        rt: &mut Rt<'_>,
        class_name: &str,
        name: &str,
        desc: &str,
        maccess: u16,
        code: &Code,
        needs_frames_version: bool,
        class_lines: &mut BTreeMap<u16, LineId>,
    ) -> Result<(Code, MethodProbes)> {
        let origin = || format!("method {name}{desc}");
        let mut ed = CodeEditor::new(code).context_with(origin)?;
        if code.attributes.iter().any(|a| {
            matches!(a.body, AttributeBody::Raw(_))
                && rt
                    .cp
                    .utf8_bytes(a.name)
                    .is_ok_and(|n| n == b"StackMapTable")
        }) {
            return Err(Error::Rewrite("StackMapTable could not be read".into()))
                .context_with(origin);
        }
        let cfg = self.config.clone();
        let method_id = MethodId(self.map.method_ids);
        self.map.method_ids += 1;
        let mut mp = MethodProbes {
            id: method_id,
            name: name.to_string(),
            descriptor: desc.to_string(),
            access: maccess,
            branches: Vec::new(),
            lines: Vec::new(),
            loops: Vec::new(),
            skipped: None,
        };
        // Lines starting at each offset, and the line of every offset.
        let mut line_starts: BTreeMap<u32, BTreeSet<u16>> = BTreeMap::new();
        for l in code.line_numbers() {
            line_starts
                .entry(u32::from(l.start_pc))
                .or_default()
                .insert(l.line);
        }
        let line_at = |offset: u32| -> Option<u16> {
            line_starts
                .range(..=offset)
                .next_back()
                .and_then(|(_, s)| s.iter().next().copied())
        };
        let n = ed.len();
        let mut jump_targets = BTreeSet::new();
        for i in 0..n {
            if let Some((_, insn)) = ed.insn(i) {
                jump_targets.extend(insn.targets().into_iter().copied());
            }
        }
        for h in &code.exception_table {
            if let Some(u) = ed.index_of(u32::from(h.handler_pc)) {
                jump_targets.insert(u);
            }
        }
        let offsets: Vec<u32> = (0..n).filter_map(|u| ed.insn(u).map(|(o, _)| o)).collect();
        let mut string_result = vec![false; n + 1];
        for i in 0..n {
            let Some((offset, insn)) = ed.insn(i) else {
                continue;
            };
            let insn = insn.clone();
            let opcode = insn.opcode();
            if i == 0 && cfg.methods {
                let code = if name == "<clinit>" {
                    vec![rt.push(method_id.0 as i32)?, rt.call("enterInit", "(I)V")?]
                } else {
                    vec![rt.push(method_id.0 as i32)?, rt.call("enter", "(I)V")?]
                };
                ed.insert_before(0, code, Landing::AfterInserted, 1)?;
            }
            if cfg.lines {
                if let Some(lines) = line_starts.get(&offset) {
                    for &line in lines {
                        let next = LineId(self.map.line_ids);
                        let id = *class_lines.entry(line).or_insert_with(|| {
                            self.map.line_ids += 1;
                            next
                        });
                        if !mp.lines.contains(&line) {
                            mp.lines.push(line);
                        }
                        let code = vec![rt.push(id.0 as i32)?, rt.call("line", "(I)V")?];
                        ed.insert_before(i, code, Landing::OnInserted, 1)?;
                    }
                }
            }
            if cfg.static_writes && matches!(opcode, op::PUTSTATIC | op::GETSTATIC) {
                if let Insn::Cp { index, .. } = insn {
                    let m = rt.cp.member_ref(index)?;
                    // The JDK's classes are never rewritten (no reset to run): no id for them.
                    if opcode == op::PUTSTATIC
                        || (holds_mutable(&m.descriptor)
                            && !crate::instrument::sandbox::is_jdk(&m.class))
                    {
                        let owner = self.declaring_class(&m.class, &m.name, &m.descriptor);
                        let id = self.class_id(&owner);
                        let code = vec![rt.push(id as i32)?, rt.call("staticWrite", "(I)V")?];
                        ed.insert_before(i, code, Landing::OnInserted, 1)?;
                    }
                }
            }
            if cfg.strings && opcode == op::INVOKEVIRTUAL {
                if let Insn::Cp { index, .. } = insn {
                    let m = rt.cp.member_ref(index)?;
                    let probe = if m.class == "java/lang/String" {
                        match (m.name.as_ref(), m.descriptor.as_ref()) {
                            ("equals", "(Ljava/lang/Object;)Z") => {
                                Some(("strEquals", "(Ljava/lang/String;Ljava/lang/Object;)V", 2))
                            }
                            ("equalsIgnoreCase", "(Ljava/lang/String;)Z") => Some((
                                "strEqualsIgnoreCase",
                                "(Ljava/lang/String;Ljava/lang/String;)V",
                                2,
                            )),
                            ("startsWith", "(Ljava/lang/String;)Z") => Some((
                                "strStartsWith",
                                "(Ljava/lang/String;Ljava/lang/String;)V",
                                2,
                            )),
                            ("endsWith", "(Ljava/lang/String;)Z") => {
                                Some(("strEndsWith", "(Ljava/lang/String;Ljava/lang/String;)V", 2))
                            }
                            ("contains", "(Ljava/lang/CharSequence;)Z") => Some((
                                "strContains",
                                "(Ljava/lang/String;Ljava/lang/CharSequence;)V",
                                2,
                            )),
                            ("isEmpty", "()Z") => Some(("strIsEmpty", "(Ljava/lang/String;)V", 1)),
                            _ => None,
                        }
                    } else {
                        None
                    };
                    if let Some((mname, mdesc, words)) = probe {
                        let dup = if words == 2 { op::DUP2 } else { op::DUP };
                        let code = vec![Insn::Simple(dup), rt.call(mname, mdesc)?];
                        ed.insert_before(i, code, Landing::OnInserted, words)?;
                        string_result[i + 1] = true;
                    }
                }
            }
            if cfg.compare
                && matches!(
                    opcode,
                    op::LCMP | op::FCMPL | op::FCMPG | op::DCMPL | op::DCMPG
                )
            {
                let next_is_if = ed
                    .insn(i + 1)
                    .is_some_and(|(_, n)| (op::IFEQ..=op::IFLE).contains(&n.opcode()));
                if next_is_if {
                    let (mname, mdesc) = match opcode {
                        op::LCMP => ("lcmp", "(JJ)I"),
                        op::FCMPL => ("fcmpl", "(FF)I"),
                        op::FCMPG => ("fcmpg", "(FF)I"),
                        op::DCMPL => ("dcmpl", "(DD)I"),
                        _ => ("dcmpg", "(DD)I"),
                    };
                    let call = rt.call(mname, mdesc)?;
                    ed.replace_insn(i, call)?;
                }
            }
            if cfg.branches {
                let next_offset = offsets.get(i + 1).copied().unwrap_or(offset);
                let orig = |u: usize| offsets.get(u).copied().unwrap_or(0);
                match &insn {
                    Insn::Branch { op: o, target } if op::is_conditional(*o) => {
                        let slot = self.map.branch_slots;
                        self.map.branch_slots += 2;
                        let (probe_op, words) = (
                            rt.push(i32::from(*o))?,
                            if (op::IF_ICMPEQ..=op::IF_ACMPNE).contains(o) {
                                2
                            } else {
                                1
                            },
                        );
                        let (mname, mdesc) = match *o {
                            op::IFEQ | op::IFNE
                                if string_result[i] && !jump_targets.contains(&i) =>
                            {
                                ("branchBool", "(III)V")
                            }
                            op::IFEQ..=op::IFLE => ("branch", "(III)V"),
                            op::IF_ICMPEQ..=op::IF_ICMPLE => ("branch2", "(IIII)V"),
                            op::IF_ACMPEQ | op::IF_ACMPNE => {
                                ("branchRef2", "(Ljava/lang/Object;Ljava/lang/Object;II)V")
                            }
                            _ => ("branchRef", "(Ljava/lang/Object;II)V"),
                        };
                        let dup = if words == 2 { op::DUP2 } else { op::DUP };
                        let code = vec![
                            Insn::Simple(dup),
                            probe_op,
                            rt.push(slot as i32)?,
                            rt.call(mname, mdesc)?,
                        ];
                        ed.insert_before(i, code, Landing::OnInserted, words + 2)?;
                        mp.branches.push(BranchSite {
                            offset,
                            line: line_at(offset),
                            kind: BranchKind::Jump {
                                opcode: op::name(*o).to_string(),
                            },
                            outcomes: vec![
                                Outcome {
                                    slot: BranchSlot(slot),
                                    label: "taken".into(),
                                    target: orig(*target),
                                },
                                Outcome {
                                    slot: BranchSlot(slot + 1),
                                    label: "not taken".into(),
                                    target: next_offset,
                                },
                            ],
                        });
                    }
                    _ => {
                        if let Some((default, pairs)) = insn.switch_cases() {
                            // Keys that jump to the default target are not cases of their own (javac
                            // fills the gaps of a tableswitch with them).
                            let pairs: Vec<(i32, usize)> =
                                pairs.into_iter().filter(|(_, t)| *t != default).collect();
                            let slot = self.map.branch_slots;
                            self.map.branch_slots += pairs.len() as u32 + 1;
                            let units: Vec<u16> = pairs
                                .iter()
                                .flat_map(|(k, _)| {
                                    [(*k as u32 >> 16) as u16, (*k as u32 & 0xFFFF) as u16]
                                })
                                .collect();
                            let s = rt.cp.add_string_utf16(&units)?;
                            let code = vec![
                                Insn::Simple(op::DUP),
                                ldc(s),
                                rt.push(slot as i32)?,
                                rt.call("lookupSwitch", "(ILjava/lang/String;I)V")?,
                            ];
                            ed.insert_before(i, code, Landing::OnInserted, 3)?;
                            mp.branches.push(switch_site(
                                offset,
                                line_at(offset),
                                slot,
                                &pairs,
                                default,
                                &orig,
                            ));
                        }
                    }
                }
            }
            if cfg.loops && insn.targets().iter().any(|&&t| t <= i) {
                let id = LoopId(self.map.loop_ids);
                self.map.loop_ids += 1;
                let code = if name == "<clinit>" {
                    vec![rt.push(id.0 as i32)?, rt.call("loopInit", "(I)V")?]
                } else {
                    vec![rt.push(id.0 as i32)?, rt.call("loop", "(I)V")?]
                };
                ed.insert_before(i, code, Landing::OnInserted, 1)?;
                mp.loops.push(LoopProbe { id, offset });
            }
        }
        let is_static = maccess & access::STATIC != 0;
        let initial = if code.stack_map().is_some() {
            initial_frame(rt.cp, class_name, name, desc, is_static)?
        } else {
            FrameState::default()
        };
        let needs_frames = needs_frames_version || code.stack_map().is_some();
        let new_code = ed
            .finish(code, &initial, needs_frames)
            .context_with(origin)?;
        Ok((new_code, mp))
    }

    fn declaring_class(&self, owner: &str, name: &str, desc: &str) -> String {
        match self.classpath {
            Some(cp) => hierarchy::resolve_field(cp, owner, name, desc)
                .ok()
                .flatten()
                .unwrap_or_else(|| owner.to_string()),
            None => owner.to_string(),
        }
    }
}

/// Adds the static-reset method (see the module documentation); `None` when the class has
/// neither static fields to reset nor a `<clinit>`.
fn add_static_reset(clinit: Option<&Code>, class: &mut ClassFile) -> Result<Option<Vec<String>>> {
    if class.is(access::INTERFACE) {
        return Err(Error::Rewrite(
            "interfaces cannot have non-final static fields".into(),
        ));
    }
    if class.is(access::ENUM) {
        // Re-running an enum's <clinit> would create new constants: every reference held
        // elsewhere (and the JDK's enum caches) would no longer be `==` to them.
        return Err(Error::Rewrite(
            "enum constants must keep their identity".into(),
        ));
    }
    let cp_before = class.constant_pool.count();
    let result = build_static_reset(clinit, class);
    match result {
        Ok(Some((method, definalize))) => {
            // Only now that the method exists do the fields lose `final`.
            let mut names = Vec::new();
            for f in &mut class.fields {
                if f.is(access::STATIC)
                    && f.is(access::FINAL)
                    && definalize.contains(&(f.name, f.descriptor))
                {
                    f.access_flags &= !access::FINAL;
                    names.push(class.constant_pool.utf8(f.name)?.into_owned());
                }
            }
            class.methods.push(method);
            Ok(Some(names))
        }
        Ok(None) => Ok(None),
        Err(e) => {
            class.constant_pool.truncate(cp_before);
            Err(e)
        }
    }
}

/// A field's name and descriptor indices.
type FieldKey = (CpIndex, CpIndex);

/// Builds the reset method without changing anything but the constant pool; returns it with
/// the static finals (name and descriptor indices) that must become non-final for it to run.
fn build_static_reset(
    clinit: Option<&Code>,
    class: &mut ClassFile,
) -> Result<Option<(Member, Vec<FieldKey>)>> {
    let this = class.name()?.into_owned();
    let cp = &mut class.constant_pool;
    // Static fields: which the reset assigns, which must stay final (and are never assigned).
    let mut prologue: Vec<Insn<usize>> = Vec::new();
    let mut kept_final = BTreeSet::new();
    let mut definalize = Vec::new();
    for f in class.fields.iter().filter(|f| f.is(access::STATIC)) {
        let fname = cp.utf8(f.name)?.into_owned();
        let fdesc = cp.utf8(f.descriptor)?.into_owned();
        let constant = f.attributes.iter().find_map(|a| match a.body {
            AttributeBody::ConstantValue(c) => Some(c),
            _ => None,
        });
        let keep = f.is(access::FINAL)
            && (constant.is_some()
                || fname == "serialVersionUID"
                || fname == "serialPersistentFields");
        if keep {
            kept_final.insert((fname, fdesc));
            continue;
        }
        if f.is(access::FINAL) {
            definalize.push((f.name, f.descriptor));
        }
        // The field's initial value: its ConstantValue (the JVM applies it to non-final statics
        // too), else the type's default.
        let t = FieldType::parse(&fdesc)?;
        prologue.push(match constant {
            Some(c) if matches!(t, FieldType::Long | FieldType::Double) => Insn::Ldc {
                op: op::LDC2_W,
                index: c,
            },
            Some(c) => ldc(c),
            None => Insn::Simple(match t {
                FieldType::Long => op::LCONST_0,
                FieldType::Float => op::FCONST_0,
                FieldType::Double => op::DCONST_0,
                FieldType::Object(_) | FieldType::Array(_) => op::ACONST_NULL,
                _ => op::ICONST_0,
            }),
        });
        let r = cp.add_field_ref(&this, &fname, &fdesc)?;
        prologue.push(Insn::Cp {
            op: op::PUTSTATIC,
            index: r,
        });
    }
    if clinit.is_none() && prologue.is_empty() {
        return Ok(None);
    }
    let code = if let Some(orig) = clinit {
        if orig.stack_map().is_none()
            && orig.attributes.iter().any(|a| {
                matches!(a.body, AttributeBody::Raw(_))
                    && cp.utf8_bytes(a.name).is_ok_and(|n| n == b"StackMapTable")
            })
        {
            return Err(Error::Rewrite(
                "the StackMapTable of <clinit> could not be read".into(),
            ));
        }
        let mut ed = CodeEditor::new(orig)?;
        for i in 0..ed.len() {
            let Some((
                _,
                Insn::Cp {
                    op: op::PUTSTATIC,
                    index,
                },
            )) = ed.insn(i)
            else {
                continue;
            };
            let m = cp.member_ref(*index)?;
            if m.class == this
                && kept_final.contains(&(m.name.to_string(), m.descriptor.to_string()))
            {
                let wide = matches!(m.descriptor.as_ref(), "J" | "D");
                ed.replace_insn(i, Insn::Simple(if wide { op::POP2 } else { op::POP }))?;
            }
        }
        if !prologue.is_empty() {
            ed.insert_before(0, prologue, Landing::AfterInserted, 2)?;
        }
        ed.finish(orig, &FrameState::default(), class.major_version >= 51)?
    } else {
        prologue.push(Insn::Simple(op::RETURN));
        let mut bytes = Vec::new();
        for i in &prologue {
            let at = bytes.len() as u32;
            crate::insn::encode_at(&mut bytes, i, at, |_| Ok(0))?;
        }
        Code {
            max_stack: 2,
            max_locals: 0,
            code: bytes,
            exception_table: Vec::new(),
            attributes: Vec::new(),
        }
    };
    let name = cp.add_utf8(RESET_METHOD)?;
    let descriptor = cp.add_utf8("()V")?;
    let code_name = cp.add_utf8("Code")?;
    let method = Member {
        access_flags: access::PUBLIC | access::STATIC | access::SYNTHETIC,
        name,
        descriptor,
        attributes: vec![Attribute {
            name: code_name,
            body: AttributeBody::Code(code),
        }],
    };
    Ok(Some((method, definalize)))
}

fn switch_site(
    offset: u32,
    line: Option<u16>,
    slot: u32,
    pairs: &[(i32, usize)],
    default: usize,
    orig: &dyn Fn(usize) -> u32,
) -> BranchSite {
    let mut outcomes: Vec<Outcome> = pairs
        .iter()
        .enumerate()
        .map(|(k, (key, t))| Outcome {
            slot: BranchSlot(slot + k as u32),
            label: format!("case {key}"),
            target: orig(*t),
        })
        .collect();
    outcomes.push(Outcome {
        slot: BranchSlot(slot + pairs.len() as u32),
        label: "default".into(),
        target: orig(default),
    });
    BranchSite {
        offset,
        line,
        kind: BranchKind::Switch {
            keys: pairs.iter().map(|(k, _)| *k).collect(),
        },
        outcomes,
    }
}

/// Whether a static field of this descriptor holds a value whose state can change through
/// the reference: arrays and objects, except the immutable kinds code reads as constants
/// (strings, boxed primitives, `Class`, `BigInteger`, `BigDecimal`).
#[must_use]
pub fn holds_mutable(descriptor: &str) -> bool {
    match descriptor.as_bytes().first() {
        Some(b'[') => true,
        Some(b'L') => !matches!(
            descriptor,
            "Ljava/lang/String;"
                | "Ljava/lang/Integer;"
                | "Ljava/lang/Long;"
                | "Ljava/lang/Short;"
                | "Ljava/lang/Byte;"
                | "Ljava/lang/Character;"
                | "Ljava/lang/Boolean;"
                | "Ljava/lang/Float;"
                | "Ljava/lang/Double;"
                | "Ljava/lang/Class;"
                | "Ljava/math/BigInteger;"
                | "Ljava/math/BigDecimal;"
        ),
        _ => false,
    }
}
