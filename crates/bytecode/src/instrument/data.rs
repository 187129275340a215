//! Probe data recorded by the runtime, and coverage summaries against a [`ProbeMap`].
//!
//! In offline mode the runtime writes its arrays at exit as text
//! (`-Dferrosuite.probes.out=<file>`):
//!
//! ```text
//! ferrosuite-probe-data 1
//! branch <slot> <hits> <min distance>
//! line <id> <hits>
//! method <id> <hits>
//! loop <id> <count>
//! static <class id>
//! end
//! ```
//!
//! ```
//! use ferrosuite_bytecode::instrument::data::ProbeData;
//! let d = ProbeData::parse("ferrosuite-probe-data 1\nbranch 3 2 0.0\nline 0 5\nend\n").unwrap();
//! assert_eq!(d.branch_hits(3), 2);
//! assert!(d.line_covered(0));
//! ```

use std::collections::BTreeMap;

use serde::Serialize;

use crate::error::{Error, Result};
use crate::instrument::map::ProbeMap;

/// Recorded probe data.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ProbeData {
    /// Per branch slot: (hits, smallest distance).
    pub branches: BTreeMap<u32, (u64, f64)>,
    /// Per line id: hits.
    pub lines: BTreeMap<u32, u64>,
    /// Per method id: hits.
    pub methods: BTreeMap<u32, u64>,
    /// Per loop id: iterations.
    pub loops: BTreeMap<u32, u64>,
    /// Class ids whose statics were written.
    pub statics: Vec<u32>,
}

fn bad(line: usize, detail: &str) -> Error {
    Error::Malformed {
        what: "probe data",
        offset: line,
        detail: format!("line {line}: {detail}"),
    }
}

impl ProbeData {
    /// Parses the runtime's text dump.
    pub fn parse(text: &str) -> Result<Self> {
        let mut d = ProbeData::default();
        let mut lines = text.lines().enumerate();
        match lines.next() {
            Some((_, "ferrosuite-probe-data 1")) => {}
            _ => return Err(bad(1, "missing header `ferrosuite-probe-data 1`")),
        }
        let mut ended = false;
        for (i, l) in lines {
            let no = i + 1;
            let f: Vec<&str> = l.split_whitespace().collect();
            let num = |k: usize| -> Result<u64> {
                f.get(k)
                    .and_then(|s| s.parse().ok())
                    .ok_or_else(|| bad(no, "bad number"))
            };
            let id = || -> Result<u32> {
                u32::try_from(num(1)?).map_err(|_| bad(no, "id out of range"))
            };
            match f.first().copied() {
                Some("branch") => {
                    let dist: f64 = f
                        .get(3)
                        .and_then(|s| s.parse().ok())
                        .ok_or_else(|| bad(no, "bad distance"))?;
                    d.branches.insert(id()?, (num(2)?, dist));
                }
                Some("line") => {
                    d.lines.insert(id()?, num(2)?);
                }
                Some("method") => {
                    d.methods.insert(id()?, num(2)?);
                }
                Some("loop") => {
                    d.loops.insert(id()?, num(2)?);
                }
                Some("static") => d.statics.push(id()?),
                Some("end") => {
                    ended = true;
                    break;
                }
                None => {}
                Some(other) => return Err(bad(no, &format!("unknown record {other:?}"))),
            }
        }
        if !ended {
            return Err(bad(
                0,
                "truncated: no `end` record (did the JVM exit normally?)",
            ));
        }
        Ok(d)
    }

    /// Times a branch outcome was taken.
    #[must_use]
    pub fn branch_hits(&self, slot: u32) -> u64 {
        self.branches.get(&slot).map_or(0, |b| b.0)
    }

    /// True when the line probe ran.
    #[must_use]
    pub fn line_covered(&self, id: u32) -> bool {
        self.lines.get(&id).is_some_and(|h| *h > 0)
    }
}

/// Covered / total counts.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Counter {
    /// Covered.
    pub covered: usize,
    /// Total.
    pub total: usize,
}

impl Counter {
    fn add(&mut self, covered: bool) {
        self.total += 1;
        self.covered += usize::from(covered);
    }

    /// Percentage covered (100 when there is nothing to cover).
    #[must_use]
    pub fn percent(&self) -> f64 {
        if self.total == 0 {
            100.0
        } else {
            100.0 * self.covered as f64 / self.total as f64
        }
    }
}

/// Coverage of one class.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct ClassCoverage {
    /// Dotted class name.
    pub class: String,
    /// Branch outcomes.
    pub branches: Counter,
    /// Lines.
    pub lines: Counter,
    /// Methods.
    pub methods: Counter,
}

/// Per-class coverage of the instrumented classes.
#[must_use]
pub fn coverage(map: &ProbeMap, data: &ProbeData) -> Vec<ClassCoverage> {
    map.classes
        .iter()
        .map(|c| {
            let mut cc = ClassCoverage {
                class: c.name.replace('/', "."),
                ..ClassCoverage::default()
            };
            for m in c.methods.iter().filter(|m| m.skipped.is_none()) {
                cc.methods
                    .add(data.methods.get(&m.id.0).is_some_and(|h| *h > 0));
                for b in &m.branches {
                    for o in &b.outcomes {
                        cc.branches.add(data.branch_hits(o.slot.0) > 0);
                    }
                }
            }
            for l in &c.lines {
                cc.lines.add(data.line_covered(l.id.0));
            }
            cc
        })
        .collect()
}
