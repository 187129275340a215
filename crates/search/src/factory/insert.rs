//! The insertion operator (paper III-E2) and random tests (paper III-E3).

use ferrosuite_bytecode::descriptor::FieldType;
use ferrosuite_testcase::statement::{Prim, Statement, Test, VarRef};

use super::{Call, Factory};
use crate::error::{Error, Result};
use crate::random::{Rng, chance, index, int_in, pick};

/// The probability that a file statement names a path the code asked for (else its path is
/// generated like any string).
const PATH_PROBABILITY: f64 = 0.8;

impl<'a> Factory<'a> {
    // --- insertion ---------------------------------------------------------------------------

    /// The paper's insertion of one statement (with what it needs) at a random position: a
    /// random call on the CUT, a call on an existing value, or a call taking an existing value,
    /// each with probability 1/3. Returns whether the test changed.
    pub fn insert_random<R: Rng + ?Sized>(&self, test: &mut Test, rng: &mut R) -> Result<bool> {
        let mut types = self.value_types(&test.statements)?;
        self.insert_random_typed(test, &mut types, rng)
    }

    /// [`insert_random`](Self::insert_random) with the test's value types given (and kept up
    /// to date: `types` must be [`value_types`] of `test`).
    ///
    /// [`value_types`]: super::value_types
    pub fn insert_random_typed<R: Rng + ?Sized>(
        &self,
        test: &mut Test,
        types: &mut Vec<Option<FieldType>>,
        rng: &mut R,
    ) -> Result<bool> {
        let pos = index(rng, test.len() + 1);
        Ok(match index(rng, 3) {
            0 => self.cut_call_at(test, types, pos, rng),
            1 => self.call_on_value_at(test, types, pos, rng),
            _ => self.call_with_value_at(test, types, pos, rng),
        })
    }

    /// Inserts a random call on the CUT at `pos`, generating its receiver and parameters.
    pub fn insert_cut_call<R: Rng + ?Sized>(
        &self,
        test: &mut Test,
        pos: usize,
        rng: &mut R,
    ) -> Result<bool> {
        let mut types = self.value_types(&test.statements)?;
        Ok(self.cut_call_at(test, &mut types, pos, rng))
    }

    /// Inserts a call of `call` at `pos`, generating its receiver and parameters as a random
    /// call on the CUT would (a search that needs a given member in its tests, such as
    /// Cling's covering methods). Returns whether the test changed.
    pub fn insert_given_call<R: Rng + ?Sized>(
        &self,
        test: &mut Test,
        pos: usize,
        call: Call<'a>,
        rng: &mut R,
    ) -> Result<bool> {
        let mut types = self.value_types(&test.statements)?;
        Ok(
            self.splice_typed(test, &mut types, pos.min(test.len()), false, rng, |g| {
                g.call(call, 0, None, None)
            }),
        )
    }

    fn cut_call_at<R: Rng + ?Sized>(
        &self,
        test: &mut Test,
        types: &mut Vec<Option<FieldType>>,
        pos: usize,
        rng: &mut R,
    ) -> bool {
        // Private access with probability P_PA once S_PA of the budget is spent (PAFM III-C).
        let mocking = &self.config().mocking;
        let private = !self.private_calls().is_empty()
            && self.progress() >= mocking.private_start
            && chance(rng, mocking.private_probability);
        // An environment statement with probability P_ENV once the code used its resource.
        let environment = !private
            && !self.environment_calls().is_empty()
            && chance(rng, self.config().environment_probability);
        let calls = if private {
            self.private_calls()
        } else if environment {
            self.environment_calls()
        } else {
            &self.cut_calls
        };
        let Some(&call) = pick(rng, calls) else {
            return false;
        };
        // A file statement names a path the code asked for, mostly.
        let string = FieldType::Object("java/lang/String".into());
        let path = (environment
            && call.params().first().is_some_and(|(t, _)| *t == string)
            && chance(rng, PATH_PROBABILITY))
        .then(|| pick(rng, self.environment_paths()).cloned())
        .flatten();
        self.splice_typed(test, types, pos, false, rng, |g| match path {
            Some(p) => {
                let at = g.push(Statement::Primitive(Prim::String(p)), Some(string))?;
                g.call(call, 0, None, Some((0, at)))
            }
            None => g.call(call, 0, None, None),
        })
    }

    /// The result methods callable on a value of type `ty`: those of its own class, else of
    /// the first class it is assignable to (by class name).
    fn result_calls_on(&self, ty: &FieldType) -> &[Call<'a>] {
        let FieldType::Object(c) = ty else {
            return &[];
        };
        if let Some(calls) = self.result_calls.get(c) {
            return calls;
        }
        self.result_calls
            .iter()
            .find(|(class, _)| self.assignable(ty, &FieldType::Object((*class).clone())))
            .map_or(&[], |(_, calls)| calls.as_slice())
    }

