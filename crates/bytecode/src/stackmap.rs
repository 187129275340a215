//! `StackMapTable` frames (JVMS 4.7.4): the exact encoded form, and the absolute form used when
//! code is rewritten.
//!
//! The encoded form keeps which frame type was used (`same_frame` vs `same_frame_extended`, …)
//! so that reading and writing is byte-identical. Instrumentation works on absolute states
//! ([`FrameState`]: full locals and stack at an offset): [`decode_frames`] expands the
//! delta-encoded table starting from the method's initial frame, and [`encode_frames`] writes
//! states back in the most compact form relative to their new predecessors.
//!
//! ```
//! use ferrosuite_bytecode::stackmap::{FrameState, VType, encode_frames, decode_frames};
//! let initial = FrameState { locals: vec![VType::Integer], stack: vec![] };
//! let frames = vec![
//!     (4, FrameState { locals: vec![VType::Integer], stack: vec![] }),
//!     (9, FrameState { locals: vec![VType::Integer, VType::Long], stack: vec![] }),
//! ];
//! let encoded = encode_frames(&initial, &frames).unwrap();
//! assert_eq!(decode_frames(&initial, &encoded).unwrap(), frames);
//! ```

use crate::bytes::{ByteReader, ByteWriter};
use crate::constant_pool::CpIndex;
use crate::error::{Error, Result};

/// A verification type.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum VType {
    /// `top`.
    Top,
    /// `int` (also boolean, byte, char, short).
    Integer,
    /// `float`.
    Float,
    /// `double` (one entry, two local slots).
    Double,
    /// `long` (one entry, two local slots).
    Long,
    /// `null`.
    Null,
    /// `this` in a constructor before the super call.
    UninitializedThis,
    /// An object of the class named by a `Class` constant.
    Object(CpIndex),
    /// The result of the `new` instruction at this code offset, not yet initialised.
    Uninitialized(u16),
}

impl VType {
    fn parse(r: &mut ByteReader<'_>) -> Result<Self> {
        let offset = r.offset();
        Ok(match r.u8("verification type tag")? {
            0 => VType::Top,
            1 => VType::Integer,
            2 => VType::Float,
            3 => VType::Double,
            4 => VType::Long,
            5 => VType::Null,
            6 => VType::UninitializedThis,
            7 => VType::Object(CpIndex(r.u16("Object_variable_info")?)),
            8 => VType::Uninitialized(r.u16("Uninitialized_variable_info")?),
            t => {
                return Err(Error::Malformed {
                    what: "verification type",
                    offset,
                    detail: format!("unknown tag {t}"),
                });
            }
        })
    }

    fn write(self, out: &mut Vec<u8>) {
        match self {
            VType::Top => out.put_u8(0),
            VType::Integer => out.put_u8(1),
            VType::Float => out.put_u8(2),
            VType::Double => out.put_u8(3),
            VType::Long => out.put_u8(4),
            VType::Null => out.put_u8(5),
            VType::UninitializedThis => out.put_u8(6),
            VType::Object(c) => {
                out.put_u8(7);
                out.put_u16(c.0);
            }
            VType::Uninitialized(o) => {
                out.put_u8(8);
                out.put_u16(o);
            }
        }
    }

    /// Local-variable slots taken by this type (2 for long and double).
    #[must_use]
    pub fn slots(self) -> usize {
        if matches!(self, VType::Long | VType::Double) {
            2
        } else {
            1
        }
    }
}

/// One encoded stack-map frame, keeping its frame type.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StackMapFrame {
    /// `same_frame` (type 0..=63) or `same_frame_extended` (251).
    Same {
        /// Offset delta.
        delta: u16,
        /// True for `same_frame_extended`.
        extended: bool,
    },
    /// `same_locals_1_stack_item_frame` (64..=127) or its extended form (247).
    SameLocals1 {
        /// Offset delta.
        delta: u16,
        /// The single stack entry.
        stack: VType,
        /// True for the extended form.
        extended: bool,
    },
    /// `chop_frame` (248..=250): the last `k` locals are removed.
    Chop {
        /// Offset delta.
        delta: u16,
        /// 1..=3.
        k: u8,
    },
    /// `append_frame` (252..=254).
    Append {
        /// Offset delta.
        delta: u16,
        /// 1..=3 added locals.
        locals: Vec<VType>,
    },
    /// `full_frame` (255).
    Full {
        /// Offset delta.
        delta: u16,
        /// All locals.
        locals: Vec<VType>,
        /// The operand stack.
        stack: Vec<VType>,
    },
}

