//! Goal sets: the coverage goals of the classes under test for a set of criteria, matched with
//! the probes that measure them.
//!
//! A [`GoalSet`] is built from the [`ClassAnalysis`](ferrosuite_cfg::ClassAnalysis) of each
//! class under test (its branches, their control dependences, the per-class goal hierarchy)
//! and the [`ProbeMap`](ferrosuite_bytecode::instrument::map::ProbeMap) of the instrumentation
//! the tests run against. Matching goes by name, never by number, because the two sides number
//! differently (the analysis per class, over every method; the probe map per instrumentation
//! run, over instrumented methods only):
//!
//! - a method is matched by name and descriptor; its method goal knows its method-entry probe
//!   ([`ProbeMethodId`]);
//! - a branch is matched by method, bytecode offset of its jump or switch, and outcome
//!   (`taken` = the first slot of a jump, `not taken` = the second; `case k` = the slot of key
//!   `k`, `default` = the last slot of a switch); the target offsets of both sides must agree.
//!   Every branch goal knows its [`BranchSlot`], and its [`Predicate`] knows every sibling slot
//!   (a predicate ran as often as the hits of its outcomes add up to);
//! - a line goal is a source line of the class with a line probe ([`LineId`]) in a method that
//!   has goals.
//!
//! Any disagreement is an [`Error::ProbeMismatch`](crate::Error::ProbeMismatch): fitness on
//! misattributed probes would be silently wrong.
//!
//! Goals are listed criterion by criterion (in the order of the configuration's criteria, the
//! registry's), then class by class (in
//! the order added), then in code order: for branch coverage the branches, then the methods
//! without branches (as in the analysis), for lines ascending line numbers, for methods
//! class-file order. Branches in dead code stay goals, flagged `reachable: false`.
//!
//! Which methods have goals: every method with code, except static initialisers (they run once
//! per worker JVM before any test, so no test can influence them; the host reports their probe
//! data separately) and bridge methods, unless [`Config`] asks for them; and except methods
//! the instrumenter left alone (listed in [`GoalSet::notes`]).
//!
//! ```no_run
//! use ferrosuite_bytecode::classpath::ClassPath;
//! use ferrosuite_cfg::Analyzer;
//! use ferrosuite_fitness::{Config, GoalSet};
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let cp = ClassPath::parse("fixtures/classes/java8")?;
//! let (map, _bytes) = ferrosuite_bytecode::instrument::classes::instrument(
//!     &cp,
//!     &["examples/Stack".to_string()],
//!     &Default::default(),
//! )?;
//! let stack = Analyzer::new(&cp, ferrosuite_cfg::Config::default()).class("examples.Stack")?;
//! let mut b = GoalSet::builder(&map, Config::default());
//! let file = cp.load("examples/Stack")?; // for the `throws` clauses
//! b.add_class(&stack, Some(&file))?;
//! let goals = b.build();
//! for g in goals.goals() {
//!     println!("{g}");
//! }
//! # Ok(()) }
//! ```

mod builder;
#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::panic, clippy::float_cmp)]
mod tests;

use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::hash::BuildHasher;
use std::ops::Range;

use ferrosuite_bytecode::classfile::access;
use ferrosuite_bytecode::instrument::map::{BranchSlot, LineId, MethodId as ProbeMethodId};
use ferrosuite_cfg::{BranchId, MethodId, Outcome};
use foldhash::fast::FixedState;
use serde::{Deserialize, Serialize};

pub use builder::GoalSetBuilder;

use crate::Config;
use crate::criteria::Criterion;
use crate::error::{Error, Result};
use crate::ids::{ClassIndex, GoalId, PredicateId};
use crate::trace::MethodKey;
use std::sync::Arc;

/// A class under test of a goal set.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CutClass {
    /// Its index.
    pub index: ClassIndex,
    /// Internal name (`examples/Stack`).
    pub name: String,
    /// `SourceFile`, when the class records it.
    pub source_file: Option<String>,
}

impl CutClass {
    /// The binary name with dots (`examples.Stack`).
    #[must_use]
    pub fn binary_name(&self) -> String {
        self.name.replace('/', ".")
    }
}

