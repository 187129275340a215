//! The executor interface: what search, fitness and the pipeline ask of whatever runs tests.
//!
//! An [`Executor`] runs tests of the `ferrosuite-testcase` model against the instrumented
//! classes under test and returns one [`TestResult`] per test, in order. It runs a batch
//! ([`Executor::run_until`]) or a stream ([`Executor::open_stream`]): chunks sent while earlier
//! ones run, results taken as they come, so that a search builds the next tests while the
//! executor runs the current ones. The JVM host of `ferrosuite-exec` is one executor; a test
//! double, a replay of recorded results or a remote pool are others, and need only
//! [`run_until`](Executor::run_until): the provided [`open_stream`](Executor::open_stream)
//! runs each chunk as it is sent ([`SequentialStream`]).
//!
//! ```
//! use std::time::Instant;
//! use ferrosuite_bytecode::instrument::map::ProbeMap;
//! use ferrosuite_executor::{Executor, Ready, Result, Status, TestResult};
//! use ferrosuite_testcase::Test;
//!
//! /// Runs nothing: every test is reported as executed with no probe hit.
//! struct DryRun(ProbeMap, Ready);
//!
//! impl Executor for DryRun {
//!     fn map(&self) -> &ProbeMap { &self.0 }
//!     fn ready(&self) -> &Ready { &self.1 }
//!     fn run_until(&mut self, tests: &[Test], _observe: bool, _deadline: Option<Instant>)
//!         -> Result<Vec<TestResult>> {
//!         Ok(tests.iter().map(|_| TestResult::lost(Status::Completed)).collect())
//!     }
//! }
//!
//! let mut dry = DryRun(ProbeMap::default(), Ready::default());
//! let tests = vec![std::sync::Arc::new(Test::new(vec![]))];
//! let mut stream = dry.open_stream(false, None)?;
//! assert!(stream.send(tests));
//! assert_eq!(stream.recv().map(|(chunk, results)| (chunk, results.len())), Some((0, 1)));
//! stream.finish()?;
//! # Ok::<(), ferrosuite_executor::Error>(())
//! ```

use std::cell::{Cell, RefCell};
use std::collections::VecDeque;
use std::sync::Arc;
use std::time::{Duration, Instant};

use ferrosuite_bytecode::instrument::map::ProbeMap;
use ferrosuite_testcase::Test;
use serde::{Deserialize, Serialize};

use crate::error::Result;
use crate::result::{ProbeSnapshot, TestResult};

/// Runs tests against instrumented classes (see the module documentation).
pub trait Executor {
    /// The probe map of the instrumented classes the tests run against: what each probe id
    /// of a [`ProbeSnapshot`] means.
    fn map(&self) -> &ProbeMap;

    /// What the executor reported when it became ready: the probes of class initialisation
    /// (every test runs after it) and the classes whose initialisation failed.
    fn ready(&self) -> &Ready;

    /// Runs `tests` in order and returns their results in the same order. `observe` records
    /// values and inspector results after each statement (for assertions; slower). Once
    /// `deadline` has passed no more tests need be started: the results are then those of a
    /// prefix of `tests` (all of them when the deadline is not reached or is `None`).
    fn run_until(
        &mut self,
        tests: &[Test],
        observe: bool,
        deadline: Option<Instant>,
    ) -> Result<Vec<TestResult>>;

    /// [`run_until`](Self::run_until) with no deadline: one result per test.
    fn run(&mut self, tests: &[Test], observe: bool) -> Result<Vec<TestResult>> {
        self.run_until(tests, observe, None)
    }

    /// Opens a stream: chunks of tests sent through it run while the caller goes on, and their
    /// results come back chunk by chunk, numbered 0, 1, … in the order sent. With a `deadline`
    /// no chunk starts after it (the results are those of a prefix). The provided
    /// implementation runs each chunk with [`run_until`](Self::run_until) when it is sent
    /// ([`SequentialStream`]): correct, with no overlap of building and running.
    fn open_stream(
        &mut self,
        observe: bool,
        deadline: Option<Instant>,
    ) -> Result<Box<dyn TestStream + '_>> {
        Ok(Box::new(SequentialStream::new(move |tests: &[Test]| {
            self.run_until(tests, observe, deadline)
        })))
    }
}

