//! Self-checks over real class files: the byte-identical round trip of every class file of a
//! class-path entry (and of every method's instruction decode/encode).

use serde::Serialize;

use crate::classfile::ClassFile;
use crate::classpath::ClassPathEntry;
use crate::error::Result;
use crate::insn;

/// Round-trip results of one class-path entry.
#[derive(Debug, Clone, Default, Serialize)]
pub struct RoundTrip {
    /// The entry.
    pub entry: String,
    /// Class files found.
    pub files: usize,
    /// Class files read without error.
    pub read: usize,
    /// Class files written back byte-identically.
    pub identical: usize,
    /// Class files whose every method's code decodes and re-encodes identically.
    pub code_identical: usize,
    /// Input bytes.
    pub bytes: u64,
    /// Files that failed to read, with the error.
    pub errors: Vec<(String, String)>,
    /// Files written back differently.
    pub different: Vec<String>,
}

/// Reads and writes back every `.class` file of the entry.
pub fn round_trip(entry: &ClassPathEntry) -> Result<RoundTrip> {
    let mut r = RoundTrip {
        entry: entry.path().display().to_string(),
        ..RoundTrip::default()
    };
    for f in entry.files()?.into_iter().filter(|f| f.ends_with(".class")) {
        let Some(bytes) = entry.read_file(&f)? else {
            continue;
        };
        r.files += 1;
        r.bytes += bytes.len() as u64;
        let class = match ClassFile::parse_named(&bytes, &f) {
            Ok(c) => c,
            Err(e) => {
                r.errors.push((f, e.to_string()));
                continue;
            }
        };
        r.read += 1;
        if class.to_bytes().ok().as_deref() == Some(&bytes[..]) {
            r.identical += 1;
        } else {
            r.different.push(f.clone());
        }
        let code_ok = class.methods.iter().filter_map(|m| m.code()).all(|c| {
            insn::decode(&c.code)
                .and_then(|i| insn::encode_all(&i))
                .ok()
                .as_deref()
                == Some(&c.code[..])
        });
        r.code_identical += usize::from(code_ok);
    }
    Ok(r)
}
