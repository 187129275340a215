//! Scripted benchmark of the search (results go into BENCHMARKS.md).
//!
//! For each class, algorithm and seed: one search under a wall-time budget (or a statement
//! budget), then a line with the branch goals covered (by ferrosuite's probes), all goals
//! covered, tests and statements of the minimised suite, statements executed per second, and
//! where the time went: the share of wall time the workers spent running tests (summed over
//! workers, divided by the workers), the share of wall time the host had no test to run
//! ("outside the host": search, fitness, bookkeeping; meaningful when the search and the
//! worker each have a core) and the master's share of the CPU time the master and its
//! workers used (from `/proc`, over the whole search, minimisation included; unknown when a
//! worker was replaced during the run). A JSON line
//! per run follows the text line; it also gives the CPU seconds of the master (all threads),
//! of the workers and of the search's own thread (which, unlike wall-time shares, hardly
//! move with the machine's noise: the figure to compare builds by).
//!
//! Usage: `search-bench --cp CP [--class C]... [--algorithm A]... [--seeds N] [--first-seed K]
//! [--seconds S | --statements N] [--workers W] [--timeout-ms T] [--observed-share P]
//! [--stream-chunk N] [--stream-ahead N] [--score-ahead MODE] [--population N] [--criteria LIST]
//! [--no-minimise]`, or `search-bench --list-algorithms` (the registry's names, as
//! `--algorithm` takes them; the default is every one of them)
//! (seeds K..K+N, K = 0 by default; needs `ferrosuite-worker` built:
//! `cargo build --release -p ferrosuite-exec`). `--observed-share P` sets how often a seed
//! comes from the values observed at run time (0: never, the pool switched off); such runs
//! carry a `variant` in their JSON line, and so do runs with `--stream-chunk N` (tests handed
//! to the host at once while the search builds the next; 0: whole generations, no overlap)
//! and `--stream-ahead N` (chunks out at a time, built but not taken in), `--score-ahead MODE`
//! (`off`, `while-waiting`, `always`: what the whole-suite GA does while it waits for results;
//! the same search, the JSON line counts the offspring `scored_ahead` and `prepared_ahead`), and
//! `--population N` (the suites of the whole-suite GA, the tests of MOSA and DynaMOSA).
//! `--criteria LIST` sets the coverage criteria the search optimises (comma-separated, as
//! `ferrosuite generate --criteria`; default branch, line, method, exception): with `branch`
//! alone both the fitness and the single-target baseline's goals are the whole-suite paper's.
//! The JSON line names the criteria, the budget and the statements of the (minimised) suite.
//! `--no-minimise` reports the archive's tests as found (the coverage is the same; a run
//! saves the time minimisation takes after the search, up to a quarter of a time budget).
//! Classes are internal or binary names. `benches/scripts/search-experiment.sh` runs the
//! comparison experiment with it, and `search-stats` summarises the JSON lines.
// A measurement script: a bad argument or a failed start ends it with a message.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::cast_precision_loss
)]

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

/// The allocator the CLI uses (see the workspace's `Cargo.toml`).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

use ferrosuite_bytecode::classpath::ClassPath;
use ferrosuite_cfg::Analyzer;
use ferrosuite_exec::{Host, HostConfig, WorkerProgram};
use ferrosuite_fitness::{Criteria, GoalSet, names};
use ferrosuite_search::engine::{
    Algorithm, Budget, EngineConfig, Evaluator, Quiet, ScoreAhead, search,
};
use ferrosuite_search::{Config, Factory};
use ferrosuite_testcase::cluster::{ClusterConfig, TestCluster};
use ferrosuite_testcase::constants::harvest_nested;
use rand_chacha::ChaCha8Rng;
use rand_chacha::rand_core::SeedableRng;

struct Args {
    cp: String,
    classes: Vec<String>,
    algorithms: Vec<Arc<dyn Algorithm>>,
    seeds: u64,
    first_seed: u64,
    budget: Budget,
    workers: usize,
    timeout: Duration,
    observed_share: Option<f64>,
    stream_chunk: Option<usize>,
    stream_ahead: Option<usize>,
    score_ahead: Option<ScoreAhead>,
    population: Option<usize>,
    criteria: Criteria,
    minimise: bool,
}

/// The search's configuration: the defaults, with `--observed-share` if given.
fn search_config(a: &Args) -> Config {
    let mut c = Config::default();
    if let Some(s) = a.observed_share {
        c.observed_share = s;
        if s <= 0.0 {
            // The factory falls back to the pool for a kind without constants: an empty
            // pool makes 0 mean "constants only".
            c.observed_pool_capacity = 0;
        }
    }
    c
}

/// CPU seconds (user and system, all threads) of this process and of the workers, from
/// `/proc/<pid>/stat` (in clock ticks: 10 ms resolution at 100 Hz).
struct CpuTimes {
    master: Option<f64>,
    workers: Vec<(u32, f64)>,
}

