//! Unit tests of test construction on a hand-made cluster ([`toy_cluster`], used elsewhere too).

use super::*;
use ferrosuite_testcase::cluster::{TypeInfo, TypeKind, environment};
use ferrosuite_testcase::statement::{Prim, Test};
use rand_chacha::ChaCha8Rng;
use rand_chacha::rand_core::SeedableRng;

use crate::random::index;

fn op(
    kind: OperationKind,
    name: &str,
    desc: &str,
    params: &[FieldType],
    ret: Option<FieldType>,
    is_static: bool,
) -> Operation {
    Operation {
        kind,
        class: "p/Cut".into(),
        declared_in: "p/Cut".into(),
        name: name.into(),
        descriptor: desc.into(),
        access: 1,
        is_static,
        params: params.iter().cloned().map(TypeUse::plain).collect(),
        ret: ret.map(TypeUse::plain),
        type_params: Vec::new(),
    }
}

/// A hand-made cluster: `class Cut { Cut(); void put(int); String name; static Cut of(Shape) }`
/// with `Shape` an interface implemented by `Circle(double)`.
pub(crate) fn toy_cluster() -> TestCluster {
    let cut = FieldType::Object("p/Cut".into());
    let ctor = op(
        OperationKind::Constructor,
        "<init>",
        "()V",
        &[],
        Some(cut.clone()),
        false,
    );
    let shape = FieldType::Object("p/Shape".into());
    let of = op(
        OperationKind::Method,
        "of",
        "(Lp/Shape;)Lp/Cut;",
        std::slice::from_ref(&shape),
        Some(cut.clone()),
        true,
    );
    let mut types = BTreeMap::new();
    types.insert(
        cut.descriptor(),
        TypeInfo {
            ty: cut.clone(),
            kind: TypeKind::Class,
            accessible: true,
            public: true,
            is_final: false,
            depth: 0,
            generators: vec![ctor.clone(), of.clone()],
            subtypes: Vec::new(),
            cast_subtypes: Vec::new(),
        },
    );
    types.insert(
        shape.descriptor(),
        TypeInfo {
            ty: shape.clone(),
            kind: TypeKind::Interface,
            accessible: true,
            public: true,
            is_final: false,
            depth: 1,
            generators: Vec::new(),
            subtypes: vec!["p/Circle".into()],
            cast_subtypes: Vec::new(),
        },
    );
    let circle = FieldType::Object("p/Circle".into());
    let mut circle_ctor = op(
        OperationKind::Constructor,
        "<init>",
        "(D)V",
        &[FieldType::Double],
        Some(circle.clone()),
        false,
    );
    circle_ctor.class = "p/Circle".into();
    circle_ctor.declared_in = "p/Circle".into();
    types.insert(
        circle.descriptor(),
        TypeInfo {
            ty: circle.clone(),
            kind: TypeKind::Class,
            accessible: true,
            public: true,
            is_final: false,
            depth: 1,
            generators: vec![circle_ctor],
            subtypes: Vec::new(),
            cast_subtypes: Vec::new(),
        },
    );
    TestCluster {
        cut: "p/Cut".into(),
        type_params: Vec::new(),
        private_members: Vec::new(),
        environment: Vec::new(),
        class_literals: Vec::new(),
        result_methods: BTreeMap::new(),
        constructors: vec![ctor],
        methods: vec![
            of,
            op(
                OperationKind::Method,
                "put",
                "(I)V",
                &[FieldType::Int],
                None,
                false,
            ),
        ],
        fields: vec![op(
            OperationKind::Field,
            "name",
            "Ljava/lang/String;",
            &[],
            Some(FieldType::Object(STRING.into())),
            false,
        )],
        types,
        erased_generic_fallback: Vec::new(),
        warnings: Vec::new(),
    }
}

#[test]
fn precomputed_parameters_are_what_the_calls_say() {
    let cluster = toy_cluster();
    let f = Factory::new(&cluster, Constants::default(), Config::default()).unwrap();
    let mut types: Vec<FieldType> = vec![FieldType::Int, FieldType::Object(OBJECT.into())];
    for &c in f.cut_calls() {
        assert_eq!(&*f.params_of(c), c.params().as_slice(), "{c:?}");
        types.extend(c.params().into_iter().map(|(p, _)| p));
        types.extend(c.ret());
    }
    for op in cluster.types.values().flat_map(|i| &i.generators) {
        let c = Call::Op(op);
        assert!(matches!(f.params_of(c), Cow::Borrowed(_)), "{c:?}");
        assert_eq!(&*f.params_of(c), c.params().as_slice());
    }
    // What creates a value of each type: as the cluster says.
    for info in cluster.types.values() {
        let c = &f.creators[&info.ty];
        assert_eq!(c.generators, cluster.generators_for(&info.ty));
        assert_eq!(
            c.string_fits,
            info.subtypes.iter().any(|s| s == STRING),
            "{:?}",
            info.ty
        );
    }
    // The slots a value fits: as asking every parameter of every call in turn.
    for have in &types {
        let mut every = Vec::new();
        for (k, &c) in f.cut_calls().iter().enumerate() {
            for (i, (p, _)) in c.params().iter().enumerate() {
                if f.assignable(have, p) {
                    every.push((k, i));
                }
            }
        }
        assert_eq!(f.value_slots(have), every, "{have:?}");
    }
}

