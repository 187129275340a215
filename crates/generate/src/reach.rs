//! Coverage that only the assertions' inspector calls reach, kept through the assertion choice.
//!
//! The mutation analysis runs each test with its values observed: after a statement the host
//! calls the inspectors (public getters) of the objects it defined or called, and those calls
//! run code of the class under test too — the cached branch of a `toString`, a getter's
//! condition. An emitted test makes only the calls of the assertions it keeps, so a goal that
//! only an inspector call reaches stays covered only while an assertion making that call is
//! kept; the assertion choice, which looks at mutants killed, would drop it.
//!
//! [`restore`] compares each test's coverage in a run without observation (what its statements
//! reach) with its observed run; the difference is what its inspector calls reach. For each
//! such key that no kept test's statements reach it keeps the assertions calling the method the
//! key lies in (by name: `ReceiverInspector("toString")` for a branch of `toString`) of one
//! test — a kept test when one reaches the key, else the shortest test that does, which is
//! kept again. A key in a method no assertion names (a helper a getter calls) keeps every
//! inspector check of the shortest test reaching it.
//!
//! ```
//! use std::collections::{BTreeSet, HashMap};
//! use ferrosuite_emit::assertions::{Assertion, Check};
//! use ferrosuite_exec::Observed;
//! use ferrosuite_generate::reach::{Reach, restore};
//! // One kept test, no chosen assertion; its `toString` check reaches key 7 (a branch of
//! // `toString`) that its statements do not.
//! let plain = vec![BTreeSet::from([1])];
//! let observed = vec![BTreeSet::from([1, 7])];
//! let method_of = HashMap::from([(7, "toString".to_string())]);
//! let check = |name: &str| Assertion {
//!     statement: 0,
//!     check: Check::ReceiverInspector(name.into()),
//!     expected: Observed::Null,
//! };
//! let assertions = vec![vec![check("size"), check("toString")]];
//! let reach = Reach { plain: &plain, observed: &observed, sizes: &[1], method_of: &method_of };
//! let (mut keep, mut chosen) = (vec![true], vec![vec![]]);
//! assert_eq!(restore(&reach, &assertions, &mut keep, &mut chosen), 1);
//! assert_eq!(chosen, vec![vec![1]]);
//! ```

use std::collections::{BTreeSet, HashMap};

use ferrosuite_bytecode::instrument::map::ProbeMap;
use ferrosuite_emit::assertions::{Assertion, Check};

use crate::mutation::{BRANCH, LINE};

/// The coverage of each test with and without observation.
#[derive(Debug, Clone, Copy)]
pub struct Reach<'a> {
    /// Per test: the coverage keys ([`covered`](crate::mutation::covered)) of its run
    /// without observation, plus any keys the reduction must keep.
    pub plain: &'a [BTreeSet<u64>],
    /// Per test: the coverage keys of its observed run.
    pub observed: &'a [BTreeSet<u64>],
    /// Per test: its number of statements.
    pub sizes: &'a [usize],
    /// The name of the method each coverage key lies in ([`method_names`]).
    pub method_of: &'a HashMap<u64, String>,
}

/// The name of the method each branch-outcome and line key of `map`'s classes lies in, as
/// [`covered`](crate::mutation::covered) tags them.
#[must_use]
pub fn method_names(map: &ProbeMap) -> HashMap<u64, String> {
    let mut out = HashMap::new();
    for class in &map.classes {
        let line_ids = class.line_ids();
        for m in &class.methods {
            for o in m.branches.iter().flat_map(|b| &b.outcomes) {
                out.insert(BRANCH | u64::from(o.slot.0), m.name.clone());
            }
            for id in m.lines.iter().filter_map(|l| line_ids.get(l)) {
                out.entry(LINE | u64::from(*id))
                    .or_insert_with(|| m.name.clone());
            }
        }
    }
    out
}

/// The method an assertion calls to get its value (`None`: it calls none, or reads a
/// field).
fn called(a: &Assertion) -> Option<&str> {
    match &a.check {
        Check::Inspector(n) | Check::ReceiverInspector(n) | Check::Argument(_, n)
            if !n.is_empty() && !n.starts_with('#') =>
        {
            Some(n)
        }
        _ => None,
    }
}

