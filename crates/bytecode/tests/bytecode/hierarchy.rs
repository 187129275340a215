//! Hierarchy queries over the fixtures and the JDK.

use ferrosuite_bytecode::classpath::ClassPath;
use ferrosuite_bytecode::descriptor::FieldType;
use ferrosuite_bytecode::hierarchy::{Hierarchy, resolve_field};

use crate::java;

#[test]
fn supertypes_subtypes_overriders_assignability() {
    let (j8, j17) = java::fixtures();
    let cp = ClassPath::parse(&format!("{}:{}:jrt", j8.display(), j17.display())).unwrap();
    let h = Hierarchy::new(&cp);
    let sup = h.supertypes("java/util/ArrayList").unwrap();
    for s in [
        "java/util/AbstractList",
        "java/util/AbstractCollection",
        "java/lang/Object",
        "java/util/List",
        "java/util/RandomAccess",
        "java/util/Collection",
        "java/lang/Iterable",
    ] {
        assert!(sup.iter().any(|x| x == s), "{s} missing in {sup:?}");
    }
    assert_eq!(sup[0], "java/util/AbstractList", "nearest first");
    assert!(
        h.is_subtype("examples/Statics", "java/io/Serializable")
            .unwrap()
    );
    assert!(
        !h.is_subtype("examples/Stack", "java/io/Serializable")
            .unwrap()
    );
    // Sealed interface: its permitted records are its subtypes.
    let subs = h.subtypes("modern/Shapes$Shape").unwrap();
    assert_eq!(
        subs,
        [
            "modern/Shapes$Circle",
            "modern/Shapes$Rect",
            "modern/Shapes$Square"
        ]
    );
    let abs = h.subtypes("java/util/AbstractList").unwrap();
    assert!(abs.iter().any(|s| s == "java/util/ArrayList"));
    let over = h
        .overriders(
            "java/util/AbstractCollection",
            "toString",
            "()Ljava/lang/String;",
        )
        .unwrap();
    assert!(
        over.is_empty()
            || over
                .iter()
                .all(|o| h.is_subtype(o, "java/util/AbstractCollection").unwrap())
    );
    let over = h
        .overriders("java/util/AbstractList", "get", "(I)Ljava/lang/Object;")
        .unwrap();
    assert!(over.iter().any(|o| o == "java/util/ArrayList"));
    let obj = FieldType::Object("java/lang/Object".into());
    let list = FieldType::Object("java/util/List".into());
    let alist = FieldType::Object("java/util/ArrayList".into());
    let arr = |t: FieldType| FieldType::Array(Box::new(t));
    assert!(h.is_assignable(&alist, &list).unwrap());
    assert!(!h.is_assignable(&list, &alist).unwrap());
    assert!(
        h.is_assignable(&arr(alist.clone()), &arr(list.clone()))
            .unwrap()
    );
    assert!(h.is_assignable(&arr(FieldType::Int), &obj).unwrap());
    assert!(
        h.is_assignable(
            &arr(FieldType::Int),
            &FieldType::Object("java/lang/Cloneable".into())
        )
        .unwrap()
    );
    assert!(
        !h.is_assignable(&arr(FieldType::Int), &arr(FieldType::Long))
            .unwrap()
    );
    assert!(!h.is_assignable(&FieldType::Int, &FieldType::Long).unwrap());
    // Field resolution walks superinterfaces and superclasses.
    assert_eq!(
        resolve_field(&cp, "examples/Statics", "counter", "I")
            .unwrap()
            .as_deref(),
        Some("examples/Statics")
    );
    assert_eq!(
        resolve_field(&cp, "java/util/ArrayList", "modCount", "I")
            .unwrap()
            .as_deref(),
        Some("java/util/AbstractList")
    );
    assert_eq!(
        resolve_field(&cp, "examples/Stack", "nope", "I").unwrap(),
        None
    );
}

#[test]
fn nested_classes_are_found_transitively_and_only_below_the_class() {
    let (j8, j17) = java::fixtures();
    let cp = ClassPath::parse(&format!("{}:{}:jrt", j8.display(), j17.display())).unwrap();
    assert_eq!(
        cp.nested_classes("modern/Shapes").unwrap(),
        [
            "modern/Shapes$1",
            "modern/Shapes$Circle",
            "modern/Shapes$Rect",
            "modern/Shapes$Shape",
            "modern/Shapes$Square",
        ]
    );
    // A nested class lists its enclosing class in `InnerClasses`; it is not below itself.
    assert!(
        cp.nested_classes("modern/Shapes$Circle")
            .unwrap()
            .is_empty()
    );
    assert!(cp.nested_classes("examples/Stack").unwrap().is_empty());
    assert!(matches!(
        cp.nested_classes("examples/Missing"),
        Err(ferrosuite_bytecode::Error::ClassNotFound(_))
    ));
}
