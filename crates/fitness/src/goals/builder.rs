//! Building a [`GoalSet`]: matching each class's analysis with the probe map, then listing
//! the goals of the configured criteria and mapping the analysis's goal hierarchy onto them.

use std::collections::{BTreeMap, BTreeSet};
use std::ops::Range;

use ferrosuite_bytecode::ClassFile;
use ferrosuite_bytecode::attributes::AttributeBody;
use ferrosuite_bytecode::classfile::access;
use ferrosuite_bytecode::instrument::map::{BranchKind, BranchSite, ClassProbes, ProbeMap};
use ferrosuite_cfg::class::MethodBody;
use ferrosuite_cfg::{
    BlockId, BlockKind, BranchId, ClassAnalysis, Control, Dependence, EdgeId, Goal as CfgGoal,
    MethodAnalysis, Outcome,
};

use std::sync::Arc;

use super::{
    BranchNode, ClassGoals, Ctl, CutClass, CutMethod, Goal, GoalSet, LineNode, Link, Predicate,
    Target,
};
use crate::Config;
use crate::criteria::{Criterion, NewGoal};
use crate::error::{Error, Result};
use crate::ids::{ClassIndex, GoalId, PredicateId};

/// A method with goals while its class is added.
struct Included<'a> {
    body: &'a MethodBody,
    /// Index into the goal set's methods.
    method: usize,
    /// Lines with a probe in the method.
    lines: Vec<u16>,
}

/// Per class: what the builder needs to order goals and map the hierarchy.
#[derive(Debug, Clone)]
struct ClassPart {
    methods: Range<usize>,
    branches: Range<usize>,
    lines: Range<usize>,
    /// The analysis's goals, mapped: `Some(Ok(node))` a branch node, `Some(Err(method))` a
    /// branchless method, `None` excluded.
    cfg_goals: Vec<Option<std::result::Result<usize, usize>>>,
    roots: Vec<u32>,
    children: Vec<Vec<u32>>,
}

/// Collects classes for a [`GoalSet`].
#[derive(Debug)]
pub struct GoalSetBuilder<'m> {
    map: &'m ProbeMap,
    pub(super) set: GoalSet,
    parts: Vec<ClassPart>,
}

impl GoalSet {
    /// A builder matching analyses against `map`.
    #[must_use]
    pub fn builder(map: &ProbeMap, config: Config) -> GoalSetBuilder<'_> {
        GoalSetBuilder {
            map,
            set: GoalSet {
                config,
                classes: Vec::new(),
                class_index: BTreeMap::new(),
                class_methods: Vec::new(),
                member_index: std::collections::HashMap::default(),
                methods: Vec::new(),
                predicates: Vec::new(),
                branches: Vec::new(),
                lines: Vec::new(),
                goals: Vec::new(),
                links: Vec::new(),
                criterion_index: Vec::new(),
                by_criterion: Vec::new(),
                runtime_goals: Vec::new(),
                initial: Vec::new(),
                children: Vec::new(),
                exception_goals: BTreeMap::new(),
                branch_goals: BTreeMap::new(),
                by_probe: super::ProbeGoals::default(),
                static_goals: 0,
                notes: Vec::new(),
            },
            parts: Vec::new(),
        }
    }

    /// The goal set of one class (a shorthand for the builder).
    pub fn for_class(
        map: &ProbeMap,
        config: Config,
        analysis: &ClassAnalysis,
        file: Option<&ClassFile>,
    ) -> Result<GoalSet> {
        let mut b = GoalSet::builder(map, config);
        b.add_class(analysis, file)?;
        Ok(b.build())
    }
}

