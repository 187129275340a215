//! Trace probes for recording (`instrument::record`): every class of the subject jars and of
//! the fixtures, instrumented, passes `-Xverify:all`; the map names what the ids mean.

use std::path::Path;

use ferrosuite_bytecode::ClassFile;
use ferrosuite_bytecode::instrument::record::{
    ID_FIELD, INNER_SUFFIX, RecordFilter, RecordInstrumenter,
};
use ferrosuite_runtime as runtime;

use crate::java;

fn runtime_into(dir: &Path) {
    for (name, bytes) in runtime::CLASSES {
        let p = dir.join(format!("{name}.class"));
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(&p, bytes).unwrap();
    }
}

/// Instruments every class; returns (classes instrumented, methods recorded).
fn instrument_all(classes: &[(String, Vec<u8>)], out: &Path) -> (usize, usize) {
    let _ = std::fs::remove_dir_all(out);
    let mut inst = RecordInstrumenter::new(RecordFilter::default());
    let mut changed = 0;
    for (c, bytes) in classes {
        let class = ClassFile::parse_named(bytes, c).unwrap();
        let p = out.join(format!("{}.class", c.trim_end_matches(".class")));
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        // Classes left alone (interfaces) are written as they are.
        let Some(new) = inst
            .instrument(&class)
            .unwrap_or_else(|e| panic!("{c}: {e}"))
        else {
            std::fs::write(&p, bytes).unwrap();
            continue;
        };
        changed += 1;
        std::fs::write(&p, new.to_bytes().unwrap()).unwrap();
        // Instrumenting twice leaves the class alone.
        assert!(
            inst.instrument(&new).unwrap().is_none(),
            "{c} instrumented twice"
        );
    }
    runtime_into(out);
    (changed, inst.map().methods.len())
}

#[test]
fn subject_jars_with_trace_probes_verify() {
    for name in ["commons-lang3", "joda-time", "guava"] {
        let Some((jar, classes)) = java::subject_classes(name) else {
            continue;
        };
        let out = java::tmp(&format!("record-{name}")).join("out");
        let (changed, methods) = instrument_all(&classes, &out);
        eprintln!(
            "{name}: {} classes, {changed} instrumented, {methods} methods",
            classes.len()
        );
        assert!(
            changed > classes.len() / 2,
            "{name}: {changed} of {}",
            classes.len()
        );
        let (ok, n, text) = java::verify_all(&out, &[&jar]);
        assert_eq!(ok, n, "{name}: {text}");
    }
}

#[test]
fn fixture_classes_with_trace_probes_verify_and_keep_their_members() {
    let (java8, java17) = java::fixtures();
    // Java 17 class files too: records, sealed types, nest mates.
    let modern = java::class_files(java17);
    let out17 = java::tmp("record-fixtures-17").join("out");
    let (changed, _) = instrument_all(&modern, &out17);
    assert!(changed > 3);
    let (ok, n, text) = java::verify_all(&out17, &[]);
    assert_eq!(ok, n, "{text}");
    let classes = java::class_files(java8);
    let out = java::tmp("record-fixtures").join("out");
    let (changed, _) = instrument_all(&classes, &out);
    assert!(changed > 10);
    let (ok, n, text) = java::verify_all(&out, &[]);
    assert_eq!(ok, n, "{text}");
    // A wrapped class keeps every original method and gains the renamed bodies and the id.
    let (name, bytes) = classes
        .iter()
        .find(|(c, _)| c.trim_end_matches(".class") == "examples/Stack")
        .expect("examples/Stack is a fixture");
    let before = ClassFile::parse(bytes).unwrap();
    let file = out.join(format!("{}.class", name.trim_end_matches(".class")));
    let after = ClassFile::parse(&std::fs::read(file).unwrap()).unwrap();
    let names = |c: &ClassFile| -> Vec<String> {
        c.methods
            .iter()
            .map(|m| c.member_name(m).unwrap().into_owned())
            .collect()
    };
    for m in names(&before) {
        assert!(names(&after).contains(&m), "{m} lost");
    }
    assert!(names(&after).iter().any(|m| m.ends_with(INNER_SUFFIX)));
    assert!(
        after
            .fields
            .iter()
            .any(|f| after.member_name(f).unwrap() == ID_FIELD)
    );
}
