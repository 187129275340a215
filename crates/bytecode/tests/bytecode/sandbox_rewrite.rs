//! The sandbox (`instrument::sandbox`) as a rewrite of class files: guards, bridges, errors.
//!
//! Calls are guarded (through subclasses given a hierarchy), method handles point to guarding
//! bridges, classes without matches stay byte-identical, sandboxing is idempotent, errors name
//! where they happened, and the Debian subject jars still verify.

use std::path::Path;
use std::time::Instant;

use ferrosuite_bytecode::ClassFile;
use ferrosuite_bytecode::classfile::access;
use ferrosuite_bytecode::classpath::ClassPath;
use ferrosuite_bytecode::constant_pool::Constant;
use ferrosuite_bytecode::hierarchy::Hierarchy;
use ferrosuite_bytecode::insn::{self, Insn};
use ferrosuite_bytecode::instrument::probes::{Instrumenter, ProbeConfig};
use ferrosuite_bytecode::instrument::sandbox::{
    Action, BRIDGE_PREFIX, Rule, SANDBOX_CLASS, SandboxReport, SandboxRules, sandbox, sandbox_bytes,
};
use ferrosuite_bytecode::opcodes as op;
use ferrosuite_runtime as runtime;

use crate::java;
use crate::sandbox_runs::{hostile, write_runtime};

/// Invokes of each method as (method, `owner.name`, descriptor, whether a Sandbox guard
/// directly precedes it).
fn calls(c: &ClassFile) -> Vec<(String, String, String, bool)> {
    let mut out = Vec::new();
    for m in &c.methods {
        let Some(code) = m.code() else { continue };
        let name = c.member_name(m).unwrap().into_owned();
        let decoded = insn::decode(&code.code).unwrap();
        for (k, (_, i)) in decoded.iter().enumerate() {
            let index = match i {
                Insn::Cp {
                    op: op::INVOKEVIRTUAL | op::INVOKESPECIAL | op::INVOKESTATIC,
                    index,
                }
                | Insn::InvokeInterface { index, .. } => *index,
                _ => continue,
            };
            let r = c.constant_pool.member_ref(index).unwrap();
            if r.class == SANDBOX_CLASS {
                continue;
            }
            let guarded = k > 0
                && matches!(&decoded[k - 1].1, Insn::Cp { op: op::INVOKESTATIC, index: g }
                    if c.constant_pool.member_ref(*g).unwrap().class == SANDBOX_CLASS);
            out.push((
                name.clone(),
                format!("{}.{}", r.class, r.name),
                r.descriptor.into_owned(),
                guarded,
            ));
        }
    }
    out
}

#[test]
fn calls_through_subclasses_need_the_hierarchy() {
    let (j8, _, _) = hostile();
    let bytes = std::fs::read(j8.join("hostile/FileOps.class")).unwrap();
    let rules = SandboxRules::default();
    let guarded = |c: &ClassFile, owner_name: &str| -> Vec<bool> {
        calls(c)
            .into_iter()
            .filter(|(_, callee, _, _)| callee == owner_name)
            .map(|(_, _, _, g)| g)
            .collect()
    };
    let mut plain = ClassFile::parse(&bytes).unwrap();
    let r1 = sandbox(&mut plain, &rules, None).unwrap();
    assert_eq!(guarded(&plain, "hostile/MyFile.delete"), [false]);
    assert_eq!(guarded(&plain, "hostile/SafeFile.delete"), [false]);
    assert!(guarded(&plain, "java/io/File.delete").iter().all(|g| *g));
    let cp = ClassPath::parse(&format!("{}:jrt", j8.display())).unwrap();
    let h = Hierarchy::new(&cp);
    let mut full = ClassFile::parse(&bytes).unwrap();
    let r2 = sandbox(&mut full, &rules, Some(&h)).unwrap();
    assert_eq!(guarded(&full, "hostile/MyFile.delete"), [true]);
    assert_eq!(guarded(&full, "hostile/SafeFile.delete"), [true]);
    assert_eq!(r2.call_sites(), r1.call_sites() + 2);
    assert_eq!(
        r2.guarded["java.io.File.delete"],
        r1.guarded["java.io.File.delete"] + 2
    );
    // Without JDK classes on the hierarchy's class path, the superclass chain still resolves
    // as far as it goes (hostile/MyFile → java/io/File).
    let cp = ClassPath::parse(&j8.display().to_string()).unwrap();
    let h = Hierarchy::new(&cp);
    let mut partial = ClassFile::parse(&bytes).unwrap();
    let r3 = sandbox(&mut partial, &rules, Some(&h)).unwrap();
    assert_eq!(r3.call_sites(), r2.call_sites());
    // Constructors match through the hierarchy only for JDK owners (whose own super calls are
    // not sandboxed): `new ByteArrayOutputStream()` under a rule for OutputStream's.
    let custom = SandboxRules::new(vec![Rule::deny("java/io/OutputStream", "<init>")]);
    let mut c = ClassFile::parse(&bytes).unwrap();
    assert!(!sandbox(&mut c, &custom, None).unwrap().changed());
    let cp = ClassPath::parse(&format!("{}:jrt", j8.display())).unwrap();
    let h = Hierarchy::new(&cp);
    let r = sandbox(&mut c, &custom, Some(&h)).unwrap();
    assert!(r.guarded["java.io.OutputStream.<init>"] > 2, "{r:?}");
    assert!(
        guarded(&c, "java/io/FileOutputStream.<init>")
            .iter()
            .all(|g| *g)
    );
    assert_eq!(
        guarded(&c, "java/io/ByteArrayOutputStream.<init>"),
        [true, true]
    );
    // SafeFile's own super.delete() is guarded without any hierarchy.
    let mut safe =
        ClassFile::parse(&std::fs::read(j8.join("hostile/SafeFile.class")).unwrap()).unwrap();
    sandbox(&mut safe, &rules, None).unwrap();
    assert_eq!(guarded(&safe, "java/io/File.delete"), [true]);
}

