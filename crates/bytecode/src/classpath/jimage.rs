//! A reader for the JDK's runtime image (`lib/modules`, the "jimage" format of JDK 9 and later), so that
//! JDK classes are read lazily straight from the image without unpacking it.
//!
//! Layout (all facts from the `OpenJDK` sources, checked against JDK 17 and 25 images):
//! a 28-byte header of seven `u32` in the image's byte order (magic `0xCAFEDADA`, version
//! `major << 16 | minor` = 1.0, flags, resource count, table length, locations size, strings
//! size), then a redirect table (`i32` × table length), an offsets table (`u32` × table
//! length), the location attributes and the strings. Resource bytes start right after the index
//! at the location's `OFFSET` attribute.
//!
//! A name is found by hashing it (FNV-style: `h = h * 0x01000193 ^ byte`, seed `0x01000193`,
//! masked to 31 bits): the redirect slot is either negative (`-1 - slot` is the location), positive
//! (a seed for a second hash) or zero (absent); the location's own name is then compared, since a
//! miss also lands on some slot.
//!
//! Location attributes are a byte stream: `kind = b >> 3`, `len = (b & 7) + 1`, then `len`
//! big-endian value bytes; kinds are END, MODULE, PARENT, BASE, EXTENSION (string offsets),
//! OFFSET, COMPRESSED, UNCOMPRESSED. The name is `/module/parent/base.extension`.
//! Compressed resources (`jlink --compress`) are reported as unsupported with the resource
//! name; the JDK images shipped by Debian and Temurin are not compressed.

use std::fs::File;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

use crate::error::{Error, Result, io_at};

const MAGIC: u32 = 0xCAFE_DADA;
const HASH_SEED: u32 = 0x0100_0193;

/// One resource of the image.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImageEntry {
    /// Module name (`java.base`), empty for the `/modules` and `/packages` pseudo entries.
    pub module: String,
    /// Path inside the module (`java/lang/Object.class`).
    pub path: String,
    offset: u64,
    compressed: u64,
    uncompressed: u64,
}

/// Where the image's bytes come from.
#[derive(Debug)]
enum Source {
    File(File),
    Bytes(Vec<u8>),
}

impl Source {
    fn len(&self, path: &Path) -> Result<u64> {
        match self {
            Source::File(f) => Ok(f.metadata().map_err(io_at(path))?.len()),
            Source::Bytes(b) => Ok(b.len() as u64),
        }
    }

    fn read_at(&self, buf: &mut [u8], at: u64, path: &Path) -> Result<()> {
        match self {
            Source::File(f) => f.read_exact_at(buf, at).map_err(io_at(path)),
            Source::Bytes(b) => {
                let start = usize::try_from(at).unwrap_or(usize::MAX);
                let slice = start
                    .checked_add(buf.len())
                    .and_then(|end| b.get(start..end))
                    .ok_or_else(|| Error::BadClassPathEntry {
                        path: path.to_path_buf(),
                        detail: format!("read past the end of the image at byte offset {at}"),
                    })?;
                buf.copy_from_slice(slice);
                Ok(())
            }
        }
    }
}

/// An open jimage file.
#[derive(Debug)]
pub struct JImage {
    path: PathBuf,
    source: Source,
    len: u64,
    little: bool,
    table_len: u32,
    redirect_at: usize,
    offsets_at: usize,
    locations_at: usize,
    strings_at: usize,
    index: Vec<u8>,
}

fn hash(bytes: &[u8], seed: u32) -> u32 {
    let mut h = seed;
    for &b in bytes {
        h = h.wrapping_mul(HASH_SEED) ^ u32::from(b);
    }
    h & 0x7FFF_FFFF
}

impl JImage {
    /// Opens an image file and reads its index.
    pub fn open(path: &Path) -> Result<Self> {
        let file = File::open(path).map_err(io_at(path))?;
        Self::from_source(Source::File(file), path)
    }

    /// Reads an image held in memory (`name` is used in messages).
    pub fn from_bytes(bytes: Vec<u8>, name: &Path) -> Result<Self> {
        Self::from_source(Source::Bytes(bytes), name)
    }

    fn from_source(source: Source, path: &Path) -> Result<Self> {
        let bad = |detail: String| Error::BadClassPathEntry {
            path: path.to_path_buf(),
            detail,
        };
        let mut header = [0u8; 28];
        source.read_at(&mut header, 0, path)?;
        let raw = |i: usize| {
            [
                header[i * 4],
                header[i * 4 + 1],
                header[i * 4 + 2],
                header[i * 4 + 3],
            ]
        };
        let little = if u32::from_le_bytes(raw(0)) == MAGIC {
            true
        } else if u32::from_be_bytes(raw(0)) == MAGIC {
            false
        } else {
            return Err(bad("not a JDK image: bad magic at byte offset 0".into()));
        };
        let word = |i: usize| {
            if little {
                u32::from_le_bytes(raw(i))
            } else {
                u32::from_be_bytes(raw(i))
            }
        };
        let version = word(1);
        if version >> 16 != 1 {
            return Err(bad(format!(
                "unsupported jimage version {}.{}",
                version >> 16,
                version & 0xFFFF
            )));
        }
        let table_len = word(4);
        let locations_size = word(5) as u64;
        let strings_size = word(6) as u64;
        let index_size = 28 + 8 * u64::from(table_len) + locations_size + strings_size;
        let len = source.len(path)?;
        if index_size > len {
            return Err(bad(format!(
                "index of {index_size} bytes is larger than the file"
            )));
        }
        let index_size = usize::try_from(index_size).map_err(|_| bad("index too large".into()))?;
        let mut index = vec![0u8; index_size];
        source.read_at(&mut index, 0, path)?;
        let locations_at = 28 + 8 * table_len as usize;
        Ok(JImage {
            path: path.to_path_buf(),
            source,
            len,
            little,
            table_len,
            redirect_at: 28,
            offsets_at: 28 + 4 * table_len as usize,
            locations_at,
            strings_at: locations_at + locations_size as usize,
            index,
        })
    }

