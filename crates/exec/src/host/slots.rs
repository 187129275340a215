//! Batches and slots: chunks of tests that the slots take in turn, each replacing lost workers.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use ferrosuite_testcase::Test;

use super::proc::start_worker;
use super::{HostConfig, Slot, WorkerProgram};
use crate::error::{Error, Result};
use crate::protocol::{Reply, RunMode, Setup, encode_run};
use crate::result::{Status, TestResult};
use crate::wire::NameTable;

/// Runs `job` on the first `workers` of `slots` (each on a thread of its own when there are
/// several), returning what each slot returned.
pub(super) fn run_slots(
    slots: &mut [Slot],
    program: &WorkerProgram,
    setup: &Setup,
    config: &HostConfig,
    workers: usize,
    job: &Job<'_>,
) -> Vec<Result<Vec<ChunkResults>>> {
    if workers == 1 {
        return slots
            .first_mut()
            .map(|slot| run_slot(slot, program, setup, config, job))
            .into_iter()
            .collect();
    }
    std::thread::scope(|s| {
        let handles: Vec<_> = slots
            .iter_mut()
            .take(workers)
            .map(|slot| s.spawn(move || run_slot(slot, program, setup, config, job)))
            .collect();
        handles
            .into_iter()
            .map(|h| {
                h.join()
                    .unwrap_or_else(|_| Err(Error::Protocol("a worker thread panicked".into())))
            })
            .collect()
    })
}

/// The results of one chunk of a batch, with the chunk's index.
pub(super) type ChunkResults = (usize, Vec<TestResult>);

/// Chunks of tests (a batch cut up front, or chunks streamed in) that the slots of a host take
/// in order.
pub(super) struct Job<'a> {
    pub(super) source: Source<'a>,
    /// Where finished chunks go as they finish (a stream); `None`: each slot returns them.
    pub(super) sink: Option<mpsc::Sender<ChunkResults>>,
    pub(super) observe: bool,
    /// The mutant the tests run against (0: none).
    pub(super) mutant: u32,
    pub(super) deadline: Option<Instant>,
}

/// Where a job's chunks come from.
pub(super) enum Source<'a> {
    /// A batch cut into chunks up front ([`Host::run_until`]).
    ///
    /// [`Host::run_until`]: super::Host::run_until
    Fixed {
        chunks: &'a [&'a [Test]],
        /// The next chunk to take (set past the end to stop every slot).
        next: &'a AtomicUsize,
    },
    /// Chunks handed over while the job runs ([`Host::run_stream`]), numbered in the order
    /// they were sent.
    ///
    /// [`Host::run_stream`]: super::Host::run_stream
    Stream {
        chunks: &'a Mutex<mpsc::Receiver<Vec<Arc<Test>>>>,
        next: &'a AtomicUsize,
        stopped: &'a AtomicBool,
        /// Nanoseconds the slots spent waiting for a chunk to arrive.
        waited: &'a AtomicU64,
    },
}

/// The tests of a chunk a slot has taken: borrowed from a batch, shared with the search when
/// streamed in (no copy either way).
enum Tests<'a> {
    Borrowed(&'a [Test]),
    Shared(Vec<Arc<Test>>),
}

impl Tests<'_> {
    fn len(&self) -> usize {
        match self {
            Tests::Borrowed(t) => t.len(),
            Tests::Shared(t) => t.len(),
        }
    }

    /// Encodes the request to run the tests from index `from` on into `frame`, for the
    /// worker whose names `table` holds.
    fn encode_run(
        &self,
        from: usize,
        table: &mut NameTable,
        mode: RunMode,
        frame: &mut Vec<u8>,
    ) -> Result<()> {
        match self {
            Tests::Borrowed(t) => encode_run(&t[from..], table, mode, frame),
            Tests::Shared(t) => encode_run(&t[from..], table, mode, frame),
        }
    }
}

impl<'a> Job<'a> {
    fn late(&self) -> bool {
        self.deadline.is_some_and(|d| Instant::now() >= d)
    }

