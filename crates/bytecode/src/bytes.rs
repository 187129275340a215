//! Big-endian byte cursor used by the class-file reader, and write helpers for the writer.
//!
//! The cursor knows its absolute position in the class file (`base` + local position), so every
//! error names the byte offset in the file even when a nested structure (an attribute body) is
//! parsed from a sub-slice.

use crate::error::{Error, Result};

/// A big-endian reader over a byte slice that reports absolute offsets in its errors.
#[derive(Debug, Clone)]
pub struct ByteReader<'a> {
    data: &'a [u8],
    pos: usize,
    base: usize,
}

impl<'a> ByteReader<'a> {
    /// A reader over `data`, whose first byte is at absolute offset `base` of the file.
    #[must_use]
    pub fn new(data: &'a [u8], base: usize) -> Self {
        ByteReader { data, pos: 0, base }
    }

    /// Absolute offset of the next byte.
    #[must_use]
    pub fn offset(&self) -> usize {
        self.base + self.pos
    }

    /// Position relative to the start of this reader's slice.
    #[must_use]
    pub fn pos(&self) -> usize {
        self.pos
    }

    /// Bytes not yet read.
    #[must_use]
    pub fn remaining(&self) -> usize {
        self.data.len() - self.pos
    }

    /// True when everything was read.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.pos >= self.data.len()
    }

    /// Reads `n` bytes.
    pub fn bytes(&mut self, n: usize, what: &'static str) -> Result<&'a [u8]> {
        if self.remaining() < n {
            return Err(Error::Truncated {
                offset: self.offset(),
                needed: n - self.remaining(),
                what,
            });
        }
        let s = &self.data[self.pos..self.pos + n];
        self.pos += n;
        Ok(s)
    }

    /// Skips `n` bytes.
    pub fn skip(&mut self, n: usize, what: &'static str) -> Result<()> {
        self.bytes(n, what).map(|_| ())
    }

    /// Reads one byte.
    pub fn u8(&mut self, what: &'static str) -> Result<u8> {
        Ok(self.bytes(1, what)?[0])
    }

    /// Reads a big-endian `u16`.
    pub fn u16(&mut self, what: &'static str) -> Result<u16> {
        let b = self.bytes(2, what)?;
        Ok(u16::from_be_bytes([b[0], b[1]]))
    }

    /// Reads a big-endian `u32`.
    pub fn u32(&mut self, what: &'static str) -> Result<u32> {
        let b = self.bytes(4, what)?;
        Ok(u32::from_be_bytes([b[0], b[1], b[2], b[3]]))
    }

    /// Reads a big-endian `i32`.
    pub fn i32(&mut self, what: &'static str) -> Result<i32> {
        Ok(self.u32(what)? as i32)
    }

    /// Reads a big-endian `u64`.
    pub fn u64(&mut self, what: &'static str) -> Result<u64> {
        let hi = u64::from(self.u32(what)?);
        let lo = u64::from(self.u32(what)?);
        Ok(hi << 32 | lo)
    }

    /// A sub-reader over the next `n` bytes (which are consumed from this reader).
    pub fn sub(&mut self, n: usize, what: &'static str) -> Result<ByteReader<'a>> {
        let base = self.offset();
        let data = self.bytes(n, what)?;
        Ok(ByteReader::new(data, base))
    }

    /// A `u16` count followed by that many items read by `f`.
    pub fn list<T>(
        &mut self,
        what: &'static str,
        mut f: impl FnMut(&mut Self) -> Result<T>,
    ) -> Result<Vec<T>> {
        let n = self.u16(what)? as usize;
        // Do not trust the count for the allocation: a corrupt count must not allocate much.
        let mut v = Vec::with_capacity(n.min(self.remaining()));
        for _ in 0..n {
            v.push(f(self)?);
        }
        Ok(v)
    }
}

/// Big-endian write helpers on `Vec<u8>`.
pub trait ByteWriter {
    /// Appends a `u8`.
    fn put_u8(&mut self, v: u8);
    /// Appends a big-endian `u16`.
    fn put_u16(&mut self, v: u16);
    /// Appends a big-endian `u32`.
    fn put_u32(&mut self, v: u32);
    /// Appends a big-endian `i32`.
    fn put_i32(&mut self, v: i32);
    /// Appends a list length as `u16`, failing when it does not fit.
    fn put_len16(&mut self, len: usize, what: &'static str) -> Result<()>;
}

impl ByteWriter for Vec<u8> {
    fn put_u8(&mut self, v: u8) {
        self.push(v);
    }
    fn put_u16(&mut self, v: u16) {
        self.extend_from_slice(&v.to_be_bytes());
    }
    fn put_u32(&mut self, v: u32) {
        self.extend_from_slice(&v.to_be_bytes());
    }
    fn put_i32(&mut self, v: i32) {
        self.extend_from_slice(&v.to_be_bytes());
    }
    fn put_len16(&mut self, len: usize, what: &'static str) -> Result<()> {
        let v = u16::try_from(len)
            .map_err(|_| Error::Rewrite(format!("{what} has {len} entries (limit 65535)")))?;
        self.put_u16(v);
        Ok(())
    }
}

/// Writes a `u32` length placeholder, runs `f`, then patches the length.
pub fn with_u32_len(out: &mut Vec<u8>, f: impl FnOnce(&mut Vec<u8>) -> Result<()>) -> Result<()> {
    let at = out.len();
    out.put_u32(0);
    f(out)?;
    let len = u32::try_from(out.len() - at - 4)
        .map_err(|_| Error::Rewrite("attribute longer than 4 GiB".into()))?;
    out[at..at + 4].copy_from_slice(&len.to_be_bytes());
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_big_endian_and_reports_absolute_offsets() {
        let data = [0xCA, 0xFE, 0xBA, 0xBE, 0x00, 0x01];
        let mut r = ByteReader::new(&data, 100);
        assert_eq!(r.u32("magic").ok(), Some(0xCAFE_BABE));
        assert_eq!(r.offset(), 104);
        let err = r.u32("count").err();
        match err {
            Some(Error::Truncated {
                offset,
                needed,
                what,
            }) => {
                assert_eq!((offset, needed, what), (104, 2, "count"));
            }
            other => unreachable!("unexpected {other:?}"),
        }
    }

    #[test]
    fn list_does_not_preallocate_corrupt_counts() {
        let data = [0xFF, 0xFF, 1];
        let mut r = ByteReader::new(&data, 0);
        assert!(r.list("items", |r| r.u8("item")).is_err());
    }
}
