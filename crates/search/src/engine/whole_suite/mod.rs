//! The whole-suite GA: Algorithm 1 of Fraser & Arcuri, *Evolutionary Generation of Whole Test
//! Suites*.
//!
//! Individuals are suites; fitness is the whole-suite fitness (lower is better). Each
//! generation starts with the elite; then, until the new population is full, two parents are
//! chosen by rank selection, crossed over with probability `crossover_rate` (α split), and
//! both offspring mutated (suite mutation). The offspring replace their parents when the better
//! offspring is fitter than the better parent, or as fit and not longer in total; an accepted
//! offspring longer than `bloat_factor` times the best individual is replaced by its parent
//! (bloat control). The offspring's new tests go to the host in chunks while the next pairs
//! are bred, and each offspring is scored as soon as its tests have run (its fitness does not
//! depend on what later chunks reveal: see [`Scoring::suite_fitness`](super::Scoring)); an
//! offspring that is its parent unchanged (no crossover, and mutation changed nothing) takes
//! the parent's fitness without an evaluation. While the search waits for results it scores
//! ahead: an offspring whose tests have all run but which waits behind an earlier one is
//! scored, and one still waiting for a test is prepared ([`Scoring::prepare`]: its blocks
//! that ran are folded into one), so that scoring it once the test is in reads two or three
//! folds instead of dozens. The generation's last chunks are short (the last pair alone), so
//! that little is left to score once the host is done: until the last offspring is scored
//! the next generation cannot start, and the host waits.
//!
//! ```text
//! search: breed 1 2 3 | wait: prepare | score 1, breed 4 | … | wait: prepare | score last
//! host:          run 1 | run 2 | run 3 | …                   | run last (short) |
//! ```
//!
//! The host has nothing to run between two generations, so what can wait does: the
//! individuals that left the population, and the tests (in the [`TestStore`]), traces and
//! folds of tests no individual holds, are dropped inside the next generation's stream once its
//! first results are in, while the host runs the next chunk.
//!
//! Rank selection (Whitley's linear ranking, as EvoSuite does it): with the population sorted
//! best first, bias b and r uniform in \[0, 1), the chosen index is
//! `N · (b − √(b² − 4(b − 1)r)) / (2(b − 1))`; with b = 1.7 the best individual is chosen 1.7
//! times as often as the median one.

use std::cell::{Cell, RefCell};
use std::cmp::Ordering;
use std::rc::Rc;
use std::sync::Arc;

use ferrosuite_fitness::SuiteFitness;
use ferrosuite_testcase::Test;

mod ahead;
mod tidy;

use ahead::Progress;
use tidy::tidy;

use super::{Algorithm, Run, Scoring};
use crate::error::Result;
use crate::random::{chance, unit};
use crate::suite::{Suite, TestId, TestStore, crossover, mutate_suite, random_suite};

/// A scored suite. The population holds them by [`Rc`]: an elite, a parent kept over its
/// offspring and a parent chosen twice are the same individual, not copies of its suite.
struct Individual {
    suite: Suite,
    fitness: f64,
    length: usize,
    complete: bool,
}

fn better(a: &Individual, b: &Individual) -> Ordering {
    a.fitness
        .total_cmp(&b.fitness)
        .then(a.length.cmp(&b.length))
}

/// Index chosen by linear rank selection from a population of `n` sorted best first.
pub(crate) fn rank_index(n: usize, bias: f64, r: f64) -> usize {
    #[allow(clippy::cast_precision_loss)]
    let nf = n as f64;
    let x = nf * (bias - (bias * bias - 4.0 * (bias - 1.0) * r).sqrt()) / (2.0 * (bias - 1.0));
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
    let i = x.max(0.0) as usize;
    i.min(n.saturating_sub(1))
}

/// Runs the suites' tests that have no trace yet (one batch) and scores the suites.
fn evaluate(
    run: &mut Run<'_, '_, '_>,
    suites: Vec<Suite>,
    store: &TestStore,
) -> Result<Vec<Rc<Individual>>> {
    let todo: Vec<(TestId, &Test)> = suites
        .iter()
        .flat_map(|s| s.tests.iter())
        .filter(|t| run.eval.trace(t.id).is_none())
        .map(|t| Ok((t.id, &**store.held(t.id)?)))
        .collect::<Result<_>>()?;
    run.execute(&todo)?;
    Ok(score(run, suites))
}

/// Scores suites whose tests ran.
fn score(run: &mut Run<'_, '_, '_>, suites: Vec<Suite>) -> Vec<Rc<Individual>> {
    score_with(run, suites, Vec::new())
}

