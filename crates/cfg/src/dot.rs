//! Graphviz DOT export of method CFGs, control-dependence graphs, CCFGs and caller/callee pairs.
//!
//! Blocks are labelled `B<id>` with their offset range and first source line; branch edges carry
//! the branch id, the outcome and the lines `L<from>→L<to>`; exceptional edges are dashed and
//! name the caught class; dead blocks are grey; call edges of a CCFG are dashed blue (call into
//! the callee's entry) and dotted blue (return from its exit). Render with `dot -Tsvg`.
//!
//! ```text
//! digraph "examples.Stack.pop()I" {
//!   n0 [label="ENTRY"]; n2 [label="B2 [0,5) L22"]; …
//!   n2 -> n3 [label="b4 taken L22→L25"];
//! }
//! ```

use std::fmt::Write as _;

use crate::ccfg::Ccfg;
use crate::cdg::Dependence;
use crate::class::ClassAnalysis;
use crate::coupled::BranchRef;
use crate::coupled::CoupledBranches;
use crate::graph::{BlockKind, Cfg, EdgeKind};
use crate::ids::{BlockId, BranchId, MethodId};

/// Escapes a string for a double-quoted DOT id or label.
#[must_use]
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '"' | '\\' => {
                out.push('\\');
                out.push(c);
            }
            '\n' => out.push_str("\\n"),
            _ => out.push(c),
        }
    }
    out
}

fn block_label(cfg: &Cfg, b: BlockId) -> String {
    let blk = cfg.block(b);
    match blk.kind {
        BlockKind::Entry => "ENTRY".into(),
        BlockKind::Exit => "EXIT".into(),
        BlockKind::Code => {
            let line = blk.line.map_or(String::new(), |l| format!(" L{l}"));
            format!("{b} [{},{}){line}", blk.start, blk.end)
        }
    }
}

fn block_style(cfg: &Cfg, b: BlockId) -> &'static str {
    let blk = cfg.block(b);
    match blk.kind {
        BlockKind::Entry | BlockKind::Exit => ", shape=oval",
        BlockKind::Code if !blk.reachable => ", style=filled, fillcolor=lightgrey",
        BlockKind::Code => "",
    }
}

/// The opening of a digraph named `title` (`compound` for graphs with clusters).
fn header(title: &str, compound: bool) -> String {
    format!(
        "digraph \"{}\" {{\n{}  node [shape=box, fontname=monospace];\n  edge [fontname=monospace, fontsize=10];\n",
        escape(title),
        if compound { "  compound=true;\n" } else { "" }
    )
}

/// Writes the node of block `b`; `lead` is the indentation and node-id prefix.
fn write_node(out: &mut String, cfg: &Cfg, b: BlockId, lead: &str) {
    let _ = writeln!(
        out,
        "{lead}{} [label=\"{}\"{}];",
        b.0,
        escape(&block_label(cfg, b)),
        block_style(cfg, b)
    );
}

fn line(l: Option<u16>) -> String {
    l.map_or_else(|| "?".into(), |l| format!("L{l}"))
}

/// Writes the nodes and edges of one method's CFG with node ids prefixed by `p`.
fn write_cfg_body(
    out: &mut String,
    class: &ClassAnalysis,
    m: MethodId,
    p: &str,
    highlight: &dyn Fn(&ClassAnalysis, BranchId) -> bool,
) {
    let Some(body) = &class.method(m).body else {
        return;
    };
    let cfg = &body.cfg;
    for b in cfg.blocks() {
        write_node(out, cfg, b.id, &format!("    {p}"));
    }
    for (i, e) in cfg.edges().iter().enumerate() {
        let (label, style) = match &e.kind {
            EdgeKind::Branch { outcome } => {
                let br = class.branch_on_edge(m, crate::EdgeId(i as u32));
                let b = br.map(|b| class.branch(b));
                let style = if br.is_some_and(|b| highlight(class, b)) {
                    ", style=bold, color=red"
                } else {
                    ""
                };
                (
                    format!(
                        "{} {outcome} {}→{}",
                        br.map_or(String::new(), |b| b.to_string()),
                        line(b.and_then(|b| b.line)),
                        line(b.and_then(|b| b.target_line))
                    ),
                    style,
                )
            }
            EdgeKind::Exception { catch } => (
                format!(
                    "catch {}",
                    catch
                        .as_deref()
                        .map_or("any", |c| c.rsplit('/').next().unwrap_or(c))
                ),
                ", style=dashed, color=red",
            ),
            EdgeKind::NoExit => ("no exit".into(), ", style=dotted"),
            EdgeKind::Return => ("return".into(), ""),
            EdgeKind::Throw => ("throw".into(), ", color=red"),
            EdgeKind::Jsr => ("jsr".into(), ""),
            EdgeKind::Ret => ("ret".into(), ""),
            EdgeKind::Entry | EdgeKind::Fallthrough | EdgeKind::Goto => (String::new(), ""),
        };
        let _ = writeln!(
            out,
            "    {p}{} -> {p}{} [label=\"{}\"{style}];",
            e.from.0,
            e.to.0,
            escape(label.trim())
        );
    }
}

