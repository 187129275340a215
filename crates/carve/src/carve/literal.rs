//! Java source for recorded values that need no statement: primitives with their suffixes and
//! special values (`5L`, `Float.NaN`, `Integer.MIN_VALUE`), characters, strings and `null`, and
//! the source form of an array's component type.

use ferrosuite_bytecode::descriptor::FieldType;
use ferrosuite_testcase::statement::{java_type, string_literal};

use super::body::source_name;
use crate::model::Value;

pub(super) fn char_literal(u: u16) -> String {
    match u {
        0x27 => "'\\''".into(),
        0x5c => "'\\\\'".into(),
        0x20..=0x7e => format!("'{}'", char::from(u as u8)),
        _ => format!("'\\u{u:04x}'"),
    }
}

pub(super) fn float_literal(bits: u32) -> String {
    let f = f32::from_bits(bits);
    if f.is_nan() {
        "Float.NaN".into()
    } else if f.is_infinite() {
        if f > 0.0 {
            "Float.POSITIVE_INFINITY"
        } else {
            "Float.NEGATIVE_INFINITY"
        }
        .into()
    } else {
        format!("{f:?}f")
    }
}

pub(super) fn double_literal(bits: u64) -> String {
    let d = f64::from_bits(bits);
    if d.is_nan() {
        "Double.NaN".into()
    } else if d.is_infinite() {
        if d > 0.0 {
            "Double.POSITIVE_INFINITY"
        } else {
            "Double.NEGATIVE_INFINITY"
        }
        .into()
    } else {
        format!("{d:?}d")
    }
}

/// The literal of a primitive, string or null value, if it is one.
pub(super) fn literal(v: &Value) -> Option<String> {
    Some(match v {
        Value::Null => "null".into(),
        Value::Boolean { v } => v.to_string(),
        Value::Byte { v } => format!("(byte) {v}"),
        Value::Short { v } => format!("(short) {v}"),
        Value::Char { v } => char_literal(*v),
        Value::Int { v } => {
            if *v == i32::MIN {
                "Integer.MIN_VALUE".into()
            } else {
                v.to_string()
            }
        }
        Value::Long { v } => {
            if *v == i64::MIN {
                "Long.MIN_VALUE".into()
            } else {
                format!("{v}L")
            }
        }
        Value::Float { bits } => float_literal(*bits),
        Value::Double { bits } => double_literal(*bits),
        Value::String { v } => string_literal(v),
        _ => return None,
    })
}

/// The source type of `Class.getName()` of an array's component (`int`, `java.lang.String`,
/// `[I`).
pub(super) fn component_source(name: &str) -> Option<String> {
    if let Some(desc) = name.strip_prefix('[') {
        return FieldType::parse(&format!("[{desc}"))
            .ok()
            .map(|t| java_type(&t));
    }
    Some(match name {
        "boolean" | "byte" | "char" | "short" | "int" | "long" | "float" | "double" => {
            name.to_string()
        }
        _ => source_name(name),
    })
}

pub(super) fn is_primitive(name: &str) -> bool {
    matches!(
        name,
        "boolean" | "byte" | "char" | "short" | "int" | "long" | "float" | "double"
    )
}
