//! The figures of the generated-tests benchmark (`benches/scripts/generate-benchmark.sh`).
//!
//! - `generate-stats merge CLASS SEED BUDGET REPORT COVERAGE_JSON`: one JSON line from
//!   `ferrosuite generate`'s report and `scripts/coverage.sh`'s JSON line (the script appends
//!   it to its results file);
//! - `generate-stats RESULTS.jsonl...`: Markdown tables for BENCHMARKS.md — per class the
//!   medians over seeds of JaCoCo's branch and line coverage and of the tests emitted, and
//!   whether every run's class compiled, passed and had no flaky test; per library the median
//!   over classes, beside EvoSuite's published anchors.
#![allow(clippy::cast_precision_loss)]

use std::collections::BTreeMap;

use ferrosuite_benches::stats::median;
use serde_json::{Value, json};

fn fail(msg: &str) -> ! {
    eprintln!("generate-stats: {msg}");
    std::process::exit(1)
}

fn merge(args: &[String]) {
    let [class, seed, budget, report, coverage] = args else {
        fail("usage: generate-stats merge CLASS SEED BUDGET REPORT COVERAGE_JSON");
    };
    let entry: Value = std::fs::read_to_string(report)
        .ok()
        .and_then(|t| serde_json::from_str::<Value>(&t).ok())
        .and_then(|r| r["classes"].get(0).cloned())
        .unwrap_or_else(|| json!({"status": "error", "error": format!("no report at {report}")}));
    let cov: Value = serde_json::from_str(coverage).unwrap_or_else(|_| json!({}));
    let keys = [
        "branches",
        "branches_covered",
        "goals",
        "covered",
        "tests_found",
        "tests_emitted",
        "tests_unstable",
        "assertions_unstable",
        "tests_inaccessible",
        "tests_uncompilable",
        "tests_failing",
        "search_seconds",
        "seconds",
    ];
    let ours: serde_json::Map<String, Value> = keys
        .iter()
        .map(|k| ((*k).to_string(), entry[*k].clone()))
        .collect();
    let line = json!({
        "class": class,
        "seed": seed.parse::<u64>().unwrap_or_default(),
        "budget": budget.parse::<f64>().unwrap_or_default(),
        "status": entry["status"],
        "error": entry["error"],
        "jacoco": cov,
        "ferrosuite": ours,
    });
    println!("{line}");
}

fn pct(x: Option<f64>) -> String {
    x.map_or_else(|| "–".into(), |v| format!("{:.1}", 100.0 * v))
}

fn ratio(num: &Value, den: &Value) -> Option<f64> {
    let (n, d) = (num.as_f64()?, den.as_f64()?);
    Some(if d == 0.0 { 1.0 } else { n / d })
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().is_some_and(|a| a == "merge") {
        merge(&args[1..]);
        return;
    }
    if args.is_empty() {
        fail("usage: generate-stats RESULTS.jsonl... | generate-stats merge …");
    }
    let mut runs: BTreeMap<(String, u64), Value> = BTreeMap::new();
    for p in &args {
        let text = std::fs::read_to_string(p).unwrap_or_else(|e| fail(&format!("{p}: {e}")));
        for l in text.lines().filter(|l| l.starts_with('{')) {
            if let Ok(v) = serde_json::from_str::<Value>(l) {
                let key = (
                    v["class"].as_str().unwrap_or_default().to_string(),
                    v["seed"].as_u64().unwrap_or_default(),
                );
                runs.insert(key, v);
            }
        }
    }
    let mut by_class: BTreeMap<String, Vec<&Value>> = BTreeMap::new();
    for ((c, _), v) in &runs {
        by_class.entry(c.clone()).or_default().push(v);
    }
    println!(
        "| class | runs | JaCoCo branch % | JaCoCo line % | tests | compiled | passed | flaky tests |"
    );
    println!("|---|---:|---:|---:|---:|---:|---:|---:|");
    let mut per_library: BTreeMap<&str, (Vec<f64>, Vec<f64>)> = BTreeMap::new();
    let (mut total, mut compiled, mut passed, mut flaky) = (0usize, 0usize, 0usize, 0u64);
    for (class, vs) in &by_class {
        let branch: Vec<f64> = vs
            .iter()
            .filter_map(|v| ratio(&v["jacoco"]["branches_covered"], &v["jacoco"]["branches"]))
            .collect();
        let line: Vec<f64> = vs
            .iter()
            .filter_map(|v| ratio(&v["jacoco"]["lines_covered"], &v["jacoco"]["lines"]))
            .collect();
        let tests: Vec<f64> = vs
            .iter()
            .filter_map(|v| v["jacoco"]["tests"].as_f64())
            .collect();
        let c = vs
            .iter()
            .filter(|v| v["jacoco"]["compiled"] == json!(true))
            .count();
        let p = vs
            .iter()
            .filter(|v| v["jacoco"]["compiled"] == json!(true) && v["jacoco"]["failed"] == json!(0))
            .count();
        let f: u64 = vs
            .iter()
            .filter_map(|v| v["jacoco"]["flaky"].as_u64())
            .sum();
        total += vs.len();
        compiled += c;
        passed += p;
        flaky += f;
        let lib = if class.starts_with("com.google.common") {
            "guava"
        } else {
            "commons-lang3"
        };
        let entry = per_library.entry(lib).or_default();
        if let Some(m) = median(&branch) {
            entry.0.push(m);
        }
        if let Some(m) = median(&line) {
            entry.1.push(m);
        }
        println!(
            "| {class} | {} | {} | {} | {} | {c}/{} | {p}/{} | {f} |",
            vs.len(),
            pct(median(&branch)),
            pct(median(&line)),
            median(&tests).map_or_else(|| "–".into(), |t| format!("{t:.0}")),
            vs.len(),
            vs.len()
        );
    }
    println!();
    println!("| library | classes | median JaCoCo branch % | median JaCoCo line % | anchor |");
    println!("|---|---:|---:|---:|---|");
    for (lib, (b, l)) in &per_library {
        let anchor = if *lib == "guava" {
            "EvoSuite ≈ 71 % branch on Guava CUTs at 120 s (SBST 2021)"
        } else {
            "EvoSuite ≈ 59 % branch on commons-lang CUTs at 60 s (SBST 2016)"
        };
        println!(
            "| {lib} | {} | {} | {} | {anchor} |",
            b.len(),
            pct(median(b)),
            pct(median(l))
        );
    }
    println!(
        "\n{total} runs: {compiled} test classes compiled ({}), {passed} passed every run ({}), {flaky} flaky tests.",
        pct(Some(compiled as f64 / total.max(1) as f64)) + " %",
        pct(Some(passed as f64 / total.max(1) as f64)) + " %"
    );
}