impl GoalSetBuilder<'_> {
    /// Adds a class under test: its analysis (of the original class file, the one that was
    /// instrumented) and optionally its class file, for the `throws` clauses the exception
    /// criterion needs (without it no exception counts as declared).
    ///
    /// On error the builder is left as it was before the call.
    pub fn add_class(
        &mut self,
        analysis: &ClassAnalysis,
        file: Option<&ClassFile>,
    ) -> Result<ClassIndex> {
        let set = &self.set;
        let saved = (
            set.methods.len(),
            set.predicates.len(),
            set.branches.len(),
            set.lines.len(),
            set.notes.len(),
        );
        let added = self.add_class_inner(analysis, file);
        if added.is_err() {
            let set = &mut self.set;
            set.methods.truncate(saved.0);
            set.predicates.truncate(saved.1);
            set.branches.truncate(saved.2);
            set.lines.truncate(saved.3);
            set.notes.truncate(saved.4);
        }
        added
    }

    fn add_class_inner(
        &mut self,
        analysis: &ClassAnalysis,
        file: Option<&ClassFile>,
    ) -> Result<ClassIndex> {
        let binary = analysis.binary_name();
        if self.set.class_index.contains_key(&analysis.name) {
            return Err(Error::DuplicateClass { class: binary });
        }
        let probes = self
            .map
            .class(&analysis.name)
            .ok_or_else(|| Error::NotInstrumented {
                class: binary.clone(),
            })?;
        let declared = match file {
            Some(f) => declared_exceptions(f, analysis)?,
            None => BTreeMap::new(),
        };
        let index = ClassIndex(self.set.classes.len() as u32);
        let method_start = self.set.methods.len();
        let branch_start = self.set.branches.len();
        let line_start = self.set.lines.len();
        // Methods with goals, and their probe records.
        let mut included: Vec<Included<'_>> = Vec::new();
        for m in &analysis.methods {
            let Some(body) = &m.body else { continue };
            if !self.includes(m) {
                continue;
            }
            let Some(mp) = probes
                .methods
                .iter()
                .find(|p| p.name == m.name && p.descriptor == m.descriptor)
            else {
                return Err(Error::ProbeMismatch {
                    method: format!("{binary}.{}", m.signature()),
                    offset: 0,
                    detail: "the probe map has no record of this method".into(),
                });
            };
            if let Some(why) = &mp.skipped {
                self.set.notes.push(format!(
                    "{binary}.{}: not instrumented ({why}); no goals",
                    m.signature()
                ));
                continue;
            }
            let idx = self.set.methods.len();
            self.set.methods.push(CutMethod {
                class: index,
                id: m.id,
                name: m.name.clone(),
                descriptor: m.descriptor.clone(),
                access: m.access,
                probe: mp.id,
                declared_exceptions: declared
                    .get(&(m.name.clone(), m.descriptor.clone()))
                    .cloned()
                    .unwrap_or_default(),
                branchless: body.branches.is_empty(),
            });
            included.push(Included {
                body,
                method: idx,
                lines: mp.lines.clone(),
            });
            match_branches(
                &mut self.set,
                analysis,
                &binary,
                index,
                m,
                body,
                idx,
                &mp.branches,
            )?;
        }
        let set = &mut self.set;
        let branch_end = set.branches.len();
        // Branch controls, now that every branch of the class has a node.
        let node_of: BTreeMap<BranchId, usize> = (branch_start..branch_end)
            .map(|n| (set.branches[n].cfg, n))
            .collect();
        for n in branch_start..branch_end {
            let b = analysis.branch(set.branches[n].cfg);
            let method = set.branches[n].method;
            set.branches[n].controls = b
                .controls
                .iter()
                .filter_map(|c| match c {
                    Control::Entry => Some(Ctl::Entry(method)),
                    Control::Branch(p) => node_of.get(p).map(|&x| Ctl::Branch(x)),
                })
                .collect();
        }
        add_lines(set, analysis, probes, index, &included, &node_of);
        let method_end = set.methods.len();
        // The analysis's goals, mapped to nodes and methods.
        let cfg_goals = analysis
            .goals
            .iter()
            .map(|g| match *g {
                CfgGoal::Branch(b) => node_of.get(&b).map(|&n| Ok(n)),
                CfgGoal::Method(m) => (method_start..method_end)
                    .find(|&i| set.methods[i].id == m)
                    .map(Err),
            })
            .collect();
        self.parts.push(ClassPart {
            methods: method_start..method_end,
            branches: branch_start..branch_end,
            lines: line_start..set.lines.len(),
            cfg_goals,
            roots: analysis.hierarchy.roots.iter().map(|g| g.0).collect(),
            children: analysis
                .hierarchy
                .children
                .iter()
                .map(|c| c.iter().map(|g| g.0).collect())
                .collect(),
        });
        set.class_methods.push(method_start..method_end);
        set.class_index.insert(analysis.name.clone(), index);
        set.classes.push(CutClass {
            index,
            name: analysis.name.clone(),
            source_file: probes.source_file.clone(),
        });
        Ok(index)
    }

    /// Whether the configuration gives `m` goals.
    fn includes(&self, m: &MethodAnalysis) -> bool {
        let c = &self.set.config;
        (c.static_initializers || m.name != "<clinit>")
            && (c.bridge_methods || m.access & access::BRIDGE == 0)
    }

    /// The goal set: goals of every criterion of the configuration, and the hierarchy.
    #[must_use]
    pub fn build(self) -> GoalSet {
        let GoalSetBuilder { mut set, parts, .. } = self;
        let criteria: Vec<Arc<dyn Criterion>> = set.config.criteria.iter().cloned().collect();
        // The goals of the criteria in the hierarchy, by branch node and by branchless method.
        let mut branch_goal: BTreeMap<usize, GoalId> = BTreeMap::new();
        let mut branchless_goal: BTreeMap<usize, GoalId> = BTreeMap::new();
        let mut outside: BTreeSet<GoalId> = BTreeSet::new();
        set.by_criterion = vec![Vec::new(); criteria.len()];
        for (index, criterion) in criteria.iter().enumerate() {
            let hierarchy = criterion.in_hierarchy();
            for part in &parts {
                let class = ClassGoals::new(
                    &set,
                    part.methods.clone(),
                    part.branches.clone(),
                    part.lines.clone(),
                );
                for goal in criterion.goals(&class) {
                    let Some(id) = push_goal(&mut set, criterion.name(), index, goal) else {
                        set.notes.push(format!(
                            "criterion {}: a goal's link {:?} names nothing of the goal set; left out",
                            criterion.name(),
                            goal.link
                        ));
                        continue;
                    };
                    if !hierarchy {
                        outside.insert(id);
                        continue;
                    }
                    match goal.link {
                        Link::Branch(n) => {
                            branch_goal.entry(n).or_insert(id);
                            let node = &set.branches[n];
                            let class = set.methods[node.method].class;
                            set.branch_goals.entry((class, node.cfg)).or_insert(id);
                        }
                        Link::Method(m) if set.methods[m].branchless => {
                            branchless_goal.entry(m).or_insert(id);
                        }
                        _ => {
                            outside.insert(id);
                        }
                    }
                }
            }
        }
        set.static_goals = set.goals.len();
        set.by_probe = super::ProbeGoals::new(&set);
        set.index_members();
        set.children = vec![Vec::new(); set.goals.len()];
        // DynaMOSA's hierarchy over branch coverage, from each class's analysis.
        let mut roots: BTreeSet<GoalId> = BTreeSet::new();
        let mapped = |g: Option<&Option<std::result::Result<usize, usize>>>| match g {
            Some(Some(Ok(n))) => branch_goal.get(n).copied(),
            Some(Some(Err(m))) => branchless_goal.get(m).copied(),
            _ => None,
        };
        for part in &parts {
            for r in &part.roots {
                if let Some(g) = mapped(part.cfg_goals.get(*r as usize)) {
                    roots.insert(g);
                }
            }
            for (parent, kids) in part.children.iter().enumerate() {
                let Some(p) = mapped(part.cfg_goals.get(parent)) else {
                    continue;
                };
                for k in kids {
                    if let Some(c) = mapped(part.cfg_goals.get(*k as usize))
                        && !set.children[p.index()].contains(&c)
                    {
                        set.children[p.index()].push(c);
                    }
                }
            }
        }
        for kids in &mut set.children {
            kids.sort_unstable();
        }
        // Goals outside the hierarchy are active from the start.
        roots.extend(outside);
        // Reachable branch goals the hierarchy never activates become roots.
        let mut seen: BTreeSet<GoalId> = roots.clone();
        let mut stack: Vec<GoalId> = roots.iter().copied().collect();
        while let Some(g) = stack.pop() {
            for &c in &set.children[g.index()] {
                if seen.insert(c) {
                    stack.push(c);
                }
            }
        }
        for g in &set.goals {
            if g.reachable && !seen.contains(&g.id) {
                roots.insert(g.id);
            }
        }
        set.initial = roots.into_iter().collect();
        set
    }
}

