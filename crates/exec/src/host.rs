//! The master side: a pool of worker processes that run batches of tests.
//!
//! [`Host::start`] instruments the classes under test (deterministically, in name order, so
//! that probe ids do not depend on which worker loads what), finds `libjvm`, and starts the
//! workers in parallel. [`Host::run`] cuts a batch into chunks that the workers take in turn,
//! each worker with the next chunk already waiting in its pipe while it runs one (no idle
//! round trip through the master between chunks), and returns the results in test order.
//!
//! Per test, a worker gets `timeout` (its own watchdog then sets the abort flag and interrupts
//! the test) plus `kill_grace`; after that the master kills the process, scores the test as
//! [`Status::Timeout`], starts a fresh worker and sends it the rest of the chunk. A worker that
//! dies is handled the same way ([`Status::Crashed`]); one that retires after a test (threads
//! that did not stop, a `StackOverflowError` or `OutOfMemoryError` it did not recover from)
//! is replaced without losing a result.
//!
//! ```no_run
//! use ferrosuite_exec::{Host, HostConfig};
//! use ferrosuite_testcase::{Statement, Test, Prim, VarRef};
//! # fn main() -> ferrosuite_exec::Result<()> {
//! let mut host = Host::start(HostConfig {
//!     classpath: vec!["fixtures/classes/java8".into()],
//!     instrument: vec!["examples/Stack".into()],
//!     ..HostConfig::default()
//! })?;
//! let test = Test::new(vec![
//!     Statement::constructor("examples/Stack", "()V", vec![]),
//!     Statement::Primitive(Prim::Int(3)),
//!     Statement::method("examples/Stack", "push", "(I)V", Some(VarRef(0)), vec![VarRef(1)]),
//! ]);
//! let results = host.run(&[test], false)?;
//! println!("{:?}", results[0].probes.branches);
//! # Ok(()) }
//! ```

use std::collections::VecDeque;
use std::io::{BufReader, BufWriter, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use ferrosuite_bytecode::classpath::{ClassPath, ClassPathEntry, find_java_home};
use ferrosuite_bytecode::instrument::map::ProbeMap;
use ferrosuite_bytecode::instrument::probes::ProbeConfig;
use ferrosuite_testcase::Test;
use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use ferrosuite_executor::{Executor, Polled, Ready, TestStream};

use crate::protocol::{
    MethodRanges, ProbeSizes, Reply, RequestRef, Setup, encode_run, read_frame_with, write_frame,
};
use crate::result::{Status, TestResult};
use crate::wire::NameTable;

/// How to start a worker process.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WorkerProgram {
    /// The executable.
    pub program: PathBuf,
    /// Arguments before anything else (`["__worker"]` when the CLI serves as its own worker).
    pub args: Vec<String>,
}

impl WorkerProgram {
    /// `FERROSUITE_WORKER` if set, else `ferrosuite-worker` next to the running executable or
    /// one directory up (so that test binaries in `target/*/deps` find it).
    pub fn locate() -> Result<WorkerProgram> {
        if let Some(p) = std::env::var_os("FERROSUITE_WORKER").filter(|p| !p.is_empty()) {
            return Ok(WorkerProgram {
                program: PathBuf::from(p),
                args: Vec::new(),
            });
        }
        let exe = std::env::current_exe().map_err(Error::io("locating the running executable"))?;
        let name = format!("ferrosuite-worker{}", std::env::consts::EXE_SUFFIX);
        for dir in exe.ancestors().skip(1).take(2) {
            let p = dir.join(&name);
            if p.is_file() {
                return Ok(WorkerProgram {
                    program: p,
                    args: Vec::new(),
                });
            }
        }
        Err(Error::WorkerStart {
            program: PathBuf::from(name),
            detail: format!(
                "not found next to {} (build it with `cargo build -p ferrosuite-exec`, or set FERROSUITE_WORKER)",
                exe.display()
            ),
        })
    }
}

/// Configuration of the execution host.
#[derive(Debug, Clone)]
pub struct HostConfig {
    /// The user's class path (directories and jars).
    pub classpath: Vec<PathBuf>,
    /// Classes to instrument (internal names); each brings its nested classes (`Name$…`).
    pub instrument: Vec<String>,
    /// Which probes to insert.
    pub probes: ProbeConfig,
    /// Iterations per loop before a test is aborted (0: no limit).
    pub loop_limit: u32,
    /// Time a test may run before the worker's watchdog aborts and interrupts it.
    pub timeout: Duration,
    /// Extra time after `timeout` before the master kills the worker.
    pub kill_grace: Duration,
    /// Time threads left by a test get to stop after the abort flag and an interrupt.
    pub thread_grace: Duration,
    /// Number of worker processes.
    pub workers: usize,
    /// Options for the embedded JVMs.
    pub jvm_options: Vec<String>,
    /// The JDK (default: `JAVA_HOME`, else `java` on `PATH`).
    pub java_home: Option<PathBuf>,
    /// The worker executable (default: [`WorkerProgram::locate`]).
    pub worker: Option<WorkerProgram>,
    /// Sandbox the code under test (no exit, file writes, processes, sockets).
    pub sandbox: bool,
    /// Milliseconds added to the clock the code under test reads (0, the default: the real
    /// clock). The stability check reruns tests with shifted clocks, so that values that depend
    /// on the date or the time differ and their assertions go.
    pub clock_shift_ms: i64,
    /// Time a worker may take to start its JVM and initialise the classes under test.
    pub startup_timeout: Duration,
}

impl Default for HostConfig {
    fn default() -> Self {
        HostConfig {
            classpath: Vec::new(),
            instrument: Vec::new(),
            probes: ProbeConfig::default(),
            loop_limit: 10_000,
            timeout: Duration::from_secs(3),
            kill_grace: Duration::from_secs(2),
            thread_grace: Duration::from_millis(100),
            workers: 1,
            jvm_options: vec![
                "-Xmx512m".into(),
                "-Xshare:auto".into(),
                "-XX:TieredStopAtLevel=1".into(),
            ],
            java_home: None,
            worker: None,
            sandbox: true,
            clock_shift_ms: 0,
            startup_timeout: Duration::from_secs(60),
        }
    }
}

