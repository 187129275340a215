//! End-to-end tests of the `ferrosuite` binary, with golden files for its output
//! (`BLESS=1 cargo test -p ferrosuite` rewrites them).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

mod common;
mod integration;
mod interrupt;
mod record;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use common::{ferrosuite, fixtures, golden, normalise, normalise_generate, tmp};
use ferrosuite_testkit::repo;

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
        "error: output directory <OUT> is not empty (pass --overwrite to replace its files)\n"
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

#[test]
fn analyze_class_and_pair() {
    let cp = fixtures().join("java8").display().to_string();
    let o = ferrosuite(&["analyze", "-c", &cp, "examples.Stack"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    golden("analyze-stack.txt", &String::from_utf8_lossy(&o.stdout));
    let o = ferrosuite(&[
        "analyze",
        "-c",
        &cp,
        "--caller",
        "cling.Person",
        "--callee",
        "cling.Car",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    golden(
        "analyze-person-car.txt",
        &String::from_utf8_lossy(&o.stdout),
    );

    // JSON in the shape the README documents.
    let o = ferrosuite(&["analyze", "-c", &cp, "examples.Stack", "--format", "json"]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["class"], "examples.Stack");
    assert_eq!(v["branches"].as_array().unwrap().len(), 8);
    assert_eq!(v["branches"][2]["line"], 17);
    assert_eq!(v["branches"][2]["outcome"], "taken");
    assert_eq!(v["branches"][2]["controls"], serde_json::json!(["entry"]));
    assert_eq!(
        v["branches"][6]["controls"],
        serde_json::json!(["entry", {"branch": 7}])
    );
    assert_eq!(v["goals"][8], serde_json::json!({"id": 8, "method": 0}));
    assert_eq!(v["hierarchy"]["roots"].as_array().unwrap().len(), 9);
    let push = &v["methods"][1];
    assert_eq!(push["name"], "push");
    assert_eq!(push["branches"], serde_json::json!([0, 1, 2, 3]));
    assert_eq!(push["calls"][0]["intra_class"], "resize()V");
    let o = ferrosuite(&[
        "analyze",
        "-c",
        &cp,
        "--caller",
        "cling.Person",
        "--callee",
        "cling.GreenPerson",
        "--format",
        "json",
    ]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["relation"], "caller_is_super");
    assert_eq!(v["coupled_branches"].as_array().unwrap().len(), 6);
    assert_eq!(v["call_sites"][0]["caller_branches"][0]["line"], 5);
    assert_eq!(
        v["covering_methods"],
        serde_json::json!(["cling.Person.driveToHome()V"])
    );

    // --method narrows the tables; an unknown one is an error.
    let o = ferrosuite(&["analyze", "-c", &cp, "examples.Stack", "--method", "pop"]);
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(
        text.contains("pop()I") && !text.contains("push(I)V  "),
        "{text}"
    );
    let o = ferrosuite(&["analyze", "-c", &cp, "examples.Stack", "--method", "peek"]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&o.stderr),
        "error: class examples.Stack declares no method peek\n"
    );
}

#[test]
fn analyze_writes_dot_files_and_respects_existing_ones() {
    let cp = fixtures().join("java8").display().to_string();
    let dir = tmp("cli-dot").join("graphs");
    let d = dir.display().to_string();
    let o = ferrosuite(&["analyze", "-c", &cp, "examples.Stack", "--dot", &d]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let mut files: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|f| f.ends_with(".dot"))
        .collect();
    files.sort();
    assert_eq!(
        files,
        [
            "examples.Stack.0-_init_.cdg.dot",
            "examples.Stack.0-_init_.cfg.dot",
            "examples.Stack.1-push.cdg.dot",
            "examples.Stack.1-push.cfg.dot",
            "examples.Stack.2-pop.cdg.dot",
            "examples.Stack.2-pop.cfg.dot",
            "examples.Stack.3-resize.cdg.dot",
            "examples.Stack.3-resize.cfg.dot",
            "examples.Stack.ccfg.dot",
        ]
    );
    let graphviz = Command::new("dot")
        .arg("-V")
        .output()
        .is_ok_and(|o| o.status.success());
    assert_eq!(dir.join("examples.Stack.1-push.cfg.svg").exists(), graphviz);
    // A second run into the same directory is refused unless --overwrite.
    let o = ferrosuite(&["analyze", "-c", &cp, "examples.Stack", "--dot", &d]);
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("is not empty (pass --overwrite"));
    let o = ferrosuite(&[
        "analyze",
        "-c",
        &cp,
        "--caller",
        "cling.Person",
        "--callee",
        "cling.Car",
        "--dot",
        &d,
        "--overwrite",
    ]);
    assert!(o.status.success());
    assert!(dir.join("cling.Person--cling.Car.dot").exists());
}

#[test]
fn analyze_all_and_pairs_count_and_report_failures() {
    let root = tmp("cli-analyze-all");
    let classes = root.join("classes");
    let st = Command::new("cp")
        .args([
            "-r",
            &fixtures().join("java8").display().to_string(),
            &classes.display().to_string(),
        ])
        .status()
        .unwrap();
    assert!(st.success());
    let cp = classes.display().to_string();
    let o = ferrosuite(&["analyze", "-c", &cp, "--all"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    golden(
        "analyze-all.txt",
        &normalise(
            &String::from_utf8_lossy(&o.stdout),
            &[(&classes, "<CLASSES>")],
        ),
    );
    let o = ferrosuite(&["analyze", "-c", &cp, "--pairs", "3"]);
    assert!(o.status.success());
    golden(
        "analyze-pairs.txt",
        &normalise(
            &String::from_utf8_lossy(&o.stdout),
            &[(&classes, "<CLASSES>")],
        ),
    );
    // A class whose code is broken is listed, the rest are still analysed, exit code 3.
    std::fs::write(
        classes.join("examples/Broken.class"),
        b"\xCA\xFE\xBA\xBE\x00\x00\x00\x34\x00",
    )
    .unwrap();
    let o = ferrosuite(&["analyze", "-c", &cp, "--all", "--format", "json"]);
    assert_eq!(o.status.code(), Some(3));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let failures = v["failures"].as_array().unwrap();
    assert_eq!(failures.len(), 1);
    assert!(
        failures[0]
            .as_str()
            .unwrap()
            .starts_with("examples.Broken: "),
        "{failures:?}"
    );
    assert!(v["classes"].as_u64().unwrap() > 10);
}

#[test]
fn analyze_bad_input() {
    let cp = fixtures().join("java8").display().to_string();
    let err = |args: &[&str]| {
        let o = ferrosuite(args);
        (
            o.status.code(),
            String::from_utf8_lossy(&o.stderr).into_owned(),
        )
    };
    assert_eq!(
        err(&["analyze", "-c", &cp, "examples.Nope"]),
        (
            Some(1),
            "error: class examples.Nope not found on the class path\n".into()
        )
    );
    assert_eq!(
        err(&["analyze", "-c", &cp, "examples.Shape"]),
        (
            Some(1),
            "error: class examples.Shape has no method with code to analyse (it is an interface without default or static methods)\n".into()
        )
    );
    assert_eq!(
        err(&[
            "analyze",
            "-c",
            &cp,
            "--caller",
            "cling.Car",
            "--callee",
            "cling.Car"
        ]),
        (
            Some(1),
            "error: pair cling.Car -> cling.Car: caller and callee are the same class\n".into()
        )
    );
    assert_eq!(
        err(&["analyze", "-c", "/nonexistent", "examples.Stack"]).0,
        Some(1)
    );
    // Usage errors: no target, two targets, a callee without caller.
    for args in [
        &["analyze", "-c", &cp][..],
        &["analyze", "-c", &cp, "examples.Stack", "--all"],
        &["analyze", "-c", &cp, "--callee", "cling.Car"],
        &[
            "analyze",
            "-c",
            &cp,
            "--caller",
            "cling.Person",
            "--callee",
            "cling.Car",
            "--method",
            "x",
        ],
    ] {
        assert_eq!(err(args).0, Some(2), "{args:?}");
    }
}

fn run_stack(extra: &[&str], envs: &[(&str, &str)]) -> Output {
    let cp = fixtures().join("java8");
    let tests = repo().join("fixtures/tests/stack.json");
    let mut args = vec![
        "run",
        "-c",
        cp.to_str().unwrap(),
        "-t",
        tests.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    let mut c = Command::new(env!("CARGO_BIN_EXE_ferrosuite"));
    c.args(&args);
    for (k, v) in envs {
        c.env(k, v);
    }
    c.output().unwrap()
}

#[test]
fn run_executes_saved_tests_on_a_jvm() {
    let o = run_stack(&["--observe"], &[]);
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        o.status.success(),
        "{out}{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(out.contains("v0.pop()  = 3"), "{out}");
    assert!(
        out.contains("v0.pop()  threw java.util.EmptyStackException"),
        "{out}"
    );
    assert!(out.contains("branch outcomes covered 7/8"), "{out}");
    let o = run_stack(&["--format", "json"], &[]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["branch_outcomes_covered"], 7);
    assert_eq!(v["results"].as_array().unwrap().len(), 2);
}

#[test]
fn run_errors_are_one_line_and_nonzero() {
    let one_line = |o: &Output, want: &str| {
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(1), "{err}");
        assert_eq!(err.trim().lines().count(), 1, "{err}");
        assert!(err.contains(want), "{err}");
        assert!(!err.contains("panicked"), "{err}");
    };
    one_line(
        &run_stack(&["--jvm-option=-Xfoo"], &[]),
        "the JVM failed to start: Unrecognized option: -Xfoo",
    );
    one_line(
        &run_stack(&["--jvm-option=-Xmx1k"], &[]),
        "the JVM failed to start: Error occurred during initialization of VM",
    );
    one_line(
        &run_stack(&["--instrument", "examples.Nope"], &[]),
        "class examples.Nope not found on the class path",
    );
    one_line(
        &run_stack(&[], &[("JAVA_HOME", "/nonexistent")]),
        "no JDK found: /nonexistent has no lib/server/libjvm.so",
    );
    one_line(
        &run_stack(&[], &[("JAVA_HOME", ""), ("PATH", "/nonexistent")]),
        "no JDK found: set JAVA_HOME or put `java` on PATH",
    );
    let tests = repo().join("fixtures/tests/stack.json");
    let o = ferrosuite(&[
        "run",
        "-c",
        "/nonexistent.jar",
        "-t",
        tests.to_str().unwrap(),
    ]);
    one_line(&o, "class path entry /nonexistent.jar: does not exist");
    // A test naming a method the class does not have.
    let dir = tmp("run-bad-method");
    let bad = std::fs::read_to_string(&tests)
        .unwrap()
        .replacen("\"pop\"", "\"pop2\"", 1);
    std::fs::write(dir.join("bad.json"), bad).unwrap();
    let o = run_stack(&[], &[]);
    assert!(o.status.success());
    let cp = fixtures().join("java8");
    let o = ferrosuite(&[
        "run",
        "-c",
        cp.to_str().unwrap(),
        "-t",
        dir.join("bad.json").to_str().unwrap(),
    ]);
    one_line(
        &o,
        "error: test 0: statement 3 (v0.pop2()): no method examples.Stack.pop2()I",
    );
    // A class the class path does not have, named by a test.
    let bad = std::fs::read_to_string(&tests)
        .unwrap()
        .replace("examples/Stack", "examples/Nope");
    std::fs::write(dir.join("nope.json"), bad).unwrap();
    let o = ferrosuite(&[
        "run",
        "-c",
        cp.to_str().unwrap(),
        "-t",
        dir.join("nope.json").to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("class examples.Nope cannot be loaded"),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
}

#[test]
fn generate_writes_green_tests_a_summary_and_a_report() {
    let cp = fixtures().join("java8");
    let out = tmp("cli-generate");
    let args = [
        "generate",
        "-c",
        cp.to_str().unwrap(),
        "--class",
        "examples.Stack",
        "--max-statements",
        "30000",
        "--seed",
        "5",
        "--out",
        out.to_str().unwrap(),
    ];
    let o = ferrosuite(&args);
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(
        o.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&o.stderr)
    );
    golden("generate-stack.txt", &normalise_generate(&stdout, &out));
    // The test file: the same bytes as the golden one (seed + statement budget).
    let file = out.join("src/test/java/examples/StackTest.java");
    let source = std::fs::read_to_string(&file).unwrap();
    golden("generate-StackTest.java", &source);
    // The report names the file and the figures.
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("ferrosuite-report.json")).unwrap())
            .unwrap();
    let c = &report["classes"][0];
    assert_eq!(c["status"], "generated");
    assert_eq!(c["class"], "examples.Stack");
    assert_eq!(c["tests_uncompilable"], 0);
    assert_eq!(c["tests_failing"], 0);
    assert!(c["tests_emitted"].as_u64().unwrap() >= 3, "{c}");
    // Again without --overwrite: the class is done (a run cut short resumes), the file
    // untouched.
    let o = ferrosuite(&args);
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert_eq!(o.status.code(), Some(0), "{stdout}");
    assert!(stdout.contains("skipped"), "{stdout}");
    assert_eq!(std::fs::read_to_string(&file).unwrap(), source);
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("ferrosuite-report.json")).unwrap())
            .unwrap();
    assert_eq!(report["classes"][0]["status"], "skipped");
    // A test file of that name that ferrosuite did not write is the user's: kept, with or
    // without --overwrite; the tests go to another name.
    let user = "package examples;\n\nclass StackTest {}\n";
    std::fs::write(&file, user).unwrap();
    let mut again: Vec<&str> = args.to_vec();
    again.push("--overwrite");
    let o = ferrosuite(&again);
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{stderr}");
    assert_eq!(std::fs::read_to_string(&file).unwrap(), user);
    assert!(
        stderr.contains("is not ferrosuite's: the tests went to StackFerrosuiteTest.java"),
        "{stderr}"
    );
    let renamed =
        std::fs::read_to_string(out.join("src/test/java/examples/StackFerrosuiteTest.java"))
            .unwrap();
    assert!(
        renamed.contains("public class StackFerrosuiteTest"),
        "{renamed}"
    );
}

/// Shards: every class in exactly one shard, the same files as one run at a statement budget,
/// and `merge` gives the single run's classes.
#[test]
fn shards_write_the_files_of_one_run_and_merge_into_its_report() {
    let cp = fixtures().join("java8");
    let cps = cp.to_str().unwrap();
    let classes = [
        "examples.Stack",
        "examples.Branches",
        "examples.Distances",
        "examples.Ticket",
    ];
    let run = |out: &Path, shard: Option<&str>| {
        let mut args: Vec<String> = ["generate", "-c", cps, "--max-statements", "5000"]
            .iter()
            .map(ToString::to_string)
            .collect();
        args.extend(["--seed", "3", "--no-validate", "--out"].map(String::from));
        args.push(out.display().to_string());
        for c in classes {
            args.extend(["--class".to_string(), c.to_string()]);
        }
        if let Some(s) = shard {
            args.extend(["--shard".to_string(), s.to_string()]);
        }
        let refs: Vec<&str> = args.iter().map(String::as_str).collect();
        let o = ferrosuite(&refs);
        assert!(
            o.status.success(),
            "{}{}",
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&o.stderr)
        );
    };
    let single = tmp("cli-shard-single");
    run(&single, None);
    let sharded = tmp("cli-shard-sharded");
    let reports: Vec<PathBuf> = (0..3)
        .map(|k| {
            let out = sharded.join(format!("s{k}"));
            run(&out, Some(&format!("{k}/3")));
            out.join("ferrosuite-report.json")
        })
        .collect();
    let mut files = 0;
    for c in classes {
        let rel = format!("src/test/java/{}Test.java", c.replace('.', "/"));
        let one = std::fs::read_to_string(single.join(&rel)).unwrap();
        let found: Vec<String> = (0..3)
            .filter_map(|k| std::fs::read_to_string(sharded.join(format!("s{k}")).join(&rel)).ok())
            .collect();
        assert_eq!(found.len(), 1, "{c} is in {} shards", found.len());
        assert_eq!(found[0], one, "{c}");
        files += 1;
    }
    assert_eq!(files, classes.len());
    // merge: the single run's classes (wall times aside).
    let merged = sharded.join("merged.json");
    let mut args = vec!["merge".to_string()];
    args.extend(reports.iter().map(|r| r.display().to_string()));
    args.extend(["--out".to_string(), merged.display().to_string()]);
    let refs: Vec<&str> = args.iter().map(String::as_str).collect();
    let o = ferrosuite(&refs);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let strip = |path: &Path| -> Vec<serde_json::Value> {
        let v: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        v["classes"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| {
                let mut c = c.clone();
                let m = c.as_object_mut().unwrap();
                for k in [
                    "seconds",
                    "search_seconds",
                    "mutation_seconds",
                    "validation_seconds",
                    "file",
                ] {
                    m.remove(k);
                }
                c
            })
            .collect()
    };
    assert_eq!(
        strip(&merged),
        strip(&single.join("ferrosuite-report.json"))
    );
    // A missing shard is named.
    let o = ferrosuite(&[
        "merge",
        reports[0].to_str().unwrap(),
        reports[2].to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("shard 1/3 missing"),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
}

#[test]
fn generate_reports_classes_without_tests_and_bad_arguments() {
    let cp = fixtures().join("java8");
    let out = tmp("cli-generate-bad");
    let cps = cp.to_str().unwrap();
    let outs = out.to_str().unwrap();
    // One class works, one is missing, one is an interface: exit 3, the others still done.
    let o = ferrosuite(&[
        "generate",
        "-c",
        cps,
        "--class",
        "examples.Stack",
        "--class",
        "examples.Nope",
        "--class",
        "examples.Shape",
        "--max-statements",
        "20000",
        "--jobs",
        "2",
        "--junit",
        "4",
        "--out",
        outs,
    ]);
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert_eq!(
        o.status.code(),
        Some(3),
        "{stdout}{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(out.join("src/test/java/examples/StackTest.java").exists());
    assert!(
        stdout.contains("examples.Nope") && stdout.contains("not found"),
        "{stdout}"
    );
    assert!(
        stdout.contains("examples.Shape") && stdout.contains("nothing to test"),
        "{stdout}"
    );
    // Bad arguments: one line, exit 1 (or 2 for usage errors).
    let one_line = |args: &[&str], code: i32, want: &str| {
        let o = ferrosuite(args);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(code), "{args:?}: {err}");
        assert!(err.contains(want), "{args:?}: {err}");
    };
    one_line(
        &["generate", "-c", "/nonexistent", "--class", "a.B"],
        1,
        "does not exist",
    );
    one_line(
        &[
            "generate",
            "-c",
            cps,
            "--class",
            "examples.Stack",
            "--budget",
            "5x",
            "--out",
            outs,
            "--overwrite",
        ],
        1,
        "unknown unit",
    );
    one_line(
        &[
            "generate",
            "-c",
            cps,
            "--class",
            "examples.Stack",
            "--junit",
            "3",
            "--out",
            outs,
            "--overwrite",
        ],
        1,
        "--junit 3",
    );
    one_line(
        &[
            "generate",
            "-c",
            cps,
            "--class",
            "examples.Stack",
            "--algorithm",
            "magic",
            "--out",
            outs,
            "--overwrite",
        ],
        1,
        "unknown algorithm",
    );
    one_line(
        &[
            "generate",
            "-c",
            cps,
            "--package",
            "nopackage",
            "--out",
            outs,
        ],
        1,
        "no class of package",
    );
    one_line(
        &[
            "generate",
            "-c",
            cps,
            "--class",
            "examples.Stack",
            "--test-suffix",
            "Bad-Suffix",
            "--out",
            outs,
        ],
        1,
        "--test-suffix",
    );
    one_line(&["generate", "-c", cps], 1, "give --class");
    one_line(
        &["generate", "--class", "a.B"],
        1,
        "--classpath (-c) or --project",
    );
    one_line(
        &["generate", "-c", cps, "--project", outs],
        2,
        "cannot be used with",
    );
    one_line(&["generate", "--project", outs], 1, "has no pom.xml");
    one_line(
        &["generate", "-c", cps, "--class", "a.B", "--shard", "4/4"],
        1,
        "below the count",
    );
    one_line(
        &[
            "generate",
            "-c",
            cps,
            "--class",
            "a.B",
            "--test-classpath",
            "/nonexistent.jar",
        ],
        1,
        "--test-classpath entry /nonexistent.jar does not exist",
    );
}

/// `--test-suffix` names the test class (and its file) `<Class><suffix>`.
#[test]
fn generate_names_test_classes_with_the_given_suffix() {
    let cp = fixtures().join("java8");
    let out = tmp("cli-generate-suffix");
    let o = ferrosuite(&[
        "generate",
        "-c",
        cp.to_str().unwrap(),
        "--class",
        "examples.Stack",
        "--max-statements",
        "10000",
        "--test-suffix",
        "GeneratedTest",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let file = out.join("src/test/java/examples/StackGeneratedTest.java");
    let source = std::fs::read_to_string(&file).unwrap();
    assert!(
        source.contains("public class StackGeneratedTest {"),
        "{source}"
    );
    assert!(!out.join("src/test/java/examples/StackTest.java").exists());
}
