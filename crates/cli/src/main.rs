//! `ferrosuite`: the command-line tool. Thin by design: it parses arguments into plain data,
//! converts them into the libraries' configurations, calls them, and prints results.
//!
//! Exit codes: 0 success; 1 error (bad input, I/O); 2 usage error; 3 completed, but some classes
//! could not be processed (listed in the output and the report; for `generate`: a class got
//! no test class — an error, nothing testable, or no test survived validation); 130
//! interrupted ([`scratch`]: the run directory removed, what was written stays).

/// `println!` that returns an error instead of panicking when stdout is closed (e.g. piped into
/// `head`).
macro_rules! out {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        writeln!(std::io::stdout().lock(), $($arg)*)?
    }};
}

mod analyze;
mod carve;
mod generate;
mod integration;
mod project;
mod record;
mod run;
mod scratch;

/// The allocator of the master and of the workers (the binary is its own worker): see the
/// workspace's `Cargo.toml`.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use anyhow::{Context, Result, bail};
use clap::{Parser, Subcommand, ValueEnum};
use ferrosuite_bytecode::check;
use ferrosuite_bytecode::classpath::ClassPath;
use ferrosuite_bytecode::instrument::data::{ProbeData, coverage};
use ferrosuite_bytecode::instrument::map::{BranchKind, ProbeMap};
use ferrosuite_bytecode::instrument::offline::{self, OfflineConfig};
use ferrosuite_bytecode::instrument::probes::ProbeConfig;
use ferrosuite_generate::algorithms;

#[derive(Parser, Debug)]
#[command(
    name = "ferrosuite",
    version,
    about = "Search-based JUnit test generation from Java bytecode"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Clone, Copy, Debug, ValueEnum, PartialEq, Eq)]
