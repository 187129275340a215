//! The papers' examples: the whole-suite paper's Stack and Cling's Person, Car and GreenPerson.

use ferrosuite_cfg::{Analyzer, Cfg, Config, Control, CoupledBranches, Goal, GoalId, Relation};

use crate::{analyze, fixture_cp, member_names, n, named};

#[test]
fn stack_branches_goals_and_the_infeasible_branch() {
    let c = analyze("examples.Stack");
    let got: Vec<_> = c.branches.iter().map(|b| named(&c, b.id)).collect();
    assert_eq!(
        got,
        vec![
            // push: `if (size >= values.length) resize();` compiles to if_icmplt.
            n("push", 15, "taken", 17),
            n("push", 15, "not taken", 16),
            // push: `if (size < values.length) values[size++] = x;` (if_icmpge); its false
            // outcome (taken) is the infeasible branch of the paper.
            n("push", 17, "taken", 19),
            n("push", 17, "not taken", 18),
            n("pop", 22, "taken", 25),
            n("pop", 22, "not taken", 23),
            n("resize", 30, "taken", 32),
            n("resize", 30, "not taken", 31),
        ]
    );
    let ops: Vec<&str> = c.branches.iter().map(|b| b.opcode.as_str()).collect();
    assert_eq!(
        ops,
        [
            "if_icmplt",
            "if_icmplt",
            "if_icmpge",
            "if_icmpge",
            "ifle",
            "ifle",
            "if_icmpge",
            "if_icmpge"
        ]
    );
    // Goals: the eight branches, then the branchless constructor.
    assert_eq!(c.goals.len(), 9);
    assert_eq!(
        c.goals[8],
        Goal::Method(c.find_method("<init>", "()V").unwrap().id)
    );

    // The infeasible else: both ifs of push are controlled by the entry only (the second runs
    // whatever the first decides), and the false outcome of the second jumps straight to the
    // return block, which post-dominates every block of push: nothing distinguishes it
    // structurally from a feasible branch.
    let push = c.find_method("push", "(I)V").unwrap();
    let body = push.body.as_ref().unwrap();
    for b in body.branch_ids() {
        assert_eq!(
            c.branch(b).controls,
            vec![Control::Entry],
            "{}",
            c.describe(b)
        );
        assert_eq!(c.branch(b).depth, Some(0));
    }
    let infeasible = c.branch(ferrosuite_cfg::BranchId(2));
    let ret = infeasible.to;
    assert_eq!(body.cfg.block(ret).line, Some(19));
    assert!(
        body.cfg
            .out_edges(ret)
            .iter()
            .any(|&e| body.cfg.edge(e).to == Cfg::EXIT)
    );
    for blk in body.cfg.blocks().iter().skip(2) {
        assert!(
            body.pdom.dominates(ret, blk.id),
            "return block post-dominates {}",
            blk.id
        );
    }
    // The assignment is reached only by the feasible (not taken) outcome.
    let assign = c.branch(ferrosuite_cfg::BranchId(3)).to;
    assert!(!body.pdom.dominates(assign, infeasible.from));
    assert_eq!(
        body.cdg.of(assign),
        &[ferrosuite_cfg::Dependence::Edge(
            c.branch(ferrosuite_cfg::BranchId(3)).edge
        )]
    );
    // resize's loop: the condition is controlled by the entry and by its own body edge.
    let loop_cond = c.branch(ferrosuite_cfg::BranchId(6));
    assert_eq!(
        loop_cond.controls,
        vec![Control::Entry, Control::Branch(ferrosuite_cfg::BranchId(7))]
    );
    // DynaMOSA: every branch of Stack is a root (no nesting), and so is the constructor.
    assert_eq!(c.hierarchy.roots, (0..9).map(GoalId).collect::<Vec<_>>());
    // The intra-class call push -> resize is the CCFG's only call edge.
    let ccfg = ferrosuite_cfg::Ccfg::build(
        &Analyzer::new(fixture_cp(), Config::default()),
        "examples.Stack",
        &ferrosuite_cfg::Scope::Declared,
    )
    .unwrap();
    assert_eq!(ccfg.calls.len(), 1);
    let call = ccfg.calls[0];
    assert_eq!(ccfg.members[call.caller].analysis().name, "push");
    assert_eq!(ccfg.members[call.callee].analysis().name, "resize");
    assert_eq!(ccfg.site(&call).line, Some(16));
}

type Named = (String, u16, String, u16);

/// (call site line, caller method, callee method, B_R, B_E) of every call site, and the pairs.
fn coupled(
    caller: &str,
    callee: &str,
) -> (
    Relation,
    Vec<(u16, String, String, Vec<Named>, Vec<Named>)>,
    Vec<(Named, Named)>,
    Vec<String>,
) {
    let a = Analyzer::new(fixture_cp(), Config::default());
    let cb = CoupledBranches::analyze(&a, caller, callee).unwrap();
    let name = |r: &ferrosuite_cfg::BranchRef| named(cb.class_of(r).unwrap(), r.branch);
    let sites = cb
        .sites
        .iter()
        .map(|s| {
            let m = &cb.caller.members[s.caller];
            let site = &m.body().unwrap().calls[s.site];
            (
                site.line.unwrap(),
                m.analysis().name.clone(),
                cb.callee.members[s.callee].qualified(),
                s.caller_branches.iter().map(name).collect(),
                s.callee_branches.iter().map(name).collect(),
            )
        })
        .collect();
    let pairs = cb.pairs.iter().map(|(r, e)| (name(r), name(e))).collect();
    let covering = cb
        .covering
        .iter()
        .map(|&i| cb.caller.members[i].analysis().name.clone())
        .collect();
    (cb.relation, sites, pairs, covering)
}

