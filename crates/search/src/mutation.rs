//! Test mutation (whole-suite paper, Section III-E2): *remove*, *change* and *insert*, applied
//! in this order, each with probability 1/3 ([`Config::remove_probability`], …), so on
//! average one of them; all three with probability 1/27.
//!
//! - **Remove** ([`remove_step`]): each statement of a test of length n is deleted with
//!   probability 1/n, from the last to the first. A later statement that used the deleted value
//!   gets another earlier value of the *same type* instead, chosen at random; when there is none
//!   it is deleted too, recursively ([`remove_with_repair`]). In
//!   `int v0 = 1; int v1 = 2; Stack v2 = new Stack(); v2.push(v1);`, deleting `v1` makes the
//!   push use `v0`; deleting `v2` deletes the push.
//! - **Change** ([`change_step`]): each statement is changed with probability 1/n
//!   ([`change_statement`]). A primitive gets a new value by [`mutate_prim`] (a Δ step, a
//!   string edit); an enum constant another constant; a `null` a newly generated value of its
//!   type; a call either one of its inputs replaced (with probability 1/2, when it has any: a
//!   receiver by another existing non-null value of a fitting type, an argument by `null` with
//!   [`Config::null_probability`] or another fitting existing value, a new value when none
//!   exists) or the whole call replaced by another call of the cluster whose result fits the
//!   old one's type (for a `void` call, another `void` call on the CUT); an array creation a
//!   new length (stores beyond it are deleted); an array store another index or value.
//! - **Insert** ([`insert_step`]): with probability σ'
//!   ([`Config::statement_insertion_probability`] = 0.5) a statement is inserted by
//!   [`Factory::insert_random`], then a second with σ'², …, while the test is shorter than L.
//!
//! [`Config::remove_probability`]: crate::Config::remove_probability
//! [`Config::null_probability`]: crate::Config::null_probability
//! [`Config::statement_insertion_probability`]: crate::Config::statement_insertion_probability
//! [`mutate_prim`]: crate::values::mutate_prim
//!
//! Before the steps, a test whose mocks were called for other methods (or more or fewer times)
//! than its stubs say, in its last run, gets stubs that follow the calls, with new random
//! answers ([`crate::mocks`]); that counts as a change.
//!
//! Every step keeps the test valid (`Test::validate`) and within L statements.
//!
//! ```
//! # use ferrosuite_search::mutation::remove_with_repair;
//! use ferrosuite_testcase::{Prim, Statement, Test, VarRef};
//! use rand_chacha::ChaCha8Rng;
//! use rand_chacha::rand_core::SeedableRng;
//! let mut t = Test::new(vec![
//!     Statement::Primitive(Prim::Int(1)),
//!     Statement::Primitive(Prim::Int(2)),
//!     Statement::constructor("examples/Stack", "()V", vec![]),
//!     Statement::method("examples/Stack", "push", "(I)V", Some(VarRef(2)), vec![VarRef(1)]),
//! ]);
//! let mut rng = ChaCha8Rng::seed_from_u64(0);
//! assert_eq!(remove_with_repair(&mut t, 1, &mut rng)?, 1); // the push now uses v0
//! let push = |r, a| Statement::method("examples/Stack", "push", "(I)V", Some(r), vec![a]);
//! assert_eq!(t.statements[2], push(VarRef(1), VarRef(0)));
//! assert_eq!(remove_with_repair(&mut t, 1, &mut rng)?, 2); // no other Stack: the push goes too
//! # Ok::<(), ferrosuite_search::Error>(())
//! ```

use std::borrow::Cow;

use ferrosuite_bytecode::descriptor::{FieldType, MethodDescriptor};
use ferrosuite_testcase::statement::{MockCalls, Statement, Test, VarRef};

use crate::error::Result;
use crate::factory::{Factory, value_types};
use crate::random::{Rng, chance, index, int_in, pick, pick_index_where};
use crate::values::mutate_prim;

