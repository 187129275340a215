//! Field and method descriptors (JVMS 4.3).
//!
//! ```
//! use ferrosuite_bytecode::descriptor::{FieldType, MethodDescriptor};
//! let d = MethodDescriptor::parse("(I[Ljava/lang/String;J)Z").unwrap();
//! assert_eq!(d.params, vec![
//!     FieldType::Int,
//!     FieldType::Array(Box::new(FieldType::Object("java/lang/String".into()))),
//!     FieldType::Long,
//! ]);
//! assert_eq!(d.ret, Some(FieldType::Boolean));
//! assert_eq!(d.param_slots(), 4);
//! ```

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};

/// A field type.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum FieldType {
    /// `B`
    Byte,
    /// `C`
    Char,
    /// `D`
    Double,
    /// `F`
    Float,
    /// `I`
    Int,
    /// `J`
    Long,
    /// `S`
    Short,
    /// `Z`
    Boolean,
    /// `L<internal name>;`
    Object(String),
    /// `[<component>`
    Array(Box<FieldType>),
}

impl FieldType {
    /// Parses a complete field descriptor.
    pub fn parse(s: &str) -> Result<Self> {
        let (t, rest) = Self::parse_prefix(s, s)?;
        if rest.is_empty() {
            Ok(t)
        } else {
            Err(Error::BadDescriptor {
                descriptor: s.into(),
                detail: "trailing characters",
            })
        }
    }

    fn parse_prefix<'a>(s: &'a str, whole: &str) -> Result<(Self, &'a str)> {
        let bad = |detail| Error::BadDescriptor {
            descriptor: whole.into(),
            detail,
        };
        let mut chars = s.chars();
        let c = chars.next().ok_or_else(|| bad("unexpected end"))?;
        let rest = chars.as_str();
        Ok(match c {
            'B' => (FieldType::Byte, rest),
            'C' => (FieldType::Char, rest),
            'D' => (FieldType::Double, rest),
            'F' => (FieldType::Float, rest),
            'I' => (FieldType::Int, rest),
            'J' => (FieldType::Long, rest),
            'S' => (FieldType::Short, rest),
            'Z' => (FieldType::Boolean, rest),
            'L' => {
                let end = rest
                    .find(';')
                    .ok_or_else(|| bad("unterminated class name"))?;
                if end == 0 {
                    return Err(bad("empty class name"));
                }
                (FieldType::Object(rest[..end].to_string()), &rest[end + 1..])
            }
            '[' => {
                let (inner, rest) = Self::parse_prefix(rest, whole)?;
                (FieldType::Array(Box::new(inner)), rest)
            }
            _ => return Err(bad("unknown type character")),
        })
    }

    /// Local-variable slots (2 for long and double).
    #[must_use]
    pub fn slots(&self) -> u16 {
        match self {
            FieldType::Long | FieldType::Double => 2,
            _ => 1,
        }
    }

    /// True for references (objects and arrays).
    #[must_use]
    pub fn is_reference(&self) -> bool {
        matches!(self, FieldType::Object(_) | FieldType::Array(_))
    }

    /// The descriptor text.
    #[must_use]
    pub fn descriptor(&self) -> String {
        self.to_string()
    }

    /// The internal name of a primitive type's box (`java/lang/Integer` for `int`); `None` for
    /// references.
    #[must_use]
    pub fn boxed_class(&self) -> Option<&'static str> {
        Some(match self {
            FieldType::Boolean => "java/lang/Boolean",
            FieldType::Byte => "java/lang/Byte",
            FieldType::Char => "java/lang/Character",
            FieldType::Short => "java/lang/Short",
            FieldType::Int => "java/lang/Integer",
            FieldType::Long => "java/lang/Long",
            FieldType::Float => "java/lang/Float",
            FieldType::Double => "java/lang/Double",
            FieldType::Object(_) | FieldType::Array(_) => return None,
        })
    }

    /// The primitive type whose box is the class `internal` (`int` for `java/lang/Integer`);
    /// `None` for any other class. The inverse of [`boxed_class`](Self::boxed_class).
    #[must_use]
    pub fn unboxed(internal: &str) -> Option<FieldType> {
        [
            FieldType::Boolean,
            FieldType::Byte,
            FieldType::Char,
            FieldType::Short,
            FieldType::Int,
            FieldType::Long,
            FieldType::Float,
            FieldType::Double,
        ]
        .into_iter()
        .find(|p| p.boxed_class() == Some(internal))
    }

    /// The innermost element type of an array type (`String` for `String[][]`); any other
    /// type itself.
    #[must_use]
    pub fn innermost(&self) -> &FieldType {
        match self {
            FieldType::Array(c) => c.innermost(),
            t => t,
        }
    }

    /// The name used by `Class.forName` / a `Class` constant: internal name for objects,
    /// descriptor for arrays.
    #[must_use]
    pub fn class_constant_name(&self) -> Option<String> {
        match self {
            FieldType::Object(n) => Some(n.clone()),
            FieldType::Array(_) => Some(self.to_string()),
            _ => None,
        }
    }
}

impl fmt::Display for FieldType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FieldType::Byte => f.write_str("B"),
            FieldType::Char => f.write_str("C"),
            FieldType::Double => f.write_str("D"),
            FieldType::Float => f.write_str("F"),
            FieldType::Int => f.write_str("I"),
            FieldType::Long => f.write_str("J"),
            FieldType::Short => f.write_str("S"),
            FieldType::Boolean => f.write_str("Z"),
            FieldType::Object(n) => write!(f, "L{n};"),
            FieldType::Array(c) => write!(f, "[{c}"),
        }
    }
}

