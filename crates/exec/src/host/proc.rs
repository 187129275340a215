//! Worker processes: spawning one, its pipes and reader threads, starting it up, ending it.

use std::collections::VecDeque;
use std::io::{BufReader, BufWriter, Read, Write};
use std::path::Path;
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
        (status, self.stderr_text())
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