#[test]
fn assignability_follows_the_cluster() {
    let c = toy_cluster();
    let f = Factory::new(&c, Constants::default(), Config::default()).unwrap();
    let o = |n: &str| FieldType::Object(n.into());
    assert!(f.assignable(&o("p/Circle"), &o("p/Shape")));
    assert!(!f.assignable(&o("p/Shape"), &o("p/Circle")));
    assert!(f.assignable(&o("p/Cut"), &o(OBJECT)));
    assert!(f.assignable(
        &FieldType::Array(Box::new(o("p/Circle"))),
        &FieldType::Array(Box::new(o("p/Shape")))
    ));
    assert!(!f.assignable(
        &FieldType::Array(Box::new(FieldType::Int)),
        &FieldType::Array(Box::new(FieldType::Long))
    ));
    assert!(!f.assignable(&FieldType::Int, &o(OBJECT)));
    assert_eq!(
        f.cut_calls().len(),
        5,
        "ctor, of, put, name read, name write"
    );
}

#[test]
fn insertion_splices_and_renumbers() {
    let c = toy_cluster();
    let config = Config {
        null_probability: 0.0,
        ..Config::default()
    };
    let f = Factory::new(&c, Constants::default(), config).unwrap();
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    let mut t = Test::new(vec![
        Statement::Primitive(Prim::Int(5)),
        Statement::constructor("p/Cut", "()V", vec![]),
        Statement::method("p/Cut", "put", "(I)V", Some(VarRef(1)), vec![VarRef(0)]),
    ]);
    for _ in 0..50 {
        let pos = index(&mut rng, t.len() + 1);
        f.insert_cut_call(&mut t, pos, &mut rng).unwrap();
        t.validate().unwrap();
        assert!(t.len() <= 80);
    }
    assert!(
        t.statements
            .iter()
            .any(|s| matches!(s, Statement::Constructor { class, .. } if &**class == "p/Circle")),
        "{t}"
    );
}

#[test]
fn calls_returning_a_type_are_its_fitting_calls_and_generators_each_time() {
    let c = toy_cluster();
    let f = Factory::new(&c, Constants::default(), Config::default()).unwrap();
    let names = |calls: Vec<Call<'_>>| -> Vec<String> {
        calls
            .iter()
            .map(|c| format!("{}.{}", c.operation().class, c.operation().name))
            .collect()
    };
    let cut = FieldType::Object("p/Cut".into());
    let shape = FieldType::Object("p/Shape".into());
    // Asked twice each, in between other types: the remembered answer is the first one.
    for _ in 0..2 {
        assert_eq!(
            names(f.calls_returning(Some(&cut))),
            ["p/Cut.<init>", "p/Cut.of"]
        );
        assert_eq!(names(f.calls_returning(None)), ["p/Cut.put", "p/Cut.name"]);
        // Nothing on the CUT returns a Shape; the generator of its subtype Circle does.
        assert_eq!(names(f.calls_returning(Some(&shape))), ["p/Circle.<init>"]);
        assert!(f.calls_returning(Some(&FieldType::Long)).is_empty());
    }
}

#[test]
fn remembered_value_types_are_the_parsed_ones() {
    let c = toy_cluster();
    let f = Factory::new(&c, Constants::default(), Config::default()).unwrap();
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    let mut t = Test::new(vec![Statement::constructor("p/Cut", "()V", vec![])]);
    for _ in 0..30 {
        f.insert_random(&mut t, &mut rng).unwrap();
        assert_eq!(
            f.value_types(&t.statements).unwrap(),
            value_types(&t.statements).unwrap()
        );
    }
    // One descriptor text (one address) read by a call and by a field read: each kind
    // keeps its own entry, and a bad descriptor is an error every time (never remembered).
    let d: Arc<str> = "(I)Ljava/lang/String;".into();
    let call = Statement::Method {
        class: "p/Cut".into(),
        name: "m".into(),
        descriptor: Arc::clone(&d),
        receiver: None,
        args: vec![],
    };
    let read = Statement::FieldRead {
        class: "p/Cut".into(),
        name: "f".into(),
        descriptor: Arc::clone(&d),
        receiver: None,
    };
    let string: Option<FieldType> = Some(FieldType::Object("java/lang/String".into()));
    for _ in 0..2 {
        assert_eq!(
            f.value_types(std::slice::from_ref(&call)).unwrap(),
            std::slice::from_ref(&string)
        );
        assert!(f.value_types(std::slice::from_ref(&read)).is_err());
    }
    // Emptied (as when it starts over past its bound), the memo answers the same.
    f.type_memo.borrow_mut().0.clear();
    assert_eq!(
        f.value_types(&t.statements).unwrap(),
        value_types(&t.statements).unwrap()
    );
}

