//! Whole-suite fitness (Fraser & Arcuri, "Whole Test Suite Generation", III-C), one term per
//! criterion, summed.
//!
//! All terms read the merged trace of the suite ([`Trace::merged`]): hits add up over tests,
//! distances are the smallest any test reached.
//!
//! - **branch**: `|M| − |M_T| + Σ_b d(b, T)`, with `M` the methods with goals, `M_T` those
//!   entered, and `d(b, T)` = 0 when `b` was taken, `ν(d_min(b, T))` when its predicate ran at
//!   least twice (a predicate that ran once and took the other outcome cannot take `b` as well
//!   without losing that), 1 otherwise. Methods without branches count through `|M| − |M_T|`.
//! - **line**: the number of lines not hit. (Guidance towards lines comes from the branch
//!   term when both are on, as in the default set.)
//! - **method**: `|M| − |M_T|`.
//! - **method-no-exception**: per goal 0 (a direct call returned normally), ½ (called directly,
//!   every call threw) or 1.
//! - **exception**: 1 / (1 + n), n the number of distinct (method, exception class) pairs the
//!   suite's direct calls threw (as EvoSuite): more exceptions, lower fitness. It has no
//!   a-priori goals and is never 0, so with this criterion on a suite's fitness is never 0;
//!   [`SuiteFitness::complete`] tells whether every a-priori goal is covered.
//!
//! A suite with a lost test (time-out, crashed worker) gets the maximum of every term
//! (`|M| + |B|` for branches, as in the paper) when [`crate::Config::lost_test_is_max`] is set.
//! Apart from that, adding a test to a suite never increases its fitness, and the fitness is
//! 0 exactly when every goal is covered (without the exception criterion).
//!
//! ```text
//! Stack: M = {<init>, push, pop, resize}, B = 8 branches
//! suite {new Stack(); s.push(3)}: M_T = {<init>, push}; push's predicates ran once each
//!   => 4 - 2 + (d = 0, 1, 1, 0 for push) + 1 + 1 (pop) + 1 + 1 (resize) = 8
//! ```

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::Trace;
use crate::criteria::Criterion;
use crate::distance::normalize;
use crate::goals::{GoalSet, Link};
use crate::ids::ClassIndex;

/// The whole-suite fitness of a suite, with its parts.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SuiteFitness {
    /// The sum of the parts (to minimise).
    pub total: f64,
    /// Each criterion's term, in criterion order.
    pub parts: Vec<(Criterion, f64)>,
    /// A-priori goals covered.
    pub covered: usize,
    /// A-priori goals.
    pub goals: usize,
    /// Distinct (method, exception class) pairs thrown.
    pub exceptions: usize,
    /// Whether a test of the suite was lost (time-out, crash).
    pub lost: bool,
}

impl SuiteFitness {
    /// The term of one criterion, if it is on.
    #[must_use]
    pub fn part(&self, criterion: Criterion) -> Option<f64> {
        self.parts
            .iter()
            .find(|(c, _)| *c == criterion)
            .map(|(_, v)| *v)
    }

    /// Whether every a-priori goal is covered (the search may stop).
    #[must_use]
    pub fn complete(&self) -> bool {
        self.covered == self.goals
    }

    /// Covered a-priori goals as a fraction (1 when there are none).
    #[must_use]
    pub fn coverage(&self) -> f64 {
        if self.goals == 0 {
            1.0
        } else {
            self.covered as f64 / self.goals as f64
        }
    }
}

/// Covered goals of one criterion, for reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Coverage {
    /// The criterion.
    pub criterion: Criterion,
    /// Goals covered.
    pub covered: usize,
    /// Goals (for exceptions: those registered so far).
    pub total: usize,
}

impl GoalSet {
    /// Covered goals per criterion of the configuration, in criterion order.
    #[must_use]
    pub fn coverage(&self, suite: &Trace) -> Vec<Coverage> {
        self.config
            .criteria
            .iter()
            .map(|criterion| {
                let (mut covered, mut total) = (0, 0);
                for g in self.goals_of(criterion) {
                    total += 1;
                    covered += usize::from(self.is_covered(g.id, suite));
                }
                Coverage {
                    criterion,
                    covered,
                    total,
                }
            })
            .collect()
    }

    /// The whole-suite fitness of the suite whose tests left these traces.
    #[must_use]
    pub fn suite_fitness(&self, traces: &[&Trace]) -> SuiteFitness {
        self.suite_fitness_merged(&Trace::merged(traces.iter().copied()))
    }

    /// The whole-suite fitness from the suite's merged trace (for searches that keep the
    /// merge up to date themselves).
    #[must_use]
    pub fn suite_fitness_merged(&self, suite: &Trace) -> SuiteFitness {
        let statics = &self.goals[..self.static_goal_count()];
        let covered = statics
            .iter()
            .filter(|g| self.is_covered(g.id, suite))
            .count();
        let exceptions = suite
            .exceptions()
            .iter()
            .filter(|((c, m), _)| self.method_index(*c, *m).is_some())
            .count();
        self.assemble(covered, exceptions, suite.is_lost(), |c| {
            self.part(c, suite, exceptions)
        })
    }

    /// A [`SuiteFitness`] from its counts and a term per criterion (every term at its maximum
    /// when the suite lost a test and the configuration says so).
    fn assemble(
        &self,
        covered: usize,
        exceptions: usize,
        lost: bool,
        part: impl Fn(Criterion) -> f64,
    ) -> SuiteFitness {
        let max = lost && self.config.lost_test_is_max;
        let parts: Vec<(Criterion, f64)> = self
            .config
            .criteria
            .iter()
            .map(|c| (c, if max { self.max_part(c) } else { part(c) }))
            .collect();
        SuiteFitness {
            total: parts.iter().map(|p| p.1).sum(),
            parts,
            covered,
            goals: self.static_goal_count(),
            exceptions,
            lost,
        }
    }

    /// The largest whole-suite fitness: what a suite with a lost test gets.
    #[must_use]
    pub fn max_suite_fitness(&self) -> f64 {
        self.config.criteria.iter().map(|c| self.max_part(c)).sum()
    }

    fn max_part(&self, c: Criterion) -> f64 {
        let count = |f: &dyn Fn(&Link) -> bool| self.links.iter().filter(|l| f(l)).count() as f64;
        match c {
            Criterion::Branch => (self.methods.len() + self.branches.len()) as f64,
            Criterion::Line => count(&|l| matches!(l, Link::Line(_))),
            Criterion::Method => self.methods.len() as f64,
            Criterion::MethodNoException => count(&|l| matches!(l, Link::MethodNoException(_))),
            Criterion::Exception => 1.0,
        }
    }

    fn unentered(&self, suite: &Trace) -> f64 {
        self.methods
            .iter()
            .filter(|m| !suite.method_entered(m.probe))
            .count() as f64
    }

