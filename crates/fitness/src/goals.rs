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
}

/// The hash [`GoalSet::resolve`] looks methods up by (fixed seed: the same in every run).
fn member_hash(class: &str, name: &str, descriptor: &str) -> u64 {
    FixedState::default().hash_one((class, name, descriptor))
}

/// The probe event a goal asks for, by index into the goal set's tables: what covers it and
/// what its per-test distance reads. A criterion chooses its goals among these.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
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
    pub(crate) criterion_index: Vec<u8>,
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
            }
        }
        returned.sort_unstable();
        ProbeGoals {
            branches: KeyedGoals::new(branches),
            lines: KeyedGoals::new(lines),
            methods: KeyedGoals::new(methods),
            returned,
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

    /// The goals of the criterion named `criterion`.
    pub fn goals_of<'s>(&'s self, criterion: &'s str) -> impl Iterator<Item = &'s Goal> + 's {
        self.goals.iter().filter(move |g| g.criterion == criterion)
    }

    /// The links of the goals of the criterion named `criterion`, in goal order.
    pub fn links_of<'s>(&'s self, criterion: &'s str) -> impl Iterator<Item = Link> + 's {
        self.goals
            .iter()
            .zip(&self.links)
            .filter(move |(g, _)| g.criterion == criterion)
            .map(|(_, l)| *l)
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
        self.config.criteria.iter().nth(usize::from(i))
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
        let criteria: Vec<Arc<dyn Criterion>> = self.config.criteria.iter().cloned().collect();
        criteria
            .iter()
            .flat_map(|c| c.discover(self, trace))
            .collect()
    }

    /// Adds a goal of the criterion named `criterion` (one of the configuration's) found at
    /// run time: what covers it (`link`), what it asks for and its description. Its class,
    /// line and reachability follow from the link. For [`Criterion::discover`].
    pub fn add_goal(
        &mut self,
        criterion: &'static str,
        link: Link,
        target: Target,
        description: String,
    ) -> GoalId {
        let id = GoalId(self.goals.len() as u32);
        let (class, line, reachable) = self.placed(link);
        let index = self
            .config
            .criteria
            .iter()
            .position(|c| c.name() == criterion)
            .and_then(|i| u8::try_from(i).ok())
            .unwrap_or(u8::MAX);
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
        self.criterion_index.push(index);
        self.children.push(Vec::new());
        id
    }

    /// The class, source line and reachability of a goal with this link.
    pub(crate) fn placed(&self, link: Link) -> (ClassIndex, Option<u16>, bool) {
        match link {
            Link::Branch(n) => {
                let b = &self.branches[n];
                (self.methods[b.method].class, b.line, b.reachable)
            }
            Link::Line(l) => {
                let ln = &self.lines[l];
                (ln.class, Some(ln.line), ln.reachable)
            }
            Link::Method(m) | Link::MethodNoException(m) | Link::Exception(m) => {
                (self.methods[m].class, None, true)
            }
        }
    }

    /// Records the exception goal of method index `m` and an exception class.
    pub(crate) fn index_exception_goal(&mut self, m: usize, exception: &str, id: GoalId) {
        self.exception_goals.insert((m, exception.to_string()), id);
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

    /// The exception goal of the method with index `m` and an exception class, if registered
    /// (without allocating a key).
    pub(crate) fn exception_goal_of(&self, m: usize, exception: &str) -> Option<GoalId> {
        self.exception_goals
            .range((m, String::new())..)
            .take_while(|((k, _), _)| *k == m)
            .find(|((_, e), _)| e == exception)
            .map(|(_, g)| *g)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::panic, clippy::float_cmp)]
mod tests {
    use ferrosuite_bytecode::instrument::map::ProbeMap;

    use super::*;
    use crate::criteria::names;
    use crate::testutil::sample;
    use crate::{Criteria, Error, Trace};

    fn descriptions(goals: &GoalSet, c: &str) -> Vec<String> {
        goals.goals_of(c).map(|g| g.description.clone()).collect()
    }

