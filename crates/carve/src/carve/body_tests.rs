//! Tests of the test bodies carved from call records.

#![allow(clippy::unwrap_used)]

use super::*;

/// Types whose method `depth` is final.
struct Finals;
impl Types for Finals {
    fn accessible(&self, _: &str) -> bool {
        true
    }
    fn mockable(&self, _: &str) -> bool {
        true
    }
    fn final_method(&self, _: &str, name: &str, _: &str) -> bool {
        name == "depth"
    }
}

/// `p.Tree.size()I`, the method the body tests carve.
fn tree_size() -> RecordedMethod {
    RecordedMethod {
        class: "p/Tree".into(),
        name: "size".into(),
        descriptor: "()I".into(),
        is_static: false,
    }
}

/// A call of [`tree_size`] on `receiver` that returned 1, with no events.
fn tree_size_call(receiver: Value) -> CallRecord {
    CallRecord {
        kind: crate::model::CallKind::Method,
        method: 0,
        id: 1,
        parent: 0,
        thread: 1,
        receiver,
        receiver_id: -1,
        args: Vec::new(),
        events: Vec::new(),
        outcome: Outcome::Returned {
            value: Value::Int { v: 1 },
        },
        after: Value::Same,
        truncated: true,
        events_cut: false,
    }
}

#[test]
fn literals_are_java() {
    assert_eq!(
        string_literal("a\"b\\c\n\u{e9}"),
        "\"a\\\"b\\\\c\\n\\u00e9\""
    );
    assert_eq!(literal(&Value::Long { v: 5 }).unwrap(), "5L");
    assert_eq!(
        literal(&Value::Int { v: i32::MIN }).unwrap(),
        "Integer.MIN_VALUE"
    );
    assert_eq!(
        literal(&Value::Double {
            bits: 1.5f64.to_bits()
        })
        .unwrap(),
        "1.5d"
    );
    assert_eq!(
        literal(&Value::Float {
            bits: f32::NAN.to_bits()
        })
        .unwrap(),
        "Float.NaN"
    );
    assert_eq!(literal(&Value::Char { v: 39 }).unwrap(), "'\\''");
    assert_eq!(component_source("[I").unwrap(), "int[]");
    assert_eq!(source_name("a.B$C"), "a.B.C");
    assert_eq!(name_part("-15L"), "Minus15");
    assert_eq!(name_part("\"apple\""), "Apple");
}

struct Open;
impl Types for Open {
    fn accessible(&self, _: &str) -> bool {
        true
    }
    fn mockable(&self, _: &str) -> bool {
        true
    }
}

/// `c` carved as a call of `m` with no call targets or static fields, every class open, in the
/// controlled environment.
fn carve_open(c: &CallRecord, m: &RecordedMethod) -> Carved {
    carve_call(c, m, false, &[], &[], &Open, true)
}

fn field(name: &str, value: Value) -> crate::model::FieldValue {
    crate::model::FieldValue {
        declaring: None,
        name: name.into(),
        value,
    }
}

#[test]
fn unused_cut_objects_get_stand_ins_and_final_methods_no_mock() {
    // The receiver's parent is past the depth limit and the call made no call on it: an
    // unstubbed mock stands for it. A cut JDK list cannot be a stand-in.
    let call = |deep: Value, events: Vec<Event>| {
        let receiver = Value::Object {
            r: 1,
            class: "p.Tree".into(),
            id: -1,
            fields: vec![field("parent", deep)],
            partial: false,
        };
        CallRecord {
            events,
            ..tree_size_call(receiver)
        }
    };
    let m = tree_size();
    let cut = |class: &str| Value::Ref {
        r: 2,
        class: class.into(),
        id: -2,
    };
    let body = carve_open(&call(cut("p.Tree"), vec![]), &m).unwrap();
    let text = body.lines.join("\n");
    assert!(
        text.contains("p.Tree tree2 = mock(p.Tree.class); // not used by the call"),
        "{text}"
    );
    assert!(body.mocks, "{text}");
    // A call that returns the stand-in checks it is that object (a mock's class name depends
    // on the mock maker).
    let mut returns = call(cut("p.Tree"), vec![]);
    returns.outcome = Outcome::Returned {
        value: Value::BackRef { r: 2 },
    };
    let parent = RecordedMethod {
        descriptor: "()Lp/Tree;".into(),
        ..m.clone()
    };
    let body = carve_open(&returns, &parent).unwrap();
    let text = body.lines.join("\n");
    assert!(text.ends_with("assertSame(tree2, result);"), "{text}");
    assert_eq!(body.name, "size_returnsTree2");
    let list = carve_open(&call(cut("java.util.ArrayList"), vec![]), &m);
    assert!(list.unwrap_err().contains("past the snapshot's depth"));
    // A call on the parent through a final method: no mock can answer it.
    let targets = [CallTarget {
        owner: "p/Tree".into(),
        name: "depth".into(),
        descriptor: "()I".into(),
        interface: false,
    }];
    let asks = vec![Event::Call {
        target: 0,
        receiver: 2,
        args: Vec::new(),
        outcome: Some(Outcome::Returned {
            value: Value::Int { v: 3 },
        }),
    }];
    let e = carve_call(
        &call(cut("p.Tree"), asks),
        &m,
        false,
        &targets,
        &[],
        &Finals,
        true,
    )
    .unwrap_err();
    assert!(e.contains("final method p.Tree.depth"), "{e}");
}

#[test]
fn cut_and_back_references_are_built_from_the_definition_met_elsewhere() {
    // The receiver reaches node 2 first past the depth limit (a `ref`), then in full; its
    // buffer is shared by two fields (a back reference to a value type).
    let node = Value::Object {
        r: 2,
        class: "p.Node".into(),
        id: -2,
        fields: vec![field("label", Value::String { v: "n".into() })],
        partial: false,
    };
    let receiver = Value::Object {
        r: 1,
        class: "p.Tree".into(),
        id: -1,
        fields: vec![
            field(
                "deep",
                Value::Ref {
                    r: 2,
                    class: "p.Node".into(),
                    id: -2,
                },
            ),
            field("root", node),
            field(
                "main",
                Value::Text {
                    r: 3,
                    class: "java.lang.StringBuilder".into(),
                    text: "ab".into(),
                },
            ),
            field("out", Value::BackRef { r: 3 }),
        ],
        partial: false,
    };
    let c = tree_size_call(receiver);
    let m = tree_size();
    let body = carve_open(&c, &m).unwrap();
    let text = body.lines.join("\n");
    // One node, allocated once and used for both fields; one buffer for both.
    assert_eq!(
        text.matches("CarveSupport.allocate(p.Node.class)").count(),
        1,
        "{text}"
    );
    assert!(
        text.contains("CarveSupport.set(tree, \"p.Tree\", \"deep\", node);"),
        "{text}"
    );
    assert!(
        text.contains("CarveSupport.set(tree, \"p.Tree\", \"root\", node);"),
        "{text}"
    );
    assert!(
        text.contains("java.lang.StringBuilder stringBuilder = new StringBuilder(\"ab\");"),
        "{text}"
    );
    assert!(text.contains("\"out\", stringBuilder);"), "{text}");
}
