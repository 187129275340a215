//! Bad input: unknown classes, classes without code, malformed code. Clear errors, no panic.

use ferrosuite_bytecode::ClassFile;
use ferrosuite_bytecode::classpath::ClassPath;
use ferrosuite_cfg::{Analyzer, ClassAnalysis, Config, CoupledBranches, Error};

use crate::{fixture_cp, fixtures};

#[test]
fn unknown_class_is_named() {
    let a = Analyzer::new(fixture_cp(), Config::default());
    let e = a.class("examples.Nope").unwrap_err();
    assert_eq!(
        e.to_string(),
        "class examples.Nope not found on the class path"
    );
    let e = CoupledBranches::analyze(&a, "cling.Person", "cling.Bike").unwrap_err();
    assert!(e.to_string().contains("cling.Bike"), "{e}");
}

#[test]
fn class_without_code_is_refused() {
    let a = Analyzer::new(fixture_cp(), Config::default());
    let c = a.class("examples.Shape").unwrap();
    let e = a.require_code(&c).unwrap_err();
    assert!(matches!(e, Error::NoCode { .. }));
    assert_eq!(
        e.to_string(),
        "class examples.Shape has no method with code to analyse (it is an interface without default or static methods)"
    );
    let e = CoupledBranches::analyze(&a, "examples.Shape", "cling.Car").unwrap_err();
    assert!(
        e.to_string().contains("examples.Shape has no method"),
        "{e}"
    );
    let e = CoupledBranches::analyze(&a, "cling.Car", "cling.Car").unwrap_err();
    assert!(e.to_string().contains("same class"), "{e}");
}

/// Stack with the code of `pop()I` replaced.
fn with_pop_code(
    code: Vec<u8>,
    handlers: Vec<ferrosuite_bytecode::attributes::ExceptionHandler>,
) -> ClassFile {
    let bytes = std::fs::read(fixtures().join("examples/Stack.class")).unwrap();
    let mut cf = ClassFile::parse(&bytes).unwrap();
    let i = cf
        .methods
        .iter()
        .position(|m| cf.member_name(m).unwrap() == "pop")
        .unwrap();
    let c = cf.methods[i].code_mut().unwrap();
    c.code = code;
    c.exception_table = handlers;
    c.attributes.clear();
    cf
}

fn malformed(cf: &ClassFile) -> String {
    let e = ClassAnalysis::analyze(cf, &Config::default()).unwrap_err();
    assert!(matches!(e, Error::MalformedCode { .. }), "{e:?}");
    e.to_string()
}

#[test]
fn malformed_code_names_method_and_offset() {
    // iconst_0; ifeq +2 (into its own operand); ireturn
    let e = malformed(&with_pop_code(vec![0x03, 0x99, 0x00, 0x02, 0xac], vec![]));
    assert_eq!(
        e,
        "examples.Stack.pop()I: malformed code at offset 1: jump target 3 is not the start of an instruction"
    );
    // iconst_0; pop: execution falls off the end.
    let e = malformed(&with_pop_code(vec![0x03, 0x57], vec![]));
    assert_eq!(
        e,
        "examples.Stack.pop()I: malformed code at offset 1: execution falls off the end of the code after its last instruction"
    );
    // An exception range past the end of the code.
    let h = ferrosuite_bytecode::attributes::ExceptionHandler {
        start_pc: 0,
        end_pc: 9,
        handler_pc: 0,
        catch_type: ferrosuite_bytecode::constant_pool::CpIndex(0),
    };
    let e = malformed(&with_pop_code(vec![0x03, 0xac], vec![h]));
    assert!(
        e.contains("offset 0: exception handler range [0, 9)"),
        "{e}"
    );
    // A truncated instruction (sipush without its operand).
    let e = malformed(&with_pop_code(vec![0x11], vec![]));
    assert!(
        e.starts_with("examples.Stack.pop()I: malformed code at offset 0"),
        "{e}"
    );
    // Empty code.
    let e = malformed(&with_pop_code(vec![], vec![]));
    assert!(e.ends_with("the code array is empty"), "{e}");
}

#[test]
fn a_class_path_of_garbage_gives_an_error_not_a_panic() {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("cfg-garbage");
    std::fs::create_dir_all(dir.join("x")).unwrap();
    std::fs::write(dir.join("x/Bad.class"), b"\xCA\xFE\xBA\xBEgarbage").unwrap();
    let cp = ClassPath::parse(&dir.display().to_string()).unwrap();
    let e = Analyzer::new(&cp, Config::default())
        .class("x.Bad")
        .unwrap_err();
    assert!(e.to_string().contains("x/Bad"), "{e}");
}
