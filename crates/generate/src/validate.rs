//! Validation of emitted test classes with the real tools: `javac` compiles the source against
//! the user's class path plus JUnit, and JUnit's own runner (the console launcher for JUnit 5,
//! `JUnitCore` for JUnit 4, with a listener that names the tests whose assumptions failed) runs
//! it.
//!
//! Repair, not rejection: a test method that does not compile or fails is *removed* and the
//! class is emitted again, until what is left compiles and passes (or nothing is left). An
//! error outside every test method (an import, the class header) cannot be repaired: the
//! class is not written. Which method a `javac` error belongs to comes from the line numbers
//! of the method bodies ([`method_spans`]); which test failed comes from the runner's report
//! (JUnit 5's XML report, JUnit 4's numbered failure list).
//!
//! ```
//! use ferrosuite_generate::validate::{failing_junit4, method_spans};
//! let src = "class T {\n    public void a() throws Throwable {\n        x();\n    }\n}\n";
//! assert_eq!(method_spans(src, &["a".to_string()]), [(2, 4)]);
//! let out = "There was 1 failure:\n1) pop(examples.StackTest)\njava.lang.AssertionError\n";
//! assert_eq!(failing_junit4(out), ["pop"]);
//! ```

use std::collections::BTreeSet;
use std::io::Read as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use ferrosuite_bytecode::jdk::Jdk;
use ferrosuite_emit::JUnit;

use ferrosuite_emit::{EmitTest, EmittedClass, TypeInfo, emit_class};

use crate::error::{Error, Result};
use crate::jars::JarSearch;
use crate::{Config, Generated};

/// The Java tools and where the jars of the tests come from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tools {
    /// `javac`.
    pub javac: PathBuf,
    /// `java`.
    pub java: PathBuf,
    /// Where JUnit (and the test class path's other jars) are found. Missing jars are
    /// reported when a class is validated, so that generation without validation works
    /// without them.
    pub jars: JarSearch,
    /// A time limit for each JUnit 5 test of the validation runs, enforced from another
    /// thread (JUnit's `junit.jupiter.execution.timeout.default` with the separate-thread
    /// mode of JUnit 5.9+), for tests without a limit of their own that may not end; `None`
    /// leaves the tests' own limits.
    pub test_timeout: Option<Duration>,
}

impl Tools {
    /// The tools of `jdk`, the jars from `jars`.
    #[must_use]
    pub fn new(jdk: &Jdk, jars: JarSearch) -> Tools {
        Tools {
            javac: jdk.javac(),
            java: jdk.java(),
            jars,
            test_timeout: None,
        }
    }

    /// The same tools with a time limit for each test of the validation runs.
    #[must_use]
    pub fn with_test_timeout(mut self, limit: Duration) -> Tools {
        self.test_timeout = Some(limit);
        self
    }
}

/// The 1-based line spans (header line to closing brace) of the test methods `names`, in the
/// order given; `(0, 0)` for a name not found.
#[must_use]
pub fn method_spans(source: &str, names: &[String]) -> Vec<(usize, usize)> {
    let lines: Vec<&str> = source.lines().collect();
    names
        .iter()
        .map(|name| {
            let header = format!("public void {name}() throws Throwable {{");
            let Some(start) = lines.iter().position(|l| l.trim() == header) else {
                return (0, 0);
            };
            let end = lines[start..]
                .iter()
                .position(|l| *l == "    }")
                .map_or(lines.len(), |k| start + k);
            (start + 1, end + 1)
        })
        .collect()
}

/// The lines of `file` that `javac`'s output reports errors on.
fn error_lines(output: &str, file: &str) -> Vec<usize> {
    output
        .lines()
        .filter_map(|l| {
            let rest = l.strip_prefix(file)?.strip_prefix(':')?;
            let (line, msg) = rest.split_once(':')?;
            msg.trim_start()
                .starts_with("error")
                .then(|| line.parse().ok())
                .flatten()
        })
        .collect()
}

/// The simple name an `import a.b.C;` line brings in (not for static or on-demand imports).
fn imported_simple_name(line: &str) -> Option<&str> {
    let rest = line.trim().strip_prefix("import ")?.strip_suffix(';')?;
    if rest.starts_with("static ") || rest.ends_with('*') {
        return None;
    }
    rest.rsplit('.').next()
}

