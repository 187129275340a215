//! The stubs of mock statements and the calls a run of a test made on its mocks (functional
//! mocking, PAFM paper III-B): what [`Statement::Mock`](crate::Statement::Mock) holds and what
//! the worker reports back.
//!
//! ```
//! use ferrosuite_testcase::statement::{MockCalls, Name, Stub, VarRef};
//! let stubs = vec![Stub::new("read", "()I", vec![VarRef(0), VarRef(1)])];
//! let calls = MockCalls { statement: 2, calls: vec![(Name::from("read"), Name::from("()I"), 2)] };
//! assert!(calls.matches(&stubs));
//! ```

use ferrosuite_bytecode::descriptor::{FieldType, MethodDescriptor};
use serde::{Deserialize, Serialize};

use crate::statement::{Name, VarRef};

/// Most answers a stub holds: the answers are used in order, the last one repeated.
pub const MAX_ANSWERS: usize = 5;

/// The answers a mock gives for one of its methods (functional mocking, PAFM paper III-B).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Stub {
    /// Method name.
    pub name: Name,
    /// Method descriptor (the erased one the JVM calls).
    pub descriptor: Name,
    /// The values returned by the first, second, … call, the last one repeated; empty for a
    /// `void` method (a stub that does nothing). At most [`MAX_ANSWERS`].
    pub answers: Vec<VarRef>,
}

impl Stub {
    /// Checks the stub's shape — its method not stubbed in `earlier` too, answers only for a
    /// non-`void` method, at least one and at most [`MAX_ANSWERS`] — and gives the method's
    /// return type (which each answer must fit); the problem otherwise.
    pub(crate) fn check(&self, earlier: &[Stub]) -> Result<Option<FieldType>, String> {
        let what = format!("stub {}{}", self.name, self.descriptor);
        if earlier
            .iter()
            .any(|o| o.name == self.name && o.descriptor == self.descriptor)
        {
            return Err(format!("{what} is given twice"));
        }
        let ret = MethodDescriptor::parse_return(&self.descriptor).map_err(|e| e.to_string())?;
        match ret {
            None if !self.answers.is_empty() => {
                return Err(format!("{what}: answers for a void method"));
            }
            Some(_) if self.answers.is_empty() => return Err(format!("{what}: no answer")),
            _ => {}
        }
        if self.answers.len() > MAX_ANSWERS {
            return Err(format!(
                "{what}: {} answers, at most {MAX_ANSWERS}",
                self.answers.len()
            ));
        }
        Ok(ret)
    }

    /// A stub of method `name` `descriptor` answering `answers`.
    #[must_use]
    pub fn new(name: &str, descriptor: &str, answers: Vec<VarRef>) -> Self {
        Stub {
            name: name.into(),
            descriptor: descriptor.into(),
            answers,
        }
    }
}

/// How often a test called each method of one of its mocks (what the worker records).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
pub struct MockCalls {
    /// The index of the [`Statement::Mock`].
    pub statement: u32,
    /// The methods called, by name and descriptor, with their call counts; sorted.
    pub calls: Vec<(Name, Name, u32)>,
}

impl MockCalls {
    /// Whether the stubs of the mock say what the calls did: one stub per method called, none
    /// for a method not called, and as many answers as calls (at most [`MAX_ANSWERS`]; none
    /// for a `void` method).
    #[must_use]
    pub fn matches(&self, stubs: &[Stub]) -> bool {
        stubs.len() == self.calls.len()
            && self.calls.iter().all(|(name, desc, count)| {
                stubs.iter().any(|s| {
                    s.name == *name
                        && s.descriptor == *desc
                        && s.answers.len() == wanted_answers(desc, *count)
                })
            })
    }
}

/// How many answers a stub of a method with this descriptor called `count` times holds.
#[must_use]
pub fn wanted_answers(descriptor: &str, count: u32) -> usize {
    if descriptor.ends_with(")V") {
        0
    } else {
        (count as usize).clamp(1, MAX_ANSWERS)
    }
}
