//! The run directory: one scratch directory per command that holds every temporary file of
//! the run, removed when the command ends, is interrupted (Ctrl-C), killed (`kill`) or loses its
//! terminal, and swept by a later run when the process died harder than that.
//!
//! The libraries make their scratch directories under the system's temporary directory
//! (validation sources, the workers' working directories, unpacked jars and JDK signatures);
//! the command line points that directory (`TMPDIR`) at its run directory before anything
//! else starts, so one removal takes them all. For example, `ferrosuite generate` as process
//! 1234 works in `/tmp/ferrosuite-run-4026531836-1234-1f2e-0/`; a Ctrl-C removes it and exits
//! with status 130, and if the process is killed with `SIGKILL` instead, the next command
//! removes it because no process 1234 runs in that namespace.
//!
//! The JVMs the run starts do not read `TMPDIR` (`java.io.tmpdir` is `/tmp` on Linux), so the
//! code under test and the emitted tests see the machine's temporary directory as usual.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use ferrosuite_exec::host::workdir::{fresh_dir, master_tag, sweep_orphaned_dirs};

/// Prefix of the run directories: `ferrosuite-run-<pid namespace>-<pid>-…`.
pub const RUN_PREFIX: &str = "ferrosuite-run-";

/// Exit status after an interruption (the shells' 128 + SIGINT).
pub const INTERRUPTED_STATUS: i32 = 130;

/// Set by the handler before anything else: the command's own thread, which may finish while
/// the handler stops the children (a killed tool looks to it like a failure), must then leave
/// the exit to the handler.
static INTERRUPTED: AtomicBool = AtomicBool::new(false);

/// Whether an interruption is being handled (the process exits with
/// [`INTERRUPTED_STATUS`] shortly).
pub fn interrupted() -> bool {
    INTERRUPTED.load(Ordering::SeqCst)
}

/// The run directory of this process; removed on drop.
#[derive(Debug)]
pub struct RunDir {
    dir: PathBuf,
}

impl RunDir {
    /// Sweeps the run directories of processes that are gone, makes this run's, points the
    /// temporary directory of this process (and of what it starts) at it, and removes it on
    /// an interruption before exiting with [`INTERRUPTED_STATUS`].
    ///
    /// Must be called before any other thread starts (it sets `TMPDIR`).
    pub fn enter() -> Result<RunDir> {
        let tmp = std::env::temp_dir();
        sweep_orphaned_dirs(&tmp, RUN_PREFIX);
        let dir = fresh_dir(&format!("{RUN_PREFIX}{}", master_tag()))
            .with_context(|| format!("cannot make a scratch directory under {}", tmp.display()))?;
        set_temp_dir(&dir);
        let on_signal = dir.clone();
        ctrlc::set_handler(move || {
            INTERRUPTED.store(true, Ordering::SeqCst);
            // The run's tools (javac, JUnit's JVM, Maven) would go on writing into the
            // directory. Quickly: the other threads go on until the exit, and a child that
            // died may look to them like a failure to report.
            stop_children(&live_children(), Duration::from_millis(500));
            remove(&on_signal);
            eprintln!(
                "ferrosuite: interrupted (files written so far stay; generate skips the classes \
                 already done when run again)"
            );
            std::process::exit(INTERRUPTED_STATUS);
        })
        .context("cannot install the handler of Ctrl-C")?;
        Ok(RunDir { dir })
    }
}

impl Drop for RunDir {
    fn drop(&mut self) {
        remove(&self.dir);
    }
}

/// Removes `dir` and what is in it, twice if something appeared during the first removal (a
/// child process still writing when the interruption came).
fn remove(dir: &Path) {
    if std::fs::remove_dir_all(dir).is_err() && dir.exists() {
        let _ = std::fs::remove_dir_all(dir);
    }
}

/// Sets `TMPDIR` to `dir`: `std::env::temp_dir()` of every library, and of the processes the
/// run starts, then names it.
#[allow(unsafe_code)]
fn set_temp_dir(dir: &Path) {
    // SAFETY: called by `main` before any other thread of this process exists (the worker
    // processes, the host's threads and the handler's thread all start later), so nothing
    // reads the environment concurrently.
    unsafe { std::env::set_var("TMPDIR", dir) };
}

/// Kills the processes `pids` (this process's children) with `SIGKILL` and waits until none of
/// them is a live child any more, `patience` at most. `SIGKILL`, not `SIGTERM`: a JVM's
/// shutdown hooks (a coverage agent's dump, the code under test's) would write on, and this
/// process exits at once, so nothing else is going to wait for them.
fn stop_children(pids: &[i32], patience: Duration) {
    for &pid in pids {
        if let Some(pid) = rustix::process::Pid::from_raw(pid) {
            let _ = rustix::process::kill_process(pid, rustix::process::Signal::KILL);
        }
    }
    let start = Instant::now();
    while start.elapsed() < patience && live_children().iter().any(|p| pids.contains(p)) {
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// The process ids whose parent is this process and which have not yet exited (zombies
/// excluded), from `/proc/<pid>/stat`; none where there is no `/proc` (not Linux).
fn live_children() -> Vec<i32> {
    let me = std::process::id();
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter_map(|e| {
            let pid = e.file_name().to_str()?.parse::<i32>().ok()?;
            let stat = std::fs::read_to_string(e.path().join("stat")).ok()?;
            // `pid (comm) state ppid …`; the command name may hold spaces and parentheses.
            let mut fields = stat[stat.rfind(')')? + 1..].split_whitespace();
            let state = fields.next()?;
            let ppid = fields.next()?.parse::<u32>().ok()?;
            (ppid == me && state != "Z" && state != "X").then_some(pid)
        })
        .collect()
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    /// A child that would outlive the run is ended, and only children are listed.
    #[test]
    #[cfg(target_os = "linux")]
    fn children_are_listed_and_stopped() {
        let mut child = std::process::Command::new("sleep")
            .arg("30")
            .spawn()
            .expect("sleep runs");
        let pid = child.id() as i32;
        assert!(live_children().contains(&pid));
        assert!(!live_children().contains(&(std::process::id() as i32)));
        let start = Instant::now();
        stop_children(&[pid], Duration::from_secs(5));
        // Stopped, not waited out.
        assert!(start.elapsed() < Duration::from_secs(5));
        let status = child.wait().expect("reaped");
        assert!(!status.success());
        assert!(!live_children().contains(&pid));
    }
}
