//! The whole-suite GA's clean-up between generations, deferred into the next generation's
//! stream (while the host runs its first chunk): the individuals that left the population are
//! dropped, and the tests (in the test store), traces and folds of tests no individual holds.

use std::rc::Rc;

use super::Individual;
use crate::engine::Scoring;
use crate::suite::{TestId, TestStore};

/// The end of a generation's bookkeeping, deferred into the next one: drops the individuals
/// that left the population, and the tests, traces and folds of tests no individual of `pop`
/// holds, except this generation's (ids from `start`). `marks` is a buffer kept between calls.
pub(super) fn tidy(
    dropped: &mut Vec<Rc<Individual>>,
    pop: &[Rc<Individual>],
    start: TestId,
    scoring: &mut Scoring<'_>,
    store: &mut TestStore,
    marks: &mut Vec<u64>,
) {
    dropped.clear();
    // The tests of the population's distinct individuals (one held twice counts once).
    let mut distinct: Vec<&Rc<Individual>> = pop.iter().collect();
    distinct.sort_unstable_by_key(|ind| Rc::as_ptr(ind));
    distinct.dedup_by_key(|ind| Rc::as_ptr(ind));
    let ids = || {
        distinct
            .iter()
            .flat_map(|ind| ind.suite.tests.iter().map(|t| t.id.0))
    };
    let keep = Kept::of(ids(), start.0, marks, MAX_MARKED_SPAN);
    let kept = |id: TestId| id >= start || keep.contains(id.0);
    scoring.retain(kept);
    store.retain(kept);
    // The store holds the population's tests, and of the older ones no other.
    debug_assert!(ids().all(|id| store.get(TestId(id)).is_some()));
    debug_assert!(store.ids().all(kept));
}

/// The ids below a bound that a population holds, for the membership checks of [`tidy`].
///
/// Ids count up, so the population's (tens of thousands with repeats, from a few thousand
/// tests) lie in a range one bit per id covers cheaply: marking them in a bitmap replaces
/// sorting them, which was 4 % of the search's thread on Conversion. A range too wide for
/// that (a very old test still held) falls back to the sort.
enum Kept<'m> {
    Marked { lo: u64, marks: &'m [u64] },
    Sorted(Vec<u64>),
}

impl<'m> Kept<'m> {
    fn of(
        ids: impl Iterator<Item = u64> + Clone,
        start: u64,
        marks: &'m mut Vec<u64>,
        max_span: u64,
    ) -> Kept<'m> {
        let below = ids.filter(move |id| *id < start);
        let lo = below.clone().min().unwrap_or(start);
        let span = start - lo;
        match usize::try_from(span.div_ceil(64)) {
            Ok(words) if span <= max_span => {
                marks.clear();
                marks.resize(words, 0);
                for k in below.map(|id| id - lo) {
                    if let Some(w) = usize::try_from(k / 64).ok().and_then(|w| marks.get_mut(w)) {
                        *w |= 1 << (k % 64);
                    }
                }
                Kept::Marked { lo, marks }
            }
            _ => {
                let mut keep: Vec<u64> = below.collect();
                keep.sort_unstable();
                keep.dedup();
                Kept::Sorted(keep)
            }
        }
    }

    fn contains(&self, id: u64) -> bool {
        match self {
            Kept::Marked { lo, marks } => id.checked_sub(*lo).is_some_and(|k| {
                usize::try_from(k / 64)
                    .ok()
                    .and_then(|w| marks.get(w))
                    .is_some_and(|w| w & (1 << (k % 64)) != 0)
            }),
            Kept::Sorted(keep) => keep.binary_search(&id).is_ok(),
        }
    }
}

/// Widest range of test ids [`tidy`] marks in a bitmap (512 KiB of bits).
const MAX_MARKED_SPAN: u64 = 1 << 22;

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::Kept;

    proptest! {
        /// The bitmap and the sorted list agree on every id, below `start` and above it, and
        /// the bitmap buffer is reused whatever it held.
        #[test]
        fn kept_ids_are_those_held_below_the_start(
            held in proptest::collection::vec(0u64..500, 0..60),
            start in 0u64..520,
            stale in proptest::collection::vec(any::<u64>(), 0..20),
        ) {
            let mut marks = stale;
            let marked = Kept::of(held.iter().copied(), start, &mut marks, u64::MAX);
            let is_marked = matches!(marked, Kept::Marked { .. });
            prop_assert!(is_marked);
            let mut unused = Vec::new();
            let sorted = Kept::of(held.iter().copied(), start, &mut unused, 0);
            for id in 0..530 {
                let want = id < start && held.contains(&id);
                prop_assert_eq!(marked.contains(id), want, "marked, id {}", id);
                // (A span of 0, nothing held below the start, is marked even with no room.)
                prop_assert_eq!(sorted.contains(id), want, "sorted, id {}", id);
            }
        }
    }
}
