//! Bad input: clear errors naming the class and byte offset, never a panic.

use ferrosuite_bytecode::ClassFile;
use ferrosuite_bytecode::classpath::ClassPath;
use ferrosuite_bytecode::instrument::probes::{Instrumenter, ProbeConfig};
use proptest::prelude::*;
use proptest::test_runner::{Config, RngSeed, TestRunner};

use crate::java;

fn stack_bytes() -> Vec<u8> {
    let (j8, _) = java::fixtures();
    std::fs::read(j8.join("examples/Stack.class")).unwrap()
}

#[test]
fn truncated_class_names_class_and_offset() {
    let bytes = stack_bytes();
    let err = ClassFile::parse_named(&bytes[..200], "examples/Stack.class")
        .unwrap_err()
        .to_string();
    assert!(
        err.starts_with("examples/Stack.class: truncated input at byte offset "),
        "{err}"
    );
    let err = ClassFile::parse_named(b"PK\x03\x04", "x.class")
        .unwrap_err()
        .to_string();
    assert_eq!(
        err,
        "x.class: not a class file: magic is 0x504B0304 at byte offset 0 (expected 0xCAFEBABE)"
    );
    let mut v = bytes.clone();
    v[6] = 0;
    v[7] = 99;
    let err = ClassFile::parse_named(&v, "A").unwrap_err().to_string();
    assert_eq!(
        err,
        "A: unsupported class file version 99.0 (supported: 45.0 to 69.65535)"
    );
    let mut v = bytes.clone();
    v[10] = 99; // first constant's tag
    let err = ClassFile::parse_named(&v, "A").unwrap_err().to_string();
    assert_eq!(
        err,
        "A: invalid constant pool tag 99 for entry #1 at byte offset 10"
    );
    let mut v = bytes;
    v.push(0);
    let err = ClassFile::parse_named(&v, "A").unwrap_err().to_string();
    assert!(err.contains("1 unexpected trailing bytes"), "{err}");
}

#[test]
fn corrupt_code_is_reported_with_method_and_offset() {
    let bytes = stack_bytes();
    let mut c = ClassFile::parse(&bytes).unwrap();
    let m = c
        .methods
        .iter_mut()
        .find(|m| m.code().is_some_and(|c| c.code.len() > 4))
        .unwrap();
    m.code_mut().unwrap().code[1] = 0xcb; // an undefined opcode
    // The class is instrumented; the broken method is left alone with its reason.
    let mut inst = Instrumenter::new(ProbeConfig::default());
    inst.instrument(&c).unwrap();
    let map = inst.into_map();
    let skipped: Vec<&String> = map.classes[0]
        .methods
        .iter()
        .filter_map(|m| m.skipped.as_ref())
        .collect();
    assert_eq!(skipped.len(), 1);
    assert!(
        skipped[0].contains("invalid bytecode at code offset 1: invalid opcode 0xcb"),
        "{}",
        skipped[0]
    );
}

/// A static reset that cannot be built (the copy of `<clinit>` would exceed 65535 bytes) leaves
/// the class as it was: fields stay final, no constants are added, the reason is noted.
#[test]
fn failed_static_reset_changes_nothing() {
    use ferrosuite_bytecode::access;
    use ferrosuite_bytecode::attributes::{Attribute, AttributeBody, Code};
    use ferrosuite_bytecode::{ClassFile, Member};
    let mut c = ClassFile::new_class("p/Huge", "java/lang/Object", 52).unwrap();
    let cp = &mut c.constant_pool;
    let field = Member {
        access_flags: access::STATIC | access::FINAL,
        name: cp.add_utf8("O").unwrap(),
        descriptor: cp.add_utf8("Ljava/lang/Object;").unwrap(),
        attributes: vec![],
    };
    let mut code = vec![0u8; 65_534]; // nop ...
    code.push(0xb1); // return
    let clinit = Member {
        access_flags: access::STATIC,
        name: cp.add_utf8("<clinit>").unwrap(),
        descriptor: cp.add_utf8("()V").unwrap(),
        attributes: vec![Attribute {
            name: cp.add_utf8("Code").unwrap(),
            body: AttributeBody::Code(Code {
                max_stack: 0,
                max_locals: 0,
                code,
                exception_table: vec![],
                attributes: vec![],
            }),
        }],
    };
    c.fields.push(field);
    c.methods.push(clinit);
    let mut inst = Instrumenter::new(ProbeConfig::parse_list("static-reset").unwrap());
    let out = inst.instrument(&c).unwrap();
    assert_eq!(out, c, "nothing changed");
    let notes = &inst.map().classes[0].notes;
    assert_eq!(notes.len(), 1);
    assert!(
        notes[0].contains("rewritten code is 65539 bytes long"),
        "{notes:?}"
    );
}

