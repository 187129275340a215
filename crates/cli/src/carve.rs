//! `ferrosuite carve`: JUnit tests from a trace store written by `ferrosuite record`, one test
//! class per recorded class, validated with `javac` and JUnit unless told not to.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, Result};
use clap::Args;
use ferrosuite_carve::carve::{CarveConfig, CarveReport, carve};
use ferrosuite_emit::JUnit;

/// What `ferrosuite carve` was asked to do.
#[derive(Args, Debug)]
#[group(skip)]
pub struct Request {
    /// The trace store written by `ferrosuite record`.
    #[arg(long)]
    store: PathBuf,
    /// The program's classes: directories and jars separated by ':'.
    #[arg(long, short = 'c')]
    classpath: String,
    /// Carve tests for this class, or the classes under this package prefix (repeatable;
    /// default: every recorded class).
    #[arg(long = "class")]
    classes: Vec<String>,
    /// Where the test sources go (`<out>/<package>/<Class>CarvedTest.java`).
    #[arg(long, short = 'o')]
    out: PathBuf,
    /// The recorded run to carve (default: the store's latest).
    #[arg(long)]
    run: Option<i64>,
    /// JUnit version of the tests: 5 or 4.
    #[arg(long, default_value_t = 5)]
    junit: u8,
    /// Write the tests without compiling and running them.
    #[arg(long)]
    no_validate: bool,
    /// Extra runs a test must pass to be kept.
    #[arg(long, default_value_t = 2)]
    reruns: u32,
    /// Seconds each test may run in the validation runs (JUnit 5) before it fails and is
    /// removed.
    #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u64).range(1..=3600))]
    test_timeout: u64,
    /// Let the tests read the machine's clock, randomness, files and console instead of
    /// setting up the controlled environment as each recorded call read it (then no
    /// ferrosuite-runtime.jar is written beside them).
    #[arg(long)]
    no_environment: bool,
    /// Print the report as JSON.
    #[arg(long)]
    json: bool,
}

pub fn run(req: &Request) -> Result<ExitCode> {
    let mut cfg = CarveConfig::new(req.store.clone(), req.classpath.clone(), req.out.clone());
    cfg.run = req.run;
    cfg.classes.clone_from(&req.classes);
    cfg.junit = match req.junit {
        4 => JUnit::Four,
        5 => JUnit::Five,
        v => anyhow::bail!("--junit {v}: 4 or 5"),
    };
    cfg.validate = !req.no_validate;
    cfg.reruns = req.reruns;
    cfg.test_timeout = std::time::Duration::from_secs(req.test_timeout);
    cfg.environment = !req.no_environment;
    let report = carve(&cfg).with_context(|| format!("carving from {}", req.store.display()))?;
    if req.json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        print!("{}", text(&report));
    }
    Ok(ExitCode::SUCCESS)
}

fn text(r: &CarveReport) -> String {
    use std::fmt::Write as _;
    let mut o = String::new();
    let _ = writeln!(
        o,
        "ferrosuite carve: run {}: {} recorded calls, {} carved ({} merged into equal tests), {} passing tests kept, standing for {} calls",
        r.run, r.calls, r.carved_calls, r.merged, r.passing, r.calls_with_passing_test
    );
    let _ = writeln!(
        o,
        "{:<48} {:>6} {:>7} {:>7} {:>6} {:>6} {:>8}",
        "class", "calls", "carved", "passing", "nocomp", "failed", "unstable"
    );
    for c in &r.classes {
        let _ = writeln!(
            o,
            "{:<48} {:>6} {:>7} {:>7} {:>6} {:>6} {:>8}",
            c.class, c.calls, c.carved, c.passing, c.uncompilable, c.failing, c.unstable
        );
    }
    if !r.skipped.is_empty() {
        let _ = writeln!(o, "calls without a test:");
        for (why, n) in &r.skipped {
            let _ = writeln!(o, "  {n:>6}  {why}");
        }
    }
    if let Some(jar) = &r.runtime_jar {
        let _ = writeln!(
            o,
            "the tests control the environment: put {} and Mockito (with Byte Buddy's agent) on the test class path",
            jar.display()
        );
    }
    o
}
