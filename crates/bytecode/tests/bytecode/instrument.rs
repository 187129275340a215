//! Instrumented fixtures: same output under -Xverify:all, probe data as expected.

use std::path::Path;

use ferrosuite_bytecode::ClassFile;
use ferrosuite_bytecode::classpath::ClassPath;
use ferrosuite_bytecode::instrument::data::ProbeData;
use ferrosuite_bytecode::instrument::map::{BranchSite, MethodProbes, ProbeMap};
use ferrosuite_bytecode::instrument::offline::{self, OfflineConfig};
use ferrosuite_bytecode::instrument::probes::{Instrumenter, ProbeConfig};

use crate::java;

fn instrument_dir(input: &Path, name: &str) -> (std::path::PathBuf, ProbeMap) {
    let out = java::tmp(name).join("out");
    let cp = ClassPath::parse(&input.display().to_string()).unwrap();
    let (report, map) = offline::instrument_classpath(
        &cp,
        &out,
        &OfflineConfig::default(),
        ferrosuite_runtime::CLASSES,
        |_, _| {},
    )
    .unwrap();
    assert!(report.failures.is_empty(), "{:?}", report.failures);
    assert!(
        report.methods_skipped.is_empty(),
        "{:?}",
        report.methods_skipped
    );
    (out, map)
}

fn run_both(orig: &Path, inst: &Path, main: &str, data: &Path) -> String {
    let o = java::java(&["-Xverify:all", "-cp", &orig.display().to_string(), main]);
    let d = format!("-Dferrosuite.probes.out={}", data.display());
    let i = java::java(&["-Xverify:all", &d, "-cp", &inst.display().to_string(), main]);
    assert_eq!(o, i, "{main}: output changed by instrumentation");
    o
}

fn method<'a>(map: &'a ProbeMap, class: &str, name: &str) -> &'a MethodProbes {
    map.class(class)
        .unwrap()
        .methods
        .iter()
        .find(|m| m.name == name)
        .unwrap()
}

fn site(m: &MethodProbes, k: usize) -> &BranchSite {
    &m.branches[k]
}

#[test]
fn fixtures_behave_identically_and_stack_has_one_infeasible_outcome() {
    let (j8, j17) = java::fixtures();
    let (inst8, map8) = instrument_dir(j8, "inst8");
    let data = java::tmp("inst8-data").join("main.probes");
    let out = run_both(j8, &inst8, "examples.Main", &data);
    assert!(out.contains("empty stack after popping 10"));
    let d = ProbeData::parse(&std::fs::read_to_string(&data).unwrap()).unwrap();
    // Stack.push: `if (size >= values.length)` both ways; `if (size < values.length)` never jumps
    // (javac emits if_icmpge to the end: the jump is the infeasible else).
    let push = method(&map8, "examples/Stack", "push");
    assert_eq!(push.branches.len(), 2);
    let second = site(push, 1);
    assert_eq!(
        d.branch_hits(second.outcomes[0].slot.0),
        0,
        "infeasible else taken?"
    );
    assert_eq!(
        d.branch_hits(second.outcomes[1].slot.0),
        5,
        "Main pushes five values"
    );
    let first = site(push, 0);
    assert_eq!(
        d.branch_hits(first.outcomes[0].slot.0) + d.branch_hits(first.outcomes[1].slot.0),
        5
    );
    assert!(
        d.branch_hits(first.outcomes[0].slot.0) > 0 && d.branch_hits(first.outcomes[1].slot.0) > 0
    );
    // Every case of Branches.table and of the string switch was reached.
    for name in ["table", "lookup", "colors"] {
        let m = method(&map8, "examples/Branches", name);
        for s in &m.branches {
            for o in &s.outcomes {
                assert!(
                    d.branch_hits(o.slot.0) > 0,
                    "Branches.{name} {} {}",
                    s.offset,
                    o.label
                );
            }
        }
    }
    let table = method(&map8, "examples/Branches", "table");
    let labels: Vec<&str> = table.branches[0]
        .outcomes
        .iter()
        .map(|o| o.label.as_str())
        .collect();
    assert_eq!(
        labels,
        ["case 1", "case 2", "case 4", "case 5", "default"],
        "gap keys fold into default"
    );

    let (inst17, _) = instrument_dir(j17, "inst17");
    let data17 = java::tmp("inst17-data").join("shapes.probes");
    let out = run_both(j17, &inst17, "modern.Shapes", &data17);
    assert!(out.contains("Rect[w=1.0, h=2.0]"));
}