    /// Takes the next chunk, unless the deadline has passed or none is left. A stream waits
    /// for the next chunk when `wait` is set (until the sender closes), and otherwise takes
    /// one only if it is there already.
    fn claim(&self, wait: bool) -> Option<(usize, Tests<'a>)> {
        if self.late() {
            // Chunks are taken in order: the ones run form a prefix.
            self.stop();
            return None;
        }
        match self.source {
            Source::Fixed { chunks, next } => {
                let i = next.fetch_add(1, Ordering::Relaxed);
                chunks.get(i).map(|c| (i, Tests::Borrowed(c)))
            }
            Source::Stream {
                chunks,
                next,
                stopped,
                waited,
            } => {
                let t0 = Instant::now();
                let got = loop {
                    if self.late() {
                        self.stop();
                        break None;
                    }
                    if stopped.load(Ordering::Relaxed) {
                        break None;
                    }
                    // A slot with chunks of its own never waits behind one waiting for the next
                    // (the one holding the lock has seen the channel empty).
                    let rx = if wait {
                        chunks.lock().ok()?
                    } else {
                        match chunks.try_lock() {
                            Ok(rx) => rx,
                            Err(_) => break None,
                        }
                    };
                    // Numbered under the lock: the numbers follow the order sent.
                    let number = || next.fetch_add(1, Ordering::Relaxed);
                    if !wait {
                        break rx.try_recv().ok().map(|tests| (number(), tests));
                    }
                    // In slices, so that a stop (another slot failed) or the deadline ends the
                    // wait.
                    let slice = self.deadline.map_or(WAIT_SLICE, |d| {
                        d.saturating_duration_since(Instant::now()).min(WAIT_SLICE)
                    });
                    match rx.recv_timeout(slice) {
                        Ok(tests) => break Some((number(), tests)),
                        Err(mpsc::RecvTimeoutError::Timeout) => {}
                        Err(mpsc::RecvTimeoutError::Disconnected) => break None,
                    }
                };
                if wait {
                    let nanos = u64::try_from(t0.elapsed().as_nanos()).unwrap_or(u64::MAX);
                    waited.fetch_add(nanos, Ordering::Relaxed);
                }
                // A chunk taken as the job stops is dropped with it.
                let (number, tests) = got.filter(|_| !stopped.load(Ordering::Relaxed))?;
                Some((number, Tests::Shared(tests)))
            }
        }
    }

    /// No slot takes another chunk.
    fn stop(&self) {
        match self.source {
            Source::Fixed { chunks, next } => next.store(chunks.len(), Ordering::Relaxed),
            Source::Stream { stopped, .. } => stopped.store(true, Ordering::Relaxed),
        }
    }

    /// A chunk is finished: into the slot's results, or at once to the stream's sink.
    fn finish(&self, done: &mut Vec<ChunkResults>, index: usize, results: Vec<TestResult>) {
        match &self.sink {
            // A receiver that hung up wants no more: the job ends with the chunks in flight.
            Some(sink) => {
                if sink.send((index, results)).is_err() {
                    self.stop();
                }
            }
            None => done.push((index, results)),
        }
    }
}

/// Longest a slot waiting for a streamed chunk goes without looking at the deadline and at
/// whether the job stopped.
const WAIT_SLICE: Duration = Duration::from_millis(50);

/// Chunks a slot keeps in flight: the one its worker runs and the next, sent ahead into the
/// pipe so that the worker starts it the moment it finishes the current one, instead of
/// waiting a round trip through the master (a gap per chunk that, with chunks of
/// [`MIN_CHUNK`] tests under a deadline, was a large share of a worker's time).
///
/// [`MIN_CHUNK`]: super::MIN_CHUNK
const IN_FLIGHT: usize = 2;

/// How a worker's run of a chunk ended.
enum Outcome {
    Done,
    Retired,
    Unexpected(String),
    /// The stream ended (the process died).
    Died,
    /// No reply within the time limit and the kill grace.
    Hung,
}

