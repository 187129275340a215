//! The hostile corpus: code that never ends, recurses without bound, exhausts memory, leaves
//! threads behind or keeps static state. Each test must get a result within the time limit
//! plus a restart, the host must survive, and static state must not leak between tests.

use std::time::{Duration, Instant};

use ferrosuite_exec::{Host, MIN_CHUNK, Observed, Polled, Status, ThrowKind};
use ferrosuite_testcase::{Prim, Statement, Test, VarRef};

use crate::{config, fixture_host, fixtures};

fn call(class: &str, name: &str, desc: &str) -> Test {
    Test::new(vec![Statement::method(
        &format!("hostile/{class}"),
        name,
        desc,
        None,
        vec![],
    )])
}

fn corpus() -> Vec<(&'static str, Test)> {
    vec![
        (
            "loop",
            Test::new(vec![
                Statement::Primitive(Prim::Int(1)),
                Statement::method("hostile/Runaway", "spin", "(I)I", None, vec![VarRef(0)]),
            ]),
        ),
        ("sleep", call("Runaway", "sleepForever", "()V")),
        ("stubborn sleep", call("Runaway", "sleepStubbornly", "()V")),
        (
            "uninstrumented loop",
            call("Runaway", "spinUninstrumented", "()V"),
        ),
        (
            "recursion",
            Test::new(vec![
                Statement::Primitive(Prim::Int(0)),
                Statement::method("hostile/Recursion", "down", "(I)I", None, vec![VarRef(0)]),
            ]),
        ),
        ("huge array", call("Memory", "huge", "()[J")),
        ("heap exhaustion", call("Memory", "exhaust", "()I")),
        (
            "spinning thread",
            call("Threads", "spinner", "()Ljava/lang/Thread;"),
        ),
        (
            "sleeping thread",
            call("Threads", "sleeper", "()Ljava/lang/Thread;"),
        ),
        (
            "stubborn thread",
            call("Threads", "stubborn", "()Ljava/lang/Thread;"),
        ),
        ("static counter", call("Counter", "next", "()I")),
    ]
}

fn hostile_host() -> Host {
    hostile_host_with(Duration::from_secs(1))
}

/// The hostile host with another time limit per test.
fn hostile_host_with(timeout: Duration) -> Host {
    Host::start(hostile_config(timeout)).unwrap()
}

fn hostile_config(timeout: Duration) -> ferrosuite_exec::HostConfig {
    let mut c = config(
        vec![fixtures().clone()],
        &[
            "hostile/Runaway",
            "hostile/Recursion",
            "hostile/Memory",
            "hostile/Threads",
            "hostile/Counter",
        ],
    );
    c.timeout = timeout;
    c.kill_grace = Duration::from_secs(1);
    c
}

fn check(name: &str, r: &ferrosuite_exec::TestResult) {
    let thrown = r.first_exception().map(|(_, t)| t.clone());
    match name {
        "loop" => assert!(
            matches!(&r.status, Status::Aborted(m) if m.contains("loop limit")),
            "{name}: {r:?}"
        ),
        "sleep" | "stubborn sleep" => {
            assert!(
                matches!(&r.status, Status::Aborted(m) if m.contains("time limit")),
                "{name}: {r:?}"
            );
        }
        "uninstrumented loop" => assert_eq!(r.status, Status::Timeout, "{name}: {r:?}"),
        "recursion" => {
            let t = thrown.unwrap_or_else(|| panic!("{name}: {r:?}"));
            assert_eq!(
                (t.class.as_str(), &t.kind),
                ("java.lang.StackOverflowError", &ThrowKind::Resource),
                "{name}"
            );
        }
        // Filling the heap ends in an OutOfMemoryError, or in the time limit when the collector
        // thrashes first.
        "heap exhaustion" if matches!(&r.status, Status::Aborted(m) if m.contains("time limit")) => {
        }
        "huge array" | "heap exhaustion" => {
            let t = thrown.unwrap_or_else(|| panic!("{name}: {r:?}"));
            assert_eq!(
                (t.class.as_str(), &t.kind),
                ("java.lang.OutOfMemoryError", &ThrowKind::Resource),
                "{name}"
            );
        }
        "sleeping thread" => {
            assert_eq!(r.status, Status::Completed, "{name}: {r:?}");
            assert!(
                r.leaked_threads.is_empty(),
                "{name}: {:?}",
                r.leaked_threads
            );
        }
        // The spinner stops at the abort flag, or at the loop limit by itself; a thread that
        // is still dying after the grace period costs a worker restart, never a result.
        "spinning thread" => assert_eq!(r.status, Status::Completed, "{name}: {r:?}"),
        "stubborn thread" => assert_eq!(r.leaked_threads.len(), 1, "{name}: {r:?}"),
        "static counter" => {
            assert_eq!(r.status, Status::Completed);
            assert_eq!(
                r.observations[0].value,
                Some(Observed::Integer(1)),
                "{name}: the counter leaked"
            );
            assert_eq!(r.reset_classes, vec!["hostile.Counter".to_string()]);
        }
        _ => unreachable!(),
    }
}