/// Scores suites whose tests ran, taking the fitness of suite k from `known[k]` where it is
/// known (scored in the stream, or a parent unchanged), else by scoring it (a stream that
/// ended before scoring it: no chunk came back, or the deadline).
fn score_with(
    run: &mut Run<'_, '_, '_>,
    suites: Vec<Suite>,
    known: Vec<Option<Score>>,
) -> Vec<Rc<Individual>> {
    let mut known = known.into_iter();
    suites
        .into_iter()
        .map(|mut suite| {
            suite.mark_executed();
            let Score { fitness, complete } = known.next().flatten().unwrap_or_else(|| {
                Score::of(&run.eval.suite_fitness(suite.tests.iter().map(|t| t.id)))
            });
            Rc::new(Individual {
                fitness,
                length: suite.length(),
                complete,
                suite,
            })
        })
        .collect()
}

impl Individual {
    /// Its fitness, as an offspring that is this individual unchanged takes it.
    fn score(&self) -> Score {
        Score {
            fitness: self.fitness,
            complete: self.complete,
        }
    }
}

/// What selection reads of a suite's fitness.
#[derive(Clone, Copy)]
struct Score {
    fitness: f64,
    complete: bool,
}

impl Score {
    fn of(f: &SuiteFitness) -> Self {
        Score {
            fitness: f.total,
            complete: f.complete(),
        }
    }
}

/// A generation's last chunks: each ends at the last pair bred before this many offspring
/// are left to breed (offspring come in pairs: with 79 wanted, the default population less
/// the elite, the cuts fall after 74 and 78, so that the last chunk is the last pair and the
/// one before it the two pairs before that), whatever their new tests. The search cannot take
/// the next generation in hand before the last offspring are scored, so whatever is left to
/// score once the host has run the last chunk is time the host waits: a short last chunk
/// leaves little (what the earlier ones bred was scored, or prepared, while it ran). The
/// tests bred are the same whatever the cuts.
const TAIL: [usize; 2] = [6, 2];

/// The whole-suite GA (see the module documentation).
#[derive(Debug, Clone, Copy)]
pub struct WholeSuite;

impl Algorithm for WholeSuite {
    fn name(&self) -> &'static str {
        "whole-suite"
    }

    fn summary(&self) -> &'static str {
        "whole-suite GA: suites evolved under whole-suite fitness (the default)"
    }

    fn search(&self, run: &mut Run<'_, '_, '_>) -> Result<()> {
        self::run(run)
    }
}