/// The tests whose body uses `simple` as a word.
fn tests_using(
    lines: &[&str],
    spans: &[(usize, usize)],
    names: &[String],
    simple: &str,
) -> Vec<String> {
    let word = |l: &str| {
        l.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '$'))
            .any(|w| w == simple)
    };
    spans
        .iter()
        .zip(names)
        .filter(|((s, e), _)| *s > 0 && lines[s - 1..(*e).min(lines.len())].iter().any(|l| word(l)))
        .map(|(_, n)| n.clone())
        .collect()
}

/// The main class that runs a JUnit 4 class in validation: `JUnitCore` with its text listener
/// (the numbered failures [`failing_junit4`] reads) and a listener that prints a
/// `skipped: <method>` line for each test whose assumption failed ([`skipped_junit4`]), which
/// `JUnitCore`'s own main does not report. Compiled with the tests, in the default package.
pub const JUNIT4_RUNNER: &str = "FerrosuiteJUnit4Run";

/// The source of [`JUNIT4_RUNNER`].
const JUNIT4_RUNNER_SOURCE: &str = r#"/** Runs one JUnit 4 class; names the tests whose assumptions failed. */
public final class FerrosuiteJUnit4Run {
    public static void main(String[] args) throws Exception {
        org.junit.runner.JUnitCore core = new org.junit.runner.JUnitCore();
        core.addListener(new org.junit.internal.TextListener(System.out));
        core.addListener(new org.junit.runner.notification.RunListener() {
            @Override
            public void testAssumptionFailure(org.junit.runner.notification.Failure failure) {
                System.out.println();
                System.out.println("skipped: " + failure.getDescription().getMethodName());
            }
        });
        org.junit.runner.Result result = core.run(Class.forName(args[0]));
        System.out.flush();
        System.exit(result.wasSuccessful() ? 0 : 1);
    }
}
"#;

/// Names of the tests [`JUNIT4_RUNNER`] reports as skipped (`skipped: name`).
#[must_use]
pub fn skipped_junit4(output: &str) -> Vec<String> {
    output
        .lines()
        .filter_map(|l| l.strip_prefix("skipped: "))
        .map(str::to_string)
        .collect()
}

/// Names of the tests JUnit 4's `JUnitCore` reports as failed (`1) name(Class)`).
#[must_use]
pub fn failing_junit4(output: &str) -> Vec<String> {
    output
        .lines()
        .filter_map(|l| {
            let (num, rest) = l.split_once(") ")?;
            num.parse::<u32>().ok()?;
            let (name, _) = rest.split_once('(')?;
            Some(name.to_string())
        })
        .collect()
}

/// The test cases of a JUnit 5 XML report (`TEST-junit-jupiter.xml`): each method's name
/// (without `()`) and the text of its children (empty for a self-closing element).
fn junit5_cases(xml: &str) -> impl Iterator<Item = (&str, &str)> {
    xml.split("<testcase ").skip(1).filter_map(|case| {
        let name = case.split("name=\"").nth(1)?.split('"').next()?;
        let body = case.split("</testcase>").next().unwrap_or(case);
        let head_closed = body.find("/>").zip(body.find('>'));
        let self_closing = head_closed.is_some_and(|(sc, gt)| sc + 1 == gt);
        Some((
            name.trim_end_matches("()"),
            if self_closing { "" } else { body },
        ))
    })
}

/// Names of the tests a JUnit 5 XML report marks failed or in error.
#[must_use]
pub fn failing_junit5(xml: &str) -> Vec<String> {
    junit5_cases(xml)
        .filter(|(_, body)| body.contains("<failure") || body.contains("<error"))
        .map(|(name, _)| name.to_string())
        .collect()
}

