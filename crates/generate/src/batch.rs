//! Batch runs: the pipeline for several classes, several at a time, with progress events, the
//! test files written under a source root and a JSON report — what `ferrosuite generate` does,
//! as a library function an embedding tool (a build plugin, a service, the benchmarks) calls.
//!
//! [`run_batch`] first refuses a batch that would replace an existing test file (unless
//! [`Batch::overwrite`]): nothing is searched, nothing written. Then `jobs` threads take the
//! classes in order; each runs [`generate`](crate::generate) and writes the test class. The
//! [`Events`] sink hears, per class, when it starts, the search's progress and its [`Entry`]
//! once done (from the job's thread). The [`Report`] lists the entries in the order the classes
//! were given, whatever order they finished in.
//!
//! ```no_run
//! use ferrosuite_generate::batch::{Batch, Event, run_batch};
//! use ferrosuite_generate::Config;
//! # fn main() -> ferrosuite_generate::Result<()> {
//! let batch = Batch {
//!     config: Config { classpath: vec!["app.jar".into()], ..Config::default() },
//!     classes: vec!["com.example.Stack".into(), "com.example.Queue".into()],
//!     out: "tests".into(),
//!     overwrite: false,
//!     jobs: 2,
//! };
//! let report = run_batch(&batch, &|e: Event<'_>| {
//!     if let Event::Finished { entry, .. } = e {
//!         eprintln!("{}: {}", entry.class, entry.status);
//!     }
//! })?;
//! report.write(std::path::Path::new("tests/ferrosuite-report.json"))?;
//! # Ok(()) }
//! ```

use std::collections::VecDeque;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Instant;

use ferrosuite_bytecode::classpath::ClassPath;
use ferrosuite_emit::JUnit;
use ferrosuite_search::engine::Progress;
use serde::Serialize;

use crate::error::{Error, Result};
use crate::{Config, Generated, generate, write};

/// Classes to generate tests for, and where the tests go.
#[derive(Debug, Clone)]
pub struct Batch {
    /// The settings every class gets.
    pub config: Config,
    /// The classes under test (binary names), in the order of the report.
    pub classes: Vec<String>,
    /// The output root: test classes go to `out/src/test/java/<package>/<Class><suffix>.java`.
    pub out: PathBuf,
    /// Replace existing test files (else a batch that would replace one is refused up front).
    pub overwrite: bool,
    /// Classes processed at once (at least 1).
    pub jobs: usize,
}

/// What happens during a batch (see [`Events`]). `index` is the class's position in
/// [`Batch::classes`], `total` their number.
#[derive(Debug, Clone, Copy)]
pub enum Event<'a> {
    /// The pipeline starts on a class.
    Started {
        /// Position of the class.
        index: usize,
        /// Classes in the batch.
        total: usize,
        /// The class.
        class: &'a str,
    },
    /// The search on a class finished a generation.
    Progress {
        /// Position of the class.
        index: usize,
        /// Classes in the batch.
        total: usize,
        /// The class.
        class: &'a str,
        /// The search's report.
        progress: &'a Progress,
    },
    /// A class is done (written, or not, with the reason in the entry).
    Finished {
        /// Position of the class.
        index: usize,
        /// Classes in the batch.
        total: usize,
        /// What became of it.
        entry: &'a Entry,
    },
}

/// Hears a batch's [`Event`]s, from the jobs' threads. Closures taking an event are sinks.
pub trait Events: Sync {
    /// Called for each event.
    fn event(&self, event: Event<'_>);
}

impl<F: Fn(Event<'_>) + Sync> Events for F {
    fn event(&self, event: Event<'_>) {
        self(event);
    }
}

/// What became of one class: the report's line.
#[derive(Debug, Clone, Serialize)]
pub struct Entry {
    /// The class under test (as given).
    pub class: String,
    /// `generated` (a test class was written), `no tests` (none survived the checks),
    /// `not written` (the file could not be written) or `error`.
    pub status: &'static str,
    /// Why not, for `not written` and `error`.
    pub error: Option<String>,
    /// The test file written.
    pub file: Option<PathBuf>,
    /// The names of the test methods written.
    pub test_names: Vec<String>,
    /// The pipeline's figures (without the source), when it ran to the end.
    #[serde(flatten)]
    pub generated: Option<Generated>,
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

