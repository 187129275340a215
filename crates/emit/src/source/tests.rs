//! Unit tests of source emission: inaccessible assertions, class names and assertion lines.

use super::checks::check_line;
use super::imports::{TypeNames, top_level};
use super::*;
use crate::assertions::Check;
use ferrosuite_testcase::{Statement, VarRef};

#[test]
fn an_assertion_on_a_private_enum_goes_and_the_test_stays() {
    struct Hidden;
    impl TypeInfo for Hidden {
        fn accessible(&self, class: &str, _package: &str) -> bool {
            !class.contains("$Private")
        }
    }
    let enum_of = |class: &str| Assertion {
        statement: 0,
        check: Check::Inspector("getComparator".into()),
        expected: Observed::Enum {
            class: class.into(),
            name: "INSTANCE".into(),
        },
    };
    let mut t = EmitTest {
        test: Test::new(Vec::new()),
        assertions: vec![
            enum_of("p.Range$PrivateComparator"),
            enum_of("p.Range$Open"),
            Assertion {
                statement: 0,
                check: Check::Value,
                expected: Observed::Boolean(true),
            },
        ],
        expected: None,
        raw_types: false,
        message: None,
    };
    assert_eq!(t.drop_inaccessible_assertions(&Hidden, "p"), 1);
    assert_eq!(t.assertions.len(), 2);
    assert!(t.inaccessible_class(&Hidden, "p").is_none());
    assert_eq!(t.drop_inaccessible_assertions(&Hidden, "p"), 0);
}

#[test]
fn nested_and_top_level_names() {
    assert_eq!(
        top_level("java/util/Map$Entry"),
        ("java/util/Map", "$Entry")
    );
    assert_eq!(top_level("Foo"), ("Foo", ""));
    let used: BTreeSet<String> = [
        "p/Stack",
        "java/lang/String",
        "q/String",
        "java/util/Map$Entry",
        "a/List",
        "b/List",
        "org/junit/jupiter/api/Test",
        "p/Test",
    ]
    .iter()
    .map(|s| (*s).to_string())
    .collect();
    let n = TypeNames::with(&used, "p", "StackTest", &|_| false);
    assert_eq!(n.name("p/Stack"), "Stack");
    assert_eq!(n.name("java/lang/String"), "String");
    assert_eq!(n.name("q/String"), "q.String");
    assert_eq!(n.name("java/util/Map$Entry"), "Map.Entry");
    assert_eq!(n.name("a/List"), "a.List");
    // The CUT's package has a `Test`: JUnit's is written in full.
    assert_eq!(n.name("p/Test"), "Test");
    assert_eq!(
        n.name("org/junit/jupiter/api/Test"),
        "org.junit.jupiter.api.Test"
    );
    assert_eq!(n.name("not/Collected"), "not.Collected");
    let imports: Vec<&String> = n.imports().collect();
    assert_eq!(imports, ["java.util.Map"]);
    // Package roots of names written in full are not variable names.
    assert!(n.reserved.contains("q") && n.reserved.contains("org"));
}

