//! The JVM's set-up: runtime classes, the `HostLoader` and its native `fetch`, cached ids.

use std::cell::Cell;
use std::collections::HashMap;
use std::ffi::c_void;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use ferrosuite_bytecode::classpath::{ClassPath, ClassPathEntry};
use ferrosuite_bytecode::hierarchy::Hierarchy;
use ferrosuite_bytecode::instrument::redirect::MemberSpec;
use ferrosuite_bytecode::instrument::sandbox::SandboxRules;
use ferrosuite_bytecode::instrument::{clock, environment, files, random, system};
use ferrosuite_executor::Resources;
use ferrosuite_runtime as runtime;
use jni::sys::{JNIEnv, jclass, jfieldID, jlong, jmethodID, jobject, jvalue};

use super::mutants::MutantIds;
use super::watchdog::AllocationCounter;
use super::{Executor, Ids, Members, Output, Watchdog, cstring};
use crate::protocol::{InitFailure, Reply, Setup};
use crate::raw::{self, Jni, Kind};

/// The state the native `HostLoader.fetch` reads (shared by every Java thread that loads
/// classes; it lives as long as the process).
pub(super) struct Fetcher {
    classpath: &'static ClassPath,
    hierarchy: Hierarchy<'static>,
    instrumented: HashMap<String, Vec<u8>>,
    pub(super) sandbox: Option<SandboxRules>,
    /// What of the machine's environment classes read.
    pub(super) control: Control,
    /// Internal names in the order they were defined.
    pub(super) loaded: Mutex<Vec<String>>,
}

impl Fetcher {
    fn bytes(&self, binary_name: &str) -> Option<Vec<u8>> {
        let internal = binary_name.replace('.', "/");
        let bytes = match self.instrumented.get(&internal) {
            Some(b) => b.clone(),
            None => match self.classpath.find_bytes(&internal) {
                Ok(Some((_, b))) => b,
                Ok(None) => return None,
                Err(e) => {
                    eprintln!("ferrosuite-worker: {e}");
                    return None;
                }
            },
        };
        // The environment first: what it makes virtual (files, the console) is then no call
        // the sandbox has to refuse.
        let bytes = match self.control.rewrite(&bytes) {
            Ok(b) => b.unwrap_or(bytes),
            Err(e) => {
                // A class that would read the real environment is not defined either.
                eprintln!(
                    "ferrosuite-worker: cannot control the environment of {binary_name}: {e}"
                );
                return None;
            }
        };
        let bytes = if let Some(rules) = &self.sandbox {
            match crate::sandbox::apply(&bytes, rules, Some(&self.hierarchy)) {
                Ok(b) => b,
                Err(e) => {
                    // Never define an unsandboxed class: the class is reported missing.
                    eprintln!("ferrosuite-worker: cannot sandbox {binary_name}: {e}");
                    return None;
                }
            }
        } else {
            bytes
        };
        if let Ok(mut l) = self.loaded.lock() {
            l.push(internal);
        }
        Some(bytes)
    }
}

/// The controlled environment's handles: the runtime's `begin` methods, called before each
/// test, and the executing thread's `ThreadLocalRandom` seed fields, set before each test.
pub(super) struct EnvIds {
    time: jclass,
    time_begin: jmethodID,
    random: jclass,
    random_begin: jmethodID,
    thread: jobject,
    /// `Thread.threadLocalRandomSeed` (J), `threadLocalRandomProbe` (I) and
    /// `threadLocalRandomSecondarySeed` (I), where the JDK has them.
    tlr: Option<(jfieldID, jfieldID, jfieldID)>,
    /// The seed `ThreadLocalRandom` starts each test from.
    tlr_seed: i64,
    /// `SystemTime.reads` (I) and `SystemRandom.drawn` (J): how much the test read.
    f_time_reads: jfieldID,
    f_random_drawn: jfieldID,
    /// `VirtualFs` with `begin()`, `touched` (I) and `accessedText()`; `VirtualConsole` with
    /// `begin()` and `reads` (I).
    fs: jclass,
    fs_begin: jmethodID,
    f_fs_touched: jfieldID,
    fs_accessed: jmethodID,
    console: jclass,
    console_begin: jmethodID,
    f_console_reads: jfieldID,
    /// `VirtualSystem` with `begin()` and `reads` (I).
    system: jclass,
    system_begin: jmethodID,
    f_system_reads: jfieldID,
}

