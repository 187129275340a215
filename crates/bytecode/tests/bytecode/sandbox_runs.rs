//! The sandbox (`instrument::sandbox`) at run time: hostile fixtures sandboxed and run.
//!
//! The hostile fixtures (`fixtures/java/hostile`, `fixtures/java17/hostile`) sandboxed and run
//! under `-Xverify:all` must be refused every exit, file change, process and connection, while
//! their harmless methods keep working.

use std::collections::BTreeMap;
use std::io::ErrorKind;
use std::net::{TcpListener, UdpSocket};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::OnceLock;

use ferrosuite_bytecode::ClassFile;
use ferrosuite_bytecode::classpath::{ClassPath, find_java_home};
use ferrosuite_bytecode::hierarchy::Hierarchy;
use ferrosuite_bytecode::instrument::probes::{Instrumenter, ProbeConfig};
use ferrosuite_bytecode::instrument::sandbox::{SandboxReport, SandboxRules, sandbox};
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
pub(crate) fn hostile() -> &'static (PathBuf, PathBuf, PathBuf) {
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

pub(crate) fn write_runtime(out: &Path) {
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
