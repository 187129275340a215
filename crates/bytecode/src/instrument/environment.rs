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
//! A subclass constructor calling `super()` is rewritten the same way. `new Thread(r)` takes a
//! name the same way ([`threads`]: `new Thread(r, VirtualThreads.name())`). Constructors that
//! open files, `SecureRandom`'s, and those of timers and thread pools become
//! [factories](files::Factory): of the [virtual file system](files), of [deterministic
//! randomness](random) and of [named threads](threads). Statements
//! the execution host runs itself ask [`redirect_target`] and [`seeded_target`] for the same
//! tables; the runtime's `Patcher`, which does the same rewrite in emitted tests, is compiled
//! with [`patcher_table`].
//!
//! ```
//! use ferrosuite_bytecode::instrument::environment::{redirect_target, seeded_target};
//! let to = redirect_target("java/lang/Math", "random", "()D").unwrap();
//! assert_eq!(to.owner, "org/ferrosuite/rt/SystemRandom");
//! let seed = seeded_target("java/util/Random", "()V").unwrap();
//! assert_eq!(seed.name, "constructorSeed");
//! assert_eq!(seed.with_value(), "(J)V");
//! assert!(seeded_target("java/util/Random", "(J)V").is_none());
//! ```

use crate::classfile::{ClassFile, access};
use crate::constant_pool::{Constant, ConstantPool, CpIndex};
use crate::error::{Error, Result, ResultExt};
use crate::insn::Insn;
use crate::instrument::RUNTIME_PACKAGE;
use crate::instrument::editor::CodeEditor;
use crate::instrument::files::{self, Factory};
use crate::instrument::initial_frame;
use crate::instrument::redirect::{MemberSpec, Redirect, RedirectKind, TargetIndex, redirect};
use crate::instrument::{clock, random, system, threads};
use crate::opcodes as op;

/// A constructor that reads the environment, and the one taking that value as a last
/// parameter: `class.<init>(P)V` becomes `owner.name()V'` then `class.<init>(PV')V` (`new
/// Random()` → `new Random(seed)`, `new Thread(r)` → `new Thread(r, name)`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SeededConstructor {
    /// Internal name of the class constructed.
    pub class: &'static str,
    /// The descriptor of the constructor rewritten (`()V`).
    pub descriptor: &'static str,
    /// The type of the value appended (`J`, `Ljava/lang/String;`).
    pub value: &'static str,
    /// Internal name of the runtime class giving the value.
    pub owner: &'static str,
    /// Its static method without parameters returning [`value`](Self::value).
    pub name: &'static str,
    /// Its static method with the constructor's parameters returning the constructed object,
    /// for the in-place rewrite of emitted tests (`new Random()` as one call).
    pub factory: &'static str,
}

impl SeededConstructor {
    /// The runtime method giving the value.
    #[must_use]
    pub fn stand_in(&self) -> MemberSpec {
        MemberSpec::new(self.owner, self.name, &format!("(){}", self.value))
    }

    /// The descriptor of the constructor taking the value last (`(J)V`).
    #[must_use]
    pub fn with_value(&self) -> String {
        let params = self.descriptor.trim_end_matches(")V");
        format!("{params}{})V", self.value)
    }

    /// The factory of emitted tests: the constructor's parameters, returning the class.
    #[must_use]
    pub fn factory_spec(&self) -> MemberSpec {
        let params = self.descriptor.trim_end_matches('V');
        MemberSpec::new(
            self.owner,
            self.factory,
            &format!("{params}L{};", self.class),
        )
    }
}

/// Every seeded constructor of the controlled environment.
pub const SEEDED: [SeededConstructor; 6] = [
    clock::NEW_DATE,
    random::NEW_RANDOM,
    random::NEW_SPLITTABLE_RANDOM,
    threads::NEW_THREAD[0],
    threads::NEW_THREAD[1],
    threads::NEW_THREAD[2],
];

/// Every constructor of the controlled environment replaced by a factory: the file system's
/// ([`files::FACTORIES`]), `SecureRandom`'s ([`random::FACTORIES`]) and those of timers and
/// thread pools ([`threads::FACTORIES`]).
#[must_use]
pub fn factory_table() -> Vec<Factory> {
    files::FACTORIES
        .iter()
        .chain(random::FACTORIES.iter())
        .chain(threads::FACTORIES.iter())
        .copied()
        .collect()
}

/// The factory that stands in for constructor `class.<init>descriptor`, if it is one (for
/// statements that call the constructor directly, which no class rewriting reaches).
#[must_use]
pub fn factory_target(class: &str, descriptor: &str) -> Option<MemberSpec> {
    targets()
        .factories
        .get(class, "<init>", descriptor)
        .cloned()
}

/// The stand-ins of [`redirect_target`], [`instance_target`] and [`factory_target`], indexed
/// once per process: the tables are constants, and the worker asks for every statement.
struct Targets {
    statics: TargetIndex,
    instances: TargetIndex,
    factories: TargetIndex,
}

