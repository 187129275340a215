//! The runtime jar of emitted tests that reproduce the controlled environment:
//! `ferrosuite-runtime.jar`, the classes of `org.ferrosuite.rt` those tests use
//! (`Environment` and what it refers to: the class patcher, the virtual clock, the seeded
//! randomness, the virtual file system and console), taken from
//! the runtime the worker runs (one source for both; see `docs/ENVIRONMENT.md`).
//!
//! The jar is the same bytes for the same ferrosuite: entries in a fixed order, stored with
//! the zip format's earliest timestamp.

use std::io::Write as _;
use std::path::{Path, PathBuf};

use crate::error::{Error, Result};

/// The jar's file name.
pub const RUNTIME_JAR: &str = "ferrosuite-runtime.jar";

/// The runtime class emitted tests name; the jar holds it and every runtime class it refers
/// to, directly or not (the patcher, the virtual clock, randomness, file system and console).
const ROOT: &str = "org/ferrosuite/rt/Environment";

/// The runtime classes [`ROOT`] needs: the closure of the runtime classes its constant pools
/// name (a class the pool names as a `Class` constant, or as a descriptor's type).
fn needed() -> Result<std::collections::BTreeSet<&'static str>> {
    let all: std::collections::BTreeMap<&str, &[u8]> =
        ferrosuite_runtime::CLASSES.iter().copied().collect();
    let mut out = std::collections::BTreeSet::new();
    let mut queue = vec![ROOT];
    while let Some(name) = queue.pop() {
        let Some((&key, bytes)) = all.get_key_value(name) else {
            continue;
        };
        if !out.insert(key) {
            continue;
        }
        let class = ferrosuite_bytecode::ClassFile::parse(bytes)
            .map_err(|e| Error::Tool(format!("runtime class {name}: {e}")))?;
        for c in class.constant_pool.entries() {
            let ferrosuite_bytecode::constant_pool::Constant::Utf8(text) = c else {
                continue;
            };
            let text = String::from_utf8_lossy(text.as_ref());
            let mut rest = text.as_ref();
            while let Some(at) = rest.find("org/ferrosuite/rt/") {
                let tail = &rest[at..];
                let end = tail
                    .find(|ch: char| !(ch.is_alphanumeric() || ch == '/' || ch == '$' || ch == '_'))
                    .unwrap_or(tail.len());
                if let Some((&k, _)) = all.get_key_value(&tail[..end]) {
                    queue.push(k);
                }
                rest = &tail[end..];
            }
        }
    }
    Ok(out)
}

/// The jar's bytes.
///
/// # Errors
/// When the zip cannot be written (never for an in-memory buffer, in practice).
pub fn runtime_jar() -> Result<Vec<u8>> {
    let err = |e: zip::result::ZipError| Error::Tool(format!("{RUNTIME_JAR}: {e}"));
    let mut w = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let options = zip::write::SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Deflated)
        .last_modified_time(zip::DateTime::default());
    w.start_file("META-INF/MANIFEST.MF", options).map_err(err)?;
    w.write_all(b"Manifest-Version: 1.0\r\nCreated-By: ferrosuite\r\n\r\n")
        .map_err(|e| Error::Tool(format!("{RUNTIME_JAR}: {e}")))?;
    let needed = needed()?;
    let mut classes: Vec<&(&str, &[u8])> = ferrosuite_runtime::CLASSES
        .iter()
        .filter(|(n, _)| needed.contains(n))
        .collect();
    classes.sort_by_key(|(n, _)| *n);
    for (name, bytes) in classes {
        w.start_file(format!("{name}.class"), options)
            .map_err(err)?;
        w.write_all(bytes)
            .map_err(|e| Error::Tool(format!("{RUNTIME_JAR}: {e}")))?;
    }
    Ok(w.finish().map_err(err)?.into_inner())
}

/// Writes the jar into `dir` (created if needed), unless the same bytes are there already;
/// returns its path. A different file of that name is replaced only with `overwrite`.
///
/// # Errors
/// When the file cannot be written, or a different one is there and `overwrite` is false.
pub fn write_runtime_jar(dir: &Path, overwrite: bool) -> Result<PathBuf> {
    let path = dir.join(RUNTIME_JAR);
    let bytes = runtime_jar()?;
    match std::fs::read(&path) {
        Ok(old) if old == bytes => return Ok(path),
        Ok(_) if !overwrite => return Err(Error::Exists(path)),
        _ => {}
    }
    std::fs::create_dir_all(dir).map_err(|e| Error::Tool(format!("{}: {e}", dir.display())))?;
    crate::write_whole(&path, &bytes)?;
    Ok(path)
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;

    #[test]
    fn the_jar_holds_the_environment_classes_only_and_is_the_same_each_time() {
        let jar = runtime_jar().unwrap();
        assert_eq!(jar, runtime_jar().unwrap());
        let mut z = zip::ZipArchive::new(std::io::Cursor::new(jar)).unwrap();
        let names: Vec<String> = (0..z.len())
            .map(|i| z.by_index(i).unwrap().name().unwrap().to_string())
            .collect();
        assert_eq!(names[0], "META-INF/MANIFEST.MF");
        for c in [
            "Environment",
            "Patcher",
            "EnvironmentTable",
            "SeededRandom",
            "SystemRandom",
            "SystemTime",
            "VirtualFs",
            "VirtualFiles",
            "VirtualPaths",
            "VirtualConsole",
        ] {
            let c = format!("org/ferrosuite/rt/{c}.class");
            assert!(names.contains(&c), "{c}: {names:?}");
        }
        assert!(
            names
                .iter()
                .any(|n| n.starts_with("org/ferrosuite/rt/Patcher$"))
        );
        assert!(
            !names
                .iter()
                .any(|n| n.contains("Probe") || n.contains("HostLoader"))
        );
    }
}