#[test]
fn distances_are_graded() {
    let (j8, _) = java::fixtures();
    let (inst, map) = instrument_dir(j8, "inst-dist");
    let data = java::tmp("dist-data").join("d.probes");
    let out = run_both(j8, &inst, "examples.Distances", &data);
    assert_eq!(out.trim(), "false false false false false false 0 0");
    let d = ProbeData::parse(&std::fs::read_to_string(&data).unwrap()).unwrap();
    let dist = |name: &str, k: usize, outcome: usize| {
        let m = method(&map, "examples/Distances", name);
        d.branches
            .get(&m.branches[k].outcomes[outcome].slot.0)
            .map_or(f64::INFINITY, |b| b.1)
    };
    // `if (s.equals("gamma"))` compiles to `ifeq` (jump when false): "gamm" takes the jump, and
    // the distance to falling through (equals true) is the edit distance 1.
    assert_eq!(dist("isGamma", 0, 0), 0.0);
    assert_eq!(dist("isGamma", 0, 1), 1.0);
    // startsWith("pre") on "pxe": edit distance of "pxe" to "pre" is 1.
    assert_eq!(dist("startsPre", 0, 1), 1.0);
    // isEmpty on "abcd": distance 4.
    assert_eq!(dist("empty", 0, 1), 4.0);
    // lcmp replaced: 1000 < 1 is false; the jump (ifge) is taken, the distance to a < b is 1000.
    assert_eq!(dist("lessLong", 0, 1), 1000.0);
    // dcmpg replaced: 5.5 < 2.0 returns ceil(3.5) = 4 for `ifge`; turning 4 negative takes 5.
    assert_eq!(dist("lessDouble", 0, 1), 5.0);
    // if_icmpne 3, 10: distance to equality 7.
    assert_eq!(dist("equalInt", 0, 1), 7.0);
    // switch on 13 with keys 10, 20: distances 3 and 7, default taken.
    let pick = method(&map, "examples/Distances", "pick");
    let slots: Vec<f64> = pick.branches[0]
        .outcomes
        .iter()
        .map(|o| d.branches[&o.slot.0].1)
        .collect();
    assert_eq!(slots, [3.0, 7.0, 0.0]);
    // countDown(5): the loop head is offset 0, so the back edge jumps to 0: the entry probe
    // counts 1; the loop probe counts the 5 executions of the backward `ifgt` (4 taken).
    let cd = method(&map, "examples/Distances", "countDown");
    assert_eq!(d.methods[&cd.id.0], 1);
    assert_eq!(d.loops[&cd.loops[0].id.0], 5);
    assert_eq!(d.branch_hits(cd.branches[0].outcomes[0].slot.0), 4);
}

#[test]
fn static_reset_restores_initial_state() {
    let (j8, _) = java::fixtures();
    let (inst, map) = instrument_dir(j8, "inst-reset");
    let statics = map.class("examples/Statics").unwrap();
    assert_eq!(statics.reset_method.as_deref(), Some("__ferrosuite_reset"));
    assert_eq!(statics.definalized, ["TABLE"]);
    let out = java::run_tool("ResetCheck", &inst);
    assert_eq!(
        out,
        "initial 0/100/0/init;\nchanged 2/103/2/init;\nreset 0/100/0/init;\nagain 1/101/1/init;\n\
         serialVersionUID final=true\nCONSTANT final=true\nNAME final=true\nTABLE final=false\ncounter final=false\n"
    );
}