/// Mutates a test: remove, change and insert, each with its probability. Returns whether a
/// step changed the test (it may end empty; the suite then drops it). A change can leave the
/// test equal to what it was (a value changed and changed back): it then counts as changed,
/// which costs one needless execution, where comparing with a copy would cost a copy of every
/// mutated test.
pub fn mutate_test<R: Rng + ?Sized>(f: &Factory<'_>, test: &mut Test, rng: &mut R) -> Result<bool> {
    let followed = f
        .mock_feedback(test)
        .is_some_and(|calls| follow_mock_calls(f, calls, test, rng));
    Ok(mutate_via(f, test, |t| t, rng)? || followed)
}

/// Makes the stubs of the test's mocks follow what its last run called (`calls`, the
/// factory's feedback), with new random answers; returns whether the test changed.
fn follow_mock_calls<R: Rng + ?Sized>(
    f: &Factory<'_>,
    calls: &[MockCalls],
    test: &mut Test,
    rng: &mut R,
) -> bool {
    let mut make = |t: &mut Test, pos: usize, types: &[FieldType]| -> Option<Vec<VarRef>> {
        let mut known = f.value_types(&t.statements).ok()?;
        let mut made = Vec::with_capacity(types.len());
        f.splice_typed(t, &mut known, pos, false, rng, |g| {
            for ty in types {
                let erased = matches!(ty, FieldType::Object(n) if n == "java/lang/Object");
                made.push(g.value(ty, erased, 1, true)?);
            }
            made.last().copied()
        });
        (made.len() == types.len()).then_some(made)
    };
    crate::mocks::follow_calls_with(test, calls, &mut make)
}

/// [`mutate_test`] on a test others hold too (a suite's test, kept in the
/// [`TestStore`](crate::suite::TestStore)): the test is copied only when a step is drawn, not
/// when none is (probability (2/3)³ with the default probabilities), with the same draws as
/// `mutate_test`. Returns the changed copy, or `None` when no step changed the test.
pub fn mutate_copy<R: Rng + ?Sized>(
    f: &Factory<'_>,
    test: &Test,
    rng: &mut R,
) -> Result<Option<Test>> {
    let mut copy = Cow::Borrowed(test);
    let followed = f
        .mock_feedback(test)
        .is_some_and(|calls| follow_mock_calls(f, calls, copy.to_mut(), rng));
    let changed = mutate_via(f, &mut copy, Cow::to_mut, rng)? || followed;
    Ok(changed.then(|| copy.into_owned()))
}

/// The three steps on the test `get` gives access to, asked for only once a step is drawn.
fn mutate_via<T, R: Rng + ?Sized>(
    f: &Factory<'_>,
    test: &mut T,
    get: impl Fn(&mut T) -> &mut Test,
    rng: &mut R,
) -> Result<bool> {
    let c = f.config();
    let mut changed = false;
    // The test's value types, computed when a step first needs them and kept up to date by
    // the steps that follow (a statement's value type depends on that statement alone).
    let mut types = None;
    if chance(rng, c.remove_probability) {
        changed |= remove_step_typed(get(test), &mut types, rng, &|s| f.value_types(s))? > 0;
    }
    if chance(rng, c.change_probability) {
        changed |= change_step_typed(f, get(test), &mut types, rng)? > 0;
    }
    if chance(rng, c.insert_probability) {
        changed |= insert_step_typed(f, get(test), &mut types, rng)? > 0;
    }
    // Known types were asked for by a step, so the test is already the mutable one here.
    if let Some(t) = &types {
        debug_assert!(value_types(&get(test).statements).is_ok_and(|v| v == *t));
    }
    Ok(changed)
}

/// The value types of a test's statements, when known: `None` until a step needs them.
type KnownTypes = Option<Vec<Option<FieldType>>>;