    /// Whether a test class was written.
    #[must_use]
    pub fn is_generated(&self) -> bool {
        self.status == "generated"
    }
}

/// The JSON report of a batch.
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    /// The class path, `:`-separated.
    pub classpath: String,
    /// The search's seed.
    pub seed: u64,
    /// The algorithm's name.
    pub algorithm: &'static str,
    /// The time budget per class, if any.
    pub budget_seconds: Option<f64>,
    /// The statement budget per class, if any.
    pub max_statements: Option<u64>,
    /// JUnit 4 or 5.
    pub junit: u8,
    /// The source root the tests went to.
    pub out: PathBuf,
    /// Wall time of the batch.
    pub seconds: f64,
    /// One entry per class, in the order given.
    pub classes: Vec<Entry>,
}

impl Report {
    /// Whether every class got a test class.
    #[must_use]
    pub fn all_generated(&self) -> bool {
        self.classes.iter().all(Entry::is_generated)
    }

    /// Writes the report as pretty JSON to `path` (its directory is created).
    pub fn write(&self, path: &Path) -> Result<()> {
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)
                .map_err(|e| Error::Tool(format!("cannot create {}: {e}", parent.display())))?;
        }
        let json = serde_json::to_string_pretty(self)
            .map_err(|e| Error::Tool(format!("cannot encode the report: {e}")))?;
        std::fs::write(path, json)
            .map_err(|e| Error::Tool(format!("cannot write {}: {e}", path.display())))
    }
}

/// The source root of a batch's test files (`out/src/test/java`).
#[must_use]
pub fn source_root(out: &Path) -> PathBuf {
    out.join("src/test/java")
}

/// The test file a class's tests go to under `root`, for test classes named `<Class><suffix>`.
#[must_use]
pub fn test_file(root: &Path, class: &str, suffix: &str) -> PathBuf {
    let simple = class.rsplit('.').next().unwrap_or(class).replace('$', "_");
    root.join(
        class
            .rsplit_once('.')
            .map_or("", |(p, _)| p)
            .replace('.', "/"),
    )
    .join(format!("{simple}{suffix}.java"))
}

/// Checks that the class path has entries and that each exists.
pub fn check_classpath(classpath: &[PathBuf]) -> Result<()> {
    if classpath.is_empty() {
        return Err(Error::Tool("the class path is empty".into()));
    }
    for p in classpath {
        if !p.exists() {
            return Err(Error::Tool(format!(
                "class path entry {} does not exist",
                p.display()
            )));
        }
    }
    Ok(())
}