impl CpuTimes {
    /// CPU seconds of the master (all its threads) and of the workers since `before`; the
    /// master's share of their sum is, on one core, the share of the time spent outside the
    /// worker processes (search, fitness, the master's side of the protocol). `None` without
    /// `/proc`, and when a worker was replaced meanwhile (the CPU time of the one it replaced
    /// is gone). It covers the whole `search` call, minimisation included: with
    /// `--no-minimise` it spans the same time as the other figures.
    fn seconds_since(&self, before: &CpuTimes) -> Option<(f64, f64)> {
        let master = self.master? - before.master?;
        if self.workers.len() != before.workers.len() {
            return None;
        }
        let mut workers = 0.0;
        for (pid, t) in &self.workers {
            workers += t - before.workers.iter().find(|w| w.0 == *pid)?.1;
        }
        Some((master, workers))
    }
}

/// CPU seconds of `/proc/<pid>/stat` (`pid` may be `self` or `thread-self`).
fn cpu_seconds(pid: &str) -> Option<f64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // Fields after the command name (which may hold spaces): state, then utime and stime at
    // positions 11 and 12.
    let rest = &stat[stat.rfind(')')? + 1..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let ticks: u64 = fields.get(11)?.parse::<u64>().ok()? + fields.get(12)?.parse::<u64>().ok()?;
    #[allow(clippy::cast_precision_loss)]
    Some(ticks as f64 / rustix::param::clock_ticks_per_second() as f64)
}

fn cpu_times(workers: &[u32]) -> CpuTimes {
    CpuTimes {
        master: cpu_seconds("self"),
        workers: workers
            .iter()
            .filter_map(|p| cpu_seconds(&p.to_string()).map(|t| (*p, t)))
            .collect(),
    }
}

const USAGE: &str = "usage: search-bench --cp CP [--class C]... [--algorithm A]... [--seeds N] \
[--first-seed K] [--seconds S | --statements N] [--workers W] [--timeout-ms T] \
[--observed-share P] [--stream-chunk N] [--stream-ahead N] [--score-ahead off|while-waiting|always] \
[--population N] [--criteria LIST] [--no-minimise] | --list-algorithms";

/// `v`, the value of `flag`, as a `T`.
fn value<T: std::str::FromStr>(flag: &str, v: &str) -> Result<T, String>
where
    T::Err: std::fmt::Display,
{
    v.parse().map_err(|e| format!("{flag} {v:?}: {e}"))
}

/// The command line, or what is wrong with it.
fn args() -> Result<Args, String> {
    let mut a = Args {
        cp: String::new(),
        classes: Vec::new(),
        algorithms: Vec::new(),
        seeds: 1,
        first_seed: 0,
        budget: Budget::time(Duration::from_secs(10)),
        workers: 1,
        timeout: Duration::from_secs(3),
        observed_share: None,
        stream_chunk: None,
        stream_ahead: None,
        score_ahead: None,
        population: None,
        criteria: Criteria::default(),
        minimise: true,
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        if flag == "--help" || flag == "-h" {
            println!("{USAGE}");
            std::process::exit(0);
        }
        if flag == "--list-algorithms" {
            println!("{}", ferrosuite_generate::algorithms().names().join(" "));
            std::process::exit(0);
        }
        if flag == "--no-minimise" {
            a.minimise = false;
            continue;
        }
        let v = it.next().ok_or_else(|| format!("{flag} needs a value"))?;
        match flag.as_str() {
            "--cp" => a.cp = v,
            "--class" => a.classes.push(v.replace('.', "/")),
            "--algorithm" => a.algorithms.push(
                ferrosuite_generate::algorithms()
                    .get(&v)
                    .map_err(|e| format!("{flag} {v:?}: {e}"))?,
            ),
            "--seeds" => a.seeds = value(&flag, &v)?,
            "--first-seed" => a.first_seed = value(&flag, &v)?,
            "--seconds" => {
                let t = Duration::try_from_secs_f64(value(&flag, &v)?)
                    .map_err(|e| format!("{flag} {v:?}: {e}"))?;
                a.budget = Budget::time(t);
            }
            "--statements" => a.budget = Budget::statements(value(&flag, &v)?),
            "--workers" => a.workers = value(&flag, &v)?,
            "--timeout-ms" => a.timeout = Duration::from_millis(value(&flag, &v)?),
            "--observed-share" => a.observed_share = Some(value(&flag, &v)?),
            "--stream-chunk" => a.stream_chunk = Some(value(&flag, &v)?),
            "--stream-ahead" => a.stream_ahead = Some(value(&flag, &v)?),
            "--score-ahead" => a.score_ahead = Some(value(&flag, &v)?),
            "--population" => a.population = Some(value(&flag, &v)?),
            "--criteria" => {
                a.criteria = ferrosuite_generate::criteria()
                    .parse(&v)
                    .map_err(|e| format!("{flag} {v:?}: {e}"))?;
                // The figures are branch coverage: without branch goals there would be none.
                if !a.criteria.contains(names::BRANCH) {
                    return Err(format!(
                        "--criteria {v:?}: the figures are branch coverage, so branch must be among them"
                    ));
                }
            }
            _ => return Err(format!("unknown flag {flag}")),
        }
    }
    if a.algorithms.is_empty() {
        a.algorithms = ferrosuite_generate::algorithms().iter().cloned().collect();
    }
    Ok(a)
}

