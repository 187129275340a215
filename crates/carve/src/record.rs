//! `ferrosuite record`: runs a Java command with the recording agent and stores what it
//! records.
//!
//! The agent is loaded at start-up (`-javaagent`, inserted after the `java` of the command; for
//! a command that is not `java` itself, a launcher script, through `JAVA_TOOL_OPTIONS`, which
//! makes the JVM print one line of its own). It connects back over two loopback connections,
//! each opened with a random token: on the first it sends the bytes of every class the filter
//! accepts, as the class loads, and this process answers with the instrumented class
//! ([`RecordInstrumenter`]); on the second it streams the finished calls, which this process
//! decodes and writes to the store in transactions of up to [`BATCH`] records. The program's
//! standard streams are its own and its exit code is returned.
//!
//! ```no_run
//! use ferrosuite_carve::record::{record, RecordConfig};
//! # fn main() -> ferrosuite_carve::Result<()> {
//! let cfg = RecordConfig::new("trace.db".into(), vec!["java".into(), "-cp".into(), "app.jar".into(), "app.Main".into()]);
//! let summary = record(&cfg)?;
//! println!("{} calls recorded; exit {}", summary.calls, summary.exit_code);
//! # Ok(()) }
//! ```

use std::io::{BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use ferrosuite_bytecode::ClassFile;
use ferrosuite_bytecode::instrument::record::{RecordFilter, RecordInstrumenter, RecordMap};

use crate::agent::write_agent_jar;
use crate::error::{Error, Result};
use crate::model::{EndRecord, Record};
use crate::store::{RunTotals, Store};
use crate::wire::decode;

/// Records written per store transaction (or fewer, every [`FLUSH_EVERY`]).
pub const BATCH: usize = 2000;
/// The longest a decoded record waits for its transaction.
pub const FLUSH_EVERY: Duration = Duration::from_millis(250);
/// How long the recorder may take to hand over its last records after the program ended.
pub const DRAIN_TIMEOUT: Duration = Duration::from_secs(30);
/// The largest record accepted (a larger length prefix means a broken stream).
pub const MAX_RECORD: usize = 256 << 20;

/// What to record and how.
#[derive(Debug, Clone)]
pub struct RecordConfig {
    /// The trace store (created, or a run added to an existing store).
    pub store: PathBuf,
    /// Which classes are recorded.
    pub filter: RecordFilter,
    /// Distinct calls recorded per method.
    pub max_per_method: u32,
    /// Depth of object snapshots.
    pub depth: u32,
    /// Values per snapshot.
    pub max_values: u32,
    /// Characters kept of a string.
    pub max_string: u32,
    /// Elements kept of an array or collection.
    pub max_array: u32,
    /// Calls on collaborators and static reads kept per call (a call with more is truncated).
    pub max_events: u32,
    /// Bytes kept of a file the call reads (or of its console input): a call that reads a
    /// larger file gets no test.
    pub max_file_bytes: u32,
    /// The command line (`java …`, or a launcher that runs `java`).
    pub command: Vec<String>,
}

impl RecordConfig {
    /// The defaults: every non-JDK class, 100 calls per method, depth 3, 100 values per
    /// snapshot, strings up to 65,536 characters, 256 elements, 200 events per call, files up
    /// to 1 MiB.
    #[must_use]
    pub fn new(store: PathBuf, command: Vec<String>) -> Self {
        Self {
            store,
            filter: RecordFilter::default(),
            max_per_method: 100,
            depth: 3,
            max_values: 100,
            max_string: 65_536,
            max_array: 256,
            max_events: 200,
            max_file_bytes: 1 << 20,
            command,
        }
    }

    fn agent_args(&self, port: u16, token: &str) -> String {
        let list = |v: &[String]| {
            v.iter()
                .map(|p| p.replace('.', "/"))
                .collect::<Vec<_>>()
                .join(",")
        };
        format!(
            "{port};{token};include={};exclude={};max={};depth={};values={};strings={};arrays={};events={};files={}",
            list(&self.filter.include),
            list(&self.filter.exclude),
            self.max_per_method,
            self.depth,
            self.max_values,
            self.max_string,
            self.max_array,
            self.max_events,
            self.max_file_bytes
        )
    }
}

/// What a recording did.
#[derive(Debug, Clone, Default)]
pub struct RecordSummary {
    /// The run's id in the store.
    pub run: i64,
    /// The program's exit code (128 + signal when a signal ended it).
    pub exit_code: i32,
    /// The program's wall time.
    pub wall: Duration,
    /// The agent connected (the command started a JVM that loaded it).
    pub connected: bool,
    /// The recorder's end-of-run record arrived (the JVM shut down normally).
    pub complete: bool,
    /// The agent was passed through `JAVA_TOOL_OPTIONS`.
    pub via_environment: bool,
    /// Classes instrumented.
    pub classes: usize,
    /// Classes left unrecorded because instrumentation failed: (class, reason).
    pub failed: Vec<(String, String)>,
    /// Methods and constructors with probes.
    pub methods: usize,
    /// Methods called at least once.
    pub methods_called: usize,
    /// Methods whose recording stopped at `max_per_method` distinct calls.
    pub methods_at_limit: usize,
    /// Calls stored.
    pub calls: u64,
    /// Calls skipped as repeats of a recorded call.
    pub repeats: u64,
    /// Calls with a value cut by a limit or unreadable.
    pub truncated: u64,
    /// Records the recorder dropped because this process fell behind.
    pub dropped: u64,
    /// Calls that began to be recorded but whose record never arrived (a constructor that
    /// threw, a call still running when the program exited, a record dropped).
    pub unfinished: u64,
    /// Records that did not decode, with the first error.
    pub bad_records: (u64, Option<String>),
    /// Bytes of records received.
    pub trace_bytes: u64,
    /// Time spent writing the store.
    pub store_time: Duration,
    /// The store's size after the run.
    pub store_bytes: u64,
}

impl RecordSummary {
    /// Stored calls per second of store writing time.
    #[must_use]
    pub fn write_rate(&self) -> f64 {
        let s = self.store_time.as_secs_f64();
        if s > 0.0 { self.calls as f64 / s } else { 0.0 }
    }
}

fn token() -> String {
    use std::hash::{BuildHasher, Hasher};
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u128(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos()),
    );
    h.write_u32(std::process::id());
    format!("{:016x}", h.finish())
}

