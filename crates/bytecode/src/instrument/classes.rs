//! Instrumenting named classes with their nested classes, deterministically, as the execution
//! host does before it starts its workers: offline runs of the same classes then get the same
//! probe ids.
//!
//! ```no_run
//! use ferrosuite_bytecode::classpath::ClassPath;
//! use ferrosuite_bytecode::instrument::classes::instrument;
//! # fn main() -> ferrosuite_bytecode::Result<()> {
//! let cp = ClassPath::parse("fixtures/classes/java8")?;
//! let (map, bytes) = instrument(&cp, &["examples.Stack".to_string()], &Default::default())?;
//! assert_eq!(bytes.len(), map.classes.len());
//! assert_eq!(bytes[0].0, "examples/Stack");
//! # Ok(()) }
//! ```

use std::collections::BTreeSet;

use crate::classpath::ClassPath;
use crate::error::{Error, Result};
use crate::instrument::map::ProbeMap;
use crate::instrument::probes::{Instrumenter, ProbeConfig};

/// A class file by internal name.
pub type ClassBytes = (String, Vec<u8>);

/// Instruments the named classes and their nested classes, in name order, as the host does
/// (so that offline runs of the same classes use the same probe ids): the probe map and the
/// instrumented class files.
pub fn instrument(
    cp: &ClassPath,
    names: &[String],
    probes: &ProbeConfig,
) -> Result<(ProbeMap, Vec<ClassBytes>)> {
    let mut all = BTreeSet::new();
    let mut listing: Option<Vec<String>> = None;
    for n in names {
        let n = n.replace('.', "/");
        if cp.find_bytes(&n)?.is_none() {
            return Err(Error::ClassNotFound(n.replace('/', ".")));
        }
        if listing.is_none() {
            listing = Some(cp.class_names()?);
        }
        let prefix = format!("{n}$");
        for c in listing.iter().flatten() {
            if c.starts_with(&prefix) {
                all.insert(c.clone());
            }
        }
        all.insert(n);
    }
    let mut inst = Instrumenter::new(probes.clone()).with_classpath(cp);
    let mut out = Vec::with_capacity(all.len());
    for n in all {
        let cf = cp.load(&n)?;
        let i = inst.instrument(&cf)?;
        out.push((n, i.to_bytes()?));
    }
    Ok((inst.into_map(), out))
}
