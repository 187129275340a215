//! Mutation schemata: every mutant of a class compiled into one class, the mutant that runs
//! chosen at run time by the runtime's `org.ferrosuite.rt.Mutants.active` ([`MUTANTS_CLASS`]),
//! so that one class load serves a whole mutation analysis.
//!
//! The operators are those of PIT's defaults ([`Operator`]). Each *site* (an instruction a
//! mutation changes) gets consecutive mutant ids from [`Config::first_id`] on, and calls a
//! helper of `Mutants` that computes the original result unless one of its ids is active:
//!
//! | site | becomes |
//! |---|---|
//! | `if_icmplt L` (any conditional jump: int and reference comparisons, against zero or null) | `ldc code; invokestatic Mutants.icmp(IIII)Z` (or `acmp`), then `ifne L`; ids: negated, then boundary (`<` ↔ `<=`, `>` ↔ `>=`) for order comparisons, then the jump always taken (PIT's `REMOVE_CONDITIONALS_*_ELSE`, which its current defaults use in place of negation) |
//! | `iadd` … `lxor`, shifts (int, long, float, double) | `ldc code; invokestatic Mutants.imath(III)I` (`lmath`, `lshift`, `fmath`, `dmath`): `+` ↔ `-`, `*` ↔ `/`, `%` → `*`, `&` ↔ <code>&#124;</code>, `^` → `&`, `<<` ↔ `>>`, `>>>` → `<<` |
//! | `iinc x, c` | `iload x; sipush c; ldc code; invokestatic Mutants.inc(III)I; istore x`: adds `-c` |
//! | `ineg` … `dneg` | `ldc code; invokestatic Mutants.ineg(II)I` …: the value unnegated |
//! | `ireturn` … `areturn` | `ldc code; invokestatic Mutants.iret(II)I` … (and `checkcast` for references) before it: 0 ↔ 1 for primitives and booleans; `null` for references, then an empty value where the type has one (`""`, `Optional.empty()`, empty collections, zero boxes, `Boolean.FALSE`, `Stream.empty()`) |
//! | `invokevirtual/invokestatic/invokeinterface` of a `void` method | `invokestatic` of a synthetic static method of the class that makes the call unless its id is active |
//!
//! The `code` constant carries the site's first id and what the helper needs (the comparison,
//! the opcode, the kind of empty value); the replacements are straight-line code with the
//! stack effect of what they replace, so no frame changes ([`editor`](super::editor)). The
//! helpers also mark the site reached in this test, so a mutant is only run with the tests that
//! reach it. Not mutated, as in PIT: static initialisers, bridge methods, abstract and native
//! methods; void calls through `invokespecial` (constructors, `super`, private methods of old
//! class files), and `invokevirtual` of another package's class (a protected method there
//! could not be called from the synthetic method).
//!
//! ```
//! use ferrosuite_bytecode::instrument::mutation::{Operator, Config};
//! let c = Config::default();
//! assert_eq!(c.first_id, 1);
//! assert_eq!(Operator::NegateConditionals.pit_name(), "NEGATE_CONDITIONALS");
//! assert_eq!(c.operators.len(), Operator::ALL.len());
//! ```

use crate::attributes::{Attribute, AttributeBody, Code};
use crate::classfile::{ClassFile, Member, access};
use crate::constant_pool::{ConstantPool, CpIndex};
use crate::descriptor::{FieldType, MethodDescriptor};
use crate::error::{Error, Result, ResultExt};
use crate::insn::Insn;
use crate::instrument::editor::{CodeEditor, Landing};
use crate::instrument::{RUNTIME_PACKAGE, initial_frame};
use crate::opcodes as op;
use crate::stackmap::{FrameState, StackMapFrame};

/// Internal name of the runtime class that chooses the active mutant.
pub const MUTANTS_CLASS: &str = "org/ferrosuite/rt/Mutants";

/// Prefix of the synthetic methods that make a void call unless its mutant is active.
pub const VOID_CALL_PREFIX: &str = "ferrosuite$void$";

