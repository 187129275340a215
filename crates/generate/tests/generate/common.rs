//! Fixtures, the worker, golden files and the Java tools shared by the tests (from
//! `ferrosuite-testkit`, with this binary's scratch and golden directories).

use std::path::{Path, PathBuf};

use ferrosuite_exec::WorkerProgram;

pub use ferrosuite_testkit::{java_jar, javac, join, junit4, junit5_compile};

/// The Java 8 fixtures compiled by `fixtures/build.sh`, once per test run.
pub fn fixtures() -> &'static PathBuf {
    ferrosuite_testkit::java8(env!("CARGO_TARGET_TMPDIR"))
}

/// The Java 17 fixtures (records, sealed types).
pub fn java17() -> PathBuf {
    ferrosuite_testkit::fixtures(env!("CARGO_TARGET_TMPDIR")).join("java17")
}

/// The fixtures as Java 25 class files, when a JDK 25 was found to compile them.
pub fn java25() -> Option<PathBuf> {
    ferrosuite_testkit::java25(env!("CARGO_TARGET_TMPDIR"))
}

/// The worker program, or `None` (with a note) when it is not built and not required.
pub fn worker() -> Option<WorkerProgram> {
    ferrosuite_testkit::or_skip(WorkerProgram::locate(), "FERROSUITE_REQUIRE_WORKER")
}

/// Compares `text` with the golden file `name` (rewritten under `BLESS=1`).
pub fn golden(name: &str, text: &str) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/generate/golden")
        .join(name);
    ferrosuite_testkit::golden(&path, text);
}

/// A fresh scratch directory.
pub fn scratch(name: &str) -> PathBuf {
    ferrosuite_testkit::scratch(env!("CARGO_TARGET_TMPDIR"), name)
}
