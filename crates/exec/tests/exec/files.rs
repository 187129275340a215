//! The virtual file system and console of the controlled environment: the fixture `env.Notes`
//! writes, reads, lists, deletes and makes temporary files through `java.io` and
//! `java.nio.file`, and reads `System.in`; every test sees the same empty tree and console,
//! the worker reports which paths the code asked for, and the machine's file system is never
//! touched.

use std::path::Path;

use ferrosuite_exec::{Host, Observed, Status, TestResult, ThrowKind};
use ferrosuite_testcase::{Prim, Statement, Test, VarRef};

use crate::{config, fixtures, run_with_runtime};

fn s(v: &str) -> Statement {
    Statement::Primitive(Prim::String(v.into()))
}

fn notes(name: &str, desc: &str, args: Vec<VarRef>) -> Statement {
    Statement::method("env/Notes", name, desc, None, args)
}

/// (test, the value its last statement returns, rendered).
fn cases() -> Vec<(Test, &'static str)> {
    let str1 = "(Ljava/lang/String;)Ljava/lang/String;";
    vec![
        (
            Test::new(vec![
                s("notes.txt"),
                s("a\nb"),
                notes(
                    "save",
                    "(Ljava/lang/String;Ljava/lang/String;)Ljava/lang/String;",
                    vec![VarRef(0), VarRef(1)],
                ),
            ]),
            "a|b|",
        ),
        (
            Test::new(vec![
                s("log.bin"),
                Statement::Primitive(Prim::Int(2)),
                notes(
                    "append",
                    "(Ljava/lang/String;I)J",
                    vec![VarRef(0), VarRef(1)],
                ),
            ]),
            "6",
        ),
        (
            Test::new(vec![
                s("missing.cfg"),
                notes("config", str1, vec![VarRef(0)]),
            ]),
            "missing",
        ),
        (
            Test::new(vec![s("/tmp"), notes("config", str1, vec![VarRef(0)])]),
            "directory",
        ),
        (
            Test::new(vec![s("data"), notes("tree", str1, vec![VarRef(0)])]),
            "[a, y.txt][one, two]8true",
        ),
        (
            Test::new(vec![
                s("data"),
                notes("delete", "(Ljava/lang/String;)Z", vec![VarRef(0)]),
            ]),
            "false",
        ),
        (
            Test::new(vec![
                s("x/../x.txt"),
                notes("absolute", str1, vec![VarRef(0)]),
            ]),
            "/work/x/../x.txt",
        ),
        (
            Test::new(vec![notes("temporary", "()Ljava/lang/String;", vec![])]),
            "notes1000001.txttrue",
        ),
        (
            Test::new(vec![
                s("nothing"),
                notes("size", "(Ljava/lang/String;)I", vec![VarRef(0)]),
            ]),
            "-1",
        ),
        (
            Test::new(vec![notes("console", "()Ljava/lang/String;", vec![])]),
            "<eof>",
        ),
        (
            Test::new(vec![s("data"), notes("walk", str1, vec![VarRef(0)])]),
            "+data+d f.txt:3-- ds:f.txt",
        ),
        (
            Test::new(vec![
                s("bytes.bin"),
                notes("channel", str1, vec![VarRef(0)]),
            ]),
            "def6",
        ),
        (
            Test::new(vec![
                s("ra.bin"),
                notes("randomAccess", str1, vec![VarRef(0)]),
            ]),
            "7:x:6:5:6",
        ),
        (
            Test::new(vec![
                s("sc.bin"),
                notes("streamChannel", str1, vec![VarRef(0)]),
            ]),
            "overlapa13cdebde5",
        ),
    ]
}

fn rendered(r: &TestResult) -> String {
    assert_eq!(r.status, Status::Completed, "{r:?}");
    match r.observations.last().and_then(|o| o.value.clone()) {
        Some(Observed::String { text, .. }) => text,
        Some(Observed::Integer(v)) => v.to_string(),
        Some(Observed::Boolean(b)) => b.to_string(),
        other => panic!("unexpected value {other:?}"),
    }
}

/// Names the fixture would leave behind in a real working or temporary directory.
const LEFT: [&str; 8] = [
    "notes.txt",
    "log.bin",
    "data",
    "notes1000001.txt",
    "bytes.bin",
    "ra.bin",
    "sc.bin",
    "made.txt",
];

