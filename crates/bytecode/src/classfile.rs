//! The class file (JVMS 4.1): reading and byte-identical writing.
//!
//! ```
//! use ferrosuite_bytecode::ClassFile;
//! # fn main() -> ferrosuite_bytecode::Result<()> {
//! let mut class = ClassFile::new_class("demo/Empty", "java/lang/Object", 52)?;
//! let bytes = class.to_bytes()?;
//! let back = ClassFile::parse(&bytes)?;
//! assert_eq!(back.name()?, "demo/Empty");
//! assert_eq!(back.to_bytes()?, bytes);
//! # Ok(()) }
//! ```

use std::borrow::Cow;

use crate::attributes::{
    AttrContext, Attribute, AttributeBody, Code, parse_attributes, write_attributes,
};
use crate::bytes::{ByteReader, ByteWriter};
use crate::constant_pool::{ConstantPool, CpIndex};
use crate::error::{Error, Result};

/// Highest class-file major version read (Java 25).
pub const MAX_MAJOR_VERSION: u16 = 69;

/// Access flags (JVMS tables 4.1-B, 4.5-A, 4.6-A).
pub mod access {
    #![allow(missing_docs)]
    pub const PUBLIC: u16 = 0x0001;
    pub const PRIVATE: u16 = 0x0002;
    pub const PROTECTED: u16 = 0x0004;
    pub const STATIC: u16 = 0x0008;
    pub const FINAL: u16 = 0x0010;
    pub const SUPER: u16 = 0x0020;
    pub const SYNCHRONIZED: u16 = 0x0020;
    pub const VOLATILE: u16 = 0x0040;
    pub const BRIDGE: u16 = 0x0040;
    pub const TRANSIENT: u16 = 0x0080;
    pub const VARARGS: u16 = 0x0080;
    pub const NATIVE: u16 = 0x0100;
    pub const INTERFACE: u16 = 0x0200;
    pub const ABSTRACT: u16 = 0x0400;
    pub const STRICT: u16 = 0x0800;
    pub const SYNTHETIC: u16 = 0x1000;
    pub const ANNOTATION: u16 = 0x2000;
    pub const ENUM: u16 = 0x4000;
    pub const MODULE: u16 = 0x8000;
}

/// A field or method (`field_info` / `method_info` have the same shape).
#[derive(Debug, Clone, PartialEq)]
pub struct Member {
    /// Access flags.
    pub access_flags: u16,
    /// `Utf8` name.
    pub name: CpIndex,
    /// `Utf8` descriptor.
    pub descriptor: CpIndex,
    /// Attributes.
    pub attributes: Vec<Attribute>,
}

impl Member {
    /// The `Code` attribute, if any.
    #[must_use]
    pub fn code(&self) -> Option<&Code> {
        self.attributes.iter().find_map(|a| match &a.body {
            AttributeBody::Code(c) => Some(c),
            _ => None,
        })
    }

    /// The `Code` attribute, mutable.
    pub fn code_mut(&mut self) -> Option<&mut Code> {
        self.attributes.iter_mut().find_map(|a| match &mut a.body {
            AttributeBody::Code(c) => Some(c),
            _ => None,
        })
    }

    /// True when the flag is set.
    #[must_use]
    pub fn is(&self, flag: u16) -> bool {
        self.access_flags & flag != 0
    }
}

/// An owned class file.
#[derive(Debug, Clone, PartialEq)]
pub struct ClassFile {
    /// Minor version.
    pub minor_version: u16,
    /// Major version (52 = Java 8 … 69 = Java 25).
    pub major_version: u16,
    /// The constant pool.
    pub constant_pool: ConstantPool,
    /// Access flags.
    pub access_flags: u16,
    /// `Class` entry of this class.
    pub this_class: CpIndex,
    /// `Class` entry of the superclass, or 0 (only `java/lang/Object` and module-info).
    pub super_class: CpIndex,
    /// `Class` entries of the direct superinterfaces.
    pub interfaces: Vec<CpIndex>,
    /// Fields.
    pub fields: Vec<Member>,
    /// Methods.
    pub methods: Vec<Member>,
    /// Class attributes.
    pub attributes: Vec<Attribute>,
}

