//! Errors of the emit crate.

/// Result type of this crate.
pub type Result<T> = std::result::Result<T, Error>;

/// What can stop a test class from being written.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A test is malformed (a reference to a later value, a broken descriptor): the message
    /// names the test and the statement.
    #[error("test {test} cannot be written: {detail}")]
    Test {
        /// Index of the test in the suite.
        test: usize,
        /// What is wrong.
        detail: String,
    },
    /// The class under test has a name no Java source can refer to (an anonymous or local
    /// class) or the configured test class name is not a Java identifier.
    #[error("invalid name: {0}")]
    Name(String),
    /// The JDK's signatures for the target release (`lib/ct.sym`) cannot be read.
    #[error("JDK signatures: {0}")]
    Types(String),
}
