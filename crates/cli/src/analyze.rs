//! `ferrosuite analyze`: branches, goals, the goal hierarchy and intra-class calls of a class;
//! the coupled branches of a caller/callee pair; or counts over every class of a class path.
//! Text for people, `--format json` for tools (shape documented in the README), DOT (and SVG
//! when Graphviz is installed) with `--dot DIR`.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use anyhow::{Context, Result, bail};
use ferrosuite_bytecode::classpath::ClassPath;
use ferrosuite_cfg::{
    Analyzer, BranchRef, Ccfg, ClassAnalysis, Config, Control, CoupledBranches, Goal, Scope, dot,
};
use serde::Serialize;

/// What to analyse.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    /// One class.
    Class(String),
    /// A caller/callee pair.
    Pair {
        /// Caller class.
        caller: String,
        /// Callee class.
        callee: String,
    },
    /// Every class of the first class-path entry (or of one JDK module).
    All {
        /// Only this module of a JDK image or jmod set.
        module: Option<String>,
    },
    /// Rank the caller/callee pairs of the first class-path entry; print this many.
    Pairs(usize),
}

impl Target {
    /// The target the command-line options describe, or a usage error.
    pub fn from_options(
        class: Option<String>,
        caller: Option<String>,
        callee: Option<String>,
        all: bool,
        module: Option<String>,
        pairs: Option<usize>,
    ) -> Result<Self> {
        Ok(match (class, caller, callee, all, pairs) {
            (Some(c), None, None, false, None) => Target::Class(c),
            (None, Some(caller), Some(callee), false, None) => Target::Pair { caller, callee },
            (None, None, None, true, None) => Target::All { module },
            (None, None, None, false, Some(n)) => Target::Pairs(n),
            _ => bail!(
                "give exactly one of: a CLASS, --caller R --callee E, --all, or --pairs N (see ferrosuite analyze --help)"
            ),
        })
    }
}

/// What to analyse and how to show it (plain data from the command line).
#[derive(Debug)]
pub struct Request {
    /// Class path specification.
    pub classpath: String,
    /// What to analyse.
    pub target: Target,
    /// Only methods with this name (or `name(desc)`).
    pub method: Option<String>,
    /// JSON instead of text.
    pub json: bool,
    /// Directory for DOT (and SVG) files.
    pub dot: Option<PathBuf>,
    /// Replace files in a non-empty DOT directory.
    pub overwrite: bool,
    /// No exceptional edges.
    pub no_exception_edges: bool,
}

pub fn run(req: &Request) -> Result<ExitCode> {
    let cp = ClassPath::parse(&req.classpath)
        .with_context(|| format!("cannot open class path {:?}", req.classpath))?;
    let config = Config {
        exception_edges: !req.no_exception_edges,
        ..Config::default()
    };
    let analyzer = Analyzer::new(&cp, config);
    if let Some(dir) = &req.dot {
        prepare_dir(dir, req.overwrite)?;
    }
    match &req.target {
        Target::Class(c) => class(&analyzer, c, req),
        Target::Pair { caller, callee } => pair(&analyzer, caller, callee, req),
        Target::All { module } => all(&analyzer, &cp, module.as_deref(), req),
        Target::Pairs(n) => rank_pairs(&analyzer, &cp, *n, req),
    }
}

fn prepare_dir(dir: &Path, overwrite: bool) -> Result<()> {
    if dir.exists() {
        let non_empty = std::fs::read_dir(dir)
            .with_context(|| format!("cannot read {}", dir.display()))?
            .next()
            .is_some();
        if non_empty && !overwrite {
            bail!(
                "DOT directory {} is not empty (pass --overwrite to replace files in it)",
                dir.display()
            );
        }
    }
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))
}

/// Writes `name.dot` into `dir`, and `name.svg` when Graphviz's `dot` runs.
fn write_dot(dir: &Path, name: &str, text: &str, svg: bool) -> Result<()> {
    let file: String = name
        .chars()
        .map(|c| {
            if c.is_alphanumeric() || "._-$".contains(c) {
                c
            } else {
                '_'
            }
        })
        .collect();
    let path = dir.join(format!("{file}.dot"));
    std::fs::write(&path, text).with_context(|| format!("cannot write {}", path.display()))?;
    if svg {
        let out = dir.join(format!("{file}.svg"));
        let st = std::process::Command::new("dot")
            .arg("-Tsvg")
            .arg("-o")
            .arg(&out)
            .arg(&path)
            .status()
            .with_context(|| format!("cannot run dot on {}", path.display()))?;
        if !st.success() {
            bail!("dot failed on {}", path.display());
        }
    }
    Ok(())
}