/// Counters of a host's work.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct HostStats {
    /// Tests executed (including lost ones).
    pub tests: u64,
    /// Statements executed.
    pub statements: u64,
    /// Tests that timed out (the worker was killed).
    pub timeouts: u64,
    /// Tests during which the worker died.
    pub crashes: u64,
    /// Workers started after the first ones (replacements).
    pub restarts: u64,
    /// Workers that retired after a test.
    pub retirements: u64,
}

impl HostStats {
    fn add(&mut self, o: &HostStats) {
        self.tests += o.tests;
        self.statements += o.statements;
        self.timeouts += o.timeouts;
        self.crashes += o.crashes;
        self.restarts += o.restarts;
        self.retirements += o.retirements;
    }
}

/// Finds `libjvm` in a JDK (`JAVA_HOME`, else `java` on `PATH`).
pub fn locate_libjvm(java_home: Option<&Path>) -> Result<PathBuf> {
    let home = match java_home {
        Some(h) => h.to_path_buf(),
        None => find_java_home()
            .map_err(|_| Error::NoJdk("set JAVA_HOME or put `java` on PATH".into()))?,
    };
    for rel in [
        "lib/server/libjvm.so",
        "jre/lib/amd64/server/libjvm.so",
        "lib/amd64/server/libjvm.so",
        "jre/lib/server/libjvm.so",
        "lib/server/libjvm.dylib",
    ] {
        let p = home.join(rel);
        if p.is_file() {
            return Ok(p);
        }
    }
    Err(Error::NoJdk(format!(
        "{} has no lib/server/libjvm.so (is JAVA_HOME a JDK?)",
        home.display()
    )))
}

/// A running worker process.
struct Proc {
    child: Child,
    stdin: BufWriter<ChildStdin>,
    /// Bytes the pipe to the worker holds (0 when unknown).
    pipe_capacity: usize,
    /// Replies from the reader thread, in bursts (`None`: the stream ended).
    rx: mpsc::Receiver<Vec<Option<Reply>>>,
    /// Replies of the last burst not yet taken.
    pending: VecDeque<Option<Reply>>,
    /// The names sent to this process (see [`crate::wire`]).
    names: NameTable,
    stderr: Arc<Mutex<Vec<u8>>>,
    stderr_thread: Option<std::thread::JoinHandle<()>>,
}

const STDERR_TAIL: usize = 16 << 10;

