//! Integration tests of the search operators on real test clusters: the whole-suite paper's
//! `examples/Stack` and the cluster fixtures of `fixtures/java/cluster` (compiled with `javac`
//! at test time by `fixtures/build.sh`), and commons-lang3 from Debian (skipped when the jar is
//! missing, unless `FERROSUITE_REQUIRE_SUBJECTS=1`).

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::missing_panics_doc
)]

mod common;
mod engine;
mod generate;
mod properties;
