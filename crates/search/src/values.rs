//! Primitive and string values: random generation, seeding, and mutation.
//!
//! # Generation ([`random_prim`])
//!
//! With probability [`Config::seed_probability`] (0.2) a value is a *seed* of the wanted kind:
//! from the run-time [`ObservedPool`] with probability [`Config::observed_share`] (when it holds
//! a value of that kind), else from the constants harvested from the class under test
//! ([`Constants`]); when the chosen source has nothing of the kind the other one is tried. A
//! `byte`, `short` or `char` takes an `int` constant only when it is in the type's range; a
//! `long` takes `long` and `int` constants. Otherwise the value is random:
//!
//! | type | random value |
//! |---|---|
//! | `boolean` | a fair coin |
//! | `byte` | uniform over the whole type |
//! | `char` | printable ASCII (`' '` … `'~'`) |
//! | `short`, `int`, `long` | uniform in \[−`max_int`, `max_int`\] (2048) |
//! | `float`, `double` | uniform in \[−`max_int`, `max_int`\), rounded to 0–6 decimal places |
//! | `String` | printable ASCII, length uniform in \[0, `max_string_length`\) (20) |
//!
//! # Mutation ([`mutate_prim`]): the paper's *change* of a primitive statement
//!
//! With probability [`Config::random_perturbation`] (0.2) the value is replaced by a new one as
//! above (so a constant can come back); otherwise it takes a step, and it always ends different:
//!
//! - integers (`byte`, `short`, `char`, `int`, `long`) add δ with 1 ≤ |δ| ≤ Δ (Δ =
//!   [`Config::max_delta`] = 20), wrapping around at the type's bounds like Java arithmetic:
//!   `int 7` may become `int -4`, `byte 127` + 3 becomes `byte -126`;
//! - `boolean` flips;
//! - `float` and `double`, each with probability 1/3: add a uniform real in \[−Δ, Δ\), add one
//!   in \[−1, 1\), or round to a random number of decimal places in \[0, 6\] (`3.14159` →
//!   `3.14`); a `float` is computed in `f32` arithmetic (Java's), a NaN or infinity is replaced
//!   by a random value;
//! - a string goes through three steps, each applied with probability 1/3: delete each
//!   character with probability 1/n, replace each character with probability 1/n (n the
//!   current length), insert a random character at a random position with probability α, a
//!   second with α², … (α = 0.5) while shorter than `max_string_length`: `"push"` may become
//!   `"pus"`, `"pXsh"` or `"pu#sh"`.
//!
//! ```
//! use ferrosuite_search::{Config, Seeds};
//! use ferrosuite_search::values::{mutate_prim, random_prim};
//! use ferrosuite_bytecode::descriptor::FieldType;
//! use ferrosuite_testcase::Prim;
//! use rand_chacha::ChaCha8Rng;
//! use rand_chacha::rand_core::SeedableRng;
//!
//! let (config, seeds) = (Config::default(), Seeds::default());
//! let mut rng = ChaCha8Rng::seed_from_u64(5);
//! let Some(Prim::Int(i)) = random_prim(&FieldType::Int, &seeds, &config, &mut rng) else { panic!() };
//! assert!(i.abs() <= 2048);
//! let mut p = Prim::Byte(127);
//! mutate_prim(&mut p, &seeds, &Config { random_perturbation: 0.0, ..config }, &mut rng);
//! assert_ne!(p, Prim::Byte(127));
//! ```

use std::collections::{HashSet, VecDeque};
use std::hash::Hash;

use ferrosuite_bytecode::descriptor::FieldType;
use ferrosuite_testcase::constants::Constants;
use ferrosuite_testcase::statement::{JDouble, JFloat, Prim};

use crate::config::Config;
use crate::random::{Rng, chance, float_in, geometric_count, index, int_in, pick};

const STRING: &str = "java/lang/String";

/// Observed strings longer than this (in bytes) are not kept.
pub const MAX_OBSERVED_STRING: usize = 1024;

/// A bounded, insertion-ordered set: the oldest value leaves when a new one would exceed the
/// capacity.
#[derive(Debug, Clone)]
struct Bounded<T: Eq + Hash + Clone> {
    order: VecDeque<T>,
    members: HashSet<T>,
}

