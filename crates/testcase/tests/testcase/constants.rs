//! What a class's code names for the search's values: constants harvested from its constant
//! pool (and its nested classes'), and the class literals a `Class` parameter may get.

use std::path::Path;
use std::process::Command;

use ferrosuite_bytecode::classpath::ClassPath;
use ferrosuite_bytecode::descriptor::FieldType;
use ferrosuite_testcase::Error;
use ferrosuite_testcase::constants::{harvest, harvest_nested};
use ferrosuite_testcase::statement::{JDouble, JFloat};

use crate::cluster::{build, fixture_cp};

#[test]
fn constants_of_a_class_and_its_nested_classes() {
    let cp = fixture_cp();
    let lit = cp.load("cluster/Literals").unwrap();
    let k = harvest(&lit);
    for i in [100_000, 42, 1000, 3, -1, 0, 1] {
        assert!(k.ints.contains(&i), "{i} in {:?}", k.ints);
    }
    assert!(
        k.ints.windows(2).all(|w| w[0] < w[1]),
        "sorted and distinct"
    );
    assert!(k.longs.contains(&1_234_567_890_123));
    assert!(k.doubles.contains(&JDouble(2.25)));
    assert!(k.floats.contains(&JFloat(1.5)));
    for s in ["hello", "alpha", "beta"] {
        assert!(k.strings.iter().any(|x| x == s), "{s} in {:?}", k.strings);
    }
    assert_eq!(k.dropped_strings, 1, "the lone surrogate of BROKEN");
    assert!(
        !k.strings.iter().any(|s| s.contains("literal")),
        "nested classes are separate"
    );
    assert!(
        !k.strings.iter().any(|s| s.contains('/') || s == "classify"),
        "no names"
    );

    let all = harvest_nested(cp, "cluster/Literals").unwrap();
    for s in ["anon literal", "nested literal", "hello"] {
        assert!(
            all.strings.iter().any(|x| x == s),
            "{s} in {:?}",
            all.strings
        );
    }
    let prims = all.prims();
    assert_eq!(prims.len(), all.len());
    assert!(matches!(
        harvest_nested(cp, "cluster/Nope"),
        Err(Error::ClassNotFound(_))
    ));
}

#[test]
fn string_concatenation_recipes_are_split_and_bootstrap_names_dropped() {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("testcase-indy");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let src = dir.join("Indy.java");
    std::fs::write(
        &src,
        "public class Indy {\n\
           record Point(int xcoord, int ycoord) {}\n\
           static String show(int x, Object o) { return \"x = \" + x + \" and \" + o + \"!\"; }\n\
           static String plain() { return \"plain\"; }\n\
         }\n",
    )
    .unwrap();
    let st = Command::new("javac")
        .args(["--release", "17", "-d"])
        .arg(&dir)
        .arg(&src)
        .output()
        .unwrap();
    assert!(
        st.status.success(),
        "{}",
        String::from_utf8_lossy(&st.stderr)
    );
    let cp = ClassPath::parse(&dir.display().to_string()).unwrap();
    let k = harvest_nested(&cp, "Indy").unwrap();
    for s in ["x = ", " and ", "!", "plain"] {
        assert!(k.strings.iter().any(|x| x == s), "{s:?} in {:?}", k.strings);
    }
    assert!(
        !k.strings.iter().any(|s| s.contains('\u{1}')),
        "{:?}",
        k.strings
    );
    assert!(
        !k.strings.iter().any(|s| s.contains("xcoord")),
        "record component names: {:?}",
        k.strings
    );
}

#[test]
fn class_literals_are_the_types_the_cut_names_that_a_test_can_name() {
    let c = build(fixture_cp(), "examples/Units");
    let o = |s: &str| FieldType::Object(s.into());
    let types: Vec<&FieldType> = c.class_literals.iter().map(|l| &l.ty).collect();
    // Member types, then the classes the code names, then the defaults.
    for want in [
        o("java/util/concurrent/TimeUnit"),
        o("java/lang/Integer"),
        o("java/math/BigDecimal"),
        FieldType::Array(Box::new(o("java/io/File"))),
        o("java/lang/Long"),
        o("java/lang/Double"),
        FieldType::Int,
    ] {
        assert!(types.contains(&&want), "{want:?} in {types:?}");
    }
    let at = |t: &FieldType| types.iter().position(|x| *x == t).unwrap();
    assert!(at(&o("java/util/concurrent/TimeUnit")) < at(&o("java/math/BigDecimal")));
    assert_eq!(types.last(), Some(&&FieldType::Float), "{types:?}");
    // A private nested class the code reads is no literal.
    assert!(!types.contains(&&o("examples/Units$Missing")), "{types:?}");
    assert_eq!(types.len(), c.class_literals.len());
    let lit = |t: &FieldType| &c.class_literals[at(t)];
    assert!(lit(&o("java/lang/Integer")).within("java/lang/Number"));
    assert!(lit(&FieldType::Int).is_of("java/lang/Integer"));
    assert!(lit(&o("java/util/concurrent/TimeUnit")).within("java/lang/Enum"));
    assert!(!lit(&o("java/lang/Long")).within("java/lang/Enum"));
}
