//! Summarises the JSON lines of `search-bench` runs (the search experiment) as
//! Markdown tables for BENCHMARKS.md:
//!
//! 1. median branch coverage per class and algorithm (with the number of runs);
//! 2. the whole-suite paper's comparison, whole-suite against single-target, per class:
//!    medians, Vargha–Delaney Â12 and the two-sided Mann–Whitney p-value; where Â12 of the
//!    coverage is 0.5 (neither covers more more often: all runs equal, on easy classes) and the
//!    runs minimised their suites, the paper's second question: the sizes of the suites
//!    (statements), compared the same way;
//! 3. each variant of an algorithm (a run with a non-default parameter, e.g.
//!    `search-bench --observed-share 0`, labelled `dynamosa (observed-share=0)`) against the
//!    algorithm itself, the same way;
//! 4. per algorithm: median statements executed per second and median share of wall time spent
//!    outside the execution host;
//! 5. per class, that share for each algorithm beside the time a statement of the class takes
//!    in the JVM (the workers' busy time over the statements executed; median over the class's
//!    runs), classes ordered by it: the share outside the JVM is the search's own work per
//!    statement against the JVM's, so it is high where statements are cheap.
//!
//! Usage: `search-stats [--compare A:B]... RESULTS.jsonl...` (`--compare mio:whole-suite`
//! compares two algorithms as in table 2; the default is whole-suite against single-target
//! when both ran; algorithms are listed in the registry's order, as `search-bench
//! --list-algorithms` gives it, then any other name in the order first seen) (lines that are not JSON objects are ignored, so the
//! raw output of `search-bench` can be given as is). The runs must share one budget, one set of
//! criteria and minimisation or not: results of different experiments are refused rather than
//! mixed (lines from before `search-bench` recorded these are taken as part of the experiment
//! the others describe).
#![allow(clippy::cast_precision_loss)]

use std::collections::BTreeMap;

use ferrosuite_benches::stats::{a12, mann_whitney_p, median};
use serde_json::Value;

/// Appends formatted text to the report (a `String`: writing to it cannot fail).
macro_rules! put {
    ($o:expr, $($t:tt)*) => {{
        use std::fmt::Write as _;
        let _ = write!($o, $($t)*);
    }};
}

/// [`put!`] with a line end.
macro_rules! say {
    ($o:expr) => {
        $o.push('\n')
    };
    ($o:expr, $($t:tt)*) => {{
        use std::fmt::Write as _;
        let _ = writeln!($o, $($t)*);
    }};
}

/// One run's figures.
struct Run {
    class: String,
    algorithm: String,
    seed: u64,
    coverage: f64,
    sps: f64,
    outside: f64,
    /// Microseconds the workers were busy per statement executed.
    jvm_micros: f64,
    /// Statements of the minimised suite (`None` when the run did not minimise).
    size: Option<f64>,
}

/// What a run was given: its budget, criteria and whether it minimised, as the JSON line
/// records them; `None` for a line from before `search-bench` recorded them (such lines are
/// taken as part of whatever experiment the others describe).
fn setting(v: &Value) -> Option<String> {
    let budget = match (&v["budget"]["seconds"], &v["budget"]["statements"]) {
        (Value::Number(s), _) => format!("{s} s"),
        (_, Value::Number(n)) => format!("{n} statements executed"),
        _ if v["budget"]["evaluations"].is_number() => {
            format!("{} fitness evaluations", v["budget"]["evaluations"])
        }
        _ => return None,
    };
    let criteria = v["criteria"].as_str().unwrap_or("not recorded");
    let minimised = if v["minimised"].as_bool().unwrap_or_default() {
        "minimised suites"
    } else {
        "suites not minimised"
    };
    Some(format!("budget {budget}; criteria {criteria}; {minimised}"))
}

