//! Branch widening: a loop whose body grows past 32 KiB when instrumented, in a class with
//! stack maps (trampolines), one without (inverted conditions), and one where no trampoline fits.

use std::fmt::Write as _;
use std::path::Path;

use ferrosuite_bytecode::ClassFile;
use ferrosuite_bytecode::attributes::AttributeBody;
use ferrosuite_bytecode::classpath::ClassPath;
use ferrosuite_bytecode::insn::{self, Insn};
use ferrosuite_bytecode::instrument::offline::{self, OfflineConfig};
use ferrosuite_bytecode::opcodes as op;

use crate::java;

fn big_source(class: &str, with_try: bool) -> String {
    let mut s = format!(
        "public class {class} {{\n  public static int f(int x) {{\n    int r = 0;\n    for (int i = 0; i < x; i++) {{\n"
    );
    for k in 0..2600 {
        if with_try && k == 1300 {
            s.push_str(
                "      try { r = r / (i - 2); } catch (ArithmeticException e) { r = r + 1; }\n",
            );
        }
        if k % 2 == 0 {
            s.push_str("      r = r * 31 + i;\n");
        } else {
            s.push_str("      r = r ^ (r >>> 7);\n");
        }
    }
    s.push_str("    }\n    if (x < 0) { r = -r - 1; }\n    return r;\n  }\n");
    let _ = write!(
        s,
        "  public static void main(String[] a) {{ System.out.println(f(3) + \" \" + f(0) + \" \" + f(-2) + \" \" + f(7)); }}\n}}\n"
    );
    s
}

fn compile(name: &str, with_try: bool) -> std::path::PathBuf {
    let dir = java::tmp(&format!("big-{name}"));
    let src = dir.join(format!("{name}.java"));
    std::fs::write(&src, big_source(name, with_try)).unwrap();
    let classes = dir.join("classes");
    java::javac(&[
        "-nowarn",
        "--release",
        "8",
        "-Xlint:-options",
        "-d",
        &classes.display().to_string(),
        &src.display().to_string(),
    ]);
    classes
}

fn widest_opcodes(class_file: &Path) -> Vec<u8> {
    let c = ClassFile::parse(&std::fs::read(class_file).unwrap()).unwrap();
    let f = c
        .methods
        .iter()
        .find(|m| c.member_name(m).unwrap() == "f")
        .unwrap();
    insn::decode(&f.code().unwrap().code)
        .unwrap()
        .into_iter()
        .map(|(_, i)| i.opcode())
        .collect()
}

fn instrument_and_run(classes: &Path, name: &str) -> (Vec<String>, Vec<u8>) {
    let out = java::tmp(&format!("big-{name}-inst")).join("out");
    let cp = ClassPath::parse(&classes.display().to_string()).unwrap();
    let (report, _) = offline::instrument_classpath(
        &cp,
        &out,
        &OfflineConfig::default(),
        ferrosuite_runtime::CLASSES,
        |_, _| {},
    )
    .unwrap();
    assert!(report.failures.is_empty(), "{:?}", report.failures);
    let o = java::java(&["-Xverify:all", "-cp", &classes.display().to_string(), name]);
    let i = java::java(&["-Xverify:all", "-cp", &out.display().to_string(), name]);
    assert_eq!(o, i, "{name}: instrumentation changed the result");
    (
        report.methods_skipped,
        widest_opcodes(&out.join(format!("{name}.class"))),
    )
}

#[test]
fn trampolines_when_stack_maps_are_required() {
    let classes = compile("BigFrames", true);
    let (skipped, ops) = instrument_and_run(&classes, "BigFrames");
    assert!(skipped.is_empty(), "{skipped:?}");
    assert!(
        ops.contains(&op::GOTO_W),
        "the loop's back edge and the trampoline use goto_w"
    );
    assert!(ops.iter().filter(|&&o| o == op::GOTO_W).count() >= 2);
}

#[test]
fn inverted_conditions_without_stack_maps() {
    let classes = compile("BigOld", true);
    // Make it a Java 5 class file without StackMapTable: the JVM verifies it by type inference.
    let path = classes.join("BigOld.class");
    let mut c = ClassFile::parse(&std::fs::read(&path).unwrap()).unwrap();
    c.major_version = 49;
    for m in &mut c.methods {
        if let Some(code) = m.code_mut() {
            code.attributes
                .retain(|a| !matches!(a.body, AttributeBody::StackMapTable(_)));
        }
    }
    std::fs::write(&path, c.to_bytes().unwrap()).unwrap();
    let (skipped, ops) = instrument_and_run(&classes, "BigOld");
    assert!(skipped.is_empty(), "{skipped:?}");
    // if_icmpge over the body became if_icmplt +8; goto_w.
    let pos = ops
        .iter()
        .position(|&o| o == op::IF_ICMPLT)
        .expect("inverted condition");
    assert_eq!(ops[pos + 1], op::GOTO_W);
}

