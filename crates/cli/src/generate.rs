//! `ferrosuite generate`: arguments → `ferrosuite_generate::Config`, one pipeline run per class
//! under test (several at once with `--jobs`), progress on stderr, files under the output
//! root, a summary table and a JSON report.

use std::collections::VecDeque;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use ferrosuite_bytecode::classpath::ClassPath;
use ferrosuite_emit::JUnit;
use ferrosuite_exec::WorkerProgram;
use ferrosuite_generate::{Config, Generated, generate, write};
use ferrosuite_search::engine::{AlgorithmKind, Budget, Progress};
use serde::Serialize;

/// The parsed arguments.
pub struct Request {
    pub classpath: String,
    pub classes: Vec<String>,
    pub package: Option<String>,
    pub budget: Option<String>,
    pub max_statements: Option<u64>,
    pub seed: u64,
    pub algorithm: Option<String>,
    pub criteria: Option<String>,
    pub junit: u8,
    /// Test classes are named `<Class><test_suffix>`.
    pub test_suffix: String,
    pub out: PathBuf,
    pub jobs: usize,
    pub workers: usize,
    pub timeout_ms: u64,
    pub release: u16,
    pub no_validate: bool,
    pub overwrite: bool,
    pub report: Option<PathBuf>,
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

/// The classes of `package` (binary name prefix) on the class path's own entries (not the
/// JDK): top-level classes only.
fn package_classes(classpath: &str, package: &str) -> Result<Vec<String>> {
    let cp = ClassPath::parse(classpath)
        .with_context(|| format!("cannot open class path {classpath:?}"))?;
    let prefix = format!("{}/", package.replace('.', "/"));
    let mut out = Vec::new();
    for e in cp.entries() {
        for c in e.class_names()? {
            if let Some(rest) = c.strip_prefix(&prefix) {
                if !rest.contains('/') && !rest.contains('$') && rest != "package-info" {
                    out.push(c.replace('/', "."));
                }
            }
        }
    }
    out.sort();
    out.dedup();
    if out.is_empty() {
        bail!("no class of package {package} on the class path {classpath}");
    }
    Ok(out)
}

/// One class's line of the report: the figures of [`Generated`] without the source.
#[derive(Serialize)]
struct Entry {
    class: String,
    status: &'static str,
    error: Option<String>,
    file: Option<PathBuf>,
    test_names: Vec<String>,
    #[serde(flatten)]
    generated: Option<Generated>,
}

impl Entry {
    fn new(
        class: &str,
        status: &'static str,
        error: Option<String>,
        file: Option<PathBuf>,
        generated: Option<Generated>,
    ) -> Self {
        let mut generated = generated;
        let test_names = generated
            .as_mut()
            .and_then(|g| g.class.take())
            .map(|c| c.test_names)
            .unwrap_or_default();
        Entry {
            class: class.to_string(),
            status,
            error,
            file,
            test_names,
            generated,
        }
    }
}

/// The JSON report of a run.
#[derive(Serialize)]
struct Report<'a> {
    classpath: &'a str,
    seed: u64,
    algorithm: &'a str,
    budget_seconds: Option<f64>,
    max_statements: Option<u64>,
    junit: u8,
    out: &'a Path,
    seconds: f64,
    classes: Vec<Entry>,
}