/// Names of the failing tests of a JUnit 5 XML report that ran past their time limit (JUnit's
/// `TimeoutException`): their threads may still run, and what failed beside them may have
/// failed because of it.
#[must_use]
pub fn timed_out_junit5(xml: &str) -> Vec<String> {
    junit5_cases(xml)
        .filter(|(_, body)| {
            // In the failure itself, not in what the test printed.
            let failure = body
                .find("<failure")
                .or_else(|| body.find("<error"))
                .map_or("", |at| &body[at..]);
            let failure = failure.split("<system-out").next().unwrap_or(failure);
            failure.contains("java.util.concurrent.TimeoutException")
        })
        .map(|(name, _)| name.to_string())
        .collect()
}

/// Names of the tests a JUnit 5 XML report marks skipped (an assumption failed: a mock got
/// a call it did not stub, a private member is gone).
#[must_use]
pub fn skipped_junit5(xml: &str) -> Vec<String> {
    junit5_cases(xml)
        .filter(|(_, body)| body.contains("<skipped"))
        .map(|(name, _)| name.to_string())
        .collect()
}

/// What validation found in one round.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Round {
    /// Tests removed because they did not compile.
    pub uncompilable: Vec<String>,
    /// Tests removed because they failed or erred.
    pub failing: Vec<String>,
    /// Tests skipped by a failed assumption.
    pub skipped: Vec<String>,
    /// Of the failing tests, those that ran past the time limit (JUnit 5 with
    /// [`Tools::with_test_timeout`]).
    pub timed_out: Vec<String>,
}

