//! The probe runtime of ferrosuite: the Java classes that instrumented code calls (probe
//! arrays and distances, the class loader that asks the host for bytes, the sandbox's guards,
//! the shifted or virtual clock and the seeded randomness of the controlled environment, the
//! mocks), in package `org.ferrosuite.rt`.
//!
//! The sources are in `java/`; the build script compiles them with `javac --release 8` (so this
//! crate, unlike `ferrosuite-bytecode`, needs a JDK to build: `JAVA_HOME`, else `javac` on
//! `PATH`) and embeds the class files. The execution host defines them in its JVM before any
//! class under test; offline instrumentation writes them beside the instrumented classes.
//!
//! ```
//! let probe = ferrosuite_runtime::CLASSES
//!     .iter()
//!     .find(|(name, _)| *name == "org/ferrosuite/rt/Probe")
//!     .map(|(_, bytes)| bytes);
//! assert!(probe.is_some_and(|b| b.starts_with(&[0xca, 0xfe, 0xba, 0xbe])));
//! ```

include!(concat!(env!("OUT_DIR"), "/runtime_classes.rs"));
