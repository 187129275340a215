//! Runs across machines: a deterministic share of a batch's classes per shard, and the
//! shards' reports joined into one.
//!
//! Shard `K/N` (K from 0 to N−1, as a CI matrix index or a Kubernetes indexed job's
//! completion index) takes the classes that a greedy longest-processing-time assignment
//! gives it: the classes sorted by size (bytes of the class file and its nested classes,
//! largest first, ties by name), each given to the shard with the least bytes so far (ties to
//! the lowest index). The sizes come from the class files, so every machine with the same
//! class path computes the same shares; together the shards take every class exactly once.
//!
//! ```
//! use ferrosuite_generate::shard::{Shard, assign};
//! let sizes = [900, 100, 500, 400];
//! let shard: Shard = "0/2".parse().unwrap();
//! assert_eq!(assign(&sizes, &["A", "B", "C", "D"], shard), [0, 1]);
//! assert_eq!(assign(&sizes, &["A", "B", "C", "D"], "1/2".parse().unwrap()), [2, 3]);
//! ```
//!
//! [`merge`] joins the reports of the shards of one run into the report a single run would
//! have written: the entries in the order of the whole batch, whatever shard ran them.

use std::path::PathBuf;
use std::str::FromStr;

use ferrosuite_bytecode::classpath::ClassPath;
use serde::{Deserialize, Serialize};

use crate::batch::Report;
use crate::error::{Error, Result};

/// One share of a batch: shard `index` of `count`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Shard {
    /// Which share, from 0.
    pub index: usize,
    /// How many shares.
    pub count: usize,
}

impl FromStr for Shard {
    type Err = String;

    /// `K/N` with 0 ≤ K < N.
    fn from_str(s: &str) -> std::result::Result<Self, String> {
        let (k, n) = s
            .split_once('/')
            .ok_or_else(|| format!("{s:?} is not K/N (e.g. 0/4)"))?;
        let index: usize = k
            .trim()
            .parse()
            .map_err(|_| format!("{s:?}: {k:?} is not a shard index"))?;
        let count: usize = n
            .trim()
            .parse()
            .map_err(|_| format!("{s:?}: {n:?} is not a shard count"))?;
        if count == 0 || index >= count {
            return Err(format!(
                "{s:?}: the index must be at least 0 and below the count (0/{count} to {}/{count})",
                count.saturating_sub(1)
            ));
        }
        Ok(Shard { index, count })
    }
}

impl std::fmt::Display for Shard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

/// The positions (in `names`' order) of the classes shard `shard` takes, given each class's
/// size (see the module documentation).
#[must_use]
pub fn assign(sizes: &[u64], names: &[&str], shard: Shard) -> Vec<usize> {
    let mut order: Vec<usize> = (0..sizes.len().min(names.len())).collect();
    order.sort_by(|&a, &b| sizes[b].cmp(&sizes[a]).then_with(|| names[a].cmp(names[b])));
    let mut load = vec![0u64; shard.count];
    let mut mine = Vec::new();
    for i in order {
        let (target, _) = load
            .iter()
            .enumerate()
            .min_by_key(|&(k, l)| (*l, k))
            .unwrap_or((0, &0));
        // Every class counts at least one byte, so that empty ones spread too.
        load[target] += sizes[i].max(1);
        if target == shard.index {
            mine.push(i);
        }
    }
    mine.sort_unstable();
    mine
}

/// The size of each class (binary names) on the class path: the bytes of its class file and
/// of its nested classes; 0 for a class that is not there (its shard reports the error).
pub fn class_sizes(classpath: &[PathBuf], classes: &[String]) -> Result<Vec<u64>> {
    let spec: Vec<String> = classpath.iter().map(|p| p.display().to_string()).collect();
    let cp = ClassPath::parse(&spec.join(":"))
        .map_err(|e| Error::Tool(format!("cannot open the class path: {e}")))?;
    let size = |internal: &str| -> u64 {
        cp.find_bytes(internal)
            .ok()
            .flatten()
            .map_or(0, |(_, b)| b.len() as u64)
    };
    Ok(classes
        .iter()
        .map(|c| {
            let internal = c.replace('.', "/");
            let nested: u64 = cp
                .nested_classes(&internal)
                .unwrap_or_default()
                .iter()
                .map(|n| size(n))
                .sum();
            size(&internal) + nested
        })
        .collect())
}