fn run(run: &mut Run<'_, '_, '_>) -> Result<()> {
    let config = run.config.clone();
    // The population's tests, and during a generation the offspring's new ones (the tests
    // only the last generation's dropped individuals held stay until the next clean-up).
    let mut store = RefCell::new(TestStore::new());
    let mut suites = Vec::with_capacity(config.population);
    for _ in 0..config.population {
        suites.push(random_suite(
            run.factory,
            store.get_mut(),
            &mut run.ids,
            run.rng,
        )?);
    }
    let mut pop = evaluate(run, suites, store.get_mut())?;
    pop.sort_by(|a, b| better(a, b));
    run.generation(pop.first().map(|b| b.fitness));
    // What the end of the last generation left to do: the individuals it dropped, and the
    // tests, traces and folds no longer needed. Done inside the next stream while the search
    // waits for its first results (or once they are in), not while the host waits for the
    // generation.
    let mut dropped: RefCell<Vec<Rc<Individual>>> = RefCell::new(Vec::new());
    let retain_due = Cell::new(false);
    let mut marks = RefCell::new(Vec::new());
    while !run.done() && !pop.first().is_some_and(|b| b.complete) {
        let best_length = pop.first().map_or(1, |b| b.length.max(1));
        // Tests from this id on are this generation's (TestIds counts up).
        let generation_start = run.ids.upcoming();
        let mut next: Vec<Rc<Individual>> = pop.iter().take(config.elite).cloned().collect();
        let mut parents = Vec::new();
        let offspring: RefCell<Vec<Suite>> = RefCell::new(Vec::new());
        // For each offspring, its parent's score when it is that parent unchanged (no
        // crossover, and mutation changed nothing): the same tests, the same fitness.
        let copies: RefCell<Vec<Option<Score>>> = RefCell::new(Vec::new());
        let progress = RefCell::new(Progress::default());
        let wanted = config.population.saturating_sub(next.len());
        let parents_pop = &pop;
        let tidy_due = |scoring: &mut Scoring<'_>| {
            let due = retain_due.take();
            if due {
                tidy(
                    &mut dropped.borrow_mut(),
                    parents_pop,
                    generation_start,
                    scoring,
                    &mut store.borrow_mut(),
                    &mut marks.borrow_mut(),
                );
            }
            due
        };
        // Pairs of offspring are bred until their new tests fill a chunk, which runs while
        // the next pairs are bred; each offspring is scored as soon as its tests have run
        // (in order), while the next chunks run, and while the search waits for results it
        // scores ahead what it can.
        run.execute_streamed(
            |factory, rng, ids, want| {
                let mut offspring = offspring.borrow_mut();
                let mut store = store.borrow_mut();
                let start = offspring.len();
                let mut new_tests = 0;
                // The last chunks are short (see TAIL).
                let cut = TAIL
                    .iter()
                    .map(|t| wanted.saturating_sub(*t))
                    .find(|&c| start < c)
                    .unwrap_or(wanted);
                while offspring.len() < cut && new_tests < want.max(1) {
                    let i = rank_index(parents_pop.len(), config.rank_bias, unit(rng));
                    let j = rank_index(parents_pop.len(), config.rank_bias, unit(rng));
                    let crossed = chance(rng, config.crossover_rate);
                    let (mut o1, mut o2) = if crossed {
                        crossover(
                            &parents_pop[i].suite,
                            &parents_pop[j].suite,
                            factory.config(),
                            rng,
                        )
                    } else {
                        (parents_pop[i].suite.clone(), parents_pop[j].suite.clone())
                    };
                    let changed1 = mutate_suite(factory, &mut o1, &mut store, ids, rng)?;
                    let changed2 = mutate_suite(factory, &mut o2, &mut store, ids, rng)?;
                    new_tests += o1.changed().count() + o2.changed().count();
                    let copy =
                        |p: &Individual, changed: bool| (!crossed && !changed).then(|| p.score());
                    copies.borrow_mut().extend([
                        copy(&parents_pop[i], changed1),
                        copy(&parents_pop[j], changed2),
                    ]);
                    parents.push((i, j));
                    offspring.push(o1);
                    offspring.push(o2);
                }
                if offspring.len() == start {
                    return Ok(None);
                }
                // The tests the offspring copied unchanged ran with their parents.
                let chunk = offspring[start..]
                    .iter()
                    .flat_map(Suite::changed)
                    .map(|t| Ok((t.id, Arc::clone(store.held(t.id)?))))
                    .collect::<Result<_>>()?;
                Ok(Some(chunk))
            },
            |_, _, _| {},
            |scoring| {
                tidy_due(scoring);
                progress
                    .borrow_mut()
                    .score_ready(scoring, &offspring.borrow(), &copies.borrow());
            },
            |scoring| {
                tidy_due(scoring)
                    || progress
                        .borrow_mut()
                        .ahead(scoring, &offspring.borrow(), &copies.borrow())
            },
        )?;
        if retain_due.take() {
            // No chunk came back (no new tests, or the deadline).
            run.eval.scoring(&mut |scoring| {
                tidy(
                    dropped.get_mut(),
                    &pop,
                    generation_start,
                    scoring,
                    store.get_mut(),
                    marks.get_mut(),
                );
            });
        }
        let known = progress.into_inner().known(copies.into_inner());
        let scored = score_with(run, offspring.into_inner(), known);
        #[allow(clippy::cast_precision_loss)]
        let max_length = config.bloat_factor * best_length as f64;
        let mut scored = scored.into_iter();
        for (i, j) in parents {
            let (p1, p2) = (&pop[i], &pop[j]);
            let (Some(o1), Some(o2)) = (scored.next(), scored.next()) else {
                break;
            };
            let f_parents = p1.fitness.min(p2.fitness);
            let f_offspring = o1.fitness.min(o2.fitness);
            let accept = f_offspring < f_parents
                || (f_offspring <= f_parents && o1.length + o2.length <= p1.length + p2.length);
            if accept {
                for (o, p) in [(o1, p1), (o2, p2)] {
                    #[allow(clippy::cast_precision_loss)]
                    let bloated = o.length as f64 > max_length;
                    if bloated {
                        next.push(Rc::clone(p));
                        dropped.get_mut().push(o);
                    } else {
                        next.push(o);
                    }
                }
            } else {
                next.push(Rc::clone(p1));
                next.push(Rc::clone(p2));
                dropped.get_mut().extend([o1, o2]);
            }
        }
        // Offspring not taken are dropped with the old population, in the next stream.
        dropped.get_mut().extend(scored);
        dropped
            .get_mut()
            .extend(next.drain(config.population.min(next.len())..));
        next.sort_by(|a, b| better(a, b));
        dropped.get_mut().extend(std::mem::replace(&mut pop, next));
        retain_due.set(true);
        run.generation(pop.first().map(|b| b.fitness));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::rank_index;

    #[test]
    fn rank_selection_prefers_the_front_and_stays_in_range() {
        let n = 80;
        let mut counts = vec![0usize; n];
        for k in 0..10_000 {
            let r = f64::from(k) / 10_000.0;
            counts[rank_index(n, 1.7, r)] += 1;
        }
        assert_eq!(counts.iter().sum::<usize>(), 10_000);
        assert!(counts[0] > counts[n / 2] && counts[n / 2] > counts[n - 1]);
        // b = 1.7: the best is chosen about 1.7 / 1.0 as often as the median.
        let ratio = counts[0] as f64 / counts[n / 2] as f64;
        assert!((1.4..2.0).contains(&ratio), "{ratio}");
        assert_eq!(rank_index(n, 1.7, 0.0), 0);
        assert_eq!(rank_index(n, 1.7, 0.999_999), n - 1);
        assert_eq!(rank_index(1, 1.7, 0.5), 0);
    }
}
