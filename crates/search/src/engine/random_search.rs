//! Random search: batches of random tests (random test sampling of the whole-suite paper), each
//! offered to the archive, until the budget is spent or every goal is covered. The baseline the
//! evolutionary algorithms must beat.

use ferrosuite_testcase::Test;

use super::Run;
use crate::error::{Error, Result};
use crate::suite::TestId;

pub(crate) fn run(run: &mut Run<'_, '_, '_>) -> Result<()> {
    while !run.done() {
        let mut batch: Vec<(TestId, Test)> = Vec::with_capacity(run.config.random_batch);
        for _ in 0..run.config.random_batch {
            match run.factory.random_test(run.rng) {
                Ok(t) => batch.push((run.ids.fresh(), t)),
                Err(Error::Construction { .. }) => {}
                Err(e) => return Err(e),
            }
        }
        if batch.is_empty() {
            // Nothing can be built: more attempts would not change that.
            return Err(Error::Construction {
                cut: run.factory.cluster().cut.clone(),
                attempts: run.config.random_batch,
            });
        }
        let refs: Vec<(TestId, &Test)> = batch.iter().map(|(i, t)| (*i, t)).collect();
        run.execute(&refs)?;
        run.eval.usage_mut().evaluations += refs.len() as u64;
        // Random search keeps no population: the archive holds the traces it needs.
        run.eval.retain(|_| false);
        run.generation(None);
    }
    Ok(())
}
