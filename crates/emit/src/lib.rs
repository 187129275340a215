//! JUnit 5/4 source for generated tests.
//!
//! The search hands over minimised tests and their final runs; this crate writes what users
//! receive:
//!
//! - [`assertions`]: regression assertions from the host's observations (return values,
//!   null-ness, inspector results, array lengths), kept few and only where stable across
//!   reruns;
//! - [`names`]: readable variable and test names, numbered only on clashes;
//! - [`source`]: the test class — statements as Java, expected exceptions (`assertThrows` in
//!   JUnit 5, `try`/`fail`/`catch` in JUnit 4), literals escaped, casts where overloads or
//!   declared types require them, minimal imports;
//! - [`types`]: what the source needs to know about classes (accessibility, superclasses,
//!   inspector return types), answered from the class path.
//!
//! Emission never decides *what* to test (that is the search's job) and never runs Java:
//! validation with `javac` and JUnit is the caller's step.
//!
//! ```
//! use ferrosuite_emit::{Config, EmitTest, Permissive, emit_class};
//! use ferrosuite_testcase::{Prim, Statement, Test, VarRef};
//! let test = Test::new(vec![
//!     Statement::constructor("examples/Stack", "()V", vec![]),
//!     Statement::Primitive(Prim::Int(3)),
//!     Statement::method("examples/Stack", "push", "(I)V", Some(VarRef(0)), vec![VarRef(1)]),
//! ]);
//! let t = EmitTest { test, assertions: vec![], expected: None, raw_types: false, message: None };
//! let class = emit_class("examples/Stack", &[t], &Config::default(), &Permissive)?;
//! assert_eq!(class.path, std::path::Path::new("examples/StackTest.java"));
//! assert!(class.source.contains("        Stack stack = new Stack();\n        stack.push(3);\n"));
//! assert_eq!(class.test_names, ["push"]);
//! # Ok::<(), ferrosuite_emit::Error>(())
//! ```

pub mod assertions;
pub mod error;
pub mod names;
pub mod source;
pub mod types;

pub use assertions::{Assertion, Check, Limits};
pub use error::{Error, Result};
pub use source::{
    Config, EmitTest, EmittedClass, GenericClass, JUnit, MARKER, Permissive, TypeInfo, emit_class,
    generic_of, unwritten_assertions,
};
pub use types::ClassPathTypes;
