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
use crate::instrument::mutation::{self, Mutant};
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
    let (map, classes, _) = instrument_mutated(cp, names, probes, None)?;
    Ok((map, classes))
}

/// [`instrument`], each class first made a [mutation schema](mutation) when `mutation` is
/// given: the classes number their mutants one after the other, in name order, from
/// `first_id` on. Returns the mutants too.
pub fn instrument_mutated(
    cp: &ClassPath,
    names: &[String],
    probes: &ProbeConfig,
    mutation: Option<&mutation::Config>,
) -> Result<(ProbeMap, Vec<ClassBytes>, Vec<Mutant>)> {
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
    let mut mutants = Vec::new();
    let mut config = mutation.cloned();
    for n in all {
        let loaded = cp.load(&n)?;
        let i = if let Some(c) = &mut config {
            let mut cf = (*loaded).clone();
            let made = mutation::mutate(&mut cf, c)?;
            if let Some(last) = made.last() {
                c.first_id = last.id + 1;
            }
            mutants.extend(made);
            inst.instrument(&cf)?
        } else {
            inst.instrument(&loaded)?
        };
        out.push((n, i.to_bytes()?));
    }
    Ok((inst.into_map(), out, mutants))
}
