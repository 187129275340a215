//! What executing a test yields: per-statement outcomes, observations for assertions, probe
//! data, and how the test ended.

use ferrosuite_testcase::statement::{JDouble, MockCalls, Prim};
use serde::{Deserialize, Serialize};

/// How a test ended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum Status {
    /// Every statement ran (some may have thrown: see the outcomes).
    Completed,
    /// A statement threw, so the statements after it did not run (`executed` says how many
    /// did).
    Stopped,
    /// The test was aborted: the loop limit was exceeded or the watchdog set the abort flag
    /// and the test stopped cooperatively.
    Aborted(String),
    /// The test used more memory than a test of the search may: it allocated past the host's
    /// allocation limit or ran out of memory (the outcomes say what ran). Only runs without
    /// observation (the search's) end so; the search neither keeps nor breeds from the test.
    Exhausted(String),
    /// The test did not finish within the time limit even after interruption; the worker was
    /// killed and replaced.
    Timeout,
    /// The worker died while running the test (a crash, `halt` through reflection, an
    /// out-of-memory kill); it was replaced.
    Crashed(String),
    /// A statement referred to a class, method or field that does not exist, or passed a
    /// value of the wrong class: the test itself is wrong.
    Invalid(String),
}

impl Status {
    /// Whether the worker was lost while running the test.
    #[must_use]
    pub fn lost_worker(&self) -> bool {
        matches!(self, Status::Timeout | Status::Crashed(_))
    }

    /// Whether the search drops the test's run: the worker was lost, or the test exhausted
    /// memory. What it covered does not count, and it is no parent: a test that costs a
    /// time-out, a JVM start or hundreds of megabytes each time it runs would pass the cost
    /// on to its offspring.
    #[must_use]
    pub fn dropped(&self) -> bool {
        self.lost_worker() || matches!(self, Status::Exhausted(_))
    }
}

/// How one executed statement ended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum Outcome {
    /// Returned normally.
    Normal,
    /// Threw an exception or error.
    Threw(Thrown),
}

/// A throwable escaping a statement.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Thrown {
    /// Binary class name (`java.lang.IllegalArgumentException`).
    pub class: String,
    /// `getMessage()`, if not null.
    pub message: Option<String>,
    /// What kind of throwable it is for the search.
    pub kind: ThrowKind,
    /// Binary names of the classes of the stack frames it was thrown through, innermost first
    /// (a repeated class once in a row, at most [`MAX_FRAMES`]); empty when the test's own
    /// statement threw it (a call on `null`, a failed cast, an array index out of range).
    #[serde(default)]
    pub frames: Vec<String>,
}

/// The most frames a [`Thrown`] lists.
pub const MAX_FRAMES: usize = 32;

impl Thrown {
    /// Whether the throwable passed through a frame of `class` (a binary name) or one of its
    /// nested classes: the code under test threw it, or something it called did.
    #[must_use]
    pub fn through(&self, class: &str) -> bool {
        self.frames.iter().any(|f| {
            f == class
                || f.strip_prefix(class)
                    .is_some_and(|rest| rest.starts_with('$'))
        })
    }
}

/// Kinds of throwables the host tells apart.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum ThrowKind {
    /// Thrown by the code under test (or the JDK on its behalf).
    Code,
    /// The sandbox refused an API (`System.exit`, a file write, a process, a socket); the
    /// string names the API.
    Sandbox(String),
    /// The probe runtime aborted the test (loop limit or watchdog).
    Abort,
    /// `StackOverflowError` or `OutOfMemoryError`: the worker is replaced after the test unless
    /// it recovers (see the worker module).
    Resource,
}

