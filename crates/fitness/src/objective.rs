//! Per-goal fitness of one test (MOSA, DynaMOSA, the archive): 0 when the test covers the
//! goal, larger the farther it is from covering it.
//!
//! For a branch `b` and a test's trace `t`:
//!
//! - 0 when `t` took `b`;
//! - ν(d) when `b`'s predicate ran but never took `b`, `d` being the smallest distance to
//!   taking it (approach level 0);
//! - otherwise approach level + ν(distance at the point where execution diverged): walking up
//!   the control dependences of `b` breadth first, level `k` holds the branches `k` steps
//!   above `b`; the first level with a branch that *was reached* decides. A reached branch
//!   contributes `k + ν(d)` when its predicate ran without taking it, `k` when it was taken
//!   (execution went the right way but left before `b`'s predicate, for instance by an
//!   exception), and the method entry contributes `k` when the method was entered and `k + 1`
//!   when it was not (ν(∞) = 1: nothing is known about how to call it).
//!
//! ```text
//! if (a > 0) {          // P1: b0 taken (a <= 0), b1 not taken
//!     if (b > 0) ...    // P2: b2, b3, controlled by b1
//! }
//! target b3, test with a = -4: P2 never ran, P1 ran with distance 5 to b1
//!     => approach level 1 + ν(5) = 1.833…
//! target b3, test that never calls the method: 1 (b1) + 1 (entry) + 1 (not entered) = 3
//! ```
//!
//! A line goal is treated like a branch whose predicate never ran when it was not hit: its
//! level-1 parents are what the blocks of the line are control dependent on. Method goals are 0
//! or 1 (entered or not); method-no-exception goals 0 (a direct call returned normally), ½
//! (direct calls, all threw) or 1 (never called directly); exception goals 0 or 1.

use crate::Trace;
use crate::distance::normalize;
use crate::goals::{Ctl, GoalSet, Link, goals_under};
use crate::ids::GoalId;

/// The lists of an approach walk, kept between the goals of one fitness vector.
#[derive(Default)]
struct Walk {
    frontier: Vec<Ctl>,
    next: Vec<Ctl>,
    seen: Vec<usize>,
}

impl GoalSet {
    /// The fitness of `goal` for one test (or any trace): 0 iff covered, otherwise positive:
    /// the criterion's own ([`Criterion::fitness`](crate::criteria::Criterion::fitness)), else
    /// the distance of the goal's probe event (see the module documentation). An unknown goal
    /// id gives `+∞`, and so does every goal for a lost trace ([`Trace::is_lost`]: its test
    /// timed out, crashed its worker or exhausted memory), so that it is no parent.
    #[must_use]
    pub fn fitness(&self, goal: GoalId, trace: &Trace) -> f64 {
        self.fitness_with(goal, trace, &mut Walk::default())
    }

    /// [`fitness`](Self::fitness) with the lists of the approach walk given, so that a vector
    /// of goals allocates them once.
    fn fitness_with(&self, goal: GoalId, trace: &Trace, walk: &mut Walk) -> f64 {
        if trace.is_lost() {
            return f64::INFINITY;
        }
        if let Some(f) = self
            .criterion_of(goal)
            .and_then(|c| c.fitness(self, goal, trace))
        {
            return f;
        }
        let Some(link) = self.links.get(goal.index()) else {
            return f64::INFINITY;
        };
        match *link {
            Link::Branch(n) => self.branch_fitness(n, trace, walk),
            Link::Line(l) => {
                let line = &self.lines[l];
                if trace.line_hit(line.probe) {
                    0.0
                } else {
                    self.approach(&line.controls, trace, walk)
                }
            }
            Link::Method(m) => {
                if trace.method_entered(self.methods[m].probe) {
                    0.0
                } else {
                    1.0
                }
            }
            Link::MethodNoException(m) => {
                let cm = &self.methods[m];
                match trace.call((cm.class, cm.id)) {
                    Some(true) => 0.0,
                    Some(false) => 0.5,
                    None => 1.0,
                }
            }
            Link::Exception(_) => {
                if self.is_covered(goal, trace) {
                    0.0
                } else {
                    1.0
                }
            }
            Link::Pair(first, second) => {
                let d = self.branch_fitness(first, trace, walk);
                if d > 0.0 {
                    d + 1.0
                } else {
                    self.branch_fitness(second, trace, walk)
                }
            }
        }
    }

