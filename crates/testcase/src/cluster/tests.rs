//! Unit tests of the cluster: generic signature parsing, display round trips and substitution.

use super::builder::Subst;
use super::*;
use proptest::prelude::*;

fn class(name: &str, args: Vec<TypeArg>) -> GenericType {
    GenericType::Class(ClassType {
        name: name.into(),
        args,
        inner: Vec::new(),
    })
}

#[test]
fn parses_the_jvms_forms() {
    let m = MethodSignature::parse(
        "<T:Ljava/lang/Object;E:Ljava/lang/Exception;>(Ljava/util/List<Ljava/lang/String;>;[TT;I)Ljava/util/Map<*+TT;>;^TE;^Ljava/io/IOException;",
    )
    .unwrap();
    assert_eq!(m.type_params.len(), 2);
    assert_eq!(
        m.params[0],
        class(
            "java/util/List",
            vec![TypeArg::Exact(class(STRING, vec![]))]
        )
    );
    assert_eq!(
        m.params[1],
        GenericType::Array(Box::new(GenericType::Variable("T".into())))
    );
    assert_eq!(m.params[2], GenericType::Primitive(FieldType::Int));
    assert_eq!(m.throws.len(), 2);
    assert_eq!(m.ret.unwrap().java(), "java.util.Map<?, ? extends T>");

    let c = ClassSignature::parse(
        "<E::Ljava/lang/Comparable<-TE;>;>Ljava/util/AbstractList<TE;>;Ljava/util/List<TE;>;",
    )
    .unwrap();
    assert_eq!(c.type_params[0].class_bound, None);
    assert_eq!(
        c.type_params[0].java(),
        "E extends java.lang.Comparable<? super E>"
    );
    assert_eq!(c.interfaces.len(), 1);

    let inner = GenericType::parse("Lp/Outer<TK;>.Inner<Ljava/lang/String;>.Deep;").unwrap();
    let GenericType::Class(ct) = &inner else {
        panic!()
    };
    assert_eq!(ct.erasure(), "p/Outer$Inner$Deep");
    assert!(ct.last_args().is_empty());
    assert_eq!(inner.java(), "p.Outer<K>.Inner<java.lang.String>.Deep");
    assert!(inner.matches_erasure(&FieldType::Object("p/Outer$Inner$Deep".into())));
}

#[test]
fn rejects_malformed_signatures_with_a_position() {
    for bad in [
        "",
        "L;",
        "Ljava/util/List<>;",
        "Ljava/util/List<Ljava/lang/String;",
        "TT",
        "[",
        "Q",
        "Ljava//List;",
        "Lx;Ly;",
        "<>()V",
        "<T>()V",
        "(I",
        "()",
        "()VV",
        "()V^I",
        "Lx<I>;",
        "Lx.;",
    ] {
        let r = GenericType::parse(bad)
            .map(|_| ())
            .or_else(|_| MethodSignature::parse(bad).map(|_| ()));
        assert!(r.is_err(), "{bad:?} parsed");
    }
    let e = MethodSignature::parse("(Ljava/util/List<Q>;)V").unwrap_err();
    assert_eq!(e.position, 17, "{e}");
    let err = e
        .at(
            "p/C",
            "method m(Ljava/util/List;)V",
            "(Ljava/util/List<Q>;)V",
        )
        .to_string();
    assert!(err.contains("p/C") && err.contains("method m"), "{err}");
    assert!(ClassSignature::parse("<T:>Ljava/lang/Object;").is_ok());
    assert!(ClassSignature::parse("TT;").is_err());
    let deep = format!("{}I", "[".repeat(10_000));
    assert!(GenericType::parse(&deep).is_err());
    let deep = format!("{}Lx;{}", "Lx<".repeat(5_000), ">;".repeat(5_000));
    assert!(GenericType::parse(&deep).is_err());
}

#[test]
fn substitution_and_erasure_checks() {
    let mut map = Subst::new();
    map.insert("T".into(), class(STRING, vec![]));
    let t = GenericType::parse("Ljava/util/List<+TT;>;").unwrap();
    assert_eq!(
        t.substitute(&map).java(),
        "java.util.List<? extends java.lang.String>"
    );
    assert!(!t.matches_erasure(&FieldType::Object("java/util/Set".into())));
    let arr = GenericType::parse("[[TT;").unwrap();
    assert!(arr.matches_erasure(&FieldType::parse("[[Ljava/lang/Number;").unwrap()));
    assert!(!arr.matches_erasure(&FieldType::parse("[Ljava/lang/Number;").unwrap()));
}

