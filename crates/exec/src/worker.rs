//! The worker process: one embedded JVM that runs tests sent by the master.
//!
//! Start-up, in order:
//! 1. the protocol streams are moved off file descriptors 0 and 1 (which then point at
//!    `/dev/null`), so neither the JVM nor the code under test can read or corrupt them;
//!    the worker exits when the master does;
//! 2. an executor thread with a large stack creates the JVM through the `jni` crate and
//!    defines the runtime classes (`Probe`, `Host`, `HostLoader`, `Sandbox`, …) in the system
//!    class loader;
//! 3. a `HostLoader` (a class of the `ferrosuite-runtime` crate) is created whose native `fetch` returns, for each
//!    class of the user's class path, the master's instrumented bytes or the original bytes,
//!    both sandboxed;
//! 4. the classes under test are initialised, and the probe data of their static
//!    initialisers is sent back with `Ready`.
//!
//! Then each test of a batch runs in a local frame: statements executed as JNI calls,
//! observations taken, leftover threads stopped, the probe ranges of the methods the test
//! entered read and cleared (the probe arrays span every instrumented class; a test that calls
//! `Stack.push` reads a few slots, not thousands), statics of the classes whose statics were
//! written reset; the result goes into a buffer flushed in bursts. A watchdog thread sets the
//! abort flag and
//! interrupts the executor when a test overruns; the master kills the process if that does not
//! help. After a test that leaves threads running, or hits a `StackOverflowError` or an
//! `OutOfMemoryError` the worker cannot shrug off, the worker sends `Retire` and exits, and the
//! master starts a fresh one. Such an error is shrugged off when no static initialiser was
//! running when it was thrown (as far as its stack trace tells) and, for an
//! `OutOfMemoryError`, once the test's values are released, a collection leaves at most half of
//! the maximum heap in use: a recursion without end, a failed huge allocation
//! (`new long[Integer.MAX_VALUE]`) or a test that filled the heap with its own objects then
//! costs an unwound stack or a collection instead of a JVM start. The stack trace is a partial
//! witness (the JVM gives only its first few out-of-memory errors one, and a stack overflow's
//! trace holds only the innermost frames), and an error thrown while some class's static
//! initialiser ran leaves that class erroneous for later tests; so a worker goes on after at
//! most `MAX_SURVIVALS` such errors and then makes way for a fresh one.
#![allow(unsafe_code)]

use std::cell::Cell;
use std::collections::HashMap;
use std::ffi::{CString, c_void};
use std::io::{BufReader, BufWriter, Write};
use std::process::ExitCode;
use std::rc::Rc;
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use ferrosuite_bytecode::classpath::{ClassPath, ClassPathEntry};
use ferrosuite_bytecode::descriptor::{FieldType, MethodDescriptor};
use ferrosuite_bytecode::hierarchy::Hierarchy;
use ferrosuite_bytecode::instrument::clock;
use ferrosuite_bytecode::instrument::sandbox::{Action, SandboxRules};
use ferrosuite_runtime as runtime;
use ferrosuite_testcase::statement::{JDouble, Name, Prim, Statement, Test};
use jni::sys::{JNIEnv, jboolean, jclass, jfieldID, jlong, jmethodID, jobject, jsize, jvalue};

use crate::protocol::{
    FLUSH_INTERVAL, InitFailure, MethodRanges, Reply, Request, Setup, buffer_frame, read_frame,
    read_frame_with, write_frame,
};
use crate::raw::{self, Jni, Kind};
use crate::result::{
    MAX_ARRAY_ELEMENTS, MAX_STRING, Observation, Observed, Outcome, ProbeSnapshot, Status,
    TestResult, ThrowKind, Thrown,
};
use crate::wire::NameId;

/// Stack size of the executor thread (deep but finite recursion in the code under test must
/// end in a `StackOverflowError`, not a crash).
const EXECUTOR_STACK: usize = 16 << 20;

/// Runs the worker: reads the protocol from standard input, writes it to standard output.
/// This is the whole `main` of `ferrosuite-worker` (and of `ferrosuite __worker`).
#[must_use]
pub fn worker_main() -> ExitCode {
    // Die with the master. (`PR_SET_PDEATHSIG` would fire when the master *thread* that
    // spawned the worker ends, so the parent is polled instead.)
    let parent = rustix::process::getppid();
    let _ = std::thread::Builder::new()
        .name("ferrosuite-parent-watch".into())
        .spawn(move || {
            loop {
                std::thread::sleep(Duration::from_millis(500));
                if rustix::process::getppid() != parent {
                    std::process::exit(3);
                }
            }
        });
    let (input, output) = match take_stdio() {
        Ok(io) => io,
        Err(e) => {
            eprintln!("ferrosuite-worker: cannot set up its pipes: {e}");
            return ExitCode::from(2);
        }
    };
    let mut input = BufReader::new(input);
    let output: Output = Arc::new(Mutex::new(BufWriter::with_capacity(1 << 16, output)));
    let setup = match read_frame::<Request>(&mut input) {
        Ok(Some(Request::Setup(s))) => s,
        Ok(_) => {
            eprintln!("ferrosuite-worker: expected a set-up message first");
            return ExitCode::from(2);
        }
        Err(e) => {
            eprintln!("ferrosuite-worker: {e}");
            return ExitCode::from(2);
        }
    };
    let executor = std::thread::Builder::new()
        .name("ferrosuite-executor".into())
        .stack_size(EXECUTOR_STACK)
        .spawn(move || serve(&setup, &mut input, &output));
    match executor.map(std::thread::JoinHandle::join) {
        Ok(Ok(code)) => ExitCode::from(code),
        Ok(Err(_)) => ExitCode::from(101),
        Err(e) => {
            eprintln!("ferrosuite-worker: cannot start the executor thread: {e}");
            ExitCode::from(2)
        }
    }
}

/// Moves the protocol streams to new descriptors and points 0 and 1 at `/dev/null`.
fn take_stdio() -> std::io::Result<(std::fs::File, std::fs::File)> {
    let input = rustix::io::dup(std::io::stdin())?;
    let output = rustix::io::dup(std::io::stdout())?;
    let null_in = std::fs::File::open("/dev/null")?;
    let null_out = std::fs::OpenOptions::new().write(true).open("/dev/null")?;
    rustix::stdio::dup2_stdin(&null_in)?;
    rustix::stdio::dup2_stdout(&null_out)?;
    Ok((std::fs::File::from(input), std::fs::File::from(output)))
}

/// The state the native `HostLoader.fetch` reads (shared by every Java thread that loads
/// classes; it lives as long as the process).
struct Fetcher {
    classpath: &'static ClassPath,
    hierarchy: Hierarchy<'static>,
    instrumented: HashMap<String, Vec<u8>>,
    sandbox: Option<SandboxRules>,
    /// Whether classes read a shifted clock (see `Setup::clock_shift_ms`).
    shift_clock: bool,
    /// Internal names in the order they were defined.
    loaded: Mutex<Vec<String>>,
}

impl Fetcher {
    fn bytes(&self, binary_name: &str) -> Option<Vec<u8>> {
        let internal = binary_name.replace('.', "/");
        let bytes = match self.instrumented.get(&internal) {
            Some(b) => b.clone(),
            None => match self.classpath.find_bytes(&internal) {
                Ok(Some((_, b))) => b,
                Ok(None) => return None,
                Err(e) => {
                    eprintln!("ferrosuite-worker: {e}");
                    return None;
                }
            },
        };
        let bytes = if let Some(rules) = &self.sandbox {
            match crate::sandbox::apply(&bytes, rules, Some(&self.hierarchy)) {
                Ok(b) => b,
                Err(e) => {
                    // Never define an unsandboxed class: the class is reported missing.
                    eprintln!("ferrosuite-worker: cannot sandbox {binary_name}: {e}");
                    return None;
                }
            }
        } else {
            bytes
        };
        let bytes = if self.shift_clock {
            match clock::shift_clock_bytes(&bytes) {
                Ok(b) => b.unwrap_or(bytes),
                Err(e) => {
                    // A class that would read the real clock is not defined either.
                    eprintln!("ferrosuite-worker: cannot shift the clock of {binary_name}: {e}");
                    return None;
                }
            }
        } else {
            bytes
        };
        if let Ok(mut l) = self.loaded.lock() {
            l.push(internal);
        }
        Some(bytes)
    }
}

/// `HostLoader.fetch(long, String) -> byte[]`.
extern "system" fn fetch(
    env: *mut JNIEnv,
    _class: jclass,
    handle: jlong,
    name: jobject,
) -> jobject {
    if handle == 0 || name.is_null() {
        return std::ptr::null_mut();
    }
    // SAFETY: the JVM passes this thread's environment; `handle` is the address of the leaked
    // `Fetcher` the worker created before any class could be fetched (it is never freed).
    let (jni, fetcher) = unsafe { (Jni::new(env), &*(handle as *const Fetcher)) };
    let (name, _) = jni.read_string(name, usize::MAX);
    match fetcher.bytes(&name) {
        Some(b) => jni.new_bytes(&b),
        None => std::ptr::null_mut(),
    }
}

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

/// A `StackOverflowError` or `OutOfMemoryError` that ended a test (see `Executor::run_test`).
#[derive(Debug, Clone, Copy)]
struct ResourceError {
    /// Its stack trace shows no static initialiser (`Host.recoverable`).
    recoverable: bool,
    out_of_memory: bool,
}

/// How many `StackOverflowError`s and `OutOfMemoryError`s one worker goes on after (see the
/// module documentation): it bounds how long a class left erroneous by an error whose stack
/// trace did not show it can skew results.
const MAX_SURVIVALS: u32 = 16;

