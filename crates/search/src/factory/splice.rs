//! Splices: statements generated at a position of a test, with values for their parameters.

use ferrosuite_bytecode::descriptor::FieldType;
use ferrosuite_testcase::cluster::ClassLiteral;
use ferrosuite_testcase::statement::{CLASS, Statement, Test, VarRef};

use super::{Call, Factory, STRING, value_types};
#[cfg(test)]
use crate::error::Result;
use crate::random::{Rng, chance, index, int_in, pick, pick_index_where};
use crate::values::random_prim;

impl<'a> Factory<'a> {
    // --- splices -----------------------------------------------------------------------------

    /// [`splice_typed`](Self::splice_typed) with the value types computed here (for tests).
    #[cfg(test)]
    pub(crate) fn splice<R: Rng + ?Sized>(
        &self,
        test: &mut Test,
        pos: usize,
        replace: bool,
        rng: &mut R,
        build: impl FnOnce(&mut Gen<'_, 'a, R>) -> Option<VarRef>,
    ) -> Result<bool> {
        let mut types = self.value_types(&test.statements)?;
        Ok(self.splice_typed(test, &mut types, pos, replace, rng, build))
    }

    /// Generates statements at `pos` with `build` and splices them into `test`. With `replace`,
    /// statement `pos` is removed and its uses are redirected to the value `build` returns
    /// (which must fit wherever statement `pos` was used). Returns whether the test changed;
    /// when `build` gives up or the test would exceed L, it is left unchanged. `types` are the
    /// test's value types ([`value_types`]), kept up to date, so that repeated changes of one
    /// test do not parse its descriptors again.
    pub(crate) fn splice_typed<R: Rng + ?Sized>(
        &self,
        test: &mut Test,
        types: &mut Vec<Option<FieldType>>,
        pos: usize,
        replace: bool,
        rng: &mut R,
        build: impl FnOnce(&mut Gen<'_, 'a, R>) -> Option<VarRef>,
    ) -> bool {
        let n = test.len();
        if pos > n || (replace && pos == n) {
            return false;
        }
        debug_assert_eq!(types.len(), n);
        let suffix_len = n - pos - usize::from(replace);
        let capacity = self.config.max_test_length.saturating_sub(suffix_len);
        if pos > capacity {
            return false;
        }
        // The generator reads the statements before `pos` where they are and builds the new
        // ones on their own; only when it succeeds is the test touched: the rest is
        // renumbered in place and the new statements spliced in (the rest moved once).
        let mut g = Gen {
            f: self,
            rng,
            prefix: &test.statements[..pos],
            prefix_types: &types[..pos],
            stmts: Vec::new(),
            types: Vec::new(),
            capacity,
        };
        let result = build(&mut g);
        let Gen {
            stmts: new,
            types: new_types,
            ..
        } = g;
        let added = new.len();
        // The generator records the type of each statement it adds as `value_types` gives it
        // (the declared type, as the statement's descriptor or class names it: checked after
        // the splice in debug builds), so nothing is parsed again here.
        let Some(result) = result else {
            return false;
        };
        if added == 0 && !replace {
            return false;
        }
        let removed = usize::from(replace);
        for s in &mut test.statements[pos + removed..] {
            for r in s.uses_mut() {
                let i = r.index();
                if i < pos {
                    continue;
                }
                *r = if replace && i == pos {
                    result
                } else {
                    VarRef((i - removed + added) as u32)
                };
            }
        }
        test.statements.splice(pos..pos + removed, new);
        types.splice(pos..pos + removed, new_types);
        debug_assert!(value_types(&test.statements).is_ok_and(|t| t == *types));
        true
    }
}

/// `ty` with its (innermost) element type replaced by `element`: `Object[][]` → `Integer[][]`,
/// `Object` → `Integer`; for an erased type variable `T` or `T[]`.
fn with_element(ty: &FieldType, element: &FieldType) -> FieldType {
    match ty {
        FieldType::Array(c) => FieldType::Array(Box::new(with_element(c, element))),
        _ => element.clone(),
    }
}

/// Statement generation inside a splice: the statements before the insertion point (read
/// where they are) and the new ones, with their value types, and a capacity the new ones must
/// stay within. Value `k` is `prefix[k]` below the prefix's length, else `stmts[k - len]`.
pub(crate) struct Gen<'g, 'a, R: ?Sized> {
    f: &'g Factory<'a>,
    rng: &'g mut R,
    prefix: &'g [Statement],
    prefix_types: &'g [Option<FieldType>],
    stmts: Vec<Statement>,
    types: Vec<Option<FieldType>>,
    capacity: usize,
}

