//! The constant pool: an owned model of every entry kind up to Java 25 (JVMS 4.4), including
//! `CONSTANT_Dynamic`, `CONSTANT_Module` and `CONSTANT_Package`.
//!
//! Entries are stored at their class-file indices: index 0 and the slot after each `Long`/`Double`
//! hold [`Constant::Unusable`]. `Utf8` entries keep their raw modified-UTF-8 bytes so that writing
//! back is byte-identical even for strings no Rust `String` can hold.
//!
//! Adding entries (for instrumentation) reuses an equal existing entry when there is one:
//!
//! ```
//! use ferrosuite_bytecode::constant_pool::{ConstantPool, Constant};
//! let mut cp = ConstantPool::new();
//! let a = cp.add_method_ref("org/ferrosuite/rt/Probe", "line", "(I)V", false).unwrap();
//! let b = cp.add_method_ref("org/ferrosuite/rt/Probe", "line", "(I)V", false).unwrap();
//! assert_eq!(a, b);
//! assert_eq!(cp.member_ref(a).unwrap().name, "line");
//! ```

use std::borrow::Cow;
use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use crate::bytes::{ByteReader, ByteWriter};
use crate::error::{Error, Result};
use crate::mutf8;

/// A typed index into the constant pool.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, Default,
)]
pub struct CpIndex(pub u16);

impl std::fmt::Display for CpIndex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "#{}", self.0)
    }
}

/// Constant-pool tags (JVMS table 4.4-B).
pub mod tag {
    #![allow(missing_docs)]
    pub const UTF8: u8 = 1;
    pub const INTEGER: u8 = 3;
    pub const FLOAT: u8 = 4;
    pub const LONG: u8 = 5;
    pub const DOUBLE: u8 = 6;
    pub const CLASS: u8 = 7;
    pub const STRING: u8 = 8;
    pub const FIELDREF: u8 = 9;
    pub const METHODREF: u8 = 10;
    pub const INTERFACE_METHODREF: u8 = 11;
    pub const NAME_AND_TYPE: u8 = 12;
    pub const METHOD_HANDLE: u8 = 15;
    pub const METHOD_TYPE: u8 = 16;
    pub const DYNAMIC: u8 = 17;
    pub const INVOKE_DYNAMIC: u8 = 18;
    pub const MODULE: u8 = 19;
    pub const PACKAGE: u8 = 20;
}

/// One constant-pool entry.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Constant {
    /// Placeholder for index 0 and for the slot after a `Long` or `Double`.
    Unusable,
    /// Raw modified UTF-8 bytes.
    Utf8(Box<[u8]>),
    /// `int` constant.
    Integer(i32),
    /// `float` constant as raw IEEE bits (NaN payloads survive).
    Float(u32),
    /// `long` constant.
    Long(i64),
    /// `double` constant as raw IEEE bits.
    Double(u64),
    /// Class or array type, naming a `Utf8` internal name.
    Class(CpIndex),
    /// String literal, naming a `Utf8`.
    String(CpIndex),
    /// Field reference.
    Fieldref {
        /// `Class` entry.
        class: CpIndex,
        /// `NameAndType` entry.
        name_and_type: CpIndex,
    },
    /// Class method reference.
    Methodref {
        /// `Class` entry.
        class: CpIndex,
        /// `NameAndType` entry.
        name_and_type: CpIndex,
    },
    /// Interface method reference.
    InterfaceMethodref {
        /// `Class` entry.
        class: CpIndex,
        /// `NameAndType` entry.
        name_and_type: CpIndex,
    },
    /// Name and descriptor pair.
    NameAndType {
        /// `Utf8` name.
        name: CpIndex,
        /// `Utf8` descriptor.
        descriptor: CpIndex,
    },
    /// Method handle.
    MethodHandle {
        /// Reference kind 1..=9.
        kind: u8,
        /// Field or method reference entry.
        reference: CpIndex,
    },
    /// Method type, naming a `Utf8` descriptor.
    MethodType(CpIndex),
    /// Dynamically computed constant (condy).
    Dynamic {
        /// Index into `BootstrapMethods`.
        bootstrap: u16,
        /// `NameAndType` entry.
        name_and_type: CpIndex,
    },
    /// Call site of `invokedynamic`.
    InvokeDynamic {
        /// Index into `BootstrapMethods`.
        bootstrap: u16,
        /// `NameAndType` entry.
        name_and_type: CpIndex,
    },
    /// Module name (module-info only).
    Module(CpIndex),
    /// Package name (module-info only).
    Package(CpIndex),
}

