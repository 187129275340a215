//! Integration tests of ferrosuite-fitness: goal sets of the Java fixtures (compiled from
//! `fixtures/java` with `javac` at test time) and of a Debian subject jar, matched against
//! real probe maps. (Fitness of tests run through the real execution host is tested in the
//! `ferrosuite-generate` crate, which may start a JVM: this crate does not depend on one.)
//!
//! Set `FERROSUITE_REQUIRE_SUBJECTS=1` to fail instead of skipping when a subject jar is
//! missing.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::float_cmp,
    clippy::doc_markdown,
    clippy::missing_panics_doc,
    clippy::must_use_candidate,
    missing_docs
)]

mod mapping;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

pub fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The fixtures compiled by `fixtures/build.sh` (the `java8` and `java17` directories), once
/// per test run.
pub fn fixtures() -> &'static PathBuf {
    static F: OnceLock<PathBuf> = OnceLock::new();
    F.get_or_init(|| {
        let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join("fitness-fixtures");
        let st = Command::new(repo().join("fixtures/build.sh"))
            .arg(&out)
            .output()
            .unwrap();
        assert!(
            st.status.success(),
            "{}",
            String::from_utf8_lossy(&st.stderr)
        );
        out
    })
}

/// The Debian jar `name`, or `None` (with a note) when it is not installed and not required.
pub fn subject(name: &str) -> Option<PathBuf> {
    let jar = Path::new("/usr/share/java").join(format!("{name}.jar"));
    if jar.exists() {
        return Some(jar);
    }
    assert!(
        std::env::var_os("FERROSUITE_REQUIRE_SUBJECTS").is_none_or(|v| v != "1"),
        "{} is required (apt-get install the Debian package)",
        jar.display()
    );
    eprintln!("skipping {name}: {} not installed", jar.display());
    None
}