impl<T: Eq + Hash + Clone> Default for Bounded<T> {
    fn default() -> Self {
        Bounded {
            order: VecDeque::new(),
            members: HashSet::new(),
        }
    }
}

impl<T: Eq + Hash + Clone> Bounded<T> {
    fn add(&mut self, v: T, capacity: usize) {
        if capacity == 0 || self.members.contains(&v) {
            return;
        }
        while self.order.len() >= capacity {
            if let Some(old) = self.order.pop_front() {
                self.members.remove(&old);
            }
        }
        self.members.insert(v.clone());
        self.order.push_back(v);
    }

    fn pick<R: Rng + ?Sized>(&self, rng: &mut R) -> Option<&T> {
        if self.order.is_empty() {
            None
        } else {
            self.order.get(index(rng, self.order.len()))
        }
    }
}

/// Values seen while executing tests, fed by the search so that later value generation can
/// reuse them — the whole-suite paper's values "observed at run time", EvoSuite's "dynamic
/// pool". The engine feeds it after every batch with the values the code under test compared
/// (the probes record the operands of `int`, `long`, `float`/`double` and String comparisons),
/// except those the test wrote itself and the harvested constants (seeds already): what is
/// left is what only execution shows, values the code computed (`if (s.equals(key()))` gives
/// `key()`'s result, which no constant pool holds). Per kind, deduplicated, at most `capacity`
/// values, the oldest dropped first (insertion order, so the pool is deterministic); a
/// capacity of 0 keeps nothing (constants only).
///
/// ```
/// use ferrosuite_search::ObservedPool;
/// use ferrosuite_testcase::Prim;
/// let mut pool = ObservedPool::new(2);
/// for i in [1, 2, 2, 3] {
///     pool.add(&Prim::Int(i));
/// }
/// pool.add(&Prim::String("needle".into()));
/// assert_eq!(pool.ints(), vec![2, 3]);
/// assert_eq!(pool.len(), 3);
/// ```
#[derive(Debug, Clone, Default)]
pub struct ObservedPool {
    capacity: usize,
    ints: Bounded<i32>,
    longs: Bounded<i64>,
    floats: Bounded<JFloat>,
    doubles: Bounded<JDouble>,
    strings: Bounded<String>,
}

impl ObservedPool {
    /// An empty pool keeping at most `capacity` values per kind.
    #[must_use]
    pub fn new(capacity: usize) -> Self {
        ObservedPool {
            capacity,
            ..ObservedPool::default()
        }
    }

    /// Adds an observed value: `byte`, `short`, `char` and `int` values go to the `int` pool
    /// (as the JVM handles them); booleans and strings longer than [`MAX_OBSERVED_STRING`]
    /// bytes are ignored.
    pub fn add(&mut self, value: &Prim) {
        let c = self.capacity;
        match value {
            Prim::Boolean(_) => {}
            Prim::Byte(_) | Prim::Short(_) | Prim::Char(_) | Prim::Int(_) => {
                if let Some(i) = value.as_jvm_int() {
                    self.ints.add(i, c);
                }
            }
            Prim::Long(l) => self.longs.add(*l, c),
            Prim::Float(f) => self.floats.add(*f, c),
            Prim::Double(d) => self.doubles.add(*d, c),
            Prim::String(s) => {
                if s.len() <= MAX_OBSERVED_STRING {
                    self.strings.add(s.clone(), c);
                }
            }
        }
    }

    /// Adds an `int`.
    pub fn add_int(&mut self, v: i32) {
        self.add(&Prim::Int(v));
    }

    /// Adds a string.
    pub fn add_string(&mut self, s: &str) {
        self.add(&Prim::String(s.to_string()));
    }

    /// The `int` values, oldest first.
    #[must_use]
    pub fn ints(&self) -> Vec<i32> {
        self.ints.order.iter().copied().collect()
    }

    /// The strings, oldest first.
    #[must_use]
    pub fn strings(&self) -> Vec<String> {
        self.strings.order.iter().cloned().collect()
    }

    /// Number of values (all kinds).
    #[must_use]
    pub fn len(&self) -> usize {
        self.ints.order.len()
            + self.longs.order.len()
            + self.floats.order.len()
            + self.doubles.order.len()
            + self.strings.order.len()
    }

