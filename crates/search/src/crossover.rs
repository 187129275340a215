//! Single-point crossover of two tests, for the test-level algorithms (MOSA, DynaMOSA, the
//! single-target GA); the whole-suite GA crosses suites instead ([`crate::suite::crossover`]).
//!
//! The offspring is the head of the first parent and the tail of the second. The tail's
//! references into the second parent's head are rebound to values of the first parent's head
//! of a fitting type (the last such value); tail statements that cannot be rebound are dropped,
//! and so are the statements that use them. Arrays are rebound only to arrays of the same type,
//! and stores into the head's arrays are dropped (the rebound array may be shorter). For example, with `t1 = [Stack s; int a = 1;
//! s.push(a)]` cut after 2 and `t2 = [Stack u; int b = 5; u.push(b); u.pop()]` cut after 2, the
//! offspring is `[Stack s; int a = 1; s.push(a); s.pop()]`.

use ferrosuite_bytecode::descriptor::FieldType;
use ferrosuite_testcase::{Statement, Test, VarRef};

use crate::factory::Factory;
use crate::random::{Rng, index};

/// Single-point crossover of two tests: the first `a` statements of `t1`, then the statements
/// of `t2` from `b` on. A reference of the tail to a value before `b` is rebound to the last
/// value of the head whose type fits the original value's type; a statement that cannot be
/// rebound is dropped with the statements that use it. Falls back to `t1` when the result
/// would be empty (or a value the tail uses has a malformed descriptor). Valid parents give a
/// valid offspring.
pub fn test_crossover<R: Rng + ?Sized>(f: &Factory<'_>, t1: &Test, t2: &Test, rng: &mut R) -> Test {
    let a = index(rng, t1.len() + 1);
    let b = index(rng, t2.len() + 1);
    crossover_at(f, t1, t2, a, b).unwrap_or_else(|| t1.clone())
}

/// [`test_crossover`] at given cut points (`a` ≤ `t1.len()`, `b` ≤ `t2.len()`); `None` when the
/// result would be empty, or when a rebinding needs the types of t1's head or of a value of
/// t2's head and a descriptor there is malformed (parents built by the factory never are).
#[must_use]
pub fn crossover_at(f: &Factory<'_>, t1: &Test, t2: &Test, a: usize, b: usize) -> Option<Test> {
    let a = a.min(t1.len());
    let b = b.min(t2.len());
    // Only the heads' types matter: the tail's references into t2's head are rebound to
    // values of t1's head; references within the tail follow their statements.
    // (Both are computed only when a tail statement uses a value of t2's head: the types of
    // t1's head once, those of t2's head one at a time.)
    let mut out_types: Option<Vec<Option<FieldType>>> = None;
    let mut out: Vec<Statement> = t1.statements[..a].to_vec();
    // Where each statement of t2 ended up in `out`: for the head, the last value of t1's head
    // of a type it can stand for, looked for only when a tail statement uses it (most are
    // not, and each search asks the type hierarchy up to `a` times).
    let mut map: Vec<Option<Option<usize>>> = vec![None; t2.len()];
    let mut rebind = |i: usize| -> Option<Option<usize>> {
        let Some(want) = t2.statements.get(i)?.value_type().ok()? else {
            return Some(None);
        };
        let have_types = match &mut out_types {
            Some(t) => t,
            None => out_types.insert(f.value_types(&t1.statements[..a]).ok()?),
        };
        // Arrays only to the same type: a `String[]` passed as an `Object[]` would take
        // stores of any object.
        Some(have_types.iter().rposition(|t| {
            t.as_ref().is_some_and(|have| {
                *have == want || (!matches!(want, FieldType::Array(_)) && f.assignable(have, &want))
            })
        }))
    };
    for (i, stmt) in t2.statements.iter().enumerate().skip(b) {
        if out.len() >= f.config().max_test_length {
            break;
        }
        // A store into an array of the head: the rebound array may be shorter, or (arrays
        // being covariant) of a narrower element type. Stores into the tail's own arrays stay.
        if let Statement::ArrayStore { array, .. } = stmt {
            if array.index() < b {
                continue;
            }
        }
        let mut copy = stmt.clone();
        let mut ok = true;
        for r in copy.uses_mut() {
            let j = r.index();
            let target = match map.get(j).copied() {
                Some(Some(known)) => known,
                Some(None) if j < b => {
                    let found = rebind(j)?;
                    map[j] = Some(found);
                    found
                }
                _ => None,
            };
            match target {
                Some(target) => *r = VarRef(u32::try_from(target).ok()?),
                None => ok = false,
            }
        }
        if ok {
            map[i] = Some(Some(out.len()));
            out.push(copy);
        }
    }
    let t = Test::new(out);
    // Valid by construction: head values keep their types and every rebound reference gets
    // a value of a type that fits where it is used. Checking it costs a descriptor parse per
    // statement, a sizeable share of breeding, so only debug builds (and with them the
    // property tests, which type-check every offspring) pay for it.
    debug_assert!(
        t.validate().is_ok(),
        "crossover at {a}/{b} made an ill-formed test: {:?}",
        t.validate()
    );
    (!t.is_empty()).then_some(t)
}
