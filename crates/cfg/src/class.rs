//! The analysis of one class: per-method graphs, the class's branches and goals, approach-level
//! data and DynaMOSA's goal hierarchy.
//!
//! *Branches* are the outcomes of conditional jumps (taken, not taken) and of switches (each case
//! whose target differs from the default's, then the default), numbered densely over the class
//! in class-file order of methods and code order, the same order in which the instrumenter
//! numbers its probe slots. A method with code but no branch contributes a *method goal*.
//!
//! Each branch records the branches that *control* it: the branch edges its source block is
//! control dependent on (looking through exceptional edges to what controls their source), or
//! [`Control::Entry`] when the method's entry does. This is what the approach level is counted
//! on, and what DynaMOSA's hierarchy is built from: the goals controlled by the entry are active
//! from the start, and covering a branch activates the goals it controls.
//!
//! ```text
//! void push(int x) {                          b0 (taken)     b1 (not taken)
//!   if (size >= values.length) resize();      controls: Entry
//!   if (size < values.length) values[..] = x; b2, b3: controls: Entry
//! }
//! ```

use std::collections::{BTreeSet, HashMap, VecDeque};
use std::ops::Range;

use ferrosuite_bytecode::classfile::access;
use ferrosuite_bytecode::insn::Insn;
use ferrosuite_bytecode::opcodes as op;
use ferrosuite_bytecode::{ClassFile, Member};
use serde::{Deserialize, Serialize};

use crate::Config;
use crate::cdg::{ControlDependence, Dependence};
use crate::dom::DomTree;
use crate::error::{Error, Result};
use crate::graph::{Cfg, EdgeKind, Outcome};
use crate::ids::{BlockId, BranchId, EdgeId, GoalId, MethodId};

/// What controls a branch.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Control {
    /// The method entry.
    Entry,
    /// Another branch of the same method.
    Branch(BranchId),
}

/// One branch: an outcome of a conditional jump or switch.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Branch {
    /// Its id.
    pub id: BranchId,
    /// The method it is in.
    pub method: MethodId,
    /// Bytecode offset of the jump or switch.
    pub offset: u32,
    /// Which outcome.
    pub outcome: Outcome,
    /// Mnemonic of the instruction (`ifeq`, `if_icmpge`, `tableswitch`, …).
    pub opcode: String,
    /// Source line of the instruction.
    pub line: Option<u16>,
    /// Source line where this outcome leads.
    pub target_line: Option<u16>,
    /// Block of the jump or switch.
    pub from: BlockId,
    /// Block the outcome leads to.
    pub to: BlockId,
    /// The edge in the method's graph.
    pub edge: EdgeId,
    /// False when the jump is dead code.
    pub reachable: bool,
    /// What controls the jump's block (sorted).
    pub controls: Vec<Control>,
    /// Smallest number of control-dependence steps from the method entry to the jump
    /// (0 when the entry controls it); `None` for dead code.
    pub depth: Option<u32>,
}

/// A coverage goal.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Goal {
    /// Cover this branch.
    Branch(BranchId),
    /// Call this branchless method.
    Method(MethodId),
}

/// DynaMOSA's goal hierarchy.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct GoalHierarchy {
    /// Goals active from the start: method goals and branches controlled by their method entry.
    pub roots: Vec<GoalId>,
    /// For each goal, the goals that become active when it is covered.
    pub children: Vec<Vec<GoalId>>,
}

/// A call instruction.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CallSite {
    /// Bytecode offset.
    pub offset: u32,
    /// Its block.
    pub block: BlockId,
    /// Source line.
    pub line: Option<u16>,
    /// `invokevirtual`, `invokespecial`, `invokestatic` or `invokeinterface`.
    pub opcode: u8,
    /// Owner class (internal name) of the referenced method.
    pub owner: String,
    /// Method name.
    pub name: String,
    /// Method descriptor.
    pub descriptor: String,
}

