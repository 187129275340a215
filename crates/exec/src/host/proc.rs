//! Worker processes: spawning one, its pipes and reader threads, starting it up, ending it.

use std::collections::VecDeque;
use std::io::{BufReader, BufWriter, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use ferrosuite_executor::Ready;

use super::{Slot, WorkerProgram};
use crate::error::{Error, Result};
use crate::protocol::{Reply, RequestRef, Setup, read_frame_with, write_frame};
use crate::wire::NameTable;

/// A running worker process.
pub(super) struct Proc {
    pub(super) child: Child,
    /// When it was started: its attach socket is no older.
    started: std::time::SystemTime,
    /// Its working directory, where the JVM writes its fatal error log.
    workdir: PathBuf,
    stdin: BufWriter<ChildStdin>,
    /// Bytes the pipe to the worker holds (0 when unknown).
    pub(super) pipe_capacity: usize,
    /// Replies from the reader thread, in bursts (`None`: the stream ended).
    rx: mpsc::Receiver<Vec<Option<Reply>>>,
    /// Replies of the last burst not yet taken.
    pending: VecDeque<Option<Reply>>,
    /// The names sent to this process (see [`crate::wire`]).
    pub(super) names: NameTable,
    stderr: Arc<Mutex<Vec<u8>>>,
    stderr_thread: Option<std::thread::JoinHandle<()>>,
}

const STDERR_TAIL: usize = 16 << 10;

/// The pipe size asked for the requests to a worker (Linux grants up to
/// `/proc/sys/fs/pipe-max-size`, 1 MiB by default).
const PIPE_SIZE: usize = 1 << 20;

impl Proc {
    fn spawn(program: &WorkerProgram, workdir: &Path) -> Result<Proc> {
        let started = std::time::SystemTime::now();
        let mut child = Command::new(&program.program)
            .args(&program.args)
            .current_dir(workdir)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| Error::WorkerStart {
                program: program.program.clone(),
                detail: e.to_string(),
            })?;
        let broken = |what: &str| Error::WorkerStart {
            program: program.program.clone(),
            detail: format!("no {what} pipe"),
        };
        let stdin = child.stdin.take().ok_or_else(|| broken("stdin"))?;
        // A large pipe lets the next chunk of tests wait in it while the worker runs the
        // current one (see `run_slot`); what the kernel grants is what counts.
        let _ = rustix::pipe::fcntl_setpipe_size(&stdin, PIPE_SIZE);
        let pipe_capacity = rustix::pipe::fcntl_getpipe_size(&stdin).unwrap_or(0);
        let stdin = BufWriter::with_capacity(1 << 16, stdin);
        let stdout = child.stdout.take().ok_or_else(|| broken("stdout"))?;
        let mut stderr_pipe = child.stderr.take().ok_or_else(|| broken("stderr"))?;
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            // Every frame already in the buffer goes out in one message: one wake-up of the
            // receiving thread per burst of results, not per result.
            let mut r = BufReader::with_capacity(1 << 16, stdout);
            let mut buf = Vec::new();
            let mut burst = Vec::new();
            loop {
                let Ok(Some(m)) = read_frame_with::<Reply>(&mut r, &mut buf) else {
                    burst.push(None);
                    let _ = tx.send(burst);
                    return;
                };
                burst.push(Some(m));
                // Hand the burst over unless a whole next frame is already buffered (a partial
                // one could wait for the worker's next flush).
                let buffered = r.buffer();
                let whole_frame_next = buffered.len() >= 4
                    && buffered.len()
                        >= 4 + u32::from_le_bytes([
                            buffered[0],
                            buffered[1],
                            buffered[2],
                            buffered[3],
                        ]) as usize;
                if !whole_frame_next && tx.send(std::mem::take(&mut burst)).is_err() {
                    return;
                }
            }
        });
        let stderr = Arc::new(Mutex::new(Vec::new()));
        let tail = Arc::clone(&stderr);
        let stderr_thread = std::thread::spawn(move || {
            let mut buf = [0u8; 4096];
            while let Ok(n) = stderr_pipe.read(&mut buf) {
                if n == 0 {
                    break;
                }
                if let Ok(mut t) = tail.lock() {
                    t.extend_from_slice(&buf[..n]);
                    if t.len() > STDERR_TAIL {
                        let cut = t.len() - STDERR_TAIL;
                        t.drain(..cut);
                    }
                }
            }
        });
        Ok(Proc {
            child,
            started,
            workdir: workdir.to_path_buf(),
            stdin,
            pipe_capacity,
            rx,
            pending: VecDeque::new(),
            names: NameTable::default(),
            stderr,
            stderr_thread: Some(stderr_thread),
        })
    }

    /// The next reply (`None` when the stream ended), waiting at most `timeout` for it.
    pub(super) fn recv_timeout(
        &mut self,
        timeout: Duration,
    ) -> std::result::Result<Option<Reply>, mpsc::RecvTimeoutError> {
        if let Some(r) = self.pending.pop_front() {
            return Ok(r);
        }
        self.pending.extend(self.rx.recv_timeout(timeout)?);
        Ok(self.pending.pop_front().flatten())
    }

    pub(super) fn send(&mut self, r: &RequestRef<'_>) -> Result<()> {
        write_frame(&mut self.stdin, r)
    }

    /// Sends a frame made by [`encode_frame`].
    pub(super) fn send_frame(&mut self, frame: &[u8]) -> Result<()> {
        self.stdin
            .write_all(frame)
            .and_then(|()| self.stdin.flush())
            .map_err(Error::io("writing to the worker pipe"))
    }

    /// Kills the process and returns the end of its standard error.
    pub(super) fn kill(mut self) -> String {
        let _ = self.child.kill();
        if self.child.wait().is_ok() {
            crate::attach::remove_socket(self.child.id(), self.started);
        }
        if let Some(t) = self.stderr_thread.take() {
            let _ = t.join();
        }
        self.stderr_text()
    }

    /// Waits for the process to exit (after `Retire` or `Fatal`), killing it after a second.
    pub(super) fn finish(mut self) -> (String, String) {
        let deadline = Instant::now() + Duration::from_secs(1);
        let status = loop {
            match self.child.try_wait() {
                Ok(Some(s)) => break Ok(s),
                Ok(None) if Instant::now() < deadline => {
                    std::thread::sleep(Duration::from_millis(5));
                }
                _ => {
                    let _ = self.child.kill();
                    break self.child.wait();
                }
            }
        };
        if status.is_ok() {
            crate::attach::remove_socket(self.child.id(), self.started);
        }
        let status = status.map_or_else(|e| e.to_string(), |s| s.to_string());
        if let Some(t) = self.stderr_thread.take() {
            let _ = t.join();
        }
        let mut err = self.stderr_text();
        if let Some(fatal) = self.take_fatal_error() {
            err = if err.is_empty() {
                fatal
            } else {
                format!("{fatal} | {err}")
            };
        }
        (status, err)
    }

    /// What the JVM's fatal error log says went wrong, when the JVM aborted: the report goes
    /// to standard output (`/dev/null` in a worker) and to `hs_err_pid<pid>.log` in the working
    /// directory, which is read here and removed.
    fn take_fatal_error(&self) -> Option<String> {
        let path = self
            .workdir
            .join(format!("hs_err_pid{}.log", self.child.id()));
        let text = std::fs::read(&path).ok()?;
        let _ = std::fs::remove_file(&path);
        let head = String::from_utf8_lossy(&text[..text.len().min(8 << 10)]).into_owned();
        Some(fatal_summary(&head))
    }

    fn stderr_text(&self) -> String {
        let t = self.stderr.lock().map(|t| t.clone()).unwrap_or_default();
        let text = String::from_utf8_lossy(&t);
        let lines: Vec<&str> = text
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .collect();
        let start = lines.len().saturating_sub(3);
        lines[start..].join(" | ")
    }
}

