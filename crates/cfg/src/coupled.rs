//! Coupled branches of a caller class R and a callee class E (Cling, Definitions 3.1–3.4).
//!
//! For every call site `s` in R's CCFG that calls a method of E:
//!
//! * `B_R(s)` (target branches of the caller): the branch edges `s` is control dependent on, i.e.
//!   the outgoing branches of the nodes `s` is control dependent on that `s` post-dominates. When
//!   `s` runs whenever its method runs (it depends on the method entry), the CCFG's call edges
//!   carry the question to every intra-class call site of that method, recursively: `s` then
//!   post-dominates exactly what those call sites post-dominate.
//! * `B_E(s)` (target branches of the callee): the outgoing branches of the branching nodes
//!   reachable from the entry of the called method in E's CCFG (intra-class callees included).
//! * `CB(s) = B_R(s) × B_E(s)`, and `CB_{R,E}` is the union over the call sites.
//!
//! The *covering methods* are the members of R's CCFG that contain a call site or reach one
//! through intra-class calls.
//!
//! Inheritance (Section 3.1.5): when E extends R, R's CCFG holds R's methods that E does not
//! override, E's holds E's declared methods, and the call sites are R's calls to methods E
//! redefines (plus direct calls on E). When R extends E, R's CCFG holds R's declared methods,
//! E's holds E's methods that R does not override, and the call sites are R's calls to methods
//! it inherits from E without redefining them.
//!
//! Calls are matched on the owner the bytecode names: a call through an interface or a
//! supertype that E implements is not a call site (the target is not known statically).
//!
//! ```text
//! Person.addEnergy:  if (this.lazy) takeBus(); else car.refuel();   // s = car.refuel() at line 16
//! Car.refuel:        if (fuelAmount < 90) ... (line 9) else ... (line 10)
//! B_R(s) = {<13,16>}   B_E(s) = {<8,9>, <8,10>}
//! CB = {(<13,16>,<8,9>), (<13,16>,<8,10>)}
//! ```

use std::collections::{BTreeSet, HashSet, VecDeque};

use serde::{Deserialize, Serialize};

use crate::Analyzer;
use crate::ccfg::{Ccfg, Scope};
use crate::cdg::Dependence;
use crate::class::ClassAnalysis;
use crate::error::{Error, Result};
use crate::ids::{BlockId, BranchId};

/// A branch of a named class.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct BranchRef {
    /// Internal name of the class declaring the branch's method.
    pub class: String,
    /// The branch.
    pub branch: BranchId,
}

/// How caller and callee are related.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Relation {
    /// Not in one superclass chain.
    Unrelated,
    /// The callee extends the caller.
    CallerIsSuper,
    /// The caller extends the callee.
    CallerIsSub,
}

/// One call site from R to E with its target branches.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CouplingSite {
    /// Calling member (index into the caller CCFG's members).
    pub caller: usize,
    /// Index of the call in the caller member's call list.
    pub site: usize,
    /// Called member (index into the callee CCFG's members).
    pub callee: usize,
    /// `B_R(s)`, sorted.
    pub caller_branches: Vec<BranchRef>,
    /// `B_E(s)`, sorted.
    pub callee_branches: Vec<BranchRef>,
}

/// The coupled branches of a pair.
#[derive(Debug, Clone)]
pub struct CoupledBranches {
    /// How the classes are related.
    pub relation: Relation,
    /// The caller's CCFG.
    pub caller: Ccfg,
    /// The callee's CCFG.
    pub callee: Ccfg,
    /// The call sites from R to E, in caller member and code order.
    pub sites: Vec<CouplingSite>,
    /// `CB_{R,E}`: (caller branch, callee branch), sorted and without duplicates.
    pub pairs: Vec<(BranchRef, BranchRef)>,
    /// Covering methods (indices into the caller CCFG's members), in member order.
    pub covering: Vec<usize>,
}