    fn part(&self, c: Criterion, suite: &Trace, exceptions: usize) -> f64 {
        match c {
            Criterion::Branch => {
                let mut sum = self.unentered(suite);
                for b in &self.branches {
                    let (hits, distance) = suite.branch(b.slot);
                    sum += if hits > 0 {
                        0.0
                    } else if self.predicate_hits(b.predicate, suite) >= 2 {
                        normalize(distance)
                    } else {
                        1.0
                    };
                }
                sum
            }
            Criterion::Line => self
                .lines
                .iter()
                .filter(|l| !suite.line_hit(l.probe))
                .count() as f64,
            Criterion::Method => self.unentered(suite),
            Criterion::MethodNoException => self
                .goals_of(Criterion::MethodNoException)
                .map(|g| self.fitness(g.id, suite))
                .sum(),
            Criterion::Exception => 1.0 / (1.0 + exceptions as f64),
        }
    }
}

/// Marks an index table entry that names nothing of the goal set.
const NONE: u32 = u32::MAX;

/// Whole-suite fitness straight from the tests' traces, without merging them.
///
/// [`GoalSet::suite_fitness`] merges the traces (a sort of all their entries) and then looks
/// every goal up in the merge. The whole-suite GA scores a full population of suites every
/// generation, so the scorer instead compiles each test's trace once into its own dense
/// indices ([`CompiledTrace`]) and folds the compiled traces of a suite: bit sets for the
/// branch outcomes taken, the predicates evaluated once and at least twice, the lines hit and
/// the methods entered (a few machine words per trace), and the smallest distances of the
/// branch outcomes the trace did not take (a bit set of those outcomes and their distances in
/// slot order, so that a fold skips a word of outcomes the suite took at once). A predicate
/// evaluated at least twice by the suite is one evaluated twice by some trace or once by two
/// of them, so the fold keeps "once" and "twice" sets:
/// `twice |= t.twice | (once & t.once); once |= t.once`. Hit counts beyond that are never read:
/// a branch counts as taken or not, and its distance only matters while no test of the suite
/// took it (then every distance the suite saw for it comes from a trace
/// that did not take it), and a bit set of the (method, exception class) pairs thrown, which
/// the scorer numbers as it compiles. Then one pass over the goals. Entries of a trace that
/// name nothing of the goal set (probes of other classes) are left out when compiling.
///
/// The result equals [`GoalSet::suite_fitness`] on the same traces (a property test keeps
/// that reference as the oracle). A scorer is built for one goal set and must be used with it
/// (exception goals registered later do not matter: exceptions are read from the traces).
///
/// ```text
/// predicate p with outcome slots 4 (branch b4, dense index 0) and 5 (b5, dense index 1)
/// t1 = {slot 4: hits 1, slot 5: distance 7}, t2 = {slot 4: hits 2, slot 5: distance 3}
/// compiled: t1 taken {0}, once {p}, near {1} [7]; t2 taken {0}, once, twice {p}, near {1} [3]
/// suite: taken {0}, twice {p}, distance[1] = 3 => b4 scores 0, b5 scores ν(3) = 0.75
/// ```
#[derive(Debug, Clone, Default)]
pub struct SuiteScorer {
    /// Dense index per branch slot (the slots of every predicate): `NONE` for other slots.
    slot_index: Vec<u32>,
    /// Dense slot index of each branch node.
    branch_slot: Vec<u32>,
    /// The predicate of the branch node of each dense slot that is a branch's (`NONE` for the
    /// others): what the branch term reads per outcome not taken, kept here beside the bit sets
    /// rather than read from the goal set's branch nodes (a cache miss each on Conversion).
    slot_predicate: Vec<u32>,
    /// One bit per dense slot that is a branch's.
    branch_slots: Vec<u64>,
    /// Whether the branches' dense slots increase with the branch index (so visiting the
    /// slots not taken in order visits their branches in order).
    branches_in_slot_order: bool,
    /// The static goals by kind, as bit masks over the fold's sets, one mask per multiplicity
    /// (a goal counted twice is in the first two masks): covered goals are popcounts.
    cover_taken: Vec<Vec<u64>>,
    cover_lines: Vec<Vec<u64>>,
    cover_entered: Vec<Vec<u64>>,
    /// The methods of the static method-no-exception goals, in goal order.
    no_exception: Vec<usize>,
    /// The predicates of each dense slot, each as often as it lists the slot (one, for what
    /// instrumentation produces).
    slot_predicates: Vec<Vec<u32>>,
    /// Line index per line probe.
    line_index: Vec<u32>,
    /// Method index per method-entry probe.
    method_index: Vec<u32>,
    /// Method index per class and method id (what calls and exceptions name).
    key_index: Vec<Vec<u32>>,
    line_count: usize,
    method_count: usize,
    /// The suite's fold, one bit per dense slot: outcomes taken.
    taken: Vec<u64>,
    /// One bit per predicate: evaluated at least once, at least twice.
    once: Vec<u64>,
    twice: Vec<u64>,
    /// Per dense slot: the smallest distance of a trace that did not take it.
    distance: Vec<f64>,
    /// Scratch of [`SuiteScorer::merge`]: per dense slot the smallest distance so far (`+∞`
    /// between merges), and one bit per slot set (cleared after each merge).
    merge_distance: Vec<f64>,
    merge_near: Vec<u64>,
    /// Scratch of [`SuiteScorer::compile`]: (dense slot, distance) as the trace lists them.
    compile_near: Vec<(u32, f64)>,
    /// Lines hit, one bit per line goal.
    lines: Vec<u64>,
    /// Methods entered, one bit per method.
    entered: Vec<u64>,
    /// Methods called directly, and those of them with a call that returned (so: not called,
    /// every call threw, some call returned), one bit per method.
    called: Vec<u64>,
    returned: Vec<u64>,
    /// An index per (method, exception class) pair any compiled trace threw, in the order
    /// first seen: a trace's exceptions become a bit set.
    exception_pairs: BTreeMap<(u32, Box<str>), u32>,
    /// The suite's fold: exception pairs thrown.
    exceptions: Vec<u64>,
}

/// A trace in a [`SuiteScorer`]'s own indices ([`SuiteScorer::compile`]): only what the goal
/// set names and only what whole-suite fitness reads. Compile a test's trace once and score
/// every suite that holds the test with it ([`SuiteScorer::score_compiled`]). Bit sets stop
/// at their last non-zero word.
///
/// Several compiled traces fold into one ([`SuiteScorer::merge`]) that scores as they do:
/// a search can keep the fold of a block of tests and reuse it in every suite that holds the
/// block.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CompiledTrace {
    /// Dense slots of the outcomes taken.
    taken: Vec<u64>,
    /// Predicates evaluated at least once, at least twice.
    once: Vec<u64>,
    twice: Vec<u64>,
    /// Dense slots of the branch outcomes seen but not taken, and their smallest distances,
    /// one per bit of `near` in slot order (an outcome of `taken` is never in `near`); per
    /// word of `near`, the index in `distance` of its first bit.
    near: Vec<u64>,
    near_rank: Vec<u32>,
    distance: Vec<f64>,
    lines: Vec<u64>,
    methods: Vec<u64>,
    /// Methods called directly, and those with a call that returned (bit sets: a merge ORs
    /// them, with no list of calls to sort).
    called: Vec<u64>,
    returned: Vec<u64>,
    /// The (method, exception class) pairs thrown, by the scorer's pair index.
    exceptions: Vec<u64>,
    lost: bool,
}

