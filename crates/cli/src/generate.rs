//! `ferrosuite generate`: arguments → a `ferrosuite_generate::batch::Batch`, run by the
//! library (several classes at once with `--jobs`, a share of them with `--shard`); this
//! module prints its events on stderr, the summary table on stdout and writes the JSON
//! report. `ferrosuite merge` joins the reports of shards.

use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use ferrosuite_emit::JUnit;
use ferrosuite_exec::WorkerProgram;
use ferrosuite_generate::Config;
use ferrosuite_generate::batch::{
    Batch, Entry, Event, Events, Report, check_classpath, package_classes, run_batch,
};
use ferrosuite_generate::shard::{Shard, merge};
use ferrosuite_generate::{algorithms, criteria};
use ferrosuite_search::engine::{Algorithms, Budget, Progress};

/// The arguments of `ferrosuite generate` (clap's flags are booleans).
#[derive(clap::Args, Debug, Clone)]
#[allow(clippy::struct_excessive_bools)]
pub struct Request {
    /// The class path of the code under test: directories and jars separated by ':'.
    #[arg(long, short = 'c', conflicts_with = "project")]
    pub classpath: Option<String>,
    /// A Maven project's directory (pom.xml, multi-module included): Maven compiles it and
    /// gives the class paths; the project's JUnit, Mockito and compiler release are used;
    /// tests go to each module's src/test/java. Default classes: every testable class.
    #[arg(long, value_name = "DIR")]
    pub project: Option<PathBuf>,
    /// An extra argument for every Maven run of --project (repeatable), e.g.
    /// --maven-arg=-o (offline), --maven-arg=-Penv, --maven-arg=-Denforcer.skip=true.
    #[arg(long = "maven-arg", value_name = "ARG", allow_hyphen_values = true)]
    pub maven_args: Vec<String>,
    /// A class to test (binary name, e.g. com.example.Stack); repeatable.
    #[arg(long = "class")]
    pub classes: Vec<String>,
    /// Test every top-level class of this package on the class path.
    #[arg(long)]
    pub package: Option<String>,
    /// Search time per class: 60, 60s, 2m, 500ms (default 60s, or none with
    /// --max-statements alone).
    #[arg(long)]
    pub budget: Option<String>,
    /// Search budget in statements executed per class: with a seed, the output is
    /// byte-identical from run to run.
    #[arg(long, value_name = "N")]
    pub max_statements: Option<u64>,
    /// Seed of the search.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    #[arg(long, help = algorithm_help())]
    pub algorithm: Option<String>,
    #[arg(long, help = criteria_help())]
    pub criteria: Option<String>,
    /// JUnit version of the emitted tests: 4 or 5 (default 5, or what the project's tests use).
    #[arg(long)]
    pub junit: Option<u8>,
    /// Name of each test class after the class under test's: <Class><SUFFIX> (default Test;
    /// for `integration`, <Caller><Callee><SUFFIX>, default IT).
    #[arg(long)]
    pub test_suffix: Option<String>,
    /// Measure the coupled-branch coverage (Cling's CBC) of the pair CALLER:CALLEE on each
    /// class's emitted tests (reported per class); with coupled-branch among --criteria the
    /// pair's coupled branches are goals of the search too.
    #[arg(long, value_name = "CALLER:CALLEE")]
    pub pair: Option<String>,
    /// Output root: tests go to OUT/src/test/java/<package>/<Class>Test.java (default
    /// ferrosuite-tests; with --project, each module's directory).
    #[arg(long, short = 'o', conflicts_with = "project")]
    pub out: Option<PathBuf>,
    /// Classes processed at once.
    #[arg(long, default_value_t = 1)]
    pub jobs: usize,
    /// Worker JVMs per class.
    #[arg(long, default_value_t = 1)]
    pub workers: usize,
    /// Time limit of one test during the search, in milliseconds.
    #[arg(long = "timeout", default_value_t = 3000)]
    pub timeout_ms: u64,
    /// `javac --release` level the emitted tests compile with (default: the Java version of
    /// the class files, 8 at least).
    #[arg(long)]
    pub release: Option<u16>,
    /// Jars and directories the tests may use (JUnit, Mockito, test libraries), ':'-separated;
    /// JUnit is looked up here first, then in ~/.m2/repository, then in /usr/share/java.
    #[arg(long, value_name = "CP")]
    pub test_classpath: Option<String>,
    /// The JDK that runs and validates the tests (default: `JAVA_HOME` when it loads the class
    /// files, else the oldest installed JDK that does, e.g. under /usr/lib/jvm).
    #[arg(long, value_name = "DIR")]
    pub java_home: Option<PathBuf>,
    /// Do not compile and run the emitted tests (they may then not compile or fail).
    #[arg(long)]
    pub no_validate: bool,
    /// Replace the test files an earlier run wrote (else their classes are skipped, so that
    /// a run cut short resumes). Files ferrosuite did not write are never replaced: the tests
    /// then go to another name.
    #[arg(long)]
    pub overwrite: bool,
    /// Take only share K of N of the classes (K from 0 to N-1; balanced by class size, the
    /// same on every machine); join the shards' reports with `ferrosuite merge`.
    #[arg(long, value_name = "K/N")]
    pub shard: Option<String>,
    /// Where to write the JSON report (default OUT/ferrosuite-report.json).
    #[arg(long)]
    pub report: Option<PathBuf>,
    /// No Mockito mocks in the search or the tests (by default a collaborator nothing on the
    /// class path implements is mocked, and others may be late in the search).
    #[arg(long)]
    pub no_mocks: bool,
    /// No calls of private methods or writes of private fields by reflection.
    #[arg(long)]
    pub no_private_access: bool,
    /// Let the code under test read the machine's clock and randomness instead of the
    /// controlled environment's virtual clock and deterministic seeds.
    #[arg(long)]
    pub no_environment: bool,
    /// Keep every stable assertion up to the plain limits and every test the search kept,
    /// instead of choosing them by mutation analysis (see docs/MUTATION.md).
    #[arg(long)]
    pub no_mutation_assertions: bool,
    /// `P_FM`: probability of a mock for a type real objects can give too, once --mock-start of
    /// the budget is spent (default 0.8).
    #[arg(long, value_name = "P")]
    pub mock_probability: Option<f64>,
    /// `S_FM`: share of the budget after which such mocks are used (default 0.5).
    #[arg(long, value_name = "SHARE")]
    pub mock_start: Option<f64>,
}

