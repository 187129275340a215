//! Trace probes (`instrument::record`) on arbitrary class files: never panics; an instrumented
//! class writes, parses back, and is not instrumented a second time.
#![no_main]
use ferrosuite_bytecode::ClassFile;
use ferrosuite_bytecode::instrument::record::{RecordFilter, RecordInstrumenter};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(class) = ClassFile::parse(data) else { return };
    let mut inst = RecordInstrumenter::new(RecordFilter::default());
    if let Ok(Some(out)) = inst.instrument(&class) {
        let bytes = out.to_bytes().expect("an instrumented class writes");
        let again = ClassFile::parse(&bytes).expect("and parses back");
        assert!(matches!(inst.instrument(&again), Ok(None)));
    }
});
