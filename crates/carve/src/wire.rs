//! Decodes the recorder's records (written by `org.ferrosuite.rt.rec.Recorder` and `Encoder`):
//! big-endian, one length-prefixed frame per record; errors name the byte offset.
//!
//! A call record: `u8 1`, `u8 kind` (1 method, 2 constructor), `u32 method`, `u64 id`,
//! `u64 parent`, `u64 thread`, the receiver's value and `u64` identity, `u16` argument count and
//! values, events (`0x21` call: `u32 target`, `u32 receiver`, `u16 n`, values; `0x22` its
//! result: value; `0x23` its exception; `0x24` static read: `u32 field`, value; the environment
//! as `EnvRecorder` writes it: `0x25` clock `u64`, `0x26` random double bits `u64`, `0x27` seed
//! `u64`, `0x28` file: path, `u8` state and its data, `0x29` console: `u32 n`, bytes, `0x2a` a
//! file's state at the call's end, as `0x28`), then `0x2f`,
//! `u8` 0 and the value or 1 and the exception, the value after, and `u8` flags (bit 0: a value or event was cut by a limit, bit 1: events were
//! cut by the event limit). Values
//! start with the tag of [`crate::model::Value`]'s variant, in declaration order of the Java
//! `Encoder` constants.
//!
//! ```
//! use ferrosuite_carve::wire::decode;
//! use ferrosuite_carve::model::Record;
//! // End of a run: no method counts, nothing dropped or unfinished.
//! let mut frame = vec![2, 0, 0, 0, 0];
//! frame.extend([0; 16]);
//! assert!(matches!(decode(&frame), Ok(Record::End(_))));
//! assert!(decode(&[9]).is_err());
//! ```

use crate::error::{Error, Result};
use crate::model::{
    CallKind, CallRecord, Content, EndRecord, Event, FieldValue, FileState, MethodCounts, Outcome,
    Record, Thrown, Value,
};

/// Values nest at most this deep in a record (the recorder's depth limit is far lower).
const MAX_NESTING: u32 = 256;

struct Reader<'a> {
    b: &'a [u8],
    at: usize,
    /// The current snapshot's names (classes, fields), by number.
    names: Vec<String>,
}

impl<'a> Reader<'a> {
    fn err(&self, detail: impl Into<String>) -> Error {
        Error::Wire {
            offset: self.at,
            detail: detail.into(),
        }
    }

