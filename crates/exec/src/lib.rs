//! The execution host of ferrosuite: worker processes, each embedding a JVM through the `jni`
//! crate's invocation API, that run tests of the `ferrosuite-testcase` model against
//! instrumented, sandboxed classes and send back per-test results.
//!
//! - [`host`]: the master side ([`Host`]): instrumentation of the classes under test, the
//!   worker pool, time limits, replacement of lost workers;
//! - [`worker`]: the worker process ([`worker::worker_main`]): the JVM, the class loader that
//!   asks Rust for bytes, statements as JNI calls, observations, probe reads, static reset;
//! - [`protocol`]: the length-prefixed `postcard` messages between them;
//! - [`result`] (from `ferrosuite-executor`): what a test execution yields;
//! - [`sandbox`]: the transformation applied to every class the worker defines.
//!
//! The Java side (probe runtime, `HostLoader`, `Host`, `Sandbox`) is the `ferrosuite-runtime`
//! crate, which compiles it with `javac` at build time.

pub mod attach;
pub mod error;
pub mod host;
pub mod protocol;
mod raw;
pub mod sandbox;
pub mod wire;
pub mod worker;

pub use error::{Error, Result};
pub use ferrosuite_executor::{
    Executor, InitFailure, MAX_ARRAY_ELEMENTS, Observation, Observed, Outcome, Polled,
    ProbeSnapshot, Ready, Status, TestResult, TestStream, ThrowKind, Thrown, result,
};
pub use host::{
    DEFAULT_ALLOCATION_LIMIT, FIXED_IDENTITY_HASHES, Host, HostConfig, HostStats, MIN_CHUNK,
    WorkerProgram, locate_libjvm,
};