/// Starts (or restarts) the worker of a slot and waits for `Ready`.
pub(super) fn start_worker(
    slot: &mut Slot,
    program: &WorkerProgram,
    setup: &Setup,
    timeout: Duration,
) -> Result<Ready> {
    let began = Instant::now();
    let mut setup = setup.clone();
    setup.jvm_options.retain(|o| !o.is_empty());
    setup
        .jvm_options
        .push(format!("-Djava.io.tmpdir={}", slot.workdir.display()));
    let mut p = Proc::spawn(program, &slot.workdir)?;
    p.send(&RequestRef::Setup(&setup))?;
    let reply = p.recv_timeout(timeout);
    match reply {
        Ok(Some(Reply::Ready {
            java_version,
            init_probes,
            init_failures,
        })) => {
            slot.proc = Some(p);
            slot.stats.restarts += 1;
            Ok(Ready {
                java_version,
                init_probes,
                init_failures,
                startup: began.elapsed(),
            })
        }
        Ok(Some(Reply::Fatal(msg))) => {
            let (_, err) = p.finish();
            Err(Error::JvmStart(if err.is_empty() {
                msg
            } else {
                format!("{err} ({msg})")
            }))
        }
        Ok(Some(other)) => {
            let _ = p.kill();
            Err(Error::Worker {
                worker: slot.index,
                detail: format!("unexpected reply to set-up: {other:?}"),
            })
        }
        Ok(None) => {
            let (status, err) = p.finish();
            if err.is_empty() {
                Err(Error::Worker {
                    worker: slot.index,
                    detail: format!("exited during set-up ({status})"),
                })
            } else {
                // The JVM reports start-up failures on standard error, then exits.
                Err(Error::JvmStart(format!("{err} (worker {status})")))
            }
        }
        Err(_) => {
            let err = p.kill();
            Err(Error::Worker {
                worker: slot.index,
                detail: format!(
                    "not ready within {} s{}",
                    timeout.as_secs(),
                    if err.is_empty() {
                        String::new()
                    } else {
                        format!(": {err}")
                    }
                ),
            })
        }
    }
}

