//! Parameters of the search operators, with their defaults and where each default comes from.
//!
//! The whole-suite paper (Fraser & Arcuri, *Evolutionary Generation of Whole Test Suites*) fixes
//! the operator probabilities (Section III-E) and the limits (Section IV-D). Where the paper
//! leaves a constant open (Δ, string and float mutation, random value ranges, reuse and `null`
//! probabilities) the default is EvoSuite's, named after its `Properties` key.
//!
//! ```
//! use ferrosuite_search::Config;
//! let c = Config::default();
//! assert_eq!((c.max_test_length, c.max_suite_size), (80, 100));
//! assert!(c.validate().is_ok());
//! let bad = Config { null_probability: 1.5, ..Config::default() };
//! assert!(bad.validate().is_err());
//! ```

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};

/// Every parameter of value generation, test construction and the test and suite operators.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Config {
    // --- limits (paper IV-D) -----------------------------------------------------------------
    /// L: the most statements a test may have (paper IV-D: 80).
    pub max_test_length: usize,
    /// N: the most tests a suite may have (paper IV-D: 100).
    pub max_suite_size: usize,
    /// Tests in a random initial suite (paper IV-D: "initial test suites are generated with
    /// only two test cases each").
    pub initial_suite_size: usize,

    // --- suite operators (paper III-E1, III-E2) ----------------------------------------------
    /// σ: probability of adding a first new random test in suite mutation, then σ², σ³, …
    /// (paper IV-D: 0.1).
    pub test_insertion_probability: f64,

    // --- test mutation (paper III-E2) --------------------------------------------------------
    /// Probability of the *remove* step of test mutation (paper: 1/3).
    pub remove_probability: f64,
    /// Probability of the *change* step (paper: 1/3).
    pub change_probability: f64,
    /// Probability of the *insert* step (paper: 1/3).
    pub insert_probability: f64,
    /// σ': probability of inserting a first statement in the insert step, then σ'², …
    /// (paper IV-D: 0.5).
    pub statement_insertion_probability: f64,

    // --- test construction --------------------------------------------------------------------
    /// Probability of `null` for a reference parameter (EvoSuite `null_probability`: 0.1).
    pub null_probability: f64,
    /// Probability of reusing an existing value of a fitting reference type for a parameter or
    /// receiver, when there is one (EvoSuite `object_reuse_probability`: 0.9).
    pub object_reuse_probability: f64,
    /// Probability of reusing an existing primitive or string value of the same type (EvoSuite
    /// `primitive_reuse_probability`: 0.5).
    pub primitive_reuse_probability: f64,
    /// Nesting depth of generated parameters (a parameter of a parameter of …) before `null` is
    /// used (EvoSuite `max_recursion`: 10).
    pub max_recursion: u32,
    /// Whether tests may write the accessible non-final fields of the class under test (field
    /// statements; reads are always allowed). Off, a test reaches the CUT's state only through
    /// its methods: the representation of the whole-suite paper's Stack example, whose
    /// package-private fields would otherwise make its "infeasible" branch feasible.
    pub field_writes: bool,
    /// Consecutive failed insertions after which random test sampling stops short of its
    /// target length.
    pub max_insertion_failures: usize,

    // --- values -------------------------------------------------------------------------------
    /// Probability of taking a seed (a harvested constant or an observed value of the right
    /// kind) instead of a random value (EvoSuite's `primitive_pool` is 0.5; ferrosuite uses 0.2
    /// so that most values stay random).
    pub seed_probability: f64,
    /// When seeding, the probability of taking the seed from the observed (run-time) pool rather
    /// than from the harvested constants, if the observed pool has a value of the kind. 0.2:
    /// in an A/B on 10 real classes (benches/results/history.md, the seeding A/B) 0.5 covered the
    /// least with both whole-suite and DynaMOSA; 0.2 and 0 (constants only) were within noise.
    pub observed_share: f64,
    /// When a primitive is changed, the probability of replacing it with a new random (or
    /// seeded) value instead of stepping it by Δ (EvoSuite `random_perturbation`: 0.2).
    pub random_perturbation: f64,
    /// Δ: an integer is changed by a random step in ±\[1, Δ\] (paper III-E2 leaves Δ open;
    /// EvoSuite `max_delta`: 20).
    pub max_delta: i64,
    /// Random integers are drawn from \[−`max_int`, `max_int`\] (EvoSuite `max_int`: 2048);
    /// floating-point values too, before precision rounding.
    pub max_int: i64,
    /// Floating-point values are rounded to a random number of decimal places in
    /// \[0, `max_float_precision`\] (EvoSuite: 0 to 6).
    pub max_float_precision: u32,
    /// Random strings have a length in \[0, `max_string_length`\), and string mutation does not
    /// insert beyond it (EvoSuite `string_length`: 20).
    pub max_string_length: usize,
    /// α of string mutation: a first character is inserted with probability α, a second one
    /// with α², … (EvoSuite: 0.5).
    pub string_insertion_probability: f64,
    /// New arrays have a length in \[0, `max_array_length`\] (EvoSuite `max_array`: 10).
    pub max_array_length: u32,
    // --- mocks and private access (PAFM) -------------------------------------------------------
    /// When to use mocks and private access. Off by default here, since mocks need Mockito in
    /// the executor (`ferrosuite-generate` turns them on when it finds Mockito).
    #[serde(default = "ferrosuite_mocking::Config::off")]
    pub mocking: ferrosuite_mocking::Config,
    /// Values kept in an [`ObservedPool`](crate::ObservedPool) per kind before the oldest are
    /// dropped.
    pub observed_pool_capacity: usize,
    /// `P_ENV`: the probability that an inserted call is an environment statement (a file, console
    /// input, the time, a seed), once a test's code used that resource and the cluster has
    /// them ([`TestCluster::add_environment`](ferrosuite_testcase::cluster::TestCluster::add_environment)).
    #[serde(default = "default_environment_probability")]
    pub environment_probability: f64,
}

