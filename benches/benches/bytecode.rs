//! Parse, write and instrument throughput on a real jar (Debian's guava by default).
//!
//! Run: `cargo bench -p ferrosuite-benches --bench bytecode` (single-threaded; set
//! `FERROSUITE_BENCH_JAR` for another jar).

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use ferrosuite_benches::{bench_classes, bench_jar, load_classes};
use ferrosuite_bytecode::ClassFile;
use ferrosuite_bytecode::instrument::map::ProbeMap;
use ferrosuite_bytecode::instrument::probes::{Instrumenter, ProbeConfig};

/// Parses, instruments with all probes and writes every class; returns the probe map.
fn instrument_all(classes: &[(String, Vec<u8>)]) -> ProbeMap {
    let mut inst = Instrumenter::new(ProbeConfig::default());
    for (_, bytes) in classes {
        let out = ClassFile::parse(bytes)
            .and_then(|c| inst.instrument_owned(c))
            .and_then(|c| c.to_bytes());
        black_box(out.ok());
    }
    inst.into_map()
}

fn bench(c: &mut Criterion) {
    let jar = bench_jar();
    let Some(classes) = bench_classes("bytecode") else {
        return;
    };
    let bytes: u64 = classes.iter().map(|(_, b)| b.len() as u64).sum();
    let parsed: Vec<ClassFile> = classes
        .iter()
        .filter_map(|(_, b)| ClassFile::parse(b).ok())
        .collect();
    eprintln!(
        "{}: {} classes, {:.2} MB of class files",
        jar.display(),
        classes.len(),
        bytes as f64 / 1e6
    );

    let mut g = c.benchmark_group("guava");
    g.sample_size(20);
    g.throughput(Throughput::Bytes(bytes));
    g.bench_function("parse", |b| {
        b.iter(|| {
            for (_, bytes) in &classes {
                black_box(ClassFile::parse(bytes).ok());
            }
        });
    });
    g.bench_function("write", |b| {
        b.iter(|| {
            for c in &parsed {
                black_box(c.to_bytes().ok());
            }
        });
    });
    g.bench_function("instrument (parse + all probes + write)", |b| {
        b.iter(|| {
            black_box(instrument_all(&classes));
        });
    });
    g.bench_function("from jar (unzip + parse + all probes + write)", |b| {
        b.iter(|| {
            let classes = load_classes(&jar).unwrap_or_default();
            black_box(instrument_all(&classes));
        });
    });
    g.finish();

    let mut e = c.benchmark_group("guava-classes");
    e.sample_size(20);
    e.throughput(Throughput::Elements(classes.len() as u64));
    e.bench_function("instrument (parse + all probes + write)", |b| {
        b.iter(|| {
            black_box(instrument_all(&classes));
        });
    });
    e.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
