//! Class-file reader, writer and instrumenter: never panic; whatever parses writes back
//! byte-identically.
#![no_main]
use ferrosuite_bytecode::ClassFile;
use ferrosuite_bytecode::instrument::probes::{Instrumenter, ProbeConfig};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(class) = ClassFile::parse(data) {
        let written = class.to_bytes().expect("a parsed class can be written");
        assert_eq!(written, data, "round trip must be byte-identical");
        if let Ok(inst) = Instrumenter::new(ProbeConfig::default()).instrument_owned(class) {
            let _ = inst.to_bytes();
        }
    }
});
