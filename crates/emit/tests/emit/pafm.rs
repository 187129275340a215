//! Mocks and private access in emitted tests: `mock(T.class, UNSTUBBED)` with one stubbing
//! line per stub (answers typed as the method returns them, matchers cast where an overload
//! of the same arity exists), the nested `PrivateAccess` class for private members, and a
//! class-level `assertThrows` that keeps an assumption failure inside an expected exception a
//! skip. JUnit 5 and 4 classes compile with every lint but `path` (`-Xlint:all,-path
//! -Werror`; Debian's Mockito jar names a missing jar in its manifest) against Debian's
//! Mockito 2.23.

use ferrosuite_bytecode::classpath::ClassPath;
use ferrosuite_bytecode::descriptor::FieldType;
use ferrosuite_emit::{ClassPathTypes, Config, EmitTest, JUnit, emit_class};
use ferrosuite_testcase::statement::{JDouble, Prim, Stub};
use ferrosuite_testcase::{Statement, Test, VarRef};

use crate::common::{fixtures, golden, junit5_compile, m, scratch};

fn test(statements: Vec<Statement>, expected: Option<(usize, &str)>) -> EmitTest {
    EmitTest {
        test: Test::new(statements),
        assertions: vec![],
        expected: expected.map(|(i, e)| (i, e.to_string())),
        raw_types: false,
        message: None,
    }
}

fn mock(class: &str, stubs: Vec<Stub>) -> Statement {
    Statement::Mock {
        class: class.into(),
        stubs,
    }
}

fn private(s: Statement) -> Statement {
    Statement::Private(Box::new(s))
}

const METER: &str = "mocking/Meter";

fn cases() -> Vec<EmitTest> {
    let meter = || Statement::constructor(METER, "(Lmocking/Sensor;)V", vec![VarRef(0)]);
    vec![
        // Answers in order (inlined constants), a void method stubbed, a null answer typed.
        test(
            vec![
                Statement::Primitive(Prim::Int(-4)),
                Statement::Primitive(Prim::Int(7)),
                Statement::Null {
                    ty: FieldType::Object("java/lang/String".into()),
                },
                mock(
                    "mocking/Sensor",
                    vec![
                        Stub::new("name", "()Ljava/lang/String;", vec![VarRef(2)]),
                        Stub::new("read", "()I", vec![VarRef(0), VarRef(1)]),
                        Stub::new("reset", "()V", vec![]),
                    ],
                ),
                Statement::constructor(METER, "(Lmocking/Sensor;)V", vec![VarRef(3)]),
                m(METER, "level", "()Ljava/lang/String;", Some(4), &[]),
            ],
            None,
        ),
        // An abstract class mocked; doubles boxed as Double.
        test(
            vec![
                Statement::Primitive(Prim::Double(JDouble(2.5))),
                Statement::Primitive(Prim::Int(2)),
                mock(
                    "mocking/Source",
                    vec![
                        Stub::new("next", "()D", vec![VarRef(0)]),
                        Stub::new("size", "()I", vec![VarRef(1)]),
                    ],
                ),
                m(METER, "sum", "(Lmocking/Source;)I", None, &[2]),
            ],
            None,
        ),
        // Private state: a private method called, private fields written and read.
        test(
            vec![
                mock("mocking/Sensor", vec![]),
                meter(),
                Statement::Primitive(Prim::Int(3)),
                private(m(METER, "calibrate", "(I)V", Some(1), &[2])),
                private(Statement::FieldWrite {
                    class: METER.into(),
                    name: "readings".into(),
                    descriptor: "I".into(),
                    receiver: Some(VarRef(1)),
                    value: VarRef(2),
                }),
                m(METER, "ready", "()Z", Some(1), &[]),
                private(Statement::FieldRead {
                    class: METER.into(),
                    name: "calibrated".into(),
                    descriptor: "Z".into(),
                    receiver: Some(VarRef(1)),
                }),
            ],
            None,
        ),
        // An expected exception from a call on a mock: the class's own assertThrows.
        test(
            vec![
                Statement::Null {
                    ty: FieldType::Object("java/lang/String".into()),
                },
                mock(
                    "mocking/Sensor",
                    vec![Stub::new("name", "()Ljava/lang/String;", vec![VarRef(0)])],
                ),
                Statement::constructor(METER, "(Lmocking/Sensor;)V", vec![VarRef(1)]),
                Statement::Null {
                    ty: FieldType::Object("mocking/Source".into()),
                },
                m(METER, "sum", "(Lmocking/Source;)I", None, &[3]),
            ],
            Some((4, "java.lang.NullPointerException")),
        ),
        // An expected RuntimeException from a call that reaches a mock: JUnit 4's catch of it
        // rethrows an assumption failure instead of swallowing it.
        test(
            vec![
                mock("mocking/Sensor", vec![]),
                meter(),
                m(METER, "level", "()Ljava/lang/String;", Some(1), &[]),
            ],
            Some((2, "java.lang.RuntimeException")),
        ),
    ]
}

