//! The recorded run's data model: values, calls with their interactions and the environment
//! they read, and the end-of-run
//! counts, as the recorder writes them and the store keeps them (as JSON).
//!
//! ```
//! use ferrosuite_carve::model::{Value, base64};
//! let v = Value::Int { v: 42 };
//! assert_eq!(serde_json::to_string(&v).unwrap(), r#"{"t":"int","v":42}"#);
//! assert_eq!(base64(b"ferro"), "ZmVycm8=");
//! ```

use serde::{Deserialize, Serialize};

/// A recorded value. Arrays and objects carry a number `r` local to their call record: the
/// same object met again in the same snapshot is a [`Value::BackRef`] (but for one the limits cut
/// to a [`Value::Ref`], which is written again, in full where the limits allow), and the
/// receiver's state after the call reuses the numbers of the state before.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "t", rename_all = "snake_case")]
pub enum Value {
    /// `null`.
    Null,
    /// No value (a `void` method's result).
    Void,
    /// `boolean`.
    Boolean {
        /// The value.
        v: bool,
    },
    /// `byte`.
    Byte {
        /// The value.
        v: i8,
    },
    /// `char` (a UTF-16 unit).
    Char {
        /// The value.
        v: u16,
    },
    /// `short`.
    Short {
        /// The value.
        v: i16,
    },
    /// `int`.
    Int {
        /// The value.
        v: i32,
    },
    /// `long`.
    Long {
        /// The value.
        v: i64,
    },
    /// `float`, by its bits (NaNs and infinities included).
    Float {
        /// `Float.floatToRawIntBits`.
        bits: u32,
    },
    /// `double`, by its bits.
    Double {
        /// `Double.doubleToRawLongBits`.
        bits: u64,
    },
    /// A string.
    String {
        /// The value (cut at the recording's string limit; the record says when).
        v: String,
    },
    /// An enum constant.
    Enum {
        /// Binary name of the enum class.
        class: String,
        /// The constant's name.
        name: String,
    },
    /// A class literal.
    Class {
        /// `Class.getName()`.
        name: String,
    },
    /// An array.
    Array {
        /// Number within the record.
        r: u32,
        /// `Class.getName()` of the component type.
        component: String,
        /// The array's length.
        length: u32,
        /// The first elements (all, unless the array is longer than the limit).
        items: Vec<Value>,
    },
    /// An object of the program (or a JDK object reflection can read), by its fields.
    Object {
        /// Number within the record.
        r: u32,
        /// Binary name of its class.
        class: String,
        /// The recorder's identity: the id of the recorded constructor call that built it,
        /// a negative number when the construction was not recorded, 0 for classes without
        /// probes.
        id: i64,
        /// Instance fields, the class's first, then its superclasses'.
        fields: Vec<FieldValue>,
        /// Some fields could not be read.
        partial: bool,
    },
    /// An object met before in the same snapshot.
    BackRef {
        /// Its number.
        r: u32,
    },
    /// An object past the depth or size limit.
    Ref {
        /// Number within the record.
        r: u32,
        /// Binary name of its class.
        class: String,
        /// The recorder's identity (see [`Value::Object`]).
        id: i64,
    },
    /// A JDK value object by its text (`StringBuilder`, `BigDecimal`, `File`, `URI`, `Locale`,
    /// `UUID`, `Path`, `Pattern`, `Charset`; a `Date` by its milliseconds).
    Text {
        /// Number within the record.
        r: u32,
        /// Binary name of its class.
        class: String,
        /// `toString()` (or the milliseconds of a `Date`).
        text: String,
    },
    /// A JDK collection by its elements (in iteration order).
    Collection {
        /// Number within the record.
        r: u32,
        /// Binary name of its class.
        class: String,
        /// `size()`.
        size: u32,
        /// The first elements.
        items: Vec<Value>,
    },
    /// A JDK map by its entries (in iteration order).
    Map {
        /// Number within the record.
        r: u32,
        /// Binary name of its class.
        class: String,
        /// `size()`.
        size: u32,
        /// The first entries.
        entries: Vec<(Value, Value)>,
    },
    /// The receiver's state after a call that left it as it was before (only as
    /// [`CallRecord::after`]).
    Same,
    /// An object whose state could not be read.
    Opaque {
        /// Number within the record.
        r: u32,
        /// Binary name of its class.
        class: String,
        /// Why.
        reason: String,
    },
}

/// One field of a recorded object.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FieldValue {
    /// Binary name of the class that declares it, when not the object's class.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub declaring: Option<String>,
    /// Field name.
    pub name: String,
    /// Its value.
    pub value: Value,
}

/// A thrown exception.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Thrown {
    /// Binary name of its class.
    pub class: String,
    /// `getMessage()`, when not null.
    pub message: Option<String>,
}

/// How a call ended.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Outcome {
    /// It returned (a constructor or `void` method: [`Value::Null`]).
    Returned {
        /// The value.
        value: Value,
    },
    /// It threw.
    Threw {
        /// The exception.
        exception: Thrown,
    },
}