fn default_environment_probability() -> f64 {
    0.2
}

impl Default for Config {
    fn default() -> Self {
        Config {
            max_test_length: 80,
            max_suite_size: 100,
            initial_suite_size: 2,
            test_insertion_probability: 0.1,
            remove_probability: 1.0 / 3.0,
            change_probability: 1.0 / 3.0,
            insert_probability: 1.0 / 3.0,
            statement_insertion_probability: 0.5,
            null_probability: 0.1,
            object_reuse_probability: 0.9,
            primitive_reuse_probability: 0.5,
            max_recursion: 10,
            field_writes: true,
            max_insertion_failures: 50,
            seed_probability: 0.2,
            observed_share: 0.2,
            random_perturbation: 0.2,
            max_delta: 20,
            max_int: 2048,
            max_float_precision: 6,
            max_string_length: 20,
            string_insertion_probability: 0.5,
            max_array_length: 10,
            observed_pool_capacity: 1000,
            environment_probability: default_environment_probability(),
            mocking: ferrosuite_mocking::Config::off(),
        }
    }
}

impl Config {
    /// Checks that probabilities are in \[0, 1\] and limits are usable.
    pub fn validate(&self) -> Result<()> {
        self.mocking
            .validate()
            .map_err(|e| Error::Config(e.to_string()))?;
        let probabilities = [
            (
                "test_insertion_probability",
                self.test_insertion_probability,
            ),
            ("remove_probability", self.remove_probability),
            ("environment_probability", self.environment_probability),
            ("change_probability", self.change_probability),
            ("insert_probability", self.insert_probability),
            (
                "statement_insertion_probability",
                self.statement_insertion_probability,
            ),
            ("null_probability", self.null_probability),
            ("object_reuse_probability", self.object_reuse_probability),
            (
                "primitive_reuse_probability",
                self.primitive_reuse_probability,
            ),
            ("seed_probability", self.seed_probability),
            ("observed_share", self.observed_share),
            ("random_perturbation", self.random_perturbation),
            (
                "string_insertion_probability",
                self.string_insertion_probability,
            ),
        ];
        for (name, p) in probabilities {
            if !(0.0..=1.0).contains(&p) {
                return Err(Error::Config(format!("{name} = {p} is not in [0, 1]")));
            }
        }
        if self.max_test_length == 0 {
            return Err(Error::Config("max_test_length must be at least 1".into()));
        }
        if self.max_suite_size == 0 {
            return Err(Error::Config("max_suite_size must be at least 1".into()));
        }
        if self.initial_suite_size > self.max_suite_size {
            return Err(Error::Config(format!(
                "initial_suite_size {} exceeds max_suite_size {}",
                self.initial_suite_size, self.max_suite_size
            )));
        }
        if self.max_delta < 1 {
            return Err(Error::Config("max_delta must be at least 1".into()));
        }
        if self.max_int < 0 {
            return Err(Error::Config("max_int must not be negative".into()));
        }
        if self.max_float_precision > 15 {
            return Err(Error::Config(
                "max_float_precision must be at most 15 decimal places".into(),
            ));
        }
        Ok(())
    }
}