/// Adds a goal of the criterion at `index` of the configuration; `None` when its link names
/// nothing of the goal set.
fn push_goal(
    set: &mut GoalSet,
    criterion: &'static str,
    index: usize,
    goal: NewGoal,
) -> Option<GoalId> {
    let id = GoalId(u32::try_from(set.goals.len()).ok()?);
    let described = describe(set, id, criterion, goal)?;
    set.goals.push(described);
    set.links.push(goal.link);
    set.criterion_index
        .push(u16::try_from(index).unwrap_or(u16::MAX));
    if let Some(list) = set.by_criterion.get_mut(index) {
        list.push(id);
    }
    Some(id)
}

fn describe(set: &GoalSet, id: GoalId, criterion: &'static str, goal: NewGoal) -> Option<Goal> {
    let NewGoal { link, suffix } = goal;
    let method_name = |m: usize| {
        let cm = &set.methods[m];
        format!(
            "{}.{}",
            set.classes
                .get(cm.class.index())
                .map_or_else(String::new, CutClass::binary_name),
            cm.signature()
        )
    };
    let (class, line, reachable) = set.placed(link)?;
    let dead = if reachable { "" } else { " [unreachable]" };
    let (target, description) = match link {
        Link::Branch(n) => {
            let b = &set.branches[n];
            let p = &set.predicates[b.predicate];
            let at = b.line.map_or(String::new(), |l| format!(" line {l}"));
            (
                Target::Branch {
                    branch: b.cfg,
                    outcome: b.outcome,
                    predicate: p.id,
                    slot: b.slot,
                },
                format!(
                    "{}{at} @{} {} {}{dead}",
                    method_name(b.method),
                    p.offset,
                    p.opcode,
                    b.outcome
                ),
            )
        }
        Link::Line(l) => {
            let ln = &set.lines[l];
            let name = set
                .classes
                .get(ln.class.index())
                .map_or_else(String::new, CutClass::binary_name);
            (
                Target::Line {
                    line: ln.line,
                    probe: ln.probe,
                },
                format!("{name} line {}{dead}", ln.line),
            )
        }
        Link::MethodNoException(m) => (
            Target::MethodNoException {
                method: set.methods[m].id,
            },
            format!("{} returns normally", method_name(m)),
        ),
        Link::Pair(a, b) => {
            let branch = |n: usize| {
                let node = &set.branches[n];
                let p = &set.predicates[node.predicate];
                let at = node.line.map_or(String::new(), |l| format!(" line {l}"));
                (
                    set.methods[node.method].class,
                    node.cfg,
                    format!(
                        "{}{at} @{} {} {}",
                        method_name(node.method),
                        p.offset,
                        p.opcode,
                        node.outcome
                    ),
                )
            };
            let ((first_class, first, d1), (second_class, second, d2)) = (branch(a), branch(b));
            (
                Target::BranchPair {
                    first_class,
                    first,
                    second_class,
                    second,
                },
                format!("{d1} & {d2}{dead}"),
            )
        }
        Link::Method(m) | Link::Exception(m) => {
            let cm = &set.methods[m];
            (
                Target::Method {
                    method: cm.id,
                    probe: cm.probe,
                },
                method_name(m),
            )
        }
    };
    Some(Goal {
        id,
        criterion,
        class,
        target,
        line,
        reachable,
        description: description + suffix,
    })
}

