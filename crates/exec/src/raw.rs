//! A thin layer over the raw JNI function table, for the worker's hot path: statements run as
//! direct `Call<Type>MethodA`, `NewObjectA`, `Get/Set<Type>Field` calls with ids cached by the
//! worker. The `jni` crate starts the JVM and attaches threads; this module only calls
//! functions of an already attached thread's environment.
//!
//! Every handle (`jobject`, `jclass`, `jmethodID`, `jfieldID`) passed to these functions comes
//! from the same JVM through this module, and local references are used only inside the local
//! frame (or attachment) that created them: that is the invariant the `unsafe` blocks rely on.
//! JNI functions never unwind; a Java exception is left pending, and callers check it with
//! [`Jni::take_exception`].
#![allow(unsafe_code)]

use std::ffi::CStr;

use jni::sys::{
    self, JNIEnv, jboolean, jbyte, jchar, jclass, jdouble, jfieldID, jfloat, jint, jlong,
    jmethodID, jobject, jshort, jsize, jvalue,
};

/// The kind of a Java value at the JNI level.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Kind {
    /// `Z`
    Boolean,
    /// `B`
    Byte,
    /// `C`
    Char,
    /// `S`
    Short,
    /// `I`
    Int,
    /// `J`
    Long,
    /// `F`
    Float,
    /// `D`
    Double,
    /// `L…;` or `[…`
    Object,
    /// `V`
    Void,
}

impl Kind {
    /// The kind of a field type.
    #[must_use]
    pub fn of(t: &ferrosuite_bytecode::descriptor::FieldType) -> Kind {
        use ferrosuite_bytecode::descriptor::FieldType as F;
        match t {
            F::Boolean => Kind::Boolean,
            F::Byte => Kind::Byte,
            F::Char => Kind::Char,
            F::Short => Kind::Short,
            F::Int => Kind::Int,
            F::Long => Kind::Long,
            F::Float => Kind::Float,
            F::Double => Kind::Double,
            F::Object(_) | F::Array(_) => Kind::Object,
        }
    }
}

/// A null `jvalue`.
#[must_use]
pub fn null_value() -> jvalue {
    jvalue { j: 0 }
}

/// The JNI environment of the current (attached) thread.
#[derive(Clone, Copy)]
pub struct Jni {
    env: *mut JNIEnv,
}

macro_rules! u {
    ($v:expr, $f:ident) => {
        // SAFETY: callers pass a `jvalue` written at the member its kind names.
        unsafe { $v.$f }
    };
}

macro_rules! jni {
    ($s:expr, $v:ident, $f:ident $(, $a:expr)*) => {
        // SAFETY: `env` is the valid environment of the attached current thread (see
        // `Jni::new`), and the arguments are handles of this JVM (module invariant).
        unsafe { ((**$s.env).$v.$f)($s.env $(, $a)*) }
    };
}

impl Jni {
    /// Wraps the environment of the current thread.
    ///
    /// # Safety
    /// `env` must be the JNI environment of the calling thread, attached for as long as the
    /// value is used, and used only on that thread.
    pub unsafe fn new(env: *mut JNIEnv) -> Self {
        Jni { env }
    }

    /// `FindClass` (system class loader for attached threads).
    pub fn find_class(&self, name: &CStr) -> jclass {
        jni!(self, v1_1, FindClass, name.as_ptr())
    }

    /// `DefineClass`.
    pub fn define_class(&self, name: &CStr, loader: jobject, bytes: &[u8]) -> jclass {
        let len = jsize::try_from(bytes.len()).unwrap_or(jsize::MAX);
        jni!(
            self,
            v1_1,
            DefineClass,
            name.as_ptr(),
            loader,
            bytes.as_ptr().cast(),
            len
        )
    }

    /// `GetMethodID` or `GetStaticMethodID`; null with a pending `NoSuchMethodError`.
    pub fn method_id(&self, class: jclass, name: &CStr, sig: &CStr, is_static: bool) -> jmethodID {
        if is_static {
            jni!(
                self,
                v1_1,
                GetStaticMethodID,
                class,
                name.as_ptr(),
                sig.as_ptr()
            )
        } else {
            jni!(self, v1_1, GetMethodID, class, name.as_ptr(), sig.as_ptr())
        }
    }

