//! Where the jars the emitted tests compile and run with come from: JUnit 5 or 4, and
//! Mockito, looked up in the user's test class path, then the local Maven repository, then a
//! Debian-style directory of jars (`/usr/share/java`).
//!
//! Each [`Artifact`] is looked up on its own, in that order:
//!
//! 1. an entry of the test class path named `<artifact>-<version>.jar` or `<artifact>.jar`
//!    (what Maven's and Gradle's class paths hold);
//! 2. the highest release version in the local Maven repository
//!    (`~/.m2/repository/<group as path>/<artifact>/<version>/<artifact>-<version>.jar`);
//! 3. the Debian name in the system directory (`/usr/share/java/junit-jupiter-api.jar`).
//!
//! When a required jar is found nowhere, the error names the artifact, every place looked at
//! and the ways to fix it (the test class path, a Maven command, a Debian package).
//!
//! ```
//! use ferrosuite_generate::jars::compare_versions;
//! use std::cmp::Ordering;
//! assert_eq!(compare_versions("5.10.2", "5.9.3"), Ordering::Greater);
//! assert_eq!(compare_versions("5.11.0-M1", "5.11.0"), Ordering::Less);
//! ```

use std::cmp::Ordering;
use std::path::PathBuf;

use crate::error::{Error, Result};

/// A library the emitted tests use, by Maven coordinates and Debian file name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Artifact {
    /// Maven group id.
    pub group: &'static str,
    /// Maven artifact ids (the first is the one to fetch; others are accepted alternatives,
    /// such as `hamcrest` for `hamcrest-core`).
    pub names: &'static [&'static str],
    /// File names in a Debian-style jar directory.
    pub debian: &'static [&'static str],
    /// The Debian package that installs it.
    pub package: &'static str,
}

/// JUnit 5's API (`@Test`, `Assertions`).
pub const JUPITER_API: Artifact = Artifact {
    group: "org.junit.jupiter",
    names: &["junit-jupiter-api"],
    debian: &["junit-jupiter-api.jar"],
    package: "junit5",
};
/// The assertion errors JUnit 5's API throws.
pub const OPENTEST4J: Artifact = Artifact {
    group: "org.opentest4j",
    names: &["opentest4j"],
    debian: &["opentest4j.jar"],
    package: "junit5",
};
/// The JUnit platform's common classes (the API's annotations refer to them).
pub const PLATFORM_COMMONS: Artifact = Artifact {
    group: "org.junit.platform",
    names: &["junit-platform-commons"],
    debian: &["junit-platform-commons.jar"],
    package: "junit5",
};
/// The API-status annotations of JUnit 5 (javac only warns without them).
pub const APIGUARDIAN: Artifact = Artifact {
    group: "org.apiguardian",
    names: &["apiguardian-api"],
    debian: &["apiguardian-api.jar"],
    package: "junit5",
};
/// The JUnit platform's console launcher with every engine: runs JUnit 5 tests.
pub const CONSOLE_STANDALONE: Artifact = Artifact {
    group: "org.junit.platform",
    names: &["junit-platform-console-standalone"],
    debian: &["junit-platform-console-standalone.jar"],
    package: "junit5",
};
/// JUnit 4.
pub const JUNIT4: Artifact = Artifact {
    group: "junit",
    names: &["junit"],
    debian: &["junit4.jar"],
    package: "junit4",
};
/// Hamcrest, which JUnit 4 needs.
pub const HAMCREST: Artifact = Artifact {
    group: "org.hamcrest",
    names: &["hamcrest-core", "hamcrest"],
    debian: &["hamcrest-core.jar", "hamcrest.jar"],
    package: "libhamcrest-java",
};
/// Mockito.
pub const MOCKITO: Artifact = Artifact {
    group: "org.mockito",
    names: &["mockito-core"],
    debian: &["mockito-core.jar"],
    package: "libmockito-java",
};
/// Byte Buddy, Mockito's class generator.
pub const BYTE_BUDDY: Artifact = Artifact {
    group: "net.bytebuddy",
    names: &["byte-buddy"],
    debian: &["byte-buddy.jar"],
    package: "libbyte-buddy-java",
};
/// Byte Buddy's agent, which Mockito's inline mock maker attaches.
pub const BYTE_BUDDY_AGENT: Artifact = Artifact {
    group: "net.bytebuddy",
    names: &["byte-buddy-agent"],
    debian: &["byte-buddy-agent.jar"],
    package: "libbyte-buddy-java",
};
/// Objenesis, with which Mockito instantiates mocks.
pub const OBJENESIS: Artifact = Artifact {
    group: "org.objenesis",
    names: &["objenesis"],
    debian: &["objenesis.jar"],
    package: "libobjenesis-java",
};

