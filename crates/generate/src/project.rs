//! Maven projects: their modules, compiled classes and class paths, the JUnit generation and
//! Mockito their tests use, and their testable classes — all from Maven itself.
//!
//! For the project at `DIR` (`DIR/pom.xml`, multi-module included), [`Project::load`] runs:
//!
//! ```text
//! mvn -B -q -f DIR/pom.xml compile \
//!     org.apache.maven.plugins:maven-dependency-plugin:3.8.1:build-classpath \
//!     -Dmdep.includeScope=runtime -Dmdep.outputFile=target/ferrosuite-runtime.classpath
//! mvn -B -q -f DIR/pom.xml compile \
//!     org.apache.maven.plugins:maven-dependency-plugin:3.8.1:build-classpath \
//!     -Dmdep.includeScope=test -Dmdep.outputFile=target/ferrosuite-test.classpath
//! ```
//!
//! Maven compiles every module and writes, in each module's `target/`, the class path of its
//! dependencies (the relative file name is taken relative to each module's directory; the
//! `compile` phase in the same run lets a module's dependency on a sibling resolve to the
//! sibling's `target/classes`). Then per module (the `<modules>` of the POMs, recursively):
//! - the classes under test are `target/classes` plus the runtime class path;
//! - the test class path gives the JUnit generation the project's tests use (JUnit 5's
//!   `junit-jupiter-api`, else JUnit 4's `junit`) and whether Mockito is there; these jars
//!   validate the tests;
//! - the release is the `maven.compiler.release` property of the module's POM when it has
//!   one, else the version of the class files Maven compiled (what the compiler targeted);
//! - tests go to `src/test/java` (batch runs never replace the user's files).
//!
//! Nothing under `src/` is touched by loading, and nothing is installed: Maven writes only
//! under `target/`, as any build does.

use std::path::{Path, PathBuf};
use std::process::Command;

use ferrosuite_bytecode::classfile::{ClassHeader, access};
use ferrosuite_emit::JUnit;

use crate::error::{Error, Result};
use crate::jars::{JUNIT4, JUPITER_API, JarSearch, MOCKITO};

/// The dependency plugin that prints the class paths (a fixed version, so that every run
/// resolves the same plugin).
pub const DEPENDENCY_PLUGIN: &str = "org.apache.maven.plugins:maven-dependency-plugin:3.8.1";

/// How to run Maven.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Maven {
    /// The `mvn` program.
    pub program: PathBuf,
    /// Extra arguments for every run (`-o` for offline, `-s settings.xml`, profiles).
    pub args: Vec<String>,
}

impl Default for Maven {
    fn default() -> Self {
        Maven {
            program: PathBuf::from("mvn"),
            args: Vec::new(),
        }
    }
}

impl Maven {
    /// Runs `mvn -B -q -f <pom> <args>`; an error with Maven's output when it fails.
    fn run(&self, pom: &Path, args: &[&str]) -> Result<()> {
        let o = Command::new(&self.program)
            .arg("-B")
            .arg("-q")
            .arg("-Dstyle.color=never")
            .arg("-f")
            .arg(pom)
            .args(&self.args)
            .args(args)
            .output()
            .map_err(|e| {
                Error::Tool(format!(
                    "cannot run {} ({e}): install Maven (Debian: apt-get install maven) or put \
                     `mvn` on PATH",
                    self.program.display()
                ))
            })?;
        if !o.status.success() {
            let out = String::from_utf8_lossy(&o.stdout);
            let err = String::from_utf8_lossy(&o.stderr);
            let tail: Vec<&str> = out.lines().chain(err.lines()).collect();
            let tail = tail[tail.len().saturating_sub(30)..].join("\n");
            return Err(Error::Tool(format!(
                "`mvn -f {} {}` failed:\n{tail}",
                pom.display(),
                args.join(" ")
            )));
        }
        Ok(())
    }
}

/// One module of a Maven project (the project itself when it has no modules).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Module {
    /// The module's directory (holds its `pom.xml`).
    pub dir: PathBuf,
    /// Its artifact id.
    pub artifact: String,
    /// The compiled classes (`target/classes`).
    pub classes: PathBuf,
    /// The class path of its runtime dependencies.
    pub runtime_classpath: Vec<PathBuf>,
    /// The class path of its test dependencies (JUnit, Mockito, …).
    pub test_classpath: Vec<PathBuf>,
    /// The JUnit generation its tests use, if any is on the test class path.
    pub junit: Option<JUnit>,
    /// Whether Mockito is on the test class path.
    pub mockito: bool,
    /// `maven.compiler.release` of its POM, if set there.
    pub release: Option<u16>,
}

impl Module {
    /// The class path of the code under test: the classes and the runtime dependencies.
    #[must_use]
    pub fn classpath(&self) -> Vec<PathBuf> {
        std::iter::once(self.classes.clone())
            .chain(self.runtime_classpath.iter().cloned())
            .collect()
    }

