//! The JDKs of this machine: where they are, which Java version each is, and which one can
//! load class files of a given version.
//!
//! A class file's major version fixes the oldest JVM that loads it: major 52 is Java 8, 61 is
//! Java 17, 69 is Java 25 (feature = major − 44). A class compiled for Java 25 cannot be
//! loaded, analysed against the right JDK, compiled against or tested by a JDK 17, so the
//! tools that run code under test choose their JDK by the class files:
//!
//! 1. a JDK the user named explicitly is used as is, or refused with the version it needs;
//! 2. else the default JDK (`JAVA_HOME`, else the `java` on `PATH`) when it is new enough;
//! 3. else the oldest installed JDK that is new enough (ties by path), from the usual places:
//!    `/usr/lib/jvm`, `/usr/java`, `/opt/java`, `/opt`, the folders of `SDKMAN` and `IntelliJ`
//!    under the home directory, and macOS's `/Library/Java/JavaVirtualMachines`;
//! 4. else an error that names the version needed and every JDK found.
//!
//! A directory is a JDK when it has `bin/javac` and a `release` file with `JAVA_VERSION`.
//!
//! ```
//! use ferrosuite_bytecode::jdk::{feature_of_major, major_of_feature};
//! assert_eq!(feature_of_major(69), 25);
//! assert_eq!(feature_of_major(52), 8);
//! assert_eq!(major_of_feature(17), 61);
//! ```

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use crate::error::{Error, Result};

/// The Java feature version (8, 17, 25…) whose class files have major version `major`
/// (major 49 and older give the feature number the same rule gives: 5 for 49).
#[must_use]
pub fn feature_of_major(major: u16) -> u16 {
    major.saturating_sub(44).max(1)
}

/// The class-file major version of Java feature version `feature` (52 for 8).
#[must_use]
pub fn major_of_feature(feature: u16) -> u16 {
    feature + 44
}

/// One JDK: its home directory and Java feature version.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Jdk {
    /// The home directory (holds `bin/java`, `bin/javac`, `release`).
    pub home: PathBuf,
    /// The Java feature version (17 for `17.0.15`, 8 for `1.8.0_392`).
    pub feature: u16,
}

impl Jdk {
    /// The JDK at `home`: an error when it has no `bin/javac` or no readable `release` file
    /// with a `JAVA_VERSION`.
    pub fn at(home: &Path) -> Result<Jdk> {
        let not_jdk = |detail: String| Error::NotAJdk {
            home: home.to_path_buf(),
            detail,
        };
        if !home.join("bin").join(javac_name()).is_file() {
            return Err(not_jdk("no bin/javac (a JRE, or not a Java home)".into()));
        }
        let release = home.join("release");
        let text = std::fs::read_to_string(&release)
            .map_err(|e| not_jdk(format!("cannot read {}: {e}", release.display())))?;
        let version = text
            .lines()
            .find_map(|l| l.trim().strip_prefix("JAVA_VERSION="))
            .map(|v| v.trim().trim_matches('"').to_string())
            .ok_or_else(|| not_jdk(format!("{} has no JAVA_VERSION", release.display())))?;
        let feature = parse_feature(&version)
            .ok_or_else(|| not_jdk(format!("JAVA_VERSION {version:?} is not a Java version")))?;
        Ok(Jdk {
            home: home.to_path_buf(),
            feature,
        })
    }

    /// The highest class-file major version this JDK loads.
    #[must_use]
    pub fn max_major(&self) -> u16 {
        major_of_feature(self.feature)
    }

    /// Whether this JDK loads class files of version `major`.
    #[must_use]
    pub fn loads(&self, major: u16) -> bool {
        major <= self.max_major()
    }

    /// `bin/java` of this JDK.
    #[must_use]
    pub fn java(&self) -> PathBuf {
        self.home.join("bin").join(java_name())
    }

    /// `bin/javac` of this JDK.
    #[must_use]
    pub fn javac(&self) -> PathBuf {
        self.home.join("bin").join(javac_name())
    }
}

fn java_name() -> &'static str {
    if cfg!(windows) { "java.exe" } else { "java" }
}

fn javac_name() -> &'static str {
    if cfg!(windows) { "javac.exe" } else { "javac" }
}

