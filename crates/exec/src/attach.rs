//! The attach sockets of the JVMs ferrosuite starts: the JVM makes `/tmp/.java_pid<pid>` when
//! a tool or agent attaches to a JVM (Byte Buddy's agent does, for Mockito's inline mock maker
//! and for the environment's runtime) and leaves it there when it ends, killed or not.
//! Whoever reaps a worker or a validation JVM removes its socket with [`remove_socket`], so
//! that a run leaves the machine's temporary directory as it found it.
//!
//! ```no_run
//! let started = std::time::SystemTime::now();
//! let mut child = std::process::Command::new("java").arg("-version").spawn().unwrap();
//! let _ = child.kill();
//! if child.wait().is_ok() {
//!     ferrosuite_exec::attach::remove_socket(child.id(), started);
//! }
//! ```

/// Removes the attach socket of JVM process `pid`, which must have ended and been reaped (so
/// that the pid is not another process's yet), when the socket was made at or after `since`
/// (when the process was started): a stale socket an earlier process of the same pid left
/// is not ours to remove. Only a socket is removed.
pub fn remove_socket(pid: u32, since: std::time::SystemTime) {
    use std::os::unix::fs::FileTypeExt;
    let path = socket(pid);
    // File times come from the kernel's coarse clock (a tick behind at most).
    let since = since
        .checked_sub(std::time::Duration::from_millis(100))
        .unwrap_or(since);
    let ours = std::fs::symlink_metadata(&path)
        .is_ok_and(|m| m.file_type().is_socket() && m.modified().is_ok_and(|t| t >= since));
    if ours {
        let _ = std::fs::remove_file(&path);
    }
}

/// Where the JVM puts the attach socket of process `pid`: its temporary directory is `/tmp`
/// on Linux whatever `java.io.tmpdir` says, the user's on macOS.
#[must_use]
pub fn socket(pid: u32) -> std::path::PathBuf {
    let dir = if cfg!(target_os = "linux") {
        std::path::PathBuf::from("/tmp")
    } else {
        std::env::temp_dir()
    };
    dir.join(format!(".java_pid{pid}"))
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::{remove_socket, socket};

    #[test]
    fn an_ended_jvms_attach_socket_goes_and_nothing_else() {
        // Pids above the kernel's limit (2^22 on Linux) belong to no process.
        let base = 4_000_000_000 + std::process::id() % 1_000_000;
        let stale_pid = base + 2;
        let stale = socket(stale_pid);
        let _ = std::fs::remove_file(&stale);
        let old = std::os::unix::net::UnixListener::bind(&stale).unwrap();
        std::thread::sleep(std::time::Duration::from_millis(300));
        let started = std::time::SystemTime::now();
        let socket_pid = base;
        let made = socket(socket_pid);
        let _ = std::fs::remove_file(&made);
        let listener = std::os::unix::net::UnixListener::bind(&made).unwrap();
        let file_pid = base + 1;
        let file = socket(file_pid);
        std::fs::write(&file, b"not a socket").unwrap();
        remove_socket(socket_pid, started);
        remove_socket(file_pid, started);
        remove_socket(stale_pid, started);
        drop((listener, old));
        let socket_left = made.exists();
        let file_left = file.exists();
        let stale_left = stale.exists();
        let _ = std::fs::remove_file(&file);
        let _ = std::fs::remove_file(&stale);
        assert!(!socket_left, "the socket was removed");
        assert!(file_left, "a file that is not a socket stays");
        assert!(stale_left, "a socket older than the process stays");
    }
}
