//! `ferrosuite generate --project DIR`: a Maven project's modules, each a batch with the
//! module's class paths, JUnit generation and release, tests into its `src/test/java`, the
//! report into its `target/ferrosuite-report.json`. With `--shard K/N` the classes of all
//! modules are split as one list, so that a project of many small modules spreads evenly.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Result, bail};
use ferrosuite_emit::JUnit;
use ferrosuite_generate::Config;
use ferrosuite_generate::batch::package_classes;
use ferrosuite_generate::project::{Maven, Module, Project, testable_classes};
use ferrosuite_generate::shard::{Shard, assign, class_sizes};

use crate::generate::{Request, execute};

/// A module to run and its classes.
struct Planned<'a> {
    module: &'a Module,
    config: Config,
    classes: Vec<String>,
    report: PathBuf,
}

/// Loads the project with Maven and runs a batch per module with classes to test.
pub fn run(req: &Request, base: &Config, shard: Option<Shard>, dir: &Path) -> Result<ExitCode> {
    eprintln!(
        "[project] compiling {} and reading its class paths with Maven",
        dir.display()
    );
    let maven = Maven {
        args: req.maven_args.clone(),
        ..Maven::default()
    };
    let project = Project::load(dir, &maven)?;
    let mut all_done = true;
    let mut plan = Vec::new();
    let mut found: BTreeSet<String> = BTreeSet::new();
    for module in &project.modules {
        let Some(classes) = module_classes(req, module)? else {
            continue;
        };
        found.extend(classes.iter().cloned());
        let mut config = base.clone();
        config.classpath = module.classpath();
        config
            .test_classpath
            .extend(module.test_classpath.iter().cloned());
        if config.release.is_none() {
            config.release = module.release;
        }
        if req.junit.is_none() {
            let Some(junit) = module.junit else {
                eprintln!(
                    "[project] {}: its test class path has no JUnit: add \
                     org.junit.jupiter:junit-jupiter (scope test) to {}, or pass --junit; \
                     module skipped",
                    module.artifact,
                    module.dir.join("pom.xml").display()
                );
                all_done = false;
                continue;
            };
            config.emit.junit = junit;
        }
        // --report names the file of a one-module project; with several modules each gets
        // its own, the module's artifact id added to the name.
        let report = match &req.report {
            Some(r) if project.modules.len() > 1 => {
                let stem = r
                    .file_stem()
                    .map_or_else(String::new, |s| s.to_string_lossy().into_owned());
                r.with_file_name(format!("{stem}-{}.json", module.artifact))
            }
            Some(r) => r.clone(),
            None => module.dir.join("target/ferrosuite-report.json"),
        };
        plan.push(Planned {
            module,
            config,
            classes,
            report,
        });
    }
    let missing: Vec<&String> = req.classes.iter().filter(|c| !found.contains(*c)).collect();
    if !missing.is_empty() {
        eprintln!(
            "[project] not a testable class of any module: {}",
            missing
                .iter()
                .map(|c| c.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        );
        all_done = false;
    }
    if plan.is_empty() {
        bail!(
            "no class to test in the project at {}",
            project.root.display()
        );
    }
    let selections = match shard {
        Some(shard) => Some(split(&plan, shard)?),
        None => None,
    };
    for (k, p) in plan.into_iter().enumerate() {
        eprintln!(
            "[project] {}: {} classes{}, JUnit {}{}",
            p.module.artifact,
            p.classes.len(),
            selections
                .as_ref()
                .map(|s| format!(
                    " ({} in shard {})",
                    s[k].len(),
                    shard.map_or_else(String::new, |s| s.to_string())
                ))
                .unwrap_or_default(),
            if p.config.emit.junit == JUnit::Four {
                4
            } else {
                5
            },
            if p.module.mockito {
                ", Mockito on the test class path"
            } else {
                ""
            }
        );
        let report = execute(
            req,
            p.config,
            p.classes,
            p.module.out().to_path_buf(),
            shard,
            selections.as_ref().map(|s| s[k].clone()),
            &p.report,
        )?;
        all_done &= report.all_generated();
    }
    Ok(if all_done {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(3)
    })
}

/// The classes of `module` the request asks for (`None` when none).
fn module_classes(req: &Request, module: &Module) -> Result<Option<Vec<String>>> {
    let testable = testable_classes(&module.classes)?;
    let mut classes = if req.classes.is_empty() && req.package.is_none() {
        testable
    } else {
        let wanted: BTreeSet<&str> = req.classes.iter().map(String::as_str).collect();
        let mut c: Vec<String> = testable
            .iter()
            .filter(|c| wanted.contains(c.as_str()))
            .cloned()
            .collect();
        if let Some(p) = &req.package
            && let Ok(in_package) = package_classes(std::slice::from_ref(&module.classes), p)
        {
            let testable: BTreeSet<&String> = testable.iter().collect();
            c.extend(in_package.into_iter().filter(|c| testable.contains(c)));
        }
        c
    };
    classes.sort();
    classes.dedup();
    Ok((!classes.is_empty()).then_some(classes))
}

/// Each module's positions in shard `shard`, the classes of all modules split as one list
/// (by class-file size, as `--shard` does for one class path).
fn split(plan: &[Planned<'_>], shard: Shard) -> Result<Vec<Vec<usize>>> {
    let mut sizes = Vec::new();
    let mut names = Vec::new();
    let mut owner = Vec::new();
    for (k, p) in plan.iter().enumerate() {
        sizes.extend(class_sizes(&p.config.classpath, &p.classes)?);
        for (i, c) in p.classes.iter().enumerate() {
            names.push(format!("{}/{c}", p.module.artifact));
            owner.push((k, i));
        }
    }
    let refs: Vec<&str> = names.iter().map(String::as_str).collect();
    let mut out = vec![Vec::new(); plan.len()];
    for g in assign(&sizes, &refs, shard) {
        let (k, i) = owner[g];
        out[k].push(i);
    }
    Ok(out)
}
