//! The controlled environment (`HostConfig::environment`): the code under test reads a virtual
//! clock and draws deterministic randomness, through every API the fixtures `env.Dice` and
//! `env.Clocks` use and through statements calling the APIs themselves, so that two hosts
//! give the same values; another salt gives other random numbers, a shift another time, a
//! longer step another elapsed time, and values that depend on none of them stay the same.

use ferrosuite_exec::{Host, Observed, Status, TestResult};
use ferrosuite_testcase::{Prim, Statement, Test, VarRef};

use crate::{config, fixtures, run_with_runtime};

/// Where the virtual clock starts each test (`SystemTime.START_MILLIS`).
const START_MILLIS: i64 = 1_600_000_000_000;

fn dice(name: &str, desc: &str, args: Vec<VarRef>) -> Statement {
    Statement::method("env/Dice", name, desc, None, args)
}

/// The tests, each reading one value (the last statement's), and whether it is random.
fn tests() -> Vec<(&'static str, bool, Test)> {
    vec![
        (
            "new Random() in a constructor",
            true,
            Test::new(vec![
                Statement::constructor("env/Dice", "()V", vec![]),
                Statement::method("env/Dice", "next", "()J", Some(VarRef(0)), vec![]),
            ]),
        ),
        (
            "Math.random",
            true,
            Test::new(vec![dice("math", "()J", vec![])]),
        ),
        (
            "UUID.randomUUID",
            true,
            Test::new(vec![dice("uuid", "()J", vec![])]),
        ),
        (
            "ThreadLocalRandom",
            true,
            Test::new(vec![dice("threadLocal", "()I", vec![])]),
        ),
        (
            "Collections.shuffle",
            true,
            Test::new(vec![dice("shuffled", "()I", vec![])]),
        ),
        (
            "super() of a Random",
            true,
            Test::new(vec![dice("loaded", "()I", vec![])]),
        ),
        (
            "a statement calling new Random()",
            true,
            Test::new(vec![
                Statement::constructor("java/util/Random", "()V", vec![]),
                dice("draw", "(Ljava/util/Random;)I", vec![VarRef(0)]),
            ]),
        ),
        (
            "SecureRandom: new, getInstance, seeded, getSeed",
            true,
            Test::new(vec![dice("secure", "()J", vec![])]),
        ),
        (
            "new SplittableRandom()",
            true,
            Test::new(vec![dice("splittable", "()J", vec![])]),
        ),
        (
            "a statement calling new SecureRandom()",
            true,
            Test::new(vec![
                Statement::constructor("java/security/SecureRandom", "()V", vec![]),
                Statement::method(
                    "java/security/SecureRandom",
                    "nextLong",
                    "()J",
                    Some(VarRef(0)),
                    vec![],
                ),
            ]),
        ),
        (
            "a statement calling Math.random",
            true,
            Test::new(vec![
                Statement::method("java/lang/Math", "random", "()D", None, vec![]),
                Statement::method(
                    "java/lang/Double",
                    "doubleToLongBits",
                    "(D)J",
                    None,
                    vec![VarRef(0)],
                ),
            ]),
        ),
        (
            "System.nanoTime twice",
            false,
            Test::new(vec![dice("elapsed", "()J", vec![])]),
        ),
        (
            "System.currentTimeMillis",
            false,
            Test::new(vec![Statement::method(
                "env/Clocks",
                "millis",
                "()J",
                None,
                vec![],
            )]),
        ),
        (
            "twice",
            false,
            Test::new(vec![
                Statement::Primitive(Prim::Int(21)),
                dice("twice", "(I)I", vec![VarRef(0)]),
            ]),
        ),
    ]
}

fn values(salt: i64, shift: i64, step: i64) -> Vec<i64> {
    let mut c = config(vec![fixtures().clone()], &["env/Dice", "env/Clocks"]);
    c.environment = true;
    c.random_salt = salt;
    c.clock_shift_ms = shift;
    c.clock_step_ms = step;
    let mut host = Host::start(c).unwrap();
    let mut tests: Vec<Test> = tests().into_iter().map(|(_, _, t)| t).collect();
    // Each test twice: the second run of a test starts from the same seeds and instant.
    tests.extend(tests.clone());
    let results = host.run(&tests, true).unwrap();
    let all: Vec<i64> = results
        .iter()
        .map(|r: &TestResult| {
            assert_eq!(r.status, Status::Completed, "{r:?}");
            match r.observations.last().and_then(|o| o.value.clone()) {
                Some(Observed::Integer(v)) => v,
                other => panic!("not an integer: {other:?}"),
            }
        })
        .collect();
    let (first, second) = all.split_at(all.len() / 2);
    assert_eq!(first, second, "a test's second run differs from its first");
    first.to_vec()
}

#[test]
fn the_environment_is_the_same_in_every_host_and_moves_with_salt_and_shift() {
    let a = values(0, 0, 1);
    let b = values(0, 0, 1);
    let salted = values(7, 0, 1);
    let shifted = values(0, 86_400_000, 1);
    let stepped = values(0, 0, 3);
    let names: Vec<(&str, bool)> = tests().into_iter().map(|(n, r, _)| (n, r)).collect();
    assert_eq!(a, b, "two hosts, same salt and shift");
    for (k, (name, random)) in names.iter().enumerate() {
        if *random {
            assert_ne!(a[k], salted[k], "{name}: another salt, the same number");
            assert_eq!(a[k], shifted[k], "{name}: the clock moved the number");
        } else {
            assert_eq!(
                a[k], salted[k],
                "{name}: the salt moved a value of no randomness"
            );
        }
    }
    // The virtual clock: each read one millisecond on from the fixed start.
    let at = |name: &str| names.iter().position(|(n, _)| *n == name).unwrap();
    assert_eq!(a[at("System.nanoTime twice")], 1_000_000);
    assert_eq!(stepped[at("System.nanoTime twice")], 3_000_000);
    assert_eq!(stepped[at("System.currentTimeMillis")], START_MILLIS);
    assert_eq!(a[at("System.currentTimeMillis")], START_MILLIS);
    assert_eq!(
        shifted[at("System.currentTimeMillis")],
        START_MILLIS + 86_400_000
    );
    assert_eq!(a[at("twice")], 42);
}

