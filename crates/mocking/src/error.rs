//! Errors of the mocking crate.

/// What can go wrong.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A parameter of [`Config`](crate::Config) is out of range (the message names it).
    #[error("invalid mocking configuration: {0}")]
    Config(String),
}

/// The crate's result type.
pub type Result<T> = std::result::Result<T, Error>;
