//! The master/worker protocol: length-prefixed `postcard` frames over the worker's standard
//! input and output (which the worker moves away from file descriptors 0 and 1 before the JVM
//! starts, so nothing the code under test prints can corrupt it).
//!
//! ```text
//! master                                   worker
//!   Setup ───────────────────────────────────►  start JVM, define runtime, load & initialise
//!         ◄─────────────────────────────────── Ready { probes of class initialisation } | Fatal
//!   Run { tests } ──────────────────────────►
//!         ◄─────────────────────────────────── Result (one per test, flushed in bursts)
//!         ◄─────────────────────────────────── Done, or Retire (then the worker exits)
//!   Quit ───────────────────────────────────►  exit
//! ```
//!
//! A frame is a little-endian `u32` length followed by that many bytes of `postcard`.
//!
//! Results are buffered in the worker and flushed at most [`FLUSH_INTERVAL`] after a test ends,
//! when the watchdog fires (before it touches the JVM, so a hung JVM cannot hold them back), and
//! with `Done` or `Retire`: the master wakes once per burst instead of once per test. Results
//! still in the buffer of a worker that dies are lost; the master then resends the remaining
//! tests with `flush_each`, so the test that kills the worker again is the one scored as
//! crashed.

use std::borrow::Borrow;
use std::io::{Read, Write};
use std::path::PathBuf;

use ferrosuite_bytecode::instrument::map::ProbeMap;
use ferrosuite_testcase::Test;
use ferrosuite_testcase::statement::Name;
use serde::{Deserialize, Serialize, de::DeserializeOwned};

use crate::error::{Error, Result};
use crate::result::{ProbeSnapshot, TestResult};
use crate::wire::{NameTable, WireStatement, WireTests};

/// Largest frame accepted (a guard against a corrupted length).
pub const MAX_FRAME: u32 = 256 << 20;

/// What the worker needs to start.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Setup {
    /// Path of `libjvm`.
    pub libjvm: PathBuf,
    /// JVM options (`-Xmx512m`, …).
    pub jvm_options: Vec<String>,
    /// The user's class path entries (directories and jars).
    pub classpath: Vec<PathBuf>,
    /// Instrumented classes, prepared by the master (internal name, class file).
    pub instrumented: Vec<(String, Vec<u8>)>,
    /// Classes to load and initialise before the first test (binary names), in order.
    pub initialize: Vec<String>,
    /// Number of branch slots, line ids, method ids and loop ids to read back.
    pub sizes: ProbeSizes,
    /// The probe ids each method can hit, indexed by method id (see [`MethodRanges`]).
    pub method_ranges: Vec<MethodRanges>,
    /// Class ids of the probe map, by internal name (for static reset).
    pub class_ids: Vec<String>,
    /// Iterations per loop before a test is aborted (0: no limit).
    pub loop_limit: u32,
    /// Milliseconds before the worker's own watchdog sets the abort flag and interrupts.
    pub timeout_ms: u64,
    /// Heap bytes a test of the search (a run without observation) may allocate before its
    /// result says [`Status::Exhausted`](crate::Status::Exhausted) (0: no limit).
    #[serde(default)]
    pub allocation_limit: u64,
    /// Milliseconds a test's leftover threads get to stop after the test.
    pub thread_grace_ms: u64,
    /// Whether to sandbox the classes loaded from the class path.
    pub sandbox: bool,
    /// Milliseconds added to the clock the code under test reads (0: the real clock; see
    /// [`ferrosuite_bytecode::instrument::clock`]).
    pub clock_shift_ms: i64,
    /// Whether the code under test reads the controlled environment: a virtual clock (moved
    /// by `clock_shift_ms`) and deterministic randomness (see
    /// [`ferrosuite_bytecode::instrument::environment`]).
    #[serde(default)]
    pub environment: bool,
    /// Mixed into the controlled environment's random seeds (0 in the search).
    #[serde(default)]
    pub random_salt: i64,
    /// Milliseconds the controlled environment's virtual clock moves on per read (1 in the
    /// search).
    #[serde(default)]
    pub clock_step_ms: i64,
    /// Jars of the tools the worker itself uses (Mockito and what it needs), put on the JVM's
    /// class path, outside the sandbox and the instrumentation.
    #[serde(default)]
    pub tools: Vec<PathBuf>,
    /// Whether objects of the user's classes with no public getter are inspected through
    /// their private fields (of primitive and `String` types): assertions by reflection.
    #[serde(default)]
    pub observe_private: bool,
    /// The last mutant id of the instrumented classes (0: they are not mutation schemata).
    #[serde(default)]
    pub last_mutant: u32,
}

