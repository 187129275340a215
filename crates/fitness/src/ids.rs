//! Typed ids of a [`crate::GoalSet`].
//!
//! These are the goal set's own numbers. They differ from `ferrosuite_cfg`'s ids (which index
//! one class's analysis: its methods, branches and per-class goals) and from the probe ids of
//! `ferrosuite_bytecode`'s probe map (which number one instrumentation run): a goal set spans
//! several criteria and possibly several classes.

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
    /// A goal of a goal set: dense, in goal-list order (criteria in [`crate::Criterion`] order,
    /// then classes in the order added, then code order); goals found at run time (exceptions)
    /// get the next ids, in the order they are registered.
    GoalId,
    "G"
);
id_type!(
    /// A predicate (a conditional jump or switch) of a goal set, in code order.
    PredicateId,
    "P"
);
id_type!(
    /// A class under test of a goal set, in the order the classes were added.
    ClassIndex,
    "C"
);
