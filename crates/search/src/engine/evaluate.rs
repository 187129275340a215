//! Running tests and caching what fitness needs from them.
//!
//! The [`Evaluator`] owns the link to the executor (the execution host, or any other
//! [`Executor`]) and the goal set. Tests are identified
//! by their [`TestId`]: an operator that changes a test gives it a fresh id, so a test whose id
//! already has a [`Trace`] is never run again (the whole-suite paper's "only re-execute tests
//! that changed"). New tests of a generation go to the host in a batch ([`Evaluator::run`]) or
//! in chunks streamed while the next are built ([`Evaluator::run_streamed`]); the host spreads
//! them over its workers.
//!
//! It also keeps the books: statements executed, tests executed, fitness evaluations, the wall
//! time spent inside the host (the rest is search, fitness and bookkeeping), the exception
//! goals discovered at run time, and the values the code under test compared (the operands
//! the probes saw), which the search feeds to the factory's observed pool.

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet, HashMap, VecDeque, hash_map};
use std::hash::BuildHasherDefault;
use std::ops::Range;
use std::rc::Rc;
use std::sync::Arc;
use std::time::{Duration, Instant};

use ferrosuite_executor::{Executor, Polled, Resources, TestResult};
use ferrosuite_fitness::{CompiledTrace, GoalId, GoalSet, SuiteFitness, SuiteScorer, Trace};
use ferrosuite_testcase::statement::{JDouble, MockCalls, Prim};
use ferrosuite_testcase::{Statement, Test};

use super::ScoreAhead;
use super::budget::{Budget, Usage};
use crate::error::Result;
use crate::suite::{IdHasher, TestId};

/// Tests an algorithm hands to [`Evaluator::run_streamed`] at once.
pub type Chunk = Vec<(TestId, Arc<Test>)>;

/// Tests sent to the host at once.
const SLICE: usize = 128;
/// Tests sent at once after a slice took longer than [`SLOW_SLICE`].
const SLICE_WHEN_SLOW: usize = 8;
/// A slice slower than this makes the following ones small.
const SLOW_SLICE: Duration = Duration::from_secs(1);

/// Runs tests on an executor and turns their results into cached traces.
pub struct Evaluator<'h> {
    host: &'h mut dyn Executor,
    books: Books,
    compiled: Compiled,
    /// The probes of the classes' static initialisers, which every suite shares.
    init: Trace,
    budget: Budget,
    started: Instant,
    in_host: Duration,
    /// Wall time inside calls that run tests ([`Evaluator::run`], [`Evaluator::run_streamed`],
    /// each call whole: the host's time and the search's work inside the call).
    in_calls: Duration,
    in_fitness: Duration,
    after_deadline: Option<Instant>,
}

/// How many file paths the evaluator keeps between two [`Evaluator::take_resources`].
const MAX_RESOURCE_FILES: usize = 64;

/// What the evaluator learns from results: apart from the host, so that results can be taken
/// in while the host runs the next tests ([`Evaluator::run_streamed`]).
struct Books {
    goals: GoalSet,
    cache: BTreeMap<TestId, Arc<Trace>>,
    usage: Usage,
    in_traces: Duration,
    new_goals: Vec<GoalId>,
    /// Values the tests compared since the last [`Evaluator::take_compared`].
    compared: Vec<Prim>,
    /// What the mocks of tests were called for where their stubs did not say so, by
    /// [`crate::mocks::test_key`], since the last [`Evaluator::take_mock_calls`].
    mock_calls: Vec<(u64, Vec<MockCalls>)>,
    /// The resources of the controlled environment the tests used since the last
    /// [`Evaluator::take_resources`].
    resources: Resources,
    frozen: bool,
}