impl Constant {
    /// True for `Long` and `Double`, which occupy two slots.
    #[must_use]
    pub fn is_wide(&self) -> bool {
        matches!(self, Constant::Long(_) | Constant::Double(_))
    }

    /// A short name of the entry kind, for messages.
    #[must_use]
    pub fn kind_name(&self) -> &'static str {
        match self {
            Constant::Unusable => "unusable slot",
            Constant::Utf8(_) => "Utf8",
            Constant::Integer(_) => "Integer",
            Constant::Float(_) => "Float",
            Constant::Long(_) => "Long",
            Constant::Double(_) => "Double",
            Constant::Class(_) => "Class",
            Constant::String(_) => "String",
            Constant::Fieldref { .. } => "Fieldref",
            Constant::Methodref { .. } => "Methodref",
            Constant::InterfaceMethodref { .. } => "InterfaceMethodref",
            Constant::NameAndType { .. } => "NameAndType",
            Constant::MethodHandle { .. } => "MethodHandle",
            Constant::MethodType(_) => "MethodType",
            Constant::Dynamic { .. } => "Dynamic",
            Constant::InvokeDynamic { .. } => "InvokeDynamic",
            Constant::Module(_) => "Module",
            Constant::Package(_) => "Package",
        }
    }
}

/// A resolved field or method reference.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MemberRef<'a> {
    /// Internal name of the owner class.
    pub class: Cow<'a, str>,
    /// Member name.
    pub name: Cow<'a, str>,
    /// Member descriptor.
    pub descriptor: Cow<'a, str>,
    /// True for `InterfaceMethodref`.
    pub interface: bool,
}

/// The constant pool of one class.
#[derive(Debug, Clone, Default)]
pub struct ConstantPool {
    entries: Vec<Constant>,
    /// Hash of a constant → index of its first occurrence, built on the first `add`. Keys are
    /// hashes (not copies of the constants) so that building it allocates little; a different
    /// constant with the same hash is found by a scan.
    lookup: Option<HashMap<u64, u16>>,
}

fn hash_constant(c: &Constant) -> u64 {
    use std::hash::{Hash, Hasher};
    // FNV-1a: short keys, no need for DoS resistance.
    struct Fnv(u64);
    impl Hasher for Fnv {
        fn finish(&self) -> u64 {
            self.0
        }
        fn write(&mut self, bytes: &[u8]) {
            for b in bytes {
                self.0 = (self.0 ^ u64::from(*b)).wrapping_mul(0x0100_0000_01b3);
            }
        }
    }
    let mut h = Fnv(0xcbf2_9ce4_8422_2325);
    c.hash(&mut h);
    h.finish()
}

impl PartialEq for ConstantPool {
    fn eq(&self, other: &Self) -> bool {
        self.entries == other.entries
    }
}

fn cp(r: &mut ByteReader<'_>) -> Result<CpIndex> {
    Ok(CpIndex(r.u16("constant pool index")?))
}

impl ConstantPool {
    /// An empty pool (only the unusable index 0).
    #[must_use]
    pub fn new() -> Self {
        ConstantPool {
            entries: vec![Constant::Unusable],
            lookup: None,
        }
    }

