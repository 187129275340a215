//! Call-site and field-access redirection: retarget references to a field or method to another
//! member, as the execution host does to keep code under test from calling `System.exit`,
//! reading the clock or touching files.
//!
//! Two kinds:
//! - [`RedirectKind::Reference`]: the instruction stays (`getstatic`, `invokestatic`, …) and
//!   only its constant changes, to a new entry naming the target: no code moves. The descriptors
//!   must be equal.
//! - [`RedirectKind::InstanceToStatic`]: `invokevirtual`/`invokeinterface`/`invokespecial` of
//!   an instance method becomes `invokestatic` of a static method taking the receiver as its
//!   first argument (same stack effect). `invokevirtual` and `invokespecial` are patched in place
//!   (both 3 bytes); `invokeinterface` (5 bytes) goes through the [`CodeEditor`].
//!
//! Method handles that name a source member (a method reference such as `System::exit` passed
//! to a lambda bootstrap) are retargeted too. Only references that name the source owner exactly
//! are redirected (a call through a subclass reference names the subclass); `invokespecial` and
//! `invokeinterface` cannot be redirected by reference.
//!
//! ```
//! use ferrosuite_bytecode::instrument::redirect::{MemberSpec, Redirect, RedirectKind};
//! let exit = Redirect {
//!     from: MemberSpec::new("java/lang/System", "exit", "(I)V"),
//!     to: MemberSpec::new("org/ferrosuite/rt/Sandbox", "exit", "(I)V"),
//!     kind: RedirectKind::Reference,
//! };
//! let halt = Redirect {
//!     from: MemberSpec::new("java/lang/Runtime", "halt", "(I)V"),
//!     to: MemberSpec::new("org/ferrosuite/rt/Sandbox", "halt", "(Ljava/lang/Runtime;I)V"),
//!     kind: RedirectKind::InstanceToStatic,
//! };
//! assert!(exit.check().is_ok() && halt.check().is_ok());
//! // The same two, with the target's descriptor derived from the source's:
//! let sandbox = "org/ferrosuite/rt/Sandbox";
//! assert_eq!(Redirect::to_static(exit.from.clone(), sandbox, "exit"), exit);
//! assert_eq!(Redirect::instance_to_static(halt.from.clone(), sandbox, "halt"), halt);
//! ```

use std::collections::HashMap;

use crate::classfile::{ClassFile, access};
use crate::constant_pool::{Constant, CpIndex};
use crate::descriptor::{FieldType, MethodDescriptor};
use crate::error::{Error, Result, ResultExt};
use crate::insn::{self, Insn};
use crate::instrument::editor::CodeEditor;
use crate::instrument::initial_frame;
use crate::opcodes as op;

/// A field or method: owner (internal name), name, descriptor.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct MemberSpec {
    /// Internal name of the owner class.
    pub owner: String,
    /// Member name.
    pub name: String,
    /// Field or method descriptor.
    pub descriptor: String,
}

impl MemberSpec {
    /// A member.
    #[must_use]
    pub fn new(owner: &str, name: &str, descriptor: &str) -> Self {
        MemberSpec {
            owner: owner.into(),
            name: name.into(),
            descriptor: descriptor.into(),
        }
    }
}

/// How a reference is redirected.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RedirectKind {
    /// Same instruction, new constant (static to static, field to field).
    Reference,
    /// Instance call to a static method taking the receiver first.
    InstanceToStatic,
}

/// One redirection.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Redirect {
    /// The member referenced now.
    pub from: MemberSpec,
    /// The member to reference instead.
    pub to: MemberSpec,
    /// How.
    pub kind: RedirectKind,
}

impl Redirect {
    /// `from` (a static method or field) referenced as `owner.name` with the same descriptor
    /// ([`RedirectKind::Reference`]).
    #[must_use]
    pub fn to_static(from: MemberSpec, owner: &str, name: &str) -> Redirect {
        Redirect {
            to: MemberSpec::new(owner, name, &from.descriptor),
            from,
            kind: RedirectKind::Reference,
        }
    }

    /// The instance method `from` called as the static `owner.name` taking the receiver (of
    /// `from`'s owner type) first ([`RedirectKind::InstanceToStatic`]).
    #[must_use]
    pub fn instance_to_static(from: MemberSpec, owner: &str, name: &str) -> Redirect {
        let rest = from
            .descriptor
            .strip_prefix('(')
            .unwrap_or(&from.descriptor);
        Redirect {
            to: MemberSpec::new(owner, name, &format!("(L{};{rest}", from.owner)),
            from,
            kind: RedirectKind::InstanceToStatic,
        }
    }

