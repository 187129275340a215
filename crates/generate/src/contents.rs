//! Arrays with something in them: variants of final tests whose calls get arrays of default
//! values, with distinct, unordered elements stored first, so that what a call does to an
//! array (reverse, shift, sort, swap) shows in an assertion on it.
//!
//! Minimisation keeps only the statements coverage needs, so a test of `reverse(int[])` often
//! passes `new int[3]`: zeros, which read the same reversed. [`with_contents`] gives the test
//! again with the elements stored — `3, 1, 4` for numbers, `'d', 'b', 'e'` for characters,
//! `true, false, true` for booleans, `"c", "a", "d"` for strings. Both go on to the final run;
//! mutation analysis then keeps whichever covers or kills more ([`crate::mutation::reduce`]).
//!
//! ```
//! use ferrosuite_bytecode::descriptor::FieldType;
//! use ferrosuite_generate::contents::with_contents;
//! use ferrosuite_testcase::{Statement, Test, VarRef};
//! let t = Test::new(vec![
//!     Statement::ArrayNew { component: FieldType::Int, length: 2 },
//!     Statement::method("p/A", "reverse", "([I)V", None, vec![VarRef(0)]),
//! ]);
//! let seeded = with_contents(&t).unwrap();
//! // new int[2]; 3; a[0] = 3; 1; a[1] = 1; reverse(a)
//! assert_eq!(seeded.len(), 6);
//! assert!(with_contents(&seeded).is_none());
//! ```

use ferrosuite_bytecode::descriptor::FieldType;
use ferrosuite_testcase::statement::{JDouble, JFloat};
use ferrosuite_testcase::{Prim, Statement, Test, VarRef};

/// Distinct elements in no order (a sorted or reversed array differs from it).
const ORDER: [i32; 8] = [3, 1, 4, 2, 6, 5, 8, 7];

/// The longest array that gets elements.
pub const MAX_SEEDED_LENGTH: u32 = ORDER.len() as u32;

/// `test` with elements stored into each array of primitives or strings that it creates
/// (length 2 to [`MAX_SEEDED_LENGTH`]), stores nothing into and passes to a call; `None`
/// when it has no such array.
#[must_use]
pub fn with_contents(test: &Test) -> Option<Test> {
    let stmts = &test.statements;
    let seeded: Vec<bool> = stmts
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let Statement::ArrayNew { component, length } = s else {
                return false;
            };
            let r = VarRef(i as u32);
            element(component, 0).is_some()
                && (2..=MAX_SEEDED_LENGTH).contains(length)
                && !stmts
                    .iter()
                    .any(|s| matches!(s, Statement::ArrayStore { array, .. } if *array == r))
                && stmts.iter().any(|s| passes(s, r))
        })
        .collect();
    if !seeded.contains(&true) {
        return None;
    }
    let mut out: Vec<Statement> = Vec::with_capacity(stmts.len() * 2);
    let mut moved: Vec<u32> = Vec::with_capacity(stmts.len());
    for (i, s) in stmts.iter().enumerate() {
        let mut s = s.clone();
        for r in s.uses_mut() {
            *r = VarRef(moved[r.index()]);
        }
        let at = out.len() as u32;
        moved.push(at);
        if let (true, Statement::ArrayNew { component, length }) = (seeded[i], &s) {
            let (component, length) = (component.clone(), *length);
            out.push(s);
            for e in 0..length {
                let Some(p) = element(&component, e as usize) else {
                    break;
                };
                out.push(Statement::Primitive(p));
                out.push(Statement::ArrayStore {
                    array: VarRef(at),
                    index: e,
                    value: VarRef(out.len() as u32 - 1),
                });
            }
        } else {
            out.push(s);
        }
    }
    Some(Test::new(out))
}

/// Whether `s` is a call that passes `r` as an argument.
fn passes(s: &Statement, r: VarRef) -> bool {
    match s.unwrapped() {
        Statement::Method { args, .. } | Statement::Constructor { args, .. } => args.contains(&r),
        _ => false,
    }
}

/// Element `e` of a seeded array of `component`, if it is a primitive or `String`.
fn element(component: &FieldType, e: usize) -> Option<Prim> {
    let n = ORDER[e % ORDER.len()];
    Some(match component {
        FieldType::Boolean => Prim::Boolean(e % 2 == 0),
        FieldType::Byte => Prim::Byte(n as i8),
        FieldType::Char => Prim::Char(u16::from(b'a') + n as u16),
        FieldType::Short => Prim::Short(n as i16),
        FieldType::Int => Prim::Int(n),
        FieldType::Long => Prim::Long(i64::from(n)),
        FieldType::Float => Prim::Float(JFloat(n as f32 + 0.5)),
        FieldType::Double => Prim::Double(JDouble(f64::from(n) + 0.5)),
        FieldType::Object(c) if &**c == "java/lang/String" => {
            Prim::String(char::from(b'a' + n as u8 - 1).to_string())
        }
        _ => return None,
    })
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn stores_follow_the_array_and_later_references_move() {
        let t = Test::new(vec![
            Statement::Primitive(Prim::Int(9)),
            Statement::ArrayNew {
                component: FieldType::Char,
                length: 3,
            },
            Statement::method("p/A", "shift", "([CI)V", None, vec![VarRef(1), VarRef(0)]),
        ]);
        let s = with_contents(&t).unwrap();
        assert!(s.validate().is_ok());
        assert_eq!(s.len(), 3 + 6);
        assert_eq!(
            s.statements[2],
            Statement::Primitive(Prim::Char(u16::from(b'd')))
        );
        assert_eq!(
            s.statements[3],
            Statement::ArrayStore {
                array: VarRef(1),
                index: 0,
                value: VarRef(2)
            }
        );
        assert_eq!(
            s.statements[8],
            Statement::method("p/A", "shift", "([CI)V", None, vec![VarRef(1), VarRef(0)])
        );
    }

    #[test]
    fn arrays_with_stores_of_objects_or_unused_stay_as_they_are() {
        let objects = Test::new(vec![
            Statement::ArrayNew {
                component: FieldType::Object("java/lang/Object".into()),
                length: 2,
            },
            Statement::method("p/A", "f", "([Ljava/lang/Object;)V", None, vec![VarRef(0)]),
        ]);
        assert!(with_contents(&objects).is_none());
        let unused = Test::new(vec![Statement::ArrayNew {
            component: FieldType::Int,
            length: 4,
        }]);
        assert!(with_contents(&unused).is_none());
        let one = Test::new(vec![
            Statement::ArrayNew {
                component: FieldType::Int,
                length: 1,
            },
            Statement::method("p/A", "f", "([I)V", None, vec![VarRef(0)]),
        ]);
        assert!(with_contents(&one).is_none());
    }
}
