//! Sandboxing of the classes the worker defines: every class loaded from the user's class path
//! (instrumented or not) goes through the bytecode crate's sandbox transformation
//! ([`ferrosuite_bytecode::instrument::sandbox`]), so that `System.exit`, file writes,
//! processes and sockets throw `org.ferrosuite.rt.SandboxError` instead. Calls through user
//! subclasses of the guarded JDK types (`MyFile extends File`) are matched through the class
//! hierarchy of the user's class path.

use ferrosuite_bytecode::hierarchy::Hierarchy;
use ferrosuite_bytecode::instrument::sandbox::{SandboxRules, sandbox_bytes};

use crate::error::Result;

/// The sandboxed bytes of a class file (the same bytes when nothing needed guarding).
pub fn apply(
    bytes: &[u8],
    rules: &SandboxRules,
    hierarchy: Option<&Hierarchy<'_>>,
) -> Result<Vec<u8>> {
    let (changed, _) = sandbox_bytes(bytes, rules, hierarchy)?;
    Ok(changed.unwrap_or_else(|| bytes.to_vec()))
}