/// The feature number of a `JAVA_VERSION`: `17.0.15` → 17, `25` → 25, `1.8.0_392` → 8,
/// `26-ea` → 26.
#[must_use]
pub fn parse_feature(version: &str) -> Option<u16> {
    let digits = |s: &str| -> Option<u16> {
        let end = s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len());
        s[..end].parse().ok()
    };
    let first = digits(version)?;
    if first == 1 {
        // 1.8.0_392: the old scheme, the feature is the second number.
        return version.split('.').nth(1).and_then(digits);
    }
    Some(first)
}

/// Where to look for JDKs: the environment's `JAVA_HOME` and `PATH`, and the directories
/// whose subdirectories are JDK homes. [`JdkSearch::from_env`] reads this process's
/// environment; tests build one by hand.
#[derive(Debug, Clone, Default)]
pub struct JdkSearch {
    /// `JAVA_HOME`, when set and not empty.
    pub java_home: Option<PathBuf>,
    /// `PATH` (the default JDK, when `JAVA_HOME` is not set, is the one of `java` on it).
    pub path: Option<OsString>,
    /// Directories whose subdirectories are JDK homes (macOS bundles' `Contents/Home` too).
    pub roots: Vec<PathBuf>,
}

impl JdkSearch {
    /// The search of this process: its `JAVA_HOME` and `PATH`, and the usual places.
    #[must_use]
    pub fn from_env() -> JdkSearch {
        let mut roots: Vec<PathBuf> = [
            "/usr/lib/jvm",
            "/usr/java",
            "/opt/java",
            "/opt",
            "/Library/Java/JavaVirtualMachines",
        ]
        .iter()
        .map(PathBuf::from)
        .collect();
        if let Some(home) = std::env::var_os("HOME").filter(|h| !h.is_empty()) {
            let home = PathBuf::from(home);
            roots.push(home.join(".sdkman/candidates/java"));
            roots.push(home.join(".jdks"));
        }
        JdkSearch {
            java_home: std::env::var_os("JAVA_HOME")
                .filter(|h| !h.is_empty())
                .map(PathBuf::from),
            path: std::env::var_os("PATH"),
            roots,
        }
    }

    /// The default JDK's home: `JAVA_HOME`, else the home of the `java` on `PATH`
    /// (symbolic links resolved), if any.
    #[must_use]
    pub fn default_home(&self) -> Option<PathBuf> {
        if let Some(h) = &self.java_home {
            return Some(h.clone());
        }
        let path = self.path.as_ref()?;
        std::env::split_paths(path).find_map(|dir| {
            let java = dir.join(java_name());
            if !java.is_file() {
                return None;
            }
            let real = std::fs::canonicalize(&java).ok()?;
            Some(real.parent()?.parent()?.to_path_buf())
        })
    }

    /// Every JDK found: the default one first, then those under the roots, ordered by
    /// path; each home once (symbolic links resolved), directories that are no JDK skipped.
    #[must_use]
    pub fn installed(&self) -> Vec<Jdk> {
        let mut homes: Vec<PathBuf> = self.default_home().into_iter().collect();
        for root in &self.roots {
            let Ok(entries) = std::fs::read_dir(root) else {
                continue;
            };
            let mut found: Vec<PathBuf> = entries
                .filter_map(|e| e.ok().map(|e| e.path()))
                .flat_map(|p| [p.join("Contents/Home"), p])
                .collect();
            found.sort();
            homes.extend(found);
        }
        let mut seen = Vec::new();
        let mut out = Vec::new();
        for home in homes {
            let real = std::fs::canonicalize(&home).unwrap_or_else(|_| home.clone());
            if seen.contains(&real) {
                continue;
            }
            if let Ok(jdk) = Jdk::at(&home) {
                seen.push(real);
                out.push(jdk);
            }
        }
        out
    }

