//! The code editor: insert stack-neutral code before any instruction, replace instructions with
//! code of the same stack effect, and lay the method out again.
//!
//! Every original instruction becomes a *unit*: the code inserted before it, then the
//! instruction itself (or its replacement). Each insertion says where jumps to the instruction
//! land ([`Landing`]): on the inserted code (a line probe must count a loop's second pass) or
//! after it (a method-entry probe must not count a jump back to offset 0). Jumps land on the
//! first insertion of the trailing run of `OnInserted` insertions, or on the instruction.
//!
//! Laying out recomputes every offset, switch padding, branch offset, the exception table
//! (ranges start and end at unit starts, handlers follow the landing rule), `LineNumberTable`,
//! `LocalVariable(Type)Table`, and the `StackMapTable`. Because inserted code leaves the stack
//! and locals as it found them, frames only move: a frame goes to the landing point, and is
//! duplicated at the unit start when that differs. Frames are decoded to absolute states and
//! re-encoded against their new predecessors; `Uninitialized(offset)` types follow their `new`.
//!
//! A 16-bit branch that no longer reaches its target is widened: `goto`/`jsr` become
//! `goto_w`/`jsr_w`; a conditional jump becomes the inverted condition over a `goto_w` in
//! methods without stack maps, and otherwise jumps to a *trampoline* (`goto_w target`, with a
//! copy of the target's frame) placed after the nearest unconditional instruction outside any
//! exception range, so that no new frame has to be inferred.
//!
//! ```
//! use ferrosuite_bytecode::attributes::Code;
//! use ferrosuite_bytecode::insn::Insn;
//! use ferrosuite_bytecode::instrument::editor::{CodeEditor, Landing};
//! use ferrosuite_bytecode::opcodes as op;
//! use ferrosuite_bytecode::stackmap::FrameState;
//! // iload_0; ifeq L; iconst_1; ireturn; L: iconst_0; ireturn
//! let code = Code { max_stack: 1, max_locals: 1, code: vec![0x1a, 0x99, 0, 5, 0x04, 0xac, 0x03, 0xac],
//!                   exception_table: vec![], attributes: vec![] };
//! let mut ed = CodeEditor::new(&code).unwrap();
//! // Before `ifeq` (unit 1): dup; pop (stack-neutral, needs one extra slot).
//! ed.insert_before(1, vec![Insn::Simple(op::DUP), Insn::Simple(op::POP)], Landing::OnInserted, 1).unwrap();
//! let out = ed.finish(&code, &FrameState::default(), false).unwrap();
//! assert_eq!(out.code, vec![0x1a, 0x59, 0x57, 0x99, 0, 5, 0x04, 0xac, 0x03, 0xac]);
//! assert_eq!(out.max_stack, 2);
//! ```

// Layout walks several parallel per-unit arrays by index; iterators would obscure that.
#![allow(clippy::needless_range_loop)]

use std::collections::BTreeMap;

use crate::attributes::{
    Attribute, AttributeBody, Code, ExceptionHandler, LineNumber, LocalVariable,
};
use crate::error::{Error, Result};
use crate::insn::{self, Insn};
use crate::opcodes::{self as op, Format};
use crate::stackmap::{FrameState, VType, decode_frames, encode_frames};

/// Where jumps to an instruction land when code is inserted before it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Landing {
    /// Jumps land on the inserted code (it runs on every arrival).
    OnInserted,
    /// Jumps land after the inserted code (it runs only on fall-through).
    AfterInserted,
}

#[derive(Debug, Clone)]
struct Insertion {
    code: Vec<Insn<usize>>,
    landing: Landing,
}

#[derive(Debug, Clone)]
struct Unit {
    offset: u32,
    insn: Insn<usize>,
    inserts: Vec<Insertion>,
    replacement: Option<Vec<Insn<usize>>>,
}

/// Edits one method's code; see the module documentation.
#[derive(Debug, Clone)]
pub struct CodeEditor {
    units: Vec<Unit>,
    code_len: u32,
    extra_stack: u16,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    Short,
    Wide,
    Trampoline(usize),
}

#[derive(Debug, Default)]
struct Layout {
    /// Trampoline ids placed in each gap (before unit j), in order.
    by_gap: BTreeMap<usize, Vec<usize>>,
    gap_start: Vec<u32>,
    tramp_pos: Vec<u32>,
    unit_start: Vec<u32>,
    insn_pos: Vec<u32>,
    landing: Vec<u32>,
    end: u32,
}

