//! The sandbox transformation (`instrument::sandbox`): the hostile fixtures
//! (`fixtures/java/hostile`, `fixtures/java17/hostile`) sandboxed and run under `-Xverify:all`
//! must be refused every exit, file change, process and connection, while their harmless
//! methods keep working; classes without matches stay byte-identical; sandboxing is idempotent;
//! the Debian subject jars still verify.

use std::collections::BTreeMap;
use std::io::ErrorKind;
use std::net::{TcpListener, UdpSocket};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::OnceLock;
use std::time::Instant;

use ferrosuite_bytecode::ClassFile;
use ferrosuite_bytecode::classfile::access;
use ferrosuite_bytecode::classpath::{ClassPath, find_java_home};
use ferrosuite_bytecode::constant_pool::Constant;
use ferrosuite_bytecode::hierarchy::Hierarchy;
use ferrosuite_bytecode::insn::{self, Insn};
use ferrosuite_bytecode::instrument::probes::{Instrumenter, ProbeConfig};
use ferrosuite_bytecode::instrument::sandbox::{
    Action, BRIDGE_PREFIX, Rule, SANDBOX_CLASS, SandboxReport, SandboxRules, sandbox, sandbox_bytes,
};
use ferrosuite_bytecode::opcodes as op;
use ferrosuite_runtime as runtime;

use crate::java;

const CONTENT: &str = "hello, sandbox";

/// The sandbox fixtures of the `hostile` package (Java 8 sources; `Modern` needs Java 17).
const JAVA8_FIXTURES: [&str; 6] = [
    "Exits",
    "FileOps",
    "MyFile",
    "SafeFile",
    "Processes",
    "Network",
];

/// The driver (Java, compiled at test time): runs hostile methods by reflection and reports
/// what happened; see its class comment.
const DRIVER: &str = r#"import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;

/**
 * Runs hostile fixture methods one by one and reports what happened, for the sandbox tests.
 *
 * <p>Each argument is {@code label|package.Class.method|arg|arg...}; arguments are converted to
 * the method's parameter types (String, int, long, boolean). Prints one line per call:
 * {@code label DENIED <api>} when it threw {@code org.ferrosuite.rt.SandboxError},
 * {@code label OK <result>} when it returned, {@code label THREW <exception>} otherwise; then
 * {@code done}. Uses reflection only, so it runs against sandboxed and original classes alike.
 */
public final class HostileDriver {
    public static void main(String[] args) throws Exception {
        for (String spec : args) {
            String[] parts = spec.split("\\|", -1);
            String label = parts[0];
            String target = parts[1];
            int dot = target.lastIndexOf('.');
            Class<?> c = Class.forName(target.substring(0, dot));
            String name = target.substring(dot + 1);
            int n = parts.length - 2;
            Method method = null;
            for (Method m : c.getMethods()) {
                if (m.getName().equals(name) && m.getParameterTypes().length == n) {
                    method = m;
                }
            }
            if (method == null) {
                System.out.println(label + " MISSING " + target + "/" + n);
                continue;
            }
            Class<?>[] types = method.getParameterTypes();
            Object[] values = new Object[n];
            for (int i = 0; i < n; i++) {
                String v = parts[i + 2];
                if (types[i] == int.class) {
                    values[i] = Integer.parseInt(v);
                } else if (types[i] == long.class) {
                    values[i] = Long.parseLong(v);
                } else if (types[i] == boolean.class) {
                    values[i] = Boolean.parseBoolean(v);
                } else {
                    values[i] = v;
                }
            }
            try {
                Object result = method.invoke(null, values);
                System.out.println(label + " OK " + result);
            } catch (InvocationTargetException e) {
                Throwable t = e.getCause();
                if (t.getClass().getName().equals("org.ferrosuite.rt.SandboxError")) {
                    Object api = t.getClass().getMethod("getApi").invoke(t);
                    System.out.println(label + " DENIED " + api + " | " + t.getMessage());
                } else {
                    System.out.println(label + " THREW " + t);
                }
            }
            System.out.flush();
        }
        System.out.println("done");
        System.exit(0);
    }
}
"#;

/// Compiles the sandbox fixtures with `javac` from `jdk_bin` for `release`; `modern` adds
/// `Modern` (Java 17).
fn compile_hostile(jdk_bin: &Path, release: &str, modern: bool, out: &Path) {
    let mut args: Vec<String> = ["-nowarn", "-Xlint:none", "--release", release, "-g", "-d"]
        .iter()
        .map(ToString::to_string)
        .collect();
    args.push(out.display().to_string());
    let src = java::repo().join("fixtures");
    for name in JAVA8_FIXTURES {
        args.push(
            src.join(format!("java/hostile/{name}.java"))
                .display()
                .to_string(),
        );
    }
    if modern {
        args.push(src.join("java17/hostile/Modern.java").display().to_string());
    }
    let o = Command::new(jdk_bin.join("javac"))
        .args(&args)
        .output()
        .unwrap();
    assert!(
        o.status.success(),
        "javac {release}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
}

fn jdk_bin() -> PathBuf {
    find_java_home().unwrap().join("bin")
}

/// The hostile fixtures: (Java 8 class files, Java 17 class files with `Modern`), and the
/// driver, compiled once.
fn hostile() -> &'static (PathBuf, PathBuf, PathBuf) {
    static H: OnceLock<(PathBuf, PathBuf, PathBuf)> = OnceLock::new();
    H.get_or_init(|| {
        let root = java::tmp("hostile-classes");
        let (j8, j17, driver) = (root.join("java8"), root.join("java17"), root.join("driver"));
        compile_hostile(&jdk_bin(), "8", false, &j8);
        compile_hostile(&jdk_bin(), "17", true, &j17);
        let src = root.join("HostileDriver.java");
        std::fs::write(&src, DRIVER).unwrap();
        java::javac(&[
            "-nowarn",
            "--release",
            "8",
            "-Xlint:-options",
            "-d",
            &driver.display().to_string(),
            &src.display().to_string(),
        ]);
        (j8, j17, driver)
    })
}

