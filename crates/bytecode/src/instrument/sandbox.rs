//! The sandbox transformation: code under test must not exit the JVM, change the file system,
//! start or kill processes, or use the network (DESIGN principle 4). No `SecurityManager` (it
//! is deprecated, and disabled since Java 24): every class loaded for execution is rewritten so
//! that each call site of such an API first calls a guard in the runtime class
//! `org.ferrosuite.rt.Sandbox`, which throws `org.ferrosuite.rt.SandboxError` (an `Error`
//! without a stack trace, with `getApi()` naming the API) before the API runs.
//!
//! # The guard
//!
//! A stack-neutral call inserted with the [`CodeEditor`] directly before the matching invoke
//! instruction (`invokestatic`, `invokevirtual`, `invokespecial` — `<init>` included —,
//! `invokeinterface`):
//!
//! | action | inserted code | stack |
//! |---|---|---|
//! | [`Action::Deny`] | `ldc "<api>"; invokestatic Sandbox.deny(Ljava/lang/String;)V` | +1 |
//! | [`Action::CheckMode`] | `dup; ldc "<api>"; invokestatic Sandbox.checkMode(Ljava/lang/String;Ljava/lang/String;)V` | +2 |
//! | [`Action::CheckOptions`] | `dup; ldc "<api>"; invokestatic Sandbox.checkOptions([Ljava/nio/file/OpenOption;Ljava/lang/String;)V` | +2 |
//!
//! `<api>` is the rule's owner and member in dotted form (`java.io.File.delete`,
//! `java.io.FileOutputStream.<init>`). `checkMode` allows exactly the mode `"r"` (the last
//! argument of `RandomAccessFile(String|File, String)`); `checkOptions` allows only `READ`,
//! `SPARSE`, `SYNC`, `DSYNC` and `LinkOption`s in the `OpenOption...` array that is the last
//! argument (an empty or null array is the APIs' read-only default). A check whose call site
//! does not have the expected last parameter type becomes a plain deny. Inserting before
//! `invokespecial X.<init>` (after `new X; dup; args`) is legal for the verifier: the guard
//! neither touches the uninitialised references nor changes the stack.
//!
//! Jumps that targeted the invoke land on the guard ([`Landing::OnInserted`]), so no path
//! reaches the API without passing the guard; exception ranges that cover the invoke cover the
//! guard too (ranges start and end at unit starts); `StackMapTable`, `LineNumberTable` and
//! `LocalVariable(Type)Table` are laid out again by the editor (frames only move, as the guard
//! is stack-neutral). `max_stack` grows by the most a guard of the method pushes (1 or 2).
//! Methods without a guarded call site are not touched, and a class without any is left
//! byte-identical. Runtime-invisible code attributes the editor cannot move (type annotations
//! on instructions) are dropped from rewritten methods, as for probes.
//!
//! # Matching
//!
//! A [`Rule`] names an owner (internal name), a member name and a [`DescriptorRule`]:
//! [`DescriptorRule::Any`], [`DescriptorRule::Exact`] or [`DescriptorRule::FirstParam`] (the
//! first parameter's type, e.g. `PrintStream(String fileName, …)` / `PrintStream(File, …)` as
//! opposed to `PrintStream(OutputStream)`). For each method reference, the first rule of the
//! list with the same owner and name whose descriptor rule matches decides; an
//! [`Action::Allow`] rule placed first carves out exceptions (`Socket()`, `Socket(Proxy)`,
//! `Files.copy(Path, OutputStream)`). With a [`Hierarchy`], a reference whose owner has no
//! deciding rule is also matched against the rules of its supertypes, nearest first
//! (`invokevirtual MyFile.delete()Z` where `MyFile extends java.io.File`, `SSLSocket.connect`);
//! constructors are never matched through the hierarchy (a subclass constructor calls the
//! denied super constructor itself, and that call is guarded when the subclass is sandboxed).
//! Supertypes the hierarchy's class path cannot resolve end the walk (the superclass chain is
//! followed as far as it resolves).
//!
//! # Method handles
//!
//! A `CONSTANT_MethodHandle` that names a guarded member (`System::exit` or `File::delete` as
//! a method reference, `FileOutputStream::new`, an `ldc` of a handle) would call the API
//! without passing any call site. Such handles are *redirected*: the class gets a private
//! static synthetic bridge `__ferrosuite_sandbox$<n>` that loads its parameters, runs the same
//! guard, performs the original call and returns its result, and the handle becomes
//! `REF_invokeStatic` of the bridge. The bridge's descriptor is the member's, with the receiver
//! first for `REF_invokeVirtual`/`REF_invokeInterface` (the current class for
//! `REF_invokeSpecial`), and returning the new object for `REF_newInvokeSpecial` (`new X; dup;
//! args; invokespecial X.<init>; areturn`), which is exactly the shape the lambda metafactory
//! and `MethodHandle.invoke` expect, so method references keep working and checks
//! (`RandomAccessFile::new` with mode `"r"`) still pass when harmless. Only interfaces of class
//! files older than Java 8 cannot take a private static bridge: such handles are left alone and
//! listed in [`SandboxReport::unguarded_handles`].
//!
//! # Idempotence
//!
//! A call site directly preceded by exactly the guard this module would insert (and that no
//! jump or handler enters between guard and invoke) counts as already guarded, and handles to
//! bridges do not match any rule, so sandboxing a sandboxed class changes nothing and returns a
//! report with [`SandboxReport::already_guarded`] set. Sandboxing works before or after probe
//! instrumentation ([`crate::instrument::probes`]) in either order.
//!
//! # The default rules ([`default_rules`])
//!
//! Exit: `java/lang/System.exit`, `java/lang/Runtime.exit`, `java/lang/Runtime.halt`.
//!
//! Files:
//! - `java/io/File.{delete, deleteOnExit, renameTo, createNewFile, mkdir, mkdirs,
//!   setLastModified, setReadOnly, setWritable, setReadable, setExecutable, createTempFile}`;
//! - `java/io/FileOutputStream.<init>`, `java/io/FileWriter.<init>`,
//!   `java/util/logging/FileHandler.<init>`, `javax/imageio/stream/FileImageOutputStream.<init>`
//!   (all constructors);
//! - `java/io/RandomAccessFile.<init>`: `(String, String)` and `(File, String)` check the mode,
//!   any other constructor is denied;
//! - `java/io/PrintStream.<init>`, `java/io/PrintWriter.<init>`, `java/util/Formatter.<init>`
//!   whose first parameter is a `String` (file name) or a `File`;
//! - `java/nio/file/Files.{write, writeString, delete, deleteIfExists, move, createFile,
//!   createDirectory, createDirectories, createTempFile, createTempDirectory, createLink,
//!   createSymbolicLink, newOutputStream, newBufferedWriter, setAttribute, setLastModifiedTime,
//!   setPosixFilePermissions, setOwner}`; `Files.copy` except `copy(Path, OutputStream)`;
//! - `Files.newByteChannel`, `java/nio/channels/FileChannel.open`,
//!   `java/nio/channels/AsynchronousFileChannel.open`: the `(Path, OpenOption...)` form checks
//!   the options, the forms taking a `Set` of options are denied; `Files.newInputStream(Path,
//!   OpenOption...)` checks the options (`DELETE_ON_CLOSE` deletes);
//! - `java/nio/file/spi/FileSystemProvider.{newOutputStream, newByteChannel, newFileChannel,
//!   newAsynchronousFileChannel, delete, deleteIfExists, copy, move, createDirectory,
//!   createSymbolicLink, createLink, setAttribute}`, its `newInputStream` checks the options;
//! - `java/nio/file/SecureDirectoryStream.{deleteFile, deleteDirectory, move, newByteChannel}`;
//! - attribute views: `BasicFileAttributeView.setTimes` (and on the `Posix` and `Dos` views),
//!   `FileOwnerAttributeView.setOwner` (and on the `Posix` and `Acl` views),
//!   `PosixFileAttributeView.{setPermissions, setGroup}`, `DosFileAttributeView.{setReadOnly,
//!   setHidden, setSystem, setArchive}`, `AclFileAttributeView.setAcl`,
//!   `UserDefinedFileAttributeView.{write, delete}` (all in `java/nio/file/attribute`);
//! - `java/util/zip/ZipFile.<init>(File, int[, Charset])` and `java/util/jar/JarFile.<init>(File,
//!   boolean, int[, Runtime.Version])` (the mode may be `OPEN_DELETE`);
//! - `javax/imageio/ImageIO.write(RenderedImage, String, File)`;
//! - `java/util/prefs/Preferences.{userRoot, systemRoot, userNodeForPackage,
//!   systemNodeForPackage}` (preferences persist outside the test);
//! - `com/sun/management/HotSpotDiagnosticMXBean.dumpHeap`.
//!
//! Processes: `java/lang/ProcessBuilder.{start, startPipeline}`, `java/lang/Runtime.exec`,
//! `java/lang/ProcessHandle.{destroy, destroyForcibly}`, `java/awt/Desktop.{open, edit, print,
//! browse, mail}` (they launch other programs).
//!
//! Network:
//! - `java/net/Socket.<init>` except `()` and `(Proxy)`, `Socket.{connect, bind}`;
//!   `javax/net/ssl/SSLSocket.<init>` except `()`;
//! - `java/net/ServerSocket.<init>` except `()`, `ServerSocket.bind`;
//!   `javax/net/ssl/SSLServerSocket.<init>` except `()`;
//! - `java/net/DatagramSocket.<init>` (all: even the no-argument constructor binds a UDP port),
//!   `DatagramSocket.{connect, send, bind}`; `java/net/MulticastSocket.<init>` (all);
//! - `java/nio/channels/SocketChannel.open(SocketAddress)`, `SocketChannel.{connect, bind}`;
//!   `java/nio/channels/ServerSocketChannel.bind`; `java/nio/channels/DatagramChannel.{connect,
//!   send, bind}`; `java/nio/channels/AsynchronousSocketChannel.{connect, bind}`;
//!   `java/nio/channels/AsynchronousServerSocketChannel.bind`;
//!   `java/nio/channels/NetworkChannel.bind` (the interface);
//! - `java/net/URL.{openConnection, openStream, getContent}`; `java/net/URLConnection.connect`,
//!   `java/net/HttpURLConnection.connect`, `javax/net/ssl/HttpsURLConnection.connect`;
//! - `java/net/http/HttpClient.{send, sendAsync}`;
//! - `javax/net/SocketFactory.createSocket` and `javax/net/ssl/SSLSocketFactory.createSocket`
//!   except `()`, `javax/net/ServerSocketFactory.createServerSocket` except `()`;
//! - `java/net/InetAddress.isReachable` (ICMP/TCP echo);
//! - RMI and JMX remoting: `java/rmi/Naming.{lookup, bind, rebind, unbind, list}`,
//!   `java/rmi/registry/LocateRegistry.createRegistry`,
//!   `java/rmi/server/UnicastRemoteObject.{<init>, exportObject}`,
//!   `javax/management/remote/JMXConnectorFactory.{connect, newJMXConnector}`,
//!   `javax/management/remote/JMXConnectorServerFactory.newJMXConnectorServer`.
//!
//! # Limitations
//!
//! Only bytecode that is sandboxed is guarded: reflection (`Method.invoke` of `System.exit`),
//! `MethodHandles.Lookup.findStatic` and other handles built at run time, native code (JNI,
//! `System.loadLibrary`), `sun.misc.Unsafe`, and JDK code acting on its own are not (for
//! example `ImageIO.createImageOutputStream(File)`, `LogManager` creating `FileHandler`s from a
//! configuration, JNDI lookups). DNS lookups (`InetAddress.getByName`) are allowed. A call
//! through a supertype the rules do not list (`Closeable.close`, `Object`) cannot be
//! recognised; calls through user subclasses are only recognised with a [`Hierarchy`], and then
//! also when the subclass overrides the method harmlessly (the match is by name and
//! descriptor). Code under test can catch `SandboxError` (it is an `Error`), but the refused
//! action has not happened. Statements the execution host runs itself (through JNI) are not
//! bytecode of the class under test and are not guarded by this transformation. The runtime
//! package `org/ferrosuite/rt` is never sandboxed (its probes write their data file).
//!
//! ```no_run
//! use ferrosuite_bytecode::ClassFile;
//! use ferrosuite_bytecode::instrument::sandbox::{SandboxRules, sandbox};
//! # fn main() -> ferrosuite_bytecode::Result<()> {
//! let mut class = ClassFile::parse(&std::fs::read("Hostile.class").unwrap())?;
//! let report = sandbox(&mut class, &SandboxRules::default(), None)?;
//! println!("{} call sites guarded", report.call_sites());
//! std::fs::write("out/Hostile.class", class.to_bytes()?).unwrap();
//! # Ok(()) }
//! ```

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