/// Whole-suite scoring: the scorer, and the traces of class initialisation and of the cached
/// tests compiled for it ([`CompiledTrace`]): a test is compiled once, at the first suite
/// scored with it, and folded into every later suite that holds it.
///
/// # Blocks
///
/// An offspring of the whole-suite GA differs from its parents in a few tests (a crossover
/// point, a test or two mutated, removed or added), while a suite may hold hundreds: folding
/// every test of every suite is most of the search's own work on a long run. So a suite of
/// at least `2 · BLOCK` tests is cut into blocks, and the fold of each block
/// ([`SuiteScorer::merge`]) is kept, keyed by the ids of its tests, and reused by every
/// suite that holds the same block. The cuts depend on the tests, not on their positions: a
/// block ends after each test whose id hashes to 0 modulo `BLOCK` (and at the suite's end),
/// so removing, changing or adding a test, or crossing two suites over, changes only the
/// blocks around it, and the blocks before and after are the parent's.
///
/// ```text
/// parent    a b c | d e f g | h i       (a block ends after c and after g)
/// offspring a b c | d e F g | h i j     (f mutated into F, j added)
/// folded:   [a b c] (kept)  merge(d e F g)  merge(h i j)
/// ```
///
/// The fitness is the same as folding the tests one by one (the merge is exact), so the
/// search does not change. Blocks that no suite used in the last two generations are dropped
/// by [`Evaluator::retain`] (so are, with them, those holding a test no longer kept: no later
/// suite can hold that test).
struct Compiled {
    scorer: SuiteScorer,
    init: CompiledTrace,
    tests: TestFolds,
    blocks: HashMap<Box<[TestId]>, Block, BuildHasherDefault<IdHasher>>,
    /// Counts the calls of [`Evaluator::retain`] (generations).
    epoch: u64,
}

/// The compiled trace of each test (shared with the list of folds of the suite being scored,
/// so that each is looked up once).
type TestFolds = HashMap<TestId, Rc<CompiledTrace>, BuildHasherDefault<IdHasher>>;

/// The fold of a block of tests, and the last epoch a suite used it.
struct Block {
    fold: Rc<CompiledTrace>,
    used: u64,
}

/// The mean number of tests in a block.
const BLOCK: u64 = 8;

/// Whether a block ends after test `id`: its id, hashed (splitmix64), is 0 modulo [`BLOCK`].
fn ends_block(id: TestId) -> bool {
    let mut z = id.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^= z >> 31;
    z % BLOCK == 0
}

/// The blocks of a suite's tests: index ranges that cover `ids` in order.
fn cut(ids: &[TestId]) -> Vec<Range<usize>> {
    let mut cuts = Vec::with_capacity(ids.len() / BLOCK as usize + 1);
    let mut start = 0;
    for (k, id) in ids.iter().enumerate() {
        if ends_block(*id) || k + 1 == ids.len() {
            cuts.push(start..k + 1);
            start = k + 1;
        }
    }
    cuts
}

/// Whole-suite fitness from inside a stream ([`Evaluator::run_streamed`]'s `after_chunk` and
/// `idle`): suites whose tests have all run can be scored, and those still waiting for a test
/// prepared, while the host runs the next chunks.
pub struct Scoring<'e> {
    books: &'e mut Books,
    compiled: &'e mut Compiled,
    in_fitness: &'e mut Duration,
}