impl CallSite {
    /// True for calls that dispatch on the receiver's class (`invokevirtual`,
    /// `invokeinterface`).
    #[must_use]
    pub fn is_virtual(&self) -> bool {
        self.opcode == op::INVOKEVIRTUAL || self.opcode == op::INVOKEINTERFACE
    }
}

/// The graphs of a method with code.
#[derive(Debug, Clone)]
pub struct MethodBody {
    /// Control flow graph.
    pub cfg: Cfg,
    /// Dominator tree.
    pub dom: DomTree,
    /// Post-dominator tree.
    pub pdom: DomTree,
    /// Control dependences.
    pub cdg: ControlDependence,
    /// The method's branches (a range of the class's branch ids).
    pub branches: Range<u32>,
    /// Call instructions, in code order.
    pub calls: Vec<CallSite>,
}

impl MethodBody {
    /// The branch ids of this method.
    pub fn branch_ids(&self) -> impl Iterator<Item = BranchId> + use<> {
        self.branches.clone().map(BranchId)
    }
}

/// One method.
#[derive(Debug, Clone)]
pub struct MethodAnalysis {
    /// Its id.
    pub id: MethodId,
    /// Name.
    pub name: String,
    /// Descriptor.
    pub descriptor: String,
    /// Access flags.
    pub access: u16,
    /// Graphs, for methods with code.
    pub body: Option<MethodBody>,
}

impl MethodAnalysis {
    /// `name(desc)` as written in reports.
    #[must_use]
    pub fn signature(&self) -> String {
        format!("{}{}", self.name, self.descriptor)
    }

    /// True for static methods.
    #[must_use]
    pub fn is_static(&self) -> bool {
        self.access & access::STATIC != 0
    }

    /// True for private methods.
    #[must_use]
    pub fn is_private(&self) -> bool {
        self.access & access::PRIVATE != 0
    }
}

/// The analysis of a class.
#[derive(Debug, Clone)]
pub struct ClassAnalysis {
    /// Internal name.
    pub name: String,
    /// Internal name of the superclass.
    pub super_name: Option<String>,
    /// Access flags.
    pub access: u16,
    /// Methods in class-file order.
    pub methods: Vec<MethodAnalysis>,
    /// Branches in id order.
    pub branches: Vec<Branch>,
    /// Goals in id order: the branches (goal `i` is branch `i`), then method goals.
    pub goals: Vec<Goal>,
    /// DynaMOSA's hierarchy over the goals.
    pub hierarchy: GoalHierarchy,
}

impl ClassAnalysis {
    /// Analyses every method of `class`.
    pub fn analyze(class: &ClassFile, config: &Config) -> Result<Self> {
        let name = class.name()?.into_owned();
        let mut methods = Vec::with_capacity(class.methods.len());
        let mut branches = Vec::new();
        for (i, m) in class.methods.iter().enumerate() {
            let id = MethodId(i as u32);
            methods.push(analyze_method(class, &name, m, id, config, &mut branches)?);
        }
        let mut goals: Vec<Goal> = branches
            .iter()
            .map(|b: &Branch| Goal::Branch(b.id))
            .collect();
        for m in &methods {
            if let Some(body) = &m.body
                && body.branches.is_empty()
            {
                goals.push(Goal::Method(m.id));
            }
        }
        let hierarchy = hierarchy(&branches, &goals);
        Ok(ClassAnalysis {
            name,
            super_name: class.super_name()?.map(std::borrow::Cow::into_owned),
            access: class.access_flags,
            methods,
            branches,
            goals,
            hierarchy,
        })
    }

    /// The class name with dots.
    #[must_use]
    pub fn binary_name(&self) -> String {
        self.name.replace('/', ".")
    }

    /// One method.
    #[must_use]
    pub fn method(&self, id: MethodId) -> &MethodAnalysis {
        &self.methods[id.index()]
    }

    /// One branch.
    #[must_use]
    pub fn branch(&self, id: BranchId) -> &Branch {
        &self.branches[id.index()]
    }