    fn take(&mut self, n: usize) -> Result<&'a [u8]> {
        let end = self
            .at
            .checked_add(n)
            .filter(|e| *e <= self.b.len())
            .ok_or_else(|| {
                self.err(format!("{n} bytes needed, {} left", self.b.len() - self.at))
            })?;
        let s = &self.b[self.at..end];
        self.at = end;
        Ok(s)
    }

    fn u8(&mut self) -> Result<u8> {
        Ok(self.take(1)?[0])
    }

    fn u16(&mut self) -> Result<u16> {
        let s = self.take(2)?;
        Ok(u16::from_be_bytes([s[0], s[1]]))
    }

    fn u32(&mut self) -> Result<u32> {
        let s = self.take(4)?;
        Ok(u32::from_be_bytes([s[0], s[1], s[2], s[3]]))
    }

    fn u64(&mut self) -> Result<u64> {
        let s = self.take(8)?;
        let mut a = [0u8; 8];
        a.copy_from_slice(s);
        Ok(u64::from_be_bytes(a))
    }

    fn str(&mut self) -> Result<String> {
        let n = self.u32()? as usize;
        let at = self.at;
        let s = self.take(n)?;
        String::from_utf8(s.to_vec()).map_err(|e| Error::Wire {
            offset: at,
            detail: format!("string is not UTF-8: {e}"),
        })
    }

    /// `u32` length and bytes.
    fn bytes(&mut self) -> Result<Vec<u8>> {
        let n = self.u32()? as usize;
        Ok(self.take(n)?.to_vec())
    }

    /// A file's state (see `EnvRecorder`): `u8` 0 missing and `u8` parent exists, 1 file and
    /// bytes, 2 directory and `u32` entries (name, `u8` directory), 3 other.
    fn file_state(&mut self) -> Result<FileState> {
        let at = self.at;
        Ok(match self.u8()? {
            0 => FileState::Missing {
                parent_exists: self.u8()? != 0,
            },
            1 => FileState::File {
                content: Content::of(self.bytes()?),
            },
            2 => {
                let n = self.u32()? as usize;
                let n = self.count(n)?;
                let mut entries = Vec::with_capacity(n);
                for _ in 0..n {
                    let name = self.str()?;
                    entries.push((name, self.u8()? != 0));
                }
                FileState::Directory { entries }
            }
            3 => FileState::Other,
            k => {
                return Err(Error::Wire {
                    offset: at,
                    detail: format!("unknown file state {k}"),
                });
            }
        })
    }

    /// A class or field name: a string, or `u32::MAX` and the number of one given before in
    /// this snapshot.
    fn name(&mut self) -> Result<String> {
        let at = self.at;
        let n = self.u32()?;
        if n == u32::MAX {
            let k = self.u32()? as usize;
            return self.names.get(k).cloned().ok_or_else(|| Error::Wire {
                offset: at,
                detail: format!(
                    "name {k} not defined in this snapshot ({} are)",
                    self.names.len()
                ),
            });
        }
        self.at = at;
        let s = self.str()?;
        self.names.push(s.clone());
        Ok(s)
    }

    /// Starts a snapshot: names are numbered afresh.
    fn fresh(&mut self) {
        self.names.clear();
    }

    /// A count of items each taking at least one byte: bounded by what is left.
    fn count(&mut self, n: usize) -> Result<usize> {
        if n > self.b.len() - self.at {
            return Err(self.err(format!(
                "count {n} exceeds the {} bytes left",
                self.b.len() - self.at
            )));
        }
        Ok(n)
    }

    fn value(&mut self, nesting: u32) -> Result<Value> {
        if nesting > MAX_NESTING {
            return Err(self.err("values nested too deeply"));
        }
        let tag_at = self.at;
        let tag = self.u8()?;
        Ok(match tag {
            0 => Value::Null,
            1 => Value::Boolean { v: self.u8()? != 0 },
            2 => Value::Byte {
                v: self.u8()? as i8,
            },
            3 => Value::Char { v: self.u16()? },
            4 => Value::Short {
                v: self.u16()? as i16,
            },
            5 => Value::Int {
                v: self.u32()? as i32,
            },
            6 => Value::Long {
                v: self.u64()? as i64,
            },
            7 => Value::Float { bits: self.u32()? },
            8 => Value::Double { bits: self.u64()? },
            9 => Value::String { v: self.str()? },
            10 => Value::Enum {
                class: self.name()?,
                name: self.name()?,
            },
            11 => Value::Class { name: self.name()? },
            12 => {
                let r = self.u32()?;
                let component = self.name()?;
                let length = self.u32()?;
                let n = self.u32()? as usize;
                let n = self.count(n)?;
                let mut items = Vec::with_capacity(n);
                for _ in 0..n {
                    items.push(self.value(nesting + 1)?);
                }
                Value::Array {
                    r,
                    component,
                    length,
                    items,
                }
            }
            13 => {
                let r = self.u32()?;
                let class = self.name()?;
                let id = self.u64()? as i64;
                let n = usize::from(self.u16()?);
                let n = self.count(n)?;
                let mut fields = Vec::with_capacity(n);
                for _ in 0..n {
                    let declaring = self.name()?;
                    fields.push(FieldValue {
                        declaring: (declaring != class).then_some(declaring),
                        name: self.name()?,
                        value: self.value(nesting + 1)?,
                    });
                }
                let partial = self.u8()? != 0;
                Value::Object {
                    r,
                    class,
                    id,
                    fields,
                    partial,
                }
            }
            14 => Value::BackRef { r: self.u32()? },
            15 => Value::Ref {
                r: self.u32()?,
                class: self.name()?,
                id: self.u64()? as i64,
            },
            16 => Value::Text {
                r: self.u32()?,
                class: self.name()?,
                text: self.str()?,
            },
            17 => {
                let r = self.u32()?;
                let class = self.name()?;
                let size = self.u32()?;
                let n = self.u32()? as usize;
                let n = self.count(n)?;
                let mut items = Vec::with_capacity(n);
                for _ in 0..n {
                    items.push(self.value(nesting + 1)?);
                }
                Value::Collection {
                    r,
                    class,
                    size,
                    items,
                }
            }
            18 => {
                let r = self.u32()?;
                let class = self.name()?;
                let size = self.u32()?;
                let n = self.u32()? as usize;
                let n = self.count(n)?;
                let mut entries = Vec::with_capacity(n);
                for _ in 0..n {
                    let k = self.value(nesting + 1)?;
                    let v = self.value(nesting + 1)?;
                    entries.push((k, v));
                }
                Value::Map {
                    r,
                    class,
                    size,
                    entries,
                }
            }
            19 => Value::Opaque {
                r: self.u32()?,
                class: self.name()?,
                reason: self.str()?,
            },
            20 => Value::Void,
            21 => Value::Same,
            t => {
                return Err(Error::Wire {
                    offset: tag_at,
                    detail: format!("unknown value tag {t}"),
                });
            }
        })
    }

    fn thrown(&mut self) -> Result<Thrown> {
        let class = self.str()?;
        let message = match self.u8()? {
            0 => None,
            _ => Some(self.str()?),
        };
        Ok(Thrown { class, message })
    }

    fn outcome(&mut self) -> Result<Outcome> {
        let at = self.at;
        Ok(match self.u8()? {
            0 => Outcome::Returned {
                value: {
                    self.fresh();
                    self.value(0)?
                },
            },
            1 => Outcome::Threw {
                exception: self.thrown()?,
            },
            k => {
                return Err(Error::Wire {
                    offset: at,
                    detail: format!("unknown outcome {k}"),
                });
            }
        })
    }

    fn call(&mut self) -> Result<CallRecord> {
        let kind_at = self.at;
        let kind = match self.u8()? {
            1 => CallKind::Method,
            2 => CallKind::Constructor,
            k => {
                return Err(Error::Wire {
                    offset: kind_at,
                    detail: format!("unknown call kind {k}"),
                });
            }
        };
        let method = self.u32()?;
        let id = self.u64()?;
        let parent = self.u64()?;
        let thread = self.u64()?;
        self.fresh();
        let receiver = self.value(0)?;
        let receiver_id = self.u64()? as i64;
        let n = usize::from(self.u16()?);
        let n = self.count(n)?;
        let mut args = Vec::with_capacity(n);
        for _ in 0..n {
            args.push(self.value(0)?);
        }
        let mut events = Vec::new();
        loop {
            let at = self.at;
            match self.u8()? {
                0x21 => {
                    let target = self.u32()?;
                    let receiver = self.u32()?;
                    let n = usize::from(self.u16()?);
                    let n = self.count(n)?;
                    let mut args = Vec::with_capacity(n);
                    self.fresh();
                    for _ in 0..n {
                        args.push(self.value(0)?);
                    }
                    events.push(Event::Call {
                        target,
                        receiver,
                        args,
                        outcome: None,
                    });
                }
                tag @ (0x22 | 0x23) => {
                    self.fresh();
                    let outcome = if tag == 0x22 {
                        Outcome::Returned {
                            value: self.value(0)?,
                        }
                    } else {
                        Outcome::Threw {
                            exception: self.thrown()?,
                        }
                    };
                    match events.last_mut() {
                        Some(Event::Call {
                            outcome: o @ None, ..
                        }) => *o = Some(outcome),
                        _ => {
                            return Err(Error::Wire {
                                offset: at,
                                detail: "a call's end without its start".into(),
                            });
                        }
                    }
                }
                0x24 => {
                    let field = self.u32()?;
                    self.fresh();
                    let value = self.value(0)?;
                    events.push(Event::StaticRead { field, value });
                }
                0x25 => events.push(Event::Clock {
                    millis: self.u64()? as i64,
                }),
                0x26 => events.push(Event::RandomDouble { bits: self.u64()? }),
                0x27 => events.push(Event::RandomSeed {
                    seed: self.u64()? as i64,
                }),
                0x28 => {
                    let path = self.str()?;
                    let state = self.file_state()?;
                    events.push(Event::File { path, state });
                }
                0x2a => {
                    let path = self.str()?;
                    let state = self.file_state()?;
                    events.push(Event::FileAfter { path, state });
                }
                0x29 => {
                    let input = self.bytes()?;
                    events.push(Event::Console {
                        input: Content::of(input),
                    });
                }
                0x2f => break,
                t => {
                    return Err(Error::Wire {
                        offset: at,
                        detail: format!("unknown event tag 0x{t:02x}"),
                    });
                }
            }
        }
        let outcome = self.outcome()?;
        self.fresh();
        let after = self.value(0)?;
        let flags = self.u8()?;
        Ok(CallRecord {
            kind,
            method,
            id,
            parent,
            thread,
            receiver,
            receiver_id,
            args,
            events,
            outcome,
            after,
            truncated: flags != 0,
            events_cut: flags & 2 != 0,
        })
    }

    fn end(&mut self) -> Result<EndRecord> {
        let n = self.u32()? as usize;
        let n = self.count(n)?;
        let mut methods = Vec::with_capacity(n);
        for _ in 0..n {
            methods.push(MethodCounts {
                method: self.u32()?,
                seen: self.u32()?,
                recorded: self.u32()?,
                repeats: self.u32()?,
            });
        }
        Ok(EndRecord {
            methods,
            dropped: self.u64()?,
            unfinished: self.u64()?,
        })
    }
}

