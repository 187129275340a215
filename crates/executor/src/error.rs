//! Errors an executor reports: its own error, boxed, so that search and fitness need not know
//! which executor (a JVM host, a recorded replay, a test double) ran the tests.

/// Result type of executors.
pub type Result<T> = std::result::Result<T, Error>;

/// What can go wrong while running tests.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The executor failed; its error names what (a JDK, a worker, a class-path entry).
    #[error(transparent)]
    Failed(Box<dyn std::error::Error + Send + Sync>),
    /// The executor broke its contract (results for tests it was not given, a chunk lost).
    #[error("executor: {0}")]
    Contract(String),
}

impl Error {
    /// Wraps an executor's own error.
    pub fn failed(e: impl std::error::Error + Send + Sync + 'static) -> Self {
        Error::Failed(Box::new(e))
    }
}