    /// Reads `constant_pool_count` and the entries.
    pub fn parse(r: &mut ByteReader<'_>) -> Result<Self> {
        let count = r.u16("constant_pool_count")?;
        if count == 0 {
            return Err(Error::Malformed {
                what: "constant_pool_count",
                offset: r.offset() - 2,
                detail: "count is 0 (must be at least 1)".into(),
            });
        }
        let mut entries = Vec::with_capacity((count as usize).min(r.remaining() / 3 + 1));
        entries.push(Constant::Unusable);
        while entries.len() < count as usize {
            let index = entries.len() as u16;
            let offset = r.offset();
            let t = r.u8("constant pool tag")?;
            let c = match t {
                tag::UTF8 => {
                    let len = r.u16("Utf8 length")? as usize;
                    Constant::Utf8(r.bytes(len, "Utf8 bytes")?.into())
                }
                tag::INTEGER => Constant::Integer(r.i32("Integer")?),
                tag::FLOAT => Constant::Float(r.u32("Float")?),
                tag::LONG => Constant::Long(r.u64("Long")? as i64),
                tag::DOUBLE => Constant::Double(r.u64("Double")?),
                tag::CLASS => Constant::Class(cp(r)?),
                tag::STRING => Constant::String(cp(r)?),
                tag::FIELDREF => Constant::Fieldref {
                    class: cp(r)?,
                    name_and_type: cp(r)?,
                },
                tag::METHODREF => Constant::Methodref {
                    class: cp(r)?,
                    name_and_type: cp(r)?,
                },
                tag::INTERFACE_METHODREF => Constant::InterfaceMethodref {
                    class: cp(r)?,
                    name_and_type: cp(r)?,
                },
                tag::NAME_AND_TYPE => Constant::NameAndType {
                    name: cp(r)?,
                    descriptor: cp(r)?,
                },
                tag::METHOD_HANDLE => Constant::MethodHandle {
                    kind: r.u8("MethodHandle kind")?,
                    reference: cp(r)?,
                },
                tag::METHOD_TYPE => Constant::MethodType(cp(r)?),
                tag::DYNAMIC => Constant::Dynamic {
                    bootstrap: r.u16("Dynamic bootstrap index")?,
                    name_and_type: cp(r)?,
                },
                tag::INVOKE_DYNAMIC => Constant::InvokeDynamic {
                    bootstrap: r.u16("InvokeDynamic bootstrap index")?,
                    name_and_type: cp(r)?,
                },
                tag::MODULE => Constant::Module(cp(r)?),
                tag::PACKAGE => Constant::Package(cp(r)?),
                _ => {
                    return Err(Error::BadConstantTag {
                        tag: t,
                        index,
                        offset,
                    });
                }
            };
            let wide = c.is_wide();
            entries.push(c);
            if wide {
                if entries.len() >= count as usize {
                    return Err(Error::Malformed {
                        what: "constant pool",
                        offset,
                        detail: format!("8-byte constant #{index} is the last entry"),
                    });
                }
                entries.push(Constant::Unusable);
            }
        }
        Ok(ConstantPool {
            entries,
            lookup: None,
        })
    }

    /// Writes `constant_pool_count` and the entries.
    pub fn write(&self, out: &mut Vec<u8>) -> Result<()> {
        out.put_len16(self.entries.len(), "constant pool")?;
        for c in &self.entries {
            match c {
                Constant::Unusable => {}
                Constant::Utf8(b) => {
                    out.put_u8(tag::UTF8);
                    out.put_len16(b.len(), "Utf8 constant")?;
                    out.extend_from_slice(b);
                }
                Constant::Integer(v) => {
                    out.put_u8(tag::INTEGER);
                    out.put_i32(*v);
                }
                Constant::Float(v) => {
                    out.put_u8(tag::FLOAT);
                    out.put_u32(*v);
                }
                Constant::Long(v) => {
                    out.put_u8(tag::LONG);
                    out.extend_from_slice(&v.to_be_bytes());
                }
                Constant::Double(v) => {
                    out.put_u8(tag::DOUBLE);
                    out.extend_from_slice(&v.to_be_bytes());
                }
                Constant::Class(i) => put1(out, tag::CLASS, *i),
                Constant::String(i) => put1(out, tag::STRING, *i),
                Constant::MethodType(i) => put1(out, tag::METHOD_TYPE, *i),
                Constant::Module(i) => put1(out, tag::MODULE, *i),
                Constant::Package(i) => put1(out, tag::PACKAGE, *i),
                Constant::Fieldref {
                    class,
                    name_and_type,
                } => {
                    put2(out, tag::FIELDREF, class.0, *name_and_type);
                }
                Constant::Methodref {
                    class,
                    name_and_type,
                } => {
                    put2(out, tag::METHODREF, class.0, *name_and_type);
                }
                Constant::InterfaceMethodref {
                    class,
                    name_and_type,
                } => {
                    put2(out, tag::INTERFACE_METHODREF, class.0, *name_and_type);
                }
                Constant::NameAndType { name, descriptor } => {
                    put2(out, tag::NAME_AND_TYPE, name.0, *descriptor);
                }
                Constant::MethodHandle { kind, reference } => {
                    out.put_u8(tag::METHOD_HANDLE);
                    out.put_u8(*kind);
                    out.put_u16(reference.0);
                }
                Constant::Dynamic {
                    bootstrap,
                    name_and_type,
                } => {
                    put2(out, tag::DYNAMIC, *bootstrap, *name_and_type);
                }
                Constant::InvokeDynamic {
                    bootstrap,
                    name_and_type,
                } => {
                    put2(out, tag::INVOKE_DYNAMIC, *bootstrap, *name_and_type);
                }
            }
        }
        Ok(())
    }