fn graphviz() -> bool {
    std::process::Command::new("dot")
        .arg("-V")
        .output()
        .is_ok_and(|o| o.status.success())
}

fn method_selected(req: &Request, name: &str, desc: &str) -> bool {
    req.method
        .as_ref()
        .is_none_or(|m| m == name || *m == format!("{name}{desc}"))
}

#[derive(Serialize)]
struct MethodJson<'a> {
    id: u32,
    name: &'a str,
    descriptor: &'a str,
    access: u16,
    has_code: bool,
    blocks: usize,
    edges: usize,
    unreachable_blocks: usize,
    exception_edges: bool,
    endless_loop: bool,
    branches: Vec<u32>,
    calls: Vec<CallJson>,
}

#[derive(Serialize)]
struct CallJson {
    offset: u32,
    line: Option<u16>,
    owner: String,
    name: String,
    descriptor: String,
    /// The member of the class's CCFG the call resolves to.
    intra_class: Option<String>,
}

#[derive(Serialize)]
struct ClassJson<'a> {
    class: String,
    methods: Vec<MethodJson<'a>>,
    branches: Vec<&'a ferrosuite_cfg::Branch>,
    goals: Vec<GoalJson>,
    hierarchy: &'a ferrosuite_cfg::GoalHierarchy,
}

#[derive(Serialize)]
struct GoalJson {
    id: u32,
    #[serde(flatten)]
    goal: Goal,
}

fn controls_text(c: &ClassAnalysis, controls: &[Control]) -> String {
    controls
        .iter()
        .map(|x| match x {
            Control::Entry => "entry".to_string(),
            Control::Branch(b) => c.branches[b.index()].id.to_string(),
        })
        .collect::<Vec<_>>()
        .join(",")
}

fn line(l: Option<u16>) -> String {
    l.map_or_else(|| "-".into(), |l| format!("L{l}"))
}