/// `types`, computed by the factory if not known yet.
fn known<'t>(
    f: &Factory<'_>,
    test: &Test,
    types: &'t mut KnownTypes,
) -> Result<&'t mut Vec<Option<FieldType>>> {
    known_by(types, &test.statements, &|s| f.value_types(s))
}

/// `types`, computed by `types_of` from `statements` if not known yet.
fn known_by<'t>(
    types: &'t mut KnownTypes,
    statements: &[Statement],
    types_of: &TypesOf<'_>,
) -> Result<&'t mut Vec<Option<FieldType>>> {
    Ok(match types {
        Some(t) => t,
        None => types.insert(types_of(statements)?),
    })
}

/// The remove step: each statement deleted with probability 1/n, last to first, with repair.
/// Returns how many statements were deleted (repairs included).
pub fn remove_step<R: Rng + ?Sized>(test: &mut Test, rng: &mut R) -> Result<usize> {
    remove_step_typed(test, &mut None, rng, &value_types)
}

/// The value types of a test's statements, as [`value_types`] gives them.
type TypesOf<'f> = dyn Fn(&[Statement]) -> Result<Vec<Option<FieldType>>> + 'f;

/// [`remove_step`] with the test's value types `types` when known (else from `types_of`, a
/// factory's, which remembers them, if a repair needs them), kept up to date.
fn remove_step_typed<R: Rng + ?Sized>(
    test: &mut Test,
    types: &mut KnownTypes,
    rng: &mut R,
    types_of: &TypesOf<'_>,
) -> Result<usize> {
    let n = test.len();
    if n == 0 {
        return Ok(0);
    }
    let p = 1.0 / n as f64;
    let mut removed = 0;
    for i in (0..n).rev() {
        if i < test.len() && chance(rng, p) {
            removed += remove_with_repair_typed(test, types, i, rng, types_of)?;
        }
    }
    Ok(removed)
}

/// Deletes statement `index`; each later use of its value is redirected to another earlier
/// value of the same type (chosen at random), and a statement without such a value is deleted
/// too, recursively. Returns how many statements were deleted.
pub fn remove_with_repair<R: Rng + ?Sized>(
    test: &mut Test,
    index: usize,
    rng: &mut R,
) -> Result<usize> {
    remove_with_repair_typed(test, &mut None, index, rng, &value_types)
}

/// [`remove_with_repair`] with the value types as in [`remove_step_typed`].
fn remove_with_repair_typed<R: Rng + ?Sized>(
    test: &mut Test,
    kept: &mut KnownTypes,
    index: usize,
    rng: &mut R,
    types_of: &TypesOf<'_>,
) -> Result<usize> {
    let n = test.len();
    if index >= n {
        return Ok(0);
    }
    debug_assert!(kept.as_ref().is_none_or(|t| t.len() == n));
    let mut dead = vec![false; n];
    dead[index] = true;
    for j in index + 1..n {
        let uses_dead = test.statements[j]
            .uses_mut()
            .any(|r| dead.get(r.index()).copied().unwrap_or(true));
        if !uses_dead {
            continue;
        }
        // The value types, computed (unless known) when a use of a deleted value first needs
        // another value (redirecting uses does not change them; a deleted value nothing uses
        // needs none); the deletions are applied to them below.
        let types: &[Option<FieldType>] = known_by(kept, &test.statements, types_of)?;
        let mut lost = false;
        let (before, rest) = test.statements.split_at_mut(j);
        // A store goes only into an array the test built, long enough for it: an array read
        // from a static field is shared state, which the store would change for every later
        // test in the JVM (and in the emitted class).
        let store_at = match &rest[0] {
            Statement::ArrayStore { index, .. } => Some(*index),
            _ => None,
        };
        let mut first = true;
        for r in rest[0].uses_mut() {
            let is_array = std::mem::replace(&mut first, false) && store_at.is_some();
            let old = r.index();
            if !dead.get(old).copied().unwrap_or(true) {
                continue;
            }
            let want = types.get(old).and_then(Option::as_ref);
            let found = pick_index_where(rng, j, |k| {
                !dead[k]
                    && want.is_some()
                    && types[k].as_ref() == want
                    && (!is_array
                        || matches!(before[k], Statement::ArrayNew { length, .. }
                            if store_at.is_some_and(|i| i < length)))
            });
            if let Some(k) = found {
                *r = VarRef(k as u32);
            } else {
                lost = true;
                break;
            }
        }
        if lost {
            dead[j] = true;
        }
    }
    let mut renumber = vec![0u32; n];
    let mut next = 0u32;
    for (i, d) in dead.iter().enumerate() {
        renumber[i] = next;
        if !d {
            next += 1;
        }
    }
    if let Some(types) = kept {
        let mut i = 0;
        types.retain(|_| {
            i += 1;
            !dead[i - 1]
        });
    }
    // In place: the survivors move down once, renumbered (those before `index` use only
    // values before it, which keep their numbers).
    let mut i = 0;
    test.statements.retain_mut(|s| {
        let keep = !dead[i];
        i += 1;
        if keep && i > index {
            for r in s.uses_mut() {
                *r = VarRef(renumber[r.index()]);
            }
        }
        keep
    });
    Ok(dead.iter().filter(|d| **d).count())
}