pub fn run(req: &Request) -> Result<ExitCode> {
    let classpath: Vec<PathBuf> = req
        .classpath
        .split(':')
        .filter(|p| !p.is_empty())
        .map(PathBuf::from)
        .collect();
    if classpath.is_empty() {
        bail!("the class path is empty");
    }
    for p in &classpath {
        if !p.exists() {
            bail!("class path entry {} does not exist", p.display());
        }
    }
    let mut classes = req.classes.clone();
    if let Some(p) = &req.package {
        classes.extend(package_classes(&req.classpath, p)?);
    }
    if classes.is_empty() {
        bail!("nothing to do: give --class (repeatable) or --package");
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
        classpath,
        budget,
        seed: req.seed,
        workers: req.workers.max(1),
        test_timeout: Duration::from_millis(req.timeout_ms),
        release: req.release,
        validate: !req.no_validate,
        ..Config::default()
    };
    if let Some(a) = &req.algorithm {
        config.engine.algorithm = a.parse::<AlgorithmKind>()?;
    }
    if let Some(c) = &req.criteria {
        config.fitness.criteria = c
            .parse()
            .map_err(|e| anyhow::anyhow!("--criteria {c:?}: {e}"))?;
    }
    config.emit.junit = match req.junit {
        4 => JUnit::Four,
        5 => JUnit::Five,
        n => bail!("--junit {n}: use 4 or 5"),
    };
    if req.test_suffix.is_empty()
        || !req
            .test_suffix
            .chars()
            .all(|c| c.is_alphanumeric() || c == '_')
    {
        bail!(
            "--test-suffix {:?}: letters, digits and '_' only (the test class is <Class><suffix>)",
            req.test_suffix
        );
    }
    config.emit.class_suffix.clone_from(&req.test_suffix);
    let exe = std::env::current_exe().context("cannot locate the ferrosuite executable")?;
    config.worker = Some(WorkerProgram {
        program: exe,
        args: vec!["__worker".into()],
    });
    let root = req.out.join("src/test/java");
    // Refuse before any work: an existing test file is the user's.
    if !req.overwrite {
        for c in &classes {
            let simple = c.rsplit('.').next().unwrap_or(c).replace('$', "_");
            let path = root
                .join(c.rsplit_once('.').map_or("", |(p, _)| p).replace('.', "/"))
                .join(format!("{simple}{}.java", req.test_suffix));
            if path.exists() {
                bail!(
                    "{} exists: pass --overwrite to replace it, or choose another --out",
                    path.display()
                );
            }
        }
    }
    let started = Instant::now();
    let tty = std::io::stderr().is_terminal();
    let queue = Mutex::new(classes.iter().cloned().enumerate().collect::<VecDeque<_>>());
    let results: Mutex<Vec<(usize, Entry)>> = Mutex::new(Vec::new());
    let total = classes.len();
    let jobs = req.jobs.clamp(1, total);
    std::thread::scope(|s| {
        for _ in 0..jobs {
            s.spawn(|| {
                loop {
                    let Some((k, class)) = queue
                        .lock()
                        .unwrap_or_else(std::sync::PoisonError::into_inner)
                        .pop_front()
                    else {
                        return;
                    };
                    let entry = one(&config, &root, req.overwrite, &class, k, total, tty);
                    results
                        .lock()
                        .unwrap_or_else(std::sync::PoisonError::into_inner)
                        .push((k, entry));
                }
            });
        }
    });
    let mut entries = results
        .into_inner()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    entries.sort_by_key(|e| e.0);
    let entries: Vec<Entry> = entries.into_iter().map(|e| e.1).collect();
    summary(&entries)?;
    let report_path = req
        .report
        .clone()
        .unwrap_or_else(|| req.out.join("ferrosuite-report.json"));
    let failed = entries.iter().filter(|e| e.status != "generated").count();
    let report = Report {
        classpath: &req.classpath,
        seed: req.seed,
        algorithm: config.engine.algorithm.name(),
        budget_seconds: time.map(|t| t.as_secs_f64()),
        max_statements: req.max_statements,
        junit: req.junit,
        out: &root,
        seconds: started.elapsed().as_secs_f64(),
        classes: entries,
    };
    if let Some(parent) = report_path.parent() {
        std::fs::create_dir_all(parent)
            .with_context(|| format!("cannot create {}", parent.display()))?;
    }
    std::fs::write(&report_path, serde_json::to_string_pretty(&report)?)
        .with_context(|| format!("cannot write {}", report_path.display()))?;
    out!("report: {}", report_path.display());
    Ok(if failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(3)
    })
}

/// Runs the pipeline for one class, with progress on stderr.
fn one(
    config: &Config,
    root: &Path,
    overwrite: bool,
    class: &str,
    k: usize,
    total: usize,
    tty: bool,
) -> Entry {
    let mut last = Instant::now();
    let mut progress = |p: &Progress| {
        if last.elapsed() < Duration::from_millis(if tty { 200 } else { 5000 }) {
            return;
        }
        last = Instant::now();
        let bar_len = 20;
        #[allow(
            clippy::cast_possible_truncation,
            clippy::cast_sign_loss,
            clippy::cast_precision_loss
        )]
        let filled = ((p.budget_used.clamp(0.0, 1.0)) * bar_len as f64) as usize;
        let line = format!(
            "[{}/{total}] {class} [{}{}] {}/{} goals",
            k + 1,
            "#".repeat(filled),
            " ".repeat(bar_len - filled),
            p.covered,
            p.goals
        );
        if tty {
            eprint!("\r{line}\x1b[K");
        } else {
            eprintln!("{line}");
        }
    };
    let outcome = generate(config, class, &mut progress);
    if tty {
        eprint!("\r\x1b[K");
    }
    match outcome {
        Ok(g) => {
            let file = match &g.class {
                Some(c) => match write(root, c, overwrite) {
                    Ok(p) => Some(p),
                    Err(e) => {
                        eprintln!("[{}/{total}] {class}: {e}", k + 1);
                        return Entry::new(
                            class,
                            "not written",
                            Some(e.to_string()),
                            None,
                            Some(g),
                        );
                    }
                },
                None => None,
            };
            eprintln!(
                "[{}/{total}] {class}: {} tests, {}/{} branches, {:.1} s{}",
                k + 1,
                g.tests_emitted,
                g.branches_covered,
                g.branches,
                g.seconds,
                file.as_ref()
                    .map(|f| format!(" -> {}", f.display()))
                    .unwrap_or_default()
            );
            let status = if file.is_some() {
                "generated"
            } else {
                "no tests"
            };
            Entry::new(class, status, None, file, Some(g))
        }
        Err(e) => {
            eprintln!("[{}/{total}] {class}: error: {e}", k + 1);
            Entry::new(class, "error", Some(e.to_string()), None, None)
        }
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
            #[allow(clippy::cast_precision_loss)]
            let pct = if g.branches == 0 {
                100.0
            } else {
                100.0 * g.branches_covered as f64 / g.branches as f64
            };
            out!(
                "{:<width$}  {:>13}  {:>11}  {:>5}  {:>10}  {:>6.1}s  {}",
                e.class,
                format!("{}/{} {pct:.0}%", g.branches_covered, g.branches),
                format!("{}/{}", g.covered, g.goals),
                g.tests_emitted,
                g.statements_executed,
                g.seconds,
                e.status
            );
        } else {
            out!(
                "{:<width$}  {:>13}  {:>11}  {:>5}  {:>10}  {:>7}  {}: {}",
                e.class,
                "-",
                "-",
                "-",
                "-",
                "-",
                e.status,
                e.error.as_deref().unwrap_or("")
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
