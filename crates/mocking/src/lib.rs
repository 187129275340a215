//! Functional mocking and private access (PAFM: Arcuri, Fraser and Just, "Private API Access
//! and Functional Mocking in Automated Unit Test Generation", ICST 2017, sections III–IV):
//! when the search may use a Mockito mock instead of a real object, and which types it may
//! mock.
//!
//! # When to mock
//!
//! A value of a type the test cluster cannot build (an interface or an abstract class with no
//! usable implementation or factory on the class path) is always a mock. Any other mockable
//! type is mocked with probability `P_FM` ([`Config::mock_probability`], 0.8) once `S_FM`
//! ([`Config::mock_start`], 50 %) of the search budget is spent: real objects first, mocks
//! for what they could not reach (the paper's best configuration). A type is mockable when
//! tests can name it, it is not `final`, and it is not one of the JDK's value types
//! ([`never_mocked`]: strings, boxes, `Object`, collections and maps, for which real ones
//! serve better) or a class the VM needs constructed (class loaders and threads: a mock loader
//! given to `Class.forName` aborts the JVM).
//!
//! ```
//! use ferrosuite_mocking::{Config, never_mocked};
//! let c = Config::default();
//! assert!(!c.may_mock_optionally(0.3) && c.may_mock_optionally(0.6));
//! assert!(never_mocked("java/util/List") && !never_mocked("com/google/common/base/Ticker"));
//! ```
//!
//! # Stubs follow the calls
//!
//! A mock statement ([`Statement::Mock`](ferrosuite_testcase::Statement::Mock)) holds, per
//! method the test's last run called, up to five answers (earlier values of the test, so the
//! search mutates them as it mutates any value). The worker counts the calls of every mock
//! ([`MockCalls`](ferrosuite_testcase::statement::MockCalls)); the search then gives methods
//! called for the first time their answers, takes them from methods no longer called and
//! resizes the lists to the call counts. Emitted tests stub exactly those methods and abort
//! (as an assumption failure) on any other call.

mod error;

use serde::{Deserialize, Serialize};

pub use error::{Error, Result};

/// When the search mocks (the `P_FM` and `S_FM` of the paper). Private access (`P_PA`, `S_PA`) is
/// configured here too.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Config {
    /// Whether the search may use mocks at all (`--no-mocks` turns it off; it is off when no
    /// Mockito is found).
    pub mocks: bool,
    /// `P_FM`: the probability of a mock for a value of a mockable type that real objects could
    /// give too, once [`mock_start`](Self::mock_start) of the budget is spent (paper: 0.8).
    pub mock_probability: f64,
    /// `S_FM`: the share of the budget after which optional mocks are used (paper: 0.5).
    pub mock_start: f64,
    /// Whether the search may call private methods and write private fields by reflection
    /// (`--no-private-access`).
    pub private_access: bool,
    /// `P_PA`: the probability of a private call or field write in a CUT call insertion, once
    /// [`private_start`](Self::private_start) of the budget is spent (paper: 0.5).
    pub private_probability: f64,
    /// `S_PA`: the share of the budget after which private access is used (paper: 0.8).
    pub private_start: f64,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            mocks: true,
            mock_probability: 0.8,
            mock_start: 0.5,
            private_access: true,
            private_probability: 0.5,
            private_start: 0.8,
        }
    }
}

impl Config {
    /// Neither mocks nor private access.
    #[must_use]
    pub fn off() -> Self {
        Config {
            mocks: false,
            private_access: false,
            ..Config::default()
        }
    }

    /// Checks that probabilities and shares are in \[0, 1\].
    pub fn validate(&self) -> Result<()> {
        for (name, v) in [
            ("mock_probability", self.mock_probability),
            ("mock_start", self.mock_start),
            ("private_probability", self.private_probability),
            ("private_start", self.private_start),
        ] {
            if !(0.0..=1.0).contains(&v) {
                return Err(Error::Config(format!("{name} = {v} is not in [0, 1]")));
            }
        }
        Ok(())
    }

    /// Whether a mock may replace a value real objects could give, at this share of the
    /// budget spent.
    #[must_use]
    pub fn may_mock_optionally(&self, progress: f64) -> bool {
        self.mocks && self.mock_probability > 0.0 && progress >= self.mock_start
    }
}