/// A JDK 25 (`FERROSUITE_JDK25`, else `/usr/lib/jvm/*25*`), if installed.
fn jdk25() -> Option<PathBuf> {
    if let Some(home) = std::env::var_os("FERROSUITE_JDK25") {
        return Some(PathBuf::from(home).join("bin"));
    }
    let mut homes: Vec<PathBuf> = std::fs::read_dir("/usr/lib/jvm")
        .ok()?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.file_name()
                .is_some_and(|n| n.to_string_lossy().contains("25"))
                && p.join("bin/javac").is_file()
        })
        .collect();
    homes.sort();
    homes.first().map(|h| h.join("bin"))
}

/// How the classes are prepared.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Order {
    /// Sandbox only.
    Sandbox,
    /// Probe instrumentation, then the sandbox.
    ProbesThenSandbox,
    /// The sandbox, then probe instrumentation.
    SandboxThenProbes,
}

/// Sandboxes every class of `input` into `out` (with a hierarchy over `input` and the JDK),
/// writing the runtime classes next to them.
fn prepare(input: &Path, out: &Path, order: Order) -> SandboxReport {
    let cp = ClassPath::parse(&format!("{}:jrt", input.display())).unwrap();
    let h = Hierarchy::new(&cp);
    let rules = SandboxRules::default();
    let mut inst = Instrumenter::new(ProbeConfig::default());
    let mut total = SandboxReport::default();
    for (rel, bytes) in java::class_files(input) {
        let mut c = ClassFile::parse(&bytes).unwrap();
        if order == Order::ProbesThenSandbox {
            c = inst.instrument(&c).unwrap();
        }
        let report = sandbox(&mut c, &rules, Some(&h)).unwrap_or_else(|e| panic!("{rel}: {e}"));
        assert!(report.unguarded_handles.is_empty(), "{rel}: {report:?}");
        total.merge(&report);
        if order == Order::SandboxThenProbes {
            c = inst.instrument(&c).unwrap();
        }
        let p = out.join(&rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(&p, c.to_bytes().unwrap()).unwrap();
    }
    write_runtime(out);
    total
}

fn write_runtime(out: &Path) {
    for (name, bytes) in runtime::CLASSES {
        let p = out.join(format!("{name}.class"));
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(&p, bytes).unwrap();
    }
}

/// What the hostile methods aim at: files with known content, a loopback TCP listener and UDP
/// socket, a sleeping process, paths that must not come to exist.
struct Targets {
    dir: PathBuf,
    cwd: PathBuf,
    file: PathBuf,
    other: PathBuf,
    listener: TcpListener,
    udp: UdpSocket,
    free_port: u16,
    sleeper: Child,
}

impl Targets {
    fn new(name: &str) -> Self {
        let root = java::tmp(name);
        let dir = root.join("victims");
        let cwd = root.join("cwd");
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::create_dir_all(&cwd).unwrap();
        let file = dir.join("victim.txt");
        let other = dir.join("other.txt");
        std::fs::write(&file, CONTENT).unwrap();
        std::fs::write(&other, CONTENT).unwrap();
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let udp = UdpSocket::bind("127.0.0.1:0").unwrap();
        let free_port = TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let sleeper = Command::new("sleep")
            .arg("120")
            .stdout(Stdio::null())
            .spawn()
            .unwrap();
        Targets {
            dir,
            cwd,
            file,
            other,
            listener,
            udp,
            free_port,
            sleeper,
        }
    }

    fn expand(&self, s: &str) -> String {
        s.replace("{file}", &self.file.display().to_string())
            .replace("{other}", &self.other.display().to_string())
            .replace("{new}", &self.dir.join("new.txt").display().to_string())
            .replace("{newdir}", &self.dir.join("sub/dir").display().to_string())
            .replace("{dir}", &self.dir.display().to_string())
            .replace("{marker}", &self.dir.join("marker").display().to_string())
            .replace(
                "{port}",
                &self.listener.local_addr().unwrap().port().to_string(),
            )
            .replace("{free}", &self.free_port.to_string())
            .replace("{udp}", &self.udp.local_addr().unwrap().port().to_string())
            .replace("{pid}", &self.sleeper.id().to_string())
    }

    fn listing(&self) -> Vec<String> {
        let mut v: Vec<String> = std::fs::read_dir(&self.dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    }

    /// Nothing happened: files unchanged (content and permissions), nothing created, no
    /// connection, no datagram, the process alive.
    fn assert_untouched(&mut self, what: &str) {
        assert_eq!(self.listing(), ["other.txt", "victim.txt"], "{what}");
        assert_eq!(
            std::fs::read_dir(&self.cwd).unwrap().count(),
            0,
            "{what}: files created in the working directory"
        );
        for f in [&self.file, &self.other] {
            assert_eq!(std::fs::read_to_string(f).unwrap(), CONTENT, "{what}");
            assert!(
                !std::fs::metadata(f).unwrap().permissions().readonly(),
                "{what}"
            );
        }
        self.listener.set_nonblocking(true).unwrap();
        match self.listener.accept() {
            Err(e) if e.kind() == ErrorKind::WouldBlock => {}
            other => panic!("{what}: the listener saw a connection: {other:?}"),
        }
        self.udp.set_nonblocking(true).unwrap();
        let mut buf = [0u8; 16];
        match self.udp.recv_from(&mut buf) {
            Err(e) if e.kind() == ErrorKind::WouldBlock => {}
            other => panic!("{what}: a datagram arrived: {other:?}"),
        }
        assert!(
            self.sleeper.try_wait().unwrap().is_none(),
            "{what}: the sleeping process was killed"
        );
    }
}

impl Drop for Targets {
    fn drop(&mut self) {
        let _ = self.sleeper.kill();
        let _ = self.sleeper.wait();
    }
}

/// (label, method, arguments separated by `|`, expected outcome).
type Case = (&'static str, &'static str, &'static str, &'static str);

#[rustfmt::skip]
const CASES: &[Case] = &[
    // Exits.
    ("exit", "hostile.Exits.systemExit", "77", "DENIED java.lang.System.exit"),
    ("runtime-exit", "hostile.Exits.runtimeExit", "77", "DENIED java.lang.Runtime.exit"),
    ("halt", "hostile.Exits.runtimeHalt", "77", "DENIED java.lang.Runtime.halt"),
    ("exit-ref", "hostile.Exits.exitThroughReference", "77", "DENIED java.lang.System.exit"),
    ("exit-interface", "hostile.Exits$Exiting.exitThroughInterface", "77", "DENIED java.lang.System.exit"),
    ("exit-cond-a", "hostile.Exits.exitConditionally", "true|77", "DENIED java.lang.System.exit"),
    ("exit-cond-b", "hostile.Exits.exitConditionally", "false|77", "DENIED java.lang.System.exit"),
    ("exit-loop", "hostile.Exits.exitInLoop", "3|77", "DENIED java.lang.System.exit"),
    ("exit-loop-none", "hostile.Exits.exitInLoop", "0|77", "OK 0"),
    ("exit-caught", "hostile.Exits.exitCaught", "77", "OK caught org.ferrosuite.rt.SandboxError"),
    // java.io.File.
    ("delete", "hostile.FileOps.deleteFile", "{file}", "DENIED java.io.File.delete"),
    ("delete-on-exit", "hostile.FileOps.deleteOnExit", "{file}", "DENIED java.io.File.deleteOnExit"),
    ("rename", "hostile.FileOps.renameFile", "{file}|{new}", "DENIED java.io.File.renameTo"),
    ("create", "hostile.FileOps.createNewFile", "{new}", "DENIED java.io.File.createNewFile"),
    ("mkdirs", "hostile.FileOps.makeDirectories", "{newdir}", "DENIED java.io.File.mkdirs"),
    ("read-only", "hostile.FileOps.makeReadOnly", "{file}", "DENIED java.io.File.setReadOnly"),
    ("temp", "hostile.FileOps.createTempFile", "{dir}", "DENIED java.io.File.createTempFile"),
    ("subclass", "hostile.FileOps.deleteThroughSubclass", "{file}", "DENIED java.io.File.delete"),
    ("override", "hostile.FileOps.deleteThroughOverride", "{file}", "DENIED java.io.File.delete"),
    ("delete-each", "hostile.FileOps.deleteEach", "{file}|{other}", "DENIED java.io.File.delete"),
    ("delete-caught", "hostile.FileOps.deleteCaught", "{file}", "OK caught org.ferrosuite.rt.SandboxError"),
    // Streams and writers.
    ("fos", "hostile.FileOps.writeFileOutputStream", "{file}", "DENIED java.io.FileOutputStream.<init>"),
    ("fos-append", "hostile.FileOps.appendFileOutputStream", "{file}", "DENIED java.io.FileOutputStream.<init>"),
    ("fos-cond", "hostile.FileOps.writeConditionally", "{file}|{other}|false", "DENIED java.io.FileOutputStream.<init>"),
    ("writer", "hostile.FileOps.writeFileWriter", "{file}", "DENIED java.io.FileWriter.<init>"),
    ("print-stream", "hostile.FileOps.writePrintStream", "{file}", "DENIED java.io.PrintStream.<init>"),
    ("print-writer", "hostile.FileOps.writePrintWriter", "{file}", "DENIED java.io.PrintWriter.<init>"),
    ("formatter", "hostile.FileOps.writeFormatter", "{file}", "DENIED java.util.Formatter.<init>"),
    ("raf-rw", "hostile.FileOps.writeRandomAccessFile", "{file}", "DENIED java.io.RandomAccessFile.<init>"),
    // NIO.
    ("nio-write", "hostile.FileOps.writeNio", "{file}", "DENIED java.nio.file.Files.write"),
    ("nio-delete", "hostile.FileOps.deleteNio", "{file}", "DENIED java.nio.file.Files.delete"),
    ("nio-create", "hostile.FileOps.createNio", "{new}", "DENIED java.nio.file.Files.createFile"),
    ("nio-move", "hostile.FileOps.moveNio", "{file}|{new}", "DENIED java.nio.file.Files.move"),
    ("nio-copy", "hostile.FileOps.copyNio", "{file}|{new}", "DENIED java.nio.file.Files.copy"),
    ("nio-out", "hostile.FileOps.newOutputStreamNio", "{file}", "DENIED java.nio.file.Files.newOutputStream"),
    ("nio-channel-write", "hostile.FileOps.writeByteChannel", "{file}", "DENIED java.nio.file.Files.newByteChannel"),
    ("file-channel-append", "hostile.FileOps.appendFileChannel", "{file}", "DENIED java.nio.channels.FileChannel.open"),
    ("read-delete", "hostile.FileOps.readAndDelete", "{file}", "DENIED java.nio.file.Files.newInputStream"),
    ("file-channel-set", "hostile.FileOps.writeFileChannelWithSet", "{file}", "DENIED java.nio.channels.FileChannel.open"),
    // Method references (bridged method handles).
    ("delete-ref", "hostile.FileOps.deleteThroughReference", "{file}", "DENIED java.io.File.delete"),
    ("fos-ref", "hostile.FileOps.writeThroughConstructorReference", "{file}", "DENIED java.io.FileOutputStream.<init>"),
    ("raf-ref-rw", "hostile.FileOps.openThroughReference", "{file}|rw", "DENIED java.io.RandomAccessFile.<init>"),
    ("raf-ref-r", "hostile.FileOps.openThroughReference", "{file}|r", "OK read 104"),
    // Harmless file access.
    ("read", "hostile.FileOps.readFile", "{file}", "OK hello, sandbox"),
    ("read-stream", "hostile.FileOps.readFileInputStream", "{file}", "OK 104"),
    ("raf-r", "hostile.FileOps.readRandomAccessFile", "{file}", "OK 104"),
    ("read-nio-stream", "hostile.FileOps.readNioInputStream", "{file}", "OK 104"),
    ("read-channel", "hostile.FileOps.readByteChannel", "{file}", "OK 14"),
    ("read-file-channel", "hostile.FileOps.readFileChannel", "{file}", "OK 14"),
    ("copy-to-memory", "hostile.FileOps.copyToMemory", "{file}", "OK 14"),
    ("print-memory", "hostile.FileOps.printToMemory", "hello", "OK hello"),
    ("print-writer-memory", "hostile.FileOps.printWriterToMemory", "hi", "OK hi"),
    ("exists", "hostile.FileOps.exists", "{file}", "OK true"),
    // Processes.
    ("start", "hostile.Processes.startProcess", "{marker}", "DENIED java.lang.ProcessBuilder.start"),
    ("exec", "hostile.Processes.execArray", "{marker}", "DENIED java.lang.Runtime.exec"),
    ("exec-string", "hostile.Processes.execString", "{marker}", "DENIED java.lang.Runtime.exec"),
    ("describe", "hostile.Processes.describeCommand", "{marker}", "OK 2"),
    // Network.
    ("connect", "hostile.Network.connect", "{port}", "DENIED java.net.Socket.<init>"),
    ("connect-later", "hostile.Network.connectLater", "{port}", "DENIED java.net.Socket.connect"),
    ("listen", "hostile.Network.listen", "{free}", "DENIED java.net.ServerSocket.<init>"),
    ("url-stream", "hostile.Network.openStream", "{port}", "DENIED java.net.URL.openStream"),
    ("url-connection", "hostile.Network.openConnection", "{port}", "DENIED java.net.URL.openConnection"),
    ("channel", "hostile.Network.channelConnect", "{port}", "DENIED java.nio.channels.SocketChannel.open"),
    ("channel-later", "hostile.Network.channelConnectLater", "{port}", "DENIED java.nio.channels.SocketChannel.connect"),
    ("datagram", "hostile.Network.sendDatagram", "{udp}", "DENIED java.net.DatagramSocket.<init>"),
    ("datagram-channel", "hostile.Network.sendDatagramChannel", "{udp}", "DENIED java.nio.channels.DatagramChannel.send"),
    ("unconnected", "hostile.Network.unconnectedSocket", "", "OK connected=false"),
    ("address", "hostile.Network.socketAddress", "{port}", "OK {port}"),
    ("url", "hostile.Network.parseUrl", "{port}", "OK /x"),
];

/// Cases of `Modern` (Java 17 class files).
#[rustfmt::skip]
const MODERN: &[Case] = &[
    ("record", "hostile.Modern.deleteThroughRecord", "{file}", "DENIED java.io.File.delete"),
    ("write-string", "hostile.Modern.writeString", "{file}", "DENIED java.nio.file.Files.writeString"),
    ("destroy", "hostile.Modern.destroy", "{pid}", "DENIED java.lang.ProcessHandle.destroy"),
    ("destroy-ref", "hostile.Modern.destroyThroughReference", "{pid}", "DENIED java.lang.ProcessHandle.destroy"),
    ("pipeline", "hostile.Modern.startPipeline", "{marker}", "DENIED java.lang.ProcessBuilder.startPipeline"),
    ("http", "hostile.Modern.httpSend", "{port}", "DENIED java.net.http.HttpClient.send"),
    ("modern-describe", "hostile.Modern.describe", "{file}", "OK exists victim.txt"),
];

/// Runs the driver on `classes` with `java` from `bin`; returns label → outcome (`DENIED api`,
/// `OK result`, `THREW …`).
fn drive(
    bin: &Path,
    classes: &Path,
    targets: &Targets,
    cases: &[Case],
) -> BTreeMap<String, String> {
    let (_, _, driver) = hostile();
    let cp = format!("{}:{}", driver.display(), classes.display());
    let specs: Vec<String> = cases
        .iter()
        .map(|(label, method, args, _)| {
            if args.is_empty() {
                format!("{label}|{method}")
            } else {
                format!("{label}|{method}|{}", targets.expand(args))
            }
        })
        .collect();
    let o = Command::new(bin.join("java"))
        .args(["-Xverify:all", "-cp", &cp, "HostileDriver"])
        .args(&specs)
        .current_dir(&targets.cwd)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&o.stdout).into_owned();
    assert!(
        o.status.success() && stdout.ends_with("done\n"),
        "driver ended with {} (an exit got through?):\n{stdout}\n{}",
        o.status,
        String::from_utf8_lossy(&o.stderr)
    );
    stdout
        .lines()
        .filter_map(|l| l.split_once(' '))
        .map(|(label, rest)| (label.to_string(), rest.to_string()))
        .collect()
}

/// Checks every outcome against the cases.
fn check_outcomes(what: &str, out: &BTreeMap<String, String>, targets: &Targets, cases: &[Case]) {
    let mut wrong = Vec::new();
    for (label, _, _, expected) in cases {
        let expected = targets.expand(expected);
        let actual = out.get(*label).map_or("<missing>", String::as_str);
        // `DENIED api | message`: compare the API; check the message format.
        let (head, message) = actual.split_once(" | ").unwrap_or((actual, ""));
        if head != expected {
            wrong.push(format!("{label}: expected {expected:?}, got {actual:?}"));
        } else if let Some(api) = head.strip_prefix("DENIED ") {
            let prefix = format!("ferrosuite sandbox: {api} is not allowed during test generation");
            assert!(message.starts_with(&prefix), "{what} {label}: {message}");
        }
    }
    assert!(wrong.is_empty(), "{what}:\n{}", wrong.join("\n"));
    assert_eq!(
        out.get("raf-rw").map(String::as_str),
        Some(
            "DENIED java.io.RandomAccessFile.<init> | ferrosuite sandbox: java.io.RandomAccessFile.<init> is not \
             allowed during test generation (mode \"rw\")"
        ),
        "{what}"
    );
}

#[test]
fn unsandboxed_fixtures_really_are_hostile() {
    // Without the sandbox, a sample of the hostile methods do what they say: the other tests
    // are not vacuous.
    let (j8, j17, _) = hostile();
    let t = Targets::new("hostile-unsandboxed");
    let cases: &[Case] = &[
        ("delete", "hostile.FileOps.deleteFile", "{file}", "OK true"),
        (
            "fos",
            "hostile.FileOps.writeFileOutputStream",
            "{other}",
            "OK null",
        ),
        ("connect", "hostile.Network.connect", "{port}", "OK null"),
        (
            "start",
            "hostile.Processes.startProcess",
            "{marker}",
            "OK 0",
        ),
    ];
    let out = drive(&jdk_bin(), j8, &t, cases);
    for (label, _, _, expected) in cases {
        assert_eq!(out[*label], *expected, "{label}");
    }
    assert!(!t.file.exists());
    assert_eq!(std::fs::read_to_string(&t.other).unwrap(), "x");
    assert!(t.dir.join("marker").exists());
    t.listener.set_nonblocking(false).unwrap();
    assert!(t.listener.accept().is_ok());
    // An unguarded exit ends the driver before `done`.
    let cp = format!("{}:{}", hostile().2.display(), j8.display());
    let o = Command::new(jdk_bin().join("java"))
        .args(["-cp", &cp, "HostileDriver", "x|hostile.Exits.exitCaught|42"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(42));
    // And a method reference really destroys a process.
    let mut sleeper = Command::new("sleep").arg("120").spawn().unwrap();
    let spec = format!("d|hostile.Modern.destroyThroughReference|{}", sleeper.id());
    let cp17 = format!("{}:{}", hostile().2.display(), j17.display());
    let o = Command::new(jdk_bin().join("java"))
        .args(["-cp", &cp17, "HostileDriver", &spec])
        .output()
        .unwrap();
    assert!(
        String::from_utf8_lossy(&o.stdout).starts_with("d OK null"),
        "{}",
        String::from_utf8_lossy(&o.stdout)
    );
    let status = sleeper.wait().unwrap();
    assert!(!status.success(), "sleep was not killed: {status}");
}

fn run_sandboxed(
    what: &str,
    bin: &Path,
    input: &Path,
    order: Order,
    cases: &[Case],
) -> SandboxReport {
    let out = java::tmp(&format!("hostile-{what}")).join("classes");
    let report = prepare(input, &out, order);
    let mut t = Targets::new(&format!("hostile-{what}-targets"));
    let results = drive(bin, &out, &t, cases);
    check_outcomes(what, &results, &t, cases);
    t.assert_untouched(what);
    report
}

#[test]
fn sandboxed_hostile_fixtures_are_refused_and_harmless_ones_work() {
    let (j8, j17, _) = hostile();
    let bin = jdk_bin();
    let report = run_sandboxed("java8", &bin, j8, Order::Sandbox, CASES);
    eprintln!("hostile java8: {report:?}");
    assert!(report.call_sites() >= 50, "{report:?}");
    // File::delete, FileOutputStream::new, RandomAccessFile::new, System::exit (in a class and
    // in an interface).
    assert_eq!(report.handles_redirected(), 5, "{report:?}");
    assert_eq!(report.bridges, 5);
    assert_eq!(report.already_guarded, 0);
    let both: Vec<Case> = CASES.iter().chain(MODERN).copied().collect();
    let report17 = run_sandboxed("java17", &bin, j17, Order::Sandbox, &both);
    // ProcessHandle::destroy is a sixth handle.
    assert_eq!(report17.handles_redirected(), 6, "{report17:?}");
}

#[test]
fn sandbox_works_before_and_after_probe_instrumentation() {
    let (j8, j17, _) = hostile();
    let bin = jdk_bin();
    let both: Vec<Case> = CASES.iter().chain(MODERN).copied().collect();
    let a = run_sandboxed("probes-first", &bin, j8, Order::ProbesThenSandbox, CASES);
    let b = run_sandboxed("sandbox-first", &bin, j17, Order::SandboxThenProbes, &both);
    assert!(a.call_sites() > 0 && b.call_sites() > 0);
}

#[test]
fn java25_class_files_are_sandboxed() {
    let Some(bin) = jdk25() else {
        eprintln!("skipping: no JDK 25 under /usr/lib/jvm (set FERROSUITE_JDK25 to its home)");
        return;
    };
    let dir = java::tmp("hostile-java25-src").join("classes");
    compile_hostile(&bin, "25", true, &dir);
    let major = ClassFile::parse(&std::fs::read(dir.join("hostile/Modern.class")).unwrap())
        .unwrap()
        .major_version;
    assert_eq!(major, 69);
    let both: Vec<Case> = CASES.iter().chain(MODERN).copied().collect();
    run_sandboxed("java25", &bin, &dir, Order::Sandbox, &both);
}

/// Invokes of each method as (method, `owner.name`, descriptor, whether a Sandbox guard
/// directly precedes it).
fn calls(c: &ClassFile) -> Vec<(String, String, String, bool)> {
    let mut out = Vec::new();
    for m in &c.methods {
        let Some(code) = m.code() else { continue };
        let name = c.member_name(m).unwrap().into_owned();
        let decoded = insn::decode(&code.code).unwrap();
        for (k, (_, i)) in decoded.iter().enumerate() {
            let index = match i {
                Insn::Cp {
                    op: op::INVOKEVIRTUAL | op::INVOKESPECIAL | op::INVOKESTATIC,
                    index,
                }
                | Insn::InvokeInterface { index, .. } => *index,
                _ => continue,
            };
            let r = c.constant_pool.member_ref(index).unwrap();
            if r.class == SANDBOX_CLASS {
                continue;
            }
            let guarded = k > 0
                && matches!(&decoded[k - 1].1, Insn::Cp { op: op::INVOKESTATIC, index: g }
                    if c.constant_pool.member_ref(*g).unwrap().class == SANDBOX_CLASS);
            out.push((
                name.clone(),
                format!("{}.{}", r.class, r.name),
                r.descriptor.into_owned(),
                guarded,
            ));
        }
    }
    out
}

#[test]
fn calls_through_subclasses_need_the_hierarchy() {
    let (j8, _, _) = hostile();
    let bytes = std::fs::read(j8.join("hostile/FileOps.class")).unwrap();
    let rules = SandboxRules::default();
    let guarded = |c: &ClassFile, owner_name: &str| -> Vec<bool> {
        calls(c)
            .into_iter()
            .filter(|(_, callee, _, _)| callee == owner_name)
            .map(|(_, _, _, g)| g)
            .collect()
    };
    let mut plain = ClassFile::parse(&bytes).unwrap();
    let r1 = sandbox(&mut plain, &rules, None).unwrap();
    assert_eq!(guarded(&plain, "hostile/MyFile.delete"), [false]);
    assert_eq!(guarded(&plain, "hostile/SafeFile.delete"), [false]);
    assert!(guarded(&plain, "java/io/File.delete").iter().all(|g| *g));
    let cp = ClassPath::parse(&format!("{}:jrt", j8.display())).unwrap();
    let h = Hierarchy::new(&cp);
    let mut full = ClassFile::parse(&bytes).unwrap();
    let r2 = sandbox(&mut full, &rules, Some(&h)).unwrap();
    assert_eq!(guarded(&full, "hostile/MyFile.delete"), [true]);
    assert_eq!(guarded(&full, "hostile/SafeFile.delete"), [true]);
    assert_eq!(r2.call_sites(), r1.call_sites() + 2);
    assert_eq!(
        r2.guarded["java.io.File.delete"],
        r1.guarded["java.io.File.delete"] + 2
    );
    // Without JDK classes on the hierarchy's class path, the superclass chain still resolves
    // as far as it goes (hostile/MyFile → java/io/File).
    let cp = ClassPath::parse(&j8.display().to_string()).unwrap();
    let h = Hierarchy::new(&cp);
    let mut partial = ClassFile::parse(&bytes).unwrap();
    let r3 = sandbox(&mut partial, &rules, Some(&h)).unwrap();
    assert_eq!(r3.call_sites(), r2.call_sites());
    // Constructors match through the hierarchy only for JDK owners (whose own super calls are
    // not sandboxed): `new ByteArrayOutputStream()` under a rule for OutputStream's.
    let custom = SandboxRules::new(vec![Rule::deny("java/io/OutputStream", "<init>")]);
    let mut c = ClassFile::parse(&bytes).unwrap();
    assert!(!sandbox(&mut c, &custom, None).unwrap().changed());
    let cp = ClassPath::parse(&format!("{}:jrt", j8.display())).unwrap();
    let h = Hierarchy::new(&cp);
    let r = sandbox(&mut c, &custom, Some(&h)).unwrap();
    assert!(r.guarded["java.io.OutputStream.<init>"] > 2, "{r:?}");
    assert!(
        guarded(&c, "java/io/FileOutputStream.<init>")
            .iter()
            .all(|g| *g)
    );
    assert_eq!(
        guarded(&c, "java/io/ByteArrayOutputStream.<init>"),
        [true, true]
    );
    // SafeFile's own super.delete() is guarded without any hierarchy.
    let mut safe =
        ClassFile::parse(&std::fs::read(j8.join("hostile/SafeFile.class")).unwrap()).unwrap();
    sandbox(&mut safe, &rules, None).unwrap();
    assert_eq!(guarded(&safe, "java/io/File.delete"), [true]);
}

#[test]
fn method_handles_point_to_guarding_bridges() {
    let (j8, _, _) = hostile();
    let mut c =
        ClassFile::parse(&std::fs::read(j8.join("hostile/FileOps.class")).unwrap()).unwrap();
    let report = sandbox(&mut c, &SandboxRules::default(), None).unwrap();
    assert_eq!(
        report.handles,
        [
            ("java.io.File.delete".to_string(), 1),
            ("java.io.FileOutputStream.<init>".to_string(), 1),
            ("java.io.RandomAccessFile.<init>".to_string(), 1),
        ]
        .into_iter()
        .collect()
    );
    let rules = SandboxRules::default();
    let this = c.name().unwrap().into_owned();
    for e in c.constant_pool.entries() {
        if let Constant::MethodHandle { kind, reference } = e {
            let r = c.constant_pool.member_ref(*reference).unwrap();
            let denied = rules
                .lookup(&r.class, &r.name, &r.descriptor)
                .is_some_and(|rule| rule.action != Action::Allow);
            assert!(!denied, "handle still names {}.{}", r.class, r.name);
            if r.name.starts_with(BRIDGE_PREFIX) {
                assert_eq!(*kind, 6);
                assert_eq!(r.class, this);
            }
        }
    }
    // In an interface, the bridge is an interface method.
    let mut i =
        ClassFile::parse(&std::fs::read(j8.join("hostile/Exits$Exiting.class")).unwrap()).unwrap();
    let r = sandbox(&mut i, &SandboxRules::default(), None).unwrap();
    assert_eq!(r.bridges, 1);
    let handles: Vec<bool> = i
        .constant_pool
        .entries()
        .iter()
        .filter_map(|e| match e {
            Constant::MethodHandle { kind: 6, reference } => {
                let m = i.constant_pool.member_ref(*reference).unwrap();
                m.name.starts_with(BRIDGE_PREFIX).then_some(m.interface)
            }
            _ => None,
        })
        .collect();
    assert_eq!(handles, [true]);
    let bridges: Vec<(String, String, u16)> = c
        .methods
        .iter()
        .filter(|m| c.member_name(m).unwrap().starts_with(BRIDGE_PREFIX))
        .map(|m| {
            (
                c.member_name(m).unwrap().into_owned(),
                c.member_descriptor(m).unwrap().into_owned(),
                m.access_flags,
            )
        })
        .collect();
    let descs: Vec<&str> = bridges.iter().map(|(_, d, _)| d.as_str()).collect();
    assert_eq!(
        descs,
        [
            "(Ljava/io/File;)Z",
            "(Ljava/lang/String;)Ljava/io/FileOutputStream;",
            "(Ljava/lang/String;Ljava/lang/String;)Ljava/io/RandomAccessFile;",
        ]
    );
    for (_, _, flags) in &bridges {
        assert_eq!(*flags, access::PRIVATE | access::STATIC | access::SYNTHETIC);
    }
    // Every call of a denied API (bridges included) is guarded.
    for (method, callee, desc, guarded) in calls(&c) {
        let (owner, name) = callee.rsplit_once('.').unwrap();
        let denied = rules
            .lookup(owner, name, &desc)
            .is_some_and(|r| r.action != Action::Allow);
        assert_eq!(guarded, denied, "{method}: {callee}{desc}");
    }
}

#[test]
fn unmatched_classes_stay_byte_identical_and_sandboxing_is_idempotent() {
    let (f8, f17) = java::fixtures();
    let (h8, h17, _) = hostile();
    let rules = SandboxRules::default();
    let mut changed = Vec::new();
    for dir in [f8, f17, h8, h17] {
        let cp = ClassPath::parse(&format!("{}:jrt", dir.display())).unwrap();
        let h = Hierarchy::new(&cp);
        for (rel, bytes) in java::class_files(dir) {
            let (once, report) = sandbox_bytes(&bytes, &rules, Some(&h)).unwrap();
            let Some(once) = once else {
                // No change: the parsed and written class is the original, byte for byte.
                let mut c = ClassFile::parse(&bytes).unwrap();
                let r = sandbox(&mut c, &rules, Some(&h)).unwrap();
                assert!(!r.changed());
                assert_eq!(c.to_bytes().unwrap(), bytes, "{rel}");
                continue;
            };
            changed.push(rel.clone());
            let (twice, again) = sandbox_bytes(&once, &rules, Some(&h)).unwrap();
            assert!(twice.is_none(), "{rel}: second pass changed it: {again:?}");
            assert_eq!(
                again.already_guarded,
                report.call_sites() + report.bridges,
                "{rel}"
            );
        }
    }
    changed.sort();
    changed.dedup();
    eprintln!("changed: {changed:?}");
    // Other fixtures may come to call guarded APIs too; these must be among the changed.
    let expected = [
        "examples/Exits.class",
        "hostile/Exits$Exiting.class",
        "hostile/Exits.class",
        "hostile/FileOps.class",
        "hostile/Modern$Victim.class",
        "hostile/Modern.class",
        "hostile/Network.class",
        "hostile/Processes.class",
        "hostile/SafeFile.class",
    ];
    for e in expected {
        assert!(
            changed.iter().any(|c| c == e),
            "{e} not sandboxed: {changed:?}"
        );
    }
    for c in [
        "examples/Stack.class",
        "hostile/MyFile.class",
        "hostile/FileOps$IoFunction.class",
    ] {
        assert!(!changed.iter().any(|x| x == c), "{c} changed");
    }
}

#[test]
fn errors_name_class_method_and_offset() {
    // A method of 65535 bytes calling System.exit: the guard does not fit.
    let mut c = ClassFile::new_class("gen/Big", "java/lang/Object", 52).unwrap();
    let exit = c
        .constant_pool
        .add_method_ref("java/lang/System", "exit", "(I)V", false)
        .unwrap();
    let mut code = vec![op::NOP; 65535 - 5];
    code.push(op::ICONST_0);
    code.push(op::INVOKESTATIC);
    code.extend_from_slice(&exit.0.to_be_bytes());
    code.push(op::RETURN);
    let name = c.constant_pool.add_utf8("f").unwrap();
    let descriptor = c.constant_pool.add_utf8("()V").unwrap();
    let code_name = c.constant_pool.add_utf8("Code").unwrap();
    c.methods.push(ferrosuite_bytecode::Member {
        access_flags: access::STATIC,
        name,
        descriptor,
        attributes: vec![ferrosuite_bytecode::attributes::Attribute {
            name: code_name,
            body: ferrosuite_bytecode::attributes::AttributeBody::Code(
                ferrosuite_bytecode::attributes::Code {
                    max_stack: 1,
                    max_locals: 0,
                    code,
                    exception_table: Vec::new(),
                    attributes: Vec::new(),
                },
            ),
        }],
    });
    let before = c.to_bytes().unwrap();
    let err = sandbox(&mut c, &SandboxRules::default(), None)
        .unwrap_err()
        .to_string();
    assert_eq!(
        err,
        "gen.Big: method f()V: guarding 1 call site(s), the first at offset 65531: cannot rewrite code: \
         rewritten code is 65540 bytes long (the limit is 65535)"
    );
    assert_eq!(
        c.to_bytes().unwrap(),
        before,
        "a failed sandbox leaves the class alone"
    );
    // The runtime is never sandboxed.
    let (name, bytes) = runtime::CLASSES
        .iter()
        .find(|(n, _)| n.ends_with("/Probe"))
        .unwrap();
    let mut probe = ClassFile::parse(bytes).unwrap();
    let err = sandbox(&mut probe, &SandboxRules::default(), None)
        .unwrap_err()
        .to_string();
    assert_eq!(
        err,
        format!(
            "{}: cannot rewrite code: the ferrosuite runtime is not sandboxed",
            name.replace('/', ".")
        )
    );
}

#[test]
fn subject_jars_sandboxed_verify_and_unmatched_stay_identical() {
    let required = std::env::var_os("FERROSUITE_REQUIRE_SUBJECTS").is_some_and(|v| v == "1");
    let rules = SandboxRules::default();
    // commons-io (file-heavy) is not one of the required subjects: used when installed.
    for (name, subject) in [
        ("commons-lang3", true),
        ("guava", true),
        ("commons-io", false),
    ] {
        let jar = Path::new("/usr/share/java").join(format!("{name}.jar"));
        if !jar.exists() {
            assert!(
                !(required && subject),
                "{} is required (apt-get install the Debian package)",
                jar.display()
            );
            eprintln!("skipping {name}: {} not installed", jar.display());
            continue;
        }
        let jar_cp = ClassPath::parse(&jar.display().to_string()).unwrap();
        let entry = &jar_cp.entries()[0];
        let cp = ClassPath::parse(&format!("{}:jrt", jar.display())).unwrap();
        let h = Hierarchy::new(&cp);
        let out = java::tmp(&format!("sandbox-{name}")).join("out");
        let probed = java::tmp(&format!("sandbox-probed-{name}")).join("out");
        let mut total = SandboxReport::default();
        let (mut classes, mut unchanged, mut changed) = (0, 0, 0);
        let mut elapsed = std::time::Duration::ZERO;
        let mut inst = Instrumenter::new(ProbeConfig::default());
        for class in entry.class_names().unwrap() {
            let Some(bytes) = entry.class_bytes(&class).unwrap() else {
                continue;
            };
            if class.ends_with("module-info") {
                continue;
            }
            classes += 1;
            let start = Instant::now();
            let mut c = ClassFile::parse(&bytes).unwrap();
            let report = sandbox(&mut c, &rules, Some(&h)).unwrap_or_else(|e| panic!("{e}"));
            let new = c.to_bytes().unwrap();
            elapsed += start.elapsed();
            assert!(report.unguarded_handles.is_empty(), "{class}: {report:?}");
            total.merge(&report);
            if !report.changed() {
                assert_eq!(new, bytes, "{class} has no match but changed");
                unchanged += 1;
                continue;
            }
            changed += 1;
            let p = out.join(format!("{class}.class"));
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(&p, &new).unwrap();
            // Idempotent.
            let (again, r) = sandbox_bytes(&new, &rules, Some(&h)).unwrap();
            assert!(again.is_none(), "{class}: {r:?}");
            // After probes too.
            let mut pc = inst.instrument(&ClassFile::parse(&bytes).unwrap()).unwrap();
            let pr = sandbox(&mut pc, &rules, Some(&h)).unwrap();
            assert_eq!(pr.call_sites(), report.call_sites(), "{class}");
            let p = probed.join(format!("{class}.class"));
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(&p, pc.to_bytes().unwrap()).unwrap();
        }
        eprintln!(
            "{name}: {classes} classes sandboxed in {:.3} s: {changed} changed, {unchanged} byte-identical; \
             {} call sites guarded {:?}; {} method handles redirected {:?}",
            elapsed.as_secs_f64(),
            total.call_sites(),
            total.guarded,
            total.handles_redirected(),
            total.handles
        );
        if name != "commons-lang3" {
            // com.google.common.io.Files, MoreFiles, FileBackedOutputStream, …
            assert!(changed > 0, "{name}: nothing to guard?");
        }
        if changed == 0 {
            continue;
        }
        for dir in [&out, &probed] {
            write_runtime(dir);
            let (ok, n, text) = java::verify_all(dir, &[&jar]);
            assert_eq!(ok, n, "{name}: {text}");
            assert_eq!(n, changed, "{name}: {text}");
            assert!(!text.contains("VERIFY "), "{name}: {text}");
        }
    }
}