impl Proc {
    fn spawn(program: &WorkerProgram, workdir: &Path) -> Result<Proc> {
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
    fn recv_timeout(
        &mut self,
        timeout: Duration,
    ) -> std::result::Result<Option<Reply>, mpsc::RecvTimeoutError> {
        if let Some(r) = self.pending.pop_front() {
            return Ok(r);
        }
        self.pending.extend(self.rx.recv_timeout(timeout)?);
        Ok(self.pending.pop_front().flatten())
    }

    fn send(&mut self, r: &RequestRef<'_>) -> Result<()> {
        write_frame(&mut self.stdin, r)
    }

    /// Sends a frame made by [`encode_frame`].
    fn send_frame(&mut self, frame: &[u8]) -> Result<()> {
        self.stdin
            .write_all(frame)
            .and_then(|()| self.stdin.flush())
            .map_err(Error::io("writing to the worker pipe"))
    }

    /// Kills the process and returns the end of its standard error.
    fn kill(mut self) -> String {
        let _ = self.child.kill();
        let _ = self.child.wait();
        if let Some(t) = self.stderr_thread.take() {
            let _ = t.join();
        }
        self.stderr_text()
    }

    /// Waits for the process to exit (after `Retire` or `Fatal`), killing it after a second.
    fn finish(mut self) -> (String, String) {
        let deadline = Instant::now() + Duration::from_secs(1);
        let status = loop {
            match self.child.try_wait() {
                Ok(Some(s)) => break s.to_string(),
                Ok(None) if Instant::now() < deadline => {
                    std::thread::sleep(Duration::from_millis(5));
                }
                _ => {
                    let _ = self.child.kill();
                    break self
                        .child
                        .wait()
                        .map_or_else(|e| e.to_string(), |s| s.to_string());
                }
            }
        };
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

/// One worker slot of the pool.
struct Slot {
    index: usize,
    proc: Option<Proc>,
    stats: HostStats,
    workdir: PathBuf,
}

/// The execution host: a pool of workers, each an embedded JVM.
pub struct Host {
    config: Arc<HostConfig>,
    program: Arc<WorkerProgram>,
    setup: Arc<Setup>,
    map: ProbeMap,
    /// The workers' slots, unless the stream thread holds them.
    slots: Vec<Slot>,
    /// The thread that runs streams, kept from one to the next (see [`Host::open_stream`]).
    streamer: Option<Streamer>,
    /// Set when the stream thread died holding the slots: the workers are gone.
    lost: bool,
    /// The slots' working directories (removed at drop even when the slots were lost).
    workdirs: Vec<PathBuf>,
    ready: Ready,
}

impl std::fmt::Debug for Host {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Host")
            .field("workers", &self.config.workers.max(1))
            .field("instrumented", &self.map.classes.len())
            .finish_non_exhaustive()
    }
}

pub use ferrosuite_bytecode::instrument::classes::{ClassBytes, instrument};

impl Host {
    /// Instruments the classes under test and starts the workers.
    pub fn start(config: HostConfig) -> Result<Host> {
        let mut entries = Vec::with_capacity(config.classpath.len());
        for p in &config.classpath {
            if !p.exists() {
                return Err(Error::ClassPathEntry {
                    path: p.clone(),
                    detail: "does not exist".into(),
                });
            }
            entries.push(ClassPathEntry::open(p).map_err(|e| Error::ClassPathEntry {
                path: p.clone(),
                detail: e.to_string(),
            })?);
        }
        let cp = ClassPath::new(entries);
        let (map, instrumented) = instrument(&cp, &config.instrument, &config.probes)?;
        let libjvm = locate_libjvm(config.java_home.as_deref())?;
        let program = match &config.worker {
            Some(w) => w.clone(),
            None => WorkerProgram::locate()?,
        };
        let classpath = config
            .classpath
            .iter()
            .map(|p| std::path::absolute(p).unwrap_or_else(|_| p.clone()))
            .collect();
        let setup = Setup {
            libjvm,
            jvm_options: config.jvm_options.clone(),
            classpath,
            initialize: instrumented
                .iter()
                .map(|(n, _)| n.replace('/', "."))
                .collect(),
            instrumented,
            sizes: ProbeSizes {
                branch_slots: map.branch_slots,
                lines: map.line_ids,
                methods: map.method_ids,
                loops: map.loop_ids,
            },
            // Without method-entry probes the worker cannot tell which ranges a test used.
            method_ranges: if config.probes.methods {
                MethodRanges::of_map(&map)
            } else {
                Vec::new()
            },
            class_ids: map.class_ids.clone(),
            loop_limit: config.loop_limit,
            timeout_ms: u64::try_from(config.timeout.as_millis()).unwrap_or(u64::MAX),
            thread_grace_ms: u64::try_from(config.thread_grace.as_millis()).unwrap_or(u64::MAX),
            sandbox: config.sandbox,
            clock_shift_ms: config.clock_shift_ms,
        };
        sweep_orphaned_dirs(&std::env::temp_dir());
        let n = config.workers.max(1);
        let mut slots = Vec::with_capacity(n);
        for index in 0..n {
            let workdir = fresh_dir(&format!("{WORKDIR_PREFIX}{}-{index}", master_tag()))?;
            slots.push(Slot {
                index,
                proc: None,
                stats: HostStats::default(),
                workdir,
            });
        }
        let mut host = Host {
            config: Arc::new(config),
            program: Arc::new(program),
            setup: Arc::new(setup),
            map,
            workdirs: slots.iter().map(|s| s.workdir.clone()).collect(),
            slots,
            streamer: None,
            lost: false,
            ready: Ready::default(),
        };
        // Start all workers in parallel; keep the first one's report.
        let (program, setup, timeout) = (&host.program, &host.setup, host.config.startup_timeout);
        let results: Vec<Result<Ready>> = std::thread::scope(|s| {
            let handles: Vec<_> = host
                .slots
                .iter_mut()
                .map(|slot| s.spawn(move || start_worker(slot, program, setup, timeout)))
                .collect();
            handles
                .into_iter()
                .map(|h| {
                    h.join().unwrap_or_else(|_| {
                        Err(Error::Protocol("a worker start-up thread panicked".into()))
                    })
                })
                .collect()
        });
        for r in results {
            let r = r?;
            if host.ready.java_version.is_empty() {
                host.ready = r;
            }
        }
        for s in &mut host.slots {
            s.stats.restarts = 0;
        }
        Ok(host)
    }

    /// The probe map of the instrumented classes.
    #[must_use]
    pub fn map(&self) -> &ProbeMap {
        &self.map
    }

    /// What the first worker reported at start-up.
    #[must_use]
    pub fn ready(&self) -> &Ready {
        &self.ready
    }

    /// The configuration.
    #[must_use]
    pub fn config(&self) -> &HostConfig {
        &self.config
    }

    /// The process ids of the workers running now (for measurements such as their CPU time;
    /// a worker replaced after a hostile test has a new id).
    pub fn worker_pids(&mut self) -> Vec<u32> {
        self.park();
        self.slots
            .iter()
            .filter_map(|s| s.proc.as_ref().map(|p| p.child.id()))
            .collect()
    }

    /// Counters summed over the workers.
    pub fn stats(&mut self) -> HostStats {
        self.park();
        let mut s = HostStats::default();
        for slot in &self.slots {
            s.add(&slot.stats);
        }
        s
    }

    /// Takes the slots back from the stream thread, if it holds them (ending the thread).
    fn park(&mut self) {
        let Some(streamer) = self.streamer.take() else {
            return;
        };
        drop(streamer.jobs);
        match streamer.thread.join() {
            Ok(slots) => self.slots = slots,
            // Its slots went with it (their workers exit as their input closes).
            Err(_) => self.lost = true,
        }
    }

    /// Brings the slots back to this thread; an error when the stream thread died with them.
    fn reclaim(&mut self) -> Result<()> {
        self.park();
        if self.lost {
            return Err(Error::StreamThread);
        }
        Ok(())
    }

    /// Runs tests, split over the workers, and returns one result per test in order.
    /// `observe` records values and inspector results after each statement (slower; for
    /// assertion generation).
    ///
    /// With several workers the batch is cut into chunks (about eight per worker, at least
    /// [`MIN_CHUNK`] tests each) that the workers take in turn as they finish the previous
    /// one, so a worker slowed by its JIT, its garbage collector or a slow test does not hold
    /// up the others. Which worker runs a test does not change its result.
    pub fn run(&mut self, tests: &[Test], observe: bool) -> Result<Vec<TestResult>> {
        self.run_until(tests, observe, None)
    }

    /// [`run`](Self::run), but once `deadline` has passed no further chunk of [`MIN_CHUNK`]
    /// tests is started: the results are those of a prefix of `tests` (all of them when the
    /// deadline is not reached). For searches under a time budget whose tests may each take
    /// up to the time limit.
    pub fn run_until(
        &mut self,
        tests: &[Test],
        observe: bool,
        deadline: Option<Instant>,
    ) -> Result<Vec<TestResult>> {
        if tests.is_empty() {
            return Ok(Vec::new());
        }
        self.reclaim()?;
        let workers = self.slots.len().min(tests.len());
        let size = if deadline.is_some() {
            MIN_CHUNK
        } else if workers == 1 {
            tests.len()
        } else {
            (tests.len() / (workers * 8)).max(MIN_CHUNK)
        };
        let chunks: Vec<&[Test]> = tests.chunks(size).collect();
        let next = AtomicUsize::new(0);
        let job = Job {
            source: Source::Fixed {
                chunks: &chunks,
                next: &next,
            },
            sink: None,
            observe,
            deadline,
        };
        let parts = self.run_slots(workers, &job);
        let mut by_chunk: Vec<Option<Vec<TestResult>>> = vec![None; chunks.len()];
        for part in parts {
            for (i, r) in part? {
                by_chunk[i] = Some(r);
            }
        }
        let mut out = Vec::with_capacity(tests.len());
        for (r, chunk) in by_chunk.into_iter().zip(&chunks) {
            // Past the deadline the chunks not started (or cut short) end the prefix.
            let Some(r) = r else { break };
            let whole = r.len() == chunk.len();
            out.extend(r);
            if !whole {
                break;
            }
        }
        if deadline.is_none() && out.len() != tests.len() {
            return Err(Error::Protocol("a chunk of tests was not run".into()));
        }
        Ok(out)
    }

    /// Runs chunks of tests as they arrive on `chunks`, until the sender hangs up: each
    /// chunk's results go to `results` as soon as the chunk is done, with its number (0, 1,
    /// … in the order sent; with one worker they also finish in that order).
    /// A worker is sent the next chunk while it runs the current one whenever that chunk has
    /// arrived, so a caller that hands over the next chunk before the current one is done
    /// keeps the worker busy without a gap. With a `deadline`, no chunk is started after it
    /// (the results are those of a prefix, the last chunk possibly cut short). A failure
    /// ends the job: the chunks not reported get no results.
    ///
    /// The tests are shared with the caller (`Arc`): nothing is copied to hand them over.
    /// For searches that build tests while earlier ones run. Hostile tests are handled as in
    /// [`run`](Self::run). Returns the time the workers spent waiting for chunks (the mean
    /// over workers): the rest of the call's time the host was at work. Runs on the calling
    /// thread; [`open_stream`](Self::open_stream) does the same on the host's own thread.
    pub fn run_stream(
        &mut self,
        chunks: mpsc::Receiver<Vec<Arc<Test>>>,
        results: &mpsc::Sender<(usize, Vec<TestResult>)>,
        observe: bool,
        deadline: Option<Instant>,
    ) -> Result<Duration> {
        let job = StreamJob {
            chunks,
            results: results.clone(),
            observe,
            deadline,
        };
        self.reclaim()?;
        stream_job(
            &mut self.slots,
            &self.program,
            &self.setup,
            &self.config,
            job,
        )
    }

    /// Opens a stream run by the host's stream thread: the chunks sent through the returned
    /// [`Stream`] run as in [`run_stream`](Self::run_stream), while the caller goes on (it
    /// builds the next chunk, takes results in). The thread stays for the next stream: a
    /// search that streams every generation does not start a thread each time (about 60 µs
    /// in the VMs measured, at up to a thousand generations a second). It holds the workers
    /// until the host is used otherwise.
    pub fn open_stream(&mut self, observe: bool, deadline: Option<Instant>) -> Result<Stream<'_>> {
        if self.lost {
            return Err(Error::StreamThread);
        }
        if self.streamer.is_none() {
            let (jobs, job_rx) = mpsc::channel::<StreamJob>();
            let (done_tx, done) = mpsc::channel();
            let slots = std::mem::take(&mut self.slots);
            let (program, setup, config) = (
                Arc::clone(&self.program),
                Arc::clone(&self.setup),
                Arc::clone(&self.config),
            );
            let thread = std::thread::Builder::new()
                .name("ferrosuite-host".into())
                .spawn(move || {
                    let mut slots = slots;
                    while let Ok(job) = job_rx.recv() {
                        // The time this thread worked on the stream: from taking the job to
                        // its end, less the workers' waits for chunks (the hand-overs before
                        // and after are not the host's work).
                        let t0 = Instant::now();
                        let r = stream_job(&mut slots, &program, &setup, &config, job)
                            .map(|waited| t0.elapsed().saturating_sub(waited));
                        if done_tx.send(r).is_err() {
                            break;
                        }
                    }
                    slots
                })
                .map_err(|e| {
                    // The slots went with the closure (their workers exit as their input
                    // closes).
                    self.lost = true;
                    Error::io("starting the host's stream thread")(e)
                })?;
            self.streamer = Some(Streamer { jobs, done, thread });
        }
        let (to_host, chunks) = mpsc::channel();
        let (results, from_host) = mpsc::channel();
        let job = StreamJob {
            chunks,
            results,
            observe,
            deadline,
        };
        let sent = self
            .streamer
            .as_ref()
            .is_some_and(|s| s.jobs.send(job).is_ok());
        if !sent {
            // The thread is gone (it ends only by panicking): `park` marks the workers lost.
            self.park();
            return Err(Error::StreamThread);
        }
        Ok(Stream {
            host: self,
            to_host: Some(to_host),
            from_host,
            finished: false,
        })
    }

    /// Runs `job` on the first `workers` slots (each on a thread of its own when there are
    /// several), returning what each slot returned.
    fn run_slots(&mut self, workers: usize, job: &Job<'_>) -> Vec<Result<Vec<ChunkResults>>> {
        run_slots(
            &mut self.slots,
            &self.program,
            &self.setup,
            &self.config,
            workers,
            job,
        )
    }
}

/// A stream open on the host's stream thread ([`Host::open_stream`]): chunks go in with
/// [`send`](Stream::send), results come out with [`recv`](Stream::recv), and
/// [`finish`](Stream::finish) waits for the end. Dropping it closes it and waits as well (a
/// stream leaked with `mem::forget` is never closed: the host's thread waits for its chunks,
/// and the host's next use waits for that thread).
pub struct Stream<'h> {
    host: &'h mut Host,
    to_host: Option<mpsc::Sender<Vec<Arc<Test>>>>,
    from_host: mpsc::Receiver<(usize, Vec<TestResult>)>,
    finished: bool,
}

