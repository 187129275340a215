//! Constant harvesting: the literals a class's code mentions, to seed the search's primitive and
//! string values (the whole-suite paper's "seeding").
//!
//! The algorithm reads one class file, without executing anything:
//!
//! 1. every `Integer`, `Long`, `Float` and `Double` entry of the constant pool (each is a literal
//!    that `ldc`/`ldc2_w` load or a `ConstantValue` of a field: the compiler puts nothing else
//!    there);
//! 2. every `String` entry, except those that only serve as static arguments of `invokedynamic`
//!    bootstrap methods (such as the field-name list of a record's `toString`). The recipe of
//!    `StringConcatFactory.makeConcatWithConstants` (`"x = \u{1}!"`, from `"x = " + x + "!"`) is
//!    split at its argument markers `\u{1}`/`\u{2}` and its literal pieces kept, as are the
//!    string constants the recipe refers to with `\u{2}`;
//! 3. the small integers the code pushes without the pool: `iconst_m1` … `iconst_5`, `bipush`,
//!    `sipush`, and the `lconst`, `fconst` and `dconst` instructions.
//!
//! Strings that are not valid UTF-16 (an unpaired surrogate, which Java allows but a Rust
//! `String` cannot hold) are dropped and counted. Class, method and field names are never
//! harvested: they are `Utf8` and `Class` entries, not `String` literals. Each kind is
//! deduplicated and sorted (numbers ascending, floating-point values in IEEE total order with
//! bitwise equality, strings by their UTF-8 bytes), so the same class gives the same constants.
//!
//! ```
//! use ferrosuite_testcase::constants::Constants;
//! use ferrosuite_testcase::Prim;
//! let mut c = Constants::default();
//! c.ints = vec![3, 100];
//! c.strings = vec!["push".into()];
//! let mut more = Constants::default();
//! more.ints = vec![-1, 3];
//! c.merge(&more);
//! assert_eq!(c.ints, vec![-1, 3, 100]);
//! assert_eq!(c.prims()[0], Prim::Int(-1));
//! assert_eq!(c.len(), 4);
//! ```
//!
//! [`harvest_nested`] also reads the nested classes (member, local and anonymous classes, found
//! through the `InnerClasses` attribute) of a class on a class path, whose code belongs to the
//! class under test for the search.

use std::collections::{BTreeSet, HashSet};

use ferrosuite_bytecode::ClassFile;
use ferrosuite_bytecode::attributes::AttributeBody;
use ferrosuite_bytecode::classpath::ClassPath;
use ferrosuite_bytecode::constant_pool::Constant;
use ferrosuite_bytecode::insn::{self, Insn};
use ferrosuite_bytecode::mutf8;
use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::statement::{JDouble, JFloat, Prim};

/// Constants harvested from one or more classes, deduplicated and sorted per kind.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Constants {
    /// `int` constants (also `byte`, `short`, `char` and `boolean` values, which the JVM
    /// handles as `int`), ascending.
    pub ints: Vec<i32>,
    /// `long` constants, ascending.
    pub longs: Vec<i64>,
    /// `float` constants in IEEE total order (`-0.0` and `0.0` are distinct).
    pub floats: Vec<JFloat>,
    /// `double` constants in IEEE total order.
    pub doubles: Vec<JDouble>,
    /// String literals, sorted.
    pub strings: Vec<String>,
    /// Strings dropped because they are not valid UTF-16 (an unpaired surrogate).
    pub dropped_strings: usize,
}

impl Constants {
    /// Whether `value` is one of the constants (an `int` among the `int`s, a `long` among the
    /// `long`s, …; `byte`, `short`, `char` and `boolean` values among the `int`s). The kinds
    /// must be sorted and distinct, as [`harvest`] and [`Constants::merge`] leave them (a
    /// hand-built value: call [`Constants::normalize`] first).
    #[must_use]
    pub fn contains(&self, value: &Prim) -> bool {
        match value {
            Prim::Long(l) => self.longs.binary_search(l).is_ok(),
            Prim::Float(f) => self.floats.contains(f),
            Prim::Double(d) => self.doubles.contains(d),
            Prim::String(t) => self.strings.binary_search(t).is_ok(),
            Prim::Boolean(_) | Prim::Byte(_) | Prim::Short(_) | Prim::Char(_) | Prim::Int(_) => {
                value
                    .as_jvm_int()
                    .is_some_and(|i| self.ints.binary_search(&i).is_ok())
            }
        }
    }

