//! Mock statements in the worker: Mockito mocks made through the runtime's `Mocks` class, and
//! the calls they got read back after the test.
//!
//! A `Statement::Mock` becomes `Mocks.create(type, keys, answers)`: one `Mocks` object per mock
//! holds the stubs (method name and descriptor → the answer values, primitives boxed) and
//! counts the calls of every method. After the test, `calledMethods()` and `callCounts()` give
//! a [`MockCalls`] per mock, which the search uses to make the stubs follow the calls.

use ferrosuite_bytecode::descriptor::FieldType;
use ferrosuite_testcase::VarRef;
use ferrosuite_testcase::statement::{MockCalls, Name, Stub};
use jni::sys::{jclass, jmethodID, jobject, jsize, jvalue};

use super::Executor;
use super::run::Val;
use crate::raw::{self, Kind};

/// The runtime's `Mocks` class and its methods.
pub(super) struct MockIds {
    class: jclass,
    create: jmethodID,
    mock: jmethodID,
    called: jmethodID,
    counts: jmethodID,
    object_array: jclass,
    object: jclass,
}

/// A mock the running test made.
pub(super) struct Made {
    /// The index of its statement.
    statement: u32,
    /// Its `Mocks` object.
    state: jobject,
    /// The mock.
    pub(super) mock: jobject,
    /// The binary name of the mocked type.
    pub(super) class: String,
}

const MOCKS: &str = "org/ferrosuite/rt/Mocks";

