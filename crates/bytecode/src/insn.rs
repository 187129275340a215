//! Instruction decoder and encoder for every opcode, including `wide`, `tableswitch` /
//! `lookupswitch` padding and `invokedynamic`.
//!
//! [`decode`] turns a code array into `(offset, Insn)` pairs with **absolute** branch targets;
//! [`encode_at`] writes an instruction at a given offset (padding and relative offsets depend on
//! it). The encoder keeps the form that was read (`ldc` vs `ldc_w`, `wide iload` vs `iload`,
//! `goto` vs `goto_w`), so decoding and re-encoding reproduces the original bytes.
//!
//! ```
//! use ferrosuite_bytecode::insn::{decode, encode_all, Insn};
//! use ferrosuite_bytecode::opcodes as op;
//! let code = [0x1a, 0x99, 0x00, 0x05, 0x04, 0xac, 0x03, 0xac]; // iload_0; ifeq +5; iconst_1; ireturn; iconst_0; ireturn
//! let insns = decode(&code).unwrap();
//! assert_eq!(insns[1], (1, Insn::Branch { op: op::IFEQ, target: 6 }));
//! assert_eq!(encode_all(&insns).unwrap(), code);
//! ```

use crate::bytes::{ByteReader, ByteWriter};
use crate::constant_pool::CpIndex;
use crate::error::{Error, Result};
use crate::opcodes::{self as op, Format};

/// One instruction; `T` is the branch-target type (absolute offsets when decoded, labels
/// when edited).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Insn<T = u32> {
    /// An opcode without operands.
    Simple(u8),
    /// A load, store or `ret` with an explicit index; `wide` keeps the `wide` prefix form.
    Local {
        /// Opcode (`iload` … `astore`, `ret`).
        op: u8,
        /// Local slot.
        index: u16,
        /// Encoded with the `wide` prefix.
        wide: bool,
    },
    /// `iinc`.
    Iinc {
        /// Local slot.
        index: u16,
        /// Increment.
        delta: i16,
        /// Encoded with the `wide` prefix.
        wide: bool,
    },
    /// `bipush`.
    Bipush(i8),
    /// `sipush`.
    Sipush(i16),
    /// `ldc`, `ldc_w` or `ldc2_w`.
    Ldc {
        /// Opcode.
        op: u8,
        /// Constant.
        index: CpIndex,
    },
    /// Field access, `invokevirtual`/`special`/`static`, `new`, `anewarray`, `checkcast`,
    /// `instanceof`.
    Cp {
        /// Opcode.
        op: u8,
        /// Constant.
        index: CpIndex,
    },
    /// `invokeinterface`.
    InvokeInterface {
        /// Method reference.
        index: CpIndex,
        /// The historical argument-slot count byte.
        count: u8,
        /// The trailing byte (0 in valid code).
        zero: u8,
    },
    /// `invokedynamic`.
    InvokeDynamic {
        /// `InvokeDynamic` constant.
        index: CpIndex,
        /// The two trailing bytes (0 in valid code).
        zero: u16,
    },
    /// `multianewarray`.
    MultiANewArray {
        /// Array class.
        index: CpIndex,
        /// Dimensions.
        dims: u8,
    },
    /// `newarray`.
    NewArray(u8),
    /// Conditional jumps, `goto`, `jsr`, `goto_w`, `jsr_w`.
    Branch {
        /// Opcode.
        op: u8,
        /// Target.
        target: T,
    },
    /// `tableswitch`.
    TableSwitch {
        /// Default target.
        default: T,
        /// Lowest key.
        low: i32,
        /// Highest key.
        high: i32,
        /// Targets for `low..=high`.
        targets: Vec<T>,
    },
    /// `lookupswitch`.
    LookupSwitch {
        /// Default target.
        default: T,
        /// Sorted `(key, target)` pairs.
        pairs: Vec<(i32, T)>,
    },
}

impl<T> Insn<T> {
    /// The opcode.
    #[must_use]
    pub fn opcode(&self) -> u8 {
        match self {
            Insn::Simple(o)
            | Insn::Local { op: o, .. }
            | Insn::Ldc { op: o, .. }
            | Insn::Cp { op: o, .. }
            | Insn::Branch { op: o, .. } => *o,
            Insn::Iinc { .. } => op::IINC,
            Insn::Bipush(_) => op::BIPUSH,
            Insn::Sipush(_) => op::SIPUSH,
            Insn::InvokeInterface { .. } => op::INVOKEINTERFACE,
            Insn::InvokeDynamic { .. } => op::INVOKEDYNAMIC,
            Insn::MultiANewArray { .. } => op::MULTIANEWARRAY,
            Insn::NewArray(_) => op::NEWARRAY,
            Insn::TableSwitch { .. } => op::TABLESWITCH,
            Insn::LookupSwitch { .. } => op::LOOKUPSWITCH,
        }
    }

