//! Hand-built tests against real Debian jars: the values the host observes and the branch data
//! it reads must equal those of the same calls compiled into Java and run on the same
//! instrumented classes in a plain JVM (probe data dumped at exit).

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

use ferrosuite_bytecode::classpath::ClassPath;
use ferrosuite_bytecode::descriptor::FieldType;
use ferrosuite_bytecode::instrument::data::ProbeData;
use ferrosuite_bytecode::instrument::probes::ProbeConfig;
use ferrosuite_exec::{Host, Observed, Outcome};
use ferrosuite_runtime as runtime;
use ferrosuite_testcase::statement::{Prim, java_type};
use ferrosuite_testcase::{Statement, Test, VarRef};

use crate::{config, subjects_required};

const JARS: [&str; 3] = [
    "/usr/share/java/commons-lang3.jar",
    "/usr/share/java/guava.jar",
    "/usr/share/java/commons-collections4.jar",
];
const SU: &str = "org/apache/commons/lang3/StringUtils";
const NU: &str = "org/apache/commons/lang3/math/NumberUtils";
const JOINER: &str = "com/google/common/base/Joiner";
const SPLITTER: &str = "com/google/common/base/Splitter";
const BAG: &str = "org/apache/commons/collections4/bag/HashBag";
const STR: &str = "Ljava/lang/String;";

fn s(x: &str) -> Statement {
    Statement::string(x)
}
fn int(i: i32) -> Statement {
    Statement::Primitive(Prim::Int(i))
}
fn st(class: &str, name: &str, desc: &str, args: &[u32]) -> Statement {
    Statement::method(
        class,
        name,
        desc,
        None,
        args.iter().map(|a| VarRef(*a)).collect(),
    )
}
fn on(class: &str, name: &str, desc: &str, recv: u32, args: &[u32]) -> Statement {
    Statement::method(
        class,
        name,
        desc,
        Some(VarRef(recv)),
        args.iter().map(|a| VarRef(*a)).collect(),
    )
}

fn tests() -> Vec<Test> {
    let cs = "Ljava/lang/CharSequence;";
    vec![
        Test::new(vec![
            s(" "),
            st(SU, "isBlank", &format!("({cs})Z"), &[0]),
            s("Hello World"),
            int(8),
            st(SU, "abbreviate", &format!("({STR}I){STR}"), &[2, 3]),
            st(SU, "swapCase", &format!("({STR}){STR}"), &[2]),
        ]),
        Test::new(vec![
            s("abc"),
            int(2),
            st(SU, "abbreviate", &format!("({STR}I){STR}"), &[0, 1]),
        ]),
        Test::new(vec![
            Statement::Null {
                ty: FieldType::Object("java/lang/String".into()),
            },
            st(SU, "capitalize", &format!("({STR}){STR}"), &[0]),
            s("ab"),
            int(3),
            st(SU, "repeat", &format!("({STR}I){STR}"), &[2, 3]),
            s("abd"),
            st(SU, "difference", &format!("({STR}{STR}){STR}"), &[2, 5]),
            st(SU, "indexOfDifference", &format!("({cs}{cs})I"), &[4, 5]),
        ]),
        Test::new(vec![
            Statement::ArrayNew {
                component: FieldType::Object("java/lang/Object".into()),
                length: 3,
            },
            s("a"),
            Statement::ArrayStore {
                array: VarRef(0),
                index: 0,
                value: VarRef(1),
            },
            s("b"),
            Statement::ArrayStore {
                array: VarRef(0),
                index: 2,
                value: VarRef(3),
            },
            s(","),
            st(
                SU,
                "join",
                &format!("([Ljava/lang/Object;{STR}){STR}"),
                &[0, 5],
            ),
        ]),
        Test::new(vec![
            s("12"),
            int(0),
            st(NU, "toInt", &format!("({STR}I)I"), &[0, 1]),
            s("x1"),
            int(5),
            st(NU, "toInt", &format!("({STR}I)I"), &[3, 4]),
            s("0x1F"),
            st(NU, "isCreatable", &format!("({STR})Z"), &[6]),
            st(
                NU,
                "createInteger",
                &format!("({STR})Ljava/lang/Integer;"),
                &[3],
            ),
        ]),
        Test::new(vec![
            Statement::ArrayNew {
                component: FieldType::Int,
                length: 3,
            },
            int(-4),
            Statement::ArrayStore {
                array: VarRef(0),
                index: 1,
                value: VarRef(1),
            },
            st(NU, "max", "([I)I", &[0]),
            st(NU, "min", "([I)I", &[0]),
        ]),
        Test::new(vec![
            s(", "),
            st(JOINER, "on", &format!("({STR})L{JOINER};"), &[0]),
            on(JOINER, "skipNulls", &format!("()L{JOINER};"), 1, &[]),
            Statement::ArrayNew {
                component: FieldType::Object("java/lang/Object".into()),
                length: 3,
            },
            s("x"),
            Statement::ArrayStore {
                array: VarRef(3),
                index: 1,
                value: VarRef(4),
            },
            on(
                JOINER,
                "join",
                &format!("([Ljava/lang/Object;){STR}"),
                2,
                &[3],
            ),
            on(
                JOINER,
                "join",
                &format!("([Ljava/lang/Object;){STR}"),
                1,
                &[3],
            ),
        ]),
        Test::new(vec![
            Statement::Primitive(Prim::Char(u16::from(b','))),
            st(SPLITTER, "on", &format!("(C)L{SPLITTER};"), &[0]),
            on(
                SPLITTER,
                "omitEmptyStrings",
                &format!("()L{SPLITTER};"),
                1,
                &[],
            ),
            s("a,,b, c"),
            on(
                SPLITTER,
                "splitToList",
                &format!("({cs})Ljava/util/List;"),
                2,
                &[3],
            ),
            on("java/util/List", "size", "()I", 4, &[]),
            on(SPLITTER, "trimResults", &format!("()L{SPLITTER};"), 2, &[]),
            on(
                SPLITTER,
                "splitToList",
                &format!("({cs})Ljava/util/List;"),
                6,
                &[3],
            ),
            on("java/util/List", "toString", &format!("(){STR}"), 7, &[]),
        ]),
        Test::new(vec![
            Statement::constructor(BAG, "()V", vec![]),
            s("x"),
            on(BAG, "add", "(Ljava/lang/Object;)Z", 0, &[1]),
            on(BAG, "add", "(Ljava/lang/Object;)Z", 0, &[1]),
            on(BAG, "getCount", "(Ljava/lang/Object;)I", 0, &[1]),
            int(1),
            on(BAG, "remove", "(Ljava/lang/Object;I)Z", 0, &[1, 5]),
            on(BAG, "size", "()I", 0, &[]),
            on(BAG, "toString", &format!("(){STR}"), 0, &[]),
        ]),
    ]
}

