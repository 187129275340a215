//! Analysis throughput: every method of a real jar (Debian's guava by default) through CFG
//! construction, dominator and post-dominator trees, control dependence, branches, goals and the
//! goal hierarchy; and the coupled branches of a caller/callee pair.
//!
//! Run: `cargo bench -p ferrosuite-benches --bench cfg` (single-threaded; set
//! `FERROSUITE_BENCH_JAR` for another jar). Goal: all of guava in under 2 s on one core.

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use ferrosuite_benches::{bench_classes, bench_jar};
use ferrosuite_bytecode::ClassFile;
use ferrosuite_bytecode::classpath::ClassPath;
use ferrosuite_cfg::{Analyzer, ClassAnalysis, Config, CoupledBranches};

fn bench(c: &mut Criterion) {
    let jar = bench_jar();
    let Some(classes) = bench_classes("cfg") else {
        return;
    };
    let parsed: Vec<ClassFile> = classes
        .iter()
        .filter_map(|(_, b)| ClassFile::parse(b).ok())
        .collect();
    let config = Config::default();
    let methods: usize = parsed
        .iter()
        .filter_map(|cf| ClassAnalysis::analyze(cf, &config).ok())
        .map(|a| a.methods.iter().filter(|m| m.body.is_some()).count())
        .sum();
    eprintln!(
        "{}: {} classes, {methods} methods with code",
        jar.display(),
        parsed.len()
    );

    let mut g = c.benchmark_group("cfg");
    g.sample_size(20);
    g.throughput(Throughput::Elements(methods as u64));
    g.bench_function("analyze_all_parsed", |b| {
        b.iter(|| {
            for cf in &parsed {
                black_box(ClassAnalysis::analyze(cf, &config).ok());
            }
        });
    });
    g.bench_function("parse_and_analyze_all", |b| {
        b.iter(|| {
            for (_, bytes) in &classes {
                black_box(
                    ClassFile::parse(bytes)
                        .ok()
                        .and_then(|cf| ClassAnalysis::analyze(&cf, &config).ok()),
                );
            }
        });
    });
    g.finish();

    // One real pair from the same jar (guava's Joiner calls Preconditions).
    if let Ok(cp) = ClassPath::parse(&jar.display().to_string()) {
        let mut g = c.benchmark_group("coupled");
        g.sample_size(20);
        g.bench_function("joiner_preconditions", |b| {
            b.iter(|| {
                let a = Analyzer::new(&cp, Config::default());
                black_box(
                    CoupledBranches::analyze(
                        &a,
                        "com.google.common.base.Joiner",
                        "com.google.common.base.Preconditions",
                    )
                    .ok(),
                );
            });
        });
        g.finish();
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
