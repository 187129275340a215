//! Attributes (JVMS 4.7): typed where ferrosuite uses them, raw bytes for everything else.
//!
//! A typed attribute is only kept typed when its body parses completely and exactly; anything
//! unexpected (a custom attribute that happens to share a standard name, an odd length) falls
//! back to [`AttributeBody::Raw`], so that writing is always byte-identical to reading. The one
//! exception is `Code`, whose structure the JVM checks when it loads a class: a malformed `Code`
//! attribute is an error.

use crate::bytes::{ByteReader, ByteWriter, with_u32_len};
use crate::constant_pool::{ConstantPool, CpIndex};
use crate::error::{Error, Result};
use crate::stackmap::StackMapFrame;

/// Where an attribute list appears; decides which attributes are typed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AttrContext {
    /// `ClassFile.attributes`.
    Class,
    /// `field_info.attributes`.
    Field,
    /// `method_info.attributes`.
    Method,
    /// `Code.attributes`.
    Code,
    /// `record_component_info.attributes`.
    RecordComponent,
}

/// One attribute: its name (a `Utf8` index, kept as in the original) and body.
#[derive(Debug, Clone, PartialEq)]
pub struct Attribute {
    /// `attribute_name_index`.
    pub name: CpIndex,
    /// The body.
    pub body: AttributeBody,
}

/// An exception-table entry of a `Code` attribute.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ExceptionHandler {
    /// Start of the protected range (inclusive).
    pub start_pc: u16,
    /// End of the protected range (exclusive).
    pub end_pc: u16,
    /// Handler entry.
    pub handler_pc: u16,
    /// Caught class, or 0 for any (`finally`).
    pub catch_type: CpIndex,
}

/// The `Code` attribute.
#[derive(Debug, Clone, PartialEq)]
pub struct Code {
    /// Maximum operand-stack depth.
    pub max_stack: u16,
    /// Number of local-variable slots.
    pub max_locals: u16,
    /// The bytecode (decode with [`crate::insn::decode`]).
    pub code: Vec<u8>,
    /// Exception handlers.
    pub exception_table: Vec<ExceptionHandler>,
    /// Nested attributes (`StackMapTable`, `LineNumberTable`, …).
    pub attributes: Vec<Attribute>,
}

impl Code {
    /// The typed `StackMapTable` frames, if the attribute is present.
    #[must_use]
    pub fn stack_map(&self) -> Option<&[StackMapFrame]> {
        self.attributes.iter().find_map(|a| match &a.body {
            AttributeBody::StackMapTable(f) => Some(f.as_slice()),
            _ => None,
        })
    }

    /// All `LineNumberTable` entries (there may be several tables).
    pub fn line_numbers(&self) -> impl Iterator<Item = &LineNumber> {
        self.attributes.iter().flat_map(|a| match &a.body {
            AttributeBody::LineNumberTable(t) => t.as_slice(),
            _ => &[],
        })
    }
}

/// A `LineNumberTable` entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LineNumber {
    /// First instruction of the line.
    pub start_pc: u16,
    /// Source line.
    pub line: u16,
}

/// A `LocalVariableTable` or `LocalVariableTypeTable` entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LocalVariable {
    /// Start of the live range.
    pub start_pc: u16,
    /// Length of the live range.
    pub length: u16,
    /// Name.
    pub name: CpIndex,
    /// Descriptor (LVT) or signature (LVTT).
    pub descriptor: CpIndex,
    /// Local slot.
    pub index: u16,
}

/// A `BootstrapMethods` entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BootstrapMethod {
    /// `MethodHandle` constant.
    pub method: CpIndex,
    /// Static arguments.
    pub arguments: Vec<CpIndex>,
}

/// An `InnerClasses` entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct InnerClass {
    /// The inner class.
    pub inner: CpIndex,
    /// The outer class, or 0.
    pub outer: CpIndex,
    /// Simple name, or 0 for anonymous classes.
    pub name: CpIndex,
    /// Access flags of the inner class.
    pub flags: u16,
}