#[test]
fn files_and_console_are_virtual_the_same_in_every_test_and_reported() {
    let cwd = std::env::current_dir().unwrap();
    let tmp = std::env::temp_dir();
    for name in LEFT {
        assert!(
            !cwd.join(name).exists() && !tmp.join(name).exists(),
            "{name} exists before"
        );
    }
    let mut c = config(vec![fixtures().clone()], &["env/Notes"]);
    c.environment = true;
    let mut host = Host::start(c).unwrap();
    let cases = cases();
    let mut tests: Vec<Test> = cases.iter().map(|(t, _)| t.clone()).collect();
    // Each test twice: the tree starts empty again.
    tests.extend(tests.clone());
    let results = host.run(&tests, true).unwrap();
    for (k, r) in results.iter().enumerate() {
        let (_, want) = &cases[k % cases.len()];
        assert_eq!(&rendered(r), want, "test {k}");
        assert!(r.reads_environment, "test {k} used the environment: {r:?}");
    }
    assert_eq!(results[0].resources.files, vec!["notes.txt".to_string()]);
    assert!(!results[0].resources.console);
    assert!(results[cases.len() - 5].resources.console);
    for name in LEFT {
        assert!(
            !cwd.join(name).exists() && !tmp.join(name).exists(),
            "{name} was written to the machine's file system"
        );
    }
    assert!(!Path::new("/work/notes.txt").exists());
}

/// Statements that call the JDK's file APIs themselves (`new File(…)`, `createNewFile()`,
/// `new FileOutputStream(file)`) reach the virtual file system as the rewritten classes do,
/// instead of the sandbox's refusal.
#[test]
fn statements_calling_file_apis_use_the_virtual_file_system() {
    let mut c = config(vec![fixtures().clone()], &["env/Notes"]);
    c.environment = true;
    let mut host = Host::start(c).unwrap();
    let file = |name: &str, desc: &str, args: Vec<VarRef>| {
        Statement::method("java/io/File", name, desc, Some(VarRef(1)), args)
    };
    let t = Test::new(vec![
        s("made.txt"),
        Statement::constructor("java/io/File", "(Ljava/lang/String;)V", vec![VarRef(0)]),
        file("createNewFile", "()Z", vec![]),
        Statement::Primitive(Prim::Boolean(true)),
        Statement::Primitive(Prim::Int(65)),
        Statement::constructor(
            "java/io/FileOutputStream",
            "(Ljava/io/File;Z)V",
            vec![VarRef(1), VarRef(3)],
        ),
        Statement::method(
            "java/io/FileOutputStream",
            "write",
            "(I)V",
            Some(VarRef(5)),
            vec![VarRef(4)],
        ),
        file("length", "()J", vec![]),
    ]);
    let r = host.run(&[t.clone(), t], true).unwrap();
    for r in &r {
        assert_eq!(r.status, Status::Completed, "{r:?}");
        assert!(r.first_exception().is_none(), "{r:?}");
        assert_eq!(rendered(r), "1", "{r:?}");
        // The file's getters, observed for assertions, ask the virtual file system too:
        // after `new File(…)`, and as the receiver of the last call.
        let getter = |list: &[(String, Observed)], name: &str| {
            list.iter().find(|(n, _)| n == name).map(|(_, o)| o.clone())
        };
        let created = &r.observations[1].inspectors;
        let last = &r.observations[7].receiver_inspectors;
        assert_eq!(
            getter(created, "getAbsolutePath"),
            Some(Observed::String {
                text: "/work/made.txt".into(),
                truncated: false
            }),
            "{r:?}"
        );
        assert_eq!(getter(created, "isFile"), Some(Observed::Boolean(false)));
        assert_eq!(getter(last, "isFile"), Some(Observed::Boolean(true)));
        assert_eq!(getter(last, "length"), Some(Observed::Integer(1)));
    }
    assert!(!std::env::current_dir().unwrap().join("made.txt").exists());
}

/// Properties, variables and the host name are the same on every machine, and a property a
/// test sets is gone in the next test (and never reaches the JVM's own).
#[test]
fn properties_variables_and_host_are_fixed_and_set_properties_do_not_leak() {
    let mut c = config(vec![fixtures().clone()], &["env/Machine"]);
    c.environment = true;
    let mut host = Host::start(c).unwrap();
    let machine = |name: &str, desc: &str, args: Vec<VarRef>| {
        Statement::method("env/Machine", name, desc, None, args)
    };
    let set = Test::new(vec![
        s("ferrosuite.x"),
        s("1"),
        machine(
            "set",
            "(Ljava/lang/String;Ljava/lang/String;)Ljava/lang/String;",
            vec![VarRef(0), VarRef(1)],
        ),
    ]);
    let tests = vec![
        Test::new(vec![machine("home", "()Ljava/lang/String;", vec![])]),
        Test::new(vec![machine("host", "()Ljava/lang/String;", vec![])]),
        set.clone(),
        set,
        Test::new(vec![machine("hasSecret", "()Z", vec![])]),
    ];
    let got: Vec<String> = host
        .run(&tests, true)
        .unwrap()
        .iter()
        .map(rendered)
        .collect();
    assert_eq!(
        got,
        [
            "/home/user|/home/user|user|/work",
            "localhost",
            "unset->1",
            "unset->1",
            "false"
        ]
    );
}