    /// All branch targets (switch default first, then cases in order).
    #[must_use]
    pub fn targets(&self) -> Vec<&T> {
        match self {
            Insn::Branch { target, .. } => vec![target],
            Insn::TableSwitch {
                default, targets, ..
            } => std::iter::once(default).chain(targets).collect(),
            Insn::LookupSwitch { default, pairs } => std::iter::once(default)
                .chain(pairs.iter().map(|(_, t)| t))
                .collect(),
            _ => Vec::new(),
        }
    }

    /// For `tableswitch` and `lookupswitch`: the default target and the `(key, target)` cases.
    #[must_use]
    pub fn switch_cases(&self) -> Option<(T, Vec<(i32, T)>)>
    where
        T: Clone,
    {
        match self {
            Insn::TableSwitch {
                default,
                low,
                targets,
                ..
            } => Some((
                default.clone(),
                targets
                    .iter()
                    .enumerate()
                    .map(|(k, t)| (low.wrapping_add(k as i32), t.clone()))
                    .collect(),
            )),
            Insn::LookupSwitch { default, pairs } => Some((default.clone(), pairs.clone())),
            _ => None,
        }
    }

    /// Converts the branch targets.
    pub fn map_targets<U>(self, mut f: impl FnMut(T) -> Result<U>) -> Result<Insn<U>> {
        Ok(match self {
            Insn::Simple(o) => Insn::Simple(o),
            Insn::Local { op, index, wide } => Insn::Local { op, index, wide },
            Insn::Iinc { index, delta, wide } => Insn::Iinc { index, delta, wide },
            Insn::Bipush(v) => Insn::Bipush(v),
            Insn::Sipush(v) => Insn::Sipush(v),
            Insn::Ldc { op, index } => Insn::Ldc { op, index },
            Insn::Cp { op, index } => Insn::Cp { op, index },
            Insn::InvokeInterface { index, count, zero } => {
                Insn::InvokeInterface { index, count, zero }
            }
            Insn::InvokeDynamic { index, zero } => Insn::InvokeDynamic { index, zero },
            Insn::MultiANewArray { index, dims } => Insn::MultiANewArray { index, dims },
            Insn::NewArray(t) => Insn::NewArray(t),
            Insn::Branch { op, target } => Insn::Branch {
                op,
                target: f(target)?,
            },
            Insn::TableSwitch {
                default,
                low,
                high,
                targets,
            } => Insn::TableSwitch {
                default: f(default)?,
                low,
                high,
                targets: targets.into_iter().map(&mut f).collect::<Result<_>>()?,
            },
            Insn::LookupSwitch { default, pairs } => Insn::LookupSwitch {
                default: f(default)?,
                pairs: pairs
                    .into_iter()
                    .map(|(k, t)| Ok((k, f(t)?)))
                    .collect::<Result<_>>()?,
            },
        })
    }

    /// Encoded size in bytes when placed at `offset`.
    #[must_use]
    pub fn size_at(&self, offset: u32) -> u32 {
        match self {
            Insn::Simple(_) => 1,
            Insn::Local { wide, .. } => {
                if *wide {
                    4
                } else {
                    2
                }
            }
            Insn::Iinc { wide, .. } => {
                if *wide {
                    6
                } else {
                    3
                }
            }
            Insn::Bipush(_) | Insn::NewArray(_) => 2,
            Insn::Ldc { op: o, .. } => {
                if *o == op::LDC {
                    2
                } else {
                    3
                }
            }
            Insn::Sipush(_) | Insn::Cp { .. } => 3,
            Insn::MultiANewArray { .. } => 4,
            Insn::InvokeInterface { .. } | Insn::InvokeDynamic { .. } => 5,
            Insn::Branch { op: o, .. } => {
                if op::format(*o) == Format::Branch32 {
                    5
                } else {
                    3
                }
            }
            Insn::TableSwitch { targets, .. } => {
                1 + switch_padding(offset) + 12 + 4 * targets.len() as u32
            }
            Insn::LookupSwitch { pairs, .. } => {
                1 + switch_padding(offset) + 8 + 8 * pairs.len() as u32
            }
        }
    }
}

