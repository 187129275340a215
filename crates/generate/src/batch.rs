//! Batch runs: the pipeline for several classes, several at a time, with progress events, the
//! test files written under a source root and a JSON report — what `ferrosuite generate` does,
//! as a library function an embedding tool (a build plugin, a service, the benchmarks) calls.
//!
//! [`run_batch`] takes the classes of its [`Shard`] (all of them without one), then `jobs`
//! threads take them in order; each runs [`generate`](crate::generate) and writes the test
//! class. The [`Events`] sink hears, per class, when it starts, the search's progress and its
//! [`Entry`] once done (from the job's thread). The [`Report`] lists the entries in the order
//! the classes were given, whatever order they finished in.
//!
//! Files already there are never lost, and a run that was cut short resumes:
//! - a test file that ferrosuite wrote (its first line is [`ferrosuite_emit::MARKER`]) means
//!   the class is done: it is `skipped` without a search, unless [`Batch::overwrite`];
//! - a test file of the same name that ferrosuite did not write is the user's: the tests go
//!   to another name (`StackFerrosuiteTest`, then `StackFerrosuite2Test`, …), reported in the
//!   entry's note, and the user's file is not touched, overwrite or not.
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
//!     shard: None,
//!     select: None,
//!     pairs: Vec::new(),
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
use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::shard::{Shard, assign, class_sizes};
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
    /// Replace test files ferrosuite wrote before (else their classes are skipped as done).
    /// Files ferrosuite did not write are never replaced.
    pub overwrite: bool,
    /// Classes processed at once (at least 1).
    pub jobs: usize,
    /// Only this share of the classes (see [`crate::shard`]).
    pub shard: Option<Shard>,
    /// The positions of the classes to run, when the caller split the work itself (a shard
    /// of a project whose modules are batches of their own, split as one list); the shard
    /// is then only recorded in the report.
    pub select: Option<Vec<usize>>,
    /// Class-integration testing: one caller/callee pair per class, in the same order (the
    /// class is the pair's caller); empty for unit tests. A pair's tests go to
    /// `<caller's package>/<Caller><Callee><suffix>.java`.
    pub pairs: Vec<crate::Coupling>,
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
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Entry {
    /// The class under test (as given).
    pub class: String,
    /// Its position in the whole batch's classes (the same in every shard's report).
    pub position: usize,
    /// `generated` (a test class was written), `skipped` (ferrosuite's test file was there
    /// already), `no tests` (none survived the checks), `not written` (the file could not be
    /// written) or `error`.
    pub status: String,
    /// Why not, for `not written` and `error`.
    pub error: Option<String>,
    /// The test file written (or found, when skipped).
    pub file: Option<PathBuf>,
    /// Something the user should know: the test file's name when the usual one was taken.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// The names of the test methods written.
    pub test_names: Vec<String>,
    /// The pipeline's figures (without the source), when it ran to the end.
    #[serde(flatten)]
    pub generated: Option<Generated>,
}

impl Entry {
    fn new(
        class: &str,
        position: usize,
        status: &str,
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
            position,
            status: status.to_string(),
            error,
            file,
            note: None,
            test_names,
            generated,
        }
    }

    /// Whether the class has its test class: written now, or by an earlier run (skipped).
    #[must_use]
    pub fn is_generated(&self) -> bool {
        self.status == "generated" || self.status == "skipped"
    }
}

/// The JSON report of a batch.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Report {
    /// The class path, `:`-separated.
    pub classpath: String,
    /// The search's seed.
    pub seed: u64,
    /// The algorithm's name.
    pub algorithm: String,
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
    /// The share of the classes this run took, if it was one of several.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shard: Option<Shard>,
    /// One entry per class, in the order given.
    pub classes: Vec<Entry>,
}

impl Report {
    /// Whether every class got a test class.
    #[must_use]
    pub fn all_generated(&self) -> bool {
        self.classes.iter().all(Entry::is_generated)
    }

    /// Reads a report written by [`Report::write`].
    pub fn read(path: &Path) -> Result<Report> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| Error::Tool(format!("cannot read {}: {e}", path.display())))?;
        serde_json::from_str(&text).map_err(|e| {
            Error::Tool(format!(
                "{} is not a ferrosuite report: {e}",
                path.display()
            ))
        })
    }

    /// Writes the report as pretty JSON to `path` (its directory is created), whole or not
    /// at all: an interrupt while it is written leaves the previous report, not half of one.
    pub fn write(&self, path: &Path) -> Result<()> {
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)
                .map_err(|e| Error::Tool(format!("cannot create {}: {e}", parent.display())))?;
        }
        let json = serde_json::to_string_pretty(self)
            .map_err(|e| Error::Tool(format!("cannot encode the report: {e}")))?;
        crate::write_whole(path, json.as_bytes())
            .map_err(|e| Error::Tool(format!("cannot write the report: {e}")))
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