/// A method with goals.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CutMethod {
    /// Its class.
    pub class: ClassIndex,
    /// Its id in the class's analysis.
    pub id: MethodId,
    /// Name.
    pub name: String,
    /// Descriptor.
    pub descriptor: String,
    /// Access flags.
    pub access: u16,
    /// Its method-entry probe.
    pub probe: ProbeMethodId,
    /// Exception classes of its `throws` clause (binary names), when the class file was given.
    pub declared_exceptions: Vec<String>,
    /// Whether it has no branch (then branch coverage has a method goal for it).
    pub branchless: bool,
}

impl CutMethod {
    /// `name(desc)`.
    #[must_use]
    pub fn signature(&self) -> String {
        format!("{}{}", self.name, self.descriptor)
    }

    /// Whether `exception` (binary name) is in the `throws` clause.
    #[must_use]
    pub fn declares(&self, exception: &str) -> bool {
        self.declared_exceptions.iter().any(|d| d == exception)
    }

    /// Whether the method is private.
    #[must_use]
    pub fn is_private(&self) -> bool {
        self.access & access::PRIVATE != 0
    }
}

/// A conditional jump or switch: the predicate deciding between sibling branches.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Predicate {
    /// Its id.
    pub id: PredicateId,
    /// Its class.
    pub class: ClassIndex,
    /// Its method.
    pub method: MethodId,
    /// Bytecode offset of the instruction.
    pub offset: u32,
    /// Source line.
    pub line: Option<u16>,
    /// Mnemonic (`ifeq`, `if_icmplt`, `tableswitch`, …).
    pub opcode: String,
    /// The slots of all its outcomes, in outcome order.
    pub slots: Vec<BranchSlot>,
    /// False when the instruction is dead code.
    pub reachable: bool,
}

/// What a goal asks for.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
#[non_exhaustive]
pub enum Target {
    /// Take this outcome of a predicate.
    Branch {
        /// The branch in the class's analysis.
        branch: BranchId,
        /// Which outcome.
        outcome: Outcome,
        /// Its predicate.
        predicate: PredicateId,
        /// The probe slot of the outcome.
        slot: BranchSlot,
    },
    /// Run this source line.
    Line {
        /// The line number.
        line: u16,
        /// Its probe.
        probe: LineId,
    },
    /// Enter this method.
    Method {
        /// The method.
        method: MethodId,
        /// Its entry probe.
        probe: ProbeMethodId,
    },
    /// Call this method from a test statement and have it return normally.
    MethodNoException {
        /// The method.
        method: MethodId,
    },
    /// Call this method from a test statement and have it throw this exception.
    Exception {
        /// The method.
        method: MethodId,
        /// Binary name of the exception class.
        exception: String,
    },
    /// Take two branch outcomes in one test (Cling's coupled branches: a caller's branch and
    /// a callee's).
    BranchPair {
        /// The class of the first branch.
        first_class: ClassIndex,
        /// The first branch (the caller's).
        first: BranchId,
        /// The class of the second branch.
        second_class: ClassIndex,
        /// The second branch (the callee's).
        second: BranchId,
    },
}

/// A coverage goal.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Goal {
    /// Its id.
    pub id: GoalId,
    /// The name of the criterion it belongs to.
    pub criterion: &'static str,
    /// Its class.
    pub class: ClassIndex,
    /// What it asks for.
    pub target: Target,
    /// Source line (of the jump for branches).
    pub line: Option<u16>,
    /// False for goals in dead code (no path from the method entry reaches them): they are
    /// infeasible and reports should say so.
    pub reachable: bool,
    /// A human-readable description for reports (class, method, line, outcome).
    pub description: String,
}

impl fmt::Display for Goal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}: {}", self.id, self.criterion, self.description)
    }
}

/// What controls a branch or line: the entry of a method (index into the methods), or a
/// branch (index into the branch nodes).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Ctl {
    Entry(usize),
    Branch(usize),
}

/// A branch of a method with goals (whether or not branch coverage is on: line goals use
/// branches for guidance).
#[derive(Debug, Clone)]
pub(crate) struct BranchNode {
    pub(crate) method: usize,
    pub(crate) slot: BranchSlot,
    pub(crate) predicate: usize,
    pub(crate) controls: Vec<Ctl>,
    pub(crate) cfg: BranchId,
    pub(crate) outcome: Outcome,
    pub(crate) reachable: bool,
    pub(crate) line: Option<u16>,
}