#[test]
fn mocks_and_private_access_are_written_readably_and_compile_lint_free() {
    let fx = fixtures().clone();
    let cp = ClassPath::parse(&format!("{}:jrt", fx.display())).unwrap();
    let types = ClassPathTypes::for_release(&cp, 8, None).unwrap();
    for (junit, file) in [
        (JUnit::Five, "PafmTest.junit5.java"),
        (JUnit::Four, "PafmTest.junit4.java"),
    ] {
        let config = Config {
            class_name: Some("PafmTest".into()),
            junit,
            ..Config::default()
        };
        let class = emit_class(METER, &cases(), &config, &types).unwrap();
        golden(file, &class.source);
        let src = &class.source;
        assert!(
            src.contains("Sensor sensor = mock(Sensor.class, UNSTUBBED);"),
            "{src}"
        );
        assert!(
            src.contains("doReturn((String) null).when(sensor).name();"),
            "{src}"
        );
        assert!(
            src.contains("doReturn(-4, 7).when(sensor).read();"),
            "{src}"
        );
        assert!(src.contains("doNothing().when(sensor).reset();"), "{src}");
        assert!(src.contains("doReturn(2.5).when(source).next();"), "{src}");
        assert!(
            src.contains(
                "PrivateAccess.call(Meter.class, meter, \"calibrate\", new Class<?>[] {int.class}, new Object[] {i});"
            ) || src.contains("PrivateAccess.call(Meter.class, meter, \"calibrate\""),
            "{src}"
        );
        assert!(
            src.contains("PrivateAccess.set(Meter.class, meter, \"readings\", "),
            "{src}"
        );
        assert!(
            src.contains("PrivateAccess.get(Meter.class, meter, \"calibrated\")"),
            "{src}"
        );
        assert_eq!(
            src.contains("private static <T extends Throwable> T assertThrows("),
            junit == JUnit::Five,
            "{src}"
        );
        // JUnit 4: the catch of RuntimeException lets a skipped test stay skipped.
        assert_eq!(
            src.contains("if (e instanceof AssumptionViolatedException) {"),
            junit == JUnit::Four,
            "{src}"
        );
        let dir = scratch(&format!("emit-pafm-{junit:?}"));
        let s = dir.join("src");
        std::fs::create_dir_all(s.join("mocking")).unwrap();
        std::fs::write(s.join(&class.path), src).unwrap();
        let mut cpath = vec![fx.clone()];
        cpath.extend(match junit {
            JUnit::Five => junit5_compile(),
            JUnit::Four => ferrosuite_testkit::junit4(),
        });
        cpath.extend(ferrosuite_testkit::mockito());
        if let Err(e) = ferrosuite_testkit::javac_with(
            &s,
            std::slice::from_ref(&class.path),
            &cpath,
            &dir.join("classes"),
            &["-Xlint:all,-path", "-Werror"],
        ) {
            panic!("javac -Xlint:all,-path -Werror failed:\n{e}\n{src}");
        }
    }
}
