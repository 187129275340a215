//! Integration tests of the pipeline and of what meets in it on a real JVM: the execution
//! host's results read by fitness (the whole-suite paper's `Stack`), emitted as JUnit 5 and
//! JUnit 4 classes that `javac` compiles and JUnit runs green (golden files keep the emitted
//! text under review: `BLESS=1 cargo test -p ferrosuite-generate` rewrites them), and the
//! whole `generate` pipeline.
//!
//! The host tests need the `ferrosuite-worker` binary next to the test binary's directory
//! (`cargo build -p ferrosuite-exec` with the same target directory) or `FERROSUITE_WORKER`;
//! without it they are skipped with a note, unless `FERROSUITE_REQUIRE_WORKER=1`.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::float_cmp,
    clippy::missing_panics_doc
)]

mod common;
mod emit_on_host;
mod environment;
mod fitness_on_host;
mod mocks;
mod mutation;
mod pipeline;
mod validation;