fn is_java(program: &str) -> bool {
    Path::new(program)
        .file_name()
        .is_some_and(|n| n == "java" || n == "java.exe")
}

/// Reads the connection's greeting: its kind when the token matches.
fn greeting(s: &mut TcpStream, token: &str) -> Option<[u8; 5]> {
    s.set_read_timeout(Some(Duration::from_secs(10))).ok()?;
    let mut kind = [0u8; 5];
    s.read_exact(&mut kind).ok()?;
    let mut n = [0u8; 4];
    s.read_exact(&mut n).ok()?;
    let n = u32::from_be_bytes(n) as usize;
    if n > 256 {
        return None;
    }
    let mut t = vec![0u8; n];
    s.read_exact(&mut t).ok()?;
    s.set_read_timeout(None).ok()?;
    (t == token.as_bytes()).then_some(kind)
}

/// Answers the agent's class requests until it disconnects.
fn serve_classes(stream: TcpStream, inst: &Arc<Mutex<RecordInstrumenter>>) {
    // Each answer is one write: with Nagle's algorithm a split answer waits for the agent's
    // delayed acknowledgement (tens of milliseconds per class).
    let _ = stream.set_nodelay(true);
    let Ok(mut w) = stream.try_clone() else {
        return;
    };
    let mut r = BufReader::new(stream);
    let read_block = |r: &mut BufReader<TcpStream>| -> Option<Vec<u8>> {
        let mut n = [0u8; 4];
        r.read_exact(&mut n).ok()?;
        let n = u32::from_be_bytes(n) as usize;
        if n > MAX_RECORD {
            return None;
        }
        let mut b = vec![0u8; n];
        r.read_exact(&mut b).ok()?;
        Some(b)
    };
    loop {
        let Some(name) = read_block(&mut r) else {
            return;
        };
        let Some(bytes) = read_block(&mut r) else {
            return;
        };
        let name = String::from_utf8_lossy(&name).into_owned();
        let out = {
            let mut inst = match inst.lock() {
                Ok(g) => g,
                Err(p) => p.into_inner(),
            };
            let result = ClassFile::parse_named(&bytes, &name)
                .and_then(|c| inst.instrument(&c))
                .and_then(|c| c.map(|c| c.to_bytes()).transpose());
            match result {
                Ok(Some(b)) => b,
                Ok(None) => Vec::new(),
                Err(e) => {
                    inst.note_skipped(&name, "", &e.to_string());
                    Vec::new()
                }
            }
        };
        let mut answer = Vec::with_capacity(4 + out.len());
        answer.extend((out.len() as u32).to_be_bytes());
        answer.extend(&out);
        if w.write_all(&answer).and_then(|()| w.flush()).is_err() {
            return;
        }
    }
}

/// What the event connection delivered.
#[derive(Default)]
struct Ingest {
    calls: u64,
    truncated: u64,
    bytes: u64,
    bad: (u64, Option<String>),
    end: Option<EndRecord>,
    store_time: Duration,
    error: Option<Error>,
}

