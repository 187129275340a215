//! Hand-made tests and observations that reach the corners of emission — escaping, extreme
//! values, clashing class names, casts, names after fields, exceptions from expressions that
//! are not statements — written for JUnit 5 and 4, compared with golden files, and compiled
//! with `javac` (not run: the observations are made up).

use std::path::PathBuf;

use ferrosuite_bytecode::classpath::ClassPath;
use ferrosuite_bytecode::descriptor::FieldType;
use ferrosuite_emit::{
    Assertion, Check, ClassPathTypes, Config, EmitTest, JUnit, Permissive, emit_class,
};
use ferrosuite_executor::Observed;
use ferrosuite_testcase::statement::{JDouble, JFloat, Prim};
use ferrosuite_testcase::{Statement, Test, VarRef};

use crate::common::{fixtures, golden, javac, junit4, junit5_compile, m, scratch};

const STACK: &str = "examples/Stack";

fn value(statement: usize, expected: Observed) -> Assertion {
    Assertion {
        statement,
        check: Check::Value,
        expected,
    }
}

fn string(text: &str) -> Observed {
    Observed::String {
        text: text.into(),
        truncated: false,
    }
}

fn cases() -> Vec<EmitTest> {
    let prim = |p: Prim| Statement::Primitive(p);
    vec![
        // Literals that need escapes, in place and asserted.
        EmitTest {
            test: Test::new(vec![
                prim(Prim::String(
                    "\"\\\n\r\t\u{0}\u{7f}\u{e9}\u{2028}\\u0041 */".into(),
                )),
                m(
                    "java/lang/String",
                    "trim",
                    "()Ljava/lang/String;",
                    Some(0),
                    &[],
                ),
                prim(Prim::Char(u16::from(b'\''))),
                prim(Prim::Char(u16::from(b'\\'))),
                m(
                    "java/lang/String",
                    "replace",
                    "(CC)Ljava/lang/String;",
                    Some(1),
                    &[2, 3],
                ),
                prim(Prim::Char(0xd800)),
                m("java/lang/Character", "isSurrogate", "(C)Z", None, &[5]),
            ]),
            assertions: vec![
                value(1, string("\"\\\n\r\t\u{0}\u{7f}\u{e9}\u{2028}\\u0041 */")),
                value(4, string("\"\\\n\r\t")),
                value(6, Observed::Boolean(true)),
            ],
            expected: None,
            raw_types: false,
            message: None,
        },
        // Extreme values of every primitive type, as arguments and as expected values.
        EmitTest {
            test: Test::new(vec![
                prim(Prim::Byte(i8::MIN)),
                m("java/lang/Byte", "toUnsignedInt", "(B)I", None, &[0]),
                prim(Prim::Short(i16::MIN)),
                m("java/lang/Short", "toUnsignedInt", "(S)I", None, &[2]),
                prim(Prim::Long(i64::MAX)),
                m("java/lang/Long", "reverse", "(J)J", None, &[4]),
                prim(Prim::Float(JFloat(f32::NEG_INFINITY))),
                m("java/lang/Math", "abs", "(F)F", None, &[6]),
                prim(Prim::Double(JDouble(f64::MIN_POSITIVE))),
                m("java/lang/Math", "ulp", "(D)D", None, &[8]),
                prim(Prim::Float(JFloat(1.0e-45))),
                m("java/lang/Float", "isFinite", "(F)Z", None, &[10]),
            ]),
            assertions: vec![
                value(1, Observed::Integer(128)),
                value(3, Observed::Integer(32768)),
                value(5, Observed::Integer(-2)),
                value(7, Observed::Floating(JDouble(f64::INFINITY))),
                value(9, Observed::Floating(JDouble(4.9e-324))),
                value(11, Observed::Boolean(true)),
            ],
            expected: None,
            raw_types: false,
            message: None,
        },
        // Two classes named `List`: both written in full. A value named after the field it
        // is written to. Receivers declared with another type than the member's class: cast.
        EmitTest {
            test: Test::new(vec![
                Statement::constructor("java/util/ArrayList", "()V", vec![]),
                m("java/util/List", "size", "()I", Some(0), &[]),
                Statement::constructor("java/awt/List", "()V", vec![]),
                m("java/awt/List", "getItemCount", "()I", Some(2), &[]),
                Statement::constructor(STACK, "()V", vec![]),
                Statement::ArrayNew {
                    component: FieldType::Int,
                    length: 5,
                },
                Statement::FieldWrite {
                    class: STACK.into(),
                    name: "values".into(),
                    descriptor: "[I".into(),
                    receiver: Some(VarRef(4)),
                    value: VarRef(5),
                },
                Statement::constructor(
                    "java/util/AbstractMap$SimpleEntry",
                    "(Ljava/lang/Object;Ljava/lang/Object;)V",
                    vec![VarRef(4), VarRef(0)],
                ),
                m(
                    "java/util/AbstractMap$SimpleEntry",
                    "getValue",
                    "()Ljava/lang/Object;",
                    Some(7),
                    &[],
                ),
                m("java/util/ArrayList", "isEmpty", "()Z", Some(8), &[]),
            ]),
            assertions: vec![
                value(1, Observed::Integer(0)),
                value(3, Observed::Integer(0)),
                value(9, Observed::Boolean(true)),
                Assertion {
                    statement: 7,
                    check: Check::Inspector("getKey".into()),
                    expected: Observed::Object {
                        class: "examples.Stack".into(),
                    },
                },
            ],
            expected: None,
            raw_types: false,
            message: None,
        },
        // An exception from a field read on null: not a statement expression, so the
        // lambda (or the try block) declares it.
        EmitTest {
            test: Test::new(vec![
                Statement::Null {
                    ty: FieldType::Object(STACK.into()),
                },
                Statement::FieldRead {
                    class: STACK.into(),
                    name: "size".into(),
                    descriptor: "I".into(),
                    receiver: Some(VarRef(0)),
                },
            ]),
            assertions: vec![],
            expected: Some((1, "java.lang.NullPointerException".into())),
            raw_types: false,
            message: None,
        },
        // A checked exception (JUnit 4 catches `Exception` and checks the type).
        EmitTest {
            test: Test::new(vec![
                Statement::Primitive(Prim::String("/nonexistent".into())),
                Statement::constructor(
                    "java/io/FileReader",
                    "(Ljava/lang/String;)V",
                    vec![VarRef(0)],
                ),
            ]),
            assertions: vec![],
            expected: Some((1, "java.io.FileNotFoundException".into())),
            raw_types: false,
            message: None,
        },
        // A bridge descriptor (the erased `compareTo(Object)` of `Comparable<Integer>`): the
        // argument is written for `compareTo(Integer)`, which javac can see.
        EmitTest {
            test: Test::new(vec![
                Statement::Primitive(Prim::Int(3)),
                m(
                    "java/lang/Integer",
                    "valueOf",
                    "(I)Ljava/lang/Integer;",
                    None,
                    &[0],
                ),
                Statement::Null {
                    ty: FieldType::Object("java/lang/Object".into()),
                },
                m(
                    "java/lang/Integer",
                    "compareTo",
                    "(Ljava/lang/Object;)I",
                    Some(1),
                    &[1],
                ),
                m(
                    "java/lang/Integer",
                    "compareTo",
                    "(Ljava/lang/Object;)I",
                    Some(1),
                    &[2],
                ),
            ]),
            assertions: vec![value(3, Observed::Integer(0))],
            expected: Some((4, "java.lang.NullPointerException".into())),
            raw_types: false,
            message: None,
        },
        // The same method and outcome again: the name is numbered.
        EmitTest {
            test: Test::new(vec![
                Statement::Null {
                    ty: FieldType::Object(STACK.into()),
                },
                Statement::FieldRead {
                    class: STACK.into(),
                    name: "size".into(),
                    descriptor: "I".into(),
                    receiver: Some(VarRef(0)),
                },
            ]),
            assertions: vec![],
            expected: Some((1, "java.lang.NullPointerException".into())),
            raw_types: false,
            message: None,
        },
    ]
}