impl CoupledBranches {
    /// Analyses the pair (`caller`, `callee`), class names with dots or slashes.
    pub fn analyze(analyzer: &Analyzer<'_>, caller: &str, callee: &str) -> Result<Self> {
        let r = analyzer.class(caller)?;
        let e = analyzer.class(callee)?;
        if r.name == e.name {
            return Err(Error::BadPair {
                caller: r.binary_name(),
                callee: e.binary_name(),
                problem: "caller and callee are the same class".into(),
            });
        }
        for c in [&r, &e] {
            analyzer.require_code(c)?;
        }
        let r_chain = analyzer.superclasses(&r.name)?;
        let e_chain = analyzer.superclasses(&e.name)?;
        let relation = if e_chain.contains(&r.name) {
            Relation::CallerIsSuper
        } else if r_chain.contains(&e.name) {
            Relation::CallerIsSub
        } else {
            Relation::Unrelated
        };
        let inherited = if analyzer.config().inherited_methods {
            Scope::WithInherited
        } else {
            Scope::Declared
        };
        let (rc, ec) = match relation {
            Relation::Unrelated => (
                Ccfg::build(analyzer, &r.name, &inherited)?,
                Ccfg::build(analyzer, &e.name, &inherited)?,
            ),
            Relation::CallerIsSuper => (
                Ccfg::build(analyzer, &r.name, &Scope::DeclaredExcept(overridable(&e)))?,
                Ccfg::build(analyzer, &e.name, &Scope::Declared)?,
            ),
            Relation::CallerIsSub => (
                Ccfg::build(analyzer, &r.name, &Scope::Declared)?,
                Ccfg::build(analyzer, &e.name, &Scope::DeclaredExcept(overridable(&r)))?,
            ),
        };
        let redefined_by_e = overridable(&e);
        let mut sites = Vec::new();
        for (i, member) in rc.members.iter().enumerate() {
            let Some(body) = member.body() else { continue };
            for (k, site) in body.calls.iter().enumerate() {
                if !body.cfg.block(site.block).reachable {
                    continue;
                }
                let target = if site.owner == e.name {
                    ec.lookup(site)
                } else {
                    match relation {
                        Relation::Unrelated => None,
                        // Calls in R to methods that E redefines: virtual calls whose target,
                        // as declared along the chain from the owner, is overridable.
                        Relation::CallerIsSuper => {
                            let key = (site.name.clone(), site.descriptor.clone());
                            if site.is_virtual()
                                && e_chain.contains(&site.owner)
                                && redefined_by_e.contains(&key)
                                && declaring(analyzer, &site.owner, &key)
                                    .is_some_and(|(_, private)| !private)
                            {
                                ec.find(&site.name, &site.descriptor)
                            } else {
                                None
                            }
                        }
                        // Calls in R to methods inherited from E and not redefined in between:
                        // the first class declaring the method, from the owner up, is E.
                        Relation::CallerIsSub => {
                            let in_chain = site.owner == r.name || r_chain.contains(&site.owner);
                            let key = (site.name.clone(), site.descriptor.clone());
                            if in_chain
                                && site.name != "<init>"
                                && declaring(analyzer, &site.owner, &key)
                                    .is_some_and(|(c, private)| c == e.name && !private)
                            {
                                ec.lookup(site)
                            } else {
                                None
                            }
                        }
                    }
                };
                if let Some(callee) = target {
                    sites.push(CouplingSite {
                        caller: i,
                        site: k,
                        callee,
                        caller_branches: caller_branches(&rc, i, site.block),
                        callee_branches: callee_branches(&ec, callee),
                    });
                }
            }
        }
        let mut pairs = BTreeSet::new();
        for s in &sites {
            for br in &s.caller_branches {
                for be in &s.callee_branches {
                    pairs.insert((br.clone(), be.clone()));
                }
            }
        }
        let covering = covering_methods(&rc, &sites);
        Ok(CoupledBranches {
            relation,
            caller: rc,
            callee: ec,
            sites,
            pairs: pairs.into_iter().collect(),
            covering,
        })
    }

    /// The analysis of the class a branch belongs to (one of the two CCFGs' classes).
    #[must_use]
    pub fn class_of(&self, r: &BranchRef) -> Option<&ClassAnalysis> {
        self.caller
            .members
            .iter()
            .chain(&self.callee.members)
            .map(|m| m.class.as_ref())
            .find(|c| c.name == r.class)
    }

    /// `Class.method(desc) @offset L<line> <outcome>` for a branch.
    #[must_use]
    pub fn describe(&self, r: &BranchRef) -> String {
        self.class_of(r).map_or_else(
            || format!("{} {}", r.class, r.branch),
            |c| format!("{}.{}", c.binary_name(), c.describe(r.branch)),
        )
    }
}