    /// The image file.
    #[must_use]
    pub fn path(&self) -> &Path {
        &self.path
    }

    fn u32_at(&self, at: usize) -> Option<u32> {
        let b = self.index.get(at..at + 4)?;
        let b = [b[0], b[1], b[2], b[3]];
        Some(if self.little {
            u32::from_le_bytes(b)
        } else {
            u32::from_be_bytes(b)
        })
    }

    fn string(&self, offset: u64) -> Result<&str> {
        let start = usize::try_from(offset)
            .ok()
            .and_then(|o| o.checked_add(self.strings_at))
            .unwrap_or(usize::MAX);
        let tail = self
            .index
            .get(start..)
            .ok_or_else(|| self.corrupt("string offset out of range"))?;
        let end = tail
            .iter()
            .position(|&b| b == 0)
            .ok_or_else(|| self.corrupt("unterminated string"))?;
        std::str::from_utf8(&tail[..end]).map_err(|_| self.corrupt("string is not UTF-8"))
    }

    fn corrupt(&self, detail: &str) -> Error {
        Error::BadClassPathEntry {
            path: self.path.clone(),
            detail: format!("corrupt jimage index: {detail}"),
        }
    }

    fn location(&self, slot: u32) -> Result<ImageEntry> {
        let loc = self
            .u32_at(self.offsets_at + 4 * slot as usize)
            .ok_or_else(|| self.corrupt("offset table"))?;
        let mut at = self.locations_at + loc as usize;
        let mut attrs = [0u64; 8];
        loop {
            let b = *self
                .index
                .get(at)
                .ok_or_else(|| self.corrupt("location out of range"))?;
            if b <= 7 {
                break;
            }
            let kind = usize::from(b >> 3);
            let len = usize::from(b & 7) + 1;
            if kind >= 8 {
                return Err(self.corrupt("bad location attribute kind"));
            }
            let bytes = self
                .index
                .get(at + 1..at + 1 + len)
                .ok_or_else(|| self.corrupt("location out of range"))?;
            attrs[kind] = bytes.iter().fold(0u64, |v, &x| v << 8 | u64::from(x));
            at += 1 + len;
        }
        let module = if attrs[1] == 0 {
            String::new()
        } else {
            self.string(attrs[1])?.to_string()
        };
        let mut path = String::new();
        if attrs[2] != 0 {
            path.push_str(self.string(attrs[2])?);
            path.push('/');
        }
        path.push_str(self.string(attrs[3])?);
        if attrs[4] != 0 {
            path.push('.');
            path.push_str(self.string(attrs[4])?);
        }
        Ok(ImageEntry {
            module,
            path,
            offset: attrs[5],
            compressed: attrs[6],
            uncompressed: attrs[7],
        })
    }

    /// All resources in the image, in table order.
    pub fn entries(&self) -> Result<Vec<ImageEntry>> {
        (0..self.table_len).map(|i| self.location(i)).collect()
    }

    /// Finds `/module/path`.
    pub fn find(&self, module: &str, path: &str) -> Result<Option<ImageEntry>> {
        if self.table_len == 0 {
            return Ok(None);
        }
        let full = format!("/{module}/{path}");
        let h = hash(full.as_bytes(), HASH_SEED);
        let r = self
            .u32_at(self.redirect_at + 4 * (h % self.table_len) as usize)
            .ok_or_else(|| self.corrupt("redirect table"))? as i32;
        let slot = match r.cmp(&0) {
            std::cmp::Ordering::Less => (-1 - i64::from(r)) as u32,
            std::cmp::Ordering::Greater => hash(full.as_bytes(), r as u32) % self.table_len,
            std::cmp::Ordering::Equal => return Ok(None),
        };
        if slot >= self.table_len {
            return Err(self.corrupt("redirect slot out of range"));
        }
        let e = self.location(slot)?;
        Ok((e.module == module && e.path == path).then_some(e))
    }

    /// Reads a resource's bytes.
    pub fn read(&self, e: &ImageEntry) -> Result<Vec<u8>> {
        if e.compressed != 0 {
            return Err(Error::BadClassPathEntry {
                path: self.path.clone(),
                detail: format!(
                    "/{}/{} is compressed (jlink --compress); compressed images are not supported",
                    e.module, e.path
                ),
            });
        }
        let len = usize::try_from(e.uncompressed).map_err(|_| self.corrupt("resource size"))?;
        let at = (self.index.len() as u64)
            .checked_add(e.offset)
            .ok_or_else(|| self.corrupt("resource offset"))?;
        if at.saturating_add(e.uncompressed) > self.len {
            return Err(self.corrupt("resource extends past the end of the image"));
        }
        let mut buf = vec![0u8; len];
        self.source.read_at(&mut buf, at, &self.path)?;
        Ok(buf)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hash_matches_reference_values() {
        // h = (h * 0x01000193) ^ byte over "/a", seed 0x01000193, masked to 31 bits.
        let mut h: u32 = HASH_SEED;
        for b in b"/a" {
            h = h.wrapping_mul(HASH_SEED) ^ u32::from(*b);
        }
        assert_eq!(hash(b"/a", HASH_SEED), h & 0x7FFF_FFFF);
        assert_eq!(hash(b"", 5), 5);
    }
}
