//! Thread names and ids in the controlled environment: the fixture `env.Threads` makes threads
//! through `new Thread(…)`, a subclass's `super()`, pools with and without `Executors`, a
//! thread factory and a timer, and reads ids; every test sees the same names and numbers, in
//! the worker and in a plain JVM with the runtime of emitted tests, where the JDK numbers them
//! across the whole JVM.

use ferrosuite_bytecode::descriptor::FieldType;
use ferrosuite_exec::{Host, Observed, Status};
use ferrosuite_testcase::{Statement, Test, VarRef};

use crate::{config, fixtures, run_with_runtime};

const NAMES: &str = "Thread-0,Thread-1,Thread-2,Thread-3,named,pool-1-thread-1,pool-2-thread-1,pool-3-thread-1,Timer-0";
const IDS: &str = "1,2,1,3";

fn call(name: &str) -> Test {
    Test::new(vec![Statement::method(
        "env/Threads",
        name,
        "()Ljava/lang/String;",
        None,
        vec![],
    )])
}

/// `new Thread((Runnable) null).getName()` as statements the worker runs itself.
fn statements() -> Test {
    Test::new(vec![
        Statement::Null {
            ty: FieldType::Object("java/lang/Runnable".into()),
        },
        Statement::constructor(
            "java/lang/Thread",
            "(Ljava/lang/Runnable;)V",
            vec![VarRef(0)],
        ),
        Statement::method(
            "java/lang/Thread",
            "getName",
            "()Ljava/lang/String;",
            Some(VarRef(1)),
            vec![],
        ),
    ])
}

fn texts(host: &mut Host, tests: &[Test]) -> Vec<String> {
    host.run(tests, true)
        .unwrap()
        .iter()
        .map(|r| {
            assert_eq!(r.status, Status::Completed, "{r:?}");
            match r.observations.last().and_then(|o| o.value.clone()) {
                Some(Observed::String { text, .. }) => text,
                other => panic!("not a string: {other:?} ({r:?})"),
            }
        })
        .collect()
}

#[test]
fn every_test_numbers_its_threads_from_the_start_in_the_worker_and_in_emitted_tests() {
    let mut c = config(vec![fixtures().clone()], &["env/Threads"]);
    c.environment = true;
    let mut host = Host::start(c).unwrap();
    let tests = [call("names"), call("ids"), statements(), call("names")];
    let worker = texts(&mut host, &tests);
    assert_eq!(worker, [NAMES, IDS, "Thread-0", NAMES]);
    let read: Vec<bool> = host
        .run(&tests[..3], false)
        .unwrap()
        .iter()
        .map(|r| r.reads_environment)
        .collect();
    assert_eq!(read, [true, true, true], "a thread name is a read");

    let harness = r"
public class ThreadsHarness {
    // Not in main(): a method running while install() retransforms its class keeps its code.
    static String statement() {
        return new Thread((Runnable) null).getName();
    }

    public static void main(String[] args) throws Exception {
        org.ferrosuite.rt.Environment.install();
        org.ferrosuite.rt.Environment.begin();
        System.out.println(env.Threads.names());
        org.ferrosuite.rt.Environment.begin();
        System.out.println(env.Threads.ids());
        org.ferrosuite.rt.Environment.begin();
        System.out.println(statement());
        org.ferrosuite.rt.Environment.begin();
        System.out.println(env.Threads.names());
    }
}
";
    let (out, _) = run_with_runtime("threads-runtime", "ThreadsHarness", harness);
    let plain: Vec<String> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(str::to_string)
        .collect();
    assert_eq!(plain, worker, "plain JVM with the runtime vs the worker");
}

#[test]
fn without_the_environment_the_jdk_numbers_threads_across_tests() {
    let mut c = config(vec![fixtures().clone()], &["env/Threads"]);
    c.environment = false;
    let mut host = Host::start(c).unwrap();
    let v = texts(&mut host, &[call("names"), call("names")]);
    assert_ne!(v[0], v[1], "the JDK's counters started again");
}