#[test]
fn the_host_survives_the_hostile_corpus_repeatedly() {
    let mut host = hostile_host();
    let cases = corpus();
    let rounds = 3;
    let mut tests = Vec::new();
    let mut names = Vec::new();
    for round in 0..rounds {
        // A different order each round: state must not depend on what ran before.
        let mut order: Vec<usize> = (0..cases.len()).collect();
        order.rotate_left(round * 4 % cases.len());
        for i in order {
            names.push(cases[i].0);
            tests.push(cases[i].1.clone());
        }
    }
    let start = Instant::now();
    let results = host.run(&tests, true).unwrap();
    let elapsed = start.elapsed();
    assert_eq!(results.len(), tests.len());
    for (name, r) in names.iter().zip(&results) {
        check(name, r);
    }
    let stats = host.stats();
    eprintln!(
        "hostile corpus: {} tests in {elapsed:?}; {stats:?}",
        tests.len()
    );
    // Bound: per test the time limit plus the kill grace plus a restart (generous for CI).
    assert!(elapsed < Duration::from_secs(12) * u32::try_from(tests.len()).unwrap());
    assert_eq!(stats.timeouts, rounds as u64);
    // The host still runs ordinary tests afterwards.
    let r = host.run(&[call("Counter", "next", "()I")], true).unwrap();
    check("static counter", &r[0]);
}

