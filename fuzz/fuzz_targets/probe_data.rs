//! Probe-data reader: never panics.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        let _ = ferrosuite_bytecode::instrument::data::ProbeData::parse(text);
    }
});