/// JDK types the search never mocks: values (strings, boxes, `Object`, classes, enums) and
/// collections, maps and the like, for which a real one serves better (internal names).
const NEVER_MOCKED: &[&str] = &[
    "java/lang/Object",
    "java/lang/String",
    "java/lang/CharSequence",
    "java/lang/Number",
    "java/lang/Enum",
    "java/lang/Class",
    "java/lang/Comparable",
    "java/lang/Iterable",
    "java/lang/Throwable",
    "java/lang/Exception",
    "java/lang/RuntimeException",
    "java/lang/Error",
    "java/lang/StringBuilder",
    "java/lang/StringBuffer",
    "java/lang/Appendable",
    "java/math/BigInteger",
    "java/math/BigDecimal",
    "java/util/Collection",
    "java/util/List",
    "java/util/Set",
    "java/util/SortedSet",
    "java/util/NavigableSet",
    "java/util/Queue",
    "java/util/Deque",
    "java/util/Map",
    "java/util/SortedMap",
    "java/util/NavigableMap",
    "java/util/Iterator",
    "java/util/ListIterator",
    "java/util/Optional",
    "java/util/Locale",
    "java/util/Random",
];

/// JDK classes whose constructor registers the object with the virtual machine. A mock skips
/// the constructor, and the VM trusts what it would have set: `Class.forName(name, true,
/// mock(ClassLoader.class))` fails the JVM's guarantee that every loader has an unnamed
/// module and aborts it, a worker in the search and the whole test run under Maven.
const VM_BOUND: &[&str] = &[
    "java/lang/ClassLoader",
    "java/security/SecureClassLoader",
    "java/net/URLClassLoader",
    "java/lang/Thread",
    "java/lang/ThreadGroup",
];

/// Whether a mock of this class (an internal name) could abort the JVM: one of [`VM_BOUND`],
/// the class loaders and threads the VM needs constructed. Nothing mocks these, neither the
/// search nor carving.
#[must_use]
pub fn vm_bound(class: &str) -> bool {
    VM_BOUND.contains(&class)
}

/// Whether the search never mocks this type (an internal name): the JDK's value and collection
/// types ([`NEVER_MOCKED`]), boxed primitives, every `java.util` collection or map class, and
/// the classes the VM needs constructed ([`VM_BOUND`]: class loaders, threads).
#[must_use]
pub fn never_mocked(class: &str) -> bool {
    const BOXES: &[&str] = &[
        "Boolean",
        "Byte",
        "Character",
        "Short",
        "Integer",
        "Long",
        "Float",
        "Double",
        "Void",
    ];
    if NEVER_MOCKED.contains(&class) || vm_bound(class) {
        return true;
    }
    if let Some(simple) = class.strip_prefix("java/lang/") {
        return BOXES.contains(&simple);
    }
    if let Some(simple) = class.strip_prefix("java/util/") {
        let collection = ["List", "Set", "Map", "Queue", "Deque", "Collection"]
            .iter()
            .any(|k| simple.ends_with(k));
        return !simple.contains('/') && collection;
    }
    false
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_the_papers_best_configuration() {
        let c = Config::default();
        assert_eq!(
            (
                c.mock_probability,
                c.mock_start,
                c.private_probability,
                c.private_start
            ),
            (0.8, 0.5, 0.5, 0.8)
        );
        assert!(c.validate().is_ok());
        let bad = Config {
            mock_start: 1.5,
            ..Config::default()
        };
        assert!(
            bad.validate()
                .unwrap_err()
                .to_string()
                .contains("mock_start")
        );
        assert!(!Config::off().may_mock_optionally(1.0));
    }

    #[test]
    fn jdk_values_and_collections_are_never_mocked() {
        for c in [
            "java/lang/Integer",
            "java/util/ArrayList",
            "java/util/HashMap",
            "java/lang/Object",
            "java/lang/ClassLoader",
            "java/net/URLClassLoader",
            "java/lang/Thread",
        ] {
            assert!(never_mocked(c), "{c}");
        }
        assert!(vm_bound("java/lang/ClassLoader") && !vm_bound("java/lang/Runnable"));
        for c in [
            "java/lang/Runnable",
            "java/lang/reflect/Type",
            "java/util/concurrent/Executor",
            "org/joda/time/format/DateTimePrinter",
        ] {
            assert!(!never_mocked(c), "{c}");
        }
    }
}
