//! Parameterised types in emitted tests: values declared with the type arguments their
//! signatures give, raw types only where a use needs them (and then a `@SuppressWarnings` on
//! that test method alone). The class compiles with `-Xlint:rawtypes,unchecked -Werror`.

use ferrosuite_bytecode::classpath::ClassPath;
use ferrosuite_bytecode::descriptor::FieldType;
use ferrosuite_emit::{ClassPathTypes, Config, EmitTest, emit_class};
use ferrosuite_testcase::statement::Prim;
use ferrosuite_testcase::{Statement, Test, VarRef};

use crate::common::{fixtures, golden, junit5_compile, m, scratch};

fn new(class: &str) -> Statement {
    Statement::constructor(class, "()V", vec![])
}

fn string(s: &str) -> Statement {
    Statement::Primitive(Prim::String(s.into()))
}

fn test(statements: Vec<Statement>, expected: Option<(usize, &str)>) -> EmitTest {
    EmitTest {
        test: Test::new(statements),
        assertions: vec![],
        expected: expected.map(|(i, e)| (i, e.to_string())),
        raw_types: false,
        message: None,
    }
}

fn cases() -> Vec<EmitTest> {
    const LIST: &str = "java/util/ArrayList";
    vec![
        // A constructed generic class: its unbounded parameters become Object.
        test(
            vec![
                new(LIST),
                string("a"),
                m(LIST, "add", "(Ljava/lang/Object;)Z", Some(0), &[1]),
                m(LIST, "size", "()I", Some(0), &[]),
            ],
            None,
        ),
        // A result typed from the receiver's arguments (`Set<Object>`).
        test(
            vec![
                new("java/util/HashMap"),
                string("k"),
                m(
                    "java/util/HashMap",
                    "put",
                    "(Ljava/lang/Object;Ljava/lang/Object;)Ljava/lang/Object;",
                    Some(0),
                    &[1, 1],
                ),
                m(
                    "java/util/HashMap",
                    "keySet",
                    "()Ljava/util/Set;",
                    Some(0),
                    &[],
                ),
                m("java/util/Set", "size", "()I", Some(3), &[]),
            ],
            None,
        ),
        // `sort` needs a Comparable element type: the list stays raw, this method alone
        // suppresses the warnings.
        test(
            vec![
                new(LIST),
                m(
                    "java/util/Collections",
                    "sort",
                    "(Ljava/util/List;)V",
                    None,
                    &[0],
                ),
            ],
            None,
        ),
        // A method's variable from the argument: `List<String>`.
        test(
            vec![
                Statement::ArrayNew {
                    component: FieldType::Object("java/lang/String".into()),
                    length: 1,
                },
                string("x"),
                Statement::ArrayStore {
                    array: VarRef(0),
                    index: 0,
                    value: VarRef(1),
                },
                m(
                    "java/util/Arrays",
                    "asList",
                    "([Ljava/lang/Object;)Ljava/util/List;",
                    None,
                    &[0],
                ),
                m("java/util/List", "size", "()I", Some(3), &[]),
            ],
            None,
        ),
        // A free variable from the declaration (`List<Object>`), and a typed `null`.
        test(
            vec![
                m(
                    "java/util/Collections",
                    "emptyList",
                    "()Ljava/util/List;",
                    None,
                    &[],
                ),
                m("java/util/List", "isEmpty", "()Z", Some(0), &[]),
                Statement::Null {
                    ty: FieldType::Object("java/util/List".into()),
                },
                m(
                    "java/util/Collections",
                    "unmodifiableList",
                    "(Ljava/util/List;)Ljava/util/List;",
                    None,
                    &[2],
                ),
            ],
            Some((3, "java.lang.NullPointerException")),
        ),
        // A `String[]` for an `Object...`: the cast stays (an inexact varargs call warns).
        test(
            vec![
                Statement::ArrayNew {
                    component: FieldType::Object("java/lang/String".into()),
                    length: 1,
                },
                string("%s"),
                m(
                    "java/lang/String",
                    "format",
                    "(Ljava/lang/String;[Ljava/lang/Object;)Ljava/lang/String;",
                    None,
                    &[1, 0],
                ),
            ],
            None,
        ),
        // Deprecated API: this method alone suppresses `deprecation`.
        test(
            vec![
                Statement::Primitive(Prim::Char(' ' as u16)),
                m("java/lang/Character", "isSpace", "(C)Z", None, &[0]),
            ],
            None,
        ),
        // A list of objects where an `Iterable<? extends CharSequence>` is wanted: raw.
        test(
            vec![
                new(LIST),
                string(","),
                m(
                    "java/lang/String",
                    "join",
                    "(Ljava/lang/CharSequence;Ljava/lang/Iterable;)Ljava/lang/String;",
                    None,
                    &[1, 0],
                ),
            ],
            None,
        ),
    ]
}

