//! The control flow graph of one method, in basic blocks.
//!
//! A block is a maximal run of instructions entered only at its first instruction and left only
//! after its last. Leaders are: the first instruction, every jump or switch target, every
//! instruction after a jump, switch, return, `athrow` or `ret`, every exception handler, and the
//! first instruction of every protected range and the first one after it (so that a block is
//! either wholly inside or wholly outside each `try`). Two virtual blocks frame the method:
//! [`Cfg::ENTRY`] (an edge to the first block) and [`Cfg::EXIT`] (edges from every return and
//! every uncaught `athrow`).
//!
//! Edges are typed ([`EdgeKind`]): the two outcomes of a conditional jump, each switch case that
//! does not share the default's target, the default, `goto`, fall-through, `jsr`/`ret`,
//! returns and throws to the exit, and *exceptional* edges from every block of a protected range
//! that holds an instruction able to throw to the range's handler. Exceptions that leave the
//! method are not edges: every call could throw, and modelling that would leave nothing
//! post-dominated. A method that cannot reach the exit from some block (an infinite loop) gets a
//! [`EdgeKind::NoExit`] edge from the last block of each such loop to the exit, so that
//! post-dominators exist for every block. Blocks that the entry cannot reach are kept and marked
//! `reachable: false`.
//!
//! ```text
//! int abs(int x) {          0: iload_1          B2 [0..2)  --taken-->   B4
//!   if (x >= 0)             1: iflt 6                      --not taken--> B3
//!     return x;             4: iload_1          B3 [4..6)  --return-->  EXIT
//!   return -x;              5: ireturn
//! }                         6: iload_1 ineg ireturn   B4 [6,9) --return--> EXIT
//! ```

use std::collections::{BTreeSet, VecDeque};
use std::ops::Range;

use ferrosuite_bytecode::attributes::Code;
use ferrosuite_bytecode::constant_pool::{Constant, ConstantPool};
use ferrosuite_bytecode::insn::{self, Insn};
use ferrosuite_bytecode::opcodes as op;
use petgraph::graph::{DiGraph, NodeIndex};
use serde::{Deserialize, Serialize};

use crate::ids::{BlockId, EdgeId};

/// One outcome of a conditional jump or switch.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    /// The conditional jump is taken.
    Taken,
    /// The conditional jump falls through.
    NotTaken,
    /// A switch case with this key (keys that go where `default` goes are not cases).
    Case(i32),
    /// The switch's default.
    Default,
}

impl std::fmt::Display for Outcome {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Outcome::Taken => f.write_str("taken"),
            Outcome::NotTaken => f.write_str("not taken"),
            Outcome::Case(k) => write!(f, "case {k}"),
            Outcome::Default => f.write_str("default"),
        }
    }
}

/// Why control flows along an edge.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum EdgeKind {
    /// From the virtual entry to the first block.
    Entry,
    /// Into the next block without a jump.
    Fallthrough,
    /// `goto` / `goto_w`.
    Goto,
    /// One outcome of a conditional jump or switch: a branch.
    Branch {
        /// Which outcome.
        outcome: Outcome,
    },
    /// `jsr` to a subroutine.
    Jsr,
    /// `ret` back to an instruction after a `jsr`.
    Ret,
    /// A return instruction, to the virtual exit.
    Return,
    /// An `athrow` not caught by a catch-all handler, to the virtual exit.
    Throw,
    /// To an exception handler.
    Exception {
        /// Caught class (internal name), or `None` for a catch-all (`finally`).
        catch: Option<String>,
    },
    /// Virtual edge from a block of a loop that never reaches the exit.
    NoExit,
}

impl EdgeKind {
    /// True for the edges that are branches (conditional-jump outcomes and switch cases).
    #[must_use]
    pub fn outcome(&self) -> Option<Outcome> {
        match self {
            EdgeKind::Branch { outcome } => Some(*outcome),
            _ => None,
        }
    }
}

/// A control-flow edge.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Edge {
    /// Source block.
    pub from: BlockId,
    /// Target block.
    pub to: BlockId,
    /// Kind.
    #[serde(flatten)]
    pub kind: EdgeKind,
}

