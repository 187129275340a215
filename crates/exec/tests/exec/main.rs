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
mod mutation;
mod subjects;
mod threads;

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

/// Runs `source`, a Java class `class` in the default package, in a plain JVM with the
/// runtime's classes, the fixtures and Byte Buddy's agent on the class path (as emitted tests
/// run), from the empty directory `<scratch>/cwd`; asserts it succeeded. Returns its output and
/// that working directory.
pub fn run_with_runtime(
    scratch: &str,
    class: &str,
    source: &str,
) -> (std::process::Output, PathBuf) {
    let dir = ferrosuite_testkit::scratch(env!("CARGO_TARGET_TMPDIR"), scratch);
    let rt = dir.join("rt");
    for (name, bytes) in ferrosuite_runtime::CLASSES {
        let p = rt.join(format!("{name}.class"));
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(&p, bytes).unwrap();
    }
    let src = dir.join("src");
    std::fs::create_dir_all(&src).unwrap();
    let file = format!("{class}.java");
    std::fs::write(src.join(&file), source).unwrap();
    let classes = dir.join("classes");
    ferrosuite_testkit::javac(
        &src,
        &[file.into()],
        &[rt.clone(), fixtures().clone()],
        &classes,
    )
    .unwrap();
    let work = dir.join("cwd");
    std::fs::create_dir_all(&work).unwrap();
    let agent = ferrosuite_testkit::java_jar("byte-buddy-agent.jar");
    let out = std::process::Command::new("java")
        .current_dir(&work)
        .arg("-cp")
        .arg(ferrosuite_testkit::join(&[
            classes,
            rt,
            fixtures().clone(),
            agent,
        ]))
        .arg(class)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    (out, work)
}