use serde::Serialize;

use crate::attributes::{Attribute, AttributeBody, Code};
use crate::classfile::{ClassFile, Member, access};
use crate::constant_pool::{Constant, ConstantPool, CpIndex};
use crate::descriptor::{FieldType, MethodDescriptor};
use crate::error::{Error, Result, ResultExt};
use crate::hierarchy::Hierarchy;
use crate::insn::{self, Insn};
use crate::instrument::editor::{CodeEditor, Landing};
use crate::instrument::{RUNTIME_PACKAGE, initial_frame};
use crate::opcodes as op;
use crate::stackmap::FrameState;

/// Internal name of the runtime class holding the guards.
pub const SANDBOX_CLASS: &str = "org/ferrosuite/rt/Sandbox";

/// Internal name of the error the guards throw.
pub const SANDBOX_ERROR_CLASS: &str = "org/ferrosuite/rt/SandboxError";

/// Name prefix of the bridge methods added for method handles.
pub const BRIDGE_PREFIX: &str = "__ferrosuite_sandbox$";

const STRING: &str = "Ljava/lang/String;";
const OPEN_OPTIONS: &str = "[Ljava/nio/file/OpenOption;";

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
    names: HashSet<String>,
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

/// What [`sandbox`] did to one class (or, merged, to many).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct SandboxReport {
    /// Call sites guarded, per API (`java.io.File.delete`).
    pub guarded: BTreeMap<String, usize>,
    /// Call sites found already guarded (the class was sandboxed before).
    pub already_guarded: usize,
    /// Methods whose code was rewritten.
    pub methods_rewritten: usize,
    /// Method handles redirected to a guarding bridge, per API.
    pub handles: BTreeMap<String, usize>,
    /// Bridge methods added.
    pub bridges: usize,
    /// Method handles naming a guarded member that could not be redirected (`#index kind
    /// owner.name descriptor: reason`).
    pub unguarded_handles: Vec<String>,
}

