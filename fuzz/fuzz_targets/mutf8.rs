//! Modified UTF-8: decoding never panics; encoding what decodes to UTF-16 round-trips.
#![no_main]
use ferrosuite_bytecode::mutf8;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = mutf8::decode(data);
    let units = mutf8::decode_utf16_units(data);
    assert_eq!(mutf8::decode_utf16_units(&mutf8::encode_utf16_units(&units)), units);
});
