//! The host's configuration and counters, and where the worker program and `libjvm` are.

use std::path::{Path, PathBuf};
use std::time::Duration;

use ferrosuite_bytecode::classpath::find_java_home;
use ferrosuite_bytecode::instrument::probes::ProbeConfig;
use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};

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
    /// Heap bytes a test may allocate in a run without observation (the search's runs)
    /// before it counts as [`Status::Exhausted`](crate::Status::Exhausted), as one that runs
    /// out of memory does (0: no limit). Statements do not measure what a call costs: one
    /// `BitSet.set(Integer.MAX_VALUE)` zeroes 256 MiB, a hundred milliseconds every time the
    /// test or a descendant of it runs; the search neither keeps nor breeds from such a test.
    /// The worker's watchdog reads the counter while the test runs and stops it as soon as it
    /// is past the limit, as it stops a test past its time limit.
    pub allocation_limit: u64,
    /// Extra time after `timeout` before the master kills the worker.
    pub kill_grace: Duration,
    /// Time threads left by a test get to stop after the abort flag and an interrupt.
    pub thread_grace: Duration,
    /// Number of worker processes.
    pub workers: usize,
    /// Options for the embedded JVMs. The default ones include [`FIXED_IDENTITY_HASHES`]:
    /// every identity hash code is 1, so that what a test sees (`Object.toString`, the order
    /// of a `HashSet` of such objects) does not depend on which tests ran before it in the
    /// same JVM ([`HostConfig::real_identity_hashes`] undoes it).
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
    /// Control the environment of the code under test: a virtual clock that starts each test
    /// at the same instant (plus `clock_shift_ms`) and moves on by a millisecond per read, and
    /// randomness drawn from seeds that start over with each test (see
    /// [`ferrosuite_bytecode::instrument::environment`]). Off by default: the machine's clock
    /// and randomness.
    pub environment: bool,
    /// Mixed into the controlled environment's random seeds (0, the default, in the search):
    /// the stability check reruns tests with other salts, so that values drawn from
    /// randomness differ and their assertions go.
    pub random_salt: i64,
    /// Milliseconds the virtual clock moves on per read (1, the default, in the search): the
    /// stability check reruns tests with longer steps, so that values that depend on how fast
    /// time passes (an elapsed time) differ and their assertions go.
    pub clock_step_ms: i64,
    /// Time a worker may take to start its JVM and initialise the classes under test.
    pub startup_timeout: Duration,
    /// Mockito's jars (with Byte Buddy and Objenesis), for tests with mock statements; empty:
    /// such tests fail to make their mocks.
    pub mock_jars: Vec<PathBuf>,
    /// Inspect objects of the user's classes that have no public getter through their private
    /// fields of primitive and `String` types (inspector names `#name:descriptor`): the
    /// observations emitted tests assert by reflection.
    pub observe_private_fields: bool,
    /// Make the classes under test mutation schemata ([`ferrosuite_bytecode::instrument::mutation`])
    /// before the probes go in: [`Host::run_mutant`](crate::Host::run_mutant) then runs tests
    /// against one of [`Host::mutants`](crate::Host::mutants). `None` (the default): no mutants.
    pub mutation: Option<ferrosuite_bytecode::instrument::mutation::Config>,
}

/// [`HostConfig::allocation_limit`]'s default: 64 MiB, an eighth of the workers' default heap
/// (`-Xmx512m`). A test that allocates that much spends milliseconds zeroing memory where the
/// search's tests take tenths of one; the code under test's branches hardly ever need it.
pub const DEFAULT_ALLOCATION_LIMIT: u64 = 64 << 20;

/// The JVM options that make every identity hash code 1. An identity hash otherwise comes
/// from a per-thread sequence: a test's value would depend on how many hashes the tests before
/// it in the worker drew, and so on the number of workers.
pub const FIXED_IDENTITY_HASHES: [&str; 2] = ["-XX:+UnlockExperimentalVMOptions", "-XX:hashCode=2"];

impl HostConfig {
    /// Real identity hash codes (without [`FIXED_IDENTITY_HASHES`]): the stability check
    /// reruns tests so, and drops what then changes.
    pub fn real_identity_hashes(&mut self) {
        self.jvm_options.retain(|o| o != FIXED_IDENTITY_HASHES[1]);
    }
}

impl Default for HostConfig {
    fn default() -> Self {
        HostConfig {
            classpath: Vec::new(),
            instrument: Vec::new(),
            probes: ProbeConfig::default(),
            loop_limit: 10_000,
            timeout: Duration::from_secs(3),
            allocation_limit: DEFAULT_ALLOCATION_LIMIT,
            kill_grace: Duration::from_secs(2),
            thread_grace: Duration::from_millis(100),
            workers: 1,
            jvm_options: vec![
                "-Xmx512m".into(),
                "-Xshare:auto".into(),
                "-XX:TieredStopAtLevel=1".into(),
                FIXED_IDENTITY_HASHES[0].into(),
                FIXED_IDENTITY_HASHES[1].into(),
            ],
            java_home: None,
            worker: None,
            sandbox: true,
            clock_shift_ms: 0,
            environment: false,
            random_salt: 0,
            clock_step_ms: 1,
            startup_timeout: Duration::from_secs(60),
            mock_jars: Vec::new(),
            observe_private_fields: false,
            mutation: None,
        }
    }
}

/// Counters of a host's work.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct HostStats {
    /// Tests executed (including lost ones).
    pub tests: u64,
    /// Statements executed.
    pub statements: u64,
    /// Tests that timed out (the worker was killed).
    pub timeouts: u64,
    /// Tests during which the worker died.
    pub crashes: u64,
    /// Tests of the search that allocated past the allocation limit or ran out of memory
    /// ([`Status::Exhausted`](crate::Status::Exhausted)): the search drops them, so many of
    /// them mean a search that keeps paying for work it cannot use.
    #[serde(default)]
    pub exhausted: u64,
    /// Workers started after the first ones (replacements).
    pub restarts: u64,
    /// Workers that retired after a test.
    pub retirements: u64,
    /// Why the first worker that died did (its exit status, the JVM's fatal error when it
    /// aborted, the end of its standard error).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first_crash: Option<String>,
}

impl HostStats {
    pub(super) fn add(&mut self, o: &HostStats) {
        self.tests += o.tests;
        self.statements += o.statements;
        self.timeouts += o.timeouts;
        self.crashes += o.crashes;
        self.exhausted += o.exhausted;
        self.restarts += o.restarts;
        self.retirements += o.retirements;
        if self.first_crash.is_none() {
            self.first_crash.clone_from(&o.first_crash);
        }
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