/// A value seen during execution, as far as assertions can use it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum Observed {
    /// `null`.
    Null,
    /// A `boolean`.
    Boolean(bool),
    /// A `char`.
    Char(u16),
    /// A `byte`, `short`, `int` or `long`.
    Integer(i64),
    /// A `float` or `double` (a float widened exactly).
    Floating(JDouble),
    /// A `String` (at most [`MAX_STRING`] UTF-16 units; longer ones are cut, with the
    /// flag set).
    String {
        /// The text.
        text: String,
        /// Whether it was cut.
        truncated: bool,
    },
    /// An enum constant.
    Enum {
        /// Binary name of the enum class.
        class: String,
        /// The constant.
        name: String,
    },
    /// A non-null object of another type, with its runtime class.
    Object {
        /// Binary name of the runtime class.
        class: String,
    },
    /// An array with its length, and its elements when they are values an assertion can
    /// write (see [`MAX_ARRAY_ELEMENTS`]).
    Array {
        /// Binary name of the runtime class (`[I`).
        class: String,
        /// Length.
        length: u32,
        /// The elements of an array of primitives or strings of at most
        /// [`MAX_ARRAY_ELEMENTS`] elements (`null` elements of a `String[]` as
        /// [`Observed::Null`]); `None` for other arrays.
        elements: Option<Vec<Observed>>,
    },
    /// A boxed primitive seen through a reference type other than its box (a method
    /// declared to return `Object`, `Number` or a type variable gave an `Integer`): the
    /// primitive type of the box (`I` for `Integer`) and the value, observed as that primitive
    /// is. Through a box type the value is observed plainly.
    Boxed {
        /// Descriptor character of the box's primitive type (`Z`, `B`, `C`, `S`, `I`, `J`,
        /// `F`, `D`).
        primitive: char,
        /// The value ([`Observed::Boolean`], [`Observed::Char`], [`Observed::Integer`] or
        /// [`Observed::Floating`]).
        value: Box<Observed>,
    },
}

/// Longest array whose elements are observed.
pub const MAX_ARRAY_ELEMENTS: usize = 32;

/// Longest string kept in an observation (UTF-16 units).
pub const MAX_STRING: usize = 4096;

/// What was observed after one statement (when observation is on).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Observation {
    /// The value the statement defined (none for void statements or when it threw).
    pub value: Option<Observed>,
    /// Inspector results on the value defined, by method name (`size`, `isEmpty`, `getX`).
    pub inspectors: Vec<(String, Observed)>,
    /// Inspector results on the receiver after a method call.
    pub receiver_inspectors: Vec<(String, Observed)>,
    /// What a call changed in its arguments, by argument position: an array's contents (the
    /// name `""`) and inspector results of other objects, each only when it differs from
    /// before the call (`reverse(array)`, `appendTo(builder)`).
    #[serde(default)]
    pub arguments: Vec<(u32, String, Observed)>,
    /// For a method call that returned an object the test already held: the statement that
    /// defined it, the receiver first, then the arguments in order (`sb.append(x)` returning
    /// `sb`, `requireNonNull(o)` returning `o`). Strings, boxes, enums and arrays are not
    /// compared.
    #[serde(default)]
    pub same: Option<u32>,
}

/// The probe data of one test: only what differs from the reset state.
///
/// In binary formats (the worker protocol) the four tables travel as packed little-endian
/// records (see [`packed`]); human-readable formats (JSON reports) keep them as lists of tuples.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ProbeSnapshot {
    /// Branch outcome slots that ran: (slot, times taken, smallest distance to taking it).
    #[serde(with = "packed")]
    pub branches: Vec<(u32, u32, f64)>,
    /// Line probes hit: (line id, hits).
    #[serde(with = "packed")]
    pub lines: Vec<(u32, u32)>,
    /// Methods entered: (method id, entries).
    #[serde(with = "packed")]
    pub methods: Vec<(u32, u32)>,
    /// Loop probes: (loop id, iterations).
    #[serde(with = "packed")]
    pub loops: Vec<(u32, u32)>,
    /// Class ids whose static fields were written (and were then reset).
    pub statics_written: Vec<u32>,
    /// Values the code under test compared: operands of `int` (also `byte`/`short`/`char`/
    /// `boolean`), `long`, `float`/`double` (as `Double`) and String comparisons, grouped by
    /// kind in that order, each kind in the order recorded; at most 32 `int`s, 8 `long`s, 8
    /// doubles and 16 distinct strings per test (strings of at most 256 UTF-16 units): seeds
    /// for later tests.
    pub compared: Vec<Prim>,
}

