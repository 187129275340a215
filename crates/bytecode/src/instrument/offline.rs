//! Offline instrumentation of a whole class path into a directory, as `JaCoCo`'s offline mode
//! does: instrumented copies of the classes, the probe runtime classes, the non-class resources
//! (minus jar signatures, which instrumented classes would break) and the probe map
//! (`ferrosuite-probes.json`). `java -cp <out> Main` then runs the program with probes, and
//! `-Dferrosuite.probes.out=<file>` makes the runtime dump what it recorded at exit.
//!
//! The output directory must be new or empty, and must not be inside an input directory;
//! nothing is ever written to the inputs.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::classfile::ClassFile;
use crate::classpath::ClassPath;
use crate::error::{Error, Result, io_at};
use crate::instrument::RUNTIME_PACKAGE;
use crate::instrument::map::ProbeMap;
use crate::instrument::probes::{Instrumenter, ProbeConfig};

/// File name of the probe map written into the output directory.
pub const MAP_FILE: &str = "ferrosuite-probes.json";

/// What to instrument.
#[derive(Debug, Clone, Default)]
pub struct OfflineConfig {
    /// Probes to insert.
    pub probes: ProbeConfig,
    /// Only classes whose dotted name starts with one of these prefixes (all when empty).
    pub include: Vec<String>,
    /// Skip classes whose dotted name starts with one of these prefixes.
    pub exclude: Vec<String>,
    /// Allow writing into an existing non-empty output directory (files are replaced).
    pub overwrite: bool,
}

/// A class that could not be instrumented (its original bytes were copied instead).
#[derive(Debug, Clone, Serialize)]
pub struct ClassFailure {
    /// Where the class came from.
    pub origin: String,
    /// Why.
    pub error: String,
}

/// Summary of an offline instrumentation run.
#[derive(Debug, Clone, Default, Serialize)]
pub struct OfflineReport {
    /// Classes instrumented.
    pub classes_instrumented: usize,
    /// Classes copied unchanged because they were filtered out or are not instrumentable
    /// (module-info, shadowed duplicates are not copied at all).
    pub classes_copied: usize,
    /// Classes that failed to instrument (copied unchanged).
    pub failures: Vec<ClassFailure>,
    /// Methods left uninstrumented, as `class.method(desc): reason`.
    pub methods_skipped: Vec<String>,
    /// Non-class files copied.
    pub resources_copied: usize,
    /// Branch sites.
    pub branch_sites: usize,
    /// Branch outcomes (goals).
    pub branch_outcomes: usize,
    /// Line probes.
    pub lines: usize,
    /// Methods with an entry probe.
    pub methods: usize,
    /// Classes given a static-reset method.
    pub static_resets: usize,
}

fn wanted(dotted: &str, cfg: &OfflineConfig) -> bool {
    (cfg.include.is_empty() || cfg.include.iter().any(|p| dotted.starts_with(p.as_str())))
        && !cfg.exclude.iter().any(|p| dotted.starts_with(p.as_str()))
}

fn is_signature_file(rel: &str) -> bool {
    let upper = rel.to_ascii_uppercase();
    upper.starts_with("META-INF/")
        && !upper["META-INF/".len()..].contains('/')
        && [".SF", ".RSA", ".DSA", ".EC"]
            .iter()
            .any(|x| upper.ends_with(x))
}

fn check_output(out: &Path, cp: &ClassPath, overwrite: bool) -> Result<()> {
    let out_abs = if out.exists() {
        std::fs::canonicalize(out).map_err(io_at(out))?
    } else {
        absolute(out)
    };
    for e in cp.entries() {
        if let Ok(input) = std::fs::canonicalize(e.path()) {
            if out_abs == input || out_abs.starts_with(&input) || input.starts_with(&out_abs) {
                return Err(Error::BadClassPathEntry {
                    path: out.to_path_buf(),
                    detail: format!("output directory overlaps the input {}", e.path().display()),
                });
            }
        }
    }
    if out.exists() {
        if !out.is_dir() {
            return Err(Error::BadClassPathEntry {
                path: out.to_path_buf(),
                detail: "output exists and is not a directory".into(),
            });
        }
        let non_empty = std::fs::read_dir(out).map_err(io_at(out))?.next().is_some();
        if non_empty && !overwrite {
            return Err(Error::OutputNotEmpty(out.to_path_buf()));
        }
    }
    Ok(())
}

