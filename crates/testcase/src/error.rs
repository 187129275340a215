//! Errors of the test-model crate. Each names the statement (by index) or the class and member
//! it concerns.

/// Result type of this crate.
pub type Result<T> = std::result::Result<T, Error>;

/// What can go wrong with tests and the test cluster.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// Reading or decoding a class failed (the message names the class or file).
    #[error(transparent)]
    Bytecode(#[from] ferrosuite_bytecode::Error),
    /// A test that breaks the model's rules (a reference to a later or void value, a wrong
    /// number of arguments, a type mismatch).
    #[error("statement {index} ({statement}): {problem}")]
    IllFormed {
        /// Index of the offending statement.
        index: usize,
        /// The statement, rendered as Java-like text.
        statement: String,
        /// What is wrong.
        problem: String,
    },
    /// The class under test is not on the class path.
    #[error("class {0} not found on the class path")]
    ClassNotFound(String),
    /// A generic `Signature` attribute that does not follow JVMS 4.7.9.1 (the test cluster
    /// then falls back to the member's descriptor).
    #[error("malformed generic signature {signature:?} of {member} in {class}: {detail}")]
    BadSignature {
        /// Class name (internal name).
        class: String,
        /// The member (`method m(I)V`, `field f`, or `class` for the class's own signature).
        member: String,
        /// The signature text.
        signature: String,
        /// What is wrong, with the position.
        detail: String,
    },
    /// The class under test cannot be tested as asked (an annotation, a module descriptor, …).
    #[error("class {class} cannot be tested: {why}")]
    Untestable {
        /// Class name (binary name with dots).
        class: String,
        /// Why.
        why: String,
    },
}
