//! MOSA and DynaMOSA (Panichella, Kifetew and Tonella): many-objective search over tests, one
//! objective per uncovered goal.
//!
//! A generation breeds as many offspring as the population holds (binary tournaments on rank
//! and crowding distance, single-point test crossover with probability `crossover_rate`, test
//! mutation), runs them in one batch, and selects the next population from parents and
//! offspring by *preference sorting*:
//!
//! 1. front 0: for each uncovered goal, the test closest to it (ties: the shortest);
//! 2. the other tests in non-dominated fronts over the uncovered goals' fitness
//!    (approach level + ν(branch distance)), fronts filled in order, the last one cut by
//!    crowding distance.
//!
//! Covered goals leave the objectives (the archive keeps their shortest test). DynaMOSA only
//! targets *active* goals: at first those the goal hierarchy starts with (branches controlled by
//! method entries, plus line, method and exception goals); covering a goal activates the goals
//! it controls, so the objectives grow along control dependence instead of all at once.
//!
//! Example: for `if (a) { if (b) X }`, DynaMOSA starts with `a`'s two branches; only once a test
//! takes `a`'s true branch do `b`'s branches become objectives.
//!
//! A [`Breeding`] shapes the tests of a run: how the initial ones are built and what happens
//! to an offspring after crossover and after mutation. [`Mosa`] uses [`Plain`] (random tests,
//! every offspring kept); another crate's algorithm runs the same loop with its own through
//! [`run_with`] (Cling keeps a call of a covering method in every test).

use std::cmp::Ordering;
use std::collections::{BTreeSet, HashMap};
use std::sync::Arc;

use ferrosuite_fitness::{GoalId, GoalSet, Trace};
use ferrosuite_testcase::Test;

use super::{Algorithm, Run};
use crate::crossover::test_crossover;
use crate::error::Result;
use crate::factory::Factory;
use crate::mutation::mutate_test;
use crate::random::{Rng, chance, index};
use crate::suite::{TestId, TestIds};
use rand_chacha::ChaCha8Rng;

#[derive(Clone)]
struct Member {
    id: TestId,
    test: Arc<Test>,
    rank: usize,
    crowding: f64,
}

/// The population's fitness vectors over the current objectives, kept from one generation to
/// the next: a test's trace never changes, so its fitness for a goal is computed once for as
/// long as the goal stays an objective (a parent surviving ten generations is not scored ten
/// times). When the objectives change (goals covered, goals activated), the values of the
/// goals that stay are carried over and only the new goals are computed.
#[derive(Default)]
struct VectorCache {
    objectives: Vec<GoalId>,
    vectors: HashMap<TestId, Vec<f64>>,
}

impl VectorCache {
    /// Makes `objectives` the objectives of every cached vector.
    fn retarget(&mut self, run: &Run<'_, '_, '_>, objectives: &[GoalId]) {
        if self.objectives == objectives {
            return;
        }
        let old: HashMap<GoalId, usize> = self
            .objectives
            .iter()
            .enumerate()
            .map(|(i, g)| (*g, i))
            .collect();
        let from: Vec<Option<usize>> = objectives.iter().map(|g| old.get(g).copied()).collect();
        let goals = run.eval.goals();
        for (id, v) in &mut self.vectors {
            let trace = run.eval.trace(*id);
            *v = objectives
                .iter()
                .zip(&from)
                .map(|(g, i)| match (i, trace) {
                    (Some(i), _) => v[*i],
                    (None, Some(t)) => goals.fitness(*g, t),
                    (None, None) => f64::INFINITY,
                })
                .collect();
        }
        self.objectives = objectives.to_vec();
    }

    /// Computes the vector of a test that has just run, over the current objectives (its
    /// trace at hand: the same vector [`VectorCache::fill`] would compute later).
    fn take_in(&mut self, goals: &GoalSet, id: TestId, trace: &Trace) {
        let objectives = &self.objectives;
        self.vectors
            .entry(id)
            .or_insert_with(|| goals.fitness_vector(objectives, trace));
    }