impl SandboxReport {
    /// Number of call sites guarded.
    #[must_use]
    pub fn call_sites(&self) -> usize {
        self.guarded.values().sum()
    }

    /// Number of method handles redirected.
    #[must_use]
    pub fn handles_redirected(&self) -> usize {
        self.handles.values().sum()
    }

    /// True when the class was changed.
    #[must_use]
    pub fn changed(&self) -> bool {
        self.methods_rewritten > 0 || self.bridges > 0 || self.handles_redirected() > 0
    }

    /// Adds another report's counts to this one.
    pub fn merge(&mut self, other: &SandboxReport) {
        for (k, v) in &other.guarded {
            *self.guarded.entry(k.clone()).or_default() += v;
        }
        for (k, v) in &other.handles {
            *self.handles.entry(k.clone()).or_default() += v;
        }
        self.already_guarded += other.already_guarded;
        self.methods_rewritten += other.methods_rewritten;
        self.bridges += other.bridges;
        self.unguarded_handles
            .extend(other.unguarded_handles.iter().cloned());
    }
}

/// A guarded member reference: the API name and the guard that fits its descriptor.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Guard {
    api: String,
    action: Action,
}

impl Guard {
    /// The guard for a call of `descriptor` under `rule`: a check whose argument is not the
    /// last parameter becomes a deny.
    fn new(rule: &Rule, descriptor: &str) -> Self {
        let last = MethodDescriptor::parse(descriptor)
            .ok()
            .and_then(|d| d.params.last().map(ToString::to_string));
        let action = match rule.action {
            Action::CheckMode if last.as_deref() == Some(STRING) => Action::CheckMode,
            Action::CheckOptions if last.as_deref() == Some(OPEN_OPTIONS) => Action::CheckOptions,
            _ => Action::Deny,
        };
        Guard {
            api: rule.api(),
            action,
        }
    }