    #[test]
    fn goals_are_listed_by_criterion_class_and_code_order() {
        let s = sample();
        let goals = s.goals(Config::default());
        assert_eq!(
            descriptions(&goals, names::BRANCH),
            [
                "t.Sample.abs(I)I line 10 @1 ifge taken",
                "t.Sample.abs(I)I line 10 @1 ifge not taken",
                "t.Sample.nested(II)I line 20 @1 ifle taken",
                "t.Sample.nested(II)I line 20 @1 ifle not taken",
                "t.Sample.nested(II)I line 21 @5 ifle taken",
                "t.Sample.nested(II)I line 21 @5 ifle not taken",
                "t.Sample.dead(I)I line 31 @3 ifeq taken [unreachable]",
                "t.Sample.dead(I)I line 31 @3 ifeq not taken [unreachable]",
                "t.Sample.pick(I)I line 40 @1 lookupswitch case 1",
                "t.Sample.pick(I)I line 40 @1 lookupswitch case 5",
                "t.Sample.pick(I)I line 40 @1 lookupswitch default",
                "t.Sample.<init>()V (no branches)",
                "t.Sample.fail()V (no branches)",
                "t.Sample.helper()V (no branches)",
            ]
        );
        let lines: Vec<u16> = goals
            .goals_of(names::LINE)
            .map(|g| g.line.unwrap())
            .collect();
        assert_eq!(
            lines,
            [
                1, 10, 11, 12, 20, 21, 22, 23, 24, 30, 31, 40, 41, 42, 43, 50, 60
            ]
        );
        assert_eq!(goals.goals_of(names::METHOD).count(), 7);
        assert_eq!(goals.goals_of(names::EXCEPTION).count(), 0);
        assert_eq!(goals.static_goal_count(), 14 + 17 + 7);
        for (i, g) in goals.goals().iter().enumerate() {
            assert_eq!(g.id, GoalId(i as u32));
        }
        // Dead code is flagged, for branches and lines.
        let dead: Vec<&str> = goals
            .goals()
            .iter()
            .filter(|g| !g.reachable)
            .map(|g| g.description.as_str())
            .collect();
        assert_eq!(dead.len(), 3, "{dead:?}");
        assert_eq!(dead[2], "t.Sample line 31 [unreachable]");
        // The same inputs give the same goals.
        assert_eq!(sample().goals(Config::default()).goals(), goals.goals());
    }

    #[test]
    fn methods_resolve_by_hash_as_by_scanning_their_class() {
        let goals = sample().goals(Config::default());
        let mut asked = Vec::new();
        for m in &goals.methods {
            let class = &goals.classes[m.class.index()].name;
            for c in [class.clone(), class.replace('/', ".")] {
                asked.push((c.clone(), m.name.clone(), m.descriptor.clone()));
                asked.push((c.clone(), m.name.clone(), "()J".to_string()));
                asked.push((c, format!("{}x", m.name), m.descriptor.clone()));
            }
            asked.push(("t/Other".into(), m.name.clone(), m.descriptor.clone()));
        }
        let mut found = 0;
        for (c, n, d) in &asked {
            let fast = goals.resolve(c, n, d).map(|m| (m.class, m.id));
            let scan = goals.resolve_by_scan(c, n, d).map(|m| (m.class, m.id));
            assert_eq!(fast, scan, "{c}.{n}{d}");
            found += usize::from(fast.is_some());
        }
        assert_eq!(found, 2 * goals.methods.len());
    }