/// A stack overflow, or an `OutOfMemoryError` whose allocation was the test's own, costs no
/// worker: a recursion without end, a huge array that could never be allocated and a heap
/// filled by a local list (garbage once the test ended) leave the worker running, dozens of
/// times; a heap still full because a static field holds on to it, and an error in a static
/// initialiser (the class stays erroneous) — also when the error's stack trace does not show
/// the initialiser, which the JVM's count of erroneous classes does — each retire it. Every
/// test still gets its error as the result.
#[test]
fn a_worker_goes_on_after_errors_it_recovers_from() {
    // Filling the heap takes well under a second alone, but the collector can stall for longer
    // when the other tests' JVMs share the cores: a time-out here would be load, not the point.
    let mut c = hostile_config(Duration::from_secs(20));
    // The heap must fill: the watchdog would stop a test of the search at the allocation
    // limit first.
    c.allocation_limit = 0;
    let mut host = Host::start(c).unwrap();
    let recursion = Test::new(vec![
        Statement::Primitive(Prim::Int(0)),
        Statement::method("hostile/Recursion", "down", "(I)I", None, vec![VarRef(0)]),
    ]);
    let recoverable: Vec<Test> = (0..6)
        .map(|i| match i % 3 {
            0 => call("Memory", "huge", "()[J"),
            1 => call("Memory", "fillLocally", "()I"),
            _ => recursion.clone(),
        })
        .collect();
    let results = host.run(&recoverable, false).unwrap();
    let overflow = |r: &ferrosuite_exec::TestResult| {
        r.first_exception().is_some_and(|(_, t)| {
            t.class == "java.lang.StackOverflowError" && t.kind == ThrowKind::Resource
        })
    };
    let oom = |r: &ferrosuite_exec::TestResult| {
        r.first_exception().is_some_and(|(_, t)| {
            t.class == "java.lang.OutOfMemoryError" && t.kind == ThrowKind::Resource
        })
    };
    assert!(results.iter().all(|r| oom(r) || overflow(r)), "{results:?}");
    assert_eq!(
        results.iter().filter(|r| overflow(r)).count(),
        2,
        "{results:?}"
    );
    assert_eq!(host.stats().retirements, 0, "{:?}", host.stats());
    // Checked by the JVM's count of erroneous classes, the worker goes on well past the 16
    // errors it would go on after without the count.
    let mut more = vec![call("Memory", "huge", "()[J"); 12];
    more.extend(vec![recursion.clone(); 12]);
    let results = host.run(&more, false).unwrap();
    assert!(results.iter().all(|r| oom(r) || overflow(r)), "{results:?}");
    assert_eq!(host.stats().retirements, 0, "{:?}", host.stats());
    // A recursion in a static initialiser, out of the trace's sight, retires it.
    let deep = call("Recursion", "initialiseDeep", "()I");
    let r = host.run(std::slice::from_ref(&deep), false).unwrap();
    assert!(overflow(&r[0]), "{r:?}");
    assert_eq!(host.stats().retirements, 1, "{:?}", host.stats());
    // So the next worker initialises the class afresh (the same error, not a
    // `NoClassDefFoundError`), and retires too.
    let r = host.run(&[deep], false).unwrap();
    assert!(overflow(&r[0]), "{r:?}");
    assert_eq!(host.stats().retirements, 2, "{:?}", host.stats());
    // A static initialiser that runs out of memory retires it.
    let r = host
        .run(&[call("Memory", "initialiseHuge", "()I")], false)
        .unwrap();
    assert!(oom(&r[0]), "{r:?}");
    assert_eq!(host.stats().retirements, 3, "{:?}", host.stats());
    // A heap a static field keeps full retires it too; the next worker runs tests as usual.
    let r = host
        .run(
            &[
                call("Memory", "fillStatically", "()I"),
                call("Counter", "next", "()I"),
            ],
            true,
        )
        .unwrap();
    assert!(oom(&r[0]), "{r:?}");
    assert_eq!(host.stats().retirements, 4, "{:?}", host.stats());
    check("static counter", &r[1]);
}

/// A test calling `Memory.<method>(mib)`, one of the methods that allocate `mib` MiB.
fn allocating(method: &str, mib: i32) -> Test {
    Test::new(vec![
        Statement::Primitive(Prim::Int(mib)),
        Statement::method("hostile/Memory", method, "(I)I", None, vec![VarRef(0)]),
    ])
}

/// What a test of the search allocates is counted: past the host's limit it is `Exhausted`,
/// whatever it returned, as is a test that runs out of memory; a test under the limit, and
/// any test run with observation (the final runs), keep their status.
#[test]
fn a_search_test_that_allocates_past_the_limit_is_exhausted() {
    let mut c = config(vec![fixtures().clone()], &["hostile/Memory"]);
    c.allocation_limit = 32 << 20;
    let mut host = Host::start(c).unwrap();
    let churn = |mib| allocating("churn", mib);
    let r = host
        .run(
            &[churn(64), churn(4), call("Memory", "huge", "()[J")],
            false,
        )
        .unwrap();
    assert!(
        matches!(&r[0].status, Status::Exhausted(m) if m.contains("over the limit of 32 MiB")),
        "{:?}",
        r[0].status
    );
    assert_eq!(r[0].executed, 2);
    assert_eq!(r[1].status, Status::Completed);
    assert!(
        matches!(&r[2].status, Status::Exhausted(m) if m == "out of memory"),
        "{:?}",
        r[2].status
    );
    // Dropped by the search, though the worker goes on.
    assert!(r[0].status.dropped() && !r[0].status.lost_worker() && !r[1].status.dropped());
    assert_eq!(
        (host.stats().restarts, host.stats().exhausted),
        (0, 2),
        "{:?}",
        host.stats()
    );
    let observed = host.run(&[churn(64)], true).unwrap();
    assert_eq!(observed[0].status, Status::Completed);
    assert_eq!(
        observed[0].observations[1].value,
        Some(Observed::Integer(64 << 17))
    );
    // Without a limit, the search's run is not checked either.
    let mut c = config(vec![fixtures().clone()], &["hostile/Memory"]);
    c.allocation_limit = 0;
    let mut host = Host::start(c).unwrap();
    let r = host.run(&[churn(64)], false).unwrap();
    assert_eq!(r[0].status, Status::Completed);
}

