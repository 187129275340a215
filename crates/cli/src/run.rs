//! `ferrosuite run`: runs saved tests (JSON, the test model's `serde` form) on the execution
//! host and prints what each statement did, the probe coverage of the instrumented classes,
//! and timing. The CLI binary serves as its own worker (`ferrosuite __worker`).

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use ferrosuite_exec::{Host, HostConfig, Observed, Outcome, Status, WorkerProgram};
use ferrosuite_testcase::{Statement, Test};
use serde::Deserialize;

/// What `ferrosuite run` was asked to do.
pub struct Request {
    pub classpath: String,
    pub tests: PathBuf,
    pub instrument: Vec<String>,
    pub workers: usize,
    pub timeout_ms: u64,
    pub loop_limit: u32,
    pub jvm_options: Vec<String>,
    pub observe: bool,
    pub no_sandbox: bool,
    pub json: bool,
}

/// A tests file: one test, a list, or `{"tests": [...]}`.
#[derive(Deserialize)]
#[serde(untagged)]
enum TestsFile {
    One(Test),
    Many(Vec<Test>),
    Wrapped { tests: Vec<Test> },
}

fn classes_named(tests: &[Test]) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for t in tests {
        for s in &t.statements {
            match s {
                Statement::Constructor { class, .. }
                | Statement::Method { class, .. }
                | Statement::FieldRead { class, .. }
                | Statement::FieldWrite { class, .. }
                | Statement::EnumConstant { class, .. } => {
                    out.insert(class.to_string());
                }
                _ => {}
            }
        }
    }
    out
}

pub fn run(req: &Request) -> Result<ExitCode> {
    let text = std::fs::read_to_string(&req.tests)
        .with_context(|| format!("cannot read {}", req.tests.display()))?;
    let tests = match serde_json::from_str::<TestsFile>(&text).with_context(|| {
        format!(
            "{}: not a test, a list of tests or {{\"tests\": [...]}}",
            req.tests.display()
        )
    })? {
        TestsFile::One(t) => vec![t],
        TestsFile::Many(v) | TestsFile::Wrapped { tests: v } => v,
    };
    for (i, t) in tests.iter().enumerate() {
        t.validate()
            .with_context(|| format!("{}: test {i}", req.tests.display()))?;
    }
    let classpath: Vec<PathBuf> = req
        .classpath
        .split(':')
        .filter(|p| !p.is_empty())
        .map(PathBuf::from)
        .collect();
    if classpath.is_empty() {
        bail!("the class path is empty");
    }
    // Instrument what was asked for, else the classes the tests name that the class path has.
    let instrument: Vec<String> = if req.instrument.is_empty() {
        let cp = ferrosuite_bytecode::classpath::ClassPath::new(
            classpath
                .iter()
                .filter_map(|p| ferrosuite_bytecode::classpath::ClassPathEntry::open(p).ok())
                .collect(),
        );
        classes_named(&tests)
            .into_iter()
            .filter(|c| cp.find_bytes(c).ok().flatten().is_some())
            .filter(|c| !c.contains('$'))
            .collect()
    } else {
        req.instrument.iter().map(|c| c.replace('.', "/")).collect()
    };
    let exe = std::env::current_exe().context("cannot locate the ferrosuite executable")?;
    let mut config = HostConfig {
        classpath,
        instrument,
        workers: req.workers.max(1),
        timeout: Duration::from_millis(req.timeout_ms),
        loop_limit: req.loop_limit,
        sandbox: !req.no_sandbox,
        worker: Some(WorkerProgram {
            program: exe,
            args: vec!["__worker".into()],
        }),
        ..HostConfig::default()
    };
    config.jvm_options.extend(req.jvm_options.iter().cloned());
    let started = Instant::now();
    let mut host = Host::start(config)?;
    let startup = started.elapsed();
    let began = Instant::now();
    let results = host.run(&tests, req.observe)?;
    let elapsed = began.elapsed();
    let invalid: Vec<String> = results
        .iter()
        .enumerate()
        .filter_map(|(i, r)| match &r.status {
            Status::Invalid(why) => Some(format!("test {i}: {why}")),
            _ => None,
        })
        .collect();
    let map = host.map();
    let mut covered = BTreeSet::new();
    for (slot, hits, _) in &host.ready().init_probes.branches {
        if *hits > 0 {
            covered.insert(*slot);
        }
    }
    for r in &results {
        covered.extend(r.probes.branches.iter().filter(|b| b.1 > 0).map(|b| b.0));
    }
    if req.json {
        let report = serde_json::json!({
            "java_version": host.ready().java_version,
            "instrumented": map.classes.iter().map(|c| c.name.replace('/', ".")).collect::<Vec<_>>(),
            "branch_outcomes": map.branch_slots,
            "branch_outcomes_covered": covered.len(),
            "startup_ms": startup.as_secs_f64() * 1e3,
            "run_ms": elapsed.as_secs_f64() * 1e3,
            "stats": host.stats(),
            "init_failures": host.ready().init_failures,
            "results": results,
        });
        out!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        for (i, (t, r)) in tests.iter().zip(&results).enumerate() {
            out!("test {i}: {}", status_text(&r.status));
            for (j, s) in t.statements.iter().enumerate() {
                let what = match r.outcomes.get(j) {
                    None => "not run".to_string(),
                    Some(Outcome::Normal) => {
                        match r.observations.get(j).and_then(|o| o.value.as_ref()) {
                            Some(v) => format!("= {}", observed_text(v)),
                            None => "ok".into(),
                        }
                    }
                    Some(Outcome::Threw(e)) => match &e.message {
                        Some(m) => format!("threw {}: {m}", e.class),
                        None => format!("threw {}", e.class),
                    },
                };
                out!("  {j:>3}  {s}  {what}");
            }
            out!(
                "  branches taken: {}, lines hit: {}, statics reset: {}",
                r.probes.branches.iter().filter(|b| b.1 > 0).count(),
                r.probes.lines.len(),
                r.reset_classes.len()
            );
        }
        let stats = host.stats();
        out!(
            "{} tests, {} statements in {:.1} ms (JVM start {:.0} ms, Java {}); branch outcomes covered {}/{}; timeouts {}, crashes {}, worker restarts {}",
            stats.tests,
            stats.statements,
            elapsed.as_secs_f64() * 1e3,
            startup.as_secs_f64() * 1e3,
            host.ready().java_version,
            covered.len(),
            host.map().branch_slots,
            stats.timeouts,
            stats.crashes,
            stats.restarts
        );
        for f in &host.ready().init_failures {
            out!("warning: {} failed to initialise: {}", f.class, f.error);
        }
    }
    if invalid.is_empty() {
        Ok(ExitCode::SUCCESS)
    } else {
        for line in &invalid {
            eprintln!("error: {line}");
        }
        Ok(ExitCode::from(1))
    }
}

