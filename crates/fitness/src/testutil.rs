//! A small hand-assembled class for the unit tests, instrumented and analysed.
//!
//! ```text
//! class t/Sample {                                  line
//!   Sample() { super(); }                           1
//!   static int abs(int a)  { if (a < 0) return -a;  10, 11
//!                            return a; }            12
//!   static int nested(int a, int b) {
//!     if (a > 0) {                                  20
//!       if (b > 0) return 2;                        21, 22
//!       return 1; }                                 23
//!     return 0; }                                   24
//!   static int dead(int a) { return a;              30
//!     /* unreachable: */ if (a == 0) ... }          31
//!   static int pick(int k) { switch (k) { case 1: return 1; case 5: return 5; default: return 0; } }
//!   static void fail() throws java.io.IOException { throw null; }          50
//!   private static void helper() {}                 60
//! }
//! ```

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use ferrosuite_bytecode::ClassFile;
use ferrosuite_bytecode::attributes::{Attribute, AttributeBody, Code, LineNumber};
use ferrosuite_bytecode::classfile::{Member, access};
use ferrosuite_bytecode::instrument::map::{BranchSlot, ProbeMap};
use ferrosuite_bytecode::instrument::probes::{Instrumenter, ProbeConfig};
use ferrosuite_cfg::ClassAnalysis;

use crate::{Config, GoalSet, Target};

pub(crate) struct Sample {
    pub file: ClassFile,
    pub analysis: ClassAnalysis,
    pub map: ProbeMap,
}

fn method(
    cf: &mut ClassFile,
    flags: u16,
    name: &str,
    desc: &str,
    code: Vec<u8>,
    lines: &[(u16, u16)],
    throws: &[&str],
) {
    let cp = &mut cf.constant_pool;
    let lnt = Attribute {
        name: cp.add_utf8("LineNumberTable").unwrap(),
        body: AttributeBody::LineNumberTable(
            lines
                .iter()
                .map(|&(start_pc, line)| LineNumber { start_pc, line })
                .collect(),
        ),
    };
    let code = Attribute {
        name: cp.add_utf8("Code").unwrap(),
        body: AttributeBody::Code(Code {
            max_stack: 2,
            max_locals: 2,
            code,
            exception_table: Vec::new(),
            attributes: vec![lnt],
        }),
    };
    let mut attributes = vec![code];
    if !throws.is_empty() {
        let list = throws.iter().map(|t| cp.add_class(t).unwrap()).collect();
        attributes.push(Attribute {
            name: cp.add_utf8("Exceptions").unwrap(),
            body: AttributeBody::Exceptions(list),
        });
    }
    let m = Member {
        access_flags: flags,
        name: cp.add_utf8(name).unwrap(),
        descriptor: cp.add_utf8(desc).unwrap(),
        attributes,
    };
    cf.methods.push(m);
}

pub(crate) fn sample() -> Sample {
    let mut cf = ClassFile::new_class("t/Sample", "java/lang/Object", 50).unwrap();
    let init = cf
        .constant_pool
        .add_method_ref("java/lang/Object", "<init>", "()V", false)
        .unwrap()
        .0
        .to_be_bytes();
    let st = access::STATIC;
    let public = access::PUBLIC;
    method(
        &mut cf,
        public,
        "<init>",
        "()V",
        vec![0x2a, 0xb7, init[0], init[1], 0xb1],
        &[(0, 1)],
        &[],
    );
    // abs: iload_0; ifge +6; iload_0; ineg; ireturn; iload_0; ireturn
    method(
        &mut cf,
        public | st,
        "abs",
        "(I)I",
        vec![0x1a, 0x9c, 0, 6, 0x1a, 0x74, 0xac, 0x1a, 0xac],
        &[(0, 10), (4, 11), (7, 12)],
        &[],
    );
    // nested: iload_0; ifle 12; iload_1; ifle 10; iconst_2; ireturn; iconst_1; ireturn;
    // iconst_0; ireturn
    method(
        &mut cf,
        public | st,
        "nested",
        "(II)I",
        vec![
            0x1a, 0x9e, 0, 11, 0x1b, 0x9e, 0, 5, 0x05, 0xac, 0x04, 0xac, 0x03, 0xac,
        ],
        &[(0, 20), (4, 21), (8, 22), (10, 23), (12, 24)],
        &[],
    );
    // dead: iload_0; ireturn; then unreachable: iload_0; ifeq 8; iconst_1; ireturn; iconst_0;
    // ireturn
    method(
        &mut cf,
        public | st,
        "dead",
        "(I)I",
        vec![0x1a, 0xac, 0x1a, 0x99, 0, 5, 0x04, 0xac, 0x03, 0xac],
        &[(0, 30), (2, 31)],
        &[],
    );
    // pick: iload_0; lookupswitch (pad 2) default +31, 2 pairs: 1 -> +27, 5 -> +29;
    // 28: iconst_1; ireturn; 30: iconst_5; ireturn; 32: iconst_0; ireturn
    let mut pick = vec![0x1a, 0xab, 0, 0];
    for v in [31i32, 2, 1, 27, 5, 29] {
        pick.extend_from_slice(&v.to_be_bytes());
    }
    pick.extend_from_slice(&[0x04, 0xac, 0x08, 0xac, 0x03, 0xac]);
    method(
        &mut cf,
        public | st,
        "pick",
        "(I)I",
        pick,
        &[(0, 40), (28, 41), (30, 42), (32, 43)],
        &[],
    );
    method(
        &mut cf,
        public | st,
        "fail",
        "()V",
        vec![0x01, 0xbf],
        &[(0, 50)],
        &["java/io/IOException"],
    );
    method(
        &mut cf,
        access::PRIVATE | st,
        "helper",
        "()V",
        vec![0xb1],
        &[(0, 60)],
        &[],
    );
    let analysis = ClassAnalysis::analyze(&cf, &ferrosuite_cfg::Config::default()).unwrap();
    let mut inst = Instrumenter::new(ProbeConfig::default());
    inst.instrument(&cf).unwrap();
    Sample {
        file: cf,
        analysis,
        map: inst.into_map(),
    }
}

impl Sample {
    pub(crate) fn goals(&self, config: Config) -> GoalSet {
        GoalSet::for_class(&self.map, config, &self.analysis, Some(&self.file)).unwrap()
    }
}

/// The slot of the branch goal whose description contains `what`.
pub(crate) fn slot(goals: &GoalSet, what: &str) -> BranchSlot {
    goals
        .goals()
        .iter()
        .find_map(|g| match g.target {
            Target::Branch { slot, .. } if g.description.contains(what) => Some(slot),
            _ => None,
        })
        .unwrap_or_else(|| panic!("no branch goal {what}"))
}
