//! Streams: chunks of tests handed to the host while earlier ones run, on the host's thread.

use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use ferrosuite_executor::{Polled, TestStream};
use ferrosuite_testcase::Test;

use super::slots::{Job, Source, run_slots};
use super::{Host, HostConfig, Slot, WorkerProgram};
use crate::error::{Error, Result};
use crate::protocol::Setup;
use crate::result::TestResult;

impl Host {
    /// Runs chunks of tests as they arrive on `chunks`, until the sender hangs up: each
    /// chunk's results go to `results` as soon as the chunk is done, with its number (0, 1,
    /// … in the order sent; with one worker they also finish in that order).
    /// A worker is sent the next chunk while it runs the current one whenever that chunk has
    /// arrived, so a caller that hands over the next chunk before the current one is done
    /// keeps the worker busy without a gap. With a `deadline`, no chunk is started after it
    /// (the results are those of a prefix, the last chunk possibly cut short). A failure
    /// ends the job: the chunks not reported get no results.
    ///
    /// The tests are shared with the caller (`Arc`): nothing is copied to hand them over.
    /// For searches that build tests while earlier ones run. Hostile tests are handled as in
    /// [`run`](Self::run). Returns the time the workers spent waiting for chunks (the mean
    /// over workers): the rest of the call's time the host was at work. Runs on the calling
    /// thread; [`open_stream`](Self::open_stream) does the same on the host's own thread.
    pub fn run_stream(
        &mut self,
        chunks: mpsc::Receiver<Vec<Arc<Test>>>,
        results: &mpsc::Sender<(usize, Vec<TestResult>)>,
        observe: bool,
        deadline: Option<Instant>,
    ) -> Result<Duration> {
        let job = StreamJob {
            chunks,
            results: results.clone(),
            observe,
            deadline,
        };
        self.reclaim()?;
        stream_job(
            &mut self.slots,
            &self.program,
            &self.setup,
            &self.config,
            job,
        )
    }

    /// Opens a stream run by the host's stream thread: the chunks sent through the returned
    /// [`Stream`] run as in [`run_stream`](Self::run_stream), while the caller goes on (it
    /// builds the next chunk, takes results in). The thread stays for the next stream: a
    /// search that streams every generation does not start a thread each time (about 60 µs
    /// in the VMs measured, at up to a thousand generations a second). It holds the workers
    /// until the host is used otherwise.
    pub fn open_stream(&mut self, observe: bool, deadline: Option<Instant>) -> Result<Stream<'_>> {
        if self.lost {
            return Err(Error::StreamThread);
        }
        if self.streamer.is_none() {
            let (jobs, job_rx) = mpsc::channel::<StreamJob>();
            let (done_tx, done) = mpsc::channel();
            let slots = std::mem::take(&mut self.slots);
            let (program, setup, config) = (
                Arc::clone(&self.program),
                Arc::clone(&self.setup),
                Arc::clone(&self.config),
            );
            let thread = std::thread::Builder::new()
                .name("ferrosuite-host".into())
                .spawn(move || {
                    let mut slots = slots;
                    while let Ok(job) = job_rx.recv() {
                        // The time this thread worked on the stream: from taking the job to
                        // its end, less the workers' waits for chunks (the hand-overs before
                        // and after are not the host's work).
                        let t0 = Instant::now();
                        let r = stream_job(&mut slots, &program, &setup, &config, job)
                            .map(|waited| t0.elapsed().saturating_sub(waited));
                        if done_tx.send(r).is_err() {
                            break;
                        }
                    }
                    slots
                })
                .map_err(|e| {
                    // The slots went with the closure (their workers exit as their input
                    // closes).
                    self.lost = true;
                    Error::io("starting the host's stream thread")(e)
                })?;
            self.streamer = Some(Streamer { jobs, done, thread });
        }
        let (to_host, chunks) = mpsc::channel();
        let (results, from_host) = mpsc::channel();
        let job = StreamJob {
            chunks,
            results,
            observe,
            deadline,
        };
        let sent = self
            .streamer
            .as_ref()
            .is_some_and(|s| s.jobs.send(job).is_ok());
        if !sent {
            // The thread is gone (it ends only by panicking): `park` marks the workers lost.
            self.park();
            return Err(Error::StreamThread);
        }
        Ok(Stream {
            host: self,
            to_host: Some(to_host),
            from_host,
            finished: false,
        })
    }
}

/// A stream open on the host's stream thread ([`Host::open_stream`]): chunks go in with
/// [`send`](Stream::send), results come out with [`recv`](Stream::recv), and
/// [`finish`](Stream::finish) waits for the end. Dropping it closes it and waits as well (a
/// stream leaked with `mem::forget` is never closed: the host's thread waits for its chunks,
/// and the host's next use waits for that thread).
pub struct Stream<'h> {
    host: &'h mut Host,
    to_host: Option<mpsc::Sender<Vec<Arc<Test>>>>,
    from_host: mpsc::Receiver<(usize, Vec<TestResult>)>,
    finished: bool,
}

