//! Integration tests of emission: hand-made tests and results cover escaping, extreme values,
//! names and imports (golden files keep the emitted text under review: `BLESS=1 cargo test -p
//! ferrosuite-emit` rewrites them; the classes are compiled with `javac`), and the members a
//! target release offers. (Tests run on the real execution host and emitted are in the
//! `ferrosuite-generate` crate's tests, which may start a JVM: this crate does not depend on
//! one.)

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::missing_panics_doc
)]

mod common;
mod environment;
mod generics;
mod golden;
mod pafm;
mod release;