    /// `GetFieldID` or `GetStaticFieldID`; null with a pending `NoSuchFieldError`.
    pub fn field_id(&self, class: jclass, name: &CStr, sig: &CStr, is_static: bool) -> jfieldID {
        if is_static {
            jni!(
                self,
                v1_1,
                GetStaticFieldID,
                class,
                name.as_ptr(),
                sig.as_ptr()
            )
        } else {
            jni!(self, v1_1, GetFieldID, class, name.as_ptr(), sig.as_ptr())
        }
    }

    /// `NewObjectA`.
    pub fn new_object(&self, class: jclass, ctor: jmethodID, args: &[jvalue]) -> jobject {
        jni!(self, v1_1, NewObjectA, class, ctor, args.as_ptr())
    }

    /// Calls an instance method (virtual dispatch) or a static method.
    pub fn call(
        &self,
        target: jobject,
        method: jmethodID,
        ret: Kind,
        args: &[jvalue],
        is_static: bool,
    ) -> jvalue {
        let a = args.as_ptr();
        if is_static {
            match ret {
                Kind::Boolean => jvalue {
                    z: jni!(self, v1_1, CallStaticBooleanMethodA, target, method, a),
                },
                Kind::Byte => jvalue {
                    b: jni!(self, v1_1, CallStaticByteMethodA, target, method, a),
                },
                Kind::Char => jvalue {
                    c: jni!(self, v1_1, CallStaticCharMethodA, target, method, a),
                },
                Kind::Short => jvalue {
                    s: jni!(self, v1_1, CallStaticShortMethodA, target, method, a),
                },
                Kind::Int => jvalue {
                    i: jni!(self, v1_1, CallStaticIntMethodA, target, method, a),
                },
                Kind::Long => jvalue {
                    j: jni!(self, v1_1, CallStaticLongMethodA, target, method, a),
                },
                Kind::Float => jvalue {
                    f: jni!(self, v1_1, CallStaticFloatMethodA, target, method, a),
                },
                Kind::Double => jvalue {
                    d: jni!(self, v1_1, CallStaticDoubleMethodA, target, method, a),
                },
                Kind::Object => jvalue {
                    l: jni!(self, v1_1, CallStaticObjectMethodA, target, method, a),
                },
                Kind::Void => {
                    jni!(self, v1_1, CallStaticVoidMethodA, target, method, a);
                    null_value()
                }
            }
        } else {
            match ret {
                Kind::Boolean => jvalue {
                    z: jni!(self, v1_1, CallBooleanMethodA, target, method, a),
                },
                Kind::Byte => jvalue {
                    b: jni!(self, v1_1, CallByteMethodA, target, method, a),
                },
                Kind::Char => jvalue {
                    c: jni!(self, v1_1, CallCharMethodA, target, method, a),
                },
                Kind::Short => jvalue {
                    s: jni!(self, v1_1, CallShortMethodA, target, method, a),
                },
                Kind::Int => jvalue {
                    i: jni!(self, v1_1, CallIntMethodA, target, method, a),
                },
                Kind::Long => jvalue {
                    j: jni!(self, v1_1, CallLongMethodA, target, method, a),
                },
                Kind::Float => jvalue {
                    f: jni!(self, v1_1, CallFloatMethodA, target, method, a),
                },
                Kind::Double => jvalue {
                    d: jni!(self, v1_1, CallDoubleMethodA, target, method, a),
                },
                Kind::Object => jvalue {
                    l: jni!(self, v1_1, CallObjectMethodA, target, method, a),
                },
                Kind::Void => {
                    jni!(self, v1_1, CallVoidMethodA, target, method, a);
                    null_value()
                }
            }
        }
    }