/// `--criteria`'s help: the registry's criteria, with a line each.
fn criteria_help() -> String {
    use std::fmt::Write as _;
    let mut help = String::from(
        "Coverage criteria, comma-separated, or all (default branch,line,method,exception):",
    );
    for c in criteria().iter() {
        let _ = write!(help, "\n  {}: {}", c.name(), c.summary());
    }
    help
}

/// `--algorithm`'s help: the registry's algorithms, with a line each.
fn algorithm_help() -> String {
    use std::fmt::Write as _;
    let mut help = String::from("The search algorithm (default whole-suite):");
    for a in algorithms().iter() {
        let _ = write!(help, "\n  {}: {}", a.name(), a.summary());
    }
    help
}

/// `60`, `60s`, `2m`, `1500ms`, `1h`.
pub fn parse_duration(s: &str) -> Result<Duration> {
    let s = s.trim();
    let (num, unit) = match s.find(|c: char| !c.is_ascii_digit() && c != '.') {
        Some(i) => (&s[..i], &s[i..]),
        None => (s, "s"),
    };
    let v: f64 = num
        .parse()
        .with_context(|| format!("{s:?} is not a duration (e.g. 60, 60s, 2m, 500ms)"))?;
    let secs = match unit {
        "ms" => v / 1000.0,
        "s" => v,
        "m" | "min" => v * 60.0,
        "h" => v * 3600.0,
        _ => bail!("{s:?}: unknown unit {unit:?} (use ms, s, m or h)"),
    };
    if !(secs.is_finite() && secs > 0.0) {
        bail!("{s:?}: a budget must be positive");
    }
    Ok(Duration::from_secs_f64(secs))
}

/// Converts the request into batches and runs them: progress on stderr, a line per class,
/// the summary table on stdout, the report written.
pub fn run(req: &Request, algorithms: &Algorithms) -> Result<ExitCode> {
    let config = base_config(req, algorithms)?;
    let shard = match &req.shard {
        Some(s) => Some(
            s.parse::<Shard>()
                .map_err(|e| anyhow::anyhow!("--shard {e}"))?,
        ),
        None => None,
    };
    if let Some(dir) = &req.project {
        return crate::project::run(req, &config, shard, dir);
    }
    let Some(cp) = &req.classpath else {
        bail!("nothing to test: give --classpath (-c) or --project");
    };
    let classpath = split_classpath(cp);
    check_classpath(&classpath)?;
    let mut classes = req.classes.clone();
    if let Some(p) = &req.package {
        classes.extend(package_classes(&classpath, p)?);
    }
    if classes.is_empty() {
        bail!("nothing to do: give --class (repeatable) or --package");
    }
    let mut config = config;
    config.classpath = classpath;
    let out = req
        .out
        .clone()
        .unwrap_or_else(|| PathBuf::from("ferrosuite-tests"));
    let report_path = req
        .report
        .clone()
        .unwrap_or_else(|| out.join("ferrosuite-report.json"));
    let report = execute(req, config, classes, out, shard, None, &report_path)?;
    Ok(if report.all_generated() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(3)
    })
}