/// The watchdog reads the executor thread's allocations while a test of the search runs: a
/// loop that would allocate a terabyte is stopped soon after it passes the limit, long
/// before its time limit; by the abort flag in an instrumented class (the worker goes on),
/// by the end of the worker when the loop is in a class that never reads the flag.
#[test]
fn a_search_test_is_stopped_while_it_allocates_past_the_limit() {
    let mut c = config(vec![fixtures().clone()], &["hostile/Memory"]);
    c.allocation_limit = 32 << 20;
    c.timeout = Duration::from_secs(60);
    c.loop_limit = 0;
    let mut host = Host::start(c).unwrap();
    let start = Instant::now();
    let r = host
        .run(
            &[
                allocating("churn", 1 << 20),
                allocating("churn", 4),
                allocating("churnElsewhere", 1 << 20),
                allocating("churn", 4),
            ],
            false,
        )
        .unwrap();
    let took = start.elapsed();
    assert!(
        matches!(&r[0].status, Status::Exhausted(m) if m.contains("over the limit of 32 MiB")),
        "{:?}",
        r[0].status
    );
    assert_eq!(r[1].status, Status::Completed);
    assert!(
        matches!(&r[2].status, Status::Exhausted(m) if m.contains("ignored the abort flag")),
        "{:?}",
        r[2].status
    );
    assert_eq!(r[3].status, Status::Completed);
    // Charged in full, wherever they were stopped: the statement budget stays deterministic.
    assert_eq!((r[0].executed, r[2].executed), (2, 2));
    let stats = host.stats();
    assert_eq!(
        (stats.retirements, stats.timeouts, stats.exhausted),
        (1, 0, 2),
        "{stats:?}"
    );
    // A time limit of a minute per test was not what stopped them.
    assert!(took < Duration::from_secs(50), "{took:?}");
}

/// Under a deadline, a chunk of tests that each hang (and each cost a worker) is cut short at
/// the first restart after the deadline: a search's time budget is overrun by one hanging test,
/// not by a chunk of them.
#[test]
fn a_deadline_cuts_a_chunk_of_hanging_tests_short() {
    let mut host = hostile_host();
    let hang = call("Runaway", "spinUninstrumented", "()V");
    let tests = vec![hang; 16];
    let deadline = Instant::now() + Duration::from_millis(200);
    let results = host.run_until(&tests, false, Some(deadline)).unwrap();
    // The first test has started (so something is returned) and lost; no second one after it.
    assert_eq!(results.len(), 1, "{results:?}");
    assert_eq!(results[0].status, Status::Timeout);
    // Without a deadline every test runs (two here, to keep the test short).
    let results = host.run_until(&tests[..2], false, None).unwrap();
    assert_eq!(results.len(), 2);
    assert!(results.iter().all(|r| r.status == Status::Timeout));
}

/// A stream of chunks of hanging tests under a deadline: the chunk running at the deadline is
/// cut short, no chunk starts after it, and the host returns at the deadline even though the
/// sender is still open (it does not wait for a chunk that would not run anyway).
#[test]
fn a_stream_ends_at_the_deadline() {
    use std::sync::mpsc;
    let mut host = hostile_host();
    let hang = std::sync::Arc::new(call("Runaway", "spinUninstrumented", "()V"));
    let (to_host, chunks) = mpsc::channel();
    let (sink, results) = mpsc::channel();
    to_host.send(vec![hang.clone(); 4]).unwrap();
    to_host.send(vec![hang; 4]).unwrap();
    let deadline = Instant::now() + Duration::from_millis(200);
    let t0 = Instant::now();
    host.run_stream(chunks, &sink, false, Some(deadline))
        .unwrap();
    drop(sink);
    let got: Vec<(usize, Vec<ferrosuite_exec::TestResult>)> = results.iter().collect();
    // The first chunk is cut after its first test (lost to the time limit); the second never
    // starts; the sender (still open) is not waited for.
    assert_eq!(got.len(), 1, "{got:?}");
    assert_eq!(got[0].0, 0);
    assert_eq!(got[0].1.len(), 1);
    assert_eq!(got[0].1[0].status, Status::Timeout);
    assert!(t0.elapsed() < Duration::from_secs(30), "{:?}", t0.elapsed());
    drop(to_host);
}