fn targets() -> &'static Targets {
    static TARGETS: std::sync::OnceLock<Targets> = std::sync::OnceLock::new();
    TARGETS.get_or_init(|| {
        let all = redirects();
        Targets {
            statics: TargetIndex::of_references(&all),
            instances: TargetIndex::of_kind(&all, RedirectKind::InstanceToStatic),
            factories: TargetIndex::new(factory_table().into_iter().map(|f| {
                (
                    MemberSpec::new(f.class, "<init>", f.descriptor),
                    f.stand_in(),
                )
            })),
        }
    })
}

/// Every redirect of the controlled environment: the clock's, randomness', the file
/// system's and console's, then the system properties', environment variables' and host
/// name's, then the threads'.
#[must_use]
pub fn redirects() -> Vec<Redirect> {
    let mut out = clock::redirects();
    out.extend(random::redirects());
    out.extend(files::redirects());
    out.extend(system::redirects());
    out.extend(threads::redirects());
    out
}

/// The table the runtime's `Patcher` rewrites emitted tests' classes with, one entry per line
/// of space-separated words: `static OWNER NAME DESC TO_OWNER TO_NAME` (also method handles),
/// `field …` (a `getstatic`), `instance OWNER NAME DESC TO_OWNER TO_NAME TO_DESC` and
/// `factory CLASS DESC TO_OWNER TO_NAME TO_DESC`. It is [`redirects`], the seeded
/// constructors as factories, the [factories](factory_table), and `ThreadLocalRandom.current()` (the
/// worker seeds its executing thread itself; a test's threads each get the seeded generator).
#[must_use]
pub fn patcher_table() -> Vec<String> {
    let mut out = Vec::new();
    for r in redirects() {
        let f = &r.from;
        let t = &r.to;
        out.push(match r.kind {
            RedirectKind::Reference if !f.descriptor.starts_with('(') => format!(
                "field {} {} {} {} {}",
                f.owner, f.name, f.descriptor, t.owner, t.name
            ),
            RedirectKind::Reference => format!(
                "static {} {} {} {} {}",
                f.owner, f.name, f.descriptor, t.owner, t.name
            ),
            RedirectKind::InstanceToStatic => format!(
                "instance {} {} {} {} {} {}",
                f.owner, f.name, f.descriptor, t.owner, t.name, t.descriptor
            ),
        });
    }
    out.push(format!(
        "static java/util/concurrent/ThreadLocalRandom current ()Ljava/util/concurrent/ThreadLocalRandom; {} threadLocalRandom",
        random::RANDOM_CLASS
    ));
    for s in SEEDED {
        let m = s.factory_spec();
        out.push(format!(
            "factory {} {} {} {} {}",
            s.class, s.descriptor, m.owner, m.name, m.descriptor
        ));
    }
    for f in factory_table() {
        let m = f.stand_in();
        out.push(format!(
            "factory {} {} {} {} {}",
            f.class, f.descriptor, m.owner, m.name, m.descriptor
        ));
    }
    out
}

/// The stand-in of a static API of the environment, if it is one (for statements that call
/// the API directly, which no class rewriting reaches).
#[must_use]
pub fn redirect_target(owner: &str, name: &str, descriptor: &str) -> Option<MemberSpec> {
    targets().statics.get(owner, name, descriptor).cloned()
}

/// The stand-in of an instance method of the environment (`File.delete`), if it is one: a
/// static method taking the receiver first (for statements that call the method directly).
#[must_use]
pub fn instance_target(owner: &str, name: &str, descriptor: &str) -> Option<MemberSpec> {
    targets().instances.get(owner, name, descriptor).cloned()
}

/// The seeded constructor `class.<init>descriptor`, if it is one (`java/util/Random`, `()V`):
/// statements calling it ask the runtime for the value and call [`with_value`](
/// SeededConstructor::with_value).
#[must_use]
pub fn seeded_target(class: &str, descriptor: &str) -> Option<SeededConstructor> {
    seeded_target_in(&SEEDED, class, descriptor)
}