/// `a:b:c` as paths (empty parts dropped).
pub fn split_classpath(cp: &str) -> Vec<PathBuf> {
    cp.split(':')
        .filter(|p| !p.is_empty())
        .map(PathBuf::from)
        .collect()
}

/// The settings every class of the request gets (the class path and classes aside).
pub fn base_config(req: &Request, algorithms: &Algorithms) -> Result<Config> {
    if let Some(tcp) = &req.test_classpath {
        for p in split_classpath(tcp) {
            if !p.exists() {
                bail!("--test-classpath entry {} does not exist", p.display());
            }
        }
    }
    let time = match (&req.budget, req.max_statements) {
        (Some(b), _) => Some(parse_duration(b)?),
        (None, Some(_)) => None,
        (None, None) => Some(Duration::from_secs(60)),
    };
    let budget = Budget {
        time,
        statements: req.max_statements,
        evaluations: None,
    };
    let mut config = Config {
        budget,
        seed: req.seed,
        workers: req.workers.max(1),
        test_timeout: Duration::from_millis(req.timeout_ms),
        release: req.release,
        validate: !req.no_validate,
        environment: !req.no_environment,
        mutation_assertions: !req.no_mutation_assertions,
        java_home: req.java_home.clone(),
        test_classpath: split_classpath(req.test_classpath.as_deref().unwrap_or("")),
        ..Config::default()
    };
    if let Some(a) = &req.algorithm {
        config.algorithm = algorithms.get(a)?;
    }
    let mocking = &mut config.search.mocking;
    mocking.mocks &= !req.no_mocks;
    mocking.private_access &= !req.no_private_access;
    if let Some(p) = req.mock_probability {
        mocking.mock_probability = p;
    }
    if let Some(s) = req.mock_start {
        mocking.mock_start = s;
    }
    mocking
        .validate()
        .map_err(|e| anyhow::anyhow!("--mock-probability/--mock-start: {e}"))?;
    if let Some(c) = &req.criteria {
        config.fitness.criteria = ferrosuite_generate::criteria()
            .parse(c)
            .map_err(|e| anyhow::anyhow!("--criteria {c:?}: {e}"))?;
    }
    config.emit.junit = match req.junit {
        Some(4) => JUnit::Four,
        Some(5) | None => JUnit::Five,
        Some(n) => bail!("--junit {n}: use 4 or 5"),
    };
    let suffix = req.test_suffix.as_deref().unwrap_or("Test");
    if suffix.is_empty() || !suffix.chars().all(|c| c.is_alphanumeric() || c == '_') {
        bail!(
            "--test-suffix {suffix:?}: letters, digits and '_' only (the test class is <Class><suffix>)"
        );
    }
    config.emit.class_suffix = suffix.to_string();
    if let Some(p) = &req.pair {
        let Some((caller, callee)) = p
            .split_once(':')
            .filter(|(a, b)| !a.is_empty() && !b.is_empty())
        else {
            bail!("--pair {p:?}: give CALLER:CALLEE, e.g. com.example.Person:com.example.Car");
        };
        config.coupling = Some(ferrosuite_generate::Coupling {
            caller: caller.trim().to_string(),
            callee: callee.trim().to_string(),
            integration: false,
        });
    }
    let exe = std::env::current_exe().context("cannot locate the ferrosuite executable")?;
    config.worker = Some(WorkerProgram {
        program: exe,
        args: vec!["__worker".into()],
    });
    Ok(config)
}

/// Runs one batch (`classes` with `config`, tests under `out`; only the positions `select`
/// when given), prints the summary table and writes the report to `report_path`.
pub fn execute(
    req: &Request,
    config: Config,
    classes: Vec<String>,
    out: PathBuf,
    shard: Option<Shard>,
    select: Option<Vec<usize>>,
    report_path: &std::path::Path,
) -> Result<Report> {
    execute_batch(
        req,
        &Batch {
            config,
            classes,
            out,
            overwrite: req.overwrite,
            jobs: req.jobs,
            shard,
            select,
            pairs: Vec::new(),
        },
        report_path,
    )
}