#[test]
fn methods_that_cannot_be_widened_stay_original_with_a_reason() {
    let classes = compile("BigNoSite", false);
    let (skipped, ops) = instrument_and_run(&classes, "BigNoSite");
    assert_eq!(skipped.len(), 1, "{skipped:?}");
    assert!(
        skipped[0].starts_with("BigNoSite.f(I)I: "),
        "{}",
        skipped[0]
    );
    assert!(
        skipped[0].contains("no place for a trampoline"),
        "{}",
        skipped[0]
    );
    assert!(
        !ops.contains(&op::INVOKESTATIC),
        "f keeps its original code"
    );
}

#[test]
fn goto_widening_keeps_jsr_subroutines_and_switches_exact() {
    // Synthetic code: a switch and a backward goto around a block padded to 40 KB with `nop`s
    // cannot be written by javac; the editor must relayout switch padding and widen the goto.
    use ferrosuite_bytecode::attributes::Code;
    use ferrosuite_bytecode::instrument::editor::{CodeEditor, Landing};
    use ferrosuite_bytecode::stackmap::FrameState;
    let mut code = vec![0x03, 0x3b]; // iconst_0; istore_0
    let loop_head = code.len() as u32;
    code.push(0x1a); // iload_0
    // tableswitch at offset 3: padding to 4, default +N, low 0, high 1, two targets
    let ts_at = code.len() as u32;
    code.push(op::TABLESWITCH);
    while code.len() % 4 != 0 {
        code.push(0);
    }
    let after_switch = ts_at + 1 + ((4 - (ts_at + 1) % 4) % 4) + 12 + 8;
    for rel in [
        after_switch - ts_at,
        0,
        1,
        after_switch - ts_at,
        after_switch - ts_at,
    ] {
        code.extend_from_slice(&(rel as i32).to_be_bytes());
    }
    // Fix the layout: default, low=0, high=1, targets.
    let base = (ts_at + 1 + (4 - (ts_at + 1) % 4) % 4) as usize;
    code[base..base + 4].copy_from_slice(&((after_switch - ts_at) as i32).to_be_bytes());
    code[base + 4..base + 8].copy_from_slice(&0i32.to_be_bytes());
    code[base + 8..base + 12].copy_from_slice(&1i32.to_be_bytes());
    code.resize(after_switch as usize, 0);
    code.extend(std::iter::repeat_n(op::NOP, 20_000));
    code.push(0x84); // iinc 0 1
    code.extend_from_slice(&[0, 1]);
    let goto_at = code.len() as u32;
    code.push(op::GOTO);
    code.extend_from_slice(&((loop_head as i32 - goto_at as i32) as i16).to_be_bytes());
    let orig = Code {
        max_stack: 1,
        max_locals: 1,
        code,
        exception_table: vec![],
        attributes: vec![],
    };
    let decoded = insn::decode(&orig.code).unwrap();
    let mut ed = CodeEditor::new(&orig).unwrap();
    // Double the distance with inserted nops before every nop.
    for (k, (_, i)) in decoded.iter().enumerate() {
        if i.opcode() == op::NOP {
            ed.insert_before(k, vec![Insn::Simple(op::NOP)], Landing::OnInserted, 0)
                .unwrap();
        }
    }
    let new = ed.finish(&orig, &FrameState::default(), false).unwrap();
    let back = insn::decode(&new.code).unwrap();
    let (at, last) = back.last().unwrap();
    assert_eq!(last.opcode(), op::GOTO_W);
    let Insn::Branch { target, .. } = last else {
        unreachable!()
    };
    assert_eq!(
        *target, loop_head,
        "goto_w at {at} returns to the loop head"
    );
    let sw = back
        .iter()
        .find(|(_, i)| i.opcode() == op::TABLESWITCH)
        .unwrap();
    let Insn::TableSwitch {
        default, targets, ..
    } = &sw.1
    else {
        unreachable!()
    };
    let first_nop = back.iter().find(|(_, i)| i.opcode() == op::NOP).unwrap().0;
    assert_eq!(*default, first_nop);
    assert_eq!(targets, &vec![first_nop, first_nop]);
}