/// A mutation operator (PIT's name in [`Operator::pit_name`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Operator {
    /// `<` ↔ `<=`, `>` ↔ `>=` in conditional jumps.
    ConditionalsBoundary,
    /// A conditional jump's condition negated.
    NegateConditionals,
    /// An equality check's jump (`==`, `!=`, against zero or `null`) always taken: the
    /// `else` branch of `if (a == b)` always runs.
    RemoveEqualityConditionals,
    /// An order comparison's jump (`<`, `<=`, `>`, `>=`) always taken.
    RemoveOrderConditionals,
    /// An arithmetic or bitwise operator replaced.
    Math,
    /// `iinc`'s increment negated.
    Increments,
    /// A negation removed.
    InvertNegatives,
    /// A primitive or boolean return value changed (0 ↔ 1, `true` ↔ `false`).
    PrimitiveReturns,
    /// A reference return value made `null`.
    NullReturns,
    /// A reference return value made empty (`""`, an empty collection, `Optional.empty()`, 0).
    EmptyReturns,
    /// A call of a `void` method removed.
    VoidMethodCalls,
}

impl Operator {
    /// Every operator.
    pub const ALL: [Operator; 11] = [
        Operator::ConditionalsBoundary,
        Operator::NegateConditionals,
        Operator::RemoveEqualityConditionals,
        Operator::RemoveOrderConditionals,
        Operator::Math,
        Operator::Increments,
        Operator::InvertNegatives,
        Operator::PrimitiveReturns,
        Operator::NullReturns,
        Operator::EmptyReturns,
        Operator::VoidMethodCalls,
    ];

    /// PIT's name of the operator (of the mutator closest to it for returns).
    #[must_use]
    pub fn pit_name(self) -> &'static str {
        match self {
            Operator::ConditionalsBoundary => "CONDITIONALS_BOUNDARY",
            Operator::NegateConditionals => "NEGATE_CONDITIONALS",
            Operator::RemoveEqualityConditionals => "REMOVE_CONDITIONALS_EQUAL_ELSE",
            Operator::RemoveOrderConditionals => "REMOVE_CONDITIONALS_ORDER_ELSE",
            Operator::Math => "MATH",
            Operator::Increments => "INCREMENTS",
            Operator::InvertNegatives => "INVERT_NEGS",
            Operator::PrimitiveReturns => "PRIMITIVE_RETURNS",
            Operator::NullReturns => "NULL_RETURNS",
            Operator::EmptyReturns => "EMPTY_RETURNS",
            Operator::VoidMethodCalls => "VOID_METHOD_CALLS",
        }
    }
}

/// What to mutate.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Config {
    /// The operators applied.
    pub operators: Vec<Operator>,
    /// The id of the first mutant (0 means "no mutant active"; ids are unique across the
    /// classes of one analysis when each class starts after the last id of the one before).
    pub first_id: u32,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            operators: Operator::ALL.to_vec(),
            first_id: 1,
        }
    }
}

/// One mutant of the class.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mutant {
    /// Its id: `Mutants.active` is this while it runs.
    pub id: u32,
    /// The first id of its site: the site is reached when this id is marked reached.
    pub site: u32,
    /// The operator.
    pub operator: Operator,
    /// The method, as `name descriptor`.
    pub method: String,
    /// Byte offset of the mutated instruction in the original method.
    pub offset: u32,
    /// Source line, when the class has line numbers.
    pub line: Option<u16>,
    /// What changes, e.g. `< → <=`.
    pub description: String,
}

/// The comparisons the helpers know (the low 3 bits of a condition's code).
const CMP: [(u8, u32, &str); 6] = [
    (op::IFEQ, 0, "=="),
    (op::IFNE, 1, "!="),
    (op::IFLT, 2, "<"),
    (op::IFGE, 3, ">="),
    (op::IFGT, 4, ">"),
    (op::IFLE, 5, "<="),
];