#[test]
fn method_handles_point_to_guarding_bridges() {
    let (j8, _, _) = hostile();
    let mut c =
        ClassFile::parse(&std::fs::read(j8.join("hostile/FileOps.class")).unwrap()).unwrap();
    let report = sandbox(&mut c, &SandboxRules::default(), None).unwrap();
    assert_eq!(
        report.handles,
        [
            ("java.io.File.delete".to_string(), 1),
            ("java.io.FileOutputStream.<init>".to_string(), 1),
            ("java.io.RandomAccessFile.<init>".to_string(), 1),
        ]
        .into_iter()
        .collect()
    );
    let rules = SandboxRules::default();
    let this = c.name().unwrap().into_owned();
    for e in c.constant_pool.entries() {
        if let Constant::MethodHandle { kind, reference } = e {
            let r = c.constant_pool.member_ref(*reference).unwrap();
            let denied = rules
                .lookup(&r.class, &r.name, &r.descriptor)
                .is_some_and(|rule| rule.action != Action::Allow);
            assert!(!denied, "handle still names {}.{}", r.class, r.name);
            if r.name.starts_with(BRIDGE_PREFIX) {
                assert_eq!(*kind, 6);
                assert_eq!(r.class, this);
            }
        }
    }
    // In an interface, the bridge is an interface method.
    let mut i =
        ClassFile::parse(&std::fs::read(j8.join("hostile/Exits$Exiting.class")).unwrap()).unwrap();
    let r = sandbox(&mut i, &SandboxRules::default(), None).unwrap();
    assert_eq!(r.bridges, 1);
    let handles: Vec<bool> = i
        .constant_pool
        .entries()
        .iter()
        .filter_map(|e| match e {
            Constant::MethodHandle { kind: 6, reference } => {
                let m = i.constant_pool.member_ref(*reference).unwrap();
                m.name.starts_with(BRIDGE_PREFIX).then_some(m.interface)
            }
            _ => None,
        })
        .collect();
    assert_eq!(handles, [true]);
    let bridges: Vec<(String, String, u16)> = c
        .methods
        .iter()
        .filter(|m| c.member_name(m).unwrap().starts_with(BRIDGE_PREFIX))
        .map(|m| {
            (
                c.member_name(m).unwrap().into_owned(),
                c.member_descriptor(m).unwrap().into_owned(),
                m.access_flags,
            )
        })
        .collect();
    let descs: Vec<&str> = bridges.iter().map(|(_, d, _)| d.as_str()).collect();
    assert_eq!(
        descs,
        [
            "(Ljava/io/File;)Z",
            "(Ljava/lang/String;)Ljava/io/FileOutputStream;",
            "(Ljava/lang/String;Ljava/lang/String;)Ljava/io/RandomAccessFile;",
        ]
    );
    for (_, _, flags) in &bridges {
        assert_eq!(*flags, access::PRIVATE | access::STATIC | access::SYNTHETIC);
    }
    // Every call of a denied API (bridges included) is guarded.
    for (method, callee, desc, guarded) in calls(&c) {
        let (owner, name) = callee.rsplit_once('.').unwrap();
        let denied = rules
            .lookup(owner, name, &desc)
            .is_some_and(|r| r.action != Action::Allow);
        assert_eq!(guarded, denied, "{method}: {callee}{desc}");
    }
}