    /// Inserts at `pos` a call on an existing non-null value defined before `pos`: of a CUT
    /// instance member on a value of the CUT's type, or of a
    /// [result method](super::TestCluster::result_methods) on a value of a class the CUT returns
    /// (`iterator()` on the `Iterable` a call returned); falls back to
    /// [`Factory::insert_cut_call`].
    pub fn insert_call_on_value<R: Rng + ?Sized>(
        &self,
        test: &mut Test,
        pos: usize,
        rng: &mut R,
    ) -> Result<bool> {
        let mut types = self.value_types(&test.statements)?;
        Ok(self.call_on_value_at(test, &mut types, pos, rng))
    }

    fn call_on_value_at<R: Rng + ?Sized>(
        &self,
        test: &mut Test,
        types: &mut Vec<Option<FieldType>>,
        pos: usize,
        rng: &mut R,
    ) -> bool {
        // Every non-null value before `pos` with something to call on it, then one of those.
        let mut receivers: Vec<(usize, &[Call<'a>])> = Vec::new();
        let before = test.statements.iter().zip(types.iter()).take(pos);
        for (k, (s, t)) in before.enumerate() {
            // A mock only answers its stubs: a call on it tests nothing.
            if matches!(s, Statement::Null { .. } | Statement::Mock { .. }) {
                continue;
            }
            let Some(t) = t.as_ref() else {
                continue;
            };
            let calls = if self.assignable(t, &self.cut_type) {
                self.instance_calls.as_slice()
            } else {
                self.result_calls_on(t)
            };
            if !calls.is_empty() {
                receivers.push((k, calls));
            }
        }
        let Some(&(r, calls)) = pick(rng, &receivers) else {
            return self.cut_call_at(test, types, pos, rng);
        };
        let Some(&call) = pick(rng, calls) else {
            return self.cut_call_at(test, types, pos, rng);
        };
        self.splice_typed(test, types, pos, false, rng, |g| {
            g.call(call, 0, Some(VarRef(r as u32)), None)
        })
    }

    /// Inserts at `pos` a call on the CUT that takes an existing value defined before `pos` as
    /// one of its parameters; falls back to [`Factory::insert_cut_call`].
    pub fn insert_call_with_value<R: Rng + ?Sized>(
        &self,
        test: &mut Test,
        pos: usize,
        rng: &mut R,
    ) -> Result<bool> {
        let mut types = self.value_types(&test.statements)?;
        Ok(self.call_with_value_at(test, &mut types, pos, rng))
    }

    fn call_with_value_at<R: Rng + ?Sized>(
        &self,
        test: &mut Test,
        types: &mut Vec<Option<FieldType>>,
        pos: usize,
        rng: &mut R,
    ) -> bool {
        let values: Vec<usize> = (0..pos.min(test.len()))
            .filter(|&k| {
                types[k].is_some() && !matches!(test.statements[k], Statement::Null { .. })
            })
            .collect();
        for _ in 0..3 {
            let Some(&k) = pick(rng, &values) else {
                break;
            };
            let Some(have) = types[k].as_ref() else {
                continue;
            };
            let slots = self.value_slots(have);
            if let Some(&(c, i)) = pick(rng, &slots) {
                let call = self.cut_calls[c];
                return self.splice_typed(test, types, pos, false, rng, |g| {
                    g.call(call, 0, None, Some((i, VarRef(k as u32))))
                });
            }
        }
        self.cut_call_at(test, types, pos, rng)
    }

    /// Every (index in `cut_calls`, parameter index) a value of type `have` fits, in call and
    /// then parameter order.
    pub(super) fn value_slots(&self, have: &FieldType) -> Vec<(usize, usize)> {
        let mut slots: Vec<(usize, usize)> = Vec::new();
        for (p, at) in &self.cut_param_types {
            if self.assignable(have, p) {
                slots.extend(at);
            }
        }
        slots.sort_unstable();
        slots
    }

    /// A random test (paper III-E3): r uniform in \[1, L\], then insertions into an empty test
    /// until it has at least r statements (or [`Config::max_insertion_failures`] insertions in a
    /// row fail).
    ///
    /// [`Config::max_insertion_failures`]: crate::Config::max_insertion_failures
    pub fn random_test<R: Rng + ?Sized>(&self, rng: &mut R) -> Result<Test> {
        let target = int_in(rng, 1, self.config.max_test_length as i64) as usize;
        let mut test = Test::default();
        let mut failures = 0;
        let mut attempts = 0;
        let mut types = Vec::new();
        while test.len() < target && failures < self.config.max_insertion_failures.max(1) {
            attempts += 1;
            if self.insert_random_typed(&mut test, &mut types, rng)? {
                failures = 0;
            } else {
                failures += 1;
            }
        }
        if test.is_empty() {
            return Err(Error::Construction {
                cut: self.cluster.cut.clone(),
                attempts,
            });
        }
        Ok(test)
    }
}