/// Where a jar was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Origin {
    /// An entry of the test class path.
    TestClassPath,
    /// The local Maven repository.
    MavenRepository,
    /// The Debian-style jar directory.
    System,
}

/// A jar found for an artifact.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Found {
    /// The jar.
    pub path: PathBuf,
    /// Where it was found.
    pub origin: Origin,
    /// Its version, when the file name or the repository says it.
    pub version: Option<String>,
}

/// The places jars are looked up in, in order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct JarSearch {
    /// The user's test class path (jars and directories).
    pub test_classpath: Vec<PathBuf>,
    /// The local Maven repository (`~/.m2/repository`), if any.
    pub maven_repository: Option<PathBuf>,
    /// A Debian-style directory of jars (`/usr/share/java`), if any.
    pub system: Option<PathBuf>,
}

impl JarSearch {
    /// The search for a test class path: the local Maven repository of this user
    /// (`$HOME/.m2/repository`) and `/usr/share/java`, unless `maven_repository` or `system`
    /// name others.
    #[must_use]
    pub fn new(
        test_classpath: Vec<PathBuf>,
        maven_repository: Option<PathBuf>,
        system: Option<PathBuf>,
    ) -> JarSearch {
        let maven_repository = maven_repository.or_else(|| {
            std::env::var_os("HOME")
                .filter(|h| !h.is_empty())
                .map(|h| PathBuf::from(h).join(".m2/repository"))
        });
        JarSearch {
            test_classpath,
            maven_repository,
            system: Some(system.unwrap_or_else(|| PathBuf::from("/usr/share/java"))),
        }
    }

    /// The jar of `artifact`, from the first place that has one.
    #[must_use]
    pub fn find(&self, artifact: &Artifact) -> Option<Found> {
        self.in_test_classpath(artifact)
            .or_else(|| self.in_maven_repository(artifact))
            .or_else(|| self.in_system(artifact))
    }

    fn in_test_classpath(&self, artifact: &Artifact) -> Option<Found> {
        self.test_classpath.iter().find_map(|p| {
            let file = p.file_name()?.to_str()?;
            let stem = file.strip_suffix(".jar")?;
            artifact.names.iter().find_map(|name| {
                let version = if stem == *name {
                    None
                } else {
                    let v = stem.strip_prefix(name)?.strip_prefix('-')?;
                    // `junit-4.13.2`, not `junit-jupiter-api-5.9.jar` for `junit`.
                    if !v.starts_with(|c: char| c.is_ascii_digit()) {
                        return None;
                    }
                    Some(v.to_string())
                };
                p.is_file().then(|| Found {
                    path: p.clone(),
                    origin: Origin::TestClassPath,
                    version,
                })
            })
        })
    }

    fn in_maven_repository(&self, artifact: &Artifact) -> Option<Found> {
        let repo = self.maven_repository.as_ref()?;
        let group = repo.join(artifact.group.replace('.', "/"));
        artifact.names.iter().find_map(|name| {
            let dir = group.join(name);
            let mut versions: Vec<String> = std::fs::read_dir(&dir)
                .ok()?
                .filter_map(|e| e.ok()?.file_name().into_string().ok())
                .filter(|v| dir.join(v).join(format!("{name}-{v}.jar")).is_file())
                .collect();
            // Releases first: a milestone or snapshot only when there is nothing else.
            if versions.iter().any(|v| !is_qualified(v)) {
                versions.retain(|v| !is_qualified(v));
            }
            versions.sort_by(|a, b| compare_versions(a, b));
            let v = versions.pop()?;
            Some(Found {
                path: dir.join(&v).join(format!("{name}-{v}.jar")),
                origin: Origin::MavenRepository,
                version: Some(v),
            })
        })
    }

    fn in_system(&self, artifact: &Artifact) -> Option<Found> {
        let dir = self.system.as_ref()?;
        artifact.debian.iter().find_map(|f| {
            let path = dir.join(f);
            path.is_file().then_some(Found {
                path,
                origin: Origin::System,
                version: None,
            })
        })
    }

    /// Every place `artifact` was looked for, for error messages.
    fn places(&self, artifact: &Artifact) -> Vec<String> {
        let mut out = vec![format!(
            "the test class path ({} entries)",
            self.test_classpath.len()
        )];
        if let Some(repo) = &self.maven_repository {
            out.push(
                repo.join(artifact.group.replace('.', "/"))
                    .join(artifact.names[0])
                    .display()
                    .to_string(),
            );
        }
        if let Some(dir) = &self.system {
            out.push(dir.join(artifact.debian[0]).display().to_string());
        }
        out
    }