impl CompiledTrace {
    /// The lengths of the bit sets a fold ORs, in the order [`SuiteScorer::merge`] sizes them
    /// (`once` and `twice` as one).
    fn set_lens(&self) -> [usize; 7] {
        [
            self.taken.len(),
            self.once.len().max(self.twice.len()),
            self.lines.len(),
            self.methods.len(),
            self.called.len(),
            self.returned.len(),
            self.exceptions.len(),
        ]
    }

    /// Folds `t` into this merge: everything but the distances (see [`SuiteScorer::merge`]).
    fn fold_sets(&mut self, t: &CompiledTrace) {
        self.lost |= t.lost;
        or_grow(&mut self.taken, &t.taken);
        let n = t.once.len().max(t.twice.len());
        for v in [&mut self.once, &mut self.twice] {
            if v.len() < n {
                v.resize(n, 0);
            }
        }
        t.fold_predicates(&mut self.once, &mut self.twice);
        or_grow(&mut self.lines, &t.lines);
        or_grow(&mut self.methods, &t.methods);
        or_grow(&mut self.called, &t.called);
        or_grow(&mut self.returned, &t.returned);
        or_grow(&mut self.exceptions, &t.exceptions);
    }

    /// Folds this trace's predicate sets into a fold's (`once`, `twice` at least as long):
    /// evaluated twice by the fold when twice here or there, or once in each.
    fn fold_predicates(&self, once: &mut [u64], twice: &mut [u64]) {
        let n = self.once.len().max(self.twice.len());
        for (w, (once, twice)) in once.iter_mut().zip(twice).take(n).enumerate() {
            let o = self.once.get(w).copied().unwrap_or(0);
            let tw = self.twice.get(w).copied().unwrap_or(0);
            *twice |= tw | (*once & o);
            *once |= o;
        }
    }

    /// Ends a merge: bit sets cut after their last non-zero word.
    fn finish(&mut self) {
        for v in [
            &mut self.taken,
            &mut self.near,
            &mut self.once,
            &mut self.twice,
            &mut self.lines,
            &mut self.methods,
            &mut self.called,
            &mut self.returned,
            &mut self.exceptions,
        ] {
            while v.last() == Some(&0) {
                v.pop();
            }
        }
        self.near_rank.truncate(self.near.len());
    }

    /// Calls `f(slot, distance)` for each outcome of `near` whose bit is not in `taken`, in
    /// slot order: a word of `near` the suite took entirely costs a mask and a test.
    fn for_each_open(&self, taken: &[u64], mut f: impl FnMut(usize, f64)) {
        for (w, (&bits, &rank)) in self.near.iter().zip(&self.near_rank).enumerate() {
            let open = bits & !taken.get(w).copied().unwrap_or(0);
            if open == 0 {
                continue;
            }
            let (mut rest, mut r) = (bits, rank as usize);
            while rest != 0 {
                let b = rest.trailing_zeros();
                rest &= rest - 1;
                if open & (1 << b) != 0
                    && let Some(&d) = self.distance.get(r)
                {
                    f(w * 64 + b as usize, d);
                }
                r += 1;
            }
        }
    }

    /// Adds the distance of slot `i`, above every slot added before.
    fn push_distance(&mut self, i: usize, d: f64) {
        let w = i / 64;
        if self.near.len() <= w {
            let rank = u32::try_from(self.distance.len()).unwrap_or(u32::MAX);
            self.near.resize(w + 1, 0);
            self.near_rank.resize(w + 1, rank);
        }
        self.near[w] |= 1 << (i % 64);
        self.distance.push(d);
    }

    /// The (slot, distance) entries in slot order.
    #[cfg(test)]
    fn distances(&self) -> Vec<(usize, f64)> {
        let mut out = Vec::new();
        self.for_each_open(&[], |i, d| out.push((i, d)));
        out
    }

    /// Sets `near` and `distance` from (slot, distance) entries in any order: per slot the
    /// smallest, outcomes of `taken` left out.
    fn set_distances(&mut self, entries: &mut [(u32, f64)]) {
        entries.sort_unstable_by_key(|e| e.0);
        let mut last = None;
        for &(i, d) in entries.iter() {
            if bit(&self.taken, i as usize) {
                continue;
            }
            if last == Some(i) {
                if let Some(best) = self.distance.last_mut() {
                    *best = best.min(d);
                }
                continue;
            }
            last = Some(i);
            self.push_distance(i as usize, d);
        }
    }

    /// [`SuiteScorer::merge`] the simple way (all distances sorted by slot): the oracle of the
    /// tests.
    #[cfg(test)]
    fn merge<'a>(traces: impl IntoIterator<Item = &'a CompiledTrace>) -> CompiledTrace {
        let mut m = CompiledTrace::default();
        let mut entries = Vec::new();
        for t in traces {
            m.fold_sets(t);
            entries.extend(t.distances().into_iter().map(|(i, d)| (i as u32, d)));
        }
        m.set_distances(&mut entries);
        m.finish();
        m
    }
}

fn set_bit(words: &mut Vec<u64>, i: usize) {
    let w = i / 64;
    if words.len() <= w {
        words.resize(w + 1, 0);
    }
    words[w] |= 1 << (i % 64);
}

fn bit(words: &[u64], i: usize) -> bool {
    words.get(i / 64).is_some_and(|w| w & (1 << (i % 64)) != 0)
}

/// `into |= from`, growing `into` as needed.
fn or_grow(into: &mut Vec<u64>, from: &[u64]) {
    if into.len() < from.len() {
        into.resize(from.len(), 0);
    }
    or_into(into, from);
}

fn or_into(into: &mut [u64], from: &[u64]) {
    debug_assert!(
        from.len() <= into.len(),
        "a trace compiled by another scorer"
    );
    for (a, b) in into.iter_mut().zip(from) {
        *a |= b;
    }
}

fn ones(words: &[u64]) -> usize {
    words.iter().map(|w| w.count_ones() as usize).sum()
}

/// The bits `words` and `mask` share.
fn ones_in(words: &[u64], mask: &[u64]) -> usize {
    words
        .iter()
        .zip(mask)
        .map(|(w, m)| (w & m).count_ones() as usize)
        .sum()
}

/// Bit masks of indices by multiplicity: mask k holds the indices counted more than k times.
fn layers(counts: &BTreeMap<usize, usize>) -> Vec<Vec<u64>> {
    let mut masks: Vec<Vec<u64>> = Vec::new();
    for (&i, &c) in counts {
        for k in 0..c {
            if masks.len() <= k {
                masks.push(Vec::new());
            }
            set_bit(&mut masks[k], i);
        }
    }
    masks
}

