//! Control flow analysis for test generation: per-method control flow graphs, dominator and
//! post-dominator trees, control dependence, branches and coverage goals with approach-level
//! data and DynaMOSA's goal hierarchy, class-level CFGs, and the coupled branches of a caller and
//! callee class (Cling).
//!
//! The pipeline for one class: [`Cfg::build`] splits each method's bytecode into basic blocks
//! with typed edges (see [`graph`]); [`DomTree`] computes dominators from the entry and
//! post-dominators from the virtual exit; [`ControlDependence`] derives control dependence from
//! the post-dominators; [`ClassAnalysis`] numbers the branches, works out what controls each one,
//! and builds the goals and their hierarchy. [`Ccfg`] joins a class's method graphs at
//! intra-class calls and [`CoupledBranches`] pairs caller and callee branches. [`dot`] renders
//! any of them for Graphviz.
//!
//! ```no_run
//! use ferrosuite_bytecode::classpath::ClassPath;
//! use ferrosuite_cfg::{Analyzer, Config, CoupledBranches};
//! # fn main() -> ferrosuite_cfg::Result<()> {
//! let cp = ClassPath::parse("fixtures/classes/java8")?;
//! let analyzer = Analyzer::new(&cp, Config::default());
//! let stack = analyzer.class("examples.Stack")?;
//! for b in &stack.branches {
//!     println!("{} {}", b.id, stack.describe(b.id));
//! }
//! let cb = CoupledBranches::analyze(&analyzer, "cling.Person", "cling.Car")?;
//! assert_eq!(cb.pairs.len(), 2);
//! # Ok(()) }
//! ```

pub mod ccfg;
pub mod cdg;
pub mod class;
pub mod coupled;
pub mod dom;
pub mod dot;
pub mod error;
pub mod graph;
pub mod ids;

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use ferrosuite_bytecode::classfile::access;
use ferrosuite_bytecode::classpath::ClassPath;

pub use ccfg::{Ccfg, Scope};
pub use cdg::{ControlDependence, Dependence};
pub use class::{Branch, CallSite, ClassAnalysis, Control, Goal, GoalHierarchy, MethodAnalysis};
pub use coupled::{BranchRef, CoupledBranches, Relation};
pub use dom::DomTree;
pub use error::{Error, Result};
pub use graph::{Block, BlockKind, Cfg, Edge, EdgeKind, Outcome};
pub use ids::{BlockId, BranchId, EdgeId, GoalId, MethodId};

/// Analysis settings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Config {
    /// Add edges from the blocks of protected ranges into their exception handlers (default:
    /// true). Without them handler code is unreachable.
    pub exception_edges: bool,
    /// Include inherited methods in the CCFGs of unrelated caller/callee classes (default: true),
    /// as Cling does.
    pub inherited_methods: bool,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            exception_edges: true,
            inherited_methods: true,
        }
    }
}

/// Analyses classes of a class path on demand and keeps the results.
#[derive(Debug)]
pub struct Analyzer<'cp> {
    cp: &'cp ClassPath,
    config: Config,
    cache: Mutex<HashMap<String, Arc<ClassAnalysis>>>,
}

impl<'cp> Analyzer<'cp> {
    /// An analyzer over `cp`.
    #[must_use]
    pub fn new(cp: &'cp ClassPath, config: Config) -> Self {
        Analyzer {
            cp,
            config,
            cache: Mutex::new(HashMap::new()),
        }
    }

    /// The settings.
    #[must_use]
    pub fn config(&self) -> &Config {
        &self.config
    }

    /// The class path.
    #[must_use]
    pub fn class_path(&self) -> &'cp ClassPath {
        self.cp
    }

    /// The analysis of a class (binary name with dots, or internal name with slashes).
    pub fn class(&self, name: &str) -> Result<Arc<ClassAnalysis>> {
        let internal = name.replace('.', "/");
        if let Some(c) = self
            .cache
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(&internal)
        {
            return Ok(Arc::clone(c));
        }
        let class = self.cp.load(&internal)?;
        let analysis = Arc::new(ClassAnalysis::analyze(&class, &self.config)?);
        self.cache
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(internal, Arc::clone(&analysis));
        Ok(analysis)
    }

    /// Fails with [`Error::NoCode`] when no method of `c` has code.
    pub fn require_code(&self, c: &ClassAnalysis) -> Result<()> {
        if c.has_code() {
            return Ok(());
        }
        let why = if c.access & access::ANNOTATION != 0 {
            "it is an annotation type"
        } else if c.access & access::INTERFACE != 0 {
            "it is an interface without default or static methods"
        } else if c.methods.is_empty() {
            "it declares no methods"
        } else {
            "all its methods are abstract or native"
        };
        Err(Error::NoCode {
            class: c.binary_name(),
            why: why.into(),
        })
    }

    /// The strict superclasses of a class, nearest first, as far as the class path has them
    /// (a chain that loops back on itself ends where it would repeat).
    pub fn superclasses(&self, name: &str) -> Result<Vec<String>> {
        let start = name.replace('.', "/");
        let mut out: Vec<String> = Vec::new();
        let mut next = self.cp.header(&start)?.super_name.clone();
        while let Some(s) = next {
            if s == start || out.contains(&s) {
                break;
            }
            next = match self.cp.header(&s) {
                Ok(h) => h.super_name.clone(),
                Err(_) => None,
            };
            out.push(s);
        }
        Ok(out)
    }
}
