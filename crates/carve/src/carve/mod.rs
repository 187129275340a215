//! `ferrosuite carve`: JUnit tests from a trace store, one test class per recorded class
//! (`<Class>CarvedTest` in its package), one test per recorded call that can be rebuilt
//! ([`body::carve_call`]), calls with the same test merged, then validated as generated suites
//! are: compiled with `javac`, run with JUnit, tests that do not compile or fail removed until
//! the rest passes, and the class run again `reruns` times, removing what does not pass every
//! time.
//!
//! ```no_run
//! use ferrosuite_carve::carve::{carve, CarveConfig};
//! # fn main() -> ferrosuite_carve::Result<()> {
//! let mut cfg = CarveConfig::new("trace.db".into(), "app/classes".into(), "carved".into());
//! cfg.classes = vec!["shop.Cart".into()];
//! let report = carve(&cfg)?;
//! println!("{} of {} calls carved into passing tests", report.passing, report.calls);
//! # Ok(()) }
//! ```

pub mod body;
pub mod environment;
mod jdk;
mod literal;
pub mod support;

use std::collections::{BTreeMap, HashMap};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use ferrosuite_bytecode::classfile::access;
use ferrosuite_bytecode::classpath::ClassPath;
use ferrosuite_bytecode::instrument::record::RecordedMethod;
use ferrosuite_emit::JUnit;
use ferrosuite_generate::jars::JarSearch;
use ferrosuite_generate::validate::{Round, Tools, check};
use serde::Serialize;

use crate::error::{Error, Result};
use crate::model::CallKind;
use crate::store::Store;
use body::{Body, Types, carve_call};

/// What to carve and where.
#[derive(Debug, Clone)]
pub struct CarveConfig {
    /// The trace store.
    pub store: PathBuf,
    /// The run (default: the store's latest).
    pub run: Option<i64>,
    /// The program's classes (directories and jars, `:`-separated).
    pub classpath: String,
    /// Classes to carve tests for: binary names or prefixes (default: every recorded class).
    pub classes: Vec<String>,
    /// Where the test sources go (`<out>/<package path>/<Class>CarvedTest.java`).
    pub out: PathBuf,
    /// JUnit 5 or 4.
    pub junit: JUnit,
    /// Compile and run the tests, keeping those that pass.
    pub validate: bool,
    /// Extra runs a kept test must pass.
    pub reruns: u32,
    /// Time limit of each test in the validation runs (JUnit 5): a test past it fails and
    /// is removed.
    pub test_timeout: std::time::Duration,
    /// Run the tests in the controlled environment (the runtime jar beside them), set up as
    /// each call read it; without, tests read the machine's clock, files and console.
    pub environment: bool,
}

impl CarveConfig {
    /// JUnit 5, validated, two extra runs, 10 s per test, the controlled environment, every
    /// recorded class of the latest run.
    #[must_use]
    pub fn new(store: PathBuf, classpath: String, out: PathBuf) -> Self {
        Self {
            store,
            run: None,
            classpath,
            classes: Vec::new(),
            out,
            junit: JUnit::Five,
            validate: true,
            reruns: 2,
            test_timeout: std::time::Duration::from_secs(10),
            environment: true,
        }
    }
}

/// One test class.
#[derive(Debug, Clone, Default, Serialize)]
pub struct ClassReport {
    /// The recorded class (binary name).
    pub class: String,
    /// The test class's file.
    pub file: Option<PathBuf>,
    /// Recorded calls of the class.
    pub calls: usize,
    /// Tests carved (after merging).
    pub carved: usize,
    /// Tests kept: compiled and passed every run.
    pub passing: usize,
    /// Tests removed: did not compile.
    pub uncompilable: usize,
    /// Tests removed: failed the first run.
    pub failing: usize,
    /// Tests removed: passed once but failed a rerun.
    pub unstable: usize,
    /// Why the class's tests could not be validated (then none is kept).
    pub error: Option<String>,
}

/// What carving did.
#[derive(Debug, Clone, Default, Serialize)]
pub struct CarveReport {
    /// The run carved.
    pub run: i64,
    /// Recorded calls of the selected classes (constructors excluded: they build receivers).
    pub calls: usize,
    /// Calls that got a test (before merging).
    pub carved_calls: usize,
    /// Calls whose test was the same as another's.
    pub merged: usize,
    /// Tests kept in the end.
    pub passing: usize,
    /// Recorded calls whose test (their own or the one they were merged into) was kept.
    pub calls_with_passing_test: usize,
    /// Calls that got no test, by reason.
    pub skipped: BTreeMap<String, usize>,
    /// Per class.
    pub classes: Vec<ClassReport>,
    /// The runtime jar written beside the tests (`ferrosuite-runtime.jar`, needed on the test
    /// class path of tests that control the environment).
    pub runtime_jar: Option<PathBuf>,
}

