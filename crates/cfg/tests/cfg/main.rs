//! Integration tests of ferrosuite-cfg: the papers' examples compiled from `fixtures/java` with
//! `javac` at test time, control-flow shapes, the reference oracles, the Debian subject jars and
//! `java.base` (set `FERROSUITE_REQUIRE_SUBJECTS=1` to fail instead of skipping when a jar is
//! missing), and bad input.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::doc_markdown,
    clippy::missing_panics_doc,
    clippy::must_use_candidate,
    clippy::type_complexity,
    clippy::items_after_statements,
    missing_docs
)]

mod dot;
mod errors;
mod oracle;
mod pairs;
mod papers;
mod shapes;
mod subjects;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Arc, OnceLock};

use ferrosuite_bytecode::classpath::ClassPath;
use ferrosuite_cfg::{Analyzer, BranchId, ClassAnalysis, Config};

pub fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The Java 8 fixtures compiled by `fixtures/build.sh`, once per test run.
pub fn fixtures() -> &'static PathBuf {
    static F: OnceLock<PathBuf> = OnceLock::new();
    F.get_or_init(|| {
        let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join("cfg-fixtures");
        let st = Command::new(repo().join("fixtures/build.sh"))
            .arg(&out)
            .output()
            .unwrap();
        assert!(
            st.status.success(),
            "{}",
            String::from_utf8_lossy(&st.stderr)
        );
        out.join("java8")
    })
}

pub fn fixture_cp() -> &'static ClassPath {
    static CP: OnceLock<ClassPath> = OnceLock::new();
    CP.get_or_init(|| ClassPath::parse(&fixtures().display().to_string()).unwrap())
}

pub fn analyze(class: &str) -> Arc<ClassAnalysis> {
    Analyzer::new(fixture_cp(), Config::default())
        .class(class)
        .unwrap()
}

/// A branch as (method name, line, outcome, target line): how the papers name branches.
pub fn named(c: &ClassAnalysis, b: BranchId) -> (String, u16, String, u16) {
    let br = c.branch(b);
    (
        c.method(br.method).name.clone(),
        br.line.unwrap(),
        br.outcome.to_string(),
        br.target_line.unwrap(),
    )
}

/// Whether the Debian subject jars must be present.
pub fn subjects_required() -> bool {
    std::env::var_os("FERROSUITE_REQUIRE_SUBJECTS").is_some_and(|v| v == "1")
}

/// The Debian jar `name`, or `None` (with a note) when it is not installed and not required.
pub fn subject(name: &str) -> Option<PathBuf> {
    let jar = Path::new("/usr/share/java").join(format!("{name}.jar"));
    if jar.exists() {
        return Some(jar);
    }
    assert!(
        !subjects_required(),
        "{} is required (apt-get install the Debian package)",
        jar.display()
    );
    eprintln!("skipping {name}: {} not installed", jar.display());
    None
}

/// A branch named the papers' way, for expected values: (method, line, outcome, target line).
pub fn n(m: &str, line: u16, outcome: &str, to: u16) -> (String, u16, String, u16) {
    (m.to_string(), line, outcome.to_string(), to)
}

/// The method names of a CCFG's members, in member order.
pub fn member_names(ccfg: &ferrosuite_cfg::Ccfg) -> Vec<String> {
    ccfg.members
        .iter()
        .map(|m| m.analysis().name.clone())
        .collect()
}