    /// Computes the vector of a test not cached yet. A test without a trace (its run was cut
    /// off by the deadline) gets none: it is as far as can be from every objective, and it is
    /// not cached, since a later run would give it a trace.
    fn fill(&mut self, run: &Run<'_, '_, '_>, id: TestId) {
        if let Some(trace) = run.eval.trace(id) {
            self.take_in(run.eval.goals(), id, trace);
        }
    }
}

/// Whether `a` dominates `b` (no worse on every objective, better on one; lower is better).
#[must_use]
pub fn dominates(a: &[f64], b: &[f64]) -> bool {
    let mut better = false;
    for (x, y) in a.iter().zip(b) {
        if x > y {
            return false;
        }
        if x < y {
            better = true;
        }
    }
    better
}

/// Fast non-dominated sorting: the fronts, as indices into `vectors`.
fn non_dominated_fronts(vectors: &[&[f64]], members: &[usize]) -> Vec<Vec<usize>> {
    let n = members.len();
    let mut dominated_by = vec![0usize; n];
    let mut dominates_list: Vec<Vec<usize>> = vec![Vec::new(); n];
    for i in 0..n {
        for j in (i + 1)..n {
            let (vi, vj) = (vectors[members[i]], vectors[members[j]]);
            if dominates(vi, vj) {
                dominates_list[i].push(j);
                dominated_by[j] += 1;
            } else if dominates(vj, vi) {
                dominates_list[j].push(i);
                dominated_by[i] += 1;
            }
        }
    }
    let mut fronts = Vec::new();
    let mut current: Vec<usize> = (0..n).filter(|i| dominated_by[*i] == 0).collect();
    while !current.is_empty() {
        let mut next = Vec::new();
        for &i in &current {
            for &j in &dominates_list[i] {
                dominated_by[j] -= 1;
                if dominated_by[j] == 0 {
                    next.push(j);
                }
            }
        }
        next.sort_unstable();
        fronts.push(current.iter().map(|i| members[*i]).collect());
        current = next;
    }
    fronts
}

/// Crowding distance of each member of a front (boundary members: infinity).
#[allow(clippy::needless_range_loop)]
fn crowding(vectors: &[&[f64]], front: &[usize]) -> Vec<f64> {
    let mut d = vec![0.0; front.len()];
    let objectives = vectors.first().map_or(0, |v| v.len());
    for k in 0..objectives {
        let mut order: Vec<usize> = (0..front.len()).collect();
        order.sort_by(|a, b| vectors[front[*a]][k].total_cmp(&vectors[front[*b]][k]));
        let (Some(&lo), Some(&hi)) = (order.first(), order.last()) else {
            continue;
        };
        let (min, max) = (vectors[front[lo]][k], vectors[front[hi]][k]);
        d[lo] = f64::INFINITY;
        d[hi] = f64::INFINITY;
        if max > min {
            for w in order.windows(3) {
                d[w[1]] += (vectors[front[w[2]]][k] - vectors[front[w[0]]][k]) / (max - min);
            }
        }
    }
    d
}

/// Binary tournament: lower rank wins, then larger crowding distance.
fn tournament<'m, R: Rng + ?Sized>(pop: &'m [Member], rng: &mut R) -> &'m Member {
    let a = &pop[index(rng, pop.len())];
    let b = &pop[index(rng, pop.len())];
    match a.rank.cmp(&b.rank) {
        Ordering::Less => a,
        Ordering::Greater => b,
        Ordering::Equal => {
            if b.crowding > a.crowding {
                b
            } else {
                a
            }
        }
    }
}