    /// Reads an instance field (`target` an object) or a static one (`target` its class).
    pub fn get_field(
        &self,
        target: jobject,
        field: jfieldID,
        kind: Kind,
        is_static: bool,
    ) -> jvalue {
        if is_static {
            match kind {
                Kind::Boolean => jvalue {
                    z: jni!(self, v1_1, GetStaticBooleanField, target, field),
                },
                Kind::Byte => jvalue {
                    b: jni!(self, v1_1, GetStaticByteField, target, field),
                },
                Kind::Char => jvalue {
                    c: jni!(self, v1_1, GetStaticCharField, target, field),
                },
                Kind::Short => jvalue {
                    s: jni!(self, v1_1, GetStaticShortField, target, field),
                },
                Kind::Int => jvalue {
                    i: jni!(self, v1_1, GetStaticIntField, target, field),
                },
                Kind::Long => jvalue {
                    j: jni!(self, v1_1, GetStaticLongField, target, field),
                },
                Kind::Float => jvalue {
                    f: jni!(self, v1_1, GetStaticFloatField, target, field),
                },
                Kind::Double => jvalue {
                    d: jni!(self, v1_1, GetStaticDoubleField, target, field),
                },
                Kind::Object | Kind::Void => jvalue {
                    l: jni!(self, v1_1, GetStaticObjectField, target, field),
                },
            }
        } else {
            match kind {
                Kind::Boolean => jvalue {
                    z: jni!(self, v1_1, GetBooleanField, target, field),
                },
                Kind::Byte => jvalue {
                    b: jni!(self, v1_1, GetByteField, target, field),
                },
                Kind::Char => jvalue {
                    c: jni!(self, v1_1, GetCharField, target, field),
                },
                Kind::Short => jvalue {
                    s: jni!(self, v1_1, GetShortField, target, field),
                },
                Kind::Int => jvalue {
                    i: jni!(self, v1_1, GetIntField, target, field),
                },
                Kind::Long => jvalue {
                    j: jni!(self, v1_1, GetLongField, target, field),
                },
                Kind::Float => jvalue {
                    f: jni!(self, v1_1, GetFloatField, target, field),
                },
                Kind::Double => jvalue {
                    d: jni!(self, v1_1, GetDoubleField, target, field),
                },
                Kind::Object | Kind::Void => jvalue {
                    l: jni!(self, v1_1, GetObjectField, target, field),
                },
            }
        }
    }

    /// Writes an instance or static field.
    pub fn set_field(
        &self,
        target: jobject,
        field: jfieldID,
        kind: Kind,
        v: jvalue,
        is_static: bool,
    ) {
        if is_static {
            match kind {
                Kind::Boolean => {
                    let x = u!(v, z);
                    jni!(self, v1_1, SetStaticBooleanField, target, field, x);
                }
                Kind::Byte => {
                    let x = u!(v, b);
                    jni!(self, v1_1, SetStaticByteField, target, field, x);
                }
                Kind::Char => {
                    let x = u!(v, c);
                    jni!(self, v1_1, SetStaticCharField, target, field, x);
                }
                Kind::Short => {
                    let x = u!(v, s);
                    jni!(self, v1_1, SetStaticShortField, target, field, x);
                }
                Kind::Int => {
                    let x = u!(v, i);
                    jni!(self, v1_1, SetStaticIntField, target, field, x);
                }
                Kind::Long => {
                    let x = u!(v, j);
                    jni!(self, v1_1, SetStaticLongField, target, field, x);
                }
                Kind::Float => {
                    let x = u!(v, f);
                    jni!(self, v1_1, SetStaticFloatField, target, field, x);
                }
                Kind::Double => {
                    let x = u!(v, d);
                    jni!(self, v1_1, SetStaticDoubleField, target, field, x);
                }
                Kind::Object | Kind::Void => {
                    let x = u!(v, l);
                    jni!(self, v1_1, SetStaticObjectField, target, field, x);
                }
            }
        } else {
            match kind {
                Kind::Boolean => {
                    let x = u!(v, z);
                    jni!(self, v1_1, SetBooleanField, target, field, x);
                }
                Kind::Byte => {
                    let x = u!(v, b);
                    jni!(self, v1_1, SetByteField, target, field, x);
                }
                Kind::Char => {
                    let x = u!(v, c);
                    jni!(self, v1_1, SetCharField, target, field, x);
                }
                Kind::Short => {
                    let x = u!(v, s);
                    jni!(self, v1_1, SetShortField, target, field, x);
                }
                Kind::Int => {
                    let x = u!(v, i);
                    jni!(self, v1_1, SetIntField, target, field, x);
                }
                Kind::Long => {
                    let x = u!(v, j);
                    jni!(self, v1_1, SetLongField, target, field, x);
                }
                Kind::Float => {
                    let x = u!(v, f);
                    jni!(self, v1_1, SetFloatField, target, field, x);
                }
                Kind::Double => {
                    let x = u!(v, d);
                    jni!(self, v1_1, SetDoubleField, target, field, x);
                }
                Kind::Object | Kind::Void => {
                    let x = u!(v, l);
                    jni!(self, v1_1, SetObjectField, target, field, x);
                }
            }
        }
    }