/// The change step: each statement changed with probability 1/n. Returns how many were changed.
pub fn change_step<R: Rng + ?Sized>(
    f: &Factory<'_>,
    test: &mut Test,
    rng: &mut R,
) -> Result<usize> {
    change_step_typed(f, test, &mut None, rng)
}

/// [`change_step`] with the test's value types when known, kept up to date.
fn change_step_typed<R: Rng + ?Sized>(
    f: &Factory<'_>,
    test: &mut Test,
    types: &mut KnownTypes,
    rng: &mut R,
) -> Result<usize> {
    let n = test.len();
    if n == 0 {
        return Ok(0);
    }
    let p = 1.0 / n as f64;
    let mut changed = 0;
    let mut i = 0;
    while i < test.len() {
        if chance(rng, p) {
            let before = test.len();
            if change_statement_typed(f, test, types, i, rng)? {
                changed += 1;
            }
            // Values generated for the change were inserted before the statement.
            i += test.len().saturating_sub(before);
        }
        i += 1;
    }
    Ok(changed)
}

/// The insert step: insertions with probability σ', σ'², … while shorter than L. Returns how
/// many insertions changed the test.
pub fn insert_step<R: Rng + ?Sized>(
    f: &Factory<'_>,
    test: &mut Test,
    rng: &mut R,
) -> Result<usize> {
    insert_step_typed(f, test, &mut None, rng)
}

/// [`insert_step`] with the test's value types when known, kept up to date.
fn insert_step_typed<R: Rng + ?Sized>(
    f: &Factory<'_>,
    test: &mut Test,
    types: &mut KnownTypes,
    rng: &mut R,
) -> Result<usize> {
    let sigma = f.config().statement_insertion_probability;
    let mut pk = sigma;
    let mut inserted = 0;
    while test.len() < f.config().max_test_length && chance(rng, pk) {
        let types = known(f, test, types)?;
        if f.insert_random_typed(test, types, rng)? {
            inserted += 1;
        }
        pk *= sigma;
    }
    Ok(inserted)
}

