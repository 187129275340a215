//! What one `generate` run reports for a class under test ([`Generated`], written into
//! `ferrosuite-report.json`) and what its mutation analysis found ([`MutationSummary`]).

use ferrosuite_emit::EmittedClass;
use ferrosuite_exec::HostStats;
use serde::{Deserialize, Serialize};

use crate::CoupledReport;

/// What generation produced for one class under test.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Generated {
    /// The class under test (binary name).
    pub cut: String,
    /// The test class; `None` when no test survived the checks.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub class: Option<EmittedClass>,
    /// Goals known at the end of the search, and covered by the minimised tests (by
    /// ferrosuite's probes).
    pub goals: usize,
    /// Goals covered.
    pub covered: usize,
    /// Branch goals.
    pub branches: usize,
    /// Branch goals covered.
    pub branches_covered: usize,
    /// Statements executed during the search.
    pub statements_executed: u64,
    /// Tests executed during the search.
    #[serde(default)]
    pub tests_executed: u64,
    /// The search's execution host (the search and its minimisation): tests that overran the
    /// time limit, crashed or retired their worker, and the workers started to replace them
    /// (each a JVM start, which is where a search whose tests keep killing workers loses its
    /// time).
    #[serde(default)]
    pub search_host: HostStats,
    /// Wall time of the search.
    pub search_seconds: f64,
    /// Wall time of everything.
    pub seconds: f64,
    /// Wall time of the mutation analysis (part of `seconds`).
    #[serde(default)]
    pub mutation_seconds: f64,
    /// Wall time of the validation: compiling and running the tests under JUnit (part of
    /// `seconds`).
    #[serde(default)]
    pub validation_seconds: f64,
    /// Tests after minimisation.
    pub tests_found: usize,
    /// Tests in the emitted class.
    pub tests_emitted: usize,
    /// Tests dropped because their run cannot become a JUnit test (a time-out, a crash, a
    /// sandbox refusal) or its outcome changed in a rerun.
    pub tests_unstable: usize,
    /// Assertions dropped because their value changed in a rerun.
    pub assertions_unstable: usize,
    /// Tests cut before an exception the class under test had no part in (the test's own
    /// call on `null` or cast, a JDK method the test called): what is left stays when it
    /// covers or kills something.
    #[serde(default)]
    pub tests_foreign_exception: usize,
    /// Emitted tests that use the library's internals: a class or member that is not public,
    /// or a private member by reflection (the search takes them only when nothing public
    /// covers the goal).
    #[serde(default)]
    pub tests_internal: usize,
    /// Tests left out because they use a class the test's package cannot name.
    pub tests_inaccessible: usize,
    /// Assertions left out because the test's source cannot write them: their expected value
    /// names a class the test's package cannot see, or they call an inspector the variable's
    /// declared type lacks (the tests stay).
    pub assertions_inaccessible: usize,
    /// Tests removed because they did not compile (with raw types either).
    pub tests_uncompilable: usize,
    /// Tests whose parameterised types did not compile, written with raw types instead.
    #[serde(default)]
    pub tests_raw_types: usize,
    /// Tests removed because they failed under JUnit.
    pub tests_failing: usize,
    /// Tests removed because JUnit skipped them (an assumption of a mock or private access
    /// failed in their own run).
    #[serde(default)]
    pub tests_skipped: usize,
    /// The Java version of the JDK that ran and validated the tests.
    #[serde(default)]
    pub java: u16,
    /// The `javac --release` the tests were emitted for.
    #[serde(default)]
    pub release: u16,
    /// The tests reproduce the controlled environment (the virtual clock and seeded
    /// randomness the code under test read in the search): they need
    /// [`RUNTIME_JAR`](crate::runtime_jar::RUNTIME_JAR) and Byte Buddy's agent on their class path.
    #[serde(default)]
    pub environment: bool,
    /// What mutation analysis found, when it chose the assertions
    /// ([`Config::mutation_assertions`](crate::Config::mutation_assertions)).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub mutation: Option<MutationSummary>,
    /// The coupled-branch coverage of the emitted tests, when the run had a pair
    /// ([`Config::coupling`](crate::Config::coupling)).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub coupled_branches: Option<CoupledReport>,
    /// Things worth telling the user.
    pub notes: Vec<String>,
}

/// Mutation analysis of one class's final tests (see [`mutation`](crate::mutation)).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct MutationSummary {
    /// Mutants of the class and its nested classes.
    pub mutants: usize,
    /// Mutants whose site some test reaches.
    pub reached: usize,
    /// Mutants run before the time limit.
    pub analysed: usize,
    /// Mutants a test's outcome or assertion kills.
    pub killed: usize,
    /// Candidate assertions (stable ones).
    pub candidates: usize,
    /// Assertions kept.
    pub kept: usize,
    /// Tests removed because they killed no mutant and covered nothing the kept tests did
    /// not ([`reduce`](crate::mutation::reduce)).
    #[serde(default)]
    pub tests_removed: usize,
    /// Kept tests whose assertions killed nothing and that keep one check of what their last
    /// call did (a regression check, not a mutant's).
    #[serde(default)]
    pub fallback_assertions: usize,
    /// Assertions kept for code of the class that only their inspector call reaches
    /// ([`reach`](crate::reach)).
    #[serde(default)]
    pub reach_assertions: usize,
}