impl Scoring<'_> {
    /// Whether test `id` has a trace.
    #[must_use]
    pub fn has_trace(&self, id: TestId) -> bool {
        self.books.cache.contains_key(&id)
    }

    /// [`Evaluator::suite_fitness`]. The same value as after the generation: whole-suite
    /// fitness reads the static goals and the traces, not the exception goals registered
    /// meanwhile (the exception term counts the distinct exceptions the traces hold).
    pub fn suite_fitness(&mut self, ids: impl IntoIterator<Item = TestId>) -> SuiteFitness {
        score_suite(self.books, self.compiled, self.in_fitness, ids)
    }

    /// [`suite_fitness`](Self::suite_fitness) of an offspring scored ahead of its turn while
    /// the search waits for results (counted in [`Usage::scored_ahead`]).
    pub fn score_ahead(&mut self, ids: impl IntoIterator<Item = TestId>) -> SuiteFitness {
        self.books.usage.scored_ahead += 1;
        self.suite_fitness(ids)
    }

    /// Folds the blocks of the suite of tests `ids` whose tests have all run (as
    /// [`suite_fitness`](Self::suite_fitness) would, keeping the blocks for later suites),
    /// so that scoring the suite once the others have run ([`finish`](Self::finish)) folds
    /// only those. Not a fitness evaluation (counted in [`Usage::prepared_ahead`]). Worth it
    /// while the search waits for the host: an offspring's blocks are mostly its parents',
    /// already folded, and scoring it then reads a fold of all of them instead of each.
    pub fn prepare(&mut self, ids: Vec<TestId>) -> Prepared {
        let t0 = Instant::now();
        let Scoring {
            books, compiled, ..
        } = self;
        books.usage.prepared_ahead += 1;
        let mut parts = Vec::with_capacity(BLOCK as usize);
        let mut ready = Vec::new();
        let mut waiting = Vec::new();
        for r in blocks_of(&ids) {
            let block = &ids[r.clone()];
            if block.iter().all(|id| books.cache.contains_key(id)) {
                ready.extend(compiled.fold(&books.cache, block, &mut parts));
            } else {
                waiting.push(r);
            }
        }
        let fold = compiled
            .scorer
            .merge(std::iter::once(&compiled.init).chain(ready.iter().map(|f| &**f)));
        *self.in_fitness += t0.elapsed();
        Prepared {
            fold,
            waiting,
            ids: ids.into_boxed_slice(),
        }
    }

    /// The whole-suite fitness of the suite `prepared` was [`prepare`](Self::prepare)d from:
    /// its fold and the blocks that were waiting, folded now; the same value as
    /// [`suite_fitness`](Self::suite_fitness) (the merge is exact), tests that never got a
    /// trace (cut off by the deadline) left out alike. One fitness evaluation.
    pub fn finish(&mut self, prepared: &Prepared) -> SuiteFitness {
        let t0 = Instant::now();
        let Scoring {
            books, compiled, ..
        } = self;
        books.usage.evaluations += 1;
        let mut parts = Vec::with_capacity(BLOCK as usize);
        let folds: Vec<Rc<CompiledTrace>> = prepared
            .waiting
            .iter()
            .filter_map(|r| prepared.ids.get(r.clone()))
            .filter_map(|block| compiled.fold(&books.cache, block, &mut parts))
            .collect();
        let f = compiled.scorer.score_compiled(
            &books.goals,
            std::iter::once(&prepared.fold).chain(folds.iter().map(|f| &**f)),
        );
        *self.in_fitness += t0.elapsed();
        f
    }

    /// [`Evaluator::retain`] from inside a stream: `keep` must keep the tests of the stream
    /// that have run (they are scored later).
    pub fn retain(&mut self, keep: impl Fn(TestId) -> bool) {
        retain(self.books, self.compiled, keep);
    }
}

/// Whole-suite fitness of the tests `ids` (those with a trace) and the static initialisers;
/// one fitness evaluation.
fn score_suite(
    books: &mut Books,
    compiled: &mut Compiled,
    in_fitness: &mut Duration,
    ids: impl IntoIterator<Item = TestId>,
) -> SuiteFitness {
    let t0 = Instant::now();
    books.usage.evaluations += 1;
    let ids: Vec<TestId> = ids.into_iter().collect();
    let mut parts = Vec::with_capacity(BLOCK as usize);
    let folds: Vec<Rc<CompiledTrace>> = blocks_of(&ids)
        .into_iter()
        .filter_map(|r| compiled.fold(&books.cache, &ids[r], &mut parts))
        .collect();
    let f = compiled.scorer.score_compiled(
        &books.goals,
        std::iter::once(&compiled.init).chain(folds.iter().map(|f| &**f)),
    );
    *in_fitness += t0.elapsed();
    f
}

/// The blocks a suite of these tests is folded in: blocks of one for a small suite, else
/// [`cut`].
fn blocks_of(ids: &[TestId]) -> Vec<Range<usize>> {
    if ids.len() < 2 * BLOCK as usize {
        (0..ids.len()).map(|k| k..k + 1).collect()
    } else {
        cut(ids)
    }
}

impl Compiled {
    /// Test `id`'s compiled trace, compiled now if it is not yet; `None` without a trace (cut
    /// off by the deadline: not part of the suite's fitness).
    fn test(
        &mut self,
        cache: &BTreeMap<TestId, Arc<Trace>>,
        id: TestId,
    ) -> Option<Rc<CompiledTrace>> {
        match self.tests.entry(id) {
            hash_map::Entry::Occupied(o) => Some(Rc::clone(o.get())),
            hash_map::Entry::Vacant(v) => cache
                .get(&id)
                .map(|trace| Rc::clone(v.insert(Rc::new(self.scorer.compile(trace))))),
        }
    }

