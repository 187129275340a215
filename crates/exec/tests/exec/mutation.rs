//! Mutation analysis on the host (`HostConfig::mutation`): the classes under test become
//! mutation schemata, a batch runs against one mutant, and each result says which mutation
//! sites its test reached.

use ferrosuite_bytecode::instrument::mutation::{Config, Operator};
use ferrosuite_exec::{Host, Observed, Status, TestResult};
use ferrosuite_testcase::{Prim, Statement, Test, VarRef};

use crate::{config, fixtures};

fn value(r: &TestResult) -> i64 {
    assert_eq!(r.status, Status::Completed, "{r:?}");
    match r.observations.last().and_then(|o| o.value.clone()) {
        Some(Observed::Integer(v)) => v,
        other => panic!("not an integer: {other:?}"),
    }
}

fn add(a: i32, b: i32) -> Test {
    Test::new(vec![
        Statement::Primitive(Prim::Int(a)),
        Statement::Primitive(Prim::Int(b)),
        Statement::method(
            "mutation/Ops",
            "add",
            "(II)I",
            None,
            vec![VarRef(0), VarRef(1)],
        ),
    ])
}

#[test]
fn a_batch_runs_against_one_mutant_and_results_say_which_sites_were_reached() {
    let mut c = config(vec![fixtures().clone()], &["mutation/Ops"]);
    c.mutation = Some(Config::default());
    c.workers = 2;
    let mut host = Host::start(c).unwrap();
    let mutants = host.mutants().to_vec();
    assert!(mutants.len() > 20, "{mutants:#?}");
    let of = |method: &str, op: Operator| {
        mutants
            .iter()
            .find(|m| m.method.starts_with(&format!("{method} ")) && m.operator == op)
            .unwrap_or_else(|| panic!("no {op:?} in {method}"))
            .clone()
    };
    let plus = of("add", Operator::Math);
    let ret = of("add", Operator::PrimitiveReturns);
    let elsewhere = of("negate", Operator::InvertNegatives);
    let tests = vec![add(3, 4), add(10, 5)];

    let original = host.run_mutant(&tests, true, 0).unwrap();
    assert_eq!(original.iter().map(value).collect::<Vec<_>>(), [7, 15]);
    // `add` has two sites, the addition and the return; the test reaches both, nothing else.
    for r in &original {
        let mut sites = r.reached_sites.clone();
        sites.sort_unstable();
        assert_eq!(sites, [plus.site, ret.site], "{r:?}");
    }
    let minus = host.run_mutant(&tests, true, plus.id).unwrap();
    assert_eq!(minus.iter().map(value).collect::<Vec<_>>(), [-1, 5]);
    let zero = host.run_mutant(&tests, true, ret.id).unwrap();
    assert_eq!(zero.iter().map(value).collect::<Vec<_>>(), [0, 0]);
    // A mutant the tests do not reach changes nothing.
    let same = host.run_mutant(&tests, true, elsewhere.id).unwrap();
    assert_eq!(same.iter().map(value).collect::<Vec<_>>(), [7, 15]);
    // Plain runs run the original code.
    let plain = host.run(&tests, true).unwrap();
    assert_eq!(plain.iter().map(value).collect::<Vec<_>>(), [7, 15]);
    assert!(host.run_mutant(&tests, false, 1_000_000).is_err());
}

#[test]
fn without_mutation_nothing_is_mutated_or_reached() {
    let mut host = Host::start(config(vec![fixtures().clone()], &["mutation/Ops"])).unwrap();
    assert!(host.mutants().is_empty());
    let r = host.run(&[add(3, 4)], true).unwrap();
    assert_eq!(value(&r[0]), 7);
    assert!(r[0].reached_sites.is_empty());
    assert!(host.run_mutant(&[add(3, 4)], false, 1).is_err());
}