/// Runs `batch`, prints the summary table and writes the report to `report_path`.
pub fn execute_batch(
    req: &Request,
    batch: &Batch,
    report_path: &std::path::Path,
) -> Result<Report> {
    let printer = Printer::new(std::io::stderr().is_terminal(), req.jobs.max(1));
    let report = run_batch(batch, &printer)?;
    summary(&report.classes)?;
    report.write(report_path)?;
    out!("report: {}", report_path.display());
    Ok(report)
}

/// Prints a batch's events on stderr: a progress bar per class (redrawn in place on a
/// terminal, a line every 5 s otherwise), a line when a class is done, and after it the
/// whole run's progress: classes done of total, branch coverage so far, time left.
struct Printer {
    tty: bool,
    /// When each class's bar was last drawn.
    last: Mutex<Vec<Option<Instant>>>,
    /// The run so far.
    overall: Mutex<Overall>,
    /// Classes processed at once.
    jobs: usize,
    started: Instant,
}

/// The whole run's figures so far.
#[derive(Default)]
struct Overall {
    done: usize,
    /// Classes that ran the pipeline (not skipped), and their wall time.
    ran: usize,
    seconds: f64,
    branches: usize,
    covered: usize,
}

impl Printer {
    fn new(tty: bool, jobs: usize) -> Self {
        Printer {
            tty,
            last: Mutex::new(Vec::new()),
            overall: Mutex::new(Overall::default()),
            jobs,
            started: Instant::now(),
        }
    }

    /// The overall line after a class is done.
    fn overall(&self, total: usize, e: &Entry) {
        let mut o = self
            .overall
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        o.done += 1;
        if let Some(g) = &e.generated {
            o.ran += 1;
            o.seconds += g.seconds;
            o.branches += g.branches;
            o.covered += g.branches_covered;
        }
        #[allow(clippy::cast_precision_loss)]
        let coverage = if o.branches == 0 {
            String::from("-")
        } else {
            format!("{:.1} %", 100.0 * o.covered as f64 / o.branches as f64)
        };
        let left = total - o.done;
        #[allow(clippy::cast_precision_loss)]
        let eta = if o.ran == 0 || left == 0 {
            Duration::ZERO
        } else {
            // The classes left, at the mean time per class so far, `jobs` at a time.
            let per = o.seconds / o.ran as f64;
            Duration::from_secs_f64(per * left.div_ceil(self.jobs) as f64)
        };
        eprintln!(
            "[overall] {}/{total} classes done, branch coverage so far {coverage}, {} elapsed, about {} left",
            o.done,
            clock(self.started.elapsed()),
            clock(eta)
        );
    }

    fn progress(&self, index: usize, total: usize, class: &str, p: &Progress) {
        {
            let mut last = self
                .last
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            if last.len() <= index {
                last.resize(index + 1, None);
            }
            let every = Duration::from_millis(if self.tty { 200 } else { 5000 });
            let now = Instant::now();
            match last[index] {
                Some(t) if now.duration_since(t) < every => return,
                _ => last[index] = Some(now),
            }
        }
        let bar_len = 20;
        #[allow(
            clippy::cast_possible_truncation,
            clippy::cast_sign_loss,
            clippy::cast_precision_loss
        )]
        let filled = ((p.budget_used.clamp(0.0, 1.0)) * bar_len as f64) as usize;
        let line = format!(
            "[{}/{total}] {class} [{}{}] {}/{} goals",
            index + 1,
            "#".repeat(filled),
            " ".repeat(bar_len - filled),
            p.covered,
            p.goals
        );
        if self.tty {
            eprint!("\r{line}\x1b[K");
        } else {
            eprintln!("{line}");
        }
    }

    fn finished(&self, index: usize, total: usize, e: &Entry) {
        if self.tty {
            eprint!("\r\x1b[K");
        }
        let class = &e.class;
        if let Some(note) = &e.note {
            eprintln!("[{}/{total}] {class}: {note}", index + 1);
        }
        if e.status == "skipped" {
            self.overall(total, e);
            return;
        }
        match (&e.generated, &e.error) {
            (Some(g), None) => eprintln!(
                "[{}/{total}] {class}: {} tests, {}/{} branches, {:.1} s{}",
                index + 1,
                g.tests_emitted,
                g.branches_covered,
                g.branches,
                g.seconds,
                e.file
                    .as_ref()
                    .map(|f| format!(" -> {}", f.display()))
                    .unwrap_or_default()
            ),
            (Some(_), Some(error)) => eprintln!("[{}/{total}] {class}: {error}", index + 1),
            (None, error) => eprintln!(
                "[{}/{total}] {class}: error: {}",
                index + 1,
                error.as_deref().unwrap_or("")
            ),
        }
        self.overall(total, e);
    }
}

