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

use std::path::PathBuf;
use std::sync::{Arc, OnceLock};

use ferrosuite_bytecode::classpath::ClassPath;
use ferrosuite_cfg::{Analyzer, BranchId, ClassAnalysis, Config};
pub use ferrosuite_testkit::{repo, subject, subjects_required};

/// The Java 8 fixtures compiled by `fixtures/build.sh`, once per test run.
pub fn fixtures() -> &'static PathBuf {
    ferrosuite_testkit::java8(env!("CARGO_TARGET_TMPDIR"))
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