    /// Whether the pool is empty.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// A value of type `ty` from the pool, if it has one of that kind.
    fn pick<R: Rng + ?Sized>(&self, ty: &FieldType, rng: &mut R) -> Option<Prim> {
        match ty {
            FieldType::Int => self.ints.pick(rng).map(|&i| Prim::Int(i)),
            FieldType::Byte => pick_fitting(rng, self.ints.order.iter().copied(), |i| {
                i8::try_from(i).ok().map(Prim::Byte)
            }),
            FieldType::Short => pick_fitting(rng, self.ints.order.iter().copied(), |i| {
                i16::try_from(i).ok().map(Prim::Short)
            }),
            FieldType::Char => pick_fitting(rng, self.ints.order.iter().copied(), |i| {
                u16::try_from(i).ok().map(Prim::Char)
            }),
            FieldType::Long => pick_fitting(
                rng,
                self.longs
                    .order
                    .iter()
                    .copied()
                    .chain(self.ints.order.iter().map(|&i| i64::from(i))),
                |l| Some(Prim::Long(l)),
            ),
            FieldType::Float => self.floats.pick(rng).map(|&f| Prim::Float(f)),
            FieldType::Double => self.doubles.pick(rng).map(|&d| Prim::Double(d)),
            FieldType::Object(n) if n == STRING => {
                self.strings.pick(rng).map(|s| Prim::String(s.clone()))
            }
            _ => None,
        }
    }
}

/// A uniformly chosen value among those `convert` accepts.
fn pick_fitting<T, R: Rng + ?Sized>(
    rng: &mut R,
    values: impl Iterator<Item = T>,
    convert: impl Fn(T) -> Option<Prim>,
) -> Option<Prim> {
    let fitting: Vec<Prim> = values.filter_map(convert).collect();
    pick(rng, &fitting).cloned()
}

/// A value of type `ty` among harvested constants.
fn pick_constant<R: Rng + ?Sized>(c: &Constants, ty: &FieldType, rng: &mut R) -> Option<Prim> {
    match ty {
        FieldType::Int => pick(rng, &c.ints).map(|&i| Prim::Int(i)),
        FieldType::Byte => pick_fitting(rng, c.ints.iter().copied(), |i| {
            i8::try_from(i).ok().map(Prim::Byte)
        }),
        FieldType::Short => pick_fitting(rng, c.ints.iter().copied(), |i| {
            i16::try_from(i).ok().map(Prim::Short)
        }),
        FieldType::Char => pick_fitting(rng, c.ints.iter().copied(), |i| {
            u16::try_from(i).ok().map(Prim::Char)
        }),
        FieldType::Long => pick_fitting(
            rng,
            c.longs
                .iter()
                .copied()
                .chain(c.ints.iter().map(|&i| i64::from(i))),
            |l| Some(Prim::Long(l)),
        ),
        FieldType::Float => pick(rng, &c.floats).map(|&f| Prim::Float(f)),
        FieldType::Double => pick(rng, &c.doubles).map(|&d| Prim::Double(d)),
        FieldType::Object(n) if n == STRING => {
            pick(rng, &c.strings).map(|s| Prim::String(s.clone()))
        }
        _ => None,
    }
}

/// Where seeds come from: the constants harvested from the class under test (fixed for a run)
/// and the values observed while executing tests (growing during the search).
#[derive(Debug, Clone, Default)]
pub struct Seeds {
    /// Constants harvested from the class under test (and its nested classes).
    pub constants: Constants,
    /// Values observed at run time.
    pub observed: ObservedPool,
}

impl Seeds {
    /// Seeds of `constants` and an empty observed pool of `capacity` values per kind.
    #[must_use]
    pub fn new(constants: Constants, capacity: usize) -> Self {
        Seeds {
            constants,
            observed: ObservedPool::new(capacity),
        }
    }