fn absolute(p: &Path) -> PathBuf {
    if p.is_absolute() {
        p.to_path_buf()
    } else {
        std::env::current_dir().map_or_else(|_| p.to_path_buf(), |d| d.join(p))
    }
}

fn write_file(out: &Path, rel: &str, bytes: &[u8]) -> Result<()> {
    if rel.split('/').any(|c| c == ".." || c.is_empty()) {
        return Err(Error::BadClassPathEntry {
            path: PathBuf::from(rel),
            detail: "unsafe path in archive".into(),
        });
    }
    let path = out.join(rel);
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).map_err(io_at(parent))?;
    }
    std::fs::write(&path, bytes).map_err(io_at(&path))
}

/// Instruments every class of the class path's entries (JDK image entries are skipped) into
/// `out`, and writes the probe runtime's classes there: `runtime` is (internal name, class
/// file) per class, as `ferrosuite_runtime::CLASSES` lists them. `progress` is called with
/// (done, total) after each class.
pub fn instrument_classpath(
    cp: &ClassPath,
    out: &Path,
    cfg: &OfflineConfig,
    runtime: &[(&str, &[u8])],
    mut progress: impl FnMut(usize, usize),
) -> Result<(OfflineReport, ProbeMap)> {
    check_output(out, cp, cfg.overwrite)?;
    std::fs::create_dir_all(out).map_err(io_at(out))?;
    let mut report = OfflineReport::default();
    let mut inst = Instrumenter::new(cfg.probes.clone()).with_classpath(cp);
    // First entry wins for duplicate paths, as on a JVM class path.
    let mut seen = BTreeSet::new();
    let mut work: Vec<(usize, String)> = Vec::new();
    for (i, e) in cp.entries().iter().enumerate() {
        if e.kind() == "jimage" || e.kind() == "jmod" {
            continue;
        }
        for f in e.files()? {
            if seen.insert(f.clone()) {
                work.push((i, f));
            }
        }
    }
    let total = work.iter().filter(|(_, f)| f.ends_with(".class")).count();
    let mut done = 0;
    for (i, rel) in &work {
        let entry = &cp.entries()[*i];
        let Some(bytes) = entry.read_file(rel)? else {
            continue;
        };
        if !rel.ends_with(".class") {
            if is_signature_file(rel) {
                continue;
            }
            write_file(out, rel, &bytes)?;
            report.resources_copied += 1;
            continue;
        }
        let internal = rel.trim_end_matches(".class");
        let dotted = internal.replace('/', ".");
        let versioned = rel.starts_with("META-INF/");
        let instrumentable = !versioned
            && !internal.ends_with("module-info")
            && !internal.ends_with("package-info")
            && !internal.starts_with(RUNTIME_PACKAGE)
            && wanted(&dotted, cfg);
        let output = if instrumentable {
            let origin = entry.origin(internal);
            match ClassFile::parse_named(&bytes, &origin)
                .and_then(|c| inst.instrument_owned(c))
                .and_then(|c| c.to_bytes())
            {
                Ok(b) => {
                    report.classes_instrumented += 1;
                    b
                }
                Err(e) => {
                    // The error names its origin already when it came from reading the file.
                    let error = match &e {
                        Error::In { origin: o, inner } if *o == origin => inner.to_string(),
                        _ => e.to_string(),
                    };
                    report.failures.push(ClassFailure { origin, error });
                    bytes
                }
            }
        } else {
            report.classes_copied += 1;
            bytes
        };
        write_file(out, rel, &output)?;
        done += 1;
        progress(done, total);
    }
    for (name, bytes) in runtime {
        write_file(out, &format!("{name}.class"), bytes)?;
    }
    let map = inst.into_map();
    for c in &map.classes {
        for m in &c.methods {
            if let Some(why) = &m.skipped {
                report.methods_skipped.push(format!(
                    "{}.{}{}: {why}",
                    c.name.replace('/', "."),
                    m.name,
                    m.descriptor
                ));
            } else {
                report.methods += 1;
                report.branch_sites += m.branches.len();
                report.branch_outcomes +=
                    m.branches.iter().map(|b| b.outcomes.len()).sum::<usize>();
            }
        }
        report.lines += c.lines.len();
        report.static_resets += usize::from(c.reset_method.is_some());
    }
    let json = serde_json::to_vec(&map)
        .map_err(|e| Error::Rewrite(format!("cannot serialise probe map: {e}")))?;
    write_file(out, MAP_FILE, &json)?;
    Ok((report, map))
}
