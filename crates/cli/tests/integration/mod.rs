//! `ferrosuite integration` (class-integration tests of a caller/callee pair) and
//! `generate --pair`: Cling's examples fully covered, the report's coupled-branch coverage,
//! bad pairs and options refused.

use std::path::Path;
use std::process::Output;

use crate::common::{ferrosuite, fixtures, tmp};

/// `ferrosuite integration` of one pair, seed 1, with a statement budget.
fn integration(cp: &str, caller: &str, callee: &str, statements: &str, out: &Path) -> Output {
    ferrosuite(&[
        "integration",
        "-c",
        cp,
        "--caller",
        caller,
        "--callee",
        callee,
        "--max-statements",
        statements,
        "--seed",
        "1",
        "--out",
        out.to_str().unwrap(),
    ])
}

#[test]
fn integration_covers_person_and_car_and_names_the_pair() {
    let cp = fixtures().join("java8");
    let out = tmp("cli-integration");
    let cps = cp.to_str().unwrap();
    let o = integration(cps, "cling.Person", "cling.Car", "20000", &out);
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(
        o.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(
        stdout.contains("coupled branches cling.Person -> cling.Car: 2/2 100.0%"),
        "{stdout}"
    );
    let source = std::fs::read_to_string(out.join("src/test/java/cling/PersonCarIT.java")).unwrap();
    assert!(source.contains("public class PersonCarIT"), "{source}");
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("ferrosuite-report.json")).unwrap())
            .unwrap();
    let c = &report["classes"][0]["coupled_branches"];
    assert_eq!(
        (c["covered"].as_u64(), c["total"].as_u64()),
        (Some(2), Some(2)),
        "{c}"
    );
    assert_eq!(c["relation"], "unrelated");
    assert!(c["uncovered"].as_array().unwrap().is_empty());
    // GreenPerson -> HybridCar: recharge needs a station in ChargingStation's shared list,
    // which the test fills through the accessor GreenPerson reads.
    let green = tmp("cli-integration-green");
    let o = integration(cps, "cling.GreenPerson", "cling.HybridCar", "20000", &green);
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{stdout}");
    assert!(
        stdout.contains("coupled branches cling.GreenPerson -> cling.HybridCar: 4/4 100.0%"),
        "{stdout}"
    );
    // A unit suite of the caller measured on the same pair.
    let unit = tmp("cli-integration-unit");
    let o = ferrosuite(&[
        "generate",
        "-c",
        cps,
        "--class",
        "cling.Person",
        "--pair",
        "cling.Person:cling.Car",
        "--max-statements",
        "20000",
        "--out",
        unit.to_str().unwrap(),
    ]);
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{stdout}");
    assert!(
        stdout.contains("coupled branches cling.Person -> cling.Car:"),
        "{stdout}"
    );
    // A unit run whose pair cannot be analysed still gives its suite, with a note.
    let unit2 = tmp("cli-integration-unit-bad-pair");
    let o = ferrosuite(&[
        "generate",
        "-c",
        cps,
        "--class",
        "cling.Person",
        "--pair",
        "cling.Car:cling.Person",
        "--max-statements",
        "5000",
        "--out",
        unit2.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stdout));
    let report = std::fs::read_to_string(unit2.join("ferrosuite-report.json")).unwrap();
    assert!(report.contains("coupled branches not measured"), "{report}");
    // A pair without call sites: the error names both classes, exit 3, nothing written.
    let bad = tmp("cli-integration-bad");
    let o = integration(cps, "cling.Car", "cling.Person", "2000", &bad);
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert_eq!(o.status.code(), Some(3), "{stdout}");
    assert!(stdout.contains("cling.Car -> cling.Person"), "{stdout}");
    assert!(!bad.join("src/test/java/cling").exists());
    // Options of generate that make no sense here are refused.
    let o = ferrosuite(&["integration", "-c", cps, "--pairs", "2", "--class", "a.B"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("--class"));
}