/// The declared type of each value a statement reads, in the order of `Statement::uses`, with
/// whether it is a receiver.
fn slot_types(s: &Statement, types: &[Option<FieldType>]) -> Result<Vec<(FieldType, bool)>> {
    let recv = |class: &str| (FieldType::Object(class.to_string()), true);
    let params = |d: &str| -> Result<Vec<(FieldType, bool)>> {
        Ok(MethodDescriptor::parse(d)?
            .params
            .into_iter()
            .map(|p| (p, false))
            .collect())
    };
    Ok(match s {
        Statement::Constructor { descriptor, .. } => params(descriptor)?,
        Statement::Method {
            class,
            descriptor,
            receiver,
            ..
        } => {
            let mut v: Vec<_> = receiver.iter().map(|_| recv(class)).collect();
            v.extend(params(descriptor)?);
            v
        }
        Statement::FieldRead {
            class, receiver, ..
        } => receiver.iter().map(|_| recv(class)).collect(),
        Statement::FieldWrite {
            class,
            descriptor,
            receiver,
            ..
        } => {
            let mut v: Vec<_> = receiver.iter().map(|_| recv(class)).collect();
            v.push((FieldType::parse(descriptor)?, false));
            v
        }
        Statement::ArrayStore { array, .. } => {
            let component = match types.get(array.index()).cloned().flatten() {
                Some(FieldType::Array(c)) => *c,
                _ => FieldType::Object("java/lang/Object".into()),
            };
            vec![
                (FieldType::Array(Box::new(component.clone())), true),
                (component, false),
            ]
        }
        _ => Vec::new(),
    })
}

/// Changes statement `i` (see the [module documentation](self)). Values it needs may be
/// inserted before it. Returns whether the test changed.
pub fn change_statement<R: Rng + ?Sized>(
    f: &Factory<'_>,
    test: &mut Test,
    i: usize,
    rng: &mut R,
) -> Result<bool> {
    change_statement_typed(f, test, &mut None, i, rng)
}

/// [`change_statement`] with the test's value types when known, kept up to date (a changed
/// primitive, enum constant, array length or store keeps its statement's type).
fn change_statement_typed<R: Rng + ?Sized>(
    f: &Factory<'_>,
    test: &mut Test,
    types: &mut KnownTypes,
    i: usize,
    rng: &mut R,
) -> Result<bool> {
    let Some(s) = test.statements.get_mut(i) else {
        return Ok(false);
    };
    match s {
        Statement::Primitive(p) => {
            mutate_prim(p, f.seeds(), f.config(), rng);
            Ok(true)
        }
        Statement::EnumConstant { class, name } => {
            let others: Vec<&String> = f
                .cluster()
                .enum_constants(class)
                .unwrap_or_default()
                .iter()
                .filter(|c| c.as_str() != &**name)
                .collect();
            match pick(rng, &others) {
                Some(c) => {
                    *name = c.as_str().into();
                    Ok(true)
                }
                None => Ok(false),
            }
        }
        Statement::ClassLiteral { ty } => {
            let old = ty.clone();
            let others: Vec<_> = f
                .class_literals_for_uses(&test.statements, i)
                .into_iter()
                .filter(|l| l.ty != old)
                .collect();
            match pick(rng, &others) {
                Some(l) => {
                    test.statements[i] = Statement::ClassLiteral { ty: l.ty.clone() };
                    Ok(true)
                }
                None => Ok(false),
            }
        }
        Statement::Null { ty } => {
            let ty = ty.clone();
            let types = known(f, test, types)?;
            Ok(f.splice_typed(test, types, i, true, rng, |g| g.create(&ty, 1)))
        }
        Statement::ArrayNew { length, .. } => {
            let old = *length;
            let mut new = int_in(rng, 0, i64::from(f.config().max_array_length)) as u32;
            if new == old {
                new = if old == 0 { 1 } else { old - 1 };
            }
            *length = new;
            // Stores at or beyond the new length would throw: delete them (they are void).
            for j in (i + 1..test.len()).rev() {
                if let Statement::ArrayStore { array, index, .. } = &test.statements[j] {
                    if array.index() == i && *index >= new {
                        test.statements.remove(j);
                        if let Some(types) = types.as_mut() {
                            types.remove(j);
                        }
                        for s in &mut test.statements[j..] {
                            for r in s.uses_mut() {
                                if r.index() > j {
                                    r.0 -= 1;
                                }
                            }
                        }
                    }
                }
            }
            Ok(true)
        }
        Statement::ArrayStore { array, index, .. } => {
            let (array, old) = (*array, *index);
            let length = match test.statements.get(array.index()) {
                Some(Statement::ArrayNew { length, .. }) => Some(*length),
                _ => None,
            };
            if let Some(len) = length.filter(|&l| l > 1) {
                if chance(rng, 0.5) {
                    let mut new = int_in(rng, 0, i64::from(len) - 1) as u32;
                    if new == old {
                        new = (old + 1) % len;
                    }
                    if let Some(Statement::ArrayStore { index, .. }) = test.statements.get_mut(i) {
                        *index = new;
                    }
                    return Ok(true);
                }
            }
            replace_input(f, test, types, i, Some(1), rng)
        }
        Statement::Constructor { .. }
        | Statement::Method { .. }
        | Statement::FieldRead { .. }
        | Statement::FieldWrite { .. } => {
            let has_inputs = !s.uses().is_empty();
            if has_inputs && chance(rng, 0.5) && replace_input(f, test, types, i, None, rng)? {
                return Ok(true);
            }
            replace_call(f, test, types, i, rng)
        }
        _ => Ok(false),
    }
}

