//! Ranking the caller/callee pairs of a set of classes by their coupled branches: the
//! candidates for class-integration testing (`ferrosuite analyze --pairs N`,
//! `ferrosuite integration --pairs N`).
//!
//! Every class R of the set is analysed; every other class E of the set that R's code names
//! as the owner of a call is a candidate callee, and the pair counts when the analysis finds
//! call sites ([`CoupledBranches::analyze`]). Pairs sort by coupled branches, then call sites
//! (more first), then names.

use std::collections::BTreeSet;

use ferrosuite_cfg::{Analyzer, CoupledBranches, Relation};
use serde::Serialize;

/// One pair of the ranking.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PairRank {
    /// The caller (binary name).
    pub caller: String,
    /// The callee (binary name).
    pub callee: String,
    /// How they are related.
    pub relation: Relation,
    /// Call sites from R to E.
    pub call_sites: usize,
    /// Coupled branches.
    pub coupled_branches: usize,
}

/// The ranking of a set of classes.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Ranking {
    /// Pairs with call sites, best first.
    pub pairs: Vec<PairRank>,
    /// Classes or pairs the analysis failed on (each message names them).
    pub failures: Vec<String>,
}

impl Ranking {
    /// Pairs with at least one coupled branch.
    #[must_use]
    pub fn with_coupled_branches(&self) -> usize {
        self.pairs.iter().filter(|p| p.coupled_branches > 0).count()
    }
}

/// Ranks the pairs of `names` (internal names); see the module documentation.
#[must_use]
pub fn rank(analyzer: &Analyzer<'_>, names: &BTreeSet<String>) -> Ranking {
    let mut out = Ranking::default();
    for r in names {
        let c = match analyzer.class(r) {
            Ok(c) => c,
            Err(e) => {
                out.failures.push(e.to_string());
                continue;
            }
        };
        let callees: BTreeSet<&str> = c
            .methods
            .iter()
            .filter_map(|m| m.body.as_ref())
            .flat_map(|b| b.calls.iter().map(|s| s.owner.as_str()))
            .filter(|o| *o != r && names.contains(*o))
            .collect();
        for e in callees {
            match CoupledBranches::analyze(analyzer, r, e) {
                // Calls that resolve to no method of E with code (or only from dead code).
                Ok(cb) if cb.sites.is_empty() => {}
                Ok(cb) => out.pairs.push(PairRank {
                    caller: r.replace('/', "."),
                    callee: e.replace('/', "."),
                    relation: cb.relation,
                    call_sites: cb.sites.len(),
                    coupled_branches: cb.pairs.len(),
                }),
                // A callee without code (an interface) has no branches to couple.
                Err(ferrosuite_cfg::Error::NoCode { .. }) => {}
                Err(e) => out.failures.push(e.to_string()),
            }
        }
    }
    out.pairs.sort_by(|a, b| {
        (b.coupled_branches, b.call_sites)
            .cmp(&(a.coupled_branches, a.call_sites))
            .then_with(|| (&a.caller, &a.callee).cmp(&(&b.caller, &b.callee)))
    });
    out
}