    /// The root tests are written under (`<module>/src/test/java` is `root/src/test/java`).
    #[must_use]
    pub fn out(&self) -> &Path {
        &self.dir
    }
}

/// A Maven project: its modules with compiled classes (aggregators without code left out).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Project {
    /// The directory of the root `pom.xml`.
    pub root: PathBuf,
    /// The modules that have classes, in the POMs' order.
    pub modules: Vec<Module>,
}

const RUNTIME_FILE: &str = "target/ferrosuite-runtime.classpath";
const TEST_FILE: &str = "target/ferrosuite-test.classpath";

impl Project {
    /// Compiles the project at `dir` with Maven and reads its modules (see the module
    /// documentation for the commands).
    pub fn load(dir: &Path, maven: &Maven) -> Result<Project> {
        let root = std::path::absolute(dir).unwrap_or_else(|_| dir.to_path_buf());
        let pom = root.join("pom.xml");
        if !pom.is_file() {
            return Err(Error::Tool(format!(
                "{} has no pom.xml: it is not a Maven project's directory",
                root.display()
            )));
        }
        // Class paths of an earlier run must not stand in for modules Maven skips now.
        for dir in module_dirs(&root)? {
            for file in [RUNTIME_FILE, TEST_FILE] {
                let _ = std::fs::remove_file(dir.join(file));
            }
        }
        let goal = format!("{DEPENDENCY_PLUGIN}:build-classpath");
        for (scope, file) in [("runtime", RUNTIME_FILE), ("test", TEST_FILE)] {
            maven.run(
                &pom,
                &[
                    "compile",
                    &goal,
                    &format!("-Dmdep.includeScope={scope}"),
                    &format!("-Dmdep.outputFile={file}"),
                ],
            )?;
        }
        let mut modules = Vec::new();
        for dir in module_dirs(&root)? {
            let classes = dir.join("target/classes");
            let runtime = dir.join(RUNTIME_FILE);
            if !classes.is_dir() || !runtime.is_file() {
                // An aggregator (packaging pom), or a module without main code.
                continue;
            }
            let read_cp = |p: &Path| -> Result<Vec<PathBuf>> {
                let text = std::fs::read_to_string(p)
                    .map_err(|e| Error::Tool(format!("cannot read {}: {e}", p.display())))?;
                Ok(std::env::split_paths(text.trim())
                    .filter(|p| !p.as_os_str().is_empty())
                    .collect())
            };
            let runtime_classpath = read_cp(&runtime)?;
            let test_classpath = read_cp(&dir.join(TEST_FILE))?;
            let jars = JarSearch {
                test_classpath: test_classpath.clone(),
                maven_repository: None,
                system: None,
            };
            let junit = if jars.find(&JUPITER_API).is_some() {
                Some(JUnit::Five)
            } else if jars.find(&JUNIT4).is_some() {
                Some(JUnit::Four)
            } else {
                None
            };
            let pom_text = std::fs::read_to_string(dir.join("pom.xml")).unwrap_or_default();
            modules.push(Module {
                artifact: tag(
                    &without_blocks(
                        &pom_text,
                        &[
                            "parent",
                            "dependencies",
                            "build",
                            "profiles",
                            "dependencyManagement",
                        ],
                    ),
                    "artifactId",
                )
                .unwrap_or_else(|| dir.display().to_string()),
                release: tag(&pom_text, "maven.compiler.release").and_then(|r| r.parse().ok()),
                mockito: jars.find(&MOCKITO).is_some(),
                junit,
                runtime_classpath,
                test_classpath,
                classes,
                dir,
            });
        }
        if modules.is_empty() {
            return Err(Error::Tool(format!(
                "the Maven project at {} has no module with compiled classes (target/classes)",
                root.display()
            )));
        }
        Ok(Project { root, modules })
    }
}

/// The directories of the project at `root` and of its modules, recursively (a module's
/// own modules after it), from the `<modules>` of each POM outside profiles.
pub fn module_dirs(root: &Path) -> Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let pom = dir.join("pom.xml");
        let text = std::fs::read_to_string(&pom)
            .map_err(|e| Error::Tool(format!("cannot read {}: {e}", pom.display())))?;
        let text = without_blocks(&text, &["profiles"]);
        let mut children: Vec<PathBuf> = Vec::new();
        if let Some(block) = tag(&text, "modules") {
            let mut rest = block.as_str();
            while let Some(i) = rest.find("<module>") {
                let after = &rest[i + "<module>".len()..];
                let Some(j) = after.find("</module>") else {
                    break;
                };
                let name = after[..j].trim();
                let child = dir.join(name);
                // `<module>` may name a directory or a POM file.
                let child = if child.is_file() {
                    child.parent().map_or(child.clone(), Path::to_path_buf)
                } else {
                    child
                };
                if out.contains(&child) || children.contains(&child) {
                    return Err(Error::Tool(format!(
                        "{} names module {name} twice or in a cycle",
                        pom.display()
                    )));
                }
                children.push(child);
                rest = &after[j..];
            }
        }
        out.push(dir);
        // Depth first, in the POM's order.
        stack.extend(children.into_iter().rev());
    }
    Ok(out)
}

