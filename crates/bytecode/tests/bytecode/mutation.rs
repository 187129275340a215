//! Mutation schemata (`instrument::mutation`): the fixture `mutation.Ops` mutated once gives,
//! with no mutant active, what the original gives, and with each mutant active what that
//! mutation of the source gives; the subject jars mutated class by class pass `-Xverify:all`.

use std::collections::BTreeMap;
use std::path::Path;

use ferrosuite_bytecode::ClassFile;
use ferrosuite_bytecode::instrument::mutation::{Config, Mutant, Operator, mutate, mutate_bytes};
use ferrosuite_runtime as runtime;

use crate::java;

/// Calls every method of `mutation.Ops` once per mutant id (0: none) and prints one line each.
const DRIVER: &str = r#"
import java.util.concurrent.Callable;
import mutation.Ops;
import org.ferrosuite.rt.Mutants;

public class MutDriver {
    static void call(StringBuilder b, Callable<Object> c) {
        try {
            b.append(c.call());
        } catch (Throwable t) {
            b.append(t.getClass().getSimpleName());
        }
        b.append('|');
    }

    static String run() {
        StringBuilder b = new StringBuilder();
        call(b, () -> Ops.add(3, 4));
        call(b, () -> Ops.mix(6, 5));
        call(b, () -> Ops.ratio(6.0, 4.0));
        call(b, () -> Ops.less(2, 2));
        call(b, () -> Ops.less(1, 2));
        call(b, () -> Ops.step(10));
        call(b, () -> Ops.negate(5));
        call(b, () -> Ops.name(null));
        call(b, () -> Ops.name("x"));
        call(b, () -> Ops.items(2));
        call(b, () -> Ops.notes(7));
        call(b, () -> new Ops().record(5));
        return b.toString();
    }

    public static void main(String[] args) {
        int last = Integer.parseInt(args[0]);
        Mutants.prepare(last);
        for (int id = 0; id <= last; id++) {
            Mutants.active = id;
            Mutants.begin();
            String line = run();
            int[] reached = Mutants.reached();
            System.out.println(id + " " + line + " " + reached.length);
        }
    }
}
"#;

/// Writes the runtime's classes into `dir`.
fn runtime_into(dir: &Path) {
    for (name, bytes) in runtime::CLASSES {
        let p = dir.join(format!("{name}.class"));
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(&p, bytes).unwrap();
    }
}

/// Runs the driver against the classes in `dir`; returns its lines by mutant id.
fn drive(dir: &Path, last: u32) -> BTreeMap<u32, String> {
    let tag = dir.file_name().unwrap().to_string_lossy();
    let src = java::tmp(&format!("mutation-driver-{tag}"));
    std::fs::write(src.join("MutDriver.java"), DRIVER).unwrap();
    let d = dir.display().to_string();
    let s = src.display().to_string();
    let file = src.join("MutDriver.java").display().to_string();
    java::javac(&["-nowarn", "-cp", &d, "-d", &s, &file]);
    let cp = format!("{s}:{d}");
    let out = java::java(&["-Xverify:all", "-cp", &cp, "MutDriver", &last.to_string()]);
    out.lines()
        .map(|l| {
            let (id, rest) = l.split_once(' ').unwrap();
            (id.parse().unwrap(), rest.to_string())
        })
        .collect()
}

/// The driver's values without the count of reached sites.
fn values(line: &str) -> &str {
    line.rsplit_once(' ').map_or(line, |(v, _)| v)
}