fn class(analyzer: &Analyzer<'_>, name: &str, req: &Request) -> Result<ExitCode> {
    let c = analyzer.class(name)?;
    analyzer.require_code(&c)?;
    if let Some(m) = &req.method
        && !c
            .methods
            .iter()
            .any(|x| method_selected(req, &x.name, &x.descriptor))
    {
        return Err(ferrosuite_cfg::Error::MethodNotFound {
            class: c.binary_name(),
            method: m.clone(),
        }
        .into());
    }
    let ccfg = Ccfg::build(analyzer, &c.name, &Scope::Declared)?;
    let intra = |m: usize, site: usize| {
        ccfg.calls
            .iter()
            .find(|k| ccfg.members[k.caller].method.index() == m && k.site == site)
            .map(|k| ccfg.members[k.callee].analysis().signature())
    };
    let selected: Vec<_> = c
        .methods
        .iter()
        .filter(|m| method_selected(req, &m.name, &m.descriptor))
        .collect();
    if req.json {
        let methods = selected
            .iter()
            .map(|m| {
                let b = m.body.as_ref();
                MethodJson {
                    id: m.id.0,
                    name: &m.name,
                    descriptor: &m.descriptor,
                    access: m.access,
                    has_code: b.is_some(),
                    blocks: b.map_or(0, |b| b.cfg.blocks().len()),
                    edges: b.map_or(0, |b| b.cfg.edges().len()),
                    unreachable_blocks: b.map_or(0, |b| b.cfg.unreachable_blocks()),
                    exception_edges: b.is_some_and(|b| b.cfg.has_exception_edges()),
                    endless_loop: b.is_some_and(|b| b.cfg.has_endless_loop()),
                    branches: b.map_or_else(Vec::new, |b| b.branches.clone().collect()),
                    calls: b.map_or_else(Vec::new, |b| {
                        b.calls
                            .iter()
                            .enumerate()
                            .map(|(k, s)| CallJson {
                                offset: s.offset,
                                line: s.line,
                                owner: s.owner.replace('/', "."),
                                name: s.name.clone(),
                                descriptor: s.descriptor.clone(),
                                intra_class: intra(m.id.index(), k),
                            })
                            .collect()
                    }),
                }
            })
            .collect();
        let json = ClassJson {
            class: c.binary_name(),
            methods,
            branches: c
                .branches
                .iter()
                .filter(|b| selected.iter().any(|m| m.id == b.method))
                .collect(),
            goals: c
                .goals
                .iter()
                .enumerate()
                .map(|(i, g)| GoalJson {
                    id: i as u32,
                    goal: *g,
                })
                .collect(),
            hierarchy: &c.hierarchy,
        };
        out!("{}", serde_json::to_string_pretty(&json)?);
    } else {
        let with_code = c.methods.iter().filter(|m| m.body.is_some()).count();
        let method_goals = c.goals.len() - c.branches.len();
        out!(
            "class {}: {} methods ({with_code} with code), {} branches, {} goals ({} branch, {method_goals} method)",
            c.binary_name(),
            c.methods.len(),
            c.branches.len(),
            c.goals.len(),
            c.branches.len(),
        );
        out!(
            "\n{:<40} {:>6} {:>6} {:>8} {:>5} {:>9} {:>8}",
            "method",
            "blocks",
            "edges",
            "branches",
            "dead",
            "exception",
            "endless"
        );
        for m in &selected {
            match &m.body {
                None => out!("{:<40} (no code)", m.signature()),
                Some(b) => out!(
                    "{:<40} {:>6} {:>6} {:>8} {:>5} {:>9} {:>8}",
                    m.signature(),
                    b.cfg.blocks().len(),
                    b.cfg.edges().len(),
                    b.branches.len(),
                    b.cfg.unreachable_blocks(),
                    if b.cfg.has_exception_edges() {
                        "yes"
                    } else {
                        "-"
                    },
                    if b.cfg.has_endless_loop() { "yes" } else { "-" },
                ),
            }
        }
        out!(
            "\n{:<5} {:<28} {:>6} {:>6} {:<13} {:<12} {:>6} {:>5}  controls",
            "id",
            "method",
            "offset",
            "line",
            "opcode",
            "outcome",
            "to",
            "depth"
        );
        for b in c
            .branches
            .iter()
            .filter(|b| selected.iter().any(|m| m.id == b.method))
        {
            out!(
                "{:<5} {:<28} {:>6} {:>6} {:<13} {:<12} {:>6} {:>5}  {}{}",
                b.id.to_string(),
                c.method(b.method).signature(),
                b.offset,
                line(b.line),
                b.opcode,
                b.outcome.to_string(),
                line(b.target_line),
                b.depth.map_or_else(|| "-".into(), |d| d.to_string()),
                controls_text(&c, &b.controls),
                if b.reachable { "" } else { " (dead code)" },
            );
        }
        out!("\ngoals (DynaMOSA hierarchy)");
        for (i, g) in c.goals.iter().enumerate() {
            let method = match g {
                Goal::Branch(b) => c.branch(*b).method,
                Goal::Method(m) => *m,
            };
            if !selected.iter().any(|m| m.id == method) {
                continue;
            }
            let what = match g {
                Goal::Branch(b) => format!("branch {b}"),
                Goal::Method(m) => format!("method {}", c.method(*m).signature()),
            };
            let root = if c.hierarchy.roots.iter().any(|r| r.index() == i) {
                "root"
            } else {
                "    "
            };
            let children = &c.hierarchy.children[i];
            let kids = if children.is_empty() {
                String::new()
            } else {
                format!(
                    "  activates {}",
                    children
                        .iter()
                        .map(ToString::to_string)
                        .collect::<Vec<_>>()
                        .join(" ")
                )
            };
            out!("  g{i:<4} {root} {what}{kids}");
        }
        let calls: Vec<_> = ccfg
            .calls
            .iter()
            .filter(|k| {
                selected
                    .iter()
                    .any(|m| m.id == ccfg.members[k.caller].method)
            })
            .collect();
        if !calls.is_empty() {
            out!("\nintra-class calls (CCFG)");
            for k in calls {
                let s = ccfg.site(k);
                out!(
                    "  {} @{} {} -> {}",
                    ccfg.members[k.caller].analysis().signature(),
                    s.offset,
                    line(s.line),
                    ccfg.members[k.callee].analysis().signature()
                );
            }
        }
    }
    if let Some(dir) = &req.dot {
        let svg = graphviz();
        let base = c.binary_name();
        for m in &selected {
            let stem = format!("{base}.{}-{}", m.id.0, m.name);
            if let Some(text) = dot::method_cfg(&c, m.id) {
                write_dot(dir, &format!("{stem}.cfg"), &text, svg)?;
            }
            if let Some(text) = dot::method_cdg(&c, m.id) {
                write_dot(dir, &format!("{stem}.cdg"), &text, svg)?;
            }
        }
        write_dot(dir, &format!("{base}.ccfg"), &dot::ccfg(&ccfg), svg)?;
        eprintln!(
            "DOT{} files written to {}",
            if svg { " and SVG" } else { "" },
            dir.display()
        );
    }
    Ok(ExitCode::SUCCESS)
}

