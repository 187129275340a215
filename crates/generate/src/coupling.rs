//! Caller/callee pairs of a run (class-integration testing, `crates/cling`): what a run is
//! told about its pair ([`Coupling`]) and the coupled-branch coverage of its emitted tests
//! ([`CoupledReport`], measured by [`measure_pairs`] on a run of those tests with the pair's
//! classes probed).

use std::sync::Arc;

use ferrosuite_exec::{Host, HostConfig};
use ferrosuite_fitness::GoalSet;
use ferrosuite_testcase::Test;
use serde::{Deserialize, Serialize};

use crate::Result;

/// A caller/callee pair of a run (see [`Config::coupling`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Coupling {
    /// The caller R (binary or internal name).
    pub caller: String,
    /// The callee E.
    pub callee: String,
    /// Class-integration testing of the pair (Cling): the tests are for R (E when E extends
    /// R), named R + E + the emit configuration's class suffix unless a class name is given,
    /// the coupled branches are goals, and a MOSA-family algorithm becomes Cling's search.
    /// Otherwise the run only measures the pair's coupled-branch coverage of its final tests
    /// (and targets the pairs when the criteria include `coupled-branch`).
    pub integration: bool,
}

/// Coupled-branch coverage (Cling's CBC) of a pair by the emitted tests, measured with
/// ferrosuite's probes on a run of the emitted tests.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CoupledReport {
    /// The caller (binary name).
    pub caller: String,
    /// The callee (binary name).
    pub callee: String,
    /// How they are related (`unrelated`, `caller_is_super`, `caller_is_sub`).
    pub relation: String,
    /// The covering methods of the caller.
    pub covering_methods: Vec<String>,
    /// Coupled branches taken together by some emitted test.
    pub covered: usize,
    /// Coupled branches.
    pub total: usize,
    /// The pairs no emitted test covers: (caller branch, callee branch), described.
    pub uncovered: Vec<(String, String)>,
    /// Pairs that cannot be measured, not counted in `total`: a branch in a static initialiser
    /// (it runs once per JVM, not per test) or in a method the instrumentation left alone.
    #[serde(default)]
    pub unmeasured: Vec<(String, String)>,
}

/// The coupled-branch coverage of `tests` (the emitted ones), from one run on a host started
/// with `hc` (which probes the pair's classes), read with a goal set of the pair's goals alone
/// over `analyses` (the CUT, its nested classes, the pair's other classes). A pair whose
/// branches have no probe (in a static initialiser, which runs once per JVM, not per test, or
/// in a method the instrumentation left alone) cannot be measured: it is listed apart and not
/// counted.
pub(crate) fn measure_pairs(
    hc: HostConfig,
    fitness: &ferrosuite_fitness::Config,
    analyses: &[Arc<ferrosuite_cfg::ClassAnalysis>],
    plan: &ferrosuite_cling::Plan,
    tests: &[Test],
) -> Result<CoupledReport> {
    let mut host = Host::start(hc)?;
    let goals = {
        let mut b = GoalSet::builder(
            host.map(),
            ferrosuite_fitness::Config {
                criteria: ferrosuite_fitness::Criteria::only(Arc::new(plan.criterion())),
                ..fitness.clone()
            },
        );
        for a in analyses {
            // A class the instrumentation left alone has no goals: its pairs are unmeasured.
            let _ = b.add_class(a, None);
        }
        b.build()
    };
    let mut covered = std::collections::BTreeSet::new();
    if !tests.is_empty() {
        let results = host.run(tests, false)?;
        for (t, r) in tests.iter().zip(&results) {
            let trace = ferrosuite_fitness::Trace::from_result(&goals, t, r);
            covered.extend(goals.covered(&trace));
        }
    }
    drop(host);
    let by_link: std::collections::BTreeMap<ferrosuite_fitness::Link, ferrosuite_fitness::GoalId> =
        goals
            .goals_of(ferrosuite_cling::criterion::NAME)
            .filter_map(|g| goals.link(g.id).map(|l| (l, g.id)))
            .collect();
    let (mut uncovered, mut unmeasured) = (Vec::new(), Vec::new());
    let mut total = 0;
    for (pair, described) in plan.pairs.iter().zip(&plan.descriptions) {
        let goal = ferrosuite_cling::CoupledBranch::nodes(&goals, pair)
            .and_then(|(r, e)| by_link.get(&ferrosuite_fitness::Link::Pair(r, e)));
        match goal {
            None => unmeasured.push(described.clone()),
            Some(g) => {
                total += 1;
                if !covered.contains(g) {
                    uncovered.push(described.clone());
                }
            }
        }
    }
    Ok(CoupledReport {
        caller: plan.caller.replace('/', "."),
        callee: plan.callee.replace('/', "."),
        relation: serde_json::to_value(plan.relation)
            .ok()
            .and_then(|v| v.as_str().map(String::from))
            .unwrap_or_default(),
        covering_methods: plan.covering_names.clone(),
        covered: total - uncovered.len(),
        total,
        uncovered,
        unmeasured,
    })
}