    /// The method declared with this name and descriptor.
    #[must_use]
    pub fn find_method(&self, name: &str, descriptor: &str) -> Option<&MethodAnalysis> {
        self.methods
            .iter()
            .find(|m| m.name == name && m.descriptor == descriptor)
    }

    /// True when some method has code.
    #[must_use]
    pub fn has_code(&self) -> bool {
        self.methods.iter().any(|m| m.body.is_some())
    }

    /// The branch on `edge` of `method`, if that edge is a branch.
    #[must_use]
    pub fn branch_on_edge(&self, method: MethodId, edge: EdgeId) -> Option<BranchId> {
        let body = self.method(method).body.as_ref()?;
        body.branch_ids()
            .find(|&b| self.branches[b.index()].edge == edge)
    }

    /// The ancestors of a branch in the control-dependence hierarchy with their approach level:
    /// the branches controlling it at level 1, the branches controlling those at level 2, …
    /// (each with its smallest level), sorted by level then id.
    #[must_use]
    pub fn approach_levels(&self, target: BranchId) -> Vec<(BranchId, u32)> {
        let mut level: HashMap<BranchId, u32> = HashMap::new();
        let mut queue = VecDeque::from([(target, 0u32)]);
        while let Some((b, l)) = queue.pop_front() {
            for c in &self.branches[b.index()].controls {
                if let Control::Branch(p) = *c
                    && p != target
                    && !level.contains_key(&p)
                {
                    level.insert(p, l + 1);
                    queue.push_back((p, l + 1));
                }
            }
        }
        let mut out: Vec<(BranchId, u32)> = level.into_iter().collect();
        out.sort_by_key(|&(b, l)| (l, b));
        out
    }

    /// A short human-readable name of a branch: `method(desc) @offset L<line> <outcome>`.
    #[must_use]
    pub fn describe(&self, b: BranchId) -> String {
        let br = &self.branches[b.index()];
        let m = self.method(br.method);
        let line = br.line.map_or(String::new(), |l| format!(" L{l}"));
        format!(
            "{}{} @{}{} {}",
            m.name, m.descriptor, br.offset, line, br.outcome
        )
    }
}