fn ident() -> impl Strategy<Value = String> {
    "[A-Za-z_$][A-Za-z0-9_$\u{e9}]{0,4}"
}

fn class_name() -> impl Strategy<Value = String> {
    prop::collection::vec(ident(), 1..4).prop_map(|v| v.join("/"))
}

fn prim() -> impl Strategy<Value = FieldType> {
    prop_oneof![
        Just(FieldType::Byte),
        Just(FieldType::Char),
        Just(FieldType::Double),
        Just(FieldType::Float),
        Just(FieldType::Int),
        Just(FieldType::Long),
        Just(FieldType::Short),
        Just(FieldType::Boolean),
    ]
}

fn ref_type() -> impl Strategy<Value = GenericType> {
    let leaf = prop_oneof![
        ident().prop_map(GenericType::Variable),
        class_name().prop_map(|n| class(&n, vec![])),
        prim().prop_map(|p| GenericType::Array(Box::new(GenericType::Primitive(p)))),
    ];
    leaf.prop_recursive(4, 40, 4, |inner| {
        let arg = prop_oneof![
            Just(TypeArg::Any),
            inner.clone().prop_map(TypeArg::Exact),
            inner.clone().prop_map(TypeArg::Extends),
            inner.clone().prop_map(TypeArg::Super),
        ];
        prop_oneof![
            (
                class_name(),
                prop::collection::vec(arg.clone(), 0..3),
                prop::collection::vec((ident(), prop::collection::vec(arg, 0..2)), 0..2),
            )
                .prop_map(|(name, args, inner)| GenericType::Class(ClassType {
                    name,
                    args,
                    inner: inner
                        .into_iter()
                        .map(|(name, args)| InnerClassType { name, args })
                        .collect(),
                })),
            inner.prop_map(|t| GenericType::Array(Box::new(t))),
        ]
    })
}

fn class_type() -> impl Strategy<Value = GenericType> {
    ref_type().prop_map(|t| match t {
        GenericType::Class(_) => t,
        _ => class(OBJECT, vec![TypeArg::Exact(t)]),
    })
}

fn java_type() -> impl Strategy<Value = GenericType> {
    prop_oneof![prim().prop_map(GenericType::Primitive), ref_type()]
}

fn type_param() -> impl Strategy<Value = TypeParameter> {
    (
        ident(),
        prop::option::of(ref_type()),
        prop::collection::vec(ref_type(), 0..3),
    )
        .prop_map(|(name, class_bound, mut interface_bounds)| {
            // javac always writes a bound; without one the grammar is ambiguous.
            if class_bound.is_none() && interface_bounds.is_empty() {
                interface_bounds.push(class(OBJECT, vec![]));
            }
            TypeParameter {
                name,
                class_bound,
                interface_bounds,
            }
        })
}

proptest! {
    #[test]
    fn parsing_never_panics(s in "\\PC{0,60}") {
        let _ = GenericType::parse(&s);
        let _ = MethodSignature::parse(&s);
        let _ = ClassSignature::parse(&s);
    }

    #[test]
    fn parsing_never_panics_on_signature_alphabet(s in "[LT;<>*+\\-\\[\\]:/.()^VIZa-c]{0,60}") {
        let _ = GenericType::parse(&s);
        let _ = MethodSignature::parse(&s);
        let _ = ClassSignature::parse(&s);
    }

    #[test]
    fn display_then_parse_round_trips(
        t in java_type(),
        tps in prop::collection::vec(type_param(), 0..3),
        params in prop::collection::vec(java_type(), 0..4),
        ret in prop::option::of(java_type()),
        throws in prop::collection::vec(prop_oneof![class_type(), ident().prop_map(GenericType::Variable)], 0..2),
        sup in class_type(),
        ifaces in prop::collection::vec(class_type(), 0..3),
    ) {
        prop_assert_eq!(GenericType::parse(&t.to_string()).unwrap(), t);
        let m = MethodSignature { type_params: tps.clone(), params, ret, throws };
        prop_assert_eq!(MethodSignature::parse(&m.to_string()).unwrap(), m);
        let c = ClassSignature { type_params: tps, superclass: sup, interfaces: ifaces };
        prop_assert_eq!(ClassSignature::parse(&c.to_string()).unwrap(), c);
    }
}