impl Stream<'_> {
    /// Hands a chunk to the host; false when the stream stopped taking chunks (deadline,
    /// failure, or [`close`](Self::close)d).
    #[must_use]
    pub fn send(&self, chunk: Vec<Arc<Test>>) -> bool {
        self.to_host.as_ref().is_some_and(|t| t.send(chunk).is_ok())
    }

    /// The next chunk's results, with its number, waiting for them; `None` once the stream
    /// has ended and every result was taken.
    #[must_use]
    pub fn recv(&self) -> Option<(usize, Vec<TestResult>)> {
        self.from_host.recv().ok()
    }

    /// The next chunk's results if they are in, without waiting: the caller can do something
    /// else while the host is still at work ([`Polled::Pending`]).
    #[must_use]
    pub fn poll(&self) -> Polled {
        match self.from_host.try_recv() {
            Ok((index, results)) => Polled::Ready(index, results),
            Err(mpsc::TryRecvError::Empty) => Polled::Pending,
            Err(mpsc::TryRecvError::Disconnected) => Polled::Ended,
        }
    }

    /// Whether chunks may still be sent (not [`close`](Self::close)d).
    #[must_use]
    pub fn is_open(&self) -> bool {
        self.to_host.is_some()
    }

    /// No more chunks: the stream ends once those sent are done.
    pub fn close(&mut self) {
        self.to_host = None;
    }

    /// Closes the stream and waits for its end: the time the host worked on it (its thread's
    /// time on the stream less the workers' waits for chunks, which is what
    /// [`Host::run_stream`] returns).
    pub fn finish(mut self) -> Result<Duration> {
        self.wait()
    }

    fn wait(&mut self) -> Result<Duration> {
        self.close();
        self.finished = true;
        let done = self.host.streamer.as_ref().map(|s| s.done.recv());
        if let Some(Ok(r)) = done {
            return r;
        }
        // The thread died without an answer: `park` marks the workers lost.
        self.host.park();
        Err(Error::StreamThread)
    }
}

