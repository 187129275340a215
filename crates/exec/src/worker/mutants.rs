//! Mutation analysis in the worker: the runtime's `Mutants` (see
//! `ferrosuite_bytecode::instrument::mutation`), whose `active` field the worker sets before
//! each test of a batch run against a mutant, and whose `reached()` sites it reads after.

use jni::sys::{jclass, jfieldID, jmethodID, jvalue};

use super::Executor;
use crate::raw::{self, Jni, Kind};
use ferrosuite_bytecode::instrument::mutation::MUTANTS_CLASS;

/// Handles of the runtime's `Mutants`.
pub(super) struct MutantIds {
    class: jclass,
    f_active: jfieldID,
    begin: jmethodID,
    reached: jmethodID,
}

impl MutantIds {
    /// The handles; makes room for mutant ids up to `last`.
    pub(super) fn new(jni: Jni, last: u32) -> Result<MutantIds, String> {
        let class = Executor::global_class(jni, MUTANTS_CLASS)?;
        let prepare = Executor::mid(jni, class, "prepare", "(I)V", true)?;
        let last = i32::try_from(last).map_err(|_| format!("{last} mutants are too many"))?;
        jni.call(class, prepare, Kind::Void, &[jvalue { i: last }], true);
        if jni.exception_pending() {
            jni.clear_exception();
            return Err("Mutants.prepare failed".into());
        }
        Ok(MutantIds {
            class,
            f_active: Executor::fid(jni, class, "active", "I")?,
            begin: Executor::mid(jni, class, "begin", "()V", true)?,
            reached: Executor::mid(jni, class, "reached", "()[I", true)?,
        })
    }

    /// Starts a test against `mutant` (0: the original code): no site reached yet.
    pub(super) fn begin(&self, jni: Jni, mutant: u32) {
        let id = i32::try_from(mutant).unwrap_or(0);
        jni.set_field(self.class, self.f_active, Kind::Int, jvalue { i: id }, true);
        jni.call(self.class, self.begin, Kind::Void, &[], true);
        jni.clear_exception();
    }

    /// The sites the test reached, in the order first reached.
    pub(super) fn reached(&self, jni: Jni) -> Vec<u32> {
        let a = raw::reference(jni.call(self.class, self.reached, Kind::Object, &[], true));
        if jni.exception_pending() || a.is_null() {
            jni.clear_exception();
            return Vec::new();
        }
        let mut ids = vec![0; jni.array_length(a)];
        jni.read_ints(a, 0, &mut ids);
        jni.delete_local(a);
        ids.into_iter()
            .filter_map(|i| u32::try_from(i).ok())
            .collect()
    }

    /// Back to the original code (after a test, so that nothing else the worker runs, a
    /// static reset, runs a mutant).
    pub(super) fn end(&self, jni: Jni) {
        jni.set_field(self.class, self.f_active, Kind::Int, jvalue { i: 0 }, true);
    }
}