    /// Number of constants (all kinds).
    #[must_use]
    pub fn len(&self) -> usize {
        self.ints.len()
            + self.longs.len()
            + self.floats.len()
            + self.doubles.len()
            + self.strings.len()
    }

    /// Whether nothing was harvested.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Adds the constants of `other`, keeping each kind deduplicated and sorted.
    pub fn merge(&mut self, other: &Constants) {
        self.ints.extend(&other.ints);
        self.longs.extend(&other.longs);
        self.floats.extend(&other.floats);
        self.doubles.extend(&other.doubles);
        self.strings.extend(other.strings.iter().cloned());
        self.dropped_strings += other.dropped_strings;
        self.normalize();
    }

    /// The constants as test values: ints, longs, floats, doubles, then strings, each in the
    /// order of its vector.
    #[must_use]
    pub fn prims(&self) -> Vec<Prim> {
        let mut out = Vec::with_capacity(self.len());
        out.extend(self.ints.iter().map(|&i| Prim::Int(i)));
        out.extend(self.longs.iter().map(|&l| Prim::Long(l)));
        out.extend(self.floats.iter().map(|&f| Prim::Float(f)));
        out.extend(self.doubles.iter().map(|&d| Prim::Double(d)));
        out.extend(self.strings.iter().map(|s| Prim::String(s.clone())));
        out
    }

    /// Sorts each kind and removes duplicates (floating values compared bitwise), as
    /// [`Constants::contains`] needs.
    pub fn normalize(&mut self) {
        self.ints.sort_unstable();
        self.ints.dedup();
        self.longs.sort_unstable();
        self.longs.dedup();
        self.floats.sort_by(|a, b| a.0.total_cmp(&b.0));
        self.floats.dedup();
        self.doubles.sort_by(|a, b| a.0.total_cmp(&b.0));
        self.doubles.dedup();
        self.strings.sort();
        self.strings.dedup();
    }

    fn add_string_units(&mut self, units: &[u16]) {
        match String::from_utf16(units) {
            Ok(s) => self.strings.push(s),
            Err(_) => self.dropped_strings += 1,
        }
    }
}

const STRING_CONCAT_FACTORY: &str = "java/lang/invoke/StringConcatFactory";

/// The constants of one class (its own code and constant pool; nested classes are separate
/// class files, see [`harvest_nested`]). Malformed entries and undecodable code are skipped:
/// harvesting never fails.
#[must_use]
pub fn harvest(class: &ClassFile) -> Constants {
    let cp = &class.constant_pool;
    let mut out = Constants::default();

    // String entries used as bootstrap arguments, and those of them to split as recipes or
    // keep as constants of a recipe.
    let mut bootstrap_only: HashSet<u16> = HashSet::new();
    let mut recipes: BTreeSet<u16> = BTreeSet::new();
    let mut recipe_constants: BTreeSet<u16> = BTreeSet::new();
    for bsm in class.bootstrap_methods().unwrap_or_default() {
        let is_concat = match cp.get(bsm.method) {
            Ok(Constant::MethodHandle { reference, .. }) => {
                cp.member_ref(*reference).is_ok_and(|r| {
                    r.class == STRING_CONCAT_FACTORY && r.name == "makeConcatWithConstants"
                })
            }
            _ => false,
        };
        for (i, arg) in bsm.arguments.iter().enumerate() {
            if matches!(cp.get(*arg), Ok(Constant::String(_))) {
                bootstrap_only.insert(arg.0);
                if is_concat {
                    if i == 0 {
                        recipes.insert(arg.0);
                    } else {
                        recipe_constants.insert(arg.0);
                    }
                }
            }
        }
    }
    // Strings the code or a field's ConstantValue loads directly are literals even when a
    // bootstrap method also uses them.
    for f in &class.fields {
        for a in &f.attributes {
            if let AttributeBody::ConstantValue(i) = a.body {
                bootstrap_only.remove(&i.0);
            }
        }
    }
    for m in &class.methods {
        let Some(code) = m.code() else { continue };
        let Ok(insns) = insn::decode(&code.code) else {
            continue;
        };
        for (_, i) in insns {
            match i {
                Insn::Ldc { index, .. } => {
                    bootstrap_only.remove(&index.0);
                }
                Insn::Bipush(v) => out.ints.push(i32::from(v)),
                Insn::Sipush(v) => out.ints.push(i32::from(v)),
                Insn::Simple(op) => match op {
                    0x02..=0x08 => out.ints.push(i32::from(op) - 3),
                    0x09..=0x0a => out.longs.push(i64::from(op) - 9),
                    0x0b..=0x0d => out.floats.push(JFloat(f32::from(op - 0x0b))),
                    0x0e..=0x0f => out.doubles.push(JDouble(f64::from(op - 0x0e))),
                    _ => {}
                },
                _ => {}
            }
        }
    }

    for (index, c) in cp.entries().iter().enumerate() {
        let index = index as u16;
        match c {
            Constant::Integer(v) => out.ints.push(*v),
            Constant::Long(v) => out.longs.push(*v),
            Constant::Float(bits) => out.floats.push(JFloat(f32::from_bits(*bits))),
            Constant::Double(bits) => out.doubles.push(JDouble(f64::from_bits(*bits))),
            Constant::String(utf8) => {
                let Ok(bytes) = cp.utf8_bytes(*utf8) else {
                    continue;
                };
                let units = mutf8::decode_utf16_units(bytes);
                if recipes.contains(&index) && bootstrap_only.contains(&index) {
                    for piece in units.split(|&u| u == 1 || u == 2) {
                        if !piece.is_empty() {
                            out.add_string_units(piece);
                        }
                    }
                } else if !bootstrap_only.contains(&index) || recipe_constants.contains(&index) {
                    out.add_string_units(&units);
                }
            }
            _ => {}
        }
    }
    out.normalize();
    out
}

