//! The search's whole-suite scorer: compiled traces folded as bit sets (see [`SuiteScorer`]),
//! offering the criteria a view of the fold, with the same terms as the merged reference.

use std::collections::BTreeMap;

use crate::Trace;
use crate::criteria::SuiteView;
use crate::distance::normalize;
use crate::goals::{GoalSet, Link};
use crate::ids::ClassIndex;

use super::SuiteFitness;

#[cfg(test)]
#[path = "tests.rs"]
mod tests;

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
                // A pair is covered by one test, which a fold of the suite cannot tell.
                Link::Exception(_) | Link::Pair(..) => {}
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
        let view = FoldView {
            scorer: self,
            goals,
            exceptions,
        };
        goals.assemble(covered, exceptions, lost, |c| c.suite_term(goals, &view))
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
            // Exception goals are registered after the static ones: never asked here; a
            // pair needs one test taking both branches, which the fold does not keep.
            Link::Exception(_) | Link::Pair(..) => false,
        }
    }
}

/// The scorer's view of a suite: the fold [`SuiteScorer::score_compiled`] just computed.
struct FoldView<'a> {
    scorer: &'a SuiteScorer,
    goals: &'a GoalSet,
    exceptions: usize,
}

impl SuiteView for FoldView<'_> {
    fn methods_entered(&self) -> usize {
        ones(&self.scorer.entered)
    }

    fn method_entered(&self, method: usize) -> bool {
        bit(&self.scorer.entered, method)
    }

    fn lines_hit(&self) -> usize {
        ones(&self.scorer.lines)
    }

    fn line_hit(&self, line: usize) -> bool {
        bit(&self.scorer.lines, line)
    }

    fn branch_taken(&self, branch: usize) -> bool {
        self.scorer.branch_taken(branch)
    }

    fn for_each_open_branch(&self, each: &mut dyn FnMut(usize, bool, f64)) {
        let s = self.scorer;
        if s.branches_in_slot_order {
            // The branches' dense slots are their indices: the outcomes not taken, a word of
            // them at a time, in branch order.
            for (w, (&mask, &taken)) in s.branch_slots.iter().zip(&s.taken).enumerate() {
                let mut open = mask & !taken;
                while open != 0 {
                    let i = w * 64 + open.trailing_zeros() as usize;
                    open &= open - 1;
                    let Some(&p) = s.slot_predicate.get(i).filter(|&&p| p != NONE) else {
                        continue;
                    };
                    let d = s.distance.get(i).copied().unwrap_or(f64::INFINITY);
                    each(i, bit(&s.twice, p as usize), d);
                }
            }
            return;
        }
        for (n, b) in self.goals.branches.iter().enumerate() {
            if s.branch_taken(n) {
                continue;
            }
            let d = s
                .branch_slot
                .get(n)
                .and_then(|&i| s.distance.get(i as usize))
                .copied()
                .unwrap_or(f64::INFINITY);
            each(n, bit(&s.twice, b.predicate), d);
        }
    }

    fn add_branch_distances(&self, mut sum: f64) -> f64 {
        let s = self.scorer;
        if !s.branches_in_slot_order {
            self.for_each_open_branch(&mut |_, twice, d| {
                sum += if twice { normalize(d) } else { 1.0 };
            });
            return sum;
        }
        // The loop of `for_each_open_branch` with the term inline: it runs for every suite
        // the search scores.
        for (w, (&mask, &taken)) in s.branch_slots.iter().zip(&s.taken).enumerate() {
            let mut open = mask & !taken;
            while open != 0 {
                let i = w * 64 + open.trailing_zeros() as usize;
                open &= open - 1;
                let Some(&p) = s.slot_predicate.get(i).filter(|&&p| p != NONE) else {
                    continue;
                };
                sum += if bit(&s.twice, p as usize) {
                    normalize(s.distance.get(i).copied().unwrap_or(f64::INFINITY))
                } else {
                    1.0
                };
            }
        }
        sum
    }

    fn called(&self, method: usize) -> Option<bool> {
        bit(&self.scorer.called, method).then(|| bit(&self.scorer.returned, method))
    }

    fn exceptions(&self) -> usize {
        self.exceptions
    }
}