#[test]
fn check_lines_compile_for_their_static_types() {
    let o = |s: &str| FieldType::Object(s.into());
    let none = |_: &str| None::<String>;
    let line = |obs: Observed, ty: FieldType, four: bool| {
        check_line(&obs, "v", &ty, four, none).map(|x| x.1)
    };
    assert_eq!(
        line(Observed::Integer(3), FieldType::Int, false).unwrap(),
        "assertEquals(3, v);"
    );
    assert_eq!(
        line(Observed::Integer(3), FieldType::Long, true).unwrap(),
        "assertEquals(3L, v);"
    );
    assert_eq!(
        line(Observed::Integer(3), o("java/lang/Integer"), true).unwrap(),
        "assertEquals(3, (int) v);"
    );
    assert_eq!(
        line(Observed::Integer(-3), FieldType::Byte, false).unwrap(),
        "assertEquals((byte) -3, v);"
    );
    assert_eq!(
        line(Observed::Integer(-3), FieldType::Byte, true).unwrap(),
        "assertEquals(-3, v);"
    );
    // A number seen through Object: its box class is unknown, so no assertion.
    assert_eq!(
        line(Observed::Integer(3), o("java/lang/Object"), false),
        None
    );
    // With the box the worker saw, cast to it (which checks the class as well).
    let boxed = |primitive: char, v: Observed| Observed::Boxed {
        primitive,
        value: Box::new(v),
    };
    assert_eq!(
        line(
            boxed('I', Observed::Integer(3)),
            o("java/lang/Object"),
            false
        )
        .unwrap(),
        "assertEquals(3, (int) (Integer) v);"
    );
    assert_eq!(
        line(
            boxed('J', Observed::Integer(3)),
            o("java/lang/Number"),
            true
        )
        .unwrap(),
        "assertEquals(3L, (long) (Long) v);"
    );
    assert_eq!(
        line(
            boxed('Z', Observed::Boolean(false)),
            o("java/lang/Object"),
            false
        )
        .unwrap(),
        "assertFalse((boolean) (Boolean) v);"
    );
    assert_eq!(
        line(
            boxed('I', Observed::Integer(3)),
            o("java/lang/Integer"),
            false
        )
        .unwrap(),
        "assertEquals(3, (int) v);"
    );
    assert_eq!(
        line(Observed::Boolean(true), o("java/lang/Boolean"), false).unwrap(),
        "assertTrue((boolean) v);"
    );
    assert_eq!(
        line(Observed::Boolean(true), o("java/lang/Object"), false),
        None
    );
    assert_eq!(
        line(Observed::Null, o("java/lang/Object"), false).unwrap(),
        "assertNull(v);"
    );
    assert_eq!(line(Observed::Null, FieldType::Int, false), None);
    assert_eq!(
        line(
            Observed::Floating(ferrosuite_testcase::statement::JDouble(f64::NAN)),
            FieldType::Double,
            false
        )
        .unwrap(),
        "assertEquals(Double.NaN, v, 0.0);"
    );
    assert_eq!(
        line(
            Observed::Floating(ferrosuite_testcase::statement::JDouble(0.5)),
            FieldType::Float,
            false
        )
        .unwrap(),
        "assertEquals(0.5F, v, 0.0F);"
    );
    assert_eq!(
        line(
            Observed::String {
                text: "a\"b\n".into(),
                truncated: false
            },
            o("java/lang/CharSequence"),
            false
        )
        .unwrap(),
        "assertEquals(\"a\\\"b\\n\", v);"
    );
    let ints = |elements: Option<Vec<Observed>>| Observed::Array {
        class: "[I".into(),
        length: 2,
        elements,
    };
    let int_array = || FieldType::Array(Box::new(FieldType::Int));
    assert_eq!(
        line(ints(None), int_array(), false).unwrap(),
        "assertEquals(2, v.length);"
    );
    let two = Some(vec![
        Observed::Integer(-1),
        Observed::Integer(i64::from(i32::MIN)),
    ]);
    assert_eq!(
        line(ints(two.clone()), int_array(), false).unwrap(),
        "assertArrayEquals(new int[] {-1, Integer.MIN_VALUE}, v);"
    );
    assert_eq!(line(ints(two), o("java/lang/Object"), false), None);
    let doubles = Observed::Array {
        class: "[D".into(),
        length: 2,
        elements: Some(vec![
            Observed::Floating(ferrosuite_testcase::statement::JDouble(f64::NAN)),
            Observed::Floating(ferrosuite_testcase::statement::JDouble(-0.0)),
        ]),
    };
    let double_array = FieldType::Array(Box::new(FieldType::Double));
    assert_eq!(
        line(doubles.clone(), double_array.clone(), true).unwrap(),
        "assertArrayEquals(new double[] {Double.NaN, -0.0}, v, 0.0);"
    );
    assert_eq!(
        line(doubles, double_array, false).unwrap(),
        "assertArrayEquals(new double[] {Double.NaN, -0.0}, v);"
    );
    // A cut string cannot be written back: the length is asserted instead.
    let strings = |truncated| Observed::Array {
        class: "[Ljava.lang.String;".into(),
        length: 2,
        elements: Some(vec![
            Observed::Null,
            Observed::String {
                text: "x\"".into(),
                truncated,
            },
        ]),
    };
    let string_array = || FieldType::Array(Box::new(o("java/lang/String")));
    assert_eq!(
        line(strings(false), string_array(), false).unwrap(),
        "assertArrayEquals(new String[] {null, \"x\\\"\"}, v);"
    );
    assert_eq!(
        line(strings(true), string_array(), false).unwrap(),
        "assertEquals(2, v.length);"
    );
    assert_eq!(
        line(
            Observed::Enum {
                class: "p.Color".into(),
                name: "RED".into()
            },
            o("p/Color"),
            false
        ),
        None
    );
    assert_eq!(
        check_line(
            &Observed::Enum {
                class: "p.Color".into(),
                name: "RED".into()
            },
            "v",
            &o("p/Color"),
            false,
            |_| Some("Color".into())
        )
        .unwrap()
        .1,
        "assertEquals(Color.RED, v);"
    );
}