#[test]
fn signatures_give_type_arguments_and_raw_types_stay_local() {
    let fx = fixtures().clone();
    let cp = ClassPath::parse(&format!("{}:jrt", fx.display())).unwrap();
    let types = ClassPathTypes::for_release(&cp, 8, None).unwrap();
    let config = Config {
        class_name: Some("GenericsTest".into()),
        ..Config::default()
    };
    let class = emit_class("examples/Stack", &cases(), &config, &types).unwrap();
    golden("GenericsTest.java", &class.source);
    let src = &class.source;
    assert!(
        src.contains("ArrayList<Object> arrayList = new ArrayList<Object>();"),
        "{src}"
    );
    assert!(src.contains("Set<Object> set = hashMap.keySet();"), "{src}");
    assert!(
        src.contains("List<String> list = Arrays.asList(stringArray);"),
        "{src}"
    );
    assert!(
        src.contains("List<Object> list = Collections.emptyList();"),
        "{src}"
    );
    // Two methods need raw types, one deprecation; no annotation on the class.
    assert_eq!(
        src.matches("@SuppressWarnings({\"rawtypes\", \"unchecked\"})")
            .count(),
        2,
        "{src}"
    );
    assert_eq!(
        src.matches("@SuppressWarnings(\"deprecation\")").count(),
        1,
        "{src}"
    );
    assert_eq!(src.matches("@SuppressWarnings").count(), 3, "{src}");
    assert!(!src.contains("@SuppressWarnings({\"rawtypes\", \"unchecked\", \"deprecation\"})"));
    compile(
        "emit-generics",
        &class,
        &["-Xlint:rawtypes,unchecked,deprecation", "-Werror"],
    );
}

/// Compiles an emitted class of the `examples` package against the fixtures and JUnit 5 with
/// javac's `flags`, in scratch directory `name`; panics with javac's errors and the source.
fn compile(name: &str, class: &ferrosuite_emit::EmittedClass, flags: &[&str]) {
    let dir = scratch(name);
    let s = dir.join("src");
    std::fs::create_dir_all(s.join("examples")).unwrap();
    std::fs::write(s.join(&class.path), &class.source).unwrap();
    let mut cpath = vec![fixtures().clone()];
    cpath.extend(junit5_compile());
    if let Err(e) = ferrosuite_testkit::javac_with(
        &s,
        std::slice::from_ref(&class.path),
        &cpath,
        &dir.join("classes"),
        flags,
    ) {
        panic!("javac {flags:?} failed:\n{e}\n{}", class.source);
    }
}

/// A call of a bridge method (`apply(Object)`, erased from `UnaryOperator<Tally>`) is written
/// for the method the bridge's code calls (`apply(Tally)`), not for another overload of the
/// same arity (`apply(String)`, declared first): the argument needs no cast and compiles.
#[test]
fn a_bridge_is_written_as_the_method_its_code_calls() {
    const TALLY: &str = "examples/Tally";
    let fx = fixtures().clone();
    let cp = ClassPath::parse(&format!("{}:jrt", fx.display())).unwrap();
    let types = ClassPathTypes::for_release(&cp, 8, None).unwrap();
    let config = Config {
        class_name: Some("TallyBridgeTest".into()),
        ..Config::default()
    };
    let bridge = "(Ljava/lang/Object;)Ljava/lang/Object;";
    let cases = vec![test(
        vec![
            new(TALLY),
            new(TALLY),
            m(TALLY, "apply", bridge, Some(0), &[1]),
            m(TALLY, "count", "()I", Some(0), &[]),
        ],
        None,
    )];
    let class = emit_class(TALLY, &cases, &config, &types).unwrap();
    let src = &class.source;
    assert!(src.contains("tally.apply(tally2);"), "{src}");
    assert!(!src.contains("(String)"), "{src}");
    compile("emit-bridge", &class, &[]);
}

/// Class literals are declared with their exact `Class` type (`int.class` is a
/// `Class<Integer>`), so that a bounded parameter (`Class<? extends Number>`, `Class<E>` with
/// `E extends Enum<E>`) takes them without a raw type; the class compiles with warnings as
/// errors.
#[test]
fn class_literals_are_declared_with_their_class_type() {
    const UNITS: &str = "examples/Units";
    let fx = fixtures().clone();
    let cp = ClassPath::parse(&format!("{}:jrt", fx.display())).unwrap();
    let types = ClassPathTypes::for_release(&cp, 8, None).unwrap();
    let config = Config {
        class_name: Some("UnitsLiteralTest".into()),
        ..Config::default()
    };
    let literal = |ty: FieldType| Statement::ClassLiteral { ty };
    let o = |s: &str| FieldType::Object(s.into());
    let parse = "(Ljava/lang/String;Ljava/lang/Class;)Ljava/lang/Object;";
    let cases = vec![
        test(
            vec![
                literal(FieldType::Int),
                string("12"),
                m(UNITS, "parse", parse, None, &[1, 0]),
                literal(FieldType::Array(Box::new(o("java/io/File")))),
                m(UNITS, "parse", parse, None, &[1, 3]),
            ],
            None,
        ),
        test(
            vec![
                literal(o("java/lang/Long")),
                m(UNITS, "wide", "(Ljava/lang/Class;)Z", None, &[0]),
            ],
            None,
        ),
        test(
            vec![
                literal(o("java/util/concurrent/TimeUnit")),
                m(
                    UNITS,
                    "first",
                    "(Ljava/lang/Class;)Ljava/lang/Enum;",
                    None,
                    &[0],
                ),
            ],
            None,
        ),
    ];
    let class = emit_class(UNITS, &cases, &config, &types).unwrap();
    let src = &class.source;
    for line in [
        "Class<Integer> class2 = int.class;",
        "Class<File[]> class3 = File[].class;",
        "Class<Long> class2 = Long.class;",
        "Class<TimeUnit> class2 = TimeUnit.class;",
    ] {
        assert!(src.contains(line), "{line}\n{src}");
    }
    compile(
        "emit-literals",
        &class,
        &["-Xlint:rawtypes,unchecked", "-Werror"],
    );
}
