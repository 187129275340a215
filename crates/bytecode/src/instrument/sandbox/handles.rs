//! Method handles naming a guarded member, redirected to private static guarding bridges.

use std::collections::{HashMap, HashSet};

use crate::attributes::{Attribute, AttributeBody, Code};
use crate::classfile::{ClassFile, Member, access};
use crate::constant_pool::{Constant, ConstantPool, CpIndex};
use crate::descriptor::{FieldType, MethodDescriptor};
use crate::error::{Error, Result, ResultExt};
use crate::insn::{self, Insn};
use crate::opcodes as op;

use super::guard::Guard;
use super::{BRIDGE_PREFIX, SandboxReport};

/// Redirects the method handles that name a guarded member to new bridge methods; returns the
/// bridges to add to the class.
pub(super) fn redirect_handles(
    class: &mut ClassFile,
    this: &str,
    guards: &HashMap<CpIndex, Guard>,
    is_interface: bool,
    report: &mut SandboxReport,
) -> Result<Vec<Member>> {
    let handles: Vec<(CpIndex, u8, CpIndex)> = class
        .constant_pool
        .entries()
        .iter()
        .enumerate()
        .filter_map(|(i, c)| match c {
            Constant::MethodHandle { kind, reference } if guards.contains_key(reference) => {
                Some((CpIndex(i as u16), *kind, *reference))
            }
            _ => None,
        })
        .collect();
    if handles.is_empty() {
        return Ok(Vec::new());
    }
    let mut taken: HashSet<String> = HashSet::new();
    for m in &class.methods {
        taken.insert(class.member_name(m)?.into_owned());
    }
    let mut next = 0usize;
    let mut bridges: Vec<Member> = Vec::new();
    let mut made: HashMap<(u8, CpIndex), CpIndex> = HashMap::new();
    for (index, kind, reference) in handles {
        let Some(guard) = guards.get(&reference) else {
            continue;
        };
        let r = class.constant_pool.member_ref(reference)?;
        let describe = format!(
            "#{} kind {kind} {}.{}{}",
            index.0, r.class, r.name, r.descriptor
        );
        if is_interface && class.major_version < 52 {
            report.unguarded_handles.push(format!(
                "{describe}: an interface of a class file older than Java 8 cannot hold a \
                 private static bridge"
            ));
            continue;
        }
        if !(5..=9).contains(&kind) {
            report
                .unguarded_handles
                .push(format!("{describe}: not a method handle kind"));
            continue;
        }
        let bridge_ref = if let Some(b) = made.get(&(kind, reference)) {
            *b
        } else {
            let bname = loop {
                let candidate = format!("{BRIDGE_PREFIX}{next}");
                next += 1;
                if taken.insert(candidate.clone()) {
                    break candidate;
                }
            };
            let (bdesc, member) = bridge(
                &mut class.constant_pool,
                this,
                &bname,
                kind,
                reference,
                guard,
            )
            .context_with(|| format!("bridge for method handle {describe}"))?;
            bridges.push(member);
            let b = class
                .constant_pool
                .add_method_ref(this, &bname, &bdesc, is_interface)?;
            made.insert((kind, reference), b);
            b
        };
        class.constant_pool.replace(
            index,
            Constant::MethodHandle {
                kind: 6,
                reference: bridge_ref,
            },
        )?;
        *report.handles.entry(guard.api.clone()).or_default() += 1;
    }
    Ok(bridges)
}

