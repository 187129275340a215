//! The clock shift: with `HostConfig::clock_shift_ms`, the code under test reads the system
//! clock moved by the shift, through every API the fixture `env.Clocks` uses (call sites,
//! `new Date()`, a method reference), and so do statements that call the JDK's clock APIs
//! themselves; values that do not depend on the time stay the same.

use ferrosuite_exec::{Host, Observed, Status, TestResult};
use ferrosuite_testcase::{Prim, Statement, Test, VarRef};

use crate::{config, fixtures};

const DAY_MS: i64 = 86_400_000;
/// 400 days, 3 hours, 7 minutes and 11 seconds: every field of a date and a time moves.
const SHIFT_MS: i64 = 400 * DAY_MS + ((3 * 60 + 7) * 60 + 11) * 1000;

fn clocks(name: &str, desc: &str, args: Vec<VarRef>) -> Statement {
    Statement::method("env/Clocks", name, desc, None, args)
}

/// The tests, each reading one value (the last statement's).
fn tests() -> Vec<(&'static str, Test)> {
    vec![
        (
            "System.currentTimeMillis",
            Test::new(vec![clocks("millis", "()J", vec![])]),
        ),
        (
            "Instant.now",
            Test::new(vec![clocks("epochSecond", "()J", vec![])]),
        ),
        (
            "Clock.systemUTC",
            Test::new(vec![clocks("clockMillis", "()J", vec![])]),
        ),
        (
            "System::currentTimeMillis",
            Test::new(vec![clocks("viaSupplier", "()J", vec![])]),
        ),
        (
            "new Date() in a constructor",
            Test::new(vec![
                Statement::constructor("env/Clocks", "()V", vec![]),
                Statement::method("env/Clocks", "created", "()J", Some(VarRef(0)), vec![]),
            ]),
        ),
        (
            "Calendar.getInstance",
            Test::new(vec![clocks("year", "()I", vec![])]),
        ),
        (
            "LocalDate.now",
            Test::new(vec![clocks("dayOfMonth", "()I", vec![])]),
        ),
        (
            "a statement calling System.currentTimeMillis",
            Test::new(vec![Statement::method(
                "java/lang/System",
                "currentTimeMillis",
                "()J",
                None,
                vec![],
            )]),
        ),
        (
            "a statement calling new Date()",
            Test::new(vec![
                Statement::constructor("java/util/Date", "()V", vec![]),
                Statement::method("java/util/Date", "getTime", "()J", Some(VarRef(0)), vec![]),
            ]),
        ),
        (
            "a statement calling LocalDate.now",
            Test::new(vec![
                Statement::method(
                    "java/time/LocalDate",
                    "now",
                    "()Ljava/time/LocalDate;",
                    None,
                    vec![],
                ),
                Statement::method(
                    "java/time/LocalDate",
                    "toEpochDay",
                    "()J",
                    Some(VarRef(0)),
                    vec![],
                ),
            ]),
        ),
        (
            "twice",
            Test::new(vec![
                Statement::Primitive(Prim::Int(21)),
                clocks("twice", "(I)I", vec![VarRef(0)]),
            ]),
        ),
    ]
}

fn values(shift: i64) -> Vec<i64> {
    let mut c = config(vec![fixtures().clone()], &["env/Clocks"]);
    c.clock_shift_ms = shift;
    let mut host = Host::start(c).unwrap();
    let tests: Vec<Test> = tests().into_iter().map(|(_, t)| t).collect();
    host.run(&tests, true)
        .unwrap()
        .iter()
        .map(|r: &TestResult| {
            assert_eq!(r.status, Status::Completed, "{r:?}");
            match r.observations.last().and_then(|o| o.value.clone()) {
                Some(Observed::Integer(v)) => v,
                other => panic!("not an integer: {other:?}"),
            }
        })
        .collect()
}

#[test]
fn shifted_workers_read_a_shifted_clock_through_every_api() {
    let real = values(0);
    let shifted = values(SHIFT_MS);
    let again = values(0);
    let names: Vec<&str> = tests().into_iter().map(|(n, _)| n).collect();
    for (k, name) in names.iter().enumerate() {
        let (a, b, c) = (real[k], shifted[k], again[k]);
        // Each host takes a few seconds at most: the shifted value lies between the real ones
        // of the runs before and after it, moved by the shift (in the API's unit).
        let moved = |unit: i64, slack: i64| {
            let (lo, hi) = (a + SHIFT_MS / unit - slack, c + SHIFT_MS / unit + slack);
            assert!(lo <= b && b <= hi, "{name}: {a} / {b} / {c}");
        };
        match *name {
            "Instant.now" => moved(1000, 1),
            "Calendar.getInstance" => assert!(b == a + 1 || b == a + 2, "{name}: {a} -> {b}"),
            "LocalDate.now" => assert_ne!(a, b, "{name}: the day of the month moves"),
            "a statement calling LocalDate.now" => moved(DAY_MS, 1),
            "twice" => assert!(a == 42 && b == 42 && c == 42, "{name}"),
            _ => moved(1, 0),
        }
    }
}