    /// The `constant_pool_count` value (number of slots including index 0).
    #[must_use]
    pub fn count(&self) -> usize {
        self.entries.len()
    }

    /// All slots, index 0 included.
    #[must_use]
    pub fn entries(&self) -> &[Constant] {
        &self.entries
    }

    /// The entry at `index`.
    pub fn get(&self, index: CpIndex) -> Result<&Constant> {
        match self.entries.get(index.0 as usize) {
            Some(Constant::Unusable) | None => Err(Error::BadConstantRef {
                index: index.0,
                expected: "a usable entry",
                problem: if (index.0 as usize) < self.entries.len() {
                    "an unusable slot"
                } else {
                    "out of range"
                },
            }),
            Some(c) => Ok(c),
        }
    }

    fn wrong(&self, index: CpIndex, expected: &'static str) -> Error {
        let problem = match self.entries.get(index.0 as usize) {
            None => "out of range",
            Some(Constant::Unusable) => "an unusable slot",
            Some(_) => "of another kind",
        };
        Error::BadConstantRef {
            index: index.0,
            expected,
            problem,
        }
    }

    /// Raw bytes of a `Utf8` entry.
    pub fn utf8_bytes(&self, index: CpIndex) -> Result<&[u8]> {
        match self.entries.get(index.0 as usize) {
            Some(Constant::Utf8(b)) => Ok(b),
            _ => Err(self.wrong(index, "Utf8")),
        }
    }