    /// A seed of type `ty`: from the observed pool with probability `observed_share`, else from
    /// the constants, falling back to the other source; `None` when neither has the kind.
    pub fn seed<R: Rng + ?Sized>(
        &self,
        ty: &FieldType,
        observed_share: f64,
        rng: &mut R,
    ) -> Option<Prim> {
        if chance(rng, observed_share) {
            self.observed
                .pick(ty, rng)
                .or_else(|| pick_constant(&self.constants, ty, rng))
        } else {
            pick_constant(&self.constants, ty, rng).or_else(|| self.observed.pick(ty, rng))
        }
    }
}

/// Whether [`random_prim`] makes values of `ty` (primitives and `String`).
#[must_use]
pub fn is_constant_type(ty: &FieldType) -> bool {
    match ty {
        FieldType::Object(n) => n == STRING,
        FieldType::Array(_) => false,
        _ => true,
    }
}

/// A printable ASCII character (`' '` … `'~'`).
pub fn random_char<R: Rng + ?Sized>(rng: &mut R) -> char {
    char::from(int_in(rng, 0x20, 0x7e) as u8)
}

/// A string of printable ASCII with a length uniform in \[0, `max_len`\).
pub fn random_string<R: Rng + ?Sized>(rng: &mut R, max_len: usize) -> String {
    let len = index(rng, max_len);
    (0..len).map(|_| random_char(rng)).collect()
}

/// `x` rounded (half to even) to `digits` decimal places; unchanged when not finite or when
/// already integral at that scale.
#[must_use]
pub fn round_decimals(x: f64, digits: u32) -> f64 {
    if !x.is_finite() {
        return x;
    }
    let scale = 10f64.powi(digits.min(300) as i32);
    let y = x * scale;
    if !y.is_finite() || y.abs() >= 9_007_199_254_740_992.0 {
        return x;
    }
    y.round_ties_even() / scale
}

/// A new value of `ty` (a primitive or `String`; `None` for other types): a seed with
/// probability [`Config::seed_probability`], else random (see the [module
/// documentation](self)).
pub fn random_prim<R: Rng + ?Sized>(
    ty: &FieldType,
    seeds: &Seeds,
    config: &Config,
    rng: &mut R,
) -> Option<Prim> {
    if !is_constant_type(ty) {
        return None;
    }
    if *ty != FieldType::Boolean && chance(rng, config.seed_probability) {
        if let Some(p) = seeds.seed(ty, config.observed_share, rng) {
            return Some(p);
        }
    }
    let m = config.max_int.max(0);
    let precision = |rng: &mut R| int_in(rng, 0, i64::from(config.max_float_precision)) as u32;
    Some(match ty {
        FieldType::Boolean => Prim::Boolean(chance(rng, 0.5)),
        FieldType::Byte => Prim::Byte(int_in(rng, -128, 127) as i8),
        FieldType::Char => Prim::Char(random_char(rng) as u16),
        FieldType::Short => Prim::Short(int_in(rng, (-m).max(-32_768), m.min(32_767)) as i16),
        FieldType::Int => Prim::Int(int_in(
            rng,
            (-m).max(i64::from(i32::MIN)),
            m.min(i64::from(i32::MAX)),
        ) as i32),
        FieldType::Long => Prim::Long(int_in(rng, -m, m)),
        FieldType::Float => {
            let x = float_in(rng, -(m as f64), m as f64);
            let d = precision(rng);
            Prim::Float(JFloat(round_decimals(x, d) as f32))
        }
        FieldType::Double => {
            let x = float_in(rng, -(m as f64), m as f64);
            let d = precision(rng);
            Prim::Double(JDouble(round_decimals(x, d)))
        }
        _ => Prim::String(random_string(rng, config.max_string_length)),
    })
}

/// A step δ with 1 ≤ |δ| ≤ Δ.
fn step<R: Rng + ?Sized>(rng: &mut R, max_delta: i64) -> i64 {
    let d = int_in(rng, 1, max_delta.max(1));
    if chance(rng, 0.5) { d } else { -d }
}

/// The next `f64` of larger magnitude than `x` (the smallest subnormal for a zero), for a change
/// that must not be lost to rounding.
fn nudge64(x: f64) -> f64 {
    if x.to_bits() << 1 == 0 {
        f64::from_bits(1)
    } else {
        f64::from_bits(x.to_bits() + 1)
    }
}

