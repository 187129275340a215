//! Fixtures, golden files and the Java tools shared by the tests (from
//! `ferrosuite-testkit`, with this binary's scratch and golden directories).

use std::path::{Path, PathBuf};

use ferrosuite_testcase::{Statement, VarRef};
pub use ferrosuite_testkit::{javac, junit4, junit5_compile};

/// The Java 8 fixtures compiled by `fixtures/build.sh`, once per test run.
pub fn fixtures() -> &'static PathBuf {
    ferrosuite_testkit::java8(env!("CARGO_TARGET_TMPDIR"))
}

/// Compares `text` with the golden file `name` (rewritten under `BLESS=1`).
pub fn golden(name: &str, text: &str) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/emit/golden")
        .join(name);
    ferrosuite_testkit::golden(&path, text);
}

/// A fresh scratch directory.
pub fn scratch(name: &str) -> PathBuf {
    ferrosuite_testkit::scratch(env!("CARGO_TARGET_TMPDIR"), name)
}

/// A method call statement: `recv` and `args` are value numbers.
pub fn m(class: &str, name: &str, desc: &str, recv: Option<u32>, args: &[u32]) -> Statement {
    Statement::method(
        class,
        name,
        desc,
        recv.map(VarRef),
        args.iter().map(|a| VarRef(*a)).collect(),
    )
}
