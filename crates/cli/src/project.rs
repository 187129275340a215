//! `ferrosuite generate --project DIR`: a Maven project's modules, each a batch with the
//! module's class paths, JUnit generation and release, tests into its `src/test/java`, the
//! report into its `target/ferrosuite-report.json`.

use std::collections::BTreeSet;
use std::path::Path;
use std::process::ExitCode;

use anyhow::{Result, bail};
use ferrosuite_emit::JUnit;
use ferrosuite_generate::Config;
use ferrosuite_generate::batch::package_classes;
use ferrosuite_generate::project::{Maven, Project, testable_classes};
use ferrosuite_generate::shard::Shard;

use crate::generate::{Request, execute};

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
    let wanted: BTreeSet<&str> = req.classes.iter().map(String::as_str).collect();
    let mut all_done = true;
    let mut found_any = false;
    for module in &project.modules {
        let mut classes = if req.classes.is_empty() && req.package.is_none() {
            testable_classes(&module.classes)?
        } else {
            let mine = testable_classes(&module.classes)?;
            let mut c: Vec<String> = mine
                .iter()
                .filter(|c| wanted.contains(c.as_str()))
                .cloned()
                .collect();
            if let Some(p) = &req.package
                && let Ok(in_package) = package_classes(std::slice::from_ref(&module.classes), p)
            {
                c.extend(in_package);
            }
            c
        };
        classes.sort();
        classes.dedup();
        if classes.is_empty() {
            continue;
        }
        found_any = true;
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
        eprintln!(
            "[project] {}: {} classes, JUnit {}{}",
            module.artifact,
            classes.len(),
            if config.emit.junit == JUnit::Four {
                4
            } else {
                5
            },
            if module.mockito { ", Mockito" } else { "" }
        );
        // --report names the file of a one-module project; with several modules each gets
        // its own, the module's artifact id added to the name.
        let report_path = match &req.report {
            Some(r) if project.modules.len() > 1 => {
                let stem = r
                    .file_stem()
                    .map_or_else(String::new, |s| s.to_string_lossy().into_owned());
                r.with_file_name(format!("{stem}-{}.json", module.artifact))
            }
            Some(r) => r.clone(),
            None => module.dir.join("target/ferrosuite-report.json"),
        };
        let report = execute(
            req,
            config,
            classes,
            module.out().to_path_buf(),
            shard,
            &report_path,
        )?;
        all_done &= report.all_generated();
    }
    if !found_any {
        bail!(
            "no class to test in the project at {} (the classes given are in no module)",
            project.root.display()
        );
    }
    Ok(if all_done {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(3)
    })
}