/// A constructor call with a jump between `new` and `<init>` is not made a factory (no stack
/// map frame may hold the uninitialised object): the class verifies and runs, and the sandbox
/// refuses the real write.
#[test]
fn a_jump_inside_a_constructor_call_leaves_it_to_the_sandbox() {
    let mut c = config(vec![fixtures().clone()], &["env/Notes"]);
    c.environment = true;
    let mut host = Host::start(c).unwrap();
    let t = Test::new(vec![
        Statement::Primitive(Prim::Boolean(true)),
        notes("either", "(Z)Ljava/lang/String;", vec![VarRef(0)]),
    ]);
    let r = host.run(&[t], false).unwrap();
    let thrown = r[0].first_exception().map(|(_, t)| t.kind.clone());
    assert!(matches!(thrown, Some(ThrowKind::Sandbox(_))), "{r:?}");
    assert!(!std::env::current_dir().unwrap().join("first.txt").exists());
}

#[test]
fn without_the_environment_file_writes_stay_refused() {
    let mut c = config(vec![fixtures().clone()], &["env/Notes"]);
    c.environment = false;
    let mut host = Host::start(c).unwrap();
    let (t, _) = cases().remove(0);
    let r = host.run(&[t], true).unwrap();
    let thrown = r[0].first_exception().map(|(_, t)| t.kind.clone());
    assert!(matches!(thrown, Some(ThrowKind::Sandbox(_))), "{r:?}");
    assert!(!r[0].reads_environment);
    assert!(!std::env::current_dir().unwrap().join("notes.txt").exists());
}

/// The runtime of emitted tests patches `env.Notes` and `env.Machine` as they load in a plain
/// JVM (no flag) and gives the same values as the worker: the same virtual tree, paths,
/// console, properties and host.
#[test]
fn the_emitted_tests_runtime_gives_the_same_files() {
    let harness = r#"
import env.Notes;
import org.ferrosuite.rt.Environment;

public class FilesHarness {
    static void b() {
        Environment.begin();
    }

    public static void main(String[] args) throws Exception {
        Environment.install();
        b(); System.out.println(Notes.save("notes.txt", "a\nb"));
        b(); System.out.println(Notes.append("log.bin", 2));
        b(); System.out.println(Notes.config("missing.cfg"));
        b(); System.out.println(Notes.config("/tmp"));
        b(); System.out.println(Notes.tree("data"));
        b(); System.out.println(Notes.delete("data"));
        b(); System.out.println(Notes.absolute("x/../x.txt"));
        b(); System.out.println(Notes.temporary());
        b(); System.out.println(Notes.size("nothing"));
        b(); System.out.println(Notes.console());
        b(); System.out.println(Notes.walk("data"));
        b(); System.out.println(Notes.channel("bytes.bin"));
        b(); System.out.println(Notes.randomAccess("ra.bin"));
        b(); System.out.println(Notes.streamChannel("sc.bin"));
        System.err.println("pid " + java.lang.management.ManagementFactory.getRuntimeMXBean().getName());
        b(); System.out.println(env.Machine.home());
        b(); System.out.println(env.Machine.host());
        b(); System.out.println(env.Machine.set("ferrosuite.x", "1"));
        b(); System.out.println(env.Machine.set("ferrosuite.x", "1"));
        System.out.println(System.getProperty("ferrosuite.x"));
    }
}
"#;
    let (out, work) = run_with_runtime("files-runtime", "FilesHarness", harness);
    let plain: Vec<String> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(str::to_string)
        .collect();
    // "a\nb" read back line by line is one printed line.
    let mut want: Vec<String> = cases().iter().map(|(_, w)| (*w).to_string()).collect();
    // The machine as every test sees it; the property set stays in the test's overlay.
    want.extend(
        [
            "/home/user|/home/user|user|/work",
            "localhost",
            "unset->1",
            "unset->1",
            "null",
        ]
        .map(String::from),
    );
    assert_eq!(plain, want);
    let left: Vec<_> = std::fs::read_dir(&work).unwrap().collect();
    assert!(left.is_empty(), "the plain JVM wrote {left:?}");
    // Attaching the agent leaves no socket file behind.
    let pid = out_pid(&out);
    assert!(!pid.is_empty(), "{}", String::from_utf8_lossy(&out.stderr));
    let socket = format!("/tmp/.java_pid{pid}");
    assert!(!Path::new(&socket).exists(), "{socket} left behind");
}

/// The pid the harness printed on standard error (`pid <pid>@<host>`).
fn out_pid(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr)
        .lines()
        .find_map(|l| l.strip_prefix("pid "))
        .and_then(|l| l.split('@').next())
        .unwrap_or_default()
        .to_string()
}