/// Something a recorded call did, in order.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Event {
    /// A call on a collaborator (an object of another class that came in through the receiver
    /// or the arguments, or from an earlier such call).
    Call {
        /// Call-target id (the store's `targets`).
        target: u32,
        /// The collaborator's number within the record.
        receiver: u32,
        /// The arguments (objects by reference only).
        args: Vec<Value>,
        /// How it ended; `None` when the recording lost it.
        outcome: Option<Outcome>,
    },
    /// A read of a static field of an included class.
    StaticRead {
        /// Field id (the store's `fields`).
        field: u32,
        /// The value read.
        value: Value,
    },
    /// The call's first reading of the clock.
    Clock {
        /// Milliseconds since the epoch.
        millis: i64,
    },
    /// A value `Math.random()` gave.
    RandomDouble {
        /// `Double.doubleToRawLongBits`.
        bits: u64,
    },
    /// The seed a `new Random()` took.
    RandomSeed {
        /// The seed.
        seed: i64,
    },
    /// A file or directory the call asked about or opened, as it was before the call asked.
    File {
        /// The path as the program gave it.
        path: String,
        /// Its state.
        state: FileState,
    },
    /// A file or directory the call asked about and changed: its state when the call ended.
    FileAfter {
        /// The path as the program gave it.
        path: String,
        /// Its state.
        state: FileState,
    },
    /// What the call read from the console (`System.in`).
    Console {
        /// The bytes.
        input: Content,
    },
}

/// A file's state as the recording saw it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "is", rename_all = "snake_case")]
pub enum FileState {
    /// Nothing there.
    Missing {
        /// The path's parent directory exists.
        parent_exists: bool,
    },
    /// A regular file.
    File {
        /// Its content.
        content: Content,
    },
    /// A directory.
    Directory {
        /// Its entries, sorted: name and whether it is a directory.
        entries: Vec<(String, bool)>,
    },
    /// Something a test cannot rebuild: unreadable, a device or pipe, past the file limit.
    Other,
}

/// Bytes: text when they are UTF-8, else base64.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Content {
    /// UTF-8 text.
    Text(String),
    /// Other bytes, in base64 (RFC 4648, with padding).
    Base64(String),
}

impl Content {
    /// The bytes as text or base64.
    #[must_use]
    pub fn of(bytes: Vec<u8>) -> Self {
        match String::from_utf8(bytes) {
            Ok(t) => Content::Text(t),
            Err(e) => Content::Base64(base64(e.as_bytes())),
        }
    }
}

/// RFC 4648 base64 with padding.
#[must_use]
pub fn base64(bytes: &[u8]) -> String {
    const ABC: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            *chunk.get(1).unwrap_or(&0),
            *chunk.get(2).unwrap_or(&0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for k in 0..4 {
            if k <= chunk.len() {
                out.push(char::from(ABC[((n >> (18 - 6 * k)) & 63) as usize]));
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// A method or constructor call.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CallKind {
    /// A method.
    Method,
    /// A constructor.
    Constructor,
}

/// One recorded call of a method of an included class.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CallRecord {
    /// Method or constructor.
    pub kind: CallKind,
    /// Method id (the store's `methods`).
    pub method: u32,
    /// The call's id, unique in the run, in the order calls started.
    pub id: u64,
    /// The id of the recorded call it was made in, 0 for none.
    pub parent: u64,
    /// The thread's id.
    pub thread: u64,
    /// The receiver before the call ([`Value::Null`] for static methods and constructors).
    pub receiver: Value,
    /// The receiver's identity (see [`Value::Object`]).
    pub receiver_id: i64,
    /// The arguments.
    pub args: Vec<Value>,
    /// Calls on collaborators, static reads and what the call read of the environment, in
    /// order.
    pub events: Vec<Event>,
    /// How it ended.
    pub outcome: Outcome,
    /// The receiver after the call (the built object, for a constructor; [`Value::Same`] when
    /// the receiver's state did not change).
    pub after: Value,
    /// Some value was cut by a limit (depth, size, string length) or could not be read, or
    /// some event by the event limit.
    pub truncated: bool,
    /// Some calls on collaborators or static reads were not recorded (the event limit): the
    /// interactions are incomplete.
    pub events_cut: bool,
}

/// Per-method counts at the end of the run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct MethodCounts {
    /// Method id.
    pub method: u32,
    /// Calls considered while the method was recorded.
    pub seen: u32,
    /// Calls recorded.
    pub recorded: u32,
    /// Calls skipped as repeats of a recorded call (same receiver state and arguments).
    pub repeats: u32,
}

/// The last record of a run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EndRecord {
    /// Counts of every method that was called.
    pub methods: Vec<MethodCounts>,
    /// Records dropped because the recording process fell behind.
    pub dropped: u64,
    /// Recorded calls that never ended (the constructor threw, or the thread was cut short).
    pub unfinished: u64,
}

/// A record of the recorder's stream.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum Record {
    /// A finished call.
    Call(Box<CallRecord>),
    /// The end of the run.
    End(EndRecord),
}
