//! The worker's watchdog: aborts a test that overruns its time or allocation limit, or ends
//! the worker.

use std::io::Write;
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use jni::sys::{jclass, jfieldID, jmethodID, jobject, jvalue};

use super::Output;
use crate::protocol::{Reply, buffer_frame, write_frame};
use crate::raw::{Jni, Kind};
use crate::result::{Status, TestResult};

/// A `jobject` handed to the watchdog thread (a global reference, valid on every thread).
struct Shared(jobject);
// SAFETY: global references may be used from any attached thread.
unsafe impl Send for Shared {}

/// Why the watchdog stopped a test.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(super) enum Fired {
    /// It ran past its time limit.
    #[default]
    Time,
    /// The executor thread allocated past the test's cap while it ran.
    Allocation,
}

/// What the watchdog needs to read the executor thread's allocation counter: `Host`'s static
/// `allocatedBytes(Thread)J`.
pub(super) struct AllocationCounter {
    pub(super) host: jclass,
    pub(super) method: jmethodID,
}

/// How often the allocation counter of a running test is read. A loop that allocates a
/// gigabyte a second passes a 64 MiB limit by at most a few dozen megabytes before it is
/// stopped, where the check after the test let it run to the time limit; each read is a JNI
/// call of a few microseconds, and only tests that run this long are read at all.
const POLL: Duration = Duration::from_millis(10);

/// What the executor and its watchdog share (behind one mutex that is only contended when the
/// watchdog fires).
#[derive(Default)]
struct WatchState {
    /// Number of the running test (counts up).
    seq: u64,
    /// When the running test must be aborted; `None` between tests.
    deadline: Option<Instant>,
    /// The last test the watchdog fired for.
    fired: u64,
    /// Why it fired for it.
    fired_for: Fired,
    /// While a running test's allocations are watched: the executor thread's allocation
    /// counter past which it is stopped, and when the counter is read next.
    allocation: Option<(i64, Instant)>,
    /// The running test's statement count: what a test stopped for its allocations is
    /// charged (see `Executor::run_test`).
    statements: u32,
    /// Set when the executor goes away.
    stop: bool,
    /// After firing: when to give the test up (report it, retire, exit) if it has not ended.
    give_up: Option<Instant>,
}

/// How long a test that overran its time limit gets to react to the abort flag and the
/// interrupt before the watchdog reports it as timed out and ends the worker process.
const HANG_GRACE: Duration = Duration::from_millis(500);

/// The executor's watchdog: after `timeout`, or as soon as the executor thread has allocated
/// past the test's cap (read every [`POLL`] while a test of the search runs), it sets
/// `Probe.abort` and interrupts the executor thread; if the test still runs [`HANG_GRACE`]
/// later (a loop in code without probes), it sends a timed-out (or exhausted) result and
/// `Retire` and ends the process.
///
/// Starting and ending a test only write the shared state: the watchdog thread is not woken
/// per test. It sleeps until the running test's deadline or next allocation read, or when no
/// test runs for `timeout` (for [`POLL`] when allocations are watched); a test that starts
/// during that idle sleep has a deadline no earlier than the sleep's end, so the watchdog is
/// never late by more than the scheduler's delay (and a poll by more than one [`POLL`]).
/// Firing happens under the lock, and an allocation read is acted on only while the test it
/// was read for still runs, so neither can hit the next test.
///
/// Example: with a 64 MiB limit, a test whose library loop builds a list of a hundred million
/// elements is stopped some 10 ms after its allocations pass 64 MiB: by `Probe.abort` if the
/// loop is in an instrumented class, otherwise 500 ms later by the end of the worker, where
/// the check after the test left it to the time limit (3 s) and then to the end of the worker.
pub(super) struct Watchdog {
    state: Arc<Mutex<WatchState>>,
    thread: Option<std::thread::Thread>,
    timeout: Duration,
}

/// The watchdog's JNI handles (global references and ids, valid on its thread).
struct Targets {
    probe: Shared,
    abort: usize,
    thread: Shared,
    interrupt: usize,
    counter: Option<(Shared, usize)>,
    /// The allocation limit in MiB, for the message of a test given up.
    limit_mib: u64,
}

impl Targets {
    /// Stops the running test: earlier results out, the abort flag set, the executor
    /// interrupted; the test is given up after [`HANG_GRACE`].
    fn fire(&self, jni: &Jni, output: &Output, st: &mut WatchState, now: Instant, why: Fired) {
        // Results of earlier tests go out first, without touching the JVM: the master must
        // see them even if the JVM hangs. (The executor is inside the test, not writing.)
        if let Ok(mut out) = output.lock() {
            let _ = out.flush();
        }
        st.fired = st.seq;
        st.fired_for = why;
        st.deadline = None;
        st.allocation = None;
        st.give_up = Some(now + HANG_GRACE);
        jni.set_field(
            self.probe.0,
            self.abort as jfieldID,
            Kind::Boolean,
            jvalue { z: true },
            true,
        );
        jni.call(
            self.thread.0,
            self.interrupt as jmethodID,
            Kind::Void,
            &[],
            false,
        );
        jni.clear_exception();
    }

    /// The executor thread's allocation counter (-1 when it cannot be read).
    fn allocated(&self, jni: &Jni) -> i64 {
        let Some((host, method)) = &self.counter else {
            return -1;
        };
        let v = jni.call(
            host.0,
            *method as jmethodID,
            Kind::Long,
            &[jvalue { l: self.thread.0 }],
            true,
        );
        if jni.exception_pending() {
            jni.clear_exception();
            return -1;
        }
        crate::raw::integral(Kind::Long, v).unwrap_or(-1)
    }
}