/// Padding bytes after a `tableswitch`/`lookupswitch` opcode at `at`, so that its operands start
/// at a multiple of four.
#[must_use]
pub fn switch_padding(at: u32) -> u32 {
    (4 - (at + 1) % 4) % 4
}

fn bad(offset: u32, detail: impl Into<String>) -> Error {
    Error::BadInstruction {
        offset,
        detail: detail.into(),
    }
}

fn target(at: u32, rel: i32, len: usize) -> Result<u32> {
    let t = i64::from(at) + i64::from(rel);
    if t < 0 || t >= len as i64 {
        return Err(bad(
            at,
            format!("branch target {t} is outside the code (length {len})"),
        ));
    }
    Ok(t as u32)
}

/// Decodes a whole code array into `(offset, instruction)` pairs with absolute targets.
pub fn decode(code: &[u8]) -> Result<Vec<(u32, Insn)>> {
    let mut out = Vec::with_capacity(code.len() / 2);
    let mut r = ByteReader::new(code, 0);
    while !r.is_empty() {
        let at = r.pos() as u32;
        let insn = decode_one(&mut r, at, code.len()).map_err(|e| match e {
            Error::Truncated { .. } => bad(at, "instruction runs past the end of the code"),
            e => e,
        })?;
        out.push((at, insn));
    }
    Ok(out)
}

fn decode_one(r: &mut ByteReader<'_>, at: u32, len: usize) -> Result<Insn> {
    let opcode = r.u8("opcode")?;
    Ok(match op::format(opcode) {
        Format::None => Insn::Simple(opcode),
        Format::Local => Insn::Local {
            op: opcode,
            index: u16::from(r.u8("local index")?),
            wide: false,
        },
        Format::Iinc => Insn::Iinc {
            index: u16::from(r.u8("iinc index")?),
            delta: i16::from(r.u8("iinc const")? as i8),
            wide: false,
        },
        Format::Bipush => Insn::Bipush(r.u8("bipush")? as i8),
        Format::Sipush => Insn::Sipush(r.u16("sipush")? as i16),
        Format::Ldc => Insn::Ldc {
            op: opcode,
            index: CpIndex(u16::from(r.u8("ldc index")?)),
        },
        Format::Cp => {
            let index = CpIndex(r.u16("constant pool index")?);
            if matches!(opcode, op::LDC_W | op::LDC2_W) {
                Insn::Ldc { op: opcode, index }
            } else {
                Insn::Cp { op: opcode, index }
            }
        }
        Format::InvokeInterface => Insn::InvokeInterface {
            index: CpIndex(r.u16("invokeinterface index")?),
            count: r.u8("invokeinterface count")?,
            zero: r.u8("invokeinterface zero")?,
        },
        Format::InvokeDynamic => Insn::InvokeDynamic {
            index: CpIndex(r.u16("invokedynamic index")?),
            zero: r.u16("invokedynamic zero")?,
        },
        Format::MultiANewArray => Insn::MultiANewArray {
            index: CpIndex(r.u16("multianewarray index")?),
            dims: r.u8("dimensions")?,
        },
        Format::NewArray => Insn::NewArray(r.u8("atype")?),
        Format::Branch16 => Insn::Branch {
            op: opcode,
            target: target(at, i32::from(r.u16("branch offset")? as i16), len)?,
        },
        Format::Branch32 => Insn::Branch {
            op: opcode,
            target: target(at, r.i32("branch offset")?, len)?,
        },
        Format::TableSwitch => {
            r.skip(switch_padding(at) as usize, "tableswitch padding")?;
            let default = target(at, r.i32("default")?, len)?;
            let low = r.i32("low")?;
            let high = r.i32("high")?;
            if low > high {
                return Err(bad(at, format!("tableswitch low {low} > high {high}")));
            }
            let n = (i64::from(high) - i64::from(low) + 1) as usize;
            if n * 4 > r.remaining() {
                return Err(bad(at, "tableswitch runs past the end of the code"));
            }
            let mut targets = Vec::with_capacity(n);
            for _ in 0..n {
                targets.push(target(at, r.i32("jump offset")?, len)?);
            }
            Insn::TableSwitch {
                default,
                low,
                high,
                targets,
            }
        }
        Format::LookupSwitch => {
            r.skip(switch_padding(at) as usize, "lookupswitch padding")?;
            let default = target(at, r.i32("default")?, len)?;
            let n = r.i32("npairs")?;
            if n < 0 || n as usize * 8 > r.remaining() {
                return Err(bad(at, format!("lookupswitch npairs {n} is invalid")));
            }
            let mut pairs = Vec::with_capacity(n as usize);
            for _ in 0..n {
                let key = r.i32("match")?;
                pairs.push((key, target(at, r.i32("jump offset")?, len)?));
            }
            Insn::LookupSwitch { default, pairs }
        }
        Format::Wide => {
            let inner = r.u8("wide opcode")?;
            match op::format(inner) {
                Format::Local => Insn::Local {
                    op: inner,
                    index: r.u16("wide index")?,
                    wide: true,
                },
                Format::Iinc => Insn::Iinc {
                    index: r.u16("wide iinc index")?,
                    delta: r.u16("wide iinc const")? as i16,
                    wide: true,
                },
                _ => return Err(bad(at, format!("wide cannot modify {}", op::name(inner)))),
            }
        }
        Format::Invalid => return Err(bad(at, format!("invalid opcode 0x{opcode:02x}"))),
    })
}