fn analyze_method(
    class: &ClassFile,
    class_name: &str,
    m: &Member,
    id: MethodId,
    config: &Config,
    branches: &mut Vec<Branch>,
) -> Result<MethodAnalysis> {
    let name = class.member_name(m)?.into_owned();
    let descriptor = class.member_descriptor(m)?.into_owned();
    let qualified = || format!("{}.{name}{descriptor}", class_name.replace('/', "."));
    let Some(code) = m.code() else {
        return Ok(MethodAnalysis {
            id,
            name,
            descriptor,
            access: m.access_flags,
            body: None,
        });
    };
    let cfg = Cfg::build(code, &class.constant_pool, config.exception_edges).map_err(|e| {
        Error::MalformedCode {
            method: qualified(),
            offset: e.offset,
            problem: e.problem,
        }
    })?;
    let dom = DomTree::dominators(&cfg);
    let pdom = DomTree::post_dominators(&cfg);
    let cdg = ControlDependence::compute(&cfg, &pdom);

    // Branches: per jump in code order, outcomes in edge order (which is outcome order).
    let first = branches.len() as u32;
    let mut by_edge: HashMap<EdgeId, BranchId> = HashMap::new();
    for (i, e) in cfg.edges().iter().enumerate() {
        if let EdgeKind::Branch { outcome } = e.kind {
            let (offset, insn) = cfg
                .block_insns(e.from)
                .last()
                .map(|(o, i)| (*o, i.opcode()))
                .unwrap_or_default();
            let bid = BranchId(branches.len() as u32);
            by_edge.insert(EdgeId(i as u32), bid);
            branches.push(Branch {
                id: bid,
                method: id,
                offset,
                outcome,
                opcode: op::name(insn).to_string(),
                line: cfg.line_at(offset),
                target_line: cfg.block(e.to).line,
                from: e.from,
                to: e.to,
                edge: EdgeId(i as u32),
                reachable: cfg.block(e.from).reachable,
                controls: Vec::new(),
                depth: None,
            });
        }
    }
    let last = branches.len() as u32;
    for b in first..last {
        let from = branches[b as usize].from;
        branches[b as usize].controls = controls(&cfg, &cdg, from, &by_edge);
    }
    // Depths: breadth-first from the branches the entry controls.
    let mut children: HashMap<u32, Vec<u32>> = HashMap::new();
    let mut queue = VecDeque::new();
    for b in first..last {
        for c in branches[b as usize].controls.clone() {
            match c {
                Control::Entry => {
                    branches[b as usize].depth = Some(0);
                    queue.push_back(b);
                }
                Control::Branch(p) => children.entry(p.0).or_default().push(b),
            }
        }
    }
    while let Some(p) = queue.pop_front() {
        let d = branches[p as usize].depth.unwrap_or(0);
        for &c in children.get(&p).into_iter().flatten() {
            if branches[c as usize].depth.is_none() {
                branches[c as usize].depth = Some(d + 1);
                queue.push_back(c);
            }
        }
    }

    let mut calls = Vec::new();
    for (offset, insn) in cfg.insns() {
        let (opcode, index) = match insn {
            Insn::Cp { op: o, index }
                if matches!(*o, op::INVOKEVIRTUAL | op::INVOKESPECIAL | op::INVOKESTATIC) =>
            {
                (*o, *index)
            }
            Insn::InvokeInterface { index, .. } => (op::INVOKEINTERFACE, *index),
            _ => continue,
        };
        let r = class
            .constant_pool
            .member_ref(index)
            .map_err(|e| Error::MalformedCode {
                method: qualified(),
                offset: *offset,
                problem: e.to_string(),
            })?;
        calls.push(CallSite {
            offset: *offset,
            block: cfg.block_at(*offset).unwrap_or(Cfg::ENTRY),
            line: cfg.line_at(*offset),
            opcode,
            owner: r.class.into_owned(),
            name: r.name.into_owned(),
            descriptor: r.descriptor.into_owned(),
        });
    }
    Ok(MethodAnalysis {
        id,
        name,
        descriptor,
        access: m.access_flags,
        body: Some(MethodBody {
            cfg,
            dom,
            pdom,
            cdg,
            branches: first..last,
            calls,
        }),
    })
}

/// The branches (or the entry) controlling block `b`, looking through non-branch edges to what
/// controls their source.
fn controls(
    cfg: &Cfg,
    cdg: &ControlDependence,
    b: BlockId,
    by_edge: &HashMap<EdgeId, BranchId>,
) -> Vec<Control> {
    let mut out = BTreeSet::new();
    let mut seen = BTreeSet::from([b]);
    let mut stack = vec![b];
    while let Some(x) = stack.pop() {
        for d in cdg.of(x) {
            match d {
                Dependence::Entry => {
                    out.insert(Control::Entry);
                }
                Dependence::Edge(e) => {
                    if let Some(br) = by_edge.get(e) {
                        out.insert(Control::Branch(*br));
                    } else {
                        let from = cfg.edge(*e).from;
                        if seen.insert(from) {
                            stack.push(from);
                        }
                    }
                }
            }
        }
    }
    out.into_iter().collect()
}

fn hierarchy(branches: &[Branch], goals: &[Goal]) -> GoalHierarchy {
    let mut h = GoalHierarchy {
        roots: Vec::new(),
        children: vec![Vec::new(); goals.len()],
    };
    for (g, goal) in goals.iter().enumerate() {
        match goal {
            Goal::Method(_) => h.roots.push(GoalId(g as u32)),
            Goal::Branch(b) => {
                for c in &branches[b.index()].controls {
                    match c {
                        Control::Entry => h.roots.push(GoalId(g as u32)),
                        // Goal ids of branches equal their branch ids.
                        Control::Branch(p) if p != b => {
                            h.children[p.index()].push(GoalId(g as u32));
                        }
                        Control::Branch(_) => {}
                    }
                }
            }
        }
    }
    h.roots.dedup();
    h
}