/// Whether a block is virtual or holds code.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BlockKind {
    /// The virtual entry.
    Entry,
    /// The virtual exit.
    Exit,
    /// A basic block of instructions.
    Code,
}

/// A basic block (or one of the two virtual blocks).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Block {
    /// Its id (its index in [`Cfg::blocks`]).
    pub id: BlockId,
    /// Virtual or code.
    pub kind: BlockKind,
    /// Offset of the first instruction (0 for virtual blocks).
    pub start: u32,
    /// Offset just after the last instruction (0 for virtual blocks).
    pub end: u32,
    /// Source line of the first instruction, when the class has line numbers.
    pub line: Option<u16>,
    /// False when no path from the entry reaches the block (dead code).
    pub reachable: bool,
}

/// Bytecode whose control flow cannot be built.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CodeError {
    /// Offset of the offending instruction or handler.
    pub offset: u32,
    /// What is wrong.
    pub problem: String,
}

fn bad(offset: u32, problem: impl Into<String>) -> CodeError {
    CodeError {
        offset,
        problem: problem.into(),
    }
}

/// The control flow graph of a method body.
#[derive(Debug, Clone)]
pub struct Cfg {
    blocks: Vec<Block>,
    edges: Vec<Edge>,
    succ: Vec<Vec<EdgeId>>,
    pred: Vec<Vec<EdgeId>>,
    insns: Vec<(u32, Insn)>,
    /// Instruction index range of each block (empty for virtual blocks).
    ranges: Vec<Range<usize>>,
    lines: Vec<(u32, u16)>,
}

impl Cfg {
    /// The virtual entry block.
    pub const ENTRY: BlockId = BlockId(0);
    /// The virtual exit block.
    pub const EXIT: BlockId = BlockId(1);