#[test]
fn without_the_environment_randomness_is_the_machines() {
    let mut c = config(vec![fixtures().clone()], &["env/Dice"]);
    c.environment = false;
    let mut host = Host::start(c).unwrap();
    let t = Test::new(vec![dice("uuid", "()J", vec![])]);
    let r = host.run(&[t.clone(), t], true).unwrap();
    let v: Vec<_> = r
        .iter()
        .map(|r| r.observations.last().and_then(|o| o.value.clone()))
        .collect();
    assert_ne!(v[0], v[1], "two random UUIDs are equal: {v:?}");
}

/// The runtime of emitted tests (`org.ferrosuite.rt.Environment`, which patches classes as they
/// load through Byte Buddy's agent, no JVM flag) gives a plain JVM the values the worker gave
/// the same tests: the same instants, seeds and draws.
#[test]
fn the_emitted_tests_runtime_gives_the_workers_values() {
    // One value per test, each after `begin()`, as the worker runs `tests()` below.
    let harness = r"
public class EnvHarness {
    public static void main(String[] args) throws Exception {
        org.ferrosuite.rt.Environment.install();
        long[] v = new long[11];
        org.ferrosuite.rt.Environment.begin(); v[0] = new env.Dice().roll();
        org.ferrosuite.rt.Environment.begin(); v[1] = env.Dice.math();
        org.ferrosuite.rt.Environment.begin(); v[2] = env.Dice.uuid();
        org.ferrosuite.rt.Environment.begin(); v[3] = env.Dice.threadLocal();
        org.ferrosuite.rt.Environment.begin(); v[4] = env.Dice.shuffled();
        org.ferrosuite.rt.Environment.begin(); v[5] = env.Dice.elapsed();
        org.ferrosuite.rt.Environment.begin(); v[6] = env.Clocks.millis();
        org.ferrosuite.rt.Environment.begin(); v[7] = new env.Clocks().created();
        org.ferrosuite.rt.Environment.begin(); v[8] = env.Dice.loaded();
        org.ferrosuite.rt.Environment.begin(); v[9] = env.Dice.secure();
        org.ferrosuite.rt.Environment.begin(); v[10] = env.Dice.splittable();
        for (long x : v) {
            System.out.println(x);
        }
    }
}
";
    let (out, _) = run_with_runtime("environment-runtime", "EnvHarness", harness);
    let plain: Vec<i64> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| l.trim().parse().unwrap())
        .collect();

    let mut c = config(vec![fixtures().clone()], &["env/Dice", "env/Clocks"]);
    c.environment = true;
    let mut host = Host::start(c).unwrap();
    let tests = vec![
        Test::new(vec![
            Statement::constructor("env/Dice", "()V", vec![]),
            Statement::method("env/Dice", "roll", "()I", Some(VarRef(0)), vec![]),
        ]),
        Test::new(vec![dice("math", "()J", vec![])]),
        Test::new(vec![dice("uuid", "()J", vec![])]),
        Test::new(vec![dice("threadLocal", "()I", vec![])]),
        Test::new(vec![dice("shuffled", "()I", vec![])]),
        Test::new(vec![dice("elapsed", "()J", vec![])]),
        Test::new(vec![Statement::method(
            "env/Clocks",
            "millis",
            "()J",
            None,
            vec![],
        )]),
        Test::new(vec![
            Statement::constructor("env/Clocks", "()V", vec![]),
            Statement::method("env/Clocks", "created", "()J", Some(VarRef(0)), vec![]),
        ]),
        Test::new(vec![dice("loaded", "()I", vec![])]),
        Test::new(vec![dice("secure", "()J", vec![])]),
        Test::new(vec![dice("splittable", "()J", vec![])]),
    ];
    let worker: Vec<i64> = host
        .run(&tests, true)
        .unwrap()
        .iter()
        .map(
            |r| match r.observations.last().and_then(|o| o.value.clone()) {
                Some(Observed::Integer(v)) => v,
                other => panic!("not an integer: {other:?} ({r:?})"),
            },
        )
        .collect();
    assert_eq!(plain, worker, "plain JVM with the runtime vs the worker");
}

/// The worker says which tests read the controlled environment: the emitted class reproduces
/// it only when one did.
#[test]
fn results_say_whether_the_test_read_the_environment() {
    let mut c = config(vec![fixtures().clone()], &["env/Dice", "env/Clocks"]);
    c.environment = true;
    let mut host = Host::start(c).unwrap();
    let tests = [
        Test::new(vec![dice("math", "()J", vec![])]),
        Test::new(vec![
            Statement::Primitive(Prim::Int(21)),
            dice("twice", "(I)I", vec![VarRef(0)]),
        ]),
        Test::new(vec![Statement::method(
            "env/Clocks",
            "millis",
            "()J",
            None,
            vec![],
        )]),
        Test::new(vec![Statement::constructor(
            "java/util/Random",
            "()V",
            vec![],
        )]),
    ];
    let read: Vec<bool> = host
        .run(&tests, false)
        .unwrap()
        .iter()
        .map(|r| r.reads_environment)
        .collect();
    assert_eq!(read, [true, false, true, true]);
}