    /// The fold of a block of a suite's tests: the kept one, or merged now (and kept, unless
    /// a test of the block has no trace: then it is folded for this suite only); `None` for a
    /// block of one test without a trace. `parts` is scratch.
    fn fold(
        &mut self,
        cache: &BTreeMap<TestId, Arc<Trace>>,
        block: &[TestId],
        parts: &mut Vec<Rc<CompiledTrace>>,
    ) -> Option<Rc<CompiledTrace>> {
        if let [one] = block {
            return self.test(cache, *one);
        }
        if let Some(b) = self.blocks.get_mut(block) {
            b.used = self.epoch;
            return Some(Rc::clone(&b.fold));
        }
        parts.clear();
        for &id in block {
            parts.extend(self.test(cache, id));
        }
        let fold = Rc::new(self.scorer.merge(parts.iter().map(|p| &**p)));
        if parts.len() == block.len() {
            let kept = Block {
                fold: Rc::clone(&fold),
                used: self.epoch,
            };
            self.blocks.insert(block.into(), kept);
        }
        Some(fold)
    }
}

/// A suite scored in part before all its tests have run ([`Scoring::prepare`]): the fold of
/// the static initialisers and of the suite's blocks whose tests had all run, and the blocks
/// that were waiting for a test. [`Scoring::finish`] folds those in once their tests have run.
///
/// ```text
/// suite     [a b c] [d e F g] [h i]      (F not run yet)
/// prepared  merge(init, [a b c], [h i]) + waiting [d e F g]
/// finished  score(prepared, merge(d e F g))  = score(init, [a b c], [d e F g], [h i])
/// ```
#[derive(Debug)]
pub struct Prepared {
    fold: CompiledTrace,
    /// The blocks of `ids` not folded yet.
    waiting: Vec<Range<usize>>,
    /// The suite's tests, in order.
    ids: Box<[TestId]>,
}

impl Books {
    /// Takes in the result of one test: counts it, keeps the values it compared (during the
    /// search), registers the exception goals it reveals and caches its trace.
    fn absorb(&mut self, id: TestId, test: &Test, mut result: TestResult) -> Arc<Trace> {
        self.usage.statements += u64::from(result.executed);
        self.usage.tests += 1;
        self.usage.test_micros += result.micros;
        if !self.frozen && !result.probes.compared.is_empty() {
            // The test's own inputs come back among the operands: only the values it did not
            // write itself are news (a constant or a value the code computed). (Array lengths
            // are inputs too.)
            let inputs = inputs(test);
            self.compared.extend(
                std::mem::take(&mut result.probes.compared)
                    .into_iter()
                    .filter(|v| !inputs.iter().any(|i| **i == *v)),
            );
        }
        if !result.mock_calls.is_empty() && !crate::mocks::follows(test, &result.mock_calls) {
            let calls = std::mem::take(&mut result.mock_calls);
            self.mock_calls.push((crate::mocks::test_key(test), calls));
        }
        if !self.frozen {
            self.resources.merge(&result.resources, MAX_RESOURCE_FILES);
        }
        let trace = Trace::from_result(&self.goals, test, &result);
        if !self.frozen {
            self.new_goals.extend(self.goals.discover_goals(&trace));
        }
        let trace = Arc::new(trace);
        self.cache.insert(id, Arc::clone(&trace));
        trace
    }
}

impl<'h> Evaluator<'h> {
    /// An evaluator for `goals` (built from `host`'s probe map) under `budget`; the clock
    /// starts now.
    pub fn new(host: &'h mut dyn Executor, goals: GoalSet, budget: Budget) -> Self {
        let init = Trace::from_probes(&host.ready().init_probes);
        let mut scorer = SuiteScorer::new(&goals);
        Evaluator {
            host,
            compiled: Compiled {
                init: scorer.compile(&init),
                scorer,
                tests: HashMap::default(),
                blocks: HashMap::default(),
                epoch: 0,
            },
            books: Books {
                goals,
                cache: BTreeMap::new(),
                usage: Usage::default(),
                in_traces: Duration::ZERO,
                new_goals: Vec::new(),
                compared: Vec::new(),
                mock_calls: Vec::new(),
                resources: Resources::default(),
                frozen: false,
            },
            init,
            budget,
            started: Instant::now(),
            in_host: Duration::ZERO,
            in_calls: Duration::ZERO,
            in_fitness: Duration::ZERO,
            after_deadline: None,
        }
    }

    /// The goal set (it grows by the exception goals found at run time).
    #[must_use]
    pub fn goals(&self) -> &GoalSet {
        &self.books.goals
    }

    /// Gives the goal set back (after the search).
    #[must_use]
    pub fn into_goals(self) -> GoalSet {
        self.books.goals
    }

    /// The trace of class initialisation, shared by every suite.
    #[must_use]
    pub fn init_trace(&self) -> &Trace {
        &self.init
    }