/// A `Record` component.
#[derive(Debug, Clone, PartialEq)]
pub struct RecordComponent {
    /// Name.
    pub name: CpIndex,
    /// Descriptor.
    pub descriptor: CpIndex,
    /// Attributes (`Signature` typed, the rest raw).
    pub attributes: Vec<Attribute>,
}

/// The body of an attribute.
#[derive(Debug, Clone, PartialEq)]
pub enum AttributeBody {
    /// `Code` (methods).
    Code(Code),
    /// `StackMapTable` (code).
    StackMapTable(Vec<StackMapFrame>),
    /// `LineNumberTable` (code).
    LineNumberTable(Vec<LineNumber>),
    /// `LocalVariableTable` (code).
    LocalVariableTable(Vec<LocalVariable>),
    /// `LocalVariableTypeTable` (code).
    LocalVariableTypeTable(Vec<LocalVariable>),
    /// `Exceptions` (methods).
    Exceptions(Vec<CpIndex>),
    /// `ConstantValue` (fields).
    ConstantValue(CpIndex),
    /// `Signature` (classes, fields, methods, record components).
    Signature(CpIndex),
    /// `SourceFile` (classes).
    SourceFile(CpIndex),
    /// `BootstrapMethods` (classes).
    BootstrapMethods(Vec<BootstrapMethod>),
    /// `InnerClasses` (classes).
    InnerClasses(Vec<InnerClass>),
    /// `EnclosingMethod` (classes); `method` may be 0.
    EnclosingMethod {
        /// Enclosing class.
        class: CpIndex,
        /// Enclosing method's `NameAndType`, or 0.
        method: CpIndex,
    },
    /// `NestHost` (classes).
    NestHost(CpIndex),
    /// `NestMembers` (classes).
    NestMembers(Vec<CpIndex>),
    /// `PermittedSubclasses` (classes).
    PermittedSubclasses(Vec<CpIndex>),
    /// `Record` (classes).
    Record(Vec<RecordComponent>),
    /// `Synthetic` (empty).
    Synthetic,
    /// `Deprecated` (empty).
    Deprecated,
    /// Any other attribute, as its raw body.
    Raw(Vec<u8>),
}

fn cpi(r: &mut ByteReader<'_>) -> Result<CpIndex> {
    Ok(CpIndex(r.u16("constant pool index")?))
}

/// Reads an attribute list (`u16` count then attributes).
pub fn parse_attributes(
    r: &mut ByteReader<'_>,
    cp: &ConstantPool,
    ctx: AttrContext,
) -> Result<Vec<Attribute>> {
    r.list("attributes_count", |r| parse_attribute(r, cp, ctx))
}

fn parse_attribute(
    r: &mut ByteReader<'_>,
    cp: &ConstantPool,
    ctx: AttrContext,
) -> Result<Attribute> {
    let name = cpi(r)?;
    let len = r.u32("attribute_length")? as usize;
    let mut body = r.sub(len, "attribute body")?;
    let name_bytes = cp.utf8_bytes(name).unwrap_or(&[]);
    if ctx == AttrContext::Method && name_bytes == b"Code" {
        let code = parse_code(&mut body, cp)?;
        if !body.is_empty() {
            return Err(Error::Malformed {
                what: "Code attribute",
                offset: body.offset(),
                detail: format!("{} bytes beyond the end of its content", body.remaining()),
            });
        }
        return Ok(Attribute {
            name,
            body: AttributeBody::Code(code),
        });
    }
    let raw = body.clone();
    let typed = match parse_typed(name_bytes, &mut body, cp, ctx) {
        Ok(Some(t)) if body.is_empty() => Some(t),
        _ => None,
    };
    let body = match typed {
        Some(t) => t,
        None => AttributeBody::Raw(
            raw.clone()
                .bytes(raw.remaining(), "attribute body")?
                .to_vec(),
        ),
    };
    Ok(Attribute { name, body })
}

