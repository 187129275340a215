//! Search for ferrosuite: the search operators of the whole-suite paper (Fraser &
//! Arcuri, *Evolutionary Generation of Whole Test Suites*, Section III-E) over the test model
//! of `ferrosuite-testcase`, and the algorithms that use them:
//!
//! - [`config`]: every parameter, with the paper's defaults ([`Config`]);
//! - [`random`]: uniform integers, floats and coin flips on top of any [`Rng`] (the RNG is
//!   always passed in; a `rand_chacha::ChaCha8Rng` seeded by the user makes runs
//!   reproducible);
//! - [`values`]: primitive and string values, random or seeded from harvested constants and
//!   from an [`ObservedPool`] of run-time values, and their mutation (Δ steps, string edits);
//! - [`factory`]: test construction on a test cluster: random calls on the class under test
//!   with parameters generated recursively, and random test sampling;
//! - [`mutation`]: test mutation (remove with repair, change, insert);
//! - [`mocks`]: the stubs of mock statements made to follow what the last run called;
//! - [`crossover`]: single-point crossover of two tests (for the test-level algorithms);
//! - [`engine`]: the algorithms (whole-suite GA, MOSA, DynaMOSA, random search, single
//!   target), the archive, budgets, execution caching and minimisation;
//! - [`suite`]: [`Suite`] (test ids with lengths and changed flags, for execution caching; the
//!   tests in a [`TestStore`]), suite crossover (α split) and suite mutation.
//!
//! Every operator keeps the model's invariants: each test passes
//! [`Test::validate`](ferrosuite_testcase::Test::validate) (references only to earlier,
//! non-void values of fitting types), has at most [`Config::max_test_length`] statements, and a
//! suite holds at most [`Config::max_suite_size`] tests. The same seed gives the same tests.
//!
//! ```
//! use ferrosuite_search::{Config, Suite, TestIds};
//! use ferrosuite_search::suite::{TestStore, crossover};
//! use ferrosuite_testcase::{Prim, Statement, Test};
//! use rand_chacha::ChaCha8Rng;
//! use rand_chacha::rand_core::SeedableRng;
//!
//! let (mut ids, mut store) = (TestIds::default(), TestStore::default());
//! let t = |i| Test::new(vec![Statement::Primitive(Prim::Int(i))]);
//! let p1 = Suite::from_tests((0..4).map(t), &mut ids, &mut store);
//! let p2 = Suite::from_tests((10..12).map(t), &mut ids, &mut store);
//! let mut rng = ChaCha8Rng::seed_from_u64(7);
//! let (o1, o2) = crossover(&p1, &p2, &Config::default(), &mut rng);
//! assert_eq!(o1.len() + o2.len(), 6);
//! ```
//!
//! [`Rng`]: rand_chacha::rand_core::Rng

pub mod config;
pub mod crossover;
pub mod engine;
pub mod error;
pub mod factory;
pub mod mocks;
pub mod mutation;
pub mod random;
pub mod suite;
pub mod values;

pub use config::Config;
pub use error::{Error, Result};
pub use factory::Factory;
pub use suite::{Suite, SuiteTest, TestId, TestIds, TestStore};
pub use values::{ObservedPool, Seeds};
