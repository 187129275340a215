//! Random search: batches of random tests (random test sampling of the whole-suite paper), each
//! offered to the archive, until the budget is spent or every goal is covered. The baseline the
//! evolutionary algorithms must beat.

use std::sync::Arc;

use super::{Algorithm, Chunk, Run};
use crate::error::{Error, Result};

/// Random search (see the module documentation).
#[derive(Debug, Clone, Copy)]
pub struct RandomSearch;

impl Algorithm for RandomSearch {
    fn name(&self) -> &'static str {
        "random"
    }

    fn summary(&self) -> &'static str {
        "random tests until the budget is spent (the baseline)"
    }

    fn search(&self, run: &mut Run<'_, '_, '_>) -> Result<()> {
        self::run(run)
    }
}

fn run(run: &mut Run<'_, '_, '_>) -> Result<()> {
    let batch = run.config.random_batch;
    while !run.done() {
        // A batch of random tests, built in chunks that run while the next is built.
        let (mut attempts, mut built) = (0, 0);
        let tests_before = run.eval.usage().tests;
        run.execute_streamed(
            |factory, rng, ids, want| {
                let mut out: Chunk = Vec::new();
                while attempts < batch && out.len() < want.max(1) {
                    attempts += 1;
                    match factory.random_test(rng) {
                        Ok(t) => out.push((ids.fresh(), Arc::new(t))),
                        Err(Error::Construction { .. }) => {}
                        Err(e) => return Err(e),
                    }
                }
                built += out.len();
                Ok((!out.is_empty()).then_some(out))
            },
            |_, _, _| {},
            |_| {},
            |_| false,
        )?;
        if built == 0 {
            // Nothing can be built: more attempts would not change that.
            return Err(Error::Construction {
                cut: run.factory.cluster().cut.clone(),
                attempts: batch,
            });
        }
        run.eval.usage_mut().evaluations += run.eval.usage().tests - tests_before;
        // Random search keeps no population: the archive holds the traces it needs.
        run.eval.retain(|_| false);
        run.generation(None);
    }
    Ok(())
}