    /// Whether the trace covers `goal` (exactly when [`GoalSet::fitness`] is 0, without
    /// computing distances).
    #[must_use]
    pub fn is_covered(&self, goal: GoalId, trace: &Trace) -> bool {
        let Some(link) = self.links.get(goal.index()) else {
            return false;
        };
        match *link {
            Link::Branch(n) => trace.branch(self.branches[n].slot).0 > 0,
            Link::Pair(a, b) => {
                trace.branch(self.branches[a].slot).0 > 0
                    && trace.branch(self.branches[b].slot).0 > 0
            }
            Link::Line(l) => trace.line_hit(self.lines[l].probe),
            Link::Method(m) => trace.method_entered(self.methods[m].probe),
            Link::MethodNoException(m) => {
                let cm = &self.methods[m];
                trace.call((cm.class, cm.id)) == Some(true)
            }
            Link::Exception(m) => {
                let cm = &self.methods[m];
                self.goals
                    .get(goal.index())
                    .is_some_and(|g| match &g.target {
                        crate::Target::Exception { exception, .. } => {
                            trace.threw((cm.class, cm.id), exception)
                        }
                        _ => false,
                    })
            }
        }
    }

    /// The fitness of each of `goals` for the trace, in the same order (MOSA's objective
    /// vector).
    #[must_use]
    pub fn fitness_vector(&self, goals: &[GoalId], trace: &Trace) -> Vec<f64> {
        let mut walk = Walk::default();
        goals
            .iter()
            .map(|&g| self.fitness_with(g, trace, &mut walk))
            .collect()
    }

    /// Every goal the trace covers, in id order (registered exception goals included).
    ///
    /// Looks up each entry of the trace (a taken branch, a line, an entered method, a call,
    /// an exception) in the goal set's index instead of asking every goal: a test touches few
    /// of a class's probes.
    #[must_use]
    pub fn covered(&self, trace: &Trace) -> Vec<GoalId> {
        let mut out: Vec<GoalId> = Vec::new();
        self.for_each_covered(trace, |goals| out.extend_from_slice(goals));
        out.sort_unstable();
        out.dedup();
        out
    }

    /// The goals the trace covers, as [`GoalSet::covered`] finds them but neither sorted nor
    /// deduplicated: `f` gets runs of goals, in no particular order, and may get a goal more
    /// than once (a line under two probes, a branch and its line). For a caller whose use of a
    /// goal does not depend on order or repeats (an archive that keeps the shorter test), this
    /// spares a vector and a sort per test.
    pub fn for_each_covered(&self, trace: &Trace, mut f: impl FnMut(&[GoalId])) {
        let index = &self.by_probe;
        for &(slot, hits, _) in trace.branches() {
            if hits > 0 {
                f(index.branches.get(slot.0));
                for &g in index.pairs.get(slot.0) {
                    if let Some(&Link::Pair(first, _)) = self.links.get(g.index())
                        && trace.branch(self.branches[first].slot).0 > 0
                    {
                        f(&[g]);
                    }
                }
            }
        }
        for &line in trace.lines() {
            f(index.lines.get(line.0));
        }
        for &method in trace.methods() {
            f(index.methods.get(method.0));
        }
        for &(key, returned) in trace.calls() {
            if returned {
                for g in goals_under(&index.returned, key) {
                    f(&[g]);
                }
            }
        }
        for ((class, method), exception) in trace.exceptions() {
            if let Some(m) = self.method_index(*class, *method) {
                if let Some(g) = self.exception_goal_of(m, exception) {
                    f(&[g]);
                }
            }
        }
        // Goals found at run time that the index does not list: asked one by one.
        for &g in &self.runtime_goals {
            if self.is_covered(g, trace) {
                f(&[g]);
            }
        }
    }

    /// Whether the trace reached the code of `goal`: the method of a branch entered, some
    /// method holding a line entered, a method entered, a method called directly by a test
    /// statement (method-no-exception and exception goals). A test that did not reach a goal
    /// says nothing about how to cover it (MIO gives it no heuristic value for the goal).
    #[must_use]
    pub fn reached(&self, goal: GoalId, trace: &Trace) -> bool {
        let entered = |m: usize| {
            self.methods
                .get(m)
                .is_some_and(|cm| trace.method_entered(cm.probe))
        };
        match self.links.get(goal.index()) {
            Some(Link::Branch(n) | Link::Pair(n, _)) => {
                self.branches.get(*n).is_some_and(|b| entered(b.method))
            }
            Some(Link::Line(l)) => self
                .lines
                .get(*l)
                .is_some_and(|ln| ln.methods.iter().any(|&m| entered(m))),
            Some(Link::Method(m)) => entered(*m),
            Some(Link::MethodNoException(m) | Link::Exception(m)) => self
                .methods
                .get(*m)
                .is_some_and(|cm| trace.call((cm.class, cm.id)).is_some()),
            None => false,
        }
    }