/// Adds to `active` the goals that covering `goal` activates, through covered goals too.
fn activate(run: &Run<'_, '_, '_>, goal: GoalId, active: &mut BTreeSet<GoalId>) {
    let mut stack = vec![goal];
    let mut seen = BTreeSet::new();
    while let Some(g) = stack.pop() {
        if !seen.insert(g) {
            continue;
        }
        for &c in run.eval.goals().activated_by(g) {
            active.insert(c);
            if run.archive.covers(c) {
                stack.push(c);
            }
        }
    }
}

/// How a MOSA run builds its tests (see the module documentation). Everything random comes
/// from the RNG given, so a run stays deterministic.
pub trait Breeding: Send + Sync + std::fmt::Debug {
    /// A test of the initial population; by default a random one.
    ///
    /// # Errors
    /// [`Error::Construction`](crate::Error::Construction) when no test can be built (the
    /// population does without it); other errors end the search.
    fn initial(&self, factory: &mut Factory<'_>, rng: &mut ChaCha8Rng) -> Result<Test> {
        factory.random_test(rng)
    }

    /// The offspring `child` that crossover made from `parent` (and another parent): the test
    /// that goes on to mutation. By default the child.
    fn crossed(&self, child: Test, parent: &Test) -> Test {
        let _ = parent;
        child
    }

    /// The offspring after mutation: the test to run, or `None` to drop it. By default the
    /// test. A run whose breeding drops every offspring of [`MAX_BARREN_GENERATIONS`]
    /// generations in a row stops.
    ///
    /// # Errors
    /// When the factory fails (the search ends).
    fn mutated(
        &self,
        factory: &mut Factory<'_>,
        rng: &mut ChaCha8Rng,
        test: Test,
    ) -> Result<Option<Test>> {
        let _ = (factory, rng);
        Ok(Some(test))
    }
}

/// MOSA's own breeding: random initial tests, every offspring kept.
#[derive(Debug, Clone, Copy, Default)]
pub struct Plain;

impl Breeding for Plain {}

/// Breeds two offspring into `q` (fewer when one comes out empty or `breeding` drops it):
/// binary tournaments, crossover with probability `crossover_rate`, mutation. An offspring
/// equal to its parent keeps the parent's id (its trace is cached).
fn breed(
    factory: &mut Factory<'_>,
    rng: &mut ChaCha8Rng,
    ids: &mut TestIds,
    pop: &[Member],
    crossover_rate: f64,
    breeding: &dyn Breeding,
    q: &mut Vec<Member>,
) -> Result<()> {
    let p1 = tournament(pop, rng);
    let p2 = tournament(pop, rng);
    let (mut o1, mut o2) = if chance(rng, crossover_rate) {
        (
            breeding.crossed(test_crossover(factory, &p1.test, &p2.test, rng), &p1.test),
            breeding.crossed(test_crossover(factory, &p2.test, &p1.test, rng), &p2.test),
        )
    } else {
        (Test::clone(&p1.test), Test::clone(&p2.test))
    };
    mutate_test(factory, &mut o1, rng)?;
    mutate_test(factory, &mut o2, rng)?;
    let o1 = breeding.mutated(factory, rng, o1)?;
    let o2 = breeding.mutated(factory, rng, o2)?;
    for (o, p) in [(o1, p1), (o2, p2)] {
        let Some(o) = o.filter(|o| !o.is_empty()) else {
            continue;
        };
        let (id, test) = if o == *p.test {
            (p.id, Arc::clone(&p.test))
        } else {
            (ids.fresh(), Arc::new(o))
        };
        q.push(Member {
            id,
            test,
            rank: 0,
            crowding: 0.0,
        });
    }
    Ok(())
}

/// Generations in a row without offspring after which a run stops (see [`Breeding::mutated`]).
pub const MAX_BARREN_GENERATIONS: usize = 10;

/// MOSA, or DynaMOSA when `dynamic` (see the module documentation).
#[derive(Debug, Clone, Copy)]
pub struct Mosa {
    /// Target only the goals whose controlling goals are covered (DynaMOSA).
    pub dynamic: bool,
}

