//! The master/worker protocol: length-prefixed `postcard` frames over the worker's standard
//! input and output (which the worker moves away from file descriptors 0 and 1 before the JVM
//! starts, so nothing the code under test prints can corrupt it).
//!
//! ```text
//! master                                   worker
//!   Setup ───────────────────────────────────►  start JVM, define runtime, load & initialise
//!         ◄─────────────────────────────────── Ready { probes of class initialisation } | Fatal
//!   Run { tests } ──────────────────────────►
//!         ◄─────────────────────────────────── Result (one per test, flushed as it ends)
//!         ◄─────────────────────────────────── Done, or Retire (then the worker exits)
//!   Quit ───────────────────────────────────►  exit
//! ```
//!
//! A frame is a little-endian `u32` length followed by that many bytes of `postcard`.

use std::io::{Read, Write};
use std::path::PathBuf;

use ferrosuite_testcase::Test;
use serde::{Deserialize, Serialize, de::DeserializeOwned};

use crate::error::{Error, Result};
use crate::result::{ProbeSnapshot, TestResult};

/// Largest frame accepted (a guard against a corrupted length).
pub const MAX_FRAME: u32 = 256 << 20;

/// What the worker needs to start.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Setup {
    /// Path of `libjvm`.
    pub libjvm: PathBuf,
    /// JVM options (`-Xmx512m`, …).
    pub jvm_options: Vec<String>,
    /// The user's class path entries (directories and jars).
    pub classpath: Vec<PathBuf>,
    /// Instrumented classes, prepared by the master (internal name, class file).
    pub instrumented: Vec<(String, Vec<u8>)>,
    /// Classes to load and initialise before the first test (binary names), in order.
    pub initialize: Vec<String>,
    /// Number of branch slots, line ids, method ids and loop ids to read back.
    pub sizes: ProbeSizes,
    /// Class ids of the probe map, by internal name (for static reset).
    pub class_ids: Vec<String>,
    /// Iterations per loop before a test is aborted (0: no limit).
    pub loop_limit: u32,
    /// Milliseconds before the worker's own watchdog sets the abort flag and interrupts.
    pub timeout_ms: u64,
    /// Milliseconds a test's leftover threads get to stop after the test.
    pub thread_grace_ms: u64,
    /// Whether to sandbox the classes loaded from the class path.
    pub sandbox: bool,
}

/// Sizes of the probe arrays to read after each test.
#[derive(Debug, Clone, Copy, Default, Serialize, Deserialize)]
pub struct ProbeSizes {
    /// Branch outcome slots.
    pub branch_slots: u32,
    /// Line ids.
    pub lines: u32,
    /// Method ids.
    pub methods: u32,
    /// Loop ids.
    pub loops: u32,
}

/// Master → worker.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub enum Request {
    /// Start (the first message).
    Setup(Box<Setup>),
    /// Run tests in order, observing values and inspectors when asked.
    Run {
        /// The tests.
        tests: Vec<Test>,
        /// Whether to record observations.
        observe: bool,
    },
    /// Exit.
    Quit,
}

/// A class that failed to load or initialise during set-up.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct InitFailure {
    /// Binary name.
    pub class: String,
    /// The throwable, as `class: message`.
    pub error: String,
}

/// Worker → master.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub enum Reply {
    /// Set-up done.
    Ready {
        /// `java.version` of the embedded JVM.
        java_version: String,
        /// Probe data recorded while the classes were initialised.
        init_probes: ProbeSnapshot,
        /// Classes that could not be initialised.
        init_failures: Vec<InitFailure>,
    },
    /// Set-up failed; the worker exits.
    Fatal(String),
    /// The result of the next test of the batch.
    Result(Box<TestResult>),
    /// The batch is done.
    Done,
    /// After the last result: the worker's state is suspect (threads that did not stop, a
    /// `StackOverflowError` or `OutOfMemoryError`) and it exits; the master replaces it and
    /// sends it the rest of the batch.
    Retire(String),
}

/// Writes one frame and flushes.
pub fn write_frame<T: Serialize>(out: &mut impl Write, msg: &T) -> Result<()> {
    let bytes = postcard::to_stdvec(msg).map_err(|e| Error::Protocol(e.to_string()))?;
    let len = u32::try_from(bytes.len())
        .ok()
        .filter(|l| *l <= MAX_FRAME)
        .ok_or_else(|| Error::Protocol(format!("message of {} bytes is too large", bytes.len())))?;
    out.write_all(&len.to_le_bytes())
        .and_then(|()| out.write_all(&bytes))
        .and_then(|()| out.flush())
        .map_err(Error::io("writing to the worker pipe"))
}

/// Reads one frame; `Ok(None)` at a clean end of stream.
pub fn read_frame<T: DeserializeOwned>(input: &mut impl Read) -> Result<Option<T>> {
    let mut len = [0u8; 4];
    match input.read_exact(&mut len) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => return Ok(None),
        Err(e) => return Err(Error::io("reading from the worker pipe")(e)),
    }
    let len = u32::from_le_bytes(len);
    if len > MAX_FRAME {
        return Err(Error::Protocol(format!("frame of {len} bytes announced")));
    }
    let mut buf = vec![0u8; len as usize];
    input
        .read_exact(&mut buf)
        .map_err(Error::io("reading from the worker pipe"))?;
    postcard::from_bytes(&buf)
        .map(Some)
        .map_err(|e| Error::Protocol(e.to_string()))
}