fn read(paths: &[String]) -> (Vec<Run>, String) {
    let mut runs: BTreeMap<(String, String, u64), Run> = BTreeMap::new();
    let mut settings: Vec<String> = Vec::new();
    for p in paths {
        let text = match std::fs::read_to_string(p) {
            Ok(t) => t,
            Err(e) => {
                eprintln!("search-stats: cannot read {p}: {e}");
                std::process::exit(1);
            }
        };
        for line in text.lines().filter(|l| l.starts_with('{')) {
            let Ok(v) = serde_json::from_str::<Value>(line) else {
                eprintln!("{p}: skipped a line that is not JSON: {line}");
                continue;
            };
            let s = |k: &str| v[k].as_str().unwrap_or_default().to_string();
            let f = |k: &str| v[k].as_f64().unwrap_or(f64::NAN);
            // A run with a non-default parameter (`"variant"`) counts as its own algorithm.
            let algorithm = match v["variant"].as_str() {
                Some(variant) => format!("{} ({variant})", s("algorithm")),
                None => s("algorithm"),
            };
            if let Some(here) = setting(&v) {
                if !settings.contains(&here) {
                    settings.push(here);
                }
            }
            let run = Run {
                class: s("class"),
                algorithm,
                seed: v["seed"].as_u64().unwrap_or_default(),
                coverage: f("branch_coverage"),
                sps: f("statements_per_second"),
                outside: f("outside_host"),
                jvm_micros: f("workers_busy") * f("seconds") * 1e6 / f("statements_executed"),
                size: v["minimised"]
                    .as_bool()
                    .unwrap_or_default()
                    .then(|| v["suite_statements"].as_f64())
                    .flatten(),
            };
            // A rerun of the same class, algorithm and seed replaces the earlier one.
            runs.insert((run.class.clone(), run.algorithm.clone(), run.seed), run);
        }
    }
    if settings.len() > 1 {
        eprintln!(
            "search-stats: the runs come from different experiments ({}); give the files of one",
            settings.join(" / ")
        );
        std::process::exit(1);
    }
    let setting = settings.pop().unwrap_or_else(|| {
        "budget, criteria and minimisation not recorded: lines from before search-bench recorded them"
            .to_string()
    });
    (runs.into_values().collect(), setting)
}

fn short(class: &str) -> &str {
    class.rsplit('/').next().unwrap_or(class)
}

fn pct(x: Option<f64>) -> String {
    x.map_or_else(|| "–".to_string(), |v| format!("{:.1}", 100.0 * v))
}