/// Exits, file writes, deletes and renames, processes and sockets: each throws the sandbox's
/// error, repeatedly, and nothing outside happens.
#[test]
fn sandboxed_apis_throw_and_touch_nothing() {
    use std::net::TcpListener;
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("exec-sandbox");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let victim = dir.join("victim.txt");
    std::fs::write(&victim, "precious").unwrap();
    let p = |name: &str| dir.join(name).display().to_string();
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let port = i32::from(listener.local_addr().unwrap().port());
    let with_str = |class: &str, name: &str, arg: &str| {
        Test::new(vec![
            Statement::string(arg),
            Statement::method(
                &format!("hostile/{class}"),
                name,
                "(Ljava/lang/String;)Z",
                None,
                vec![VarRef(0)],
            ),
        ])
    };
    let with = |class: &str, name: &str, desc: &str, arg: Statement| {
        Test::new(vec![
            arg,
            Statement::method(
                &format!("hostile/{class}"),
                name,
                desc,
                None,
                vec![VarRef(0)],
            ),
        ])
    };
    let s = |x: &str| Statement::string(x);
    let i = |x: i32| Statement::Primitive(Prim::Int(x));
    let cases: Vec<(&str, Test)> = vec![
        (
            "java.lang.System.exit",
            with("Exits", "systemExit", "(I)V", i(3)),
        ),
        (
            "java.lang.Runtime.exit",
            with("Exits", "runtimeExit", "(I)V", i(3)),
        ),
        (
            "java.lang.Runtime.halt",
            with("Exits", "runtimeHalt", "(I)V", i(3)),
        ),
        (
            "java.lang.System.exit",
            with("Exits", "exitThroughReference", "(I)V", i(3)),
        ),
        (
            "java.io.File.delete",
            with_str("FileOps", "deleteFile", &victim.display().to_string()),
        ),
        (
            "java.io.File.delete",
            with_str(
                "FileOps",
                "deleteThroughSubclass",
                &victim.display().to_string(),
            ),
        ),
        (
            "java.io.File.createNewFile",
            with_str("FileOps", "createNewFile", &p("new.txt")),
        ),
        (
            "java.io.File.mkdirs",
            with_str("FileOps", "makeDirectories", &p("sub/dir")),
        ),
        (
            "java.io.FileOutputStream.<init>",
            with(
                "FileOps",
                "writeFileOutputStream",
                "(Ljava/lang/String;)V",
                s(&victim.display().to_string()),
            ),
        ),
        (
            "java.io.FileWriter.<init>",
            with(
                "FileOps",
                "writeFileWriter",
                "(Ljava/lang/String;)V",
                s(&p("w.txt")),
            ),
        ),
        (
            "java.nio.file.Files.write",
            with(
                "FileOps",
                "writeNio",
                "(Ljava/lang/String;)V",
                s(&victim.display().to_string()),
            ),
        ),
        (
            "java.nio.file.Files.delete",
            with(
                "FileOps",
                "deleteNio",
                "(Ljava/lang/String;)V",
                s(&victim.display().to_string()),
            ),
        ),
        (
            "java.lang.ProcessBuilder.start",
            with(
                "Processes",
                "startProcess",
                "(Ljava/lang/String;)I",
                s(&p("marker")),
            ),
        ),
        (
            "java.lang.Runtime.exec",
            with(
                "Processes",
                "execArray",
                "(Ljava/lang/String;)I",
                s(&p("marker")),
            ),
        ),
        (
            "java.net.Socket.<init>",
            with("Network", "connect", "(I)V", i(port)),
        ),
        (
            "java.net.ServerSocket.<init>",
            with("Network", "listen", "(I)V", i(port + 1)),
        ),
        (
            "java.net.URL.openStream",
            with("Network", "openStream", "(I)V", i(port)),
        ),
        // A test that calls the API itself, not through the code under test.
        (
            "java.lang.System.exit",
            Test::new(vec![
                i(0),
                Statement::method("java/lang/System", "exit", "(I)V", None, vec![VarRef(0)]),
            ]),
        ),
    ];
    let mut c = config(
        vec![fixtures().clone()],
        &[
            "hostile/Exits",
            "hostile/FileOps",
            "hostile/Processes",
            "hostile/Network",
        ],
    );
    c.timeout = Duration::from_secs(2);
    let mut host = Host::start(c).unwrap();
    let rounds = 3;
    let tests: Vec<Test> = (0..rounds)
        .flat_map(|_| cases.iter().map(|c| c.1.clone()))
        .collect();
    let results = host.run(&tests, false).unwrap();
    let mut denied = 0;
    for (k, r) in results.iter().enumerate() {
        let (api, _) = &cases[k % cases.len()];
        let (_, t) = r
            .first_exception()
            .unwrap_or_else(|| panic!("{api}: no exception: {r:?}"));
        assert_eq!(t.class, "org.ferrosuite.rt.SandboxError", "{api}: {r:?}");
        assert!(
            matches!(&t.kind, ThrowKind::Sandbox(a) if a.starts_with(api)),
            "{api}: {t:?}"
        );
        denied += 1;
    }
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "precious");
    let left: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(
        left,
        vec![std::ffi::OsString::from("victim.txt")],
        "files appeared"
    );
    assert!(
        listener.accept().is_err(),
        "a connection reached the listener"
    );
    let stats = host.stats();
    assert_eq!((stats.crashes, stats.timeouts), (0, 0), "{stats:?}");
    eprintln!("sandbox corpus: {denied} denied calls over {rounds} rounds; {stats:?}");
}

