//! Integration tests of the test model, the test cluster and constant harvesting.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::missing_panics_doc
)]

mod cluster;
mod constants;
mod model;
