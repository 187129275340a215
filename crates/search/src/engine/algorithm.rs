//! Search algorithms behind one trait, and the registry that maps their names to them.
//!
//! An [`Algorithm`] gets a [`Run`] (the factory, the evaluator, the RNG, the archive, the test
//! id source and the engine's parameters) and searches until the budget is spent or every goal
//! is covered; every test it executes through the run is offered to the archive, and the
//! archive's tests are the result. [`Algorithms`] is the registry: the built-in algorithms,
//! plus any an embedding tool or another crate registers. Command lines, help texts, benches
//! and reports take the names from it.
//!
//! ```
//! use std::sync::Arc;
//! use ferrosuite_search::Result;
//! use ferrosuite_search::engine::{Algorithm, Algorithms, Run};
//!
//! /// Random tests, one at a time, until the budget is spent.
//! #[derive(Debug)]
//! struct OneByOne;
//!
//! impl Algorithm for OneByOne {
//!     fn name(&self) -> &'static str { "one-by-one" }
//!     fn summary(&self) -> &'static str { "random tests, one at a time" }
//!     fn search(&self, run: &mut Run<'_, '_, '_>) -> Result<()> {
//!         while !run.done() {
//!             let test = run.factory.random_test(run.rng)?;
//!             let id = run.ids.fresh();
//!             run.execute(&[(id, &test)])?;
//!             run.eval.usage_mut().evaluations += 1;
//!             run.generation(None);
//!         }
//!         Ok(())
//!     }
//! }
//!
//! let mut algorithms = Algorithms::builtin();
//! algorithms.register(Arc::new(OneByOne))?;
//! assert_eq!(algorithms.get("one-by-one")?.summary(), "random tests, one at a time");
//! assert!(algorithms.names().contains(&"whole-suite"));
//! assert!(algorithms.get("two-by-two").is_err());
//! # Ok::<(), ferrosuite_search::Error>(())
//! ```

use std::fmt;
use std::sync::Arc;

use super::Run;
use crate::error::{Error, Result};

/// A search algorithm (see the module documentation).
pub trait Algorithm: Send + Sync + fmt::Debug {
    /// The name on command lines, in reports and in the registry (`whole-suite`): lower case,
    /// words joined by `-`.
    fn name(&self) -> &'static str;

    /// One line saying what the algorithm does, for help texts.
    fn summary(&self) -> &'static str;

    /// Searches on `run` until [`Run::done`]: builds tests with `run.factory`, runs them with
    /// [`Run::execute`] or [`Run::execute_streamed`] (which offer them to the archive), counts
    /// its fitness evaluations in the evaluator's usage and reports each generation with
    /// [`Run::generation`]. Deterministic: everything random comes from `run.rng`.
    fn search(&self, run: &mut Run<'_, '_, '_>) -> Result<()>;
}

/// The registry of search algorithms, in registration order (the built-in ones first).
#[derive(Clone, Default)]
pub struct Algorithms {
    list: Vec<Arc<dyn Algorithm>>,
}

impl Algorithms {
    /// A registry with no algorithm.
    #[must_use]
    pub fn empty() -> Self {
        Algorithms::default()
    }

    /// The built-in algorithms: whole-suite GA, MOSA, DynaMOSA, random search and the
    /// single-target baseline.
    #[must_use]
    pub fn builtin() -> Self {
        Algorithms {
            list: vec![
                Arc::new(super::whole_suite::WholeSuite),
                Arc::new(super::mosa::Mosa { dynamic: false }),
                Arc::new(super::mosa::Mosa { dynamic: true }),
                Arc::new(super::random_search::RandomSearch),
                Arc::new(super::single_target::SingleTarget),
            ],
        }
    }

    /// Adds an algorithm; an error when one of the same name is registered already.
    pub fn register(&mut self, algorithm: Arc<dyn Algorithm>) -> Result<()> {
        let name = algorithm.name();
        if self.list.iter().any(|a| a.name() == name) {
            return Err(Error::Config(format!(
                "an algorithm named `{name}` is registered already"
            )));
        }
        self.list.push(algorithm);
        Ok(())
    }

    /// The algorithm named `name`, or an error listing the known names.
    pub fn get(&self, name: &str) -> Result<Arc<dyn Algorithm>> {
        self.list
            .iter()
            .find(|a| a.name() == name)
            .cloned()
            .ok_or_else(|| {
                Error::Config(format!(
                    "unknown algorithm `{name}` (known: {})",
                    self.names().join(", ")
                ))
            })
    }

    /// The names, in registration order.
    #[must_use]
    pub fn names(&self) -> Vec<&'static str> {
        self.list.iter().map(|a| a.name()).collect()
    }

    /// The algorithms, in registration order.
    pub fn iter(&self) -> impl Iterator<Item = &Arc<dyn Algorithm>> {
        self.list.iter()
    }
}

impl fmt::Debug for Algorithms {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.names()).finish()
    }
}

#[cfg(test)]
#[allow(clippy::expect_used)]
mod tests {
    use std::sync::Arc;

    use super::Algorithms;

    #[test]
    fn builtin_names_are_unique_and_refused_twice() {
        let mut a = Algorithms::builtin();
        assert_eq!(
            a.names(),
            ["whole-suite", "mosa", "dynamosa", "random", "single-target"]
        );
        let again = a.get("mosa").expect("registered");
        let err = a.register(Arc::clone(&again)).expect_err("a second mosa");
        assert!(err.to_string().contains("`mosa`"), "{err}");
        let err = a.get("nope").expect_err("unknown");
        assert!(
            err.to_string()
                .contains("known: whole-suite, mosa, dynamosa, random, single-target"),
            "{err}"
        );
        assert!(Algorithms::empty().names().is_empty());
    }
}
