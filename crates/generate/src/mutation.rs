//! Mutation analysis of a finished suite: which tests and which of their assertions kill
//! which mutants of the class under test ([`analyse`]), and the assertions that analysis
//! keeps ([`choose`]). See `docs/MUTATION.md`.
//!
//! A host whose classes under test are mutation schemata ([`HostConfig::mutation`]) runs the
//! tests once against the original code, which says which mutation sites each test reaches,
//! then each mutant with the tests that reach its site. A test *kills* a mutant by its outcome
//! when the mutant run ends otherwise (an exception where there was none, another exception,
//! a timeout), and an assertion kills it when the value it checks is not what the assertion
//! expects: the stability check's comparison, made against a mutant's run.
//!
//! [`choose`] then keeps, greedily, the assertion that kills the most mutants nothing kept
//! kills yet, until no assertion adds one; among equals it prefers a check of the value a call
//! returned, then the later statement (the call a test is about), then the earlier test. A
//! mutant a test's outcome kills needs no assertion.
//!
//! ```
//! use std::collections::BTreeSet;
//! use ferrosuite_generate::mutation::{Kills, choose};
//! // One test, two assertions: the first kills mutants 1 and 2, the second only 2.
//! let kills = Kills {
//!     by_outcome: vec![BTreeSet::new()],
//!     by_assertion: vec![vec![[1, 2].into(), [2].into()]],
//!     ..Kills::default()
//! };
//! assert_eq!(choose(&kills, &[vec![false, false]]), vec![vec![0]]);
//! ```
//!
//! [`HostConfig::mutation`]: ferrosuite_exec::HostConfig::mutation

use std::collections::BTreeSet;
use std::time::Instant;

use ferrosuite_emit::EmitTest;
use ferrosuite_emit::assertions::{Assertion, Check, observed};
use ferrosuite_exec::{Host, HostConfig, TestResult};
use ferrosuite_testcase::Test;

use crate::MutationSummary;
use crate::error::Result;

/// What killed which mutant (by id).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Kills {
    /// Per test: the mutants its outcome kills.
    pub by_outcome: Vec<BTreeSet<u32>>,
    /// Per test, per assertion (in the order given): the mutants the assertion kills.
    pub by_assertion: Vec<Vec<BTreeSet<u32>>>,
    /// Mutants of the classes under test.
    pub mutants: usize,
    /// Mutants whose site some test reaches.
    pub reached: usize,
    /// Mutants run before the deadline (the others count as not killed).
    pub analysed: usize,
}

impl Kills {
    /// Every mutant something kills.
    #[must_use]
    pub fn killed(&self) -> BTreeSet<u32> {
        let mut all: BTreeSet<u32> = self.by_outcome.iter().flatten().copied().collect();
        for t in &self.by_assertion {
            all.extend(t.iter().flatten());
        }
        all
    }
}

/// Whether two runs of a test end the same way (status, statements run, where and what it
/// threw).
#[must_use]
pub fn same_outcome(a: &TestResult, b: &TestResult) -> bool {
    let thrown = |r: &TestResult| r.first_exception().map(|(i, t)| (i, t.class.clone()));
    std::mem::discriminant(&a.status) == std::mem::discriminant(&b.status)
        && a.executed == b.executed
        && thrown(a) == thrown(b)
}

/// Runs `tests` against every mutant of `host`'s classes whose site they reach (see the
/// module documentation); `assertions[i]` are test `i`'s. Mutants not started by `deadline`
/// are left out ([`Kills::analysed`] says how many ran).
///
/// # Errors
/// When the host cannot run the tests.
pub fn analyse(
    host: &mut Host,
    tests: &[Test],
    assertions: &[Vec<Assertion>],
    deadline: Option<Instant>,
) -> Result<Kills> {
    let base = host.run_mutant(tests, false, 0)?;
    let mutants = host.mutants().to_vec();
    let mut kills = Kills {
        by_outcome: vec![BTreeSet::new(); tests.len()],
        by_assertion: assertions
            .iter()
            .map(|a| vec![BTreeSet::new(); a.len()])
            .collect(),
        mutants: mutants.len(),
        ..Kills::default()
    };
    for m in &mutants {
        let reaching: Vec<usize> = base
            .iter()
            .enumerate()
            .filter(|(_, r)| r.reached_sites.contains(&m.site))
            .map(|(i, _)| i)
            .collect();
        if reaching.is_empty() {
            continue;
        }
        kills.reached += 1;
        if deadline.is_some_and(|d| Instant::now() >= d) {
            continue;
        }
        kills.analysed += 1;
        let subset: Vec<Test> = reaching.iter().map(|&i| tests[i].clone()).collect();
        let runs = host.run_mutant(&subset, true, m.id)?;
        for (&i, r) in reaching.iter().zip(&runs) {
            if !same_outcome(&base[i], r) {
                kills.by_outcome[i].insert(m.id);
                continue;
            }
            for (k, a) in assertions.get(i).into_iter().flatten().enumerate() {
                if observed(&tests[i], r, a) != Some(&a.expected) {
                    kills.by_assertion[i][k].insert(m.id);
                }
            }
        }
    }
    Ok(kills)
}