/// The boundary variant of an order comparison (`<` → `<=`, …), by CMP code.
const BOUNDARY: [(u32, &str); 4] = [(2, "<="), (3, ">"), (4, ">="), (5, "<")];

/// Arithmetic opcodes: (opcode, mutated opcode, symbol, mutated symbol).
const MATH: &[(u8, u8, &str, &str)] = &[
    (0x60, 0x64, "+", "-"),
    (0x61, 0x65, "+", "-"),
    (0x62, 0x66, "+", "-"),
    (0x63, 0x67, "+", "-"),
    (0x64, 0x60, "-", "+"),
    (0x65, 0x61, "-", "+"),
    (0x66, 0x62, "-", "+"),
    (0x67, 0x63, "-", "+"),
    (0x68, 0x6c, "*", "/"),
    (0x69, 0x6d, "*", "/"),
    (0x6a, 0x6e, "*", "/"),
    (0x6b, 0x6f, "*", "/"),
    (0x6c, 0x68, "/", "*"),
    (0x6d, 0x69, "/", "*"),
    (0x6e, 0x6a, "/", "*"),
    (0x6f, 0x6b, "/", "*"),
    (0x70, 0x68, "%", "*"),
    (0x71, 0x69, "%", "*"),
    (0x72, 0x6a, "%", "*"),
    (0x73, 0x6b, "%", "*"),
    (0x78, 0x7a, "<<", ">>"),
    (0x79, 0x7b, "<<", ">>"),
    (0x7a, 0x78, ">>", "<<"),
    (0x7b, 0x79, ">>", "<<"),
    (0x7c, 0x78, ">>>", "<<"),
    (0x7d, 0x79, ">>>", "<<"),
    (0x7e, 0x80, "&", "|"),
    (0x7f, 0x81, "&", "|"),
    (0x80, 0x7e, "|", "&"),
    (0x81, 0x7f, "|", "&"),
    (0x82, 0x7e, "^", "&"),
    (0x83, 0x7f, "^", "&"),
];

/// The `Mutants` helper of an arithmetic opcode: (name, descriptor).
fn math_helper(opcode: u8) -> (&'static str, &'static str) {
    match opcode {
        0x79 | 0x7b | 0x7d => ("lshift", "(JII)J"),
        o if o % 4 == 0 && o < 0x78 => ("imath", "(III)I"),
        o if o % 4 == 1 && o < 0x78 => ("lmath", "(JJI)J"),
        o if o % 4 == 2 && o < 0x78 => ("fmath", "(FFI)F"),
        o if o < 0x78 => ("dmath", "(DDI)D"),
        o if o % 2 == 0 => ("imath", "(III)I"),
        _ => ("lmath", "(JJI)J"),
    }
}

/// Reference return types with an empty value, and the kind code `Mutants.aret` knows them by.
const EMPTY: [(&str, u32); 17] = [
    ("java/lang/String", 1),
    ("java/util/Optional", 2),
    ("java/util/List", 3),
    ("java/util/Set", 4),
    ("java/util/Map", 5),
    ("java/util/Collection", 6),
    ("java/lang/Iterable", 6),
    ("java/lang/Integer", 7),
    ("java/lang/Long", 8),
    ("java/lang/Short", 9),
    ("java/lang/Byte", 10),
    ("java/lang/Float", 11),
    ("java/lang/Double", 12),
    ("java/lang/Character", 13),
    ("java/lang/Boolean", 14),
    ("java/util/stream/Stream", 15),
    ("java/lang/CharSequence", 1),
];