impl StackMapFrame {
    /// The frame's offset delta.
    #[must_use]
    pub fn delta(&self) -> u16 {
        match self {
            StackMapFrame::Same { delta, .. }
            | StackMapFrame::SameLocals1 { delta, .. }
            | StackMapFrame::Chop { delta, .. }
            | StackMapFrame::Append { delta, .. }
            | StackMapFrame::Full { delta, .. } => *delta,
        }
    }

    /// Parses one frame.
    pub fn parse(r: &mut ByteReader<'_>) -> Result<Self> {
        let offset = r.offset();
        let t = r.u8("stack map frame type")?;
        Ok(match t {
            0..=63 => StackMapFrame::Same {
                delta: u16::from(t),
                extended: false,
            },
            64..=127 => StackMapFrame::SameLocals1 {
                delta: u16::from(t - 64),
                stack: VType::parse(r)?,
                extended: false,
            },
            247 => {
                let delta = r.u16("offset_delta")?;
                StackMapFrame::SameLocals1 {
                    delta,
                    stack: VType::parse(r)?,
                    extended: true,
                }
            }
            248..=250 => StackMapFrame::Chop {
                delta: r.u16("offset_delta")?,
                k: 251 - t,
            },
            251 => StackMapFrame::Same {
                delta: r.u16("offset_delta")?,
                extended: true,
            },
            252..=254 => {
                let delta = r.u16("offset_delta")?;
                let mut locals = Vec::with_capacity(usize::from(t - 251));
                for _ in 0..t - 251 {
                    locals.push(VType::parse(r)?);
                }
                StackMapFrame::Append { delta, locals }
            }
            255 => {
                let delta = r.u16("offset_delta")?;
                let locals = r.list("full_frame locals", VType::parse)?;
                let stack = r.list("full_frame stack", VType::parse)?;
                StackMapFrame::Full {
                    delta,
                    locals,
                    stack,
                }
            }
            _ => {
                return Err(Error::Malformed {
                    what: "stack map frame",
                    offset,
                    detail: format!("reserved frame type {t}"),
                });
            }
        })
    }

    /// Writes one frame in its recorded encoding.
    pub fn write(&self, out: &mut Vec<u8>) -> Result<()> {
        match self {
            StackMapFrame::Same { delta, extended } => {
                if !extended && *delta < 64 {
                    out.put_u8(*delta as u8);
                } else {
                    out.put_u8(251);
                    out.put_u16(*delta);
                }
            }
            StackMapFrame::SameLocals1 {
                delta,
                stack,
                extended,
            } => {
                if !extended && *delta < 64 {
                    out.put_u8(64 + *delta as u8);
                } else {
                    out.put_u8(247);
                    out.put_u16(*delta);
                }
                stack.write(out);
            }
            StackMapFrame::Chop { delta, k } => {
                if !(1..=3).contains(k) {
                    return Err(Error::Rewrite(format!("chop_frame of {k} locals")));
                }
                out.put_u8(251 - k);
                out.put_u16(*delta);
            }
            StackMapFrame::Append { delta, locals } => {
                if !(1..=3).contains(&locals.len()) {
                    return Err(Error::Rewrite(format!(
                        "append_frame of {} locals",
                        locals.len()
                    )));
                }
                out.put_u8(251 + locals.len() as u8);
                out.put_u16(*delta);
                for l in locals {
                    l.write(out);
                }
            }
            StackMapFrame::Full {
                delta,
                locals,
                stack,
            } => {
                out.put_u8(255);
                out.put_u16(*delta);
                out.put_len16(locals.len(), "full_frame locals")?;
                for l in locals {
                    l.write(out);
                }
                out.put_len16(stack.len(), "full_frame stack")?;
                for s in stack {
                    s.write(out);
                }
            }
        }
        Ok(())
    }
}

/// The absolute state a frame describes: locals (long/double as one entry) and stack.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct FrameState {
    /// Locals in the frame's list form (a long or double is one entry covering two slots).
    pub locals: Vec<VType>,
    /// Operand stack, bottom first.
    pub stack: Vec<VType>,
}