impl Stream<'_> {
    /// Hands a chunk to the host; false when the stream stopped taking chunks (deadline,
    /// failure, or [`close`](Self::close)d).
    #[must_use]
    pub fn send(&self, chunk: Vec<Arc<Test>>) -> bool {
        self.to_host.as_ref().is_some_and(|t| t.send(chunk).is_ok())
    }

    /// The next chunk's results, with its number, waiting for them; `None` once the stream
    /// has ended and every result was taken.
    #[must_use]
    pub fn recv(&self) -> Option<(usize, Vec<TestResult>)> {
        self.from_host.recv().ok()
    }

    /// The next chunk's results if they are in, without waiting: the caller can do something
    /// else while the host is still at work ([`Polled::Pending`]).
    #[must_use]
    pub fn poll(&self) -> Polled {
        match self.from_host.try_recv() {
            Ok((index, results)) => Polled::Ready(index, results),
            Err(mpsc::TryRecvError::Empty) => Polled::Pending,
            Err(mpsc::TryRecvError::Disconnected) => Polled::Ended,
        }
    }

    /// Whether chunks may still be sent (not [`close`](Self::close)d).
    #[must_use]
    pub fn is_open(&self) -> bool {
        self.to_host.is_some()
    }

    /// No more chunks: the stream ends once those sent are done.
    pub fn close(&mut self) {
        self.to_host = None;
    }

    /// Closes the stream and waits for its end: the time the host worked on it (its thread's
    /// time on the stream less the workers' waits for chunks, which is what
    /// [`Host::run_stream`] returns).
    pub fn finish(mut self) -> Result<Duration> {
        self.wait()
    }

    fn wait(&mut self) -> Result<Duration> {
        self.close();
        self.finished = true;
        let done = self.host.streamer.as_ref().map(|s| s.done.recv());
        if let Some(Ok(r)) = done {
            return r;
        }
        // The thread died without an answer: `park` marks the workers lost.
        self.host.park();
        Err(Error::StreamThread)
    }
}

impl Drop for Stream<'_> {
    fn drop(&mut self) {
        if !self.finished {
            let _ = self.wait();
        }
    }
}

impl TestStream for Stream<'_> {
    fn send(&self, chunk: Vec<Arc<Test>>) -> bool {
        Stream::send(self, chunk)
    }

    fn recv(&self) -> Option<(usize, Vec<TestResult>)> {
        Stream::recv(self)
    }

    fn poll(&self) -> Polled {
        Stream::poll(self)
    }

    fn is_open(&self) -> bool {
        Stream::is_open(self)
    }

    fn close(&mut self) {
        Stream::close(self);
    }

    fn finish(self: Box<Self>) -> ferrosuite_executor::Result<Duration> {
        Ok(Stream::finish(*self)?)
    }
}

/// The thread that runs streams for [`Host::open_stream`], holding the slots while it lives.
pub(super) struct Streamer {
    pub(super) jobs: mpsc::Sender<StreamJob>,
    done: mpsc::Receiver<Result<Duration>>,
    pub(super) thread: std::thread::JoinHandle<Vec<Slot>>,
}

/// A stream to run: where its chunks come from and its results go.
pub(super) struct StreamJob {
    chunks: mpsc::Receiver<Vec<Arc<Test>>>,
    results: mpsc::Sender<(usize, Vec<TestResult>)>,
    observe: bool,
    deadline: Option<Instant>,
}

/// Runs a stream on `slots` (see [`Host::run_stream`]).
fn stream_job(
    slots: &mut [Slot],
    program: &WorkerProgram,
    setup: &Setup,
    config: &HostConfig,
    job: StreamJob,
) -> Result<Duration> {
    let StreamJob {
        chunks,
        results,
        observe,
        deadline,
    } = job;
    let chunks = Mutex::new(chunks);
    let (next, stopped) = (AtomicUsize::new(0), AtomicBool::new(false));
    let waited = AtomicU64::new(0);
    let job = Job {
        source: Source::Stream {
            chunks: &chunks,
            next: &next,
            stopped: &stopped,
            waited: &waited,
        },
        sink: Some(results),
        observe,
        mutant: 0,
        deadline,
    };
    let workers = slots.len();
    for part in run_slots(slots, program, setup, config, workers, &job) {
        part?;
    }
    let per_worker = waited.load(Ordering::Relaxed) / u64::try_from(workers.max(1)).unwrap_or(1);
    Ok(Duration::from_nanos(per_worker))
}
