//! Assertion lines for observed values: literals of primitives, boxes, strings, enums and arrays.

use ferrosuite_bytecode::descriptor::FieldType;
use ferrosuite_executor::Observed;
use ferrosuite_testcase::statement::{Prim, java_type, string_literal};

fn box_of(ty: &FieldType) -> Option<FieldType> {
    match ty {
        FieldType::Object(c) => FieldType::unboxed(c),
        _ => None,
    }
}

/// The assertion for an observed value of an expression of static type `ty`: the assertion
/// method used and the line; `None` when no assertion can be written that compiles and
/// checks exactly what was seen. `enum_name` writes an accessible enum class.
pub(super) fn check_line(
    o: &Observed,
    expr: &str,
    ty: &FieldType,
    four: bool,
    enum_name: impl Fn(&str) -> Option<String>,
) -> Option<(&'static str, String)> {
    let reference = matches!(ty, FieldType::Object(_) | FieldType::Array(_));
    if let Observed::Boxed { primitive, value } = o {
        // Through a box type, as a box; through `Object` or `Number`, cast to the box seen
        // (`(int) (Integer) v`), which checks its class too.
        if box_of(ty).is_some() || !reference {
            return check_line(value, expr, ty, four, enum_name);
        }
        let b = FieldType::parse(&primitive.to_string())
            .ok()?
            .boxed_class()?;
        let cast = format!("({}) {expr}", b.rsplit('/').next()?);
        return check_line(value, &cast, &FieldType::Object(b.into()), four, enum_name);
    }
    // A primitive, or a box (unboxed by a cast so that no overload is ambiguous).
    let (prim, e) = match box_of(ty) {
        Some(p) => (Some(p.clone()), format!("({}) {expr}", java_type(&p))),
        None if !reference => (Some(ty.clone()), expr.to_string()),
        None => (None, expr.to_string()),
    };
    let eq = |expected: String| ("assertEquals", format!("assertEquals({expected}, {e});"));
    match (o, prim.as_ref()) {
        (Observed::Null, None) => Some(("assertNull", format!("assertNull({expr});"))),
        (Observed::Null, Some(_)) if box_of(ty).is_some() => {
            Some(("assertNull", format!("assertNull({expr});")))
        }
        (Observed::Object { .. }, _) if reference => {
            Some(("assertNotNull", format!("assertNotNull({expr});")))
        }
        (Observed::Boolean(b), Some(FieldType::Boolean)) => Some(if *b {
            ("assertTrue", format!("assertTrue({e});"))
        } else {
            ("assertFalse", format!("assertFalse({e});"))
        }),
        (Observed::Char(c), Some(FieldType::Char)) => Some(eq(Prim::Char(*c).java_literal())),
        (Observed::Integer(v), Some(p)) => {
            let lit = match p {
                FieldType::Long => Prim::Long(*v).java_literal(),
                FieldType::Int => Prim::Int(i32::try_from(*v).ok()?).java_literal(),
                // JUnit 5 has (short, short) and (byte, byte); JUnit 4 widens to long.
                FieldType::Short if !four => Prim::Short(i16::try_from(*v).ok()?).java_literal(),
                FieldType::Byte if !four => Prim::Byte(i8::try_from(*v).ok()?).java_literal(),
                FieldType::Short | FieldType::Byte => v.to_string(),
                _ => return None,
            };
            Some(eq(lit))
        }
        (Observed::Floating(d), Some(FieldType::Double)) => Some((
            "assertEquals",
            format!(
                "assertEquals({}, {e}, 0.0);",
                Prim::Double(*d).java_literal()
            ),
        )),
        (Observed::Floating(d), Some(FieldType::Float)) => {
            #[allow(clippy::cast_possible_truncation)]
            let f = d.0 as f32;
            // The observation widened a float exactly: narrowing gives it back.
            if f64::from(f).to_bits() != d.0.to_bits() && !d.0.is_nan() {
                return None;
            }
            Some((
                "assertEquals",
                format!(
                    "assertEquals({}, {e}, 0.0F);",
                    Prim::Float(ferrosuite_testcase::statement::JFloat(f)).java_literal()
                ),
            ))
        }
        (
            Observed::String {
                text,
                truncated: false,
            },
            None,
        ) => Some(eq(string_literal(text))),
        (Observed::Enum { class, name }, None) => {
            // An anonymous class (a constant's body, `Format$2`) has no name to write.
            if class
                .split('$')
                .skip(1)
                .any(|part| part.starts_with(|c: char| c.is_ascii_digit()))
            {
                return None;
            }
            let c = enum_name(class)?;
            Some(eq(format!("{c}.{name}")))
        }
        (
            Observed::Array {
                class,
                length,
                elements,
            },
            None,
        ) if matches!(ty, FieldType::Array(_)) => Some(
            elements
                .as_deref()
                .and_then(|e| array_contents_line(class, e, expr, four))
                .unwrap_or_else(|| {
                    (
                        "assertEquals",
                        format!("assertEquals({length}, {expr}.length);"),
                    )
                }),
        ),
        _ => None,
    }
}

/// `assertArrayEquals(new int[] {1, 2}, expr);` for the observed elements of an array of
/// primitives or strings (runtime class `class`); `None` when an element cannot be written
/// back exactly (a cut string, one showing an identity hash, a float that is not one).
fn array_contents_line(
    class: &str,
    elements: &[Observed],
    expr: &str,
    four: bool,
) -> Option<(&'static str, String)> {
    let (component, delta) = match class {
        "[Z" => ("boolean", ""),
        "[B" => ("byte", ""),
        "[C" => ("char", ""),
        "[S" => ("short", ""),
        "[I" => ("int", ""),
        "[J" => ("long", ""),
        // JUnit 4 compares float and double arrays within a delta only: 0 is exact (and
        // NaN equals NaN there, as in JUnit 5).
        "[F" => ("float", if four { ", 0.0F" } else { "" }),
        "[D" => ("double", if four { ", 0.0" } else { "" }),
        "[Ljava.lang.String;" => ("String", ""),
        _ => return None,
    };
    let mut items = Vec::with_capacity(elements.len());
    for e in elements {
        items.push(match (component, e) {
            ("boolean", Observed::Boolean(b)) => b.to_string(),
            ("char", Observed::Char(c)) => Prim::Char(*c).java_literal(),
            ("byte", Observed::Integer(v)) => format!("(byte) {v}"),
            ("short", Observed::Integer(v)) => format!("(short) {v}"),
            ("int", Observed::Integer(v)) => Prim::Int(i32::try_from(*v).ok()?).java_literal(),
            ("long", Observed::Integer(v)) => Prim::Long(*v).java_literal(),
            ("double", Observed::Floating(d)) => Prim::Double(*d).java_literal(),
            ("float", Observed::Floating(d)) => {
                #[allow(clippy::cast_possible_truncation)]
                let f = d.0 as f32;
                if f64::from(f).to_bits() != d.0.to_bits() && !d.0.is_nan() {
                    return None;
                }
                Prim::Float(ferrosuite_testcase::statement::JFloat(f)).java_literal()
            }
            ("String", Observed::Null) => "null".into(),
            ("String", s @ Observed::String { text, .. }) if crate::assertions::writable(s) => {
                string_literal(text)
            }
            _ => return None,
        });
    }
    Some((
        "assertArrayEquals",
        format!(
            "assertArrayEquals(new {component}[] {{{}}}, {expr}{delta});",
            items.join(", ")
        ),
    ))
}