fn status_text(s: &Status) -> String {
    match s {
        Status::Completed => "completed".into(),
        Status::Stopped => "stopped by an exception".into(),
        Status::Aborted(why) => format!("aborted ({why})"),
        Status::Exhausted(why) => format!("exhausted memory ({why})"),
        Status::Timeout => "timed out (worker killed and replaced)".into(),
        Status::Crashed(why) => format!("crashed ({why})"),
        Status::Invalid(why) => format!("invalid ({why})"),
    }
}

fn observed_text(v: &Observed) -> String {
    match v {
        Observed::Null => "null".into(),
        Observed::Boolean(b) => b.to_string(),
        Observed::Char(c) => format!("'{}'", char::from_u32(u32::from(*c)).unwrap_or('?')),
        Observed::Integer(i) => i.to_string(),
        Observed::Floating(f) => format!("{:?}", f.0),
        Observed::String { text, truncated } => {
            format!(
                "{}{}",
                ferrosuite_testcase::statement::string_literal(text),
                if *truncated { "…" } else { "" }
            )
        }
        Observed::Enum { class, name } => format!("{class}.{name}"),
        Observed::Object { class } => format!("a {class}"),
        Observed::Boxed { value, .. } => observed_text(value),
        Observed::Array {
            class,
            length,
            elements: None,
        } => format!("a {class} of length {length}"),
        Observed::Array {
            class,
            elements: Some(e),
            ..
        } => {
            let items: Vec<String> = e.iter().map(observed_text).collect();
            format!("a {class} {{{}}}", items.join(", "))
        }
    }
}
