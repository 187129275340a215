//! Opcode numbers, mnemonics and operand formats (JVMS chapter 6).

#![allow(missing_docs)]

pub const NOP: u8 = 0x00;
pub const ACONST_NULL: u8 = 0x01;
pub const ICONST_M1: u8 = 0x02;
pub const ICONST_0: u8 = 0x03;
pub const ICONST_1: u8 = 0x04;
pub const LCONST_0: u8 = 0x09;
pub const FCONST_0: u8 = 0x0b;
pub const DCONST_0: u8 = 0x0e;
pub const BIPUSH: u8 = 0x10;
pub const SIPUSH: u8 = 0x11;
pub const LDC: u8 = 0x12;
pub const LDC_W: u8 = 0x13;
pub const LDC2_W: u8 = 0x14;
pub const ILOAD: u8 = 0x15;
pub const LLOAD: u8 = 0x16;
pub const FLOAD: u8 = 0x17;
pub const DLOAD: u8 = 0x18;
pub const ALOAD: u8 = 0x19;
pub const ISTORE: u8 = 0x36;
pub const LSTORE: u8 = 0x37;
pub const FSTORE: u8 = 0x38;
pub const DSTORE: u8 = 0x39;
pub const ASTORE: u8 = 0x3a;
pub const POP: u8 = 0x57;
pub const POP2: u8 = 0x58;
pub const DUP: u8 = 0x59;
pub const DUP_X1: u8 = 0x5a;
pub const DUP_X2: u8 = 0x5b;
pub const DUP2: u8 = 0x5c;
pub const SWAP: u8 = 0x5f;
pub const IINC: u8 = 0x84;
pub const LCMP: u8 = 0x94;
pub const FCMPL: u8 = 0x95;
pub const FCMPG: u8 = 0x96;
pub const DCMPL: u8 = 0x97;
pub const DCMPG: u8 = 0x98;
pub const IFEQ: u8 = 0x99;
pub const IFNE: u8 = 0x9a;
pub const IFLT: u8 = 0x9b;
pub const IFGE: u8 = 0x9c;
pub const IFGT: u8 = 0x9d;
pub const IFLE: u8 = 0x9e;
pub const IF_ICMPEQ: u8 = 0x9f;
pub const IF_ICMPNE: u8 = 0xa0;
pub const IF_ICMPLT: u8 = 0xa1;
pub const IF_ICMPGE: u8 = 0xa2;
pub const IF_ICMPGT: u8 = 0xa3;
pub const IF_ICMPLE: u8 = 0xa4;
pub const IF_ACMPEQ: u8 = 0xa5;
pub const IF_ACMPNE: u8 = 0xa6;
pub const GOTO: u8 = 0xa7;
pub const JSR: u8 = 0xa8;
pub const RET: u8 = 0xa9;
pub const TABLESWITCH: u8 = 0xaa;
pub const LOOKUPSWITCH: u8 = 0xab;
pub const IRETURN: u8 = 0xac;
pub const RETURN: u8 = 0xb1;
pub const GETSTATIC: u8 = 0xb2;
pub const PUTSTATIC: u8 = 0xb3;
pub const GETFIELD: u8 = 0xb4;
pub const PUTFIELD: u8 = 0xb5;
pub const INVOKEVIRTUAL: u8 = 0xb6;
pub const INVOKESPECIAL: u8 = 0xb7;
pub const INVOKESTATIC: u8 = 0xb8;
pub const INVOKEINTERFACE: u8 = 0xb9;
pub const INVOKEDYNAMIC: u8 = 0xba;
pub const NEW: u8 = 0xbb;
pub const NEWARRAY: u8 = 0xbc;
pub const ANEWARRAY: u8 = 0xbd;
pub const ATHROW: u8 = 0xbf;
pub const CHECKCAST: u8 = 0xc0;
pub const INSTANCEOF: u8 = 0xc1;
pub const WIDE: u8 = 0xc4;
pub const MULTIANEWARRAY: u8 = 0xc5;
pub const IFNULL: u8 = 0xc6;
pub const IFNONNULL: u8 = 0xc7;
pub const GOTO_W: u8 = 0xc8;
pub const JSR_W: u8 = 0xc9;