fn table(entries: impl Iterator<Item = (u32, usize)>) -> Vec<u32> {
    let entries: Vec<(u32, usize)> = entries.collect();
    let len = entries.iter().map(|e| e.0 as usize + 1).max().unwrap_or(0);
    let mut t = vec![NONE; len];
    for (key, index) in entries {
        if let (Some(slot), Ok(i)) = (t.get_mut(key as usize), u32::try_from(index)) {
            *slot = i;
        }
    }
    t
}

fn lookup(table: &[u32], key: u32) -> Option<usize> {
    match table.get(key as usize) {
        Some(&i) if i != NONE => Some(i as usize),
        _ => None,
    }
}

impl SuiteScorer {
    /// A scorer for `goals`.
    #[must_use]
    pub fn new(goals: &GoalSet) -> Self {
        // Dense slots: the branches' first, in branch order, then the predicates' others.
        let mut seen = std::collections::BTreeSet::new();
        let mut slots: Vec<u32> = goals
            .branches
            .iter()
            .map(|b| b.slot.0)
            .filter(|s| seen.insert(*s))
            .collect();
        let mut rest: Vec<u32> = goals
            .predicates
            .iter()
            .flat_map(|p| p.slots.iter().map(|s| s.0))
            .filter(|s| !seen.contains(s))
            .collect();
        rest.sort_unstable();
        rest.dedup();
        slots.extend(rest);
        let slot_index = table(slots.iter().enumerate().map(|(i, &s)| (s, i)));
        let dense = |s: u32| lookup(&slot_index, s).and_then(|i| u32::try_from(i).ok());
        let branch_slot: Vec<u32> = goals
            .branches
            .iter()
            .map(|b| dense(b.slot.0).unwrap_or(NONE))
            .collect();
        let branches_in_slot_order =
            branch_slot.windows(2).all(|w| w[0] < w[1]) && branch_slot.iter().all(|&i| i != NONE);
        let mut slot_predicate = vec![NONE; slots.len()];
        let mut branch_slots = Vec::new();
        for (b, &i) in goals.branches.iter().zip(&branch_slot) {
            if let (Some(e), Ok(p)) = (
                slot_predicate.get_mut(i as usize),
                u32::try_from(b.predicate),
            ) {
                *e = p;
                set_bit(&mut branch_slots, i as usize);
            }
        }
        let (mut taken_counts, mut line_counts, mut entered_counts) =
            (BTreeMap::new(), BTreeMap::new(), BTreeMap::new());
        let mut no_exception = Vec::new();
        for link in &goals.links[..goals.static_goal_count()] {
            match *link {
                Link::Branch(n) => {
                    if let Some(&i) = branch_slot.get(n).filter(|&&i| i != NONE) {
                        *taken_counts.entry(i as usize).or_insert(0) += 1;
                    }
                }
                Link::Line(l) => *line_counts.entry(l).or_insert(0) += 1,
                Link::Method(m) => *entered_counts.entry(m).or_insert(0) += 1,
                Link::MethodNoException(m) => no_exception.push(m),
                Link::Exception(_) => {}
            }
        }
        let predicate_slots: Vec<Vec<u32>> = goals
            .predicates
            .iter()
            .map(|p| p.slots.iter().filter_map(|s| dense(s.0)).collect())
            .collect();
        let mut slot_predicates: Vec<Vec<u32>> = vec![Vec::new(); slots.len()];
        for (p, own) in predicate_slots.iter().enumerate() {
            for &i in own {
                if let (Some(t), Ok(p)) = (slot_predicates.get_mut(i as usize), u32::try_from(p)) {
                    t.push(p);
                }
            }
        }
        let line_index = table(goals.lines.iter().enumerate().map(|(i, l)| (l.probe.0, i)));
        let method_index = table(
            goals
                .methods
                .iter()
                .enumerate()
                .map(|(i, m)| (m.probe.0, i)),
        );
        let mut key_index: Vec<Vec<u32>> = vec![Vec::new(); goals.classes.len()];
        for (i, m) in goals.methods.iter().enumerate() {
            if let (Some(t), Ok(i)) = (key_index.get_mut(m.class.index()), u32::try_from(i)) {
                let at = m.id.index();
                if t.len() <= at {
                    t.resize(at + 1, NONE);
                }
                t[at] = i;
            }
        }
        let words = |n: usize| vec![0; n.div_ceil(64)];
        SuiteScorer {
            key_index,
            line_count: goals.lines.len(),
            method_count: goals.methods.len(),
            taken: words(slots.len()),
            once: words(goals.predicates.len()),
            twice: words(goals.predicates.len()),
            distance: vec![f64::INFINITY; slots.len()],
            merge_distance: vec![f64::INFINITY; slots.len()],
            merge_near: words(slots.len()),
            compile_near: Vec::new(),
            lines: words(goals.lines.len()),
            entered: words(goals.methods.len()),
            called: words(goals.methods.len()),
            returned: words(goals.methods.len()),
            exception_pairs: BTreeMap::new(),
            exceptions: Vec::new(),
            slot_predicate,
            branch_slots,
            branches_in_slot_order,
            cover_taken: layers(&taken_counts),
            cover_lines: layers(&line_counts),
            cover_entered: layers(&entered_counts),
            no_exception,
            slot_index,
            branch_slot,
            slot_predicates,
            line_index,
            method_index,
        }
    }