/// `throws` clauses by (name, descriptor), as binary names.
fn declared_exceptions(
    file: &ClassFile,
    analysis: &ClassAnalysis,
) -> Result<BTreeMap<(String, String), Vec<String>>> {
    let name = file.name()?;
    if name != analysis.name {
        return Err(Error::WrongClassFile {
            class: analysis.binary_name(),
            file: name.replace('/', "."),
        });
    }
    let mut out = BTreeMap::new();
    for m in &file.methods {
        let mut list = Vec::new();
        for a in &m.attributes {
            if let AttributeBody::Exceptions(classes) = &a.body {
                for c in classes {
                    list.push(file.constant_pool.class_name(*c)?.replace('/', "."));
                }
            }
        }
        if !list.is_empty() {
            out.insert(
                (
                    file.member_name(m)?.into_owned(),
                    file.member_descriptor(m)?.into_owned(),
                ),
                list,
            );
        }
    }
    Ok(out)
}

/// Matches the analysis's branches of one method with its probe sites, adding predicates and
/// branch nodes (controls are filled in later).
#[allow(clippy::too_many_arguments)]
fn match_branches(
    set: &mut GoalSet,
    analysis: &ClassAnalysis,
    binary: &str,
    class: ClassIndex,
    m: &MethodAnalysis,
    body: &MethodBody,
    method: usize,
    sites: &[BranchSite],
) -> Result<()> {
    let mismatch = |offset: u32, detail: String| Error::ProbeMismatch {
        method: format!("{binary}.{}", m.signature()),
        offset,
        detail,
    };
    let by_offset: BTreeMap<u32, usize> = sites
        .iter()
        .enumerate()
        .map(|(i, s)| (s.offset, i))
        .collect();
    let mut predicate_of_site: Vec<Option<usize>> = vec![None; sites.len()];
    let mut matched: Vec<usize> = vec![0; sites.len()];
    for b in body.branch_ids() {
        let br = analysis.branch(b);
        let Some(&si) = by_offset.get(&br.offset) else {
            return Err(mismatch(br.offset, "no probe site at this offset".into()));
        };
        let site = &sites[si];
        let index = match (&br.outcome, &site.kind) {
            (Outcome::Taken, BranchKind::Jump { .. }) => Some(0),
            (Outcome::NotTaken, BranchKind::Jump { .. }) => Some(1),
            (Outcome::Case(k), BranchKind::Switch { keys }) => keys.iter().position(|x| x == k),
            (Outcome::Default, BranchKind::Switch { keys }) => Some(keys.len()),
            _ => None,
        };
        let Some(outcome) = index.and_then(|i| site.outcomes.get(i)) else {
            return Err(mismatch(
                br.offset,
                format!("the probe site has no outcome `{}`", br.outcome),
            ));
        };
        let target = body.cfg.block(br.to).start;
        if target != outcome.target {
            return Err(mismatch(
                br.offset,
                format!(
                    "outcome `{}` leads to offset {target} in the analysis but {} in the probe map",
                    br.outcome, outcome.target
                ),
            ));
        }
        matched[si] += 1;
        let predicate = if let Some(p) = predicate_of_site[si] {
            p
        } else {
            let p = set.predicates.len();
            set.predicates.push(Predicate {
                id: PredicateId(p as u32),
                class,
                method: m.id,
                offset: site.offset,
                line: br.line.or(site.line),
                opcode: br.opcode.clone(),
                slots: site.outcomes.iter().map(|o| o.slot).collect(),
                reachable: br.reachable,
            });
            predicate_of_site[si] = Some(p);
            p
        };
        set.branches.push(BranchNode {
            method,
            slot: outcome.slot,
            predicate,
            controls: Vec::new(),
            cfg: b,
            outcome: br.outcome,
            reachable: br.reachable,
            line: br.line,
        });
    }
    for (si, site) in sites.iter().enumerate() {
        if matched[si] != site.outcomes.len() {
            return Err(mismatch(
                site.offset,
                format!(
                    "the probe site has {} outcomes, the analysis {} branches",
                    site.outcomes.len(),
                    matched[si]
                ),
            ));
        }
    }
    Ok(())
}