/// Sizes of the probe arrays to read after each test.
#[derive(Debug, Clone, Copy, Default, Serialize, Deserialize)]
pub struct ProbeSizes {
    /// Branch outcome slots.
    pub branch_slots: u32,
    /// Line ids.
    pub lines: u32,
    /// Method ids.
    pub methods: u32,
    /// Loop ids.
    pub loops: u32,
}

/// The branch slots, line ids and loop ids one method's probes use, as half-open ranges
/// (`(0, 0)` when it has none).
///
/// A probe only fires inside its method, so after a test the worker reads and clears only the
/// ranges of the methods whose entry probe fired, instead of the whole arrays (which cover every
/// instrumented class).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct MethodRanges {
    /// Branch outcome slots.
    pub branches: (u32, u32),
    /// Line ids.
    pub lines: (u32, u32),
    /// Loop ids.
    pub loops: (u32, u32),
}

impl MethodRanges {
    /// The ranges of every method of a probe map, indexed by method id.
    #[must_use]
    pub fn of_map(map: &ProbeMap) -> Vec<MethodRanges> {
        fn span(ids: impl Iterator<Item = u32>) -> (u32, u32) {
            ids.fold(None, |acc: Option<(u32, u32)>, i| {
                Some(acc.map_or((i, i + 1), |(lo, hi)| (lo.min(i), hi.max(i + 1))))
            })
            .unwrap_or((0, 0))
        }
        let mut out = vec![MethodRanges::default(); map.method_ids as usize];
        for class in &map.classes {
            let line_ids = class.line_ids();
            for m in &class.methods {
                let Some(r) = out.get_mut(m.id.0 as usize) else {
                    continue;
                };
                *r = MethodRanges {
                    branches: span(
                        m.branches
                            .iter()
                            .flat_map(|b| b.outcomes.iter().map(|o| o.slot.0)),
                    ),
                    lines: span(m.lines.iter().filter_map(|l| line_ids.get(l).copied())),
                    loops: span(m.loops.iter().map(|l| l.id.0)),
                };
            }
        }
        out
    }
}

/// Longest time a finished test's result waits in the worker's buffer (unless the master
/// asked for `flush_each`): results travel in bursts, which saves a wake-up of the master per
/// test.
pub const FLUSH_INTERVAL: std::time::Duration = std::time::Duration::from_millis(10);

/// Master → worker.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub enum Request {
    /// Start (the first message).
    Setup(Box<Setup>),
    /// Run tests in order, observing values and inspectors when asked.
    Run {
        /// Names new to the worker, numbered on from the names it has (see [`crate::wire`]).
        names: Vec<String>,
        /// The tests, their names given by number.
        tests: Vec<Vec<WireStatement<'static>>>,
        /// Whether to record observations.
        observe: bool,
        /// Flush each result as its test ends. Otherwise results are flushed at most every
        /// [`FLUSH_INTERVAL`], when the watchdog fires, and at the end of the batch; the master
        /// asks for this after a worker died, so that the test that killed it is known.
        flush_each: bool,
        /// The mutant the tests run against (0: none; see [`Setup::last_mutant`]).
        mutant: u32,
    },
    /// Exit.
    Quit,
}

/// The borrowed twin of [`Request`] the master sends: the same wire format (variants in the
/// same order), without cloning a batch's tests or names. The tests may be shared
/// (`T = Arc<Test>`).
#[derive(Serialize)]
#[serde(bound(serialize = "T: Borrow<Test>"))]
pub enum RequestRef<'a, T = Test> {
    /// [`Request::Setup`].
    Setup(&'a Setup),
    /// [`Request::Run`].
    Run {
        /// See [`Request::Run`].
        names: &'a [Name],
        /// The tests, numbered by a table that holds their names.
        tests: WireTests<'a, T>,
        /// Whether to record observations.
        observe: bool,
        /// See [`Request::Run`].
        flush_each: bool,
        /// See [`Request::Run`].
        mutant: u32,
    },
    /// [`Request::Quit`].
    Quit,
}

/// How a batch runs: with observation, flushing each result, against a mutant.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RunMode {
    /// Record observations.
    pub observe: bool,
    /// Flush each result as its test ends.
    pub flush_each: bool,
    /// The active mutant (0: none).
    pub mutant: u32,
}

/// Encodes the request to run `tests` into `frame` for the worker whose names `table` holds,
/// adding the tests' new names to it (to be taken back with [`NameTable::truncate`] if the
/// frame is not sent).
pub fn encode_run<T: Borrow<Test>>(
    tests: &[T],
    table: &mut NameTable,
    mode: RunMode,
    frame: &mut Vec<u8>,
) -> Result<()> {
    let from = table.len();
    table
        .intern_tests(tests)
        .ok_or_else(|| Error::Protocol("more than 2^32 names sent to one worker".into()))?;
    encode_frame(
        &RequestRef::Run {
            names: table.names_from(from),
            tests: WireTests {
                tests,
                table: &*table,
            },
            observe: mode.observe,
            flush_each: mode.flush_each,
            mutant: mode.mutant,
        },
        frame,
    )
}