/// The first class declaring `key` (name, descriptor) along the superclass chain from `start`,
/// and whether it declares it private; `None` when no class on the class path does.
fn declaring(
    analyzer: &Analyzer<'_>,
    start: &str,
    key: &(String, String),
) -> Option<(String, bool)> {
    let mut seen = HashSet::new();
    let mut next = Some(start.to_string());
    while let Some(c) = next.take() {
        if !seen.insert(c.clone()) {
            break;
        }
        let Ok(a) = analyzer.class(&c) else { break };
        if let Some(m) = a.find_method(&key.0, &key.1) {
            return Some((a.name.clone(), m.is_private()));
        }
        next.clone_from(&a.super_name);
    }
    None
}

/// `(name, descriptor)` of the methods of `c` that can override or be overridden: not static,
/// not private, not constructors.
fn overridable(c: &ClassAnalysis) -> BTreeSet<(String, String)> {
    c.methods
        .iter()
        .filter(|m| !m.is_static() && !m.is_private() && !m.name.starts_with('<'))
        .map(|m| (m.name.clone(), m.descriptor.clone()))
        .collect()
}

/// `B_R(s)` for the call site in `block` of member `i` (Definition 3.1), following the CCFG's
/// call edges when the site depends on its method's entry, and looking through non-branch
/// edges (into handlers, out of protected blocks) to the branches controlling their source.
fn caller_branches(rc: &Ccfg, i: usize, block: BlockId) -> Vec<BranchRef> {
    let mut out = BTreeSet::new();
    let mut seen = HashSet::from([(i, block)]);
    let mut work = vec![(i, block)];
    while let Some((m, b)) = work.pop() {
        let member = &rc.members[m];
        let Some(body) = member.body() else { continue };
        for d in body.cdg.of(b) {
            match d {
                Dependence::Entry => {
                    for call in rc.calls_to(m) {
                        let at = (call.caller, rc.site(call).block);
                        if seen.insert(at) {
                            work.push(at);
                        }
                    }
                }
                Dependence::Edge(e) => {
                    if let Some(br) = member.class.branch_on_edge(member.method, *e) {
                        out.insert(BranchRef {
                            class: member.class.name.clone(),
                            branch: br,
                        });
                    } else {
                        // An exceptional or fall-through edge out of a block with several
                        // successors: what decides it is what controls its source.
                        let at = (m, body.cfg.edge(*e).from);
                        if seen.insert(at) {
                            work.push(at);
                        }
                    }
                }
            }
        }
    }
    out.into_iter().collect()
}

/// `B_E(s)` for a call to member `callee` (Definition 3.2): the branches of reachable branching
/// nodes of the callee and of the members it reaches through intra-class calls.
fn callee_branches(ec: &Ccfg, callee: usize) -> Vec<BranchRef> {
    let mut out = BTreeSet::new();
    let mut seen = HashSet::from([callee]);
    let mut queue = VecDeque::from([callee]);
    while let Some(m) = queue.pop_front() {
        let member = &ec.members[m];
        let Some(body) = member.body() else { continue };
        for b in body.branch_ids() {
            let br = member.class.branch(b);
            // A branching node has more than one outgoing edge: a switch whose every key goes
            // to the default has a single outcome and is not one.
            let outcomes = body
                .branch_ids()
                .filter(|&o| member.class.branch(o).offset == br.offset)
                .count();
            if br.reachable && outcomes > 1 {
                out.insert(BranchRef {
                    class: member.class.name.clone(),
                    branch: b,
                });
            }
        }
        for call in ec.calls_from(m) {
            if seen.insert(call.callee) {
                queue.push_back(call.callee);
            }
        }
    }
    out.into_iter().collect()
}

/// Members of R that contain a call site or reach one through intra-class calls.
fn covering_methods(rc: &Ccfg, sites: &[CouplingSite]) -> Vec<usize> {
    let mut reach: BTreeSet<usize> = sites.iter().map(|s| s.caller).collect();
    let mut queue: VecDeque<usize> = reach.iter().copied().collect();
    while let Some(m) = queue.pop_front() {
        for call in rc.calls_to(m) {
            if reach.insert(call.caller) {
                queue.push_back(call.caller);
            }
        }
    }
    // Superclass constructors and private methods are followed, but a test cannot call them.
    reach
        .into_iter()
        .filter(|&m| rc.members[m].callable)
        .collect()
}