/// Adds to `chosen` (indices into `assertions`) every assertion calling a method `wanted`
/// accepts; returns how many were not chosen before.
fn keep_calls(
    assertions: &[Assertion],
    chosen: &mut Vec<usize>,
    wanted: impl Fn(&str) -> bool,
) -> usize {
    let mut added = 0;
    for (k, a) in assertions.iter().enumerate() {
        if called(a).is_some_and(&wanted) && !chosen.contains(&k) {
            chosen.push(k);
            added += 1;
        }
    }
    added
}

/// Keeps the assertions (and tests) that reach what only inspector calls reach (see the
/// module documentation): `keep[i]` says whether test `i` stays, `chosen[i]` holds the indices
/// of its kept assertions into `assertions[i]`. Returns the number of assertions added.
pub fn restore(
    reach: &Reach<'_>,
    assertions: &[Vec<Assertion>],
    keep: &mut [bool],
    chosen: &mut [Vec<usize>],
) -> usize {
    let n = keep.len().min(chosen.len()).min(reach.plain.len());
    let only: Vec<BTreeSet<u64>> = (0..n)
        .map(|i| {
            let observed = reach.observed.get(i).cloned().unwrap_or_default();
            observed.difference(&reach.plain[i]).copied().collect()
        })
        .collect();
    let same_method = |k: &u64, name: &str| reach.method_of.get(k).is_some_and(|m| m == name);
    let mut given: BTreeSet<u64> = BTreeSet::new();
    for i in (0..n).filter(|&i| keep[i]) {
        given.extend(reach.plain[i].iter().copied());
        for name in chosen[i]
            .iter()
            .filter_map(|&a| assertions[i].get(a).and_then(called))
        {
            given.extend(only[i].iter().filter(|k| same_method(k, name)).copied());
        }
    }
    let wanted: BTreeSet<u64> = only.iter().flatten().copied().collect();
    let mut added = 0;
    let size = |i: usize| reach.sizes.get(i).copied().unwrap_or(0);
    for k in wanted {
        if given.contains(&k) {
            continue;
        }
        let reaching = (0..n).filter(|&i| only[i].contains(&k));
        let method = reach.method_of.get(&k).map(String::as_str);
        // A test with an assertion calling the key's method: a kept one first, the shorter,
        // the earlier.
        let named = reaching
            .clone()
            .filter(|&i| method.is_some() && assertions[i].iter().any(|a| called(a) == method))
            .min_by_key(|&i| (!keep[i], size(i), i));
        if let Some(i) = named {
            if !keep[i] {
                keep[i] = true;
                given.extend(reach.plain[i].iter().copied());
            }
            // Every call of the method in that test: a second call may be what reaches the key
            // (the cached value of a `toString`), and the observed run made them all.
            let name = method.unwrap_or_default();
            added += keep_calls(&assertions[i], &mut chosen[i], |c| c == name);
            given.extend(only[i].iter().filter(|k| same_method(k, name)).copied());
            continue;
        }
        let fallback = reaching
            .filter(|&i| assertions[i].iter().any(|a| called(a).is_some()))
            .min_by_key(|&i| (!keep[i], size(i), i));
        let Some(i) = fallback else {
            // No assertion makes the call that reaches it.
            given.insert(k);
            continue;
        };
        keep[i] = true;
        added += keep_calls(&assertions[i], &mut chosen[i], |_| true);
        given.extend(reach.plain[i].iter().chain(&only[i]).copied());
    }
    for c in chosen.iter_mut() {
        c.sort_unstable();
    }
    added
}

#[cfg(test)]
mod tests {
    use super::*;
    use ferrosuite_exec::Observed;

    fn check(statement: usize, name: &str) -> Assertion {
        Assertion {
            statement,
            check: Check::ReceiverInspector(name.into()),
            expected: Observed::Null,
        }
    }

    fn value(statement: usize) -> Assertion {
        Assertion {
            statement,
            check: Check::Value,
            expected: Observed::Null,
        }
    }