/// Accessibility and mockability from the class files (the program's and the JDK's).
struct PathTypes<'a> {
    cp: &'a ClassPath,
    package: String,
    cache: std::cell::RefCell<HashMap<String, Option<(bool, bool)>>>,
}

impl PathTypes<'_> {
    /// (accessible from the package, final), or `None` when the class is not found.
    fn look(&self, binary: &str) -> Option<(bool, bool)> {
        if let Some(v) = self.cache.borrow().get(binary) {
            return *v;
        }
        let v = self.compute(binary);
        self.cache.borrow_mut().insert(binary.to_string(), v);
        v
    }

    fn compute(&self, binary: &str) -> Option<(bool, bool)> {
        let internal = binary.replace('.', "/");
        let class = self.cp.load(&internal).ok()?;
        let package = binary.rsplit_once('.').map_or("", |(p, _)| p);
        let same = package == self.package;
        let mut flags = class.access_flags;
        if let Some((outer, last)) = binary.rsplit_once('$') {
            if last.starts_with(|c: char| c.is_ascii_digit()) {
                return Some((false, true));
            }
            let mine = class.attributes.iter().find_map(|a| match &a.body {
                ferrosuite_bytecode::attributes::AttributeBody::InnerClasses(list) => list
                    .iter()
                    .find(|ic| {
                        class
                            .constant_pool
                            .class_name(ic.inner)
                            .is_ok_and(|n| n == internal)
                    })
                    .map(|ic| ic.flags),
                _ => None,
            });
            let Some(inner) = mine else {
                return Some((false, true));
            };
            flags = inner;
            let (outer_ok, _) = self.look(outer)?;
            if !outer_ok || flags & access::PRIVATE != 0 {
                return Some((false, flags & access::FINAL != 0));
            }
        }
        let accessible = flags & access::PUBLIC != 0 || same;
        Some((accessible, flags & access::FINAL != 0))
    }
}

impl Types for PathTypes<'_> {
    fn accessible(&self, binary: &str) -> bool {
        self.look(binary).is_some_and(|(a, _)| a)
    }

    fn mockable(&self, binary: &str) -> bool {
        // A mock class loader or thread could abort the test run's JVM.
        !ferrosuite_mocking::vm_bound(&binary.replace('.', "/"))
            && self.look(binary).is_some_and(|(a, f)| a && !f)
    }

    fn final_method(&self, binary: &str, name: &str, descriptor: &str) -> bool {
        // The first declaration up the superclasses is the one a call runs (an interface's
        // methods are never final).
        let mut internal = binary.replace('.', "/");
        for _ in 0..64 {
            let Ok(class) = self.cp.load(&internal) else {
                return false;
            };
            if let Some(m) = class.declared_method(name, descriptor) {
                return m.access_flags & access::FINAL != 0;
            }
            match class.super_name() {
                Ok(Some(s)) => internal = s.into_owned(),
                _ => return false,
            }
        }
        false
    }
}