fn straight_line(code: &[Insn<usize>]) -> Result<()> {
    for i in code {
        if !i.targets().is_empty()
            || op::is_unconditional(i.opcode())
            || op::format(i.opcode()) == Format::Wide
        {
            return Err(Error::Rewrite(format!(
                "inserted code must be straight-line, found {}",
                op::name(i.opcode())
            )));
        }
    }
    Ok(())
}

fn code_size(code: &[Insn<usize>]) -> u32 {
    code.iter().map(|i| i.size_at(0)).sum()
}

impl CodeEditor {
    /// Decodes a method's code for editing.
    pub fn new(code: &Code) -> Result<Self> {
        let decoded = insn::decode(&code.code)?;
        let index: BTreeMap<u32, usize> = decoded
            .iter()
            .enumerate()
            .map(|(i, (o, _))| (*o, i))
            .collect();
        let mut units = Vec::with_capacity(decoded.len());
        for (offset, i) in decoded {
            let insn = i.map_targets(|t| {
                index.get(&t).copied().ok_or_else(|| Error::BadInstruction {
                    offset,
                    detail: format!("branch target {t} is not the start of an instruction"),
                })
            })?;
            units.push(Unit {
                offset,
                insn,
                inserts: Vec::new(),
                replacement: None,
            });
        }
        Ok(CodeEditor {
            units,
            code_len: code.code.len() as u32,
            extra_stack: 0,
        })
    }

    /// Number of instructions.
    #[must_use]
    pub fn len(&self) -> usize {
        self.units.len()
    }