/// Encodes one instruction placed at `at`; `rel` converts a target to a relative offset.
pub fn encode_at<T>(
    out: &mut Vec<u8>,
    insn: &Insn<T>,
    at: u32,
    mut rel: impl FnMut(&T) -> Result<i32>,
) -> Result<()> {
    match insn {
        Insn::Simple(o) => out.put_u8(*o),
        Insn::Local { op: o, index, wide } => {
            if *wide {
                out.put_u8(op::WIDE);
                out.put_u8(*o);
                out.put_u16(*index);
            } else {
                let i = u8::try_from(*index)
                    .map_err(|_| bad(at, format!("local index {index} needs the wide form")))?;
                out.put_u8(*o);
                out.put_u8(i);
            }
        }
        Insn::Iinc { index, delta, wide } => {
            if *wide {
                out.put_u8(op::WIDE);
                out.put_u8(op::IINC);
                out.put_u16(*index);
                out.put_u16(*delta as u16);
            } else {
                let i =
                    u8::try_from(*index).map_err(|_| bad(at, "iinc index needs the wide form"))?;
                let d = i8::try_from(*delta)
                    .map_err(|_| bad(at, "iinc constant needs the wide form"))?;
                out.put_u8(op::IINC);
                out.put_u8(i);
                out.put_u8(d as u8);
            }
        }
        Insn::Bipush(v) => {
            out.put_u8(op::BIPUSH);
            out.put_u8(*v as u8);
        }
        Insn::Sipush(v) => {
            out.put_u8(op::SIPUSH);
            out.put_u16(*v as u16);
        }
        Insn::Ldc { op: o, index } => {
            out.put_u8(*o);
            if *o == op::LDC {
                let i = u8::try_from(index.0)
                    .map_err(|_| bad(at, "ldc index above 255 needs ldc_w"))?;
                out.put_u8(i);
            } else {
                out.put_u16(index.0);
            }
        }
        Insn::Cp { op: o, index } => {
            out.put_u8(*o);
            out.put_u16(index.0);
        }
        Insn::InvokeInterface { index, count, zero } => {
            out.put_u8(op::INVOKEINTERFACE);
            out.put_u16(index.0);
            out.put_u8(*count);
            out.put_u8(*zero);
        }
        Insn::InvokeDynamic { index, zero } => {
            out.put_u8(op::INVOKEDYNAMIC);
            out.put_u16(index.0);
            out.put_u16(*zero);
        }
        Insn::MultiANewArray { index, dims } => {
            out.put_u8(op::MULTIANEWARRAY);
            out.put_u16(index.0);
            out.put_u8(*dims);
        }
        Insn::NewArray(t) => {
            out.put_u8(op::NEWARRAY);
            out.put_u8(*t);
        }
        Insn::Branch { op: o, target } => {
            let r = rel(target)?;
            out.put_u8(*o);
            if op::format(*o) == Format::Branch32 {
                out.put_i32(r);
            } else {
                let r16 = i16::try_from(r)
                    .map_err(|_| bad(at, format!("branch offset {r} does not fit in 16 bits")))?;
                out.put_u16(r16 as u16);
            }
        }
        Insn::TableSwitch {
            default,
            low,
            high,
            targets,
        } => {
            out.put_u8(op::TABLESWITCH);
            for _ in 0..switch_padding(at) {
                out.put_u8(0);
            }
            out.put_i32(rel(default)?);
            out.put_i32(*low);
            out.put_i32(*high);
            for t in targets {
                out.put_i32(rel(t)?);
            }
        }
        Insn::LookupSwitch { default, pairs } => {
            out.put_u8(op::LOOKUPSWITCH);
            for _ in 0..switch_padding(at) {
                out.put_u8(0);
            }
            out.put_i32(rel(default)?);
            out.put_i32(pairs.len() as i32);
            for (k, t) in pairs {
                out.put_i32(*k);
                out.put_i32(rel(t)?);
            }
        }
    }
    Ok(())
}