    /// The whole-suite fitness of the suite whose tests left these traces (the same as
    /// [`GoalSet::suite_fitness`]). Compiles every trace: when the same traces are scored
    /// again and again, compile them once and use [`SuiteScorer::score_compiled`].
    pub fn score<'a>(
        &mut self,
        goals: &GoalSet,
        traces: impl IntoIterator<Item = &'a Trace>,
    ) -> SuiteFitness {
        let compiled: Vec<CompiledTrace> = traces.into_iter().map(|t| self.compile(t)).collect();
        self.score_compiled(goals, &compiled)
    }

    /// `trace` in this scorer's indices: entries of classes and methods the goal set does not
    /// name are left out. (The scorer numbers the exception pairs it has not seen before.)
    #[must_use]
    pub fn compile(&mut self, trace: &Trace) -> CompiledTrace {
        let mut c = CompiledTrace {
            lost: trace.is_lost(),
            ..CompiledTrace::default()
        };
        for &(slot, h, distance) in trace.branches() {
            let Some(i) = lookup(&self.slot_index, slot.0) else {
                continue;
            };
            if h == 0 {
                // Only a branch's distance is ever read.
                if bit(&self.branch_slots, i)
                    && let Ok(dense) = u32::try_from(i)
                {
                    self.compile_near.push((dense, distance));
                }
                continue;
            }
            set_bit(&mut c.taken, i);
            // A predicate's hits (summed over its outcomes, each as often as it lists it) reach
            // 2 exactly when one listing has 2 or two listings have 1: the same once/twice
            // fold as over the tests of a suite.
            for &p in self.slot_predicates.get(i).map_or(&[][..], Vec::as_slice) {
                let p = p as usize;
                if h >= 2 || bit(&c.once, p) {
                    set_bit(&mut c.twice, p);
                }
                set_bit(&mut c.once, p);
            }
        }
        for line in trace.lines() {
            if let Some(i) = lookup(&self.line_index, line.0) {
                set_bit(&mut c.lines, i);
            }
        }
        for m in trace.methods() {
            if let Some(i) = lookup(&self.method_index, m.0) {
                set_bit(&mut c.methods, i);
            }
        }
        for &((class, method), returned) in trace.calls() {
            if let Some(i) = self
                .method_of(class, method)
                .and_then(|i| u32::try_from(i).ok())
            {
                set_bit(&mut c.called, i as usize);
                if returned {
                    set_bit(&mut c.returned, i as usize);
                }
            }
        }
        for (key, exception) in trace.exceptions() {
            if let Some(i) = self
                .method_of(key.0, key.1)
                .and_then(|i| u32::try_from(i).ok())
            {
                let next = u32::try_from(self.exception_pairs.len()).unwrap_or(u32::MAX);
                let pair = *self
                    .exception_pairs
                    .entry((i, exception.as_str().into()))
                    .or_insert(next);
                set_bit(&mut c.exceptions, pair as usize);
            }
        }
        let mut near = std::mem::take(&mut self.compile_near);
        c.set_distances(&mut near);
        near.clear();
        self.compile_near = near;
        c
    }

    /// The fold of several traces compiled by this scorer as one: scoring a suite with the
    /// merge in place of the traces gives the same fitness, and merges merge again.
    ///
    /// Outcomes, lines, methods and exception pairs are unions; a predicate is evaluated
    /// twice when one part evaluated it twice or two parts once each; calls keep per method
    /// whether any returned; distances keep per outcome the smallest, and only for outcomes
    /// no part took (the suite never reads the distance of an outcome it took). The parts are
    /// read twice: the sets first, then the distances of the outcomes the merge did not take,
    /// through a table indexed by slot, so the cost is linear in the parts' sizes.
    ///
    /// ```text
    /// t1: taken {0}, once {p}, near {1} [7]    t2: once {p}, near {0, 1} [2, 3]
    /// merge: taken {0}, once {p}, twice {p}, near {1} [3]
    /// ```
    pub fn merge<'a, I>(&mut self, traces: I) -> CompiledTrace
    where
        I: IntoIterator<Item = &'a CompiledTrace>,
        I::IntoIter: Clone,
    {
        let traces = traces.into_iter();
        // Every bit set at its final length first: the folds then never grow one.
        let mut lens = [0usize; 7];
        for t in traces.clone() {
            for (l, n) in lens.iter_mut().zip(t.set_lens()) {
                *l = (*l).max(n);
            }
        }
        let [
            taken,
            predicates,
            lines,
            methods,
            called,
            returned,
            exceptions,
        ] = lens;
        let mut m = CompiledTrace {
            taken: vec![0; taken],
            once: vec![0; predicates],
            twice: vec![0; predicates],
            lines: vec![0; lines],
            methods: vec![0; methods],
            called: vec![0; called],
            returned: vec![0; returned],
            exceptions: vec![0; exceptions],
            ..CompiledTrace::default()
        };
        for t in traces.clone() {
            m.fold_sets(t);
        }
        let (table, seen) = (&mut self.merge_distance, &mut self.merge_near);
        for t in traces {
            t.for_each_open(&m.taken, |i, d| {
                if let (Some(best), Some(word)) = (table.get_mut(i), seen.get_mut(i / 64)) {
                    *best = best.min(d);
                    *word |= 1 << (i % 64);
                }
            });
        }
        // Out in slot order, the table and the bits cleared behind.
        let len = seen.iter().rposition(|&w| w != 0).map_or(0, |w| w + 1);
        m.near.reserve_exact(len);
        m.near_rank.reserve_exact(len);
        m.distance
            .reserve_exact(seen[..len].iter().map(|w| w.count_ones() as usize).sum());
        for (w, bits) in seen.iter_mut().take(len).enumerate() {
            let mut open = std::mem::take(bits);
            m.near.push(open);
            m.near_rank
                .push(u32::try_from(m.distance.len()).unwrap_or(u32::MAX));
            while open != 0 {
                let i = w * 64 + open.trailing_zeros() as usize;
                open &= open - 1;
                if let Some(best) = table.get_mut(i) {
                    m.distance.push(std::mem::replace(best, f64::INFINITY));
                }
            }
        }
        m.finish();
        m
    }

    /// The whole-suite fitness of the suite whose tests left these compiled traces (compiled
    /// by this scorer): the same as [`SuiteScorer::score`] on the traces themselves. The
    /// traces are read twice (sets first, then the distances of outcomes not taken).
    pub fn score_compiled<'a, I>(&mut self, goals: &GoalSet, traces: I) -> SuiteFitness
    where
        I: IntoIterator<Item = &'a CompiledTrace>,
        I::IntoIter: Clone,
    {
        self.taken.fill(0);
        self.once.fill(0);
        self.twice.fill(0);
        self.distance.fill(f64::INFINITY);
        self.lines.fill(0);
        self.entered.fill(0);
        self.called.fill(0);
        self.returned.fill(0);
        self.exceptions.clear();
        self.exceptions
            .resize(self.exception_pairs.len().div_ceil(64), 0);
        let mut lost = false;
        let traces = traces.into_iter();
        for t in traces.clone() {
            lost |= t.lost;
            or_into(&mut self.taken, &t.taken);
            t.fold_predicates(&mut self.once, &mut self.twice);
            or_into(&mut self.lines, &t.lines);
            or_into(&mut self.entered, &t.methods);
            or_into(&mut self.called, &t.called);
            or_into(&mut self.returned, &t.returned);
            or_into(&mut self.exceptions, &t.exceptions);
        }
        // Distances once the outcomes taken are known: only those of outcomes the suite did
        // not take are read (most entries of a part are outcomes another part took, skipped
        // a word at a time).
        let (taken, distance) = (&self.taken, &mut self.distance);
        for t in traces {
            t.for_each_open(taken, |i, d| {
                if let Some(best) = distance.get_mut(i) {
                    *best = best.min(d);
                }
            });
        }
        let exceptions = ones(&self.exceptions);
        let count = |sets: &[u64], masks: &[Vec<u64>]| -> usize {
            masks.iter().map(|m| ones_in(sets, m)).sum()
        };
        let covered = count(&self.taken, &self.cover_taken)
            + count(&self.lines, &self.cover_lines)
            + count(&self.entered, &self.cover_entered)
            + self
                .no_exception
                .iter()
                .filter(|&&m| bit(&self.returned, m))
                .count();
        debug_assert_eq!(
            covered,
            goals.links[..goals.static_goal_count()]
                .iter()
                .filter(|link| self.covers(**link))
                .count()
        );
        goals.assemble(covered, exceptions, lost, |c| {
            self.part(goals, c, exceptions)
        })
    }

    fn method_of(&self, class: ClassIndex, method: ferrosuite_cfg::MethodId) -> Option<usize> {
        lookup(self.key_index.get(class.index())?, method.0)
    }

    fn branch_taken(&self, b: usize) -> bool {
        self.branch_slot
            .get(b)
            .is_some_and(|&i| i != NONE && bit(&self.taken, i as usize))
    }

    fn covers(&self, link: Link) -> bool {
        match link {
            Link::Branch(n) => self.branch_taken(n),
            Link::Line(l) => bit(&self.lines, l),
            Link::Method(m) => bit(&self.entered, m),
            Link::MethodNoException(m) => bit(&self.returned, m),
            // Exception goals are registered after the static ones: never asked here.
            Link::Exception(_) => false,
        }
    }

    fn part(&self, goals: &GoalSet, c: Criterion, exceptions: usize) -> f64 {
        let unentered = (self.method_count - ones(&self.entered)) as f64;
        match c {
            Criterion::Branch if self.branches_in_slot_order => {
                // Only the branches not taken add to the sum (the others add 0), in branch
                // order: the same sum, term by term, as the loop below.
                let mut sum = unentered;
                for (w, (&mask, &taken)) in self.branch_slots.iter().zip(&self.taken).enumerate() {
                    let mut open = mask & !taken;
                    while open != 0 {
                        let i = w * 64 + open.trailing_zeros() as usize;
                        open &= open - 1;
                        let Some(&p) = self.slot_predicate.get(i).filter(|&&p| p != NONE) else {
                            continue;
                        };
                        sum += if bit(&self.twice, p as usize) {
                            normalize(self.distance.get(i).copied().unwrap_or(f64::INFINITY))
                        } else {
                            1.0
                        };
                    }
                }
                sum
            }
            Criterion::Branch => {
                let mut sum = unentered;
                for (n, b) in goals.branches.iter().enumerate() {
                    sum += if self.branch_taken(n) {
                        0.0
                    } else if bit(&self.twice, b.predicate) {
                        let d = self
                            .branch_slot
                            .get(n)
                            .and_then(|&i| self.distance.get(i as usize))
                            .copied()
                            .unwrap_or(f64::INFINITY);
                        normalize(d)
                    } else {
                        1.0
                    };
                }
                sum
            }
            Criterion::Line => (self.line_count - ones(&self.lines)) as f64,
            Criterion::Method => unentered,
            Criterion::MethodNoException => self
                .no_exception
                .iter()
                .map(|&m| {
                    if bit(&self.returned, m) {
                        0.0
                    } else if bit(&self.called, m) {
                        0.5
                    } else {
                        1.0
                    }
                })
                .sum(),
            Criterion::Exception => 1.0 / (1.0 + exceptions as f64),
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::float_cmp, clippy::many_single_char_names)]
mod tests {
    use proptest::prelude::*;

