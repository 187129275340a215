//! Whole-suite fitness: a population of suites scored from their tests' traces, three ways —
//! the merged reference ([`GoalSet::suite_fitness`], which merges the traces and looks every
//! goal up), [`SuiteScorer::score`] (compiles the traces on every call) and
//! [`SuiteScorer::score_compiled`] (each test's trace compiled once, as the whole-suite GA does:
//! a test is scored in many suites) — and, as the whole-suite GA scores suites of at least 16
//! tests, [`SuiteScorer::score_compiled`] over each suite's blocks of 8 tests merged once
//! ([`SuiteScorer::merge`], timed on its own as `merge_block`).
//!
//! The goal sets are real classes' (commons-lang3's `Fraction` and `StringUtils`, instrumented
//! offline as the host instruments them); the traces are synthetic but shaped like the search's:
//! a test enters a few methods, evaluates each of their predicates a few times (taken outcomes
//! hit, the others with a distance), hits a run of lines, returns normally from some of the
//! methods it called, and one test in eight throws an exception out of one. A population is 50
//! suites of 10–40 tests drawn (with repeats) from 400 traces.
//!
//! Run: `cargo bench -p ferrosuite-benches --bench fitness` (single-threaded; set
//! `FERROSUITE_BENCH_LANG3` for another commons-lang3 jar).

use std::hint::black_box;

use criterion::{Criterion as Bench, Throughput, criterion_group, criterion_main};
use ferrosuite_bytecode::ClassFile;
use ferrosuite_bytecode::classpath::ClassPath;
use ferrosuite_bytecode::instrument::probes::ProbeConfig;
use ferrosuite_cfg::Analyzer;
use ferrosuite_fitness::{GoalSet, SuiteScorer, Target, Trace, names};
use rand_chacha::ChaCha8Rng;
use rand_chacha::rand_core::{Rng, SeedableRng};

/// `0..n` at random (`n` > 0).
fn below(rng: &mut ChaCha8Rng, n: usize) -> usize {
    (rng.next_u64() % n as u64) as usize
}

/// The goal set of `class` (binary name) in `jar`, with the default criteria.
fn goals(jar: &str, class: &str) -> Option<GoalSet> {
    let cp = ClassPath::parse(&format!("{jar}:jrt")).ok()?;
    let internal = class.replace('.', "/");
    let (map, _) =
        ferrosuite_exec::host::instrument(&cp, &[class.to_string()], &ProbeConfig::default())
            .ok()?;
    let analysis = Analyzer::new(&cp, ferrosuite_cfg::Config::default())
        .class(&internal)
        .ok()?;
    let file = cp
        .find_bytes(&internal)
        .ok()
        .flatten()
        .and_then(|(_, b)| ClassFile::parse(&b).ok());
    GoalSet::for_class(
        &map,
        ferrosuite_fitness::Config::default(),
        &analysis,
        file.as_ref(),
    )
    .ok()
}

/// A synthetic test's trace over `goals` (see the module docs).
fn trace(goals: &GoalSet, rng: &mut ChaCha8Rng) -> Trace {
    let mut t = Trace::new();
    let methods = goals.methods();
    if methods.is_empty() {
        return t;
    }
    let entered: Vec<usize> = (0..=below(rng, 4))
        .map(|_| below(rng, methods.len()))
        .collect();
    for &m in &entered {
        let method = &methods[m];
        t.add_method(method.probe);
        t.add_call((method.class, method.id), below(rng, 4) != 0);
        if below(rng, 8) == 0 {
            let exception = [
                "java.lang.IllegalArgumentException",
                "java.lang.ArithmeticException",
            ][below(rng, 2)];
            t.add_exception((method.class, method.id), exception);
        }
        for p in goals
            .predicates()
            .iter()
            .filter(|p| p.class == method.class && p.method == method.id)
        {
            if p.slots.is_empty() || below(rng, 5) == 0 {
                continue;
            }
            let mut hits = vec![0u32; p.slots.len()];
            for _ in 0..=below(rng, 3) {
                hits[below(rng, p.slots.len())] += 1;
            }
            for (slot, h) in p.slots.iter().zip(hits) {
                let distance = if h > 0 {
                    0.0
                } else {
                    1.0 + below(rng, 100) as f64
                };
                t.add_branch(*slot, h, distance);
            }
        }
    }
    let lines: Vec<_> = goals
        .goals_of(names::LINE)
        .filter_map(|g| match g.target {
            Target::Line { probe, .. } => Some(probe),
            _ => None,
        })
        .collect();
    if !lines.is_empty() {
        let start = below(rng, lines.len());
        for &l in lines.iter().skip(start).take(5 + below(rng, 40)) {
            if below(rng, 4) != 0 {
                t.add_line(l);
            }
        }
    }
    t
}

