//! Helpers of the `ferrosuite` binary's tests: running it, scratch directories, the fixtures,
//! and normalising output (paths, times) for golden files.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

pub(crate) fn tmp(name: &str) -> PathBuf {
    ferrosuite_testkit::scratch(env!("CARGO_TARGET_TMPDIR"), name)
}

/// The fixtures compiled by `fixtures/build.sh`, once.
pub(crate) fn fixtures() -> &'static PathBuf {
    ferrosuite_testkit::fixtures(env!("CARGO_TARGET_TMPDIR"))
}

pub(crate) fn ferrosuite(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_ferrosuite"))
        .args(args)
        .output()
        .unwrap()
}

/// Replaces run-specific parts (paths, timings) so output can be compared with a golden file.
pub(crate) fn normalise(text: &str, replacements: &[(&Path, &str)]) -> String {
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

pub(crate) fn golden(name: &str, actual: &str) {
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

/// The summary table of `generate` with the time column replaced (it varies, and so does its
/// padding: one space before it).
pub(crate) fn normalise_generate(text: &str, out: &Path) -> String {
    let t = text.replace(&out.display().to_string(), "<OUT>");
    t.lines()
        .map(|l| {
            let l = l
                .split(' ')
                .map(|w| {
                    let digits = w.strip_suffix('s').unwrap_or("");
                    if !digits.is_empty()
                        && digits.contains('.')
                        && digits.chars().all(|c| c.is_ascii_digit() || c == '.')
                    {
                        "<T>s".to_string()
                    } else {
                        w.to_string()
                    }
                })
                .collect::<Vec<_>>()
                .join(" ");
            match l.find(" <T>s") {
                Some(i) => format!("{} {}", l[..i].trim_end(), &l[i + 1..]),
                None => l,
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
        + "\n"
}
