//! The engine's parameters ([`EngineConfig`]): those of the built-in algorithms, and how
//! test execution overlaps the search (streaming, scoring ahead).
//!
//! ```
//! use ferrosuite_search::engine::{EngineConfig, ScoreAhead};
//! let c = EngineConfig::default();
//! assert_eq!((c.population, c.test_population), (80, 50));
//! assert_eq!("always".parse::<ScoreAhead>().ok(), Some(ScoreAhead::Always));
//! assert!(EngineConfig { population: 1, ..c }.validate().is_err());
//! ```

use std::str::FromStr;

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};

/// The one of `all` whose `name` is `s`, or an error naming `what` and the known names.
fn by_name<T: Copy>(all: &[T], name: fn(T) -> &'static str, what: &str, s: &str) -> Result<T> {
    all.iter().copied().find(|t| name(*t) == s).ok_or_else(|| {
        let names: Vec<&str> = all.iter().map(|t| name(*t)).collect();
        Error::Config(format!(
            "unknown {what} `{s}` (known: {})",
            names.join(", ")
        ))
    })
}

/// Parameters of the algorithms (the operators' own are in [`Config`](crate::Config); which
/// algorithm runs is given to [`search`](super::search) apart, from the
/// [`Algorithms`](super::Algorithms) registry).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EngineConfig {
    /// Suites in the whole-suite GA's population (80, as EvoSuite's `population`).
    pub population: usize,
    /// Tests in the population of MOSA and DynaMOSA (EvoSuite: 50).
    pub test_population: usize,
    /// Probability of crossover for a pair of parents (0.75, as in the whole-suite paper's experiments).
    pub crossover_rate: f64,
    /// Best individuals copied unchanged into the next generation.
    pub elite: usize,
    /// Minimise the final suite (statements, then redundant tests).
    pub minimise: bool,
    /// Rank selection bias in (1, 2] (EvoSuite's `rank_bias`: 1.7).
    pub rank_bias: f64,
    /// Bloat control: an offspring longer than this many times the best individual is not
    /// accepted (whole-suite paper: 2).
    pub bloat_factor: f64,
    /// Random tests run per batch by random search.
    pub random_batch: usize,
    /// Tests handed to the host at once while the search builds the next ones (every built-in
    /// algorithm, and MIO, streams through [`Run::execute_streamed`](super::Run::execute_streamed)): building overlaps
    /// running, and the next chunk waits in the worker's pipe while the worker runs the
    /// current one; the first chunk of a generation is a quarter of this, so that the worker
    /// starts soon. 0 builds a whole generation before running it. Default 10: on 2 cores,
    /// 1.0–1.34× the statements per second of whole generations (benches/results/history.md); 5,
    /// 20, 25 and 40 did no better. The tests built
    /// do not depend on it; under a statement budget neither does the suite,
    /// except where the last generation stops (with 0, a generation of more than 128 new
    /// tests stops between batches of 128 once the budget is spent; streamed generations run
    /// to their end).
    pub stream_chunk: usize,
    /// Chunks out at a time while streaming (built, not yet taken in): with this many out,
    /// the search takes the oldest one's results in (and scores what they complete) before
    /// it builds the next. More lets the search build on while the host catches up instead
    /// of waiting for results. The tests built do not depend on it, nor (streamed
    /// generations run to their end) does the suite under a statement budget (a test compares
    /// 1, 3 and 12 for every algorithm); under a time budget the deadline may cut elsewhere.
    /// Default 3: the one the worker runs, the one waiting in its pipe, one more built.
    pub stream_ahead: usize,
    /// What the whole-suite GA does while it waits for the host's results (the other
    /// algorithms have nothing to score ahead). Under a statement or evaluation budget the suite
    /// does not depend on it; under a time budget the deadline may cut elsewhere.
    #[serde(default)]
    pub score_ahead: ScoreAhead,
}

/// Scoring ahead ([`EngineConfig::score_ahead`]): the whole-suite GA scores its offspring in
/// the order bred, each once its tests have run. While it would wait for a chunk's results,
/// it can instead score a later offspring whose tests have all run (one bred from old tests
/// only, or one of a chunk that came back out of order), or prepare one still waiting for a
/// test ([`Scoring::prepare`](super::Scoring::prepare): fold what has run, so that only the rest is folded once the
/// results are in). The scores are the same whenever they are computed, so the search does not
/// depend on the mode; only where its time goes does.
///
/// ```text
/// offspring   o1 o2 o3 o4 o5    (chunk 1 ran: o1 o2; chunk 2 out: o3 o4 o5)
/// Off         score o1 o2 | wait | score o3 o4 o5
/// WhileWaiting score o1 o2 | prepare o3, o4, o5 while waiting | finish o3 o4 o5
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ScoreAhead {
    /// Never: each offspring is scored in order once its tests have run.
    Off,
    /// While the search would otherwise wait for results, one offspring at a time, until the
    /// results are in (the default).
    #[default]
    WhileWaiting,
    /// Before each wait for a chunk's results, every offspring bred so far is scored or
    /// prepared ahead, whether or not the results are already in. No faster; it makes the
    /// work ahead happen at every chunk whatever the timing (the search is the same), which is
    /// what tests of it want.
    Always,
}