enum Format {
    Text,
    Json,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Write instrumented copies of the classes of a class path (offline instrumentation).
    Instrument {
        /// Classes to instrument: directories and jars separated by ':'.
        #[arg(long, short = 'c')]
        classpath: String,
        /// Output directory (must be new or empty unless --overwrite).
        #[arg(long, short = 'o')]
        out: PathBuf,
        /// Probes: all, or a comma-separated list of branch, line, method, loop, compare,
        /// string, static-write, static-reset.
        #[arg(long, default_value = "all")]
        probes: String,
        /// Only classes whose name starts with this prefix (repeatable), e.g. com.example.
        #[arg(long)]
        include: Vec<String>,
        /// Skip classes whose name starts with this prefix (repeatable).
        #[arg(long)]
        exclude: Vec<String>,
        /// Replace files in a non-empty output directory.
        #[arg(long)]
        overwrite: bool,
        /// Also write the run's summary as JSON to this file.
        #[arg(long)]
        report: Option<PathBuf>,
    },
    /// Summarise coverage from a probe map and the data an instrumented run dumped.
    ProbeReport {
        /// The probe map written by `instrument` (DIR/ferrosuite-probes.json).
        #[arg(long)]
        map: PathBuf,
        /// The data written by the runtime (-Dferrosuite.probes.out=FILE).
        #[arg(long)]
        data: PathBuf,
        /// Output format.
        #[arg(long, value_enum, default_value = "text")]
        format: Format,
        /// Also list every branch site of the classes whose name starts with this prefix
        /// (repeatable), with each outcome's hits and smallest distance.
        #[arg(long)]
        detail: Vec<String>,
    },
    /// Print the branches, goals and goal hierarchy of a class, the coupled branches of a
    /// caller/callee pair (Cling), or counts over every class of a class path; write DOT graphs.
    #[command(group = clap::ArgGroup::new("target").required(true).args(["class", "caller", "all", "pairs"]))]
    Analyze {
        /// Class path: directories, jars, jmods, `jrt` / `jrt:<java home>`, separated by ':'.
        #[arg(long, short = 'c')]
        classpath: String,
        /// The class to analyse (e.g. com.example.Stack).
        class: Option<String>,
        /// Caller class of a pair (with --callee).
        #[arg(long, requires = "callee")]
        caller: Option<String>,
        /// Callee class of a pair (with --caller).
        #[arg(long, requires = "caller")]
        callee: Option<String>,
        /// Analyse every class of the first class-path entry and print counts.
        #[arg(long)]
        all: bool,
        /// Rank the caller/callee pairs of the first class-path entry by coupled branches and
        /// print the first N.
        #[arg(long, value_name = "N")]
        pairs: Option<usize>,
        /// With --all: only the classes of this module of a JDK (e.g. java.base).
        #[arg(long, requires = "all")]
        module: Option<String>,
        /// Only this method of CLASS (a name, or name and descriptor such as `push(I)V`).
        #[arg(long, conflicts_with_all = ["caller", "all", "pairs"])]
        method: Option<String>,
        /// Output format.
        #[arg(long, value_enum, default_value = "text")]
        format: Format,
        /// Write DOT graphs (and SVG when Graphviz's `dot` is installed) into this directory.
        #[arg(long)]
        dot: Option<PathBuf>,
        /// Replace files in a non-empty --dot directory.
        #[arg(long)]
        overwrite: bool,
        /// Leave out the edges into exception handlers.
        #[arg(long)]
        no_exception_edges: bool,
    },
    /// Run saved tests (JSON) on embedded JVMs and show what every statement did.
    Run {
        /// The class path of the code under test: directories and jars separated by ':'.
        #[arg(long, short = 'c')]
        classpath: String,
        /// The tests: a JSON file with a test, a list of tests, or {"tests": [...]}.
        #[arg(long, short = 't')]
        tests: PathBuf,
        /// Classes to instrument (default: the classes the tests name that are on the class
        /// path). Repeatable.
        #[arg(long)]
        instrument: Vec<String>,
        /// Worker processes.
        #[arg(long, default_value_t = 1)]
        workers: usize,
        /// Time limit per test in milliseconds.
        #[arg(long, default_value_t = 3000)]
        timeout: u64,
        /// Iterations per loop before a test is aborted (0: no limit).
        #[arg(long, default_value_t = 10_000)]
        loop_limit: u32,
        /// An extra option for the embedded JVMs (repeatable), e.g. --jvm-option=-Xmx1g.
        #[arg(long = "jvm-option", allow_hyphen_values = true)]
        jvm_options: Vec<String>,
        /// Record values and inspector results after each statement.
        #[arg(long)]
        observe: bool,
        /// Run the code under test without the sandbox (it may then exit, write files, …).
        #[arg(long)]
        no_sandbox: bool,
        /// Output format.
        #[arg(long, value_enum, default_value = "text")]
        format: Format,
    },
    /// Generate JUnit tests for classes: search, assertions, stability check, validation with
    /// javac and JUnit; files go to OUT/src/test/java.
    Generate(Box<generate::Request>),
    /// Generate class-integration tests for caller/callee pairs (Cling): MOSA over their
    /// coupled branches, tests named <Caller><Callee>IT; the report gives each pair's
    /// coupled-branch coverage.
    Integration(Box<integration::Request>),
    /// Run a Java program with trace probes and record the calls of its classes (receiver,
    /// arguments, calls on collaborators, result) into a trace store, for carving tests.
    Record(Box<record::Request>),
    /// Carve JUnit + Mockito regression tests from a trace store: one test per recorded call
    /// whose receiver, arguments and collaborators can be rebuilt, validated with javac and JUnit.
    Carve(Box<carve::Request>),
    /// Join the JSON reports of the shards of a `generate --shard` run into one report.
    Merge {
        /// The shards' reports (ferrosuite-report.json of each).
        #[arg(required = true)]
        reports: Vec<PathBuf>,
        /// Where to write the joined report (default: only the summary table is printed).
        #[arg(long, short = 'o')]
        out: Option<PathBuf>,
    },
    /// Read and write back every class file of a class path; report byte-identical counts.
    Roundtrip {
        /// Directories, jars, jmods, or `jrt` / `jrt:<java home>` for a JDK's modules.
        #[arg(long, short = 'c')]
        classpath: String,
        /// Output format.
        #[arg(long, value_enum, default_value = "text")]
        format: Format,
    },
}