/// The test class's source: imports, the tests, the support class.
fn class_source(
    package: &str,
    name: &str,
    tests: &[(String, Body)],
    junit: JUnit,
    environment: bool,
    note: &str,
) -> String {
    let mocks = tests.iter().any(|(_, b)| b.mocks);
    let statics = tests.iter().any(|(_, b)| b.sets_statics);
    let mut s = String::new();
    if !package.is_empty() {
        let _ = write!(s, "package {package};\n\n");
    }
    match junit {
        JUnit::Five => {
            s.push_str("import static org.junit.jupiter.api.Assertions.*;\n");
        }
        JUnit::Four => {
            s.push_str("import static org.junit.Assert.*;\n");
        }
    }
    if mocks {
        s.push_str("import static org.mockito.Mockito.*;\n");
    }
    s.push('\n');
    let after = statics || mocks;
    if environment {
        let _ = writeln!(s, "import {};", environment::ENVIRONMENT);
    }
    if after {
        s.push_str(match junit {
            JUnit::Five => "import org.junit.jupiter.api.AfterEach;\n",
            JUnit::Four => "import org.junit.After;\n",
        });
    }
    if environment {
        s.push_str(match junit {
            JUnit::Five => {
                "import org.junit.jupiter.api.BeforeAll;\nimport org.junit.jupiter.api.BeforeEach;\n"
            }
            JUnit::Four => "import org.junit.Before;\nimport org.junit.BeforeClass;\n",
        });
    }
    s.push_str(match junit {
        JUnit::Five => "import org.junit.jupiter.api.Test;\n",
        JUnit::Four => "import org.junit.Test;\n",
    });
    if mocks {
        s.push_str("import org.mockito.InOrder;\n");
    }
    let _ = write!(
        s,
        "\n/** Carved by ferrosuite from {note}: one test per recorded behaviour. */\n@SuppressWarnings({{\"unchecked\", \"rawtypes\"}})\npublic class {name} {{\n"
    );
    if environment {
        // The clock, randomness, files and console of the code under test are the runtime's
        // (see ferrosuite-runtime.jar), started afresh for each test.
        let (once, each) = match junit {
            JUnit::Five => ("@BeforeAll", "@BeforeEach"),
            JUnit::Four => ("@BeforeClass", "@Before"),
        };
        let _ = write!(
            s,
            "\n    {once}\n    public static void controlEnvironment() {{\n        Environment.install();\n    }}\n\n    {each}\n    public void resetEnvironment() {{\n        Environment.begin();\n    }}\n"
        );
    }
    if after {
        // The static fields a test set go back, so that tests of other classes in the same JVM
        // (Maven's default) see the program's own; Mockito's checks of a stub left half made
        // fail the test that left it, not the next one.
        let annotation = match junit {
            JUnit::Five => "@AfterEach",
            JUnit::Four => "@After",
        };
        let _ = write!(s, "\n    {annotation}\n    public void cleanUp() {{\n");
        if statics {
            s.push_str("        CarveSupport.restoreStatics();\n");
        }
        if mocks {
            s.push_str("        validateMockitoUsage();\n");
        }
        s.push_str("    }\n");
    }
    for (test, body) in tests {
        let _ = write!(
            s,
            "\n    @Test\n    public void {test}() throws Throwable {{\n"
        );
        for l in &body.lines {
            s.push_str("        ");
            s.push_str(l);
            s.push('\n');
        }
        s.push_str("    }\n");
    }
    s.push('\n');
    s.push_str(&support::source());
    s.push_str("\n}\n");
    s
}

fn selected(cfg: &CarveConfig, class: &str) -> bool {
    cfg.classes.is_empty()
        || cfg.classes.iter().any(|p| {
            let p = p.replace('/', ".");
            class == p || class.starts_with(&format!("{p}.")) || class.starts_with(&format!("{p}$"))
        })
}

