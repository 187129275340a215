//! Integration tests of emission: tests run on the real execution host become JUnit 5 and
//! JUnit 4 classes that `javac` compiles and JUnit runs green (golden files keep the emitted
//! text under review: `BLESS=1 cargo test -p ferrosuite-emit` rewrites them), and hand-made
//! tests cover escaping, extreme values, names and imports (golden, compiled).

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::missing_panics_doc
)]

mod common;
mod e2e;
mod golden;
