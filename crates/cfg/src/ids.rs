//! Typed ids. Block and edge ids index one method's [`crate::Cfg`]; method, branch and goal ids
//! index one class's [`crate::ClassAnalysis`] (dense, in class-file order, so they are stable for
//! a given class file).

use serde::{Deserialize, Serialize};

macro_rules! id_type {
    ($(#[$m:meta])* $name:ident, $prefix:literal) => {
        $(#[$m])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
        #[serde(transparent)]
        pub struct $name(pub u32);

        impl $name {
            /// The id as a vector index.
            #[must_use]
            pub fn index(self) -> usize {
                self.0 as usize
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                write!(f, concat!($prefix, "{}"), self.0)
            }
        }
    };
}

id_type!(
    /// A basic block of a method's control flow graph (0 = entry, 1 = exit).
    BlockId,
    "B"
);
id_type!(
    /// An edge of a method's control flow graph.
    EdgeId,
    "E"
);
id_type!(
    /// A method of a class, numbered in class-file order.
    MethodId,
    "m"
);
id_type!(
    /// A branch (one outcome of a conditional jump or switch) of a class, numbered in class-file
    /// order of methods, then code order, then outcome order (taken, not taken; cases, default).
    BranchId,
    "b"
);
id_type!(
    /// A coverage goal of a class: its branches, then one goal per branchless method.
    GoalId,
    "g"
);
