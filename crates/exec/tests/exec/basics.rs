//! The host on the fixtures: values, exceptions and branches of the Stack, the same results
//! in fresh, reused and parallel workers, streams, inspectors and compared values.

use ferrosuite_bytecode::descriptor::FieldType;
use ferrosuite_exec::{Observed, Outcome, Status};
use ferrosuite_testcase::statement::{JDouble, JFloat};
use ferrosuite_testcase::{Prim, Statement, Test, VarRef};

use crate::fixture_host;

fn stack_test() -> Test {
    Test::new(vec![
        Statement::constructor("examples/Stack", "()V", vec![]),
        Statement::Primitive(Prim::Int(3)),
        Statement::method(
            "examples/Stack",
            "push",
            "(I)V",
            Some(VarRef(0)),
            vec![VarRef(1)],
        ),
        Statement::method("examples/Stack", "pop", "()I", Some(VarRef(0)), vec![]),
        Statement::method("examples/Stack", "pop", "()I", Some(VarRef(0)), vec![]),
    ])
}

#[test]
fn stack_runs_with_values_exceptions_and_branches() {
    let mut host = fixture_host(&["examples/Stack"]);
    let r = host.run(&[stack_test()], true).unwrap();
    let r = &r[0];
    assert_eq!(r.status, Status::Completed, "{r:?}");
    assert_eq!(r.executed, 5);
    assert_eq!(r.outcomes[3], Outcome::Normal);
    assert_eq!(r.observations[3].value, Some(Observed::Integer(3)));
    let (_, t) = r.first_exception().unwrap();
    assert_eq!(t.class, "java.util.EmptyStackException");
    assert!(!r.probes.branches.is_empty());
    eprintln!("{r:#?}");
}

#[test]
fn results_are_the_same_in_fresh_reused_and_parallel_workers() {
    let tests: Vec<Test> = (0..12)
        .map(|k| {
            let mut s = vec![
                Statement::constructor("examples/Stack", "()V", vec![]),
                Statement::Primitive(Prim::Int(k)),
            ];
            for _ in 0..(k % 6) {
                s.push(Statement::method(
                    "examples/Stack",
                    "push",
                    "(I)V",
                    Some(VarRef(0)),
                    vec![VarRef(1)],
                ));
            }
            s.push(Statement::method(
                "examples/Stack",
                "pop",
                "()I",
                Some(VarRef(0)),
                vec![],
            ));
            Test::new(s)
        })
        .chain(std::iter::once(Test::new(vec![Statement::method(
            "hostile/Counter",
            "next",
            "()I",
            None,
            vec![],
        )])))
        .collect();
    let strip = |rs: Vec<ferrosuite_exec::TestResult>| {
        rs.into_iter()
            .map(|r| r.without_timing())
            .collect::<Vec<_>>()
    };
    let mut reused = fixture_host(&["examples/Stack", "hostile/Counter"]);
    let first = strip(reused.run(&tests, true).unwrap());
    let second = strip(reused.run(&tests, true).unwrap());
    assert_eq!(first, second, "a reused worker gives other results");
    let mut fresh = fixture_host(&["examples/Stack", "hostile/Counter"]);
    assert_eq!(
        first,
        strip(fresh.run(&tests, true).unwrap()),
        "a fresh worker gives other results"
    );
    let mut c = crate::config(
        vec![crate::fixtures().clone()],
        &["examples/Stack", "hostile/Counter"],
    );
    c.workers = 2;
    let mut two = ferrosuite_exec::Host::start(c).unwrap();
    assert_eq!(
        first,
        strip(two.run(&tests, true).unwrap()),
        "two workers give other results"
    );
    // One test at a time gives what a batch gives.
    let singles: Vec<_> = tests
        .iter()
        .flat_map(|t| strip(reused.run(std::slice::from_ref(t), true).unwrap()))
        .collect();
    assert_eq!(first, singles);
    // And so do chunks handed over while the host runs, to one worker and to two.
    assert_eq!(first, strip(streamed(&mut reused, &tests, 4)), "streamed");
    assert_eq!(
        first,
        strip(streamed(&mut two, &tests, 3)),
        "streamed to two workers"
    );
}