pub use ferrosuite_executor::InitFailure;

/// Worker → master.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub enum Reply {
    /// Set-up done.
    Ready {
        /// `java.version` of the embedded JVM.
        java_version: String,
        /// Probe data recorded while the classes were initialised.
        init_probes: ProbeSnapshot,
        /// Classes that could not be initialised.
        init_failures: Vec<InitFailure>,
    },
    /// Set-up failed; the worker exits.
    Fatal(String),
    /// The result of the next test of the batch.
    Result(Box<TestResult>),
    /// The batch is done.
    Done,
    /// After the last result: the worker's state is suspect (threads that did not stop, a
    /// `StackOverflowError` or `OutOfMemoryError` it did not recover from) and it exits; the
    /// master replaces it and sends it the rest of the batch.
    Retire(String),
}

/// Writes one frame and flushes.
pub fn write_frame<T: Serialize>(out: &mut impl Write, msg: &T) -> Result<()> {
    buffer_frame(out, msg)?;
    out.flush().map_err(Error::io("writing to the worker pipe"))
}

/// Writes one frame without flushing (into a buffered writer, for a later flush).
pub fn buffer_frame<T: Serialize>(out: &mut impl Write, msg: &T) -> Result<()> {
    let mut frame = Vec::new();
    encode_frame(msg, &mut frame)?;
    out.write_all(&frame)
        .map_err(Error::io("writing to the worker pipe"))
}

/// Encodes one whole frame (length prefix and message) into `frame`, replacing its contents
/// (the buffer's allocation is reused); an error when the message is larger than
/// [`MAX_FRAME`].
pub fn encode_frame<T: Serialize>(msg: &T, frame: &mut Vec<u8>) -> Result<()> {
    frame.clear();
    frame.extend_from_slice(&[0; 4]);
    let bytes = postcard::to_extend(msg, std::mem::take(frame))
        .map_err(|e| Error::Protocol(e.to_string()))?;
    *frame = bytes;
    let body = frame.len() - 4;
    let len = u32::try_from(body)
        .ok()
        .filter(|l| *l <= MAX_FRAME)
        .ok_or_else(|| Error::Protocol(format!("message of {body} bytes is too large")))?;
    frame[..4].copy_from_slice(&len.to_le_bytes());
    Ok(())
}

/// Reads one frame; `Ok(None)` at a clean end of stream.
pub fn read_frame<T: DeserializeOwned>(input: &mut impl Read) -> Result<Option<T>> {
    read_frame_with(input, &mut Vec::new())
}

/// [`read_frame`] reusing `buf` for the frame's bytes (one allocation per reader, not per
/// frame).
pub fn read_frame_with<T: DeserializeOwned>(
    input: &mut impl Read,
    buf: &mut Vec<u8>,
) -> Result<Option<T>> {
    let mut len = [0u8; 4];
    match input.read_exact(&mut len) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => return Ok(None),
        Err(e) => return Err(Error::io("reading from the worker pipe")(e)),
    }
    let len = u32::from_le_bytes(len);
    if len > MAX_FRAME {
        return Err(Error::Protocol(format!("frame of {len} bytes announced")));
    }
    buf.resize(len as usize, 0);
    input
        .read_exact(buf)
        .map_err(Error::io("reading from the worker pipe"))?;
    postcard::from_bytes(buf)
        .map(Some)
        .map_err(|e| Error::Protocol(e.to_string()))
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::panic)]
mod tests {
    use super::*;
    use ferrosuite_testcase::{Prim, Statement, VarRef};

    fn encode<T: Serialize>(msg: &T) -> Vec<u8> {
        let mut out = Vec::new();
        write_frame(&mut out, msg).unwrap();
        out
    }