/// How an opcode's operands are encoded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// No operands.
    None,
    /// One unsigned byte: a local-variable index (`iload`, …, `ret`).
    Local,
    /// `iinc index const`.
    Iinc,
    /// `bipush byte`.
    Bipush,
    /// `sipush short`.
    Sipush,
    /// `ldc` with a one-byte constant-pool index.
    Ldc,
    /// A two-byte constant-pool index (`ldc_w`, `getfield`, `new`, …).
    Cp,
    /// `invokeinterface index count 0`.
    InvokeInterface,
    /// `invokedynamic index 0 0`.
    InvokeDynamic,
    /// `multianewarray index dims`.
    MultiANewArray,
    /// `newarray atype`.
    NewArray,
    /// Two-byte signed branch offset.
    Branch16,
    /// Four-byte signed branch offset.
    Branch32,
    /// `tableswitch`.
    TableSwitch,
    /// `lookupswitch`.
    LookupSwitch,
    /// The `wide` prefix.
    Wide,
    /// Reserved or unassigned opcode.
    Invalid,
}

/// Operand format of an opcode.
#[must_use]
pub fn format(op: u8) -> Format {
    match op {
        0x00..=0x0f
        | 0x1a..=0x35
        | 0x3b..=0x83
        | 0x85..=0x98
        | 0xac..=0xb1
        | 0xbe
        | 0xbf
        | 0xc2
        | 0xc3 => Format::None,
        0x10 => Format::Bipush,
        0x11 => Format::Sipush,
        0x12 => Format::Ldc,
        0x13 | 0x14 | 0xb2..=0xb8 | 0xbb | 0xbd | 0xc0 | 0xc1 => Format::Cp,
        0x15..=0x19 | 0x36..=0x3a | 0xa9 => Format::Local,
        0x84 => Format::Iinc,
        0x99..=0xa8 | 0xc6 | 0xc7 => Format::Branch16,
        0xc8 | 0xc9 => Format::Branch32,
        0xaa => Format::TableSwitch,
        0xab => Format::LookupSwitch,
        0xb9 => Format::InvokeInterface,
        0xba => Format::InvokeDynamic,
        0xbc => Format::NewArray,
        0xc4 => Format::Wide,
        0xc5 => Format::MultiANewArray,
        _ => Format::Invalid,
    }
}

/// True for the conditional jumps `ifeq` … `if_acmpne`, `ifnull`, `ifnonnull`.
#[must_use]
pub fn is_conditional(op: u8) -> bool {
    matches!(op, IFEQ..=IF_ACMPNE | IFNULL | IFNONNULL)
}

/// True for instructions after which control never falls through.
#[must_use]
pub fn is_unconditional(op: u8) -> bool {
    matches!(
        op,
        GOTO | GOTO_W | RET | TABLESWITCH | LOOKUPSWITCH | IRETURN..=RETURN | ATHROW
    )
}

/// The conditional jump with the opposite condition.
#[must_use]
pub fn invert_conditional(op: u8) -> Option<u8> {
    Some(match op {
        IFEQ => IFNE,
        IFNE => IFEQ,
        IFLT => IFGE,
        IFGE => IFLT,
        IFGT => IFLE,
        IFLE => IFGT,
        IF_ICMPEQ => IF_ICMPNE,
        IF_ICMPNE => IF_ICMPEQ,
        IF_ICMPLT => IF_ICMPGE,
        IF_ICMPGE => IF_ICMPLT,
        IF_ICMPGT => IF_ICMPLE,
        IF_ICMPLE => IF_ICMPGT,
        IF_ACMPEQ => IF_ACMPNE,
        IF_ACMPNE => IF_ACMPEQ,
        IFNULL => IFNONNULL,
        IFNONNULL => IFNULL,
        _ => return None,
    })
}