/// A chunk a slot has taken.
struct Claimed<'a> {
    index: usize,
    tests: Tests<'a>,
    results: Vec<TestResult>,
    /// Size of the request frame sent to the current worker; `None` while the current
    /// worker does not have it (not sent yet, or sent to a worker that was lost).
    sent: Option<usize>,
}

/// Runs chunks of `job` on one slot until none is left, replacing the worker whenever it is
/// lost, and returns each chunk's results with its index.
///
/// Up to [`IN_FLIGHT`] chunks are sent ahead: the next one only when every request the
/// worker may not have read yet fits in the pipe, so that a write never blocks on a busy
/// worker (the master must stay free to notice a hung one). A worker lost during a chunk
/// takes the requests sent ahead with it: the replacement gets the rest of the chunk and
/// then the chunks behind it again.
///
/// With a deadline, a chunk whose worker had to be replaced after the deadline ends there:
/// the results are those of a prefix (so that a run of hanging tests, each costing its time
/// limit and a restart, cannot overrun a time budget by a whole chunk of them).
fn run_slot(
    slot: &mut Slot,
    program: &WorkerProgram,
    setup: &Setup,
    config: &HostConfig,
    job: &Job<'_>,
) -> Result<Vec<ChunkResults>> {
    let r = slot_loop(slot, program, setup, config, job);
    if r.is_err() {
        // The other workers stop after their current chunk.
        job.stop();
    }
    r
}