#[test]
fn a_value_used_before_it_is_defined_is_an_error_not_a_panic() {
    let t = EmitTest {
        test: Test::new(vec![
            Statement::constructor("p/A", "()V", vec![]),
            Statement::method(
                "p/A",
                "m",
                "(Ljava/lang/Object;)V",
                Some(VarRef(0)),
                vec![VarRef(7)],
            ),
        ]),
        assertions: vec![],
        expected: None,
        raw_types: false,
        message: None,
    };
    let e = emit_class("p/A", &[t], &Config::default(), &Permissive).unwrap_err();
    assert!(e.to_string().contains("v7"), "{e}");
}

#[test]
fn only_messages_the_library_wrote_are_asserted() {
    let thrown = |class: &str, message: &str, frames: &[&str]| ferrosuite_executor::Thrown {
        class: class.into(),
        message: Some(message.into()),
        kind: ferrosuite_executor::ThrowKind::Code,
        frames: frames.iter().map(|f| (*f).to_string()).collect(),
    };
    let iae = "java.lang.IllegalArgumentException";
    let npe = "java.lang.NullPointerException";
    assert_eq!(
        stable_message(&thrown(iae, "negative: -3", &["p.Shelf"])),
        Some("negative: -3".into())
    );
    // The JDK's own, the JVM's, a helpful NPE, none from the test itself, identity hashes.
    assert_eq!(
        stable_message(&thrown(iae, "x", &["java.util.Objects", "p.Shelf"])),
        None
    );
    let aioobe = "java.lang.ArrayIndexOutOfBoundsException";
    assert_eq!(
        stable_message(&thrown(
            aioobe,
            "Index 5 out of bounds for length 3",
            &["p.A"]
        )),
        None
    );
    let helpful = "Cannot invoke \"String.length()\" because \"s\" is null";
    assert_eq!(stable_message(&thrown(npe, helpful, &["p.Shelf"])), None);
    assert_eq!(
        stable_message(&thrown(
            npe,
            "The validated object is null",
            &["p.Validate"]
        )),
        Some("The validated object is null".into())
    );
    assert_eq!(stable_message(&thrown(iae, "x", &[])), None);
    assert_eq!(
        stable_message(&thrown(iae, "p.A@1b6d3586 is bad", &["p.A"])),
        None
    );
}

#[test]
fn an_inspector_the_declared_type_lacks_is_reported_unwritten() {
    struct Sized;
    impl TypeInfo for Sized {
        fn inspector_type(&self, class: &str, name: &str) -> Option<FieldType> {
            (class == "p/Stack" && name == "size").then_some(FieldType::Int)
        }
    }
    let check = |name: &str| Assertion {
        statement: 0,
        check: Check::Inspector(name.into()),
        expected: Observed::Integer(0),
    };
    let t = EmitTest {
        test: Test::new(vec![Statement::constructor("p/Stack", "()V", vec![])]),
        assertions: vec![check("isEmpty"), check("size"), check("peek")],
        expected: None,
        raw_types: false,
        message: None,
    };
    let config = Config::default();
    assert_eq!(
        unwritten_assertions("p/Stack", std::slice::from_ref(&t), &config, &Sized).unwrap(),
        vec![vec![0, 2]]
    );
    let source = emit_class("p/Stack", &[t], &config, &Sized).unwrap().source;
    assert!(
        source.contains("assertEquals(0, stack.size());"),
        "{source}"
    );
    assert!(!source.contains("isEmpty"), "{source}");
}