/// Carves, writes and (unless told not to) validates the tests; see the module documentation.
///
/// # Errors
/// The store cannot be read, the class path cannot be opened, a file cannot be written, a Java
/// tool cannot be run. Calls that cannot be carved are counted, not errors.
pub fn carve(cfg: &CarveConfig) -> Result<CarveReport> {
    if !cfg.store.is_file() {
        return Err(Error::Store {
            path: cfg.store.clone(),
            detail: "no such file".into(),
        });
    }
    let store = Store::open(&cfg.store)?;
    let run = match cfg.run {
        Some(r) => r,
        None => store.last_run()?.ok_or_else(|| Error::Store {
            path: cfg.store.clone(),
            detail: "holds no recorded run".into(),
        })?,
    };
    let cp = ClassPath::parse(&cfg.classpath)
        .and_then(|c| c.with_jdk(None))
        .map_err(|e| Error::Command(format!("class path {:?}: {e}", cfg.classpath)))?;
    let (methods, targets, fields) = store.meaning(run)?;
    let mut report = CarveReport {
        run,
        ..CarveReport::default()
    };
    let mut by_class: BTreeMap<String, Vec<&RecordedMethod>> = BTreeMap::new();
    let ids: HashMap<(String, String, String), u32> = store
        .methods(run)?
        .into_iter()
        .map(|m| ((m.class, m.name, m.descriptor), m.id))
        .collect();
    for m in &methods {
        let class = m.class.replace('/', ".");
        if m.name != "<init>" && selected(cfg, &class) {
            by_class.entry(class).or_default().push(m);
        }
    }
    let tools = if cfg.validate {
        let jdk = ferrosuite_bytecode::jdk::JdkSearch::from_env()
            .default_home()
            .ok_or_else(|| Error::Command("no JDK found (set JAVA_HOME)".into()))
            .and_then(|h| ferrosuite_bytecode::jdk::Jdk::at(&h).map_err(Error::from))?;
        Some((
            Tools::new(&jdk, JarSearch::new(Vec::new(), None, None))
                .with_test_timeout(cfg.test_timeout),
            jdk.feature,
        ))
    } else {
        None
    };
    for (class, ms) in by_class {
        let package = class
            .rsplit_once('.')
            .map_or(String::new(), |(p, _)| p.to_string());
        let types = PathTypes {
            cp: &cp,
            package: package.clone(),
            cache: std::cell::RefCell::new(HashMap::new()),
        };
        let simple = class.rsplit_once('.').map_or(class.as_str(), |(_, s)| s);
        let test_class = format!("{}CarvedTest", simple.replace('$', "_"));
        let mut cr = ClassReport {
            class: class.clone(),
            ..ClassReport::default()
        };
        let mut tests: Vec<(String, Body)> = Vec::new();
        let mut used: HashMap<String, usize> = HashMap::new();
        // Per test, the calls it stands for.
        let mut represents: HashMap<String, usize> = HashMap::new();
        for m in ms {
            let Some(&id) = ids.get(&(m.class.clone(), m.name.clone(), m.descriptor.clone()))
            else {
                continue;
            };
            let private = match callable(&cp, m) {
                Ok(private) => private,
                Err(why) => {
                    let n = store.calls(run, id)?.len();
                    cr.calls += n;
                    report.calls += n;
                    *report.skipped.entry(why).or_insert(0) += n;
                    continue;
                }
            };
            for c in store.calls(run, id)? {
                if c.kind == CallKind::Constructor {
                    continue;
                }
                cr.calls += 1;
                report.calls += 1;
                match carve_call(&c, m, private, &targets, &fields, &types, cfg.environment) {
                    Err(why) => {
                        *report.skipped.entry(reason_kind(&why)).or_insert(0) += 1;
                    }
                    Ok(body) => {
                        report.carved_calls += 1;
                        if let Some((same, _)) = tests.iter().find(|(_, b)| b.lines == body.lines) {
                            *represents.entry(same.clone()).or_insert(1) += 1;
                            report.merged += 1;
                            continue;
                        }
                        let n = used.entry(body.name.clone()).or_insert(0);
                        *n += 1;
                        let name = if *n == 1 {
                            body.name.clone()
                        } else {
                            format!("{}_{n}", body.name)
                        };
                        tests.push((name, body));
                    }
                }
            }
        }
        cr.carved = tests.len();
        if tests.is_empty() {
            report.classes.push(cr);
            continue;
        }
        let note = format!(
            "run {run} of {}",
            cfg.store
                .file_name()
                .map_or_else(String::new, |f| f.to_string_lossy().into_owned())
        );
        let rel: PathBuf = package
            .split('.')
            .filter(|p| !p.is_empty())
            .collect::<PathBuf>()
            .join(format!("{test_class}.java"));
        let qualified = if package.is_empty() {
            test_class.clone()
        } else {
            format!("{package}.{test_class}")
        };
        if let Some((tools, release)) = &tools {
            validate(
                tools,
                *release,
                cfg,
                &package,
                &test_class,
                &qualified,
                &rel,
                &note,
                &mut tests,
                &mut cr,
            )?;
        }
        cr.passing = tests.len();
        report.passing += tests.len();
        report.calls_with_passing_test += tests
            .iter()
            .map(|(n, _)| represents.get(n).copied().unwrap_or(1))
            .sum::<usize>();
        if !tests.is_empty() {
            let file = cfg.out.join(&rel);
            if let Some(dir) = file.parent() {
                std::fs::create_dir_all(dir).map_err(Error::io(dir.display().to_string()))?;
            }
            std::fs::write(
                &file,
                class_source(
                    &package,
                    &test_class,
                    &tests,
                    cfg.junit,
                    cfg.environment,
                    &note,
                ),
            )
            .map_err(Error::io(file.display().to_string()))?;
            cr.file = Some(file);
        }
        report.classes.push(cr);
    }
    // Test classes that control the environment need the runtime jar beside them.
    if cfg.environment && report.classes.iter().any(|c| c.file.is_some()) {
        let jar = ferrosuite_generate::runtime_jar::write_runtime_jar(&cfg.out, true)
            .map_err(|e| Error::Command(format!("writing the runtime jar: {e}")))?;
        report.runtime_jar = Some(jar);
    }
    Ok(report)
}

/// Whether a test calls the method by reflection (it is private), or why it cannot call it.
fn callable(cp: &ClassPath, m: &RecordedMethod) -> std::result::Result<bool, String> {
    let Ok(class) = cp.load(&m.class) else {
        return Err("a class not on the class path".into());
    };
    let Some(member) = class.declared_method(&m.name, &m.descriptor) else {
        return Err("a method not in the class on the class path".into());
    };
    if member.access_flags & access::SYNTHETIC != 0 {
        Err("a synthetic method".into())
    } else {
        Ok(member.access_flags & access::PRIVATE != 0)
    }
}

