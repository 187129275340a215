#!/usr/bin/env bash
# The whole test suite: formatting, clippy, every crate's tests (the Debian subject jars are
# required), the JVM-free crates built with no JDK, the semantics check of the instrumentation
# on real libraries, and the end-to-end check of `ferrosuite generate` (emitted tests compiled,
# run with JUnit 5 and 4, JaCoCo coverage).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
scripts/deps.sh
export FERROSUITE_REQUIRE_SUBJECTS=1
# Tests of crates other than exec find the worker binary of the same build (fail, not skip).
export FERROSUITE_REQUIRE_WORKER=1
cargo fmt --all -- --check
cargo clippy --workspace --all-targets -q -- -D warnings
cargo test --workspace --all-targets -q
cargo test --workspace --doc -q
scripts/no-jdk-build.sh
scripts/semantics.sh
scripts/e2e.sh
scripts/maven-e2e.sh