    /// The jars of `artifacts` (`what` names them in the error), each from the first place
    /// that has it; an error naming where they were looked for and how to provide them when
    /// one is found nowhere.
    pub fn require(
        &self,
        what: &str,
        artifacts: &[Artifact],
        version: &str,
    ) -> Result<Vec<PathBuf>> {
        artifacts
            .iter()
            .map(|a| {
                self.find(a)
                    .map(|f| f.path)
                    .ok_or_else(|| self.missing(what, a, version))
            })
            .collect()
    }

    /// The error for `artifact` found nowhere: where it was looked for, how to provide it
    /// (version `version` in the Maven hint).
    fn missing(&self, what: &str, a: &Artifact, version: &str) -> Error {
        Error::Tool(format!(
            "{what}: {} ({}:{}) not found; looked in {}. Put the jar on the test class path, \
             or fetch it with `mvn dependency:get -Dartifact={}:{}:{version}`, or on Debian \
             `apt-get install {}`",
            a.names[0],
            a.group,
            a.names[0],
            self.places(a).join(", "),
            a.group,
            a.names[0],
            a.package
        ))
    }

    /// The version of JUnit 5's API found, or the one to name in hints.
    fn jupiter_version(api: Option<&Found>) -> String {
        api.and_then(|f| f.version.clone())
            .unwrap_or_else(|| DEFAULT_JUPITER.to_string())
    }

    /// The jars JUnit 5 tests compile against: the API, opentest4j, the platform's commons
    /// and, when found, the API-status annotations.
    pub fn junit5_compile(&self) -> Result<Vec<PathBuf>> {
        let api = self.find(&JUPITER_API);
        let version = Self::jupiter_version(api.as_ref());
        let platform = platform_version(&version);
        let api = api.ok_or_else(|| self.missing("JUnit 5", &JUPITER_API, &version))?;
        let mut jars = vec![api.path];
        jars.extend(self.require("JUnit 5", &[OPENTEST4J], "1.3.0")?);
        jars.extend(self.require("JUnit 5", &[PLATFORM_COMMONS], &platform)?);
        jars.extend(self.find(&APIGUARDIAN).map(|f| f.path));
        Ok(jars)
    }

    /// The JUnit 5 console launcher that runs the tests (of the platform version that goes
    /// with the API found, in the error's hint).
    pub fn junit5_console(&self) -> Result<PathBuf> {
        let version = Self::jupiter_version(self.find(&JUPITER_API).as_ref());
        let mut jars = self.require(
            "JUnit 5",
            &[CONSOLE_STANDALONE],
            &platform_version(&version),
        )?;
        Ok(jars.remove(0))
    }

    /// JUnit 4 and Hamcrest.
    pub fn junit4(&self) -> Result<Vec<PathBuf>> {
        let mut jars = self.require("JUnit 4", &[JUNIT4], "4.13.2")?;
        jars.extend(self.require("JUnit 4", &[HAMCREST], "1.3")?);
        Ok(jars)
    }

    /// Mockito and what it needs at run time (Byte Buddy, its agent, Objenesis).
    pub fn mockito(&self) -> Result<Vec<PathBuf>> {
        let mut jars = self.require("Mockito", &[MOCKITO], "5.14.2")?;
        jars.extend(self.require("Mockito", &[BYTE_BUDDY], "1.15.10")?);
        jars.extend(self.find(&BYTE_BUDDY_AGENT).map(|f| f.path));
        jars.extend(self.require("Mockito", &[OBJENESIS], "3.3")?);
        Ok(jars)
    }
}

/// The JUnit Jupiter version named in hints when none was found.
const DEFAULT_JUPITER: &str = "5.11.4";

/// The JUnit platform version released with a Jupiter version (5.x.y → 1.x.y; from JUnit 6
/// on both have the same version).
fn platform_version(jupiter: &str) -> String {
    match jupiter.split_once('.') {
        Some(("5", rest)) => format!("1.{rest}"),
        Some((major, _)) if major.parse::<u32>().is_ok_and(|m| m >= 6) => jupiter.to_string(),
        _ => "1.11.4".to_string(),
    }
}

/// Whether a Maven version has a qualifier (`5.12.0-M1`, `1.0-SNAPSHOT`, `2.0_beta`).
fn is_qualified(version: &str) -> bool {
    version.contains(['-', '_'])
}

