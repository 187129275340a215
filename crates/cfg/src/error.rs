//! Errors of the analysis crate.
//!
//! Every error names what it concerns: the class, the method (`Class.name(desc)`) and, for
//! malformed code, the bytecode offset.

/// Result type of this crate.
pub type Result<T> = std::result::Result<T, Error>;

/// What can go wrong while analysing classes.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// Reading or decoding a class failed (the message names the class or file).
    #[error(transparent)]
    Bytecode(#[from] ferrosuite_bytecode::Error),
    /// Code whose control flow cannot be built (a jump into the middle of an instruction,
    /// execution falling off the end of the code, a handler range outside the code, …).
    #[error("{method}: malformed code at offset {offset}: {problem}")]
    MalformedCode {
        /// `Class.name(desc)`.
        method: String,
        /// Bytecode offset of the offending instruction or exception-table entry.
        offset: u32,
        /// What is wrong.
        problem: String,
    },
    /// The class exists but no method of it has code (an interface without default methods,
    /// an annotation, a class of abstract or native methods only).
    #[error("class {class} has no method with code to analyse ({why})")]
    NoCode {
        /// Class name (binary name with dots).
        class: String,
        /// What the class is.
        why: String,
    },
    /// A method asked for by name that the class does not declare.
    #[error("class {class} declares no method {method}")]
    MethodNotFound {
        /// Class name.
        class: String,
        /// The requested method (name, or name and descriptor).
        method: String,
    },
    /// A caller/callee pair that cannot be analysed (same class, no call sites possible).
    #[error("pair {caller} -> {callee}: {problem}")]
    BadPair {
        /// Caller class.
        caller: String,
        /// Callee class.
        callee: String,
        /// What is wrong.
        problem: String,
    },
}