    use super::*;
    use crate::testutil::{Sample, sample, slot};
    use crate::{Config, Criteria, GoalSet, Target};

    fn enter(goals: &GoalSet, t: &mut Trace, name: &str) {
        let m = goals.methods().iter().find(|m| m.name == name).unwrap();
        t.add_method(m.probe);
    }

    #[test]
    fn branch_term_follows_the_paper() {
        let s = sample();
        let goals = s.goals(Config {
            criteria: Criteria::branch(),
            ..Config::default()
        });
        // 7 methods, 11 branches: nothing ran.
        let empty = goals.suite_fitness(&[]);
        assert_eq!(empty.total, 18.0);
        assert_eq!(goals.max_suite_fitness(), 18.0);
        assert_eq!((empty.covered, empty.goals), (0, 14));
        // abs(-1): entered, taken once the `not taken` way (a < 0), distance 1 to `taken`.
        let mut t = Trace::new();
        enter(&goals, &mut t, "abs");
        t.add_branch(slot(&goals, "abs(I)I line 10 @1 ifge not taken"), 1, 0.0);
        t.add_branch(slot(&goals, "abs(I)I line 10 @1 ifge taken"), 0, 1.0);
        // The predicate ran once: the other branch counts 1, not ν(1).
        let f1 = goals.suite_fitness(&[&t]);
        assert_eq!(f1.total, 18.0 - 1.0 - 1.0);
        // A second test running it again the same way: now ν(1) = 0.5.
        let f2 = goals.suite_fitness(&[&t, &t]);
        assert_eq!(f2.total, 18.0 - 1.0 - 1.0 - 0.5);
        assert_eq!(f2.part(Criterion::Branch), Some(f2.total));
        assert_eq!(f2.part(Criterion::Line), None);
        assert!(!f2.complete());
    }

    #[test]
    fn terms_of_the_other_criteria() {
        let s = sample();
        let goals = s.goals(Config {
            criteria: Criteria::all(),
            ..Config::default()
        });
        let empty = goals.suite_fitness(&[]);
        let parts: Vec<(Criterion, f64)> = empty.parts.clone();
        assert_eq!(
            parts,
            [
                (Criterion::Branch, 18.0),
                (Criterion::Line, 17.0),
                (Criterion::Method, 7.0),
                (Criterion::MethodNoException, 6.0),
                (Criterion::Exception, 1.0),
            ]
        );
        assert_eq!(empty.total, 49.0);
        assert_eq!(goals.max_suite_fitness(), 49.0);
        let fail = goals.resolve("t/Sample", "fail", "()V").unwrap();
        let key = (fail.class, fail.id);
        let mut t = Trace::new();
        enter(&goals, &mut t, "fail");
        t.add_call(key, false);
        t.add_exception(key, "java.lang.NullPointerException");
        let f = goals.suite_fitness(&[&t]);
        assert_eq!(f.part(Criterion::Method), Some(6.0));
        assert_eq!(f.part(Criterion::MethodNoException), Some(5.5));
        assert_eq!(f.part(Criterion::Exception), Some(0.5));
        assert_eq!(f.exceptions, 1);
        let c: Vec<(Criterion, usize, usize)> = goals
            .coverage(&t)
            .iter()
            .map(|c| (c.criterion, c.covered, c.total))
            .collect();
        assert_eq!(
            c,
            [
                (Criterion::Branch, 1, 14),
                (Criterion::Line, 0, 17),
                (Criterion::Method, 1, 7),
                (Criterion::MethodNoException, 0, 6),
                (Criterion::Exception, 0, 0),
            ]
        );
        // A lost test makes the suite as bad as it gets.
        let mut lost = Trace::new();
        lost.mark_lost();
        let l = goals.suite_fitness(&[&t, &lost]);
        assert!(l.lost);
        assert_eq!(l.total, goals.max_suite_fitness());
        let lenient = s.goals(Config {
            lost_test_is_max: false,
            ..Config::default()
        });
        assert!(lenient.suite_fitness(&[&t, &lost]).total < lenient.max_suite_fitness());
    }

    /// Everything the sample's goals can observe, as indices: per slot (hits, distance),
    /// methods entered, lines hit, direct calls.
    #[derive(Debug, Clone)]
    struct Spec {
        branches: Vec<(u32, u32)>,
        methods: Vec<bool>,
        lines: Vec<bool>,
        calls: Vec<u8>,
    }