/// Encodes decoded instructions (absolute targets) back into a code array.
pub fn encode_all(insns: &[(u32, Insn)]) -> Result<Vec<u8>> {
    let mut out = Vec::new();
    for (at, insn) in insns {
        if out.len() != *at as usize {
            return Err(bad(
                *at,
                format!(
                    "instruction expected at offset {at} but encoding is at {}",
                    out.len()
                ),
            ));
        }
        encode_at(&mut out, insn, *at, |t| {
            Ok((i64::from(*t) - i64::from(*at)) as i32)
        })?;
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn arb_insn(len: u32) -> impl Strategy<Value = Insn> {
        let t = 0..len;
        prop_oneof![
            (0u8..=0x0f).prop_map(Insn::Simple),
            (op::ILOAD..=op::ALOAD, any::<u16>(), any::<bool>()).prop_map(|(o, i, w)| {
                Insn::Local {
                    op: o,
                    index: if w { i } else { i & 0xff },
                    wide: w,
                }
            }),
            (any::<u16>(), any::<i16>(), any::<bool>()).prop_map(|(i, d, w)| Insn::Iinc {
                index: if w { i } else { i & 0xff },
                delta: if w { d } else { d % 128 },
                wide: w
            }),
            any::<i8>().prop_map(Insn::Bipush),
            any::<u16>().prop_map(|i| Insn::Ldc {
                op: op::LDC_W,
                index: CpIndex(i)
            }),
            (0u16..256).prop_map(|i| Insn::Ldc {
                op: op::LDC,
                index: CpIndex(i)
            }),
            any::<u16>().prop_map(|i| Insn::InvokeDynamic {
                index: CpIndex(i),
                zero: 0
            }),
            (op::IFEQ..=op::JSR, t.clone()).prop_map(|(o, target)| Insn::Branch { op: o, target }),
            (
                t.clone(),
                -3i32..3,
                proptest::collection::vec(t.clone(), 1..5)
            )
                .prop_map(|(default, low, targets)| Insn::TableSwitch {
                    default,
                    low,
                    high: low + targets.len() as i32 - 1,
                    targets
                }),
            (
                t.clone(),
                proptest::collection::btree_map(any::<i32>(), t, 0..5)
            )
                .prop_map(|(default, m)| Insn::LookupSwitch {
                    default,
                    pairs: m.into_iter().collect()
                }),
        ]
    }

    proptest! {
        /// Encoding arbitrary instruction sequences and decoding them gives them back (targets are
        /// then clamped to instruction starts so that the sequence is valid).
        #[test]
        fn encode_decode_round_trip(seq in proptest::collection::vec(arb_insn(64), 1..40)) {
            let mut offsets = Vec::new();
            let mut at = 0u32;
            for i in &seq {
                offsets.push(at);
                at += i.size_at(at);
            }
            let snap = |t: u32| offsets[(t as usize) % offsets.len()];
            let placed: Vec<(u32, Insn)> = seq
                .into_iter()
                .zip(offsets.iter())
                .map(|(i, &o)| (o, i.map_targets(|t| Ok(snap(t))).unwrap_or(Insn::Simple(0))))
                .collect();
            let bytes = encode_all(&placed).map_err(|e| TestCaseError::fail(e.to_string()))?;
            let back = decode(&bytes).map_err(|e| TestCaseError::fail(e.to_string()))?;
            prop_assert_eq!(back, placed);
        }

        /// Decoding arbitrary bytes never panics, and what decodes re-encodes to the same bytes
        /// when the padding is zero.
        #[test]
        fn decode_arbitrary_bytes(bytes in proptest::collection::vec(any::<u8>(), 1..200)) {
            if let Ok(insns) = decode(&bytes) {
                if let Ok(again) = encode_all(&insns) {
                    prop_assert_eq!(again.len(), bytes.len());
                }
            }
        }
    }

    #[test]
    fn bad_opcode_names_offset() {
        let msg = decode(&[0x00, 0xcb])
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default();
        assert_eq!(
            msg,
            "invalid bytecode at code offset 1: invalid opcode 0xcb"
        );
        let msg = decode(&[0x00, 0xa7, 0x00])
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default();
        assert_eq!(
            msg,
            "invalid bytecode at code offset 1: instruction runs past the end of the code"
        );
    }
}