fn main() {
    let mut paths: Vec<String> = Vec::new();
    let mut pairs: Vec<(String, String)> = Vec::new();
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        if a == "--compare" {
            let pair = args.next().and_then(|v| {
                v.split_once(':')
                    .map(|(x, y)| (x.to_string(), y.to_string()))
            });
            let Some(pair) = pair else {
                eprintln!("search-stats: --compare takes A:B (two algorithm names)");
                std::process::exit(2);
            };
            pairs.push(pair);
        } else {
            paths.push(a);
        }
    }
    if paths.is_empty() {
        eprintln!("usage: search-stats [--compare A:B]... RESULTS.jsonl...");
        std::process::exit(2);
    }
    let (runs, setting) = read(&paths);
    // The report is written at once at the end: a reader that stops early (`| head`) ends
    // the output, not the program with a panic.
    let mut out = String::new();
    say!(out, "Runs: {} ({setting}).\n", runs.len());
    let mut algorithms: Vec<String> = Vec::new();
    for a in ferrosuite_generate::algorithms().names() {
        if runs.iter().any(|r| r.algorithm == a) {
            algorithms.push(a.to_string());
        }
    }
    for r in &runs {
        if !algorithms.contains(&r.algorithm) {
            algorithms.push(r.algorithm.clone());
        }
    }
    let mut classes: Vec<String> = runs.iter().map(|r| r.class.clone()).collect();
    classes.sort();
    classes.dedup();
    let values = |class: &str, algorithm: &str, f: &dyn Fn(&Run) -> f64| -> Vec<f64> {
        runs.iter()
            .filter(|r| r.class == class && r.algorithm == algorithm)
            .map(f)
            .collect()
    };

    say!(
        out,
        "Median branch coverage (%, by ferrosuite's probes) over the runs of each cell:\n"
    );
    put!(out, "| class |");
    for a in &algorithms {
        put!(out, " {a} |");
    }
    say!(out, " runs |");
    put!(out, "|---|");
    for _ in &algorithms {
        put!(out, "---:|");
    }
    say!(out, "---:|");
    let mut per_algorithm: BTreeMap<&str, Vec<f64>> = BTreeMap::new();
    for c in &classes {
        put!(out, "| {} |", short(c));
        let mut n = 0;
        for a in &algorithms {
            let v = values(c, a, &|r| r.coverage);
            n = n.max(v.len());
            let m = median(&v);
            if let Some(m) = m {
                per_algorithm.entry(a).or_default().push(m);
            }
            put!(out, " {} |", pct(m));
        }
        say!(out, " {n} |");
    }
    put!(out, "| **median over classes** |");
    for a in &algorithms {
        put!(
            out,
            " **{}** |",
            pct(per_algorithm.get(a.as_str()).and_then(|v| median(v)))
        );
    }
    say!(out, " |\n");

    if pairs.is_empty() {
        pairs.push(("whole-suite".into(), "single-target".into()));
    }
    for (x, y) in &pairs {
        if algorithms.contains(x) && algorithms.contains(y) {
            compare(&mut out, &runs, &classes, x, y);
        } else {
            say!(out, "(No runs of both {x} and {y} to compare.)\n");
        }
    }
    // A variant of an algorithm (`search-bench --observed-share`) against the algorithm itself.
    for a in &algorithms {
        if let Some((base, _)) = a.split_once(" (") {
            if algorithms.iter().any(|b| b == base) {
                compare(&mut out, &runs, &classes, base, a);
            }
        }
    }

    say!(out, "Throughput per algorithm (medians over all runs):\n");
    say!(
        out,
        "| algorithm | runs | statements executed / s | outside the host |"
    );
    say!(out, "|---|---:|---:|---:|");
    for a in &algorithms {
        let rs: Vec<&Run> = runs.iter().filter(|r| &r.algorithm == a).collect();
        let sps: Vec<f64> = rs.iter().map(|r| r.sps).collect();
        let outside: Vec<f64> = rs.iter().map(|r| r.outside).collect();
        say!(
            out,
            "| {a} | {} | {:.0} | {} % |",
            rs.len(),
            median(&sps).unwrap_or(f64::NAN),
            pct(median(&outside))
        );
    }
    shares(&mut out, &runs, &classes, &algorithms);
    let mut stdout = std::io::stdout().lock();
    if let Err(e) = std::io::Write::write_all(&mut stdout, out.as_bytes())
        .and_then(|()| std::io::Write::flush(&mut stdout))
    {
        if e.kind() != std::io::ErrorKind::BrokenPipe {
            eprintln!("search-stats: cannot write the report: {e}");
            std::process::exit(1);
        }
    }
}

/// Table 5: per class, the share of wall time outside the host for each algorithm, with the
/// time a statement takes in the JVM; classes by that time, cheapest first.
fn shares(out: &mut String, runs: &[Run], classes: &[String], algorithms: &[String]) {
    let of = |class: &str, algorithm: Option<&str>, f: fn(&Run) -> f64| -> Option<f64> {
        let v: Vec<f64> = runs
            .iter()
            .filter(|r| r.class == class && algorithm.is_none_or(|a| r.algorithm == a))
            .map(f)
            .filter(|x| x.is_finite())
            .collect();
        median(&v)
    };
    let mut rows: Vec<(f64, &String)> = classes
        .iter()
        .map(|c| (of(c, None, |r| r.jvm_micros).unwrap_or(f64::NAN), c))
        .collect();
    rows.sort_by(|a, b| a.0.total_cmp(&b.0));
    say!(
        out,
        "\nShare of wall time outside the host per class (medians over the runs of each cell), \
         classes by the time a statement takes in the JVM (median over all the class's runs):\n"
    );
    put!(out, "| class | µs in the JVM per statement |");
    for a in algorithms {
        put!(out, " {a} |");
    }
    say!(out);
    put!(out, "|---|---:|");
    for _ in algorithms {
        put!(out, "---:|");
    }
    say!(out);
    let (mut under, mut cells) = (0, 0);
    for (micros, c) in rows {
        put!(out, "| {} | {micros:.2} |", short(c));
        for a in algorithms {
            let share = of(c, Some(a), |r| r.outside);
            if let Some(x) = share {
                cells += 1;
                if x < 0.2 {
                    under += 1;
                }
            }
            put!(out, " {} |", pct(share));
        }
        say!(out);
    }
    say!(out, "\nCells under 20 %: {under} of {cells}.");
}

