//! Modified UTF-8, the string encoding of `CONSTANT_Utf8` entries (JVMS 4.4.7).
//!
//! It differs from UTF-8 in two ways: U+0000 is written as the two bytes `C0 80`, and characters
//! outside the Basic Multilingual Plane are written as two 3-byte encoded UTF-16 surrogates.
//! Class files may also contain unpaired surrogates, which no Rust `String` can hold; decoding
//! replaces them with U+FFFD, so the constant pool keeps the raw bytes as the source of truth.
//!
//! ```
//! use ferrosuite_bytecode::mutf8;
//! assert_eq!(mutf8::encode("a\0b"), vec![b'a', 0xC0, 0x80, b'b']);
//! assert_eq!(mutf8::decode(&[b'a', 0xC0, 0x80, b'b']), "a\0b");
//! ```

use std::borrow::Cow;

/// Decodes modified UTF-8; invalid sequences and unpaired surrogates become U+FFFD.
/// Pure ASCII (the common case) is borrowed without copying.
#[must_use]
pub fn decode(bytes: &[u8]) -> Cow<'_, str> {
    if bytes.iter().all(|&b| b != 0 && b < 0x80) {
        // All bytes are ASCII, which is valid UTF-8.
        return match std::str::from_utf8(bytes) {
            Ok(s) => Cow::Borrowed(s),
            Err(_) => Cow::Owned(String::new()),
        };
    }
    let units = decode_utf16_units(bytes);
    Cow::Owned(
        char::decode_utf16(units)
            .map(|r| r.unwrap_or(char::REPLACEMENT_CHARACTER))
            .collect(),
    )
}

/// Decodes modified UTF-8 into the UTF-16 code units Java would see.
#[must_use]
pub fn decode_utf16_units(bytes: &[u8]) -> Vec<u16> {
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if b < 0x80 {
            out.push(u16::from(b));
            i += 1;
        } else if b & 0xE0 == 0xC0 && i + 1 < bytes.len() {
            out.push((u16::from(b & 0x1F) << 6) | u16::from(bytes[i + 1] & 0x3F));
            i += 2;
        } else if b & 0xF0 == 0xE0 && i + 2 < bytes.len() {
            out.push(
                (u16::from(b & 0x0F) << 12)
                    | (u16::from(bytes[i + 1] & 0x3F) << 6)
                    | u16::from(bytes[i + 2] & 0x3F),
            );
            i += 3;
        } else {
            out.push(0xFFFD);
            i += 1;
        }
    }
    out
}

/// Encodes a string as modified UTF-8.
#[must_use]
pub fn encode(s: &str) -> Vec<u8> {
    let units: Vec<u16> = s.encode_utf16().collect();
    encode_utf16_units(&units)
}

/// Encodes UTF-16 code units (possibly with unpaired surrogates) as modified UTF-8.
#[must_use]
pub fn encode_utf16_units(units: &[u16]) -> Vec<u8> {
    let mut out = Vec::with_capacity(units.len());
    for &c in units {
        match c {
            0x0001..=0x007F => out.push(c as u8),
            0x0000 | 0x0080..=0x07FF => {
                out.push(0xC0 | (c >> 6) as u8);
                out.push(0x80 | (c & 0x3F) as u8);
            }
            _ => {
                out.push(0xE0 | (c >> 12) as u8);
                out.push(0x80 | ((c >> 6) & 0x3F) as u8);
                out.push(0x80 | (c & 0x3F) as u8);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn supplementary_characters_use_surrogate_pairs() {
        let s = "x\u{1F600}y";
        let enc = encode(s);
        assert_eq!(enc.len(), 1 + 6 + 1);
        assert_eq!(decode(&enc), s);
    }

    proptest! {
        #[test]
        fn round_trips_any_string(s in ".*") {
            let enc = encode(&s);
            prop_assert_eq!(decode(&enc), s);
        }

        #[test]
        fn round_trips_any_utf16(units in proptest::collection::vec(any::<u16>(), 0..64)) {
            prop_assert_eq!(decode_utf16_units(&encode_utf16_units(&units)), units);
        }
    }
}
