//! Scripted benchmark of the execution host (results go into BENCHMARKS.md):
//! - start-up: spawning a worker, starting its JVM and running the first test;
//! - throughput: tests/s and statements/s with 1 and 2 workers on simple CUTs (the Stack
//!   fixture and commons-lang3 `StringUtils`/`NumberUtils`), batches of the two hosts
//!   alternating;
//! - the CPU split between the master process and its workers over a host's life;
//! - overhead: the same tests compiled into a JUnit 5 class and run by the JUnit Platform
//!   launcher in a warm JVM, measured in the same run.
//!
//! Usage: `cargo run --release -p ferrosuite-benches --bin exec-overhead -- <fixture classes dir> [tests]`
//! (needs `ferrosuite-worker` built: `cargo build --release -p ferrosuite-exec`).
//!
//! With `EXEC_OVERHEAD_PROFILE=<workers>` it only runs batches for 10 s on one host, for
//! `perf record -a`.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    missing_docs,
    clippy::too_many_lines
)]

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

/// The allocator the CLI uses (see the workspace's `Cargo.toml`).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

use ferrosuite_exec::{Host, HostConfig, WorkerProgram};
use ferrosuite_testcase::statement::Prim;
use ferrosuite_testcase::{Statement, Test, VarRef};

const SU: &str = "org/apache/commons/lang3/StringUtils";
const NU: &str = "org/apache/commons/lang3/math/NumberUtils";

fn tests(n: usize) -> Vec<Test> {
    let words = [
        "",
        " ",
        "abc",
        "Hello World",
        "  x  ",
        "12",
        "-3.5e2",
        "0x1F",
        "ab,cd",
        "ÄÖü",
    ];
    let mut out = Vec::with_capacity(n);
    for i in 0..n {
        let w = words[i % words.len()];
        let k = (i % 7) as i32;
        let t = match i % 4 {
            0 => {
                let mut s = vec![
                    Statement::constructor("examples/Stack", "()V", vec![]),
                    Statement::Primitive(Prim::Int(k)),
                ];
                for _ in 0..=(i % 5) {
                    s.push(Statement::method(
                        "examples/Stack",
                        "push",
                        "(I)V",
                        Some(VarRef(0)),
                        vec![VarRef(1)],
                    ));
                }
                s.push(Statement::method(
                    "examples/Stack",
                    "pop",
                    "()I",
                    Some(VarRef(0)),
                    vec![],
                ));
                s
            }
            1 => vec![
                Statement::string(w),
                Statement::method(
                    SU,
                    "isBlank",
                    "(Ljava/lang/CharSequence;)Z",
                    None,
                    vec![VarRef(0)],
                ),
                Statement::method(
                    SU,
                    "capitalize",
                    "(Ljava/lang/String;)Ljava/lang/String;",
                    None,
                    vec![VarRef(0)],
                ),
                Statement::Primitive(Prim::Int(k + 4)),
                Statement::method(
                    SU,
                    "abbreviate",
                    "(Ljava/lang/String;I)Ljava/lang/String;",
                    None,
                    vec![VarRef(0), VarRef(3)],
                ),
                Statement::method(
                    SU,
                    "repeat",
                    "(Ljava/lang/String;I)Ljava/lang/String;",
                    None,
                    vec![VarRef(2), VarRef(3)],
                ),
            ],
            2 => vec![
                Statement::string(w),
                Statement::Primitive(Prim::Int(k)),
                Statement::method(
                    NU,
                    "toInt",
                    "(Ljava/lang/String;I)I",
                    None,
                    vec![VarRef(0), VarRef(1)],
                ),
                Statement::method(
                    NU,
                    "isCreatable",
                    "(Ljava/lang/String;)Z",
                    None,
                    vec![VarRef(0)],
                ),
                Statement::method(
                    SU,
                    "reverse",
                    "(Ljava/lang/String;)Ljava/lang/String;",
                    None,
                    vec![VarRef(0)],
                ),
            ],
            _ => vec![
                Statement::string(w),
                Statement::string(words[(i + 3) % words.len()]),
                Statement::method(
                    SU,
                    "difference",
                    "(Ljava/lang/String;Ljava/lang/String;)Ljava/lang/String;",
                    None,
                    vec![VarRef(0), VarRef(1)],
                ),
                Statement::method(
                    SU,
                    "indexOfDifference",
                    "(Ljava/lang/CharSequence;Ljava/lang/CharSequence;)I",
                    None,
                    vec![VarRef(0), VarRef(1)],
                ),
                Statement::method(
                    SU,
                    "swapCase",
                    "(Ljava/lang/String;)Ljava/lang/String;",
                    None,
                    vec![VarRef(2)],
                ),
            ],
        };
        out.push(Test::new(t));
    }
    out
}