/// A stream of chunks of tests open on an executor ([`Executor::open_stream`]).
pub trait TestStream {
    /// Hands a chunk to the executor; false when the stream stopped taking chunks (deadline,
    /// failure, or [`close`](Self::close)d).
    fn send(&self, chunk: Vec<Arc<Test>>) -> bool;

    /// The next chunk's results, with its number, waiting for them; `None` once the stream
    /// has ended and every result was taken.
    fn recv(&self) -> Option<(usize, Vec<TestResult>)>;

    /// The next chunk's results if they are in, without waiting.
    fn poll(&self) -> Polled;

    /// Whether chunks may still be sent (not [`close`](Self::close)d).
    fn is_open(&self) -> bool;

    /// No more chunks: the stream ends once those sent are done.
    fn close(&mut self);

    /// Closes the stream and waits for its end; returns the time the executor worked on it
    /// (not waiting for chunks).
    fn finish(self: Box<Self>) -> Result<Duration>;
}

/// What [`TestStream::poll`] found.
#[derive(Debug)]
pub enum Polled {
    /// A chunk's results, with its number.
    Ready(usize, Vec<TestResult>),
    /// None yet: the executor is still at work.
    Pending,
    /// The stream has ended and every result was taken.
    Ended,
}

/// What an executor reported when it became ready.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Ready {
    /// The version of the Java runtime the tests run on (`java.version`).
    pub java_version: String,
    /// Probe data of the static initialisers of the instrumented classes (every test runs
    /// after them, so their coverage belongs to every test).
    pub init_probes: ProbeSnapshot,
    /// Instrumented classes whose initialisation failed.
    pub init_failures: Vec<InitFailure>,
    /// Time from starting the executor to ready.
    pub startup: Duration,
}

/// A class whose static initialiser threw.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct InitFailure {
    /// Binary name.
    pub class: String,
    /// The throwable, as `class: message`.
    pub error: String,
}

/// Runs a chunk of tests (all, or a prefix past a deadline).
type RunChunk<'e> = Box<dyn FnMut(&[Test]) -> Result<Vec<TestResult>> + 'e>;

/// The stream of an executor with no streaming of its own: each chunk runs when it is sent
/// (see [`Executor::open_stream`]).
pub struct SequentialStream<'e> {
    run: RefCell<RunChunk<'e>>,
    done: RefCell<VecDeque<(usize, Vec<TestResult>)>>,
    sent: Cell<usize>,
    open: bool,
    /// Set once a chunk ran only in part (the deadline passed): nothing more runs.
    stopped: Cell<bool>,
    /// The first failure: the stream stops taking chunks, and `finish` reports it.
    failed: RefCell<Option<crate::Error>>,
    worked: Cell<Duration>,
}

impl<'e> SequentialStream<'e> {
    /// A stream whose chunks `run` runs (all of a chunk's tests or, past a deadline, a prefix).
    pub fn new(run: impl FnMut(&[Test]) -> Result<Vec<TestResult>> + 'e) -> Self {
        SequentialStream {
            run: RefCell::new(Box::new(run)),
            done: RefCell::new(VecDeque::new()),
            sent: Cell::new(0),
            open: true,
            stopped: Cell::new(false),
            failed: RefCell::new(None),
            worked: Cell::new(Duration::ZERO),
        }
    }
}