    #[test]
    fn keeps_nothing_when_statements_reach_every_key() {
        let plain = vec![BTreeSet::from([1, 2])];
        let observed = plain.clone();
        let method_of = HashMap::new();
        let reach = Reach {
            plain: &plain,
            observed: &observed,
            sizes: &[2],
            method_of: &method_of,
        };
        let (mut keep, mut chosen) = (vec![true], vec![vec![]]);
        let added = restore(&reach, &[vec![check(0, "size")]], &mut keep, &mut chosen);
        assert_eq!((added, chosen), (0, vec![vec![]]));
    }

    #[test]
    fn a_kept_statement_covering_the_key_needs_no_assertion() {
        // Test 1's statements reach key 9, which only test 0's inspector call reaches.
        let plain = vec![BTreeSet::from([1]), BTreeSet::from([9])];
        let observed = vec![BTreeSet::from([1, 9]), BTreeSet::from([9])];
        let method_of = HashMap::from([(9, "get".to_string())]);
        let reach = Reach {
            plain: &plain,
            observed: &observed,
            sizes: &[1, 1],
            method_of: &method_of,
        };
        let (mut keep, mut chosen) = (vec![true, true], vec![vec![], vec![]]);
        let assertions = vec![vec![check(0, "get")], vec![]];
        assert_eq!(restore(&reach, &assertions, &mut keep, &mut chosen), 0);
    }

    #[test]
    fn prefers_a_kept_test_then_brings_back_the_shortest() {
        // Key 5 (in `toString`): tests 0 (removed, short) and 1 (kept, long) reach it; key 6
        // (in `hash`) only test 2, removed.
        let plain = vec![BTreeSet::new(), BTreeSet::from([1]), BTreeSet::from([2])];
        let observed = vec![
            BTreeSet::from([5]),
            BTreeSet::from([1, 5]),
            BTreeSet::from([2, 6]),
        ];
        let method_of = HashMap::from([(5, "toString".to_string()), (6, "hash".to_string())]);
        let reach = Reach {
            plain: &plain,
            observed: &observed,
            sizes: &[1, 4, 3],
            method_of: &method_of,
        };
        let assertions = vec![
            vec![check(0, "toString")],
            vec![value(0), check(1, "toString"), check(3, "toString")],
            vec![check(0, "size"), check(2, "hash")],
        ];
        let mut keep = vec![false, true, false];
        let mut chosen = vec![vec![], vec![0], vec![]];
        assert_eq!(restore(&reach, &assertions, &mut keep, &mut chosen), 3);
        assert_eq!(keep, vec![false, true, true]);
        // Both `toString` checks of the kept test; the `hash` check, not the `size` one.
        assert_eq!(chosen, vec![vec![], vec![0, 1, 2], vec![1]]);
    }

    #[test]
    fn a_key_in_an_unnamed_method_keeps_every_inspector_check_of_one_test() {
        let plain = vec![BTreeSet::new(), BTreeSet::new()];
        let observed = vec![BTreeSet::from([8]), BTreeSet::from([8])];
        let method_of = HashMap::from([(8, "lambda$size$0".to_string())]);
        let reach = Reach {
            plain: &plain,
            observed: &observed,
            sizes: &[3, 2],
            method_of: &method_of,
        };
        let assertions = vec![
            vec![check(0, "size")],
            vec![value(0), check(0, "size"), check(1, "isEmpty")],
        ];
        let (mut keep, mut chosen) = (vec![true, false], vec![vec![], vec![]]);
        assert_eq!(restore(&reach, &assertions, &mut keep, &mut chosen), 1);
        // The kept test, though longer.
        assert_eq!(chosen, vec![vec![0], vec![]]);
    }

    #[test]
    fn field_reads_and_values_reach_nothing() {
        let plain = vec![BTreeSet::new()];
        let observed = vec![BTreeSet::from([3])];
        let method_of = HashMap::from([(3, "x".to_string())]);
        let reach = Reach {
            plain: &plain,
            observed: &observed,
            sizes: &[1],
            method_of: &method_of,
        };
        let assertions = vec![vec![value(0), check(0, "#x:I")]];
        let (mut keep, mut chosen) = (vec![false], vec![vec![]]);
        assert_eq!(restore(&reach, &assertions, &mut keep, &mut chosen), 0);
        assert_eq!(keep, vec![false]);
    }
}