impl Watchdog {
    /// Starts the watchdog thread. `counter`, when given, lets it read the executor thread's
    /// allocations for tests started with a cap; `limit` is the allocation limit (bytes) the
    /// message of a test given up names.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn spawn(
        vm: &jni::JavaVM,
        output: Output,
        timeout: Duration,
        probe: jclass,
        abort: jfieldID,
        thread: jobject,
        interrupt: jmethodID,
        counter: Option<AllocationCounter>,
        limit: u64,
    ) -> Watchdog {
        let state = Arc::new(Mutex::new(WatchState::default()));
        let shared = Arc::clone(&state);
        let vm = vm.clone();
        let idle = if counter.is_some() { POLL } else { timeout };
        let targets = Targets {
            probe: Shared(probe),
            abort: abort as usize,
            thread: Shared(thread),
            interrupt: interrupt as usize,
            counter: counter.map(|c| (Shared(c.host), c.method as usize)),
            limit_mib: limit >> 20,
        };
        // The watchdog must be attached before the baseline of live threads is taken, or it
        // would count as a thread the first test left behind.
        let (attached_tx, attached_rx) = mpsc::channel::<()>();
        let spawned = std::thread::Builder::new()
            .name("ferrosuite-watchdog".into())
            .spawn(move || {
                let targets = targets;
                let _ = vm.attach_current_thread(|env| -> jni::errors::Result<()> {
                    // SAFETY: `env` is this thread's environment for the whole closure.
                    let jni = unsafe { Jni::new(env.get_raw()) };
                    let _ = attached_tx.send(());
                    loop {
                        // A read of the running test's allocations, done outside the lock.
                        let mut poll = None;
                        let sleep = {
                            let Ok(mut st) = shared.lock() else { break };
                            if st.stop {
                                break;
                            }
                            let now = Instant::now();
                            if st.give_up.is_some_and(|g| now >= g) {
                                // The test ignored the abort flag and the interrupt (a loop in
                                // code without probes): report it, retire, and end the process
                                // at once rather than make the master wait for its kill
                                // deadline. Earlier results are in the buffer before it.
                                let status = match st.fired_for {
                                    Fired::Time => Status::Timeout,
                                    Fired::Allocation => Status::Exhausted(format!(
                                        "allocated past the limit of {} MiB, then ignored the \
                                         abort flag and the interrupt",
                                        targets.limit_mib
                                    )),
                                };
                                if let Ok(mut out) = output.lock() {
                                    let mut lost = TestResult::lost(status);
                                    if st.fired_for == Fired::Allocation {
                                        lost.executed = st.statements;
                                    }
                                    let _ = buffer_frame(&mut *out, &Reply::Result(Box::new(lost)));
                                    let _ = write_frame(
                                        &mut *out,
                                        &Reply::Retire(
                                            "a test ignored the abort flag and the interrupt"
                                                .into(),
                                        ),
                                    );
                                }
                                std::process::exit(0);
                            }
                            match st.deadline {
                                Some(d) if now >= d => {
                                    targets.fire(&jni, &output, &mut st, now, Fired::Time);
                                    continue;
                                }
                                Some(d) => {
                                    let mut until = d;
                                    if let Some((cap, next)) = st.allocation {
                                        if now >= next {
                                            poll = Some((st.seq, cap));
                                            st.allocation = Some((cap, now + POLL));
                                        }
                                        until = until.min(now + POLL);
                                    }
                                    until.saturating_duration_since(now)
                                }
                                None => st
                                    .give_up
                                    .map_or(idle, |g| g.saturating_duration_since(now)),
                            }
                        };
                        if let Some((seq, cap)) = poll {
                            if targets.allocated(&jni) > cap {
                                let Ok(mut st) = shared.lock() else { break };
                                // Only while the test it was read for still runs.
                                if st.seq == seq && st.deadline.is_some() {
                                    let now = Instant::now();
                                    targets.fire(&jni, &output, &mut st, now, Fired::Allocation);
                                }
                            }
                            continue;
                        }
                        std::thread::park_timeout(sleep);
                    }
                    Ok(())
                });
            });
        let thread = match spawned {
            Ok(handle) => {
                let _ = attached_rx.recv_timeout(Duration::from_secs(30));
                Some(handle.thread().clone())
            }
            Err(_) => None,
        };
        Watchdog {
            state,
            thread,
            timeout,
        }
    }

    /// Starts a test's watch: its time limit, and when `allocation_cap` is given (and the
    /// watchdog has the counter), the executor thread's allocation counter value it must not
    /// pass; `statements` is the test's length.
    pub(super) fn start(&mut self, allocation_cap: Option<i64>, statements: u32) {
        if let Ok(mut st) = self.state.lock() {
            let now = Instant::now();
            st.seq += 1;
            st.statements = statements;
            st.deadline = Some(now + self.timeout);
            st.allocation = allocation_cap.map(|cap| (cap, now + POLL));
        }
    }

    /// Ends the current test; why the watchdog stopped it, if it did.
    pub(super) fn end(&mut self) -> Option<Fired> {
        let mut st = self.state.lock().ok()?;
        st.deadline = None;
        st.give_up = None;
        st.allocation = None;
        (st.fired == st.seq).then_some(st.fired_for)
    }
}

impl Drop for Watchdog {
    fn drop(&mut self) {
        if let Ok(mut st) = self.state.lock() {
            st.stop = true;
        }
        if let Some(t) = &self.thread {
            t.unpark();
        }
    }
}