fn bench(c: &mut Bench) {
    let jar = std::env::var("FERROSUITE_BENCH_LANG3")
        .unwrap_or_else(|_| "/usr/share/java/commons-lang3.jar".into());
    for class in [
        "org.apache.commons.lang3.math.Fraction",
        "org.apache.commons.lang3.StringUtils",
    ] {
        let Some(goals) = goals(&jar, class) else {
            eprintln!("skipping the fitness benchmark of {class}: cannot analyse it in {jar}");
            continue;
        };
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        let pool: Vec<Trace> = (0..400).map(|_| trace(&goals, &mut rng)).collect();
        let suites: Vec<Vec<usize>> = (0..50)
            .map(|_| {
                (0..10 + below(&mut rng, 31))
                    .map(|_| below(&mut rng, pool.len()))
                    .collect()
            })
            .collect();
        let mut scorer = SuiteScorer::new(&goals);
        let compiled: Vec<_> = pool.iter().map(|t| scorer.compile(t)).collect();
        // The three agree exactly (the property tests check this on small goal sets; here on
        // a real one).
        for s in &suites {
            let reference = goals.suite_fitness(&s.iter().map(|&i| &pool[i]).collect::<Vec<_>>());
            let compiling = scorer.score(&goals, s.iter().map(|&i| &pool[i]));
            let fast = scorer.score_compiled(&goals, s.iter().map(|&i| &compiled[i]));
            assert_eq!(
                reference, compiling,
                "{class}: score differs from the reference"
            );
            assert_eq!(
                reference, fast,
                "{class}: score_compiled differs from the reference"
            );
        }
        let blocks: Vec<Vec<_>> = suites
            .iter()
            .map(|s| {
                s.chunks(8)
                    .map(|b| scorer.merge(b.iter().map(|&i| &compiled[i])))
                    .collect()
            })
            .collect();
        for (s, b) in suites.iter().zip(&blocks) {
            let reference = goals.suite_fitness(&s.iter().map(|&i| &pool[i]).collect::<Vec<_>>());
            assert_eq!(
                reference,
                scorer.score_compiled(&goals, b),
                "{class}: merged blocks differ from the reference"
            );
        }
        let name = class.rsplit('.').next().unwrap_or(class);
        eprintln!(
            "{name}: {} goals, {} predicates; traces of {:.0} branch entries and {:.0} lines on average",
            goals.goals().len(),
            goals.predicates().len(),
            pool.iter().map(|t| t.branches().len()).sum::<usize>() as f64 / pool.len() as f64,
            pool.iter().map(|t| t.lines().len()).sum::<usize>() as f64 / pool.len() as f64,
        );
        let mut g = c.benchmark_group(format!("suite_fitness/{name}"));
        g.sample_size(20);
        g.throughput(Throughput::Elements(suites.len() as u64));
        g.bench_function("merged_reference", |b| {
            b.iter(|| {
                for s in &suites {
                    let traces: Vec<&Trace> = s.iter().map(|&i| &pool[i]).collect();
                    black_box(goals.suite_fitness(&traces));
                }
            });
        });
        g.bench_function("score", |b| {
            b.iter(|| {
                for s in &suites {
                    black_box(scorer.score(&goals, s.iter().map(|&i| &pool[i])));
                }
            });
        });
        g.bench_function("score_compiled", |b| {
            b.iter(|| {
                for s in &suites {
                    black_box(scorer.score_compiled(&goals, s.iter().map(|&i| &compiled[i])));
                }
            });
        });
        g.bench_function("score_compiled_blocks", |b| {
            b.iter(|| {
                for s in &blocks {
                    black_box(scorer.score_compiled(&goals, s));
                }
            });
        });
        g.bench_function("merge_block", |b| {
            b.iter(|| {
                for s in &suites {
                    black_box(scorer.merge(s[..8].iter().map(|&i| &compiled[i])));
                }
            });
        });
        g.finish();
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
