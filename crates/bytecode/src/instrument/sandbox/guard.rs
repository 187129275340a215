//! The guard inserted before a guarded call: its runtime method, its code, and recognising it.

use crate::constant_pool::{Constant, ConstantPool, CpIndex};
use crate::descriptor::MethodDescriptor;
use crate::error::Result;
use crate::insn::Insn;
use crate::opcodes as op;

use super::{Action, OPEN_OPTIONS, Rule, SANDBOX_CLASS, STRING};

/// A guarded member reference: the API name and the guard that fits its descriptor.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Guard {
    pub(super) api: String,
    action: Action,
}

impl Guard {
    /// The guard for a call of `descriptor` under `rule`: a check whose argument is not the
    /// last parameter becomes a deny.
    pub(super) fn new(rule: &Rule, descriptor: &str) -> Self {
        let last = MethodDescriptor::parse(descriptor)
            .ok()
            .and_then(|d| d.params.last().map(ToString::to_string));
        let action = match rule.action {
            Action::CheckMode if last.as_deref() == Some(STRING) => Action::CheckMode,
            Action::CheckOptions if last.as_deref() == Some(OPEN_OPTIONS) => Action::CheckOptions,
            _ => Action::Deny,
        };
        Guard {
            api: rule.api(),
            action,
        }
    }

    fn runtime_method(&self) -> (&'static str, &'static str) {
        match self.action {
            Action::CheckMode => ("checkMode", "(Ljava/lang/String;Ljava/lang/String;)V"),
            Action::CheckOptions => (
                "checkOptions",
                "([Ljava/nio/file/OpenOption;Ljava/lang/String;)V",
            ),
            Action::Deny | Action::Allow => ("deny", "(Ljava/lang/String;)V"),
        }
    }

    pub(super) fn dups(&self) -> bool {
        matches!(self.action, Action::CheckMode | Action::CheckOptions)
    }

    /// Most stack the guard pushes above what it finds.
    pub(super) fn extra_stack(&self) -> u16 {
        if self.dups() { 2 } else { 1 }
    }

    /// The guard's instructions, adding the constants it needs.
    pub(super) fn code(&self, cp: &mut ConstantPool) -> Result<Vec<Insn<usize>>> {
        let s = cp.add_string(&self.api)?;
        let (name, desc) = self.runtime_method();
        let m = cp.add_method_ref(SANDBOX_CLASS, name, desc, false)?;
        let mut code = Vec::with_capacity(3);
        if self.dups() {
            code.push(Insn::Simple(op::DUP));
        }
        code.push(ldc(s));
        code.push(Insn::Cp {
            op: op::INVOKESTATIC,
            index: m,
        });
        Ok(code)
    }

    /// True when the `len` instructions before `insns[at]` are exactly this guard.
    pub(super) fn precedes(&self, cp: &ConstantPool, insns: &[&Insn<usize>], at: usize) -> bool {
        let len = if self.dups() { 3 } else { 2 };
        if at < len {
            return false;
        }
        let g = &insns[at - len..at];
        if self.dups() && !matches!(g[0], Insn::Simple(op::DUP)) {
            return false;
        }
        let Insn::Ldc { op: o, index } = g[len - 2] else {
            return false;
        };
        if *o == op::LDC2_W || !is_string(cp, *index, &self.api) {
            return false;
        }
        let Insn::Cp {
            op: op::INVOKESTATIC,
            index,
        } = g[len - 1]
        else {
            return false;
        };
        let (name, desc) = self.runtime_method();
        cp.member_ref(*index)
            .is_ok_and(|m| m.class == SANDBOX_CLASS && m.name == name && m.descriptor == desc)
    }
}

fn is_string(cp: &ConstantPool, index: CpIndex, value: &str) -> bool {
    match cp.get(index) {
        Ok(Constant::String(u)) => cp.utf8(*u).is_ok_and(|s| s == value),
        _ => false,
    }
}

fn ldc(index: CpIndex) -> Insn<usize> {
    if index.0 <= 255 {
        Insn::Ldc { op: op::LDC, index }
    } else {
        Insn::Ldc {
            op: op::LDC_W,
            index,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::instrument::sandbox::DescriptorRule;

    #[test]
    fn checks_on_the_wrong_shape_become_denials() {
        let rule = Rule::new("x/Y", "open", DescriptorRule::Any, Action::CheckOptions);
        assert_eq!(
            Guard::new(&rule, "(Ljava/nio/file/Path;)V").action,
            Action::Deny
        );
        assert_eq!(
            Guard::new(&rule, "(Ljava/nio/file/Path;[Ljava/nio/file/OpenOption;)V").action,
            Action::CheckOptions
        );
        let mode = Rule::new("x/Y", "<init>", DescriptorRule::Any, Action::CheckMode);
        assert_eq!(
            Guard::new(&mode, "(Ljava/lang/String;J)V").action,
            Action::Deny
        );
        assert_eq!(Guard::new(&mode, "(Ljava/lang/String;)V").api, "x.Y.<init>");
    }
}