/// Two workers fed one chunk at a time, the next only once the last one's results are back
/// (what a search does at the end of a generation): the worker with a chunk must not wait
/// behind the idle one waiting for the next chunk. (Whether the two meet at the lock is up to
/// the scheduler: the test exercises the pattern, it cannot force the interleaving.)
#[test]
fn a_stream_fed_one_chunk_at_a_time_runs_on_two_workers() {
    use std::sync::mpsc;
    use std::time::Duration;
    let mut c = crate::config(vec![crate::fixtures().clone()], &["examples/Stack"]);
    c.workers = 2;
    let mut host = ferrosuite_exec::Host::start(c).unwrap();
    let (to_host, chunks) = mpsc::channel();
    let (sink, results) = mpsc::channel::<(usize, Vec<ferrosuite_exec::TestResult>)>();
    std::thread::scope(|s| {
        s.spawn(move || {
            for k in 0..6 {
                to_host
                    .send((0..3).map(|_| std::sync::Arc::new(stack_test())).collect())
                    .unwrap();
                let (i, r) = results
                    .recv_timeout(Duration::from_secs(60))
                    .expect("the chunk's results within a minute");
                assert_eq!((i, r.len()), (k, 3));
            }
        });
        host.run_stream(chunks, &sink, false, None).unwrap();
    });
}

/// Runs `tests` with [`Host::run_stream`], in chunks of `size` sent by another thread with a
/// pause after each (so that the host waits for chunks as well as finding them queued), and
/// puts the results back in order.
fn streamed(
    host: &mut ferrosuite_exec::Host,
    tests: &[Test],
    size: usize,
) -> Vec<ferrosuite_exec::TestResult> {
    use std::sync::mpsc;
    let (to_host, chunks) = mpsc::channel();
    let (sink, results) = mpsc::channel();
    let by_chunk = std::thread::scope(|s| {
        s.spawn(move || {
            for c in tests.chunks(size) {
                to_host
                    .send(c.iter().cloned().map(std::sync::Arc::new).collect())
                    .unwrap();
                std::thread::sleep(std::time::Duration::from_millis(20));
            }
        });
        host.run_stream(chunks, &sink, true, None).unwrap();
        drop(sink);
        results.iter().collect::<std::collections::BTreeMap<_, _>>()
    });
    assert_eq!(
        by_chunk.keys().copied().collect::<Vec<_>>(),
        (0..tests.len().div_ceil(size)).collect::<Vec<_>>()
    );
    by_chunk.into_values().flatten().collect()
}

#[test]
fn a_getter_that_changes_the_object_is_not_an_inspector() {
    let mut host = fixture_host(&["examples/Ticket"]);
    let t = Test::new(vec![
        Statement::constructor("examples/Ticket", "()V", vec![]),
        Statement::method(
            "examples/Ticket",
            "getIssued",
            "()I",
            Some(VarRef(0)),
            vec![],
        ),
    ]);
    let rs = host.run(&[t.clone(), t], true).unwrap();
    let names = |r: &ferrosuite_exec::TestResult| -> Vec<String> {
        r.observations[0]
            .inspectors
            .iter()
            .map(|(n, _)| n.clone())
            .collect()
    };
    // The first inspection finds out (calling it twice gave two numbers) and drops it; the
    // test it disturbed is run again, so both results are what the test alone does.
    for r in &rs {
        assert_eq!(names(r), ["getIssued", "isFresh"], "{r:?}");
        assert_eq!(
            r.observations[0].inspectors,
            [
                ("getIssued".to_string(), Observed::Integer(0)),
                ("isFresh".to_string(), Observed::Boolean(true))
            ]
        );
        assert_eq!(r.observations[1].value, Some(Observed::Integer(0)));
    }
    assert_eq!(rs[0].without_timing(), rs[1].without_timing());
}