/// [`seeded_target`] among the constructors of `table`.
#[must_use]
pub fn seeded_target_in(
    table: &[SeededConstructor],
    class: &str,
    descriptor: &str,
) -> Option<SeededConstructor> {
    table
        .iter()
        .find(|s| s.class == class && s.descriptor == descriptor)
        .copied()
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
    let changed = redirect(&mut out, &redirects())?
        + factories(&mut out, &name, &factory_table())?
        + seeded_constructors(&mut out, &name, &SEEDED)?;
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

/// The constructor references of the pool (`Methodref`s of `<init>`) that `entry` maps, by
/// class and descriptor, to an entry of a table: (reference, entry).
fn constructor_refs(
    cp: &ConstantPool,
    entry: impl Fn(&str, &str) -> Option<usize>,
) -> Result<Vec<(CpIndex, usize)>> {
    let mut sites = Vec::new();
    for (i, c) in cp.entries().iter().enumerate() {
        if !matches!(c, Constant::Methodref { .. }) {
            continue;
        }
        let index = CpIndex(i as u16);
        let m = cp.member_ref(index)?;
        if m.name != "<init>" {
            continue;
        }
        if let Some(k) = entry(&m.class, &m.descriptor) {
            sites.push((index, k));
        }
    }
    Ok(sites)
}

/// Replaces the constructor calls of `table` by their factories; returns the number replaced.
///
/// A call is replaced when javac's shape is there: `new C` directly followed by `dup`, the
/// matching `invokespecial C.<init>` (the innermost pending `new C`) later in the same
/// method, and no jump, switch, return or `athrow` in between (so no stack map frame holds the
/// uninitialised object). `new` and `dup` become `nop`s and the call `invokestatic` of the
/// factory, in place: no offset moves. A subclass's `super(…)` has no `new` and stays.
pub fn factories(class: &mut ClassFile, name: &str, table: &[Factory]) -> Result<usize> {
    let sites = constructor_refs(&class.constant_pool, |class, descriptor| {
        table
            .iter()
            .position(|f| f.class == class && f.descriptor == descriptor)
    })?;
    if sites.is_empty() {
        return Ok(0);
    }
    let mut targets: Vec<(CpIndex, CpIndex)> = Vec::new();
    for (index, k) in sites {
        let m = table[k].stand_in();
        let to = class
            .constant_pool
            .add_method_ref(&m.owner, &m.name, &m.descriptor, false)?;
        targets.push((index, to));
    }
    let cp = &class.constant_pool;
    let mut changed = 0;
    for m in &mut class.methods {
        let Some(code) = m.code_mut() else { continue };
        let decoded = crate::insn::decode(&code.code).context_with(|| name.to_string())?;
        // Pending `new`s: (offset, class, directly followed by `dup`).
        let mut pending: Vec<(u32, String, bool)> = Vec::new();
        let mut last_jump: Option<u32> = None;
        let mut patches: Vec<(u32, u32, CpIndex)> = Vec::new();
        for (k, (at, i)) in decoded.iter().enumerate() {
            match i {
                Insn::Cp { op: op::NEW, index } => {
                    let dup = matches!(decoded.get(k + 1), Some((_, Insn::Simple(op::DUP))));
                    pending.push((*at, cp.class_name(*index)?.into_owned(), dup));
                }
                Insn::Cp {
                    op: op::INVOKESPECIAL,
                    index,
                } => {
                    let r = cp.member_ref(*index)?;
                    if r.name != "<init>" {
                        continue;
                    }
                    let Some(p) = pending.iter().rposition(|(_, c, _)| *c == r.class) else {
                        continue;
                    };
                    let (new_at, _, dup) = pending[p].clone();
                    pending.truncate(p);
                    if !dup || last_jump.is_some_and(|j| j > new_at) {
                        continue;
                    }
                    if let Some(&(_, to)) = targets.iter().find(|t| t.0 == *index) {
                        patches.push((new_at, *at, to));
                    }
                }
                other => {
                    let o = other.opcode();
                    if !other.targets().is_empty() || op::is_unconditional(o) {
                        last_jump = Some(*at);
                    }
                }
            }
        }
        for (new_at, call_at, to) in patches {
            let (n, c) = (new_at as usize, call_at as usize);
            code.code[n..n + 4].fill(op::NOP);
            code.code[c] = op::INVOKESTATIC;
            code.code[c + 1..c + 3].copy_from_slice(&to.0.to_be_bytes());
            changed += 1;
        }
    }
    Ok(changed)
}

/// Rewrites the calls of the constructors of `table` in `class` (named `name`), `new` and a
/// subclass's `super(…)` alike; returns the number of calls rewritten.
pub fn seeded_constructors(
    class: &mut ClassFile,
    name: &str,
    table: &[SeededConstructor],
) -> Result<usize> {
    let sites = constructor_refs(&class.constant_pool, |class, descriptor| {
        table
            .iter()
            .position(|s| s.class == class && s.descriptor == descriptor)
    })?;
    if sites.is_empty() {
        return Ok(0);
    }
    // (constructor reference, stand-in reference, constructor taking the value)
    let mut targets: Vec<(CpIndex, CpIndex, CpIndex)> = Vec::new();
    for (index, k) in sites {
        let s = table[k];
        let m = s.stand_in();
        let value = class
            .constant_pool
            .add_method_ref(&m.owner, &m.name, &m.descriptor, false)?;
        let with_value =
            class
                .constant_pool
                .add_method_ref(s.class, "<init>", &s.with_value(), false)?;
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
            Some(clock::TIME_CLASS)
        );
        assert!(seeded_target("java/lang/Object", "()V").is_none());
    }
}