    /// Builds the graph of `code`; `cp` is the class's constant pool (to tell which `ldc` can
    /// throw and to name caught classes); `exception_edges` adds the edges into handlers.
    pub fn build(
        code: &Code,
        cp: &ConstantPool,
        exception_edges: bool,
    ) -> std::result::Result<Cfg, CodeError> {
        let insns = insn::decode(&code.code).map_err(|e| match e {
            ferrosuite_bytecode::Error::BadInstruction { offset, detail } => bad(offset, detail),
            other => bad(0, other.to_string()),
        })?;
        if insns.is_empty() {
            return Err(bad(0, "the code array is empty"));
        }
        let len = code.code.len() as u32;
        let index_of = |offset: u32| insns.binary_search_by_key(&offset, |(o, _)| *o).ok();
        let at = |from: u32, target: u32| {
            index_of(target).ok_or_else(|| {
                bad(
                    from,
                    format!("jump target {target} is not the start of an instruction"),
                )
            })
        };

        // Leaders (instruction indices).
        let mut leaders = BTreeSet::from([0usize]);
        let mut jsr_returns = Vec::new();
        for (i, (offset, insn)) in insns.iter().enumerate() {
            let o = insn.opcode();
            for t in insn.targets() {
                leaders.insert(at(*offset, *t)?);
            }
            if ends_block(o) && i + 1 < insns.len() {
                leaders.insert(i + 1);
            }
            if (o == op::JSR || o == op::JSR_W) && i + 1 < insns.len() {
                jsr_returns.push(i + 1);
            }
        }
        for h in &code.exception_table {
            let (s, e, hp) = (
                u32::from(h.start_pc),
                u32::from(h.end_pc),
                u32::from(h.handler_pc),
            );
            if s >= e || e > len {
                return Err(bad(
                    s,
                    format!("exception handler range [{s}, {e}) is empty or outside the code"),
                ));
            }
            let range_error = |what: &str, o: u32| {
                bad(
                    s,
                    format!("exception handler {what} {o} is not the start of an instruction"),
                )
            };
            leaders.insert(index_of(s).ok_or_else(|| range_error("start", s))?);
            leaders.insert(index_of(hp).ok_or_else(|| range_error("entry", hp))?);
            if e < len {
                leaders.insert(index_of(e).ok_or_else(|| range_error("end", e))?);
            }
        }

        // Blocks.
        let starts: Vec<usize> = leaders.into_iter().collect();
        let mut blocks = vec![
            Block {
                id: Self::ENTRY,
                kind: BlockKind::Entry,
                start: 0,
                end: 0,
                line: None,
                reachable: true,
                // set below
            },
            Block {
                id: Self::EXIT,
                kind: BlockKind::Exit,
                start: 0,
                end: 0,
                line: None,
                reachable: false,
            },
        ];
        let mut ranges = vec![0..0, 0..0];
        let mut block_of_insn = vec![BlockId(0); insns.len()];
        let mut lines: Vec<(u32, u16)> = code
            .line_numbers()
            .map(|l| (u32::from(l.start_pc), l.line))
            .collect();
        lines.sort_by_key(|l| l.0);
        lines.dedup_by_key(|l| l.0);
        let line_at = |offset: u32| line_in(&lines, offset);
        for (k, &s) in starts.iter().enumerate() {
            let e = starts.get(k + 1).copied().unwrap_or(insns.len());
            let id = BlockId(blocks.len() as u32);
            for b in &mut block_of_insn[s..e] {
                *b = id;
            }
            let start = insns[s].0;
            blocks.push(Block {
                id,
                kind: BlockKind::Code,
                start,
                end: insns.get(e).map_or(len, |x| x.0),
                line: line_at(start),
                reachable: false,
            });
            ranges.push(s..e);
        }

        // Edges.
        let mut edges = vec![Edge {
            from: Self::ENTRY,
            to: block_of_insn[0],
            kind: EdgeKind::Entry,
        }];
        let catch_all_covers = |offset: u32| {
            code.exception_table.iter().any(|h| {
                h.catch_type.0 == 0
                    && u32::from(h.start_pc) <= offset
                    && offset < u32::from(h.end_pc)
            })
        };
        for (b, r) in ranges.iter().enumerate().skip(2) {
            let r = r.clone();
            let from = BlockId(b as u32);
            let (offset, last) = &insns[r.end - 1];
            let next = |what: &str| {
                if r.end < insns.len() {
                    Ok(block_of_insn[r.end])
                } else {
                    Err(bad(
                        *offset,
                        format!("execution falls off the end of the code after {what}"),
                    ))
                }
            };
            let mut push = |to: BlockId, kind: EdgeKind| edges.push(Edge { from, to, kind });
            let o = last.opcode();
            match last {
                Insn::Branch { op: bop, target } if op::is_conditional(*bop) => {
                    push(
                        block_of_insn[at(*offset, *target)?],
                        EdgeKind::Branch {
                            outcome: Outcome::Taken,
                        },
                    );
                    push(
                        next("a conditional jump")?,
                        EdgeKind::Branch {
                            outcome: Outcome::NotTaken,
                        },
                    );
                }
                Insn::Branch { op: bop, target } => {
                    let kind = if *bop == op::JSR || *bop == op::JSR_W {
                        EdgeKind::Jsr
                    } else {
                        EdgeKind::Goto
                    };
                    push(block_of_insn[at(*offset, *target)?], kind);
                }
                Insn::TableSwitch { .. } | Insn::LookupSwitch { .. } => {
                    if let Some((default, pairs)) = last.switch_cases() {
                        for (key, t) in pairs {
                            if t != default {
                                push(
                                    block_of_insn[at(*offset, t)?],
                                    EdgeKind::Branch {
                                        outcome: Outcome::Case(key),
                                    },
                                );
                            }
                        }
                        push(
                            block_of_insn[at(*offset, default)?],
                            EdgeKind::Branch {
                                outcome: Outcome::Default,
                            },
                        );
                    }
                }
                Insn::Local { op: op::RET, .. } => {
                    if jsr_returns.is_empty() {
                        return Err(bad(*offset, "ret without any jsr in the method"));
                    }
                    for &i in &jsr_returns {
                        push(block_of_insn[i], EdgeKind::Ret);
                    }
                }
                _ if (op::IRETURN..=op::RETURN).contains(&o) => push(Self::EXIT, EdgeKind::Return),
                _ if o == op::ATHROW => {
                    if !(exception_edges && catch_all_covers(*offset)) {
                        push(Self::EXIT, EdgeKind::Throw);
                    }
                }
                _ => push(next("its last instruction")?, EdgeKind::Fallthrough),
            }
            if exception_edges {
                let (bstart, _) = insns[r.start];
                let throws = insns[r.clone()].iter().any(|(_, i)| can_throw(i, cp));
                if throws {
                    let mut seen = BTreeSet::new();
                    for h in &code.exception_table {
                        if u32::from(h.start_pc) <= bstart && bstart < u32::from(h.end_pc) {
                            let to = block_of_insn[index_of(u32::from(h.handler_pc)).unwrap_or(0)];
                            if seen.insert(to) {
                                let catch = if h.catch_type.0 == 0 {
                                    None
                                } else {
                                    Some(
                                        cp.class_name(h.catch_type)
                                            .map_err(|e| {
                                                bad(u32::from(h.handler_pc), e.to_string())
                                            })?
                                            .into_owned(),
                                    )
                                };
                                edges.push(Edge {
                                    from,
                                    to,
                                    kind: EdgeKind::Exception { catch },
                                });
                            }
                        }
                    }
                }
            }
        }

        let mut cfg = Cfg {
            blocks,
            edges,
            succ: Vec::new(),
            pred: Vec::new(),
            insns,
            ranges,
            lines,
        };
        cfg.index_edges();
        cfg.connect_endless_loops();
        cfg.mark_reachable();
        Ok(cfg)
    }