#[test]
fn a_splice_renumbers_exactly_and_leaves_a_test_it_cannot_change_alone() {
    let c = toy_cluster();
    let f = Factory::new(&c, Constants::default(), Config::default()).unwrap();
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    let put = |r, a| Statement::method("p/Cut", "put", "(I)V", Some(VarRef(r)), vec![VarRef(a)]);
    let original = Test::new(vec![
        Statement::Primitive(Prim::Int(5)),
        Statement::Primitive(Prim::Int(6)),
        Statement::constructor("p/Cut", "()V", vec![]),
        put(2, 1),
        put(2, 0),
    ]);
    // Replace v1 (an int) by two new statements: its use becomes the new value, later
    // values move up by one.
    let mut t = original.clone();
    let changed = f
        .splice(&mut t, 1, true, &mut rng, |g| {
            g.push(Statement::Primitive(Prim::Int(7)), Some(FieldType::Int))?;
            g.push(Statement::Primitive(Prim::Int(8)), Some(FieldType::Int))
        })
        .unwrap();
    assert!(changed);
    assert_eq!(
        t.statements,
        vec![
            Statement::Primitive(Prim::Int(5)),
            Statement::Primitive(Prim::Int(7)),
            Statement::Primitive(Prim::Int(8)),
            Statement::constructor("p/Cut", "()V", vec![]),
            put(3, 2),
            put(3, 0),
        ]
    );
    // Insert before the constructor: every later reference at or after 2 moves by one.
    let mut t = original.clone();
    assert!(
        f.splice(&mut t, 2, false, &mut rng, |g| g
            .push(Statement::Primitive(Prim::Int(9)), Some(FieldType::Int)))
            .unwrap()
    );
    assert_eq!(t.statements[4], put(3, 1));
    assert_eq!(t.statements[5], put(3, 0));
    // A generator that gives up, or a splice past the length limit, changes nothing.
    let mut t = original.clone();
    let gave_up = f.splice(&mut t, 3, false, &mut rng, |g| {
        g.push(Statement::Primitive(Prim::Int(1)), Some(FieldType::Int))?;
        None
    });
    assert!(!gave_up.unwrap());
    assert_eq!(t, original);
    let tight = Factory::new(
        &c,
        Constants::default(),
        Config {
            max_test_length: 5,
            ..Config::default()
        },
    )
    .unwrap();
    let mut t = original.clone();
    let full = tight.splice(&mut t, 5, false, &mut rng, |g| {
        g.push(Statement::Primitive(Prim::Int(1)), Some(FieldType::Int))
    });
    assert!(!full.unwrap());
    assert_eq!(t, original);
}

#[test]
fn calls_on_values_include_result_methods_of_other_classes() {
    let mut c = toy_cluster();
    let mut area = op(
        OperationKind::Method,
        "area",
        "()D",
        &[],
        Some(FieldType::Double),
        false,
    );
    area.class = "p/Circle".into();
    area.declared_in = "p/Circle".into();
    c.result_methods.insert("p/Circle".into(), vec![area]);
    let f = Factory::new(&c, Constants::default(), Config::default()).unwrap();
    let base = Test::new(vec![
        Statement::Primitive(Prim::Double(ferrosuite_testcase::statement::JDouble(2.0))),
        Statement::constructor("p/Circle", "(D)V", vec![VarRef(0)]),
    ]);
    let (mut on_circle, mut on_cut) = (0, 0);
    for seed in 0..40 {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let mut t = base.clone();
        f.insert_call_on_value(&mut t, 2, &mut rng).unwrap();
        t.validate().unwrap();
        match &t.statements[2..] {
            [
                Statement::Method {
                    class,
                    name,
                    receiver: Some(VarRef(1)),
                    ..
                },
            ] if &**class == "p/Circle" && &**name == "area" => {
                on_circle += 1;
                assert_eq!(
                    f.call_for(&t.statements[2]).map(|c| &*c.operation().name),
                    Some("area")
                );
            }
            _ => on_cut += 1, // no CUT value before: a fresh call on the CUT
        }
    }
    assert_eq!(
        on_circle, 40,
        "the only value with calls is the circle ({on_cut} others)"
    );
    // With a CUT value too, both kinds of receiver are picked.
    let mut both = base.clone();
    both.statements
        .push(Statement::constructor("p/Cut", "()V", vec![]));
    let mut circle_calls = 0;
    for seed in 0..40 {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let mut t = both.clone();
        f.insert_call_on_value(&mut t, 3, &mut rng).unwrap();
        t.validate().unwrap();
        if matches!(&t.statements[3], Statement::Method { class, .. } if &**class == "p/Circle") {
            circle_calls += 1;
        }
    }
    assert!((5..35).contains(&circle_calls), "{circle_calls} of 40");
}