    fn runtime_method(&self) -> (&'static str, &'static str) {
        match self.action {
            Action::CheckMode => ("checkMode", "(Ljava/lang/String;Ljava/lang/String;)V"),
            Action::CheckOptions => (
                "checkOptions",
                "([Ljava/nio/file/OpenOption;Ljava/lang/String;)V",
            ),
            Action::Deny | Action::Allow => ("deny", "(Ljava/lang/String;)V"),
        }
    }

    fn dups(&self) -> bool {
        matches!(self.action, Action::CheckMode | Action::CheckOptions)
    }

    /// Most stack the guard pushes above what it finds.
    fn extra_stack(&self) -> u16 {
        if self.dups() { 2 } else { 1 }
    }

    /// The guard's instructions, adding the constants it needs.
    fn code(&self, cp: &mut ConstantPool) -> Result<Vec<Insn<usize>>> {
        let s = cp.add_string(&self.api)?;
        let (name, desc) = self.runtime_method();
        let m = cp.add_method_ref(SANDBOX_CLASS, name, desc, false)?;
        let mut code = Vec::with_capacity(3);
        if self.dups() {
            code.push(Insn::Simple(op::DUP));
        }
        code.push(ldc(s));
        code.push(Insn::Cp {
            op: op::INVOKESTATIC,
            index: m,
        });
        Ok(code)
    }

    /// True when the `len` instructions before `insns[at]` are exactly this guard.
    fn precedes(&self, cp: &ConstantPool, insns: &[&Insn<usize>], at: usize) -> bool {
        let len = if self.dups() { 3 } else { 2 };
        if at < len {
            return false;
        }
        let g = &insns[at - len..at];
        if self.dups() && !matches!(g[0], Insn::Simple(op::DUP)) {
            return false;
        }
        let Insn::Ldc { op: o, index } = g[len - 2] else {
            return false;
        };
        if *o == op::LDC2_W || !is_string(cp, *index, &self.api) {
            return false;
        }
        let Insn::Cp {
            op: op::INVOKESTATIC,
            index,
        } = g[len - 1]
        else {
            return false;
        };
        let (name, desc) = self.runtime_method();
        cp.member_ref(*index)
            .is_ok_and(|m| m.class == SANDBOX_CLASS && m.name == name && m.descriptor == desc)
    }
}