#[test]
fn person_car_has_the_two_coupled_branches_of_the_paper() {
    let (rel, sites, pairs, covering) = coupled("cling.Person", "cling.Car");
    assert_eq!(rel, Relation::Unrelated);
    assert_eq!(
        sites,
        vec![
            // `new Car()` in the field initialiser: runs whenever a Person is made.
            (
                2,
                "<init>".into(),
                "cling.Car.<init>()V".into(),
                vec![],
                vec![]
            ),
            // car.drive() on line 8: B_R = {<5,8>}; drive has no branch.
            (
                8,
                "driveToHome".into(),
                "cling.Car.drive()V".into(),
                vec![n("driveToHome", 5, "taken", 8)],
                vec![]
            ),
            // car.refuel() on line 16: B_R = {<13,16>} only; <5,6c> is not post-dominated by 16.
            (
                16,
                "addEnergy".into(),
                "cling.Car.refuel()V".into(),
                vec![n("addEnergy", 13, "taken", 16)],
                vec![n("refuel", 8, "taken", 10), n("refuel", 8, "not taken", 9)],
            ),
        ]
    );
    // The paper: (<13,16>, <b8,b9>) and (<13,16>, <b8,b10>), nothing else.
    assert_eq!(
        pairs,
        vec![
            (n("addEnergy", 13, "taken", 16), n("refuel", 8, "taken", 10)),
            (
                n("addEnergy", 13, "taken", 16),
                n("refuel", 8, "not taken", 9)
            ),
        ]
    );
    assert_eq!(covering, ["<init>", "driveToHome", "addEnergy"]);
}

#[test]
fn call_site_post_dominating_its_method_inherits_the_callers_branches() {
    // GreenPerson.chargerAvailable is reached from addEnergy only when not lazy; its call to
    // ChargingStation.takeAvailableStations runs whenever chargerAvailable runs, so the target
    // branch is the one that leads into chargerAvailable's call site in addEnergy.
    let (_, sites, _, covering) = coupled("cling.GreenPerson", "cling.ChargingStation");
    assert_eq!(sites.len(), 1);
    let (line, method, callee, br, be) = &sites[0];
    assert_eq!((*line, method.as_str()), (15, "chargerAvailable"));
    assert_eq!(
        callee,
        "cling.ChargingStation.takeAvailableStations()Ljava/util/List;"
    );
    assert_eq!(br, &vec![n("addEnergy", 5, "taken", 7)]);
    assert!(be.is_empty());
    // GreenPerson's CCFG holds the inherited driveToHome, whose addEnergy() call dispatches to
    // GreenPerson.addEnergy: it is a covering method too.
    assert_eq!(covering, ["addEnergy", "chargerAvailable", "driveToHome"]);
}

#[test]
fn green_person_as_sub_class_caller() {
    // Caller GreenPerson extends callee Person: the call sites are GreenPerson's calls to
    // methods it inherits without redefining them (takeBus, and the super constructor);
    // Person's CCFG leaves out addEnergy, which GreenPerson redefines.
    let (rel, sites, pairs, _) = coupled("cling.GreenPerson", "cling.Person");
    assert_eq!(rel, Relation::CallerIsSub);
    assert_eq!(
        sites,
        vec![
            (
                1,
                "<init>".into(),
                "cling.Person.<init>()V".into(),
                vec![],
                vec![]
            ),
            (
                6,
                "addEnergy".into(),
                "cling.Person.takeBus()V".into(),
                vec![n("addEnergy", 5, "not taken", 6)],
                vec![
                    n("takeBus", 23, "taken", 26),
                    n("takeBus", 23, "not taken", 24)
                ],
            ),
        ]
    );
    assert_eq!(pairs.len(), 2);
    let a = Analyzer::new(fixture_cp(), Config::default());
    let cb = CoupledBranches::analyze(&a, "cling.GreenPerson", "cling.Person").unwrap();
    let callee_methods = member_names(&cb.callee);
    assert_eq!(callee_methods, ["<init>", "driveToHome", "takeBus"]);
    let caller_methods = member_names(&cb.caller);
    assert_eq!(caller_methods, ["<init>", "addEnergy", "chargerAvailable"]);
}

#[test]
fn person_as_super_class_caller_of_green_person() {
    // Caller Person, callee GreenPerson extends it: the call sites are Person's calls to methods
    // GreenPerson redefines (addEnergy on line 6); Person's CCFG leaves addEnergy out and
    // GreenPerson's holds its declared methods, so B_E spans addEnergy and chargerAvailable.
    let (rel, sites, pairs, covering) = coupled("cling.Person", "cling.GreenPerson");
    assert_eq!(rel, Relation::CallerIsSuper);
    let targets = vec![
        n("addEnergy", 5, "taken", 7),
        n("addEnergy", 5, "not taken", 6),
        n("addEnergy", 7, "taken", 10),
        n("addEnergy", 7, "not taken", 8),
        n("chargerAvailable", 15, "taken", 18),
        n("chargerAvailable", 15, "not taken", 16),
    ];
    assert_eq!(
        sites,
        vec![(
            6,
            "driveToHome".into(),
            "cling.GreenPerson.addEnergy()V".into(),
            vec![n("driveToHome", 5, "not taken", 6)],
            targets.clone(),
        )]
    );
    let expected: Vec<_> = targets
        .into_iter()
        .map(|t| (n("driveToHome", 5, "not taken", 6), t))
        .collect();
    assert_eq!(pairs, expected);
    assert_eq!(covering, ["driveToHome"]);
}

#[test]
fn pairs_without_calls_have_no_coupled_branches() {
    let (_, sites, pairs, covering) = coupled("cling.Car", "cling.Person");
    assert!(sites.is_empty() && pairs.is_empty() && covering.is_empty());
}