fn parse_code(r: &mut ByteReader<'_>, cp: &ConstantPool) -> Result<Code> {
    let max_stack = r.u16("max_stack")?;
    let max_locals = r.u16("max_locals")?;
    let code_offset = r.offset();
    let len = r.u32("code_length")? as usize;
    if len == 0 || len > 0xFFFF {
        return Err(Error::Malformed {
            what: "Code attribute",
            offset: code_offset,
            detail: format!("code_length {len} is outside 1..=65535"),
        });
    }
    let code = r.bytes(len, "code")?.to_vec();
    let exception_table = r.list("exception_table_length", |r| {
        Ok(ExceptionHandler {
            start_pc: r.u16("start_pc")?,
            end_pc: r.u16("end_pc")?,
            handler_pc: r.u16("handler_pc")?,
            catch_type: cpi(r)?,
        })
    })?;
    let attributes = parse_attributes(r, cp, AttrContext::Code)?;
    Ok(Code {
        max_stack,
        max_locals,
        code,
        exception_table,
        attributes,
    })
}

fn parse_typed(
    name: &[u8],
    r: &mut ByteReader<'_>,
    cp: &ConstantPool,
    ctx: AttrContext,
) -> Result<Option<AttributeBody>> {
    use AttrContext as C;
    use AttributeBody as B;
    Ok(Some(match (ctx, name) {
        (C::Code, b"StackMapTable") => {
            let n = r.u16("number_of_entries")? as usize;
            let mut frames = Vec::with_capacity(n.min(r.remaining()));
            for _ in 0..n {
                frames.push(StackMapFrame::parse(r)?);
            }
            B::StackMapTable(frames)
        }
        (C::Code, b"LineNumberTable") => {
            B::LineNumberTable(r.list("line_number_table_length", |r| {
                Ok(LineNumber {
                    start_pc: r.u16("start_pc")?,
                    line: r.u16("line_number")?,
                })
            })?)
        }
        (C::Code, b"LocalVariableTable") => {
            B::LocalVariableTable(r.list("local_variable_table_length", local_var)?)
        }
        (C::Code, b"LocalVariableTypeTable") => {
            B::LocalVariableTypeTable(r.list("local_variable_type_table_length", local_var)?)
        }
        (C::Method, b"Exceptions") => B::Exceptions(r.list("number_of_exceptions", cpi)?),
        (C::Field, b"ConstantValue") => B::ConstantValue(cpi(r)?),
        (C::Class | C::Field | C::Method | C::RecordComponent, b"Signature") => {
            B::Signature(cpi(r)?)
        }
        (C::Class, b"SourceFile") => B::SourceFile(cpi(r)?),
        (C::Class, b"BootstrapMethods") => {
            B::BootstrapMethods(r.list("num_bootstrap_methods", |r| {
                Ok(BootstrapMethod {
                    method: cpi(r)?,
                    arguments: r.list("num_bootstrap_arguments", cpi)?,
                })
            })?)
        }
        (C::Class, b"InnerClasses") => B::InnerClasses(r.list("number_of_classes", |r| {
            Ok(InnerClass {
                inner: cpi(r)?,
                outer: cpi(r)?,
                name: cpi(r)?,
                flags: r.u16("inner_class_access_flags")?,
            })
        })?),
        (C::Class, b"EnclosingMethod") => B::EnclosingMethod {
            class: cpi(r)?,
            method: cpi(r)?,
        },
        (C::Class, b"NestHost") => B::NestHost(cpi(r)?),
        (C::Class, b"NestMembers") => B::NestMembers(r.list("number_of_classes", cpi)?),
        (C::Class, b"PermittedSubclasses") => {
            B::PermittedSubclasses(r.list("number_of_classes", cpi)?)
        }
        (C::Class, b"Record") => B::Record(r.list("components_count", |r| {
            Ok(RecordComponent {
                name: cpi(r)?,
                descriptor: cpi(r)?,
                attributes: parse_attributes(r, cp, C::RecordComponent)?,
            })
        })?),
        (_, b"Synthetic") if r.is_empty() => B::Synthetic,
        (_, b"Deprecated") if r.is_empty() => B::Deprecated,
        _ => return Ok(None),
    }))
}