/// A host of `workers` workers for the static counter and `Runtime.halt`, unsandboxed (so
/// that the halt kills its worker).
fn counter_and_exits_host(workers: usize) -> Host {
    let mut c = config(
        vec![fixtures().clone()],
        &["hostile/Counter", "hostile/Exits"],
    );
    c.sandbox = false;
    c.workers = workers;
    Host::start(c).unwrap()
}

/// A test that halts its worker's JVM.
fn runtime_halt() -> Test {
    Test::new(vec![
        Statement::Primitive(Prim::Int(7)),
        Statement::method(
            "hostile/Exits",
            "runtimeHalt",
            "(I)V",
            None,
            vec![VarRef(0)],
        ),
    ])
}

/// Without the sandbox, `Runtime.halt` kills the worker in the middle of a batch whose earlier
/// results may still be in the worker's buffer: those tests get their results all the same,
/// the halting test alone is scored as crashed, and the tests after it run in a new worker.
#[test]
fn a_worker_that_dies_mid_batch_costs_exactly_one_test() {
    let mut host = counter_and_exits_host(1);
    let mut batch: Vec<Test> = (0..40).map(|_| call("Counter", "next", "()I")).collect();
    batch.insert(25, runtime_halt());
    let results = host.run(&batch, true).unwrap();
    assert_eq!(results.len(), batch.len());
    for (i, r) in results.iter().enumerate() {
        if i == 25 {
            assert!(
                matches!(&r.status, Status::Crashed(m) if m.contains("exit")),
                "{:?}",
                r.status
            );
        } else {
            assert_eq!(r.status, Status::Completed, "test {i}");
            assert_eq!(
                r.observations[0].value,
                Some(Observed::Integer(1)),
                "test {i}: the static counter"
            );
        }
    }
    let stats = host.stats();
    assert_eq!(stats.crashes, 1, "{stats:?}");
    assert_eq!(stats.timeouts, 0, "{stats:?}");
    // One replacement for the first death (the rest then runs with a flush per test), one for
    // the second.
    assert_eq!(stats.restarts, 2, "{stats:?}");
}