/// The values the code under test compared come back with the probe data: the operands of an
/// `int` comparison and of `String.equals`, including the ones the class computed itself.
#[test]
fn compared_values_come_back_with_the_probes() {
    let mut host = fixture_host(&["seeding/Secret"]);
    let t = Test::new(vec![
        Statement::string("guess"),
        Statement::method(
            "seeding/Secret",
            "open",
            "(Ljava/lang/String;)Z",
            None,
            vec![VarRef(0)],
        ),
        Statement::Primitive(Prim::Int(5)),
        Statement::method("seeding/Secret", "unlock", "(I)Z", None, vec![VarRef(2)]),
    ]);
    let r = &host.run(&[t], false).unwrap()[0];
    assert_eq!(r.status, Status::Completed, "{r:?}");
    let c = &r.probes.compared;
    for want in [
        Prim::String("wordssap".into()),
        Prim::String("guess".into()),
        Prim::Int(5),
        Prim::Int(7_000_032),
    ] {
        assert!(c.contains(&want), "{want:?} not in {c:?}");
    }
}

/// Operands of `long`, `double` and `float` comparisons come back (floats widened); a loop
/// fills the `int` buffer to its 32 values and no further; a string longer than 256 units and
/// one with a lone surrogate are left out; and a test that compares nothing, run next in the
/// same worker, gets nothing (the buffers are cleared between tests).
#[test]
fn compared_values_of_every_kind_and_their_limits() {
    let mut host = fixture_host(&["seeding/Operands"]);
    let op = "seeding/Operands";
    let call = |name: &str, desc: &str, arg: u32| {
        Statement::method(op, name, desc, None, vec![VarRef(arg)])
    };
    let numbers = Test::new(vec![
        Statement::Primitive(Prim::Long(5)),
        call("late", "(J)Z", 0),
        Statement::Primitive(Prim::Double(JDouble(0.25))),
        call("below", "(D)Z", 2),
        Statement::Primitive(Prim::Float(JFloat(0.75))),
        call("small", "(F)Z", 4),
    ]);
    let looping = Test::new(vec![
        Statement::Primitive(Prim::Int(100)),
        call("count", "(I)I", 0),
    ]);
    let strings = Test::new(vec![
        Statement::string("guess"),
        call("named", "(Ljava/lang/String;)Z", 0),
    ]);
    let quiet = Test::new(vec![Statement::method(op, "nothing", "()I", None, vec![])]);
    // Twice each way: fresh buffers whatever ran before.
    let tests = [
        numbers,
        looping,
        strings.clone(),
        quiet.clone(),
        strings,
        quiet,
    ];
    let rs = host.run(&tests, false).unwrap();
    for r in &rs {
        assert_eq!(r.status, Status::Completed, "{r:?}");
    }
    let c = &rs[0].probes.compared;
    for want in [
        Prim::Long(5),
        Prim::Long(1_700_000_000_124),
        Prim::Double(JDouble(0.25)),
        Prim::Double(JDouble(2f64.sqrt())),
        Prim::Double(JDouble(0.75)),
        Prim::Double(JDouble(0.5)),
    ] {
        assert!(c.contains(&want), "{want:?} not in {c:?}");
    }
    let ints: Vec<&Prim> = rs[1].probes.compared.iter().collect();
    assert_eq!(ints.len(), 32, "{ints:?}");
    assert_eq!(
        ints[..4],
        [
            &Prim::Int(0),
            &Prim::Int(100),
            &Prim::Int(1),
            &Prim::Int(100)
        ]
    );
    for r in [&rs[2], &rs[4]] {
        let c = &r.probes.compared;
        assert!(c.contains(&Prim::String("guess".into())), "{c:?}");
        assert!(c.contains(&Prim::String("known".into())), "{c:?}");
        assert!(
            c.iter().all(|v| match v {
                Prim::String(s) => s.len() <= 256 && !s.contains('\u{fffd}'),
                _ => true,
            }),
            "{c:?}"
        );
    }
    assert!(
        rs[3].probes.compared.is_empty(),
        "{:?}",
        rs[3].probes.compared
    );
    assert!(
        rs[5].probes.compared.is_empty(),
        "{:?}",
        rs[5].probes.compared
    );
}