    #[test]
    fn branch_goals_know_their_slots_and_predicates_their_siblings() {
        let s = sample();
        let goals = s.goals(Config::default());
        let site = |m: &str, off: u32| {
            let mp = s.map.classes[0]
                .methods
                .iter()
                .find(|x| x.name == m)
                .unwrap();
            mp.branches
                .iter()
                .find(|b| b.offset == off)
                .unwrap()
                .clone()
        };
        for g in goals.goals_of(names::BRANCH) {
            let Target::Branch {
                branch,
                outcome,
                predicate,
                slot,
            } = g.target
            else {
                continue;
            };
            let b = s.analysis.branch(branch);
            assert_eq!(b.outcome, outcome);
            let p = goals.predicate(predicate).unwrap();
            assert_eq!(p.offset, b.offset);
            let name = &s.analysis.method(b.method).name;
            let site = site(name, b.offset);
            let slots: Vec<BranchSlot> = site.outcomes.iter().map(|o| o.slot).collect();
            assert_eq!(p.slots, slots);
            assert!(p.slots.contains(&slot));
            let label = site
                .outcomes
                .iter()
                .find(|o| o.slot == slot)
                .unwrap()
                .label
                .clone();
            assert_eq!(label, outcome.to_string());
        }
        assert_eq!(goals.predicates().len(), 5);
        // Method goals know their entry probes; the private helper has no
        // method-no-exception goal; `fail` declares IOException.
        let all = sample().goals(Config {
            criteria: Criteria::all(),
            ..Config::default()
        });
        for m in all.methods() {
            let mp = s.map.classes[0]
                .methods
                .iter()
                .find(|x| x.name == m.name)
                .unwrap();
            assert_eq!(m.probe, mp.id);
        }
        assert_eq!(all.goals_of(names::METHOD_NO_EXCEPTION).count(), 6);
        let fail = all.resolve("t/Sample", "fail", "()V").unwrap();
        assert!(fail.declares("java.io.IOException"));
        assert!(
            all.resolve("t.Sample", "helper", "()V")
                .unwrap()
                .is_private()
        );
        assert!(all.resolve("t/Other", "fail", "()V").is_none());
    }

    #[test]
    fn dynamosa_starts_with_uncontrolled_goals_and_activates_nested_ones() {
        let s = sample();
        let goals = s.goals(Config::default());
        let id = |what: &str| {
            goals
                .goals()
                .iter()
                .find(|g| g.description == what)
                .unwrap()
                .id
        };
        let outer_true = id("t.Sample.nested(II)I line 20 @1 ifle not taken");
        let inner: Vec<GoalId> = vec![
            id("t.Sample.nested(II)I line 21 @5 ifle taken"),
            id("t.Sample.nested(II)I line 21 @5 ifle not taken"),
        ];
        assert_eq!(goals.activated_by(outer_true), inner.as_slice());
        let initial = goals.initial_goals();
        for g in &inner {
            assert!(!initial.contains(g));
        }
        let dead = id("t.Sample.dead(I)I line 31 @3 ifeq taken [unreachable]");
        assert!(!initial.contains(&dead));
        // Everything else starts active, lines and methods included.
        assert_eq!(initial.len(), goals.static_goal_count() - 4);
        assert!(initial.windows(2).all(|w| w[0] < w[1]));
        assert!(goals.activated_by(GoalId(9999)).is_empty());
    }

    #[test]
    fn exception_goals_are_registered_once_in_trace_order() {
        let s = sample();
        let mut goals = s.goals(Config::default());
        let fail = goals.resolve("t/Sample", "fail", "()V").unwrap();
        let key = (fail.class, fail.id);
        let abs = goals.resolve("t/Sample", "abs", "(I)I").unwrap();
        let abs_key = (abs.class, abs.id);
        let mut t = Trace::new();
        t.add_exception(key, "java.lang.NullPointerException");
        t.add_exception(abs_key, "java.lang.Error");
        let n = goals.goals().len();
        let new = goals.discover_goals(&t);
        assert_eq!(new, [GoalId(n as u32), GoalId(n as u32 + 1)]);
        assert_eq!(
            goals.goals()[n].description,
            "t.Sample.abs(I)I throws java.lang.Error"
        );
        assert!(goals.discover_goals(&t).is_empty());
        assert_eq!(
            goals.exception_goal(key.0, key.1, "java.lang.NullPointerException"),
            Some(GoalId(n as u32 + 1))
        );
        assert_eq!(goals.fitness(new[1], &t), 0.0);
        assert_eq!(goals.fitness(new[1], &Trace::new()), 1.0);
        assert_eq!(goals.static_goal_count(), n);
        // Without the criterion nothing is registered.
        let mut plain = s.goals(Config {
            criteria: Criteria::branch(),
            ..Config::default()
        });
        assert!(plain.discover_goals(&t).is_empty());
    }