/// Where a class's tests go, given the files already there.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Target {
    /// Write the class as `<Class><suffix>`; `renamed` names the user's file in the way.
    Write {
        suffix: String,
        renamed: Option<PathBuf>,
        replace: bool,
    },
    /// ferrosuite's test file is there: the class is done.
    Done(PathBuf),
    /// Every name is taken by the user's files.
    Taken(PathBuf),
}

/// Whether the file at `path` was written by ferrosuite (its first line is the marker).
#[must_use]
pub fn written_by_ferrosuite(path: &Path) -> bool {
    use std::io::Read;
    let mut head = [0u8; 64];
    let Ok(mut f) = std::fs::File::open(path) else {
        return false;
    };
    let n = f.read(&mut head).unwrap_or(0);
    head[..n].starts_with(ferrosuite_emit::MARKER.as_bytes())
}

/// The test file of `class` under `root` (see the module documentation for the rules).
fn target(root: &Path, class: &str, suffix: &str, overwrite: bool) -> Target {
    let first = test_file(root, class, suffix);
    let mut user_file = None;
    for k in 0..10 {
        let s = match k {
            0 => suffix.to_string(),
            1 => format!("Ferrosuite{suffix}"),
            k => format!("Ferrosuite{k}{suffix}"),
        };
        let path = test_file(root, class, &s);
        if !path.exists() {
            return Target::Write {
                suffix: s,
                renamed: user_file,
                replace: false,
            };
        }
        if written_by_ferrosuite(&path) {
            return if overwrite {
                Target::Write {
                    suffix: s,
                    renamed: user_file,
                    replace: true,
                }
            } else {
                Target::Done(path)
            };
        }
        user_file.get_or_insert(path);
    }
    Target::Taken(first)
}