#[derive(Serialize)]
struct BranchJson {
    class: String,
    id: u32,
    method: String,
    offset: u32,
    line: Option<u16>,
    outcome: Option<ferrosuite_cfg::Outcome>,
    target_line: Option<u16>,
}

#[derive(Serialize)]
struct SiteJson {
    caller: String,
    offset: u32,
    line: Option<u16>,
    callee: String,
    caller_branches: Vec<BranchJson>,
    callee_branches: Vec<BranchJson>,
}

#[derive(Serialize)]
struct PairJson {
    caller: String,
    callee: String,
    relation: ferrosuite_cfg::Relation,
    caller_ccfg: Vec<String>,
    callee_ccfg: Vec<String>,
    call_sites: Vec<SiteJson>,
    coupled_branches: Vec<[BranchJson; 2]>,
    covering_methods: Vec<String>,
}

fn branch_json(cb: &CoupledBranches, r: &BranchRef) -> BranchJson {
    let c = cb.class_of(r);
    let b = c.map(|c| c.branch(r.branch));
    BranchJson {
        class: r.class.replace('/', "."),
        id: r.branch.0,
        method: match (c, b) {
            (Some(c), Some(b)) => c.method(b.method).signature(),
            _ => String::new(),
        },
        offset: b.map_or(0, |b| b.offset),
        line: b.and_then(|b| b.line),
        outcome: b.map(|b| b.outcome),
        target_line: b.and_then(|b| b.target_line),
    }
}