fn is_string(cp: &ConstantPool, index: CpIndex, value: &str) -> bool {
    match cp.get(index) {
        Ok(Constant::String(u)) => cp.utf8(*u).is_ok_and(|s| s == value),
        _ => false,
    }
}

fn ldc(index: CpIndex) -> Insn<usize> {
    if index.0 <= 255 {
        Insn::Ldc { op: op::LDC, index }
    } else {
        Insn::Ldc {
            op: op::LDC_W,
            index,
        }
    }
}

/// Finds the rules deciding about method references, with supertypes through a hierarchy.
struct Matcher<'r, 'h> {
    rules: &'r SandboxRules,
    hierarchy: Option<&'h Hierarchy<'h>>,
    ancestors: HashMap<String, Vec<String>>,
}

impl Matcher<'_, '_> {
    fn rule(&mut self, owner: &str, name: &str, desc: &str) -> Option<Rule> {
        if !self.rules.names.contains(name) {
            return None;
        }
        if let Some(r) = self.rules.lookup(owner, name, desc) {
            return Some(r.clone());
        }
        let h = self.hierarchy?;
        // A constructor of a sandboxed subclass calls its super constructor itself (and that
        // call is guarded); a JDK subclass's constructor is not sandboxed, so its call is
        // matched against the rules of its supertypes.
        if owner.starts_with('[') || (name == "<init>" && !is_jdk(owner)) {
            return None;
        }
        let ancestors = self
            .ancestors
            .entry(owner.to_string())
            .or_insert_with(|| ancestors(h, owner));
        ancestors
            .iter()
            .find_map(|a| self.rules.lookup(a, name, desc))
            .cloned()
    }
}

/// True for classes of the JDK's own packages (never sandboxed).
fn is_jdk(class: &str) -> bool {
    ["java/", "javax/", "jdk/", "sun/", "com/sun/"]
        .iter()
        .any(|p| class.starts_with(p))
}

/// Supertypes of `class`, nearest first; as much of the superclass chain as resolves when the
/// full set does not.
fn ancestors(h: &Hierarchy<'_>, class: &str) -> Vec<String> {
    if let Ok(all) = h.supertypes(class) {
        return all;
    }
    let mut out: Vec<String> = Vec::new();
    let mut c = class.to_string();
    while let Ok(Some(s)) = h.superclass(&c) {
        if out.contains(&s) {
            break;
        }
        out.push(s.clone());
        c = s;
    }
    out
}

/// The guarded method references of a constant pool: entry → guard.
fn guarded_refs(cp: &ConstantPool, m: &mut Matcher<'_, '_>) -> Result<HashMap<CpIndex, Guard>> {
    let mut out = HashMap::new();
    for (i, c) in cp.entries().iter().enumerate() {
        if !matches!(
            c,
            Constant::Methodref { .. } | Constant::InterfaceMethodref { .. }
        ) {
            continue;
        }
        let index = CpIndex(i as u16);
        let r = cp.member_ref(index)?;
        if let Some(rule) = m.rule(&r.class, &r.name, &r.descriptor) {
            if rule.action != Action::Allow {
                out.insert(index, Guard::new(&rule, &r.descriptor));
            }
        }
    }
    Ok(out)
}

fn invoke_ref<T>(i: &Insn<T>) -> Option<CpIndex> {
    match i {
        Insn::Cp {
            op: op::INVOKEVIRTUAL | op::INVOKESPECIAL | op::INVOKESTATIC,
            index,
        }
        | Insn::InvokeInterface { index, .. } => Some(*index),
        _ => None,
    }
}

/// Sandboxes one class with `rules` (see the module documentation); `hierarchy` also matches
/// calls whose owner is a subtype of a rule's owner. On error the class is left unchanged; the
/// error names the class, and the method and offsets where it can.
pub fn sandbox(
    class: &mut ClassFile,
    rules: &SandboxRules,
    hierarchy: Option<&Hierarchy<'_>>,
) -> Result<SandboxReport> {
    let name = class.name()?.into_owned();
    sandbox_inner(class, rules, hierarchy, &name).context_with(|| name.replace('/', "."))
}

/// Like [`sandbox`] on class-file bytes: the rewritten bytes, or `None` when the class needs no
/// change (its bytes stay valid as they are).
pub fn sandbox_bytes(
    bytes: &[u8],
    rules: &SandboxRules,
    hierarchy: Option<&Hierarchy<'_>>,
) -> Result<(Option<Vec<u8>>, SandboxReport)> {
    let mut class = ClassFile::parse(bytes)?;
    let report = sandbox(&mut class, rules, hierarchy)?;
    if report.changed() {
        Ok((Some(class.to_bytes()?), report))
    } else {
        Ok((None, report))
    }
}