impl Executor<'_> {
    fn mock_ids(&mut self) -> Result<&MockIds, String> {
        if self.mock_ids.is_none() {
            let class = self.class_named(MOCKS)?;
            let m = |ex: &mut Self, name: &str, desc: &str, is_static: bool| {
                ex.method(MOCKS, name, desc, is_static).map(|m| m.id)
            };
            let create = m(
                self,
                "create",
                "(Ljava/lang/Class;[Ljava/lang/String;[[Ljava/lang/Object;)Lorg/ferrosuite/rt/Mocks;",
                true,
            )?;
            let mock = m(self, "mock", "()Ljava/lang/Object;", false)?;
            let called = m(self, "calledMethods", "()[Ljava/lang/String;", false)?;
            let counts = m(self, "callCounts", "()[I", false)?;
            let object = self.class_named("java/lang/Object")?;
            let object_array = self.class(&FieldType::Array(Box::new(FieldType::Object(
                "java/lang/Object".into(),
            ))))?;
            self.mock_ids = Some(MockIds {
                class,
                create,
                mock,
                called,
                counts,
                object_array,
                object,
            });
        }
        self.mock_ids
            .as_ref()
            .ok_or_else(|| "no Mocks class".into())
    }

    /// A primitive boxed in its wrapper class (`Integer.valueOf(int)`, …).
    fn boxed(&mut self, kind: Kind, v: jvalue) -> Result<jobject, String> {
        let (class, desc) = match kind {
            Kind::Boolean => ("java/lang/Boolean", "(Z)Ljava/lang/Boolean;"),
            Kind::Byte => ("java/lang/Byte", "(B)Ljava/lang/Byte;"),
            Kind::Char => ("java/lang/Character", "(C)Ljava/lang/Character;"),
            Kind::Short => ("java/lang/Short", "(S)Ljava/lang/Short;"),
            Kind::Int => ("java/lang/Integer", "(I)Ljava/lang/Integer;"),
            Kind::Long => ("java/lang/Long", "(J)Ljava/lang/Long;"),
            Kind::Float => ("java/lang/Float", "(F)Ljava/lang/Float;"),
            Kind::Double => ("java/lang/Double", "(D)Ljava/lang/Double;"),
            Kind::Object | Kind::Void => return Err("not a primitive".into()),
        };
        let m = self.method(class, "valueOf", desc, true)?;
        let (c, id) = (m.class, m.id);
        let o = raw::reference(self.jni.call(c, id, Kind::Object, &[v], true));
        if o.is_null() {
            self.jni.clear_exception();
            return Err(format!("{class}.valueOf failed"));
        }
        Ok(o)
    }

    /// Makes the mock of a `Statement::Mock` (statement `index`); `Err` with a message for
    /// an invalid statement, `Ok(Err(throwable))` when Mockito threw.
    pub(super) fn make_mock(
        &mut self,
        index: usize,
        class: &Name,
        stubs: &[Stub],
        vals: &[Val],
    ) -> Result<Result<jobject, jobject>, String> {
        let jni = self.jni;
        let ty = self.class_named(class)?;
        let ids = self.mock_ids()?;
        let (mocks, create, mock_m, object, object_array) = (
            ids.class,
            ids.create,
            ids.mock,
            ids.object,
            ids.object_array,
        );
        let keys: Vec<String> = stubs
            .iter()
            .map(|s| format!("{}{}", s.name, s.descriptor))
            .collect();
        let jkeys = jni.new_string_array(&keys);
        let len = |n: usize| jsize::try_from(n).map_err(|_| "too many stubs".to_string());
        let answers = jni.new_array(Kind::Object, object_array, len(stubs.len())?);
        if jkeys.is_null() || answers.is_null() {
            jni.clear_exception();
            return Err("cannot allocate the stubs".into());
        }
        for (k, stub) in stubs.iter().enumerate() {
            let values = jni.new_array(Kind::Object, object, len(stub.answers.len())?);
            if values.is_null() {
                jni.clear_exception();
                return Err("cannot allocate the answers".into());
            }
            for (j, a) in stub.answers.iter().enumerate() {
                let o = match answer(vals, *a)? {
                    Val::Ref(o) => o,
                    Val::Prim(kind, v) => self.boxed(kind, v)?,
                    Val::Void => return Err(format!("answer {a} is void")),
                };
                jni.array_store(values, Kind::Object, len(j)?, jvalue { l: o });
            }
            jni.array_store(answers, Kind::Object, len(k)?, jvalue { l: values });
        }
        if jni.exception_pending() {
            jni.clear_exception();
            return Err("cannot store the answers".into());
        }
        let state = raw::reference(jni.call(
            mocks,
            create,
            Kind::Object,
            &[jvalue { l: ty }, jvalue { l: jkeys }, jvalue { l: answers }],
            true,
        ));
        if let Some(t) = jni.take_exception() {
            return Ok(Err(t));
        }
        let mock = raw::reference(jni.call(state, mock_m, Kind::Object, &[], false));
        if let Some(t) = jni.take_exception() {
            return Ok(Err(t));
        }
        self.test_mocks.push(Made {
            statement: u32::try_from(index).unwrap_or(u32::MAX),
            state,
            mock,
            class: class.replace('/', "."),
        });
        Ok(Ok(mock))
    }

    /// For one of the test's mocks, the binary name of the mocked type; `None` for other
    /// values.
    pub(super) fn mocked_type(&self, r: jobject) -> Option<String> {
        if r.is_null() {
            return None;
        }
        self.test_mocks
            .iter()
            .find(|m| self.jni.same_object(m.mock, r))
            .map(|m| m.class.clone())
    }

    /// The calls each mock of the test got (then forgets the test's mocks).
    pub(super) fn mock_calls(&mut self) -> Vec<MockCalls> {
        let made = std::mem::take(&mut self.test_mocks);
        let Some(ids) = &self.mock_ids else {
            return Vec::new();
        };
        let jni = self.jni;
        let mut out = Vec::with_capacity(made.len());
        for Made {
            statement, state, ..
        } in made
        {
            let names = raw::reference(jni.call(state, ids.called, Kind::Object, &[], false));
            let counts = raw::reference(jni.call(state, ids.counts, Kind::Object, &[], false));
            if jni.exception_pending() || names.is_null() || counts.is_null() {
                jni.clear_exception();
                continue;
            }
            let n = jni.array_length(names);
            let mut c = vec![0i32; n];
            jni.read_ints(counts, 0, &mut c);
            let mut calls = Vec::with_capacity(n);
            for (k, count) in c.iter().enumerate() {
                let key = jni.array_element(names, k as jsize);
                if key.is_null() {
                    continue;
                }
                let text = jni.read_string(key, 1 << 16).0;
                jni.delete_local(key);
                if let Some(open) = text.find('(') {
                    let (name, desc) = text.split_at(open);
                    calls.push((
                        Name::from(name),
                        Name::from(desc),
                        u32::try_from(*count).unwrap_or(0),
                    ));
                }
            }
            out.push(MockCalls { statement, calls });
        }
        jni.clear_exception();
        out
    }
}

fn answer(vals: &[Val], r: VarRef) -> Result<Val, String> {
    vals.get(r.index())
        .copied()
        .ok_or_else(|| format!("{r} is not an earlier value"))
}