    /// Checks that the target's descriptor fits the source's.
    pub fn check(&self) -> Result<()> {
        let bad = |why: &str| {
            Err(Error::Rewrite(format!(
                "cannot redirect {}.{}{} to {}.{}{}: {why}",
                self.from.owner,
                self.from.name,
                self.from.descriptor,
                self.to.owner,
                self.to.name,
                self.to.descriptor
            )))
        };
        match self.kind {
            RedirectKind::Reference => {
                if self.from.descriptor != self.to.descriptor {
                    return bad("descriptors differ");
                }
            }
            RedirectKind::InstanceToStatic => {
                let from = MethodDescriptor::parse(&self.from.descriptor)?;
                let to = MethodDescriptor::parse(&self.to.descriptor)?;
                let receiver_ok = matches!(to.params.first(), Some(FieldType::Object(_)));
                if !receiver_ok || to.params[1..] != from.params[..] || to.ret != from.ret {
                    return bad(
                        "the target must take the receiver (an object) first, then the same parameters, and return the same type",
                    );
                }
            }
        }
        Ok(())
    }
}

/// Redirect targets by the member they replace, for lookups one at a time (the worker looks
/// one up for every statement it runs, where scanning a table built anew would dominate the
/// run). The first target given for a member wins.
#[derive(Debug, Clone, Default)]
pub struct TargetIndex {
    by_owner: HashMap<String, Vec<(String, String, MemberSpec)>>,
}

impl TargetIndex {
    /// The index of `(from, to)` pairs.
    pub fn new(pairs: impl IntoIterator<Item = (MemberSpec, MemberSpec)>) -> Self {
        let mut by_owner: HashMap<String, Vec<(String, String, MemberSpec)>> = HashMap::new();
        for (from, to) in pairs {
            let members = by_owner.entry(from.owner).or_default();
            if !members
                .iter()
                .any(|(n, d, _)| *n == from.name && *d == from.descriptor)
            {
                members.push((from.name, from.descriptor, to));
            }
        }
        TargetIndex { by_owner }
    }

    /// The target of `owner.name descriptor`, if it has one.
    #[must_use]
    pub fn get(&self, owner: &str, name: &str, descriptor: &str) -> Option<&MemberSpec> {
        self.by_owner
            .get(owner)?
            .iter()
            .find(|(n, d, _)| n == name && d == descriptor)
            .map(|(_, _, to)| to)
    }

    /// The [`RedirectKind::Reference`] redirects' targets (the stand-ins of static APIs).
    #[must_use]
    pub fn of_references(redirects: &[Redirect]) -> Self {
        Self::of_kind(redirects, RedirectKind::Reference)
    }

    /// The redirects of one kind.
    #[must_use]
    pub fn of_kind(redirects: &[Redirect], kind: RedirectKind) -> Self {
        Self::new(
            redirects
                .iter()
                .filter(|r| r.kind == kind)
                .map(|r| (r.from.clone(), r.to.clone())),
        )
    }
}