fn local_var(r: &mut ByteReader<'_>) -> Result<LocalVariable> {
    Ok(LocalVariable {
        start_pc: r.u16("start_pc")?,
        length: r.u16("length")?,
        name: cpi(r)?,
        descriptor: cpi(r)?,
        index: r.u16("index")?,
    })
}

/// Writes an attribute list (`u16` count then attributes).
pub fn write_attributes(out: &mut Vec<u8>, attrs: &[Attribute]) -> Result<()> {
    out.put_len16(attrs.len(), "attribute list")?;
    for a in attrs {
        out.put_u16(a.name.0);
        with_u32_len(out, |out| write_body(out, &a.body))?;
    }
    Ok(())
}

fn put_list(out: &mut Vec<u8>, items: &[CpIndex], what: &'static str) -> Result<()> {
    out.put_len16(items.len(), what)?;
    for i in items {
        out.put_u16(i.0);
    }
    Ok(())
}

fn write_lvt(out: &mut Vec<u8>, t: &[LocalVariable]) -> Result<()> {
    out.put_len16(t.len(), "local variable table")?;
    for v in t {
        out.put_u16(v.start_pc);
        out.put_u16(v.length);
        out.put_u16(v.name.0);
        out.put_u16(v.descriptor.0);
        out.put_u16(v.index);
    }
    Ok(())
}

fn write_body(out: &mut Vec<u8>, body: &AttributeBody) -> Result<()> {
    use AttributeBody as B;
    match body {
        B::Code(c) => {
            out.put_u16(c.max_stack);
            out.put_u16(c.max_locals);
            if c.code.is_empty() || c.code.len() > 0xFFFF {
                return Err(Error::Rewrite(format!(
                    "code length {} is outside 1..=65535",
                    c.code.len()
                )));
            }
            out.put_u32(c.code.len() as u32);
            out.extend_from_slice(&c.code);
            out.put_len16(c.exception_table.len(), "exception table")?;
            for h in &c.exception_table {
                out.put_u16(h.start_pc);
                out.put_u16(h.end_pc);
                out.put_u16(h.handler_pc);
                out.put_u16(h.catch_type.0);
            }
            write_attributes(out, &c.attributes)?;
        }
        B::StackMapTable(frames) => {
            out.put_len16(frames.len(), "StackMapTable")?;
            for f in frames {
                f.write(out)?;
            }
        }
        B::LineNumberTable(t) => {
            out.put_len16(t.len(), "LineNumberTable")?;
            for l in t {
                out.put_u16(l.start_pc);
                out.put_u16(l.line);
            }
        }
        B::LocalVariableTable(t) | B::LocalVariableTypeTable(t) => write_lvt(out, t)?,
        B::Exceptions(l) => put_list(out, l, "Exceptions")?,
        B::NestMembers(l) => put_list(out, l, "NestMembers")?,
        B::PermittedSubclasses(l) => put_list(out, l, "PermittedSubclasses")?,
        B::ConstantValue(i) | B::Signature(i) | B::SourceFile(i) | B::NestHost(i) => {
            out.put_u16(i.0);
        }
        B::BootstrapMethods(bms) => {
            out.put_len16(bms.len(), "BootstrapMethods")?;
            for bm in bms {
                out.put_u16(bm.method.0);
                put_list(out, &bm.arguments, "bootstrap arguments")?;
            }
        }
        B::InnerClasses(ics) => {
            out.put_len16(ics.len(), "InnerClasses")?;
            for ic in ics {
                out.put_u16(ic.inner.0);
                out.put_u16(ic.outer.0);
                out.put_u16(ic.name.0);
                out.put_u16(ic.flags);
            }
        }
        B::EnclosingMethod { class, method } => {
            out.put_u16(class.0);
            out.put_u16(method.0);
        }
        B::Record(comps) => {
            out.put_len16(comps.len(), "Record")?;
            for c in comps {
                out.put_u16(c.name.0);
                out.put_u16(c.descriptor.0);
                write_attributes(out, &c.attributes)?;
            }
        }
        B::Synthetic | B::Deprecated => {}
        B::Raw(b) => out.extend_from_slice(b),
    }
    Ok(())
}