#[test]
fn unmatched_classes_stay_byte_identical_and_sandboxing_is_idempotent() {
    let (f8, f17) = java::fixtures();
    let (h8, h17, _) = hostile();
    let rules = SandboxRules::default();
    let mut changed = Vec::new();
    for dir in [f8, f17, h8, h17] {
        let cp = ClassPath::parse(&format!("{}:jrt", dir.display())).unwrap();
        let h = Hierarchy::new(&cp);
        for (rel, bytes) in java::class_files(dir) {
            let (once, report) = sandbox_bytes(&bytes, &rules, Some(&h)).unwrap();
            let Some(once) = once else {
                // No change: the parsed and written class is the original, byte for byte.
                let mut c = ClassFile::parse(&bytes).unwrap();
                let r = sandbox(&mut c, &rules, Some(&h)).unwrap();
                assert!(!r.changed());
                assert_eq!(c.to_bytes().unwrap(), bytes, "{rel}");
                continue;
            };
            changed.push(rel.clone());
            let (twice, again) = sandbox_bytes(&once, &rules, Some(&h)).unwrap();
            assert!(twice.is_none(), "{rel}: second pass changed it: {again:?}");
            assert_eq!(
                again.already_guarded,
                report.call_sites() + report.bridges,
                "{rel}"
            );
        }
    }
    changed.sort();
    changed.dedup();
    eprintln!("changed: {changed:?}");
    // Other fixtures may come to call guarded APIs too; these must be among the changed.
    let expected = [
        "examples/Exits.class",
        "hostile/Exits$Exiting.class",
        "hostile/Exits.class",
        "hostile/FileOps.class",
        "hostile/Modern$Victim.class",
        "hostile/Modern.class",
        "hostile/Network.class",
        "hostile/Processes.class",
        "hostile/SafeFile.class",
    ];
    for e in expected {
        assert!(
            changed.iter().any(|c| c == e),
            "{e} not sandboxed: {changed:?}"
        );
    }
    for c in [
        "examples/Stack.class",
        "hostile/MyFile.class",
        "hostile/FileOps$IoFunction.class",
    ] {
        assert!(!changed.iter().any(|x| x == c), "{c} changed");
    }
}

#[test]
fn errors_name_class_method_and_offset() {
    // A method of 65535 bytes calling System.exit: the guard does not fit.
    let mut c = ClassFile::new_class("gen/Big", "java/lang/Object", 52).unwrap();
    let exit = c
        .constant_pool
        .add_method_ref("java/lang/System", "exit", "(I)V", false)
        .unwrap();
    let mut code = vec![op::NOP; 65535 - 5];
    code.push(op::ICONST_0);
    code.push(op::INVOKESTATIC);
    code.extend_from_slice(&exit.0.to_be_bytes());
    code.push(op::RETURN);
    let name = c.constant_pool.add_utf8("f").unwrap();
    let descriptor = c.constant_pool.add_utf8("()V").unwrap();
    let code_name = c.constant_pool.add_utf8("Code").unwrap();
    c.methods.push(ferrosuite_bytecode::Member {
        access_flags: access::STATIC,
        name,
        descriptor,
        attributes: vec![ferrosuite_bytecode::attributes::Attribute {
            name: code_name,
            body: ferrosuite_bytecode::attributes::AttributeBody::Code(
                ferrosuite_bytecode::attributes::Code {
                    max_stack: 1,
                    max_locals: 0,
                    code,
                    exception_table: Vec::new(),
                    attributes: Vec::new(),
                },
            ),
        }],
    });
    let before = c.to_bytes().unwrap();
    let err = sandbox(&mut c, &SandboxRules::default(), None)
        .unwrap_err()
        .to_string();
    assert_eq!(
        err,
        "gen.Big: method f()V: guarding 1 call site(s), the first at offset 65531: cannot rewrite code: \
         rewritten code is 65540 bytes long (the limit is 65535)"
    );
    assert_eq!(
        c.to_bytes().unwrap(),
        before,
        "a failed sandbox leaves the class alone"
    );
    // The runtime is never sandboxed.
    let (name, bytes) = runtime::CLASSES
        .iter()
        .find(|(n, _)| n.ends_with("/Probe"))
        .unwrap();
    let mut probe = ClassFile::parse(bytes).unwrap();
    let err = sandbox(&mut probe, &SandboxRules::default(), None)
        .unwrap_err()
        .to_string();
    assert_eq!(
        err,
        format!(
            "{}: cannot rewrite code: the ferrosuite runtime is not sandboxed",
            name.replace('/', ".")
        )
    );
}