/// Mutates `class`; returns its mutants (none: the class is unchanged). Classes of the runtime
/// package and interfaces' static initialisers are left alone.
pub fn mutate(class: &mut ClassFile, config: &Config) -> Result<Vec<Mutant>> {
    let name = class.name()?.into_owned();
    if name.starts_with(RUNTIME_PACKAGE)
        && name.as_bytes().get(RUNTIME_PACKAGE.len()) == Some(&b'/')
    {
        return Err(Error::Rewrite(format!(
            "{}: the ferrosuite runtime is not mutated",
            name.replace('/', ".")
        )));
    }
    let mut out = class.clone();
    let mut m = Mutator {
        config,
        this: name.clone(),
        package: name.rsplit_once('/').map_or("", |(p, _)| p).to_string(),
        interface: class.is(access::INTERFACE),
        major: class.major_version,
        next: config.first_id,
        mutants: Vec::new(),
        synthetic: Vec::new(),
    };
    let count = out.methods.len();
    for k in 0..count {
        m.method(&mut out, k)
            .context_with(|| format!("mutating {}", name.replace('/', ".")))?;
    }
    if m.mutants.is_empty() {
        return Ok(Vec::new());
    }
    out.methods.append(&mut m.synthetic);
    *class = out;
    Ok(m.mutants)
}

/// [`mutate`] on class-file bytes: the new bytes and the mutants (`None`: nothing to mutate).
pub fn mutate_bytes(bytes: &[u8], config: &Config) -> Result<Option<(Vec<u8>, Vec<Mutant>)>> {
    let mut class = ClassFile::parse(bytes)?;
    let mutants = mutate(&mut class, config)?;
    if mutants.is_empty() {
        return Ok(None);
    }
    Ok(Some((class.to_bytes()?, mutants)))
}

struct Mutator<'a> {
    config: &'a Config,
    this: String,
    package: String,
    interface: bool,
    major: u16,
    next: u32,
    mutants: Vec<Mutant>,
    synthetic: Vec<Member>,
}

/// Where a mutant is: method, offset, line.
struct At<'a> {
    method: &'a str,
    offset: u32,
    line: Option<u16>,
}

fn ldc_int<T>(cp: &mut ConstantPool, v: u32) -> Result<Insn<T>> {
    if let Ok(s) = i16::try_from(v) {
        return Ok(Insn::Sipush(s));
    }
    let index = cp.add_integer(v as i32)?;
    Ok(Insn::Ldc {
        op: if index.0 < 256 { op::LDC } else { op::LDC_W },
        index,
    })
}

fn helper(cp: &mut ConstantPool, name: &str, descriptor: &str) -> Result<Insn<usize>> {
    Ok(Insn::Cp {
        op: op::INVOKESTATIC,
        index: cp.add_method_ref(MUTANTS_CLASS, name, descriptor, false)?,
    })
}

/// The source line of `offset` (the entry with the greatest start at or before it).
fn line_of(code: &Code, offset: u32) -> Option<u16> {
    code.line_numbers()
        .filter(|l| u32::from(l.start_pc) <= offset)
        .max_by_key(|l| l.start_pc)
        .map(|l| l.line)
}

