//! Package statics: the static methods and fields of other classes of the CUT's package that
//! the CUT's own code reads, when they give a reference.
//!
//! Code that reads shared state through another class of its package — a registry, a cache, a
//! list of available stations — branches on that state, and no parameter of the CUT lets a
//! test set it. The static accessors the CUT itself calls (`invokestatic`) and the static
//! fields it reads (`getstatic`), on classes of its package other than itself and its nested
//! classes, are added to the CUT's methods and fields; a test then gets the shared object and
//! changes it with its result methods (`ChargingStation.takeAvailableStations().add(s)`).
//! Accessors giving primitives or `void` are left out: they expose no state to change.
//!
//! ```text
//! class GreenPerson { … if (ChargingStation.takeAvailableStations().size() > 0) car.recharge(); … }
//! => methods += ChargingStation.takeAvailableStations() (static, returns List)
//! => result methods of List (add, …) reach the branch
//! ```

use std::collections::BTreeSet;

use ferrosuite_bytecode::insn::{Insn, decode};
use ferrosuite_bytecode::opcodes;

use super::{Builder, package_of};
use crate::cluster::Operation;

/// Members added at most (owners in name order, each one's members in the order the
/// cluster lists them).
const MAX_STATICS: usize = 16;

impl Builder<'_> {
    /// The package statics of `cut` (see the module documentation): (methods, fields).
    pub(super) fn package_statics(&mut self, cut: &str) -> (Vec<Operation>, Vec<Operation>) {
        let mut scanned: Vec<String> = vec![cut.to_string()];
        scanned.extend(self.cp.nested_classes(cut).unwrap_or_default());
        let nested_prefix = format!("{cut}$");
        let mut wanted: BTreeSet<(String, String, String, bool)> = BTreeSet::new();
        for name in &scanned {
            let Some(cf) = self.load(name) else { continue };
            for m in &cf.methods {
                let Some(code) = m.code() else { continue };
                let Ok(insns) = decode(&code.code) else {
                    continue;
                };
                for (_, insn) in insns {
                    let Insn::Cp { op, index } = insn else {
                        continue;
                    };
                    let field = op == opcodes::GETSTATIC;
                    if !(field || op == opcodes::INVOKESTATIC) {
                        continue;
                    }
                    let Ok(r) = cf.constant_pool.member_ref(index) else {
                        continue;
                    };
                    let owner = r.class.as_ref();
                    let gives_reference = if field {
                        r.descriptor.starts_with(['L', '['])
                    } else {
                        r.descriptor
                            .rsplit(')')
                            .next()
                            .is_some_and(|ret| ret.starts_with(['L', '[']))
                    };
                    if owner != cut
                        && !owner.starts_with(&nested_prefix)
                        && package_of(owner) == self.package
                        && self.user.contains(owner)
                        && gives_reference
                    {
                        wanted.insert((
                            owner.to_string(),
                            r.name.to_string(),
                            r.descriptor.to_string(),
                            field,
                        ));
                    }
                }
            }
        }
        let (mut methods, mut fields) = (Vec::new(), Vec::new());
        let owners: BTreeSet<String> = wanted.iter().map(|w| w.0.clone()).collect();
        for owner in owners {
            if methods.len() + fields.len() >= MAX_STATICS || !self.class_accessible(&owner) {
                continue;
            }
            let Some(cf) = self.load(&owner) else {
                continue;
            };
            let (_, ms, fs) = self.collect_members(&owner, &cf, &[]);
            let mine = |op: &Operation, field: bool| {
                op.is_static
                    && wanted.contains(&(
                        owner.clone(),
                        op.name.to_string(),
                        op.descriptor.to_string(),
                        field,
                    ))
            };
            methods.extend(ms.into_iter().filter(|op| mine(op, false)));
            fields.extend(fs.into_iter().filter(|op| mine(op, true)));
        }
        methods.truncate(MAX_STATICS);
        fields.truncate(MAX_STATICS.saturating_sub(methods.len()));
        (methods, fields)
    }
}
