//! Helpers shared by ferrosuite's integration tests: the Java fixtures compiled once per test
//! binary, the Debian subject jars, skipping (or failing, when the environment says a thing is
//! required) when something is missing, `javac` and JUnit's jars, golden files and scratch
//! directories. A dev-dependency only; it depends on no ferrosuite crate, so the JVM-free
//! crates' tests can use it.
//!
//! ```no_run
//! // In a test binary, pass `env!("CARGO_TARGET_TMPDIR")` (set for integration tests).
//! let classes = ferrosuite_testkit::java8("target/tmp");
//! if let Some(jar) = ferrosuite_testkit::subject("commons-lang3") {
//!     println!("{} and {}", classes.display(), jar.display());
//! }
//! ```

#![allow(clippy::missing_panics_doc, clippy::panic, clippy::expect_used)]

use std::fmt::Display;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

/// The workspace's root directory.
#[must_use]
pub fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Whether the environment variable `var` is `1`: what it names must be present, and its
/// absence fails the test instead of skipping it.
#[must_use]
pub fn required(var: &str) -> bool {
    std::env::var_os(var).is_some_and(|v| v == "1")
}

/// The value of `found`, or `None` with a note on standard error when it is an error, unless
/// `var` says the thing is required: then the test fails with the error.
pub fn or_skip<T, E: Display>(found: Result<T, E>, var: &str) -> Option<T> {
    match found {
        Ok(t) => Some(t),
        Err(e) => {
            assert!(!required(var), "{e} (required by {var}=1)");
            eprintln!("skipping: {e}");
            None
        }
    }
}

/// Whether the Debian subject jars must be present (`FERROSUITE_REQUIRE_SUBJECTS=1`).
#[must_use]
pub fn subjects_required() -> bool {
    required("FERROSUITE_REQUIRE_SUBJECTS")
}

/// The Debian jar `name` (`/usr/share/java/<name>.jar`), or `None` (with a note) when it is not
/// installed and not required.
#[must_use]
pub fn subject(name: &str) -> Option<PathBuf> {
    let jar = Path::new("/usr/share/java").join(format!("{name}.jar"));
    let found = if jar.exists() {
        Ok(jar)
    } else {
        Err(format!(
            "{name}: {} is not installed (apt-get install the Debian package)",
            jar.display()
        ))
    };
    or_skip(found, "FERROSUITE_REQUIRE_SUBJECTS")
}

/// Compiles the fixtures (`fixtures/build.sh`) into `out`: `out/java8` and `out/java17`.
pub fn build_fixtures(out: &Path) {
    let st = Command::new(repo().join("fixtures/build.sh"))
        .arg(out)
        .output()
        .expect("fixtures/build.sh runs");
    assert!(
        st.status.success(),
        "fixtures/build.sh {}: {}",
        out.display(),
        String::from_utf8_lossy(&st.stderr)
    );
}

/// The fixtures compiled once per test binary, under `tmp` (the test's `CARGO_TARGET_TMPDIR`),
/// in a directory named after the test binary: the root holding `java8` and `java17`.
pub fn fixtures(tmp: &str) -> &'static PathBuf {
    static F: OnceLock<PathBuf> = OnceLock::new();
    F.get_or_init(|| {
        let binary = std::env::current_exe()
            .ok()
            .and_then(|p| p.file_stem().map(|s| s.to_string_lossy().into_owned()))
            .unwrap_or_else(|| "tests".into());
        let out = Path::new(tmp).join(format!("fixtures-{binary}"));
        build_fixtures(&out);
        out
    })
}

/// The Java 8 fixtures (`fixtures(tmp)/java8`).
pub fn java8(tmp: &str) -> &'static PathBuf {
    static J: OnceLock<PathBuf> = OnceLock::new();
    J.get_or_init(|| fixtures(tmp).join("java8"))
}

/// The fixtures compiled as Java 25 class files (`fixtures(tmp)/java25`), or `None` with a
/// note when no JDK 25 or newer was found to compile them (required with
/// `FERROSUITE_REQUIRE_JDK25=1`).
#[must_use]
pub fn java25(tmp: &str) -> Option<PathBuf> {
    let dir = fixtures(tmp).join("java25");
    let found = if dir.is_dir() {
        Ok(dir)
    } else {
        Err("no JDK 25 or newer under /usr/lib/jvm or in JDK25_HOME: no Java 25 fixtures")
    };
    or_skip(found, "FERROSUITE_REQUIRE_JDK25")
}