impl ClassFile {
    /// Parses a class file. Errors name the byte offset; use [`ClassFile::parse_named`] to
    /// also name the class or file.
    pub fn parse(bytes: &[u8]) -> Result<Self> {
        let mut r = ByteReader::new(bytes, 0);
        let magic = r.u32("magic")?;
        if magic != 0xCAFE_BABE {
            return Err(Error::BadMagic { found: magic });
        }
        let minor_version = r.u16("minor_version")?;
        let major_version = r.u16("major_version")?;
        if !(45..=MAX_MAJOR_VERSION).contains(&major_version) {
            return Err(Error::UnsupportedVersion {
                major: major_version,
                minor: minor_version,
                max: MAX_MAJOR_VERSION,
            });
        }
        let constant_pool = ConstantPool::parse(&mut r)?;
        let access_flags = r.u16("access_flags")?;
        let this_class = CpIndex(r.u16("this_class")?);
        let super_class = CpIndex(r.u16("super_class")?);
        let interfaces = r.list("interfaces_count", |r| Ok(CpIndex(r.u16("interface")?)))?;
        let fields = r.list("fields_count", |r| {
            parse_member(r, &constant_pool, AttrContext::Field)
        })?;
        let methods = r.list("methods_count", |r| {
            parse_member(r, &constant_pool, AttrContext::Method)
        })?;
        let attributes = parse_attributes(&mut r, &constant_pool, AttrContext::Class)?;
        if !r.is_empty() {
            return Err(Error::TrailingBytes {
                offset: r.offset(),
                count: r.remaining(),
            });
        }
        Ok(ClassFile {
            minor_version,
            major_version,
            constant_pool,
            access_flags,
            this_class,
            super_class,
            interfaces,
            fields,
            methods,
            attributes,
        })
    }

    /// Parses a class file; errors name `origin` (a class name, file or jar entry).
    pub fn parse_named(bytes: &[u8], origin: &str) -> Result<Self> {
        Self::parse(bytes).map_err(|e| e.context(origin))
    }

    /// A new empty public class (for tests and generated helpers).
    pub fn new_class(name: &str, super_name: &str, major_version: u16) -> Result<Self> {
        let mut constant_pool = ConstantPool::new();
        let this_class = constant_pool.add_class(name)?;
        let super_class = constant_pool.add_class(super_name)?;
        Ok(ClassFile {
            minor_version: 0,
            major_version,
            constant_pool,
            access_flags: access::PUBLIC | access::SUPER,
            this_class,
            super_class,
            interfaces: Vec::new(),
            fields: Vec::new(),
            methods: Vec::new(),
            attributes: Vec::new(),
        })
    }

    /// Writes the class file.
    pub fn write(&self, out: &mut Vec<u8>) -> Result<()> {
        out.put_u32(0xCAFE_BABE);
        out.put_u16(self.minor_version);
        out.put_u16(self.major_version);
        self.constant_pool.write(out)?;
        out.put_u16(self.access_flags);
        out.put_u16(self.this_class.0);
        out.put_u16(self.super_class.0);
        out.put_len16(self.interfaces.len(), "interfaces")?;
        for i in &self.interfaces {
            out.put_u16(i.0);
        }
        for list in [&self.fields, &self.methods] {
            out.put_len16(list.len(), "fields or methods")?;
            for m in list {
                out.put_u16(m.access_flags);
                out.put_u16(m.name.0);
                out.put_u16(m.descriptor.0);
                write_attributes(out, &m.attributes)?;
            }
        }
        write_attributes(out, &self.attributes)
    }

    /// The class file as bytes.
    pub fn to_bytes(&self) -> Result<Vec<u8>> {
        let mut out = Vec::with_capacity(4096);
        self.write(&mut out)?;
        Ok(out)
    }

