//! Compares ferrosuite's branch probes with `JaCoCo` on the same program run.
//!
//! Usage: `jacoco_compare PROBE_MAP PROBE_DATA JACOCO_DUMP`, where the dump comes from
//! `fixtures/tools/ferrosuite/tools/JacocoDump.java` run on the execution data of the original
//! classes. `JaCoCo` counts a conditional jump as two branches and a switch as one branch per
//! distinct target, so switch outcomes are grouped by target before comparing. `JaCoCo`'s filters
//! (finally duplicates, string switches, synthetic methods, …) remove some branches, so methods
//! and lines are compared exactly where both count the same number of branches, and otherwise
//! checked for "`JaCoCo` covered ≤ ferrosuite covered". ferrosuite may count more: `JaCoCo` marks a
//! branch covered only when a later probe on its path runs, so a path that throws before the
//! next `JaCoCo` probe is not counted by `JaCoCo`, while ferrosuite records the jump itself. Exits
//! non-zero if ferrosuite missed a branch `JaCoCo` saw covered.

use std::collections::BTreeMap;
use std::process::ExitCode;

use ferrosuite_bytecode::instrument::data::ProbeData;
use ferrosuite_bytecode::instrument::map::{BranchKind, ProbeMap};

type Key = (String, String, String);

#[derive(Default, Clone, Copy)]
struct Count {
    covered: u64,
    total: u64,
}

fn main() -> ExitCode {
    match run() {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::from(1),
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
    }
}

fn run() -> Result<bool, Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [map, data, jacoco] = args.as_slice() else {
        return Err("usage: jacoco_compare PROBE_MAP PROBE_DATA JACOCO_DUMP".into());
    };
    let map: ProbeMap = serde_json::from_str(&std::fs::read_to_string(map)?)?;
    let data = ProbeData::parse(&std::fs::read_to_string(data)?)?;
    let mut ours: BTreeMap<Key, Count> = BTreeMap::new();
    let mut ours_lines: BTreeMap<(Key, u16), Count> = BTreeMap::new();
    for c in &map.classes {
        for m in c.methods.iter().filter(|m| m.skipped.is_none()) {
            let key = (c.name.clone(), m.name.clone(), m.descriptor.clone());
            let mc = ours.entry(key.clone()).or_default();
            for site in &m.branches {
                // Group outcomes by target for switches (JaCoCo counts distinct targets).
                let mut groups: BTreeMap<u32, bool> = BTreeMap::new();
                match site.kind {
                    BranchKind::Jump { .. } => {
                        for (i, o) in site.outcomes.iter().enumerate() {
                            groups.insert(i as u32, data.branch_hits(o.slot.0) > 0);
                        }
                    }
                    BranchKind::Switch { .. } => {
                        for o in &site.outcomes {
                            *groups.entry(o.target).or_default() |= data.branch_hits(o.slot.0) > 0;
                        }
                    }
                }
                let covered = groups.values().filter(|c| **c).count() as u64;
                mc.covered += covered;
                mc.total += groups.len() as u64;
                if let Some(line) = site.line {
                    let lc = ours_lines.entry((key.clone(), line)).or_default();
                    lc.covered += covered;
                    lc.total += groups.len() as u64;
                }
            }
        }
    }
    let mut theirs: BTreeMap<Key, Count> = BTreeMap::new();
    let mut their_lines: BTreeMap<(Key, u16), Count> = BTreeMap::new();
    for l in std::fs::read_to_string(jacoco)?.lines() {
        let f: Vec<&str> = l.split(' ').collect();
        let num = |i: usize| f.get(i).and_then(|s| s.parse::<u64>().ok()).unwrap_or(0);
        match f.first() {
            Some(&"M") if f.len() >= 6 => {
                let key = (f[1].to_string(), f[2].to_string(), f[3].to_string());
                theirs.insert(
                    key,
                    Count {
                        covered: num(4),
                        total: num(4) + num(5),
                    },
                );
            }
            Some(&"L") if f.len() >= 7 => {
                let key = (f[1].to_string(), f[2].to_string(), f[3].to_string());
                let line = f[4].parse::<u16>().unwrap_or(0);
                their_lines.insert(
                    (key, line),
                    Count {
                        covered: num(5),
                        total: num(5) + num(6),
                    },
                );
            }
            _ => {}
        }
    }
    let (mut compared, mut same_total, mut exact, mut filtered, mut more, mut missed_methods) =
        (0, 0, 0, 0, 0, Vec::new());
    let (mut jacoco_covered, mut ours_covered_same) = (0u64, 0u64);
    for (key, t) in &theirs {
        let Some(o) = ours.get(key) else { continue };
        if t.total == 0 && o.total == 0 {
            continue;
        }
        compared += 1;
        jacoco_covered += t.covered;
        if o.total == t.total {
            same_total += 1;
            ours_covered_same += o.covered;
            match o.covered.cmp(&t.covered) {
                std::cmp::Ordering::Equal => exact += 1,
                std::cmp::Ordering::Greater => more += 1,
                std::cmp::Ordering::Less => missed_methods.push(format!(
                    "{}.{}{} ours {}/{} jacoco {}/{}",
                    key.0, key.1, key.2, o.covered, o.total, t.covered, t.total
                )),
            }
        } else {
            filtered += 1;
            if t.covered > o.covered {
                missed_methods.push(format!(
                    "{}.{}{} (counted differently) ours {}/{} jacoco {}/{}",
                    key.0, key.1, key.2, o.covered, o.total, t.covered, t.total
                ));
            }
        }
    }
    let (mut lines_compared, mut lines_exact, mut lines_missed) = (0, 0, Vec::new());
    for (k, t) in &their_lines {
        if t.total == 0 {
            continue;
        }
        let Some(o) = ours_lines.get(k) else { continue };
        lines_compared += 1;
        if o.total == t.total && o.covered == t.covered {
            lines_exact += 1;
        } else if t.covered > o.covered {
            lines_missed.push(format!(
                "{}.{}{} line {} ours {}/{} jacoco {}/{}",
                k.0.0, k.0.1, k.0.2, k.1, o.covered, o.total, t.covered, t.total
            ));
        }
    }
    println!(
        "methods with branches compared: {compared}; same branch count: {same_total} (covered equal in {exact}, \
         ferrosuite covered more in {more}, ferrosuite covered fewer in {}); counted differently by JaCoCo's filters: {filtered}",
        missed_methods.len()
    );
    println!(
        "branches JaCoCo saw covered: {jacoco_covered}; in methods counted alike, ferrosuite covered: {ours_covered_same}"
    );
    println!(
        "lines with branches compared: {lines_compared}; identical counts: {lines_exact}; lines where ferrosuite covered fewer: {}",
        lines_missed.len()
    );
    for m in missed_methods.iter().take(20) {
        println!("  method mismatch: {m}");
    }
    for m in lines_missed.iter().take(20) {
        println!("  line mismatch: {m}");
    }
    Ok(missed_methods.is_empty() && lines_missed.is_empty())
}