/// The executor's watchdog: after `timeout` it sets `Probe.abort` and interrupts the
/// executor thread; if the test still runs [`HANG_GRACE`] later (a loop in code without
/// probes), it sends a timed-out result and `Retire` and ends the process.
///
/// Starting and ending a test only write the shared state: the watchdog thread is not woken
/// per test. It sleeps until the running test's deadline, or for `timeout` when no test runs;
/// a test that starts during that idle sleep has a deadline no earlier than the sleep's end, so
/// the watchdog is never late by more than the scheduler's delay. Firing happens under the
/// lock, so it can never hit the next test.
struct Watchdog {
    state: Arc<Mutex<WatchState>>,
    thread: Option<std::thread::Thread>,
    timeout: Duration,
}

impl Watchdog {
    fn spawn(
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

    fn start(&mut self) {
        if let Ok(mut st) = self.state.lock() {
            st.seq += 1;
            st.deadline = Some(Instant::now() + self.timeout);
        }
    }

    /// Ends the current test; true if the watchdog fired for it.
    fn end(&mut self) -> bool {
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

/// Sorts half-open ranges and merges overlapping or touching ones (empty ranges dropped).
fn merge_ranges(ranges: impl Iterator<Item = (u32, u32)>) -> Vec<(usize, usize)> {
    let mut v: Vec<(usize, usize)> = ranges
        .filter(|(lo, hi)| lo < hi)
        .map(|(lo, hi)| (lo as usize, hi as usize))
        .collect();
    v.sort_unstable();
    let mut out: Vec<(usize, usize)> = Vec::with_capacity(v.len());
    for (lo, hi) in v {
        match out.last_mut() {
            Some(last) if lo <= last.1 => last.1 = last.1.max(hi),
            _ => out.push((lo, hi)),
        }
    }
    out
}

fn cstring(s: &str) -> CString {
    CString::new(s.replace('\0', "")).unwrap_or_default()
}

/// Longest compared string reported (UTF-16 units); longer ones are not seeds.
const MAX_COMPARED_STRING: usize = 256;

/// Cached classes and member ids of the runtime and the JDK.
#[allow(clippy::struct_field_names)]
struct Ids {
    class_for_name: jmethodID,
    class_cls: jclass,
    class_get_name: jmethodID,
    probe: jclass,
    probe_reset: jmethodID,
    probe_begin: jmethodID,
    f_dist: jfieldID,
    f_hits: jfieldID,
    f_lines: jfieldID,
    f_methods: jfieldID,
    f_loops: jfieldID,
    f_statics: jfieldID,
    /// `Probe.seen*` buffers and counts (int, long, double, String).
    f_seen: [(jfieldID, jfieldID); 4],
    host: jclass,
    host_threads: jmethodID,
    host_stop_threads: jmethodID,
    host_message: jmethodID,
    host_root_cause: jmethodID,
    host_inspectors: jmethodID,
    host_recoverable: jmethodID,
    host_heap_recovered: jmethodID,
    thread: jclass,
    thread_interrupted: jmethodID,
    abort_error: jclass,
    sandbox_error: Option<(jclass, jmethodID)>,
    stack_overflow: jclass,
    out_of_memory: jclass,
    string: jclass,
    enum_cls: jclass,
    enum_name: jmethodID,
    long_value: jmethodID,
    double_value: jmethodID,
    boxed: Vec<(jclass, Kind)>,
    boolean_value: jmethodID,
    char_value: jmethodID,
}

/// The executor thread: creates the JVM and serves requests until `Quit` or end of input.
#[allow(clippy::needless_pass_by_value)]
/// The protocol output, shared by the executor and its watchdog (which flushes it when it
/// fires).
type Output = Arc<Mutex<BufWriter<std::fs::File>>>;

/// Writes one frame, flushing it when asked; false when the pipe is gone.
fn send(output: &Output, msg: &Reply, flush: bool) -> bool {
    let Ok(mut out) = output.lock() else {
        return false;
    };
    if flush {
        write_frame(&mut *out, msg).is_ok()
    } else {
        buffer_frame(&mut *out, msg).is_ok()
    }
}

fn serve(setup: &Setup, input: &mut impl std::io::Read, output: &Output) -> u8 {
    let fatal = |output: &Output, msg: String| -> u8 {
        send(output, &Reply::Fatal(msg), true);
        1
    };
    let mut builder = jni::InitArgsBuilder::new().version(jni::JNIVersion::V1_8);
    for o in [
        "-Xrs".to_string(),
        // VM messages (start-up errors, crash reports) to standard error, which the master reads.
        "-XX:+DisplayVMOutputToStderr".to_string(),
        "-XX:-UsePerfData".to_string(),
        "-Djava.awt.headless=true".to_string(),
        format!(
            "-Djava.class.path={}",
            std::env::current_dir()
                .map(|d| d.display().to_string())
                .unwrap_or_default()
        ),
    ]
    .into_iter()
    .chain(setup.jvm_options.iter().cloned())
    {
        builder = builder.option(o);
    }
    let args = match builder.build() {
        Ok(a) => a,
        Err(e) => return fatal(output, format!("bad JVM options: {e}")),
    };
    let libjvm = setup.libjvm.clone();
    let vm = match jni::JavaVM::with_libjvm(args, || Ok(libjvm)) {
        Ok(vm) => vm,
        Err(e) => {
            return fatal(
                output,
                format!(
                    "JNI_CreateJavaVM with {} failed: {e}",
                    setup.libjvm.display()
                ),
            );
        }
    };
    let result = vm.attach_current_thread(|env| -> jni::errors::Result<u8> {
        // SAFETY: `env` is this thread's environment for the whole closure.
        let jni = unsafe { Jni::new(env.get_raw()) };
        Ok(match Executor::start(jni, &vm, setup, output) {
            Ok((mut ex, ready)) => {
                if !send(output, &ready, true) {
                    return Ok(1);
                }
                ex.serve(input, output)
            }
            Err(msg) => fatal(output, msg),
        })
    });
    result.unwrap_or(1)
}

/// A value held during a test.
#[derive(Clone, Copy)]
enum Val {
    Void,
    Prim(Kind, jvalue),
    Ref(jobject),
}

/// Why a statement did not return normally.
enum Stop {
    Threw(Thrown),
    Invalid(String),
}

struct MethodInfo {
    class: jclass,
    id: jmethodID,
    /// Shared, so that a statement takes them without copying.
    params: Rc<[(Kind, Option<jclass>)]>,
    ret: Kind,
}

/// Resolutions of members (methods, fields, sandbox verdicts), keyed by one byte string
/// `len(class) class len(name) name descriptor S|I` (lengths as 4 little-endian bytes) built in
/// a reused buffer: looking a statement's member up neither allocates, formats nor hashes three
/// strings with `SipHash` (which, with the allocations, was about 8 % of a worker's time on
/// cheap code under test; formatting the lengths as text was another 6 %). The lengths keep the
/// key unambiguous whatever the names hold (JVM names may contain NUL).
///
/// ```text
/// ("a/B", "m", "(I)V", static) → 03 00 00 00 "a/B" 01 00 00 00 "m(I)VS"
/// ```
struct Members<V> {
    map: HashMap<Box<[u8]>, V, foldhash::fast::FixedState>,
    key: Vec<u8>,
}

impl<V> Members<V> {
    fn new() -> Self {
        Members {
            map: HashMap::with_hasher(foldhash::fast::FixedState::default()),
            key: Vec::new(),
        }
    }

    /// Sets the key buffer to the member's key; whether it is cached.
    fn probe(&mut self, class: &str, name: &str, desc: &str, is_static: bool) -> bool {
        self.key.clear();
        for part in [class, name] {
            // A name longer than 4 GiB cannot come through a frame (`MAX_FRAME`).
            let len = u32::try_from(part.len()).unwrap_or(u32::MAX);
            self.key.extend_from_slice(&len.to_le_bytes());
            self.key.extend_from_slice(part.as_bytes());
        }
        self.key.extend_from_slice(desc.as_bytes());
        self.key.push(if is_static { b'S' } else { b'I' });
        self.map.contains_key(self.key.as_slice())
    }

    /// Caches `v` under the key of the last [`Members::probe`].
    fn insert(&mut self, v: V) {
        self.map.insert(self.key.as_slice().into(), v);
    }

    /// The value under the key of the last [`Members::probe`].
    fn last(&self) -> Option<&V> {
        self.map.get(self.key.as_slice())
    }
}

struct FieldInfo {
    class: jclass,
    id: jfieldID,
    kind: Kind,
    ty: Option<jclass>,
}

struct Executor<'a> {
    jni: Jni,
    ids: Ids,
    loader: jobject,
    fetcher: &'static Fetcher,
    setup: &'a Setup,
    watchdog: Watchdog,
    baseline_threads: jobject,
    /// Resolutions, failures included (a failure is reported with the same message each time).
    classes: HashMap<String, Result<jclass, String>>,
    methods: Members<Result<MethodInfo, String>>,
    fields: Members<Result<FieldInfo, String>>,
    /// The sandbox's verdict on a statement calling a member itself: the API refused, if any
    /// (static flag unused: always false).
    refusals: Members<Option<String>>,
    inspectors: HashMap<String, Vec<Inspector>>,
    /// Set when checking an inspector changed the object it inspected (see `inspect`).
    inspection_changed: bool,
    resets: HashMap<u32, Option<(jclass, jmethodID)>>,
    buf_d: Vec<f64>,
    buf_i: Vec<i32>,
    buf_i2: Vec<i32>,
    buf_z: Vec<jboolean>,
    /// Zeros and infinities to clear probe ranges with.
    zeros: Vec<i32>,
    infinities: Vec<f64>,
    /// The next test must start with the runtime's full reset (see `read_probes`).
    full_reset: bool,
    /// Set by `describe` for a `StackOverflowError` or an `OutOfMemoryError`: whether its
    /// stack trace allows the worker to go on, and whether it is an `OutOfMemoryError` (see
    /// `run_test`).
    resource_error: Cell<Option<ResourceError>>,
    /// Such errors this worker went on after.
    survived: u32,
}

impl<'a> Executor<'a> {
    fn global_class(jni: Jni, name: &str) -> Result<jclass, String> {
        let c = jni.find_class(&cstring(name));
        if c.is_null() {
            jni.clear_exception();
            return Err(format!("class {name} not found in the worker JVM"));
        }
        Ok(jni.global(c))
    }

    fn mid(
        jni: Jni,
        class: jclass,
        name: &str,
        sig: &str,
        is_static: bool,
    ) -> Result<jmethodID, String> {
        let m = jni.method_id(class, &cstring(name), &cstring(sig), is_static);
        if m.is_null() {
            jni.clear_exception();
            return Err(format!("method {name}{sig} not found in the worker JVM"));
        }
        Ok(m)
    }

    fn fid(jni: Jni, class: jclass, name: &str, sig: &str) -> Result<jfieldID, String> {
        let f = jni.field_id(class, &cstring(name), &cstring(sig), true);
        if f.is_null() {
            jni.clear_exception();
            return Err(format!("field {name} not found in the worker JVM"));
        }
        Ok(f)
    }

    /// Defines the runtime, creates the loader, initialises the classes under test.
    fn start(
        jni: Jni,
        vm: &jni::JavaVM,
        setup: &'a Setup,
        output: &Output,
    ) -> Result<(Self, Reply), String> {
        // The system class loader.
        let cl = Self::global_class(jni, "java/lang/ClassLoader")?;
        let get_sys = Self::mid(
            jni,
            cl,
            "getSystemClassLoader",
            "()Ljava/lang/ClassLoader;",
            true,
        )?;
        let sys_loader = raw::reference(jni.call(cl, get_sys, Kind::Object, &[], true));
        if sys_loader.is_null() {
            jni.clear_exception();
            return Err("no system class loader".into());
        }
        // Define the runtime classes; retry those whose superclass comes later.
        let mut pending: Vec<(&str, &[u8])> = runtime::CLASSES.to_vec();
        while !pending.is_empty() {
            let before = pending.len();
            let mut failed = Vec::new();
            let mut last = String::new();
            for (name, bytes) in pending {
                let c = jni.define_class(&cstring(name), sys_loader, bytes);
                if c.is_null() {
                    jni.clear_exception();
                    last = (*name).to_string();
                    failed.push((name, bytes));
                }
            }
            if failed.len() == before {
                return Err(format!("cannot define the runtime class {last}"));
            }
            pending = failed;
        }
        let host = Self::global_class(jni, "org/ferrosuite/rt/Host")?;
        let host_loader = Self::global_class(jni, "org/ferrosuite/rt/HostLoader")?;
        if !jni.register_native(
            host_loader,
            c"fetch",
            c"(JLjava/lang/String;)[B",
            fetch as *mut c_void,
        ) {
            jni.clear_exception();
            return Err("cannot register HostLoader.fetch".into());
        }
        // The fetcher lives as long as the process: the loader may call it from any thread.
        let mut entries = Vec::new();
        for p in &setup.classpath {
            entries.push(ClassPathEntry::open(p).map_err(|e| e.to_string())?);
        }
        let classpath: &'static ClassPath = Box::leak(Box::new(ClassPath::new(entries)));
        let fetcher: &'static Fetcher = Box::leak(Box::new(Fetcher {
            classpath,
            hierarchy: Hierarchy::new(classpath),
            instrumented: setup.instrumented.iter().cloned().collect(),
            sandbox: setup.sandbox.then(SandboxRules::default),
            shift_clock: setup.clock_shift_ms != 0,
            loaded: Mutex::new(Vec::new()),
        }));
        let paths: Vec<String> = setup
            .classpath
            .iter()
            .map(|p| p.display().to_string())
            .collect();
        let jpaths = jni.new_string_array(&paths);
        let urls_m = Self::mid(
            jni,
            host,
            "urls",
            "([Ljava/lang/String;)[Ljava/net/URL;",
            true,
        )?;
        let urls =
            raw::reference(jni.call(host, urls_m, Kind::Object, &[jvalue { l: jpaths }], true));
        if urls.is_null() {
            jni.clear_exception();
            return Err("cannot make class-path URLs".into());
        }
        let ctor = Self::mid(
            jni,
            host_loader,
            "<init>",
            "([Ljava/net/URL;Ljava/lang/ClassLoader;J)V",
            false,
        )?;
        let handle = std::ptr::from_ref(fetcher) as jlong;
        let loader = jni.new_object(
            host_loader,
            ctor,
            &[
                jvalue { l: urls },
                jvalue { l: sys_loader },
                jvalue { j: handle },
            ],
        );
        if loader.is_null() {
            jni.clear_exception();
            return Err("cannot create the host class loader".into());
        }
        let loader = jni.global(loader);

