//! Pair rules beyond the paper's examples: intermediate classes, private methods, inherited
//! code calling superclass privates and constructors, calls after a try/catch, and a superclass
//! chain that loops.

use ferrosuite_bytecode::ClassFile;
use ferrosuite_bytecode::classpath::ClassPath;
use ferrosuite_cfg::{Analyzer, Config, CoupledBranches, Relation};

use crate::{fixture_cp, fixtures, member_names, n, named};

type Site = (String, String, Vec<(String, u16, String, u16)>, usize);

/// (caller method, callee member, B_R named, |B_E|) per call site.
fn sites(cb: &CoupledBranches) -> Vec<Site> {
    cb.sites
        .iter()
        .map(|s| {
            let m = &cb.caller.members[s.caller];
            (
                m.analysis().name.clone(),
                cb.callee.members[s.callee].qualified(),
                s.caller_branches
                    .iter()
                    .map(|r| named(cb.class_of(r).unwrap(), r.branch))
                    .collect(),
                s.callee_branches.len(),
            )
        })
        .collect()
}

#[test]
fn sub_class_caller_skips_methods_an_intermediate_class_declares() {
    // Leaf extends Middle extends Base. foo() is Middle's, the constructor called is Middle's:
    // only util() and process() are calls to Base; process reaches Base's private validate().
    let a = Analyzer::new(fixture_cp(), Config::default());
    let cb = CoupledBranches::analyze(&a, "pairs.Leaf", "pairs.Base").unwrap();
    assert_eq!(cb.relation, Relation::CallerIsSub);
    let guard = vec![n("go", 13, "not taken", 14)];
    assert_eq!(
        sites(&cb),
        vec![
            ("go".into(), "pairs.Base.util()V".into(), guard.clone(), 2),
            ("go".into(), "pairs.Base.process()V".into(), guard, 2),
        ]
    );
    assert_eq!(cb.pairs.len(), 4);
}

#[test]
fn inherited_code_reaches_superclass_privates_and_constructors() {
    // Client -> Middle: Middle's CCFG holds Base's process() (inherited), and through it Base's
    // private validate(); `new Middle(..)` runs Base(String) through super(s). The call after
    // the try/catch in helper() runs whenever helper() returns normally from its try: it takes
    // the branch of go() that calls helper().
    let a = Analyzer::new(fixture_cp(), Config::default());
    let cb = CoupledBranches::analyze(&a, "pairs.Client", "pairs.Middle").unwrap();
    assert_eq!(cb.relation, Relation::Unrelated);
    assert_eq!(
        sites(&cb),
        vec![
            (
                "<init>".into(),
                "pairs.Middle.<init>(Ljava/lang/String;)V".into(),
                vec![],
                2
            ),
            (
                "run".into(),
                "pairs.Base.process()V".into(),
                vec![n("run", 8, "not taken", 9)],
                2
            ),
            (
                "helper".into(),
                "pairs.Base.util()V".into(),
                vec![n("go", 23, "not taken", 24)],
                2
            ),
        ]
    );
    assert_eq!(cb.pairs.len(), 4);
    // Base's constructors and private methods are followed but are not members a test can call.
    let callable: Vec<String> = cb
        .callee
        .members
        .iter()
        .filter(|m| m.callable)
        .map(ferrosuite_cfg::ccfg::Member::qualified)
        .collect();
    assert!(
        !callable
            .iter()
            .any(|m| m.contains("validate") || m.contains("Base.<init>")),
        "{callable:?}"
    );
}

#[test]
fn a_private_method_is_not_redefined_by_a_subclass_method_of_the_same_name() {
    // Compiled for Java 17: Sup.go() calls its private helper() with invokevirtual. Sub's public
    // helper() does not override it, so Sup -> Sub has no call site, and Sup's CCFG keeps helper.
    let cp = ClassPath::parse(
        &fixtures()
            .parent()
            .unwrap()
            .join("java17")
            .display()
            .to_string(),
    )
    .unwrap();
    let a = Analyzer::new(&cp, Config::default());
    let cb = CoupledBranches::analyze(&a, "pairs.Sup", "pairs.Sub").unwrap();
    assert_eq!(cb.relation, Relation::CallerIsSuper);
    assert!(cb.sites.is_empty() && cb.pairs.is_empty());
    let members = member_names(&cb.caller);
    assert_eq!(members, ["<init>", "go", "helper"]);
    // The intra-class call go -> helper is an edge of Sup's CCFG.
    assert_eq!(cb.caller.calls.len(), 1);
}

#[test]
fn a_superclass_chain_that_loops_does_not_hang() {
    // p.Car with its superclass patched to itself.
    let bytes = std::fs::read(fixtures().join("cling/Car.class")).unwrap();
    let mut cf = ClassFile::parse(&bytes).unwrap();
    cf.super_class = cf.this_class;
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("cfg-cycle");
    std::fs::create_dir_all(dir.join("cling")).unwrap();
    std::fs::write(dir.join("cling/Car.class"), cf.to_bytes().unwrap()).unwrap();
    std::fs::copy(
        fixtures().join("cling/Person.class"),
        dir.join("cling/Person.class"),
    )
    .unwrap();
    let cp = ClassPath::parse(&dir.display().to_string()).unwrap();
    let a = Analyzer::new(&cp, Config::default());
    assert!(a.superclasses("cling.Car").unwrap().is_empty());
    let cb = CoupledBranches::analyze(&a, "cling.Person", "cling.Car").unwrap();
    assert_eq!(cb.pairs.len(), 2);
}
