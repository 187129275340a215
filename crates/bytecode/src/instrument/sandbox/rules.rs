//! The sandbox rules: which members are guarded and how, the default list, and their index.

use std::collections::{HashMap, HashSet};

use serde::Serialize;

use super::{OPEN_OPTIONS, STRING};

/// Which descriptors of a member a [`Rule`] covers.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum DescriptorRule {
    /// Every descriptor.
    Any,
    /// Exactly this method descriptor.
    Exact(String),
    /// Descriptors whose first parameter is this field type (`Ljava/lang/String;`).
    FirstParam(String),
}

impl DescriptorRule {
    /// True when a method descriptor is covered.
    #[must_use]
    pub fn matches(&self, descriptor: &str) -> bool {
        match self {
            DescriptorRule::Any => true,
            DescriptorRule::Exact(d) => d == descriptor,
            DescriptorRule::FirstParam(t) => descriptor
                .strip_prefix('(')
                .is_some_and(|rest| rest.starts_with(t.as_str())),
        }
    }
}

/// What a [`Rule`] does with the call sites it covers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub enum Action {
    /// Always throw (`Sandbox.deny`).
    Deny,
    /// Throw unless the last argument, a `RandomAccessFile` mode, is `"r"` (`Sandbox.checkMode`).
    CheckMode,
    /// Throw if the last argument, an `OpenOption[]`, asks to write, create, truncate or delete
    /// (`Sandbox.checkOptions`).
    CheckOptions,
    /// Leave the call alone (an exception to a later, broader rule).
    Allow,
}

/// One rule: an owner, a member name, the descriptors covered, and the action.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Rule {
    /// Internal name of the owner (`java/io/File`).
    pub owner: String,
    /// Member name (`delete`, `<init>`).
    pub name: String,
    /// Descriptors covered.
    pub descriptor: DescriptorRule,
    /// What to do.
    pub action: Action,
}

impl Rule {
    /// A rule.
    #[must_use]
    pub fn new(owner: &str, name: &str, descriptor: DescriptorRule, action: Action) -> Self {
        Rule {
            owner: owner.into(),
            name: name.into(),
            descriptor,
            action,
        }
    }

    /// Denies every descriptor of `owner.name`.
    #[must_use]
    pub fn deny(owner: &str, name: &str) -> Self {
        Self::new(owner, name, DescriptorRule::Any, Action::Deny)
    }

    /// The API name the guard reports: owner and member, dotted (`java.io.File.delete`).
    #[must_use]
    pub fn api(&self) -> String {
        format!("{}.{}", self.owner.replace('/', "."), self.name)
    }
}

