//! Suite minimisation: first statements, then tests.
//!
//! 1. Each test keeps the goals the archive kept it for. In rounds, every variant that drops one
//!    statement (with the statements that use its value) runs in one batch; of the statements
//!    that could go alone, as many go together as still cover all of the test's goals — all
//!    at once, else in halves, later statements first (the chunks of Zeller's ddmin), one run
//!    per trial — and the rounds repeat until no statement can go. Where most statements can
//!    go, a test of n statements takes a few batches of n runs, not one round per statement.
//!    A test with mocks then runs again until its stubs say exactly what the run called
//!    (`settle_mocks`).
//! 2. Tests that add no goal are dropped: tests are considered from the one covering most goals
//!    (then the shortest), and one is kept only if it covers a goal no kept test covers.
//!
//! Under a time budget, minimisation stops at a deadline (a quarter of the budget, at least
//! 2 s, after the search) and keeps the tests as far as it got; with a statement budget it
//! runs to the end, so the result stays reproducible.
//!
//! Example: `Stack s = new Stack(); int x = 3; s.push(x); int y = s.size;` kept for the goal
//! "`push`: size >= values.length is false" loses `int y = s.size;` in the first round and
//! nothing after it.

use std::collections::BTreeSet;

use ferrosuite_fitness::GoalId;
use ferrosuite_testcase::Test;

use super::{Archive, Evaluator};
use crate::error::Result;
use crate::mocks::{follow_calls_with_defaults, has_mocks, test_key};
use crate::suite::{TestId, TestIds};

/// Runs a test with mocks until its stubs say what its run called: stubs of methods no longer
/// called go, new ones answer what the unstubbed call returned, so the test behaves as it did
/// (an emitted test aborts on a call it did not stub). At most three rounds.
fn settle_mocks(eval: &mut Evaluator<'_>, ids: &mut TestIds, test: &mut Test) -> Result<()> {
    if !has_mocks(test) {
        return Ok(());
    }
    drop(eval.take_mock_calls());
    for _ in 0..3 {
        if eval.after_search_expired() {
            break;
        }
        let id = ids.fresh();
        eval.run(&[(id, &*test)])?;
        let key = test_key(test);
        let calls = eval.take_mock_calls().into_iter().find(|(k, _)| *k == key);
        match calls {
            Some((_, c)) if follow_calls_with_defaults(test, &c) => {}
            _ => break,
        }
    }
    Ok(())
}

/// `test` without the statements `gone` (indices into it) and those that use their values.
fn without(test: &Test, gone: &BTreeSet<usize>) -> Test {
    let mut t = test.clone();
    // The last first: a removal shifts only the statements after it.
    for &i in gone.iter().rev() {
        t.remove_with_dependents(i);
    }
    t
}

/// What minimisation did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct Minimised {
    /// Tests before and after.
    pub tests: (usize, usize),
    /// Statements before and after.
    pub statements: (usize, usize),
}

/// Minimises the archive's tests; returns the tests, each still covering the goals it was kept
/// for, and together every goal the archive covers.
pub fn minimise(
    eval: &mut Evaluator<'_>,
    archive: &Archive,
    ids: &mut TestIds,
) -> Result<(Vec<Test>, Minimised)> {
    let kept = archive.tests();
    let mut report = Minimised {
        tests: (kept.len(), 0),
        statements: (kept.iter().map(|k| k.test.len()).sum(), 0),
    };
    // Goals per kept test (those the archive keeps it for).
    let mut work: Vec<(Test, BTreeSet<GoalId>)> = kept
        .iter()
        .map(|k| {
            let goals = archive
                .covered()
                .filter(|g| archive.get(*g).is_some_and(|b| b.id == k.id))
                .collect();
            (k.test.clone(), goals)
        })
        .collect();
    for (test, goals) in &mut work {
        loop {
            // Under a time budget minimisation has a deadline; what is left stays as it is.
            if eval.after_search_expired() {
                break;
            }
            // Each variant with the statement it drops, the last statement first.
            let (dropped, variants): (Vec<usize>, Vec<(TestId, Test)>) = (0..test.len())
                .rev()
                .filter_map(|i| {
                    let mut v = test.clone();
                    (v.remove_with_dependents(i) > 0 && !v.is_empty())
                        .then(|| (i, (ids.fresh(), v)))
                })
                .unzip();
            if variants.is_empty() {
                break;
            }
            let refs: Vec<(TestId, &Test)> = variants.iter().map(|(i, t)| (*i, t)).collect();
            eval.run(&refs)?;
            let keeps = |eval: &Evaluator<'_>, id: TestId| {
                eval.trace(id).is_some_and(|tr| {
                    !tr.is_lost() && goals.iter().all(|g| eval.goals().is_covered(*g, tr))
                })
            };
            // The statements each of whose removal alone keeps the goals, last first.
            let removable: Vec<usize> = dropped
                .iter()
                .zip(&variants)
                .filter(|(_, (id, _))| keeps(eval, *id))
                .map(|(i, _)| *i)
                .collect();
            if removable.is_empty() {
                break;
            }
            // Together, in halves where all at once loses a goal (ddmin's chunks): the later
            // statements first, each chunk tried on what the earlier chunks left.
            let mut gone: BTreeSet<usize> = BTreeSet::new();
            let mut chunks = vec![removable];
            while let Some(chunk) = chunks.pop() {
                if gone.is_empty() && chunk.len() == 1 {
                    // That variant ran in the batch and kept the goals.
                    gone.insert(chunk[0]);
                    continue;
                }
                if eval.after_search_expired() {
                    break;
                }
                let mut trial = gone.clone();
                trial.extend(&chunk);
                let candidate = without(test, &trial);
                let kept = !candidate.is_empty() && {
                    let id = ids.fresh();
                    eval.run(&[(id, &candidate)])?;
                    keeps(eval, id)
                };
                if kept {
                    gone = trial;
                } else if chunk.len() > 1 {
                    let (later, earlier) = chunk.split_at(chunk.len() / 2);
                    chunks.push(earlier.to_vec());
                    chunks.push(later.to_vec());
                }
            }
            if gone.is_empty() {
                break;
            }
            *test = without(test, &gone);
        }
        settle_mocks(eval, ids, test)?;
    }
    // Redundant tests: greedy cover, most goals first.
    let mut order: Vec<usize> = (0..work.len()).collect();
    order.sort_by(|a, b| {
        work[*b]
            .1
            .len()
            .cmp(&work[*a].1.len())
            .then(work[*a].0.len().cmp(&work[*b].0.len()))
            .then(a.cmp(b))
    });
    let mut covered = BTreeSet::new();
    let mut keep = vec![false; work.len()];
    for i in order {
        if work[i].1.iter().any(|g| !covered.contains(g)) {
            covered.extend(work[i].1.iter().copied());
            keep[i] = true;
        }
    }
    let tests: Vec<Test> = work
        .into_iter()
        .zip(keep)
        .filter_map(|((t, _), k)| k.then_some(t))
        .collect();
    report.tests.1 = tests.len();
    report.statements.1 = tests.iter().map(Test::len).sum();
    Ok((tests, report))
}
