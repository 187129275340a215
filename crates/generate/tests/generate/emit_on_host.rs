//! From execution to green JUnit: hand-built tests on the whole-suite paper's `Stack` and on
//! JDK classes run on the real host with observation on; their results become assertions
//! and expected exceptions; the emitted JUnit 5 and JUnit 4 classes match their golden files,
//! compile with `javac --release 8`, and pass under JUnit's own runners.

use std::path::PathBuf;
use std::process::Command;

use ferrosuite_bytecode::classpath::ClassPath;
use ferrosuite_bytecode::descriptor::FieldType;
use ferrosuite_emit::{ClassPathTypes, Config, EmitTest, JUnit, Limits, emit_class};
use ferrosuite_exec::{Host, HostConfig};
use ferrosuite_testcase::statement::{JDouble, Prim};
use ferrosuite_testcase::{Statement, Test, VarRef};

use crate::common::{
    fixtures, golden, java_jar, javac, join, junit4, junit5_compile, scratch, worker,
};

const STACK: &str = "examples/Stack";

fn m(class: &str, name: &str, desc: &str, recv: Option<u32>, args: &[u32]) -> Statement {
    Statement::method(
        class,
        name,
        desc,
        recv.map(VarRef),
        args.iter().map(|a| VarRef(*a)).collect(),
    )
}

fn p(x: Prim) -> Statement {
    Statement::Primitive(x)
}

fn s(text: &str) -> Statement {
    p(Prim::String(text.into()))
}

/// The tests: each exercises a part of emission (see the comments).
fn tests() -> Vec<Test> {
    let object = FieldType::Object("java/lang/Object".into());
    vec![
        // Values asserted, a constant written in place.
        Test::new(vec![
            Statement::constructor(STACK, "()V", vec![]),
            p(Prim::Int(3)),
            m(STACK, "push", "(I)V", Some(0), &[1]),
            m(STACK, "pop", "()I", Some(0), &[]),
        ]),
        // An expected exception.
        Test::new(vec![
            Statement::constructor(STACK, "()V", vec![]),
            m(STACK, "pop", "()I", Some(0), &[]),
        ]),
        // Escaping: quotes, backslashes, control characters, non-ASCII; inspectors.
        Test::new(vec![
            s("tab\t\"quote\" back\\slash \u{e9}\u{2603} \u{1F600}"),
            Statement::constructor(
                "java/lang/StringBuilder",
                "(Ljava/lang/String;)V",
                vec![VarRef(0)],
            ),
            p(Prim::Char(u16::from(b'\n'))),
            m(
                "java/lang/StringBuilder",
                "append",
                "(C)Ljava/lang/StringBuilder;",
                Some(1),
                &[2],
            ),
            m(
                "java/lang/StringBuilder",
                "toString",
                "()Ljava/lang/String;",
                Some(1),
                &[],
            ),
        ]),
        // An unchecked exception from the JDK.
        Test::new(vec![
            s("x1"),
            m(
                "java/lang/Integer",
                "parseInt",
                "(Ljava/lang/String;)I",
                None,
                &[0],
            ),
        ]),
        // Extreme and special values.
        Test::new(vec![
            p(Prim::Long(i64::MIN)),
            p(Prim::Long(-1)),
            m("java/lang/Math", "max", "(JJ)J", None, &[0, 1]),
            p(Prim::Int(i32::MIN)),
            m("java/lang/Math", "abs", "(I)I", None, &[3]),
            p(Prim::Double(JDouble(f64::NAN))),
            m("java/lang/Double", "isNaN", "(D)Z", None, &[5]),
            p(Prim::Int(0x7f80_0000)),
            m("java/lang/Float", "intBitsToFloat", "(I)F", None, &[7]),
            p(Prim::Double(JDouble(-0.0))),
            p(Prim::Double(JDouble(5e-324))),
            m("java/lang/Math", "min", "(DD)D", None, &[9, 10]),
        ]),
        // Enums.
        Test::new(vec![
            s("SECONDS"),
            m(
                "java/util/concurrent/TimeUnit",
                "valueOf",
                "(Ljava/lang/String;)Ljava/util/concurrent/TimeUnit;",
                None,
                &[0],
            ),
            p(Prim::Long(2)),
            m(
                "java/util/concurrent/TimeUnit",
                "toMillis",
                "(J)J",
                Some(1),
                &[2],
            ),
        ]),
        // A checked exception (JUnit 4 cannot `catch` it directly).
        Test::new(vec![
            s("/nonexistent/ferrosuite/input"),
            Statement::constructor(
                "java/io/FileInputStream",
                "(Ljava/lang/String;)V",
                vec![VarRef(0)],
            ),
        ]),
        // A null argument that must pick the executed overload (`valueOf(Object)`, not
        // `valueOf(char[])`).
        Test::new(vec![
            Statement::Null { ty: object.clone() },
            m(
                "java/lang/String",
                "valueOf",
                "(Ljava/lang/Object;)Ljava/lang/String;",
                None,
                &[0],
            ),
        ]),
        // Arrays: creation, a store, an array result.
        Test::new(vec![
            Statement::ArrayNew {
                component: FieldType::Int,
                length: 3,
            },
            p(Prim::Int(7)),
            Statement::ArrayStore {
                array: VarRef(0),
                index: 1,
                value: VarRef(1),
            },
            m(
                "java/util/Arrays",
                "toString",
                "([I)Ljava/lang/String;",
                None,
                &[0],
            ),
            p(Prim::Int(2)),
            m("java/util/Arrays", "copyOf", "([II)[I", None, &[0, 4]),
        ]),
        // Array contents: a String[] with an empty element, a char[] with a control
        // character, a double[] with NaN and zeros, a boolean[].
        Test::new(vec![
            s("a,,b"),
            s(","),
            m(
                "java/lang/String",
                "split",
                "(Ljava/lang/String;)[Ljava/lang/String;",
                Some(0),
                &[1],
            ),
            s("hi\n"),
            m("java/lang/String", "toCharArray", "()[C", Some(3), &[]),
            Statement::ArrayNew {
                component: FieldType::Double,
                length: 2,
            },
            p(Prim::Double(JDouble(f64::NAN))),
            Statement::ArrayStore {
                array: VarRef(5),
                index: 0,
                value: VarRef(6),
            },
            p(Prim::Int(3)),
            m("java/util/Arrays", "copyOf", "([DI)[D", None, &[5, 8]),
            Statement::ArrayNew {
                component: FieldType::Boolean,
                length: 1,
            },
            m("java/util/Arrays", "copyOf", "([ZI)[Z", None, &[10, 8]),
        ]),
        // A nested class, an Object-typed result seen as a string, a static field, chars,
        // bytes and shorts.
        Test::new(vec![
            s("k"),
            s("v"),
            Statement::constructor(
                "java/util/AbstractMap$SimpleEntry",
                "(Ljava/lang/Object;Ljava/lang/Object;)V",
                vec![VarRef(0), VarRef(1)],
            ),
            m(
                "java/util/AbstractMap$SimpleEntry",
                "getValue",
                "()Ljava/lang/Object;",
                Some(2),
                &[],
            ),
            Statement::FieldRead {
                class: "java/lang/Integer".into(),
                name: "MAX_VALUE".into(),
                descriptor: "I".into(),
                receiver: None,
            },
            p(Prim::Char(u16::from(b'a'))),
            m("java/lang/Character", "toUpperCase", "(C)C", None, &[5]),
            s("-7"),
            m(
                "java/lang/Byte",
                "parseByte",
                "(Ljava/lang/String;)B",
                None,
                &[7],
            ),
            p(Prim::Short(1)),
            m("java/lang/Short", "reverseBytes", "(S)S", None, &[9]),
        ]),
    ]
}

