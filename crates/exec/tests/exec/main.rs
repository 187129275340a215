//! Integration tests of the execution host: real worker processes with an embedded JVM,
//! fixtures compiled from `fixtures/java` at test time, hostile code, Debian subject jars (set
//! `FERROSUITE_REQUIRE_SUBJECTS=1` to fail instead of skipping when a jar is missing), and
//! bad input.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::doc_markdown,
    clippy::missing_panics_doc,
    clippy::must_use_candidate,
    clippy::many_single_char_names,
    clippy::too_many_lines,
    missing_docs
)]

mod basics;
mod clock;
mod environment;
mod files;
mod hostile;
mod mocks;
mod subjects;

use std::path::PathBuf;

use ferrosuite_exec::{Host, HostConfig, WorkerProgram};
pub use ferrosuite_testkit::{repo, subjects_required};

/// The Java 8 fixtures compiled by `fixtures/build.sh`, once per test run.
pub fn fixtures() -> &'static PathBuf {
    ferrosuite_testkit::java8(env!("CARGO_TARGET_TMPDIR"))
}

pub fn worker() -> WorkerProgram {
    WorkerProgram {
        program: PathBuf::from(env!("CARGO_BIN_EXE_ferrosuite-worker")),
        args: Vec::new(),
    }
}

pub fn config(classpath: Vec<PathBuf>, instrument: &[&str]) -> HostConfig {
    HostConfig {
        classpath,
        instrument: instrument.iter().map(ToString::to_string).collect(),
        worker: Some(worker()),
        ..HostConfig::default()
    }
}

pub fn fixture_host(instrument: &[&str]) -> Host {
    Host::start(config(vec![fixtures().clone()], instrument)).unwrap()
}