/// Decodes one record (the frame without its length prefix).
///
/// # Errors
/// [`Error::Wire`] with the byte offset when the frame is malformed or has trailing bytes.
pub fn decode(frame: &[u8]) -> Result<Record> {
    let mut r = Reader {
        b: frame,
        at: 0,
        names: Vec::new(),
    };
    let rec = match r.u8()? {
        1 => Record::Call(Box::new(r.call()?)),
        2 => Record::End(r.end()?),
        k => {
            return Err(Error::Wire {
                offset: 0,
                detail: format!("unknown record kind {k}"),
            });
        }
    };
    if r.at != frame.len() {
        return Err(r.err(format!("{} trailing bytes", frame.len() - r.at)));
    }
    Ok(rec)
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::panic)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn call_frame() -> Vec<u8> {
        let mut f = vec![1, 1];
        f.extend(7u32.to_be_bytes()); // method
        f.extend(3u64.to_be_bytes()); // id
        f.extend(0u64.to_be_bytes()); // parent
        f.extend(1u64.to_be_bytes()); // thread
        f.push(0); // receiver null
        f.extend(0u64.to_be_bytes());
        f.extend(1u16.to_be_bytes());
        f.push(9);
        f.extend(2u32.to_be_bytes());
        f.extend(b"hi");
        f.push(0x21);
        f.extend(4u32.to_be_bytes());
        f.extend(1u32.to_be_bytes());
        f.extend(0u16.to_be_bytes());
        f.push(0x22);
        f.push(5);
        f.extend(9i32.to_be_bytes());
        f.push(0x2f);
        f.push(0);
        f.push(5);
        f.extend((-1i32).to_be_bytes());
        f.push(0);
        f.push(0);
        f
    }

    #[test]
    fn decodes_a_call_with_an_interaction() {
        let Record::Call(c) = decode(&call_frame()).unwrap() else {
            panic!("not a call");
        };
        assert_eq!(c.method, 7);
        assert_eq!(c.args, vec![Value::String { v: "hi".into() }]);
        assert_eq!(
            c.events,
            vec![Event::Call {
                target: 4,
                receiver: 1,
                args: vec![],
                outcome: Some(Outcome::Returned {
                    value: Value::Int { v: 9 }
                })
            }]
        );
        assert_eq!(
            c.outcome,
            Outcome::Returned {
                value: Value::Int { v: -1 }
            }
        );
    }

    /// The call frame with one event of each kind of the environment before its end.
    fn environment_frame() -> Vec<u8> {
        let mut f = call_frame();
        let end = f.len() - 9; // 0x2f, u8 0, int -1, flags
        assert_eq!(f[end], 0x2f);
        let mut ev = vec![0x25];
        ev.extend(1_700_000_000_000u64.to_be_bytes());
        ev.push(0x26);
        ev.extend(0.5f64.to_bits().to_be_bytes());
        ev.push(0x27);
        ev.extend((-7i64).to_be_bytes());
        ev.push(0x28); // a file with two bytes, one not UTF-8
        ev.extend(1u32.to_be_bytes());
        ev.extend(b"a");
        ev.push(1);
        ev.extend(2u32.to_be_bytes());
        ev.extend([0x41, 0xff]);
        ev.push(0x28); // a directory with one subdirectory
        ev.extend(1u32.to_be_bytes());
        ev.extend(b"d");
        ev.push(2);
        ev.extend(1u32.to_be_bytes());
        ev.extend(1u32.to_be_bytes());
        ev.extend(b"s");
        ev.push(1);
        ev.push(0x28); // missing, its parent there
        ev.extend(1u32.to_be_bytes());
        ev.extend(b"m");
        ev.extend([0, 1]);
        ev.push(0x29);
        ev.extend(3u32.to_be_bytes());
        ev.extend(b"ok\n");
        ev.push(0x2a); // "m" written
        ev.extend(1u32.to_be_bytes());
        ev.extend(b"m");
        ev.push(1);
        ev.extend(1u32.to_be_bytes());
        ev.extend(b"z");
        f.splice(end..end, ev);
        f
    }

    #[test]
    fn decodes_the_environment_a_call_read() {
        let Record::Call(c) = decode(&environment_frame()).unwrap() else {
            panic!("not a call");
        };
        assert_eq!(
            c.events[1..],
            [
                Event::Clock {
                    millis: 1_700_000_000_000
                },
                Event::RandomDouble {
                    bits: 0.5f64.to_bits()
                },
                Event::RandomSeed { seed: -7 },
                Event::File {
                    path: "a".into(),
                    state: FileState::File {
                        content: Content::Base64("Qf8=".into())
                    }
                },
                Event::File {
                    path: "d".into(),
                    state: FileState::Directory {
                        entries: vec![("s".into(), true)]
                    }
                },
                Event::File {
                    path: "m".into(),
                    state: FileState::Missing {
                        parent_exists: true
                    }
                },
                Event::Console {
                    input: Content::Text("ok\n".into())
                },
                Event::FileAfter {
                    path: "m".into(),
                    state: FileState::File {
                        content: Content::Text("z".into())
                    }
                },
            ]
        );
    }

    #[test]
    fn errors_name_the_offset() {
        let mut f = call_frame();
        f[30] = 99; // the receiver's tag
        let e = decode(&f).unwrap_err().to_string();
        assert!(e.contains("byte 30") && e.contains("tag 99"), "{e}");
        let f = call_frame();
        assert!(decode(&f[..f.len() - 1]).is_err());
    }

    proptest! {
        #[test]
        fn never_panics_on_arbitrary_bytes(bytes in proptest::collection::vec(any::<u8>(), 0..200)) {
            let _ = decode(&bytes);
        }

        #[test]
        fn truncations_of_a_valid_frame_are_errors(cut in 0usize..160) {
            for f in [call_frame(), environment_frame()] {
                let cut = cut.min(f.len() - 1);
                prop_assert!(decode(&f[..cut]).is_err());
            }
        }
    }
}