#[test]
fn each_mutant_of_the_fixture_does_what_its_operator_says() {
    let (j8, _) = java::fixtures();
    let bytes = std::fs::read(j8.join("mutation/Ops.class")).unwrap();
    let (mutated, mutants) = mutate_bytes(&bytes, &Config::default())
        .unwrap()
        .expect("Ops has mutants");
    let ops: std::collections::BTreeSet<Operator> = mutants.iter().map(|m| m.operator).collect();
    assert_eq!(
        ops.len(),
        Operator::ALL.len(),
        "every operator applies: {ops:?}"
    );
    let last = mutants.iter().map(|m| m.id).max().unwrap();
    let ids: Vec<u32> = mutants.iter().map(|m| m.id).collect();
    let mut sorted = ids.clone();
    sorted.dedup();
    assert_eq!(ids, sorted, "ids increase and are distinct");

    let original = java::tmp("mutation-original");
    std::fs::create_dir_all(original.join("mutation")).unwrap();
    std::fs::write(original.join("mutation/Ops.class"), &bytes).unwrap();
    runtime_into(&original);
    let plain = drive(&original, 0);

    let out = java::tmp("mutation-mutated");
    std::fs::create_dir_all(out.join("mutation")).unwrap();
    std::fs::write(out.join("mutation/Ops.class"), &mutated).unwrap();
    runtime_into(&out);
    let (ok, n, text) = java::verify_all(&out, &[]);
    assert_eq!(ok, n, "{text}");
    let lines = drive(&out, last);

    let none = values(&lines[&0]);
    assert_eq!(
        none,
        values(&plain[&0]),
        "no mutant active: the original's values"
    );
    assert_eq!(
        none, "7|29|1.5|false|true|13|-5|none|x|[i0, i1]|7!|5|",
        "the original values"
    );
    // Every site of the driver's calls was reached.
    let reached: usize = lines[&0].rsplit_once(' ').unwrap().1.parse().unwrap();
    let sites: std::collections::BTreeSet<u32> = mutants.iter().map(|m| m.site).collect();
    assert_eq!(reached, sites.len(), "{mutants:#?}");

    let by = |method: &str, operator: Operator, description: &str| -> &Mutant {
        mutants
            .iter()
            .find(|m| {
                m.method.starts_with(&format!("{method} "))
                    && m.operator == operator
                    && m.description.contains(description)
            })
            .unwrap_or_else(|| panic!("no {operator:?} {description} in {method}: {mutants:#?}"))
    };
    let field = |m: &Mutant, k: usize| values(&lines[&m.id]).split('|').nth(k).unwrap().to_string();
    let cases: [(&Mutant, usize, &str); 17] = [
        (by("add", Operator::Math, "+ → -"), 0, "-1"),
        (by("add", Operator::PrimitiveReturns, ""), 0, "0"),
        (by("mix", Operator::Math, "* → /"), 1, "2"),
        (by("mix", Operator::Math, ">> → <<"), 1, "18"),
        (by("ratio", Operator::Math, "/ → *"), 2, "24.0"),
        (
            by("less", Operator::ConditionalsBoundary, ">= → >"),
            3,
            "true",
        ),
        (
            by("less", Operator::NegateConditionals, ">= → <"),
            4,
            "false",
        ),
        (by("step", Operator::Increments, "+= 3"), 5, "7"),
        (by("negate", Operator::InvertNegatives, ""), 6, "5"),
        (
            by("name", Operator::NegateConditionals, ""),
            7,
            "NullPointerException",
        ),
        (by("name", Operator::EmptyReturns, ""), 8, ""),
        (by("items", Operator::NullReturns, ""), 9, "null"),
        (by("notes", Operator::VoidMethodCalls, "note"), 10, "!"),
        (by("record", Operator::ConditionalsBoundary, ""), 11, "5"),
        // The jump always taken: `a < b` compiles to a jump to `false` on `>=`, `x > 0` to a
        // jump past the addition on `<=`, `o == null ? …` to a jump to `toString` on non-null.
        (
            by("less", Operator::RemoveOrderConditionals, ">= → always"),
            4,
            "false",
        ),
        (by("record", Operator::RemoveOrderConditionals, ""), 11, "0"),
        (
            by("name", Operator::RemoveEqualityConditionals, "!= null"),
            7,
            "NullPointerException",
        ),
    ];
    for (m, k, want) in cases {
        assert_eq!(field(m, k), want, "{m:?}: {}", lines[&m.id]);
    }
    // Nearly every mutant changes some value the driver prints (the boundary of `x > 0` at
    // 5 does not, nor the size bound of `items` at 2 items).
    let killed = mutants
        .iter()
        .filter(|m| values(&lines[&m.id]) != none)
        .count();
    assert!(
        killed + 4 >= mutants.len(),
        "{killed} of {}: {lines:#?}",
        mutants.len()
    );
}

#[test]
fn mutating_twice_mutates_only_the_original_sites_and_runtime_classes_are_refused() {
    let (j8, _) = java::fixtures();
    let bytes = std::fs::read(j8.join("mutation/Ops.class")).unwrap();
    let mut c = ClassFile::parse(&bytes).unwrap();
    let first = mutate(&mut c, &Config::default()).unwrap();
    // Operators off: nothing.
    let mut none = ClassFile::parse(&bytes).unwrap();
    let off = Config {
        operators: Vec::new(),
        first_id: 1,
    };
    assert!(mutate(&mut none, &off).unwrap().is_empty());
    assert_eq!(none.to_bytes().unwrap(), bytes);
    // Ids start where asked.
    let mut again = ClassFile::parse(&bytes).unwrap();
    let later = Config {
        first_id: 1000,
        ..Config::default()
    };
    let shifted = mutate(&mut again, &later).unwrap();
    assert_eq!(shifted.len(), first.len());
    assert_eq!(shifted[0].id, 1000);
    let (name, bytes) = runtime::CLASSES
        .iter()
        .find(|(n, _)| n.ends_with("/SystemTime"))
        .unwrap();
    let mut rt = ClassFile::parse(bytes).unwrap();
    let e = mutate(&mut rt, &Config::default()).unwrap_err();
    assert!(e.to_string().contains("not mutated"), "{name}: {e}");
}

#[test]
fn subject_jars_mutated_verify() {
    for name in ["commons-lang3", "joda-time", "guava"] {
        let Some((jar, classes)) = java::subject_classes(name) else {
            continue;
        };
        let out = java::tmp(&format!("mutation-{name}")).join("out");
        let _ = std::fs::remove_dir_all(&out);
        let (mut changed, mut total) = (0, 0);
        let mut next = 1;
        for (c, bytes) in &classes {
            let config = Config {
                first_id: next,
                ..Config::default()
            };
            let Some((new, mutants)) =
                mutate_bytes(bytes, &config).unwrap_or_else(|e| panic!("{name} {c}: {e}"))
            else {
                continue;
            };
            next = mutants.last().unwrap().id + 1;
            changed += 1;
            total += mutants.len();
            let p = out.join(format!("{c}.class"));
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(&p, new).unwrap();
        }
        let classes = classes.len();
        runtime_into(&out);
        eprintln!("{name}: {classes} classes, {changed} mutated, {total} mutants");
        assert!(changed > classes / 2, "{name}: {changed} of {classes}");
        let (ok, n, text) = java::verify_all(&out, &[&jar]);
        // The runtime's own classes are in `out` too; every class verifies.
        assert_eq!(ok, n, "{name}: {text}");
    }
}