    fn index_edges(&mut self) {
        let n = self.blocks.len();
        self.succ = vec![Vec::new(); n];
        self.pred = vec![Vec::new(); n];
        for (i, e) in self.edges.iter().enumerate() {
            self.succ[e.from.index()].push(EdgeId(i as u32));
            self.pred[e.to.index()].push(EdgeId(i as u32));
        }
    }

    fn mark_reachable(&mut self) {
        let mut queue = VecDeque::from([Self::ENTRY]);
        let mut seen = vec![false; self.blocks.len()];
        seen[0] = true;
        while let Some(b) = queue.pop_front() {
            for &e in &self.succ[b.index()] {
                let to = self.edges[e.index()].to;
                if !seen[to.index()] {
                    seen[to.index()] = true;
                    queue.push_back(to);
                }
            }
        }
        for (b, s) in self.blocks.iter_mut().zip(seen) {
            b.reachable = s;
        }
    }

    /// Adds [`EdgeKind::NoExit`] edges out of every sink strongly connected component that
    /// cannot reach the exit: from each of its blocks that jumps back (to a block that does not
    /// come later in the code), or from its last block when none does. Leaving the loop where it
    /// jumps back keeps the blocks inside the loop from post-dominating each other's branches.
    fn connect_endless_loops(&mut self) {
        let n = self.blocks.len();
        let mut reaches = vec![false; n];
        reaches[Self::EXIT.index()] = true;
        let mut queue = VecDeque::from([Self::EXIT]);
        while let Some(b) = queue.pop_front() {
            for &e in &self.pred[b.index()] {
                let from = self.edges[e.index()].from;
                if !reaches[from.index()] {
                    reaches[from.index()] = true;
                    queue.push_back(from);
                }
            }
        }
        if reaches.iter().all(|&r| r) {
            return;
        }
        let g = self.graph();
        let sccs = petgraph::algo::tarjan_scc(&g);
        let mut comp = vec![0usize; n];
        for (c, scc) in sccs.iter().enumerate() {
            for v in scc {
                comp[v.index()] = c;
            }
        }
        let mut added = BTreeSet::new();
        for (c, scc) in sccs.iter().enumerate() {
            if reaches[scc[0].index()] {
                continue;
            }
            let sink = scc.iter().all(|v| {
                self.succ[v.index()]
                    .iter()
                    .all(|&e| comp[self.edges[e.index()].to.index()] == c)
            });
            if !sink {
                continue;
            }
            let blocks: Vec<BlockId> = scc.iter().map(|v| BlockId(v.index() as u32)).collect();
            let jumps_back = |b: &BlockId| {
                self.succ[b.index()].iter().any(|&e| {
                    let to = self.edges[e.index()].to;
                    comp[to.index()] == c
                        && self.blocks[to.index()].start <= self.blocks[b.index()].start
                })
            };
            let back: Vec<BlockId> = blocks.iter().copied().filter(jumps_back).collect();
            if back.is_empty() {
                if let Some(last) = blocks
                    .iter()
                    .copied()
                    .max_by_key(|b| (self.blocks[b.index()].start, b.0))
                {
                    added.insert(last);
                }
            } else {
                added.extend(back);
            }
        }
        for from in added {
            self.edges.push(Edge {
                from,
                to: Self::EXIT,
                kind: EdgeKind::NoExit,
            });
        }
        self.index_edges();
    }