    /// Decoded text of a `Utf8` entry.
    pub fn utf8(&self, index: CpIndex) -> Result<Cow<'_, str>> {
        self.utf8_bytes(index).map(mutf8::decode)
    }

    /// Internal name of a `Class` entry.
    pub fn class_name(&self, index: CpIndex) -> Result<Cow<'_, str>> {
        match self.entries.get(index.0 as usize) {
            Some(Constant::Class(n)) => self.utf8(*n),
            _ => Err(self.wrong(index, "Class")),
        }
    }

    /// Name and descriptor of a `NameAndType` entry.
    pub fn name_and_type(&self, index: CpIndex) -> Result<(Cow<'_, str>, Cow<'_, str>)> {
        match self.entries.get(index.0 as usize) {
            Some(Constant::NameAndType { name, descriptor }) => {
                Ok((self.utf8(*name)?, self.utf8(*descriptor)?))
            }
            _ => Err(self.wrong(index, "NameAndType")),
        }
    }

    /// Owner, name and descriptor of a `Fieldref`, `Methodref` or `InterfaceMethodref`.
    pub fn member_ref(&self, index: CpIndex) -> Result<MemberRef<'_>> {
        let (class, nat, interface) = match self.entries.get(index.0 as usize) {
            Some(
                Constant::Fieldref {
                    class,
                    name_and_type,
                }
                | Constant::Methodref {
                    class,
                    name_and_type,
                },
            ) => (*class, *name_and_type, false),
            Some(Constant::InterfaceMethodref {
                class,
                name_and_type,
            }) => (*class, *name_and_type, true),
            _ => return Err(self.wrong(index, "field or method reference")),
        };
        let (name, descriptor) = self.name_and_type(nat)?;
        Ok(MemberRef {
            class: self.class_name(class)?,
            name,
            descriptor,
            interface,
        })
    }

    /// Adds an entry, or returns the index of an equal existing one.
    pub fn add(&mut self, c: Constant) -> Result<CpIndex> {
        if matches!(c, Constant::Unusable) {
            return Err(Error::Rewrite("cannot add an unusable constant".into()));
        }
        let entries = &self.entries;
        let lookup = self.lookup.get_or_insert_with(|| {
            let mut m = HashMap::with_capacity(entries.len());
            for (i, e) in entries.iter().enumerate() {
                if !matches!(e, Constant::Unusable) {
                    m.entry(hash_constant(e)).or_insert(i as u16);
                }
            }
            m
        });
        let h = hash_constant(&c);
        if let Some(&i) = lookup.get(&h) {
            if entries[i as usize] == c {
                return Ok(CpIndex(i));
            }
            if let Some(j) = entries.iter().position(|e| *e == c) {
                return Ok(CpIndex(j as u16));
            }
        }
        let slots = if c.is_wide() { 2 } else { 1 };
        let index = self.entries.len();
        if index + slots > 0xFFFF {
            return Err(Error::Rewrite(
                "constant pool is full (65535 entries)".into(),
            ));
        }
        lookup.entry(h).or_insert(index as u16);
        let wide = c.is_wide();
        self.entries.push(c);
        if wide {
            self.entries.push(Constant::Unusable);
        }
        Ok(CpIndex(index as u16))
    }

    /// Removes every entry at index `count` and above (undoes additions made after
    /// [`ConstantPool::count`] returned `count`).
    pub fn truncate(&mut self, count: usize) {
        if count >= self.entries.len() || count == 0 {
            return;
        }
        let removed = self.entries.split_off(count);
        if let Some(lookup) = &mut self.lookup {
            for (k, c) in removed.iter().enumerate() {
                let h = hash_constant(c);
                if lookup.get(&h) == Some(&((count + k) as u16)) {
                    lookup.remove(&h);
                }
            }
        }
    }

    /// Replaces the entry at `index` with another of the same width (not `Long`/`Double`).
    pub fn replace(&mut self, index: CpIndex, c: Constant) -> Result<()> {
        let i = index.0 as usize;
        let old = self.get(index)?;
        if old.is_wide() || c.is_wide() || matches!(c, Constant::Unusable) {
            return Err(Error::Rewrite(format!(
                "cannot replace constant #{} by {}",
                index.0,
                c.kind_name()
            )));
        }
        let h = hash_constant(old);
        if let Some(lookup) = &mut self.lookup {
            if lookup.get(&h) == Some(&index.0) {
                lookup.remove(&h);
            }
            lookup.entry(hash_constant(&c)).or_insert(index.0);
        }
        self.entries[i] = c;
        Ok(())
    }

    /// Adds (or finds) a `Utf8` entry.
    pub fn add_utf8(&mut self, s: &str) -> Result<CpIndex> {
        let bytes = mutf8::encode(s);
        if bytes.len() > 0xFFFF {
            return Err(Error::Rewrite(format!(
                "string constant of {} bytes is longer than 65535",
                bytes.len()
            )));
        }
        self.add(Constant::Utf8(bytes.into()))
    }

    /// Adds (or finds) a `Class` entry for an internal name.
    pub fn add_class(&mut self, internal_name: &str) -> Result<CpIndex> {
        let n = self.add_utf8(internal_name)?;
        self.add(Constant::Class(n))
    }

    /// Adds (or finds) a `String` entry.
    pub fn add_string(&mut self, s: &str) -> Result<CpIndex> {
        let n = self.add_utf8(s)?;
        self.add(Constant::String(n))
    }

    /// Adds (or finds) a `String` entry from UTF-16 code units (unpaired surrogates allowed).
    pub fn add_string_utf16(&mut self, units: &[u16]) -> Result<CpIndex> {
        let bytes = mutf8::encode_utf16_units(units);
        if bytes.len() > 0xFFFF {
            return Err(Error::Rewrite(format!(
                "string constant of {} bytes is longer than 65535",
                bytes.len()
            )));
        }
        let n = self.add(Constant::Utf8(bytes.into()))?;
        self.add(Constant::String(n))
    }

    /// Adds (or finds) an `Integer` entry.
    pub fn add_integer(&mut self, v: i32) -> Result<CpIndex> {
        self.add(Constant::Integer(v))
    }

    /// Adds (or finds) a `NameAndType` entry.
    pub fn add_name_and_type(&mut self, name: &str, descriptor: &str) -> Result<CpIndex> {
        let name = self.add_utf8(name)?;
        let descriptor = self.add_utf8(descriptor)?;
        self.add(Constant::NameAndType { name, descriptor })
    }

    /// Adds (or finds) a `Methodref` or `InterfaceMethodref`.
    pub fn add_method_ref(
        &mut self,
        class: &str,
        name: &str,
        descriptor: &str,
        interface: bool,
    ) -> Result<CpIndex> {
        let class = self.add_class(class)?;
        let name_and_type = self.add_name_and_type(name, descriptor)?;
        self.add(if interface {
            Constant::InterfaceMethodref {
                class,
                name_and_type,
            }
        } else {
            Constant::Methodref {
                class,
                name_and_type,
            }
        })
    }

    /// Adds (or finds) a `Fieldref`.
    pub fn add_field_ref(&mut self, class: &str, name: &str, descriptor: &str) -> Result<CpIndex> {
        let class = self.add_class(class)?;
        let name_and_type = self.add_name_and_type(name, descriptor)?;
        self.add(Constant::Fieldref {
            class,
            name_and_type,
        })
    }

    /// Finds an existing `Class` entry by internal name without adding one.
    #[must_use]
    pub fn find_class(&self, internal_name: &str) -> Option<CpIndex> {
        let bytes = mutf8::encode(internal_name);
        self.entries.iter().enumerate().find_map(|(i, e)| match e {
            Constant::Class(n) => match self.entries.get(n.0 as usize) {
                Some(Constant::Utf8(b)) if **b == *bytes => Some(CpIndex(i as u16)),
                _ => None,
            },
            _ => None,
        })
    }
}