#[test]
fn enums_keep_identity_and_constant_values_are_restored() {
    use ferrosuite_bytecode::attributes::{Attribute, AttributeBody};
    let (j8, _) = java::fixtures();
    let (_, map) = instrument_dir(j8, "inst-enum");
    let color = map.class("examples/Branches$Color").unwrap();
    assert_eq!(color.reset_method, None);
    assert_eq!(
        color.notes,
        ["no static reset: cannot rewrite code: enum constants must keep their identity"]
    );
    // A non-final static with a ConstantValue attribute (javac never writes one; other compilers
    // may): the JVM initialises it to the constant, so the reset must restore the constant.
    let dir = java::tmp("constant-value");
    let input = dir.join("in");
    for (rel, bytes) in java::class_files(j8) {
        let p = input.join(&rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        let mut c = ClassFile::parse(&bytes).unwrap();
        if rel.ends_with("Statics.class") {
            let five = c.constant_pool.add_integer(5).unwrap();
            let name = c.constant_pool.add_utf8("ConstantValue").unwrap();
            let counter = c
                .fields
                .iter_mut()
                .find(|f| c.constant_pool.utf8(f.name).unwrap() == "counter")
                .unwrap();
            counter.attributes.push(Attribute {
                name,
                body: AttributeBody::ConstantValue(five),
            });
        }
        std::fs::write(p, c.to_bytes().unwrap()).unwrap();
    }
    let (inst, _) = instrument_dir(&input, "constant-value-inst");
    let out = java::run_tool("ResetCheck", &inst);
    assert!(
        out.starts_with("initial 5/100/0/init;\nchanged 7/113/2/init;\nreset 5/100/0/init;\nagain 6/106/1/init;\n"),
        "{out}"
    );
}

#[test]
fn static_initialisers_never_abort() {
    let (j8, _) = java::fixtures();
    let (inst, _) = instrument_dir(j8, "inst-abort");
    let out = java::run_tool("AbortCheck", &inst);
    assert_eq!(
        out,
        "initialised examples.Statics\nstate threw org.ferrosuite.rt.AbortError: test aborted\nstate 0/100/0/init;\n"
    );
}

#[test]
fn instrumentation_is_deterministic_and_refuses_to_run_twice() {
    let (j8, _) = java::fixtures();
    let files = java::class_files(j8);
    let run = || {
        let mut inst = Instrumenter::new(ProbeConfig::default());
        let bytes: Vec<Vec<u8>> = files
            .iter()
            .map(|(_, b)| {
                inst.instrument(&ClassFile::parse(b).unwrap())
                    .unwrap()
                    .to_bytes()
                    .unwrap()
            })
            .collect();
        (bytes, serde_json::to_string(&inst.into_map()).unwrap())
    };
    let (a, ma) = run();
    let (b, mb) = run();
    assert_eq!(a, b);
    assert_eq!(ma, mb);
    let twice =
        Instrumenter::new(ProbeConfig::default()).instrument(&ClassFile::parse(&a[0]).unwrap());
    let msg = twice.unwrap_err().to_string();
    assert!(
        msg.ends_with("cannot rewrite code: class is already instrumented by ferrosuite"),
        "{msg}"
    );
}

#[test]
fn each_probe_kind_alone_keeps_classes_valid() {
    let (j8, _) = java::fixtures();
    for kind in [
        "branch",
        "line",
        "method",
        "loop",
        "compare",
        "string",
        "static-write",
        "static-reset",
    ] {
        let out = java::tmp(&format!("kind-{kind}")).join("out");
        let cp = ClassPath::parse(&j8.display().to_string()).unwrap();
        let cfg = OfflineConfig {
            probes: ProbeConfig::parse_list(kind).unwrap(),
            ..OfflineConfig::default()
        };
        offline::instrument_classpath(&cp, &out, &cfg, ferrosuite_runtime::CLASSES, |_, _| {})
            .unwrap();
        let o = java::java(&[
            "-Xverify:all",
            "-cp",
            &out.display().to_string(),
            "examples.Main",
        ]);
        assert!(o.contains("2/103/2/init;"), "{kind}: {o}");
    }
}

#[test]
fn offline_output_never_overwrites_inputs() {
    let (j8, _) = java::fixtures();
    let cp = ClassPath::parse(&j8.display().to_string()).unwrap();
    let err = offline::instrument_classpath(
        &cp,
        j8,
        &OfflineConfig::default(),
        ferrosuite_runtime::CLASSES,
        |_, _| {},
    )
    .unwrap_err();
    assert!(
        err.to_string()
            .contains("output directory overlaps the input"),
        "{err}"
    );
    let inside = j8.join("sub");
    let err = offline::instrument_classpath(
        &cp,
        &inside,
        &OfflineConfig::default(),
        ferrosuite_runtime::CLASSES,
        |_, _| {},
    )
    .unwrap_err();
    assert!(err.to_string().contains("overlaps"), "{err}");
    let nonempty = java::tmp("nonempty");
    std::fs::write(nonempty.join("keep.txt"), "mine").unwrap();
    let err = offline::instrument_classpath(
        &cp,
        &nonempty,
        &OfflineConfig::default(),
        ferrosuite_runtime::CLASSES,
        |_, _| {},
    )
    .unwrap_err();
    assert!(err.to_string().contains("not empty"), "{err}");
    assert_eq!(
        std::fs::read_to_string(nonempty.join("keep.txt")).unwrap(),
        "mine"
    );
}

#[test]
fn redirection_reaches_calls_method_references_and_fields() {
    use ferrosuite_bytecode::instrument::redirect::{MemberSpec, Redirect, RedirectKind, redirect};
    let (j8, _) = java::fixtures();
    let out = java::tmp("redirect");
    for (rel, bytes) in java::class_files(j8) {
        let p = out.join(&rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, bytes).unwrap();
    }
    let path = out.join("examples/Exits.class");
    let mut class = ClassFile::parse(&std::fs::read(&path).unwrap()).unwrap();
    let rules = [
        Redirect {
            from: MemberSpec::new("java/lang/System", "exit", "(I)V"),
            to: MemberSpec::new("examples/Guard", "exit", "(I)V"),
            kind: RedirectKind::Reference,
        },
        Redirect {
            from: MemberSpec::new("java/lang/Runtime", "halt", "(I)V"),
            to: MemberSpec::new("examples/Guard", "halt", "(Ljava/lang/Runtime;I)V"),
            kind: RedirectKind::InstanceToStatic,
        },
        Redirect {
            from: MemberSpec::new("java/lang/System", "out", "Ljava/io/PrintStream;"),
            to: MemberSpec::new("examples/Guard", "out", "Ljava/io/PrintStream;"),
            kind: RedirectKind::Reference,
        },
    ];
    // 2 call sites + 2 method handles + 5 getstatic System.out.
    assert_eq!(redirect(&mut class, &rules).unwrap(), 9);
    // Instrumented afterwards, the redirected code still verifies and runs.
    let class = Instrumenter::new(ProbeConfig::default())
        .instrument(&class)
        .unwrap();
    std::fs::write(&path, class.to_bytes().unwrap()).unwrap();
    for (name, bytes) in ferrosuite_runtime::CLASSES {
        let p = out.join(format!("{name}.class"));
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, bytes).unwrap();
    }
    let o = java::java(&[
        "-Xverify:all",
        "-cp",
        &out.display().to_string(),
        "examples.Exits",
    ]);
    assert_eq!(
        o,
        "[guard] before\nexit(3) intercepted\n[guard] after exit\nexit(5) intercepted\n[guard] after method reference\n\
         halt(4) intercepted\n[guard] after halt\nhalt(6) intercepted\n[guard] done\n"
    );
    let bad = Redirect {
        from: MemberSpec::new("java/lang/System", "exit", "(I)V"),
        to: MemberSpec::new("examples/Guard", "exit", "(J)V"),
        kind: RedirectKind::Reference,
    };
    let err = redirect(
        &mut ClassFile::parse(&std::fs::read(j8.join("examples/Exits.class")).unwrap()).unwrap(),
        &[bad],
    );
    assert_eq!(
        err.unwrap_err().to_string(),
        "cannot rewrite code: cannot redirect java/lang/System.exit(I)V to examples/Guard.exit(J)V: descriptors differ"
    );
}

#[test]
fn inputs_inside_the_output_directory_are_refused() {
    // A jar inside the output directory could be overwritten by an entry of the same path.
    let (j8, _) = java::fixtures();
    let out = java::tmp("jar-inside-out");
    let jar = out.join("lib.jar");
    let jar_tool = ferrosuite_bytecode::classpath::find_java_home()
        .unwrap()
        .join("bin/jar");
    let st = std::process::Command::new(jar_tool)
        .args([
            "cf",
            &jar.display().to_string(),
            "-C",
            &j8.display().to_string(),
            ".",
        ])
        .status()
        .unwrap();
    assert!(st.success());
    let before = std::fs::read(&jar).unwrap();
    let cp = ClassPath::parse(&jar.display().to_string()).unwrap();
    let cfg = OfflineConfig {
        overwrite: true,
        ..OfflineConfig::default()
    };
    let err =
        offline::instrument_classpath(&cp, &out, &cfg, ferrosuite_runtime::CLASSES, |_, _| {})
            .unwrap_err();
    assert!(
        err.to_string()
            .contains("output directory overlaps the input"),
        "{err}"
    );
    assert_eq!(std::fs::read(&jar).unwrap(), before);
}