/// What of the machine's environment the classes under test read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Control {
    /// The real clock and randomness (classes stay as they are).
    None,
    /// The real clock moved by `Setup::clock_shift_ms`.
    ShiftedClock,
    /// The controlled environment: the virtual clock and deterministic randomness.
    Environment,
}

impl Control {
    fn of(setup: &Setup) -> Self {
        if setup.environment {
            Control::Environment
        } else if setup.clock_shift_ms != 0 {
            Control::ShiftedClock
        } else {
            Control::None
        }
    }

    /// The class rewritten to read what it controls; `None` when nothing changed.
    fn rewrite(self, bytes: &[u8]) -> ferrosuite_bytecode::Result<Option<Vec<u8>>> {
        match self {
            Control::None => Ok(None),
            Control::ShiftedClock => clock::shift_clock_bytes(bytes),
            Control::Environment => environment::control_bytes(bytes),
        }
    }

    /// The stand-in a statement calling the static API `owner.name descriptor` calls instead.
    pub(super) fn redirect_target(
        self,
        owner: &str,
        name: &str,
        descriptor: &str,
    ) -> Option<MemberSpec> {
        match self {
            Control::None => None,
            Control::ShiftedClock => clock::redirect_target(owner, name, descriptor),
            Control::Environment => environment::redirect_target(owner, name, descriptor),
        }
    }

    /// The static stand-in (receiver first) a statement calling the instance method
    /// `owner.name descriptor` calls instead (`File.delete` on the virtual file system).
    pub(super) fn instance_target(
        self,
        owner: &str,
        name: &str,
        descriptor: &str,
    ) -> Option<MemberSpec> {
        match self {
            Control::Environment => environment::instance_target(owner, name, descriptor),
            Control::None | Control::ShiftedClock => None,
        }
    }

    /// The factory a statement `new class(…)` calls instead (`new FileOutputStream(f)` on the
    /// virtual file system, `new SecureRandom()` with this test's seed).
    pub(super) fn factory_target(self, class: &str, descriptor: &str) -> Option<MemberSpec> {
        match self {
            Control::Environment => environment::factory_target(class, descriptor),
            Control::None | Control::ShiftedClock => None,
        }
    }

    /// Whether a statement calling `owner.name descriptor` (`<init>` for a constructor) calls
    /// a runtime stand-in instead: the sandbox then has nothing to refuse.
    pub(super) fn stands_in(
        self,
        owner: &str,
        name: &str,
        descriptor: &str,
        instance: bool,
    ) -> bool {
        if name == "<init>" {
            return self.factory_target(owner, descriptor).is_some();
        }
        if instance {
            self.instance_target(owner, name, descriptor).is_some()
        } else {
            self.redirect_target(owner, name, descriptor).is_some()
        }
    }

    /// The seeded constructor a statement `new class(…)` stands for: the runtime gives a value
    /// that the constructor taking it last gets instead (`new Date()`, `new Random()`,
    /// `new Thread(r)`).
    pub(super) fn seeded_target(
        self,
        class: &str,
        descriptor: &str,
    ) -> Option<environment::SeededConstructor> {
        match self {
            Control::None => None,
            Control::ShiftedClock => {
                environment::seeded_target_in(&[clock::NEW_DATE], class, descriptor)
            }
            Control::Environment => environment::seeded_target(class, descriptor),
        }
    }
}

/// `HostLoader.fetch(long, String) -> byte[]`.
extern "system" fn fetch(
    env: *mut JNIEnv,
    _class: jclass,
    handle: jlong,
    name: jobject,
) -> jobject {
    if handle == 0 || name.is_null() {
        return std::ptr::null_mut();
    }
    // SAFETY: the JVM passes this thread's environment; `handle` is the address of the leaked
    // `Fetcher` the worker created before any class could be fetched (it is never freed).
    let (jni, fetcher) = unsafe { (Jni::new(env), &*(handle as *const Fetcher)) };
    let (name, _) = jni.read_string(name, usize::MAX);
    match fetcher.bytes(&name) {
        Some(b) => jni.new_bytes(&b),
        None => std::ptr::null_mut(),
    }
}

