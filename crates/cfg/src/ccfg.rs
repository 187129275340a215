//! The class-level control flow graph (CCFG, Harrold et al.): the graphs of a class's methods
//! joined at intra-class call sites.
//!
//! A CCFG is a set of *members* (methods with code, possibly declared by a superclass) and the
//! *call edges* between them: a call instruction in a reachable block of one member that resolves
//! to another member. Calls resolve as the JVM would within the members: `invokevirtual` and
//! `invokeinterface` to the most derived member with that name and descriptor; `invokestatic`
//! and `invokespecial` to the first member declared along the superclass chain from the
//! referenced owner. A call edge enters the callee's entry block and its exit returns to the
//! calling block.
//!
//! Which methods are members is a [`Scope`]. By default a class's CCFG holds its declared
//! methods and the non-private methods it inherits and does not override. For a caller and
//! callee in one hierarchy, Cling (Section 3.1.5) builds the super-class's CCFG from its methods
//! that the sub-class does not override, and the sub-class's from its declared methods only.
//!
//! ```text
//! Person.driveToHome:  B2 if(fuel<100) --taken--> B4 car.drive()
//!                               \--not taken--> B3 addEnergy() ==call==> Person.addEnergy ENTRY
//!                                                   ^==return== Person.addEnergy EXIT
//! ```

use std::collections::{BTreeSet, HashMap};
use std::sync::Arc;

use ferrosuite_bytecode::opcodes as op;

use crate::Analyzer;
use crate::class::{CallSite, ClassAnalysis, MethodAnalysis, MethodBody};
use crate::error::Result;
use crate::ids::MethodId;

/// Which methods a CCFG holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Scope {
    /// Declared methods plus the inherited, non-overridden, non-private methods of the
    /// superclasses found on the class path.
    WithInherited,
    /// Declared methods only.
    Declared,
    /// Declared methods except these `(name, descriptor)` pairs.
    DeclaredExcept(BTreeSet<(String, String)>),
}

/// A method of a CCFG.
#[derive(Debug, Clone)]
pub struct Member {
    /// The declaring class's analysis.
    pub class: Arc<ClassAnalysis>,
    /// The method in it.
    pub method: MethodId,
    /// False for members a test cannot call on the class itself: private methods and
    /// constructors of superclasses, which are members only so that inherited code calling them
    /// is followed.
    pub callable: bool,
}

impl Member {
    /// The method.
    #[must_use]
    pub fn analysis(&self) -> &MethodAnalysis {
        self.class.method(self.method)
    }

    /// Its graphs (members always have code).
    #[must_use]
    pub fn body(&self) -> Option<&MethodBody> {
        self.analysis().body.as_ref()
    }

    /// `pkg.Class.name(desc)`.
    #[must_use]
    pub fn qualified(&self) -> String {
        format!(
            "{}.{}",
            self.class.binary_name(),
            self.analysis().signature()
        )
    }
}

/// An intra-class call edge.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Call {
    /// Calling member (index into [`Ccfg::members`]).
    pub caller: usize,
    /// Index of the call site in the caller's [`MethodBody::calls`].
    pub site: usize,
    /// Called member.
    pub callee: usize,
}

/// A class-level control flow graph.
#[derive(Debug, Clone)]
pub struct Ccfg {
    /// Internal name of the class.
    pub class: String,
    /// The class and the superclasses that contributed members, most derived first.
    pub chain: Vec<String>,
    /// Members: declared methods in class-file order, then inherited ones.
    pub members: Vec<Member>,
    /// Intra-class call edges, by caller then code order.
    pub calls: Vec<Call>,
    virtual_table: HashMap<(String, String), usize>,
    exact: HashMap<(String, String, String), usize>,
}

