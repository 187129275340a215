//! The executor interface of ferrosuite and what executing a test yields, with no JVM
//! dependency: search, fitness and emission depend on this crate, not on the JVM host.
//!
//! - [`executor`]: the [`Executor`] trait (run a batch, open a [`TestStream`]), [`Ready`]
//!   (class initialisation), and [`SequentialStream`] for executors with no streaming of
//!   their own;
//! - [`result`]: a [`TestResult`] per test: how it ended ([`Status`]), an [`Outcome`] per
//!   statement, [`Observation`]s for assertions and the [`ProbeSnapshot`] of the probes it
//!   hit.
//!
//! `ferrosuite-exec`'s `Host` (worker processes with an embedded JVM each) is the executor
//! the tool uses.

pub mod error;
pub mod executor;
pub mod result;

pub use error::{Error, Result};
pub use executor::{Executor, InitFailure, Polled, Ready, SequentialStream, TestStream};
pub use result::{
    MAX_ARRAY_ELEMENTS, MAX_FRAMES, MAX_STRING, Observation, Observed, Outcome, ProbeSnapshot,
    Resources, Status, TestResult, ThrowKind, Thrown,
};
