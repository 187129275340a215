//! Probe reads after a test (compared values, branches, lines, loops) and static resets.

use std::collections::HashMap;

use ferrosuite_bytecode::instrument::probes::holds_mutable;
use ferrosuite_testcase::statement::{JDouble, Prim, Statement};
use jni::sys::{jfieldID, jsize, jvalue};

use super::{Executor, cstring};
use crate::protocol::MethodRanges;
use crate::raw::{self, Kind};
use crate::result::ProbeSnapshot;

/// Sorts half-open ranges and merges overlapping or touching ones (empty ranges dropped).
pub(super) fn merge_ranges(ranges: impl Iterator<Item = (u32, u32)>) -> Vec<(usize, usize)> {
    let mut v: Vec<(usize, usize)> = ranges
        .filter(|(lo, hi)| lo < hi)
        .map(|(lo, hi)| (lo as usize, hi as usize))
        .collect();
    v.sort_unstable();
    let mut out: Vec<(usize, usize)> = Vec::with_capacity(v.len());
    for (lo, hi) in v {
        match out.last_mut() {
            Some(last) if lo <= last.1 => last.1 = last.1.max(hi),
            _ => out.push((lo, hi)),
        }
    }
    out
}

/// Longest compared string reported (UTF-16 units); longer ones are not seeds.
const MAX_COMPARED_STRING: usize = 256;