impl Drop for Stream<'_> {
    fn drop(&mut self) {
        if !self.finished {
            let _ = self.wait();
        }
    }
}

/// The host is the executor of the tool: the trait's methods are the inherent ones, with
/// the host's errors boxed.
impl Executor for Host {
    fn map(&self) -> &ProbeMap {
        Host::map(self)
    }

    fn ready(&self) -> &Ready {
        Host::ready(self)
    }

    fn run_until(
        &mut self,
        tests: &[Test],
        observe: bool,
        deadline: Option<Instant>,
    ) -> ferrosuite_executor::Result<Vec<TestResult>> {
        Ok(Host::run_until(self, tests, observe, deadline)?)
    }

    fn open_stream(
        &mut self,
        observe: bool,
        deadline: Option<Instant>,
    ) -> ferrosuite_executor::Result<Box<dyn TestStream + '_>> {
        Ok(Box::new(Host::open_stream(self, observe, deadline)?))
    }
}

impl TestStream for Stream<'_> {
    fn send(&self, chunk: Vec<Arc<Test>>) -> bool {
        Stream::send(self, chunk)
    }

    fn recv(&self) -> Option<(usize, Vec<TestResult>)> {
        Stream::recv(self)
    }

    fn poll(&self) -> Polled {
        Stream::poll(self)
    }

    fn is_open(&self) -> bool {
        Stream::is_open(self)
    }

    fn close(&mut self) {
        Stream::close(self);
    }

    fn finish(self: Box<Self>) -> ferrosuite_executor::Result<Duration> {
        Ok(Stream::finish(*self)?)
    }
}

/// The thread that runs streams for [`Host::open_stream`], holding the slots while it lives.
struct Streamer {
    jobs: mpsc::Sender<StreamJob>,
    done: mpsc::Receiver<Result<Duration>>,
    thread: std::thread::JoinHandle<Vec<Slot>>,
}

/// A stream to run: where its chunks come from and its results go.
struct StreamJob {
    chunks: mpsc::Receiver<Vec<Arc<Test>>>,
    results: mpsc::Sender<(usize, Vec<TestResult>)>,
    observe: bool,
    deadline: Option<Instant>,
}

/// Runs a stream on `slots` (see [`Host::run_stream`]).
fn stream_job(
    slots: &mut [Slot],
    program: &WorkerProgram,
    setup: &Setup,
    config: &HostConfig,
    job: StreamJob,
) -> Result<Duration> {
    let StreamJob {
        chunks,
        results,
        observe,
        deadline,
    } = job;
    let chunks = Mutex::new(chunks);
    let (next, stopped) = (AtomicUsize::new(0), AtomicBool::new(false));
    let waited = AtomicU64::new(0);
    let job = Job {
        source: Source::Stream {
            chunks: &chunks,
            next: &next,
            stopped: &stopped,
            waited: &waited,
        },
        sink: Some(results),
        observe,
        deadline,
    };
    let workers = slots.len();
    for part in run_slots(slots, program, setup, config, workers, &job) {
        part?;
    }
    let per_worker = waited.load(Ordering::Relaxed) / u64::try_from(workers.max(1)).unwrap_or(1);
    Ok(Duration::from_nanos(per_worker))
}

/// Runs `job` on the first `workers` of `slots` (each on a thread of its own when there are
/// several), returning what each slot returned.
fn run_slots(
    slots: &mut [Slot],
    program: &WorkerProgram,
    setup: &Setup,
    config: &HostConfig,
    workers: usize,
    job: &Job<'_>,
) -> Vec<Result<Vec<ChunkResults>>> {
    if workers == 1 {
        return slots
            .first_mut()
            .map(|slot| run_slot(slot, program, setup, config, job))
            .into_iter()
            .collect();
    }
    std::thread::scope(|s| {
        let handles: Vec<_> = slots
            .iter_mut()
            .take(workers)
            .map(|slot| s.spawn(move || run_slot(slot, program, setup, config, job)))
            .collect();
        handles
            .into_iter()
            .map(|h| {
                h.join()
                    .unwrap_or_else(|_| Err(Error::Protocol("a worker thread panicked".into())))
            })
            .collect()
    })
}

/// The results of one chunk of a batch, with the chunk's index.
type ChunkResults = (usize, Vec<TestResult>);

/// Smallest number of tests sent to a worker at once when a batch is shared (see
/// [`Host::run`]): small enough to balance the workers, large enough that the round trip per
/// chunk stays small against the tests' run time.
pub const MIN_CHUNK: usize = 16;

impl Drop for Host {
    fn drop(&mut self) {
        self.park();
        if self.lost {
            // The slots went with the stream thread (their workers exit as their input closes).
            for dir in &self.workdirs {
                let _ = std::fs::remove_dir_all(dir);
            }
        }
        for slot in &mut self.slots {
            if let Some(mut p) = slot.proc.take() {
                let _ = p.send(&RequestRef::Quit);
                let _ = p.finish();
            }
            let _ = std::fs::remove_dir_all(&slot.workdir);
        }
    }
}

/// Prefix of the workers' working directories:
/// `ferrosuite-worker-<pid namespace>-<master pid>-<slot>-…`.
const WORKDIR_PREFIX: &str = "ferrosuite-worker-";

/// The inode of this process's pid namespace (`/proc/self/ns/pid` reads `pid:[N]`), if known:
/// a pid means a process only within its namespace, and masters in other containers may share
/// the temporary directory.
fn pid_namespace() -> Option<u64> {
    let link = std::fs::read_link("/proc/self/ns/pid").ok()?;
    let text = link.to_str()?;
    text.strip_prefix("pid:[")?.strip_suffix(']')?.parse().ok()
}

