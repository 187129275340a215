//! The petgraph-based dominator trees against the reference fixpoint, on random graphs and on
//! real methods; control dependence against its definition.

use ferrosuite_cfg::dom::{DomTree, reference};
use ferrosuite_cfg::{BlockId, Cfg, ClassAnalysis, Config, Dependence};
use proptest::prelude::*;

fn graph() -> impl Strategy<Value = (usize, Vec<(usize, usize)>)> {
    (1usize..24).prop_flat_map(|n| (Just(n), proptest::collection::vec((0..n, 0..n), 0..(n * 3))))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn dominators_agree_with_the_reference((n, edges) in graph(), root in 0usize..24) {
        let root = root % n;
        let fast = DomTree::compute(n, &edges, root);
        prop_assert_eq!(fast.idoms().to_vec(), reference::idoms(n, &edges, root));
        // Post-dominators are dominators of the reversed graph.
        let rev: Vec<(usize, usize)> = edges.iter().map(|&(a, b)| (b, a)).collect();
        let fast = DomTree::compute(n, &rev, root);
        prop_assert_eq!(fast.idoms().to_vec(), reference::idoms(n, &rev, root));
    }
}

fn edges_of(cfg: &Cfg) -> Vec<(usize, usize)> {
    cfg.edges()
        .iter()
        .map(|e| (e.from.index(), e.to.index()))
        .collect()
}

/// Checks one method: both trees against the reference, and control dependence against
/// Ferrante's definition on the reference post-dominators.
pub fn check_method(
    cfg: &Cfg,
    dom: &DomTree,
    pdom: &DomTree,
    cdg: &ferrosuite_cfg::ControlDependence,
) {
    let n = cfg.blocks().len();
    let edges = edges_of(cfg);
    assert_eq!(
        dom.idoms(),
        reference::idoms(n, &edges, Cfg::ENTRY.index()).as_slice()
    );
    let rev: Vec<(usize, usize)> = edges.iter().map(|&(a, b)| (b, a)).collect();
    let ref_pdom = DomTree::from_fn(Cfg::EXIT, n, |b| {
        reference::idoms(n, &rev, Cfg::EXIT.index())[b]
    });
    assert_eq!(pdom.idoms(), ref_pdom.idoms());
    let pd = |a: usize, b: usize| ref_pdom.dominates(BlockId(a as u32), BlockId(b as u32));
    let first = cfg.edge(cfg.out_edges(Cfg::ENTRY)[0]).to.index();
    for v in 2..n {
        // Entry dependence: v post-dominates the first block.
        let entry = pd(v, first);
        assert_eq!(
            cfg_has(cdg, v, Dependence::Entry),
            entry,
            "entry dependence of B{v}"
        );
        for (i, e) in cfg.edges().iter().enumerate().skip(1) {
            let (a, b) = (e.from.index(), e.to.index());
            let expected = pd(v, b) && !(v != a && pd(v, a));
            let got = cfg_has(cdg, v, Dependence::Edge(ferrosuite_cfg::EdgeId(i as u32)));
            assert_eq!(got, expected, "B{v} on edge {i} B{a}->B{b}");
        }
    }
}

fn cfg_has(cdg: &ferrosuite_cfg::ControlDependence, v: usize, d: Dependence) -> bool {
    cdg.of(BlockId(v as u32)).contains(&d)
}

pub fn check_class(c: &ClassAnalysis, max_blocks: usize) -> usize {
    let mut checked = 0;
    for m in &c.methods {
        if let Some(b) = &m.body
            && b.cfg.blocks().len() <= max_blocks
        {
            check_method(&b.cfg, &b.dom, &b.pdom, &b.cdg);
            checked += 1;
        }
    }
    checked
}

#[test]
fn fixture_methods_match_the_reference_and_the_definition() {
    let cp = crate::fixture_cp();
    let mut checked = 0;
    for name in cp.class_names().unwrap() {
        let c = ClassAnalysis::analyze(&cp.load(&name).unwrap(), &Config::default()).unwrap();
        checked += check_class(&c, usize::MAX);
    }
    assert!(checked > 40, "{checked}");
}
