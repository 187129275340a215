//! Errors of the generate crate.

/// Result type of this crate.
pub type Result<T> = std::result::Result<T, Error>;

/// Why no test class could be produced for a class under test.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The class under test cannot be read or analysed (missing, broken class file).
    #[error("{class}: {detail}")]
    Class {
        /// The class (binary name).
        class: String,
        /// What is wrong.
        detail: String,
    },
    /// Nothing of the class can be called from a test (an interface or annotation without
    /// static methods, no accessible constructor, factory or static member).
    #[error("{class}: nothing to test: {detail}")]
    NothingToTest {
        /// The class (binary name).
        class: String,
        /// Why.
        detail: String,
    },
    /// The execution host failed (no JDK, a JVM that does not start, broken pipes).
    #[error(transparent)]
    Exec(#[from] ferrosuite_exec::Error),
    /// The search failed.
    #[error(transparent)]
    Search(#[from] ferrosuite_search::Error),
    /// Emission failed.
    #[error(transparent)]
    Emit(#[from] ferrosuite_emit::Error),
    /// A test file exists where one would be written, and replacing files was not asked for:
    /// the user's files are never replaced silently.
    #[error("{} exists", .0.display())]
    Exists(std::path::PathBuf),
    /// `javac` or `java` could not be run, or a file could not be written.
    #[error("{0}")]
    Tool(String),
}