/// Joins the reports of the shards of one run (`(file name, report)` pairs; the names are
/// for errors) into one report: the same settings, every class once, in the order of the
/// whole batch; its wall time the longest shard's, its output directory the first's. An error when the reports are of different
/// runs, a shard is missing or given twice, or a class is in two of them.
pub fn merge(reports: &[(String, Report)]) -> Result<Report> {
    let Some((first_name, first)) = reports.first() else {
        return Err(Error::Tool("no report to merge".into()));
    };
    let mut shards_seen: Vec<(usize, String)> = Vec::new();
    let count = first.shard.map(|s| s.count);
    let mut merged = first.clone();
    merged.shard = None;
    merged.classes = Vec::new();
    for (name, r) in reports {
        let same = r.classpath == merged.classpath
            && r.seed == merged.seed
            && r.algorithm == merged.algorithm
            && r.budget_seconds == merged.budget_seconds
            && r.max_statements == merged.max_statements
            && r.junit == merged.junit;
        if !same {
            return Err(Error::Tool(format!(
                "{name} is the report of another run than {first_name} (class path, seed, algorithm, \
                 budget or JUnit version differ)"
            )));
        }
        match (r.shard, count) {
            (Some(s), Some(n)) if s.count == n => {
                if let Some((_, other)) = shards_seen.iter().find(|(k, _)| *k == s.index) {
                    return Err(Error::Tool(format!(
                        "{name} and {other} are both shard {s}"
                    )));
                }
                shards_seen.push((s.index, name.clone()));
            }
            (None, None) => {}
            _ => {
                return Err(Error::Tool(format!(
                    "{name} is not a shard of the same split as {first_name} ({} against {})",
                    r.shard.map_or("no shard".into(), |s| s.to_string()),
                    first.shard.map_or("no shard".into(), |s| s.to_string()),
                )));
            }
        }
        merged.seconds = merged.seconds.max(r.seconds);
        merged.classes.extend(r.classes.iter().cloned());
    }
    if let Some(n) = count {
        let missing: Vec<String> = (0..n)
            .filter(|k| !shards_seen.iter().any(|(s, _)| s == k))
            .map(|k| format!("{k}/{n}"))
            .collect();
        if !missing.is_empty() {
            return Err(Error::Tool(format!(
                "shard {} missing: give every shard's report",
                missing.join(", ")
            )));
        }
    }
    merged.classes.sort_by_key(|e| e.position);
    for w in merged.classes.windows(2) {
        if w[0].position == w[1].position {
            return Err(Error::Tool(format!(
                "{} is in two reports (position {})",
                w[1].class, w[1].position
            )));
        }
    }
    Ok(merged)
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;

    #[test]
    fn shards_parse_and_refuse_nonsense() {
        assert_eq!("2/4".parse::<Shard>(), Ok(Shard { index: 2, count: 4 }));
        assert!(
            "4/4"
                .parse::<Shard>()
                .unwrap_err()
                .contains("below the count")
        );
        assert!("1/0".parse::<Shard>().is_err());
        assert!("x".parse::<Shard>().unwrap_err().contains("K/N"));
        assert_eq!(Shard { index: 1, count: 3 }.to_string(), "1/3");
    }

    #[test]
    fn shards_take_every_class_once_and_balance_the_bytes() {
        let names: Vec<String> = (0..40).map(|i| format!("p.C{i:02}")).collect();
        let refs: Vec<&str> = names.iter().map(String::as_str).collect();
        let sizes: Vec<u64> = (0..40u64).map(|i| (i * 7919) % 5000 + 100).collect();
        let total: u64 = sizes.iter().sum();
        let mut seen = vec![0; 40];
        let mut loads = Vec::new();
        for k in 0..4 {
            let mine = assign(&sizes, &refs, Shard { index: k, count: 4 });
            // In the batch's order.
            assert!(mine.windows(2).all(|w| w[0] < w[1]));
            for &i in &mine {
                seen[i] += 1;
            }
            loads.push(mine.iter().map(|&i| sizes[i]).sum::<u64>());
        }
        assert!(seen.iter().all(|&n| n == 1), "{seen:?}");
        let (min, max) = (loads.iter().min().unwrap(), loads.iter().max().unwrap());
        // LPT: within the largest class of a quarter of the total.
        assert!(max - min <= 5100, "{loads:?} of {total}");
        // One shard is the whole batch.
        assert_eq!(
            assign(&sizes, &refs, Shard { index: 0, count: 1 }),
            (0..40).collect::<Vec<_>>()
        );
    }
}