/// Applies the redirections to every method of the class; returns the number of instructions
/// changed.
pub fn redirect(class: &mut ClassFile, redirects: &[Redirect]) -> Result<usize> {
    for r in redirects {
        r.check()?;
    }
    let name = class.name()?.into_owned();
    // Constant-pool entries that name a source member: (entry, redirect, is a field).
    let mut found: Vec<(CpIndex, usize, bool)> = Vec::new();
    for (i, c) in class.constant_pool.entries().iter().enumerate() {
        let field = match c {
            Constant::Fieldref { .. } => true,
            Constant::Methodref { .. } | Constant::InterfaceMethodref { .. } => false,
            _ => continue,
        };
        let index = CpIndex(i as u16);
        let m = class.constant_pool.member_ref(index)?;
        if let Some(k) = redirects.iter().position(|r| {
            r.from.owner == m.class && r.from.name == m.name && r.from.descriptor == m.descriptor
        }) {
            found.push((index, k, field));
        }
    }
    if found.is_empty() {
        return Ok(0);
    }
    // What each entry becomes.
    let mut targets: HashMap<CpIndex, (CpIndex, RedirectKind)> = HashMap::new();
    for (index, k, field) in found {
        let r = &redirects[k];
        let new = if field {
            class
                .constant_pool
                .add_field_ref(&r.to.owner, &r.to.name, &r.to.descriptor)?
        } else {
            class
                .constant_pool
                .add_method_ref(&r.to.owner, &r.to.name, &r.to.descriptor, false)?
        };
        targets.insert(index, (new, r.kind));
    }
    // Method handles naming a source member.
    let mut changed = 0;
    let handles: Vec<(CpIndex, u8, CpIndex)> = class
        .constant_pool
        .entries()
        .iter()
        .enumerate()
        .filter_map(|(i, c)| match c {
            Constant::MethodHandle { kind, reference } => {
                Some((CpIndex(i as u16), *kind, *reference))
            }
            _ => None,
        })
        .collect();
    for (index, kind, reference) in handles {
        let Some((new, how)) = targets.get(&reference) else {
            continue;
        };
        // REF_invokeVirtual (5), REF_invokeSpecial (7), REF_invokeInterface (9) become
        // REF_invokeStatic (6) when the call becomes static.
        let kind = match (how, kind) {
            (RedirectKind::InstanceToStatic, 5 | 7 | 9) => 6,
            (RedirectKind::Reference, 7 | 9) => {
                return Err(Error::Rewrite(format!(
                    "{name}: method handle #{} of kind {kind} cannot be redirected by reference",
                    index.0
                )));
            }
            (_, k) => k,
        };
        class.constant_pool.replace(
            index,
            Constant::MethodHandle {
                kind,
                reference: *new,
            },
        )?;
        changed += 1;
    }
    let major = class.major_version;
    let cp = &mut class.constant_pool;
    for m in &mut class.methods {
        let mname = cp.utf8(m.name)?.into_owned();
        let mdesc = cp.utf8(m.descriptor)?.into_owned();
        let is_static = m.is(access::STATIC);
        let Some(code) = m.code_mut() else { continue };
        let decoded = insn::decode(&code.code).context_with(|| format!("{name}.{mname}{mdesc}"))?;
        let mut needs_editor = false;
        for (at, i) in &decoded {
            let (opc, index) = match i {
                Insn::Cp { op: o, index } => (*o, *index),
                Insn::InvokeInterface { index, .. } => (op::INVOKEINTERFACE, *index),
                _ => continue,
            };
            let Some((new, kind)) = targets.get(&index) else {
                continue;
            };
            let at = *at as usize;
            match (kind, opc) {
                (RedirectKind::Reference, _)
                    if opc != op::INVOKEINTERFACE && opc != op::INVOKESPECIAL =>
                {
                    code.code[at + 1..at + 3].copy_from_slice(&new.0.to_be_bytes());
                    changed += 1;
                }
                (RedirectKind::InstanceToStatic, op::INVOKEVIRTUAL | op::INVOKESPECIAL) => {
                    code.code[at] = op::INVOKESTATIC;
                    code.code[at + 1..at + 3].copy_from_slice(&new.0.to_be_bytes());
                    changed += 1;
                }
                (RedirectKind::InstanceToStatic, op::INVOKEINTERFACE) => needs_editor = true,
                _ => {
                    return Err(Error::Rewrite(format!(
                        "{name}.{mname}{mdesc}: {} at offset {at} cannot be redirected this way",
                        op::name(opc)
                    )));
                }
            }
        }
        if needs_editor {
            let mut ed = CodeEditor::new(code)?;
            for k in 0..ed.len() {
                let Some((_, Insn::InvokeInterface { index, .. })) = ed.insn(k) else {
                    continue;
                };
                if let Some((new, RedirectKind::InstanceToStatic)) = targets.get(index) {
                    ed.replace_insn(
                        k,
                        Insn::Cp {
                            op: op::INVOKESTATIC,
                            index: *new,
                        },
                    )?;
                    changed += 1;
                }
            }
            let initial = if code.stack_map().is_some() {
                initial_frame(cp, &name, &mname, &mdesc, is_static)?
            } else {
                crate::stackmap::FrameState::default()
            };
            *code = ed
                .finish(code, &initial, major >= 51 || code.stack_map().is_some())
                .context_with(|| format!("{name}.{mname}{mdesc}"))?;
        }
    }
    Ok(changed)
}