    fn spec() -> impl Strategy<Value = Spec> {
        (
            prop::collection::vec((0u32..3, 0u32..6), 11),
            prop::collection::vec(any::<bool>(), 7),
            prop::collection::vec(prop::bool::weighted(0.7), 17),
            prop::collection::vec(0u8..3, 7),
        )
            .prop_map(|(branches, methods, lines, calls)| Spec {
                branches,
                methods,
                lines,
                calls,
            })
    }

    /// A trace consistent with real executions: a taken outcome has distance 0, and the
    /// method of a predicate that ran was entered.
    fn trace(s: &GoalSet, spec: &Spec) -> Trace {
        let mut t = Trace::new();
        let mut entered = spec.methods.clone();
        let slots: Vec<(BranchSlot, usize)> = s
            .goals_of(Criterion::Branch)
            .filter_map(|g| match g.target {
                Target::Branch {
                    slot, predicate, ..
                } => {
                    let p = s.predicate(predicate).unwrap();
                    let m = s.methods().iter().position(|m| m.id == p.method).unwrap();
                    Some((slot, m))
                }
                _ => None,
            })
            .collect();
        // Predicates run as a whole: every outcome gets a distance when any does.
        for (k, &(slot, m)) in slots.iter().enumerate() {
            let (hits, d) = spec.branches[k];
            let pred_ran = slots
                .iter()
                .enumerate()
                .any(|(j, &(_, mm))| mm == m && spec.branches[j].0 > 0);
            if pred_ran {
                t.add_branch(slot, hits, if hits > 0 { 0.0 } else { f64::from(d + 1) });
                entered[m] = true;
            }
        }
        for (m, e) in entered.iter().enumerate() {
            if *e {
                t.add_method(s.methods()[m].probe);
            }
        }
        for (g, hit) in s.goals_of(Criterion::Line).zip(&spec.lines) {
            if let (Target::Line { probe, .. }, true) = (&g.target, hit) {
                t.add_line(*probe);
            }
        }
        for (m, c) in s.methods().iter().zip(&spec.calls) {
            if *c > 0 {
                t.add_call((m.class, m.id), *c == 2);
            }
        }
        t
    }

    fn static_criteria(s: &Sample) -> GoalSet {
        s.goals(Config {
            criteria: Criteria::all().without(Criterion::Exception),
            ..Config::default()
        })
    }

    use ferrosuite_bytecode::instrument::map::BranchSlot;

