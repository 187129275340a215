//! Deterministic system properties, environment variables and host name: the rewrites that
//! make code under test read them from the runtime class `org.ferrosuite.rt.VirtualSystem`
//! ([`SYSTEM_CLASS`]), which gives the same values on every machine and keeps
//! `System.setProperty` from changing the JVM's properties (a per-test overlay).
//!
//! | API | becomes |
//! |---|---|
//! | `System.getProperty(key[, default])`, `setProperty`, `clearProperty` | `VirtualSystem`'s: `user.dir` is `/work`, `user.home`, `user.name`, `java.io.tmpdir`, `os.version` are fixed, the rest the JVM's |
//! | `System.getenv(name)`, `System.getenv()` | a fixed set of variables |
//! | `InetAddress.getLocalHost()` | `localhost/127.0.0.1` |
//!
//! `System.getProperties()`, `Integer.getInteger` and the JDK's own reads stay the JVM's.
//!
//! ```
//! use ferrosuite_bytecode::instrument::system::{SYSTEM_CLASS, redirects};
//! assert!(redirects().iter().all(|r| r.to.owner == SYSTEM_CLASS));
//! ```

use crate::instrument::redirect::{MemberSpec, Redirect};

/// Internal name of the runtime class with the deterministic properties and variables.
pub const SYSTEM_CLASS: &str = "org/ferrosuite/rt/VirtualSystem";

/// The redirects (same descriptors).
#[must_use]
pub fn redirects() -> Vec<Redirect> {
    let s = "Ljava/lang/String;";
    [
        ("java/lang/System", "getProperty", format!("({s}){s}")),
        ("java/lang/System", "getProperty", format!("({s}{s}){s}")),
        ("java/lang/System", "setProperty", format!("({s}{s}){s}")),
        ("java/lang/System", "clearProperty", format!("({s}){s}")),
        ("java/lang/System", "getenv", format!("({s}){s}")),
        (
            "java/lang/System",
            "getenv",
            "()Ljava/util/Map;".to_string(),
        ),
        (
            "java/net/InetAddress",
            "getLocalHost",
            "()Ljava/net/InetAddress;".to_string(),
        ),
    ]
    .into_iter()
    .map(|(owner, name, descriptor)| {
        Redirect::to_static(
            MemberSpec::new(owner, name, &descriptor),
            SYSTEM_CLASS,
            name,
        )
    })
    .collect()
}