/// The text of `text` without XML comments and without the `<name>…</name>` blocks given.
fn without_blocks(text: &str, names: &[&str]) -> String {
    let mut s = text.to_string();
    while let Some(i) = s.find("<!--") {
        let end = s[i..].find("-->").map_or(s.len(), |j| i + j + 3);
        s.replace_range(i..end, "");
    }
    for name in names {
        let (open, close) = (format!("<{name}>"), format!("</{name}>"));
        while let Some(i) = s.find(&open) {
            let end = s[i..].find(&close).map_or(s.len(), |j| i + j + close.len());
            s.replace_range(i..end, "");
        }
    }
    s
}

/// The content of the first `<name>…</name>` of `text`, trimmed.
fn tag(text: &str, name: &str) -> Option<String> {
    let open = format!("<{name}>");
    let close = format!("</{name}>");
    let i = text.find(&open)? + open.len();
    let j = text[i..].find(&close)?;
    Some(text[i..i + j].trim().to_string())
}

/// The testable classes of a directory of compiled classes (binary names, sorted): top-level
/// classes and enums, and interfaces and abstract classes that declare a non-private,
/// non-synthetic static method; not
/// annotations, `package-info` or `module-info`.
pub fn testable_classes(classes: &Path) -> Result<Vec<String>> {
    let mut out = Vec::new();
    let mut stack = vec![classes.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let entries = std::fs::read_dir(&dir)
            .map_err(|e| Error::Tool(format!("cannot list {}: {e}", dir.display())))?;
        for e in entries.flatten() {
            let path = e.path();
            if path.is_dir() {
                stack.push(path);
                continue;
            }
            let Some(name) = path.file_name().and_then(|n| n.to_str()) else {
                continue;
            };
            let Some(stem) = name.strip_suffix(".class") else {
                continue;
            };
            if stem.contains('$') || stem == "package-info" || stem == "module-info" {
                continue;
            }
            let bytes = std::fs::read(&path)
                .map_err(|e| Error::Tool(format!("cannot read {}: {e}", path.display())))?;
            let Ok(header) = ClassHeader::parse(&bytes) else {
                continue;
            };
            if testable(&header, &bytes) {
                out.push(header.name.replace('/', "."));
            }
        }
    }
    out.sort();
    Ok(out)
}

/// Whether a class can be the subject of a generated test class (see [`testable_classes`]).
fn testable(header: &ClassHeader, bytes: &[u8]) -> bool {
    let flags = header.access_flags;
    if flags & (access::ANNOTATION | access::SYNTHETIC) != 0 {
        return false;
    }
    if flags & (access::INTERFACE | access::ABSTRACT) == 0 {
        return true;
    }
    // Interfaces and abstract classes: only through their static methods.
    ferrosuite_bytecode::ClassFile::parse(bytes).is_ok_and(|c| {
        c.methods.iter().any(|m| {
            m.access_flags & access::STATIC != 0
                && m.access_flags & (access::PRIVATE | access::SYNTHETIC) == 0
                && c.constant_pool.utf8(m.name).is_ok_and(|n| n != "<clinit>")
        })
    })
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;

    #[test]
    fn modules_are_read_outside_comments_and_profiles() {
        let root = std::env::temp_dir().join(format!("ferrosuite-modules-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        let pom = |dir: &Path, body: &str| {
            std::fs::create_dir_all(dir).unwrap();
            std::fs::write(dir.join("pom.xml"), format!("<project>{body}</project>")).unwrap();
        };
        pom(
            &root,
            "<artifactId>all</artifactId><modules><module>core</module>\
             <!-- <module>old</module> --><module>app</module></modules>\
             <profiles><profile><modules><module>extra</module></modules></profile></profiles>",
        );
        pom(
            &root.join("core"),
            "<modules><module>core-sub</module></modules>",
        );
        pom(&root.join("core/core-sub"), "");
        pom(&root.join("app"), "");
        let dirs = module_dirs(&root).unwrap();
        assert_eq!(
            dirs,
            [
                root.clone(),
                root.join("core"),
                root.join("core/core-sub"),
                root.join("app")
            ]
        );
        assert_eq!(
            tag(
                &without_blocks(
                    "<parent><artifactId>p</artifactId></parent><artifactId>me</artifactId>",
                    &["parent"]
                ),
                "artifactId"
            ),
            Some("me".into())
        );
        let _ = std::fs::remove_dir_all(&root);
    }
}
