//! Integration tests of ferrosuite-bytecode against real class files: the Java fixtures
//! (compiled with `javac` at test time), the running JDK's modules and, when installed, the
//! Debian subject jars (set `FERROSUITE_REQUIRE_SUBJECTS=1` to fail instead of skipping when they
//! are missing, as CI does).

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::float_cmp,
    clippy::naive_bytecount,
    clippy::items_after_statements,
    clippy::doc_markdown,
    missing_docs
)]

mod clock;
mod errors;
mod hierarchy;
mod instrument;
mod java;
mod mutation;
mod record;
mod roundtrip;
mod sandbox_rewrite;
mod sandbox_runs;
mod subjects;
mod widening;