/// The name part that ties a working directory to this master: `<namespace>-<pid>`, with `x`
/// for an unknown namespace (such directories are never swept).
fn master_tag() -> String {
    let ns = pid_namespace().map_or_else(|| "x".to_owned(), |n| n.to_string());
    format!("{ns}-{}", std::process::id())
}

/// Removes the workers' working directories that a master which no longer runs left under
/// `tmp` (one killed before its `Drop` ran): directories named [`WORKDIR_PREFIX`] plus this
/// process's pid namespace plus a process id that `/proc` does not list. Without `/proc` (not
/// Linux) nothing is removed; so are not names from another pid namespace (another
/// container's master sharing the directory), symbolic links, plain files, or what cannot be
/// removed (another user's). A live process that reuses the pid keeps the directory until it
/// ends: only names of dead processes are touched.
fn sweep_orphaned_dirs(tmp: &Path) {
    let Some(ns) = pid_namespace() else {
        return;
    };
    let Ok(entries) = std::fs::read_dir(tmp) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(rest) = name.to_str().and_then(|n| n.strip_prefix(WORKDIR_PREFIX)) else {
            continue;
        };
        let mut fields = rest.split('-');
        let (Some(dir_ns), Some(pid)) = (
            fields.next().and_then(|f| f.parse::<u64>().ok()),
            fields.next().and_then(|f| f.parse::<u32>().ok()),
        ) else {
            continue;
        };
        if dir_ns == ns
            && pid != std::process::id()
            && !Path::new(&format!("/proc/{pid}")).exists()
            && entry.file_type().is_ok_and(|t| t.is_dir())
        {
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
}

/// Creates a new, empty directory under the system's temporary directory (a unique suffix
/// keeps several hosts of one process apart).
fn fresh_dir(base: &str) -> Result<PathBuf> {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    let tmp = std::env::temp_dir();
    for attempt in 0..1000u32 {
        let dir = tmp.join(format!("{base}-{nanos:x}-{attempt}"));
        match std::fs::create_dir(&dir) {
            Ok(()) => return Ok(dir),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
            Err(e) => return Err(Error::io(format!("creating {}", dir.display()))(e)),
        }
    }
    Err(Error::Io {
        context: format!("creating a working directory under {}", tmp.display()),
        source: std::io::Error::other("every candidate name exists"),
    })
}

/// Starts (or restarts) the worker of a slot and waits for `Ready`.
fn start_worker(
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

/// Chunks of tests (a batch cut up front, or chunks streamed in) that the slots of a host take
/// in order.
struct Job<'a> {
    source: Source<'a>,
    /// Where finished chunks go as they finish (a stream); `None`: each slot returns them.
    sink: Option<mpsc::Sender<ChunkResults>>,
    observe: bool,
    deadline: Option<Instant>,
}

/// Where a job's chunks come from.
enum Source<'a> {
    /// A batch cut into chunks up front ([`Host::run_until`]).
    Fixed {
        chunks: &'a [&'a [Test]],
        /// The next chunk to take (set past the end to stop every slot).
        next: &'a AtomicUsize,
    },
    /// Chunks handed over while the job runs ([`Host::run_stream`]), numbered in the order
    /// they were sent.
    Stream {
        chunks: &'a Mutex<mpsc::Receiver<Vec<Arc<Test>>>>,
        next: &'a AtomicUsize,
        stopped: &'a AtomicBool,
        /// Nanoseconds the slots spent waiting for a chunk to arrive.
        waited: &'a AtomicU64,
    },
}

/// The tests of a chunk a slot has taken: borrowed from a batch, shared with the search when
/// streamed in (no copy either way).
enum Tests<'a> {
    Borrowed(&'a [Test]),
    Shared(Vec<Arc<Test>>),
}

impl Tests<'_> {
    fn len(&self) -> usize {
        match self {
            Tests::Borrowed(t) => t.len(),
            Tests::Shared(t) => t.len(),
        }
    }

    /// Encodes the request to run the tests from index `from` on into `frame`, for the
    /// worker whose names `table` holds.
    fn encode_run(
        &self,
        from: usize,
        table: &mut NameTable,
        observe: bool,
        flush_each: bool,
        frame: &mut Vec<u8>,
    ) -> Result<()> {
        match self {
            Tests::Borrowed(t) => encode_run(&t[from..], table, observe, flush_each, frame),
            Tests::Shared(t) => encode_run(&t[from..], table, observe, flush_each, frame),
        }
    }
}

impl<'a> Job<'a> {
    fn late(&self) -> bool {
        self.deadline.is_some_and(|d| Instant::now() >= d)
    }

    /// Takes the next chunk, unless the deadline has passed or none is left. A stream waits
    /// for the next chunk when `wait` is set (until the sender closes), and otherwise takes
    /// one only if it is there already.
    fn claim(&self, wait: bool) -> Option<(usize, Tests<'a>)> {
        if self.late() {
            // Chunks are taken in order: the ones run form a prefix.
            self.stop();
            return None;
        }
        match self.source {
            Source::Fixed { chunks, next } => {
                let i = next.fetch_add(1, Ordering::Relaxed);
                chunks.get(i).map(|c| (i, Tests::Borrowed(c)))
            }
            Source::Stream {
                chunks,
                next,
                stopped,
                waited,
            } => {
                let t0 = Instant::now();
                let got = loop {
                    if self.late() {
                        self.stop();
                        break None;
                    }
                    if stopped.load(Ordering::Relaxed) {
                        break None;
                    }
                    // A slot with chunks of its own never waits behind one waiting for the next
                    // (the one holding the lock has seen the channel empty).
                    let rx = if wait {
                        chunks.lock().ok()?
                    } else {
                        match chunks.try_lock() {
                            Ok(rx) => rx,
                            Err(_) => break None,
                        }
                    };
                    // Numbered under the lock: the numbers follow the order sent.
                    let number = || next.fetch_add(1, Ordering::Relaxed);
                    if !wait {
                        break rx.try_recv().ok().map(|tests| (number(), tests));
                    }
                    // In slices, so that a stop (another slot failed) or the deadline ends the
                    // wait.
                    let slice = self.deadline.map_or(WAIT_SLICE, |d| {
                        d.saturating_duration_since(Instant::now()).min(WAIT_SLICE)
                    });
                    match rx.recv_timeout(slice) {
                        Ok(tests) => break Some((number(), tests)),
                        Err(mpsc::RecvTimeoutError::Timeout) => {}
                        Err(mpsc::RecvTimeoutError::Disconnected) => break None,
                    }
                };
                if wait {
                    let nanos = u64::try_from(t0.elapsed().as_nanos()).unwrap_or(u64::MAX);
                    waited.fetch_add(nanos, Ordering::Relaxed);
                }
                // A chunk taken as the job stops is dropped with it.
                let (number, tests) = got.filter(|_| !stopped.load(Ordering::Relaxed))?;
                Some((number, Tests::Shared(tests)))
            }
        }
    }