/// Expands encoded frames to absolute `(offset, state)` pairs, starting from the method's
/// implicit initial frame.
pub fn decode_frames(
    initial: &FrameState,
    frames: &[StackMapFrame],
) -> Result<Vec<(u32, FrameState)>> {
    let mut out: Vec<(u32, FrameState)> = Vec::with_capacity(frames.len());
    let mut locals = initial.locals.clone();
    let mut offset: i64 = -1;
    for f in frames {
        offset += i64::from(f.delta()) + 1;
        let stack = match f {
            StackMapFrame::Same { .. } => Vec::new(),
            StackMapFrame::SameLocals1 { stack, .. } => vec![*stack],
            StackMapFrame::Chop { k, .. } => {
                let k = usize::from(*k);
                if k > locals.len() {
                    return Err(Error::Rewrite(format!(
                        "chop_frame at offset {offset} removes {k} of {} locals",
                        locals.len()
                    )));
                }
                locals.truncate(locals.len() - k);
                Vec::new()
            }
            StackMapFrame::Append { locals: add, .. } => {
                locals.extend_from_slice(add);
                Vec::new()
            }
            StackMapFrame::Full {
                locals: l, stack, ..
            } => {
                locals.clone_from(l);
                stack.clone()
            }
        };
        out.push((
            offset as u32,
            FrameState {
                locals: locals.clone(),
                stack,
            },
        ));
    }
    Ok(out)
}

/// Encodes absolute frames (offsets strictly increasing) in the most compact form.
pub fn encode_frames(
    initial: &FrameState,
    frames: &[(u32, FrameState)],
) -> Result<Vec<StackMapFrame>> {
    let mut out = Vec::with_capacity(frames.len());
    let mut prev_locals = &initial.locals;
    let mut prev_offset: i64 = -1;
    for (offset, st) in frames {
        let d = i64::from(*offset) - prev_offset - 1;
        let delta = u16::try_from(d).map_err(|_| {
            Error::Rewrite(format!(
                "stack map frames out of order or too far apart at offset {offset}"
            ))
        })?;
        let same_locals = st.locals == *prev_locals;
        let frame = if same_locals && st.stack.is_empty() {
            StackMapFrame::Same {
                delta,
                extended: delta >= 64,
            }
        } else if same_locals && st.stack.len() == 1 {
            StackMapFrame::SameLocals1 {
                delta,
                stack: st.stack[0],
                extended: delta >= 64,
            }
        } else if st.stack.is_empty()
            && st.locals.len() < prev_locals.len()
            && prev_locals.len() - st.locals.len() <= 3
            && prev_locals.starts_with(&st.locals)
        {
            StackMapFrame::Chop {
                delta,
                k: (prev_locals.len() - st.locals.len()) as u8,
            }
        } else if st.stack.is_empty()
            && st.locals.len() > prev_locals.len()
            && st.locals.len() - prev_locals.len() <= 3
            && st.locals.starts_with(prev_locals)
        {
            StackMapFrame::Append {
                delta,
                locals: st.locals[prev_locals.len()..].to_vec(),
            }
        } else {
            StackMapFrame::Full {
                delta,
                locals: st.locals.clone(),
                stack: st.stack.clone(),
            }
        };
        out.push(frame);
        prev_locals = &st.locals;
        prev_offset = i64::from(*offset);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn vtype() -> impl Strategy<Value = VType> {
        prop_oneof![
            Just(VType::Top),
            Just(VType::Integer),
            Just(VType::Long),
            Just(VType::Double),
            Just(VType::Null),
            (1u16..5).prop_map(|i| VType::Object(CpIndex(i))),
            (0u16..9).prop_map(VType::Uninitialized),
        ]
    }

    fn state() -> impl Strategy<Value = FrameState> {
        (
            proptest::collection::vec(vtype(), 0..6),
            proptest::collection::vec(vtype(), 0..3),
        )
            .prop_map(|(locals, stack)| FrameState { locals, stack })
    }

    proptest! {
        #[test]
        fn absolute_frames_round_trip(
            initial in state().prop_map(|s| FrameState { stack: vec![], ..s }),
            gaps in proptest::collection::vec(0u32..200, 0..12),
            states in proptest::collection::vec(state(), 12),
        ) {
            let mut offset = 0u32;
            let frames: Vec<(u32, FrameState)> = gaps
                .iter()
                .zip(states)
                .enumerate()
                .map(|(i, (g, s))| {
                    offset += g + u32::from(i > 0);
                    (offset, s)
                })
                .collect();
            let enc = encode_frames(&initial, &frames).map_err(|e| TestCaseError::fail(e.to_string()))?;
            let mut bytes = Vec::new();
            for f in &enc {
                f.write(&mut bytes).map_err(|e| TestCaseError::fail(e.to_string()))?;
            }
            let mut r = ByteReader::new(&bytes, 0);
            let mut parsed = Vec::new();
            while !r.is_empty() {
                parsed.push(StackMapFrame::parse(&mut r).map_err(|e| TestCaseError::fail(e.to_string()))?);
            }
            prop_assert_eq!(&parsed, &enc);
            let dec = decode_frames(&initial, &parsed).map_err(|e| TestCaseError::fail(e.to_string()))?;
            prop_assert_eq!(dec, frames);
        }
    }
}
