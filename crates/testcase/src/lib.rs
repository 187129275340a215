//! The test model of ferrosuite, shared by the search, mocking and emit crates and by the
//! execution host:
//!
//! - [`statement`]: statements, values and tests (whole-suite paper, Section III-B), with
//!   `serde` for the wire format and for saving and loading tests;
//! - [`mock`]: the stubs of mock statements and the calls a run made on its mocks;
//! - [`cluster`]: the test cluster built from bytecode: the accessible API of the class under
//!   test and generators for every type it needs, recursively;
//! - [`constants`]: constants harvested from class files to seed the search.
//!
//! The crate does not execute anything; `ferrosuite-exec` runs tests on a JVM.

pub mod cluster;
pub mod constants;
pub mod error;
pub mod mock;
pub mod statement;

pub use error::{Error, Result};
pub use statement::{Prim, Statement, Test, VarRef};
