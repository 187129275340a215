//! The command line interrupted: what a Ctrl-C leaves behind.

use std::path::Path;
use std::process::Command;

use crate::common::{fixtures, tmp};

/// Ctrl-C during a search: exit status 130 at once, the run's scratch directory and every
/// other file under the temporary directory gone, no test file; the run directory a killed
/// process left is removed by the next run.
#[test]
#[cfg(target_os = "linux")]
fn an_interrupted_generate_leaves_nothing_behind() {
    let cp = fixtures().join("java8");
    let out = tmp("cli-interrupted");
    let temp = tmp("cli-interrupted-tmp");
    // What a process killed with SIGKILL leaves: its pid (above what Linux hands out) no longer
    // runs in this namespace (the tag is `<namespace>-<pid>`).
    let tag = ferrosuite_exec::host::workdir::master_tag();
    let ns = tag.split('-').next().unwrap();
    let dead = temp.join(format!("ferrosuite-run-{ns}-4294967000-0-0"));
    std::fs::create_dir_all(dead.join("ferrosuite-validate-1")).unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_ferrosuite"))
        .args([
            "generate",
            "-c",
            cp.to_str().unwrap(),
            "--class",
            "examples.Stack",
        ])
        .args(["--budget", "60s", "--out", out.to_str().unwrap()])
        .env("TMPDIR", &temp)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Wait until the search runs (a worker's directory inside the run's).
    let listing = |dir: &Path| -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(dir)
            .map(|d| {
                d.flatten()
                    .map(|e| e.file_name().to_string_lossy().into_owned())
                    .collect()
            })
            .unwrap_or_default();
        names.sort();
        names
    };
    let start = std::time::Instant::now();
    let searching = loop {
        let runs: Vec<String> = listing(&temp)
            .into_iter()
            .filter(|n| n.starts_with("ferrosuite-run-"))
            .collect();
        if runs.iter().any(|r| {
            listing(&temp.join(r))
                .iter()
                .any(|n| n.starts_with("ferrosuite-worker-"))
        }) {
            break true;
        }
        if start.elapsed() > std::time::Duration::from_secs(60) {
            break false;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    };
    assert!(!dead.exists(), "the dead run's directory stays");
    let pid = rustix::process::Pid::from_raw(child.id() as i32).unwrap();
    rustix::process::kill_process(pid, rustix::process::Signal::INT).unwrap();
    let interrupted = std::time::Instant::now();
    let status = child.wait().unwrap();
    let mut stderr = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut stderr).unwrap();
    assert!(searching, "no worker started: {stderr}");
    assert_eq!(status.code(), Some(130), "{stderr}");
    assert!(stderr.contains("interrupted"), "{stderr}");
    assert!(
        interrupted.elapsed() < std::time::Duration::from_secs(10),
        "{:?}",
        interrupted.elapsed()
    );
    // The workers end with their master: nothing reappears.
    std::thread::sleep(std::time::Duration::from_secs(1));
    assert_eq!(listing(&temp), Vec::<String>::new());
    assert!(!out.join("src/test/java/examples/StackTest.java").exists());
}