    /// No slot takes another chunk.
    fn stop(&self) {
        match self.source {
            Source::Fixed { chunks, next } => next.store(chunks.len(), Ordering::Relaxed),
            Source::Stream { stopped, .. } => stopped.store(true, Ordering::Relaxed),
        }
    }

    /// A chunk is finished: into the slot's results, or at once to the stream's sink.
    fn finish(&self, done: &mut Vec<ChunkResults>, index: usize, results: Vec<TestResult>) {
        match &self.sink {
            // A receiver that hung up wants no more: the job ends with the chunks in flight.
            Some(sink) => {
                if sink.send((index, results)).is_err() {
                    self.stop();
                }
            }
            None => done.push((index, results)),
        }
    }
}

/// Longest a slot waiting for a streamed chunk goes without looking at the deadline and at
/// whether the job stopped.
const WAIT_SLICE: Duration = Duration::from_millis(50);

/// Chunks a slot keeps in flight: the one its worker runs and the next, sent ahead into the
/// pipe so that the worker starts it the moment it finishes the current one, instead of
/// waiting a round trip through the master (a gap per chunk that, with chunks of
/// [`MIN_CHUNK`] tests under a deadline, was a large share of a worker's time).
const IN_FLIGHT: usize = 2;

/// The pipe size asked for the requests to a worker (Linux grants up to
/// `/proc/sys/fs/pipe-max-size`, 1 MiB by default).
const PIPE_SIZE: usize = 1 << 20;

/// How a worker's run of a chunk ended.
enum Outcome {
    Done,
    Retired,
    Unexpected(String),
    /// The stream ended (the process died).
    Died,
    /// No reply within the time limit and the kill grace.
    Hung,
}

/// A chunk a slot has taken.
struct Claimed<'a> {
    index: usize,
    tests: Tests<'a>,
    results: Vec<TestResult>,
    /// Size of the request frame sent to the current worker; `None` while the current
    /// worker does not have it (not sent yet, or sent to a worker that was lost).
    sent: Option<usize>,
}

/// Runs chunks of `job` on one slot until none is left, replacing the worker whenever it is
/// lost, and returns each chunk's results with its index.
///
/// Up to [`IN_FLIGHT`] chunks are sent ahead: the next one only when every request the
/// worker may not have read yet fits in the pipe, so that a write never blocks on a busy
/// worker (the master must stay free to notice a hung one). A worker lost during a chunk
/// takes the requests sent ahead with it: the replacement gets the rest of the chunk and
/// then the chunks behind it again.
///
/// With a deadline, a chunk whose worker had to be replaced after the deadline ends there:
/// the results are those of a prefix (so that a run of hanging tests, each costing its time
/// limit and a restart, cannot overrun a time budget by a whole chunk of them).
fn run_slot(
    slot: &mut Slot,
    program: &WorkerProgram,
    setup: &Setup,
    config: &HostConfig,
    job: &Job<'_>,
) -> Result<Vec<ChunkResults>> {
    let r = slot_loop(slot, program, setup, config, job);
    if r.is_err() {
        // The other workers stop after their current chunk.
        job.stop();
    }
    r
}