impl Algorithm for Mosa {
    fn name(&self) -> &'static str {
        if self.dynamic { "dynamosa" } else { "mosa" }
    }

    fn summary(&self) -> &'static str {
        if self.dynamic {
            "DynaMOSA: MOSA over the goals whose controlling branches are covered"
        } else {
            "MOSA: many-objective search over tests, one objective per uncovered goal"
        }
    }

    fn search(&self, run: &mut Run<'_, '_, '_>) -> Result<()> {
        run_with(run, self.dynamic, &Plain)
    }
}

/// MOSA (DynaMOSA when `dynamic`) on `run`, its tests built by `breeding`: for algorithms of
/// other crates that change how tests are made, not how they are selected.
///
/// # Errors
/// When the factory or the executor fails.
pub fn run_with(run: &mut Run<'_, '_, '_>, dynamic: bool, breeding: &dyn Breeding) -> Result<()> {
    let config = run.config.clone();
    let m = config.test_population;
    // DynaMOSA's active goals (MOSA: every goal).
    let mut active: BTreeSet<GoalId> = if dynamic {
        run.eval.goals().initial_goals().iter().copied().collect()
    } else {
        run.eval.goals().goals().iter().map(|g| g.id).collect()
    };
    let mut pop: Vec<Member> = Vec::with_capacity(m);
    for _ in 0..m {
        match breeding.initial(run.factory, run.rng) {
            Ok(test) => pop.push(Member {
                id: run.ids.fresh(),
                test: Arc::new(test),
                rank: 0,
                crowding: 0.0,
            }),
            Err(crate::Error::Construction { .. }) => {}
            Err(e) => return Err(e),
        }
    }
    let mut activated: BTreeSet<GoalId> = BTreeSet::new();
    let mut cache = VectorCache::default();
    let mut first = true;
    // Generations in a row whose breeding kept no offspring (a breeding that drops them all
    // would otherwise repeat the same generation for ever under a statement budget).
    let mut barren = 0;
    loop {
        let ran_before = run.eval.usage().tests;
        let mut bred = None;
        let all: Vec<Member> = if first {
            first = false;
            let refs: Vec<(TestId, &Test)> = pop.iter().map(|t| (t.id, &*t.test)).collect();
            run.execute(&refs)?;
            pop.clone()
        } else {
            // Offspring are built in chunks, each running while the next is built.
            let mut q: Vec<Member> = Vec::with_capacity(m);
            let parents = &pop;
            let vectors = &mut cache;
            run.execute_streamed(
                |factory, rng, ids, want| {
                    let start = q.len();
                    // A breeding that drops offspring cannot hold the generation up for ever.
                    let mut tries = 0;
                    while q.len() < m && q.len() - start < want.max(1) && tries < 4 * m.max(1) {
                        tries += 1;
                        breed(
                            factory,
                            rng,
                            ids,
                            parents,
                            config.crossover_rate,
                            breeding,
                            &mut q,
                        )?;
                    }
                    Ok((q.len() > start).then(|| {
                        q[start..]
                            .iter()
                            .map(|t| (t.id, Arc::clone(&t.test)))
                            .collect()
                    }))
                },
                // Each offspring's vector over the current objectives, while later chunks
                // run; selection then only adds the objectives that changed.
                |goals, id, trace| vectors.take_in(goals, id, trace),
                |_| {},
                |_| false,
            )?;
            bred = Some(q.len());
            pop.iter().cloned().chain(q).collect()
        };
        // One fitness evaluation per test run: parents (and offspring equal to a parent)
        // keep their cached traces and are not evaluated again.
        let ran = run.eval.usage().tests - ran_before;
        run.eval.usage_mut().evaluations += ran;
        // New exception goals are covered by the test that found them; DynaMOSA activates
        // what newly covered goals control.
        let new_goals = run.eval.take_new_goals();
        if dynamic {
            let newly: Vec<GoalId> = run
                .archive
                .covered()
                .filter(|g| activated.insert(*g))
                .collect();
            for g in newly {
                activate(run, g, &mut active);
            }
        } else {
            active.extend(new_goals);
        }
        let objectives: Vec<GoalId> = active
            .iter()
            .copied()
            .filter(|g| !run.archive.covers(*g))
            .collect();
        pop = select(run, &mut cache, all, &objectives, m);
        let keep: BTreeSet<TestId> = pop.iter().map(|t| t.id).collect();
        run.eval.retain(|id| keep.contains(&id));
        cache.vectors.retain(|id, _| keep.contains(id));
        run.generation(None);
        barren = if bred == Some(0) { barren + 1 } else { 0 };
        if run.done() || objectives.is_empty() || barren >= MAX_BARREN_GENERATIONS {
            break;
        }
    }
    Ok(())
}