/// The same tests as a Java program that prints each value (`t0s1=...`) or exception.
fn java_driver(tests: &[Test]) -> String {
    let mut src = String::from(
        "public class Driver {\n  static void p(String k, Object v) { System.out.println(k + \"=\" + v); }\n",
    );
    for (i, t) in tests.iter().enumerate() {
        let _ = writeln!(src, "  static void t{i}() {{\n    try {{");
        for (j, s) in t.statements.iter().enumerate() {
            // The test model prints each statement as Java.
            let e = s.to_string();
            match s.value_type().unwrap() {
                Some(ty) => {
                    let _ = writeln!(src, "      {} v{j} = {e};", java_type(&ty));
                    if !matches!(ty, FieldType::Array(_))
                        && (!ty.is_reference()
                            || ty == FieldType::Object("java/lang/String".into())
                            || ty == FieldType::Object("java/lang/Integer".into()))
                    {
                        let _ = writeln!(src, "      p(\"t{i}s{j}\", v{j});");
                    }
                }
                None => {
                    let _ = writeln!(src, "      {e};");
                }
            }
            let _ = j;
        }
        let _ = writeln!(
            src,
            "    }} catch (Throwable e) {{ System.out.println(\"t{i}!\" + e.getClass().getName()); }}\n  }}"
        );
    }
    src.push_str("  public static void main(String[] a) {\n");
    for i in 0..tests.len() {
        let _ = writeln!(src, "    t{i}();");
    }
    src.push_str("  }\n}\n");
    src
}

fn text(o: &Observed) -> Option<String> {
    Some(match o {
        Observed::Null => "null".into(),
        Observed::Boolean(b) => b.to_string(),
        Observed::Integer(i) => i.to_string(),
        Observed::Char(c) => char::from_u32(u32::from(*c)).unwrap().to_string(),
        Observed::String { text, .. } => text.clone(),
        _ => return None,
    })
}

