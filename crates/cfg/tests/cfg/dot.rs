//! DOT export: golden files (`BLESS=1` rewrites them) and, when Graphviz is installed, `dot`
//! accepts every graph.

use std::path::Path;
use std::process::Command;

use ferrosuite_cfg::{Analyzer, Ccfg, Config, CoupledBranches, Scope, dot};

use crate::{analyze, fixture_cp};

fn golden(name: &str, actual: &str) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/golden")
        .join(name);
    if std::env::var_os("BLESS").is_some() {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, actual).unwrap();
        return;
    }
    let expected = std::fs::read_to_string(&path)
        .unwrap_or_else(|_| panic!("{} missing: run with BLESS=1", path.display()));
    assert_eq!(actual, expected, "{name} differs (BLESS=1 to accept)");
}

fn graphviz_accepts(text: &str) {
    let Ok(mut child) = Command::new("dot")
        .arg("-Tsvg")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
    else {
        eprintln!("Graphviz not installed: syntax not checked");
        return;
    };
    use std::io::Write;
    child
        .stdin
        .take()
        .unwrap()
        .write_all(text.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "{}\n{text}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn stack_graphs_match_golden_files() {
    let c = analyze("examples.Stack");
    let push = c.find_method("push", "(I)V").unwrap().id;
    let cfg = dot::method_cfg(&c, push).unwrap();
    let cdg = dot::method_cdg(&c, push).unwrap();
    golden("stack-push.cfg.dot", &cfg);
    golden("stack-push.cdg.dot", &cdg);
    let a = Analyzer::new(fixture_cp(), Config::default());
    let ccfg = dot::ccfg(&Ccfg::build(&a, "examples.Stack", &Scope::Declared).unwrap());
    golden("stack.ccfg.dot", &ccfg);
    let pair = dot::pair(&CoupledBranches::analyze(&a, "cling.Person", "cling.Car").unwrap());
    golden("person-car.dot", &pair);
    for g in [&cfg, &cdg, &ccfg, &pair] {
        graphviz_accepts(g);
    }
}

#[test]
fn every_fixture_graph_is_valid_dot() {
    let c = analyze("examples.Flow");
    for m in &c.methods {
        graphviz_accepts(&dot::method_cfg(&c, m.id).unwrap());
        graphviz_accepts(&dot::method_cdg(&c, m.id).unwrap());
    }
    assert_eq!(dot::escape("a\"b\\c\nd"), "a\\\"b\\\\c\\nd");
}
