//! Errors of the MIO crate.

/// Result type of this crate.
pub type Result<T> = std::result::Result<T, Error>;

/// What can be wrong with MIO's settings.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A parameter of [`MioConfig`](crate::MioConfig) is out of range (the message names it).
    #[error("invalid MIO configuration: {0}")]
    Config(String),
}
