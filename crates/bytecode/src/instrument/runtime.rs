//! The probe runtime: Java classes (sources in `crates/bytecode/runtime/`) compiled with
//! `javac --release 8` by the build script and embedded here, so that offline-instrumented
//! classes can be run with the runtime written next to them, and the execution host can define
//! them in its JVM.

include!(concat!(env!("OUT_DIR"), "/runtime_classes.rs"));
