//! Class paths: directories, jar/zip files, jmod files and the JDK's runtime image, with lazy
//! loading and caching.
//!
//! Opening an entry reads only its directory (a zip central directory, a jimage index); class
//! bytes are read when a class is first asked for, and parsed classes are cached per class path.
//! The JDK is added with the entry `jrt` (the JDK found through `JAVA_HOME` or `java` on `PATH`)
//! or `jrt:<java home>`; it is read from `lib/modules` when present, else from `jmods/`.
//!
//! ```no_run
//! use ferrosuite_bytecode::classpath::ClassPath;
//! # fn main() -> ferrosuite_bytecode::Result<()> {
//! let cp = ClassPath::parse("/usr/share/java/guava.jar:jrt")?;
//! let joiner = cp.load("com/google/common/base/Joiner")?;
//! assert_eq!(joiner.super_name()?.as_deref(), Some("java/lang/Object"));
//! # Ok(()) }
//! ```

pub mod jimage;

use std::collections::{BTreeSet, HashMap};
use std::fs::File;
use std::io::{BufReader, Read};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};

use zip::ZipArchive;

use crate::classfile::{ClassFile, ClassHeader};
use crate::error::{Error, Result, io_at};
use jimage::JImage;

type Zip = ZipArchive<BufReader<File>>;

enum Source {
    Dir,
    Zip {
        archive: Mutex<Zip>,
        prefix: &'static str,
    },
    Image {
        image: JImage,
        packages: HashMap<String, String>,
    },
}

/// One class-path entry.
pub struct ClassPathEntry {
    path: PathBuf,
    source: Source,
}

impl std::fmt::Debug for ClassPathEntry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ClassPathEntry")
            .field("path", &self.path)
            .field("kind", &self.kind())
            .finish_non_exhaustive()
    }
}

fn zip_err(path: &Path) -> impl Fn(zip::result::ZipError) -> Error + '_ {
    move |source| Error::Zip {
        path: path.to_path_buf(),
        error: source,
    }
}

fn is_class_path(name: &str) -> bool {
    name.ends_with(".class")
}

impl ClassPathEntry {
    /// Opens a directory, `.jar`/`.zip`, `.jmod`, or JDK image (`lib/modules`) file.
    pub fn open(path: &Path) -> Result<Self> {
        let meta = std::fs::metadata(path).map_err(io_at(path))?;
        if meta.is_dir() {
            return Ok(ClassPathEntry {
                path: path.to_path_buf(),
                source: Source::Dir,
            });
        }
        let mut magic = [0u8; 4];
        File::open(path)
            .and_then(|mut f| f.read_exact(&mut magic))
            .map_err(io_at(path))?;
        match magic {
            [b'P', b'K', ..] => Self::open_zip(path, ""),
            [b'J', b'M', ..] => Self::open_zip(path, "classes/"),
            [0xDA, 0xDA, 0xFE, 0xCA] | [0xCA, 0xFE, 0xDA, 0xDA] => Self::open_image(path),
            _ => Err(Error::BadClassPathEntry {
                path: path.to_path_buf(),
                detail: "not a directory, jar/zip, jmod or JDK image".into(),
            }),
        }
    }

    fn open_zip(path: &Path, prefix: &'static str) -> Result<Self> {
        let f = File::open(path).map_err(io_at(path))?;
        let archive = ZipArchive::new(BufReader::new(f)).map_err(zip_err(path))?;
        Ok(ClassPathEntry {
            path: path.to_path_buf(),
            source: Source::Zip {
                archive: Mutex::new(archive),
                prefix,
            },
        })
    }

    fn open_image(path: &Path) -> Result<Self> {
        let image = JImage::open(path)?;
        let mut packages = HashMap::new();
        for e in image.entries()? {
            if e.module.is_empty()
                || e.module == "modules"
                || e.module == "packages"
                || !is_class_path(&e.path)
            {
                continue;
            }
            let pkg = e.path.rsplit_once('/').map_or("", |(p, _)| p);
            packages.entry(pkg.to_string()).or_insert(e.module);
        }
        Ok(ClassPathEntry {
            path: path.to_path_buf(),
            source: Source::Image { image, packages },
        })
    }