impl ProbeSnapshot {
    /// Hits and distance of a branch slot: `(0, +inf)` when its site never ran.
    #[must_use]
    pub fn branch(&self, slot: u32) -> (u32, f64) {
        match self.branches.binary_search_by_key(&slot, |b| b.0) {
            Ok(i) => (self.branches[i].1, self.branches[i].2),
            Err(_) => (0, f64::INFINITY),
        }
    }

    /// Whether line id `id` was hit.
    #[must_use]
    pub fn line_hit(&self, id: u32) -> bool {
        self.lines.binary_search_by_key(&id, |l| l.0).is_ok()
    }

    /// Whether method id `id` was entered.
    #[must_use]
    pub fn method_hit(&self, id: u32) -> bool {
        self.methods.binary_search_by_key(&id, |l| l.0).is_ok()
    }
}

pub mod packed {
    //! Probe tables as packed records in binary formats.
    //!
    //! A test's snapshot holds dozens of `(slot, hits, distance)` and `(id, count)` records;
    //! as a serde sequence of tuples every field is visited (and varint-coded) on its own, which
    //! made decoding results a visible part of the master's time. In a binary format a table
    //! is one byte string of fixed-size little-endian records instead, decoded with
    //! `chunks_exact`:
    //!
    //! ```text
    //! [(3, 1), (7, 2)]  →  bytes 03 00 00 00 01 00 00 00 07 00 00 00 02 00 00 00
    //! ```
    //!
    //! Human-readable formats (JSON) keep the list of tuples.

    use std::fmt;
    use std::marker::PhantomData;

    use serde::de::{self, SeqAccess, Visitor};
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    /// A record of a packed table.
    pub trait Record: Sized + Copy {
        /// Bytes per record.
        const SIZE: usize;
        /// Appends the record's bytes.
        fn put(self, out: &mut Vec<u8>);
        /// Reads a record from exactly [`Record::SIZE`] bytes.
        fn get(b: &[u8]) -> Self;
    }

    // The record functions are `#[inline]`: the protocol decodes tables in another crate
    // (the host's), which would otherwise call them once per record.
    #[inline]
    fn u32_at(b: &[u8], at: usize) -> u32 {
        let mut w = [0; 4];
        w.copy_from_slice(&b[at..at + 4]);
        u32::from_le_bytes(w)
    }

    impl Record for (u32, u32) {
        const SIZE: usize = 8;
        #[inline]
        fn put(self, out: &mut Vec<u8>) {
            out.extend_from_slice(&self.0.to_le_bytes());
            out.extend_from_slice(&self.1.to_le_bytes());
        }
        #[inline]
        fn get(b: &[u8]) -> Self {
            (u32_at(b, 0), u32_at(b, 4))
        }
    }

    impl Record for (u32, u32, f64) {
        const SIZE: usize = 16;
        #[inline]
        fn put(self, out: &mut Vec<u8>) {
            out.extend_from_slice(&self.0.to_le_bytes());
            out.extend_from_slice(&self.1.to_le_bytes());
            out.extend_from_slice(&self.2.to_le_bytes());
        }
        #[inline]
        fn get(b: &[u8]) -> Self {
            let mut d = [0; 8];
            d.copy_from_slice(&b[8..16]);
            (u32_at(b, 0), u32_at(b, 4), f64::from_le_bytes(d))
        }
    }

    /// Serialises a table: packed bytes, or a sequence of tuples in a human-readable format.
    pub fn serialize<T, S>(v: &[T], s: S) -> Result<S::Ok, S::Error>
    where
        T: Record + Serialize,
        S: Serializer,
    {
        if s.is_human_readable() {
            return v.serialize(s);
        }
        let mut bytes = Vec::with_capacity(v.len() * T::SIZE);
        for r in v {
            r.put(&mut bytes);
        }
        s.serialize_bytes(&bytes)
    }

    /// Deserialises what [`serialize`] wrote.
    pub fn deserialize<'de, T, D>(d: D) -> Result<Vec<T>, D::Error>
    where
        T: Record + Deserialize<'de>,
        D: Deserializer<'de>,
    {
        if d.is_human_readable() {
            return Vec::<T>::deserialize(d);
        }
        d.deserialize_bytes(Packed(PhantomData))
    }