impl<'a, R: Rng + ?Sized> Gen<'_, 'a, R> {
    /// How many values there are (before the insertion point, and new).
    fn len(&self) -> usize {
        self.prefix.len() + self.stmts.len()
    }

    /// Appends a statement of value type `ty`; `None` when the capacity is reached.
    pub(crate) fn push(&mut self, s: Statement, ty: Option<FieldType>) -> Option<VarRef> {
        if self.len() >= self.capacity {
            return None;
        }
        self.stmts.push(s);
        self.types.push(ty);
        Some(VarRef((self.len() - 1) as u32))
    }

    /// Drops the new statements from value `len` on.
    fn truncate(&mut self, len: usize) {
        let keep = len.saturating_sub(self.prefix.len());
        self.stmts.truncate(keep);
        self.types.truncate(keep);
    }

    /// One of the existing values fitting `want` (not `null` statements when `non_null`),
    /// uniformly at random; `None` when none fits.
    fn pick_existing(&mut self, want: &FieldType, non_null: bool) -> Option<VarRef> {
        let (f, prefix, prefix_types) = (self.f, self.prefix, self.prefix_types);
        let (stmts, types) = (&self.stmts, &self.types);
        let k = pick_index_where(self.rng, prefix.len() + stmts.len(), |k| {
            let (s, t) = match k.checked_sub(prefix.len()) {
                None => (&prefix[k], prefix_types[k].as_ref()),
                Some(j) => (&stmts[j], types[j].as_ref()),
            };
            !(non_null && matches!(s, Statement::Null { .. }))
                && t.is_some_and(|t| f.assignable(t, want))
        })?;
        Some(VarRef(k as u32))
    }

    fn push_null(&mut self, ty: &FieldType) -> Option<VarRef> {
        self.push(Statement::Null { ty: ty.clone() }, Some(ty.clone()))
    }

    fn push_constant(&mut self, ty: &FieldType) -> Option<VarRef> {
        let f = self.f;
        let p = random_prim(ty, &f.seeds, &f.config, self.rng)?;
        let t = p.field_type();
        self.push(Statement::Primitive(p), Some(t))
    }

    /// A value for a parameter of type `ty` (see the module documentation): `null`, reuse, or
    /// new statements. `erased` marks an unbounded type variable; `allow_null` is false for
    /// receivers. `None` when the capacity is exhausted (or, for a receiver, nothing fits).
    pub(crate) fn value(
        &mut self,
        ty: &FieldType,
        erased: bool,
        depth: u32,
        allow_null: bool,
    ) -> Option<VarRef> {
        let f = self.f;
        let cfg = &f.config;
        let is_string = matches!(ty, FieldType::Object(n) if n == STRING);
        if !ty.is_reference() || is_string {
            if is_string && allow_null && chance(self.rng, cfg.null_probability) {
                return self.push_null(ty);
            }
            if chance(self.rng, cfg.primitive_reuse_probability) {
                if let Some(r) = self.pick_existing(ty, !allow_null) {
                    return Some(r);
                }
            }
            return self.push_constant(ty);
        }
        if allow_null && chance(self.rng, cfg.null_probability) {
            return self.push_null(ty);
        }
        if chance(self.rng, cfg.object_reuse_probability) {
            if let Some(r) = self.pick_existing(ty, !allow_null) {
                return Some(r);
            }
        }
        if depth <= cfg.max_recursion {
            let target = match (erased, pick(self.rng, &f.cluster.erased_generic_fallback)) {
                (true, Some(fallback)) => with_element(ty, fallback),
                _ => ty.clone(),
            };
            let mark = self.len();
            if let Some(r) = self.create(&target, depth) {
                return Some(r);
            }
            self.truncate(mark);
        }
        if allow_null {
            self.push_null(ty)
        } else {
            self.pick_existing(ty, true)
        }
    }

    /// New statements giving a value of `ty` (no reuse, no `null` unless inside parameters).
    pub(crate) fn create(&mut self, ty: &FieldType, depth: u32) -> Option<VarRef> {
        match ty {
            FieldType::Object(n) if n == STRING => self.push_constant(ty),
            FieldType::Object(_) => {
                // The type's generators, then a string when one fits: one chosen uniformly.
                let f = self.f;
                let (generators, string_fits, mockable, cast_mocks) =
                    f.creators
                        .get(ty)
                        .map_or((&[][..], false, false, &[][..]), |c| {
                            (
                                &c.generators[..],
                                c.string_fits,
                                c.mockable,
                                &c.cast_mocks[..],
                            )
                        });
                let options = generators.len() + usize::from(string_fits) + cast_mocks.len();
                // A type nothing builds is always mocked; any other mockable type with P_FM
                // once S_FM of the budget is spent (PAFM III-C).
                // A mock of the type may instead be one of its cast classes.
                let mocking = &f.config.mocking;
                if mockable
                    && (options == cast_mocks.len()
                        || mocking.may_mock_optionally(f.progress())
                            && chance(self.rng, mocking.mock_probability))
                {
                    let FieldType::Object(class) = ty else {
                        return None;
                    };
                    let class = match cast_mocks.len() {
                        0 => class,
                        n => match index(self.rng, n + 1) {
                            0 => class,
                            k => &cast_mocks[k - 1],
                        },
                    };
                    let mock = Statement::Mock {
                        class: class.as_str().into(),
                        stubs: Vec::new(),
                    };
                    return self.push(mock, Some(FieldType::Object(class.clone())));
                }
                // A `Class` nothing gives (or, half the time, one something gives): a literal.
                let literals = &f.cluster.class_literals;
                if matches!(ty, FieldType::Object(n) if n == CLASS)
                    && !literals.is_empty()
                    && (options == 0 || chance(self.rng, 0.5))
                {
                    let lit = pick(self.rng, literals)?;
                    return self.push_literal(lit);
                }
                if options == 0 {
                    return None;
                }
                for _ in 0..3 {
                    let choice = index(self.rng, options);
                    let mark = self.len();
                    let made = match generators.get(choice) {
                        Some(&op) => self.call(Call::Op(op), depth, None, None),
                        None => match cast_mocks.get(choice - generators.len()) {
                            Some(class) => {
                                // A mock of a cast class: typed as the subtype, so later
                                // statements and stubs see what it is.
                                let mock = Statement::Mock {
                                    class: class.as_str().into(),
                                    stubs: Vec::new(),
                                };
                                self.push(mock, Some(FieldType::Object(class.clone())))
                            }
                            None => self.push_constant(&FieldType::Object(STRING.into())),
                        },
                    };
                    if made.is_some() {
                        return made;
                    }
                    self.truncate(mark);
                }
                None
            }
            FieldType::Array(component) => self.array(component, depth),
            _ => self.push_constant(ty),
        }
    }

    /// A class literal fitting parameter `k` of `call`, unless none fits or the draw leaves
    /// the parameter to [`value`](Self::value) (`null`, another `Class` value) with the
    /// probability of `null`.
    fn class_literal(&mut self, call: Call<'a>, k: usize) -> Option<VarRef> {
        let f = self.f;
        let fitting = f.class_literals_for(call, k);
        if fitting.is_empty() || chance(self.rng, f.config.null_probability) {
            return None;
        }
        let lit = *pick(self.rng, &fitting)?;
        self.push_literal(lit)
    }

    fn push_literal(&mut self, lit: &ClassLiteral) -> Option<VarRef> {
        let s = Statement::ClassLiteral { ty: lit.ty.clone() };
        self.push(s, Some(FieldType::Object(CLASS.into())))
    }

    /// `new T[n]` and a store of a generated value into each element.
    fn array(&mut self, component: &FieldType, depth: u32) -> Option<VarRef> {
        let f = self.f;
        let cfg = &f.config;
        let room = self.capacity.saturating_sub(self.len());
        let mut length = int_in(self.rng, 0, i64::from(cfg.max_array_length)) as usize;
        length = length.min(room.saturating_sub(1) / 2);
        let array_ty = FieldType::Array(Box::new(component.clone()));
        let array = self.push(
            Statement::ArrayNew {
                component: component.clone(),
                length: length as u32,
            },
            Some(array_ty),
        )?;
        for i in 0..length {
            let value = self.value(component, false, depth + 1, true)?;
            self.push(
                Statement::ArrayStore {
                    array,
                    index: i as u32,
                    value,
                },
                None,
            )?;
        }
        Some(array)
    }

    /// The statement of `call` with a receiver (given, or found/created) and arguments
    /// (generated, except `fixed` = (parameter index, value)).
    pub(crate) fn call(
        &mut self,
        call: Call<'a>,
        depth: u32,
        receiver: Option<VarRef>,
        fixed: Option<(usize, VarRef)>,
    ) -> Option<VarRef> {
        let recv = match receiver {
            Some(r) if call.needs_receiver() => Some(r),
            _ => match call.receiver_type() {
                None => None,
                Some(t) => Some(self.value(&t, false, depth + 1, false)?),
            },
        };
        let f = self.f;
        let params = f.params_of(call);
        let mut args = Vec::with_capacity(params.len());
        // A private field is never set to `null` (PAFM III-A: a state no constructor leaves).
        let allow_null = !(call.is_private() && matches!(call, Call::Write(_)));
        for (i, (p, erased)) in params.iter().enumerate() {
            match fixed {
                Some((j, v)) if j == i => args.push(v),
                _ => {
                    let literal = match p {
                        FieldType::Object(n) if n == CLASS => self.class_literal(call, i),
                        _ => None,
                    };
                    match literal {
                        Some(v) => args.push(v),
                        None => args.push(self.value(p, *erased, depth + 1, allow_null)?),
                    }
                }
            }
        }
        let s = call.statement(recv, args)?;
        self.push(s, call.ret())
    }
}