/// Compiles `source` (the class `package.class_name` at `rel`) in `dir` against `classpath`
/// plus JUnit and runs it. Returns the tests to remove (`Ok` with an empty round when the
/// class compiles and passes), or an error when the class fails to compile outside its test
/// methods or a tool cannot be run.
#[allow(clippy::too_many_arguments)]
pub fn check(
    tools: &Tools,
    junit: JUnit,
    release: u16,
    dir: &Path,
    rel: &Path,
    qualified: &str,
    source: &str,
    test_names: &[String],
    classpath: &[PathBuf],
) -> Result<Round> {
    let io = |what: &str, e: std::io::Error| Error::Tool(format!("{what}: {e}"));
    // Absolute paths: the tests run with the scratch directory as working directory.
    let absolute = |p: &Path| std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf());
    let dir = &absolute(dir);
    let classpath: Vec<PathBuf> = classpath.iter().map(|p| absolute(p)).collect();
    let classpath = classpath.as_slice();
    let src = dir.join("src");
    let out = dir.join("classes");
    let _ = std::fs::remove_dir_all(&out);
    std::fs::create_dir_all(&out).map_err(|e| io(&out.display().to_string(), e))?;
    let file = src.join(rel);
    if let Some(parent) = file.parent() {
        std::fs::create_dir_all(parent).map_err(|e| io(&parent.display().to_string(), e))?;
    }
    std::fs::write(&file, source).map_err(|e| io(&file.display().to_string(), e))?;
    let mut sources = vec![file.clone()];
    if junit == JUnit::Four {
        let runner = dir.join("runner").join(format!("{JUNIT4_RUNNER}.java"));
        std::fs::create_dir_all(dir.join("runner"))
            .map_err(|e| io(&dir.display().to_string(), e))?;
        std::fs::write(&runner, JUNIT4_RUNNER_SOURCE)
            .map_err(|e| io(&runner.display().to_string(), e))?;
        sources.push(runner);
    }
    let junit_jars = match junit {
        JUnit::Five => tools.jars.junit5_compile()?,
        JUnit::Four => tools.jars.junit4()?,
    };
    // The user's class path, the test class path (the project's test libraries), JUnit.
    let test_classpath: Vec<PathBuf> = tools
        .jars
        .test_classpath
        .iter()
        .map(|p| absolute(p))
        .collect();
    // Tests that reproduce the controlled environment: the runtime jar, and Byte Buddy's
    // agent (Mockito's jars bring it).
    let environment = source.contains("import org.ferrosuite.rt.Environment;");
    // Mockito for tests with mocks (the test class path's own, when it has one).
    let mockito = if source.contains("import static org.mockito.")
        || source.contains("import org.mockito.")
        || environment
    {
        tools.jars.mockito()?
    } else {
        Vec::new()
    };
    let mut cp: Vec<PathBuf> = classpath.to_vec();
    cp.extend(test_classpath.iter().cloned());
    cp.extend(junit_jars.iter().cloned());
    cp.extend(mockito.iter().cloned());
    let runtime = if environment {
        vec![crate::runtime_jar::write_runtime_jar(dir, true)?]
    } else {
        Vec::new()
    };
    cp.extend(runtime.iter().cloned());
    let joined = join(&cp);
    let o = Command::new(&tools.javac)
        .args(["--release", &release.to_string()])
        // Every error, not javac's first 100: each maps to a test to repair or remove.
        .args([
            "-encoding",
            "UTF-8",
            "-nowarn",
            "-Xlint:none",
            "-Xmaxerrs",
            "100000",
            "-d",
        ])
        .arg(&out)
        .arg("-cp")
        .arg(&joined)
        .args(&sources)
        .output()
        .map_err(|e| io(&format!("running {}", tools.javac.display()), e))?;
    if !o.status.success() {
        let text = format!(
            "{}{}",
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&o.stderr)
        );
        let lines = error_lines(&text, &file.display().to_string());
        let spans = method_spans(source, test_names);
        let source_lines: Vec<&str> = source.lines().collect();
        let mut bad = BTreeSet::new();
        for l in &lines {
            if let Some(k) = spans.iter().position(|(s, e)| s <= l && l <= e) {
                bad.insert(test_names[k].clone());
                continue;
            }
            // An import that does not resolve: the tests that use its class go.
            let users = source_lines
                .get(l.saturating_sub(1))
                .and_then(|t| imported_simple_name(t))
                .map(|simple| tests_using(&source_lines, &spans, test_names, simple))
                .unwrap_or_default();
            if users.is_empty() {
                return Err(Error::Tool(format!(
                    "the emitted class does not compile outside its tests:\n{text}"
                )));
            }
            bad.extend(users);
        }
        if bad.is_empty() {
            return Err(Error::Tool(format!("javac failed:\n{text}")));
        }
        return Ok(Round {
            uncompilable: bad.into_iter().collect(),
            ..Round::default()
        });
    }
    let mut run_cp = vec![out.clone()];
    run_cp.extend(classpath.iter().cloned());
    run_cp.extend(test_classpath);
    run_cp.extend(mockito);
    run_cp.extend(runtime);
    let skipped: Vec<String>;
    let mut timed_out = Vec::new();
    // A run that does not end (a test left a thread or a shutdown hook that waits) is stopped:
    // at the latest after a minute plus the tests' own time limits, and a few seconds after
    // JUnit has reported.
    let per_test = match (junit, tools.test_timeout) {
        (JUnit::Five, Some(t)) => t.as_secs().saturating_add(1),
        _ => 5,
    };
    let limit = Duration::from_secs(
        per_test
            .saturating_mul(test_names.len() as u64)
            .saturating_add(60),
    );
    let failing = match junit {
        JUnit::Five => {
            let console = tools.jars.junit5_console()?;
            let reports = dir.join("reports");
            let _ = std::fs::remove_dir_all(&reports);
            // The tests run for real here (the sandbox is the search's): in the scratch
            // directory, so that relative paths cannot reach the user's files.
            let mut cmd = Command::new(&tools.java);
            cmd.current_dir(dir)
                .arg("-jar")
                .arg(&console)
                .args([
                    "--disable-banner",
                    "--details=none",
                    "--disable-ansi-colors",
                ])
                .arg("--reports-dir")
                .arg(&reports)
                .arg("-cp")
                .arg(join(&run_cp));
            if let Some(t) = tools.test_timeout {
                cmd.arg("--config")
                    .arg(format!(
                        "junit.jupiter.execution.timeout.default={}ms",
                        t.as_millis().max(1)
                    ))
                    .args([
                        "--config",
                        "junit.jupiter.execution.timeout.thread.mode.default=SEPARATE_THREAD",
                    ]);
            }
            cmd.args(["--select-class", qualified]);
            let report = reports.join("TEST-junit-jupiter.xml");
            let o = run_bounded(&mut cmd, limit, &|_| report.exists())
                .map_err(|e| io(&format!("running {}", tools.java.display()), e))?;
            let xml =
                std::fs::read_to_string(reports.join("TEST-junit-jupiter.xml")).map_err(|e| {
                    Error::Tool(format!(
                        "JUnit wrote no report ({e}):\n{}{}",
                        String::from_utf8_lossy(&o.stdout),
                        String::from_utf8_lossy(&o.stderr)
                    ))
                })?;
            skipped = skipped_junit5(&xml);
            timed_out = timed_out_junit5(&xml);
            failing_junit5(&xml)
        }
        JUnit::Four => {
            run_cp.extend(junit_jars.iter().cloned());
            let mut cmd = Command::new(&tools.java);
            cmd.current_dir(dir)
                .arg("-cp")
                .arg(join(&run_cp))
                .args([JUNIT4_RUNNER, qualified]);
            // JUnitCore's summary line comes last.
            let o = run_bounded(&mut cmd, limit, &|out| {
                out.contains("\nOK (") || out.contains("\nTests run: ")
            })
            .map_err(|e| io(&format!("running {}", tools.java.display()), e))?;
            let text = String::from_utf8_lossy(&o.stdout);
            skipped = skipped_junit4(&text);
            let f = failing_junit4(&text);
            if !o.status.success() && f.is_empty() {
                return Err(Error::Tool(format!(
                    "JUnitCore failed without naming a test:\n{text}{}",
                    String::from_utf8_lossy(&o.stderr)
                )));
            }
            f
        }
    };
    Ok(Round {
        uncompilable: Vec::new(),
        failing,
        skipped,
        timed_out,
    })
}

