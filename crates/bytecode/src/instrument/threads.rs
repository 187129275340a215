//! Deterministic thread names and ids: the rewrites that make the threads, timers and thread
//! pools the code under test creates take their names from the runtime class
//! `org.ferrosuite.rt.VirtualThreads` ([`THREADS_CLASS`]), numbered per test, and its reads of
//! thread ids give per-test numbers.
//!
//! The JDK names an unnamed thread `Thread-<n>` from a counter of the whole JVM, so the name a
//! test sees depends on every thread made before it, in that test or any other. Here each test
//! starts counting again:
//!
//! | API | becomes |
//! |---|---|
//! | `new Thread()`, `new Thread(r)`, `new Thread(group, r)` (and a subclass's `super(…)`) | the constructor taking a name last, with `VirtualThreads.name()`: `Thread-0`, `Thread-1`, … in each test |
//! | `new Timer()`, `new Timer(daemon)` | `VirtualThreads.newTimer`: `Timer-0`, … |
//! | `Executors.newFixedThreadPool(n)` and the other factory-less pools, `Executors.defaultThreadFactory()`, `new ThreadPoolExecutor(…)` and `new ScheduledThreadPoolExecutor(…)` without a `ThreadFactory` | the same pool with `VirtualThreads.threadFactory()`: `pool-1-thread-1`, … |
//! | `thread.getId()`, `thread.threadId()` | `VirtualThreads.getId(thread)`: 1, 2, … in the order the test first asks about each thread |
//!
//! `Thread.currentThread().getName()` stays the runner's (`main` under Maven, `Test worker`
//! under Gradle), as do the names of threads the JDK starts itself (the common fork-join pool)
//! and ids read through a subclass reference or by the JDK (`Thread.toString()` on JDK 19+).
//!
//! ```
//! use ferrosuite_bytecode::instrument::threads::{NEW_THREAD, THREADS_CLASS};
//! assert_eq!(NEW_THREAD[1].with_value(), "(Ljava/lang/Runnable;Ljava/lang/String;)V");
//! assert!(NEW_THREAD.iter().all(|s| s.owner == THREADS_CLASS));
//! ```

use crate::instrument::environment::SeededConstructor;
use crate::instrument::files::Factory;
use crate::instrument::redirect::{MemberSpec, Redirect};

/// Internal name of the runtime class with the per-test names and ids.
pub const THREADS_CLASS: &str = "org/ferrosuite/rt/VirtualThreads";

const fn named(descriptor: &'static str) -> SeededConstructor {
    SeededConstructor {
        class: "java/lang/Thread",
        descriptor,
        value: "Ljava/lang/String;",
        owner: THREADS_CLASS,
        name: "name",
        factory: "newThread",
    }
}

/// The `Thread` constructors that make up a name, and take one last in their named form.
pub const NEW_THREAD: [SeededConstructor; 3] = [
    named("()V"),
    named("(Ljava/lang/Runnable;)V"),
    named("(Ljava/lang/ThreadGroup;Ljava/lang/Runnable;)V"),
];

const fn factory(class: &'static str, descriptor: &'static str, name: &'static str) -> Factory {
    Factory {
        class,
        descriptor,
        owner: THREADS_CLASS,
        name,
    }
}

const POOL: &str = "java/util/concurrent/ThreadPoolExecutor";
const SCHEDULED: &str = "java/util/concurrent/ScheduledThreadPoolExecutor";

/// Constructors of timers and pools that name their threads from a JVM-wide counter, made
/// calls of factories that pass a per-test name or thread factory (only at `new`: a
/// subclass's `super(…)` keeps the JDK's names).
pub const FACTORIES: [Factory; 6] = [
    factory("java/util/Timer", "()V", "newTimer"),
    factory("java/util/Timer", "(Z)V", "newTimer"),
    factory(
        POOL,
        "(IIJLjava/util/concurrent/TimeUnit;Ljava/util/concurrent/BlockingQueue;)V",
        "newThreadPoolExecutor",
    ),
    factory(
        POOL,
        "(IIJLjava/util/concurrent/TimeUnit;Ljava/util/concurrent/BlockingQueue;Ljava/util/concurrent/RejectedExecutionHandler;)V",
        "newThreadPoolExecutor",
    ),
    factory(SCHEDULED, "(I)V", "newScheduledThreadPoolExecutor"),
    factory(
        SCHEDULED,
        "(ILjava/util/concurrent/RejectedExecutionHandler;)V",
        "newScheduledThreadPoolExecutor",
    ),
];

/// The redirects: `Executors`' factory-less pools to stand-ins of the same descriptor, and
/// the two id getters to static stand-ins taking the thread first.
#[must_use]
pub fn redirects() -> Vec<Redirect> {
    let executors = "java/util/concurrent/Executors";
    let service = "Ljava/util/concurrent/ExecutorService;";
    let scheduled = "Ljava/util/concurrent/ScheduledExecutorService;";
    let mut out: Vec<Redirect> = [
        ("newFixedThreadPool", format!("(I){service}")),
        ("newSingleThreadExecutor", format!("(){service}")),
        ("newCachedThreadPool", format!("(){service}")),
        ("newScheduledThreadPool", format!("(I){scheduled}")),
        ("newSingleThreadScheduledExecutor", format!("(){scheduled}")),
        (
            "defaultThreadFactory",
            "()Ljava/util/concurrent/ThreadFactory;".to_string(),
        ),
    ]
    .into_iter()
    .map(|(name, descriptor)| {
        Redirect::to_static(
            MemberSpec::new(executors, name, &descriptor),
            THREADS_CLASS,
            name,
        )
    })
    .collect();
    for name in ["getId", "threadId"] {
        out.push(Redirect::instance_to_static(
            MemberSpec::new("java/lang/Thread", name, "()J"),
            THREADS_CLASS,
            name,
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_redirect_is_well_formed_and_every_named_form_is_a_thread_constructor() {
        assert!(redirects().iter().all(|r| r.check().is_ok()));
        let forms: Vec<String> = NEW_THREAD
            .iter()
            .map(SeededConstructor::with_value)
            .collect();
        assert_eq!(
            forms,
            [
                "(Ljava/lang/String;)V",
                "(Ljava/lang/Runnable;Ljava/lang/String;)V",
                "(Ljava/lang/ThreadGroup;Ljava/lang/Runnable;Ljava/lang/String;)V",
            ]
        );
        assert_eq!(
            NEW_THREAD[2].factory_spec().descriptor,
            "(Ljava/lang/ThreadGroup;Ljava/lang/Runnable;)Ljava/lang/Thread;"
        );
    }
}