    /// The JDK's modules: `lib/modules` of `java_home` (or of the JDK found through
    /// `JAVA_HOME` or `java` on `PATH`), else each `jmods/*.jmod`.
    pub fn jdk(java_home: Option<&Path>) -> Result<Vec<Self>> {
        let home = match java_home {
            Some(h) => h.to_path_buf(),
            None => find_java_home()?,
        };
        let modules = home.join("lib").join("modules");
        if modules.is_file() {
            return Ok(vec![Self::open_image(&modules)?]);
        }
        let jmods = home.join("jmods");
        let mut files: Vec<PathBuf> = std::fs::read_dir(&jmods)
            .map_err(io_at(&jmods))?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "jmod"))
            .collect();
        files.sort();
        if files.is_empty() {
            return Err(Error::BadClassPathEntry {
                path: home,
                detail: "neither lib/modules nor jmods/*.jmod found: not a JDK home".into(),
            });
        }
        files
            .iter()
            .map(|p| Self::open_zip(p, "classes/"))
            .collect()
    }

    /// The entry's path.
    #[must_use]
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// `"directory"`, `"jar"`, `"jmod"` or `"jimage"`.
    #[must_use]
    pub fn kind(&self) -> &'static str {
        match &self.source {
            Source::Dir => "directory",
            Source::Zip { prefix: "", .. } => "jar",
            Source::Zip { .. } => "jmod",
            Source::Image { .. } => "jimage",
        }
    }

    /// Every file in the entry, as paths relative to the entry (for the JDK image:
    /// `module/path`), sorted.
    pub fn files(&self) -> Result<Vec<String>> {
        let mut out = match &self.source {
            Source::Dir => {
                let mut out = Vec::new();
                walk(&self.path, &self.path, &mut out)?;
                out
            }
            Source::Zip { archive, prefix } => {
                let a = archive.lock().unwrap_or_else(PoisonError::into_inner);
                let mut names = Vec::with_capacity(a.len());
                for n in a.file_names() {
                    let n = n.map_err(zip_err(&self.path))?;
                    if !n.ends_with('/') {
                        if let Some(rel) = n.strip_prefix(prefix) {
                            names.push(rel.to_string());
                        }
                    }
                }
                names
            }
            Source::Image { image, .. } => image
                .entries()?
                .into_iter()
                .filter(|e| !e.module.is_empty() && e.module != "modules" && e.module != "packages")
                .map(|e| format!("{}/{}", e.module, e.path))
                .collect(),
        };
        out.sort();
        Ok(out)
    }

    /// Internal names of the classes in this entry (no `module-info`, no multi-release
    /// variants), sorted.
    pub fn class_names(&self) -> Result<Vec<String>> {
        let image = matches!(self.source, Source::Image { .. });
        let mut names: Vec<String> = self
            .files()?
            .into_iter()
            .filter(|f| is_class_path(f) && !f.starts_with("META-INF/"))
            .map(|f| {
                let f = if image {
                    f.split_once('/').map_or(f.as_str(), |(_, p)| p).to_string()
                } else {
                    f
                };
                f.trim_end_matches(".class").to_string()
            })
            .filter(|n| !n.ends_with("module-info") && !n.ends_with("package-info"))
            .collect();
        names.sort();
        names.dedup();
        Ok(names)
    }

    /// Reads a file of the entry by its relative path (as listed by [`Self::files`]).
    pub fn read_file(&self, rel: &str) -> Result<Option<Vec<u8>>> {
        match &self.source {
            Source::Dir => {
                // A relative path inside the directory only (no `..`, no absolute path).
                if rel.starts_with('/') || rel.split('/').any(|c| c == ".." || c.is_empty()) {
                    return Ok(None);
                }
                let p = self.path.join(rel);
                match std::fs::read(&p) {
                    Ok(b) => Ok(Some(b)),
                    Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
                    Err(error) => Err(io_at(&p)(error)),
                }
            }
            Source::Zip { archive, prefix } => {
                let mut a = archive.lock().unwrap_or_else(PoisonError::into_inner);
                let name = format!("{prefix}{rel}");
                let mut f = match a.by_name(&name) {
                    Ok(f) => f,
                    Err(zip::result::ZipError::FileNotFound) => return Ok(None),
                    Err(e) => return Err(zip_err(&self.path)(e)),
                };
                let mut buf =
                    Vec::with_capacity(usize::try_from(f.size()).unwrap_or(0).min(1 << 26));
                f.read_to_end(&mut buf)
                    .map_err(io_at(&self.path.join(&name)))?;
                Ok(Some(buf))
            }
            Source::Image { image, .. } => {
                let Some((module, path)) = rel.split_once('/') else {
                    return Ok(None);
                };
                match image.find(module, path)? {
                    Some(e) => image.read(&e).map(Some),
                    None => Ok(None),
                }
            }
        }
    }

    /// Reads the class file of `internal_name`, if this entry has it.
    pub fn class_bytes(&self, internal_name: &str) -> Result<Option<Vec<u8>>> {
        let rel = format!("{internal_name}.class");
        match &self.source {
            Source::Image { packages, .. } => {
                let pkg = internal_name.rsplit_once('/').map_or("", |(p, _)| p);
                match packages.get(pkg) {
                    Some(module) => self.read_file(&format!("{module}/{rel}")),
                    None => Ok(None),
                }
            }
            _ => self.read_file(&rel),
        }
    }

    /// A human-readable location of a class in this entry, for messages.
    #[must_use]
    pub fn origin(&self, internal_name: &str) -> String {
        match &self.source {
            Source::Dir => self
                .path
                .join(format!("{internal_name}.class"))
                .display()
                .to_string(),
            _ => format!("{}!/{internal_name}.class", self.path.display()),
        }
    }
}