fn slot_loop(
    slot: &mut Slot,
    program: &WorkerProgram,
    setup: &Setup,
    config: &HostConfig,
    job: &Job<'_>,
) -> Result<Vec<ChunkResults>> {
    let wait = config.timeout + config.kill_grace;
    let mut done = Vec::new();
    let mut queue: VecDeque<Claimed<'_>> = VecDeque::with_capacity(IN_FLIGHT);
    // After a worker died with results in its buffer, the rest of the chunk runs with a flush
    // per test, so that a test that kills the worker again is the one scored as crashed.
    let mut flush_each = false;
    let mut send_failures = 0;
    let mut frame = Vec::new();
    loop {
        while queue.len() < IN_FLIGHT {
            // A stream is waited for only when the slot has nothing else to do.
            let Some((index, tests)) = job.claim(queue.is_empty()) else {
                break;
            };
            queue.push_back(Claimed {
                index,
                results: Vec::with_capacity(tests.len()),
                tests,
                sent: None,
            });
        }
        let Some(front) = queue.front() else {
            return Ok(done);
        };
        if front.results.len() == front.tests.len() {
            // Complete (its worker retired or died after the last test).
            if let Some(f) = queue.pop_front() {
                job.finish(&mut done, f.index, f.results);
            }
            flush_each = false;
            continue;
        }
        if slot.proc.is_none() {
            if !front.results.is_empty() && job.late() {
                // Cut short at the deadline: the prefix ends here.
                job.stop();
                if let Some(f) = queue.pop_front() {
                    job.finish(&mut done, f.index, f.results);
                }
                return Ok(done);
            }
            start_worker(slot, program, setup, config.startup_timeout)?;
            for c in &mut queue {
                c.sent = None;
            }
        }
        let Some(mut p) = slot.proc.take() else {
            continue;
        };
        // Send what the worker lacks: the front's rest at once, a chunk behind it only when
        // it fits in the pipe beside the requests the worker may not have read yet.
        let mut unread: usize = queue.iter().filter_map(|c| c.sent).sum();
        let mut failed = None;
        for (k, c) in queue.iter_mut().enumerate() {
            if c.sent.is_some() {
                continue;
            }
            let mark = p.names.len();
            let mode = RunMode {
                observe: job.observe,
                flush_each: flush_each && k == 0,
                mutant: job.mutant,
            };
            if let Err(e) = c
                .tests
                .encode_run(c.results.len(), &mut p.names, mode, &mut frame)
            {
                failed = Some(e);
                break;
            }
            if k > 0 && unread + frame.len() > p.pipe_capacity {
                // Not sent: the worker does not learn its names either.
                p.names.truncate(mark);
                break;
            }
            if let Err(e) = p.send_frame(&frame) {
                p.names.truncate(mark);
                if k == 0 {
                    failed = Some(e);
                }
                // Behind the front, the worker died while running it: the replies tell how.
                break;
            }
            send_failures = 0;
            c.sent = Some(frame.len());
            unread += frame.len();
        }
        match failed {
            None => {}
            Some(e @ Error::Protocol(_)) => {
                // The request itself cannot be sent (too large): no worker would take it.
                let _ = p.kill();
                return Err(e);
            }
            Some(e) => {
                // The worker died between chunks: a fresh one gets the tests (but not
                // forever).
                let _ = p.kill();
                send_failures += 1;
                if send_failures >= 3 {
                    return Err(Error::Worker {
                        worker: slot.index,
                        detail: format!("three fresh workers in a row closed their input: {e}"),
                    });
                }
                for c in &mut queue {
                    c.sent = None;
                }
                continue;
            }
        }
        let Some(front) = queue.front_mut() else {
            continue;
        };
        let outcome = loop {
            match p.recv_timeout(wait) {
                Ok(Some(Reply::Result(r))) => {
                    match r.status {
                        // The worker's watchdog gave the test up (it retires next).
                        Status::Timeout => slot.stats.timeouts += 1,
                        Status::Exhausted(_) => slot.stats.exhausted += 1,
                        _ => {}
                    }
                    slot.stats.tests += 1;
                    slot.stats.statements += u64::from(r.executed);
                    front.results.push(*r);
                }
                Ok(Some(Reply::Done)) => break Outcome::Done,
                Ok(Some(Reply::Retire(_))) => break Outcome::Retired,
                Ok(Some(other)) => break Outcome::Unexpected(format!("{other:?}")),
                Ok(None) => break Outcome::Died,
                Err(_) => break Outcome::Hung,
            }
        };
        let alive = match outcome {
            Outcome::Done if front.results.len() == front.tests.len() => Some(p),
            Outcome::Done | Outcome::Unexpected(_) => {
                let _ = p.kill();
                let detail = match outcome {
                    Outcome::Unexpected(reply) => {
                        format!("unexpected reply during a batch: {reply}")
                    }
                    _ => "a chunk ended before all its results".into(),
                };
                return Err(Error::Worker {
                    worker: slot.index,
                    detail,
                });
            }
            Outcome::Retired => {
                slot.stats.retirements += 1;
                let _ = p.finish();
                None
            }
            Outcome::Died if !flush_each => {
                // Results of the tests before the one that killed the worker may have been
                // in its buffer: run the rest again, one flush per test.
                let _ = p.finish();
                flush_each = true;
                None
            }
            Outcome::Died => {
                let (status, err) = p.finish();
                slot.stats.tests += 1;
                slot.stats.crashes += 1;
                let why = if err.is_empty() {
                    format!("worker exited ({status})")
                } else {
                    format!("worker exited ({status}): {err}")
                };
                if slot.stats.first_crash.is_none() {
                    slot.stats.first_crash = Some(why.clone());
                }
                front.results.push(TestResult::lost(Status::Crashed(why)));
                None
            }
            Outcome::Hung => {
                let _ = p.kill();
                slot.stats.tests += 1;
                slot.stats.timeouts += 1;
                front.results.push(TestResult::lost(Status::Timeout));
                None
            }
        };
        match alive {
            Some(p) => {
                slot.proc = Some(p);
                if let Some(f) = queue.pop_front() {
                    job.finish(&mut done, f.index, f.results);
                }
                flush_each = false;
            }
            None => {
                // The requests sent ahead went with the worker.
                for c in &mut queue {
                    c.sent = None;
                }
            }
        }
    }
}
