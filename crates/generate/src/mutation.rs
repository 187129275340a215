//! Mutation analysis of a finished suite: which tests and which of their assertions kill
//! which mutants of the class under test ([`analyse`]), and the assertions that analysis
//! keeps ([`choose`]). See `docs/MUTATION.md`.
//!
//! A host whose classes under test are mutation schemata ([`HostConfig::mutation`]) runs the
//! tests once against the original code, which says which mutation sites each test reaches,
//! then each mutant with the tests that reach its site (the shortest dozen; the longer ones
//! afterwards, for the mutants those leave alive, while time is left). A test *kills* a
//! mutant by its outcome when the mutant run ends otherwise (an exception where there was
//! none, another exception, a timeout), and an assertion kills it when the value it checks is
//! not what the assertion expects: the stability check's comparison, made against a mutant's
//! run.
//!
//! [`reduce`] first keeps the tests that matter: greedily, the test that adds the most of what
//! no kept test gives yet — a mutant killed (by its outcome or any of its assertions) or a
//! probe covered (a branch outcome or a line, in its run against the original code) — until
//! no test adds anything; the others go. Exception-only tests that reach the same `throw` and
//! kill the same mutants thus shrink to one, and near-duplicates to the first.
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

use ferrosuite_emit::assertions::{Assertion, Check, observed};
use ferrosuite_emit::{EmitTest, Limits};
use ferrosuite_exec::{Host, HostConfig, Observed, TestResult};
use ferrosuite_testcase::Test;

use crate::MutationSummary;
use crate::error::Result;

/// The most tests run against one mutant (the shortest of those that reach its site).
pub const MAX_TESTS_PER_MUTANT: usize = 12;

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
    /// Per test: what it covers in its run against the original code, as [`covered`] keys.
    pub covered: Vec<BTreeSet<u64>>,
    /// Per test: the mutants whose site it reaches that the deadline left unrun.
    pub pending: Vec<BTreeSet<u32>>,
}

/// The tag of a coupled branch pair's coverage key (`PAIR | goal`), which
/// [`choose_assertions`]'s `extra` gives; the tags below it are [`covered`]'s ([`BRANCH`],
/// [`LINE`]) and [`reduce`]'s own (3: mutants killed, 4: mutants left unrun).
pub const PAIR: u64 = 5 << 32;

/// The tag of a branch outcome's coverage key (`BRANCH | slot`).
pub const BRANCH: u64 = 1 << 32;

/// The tag of a line's coverage key (`LINE | line id`).
pub const LINE: u64 = 2 << 32;

/// The coverage keys of a run: each branch outcome taken (`BRANCH | slot`) and each line
/// hit (`LINE | line id`).
#[must_use]
pub fn covered(r: &TestResult) -> BTreeSet<u64> {
    let branches = r
        .probes
        .branches
        .iter()
        .filter(|(_, taken, _)| *taken > 0)
        .map(|(slot, _, _)| BRANCH | u64::from(*slot));
    let lines = r
        .probes
        .lines
        .iter()
        .filter(|(_, hits)| *hits > 0)
        .map(|(line, _)| LINE | u64::from(*line));
    branches.chain(lines).collect()
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
    Ok(analyse_observed(host, tests, assertions, deadline)?.0)
}