/// [`nudge64`] for `f32`.
fn nudge32(x: f32) -> f32 {
    if x.to_bits() << 1 == 0 {
        f32::from_bits(1)
    } else {
        f32::from_bits(x.to_bits() + 1)
    }
}

/// Which floating-point step: add up to Δ, add up to 1, or round.
fn float_step<R: Rng + ?Sized>(rng: &mut R, config: &Config) -> FloatStep {
    let delta = config.max_delta.max(1) as f64;
    match index(rng, 3) {
        0 => FloatStep::Add(float_in(rng, -delta, delta)),
        1 => FloatStep::Add(float_in(rng, -1.0, 1.0)),
        _ => FloatStep::Round(int_in(rng, 0, i64::from(config.max_float_precision)) as u32),
    }
}

enum FloatStep {
    Add(f64),
    Round(u32),
}

/// Changes a primitive or string value (the paper's *change* of a primitive statement; see
/// the [module documentation](self)). The value always ends different.
pub fn mutate_prim<R: Rng + ?Sized>(value: &mut Prim, seeds: &Seeds, config: &Config, rng: &mut R) {
    let ty = value.field_type();
    if chance(rng, config.random_perturbation) {
        if let Some(new) = random_prim(&ty, seeds, config, rng) {
            if new != *value {
                *value = new;
                return;
            }
        }
    }
    let delta = config.max_delta.max(1);
    match value {
        Prim::Boolean(b) => *b = !*b,
        // `as` truncates to the type's width: Java's wrapping arithmetic.
        Prim::Byte(b) => *b = (i64::from(*b) + step(rng, delta.min(255))) as i8,
        Prim::Short(s) => *s = (i64::from(*s) + step(rng, delta.min(65_535))) as i16,
        Prim::Char(c) => *c = (i64::from(*c) + step(rng, delta.min(65_535))) as u16,
        Prim::Int(i) => {
            *i = (i64::from(*i) + step(rng, delta.min(i64::from(u32::MAX)))) as i32;
        }
        Prim::Long(l) => *l = l.wrapping_add(step(rng, delta)),
        Prim::Float(JFloat(f)) => {
            let old = *f;
            *f = if old.is_finite() {
                match float_step(rng, config) {
                    FloatStep::Add(d) => old + d as f32,
                    FloatStep::Round(digits) => round_decimals(f64::from(old), digits) as f32,
                }
            } else {
                float_in(rng, -(config.max_int as f64), config.max_int as f64) as f32
            };
            if f.to_bits() == old.to_bits() {
                *f = nudge32(old);
            }
        }
        Prim::Double(JDouble(d)) => {
            let old = *d;
            *d = if old.is_finite() {
                match float_step(rng, config) {
                    FloatStep::Add(x) => old + x,
                    FloatStep::Round(digits) => round_decimals(old, digits),
                }
            } else {
                float_in(rng, -(config.max_int as f64), config.max_int as f64)
            };
            if d.to_bits() == old.to_bits() {
                *d = nudge64(old);
            }
        }
        Prim::String(s) => *s = mutate_string(s, config, rng),
    }
}