/// Runs the batch (see the module documentation); the report, or an error before any class
/// was processed (an empty or missing class path entry, no class, an existing test file).
pub fn run_batch(batch: &Batch, events: &dyn Events) -> Result<Report> {
    let config = &batch.config;
    check_classpath(&config.classpath)?;
    if batch.classes.is_empty() {
        return Err(Error::Tool("no class to generate tests for".into()));
    }
    let root = source_root(&batch.out);
    // Refuse before any work: an existing test file is the user's.
    if !batch.overwrite {
        for c in &batch.classes {
            let path = test_file(&root, c, &config.emit.class_suffix);
            if path.exists() {
                return Err(Error::Exists(path));
            }
        }
    }
    let started = Instant::now();
    let queue = Mutex::new(
        batch
            .classes
            .iter()
            .cloned()
            .enumerate()
            .collect::<VecDeque<_>>(),
    );
    let results: Mutex<Vec<(usize, Entry)>> = Mutex::new(Vec::new());
    let total = batch.classes.len();
    let jobs = batch.jobs.clamp(1, total);
    std::thread::scope(|s| {
        for _ in 0..jobs {
            s.spawn(|| {
                loop {
                    let Some((index, class)) = queue
                        .lock()
                        .unwrap_or_else(std::sync::PoisonError::into_inner)
                        .pop_front()
                    else {
                        return;
                    };
                    events.event(Event::Started {
                        index,
                        total,
                        class: &class,
                    });
                    let entry = one(config, &root, batch.overwrite, &class, |progress| {
                        events.event(Event::Progress {
                            index,
                            total,
                            class: &class,
                            progress,
                        });
                    });
                    events.event(Event::Finished {
                        index,
                        total,
                        entry: &entry,
                    });
                    results
                        .lock()
                        .unwrap_or_else(std::sync::PoisonError::into_inner)
                        .push((index, entry));
                }
            });
        }
    });
    let mut entries = results
        .into_inner()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    entries.sort_by_key(|e| e.0);
    let classpath: Vec<String> = config
        .classpath
        .iter()
        .map(|p| p.display().to_string())
        .collect();
    Ok(Report {
        classpath: classpath.join(":"),
        seed: config.seed,
        algorithm: config.algorithm.name(),
        budget_seconds: config.budget.time.map(|t| t.as_secs_f64()),
        max_statements: config.budget.statements,
        junit: match config.emit.junit {
            JUnit::Four => 4,
            JUnit::Five => 5,
        },
        out: root,
        seconds: started.elapsed().as_secs_f64(),
        classes: entries.into_iter().map(|e| e.1).collect(),
    })
}

/// Runs the pipeline for one class and writes its test class.
fn one(
    config: &Config,
    root: &Path,
    overwrite: bool,
    class: &str,
    mut progress: impl FnMut(&Progress),
) -> Entry {
    match generate(config, class, &mut |p: &Progress| progress(p)) {
        Ok(g) => {
            let file = match &g.class {
                Some(c) => match write(root, c, overwrite) {
                    Ok(p) => Some(p),
                    Err(e) => {
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
            let status = if file.is_some() {
                "generated"
            } else {
                "no tests"
            };
            Entry::new(class, status, None, file, Some(g))
        }
        Err(e) => Entry::new(class, "error", Some(e.to_string()), None, None),
    }
}

/// The top-level classes of `package` (binary name prefix) on the class path's own entries
/// (not the JDK), sorted; an error when there is none.
pub fn package_classes(classpath: &[PathBuf], package: &str) -> Result<Vec<String>> {
    let spec: Vec<String> = classpath.iter().map(|p| p.display().to_string()).collect();
    let spec = spec.join(":");
    let cp = ClassPath::parse(&spec)
        .map_err(|e| Error::Tool(format!("cannot open class path {spec:?}: {e}")))?;
    let prefix = format!("{}/", package.replace('.', "/"));
    let mut out = Vec::new();
    for e in cp.entries() {
        let names = e
            .class_names()
            .map_err(|e| Error::Tool(format!("cannot list the classes of {spec:?}: {e}")))?;
        for c in names {
            if let Some(rest) = c.strip_prefix(&prefix)
                && !rest.contains('/')
                && !rest.contains('$')
                && rest != "package-info"
            {
                out.push(c.replace('/', "."));
            }
        }
    }
    out.sort();
    out.dedup();
    if out.is_empty() {
        return Err(Error::Tool(format!(
            "no class of package {package} on the class path {spec}"
        )));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::test_file;

    #[test]
    fn test_files_follow_the_package_and_the_suffix() {
        let root = Path::new("out/src/test/java");
        assert_eq!(
            test_file(root, "com.example.Outer$Inner", "Test"),
            root.join("com/example/Outer_InnerTest.java")
        );
        assert_eq!(test_file(root, "Top", "IT"), root.join("TopIT.java"));
    }
}