impl TestStream for SequentialStream<'_> {
    fn send(&self, chunk: Vec<Arc<Test>>) -> bool {
        if !self.open || self.stopped.get() || self.failed.borrow().is_some() {
            return false;
        }
        let tests: Vec<Test> = chunk.iter().map(|t| (**t).clone()).collect();
        let t0 = Instant::now();
        let result = (self.run.borrow_mut())(&tests);
        self.worked.set(self.worked.get() + t0.elapsed());
        match result {
            Ok(results) => {
                // A prefix: the deadline passed, nothing more runs.
                self.stopped.set(results.len() < tests.len());
                let n = self.sent.get();
                self.sent.set(n + 1);
                self.done.borrow_mut().push_back((n, results));
                true
            }
            Err(e) => {
                *self.failed.borrow_mut() = Some(e);
                false
            }
        }
    }

    fn recv(&self) -> Option<(usize, Vec<TestResult>)> {
        self.done.borrow_mut().pop_front()
    }

    fn poll(&self) -> Polled {
        match self.done.borrow_mut().pop_front() {
            Some((i, r)) => Polled::Ready(i, r),
            None => Polled::Ended,
        }
    }

    fn is_open(&self) -> bool {
        self.open
    }

    fn close(&mut self) {
        self.open = false;
    }

    fn finish(self: Box<Self>) -> Result<Duration> {
        match self.failed.into_inner() {
            Some(e) => Err(e),
            None => Ok(self.worked.get()),
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;
    use crate::result::Status;
    use crate::{Error, Executor};

    /// Runs `limit` tests at most in all, then reports prefixes; fails on a test with 3
    /// statements.
    struct Counting {
        map: ProbeMap,
        ready: Ready,
        limit: usize,
        ran: usize,
    }

    impl Executor for Counting {
        fn map(&self) -> &ProbeMap {
            &self.map
        }
        fn ready(&self) -> &Ready {
            &self.ready
        }
        fn run_until(
            &mut self,
            tests: &[Test],
            _observe: bool,
            _deadline: Option<Instant>,
        ) -> Result<Vec<TestResult>> {
            let mut out = Vec::new();
            for t in tests {
                if t.statements.len() == 3 {
                    return Err(Error::Contract("three statements".into()));
                }
                if self.ran == self.limit {
                    break;
                }
                self.ran += 1;
                let mut r = TestResult::lost(Status::Completed);
                r.executed = t.statements.len() as u32;
                out.push(r);
            }
            Ok(out)
        }
    }

    fn test(n: usize) -> Arc<Test> {
        use ferrosuite_testcase::{Prim, Statement};
        Arc::new(Test::new(vec![Statement::Primitive(Prim::Int(1)); n]))
    }

    fn counting(limit: usize) -> Counting {
        Counting {
            map: ProbeMap::default(),
            ready: Ready::default(),
            limit,
            ran: 0,
        }
    }

    #[test]
    fn a_sequential_stream_numbers_chunks_and_stops_after_a_prefix() {
        let mut exec = counting(3);
        let mut s = exec.open_stream(false, None).unwrap();
        assert!(s.send(vec![test(1), test(2)]));
        // Only one more test runs: a prefix, and the stream stops taking chunks.
        assert!(s.send(vec![test(1), test(2)]));
        assert!(!s.send(vec![test(1)]));
        let (i, r) = s.recv().unwrap();
        assert_eq!((i, r.len(), r[1].executed), (0, 2, 2));
        match s.poll() {
            Polled::Ready(i, r) => assert_eq!((i, r.len()), (1, 1)),
            other => panic!("{other:?}"),
        }
        assert!(matches!(s.poll(), Polled::Ended));
        s.close();
        assert!(!s.is_open());
        s.finish().unwrap();
    }

    #[test]
    fn a_sequential_stream_reports_the_executors_failure_at_the_end() {
        let mut exec = counting(10);
        let s = exec.open_stream(false, None).unwrap();
        assert!(!s.send(vec![test(3)]));
        assert!(!s.send(vec![test(1)]));
        assert!(s.recv().is_none());
        let err = s.finish().unwrap_err();
        assert!(err.to_string().contains("three statements"), "{err}");
    }
}