fn slot_loop(
    slot: &mut Slot,
    program: &WorkerProgram,
    setup: &Setup,
    config: &HostConfig,
    job: &Job<'_>,
) -> Result<Vec<ChunkResults>> {
    let wait = config.timeout + config.kill_grace;
    let mut done = Vec::new();
    let mut queue: VecDeque<Claimed<'_>> = VecDeque::with_capacity(IN_FLIGHT);
    // After a worker died with results in its buffer, the rest of the chunk runs with a flush
    // per test, so that a test that kills the worker again is the one scored as crashed.
    let mut flush_each = false;
    let mut send_failures = 0;
    let mut frame = Vec::new();
    loop {
        while queue.len() < IN_FLIGHT {
            // A stream is waited for only when the slot has nothing else to do.
            let Some((index, tests)) = job.claim(queue.is_empty()) else {
                break;
            };
            queue.push_back(Claimed {
                index,
                results: Vec::with_capacity(tests.len()),
                tests,
                sent: None,
            });
        }
        let Some(front) = queue.front() else {
            return Ok(done);
        };
        if front.results.len() == front.tests.len() {
            // Complete (its worker retired or died after the last test).
            if let Some(f) = queue.pop_front() {
                job.finish(&mut done, f.index, f.results);
            }
            flush_each = false;
            continue;
        }
        if slot.proc.is_none() {
            if !front.results.is_empty() && job.late() {
                // Cut short at the deadline: the prefix ends here.
                job.stop();
                if let Some(f) = queue.pop_front() {
                    job.finish(&mut done, f.index, f.results);
                }
                return Ok(done);
            }
            start_worker(slot, program, setup, config.startup_timeout)?;
            for c in &mut queue {
                c.sent = None;
            }
        }
        let Some(mut p) = slot.proc.take() else {
            continue;
        };
        // Send what the worker lacks: the front's rest at once, a chunk behind it only when
        // it fits in the pipe beside the requests the worker may not have read yet.
        let mut unread: usize = queue.iter().filter_map(|c| c.sent).sum();
        let mut failed = None;
        for (k, c) in queue.iter_mut().enumerate() {
            if c.sent.is_some() {
                continue;
            }
            let mark = p.names.len();
            if let Err(e) = c.tests.encode_run(
                c.results.len(),
                &mut p.names,
                job.observe,
                flush_each && k == 0,
                &mut frame,
            ) {
                failed = Some(e);
                break;
            }
            if k > 0 && unread + frame.len() > p.pipe_capacity {
                // Not sent: the worker does not learn its names either.
                p.names.truncate(mark);
                break;
            }
            if let Err(e) = p.send_frame(&frame) {
                p.names.truncate(mark);
                if k == 0 {
                    failed = Some(e);
                }
                // Behind the front, the worker died while running it: the replies tell how.
                break;
            }
            send_failures = 0;
            c.sent = Some(frame.len());
            unread += frame.len();
        }
        match failed {
            None => {}
            Some(e @ Error::Protocol(_)) => {
                // The request itself cannot be sent (too large): no worker would take it.
                let _ = p.kill();
                return Err(e);
            }
            Some(e) => {
                // The worker died between chunks: a fresh one gets the tests (but not
                // forever).
                let _ = p.kill();
                send_failures += 1;
                if send_failures >= 3 {
                    return Err(Error::Worker {
                        worker: slot.index,
                        detail: format!("three fresh workers in a row closed their input: {e}"),
                    });
                }
                for c in &mut queue {
                    c.sent = None;
                }
                continue;
            }
        }
        let Some(front) = queue.front_mut() else {
            continue;
        };
        let outcome = loop {
            match p.recv_timeout(wait) {
                Ok(Some(Reply::Result(r))) => {
                    if r.status == Status::Timeout {
                        // The worker's watchdog gave the test up (it retires next).
                        slot.stats.timeouts += 1;
                    }
                    slot.stats.tests += 1;
                    slot.stats.statements += u64::from(r.executed);
                    front.results.push(*r);
                }
                Ok(Some(Reply::Done)) => break Outcome::Done,
                Ok(Some(Reply::Retire(_))) => break Outcome::Retired,
                Ok(Some(other)) => break Outcome::Unexpected(format!("{other:?}")),
                Ok(None) => break Outcome::Died,
                Err(_) => break Outcome::Hung,
            }
        };
        let alive = match outcome {
            Outcome::Done if front.results.len() == front.tests.len() => Some(p),
            Outcome::Done | Outcome::Unexpected(_) => {
                let _ = p.kill();
                let detail = match outcome {
                    Outcome::Unexpected(reply) => {
                        format!("unexpected reply during a batch: {reply}")
                    }
                    _ => "a chunk ended before all its results".into(),
                };
                return Err(Error::Worker {
                    worker: slot.index,
                    detail,
                });
            }
            Outcome::Retired => {
                slot.stats.retirements += 1;
                let _ = p.finish();
                None
            }
            Outcome::Died if !flush_each => {
                // Results of the tests before the one that killed the worker may have been
                // in its buffer: run the rest again, one flush per test.
                let _ = p.finish();
                flush_each = true;
                None
            }
            Outcome::Died => {
                let (status, err) = p.finish();
                slot.stats.tests += 1;
                slot.stats.crashes += 1;
                front
                    .results
                    .push(TestResult::lost(Status::Crashed(if err.is_empty() {
                        format!("worker exited ({status})")
                    } else {
                        format!("worker exited ({status}): {err}")
                    })));
                None
            }
            Outcome::Hung => {
                let _ = p.kill();
                slot.stats.tests += 1;
                slot.stats.timeouts += 1;
                front.results.push(TestResult::lost(Status::Timeout));
                None
            }
        };
        match alive {
            Some(p) => {
                slot.proc = Some(p);
                if let Some(f) = queue.pop_front() {
                    job.finish(&mut done, f.index, f.results);
                }
                flush_each = false;
            }
            None => {
                // The requests sent ahead went with the worker.
                for c in &mut queue {
                    c.sent = None;
                }
            }
        }
    }
}

#[cfg(test)]
#[allow(clippy::expect_used)]
mod tests {
    use super::{WORKDIR_PREFIX, sweep_orphaned_dirs};

    /// Only directories named after a process that does not run are removed; the own
    /// process's, other names and plain files stay.
    #[test]
    #[cfg(target_os = "linux")]
    fn the_sweep_removes_only_directories_of_masters_that_are_gone() {
        let tmp = super::fresh_dir("ferrosuite-sweep-test").expect("a scratch directory");
        let outside = super::fresh_dir("ferrosuite-sweep-outside").expect("a scratch directory");
        std::fs::write(outside.join("keep.txt"), b"x").expect("write");
        let ns = super::pid_namespace().expect("Linux has /proc/self/ns/pid");
        // Above any pid Linux hands out (at most 2^22).
        let dead = tmp.join(format!("{WORKDIR_PREFIX}{ns}-4294967000-0-1f-0"));
        let own = tmp.join(format!(
            "{WORKDIR_PREFIX}{ns}-{}-0-1f-0",
            std::process::id()
        ));
        let parent = tmp.join(format!(
            "{WORKDIR_PREFIX}{ns}-{}-0-1f-0",
            std::os::unix::process::parent_id()
        ));
        let foreign = tmp.join(format!("{WORKDIR_PREFIX}{}-4294967000-0-1f-0", ns + 1));
        let old_style = tmp.join(format!("{WORKDIR_PREFIX}4294967000-0-1f-0"));
        let odd = tmp.join(format!("{WORKDIR_PREFIX}notapid-0"));
        let other = tmp.join("someone-elses-4294967000");
        let file = tmp.join(format!("{WORKDIR_PREFIX}{ns}-4294967001-file"));
        let link = tmp.join(format!("{WORKDIR_PREFIX}{ns}-4294967002-x"));
        for d in [&dead, &own, &parent, &foreign, &old_style, &odd, &other] {
            std::fs::create_dir(d).expect("create");
        }
        std::fs::write(dead.join("left.txt"), b"x").expect("write");
        std::fs::write(&file, b"x").expect("write");
        std::os::unix::fs::symlink(&outside, &link).expect("symlink");
        sweep_orphaned_dirs(&tmp);
        let gone = !dead.exists();
        let kept: Vec<_> = [
            &own, &parent, &foreign, &old_style, &odd, &other, &file, &link,
        ]
        .into_iter()
        .filter(|p| !p.exists())
        .collect();
        let outside_kept = outside.join("keep.txt").exists();
        let _ = std::fs::remove_dir_all(&tmp);
        let _ = std::fs::remove_dir_all(&outside);
        assert!(gone, "the dead master's directory stays");
        assert!(kept.is_empty(), "removed: {kept:?}");
        assert!(outside_kept, "a link's target lost its file");
    }
}
