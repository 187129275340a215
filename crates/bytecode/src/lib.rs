//! Read, write and instrument Java class files.
//!
//! This crate is the foundation of ferrosuite: an owned model of class files
//! ([`ClassFile`], [`constant_pool`], [`attributes`], [`stackmap`]) with a reader and a writer that
//! round-trip byte-identically, an instruction codec ([`insn`]), class paths over directories,
//! jars, jmods and the JDK's runtime image ([`classpath`]), class hierarchy queries
//! ([`hierarchy`]), and an instrumentation engine with ferrosuite's probe catalogue
//! ([`instrument`]).
//!
//! ```no_run
//! use ferrosuite_bytecode::ClassFile;
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let bytes = std::fs::read("Example.class")?;
//! let class = ClassFile::parse_named(&bytes, "Example.class")?;
//! assert_eq!(class.to_bytes()?, bytes); // byte-identical round trip
//! # Ok(()) }
//! ```

pub mod attributes;
pub mod bytes;
pub mod check;
pub mod classfile;
pub mod classpath;
pub mod constant_pool;
pub mod descriptor;
pub mod error;
pub mod hierarchy;
pub mod insn;
pub mod instrument;
pub mod jdk;
pub mod mutf8;
pub mod opcodes;
pub mod stackmap;

pub use classfile::{ClassFile, ClassHeader, Member, access};
pub use error::{Error, Result};