/// Orders Maven versions: numeric parts compared as numbers, and a release after its
/// qualified versions (`5.11.0-M1` < `5.11.0`, `1.0-SNAPSHOT` < `1.0`).
#[must_use]
pub fn compare_versions(a: &str, b: &str) -> Ordering {
    let split = |v: &str| -> (Vec<u64>, bool) {
        let (nums, qualifier) = match v.find(['-', '_']) {
            Some(i) => (&v[..i], true),
            None => (v, false),
        };
        (
            nums.split('.').map(|p| p.parse().unwrap_or(0)).collect(),
            !qualifier,
        )
    };
    let (na, ra) = split(a);
    let (nb, rb) = split(b);
    let len = na.len().max(nb.len());
    for i in 0..len {
        let (left, right) = (
            na.get(i).copied().unwrap_or(0),
            nb.get(i).copied().unwrap_or(0),
        );
        match left.cmp(&right) {
            Ordering::Equal => {}
            order => return order,
        }
    }
    ra.cmp(&rb).then_with(|| a.cmp(b))
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;
    use std::path::Path;

    fn scratch(name: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("ferrosuite-jars-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    fn touch(p: &Path) -> PathBuf {
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, b"PK").unwrap();
        p.to_path_buf()
    }

    #[test]
    fn versions_order_numerically_and_releases_last() {
        assert_eq!(compare_versions("5.10.2", "5.9.3"), Ordering::Greater);
        // Equal numbers: the text decides, so that the order is total.
        assert_eq!(compare_versions("1.0", "1.0.0"), Ordering::Less);
        assert_eq!(compare_versions("1.0-SNAPSHOT", "1.0"), Ordering::Less);
        assert_eq!(platform_version("5.11.4"), "1.11.4");
        assert_eq!(platform_version("6.1.3"), "6.1.3");
    }

    #[test]
    fn test_class_path_then_maven_repository_then_system() {
        let root = scratch("order");
        let repo = root.join("m2");
        let system = root.join("share");
        let sys_api = touch(&system.join("junit-jupiter-api.jar"));
        let m2_old = touch(
            &repo.join("org/junit/jupiter/junit-jupiter-api/5.9.3/junit-jupiter-api-5.9.3.jar"),
        );
        let m2_new = touch(
            &repo.join("org/junit/jupiter/junit-jupiter-api/5.10.2/junit-jupiter-api-5.10.2.jar"),
        );
        // A pre-release is taken only when there is no release.
        touch(
            &repo.join(
                "org/junit/jupiter/junit-jupiter-api/5.13.0-M1/junit-jupiter-api-5.13.0-M1.jar",
            ),
        );
        // A version directory without its jar (a failed download) does not count.
        std::fs::create_dir_all(repo.join("org/junit/jupiter/junit-jupiter-api/5.12.0")).unwrap();
        let cp_api = touch(&root.join("lib/junit-jupiter-api-5.11.4.jar"));
        let cp_other = touch(&root.join("lib/junit-jupiter-params-5.11.4.jar"));

        let only_system = JarSearch {
            test_classpath: vec![],
            maven_repository: None,
            system: Some(system.clone()),
        };
        assert_eq!(only_system.find(&JUPITER_API).unwrap().path, sys_api);
        let with_repo = JarSearch {
            maven_repository: Some(repo.clone()),
            ..only_system.clone()
        };
        let found = with_repo.find(&JUPITER_API).unwrap();
        assert_eq!(found.path, m2_new);
        assert_ne!(found.path, m2_old);
        assert_eq!(found.version.as_deref(), Some("5.10.2"));
        let with_cp = JarSearch {
            test_classpath: vec![cp_other, cp_api.clone()],
            ..with_repo.clone()
        };
        let found = with_cp.find(&JUPITER_API).unwrap();
        assert_eq!((found.path, found.origin), (cp_api, Origin::TestClassPath));
        // `junit` does not match JUnit 5's jars.
        assert!(with_cp.in_test_classpath(&JUNIT4).is_none());
        let _ = std::fs::remove_dir_all(&root);
    }

    #[test]
    fn a_missing_jar_names_where_it_was_looked_for_and_how_to_fix_it() {
        let root = scratch("missing");
        let search = JarSearch {
            test_classpath: vec![],
            maven_repository: Some(root.join("m2")),
            system: Some(root.join("share")),
        };
        let err = search.junit4().unwrap_err().to_string();
        assert!(
            err.contains("JUnit 4: junit (junit:junit) not found"),
            "{err}"
        );
        assert!(
            err.contains(&root.join("m2/junit/junit").display().to_string()),
            "{err}"
        );
        assert!(
            err.contains(&root.join("share/junit4.jar").display().to_string()),
            "{err}"
        );
        assert!(err.contains("on the test class path"), "{err}");
        assert!(
            err.contains("mvn dependency:get -Dartifact=junit:junit:4.13.2"),
            "{err}"
        );
        assert!(err.contains("apt-get install junit4"), "{err}");
        let _ = std::fs::remove_dir_all(&root);
    }
}
