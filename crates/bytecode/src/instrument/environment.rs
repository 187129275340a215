//! The controlled environment: the rewrites that make code under test read a virtual clock
//! ([`clock`](super::clock)) and deterministic randomness ([`random`](super::random)) instead
//! of the machine's, so that a test computes the same values in every run.
//!
//! Both work the same way. Static APIs (`System.currentTimeMillis()`, `Math.random()`) are
//! redirected by constant to a runtime method of the same descriptor. Constructors that read
//! the environment themselves (`new Date()`, `new Random()`) are *seeded constructors*: the
//! no-argument `<init>` gets its value from the runtime and calls the constructor that takes
//! it, which is what the no-argument one does with the machine's value:
//!
//! ```text
//! new java/util/Random; dup;                       new java/util/Random; dup;
//! invokespecial Random.<init>()V           →       invokestatic SystemRandom.seed()J
//!                                                  invokespecial Random.<init>(J)V
//! ```
//!
//! A subclass constructor calling `super()` is rewritten the same way. Statements the
//! execution host runs itself ask [`redirect_target`] and [`seeded_target`] for the same
//! tables.
//!
//! ```
//! use ferrosuite_bytecode::instrument::environment::{redirect_target, seeded_target};
//! let to = redirect_target("java/lang/Math", "random", "()D").unwrap();
//! assert_eq!(to.owner, "org/ferrosuite/rt/SystemRandom");
//! let seed = seeded_target("java/util/Random", "()V").unwrap();
//! assert_eq!(seed.name, "seed");
//! assert!(seeded_target("java/util/Random", "(J)V").is_none());
//! ```

use crate::classfile::{ClassFile, access};
use crate::constant_pool::{Constant, CpIndex};
use crate::error::{Error, Result, ResultExt};
use crate::insn::Insn;
use crate::instrument::RUNTIME_PACKAGE;
use crate::instrument::editor::CodeEditor;
use crate::instrument::initial_frame;
use crate::instrument::redirect::{MemberSpec, Redirect, RedirectKind, redirect};
use crate::instrument::{clock, random};
use crate::opcodes as op;

/// A no-argument constructor that takes its value from the runtime: `class.<init>()V` becomes
/// `owner.name()J` then `class.<init>(J)V`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SeededConstructor {
    /// Internal name of the class constructed.
    pub class: &'static str,
    /// Internal name of the runtime class giving the value.
    pub owner: &'static str,
    /// Its static `()J` method.
    pub name: &'static str,
}

impl SeededConstructor {
    /// The runtime method giving the value.
    #[must_use]
    pub fn stand_in(&self) -> MemberSpec {
        MemberSpec::new(self.owner, self.name, "()J")
    }
}

/// Every seeded constructor of the controlled environment.
pub const SEEDED: [SeededConstructor; 2] = [clock::NEW_DATE, random::NEW_RANDOM];

/// Every static redirect of the controlled environment: the clock's, then randomness'.
#[must_use]
pub fn redirects() -> Vec<Redirect> {
    let mut out = clock::redirects();
    out.extend(random::redirects());
    out
}

/// The stand-in of a static API of the environment, if it is one (for statements that call
/// the API directly, which no class rewriting reaches).
#[must_use]
pub fn redirect_target(owner: &str, name: &str, descriptor: &str) -> Option<MemberSpec> {
    redirects()
        .into_iter()
        .filter(|r| r.kind == RedirectKind::Reference)
        .find(|r| r.from.owner == owner && r.from.name == name && r.from.descriptor == descriptor)
        .map(|r| r.to)
}

/// The runtime method that gives the value of a seeded constructor, if `class` with
/// `descriptor` is one (`java/util/Random`, `()V`).
#[must_use]
pub fn seeded_target(class: &str, descriptor: &str) -> Option<MemberSpec> {
    (descriptor == "()V")
        .then(|| SEEDED.iter().find(|s| s.class == class))
        .flatten()
        .map(SeededConstructor::stand_in)
}

/// Rewrites every read of the clock and of unseeded randomness in the class; returns the
/// number of instructions and method handles changed (0: the class is unchanged). Classes of
/// the runtime package are refused.
pub fn control(class: &mut ClassFile) -> Result<usize> {
    let name = class.name()?.into_owned();
    if name.starts_with(RUNTIME_PACKAGE)
        && name.as_bytes().get(RUNTIME_PACKAGE.len()) == Some(&b'/')
    {
        return Err(Error::Rewrite(format!(
            "{}: the ferrosuite runtime reads the real environment",
            name.replace('/', ".")
        )));
    }
    // Work on a copy: the class changes only when everything succeeded.
    let mut out = class.clone();
    let changed =
        redirect(&mut out, &redirects())? + seeded_constructors(&mut out, &name, &SEEDED)?;
    if changed > 0 {
        *class = out;
    }
    Ok(changed)
}