    /// Resources used so far.
    #[must_use]
    pub fn usage(&self) -> Usage {
        self.books.usage
    }

    /// Mutable counters (algorithms count their generations and evaluations here).
    pub fn usage_mut(&mut self) -> &mut Usage {
        &mut self.books.usage
    }

    /// Wall time since the evaluator was created.
    #[must_use]
    pub fn elapsed(&self) -> Duration {
        self.started.elapsed()
    }

    /// Wall time spent waiting for the host (executing tests, including IPC).
    #[must_use]
    pub fn in_host(&self) -> Duration {
        self.in_host
    }

    /// Wall time spent inside the calls that run tests, a stream's whole length included
    /// (while the host waits for the search to build the next chunk): the rest of the wall
    /// time the host cannot work at all (between generations).
    #[must_use]
    pub fn in_calls(&self) -> Duration {
        self.in_calls
    }

    /// Whether the budget is used up.
    #[must_use]
    pub fn exhausted(&self) -> bool {
        self.budget.exhausted(&self.books.usage, self.elapsed())
    }

    /// The share of the budget used, in \[0, 1\].
    #[must_use]
    pub fn progress(&self) -> f64 {
        self.budget.progress(&self.books.usage, self.elapsed())
    }

    /// The budget.
    #[must_use]
    pub fn budget(&self) -> &Budget {
        &self.budget
    }

    /// The cached trace of a test, if it ran.
    #[must_use]
    pub fn trace(&self, id: TestId) -> Option<&Arc<Trace>> {
        self.books.cache.get(&id)
    }

    /// Runs the tests whose ids have no trace yet (in batches of up to 128, 8 once a batch took
    /// over a second, in the given order; duplicate ids run once; during the search the batches
    /// stop once the budget is spent)
    /// and returns the ids that ran, with their traces. Exception goals that
    /// appear are registered and can be taken with [`take_new_goals`](Self::take_new_goals).
    pub fn run(&mut self, tests: &[(TestId, &Test)]) -> Result<Vec<(TestId, Arc<Trace>)>> {
        let mut seen = std::collections::BTreeSet::new();
        let todo: Vec<(TestId, &Test)> = tests
            .iter()
            .filter(|(id, _)| !self.books.cache.contains_key(id) && seen.insert(*id))
            .copied()
            .collect();
        if todo.is_empty() {
            return Ok(Vec::new());
        }
        let call_started = Instant::now();
        let mut out = Vec::with_capacity(todo.len());
        // In slices, so that a generation of slow tests (each up to the time limit) cannot
        // overrun the budget by more than a slice; the tests of the slices not run get no
        // trace. (Not after the search: minimisation runs to the end.)
        let mut start = 0;
        let mut size = SLICE;
        while start < todo.len() {
            if start > 0 && (!self.books.frozen && self.exhausted() || self.after_search_expired())
            {
                break;
            }
            let slice = &todo[start..(start + size).min(todo.len())];
            start += slice.len();
            let batch: Vec<Test> = slice.iter().map(|(_, t)| (*t).clone()).collect();
            let t0 = Instant::now();
            // Under a time budget the host stops starting tests when it runs out.
            let deadline = if self.books.frozen {
                self.after_deadline
            } else {
                self.budget.time.map(|t| self.started + t)
            };
            let results = self.host.run_until(&batch, false, deadline)?;
            let took = t0.elapsed();
            self.in_host += took;
            // Slow tests (time-outs, hostile code): smaller slices, checked more often.
            if took > SLOW_SLICE {
                size = SLICE_WHEN_SLOW;
            }
            let t1 = Instant::now();
            for ((id, test), result) in slice.iter().zip(results) {
                let trace = self.books.absorb(*id, test, result);
                out.push((*id, trace));
            }
            self.books.in_traces += t1.elapsed();
        }
        self.in_calls += call_started.elapsed();
        Ok(out)
    }