fn sandbox_inner(
    class: &mut ClassFile,
    rules: &SandboxRules,
    hierarchy: Option<&Hierarchy<'_>>,
    name: &str,
) -> Result<SandboxReport> {
    if name.starts_with(RUNTIME_PACKAGE)
        && name.as_bytes().get(RUNTIME_PACKAGE.len()) == Some(&b'/')
    {
        return Err(Error::Rewrite(
            "the ferrosuite runtime is not sandboxed".into(),
        ));
    }
    let mut matcher = Matcher {
        rules,
        hierarchy,
        ancestors: HashMap::new(),
    };
    let guards = guarded_refs(&class.constant_pool, &mut matcher)?;
    let mut report = SandboxReport::default();
    if guards.is_empty() {
        return Ok(report);
    }
    // Work on a copy: the class changes only when everything succeeded.
    let mut out = class.clone();
    let major = out.major_version;
    let is_interface = out.is(access::INTERFACE);
    let bridge_refs = redirect_handles(&mut out, name, &guards, is_interface, &mut report)?;
    let ClassFile {
        constant_pool: cp,
        methods,
        ..
    } = &mut out;
    for m in methods.iter_mut() {
        let Some(code) = m.code() else { continue };
        let mname = cp.utf8(m.name)?.into_owned();
        let mdesc = cp.utf8(m.descriptor)?.into_owned();
        let is_static = m.is(access::STATIC);
        let origin = || format!("method {mname}{mdesc}");
        let rewritten = guard_method(cp, code, &guards, &mut report)
            .and_then(|ed| match ed {
                Some((ed, first, count)) => {
                    let initial = if code.stack_map().is_some() {
                        initial_frame(cp, name, &mname, &mdesc, is_static)?
                    } else {
                        FrameState::default()
                    };
                    let needs_frames = major >= 51 || code.stack_map().is_some();
                    ed.finish(code, &initial, needs_frames)
                        .context_with(|| {
                            format!("guarding {count} call site(s), the first at offset {first}")
                        })
                        .map(Some)
                }
                None => Ok(None),
            })
            .context_with(origin)?;
        if let Some(new_code) = rewritten {
            if let Some(c) = m.code_mut() {
                *c = new_code;
            }
            report.methods_rewritten += 1;
        }
    }
    for bridge in bridge_refs {
        out.methods.push(bridge);
        report.bridges += 1;
    }
    if report.changed() {
        *class = out;
    }
    Ok(report)
}

/// Plans the guards of one method: the editor with the guards inserted, the offset of the
/// first guarded call and the number of calls guarded; `None` when every call is already
/// guarded (or there is none).
fn guard_method(
    cp: &mut ConstantPool,
    code: &Code,
    guards: &HashMap<CpIndex, Guard>,
    report: &mut SandboxReport,
) -> Result<Option<(CodeEditor, u32, usize)>> {
    // Cheap scan first: most methods of a class with a guarded reference do not call it.
    let decoded = insn::decode(&code.code)?;
    let calls_guarded =
        |(_, i): &(u32, Insn)| invoke_ref(i).is_some_and(|index| guards.contains_key(&index));
    if !decoded.iter().any(calls_guarded) {
        return Ok(None);
    }
    if code.attributes.iter().any(|a| {
        matches!(a.body, AttributeBody::Raw(_))
            && cp.utf8_bytes(a.name).is_ok_and(|n| n == b"StackMapTable")
    }) {
        return Err(Error::Rewrite("StackMapTable could not be read".into()));
    }
    let mut ed = CodeEditor::new(code)?;
    let n = ed.len();
    let insns: Vec<&Insn<usize>> = (0..n).filter_map(|k| ed.insn(k).map(|(_, i)| i)).collect();
    // Instructions that control can reach other than by falling through.
    let mut entered: BTreeSet<usize> = BTreeSet::new();
    for i in &insns {
        entered.extend(i.targets().into_iter().copied());
    }
    for h in &code.exception_table {
        if let Some(u) = ed.index_of(u32::from(h.handler_pc)) {
            entered.insert(u);
        }
    }
    let mut plan: Vec<(usize, Guard)> = Vec::new();
    for (k, i) in insns.iter().enumerate() {
        let Some(g) = invoke_ref(i).and_then(|index| guards.get(&index)) else {
            continue;
        };
        let len = if g.dups() { 3 } else { 2 };
        if g.precedes(cp, &insns, k) && !(k + 1 - len..=k).any(|u| entered.contains(&u)) {
            report.already_guarded += 1;
            continue;
        }
        plan.push((k, g.clone()));
    }
    let Some(first) = plan.first().and_then(|(k, _)| ed.insn(*k)).map(|(o, _)| o) else {
        return Ok(None);
    };
    let count = plan.len();
    for (k, g) in plan {
        let guard = g.code(cp)?;
        ed.insert_before(k, guard, Landing::OnInserted, g.extra_stack())?;
        *report.guarded.entry(g.api).or_default() += 1;
    }
    Ok(Some((ed, first, count)))
}

