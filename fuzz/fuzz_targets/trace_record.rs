//! The recorder's records (`ferrosuite_carve::wire::decode`) from arbitrary bytes: never panics;
//! a record that decodes serialises to JSON (the store's format) and back to the same record.
#![no_main]
use ferrosuite_carve::model::Record;
use ferrosuite_carve::wire::decode;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(Record::Call(c)) = decode(data) {
        let json = serde_json::to_string(&*c).expect("a decoded call serialises");
        let back: ferrosuite_carve::model::CallRecord =
            serde_json::from_str(&json).expect("and reads back");
        assert_eq!(back, *c);
    }
});