    /// Whether an exception is pending.
    pub fn exception_pending(&self) -> bool {
        jni!(self, v1_2, ExceptionCheck)
    }

    /// Takes (and clears) the pending exception, if any.
    pub fn take_exception(&self) -> Option<jobject> {
        if !self.exception_pending() {
            return None;
        }
        let t = jni!(self, v1_1, ExceptionOccurred);
        jni!(self, v1_1, ExceptionClear);
        Some(t)
    }

    /// Clears a pending exception.
    pub fn clear_exception(&self) {
        jni!(self, v1_1, ExceptionClear);
    }

    /// `PushLocalFrame`; false when out of memory (an exception is then pending).
    pub fn push_frame(&self, capacity: usize) -> bool {
        let cap = jint::try_from(capacity).unwrap_or(jint::MAX);
        jni!(self, v1_2, PushLocalFrame, cap) == 0
    }

    /// `PopLocalFrame(NULL)`: frees every local reference of the frame.
    pub fn pop_frame(&self) {
        jni!(self, v1_2, PopLocalFrame, std::ptr::null_mut());
    }

    /// `NewGlobalRef`.
    pub fn global(&self, obj: jobject) -> jobject {
        jni!(self, v1_1, NewGlobalRef, obj)
    }

    /// `NewLocalRef`.
    pub fn new_local(&self, obj: jobject) -> jobject {
        jni!(self, v1_2, NewLocalRef, obj)
    }

    /// `DeleteLocalRef`.
    pub fn delete_local(&self, obj: jobject) {
        if !obj.is_null() {
            jni!(self, v1_1, DeleteLocalRef, obj);
        }
    }

    /// `IsInstanceOf` (false for null).
    pub fn is_instance(&self, obj: jobject, class: jclass) -> bool {
        !obj.is_null() && jni!(self, v1_1, IsInstanceOf, obj, class)
    }

    /// `IsSameObject`.
    pub fn same_object(&self, a: jobject, b: jobject) -> bool {
        jni!(self, v1_1, IsSameObject, a, b)
    }

    /// `GetObjectClass`.
    pub fn class_of(&self, obj: jobject) -> jclass {
        jni!(self, v1_1, GetObjectClass, obj)
    }

    /// A Java string from Rust text (through UTF-16, so any character survives).
    pub fn new_string(&self, s: &str) -> jobject {
        let units: Vec<u16> = s.encode_utf16().collect();
        let len = jsize::try_from(units.len()).unwrap_or(jsize::MAX);
        jni!(self, v1_1, NewString, units.as_ptr(), len)
    }

    /// Reads a Java string: at most `max` UTF-16 units, and whether it was cut. Unpaired
    /// surrogates become U+FFFD.
    pub fn read_string(&self, s: jobject, max: usize) -> (String, bool) {
        let len = jni!(self, v1_1, GetStringLength, s);
        let len = usize::try_from(len).unwrap_or(0);
        let take = len.min(max);
        (
            String::from_utf16_lossy(&self.string_units(s, take)),
            take < len,
        )
    }