fn put1(out: &mut Vec<u8>, t: u8, i: CpIndex) {
    out.put_u8(t);
    out.put_u16(i.0);
}

fn put2(out: &mut Vec<u8>, t: u8, a: u16, b: CpIndex) {
    out.put_u8(t);
    out.put_u16(a);
    out.put_u16(b.0);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wide_entries_take_two_slots() {
        let mut cp = ConstantPool::new();
        let l = cp.add(Constant::Long(7)).unwrap_or_default();
        let i = cp.add_integer(3).unwrap_or_default();
        assert_eq!((l.0, i.0), (1, 3));
        assert!(cp.get(CpIndex(2)).is_err());
        let mut out = Vec::new();
        assert!(cp.write(&mut out).is_ok());
        let mut r = ByteReader::new(&out, 0);
        let back = ConstantPool::parse(&mut r).ok();
        assert_eq!(back.as_ref(), Some(&cp));
    }

    #[test]
    fn truncate_undoes_additions() {
        let mut cp = ConstantPool::new();
        let a = cp.add_utf8("keep").unwrap_or_default();
        let n = cp.count();
        let b = cp.add_utf8("drop").unwrap_or_default();
        assert_eq!(b.0, 2);
        cp.truncate(n);
        assert_eq!(cp.count(), 2);
        assert_eq!(cp.add_utf8("keep").unwrap_or_default(), a);
        assert_eq!(cp.add_utf8("drop").unwrap_or_default().0, 2);
    }

    #[test]
    fn errors_name_the_index_and_kind() {
        let mut cp = ConstantPool::new();
        let s = cp.add_utf8("x").unwrap_or_default();
        let msg = cp
            .class_name(s)
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default();
        assert_eq!(
            msg,
            "constant pool index #1 is of another kind (expected Class)"
        );
        let msg = cp
            .utf8(CpIndex(9))
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default();
        assert_eq!(
            msg,
            "constant pool index #9 is out of range (expected Utf8)"
        );
    }

    #[test]
    fn bad_tag_names_offset() {
        let data = [0, 2, 99];
        let mut r = ByteReader::new(&data, 8);
        let msg = ConstantPool::parse(&mut r)
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default();
        assert_eq!(
            msg,
            "invalid constant pool tag 99 for entry #1 at byte offset 10"
        );
    }
}
