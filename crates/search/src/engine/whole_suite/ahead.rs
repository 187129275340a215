//! Scoring ahead for the whole-suite GA: while the search waits for the host's results, the
//! offspring bred so far are scored (those whose tests have all run) or prepared (those still
//! waiting for a test: their blocks that ran are folded into one), so that little is left to
//! score once the results are in. The scores are those scoring in order gives: the search
//! does not change, only where its time goes.
//!
//! ```text
//! offspring   o1 o2 o3 o4      (o1, o2 ran; o3 waits for a test; o4 ran, waits behind o3)
//! waiting     score o1 o2 | prepare o3 | score o4 ahead
//! results in  finish o3 (its waiting blocks only) | o4 already scored
//! ```

use super::{Score, Suite};
use crate::engine::{Prepared, Scoring};
use crate::suite::TestId;

/// How far the scoring of a generation's offspring has come inside its stream.
#[derive(Default)]
pub(super) struct Progress {
    /// The scores of the first offspring, in order.
    early: Vec<Score>,
    /// Where in the tests of the next offspring to score one may not have run yet (those
    /// before it have).
    ready: usize,
    /// What was done for each offspring while the search waited for results.
    ahead: Vec<Ahead>,
    /// The first offspring [`Progress::ahead`] has not looked at.
    looked: usize,
}

/// An offspring scored, or prepared, ahead of its turn.
enum Ahead {
    Nothing,
    Prepared(Box<Prepared>),
    Scored(Score),
}

impl Progress {
    /// Scores, in order, the offspring whose tests have all run (after each chunk): an
    /// unchanged parent takes its parent's score, one scored ahead keeps that score, one
    /// prepared ahead is finished.
    pub(super) fn score_ready(
        &mut self,
        scoring: &mut Scoring<'_>,
        offspring: &[Suite],
        copies: &[Option<Score>],
    ) {
        for (k, (suite, copy)) in offspring
            .iter()
            .zip(copies)
            .enumerate()
            .skip(self.early.len())
        {
            if let Some(score) = copy {
                self.early.push(*score);
                continue;
            }
            let ahead = self
                .ahead
                .get_mut(k)
                .map(|a| std::mem::replace(a, Ahead::Nothing));
            if let Some(Ahead::Scored(score)) = ahead {
                self.ready = 0;
                self.early.push(score);
                continue;
            }
            let waiting = suite.tests[self.ready..]
                .iter()
                .position(|t| t.changed && !scoring.has_trace(t.id));
            if let Some(w) = waiting {
                self.ready += w;
                if let (Some(slot), Some(a)) = (self.ahead.get_mut(k), ahead) {
                    *slot = a;
                }
                break;
            }
            self.ready = 0;
            let fitness = match ahead {
                Some(Ahead::Prepared(p)) => scoring.finish(&p),
                _ => scoring.suite_fitness(suite.tests.iter().map(|t| t.id)),
            };
            self.early.push(Score::of(&fitness));
        }
    }

    /// One piece of scoring ahead, while the search waits for results: the first offspring
    /// past those scored and looked at, unless it is an unchanged parent, is scored if its
    /// tests have all run (it may wait behind an earlier one), else prepared
    /// ([`Scoring::prepare`]). False when there is none. The scores are those
    /// [`score_ready`](Self::score_ready) would give: the search does not change.
    pub(super) fn ahead(
        &mut self,
        scoring: &mut Scoring<'_>,
        offspring: &[Suite],
        copies: &[Option<Score>],
    ) -> bool {
        let from = self.looked.max(self.early.len());
        let Some(k) = (from..offspring.len().min(copies.len())).find(|&k| copies[k].is_none())
        else {
            self.looked = offspring.len();
            return false;
        };
        self.looked = k + 1;
        let suite = &offspring[k];
        if self.ahead.len() <= k {
            self.ahead.resize_with(k + 1, || Ahead::Nothing);
        }
        let ids = ids_of(suite);
        self.ahead[k] = if ids.iter().all(|&id| scoring.has_trace(id)) {
            Ahead::Scored(Score::of(&scoring.score_ahead(ids)))
        } else {
            Ahead::Prepared(Box::new(scoring.prepare(ids)))
        };
        true
    }

    /// The scores known of each offspring: those scored in order, then those scored ahead or
    /// copied from an unchanged parent (`copies`, one per offspring).
    pub(super) fn known(self, copies: Vec<Option<Score>>) -> Vec<Option<Score>> {
        let mut ahead = self.ahead.into_iter().skip(self.early.len());
        let mut known: Vec<Option<Score>> = self.early.into_iter().map(Some).collect();
        for copy in copies.into_iter().skip(known.len()) {
            let scored = match ahead.next() {
                Some(Ahead::Scored(score)) => Some(score),
                _ => None,
            };
            known.push(copy.or(scored));
        }
        known
    }
}

/// The ids of a suite's tests, in order.
fn ids_of(suite: &Suite) -> Vec<TestId> {
    suite.tests.iter().map(|t| t.id).collect()
}

#[cfg(test)]
mod tests {
    use super::{Ahead, Progress, Score};

    /// The scores known at a generation's end (a stream cut short): those scored in order,
    /// then per offspring its parent's when it is a copy, else the one scored ahead for that
    /// same offspring, else none (a prepared one is scored again, as one never looked at).
    #[test]
    fn known_scores_belong_to_their_offspring() {
        let score = |fitness| Score {
            fitness,
            complete: false,
        };
        let progress = Progress {
            early: vec![score(0.0), score(1.0)],
            ready: 0,
            // Offspring 0 and 1 were scored in order (what was done ahead for them is spent).
            ahead: vec![
                Ahead::Nothing,
                Ahead::Nothing,
                Ahead::Scored(score(2.0)),
                Ahead::Nothing,
                Ahead::Scored(score(4.0)),
                Ahead::Scored(score(5.0)),
            ],
            looked: 6,
        };
        let copies = vec![
            None,
            Some(score(9.0)),
            None,
            None,
            None,
            Some(score(5.5)),
            None,
        ];
        let known: Vec<Option<f64>> = progress
            .known(copies)
            .into_iter()
            .map(|s| s.map(|s| s.fitness))
            .collect();
        assert_eq!(
            known,
            [
                Some(0.0),
                Some(1.0),
                Some(2.0),
                None,
                Some(4.0),
                Some(5.5),
                None
            ]
        );
    }
}