    /// All blocks; index with [`BlockId::index`].
    #[must_use]
    pub fn blocks(&self) -> &[Block] {
        &self.blocks
    }

    /// One block.
    #[must_use]
    pub fn block(&self, id: BlockId) -> &Block {
        &self.blocks[id.index()]
    }

    /// All edges; index with [`EdgeId::index`].
    #[must_use]
    pub fn edges(&self) -> &[Edge] {
        &self.edges
    }

    /// One edge.
    #[must_use]
    pub fn edge(&self, id: EdgeId) -> &Edge {
        &self.edges[id.index()]
    }

    /// Ids of the edges leaving `b`.
    #[must_use]
    pub fn out_edges(&self, b: BlockId) -> &[EdgeId] {
        &self.succ[b.index()]
    }

    /// Ids of the edges entering `b`.
    #[must_use]
    pub fn in_edges(&self, b: BlockId) -> &[EdgeId] {
        &self.pred[b.index()]
    }

    /// The decoded instructions of the method (absolute targets).
    #[must_use]
    pub fn insns(&self) -> &[(u32, Insn)] {
        &self.insns
    }

    /// The instructions of block `b` (empty for the virtual blocks).
    #[must_use]
    pub fn block_insns(&self, b: BlockId) -> &[(u32, Insn)] {
        &self.insns[self.ranges[b.index()].clone()]
    }

    /// The block holding the instruction at `offset`.
    #[must_use]
    pub fn block_at(&self, offset: u32) -> Option<BlockId> {
        let i = self.insns.binary_search_by_key(&offset, |(o, _)| *o).ok()?;
        let k = self.ranges[2..].partition_point(|r| r.end <= i);
        Some(BlockId((k + 2) as u32))
    }

    /// The source line of the instruction at `offset`, when the class has line numbers.
    #[must_use]
    pub fn line_at(&self, offset: u32) -> Option<u16> {
        line_in(&self.lines, offset)
    }

    /// Number of code blocks no path from the entry reaches (dead code).
    #[must_use]
    pub fn unreachable_blocks(&self) -> usize {
        self.blocks.iter().filter(|b| !b.reachable).count()
    }

    /// True when some edge goes into an exception handler.
    #[must_use]
    pub fn has_exception_edges(&self) -> bool {
        self.edges
            .iter()
            .any(|e| matches!(e.kind, EdgeKind::Exception { .. }))
    }

    /// True when some block cannot reach the exit (and got a [`EdgeKind::NoExit`] edge).
    #[must_use]
    pub fn has_endless_loop(&self) -> bool {
        self.edges.iter().any(|e| e.kind == EdgeKind::NoExit)
    }

    /// The graph as a petgraph [`DiGraph`] whose node `i` is block `i` and whose edge weights are
    /// this graph's edge ids.
    #[must_use]
    pub fn graph(&self) -> DiGraph<BlockId, EdgeId> {
        let mut g = DiGraph::with_capacity(self.blocks.len(), self.edges.len());
        for b in &self.blocks {
            g.add_node(b.id);
        }
        for (i, e) in self.edges.iter().enumerate() {
            g.add_edge(
                NodeIndex::new(e.from.index()),
                NodeIndex::new(e.to.index()),
                EdgeId(i as u32),
            );
        }
        g
    }
}

fn line_in(lines: &[(u32, u16)], offset: u32) -> Option<u16> {
    let k = lines.partition_point(|l| l.0 <= offset);
    k.checked_sub(1).map(|k| lines[k].1)
}