fn walk(root: &Path, dir: &Path, out: &mut Vec<String>) -> Result<()> {
    let rd = std::fs::read_dir(dir).map_err(io_at(dir))?;
    for e in rd {
        let e = e.map_err(io_at(dir))?;
        let p = e.path();
        let ft = e.file_type().map_err(io_at(&p))?;
        if ft.is_dir() {
            walk(root, &p, out)?;
        } else if ft.is_file() {
            if let Ok(rel) = p.strip_prefix(root) {
                let parts: Vec<String> = rel
                    .components()
                    .map(|c| c.as_os_str().to_string_lossy().into_owned())
                    .collect();
                out.push(parts.join("/"));
            }
        }
    }
    Ok(())
}

/// Finds the JDK home through `JAVA_HOME`, else through `java` on `PATH` (following links).
pub fn find_java_home() -> Result<PathBuf> {
    if let Some(h) = std::env::var_os("JAVA_HOME").filter(|h| !h.is_empty()) {
        return Ok(PathBuf::from(h));
    }
    let path = std::env::var_os("PATH").unwrap_or_default();
    for dir in std::env::split_paths(&path) {
        let java = dir.join("java");
        if java.is_file() {
            let real = std::fs::canonicalize(&java).map_err(io_at(&java))?;
            if let Some(home) = real.parent().and_then(Path::parent) {
                return Ok(home.to_path_buf());
            }
        }
    }
    Err(Error::BadClassPathEntry {
        path: PathBuf::from("jrt"),
        detail: "no JDK found: set JAVA_HOME or put `java` on PATH".into(),
    })
}

/// An ordered class path with a cache of parsed classes.
#[derive(Default)]
pub struct ClassPath {
    entries: Vec<ClassPathEntry>,
    classes: Mutex<HashMap<String, Arc<ClassFile>>>,
    headers: Mutex<HashMap<String, Arc<ClassHeader>>>,
}

impl std::fmt::Debug for ClassPath {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ClassPath")
            .field("entries", &self.entries)
            .finish_non_exhaustive()
    }
}

impl ClassPath {
    /// A class path over opened entries, searched in order.
    #[must_use]
    pub fn new(entries: Vec<ClassPathEntry>) -> Self {
        ClassPath {
            entries,
            ..Self::default()
        }
    }

    /// Parses a `:`-separated class path; `jrt` / `jrt:<java home>` adds the JDK.
    pub fn parse(spec: &str) -> Result<Self> {
        let mut entries = Vec::new();
        let parts: Vec<&str> = spec.split(':').collect();
        let mut i = 0;
        while i < parts.len() {
            let p = parts[i];
            i += 1;
            if p.is_empty() {
                continue;
            }
            if p == "jrt" {
                // `jrt` alone, or `jrt:<home>` (the home is the next part when it is absolute).
                if i < parts.len()
                    && parts[i].starts_with('/')
                    && Path::new(parts[i]).join("lib").is_dir()
                {
                    entries.extend(ClassPathEntry::jdk(Some(Path::new(parts[i])))?);
                    i += 1;
                } else {
                    entries.extend(ClassPathEntry::jdk(None)?);
                }
                continue;
            }
            entries.push(ClassPathEntry::open(Path::new(p))?);
        }
        if entries.is_empty() {
            return Err(Error::BadClassPathEntry {
                path: PathBuf::from(spec),
                detail: "class path is empty".into(),
            });
        }
        Ok(Self::new(entries))
    }