/// Runs the batch (see the module documentation); the report, or an error before any class
/// was processed (an empty or missing class path entry, no class, a class path that cannot
/// be read for sharding).
pub fn run_batch(batch: &Batch, events: &dyn Events) -> Result<Report> {
    let config = &batch.config;
    check_classpath(&config.classpath)?;
    if batch.classes.is_empty() {
        return Err(Error::Tool("no class to generate tests for".into()));
    }
    let root = source_root(&batch.out);
    let positions: Vec<usize> = match (&batch.select, batch.shard) {
        (Some(select), _) => select
            .iter()
            .copied()
            .filter(|&p| p < batch.classes.len())
            .collect(),
        (None, Some(shard)) => {
            let sizes = class_sizes(&config.classpath, &batch.classes)?;
            let names: Vec<&str> = batch.classes.iter().map(String::as_str).collect();
            assign(&sizes, &names, shard)
        }
        (None, None) => (0..batch.classes.len()).collect(),
    };
    let started = Instant::now();
    let queue = Mutex::new(
        positions
            .iter()
            .map(|&p| (p, batch.classes[p].clone()))
            .enumerate()
            .collect::<VecDeque<_>>(),
    );
    let results: Mutex<Vec<(usize, Entry)>> = Mutex::new(Vec::new());
    let total = positions.len();
    let jobs = batch.jobs.clamp(1, total.max(1));
    std::thread::scope(|s| {
        for _ in 0..jobs {
            s.spawn(|| {
                loop {
                    let Some((index, (position, class))) = queue
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
                    let entry = one(batch, &root, position, &class, |progress| {
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
    // Test classes that reproduce the controlled environment need the runtime jar beside them.
    if entries
        .iter()
        .any(|(_, e)| e.file.is_some() && e.generated.as_ref().is_some_and(|g| g.environment))
    {
        crate::runtime_jar::write_runtime_jar(&root, true)?;
    }
    let classpath: Vec<String> = config
        .classpath
        .iter()
        .map(|p| p.display().to_string())
        .collect();
    Ok(Report {
        classpath: classpath.join(":"),
        seed: config.seed,
        algorithm: config.algorithm.name().to_string(),
        budget_seconds: config.budget.time.map(|t| t.as_secs_f64()),
        max_statements: config.budget.statements,
        junit: match config.emit.junit {
            JUnit::Four => 4,
            JUnit::Five => 5,
        },
        out: root,
        seconds: started.elapsed().as_secs_f64(),
        shard: batch.shard,
        classes: entries.into_iter().map(|e| e.1).collect(),
    })
}

/// Runs the pipeline for one class and writes its test class.
fn one(
    batch: &Batch,
    root: &Path,
    position: usize,
    class: &str,
    mut progress: impl FnMut(&Progress),
) -> Entry {
    let suffix = &batch.config.emit.class_suffix;
    let pair = batch.pairs.get(position);
    // A pair's file is named after both classes, in the caller's package.
    let file_class = pair.map_or_else(
        || class.to_string(),
        |p| {
            let caller = p.caller.replace('/', ".");
            let name = ferrosuite_cling::pair_name(&p.caller, &p.callee);
            match caller.rsplit_once('.') {
                Some((package, _)) => format!("{package}.{name}"),
                None => name,
            }
        },
    );
    let (config, renamed, replace) = match target(root, &file_class, suffix, batch.overwrite) {
        Target::Done(path) => {
            let mut e = Entry::new(class, position, "skipped", None, Some(path), None);
            e.note =
                Some("ferrosuite's test file is there already (overwriting replaces it)".into());
            return e;
        }
        Target::Taken(path) => {
            return Entry::new(
                class,
                position,
                "not written",
                Some(format!(
                    "{} and the other names tried are the user's files",
                    path.display()
                )),
                None,
                None,
            );
        }
        Target::Write {
            suffix: s,
            renamed,
            replace,
        } => {
            if s == *suffix && pair.is_none() {
                (std::borrow::Cow::Borrowed(&batch.config), renamed, replace)
            } else {
                let mut c = batch.config.clone();
                c.emit.class_suffix = s;
                if let Some(p) = pair {
                    c.coupling = Some(p.clone());
                }
                (std::borrow::Cow::Owned(c), renamed, replace)
            }
        }
    };
    let mut entry = match generate(&config, class, &mut |p: &Progress| progress(p)) {
        Ok(g) => {
            let file = match &g.class {
                Some(c) => match write(root, c, replace) {
                    Ok(p) => Some(p),
                    Err(e) => {
                        return Entry::new(
                            class,
                            position,
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
            Entry::new(class, position, status, None, file, Some(g))
        }
        Err(e) => Entry::new(class, position, "error", Some(e.to_string()), None, None),
    };
    if let (Some(user), Some(file)) = (renamed, &entry.file) {
        entry.note = Some(format!(
            "{} is not ferrosuite's: the tests went to {}",
            user.display(),
            file.file_name()
                .map_or_else(String::new, |f| f.to_string_lossy().into_owned())
        ));
    }
    entry
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
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use std::path::Path;

    use super::{Target, target, test_file};

    #[test]
    fn test_files_follow_the_package_and_the_suffix() {
        let root = Path::new("out/src/test/java");
        assert_eq!(
            test_file(root, "com.example.Outer$Inner", "Test"),
            root.join("com/example/Outer_InnerTest.java")
        );
        assert_eq!(test_file(root, "Top", "IT"), root.join("TopIT.java"));
    }

    #[test]
    fn existing_files_are_skipped_when_ours_and_kept_when_the_users() {
        let root = std::env::temp_dir().join(format!("ferrosuite-target-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        let dir = root.join("p");
        std::fs::create_dir_all(&dir).unwrap();
        let write = |suffix: bool| Target::Write {
            suffix: if suffix {
                "FerrosuiteTest".into()
            } else {
                "Test".into()
            },
            renamed: suffix.then(|| dir.join("ATest.java")),
            replace: false,
        };
        assert_eq!(target(&root, "p.A", "Test", false), write(false));
        // ferrosuite's file: done, or replaced with --overwrite.
        let ours = format!("{} for p.A.\npackage p;\n", ferrosuite_emit::MARKER);
        std::fs::write(dir.join("ATest.java"), &ours).unwrap();
        assert_eq!(
            target(&root, "p.A", "Test", false),
            Target::Done(dir.join("ATest.java"))
        );
        assert!(matches!(
            target(&root, "p.A", "Test", true),
            Target::Write { replace: true, .. }
        ));
        // The user's file: another name, with or without --overwrite; then resumable.
        std::fs::write(dir.join("ATest.java"), "package p;\nclass ATest {}\n").unwrap();
        assert_eq!(target(&root, "p.A", "Test", false), write(true));
        assert_eq!(target(&root, "p.A", "Test", true), write(true));
        std::fs::write(dir.join("AFerrosuiteTest.java"), &ours).unwrap();
        assert_eq!(
            target(&root, "p.A", "Test", false),
            Target::Done(dir.join("AFerrosuiteTest.java"))
        );
        let _ = std::fs::remove_dir_all(&root);
    }
}
