//! The sandbox transformation: code under test must not exit the JVM, change the file system,
//! start or kill processes, or use the network (nothing it runs may touch the user's machine).
//! No `SecurityManager` (it is deprecated, and disabled since Java 24): every class loaded for
//! execution is rewritten so that each call site of such an API first calls a guard in the
//! runtime class `org.ferrosuite.rt.Sandbox`, which throws `org.ferrosuite.rt.SandboxError` (an
//! `Error` without a stack trace, with `getApi()` naming the API) before the API runs.
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

mod guard;
mod handles;
mod rules;

use std::collections::{BTreeMap, BTreeSet, HashMap};

use serde::Serialize;

use crate::attributes::{AttributeBody, Code};
use crate::classfile::{ClassFile, access};
use crate::constant_pool::{Constant, ConstantPool, CpIndex};
use crate::error::{Error, Result, ResultExt};
use crate::hierarchy::Hierarchy;
use crate::insn::{self, Insn};
use crate::instrument::editor::{CodeEditor, Landing};
use crate::instrument::{RUNTIME_PACKAGE, initial_frame};
use crate::opcodes as op;
use crate::stackmap::FrameState;

pub use rules::{Action, DescriptorRule, Rule, SandboxRules, default_rules};

use guard::Guard;
use handles::redirect_handles;

/// Internal name of the runtime class holding the guards.
pub const SANDBOX_CLASS: &str = "org/ferrosuite/rt/Sandbox";

/// Internal name of the error the guards throw.
pub const SANDBOX_ERROR_CLASS: &str = "org/ferrosuite/rt/SandboxError";

/// Name prefix of the bridge methods added for method handles.
pub const BRIDGE_PREFIX: &str = "__ferrosuite_sandbox$";

const STRING: &str = "Ljava/lang/String;";
const OPEN_OPTIONS: &str = "[Ljava/nio/file/OpenOption;";

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

/// True for classes of the JDK's own packages (never sandboxed, never rewritten).
pub(crate) fn is_jdk(class: &str) -> bool {
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