/// A call that returns an object the test already held says which statement defined it: the
/// receiver (`append` returning the builder), else an argument (`requireNonNull(o)`); a new
/// object, a string or `null` names none.
#[test]
fn a_returned_object_the_test_held_is_named() {
    let mut host = fixture_host(&["examples/Stack"]);
    let sb = "java/lang/StringBuilder";
    let t = Test::new(vec![
        Statement::constructor(sb, "()V", vec![]),
        Statement::Primitive(Prim::Int(7)),
        Statement::method(
            sb,
            "append",
            "(I)Ljava/lang/StringBuilder;",
            Some(VarRef(0)),
            vec![VarRef(1)],
        ),
        Statement::method(
            "java/util/Objects",
            "requireNonNull",
            "(Ljava/lang/Object;)Ljava/lang/Object;",
            None,
            vec![VarRef(0)],
        ),
        Statement::constructor(sb, "(Ljava/lang/CharSequence;)V", vec![VarRef(0)]),
        Statement::method(
            "java/lang/StringBuilder",
            "toString",
            "()Ljava/lang/String;",
            Some(VarRef(0)),
            vec![],
        ),
        Statement::method(
            "java/util/Objects",
            "requireNonNull",
            "(Ljava/lang/Object;)Ljava/lang/Object;",
            None,
            vec![VarRef(5)],
        ),
    ]);
    let r = host.run(&[t], true).unwrap();
    let r = &r[0];
    assert_eq!(r.status, Status::Completed, "{r:?}");
    let same: Vec<Option<u32>> = r.observations.iter().map(|o| o.same).collect();
    assert_eq!(
        same,
        [None, None, Some(0), Some(0), None, None, None],
        "{r:?}"
    );
}

/// A class literal is the `Class` object of its type, primitive and array types included.
#[test]
fn class_literals_give_the_class_objects_of_their_types() {
    let mut host = fixture_host(&["examples/Stack"]);
    let name = |v: u32| {
        Statement::method(
            "java/lang/Class",
            "getName",
            "()Ljava/lang/String;",
            Some(VarRef(v)),
            vec![],
        )
    };
    let t = Test::new(vec![
        Statement::ClassLiteral { ty: FieldType::Int },
        Statement::ClassLiteral {
            ty: FieldType::Array(Box::new(FieldType::Object("java/io/File".into()))),
        },
        Statement::ClassLiteral {
            ty: FieldType::Object("examples/Stack".into()),
        },
        name(0),
        name(1),
        name(2),
    ]);
    let r = host.run(&[t], true).unwrap();
    let r = &r[0];
    assert_eq!(r.status, Status::Completed, "{r:?}");
    let names: Vec<Option<&Observed>> = r.observations[3..]
        .iter()
        .map(|o| o.value.as_ref())
        .collect();
    let text = |s: &str| Observed::String {
        text: s.into(),
        truncated: false,
    };
    assert_eq!(
        names,
        [
            Some(&text("int")),
            Some(&text("[Ljava.io.File;")),
            Some(&text("examples.Stack"))
        ],
        "{r:?}"
    );
}

/// A box returned through a method declared to give `Object` is observed with its box
/// (an assertion must name it); through a box type it is observed plainly.
#[test]
fn a_box_seen_through_object_is_observed_with_its_box() {
    let mut host = fixture_host(&["examples/Stack"]);
    let t = Test::new(vec![
        Statement::Primitive(Prim::Long(7)),
        Statement::method(
            "java/lang/Long",
            "valueOf",
            "(J)Ljava/lang/Long;",
            None,
            vec![VarRef(0)],
        ),
        Statement::method(
            "java/util/Objects",
            "requireNonNull",
            "(Ljava/lang/Object;)Ljava/lang/Object;",
            None,
            vec![VarRef(1)],
        ),
    ]);
    let r = host.run(&[t], true).unwrap();
    let r = &r[0];
    assert_eq!(r.status, Status::Completed, "{r:?}");
    assert_eq!(r.observations[1].value, Some(Observed::Integer(7)), "{r:?}");
    assert_eq!(
        r.observations[2].value,
        Some(Observed::Boxed {
            primitive: 'J',
            value: Box::new(Observed::Integer(7)),
        }),
        "{r:?}"
    );
}