/// The tests as a JUnit 5 class in package `examples` (Stack's methods are package-private).
fn junit_source(tests: &[Test]) -> String {
    let mut src = String::from(
        "package examples;\n\nimport org.junit.jupiter.api.Test;\n\npublic class ExecBenchTest {\n",
    );
    for (i, t) in tests.iter().enumerate() {
        let _ = writeln!(
            src,
            "    @Test\n    public void test{i}() {{\n        try {{"
        );
        // The test model prints each statement as a Java declaration or expression statement.
        for line in t.to_string().lines() {
            let _ = writeln!(src, "            {line}");
        }
        let _ = writeln!(src, "        }} catch (Throwable t) {{\n        }}\n    }}");
    }
    src.push_str("}\n");
    src
}

const HARNESS: &str = r#"
import java.lang.reflect.Method;
import java.util.Arrays;
import java.util.Comparator;
import org.junit.platform.launcher.Launcher;
import org.junit.platform.launcher.LauncherDiscoveryRequest;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;
import org.junit.platform.launcher.listeners.SummaryGeneratingListener;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

public class ExecHarness {
    public static void main(String[] a) throws Exception {
        Class<?> c = Class.forName(a[0]);
        int runs = Integer.parseInt(a[1]);
        Launcher l = LauncherFactory.create();
        LauncherDiscoveryRequest req = LauncherDiscoveryRequestBuilder.request().selectors(selectClass(c)).build();
        for (int i = 0; i < runs; i++) {
            SummaryGeneratingListener s = new SummaryGeneratingListener();
            long t0 = System.nanoTime();
            l.execute(req, s);
            long t1 = System.nanoTime();
            System.out.println("junit " + (t1 - t0) + " " + s.getSummary().getTestsSucceededCount());
        }
        Method[] ms = c.getDeclaredMethods();
        Arrays.sort(ms, Comparator.comparing(Method::getName));
        Object inst = c.getDeclaredConstructor().newInstance();
        for (int i = 0; i < runs; i++) {
            long t0 = System.nanoTime();
            for (Method m : ms) if (m.getName().startsWith("test")) m.invoke(inst);
            long t1 = System.nanoTime();
            System.out.println("direct " + (t1 - t0));
        }
    }
}
"#;