/// The same under a deadline, with one and with two workers: the batch is cut into chunks of
/// [`MIN_CHUNK`] tests and each worker has the next chunk sent ahead while it runs one, so the
/// worker that halts takes a request it never read with it. The replacement gets the rest of
/// the chunk and then the chunk sent ahead again: every test still gets its own result, and
/// only the halting one is scored as crashed.
#[test]
fn a_worker_that_dies_with_a_chunk_sent_ahead_costs_exactly_one_test() {
    for workers in [1, 2] {
        let mut host = counter_and_exits_host(workers);
        let mut batch: Vec<Test> = (0..80).map(|_| call("Counter", "next", "()I")).collect();
        let halt = MIN_CHUNK + 9;
        batch.insert(halt, runtime_halt());
        let deadline = Instant::now() + Duration::from_secs(600);
        let results = host.run_until(&batch, true, Some(deadline)).unwrap();
        assert_eq!(results.len(), batch.len(), "{workers} worker(s)");
        for (i, r) in results.iter().enumerate() {
            if i == halt {
                assert!(matches!(&r.status, Status::Crashed(_)), "{:?}", r.status);
            } else {
                assert_eq!(r.status, Status::Completed, "{workers} worker(s), test {i}");
                assert_eq!(
                    r.observations[0].value,
                    Some(Observed::Integer(1)),
                    "{workers} worker(s), test {i}: the static counter"
                );
            }
        }
        let stats = host.stats();
        assert_eq!(stats.crashes, 1, "{workers} worker(s): {stats:?}");
        assert_eq!(
            stats.tests,
            batch.len() as u64,
            "{workers} worker(s): {stats:?}"
        );
    }
}

/// A JDK class that starts the JVM-wide "Common-Cleaner" thread on first use (in the system
/// thread group) does not count as a test leaving a thread behind: before this was told apart,
/// every test of commons-lang3 `CharUtils` retired its worker.
#[test]
fn jdk_infrastructure_threads_are_not_leaks() {
    let mut host = Host::start(config(vec![fixtures().clone()], &["hostile/Counter"])).unwrap();
    let inflater = Test::new(vec![Statement::constructor(
        "java/util/zip/Inflater",
        "()V",
        vec![],
    )]);
    let results = host.run(&[inflater.clone(), inflater], false).unwrap();
    for r in &results {
        assert_eq!(r.status, Status::Completed);
        assert!(r.leaked_threads.is_empty(), "{:?}", r.leaked_threads);
    }
    assert_eq!(host.stats().retirements, 0, "{:?}", host.stats());
    assert_eq!(host.stats().restarts, 0, "{:?}", host.stats());
}