    #[test]
    fn options_exclude_and_include_methods() {
        let s = sample();
        let only_branch = s.goals(Config {
            criteria: Criteria::branch(),
            ..Config::default()
        });
        assert_eq!(only_branch.goals().len(), 14);
        assert!(only_branch.initial_goals().len() < 14);
        let lines = s.goals(Config {
            criteria: "line".parse::<Criteria>().unwrap(),
            ..Config::default()
        });
        assert_eq!(lines.goals().len(), 17);
        assert_eq!(lines.initial_goals().len(), 17);
        assert!(lines.notes().is_empty());
    }

    #[test]
    fn mismatches_and_misuse_are_errors() {
        let s = sample();
        let err = |map: &ProbeMap| {
            GoalSet::for_class(map, Config::default(), &s.analysis, None)
                .unwrap_err()
                .to_string()
        };
        assert!(err(&ProbeMap::new()).contains("not in the probe map"));
        let mut moved = s.map.clone();
        moved.classes[0].methods[1].branches[0].offset = 2;
        let e = err(&moved);
        assert!(
            e.contains("t.Sample.abs(I)I") && e.contains("offset 1"),
            "{e}"
        );
        let mut retargeted = s.map.clone();
        retargeted.classes[0].methods[1].branches[0].outcomes[0].target = 4;
        assert!(err(&retargeted).contains("leads to offset 7"));
        let mut extra = s.map.clone();
        let mut site = extra.classes[0].methods[1].branches[0].clone();
        site.offset = 5;
        extra.classes[0].methods[1].branches.push(site);
        assert!(err(&extra).contains("2 outcomes, the analysis 0 branches"));
        let mut b = GoalSet::builder(&s.map, Config::default());
        b.add_class(&s.analysis, None).unwrap();
        assert!(matches!(
            b.add_class(&s.analysis, None),
            Err(Error::DuplicateClass { .. })
        ));
        // A failed class leaves the builder as it was.
        let mut b = GoalSet::builder(&moved, Config::default());
        assert!(b.add_class(&s.analysis, None).is_err());
        assert!(b.set.methods.is_empty() && b.set.predicates.is_empty());
        assert!(b.set.branches.is_empty() && b.set.classes.is_empty());
        assert_eq!(b.build().goals().len(), 0);
        let other =
            ferrosuite_bytecode::ClassFile::new_class("t/Other", "java/lang/Object", 50).unwrap();
        let mut b = GoalSet::builder(&s.map, Config::default());
        assert!(matches!(
            b.add_class(&s.analysis, Some(&other)),
            Err(Error::WrongClassFile { .. })
        ));
        // A method the instrumenter skipped has no goals, and a note says why.
        let mut skipped = s.map.clone();
        skipped.classes[0].methods[1].skipped = Some("too large".into());
        skipped.classes[0].methods[1].branches.clear();
        let g = GoalSet::for_class(&skipped, Config::default(), &s.analysis, None).unwrap();
        assert!(g.resolve("t/Sample", "abs", "(I)I").is_none());
        assert_eq!(g.notes().len(), 1);
        assert!(g.notes()[0].contains("too large"));
    }

    proptest::proptest! {
        #[test]
        fn keyed_goals_list_what_a_scan_of_the_pairs_finds(
            pairs in proptest::collection::vec((0u32..40, 0u32..100), 0..30),
            spread in proptest::prelude::any::<bool>(),
        ) {
            // Spread keys take the sparse path (binary search), close ones the rows.
            let key = |k: u32| if spread { k * 100_000 } else { 1_000 + k };
            let pairs: Vec<(u32, GoalId)> = pairs.iter().map(|&(k, g)| (key(k), GoalId(g))).collect();
            let keyed = KeyedGoals::new(pairs.clone());
            let distinct: std::collections::BTreeSet<u32> = pairs.iter().map(|p| p.0).collect();
            proptest::prop_assert_eq!(keyed.keys.is_empty(), !spread || distinct.len() < 2);
            for k in (0..42).map(key).chain([0, u32::MAX]) {
                let mut want: Vec<GoalId> =
                    pairs.iter().filter(|p| p.0 == k).map(|p| p.1).collect();
                want.sort_unstable();
                proptest::prop_assert_eq!(keyed.get(k), want.as_slice());
            }
        }
    }
}
