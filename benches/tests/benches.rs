//! The scripted benchmarks' command lines: bad input is a clear error and exit status 2, not a
//! panic (the scripts in `benches/scripts` rely on a failing run saying why).

#![allow(clippy::expect_used)]

use std::process::Command;

/// Runs `search-bench` with `args`: its exit code and standard error.
fn search_bench(args: &[&str]) -> (Option<i32>, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_search-bench"))
        .args(args)
        .output()
        .expect("search-bench runs");
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn search_bench_names_what_is_wrong_with_its_command_line() {
    for (args, says) in [
        (&["--seconds", "-1"][..], "--seconds \"-1\""),
        (&["--seconds", "soon"], "--seconds \"soon\""),
        (&["--statements", "many"], "--statements \"many\""),
        (
            &["--algorithm", "annealing"],
            "unknown algorithm `annealing`",
        ),
        (&["--criteria", "line"], "branch must be among them"),
        (&["--stream-ahead"], "--stream-ahead needs a value"),
        (&["--population", "-3"], "--population \"-3\""),
        (
            &["--score-ahead", "sometimes"],
            "unknown score-ahead mode `sometimes`",
        ),
        (&["--frobnicate", "1"], "unknown flag --frobnicate"),
        (
            &["--cp", "/nonexistent/ferrosuite.jar", "--statements", "10"],
            "/nonexistent/ferrosuite.jar",
        ),
    ] {
        let (code, err) = search_bench(args);
        assert_eq!(code, Some(2), "{args:?}: {err}");
        assert!(err.contains(says), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
    }
}