    /// The first `n` UTF-16 units of `s` (`GetStringRegion`; `n` at most its length).
    fn string_units(&self, s: jobject, n: usize) -> Vec<u16> {
        let mut buf = vec![0u16; n];
        if n > 0 {
            jni!(
                self,
                v1_2,
                GetStringRegion,
                s,
                0,
                n as jsize,
                buf.as_mut_ptr()
            );
        }
        buf
    }

    /// The whole string if it has at most `max` UTF-16 units and is valid UTF-16 (no lone
    /// surrogate: a Rust `String` cannot hold one, and a lossy copy would be another string).
    pub fn read_string_exact(&self, s: jobject, max: usize) -> Option<String> {
        let len = usize::try_from(jni!(self, v1_1, GetStringLength, s)).ok()?;
        if len > max {
            return None;
        }
        String::from_utf16(&self.string_units(s, len)).ok()
    }

    /// `GetArrayLength`.
    pub fn array_length(&self, array: jobject) -> usize {
        usize::try_from(jni!(self, v1_1, GetArrayLength, array)).unwrap_or(0)
    }

    /// A new primitive array (`kind` not Object/Void), or an object array of `component`.
    pub fn new_array(&self, kind: Kind, component: jclass, len: jsize) -> jobject {
        match kind {
            Kind::Boolean => jni!(self, v1_1, NewBooleanArray, len),
            Kind::Byte => jni!(self, v1_1, NewByteArray, len),
            Kind::Char => jni!(self, v1_1, NewCharArray, len),
            Kind::Short => jni!(self, v1_1, NewShortArray, len),
            Kind::Int => jni!(self, v1_1, NewIntArray, len),
            Kind::Long => jni!(self, v1_1, NewLongArray, len),
            Kind::Float => jni!(self, v1_1, NewFloatArray, len),
            Kind::Double => jni!(self, v1_1, NewDoubleArray, len),
            Kind::Object | Kind::Void => {
                jni!(
                    self,
                    v1_1,
                    NewObjectArray,
                    len,
                    component,
                    std::ptr::null_mut()
                )
            }
        }
    }

    /// Stores one element; throws (pending) `ArrayIndexOutOfBoundsException` or
    /// `ArrayStoreException` as Java would.
    pub fn array_store(&self, array: jobject, kind: Kind, index: jsize, v: jvalue) {
        match kind {
            Kind::Boolean => {
                let x = u!(v, z);
                jni!(
                    self,
                    v1_1,
                    SetBooleanArrayRegion,
                    array,
                    index,
                    1,
                    &raw const x
                );
            }
            Kind::Byte => {
                let x = u!(v, b);
                jni!(
                    self,
                    v1_1,
                    SetByteArrayRegion,
                    array,
                    index,
                    1,
                    &raw const x
                );
            }
            Kind::Char => {
                let x = u!(v, c);
                jni!(
                    self,
                    v1_1,
                    SetCharArrayRegion,
                    array,
                    index,
                    1,
                    &raw const x
                );
            }
            Kind::Short => {
                let x = u!(v, s);
                jni!(
                    self,
                    v1_1,
                    SetShortArrayRegion,
                    array,
                    index,
                    1,
                    &raw const x
                );
            }
            Kind::Int => {
                let x = u!(v, i);
                jni!(self, v1_1, SetIntArrayRegion, array, index, 1, &raw const x);
            }
            Kind::Long => {
                let x = u!(v, j);
                jni!(
                    self,
                    v1_1,
                    SetLongArrayRegion,
                    array,
                    index,
                    1,
                    &raw const x
                );
            }
            Kind::Float => {
                let x = u!(v, f);
                jni!(
                    self,
                    v1_1,
                    SetFloatArrayRegion,
                    array,
                    index,
                    1,
                    &raw const x
                );
            }
            Kind::Double => {
                let x = u!(v, d);
                jni!(
                    self,
                    v1_1,
                    SetDoubleArrayRegion,
                    array,
                    index,
                    1,
                    &raw const x
                );
            }
            Kind::Object | Kind::Void => {
                let x = u!(v, l);
                jni!(self, v1_1, SetObjectArrayElement, array, index, x);
            }
        }
    }

