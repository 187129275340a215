//! Compiles the probe runtime (Java sources in `java/`) with `javac --release 8` and
//! generates `runtime_classes.rs`, which embeds the class files in the crate.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

fn java_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<PathBuf> = rd.filter_map(|e| e.ok().map(|e| e.path())).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            java_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "java") {
            out.push(p);
        }
    }
}

fn class_files(dir: &Path, root: &Path, out: &mut Vec<(String, PathBuf)>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<PathBuf> = rd.filter_map(|e| e.ok().map(|e| e.path())).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            class_files(&p, root, out);
        } else if p.extension().is_some_and(|e| e == "class") {
            let rel = p
                .strip_prefix(root)
                .map(|r| r.to_string_lossy().replace('\\', "/"))
                .unwrap_or_default();
            out.push((rel.trim_end_matches(".class").to_string(), p));
        }
    }
}

fn javac() -> PathBuf {
    if let Some(home) = std::env::var_os("JAVA_HOME").filter(|h| !h.is_empty()) {
        let j = PathBuf::from(home).join("bin").join("javac");
        if j.is_file() {
            return j;
        }
    }
    PathBuf::from("javac")
}

fn main() {
    let src = PathBuf::from("java");
    println!("cargo:rerun-if-changed=java");
    println!("cargo:rerun-if-env-changed=JAVA_HOME");
    let out_dir = PathBuf::from(std::env::var_os("OUT_DIR").unwrap_or_default());
    let classes = out_dir.join("rt-classes");
    let _ = std::fs::remove_dir_all(&classes);
    let _ = std::fs::create_dir_all(&classes);
    let mut sources = Vec::new();
    java_files(&src, &mut sources);
    let status = Command::new(javac())
        .args([
            "--release",
            "8",
            "-Xlint:-options",
            "-encoding",
            "UTF-8",
            "-d",
        ])
        .arg(&classes)
        .args(&sources)
        .status();
    match status {
        Ok(s) if s.success() => {}
        Ok(s) => {
            println!("cargo:warning=javac failed ({s}) compiling the probe runtime");
            std::process::exit(1);
        }
        Err(e) => {
            println!(
                "cargo:warning=cannot run javac ({e}): ferrosuite-runtime needs a JDK (8+) to compile the probe runtime; \
                 install one or set JAVA_HOME"
            );
            std::process::exit(1);
        }
    }
    let mut found = Vec::new();
    class_files(&classes, &classes, &mut found);
    let mut generated = String::from(
        "/// Compiled probe runtime classes: (internal name, class file).\npub static CLASSES: &[(&str, &[u8])] = &[\n",
    );
    for (name, path) in &found {
        let _ = writeln!(
            generated,
            "    ({name:?}, include_bytes!({:?})),",
            path.display().to_string()
        );
    }
    generated.push_str("];\n");
    let _ = std::fs::write(out_dir.join("runtime_classes.rs"), generated);
}
