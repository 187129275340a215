//! Errors of the carving crate.

use std::path::PathBuf;

/// Result type of this crate.
pub type Result<T> = std::result::Result<T, Error>;

/// What can go wrong when recording a run or reading a trace store.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A recorded frame is malformed (`offset` is the byte offset within the frame).
    #[error("trace record malformed at byte {offset}: {detail}")]
    Wire {
        /// Byte offset within the record.
        offset: usize,
        /// What is wrong.
        detail: String,
    },
    /// The trace store cannot be opened, read or written.
    #[error("trace store {path}: {detail}")]
    Store {
        /// The store's file.
        path: PathBuf,
        /// What went wrong.
        detail: String,
    },
    /// The command to record, or a tool carving needs, is unusable (the message says why).
    #[error("{0}")]
    Command(String),
    /// An I/O error (the message names the file or the connection).
    #[error("{what}: {source}")]
    Io {
        /// What was being done.
        what: String,
        /// The cause.
        source: std::io::Error,
    },
    /// Instrumentation of a class failed.
    #[error(transparent)]
    Bytecode(#[from] ferrosuite_bytecode::Error),
}

impl Error {
    pub(crate) fn io(what: impl Into<String>) -> impl FnOnce(std::io::Error) -> Error {
        let what = what.into();
        move |source| Error::Io { what, source }
    }
}