        let probe = Self::global_class(jni, "org/ferrosuite/rt/Probe")?;
        let class_cls = Self::global_class(jni, "java/lang/Class")?;
        let thread = Self::global_class(jni, "java/lang/Thread")?;
        let number = Self::global_class(jni, "java/lang/Number")?;
        let enum_cls = Self::global_class(jni, "java/lang/Enum")?;
        let mut boxed = Vec::new();
        for (n, k) in [
            ("java/lang/Integer", Kind::Int),
            ("java/lang/Long", Kind::Long),
            ("java/lang/Short", Kind::Short),
            ("java/lang/Byte", Kind::Byte),
            ("java/lang/Float", Kind::Float),
            ("java/lang/Double", Kind::Double),
            ("java/lang/Boolean", Kind::Boolean),
            ("java/lang/Character", Kind::Char),
        ] {
            boxed.push((Self::global_class(jni, n)?, k));
        }
        let sandbox_error = Self::global_class(jni, "org/ferrosuite/rt/SandboxError")
            .ok()
            .and_then(|c| {
                Self::mid(jni, c, "getApi", "()Ljava/lang/String;", false)
                    .ok()
                    .map(|m| (c, m))
            });
        let ids = Ids {
            class_for_name: Self::mid(
                jni,
                class_cls,
                "forName",
                "(Ljava/lang/String;ZLjava/lang/ClassLoader;)Ljava/lang/Class;",
                true,
            )?,
            class_cls,
            class_get_name: Self::mid(jni, class_cls, "getName", "()Ljava/lang/String;", false)?,
            probe,
            probe_reset: Self::mid(jni, probe, "reset", "()V", true)?,
            probe_begin: Self::mid(jni, probe, "begin", "()V", true)?,
            f_dist: Self::fid(jni, probe, "dist", "[D")?,
            f_hits: Self::fid(jni, probe, "hits", "[I")?,
            f_lines: Self::fid(jni, probe, "lineHits", "[I")?,
            f_methods: Self::fid(jni, probe, "methodHits", "[I")?,
            f_loops: Self::fid(jni, probe, "loopCounts", "[I")?,
            f_statics: Self::fid(jni, probe, "staticWritten", "[Z")?,
            f_seen: [
                (
                    Self::fid(jni, probe, "seenInts", "[I")?,
                    Self::fid(jni, probe, "seenIntCount", "I")?,
                ),
                (
                    Self::fid(jni, probe, "seenLongs", "[J")?,
                    Self::fid(jni, probe, "seenLongCount", "I")?,
                ),
                (
                    Self::fid(jni, probe, "seenDoubles", "[D")?,
                    Self::fid(jni, probe, "seenDoubleCount", "I")?,
                ),
                (
                    Self::fid(jni, probe, "seenStrings", "[Ljava/lang/String;")?,
                    Self::fid(jni, probe, "seenStringCount", "I")?,
                ),
            ],
            host,
            host_threads: Self::mid(jni, host, "threads", "()[Ljava/lang/Thread;", true)?,
            host_stop_threads: Self::mid(
                jni,
                host,
                "stopThreads",
                "([Ljava/lang/Thread;J)[Ljava/lang/String;",
                true,
            )?,
            host_message: Self::mid(
                jni,
                host,
                "message",
                "(Ljava/lang/Throwable;)Ljava/lang/String;",
                true,
            )?,
            host_root_cause: Self::mid(
                jni,
                host,
                "rootCause",
                "(Ljava/lang/Throwable;)Ljava/lang/String;",
                true,
            )?,
            host_inspectors: Self::mid(
                jni,
                host,
                "inspectors",
                "(Ljava/lang/Class;)[Ljava/lang/String;",
                true,
            )?,
            host_recoverable: Self::mid(
                jni,
                host,
                "recoverable",
                "(Ljava/lang/Throwable;)Z",
                true,
            )?,
            host_heap_recovered: Self::mid(jni, host, "heapRecovered", "()Z", true)?,
            thread,
            thread_interrupted: Self::mid(jni, thread, "interrupted", "()Z", true)?,
            abort_error: Self::global_class(jni, "org/ferrosuite/rt/AbortError")?,
            sandbox_error,
            stack_overflow: Self::global_class(jni, "java/lang/StackOverflowError")?,
            out_of_memory: Self::global_class(jni, "java/lang/OutOfMemoryError")?,
            string: Self::global_class(jni, "java/lang/String")?,
            enum_cls,
            enum_name: Self::mid(jni, enum_cls, "name", "()Ljava/lang/String;", false)?,
            long_value: Self::mid(jni, number, "longValue", "()J", false)?,
            double_value: Self::mid(jni, number, "doubleValue", "()D", false)?,
            boolean_value: Self::mid(jni, boxed[6].0, "booleanValue", "()Z", false)?,
            char_value: Self::mid(jni, boxed[7].0, "charValue", "()C", false)?,
            boxed,
        };
        // Loop limit and the executor's Thread object (for the watchdog).
        let f_limit = Self::fid(jni, probe, "loopLimit", "I")?;
        jni.set_field(
            probe,
            f_limit,
            Kind::Int,
            jvalue {
                i: i32::try_from(setup.loop_limit).unwrap_or(i32::MAX),
            },
            true,
        );
        if setup.clock_shift_ms != 0 {
            let time = Self::global_class(jni, clock::TIME_CLASS)?;
            let f_shift = Self::fid(jni, time, clock::SHIFT_FIELD, "J")?;
            jni.set_field(
                time,
                f_shift,
                Kind::Long,
                jvalue {
                    j: setup.clock_shift_ms,
                },
                true,
            );
        }
        let f_abort = Self::fid(jni, probe, "abort", "Z")?;
        let current = Self::mid(jni, thread, "currentThread", "()Ljava/lang/Thread;", true)?;
        let me = jni.global(raw::reference(jni.call(
            thread,
            current,
            Kind::Object,
            &[],
            true,
        )));
        let interrupt = Self::mid(jni, thread, "interrupt", "()V", false)?;
        let watchdog = Watchdog::spawn(
            vm,
            Arc::clone(output),
            Duration::from_millis(setup.timeout_ms),
            probe,
            f_abort,
            me,
            interrupt,
        );
        let java_version = {
            let system = Self::global_class(jni, "java/lang/System")?;
            let get = Self::mid(
                jni,
                system,
                "getProperty",
                "(Ljava/lang/String;)Ljava/lang/String;",
                true,
            )?;
            let key = jni.new_string("java.version");
            let v = raw::reference(jni.call(system, get, Kind::Object, &[jvalue { l: key }], true));
            if v.is_null() {
                jni.clear_exception();
                String::new()
            } else {
                jni.read_string(v, 64).0
            }
        };
        let sizes = setup.sizes;
        let mut ex = Executor {
            jni,
            ids,
            loader,
            fetcher,
            setup,
            watchdog,
            baseline_threads: std::ptr::null_mut(),
            classes: HashMap::new(),
            methods: Members::new(),
            fields: Members::new(),
            refusals: Members::new(),
            inspectors: HashMap::new(),
            inspection_changed: false,
            resets: HashMap::new(),
            buf_d: vec![0.0; sizes.branch_slots as usize],
            buf_i: vec![0; sizes.branch_slots as usize],
            buf_i2: Vec::new(),
            buf_z: Vec::new(),
            zeros: Vec::new(),
            infinities: Vec::new(),
            full_reset: true,
            resource_error: Cell::new(None),
            survived: 0,
        };
        // Initialise the classes under test, under the watchdog.
        ex.call_void_static(ex.ids.probe, ex.ids.probe_reset);
        let mut init_failures = Vec::new();
        ex.watchdog.start();
        for name in &setup.initialize {
            if let Err(error) = ex.load(name, true) {
                init_failures.push(InitFailure {
                    class: name.clone(),
                    error,
                });
            }
        }
        let fired = ex.watchdog.end();
        if fired {
            init_failures.push(InitFailure {
                class: setup.initialize.join(", "),
                error: format!(
                    "class initialisation did not finish within {} ms",
                    setup.timeout_ms
                ),
            });
        }
        let init_probes = ex.read_probes();
        ex.call_void_static(ex.ids.probe, ex.ids.probe_reset);
        ex.full_reset = false;
        let threads =
            raw::reference(jni.call(ex.ids.host, ex.ids.host_threads, Kind::Object, &[], true));
        jni.clear_exception();
        ex.baseline_threads = jni.global(threads);
        Ok((
            ex,
            Reply::Ready {
                java_version,
                init_probes,
                init_failures,
            },
        ))
    }

    fn call_void_static(&self, class: jclass, m: jmethodID) {
        self.jni.call(class, m, Kind::Void, &[], true);
        self.jni.clear_exception();
    }

    /// Loads (and optionally initialises) a class through the host loader.
    fn load(&self, binary: &str, initialize: bool) -> Result<jclass, String> {
        let name = self.jni.new_string(binary);
        let c = raw::reference(self.jni.call(
            self.ids.class_cls,
            self.ids.class_for_name,
            Kind::Object,
            &[
                jvalue { l: name },
                jvalue { z: initialize },
                jvalue { l: self.loader },
            ],
            true,
        ));
        self.jni.delete_local(name);
        if let Some(t) = self.jni.take_exception() {
            let d = self.describe(t);
            // A failed initialisation: say what the static initialiser threw.
            let cause = if d.class == "java.lang.ExceptionInInitializerError" {
                let s = raw::reference(self.jni.call(
                    self.ids.host,
                    self.ids.host_root_cause,
                    Kind::Object,
                    &[jvalue { l: t }],
                    true,
                ));
                self.jni.clear_exception();
                if s.is_null() {
                    None
                } else {
                    let text = self.jni.read_string(s, MAX_STRING).0;
                    self.jni.delete_local(s);
                    Some(text)
                }
            } else {
                None
            };
            self.jni.delete_local(t);
            return Err(match (cause, d.message) {
                (Some(c), _) => format!("{} ({c})", d.class),
                (None, Some(m)) => format!("{}: {m}", d.class),
                (None, None) => d.class,
            });
        }
        Ok(c)
    }

    /// The class of a field type, cached (a global reference).
    fn class(&mut self, t: &FieldType) -> Result<jclass, String> {
        let binary = match t {
            FieldType::Object(n) => n.replace('/', "."),
            FieldType::Array(_) => t.descriptor().replace('/', "."),
            _ => return Err(format!("{} is not a class", t.descriptor())),
        };
        if let Some(c) = self.classes.get(&binary) {
            return c.clone();
        }
        let r = self
            .load(&binary, false)
            .map(|c| self.jni.global(c))
            .map_err(|e| format!("class {binary} cannot be loaded: {e}"));
        self.classes.insert(binary, r.clone());
        r
    }

    fn class_named(&mut self, internal: &str) -> Result<jclass, String> {
        self.class(&FieldType::Object(internal.to_string()))
    }

    fn method(
        &mut self,
        class: &str,
        name: &str,
        desc: &str,
        is_static: bool,
    ) -> Result<&MethodInfo, String> {
        if !self.methods.probe(class, name, desc, is_static) {
            let info = self.resolve_method(class, name, desc, is_static);
            self.methods.insert(info);
        }
        match self.methods.last() {
            Some(r) => r.as_ref().map_err(Clone::clone),
            None => Err(format!(
                "no method {}.{name}{desc}",
                class.replace('/', ".")
            )),
        }
    }

    fn resolve_method(
        &mut self,
        class: &str,
        name: &str,
        desc: &str,
        is_static: bool,
    ) -> Result<MethodInfo, String> {
        let d = MethodDescriptor::parse(desc).map_err(|e| e.to_string())?;
        let cls = self.class_named(class)?;
        let id = self
            .jni
            .method_id(cls, &cstring(name), &cstring(desc), is_static);
        if id.is_null() {
            self.jni.clear_exception();
            return Err(format!(
                "no {}method {}.{name}{desc}",
                if is_static { "static " } else { "" },
                class.replace('/', ".")
            ));
        }
        let mut params = Vec::with_capacity(d.params.len());
        for p in &d.params {
            let k = Kind::of(p);
            let c = if k == Kind::Object {
                Some(self.class(p)?)
            } else {
                None
            };
            params.push((k, c));
        }
        Ok(MethodInfo {
            class: cls,
            id,
            params: params.into(),
            ret: d.ret.as_ref().map_or(Kind::Void, Kind::of),
        })
    }

    fn field(
        &mut self,
        class: &str,
        name: &str,
        desc: &str,
        is_static: bool,
    ) -> Result<&FieldInfo, String> {
        if !self.fields.probe(class, name, desc, is_static) {
            let r = self.resolve_field(class, name, desc, is_static);
            self.fields.insert(r);
        }
        match self.fields.last() {
            Some(r) => r.as_ref().map_err(Clone::clone),
            None => Err(format!(
                "no field {}.{name} of type {desc}",
                class.replace('/', ".")
            )),
        }
    }

    fn resolve_field(
        &mut self,
        class: &str,
        name: &str,
        desc: &str,
        is_static: bool,
    ) -> Result<FieldInfo, String> {
        let t = FieldType::parse(desc).map_err(|e| e.to_string())?;
        let cls = self.class_named(class)?;
        let id = self
            .jni
            .field_id(cls, &cstring(name), &cstring(desc), is_static);
        if id.is_null() {
            self.jni.clear_exception();
            return Err(format!(
                "no {}field {}.{name} of type {desc}",
                if is_static { "static " } else { "" },
                class.replace('/', ".")
            ));
        }
        let kind = Kind::of(&t);
        let ty = if kind == Kind::Object {
            Some(self.class(&t)?)
        } else {
            None
        };
        Ok(FieldInfo {
            class: cls,
            id,
            kind,
            ty,
        })
    }

    fn serve(&mut self, input: &mut impl std::io::Read, output: &Output) -> u8 {
        // The names the master has sent, which statements give by number (see `wire`).
        let mut names: Vec<Name> = Vec::new();
        let mut frame = Vec::new();
        loop {
            match read_frame_with::<Request>(input, &mut frame) {
                Ok(Some(Request::Run {
                    names: new,
                    tests,
                    observe,
                    flush_each,
                })) => {
                    names.extend(new.into_iter().map(Name::from));
                    let mut flushed = Instant::now();
                    for wire in tests {
                        let statements: Result<Vec<Statement>, NameId> =
                            wire.into_iter().map(|s| s.into_statement(&names)).collect();
                        let t = match statements {
                            Ok(s) => Test::new(s),
                            Err(id) => {
                                let why = format!("a statement gives name {}, not sent", id.0);
                                send(output, &Reply::Fatal(why), true);
                                return 1;
                            }
                        };
                        let t = &t;
                        self.inspection_changed = false;
                        let (mut result, mut retire) = self.run_test(t, observe);
                        // Observing found a getter that changes its object, after it had
                        // changed this test's: run the test again without it. (Each round
                        // drops an inspector for good, so this ends.)
                        for _ in 0..8 {
                            if !self.inspection_changed || retire.is_some() {
                                break;
                            }
                            self.inspection_changed = false;
                            (result, retire) = self.run_test(t, observe);
                        }
                        let flush = flush_each || flushed.elapsed() >= FLUSH_INTERVAL;
                        if !send(output, &Reply::Result(Box::new(result)), flush) {
                            return 1;
                        }
                        if flush {
                            flushed = Instant::now();
                        }
                        if let Some(why) = retire {
                            send(output, &Reply::Retire(why), true);
                            return 0;
                        }
                    }
                    if !send(output, &Reply::Done, true) {
                        return 1;
                    }
                }
                Ok(Some(Request::Quit) | None) => return 0,
                Ok(Some(Request::Setup(_))) => {
                    send(output, &Reply::Fatal("set-up sent twice".into()), true);
                    return 1;
                }
                Err(e) => {
                    eprintln!("ferrosuite-worker: {e}");
                    return 1;
                }
            }
        }
    }

    /// Runs one test; the second value says why the worker must retire after it.
    fn run_test(&mut self, test: &Test, observe: bool) -> (TestResult, Option<String>) {
        let start = Instant::now();
        let jni = self.jni;
        if self.full_reset {
            self.call_void_static(self.ids.probe, self.ids.probe_reset);
            self.full_reset = false;
        } else {
            self.call_void_static(self.ids.probe, self.ids.probe_begin);
        }
        let mut retire = None;
        // The `StackOverflowError` or `OutOfMemoryError` that ended the test, if any.
        let mut resource_error = None;
        self.resource_error.set(None);
        if !jni.push_frame(test.len() * 4 + 32) {
            jni.clear_exception();
            let mut r = TestResult::lost(Status::Crashed("out of local references".into()));
            r.micros = elapsed_micros(start);
            return (r, Some("out of memory".into()));
        }
        self.watchdog.start();
        let mut vals: Vec<Val> = Vec::with_capacity(test.len());
        let mut outcomes = Vec::with_capacity(test.len());
        let mut observations = Vec::new();
        let mut status = Status::Completed;
        for (i, s) in test.statements.iter().enumerate() {
            match self.exec(s, &vals) {
                Ok(v) => {
                    outcomes.push(Outcome::Normal);
                    if observe {
                        let o = self.observe_statement(s, v, &vals);
                        observations.push(o);
                    }
                    vals.push(v);
                }
                Err(Stop::Threw(t)) => {
                    if t.kind == ThrowKind::Resource {
                        retire = Some(format!("{} in the code under test", t.class));
                        resource_error = self.resource_error.take();
                    }
                    if t.kind == ThrowKind::Abort {
                        status = Status::Aborted(t.message.clone().unwrap_or_default());
                    } else if i + 1 < test.len() {
                        status = Status::Stopped;
                    }
                    outcomes.push(Outcome::Threw(t));
                    if observe {
                        observations.push(Observation::default());
                    }
                    break;
                }
                Err(Stop::Invalid(why)) => {
                    status = Status::Invalid(format!("statement {i} ({s}): {why}"));
                    break;
                }
            }
        }
        let fired = self.watchdog.end();
        if fired && !matches!(status, Status::Invalid(_)) {
            status = Status::Aborted(format!(
                "time limit of {} ms exceeded",
                self.setup.timeout_ms
            ));
        }
        // Threads the test started: abort flag, interrupt, grace; retire if any survive.
        let mut leaked = Vec::new();
        // Always compared with the baseline: a count alone can hide a new thread behind one
        // that ended.
        {
            let v = jni.call(
                self.ids.host,
                self.ids.host_stop_threads,
                Kind::Object,
                &[
                    jvalue {
                        l: self.baseline_threads,
                    },
                    jvalue {
                        j: i64::try_from(self.setup.thread_grace_ms).unwrap_or(i64::MAX),
                    },
                ],
                true,
            );
            jni.clear_exception();
            let names = raw::reference(v);
            if !names.is_null() {
                for i in 0..jni.array_length(names) {
                    let n = jni.array_element(names, i as jsize);
                    if !n.is_null() {
                        leaked.push(jni.read_string(n, 256).0);
                        jni.delete_local(n);
                    }
                }
            }
            if !leaked.is_empty() {
                retire = Some(format!(
                    "thread(s) started by a test did not stop: {}",
                    leaked.join(", ")
                ));
            }
        }
        // Clear an interrupt left on the executor thread.
        jni.call(
            self.ids.thread,
            self.ids.thread_interrupted,
            Kind::Boolean,
            &[],
            true,
        );
        jni.clear_exception();
        let probes = self.read_probes();
        let reset_classes = self.reset_statics(&probes.statics_written);
        jni.pop_frame();
        // A stack overflow or out-of-memory error outside static initialisers, with no thread
        // left behind: the stack has unwound; for memory, once the test's values are released
        // (the frame above), a collection tells whether the heap is back to what a fresh
        // worker has. Then the worker goes on instead of costing a JVM start (a search that
        // keeps building a collection that contains itself, whose `hashCode` recurses without
        // end, or trying huge sizes, would otherwise restart the worker at every such test).
        if let Some(e) = resource_error {
            if e.recoverable
                && leaked.is_empty()
                && self.survived < MAX_SURVIVALS
                && (!e.out_of_memory || self.heap_recovered())
            {
                self.survived += 1;
                retire = None;
            }
        }
        let executed = outcomes.len() as u32;
        (
            TestResult {
                status,
                outcomes,
                observations,
                executed,
                probes,
                leaked_threads: leaked,
                reset_classes,
                micros: elapsed_micros(start),
            },
            retire,
        )
    }

    fn value(vals: &[Val], r: ferrosuite_testcase::VarRef) -> Result<Val, Stop> {
        vals.get(r.index())
            .copied()
            .ok_or_else(|| Stop::Invalid(format!("{r} is not an earlier value")))
    }

    fn reference_of(vals: &[Val], r: ferrosuite_testcase::VarRef) -> Result<jobject, Stop> {
        match Self::value(vals, r)? {
            Val::Ref(o) => Ok(o),
            _ => Err(Stop::Invalid(format!("{r} is not a reference"))),
        }
    }

    fn npe(what: &str) -> Stop {
        Stop::Threw(Thrown {
            class: "java.lang.NullPointerException".into(),
            message: Some(format!("{what} on a null reference")),
            kind: ThrowKind::Code,
        })
    }

    /// Turns a pending exception into a `Stop`.
    fn check(&self) -> Result<(), Stop> {
        match self.jni.take_exception() {
            None => Ok(()),
            Some(t) => {
                let d = self.describe(t);
                self.jni.delete_local(t);
                Err(Stop::Threw(d))
            }
        }
    }

    fn describe(&self, t: jobject) -> Thrown {
        let jni = self.jni;
        let class = self.class_name(t);
        let m = raw::reference(jni.call(
            self.ids.host,
            self.ids.host_message,
            Kind::Object,
            &[jvalue { l: t }],
            true,
        ));
        jni.clear_exception();
        let message = if m.is_null() {
            None
        } else {
            let s = jni.read_string(m, MAX_STRING).0;
            jni.delete_local(m);
            Some(s)
        };
        let kind = if jni.is_instance(t, self.ids.abort_error) {
            ThrowKind::Abort
        } else if let Some((_, get_api)) = self
            .ids
            .sandbox_error
            .filter(|(c, _)| jni.is_instance(t, *c))
        {
            let api = raw::reference(jni.call(t, get_api, Kind::Object, &[], false));
            jni.clear_exception();
            let api = if api.is_null() {
                String::new()
            } else {
                jni.read_string(api, MAX_STRING).0
            };
            ThrowKind::Sandbox(api)
        } else if jni.is_instance(t, self.ids.stack_overflow)
            || jni.is_instance(t, self.ids.out_of_memory)
        {
            let recoverable = raw::boolean(jni.call(
                self.ids.host,
                self.ids.host_recoverable,
                Kind::Boolean,
                &[jvalue { l: t }],
                true,
            ));
            let failed = jni.exception_pending();
            jni.clear_exception();
            self.resource_error.set(Some(ResourceError {
                recoverable: recoverable && !failed,
                out_of_memory: jni.is_instance(t, self.ids.out_of_memory),
            }));
            ThrowKind::Resource
        } else {
            ThrowKind::Code
        };
        Thrown {
            class,
            message,
            kind,
        }
    }

    /// Collects garbage and tells whether at most half of the maximum heap is in use
    /// (`Host.heapRecovered`); false when the call itself fails.
    fn heap_recovered(&self) -> bool {
        let jni = self.jni;
        let ok = raw::boolean(jni.call(
            self.ids.host,
            self.ids.host_heap_recovered,
            Kind::Boolean,
            &[],
            true,
        ));
        let failed = jni.exception_pending();
        jni.clear_exception();
        ok && !failed
    }

    fn class_name(&self, obj: jobject) -> String {
        let jni = self.jni;
        let c = jni.class_of(obj);
        let n = raw::reference(jni.call(c, self.ids.class_get_name, Kind::Object, &[], false));
        jni.clear_exception();
        jni.delete_local(c);
        if n.is_null() {
            return String::from("?");
        }
        let s = jni.read_string(n, MAX_STRING).0;
        jni.delete_local(n);
        s
    }

    /// Builds the argument array, checking kinds and classes.
    fn args(
        &self,
        params: &[(Kind, Option<jclass>)],
        args: &[ferrosuite_testcase::VarRef],
        vals: &[Val],
    ) -> Result<Vec<jvalue>, Stop> {
        if params.len() != args.len() {
            return Err(Stop::Invalid(format!(
                "{} arguments for {} parameters",
                args.len(),
                params.len()
            )));
        }
        let mut out = Vec::with_capacity(args.len());
        for ((kind, class), a) in params.iter().zip(args) {
            match (Self::value(vals, *a)?, kind) {
                (Val::Ref(o), Kind::Object) => {
                    if let Some(c) = class
                        && !o.is_null()
                        && !self.jni.is_instance(o, *c)
                    {
                        return Err(Stop::Invalid(format!(
                            "argument {a} is a {}, not assignable to the parameter",
                            self.class_name(o)
                        )));
                    }
                    out.push(jvalue { l: o });
                }
                (Val::Prim(k, v), want) if k == *want => out.push(v),
                _ => return Err(Stop::Invalid(format!("argument {a} has the wrong kind"))),
            }
        }
        Ok(out)
    }

    #[allow(clippy::many_single_char_names)]
    fn exec(&mut self, s: &Statement, vals: &[Val]) -> Result<Val, Stop> {
        let jni = self.jni;
        // A statement that itself calls a guarded API (a test calling `System.exit` directly)
        // is refused here: JNI calls from the host are not code the sandbox rewrites.
        let called = match s {
            Statement::Method {
                class,
                name,
                descriptor,
                ..
            } => Some((&**class, &**name, &**descriptor)),
            Statement::Constructor {
                class, descriptor, ..
            } => Some((&**class, "<init>", &**descriptor)),
            _ => None,
        };
        if let (Some(rules), Some((class, name, descriptor))) = (&self.fetcher.sandbox, called) {
            if !self.refusals.probe(class, name, descriptor, false) {
                let refused = rules
                    .lookup(class, name, descriptor)
                    .filter(|rule| rule.action != Action::Allow)
                    .map(ferrosuite_bytecode::instrument::sandbox::Rule::api);
                self.refusals.insert(refused);
            }
            if let Some(Some(api)) = self.refusals.last() {
                let api = api.clone();
                return Err(Stop::Threw(Thrown {
                    class: "org.ferrosuite.rt.SandboxError".into(),
                    message: Some(format!(
                        "ferrosuite sandbox: {api} is not allowed during test generation"
                    )),
                    kind: ThrowKind::Sandbox(api),
                }));
            }
        }
        match s {
            Statement::Primitive(p) => Ok(match p {
                Prim::Boolean(b) => Val::Prim(Kind::Boolean, jvalue { z: *b }),
                Prim::Byte(b) => Val::Prim(Kind::Byte, jvalue { b: *b }),
                Prim::Char(c) => Val::Prim(Kind::Char, jvalue { c: *c }),
                Prim::Short(x) => Val::Prim(Kind::Short, jvalue { s: *x }),
                Prim::Int(x) => Val::Prim(Kind::Int, jvalue { i: *x }),
                Prim::Long(x) => Val::Prim(Kind::Long, jvalue { j: *x }),
                Prim::Float(x) => Val::Prim(Kind::Float, jvalue { f: x.0 }),
                Prim::Double(x) => Val::Prim(Kind::Double, jvalue { d: x.0 }),
                Prim::String(text) => {
                    let o = jni.new_string(text);
                    self.check()?;
                    Val::Ref(o)
                }
            }),
            Statement::Null { .. } => Ok(Val::Ref(std::ptr::null_mut())),
            Statement::EnumConstant { class, name } => {
                let desc = format!("L{class};");
                let f = self
                    .field(class, name, &desc, true)
                    .map_err(Stop::Invalid)?;
                let (c, id) = (f.class, f.id);
                let v = jni.get_field(c, id, Kind::Object, true);
                self.check()?;
                Ok(Val::Ref(raw::reference(v)))
            }
            Statement::Constructor {
                class,
                descriptor,
                args,
            } if self.fetcher.shift_clock
                && &**class == "java/util/Date"
                && &**descriptor == "()V"
                && args.is_empty() =>
            {
                // `new Date()` at the shifted time, as rewritten classes do it.
                let now = self
                    .method(clock::TIME_CLASS, "currentTimeMillis", "()J", true)
                    .map_err(Stop::Invalid)?;
                let (tc, tid) = (now.class, now.id);
                let t = jni.call(tc, tid, Kind::Long, &[], true);
                self.check()?;
                let m = self
                    .method(class, "<init>", "(J)V", false)
                    .map_err(Stop::Invalid)?;
                let (c, id) = (m.class, m.id);
                let o = jni.new_object(c, id, &[t]);
                self.check()?;
                Ok(Val::Ref(o))
            }
            Statement::Constructor {
                class,
                descriptor,
                args,
            } => {
                let m = self
                    .method(class, "<init>", descriptor, false)
                    .map_err(Stop::Invalid)?;
                let (c, id, params) = (m.class, m.id, m.params.clone());
                let a = self.args(&params, args, vals)?;
                let o = jni.new_object(c, id, &a);
                self.check()?;
                Ok(Val::Ref(o))
            }
            Statement::Method {
                class,
                name,
                descriptor,
                receiver,
                args,
            } => {
                let is_static = receiver.is_none();
                // A statement that reads the clock itself reads the shifted one.
                let shifted = if is_static && self.fetcher.shift_clock {
                    clock::redirect_target(class, name, descriptor)
                } else {
                    None
                };
                let (class, name): (&str, &str) = match &shifted {
                    Some(to) => (&to.owner, &to.name),
                    None => (class, name),
                };
                let m = self
                    .method(class, name, descriptor, is_static)
                    .map_err(Stop::Invalid)?;
                let (c, id, params, ret) = (m.class, m.id, m.params.clone(), m.ret);
                let target = match receiver {
                    None => c,
                    Some(r) => {
                        let o = Self::reference_of(vals, *r)?;
                        if o.is_null() {
                            let a = self.args(&params, args, vals)?;
                            drop(a);
                            return Err(Self::npe(&format!("{name}()")));
                        }
                        if !jni.is_instance(o, c) {
                            return Err(Stop::Invalid(format!(
                                "receiver {r} is a {}, not a {}",
                                self.class_name(o),
                                class.replace('/', ".")
                            )));
                        }
                        o
                    }
                };
                let a = self.args(&params, args, vals)?;
                let v = jni.call(target, id, ret, &a, is_static);
                self.check()?;
                Ok(match ret {
                    Kind::Void => Val::Void,
                    Kind::Object => Val::Ref(raw::reference(v)),
                    k => Val::Prim(k, v),
                })
            }
            Statement::FieldRead {
                class,
                name,
                descriptor,
                receiver,
            } => {
                let is_static = receiver.is_none();
                let f = self
                    .field(class, name, descriptor, is_static)
                    .map_err(Stop::Invalid)?;
                let (c, id, kind) = (f.class, f.id, f.kind);
                let target = match receiver {
                    None => c,
                    Some(r) => {
                        let o = Self::reference_of(vals, *r)?;
                        if o.is_null() {
                            return Err(Self::npe(&format!("reading field {name}")));
                        }
                        if !jni.is_instance(o, c) {
                            return Err(Stop::Invalid(format!(
                                "receiver {r} is not a {}",
                                class.replace('/', ".")
                            )));
                        }
                        o
                    }
                };
                let v = jni.get_field(target, id, kind, is_static);
                self.check()?;
                Ok(if kind == Kind::Object {
                    Val::Ref(raw::reference(v))
                } else {
                    Val::Prim(kind, v)
                })
            }
            Statement::FieldWrite {
                class,
                name,
                descriptor,
                receiver,
                value,
            } => {
                let is_static = receiver.is_none();
                let f = self
                    .field(class, name, descriptor, is_static)
                    .map_err(Stop::Invalid)?;
                let (c, id, kind, ty) = (f.class, f.id, f.kind, f.ty);
                let target = match receiver {
                    None => c,
                    Some(r) => {
                        let o = Self::reference_of(vals, *r)?;
                        if o.is_null() {
                            return Err(Self::npe(&format!("writing field {name}")));
                        }
                        if !jni.is_instance(o, c) {
                            return Err(Stop::Invalid(format!(
                                "receiver {r} is not a {}",
                                class.replace('/', ".")
                            )));
                        }
                        o
                    }
                };
                let v = self.args(&[(kind, ty)], &[*value], vals)?;
                jni.set_field(target, id, kind, v[0], is_static);
                self.check()?;
                Ok(Val::Void)
            }
            Statement::ArrayNew { component, length } => {
                let len = jsize::try_from(*length)
                    .map_err(|_| Stop::Invalid(format!("array length {length} is too large")))?;
                let kind = Kind::of(component);
                let cls = if kind == Kind::Object {
                    self.class(component).map_err(Stop::Invalid)?
                } else {
                    std::ptr::null_mut()
                };
                let a = jni.new_array(kind, cls, len);
                self.check()?;
                Ok(Val::Ref(a))
            }
            Statement::ArrayStore {
                array,
                index,
                value,
            } => {
                let a = Self::reference_of(vals, *array)?;
                if a.is_null() {
                    return Err(Self::npe("storing into an array"));
                }
                let idx = jsize::try_from(*index).unwrap_or(jsize::MAX);
                let (kind, v) = match Self::value(vals, *value)? {
                    Val::Ref(o) => (Kind::Object, jvalue { l: o }),
                    Val::Prim(k, v) => (k, v),
                    Val::Void => return Err(Stop::Invalid(format!("{value} is void"))),
                };
                jni.array_store(a, kind, idx, v);
                self.check()?;
                Ok(Val::Void)
            }
            Statement::Cast { value, ty } => {
                let o = Self::reference_of(vals, *value)?;
                let c = self.class(ty).map_err(Stop::Invalid)?;
                if !o.is_null() && !jni.is_instance(o, c) {
                    return Err(Stop::Threw(Thrown {
                        class: "java.lang.ClassCastException".into(),
                        message: Some(format!(
                            "{} cannot be cast to {}",
                            self.class_name(o),
                            ferrosuite_testcase::statement::java_type(ty)
                        )),
                        kind: ThrowKind::Code,
                    }));
                }
                Ok(Val::Ref(o))
            }
            other => Err(Stop::Invalid(format!(
                "statement kind not supported by this worker: {other}"
            ))),
        }
    }

    // ---- observation ---------------------------------------------------------------------

    #[allow(clippy::many_single_char_names)]
    fn observe_statement(&mut self, s: &Statement, v: Val, vals: &[Val]) -> Observation {
        let mut o = Observation::default();
        match v {
            Val::Void => {}
            Val::Prim(k, x) => o.value = Some(observe_prim(k, x)),
            Val::Ref(r) => {
                o.value = Some(self.observe_object(r));
                if !r.is_null() && !self.is_value_like(r) {
                    o.inspectors = self.inspect(r);
                }
            }
        }
        if let Statement::Method {
            receiver: Some(rv), ..
        } = s
            && let Some(Val::Ref(r)) = vals.get(rv.index()).copied()
            && !r.is_null()
            && !self.is_value_like(r)
        {
            o.receiver_inspectors = self.inspect(r);
        }
        o
    }

    /// Strings, enums, boxed primitives and arrays are observed as values, not inspected.
    fn is_value_like(&self, r: jobject) -> bool {
        let jni = self.jni;
        jni.is_instance(r, self.ids.string)
            || jni.is_instance(r, self.ids.enum_cls)
            || self.ids.boxed.iter().any(|(c, _)| jni.is_instance(r, *c))
            || self.class_name(r).starts_with('[')
    }

    fn observe_object(&self, r: jobject) -> Observed {
        let jni = self.jni;
        if r.is_null() {
            return Observed::Null;
        }
        if jni.is_instance(r, self.ids.string) {
            let (text, truncated) = jni.read_string(r, MAX_STRING);
            return Observed::String { text, truncated };
        }
        if jni.is_instance(r, self.ids.enum_cls) {
            let n = raw::reference(jni.call(r, self.ids.enum_name, Kind::Object, &[], false));
            jni.clear_exception();
            let name = if n.is_null() {
                String::new()
            } else {
                jni.read_string(n, MAX_STRING).0
            };
            return Observed::Enum {
                class: self.class_name(r),
                name,
            };
        }
        for (c, k) in &self.ids.boxed {
            if jni.is_instance(r, *c) {
                let v = match k {
                    Kind::Boolean => jni.call(r, self.ids.boolean_value, Kind::Boolean, &[], false),
                    Kind::Char => jni.call(r, self.ids.char_value, Kind::Char, &[], false),
                    Kind::Float | Kind::Double => {
                        jni.call(r, self.ids.double_value, Kind::Double, &[], false)
                    }
                    _ => jni.call(r, self.ids.long_value, Kind::Long, &[], false),
                };
                jni.clear_exception();
                return match k {
                    Kind::Boolean => Observed::Boolean(raw::boolean(v)),
                    Kind::Char => Observed::Char(raw::character(v)),
                    Kind::Float | Kind::Double => Observed::Floating(JDouble(
                        raw::floating(Kind::Double, v).unwrap_or(f64::NAN),
                    )),
                    _ => Observed::Integer(raw::integral(Kind::Long, v).unwrap_or(0)),
                };
            }
        }
        let class = self.class_name(r);
        if class.starts_with('[') {
            let length = jni.array_length(r);
            let elements = self.array_elements(r, &class, length);
            return Observed::Array {
                class,
                length: length as u32,
                elements,
            };
        }
        Observed::Object { class }
    }

    /// The elements of an array of primitives or strings with at most
    /// [`MAX_ARRAY_ELEMENTS`] elements.
    fn array_elements(&self, r: jobject, class: &str, length: usize) -> Option<Vec<Observed>> {
        let jni = self.jni;
        if length > MAX_ARRAY_ELEMENTS {
            return None;
        }
        let kind = match class {
            "[Z" => Kind::Boolean,
            "[B" => Kind::Byte,
            "[C" => Kind::Char,
            "[S" => Kind::Short,
            "[I" => Kind::Int,
            "[J" => Kind::Long,
            "[F" => Kind::Float,
            "[D" => Kind::Double,
            "[Ljava.lang.String;" => Kind::Object,
            _ => return None,
        };
        let mut out = Vec::with_capacity(length);
        for i in 0..length {
            let i = i as jsize;
            out.push(match kind {
                Kind::Object => {
                    let e = jni.array_element(r, i);
                    if e.is_null() {
                        Observed::Null
                    } else {
                        let (text, truncated) = jni.read_string(e, MAX_STRING);
                        jni.delete_local(e);
                        Observed::String { text, truncated }
                    }
                }
                Kind::Boolean => Observed::Boolean(raw::boolean(jni.array_load(r, kind, i))),
                Kind::Char => Observed::Char(raw::character(jni.array_load(r, kind, i))),
                Kind::Float | Kind::Double => Observed::Floating(JDouble(
                    raw::floating(kind, jni.array_load(r, kind, i)).unwrap_or(f64::NAN),
                )),
                _ => {
                    Observed::Integer(raw::integral(kind, jni.array_load(r, kind, i)).unwrap_or(0))
                }
            });
        }
        Some(out)
    }

    fn inspect(&mut self, r: jobject) -> Vec<(String, Observed)> {
        let jni = self.jni;
        let class = self.class_name(r);
        if !self.inspectors.contains_key(&class) {
            let mut list = Vec::new();
            let c = jni.class_of(r);
            let arr = raw::reference(jni.call(
                self.ids.host,
                self.ids.host_inspectors,
                Kind::Object,
                &[jvalue { l: c }],
                true,
            ));
            jni.clear_exception();
            if !arr.is_null() {
                for i in 0..jni.array_length(arr) {
                    let s = jni.array_element(arr, i as jsize);
                    if s.is_null() {
                        continue;
                    }
                    let sig = jni.read_string(s, 1024).0;
                    jni.delete_local(s);
                    let Some(open) = sig.find('(') else { continue };
                    let (name, desc) = sig.split_at(open);
                    let m = jni.method_id(c, &cstring(name), &cstring(desc), false);
                    if m.is_null() {
                        jni.clear_exception();
                        continue;
                    }
                    let kind = MethodDescriptor::parse(desc)
                        .ok()
                        .and_then(|d| d.ret)
                        .as_ref()
                        .map_or(Kind::Void, Kind::of);
                    list.push(Inspector {
                        name: name.to_string(),
                        method: m,
                        kind,
                        checked: false,
                    });
                }
                jni.delete_local(arr);
            }
            jni.delete_local(c);
            self.inspectors.insert(class.clone(), list);
        }
        let list = self.inspectors.get(&class).cloned().unwrap_or_default();
        // An inspector not yet known to leave the object alone is called twice in a row: one
        // whose value moves (a `getNext()` handing out numbers) changes the object, is no
        // inspector, and is dropped for the class; the test is then run again (see `serve`),
        // so that its result is what the test alone does. Both calls throwing proves nothing:
        // it stays unchecked.
        let mut out = Vec::with_capacity(list.len());
        let mut kept = Vec::with_capacity(list.len());
        let mut changed = false;
        for mut ins in list {
            let first = self.call_inspector(r, &ins);
            if !ins.checked {
                let again = self.call_inspector(r, &ins);
                if first != again {
                    self.inspection_changed = true;
                    changed = true;
                    continue;
                }
                if first.is_some() {
                    ins.checked = true;
                    changed = true;
                }
            }
            if let Some(o) = first {
                out.push((ins.name.clone(), o));
            }
            kept.push(ins);
        }
        if changed {
            self.inspectors.insert(class, kept);
        }
        out
    }

    /// Calls one inspector on `r`: `None` when it throws.
    fn call_inspector(&mut self, r: jobject, ins: &Inspector) -> Option<Observed> {
        let jni = self.jni;
        let v = jni.call(r, ins.method, ins.kind, &[], false);
        if let Some(t) = jni.take_exception() {
            jni.delete_local(t);
            return None;
        }
        Some(if ins.kind == Kind::Object {
            let obj = raw::reference(v);
            let o = self.observe_object(obj);
            jni.delete_local(obj);
            o
        } else {
            observe_prim(ins.kind, v)
        })
    }

    // ---- probes and statics ---------------------------------------------------------------

    /// The values the test compared (`Probe.seen*`), grouped by kind: `int`s, `long`s,
    /// doubles (`float` operands widened), then strings; each in the order recorded (the
    /// runtime skips a number equal to the one just recorded and a string already recorded).
    /// Null, over-long (> [`MAX_COMPARED_STRING`] units) and malformed (lone surrogate)
    /// strings are left out.
    fn read_compared(&self) -> Vec<Prim> {
        let jni = self.jni;
        let mut out = Vec::new();
        for (k, (f_buf, f_count)) in self.ids.f_seen.iter().enumerate() {
            let n = raw::integral(
                Kind::Int,
                jni.get_field(self.ids.probe, *f_count, Kind::Int, true),
            )
            .unwrap_or(0);
            if n <= 0 {
                continue;
            }
            let buf = raw::reference(jni.get_field(self.ids.probe, *f_buf, Kind::Object, true));
            if buf.is_null() {
                continue;
            }
            let n = (n as usize).min(jni.array_length(buf));
            match k {
                0 => {
                    let mut v = vec![0i32; n];
                    jni.read_ints(buf, 0, &mut v);
                    out.extend(v.into_iter().map(Prim::Int));
                }
                1 => {
                    let mut v = vec![0i64; n];
                    jni.read_longs(buf, 0, &mut v);
                    out.extend(v.into_iter().map(Prim::Long));
                }
                2 => {
                    let mut v = vec![0f64; n];
                    jni.read_doubles(buf, 0, &mut v);
                    out.extend(v.into_iter().map(|d| Prim::Double(JDouble(d))));
                }
                _ => {
                    for i in 0..n {
                        let e = jni.array_element(buf, i as jsize);
                        if e.is_null() {
                            continue;
                        }
                        let text = jni.read_string_exact(e, MAX_COMPARED_STRING);
                        jni.delete_local(e);
                        out.extend(text.map(Prim::String));
                    }
                }
            }
            jni.delete_local(buf);
        }
        out
    }

    /// Reads the probe data of the test that just ran and clears what it read.
    ///
    /// A probe only fires inside its method, so only the ranges (see [`MethodRanges`]) of the
    /// methods whose entry probe fired are read and then cleared from Rust; the arrays cover
    /// every instrumented class, and most tests touch a few methods. Code that runs outside a
    /// test (class initialisation, static resets) sets `full_reset`, and the next test starts
    /// with the runtime's full reset instead. Without method ranges (no method-entry probes)
    /// the whole arrays are read and the runtime resets them.
    fn read_probes(&mut self) -> ProbeSnapshot {
        let jni = self.jni;
        let sizes = self.setup.sizes;
        let ranged = !self.setup.method_ranges.is_empty();
        let mut snap = ProbeSnapshot {
            compared: self.read_compared(),
            ..ProbeSnapshot::default()
        };
        let arr =
            |f: jfieldID| raw::reference(jni.get_field(self.ids.probe, f, Kind::Object, true));
        let methods = arr(self.ids.f_methods);
        if !methods.is_null() {
            let n = (sizes.methods as usize).min(jni.array_length(methods));
            self.buf_i2.resize(n, 0);
            jni.read_ints(methods, 0, &mut self.buf_i2[..n]);
            snap.methods.extend(
                self.buf_i2[..n]
                    .iter()
                    .enumerate()
                    .filter(|(_, c)| **c != 0)
                    .map(|(i, c)| (i as u32, *c as u32)),
            );
            if let (true, Some(first), Some(last)) =
                (ranged, snap.methods.first(), snap.methods.last())
            {
                let (lo, hi) = (first.0 as usize, last.0 as usize + 1);
                self.zeros.resize(self.zeros.len().max(hi - lo), 0);
                jni.write_ints(methods, lo, &self.zeros[..hi - lo]);
            }
            jni.delete_local(methods);
        }
        let ranges = |pick: fn(&MethodRanges) -> (u32, u32), size: u32| -> Vec<(usize, usize)> {
            if ranged {
                merge_ranges(
                    snap.methods
                        .iter()
                        .filter_map(|(id, _)| self.setup.method_ranges.get(*id as usize))
                        .map(pick),
                )
            } else {
                vec![(0, size as usize)]
            }
        };
        let branch_ranges = ranges(|r| r.branches, sizes.branch_slots);
        let line_ranges = ranges(|r| r.lines, sizes.lines);
        let loop_ranges = ranges(|r| r.loops, sizes.loops);

        let dist = arr(self.ids.f_dist);
        let hits = arr(self.ids.f_hits);
        if !dist.is_null() && !hits.is_null() {
            let len = jni.array_length(dist).min(jni.array_length(hits));
            for (lo, hi) in branch_ranges {
                let hi = hi.min(len);
                if lo >= hi {
                    continue;
                }
                let k = hi - lo;
                self.buf_d.resize(self.buf_d.len().max(k), 0.0);
                self.buf_i.resize(self.buf_i.len().max(k), 0);
                jni.read_doubles(dist, lo, &mut self.buf_d[..k]);
                jni.read_ints(hits, lo, &mut self.buf_i[..k]);
                for i in 0..k {
                    if self.buf_i[i] != 0 || self.buf_d[i].is_finite() {
                        snap.branches
                            .push(((lo + i) as u32, self.buf_i[i] as u32, self.buf_d[i]));
                    }
                }
                if ranged {
                    self.infinities
                        .resize(self.infinities.len().max(k), f64::INFINITY);
                    self.zeros.resize(self.zeros.len().max(k), 0);
                    jni.write_doubles(dist, lo, &self.infinities[..k]);
                    jni.write_ints(hits, lo, &self.zeros[..k]);
                }
            }
        }
        for (f, ranges, out) in [
            (self.ids.f_lines, line_ranges, &mut snap.lines),
            (self.ids.f_loops, loop_ranges, &mut snap.loops),
        ] {
            let a = arr(f);
            if a.is_null() {
                continue;
            }
            let len = jni.array_length(a);
            for (lo, hi) in ranges {
                let hi = hi.min(len);
                if lo >= hi {
                    continue;
                }
                let k = hi - lo;
                self.buf_i2.resize(self.buf_i2.len().max(k), 0);
                jni.read_ints(a, lo, &mut self.buf_i2[..k]);
                out.extend(
                    self.buf_i2[..k]
                        .iter()
                        .enumerate()
                        .filter(|(_, c)| **c != 0)
                        .map(|(i, c)| ((lo + i) as u32, *c as u32)),
                );
                if ranged {
                    self.zeros.resize(self.zeros.len().max(k), 0);
                    jni.write_ints(a, lo, &self.zeros[..k]);
                }
            }
            jni.delete_local(a);
        }
        let s = arr(self.ids.f_statics);
        if !s.is_null() {
            let n = self.setup.class_ids.len().min(jni.array_length(s));
            self.buf_z.resize(n, false);
            jni.read_booleans(s, &mut self.buf_z[..n]);
            snap.statics_written = (0..n)
                .filter(|i| self.buf_z[*i])
                .map(|i| i as u32)
                .collect();
            jni.delete_local(s);
        }
        jni.delete_local(dist);
        jni.delete_local(hits);
        jni.clear_exception();
        // Written statics are reset next, which runs code outside the test.
        if !ranged || !snap.statics_written.is_empty() {
            self.full_reset = true;
        }
        snap
    }

    /// Calls the reset method of each class whose statics were written, in the order the
    /// classes were first loaded (their initialisation order).
    fn reset_statics(&mut self, written: &[u32]) -> Vec<String> {
        if written.is_empty() {
            return Vec::new();
        }
        let order: HashMap<String, usize> = match self.fetcher.loaded.lock() {
            Ok(l) => l.iter().enumerate().map(|(i, n)| (n.clone(), i)).collect(),
            Err(_) => HashMap::new(),
        };
        let mut ids: Vec<(usize, u32)> = written
            .iter()
            .filter_map(|id| {
                let name = self.setup.class_ids.get(*id as usize)?;
                Some((*order.get(name)?, *id))
            })
            .collect();
        ids.sort_unstable();
        let mut done = Vec::new();
        for (_, id) in ids {
            if !self.resets.contains_key(&id) {
                let name = self.setup.class_ids[id as usize].clone();
                let r = self.class_named(&name).ok().and_then(|c| {
                    let m = self.jni.method_id(
                        c,
                        &cstring(ferrosuite_bytecode::instrument::RESET_METHOD),
                        c"()V",
                        true,
                    );
                    if m.is_null() {
                        self.jni.clear_exception();
                        None
                    } else {
                        Some((c, m))
                    }
                });
                self.resets.insert(id, r);
            }
            if let Some(Some((c, m))) = self.resets.get(&id).copied() {
                self.jni.call(c, m, Kind::Void, &[], true);
                self.jni.clear_exception();
                done.push(self.setup.class_ids[id as usize].replace('/', "."));
            }
        }
        done
    }
}