fn main() -> ExitCode {
    // The execution host starts this same binary as its worker processes.
    if std::env::args_os().nth(1).is_some_and(|a| a == "__worker") {
        return ferrosuite_exec::worker::worker_main();
    }
    let cli = Cli::parse();
    // Commands that make scratch files work in one run directory, removed however they end
    // (`record` runs the user's program, which keeps the user's temporary directory).
    let needs_run_dir = matches!(
        cli.command,
        Command::Run { .. } | Command::Generate(_) | Command::Integration(_) | Command::Carve(_)
    );
    let run_dir = match needs_run_dir.then(scratch::RunDir::enter).transpose() {
        Ok(d) => d,
        Err(e) => {
            eprintln!("error: {e:#}");
            return ExitCode::from(1);
        }
    };
    let code = run(cli);
    // Interrupted: the handler is stopping the children and removing the run directory, and
    // exits with 130; this thread's result (a tool it saw killed) is not the run's.
    while scratch::interrupted() {
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    drop(run_dir);
    match code {
        Ok(code) => code,
        // The reader of our output went away (`| head`): stop quietly.
        Err(e)
            if e.chain().any(|c| {
                c.downcast_ref::<std::io::Error>()
                    .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
            }) =>
        {
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::from(1)
        }
    }
}

fn run(cli: Cli) -> Result<ExitCode> {
    match cli.command {
        Command::Instrument {
            classpath,
            out,
            probes,
            include,
            exclude,
            overwrite,
            report,
        } => {
            let cp = ClassPath::parse(&classpath)
                .with_context(|| format!("cannot open class path {classpath:?}"))?;
            let cfg = OfflineConfig {
                probes: ProbeConfig::parse_list(&probes)?,
                include,
                exclude,
                overwrite,
            };
            let tty = std::io::stderr().is_terminal();
            let start = Instant::now();
            let instrumented = offline::instrument_classpath(
                &cp,
                &out,
                &cfg,
                ferrosuite_runtime::CLASSES,
                |done, total| {
                    if tty && (done % 64 == 0 || done == total) {
                        eprint!("\r[{done:>6}/{total}] instrumenting");
                        if done == total {
                            eprintln!();
                        }
                    }
                },
            );
            let (rep, _map) = match instrumented {
                Err(e @ ferrosuite_bytecode::Error::OutputNotEmpty(_)) => {
                    bail!("{e} (pass --overwrite to replace its files)")
                }
                other => other?,
            };
            let secs = start.elapsed().as_secs_f64();
            out!(
                "instrumented {} classes ({} copied unchanged, {} failed) into {} in {secs:.2} s",
                rep.classes_instrumented,
                rep.classes_copied,
                rep.failures.len(),
                out.display()
            );
            out!(
                "probes: {} methods, {} lines, {} branch sites with {} outcomes, {} static-reset methods",
                rep.methods,
                rep.lines,
                rep.branch_sites,
                rep.branch_outcomes,
                rep.static_resets
            );
            out!(
                "resources copied: {}; probe map: {}",
                rep.resources_copied,
                out.join(offline::MAP_FILE).display()
            );
            for m in &rep.methods_skipped {
                out!("method left uninstrumented: {m}");
            }
            for f in &rep.failures {
                out!("class not instrumented: {}: {}", f.origin, f.error);
            }
            out!(
                "run: java -cp {}:<libraries> -Dferrosuite.probes.out=probes.txt <Main>",
                out.display()
            );
            if let Some(path) = report {
                let json = serde_json::to_string_pretty(&rep)?;
                std::fs::write(&path, json)
                    .with_context(|| format!("cannot write {}", path.display()))?;
            }
            Ok(if rep.failures.is_empty() {
                ExitCode::SUCCESS
            } else {
                ExitCode::from(3)
            })
        }
        Command::ProbeReport {
            map,
            data,
            format,
            detail,
        } => {
            let map_text = std::fs::read_to_string(&map)
                .with_context(|| format!("cannot read {}", map.display()))?;
            let map: ProbeMap = serde_json::from_str(&map_text)
                .with_context(|| format!("{} is not a probe map", map.display()))?;
            let data_text = std::fs::read_to_string(&data)
                .with_context(|| format!("cannot read {}", data.display()))?;
            let data =
                ProbeData::parse(&data_text).with_context(|| format!("{}", data.display()))?;
            let cov = coverage(&map, &data);
            if format == Format::Json {
                out!("{}", serde_json::to_string_pretty(&cov)?);
                return Ok(ExitCode::SUCCESS);
            }
            let width = cov.iter().map(|c| c.class.len()).max().unwrap_or(5).max(5);
            out!(
                "{:<width$}  {:>15}  {:>15}  {:>15}",
                "class",
                "branches",
                "lines",
                "methods"
            );
            for c in &cov {
                let cell = |k: &ferrosuite_bytecode::instrument::data::Counter| {
                    format!("{}/{} {:>5.1}%", k.covered, k.total, k.percent())
                };
                out!(
                    "{:<width$}  {:>15}  {:>15}  {:>15}",
                    c.class,
                    cell(&c.branches),
                    cell(&c.lines),
                    cell(&c.methods)
                );
            }
            for class in map.classes.iter().filter(|c| {
                let dotted = c.name.replace('/', ".");
                detail.iter().any(|p| dotted.starts_with(p.as_str()))
            }) {
                out!("\n{}", class.name.replace('/', "."));
                for m in &class.methods {
                    let calls = data.methods.get(&m.id.0).copied().unwrap_or(0);
                    out!("  {}{}  entered {calls}x", m.name, m.descriptor);
                    for site in &m.branches {
                        let line = site.line.map_or_else(|| "?".to_string(), |l| l.to_string());
                        let kind = match &site.kind {
                            BranchKind::Jump { opcode } => opcode.clone(),
                            BranchKind::Switch { .. } => "switch".to_string(),
                        };
                        out!("    line {line:>4} @{:<4} {kind}", site.offset);
                        for o in &site.outcomes {
                            let (hits, dist) = data
                                .branches
                                .get(&o.slot.0)
                                .copied()
                                .unwrap_or((0, f64::INFINITY));
                            let dist = if dist.is_finite() {
                                format!("{dist}")
                            } else {
                                "not reached".into()
                            };
                            out!(
                                "      {:<10} -> @{:<4} hits {hits:<5} distance {dist}",
                                o.label,
                                o.target
                            );
                        }
                    }
                }
            }
            Ok(ExitCode::SUCCESS)
        }
        Command::Analyze {
            classpath,
            class,
            caller,
            callee,
            all,
            pairs,
            module,
            method,
            format,
            dot,
            overwrite,
            no_exception_edges,
        } => analyze::run(&analyze::Request {
            classpath,
            target: analyze::Target::from_options(class, caller, callee, all, module, pairs)?,
            method,
            json: format == Format::Json,
            dot,
            overwrite,
            no_exception_edges,
        }),
        Command::Run {
            classpath,
            tests,
            instrument,
            workers,
            timeout,
            loop_limit,
            jvm_options,
            observe,
            no_sandbox,
            format,
        } => run::run(&run::Request {
            classpath,
            tests,
            instrument,
            workers,
            timeout_ms: timeout,
            loop_limit,
            jvm_options,
            observe,
            no_sandbox,
            json: format == Format::Json,
        }),
        Command::Generate(request) => generate::run(&request, &algorithms()),
        Command::Integration(request) => integration::run(&request, &algorithms()),
        Command::Record(request) => record::run(&request),
        Command::Carve(request) => carve::run(&request),
        Command::Merge { reports, out } => generate::merge_reports(&reports, out.as_deref()),
        Command::Roundtrip { classpath, format } => {
            let cp = ClassPath::parse(&classpath)
                .with_context(|| format!("cannot open class path {classpath:?}"))?;
            let mut all_ok = true;
            let mut results = Vec::new();
            for e in cp.entries() {
                let start = Instant::now();
                let r = check::round_trip(e)?;
                all_ok &= r.read == r.files && r.identical == r.read && r.code_identical == r.read;
                if format == Format::Text {
                    out!(
                        "{}: {} class files, {} read, {} identical, {} with identical code ({:.1} MB in {:.2} s)",
                        r.entry,
                        r.files,
                        r.read,
                        r.identical,
                        r.code_identical,
                        r.bytes as f64 / 1e6,
                        start.elapsed().as_secs_f64()
                    );
                    for (f, err) in &r.errors {
                        out!("  unreadable: {f}: {err}");
                    }
                    for f in &r.different {
                        out!("  different: {f}");
                    }
                }
                results.push(r);
            }
            if format == Format::Json {
                out!("{}", serde_json::to_string_pretty(&results)?);
            }
            if !all_ok {
                bail!("round trip was not byte-identical for every class file");
            }
            Ok(ExitCode::SUCCESS)
        }
    }
}
