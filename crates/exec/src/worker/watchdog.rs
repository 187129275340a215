//! The worker's watchdog: aborts a test that overruns its time limit, or ends the worker.

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
    /// Set when the executor goes away.
    stop: bool,
    /// After firing: when to give the test up (report it, retire, exit) if it has not ended.
    give_up: Option<Instant>,
}

/// How long a test that overran its time limit gets to react to the abort flag and the
/// interrupt before the watchdog reports it as timed out and ends the worker process.
const HANG_GRACE: Duration = Duration::from_millis(500);

/// The executor's watchdog: after `timeout` it sets `Probe.abort` and interrupts the
/// executor thread; if the test still runs [`HANG_GRACE`] later (a loop in code without
/// probes), it sends a timed-out result and `Retire` and ends the process.
///
/// Starting and ending a test only write the shared state: the watchdog thread is not woken
/// per test. It sleeps until the running test's deadline, or for `timeout` when no test runs;
/// a test that starts during that idle sleep has a deadline no earlier than the sleep's end, so
/// the watchdog is never late by more than the scheduler's delay. Firing happens under the
/// lock, so it can never hit the next test.
pub(super) struct Watchdog {
    state: Arc<Mutex<WatchState>>,
    thread: Option<std::thread::Thread>,
    timeout: Duration,
}

impl Watchdog {
    pub(super) fn spawn(
        vm: &jni::JavaVM,
        output: Output,
        timeout: Duration,
        probe: jclass,
        abort: jfieldID,
        thread: jobject,
        interrupt: jmethodID,
    ) -> Watchdog {
        let state = Arc::new(Mutex::new(WatchState::default()));
        let shared = Arc::clone(&state);
        let vm = vm.clone();
        let probe = Shared(probe);
        let thread = Shared(thread);
        let abort = abort as usize;
        let interrupt = interrupt as usize;
        // The watchdog must be attached before the baseline of live threads is taken, or it
        // would count as a thread the first test left behind.
        let (attached_tx, attached_rx) = mpsc::channel::<()>();
        let spawned = std::thread::Builder::new()
            .name("ferrosuite-watchdog".into())
            .spawn(move || {
                let (probe, thread) = (probe, thread);
                let _ = vm.attach_current_thread(|env| -> jni::errors::Result<()> {
                    // SAFETY: `env` is this thread's environment for the whole closure.
                    let jni = unsafe { Jni::new(env.get_raw()) };
                    let _ = attached_tx.send(());
                    loop {
                        let sleep = {
                            let Ok(mut st) = shared.lock() else { break };
                            if st.stop {
                                break;
                            }
                            let now = Instant::now();
                            if st.give_up.is_some_and(|g| now >= g) {
                                // The test ignored the abort flag and the interrupt (a loop in
                                // code without probes): report it as timed out, retire, and end
                                // the process at once rather than make the master wait for its
                                // kill deadline. Earlier results are in the buffer before it.
                                if let Ok(mut out) = output.lock() {
                                    let lost = TestResult::lost(Status::Timeout);
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
                                    // Results of earlier tests go out first, without touching
                                    // the JVM: the master must see them even if the JVM hangs.
                                    // (The executor is inside the test, not writing.)
                                    if let Ok(mut out) = output.lock() {
                                        let _ = out.flush();
                                    }
                                    st.fired = st.seq;
                                    st.deadline = None;
                                    st.give_up = Some(now + HANG_GRACE);
                                    jni.set_field(
                                        probe.0,
                                        abort as jfieldID,
                                        Kind::Boolean,
                                        jvalue { z: true },
                                        true,
                                    );
                                    jni.call(
                                        thread.0,
                                        interrupt as jmethodID,
                                        Kind::Void,
                                        &[],
                                        false,
                                    );
                                    jni.clear_exception();
                                    continue;
                                }
                                Some(d) => d.saturating_duration_since(now),
                                None => st
                                    .give_up
                                    .map_or(timeout, |g| g.saturating_duration_since(now)),
                            }
                        };
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

    pub(super) fn start(&mut self) {
        if let Ok(mut st) = self.state.lock() {
            st.seq += 1;
            st.deadline = Some(Instant::now() + self.timeout);
        }
    }

    /// Ends the current test; true if the watchdog fired for it.
    pub(super) fn end(&mut self) -> bool {
        self.state.lock().is_ok_and(|mut st| {
            st.deadline = None;
            st.give_up = None;
            st.fired == st.seq
        })
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