/// Replaces one input of statement `at` (input `slot` of `Statement::uses`, or a random one):
/// `null` (arguments only), another existing value of a fitting type, or a new one.
fn replace_input<R: Rng + ?Sized>(
    f: &Factory<'_>,
    test: &mut Test,
    known_types: &mut KnownTypes,
    at: usize,
    slot: Option<usize>,
    rng: &mut R,
) -> Result<bool> {
    let types = known(f, test, known_types)?;
    let Some(stmt) = test.statements.get(at) else {
        return Ok(false);
    };
    let uses = stmt.uses();
    let mut slots = slot_types(stmt, types)?;
    // Arguments of a cluster call want the types its generic signature gives.
    if let Some(call) = f.call_for(stmt) {
        let params = f.params_of(call);
        let first = usize::from(call.needs_receiver());
        if slots.len() == first + params.len() {
            for (slot, (param, _)) in slots[first..].iter_mut().zip(params.iter()) {
                slot.0 = param.clone();
            }
        }
    }
    if uses.is_empty() || slots.len() != uses.len() {
        return Ok(false);
    }
    let which = slot
        .unwrap_or_else(|| index(rng, uses.len()))
        .min(uses.len() - 1);
    let (want, is_receiver) = slots[which].clone();
    let current = uses[which];
    let set = |target: &mut Statement, v: VarRef| {
        if let Some(r) = target.uses_mut().nth(which) {
            *r = v;
        }
    };
    let own_type = types[at].clone();
    if !is_receiver && want.is_reference() && chance(rng, f.config().null_probability) {
        if matches!(
            test.statements.get(current.index()),
            Some(Statement::Null { .. })
        ) {
            return Ok(false);
        }
        let mut changed = test.statements[at].clone();
        return Ok(f.splice_typed(test, types, at, true, rng, |g| {
            let v = g.push(Statement::Null { ty: want.clone() }, Some(want.clone()))?;
            set(&mut changed, v);
            g.push(changed, own_type)
        }));
    }
    let found = pick_index_where(rng, at, |k| {
        VarRef(k as u32) != current
            && !(is_receiver && matches!(test.statements[k], Statement::Null { .. }))
            && types[k].as_ref().is_some_and(|t| f.assignable(t, &want))
    });
    if let Some(k) = found {
        set(&mut test.statements[at], VarRef(k as u32));
        return Ok(true);
    }
    if is_receiver {
        return Ok(false);
    }
    let mut changed = test.statements[at].clone();
    Ok(f.splice_typed(test, types, at, true, rng, |g| {
        let v = g.create(&want, 1)?;
        set(&mut changed, v);
        g.push(changed, own_type)
    }))
}