/// A changed copy of `s`: delete, replace and insert steps, each with probability 1/3, the
/// first two touching each character with probability 1/n (see the [module
/// documentation](self)). The result always differs from `s`.
pub fn mutate_string<R: Rng + ?Sized>(s: &str, config: &Config, rng: &mut R) -> String {
    let original: Vec<char> = s.chars().collect();
    let mut chars = original.clone();
    for _ in 0..4 {
        if chance(rng, 1.0 / 3.0) && !chars.is_empty() {
            let p = 1.0 / chars.len() as f64;
            for i in (0..chars.len()).rev() {
                if chance(rng, p) {
                    chars.remove(i);
                }
            }
        }
        if chance(rng, 1.0 / 3.0) && !chars.is_empty() {
            let p = 1.0 / chars.len() as f64;
            for c in &mut chars {
                if chance(rng, p) {
                    *c = random_char(rng);
                }
            }
        }
        if chance(rng, 1.0 / 3.0) {
            let pos = index(rng, chars.len() + 1);
            let room = config.max_string_length.saturating_sub(chars.len());
            let n = geometric_count(rng, config.string_insertion_probability, room);
            for _ in 0..n {
                chars.insert(pos, random_char(rng));
            }
        }
        if chars != original {
            return chars.into_iter().collect();
        }
    }
    // Still unchanged: replace one character by a different one, or add one.
    if chars.is_empty() {
        chars.push(random_char(rng));
    } else {
        let i = index(rng, chars.len());
        let mut c = random_char(rng);
        if c == chars[i] {
            c = if c == '~' {
                ' '
            } else {
                char::from(c as u8 + 1)
            };
        }
        chars[i] = c;
    }
    chars.into_iter().collect()
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::panic, clippy::float_cmp)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use rand_chacha::ChaCha8Rng;
    use rand_chacha::rand_core::SeedableRng;

    fn no_perturbation() -> Config {
        Config {
            random_perturbation: 0.0,
            ..Config::default()
        }
    }

    #[test]
    fn integer_steps_stay_within_delta_and_wrap() {
        let c = no_perturbation();
        let s = Seeds::default();
        let mut rng = ChaCha8Rng::seed_from_u64(9);
        for _ in 0..500 {
            let mut p = Prim::Int(100);
            mutate_prim(&mut p, &s, &c, &mut rng);
            let Prim::Int(v) = p else { panic!() };
            assert!((80..=120).contains(&v) && v != 100, "{v}");
        }
        let mut wrapped = false;
        for _ in 0..200 {
            let mut p = Prim::Int(i32::MAX);
            mutate_prim(&mut p, &s, &c, &mut rng);
            let Prim::Int(v) = p else { panic!() };
            wrapped |= v < 0;
            assert!(!(i32::MIN + 20..i32::MAX - 20).contains(&v));
        }
        assert!(wrapped, "adding to Integer.MAX_VALUE wraps like Java");
        let mut p = Prim::Char(0);
        for _ in 0..50 {
            mutate_prim(&mut p, &s, &c, &mut rng);
        }
        let mut b = Prim::Boolean(true);
        mutate_prim(&mut b, &s, &c, &mut rng);
        assert_eq!(b, Prim::Boolean(false));
    }

    #[test]
    fn floats_step_round_and_never_stay_equal() {
        let c = no_perturbation();
        let s = Seeds::default();
        let mut rng = ChaCha8Rng::seed_from_u64(10);
        let mut rounded = false;
        for _ in 0..300 {
            let mut p = Prim::Double(JDouble(5.123_456_789));
            mutate_prim(&mut p, &s, &c, &mut rng);
            let Prim::Double(JDouble(d)) = p else {
                panic!()
            };
            assert!(d != 5.123_456_789 && (d - 5.1).abs() <= 21.0, "{d}");
            let text = format!("{d}");
            rounded |= text.len() <= 8 && text.starts_with('5');
        }
        assert!(rounded, "precision rounding happens");
        for special in [f32::NAN, f32::INFINITY, f32::MAX, 0.0, -0.0, 1e-45] {
            let mut p = Prim::Float(JFloat(special));
            mutate_prim(&mut p, &s, &c, &mut rng);
            let Prim::Float(JFloat(f)) = p else { panic!() };
            assert_ne!(f.to_bits(), special.to_bits(), "{special}");
        }
        let mut p = Prim::Double(JDouble(1e300));
        mutate_prim(&mut p, &s, &c, &mut rng);
        assert_ne!(p, Prim::Double(JDouble(1e300)));
        assert_eq!(round_decimals(2.5, 0), 2.0);
        assert_eq!(round_decimals(1.23456, 2), 1.23);
        assert!(round_decimals(f64::NAN, 2).is_nan());
    }

    #[test]
    fn seeds_come_from_constants_and_the_observed_pool() {
        let constants = Constants {
            ints: vec![424_242, 7],
            strings: vec!["magic".into()],
            ..Constants::default()
        };
        let mut seeds = Seeds::new(constants, 10);
        seeds.observed.add_string("seen");
        let c = Config {
            seed_probability: 1.0,
            ..Config::default()
        };
        let mut rng = ChaCha8Rng::seed_from_u64(11);
        let mut strings = HashSet::new();
        for _ in 0..100 {
            let Some(Prim::String(s)) =
                random_prim(&FieldType::Object(STRING.into()), &seeds, &c, &mut rng)
            else {
                panic!()
            };
            strings.insert(s);
        }
        assert_eq!(strings.len(), 2, "{strings:?}");
        // A byte takes only int constants that fit.
        for _ in 0..50 {
            assert_eq!(
                random_prim(&FieldType::Byte, &seeds, &c, &mut rng),
                Some(Prim::Byte(7))
            );
        }
        // Without seeds of the kind, random values.
        assert!(matches!(
            random_prim(&FieldType::Double, &seeds, &c, &mut rng),
            Some(Prim::Double(_))
        ));
        assert_eq!(
            random_prim(&FieldType::Object("A".into()), &seeds, &c, &mut rng),
            None
        );
    }

    #[test]
    fn observed_pool_is_bounded_and_ordered() {
        let mut pool = ObservedPool::new(3);
        for i in 0..10 {
            pool.add(&Prim::Int(i));
        }
        pool.add(&Prim::Boolean(true));
        pool.add(&Prim::String("x".repeat(MAX_OBSERVED_STRING + 1)));
        assert_eq!(pool.ints(), vec![7, 8, 9]);
        assert!(pool.strings().is_empty());
        assert_eq!(pool.len(), 3);
        assert!(ObservedPool::new(0).is_empty());
    }

    fn any_prim() -> impl Strategy<Value = Prim> {
        prop_oneof![
            any::<bool>().prop_map(Prim::Boolean),
            any::<i8>().prop_map(Prim::Byte),
            any::<u16>().prop_map(Prim::Char),
            any::<i16>().prop_map(Prim::Short),
            any::<i32>().prop_map(Prim::Int),
            any::<i64>().prop_map(Prim::Long),
            any::<u32>().prop_map(|b| Prim::Float(JFloat(f32::from_bits(b)))),
            any::<u64>().prop_map(|b| Prim::Double(JDouble(f64::from_bits(b)))),
            "\\PC{0,30}".prop_map(Prim::String),
        ]
    }

    proptest! {
        #[test]
        fn mutation_changes_the_value_and_keeps_its_type(p in any_prim(), seed in any::<u64>()) {
            let mut rng = ChaCha8Rng::seed_from_u64(seed);
            let c = Config::default();
            let mut seeds = Seeds::default();
            seeds.constants.ints = vec![1, 2, 3];
            let mut q = p.clone();
            mutate_prim(&mut q, &seeds, &c, &mut rng);
            prop_assert_ne!(&q, &p);
            prop_assert_eq!(q.field_type(), p.field_type());
        }

        #[test]
        fn string_mutation_is_a_small_edit(s in "[a-z]{0,15}", seed in any::<u64>()) {
            let mut rng = ChaCha8Rng::seed_from_u64(seed);
            let c = Config::default();
            let t = mutate_string(&s, &c, &mut rng);
            prop_assert_ne!(&t, &s);
            prop_assert!(t.chars().count() <= s.chars().count().max(c.max_string_length) + 1);
        }

        #[test]
        fn random_values_respect_their_ranges(seed in any::<u64>()) {
            let mut rng = ChaCha8Rng::seed_from_u64(seed);
            let c = Config::default();
            let s = Seeds::default();
            for ty in [FieldType::Int, FieldType::Short, FieldType::Long, FieldType::Char,
                       FieldType::Float, FieldType::Double, FieldType::Object(STRING.into())] {
                match random_prim(&ty, &s, &c, &mut rng).unwrap() {
                    Prim::Int(i) => prop_assert!(i.abs() <= 2048),
                    Prim::Short(i) => prop_assert!(i.abs() <= 2048),
                    Prim::Long(i) => prop_assert!(i.abs() <= 2048),
                    Prim::Char(ch) => prop_assert!((0x20..=0x7e).contains(&ch)),
                    Prim::Float(JFloat(f)) => prop_assert!(f.abs() <= 2048.0),
                    Prim::Double(JDouble(d)) => prop_assert!(d.abs() <= 2048.0),
                    Prim::String(st) => prop_assert!(st.len() < 20),
                    other => prop_assert!(false, "{other:?}"),
                }
            }
        }
    }
}