/// Line nodes of a class: each probed line of a method with goals, with the branches (or
/// method entries) its blocks are control dependent on.
fn add_lines(
    set: &mut GoalSet,
    analysis: &ClassAnalysis,
    probes: &ClassProbes,
    class: ClassIndex,
    included: &[Included<'_>],
    node_of: &BTreeMap<BranchId, usize>,
) {
    // Per line: (position in `included`, block) pairs holding its code.
    let mut blocks: BTreeMap<u16, BTreeSet<(usize, BlockId)>> = BTreeMap::new();
    for (k, inc) in included.iter().enumerate() {
        let cfg = &inc.body.cfg;
        for blk in cfg.blocks() {
            if blk.kind != BlockKind::Code {
                continue;
            }
            for (offset, _) in cfg.block_insns(blk.id) {
                if let Some(l) = cfg.line_at(*offset)
                    && inc.lines.contains(&l)
                {
                    blocks.entry(l).or_default().insert((k, blk.id));
                }
            }
        }
    }
    // Per method: branch edges to branch nodes.
    let edge_nodes: Vec<BTreeMap<EdgeId, usize>> = included
        .iter()
        .map(|inc| {
            inc.body
                .branch_ids()
                .filter_map(|b| node_of.get(&b).map(|&n| (analysis.branch(b).edge, n)))
                .collect()
        })
        .collect();
    let probed: BTreeSet<u16> = included
        .iter()
        .flat_map(|inc| inc.lines.iter().copied())
        .collect();
    for lp in &probes.lines {
        if !probed.contains(&lp.line) {
            continue;
        }
        let mut controls = BTreeSet::new();
        let mut methods = BTreeSet::new();
        let mut reachable = false;
        let mut any = false;
        for &(k, blk) in blocks.get(&lp.line).into_iter().flatten() {
            let inc = &included[k];
            any = true;
            methods.insert(inc.method);
            reachable |= inc.body.cfg.block(blk).reachable;
            block_controls(inc.body, blk, inc.method, &edge_nodes[k], &mut controls);
        }
        set.lines.push(LineNode {
            class,
            line: lp.line,
            probe: lp.id,
            controls: controls.into_iter().collect(),
            reachable: reachable || !any,
            methods: methods.into_iter().collect(),
        });
    }
}

/// What block `blk` is control dependent on, looking through edges that are not branches
/// (into exception handlers, …) to what controls their source.
fn block_controls(
    body: &MethodBody,
    blk: BlockId,
    method: usize,
    edge_nodes: &BTreeMap<EdgeId, usize>,
    out: &mut BTreeSet<Ctl>,
) {
    let mut seen = BTreeSet::from([blk]);
    let mut stack = vec![blk];
    while let Some(x) = stack.pop() {
        for d in body.cdg.of(x) {
            match d {
                Dependence::Entry => {
                    out.insert(Ctl::Entry(method));
                }
                Dependence::Edge(e) => {
                    if let Some(&n) = edge_nodes.get(e) {
                        out.insert(Ctl::Branch(n));
                    } else {
                        let from = body.cfg.edge(*e).from;
                        if seen.insert(from) {
                            stack.push(from);
                        }
                    }
                }
            }
        }
    }
}
