//! Running a test: statements as JNI calls, exceptions described, leftover threads stopped.

use std::time::Instant;

use ferrosuite_bytecode::instrument::sandbox::Action;
use ferrosuite_testcase::statement::{Prim, Statement, Test};
use jni::sys::{jclass, jobject, jsize, jvalue};

use super::Executor;
use super::watchdog::Fired;
use crate::raw::{self, Kind};
use crate::result::{MAX_STRING, Observation, Outcome, Status, TestResult, ThrowKind, Thrown};

/// A `StackOverflowError` or `OutOfMemoryError` that ended a test (see `Executor::run_test`).
#[derive(Debug, Clone, Copy)]
pub(super) struct ResourceError {
    /// Its stack trace shows no static initialiser (`Host.recoverable`).
    recoverable: bool,
    out_of_memory: bool,
}

/// How many `StackOverflowError`s and `OutOfMemoryError`s one worker goes on after when the
/// JVM counts its erroneous classes (see the `jvmti` module): each survival is checked, and
/// the bound only limits what a JVM might keep of many unwound errors (compiled code, a
/// fragmented heap).
const MAX_SURVIVALS: u32 = 1024;

/// The same when the JVM does not count them (see the `worker` module's documentation): it
/// bounds how long a class left erroneous by an error whose stack trace did not show it can
/// skew results.
const MAX_SURVIVALS_UNCHECKED: u32 = 16;

/// A value held during a test.
#[derive(Clone, Copy)]
pub(super) enum Val {
    Void,
    Prim(Kind, jvalue),
    Ref(jobject),
}

impl Val {
    /// What a call of return kind `ret` gave.
    fn returned(ret: Kind, v: jvalue) -> Val {
        match ret {
            Kind::Void => Val::Void,
            Kind::Object => Val::Ref(raw::reference(v)),
            k => Val::Prim(k, v),
        }
    }
}

/// Why a statement did not return normally.
enum Stop {
    Threw(Thrown),
    Invalid(String),
}