#[test]
fn directory_entries_do_not_read_outside_themselves() {
    let dir = java::tmp("escape");
    let e = ferrosuite_bytecode::classpath::ClassPathEntry::open(&dir).unwrap();
    assert!(e.read_file("/etc/passwd").unwrap().is_none());
    assert!(e.read_file("../escape/x").unwrap().is_none());
    assert!(e.class_bytes("/etc/passwd").unwrap().is_none());
}

#[test]
fn bad_class_path_entries_are_named() {
    let dir = java::tmp("badcp");
    let f = dir.join("notes.txt");
    std::fs::write(&f, "hello").unwrap();
    let err = ClassPath::parse(&f.display().to_string())
        .unwrap_err()
        .to_string();
    assert!(
        err.ends_with("notes.txt: not a directory, jar/zip, jmod or JDK image"),
        "{err}"
    );
    let err = ClassPath::parse("/nonexistent/x.jar")
        .unwrap_err()
        .to_string();
    assert!(err.starts_with("/nonexistent/x.jar: "), "{err}");
    let jar = dir.join("broken.jar");
    std::fs::write(&jar, b"PK\x03\x04garbage").unwrap();
    let err = ClassPath::parse(&jar.display().to_string())
        .unwrap_err()
        .to_string();
    assert!(err.contains("broken.jar"), "{err}");
    // A corrupt class inside a directory entry: the error names the file.
    std::fs::create_dir_all(dir.join("p")).unwrap();
    std::fs::write(dir.join("p/Bad.class"), [0xCA, 0xFE, 0xBA, 0xBE, 0, 0]).unwrap();
    let cp = ClassPath::parse(&dir.display().to_string()).unwrap();
    let err = cp.load("p/Bad").unwrap_err().to_string();
    assert!(
        err.contains("p/Bad.class: truncated input at byte offset 6 while reading major_version"),
        "{err}"
    );
}

/// Mutated and truncated class files never make the reader, writer or instrumenter panic.
#[test]
fn mutated_class_files_never_panic() {
    let (j8, j17) = java::fixtures();
    let seeds: Vec<Vec<u8>> = java::class_files(j8)
        .into_iter()
        .chain(java::class_files(j17))
        .map(|(_, b)| b)
        .collect();
    let mut runner = TestRunner::new(Config {
        cases: 3000,
        rng_seed: RngSeed::Fixed(0xF3_22_0B),
        ..Config::default()
    });
    let strategy = (
        0..seeds.len(),
        proptest::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 0..8),
        any::<prop::sample::Index>(),
        any::<bool>(),
    );
    runner
        .run(&strategy, |(k, flips, cut, truncate)| {
            let mut b = seeds[k].clone();
            for (i, v) in &flips {
                let at = i.index(b.len());
                b[at] = *v;
            }
            if truncate {
                b.truncate(cut.index(b.len()));
            }
            if let Ok(c) = ClassFile::parse(&b) {
                let _ = c.to_bytes();
                let _ = Instrumenter::new(ProbeConfig::default())
                    .instrument(&c)
                    .and_then(|i| i.to_bytes());
            }
            let _ = ferrosuite_bytecode::ClassHeader::parse(&b);
            Ok(())
        })
        .unwrap();
}