/// [`analyse`], with the observed runs of the tests against the original code.
fn analyse_observed(
    host: &mut Host,
    tests: &[Test],
    assertions: &[Vec<Assertion>],
    deadline: Option<Instant>,
) -> Result<(Kills, Vec<TestResult>)> {
    let base = host.run_mutant(tests, true, 0)?;
    // A site's first mutant, then every site's second, and so on: a deadline leaves whole
    // sites unrun less often than in id order, which would leave the class's last methods
    // without any.
    let mut seen: std::collections::HashMap<u32, u32> = std::collections::HashMap::new();
    let mut ranked: Vec<(u32, _)> = host
        .mutants()
        .iter()
        .map(|m| {
            let r = seen.entry(m.site).or_insert(0);
            *r += 1;
            (*r, m.clone())
        })
        .collect();
    ranked.sort_by_key(|(r, m)| (*r, m.id));
    let mutants: Vec<_> = ranked.into_iter().map(|(_, m)| m).collect();
    let mut kills = Kills {
        by_outcome: vec![BTreeSet::new(); tests.len()],
        by_assertion: assertions
            .iter()
            .map(|a| vec![BTreeSet::new(); a.len()])
            .collect(),
        mutants: mutants.len(),
        covered: base.iter().map(covered).collect(),
        pending: vec![BTreeSet::new(); tests.len()],
        ..Kills::default()
    };
    // The tests that reach each site, the shortest first.
    let mut by_length: Vec<usize> = (0..tests.len()).collect();
    by_length.sort_by_key(|&i| (tests[i].len(), i));
    let mut at_site: std::collections::HashMap<u32, Vec<usize>> = std::collections::HashMap::new();
    for &i in &by_length {
        for &s in &base[i].reached_sites {
            at_site.entry(s).or_default().push(i);
        }
    }
    let mut run = Runner {
        host,
        tests,
        assertions,
        base: &base,
        deadline,
    };
    // Mutants the shortest tests left alive whose site more tests reach (id, site).
    let mut survivors: Vec<(u32, u32)> = Vec::new();
    for m in &mutants {
        let Some(all) = at_site.get(&m.site) else {
            continue;
        };
        // The shortest few: a mutant most tests kill needs no more, and a site that
        // hundreds of tests reach would otherwise take the analysis's whole time.
        let first = &all[..all.len().min(MAX_TESTS_PER_MUTANT)];
        kills.reached += 1;
        if deadline.is_some_and(|d| Instant::now() >= d) {
            for &i in first {
                kills.pending[i].insert(m.id);
            }
            continue;
        }
        kills.analysed += 1;
        let killed = run.against(m.id, first, &mut kills)?;
        if !killed && all.len() > first.len() {
            survivors.push((m.id, m.site));
        }
    }
    // Then the survivors against the longer tests, a batch at a time, while time is left:
    // an assertion of a longer test may be the only one that sees the mutant, and without
    // this run the choice would drop it.
    let mut start = MAX_TESTS_PER_MUTANT;
    while !survivors.is_empty() {
        let mut next = Vec::new();
        for (id, site) in survivors {
            if deadline.is_some_and(|d| Instant::now() >= d) {
                break;
            }
            let all = &at_site[&site];
            let batch = &all[start..all.len().min(start + MAX_TESTS_PER_MUTANT)];
            let killed = run.against(id, batch, &mut kills)?;
            if !killed && all.len() > start + batch.len() {
                next.push((id, site));
            }
        }
        survivors = next;
        start += MAX_TESTS_PER_MUTANT;
    }
    Ok((kills, base))
}

/// What runs tests against one mutant at a time: the host, the tests with their assertions
/// and their runs against the original code.
struct Runner<'a> {
    host: &'a mut Host,
    tests: &'a [Test],
    assertions: &'a [Vec<Assertion>],
    base: &'a [TestResult],
    deadline: Option<Instant>,
}

impl Runner<'_> {
    /// Runs the tests `which` (indices into the tests) against mutant `id`, records in
    /// `kills` what killed it and says whether anything did. Past the deadline the tests a
    /// hanging one left unrun count as pending for a mutant nothing killed.
    fn against(&mut self, id: u32, which: &[usize], kills: &mut Kills) -> Result<bool> {
        let mut reaching = which.to_vec();
        reaching.sort_unstable();
        let subset: Vec<Test> = reaching.iter().map(|&i| self.tests[i].clone()).collect();
        let runs = self
            .host
            .run_mutant_until(&subset, true, id, self.deadline)?;
        let mut killed = false;
        for (&i, r) in reaching.iter().zip(&runs) {
            if !same_outcome(&self.base[i], r) {
                kills.by_outcome[i].insert(id);
                killed = true;
                continue;
            }
            for (k, a) in self.assertions.get(i).into_iter().flatten().enumerate() {
                if observed(&self.tests[i], r, a) != Some(&a.expected) {
                    kills.by_assertion[i][k].insert(id);
                    killed = true;
                }
            }
        }
        if !killed {
            for &i in &reaching[runs.len()..] {
                kills.pending[i].insert(id);
            }
        }
        Ok(killed)
    }
}