    /// [`GoalSet::covered`] by asking every goal: the reference it is tested against.
    #[cfg(test)]
    pub(crate) fn covered_by_every_goal(&self, trace: &Trace) -> Vec<GoalId> {
        self.goals
            .iter()
            .map(|g| g.id)
            .filter(|&g| self.is_covered(g, trace))
            .collect()
    }

    pub(crate) fn predicate_hits(&self, predicate: usize, trace: &Trace) -> u64 {
        self.predicates[predicate]
            .slots
            .iter()
            .map(|&s| u64::from(trace.branch(s).0))
            .sum()
    }

    /// Whether some outcome of the predicate ran (its hits are not 0).
    fn predicate_ran(&self, predicate: usize, trace: &Trace) -> bool {
        self.predicates[predicate]
            .slots
            .iter()
            .any(|&s| trace.branch(s).0 > 0)
    }

    fn branch_fitness(&self, n: usize, trace: &Trace, walk: &mut Walk) -> f64 {
        let b = &self.branches[n];
        let (hits, distance) = trace.branch(b.slot);
        if hits > 0 {
            0.0
        } else if self.predicate_ran(b.predicate, trace) {
            normalize(distance)
        } else {
            self.approach(&b.controls, trace, walk)
        }
    }

    /// Approach level + normalised distance from the controls of a target whose own
    /// predicate (or line) did not run.
    fn approach(&self, start: &[Ctl], trace: &Trace, walk: &mut Walk) -> f64 {
        let mut best = f64::INFINITY;
        let mut level = 1.0f64;
        // The level walked (`start`, then `frontier`) and the one above it, and the
        // predicates already walked: few (a target's control dependences, theirs, …), so a
        // list.
        let Walk {
            frontier,
            next,
            seen,
        } = walk;
        frontier.clear();
        next.clear();
        seen.clear();
        let mut first = true;
        loop {
            let level_ctls: &[Ctl] = if first { start } else { frontier };
            if level_ctls.is_empty() || level >= best {
                break;
            }
            for &c in level_ctls {
                match c {
                    Ctl::Entry(m) => {
                        let entered = trace.method_entered(self.methods[m].probe);
                        best = best.min(level + if entered { 0.0 } else { 1.0 });
                    }
                    Ctl::Branch(p) => {
                        if seen.contains(&p) {
                            continue;
                        }
                        seen.push(p);
                        let node = &self.branches[p];
                        let (hits, distance) = trace.branch(node.slot);
                        if hits > 0 {
                            best = best.min(level);
                        } else if self.predicate_ran(node.predicate, trace) {
                            best = best.min(level + normalize(distance));
                        } else {
                            next.extend(node.controls.iter().copied());
                        }
                    }
                }
            }
            first = false;
            std::mem::swap(frontier, next);
            next.clear();
            level += 1.0;
        }
        if best.is_finite() {
            best
        } else {
            // Nothing above the target is known to run (dead code): one more than the deepest
            // level walked.
            level + 1.0
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::panic, clippy::float_cmp)]
mod tests {
    use crate::testutil::{sample, slot};
    use crate::{Config, GoalSet, Target, Trace, names};

    fn goal(goals: &GoalSet, what: &str) -> crate::GoalId {
        goals
            .goals()
            .iter()
            .find(|g| g.description == what)
            .unwrap()
            .id
    }

    fn entered(goals: &GoalSet, name: &str) -> Trace {
        let mut t = Trace::new();
        let m = goals.methods().iter().find(|m| m.name == name).unwrap();
        t.add_method(m.probe);
        t
    }