/// The budget as a JSON object: `{"seconds": S}`, `{"statements": N}` or `{"evaluations": N}`
/// (each limit that is set).
fn budget_json(b: &Budget) -> serde_json::Value {
    let mut v = serde_json::json!({});
    if let Some(t) = b.time {
        v["seconds"] = serde_json::json!(t.as_secs_f64());
    }
    if let Some(s) = b.statements {
        v["statements"] = serde_json::json!(s);
    }
    if let Some(e) = b.evaluations {
        v["evaluations"] = serde_json::json!(e);
    }
    v
}

fn main() -> ExitCode {
    let a = match args() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("search-bench: {e}\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    let cp = match ClassPath::parse(&format!("{}:jrt", a.cp)) {
        Ok(cp) => cp,
        Err(e) => {
            eprintln!("search-bench: --cp {:?}: {e}", a.cp);
            return ExitCode::from(2);
        }
    };
    let worker = match WorkerProgram::locate() {
        Ok(w) => w,
        Err(e) => {
            eprintln!("search-bench: {e}");
            return ExitCode::from(2);
        }
    };
    for class in &a.classes {
        let analysis = match Analyzer::new(&cp, ferrosuite_cfg::Config::default()).class(class) {
            Ok(x) => x,
            Err(e) => {
                println!("{class}: skipped: {e}");
                continue;
            }
        };
        let cluster = match TestCluster::build(&cp, class, &ClusterConfig::default()) {
            Ok(c) => c,
            Err(e) => {
                println!("{class}: skipped: {e}");
                continue;
            }
        };
        let constants = match harvest_nested(&cp, class) {
            Ok(c) => c,
            Err(e) => {
                println!("{class}: skipped: {e}");
                continue;
            }
        };
        for algorithm in &a.algorithms {
            let algorithm: &dyn Algorithm = &**algorithm;
            let name = algorithm.name();
            for seed in a.first_seed..a.first_seed + a.seeds {
                let host = Host::start(HostConfig {
                    classpath: a.cp.split(':').map(PathBuf::from).collect(),
                    instrument: vec![class.clone()],
                    workers: a.workers,
                    timeout: a.timeout,
                    worker: Some(worker.clone()),
                    ..HostConfig::default()
                });
                let mut host = match host {
                    Ok(h) => h,
                    Err(e) => {
                        println!("{class}: skipped: {e}");
                        break;
                    }
                };
                let goals = GoalSet::for_class(
                    host.map(),
                    ferrosuite_fitness::Config {
                        criteria: a.criteria.clone(),
                        ..ferrosuite_fitness::Config::default()
                    },
                    &analysis,
                    cp.load(class).ok().as_deref(),
                );
                let goals = match goals {
                    Ok(g) => g,
                    Err(e) => {
                        println!("{class}: skipped: {e}");
                        break;
                    }
                };
                let mut factory = match Factory::new(&cluster, constants.clone(), search_config(&a))
                {
                    Ok(f) => f,
                    Err(e) => {
                        println!("{class}: skipped: {e}");
                        break;
                    }
                };
                let worker_pids = host.worker_pids();
                let mut eval = Evaluator::new(&mut host, goals, a.budget);
                let mut rng = ChaCha8Rng::seed_from_u64(seed);
                let defaults = EngineConfig::default();
                let config = EngineConfig {
                    stream_chunk: a.stream_chunk.unwrap_or(defaults.stream_chunk),
                    stream_ahead: a.stream_ahead.unwrap_or(defaults.stream_ahead),
                    score_ahead: a.score_ahead.unwrap_or(defaults.score_ahead),
                    population: a.population.unwrap_or(defaults.population),
                    test_population: a.population.unwrap_or(defaults.test_population),
                    minimise: a.minimise,
                    ..defaults
                };
                let cpu_before = cpu_times(&worker_pids);
                // The search runs on this thread (the host's threads are its own).
                let thread_before = cpu_seconds("thread-self");
                let r = match search(
                    algorithm,
                    &config,
                    &mut factory,
                    &mut eval,
                    &mut rng,
                    &mut Quiet,
                ) {
                    Ok(r) => r,
                    Err(e) => {
                        println!("{class} {name} seed {seed}: error: {e}");
                        continue;
                    }
                };
                eprintln!(
                    "  time: host {:.2} s, traces {:.2} s, suite fitness {:.2} s, total {:.2} s",
                    r.in_host.as_secs_f64(),
                    eval.in_traces().as_secs_f64(),
                    eval.in_fitness().as_secs_f64(),
                    r.elapsed.as_secs_f64()
                );
                let goals = eval.into_goals();
                let cpu_after = cpu_times(&host.worker_pids());
                let search_cpu = cpu_seconds("thread-self")
                    .zip(thread_before)
                    .map(|(a, b)| a - b);
                let cpu_seconds = cpu_after.seconds_since(&cpu_before);
                let cpu_share = cpu_seconds.and_then(|(master, workers)| {
                    (master + workers > 0.0).then(|| master / (master + workers))
                });
                let stats = host.stats();
                eprintln!(
                    "  host: {} tests, {} timeouts, {} crashes, {} retirements, {} restarts",
                    stats.tests, stats.timeouts, stats.crashes, stats.retirements, stats.restarts
                );
                let branch: Vec<_> = goals.goals_of(names::BRANCH).map(|g| g.id).collect();
                let covered_branches = branch.iter().filter(|g| r.covered.contains(g)).count();
                let secs = r.elapsed.as_secs_f64();
                #[allow(clippy::cast_precision_loss)]
                let (sps, jvm_share, outside, between) = (
                    r.usage.statements as f64 / secs,
                    r.usage.test_micros as f64 / 1e6 / (secs * a.workers as f64),
                    1.0 - (r.in_host.as_secs_f64() / secs).min(1.0),
                    1.0 - (r.in_calls.as_secs_f64() / secs).min(1.0),
                );
                #[allow(clippy::cast_precision_loss)]
                let branch_cov = if branch.is_empty() {
                    1.0
                } else {
                    covered_branches as f64 / branch.len() as f64
                };
                let suite_statements: usize =
                    r.tests.iter().map(ferrosuite_testcase::Test::len).sum();
                println!(
                    "{class} {name} seed {seed}: branches {covered_branches}/{} ({:.1} %), goals {}/{}, {} tests / {} statements, {} statements executed in {secs:.1} s ({sps:.0}/s, {} generations), workers busy {:.1} %, outside the host {:.1} % (between generations {:.1} %), master's CPU share {}",
                    branch.len(),
                    100.0 * branch_cov,
                    r.covered.len(),
                    r.goals,
                    r.tests.len(),
                    suite_statements,
                    r.usage.statements,
                    r.usage.generations,
                    100.0 * jvm_share,
                    100.0 * outside,
                    100.0 * between,
                    cpu_share.map_or("unknown".into(), |x| format!("{:.1} %", 100.0 * x)),
                );
                let mut line = serde_json::json!({
                    "class": class, "algorithm": name, "seed": seed,
                    "branches": branch.len(), "branches_covered": covered_branches,
                    "branch_coverage": branch_cov, "goals": r.goals,
                    "goals_covered": r.covered.len(), "tests": r.tests.len(),
                    "statements_executed": r.usage.statements, "seconds": secs,
                    "statements_per_second": sps, "workers_busy": jvm_share,
                    "outside_host": outside, "between_generations": between,
                    "generations": r.usage.generations,
                    "scored_ahead": r.usage.scored_ahead,
                    "prepared_ahead": r.usage.prepared_ahead,
                    "master_cpu_share": cpu_share,
                    "master_cpu_seconds": cpu_seconds.map(|c| c.0),
                    "workers_cpu_seconds": cpu_seconds.map(|c| c.1),
                    "search_thread_cpu_seconds": search_cpu,
                    "minimised": a.minimise, "suite_statements": suite_statements,
                    "criteria": a.criteria.to_string(), "budget": budget_json(&a.budget),
                });
                // search-stats treats a run with a variant as an algorithm of its own.
                let mut variant = Vec::new();
                if let Some(share) = a.observed_share {
                    variant.push(format!("observed-share={share}"));
                }
                if let Some(chunk) = a.stream_chunk {
                    variant.push(format!("stream-chunk={chunk}"));
                }
                if let Some(ahead) = a.stream_ahead {
                    variant.push(format!("stream-ahead={ahead}"));
                }
                if let Some(mode) = a.score_ahead {
                    variant.push(format!("score-ahead={}", mode.name()));
                }
                if let Some(n) = a.population {
                    variant.push(format!("population={n}"));
                }
                if !variant.is_empty() {
                    line["variant"] = serde_json::json!(variant.join(","));
                }
                println!("{line}");
            }
        }
    }
    ExitCode::SUCCESS
}