/// The JVM's own words from the head of a fatal error log: the lines of its first `#` block
/// that say what failed (`Internal Error (…)`, `SIGSEGV (0xb) at pc=…`, the failed guarantee)
/// and the problematic frame. For example
///
/// ```text
/// #  Internal Error (moduleEntry.cpp:273), pid=10873, tid=10874
/// #  guarantee(java_lang_Module::is_instance(module)) failed: The unnamed module …
/// ```
///
/// becomes `JVM fatal error: Internal Error (moduleEntry.cpp:273), pid=10873, tid=10874 |
/// guarantee(…) failed: The unnamed module …`.
fn fatal_summary(head: &str) -> String {
    let mut parts: Vec<&str> = Vec::new();
    let mut lines = head.lines();
    while let Some(line) = lines.next() {
        if line.starts_with("# JRE version") || line.starts_with("# Java VM") {
            continue;
        }
        if line.starts_with("# Problematic frame") {
            if let Some(frame) = lines.next() {
                parts.push(frame.trim_start_matches('#').trim());
            }
            break;
        }
        // The facts are indented by two spaces after the '#'; the rest is boilerplate.
        if let Some(fact) = line.strip_prefix("#  ") {
            let fact = fact.trim();
            if !fact.is_empty() {
                parts.push(fact);
            }
        }
        if !line.starts_with('#') && !parts.is_empty() {
            break;
        }
    }
    if parts.is_empty() {
        "JVM fatal error (see its hs_err log)".into()
    } else {
        format!("JVM fatal error: {}", parts.join(" | "))
    }
}

#[cfg(test)]
mod tests {
    use super::fatal_summary;

    #[test]
    fn a_fatal_error_log_is_summarised_by_its_facts_and_frame() {
        let head = "#\n# A fatal error has been detected by the Java Runtime Environment:\n#\n\
#  Internal Error (moduleEntry.cpp:273), pid=1, tid=2\n\
#  guarantee(java_lang_Module::is_instance(module)) failed: The unnamed module\n#\n\
# JRE version: OpenJDK Runtime Environment (17.0.15+6)\n# Java VM: OpenJDK 64-Bit Server VM\n\
# Problematic frame:\n# V  [libjvm.so+0xbd3cbd]  ModuleEntry::create_unnamed_module+0x22d\n#\n\
# If you would like to submit a bug report, please visit:\n#   https://bugs.debian.org/\n";
        assert_eq!(
            fatal_summary(head),
            "JVM fatal error: Internal Error (moduleEntry.cpp:273), pid=1, tid=2 | \
guarantee(java_lang_Module::is_instance(module)) failed: The unnamed module | \
V  [libjvm.so+0xbd3cbd]  ModuleEntry::create_unnamed_module+0x22d"
        );
        let segv = "#\n# A fatal error has been detected by the Java Runtime Environment:\n#\n\
#  SIGSEGV (0xb) at pc=0x00007f, pid=7, tid=8\n#\n# Problematic frame:\n# C  [libc.so.6+0x1]\n";
        assert_eq!(
            fatal_summary(segv),
            "JVM fatal error: SIGSEGV (0xb) at pc=0x00007f, pid=7, tid=8 | C  [libc.so.6+0x1]"
        );
        assert_eq!(
            fatal_summary("garbage"),
            "JVM fatal error (see its hs_err log)"
        );
    }
}
