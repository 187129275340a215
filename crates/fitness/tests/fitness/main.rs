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

use std::path::PathBuf;

pub use ferrosuite_testkit::{repo, subject};

/// The fixtures compiled by `fixtures/build.sh` (the `java8` and `java17` directories), once
/// per test run.
pub fn fixtures() -> &'static PathBuf {
    ferrosuite_testkit::fixtures(env!("CARGO_TARGET_TMPDIR"))
}