#[test]
fn corner_cases_match_their_golden_files_and_compile() {
    let fx = fixtures().clone();
    let cp = ClassPath::parse(&format!("{}:jrt", fx.display())).unwrap();
    let types = ClassPathTypes::for_release(&cp, 8, None).unwrap();
    let cases = cases();
    for (junit, tag) in [(JUnit::Five, "junit5"), (JUnit::Four, "junit4")] {
        let config = Config {
            junit,
            class_name: Some("CornerCasesTest".into()),
            ..Config::default()
        };
        let class = emit_class(STACK, &cases, &config, &types).unwrap();
        golden(&format!("CornerCasesTest.{tag}.java"), &class.source);
        let dir = scratch(&format!("emit-golden-{tag}"));
        let src = dir.join("src");
        std::fs::create_dir_all(src.join("examples")).unwrap();
        std::fs::write(src.join(&class.path), &class.source).unwrap();
        let mut cpath = vec![fx.clone()];
        cpath.extend(match junit {
            JUnit::Five => junit5_compile(),
            JUnit::Four => junit4(),
        });
        if let Err(e) = javac(
            &src,
            std::slice::from_ref(&class.path),
            &cpath,
            &dir.join("classes"),
        ) {
            panic!("{tag}: javac failed:\n{e}\n{}", class.source);
        }
    }
}

#[test]
fn without_class_path_knowledge_the_source_is_still_valid() {
    // Permissive: no inspectors known, every class taken as accessible.
    let class = emit_class(STACK, &cases()[..1], &Config::default(), &Permissive).unwrap();
    assert!(
        class.source.contains(
            "boolean flag = Character.isSurrogate('\\ud800');\n        assertTrue(flag);"
        )
    );
    assert_eq!(class.path, PathBuf::from("examples/StackTest.java"));
    // A name Java cannot refer to is an error, not bad source.
    let e = emit_class("p/Outer$1", &[], &Config::default(), &Permissive).unwrap_err();
    assert!(e.to_string().contains("p/Outer$1"), "{e}");
    let bad = Config {
        class_name: Some("1Test".into()),
        ..Config::default()
    };
    assert!(emit_class(STACK, &[], &bad, &Permissive).is_err());
}