impl Mutator<'_> {
    fn on(&self, o: Operator) -> bool {
        self.config.operators.contains(&o)
    }

    /// Takes `n` ids for a site; returns the first.
    fn site(&mut self, n: u32) -> u32 {
        let base = self.next;
        self.next += n;
        base
    }

    fn record(&mut self, id: u32, site: u32, operator: Operator, at: &At<'_>, description: String) {
        self.mutants.push(Mutant {
            id,
            site,
            operator,
            method: at.method.to_string(),
            offset: at.offset,
            line: at.line,
            description,
        });
    }

    fn method(&mut self, class: &mut ClassFile, k: usize) -> Result<()> {
        let cp = &mut class.constant_pool;
        let m = &class.methods[k];
        let mname = cp.utf8(m.name)?.into_owned();
        let mdesc = cp.utf8(m.descriptor)?.into_owned();
        if mname == "<clinit>"
            || mname.starts_with(VOID_CALL_PREFIX)
            || m.is(access::BRIDGE)
            || m.is(access::ABSTRACT)
            || m.is(access::NATIVE)
        {
            return Ok(());
        }
        let is_static = m.is(access::STATIC);
        let Some(code) = m.code() else {
            return Ok(());
        };
        let code = code.clone();
        let ret = MethodDescriptor::parse(&mdesc)?.ret;
        let label = format!("{mname} {mdesc}");
        let mut ed = CodeEditor::new(&code)?;
        let before = self.mutants.len();
        for i in 0..ed.len() {
            let Some((offset, insn)) = ed.insn(i) else {
                continue;
            };
            let insn = insn.clone();
            let at = At {
                method: &label,
                offset,
                line: line_of(&code, offset),
            };
            match insn {
                Insn::Branch { op: o, .. } if op::is_conditional(o) => {
                    self.condition(cp, &mut ed, i, o, &at)?;
                }
                Insn::Simple(o) if MATH.iter().any(|(m, ..)| *m == o) => {
                    if !self.on(Operator::Math) {
                        continue;
                    }
                    let &(_, _, from, to) = MATH.iter().find(|(m, ..)| *m == o).unwrap_or(&MATH[0]);
                    let base = self.site(1);
                    let (name, desc) = math_helper(o);
                    let code_const = ldc_int(cp, (base << 8) | u32::from(o))?;
                    ed.replace(i, vec![code_const, helper(cp, name, desc)?], 1)?;
                    self.record(base, base, Operator::Math, &at, format!("{from} → {to}"));
                }
                Insn::Simple(o @ 0x74..=0x77) => {
                    if !self.on(Operator::InvertNegatives) {
                        continue;
                    }
                    let base = self.site(1);
                    let (name, desc) = [
                        ("ineg", "(II)I"),
                        ("lneg", "(JI)J"),
                        ("fneg", "(FI)F"),
                        ("dneg", "(DI)D"),
                    ][usize::from(o - 0x74)];
                    let code_const = ldc_int(cp, base)?;
                    ed.replace(i, vec![code_const, helper(cp, name, desc)?], 1)?;
                    self.record(base, base, Operator::InvertNegatives, &at, "-x → x".into());
                }
                Insn::Iinc { index, delta, wide } => {
                    if !self.on(Operator::Increments) {
                        continue;
                    }
                    let base = self.site(1);
                    let wide = wide || index > 255;
                    let code_const = ldc_int(cp, base)?;
                    ed.replace(
                        i,
                        vec![
                            Insn::Local {
                                op: op::ILOAD,
                                index,
                                wide,
                            },
                            Insn::Sipush(delta),
                            code_const,
                            helper(cp, "inc", "(III)I")?,
                            Insn::Local {
                                op: op::ISTORE,
                                index,
                                wide,
                            },
                        ],
                        3,
                    )?;
                    self.record(
                        base,
                        base,
                        Operator::Increments,
                        &at,
                        format!("+= {delta} → += {}", -i32::from(delta)),
                    );
                }
                Insn::Simple(o @ op::IRETURN..=0xb0) => {
                    if let Some(t) = &ret {
                        self.ret(cp, &mut ed, i, o, t, &at)?;
                    }
                }
                Insn::Cp {
                    op: o @ (op::INVOKEVIRTUAL | op::INVOKESTATIC),
                    index,
                } => self.void_call(cp, &mut ed, i, o, index, &at)?,
                Insn::InvokeInterface { index, .. } => {
                    self.void_call(cp, &mut ed, i, op::INVOKEINTERFACE, index, &at)?;
                }
                _ => {}
            }
        }
        if self.mutants.len() == before {
            return Ok(());
        }
        let initial = if code.stack_map().is_some() {
            initial_frame(cp, &self.this, &mname, &mdesc, is_static)?
        } else {
            FrameState::default()
        };
        let new = ed
            .finish(
                &code,
                &initial,
                self.major >= 51 || code.stack_map().is_some(),
            )
            .context_with(|| label.clone())?;
        if let Some(c) = class.methods[k].code_mut() {
            *c = new;
        }
        Ok(())
    }

    /// A conditional jump: its operands and the comparison go to `icmp`/`acmp`, whose result
    /// `ifne` jumps on.
    fn condition(
        &mut self,
        cp: &mut ConstantPool,
        ed: &mut CodeEditor,
        i: usize,
        o: u8,
        at: &At<'_>,
    ) -> Result<()> {
        let (cmp, symbol, reference, unary) = match o {
            op::IFEQ..=op::IFLE => {
                let (_, c, s) = CMP[usize::from(o - op::IFEQ)];
                (c, s, false, true)
            }
            op::IF_ICMPEQ..=op::IF_ICMPLE => {
                let (_, c, s) = CMP[usize::from(o - op::IF_ICMPEQ)];
                (c, s, false, false)
            }
            op::IF_ACMPEQ => (0, "==", true, false),
            op::IF_ACMPNE => (1, "!=", true, false),
            op::IFNULL => (0, "== null", true, true),
            _ => (1, "!= null", true, true),
        };
        let boundary = BOUNDARY.iter().find(|(c, _)| *c == cmp).map(|(_, s)| *s);
        let negate = self.on(Operator::NegateConditionals);
        let bound = boundary.is_some() && self.on(Operator::ConditionalsBoundary);
        let remove_op = if boundary.is_some() {
            Operator::RemoveOrderConditionals
        } else {
            Operator::RemoveEqualityConditionals
        };
        let remove = self.on(remove_op);
        if !negate && !bound && !remove {
            return Ok(());
        }
        // The ids of a site are fixed (negated, boundary for order comparisons, jump always
        // taken) whichever operators are on, as the runtime's helpers count them.
        let base = self.site(if boundary.is_some() { 3 } else { 2 });
        let mut prefix = Vec::new();
        if unary {
            prefix.push(Insn::Simple(if reference {
                op::ACONST_NULL
            } else {
                op::ICONST_0
            }));
        }
        prefix.push(ldc_int(cp, (base << 3) | cmp)?);
        prefix.push(if reference {
            helper(cp, "acmp", "(Ljava/lang/Object;Ljava/lang/Object;I)Z")?
        } else {
            helper(cp, "icmp", "(III)Z")?
        });
        ed.insert_before(i, prefix, Landing::OnInserted, 2)?;
        ed.set_condition(i, op::IFNE)?;
        let negated = CMP
            .iter()
            .find(|(_, c, _)| *c == cmp ^ 1)
            .map_or("", |(_, _, s)| *s);
        if negate {
            let to = if reference {
                if unary {
                    if cmp == 0 { "!= null" } else { "== null" }
                } else {
                    negated
                }
            } else {
                negated
            };
            self.record(
                base,
                base,
                Operator::NegateConditionals,
                at,
                format!("{symbol} → {to}"),
            );
        }
        if let (true, Some(b)) = (bound, boundary) {
            self.record(
                base + 1,
                base,
                Operator::ConditionalsBoundary,
                at,
                format!("{symbol} → {b}"),
            );
        }
        if remove {
            // The site's last id: after the boundary mutant where there is one.
            let id = base + u32::from(boundary.is_some()) + 1;
            self.record(id, base, remove_op, at, format!("{symbol} → always jumps"));
        }
        Ok(())
    }

    /// A return: the value passes through `iret`/`lret`/`fret`/`dret`/`aret` first.
    fn ret(
        &mut self,
        cp: &mut ConstantPool,
        ed: &mut CodeEditor,
        i: usize,
        o: u8,
        t: &FieldType,
        at: &At<'_>,
    ) -> Result<()> {
        if o == 0xb0 {
            let class = match t {
                FieldType::Object(n) => Some(n.as_str()),
                _ => None,
            };
            let kind = class
                .and_then(|c| EMPTY.iter().find(|(n, _)| *n == c))
                .map_or(0, |(_, k)| *k);
            let null = self.on(Operator::NullReturns);
            let empty = kind != 0 && self.on(Operator::EmptyReturns);
            if !null && !empty {
                return Ok(());
            }
            let base = self.site(2);
            let mut code = vec![
                ldc_int(cp, (base << 4) | kind)?,
                helper(cp, "aret", "(Ljava/lang/Object;I)Ljava/lang/Object;")?,
            ];
            if class != Some("java/lang/Object") {
                let name = t.class_constant_name().unwrap_or_default();
                code.push(Insn::Cp {
                    op: op::CHECKCAST,
                    index: cp.add_class(&name)?,
                });
            }
            ed.insert_before(i, code, Landing::OnInserted, 1)?;
            if null {
                self.record(base, base, Operator::NullReturns, at, "→ null".into());
            }
            if empty {
                self.record(base + 1, base, Operator::EmptyReturns, at, "→ empty".into());
            }
            return Ok(());
        }
        if !self.on(Operator::PrimitiveReturns) {
            return Ok(());
        }
        let base = self.site(1);
        let (name, desc) = match o {
            op::IRETURN => ("iret", "(II)I"),
            0xad => ("lret", "(JI)J"),
            0xae => ("fret", "(FI)F"),
            _ => ("dret", "(DI)D"),
        };
        let code = vec![ldc_int(cp, base)?, helper(cp, name, desc)?];
        ed.insert_before(i, code, Landing::OnInserted, 1)?;
        let what = if matches!(t, FieldType::Boolean) {
            "true ↔ false"
        } else {
            "0 ↔ 1 (others → 0)"
        };
        self.record(base, base, Operator::PrimitiveReturns, at, what.into());
        Ok(())
    }

    /// A call of a void method: through a synthetic static method that skips it when its
    /// mutant is active.
    fn void_call(
        &mut self,
        cp: &mut ConstantPool,
        ed: &mut CodeEditor,
        i: usize,
        o: u8,
        index: CpIndex,
        at: &At<'_>,
    ) -> Result<()> {
        if !self.on(Operator::VoidMethodCalls) || self.interface {
            return Ok(());
        }
        let r = cp.member_ref(index)?;
        if !r.descriptor.ends_with(")V") || r.name.starts_with('<') {
            return Ok(());
        }
        let (owner, name, desc) = (
            r.class.into_owned(),
            r.name.into_owned(),
            r.descriptor.into_owned(),
        );
        let owner_package = owner.rsplit_once('/').map_or("", |(p, _)| p);
        if o == op::INVOKEVIRTUAL && owner != self.this && owner_package != self.package {
            return Ok(());
        }
        if owner.starts_with('[') {
            return Ok(());
        }
        let base = self.site(1);
        let params = MethodDescriptor::parse(&desc)?.params;
        let receiver = if o == op::INVOKESTATIC {
            String::new()
        } else {
            format!("L{owner};")
        };
        let args: String = params.iter().map(FieldType::descriptor).collect();
        let synthetic_desc = format!("({receiver}{args})V");
        let synthetic_name = format!("{VOID_CALL_PREFIX}{base}");
        let method = self.void_method(cp, &synthetic_name, &synthetic_desc, o, index, base)?;
        self.synthetic.push(method);
        let target = cp.add_method_ref(&self.this, &synthetic_name, &synthetic_desc, false)?;
        ed.replace(
            i,
            vec![Insn::Cp {
                op: op::INVOKESTATIC,
                index: target,
            }],
            0,
        )?;
        self.record(
            base,
            base,
            Operator::VoidMethodCalls,
            at,
            format!("removed call to {}.{name}", owner.replace('/', ".")),
        );
        Ok(())
    }

    /// `private static synthetic void ferrosuite$void$ID(args)`: `if (!Mutants.skip(ID))
    /// <the call>; return;`.
    fn void_method(
        &self,
        cp: &mut ConstantPool,
        name: &str,
        desc: &str,
        o: u8,
        call: CpIndex,
        id: u32,
    ) -> Result<Member> {
        let params = MethodDescriptor::parse(desc)?.params;
        let mut slot: u16 = 0;
        let mut loads: Vec<Insn<u32>> = Vec::new();
        for p in &params {
            let load = match p {
                FieldType::Long => op::LLOAD,
                FieldType::Float => op::FLOAD,
                FieldType::Double => op::DLOAD,
                FieldType::Object(_) | FieldType::Array(_) => op::ALOAD,
                _ => op::ILOAD,
            };
            loads.push(Insn::Local {
                op: load,
                index: slot,
                wide: slot > 255,
            });
            slot += p.slots();
        }
        loads.push(if o == op::INVOKEINTERFACE {
            Insn::InvokeInterface {
                index: call,
                count: u8::try_from(slot.max(1))
                    .map_err(|_| Error::Rewrite(format!("{name}: more than 255 argument slots")))?,
                zero: 0,
            }
        } else {
            Insn::Cp { op: o, index: call }
        });
        // `ldc id; invokestatic Mutants.skip(I)Z; ifne END; loads; call; END: return`.
        let mut bytes = Vec::new();
        let test: [Insn<u32>; 2] = [
            ldc_int(cp, id)?,
            Insn::Cp {
                op: op::INVOKESTATIC,
                index: cp.add_method_ref(MUTANTS_CLASS, "skip", "(I)Z", false)?,
            },
        ];
        for insn in &test {
            let at = bytes.len() as u32;
            crate::insn::encode_at(&mut bytes, insn, at, |_| Ok(0))?;
        }
        let jump_at = bytes.len() as u32;
        let mut rest = Vec::new();
        for insn in &loads {
            let at = jump_at + 3 + rest.len() as u32;
            crate::insn::encode_at(&mut rest, insn, at, |_| Ok(0))?;
        }
        let end = jump_at + 3 + rest.len() as u32;
        let jump: Insn<u32> = Insn::Branch {
            op: op::IFNE,
            target: end,
        };
        crate::insn::encode_at(&mut bytes, &jump, jump_at, |t| Ok((*t - jump_at) as i32))?;
        bytes.extend_from_slice(&rest);
        bytes.push(op::RETURN);
        let mut attributes = Vec::new();
        if self.major >= 50 {
            // One frame, at `return`: the parameters, nothing on the stack.
            let frames = vec![StackMapFrame::Same {
                delta: end as u16,
                extended: end > 63,
            }];
            attributes.push(Attribute {
                name: cp.add_utf8("StackMapTable")?,
                body: AttributeBody::StackMapTable(frames),
            });
        }
        let code = Code {
            max_stack: slot.max(1),
            max_locals: slot,
            code: bytes,
            exception_table: Vec::new(),
            attributes,
        };
        let code_name = cp.add_utf8("Code")?;
        Ok(Member {
            access_flags: access::PRIVATE | access::STATIC | access::SYNTHETIC,
            name: cp.add_utf8(name)?,
            descriptor: cp.add_utf8(desc)?,
            attributes: vec![Attribute {
                name: code_name,
                body: AttributeBody::Code(code),
            }],
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_math_table_pairs_each_opcode_with_one_of_its_own_type() {
        for (o, m, ..) in MATH {
            // Same operand type: int, long, float and double opcodes interleave by 4 below the
            // shifts and by 2 from them on.
            let type_of = |x: u8| if x < 0x78 { x % 4 } else { x % 2 };
            assert_eq!(type_of(*o), type_of(*m), "{o:#x} → {m:#x}");
            assert_eq!(math_helper(*o), math_helper(*m), "{o:#x}");
        }
        assert_eq!(math_helper(0x79), ("lshift", "(JII)J"));
        assert_eq!(math_helper(0x78), ("imath", "(III)I"));
        assert_eq!(math_helper(0x63), ("dmath", "(DDI)D"));
        assert_eq!(math_helper(0x83), ("lmath", "(JJI)J"));
    }

    #[test]
    fn every_operator_has_a_distinct_pit_name() {
        let names: std::collections::BTreeSet<_> =
            Operator::ALL.iter().map(|o| o.pit_name()).collect();
        assert_eq!(names.len(), Operator::ALL.len());
    }
}
