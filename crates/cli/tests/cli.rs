//! End-to-end tests of the `ferrosuite` binary, with golden files for its output
//! (`BLESS=1 cargo test -p ferrosuite` rewrites them).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn tmp(name: &str) -> PathBuf {
    let p = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&p);
    std::fs::create_dir_all(&p).unwrap();
    p
}

/// The fixtures compiled by `fixtures/build.sh`, once.
fn fixtures() -> &'static PathBuf {
    static F: OnceLock<PathBuf> = OnceLock::new();
    F.get_or_init(|| {
        let out = tmp("cli-fixtures");
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

fn ferrosuite(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_ferrosuite"))
        .args(args)
        .output()
        .unwrap()
}

/// Replaces run-specific parts (paths, timings) so output can be compared with a golden file.
fn normalise(text: &str, replacements: &[(&Path, &str)]) -> String {
    let mut t = text.to_string();
    for (p, name) in replacements {
        t = t.replace(&p.display().to_string(), name);
    }
    let re_time = |s: &str| {
        let mut out = String::new();
        for line in s.lines() {
            let mut l = line.to_string();
            if let Some(i) = l.find(" in ") {
                if let Some(j) = l[i + 4..].find(" s") {
                    if l[i + 4..i + 4 + j]
                        .chars()
                        .all(|c| c.is_ascii_digit() || c == '.')
                    {
                        l.replace_range(i + 4..i + 4 + j, "<T>");
                    }
                }
            }
            out.push_str(&l);
            out.push('\n');
        }
        out
    };
    re_time(&t)
}

fn golden(name: &str, actual: &str) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/golden")
        .join(name);
    if std::env::var_os("BLESS").is_some() {
        std::fs::write(&path, actual).unwrap();
        return;
    }
    let expected = std::fs::read_to_string(&path)
        .unwrap_or_else(|_| panic!("missing {} (run with BLESS=1)", path.display()));
    assert_eq!(
        actual,
        expected,
        "output differs from {} (BLESS=1 to update)",
        path.display()
    );
}

#[test]
fn instrument_then_run_then_report() {
    let classes = fixtures().join("java8");
    let out = tmp("cli-instrument").join("out");
    let o = ferrosuite(&[
        "instrument",
        "-c",
        &classes.display().to_string(),
        "-o",
        &out.display().to_string(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = normalise(&String::from_utf8_lossy(&o.stdout), &[(&out, "<OUT>")]);
    golden("instrument.txt", &text);
    // The instrumented classes run directly with the runtime written next to them.
    let data = out.parent().unwrap().join("run.probes");
    let run = Command::new("java")
        .arg(format!("-Dferrosuite.probes.out={}", data.display()))
        .args([
            "-Xverify:all",
            "-cp",
            &out.display().to_string(),
            "examples.Main",
        ])
        .output()
        .unwrap();
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let map = out.join("ferrosuite-probes.json");
    let r = ferrosuite(&[
        "probe-report",
        "--map",
        &map.display().to_string(),
        "--data",
        &data.display().to_string(),
    ]);
    assert!(r.status.success());
    golden("probe-report.txt", &String::from_utf8_lossy(&r.stdout));
    let j = ferrosuite(&[
        "probe-report",
        "--format",
        "json",
        "--map",
        &map.display().to_string(),
        "--data",
        &data.display().to_string(),
    ]);
    let v: serde_json::Value = serde_json::from_slice(&j.stdout).unwrap();
    let stack = v
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["class"] == "examples.Stack")
        .unwrap();
    assert_eq!(stack["branches"]["covered"], 7);
    assert_eq!(stack["branches"]["total"], 8);
    // A second run into the same directory is refused unless --overwrite.
    let again = ferrosuite(&[
        "instrument",
        "-c",
        &classes.display().to_string(),
        "-o",
        &out.display().to_string(),
    ]);
    assert_eq!(again.status.code(), Some(1));
    let err = normalise(&String::from_utf8_lossy(&again.stderr), &[(&out, "<OUT>")]);
    assert_eq!(
        err,
        "error: bad class path entry <OUT>: output directory is not empty (pass --overwrite to replace its files)\n"
    );
    let ok = ferrosuite(&[
        "instrument",
        "--overwrite",
        "--probes",
        "branch,line",
        "-c",
        &classes.display().to_string(),
        "-o",
        &out.display().to_string(),
    ]);
    assert!(ok.status.success());
}

#[test]
fn bad_input_gives_clear_errors_and_exit_codes() {
    let o = ferrosuite(&[
        "instrument",
        "-c",
        "/nonexistent/lib.jar",
        "-o",
        "/tmp/unused-ferrosuite-out",
    ]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&o.stderr),
        "error: cannot open class path \"/nonexistent/lib.jar\": /nonexistent/lib.jar: No such file or directory (os error 2)\n"
    );
    let o = ferrosuite(&[
        "instrument",
        "--probes",
        "branch,bogus",
        "-c",
        "/tmp",
        "-o",
        "/tmp/unused-ferrosuite-out",
    ]);
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("unknown probe kind \"bogus\""));
    // A corrupt class among good ones: the others are instrumented, exit code 3 names it.
    let dir = tmp("cli-corrupt");
    let input = dir.join("in");
    std::fs::create_dir_all(input.join("p")).unwrap();
    std::fs::copy(
        fixtures().join("java8/examples/Stack.class"),
        input.join("Stack.class"),
    )
    .unwrap();
    let mut bytes = std::fs::read(fixtures().join("java8/examples/Stack.class")).unwrap();
    bytes.truncate(300);
    std::fs::write(input.join("p/Broken.class"), &bytes).unwrap();
    let out = dir.join("out");
    let o = ferrosuite(&[
        "instrument",
        "-c",
        &input.display().to_string(),
        "-o",
        &out.display().to_string(),
    ]);
    assert_eq!(o.status.code(), Some(3));
    let text = normalise(
        &String::from_utf8_lossy(&o.stdout),
        &[(&out, "<OUT>"), (&input, "<IN>")],
    );
    golden("instrument-corrupt.txt", &text);
    // The broken class is copied unchanged; the input is untouched.
    assert_eq!(std::fs::read(out.join("p/Broken.class")).unwrap(), bytes);
    assert_eq!(std::fs::read(input.join("p/Broken.class")).unwrap(), bytes);
    // Probe data that is not probe data.
    let junk = dir.join("junk.txt");
    std::fs::write(&junk, "hello").unwrap();
    let o = ferrosuite(&[
        "probe-report",
        "--map",
        &out.join("ferrosuite-probes.json").display().to_string(),
        "--data",
        &junk.display().to_string(),
    ]);
    assert_eq!(o.status.code(), Some(1));
    let err = normalise(&String::from_utf8_lossy(&o.stderr), &[(&junk, "<JUNK>")]);
    assert_eq!(
        err,
        "error: <JUNK>: malformed probe data at byte offset 1: line 1: missing header `ferrosuite-probe-data 1`\n"
    );
}

#[test]
fn roundtrip_reports_identical_counts() {
    let classes = fixtures();
    let spec = format!(
        "{}:{}",
        classes.join("java8").display(),
        classes.join("java17").display()
    );
    let o = ferrosuite(&["roundtrip", "-c", &spec]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = normalise(
        &String::from_utf8_lossy(&o.stdout),
        &[(classes, "<FIXTURES>")],
    );
    let text: String = text
        .lines()
        .map(|l| l.split(" (").next().unwrap_or(l).to_string() + "\n")
        .collect();
    golden("roundtrip.txt", &text);
}