/// A method descriptor.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct MethodDescriptor {
    /// Parameter types.
    pub params: Vec<FieldType>,
    /// Return type, `None` for `void`.
    pub ret: Option<FieldType>,
}

impl MethodDescriptor {
    /// Parses a method descriptor.
    pub fn parse(s: &str) -> Result<Self> {
        let bad = |detail| Error::BadDescriptor {
            descriptor: s.into(),
            detail,
        };
        let mut rest = s
            .strip_prefix('(')
            .ok_or_else(|| bad("does not start with '('"))?;
        let mut params = Vec::new();
        loop {
            if let Some(r) = rest.strip_prefix(')') {
                rest = r;
                break;
            }
            let (t, r) = FieldType::parse_prefix(rest, s)?;
            params.push(t);
            rest = r;
        }
        let ret = if rest == "V" {
            None
        } else {
            Some(FieldType::parse(rest).map_err(|_| bad("bad return type"))?)
        };
        Ok(MethodDescriptor { params, ret })
    }

    /// The return type alone (`None` for `void`), without building the parameter list (the
    /// parameters are only skipped, so nothing is allocated for them). Accepts exactly what
    /// [`MethodDescriptor::parse`] accepts. For example `(ILjava/lang/String;)[J` gives
    /// `Some([J)`.
    pub fn parse_return(s: &str) -> Result<Option<FieldType>> {
        let bad = |detail| Error::BadDescriptor {
            descriptor: s.into(),
            detail,
        };
        let mut rest = s
            .strip_prefix('(')
            .ok_or_else(|| bad("does not start with '('"))?;
        loop {
            if let Some(r) = rest.strip_prefix(')') {
                rest = r;
                break;
            }
            rest = skip_field_type(rest).ok_or_else(|| {
                // The full parser names the problem.
                match Self::parse(s) {
                    Err(Error::BadDescriptor { detail, .. }) => bad(detail),
                    _ => bad("bad parameter type"),
                }
            })?;
        }
        if rest == "V" {
            Ok(None)
        } else {
            FieldType::parse(rest)
                .map(Some)
                .map_err(|_| bad("bad return type"))
        }
    }

    /// Argument slots (without `this`).
    #[must_use]
    pub fn param_slots(&self) -> u16 {
        self.params.iter().map(FieldType::slots).sum()
    }
}

/// What follows one field type at the start of `s` (the same grammar as
/// `FieldType::parse_prefix`, without building the type); `None` when `s` does not start with
/// one.
fn skip_field_type(s: &str) -> Option<&str> {
    let mut rest = s.trim_start_matches('[');
    let c = rest.chars().next()?;
    rest = &rest[c.len_utf8()..];
    match c {
        'B' | 'C' | 'D' | 'F' | 'I' | 'J' | 'S' | 'Z' => Some(rest),
        'L' => {
            let end = rest.find(';')?;
            (end > 0).then(|| &rest[end + 1..])
        }
        _ => None,
    }
}

impl fmt::Display for MethodDescriptor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("(")?;
        for p in &self.params {
            write!(f, "{p}")?;
        }
        f.write_str(")")?;
        match &self.ret {
            None => f.write_str("V"),
            Some(t) => write!(f, "{t}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn boxes_and_element_types() {
        for p in ["Z", "B", "C", "S", "I", "J", "F", "D"] {
            let p = FieldType::parse(p).ok();
            assert!(p.is_some());
            let boxed = p.as_ref().and_then(FieldType::boxed_class);
            assert_eq!(boxed.and_then(FieldType::unboxed), p);
        }
        assert_eq!(FieldType::unboxed("java/lang/Number"), None);
        let t = FieldType::Array(Box::new(FieldType::Array(Box::new(FieldType::Object(
            "java/lang/String".into(),
        )))));
        assert_eq!(t.innermost(), &FieldType::Object("java/lang/String".into()));
        assert_eq!(FieldType::Int.innermost(), &FieldType::Int);
    }

    #[test]
    fn rejects_malformed() {
        for d in [
            "",
            "(",
            "(I",
            "(Q)V",
            "(Ljava/lang/String)V",
            "()",
            "()VV",
            "(L;)V",
        ] {
            assert!(MethodDescriptor::parse(d).is_err(), "{d}");
        }
        assert_eq!(
            MethodDescriptor::parse("([[DLx;)[J")
                .map(|d| d.to_string())
                .ok()
                .as_deref(),
            Some("([[DLx;)[J")
        );
    }

    #[test]
    fn return_type_alone() {
        let ret = |d| MethodDescriptor::parse_return(d).ok();
        assert_eq!(
            ret("(ILjava/lang/String;)[J"),
            Some(Some(FieldType::Array(Box::new(FieldType::Long))))
        );
        assert_eq!(ret("()V"), Some(None));
        // A `)` inside a class name is not the end of the parameters.
        assert_eq!(ret("(LA)LB;)I"), Some(Some(FieldType::Int)));
        assert_eq!(
            ret("()LA)LB;"),
            Some(Some(FieldType::Object("A)LB".into())))
        );
        for d in ["", "(", "(I", "(Q)V", "()", "()VV", "(L;)V", "I", "(Lx)V"] {
            assert!(MethodDescriptor::parse_return(d).is_err(), "{d}");
        }
    }

    proptest::proptest! {
        /// `parse_return` accepts exactly what `parse` accepts, with the same return type.
        #[test]
        fn return_type_agrees_with_the_full_parse(s in "\\(?[BCDFIJSZLV\\[;)xy/]{0,12}") {
            let full = MethodDescriptor::parse(&s).map(|d| d.ret).ok();
            proptest::prop_assert_eq!(MethodDescriptor::parse_return(&s).ok(), full, "{}", s);
        }
    }
}