/// Decodes records and writes them in batches until the stream ends.
fn ingest(stream: TcpStream, store: &mut Store, run: i64) -> Ingest {
    let mut out = Ingest::default();
    let mut r = BufReader::with_capacity(1 << 16, stream);
    let mut last_commit = Instant::now();
    loop {
        let mut n = [0u8; 4];
        if r.read_exact(&mut n).is_err() {
            break;
        }
        let n = u32::from_be_bytes(n) as usize;
        if n > MAX_RECORD {
            out.bad.0 += 1;
            out.bad
                .1
                .get_or_insert_with(|| format!("record length {n} is beyond the limit"));
            break;
        }
        let mut frame = vec![0u8; n];
        if r.read_exact(&mut frame).is_err() {
            out.bad.0 += 1;
            out.bad
                .1
                .get_or_insert_with(|| "stream ended inside a record".into());
            break;
        }
        out.bytes += 4 + n as u64;
        match decode(&frame) {
            Ok(Record::Call(c)) => {
                let t = Instant::now();
                if let Err(e) = store.add_call(run, &c) {
                    out.error = Some(e);
                    break;
                }
                out.calls += 1;
                out.truncated += u64::from(c.truncated);
                out.store_time += t.elapsed();
            }
            Ok(Record::End(e)) => out.end = Some(e),
            Err(e) => {
                out.bad.0 += 1;
                out.bad.1.get_or_insert_with(|| e.to_string());
            }
        }
        if store.pending() >= BATCH || last_commit.elapsed() >= FLUSH_EVERY {
            let t = Instant::now();
            if let Err(e) = store.commit() {
                out.error = Some(e);
                break;
            }
            out.store_time += t.elapsed();
            last_commit = Instant::now();
        }
    }
    let t = Instant::now();
    if let Err(e) = store.commit() {
        out.error.get_or_insert(e);
    }
    out.store_time += t.elapsed();
    out
}

/// Runs the command with the recording agent; see the module documentation.
///
/// # Errors
/// The store cannot be opened or written, the command is empty or cannot be started, the
/// agent's jar cannot be written. A program that fails is not an error: its exit code is in the
/// summary.
pub fn record(cfg: &RecordConfig) -> Result<RecordSummary> {
    let Some(program) = cfg.command.first() else {
        return Err(Error::Command(
            "cannot record: no command given (ferrosuite record --store FILE -- java …)".into(),
        ));
    };
    let mut store = Store::open(&cfg.store)?;
    let started = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64);
    let run = store.begin_run(&cfg.command.join(" "), started)?;
    let dir = std::env::temp_dir().join(format!(
        "ferrosuite-record-{}-{}",
        std::process::id(),
        token()
    ));
    std::fs::create_dir_all(&dir).map_err(Error::io(dir.display().to_string()))?;
    let result = run_recorded(cfg, program, &dir, &mut store, run);
    let _ = std::fs::remove_dir_all(&dir);
    result
}