/// A jar of Debian's `/usr/share/java`, which must be there (`scripts/deps.sh` installs it).
#[must_use]
pub fn java_jar(name: &str) -> PathBuf {
    let p = Path::new("/usr/share/java").join(name);
    assert!(
        p.exists(),
        "{} is missing (scripts/deps.sh installs it)",
        p.display()
    );
    p
}

/// The class path JUnit 5 tests compile with (the console launcher brings the rest).
#[must_use]
pub fn junit5_compile() -> Vec<PathBuf> {
    vec![
        java_jar("junit-jupiter-api.jar"),
        java_jar("apiguardian-api.jar"),
        java_jar("opentest4j.jar"),
        java_jar("junit-platform-commons.jar"),
    ]
}

/// The class path JUnit 4 tests compile and run with.
#[must_use]
pub fn junit4() -> Vec<PathBuf> {
    vec![java_jar("junit4.jar"), java_jar("hamcrest-core.jar")]
}

/// Debian's Mockito 2.23 and what it needs at run time (Byte Buddy, Objenesis).
#[must_use]
pub fn mockito() -> Vec<PathBuf> {
    vec![
        java_jar("mockito-core.jar"),
        java_jar("byte-buddy.jar"),
        java_jar("byte-buddy-agent.jar"),
        java_jar("objenesis.jar"),
    ]
}

/// Paths joined with `:`, as a class path.
#[must_use]
pub fn join(paths: &[PathBuf]) -> String {
    paths
        .iter()
        .map(|p| p.display().to_string())
        .collect::<Vec<_>>()
        .join(":")
}

/// Compiles `sources` (relative to `src`) into `out` with `javac --release 8`; javac's
/// messages on failure.
pub fn javac(src: &Path, sources: &[PathBuf], cp: &[PathBuf], out: &Path) -> Result<(), String> {
    javac_with(src, sources, cp, out, &["-Xlint:none", "-nowarn"])
}

/// [`javac`] with other lint options instead of `-Xlint:none -nowarn` (e.g.
/// `-Xlint:rawtypes,unchecked -Werror`: fail on a warning).
pub fn javac_with(
    src: &Path,
    sources: &[PathBuf],
    cp: &[PathBuf],
    out: &Path,
    lint: &[&str],
) -> Result<(), String> {
    std::fs::create_dir_all(out).map_err(|e| format!("{}: {e}", out.display()))?;
    let o = Command::new("javac")
        .args(["--release", "8"])
        .args(lint)
        .args(["-encoding", "UTF-8", "-d"])
        .arg(out)
        .arg("-cp")
        .arg(join(cp))
        .args(sources.iter().map(|s| src.join(s)))
        .output()
        .map_err(|e| format!("javac: {e}"))?;
    if o.status.success() {
        Ok(())
    } else {
        Err(format!(
            "{}{}",
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&o.stderr)
        ))
    }
}

/// Compares `text` with the golden file at `path`, or rewrites the file under `BLESS=1`.
pub fn golden(path: &Path, text: &str) {
    if required("BLESS") {
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).expect("the golden file's directory can be made");
        }
        std::fs::write(path, text).expect("the golden file can be written");
        return;
    }
    let want = std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("{}: {e} (run with BLESS=1 to create it)", path.display()));
    assert!(
        want == text,
        "{} differs (BLESS=1 rewrites it):\n--- want\n{want}\n--- got\n{text}",
        path.display()
    );
}

/// A fresh, empty directory `name` under `tmp` (the test's `CARGO_TARGET_TMPDIR`).
#[must_use]
pub fn scratch(tmp: &str, name: &str) -> PathBuf {
    let d = Path::new(tmp).join(name);
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("a scratch directory can be made");
    d
}

#[cfg(test)]
mod tests {
    use super::{join, or_skip};
    use std::path::PathBuf;

    #[test]
    fn a_missing_thing_is_skipped_unless_required() {
        assert_eq!(
            or_skip(Ok::<_, String>(3), "FERROSUITE_TESTKIT_NEVER_SET"),
            Some(3)
        );
        assert_eq!(
            or_skip(Err::<u8, _>("gone"), "FERROSUITE_TESTKIT_NEVER_SET"),
            None
        );
        assert_eq!(join(&[PathBuf::from("a"), PathBuf::from("b")]), "a:b");
    }
}