#[test]
fn real_jar_calls_match_the_same_calls_compiled_into_java() {
    if let Some(missing) = JARS.iter().find(|j| !Path::new(j).exists()) {
        assert!(!subjects_required(), "{missing} is missing");
        eprintln!("skipped: {missing} is missing");
        return;
    }
    let classes = [SU, NU, JOINER, SPLITTER, BAG];
    let jars: Vec<PathBuf> = JARS.iter().map(PathBuf::from).collect();
    let tests = tests();
    for t in &tests {
        t.validate().unwrap();
    }
    let mut host = Host::start(config(jars.clone(), &classes)).unwrap();
    let results = host.run(&tests, true).unwrap();

    // Our side: values per statement, exceptions per test, summed branch hits and min distances.
    let mut ours = Vec::new();
    let mut hits: BTreeMap<u32, (u64, f64)> = BTreeMap::new();
    let mut add = |slot: u32, h: u32, d: f64| {
        let e = hits.entry(slot).or_insert((0, f64::INFINITY));
        e.0 += u64::from(h);
        e.1 = e.1.min(d);
    };
    for (slot, h, d) in &host.ready().init_probes.branches {
        add(*slot, *h, *d);
    }
    for (i, (t, r)) in tests.iter().zip(&results).enumerate() {
        for (slot, h, d) in &r.probes.branches {
            add(*slot, *h, *d);
        }
        for (j, o) in r.outcomes.iter().enumerate() {
            match o {
                Outcome::Normal => {
                    let ty = t.statements[j].value_type().unwrap();
                    let printable = ty.as_ref().is_some_and(|ty| {
                        !matches!(ty, FieldType::Array(_))
                            && (!ty.is_reference()
                                || *ty == FieldType::Object("java/lang/String".into())
                                || *ty == FieldType::Object("java/lang/Integer".into()))
                    });
                    if printable {
                        let v = r.observations[j].value.as_ref().and_then(text).unwrap();
                        ours.push(format!("t{i}s{j}={v}"));
                    }
                }
                Outcome::Threw(e) => ours.push(format!("t{i}!{}", e.class)),
            }
        }
    }

    // Java's side: the same calls on the same instrumented classes.
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("exec-subjects");
    let _ = std::fs::remove_dir_all(&dir);
    let inst = dir.join("instrumented");
    std::fs::create_dir_all(&inst).unwrap();
    let cp = ClassPath::parse(&JARS.join(":")).unwrap();
    let names: Vec<String> = classes.iter().map(ToString::to_string).collect();
    let (map, bytes) =
        ferrosuite_exec::host::instrument(&cp, &names, &ProbeConfig::default()).unwrap();
    assert_eq!(map.branch_slots, host.map().branch_slots);
    for (name, b) in bytes
        .iter()
        .map(|(n, b)| (n.as_str(), b.as_slice()))
        .chain(runtime::CLASSES.iter().copied())
    {
        let p = inst.join(format!("{name}.class"));
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, b).unwrap();
    }
    std::fs::write(dir.join("Driver.java"), java_driver(&tests)).unwrap();
    let jar_cp = JARS.join(":");
    let st = Command::new("javac")
        .args(["-nowarn", "-d"])
        .arg(&dir)
        .args(["-cp", &jar_cp])
        .arg(dir.join("Driver.java"))
        .output()
        .unwrap();
    assert!(
        st.status.success(),
        "{}",
        String::from_utf8_lossy(&st.stderr)
    );
    let probes = dir.join("probes.txt");
    let run = Command::new("java")
        .arg(format!("-Dferrosuite.probes.out={}", probes.display()))
        .arg("-cp")
        .arg(format!("{}:{}:{jar_cp}", dir.display(), inst.display()))
        .arg("Driver")
        .output()
        .unwrap();
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let theirs: Vec<String> = String::from_utf8_lossy(&run.stdout)
        .lines()
        .map(String::from)
        .collect();
    assert_eq!(ours, theirs, "values differ from the compiled Java");
    let data = ProbeData::parse(&std::fs::read_to_string(&probes).unwrap()).unwrap();
    let java: BTreeMap<u32, (u64, f64)> = data
        .branches
        .iter()
        .map(|(s, (h, d))| (*s, (*h, *d)))
        .collect();
    assert_eq!(hits, java, "branch data differs from the compiled Java");
    let taken = hits.values().filter(|h| h.0 > 0).count();
    eprintln!(
        "{} tests, {} values compared, {} branch outcomes with data ({taken} taken)",
        tests.len(),
        ours.len(),
        hits.len()
    );
    assert!(taken > 50);
}