/// Replaces call statement `i` by another call whose result fits its type (paper: "a method,
/// field, or constructor with the same return type").
fn replace_call<R: Rng + ?Sized>(
    f: &Factory<'_>,
    test: &mut Test,
    types: &mut KnownTypes,
    i: usize,
    rng: &mut R,
) -> Result<bool> {
    let types = known(f, test, types)?;
    let (Some(s), Some(ty)) = (test.statements.get(i), types.get(i)) else {
        return Ok(false);
    };
    let calls: Vec<_> = f
        .calls_returning_shared(ty.as_ref())
        .iter()
        .copied()
        .filter(|c| !c.same_member(s))
        .collect();
    let Some(&call) = pick(rng, &calls) else {
        return Ok(false);
    };
    Ok(f.splice_typed(test, types, i, true, rng, |g| g.call(call, 1, None, None)))
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::panic)]
mod tests {
    use super::*;
    use crate::Config;
    use ferrosuite_testcase::constants::Constants;
    use ferrosuite_testcase::statement::Prim;
    use rand_chacha::ChaCha8Rng;
    use rand_chacha::rand_core::SeedableRng;

    /// Calls `check(factory, seed, test)` for the seeds 0..200, each with a random test of the
    /// toy cluster (built from a generator of its own).
    fn for_random_tests(mut check: impl FnMut(&Factory<'_>, u64, Test)) {
        let c = crate::factory::tests::toy_cluster();
        let f = Factory::new(&c, Constants::default(), Config::default()).unwrap();
        let mut built = ChaCha8Rng::seed_from_u64(5);
        for seed in 0..200 {
            check(&f, seed, f.random_test(&mut built).unwrap());
        }
    }

    #[test]
    fn a_copied_test_mutates_as_a_plain_one() {
        let (mut changed, mut unchanged) = (0, 0);
        for_random_tests(|f, seed, test| {
            let mut plain = test.clone();
            let (mut r1, mut r2) = (
                ChaCha8Rng::seed_from_u64(seed),
                ChaCha8Rng::seed_from_u64(seed),
            );
            let c1 = mutate_test(f, &mut plain, &mut r1).unwrap();
            let copy = mutate_copy(f, &test, &mut r2).unwrap();
            // The same draws, the same result; the original is left as it was.
            assert_eq!(r1.next_u64(), r2.next_u64());
            if let Some(copy) = copy {
                assert!(c1);
                assert_eq!(copy, plain);
                changed += 1;
            } else {
                assert!(!c1);
                unchanged += 1;
            }
        });
        // No step is drawn with probability 8/27, and a step drawn may change nothing.
        assert!(unchanged > 20 && changed > 20, "{unchanged} {changed}");
    }

    #[test]
    fn a_test_is_copied_only_when_a_step_is_drawn() {
        let (mut copied, mut borrowed) = (0, 0);
        for_random_tests(|f, seed, test| {
            // Whether a step is drawn: `mutate_via`'s three draws for the steps agree with three
            // draws in a row up to the first step drawn.
            let mut peek = ChaCha8Rng::seed_from_u64(seed);
            let c = f.config();
            let drawn = [
                c.remove_probability,
                c.change_probability,
                c.insert_probability,
            ]
            .into_iter()
            .any(|p| chance(&mut peek, p));
            let mut cow = Cow::Borrowed(&test);
            let mut rng = ChaCha8Rng::seed_from_u64(seed);
            mutate_via(f, &mut cow, Cow::to_mut, &mut rng).unwrap();
            let owned = matches!(cow, Cow::Owned(_));
            assert_eq!(
                owned, drawn,
                "seed {seed}: copied if and only if a step was drawn"
            );
            if owned {
                copied += 1;
            } else {
                borrowed += 1;
            }
        });
        assert!(copied > 20 && borrowed > 20, "{copied} {borrowed}");
    }

    #[test]
    fn removal_repairs_with_a_value_of_the_same_type() {
        let mut rng = ChaCha8Rng::seed_from_u64(0);
        let mut t = Test::new(vec![
            Statement::Primitive(Prim::Int(1)),
            Statement::Primitive(Prim::Long(2)),
            Statement::Primitive(Prim::Int(3)),
            Statement::constructor("A", "(I)V", vec![VarRef(2)]),
            Statement::method("A", "m", "(J)V", Some(VarRef(3)), vec![VarRef(1)]),
        ]);
        assert_eq!(remove_with_repair(&mut t, 2, &mut rng).unwrap(), 1);
        assert_eq!(
            t.statements[2],
            Statement::constructor("A", "(I)V", vec![VarRef(0)])
        );
        t.validate().unwrap();
        // The long has no replacement: the call using it goes.
        assert_eq!(remove_with_repair(&mut t, 1, &mut rng).unwrap(), 2);
        assert_eq!(t.len(), 2);
        t.validate().unwrap();
        assert_eq!(remove_with_repair(&mut t, 9, &mut rng).unwrap(), 0);
    }

    /// A store whose array is deleted moves only to another array the test built, long
    /// enough: never to an array read from a static field (shared state) or a shorter one.
    #[test]
    fn stores_move_only_to_arrays_the_test_built() {
        let table = || Statement::FieldRead {
            class: "A".into(),
            name: "TABLE".into(),
            descriptor: "[I".into(),
            receiver: None,
        };
        let new = |length| Statement::ArrayNew {
            component: FieldType::Int,
            length,
        };
        let store = |array| Statement::ArrayStore {
            array: VarRef(array),
            index: 2,
            value: VarRef(3),
        };
        for seed in 0..50 {
            let mut rng = ChaCha8Rng::seed_from_u64(seed);
            let mut t = Test::new(vec![
                table(),
                new(1),
                new(5),
                Statement::Primitive(Prim::Int(7)),
                store(2),
            ]);
            // The 5-element array goes: the static table and the 1-element array do not fit.
            assert_eq!(remove_with_repair(&mut t, 2, &mut rng).unwrap(), 2);
            assert_eq!(
                t.statements,
                vec![table(), new(1), Statement::Primitive(Prim::Int(7))]
            );
            let mut t = Test::new(vec![
                table(),
                new(3),
                new(5),
                Statement::Primitive(Prim::Int(7)),
                store(2),
            ]);
            assert_eq!(remove_with_repair(&mut t, 2, &mut rng).unwrap(), 1);
            let moved = Statement::ArrayStore {
                array: VarRef(1),
                index: 2,
                value: VarRef(2),
            };
            assert_eq!(t.statements[3], moved);
        }
    }

    #[test]
    fn array_length_changes_drop_stores_beyond_it() {
        let c = crate::factory::tests::toy_cluster();
        let f = Factory::new(&c, Constants::default(), Config::default()).unwrap();
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        let base = Test::new(vec![
            Statement::ArrayNew {
                component: FieldType::Int,
                length: 10,
            },
            Statement::Primitive(Prim::Int(4)),
            Statement::ArrayStore {
                array: VarRef(0),
                index: 9,
                value: VarRef(1),
            },
            Statement::ArrayStore {
                array: VarRef(0),
                index: 0,
                value: VarRef(1),
            },
            Statement::Primitive(Prim::Int(5)),
            Statement::ArrayStore {
                array: VarRef(0),
                index: 1,
                value: VarRef(4),
            },
        ]);
        for _ in 0..30 {
            let mut t = base.clone();
            assert!(change_statement(&f, &mut t, 0, &mut rng).unwrap());
            t.validate().unwrap();
            let Statement::ArrayNew { length, .. } = t.statements[0] else {
                panic!()
            };
            assert_ne!(length, 10);
            for s in &t.statements {
                if let Statement::ArrayStore { index, .. } = s {
                    assert!(*index < length);
                }
            }
        }
    }
}