    proptest! {
        #[test]
        fn the_scorer_equals_the_merged_reference(
            specs in prop::collection::vec(spec(), 0..6),
            lost in any::<bool>(),
            lenient in any::<bool>(),
        ) {
            let s = sample();
            let goals = s.goals(Config {
                criteria: Criteria::all(),
                lost_test_is_max: !lenient,
                ..Config::default()
            });
            let mut traces: Vec<Trace> = specs.iter().map(|x| trace(&goals, x)).collect();
            // Exceptions (twice, and from a method outside the goal set) and a lost test.
            if let Some(t) = traces.first_mut() {
                let m = &goals.methods()[0];
                t.add_exception((m.class, m.id), "java.lang.IllegalStateException");
                t.add_exception((m.class, ferrosuite_cfg::MethodId(999)), "java.lang.Error");
                if lost {
                    t.mark_lost();
                }
            }
            if let Some(t) = traces.get_mut(1) {
                let m = &goals.methods()[0];
                t.add_exception((m.class, m.id), "java.lang.IllegalStateException");
                // A probe of another class.
                t.add_branch(BranchSlot(10_000), 3, 0.0);
            }
            let refs: Vec<&Trace> = traces.iter().collect();
            let mut scorer = SuiteScorer::new(&goals);
            // Twice: the scratch tables must not keep anything from the first call.
            let _ = scorer.score(&goals, refs.iter().copied().rev());
            prop_assert_eq!(scorer.score(&goals, refs.iter().copied()), goals.suite_fitness(&refs));
        }

        #[test]
        fn merged_blocks_score_as_their_tests(
            specs in prop::collection::vec(spec(), 0..8),
            cuts in prop::collection::vec(any::<bool>(), 8),
            nested in any::<bool>(),
            lost in 0usize..10,
        ) {
            let s = sample();
            let goals = s.goals(Config { criteria: Criteria::all(), ..Config::default() });
            let mut traces: Vec<Trace> = specs.iter().map(|x| trace(&goals, x)).collect();
            let m = goals.methods()[0].clone();
            for (k, t) in traces.iter_mut().enumerate() {
                // Exceptions repeated across blocks, and now and then a lost test.
                t.add_exception((m.class, m.id), if k % 2 == 0 { "E0" } else { "E1" });
                if k == lost {
                    t.mark_lost();
                }
            }
            let mut scorer = SuiteScorer::new(&goals);
            let compiled: Vec<CompiledTrace> = traces.iter().map(|t| scorer.compile(t)).collect();
            // Cut the suite into blocks where `cuts` says, and merge each.
            let mut blocks: Vec<Vec<&CompiledTrace>> = vec![Vec::new()];
            for (k, c) in compiled.iter().enumerate() {
                blocks.last_mut().unwrap().push(c);
                if cuts[k] {
                    blocks.push(Vec::new());
                }
            }
            let mut merged: Vec<CompiledTrace> =
                blocks.iter().map(|b| scorer.merge(b.iter().copied())).collect();
            // The scorer's merge is the simple one.
            for (b, m) in blocks.iter().zip(&merged) {
                prop_assert_eq!(m, &CompiledTrace::merge(b.iter().copied()));
            }
            if nested && merged.len() >= 2 {
                let tail = merged.split_off(merged.len() / 2);
                let m = scorer.merge(&tail);
                merged.push(m);
            }
            let whole = scorer.score_compiled(&goals, &compiled);
            prop_assert_eq!(&scorer.score_compiled(&goals, &merged), &whole);
            let all = scorer.merge(&compiled);
            prop_assert_eq!(&scorer.score_compiled(&goals, [&all]), &whole);
            let refs: Vec<&Trace> = traces.iter().collect();
            prop_assert_eq!(&whole, &goals.suite_fitness(&refs));
            // A merge of one trace is that trace.
            for c in &compiled {
                prop_assert_eq!(&scorer.merge([c]), c);
            }
        }

        #[test]
        fn predicates_counted_by_slot_as_by_asking_every_predicate(spec in spec()) {
            // Compiling counts a predicate's evaluations from the outcome slots a trace holds;
            // asking every predicate for the hits of its slots must give the same sets.
            let s = sample();
            let goals = static_criteria(&s);
            let t = trace(&goals, &spec);
            let mut scorer = SuiteScorer::new(&goals);
            let (mut once, mut twice) = (Vec::new(), Vec::new());
            for (p, predicate) in goals.predicates().iter().enumerate() {
                let n: u32 = predicate.slots.iter().map(|&slot| t.branch(slot).0).sum();
                if n >= 1 {
                    set_bit(&mut once, p);
                }
                if n >= 2 {
                    set_bit(&mut twice, p);
                }
            }
            let c = scorer.compile(&t);
            prop_assert_eq!(c.once, once);
            prop_assert_eq!(c.twice, twice);
        }

        #[test]
        fn shared_slots_score_as_the_reference(
            specs in prop::collection::vec(spec(), 0..4),
            shared in 0usize..100,
            shared_branch in any::<bool>(),
        ) {
            // Not what instrumentation produces (every outcome has its own slot), but the
            // scorer must not depend on it: one predicate lists an outcome slot twice, or
            // another predicate lists it too.
            let s = sample();
            let mut goals = static_criteria(&s);
            let n = goals.predicates.len();
            prop_assume!(n >= 2);
            let (a, b) = (shared % n, (shared / n + 1) % n);
            let slot = goals.predicates[a].slots[0];
            goals.predicates[a].slots.push(slot);
            if a != b {
                goals.predicates[b].slots.push(slot);
            }
            if shared_branch {
                // Two branch nodes on one slot: the scorer cannot visit the branches not
                // taken in slot order and takes the loop over every branch.
                let last = goals.branches.len() - 1;
                goals.branches[last].slot = goals.branches[0].slot;
            }
            let traces: Vec<Trace> = specs.iter().map(|x| trace(&goals, x)).collect();
            let refs: Vec<&Trace> = traces.iter().collect();
            let mut scorer = SuiteScorer::new(&goals);
            let i = lookup(&scorer.slot_index, slot.0).unwrap();
            prop_assert!(scorer.slot_predicates[i].len() >= 2);
            prop_assert_eq!(scorer.branches_in_slot_order, !shared_branch);
            prop_assert_eq!(scorer.score(&goals, refs.iter().copied()), goals.suite_fitness(&refs));
        }

        #[test]
        fn covered_goals_by_index_equal_asking_every_goal(
            specs in prop::collection::vec(spec(), 1..5),
            criteria in 0usize..3,
        ) {
            let s = sample();
            let criteria = [Criteria::all(), Criteria::branch(), Criteria::all().without(Criterion::Line)][criteria].clone();
            let mut goals = s.goals(Config { criteria, ..Config::default() });
            let mut traces: Vec<Trace> = specs.iter().map(|x| trace(&goals, x)).collect();
            // Exception goals registered at run time, one trace that throws another, and a
            // probe of another class.
            let m = goals.methods()[0].clone();
            traces[0].add_exception((m.class, m.id), "java.lang.IllegalStateException");
            let _ = goals.register_exceptions(&traces[0]);
            traces[0].add_exception((m.class, m.id), "java.lang.Error");
            traces[0].add_branch(BranchSlot(10_000), 3, 0.0);
            for t in &traces {
                prop_assert_eq!(goals.covered(t), goals.covered_by_every_goal(t));
            }
        }

        #[test]
        fn adding_a_test_never_increases_suite_fitness(
            specs in prop::collection::vec(spec(), 1..5),
            extra in spec(),
        ) {
            let s = sample();
            let goals = s.goals(Config { criteria: Criteria::all(), ..Config::default() });
            let traces: Vec<Trace> = specs.iter().map(|x| trace(&goals, x)).collect();
            let refs: Vec<&Trace> = traces.iter().collect();
            let before = goals.suite_fitness(&refs);
            let t = trace(&goals, &extra);
            let mut more = refs.clone();
            more.push(&t);
            let after = goals.suite_fitness(&more);
            prop_assert!(after.total <= before.total, "{} > {}", after.total, before.total);
            prop_assert!(after.covered >= before.covered);
            for ((_, a), (_, b)) in after.parts.iter().zip(&before.parts) {
                prop_assert!(a <= b);
            }
            // The order of the tests does not matter.
            let mut rev = more.clone();
            rev.reverse();
            prop_assert_eq!(&goals.suite_fitness(&rev), &after);
            prop_assert!(after.total >= 0.0 && after.total <= goals.max_suite_fitness());
        }

        #[test]
        fn suite_fitness_is_zero_iff_every_goal_is_covered(
            specs in prop::collection::vec(spec(), 1..6),
        ) {
            let s = sample();
            let goals = static_criteria(&s);
            let traces: Vec<Trace> = specs.iter().map(|x| trace(&goals, x)).collect();
            let refs: Vec<&Trace> = traces.iter().collect();
            let f = goals.suite_fitness(&refs);
            let merged = Trace::merged(refs.iter().copied());
            let all = goals
                .goals()
                .iter()
                .all(|g| goals.is_covered(g.id, &merged));
            prop_assert_eq!(f.total == 0.0, all);
            prop_assert_eq!(f.complete(), all);
            prop_assert_eq!(f.covered, goals.covered(&merged).len());
        }

        #[test]
        fn per_goal_fitness_is_zero_exactly_when_covered(spec in spec()) {
            let s = sample();
            let goals = static_criteria(&s);
            let t = trace(&goals, &spec);
            for g in goals.goals() {
                let f = goals.fitness(g.id, &t);
                prop_assert!(f >= 0.0 && f.is_finite());
                // An oracle straight from the trace.
                let covered = match &g.target {
                    Target::Branch { slot, .. } => t.branch(*slot).0 > 0,
                    Target::Line { probe, .. } => t.line_hit(*probe),
                    Target::Method { probe, .. } => t.method_entered(*probe),
                    Target::MethodNoException { method } => {
                        t.call((g.class, *method)) == Some(true)
                    }
                    Target::Exception { method, exception } => {
                        t.threw((g.class, *method), exception)
                    }
                };
                prop_assert_eq!(f == 0.0, covered, "{}", g);
                // Uncovered goals whose predicate or method ran are closer than 1.
                if let Target::Branch { predicate, .. } = &g.target {
                    let ran = goals.predicate(*predicate).unwrap().slots.iter()
                        .any(|&x| t.branch(x).0 > 0);
                    prop_assert!(!ran || f < 1.0);
                    prop_assert!(ran || f >= 1.0);
                }
            }
        }
    }

    #[test]
    fn zero_is_reached_when_everything_is_covered() {
        // The sample's dead branches can be "covered" by a made-up trace: then, and only then,
        // the static criteria reach 0.
        let s = sample();
        let goals = static_criteria(&s);
        let mut t = Trace::new();
        for p in goals.predicates() {
            for &slot in &p.slots {
                t.add_branch(slot, 2, 0.0);
            }
        }
        for m in goals.methods() {
            t.add_method(m.probe);
            t.add_call((m.class, m.id), true);
        }
        let mut lines = t.clone();
        for g in goals.goals_of(Criterion::Line) {
            if let Target::Line { probe, .. } = g.target {
                lines.add_line(probe);
            }
        }
        assert!(goals.suite_fitness(&[&t]).total > 0.0);
        let f = goals.suite_fitness(&[&lines]);
        assert_eq!(f.total, 0.0);
        assert!(f.complete());
        assert_eq!(f.coverage(), 1.0);
    }
}