/// Streams run on the host's own thread ([`Host::open_stream`]): a worker that dies in one
/// costs exactly its test (a fresh worker, sent the names again, takes the rest), the thread
/// serves the next stream, a batch takes the workers back from it, a stream after the batch
/// starts it again, a stream whose results are polled for gives them all, once each, and a
/// stream dropped without `finish` leaves the host usable.
#[test]
fn streams_on_the_hosts_thread_survive_a_dying_worker_and_give_the_workers_back() {
    use std::sync::Arc;
    for workers in [1, 2] {
        let mut host = counter_and_exits_host(workers);
        let counter = Arc::new(call("Counter", "next", "()I"));
        let halt = Arc::new(runtime_halt());
        // Results taken by waiting for them (`recv`), or by polling without waiting.
        let taken_in = |host: &mut Host, chunks: Vec<Vec<Arc<Test>>>, polled: bool| {
            let mut stream = host.open_stream(true, None).unwrap();
            for c in chunks {
                assert!(stream.send(c));
            }
            stream.close();
            let mut got = std::collections::BTreeMap::new();
            loop {
                let next = if polled {
                    match stream.poll() {
                        Polled::Ready(i, r) => Some((i, r)),
                        Polled::Pending => {
                            std::thread::yield_now();
                            continue;
                        }
                        Polled::Ended => None,
                    }
                } else {
                    stream.recv()
                };
                let Some((i, r)) = next else { break };
                assert!(got.insert(i, r).is_none(), "chunk {i} twice");
            }
            assert!(matches!(stream.poll(), Polled::Ended));
            assert!(stream.recv().is_none());
            stream.finish().unwrap();
            got.into_values().collect::<Vec<_>>()
        };
        let stream_of = |host: &mut Host, chunks| taken_in(host, chunks, false);
        let mut first = vec![vec![Arc::clone(&counter); 10]; 3];
        first[1][4] = Arc::clone(&halt);
        let got = stream_of(&mut host, first);
        assert_eq!(got.len(), 3, "{workers} worker(s)");
        for (k, chunk) in got.iter().enumerate() {
            assert_eq!(chunk.len(), 10, "{workers} worker(s), chunk {k}");
            for (i, r) in chunk.iter().enumerate() {
                if (k, i) == (1, 4) {
                    assert!(matches!(&r.status, Status::Crashed(_)), "{:?}", r.status);
                } else {
                    assert_eq!(r.status, Status::Completed, "{workers}: chunk {k} test {i}");
                    assert_eq!(r.observations[0].value, Some(Observed::Integer(1)));
                }
            }
        }
        let got = taken_in(&mut host, vec![vec![Arc::clone(&counter); 5]; 2], true);
        assert_eq!(got.len(), 2, "polled");
        assert!(got.iter().flatten().all(|r| r.status == Status::Completed));
        let batch: Vec<Test> = (0..3).map(|_| call("Counter", "next", "()I")).collect();
        let results = host.run(&batch, false).unwrap();
        assert!(results.iter().all(|r| r.status == Status::Completed));
        let stats = host.stats();
        assert_eq!(stats.crashes, 1, "{workers} worker(s): {stats:?}");
        assert_eq!(stats.tests, 30 + 10 + 3, "{workers} worker(s): {stats:?}");
        // Dropped with a chunk in flight: the drop waits for it; the host goes on.
        {
            let stream = host.open_stream(false, None).unwrap();
            assert!(stream.send(vec![Arc::clone(&counter); 4]));
        }
        let got = stream_of(&mut host, vec![vec![Arc::clone(&counter); 2]]);
        assert_eq!(got[0].len(), 2);
        assert_eq!(
            host.stats().tests,
            30 + 10 + 3 + 4 + 2,
            "{workers} worker(s)"
        );
    }
}

/// Static state changed through a reference (a store into a static array the test read, a
/// cache the code fills) is reset like a static write: every test finds the state a fresh JVM
/// has, so its result does not depend on the tests before it in the worker (nor on how many
/// workers share the tests). A reset after a test that hit the loop limit still completes.
#[test]
fn state_changed_through_references_does_not_leak() {
    let mut host = fixture_host(&["hostile/SharedState"]);
    let first = || call("SharedState", "first", "()I");
    let lookup = || {
        Test::new(vec![
            Statement::Primitive(Prim::String("k".into())),
            Statement::method(
                "hostile/SharedState",
                "lookup",
                "(Ljava/lang/String;)I",
                None,
                vec![VarRef(0)],
            ),
        ])
    };
    let store = Test::new(vec![
        Statement::FieldRead {
            class: "hostile/SharedState".into(),
            name: "TABLE".into(),
            descriptor: "[I".into(),
            receiver: None,
        },
        Statement::Primitive(Prim::Int(9)),
        Statement::ArrayStore {
            array: VarRef(0),
            index: 0,
            value: VarRef(1),
        },
    ]);
    let spin = call("SharedState", "spin", "()J");
    let tests = vec![store, first(), lookup(), lookup(), spin, first()];
    let r = host.run(&tests, true).unwrap();
    let value = |i: usize| r[i].observations.last().and_then(|o| o.value.clone());
    assert_eq!(
        value(1),
        Some(Observed::Integer(1)),
        "the store leaked: {:?}",
        r[1]
    );
    assert_eq!(value(2), Some(Observed::Integer(1)));
    assert_eq!(
        value(3),
        Some(Observed::Integer(1)),
        "the cache leaked: {:?}",
        r[3]
    );
    assert!(
        matches!(&r[4].status, Status::Aborted(m) if m.contains("loop limit")),
        "{:?}",
        r[4].status
    );
    assert_eq!(r[4].reset_classes, vec!["hostile.SharedState".to_string()]);
    assert_eq!(
        value(5),
        Some(Observed::Integer(1)),
        "half a reset: {:?}",
        r[5]
    );
}
