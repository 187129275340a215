//! Errors of the class-integration crate.

/// Result type of this crate.
pub type Result<T> = std::result::Result<T, Error>;

/// What can go wrong when planning the integration tests of a pair.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The analysis of a class or of the pair failed (the message names the class).
    #[error(transparent)]
    Analysis(#[from] ferrosuite_cfg::Error),
    /// The pair has nothing to test (the message says why).
    #[error("{caller} -> {callee}: {problem}")]
    Pair {
        /// The caller (binary name).
        caller: String,
        /// The callee (binary name).
        callee: String,
        /// What is wrong.
        problem: String,
    },
}