    #[test]
    fn approach_level_plus_distance_from_where_execution_diverged() {
        let s = sample();
        let goals = s.goals(Config::default());
        let outer_taken = slot(&goals, "nested(II)I line 20 @1 ifle taken");
        let outer_not = slot(&goals, "nested(II)I line 20 @1 ifle not taken");
        let inner = goal(&goals, "t.Sample.nested(II)I line 21 @5 ifle not taken");
        let outer = goal(&goals, "t.Sample.nested(II)I line 20 @1 ifle not taken");
        let nu5 = 5.0 / 6.0;

        // Never called: approach level 2 (b1, then the entry) + 1 for the missing call.
        assert_eq!(goals.fitness(inner, &Trace::new()), 3.0);
        assert_eq!(goals.fitness(outer, &Trace::new()), 2.0);
        // Called, but the outer predicate went the other way, 5 away.
        let mut t = entered(&goals, "nested");
        t.add_branch(outer_taken, 1, 0.0);
        t.add_branch(outer_not, 0, 5.0);
        assert_eq!(goals.fitness(outer, &t), nu5);
        assert_eq!(goals.fitness(inner, &t), 1.0 + nu5);
        // Line 22 sits under the inner branch: one level more.
        let line22 = goals
            .goals_of(names::LINE)
            .find(|g| g.line == Some(22))
            .unwrap()
            .id;
        assert_eq!(goals.fitness(line22, &t), 2.0 + nu5);
        // Line 20 runs whenever the method does: level 1 from the entry.
        let line20 = goals
            .goals_of(names::LINE)
            .find(|g| g.line == Some(20))
            .unwrap();
        assert_eq!(goals.fitness(line20.id, &t), 1.0);
        let Target::Line { probe, .. } = line20.target else {
            panic!()
        };
        t.add_line(probe);
        assert_eq!(goals.fitness(line20.id, &t), 0.0);
        // The outer branch taken but the inner predicate not reached (an exception, say):
        // level 1, no distance.
        let mut u = entered(&goals, "nested");
        u.add_branch(outer_not, 1, 0.0);
        assert_eq!(goals.fitness(outer, &u), 0.0);
        assert_eq!(goals.fitness(inner, &u), 1.0);
        // Dead code: nothing above it runs; finite, and worse than anything reachable.
        let dead = goal(
            &goals,
            "t.Sample.dead(I)I line 31 @3 ifeq taken [unreachable]",
        );
        assert_eq!(goals.fitness(dead, &entered(&goals, "dead")), 2.0);
        assert_eq!(goals.fitness(crate::GoalId(10_000), &t), f64::INFINITY);
        assert!(!goals.is_covered(crate::GoalId(10_000), &t));
        // A lost test (time-out, crash, exhausted memory) is as far as can be from every
        // goal, the ones it reached included: it is no parent.
        u.mark_lost();
        assert_eq!(goals.fitness(outer, &u), f64::INFINITY);
        assert!(
            goals
                .fitness_vector(&[outer, inner], &u)
                .iter()
                .all(|f| f.is_infinite())
        );
    }

    #[test]
    fn switch_cases_and_method_goals() {
        let s = sample();
        let goals = s.goals(Config {
            criteria: crate::Criteria::all(),
            ..Config::default()
        });
        let case5 = slot(&goals, "lookupswitch case 5");
        let default = slot(&goals, "lookupswitch default");
        let mut t = entered(&goals, "pick");
        t.add_branch(default, 1, 0.0);
        t.add_branch(case5, 0, 3.0);
        let g5 = goal(&goals, "t.Sample.pick(I)I line 40 @1 lookupswitch case 5");
        assert_eq!(goals.fitness(g5, &t), 0.75);
        let pick = goals
            .goals_of(names::METHOD)
            .find(|g| g.description == "t.Sample.pick(I)I")
            .unwrap()
            .id;
        assert_eq!(goals.fitness(pick, &t), 0.0);
        assert_eq!(goals.fitness(pick, &Trace::new()), 1.0);
        let mne = goals
            .goals_of(names::METHOD_NO_EXCEPTION)
            .find(|g| g.description.starts_with("t.Sample.pick"))
            .unwrap()
            .id;
        let m = goals.resolve("t/Sample", "pick", "(I)I").unwrap();
        let key = (m.class, m.id);
        assert_eq!(goals.fitness(mne, &t), 1.0);
        t.add_call(key, false);
        assert_eq!(goals.fitness(mne, &t), 0.5);
        t.add_call(key, true);
        assert_eq!(goals.fitness(mne, &t), 0.0);
        let covered = goals.covered(&t);
        assert!(covered.contains(&pick) && covered.contains(&mne) && !covered.contains(&g5));
        assert_eq!(goals.fitness_vector(&[pick, g5], &t), vec![0.0, 0.75]);
    }
}