    /// The JDK to load class files of version `major` with (see the module documentation):
    /// `explicit` if given (an error if it is too old), else the default JDK when new
    /// enough, else the oldest installed one that is.
    pub fn choose(&self, explicit: Option<&Path>, major: u16) -> Result<Jdk> {
        let needed = feature_of_major(major);
        if let Some(home) = explicit {
            let jdk = Jdk::at(home)?;
            if !jdk.loads(major) {
                return Err(Error::JdkTooOld {
                    home: jdk.home,
                    feature: jdk.feature,
                    major,
                    needed,
                });
            }
            return Ok(jdk);
        }
        if let Some(d) = self.default_home()
            && let Ok(jdk) = Jdk::at(&d)
            && jdk.loads(major)
        {
            return Ok(jdk);
        }
        let installed = self.installed();
        let best = installed
            .iter()
            .filter(|j| j.loads(major))
            .min_by_key(|j| j.feature);
        if let Some(jdk) = best {
            return Ok(jdk.clone());
        }
        let found = if installed.is_empty() {
            "no JDK was found".to_string()
        } else {
            let list: Vec<String> = installed
                .iter()
                .map(|j| format!("Java {} at {}", j.feature, j.home.display()))
                .collect();
            format!("the JDKs found are {}", list.join(", "))
        };
        let mut places: Vec<String> = Vec::new();
        if self.java_home.is_some() {
            places.push("JAVA_HOME".into());
        } else {
            places.push("`java` on PATH".into());
        }
        places.extend(self.roots.iter().map(|r| r.display().to_string()));
        Err(Error::NoJdkFor {
            major,
            needed,
            found: format!("{found} (looked at {})", places.join(", ")),
        })
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;

    /// A fake JDK home: `bin/javac` and a `release` file.
    fn fake(root: &Path, name: &str, version: &str) -> PathBuf {
        let home = root.join(name);
        std::fs::create_dir_all(home.join("bin")).unwrap();
        std::fs::write(home.join("bin").join(javac_name()), "").unwrap();
        std::fs::write(home.join("bin").join(java_name()), "").unwrap();
        std::fs::write(
            home.join("release"),
            format!("IMPLEMENTOR=\"x\"\nJAVA_VERSION=\"{version}\"\n"),
        )
        .unwrap();
        home
    }

    fn scratch(name: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("ferrosuite-jdk-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn versions_parse_in_both_schemes() {
        assert_eq!(parse_feature("17.0.15"), Some(17));
        assert_eq!(parse_feature("25"), Some(25));
        assert_eq!(parse_feature("1.8.0_392"), Some(8));
        assert_eq!(parse_feature("26-ea"), Some(26));
        assert_eq!(parse_feature("x"), None);
        assert_eq!(feature_of_major(61), 17);
        assert_eq!(major_of_feature(25), 69);
    }

    #[test]
    fn the_default_serves_when_new_enough_else_the_oldest_that_loads() {
        let root = scratch("choose");
        let jvm = root.join("jvm");
        let j17 = fake(&jvm, "java-17", "17.0.15");
        let j21 = fake(&jvm, "java-21", "21.0.2");
        fake(&jvm, "temurin-25", "25.0.3");
        std::fs::create_dir_all(jvm.join("not-a-jdk")).unwrap();
        let search = JdkSearch {
            java_home: Some(j17.clone()),
            path: None,
            roots: vec![jvm.clone()],
        };
        assert_eq!(search.installed().len(), 3);
        assert_eq!(search.choose(None, 52).unwrap().home, j17);
        assert_eq!(search.choose(None, 61).unwrap().home, j17);
        // Java 21 class files: the default is too old; 21 is the oldest that loads them.
        assert_eq!(search.choose(None, 65).unwrap().home, j21);
        assert_eq!(search.choose(None, 69).unwrap().feature, 25);
        let err = search.choose(None, 70).unwrap_err().to_string();
        assert!(err.contains("Java 26"), "{err}");
        assert!(err.contains("Java 25 at"), "{err}");
        assert!(err.contains(&jvm.display().to_string()), "{err}");
        // Named explicitly: used, or refused with what is needed.
        assert_eq!(search.choose(Some(&j21), 52).unwrap().home, j21);
        let err = search.choose(Some(&j17), 69).unwrap_err().to_string();
        assert!(err.contains("Java 17") && err.contains("Java 25"), "{err}");
        let _ = std::fs::remove_dir_all(&root);
    }

    #[test]
    fn a_directory_without_javac_or_version_is_no_jdk() {
        let root = scratch("notjdk");
        let home = root.join("jre");
        std::fs::create_dir_all(home.join("bin")).unwrap();
        std::fs::write(home.join("release"), "JAVA_VERSION=\"17\"\n").unwrap();
        let err = Jdk::at(&home).unwrap_err().to_string();
        assert!(err.contains("bin/javac"), "{err}");
        let home = fake(&root, "odd", "banana");
        let err = Jdk::at(&home).unwrap_err().to_string();
        assert!(err.contains("banana"), "{err}");
        let _ = std::fs::remove_dir_all(&root);
    }
}