fn pair(analyzer: &Analyzer<'_>, caller: &str, callee: &str, req: &Request) -> Result<ExitCode> {
    let cb = CoupledBranches::analyze(analyzer, caller, callee)?;
    let (r, e) = (
        cb.caller.class.replace('/', "."),
        cb.callee.class.replace('/', "."),
    );
    let short = |b: &BranchJson| {
        format!(
            "{}.{} @{} {} {} -> {}",
            b.class.rsplit('.').next().unwrap_or(&b.class),
            b.method,
            b.offset,
            line(b.line),
            b.outcome.map_or_else(String::new, |o| o.to_string()),
            line(b.target_line)
        )
    };
    let sites: Vec<SiteJson> = cb
        .sites
        .iter()
        .map(|s| {
            let m = &cb.caller.members[s.caller];
            let site = &m.body().map_or(&[][..], |b| b.calls.as_slice())[s.site];
            SiteJson {
                caller: m.qualified(),
                offset: site.offset,
                line: site.line,
                callee: cb.callee.members[s.callee].qualified(),
                caller_branches: s
                    .caller_branches
                    .iter()
                    .map(|b| branch_json(&cb, b))
                    .collect(),
                callee_branches: s
                    .callee_branches
                    .iter()
                    .map(|b| branch_json(&cb, b))
                    .collect(),
            }
        })
        .collect();
    let covering: Vec<String> = cb
        .covering
        .iter()
        .map(|&i| cb.caller.members[i].qualified())
        .collect();
    if req.json {
        let json = PairJson {
            caller: r,
            callee: e,
            relation: cb.relation,
            caller_ccfg: cb
                .caller
                .members
                .iter()
                .map(ferrosuite_cfg::ccfg::Member::qualified)
                .collect(),
            callee_ccfg: cb
                .callee
                .members
                .iter()
                .map(ferrosuite_cfg::ccfg::Member::qualified)
                .collect(),
            call_sites: sites,
            coupled_branches: cb
                .pairs
                .iter()
                .map(|(a, b)| [branch_json(&cb, a), branch_json(&cb, b)])
                .collect(),
            covering_methods: covering,
        };
        out!("{}", serde_json::to_string_pretty(&json)?);
    } else {
        let relation = match cb.relation {
            ferrosuite_cfg::Relation::Unrelated => "unrelated classes",
            ferrosuite_cfg::Relation::CallerIsSuper => "the callee extends the caller",
            ferrosuite_cfg::Relation::CallerIsSub => "the caller extends the callee",
        };
        out!("caller {r}, callee {e} ({relation})");
        out!(
            "CCFG sizes: caller {} methods, callee {} methods",
            cb.caller.members.len(),
            cb.callee.members.len()
        );
        out!("\ncall sites: {}", sites.len());
        for s in &sites {
            out!(
                "  {} @{} {} -> {}: |B_R| = {}, |B_E| = {}",
                s.caller,
                s.offset,
                line(s.line),
                s.callee,
                s.caller_branches.len(),
                s.callee_branches.len()
            );
            for b in &s.caller_branches {
                out!("      B_R  {}", short(b));
            }
            for b in &s.callee_branches {
                out!("      B_E  {}", short(b));
            }
        }
        out!("\ncoupled branches: {}", cb.pairs.len());
        for (a, b) in &cb.pairs {
            out!(
                "  ({}, {})",
                short(&branch_json(&cb, a)),
                short(&branch_json(&cb, b))
            );
        }
        out!("\ncovering methods: {}", covering.len());
        for m in &covering {
            out!("  {m}");
        }
    }
    if let Some(dir) = &req.dot {
        let svg = graphviz();
        let name = format!(
            "{}--{}",
            cb.caller.class.replace('/', "."),
            cb.callee.class.replace('/', ".")
        );
        write_dot(dir, &name, &dot::pair(&cb), svg)?;
        eprintln!("DOT file written to {}", dir.display());
    }
    Ok(ExitCode::SUCCESS)
}

#[derive(Serialize, Default)]
struct Totals {
    classes: usize,
    methods: usize,
    methods_with_code: usize,
    blocks: usize,
    edges: usize,
    unreachable_blocks: usize,
    branches: usize,
    goals: usize,
    method_goals: usize,
    methods_with_exception_edges: usize,
    methods_with_endless_loops: usize,
    call_sites: usize,
    failures: Vec<String>,
    seconds: f64,
}