    /// One element of a primitive array (`kind` not Object/Void), as a `jvalue` of that kind;
    /// the caller keeps `index` inside the array.
    pub fn array_load(&self, array: jobject, kind: Kind, index: jsize) -> jvalue {
        let mut v = null_value();
        match kind {
            Kind::Boolean => {
                let mut x: jboolean = false;
                jni!(
                    self,
                    v1_1,
                    GetBooleanArrayRegion,
                    array,
                    index,
                    1,
                    &raw mut x
                );
                v.z = x;
            }
            Kind::Byte => {
                let mut x: jbyte = 0;
                jni!(self, v1_1, GetByteArrayRegion, array, index, 1, &raw mut x);
                v.b = x;
            }
            Kind::Char => {
                let mut x: jchar = 0;
                jni!(self, v1_1, GetCharArrayRegion, array, index, 1, &raw mut x);
                v.c = x;
            }
            Kind::Short => {
                let mut x: jshort = 0;
                jni!(self, v1_1, GetShortArrayRegion, array, index, 1, &raw mut x);
                v.s = x;
            }
            Kind::Int => {
                let mut x: jint = 0;
                jni!(self, v1_1, GetIntArrayRegion, array, index, 1, &raw mut x);
                v.i = x;
            }
            Kind::Long => {
                let mut x: jlong = 0;
                jni!(self, v1_1, GetLongArrayRegion, array, index, 1, &raw mut x);
                v.j = x;
            }
            Kind::Float => {
                let mut x: jfloat = 0.0;
                jni!(self, v1_1, GetFloatArrayRegion, array, index, 1, &raw mut x);
                v.f = x;
            }
            Kind::Double => {
                let mut x: jdouble = 0.0;
                jni!(
                    self,
                    v1_1,
                    GetDoubleArrayRegion,
                    array,
                    index,
                    1,
                    &raw mut x
                );
                v.d = x;
            }
            Kind::Object | Kind::Void => {}
        }
        v
    }

    /// `GetObjectArrayElement`.
    pub fn array_element(&self, array: jobject, index: jsize) -> jobject {
        jni!(self, v1_1, GetObjectArrayElement, array, index)
    }

    /// `out.len()` elements of a `double[]` from index `start` (the caller keeps the range
    /// inside the array).
    pub fn read_doubles(&self, array: jobject, start: usize, out: &mut [f64]) {
        if !out.is_empty() {
            jni!(
                self,
                v1_1,
                GetDoubleArrayRegion,
                array,
                start as jsize,
                out.len() as jsize,
                out.as_mut_ptr()
            );
        }
    }

    /// Writes `values` into a `double[]` from index `start` (the caller keeps the range
    /// inside the array).
    pub fn write_doubles(&self, array: jobject, start: usize, values: &[f64]) {
        if !values.is_empty() {
            jni!(
                self,
                v1_1,
                SetDoubleArrayRegion,
                array,
                start as jsize,
                values.len() as jsize,
                values.as_ptr()
            );
        }
    }

    /// `out.len()` elements of an `int[]` from index `start` (the caller keeps the range
    /// inside the array).
    pub fn read_ints(&self, array: jobject, start: usize, out: &mut [i32]) {
        if !out.is_empty() {
            jni!(
                self,
                v1_1,
                GetIntArrayRegion,
                array,
                start as jsize,
                out.len() as jsize,
                out.as_mut_ptr()
            );
        }
    }

    /// `out.len()` elements of a `long[]` from index `start` (the caller keeps the range
    /// inside the array).
    pub fn read_longs(&self, array: jobject, start: usize, out: &mut [i64]) {
        if !out.is_empty() {
            jni!(
                self,
                v1_1,
                GetLongArrayRegion,
                array,
                start as jsize,
                out.len() as jsize,
                out.as_mut_ptr()
            );
        }
    }