    /// Runs the tests `produce` builds while it builds more: each chunk it returns goes to the
    /// host at once ([`Executor::open_stream`]), which hands it to the worker as soon as the
    /// worker is done with the one before (it waits in the worker's pipe), while `produce` is
    /// called for the next; results are taken in chunk by chunk, in order, between calls. So
    /// building tests and taking in results on the search's side overlap running tests on
    /// the JVM's (with two cores, one each). At most `ahead` chunks (at least one) are out at
    /// a time: the search then takes the oldest one's results in before it builds more.
    /// `produce` returns `None` when there is nothing more (it is not called again); under a
    /// time budget it is not called once the budget is spent.
    ///
    /// Tests already traced or already produced run once; each of the others is handed to
    /// `taken_in` with its trace as soon as its chunk's results are in (while the host runs the
    /// next chunks), in the order produced; those cut off by the deadline get no call. What
    /// `produce` builds does not depend on when results arrive, so the same RNG gives the same
    /// tests. The time the host worked (not waiting for chunks) counts as time in the host.
    /// After each chunk is taken in, `after_chunk` may score suites (see [`Scoring`]). While
    /// the search would wait for results, `idle` is called instead (`score_ahead`
    /// [`WhileWaiting`](ScoreAhead::WhileWaiting)), again and again while it returns true and
    /// the results are not in: each call does one small piece of work that can be done ahead
    /// (scoring suites, or preparing them: [`Scoring::prepare`]), so that less is left once
    /// the results are in, when the host may be waiting for the next chunk. With
    /// [`Always`](ScoreAhead::Always) it is called until it returns false before each wait,
    /// with [`Off`](ScoreAhead::Off) never. What it does must not change the search: how often
    /// it is called depends on timing.
    ///
    /// ```text
    /// (ahead 3)
    /// search:  build 1 | build 2 | build 3 | take in 1, build 4 | take in 2 …
    /// worker:           run 1 ---------------| run 2 ------------| run 3 …
    /// ```
    pub fn run_streamed(
        &mut self,
        ahead: usize,
        score_ahead: ScoreAhead,
        mut produce: impl FnMut() -> Result<Option<Chunk>>,
        mut taken_in: impl FnMut(&GoalSet, TestId, &Test, &Arc<Trace>),
        mut after_chunk: impl FnMut(&mut Scoring<'_>),
        mut idle: impl FnMut(&mut Scoring<'_>) -> bool,
    ) -> Result<()> {
        let Evaluator {
            host,
            books,
            compiled,
            budget,
            started,
            in_host,
            in_calls,
            in_fitness,
            ..
        } = self;
        let call_started = Instant::now();
        let deadline = budget.time.map(|t| *started + t);
        let host: &mut dyn Executor = &mut **host;
        // The host's own thread runs the chunks while this one builds the next and takes
        // results in.
        let mut stream = host.open_stream(false, deadline)?;
        let mut in_flight: VecDeque<Chunk> = VecDeque::new();
        let mut arrived: BTreeMap<usize, Vec<TestResult>> = BTreeMap::new();
        let mut taken = 0usize;
        let mut seen: BTreeSet<TestId> = BTreeSet::new();
        'chunks: loop {
            // Closed when nothing more comes: the host then ends once the chunks out are done.
            if stream.is_open() && in_flight.len() < ahead.max(1) {
                let chunk = if deadline.is_some_and(|d| Instant::now() >= d) {
                    None
                } else {
                    produce()?
                };
                let Some(chunk) = chunk else {
                    stream.close();
                    continue;
                };
                let todo: Chunk = chunk
                    .into_iter()
                    .filter(|(id, _)| !books.cache.contains_key(id) && seen.insert(*id))
                    .collect();
                if !todo.is_empty() {
                    let batch = todo.iter().map(|(_, t)| Arc::clone(t)).collect();
                    if !stream.send(batch) {
                        // The host stopped (deadline or failure): nothing more runs.
                        stream.close();
                        continue;
                    }
                    in_flight.push_back(todo);
                }
                continue;
            }
            let Some(todo) = in_flight.pop_front() else {
                break;
            };
            // Chunks finish in order with one worker; with several they are put back in
            // order.
            let mut busy = score_ahead == ScoreAhead::WhileWaiting;
            if score_ahead == ScoreAhead::Always {
                let mut scoring = Scoring {
                    books,
                    compiled,
                    in_fitness,
                };
                while idle(&mut scoring) {}
            }
            while !arrived.contains_key(&taken) {
                let polled = match stream.poll() {
                    Polled::Pending if busy => {
                        busy = idle(&mut Scoring {
                            books,
                            compiled,
                            in_fitness,
                        });
                        continue;
                    }
                    Polled::Pending => stream.recv(),
                    Polled::Ready(i, results) => Some((i, results)),
                    Polled::Ended => None,
                };
                match polled {
                    Some((i, results)) => {
                        arrived.insert(i, results);
                    }
                    // The host stopped: the chunks not reported get no traces.
                    None => break 'chunks,
                }
            }
            let results = arrived.remove(&taken).unwrap_or_default();
            taken += 1;
            let t1 = Instant::now();
            for ((id, test), result) in todo.into_iter().zip(results) {
                let trace = books.absorb(id, &test, result);
                taken_in(&books.goals, id, &test, &trace);
            }
            books.in_traces += t1.elapsed();
            after_chunk(&mut Scoring {
                books,
                compiled,
                in_fitness,
            });
        }
        *in_host += stream.finish()?;
        *in_calls += call_started.elapsed();
        Ok(())
    }

    /// Stops registering exception goals (minimisation runs variants of the final tests: an
    /// exception only a discarded variant throws must not become a goal).
    pub fn freeze_goals(&mut self) {
        self.books.frozen = true;
        // Under a time budget, what follows the search (minimisation) gets a quarter of it
        // more (at least 2 s): variants of slow tests must not make it unbounded.
        self.after_deadline = self
            .budget
            .time
            .map(|t| Instant::now() + (t / 4).max(Duration::from_secs(2)));
    }

    /// Whether the time after the search (see [`freeze_goals`](Self::freeze_goals)) is up.
    #[must_use]
    pub fn after_search_expired(&self) -> bool {
        self.books.frozen && self.after_deadline.is_some_and(|d| Instant::now() >= d)
    }

    /// Exception goals registered since the last call.
    pub fn take_new_goals(&mut self) -> Vec<GoalId> {
        std::mem::take(&mut self.books.new_goals)
    }

    /// The values the code under test compared in the tests run since the last call (in
    /// test order; without the values each test wrote itself; none once the goals are
    /// frozen): seeds for the factory's observed pool.
    pub fn take_compared(&mut self) -> Vec<Prim> {
        std::mem::take(&mut self.books.compared)
    }

    /// What the mocks of the tests run since the last call were called for, for each test
    /// (by [`crate::mocks::test_key`]) whose stubs did not say so.
    pub fn take_mock_calls(&mut self) -> Vec<(u64, Vec<MockCalls>)> {
        std::mem::take(&mut self.books.mock_calls)
    }

    /// The files, console, clock and randomness the tests run since the last call used (none
    /// once the goals are frozen): what enables environment statements.
    pub fn take_resources(&mut self) -> Resources {
        std::mem::take(&mut self.books.resources)
    }

    /// Whole-suite fitness of the tests with these ids (each must have run), class
    /// initialisation included; counts one fitness evaluation.
    pub fn suite_fitness(&mut self, ids: impl IntoIterator<Item = TestId>) -> SuiteFitness {
        score_suite(
            &mut self.books,
            &mut self.compiled,
            &mut self.in_fitness,
            ids,
        )
    }

    /// Calls `f` with a [`Scoring`] of this evaluator.
    pub fn scoring(&mut self, f: &mut impl FnMut(&mut Scoring<'_>)) {
        f(&mut Scoring {
            books: &mut self.books,
            compiled: &mut self.compiled,
            in_fitness: &mut self.in_fitness,
        });
    }

    /// Wall time spent turning results into traces (and registering exception goals).
    #[must_use]
    pub fn in_traces(&self) -> Duration {
        self.books.in_traces
    }

    /// Wall time spent computing whole-suite fitness.
    #[must_use]
    pub fn in_fitness(&self) -> Duration {
        self.in_fitness
    }

    /// Drops the cached traces of tests no longer needed, and the folds of blocks of tests
    /// that no suite used since the call before the last (call it once per generation; a
    /// block holding a test that is dropped goes with them, as no later suite can hold it).
    pub fn retain(&mut self, keep: impl Fn(TestId) -> bool) {
        retain(&mut self.books, &mut self.compiled, keep);
    }
}

/// [`Evaluator::retain`] on the evaluator's parts.
fn retain(books: &mut Books, compiled: &mut Compiled, keep: impl Fn(TestId) -> bool) {
    books.cache.retain(|id, _| keep(*id));
    compiled.tests.retain(|id, _| keep(*id));
    let epoch = compiled.epoch;
    compiled.blocks.retain(|_, b| b.used + 1 >= epoch);
    compiled.epoch += 1;
}

/// The values the test wrote itself, as the probes record them as operands: its primitive
/// statements (`boolean`, `byte`, `short` and `char` as the `int` the JVM compares, `float` as
/// the `double` it is widened to) and its array lengths. Computed once per test, not once per
/// operand it compared (that was 3 % of the search's thread on Conversion).
fn inputs(test: &Test) -> Vec<Cow<'_, Prim>> {
    test.statements
        .iter()
        .filter_map(|s| match s {
            Statement::Primitive(p) => Some(match (p.as_jvm_int(), p) {
                (Some(i), _) => Cow::Owned(Prim::Int(i)),
                (None, Prim::Float(f)) => Cow::Owned(Prim::Double(JDouble(f64::from(f.0)))),
                (None, other) => Cow::Borrowed(other),
            }),
            Statement::ArrayNew { length, .. } => i32::try_from(*length)
                .ok()
                .map(|l| Cow::Owned(Prim::Int(l))),
            _ => None,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use std::borrow::Cow;
    use std::collections::BTreeSet;

    use proptest::prelude::*;

    use super::{BLOCK, TestId, cut, inputs};

    #[test]
    fn a_tests_inputs_are_the_operands_the_probes_record() {
        use ferrosuite_bytecode::descriptor::FieldType;
        use ferrosuite_testcase::statement::{JDouble, JFloat};
        use ferrosuite_testcase::{Prim, Statement, Test, VarRef};
        let test = Test::new(vec![
            Statement::Primitive(Prim::Byte(3)),
            Statement::Primitive(Prim::Char('a' as u16)),
            Statement::Primitive(Prim::Boolean(true)),
            Statement::Primitive(Prim::Float(JFloat(1.5))),
            Statement::Primitive(Prim::Long(7)),
            Statement::string("x"),
            Statement::ArrayNew {
                component: FieldType::Int,
                length: 4,
            },
            Statement::method("a/B", "m", "(J)V", None, vec![VarRef(4)]),
        ]);
        let got: Vec<Prim> = inputs(&test).into_iter().map(Cow::into_owned).collect();
        assert_eq!(
            got,
            [
                Prim::Int(3),
                Prim::Int(97),
                Prim::Int(1),
                Prim::Double(JDouble(1.5)),
                Prim::Long(7),
                Prim::String("x".into()),
                Prim::Int(4),
            ]
        );
    }

    fn blocks(ids: &[TestId]) -> BTreeSet<Vec<TestId>> {
        cut(ids).into_iter().map(|r| ids[r].to_vec()).collect()
    }

    proptest! {
        #[test]
        fn blocks_cover_the_suite_and_survive_changes_elsewhere(
            ids in prop::collection::btree_set(0u64..100_000, 0..200),
            at in any::<prop::sample::Index>(),
            fresh in 100_000u64..200_000,
            split in any::<prop::sample::Index>(),
        ) {
            let ids: Vec<TestId> = ids.into_iter().map(TestId).collect();
            let cuts = cut(&ids);
            // The blocks cover the tests in order, none empty.
            let mut next = 0;
            for r in &cuts {
                prop_assert_eq!(r.start, next);
                prop_assert!(r.end > r.start);
                next = r.end;
            }
            prop_assert_eq!(next, ids.len());
            prop_assume!(!ids.is_empty());
            let before = blocks(&ids);
            // A test changed (a fresh id), removed or added at the end: at most two blocks
            // are new, and every other block of the parent is kept.
            let k = at.index(ids.len());
            let mut changed = ids.clone();
            changed[k] = TestId(fresh);
            let mut removed = ids.clone();
            removed.remove(k);
            let mut added = ids.clone();
            added.push(TestId(fresh));
            for variant in [changed, removed, added] {
                let after = blocks(&variant);
                prop_assert!(after.difference(&before).count() <= 2);
                prop_assert!(before.difference(&after).count() <= 2);
            }
            // Crossover: a prefix of the suite and the tail of another; only the block at the
            // join is new.
            let s = split.index(ids.len());
            let other: Vec<TestId> = (0..40).map(|i| TestId(200_000 + i)).collect();
            let mut joined = ids[..s].to_vec();
            joined.extend_from_slice(&other);
            let new = blocks(&joined);
            let old: BTreeSet<Vec<TestId>> = blocks(&ids).union(&blocks(&other)).cloned().collect();
            prop_assert!(new.difference(&old).count() <= 1);
        }
    }

    #[test]
    fn blocks_are_about_block_long() {
        let ids: Vec<TestId> = (0..16_000).map(TestId).collect();
        let n = cut(&ids).len() as f64;
        let mean = 16_000.0 / n;
        assert!((mean - BLOCK as f64).abs() < 2.0, "{mean}");
    }
}
