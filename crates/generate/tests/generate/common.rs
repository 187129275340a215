//! Fixtures, the worker, golden files and the Java tools shared by the tests.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use ferrosuite_exec::WorkerProgram;

pub fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The Java 8 fixtures compiled by `fixtures/build.sh`, once per test run.
pub fn fixtures() -> &'static PathBuf {
    static F: OnceLock<PathBuf> = OnceLock::new();
    F.get_or_init(|| {
        let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join("generate-fixtures");
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

/// The worker program, or `None` (with a note) when it is not built and not required.
pub fn worker() -> Option<WorkerProgram> {
    match WorkerProgram::locate() {
        Ok(w) => Some(w),
        Err(e) => {
            assert!(
                std::env::var_os("FERROSUITE_REQUIRE_WORKER").is_none_or(|v| v != "1"),
                "{e}"
            );
            eprintln!("skipping: {e}");
            None
        }
    }
}

/// A jar of Debian's `/usr/share/java`.
pub fn java_jar(name: &str) -> PathBuf {
    let p = Path::new("/usr/share/java").join(name);
    assert!(
        p.exists(),
        "{} is missing (scripts/deps.sh installs it)",
        p.display()
    );
    p
}

/// The class path JUnit 5 tests compile and run with (the console launcher brings the rest).
pub fn junit5_compile() -> Vec<PathBuf> {
    vec![
        java_jar("junit-jupiter-api.jar"),
        java_jar("apiguardian-api.jar"),
        java_jar("opentest4j.jar"),
        java_jar("junit-platform-commons.jar"),
    ]
}

pub fn junit4() -> Vec<PathBuf> {
    vec![java_jar("junit4.jar"), java_jar("hamcrest-core.jar")]
}

pub fn join(paths: &[PathBuf]) -> String {
    paths
        .iter()
        .map(|p| p.display().to_string())
        .collect::<Vec<_>>()
        .join(":")
}

/// Compiles `sources` (relative to `src`) into `out` with `javac --release 8`; returns
/// javac's messages on failure.
pub fn javac(src: &Path, sources: &[PathBuf], cp: &[PathBuf], out: &Path) -> Result<(), String> {
    std::fs::create_dir_all(out).unwrap();
    let o = Command::new("javac")
        .args([
            "--release",
            "8",
            "-Xlint:none",
            "-nowarn",
            "-encoding",
            "UTF-8",
            "-d",
        ])
        .arg(out)
        .arg("-cp")
        .arg(join(cp))
        .args(sources.iter().map(|s| src.join(s)))
        .output()
        .unwrap();
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

/// Compares `text` with the golden file `name` (rewritten under `BLESS=1`).
pub fn golden(name: &str, text: &str) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/generate/golden")
        .join(name);
    if std::env::var_os("BLESS").is_some_and(|v| v == "1") {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, text).unwrap();
        return;
    }
    let want = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{}: {e} (run with BLESS=1 to create it)", path.display()));
    assert!(
        want == text,
        "{} differs (BLESS=1 rewrites it):\n--- want\n{want}\n--- got\n{text}",
        path.display()
    );
}

/// A fresh scratch directory.
pub fn scratch(name: &str) -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}