    /// This class path with a JDK's modules (those of `java_home`, else of the JDK found
    /// through `JAVA_HOME` or `java` on `PATH`) searched after its entries; what was read
    /// already stays cached.
    pub fn with_jdk(mut self, java_home: Option<&Path>) -> Result<Self> {
        self.entries.extend(ClassPathEntry::jdk(java_home)?);
        Ok(self)
    }

    /// The entries, in search order.
    #[must_use]
    pub fn entries(&self) -> &[ClassPathEntry] {
        &self.entries
    }

    /// Finds the class file of `internal_name`: the entry index and its bytes.
    pub fn find_bytes(&self, internal_name: &str) -> Result<Option<(usize, Vec<u8>)>> {
        for (i, e) in self.entries.iter().enumerate() {
            if let Some(b) = e.class_bytes(internal_name)? {
                return Ok(Some((i, b)));
            }
        }
        Ok(None)
    }

    /// Loads and caches a class by internal name.
    pub fn load(&self, internal_name: &str) -> Result<Arc<ClassFile>> {
        if let Some(c) = self
            .classes
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(internal_name)
        {
            return Ok(Arc::clone(c));
        }
        let (i, bytes) = self
            .find_bytes(internal_name)?
            .ok_or_else(|| Error::ClassNotFound(internal_name.replace('/', ".")))?;
        let class = Arc::new(ClassFile::parse_named(
            &bytes,
            &self.entries[i].origin(internal_name),
        )?);
        self.classes
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(internal_name.to_string(), Arc::clone(&class));
        Ok(class)
    }

    /// Loads and caches only the header of a class (name, super, interfaces, flags).
    pub fn header(&self, internal_name: &str) -> Result<Arc<ClassHeader>> {
        if let Some(h) = self
            .headers
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(internal_name)
        {
            return Ok(Arc::clone(h));
        }
        let (i, bytes) = self
            .find_bytes(internal_name)?
            .ok_or_else(|| Error::ClassNotFound(internal_name.replace('/', ".")))?;
        let h = Arc::new(
            ClassHeader::parse(&bytes)
                .map_err(|e| e.context(self.entries[i].origin(internal_name)))?,
        );
        self.headers
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(internal_name.to_string(), Arc::clone(&h));
        Ok(h)
    }

    /// The classes nested in `internal_name` — member, local and anonymous, at any depth —
    /// that are on the class path: every `InnerClasses` entry named `Outer$…`, followed
    /// transitively, sorted. The class itself is not listed.
    ///
    /// For `Splitter` this gives `Splitter$1`, `Splitter$1$1`, `Splitter$MapSplitter`, …: the
    /// anonymous strategies whose code a call of `Splitter.split` runs.
    pub fn nested_classes(&self, internal_name: &str) -> Result<Vec<String>> {
        let prefix = format!("{internal_name}$");
        let mut seen = BTreeSet::new();
        let mut found = BTreeSet::new();
        let mut stack = vec![internal_name.to_string()];
        while let Some(name) = stack.pop() {
            let class = match self.load(&name) {
                Ok(c) => c,
                Err(Error::ClassNotFound(_)) if name != internal_name => continue,
                Err(e) => return Err(e),
            };
            if name != internal_name {
                found.insert(name);
            }
            for inner in class.inner_class_names() {
                if inner.starts_with(&prefix) && seen.insert(inner.clone()) {
                    stack.push(inner);
                }
            }
        }
        Ok(found.into_iter().collect())
    }

    /// True when the class is on the class path.
    pub fn contains(&self, internal_name: &str) -> Result<bool> {
        Ok(self.find_bytes(internal_name)?.is_some())
    }

    /// Internal names of all classes on the class path, sorted and unique.
    pub fn class_names(&self) -> Result<Vec<String>> {
        let mut all = BTreeSet::new();
        for e in &self.entries {
            all.extend(e.class_names()?);
        }
        Ok(all.into_iter().collect())
    }
}