fn run_recorded(
    cfg: &RecordConfig,
    program: &str,
    dir: &Path,
    store: &mut Store,
    run: i64,
) -> Result<RecordSummary> {
    let jar = write_agent_jar(dir)?;
    let listener = TcpListener::bind(("127.0.0.1", 0)).map_err(Error::io("loopback listener"))?;
    listener
        .set_nonblocking(true)
        .map_err(Error::io("loopback listener"))?;
    let port = listener
        .local_addr()
        .map_err(Error::io("loopback listener"))?
        .port();
    let token = token();
    let agent = format!(
        "-javaagent:{}={}",
        jar.display(),
        cfg.agent_args(port, &token)
    );
    let mut cmd = Command::new(program);
    let mut summary = RecordSummary {
        run,
        ..RecordSummary::default()
    };
    if is_java(program) {
        cmd.arg(&agent).args(&cfg.command[1..]);
    } else {
        let old = std::env::var("JAVA_TOOL_OPTIONS").unwrap_or_default();
        cmd.args(&cfg.command[1..])
            .env("JAVA_TOOL_OPTIONS", format!("{old} {agent}").trim());
        summary.via_environment = true;
    }
    let inst = Arc::new(Mutex::new(RecordInstrumenter::new(cfg.filter.clone())));
    let begun = Instant::now();
    let mut child = cmd
        .spawn()
        .map_err(|e| Error::Command(format!("cannot record: cannot start {program}: {e}")))?;
    let mut ctl: Option<std::thread::JoinHandle<()>> = None;
    let mut events: Option<(TcpStream, TcpStream)> = None;
    let mut status = None;
    // Accept the agent's two connections while the program starts (or ends without one).
    while (ctl.is_none() || events.is_none()) && status.is_none() {
        match listener.accept() {
            Ok((mut s, _)) => {
                let _ = s.set_nonblocking(false);
                match greeting(&mut s, &token).as_ref().map(|k| &k[..]) {
                    Some(b"FSCTL") if ctl.is_none() => {
                        let inst = Arc::clone(&inst);
                        ctl = Some(std::thread::spawn(move || serve_classes(s, &inst)));
                    }
                    Some(b"FSEVT") if events.is_none() => {
                        if let Ok(c) = s.try_clone() {
                            events = Some((s, c));
                        }
                    }
                    _ => {}
                }
            }
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                status = child
                    .try_wait()
                    .map_err(Error::io(format!("waiting for {program}")))?;
                std::thread::sleep(Duration::from_millis(2));
            }
            Err(e) => return Err(Error::io("loopback listener")(e)),
        }
    }
    drop(listener);
    summary.connected = ctl.is_some() && events.is_some();
    let ingest = std::thread::scope(|scope| -> Result<Ingest> {
        let handle = events.map(|(s, watch)| {
            let store = &mut *store;
            (scope.spawn(move || ingest(s, store, run)), watch)
        });
        let status = match status {
            Some(s) => s,
            None => child
                .wait()
                .map_err(Error::io(format!("waiting for {program}")))?,
        };
        summary.wall = begun.elapsed();
        summary.exit_code = exit_code(status);
        let Some((h, watch)) = handle else {
            return Ok(Ingest::default());
        };
        let deadline = Instant::now() + DRAIN_TIMEOUT;
        while !h.is_finished() && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(5));
        }
        let _ = watch.shutdown(std::net::Shutdown::Both);
        Ok(h.join().unwrap_or_default())
    })?;
    if let Some(h) = ctl {
        let _ = h.join();
    }
    if let Some(e) = ingest.error {
        return Err(e);
    }
    let map: RecordMap = match inst.lock() {
        Ok(g) => g.map().clone(),
        Err(p) => p.into_inner().map().clone(),
    };
    let t = Instant::now();
    store.finish_run(
        run,
        &map,
        ingest.end.as_ref(),
        &RunTotals {
            wall_ms: summary.wall.as_millis() as u64,
            exit_code: summary.exit_code,
            calls: ingest.calls,
        },
    )?;
    summary.store_time = ingest.store_time + t.elapsed();
    summary.classes = map.classes;
    summary.failed = map
        .skipped
        .iter()
        .filter(|(_, m, _)| m.is_empty())
        .map(|(c, _, r)| (c.clone(), r.clone()))
        .collect();
    summary.methods = map.methods.len();
    summary.calls = ingest.calls;
    summary.truncated = ingest.truncated;
    summary.trace_bytes = ingest.bytes;
    summary.bad_records = ingest.bad;
    if let Some(end) = &ingest.end {
        summary.complete = true;
        summary.dropped = end.dropped;
        summary.methods_called = end.methods.iter().filter(|m| m.seen > 0).count();
        summary.methods_at_limit = end
            .methods
            .iter()
            .filter(|m| m.recorded >= cfg.max_per_method)
            .count();
        summary.repeats = end.methods.iter().map(|m| u64::from(m.repeats)).sum();
        summary.unfinished = end
            .methods
            .iter()
            .map(|m| u64::from(m.seen.saturating_sub(m.recorded + m.repeats)))
            .sum();
    }
    summary.store_bytes = std::fs::metadata(store.path()).map_or(0, |m| m.len());
    Ok(summary)
}

#[cfg(unix)]
fn exit_code(s: std::process::ExitStatus) -> i32 {
    use std::os::unix::process::ExitStatusExt;
    s.code().unwrap_or_else(|| 128 + s.signal().unwrap_or(0))
}

#[cfg(not(unix))]
fn exit_code(s: std::process::ExitStatus) -> i32 {
    s.code().unwrap_or(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_agent_goes_after_java_only() {
        assert!(is_java("java"));
        assert!(is_java("/usr/lib/jvm/temurin-25-jdk-amd64/bin/java"));
        assert!(!is_java("/usr/bin/jflex"));
        assert!(!is_java("javac"));
    }

    #[test]
    fn agent_arguments_carry_the_limits() {
        let mut c = RecordConfig::new("x.db".into(), vec!["java".into()]);
        c.filter.include = vec!["com.example".into()];
        let a = c.agent_args(4242, "t0k");
        assert!(
            a.starts_with("4242;t0k;include=com/example;exclude=;max=100;"),
            "{a}"
        );
    }
}
