//! The single-target baseline of the whole-suite paper (Section IV-B): one goal at a time.
//!
//! For |B| uncovered goals and a remaining budget X, each goal gets X/|B| (statements when a
//! statement budget is set, otherwise wall time or evaluations). A goal's search is a GA over
//! tests minimising that goal's fitness (approach level + ν(branch distance)): rank selection,
//! single-point test crossover, test mutation, elitism. It ends when the goal is covered (by
//! any test: collateral coverage counts, the archive sees every test) or its share is spent;
//! the budget left over after a round is shared again among the goals still uncovered, until
//! the whole budget is spent.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use ferrosuite_fitness::GoalId;
use ferrosuite_testcase::Test;

use super::whole_suite::rank_index;
use super::{Algorithm, Run};
use crate::crossover::test_crossover;
use crate::error::{Error, Result};
use crate::mutation::mutate_test;
use crate::random::{chance, unit};
use crate::suite::TestId;

/// What a goal's share is measured in.
#[derive(Clone, Copy)]
enum Resource {
    Statements,
    Seconds,
    Evaluations,
}

fn used(run: &Run<'_, '_, '_>, r: Resource) -> f64 {
    let u = run.eval.usage();
    #[allow(clippy::cast_precision_loss)]
    match r {
        Resource::Statements => u.statements as f64,
        Resource::Seconds => run.eval.elapsed().as_secs_f64(),
        Resource::Evaluations => u.evaluations as f64,
    }
}

/// The single-target baseline (see the module documentation).
#[derive(Debug, Clone, Copy)]
pub struct SingleTarget;

impl Algorithm for SingleTarget {
    fn name(&self) -> &'static str {
        "single-target"
    }

    fn summary(&self) -> &'static str {
        "one goal at a time, the budget shared among the goals (the whole-suite paper's baseline)"
    }

    fn search(&self, run: &mut Run<'_, '_, '_>) -> Result<()> {
        self::run(run)
    }
}

fn run(run: &mut Run<'_, '_, '_>) -> Result<()> {
    let budget = *run.eval.budget();
    #[allow(clippy::cast_precision_loss)]
    let (resource, total) = if let Some(s) = budget.statements {
        (Resource::Statements, s as f64)
    } else if let Some(t) = budget.time {
        (Resource::Seconds, t.as_secs_f64())
    } else if let Some(e) = budget.evaluations {
        (Resource::Evaluations, e as f64)
    } else {
        return Err(Error::Config(
            "the single-target search shares a budget among goals: set a time, statement or evaluation budget".into(),
        ));
    };
    let config = run.config.clone();
    while !run.done() {
        let uncovered: Vec<GoalId> = run
            .eval
            .goals()
            .goals()
            .iter()
            .map(|g| g.id)
            .filter(|g| !run.archive.covers(*g))
            .collect();
        if uncovered.is_empty() {
            break;
        }
        #[allow(clippy::cast_precision_loss)]
        let share = ((total - used(run, resource)) / uncovered.len() as f64).max(0.0);
        for goal in uncovered {
            if run.done() {
                break;
            }
            if run.archive.covers(goal) {
                continue;
            }
            let limit = used(run, resource) + share;
            target(run, goal, resource, limit, &config)?;
        }
    }
    Ok(())
}

/// A GA over tests for one goal, until it is covered, `limit` is reached or the budget is
/// spent. Each generation's new tests are built in chunks that run while the next chunk is
/// built ([`Run::execute_streamed`]); a test's fitness for the goal is taken as soon as its
/// chunk's results are in. Breeding reads only the previous generation, so the tests are the
/// same as when a whole generation is built first and run afterwards.
fn target(
    run: &mut Run<'_, '_, '_>,
    goal: GoalId,
    resource: Resource,
    limit: f64,
    config: &super::EngineConfig,
) -> Result<()> {
    let n = config.test_population;
    let mut pop: Vec<(TestId, Arc<Test>, f64)> = Vec::with_capacity(n);
    let mut first = true;
    loop {
        let mut fresh: Vec<(TestId, Arc<Test>)> = Vec::with_capacity(n);
        let mut fitness: BTreeMap<TestId, f64> = BTreeMap::new();
        // The first generation: `n` random tests (fewer when some cannot be built); later
        // ones: the best test so far (elitism) and up to `n - 1` bred.
        let mut attempts = 0;
        let parents = &pop;
        run.execute_streamed(
            |factory, rng, ids, want| {
                let start = fresh.len();
                while fresh.len() - start < want.max(1) {
                    if first {
                        if attempts >= n {
                            break;
                        }
                        attempts += 1;
                        match factory.random_test(rng) {
                            Ok(t) => fresh.push((ids.fresh(), Arc::new(t))),
                            Err(Error::Construction { .. }) => {}
                            Err(e) => return Err(e),
                        }
                    } else {
                        if fresh.len() + 1 >= n || attempts >= 10 * n {
                            break;
                        }
                        attempts += 1;
                        let i = rank_index(parents.len(), config.rank_bias, unit(rng));
                        let j = rank_index(parents.len(), config.rank_bias, unit(rng));
                        let mut o = if chance(rng, config.crossover_rate) {
                            test_crossover(factory, &parents[i].1, &parents[j].1, rng)
                        } else {
                            Test::clone(&parents[i].1)
                        };
                        mutate_test(factory, &mut o, rng)?;
                        if !o.is_empty() && o != *parents[i].1 {
                            fresh.push((ids.fresh(), Arc::new(o)));
                        }
                    }
                }
                Ok((fresh.len() > start).then(|| fresh[start..].to_vec()))
            },
            |goals, id, trace| {
                fitness.insert(id, goals.fitness(goal, trace));
            },
            |_| {},
            |_| false,
        )?;
        first = false;
        run.eval.usage_mut().evaluations += fresh.len() as u64;
        // Elitism: of the parents, the best test stays. Tests cut off by the budget have no
        // trace: they rank last.
        pop.truncate(1);
        pop.extend(fresh.into_iter().map(|(id, t)| {
            let f = fitness.get(&id).copied().unwrap_or(f64::INFINITY);
            (id, t, f)
        }));
        pop.sort_by(|a, b| a.2.total_cmp(&b.2).then(a.1.len().cmp(&b.1.len())));
        pop.truncate(n);
        let keep: BTreeSet<TestId> = pop.iter().map(|p| p.0).collect();
        run.eval.retain(|id| keep.contains(&id));
        run.generation(pop.first().map(|p| p.2));
        if run.archive.covers(goal) || run.done() || used(run, resource) >= limit || pop.is_empty()
        {
            break;
        }
    }
    Ok(())
}