/// The assertions to keep, per test (indices into each test's assertions, in order); see
/// the module documentation. `returns[i][k]` says whether assertion `k` of test `i` checks
/// the value a call returned on the test's last statement (preferred among equals).
#[must_use]
pub fn choose(kills: &Kills, returns: &[Vec<bool>]) -> Vec<Vec<usize>> {
    let mut killed: BTreeSet<u32> = kills.by_outcome.iter().flatten().copied().collect();
    let mut kept: Vec<Vec<usize>> = vec![Vec::new(); kills.by_assertion.len()];
    loop {
        // (new kills, prefers the returned value, statement order stands in for lateness
        // through the index, then the earlier test): the best assertion left.
        let mut best: Option<(usize, bool, usize, usize)> = None;
        for (i, per_test) in kills.by_assertion.iter().enumerate() {
            for (k, set) in per_test.iter().enumerate() {
                if kept[i].contains(&k) {
                    continue;
                }
                let new = set.difference(&killed).count();
                if new == 0 {
                    continue;
                }
                let ret = returns
                    .get(i)
                    .and_then(|r| r.get(k))
                    .copied()
                    .unwrap_or(false);
                let better = match best {
                    None => true,
                    Some((n, r, bk, bi)) => {
                        (new, ret, k, usize::MAX - i) > (n, r, bk, usize::MAX - bi)
                    }
                };
                if better {
                    best = Some((new, ret, k, i));
                }
            }
        }
        let Some((_, _, k, i)) = best else { break };
        killed.extend(kills.by_assertion[i][k].iter().copied());
        kept[i].push(k);
    }
    for k in &mut kept {
        k.sort_unstable();
    }
    kept
}

/// Keeps, of each candidate's assertions, those [`choose`] picks after [`analyse`] on a host
/// started with `config` (whose [`HostConfig::mutation`] must be set).
///
/// # Errors
/// When the host cannot start or run the tests.
pub fn choose_assertions(
    config: HostConfig,
    candidates: &mut [EmitTest],
    deadline: Option<Instant>,
) -> Result<MutationSummary> {
    let mut host = Host::start(config)?;
    let tests: Vec<Test> = candidates.iter().map(|c| c.test.clone()).collect();
    let assertions: Vec<Vec<Assertion>> = candidates.iter().map(|c| c.assertions.clone()).collect();
    let kills = analyse(&mut host, &tests, &assertions, deadline)?;
    let chosen = choose(&kills, &returned_values(&tests, &assertions));
    let mut summary = MutationSummary {
        mutants: kills.mutants,
        reached: kills.reached,
        analysed: kills.analysed,
        killed: kills.killed().len(),
        candidates: assertions.iter().map(Vec::len).sum(),
        kept: 0,
    };
    for (c, keep) in candidates.iter_mut().zip(&chosen) {
        c.assertions = keep.iter().map(|&k| c.assertions[k].clone()).collect();
        summary.kept += c.assertions.len();
    }
    Ok(summary)
}

/// For each test and each of its assertions, whether it checks the value the test's last
/// call returned ([`checks_returned_value`]): the preference [`choose`] takes.
#[must_use]
pub fn returned_values(tests: &[Test], assertions: &[Vec<Assertion>]) -> Vec<Vec<bool>> {
    tests
        .iter()
        .zip(assertions)
        .map(|(t, a)| a.iter().map(|x| checks_returned_value(t, x)).collect())
        .collect()
}

/// Whether `a` checks the value the last statement of `test` returned.
#[must_use]
pub fn checks_returned_value(test: &Test, a: &Assertion) -> bool {
    a.check == Check::Value && a.statement + 1 == test.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set(ids: &[u32]) -> BTreeSet<u32> {
        ids.iter().copied().collect()
    }

    #[test]
    fn the_greedy_choice_covers_every_killed_mutant_with_few_assertions() {
        let kills = Kills {
            by_outcome: vec![set(&[9]), set(&[])],
            by_assertion: vec![
                // Test 0: a kills {1, 2}, b kills {2, 3}, c kills {9} (already by outcome).
                vec![set(&[1, 2]), set(&[2, 3]), set(&[9])],
                // Test 1: d kills {1, 2, 3}, e kills nothing.
                vec![set(&[1, 2, 3]), set(&[])],
            ],
            ..Kills::default()
        };
        let chosen = choose(&kills, &[vec![false; 3], vec![false; 2]]);
        // d alone kills 1, 2 and 3; 9 is the outcome's.
        assert_eq!(chosen, vec![vec![], vec![0]]);
        let all: BTreeSet<u32> = kills.killed();
        assert_eq!(all, set(&[1, 2, 3, 9]));
    }

    #[test]
    fn among_equals_the_returned_value_then_the_later_check_then_the_earlier_test_win() {
        let kills = Kills {
            by_outcome: vec![set(&[]), set(&[])],
            by_assertion: vec![vec![set(&[1]), set(&[1])], vec![set(&[1])]],
            ..Kills::default()
        };
        assert_eq!(
            choose(&kills, &[vec![false, false], vec![false]]),
            vec![vec![1], vec![]]
        );
        assert_eq!(
            choose(&kills, &[vec![true, false], vec![false]]),
            vec![vec![0], vec![]]
        );
        assert_eq!(
            choose(&kills, &[vec![false, false], vec![true]]),
            vec![vec![], vec![0]]
        );
    }

    #[test]
    fn nothing_killed_keeps_nothing() {
        let kills = Kills {
            by_outcome: vec![set(&[])],
            by_assertion: vec![vec![set(&[]), set(&[])]],
            ..Kills::default()
        };
        assert_eq!(
            choose(&kills, &[vec![true, true]]),
            vec![Vec::<usize>::new()]
        );
    }
}
