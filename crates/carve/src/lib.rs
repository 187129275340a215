//! Carving tests from a real run (the fifth technique of ferrosuite): record what a program's
//! calls of the included classes received, did and returned, and keep it in a trace store.
//!
//! - [`record`]: `ferrosuite record` — runs a Java command with the recording agent
//!   ([`agent`]), answers its class requests with the trace probes of
//!   `ferrosuite_bytecode::instrument::record`, and writes the calls it streams back;
//! - [`wire`]: the decoder of the recorder's records;
//! - [`model`]: what is recorded (values, calls, interactions, end-of-run counts);
//! - [`store`]: the `SQLite` trace store;
//! - [`carve`]: `ferrosuite carve` — JUnit tests from the store, validated with `javac` and
//!   JUnit.
//!
//! The design, limits and format are in `docs/CARVING.md`.

pub mod agent;
pub mod carve;
pub mod error;
pub mod model;
pub mod record;
pub mod store;
pub mod wire;

pub use error::{Error, Result};