/// The rules of [`SandboxRules::default`]; see the module documentation.
#[must_use]
pub fn default_rules() -> Vec<Rule> {
    use Action::{Allow, CheckMode, CheckOptions, Deny};
    use DescriptorRule::{Any, Exact, FirstParam};
    let mut r = Vec::new();
    let mut deny_all = |owner: &str, names: &[&str]| {
        for n in names {
            r.push(Rule::deny(owner, n));
        }
    };
    // Exit.
    deny_all("java/lang/System", &["exit"]);
    deny_all("java/lang/Runtime", &["exit", "halt"]);
    // Files.
    deny_all(
        "java/io/File",
        &[
            "delete",
            "deleteOnExit",
            "renameTo",
            "createNewFile",
            "mkdir",
            "mkdirs",
            "setLastModified",
            "setReadOnly",
            "setWritable",
            "setReadable",
            "setExecutable",
            "createTempFile",
        ],
    );
    deny_all("java/io/FileOutputStream", &["<init>"]);
    deny_all("java/io/FileWriter", &["<init>"]);
    deny_all("java/util/logging/FileHandler", &["<init>"]);
    deny_all(
        "java/nio/file/Files",
        &[
            "write",
            "writeString",
            "delete",
            "deleteIfExists",
            "move",
            "createFile",
            "createDirectory",
            "createDirectories",
            "createTempFile",
            "createTempDirectory",
            "createLink",
            "createSymbolicLink",
            "newOutputStream",
            "newBufferedWriter",
            "setAttribute",
            "setLastModifiedTime",
            "setPosixFilePermissions",
            "setOwner",
        ],
    );
    deny_all(
        "java/nio/file/spi/FileSystemProvider",
        &[
            "newOutputStream",
            "newByteChannel",
            "newFileChannel",
            "newAsynchronousFileChannel",
            "delete",
            "deleteIfExists",
            "copy",
            "move",
            "createDirectory",
            "createSymbolicLink",
            "createLink",
            "setAttribute",
        ],
    );
    // Processes.
    deny_all("java/lang/ProcessBuilder", &["start", "startPipeline"]);
    deny_all("java/lang/Runtime", &["exec"]);
    deny_all("java/lang/ProcessHandle", &["destroy", "destroyForcibly"]);
    deny_all(
        "java/awt/Desktop",
        &["open", "edit", "print", "browse", "mail"],
    );
    // Network.
    deny_all("java/net/Socket", &["connect", "bind"]);
    deny_all("java/net/ServerSocket", &["bind"]);
    deny_all(
        "java/net/DatagramSocket",
        &["<init>", "connect", "send", "bind"],
    );
    deny_all("java/net/MulticastSocket", &["<init>"]);
    deny_all("java/nio/channels/SocketChannel", &["connect", "bind"]);
    deny_all("java/nio/channels/ServerSocketChannel", &["bind"]);
    deny_all(
        "java/nio/channels/DatagramChannel",
        &["connect", "send", "bind"],
    );
    deny_all(
        "java/nio/channels/AsynchronousSocketChannel",
        &["connect", "bind"],
    );
    deny_all(
        "java/nio/channels/AsynchronousServerSocketChannel",
        &["bind"],
    );
    deny_all("java/nio/channels/NetworkChannel", &["bind"]);
    deny_all(
        "java/net/URL",
        &["openConnection", "openStream", "getContent"],
    );
    deny_all("java/net/URLConnection", &["connect"]);
    deny_all("java/net/HttpURLConnection", &["connect"]);
    deny_all("javax/net/ssl/HttpsURLConnection", &["connect"]);
    deny_all("java/net/http/HttpClient", &["send", "sendAsync"]);
    deny_all("java/net/InetAddress", &["isReachable"]);
    deny_all(
        "java/rmi/Naming",
        &["lookup", "bind", "rebind", "unbind", "list"],
    );
    deny_all("java/rmi/registry/LocateRegistry", &["createRegistry"]);
    deny_all(
        "java/rmi/server/UnicastRemoteObject",
        &["<init>", "exportObject"],
    );
    deny_all(
        "javax/management/remote/JMXConnectorFactory",
        &["connect", "newJMXConnector"],
    );
    deny_all(
        "javax/management/remote/JMXConnectorServerFactory",
        &["newJMXConnectorServer"],
    );
    // Other ways to change files.
    deny_all(
        "java/nio/file/SecureDirectoryStream",
        &["deleteFile", "deleteDirectory", "move", "newByteChannel"],
    );
    for owner in [
        "java/nio/file/attribute/BasicFileAttributeView",
        "java/nio/file/attribute/PosixFileAttributeView",
        "java/nio/file/attribute/DosFileAttributeView",
    ] {
        deny_all(owner, &["setTimes"]);
    }
    for owner in [
        "java/nio/file/attribute/FileOwnerAttributeView",
        "java/nio/file/attribute/PosixFileAttributeView",
        "java/nio/file/attribute/AclFileAttributeView",
    ] {
        deny_all(owner, &["setOwner"]);
    }
    deny_all(
        "java/nio/file/attribute/PosixFileAttributeView",
        &["setPermissions", "setGroup"],
    );
    deny_all(
        "java/nio/file/attribute/DosFileAttributeView",
        &["setReadOnly", "setHidden", "setSystem", "setArchive"],
    );
    deny_all("java/nio/file/attribute/AclFileAttributeView", &["setAcl"]);
    deny_all(
        "java/nio/file/attribute/UserDefinedFileAttributeView",
        &["write", "delete"],
    );
    deny_all("javax/imageio/stream/FileImageOutputStream", &["<init>"]);
    deny_all(
        "java/util/prefs/Preferences",
        &[
            "userRoot",
            "systemRoot",
            "userNodeForPackage",
            "systemNodeForPackage",
        ],
    );
    deny_all("com/sun/management/HotSpotDiagnosticMXBean", &["dumpHeap"]);

    let exact = |d: &str| Exact(d.to_string());
    let first = |t: &str| FirstParam(t.to_string());
    // Rules with descriptors; within one owner and name, the first match decides.
    let mut add = |owner: &str, name: &str, d: DescriptorRule, a: Action| {
        r.push(Rule::new(owner, name, d, a));
    };
    add(
        "java/io/RandomAccessFile",
        "<init>",
        exact("(Ljava/lang/String;Ljava/lang/String;)V"),
        CheckMode,
    );
    add(
        "java/io/RandomAccessFile",
        "<init>",
        exact("(Ljava/io/File;Ljava/lang/String;)V"),
        CheckMode,
    );
    add("java/io/RandomAccessFile", "<init>", Any, Deny);
    for owner in [
        "java/io/PrintStream",
        "java/io/PrintWriter",
        "java/util/Formatter",
    ] {
        add(owner, "<init>", first(STRING), Deny);
        add(owner, "<init>", first("Ljava/io/File;"), Deny);
    }
    add(
        "java/nio/file/Files",
        "copy",
        exact("(Ljava/nio/file/Path;Ljava/io/OutputStream;)J"),
        Allow,
    );
    add("java/nio/file/Files", "copy", Any, Deny);
    for (owner, name, ret) in [
        (
            "java/nio/file/Files",
            "newByteChannel",
            "Ljava/nio/channels/SeekableByteChannel;",
        ),
        (
            "java/nio/channels/FileChannel",
            "open",
            "Ljava/nio/channels/FileChannel;",
        ),
        (
            "java/nio/channels/AsynchronousFileChannel",
            "open",
            "Ljava/nio/channels/AsynchronousFileChannel;",
        ),
    ] {
        add(
            owner,
            name,
            exact(&format!("(Ljava/nio/file/Path;{OPEN_OPTIONS}){ret}")),
            CheckOptions,
        );
        add(owner, name, Any, Deny);
    }
    add("java/net/Socket", "<init>", exact("()V"), Allow);
    add(
        "java/net/Socket",
        "<init>",
        exact("(Ljava/net/Proxy;)V"),
        Allow,
    );
    add("java/net/Socket", "<init>", Any, Deny);
    add("java/net/ServerSocket", "<init>", exact("()V"), Allow);
    add("java/net/ServerSocket", "<init>", Any, Deny);
    for owner in ["javax/net/ssl/SSLSocket", "javax/net/ssl/SSLServerSocket"] {
        add(owner, "<init>", exact("()V"), Allow);
        add(owner, "<init>", Any, Deny);
    }
    // Input streams can still delete (DELETE_ON_CLOSE) or ask to write.
    for owner in [
        "java/nio/file/Files",
        "java/nio/file/spi/FileSystemProvider",
    ] {
        add(
            owner,
            "newInputStream",
            exact(&format!(
                "(Ljava/nio/file/Path;{OPEN_OPTIONS})Ljava/io/InputStream;"
            )),
            CheckOptions,
        );
    }
    // ZipFile/JarFile with an explicit mode may OPEN_DELETE the file.
    for d in [
        "(Ljava/io/File;I)V",
        "(Ljava/io/File;ILjava/nio/charset/Charset;)V",
    ] {
        add("java/util/zip/ZipFile", "<init>", exact(d), Deny);
    }
    for d in [
        "(Ljava/io/File;ZI)V",
        "(Ljava/io/File;ZILjava/lang/Runtime$Version;)V",
    ] {
        add("java/util/jar/JarFile", "<init>", exact(d), Deny);
    }
    add(
        "javax/imageio/ImageIO",
        "write",
        exact("(Ljava/awt/image/RenderedImage;Ljava/lang/String;Ljava/io/File;)Z"),
        Deny,
    );
    add(
        "java/nio/channels/SocketChannel",
        "open",
        exact("(Ljava/net/SocketAddress;)Ljava/nio/channels/SocketChannel;"),
        Deny,
    );
    for owner in ["javax/net/SocketFactory", "javax/net/ssl/SSLSocketFactory"] {
        add(owner, "createSocket", exact("()Ljava/net/Socket;"), Allow);
        add(owner, "createSocket", Any, Deny);
    }
    add(
        "javax/net/ServerSocketFactory",
        "createServerSocket",
        exact("()Ljava/net/ServerSocket;"),
        Allow,
    );
    add(
        "javax/net/ServerSocketFactory",
        "createServerSocket",
        Any,
        Deny,
    );
    r
}

