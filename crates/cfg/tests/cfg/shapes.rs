//! Control-flow shapes of `examples.Flow`: handlers, switches, endless loops, nesting.

use ferrosuite_bytecode::classpath::ClassPath;
use ferrosuite_cfg::{
    Analyzer, BlockKind, BranchId, Cfg, ClassAnalysis, Config, Control, EdgeKind, Outcome,
};

use crate::{analyze, fixture_cp};

fn body<'a>(c: &'a ClassAnalysis, name: &str) -> &'a ferrosuite_cfg::class::MethodBody {
    c.methods
        .iter()
        .find(|m| m.name == name)
        .and_then(|m| m.body.as_ref())
        .unwrap()
}

#[test]
fn exception_handlers_get_edges_from_throwing_blocks() {
    let c = analyze("examples.Flow");
    let b = body(&c, "parse");
    let cfg = &b.cfg;
    let catches: Vec<Option<String>> = cfg
        .edges()
        .iter()
        .filter_map(|e| match &e.kind {
            EdgeKind::Exception { catch } => Some(catch.clone()),
            _ => None,
        })
        .collect();
    assert!(catches.contains(&Some("java/lang/NumberFormatException".into())));
    assert!(catches.contains(&None), "the finally handler: {catches:?}");
    // Every block, handlers included, is reachable and post-dominated by the exit.
    for blk in cfg.blocks() {
        assert!(blk.reachable, "{}", blk.id);
        assert!(b.pdom.dominates(Cfg::EXIT, blk.id));
    }
    // The catch block is control dependent on the exceptional edge into it, not on a branch.
    let handler = cfg
        .edges()
        .iter()
        .find(|e| {
            e.kind
                == EdgeKind::Exception {
                    catch: Some("java/lang/NumberFormatException".into()),
                }
        })
        .unwrap()
        .to;
    assert_eq!(cfg.block(handler).line, Some(13), "the catch clause");
    // Without exceptional edges the handlers are dead code.
    let cp: &ClassPath = fixture_cp();
    let plain = Analyzer::new(
        cp,
        Config {
            exception_edges: false,
            ..Config::default()
        },
    )
    .class("examples.Flow")
    .unwrap();
    let pb = body(&plain, "parse");
    assert!(!pb.cfg.has_exception_edges());
    assert!(!pb.cfg.block(handler).reachable);
}

#[test]
fn switches_have_one_branch_per_distinct_case_and_a_default() {
    let c = analyze("examples.Flow");
    let outcomes = |m: &str| -> Vec<(Outcome, u16)> {
        body(&c, m)
            .branch_ids()
            .map(|b| (c.branch(b).outcome, c.branch(b).target_line.unwrap()))
            .collect()
    };
    // tableswitch 1..4: key 3 jumps to the default and is not a case of its own.
    assert_eq!(
        outcomes("day"),
        [
            (Outcome::Case(1), 22),
            (Outcome::Case(2), 23),
            (Outcome::Case(4), 24),
            (Outcome::Default, 25)
        ]
    );
    assert_eq!(
        outcomes("sparse"),
        [
            (Outcome::Case(-100), 31),
            (Outcome::Case(7), 32),
            (Outcome::Case(100_000), 33),
            (Outcome::Default, 34)
        ]
    );
    assert!(
        body(&c, "day")
            .branch_ids()
            .all(|b| c.branch(b).opcode == "tableswitch")
    );
    assert!(
        body(&c, "sparse")
            .branch_ids()
            .all(|b| c.branch(b).opcode == "lookupswitch")
    );
}

#[test]
fn endless_loops_get_a_virtual_exit_edge() {
    let c = analyze("examples.Flow");
    let b = body(&c, "spin");
    assert!(b.cfg.has_endless_loop());
    let no_exit: Vec<_> = b
        .cfg
        .edges()
        .iter()
        .filter(|e| e.kind == EdgeKind::NoExit)
        .collect();
    assert_eq!(no_exit.len(), 1);
    assert_eq!(no_exit[0].to, Cfg::EXIT);
    for blk in b.cfg.blocks() {
        assert!(blk.reachable);
        assert!(b.pdom.contains(blk.id), "{} has a post-dominator", blk.id);
    }
    // A method that only throws reaches the exit through its athrow.
    let f = body(&c, "fail");
    assert!(
        f.cfg
            .edges()
            .iter()
            .any(|e| e.kind == EdgeKind::Throw && e.to == Cfg::EXIT)
    );
    assert!(!f.cfg.has_endless_loop());
    assert_eq!(f.cfg.blocks()[0].kind, BlockKind::Entry);
}

#[test]
fn nested_conditions_give_approach_levels_and_a_goal_hierarchy() {
    let c = analyze("examples.Flow");
    let b = body(&c, "nested");
    let ids: Vec<BranchId> = b.branch_ids().collect();
    // if (a > 0) { if (b > 0) { if (c > 0) ... } }: each `ifle` falls through into the next.
    let depth: Vec<Option<u32>> = ids.iter().map(|&x| c.branch(x).depth).collect();
    assert_eq!(
        depth,
        [Some(0), Some(0), Some(1), Some(1), Some(2), Some(2)]
    );
    let inner_true = ids[5];
    assert_eq!(c.branch(inner_true).controls, vec![Control::Branch(ids[3])]);
    assert_eq!(
        c.approach_levels(inner_true),
        vec![(ids[3], 1), (ids[1], 2)]
    );
    // DynaMOSA: the outer branches are roots; covering a > 0 activates the b > 0 branches, …
    let roots: Vec<u32> = c.hierarchy.roots.iter().map(|g| g.0).collect();
    assert!(roots.contains(&ids[0].0) && roots.contains(&ids[1].0));
    assert!(!roots.contains(&ids[2].0));
    let kids = |x: BranchId| -> Vec<u32> {
        c.hierarchy.children[x.index()]
            .iter()
            .map(|g| g.0)
            .collect()
    };
    assert_eq!(kids(ids[1]), [ids[2].0, ids[3].0]);
    assert_eq!(kids(ids[3]), [ids[4].0, ids[5].0]);
    assert!(kids(ids[0]).is_empty());
}

#[test]
fn branches_inside_an_endless_loop_keep_their_control_dependence() {
    // while (true) { if (up) count++; else count--; }: each arm jumps back and gets a virtual
    // edge to the exit, so neither arm post-dominates the `if`.
    let c = analyze("examples.Flow");
    let b = body(&c, "toggle");
    assert!(b.cfg.has_endless_loop());
    let ids: Vec<BranchId> = b.branch_ids().collect();
    assert_eq!(ids.len(), 2);
    for &x in &ids {
        let br = c.branch(x);
        assert_eq!(
            b.cdg.of(br.to),
            &[ferrosuite_cfg::Dependence::Edge(br.edge)],
            "{}",
            c.describe(x)
        );
        assert!(!b.pdom.dominates(br.to, br.from));
    }
    // The loop's `if` runs on entry and again after either arm.
    assert!(c.branch(ids[0]).controls.contains(&Control::Entry));
    assert!(!c.hierarchy.children[ids[0].index()].contains(&ferrosuite_cfg::GoalId(ids[0].0)));
}
