//! Shared helpers for the benchmarks in `benches/` (and the statistics of the search experiment).

use ferrosuite_bytecode::classpath::ClassPathEntry;

/// The jar the benchmarks run on: `$FERROSUITE_BENCH_JAR`, default Debian's guava.
#[must_use]
pub fn bench_jar() -> std::path::PathBuf {
    std::env::var_os("FERROSUITE_BENCH_JAR")
        .map_or_else(|| "/usr/share/java/guava.jar".into(), Into::into)
}

/// Every `.class` file of a jar, read into memory: (path, bytes).
pub fn load_classes(jar: &std::path::Path) -> ferrosuite_bytecode::Result<Vec<(String, Vec<u8>)>> {
    let e = ClassPathEntry::open(jar)?;
    let mut out = Vec::new();
    for f in e.files()? {
        if f.ends_with(".class") && !f.starts_with("META-INF/") && !f.ends_with("module-info.class")
        {
            if let Some(b) = e.read_file(&f)? {
                out.push((f, b));
            }
        }
    }
    Ok(out)
}

/// The classes of [`bench_jar`], or `None` after saying why the `what` benchmarks are skipped.
#[must_use]
pub fn bench_classes(what: &str) -> Option<Vec<(String, Vec<u8>)>> {
    match load_classes(&bench_jar()) {
        Ok(c) => Some(c),
        Err(e) => {
            eprintln!(
                "skipping {what} benchmarks: {e} (install libguava-java or set FERROSUITE_BENCH_JAR)"
            );
            None
        }
    }
}

pub mod stats;
