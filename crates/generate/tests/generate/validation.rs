//! The validation of a test class on a real JVM: a per-test time limit set by the caller stops
//! a test that would not end, and the rest of the class is judged as usual.

use std::path::PathBuf;
use std::time::Duration;

use ferrosuite_emit::JUnit;
use ferrosuite_generate::JarSearch;

const LOOPS: &str = r"package loops;

import org.junit.jupiter.api.Test;

public class LoopTest {
    @Test
    public void ends() {
    }

    @Test
    public void spins() {
        long x = 1;
        while (x != 0) {
            x = x % 1000 + 1;
        }
    }
}
";

#[test]
fn a_test_that_does_not_end_fails_at_the_per_test_limit() {
    let jdk = ferrosuite_bytecode::jdk::JdkSearch::from_env()
        .choose(None, 52)
        .unwrap();
    let tools = ferrosuite_generate::Tools::new(&jdk, JarSearch::new(Vec::new(), None, None))
        .with_test_timeout(Duration::from_secs(1));
    let dir = crate::common::scratch("validation-loop");
    let round = ferrosuite_generate::validate::check(
        &tools,
        JUnit::Five,
        8,
        &dir,
        &PathBuf::from("loops/LoopTest.java"),
        "loops.LoopTest",
        LOOPS,
        &["ends".to_string(), "spins".to_string()],
        &[],
    )
    .unwrap();
    assert_eq!(round.failing, vec!["spins".to_string()], "{round:?}");
    // (Without the limit the run is killed at the class's limit, a minute and more, with no
    // report at all: an error, not this round.)
    assert!(round.uncompilable.is_empty(), "{round:?}");
}