/// A source line with a probe.
#[derive(Debug, Clone)]
pub(crate) struct LineNode {
    pub(crate) class: ClassIndex,
    pub(crate) line: u16,
    pub(crate) probe: LineId,
    pub(crate) controls: Vec<Ctl>,
    pub(crate) reachable: bool,
    /// The methods (indices) whose code holds the line.
    pub(crate) methods: Vec<usize>,
}

/// The hash [`GoalSet::resolve`] looks methods up by (fixed seed: the same in every run).
#[inline]
fn member_hash(class: &str, name: &str, descriptor: &str) -> u64 {
    FixedState::default().hash_one((class, name, descriptor))
}

/// The probe event a goal asks for, by index into the goal set's tables: what covers it and
/// what its per-test distance reads. A criterion chooses its goals among these.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[non_exhaustive]
pub enum Link {
    /// A branch outcome taken (index of the branch node).
    Branch(usize),
    /// A method entered, directly or not (index into [`GoalSet::methods`]).
    Method(usize),
    /// A source line hit (index of the line node).
    Line(usize),
    /// A direct call of a method by a test statement returning normally.
    MethodNoException(usize),
    /// A direct call of a method throwing the exception class of the goal's
    /// [`Target::Exception`].
    Exception(usize),
    /// Two branch outcomes taken by the same test (indices of the branch nodes, first and
    /// second). Its distance is Cling's: while the first is not taken, 1 + the first's
    /// distance; then the second's.
    Pair(usize, usize),
}

/// What the goal-set builder matched for one class under test, for [`Criterion::goals`]:
/// its methods with goals, branch nodes and line nodes, as indices into the goal set's tables,
/// each in code order.
///
/// [`Criterion::goals`]: crate::criteria::Criterion::goals
#[derive(Debug, Clone)]
pub struct ClassGoals<'a> {
    set: &'a GoalSet,
    methods: Range<usize>,
    branches: Range<usize>,
    lines: Range<usize>,
}

impl<'a> ClassGoals<'a> {
    pub(crate) fn new(
        set: &'a GoalSet,
        methods: Range<usize>,
        branches: Range<usize>,
        lines: Range<usize>,
    ) -> Self {
        ClassGoals {
            set,
            methods,
            branches,
            lines,
        }
    }

    /// The goal set so far.
    #[must_use]
    pub fn set(&self) -> &'a GoalSet {
        self.set
    }

    /// The class's methods with goals (index, method), in class-file order.
    pub fn methods(&self) -> impl Iterator<Item = (usize, &'a CutMethod)> + '_ {
        self.methods
            .clone()
            .filter_map(|m| self.set.methods.get(m).map(|cm| (m, cm)))
    }

    /// The class's branch nodes (each outcome of each predicate), in code order.
    #[must_use]
    pub fn branches(&self) -> Range<usize> {
        self.branches.clone()
    }

    /// The class's line nodes (source lines with a probe), ascending.
    #[must_use]
    pub fn lines(&self) -> Range<usize> {
        self.lines.clone()
    }
}

/// The goals of the classes under test for a set of criteria (see the module documentation),
/// with DynaMOSA's activation hierarchy and everything fitness needs to read traces.
#[derive(Debug, Clone)]
pub struct GoalSet {
    pub(crate) config: Config,
    pub(crate) classes: Vec<CutClass>,
    class_index: BTreeMap<String, ClassIndex>,
    class_methods: Vec<Range<usize>>,
    /// Method indices by [`member_hash`] of class, name and descriptor (see
    /// [`GoalSet::resolve`]).
    member_index: HashMap<u64, Vec<usize>, FixedState>,
    pub(crate) methods: Vec<CutMethod>,
    pub(crate) predicates: Vec<Predicate>,
    pub(crate) branches: Vec<BranchNode>,
    pub(crate) lines: Vec<LineNode>,
    pub(crate) goals: Vec<Goal>,
    pub(crate) links: Vec<Link>,
    /// Per goal, the index of its criterion in the configuration's criteria.
    pub(crate) criterion_index: Vec<u16>,
    /// Per criterion of the configuration (by index), its goals in id order.
    pub(crate) by_criterion: Vec<Vec<GoalId>>,
    /// Goals added at run time whose link the probe index does not list (all but exception
    /// goals): [`GoalSet::covered`] asks each of them.
    pub(crate) runtime_goals: Vec<GoalId>,
    initial: Vec<GoalId>,
    children: Vec<Vec<GoalId>>,
    exception_goals: BTreeMap<(usize, String), GoalId>,
    branch_goals: BTreeMap<(ClassIndex, BranchId), GoalId>,
    pub(crate) by_probe: ProbeGoals,
    static_goals: usize,
    notes: Vec<String>,
}