fn all(
    analyzer: &Analyzer<'_>,
    cp: &ClassPath,
    module: Option<&str>,
    req: &Request,
) -> Result<ExitCode> {
    let Some(entry) = cp.entries().first() else {
        bail!("the class path is empty");
    };
    let names: Vec<String> = match module {
        Some(module) => {
            let prefix = format!("{module}/");
            let mut v: Vec<String> = cp
                .entries()
                .iter()
                .map(ferrosuite_bytecode::classpath::ClassPathEntry::files)
                .collect::<std::result::Result<Vec<_>, _>>()?
                .into_iter()
                .flatten()
                .filter_map(|f| {
                    f.strip_prefix(&prefix)
                        .filter(|p| p.ends_with(".class") && !p.ends_with("module-info.class"))
                        .map(|p| p.trim_end_matches(".class").to_string())
                })
                .collect();
            if v.is_empty() {
                // jmods list their files without the module name: take the entry named after it.
                for e in cp.entries() {
                    if e.path().file_stem().is_some_and(|s| s == module) {
                        v = e.class_names()?;
                    }
                }
            }
            if v.is_empty() {
                bail!("no classes of module {module} on the class path");
            }
            v
        }
        None => entry.class_names()?,
    };
    let start = Instant::now();
    let mut t = Totals::default();
    for (i, name) in names.iter().enumerate() {
        if !req.json && std::io::IsTerminal::is_terminal(&std::io::stderr()) && i % 256 == 0 {
            eprint!("\r[{i:>6}/{}] analysing", names.len());
        }
        // Each class on its own, so that memory stays flat over a whole JDK.
        let c = match cp
            .load(name)
            .map_err(ferrosuite_cfg::Error::from)
            .and_then(|cf| ClassAnalysis::analyze(&cf, analyzer.config()))
        {
            Ok(c) => c,
            Err(e) => {
                t.failures.push(format!("{}: {e}", name.replace('/', ".")));
                continue;
            }
        };
        t.classes += 1;
        t.methods += c.methods.len();
        t.branches += c.branches.len();
        t.goals += c.goals.len();
        t.method_goals += c.goals.len() - c.branches.len();
        for m in &c.methods {
            if let Some(b) = &m.body {
                t.methods_with_code += 1;
                t.blocks += b.cfg.blocks().len();
                t.edges += b.cfg.edges().len();
                t.unreachable_blocks += b.cfg.unreachable_blocks();
                t.methods_with_exception_edges += usize::from(b.cfg.has_exception_edges());
                t.methods_with_endless_loops += usize::from(b.cfg.has_endless_loop());
                t.call_sites += b.calls.len();
            }
        }
    }
    t.seconds = start.elapsed().as_secs_f64();
    if !req.json && std::io::IsTerminal::is_terminal(&std::io::stderr()) {
        eprintln!("\r[{0:>6}/{0}] analysed ", names.len());
    }
    if req.json {
        out!("{}", serde_json::to_string_pretty(&t)?);
    } else {
        let what = module.map_or_else(|| entry.path().display().to_string(), String::from);
        out!(
            "{what}: {} classes, {} methods ({} with code), {} branches, {} goals ({} method goals)",
            t.classes,
            t.methods,
            t.methods_with_code,
            t.branches,
            t.goals,
            t.method_goals
        );
        out!(
            "blocks {}, edges {}, unreachable blocks {}, call sites {}",
            t.blocks,
            t.edges,
            t.unreachable_blocks,
            t.call_sites
        );
        out!(
            "methods with exceptional edges {}, methods with endless loops {}",
            t.methods_with_exception_edges,
            t.methods_with_endless_loops
        );
        out!(
            "failures {} (analysed in {:.2} s)",
            t.failures.len(),
            t.seconds
        );
        for f in &t.failures {
            out!("  failed: {f}");
        }
    }
    Ok(if t.failures.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(3)
    })
}

/// Every (R, E) pair of classes of the first entry where R calls E, ranked by the number of
/// coupled branches (then call sites): candidates for class-integration testing.
fn rank_pairs(
    analyzer: &Analyzer<'_>,
    cp: &ClassPath,
    n: usize,
    req: &Request,
) -> Result<ExitCode> {
    let Some(entry) = cp.entries().first() else {
        bail!("the class path is empty");
    };
    let names: std::collections::BTreeSet<String> = entry.class_names()?.into_iter().collect();
    let ranking = ferrosuite_cling::pairs::rank(analyzer, &names);
    let coupled = ranking.with_coupled_branches();
    let (mut rows, failures) = (ranking.pairs, ranking.failures);
    let total = rows.len();
    rows.truncate(n);
    if req.json {
        #[derive(Serialize)]
        struct Ranking {
            pairs_with_call_sites: usize,
            pairs_with_coupled_branches: usize,
            top: Vec<ferrosuite_cling::pairs::PairRank>,
            failures: Vec<String>,
        }
        let json = Ranking {
            pairs_with_call_sites: total,
            pairs_with_coupled_branches: coupled,
            top: rows,
            failures: failures.clone(),
        };
        out!("{}", serde_json::to_string_pretty(&json)?);
    } else {
        out!(
            "{}: {total} caller/callee pairs with call sites, {coupled} with coupled branches",
            entry.path().display()
        );
        out!("{:>8} {:>6}  pair", "coupled", "sites");
        for r in &rows {
            out!(
                "{:>8} {:>6}  {} -> {}",
                r.coupled_branches,
                r.call_sites,
                r.caller,
                r.callee
            );
        }
        for f in &failures {
            out!("  failed: {f}");
        }
    }
    Ok(if failures.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(3)
    })
}