    /// True when there are no instructions (never for valid code).
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.units.is_empty()
    }

    /// The original instruction at `index` with its original offset; targets are instruction
    /// indices.
    #[must_use]
    pub fn insn(&self, index: usize) -> Option<(u32, &Insn<usize>)> {
        self.units.get(index).map(|u| (u.offset, &u.insn))
    }

    /// Index of the instruction at an original code offset.
    #[must_use]
    pub fn index_of(&self, offset: u32) -> Option<usize> {
        self.units.binary_search_by_key(&offset, |u| u.offset).ok()
    }

    /// Inserts straight-line, stack-neutral code before instruction `index`. `extra_stack` is
    /// the most stack the code pushes above what it finds.
    pub fn insert_before(
        &mut self,
        index: usize,
        code: Vec<Insn<usize>>,
        landing: Landing,
        extra_stack: u16,
    ) -> Result<()> {
        straight_line(&code)?;
        let unit = self
            .units
            .get_mut(index)
            .ok_or_else(|| Error::Rewrite(format!("no instruction #{index}")))?;
        unit.inserts.push(Insertion { code, landing });
        self.extra_stack = self.extra_stack.max(extra_stack);
        Ok(())
    }

    /// Replaces instruction `index` by straight-line code with the same stack effect.
    pub fn replace(
        &mut self,
        index: usize,
        code: Vec<Insn<usize>>,
        extra_stack: u16,
    ) -> Result<()> {
        straight_line(&code)?;
        let unit = self
            .units
            .get_mut(index)
            .ok_or_else(|| Error::Rewrite(format!("no instruction #{index}")))?;
        if !unit.insn.targets().is_empty() || op::is_unconditional(unit.insn.opcode()) {
            return Err(Error::Rewrite(format!(
                "cannot replace control-flow instruction {} at offset {}",
                op::name(unit.insn.opcode()),
                unit.offset
            )));
        }
        unit.replacement = Some(code);
        self.extra_stack = self.extra_stack.max(extra_stack);
        Ok(())
    }

    /// Replaces instruction `index` in place by one instruction of the same stack effect.
    pub fn replace_insn(&mut self, index: usize, insn: Insn<usize>) -> Result<()> {
        self.replace(index, vec![insn], 0)
    }

    /// Gives conditional jump `index` another conditional opcode, same target. With code
    /// inserted before it that turns its operands into the new opcode's, this replaces a
    /// condition (`if_icmplt L` becomes `…; ifne L`); no frame lies between the two.
    pub fn set_condition(&mut self, index: usize, opcode: u8) -> Result<()> {
        let unit = self
            .units
            .get_mut(index)
            .ok_or_else(|| Error::Rewrite(format!("no instruction #{index}")))?;
        match &mut unit.insn {
            Insn::Branch { op: o, .. } if op::is_conditional(*o) && op::is_conditional(opcode) => {
                *o = opcode;
                Ok(())
            }
            other => Err(Error::Rewrite(format!(
                "{} at offset {} is not a conditional jump",
                op::name(other.opcode()),
                unit.offset
            ))),
        }
    }

    fn landing_index(u: &Unit) -> usize {
        let mut k = u.inserts.len();
        while k > 0 && u.inserts[k - 1].landing == Landing::OnInserted {
            k -= 1;
        }
        k
    }

    fn insn_size(u: &Unit, mode: Mode, at: u32) -> u32 {
        if let Some(r) = &u.replacement {
            return code_size(r);
        }
        match (mode, &u.insn) {
            (Mode::Wide, Insn::Branch { op: o, .. }) => {
                if matches!(*o, op::GOTO | op::JSR) {
                    5
                } else if op::is_conditional(*o) {
                    8
                } else {
                    5
                }
            }
            _ => u.insn.size_at(at),
        }
    }

    fn layout(&self, modes: &[Mode], tramps: &[(usize, usize)]) -> Layout {
        let n = self.units.len();
        let mut by_gap: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
        for (id, (gap, _)) in tramps.iter().enumerate() {
            by_gap.entry(*gap).or_default().push(id);
        }
        let mut l = Layout {
            by_gap,
            gap_start: Vec::with_capacity(n + 1),
            tramp_pos: vec![0; tramps.len()],
            unit_start: Vec::with_capacity(n),
            insn_pos: Vec::with_capacity(n),
            landing: Vec::with_capacity(n),
            end: 0,
        };
        let mut at = 0u32;
        for j in 0..=n {
            l.gap_start.push(at);
            if let Some(ids) = l.by_gap.get(&j) {
                for &id in ids {
                    l.tramp_pos[id] = at;
                    at += 5;
                }
            }
            if j == n {
                break;
            }
            let u = &self.units[j];
            l.unit_start.push(at);
            let k = Self::landing_index(u);
            let mut land = None;
            for (i, ins) in u.inserts.iter().enumerate() {
                if i == k {
                    land = Some(at);
                }
                at += code_size(&ins.code);
            }
            l.insn_pos.push(at);
            l.landing.push(land.unwrap_or(at));
            at += Self::insn_size(u, modes[j], at);
        }
        l.end = at;
        l
    }

    /// Lays the method out and returns the new `Code` attribute.
    ///
    /// `initial` is the method's implicit initial frame (see [`initial_frame`]); it is only
    /// used when the code has a `StackMapTable`. `needs_frames` says whether the class version
    /// requires stack maps (major ≥ 50 with a `StackMapTable`, or ≥ 51): it decides how
    /// conditional branches are widened.
    ///
    /// [`initial_frame`]: crate::instrument::initial_frame
    pub fn finish(&self, code: &Code, initial: &FrameState, needs_frames: bool) -> Result<Code> {
        let n = self.units.len();
        let unit_at = |offset: u32, what: &str| -> Result<usize> {
            self.index_of(offset).ok_or_else(|| {
                Error::Rewrite(format!(
                    "{what} at offset {offset} is not at an instruction boundary"
                ))
            })
        };
        // Boundary index of a range end: an instruction, or n for the end of the code.
        let boundary = |offset: u32, what: &str| -> Result<usize> {
            if offset == self.code_len {
                Ok(n)
            } else {
                unit_at(offset, what)
            }
        };
        let frames: Vec<(usize, FrameState)> = match code.stack_map() {
            Some(f) => decode_frames(initial, f)?
                .into_iter()
                .map(|(o, s)| Ok((unit_at(o, "stack map frame")?, s)))
                .collect::<Result<_>>()?,
            None => Vec::new(),
        };
        let frame_of: BTreeMap<usize, &FrameState> = frames.iter().map(|(u, s)| (*u, s)).collect();
        // Exception ranges in unit indices.
        let ranges: Vec<(usize, usize, usize, ExceptionHandler)> = code
            .exception_table
            .iter()
            .map(|h| {
                Ok((
                    unit_at(u32::from(h.start_pc), "exception range start")?,
                    boundary(u32::from(h.end_pc), "exception range end")?,
                    unit_at(u32::from(h.handler_pc), "exception handler")?,
                    *h,
                ))
            })
            .collect::<Result<_>>()?;
        let with_frames = needs_frames || !frames.is_empty();

        let mut modes = vec![Mode::Short; n];
        let mut tramps: Vec<(usize, usize)> = Vec::new();
        let mut layout;
        let mut rounds = 0;
        loop {
            rounds += 1;
            if rounds > 64 {
                return Err(Error::Rewrite("branch widening does not converge".into()));
            }
            layout = self.layout(&modes, &tramps);
            let mut changed = false;
            for i in 0..n {
                let u = &self.units[i];
                if u.replacement.is_some() {
                    continue;
                }
                let Insn::Branch { op: o, target } = &u.insn else {
                    continue;
                };
                if op::format(*o) != Format::Branch16 {
                    continue;
                }
                let pos = i64::from(layout.insn_pos[i]);
                let to = match modes[i] {
                    Mode::Wide => continue,
                    Mode::Short => i64::from(layout.landing[*target]),
                    Mode::Trampoline(id) => i64::from(layout.tramp_pos[id]),
                };
                if i16::try_from(to - pos).is_ok() {
                    continue;
                }
                changed = true;
                if matches!(*o, op::GOTO | op::JSR) || !with_frames {
                    modes[i] = Mode::Wide;
                    continue;
                }
                let gap = self.trampoline_gap(&layout, pos, &ranges).ok_or_else(|| {
                    Error::Rewrite(format!(
                        "conditional branch at offset {} cannot reach its target after rewriting, and no \
                         place for a trampoline is within 32 KiB",
                        u.offset
                    ))
                })?;
                if !frame_of.contains_key(target) {
                    return Err(Error::Rewrite(format!(
                        "branch target of offset {} has no stack map frame",
                        u.offset
                    )));
                }
                let id = tramps
                    .iter()
                    .position(|t| *t == (gap, *target))
                    .unwrap_or_else(|| {
                        tramps.push((gap, *target));
                        tramps.len() - 1
                    });
                modes[i] = Mode::Trampoline(id);
            }
            if !changed {
                break;
            }
        }
        if layout.end > 0xFFFF {
            return Err(Error::Rewrite(format!(
                "rewritten code is {} bytes long (the limit is 65535)",
                layout.end
            )));
        }

        // Emit.
        let mut out = Vec::with_capacity(layout.end as usize);
        let no_target = |_: &usize| -> Result<i32> {
            Err(Error::Rewrite("unexpected branch in inserted code".into()))
        };
        for j in 0..=n {
            for &id in layout.by_gap.get(&j).map_or(&[][..], Vec::as_slice) {
                let at = out.len() as u32;
                let t = layout.landing[tramps[id].1];
                insn::encode_at(
                    &mut out,
                    &Insn::Branch {
                        op: op::GOTO_W,
                        target: t,
                    },
                    at,
                    |t| Ok((i64::from(*t) - i64::from(at)) as i32),
                )?;
            }
            if j == n {
                break;
            }
            let u = &self.units[j];
            for ins in &u.inserts {
                for i in &ins.code {
                    let at = out.len() as u32;
                    insn::encode_at(&mut out, i, at, no_target)?;
                }
            }
            let at = out.len() as u32;
            debug_assert_eq!(at, layout.insn_pos[j]);
            if let Some(r) = &u.replacement {
                for i in r {
                    let at = out.len() as u32;
                    insn::encode_at(&mut out, i, at, no_target)?;
                }
                continue;
            }
            let rel = |t: &usize| Ok((i64::from(layout.landing[*t]) - i64::from(at)) as i32);
            match (&u.insn, modes[j]) {
                (Insn::Branch { op: o, target }, Mode::Wide) => {
                    if op::is_conditional(*o) {
                        let inv = op::invert_conditional(*o).unwrap_or(*o);
                        out.extend_from_slice(&[inv, 0, 8]);
                        let gw = at + 3;
                        let t = i64::from(layout.landing[*target]) - i64::from(gw);
                        out.push(op::GOTO_W);
                        out.extend_from_slice(&(t as i32).to_be_bytes());
                    } else {
                        let w = if *o == op::JSR { op::JSR_W } else { op::GOTO_W };
                        insn::encode_at(
                            &mut out,
                            &Insn::Branch {
                                op: w,
                                target: *target,
                            },
                            at,
                            rel,
                        )?;
                    }
                }
                (Insn::Branch { op: o, .. }, Mode::Trampoline(id)) => {
                    let tp = layout.tramp_pos[id];
                    insn::encode_at(&mut out, &Insn::Branch { op: *o, target: tp }, at, |t| {
                        Ok((i64::from(*t) - i64::from(at)) as i32)
                    })?;
                }
                (i, _) => insn::encode_at(&mut out, i, at, rel)?,
            }
        }
        debug_assert_eq!(out.len() as u32, layout.end);

        let start_of = |b: usize| {
            if b == n {
                layout.end
            } else {
                layout.unit_start[b]
            }
        };
        // Ranges end before the trampolines of their end gap.
        let end_of = |b: usize| layout.gap_start[b];
        let u16of = |v: u32| v as u16;

        let exception_table = ranges
            .iter()
            .map(|(s, e, h, orig)| ExceptionHandler {
                start_pc: u16of(layout.unit_start[*s]),
                end_pc: u16of(end_of(*e)),
                handler_pc: u16of(layout.landing[*h]),
                catch_type: orig.catch_type,
            })
            .collect();

        // Frames.
        let remap_vtype = |v: VType| -> Result<VType> {
            match v {
                VType::Uninitialized(o) => {
                    let u = unit_at(u32::from(o), "uninitialized type's new")?;
                    Ok(VType::Uninitialized(u16of(layout.insn_pos[u])))
                }
                other => Ok(other),
            }
        };
        let remap_state = |s: &FrameState| -> Result<FrameState> {
            Ok(FrameState {
                locals: s
                    .locals
                    .iter()
                    .map(|v| remap_vtype(*v))
                    .collect::<Result<_>>()?,
                stack: s
                    .stack
                    .iter()
                    .map(|v| remap_vtype(*v))
                    .collect::<Result<_>>()?,
            })
        };
        let mut new_frames: BTreeMap<u32, FrameState> = BTreeMap::new();
        for (u, s) in &frames {
            let st = remap_state(s)?;
            new_frames.insert(layout.unit_start[*u], st.clone());
            new_frames.insert(layout.landing[*u], st);
        }
        for (id, (_, t)) in tramps.iter().enumerate() {
            if let Some(s) = frame_of.get(t) {
                new_frames.insert(layout.tramp_pos[id], remap_state(s)?);
            }
        }

        let mut attributes: Vec<Attribute> = Vec::with_capacity(code.attributes.len());
        for a in &code.attributes {
            let body = match &a.body {
                AttributeBody::StackMapTable(_) => {
                    let list: Vec<(u32, FrameState)> = new_frames.clone().into_iter().collect();
                    AttributeBody::StackMapTable(encode_frames(initial, &list)?)
                }
                AttributeBody::LineNumberTable(t) => AttributeBody::LineNumberTable(
                    t.iter()
                        .map(|l| {
                            Ok(LineNumber {
                                start_pc: u16of(
                                    layout.unit_start
                                        [unit_at(u32::from(l.start_pc), "line number")?],
                                ),
                                line: l.line,
                            })
                        })
                        .collect::<Result<_>>()?,
                ),
                AttributeBody::LocalVariableTable(t) => {
                    AttributeBody::LocalVariableTable(remap_lvt(t, &boundary, &start_of)?)
                }
                AttributeBody::LocalVariableTypeTable(t) => {
                    AttributeBody::LocalVariableTypeTable(remap_lvt(t, &boundary, &start_of)?)
                }
                // Other code attributes (type annotations, CharacterRangeTable) hold offsets this
                // editor does not know how to move: drop them rather than keep stale offsets.
                _ => continue,
            };
            attributes.push(Attribute { name: a.name, body });
        }
        let max_stack = u32::from(code.max_stack) + u32::from(self.extra_stack);
        Ok(Code {
            max_stack: u16::try_from(max_stack)
                .map_err(|_| Error::Rewrite(format!("max_stack {max_stack} exceeds 65535")))?,
            max_locals: code.max_locals,
            code: out,
            exception_table,
            attributes,
        })
    }

    /// The best gap for a trampoline near `pos`: after an unconditional instruction (or at the
    /// end), outside every exception range, within reach of a 16-bit offset.
    fn trampoline_gap(
        &self,
        l: &Layout,
        pos: i64,
        ranges: &[(usize, usize, usize, ExceptionHandler)],
    ) -> Option<usize> {
        let n = self.units.len();
        let margin = 4096;
        (1..=n)
            .filter(|&j| {
                let prev = &self.units[j - 1];
                prev.replacement.is_none() && op::is_unconditional(prev.insn.opcode())
            })
            .filter(|&j| !ranges.iter().any(|(s, e, _, _)| *s < j && j < *e))
            .map(|j| (j, (i64::from(l.gap_start[j]) - pos).abs()))
            .filter(|(_, d)| *d < i64::from(i16::MAX) - margin)
            .min_by_key(|(_, d)| *d)
            .map(|(j, _)| j)
    }
}

fn remap_lvt(
    t: &[LocalVariable],
    boundary: &dyn Fn(u32, &str) -> Result<usize>,
    start_of: &dyn Fn(usize) -> u32,
) -> Result<Vec<LocalVariable>> {
    t.iter()
        .map(|v| {
            let s = start_of(boundary(
                u32::from(v.start_pc),
                "local variable range start",
            )?);
            let e = start_of(boundary(
                u32::from(v.start_pc) + u32::from(v.length),
                "local variable range end",
            )?);
            Ok(LocalVariable {
                start_pc: s as u16,
                length: (e - s) as u16,
                ..*v
            })
        })
        .collect()
}
