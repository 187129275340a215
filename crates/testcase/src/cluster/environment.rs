//! Environment statements (the environment paper's rule, section 3.3): calls of the runtime
//! class `org.ferrosuite.rt.Environment` that set up what the code under test reads — a file
//! with some content, a directory, a file it may not read or write, console input, the time,
//! the random seed. Each is tied to a [`Resource`]; the search offers it only once a test's
//! code used that resource, so classes that never touch a file get no file statements.
//!
//! They are ordinary static-method operations: generated, mutated, minimised and emitted like
//! any other (`Environment.writeFile("config.txt", "debug");` in a test), and run by the
//! worker against the same virtual file system, console, clock and seeds the code reads.
//!
//! ```
//! use ferrosuite_testcase::cluster::environment::{Resource, operations};
//! let ops = operations();
//! assert!(ops.iter().any(|(r, op)| *r == Resource::Files && &*op.name == "writeFile"));
//! ```

use ferrosuite_bytecode::access;
use ferrosuite_bytecode::descriptor::MethodDescriptor;
use serde::{Deserialize, Serialize};

use super::{Operation, OperationKind, TypeUse};

/// Internal name of the runtime class whose static methods are the environment statements.
pub const ENVIRONMENT_CLASS: &str = "org/ferrosuite/rt/Environment";

/// What of the controlled environment a statement sets up.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Resource {
    /// The virtual file system.
    Files,
    /// Console input (`System.in`).
    Console,
    /// The virtual clock.
    Clock,
    /// Seeded randomness.
    Random,
}

/// The environment statements: (resource, static method of [`ENVIRONMENT_CLASS`]).
#[must_use]
pub fn operations() -> Vec<(Resource, Operation)> {
    let s = "Ljava/lang/String;";
    [
        (Resource::Files, "writeFile", format!("({s}{s})V")),
        (Resource::Files, "makeDirectory", format!("({s})V")),
        (Resource::Files, "makeUnreadable", format!("({s})V")),
        (Resource::Files, "makeReadOnly", format!("({s})V")),
        (Resource::Console, "consoleInput", format!("({s})V")),
        (Resource::Clock, "setTime", "(J)V".to_string()),
        (Resource::Random, "seedRandom", "(J)V".to_string()),
    ]
    .into_iter()
    .map(|(resource, name, descriptor)| {
        let params = MethodDescriptor::parse(&descriptor)
            .map(|d| d.params)
            .unwrap_or_default()
            .into_iter()
            .map(TypeUse::plain)
            .collect();
        (
            resource,
            Operation {
                kind: OperationKind::Method,
                class: ENVIRONMENT_CLASS.into(),
                declared_in: ENVIRONMENT_CLASS.into(),
                name: name.into(),
                descriptor: descriptor.as_str().into(),
                access: access::PUBLIC | access::STATIC,
                is_static: true,
                params,
                ret: None,
                type_params: Vec::new(),
            },
        )
    })
    .collect()
}

/// Whether a class is the environment statements' (its calls are set-up, not tests of it).
#[must_use]
pub fn is_environment_class(class: &str) -> bool {
    class == ENVIRONMENT_CLASS
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use ferrosuite_bytecode::descriptor::FieldType;

    #[test]
    fn every_operation_is_a_static_void_call_with_its_parameters() {
        let ops = operations();
        assert_eq!(ops.len(), 7);
        for (_, op) in &ops {
            let d = MethodDescriptor::parse(&op.descriptor).unwrap();
            assert_eq!(op.params.len(), d.params.len(), "{op:?}");
            assert!(op.is_static && op.ret.is_none());
        }
        assert_eq!(
            ops[0].1.params[0].ty,
            FieldType::Object("java/lang/String".into())
        );
    }
}
