//! Mock and private-access statements in the worker: Mockito mocks of interfaces (public and
//! package-private) and abstract classes answer their stubs in order, the last one repeated,
//! and the calls each mock got come back with the result; private methods and fields are
//! reached, and private fields inspected when asked.

use ferrosuite_exec::{Host, Observed, Status};
use ferrosuite_testcase::statement::{JDouble, MockCalls, Name, Stub};
use ferrosuite_testcase::{Prim, Statement, Test, VarRef};

use crate::{config, fixtures};

fn mock_host() -> Host {
    let mut c = config(vec![fixtures().clone()], &["mocking/Meter"]);
    c.mock_jars = ferrosuite_testkit::mockito();
    Host::start(c).unwrap()
}

fn mock(class: &str, stubs: Vec<Stub>) -> Statement {
    Statement::Mock {
        class: class.into(),
        stubs,
    }
}

fn calls(statement: u32, calls: &[(&str, &str, u32)]) -> MockCalls {
    MockCalls {
        statement,
        calls: calls
            .iter()
            .map(|(n, d, c)| (Name::from(*n), Name::from(*d), *c))
            .collect(),
    }
}

fn level(meter: u32) -> Statement {
    Statement::method(
        "mocking/Meter",
        "level",
        "()Ljava/lang/String;",
        Some(VarRef(meter)),
        vec![],
    )
}

fn meter(sensor: u32) -> Statement {
    Statement::constructor("mocking/Meter", "(Lmocking/Sensor;)V", vec![VarRef(sensor)])
}

#[test]
fn stubs_answer_in_order_and_calls_are_counted() {
    let mut host = mock_host();
    let tests = vec![
        // Unstubbed: Mockito's defaults (0, 0: steady), two calls of read.
        Test::new(vec![mock("mocking/Sensor", vec![]), meter(0), level(1)]),
        // 5 then 9: rising; then 9 repeated: steady.
        Test::new(vec![
            Statement::Primitive(Prim::Int(5)),
            Statement::Primitive(Prim::Int(9)),
            mock(
                "mocking/Sensor",
                vec![Stub::new("read", "()I", vec![VarRef(0), VarRef(1)])],
            ),
            meter(2),
            level(3),
            level(3),
        ]),
        // Negative: reset() is called (a void stub).
        Test::new(vec![
            Statement::Primitive(Prim::Int(-4)),
            mock(
                "mocking/Sensor",
                vec![
                    Stub::new("read", "()I", vec![VarRef(0)]),
                    Stub::new("reset", "()V", vec![]),
                ],
            ),
            meter(1),
            level(2),
        ]),
    ];
    let rs = host.run(&tests, true).unwrap();
    let text = |r: &ferrosuite_exec::TestResult, i: usize| match &r.observations[i].value {
        Some(Observed::String { text, .. }) => text.clone(),
        other => panic!("{other:?}"),
    };
    assert_eq!(rs[0].status, Status::Completed, "{:?}", rs[0]);
    assert_eq!(text(&rs[0], 2), "steady");
    assert_eq!(rs[0].mock_calls, [calls(0, &[("read", "()I", 2)])]);
    // A mock is observed as its type, never inspected.
    assert_eq!(
        rs[0].observations[0].value,
        Some(Observed::Object {
            class: "mocking.Sensor".into()
        })
    );
    assert!(rs[0].observations[0].inspectors.is_empty());
    assert_eq!(rs[1].status, Status::Completed, "{:?}", rs[1]);
    assert_eq!(text(&rs[1], 4), "rising");
    assert_eq!(text(&rs[1], 5), "steady");
    assert_eq!(rs[1].mock_calls, [calls(2, &[("read", "()I", 4)])]);
    assert_eq!(text(&rs[2], 3), "broken");
    assert_eq!(
        rs[2].mock_calls,
        [calls(1, &[("read", "()I", 1), ("reset", "()V", 1)])]
    );
    // The stubs of test 2 say what the run did; those of test 1 (4 calls, 2 answers) do not.
    let Statement::Mock { stubs, .. } = &tests[2].statements[1] else {
        panic!()
    };
    assert!(rs[2].mock_calls[0].matches(stubs));
    let Statement::Mock { stubs, .. } = &tests[1].statements[2] else {
        panic!()
    };
    assert!(!rs[1].mock_calls[0].matches(stubs));
}

#[test]
fn abstract_classes_and_package_private_interfaces_are_mocked() {
    let mut host = mock_host();
    let tests = vec![
        // sum(Source): size() stubbed to 2, next() 4.5 then 7.0 → 11.5 > 10.
        Test::new(vec![
            Statement::Primitive(Prim::Int(2)),
            Statement::Primitive(Prim::Double(JDouble(4.5))),
            Statement::Primitive(Prim::Double(JDouble(7.0))),
            mock(
                "mocking/Source",
                vec![
                    Stub::new("next", "()D", vec![VarRef(1), VarRef(2)]),
                    Stub::new("size", "()I", vec![VarRef(0)]),
                ],
            ),
            Statement::method(
                "mocking/Meter",
                "sum",
                "(Lmocking/Source;)I",
                None,
                vec![VarRef(3)],
            ),
        ]),
        Test::new(vec![
            Statement::Primitive(Prim::Long(50)),
            mock(
                "mocking/Clock",
                vec![Stub::new("now", "()J", vec![VarRef(0)])],
            ),
            Statement::Primitive(Prim::Long(20)),
            Statement::method(
                "mocking/Meter",
                "elapsed",
                "(Lmocking/Clock;J)J",
                None,
                vec![VarRef(1), VarRef(2)],
            ),
        ]),
    ];
    let rs = host.run(&tests, true).unwrap();
    assert_eq!(rs[0].status, Status::Completed, "{:?}", rs[0]);
    assert_eq!(rs[0].observations[4].value, Some(Observed::Integer(1)));
    assert_eq!(
        rs[0].mock_calls,
        [calls(3, &[("next", "()D", 2), ("size", "()I", 3)])]
    );
    // Mockito 2 defines the mock of a package-private type in a class loader of its own, where
    // it cannot subclass it; Mockito 5 mocks it.
    match rs[1].first_exception() {
        None => assert_eq!(rs[1].observations[3].value, Some(Observed::Integer(30))),
        Some((at, t)) => {
            assert_eq!(at, 1);
            assert!(
                t.message.as_deref().unwrap_or("").contains("not public"),
                "{t:?}"
            );
        }
    }
}