/// `1h02m`, `3m05s`, `42s`.
fn clock(d: Duration) -> String {
    let s = d.as_secs();
    match (s / 3600, s / 60 % 60, s % 60) {
        (0, 0, s) => format!("{s}s"),
        (0, m, s) => format!("{m}m{s:02}s"),
        (h, m, _) => format!("{h}h{m:02}m"),
    }
}

impl Events for Printer {
    fn event(&self, event: Event<'_>) {
        match event {
            Event::Started { index, .. } => {
                // The first bar is drawn an interval after the class starts.
                let mut last = self
                    .last
                    .lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner);
                if last.len() <= index {
                    last.resize(index + 1, None);
                }
                last[index] = Some(Instant::now());
            }
            Event::Progress {
                index,
                total,
                class,
                progress,
            } => self.progress(index, total, class, progress),
            Event::Finished {
                index,
                total,
                entry,
            } => self.finished(index, total, entry),
        }
    }
}

/// `ferrosuite merge`: the shards' reports joined into one, written to `out` (if given) and
/// summarised on stdout. Exit 3 when a class has no test class, as for `generate`.
pub fn merge_reports(files: &[PathBuf], out: Option<&std::path::Path>) -> Result<ExitCode> {
    let mut reports = Vec::new();
    for f in files {
        reports.push((f.display().to_string(), Report::read(f)?));
    }
    let merged = merge(&reports)?;
    summary(&merged.classes)?;
    if let Some(out) = out {
        merged.write(out)?;
        out!("report: {}", out.display());
    }
    Ok(if merged.all_generated() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(3)
    })
}

/// `covered` of `total` in per cent (100 when there is nothing to cover).
#[allow(clippy::cast_precision_loss)]
fn percent(covered: usize, total: usize) -> f64 {
    if total == 0 {
        100.0
    } else {
        100.0 * covered as f64 / total as f64
    }
}

fn summary(entries: &[Entry]) -> Result<()> {
    let width = entries
        .iter()
        .map(|e| e.class.len())
        .max()
        .unwrap_or(5)
        .max(5);
    out!(
        "{:<width$}  {:>13}  {:>11}  {:>5}  {:>10}  {:>7}  status",
        "class",
        "branches",
        "goals",
        "tests",
        "statements",
        "time"
    );
    for e in entries {
        if let Some(g) = &e.generated {
            let pct = percent(g.branches_covered, g.branches);
            // An integration run has no branch goals: its goals are coupled branches.
            let branches = if g.branches == 0 && g.coupled_branches.is_some() {
                "-".to_string()
            } else {
                format!("{}/{} {pct:.0}%", g.branches_covered, g.branches)
            };
            out!(
                "{:<width$}  {:>13}  {:>11}  {:>5}  {:>10}  {:>6.1}s  {}",
                e.class,
                branches,
                format!("{}/{}", g.covered, g.goals),
                g.tests_emitted,
                g.statements_executed,
                g.seconds,
                e.status
            );
            if let Some(c) = &g.coupled_branches {
                let pct = percent(c.covered, c.total);
                out!(
                    "  coupled branches {} -> {}: {}/{} {pct:.1}%",
                    c.caller,
                    c.callee,
                    c.covered,
                    c.total
                );
            }
        } else {
            // Skipped: the file found; otherwise why there is none.
            let detail = if e.status == "skipped" {
                e.file
                    .as_ref()
                    .map(|f| f.display().to_string())
                    .unwrap_or_default()
            } else {
                e.error.clone().unwrap_or_default()
            };
            out!(
                "{:<width$}  {:>13}  {:>11}  {:>5}  {:>10}  {:>7}  {}: {detail}",
                e.class,
                "-",
                "-",
                "-",
                "-",
                "-",
                e.status
            );
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations() {
        let d = |s: &str| parse_duration(s).map(|d| d.as_millis()).ok();
        assert_eq!(d("60"), Some(60_000));
        assert_eq!(d("60s"), Some(60_000));
        assert_eq!(d("2m"), Some(120_000));
        assert_eq!(d("1500ms"), Some(1500));
        assert_eq!(d("0.5s"), Some(500));
        assert_eq!(d("1h"), Some(3_600_000));
        assert_eq!(d("5x"), None);
        assert_eq!(d("0"), None);
        assert_eq!(d(""), None);
    }
}