/// Redirects the method handles that name a guarded member to new bridge methods; returns the
/// bridges to add to the class.
fn redirect_handles(
    class: &mut ClassFile,
    this: &str,
    guards: &HashMap<CpIndex, Guard>,
    is_interface: bool,
    report: &mut SandboxReport,
) -> Result<Vec<Member>> {
    let handles: Vec<(CpIndex, u8, CpIndex)> = class
        .constant_pool
        .entries()
        .iter()
        .enumerate()
        .filter_map(|(i, c)| match c {
            Constant::MethodHandle { kind, reference } if guards.contains_key(reference) => {
                Some((CpIndex(i as u16), *kind, *reference))
            }
            _ => None,
        })
        .collect();
    if handles.is_empty() {
        return Ok(Vec::new());
    }
    let mut taken: HashSet<String> = HashSet::new();
    for m in &class.methods {
        taken.insert(class.member_name(m)?.into_owned());
    }
    let mut next = 0usize;
    let mut bridges: Vec<Member> = Vec::new();
    let mut made: HashMap<(u8, CpIndex), CpIndex> = HashMap::new();
    for (index, kind, reference) in handles {
        let Some(guard) = guards.get(&reference) else {
            continue;
        };
        let r = class.constant_pool.member_ref(reference)?;
        let describe = format!(
            "#{} kind {kind} {}.{}{}",
            index.0, r.class, r.name, r.descriptor
        );
        if is_interface && class.major_version < 52 {
            report.unguarded_handles.push(format!(
                "{describe}: an interface of a class file older than Java 8 cannot hold a \
                 private static bridge"
            ));
            continue;
        }
        if !(5..=9).contains(&kind) {
            report
                .unguarded_handles
                .push(format!("{describe}: not a method handle kind"));
            continue;
        }
        let bridge_ref = if let Some(b) = made.get(&(kind, reference)) {
            *b
        } else {
            let bname = loop {
                let candidate = format!("{BRIDGE_PREFIX}{next}");
                next += 1;
                if taken.insert(candidate.clone()) {
                    break candidate;
                }
            };
            let (bdesc, member) = bridge(
                &mut class.constant_pool,
                this,
                &bname,
                kind,
                reference,
                guard,
            )
            .context_with(|| format!("bridge for method handle {describe}"))?;
            bridges.push(member);
            let b = class
                .constant_pool
                .add_method_ref(this, &bname, &bdesc, is_interface)?;
            made.insert((kind, reference), b);
            b
        };
        class.constant_pool.replace(
            index,
            Constant::MethodHandle {
                kind: 6,
                reference: bridge_ref,
            },
        )?;
        *report.handles.entry(guard.api.clone()).or_default() += 1;
    }
    Ok(bridges)
}