/// Runs `cmd` with its output captured; kills it `limit` after the start, or a few seconds
/// after `done` (given the standard output so far) first says the run has reported, and
/// returns what it printed (with a failed status when it was killed).
fn run_bounded(
    cmd: &mut Command,
    limit: Duration,
    done: &dyn Fn(&str) -> bool,
) -> std::io::Result<Output> {
    /// What a run gets after it has reported, to exit by itself.
    const GRACE: Duration = Duration::from_secs(5);
    let started = std::time::SystemTime::now();
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()?;
    let pipe = |p: Option<Box<dyn std::io::Read + Send>>| {
        let shared = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let sink = std::sync::Arc::clone(&shared);
        let reader = std::thread::spawn(move || {
            let Some(mut p) = p else { return };
            let mut buf = [0u8; 8192];
            while let Ok(n) = p.read(&mut buf) {
                if n == 0 {
                    break;
                }
                sink.lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner)
                    .extend_from_slice(&buf[..n]);
            }
        });
        (shared, reader)
    };
    let (stdout, out_reader) = pipe(child.stdout.take().map(|p| Box::new(p) as _));
    let (stderr, err_reader) = pipe(child.stderr.take().map(|p| Box::new(p) as _));
    let start = Instant::now();
    let mut reported: Option<Instant> = None;
    let status = loop {
        if let Some(s) = child.try_wait()? {
            break s;
        }
        if reported.is_none() {
            let so_far = stdout
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .clone();
            if done(&String::from_utf8_lossy(&so_far)) {
                reported = Some(Instant::now());
            }
        }
        let late = reported.is_some_and(|r| r.elapsed() > GRACE) || start.elapsed() > limit;
        if late {
            let _ = child.kill();
            break child.wait()?;
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    // An agent that attached (Mockito's inline mock maker) made a socket in the machine's
    // temporary directory, which the JVM leaves there.
    ferrosuite_exec::attach::remove_socket(child.id(), started);
    let _ = out_reader.join();
    let _ = err_reader.join();
    let take = |b: std::sync::Arc<std::sync::Mutex<Vec<u8>>>| {
        std::mem::take(&mut *b.lock().unwrap_or_else(std::sync::PoisonError::into_inner))
    };
    Ok(Output {
        status,
        stdout: take(stdout),
        stderr: take(stderr),
    })
}

fn join(paths: &[PathBuf]) -> String {
    paths
        .iter()
        .map(|p| p.display().to_string())
        .collect::<Vec<_>>()
        .join(":")
}

/// Emits, compiles and runs the class, removing what does not compile or fails, until the
/// rest passes.
pub(crate) fn validated(
    config: &Config,
    tools: &Tools,
    release: u16,
    internal: &str,
    candidates: &mut Vec<EmitTest>,
    types: &dyn TypeInfo,
    out: &mut Generated,
) -> Result<Option<EmittedClass>> {
    let scratch = match &config.scratch {
        Some(s) => s.clone(),
        None => ferrosuite_exec::host::workdir::fresh_dir(&format!(
            "ferrosuite-validate-{}",
            std::process::id()
        ))?,
    };
    // Tests that failed once and got another round without their value assertions.
    let mut stripped = vec![false; candidates.len()];
    let result = (|| {
        for _round in 0..8 {
            if candidates.is_empty() {
                return Ok(None);
            }
            let class = emit_class(internal, candidates, &config.emit, types)?;
            let qualified = if class.package.is_empty() {
                class.class_name.clone()
            } else {
                format!("{}.{}", class.package, class.class_name)
            };
            let round = check(
                tools,
                config.emit.junit,
                release,
                &scratch,
                &class.path,
                &qualified,
                &class.source,
                &class.test_names,
                &config.classpath,
            )?;
            if round.uncompilable.is_empty() && round.failing.is_empty() && round.skipped.is_empty()
            {
                return Ok(Some(class));
            }
            // A test whose parameterised types do not compile gets another round with raw
            // types before it goes.
            let mut retyped_now = vec![false; candidates.len()];
            for (k, (c, name)) in candidates.iter_mut().zip(&class.test_names).enumerate() {
                if !c.raw_types && round.uncompilable.contains(name) {
                    c.raw_types = true;
                    retyped_now[k] = true;
                }
            }
            out.tests_raw_types += retyped_now.iter().filter(|r| **r).count();
            // A failing test with value assertions gets one more round without them: a value
            // the test JVM computes otherwise (a static initialised in another test, a
            // collaborator's state) is no reason to lose what the test covers. Its
            // assertions count as unstable.
            let mut unasserted_now = vec![false; candidates.len()];
            for (k, (c, name)) in candidates.iter_mut().zip(&class.test_names).enumerate() {
                if round.failing.contains(name) && !stripped[k] && !c.assertions.is_empty() {
                    out.assertions_unstable += c.assertions.len();
                    c.assertions.clear();
                    stripped[k] = true;
                    unasserted_now[k] = true;
                }
            }
            let mut dropped_uncompilable = 0;
            let mut dropped_failing = 0;
            let keep: Vec<bool> = class
                .test_names
                .iter()
                .enumerate()
                .map(|(k, name)| {
                    let uncompilable = round.uncompilable.contains(name) && !retyped_now[k];
                    let failing = round.failing.contains(name) && !unasserted_now[k];
                    dropped_uncompilable += usize::from(uncompilable);
                    dropped_failing += usize::from(failing);
                    // A test skipped in its own run (a mock called for what it did not
                    // stub) tests nothing.
                    !(uncompilable || failing || round.skipped.contains(name))
                })
                .collect();
            let mut k = 0;
            candidates.retain(|_| {
                k += 1;
                keep[k - 1]
            });
            let mut k = 0;
            stripped.retain(|_| {
                k += 1;
                keep[k - 1]
            });
            out.tests_uncompilable += dropped_uncompilable;
            out.tests_failing += dropped_failing;
            out.tests_skipped += round.skipped.len();
        }
        Err(Error::Tool(
            "validation did not converge after 8 rounds of removing tests".into(),
        ))
    })();
    if config.scratch.is_none() {
        let _ = std::fs::remove_dir_all(&scratch);
    }
    result
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;

    #[test]
    fn a_run_that_does_not_end_is_stopped() {
        // Reported, then hanging (a shutdown hook that waits): stopped after the grace.
        let start = Instant::now();
        let mut cmd = Command::new("sh");
        cmd.args(["-c", "echo; echo 'OK (1 test)'; exec sleep 60"]);
        let o = run_bounded(&mut cmd, Duration::from_secs(50), &|out| {
            out.contains("\nOK (")
        })
        .unwrap();
        assert!(!o.status.success());
        assert!(String::from_utf8_lossy(&o.stdout).contains("OK (1 test)"));
        assert!(
            start.elapsed() < Duration::from_secs(30),
            "{:?}",
            start.elapsed()
        );
        // Never reporting: stopped at the limit.
        let start = Instant::now();
        let mut cmd = Command::new("sh");
        cmd.args(["-c", "exec sleep 60"]);
        let o = run_bounded(&mut cmd, Duration::from_secs(1), &|_| false).unwrap();
        assert!(!o.status.success());
        assert!(
            start.elapsed() < Duration::from_secs(30),
            "{:?}",
            start.elapsed()
        );
        // Ending by itself: its status and output as they are.
        let mut cmd = Command::new("sh");
        cmd.args(["-c", "echo out; echo err >&2"]);
        let o = run_bounded(&mut cmd, Duration::from_secs(50), &|_| false).unwrap();
        assert!(o.status.success());
        assert_eq!(
            (&o.stdout[..], &o.stderr[..]),
            (&b"out\n"[..], &b"err\n"[..])
        );
    }

    #[test]
    fn javac_errors_are_mapped_to_lines() {
        let out = "/t/src/p/ATest.java:12: error: cannot find symbol\n        x();\n/t/src/p/ATest.java:3: warning: [x] y\n/t/src/p/ATest.java:20: error: ';' expected\n2 errors\n";
        assert_eq!(error_lines(out, "/t/src/p/ATest.java"), [12, 20]);
    }

    #[test]
    fn junit5_report_failures() {
        let xml = r#"<testsuite><testcase name="a()" classname="p.T" time="0.01"/>
<testcase name="b()" classname="p.T" time="0.01"><failure message="x" type="org.opentest4j.AssertionFailedError">trace</failure></testcase>
<testcase name="c()" classname="p.T"><system-out>x</system-out></testcase>
<testcase name="d()" classname="p.T"><error message="boom"/></testcase>
<testcase name="e()" classname="p.T"><failure message="e() timed out after 10 seconds" type="java.util.concurrent.TimeoutException">java.util.concurrent.TimeoutException: e() timed out after 10 seconds</failure></testcase></testsuite>"#;
        assert_eq!(failing_junit5(xml), ["b", "d", "e"]);
        assert_eq!(timed_out_junit5(xml), ["e"]);
        let printed = r#"<testsuite><testcase name="p()" classname="p.T"><system-out>java.util.concurrent.TimeoutException</system-out></testcase></testsuite>"#;
        assert!(timed_out_junit5(printed).is_empty());
    }

    #[test]
    fn junit4_runner_output() {
        // The runner's skipped lines start a line of their own between TextListener's dots.
        let out = "..\nskipped: pop\n.E\nTime: 0.01\nThere was 1 failure:\n1) push(p.StackTest)\njava.lang.AssertionError\n\nFAILURES!!!\nTests run: 3,  Failures: 1\n";
        assert_eq!(skipped_junit4(out), ["pop"]);
        assert_eq!(failing_junit4(out), ["push"]);
        assert!(JUNIT4_RUNNER_SOURCE.contains(&format!("class {JUNIT4_RUNNER} ")));
    }

    #[test]
    fn unresolved_imports_map_to_the_tests_using_them() {
        assert_eq!(
            imported_simple_name("import java.util.Comparators;"),
            Some("Comparators")
        );
        assert_eq!(
            imported_simple_name("import static org.junit.Assert.fail;"),
            None
        );
        assert_eq!(imported_simple_name("    x();"), None);
        let src = "import java.util.Comparators;\nclass T {\n    public void a() throws Throwable {\n        Comparators c = null;\n    }\n    public void b() throws Throwable {\n        int ComparatorsX = 1;\n    }\n}\n";
        let lines: Vec<&str> = src.lines().collect();
        let names = vec!["a".to_string(), "b".to_string()];
        let spans = method_spans(src, &names);
        assert_eq!(tests_using(&lines, &spans, &names, "Comparators"), ["a"]);
    }

    #[test]
    fn spans_of_methods() {
        let src = "class T {\n\n    public void a() throws Throwable {\n        x();\n        y();\n    }\n\n    public void b() throws Throwable {\n    }\n}\n";
        let names = vec!["a".to_string(), "b".to_string(), "zz".to_string()];
        assert_eq!(method_spans(src, &names), [(3, 6), (8, 9), (0, 0)]);
    }
}