/// Algorithm `a` against `b`, class by class: medians, Vargha–Delaney Â12 and the two-sided
/// Mann–Whitney p-value, then a count of significant differences.
fn compare(out: &mut String, runs: &[Run], classes: &[String], a: &str, b: &str) {
    let values = |class: &str, algorithm: &str| -> Vec<f64> {
        runs.iter()
            .filter(|r| r.class == class && r.algorithm == algorithm)
            .map(|r| r.coverage)
            .collect()
    };
    // Suite sizes, when every run of both cells minimised its suite.
    let sizes = |class: &str, algorithm: &str| -> Option<Vec<f64>> {
        runs.iter()
            .filter(|r| r.class == class && r.algorithm == algorithm)
            .map(|r| r.size)
            .collect()
    };
    let with_sizes = runs
        .iter()
        .filter(|r| r.algorithm == a || r.algorithm == b)
        .any(|r| r.size.is_some());
    say!(
        out,
        "{a} against {b} (Â12 > 0.5: {a} covers more; p: two-sided Mann–Whitney U):\n"
    );
    if with_sizes {
        say!(
            out,
            "Where Â12 of the coverage is 0.5 (neither covers more more often), the sizes of the \
             minimised suites (statements; size Â12 < 0.5: {a}'s suites are smaller).\n"
        );
        say!(
            out,
            "| class | {a} | {b} | Â12 | p | size {a} | size {b} | size Â12 | size p |"
        );
        say!(out, "|---|---:|---:|---:|---:|---:|---:|---:|---:|");
    } else {
        say!(out, "| class | {a} | {b} | Â12 | p |");
        say!(out, "|---|---:|---:|---:|---:|");
    }
    let (mut better, mut worse, mut sum, mut count) = (0, 0, 0.0, 0);
    let (mut smaller, mut larger, mut same_coverage) = (0, 0, 0);
    for c in classes {
        let first = values(c, a);
        let second = values(c, b);
        if first.is_empty() || second.is_empty() {
            continue;
        }
        let (e, p) = (a12(&first, &second), mann_whitney_p(&first, &second));
        sum += e;
        count += 1;
        if p < 0.05 && e > 0.5 {
            better += 1;
        } else if p < 0.05 && e < 0.5 {
            worse += 1;
        }
        let mark = if p < 0.05 { " *" } else { "" };
        put!(
            out,
            "| {} | {} | {} | {e:.2} | {p:.3}{mark} |",
            short(c),
            pct(median(&first)),
            pct(median(&second))
        );
        if with_sizes {
            // Â12 is exactly 0.5 when the two samples tie as often as not (e.g. all 100 %).
            if let (true, Some(size_a), Some(size_b)) =
                ((e - 0.5).abs() < 1e-9, sizes(c, a), sizes(c, b))
            {
                let (se, sp) = (a12(&size_a, &size_b), mann_whitney_p(&size_a, &size_b));
                same_coverage += 1;
                if sp < 0.05 && se < 0.5 {
                    smaller += 1;
                } else if sp < 0.05 && se > 0.5 {
                    larger += 1;
                }
                let mark = if sp < 0.05 { " *" } else { "" };
                put!(
                    out,
                    " {:.0} | {:.0} | {se:.2} | {sp:.3}{mark} |",
                    median(&size_a).unwrap_or(f64::NAN),
                    median(&size_b).unwrap_or(f64::NAN)
                );
            } else {
                put!(out, " – | – | – | – |");
            }
        }
        say!(out);
    }
    if count > 0 {
        say!(
            out,
            "\n{count} classes: mean Â12 {:.2}; {a} significantly better (p < 0.05) on {better}, worse on {worse}, no significant difference on {}.\n",
            sum / f64::from(count),
            count - better - worse
        );
        if with_sizes && same_coverage > 0 {
            say!(
                out,
                "Sizes, on the {same_coverage} classes with Â12 = 0.5: {a}'s suites significantly smaller on {smaller}, larger on {larger}, no significant difference on {}.\n",
                same_coverage - smaller - larger
            );
        }
    }
}