/// The static goals by the trace entry that covers them: what [`GoalSet::covered`] looks up
/// for each entry of a trace instead of asking every goal. Probes are numbered densely, so
/// branch slots, lines and methods index tables directly ([`KeyedGoals`]); calls, keyed by
/// class and method, are a sorted list.
#[derive(Debug, Clone, Default)]
pub(crate) struct ProbeGoals {
    pub(crate) branches: KeyedGoals,
    pub(crate) lines: KeyedGoals,
    pub(crate) methods: KeyedGoals,
    pub(crate) returned: Vec<(MethodKey, GoalId)>,
    /// Pair goals under the slot of their second branch (the first is checked on a hit).
    pub(crate) pairs: KeyedGoals,
}

/// Goals listed under integer keys (probe ids), in compressed rows: the goals of key `k` are
/// `goals[starts[k - base] .. starts[k - base + 1]]`, one look-up per trace entry.
///
/// ```text
/// (slot 7, g2), (slot 7, g3), (slot 9, g5) => base 7, starts [0, 2, 2, 3], goals [g2, g3, g5]
/// ```
///
/// Keys spread much wider than the goals they hold (not what instrumentation produces) fall
/// back to a binary search of the sorted pairs.
#[derive(Debug, Clone, Default)]
pub(crate) struct KeyedGoals {
    base: u32,
    /// Row starts, one per key from `base` on, and the end.
    starts: Vec<u32>,
    /// The goals in key order.
    goals: Vec<GoalId>,
    /// The key of each goal, kept (and searched) only when the keys are too sparse for rows.
    keys: Vec<u32>,
}

impl KeyedGoals {
    fn new(mut pairs: Vec<(u32, GoalId)>) -> Self {
        pairs.sort_unstable();
        let (Some(&(lo, _)), Some(&(hi, _))) = (pairs.first(), pairs.last()) else {
            return KeyedGoals::default();
        };
        let span = (hi - lo) as usize + 1;
        let goals = pairs.iter().map(|&(_, g)| g).collect();
        if span > 16 * pairs.len() + 4096 || u32::try_from(pairs.len()).is_err() {
            return KeyedGoals {
                goals,
                keys: pairs.iter().map(|&(k, _)| k).collect(),
                ..KeyedGoals::default()
            };
        }
        let mut starts = vec![0u32; span + 1];
        for &(k, _) in &pairs {
            starts[(k - lo) as usize + 1] += 1;
        }
        for i in 1..starts.len() {
            starts[i] += starts[i - 1];
        }
        KeyedGoals {
            base: lo,
            starts,
            goals,
            keys: Vec::new(),
        }
    }

    /// The goals listed under `key`.
    pub(crate) fn get(&self, key: u32) -> &[GoalId] {
        let range = if self.keys.is_empty() {
            let Some(i) = key.checked_sub(self.base).map(|i| i as usize) else {
                return &[];
            };
            match (self.starts.get(i), self.starts.get(i + 1)) {
                (Some(&a), Some(&b)) => a as usize..b as usize,
                _ => return &[],
            }
        } else {
            let start = self.keys.partition_point(|k| *k < key);
            start..start + self.keys[start..].partition_point(|k| *k == key)
        };
        self.goals.get(range).unwrap_or(&[])
    }
}

impl ProbeGoals {
    /// The index of the static goals `links` describe.
    pub(crate) fn new(set: &GoalSet) -> Self {
        let (mut branches, mut lines, mut methods) = (Vec::new(), Vec::new(), Vec::new());
        let mut returned = Vec::new();
        let mut pairs = Vec::new();
        for (goal, link) in set.goals.iter().zip(&set.links) {
            let id = goal.id;
            match *link {
                Link::Branch(n) => branches.push((set.branches[n].slot.0, id)),
                Link::Line(l) => lines.push((set.lines[l].probe.0, id)),
                Link::Method(m) => methods.push((set.methods[m].probe.0, id)),
                Link::MethodNoException(m) => {
                    let cm = &set.methods[m];
                    returned.push(((cm.class, cm.id), id));
                }
                Link::Exception(_) => {}
                Link::Pair(_, second) => pairs.push((set.branches[second].slot.0, id)),
            }
        }
        returned.sort_unstable();
        ProbeGoals {
            branches: KeyedGoals::new(branches),
            lines: KeyedGoals::new(lines),
            methods: KeyedGoals::new(methods),
            returned,
            pairs: KeyedGoals::new(pairs),
        }
    }
}