/// A reason without the class names and numbers in it, for counting (`a java.io.File whose
/// state could not be read` → `a … whose state could not be read`).
fn reason_kind(why: &str) -> String {
    why.split_whitespace()
        .map(|w| {
            if w.contains(['.', '$']) || w.chars().any(|c| c.is_ascii_digit()) {
                "…"
            } else {
                w
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// What one validation round needs.
struct Run<'a> {
    tools: &'a Tools,
    cfg: &'a CarveConfig,
    release: u16,
    dir: &'a Path,
    rel: &'a Path,
    qualified: &'a str,
    package: &'a str,
    test_class: &'a str,
    note: &'a str,
    classpath: &'a [PathBuf],
}

impl Run<'_> {
    /// One round over `tests`. A run that reports nothing (a test ended the JVM, by
    /// `System.exit` or a crash) is repeated on halves until the tests that cause it are found;
    /// they count as failing.
    fn round(&self, tests: &[(String, Body)]) -> std::result::Result<Round, String> {
        let names: Vec<String> = tests.iter().map(|(n, _)| n.clone()).collect();
        let source = class_source(
            self.package,
            self.test_class,
            tests,
            self.cfg.junit,
            self.cfg.environment,
            self.note,
        );
        match check(
            self.tools,
            self.cfg.junit,
            self.release,
            self.dir,
            self.rel,
            self.qualified,
            &source,
            &names,
            self.classpath,
        ) {
            Ok(r) => Ok(r),
            Err(e) => {
                let text = e.to_string();
                let no_report =
                    text.contains("wrote no report") || text.contains("failed without naming");
                if !no_report {
                    return Err(text);
                }
                if tests.len() == 1 {
                    return Ok(Round {
                        failing: names,
                        ..Round::default()
                    });
                }
                let (a, b) = tests.split_at(tests.len() / 2);
                let mut ra = self.round(a)?;
                let rb = self.round(b)?;
                ra.uncompilable.extend(rb.uncompilable);
                ra.failing.extend(rb.failing);
                ra.skipped.extend(rb.skipped);
                ra.timed_out.extend(rb.timed_out);
                Ok(ra)
            }
        }
    }
}

/// Removes the tests that do not compile or fail, then those that fail a rerun.
#[allow(clippy::too_many_arguments)]
fn validate(
    tools: &Tools,
    release: u16,
    cfg: &CarveConfig,
    package: &str,
    test_class: &str,
    qualified: &str,
    rel: &Path,
    note: &str,
    tests: &mut Vec<(String, Body)>,
    cr: &mut ClassReport,
) -> Result<()> {
    // One directory per validation: carvings may run side by side in one process.
    static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let dir = std::env::temp_dir().join(format!(
        "ferrosuite-carve-{}-{}-{}",
        std::process::id(),
        NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed),
        qualified
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).map_err(Error::io(dir.display().to_string()))?;
    let classpath: Vec<PathBuf> = cfg
        .classpath
        .split(':')
        .filter(|p| !p.is_empty())
        .map(PathBuf::from)
        .collect();
    let mut runs = 0u32;
    let mut first_pass = true;
    let result = loop {
        if tests.is_empty() {
            break Ok(());
        }
        let run = Run {
            tools,
            cfg,
            release,
            dir: &dir,
            rel,
            qualified,
            package,
            test_class,
            note,
            classpath: &classpath,
        };
        let round = match run.round(tests) {
            Ok(r) => r,
            Err(e) => break Err(Error::Command(format!("validating {qualified}: {e}"))),
        };
        // A test past its time limit may still be running, and the tests that failed beside
        // it may have failed because of it: only it goes, and the rest run again without it.
        let round = if round.timed_out.is_empty() {
            round
        } else {
            Round {
                failing: round.timed_out.clone(),
                uncompilable: round.uncompilable,
                ..Round::default()
            }
        };
        let bad: Vec<&String> = round
            .uncompilable
            .iter()
            .chain(&round.failing)
            .chain(&round.skipped)
            .collect();
        if bad.is_empty() {
            if runs >= cfg.reruns {
                break Ok(());
            }
            runs += 1;
            first_pass = false;
            continue;
        }
        cr.uncompilable += round.uncompilable.len();
        let failing = round.failing.len() + round.skipped.len();
        if first_pass {
            cr.failing += failing;
        } else {
            cr.unstable += failing;
        }
        tests.retain(|(n, _)| !bad.contains(&n));
    };
    let _ = std::fs::remove_dir_all(&dir);
    result
}
