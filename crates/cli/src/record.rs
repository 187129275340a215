//! `ferrosuite record`: runs a Java program with the recording agent and writes its calls to a
//! trace store; prints a summary on standard error after the program ends (its own output is
//! untouched) and exits with the program's exit code.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, Result};
use clap::Args;
use ferrosuite_bytecode::instrument::record::RecordFilter;
use ferrosuite_carve::record::{RecordConfig, RecordSummary, record};

/// What `ferrosuite record` was asked to do.
#[derive(Args, Debug)]
#[group(skip)]
pub struct Request {
    /// The trace store (a sqlite3 database file; created, or the run is added to an existing
    /// store).
    #[arg(long)]
    store: PathBuf,
    /// Record classes whose name starts with this prefix (repeatable; default: every class
    /// outside the JDK).
    #[arg(long)]
    include: Vec<String>,
    /// Do not record classes whose name starts with this prefix (repeatable).
    #[arg(long)]
    exclude: Vec<String>,
    /// Distinct calls recorded per method (repeats of a recorded call are not counted).
    #[arg(long, default_value_t = 100)]
    max_per_method: u32,
    /// Depth of the object snapshots (receiver, arguments, results).
    #[arg(long, default_value_t = 3)]
    depth: u32,
    /// Values per object snapshot.
    #[arg(long, default_value_t = 100)]
    max_values: u32,
    /// Characters kept of a string.
    #[arg(long, default_value_t = 65_536)]
    max_string: u32,
    /// Elements kept of an array or collection.
    #[arg(long, default_value_t = 256)]
    max_array: u32,
    /// Calls on collaborators and static reads kept per recorded call (a call with more is
    /// marked truncated).
    #[arg(long, default_value_t = 200)]
    max_events: u32,
    /// Bytes kept of a file a recorded call reads, or of the console input it reads (a call
    /// that reads more gets no carved test).
    #[arg(long, default_value_t = 1 << 20)]
    max_file_bytes: u32,
    /// Print the summary as JSON.
    #[arg(long)]
    json: bool,
    /// The program: `java [options] (MainClass | -jar file.jar) [args]`, or a launcher script
    /// that runs java.
    #[arg(last = true, required = true)]
    command: Vec<String>,
}

pub fn run(req: &Request) -> Result<ExitCode> {
    let mut cfg = RecordConfig::new(req.store.clone(), req.command.clone());
    cfg.filter = RecordFilter {
        include: req.include.clone(),
        exclude: req.exclude.clone(),
    };
    cfg.max_per_method = req.max_per_method.max(1);
    cfg.depth = req.depth;
    cfg.max_values = req.max_values.max(1);
    cfg.max_string = req.max_string;
    cfg.max_array = req.max_array;
    cfg.max_events = req.max_events;
    cfg.max_file_bytes = req.max_file_bytes.min(i32::MAX as u32);
    let s = record(&cfg).with_context(|| format!("recording {}", req.command.join(" ")))?;
    if req.json {
        eprintln!("{}", serde_json::to_string_pretty(&json(&s, &cfg))?);
    } else {
        eprint!("{}", text(&s, &cfg));
    }
    Ok(ExitCode::from(s.exit_code.clamp(0, 255) as u8))
}

fn json(s: &RecordSummary, cfg: &RecordConfig) -> serde_json::Value {
    serde_json::json!({
        "store": cfg.store.display().to_string(),
        "run": s.run,
        "exit_code": s.exit_code,
        "wall_ms": s.wall.as_millis() as u64,
        "connected": s.connected,
        "complete": s.complete,
        "via_environment": s.via_environment,
        "classes": s.classes,
        "failed_classes": s.failed.iter().map(|(c, r)| serde_json::json!({"class": c, "reason": r})).collect::<Vec<_>>(),
        "methods": s.methods,
        "methods_called": s.methods_called,
        "methods_at_limit": s.methods_at_limit,
        "calls": s.calls,
        "skipped": {
            "repeats": s.repeats,
            "dropped": s.dropped,
            "unfinished": s.unfinished,
            "bad_records": s.bad_records.0,
        },
        "truncated_calls": s.truncated,
        "trace_bytes": s.trace_bytes,
        "store_bytes": s.store_bytes,
        "store_write_ms": s.store_time.as_millis() as u64,
        "store_calls_per_s": s.write_rate(),
    })
}

fn text(s: &RecordSummary, cfg: &RecordConfig) -> String {
    use std::fmt::Write as _;
    let mut o = String::new();
    let _ = writeln!(
        o,
        "ferrosuite record: run {} in {}",
        s.run,
        cfg.store.display()
    );
    if !s.connected {
        let _ = writeln!(
            o,
            "  no JVM loaded the recording agent: nothing recorded (is the command `java …` or a launcher that runs java?)"
        );
    }
    if s.via_environment {
        let _ = writeln!(
            o,
            "  agent passed through JAVA_TOOL_OPTIONS (the JVM announces it on standard error)"
        );
    }
    let _ = writeln!(
        o,
        "  program: exit code {}, {:.2} s{}",
        s.exit_code,
        s.wall.as_secs_f64(),
        if s.connected && !s.complete {
            " (ended without the recorder's last record: halted or killed?)"
        } else {
            ""
        }
    );
    let _ = writeln!(
        o,
        "  instrumented: {} classes, {} methods and constructors ({} classes failed)",
        s.classes,
        s.methods,
        s.failed.len()
    );
    for (c, r) in s.failed.iter().take(10) {
        let _ = writeln!(o, "    {c}: {r}");
    }
    let _ = writeln!(
        o,
        "  recorded: {} calls of {} called methods ({} reached --max-per-method {}); {} with a value cut by a limit",
        s.calls, s.methods_called, s.methods_at_limit, cfg.max_per_method, s.truncated
    );
    let _ = writeln!(
        o,
        "  not recorded: {} repeats of a recorded call, {} unfinished (threw in a constructor, running at exit), {} dropped (store behind), {} undecodable; calls after a method's limit are not counted",
        s.repeats, s.unfinished, s.dropped, s.bad_records.0
    );
    if let Some(e) = &s.bad_records.1 {
        let _ = writeln!(o, "    first undecodable record: {e}");
    }
    let _ = writeln!(
        o,
        "  store: {:.1} KiB of records received, file {:.1} KiB, {:.0} calls/s written ({} ms writing)",
        s.trace_bytes as f64 / 1024.0,
        s.store_bytes as f64 / 1024.0,
        s.write_rate(),
        s.store_time.as_millis()
    );
    o
}