/// The tests to keep (see the module documentation): `sizes[i]` is test `i`'s number of
/// statements, the smaller preferred among equals, then the earlier test.
#[must_use]
pub fn reduce(kills: &Kills, sizes: &[usize]) -> Vec<bool> {
    const MUTANT: u64 = 3 << 32;
    const PENDING: u64 = 4 << 32;
    let offers: Vec<BTreeSet<u64>> = (0..kills.by_outcome.len())
        .map(|i| {
            let mut s = kills.covered.get(i).cloned().unwrap_or_default();
            let mutants = kills.by_outcome[i]
                .iter()
                .chain(kills.by_assertion.get(i).into_iter().flatten().flatten());
            s.extend(mutants.map(|&m| MUTANT | u64::from(m)));
            // A mutant left unrun may be killed by any test that reaches it: one stays.
            let pending = kills.pending.get(i).into_iter().flatten();
            s.extend(pending.map(|&m| PENDING | u64::from(m)));
            s
        })
        .collect();
    let mut keep = vec![false; offers.len()];
    let mut given: BTreeSet<u64> = BTreeSet::new();
    // Lazy greedy: a test's gain only falls as more is given, so a stale gain at the top of
    // the heap is recomputed and pushed back until the top is fresh.
    let mut heap: std::collections::BinaryHeap<(usize, std::cmp::Reverse<(usize, usize)>)> = offers
        .iter()
        .enumerate()
        .map(|(i, o)| {
            (
                o.len(),
                std::cmp::Reverse((sizes.get(i).copied().unwrap_or(0), i)),
            )
        })
        .collect();
    while let Some((gain, std::cmp::Reverse((size, i)))) = heap.pop() {
        if gain == 0 {
            break;
        }
        let fresh = offers[i].difference(&given).count();
        if fresh < gain {
            heap.push((fresh, std::cmp::Reverse((size, i))));
            continue;
        }
        keep[i] = true;
        given.extend(offers[i].iter().copied());
    }
    keep
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
/// started with `config` (whose [`HostConfig::mutation`] must be set). `extra[i]` holds more
/// coverage keys of candidate `i` that the reduction must keep covered (the coupled branch
/// pairs of an integration run, tagged [`PAIR`]), beside its branch outcomes and lines; it may
/// be shorter than the candidates.
///
/// # Errors
/// When the host cannot start or run the tests.
pub fn choose_assertions(
    config: HostConfig,
    candidates: &mut Vec<EmitTest>,
    deadline: Option<Instant>,
    plain: &Limits,
    extra: &[BTreeSet<u64>],
) -> Result<MutationSummary> {
    let mut host = Host::start(config)?;
    let tests: Vec<Test> = candidates.iter().map(|c| c.test.clone()).collect();
    let assertions: Vec<Vec<Assertion>> = candidates.iter().map(|c| c.assertions.clone()).collect();
    let (mut kills, base) = analyse_observed(&mut host, &tests, &assertions, deadline)?;
    // What the statements alone reach: the reduction keeps tests for that, and the
    // assertions' inspector calls keep what only they reach (see `reach`).
    let unobserved = host.run_mutant(&tests, false, 0)?;
    let method_of = crate::reach::method_names(host.map());
    drop(host);
    let observed_cover =
        std::mem::replace(&mut kills.covered, unobserved.iter().map(covered).collect());
    for (covered, keys) in kills.covered.iter_mut().zip(extra) {
        covered.extend(keys.iter().copied());
    }
    let sizes: Vec<usize> = tests.iter().map(Test::len).collect();
    let mut keep = reduce(&kills, &sizes);
    let mut summary = MutationSummary {
        mutants: kills.mutants,
        reached: kills.reached,
        analysed: kills.analysed,
        killed: kills.killed().len(),
        candidates: assertions.iter().map(Vec::len).sum(),
        ..MutationSummary::default()
    };
    // Removed tests offer no assertion.
    for (i, k) in keep.iter().enumerate() {
        if !k {
            kills.by_outcome[i].clear();
            kills.by_assertion[i].iter_mut().for_each(BTreeSet::clear);
        }
    }
    let returns = returned_values(&tests, &assertions);
    let mut chosen = choose(&kills, &returns);
    let reach = crate::reach::Reach {
        plain: &kills.covered,
        observed: &observed_cover,
        sizes: &sizes,
        method_of: &method_of,
    };
    summary.reach_assertions = crate::reach::restore(&reach, &assertions, &mut keep, &mut chosen);
    summary.tests_removed = keep.iter().filter(|k| !**k).count();
    for (i, (c, picked)) in candidates.iter_mut().zip(&chosen).enumerate() {
        let mut picked = picked.clone();
        if !kills.pending[i].is_empty() {
            // Mutants this test reaches were left unrun: what its assertions would kill is
            // unknown, so it keeps those the plain limits keep, as without the analysis.
            let usual = base
                .get(i)
                .map(|r| ferrosuite_emit::assertions::candidates(&c.test, r, plain))
                .unwrap_or_default();
            for (k, a) in c.assertions.iter().enumerate() {
                if !picked.contains(&k)
                    && usual
                        .iter()
                        .any(|u| u.statement == a.statement && u.check == a.check)
                {
                    picked.push(k);
                }
            }
            picked.sort_unstable();
        }
        if picked.is_empty() && c.expected.is_none() && !c.assertions.is_empty() {
            picked.push(fallback(&c.test, &c.assertions));
            summary.fallback_assertions += 1;
        }
        c.assertions = picked.iter().map(|&k| c.assertions[k].clone()).collect();
        summary.kept += c.assertions.len();
    }
    let mut k = keep.iter();
    candidates.retain(|_| *k.next().unwrap_or(&true));
    Ok(summary)
}

/// The one assertion (an index into `assertions`, which must not be empty) a kept test
/// without a killing one keeps: of its last call, the value it returned or an argument it
/// changed, else the receiver's changed state, else a returned object's `assertNotNull`;
/// else its latest candidate.
fn fallback(test: &Test, assertions: &[Assertion]) -> usize {
    let rank = |a: &Assertion| {
        let last = a.statement + 1 == test.len();
        match (&a.check, &a.expected) {
            (Check::Value, Observed::Object { .. }) if last => 1,
            (Check::ReceiverInspector(_), _) if last => 2,
            _ if checks_returned_value(test, a) => 3,
            _ => 0,
        }
    };
    (0..assertions.len())
        .max_by_key(|&k| (rank(&assertions[k]), assertions[k].statement, k))
        .unwrap_or(0)
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

/// Whether `a` checks what the last statement of `test` did: the value it returned (more
/// than that an object came back: its value, or that it is an object the test held) or an
/// argument it changed.
#[must_use]
pub fn checks_returned_value(test: &Test, a: &Assertion) -> bool {
    let weak = a.check == Check::Value && matches!(a.expected, Observed::Object { .. });
    matches!(a.check, Check::Value | Check::Argument(..) | Check::Same(_))
        && !weak
        && a.statement + 1 == test.len()
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
    fn reduction_keeps_what_covers_or_kills_something_new_preferring_short_tests() {
        let kills = Kills {
            by_outcome: vec![set(&[]), set(&[]), set(&[]), set(&[7])],
            by_assertion: vec![vec![], vec![set(&[1])], vec![set(&[])], vec![]],
            // Tests 0 and 2 cover the same; 1 covers less but kills mutant 1; 3 covers
            // nothing, but its outcome kills mutant 7.
            covered: vec![
                [10, 11].into(),
                [10].into(),
                [10, 11].into(),
                BTreeSet::new(),
            ],
            ..Kills::default()
        };
        // Test 2 is shorter than 0, so it stands for both.
        assert_eq!(reduce(&kills, &[5, 3, 4, 9]), vec![false, true, true, true]);
        assert_eq!(reduce(&kills, &[4, 3, 4, 9]), vec![true, true, false, true]);
        // An unrun mutant that tests 0 and 2 reach keeps one of them.
        let pending = Kills {
            covered: vec![BTreeSet::new(), BTreeSet::new(), BTreeSet::new()],
            by_outcome: vec![set(&[]), set(&[]), set(&[])],
            by_assertion: vec![vec![], vec![], vec![]],
            pending: vec![set(&[4]), set(&[]), set(&[4])],
            ..Kills::default()
        };
        assert_eq!(reduce(&pending, &[2, 1, 1]), vec![false, false, true]);
        // Nothing to offer: nothing kept.
        let none = Kills {
            by_outcome: vec![set(&[])],
            by_assertion: vec![vec![]],
            covered: vec![BTreeSet::new()],
            ..Kills::default()
        };
        assert_eq!(reduce(&none, &[1]), vec![false]);
    }

    #[test]
    fn a_test_without_a_killing_assertion_keeps_the_strongest_check_of_its_last_call() {
        use ferrosuite_testcase::{Prim, Statement};
        let test = Test::new(vec![
            Statement::Primitive(Prim::Int(1)),
            Statement::Primitive(Prim::Int(2)),
        ]);
        let a = |statement, check: Check, expected| Assertion {
            statement,
            check,
            expected,
        };
        let object = || Observed::Object {
            class: "p.B".into(),
        };
        let length = || Check::ReceiverInspector("length".into());
        // The receiver's new length beats `assertNotNull` on the returned builder.
        let builder = [
            a(0, Check::Value, Observed::Integer(1)),
            a(1, Check::Value, object()),
            a(1, length(), Observed::Integer(6)),
        ];
        assert_eq!(fallback(&test, &builder), 2);
        // A returned value beats the receiver's state.
        let value = [
            a(1, Check::Value, Observed::Integer(6)),
            a(1, length(), Observed::Integer(6)),
        ];
        assert_eq!(fallback(&test, &value), 0);
        // Nothing on the last call: the latest candidate.
        let earlier = [
            a(0, Check::Value, Observed::Integer(1)),
            a(0, Check::Inspector("size".into()), Observed::Integer(1)),
        ];
        assert_eq!(fallback(&test, &earlier), 1);
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