impl<'a> Executor<'a> {
    pub(super) fn global_class(jni: Jni, name: &str) -> Result<jclass, String> {
        let c = jni.find_class(&cstring(name));
        if c.is_null() {
            jni.clear_exception();
            return Err(format!("class {name} not found in the worker JVM"));
        }
        Ok(jni.global(c))
    }

    pub(super) fn mid(
        jni: Jni,
        class: jclass,
        name: &str,
        sig: &str,
        is_static: bool,
    ) -> Result<jmethodID, String> {
        let m = jni.method_id(class, &cstring(name), &cstring(sig), is_static);
        if m.is_null() {
            jni.clear_exception();
            return Err(format!("method {name}{sig} not found in the worker JVM"));
        }
        Ok(m)
    }

    pub(super) fn fid(jni: Jni, class: jclass, name: &str, sig: &str) -> Result<jfieldID, String> {
        let f = jni.field_id(class, &cstring(name), &cstring(sig), true);
        if f.is_null() {
            jni.clear_exception();
            return Err(format!("field {name} not found in the worker JVM"));
        }
        Ok(f)
    }

    /// Defines the runtime, creates the loader, initialises the classes under test.
    pub(super) fn start(
        jni: Jni,
        vm: &jni::JavaVM,
        setup: &'a Setup,
        output: &Output,
    ) -> Result<(Self, Reply), String> {
        // The system class loader.
        let cl = Self::global_class(jni, "java/lang/ClassLoader")?;
        let get_sys = Self::mid(
            jni,
            cl,
            "getSystemClassLoader",
            "()Ljava/lang/ClassLoader;",
            true,
        )?;
        let sys_loader = raw::reference(jni.call(cl, get_sys, Kind::Object, &[], true));
        if sys_loader.is_null() {
            jni.clear_exception();
            return Err("no system class loader".into());
        }
        // Define the runtime classes; retry those whose superclass comes later.
        let mut pending: Vec<(&str, &[u8])> = runtime::CLASSES.to_vec();
        while !pending.is_empty() {
            let before = pending.len();
            let mut failed = Vec::new();
            let mut last = String::new();
            for (name, bytes) in pending {
                let c = jni.define_class(&cstring(name), sys_loader, bytes);
                if c.is_null() {
                    jni.clear_exception();
                    last = (*name).to_string();
                    failed.push((name, bytes));
                }
            }
            if failed.len() == before {
                return Err(format!("cannot define the runtime class {last}"));
            }
            pending = failed;
        }
        let host = Self::global_class(jni, "org/ferrosuite/rt/Host")?;
        if setup.observe_private {
            let f = Self::fid(jni, host, "privateFields", "Z")?;
            jni.set_field(host, f, Kind::Boolean, jvalue { z: true }, true);
        }
        let host_loader = Self::global_class(jni, "org/ferrosuite/rt/HostLoader")?;
        if !jni.register_native(
            host_loader,
            c"fetch",
            c"(JLjava/lang/String;)[B",
            fetch as *mut c_void,
        ) {
            jni.clear_exception();
            return Err("cannot register HostLoader.fetch".into());
        }
        // The fetcher lives as long as the process: the loader may call it from any thread.
        let mut entries = Vec::new();
        for p in &setup.classpath {
            entries.push(ClassPathEntry::open(p).map_err(|e| e.to_string())?);
        }
        let classpath: &'static ClassPath = Box::leak(Box::new(ClassPath::new(entries)));
        let fetcher: &'static Fetcher = Box::leak(Box::new(Fetcher {
            classpath,
            hierarchy: Hierarchy::new(classpath),
            instrumented: setup.instrumented.iter().cloned().collect(),
            sandbox: setup.sandbox.then(SandboxRules::default),
            control: Control::of(setup),
            loaded: Mutex::new(Vec::new()),
        }));
        let paths: Vec<String> = setup
            .classpath
            .iter()
            .map(|p| p.display().to_string())
            .collect();
        let jpaths = jni.new_string_array(&paths);
        let urls_m = Self::mid(
            jni,
            host,
            "urls",
            "([Ljava/lang/String;)[Ljava/net/URL;",
            true,
        )?;
        let urls =
            raw::reference(jni.call(host, urls_m, Kind::Object, &[jvalue { l: jpaths }], true));
        if urls.is_null() {
            jni.clear_exception();
            return Err("cannot make class-path URLs".into());
        }
        let ctor = Self::mid(
            jni,
            host_loader,
            "<init>",
            "([Ljava/net/URL;Ljava/lang/ClassLoader;J)V",
            false,
        )?;
        let handle = std::ptr::from_ref(fetcher) as jlong;
        let loader = jni.new_object(
            host_loader,
            ctor,
            &[
                jvalue { l: urls },
                jvalue { l: sys_loader },
                jvalue { j: handle },
            ],
        );
        if loader.is_null() {
            jni.clear_exception();
            return Err("cannot create the host class loader".into());
        }
        let loader = jni.global(loader);

        let probe = Self::global_class(jni, "org/ferrosuite/rt/Probe")?;
        let class_cls = Self::global_class(jni, "java/lang/Class")?;
        let thread = Self::global_class(jni, "java/lang/Thread")?;
        let number = Self::global_class(jni, "java/lang/Number")?;
        let enum_cls = Self::global_class(jni, "java/lang/Enum")?;
        let mut boxed = Vec::new();
        for (n, k) in [
            ("java/lang/Integer", Kind::Int),
            ("java/lang/Long", Kind::Long),
            ("java/lang/Short", Kind::Short),
            ("java/lang/Byte", Kind::Byte),
            ("java/lang/Float", Kind::Float),
            ("java/lang/Double", Kind::Double),
            ("java/lang/Boolean", Kind::Boolean),
            ("java/lang/Character", Kind::Char),
        ] {
            boxed.push((Self::global_class(jni, n)?, k));
        }
        let sandbox_error = Self::global_class(jni, "org/ferrosuite/rt/SandboxError")
            .ok()
            .and_then(|c| {
                Self::mid(jni, c, "getApi", "()Ljava/lang/String;", false)
                    .ok()
                    .map(|m| (c, m))
            });
        let ids = Ids {
            class_for_name: Self::mid(
                jni,
                class_cls,
                "forName",
                "(Ljava/lang/String;ZLjava/lang/ClassLoader;)Ljava/lang/Class;",
                true,
            )?,
            class_cls,
            class_get_name: Self::mid(jni, class_cls, "getName", "()Ljava/lang/String;", false)?,
            probe,
            probe_reset: Self::mid(jni, probe, "reset", "()V", true)?,
            probe_begin: Self::mid(jni, probe, "begin", "()V", true)?,
            f_dist: Self::fid(jni, probe, "dist", "[D")?,
            f_hits: Self::fid(jni, probe, "hits", "[I")?,
            f_lines: Self::fid(jni, probe, "lineHits", "[I")?,
            f_methods: Self::fid(jni, probe, "methodHits", "[I")?,
            f_loops: Self::fid(jni, probe, "loopCounts", "[I")?,
            f_statics: Self::fid(jni, probe, "staticWritten", "[Z")?,
            f_loop_limit: Self::fid(jni, probe, "loopLimit", "I")?,
            f_seen: [
                (
                    Self::fid(jni, probe, "seenInts", "[I")?,
                    Self::fid(jni, probe, "seenIntCount", "I")?,
                ),
                (
                    Self::fid(jni, probe, "seenLongs", "[J")?,
                    Self::fid(jni, probe, "seenLongCount", "I")?,
                ),
                (
                    Self::fid(jni, probe, "seenDoubles", "[D")?,
                    Self::fid(jni, probe, "seenDoubleCount", "I")?,
                ),
                (
                    Self::fid(jni, probe, "seenStrings", "[Ljava/lang/String;")?,
                    Self::fid(jni, probe, "seenStringCount", "I")?,
                ),
            ],
            host,
            host_threads: Self::mid(jni, host, "threads", "()[Ljava/lang/Thread;", true)?,
            host_stop_threads: Self::mid(
                jni,
                host,
                "stopThreads",
                "([Ljava/lang/Thread;J)[Ljava/lang/String;",
                true,
            )?,
            host_message: Self::mid(
                jni,
                host,
                "message",
                "(Ljava/lang/Throwable;)Ljava/lang/String;",
                true,
            )?,
            host_frames: Self::mid(
                jni,
                host,
                "frames",
                "(Ljava/lang/Throwable;)Ljava/lang/String;",
                true,
            )?,
            host_root_cause: Self::mid(
                jni,
                host,
                "rootCause",
                "(Ljava/lang/Throwable;)Ljava/lang/String;",
                true,
            )?,
            host_inspectors: Self::mid(
                jni,
                host,
                "inspectors",
                "(Ljava/lang/Class;)[Ljava/lang/String;",
                true,
            )?,
            host_recoverable: Self::mid(
                jni,
                host,
                "recoverable",
                "(Ljava/lang/Throwable;)Z",
                true,
            )?,
            host_heap_recovered: Self::mid(jni, host, "heapRecovered", "()Z", true)?,
            host_allocated_bytes: Self::mid(jni, host, "allocatedBytes", "()J", true)?,
            thread,
            thread_interrupted: Self::mid(jni, thread, "interrupted", "()Z", true)?,
            abort_error: Self::global_class(jni, "org/ferrosuite/rt/AbortError")?,
            sandbox_error,
            stack_overflow: Self::global_class(jni, "java/lang/StackOverflowError")?,
            out_of_memory: Self::global_class(jni, "java/lang/OutOfMemoryError")?,
            string: Self::global_class(jni, "java/lang/String")?,
            enum_cls,
            enum_name: Self::mid(jni, enum_cls, "name", "()Ljava/lang/String;", false)?,
            enum_declaring_class: Self::mid(
                jni,
                enum_cls,
                "getDeclaringClass",
                "()Ljava/lang/Class;",
                false,
            )?,
            long_value: Self::mid(jni, number, "longValue", "()J", false)?,
            double_value: Self::mid(jni, number, "doubleValue", "()D", false)?,
            boolean_value: Self::mid(jni, boxed[6].0, "booleanValue", "()Z", false)?,
            char_value: Self::mid(jni, boxed[7].0, "charValue", "()C", false)?,
            boxed,
        };
        // Loop limit and the executor's Thread object (for the watchdog).
        let f_limit = Self::fid(jni, probe, "loopLimit", "I")?;
        jni.set_field(
            probe,
            f_limit,
            Kind::Int,
            jvalue {
                i: i32::try_from(setup.loop_limit).unwrap_or(i32::MAX),
            },
            true,
        );
        if setup.clock_shift_ms != 0 {
            let time = Self::global_class(jni, clock::TIME_CLASS)?;
            let f_shift = Self::fid(jni, time, clock::SHIFT_FIELD, "J")?;
            jni.set_field(
                time,
                f_shift,
                Kind::Long,
                jvalue {
                    j: setup.clock_shift_ms,
                },
                true,
            );
        }
        let f_abort = Self::fid(jni, probe, "abort", "Z")?;
        let current = Self::mid(jni, thread, "currentThread", "()Ljava/lang/Thread;", true)?;
        let me = jni.global(raw::reference(jni.call(
            thread,
            current,
            Kind::Object,
            &[],
            true,
        )));
        let environment = if setup.environment {
            Some(Self::environment_ids(jni, setup, thread, me)?)
        } else {
            None
        };
        let mutants = if setup.last_mutant > 0 {
            Some(MutantIds::new(jni, setup.last_mutant)?)
        } else {
            None
        };
        let interrupt = Self::mid(jni, thread, "interrupt", "()V", false)?;
        // The search's tests past the allocation limit are stopped while they run, not only
        // found out after it.
        let counter = if setup.allocation_limit > 0 {
            Some(AllocationCounter {
                host: ids.host,
                method: Self::mid(
                    jni,
                    ids.host,
                    "allocatedBytes",
                    "(Ljava/lang/Thread;)J",
                    true,
                )?,
            })
        } else {
            None
        };
        let watchdog = Watchdog::spawn(
            vm,
            Arc::clone(output),
            Duration::from_millis(setup.timeout_ms),
            probe,
            f_abort,
            me,
            interrupt,
            counter,
            setup.allocation_limit,
        );
        let java_version = {
            let system = Self::global_class(jni, "java/lang/System")?;
            let get = Self::mid(
                jni,
                system,
                "getProperty",
                "(Ljava/lang/String;)Ljava/lang/String;",
                true,
            )?;
            let key = jni.new_string("java.version");
            let v = raw::reference(jni.call(system, get, Kind::Object, &[jvalue { l: key }], true));
            if v.is_null() {
                jni.clear_exception();
                String::new()
            } else {
                jni.read_string(v, 64).0
            }
        };
        let sizes = setup.sizes;
        let mut ex = Executor {
            jni,
            ids,
            environment,
            loader,
            fetcher,
            setup,
            watchdog,
            baseline_threads: std::ptr::null_mut(),
            classes: HashMap::new(),
            methods: Members::new(),
            fields: Members::new(),
            refusals: Members::new(),
            inspectors: HashMap::new(),
            inspection_changed: false,
            resets: HashMap::new(),
            class_index: setup
                .class_ids
                .iter()
                .enumerate()
                .filter_map(|(i, n)| Some((n.clone(), u32::try_from(i).ok()?)))
                .collect(),
            buf_d: vec![0.0; sizes.branch_slots as usize],
            buf_i: vec![0; sizes.branch_slots as usize],
            buf_i2: Vec::new(),
            buf_z: Vec::new(),
            zeros: Vec::new(),
            infinities: Vec::new(),
            full_reset: true,
            resource_error: Cell::new(None),
            survived: 0,
            class_status: super::jvmti::ClassStatus::new(vm.get_raw()),
            erroneous: 0,
            mock_ids: None,
            test_mocks: Vec::new(),
            mutants,
            mutant: 0,
        };
        // Initialise the classes under test, under the watchdog.
        ex.call_void_static(ex.ids.probe, ex.ids.probe_reset);
        let mut init_failures = Vec::new();
        ex.watchdog.start(None, 0);
        for name in &setup.initialize {
            if let Err(error) = ex.load(name, true) {
                init_failures.push(InitFailure {
                    class: name.clone(),
                    error,
                });
            }
        }
        let fired = ex.watchdog.end().is_some();
        if fired {
            init_failures.push(InitFailure {
                class: setup.initialize.join(", "),
                error: format!(
                    "class initialisation did not finish within {} ms",
                    setup.timeout_ms
                ),
            });
        }
        let init_probes = ex.read_probes();
        ex.call_void_static(ex.ids.probe, ex.ids.probe_reset);
        ex.full_reset = false;
        let threads =
            raw::reference(jni.call(ex.ids.host, ex.ids.host_threads, Kind::Object, &[], true));
        jni.clear_exception();
        ex.baseline_threads = jni.global(threads);
        // Classes the start left erroneous (a failed initialiser above) are not a test's doing:
        // they are the count the first check compares with.
        ex.recount_erroneous();
        Ok((
            ex,
            Reply::Ready {
                java_version,
                init_probes,
                init_failures,
            },
        ))
    }

    pub(super) fn call_void_static(&self, class: jclass, m: jmethodID) {
        self.jni.call(class, m, Kind::Void, &[], true);
        self.jni.clear_exception();
    }

    /// The controlled environment's handles; sets the virtual clock and the salt.
    fn environment_ids(
        jni: Jni,
        setup: &Setup,
        thread: jclass,
        me: jobject,
    ) -> Result<EnvIds, String> {
        let time = Self::global_class(jni, clock::TIME_CLASS)?;
        let f_virtual = Self::fid(jni, time, "virtual", "Z")?;
        jni.set_field(time, f_virtual, Kind::Boolean, jvalue { z: true }, true);
        let f_step = Self::fid(jni, time, "stepMillis", "J")?;
        jni.set_field(
            time,
            f_step,
            Kind::Long,
            jvalue {
                j: setup.clock_step_ms.max(1),
            },
            true,
        );
        let random = Self::global_class(jni, random::RANDOM_CLASS)?;
        let f_salt = Self::fid(jni, random, random::SALT_FIELD, "J")?;
        jni.set_field(
            random,
            f_salt,
            Kind::Long,
            jvalue {
                j: setup.random_salt,
            },
            true,
        );
        let field = |name: &std::ffi::CStr, sig: &std::ffi::CStr| {
            let f = jni.field_id(thread, name, sig, false);
            if f.is_null() {
                jni.clear_exception();
            }
            f
        };
        let seed = field(c"threadLocalRandomSeed", c"J");
        let probe = field(c"threadLocalRandomProbe", c"I");
        let secondary = field(c"threadLocalRandomSecondarySeed", c"I");
        let tlr = (!seed.is_null() && !probe.is_null() && !secondary.is_null())
            .then_some((seed, probe, secondary));
        let thread_seed = Self::mid(jni, random, "threadSeed", "()J", true)?;
        let seed = jni.call(random, thread_seed, Kind::Long, &[], true);
        jni.clear_exception();
        let tlr_seed = raw::integral(Kind::Long, seed).unwrap_or(0);
        let fs = Self::global_class(jni, files::FS_CLASS)?;
        let console = Self::global_class(jni, files::CONSOLE_CLASS)?;
        let sys = Self::global_class(jni, system::SYSTEM_CLASS)?;
        Ok(EnvIds {
            system_begin: Self::mid(jni, sys, "begin", "()V", true)?,
            f_system_reads: Self::fid(jni, sys, "reads", "I")?,
            system: sys,
            fs_begin: Self::mid(jni, fs, "begin", "()V", true)?,
            f_fs_touched: Self::fid(jni, fs, "touched", "I")?,
            fs_accessed: Self::mid(jni, fs, "accessedText", "()Ljava/lang/String;", true)?,
            fs,
            console_begin: Self::mid(jni, console, "begin", "()V", true)?,
            f_console_reads: Self::fid(jni, console, "reads", "I")?,
            console,
            f_time_reads: Self::fid(jni, time, "reads", "I")?,
            f_random_drawn: Self::fid(jni, random, "drawn", "J")?,
            time,
            time_begin: Self::mid(jni, time, "begin", "()V", true)?,
            random,
            random_begin: Self::mid(jni, random, "begin", "()V", true)?,
            thread: me,
            tlr,
            tlr_seed,
        })
    }

    /// Whether the test that just ran read the virtual clock, drew a seed, used a file or
    /// read the console; and which files and whether the console.
    pub(super) fn environment_read(&self) -> (bool, Resources) {
        let Some(env) = &self.environment else {
            return (false, Resources::default());
        };
        let jni = self.jni;
        let int = |class, field| {
            raw::integral(Kind::Int, jni.get_field(class, field, Kind::Int, true)).unwrap_or(0)
        };
        let drawn = jni.get_field(env.random, env.f_random_drawn, Kind::Long, true);
        let touched = int(env.fs, env.f_fs_touched);
        let console = int(env.console, env.f_console_reads) != 0;
        let mut files = Vec::new();
        if touched != 0 {
            let text = jni.call(env.fs, env.fs_accessed, Kind::Object, &[], true);
            // SAFETY: an `Object` call returns the `l` member.
            let text = unsafe { text.l };
            if jni.exception_pending() || text.is_null() {
                jni.clear_exception();
            } else {
                let (t, _) = jni.read_string(text, 4096);
                files = t.lines().map(str::to_string).collect();
                jni.delete_local(text);
            }
        }
        let clock = int(env.time, env.f_time_reads) != 0;
        let random = raw::integral(Kind::Long, drawn).is_some_and(|n| n != 0);
        let read =
            clock || random || touched != 0 || console || int(env.system, env.f_system_reads) != 0;
        (
            read,
            Resources {
                files,
                console,
                clock,
                random,
            },
        )
    }

    /// Starts a test in the controlled environment (if it is on): the virtual clock and the
    /// seeds start over, and so does the executing thread's `ThreadLocalRandom`.
    pub(super) fn begin_environment(&self) {
        let Some(env) = &self.environment else {
            return;
        };
        self.call_void_static(env.time, env.time_begin);
        self.call_void_static(env.random, env.random_begin);
        self.call_void_static(env.fs, env.fs_begin);
        self.call_void_static(env.console, env.console_begin);
        self.call_void_static(env.system, env.system_begin);
        if let Some((seed, probe, secondary)) = env.tlr {
            let jni = self.jni;
            jni.set_field(
                env.thread,
                seed,
                Kind::Long,
                jvalue { j: env.tlr_seed },
                false,
            );
            // A non-zero probe tells `ThreadLocalRandom.current()` the seed is set.
            jni.set_field(
                env.thread,
                probe,
                Kind::Int,
                jvalue { i: 0x61c8_8647 },
                false,
            );
            jni.set_field(
                env.thread,
                secondary,
                Kind::Int,
                jvalue {
                    i: env.tlr_seed as i32 | 1,
                },
                false,
            );
        }
    }
}
