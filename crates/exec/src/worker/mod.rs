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
//! abort flag and interrupts the executor when a test overruns its time, or (a test of the
//! search) allocates past the allocation limit, which it reads every 10 ms while the test runs;
//! the worker ends itself, and the master kills it, if that does not help. After a test that leaves threads running, or hits a `StackOverflowError` or an
//! `OutOfMemoryError` the worker cannot shrug off, the worker sends `Retire` and exits, and the
//! master starts a fresh one. Such an error is shrugged off when no static initialiser was
//! running when it was thrown (as far as its stack trace tells) and, for an
//! `OutOfMemoryError`, once the test's values are released, a collection leaves at most half of
//! the maximum heap in use: a recursion without end, a failed huge allocation
//! (`new long[Integer.MAX_VALUE]`) or a test that filled the heap with its own objects then
//! costs an unwound stack or a collection instead of a JVM start. The stack trace is a partial
//! witness (the JVM gives only its first few out-of-memory errors one, and a stack overflow's
//! trace holds only the innermost frames), and an error thrown while some class's static
//! initialiser ran leaves that class erroneous for later tests; so the worker also asks the
//! JVM, through JVMTI, how many loaded classes are erroneous, and goes on only when that count
//! did not grow (see `jvmti`), at most `MAX_SURVIVALS` (1,024) times. A JVM without JVMTI
//! leaves the trace as the only witness, and the worker goes on at most 16 times.
#![allow(unsafe_code)]

mod jvm;
mod jvmti;
mod mocks;
mod mutants;
mod observe;
mod probes;
mod resolve;
mod run;
#[cfg(test)]
mod tests;
mod watchdog;

use std::cell::Cell;
use std::collections::HashMap;
use std::ffi::CString;
use std::io::{BufReader, BufWriter};
use std::process::ExitCode;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use ferrosuite_testcase::statement::{Name, Statement, Test};
use jni::sys::{jboolean, jclass, jfieldID, jmethodID, jobject};

use crate::protocol::{
    FLUSH_INTERVAL, Reply, Request, Setup, buffer_frame, read_frame, read_frame_with, write_frame,
};
use crate::raw::{Jni, Kind};
use crate::wire::NameId;

use jvm::Fetcher;
use observe::Inspector;
use resolve::{FieldInfo, Members, MethodInfo};
use run::ResourceError;
use watchdog::Watchdog;

/// Stack size of the executor thread: twice the JVM's default thread stack (1 MiB on 64-bit
/// Linux, what JUnit's thread under Maven or Gradle gets), for the probes' larger frames. Deep
/// but finite recursion ends in a `StackOverflowError`, not a crash; a recursion without end
/// costs the time to fill and unwind the stack, which grows with its size (50–100 ms at
/// 16 MiB, a tenth of that here), and a search that keeps building a self-containing
/// collection meets hundreds of them.
const EXECUTOR_STACK: usize = 2 << 20;

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

fn cstring(s: &str) -> CString {
    CString::new(s.replace('\0', "")).unwrap_or_default()
}

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
    /// `Probe.loopLimit`, lifted while static resets run.
    f_loop_limit: jfieldID,
    /// `Probe.seen*` buffers and counts (int, long, double, String).
    f_seen: [(jfieldID, jfieldID); 4],
    host: jclass,
    host_threads: jmethodID,
    host_stop_threads: jmethodID,
    host_message: jmethodID,
    host_root_cause: jmethodID,
    host_frames: jmethodID,
    host_inspectors: jmethodID,
    host_recoverable: jmethodID,
    host_heap_recovered: jmethodID,
    host_allocated_bytes: jmethodID,
    thread: jclass,
    thread_interrupted: jmethodID,
    abort_error: jclass,
    sandbox_error: Option<(jclass, jmethodID)>,
    stack_overflow: jclass,
    out_of_memory: jclass,
    string: jclass,
    enum_cls: jclass,
    enum_name: jmethodID,
    enum_declaring_class: jmethodID,
    long_value: jmethodID,
    double_value: jmethodID,
    boxed: Vec<(jclass, Kind)>,
    boolean_value: jmethodID,
    char_value: jmethodID,
}

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

/// The executor thread: creates the JVM and serves requests until `Quit` or end of input.
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
        // A JVM that aborts leaves its report, not a core file of the whole heap.
        "-XX:-CreateCoredumpOnCrash".to_string(),
        "-Djava.awt.headless=true".to_string(),
        format!(
            "-Djava.class.path={}",
            std::iter::once(
                std::env::current_dir()
                    .map(|d| d.display().to_string())
                    .unwrap_or_default()
            )
            .chain(setup.tools.iter().map(|p| p.display().to_string()))
            .collect::<Vec<_>>()
            .join(":")
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

struct Executor<'a> {
    jni: Jni,
    ids: Ids,
    /// The controlled environment's handles, when it is on.
    environment: Option<jvm::EnvIds>,
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
    /// Instrumented classes by internal name: their ids (the positions in `setup.class_ids`).
    class_index: HashMap<String, u32>,
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
    /// The JVM's count of erroneous classes, when it gives one (see `jvmti`).
    class_status: Option<jvmti::ClassStatus>,
    /// Erroneous classes at the last count.
    erroneous: usize,
    /// `org.ferrosuite.rt.Mocks` and its methods, resolved at the first mock.
    mock_ids: Option<mocks::MockIds>,
    /// The mocks the running test made (local refs).
    test_mocks: Vec<mocks::Made>,
    /// The runtime's `Mutants`, when the classes under test are mutation schemata.
    mutants: Option<mutants::MutantIds>,
    /// The mutant the current batch runs against (0: none).
    mutant: u32,
}

impl Executor<'_> {
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
                    mutant,
                })) => {
                    names.extend(new.into_iter().map(Name::from));
                    self.mutant = mutant;
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
}