/// The goals listed under `key` in a list sorted by key.
pub(crate) fn goals_under<K: Ord + Copy>(
    list: &[(K, GoalId)],
    key: K,
) -> impl Iterator<Item = GoalId> + '_ {
    let start = list.partition_point(|(k, _)| *k < key);
    list[start..]
        .iter()
        .take_while(move |(k, _)| *k == key)
        .map(|(_, g)| *g)
}

impl GoalSet {
    /// The settings.
    #[must_use]
    pub fn config(&self) -> &Config {
        &self.config
    }

    /// Every goal, in id order (including exception goals registered so far).
    #[must_use]
    pub fn goals(&self) -> &[Goal] {
        &self.goals
    }

    /// One goal.
    #[must_use]
    pub fn goal(&self, id: GoalId) -> Option<&Goal> {
        self.goals.get(id.index())
    }

    /// Number of goals known before anything ran (all but exception goals).
    #[must_use]
    pub fn static_goal_count(&self) -> usize {
        self.static_goals
    }

    /// The ids of the goals of the criterion named `criterion`, in id order (none when it is
    /// not one of the configuration's).
    fn ids_of(&self, criterion: &str) -> &[GoalId] {
        self.config
            .criteria
            .iter()
            .position(|c| c.name() == criterion)
            .and_then(|i| self.by_criterion.get(i))
            .map_or(&[], Vec::as_slice)
    }