/// An inspector of a class: a public no-argument getter whose result observation records.
#[derive(Debug, Clone)]
struct Inspector {
    name: String,
    method: jmethodID,
    kind: Kind,
    /// Called twice in a row on some object with the same result both times.
    checked: bool,
}

fn observe_prim(k: Kind, v: jvalue) -> Observed {
    match k {
        Kind::Boolean => Observed::Boolean(raw::boolean(v)),
        Kind::Char => Observed::Char(raw::character(v)),
        Kind::Float | Kind::Double => {
            Observed::Floating(JDouble(raw::floating(k, v).unwrap_or(f64::NAN)))
        }
        _ => Observed::Integer(raw::integral(k, v).unwrap_or(0)),
    }
}

fn elapsed_micros(start: Instant) -> u64 {
    u64::try_from(start.elapsed().as_micros()).unwrap_or(u64::MAX)
}

#[cfg(test)]
mod tests {
    use super::{Members, merge_ranges};

    #[test]
    fn member_keys_keep_names_apart_whatever_they_hold() {
        let mut m: Members<u32> = Members::new();
        // JVM names may hold NUL (and `:`): these pairs must not share a key.
        for (i, (class, name)) in [("p/A", "x\0y"), ("p/A\0x", "y"), ("a", "1:b"), ("a1:", "b")]
            .into_iter()
            .enumerate()
        {
            assert!(!m.probe(class, name, "()V", false), "{class} {name}");
            m.insert(i as u32);
        }
        assert!(m.probe("p/A", "x\0y", "()V", false));
        assert_eq!(m.last(), Some(&0));
        assert!(m.probe("a1:", "b", "()V", false));
        assert_eq!(m.last(), Some(&3));
        // Static and instance members of the same name and descriptor are different members.
        assert!(!m.probe("p/A", "x\0y", "()V", true));
        assert_eq!(m.last(), None);
    }

    #[test]
    fn ranges_merge_when_they_overlap_or_touch() {
        let merged = merge_ranges([(8, 10), (0, 2), (2, 4), (3, 5), (7, 7), (9, 12)].into_iter());
        assert_eq!(merged, vec![(0, 5), (8, 12)]);
        assert!(merge_ranges(std::iter::empty()).is_empty());
    }
}
