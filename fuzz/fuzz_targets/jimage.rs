//! JDK runtime-image reader: never panics on any index or resource table.
#![no_main]
use std::path::Path;

use ferrosuite_bytecode::classpath::jimage::JImage;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(img) = JImage::from_bytes(data.to_vec(), Path::new("fuzz.jimage")) {
        if let Ok(entries) = img.entries() {
            for e in entries.iter().take(64) {
                let _ = img.read(e);
                let _ = img.find(&e.module, &e.path);
            }
        }
        let _ = img.find("java.base", "java/lang/Object.class");
    }
});
