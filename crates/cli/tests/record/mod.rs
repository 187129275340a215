//! `ferrosuite record`: the program's output and exit code are its own; the summary goes to
//! standard error after it.

use std::path::PathBuf;
use std::process::Command;

use crate::common::tmp;
use ferrosuite_testkit::{javac, repo};

#[test]
fn record_keeps_the_programs_output_and_exit_code() {
    let dir = tmp("cli-record");
    let classes = dir.join("classes");
    let sources: Vec<PathBuf> = ["shop/PriceList.java", "shop/Cart.java", "shop/Main.java"]
        .iter()
        .map(PathBuf::from)
        .collect();
    javac(
        &repo().join("fixtures/carve/shop/src"),
        &sources,
        &[],
        &classes,
    )
    .unwrap();
    let cp = classes.display().to_string();
    let plain = Command::new("java")
        .args(["-cp", &cp, "shop.Main"])
        .output()
        .unwrap();
    let store = dir.join("shop.db");
    let recorded = Command::new(env!("CARGO_BIN_EXE_ferrosuite"))
        .args([
            "record",
            "--store",
            &store.display().to_string(),
            "--include",
            "shop",
            "--json",
            "--",
        ])
        .args(["java", "-cp", &cp, "shop.Main"])
        .output()
        .unwrap();
    assert_eq!(plain.status.code(), Some(1));
    assert_eq!(recorded.status.code(), plain.status.code());
    assert_eq!(
        String::from_utf8_lossy(&recorded.stdout),
        String::from_utf8_lossy(&plain.stdout)
    );
    let summary: serde_json::Value = serde_json::from_slice(&recorded.stderr)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&recorded.stderr)));
    assert_eq!(summary["exit_code"], 1);
    assert_eq!(summary["classes"], 3);
    assert!(summary["calls"].as_u64().unwrap() > 20, "{summary}");
    // Tests carved from the store compile and pass; the report names the class.
    let out = dir.join("carved");
    let carved = Command::new(env!("CARGO_BIN_EXE_ferrosuite"))
        .args([
            "carve",
            "--store",
            &store.display().to_string(),
            "-c",
            &cp,
            "--class",
            "shop.PriceList",
        ])
        .args(["--reruns", "1", "-o", &out.display().to_string()])
        .output()
        .unwrap();
    let report = String::from_utf8_lossy(&carved.stdout);
    assert!(
        carved.status.success(),
        "{report}{}",
        String::from_utf8_lossy(&carved.stderr)
    );
    assert!(report.contains("shop.PriceList"), "{report}");
    let tests = std::fs::read_to_string(out.join("shop/PriceListCarvedTest.java")).unwrap();
    assert!(tests.contains("put_returnsItself"), "{tests}");
    // A missing store is an error that names it.
    let missing = Command::new(env!("CARGO_BIN_EXE_ferrosuite"))
        .args([
            "carve",
            "--store",
            "/nonexistent/t.db",
            "-c",
            &cp,
            "-o",
            &out.display().to_string(),
        ])
        .output()
        .unwrap();
    assert_eq!(missing.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&missing.stderr).contains("/nonexistent/t.db"));
    // A store path that is a directory is an error naming it, with a non-zero exit.
    let bad = Command::new(env!("CARGO_BIN_EXE_ferrosuite"))
        .args([
            "record",
            "--store",
            &dir.display().to_string(),
            "--",
            "java",
            "-version",
        ])
        .output()
        .unwrap();
    assert_eq!(bad.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&bad.stderr).contains(&dir.display().to_string()));
}
