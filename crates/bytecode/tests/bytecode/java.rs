//! Helpers: locating the JDK, compiling fixtures and tools once, running Java.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use ferrosuite_bytecode::classpath::find_java_home;

pub use ferrosuite_testkit::repo;

/// A fresh scratch directory.
pub fn tmp(name: &str) -> PathBuf {
    ferrosuite_testkit::scratch(env!("CARGO_TARGET_TMPDIR"), name)
}

fn bin(tool: &str) -> PathBuf {
    find_java_home()
        .expect("a JDK is required (JAVA_HOME or java on PATH)")
        .join("bin")
        .join(tool)
}

/// Runs a JDK tool; returns its stdout, panicking with its output on failure.
fn run_jdk(tool: &str, args: &[&str]) -> String {
    let out = Command::new(bin(tool))
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("cannot run {tool}: {e}"));
    assert!(
        out.status.success(),
        "{tool} {args:?} failed ({}):\n{}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Runs `java`; returns stdout.
pub fn java(args: &[&str]) -> String {
    run_jdk("java", args)
}

/// Runs `javac`.
pub fn javac(args: &[&str]) {
    run_jdk("javac", args);
}

fn sources(dir: &Path) -> Vec<String> {
    let mut v = Vec::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            v.extend(sources(&p));
        } else if p.extension().is_some_and(|x| x == "java") {
            v.push(p.display().to_string());
        }
    }
    v.sort();
    v
}

/// The fixtures compiled once: `(java8 classes, java17 classes)`.
pub fn fixtures() -> &'static (PathBuf, PathBuf) {
    static F: OnceLock<(PathBuf, PathBuf)> = OnceLock::new();
    F.get_or_init(|| {
        let out = tmp("fixtures");
        let j8 = out.join("java8");
        let j17 = out.join("java17");
        let mut a = vec!["-nowarn", "--release", "8", "-Xlint:-options", "-g", "-d"];
        let j8s = j8.display().to_string();
        a.push(&j8s);
        let s8 = sources(&repo().join("fixtures/java"));
        a.extend(s8.iter().map(String::as_str));
        javac(&a);
        let j17s = j17.display().to_string();
        let mut b = vec!["-nowarn", "--release", "17", "-g", "-d", &j17s];
        let s17 = sources(&repo().join("fixtures/java17"));
        b.extend(s17.iter().map(String::as_str));
        javac(&b);
        (j8, j17)
    })
}

/// The Java tools (verifier, reset check) compiled once.
pub fn tools() -> &'static PathBuf {
    static T: OnceLock<PathBuf> = OnceLock::new();
    T.get_or_init(|| {
        let out = tmp("tools");
        let d = out.display().to_string();
        let base = repo().join("fixtures/tools/ferrosuite/tools");
        let v = base.join("VerifyAll.java").display().to_string();
        let r = base.join("ResetCheck.java").display().to_string();
        let a = base.join("AbortCheck.java").display().to_string();
        javac(&["-nowarn", "-d", &d, &v, &r, &a]);
        out
    })
}

/// Runs one of the Java tools (`ferrosuite.tools.<name>`) against classes under `-Xverify:all`.
pub fn run_tool(name: &str, classes: &Path) -> String {
    let cp = format!("{}:{}", tools().display(), classes.display());
    java(&[
        "-Xverify:all",
        "-cp",
        &cp,
        &format!("ferrosuite.tools.{name}"),
    ])
}

/// All `.class` files under a directory, as (relative path, bytes).
pub fn class_files(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    fn walk(root: &Path, dir: &Path, out: &mut Vec<(String, Vec<u8>)>) {
        let mut entries: Vec<_> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        entries.sort();
        for p in entries {
            if p.is_dir() {
                walk(root, &p, out);
            } else if p.extension().is_some_and(|x| x == "class") {
                let rel = p.strip_prefix(root).unwrap().display().to_string();
                out.push((rel, std::fs::read(&p).unwrap()));
            }
        }
    }
    walk(dir, dir, &mut out);
    out
}

/// Runs the verifier on a directory with `-Xverify:all`; returns (verified, total, output).
pub fn verify_all(dir: &Path, libs: &[&Path]) -> (usize, usize, String) {
    let cp = format!("{}:{}", tools().display(), dir.display());
    let d = dir.display().to_string();
    let mut args = vec!["-Xverify:all", "-cp", &cp, "ferrosuite.tools.VerifyAll", &d];
    let lib_strings: Vec<String> = libs.iter().map(|l| l.display().to_string()).collect();
    for l in &lib_strings {
        args.push("--lib");
        args.push(l);
    }
    let out = Command::new(bin("java")).args(&args).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let summary = text
        .lines()
        .find(|l| l.starts_with("verified "))
        .unwrap_or_else(|| panic!("no summary:\n{text}"));
    let frac = summary.split_whitespace().nth(1).unwrap();
    let (a, b) = frac.split_once('/').unwrap();
    (a.parse().unwrap(), b.parse().unwrap(), text)
}

/// A class file by internal name.
pub type ClassFileBytes = (String, Vec<u8>);

/// The class files of Debian's `/usr/share/java/<name>.jar` (name, bytes, module-info left
/// out) and the jar's path; `None` (with a note) when it is not installed and not required.
pub fn subject_classes(name: &str) -> Option<(PathBuf, Vec<ClassFileBytes>)> {
    let jar = Path::new("/usr/share/java").join(format!("{name}.jar"));
    if !jar.exists() {
        assert!(
            !ferrosuite_testkit::subjects_required(),
            "{} is required",
            jar.display()
        );
        eprintln!("skipping {name}: {} not installed", jar.display());
        return None;
    }
    let cp = ferrosuite_bytecode::classpath::ClassPath::parse(&jar.display().to_string()).unwrap();
    let entry = &cp.entries()[0];
    let classes = entry
        .class_names()
        .unwrap()
        .into_iter()
        .filter(|c| !c.ends_with("module-info"))
        .filter_map(|c| entry.class_bytes(&c).unwrap().map(|b| (c, b)))
        .collect();
    Some((jar, classes))
}