#[test]
fn a_mock_without_mockito_fails_its_statement_not_the_worker() {
    let mut host = Host::start(config(vec![fixtures().clone()], &["mocking/Meter"])).unwrap();
    let t = Test::new(vec![mock("mocking/Sensor", vec![]), meter(0), level(1)]);
    let r = &host.run(&[t.clone(), t], false).unwrap()[1];
    let (at, thrown) = r.first_exception().unwrap();
    assert_eq!(at, 0);
    assert!(
        thrown.message.as_deref().unwrap_or("").contains("Mockito"),
        "{thrown:?}"
    );
}

#[test]
fn private_methods_and_fields_are_reached() {
    let mut host = mock_host();
    let private = |s: Statement| Statement::Private(Box::new(s));
    let t = Test::new(vec![
        mock("mocking/Sensor", vec![]),
        meter(0),
        Statement::Primitive(Prim::Int(4)),
        private(Statement::method(
            "mocking/Meter",
            "calibrate",
            "(I)V",
            Some(VarRef(1)),
            vec![VarRef(2)],
        )),
        private(Statement::FieldWrite {
            class: "mocking/Meter".into(),
            name: "readings".into(),
            descriptor: "I".into(),
            receiver: Some(VarRef(1)),
            value: VarRef(2),
        }),
        Statement::method("mocking/Meter", "ready", "()Z", Some(VarRef(1)), vec![]),
        private(Statement::FieldRead {
            class: "mocking/Meter".into(),
            name: "calibrated".into(),
            descriptor: "Z".into(),
            receiver: Some(VarRef(1)),
        }),
    ]);
    assert!(t.validate().is_ok());
    let r = &host.run(&[t], true).unwrap()[0];
    assert_eq!(r.status, Status::Completed, "{r:?}");
    assert_eq!(r.observations[5].value, Some(Observed::Boolean(true)));
    assert_eq!(r.observations[6].value, Some(Observed::Boolean(true)));
}

#[test]
fn objects_without_getters_are_inspected_through_private_fields_when_asked() {
    let t = Test::new(vec![mock("mocking/Sensor", vec![]), meter(0), level(1)]);
    let mut c = config(vec![fixtures().clone()], &["mocking/Meter"]);
    c.mock_jars = ferrosuite_testkit::mockito();
    let mut plain = Host::start(c.clone()).unwrap();
    let r = &plain.run(std::slice::from_ref(&t), true).unwrap()[0];
    assert!(r.observations[1].inspectors.is_empty(), "{r:?}");
    c.observe_private_fields = true;
    let mut host = Host::start(c).unwrap();
    let r = &host.run(&[t], true).unwrap()[0];
    assert_eq!(
        r.observations[1].inspectors,
        [
            ("#calibrated:Z".to_string(), Observed::Boolean(false)),
            ("#readings:I".to_string(), Observed::Integer(0)),
        ]
    );
    // After level(): two reads.
    assert!(
        r.observations[2]
            .receiver_inspectors
            .contains(&("#readings:I".to_string(), Observed::Integer(2))),
        "{r:?}"
    );
}

/// A mock class loader skips the constructor that gives a loader its unnamed module, and
/// HotSpot aborts when `Class.forName` meets it (the search never mocks class loaders for this
/// reason). The worker's death is one crashed test whose reason is the JVM's own, and the next
/// test runs in a new worker.
#[test]
fn a_jvm_that_aborts_is_a_crash_with_its_fatal_error() {
    let mut host = mock_host();
    let abort = Test::new(vec![
        mock("java/lang/ClassLoader", vec![]),
        Statement::Primitive(Prim::String("p.Missing".into())),
        Statement::Primitive(Prim::Boolean(true)),
        Statement::method(
            "java/lang/Class",
            "forName",
            "(Ljava/lang/String;ZLjava/lang/ClassLoader;)Ljava/lang/Class;",
            None,
            vec![VarRef(1), VarRef(2), VarRef(0)],
        ),
    ]);
    let after = Test::new(vec![mock("mocking/Sensor", vec![]), meter(0), level(1)]);
    let results = host.run(&[abort, after], true).unwrap();
    let Status::Crashed(why) = &results[0].status else {
        panic!("{:?}", results[0].status);
    };
    assert!(
        why.contains("JVM fatal error") && why.contains("unnamed module"),
        "{why}"
    );
    assert_eq!(results[1].status, Status::Completed, "{:?}", results[1]);
    let stats = host.stats();
    assert_eq!(stats.crashes, 1, "{stats:?}");
    assert_eq!(stats.first_crash.as_deref(), Some(why.as_str()));
}
