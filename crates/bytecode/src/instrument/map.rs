//! The probe map: what each probe id written into instrumented code stands for.
//!
//! Instrumentation numbers probes densely and deterministically (classes in the order they are
//! instrumented, methods in class-file order, instructions in code order). The map is written as
//! JSON beside offline-instrumented classes and read back to interpret probe data.
//!
//! Branch outcomes are *slots*: a conditional jump at slot `s` has outcome `s` (the jump is
//! taken) and `s + 1` (it falls through); a switch with `n` keys at slot `s` has outcomes
//! `s .. s + n` for the keys in order and `s + n` for `default`.

use serde::{Deserialize, Serialize};

macro_rules! id_type {
    ($(#[$m:meta])* $name:ident) => {
        $(#[$m])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
        #[serde(transparent)]
        pub struct $name(pub u32);
        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                write!(f, "{}", self.0)
            }
        }
    };
}

id_type!(
    /// A branch-outcome slot in the runtime's distance and hit arrays.
    BranchSlot
);
id_type!(
    /// A source line of a class (one id per class and line number).
    LineId
);
id_type!(
    /// An instrumented method.
    MethodId
);
id_type!(
    /// A loop back edge.
    LoopId
);
id_type!(
    /// A class (for static-state tracking and reset).
    ClassId
);

/// The kind of a branch site.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum BranchKind {
    /// A conditional jump; outcomes: taken, not taken.
    Jump {
        /// Mnemonic (`ifeq`, `if_icmplt`, …).
        opcode: String,
    },
    /// A `tableswitch` or `lookupswitch`; outcomes: each key in order, then default.
    Switch {
        /// The case keys in order.
        keys: Vec<i32>,
    },
}

/// One outcome of a branch site.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Outcome {
    /// Its slot.
    pub slot: BranchSlot,
    /// `"taken"`, `"not taken"`, `"case 3"`, `"default"`.
    pub label: String,
    /// Original bytecode offset where control goes.
    pub target: u32,
}

/// A conditional jump or switch.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BranchSite {
    /// Original bytecode offset of the instruction.
    pub offset: u32,
    /// Source line, when known.
    pub line: Option<u16>,
    /// Kind.
    #[serde(flatten)]
    pub kind: BranchKind,
    /// Outcomes with their slots.
    pub outcomes: Vec<Outcome>,
}

/// A loop back edge probe.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LoopProbe {
    /// Its id.
    pub id: LoopId,
    /// Original offset of the backward jump.
    pub offset: u32,
}

/// Probes of one method.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MethodProbes {
    /// Method-entry probe id.
    pub id: MethodId,
    /// Name.
    pub name: String,
    /// Descriptor.
    pub descriptor: String,
    /// Access flags.
    pub access: u16,
    /// Branch sites.
    pub branches: Vec<BranchSite>,
    /// Lines with a line probe in this method.
    pub lines: Vec<u16>,
    /// Loop probes.
    pub loops: Vec<LoopProbe>,
    /// Why the method was left uninstrumented, if it was.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub skipped: Option<String>,
}

/// A line probe.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LineProbe {
    /// Its id.
    pub id: LineId,
    /// Source line.
    pub line: u16,
}

/// Probes of one class.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClassProbes {
    /// Class id (static-write tracking).
    pub id: ClassId,
    /// Internal name.
    pub name: String,
    /// `SourceFile`, when recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source_file: Option<String>,
    /// Methods with code.
    pub methods: Vec<MethodProbes>,
    /// Line probes of the class.
    pub lines: Vec<LineProbe>,
    /// Name of the added static-reset method, when one was added.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reset_method: Option<String>,
    /// Static fields made non-final so the reset method may assign them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub definalized: Vec<String>,
    /// Notes (why a reset method was not added, …).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
}

/// The probe map of one instrumentation run.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProbeMap {
    /// Format version.
    pub version: u32,
    /// Number of branch slots used.
    pub branch_slots: u32,
    /// Number of line ids used.
    pub line_ids: u32,
    /// Number of method ids used.
    pub method_ids: u32,
    /// Number of loop ids used.
    pub loop_ids: u32,
    /// Class ids, by name, in id order (includes classes only named by `putstatic`).
    pub class_ids: Vec<String>,
    /// Instrumented classes.
    pub classes: Vec<ClassProbes>,
}

impl ClassProbes {
    /// The id of each source line with a line probe.
    #[must_use]
    pub fn line_ids(&self) -> std::collections::HashMap<u16, u32> {
        self.lines.iter().map(|l| (l.line, l.id.0)).collect()
    }
}

impl ProbeMap {
    /// Current format version.
    pub const VERSION: u32 = 1;

    /// An empty map.
    #[must_use]
    pub fn new() -> Self {
        ProbeMap {
            version: Self::VERSION,
            ..Self::default()
        }
    }

    /// The id of a class name, assigned on first use.
    pub fn class_id(&mut self, name: &str) -> ClassId {
        if let Some(i) = self.class_ids.iter().position(|n| n == name) {
            return ClassId(i as u32);
        }
        self.class_ids.push(name.to_string());
        ClassId(self.class_ids.len() as u32 - 1)
    }

    /// Looks up a class's probes by internal name.
    #[must_use]
    pub fn class(&self, name: &str) -> Option<&ClassProbes> {
        self.classes.iter().find(|c| c.name == name)
    }
}
