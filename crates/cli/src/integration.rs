//! `ferrosuite integration`: class-integration tests of caller/callee pairs (Cling). The
//! pairs come from `--caller`/`--callee` or from the ranking of a class path's pairs by
//! coupled branches (`--pairs N`); each pair is one entry of a generation batch whose tests
//! are for the caller, named `<Caller><Callee>IT`.

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, Result, bail};
use ferrosuite_bytecode::classpath::ClassPath;
use ferrosuite_cfg::Analyzer;
use ferrosuite_generate::batch::{Batch, check_classpath};
use ferrosuite_generate::{Coupling, criteria};
use ferrosuite_search::engine::Algorithms;

use crate::generate::{Request as GenerateRequest, base_config, execute_batch, split_classpath};

/// The arguments of `ferrosuite integration`.
#[derive(clap::Args, Debug)]
#[group(skip)]
pub struct Request {
    /// The caller class R (binary name), with --callee.
    #[arg(long, requires = "callee", conflicts_with = "pairs")]
    pub caller: Option<String>,
    /// The callee class E, with --caller.
    #[arg(long, requires = "caller")]
    pub callee: Option<String>,
    /// Test the N pairs of the first class-path entry with the most coupled branches (as
    /// `analyze --pairs N` ranks them).
    #[arg(long, value_name = "N")]
    pub pairs: Option<usize>,
    /// The options of `generate` (budget, seed, algorithm, output, …).
    #[command(flatten)]
    pub generate: GenerateRequest,
}

/// Runs the pairs as one batch: progress on stderr, the summary table (with each pair's
/// coupled-branch coverage) on stdout, the report written.
pub fn run(req: &Request, algorithms: &Algorithms) -> Result<ExitCode> {
    let g = &req.generate;
    for (given, flag) in [
        (!g.classes.is_empty(), "--class"),
        (g.package.is_some(), "--package"),
        (g.project.is_some(), "--project"),
        (g.shard.is_some(), "--shard"),
        (g.pair.is_some(), "--pair"),
    ] {
        if given {
            bail!(
                "{flag} is an option of generate; integration takes --caller/--callee or --pairs"
            );
        }
    }
    let Some(cp) = &g.classpath else {
        bail!("give the class path of the code under test (--classpath, -c)");
    };
    let classpath = split_classpath(cp);
    check_classpath(&classpath)?;
    let pairs: Vec<(String, String)> = match (&req.caller, &req.callee, req.pairs) {
        (Some(r), Some(e), _) => vec![(r.clone(), e.clone())],
        (_, _, Some(n)) => ranked(cp, n)?,
        _ => bail!("give --caller and --callee, or --pairs N"),
    };
    if pairs.is_empty() {
        bail!("no caller/callee pair with coupled branches in the first entry of {cp}");
    }
    let mut with_defaults = g.clone();
    with_defaults.test_suffix = Some(g.test_suffix.clone().unwrap_or_else(|| "IT".into()));
    with_defaults.algorithm = Some(g.algorithm.clone().unwrap_or_else(|| "cling".into()));
    let mut config = base_config(&with_defaults, algorithms)?;
    if g.criteria.is_none() {
        config.fitness.criteria = criteria()
            .parse(ferrosuite_cling::criterion::NAME)
            .map_err(|e| anyhow::anyhow!("{e}"))?;
    }
    config.classpath = classpath;
    let out = g
        .out
        .clone()
        .unwrap_or_else(|| PathBuf::from("ferrosuite-tests"));
    let report_path = g
        .report
        .clone()
        .unwrap_or_else(|| out.join("ferrosuite-report.json"));
    let batch = Batch {
        config,
        classes: pairs.iter().map(|(r, _)| r.clone()).collect(),
        out,
        overwrite: g.overwrite,
        jobs: g.jobs,
        shard: None,
        select: None,
        pairs: pairs
            .into_iter()
            .map(|(caller, callee)| Coupling {
                caller,
                callee,
                integration: true,
            })
            .collect(),
    };
    let report = execute_batch(&with_defaults, &batch, &report_path)?;
    Ok(if report.all_generated() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(3)
    })
}

/// The first `n` pairs of the first entry of `cp` with coupled branches, best first.
fn ranked(cp: &str, n: usize) -> Result<Vec<(String, String)>> {
    let classpath =
        ClassPath::parse(cp).with_context(|| format!("cannot open class path {cp:?}"))?;
    let Some(entry) = classpath.entries().first() else {
        bail!("the class path is empty");
    };
    let names: BTreeSet<String> = entry.class_names()?.into_iter().collect();
    let analyzer = Analyzer::new(&classpath, ferrosuite_cfg::Config::default());
    let ranking = ferrosuite_cling::pairs::rank(&analyzer, &names);
    Ok(ranking
        .pairs
        .into_iter()
        .filter(|p| p.coupled_branches > 0)
        .take(n)
        .map(|p| (p.caller, p.callee))
        .collect())
}
