//! Errors of the execution host. Each is one line that names what failed: the JDK, the JVM
//! option, the class-path entry, the worker.

use std::path::PathBuf;

/// Result type of this crate.
pub type Result<T> = std::result::Result<T, Error>;

/// What can go wrong while starting or talking to workers.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// Reading, instrumenting or sandboxing classes failed.
    #[error(transparent)]
    Bytecode(#[from] ferrosuite_bytecode::Error),
    /// No JDK: neither `JAVA_HOME` nor `java` on `PATH` leads to a `libjvm`.
    #[error("no JDK found: {0}")]
    NoJdk(String),
    /// A class-path entry that does not exist or cannot be read.
    #[error("class path entry {}: {detail}", path.display())]
    ClassPathEntry {
        /// The entry.
        path: PathBuf,
        /// What is wrong.
        detail: String,
    },
    /// The worker program cannot be found or started.
    #[error("cannot start the worker {}: {detail}", program.display())]
    WorkerStart {
        /// The worker executable.
        program: PathBuf,
        /// Why.
        detail: String,
    },
    /// The embedded JVM did not start (bad options, broken JDK).
    #[error("the JVM failed to start: {0}")]
    JvmStart(String),
    /// The worker broke the protocol or died during set-up.
    #[error("worker {worker}: {detail}")]
    Worker {
        /// Worker index in the pool.
        worker: usize,
        /// What happened.
        detail: String,
    },
    /// Encoding or decoding a protocol message failed.
    #[error("protocol: {0}")]
    Protocol(String),
    /// The host's stream thread failed; its workers are gone.
    #[error("the host's stream thread stopped unexpectedly; its workers are gone")]
    StreamThread,
    /// An I/O error on a pipe or a temporary directory.
    #[error("{context}: {source}")]
    Io {
        /// What was being done.
        context: String,
        /// The error.
        #[source]
        source: std::io::Error,
    },
}

impl Error {
    /// An I/O error with context.
    pub(crate) fn io(context: impl Into<String>) -> impl FnOnce(std::io::Error) -> Error {
        let context = context.into();
        move |source| Error::Io { context, source }
    }
}

impl From<Error> for ferrosuite_executor::Error {
    fn from(e: Error) -> Self {
        ferrosuite_executor::Error::failed(e)
    }
}
