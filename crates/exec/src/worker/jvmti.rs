//! Counts the loaded classes whose static initialisation failed, through JVMTI.
//!
//! A `StackOverflowError` or `OutOfMemoryError` thrown while a static initialiser runs leaves
//! that class erroneous: every later use throws `NoClassDefFoundError`. The error's stack
//! trace shows the initialiser only when it is among the innermost frames, so after such an
//! error the worker asks the JVM itself: `GetLoadedClasses` and `GetClassStatus` (JVMTI
//! functions 78 and 49, no capability needed, callable from any attached thread in the live
//! phase). If the count of classes with `JVMTI_CLASS_STATUS_ERROR` grew since the last look,
//! some initialiser failed and the worker makes way for a fresh one; otherwise the error
//! left nothing behind but an unwound stack or a collected heap.
//!
//! For example, a test whose `HashBag` contains itself overflows the stack in `hashCode`
//! (no initialiser involved: the count stays, the worker goes on), while one whose first use
//! of a class recurses in that class's `static {}` block raises the count (the worker
//! retires).
#![allow(unsafe_code)]

use std::ffi::c_void;

use jni::sys::{JavaVM, jclass, jint};

use crate::raw::Jni;

/// `JVMTI_VERSION_1_2`.
const JVMTI_VERSION_1_2: jint = 0x3001_0200;
/// `JVMTI_CLASS_STATUS_ERROR`.
const CLASS_STATUS_ERROR: jint = 8;
/// Function numbers of the JVMTI specification (the table's index plus one).
const DEALLOCATE: usize = 47;
const GET_CLASS_STATUS: usize = 49;
const GET_LOADED_CLASSES: usize = 78;

type JvmtiEnv = *mut *const *const c_void;
type Deallocate = unsafe extern "system" fn(JvmtiEnv, *mut u8) -> jint;
type GetClassStatus = unsafe extern "system" fn(JvmtiEnv, jclass, *mut jint) -> jint;
type GetLoadedClasses = unsafe extern "system" fn(JvmtiEnv, *mut jint, *mut *mut jclass) -> jint;

/// A JVMTI environment of the worker's JVM, for [`ClassStatus::erroneous`].
pub(super) struct ClassStatus {
    env: JvmtiEnv,
}

impl ClassStatus {
    /// The JVM's JVMTI environment, if it gives one.
    pub(super) fn new(vm: *mut JavaVM) -> Option<ClassStatus> {
        if vm.is_null() {
            return None;
        }
        let mut env: *mut c_void = std::ptr::null_mut();
        // SAFETY: `vm` is the live JVM's invocation interface; `GetEnv` writes one pointer.
        let rc = unsafe { ((**vm).v1_2.GetEnv)(vm, &raw mut env, JVMTI_VERSION_1_2) };
        (rc == 0 && !env.is_null()).then_some(ClassStatus { env: env.cast() })
    }

    /// The table entry of JVMTI function number `n`.
    ///
    /// # Safety
    /// `n` must be a function number of JVMTI 1.2, and `F` its signature.
    unsafe fn function<F: Copy>(&self, n: usize) -> Option<F> {
        // SAFETY: the environment points at the function table, an array of pointers where
        // function `n` is at index `n - 1`; a null entry is an unimplemented function.
        unsafe {
            let table = *self.env;
            let entry = *table.add(n - 1);
            (!entry.is_null()).then(|| std::mem::transmute_copy::<*const c_void, F>(&entry))
        }
    }

    /// How many loaded classes are erroneous (failed static initialisation); `None` when the
    /// JVM would not say. Deletes every local reference it gets.
    pub(super) fn erroneous(&self, jni: &Jni) -> Option<usize> {
        // SAFETY: the numbers and signatures are JVMTI 1.2's; the array the JVM allocates
        // holds `count` local references of this thread, each deleted after use, and is given
        // back with `Deallocate`.
        unsafe {
            let loaded: GetLoadedClasses = self.function(GET_LOADED_CLASSES)?;
            let status: GetClassStatus = self.function(GET_CLASS_STATUS)?;
            let deallocate: Deallocate = self.function(DEALLOCATE)?;
            let mut count: jint = 0;
            let mut classes: *mut jclass = std::ptr::null_mut();
            if loaded(self.env, &raw mut count, &raw mut classes) != 0 || classes.is_null() {
                return None;
            }
            let mut erroneous = 0;
            for i in 0..usize::try_from(count).unwrap_or(0) {
                let c = *classes.add(i);
                let mut s: jint = 0;
                if status(self.env, c, &raw mut s) == 0 && s & CLASS_STATUS_ERROR != 0 {
                    erroneous += 1;
                }
                jni.delete_local(c);
            }
            deallocate(self.env, classes.cast());
            Some(erroneous)
        }
    }
}
