//! The Debian subject jars: instrumented with all probes, every class loads and links under
//! -Xverify:all. Skipped when a jar is missing unless FERROSUITE_REQUIRE_SUBJECTS=1.

use std::path::Path;

use ferrosuite_bytecode::classpath::ClassPath;
use ferrosuite_bytecode::instrument::offline::{self, OfflineConfig};

use crate::java;

pub const SUBJECTS: [&str; 5] = [
    "commons-lang3",
    "guava",
    "joda-time",
    "commons-math3",
    "commons-collections4",
];

#[test]
fn subject_jars_instrumented_pass_verify_all() {
    let required = std::env::var_os("FERROSUITE_REQUIRE_SUBJECTS").is_some_and(|v| v == "1");
    for name in SUBJECTS {
        let jar = Path::new("/usr/share/java").join(format!("{name}.jar"));
        if !jar.exists() {
            assert!(
                !required,
                "{} is required (apt-get install the Debian package)",
                jar.display()
            );
            eprintln!("skipping {name}: {} not installed", jar.display());
            continue;
        }
        let out = java::tmp(&format!("subject-{name}")).join("out");
        let cp = ClassPath::parse(&jar.display().to_string()).unwrap();
        let (report, _) = offline::instrument_classpath(
            &cp,
            &out,
            &OfflineConfig::default(),
            ferrosuite_runtime::CLASSES,
            |_, _| {},
        )
        .unwrap();
        assert!(report.failures.is_empty(), "{name}: {:?}", report.failures);
        let (ok, total, text) = java::verify_all(&out, &[]);
        assert_eq!(ok, total, "{name}: {text}");
        assert!(total > 200, "{name}: only {total} classes");
        assert!(!text.contains("VERIFY "), "{name}: {text}");
    }
}
