//! The recording agent's jar: the classes of `org.ferrosuite.rt.rec` (from the runtime crate,
//! compiled by `javac --release 8`) with a manifest naming `Agent` as the premain class and the
//! jar itself as a boot class path entry, so that classes of any class loader see the
//! `Recorder` their probes call.
//!
//! The jar is the same bytes for the same ferrosuite (entries in name order, the zip format's
//! earliest timestamp).

use std::io::Write as _;
use std::path::{Path, PathBuf};

use crate::error::{Error, Result};

/// The jar's file name.
pub const AGENT_JAR: &str = "ferrosuite-recorder.jar";

/// Package (internal form) of the recorder's classes.
pub const PACKAGE: &str = "org/ferrosuite/rt/rec/";

/// The jar's bytes.
///
/// # Errors
/// When the zip cannot be written (not for an in-memory buffer, in practice) or the runtime
/// lacks the recorder.
pub fn agent_jar() -> Result<Vec<u8>> {
    let err = |e: &dyn std::fmt::Display| Error::Command(format!("{AGENT_JAR}: {e}"));
    let mut w = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let options = zip::write::SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Deflated)
        .last_modified_time(zip::DateTime::default());
    w.start_file("META-INF/MANIFEST.MF", options)
        .map_err(|e| err(&e))?;
    w.write_all(
        format!(
            "Manifest-Version: 1.0\r\nCreated-By: ferrosuite\r\nPremain-Class: org.ferrosuite.rt.rec.Agent\r\nBoot-Class-Path: {AGENT_JAR}\r\nCan-Redefine-Classes: false\r\nCan-Retransform-Classes: false\r\n\r\n"
        )
        .as_bytes(),
    )
    .map_err(|e| err(&e))?;
    let mut classes: Vec<&(&str, &[u8])> = ferrosuite_runtime::CLASSES
        .iter()
        .filter(|(n, _)| n.starts_with(PACKAGE))
        .collect();
    if classes.is_empty() {
        return Err(err(&"the runtime has no recorder classes"));
    }
    classes.sort_by_key(|(n, _)| *n);
    for (name, bytes) in classes {
        w.start_file(format!("{name}.class"), options)
            .map_err(|e| err(&e))?;
        w.write_all(bytes).map_err(|e| err(&e))?;
    }
    Ok(w.finish().map_err(|e| err(&e))?.into_inner())
}

/// Writes the jar into `dir` (which must exist); returns its path.
///
/// # Errors
/// [`Error::Io`] naming the file.
pub fn write_agent_jar(dir: &Path) -> Result<PathBuf> {
    let path = dir.join(AGENT_JAR);
    std::fs::write(&path, agent_jar()?).map_err(Error::io(path.display().to_string()))?;
    Ok(path)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn the_jar_is_reproducible_and_holds_the_agent() {
        let a = agent_jar().unwrap();
        assert_eq!(a, agent_jar().unwrap());
        let mut z = zip::ZipArchive::new(std::io::Cursor::new(a)).unwrap();
        assert!(z.by_name("org/ferrosuite/rt/rec/Agent.class").is_ok());
        assert!(z.by_name("org/ferrosuite/rt/rec/Recorder.class").is_ok());
        let mut m = String::new();
        std::io::Read::read_to_string(&mut z.by_name("META-INF/MANIFEST.MF").unwrap(), &mut m)
            .unwrap();
        assert!(m.contains("Premain-Class: org.ferrosuite.rt.rec.Agent"));
        assert!(z.by_name("org/ferrosuite/rt/rec/Observed.class").is_ok());
    }

    #[test]
    fn every_stand_in_the_recorder_redirects_to_exists() {
        use ferrosuite_bytecode::instrument::observe::{
            OBSERVED, SEEDED, factory_table, redirects,
        };
        let bytes = ferrosuite_runtime::CLASSES
            .iter()
            .find(|(n, _)| *n == OBSERVED)
            .map(|(_, b)| *b)
            .unwrap();
        let class = ferrosuite_bytecode::ClassFile::parse(bytes).unwrap();
        let has = |members: &[ferrosuite_bytecode::classfile::Member], name: &str, desc: &str| {
            members.iter().any(|m| {
                m.access_flags & ferrosuite_bytecode::classfile::access::STATIC != 0
                    && class.is_member(m, name, desc)
            })
        };
        let mut wanted: Vec<(String, String)> = redirects()
            .into_iter()
            .map(|r| (r.to.name, r.to.descriptor))
            .collect();
        wanted.extend(factory_table().iter().map(|f| {
            let m = f.stand_in();
            (m.name, m.descriptor)
        }));
        wanted.extend(
            SEEDED
                .iter()
                .map(|s| (s.name.to_string(), "()J".to_string())),
        );
        for (name, desc) in wanted {
            let found = if desc.starts_with('(') {
                has(&class.methods, &name, &desc)
            } else {
                has(&class.fields, &name, &desc)
            };
            assert!(found, "Observed has no static {name}{desc}");
        }
    }
}