    struct Packed<T>(PhantomData<T>);

    impl<'de, T: Record + Deserialize<'de>> Visitor<'de> for Packed<T> {
        type Value = Vec<T>;

        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            write!(f, "a byte string of {}-byte records", T::SIZE)
        }

        fn visit_bytes<E: de::Error>(self, b: &[u8]) -> Result<Vec<T>, E> {
            if b.len() % T::SIZE != 0 {
                return Err(E::invalid_length(b.len(), &self));
            }
            Ok(b.chunks_exact(T::SIZE).map(T::get).collect())
        }

        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<T>, A::Error> {
            let mut out = Vec::new();
            while let Some(r) = seq.next_element()? {
                out.push(r);
            }
            Ok(out)
        }
    }
}

/// The resources of the controlled environment a test used: they decide which environment
/// statements the search may add (a file is created only for code that looks for files).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Resources {
    /// The first paths the code asked the virtual file system for, as it spelled them (at
    /// most 8); empty when it used no file.
    pub files: Vec<String>,
    /// Whether the code read the console (`System.in`).
    pub console: bool,
    /// Whether the code read the virtual clock.
    pub clock: bool,
    /// Whether the code drew a seed.
    pub random: bool,
}

impl Resources {
    /// Adds what `other` used: files not yet listed (up to `max_files` in all), and the flags.
    pub fn merge(&mut self, other: &Resources, max_files: usize) {
        for f in &other.files {
            if self.files.len() < max_files && !self.files.contains(f) {
                self.files.push(f.clone());
            }
        }
        self.console |= other.console;
        self.clock |= other.clock;
        self.random |= other.random;
    }
}

/// Everything one execution of a test yields.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TestResult {
    /// How the test ended.
    pub status: Status,
    /// One outcome per executed statement.
    pub outcomes: Vec<Outcome>,
    /// One observation per executed statement (empty unless observation was asked for).
    pub observations: Vec<Observation>,
    /// Number of statements executed (including one that threw); a test of the search that
    /// allocated past the host's limit is charged all its statements, wherever it was stopped.
    pub executed: u32,
    /// Probe data.
    pub probes: ProbeSnapshot,
    /// Names of the threads the test started that were still alive after the abort flag, an
    /// interrupt and a grace period (the worker is replaced after such a test).
    pub leaked_threads: Vec<String>,
    /// Classes whose statics were reset after the test (binary names, in reset order).
    pub reset_classes: Vec<String>,
    /// The calls each mock of the test got, by mock statement (only mocks that were made).
    #[serde(default)]
    pub mock_calls: Vec<MockCalls>,
    /// Whether the code under test (or a statement) read the controlled environment's
    /// virtual clock or seeded randomness (always false without it).
    #[serde(default)]
    pub reads_environment: bool,
    /// The files and console the test used in the controlled environment.
    #[serde(default)]
    pub resources: Resources,
    /// In a mutation analysis, the mutation sites the test reached (each site's first mutant
    /// id, in the order first reached); empty otherwise.
    #[serde(default)]
    pub reached_sites: Vec<u32>,
    /// Wall time of the test in the worker, in microseconds (not deterministic; not part of
    /// any comparison).
    pub micros: u64,
}

impl TestResult {
    /// A result for a test that never ran to completion because the worker was lost.
    #[must_use]
    pub fn lost(status: Status) -> Self {
        TestResult {
            status,
            outcomes: Vec::new(),
            observations: Vec::new(),
            executed: 0,
            probes: ProbeSnapshot::default(),
            leaked_threads: Vec::new(),
            reset_classes: Vec::new(),
            mock_calls: Vec::new(),
            reads_environment: false,
            resources: Resources::default(),
            reached_sites: Vec::new(),
            micros: 0,
        }
    }

    /// The first exception a statement threw, with the statement index.
    #[must_use]
    pub fn first_exception(&self) -> Option<(usize, &Thrown)> {
        self.outcomes.iter().enumerate().find_map(|(i, o)| match o {
            Outcome::Threw(t) => Some((i, t)),
            Outcome::Normal => None,
        })
    }

