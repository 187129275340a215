//! Scratch directories tied to the process that made them: the workers' working directories
//! (fresh ones per slot) and the command line's run directory, and those of dead processes
//! swept.
//!
//! A name carries `<pid namespace>-<pid>` after its prefix (`ferrosuite-worker-4026531836-
//! 1234-0-…`): when process 1234 of that namespace no longer runs, the next sweep for the
//! prefix removes the directory, whatever killed the process before it could.

use std::path::{Path, PathBuf};

use crate::error::{Error, Result};

/// Prefix of the workers' working directories:
/// `ferrosuite-worker-<pid namespace>-<master pid>-<slot>-…`.
pub const WORKDIR_PREFIX: &str = "ferrosuite-worker-";

/// The inode of this process's pid namespace (`/proc/self/ns/pid` reads `pid:[N]`), if known:
/// a pid means a process only within its namespace, and masters in other containers may share
/// the temporary directory.
fn pid_namespace() -> Option<u64> {
    let link = std::fs::read_link("/proc/self/ns/pid").ok()?;
    let text = link.to_str()?;
    text.strip_prefix("pid:[")?.strip_suffix(']')?.parse().ok()
}

/// The name part that ties a working directory to this master: `<namespace>-<pid>`, with `x`
/// for an unknown namespace (such directories are never swept).
#[must_use]
pub fn master_tag() -> String {
    let ns = pid_namespace().map_or_else(|| "x".to_owned(), |n| n.to_string());
    format!("{ns}-{}", std::process::id())
}

/// Removes the directories that a process which no longer runs left under `tmp` (one killed
/// before its `Drop` ran): directories named `prefix` (such as [`WORKDIR_PREFIX`]) plus this
/// process's pid namespace plus a process id that `/proc` does not list. Without `/proc` (not
/// Linux) nothing is removed; so are not names from another pid namespace (another
/// container's master sharing the directory), symbolic links, plain files, or what cannot be
/// removed (another user's). A live process that reuses the pid keeps the directory until it
/// ends: only names of dead processes are touched.
pub fn sweep_orphaned_dirs(tmp: &Path, prefix: &str) {
    let Some(ns) = pid_namespace() else {
        return;
    };
    let Ok(entries) = std::fs::read_dir(tmp) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(rest) = name.to_str().and_then(|n| n.strip_prefix(prefix)) else {
            continue;
        };
        let mut fields = rest.split('-');
        let (Some(dir_ns), Some(pid)) = (
            fields.next().and_then(|f| f.parse::<u64>().ok()),
            fields.next().and_then(|f| f.parse::<u32>().ok()),
        ) else {
            continue;
        };
        if dir_ns == ns
            && pid != std::process::id()
            && !Path::new(&format!("/proc/{pid}")).exists()
            && entry.file_type().is_ok_and(|t| t.is_dir())
        {
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
}

/// Creates a new, empty directory `<base>-<unique suffix>` under the system's temporary
/// directory (the suffix keeps several hosts of one process apart).
pub fn fresh_dir(base: &str) -> Result<PathBuf> {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    let tmp = std::env::temp_dir();
    for attempt in 0..1000u32 {
        let dir = tmp.join(format!("{base}-{nanos:x}-{attempt}"));
        match std::fs::create_dir(&dir) {
            Ok(()) => return Ok(dir),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
            Err(e) => return Err(Error::io(format!("creating {}", dir.display()))(e)),
        }
    }
    Err(Error::Io {
        context: format!("creating a working directory under {}", tmp.display()),
        source: std::io::Error::other("every candidate name exists"),
    })
}

#[cfg(test)]
#[allow(clippy::expect_used)]
mod tests {
    use super::{WORKDIR_PREFIX, sweep_orphaned_dirs};

    /// Only directories named after a process that does not run are removed; the own
    /// process's, other names and plain files stay.
    #[test]
    #[cfg(target_os = "linux")]
    fn the_sweep_removes_only_directories_of_masters_that_are_gone() {
        let tmp = super::fresh_dir("ferrosuite-sweep-test").expect("a scratch directory");
        let outside = super::fresh_dir("ferrosuite-sweep-outside").expect("a scratch directory");
        std::fs::write(outside.join("keep.txt"), b"x").expect("write");
        let ns = super::pid_namespace().expect("Linux has /proc/self/ns/pid");
        // Above any pid Linux hands out (at most 2^22).
        let dead = tmp.join(format!("{WORKDIR_PREFIX}{ns}-4294967000-0-1f-0"));
        let own = tmp.join(format!(
            "{WORKDIR_PREFIX}{ns}-{}-0-1f-0",
            std::process::id()
        ));
        let parent = tmp.join(format!(
            "{WORKDIR_PREFIX}{ns}-{}-0-1f-0",
            std::os::unix::process::parent_id()
        ));
        let foreign = tmp.join(format!("{WORKDIR_PREFIX}{}-4294967000-0-1f-0", ns + 1));
        let old_style = tmp.join(format!("{WORKDIR_PREFIX}4294967000-0-1f-0"));
        let odd = tmp.join(format!("{WORKDIR_PREFIX}notapid-0"));
        let other = tmp.join("someone-elses-4294967000");
        let file = tmp.join(format!("{WORKDIR_PREFIX}{ns}-4294967001-file"));
        let link = tmp.join(format!("{WORKDIR_PREFIX}{ns}-4294967002-x"));
        for d in [&dead, &own, &parent, &foreign, &old_style, &odd, &other] {
            std::fs::create_dir(d).expect("create");
        }
        std::fs::write(dead.join("left.txt"), b"x").expect("write");
        std::fs::write(&file, b"x").expect("write");
        std::os::unix::fs::symlink(&outside, &link).expect("symlink");
        sweep_orphaned_dirs(&tmp, WORKDIR_PREFIX);
        let gone = !dead.exists();
        let kept: Vec<_> = [
            &own, &parent, &foreign, &old_style, &odd, &other, &file, &link,
        ]
        .into_iter()
        .filter(|p| !p.exists())
        .collect();
        let outside_kept = outside.join("keep.txt").exists();
        let _ = std::fs::remove_dir_all(&tmp);
        let _ = std::fs::remove_dir_all(&outside);
        assert!(gone, "the dead master's directory stays");
        assert!(kept.is_empty(), "removed: {kept:?}");
        assert!(outside_kept, "a link's target lost its file");
    }
}
