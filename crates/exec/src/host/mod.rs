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
//! [`Status::Timeout`]: crate::result::Status::Timeout
//! [`Status::Crashed`]: crate::result::Status::Crashed
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

mod config;
mod proc;
mod slots;
mod stream;
pub mod workdir;

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::AtomicUsize;
use std::time::Instant;

use ferrosuite_bytecode::classpath::{ClassPath, ClassPathEntry};
use ferrosuite_bytecode::instrument::map::ProbeMap;
use ferrosuite_testcase::Test;

use crate::error::{Error, Result};
use ferrosuite_executor::{Executor, Ready, TestStream};

use crate::protocol::{MethodRanges, ProbeSizes, RequestRef, Setup};
use crate::result::TestResult;

pub use config::{
    DEFAULT_ALLOCATION_LIMIT, FIXED_IDENTITY_HASHES, HostConfig, HostStats, WorkerProgram,
    locate_libjvm,
};
pub use stream::Stream;

use proc::{Proc, start_worker};
use slots::{ChunkResults, Job, Source, run_slots};
use stream::Streamer;
use workdir::{WORKDIR_PREFIX, fresh_dir, master_tag, sweep_orphaned_dirs};

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
    /// The mutants of the classes under test when they are mutation schemata.
    mutants: Vec<Mutant>,
}

impl std::fmt::Debug for Host {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Host")
            .field("workers", &self.config.workers.max(1))
            .field("instrumented", &self.map.classes.len())
            .finish_non_exhaustive()
    }
}

use ferrosuite_bytecode::instrument::classes::instrument_mutated;
pub use ferrosuite_bytecode::instrument::classes::{ClassBytes, instrument};
use ferrosuite_bytecode::instrument::mutation::Mutant;

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
        let (map, instrumented, mutants) = instrument_mutated(
            &cp,
            &config.instrument,
            &config.probes,
            config.mutation.as_ref(),
        )?;
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
            allocation_limit: config.allocation_limit,
            thread_grace_ms: u64::try_from(config.thread_grace.as_millis()).unwrap_or(u64::MAX),
            sandbox: config.sandbox,
            clock_shift_ms: config.clock_shift_ms,
            environment: config.environment,
            random_salt: config.random_salt,
            clock_step_ms: config.clock_step_ms,
            tools: config.mock_jars.clone(),
            observe_private: config.observe_private_fields,
            last_mutant: mutants.last().map_or(0, |m| m.id),
        };
        sweep_orphaned_dirs(&std::env::temp_dir(), WORKDIR_PREFIX);
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
            mutants,
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

    /// The mutants of the classes under test ([`HostConfig::mutation`]), by increasing id.
    #[must_use]
    pub fn mutants(&self) -> &[Mutant] {
        &self.mutants
    }

    /// [`run`](Self::run) against mutant `mutant` (an id of [`mutants`](Self::mutants); 0:
    /// the original code). Each result says which mutation sites its test reached
    /// ([`TestResult::reached_sites`]).
    pub fn run_mutant(
        &mut self,
        tests: &[Test],
        observe: bool,
        mutant: u32,
    ) -> Result<Vec<TestResult>> {
        self.run_mutant_until(tests, observe, mutant, None)
    }

    /// [`run_mutant`](Self::run_mutant) under a deadline, as [`run_until`](Self::run_until):
    /// past it a worker lost to a hanging test is not replaced for the rest of the tests, and
    /// the results are those of a prefix of `tests` (a mutant that makes every test hang
    /// costs one time limit past the deadline, not one per test).
    pub fn run_mutant_until(
        &mut self,
        tests: &[Test],
        observe: bool,
        mutant: u32,
        deadline: Option<Instant>,
    ) -> Result<Vec<TestResult>> {
        if mutant != 0 && !self.mutants.iter().any(|m| m.id == mutant) {
            return Err(Error::Protocol(format!(
                "no mutant {mutant} (the host has {} mutants)",
                self.mutants.len()
            )));
        }
        self.run_batch(tests, observe, deadline, mutant)
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
        self.run_batch(tests, observe, deadline, 0)
    }

    fn run_batch(
        &mut self,
        tests: &[Test],
        observe: bool,
        deadline: Option<Instant>,
        mutant: u32,
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
            mutant,
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
