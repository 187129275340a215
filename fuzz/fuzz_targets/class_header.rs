//! Class-header reader (class-path indexing): never panics.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = ferrosuite_bytecode::ClassHeader::parse(data);
});