/// True for the instructions after which control does not fall through to the next one.
fn ends_block(o: u8) -> bool {
    op::is_conditional(o)
        || matches!(
            o,
            op::GOTO
                | op::GOTO_W
                | op::JSR
                | op::JSR_W
                | op::RET
                | op::TABLESWITCH
                | op::LOOKUPSWITCH
                | op::ATHROW
        )
        || (op::IRETURN..=op::RETURN).contains(&o)
}

/// True for the instructions that can throw an exception (JVMS §6.5 run-time exceptions and
/// linkage errors): calls, field and array accesses, allocation, division, casts, monitors,
/// `athrow`, and `ldc` of anything but a number or a string.
#[must_use]
pub fn can_throw(i: &Insn, cp: &ConstantPool) -> bool {
    const IALOAD: u8 = 0x2e;
    const SALOAD: u8 = 0x35;
    const IASTORE: u8 = 0x4f;
    const SASTORE: u8 = 0x56;
    const IDIV: u8 = 0x6c;
    const LDIV: u8 = 0x6d;
    const IREM: u8 = 0x70;
    const LREM: u8 = 0x71;
    const ARRAYLENGTH: u8 = 0xbe;
    const MONITORENTER: u8 = 0xc2;
    const MONITOREXIT: u8 = 0xc3;
    match i {
        Insn::Cp { .. }
        | Insn::InvokeInterface { .. }
        | Insn::InvokeDynamic { .. }
        | Insn::MultiANewArray { .. }
        | Insn::NewArray(_) => true,
        Insn::Ldc { index, .. } => !matches!(
            cp.get(*index),
            Ok(Constant::Integer(_)
                | Constant::Float(_)
                | Constant::Long(_)
                | Constant::Double(_)
                | Constant::String(_))
        ),
        Insn::Simple(o) => matches!(
            *o,
            IALOAD..=SALOAD
                | IASTORE..=SASTORE
                | IDIV
                | LDIV
                | IREM
                | LREM
                | ARRAYLENGTH
                | MONITORENTER
                | MONITOREXIT
                | op::ATHROW
        ),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ferrosuite_bytecode::attributes::ExceptionHandler;
    use ferrosuite_bytecode::constant_pool::CpIndex;

    fn code(bytes: &[u8], handlers: Vec<ExceptionHandler>) -> Code {
        Code {
            max_stack: 4,
            max_locals: 4,
            code: bytes.to_vec(),
            exception_table: handlers,
            attributes: Vec::new(),
        }
    }

    fn shape(cfg: &Cfg) -> Vec<(u32, u32, EdgeKind)> {
        cfg.edges()
            .iter()
            .map(|e| (e.from.0, e.to.0, e.kind.clone()))
            .collect()
    }

    const TAKEN: EdgeKind = EdgeKind::Branch {
        outcome: Outcome::Taken,
    };
    const NOT_TAKEN: EdgeKind = EdgeKind::Branch {
        outcome: Outcome::NotTaken,
    };

    #[test]
    fn abs_from_the_module_doc() -> std::result::Result<(), CodeError> {
        let cp = ConstantPool::new();
        let c = code(
            &[0x1b, 0x9b, 0x00, 0x05, 0x1b, 0xac, 0x1b, 0x74, 0xac],
            vec![],
        );
        let cfg = Cfg::build(&c, &cp, true)?;
        let spans: Vec<(u32, u32)> = cfg.blocks()[2..].iter().map(|b| (b.start, b.end)).collect();
        assert_eq!(spans, [(0, 4), (4, 6), (6, 9)]);
        assert_eq!(
            shape(&cfg),
            [
                (0, 2, EdgeKind::Entry),
                (2, 4, TAKEN),
                (2, 3, NOT_TAKEN),
                (3, 1, EdgeKind::Return),
                (4, 1, EdgeKind::Return),
            ]
        );
        assert_eq!(cfg.block_at(5), Some(BlockId(3)));
        assert_eq!(cfg.block_at(7), Some(BlockId(4)));
        assert_eq!(cfg.block_at(2), None, "inside an instruction");
        assert!(cfg.blocks().iter().all(|b| b.reachable));
        Ok(())
    }

    #[test]
    fn jsr_and_ret_connect_subroutine_and_return_points() -> std::result::Result<(), CodeError> {
        // 0: jsr 4; 3: return; 4: astore_1; 5: ret 1
        let cp = ConstantPool::new();
        let c = code(&[0xa8, 0x00, 0x04, 0xb1, 0x4c, 0xa9, 0x01], vec![]);
        let cfg = Cfg::build(&c, &cp, true)?;
        assert_eq!(
            shape(&cfg),
            [
                (0, 2, EdgeKind::Entry),
                (2, 4, EdgeKind::Jsr),
                (3, 1, EdgeKind::Return),
                (4, 3, EdgeKind::Ret),
            ]
        );
        Ok(())
    }

    #[test]
    fn dead_code_is_kept_and_marked() -> std::result::Result<(), CodeError> {
        // 0: return; 1: iconst_0; 2: ireturn (unreachable)
        let cp = ConstantPool::new();
        let cfg = Cfg::build(&code(&[0xb1, 0x03, 0xac], vec![]), &cp, true)?;
        assert_eq!(cfg.blocks().len(), 4);
        assert!(cfg.block(BlockId(2)).reachable);
        assert!(!cfg.block(BlockId(3)).reachable);
        Ok(())
    }

    #[test]
    fn catch_all_swallows_athrow_and_only_throwing_blocks_get_handler_edges()
    -> std::result::Result<(), CodeError> {
        // 0: iconst_0; 1: istore_1 | 2: aconst_null; 3: athrow | 4: astore_1; 5: return
        // try [0, 4) catch any -> 4: the first block cannot throw, the second can.
        let cp = ConstantPool::new();
        let h = ExceptionHandler {
            start_pc: 0,
            end_pc: 2,
            handler_pc: 4,
            catch_type: CpIndex(0),
        };
        let h2 = ExceptionHandler {
            start_pc: 2,
            end_pc: 4,
            ..h
        };
        let c = code(&[0x03, 0x3c, 0x01, 0xbf, 0x4c, 0xb1], vec![h, h2]);
        let cfg = Cfg::build(&c, &cp, true)?;
        assert_eq!(
            shape(&cfg),
            [
                (0, 2, EdgeKind::Entry),
                (2, 3, EdgeKind::Fallthrough),
                (3, 4, EdgeKind::Exception { catch: None }),
                (4, 1, EdgeKind::Return),
            ]
        );
        Ok(())
    }

    #[test]
    fn athrow_under_a_catch_all_reaches_the_exit_without_exception_edges()
    -> std::result::Result<(), CodeError> {
        // 0: aconst_null; 1: athrow | 2: astore_1; 3: return; try [0, 2) catch any -> 2
        let cp = ConstantPool::new();
        let h = ExceptionHandler {
            start_pc: 0,
            end_pc: 2,
            handler_pc: 2,
            catch_type: CpIndex(0),
        };
        let cfg = Cfg::build(&code(&[0x01, 0xbf, 0x4c, 0xb1], vec![h]), &cp, false)?;
        assert_eq!(
            shape(&cfg),
            [
                (0, 2, EdgeKind::Entry),
                (2, 1, EdgeKind::Throw),
                (3, 1, EdgeKind::Return),
            ]
        );
        assert!(!cfg.has_endless_loop());
        Ok(())
    }

    #[test]
    fn bad_code_is_reported_with_its_offset() {
        let cp = ConstantPool::new();
        let err = |bytes: &[u8]| Cfg::build(&code(bytes, vec![]), &cp, true).err();
        assert_eq!(
            err(&[0xa7, 0x00, 0x09]).map(|e| (e.offset, e.problem)),
            Some((0, "branch target 9 is outside the code (length 3)".into()))
        );
        assert_eq!(
            err(&[0x01, 0xa9, 0x01]).map(|e| (e.offset, e.problem)),
            Some((1, "ret without any jsr in the method".into()))
        );
        assert_eq!(
            err(&[0x03, 0x99, 0xff, 0xff]).map(|e| e.problem),
            Some("execution falls off the end of the code after a conditional jump".into())
        );
    }
}