#[test]
fn splices_never_exceed_the_length_limit() {
    let c = toy_cluster();
    let config = Config {
        max_test_length: 3,
        ..Config::default()
    };
    let f = Factory::new(&c, Constants::default(), config).unwrap();
    let mut rng = ChaCha8Rng::seed_from_u64(2);
    for _ in 0..100 {
        let t = f.random_test(&mut rng).unwrap();
        assert!(t.len() <= 3 && !t.is_empty());
        t.validate().unwrap();
    }
}

#[test]
fn an_empty_cluster_is_an_error() {
    let mut c = toy_cluster();
    c.constructors.clear();
    c.methods.clear();
    c.fields.clear();
    assert!(matches!(
        Factory::new(&c, Constants::default(), Config::default()),
        Err(Error::NothingToCall(_))
    ));
}

#[test]
fn a_cluster_whose_types_contradict_its_descriptors_is_an_error() {
    // Splices type generated statements by what the cluster records: a recorded return
    // type that is not the descriptor's is refused up front, as is a broken descriptor.
    let mut c = toy_cluster();
    let m = c.methods.iter_mut().find(|m| m.ret.is_some()).unwrap();
    m.ret = Some(TypeUse::plain(FieldType::Object("p/Other".into())));
    let e = Factory::new(&c, Constants::default(), Config::default()).unwrap_err();
    assert!(matches!(e, Error::Cluster(_)), "{e}");
    assert!(e.to_string().contains("p/Cut"), "{e}");
    let mut c = toy_cluster();
    let m = c.methods.iter_mut().find(|m| m.ret.is_some()).unwrap();
    m.descriptor = "(I".into();
    assert!(Factory::new(&c, Constants::default(), Config::default()).is_err());
}

#[test]
fn environment_statements_join_once_the_code_used_their_resource() {
    let mut cluster = toy_cluster();
    cluster.add_environment();
    let config = Config {
        environment_probability: 1.0,
        ..Config::default()
    };
    let mut f = Factory::new(&cluster, Constants::default(), config).unwrap();
    assert!(f.environment_calls().is_empty());
    let mut rng = ChaCha8Rng::seed_from_u64(5);
    // Nothing used yet: insertion calls the CUT only.
    let mut t = Test::default();
    for _ in 0..20 {
        let end = t.len();
        f.insert_cut_call(&mut t, end, &mut rng).unwrap();
    }
    assert!(t.statements.iter().all(|s| !matches!(s,
        Statement::Method { class, .. } if environment::is_environment_class(class))));
    f.add_environment_feedback(&Resources {
        files: vec!["conf/app.properties".into()],
        ..Resources::default()
    });
    let names: Vec<&str> = f
        .environment_calls()
        .iter()
        .map(|c| &*c.operation().name)
        .collect();
    assert_eq!(
        names,
        [
            "writeFile",
            "makeDirectory",
            "makeUnreadable",
            "makeReadOnly"
        ]
    );
    assert_eq!(f.environment_paths(), ["conf/app.properties".to_string()]);
    // The same feedback again adds nothing; console input joins with the console.
    f.add_environment_feedback(&Resources {
        files: vec!["conf/app.properties".into()],
        console: true,
        ..Resources::default()
    });
    assert_eq!(f.environment_calls().len(), 5);
    assert_eq!(f.environment_paths().len(), 1);
    // With P_ENV 1 every insertion is an environment statement, most naming the path.
    let mut t = Test::default();
    for _ in 0..20 {
        let end = t.len();
        f.insert_cut_call(&mut t, end, &mut rng).unwrap();
    }
    let calls: Vec<&Statement> = t
        .statements
        .iter()
        .filter(|s| matches!(s, Statement::Method { .. }))
        .collect();
    assert!(calls.iter().all(|s| matches!(s,
        Statement::Method { class, .. } if environment::is_environment_class(class))));
    let named = t
        .statements
        .iter()
        .filter(
            |s| matches!(s, Statement::Primitive(Prim::String(p)) if p == "conf/app.properties"),
        )
        .count();
    assert!(named >= 5, "{t:?}");
}