/// Builds a bridge method for a method handle of `kind` naming `reference`: its descriptor and
/// the method.
fn bridge(
    cp: &mut ConstantPool,
    this: &str,
    name: &str,
    kind: u8,
    reference: CpIndex,
    guard: &Guard,
) -> Result<(String, Member)> {
    let r = cp.member_ref(reference)?;
    let owner = r.class.into_owned();
    let mdesc = r.descriptor.into_owned();
    let d = MethodDescriptor::parse(&mdesc)?;
    let receiver = |t: &str| {
        if t.starts_with('[') {
            FieldType::parse(t)
        } else {
            Ok(FieldType::Object(t.to_string()))
        }
    };
    // Kinds (JVMS 4.4.8): 5 invokeVirtual, 6 invokeStatic, 7 invokeSpecial,
    // 8 newInvokeSpecial, 9 invokeInterface.
    let (params, ret) = match kind {
        6 => (d.params.clone(), d.ret.clone()),
        5 | 9 => {
            let mut p = vec![receiver(&owner)?];
            p.extend(d.params.iter().cloned());
            (p, d.ret.clone())
        }
        7 => {
            let mut p = vec![FieldType::Object(this.to_string())];
            p.extend(d.params.iter().cloned());
            (p, d.ret.clone())
        }
        _ => (d.params.clone(), Some(FieldType::Object(owner.clone()))),
    };
    let bdesc = MethodDescriptor {
        params: params.clone(),
        ret: ret.clone(),
    }
    .to_string();
    let mut code: Vec<Insn<usize>> = Vec::new();
    let mut base: u16 = 0;
    if kind == 8 {
        let c = cp.add_class(&owner)?;
        code.push(Insn::Cp {
            op: op::NEW,
            index: c,
        });
        code.push(Insn::Simple(op::DUP));
        base = 2;
    }
    let mut slot: u16 = 0;
    for p in &params {
        code.push(load(p, slot));
        slot += p.slots();
    }
    let locals = slot;
    code.extend(guard.code(cp)?);
    code.push(match kind {
        6 => Insn::Cp {
            op: op::INVOKESTATIC,
            index: reference,
        },
        5 => Insn::Cp {
            op: op::INVOKEVIRTUAL,
            index: reference,
        },
        9 => Insn::InvokeInterface {
            index: reference,
            count: u8::try_from(locals)
                .map_err(|_| Error::Rewrite(format!("{owner}.{mdesc} has too many parameters")))?,
            zero: 0,
        },
        _ => Insn::Cp {
            op: op::INVOKESPECIAL,
            index: reference,
        },
    });
    code.push(Insn::Simple(match &ret {
        None => op::RETURN,
        Some(t) => return_op(t),
    }));
    let max_stack =
        (base + locals + guard.extra_stack()).max(ret.as_ref().map_or(0, FieldType::slots));
    let mut bytes = Vec::new();
    for i in &code {
        let at = bytes.len() as u32;
        insn::encode_at(&mut bytes, i, at, |_| {
            Err(Error::Rewrite("unexpected branch in a bridge".into()))
        })?;
    }
    let body = Code {
        max_stack,
        max_locals: locals,
        code: bytes,
        exception_table: Vec::new(),
        attributes: Vec::new(),
    };
    let member = Member {
        access_flags: access::PRIVATE | access::STATIC | access::SYNTHETIC,
        name: cp.add_utf8(name)?,
        descriptor: cp.add_utf8(&bdesc)?,
        attributes: vec![Attribute {
            name: cp.add_utf8("Code")?,
            body: AttributeBody::Code(body),
        }],
    };
    Ok((bdesc, member))
}

/// The load instruction of a value of type `t` from local `slot`.
fn load(t: &FieldType, slot: u16) -> Insn<usize> {
    let base = match t {
        FieldType::Long => op::LLOAD,
        FieldType::Float => op::FLOAD,
        FieldType::Double => op::DLOAD,
        FieldType::Object(_) | FieldType::Array(_) => op::ALOAD,
        _ => op::ILOAD,
    };
    if slot <= 3 {
        // iload_0 = 0x1a; each type's four short forms follow in iload, lload, … order.
        Insn::Simple(0x1a + (base - op::ILOAD) * 4 + slot as u8)
    } else {
        Insn::Local {
            op: base,
            index: slot,
            wide: slot > 255,
        }
    }
}

/// The return instruction for a value of type `t`.
fn return_op(t: &FieldType) -> u8 {
    // ireturn, lreturn, freturn, dreturn, areturn are consecutive.
    op::IRETURN
        + match t {
            FieldType::Long => 1,
            FieldType::Float => 2,
            FieldType::Double => 3,
            FieldType::Object(_) | FieldType::Array(_) => 4,
            _ => 0,
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

    #[test]
    fn checks_on_the_wrong_shape_become_denials() {
        let rule = Rule::new("x/Y", "open", DescriptorRule::Any, Action::CheckOptions);
        assert_eq!(
            Guard::new(&rule, "(Ljava/nio/file/Path;)V").action,
            Action::Deny
        );
        assert_eq!(
            Guard::new(&rule, "(Ljava/nio/file/Path;[Ljava/nio/file/OpenOption;)V").action,
            Action::CheckOptions
        );
        let mode = Rule::new("x/Y", "<init>", DescriptorRule::Any, Action::CheckMode);
        assert_eq!(
            Guard::new(&mode, "(Ljava/lang/String;J)V").action,
            Action::Deny
        );
        assert_eq!(Guard::new(&mode, "(Ljava/lang/String;)V").api, "x.Y.<init>");
    }

    #[test]
    fn loads_and_returns() {
        assert_eq!(load(&FieldType::Int, 0), Insn::Simple(0x1a));
        assert_eq!(load(&FieldType::Long, 1), Insn::Simple(0x1f));
        assert_eq!(load(&FieldType::Double, 3), Insn::Simple(0x29));
        assert_eq!(load(&FieldType::Object("a".into()), 2), Insn::Simple(0x2c));
        assert_eq!(
            load(&FieldType::Float, 4),
            Insn::Local {
                op: op::FLOAD,
                index: 4,
                wide: false
            }
        );
        assert_eq!(return_op(&FieldType::Boolean), 0xac);
        assert_eq!(return_op(&FieldType::Array(Box::new(FieldType::Int))), 0xb0);
        assert_eq!(return_op(&FieldType::Double), 0xaf);
    }
}
