//! Control dependence (Ferrante, Ottenstein & Warren), from the post-dominator tree.
//!
//! Block `n` is control dependent on edge `a → b` when `n` post-dominates `b` but does not
//! strictly post-dominate `a`: taking the edge decides that `n` will run. For every edge whose
//! target does not strictly post-dominate its source, the dependent blocks are those on the
//! post-dominator-tree path from `b` up to (not including) `ipdom(a)`. Blocks that post-dominate
//! the first block depend on [`Dependence::Entry`] (the classic augmented edge entry → exit):
//! they run whenever the method runs.
//!
//! ```text
//! B2: if (x > 0)          B3 depends on B2 --not taken--> B3
//! B3:   y = 1;            B4 depends on Entry (it runs whenever the method does)
//! B4: return y;           B2 depends on Entry
//! ```

use serde::{Deserialize, Serialize};

use crate::Cfg;
use crate::dom::DomTree;
use crate::ids::{BlockId, EdgeId};

/// What a block is control dependent on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Dependence {
    /// The method entry: the block runs whenever the method runs (and returns normally).
    Entry,
    /// An edge of the graph (a branch outcome, or an edge into an exception handler, …).
    Edge(EdgeId),
}

/// The control dependences of every block of a method.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ControlDependence {
    deps: Vec<Vec<Dependence>>,
}

impl ControlDependence {
    /// Computes the dependences of `cfg` from its post-dominator tree.
    #[must_use]
    pub fn compute(cfg: &Cfg, pdom: &DomTree) -> Self {
        let n = cfg.blocks().len();
        let mut deps: Vec<Vec<Dependence>> = vec![Vec::new(); n];
        // Entry dependence: the path from the first block up to the exit.
        if let Some(&first) = cfg.out_edges(Cfg::ENTRY).first() {
            let mut runner = Some(cfg.edge(first).to);
            while let Some(r) = runner {
                if r == Cfg::EXIT {
                    break;
                }
                deps[r.index()].push(Dependence::Entry);
                runner = pdom.idom(r);
            }
        }
        for (i, e) in cfg.edges().iter().enumerate() {
            if e.from == Cfg::ENTRY {
                continue;
            }
            let (a, b) = (e.from, e.to);
            if a != b && pdom.dominates(b, a) {
                continue;
            }
            let stop = pdom.idom(a);
            let mut runner = Some(b);
            while let Some(r) = runner {
                if Some(r) == stop || r == Cfg::EXIT {
                    break;
                }
                let d = Dependence::Edge(EdgeId(i as u32));
                if deps[r.index()].last() != Some(&d) {
                    deps[r.index()].push(d);
                }
                runner = pdom.idom(r);
            }
        }
        ControlDependence { deps }
    }

    /// What block `b` is control dependent on (in edge order; `Entry` first).
    #[must_use]
    pub fn of(&self, b: BlockId) -> &[Dependence] {
        self.deps.get(b.index()).map_or(&[], Vec::as_slice)
    }

    /// Every (block, dependence) pair.
    pub fn iter(&self) -> impl Iterator<Item = (BlockId, Dependence)> + '_ {
        self.deps
            .iter()
            .enumerate()
            .flat_map(|(b, ds)| ds.iter().map(move |d| (BlockId(b as u32), *d)))
    }
}