    /// Everything except the timing: what determinism compares.
    #[must_use]
    pub fn without_timing(&self) -> TestResult {
        TestResult {
            micros: 0,
            ..self.clone()
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn snapshot(
        branches: Vec<(u32, u32, f64)>,
        pairs: Vec<(u32, u32)>,
        statics: Vec<u32>,
    ) -> ProbeSnapshot {
        ProbeSnapshot {
            branches,
            lines: pairs.clone(),
            methods: pairs.iter().rev().copied().collect(),
            loops: pairs.into_iter().take(3).collect(),
            statics_written: statics,
            compared: vec![Prim::Int(7), Prim::String("x".into())],
        }
    }

    #[test]
    fn a_throwable_passes_through_a_class_or_its_nested_classes_only() {
        let t = Thrown {
            class: "java.lang.NullPointerException".into(),
            message: None,
            kind: ThrowKind::Code,
            frames: vec!["java.lang.String".into(), "p.Shelf$Row".into()],
        };
        assert!(t.through("p.Shelf"));
        assert!(t.through("java.lang.String"));
        assert!(!t.through("p.She"));
        assert!(!t.through("p.Shelf$Row$Cell"));
        let own = Thrown {
            frames: Vec::new(),
            ..t
        };
        assert!(!own.through("p.Shelf"));
    }

    #[test]
    fn tables_travel_packed_in_postcard_and_as_tuples_in_json() {
        let s = snapshot(
            vec![(3, 1, 0.0), (4, 0, 2.5)],
            vec![(3, 1), (7, 2)],
            vec![1],
        );
        let bytes = postcard::to_allocvec(&s).unwrap();
        // The branch table: a length (32) and two 16-byte records.
        let table = [
            [3u8, 0, 0, 0, 1, 0, 0, 0].as_slice(),
            &0.0f64.to_le_bytes(),
            &[4, 0, 0, 0, 0, 0, 0, 0],
            &2.5f64.to_le_bytes(),
        ]
        .concat();
        assert_eq!(bytes[0], 32);
        assert_eq!(&bytes[1..33], table.as_slice());
        assert_eq!(postcard::from_bytes::<ProbeSnapshot>(&bytes).unwrap(), s);
        let json = serde_json::to_value(&s).unwrap();
        assert_eq!(json["lines"], serde_json::json!([[3, 1], [7, 2]]));
        assert_eq!(serde_json::from_value::<ProbeSnapshot>(json).unwrap(), s);
    }

    #[test]
    fn a_table_cut_inside_a_record_is_an_error() {
        let s = snapshot(Vec::new(), vec![(3, 1)], Vec::new());
        let mut bytes = postcard::to_allocvec(&s).unwrap();
        // branches: empty (length 0); lines: length 8, then 8 bytes. Announce 7 instead.
        assert_eq!(&bytes[..2], &[0, 8]);
        bytes[1] = 7;
        bytes.remove(2);
        let e = postcard::from_bytes::<ProbeSnapshot>(&bytes).unwrap_err();
        assert!(!e.to_string().is_empty());
    }

    proptest! {
        #[test]
        fn snapshots_round_trip_through_the_protocol_format(
            branches in prop::collection::vec((any::<u32>(), any::<u32>(), any::<f64>()), 0..40),
            pairs in prop::collection::vec((any::<u32>(), any::<u32>()), 0..40),
            statics in prop::collection::vec(any::<u32>(), 0..5),
        ) {
            let s = snapshot(branches, pairs, statics);
            let back: ProbeSnapshot =
                postcard::from_bytes(&postcard::to_allocvec(&s).unwrap()).unwrap();
            // Bit-exact (NaN distances included), so compare the encodings.
            let (again, first) =
                (postcard::to_allocvec(&back).unwrap(), postcard::to_allocvec(&s).unwrap());
            prop_assert_eq!(again, first);
            prop_assert_eq!(back.branches.len(), s.branches.len());
        }
    }
}
