//! Byte-identical round trips, compared against classfile-parser as a differential oracle.

use classfile_parser::constant_info::ConstantInfo;
use ferrosuite_bytecode::ClassFile;
use ferrosuite_bytecode::classpath::{ClassPath, ClassPathEntry};
use ferrosuite_bytecode::constant_pool::Constant;
use ferrosuite_bytecode::insn;

use crate::java;

/// Compares our model with classfile-parser's where it can read the class.
fn differential(name: &str, bytes: &[u8]) -> bool {
    let Ok((_, theirs)) = classfile_parser::class_parser(bytes) else {
        return false;
    };
    let ours = ClassFile::parse_named(bytes, name).unwrap();
    assert_eq!(
        ours.constant_pool.count(),
        theirs.const_pool_size as usize,
        "{name}: pool size"
    );
    // classfile-parser stores entries from index 1, with an Unusable after 8-byte entries.
    for (i, t) in theirs.const_pool.iter().enumerate() {
        let o = &ours.constant_pool.entries()[i + 1];
        let same = match (o, t) {
            (Constant::Utf8(b), ConstantInfo::Utf8(u)) => **b == u.bytes[..],
            (Constant::Integer(a), ConstantInfo::Integer(b)) => *a == b.value,
            (Constant::Float(a), ConstantInfo::Float(b)) => *a == b.value.to_bits(),
            (Constant::Long(a), ConstantInfo::Long(b)) => *a == b.value,
            (Constant::Double(a), ConstantInfo::Double(b)) => *a == b.value.to_bits(),
            (Constant::Class(a), ConstantInfo::Class(b)) => a.0 == b.name_index,
            (Constant::String(a), ConstantInfo::String(b)) => a.0 == b.string_index,
            (
                Constant::Methodref {
                    class,
                    name_and_type,
                },
                ConstantInfo::MethodRef(b),
            ) => class.0 == b.class_index && name_and_type.0 == b.name_and_type_index,
            (Constant::NameAndType { name, descriptor }, ConstantInfo::NameAndType(b)) => {
                name.0 == b.name_index && descriptor.0 == b.descriptor_index
            }
            (Constant::Unusable, ConstantInfo::Unusable) => true,
            (a, _) => !matches!(a, Constant::Unusable), // other kinds: same slot is enough
        };
        assert!(same, "{name}: constant #{} differs: {o:?} vs {t:?}", i + 1);
    }
    assert_eq!(ours.access_flags, theirs.access_flags.bits(), "{name}");
    assert_eq!(ours.fields.len(), theirs.fields.len(), "{name}");
    assert_eq!(ours.methods.len(), theirs.methods.len(), "{name}");
    for (m, tm) in ours.methods.iter().zip(&theirs.methods) {
        assert_eq!(m.name.0, tm.name_index, "{name}");
        assert_eq!(m.descriptor.0, tm.descriptor_index, "{name}");
        assert_eq!(m.attributes.len(), tm.attributes.len(), "{name}");
        let Some(code) = m.code() else { continue };
        let tcode = tm
            .attributes
            .iter()
            .find_map(|a| {
                classfile_parser::attribute_info::code_attribute_parser(&a.info)
                    .ok()
                    .map(|(_, c)| c)
            })
            .expect("classfile-parser sees the Code attribute");
        assert_eq!(code.code, tcode.code, "{name}: code bytes");
        assert_eq!(code.max_stack, tcode.max_stack, "{name}");
        assert_eq!(
            code.exception_table.len(),
            tcode.exception_table.len(),
            "{name}"
        );
        if let Ok((_, their_insns)) = classfile_parser::code_attribute::code_parser(&tcode.code) {
            let our_insns = insn::decode(&code.code).unwrap();
            assert_eq!(
                our_insns.len(),
                their_insns.len(),
                "{name}: instruction count"
            );
            for ((o, _), (t, _)) in our_insns.iter().zip(&their_insns) {
                assert_eq!(*o as usize, *t, "{name}: instruction offsets");
            }
        }
    }
    true
}

#[test]
fn fixtures_round_trip_and_agree_with_classfile_parser() {
    let (j8, j17) = java::fixtures();
    let mut n = 0;
    for dir in [j8, j17] {
        for (name, bytes) in java::class_files(dir) {
            let c = ClassFile::parse_named(&bytes, &name).unwrap();
            assert_eq!(c.to_bytes().unwrap(), bytes, "{name}");
            let insns_ok = c.methods.iter().filter_map(|m| m.code()).all(|code| {
                insn::encode_all(&insn::decode(&code.code).unwrap()).unwrap() == code.code
            });
            assert!(insns_ok, "{name}: instruction round trip");
            assert!(
                differential(&name, &bytes),
                "classfile-parser cannot read {name}"
            );
            n += 1;
        }
    }
    assert!(n >= 13, "only {n} fixture classes");
}

/// Every class of the running JDK's java.base reads and writes back identically; classfile-parser
/// agrees on the classes it can read (it rejects module-info and CONSTANT_Dynamic, which we read).
#[test]
fn java_base_round_trips() {
    let entries = ClassPathEntry::jdk(None).unwrap();
    let mut read = 0;
    let mut differential_checked = 0;
    for e in &entries {
        for f in e.files().unwrap() {
            let in_base = f.starts_with("java.base/")
                || (e.kind() == "jmod" && e.path().ends_with("java.base.jmod"));
            if !f.ends_with(".class") || !in_base {
                continue;
            }
            let bytes = e.read_file(&f).unwrap().unwrap();
            let c = ClassFile::parse_named(&bytes, &f).unwrap();
            assert_eq!(c.to_bytes().unwrap(), bytes, "{f}");
            read += 1;
            if read % 7 == 0 && differential(&f, &bytes) {
                differential_checked += 1;
            }
        }
    }
    assert!(read > 5000, "only {read} java.base classes");
    assert!(
        differential_checked > 500,
        "classfile-parser read only {differential_checked} sampled classes"
    );
}

#[test]
fn classpath_loads_lazily_and_caches() {
    let (j8, _) = java::fixtures();
    let cp = ClassPath::parse(&format!("{}:jrt", j8.display())).unwrap();
    let a = cp.load("examples/Stack").unwrap();
    let b = cp.load("examples/Stack").unwrap();
    assert!(std::sync::Arc::ptr_eq(&a, &b));
    assert_eq!(
        cp.load("java/lang/String").unwrap().name().unwrap(),
        "java/lang/String"
    );
    let err = cp.load("examples/Nope").unwrap_err().to_string();
    assert_eq!(err, "class examples.Nope not found on the class path");
    assert!(
        cp.class_names()
            .unwrap()
            .iter()
            .any(|n| n == "java/util/ArrayList")
    );
}