    #[test]
    fn borrowed_requests_have_the_owned_wire_format() {
        let tests = vec![Test::new(vec![
            Statement::Primitive(Prim::Int(3)),
            Statement::method("a/B", "m", "(I)V", None, vec![VarRef(0)]),
        ])];
        let setup = Setup {
            libjvm: PathBuf::from("/jvm/libjvm.so"),
            jvm_options: vec!["-Xmx64m".into()],
            classpath: vec![PathBuf::from("/cp")],
            instrumented: vec![("a/B".into(), vec![0xca, 0xfe])],
            initialize: vec!["a.B".into()],
            sizes: ProbeSizes {
                branch_slots: 4,
                lines: 2,
                methods: 1,
                loops: 0,
            },
            method_ranges: vec![MethodRanges {
                branches: (0, 4),
                lines: (0, 2),
                loops: (0, 0),
            }],
            class_ids: vec!["a/B".into()],
            loop_limit: 10,
            timeout_ms: 100,
            allocation_limit: 0,
            thread_grace_ms: 5,
            sandbox: true,
            clock_shift_ms: 0,
            environment: true,
            random_salt: 3,
            clock_step_ms: 2,
            tools: Vec::new(),
            observe_private: false,
            last_mutant: 7,
        };
        let pairs = [
            (
                encode(&RequestRef::<Test>::Setup(&setup)),
                encode(&Request::Setup(Box::new(setup.clone()))),
            ),
            (encode(&RequestRef::<Test>::Quit), encode(&Request::Quit)),
        ];
        for (borrowed, owned) in pairs {
            assert_eq!(borrowed, owned);
            let back: Request = read_frame(&mut owned.as_slice()).unwrap().unwrap();
            assert_eq!(encode(&back), owned);
        }
        // A run, from borrowed and from shared tests: it decodes as `Request::Run`, with the
        // names new to the worker, and the same frame again.
        let shared: Vec<_> = tests.iter().cloned().map(std::sync::Arc::new).collect();
        for (i, observe) in [true, false].into_iter().enumerate() {
            let (mut table, mut frame) = (NameTable::default(), Vec::new());
            let mode = RunMode {
                observe,
                flush_each: i == 1,
                mutant: 5 * i as u32,
            };
            if i == 0 {
                encode_run(&tests, &mut table, mode, &mut frame).unwrap();
            } else {
                encode_run(&shared, &mut table, mode, &mut frame).unwrap();
            }
            let back: Request = read_frame(&mut frame.as_slice()).unwrap().unwrap();
            assert_eq!(encode(&back), frame);
            let Request::Run {
                names,
                tests: wire,
                observe: o,
                flush_each,
                mutant,
            } = back
            else {
                panic!("not a run: {back:?}");
            };
            assert_eq!((o, flush_each, mutant), (observe, i == 1, 5 * i as u32));
            assert_eq!(names, ["a/B", "m", "(I)V"]);
            let names: Vec<Name> = names.into_iter().map(Name::from).collect();
            let statements: Vec<Statement> = wire[0]
                .iter()
                .map(|s| s.clone().into_statement(&names).unwrap())
                .collect();
            assert_eq!(Test::new(statements), tests[0]);
        }
    }

    #[test]
    fn method_ranges_span_each_methods_slots_lines_and_loops() {
        use ferrosuite_bytecode::instrument::map::{
            BranchKind, BranchSite, BranchSlot, ClassId, ClassProbes, LineId, LineProbe, LoopId,
            LoopProbe, MethodId, MethodProbes, Outcome,
        };
        let site = |offset: u32, slots: &[u32]| BranchSite {
            offset,
            line: None,
            kind: BranchKind::Jump {
                opcode: "ifeq".into(),
            },
            outcomes: slots
                .iter()
                .map(|s| Outcome {
                    slot: BranchSlot(*s),
                    label: String::new(),
                    target: 0,
                })
                .collect(),
        };
        let method =
            |id: u32, branches: Vec<BranchSite>, lines: Vec<u16>, loops: &[u32]| MethodProbes {
                id: MethodId(id),
                name: format!("m{id}"),
                descriptor: "()V".into(),
                access: 0,
                branches,
                lines,
                loops: loops
                    .iter()
                    .map(|l| LoopProbe {
                        id: LoopId(*l),
                        offset: 0,
                    })
                    .collect(),
                skipped: None,
            };
        let mut map = ProbeMap::new();
        map.method_ids = 3;
        map.classes.push(ClassProbes {
            id: ClassId(0),
            name: "a/B".into(),
            source_file: None,
            methods: vec![
                method(
                    0,
                    vec![site(3, &[0, 1]), site(9, &[4, 5])],
                    vec![10, 12],
                    &[1],
                ),
                method(1, vec![site(2, &[2, 3])], vec![11], &[]),
                method(2, vec![], vec![], &[]),
            ],
            // Line ids need not follow line numbers.
            lines: [(10, 2), (11, 0), (12, 1)]
                .iter()
                .map(|(line, id)| LineProbe {
                    id: LineId(*id),
                    line: *line,
                })
                .collect(),
            reset_method: None,
            definalized: Vec::new(),
            notes: Vec::new(),
        });
        let r = MethodRanges::of_map(&map);
        assert_eq!(
            r,
            vec![
                MethodRanges {
                    branches: (0, 6),
                    lines: (1, 3),
                    loops: (1, 2),
                },
                MethodRanges {
                    branches: (2, 4),
                    lines: (0, 1),
                    loops: (0, 0),
                },
                MethodRanges::default(),
            ]
        );
    }
}