/// [`control`] on class-file bytes: the rewritten bytes, or `None` when the class reads
/// neither clock nor randomness (its bytes stay valid as they are).
pub fn control_bytes(bytes: &[u8]) -> Result<Option<Vec<u8>>> {
    let mut class = ClassFile::parse(bytes)?;
    if control(&mut class)? == 0 {
        return Ok(None);
    }
    class.to_bytes().map(Some)
}

/// Rewrites the no-argument constructor calls of `table` in `class` (named `name`); returns
/// the number of calls rewritten.
pub fn seeded_constructors(
    class: &mut ClassFile,
    name: &str,
    table: &[SeededConstructor],
) -> Result<usize> {
    let cp = &class.constant_pool;
    // (constructor reference, entry of `table`)
    let mut sites: Vec<(CpIndex, usize)> = Vec::new();
    for (i, c) in cp.entries().iter().enumerate() {
        if !matches!(c, Constant::Methodref { .. }) {
            continue;
        }
        let index = CpIndex(i as u16);
        let m = cp.member_ref(index)?;
        if m.name != "<init>" || m.descriptor != "()V" {
            continue;
        }
        if let Some(k) = table.iter().position(|s| s.class == m.class) {
            sites.push((index, k));
        }
    }
    if sites.is_empty() {
        return Ok(0);
    }
    // (constructor reference, stand-in reference, constructor taking the value)
    let mut targets: Vec<(CpIndex, CpIndex, CpIndex)> = Vec::new();
    for (index, k) in sites {
        let s = table[k];
        let value = class
            .constant_pool
            .add_method_ref(s.owner, s.name, "()J", false)?;
        let with_value = class
            .constant_pool
            .add_method_ref(s.class, "<init>", "(J)V", false)?;
        targets.push((index, value, with_value));
    }
    let major = class.major_version;
    let cp = &mut class.constant_pool;
    let mut changed = 0;
    for m in &mut class.methods {
        let mname = cp.utf8(m.name)?.into_owned();
        let mdesc = cp.utf8(m.descriptor)?.into_owned();
        let is_static = m.is(access::STATIC);
        let Some(code) = m.code_mut() else { continue };
        let mut ed = CodeEditor::new(code).context_with(|| format!("{name}.{mname}{mdesc}"))?;
        let mut here = 0;
        for k in 0..ed.len() {
            let Some((_, Insn::Cp { op: o, index })) = ed.insn(k) else {
                continue;
            };
            if *o != op::INVOKESPECIAL {
                continue;
            }
            let Some(&(_, value, with_value)) = targets.iter().find(|t| t.0 == *index) else {
                continue;
            };
            ed.replace(
                k,
                vec![
                    Insn::Cp {
                        op: op::INVOKESTATIC,
                        index: value,
                    },
                    Insn::Cp {
                        op: op::INVOKESPECIAL,
                        index: with_value,
                    },
                ],
                2,
            )?;
            here += 1;
        }
        if here == 0 {
            continue;
        }
        let initial = if code.stack_map().is_some() {
            initial_frame(cp, name, &mname, &mdesc, is_static)?
        } else {
            crate::stackmap::FrameState::default()
        };
        *code = ed
            .finish(code, &initial, major >= 51 || code.stack_map().is_some())
            .context_with(|| format!("{name}.{mname}{mdesc}"))?;
        changed += here;
    }
    Ok(changed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_stand_in_has_the_descriptor_of_its_api_and_apis_are_distinct() {
        let all = redirects();
        for r in &all {
            assert!(r.check().is_ok(), "{r:?}");
        }
        for (i, a) in all.iter().enumerate() {
            assert!(all[i + 1..].iter().all(|b| b.from != a.from), "{a:?} twice");
        }
        assert_eq!(
            redirect_target("java/util/UUID", "randomUUID", "()Ljava/util/UUID;").map(|m| m.owner),
            Some(random::RANDOM_CLASS.to_string())
        );
        assert_eq!(
            seeded_target("java/util/Date", "()V").map(|m| m.owner),
            Some(clock::TIME_CLASS.to_string())
        );
        assert!(seeded_target("java/lang/Object", "()V").is_none());
    }
}
