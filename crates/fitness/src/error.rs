//! Errors of the fitness crate.
//!
//! Building a goal set matches the analysis of each class under test with the probe map of its
//! instrumentation; every error names the class, the method (`Class.name(desc)`) and, for
//! branches, the bytecode offset where the two disagree.

/// Result type of this crate.
pub type Result<T> = std::result::Result<T, Error>;

/// What can go wrong while building goals.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// Reading a class file (its `Exceptions` attributes) failed.
    #[error(transparent)]
    Bytecode(#[from] ferrosuite_bytecode::Error),
    /// The class was not instrumented: the probe map has no entry for it.
    #[error("class {class} is not in the probe map (was it instrumented?)")]
    NotInstrumented {
        /// Class name (binary name with dots).
        class: String,
    },
    /// The same class was added twice to one goal set.
    #[error("class {class} was added to the goal set twice")]
    DuplicateClass {
        /// Class name (binary name with dots).
        class: String,
    },
    /// The class file given for its declared exceptions is another class than the analysis.
    #[error("class file {file} does not belong to the analysis of {class}")]
    WrongClassFile {
        /// Class of the analysis.
        class: String,
        /// Class of the file.
        file: String,
    },
    /// The analysis and the probe map disagree about a method's branches: the class file
    /// analysed is not the one instrumented, or the two crates number branches differently.
    #[error("{method}: analysis and probe map disagree at offset {offset}: {detail}")]
    ProbeMismatch {
        /// `Class.name(desc)`.
        method: String,
        /// Bytecode offset of the jump or switch.
        offset: u32,
        /// What differs.
        detail: String,
    },
    /// A criterion name that is not known (the message lists the known ones).
    #[error("unknown coverage criterion {0}")]
    UnknownCriterion(String),
    /// A criterion cannot be registered (its name is taken).
    #[error("{0}")]
    Criterion(String),
}