impl Ccfg {
    /// Builds the CCFG of `class` with the members `scope` selects.
    pub fn build(analyzer: &Analyzer<'_>, class: &str, scope: &Scope) -> Result<Ccfg> {
        let own = analyzer.class(class)?;
        let mut ccfg = Ccfg {
            class: own.name.clone(),
            chain: vec![own.name.clone()],
            members: Vec::new(),
            calls: Vec::new(),
            virtual_table: HashMap::new(),
            exact: HashMap::new(),
        };
        for m in &own.methods {
            // Only a method that can override (not private, static or a constructor) is left
            // out for being redefined by the other class.
            let excluded = match scope {
                Scope::DeclaredExcept(set) => {
                    !m.is_private()
                        && !m.is_static()
                        && !m.name.starts_with('<')
                        && set.contains(&(m.name.clone(), m.descriptor.clone()))
                }
                _ => false,
            };
            if m.body.is_some() && !excluded {
                ccfg.add(&own, m, true, true);
            }
        }
        if *scope == Scope::WithInherited {
            let mut next = own.super_name.clone();
            while let Some(s) = next.take() {
                // A superclass missing from the class path ends the chain: its methods cannot be
                // analysed, and calls to them stay calls out of the class. A chain that loops
                // (malformed class files) ends where it would repeat.
                if ccfg.chain.contains(&s) {
                    break;
                }
                let Ok(sup) = analyzer.class(&s) else { break };
                ccfg.chain.push(sup.name.clone());
                for m in &sup.methods {
                    if m.body.is_none() {
                        continue;
                    }
                    let key = (m.name.clone(), m.descriptor.clone());
                    if m.is_private() || m.name.starts_with('<') {
                        // Not inherited, but run by inherited code (and by `super(...)`).
                        if m.name != "<clinit>" {
                            ccfg.add(&sup, m, false, false);
                        }
                    } else if !ccfg.virtual_table.contains_key(&key) {
                        ccfg.add(&sup, m, true, true);
                    }
                }
                next.clone_from(&sup.super_name);
            }
        }
        for (i, member) in ccfg.members.iter().enumerate() {
            let Some(body) = member.body() else { continue };
            for (k, site) in body.calls.iter().enumerate() {
                if !body.cfg.block(site.block).reachable || !ccfg.chain.contains(&site.owner) {
                    continue;
                }
                if let Some(callee) = ccfg.lookup(site) {
                    ccfg.calls.push(Call {
                        caller: i,
                        site: k,
                        callee,
                    });
                }
            }
        }
        Ok(ccfg)
    }

    fn add(
        &mut self,
        class: &Arc<ClassAnalysis>,
        m: &MethodAnalysis,
        dispatch: bool,
        callable: bool,
    ) {
        let i = self.members.len();
        self.members.push(Member {
            class: Arc::clone(class),
            method: m.id,
            callable,
        });
        if dispatch {
            self.virtual_table
                .entry((m.name.clone(), m.descriptor.clone()))
                .or_insert(i);
        }
        self.exact.insert(
            (class.name.clone(), m.name.clone(), m.descriptor.clone()),
            i,
        );
    }

    /// The member a call resolves to, ignoring whether its owner belongs to this class: the
    /// most derived member for virtual calls, else the first member declared along the chain
    /// from the owner (from the class itself when the owner is outside the chain).
    #[must_use]
    pub fn lookup(&self, site: &CallSite) -> Option<usize> {
        let key = (site.name.clone(), site.descriptor.clone());
        // A private method is called directly whatever the instruction (javac 11+ calls them with
        // invokevirtual).
        if let Some(&i) = self
            .exact
            .get(&(site.owner.clone(), key.0.clone(), key.1.clone()))
            && self.members[i].analysis().is_private()
        {
            return Some(i);
        }
        if site.is_virtual() {
            return self.virtual_table.get(&key).copied();
        }
        let start = self
            .chain
            .iter()
            .position(|c| *c == site.owner)
            .unwrap_or(0);
        if site.opcode == op::INVOKESPECIAL && site.name == "<init>" {
            return self
                .exact
                .get(&(self.chain[start].clone(), key.0, key.1))
                .copied();
        }
        self.chain[start..]
            .iter()
            .find_map(|c| self.exact.get(&(c.clone(), key.0.clone(), key.1.clone())))
            .copied()
    }

    /// The member declared with this name and descriptor (most derived).
    #[must_use]
    pub fn find(&self, name: &str, descriptor: &str) -> Option<usize> {
        self.virtual_table
            .get(&(name.to_string(), descriptor.to_string()))
            .copied()
    }

    /// The call edges leaving member `i`.
    pub fn calls_from(&self, i: usize) -> impl Iterator<Item = &Call> {
        self.calls.iter().filter(move |c| c.caller == i)
    }

    /// The call edges entering member `i`.
    pub fn calls_to(&self, i: usize) -> impl Iterator<Item = &Call> {
        self.calls.iter().filter(move |c| c.callee == i)
    }

    /// The call site of a call edge.
    #[must_use]
    pub fn site(&self, call: &Call) -> &CallSite {
        // Call edges are only made from members with a body.
        let body = self.members[call.caller].body();
        &body.map_or(&[][..], |b| b.calls.as_slice())[call.site]
    }
}