impl Executor<'_> {
    /// The values the test compared (`Probe.seen*`), grouped by kind: `int`s, `long`s,
    /// doubles (`float` operands widened), then strings; each in the order recorded (the
    /// runtime skips a number equal to the one just recorded and a string already recorded).
    /// Null, over-long (> [`MAX_COMPARED_STRING`] units) and malformed (lone surrogate)
    /// strings are left out.
    fn read_compared(&self) -> Vec<Prim> {
        let jni = self.jni;
        let mut out = Vec::new();
        for (k, (f_buf, f_count)) in self.ids.f_seen.iter().enumerate() {
            let n = raw::integral(
                Kind::Int,
                jni.get_field(self.ids.probe, *f_count, Kind::Int, true),
            )
            .unwrap_or(0);
            if n <= 0 {
                continue;
            }
            let buf = raw::reference(jni.get_field(self.ids.probe, *f_buf, Kind::Object, true));
            if buf.is_null() {
                continue;
            }
            let n = (n as usize).min(jni.array_length(buf));
            match k {
                0 => {
                    let mut v = vec![0i32; n];
                    jni.read_ints(buf, 0, &mut v);
                    out.extend(v.into_iter().map(Prim::Int));
                }
                1 => {
                    let mut v = vec![0i64; n];
                    jni.read_longs(buf, 0, &mut v);
                    out.extend(v.into_iter().map(Prim::Long));
                }
                2 => {
                    let mut v = vec![0f64; n];
                    jni.read_doubles(buf, 0, &mut v);
                    out.extend(v.into_iter().map(|d| Prim::Double(JDouble(d))));
                }
                _ => {
                    for i in 0..n {
                        let e = jni.array_element(buf, i as jsize);
                        if e.is_null() {
                            continue;
                        }
                        let text = jni.read_string_exact(e, MAX_COMPARED_STRING);
                        jni.delete_local(e);
                        out.extend(text.map(Prim::String));
                    }
                }
            }
            jni.delete_local(buf);
        }
        out
    }

    /// Reads the probe data of the test that just ran and clears what it read.
    ///
    /// A probe only fires inside its method, so only the ranges (see [`MethodRanges`]) of the
    /// methods whose entry probe fired are read and then cleared from Rust; the arrays cover
    /// every instrumented class, and most tests touch a few methods. Code that runs outside a
    /// test (class initialisation, static resets) sets `full_reset`, and the next test starts
    /// with the runtime's full reset instead. Without method ranges (no method-entry probes)
    /// the whole arrays are read and the runtime resets them.
    pub(super) fn read_probes(&mut self) -> ProbeSnapshot {
        let jni = self.jni;
        let sizes = self.setup.sizes;
        let ranged = !self.setup.method_ranges.is_empty();
        let mut snap = ProbeSnapshot {
            compared: self.read_compared(),
            ..ProbeSnapshot::default()
        };
        let arr =
            |f: jfieldID| raw::reference(jni.get_field(self.ids.probe, f, Kind::Object, true));
        let methods = arr(self.ids.f_methods);
        if !methods.is_null() {
            let n = (sizes.methods as usize).min(jni.array_length(methods));
            self.buf_i2.resize(n, 0);
            jni.read_ints(methods, 0, &mut self.buf_i2[..n]);
            snap.methods.extend(
                self.buf_i2[..n]
                    .iter()
                    .enumerate()
                    .filter(|(_, c)| **c != 0)
                    .map(|(i, c)| (i as u32, *c as u32)),
            );
            if let (true, Some(first), Some(last)) =
                (ranged, snap.methods.first(), snap.methods.last())
            {
                let (lo, hi) = (first.0 as usize, last.0 as usize + 1);
                self.zeros.resize(self.zeros.len().max(hi - lo), 0);
                jni.write_ints(methods, lo, &self.zeros[..hi - lo]);
            }
            jni.delete_local(methods);
        }
        let ranges = |pick: fn(&MethodRanges) -> (u32, u32), size: u32| -> Vec<(usize, usize)> {
            if ranged {
                merge_ranges(
                    snap.methods
                        .iter()
                        .filter_map(|(id, _)| self.setup.method_ranges.get(*id as usize))
                        .map(pick),
                )
            } else {
                vec![(0, size as usize)]
            }
        };
        let branch_ranges = ranges(|r| r.branches, sizes.branch_slots);
        let line_ranges = ranges(|r| r.lines, sizes.lines);
        let loop_ranges = ranges(|r| r.loops, sizes.loops);

        let dist = arr(self.ids.f_dist);
        let hits = arr(self.ids.f_hits);
        if !dist.is_null() && !hits.is_null() {
            let len = jni.array_length(dist).min(jni.array_length(hits));
            for (lo, hi) in branch_ranges {
                let hi = hi.min(len);
                if lo >= hi {
                    continue;
                }
                let k = hi - lo;
                self.buf_d.resize(self.buf_d.len().max(k), 0.0);
                self.buf_i.resize(self.buf_i.len().max(k), 0);
                jni.read_doubles(dist, lo, &mut self.buf_d[..k]);
                jni.read_ints(hits, lo, &mut self.buf_i[..k]);
                for i in 0..k {
                    if self.buf_i[i] != 0 || self.buf_d[i].is_finite() {
                        snap.branches
                            .push(((lo + i) as u32, self.buf_i[i] as u32, self.buf_d[i]));
                    }
                }
                if ranged {
                    self.infinities
                        .resize(self.infinities.len().max(k), f64::INFINITY);
                    self.zeros.resize(self.zeros.len().max(k), 0);
                    jni.write_doubles(dist, lo, &self.infinities[..k]);
                    jni.write_ints(hits, lo, &self.zeros[..k]);
                }
            }
        }
        for (f, ranges, out) in [
            (self.ids.f_lines, line_ranges, &mut snap.lines),
            (self.ids.f_loops, loop_ranges, &mut snap.loops),
        ] {
            let a = arr(f);
            if a.is_null() {
                continue;
            }
            let len = jni.array_length(a);
            for (lo, hi) in ranges {
                let hi = hi.min(len);
                if lo >= hi {
                    continue;
                }
                let k = hi - lo;
                self.buf_i2.resize(self.buf_i2.len().max(k), 0);
                jni.read_ints(a, lo, &mut self.buf_i2[..k]);
                out.extend(
                    self.buf_i2[..k]
                        .iter()
                        .enumerate()
                        .filter(|(_, c)| **c != 0)
                        .map(|(i, c)| ((lo + i) as u32, *c as u32)),
                );
                if ranged {
                    self.zeros.resize(self.zeros.len().max(k), 0);
                    jni.write_ints(a, lo, &self.zeros[..k]);
                }
            }
            jni.delete_local(a);
        }
        let s = arr(self.ids.f_statics);
        if !s.is_null() {
            let n = self.setup.class_ids.len().min(jni.array_length(s));
            self.buf_z.resize(n, false);
            jni.read_booleans(s, &mut self.buf_z[..n]);
            snap.statics_written = (0..n)
                .filter(|i| self.buf_z[*i])
                .map(|i| i as u32)
                .collect();
            jni.delete_local(s);
        }
        jni.delete_local(dist);
        jni.delete_local(hits);
        jni.clear_exception();
        // Written statics are reset next, which runs code outside the test.
        if !ranged || !snap.statics_written.is_empty() {
            self.full_reset = true;
        }
        snap
    }

    /// Adds to `ids` the instrumented classes whose static state the test's own statements
    /// may have changed: a static field it wrote (through JNI, which no probe sees), or a
    /// static field it read whose value can change (an array or an object other than a
    /// string, a boxed primitive or a `Class`). The test may store into such an array or call
    /// a method that changes such an object; the next test in this worker must not see it,
    /// or what a test covers would depend on which tests ran before it in the same JVM (and
    /// so on the number of workers).
    pub(super) fn statics_touched(&self, statements: &[Statement], ids: &mut Vec<u32>) {
        for s in statements {
            let class = match s {
                Statement::FieldWrite {
                    class,
                    receiver: None,
                    ..
                } => class,
                Statement::FieldRead {
                    class,
                    descriptor,
                    receiver: None,
                    ..
                } if holds_mutable(descriptor) => class,
                _ => continue,
            };
            if let Some(id) = self.class_index.get(&**class) {
                ids.push(*id);
            }
        }
    }

    /// Calls the reset method of each class whose statics were written, in the order the
    /// classes were first loaded (their initialisation order). Returns the classes reset and,
    /// when a reset threw, why the worker must retire.
    ///
    /// The resets run as class initialisation does, not as a test: the abort flag and loop
    /// counts the test left are cleared and the loop limit is lifted (a reset that stopped
    /// half-way, say after the test hit the limit, would leave fields `null` for every later
    /// test), under the watchdog's time limit.
    pub(super) fn reset_statics(&mut self, written: &[u32]) -> (Vec<String>, Option<String>) {
        if written.is_empty() {
            return (Vec::new(), None);
        }
        let order: HashMap<String, usize> = match self.fetcher.loaded.lock() {
            Ok(l) => l.iter().enumerate().map(|(i, n)| (n.clone(), i)).collect(),
            Err(_) => HashMap::new(),
        };
        let mut ids: Vec<(usize, u32)> = written
            .iter()
            .filter_map(|id| {
                let name = self.setup.class_ids.get(*id as usize)?;
                Some((*order.get(name)?, *id))
            })
            .collect();
        ids.sort_unstable();
        ids.dedup();
        if ids.is_empty() {
            return (Vec::new(), None);
        }
        let (probe, limit_field) = (self.ids.probe, self.ids.f_loop_limit);
        let limit = self.jni.get_field(probe, limit_field, Kind::Int, true);
        self.jni
            .set_field(probe, limit_field, Kind::Int, jvalue { i: 0 }, true);
        self.call_void_static(probe, self.ids.probe_reset);
        self.watchdog.start(None, 0);
        let mut failed = None;
        let mut done = Vec::new();
        for (_, id) in ids {
            if !self.resets.contains_key(&id) {
                let name = self.setup.class_ids[id as usize].clone();
                let r = self.class_named(&name).ok().and_then(|c| {
                    let m = self.jni.method_id(
                        c,
                        &cstring(ferrosuite_bytecode::instrument::RESET_METHOD),
                        c"()V",
                        true,
                    );
                    if m.is_null() {
                        self.jni.clear_exception();
                        None
                    } else {
                        Some((c, m))
                    }
                });
                self.resets.insert(id, r);
            }
            if let Some(Some((c, m))) = self.resets.get(&id).copied() {
                self.jni.call(c, m, Kind::Void, &[], true);
                let name = self.setup.class_ids[id as usize].replace('/', ".");
                if self.jni.exception_pending() && failed.is_none() {
                    failed = Some(format!("the static reset of {name} threw"));
                }
                self.jni.clear_exception();
                done.push(name);
            }
        }
        if self.watchdog.end().is_some() && failed.is_none() {
            failed = Some("a static reset overran the time limit".into());
        }
        self.jni
            .set_field(probe, limit_field, Kind::Int, limit, true);
        // The reset ran code outside the test: the next test starts from a full reset.
        self.full_reset = true;
        (done, failed)
    }
}