impl Executor<'_> {
    /// Runs one test; the second value says why the worker must retire after it.
    pub(super) fn run_test(&mut self, test: &Test, observe: bool) -> (TestResult, Option<String>) {
        let start = Instant::now();
        let jni = self.jni;
        if self.full_reset {
            self.call_void_static(self.ids.probe, self.ids.probe_reset);
            self.full_reset = false;
        } else {
            self.call_void_static(self.ids.probe, self.ids.probe_begin);
        }
        self.begin_environment();
        if let Some(m) = &self.mutants {
            m.begin(jni, self.mutant);
        }
        let mut retire = None;
        // The `StackOverflowError` or `OutOfMemoryError` that ended the test, if any.
        let mut resource_error = None;
        self.resource_error.set(None);
        if !jni.push_frame(test.len() * 4 + 32) {
            jni.clear_exception();
            let mut r = TestResult::lost(Status::Crashed("out of local references".into()));
            r.micros = elapsed_micros(start);
            return (r, Some("out of memory".into()));
        }
        // The search's runs only: observation allocates on its own (strings of values).
        let allocation_limit = if observe {
            0
        } else {
            self.setup.allocation_limit
        };
        let allocated_before = if allocation_limit > 0 {
            self.allocated_bytes()
        } else {
            -1
        };
        let allocation_cap = (allocation_limit > 0 && allocated_before >= 0)
            .then(|| allocated_before.saturating_add_unsigned(allocation_limit));
        let length = u32::try_from(test.len()).unwrap_or(u32::MAX);
        self.watchdog.start(allocation_cap, length);
        let mut vals: Vec<Val> = Vec::with_capacity(test.len());
        let mut outcomes = Vec::with_capacity(test.len());
        let mut observations = Vec::new();
        let mut status = Status::Completed;
        for (i, s) in test.statements.iter().enumerate() {
            let before = if observe {
                self.argument_state(s, &vals)
            } else {
                Vec::new()
            };
            match self.exec(s, &vals) {
                Ok(v) => {
                    outcomes.push(Outcome::Normal);
                    if observe {
                        let mut o = self.observe_statement(s, v, &vals);
                        if !before.is_empty() {
                            let after = self.argument_state(s, &vals);
                            o.arguments =
                                after.into_iter().filter(|a| !before.contains(a)).collect();
                        }
                        observations.push(o);
                    }
                    vals.push(v);
                }
                Err(Stop::Threw(t)) => {
                    if t.kind == ThrowKind::Resource {
                        retire = Some(format!("{} in the code under test", t.class));
                        resource_error = self.resource_error.take();
                    }
                    if t.kind == ThrowKind::Abort {
                        status = Status::Aborted(t.message.clone().unwrap_or_default());
                    } else if i + 1 < test.len() {
                        status = Status::Stopped;
                    }
                    outcomes.push(Outcome::Threw(t));
                    if observe {
                        observations.push(Observation::default());
                    }
                    break;
                }
                Err(Stop::Invalid(why)) => {
                    status = Status::Invalid(format!("statement {i} ({s}): {why}"));
                    break;
                }
            }
        }
        let fired = self.watchdog.end();
        if fired == Some(Fired::Time) && !matches!(status, Status::Invalid(_)) {
            status = Status::Aborted(format!(
                "time limit of {} ms exceeded",
                self.setup.timeout_ms
            ));
        }
        // Whether the test allocated past the limit: it is charged all its statements, since
        // where the watchdog stopped it depends on the machine's speed, and what the search's
        // statement budget counts must not.
        let mut over_allocation = false;
        // Read before the host stops leftover threads, which allocates on this thread too.
        if allocation_limit > 0 && !matches!(status, Status::Invalid(_)) {
            if resource_error.is_some_and(|e| e.out_of_memory) {
                status = Status::Exhausted("out of memory".into());
            } else if allocated_before >= 0 {
                // A failed second read (-1) gives a negative difference: not over, unless the
                // watchdog saw it over while the test ran.
                let allocated =
                    u64::try_from(self.allocated_bytes() - allocated_before).unwrap_or(0);
                if allocated > allocation_limit || fired == Some(Fired::Allocation) {
                    over_allocation = true;
                    status = Status::Exhausted(format!(
                        "allocated {} MiB, over the limit of {} MiB",
                        allocated >> 20,
                        allocation_limit >> 20
                    ));
                }
            }
        }
        // Threads the test started: abort flag, interrupt, grace; retire if any survive.
        let mut leaked = Vec::new();
        // Always compared with the baseline: a count alone can hide a new thread behind one
        // that ended.
        {
            let v = jni.call(
                self.ids.host,
                self.ids.host_stop_threads,
                Kind::Object,
                &[
                    jvalue {
                        l: self.baseline_threads,
                    },
                    jvalue {
                        j: i64::try_from(self.setup.thread_grace_ms).unwrap_or(i64::MAX),
                    },
                ],
                true,
            );
            jni.clear_exception();
            let names = raw::reference(v);
            if !names.is_null() {
                for i in 0..jni.array_length(names) {
                    let n = jni.array_element(names, i as jsize);
                    if !n.is_null() {
                        leaked.push(jni.read_string(n, 256).0);
                        jni.delete_local(n);
                    }
                }
            }
            if !leaked.is_empty() {
                retire = Some(format!(
                    "thread(s) started by a test did not stop: {}",
                    leaked.join(", ")
                ));
            }
        }
        // Clear an interrupt left on the executor thread.
        jni.call(
            self.ids.thread,
            self.ids.thread_interrupted,
            Kind::Boolean,
            &[],
            true,
        );
        jni.clear_exception();
        let reached_sites = match &self.mutants {
            Some(m) => {
                let sites = m.reached(jni);
                m.end(jni);
                sites
            }
            None => Vec::new(),
        };
        let mock_calls = self.mock_calls();
        let probes = self.read_probes();
        let mut reset = probes.statics_written.clone();
        self.statics_touched(&test.statements[..outcomes.len()], &mut reset);
        let (reset_classes, reset_failed) = self.reset_statics(&reset);
        jni.pop_frame();
        // A stack overflow or out-of-memory error outside static initialisers, with no thread
        // left behind: the stack has unwound; for memory, once the test's values are released
        // (the frame above), a collection tells whether the heap is back to what a fresh
        // worker has. Then the worker goes on instead of costing a JVM start (a search that
        // keeps building a collection that contains itself, whose `hashCode` recurses without
        // end, or trying huge sizes, would otherwise restart the worker at every such test).
        if let Some(e) = resource_error {
            let limit = if self.class_status.is_some() {
                MAX_SURVIVALS
            } else {
                MAX_SURVIVALS_UNCHECKED
            };
            if e.recoverable
                && leaked.is_empty()
                && self.survived < limit
                && (!e.out_of_memory || self.heap_recovered())
                && self.recount_erroneous()
            {
                self.survived += 1;
                retire = None;
            }
        }
        if let Some(why) = reset_failed {
            // Part of a class's static state is gone: only a fresh JVM is sure to be as the
            // next test expects.
            retire = retire.or(Some(why));
        }
        let executed = if over_allocation {
            length
        } else {
            outcomes.len() as u32
        };
        let (reads_environment, resources) = self.environment_read();
        (
            TestResult {
                status,
                outcomes,
                observations,
                executed,
                probes,
                leaked_threads: leaked,
                reset_classes,
                mock_calls,
                reads_environment,
                resources,
                reached_sites,
                micros: elapsed_micros(start),
            },
            retire,
        )
    }

    fn value(vals: &[Val], r: ferrosuite_testcase::VarRef) -> Result<Val, Stop> {
        vals.get(r.index())
            .copied()
            .ok_or_else(|| Stop::Invalid(format!("{r} is not an earlier value")))
    }

    fn reference_of(vals: &[Val], r: ferrosuite_testcase::VarRef) -> Result<jobject, Stop> {
        match Self::value(vals, r)? {
            Val::Ref(o) => Ok(o),
            _ => Err(Stop::Invalid(format!("{r} is not a reference"))),
        }
    }

    fn npe(what: &str) -> Stop {
        Stop::Threw(Thrown {
            class: "java.lang.NullPointerException".into(),
            message: Some(format!("{what} on a null reference")),
            kind: ThrowKind::Code,
            frames: Vec::new(),
        })
    }

    /// Turns a pending exception into a `Stop`.
    fn check(&self) -> Result<(), Stop> {
        match self.jni.take_exception() {
            None => Ok(()),
            Some(t) => {
                let d = self.describe(t);
                self.jni.delete_local(t);
                Err(Stop::Threw(d))
            }
        }
    }

    pub(super) fn describe(&self, t: jobject) -> Thrown {
        let jni = self.jni;
        let class = self.class_name(t);
        let m = raw::reference(jni.call(
            self.ids.host,
            self.ids.host_message,
            Kind::Object,
            &[jvalue { l: t }],
            true,
        ));
        jni.clear_exception();
        let message = if m.is_null() {
            None
        } else {
            let s = jni.read_string(m, MAX_STRING).0;
            jni.delete_local(m);
            Some(s)
        };
        let kind = if jni.is_instance(t, self.ids.abort_error) {
            ThrowKind::Abort
        } else if let Some((_, get_api)) = self
            .ids
            .sandbox_error
            .filter(|(c, _)| jni.is_instance(t, *c))
        {
            let api = raw::reference(jni.call(t, get_api, Kind::Object, &[], false));
            jni.clear_exception();
            let api = if api.is_null() {
                String::new()
            } else {
                jni.read_string(api, MAX_STRING).0
            };
            ThrowKind::Sandbox(api)
        } else if jni.is_instance(t, self.ids.stack_overflow)
            || jni.is_instance(t, self.ids.out_of_memory)
        {
            let recoverable = raw::boolean(jni.call(
                self.ids.host,
                self.ids.host_recoverable,
                Kind::Boolean,
                &[jvalue { l: t }],
                true,
            ));
            let failed = jni.exception_pending();
            jni.clear_exception();
            self.resource_error.set(Some(ResourceError {
                recoverable: recoverable && !failed,
                out_of_memory: jni.is_instance(t, self.ids.out_of_memory),
            }));
            ThrowKind::Resource
        } else {
            ThrowKind::Code
        };
        Thrown {
            class,
            message,
            kind,
            frames: self.frames(t),
        }
    }

    /// The classes of `t`'s stack frames, innermost first (`Host.frames`).
    fn frames(&self, t: jobject) -> Vec<String> {
        let jni = self.jni;
        let s = raw::reference(jni.call(
            self.ids.host,
            self.ids.host_frames,
            Kind::Object,
            &[jvalue { l: t }],
            true,
        ));
        jni.clear_exception();
        if s.is_null() {
            return Vec::new();
        }
        let text = jni.read_string(s, MAX_STRING).0;
        jni.delete_local(s);
        text.split('\n')
            .filter(|f| !f.is_empty())
            .take(ferrosuite_executor::MAX_FRAMES)
            .map(String::from)
            .collect()
    }

    /// Heap bytes the executor thread has allocated since it started (`Host.allocatedBytes`);
    /// -1 when the JVM does not count them or the call fails.
    fn allocated_bytes(&self) -> i64 {
        self.call_host(self.ids.host_allocated_bytes, Kind::Long)
            .and_then(|n| raw::integral(Kind::Long, n))
            .unwrap_or(-1)
    }

    /// Counts the erroneous classes again; whether no class became erroneous since the last
    /// count (true when the JVM does not count them: the survival limit is then the guard). A
    /// count that fails stops the counting for this worker.
    pub(super) fn recount_erroneous(&mut self) -> bool {
        let Some(status) = &self.class_status else {
            return true;
        };
        if let Some(n) = status.erroneous(&self.jni) {
            let before = std::mem::replace(&mut self.erroneous, n);
            n <= before
        } else {
            self.class_status = None;
            self.survived < MAX_SURVIVALS_UNCHECKED
        }
    }

    /// Collects garbage and tells whether at most half of the maximum heap is in use
    /// (`Host.heapRecovered`); false when the call itself fails.
    fn heap_recovered(&self) -> bool {
        self.call_host(self.ids.host_heap_recovered, Kind::Boolean)
            .is_some_and(raw::boolean)
    }

    /// Calls a static `Host` method without arguments; `None` when it threw (cleared).
    fn call_host(&self, m: jni::sys::jmethodID, kind: Kind) -> Option<jvalue> {
        let jni = self.jni;
        let v = jni.call(self.ids.host, m, kind, &[], true);
        let failed = jni.exception_pending();
        jni.clear_exception();
        (!failed).then_some(v)
    }

    pub(super) fn class_name(&self, obj: jobject) -> String {
        let c = self.jni.class_of(obj);
        self.name_of_class(c)
    }

    /// The binary name of a class object (which is deleted).
    pub(super) fn name_of_class(&self, c: jclass) -> String {
        let jni = self.jni;
        if c.is_null() {
            jni.clear_exception();
            return String::from("?");
        }
        let n = raw::reference(jni.call(c, self.ids.class_get_name, Kind::Object, &[], false));
        jni.clear_exception();
        jni.delete_local(c);
        if n.is_null() {
            return String::from("?");
        }
        let s = jni.read_string(n, MAX_STRING).0;
        jni.delete_local(n);
        s
    }

    /// Builds the argument array, checking kinds and classes.
    fn args(
        &self,
        params: &[(Kind, Option<jclass>)],
        args: &[ferrosuite_testcase::VarRef],
        vals: &[Val],
    ) -> Result<Vec<jvalue>, Stop> {
        if params.len() != args.len() {
            return Err(Stop::Invalid(format!(
                "{} arguments for {} parameters",
                args.len(),
                params.len()
            )));
        }
        let mut out = Vec::with_capacity(args.len());
        for ((kind, class), a) in params.iter().zip(args) {
            match (Self::value(vals, *a)?, kind) {
                (Val::Ref(o), Kind::Object) => {
                    if let Some(c) = class
                        && !o.is_null()
                        && !self.jni.is_instance(o, *c)
                    {
                        return Err(Stop::Invalid(format!(
                            "argument {a} is a {}, not assignable to the parameter",
                            self.class_name(o)
                        )));
                    }
                    out.push(jvalue { l: o });
                }
                (Val::Prim(k, v), want) if k == *want => out.push(v),
                _ => return Err(Stop::Invalid(format!("argument {a} has the wrong kind"))),
            }
        }
        Ok(out)
    }

    #[allow(clippy::many_single_char_names)]
    fn exec(&mut self, s: &Statement, vals: &[Val]) -> Result<Val, Stop> {
        let jni = self.jni;
        // A statement that itself calls a guarded API (a test calling `System.exit` directly)
        // is refused here: JNI calls from the host are not code the sandbox rewrites.
        // Calls the controlled environment stands in for (a file write on the virtual file
        // system) are not refused: the stand-in is what runs.
        let control = self.fetcher.control;
        let called = match s {
            Statement::Method {
                class,
                name,
                descriptor,
                receiver,
                ..
            } => Some((&**class, &**name, &**descriptor))
                .filter(|_| !control.stands_in(class, name, descriptor, receiver.is_some())),
            Statement::Constructor {
                class, descriptor, ..
            } => Some((&**class, "<init>", &**descriptor))
                .filter(|_| !control.stands_in(class, "<init>", descriptor, false)),
            _ => None,
        };
        if let (Some(rules), Some((class, name, descriptor))) = (&self.fetcher.sandbox, called) {
            if !self.refusals.probe(class, name, descriptor, false) {
                let refused = rules
                    .lookup(class, name, descriptor)
                    .filter(|rule| rule.action != Action::Allow)
                    .map(ferrosuite_bytecode::instrument::sandbox::Rule::api);
                self.refusals.insert(refused);
            }
            if let Some(Some(api)) = self.refusals.last() {
                let api = api.clone();
                return Err(Stop::Threw(Thrown {
                    class: "org.ferrosuite.rt.SandboxError".into(),
                    message: Some(format!(
                        "ferrosuite sandbox: {api} is not allowed during test generation"
                    )),
                    kind: ThrowKind::Sandbox(api),
                    frames: Vec::new(),
                }));
            }
        }
        match s {
            Statement::Primitive(p) => Ok(match p {
                Prim::Boolean(b) => Val::Prim(Kind::Boolean, jvalue { z: *b }),
                Prim::Byte(b) => Val::Prim(Kind::Byte, jvalue { b: *b }),
                Prim::Char(c) => Val::Prim(Kind::Char, jvalue { c: *c }),
                Prim::Short(x) => Val::Prim(Kind::Short, jvalue { s: *x }),
                Prim::Int(x) => Val::Prim(Kind::Int, jvalue { i: *x }),
                Prim::Long(x) => Val::Prim(Kind::Long, jvalue { j: *x }),
                Prim::Float(x) => Val::Prim(Kind::Float, jvalue { f: x.0 }),
                Prim::Double(x) => Val::Prim(Kind::Double, jvalue { d: x.0 }),
                Prim::String(text) => {
                    let o = jni.new_string(text);
                    self.check()?;
                    Val::Ref(o)
                }
            }),
            Statement::Null { .. } => Ok(Val::Ref(std::ptr::null_mut())),
            Statement::ClassLiteral { ty } => {
                let c = self.class_object(ty).map_err(Stop::Invalid)?;
                Ok(Val::Ref(jni.new_local(c)))
            }
            Statement::EnumConstant { class, name } => {
                let desc = format!("L{class};");
                let f = self
                    .field(class, name, &desc, true)
                    .map_err(Stop::Invalid)?;
                let (c, id) = (f.class, f.id);
                let v = jni.get_field(c, id, Kind::Object, true);
                self.check()?;
                Ok(Val::Ref(raw::reference(v)))
            }
            Statement::Constructor {
                class,
                descriptor,
                args,
            } if self
                .fetcher
                .control
                .seeded_target(class, descriptor)
                .is_some() =>
            {
                // `new Date()` at the clock's time, `new Random()` with this test's seed,
                // `new Thread(r)` with this test's next name, as rewritten classes do it.
                let Some(to) = self.fetcher.control.seeded_target(class, descriptor) else {
                    return Err(Stop::Invalid("no seeded constructor".into()));
                };
                let m = self
                    .method(class, "<init>", descriptor, false)
                    .map_err(Stop::Invalid)?;
                let params = m.params.clone();
                let mut a = self.args(&params, args, vals)?;
                let spec = to.stand_in();
                let value = self
                    .method(&spec.owner, &spec.name, &spec.descriptor, true)
                    .map_err(Stop::Invalid)?;
                let (vc, vid, kind) = (value.class, value.id, value.ret);
                let v = jni.call(vc, vid, kind, &[], true);
                self.check()?;
                a.push(v);
                let m = self
                    .method(class, "<init>", &to.with_value(), false)
                    .map_err(Stop::Invalid)?;
                let (c, id) = (m.class, m.id);
                let o = jni.new_object(c, id, &a);
                if kind == Kind::Object {
                    // SAFETY: an `Object` call returns the `l` member.
                    jni.delete_local(unsafe { v.l });
                }
                self.check()?;
                Ok(Val::Ref(o))
            }
            Statement::Constructor {
                class,
                descriptor,
                args,
            } if self
                .fetcher
                .control
                .factory_target(class, descriptor)
                .is_some() =>
            {
                // `new FileOutputStream(f)`, `new SecureRandom()`: the factory the rewritten
                // classes call.
                let Some(to) = self.fetcher.control.factory_target(class, descriptor) else {
                    return Err(Stop::Invalid("no factory".into()));
                };
                let m = self
                    .method(&to.owner, &to.name, &to.descriptor, true)
                    .map_err(Stop::Invalid)?;
                let (c, id, params) = (m.class, m.id, m.params.clone());
                let a = self.args(&params, args, vals)?;
                let o = jni.call(c, id, Kind::Object, &a, true);
                self.check()?;
                Ok(Val::Ref(raw::reference(o)))
            }
            Statement::Constructor {
                class,
                descriptor,
                args,
            } => {
                let m = self
                    .method(class, "<init>", descriptor, false)
                    .map_err(Stop::Invalid)?;
                let (c, id, params) = (m.class, m.id, m.params.clone());
                let a = self.args(&params, args, vals)?;
                let o = jni.new_object(c, id, &a);
                self.check()?;
                Ok(Val::Ref(o))
            }
            Statement::Method {
                class,
                name,
                descriptor,
                receiver,
                args,
            } => {
                // A statement calling an instance method the environment stands in for
                // (`file.delete()`) calls the stand-in with the receiver first.
                if let Some(r) = receiver {
                    if let Some(to) = self
                        .fetcher
                        .control
                        .instance_target(class, name, descriptor)
                    {
                        let m = self
                            .method(&to.owner, &to.name, &to.descriptor, true)
                            .map_err(Stop::Invalid)?;
                        let (c, id, params, ret) = (m.class, m.id, m.params.clone(), m.ret);
                        let o = Self::reference_of(vals, *r)?;
                        if o.is_null() {
                            return Err(Self::npe(&format!("{name}()")));
                        }
                        let mut all = vec![*r];
                        all.extend(args.iter().copied());
                        let a = self.args(&params, &all, vals)?;
                        let v = jni.call(c, id, ret, &a, true);
                        self.check()?;
                        return Ok(Val::returned(ret, v));
                    }
                }
                let is_static = receiver.is_none();
                // A statement that reads the clock or randomness itself reads the controlled
                // (or shifted) one.
                let shifted = if is_static {
                    self.fetcher
                        .control
                        .redirect_target(class, name, descriptor)
                } else {
                    None
                };
                let (class, name): (&str, &str) = match &shifted {
                    Some(to) => (&to.owner, &to.name),
                    None => (class, name),
                };
                let m = self
                    .method(class, name, descriptor, is_static)
                    .map_err(Stop::Invalid)?;
                let (c, id, params, ret) = (m.class, m.id, m.params.clone(), m.ret);
                let target = match receiver {
                    None => c,
                    Some(r) => {
                        let o = Self::reference_of(vals, *r)?;
                        if o.is_null() {
                            let a = self.args(&params, args, vals)?;
                            drop(a);
                            return Err(Self::npe(&format!("{name}()")));
                        }
                        if !jni.is_instance(o, c) {
                            return Err(Stop::Invalid(format!(
                                "receiver {r} is a {}, not a {}",
                                self.class_name(o),
                                class.replace('/', ".")
                            )));
                        }
                        o
                    }
                };
                let a = self.args(&params, args, vals)?;
                let v = jni.call(target, id, ret, &a, is_static);
                self.check()?;
                Ok(Val::returned(ret, v))
            }
            Statement::FieldRead {
                class,
                name,
                descriptor,
                receiver,
            } => {
                let is_static = receiver.is_none();
                let f = self
                    .field(class, name, descriptor, is_static)
                    .map_err(Stop::Invalid)?;
                let (c, id, kind) = (f.class, f.id, f.kind);
                let target = match receiver {
                    None => c,
                    Some(r) => {
                        let o = Self::reference_of(vals, *r)?;
                        if o.is_null() {
                            return Err(Self::npe(&format!("reading field {name}")));
                        }
                        if !jni.is_instance(o, c) {
                            return Err(Stop::Invalid(format!(
                                "receiver {r} is not a {}",
                                class.replace('/', ".")
                            )));
                        }
                        o
                    }
                };
                let v = jni.get_field(target, id, kind, is_static);
                self.check()?;
                Ok(if kind == Kind::Object {
                    Val::Ref(raw::reference(v))
                } else {
                    Val::Prim(kind, v)
                })
            }
            Statement::FieldWrite {
                class,
                name,
                descriptor,
                receiver,
                value,
            } => {
                let is_static = receiver.is_none();
                let f = self
                    .field(class, name, descriptor, is_static)
                    .map_err(Stop::Invalid)?;
                let (c, id, kind, ty) = (f.class, f.id, f.kind, f.ty);
                let target = match receiver {
                    None => c,
                    Some(r) => {
                        let o = Self::reference_of(vals, *r)?;
                        if o.is_null() {
                            return Err(Self::npe(&format!("writing field {name}")));
                        }
                        if !jni.is_instance(o, c) {
                            return Err(Stop::Invalid(format!(
                                "receiver {r} is not a {}",
                                class.replace('/', ".")
                            )));
                        }
                        o
                    }
                };
                let v = self.args(&[(kind, ty)], &[*value], vals)?;
                jni.set_field(target, id, kind, v[0], is_static);
                self.check()?;
                Ok(Val::Void)
            }
            Statement::ArrayNew { component, length } => {
                let len = jsize::try_from(*length)
                    .map_err(|_| Stop::Invalid(format!("array length {length} is too large")))?;
                let kind = Kind::of(component);
                let cls = if kind == Kind::Object {
                    self.class(component).map_err(Stop::Invalid)?
                } else {
                    std::ptr::null_mut()
                };
                let a = jni.new_array(kind, cls, len);
                self.check()?;
                Ok(Val::Ref(a))
            }
            Statement::ArrayStore {
                array,
                index,
                value,
            } => {
                let a = Self::reference_of(vals, *array)?;
                if a.is_null() {
                    return Err(Self::npe("storing into an array"));
                }
                let idx = jsize::try_from(*index).unwrap_or(jsize::MAX);
                let (kind, v) = match Self::value(vals, *value)? {
                    Val::Ref(o) => (Kind::Object, jvalue { l: o }),
                    Val::Prim(k, v) => (k, v),
                    Val::Void => return Err(Stop::Invalid(format!("{value} is void"))),
                };
                jni.array_store(a, kind, idx, v);
                self.check()?;
                Ok(Val::Void)
            }
            Statement::Cast { value, ty } => {
                let o = Self::reference_of(vals, *value)?;
                let c = self.class(ty).map_err(Stop::Invalid)?;
                if !o.is_null() && !jni.is_instance(o, c) {
                    return Err(Stop::Threw(Thrown {
                        class: "java.lang.ClassCastException".into(),
                        message: Some(format!(
                            "{} cannot be cast to {}",
                            self.class_name(o),
                            ferrosuite_testcase::statement::java_type(ty)
                        )),
                        kind: ThrowKind::Code,
                        frames: Vec::new(),
                    }));
                }
                Ok(Val::Ref(o))
            }
            // JNI does not check access: a private member is called as any other.
            Statement::Private(inner) => self.exec(inner, vals),
            Statement::Mock { class, stubs } => {
                match self
                    .make_mock(vals.len(), class, stubs, vals)
                    .map_err(Stop::Invalid)?
                {
                    Ok(mock) => Ok(Val::Ref(mock)),
                    Err(t) => {
                        let d = self.describe(t);
                        self.jni.delete_local(t);
                        Err(Stop::Threw(d))
                    }
                }
            }
            other => Err(Stop::Invalid(format!(
                "statement kind not supported by this worker: {other}"
            ))),
        }
    }
}

fn elapsed_micros(start: Instant) -> u64 {
    u64::try_from(start.elapsed().as_micros()).unwrap_or(u64::MAX)
}