/// The constants of `class` and of its nested classes (transitively: every class the
/// `InnerClasses` attributes list whose name starts with `class$`), loaded from `cp`. Nested
/// classes that are listed but missing from the class path are skipped.
pub fn harvest_nested(cp: &ClassPath, class: &str) -> Result<Constants> {
    let not_found = |e| match e {
        ferrosuite_bytecode::Error::ClassNotFound(_) => {
            Error::ClassNotFound(class.replace('/', "."))
        }
        e => Error::Bytecode(e),
    };
    let root = cp.load(class).map_err(not_found)?;
    let mut out = harvest(&root);
    for name in cp.nested_classes(class).map_err(not_found)? {
        out.merge(&harvest(&*cp.load(&name)?));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn contains_looks_in_the_kind_of_the_value() {
        let mut c = Constants {
            ints: vec![99, 7, 120],
            longs: vec![5],
            doubles: vec![JDouble(-0.0)],
            strings: vec!["b".into(), "a".into()],
            ..Constants::default()
        };
        c.normalize();
        assert!(c.contains(&Prim::Int(7)) && c.contains(&Prim::Char(u16::from(b'x'))));
        assert!(c.contains(&Prim::Long(5)) && !c.contains(&Prim::Long(7)));
        assert!(
            c.contains(&Prim::Double(JDouble(-0.0))) && !c.contains(&Prim::Double(JDouble(0.0)))
        );
        assert!(c.contains(&Prim::String("a".into())) && !c.contains(&Prim::String("c".into())));
        assert!(!c.contains(&Prim::Int(5)));
    }

    #[test]
    fn merge_keeps_kinds_sorted_and_distinct_floats_bitwise() {
        let mut a = Constants {
            floats: vec![JFloat(0.0), JFloat(f32::NAN)],
            strings: vec!["b".into(), "a".into()],
            ..Constants::default()
        };
        a.normalize();
        let b = Constants {
            floats: vec![JFloat(-0.0), JFloat(0.0)],
            strings: vec!["a".into()],
            dropped_strings: 2,
            ..Constants::default()
        };
        a.merge(&b);
        assert_eq!(a.floats.len(), 3);
        assert_eq!(a.floats[0].0.to_bits(), (-0.0f32).to_bits());
        assert_eq!(a.strings, vec!["a".to_string(), "b".to_string()]);
        assert_eq!(a.dropped_strings, 2);
    }

    #[test]
    fn lone_surrogates_are_dropped() {
        let mut c = Constants::default();
        c.add_string_units(&[0x61, 0xd800]);
        c.add_string_units(&[0xd83d, 0xde00]);
        assert_eq!(c.strings, vec!["\u{1F600}".to_string()]);
        assert_eq!(c.dropped_strings, 1);
    }
}
