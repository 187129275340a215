//! Dominator and post-dominator trees.
//!
//! Block `a` *dominates* `b` when every path from the entry to `b` passes through `a`; `a`
//! *post-dominates* `b` when every path from `b` to the exit passes through `a`. The trees are
//! computed with petgraph's Cooper–Harvey–Kennedy algorithm ([`petgraph::algo::dominators`]),
//! forward from [`Cfg::ENTRY`] and on the reversed graph from [`Cfg::EXIT`]. Blocks the root
//! cannot reach have no immediate dominator.
//!
//! [`reference`] is a deliberately simple set-based fixpoint kept as the test oracle.
//!
//! ```text
//!        ENTRY            post-dominator tree:   EXIT
//!          |                                      |
//!          B2 (if)                                B5
//!         /  \                                 /  |  \
//!       B3    B4                             B2  B3  B4
//!         \  /                                |
//!          B5 (return)                      ENTRY
//!          |
//!        EXIT
//! ```

use petgraph::algo::dominators::simple_fast;
use petgraph::graph::NodeIndex;
use petgraph::visit::Reversed;

use crate::Cfg;
use crate::ids::BlockId;

/// A (post-)dominator tree: the immediate dominator of every block.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DomTree {
    root: BlockId,
    idom: Vec<Option<BlockId>>,
}

impl DomTree {
    /// The dominator tree of `cfg`, rooted at the entry.
    #[must_use]
    pub fn dominators(cfg: &Cfg) -> Self {
        let g = cfg.graph();
        let d = simple_fast(&g, NodeIndex::new(Cfg::ENTRY.index()));
        Self::from_fn(Cfg::ENTRY, cfg.blocks().len(), |b| {
            d.immediate_dominator(NodeIndex::new(b))
                .map(|n| BlockId(n.index() as u32))
        })
    }

    /// The post-dominator tree of `cfg`, rooted at the exit.
    #[must_use]
    pub fn post_dominators(cfg: &Cfg) -> Self {
        let g = cfg.graph();
        let d = simple_fast(Reversed(&g), NodeIndex::new(Cfg::EXIT.index()));
        Self::from_fn(Cfg::EXIT, cfg.blocks().len(), |b| {
            d.immediate_dominator(NodeIndex::new(b))
                .map(|n| BlockId(n.index() as u32))
        })
    }

    /// The dominator tree of any graph of `n` nodes given as `(from, to)` edges, rooted at
    /// `root` (for the post-dominator tree, pass the edges reversed).
    #[must_use]
    pub fn compute(n: usize, edges: &[(usize, usize)], root: usize) -> Self {
        let mut g = petgraph::graph::DiGraph::<(), ()>::with_capacity(n, edges.len());
        for _ in 0..n {
            g.add_node(());
        }
        for &(a, b) in edges {
            g.add_edge(NodeIndex::new(a), NodeIndex::new(b), ());
        }
        let d = simple_fast(&g, NodeIndex::new(root));
        Self::from_fn(BlockId(root as u32), n, |b| {
            d.immediate_dominator(NodeIndex::new(b))
                .map(|x| BlockId(x.index() as u32))
        })
    }

    /// A tree from immediate dominators given per block (`None` for the root and for blocks the
    /// root does not reach).
    #[must_use]
    pub fn from_fn(root: BlockId, n: usize, idom: impl Fn(usize) -> Option<BlockId>) -> Self {
        DomTree {
            root,
            idom: (0..n).map(idom).collect(),
        }
    }

    /// The root.
    #[must_use]
    pub fn root(&self) -> BlockId {
        self.root
    }

    /// The immediate (post-)dominator of `b`.
    #[must_use]
    pub fn idom(&self, b: BlockId) -> Option<BlockId> {
        self.idom.get(b.index()).copied().flatten()
    }

    /// All immediate dominators, indexed by block.
    #[must_use]
    pub fn idoms(&self) -> &[Option<BlockId>] {
        &self.idom
    }

    /// True when the root reaches `b` (so that it has a place in the tree).
    #[must_use]
    pub fn contains(&self, b: BlockId) -> bool {
        b == self.root || self.idom(b).is_some()
    }

    /// True when `a` (post-)dominates `b` (reflexive).
    #[must_use]
    pub fn dominates(&self, a: BlockId, b: BlockId) -> bool {
        if !self.contains(b) {
            return false;
        }
        let mut x = Some(b);
        while let Some(y) = x {
            if y == a {
                return true;
            }
            x = self.idom(y);
        }
        false
    }
}

/// The reference implementation: the textbook data-flow fixpoint
/// `dom(root) = {root}`, `dom(n) = {n} ∪ ⋂ dom(p)` over the predecessors `p` of `n`, on plain
/// boolean vectors, with the immediate dominator picked as the strict dominator that all others
/// dominate. Quadratic and obviously correct; used to check [`DomTree`] on random graphs.
pub mod reference {
    use crate::ids::BlockId;

    /// Immediate dominators of the graph with `n` nodes and `edges` (from, to), rooted at `root`.
    #[must_use]
    pub fn idoms(n: usize, edges: &[(usize, usize)], root: usize) -> Vec<Option<BlockId>> {
        // Nodes the root reaches.
        let mut reach = vec![false; n];
        reach[root] = true;
        let mut changed = true;
        while changed {
            changed = false;
            for &(a, b) in edges {
                if reach[a] && !reach[b] {
                    reach[b] = true;
                    changed = true;
                }
            }
        }
        let mut dom: Vec<Vec<bool>> = (0..n)
            .map(|v| {
                if v == root {
                    (0..n).map(|u| u == root).collect()
                } else {
                    vec![true; n]
                }
            })
            .collect();
        let mut changed = true;
        while changed {
            changed = false;
            for v in 0..n {
                if v == root || !reach[v] {
                    continue;
                }
                let mut new = vec![true; n];
                for &(a, b) in edges {
                    if b == v && reach[a] {
                        for u in 0..n {
                            new[u] = new[u] && dom[a][u];
                        }
                    }
                }
                new[v] = true;
                if new != dom[v] {
                    dom[v] = new;
                    changed = true;
                }
            }
        }
        (0..n)
            .map(|v| {
                if v == root || !reach[v] {
                    return None;
                }
                // The strict dominator dominated by every other strict dominator.
                (0..n)
                    .filter(|&d| d != v && dom[v][d])
                    .find(|&d| (0..n).all(|o| o == v || !dom[v][o] || dom[d][o]))
                    .map(|d| BlockId(d as u32))
            })
            .collect()
    }
}