    /// Internal name of this class (`java/lang/String`).
    pub fn name(&self) -> Result<Cow<'_, str>> {
        self.constant_pool.class_name(self.this_class)
    }

    /// Internal name of the superclass, `None` for `java/lang/Object` and module-info.
    pub fn super_name(&self) -> Result<Option<Cow<'_, str>>> {
        if self.super_class.0 == 0 {
            Ok(None)
        } else {
            self.constant_pool.class_name(self.super_class).map(Some)
        }
    }

    /// Internal names of the direct superinterfaces.
    pub fn interface_names(&self) -> Result<Vec<Cow<'_, str>>> {
        self.interfaces
            .iter()
            .map(|i| self.constant_pool.class_name(*i))
            .collect()
    }

    /// Name of a field or method.
    pub fn member_name(&self, m: &Member) -> Result<Cow<'_, str>> {
        self.constant_pool.utf8(m.name)
    }

    /// Descriptor of a field or method.
    pub fn member_descriptor(&self, m: &Member) -> Result<Cow<'_, str>> {
        self.constant_pool.utf8(m.descriptor)
    }

    /// The method this class declares with that name and descriptor (not inherited ones).
    #[must_use]
    pub fn declared_method(&self, name: &str, descriptor: &str) -> Option<&Member> {
        self.methods
            .iter()
            .find(|m| self.is_member(m, name, descriptor))
    }

    /// The field this class declares with that name and descriptor (not inherited ones).
    #[must_use]
    pub fn declared_field(&self, name: &str, descriptor: &str) -> Option<&Member> {
        self.fields
            .iter()
            .find(|f| self.is_member(f, name, descriptor))
    }

    /// Whether the member has that name and descriptor.
    #[must_use]
    pub fn is_member(&self, m: &Member, name: &str, descriptor: &str) -> bool {
        self.member_name(m).is_ok_and(|n| n == name)
            && self.member_descriptor(m).is_ok_and(|d| d == descriptor)
    }

    /// True when the flag is set on the class.
    #[must_use]
    pub fn is(&self, flag: u16) -> bool {
        self.access_flags & flag != 0
    }

    /// The class's `BootstrapMethods`, if any.
    #[must_use]
    pub fn bootstrap_methods(&self) -> Option<&[crate::attributes::BootstrapMethod]> {
        self.attributes.iter().find_map(|a| match &a.body {
            AttributeBody::BootstrapMethods(b) => Some(b.as_slice()),
            _ => None,
        })
    }

    /// The classes named by the class's `InnerClasses` attribute (internal names, in
    /// attribute order; entries whose name does not resolve are skipped). They include the
    /// class's own nested classes, its enclosing classes and any nested class it refers to.
    #[must_use]
    pub fn inner_class_names(&self) -> Vec<String> {
        self.attributes
            .iter()
            .filter_map(|a| match &a.body {
                AttributeBody::InnerClasses(ics) => Some(ics),
                _ => None,
            })
            .flatten()
            .filter_map(|ic| self.constant_pool.class_name(ic.inner).ok())
            .map(std::borrow::Cow::into_owned)
            .collect()
    }

    /// The class's source file name, if recorded.
    #[must_use]
    pub fn source_file(&self) -> Option<Cow<'_, str>> {
        self.attributes.iter().find_map(|a| match &a.body {
            AttributeBody::SourceFile(i) => self.constant_pool.utf8(*i).ok(),
            _ => None,
        })
    }
}

fn parse_member(r: &mut ByteReader<'_>, cp: &ConstantPool, ctx: AttrContext) -> Result<Member> {
    Ok(Member {
        access_flags: r.u16("access_flags")?,
        name: CpIndex(r.u16("name_index")?),
        descriptor: CpIndex(r.u16("descriptor_index")?),
        attributes: parse_attributes(r, cp, ctx)?,
    })
}

/// The header of a class file: just enough for class-path indexing and hierarchy queries,
/// parsed without reading fields and methods.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClassHeader {
    /// Access flags.
    pub access_flags: u16,
    /// Internal name.
    pub name: String,
    /// Superclass internal name.
    pub super_name: Option<String>,
    /// Direct superinterfaces.
    pub interfaces: Vec<String>,
}

impl ClassHeader {
    /// Parses the header of a class file.
    pub fn parse(bytes: &[u8]) -> Result<Self> {
        let mut r = ByteReader::new(bytes, 0);
        let magic = r.u32("magic")?;
        if magic != 0xCAFE_BABE {
            return Err(Error::BadMagic { found: magic });
        }
        r.skip(4, "version")?;
        let cp = ConstantPool::parse(&mut r)?;
        let access_flags = r.u16("access_flags")?;
        let this = CpIndex(r.u16("this_class")?);
        let sup = CpIndex(r.u16("super_class")?);
        let interfaces = r.list("interfaces_count", |r| {
            Ok(cp.class_name(CpIndex(r.u16("interface")?))?.into_owned())
        })?;
        Ok(ClassHeader {
            access_flags,
            name: cp.class_name(this)?.into_owned(),
            super_name: if sup.0 == 0 {
                None
            } else {
                Some(cp.class_name(sup)?.into_owned())
            },
            interfaces,
        })
    }
}
