//! The controlled environment in an emitted class: the two hooks that make the code under test
//! read the virtual clock, seeded randomness, files and console it read during the search, through
//! `org.ferrosuite.rt.Environment` of `ferrosuite-runtime.jar` (see `docs/ENVIRONMENT.md`).
//!
//! ```text
//! @BeforeAll                                   // @BeforeClass in JUnit 4
//! public static void controlEnvironment() {
//!     Environment.install();
//! }
//!
//! @BeforeEach                                  // @Before in JUnit 4
//! public void resetEnvironment() {
//!     Environment.begin();
//! }
//! ```

use std::fmt::Write as _;

use super::JUnit;

/// The runtime class the hooks call.
pub(super) const ENVIRONMENT: &str = "org/ferrosuite/rt/Environment";

/// The names of the hook methods (no test may take them).
pub(super) const HOOKS: [&str; 2] = ["controlEnvironment", "resetEnvironment"];

/// The annotation classes of the hooks: once per class, then before each test.
pub(super) fn annotations(junit: JUnit) -> [&'static str; 2] {
    match junit {
        JUnit::Five => [
            "org/junit/jupiter/api/BeforeAll",
            "org/junit/jupiter/api/BeforeEach",
        ],
        JUnit::Four => ["org/junit/BeforeClass", "org/junit/Before"],
    }
}

/// The hook methods, with `name` giving the written name of a class.
pub(super) fn hooks(junit: JUnit, name: &dyn Fn(&str) -> String) -> String {
    let [once, each] = annotations(junit);
    let env = name(ENVIRONMENT);
    let mut out = String::new();
    let _ = writeln!(
        out,
        "    /** The code under test reads a virtual clock, seeded randomness, files and console. */"
    );
    let _ = writeln!(out, "    @{}", name(once));
    let _ = writeln!(out, "    public static void {}() {{", HOOKS[0]);
    let _ = writeln!(out, "        {env}.install();");
    let _ = writeln!(out, "    }}");
    out.push('\n');
    let _ = writeln!(
        out,
        "    /** Each test starts at 2020-09-13T12:26:40Z, same seeds, no files, no input. */"
    );
    let _ = writeln!(out, "    @{}", name(each));
    let _ = writeln!(out, "    public void {}() {{", HOOKS[1]);
    let _ = writeln!(out, "        {env}.begin();");
    let _ = writeln!(out, "    }}");
    out
}