/// Builds a bridge method for a method handle of `kind` naming `reference`: its descriptor and
/// the method.
fn bridge(
    cp: &mut ConstantPool,
    this: &str,
    name: &str,
    kind: u8,
    reference: CpIndex,
    guard: &Guard,
) -> Result<(String, Member)> {
    let r = cp.member_ref(reference)?;
    let owner = r.class.into_owned();
    let mdesc = r.descriptor.into_owned();
    let d = MethodDescriptor::parse(&mdesc)?;
    let receiver = |t: &str| {
        if t.starts_with('[') {
            FieldType::parse(t)
        } else {
            Ok(FieldType::Object(t.to_string()))
        }
    };
    // Kinds (JVMS 4.4.8): 5 invokeVirtual, 6 invokeStatic, 7 invokeSpecial,
    // 8 newInvokeSpecial, 9 invokeInterface.
    let (params, ret) = match kind {
        6 => (d.params.clone(), d.ret.clone()),
        5 | 9 => {
            let mut p = vec![receiver(&owner)?];
            p.extend(d.params.iter().cloned());
            (p, d.ret.clone())
        }
        7 => {
            let mut p = vec![FieldType::Object(this.to_string())];
            p.extend(d.params.iter().cloned());
            (p, d.ret.clone())
        }
        _ => (d.params.clone(), Some(FieldType::Object(owner.clone()))),
    };
    let bdesc = MethodDescriptor {
        params: params.clone(),
        ret: ret.clone(),
    }
    .to_string();
    let mut code: Vec<Insn<usize>> = Vec::new();
    let mut base: u16 = 0;
    if kind == 8 {
        let c = cp.add_class(&owner)?;
        code.push(Insn::Cp {
            op: op::NEW,
            index: c,
        });
        code.push(Insn::Simple(op::DUP));
        base = 2;
    }
    let mut slot: u16 = 0;
    for p in &params {
        code.push(load(p, slot));
        slot += p.slots();
    }
    let locals = slot;
    code.extend(guard.code(cp)?);
    code.push(match kind {
        6 => Insn::Cp {
            op: op::INVOKESTATIC,
            index: reference,
        },
        5 => Insn::Cp {
            op: op::INVOKEVIRTUAL,
            index: reference,
        },
        9 => Insn::InvokeInterface {
            index: reference,
            count: u8::try_from(locals)
                .map_err(|_| Error::Rewrite(format!("{owner}.{mdesc} has too many parameters")))?,
            zero: 0,
        },
        _ => Insn::Cp {
            op: op::INVOKESPECIAL,
            index: reference,
        },
    });
    code.push(Insn::Simple(match &ret {
        None => op::RETURN,
        Some(t) => return_op(t),
    }));
    let max_stack =
        (base + locals + guard.extra_stack()).max(ret.as_ref().map_or(0, FieldType::slots));
    let mut bytes = Vec::new();
    for i in &code {
        let at = bytes.len() as u32;
        insn::encode_at(&mut bytes, i, at, |_| {
            Err(Error::Rewrite("unexpected branch in a bridge".into()))
        })?;
    }
    let body = Code {
        max_stack,
        max_locals: locals,
        code: bytes,
        exception_table: Vec::new(),
        attributes: Vec::new(),
    };
    let member = Member {
        access_flags: access::PRIVATE | access::STATIC | access::SYNTHETIC,
        name: cp.add_utf8(name)?,
        descriptor: cp.add_utf8(&bdesc)?,
        attributes: vec![Attribute {
            name: cp.add_utf8("Code")?,
            body: AttributeBody::Code(body),
        }],
    };
    Ok((bdesc, member))
}

/// The load instruction of a value of type `t` from local `slot`.
fn load(t: &FieldType, slot: u16) -> Insn<usize> {
    let base = match t {
        FieldType::Long => op::LLOAD,
        FieldType::Float => op::FLOAD,
        FieldType::Double => op::DLOAD,
        FieldType::Object(_) | FieldType::Array(_) => op::ALOAD,
        _ => op::ILOAD,
    };
    if slot <= 3 {
        // iload_0 = 0x1a; each type's four short forms follow in iload, lload, … order.
        Insn::Simple(0x1a + (base - op::ILOAD) * 4 + slot as u8)
    } else {
        Insn::Local {
            op: base,
            index: slot,
            wide: slot > 255,
        }
    }
}

/// The return instruction for a value of type `t`.
fn return_op(t: &FieldType) -> u8 {
    // ireturn, lreturn, freturn, dreturn, areturn are consecutive.
    op::IRETURN
        + match t {
            FieldType::Long => 1,
            FieldType::Float => 2,
            FieldType::Double => 3,
            FieldType::Object(_) | FieldType::Array(_) => 4,
            _ => 0,
        }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loads_and_returns() {
        assert_eq!(load(&FieldType::Int, 0), Insn::Simple(0x1a));
        assert_eq!(load(&FieldType::Long, 1), Insn::Simple(0x1f));
        assert_eq!(load(&FieldType::Double, 3), Insn::Simple(0x29));
        assert_eq!(load(&FieldType::Object("a".into()), 2), Insn::Simple(0x2c));
        assert_eq!(
            load(&FieldType::Float, 4),
            Insn::Local {
                op: op::FLOAD,
                index: 4,
                wide: false
            }
        );
        assert_eq!(return_op(&FieldType::Boolean), 0xac);
        assert_eq!(return_op(&FieldType::Array(Box::new(FieldType::Int))), 0xb0);
        assert_eq!(return_op(&FieldType::Double), 0xaf);
    }
}
