//! The runtime jar of emitted tests that reproduce the controlled environment:
//! `ferrosuite-runtime.jar`, the classes of `org.ferrosuite.rt` those tests use
//! (`Environment`, the class patcher, the virtual clock and the seeded randomness), taken from
//! the runtime the worker runs (one source for both; see `docs/ENVIRONMENT.md`).
//!
//! The jar is the same bytes for the same ferrosuite: entries in a fixed order, stored with
//! the zip format's earliest timestamp.

use std::io::Write as _;
use std::path::{Path, PathBuf};

use crate::error::{Error, Result};

/// The jar's file name.
pub const RUNTIME_JAR: &str = "ferrosuite-runtime.jar";

/// The runtime classes emitted tests need (with their nested classes).
const CLASSES: [&str; 5] = [
    "org/ferrosuite/rt/Environment",
    "org/ferrosuite/rt/Patcher",
    "org/ferrosuite/rt/SeededRandom",
    "org/ferrosuite/rt/SystemRandom",
    "org/ferrosuite/rt/SystemTime",
];

/// Whether a runtime class belongs in the jar.
fn wanted(name: &str) -> bool {
    CLASSES
        .iter()
        .any(|c| name == *c || name.strip_prefix(c).is_some_and(|r| r.starts_with('$')))
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
    let mut classes: Vec<&(&str, &[u8])> = ferrosuite_runtime::CLASSES
        .iter()
        .filter(|(n, _)| wanted(n))
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
        for c in CLASSES {
            assert!(names.contains(&format!("{c}.class")), "{c}: {names:?}");
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
