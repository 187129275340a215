//! The test model: serde round trips (JSON and postcard, special floats), validation errors
//! that name the statement, and the model's operations.

use ferrosuite_bytecode::descriptor::FieldType;
use ferrosuite_testcase::statement::{JDouble, JFloat, Prim, Statement, Test, VarRef};
use proptest::prelude::*;

fn sample() -> Test {
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
        Statement::Primitive(Prim::Double(JDouble(f64::NAN))),
        Statement::Primitive(Prim::Float(JFloat(f32::NEG_INFINITY))),
        Statement::Null {
            ty: FieldType::Object("java/lang/String".into()),
        },
        Statement::ArrayNew {
            component: FieldType::Object("java/lang/String".into()),
            length: 2,
        },
        Statement::ArrayStore {
            array: VarRef(6),
            index: 1,
            value: VarRef(5),
        },
        Statement::string("a\"\u{e9}"),
        Statement::FieldRead {
            class: "java/lang/Integer".into(),
            name: "MAX_VALUE".into(),
            descriptor: "I".into(),
            receiver: None,
        },
        Statement::Cast {
            value: VarRef(8),
            ty: FieldType::Object("java/lang/Object".into()),
        },
        Statement::EnumConstant {
            class: "java/util/concurrent/TimeUnit".into(),
            name: "SECONDS".into(),
        },
        Statement::ClassLiteral {
            ty: FieldType::Array(Box::new(FieldType::Int)),
        },
        Statement::method(
            "java/lang/Class",
            "getName",
            "()Ljava/lang/String;",
            Some(VarRef(12)),
            vec![],
        ),
    ])
}

#[test]
fn json_and_postcard_round_trip_special_floats() {
    let t = sample();
    t.validate().unwrap();
    let json = serde_json::to_string(&t).unwrap();
    assert!(
        json.contains("\"NaN\"") && json.contains("\"-Infinity\""),
        "{json}"
    );
    assert_eq!(serde_json::from_str::<Test>(&json).unwrap(), t);
    let bin = postcard::to_stdvec(&t).unwrap();
    assert_eq!(postcard::from_bytes::<Test>(&bin).unwrap(), t);
}

#[test]
fn validation_names_the_statement() {
    let bad = Test::new(vec![
        Statement::Primitive(Prim::Int(1)),
        Statement::method("A", "m", "(J)V", None, vec![VarRef(0)]),
    ]);
    let e = bad.validate().unwrap_err().to_string();
    assert_eq!(
        e,
        "statement 1 (A.m(v0)): argument v0: a int where a long is expected"
    );
    let forward = Test::new(vec![Statement::constructor("A", "(I)V", vec![VarRef(0)])]);
    assert!(
        forward
            .validate()
            .unwrap_err()
            .to_string()
            .contains("v0 is not an earlier value")
    );
    let void = Test::new(vec![
        Statement::method("A", "m", "()V", None, vec![]),
        Statement::Cast {
            value: VarRef(0),
            ty: FieldType::Object("A".into()),
        },
    ]);
    assert!(
        void.validate()
            .unwrap_err()
            .to_string()
            .contains("v0 is void")
    );
}

fn canonical(d: f64) -> f64 {
    if d.is_nan() { f64::NAN } else { d }
}

fn arb_test() -> impl Strategy<Value = Test> {
    let leaf = prop_oneof![
        any::<i32>().prop_map(|i| Statement::Primitive(Prim::Int(i))),
        // JSON keeps NaN only as the canonical NaN (binary formats keep every payload).
        any::<u64>().prop_map(|b| Statement::Primitive(Prim::Double(JDouble(canonical(
            f64::from_bits(b)
        ))))),
        any::<u32>().prop_map(|b| {
            let f = f32::from_bits(b);
            Statement::Primitive(Prim::Float(JFloat(if f.is_nan() { f32::NAN } else { f })))
        }),
        ".*".prop_map(|s: String| Statement::string(&s)),
    ];
    (
        proptest::collection::vec(leaf, 1..6),
        proptest::collection::vec((any::<u8>(), any::<u8>()), 0..6),
    )
        .prop_map(|(mut stmts, calls)| {
            for (a, b) in calls {
                let n = stmts.len() as u32;
                stmts.push(Statement::method(
                    "C",
                    "m",
                    "(Ljava/lang/Object;Ljava/lang/Object;)Ljava/lang/Object;",
                    None,
                    vec![VarRef(u32::from(a) % n), VarRef(u32::from(b) % n)],
                ));
            }
            Test::new(stmts)
        })
}

proptest! {
    #[test]
    fn wire_round_trips_are_exact(t in arb_test()) {
        let bin = postcard::to_stdvec(&t).unwrap();
        prop_assert_eq!(&postcard::from_bytes::<Test>(&bin).unwrap(), &t);
        let json = serde_json::to_string(&t).unwrap();
        prop_assert_eq!(&serde_json::from_str::<Test>(&json).unwrap(), &t);
    }

    #[test]
    fn removal_keeps_tests_well_formed(t in arb_test(), k in any::<usize>()) {
        let mut t = t;
        let n = t.len();
        let removed = t.remove_with_dependents(k % n);
        prop_assert!(removed >= 1);
        prop_assert_eq!(t.len(), n - removed);
        prop_assert!(t.statements.iter().enumerate().all(|(i, s)| s.uses().iter().all(|r| r.index() < i)));
    }
}

#[test]
fn a_private_access_is_checked_as_the_member_access_it_wraps() {
    let private = |s: Statement| Statement::Private(Box::new(s));
    let ok = Test::new(vec![
        Statement::constructor("C", "()V", vec![]),
        Statement::Primitive(Prim::Int(1)),
        private(Statement::method(
            "C",
            "p",
            "(I)I",
            Some(VarRef(0)),
            vec![VarRef(1)],
        )),
    ]);
    assert!(ok.validate().is_ok());
    let mut wrong_args = ok.clone();
    wrong_args.statements[2] = private(Statement::method(
        "C",
        "p",
        "(II)I",
        Some(VarRef(0)),
        vec![VarRef(1)],
    ));
    assert!(wrong_args.validate().is_err());
    let mut not_a_member = ok;
    not_a_member.statements[2] = private(Statement::Primitive(Prim::Int(2)));
    assert!(not_a_member.validate().is_err());
}