const NAMES: [&str; 202] = [
    "nop",
    "aconst_null",
    "iconst_m1",
    "iconst_0",
    "iconst_1",
    "iconst_2",
    "iconst_3",
    "iconst_4",
    "iconst_5",
    "lconst_0",
    "lconst_1",
    "fconst_0",
    "fconst_1",
    "fconst_2",
    "dconst_0",
    "dconst_1",
    "bipush",
    "sipush",
    "ldc",
    "ldc_w",
    "ldc2_w",
    "iload",
    "lload",
    "fload",
    "dload",
    "aload",
    "iload_0",
    "iload_1",
    "iload_2",
    "iload_3",
    "lload_0",
    "lload_1",
    "lload_2",
    "lload_3",
    "fload_0",
    "fload_1",
    "fload_2",
    "fload_3",
    "dload_0",
    "dload_1",
    "dload_2",
    "dload_3",
    "aload_0",
    "aload_1",
    "aload_2",
    "aload_3",
    "iaload",
    "laload",
    "faload",
    "daload",
    "aaload",
    "baload",
    "caload",
    "saload",
    "istore",
    "lstore",
    "fstore",
    "dstore",
    "astore",
    "istore_0",
    "istore_1",
    "istore_2",
    "istore_3",
    "lstore_0",
    "lstore_1",
    "lstore_2",
    "lstore_3",
    "fstore_0",
    "fstore_1",
    "fstore_2",
    "fstore_3",
    "dstore_0",
    "dstore_1",
    "dstore_2",
    "dstore_3",
    "astore_0",
    "astore_1",
    "astore_2",
    "astore_3",
    "iastore",
    "lastore",
    "fastore",
    "dastore",
    "aastore",
    "bastore",
    "castore",
    "sastore",
    "pop",
    "pop2",
    "dup",
    "dup_x1",
    "dup_x2",
    "dup2",
    "dup2_x1",
    "dup2_x2",
    "swap",
    "iadd",
    "ladd",
    "fadd",
    "dadd",
    "isub",
    "lsub",
    "fsub",
    "dsub",
    "imul",
    "lmul",
    "fmul",
    "dmul",
    "idiv",
    "ldiv",
    "fdiv",
    "ddiv",
    "irem",
    "lrem",
    "frem",
    "drem",
    "ineg",
    "lneg",
    "fneg",
    "dneg",
    "ishl",
    "lshl",
    "ishr",
    "lshr",
    "iushr",
    "lushr",
    "iand",
    "land",
    "ior",
    "lor",
    "ixor",
    "lxor",
    "iinc",
    "i2l",
    "i2f",
    "i2d",
    "l2i",
    "l2f",
    "l2d",
    "f2i",
    "f2l",
    "f2d",
    "d2i",
    "d2l",
    "d2f",
    "i2b",
    "i2c",
    "i2s",
    "lcmp",
    "fcmpl",
    "fcmpg",
    "dcmpl",
    "dcmpg",
    "ifeq",
    "ifne",
    "iflt",
    "ifge",
    "ifgt",
    "ifle",
    "if_icmpeq",
    "if_icmpne",
    "if_icmplt",
    "if_icmpge",
    "if_icmpgt",
    "if_icmple",
    "if_acmpeq",
    "if_acmpne",
    "goto",
    "jsr",
    "ret",
    "tableswitch",
    "lookupswitch",
    "ireturn",
    "lreturn",
    "freturn",
    "dreturn",
    "areturn",
    "return",
    "getstatic",
    "putstatic",
    "getfield",
    "putfield",
    "invokevirtual",
    "invokespecial",
    "invokestatic",
    "invokeinterface",
    "invokedynamic",
    "new",
    "newarray",
    "anewarray",
    "arraylength",
    "athrow",
    "checkcast",
    "instanceof",
    "monitorenter",
    "monitorexit",
    "wide",
    "multianewarray",
    "ifnull",
    "ifnonnull",
    "goto_w",
    "jsr_w",
];

/// The mnemonic of an opcode (`"invalid"` for reserved ones).
#[must_use]
pub fn name(op: u8) -> &'static str {
    NAMES.get(op as usize).copied().unwrap_or("invalid")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_agrees_with_constants() {
        assert_eq!(name(LCMP), "lcmp");
        assert_eq!(name(IFNONNULL), "ifnonnull");
        assert_eq!(name(JSR_W), "jsr_w");
        assert_eq!(name(INVOKEDYNAMIC), "invokedynamic");
        assert_eq!(name(0xca), "invalid");
        assert_eq!(format(0xca), Format::Invalid);
        for op in 0..=0xc9u8 {
            assert_ne!(format(op), Format::Invalid, "{}", name(op));
        }
    }
}