#[test]
fn executed_tests_become_green_junit_5_and_4_classes() {
    let Some(worker) = worker() else { return };
    let fx = fixtures().clone();
    let mut host = Host::start(HostConfig {
        classpath: vec![fx.clone()],
        instrument: vec![STACK.into()],
        worker: Some(worker),
        ..HostConfig::default()
    })
    .unwrap();
    let tests = tests();
    for t in &tests {
        t.validate().unwrap();
    }
    let results = host.run(&tests, true).unwrap();
    let limits = Limits::default();
    let emit: Vec<EmitTest> = tests
        .iter()
        .zip(&results)
        .enumerate()
        .map(|(k, (t, r))| {
            EmitTest::from_result(t, r, &limits)
                .unwrap_or_else(|| panic!("test {k} cannot be emitted: {r:?}"))
        })
        .collect();
    let cp = ClassPath::parse(&format!("{}:jrt", fx.display())).unwrap();
    let types = ClassPathTypes::for_release(&cp, 8, None).unwrap();
    for (junit, tag) in [(JUnit::Five, "junit5"), (JUnit::Four, "junit4")] {
        let config = Config {
            junit,
            ..Config::default()
        };
        let class = emit_class(STACK, &emit, &config, &types).unwrap();
        assert_eq!(class.path, PathBuf::from("examples/StackTest.java"));
        golden(&format!("StackTest.{tag}.java"), &class.source);
        let dir = scratch(&format!("emit-e2e-{tag}"));
        let src = dir.join("src");
        std::fs::create_dir_all(src.join("examples")).unwrap();
        std::fs::write(src.join(&class.path), &class.source).unwrap();
        let out = dir.join("classes");
        let mut cp = vec![fx.clone()];
        cp.extend(match junit {
            JUnit::Five => junit5_compile(),
            JUnit::Four => junit4(),
        });
        if let Err(e) = javac(&src, std::slice::from_ref(&class.path), &cp, &out) {
            panic!("{tag}: javac failed:\n{e}\n{}", class.source);
        }
        let run = match junit {
            JUnit::Five => Command::new("java")
                .arg("-jar")
                .arg(java_jar("junit-platform-console-standalone.jar"))
                .args(["--disable-banner", "--details=tree", "--fail-if-no-tests"])
                .arg("-cp")
                .arg(join(&[out.clone(), fx.clone()]))
                .args(["--select-class", "examples.StackTest"])
                .output()
                .unwrap(),
            JUnit::Four => {
                let mut cp = vec![out.clone(), fx.clone()];
                cp.extend(junit4());
                Command::new("java")
                    .arg("-cp")
                    .arg(join(&cp))
                    .args(["org.junit.runner.JUnitCore", "examples.StackTest"])
                    .output()
                    .unwrap()
            }
        };
        let report = format!(
            "{}{}",
            String::from_utf8_lossy(&run.stdout),
            String::from_utf8_lossy(&run.stderr)
        );
        assert!(
            run.status.success(),
            "{tag}: tests failed:\n{report}\n{}",
            class.source
        );
        // Every test ran.
        let n = class.test_names.len();
        assert_eq!(n, tests.len());
        match junit {
            JUnit::Five => assert!(
                report.contains(&format!("{n} tests successful")),
                "{report}"
            ),
            JUnit::Four => assert!(report.contains(&format!("OK ({n} tests)")), "{report}"),
        }
    }
}