/// Preference sorting and crowding distance: the next population of `m` from `all`.
#[allow(clippy::needless_range_loop)]
fn select(
    run: &Run<'_, '_, '_>,
    cache: &mut VectorCache,
    mut all: Vec<Member>,
    objectives: &[GoalId],
    m: usize,
) -> Vec<Member> {
    // Duplicates (same id) count once.
    let mut seen = BTreeSet::new();
    all.retain(|t| seen.insert(t.id));
    cache.retarget(run, objectives);
    for t in &all {
        cache.fill(run, t.id);
    }
    let unreached = vec![f64::INFINITY; objectives.len()];
    let vectors: Vec<&[f64]> = all
        .iter()
        .map(|t| cache.vectors.get(&t.id).unwrap_or(&unreached).as_slice())
        .collect();
    let mut fronts: Vec<Vec<usize>> = Vec::new();
    // Front 0: the best test for each objective (ties: shortest, then first).
    let mut best: BTreeSet<usize> = BTreeSet::new();
    for k in 0..objectives.len() {
        let pick = (0..all.len()).min_by(|a, b| {
            vectors[*a][k]
                .total_cmp(&vectors[*b][k])
                .then(all[*a].test.len().cmp(&all[*b].test.len()))
        });
        if let Some(i) = pick {
            best.insert(i);
        }
    }
    let rest: Vec<usize> = (0..all.len()).filter(|i| !best.contains(i)).collect();
    if !best.is_empty() {
        fronts.push(best.into_iter().collect());
    }
    fronts.extend(non_dominated_fronts(&vectors, &rest));
    let mut next = Vec::with_capacity(m);
    for (rank, front) in fronts.iter().enumerate() {
        if next.len() >= m {
            break;
        }
        let d = crowding(&vectors, front);
        let mut order: Vec<usize> = (0..front.len()).collect();
        if next.len() + front.len() > m {
            order.sort_by(|a, b| d[*b].total_cmp(&d[*a]).then(a.cmp(b)));
        }
        for i in order {
            if next.len() >= m {
                break;
            }
            let mut t = all[front[i]].clone();
            t.rank = rank;
            t.crowding = d[i];
            next.push(t);
        }
    }
    next
}

#[cfg(test)]
mod tests {
    use super::{crowding, dominates, non_dominated_fronts};

    #[test]
    fn dominance_and_fronts() {
        let v: [&[f64]; 5] = [
            &[0.0, 1.0],
            &[1.0, 0.0],
            &[1.0, 1.0],
            &[2.0, 2.0],
            &[0.5, 0.5],
        ];
        assert!(dominates(v[4], v[2]));
        assert!(!dominates(v[0], v[1]));
        assert!(!dominates(v[2], v[2]));
        let fronts = non_dominated_fronts(&v, &[0, 1, 2, 3, 4]);
        assert_eq!(fronts, vec![vec![0, 1, 4], vec![2], vec![3]]);
        let d = crowding(&v, &[0, 1, 4]);
        assert!(d[0].is_infinite() && d[1].is_infinite());
        assert!((d[2] - 2.0).abs() < 1e-9, "{d:?}");
    }
}