    /// Writes `values` into an `int[]` from index `start` (the caller keeps the range
    /// inside the array).
    pub fn write_ints(&self, array: jobject, start: usize, values: &[i32]) {
        if !values.is_empty() {
            jni!(
                self,
                v1_1,
                SetIntArrayRegion,
                array,
                start as jsize,
                values.len() as jsize,
                values.as_ptr()
            );
        }
    }

    /// The first `out.len()` elements of a `boolean[]`.
    pub fn read_booleans(&self, array: jobject, out: &mut [jboolean]) {
        if !out.is_empty() {
            jni!(
                self,
                v1_1,
                GetBooleanArrayRegion,
                array,
                0,
                out.len() as jsize,
                out.as_mut_ptr()
            );
        }
    }

    /// A new `byte[]` with these bytes.
    pub fn new_bytes(&self, bytes: &[u8]) -> jobject {
        let len = jsize::try_from(bytes.len()).unwrap_or(jsize::MAX);
        let a = jni!(self, v1_1, NewByteArray, len);
        if !a.is_null() {
            jni!(
                self,
                v1_1,
                SetByteArrayRegion,
                a,
                0,
                len,
                bytes.as_ptr().cast()
            );
        }
        a
    }

    /// A new `String[]`.
    pub fn new_string_array(&self, items: &[String]) -> jobject {
        let string = self.find_class(c"java/lang/String");
        let len = jsize::try_from(items.len()).unwrap_or(jsize::MAX);
        let a = jni!(
            self,
            v1_1,
            NewObjectArray,
            len,
            string,
            std::ptr::null_mut()
        );
        if a.is_null() {
            return a;
        }
        for (i, s) in items.iter().enumerate() {
            let js = self.new_string(s);
            jni!(self, v1_1, SetObjectArrayElement, a, i as jsize, js);
            self.delete_local(js);
        }
        a
    }

    /// `RegisterNatives` for one method; false on failure (an exception is then pending).
    pub fn register_native(
        &self,
        class: jclass,
        name: &CStr,
        sig: &CStr,
        f: *mut std::ffi::c_void,
    ) -> bool {
        let m = sys::JNINativeMethod {
            name: name.as_ptr().cast_mut(),
            signature: sig.as_ptr().cast_mut(),
            fnPtr: f,
        };
        jni!(self, v1_1, RegisterNatives, class, &raw const m, 1) == 0
    }
}

/// Reads a `jvalue` of a kind as an `i64` (integral kinds), for observations.
#[must_use]
pub fn integral(kind: Kind, v: jvalue) -> Option<i64> {
    // SAFETY: the union is read at the member its kind says was written.
    unsafe {
        match kind {
            Kind::Byte => Some(i64::from(v.b)),
            Kind::Short => Some(i64::from(v.s)),
            Kind::Int => Some(i64::from(v.i)),
            Kind::Long => Some(v.j),
            _ => None,
        }
    }
}

/// The boolean of a `jvalue` of kind Boolean.
#[must_use]
pub fn boolean(v: jvalue) -> bool {
    // SAFETY: callers read only values of kind Boolean.
    unsafe { v.z }
}

/// The char of a `jvalue` of kind Char.
#[must_use]
pub fn character(v: jvalue) -> u16 {
    // SAFETY: callers read only values of kind Char.
    unsafe { v.c }
}

/// The floating value of a `jvalue` of kind Float or Double (floats widened exactly).
#[must_use]
pub fn floating(kind: Kind, v: jvalue) -> Option<f64> {
    // SAFETY: the union is read at the member its kind says was written.
    unsafe {
        match kind {
            Kind::Float => Some(f64::from(v.f)),
            Kind::Double => Some(v.d),
            _ => None,
        }
    }
}

/// The reference of a `jvalue` of kind Object.
#[must_use]
pub fn reference(v: jvalue) -> jobject {
    // SAFETY: callers read only values of kind Object.
    unsafe { v.l }
}