impl ScoreAhead {
    /// Every mode.
    pub const ALL: [ScoreAhead; 3] = [
        ScoreAhead::Off,
        ScoreAhead::WhileWaiting,
        ScoreAhead::Always,
    ];

    /// The mode's name (`off`, `while-waiting`, `always`).
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            ScoreAhead::Off => "off",
            ScoreAhead::WhileWaiting => "while-waiting",
            ScoreAhead::Always => "always",
        }
    }
}

impl FromStr for ScoreAhead {
    type Err = Error;

    fn from_str(s: &str) -> Result<Self> {
        by_name(&ScoreAhead::ALL, ScoreAhead::name, "score-ahead mode", s)
    }
}

impl Default for EngineConfig {
    fn default() -> Self {
        EngineConfig {
            population: 80,
            test_population: 50,
            crossover_rate: 0.75,
            elite: 1,
            minimise: true,
            rank_bias: 1.7,
            bloat_factor: 2.0,
            random_batch: 50,
            stream_chunk: 10,
            stream_ahead: 3,
            score_ahead: ScoreAhead::WhileWaiting,
        }
    }
}

impl EngineConfig {
    /// Checks the parameters.
    pub fn validate(&self) -> Result<()> {
        if self.population < 2 {
            return Err(Error::Config("population: at least 2".into()));
        }
        if self.test_population < 2 {
            return Err(Error::Config("test_population: at least 2".into()));
        }
        if !(0.0..=1.0).contains(&self.crossover_rate) {
            return Err(Error::Config("crossover_rate: in [0, 1]".into()));
        }
        if self.elite >= self.population {
            return Err(Error::Config("elite: below the population size".into()));
        }
        if !(self.rank_bias > 1.0 && self.rank_bias <= 2.0) {
            return Err(Error::Config("rank_bias: in (1, 2]".into()));
        }
        if self.stream_ahead == 0 {
            return Err(Error::Config("stream_ahead: at least 1".into()));
        }
        if self.bloat_factor < 1.0 {
            return Err(Error::Config("bloat_factor: at least 1".into()));
        }
        if self.random_batch == 0 {
            return Err(Error::Config("random_batch: at least 1".into()));
        }
        Ok(())
    }
}

#[cfg(test)]
#[allow(clippy::expect_used)]
mod tests {
    use super::{EngineConfig, ScoreAhead};

    /// Each mode reads back from its name (the command lines' spelling), and serde spells it
    /// the same; an unknown name is refused with the known ones.
    #[test]
    fn score_ahead_modes_read_back_from_their_names() {
        for mode in ScoreAhead::ALL {
            assert_eq!(mode.name().parse::<ScoreAhead>().ok(), Some(mode));
            let json = serde_json::to_string(&mode).expect("serialises");
            assert_eq!(json, format!("\"{}\"", mode.name()));
        }
        let err = "sometimes".parse::<ScoreAhead>().expect_err("unknown");
        assert!(
            err.to_string().contains("off, while-waiting, always"),
            "{err}"
        );
    }

    /// Puts one parameter out of range.
    type Spoil = fn(&mut EngineConfig);

    /// The defaults pass; each parameter out of range is refused with its name.
    #[test]
    fn engine_parameters_out_of_range_are_refused_by_name() {
        assert!(EngineConfig::default().validate().is_ok());
        let cases: [(&str, Spoil); 8] = [
            ("population", |c| c.population = 1),
            ("test_population", |c| c.test_population = 1),
            ("crossover_rate", |c| c.crossover_rate = 1.5),
            ("elite", |c| c.elite = c.population),
            ("rank_bias", |c| c.rank_bias = 1.0),
            ("stream_ahead", |c| c.stream_ahead = 0),
            ("bloat_factor", |c| c.bloat_factor = 0.5),
            ("random_batch", |c| c.random_batch = 0),
        ];
        for (name, spoil) in cases {
            let mut config = EngineConfig::default();
            spoil(&mut config);
            let err = config.validate().expect_err(name).to_string();
            // (Not `test_population` for `population`: the name starts a word.)
            let named = err
                .match_indices(name)
                .any(|(i, _)| !err[..i].ends_with(|c: char| c == '_' || c.is_alphanumeric()));
            assert!(named, "{name}: {err}");
        }
    }
}