    /// The goals of the criterion named `criterion`, in id order.
    pub fn goals_of<'s>(&'s self, criterion: &str) -> impl Iterator<Item = &'s Goal> + 's {
        self.ids_of(criterion)
            .iter()
            .filter_map(|g| self.goals.get(g.index()))
    }

    /// The links of the goals of the criterion named `criterion`, in goal order.
    pub fn links_of<'s>(&'s self, criterion: &str) -> impl Iterator<Item = Link> + 's {
        self.ids_of(criterion)
            .iter()
            .filter_map(|g| self.links.get(g.index()).copied())
    }

    /// The probe event goal `id` asks for.
    #[must_use]
    pub fn link(&self, id: GoalId) -> Option<Link> {
        self.links.get(id.index()).copied()
    }

    /// The criterion of goal `id`.
    #[must_use]
    pub fn criterion_of(&self, id: GoalId) -> Option<&Arc<dyn Criterion>> {
        let i = *self.criterion_index.get(id.index())?;
        self.config.criteria.get(usize::from(i))
    }

    /// Branch nodes (every outcome of every predicate of the methods with goals).
    #[must_use]
    pub fn branch_count(&self) -> usize {
        self.branches.len()
    }

    /// Line nodes (source lines with a probe in the methods with goals).
    #[must_use]
    pub fn line_count(&self) -> usize {
        self.lines.len()
    }

    /// The classes under test.
    #[must_use]
    pub fn classes(&self) -> &[CutClass] {
        &self.classes
    }

    /// The methods with goals, class by class in class-file order.
    #[must_use]
    pub fn methods(&self) -> &[CutMethod] {
        &self.methods
    }

    /// The predicates, class by class in code order.
    #[must_use]
    pub fn predicates(&self) -> &[Predicate] {
        &self.predicates
    }

    /// One predicate.
    #[must_use]
    pub fn predicate(&self, id: PredicateId) -> Option<&Predicate> {
        self.predicates.get(id.index())
    }

    /// Methods left out because the instrumenter skipped them, and similar remarks.
    #[must_use]
    pub fn notes(&self) -> &[String] {
        &self.notes
    }

    /// The goal of branch coverage for branch `branch` (the analysis's id) of class `class`.
    #[must_use]
    pub fn branch_goal(&self, class: ClassIndex, branch: BranchId) -> Option<GoalId> {
        self.branch_goals.get(&(class, branch)).copied()
    }

    /// The method with goals named `name` and `descriptor` in the class with internal (or
    /// binary) name `class`.
    #[must_use]
    pub fn resolve(&self, class: &str, name: &str, descriptor: &str) -> Option<&CutMethod> {
        if class.contains('.') {
            return self.resolve_internal(&class.replace('.', "/"), name, descriptor);
        }
        self.resolve_internal(class, name, descriptor)
    }

    /// [`GoalSet::resolve`] for an internal class name: one hash of the three names (no key
    /// built, so nothing allocated for each statement of each test), then the few candidates
    /// with that hash compared in full.
    fn resolve_internal(&self, class: &str, name: &str, descriptor: &str) -> Option<&CutMethod> {
        self.member_index
            .get(&member_hash(class, name, descriptor))?
            .iter()
            .filter_map(|&i| self.methods.get(i))
            .find(|m| {
                m.name == name
                    && m.descriptor == descriptor
                    && self
                        .classes
                        .get(m.class.index())
                        .is_some_and(|c| c.name == class)
            })
    }

    /// Indexes every method by [`member_hash`] (after the builder added the classes).
    pub(crate) fn index_members(&mut self) {
        let mut index: HashMap<u64, Vec<usize>, FixedState> =
            HashMap::with_hasher(FixedState::default());
        for (i, m) in self.methods.iter().enumerate() {
            let Some(c) = self.classes.get(m.class.index()) else {
                continue;
            };
            index
                .entry(member_hash(&c.name, &m.name, &m.descriptor))
                .or_default()
                .push(i);
        }
        self.member_index = index;
    }

    /// The reference for [`GoalSet::resolve`]: the class by name, then a scan of its methods.
    #[cfg(test)]
    pub(crate) fn resolve_by_scan(
        &self,
        class: &str,
        name: &str,
        descriptor: &str,
    ) -> Option<&CutMethod> {
        let c = self.class_index.get(&class.replace('.', "/"))?;
        let range = self.class_methods.get(c.index())?.clone();
        self.methods
            .get(range)?
            .iter()
            .find(|m| m.name == name && m.descriptor == descriptor)
    }

    /// The index into [`GoalSet::methods`] of method `id` of class `class`, if it has goals.
    #[must_use]
    pub fn method_index(&self, class: ClassIndex, id: MethodId) -> Option<usize> {
        let range = self.class_methods.get(class.index())?.clone();
        let start = range.start;
        self.methods
            .get(range)?
            .iter()
            .position(|m| m.id == id)
            .map(|i| start + i)
    }

    /// DynaMOSA: the goals active from the start. Branch goals (and method goals of methods
    /// without branches) come from the analysis's hierarchy: those controlled only by their
    /// method's entry; a reachable branch the hierarchy would never activate is added too, so
    /// every feasible goal becomes active at some point. Line, method, method-no-exception
    /// goals are always active: they have no control-dependence parent of their own (a line
    /// is guided by its controlling branches, but not gated by them). Exception goals are
    /// active from their registration ([`GoalSet::discover_goals`]).
    #[must_use]
    pub fn initial_goals(&self) -> &[GoalId] {
        &self.initial
    }

    /// DynaMOSA: the goals that become active when `goal` is covered (the branch goals it
    /// controls), in id order.
    #[must_use]
    pub fn activated_by(&self, goal: GoalId) -> &[GoalId] {
        self.children.get(goal.index()).map_or(&[], Vec::as_slice)
    }

    /// Adds the goals `trace` reveals (the exception criterion's: one per (method, exception
    /// class) pair not seen before) for each criterion of the configuration, in criterion
    /// order; returns the new goals' ids (in the trace's sorted order, so ids depend only on
    /// the order traces are given in).
    pub fn discover_goals(&mut self, trace: &crate::Trace) -> Vec<GoalId> {
        let mut out = Vec::new();
        for i in 0..self.config.criteria.len() {
            if let Some(c) = self.config.criteria.get(i).cloned() {
                out.extend(c.discover(self, trace));
            }
        }
        out
    }

    /// Adds a goal of the criterion named `criterion` (one of the configuration's) found at
    /// run time: what covers it (`link`), what it asks for and its description; its class,
    /// line and reachability follow from the link. For [`Criterion::discover`]. An error when
    /// the criterion is not one of the configuration's, the link names nothing of the goal
    /// set, or an exception link comes without an exception target or with one registered
    /// already ([`GoalSet::exception_goal_of`] tells).
    pub fn add_goal(
        &mut self,
        criterion: &'static str,
        link: Link,
        target: Target,
        description: String,
    ) -> Result<GoalId> {
        let index = self
            .config
            .criteria
            .iter()
            .position(|c| c.name() == criterion)
            .ok_or_else(|| {
                Error::Criterion(format!(
                    "goal {description:?}: criterion `{criterion}` is not one of the goal set's"
                ))
            })?;
        let (class, line, reachable) = self.placed(link).ok_or_else(|| {
            Error::Criterion(format!(
                "goal {description:?} of `{criterion}`: {link:?} names nothing of the goal set"
            ))
        })?;
        let exception = match (link, &target) {
            (Link::Exception(m), Target::Exception { exception, .. }) => {
                if self.exception_goal_of(m, exception).is_some() {
                    return Err(Error::Criterion(format!(
                        "goal {description:?}: that exception goal is registered already"
                    )));
                }
                Some((m, exception.clone()))
            }
            (Link::Exception(_), _) => {
                return Err(Error::Criterion(format!(
                    "goal {description:?}: an exception link needs an exception target"
                )));
            }
            _ => None,
        };
        let id = GoalId(u32::try_from(self.goals.len()).unwrap_or(u32::MAX));
        self.goals.push(Goal {
            id,
            criterion,
            class,
            target,
            line,
            reachable,
            description,
        });
        self.links.push(link);
        self.criterion_index
            .push(u16::try_from(index).unwrap_or(u16::MAX));
        if let Some(list) = self.by_criterion.get_mut(index) {
            list.push(id);
        }
        self.children.push(Vec::new());
        match exception {
            Some(key) => {
                self.exception_goals.insert(key, id);
            }
            None => self.runtime_goals.push(id),
        }
        Ok(id)
    }

    /// The class, source line and reachability of a goal with this link; `None` when the link
    /// names nothing of the goal set.
    pub(crate) fn placed(&self, link: Link) -> Option<(ClassIndex, Option<u16>, bool)> {
        Some(match link {
            Link::Branch(n) => {
                let b = self.branches.get(n)?;
                (self.methods.get(b.method)?.class, b.line, b.reachable)
            }
            Link::Line(l) => {
                let ln = self.lines.get(l)?;
                (ln.class, Some(ln.line), ln.reachable)
            }
            Link::Method(m) | Link::MethodNoException(m) | Link::Exception(m) => {
                (self.methods.get(m)?.class, None, true)
            }
            Link::Pair(a, b) => {
                let (first, second) = (self.branches.get(a)?, self.branches.get(b)?);
                (
                    self.methods.get(first.method)?.class,
                    first.line,
                    first.reachable && second.reachable,
                )
            }
        })
    }

    /// The index of the class under test with internal (or binary) name `name`.
    #[must_use]
    pub fn class_named(&self, name: &str) -> Option<ClassIndex> {
        self.class_index.get(&name.replace('.', "/")).copied()
    }

    /// The branch node (index, as [`Link::Branch`] takes) of branch `branch` (the analysis's
    /// id) of class `class`, whether or not branch coverage is a criterion.
    #[must_use]
    pub fn branch_node(&self, class: ClassIndex, branch: BranchId) -> Option<usize> {
        // Branch nodes are listed method by method, so a class's nodes are one run.
        let methods = self.class_methods.get(class.index())?.clone();
        let start = self.branches.partition_point(|b| b.method < methods.start);
        let end = self.branches.partition_point(|b| b.method < methods.end);
        self.branches
            .get(start..end)?
            .iter()
            .position(|b| b.cfg == branch)
            .map(|i| start + i)
    }

    /// The exception goal of a (method, exception class) pair, if registered.
    #[must_use]
    pub fn exception_goal(
        &self,
        class: ClassIndex,
        method: MethodId,
        exception: &str,
    ) -> Option<GoalId> {
        let m = self.method_index(class, method)?;
        self.exception_goal_of(m, exception)
    }

    /// The exception goal of the method with index `m` (into [`GoalSet::methods`]) and an
    /// exception class, if registered (without allocating a key).
    #[must_use]
    pub fn exception_goal_of(&self, m: usize, exception: &str) -> Option<GoalId> {
        self.exception_goals
            .range((m, String::new())..)
            .take_while(|((k, _), _)| *k == m)
            .find(|((_, e), _)| e == exception)
            .map(|(_, g)| *g)
    }
}