/// A set of rules, indexed by owner and name.
#[derive(Debug, Clone)]
pub struct SandboxRules {
    rules: Vec<Rule>,
    by_member: HashMap<(String, String), Vec<usize>>,
    pub(super) names: HashSet<String>,
}

impl Default for SandboxRules {
    /// The [`default_rules`].
    fn default() -> Self {
        Self::new(default_rules())
    }
}

impl SandboxRules {
    /// Rules in priority order (for one owner and name, the first matching rule decides).
    #[must_use]
    pub fn new(rules: Vec<Rule>) -> Self {
        let mut by_member: HashMap<(String, String), Vec<usize>> = HashMap::new();
        let mut names = HashSet::new();
        for (i, r) in rules.iter().enumerate() {
            by_member
                .entry((r.owner.clone(), r.name.clone()))
                .or_default()
                .push(i);
            names.insert(r.name.clone());
        }
        SandboxRules {
            rules,
            by_member,
            names,
        }
    }

    /// The rules, in priority order.
    #[must_use]
    pub fn rules(&self) -> &[Rule] {
        &self.rules
    }

    /// The rule deciding about `owner.name descriptor` (without looking at supertypes), if any.
    #[must_use]
    pub fn lookup(&self, owner: &str, name: &str, descriptor: &str) -> Option<&Rule> {
        self.by_member
            .get(&(owner.to_string(), name.to_string()))?
            .iter()
            .map(|&i| &self.rules[i])
            .find(|r| r.descriptor.matches(descriptor))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn descriptor_rules_and_priorities() {
        let rules = SandboxRules::default();
        let socket = |d: &str| {
            rules
                .lookup("java/net/Socket", "<init>", d)
                .map(|r| r.action)
        };
        assert_eq!(socket("()V"), Some(Action::Allow));
        assert_eq!(socket("(Ljava/net/Proxy;)V"), Some(Action::Allow));
        assert_eq!(socket("(Ljava/lang/String;I)V"), Some(Action::Deny));
        let ps = |d: &str| {
            rules
                .lookup("java/io/PrintStream", "<init>", d)
                .map(|r| r.action)
        };
        assert_eq!(ps("(Ljava/lang/String;)V"), Some(Action::Deny));
        assert_eq!(
            ps("(Ljava/io/File;Ljava/lang/String;)V"),
            Some(Action::Deny)
        );
        assert_eq!(ps("(Ljava/io/OutputStream;)V"), None);
        let copy = |d: &str| {
            rules
                .lookup("java/nio/file/Files", "copy", d)
                .map(|r| r.action)
        };
        assert_eq!(
            copy("(Ljava/nio/file/Path;Ljava/io/OutputStream;)J"),
            Some(Action::Allow)
        );
        assert_eq!(
            copy("(Ljava/io/InputStream;Ljava/nio/file/Path;[Ljava/nio/file/CopyOption;)J"),
            Some(Action::Deny)
        );
        let raf = rules
            .lookup(
                "java/io/RandomAccessFile",
                "<init>",
                "(Ljava/io/File;Ljava/lang/String;)V",
            )
            .map(|r| r.action);
        assert_eq!(raf, Some(Action::CheckMode));
        assert!(rules.lookup("java/io/File", "exists", "()Z").is_none());
        let action = |o: &str, n: &str, d: &str| rules.lookup(o, n, d).map(|r| r.action);
        assert_eq!(
            action("javax/net/ssl/SSLSocket", "<init>", "()V"),
            Some(Action::Allow)
        );
        assert_eq!(
            action(
                "javax/net/ssl/SSLSocket",
                "<init>",
                "(Ljava/lang/String;I)V"
            ),
            Some(Action::Deny)
        );
        assert_eq!(
            action(
                "java/nio/file/Files",
                "newInputStream",
                "(Ljava/nio/file/Path;[Ljava/nio/file/OpenOption;)Ljava/io/InputStream;"
            ),
            Some(Action::CheckOptions)
        );
        assert_eq!(
            action("java/util/zip/ZipFile", "<init>", "(Ljava/io/File;I)V"),
            Some(Action::Deny)
        );
        assert_eq!(
            action("java/util/zip/ZipFile", "<init>", "(Ljava/io/File;)V"),
            None
        );
        assert_eq!(
            action("java/lang/ProcessHandle", "destroy", "()Z"),
            Some(Action::Deny)
        );
        // Every owner/name/descriptor triple is decided by one rule: no rule is shadowed.
        for (i, r) in rules.rules().iter().enumerate() {
            if let DescriptorRule::Exact(d) = &r.descriptor {
                assert_eq!(rules.lookup(&r.owner, &r.name, d), Some(&rules.rules()[i]));
            }
        }
    }
}