#[test]
fn subject_jars_sandboxed_verify_and_unmatched_stay_identical() {
    let required = ferrosuite_testkit::subjects_required();
    let rules = SandboxRules::default();
    // commons-io (file-heavy) is not one of the required subjects: used when installed.
    for (name, subject) in [
        ("commons-lang3", true),
        ("guava", true),
        ("commons-io", false),
    ] {
        let jar = Path::new("/usr/share/java").join(format!("{name}.jar"));
        if !jar.exists() {
            assert!(
                !(required && subject),
                "{} is required (apt-get install the Debian package)",
                jar.display()
            );
            eprintln!("skipping {name}: {} not installed", jar.display());
            continue;
        }
        let jar_cp = ClassPath::parse(&jar.display().to_string()).unwrap();
        let entry = &jar_cp.entries()[0];
        let cp = ClassPath::parse(&format!("{}:jrt", jar.display())).unwrap();
        let h = Hierarchy::new(&cp);
        let out = java::tmp(&format!("sandbox-{name}")).join("out");
        let probed = java::tmp(&format!("sandbox-probed-{name}")).join("out");
        let mut total = SandboxReport::default();
        let (mut classes, mut unchanged, mut changed) = (0, 0, 0);
        let mut elapsed = std::time::Duration::ZERO;
        let mut inst = Instrumenter::new(ProbeConfig::default());
        for class in entry.class_names().unwrap() {
            let Some(bytes) = entry.class_bytes(&class).unwrap() else {
                continue;
            };
            if class.ends_with("module-info") {
                continue;
            }
            classes += 1;
            let start = Instant::now();
            let mut c = ClassFile::parse(&bytes).unwrap();
            let report = sandbox(&mut c, &rules, Some(&h)).unwrap_or_else(|e| panic!("{e}"));
            let new = c.to_bytes().unwrap();
            elapsed += start.elapsed();
            assert!(report.unguarded_handles.is_empty(), "{class}: {report:?}");
            total.merge(&report);
            if !report.changed() {
                assert_eq!(new, bytes, "{class} has no match but changed");
                unchanged += 1;
                continue;
            }
            changed += 1;
            let p = out.join(format!("{class}.class"));
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(&p, &new).unwrap();
            // Idempotent.
            let (again, r) = sandbox_bytes(&new, &rules, Some(&h)).unwrap();
            assert!(again.is_none(), "{class}: {r:?}");
            // After probes too.
            let mut pc = inst.instrument(&ClassFile::parse(&bytes).unwrap()).unwrap();
            let pr = sandbox(&mut pc, &rules, Some(&h)).unwrap();
            assert_eq!(pr.call_sites(), report.call_sites(), "{class}");
            let p = probed.join(format!("{class}.class"));
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(&p, pc.to_bytes().unwrap()).unwrap();
        }
        eprintln!(
            "{name}: {classes} classes sandboxed in {:.3} s: {changed} changed, {unchanged} byte-identical; \
             {} call sites guarded {:?}; {} method handles redirected {:?}",
            elapsed.as_secs_f64(),
            total.call_sites(),
            total.guarded,
            total.handles_redirected(),
            total.handles
        );
        if name != "commons-lang3" {
            // com.google.common.io.Files, MoreFiles, FileBackedOutputStream, …
            assert!(changed > 0, "{name}: nothing to guard?");
        }
        if changed == 0 {
            continue;
        }
        for dir in [&out, &probed] {
            write_runtime(dir);
            let (ok, n, text) = java::verify_all(dir, &[&jar]);
            assert_eq!(ok, n, "{name}: {text}");
            assert_eq!(n, changed, "{name}: {text}");
            assert!(!text.contains("VERIFY "), "{name}: {text}");
        }
    }
}