/// The CFG of method `m` of `class` (`None` for a method without code).
#[must_use]
pub fn method_cfg(class: &ClassAnalysis, m: MethodId) -> Option<String> {
    let method = class.method(m);
    method.body.as_ref()?;
    let mut out = header(
        &format!("{}.{}", class.binary_name(), method.signature()),
        false,
    );
    write_cfg_body(&mut out, class, m, "n", &|_, _| false);
    out.push_str("}\n");
    Some(out)
}

/// The control-dependence graph of method `m`: an edge from the deciding block (or ENTRY) to
/// each block that depends on it, labelled with the branch (or edge kind) it depends on.
#[must_use]
pub fn method_cdg(class: &ClassAnalysis, m: MethodId) -> Option<String> {
    let method = class.method(m);
    let body = method.body.as_ref()?;
    let cfg = &body.cfg;
    let mut out = format!(
        "digraph \"{}\" {{\n  node [shape=box, fontname=monospace];\n  edge [fontname=monospace, fontsize=10];\n",
        escape(&format!(
            "CDG {}.{}",
            class.binary_name(),
            method.signature()
        ))
    );
    for b in cfg.blocks() {
        if b.id != Cfg::EXIT {
            write_node(&mut out, cfg, b.id, "  n");
        }
    }
    for (b, d) in body.cdg.iter() {
        let (from, label) = match d {
            Dependence::Entry => (Cfg::ENTRY, String::new()),
            Dependence::Edge(e) => {
                let edge = cfg.edge(e);
                let label = match class.branch_on_edge(m, e) {
                    Some(br) => format!("{br} {}", class.branch(br).outcome),
                    None => match &edge.kind {
                        EdgeKind::Exception { .. } => "exception".into(),
                        other => format!("{other:?}").to_lowercase(),
                    },
                };
                (edge.from, label)
            }
        };
        let _ = writeln!(
            out,
            "  n{} -> n{} [label=\"{}\"];",
            from.0,
            b.0,
            escape(&label)
        );
    }
    out.push_str("}\n");
    Some(out)
}

fn write_ccfg(
    out: &mut String,
    ccfg: &Ccfg,
    prefix: &str,
    highlight: &dyn Fn(&ClassAnalysis, BranchId) -> bool,
) {
    for (i, member) in ccfg.members.iter().enumerate() {
        let _ = writeln!(
            out,
            "  subgraph \"cluster_{prefix}{i}\" {{\n    label=\"{}\";",
            escape(&member.qualified())
        );
        write_cfg_body(
            out,
            &member.class,
            member.method,
            &format!("{prefix}{i}_"),
            highlight,
        );
        out.push_str("  }\n");
    }
    for call in &ccfg.calls {
        let site = ccfg.site(call);
        let l = line(site.line);
        let _ = writeln!(
            out,
            "  {prefix}{c}_{b} -> {prefix}{e}_0 [label=\"call {l}\", style=dashed, color=blue];\n  {prefix}{e}_1 -> {prefix}{c}_{b} [label=\"return {l}\", style=dotted, color=blue];",
            c = call.caller,
            b = site.block.0,
            e = call.callee,
        );
    }
}

/// The CCFG: one cluster per member, joined by call and return edges.
#[must_use]
pub fn ccfg(ccfg: &Ccfg) -> String {
    let mut out = header(&format!("CCFG {}", ccfg.class.replace('/', ".")), true);
    write_ccfg(&mut out, ccfg, "r", &|_, _| false);
    out.push_str("}\n");
    out
}

/// Both CCFGs of a caller/callee pair and the call edges between them (bold), with the caller
/// and callee branches of the coupled pairs in bold red.
#[must_use]
pub fn pair(cb: &CoupledBranches) -> String {
    let mut out = header(
        &format!(
            "{} -> {}",
            cb.caller.class.replace('/', "."),
            cb.callee.class.replace('/', ".")
        ),
        true,
    );
    let mut targets = std::collections::BTreeSet::new();
    for (r, e) in &cb.pairs {
        targets.insert(r);
        targets.insert(e);
    }
    let highlight = |c: &ClassAnalysis, b: BranchId| {
        targets.contains(&BranchRef {
            class: c.name.clone(),
            branch: b,
        })
    };
    write_ccfg(&mut out, &cb.caller, "r", &highlight);
    write_ccfg(&mut out, &cb.callee, "e", &highlight);
    for s in &cb.sites {
        let Some(body) = cb.caller.members[s.caller].body() else {
            continue;
        };
        let site = &body.calls[s.site];
        let _ = writeln!(
            out,
            "  r{c}_{b} -> e{e}_0 [label=\"call {}\", style=bold, color=darkgreen];",
            line(site.line),
            c = s.caller,
            b = site.block.0,
            e = s.callee,
        );
    }
    let _ = writeln!(
        out,
        "  // {} coupled branches; target branches: {}",
        cb.pairs.len(),
        targets
            .iter()
            .map(|t| cb.describe(t))
            .collect::<Vec<_>>()
            .join("; ")
    );
    out.push_str("}\n");
    out
}
