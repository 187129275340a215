//! Control flow analysis of arbitrary input: a class file (when it starts with 0xCAFEBABE) or a
//! raw code array preceded by up to three exception handlers. Never panics; every graph that
//! builds has a post-dominator for every block, and the entry dominates every reachable block.
#![no_main]
use ferrosuite_bytecode::ClassFile;
use ferrosuite_bytecode::attributes::{Code, ExceptionHandler};
use ferrosuite_bytecode::constant_pool::{ConstantPool, CpIndex};
use ferrosuite_cfg::{Cfg, ClassAnalysis, Config, ControlDependence, DomTree};
use libfuzzer_sys::fuzz_target;

fn check(cfg: &Cfg) {
    let dom = DomTree::dominators(cfg);
    let pdom = DomTree::post_dominators(cfg);
    let _ = ControlDependence::compute(cfg, &pdom);
    for b in cfg.blocks() {
        assert!(pdom.contains(b.id), "{} has no post-dominator", b.id);
        assert_eq!(b.reachable, dom.contains(b.id));
        if b.reachable {
            assert!(dom.dominates(Cfg::ENTRY, b.id));
        }
    }
}

fuzz_target!(|data: &[u8]| {
    if data.starts_with(&[0xCA, 0xFE, 0xBA, 0xBE]) {
        if let Ok(class) = ClassFile::parse(data) {
            if let Ok(a) = ClassAnalysis::analyze(&class, &Config::default()) {
                for m in &a.methods {
                    if let Some(b) = &m.body {
                        check(&b.cfg);
                    }
                }
            }
        }
        return;
    }
    let Some((&n, rest)) = data.split_first() else { return };
    let n = usize::from(n % 4);
    if rest.len() < n * 6 {
        return;
    }
    let (table, code) = rest.split_at(n * 6);
    let word = |b: &[u8]| u16::from_be_bytes([b[0], b[1]]);
    let exception_table = table
        .chunks(6)
        .map(|h| ExceptionHandler {
            start_pc: word(&h[0..2]),
            end_pc: word(&h[2..4]),
            handler_pc: word(&h[4..6]),
            catch_type: CpIndex(0),
        })
        .collect();
    let code = Code {
        max_stack: 8,
        max_locals: 8,
        code: code.to_vec(),
        exception_table,
        attributes: Vec::new(),
    };
    if let Ok(cfg) = Cfg::build(&code, &ConstantPool::new(), true) {
        check(&cfg);
    }
});
