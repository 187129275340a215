//! Errors of the bytecode crate.
//!
//! Every parse error carries the byte offset in the class file where it was detected and what was
//! being read; errors found while reading a named class or file are wrapped in [`Error::In`] so the
//! message names the class (or file, or jar entry) too.

use std::path::PathBuf;

/// Result type of this crate.
pub type Result<T> = std::result::Result<T, Error>;

/// Everything that can go wrong while reading, writing or instrumenting class files.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The input ended before a complete structure was read.
    #[error(
        "truncated input at byte offset {offset} while reading {what} (needed {needed} more bytes)"
    )]
    Truncated {
        /// Byte offset where the read started.
        offset: usize,
        /// How many more bytes were needed.
        needed: usize,
        /// What was being read.
        what: &'static str,
    },
    /// The file does not start with `0xCAFEBABE`.
    #[error("not a class file: magic is 0x{found:08X} at byte offset 0 (expected 0xCAFEBABE)")]
    BadMagic {
        /// The four bytes found.
        found: u32,
    },
    /// A class-file version this crate does not accept.
    #[error("unsupported class file version {major}.{minor} (supported: 45.0 to {max}.65535)")]
    UnsupportedVersion {
        /// Major version.
        major: u16,
        /// Minor version.
        minor: u16,
        /// Highest supported major version.
        max: u16,
    },
    /// An unknown constant-pool tag.
    #[error("invalid constant pool tag {tag} for entry #{index} at byte offset {offset}")]
    BadConstantTag {
        /// The tag byte.
        tag: u8,
        /// Constant-pool index of the entry.
        index: u16,
        /// Byte offset of the tag.
        offset: usize,
    },
    /// A constant-pool reference that is out of range or of the wrong kind.
    #[error("constant pool index #{index} is {problem} (expected {expected})")]
    BadConstantRef {
        /// The index.
        index: u16,
        /// What kind of entry was expected.
        expected: &'static str,
        /// What is wrong with it.
        problem: &'static str,
    },
    /// A structure whose content is invalid (e.g. a reserved stack-map frame type).
    #[error("malformed {what} at byte offset {offset}: {detail}")]
    Malformed {
        /// What was being read.
        what: &'static str,
        /// Byte offset in the input.
        offset: usize,
        /// Explanation.
        detail: String,
    },
    /// Bytes left over after the class file's last structure.
    #[error("{count} unexpected trailing bytes after the class file ends at byte offset {offset}")]
    TrailingBytes {
        /// Offset of the first extra byte.
        offset: usize,
        /// How many bytes follow.
        count: usize,
    },
    /// An invalid or truncated instruction.
    #[error("invalid bytecode at code offset {offset}: {detail}")]
    BadInstruction {
        /// Offset in the method's code array.
        offset: u32,
        /// Explanation.
        detail: String,
    },
    /// A malformed field or method descriptor or signature.
    #[error("malformed descriptor {descriptor:?}: {detail}")]
    BadDescriptor {
        /// The descriptor text.
        descriptor: String,
        /// Explanation.
        detail: &'static str,
    },
    /// Rewritten code would break a class-file limit (code length, offsets, frames).
    #[error("cannot rewrite code: {0}")]
    Rewrite(String),
    /// A requested class is not on the class path.
    #[error("class {0} not found on the class path")]
    ClassNotFound(String),
    /// An output directory that holds files, where replacing them was not asked for: the
    /// user's files are never replaced silently.
    #[error("output directory {} is not empty", .0.display())]
    OutputNotEmpty(PathBuf),
    /// A directory named as a JDK that is none (no `bin/javac`, no `release` version).
    #[error("{} is not a JDK: {detail}", home.display())]
    NotAJdk {
        /// The directory.
        home: PathBuf,
        /// What is missing.
        detail: String,
    },
    /// The JDK named explicitly cannot load the class files.
    #[error(
        "class files of version {major} need Java {needed} or newer; the JDK at {} is Java {feature}",
        home.display()
    )]
    JdkTooOld {
        /// The JDK's home.
        home: PathBuf,
        /// Its feature version.
        feature: u16,
        /// The class-file major version.
        major: u16,
        /// The feature version needed.
        needed: u16,
    },
    /// No JDK on the machine loads the class files.
    #[error(
        "class files of version {major} need Java {needed} or newer, and {found}: install a JDK {needed} or newer, or set JAVA_HOME to one"
    )]
    NoJdkFor {
        /// The class-file major version.
        major: u16,
        /// The feature version needed.
        needed: u16,
        /// The JDKs found and where they were looked for.
        found: String,
    },
    /// A class-path entry that is neither a directory, a jar/zip, a jmod nor a JDK image.
    #[error("bad class path entry {path}: {detail}")]
    BadClassPathEntry {
        /// The entry.
        path: PathBuf,
        /// Explanation.
        detail: String,
    },
    /// An I/O error on a named file. (Messages are self-contained: the underlying error is part
    /// of the text, not a separate `source()`, so error chains do not repeat it.)
    #[error("{}: {error}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The underlying error.
        error: std::io::Error,
    },
    /// A zip (jar/jmod) error on a named archive.
    #[error("{}: {error}", path.display())]
    Zip {
        /// The archive.
        path: PathBuf,
        /// The underlying error.
        error: zip::result::ZipError,
    },
    /// An error that occurred while handling a named class, method or file.
    #[error("{origin}: {inner}")]
    In {
        /// Class name, `class.method(desc)`, or file path.
        origin: String,
        /// The error.
        inner: Box<Error>,
    },
}

impl Error {
    /// Wraps this error with the name of the class, method or file it happened in.
    #[must_use]
    pub fn context(self, origin: impl Into<String>) -> Self {
        Error::In {
            origin: origin.into(),
            inner: Box::new(self),
        }
    }
}

/// Turns an I/O error into [`Error::Io`] naming `path` (for `map_err`).
pub fn io_at(path: &std::path::Path) -> impl FnOnce(std::io::Error) -> Error + '_ {
    move |error| Error::Io {
        path: path.to_path_buf(),
        error,
    }
}

/// Adds context to results.
pub trait ResultExt<T> {
    /// Wraps an error with the name of the class, method or file it happened in.
    fn context_with(self, origin: impl FnOnce() -> String) -> Result<T>;
}

impl<T> ResultExt<T> for Result<T> {
    fn context_with(self, origin: impl FnOnce() -> String) -> Result<T> {
        self.map_err(|e| e.context(origin()))
    }
}
