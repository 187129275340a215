//! Instrumentation: the [`editor`] that rewrites code, the [`probes`] catalogue built on it,
//! the [`map`] that says what each probe id means, the [`sandbox`] that guards calls which would exit the JVM, change files, start processes or use
//! the network, the [`clock`] shift that moves the time code under test reads, the
//! controlled [`environment`]: a virtual clock and seeded [`random`]ness, and the
//! [`mutation`] schemata that compile every mutant of a class into it.
//!
//! ```no_run
//! use ferrosuite_bytecode::ClassFile;
//! use ferrosuite_bytecode::instrument::probes::{Instrumenter, ProbeConfig};
//! # fn main() -> ferrosuite_bytecode::Result<()> {
//! let original = ClassFile::parse(&std::fs::read("Stack.class").unwrap())?;
//! let mut inst = Instrumenter::new(ProbeConfig::default());
//! let instrumented = inst.instrument(&original)?;
//! std::fs::write("out/Stack.class", instrumented.to_bytes()?).unwrap();
//! let map = inst.into_map(); // branch slots, lines, methods, loops
//! # Ok(()) }
//! ```

pub mod classes;
pub mod clock;
pub mod data;
pub mod editor;
pub mod environment;
pub mod files;
pub mod map;
pub mod mutation;
pub mod observe;
pub mod offline;
pub mod probes;
pub mod random;
pub mod record;
pub mod redirect;
pub mod sandbox;
pub mod system;
pub mod threads;

use crate::constant_pool::ConstantPool;
use crate::descriptor::{FieldType, MethodDescriptor};
use crate::error::Result;
use crate::stackmap::{FrameState, VType};

/// Package (internal form) of the probe runtime classes (Java sources and their compiled
/// classes: the `ferrosuite-runtime` crate, which needs a JDK to build; this crate only names them).
pub const RUNTIME_PACKAGE: &str = "org/ferrosuite/rt";

/// Name of the static-reset method added to instrumented classes.
pub const RESET_METHOD: &str = "__ferrosuite_reset";

/// The implicit initial stack-map frame of a method (JVMS 4.10.1.6): `this` (or
/// `uninitializedThis` in constructors) and the parameters. Adds `Class` constants for reference
/// parameters when the pool lacks them.
pub fn initial_frame(
    cp: &mut ConstantPool,
    class: &str,
    name: &str,
    desc: &str,
    is_static: bool,
) -> Result<FrameState> {
    let d = MethodDescriptor::parse(desc)?;
    let mut locals = Vec::with_capacity(d.params.len() + 1);
    if !is_static {
        if name == "<init>" && class != "java/lang/Object" {
            locals.push(VType::UninitializedThis);
        } else {
            locals.push(VType::Object(cp.add_class(class)?));
        }
    }
    for p in &d.params {
        locals.push(match p {
            FieldType::Boolean
            | FieldType::Byte
            | FieldType::Char
            | FieldType::Short
            | FieldType::Int => VType::Integer,
            FieldType::Float => VType::Float,
            FieldType::Long => VType::Long,
            FieldType::Double => VType::Double,
            FieldType::Object(n) => VType::Object(cp.add_class(n)?),
            FieldType::Array(_) => VType::Object(cp.add_class(&p.to_string())?),
        });
    }
    Ok(FrameState {
        locals,
        stack: Vec::new(),
    })
}
