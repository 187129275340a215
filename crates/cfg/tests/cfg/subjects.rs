//! Every method of the Debian subject jars and of `java.base`: analysed without error, the
//! branches are exactly the instrumenter's probe outcomes, and (for methods small enough for
//! the quadratic oracle) the trees and dependences match the reference.

use std::collections::HashMap;

use ferrosuite_bytecode::classpath::ClassPath;
use ferrosuite_bytecode::instrument::probes::{Instrumenter, ProbeConfig};
use ferrosuite_cfg::{ClassAnalysis, Config};

use crate::oracle::check_class;
use crate::subject;

const JARS: [&str; 4] = ["guava", "commons-lang3", "joda-time", "commons-math3"];

#[test]
fn every_method_of_the_subject_jars_is_analysed() {
    for name in JARS {
        let Some(jar) = subject(name) else { continue };
        let cp = ClassPath::parse(&jar.display().to_string()).unwrap();
        let (mut methods, mut branches) = (0, 0);
        for class in cp.class_names().unwrap() {
            let cf = cp.load(&class).unwrap();
            let c = ClassAnalysis::analyze(&cf, &Config::default())
                .unwrap_or_else(|e| panic!("{name}: {e}"));
            methods += c.methods.iter().filter(|m| m.body.is_some()).count();
            branches += c.branches.len();
        }
        eprintln!("{name}: {methods} methods with code, {branches} branches");
        assert!(methods > 1000 && branches > 1000, "{name}");
    }
}

#[test]
fn every_method_of_java_base_is_analysed() {
    let cp = ClassPath::parse("jrt").unwrap();
    let entry = &cp.entries()[0];
    let mut classes = 0;
    for f in entry.files().unwrap() {
        let Some(rel) = f.strip_prefix("java.base/") else {
            continue;
        };
        let Some(class) = rel.strip_suffix(".class") else {
            continue;
        };
        if class.ends_with("module-info") {
            continue;
        }
        let cf = cp.load(class).unwrap();
        ClassAnalysis::analyze(&cf, &Config::default()).unwrap_or_else(|e| panic!("{e}"));
        classes += 1;
    }
    assert!(classes > 5000, "{classes}");
}

#[test]
fn branches_are_the_instrumenters_probe_outcomes() {
    let Some(jar) = subject("commons-lang3") else {
        return;
    };
    let cp = ClassPath::parse(&jar.display().to_string()).unwrap();
    let mut ins = Instrumenter::new(ProbeConfig::default());
    let mut analyses = HashMap::new();
    for class in cp.class_names().unwrap() {
        let cf = cp.load(&class).unwrap();
        ins.instrument(&cf).unwrap();
        analyses.insert(
            class.clone(),
            ClassAnalysis::analyze(&cf, &Config::default()).unwrap(),
        );
    }
    let mut outcomes = 0;
    for probes in &ins.map().classes {
        let c = &analyses[&probes.name];
        let mut slots_in_order = Vec::new();
        for mp in &probes.methods {
            let m = c.find_method(&mp.name, &mp.descriptor).unwrap();
            let body = m.body.as_ref().unwrap();
            let expected: Vec<(u32, String, u32)> = mp
                .branches
                .iter()
                .flat_map(|site| {
                    site.outcomes
                        .iter()
                        .map(move |o| (site.offset, o.label.clone(), o.target))
                })
                .collect();
            let got: Vec<(u32, String, u32)> = body
                .branch_ids()
                .map(|b| {
                    let br = c.branch(b);
                    (
                        br.offset,
                        br.outcome.to_string(),
                        body.cfg.block(br.to).start,
                    )
                })
                .collect();
            assert_eq!(
                got, expected,
                "{}.{}{}",
                probes.name, mp.name, mp.descriptor
            );
            slots_in_order.extend(
                mp.branches
                    .iter()
                    .flat_map(|s| s.outcomes.iter().map(|o| o.slot.0)),
            );
            outcomes += got.len();
        }
        // Branch ids are in slot order.
        assert!(
            slots_in_order.windows(2).all(|w| w[0] + 1 == w[1]),
            "{}",
            probes.name
        );
    }
    assert_eq!(outcomes, ins.map().branch_slots as usize);
}

#[test]
fn subject_methods_match_the_reference_oracle() {
    let Some(jar) = subject("commons-lang3") else {
        return;
    };
    let cp = ClassPath::parse(&jar.display().to_string()).unwrap();
    let mut checked = 0;
    for class in cp.class_names().unwrap() {
        let c = ClassAnalysis::analyze(&cp.load(&class).unwrap(), &Config::default()).unwrap();
        checked += check_class(&c, 40);
    }
    assert!(checked > 3000, "{checked}");
}