/// CPU seconds (user + system) of this process and of its waited-for children, from
/// `/proc/self/stat` (fields 14–17, in clock ticks of 1/100 s).
fn cpu_times() -> (f64, f64) {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap();
    // The command name (field 2) may contain spaces; the fields after it start past ')'.
    let rest = &stat[stat.rfind(')').unwrap() + 2..];
    let f: Vec<f64> = rest
        .split_whitespace()
        .skip(11)
        .take(4)
        .map(|x| x.parse().unwrap())
        .collect();
    ((f[0] + f[1]) / 100.0, (f[2] + f[3]) / 100.0)
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn host(classes: &Path, workers: usize) -> Host {
    let worker = WorkerProgram::locate().unwrap_or_else(|e| panic!("{e}"));
    Host::start(HostConfig {
        classpath: vec![
            classes.to_path_buf(),
            PathBuf::from("/usr/share/java/commons-lang3.jar"),
        ],
        instrument: vec!["examples/Stack".into(), SU.into(), NU.into()],
        workers,
        worker: Some(worker),
        // Extra JVM options for experiments (space-separated), after the defaults.
        jvm_options: HostConfig::default()
            .jvm_options
            .into_iter()
            .chain(
                std::env::var("EXEC_OVERHEAD_JVM")
                    .unwrap_or_default()
                    .split_whitespace()
                    .map(String::from),
            )
            .collect(),
        ..HostConfig::default()
    })
    .unwrap()
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let classes = PathBuf::from(
        args.get(1)
            .expect("usage: exec-overhead <fixture classes dir> [tests]"),
    );
    let n: usize = args.get(2).map_or(2000, |s| s.parse().unwrap());
    let batch = tests(n);
    let statements: usize = batch.iter().map(Test::len).sum();

    // Profiling and scaling mode: only batches on a host with the given number of workers,
    // for EXEC_OVERHEAD_SECONDS (10) after EXEC_OVERHEAD_WARMUP seconds (0) of batches not
    // counted; then the CPU time of this process and of its workers over the host's whole
    // life (for `perf record`, and for `benches/scripts/worker-scaling.sh`).
    if let Ok(w) = std::env::var("EXEC_OVERHEAD_PROFILE") {
        let secs = |var: &str, default: f64| -> f64 {
            std::env::var(var).map_or(default, |s| s.parse().expect("seconds"))
        };
        let (seconds, warmup) = (
            secs("EXEC_OVERHEAD_SECONDS", 10.0),
            secs("EXEC_OVERHEAD_WARMUP", 0.0),
        );
        let before = cpu_times();
        let life = Instant::now();
        let mut h = host(
            &classes,
            w.parse().expect("EXEC_OVERHEAD_PROFILE: a worker count"),
        );
        let t0 = Instant::now();
        while t0.elapsed().as_secs_f64() < warmup {
            h.run(&batch, false).unwrap();
        }
        let t0 = Instant::now();
        let mut batches = 0u32;
        while t0.elapsed().as_secs_f64() < seconds {
            h.run(&batch, false).unwrap();
            batches += 1;
        }
        let per = t0.elapsed().as_secs_f64() / f64::from(batches);
        drop(h);
        let after = cpu_times();
        let wall = life.elapsed().as_secs_f64();
        let (master, workers) = (after.0 - before.0, after.1 - before.1);
        println!(
            "{batches} batches, {:.1} ms per batch, {:.0} tests/s; CPU over the host's life \
             ({wall:.1} s): master {master:.2} s, workers {workers:.2} s, {:.2} cores",
            per * 1e3,
            n as f64 / per,
            (master + workers) / wall
        );
        return;
    }

    // Start-up to the first executed test, 5 fresh hosts.
    let mut firsts = Vec::new();
    for _ in 0..5 {
        let t0 = Instant::now();
        let mut h = host(&classes, 1);
        h.run(&batch[..1], false).unwrap();
        firsts.push(t0.elapsed().as_secs_f64() * 1e3);
    }

    // Throughput with 1 and 2 workers: both hosts warm up, then their batches alternate (so
    // that background noise hits both alike); medians of 15 batches each.
    let mut hosts = [host(&classes, 1), host(&classes, 2)];
    for h in &mut hosts {
        for _ in 0..5 {
            h.run(&batch, false).unwrap();
        }
    }
    let mut times = [Vec::new(), Vec::new()];
    for _ in 0..15 {
        for (h, t) in hosts.iter_mut().zip(&mut times) {
            let t0 = Instant::now();
            let r = h.run(&batch, false).unwrap();
            t.push(t0.elapsed().as_secs_f64());
            assert_eq!(r.len(), batch.len());
        }
    }
    drop(hosts);
    if std::env::var_os("EXEC_OVERHEAD_VERBOSE").is_some() {
        for (w, t) in times.iter().enumerate() {
            let ms: Vec<String> = t.iter().map(|x| format!("{:.1}", x * 1e3)).collect();
            eprintln!("{} worker(s), ms per batch: {}", w + 1, ms.join(" "));
        }
    }
    let [t1, t2] = times;
    let per_workers = [(1usize, median(t1)), (2, median(t2))];

    // Where the CPU time goes: the master process (this one: serialising tests, reading and
    // decoding results) against its worker processes (JVM and executor), over the whole life
    // of a host (start, 3 warm-up and 10 measured batches, shutdown).
    let mut cpu_split = Vec::new();
    for workers in [1usize, 2] {
        let before = cpu_times();
        let mut h = host(&classes, workers);
        for _ in 0..13 {
            h.run(&batch, false).unwrap();
        }
        drop(h);
        let after = cpu_times();
        let (master, children) = (after.0 - before.0, after.1 - before.1);
        cpu_split.push((workers, master, children));
    }

    // JUnit in a warm JVM: 15 runs of the compiled class; the median of the last 7.
    let dir = std::env::temp_dir().join(format!("ferrosuite-exec-bench-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("src/examples")).unwrap();
    std::fs::write(
        dir.join("src/examples/ExecBenchTest.java"),
        junit_source(&batch),
    )
    .unwrap();
    std::fs::write(dir.join("src/ExecHarness.java"), HARNESS).unwrap();
    let junit = "/usr/share/java/junit-platform-console-standalone.jar";
    let cp = format!(
        "{}:/usr/share/java/commons-lang3.jar:{junit}",
        classes.display()
    );
    let out = dir.join("classes");
    let st = Command::new("javac")
        .args(["-nowarn", "-d"])
        .arg(&out)
        .args(["-cp", &cp])
        .arg(dir.join("src/examples/ExecBenchTest.java"))
        .arg(dir.join("src/ExecHarness.java"))
        .status()
        .unwrap();
    assert!(st.success(), "javac failed");
    let run = Command::new("java")
        .args([
            "-Xmx512m",
            "-cp",
            &format!("{}:{cp}", out.display()),
            "ExecHarness",
            "examples.ExecBenchTest",
            "15",
        ])
        .output()
        .unwrap();
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let text = String::from_utf8_lossy(&run.stdout);
    let pick = |kind: &str| -> f64 {
        let v: Vec<f64> = text
            .lines()
            .filter(|l| l.starts_with(kind))
            .map(|l| l.split_whitespace().nth(1).unwrap().parse::<f64>().unwrap() / 1e9)
            .collect();
        median(v[v.len() - 7..].to_vec())
    };
    let (junit_s, direct_s) = (pick("junit "), pick("direct "));
    let _ = std::fs::remove_dir_all(&dir);

    let one = per_workers[0].1;
    let two = per_workers[1].1;
    println!("tests per batch: {n}; statements per batch: {statements}");
    println!(
        "JVM start to first executed test (median of 5): {:.0} ms",
        median(firsts.clone())
    );
    for (w, t) in &per_workers {
        println!(
            "{w} worker(s): {:.1} ms per batch, {:.0} tests/s, {:.0} statements/s",
            t * 1e3,
            n as f64 / t,
            statements as f64 / t
        );
    }
    println!("speed-up 1 -> 2 workers: {:.2}x", one / two);
    for (w, master, children) in &cpu_split {
        println!(
            "CPU over a host's life with {w} worker(s): master {master:.2} s, workers {children:.2} s; master share {:.1} %",
            100.0 * master / (master + children)
        );
    }
    println!(
        "JUnit 5 launcher, warm JVM: {:.1} ms per batch ({:.1} us per test); plain reflective calls: {:.1} ms",
        junit_s * 1e3,
        junit_s * 1e6 / n as f64,
        direct_s * 1e3
    );
    println!(
        "overhead vs JUnit (1 worker / JUnit): {:.2}x; vs plain calls: {:.1}x",
        one / junit_s,
        one / direct_s
    );
    let json = serde_json::json!({
        "tests": n, "statements": statements,
        "first_test_ms": median(firsts),
        "one_worker_s": one, "two_workers_s": two, "speedup": one / two,
        "junit_s": junit_s, "direct_s": direct_s, "overhead_vs_junit": one / junit_s,
        "cpu_split": cpu_split.iter().map(|(w, m, c)| serde_json::json!({
            "workers": w, "master_s": m, "workers_s": c,
        })).collect::<Vec<_>>(),
    });
    println!("{json}");
}
