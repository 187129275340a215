//! Instruction decoder/encoder: never panic; re-encoding what decodes decodes to the same.
#![no_main]
use ferrosuite_bytecode::insn;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(insns) = insn::decode(data) {
        let bytes = insn::encode_all(&insns).expect("decoded instructions encode");
        assert_eq!(bytes.len(), data.len());
        assert_eq!(insn::decode(&bytes).expect("re-decodes"), insns);
    }
});
