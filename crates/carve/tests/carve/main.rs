//! Integration tests of the carving crate: recording the `shop` fixture program
//! (`fixtures/carve/shop`) on a real JVM and reading the store back.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

use std::path::{Path, PathBuf};

use ferrosuite_bytecode::instrument::record::RecordFilter;
use ferrosuite_carve::model::{CallKind, Content, Event, FileState, Outcome, Value};
use ferrosuite_carve::record::{RecordConfig, record};
use ferrosuite_carve::store::Store;
use ferrosuite_testkit::{javac, repo, scratch};

const TMP: &str = env!("CARGO_TARGET_TMPDIR");

/// The shop program compiled (Java 8 class files) into a fresh directory.
fn shop(name: &str) -> PathBuf {
    let dir = scratch(TMP, name);
    let src = repo().join("fixtures/carve/shop/src");
    let sources: Vec<PathBuf> = ["shop/PriceList.java", "shop/Cart.java", "shop/Main.java"]
        .iter()
        .map(PathBuf::from)
        .collect();
    javac(&src, &sources, &[], &dir.join("classes")).unwrap();
    dir
}

/// Recording `package.Main` of the classes in `dir/classes`, the package included, into
/// `dir/trace.db`.
fn program_config(dir: &Path, java: &str, package: &str) -> RecordConfig {
    let mut cfg = RecordConfig::new(
        dir.join("trace.db"),
        vec![
            java.to_string(),
            "-cp".into(),
            dir.join("classes").display().to_string(),
            format!("{package}.Main"),
        ],
    );
    cfg.filter = RecordFilter {
        include: vec![package.into()],
        exclude: Vec::new(),
    };
    cfg
}

fn shop_config(dir: &Path, java: &str) -> RecordConfig {
    program_config(dir, java, "shop")
}

fn method_id(store: &Store, run: i64, class: &str, name: &str) -> u32 {
    store
        .methods(run)
        .unwrap()
        .into_iter()
        .find(|m| m.class == class && m.name == name)
        .unwrap_or_else(|| panic!("{class}.{name} not in the store"))
        .id
}

#[test]
fn records_calls_interactions_and_static_reads_of_the_shop() {
    let dir = shop("record-shop");
    let cfg = shop_config(&dir, "java");
    let s = record(&cfg).unwrap();
    // One cart cannot be priced: the program's own exit code comes back.
    assert_eq!(s.exit_code, 1);
    assert!(s.connected && s.complete, "{s:?}");
    assert_eq!(s.classes, 3);
    assert!(s.failed.is_empty(), "{:?}", s.failed);
    assert_eq!(s.dropped, 0);
    let store = Store::open(&cfg.store).unwrap();
    let run = store.last_run().unwrap().unwrap();
    assert_eq!(run, s.run);
    let total = store
        .calls(run, method_id(&store, run, "shop/Cart", "total"))
        .unwrap();
    assert_eq!(total.len(), 5, "{total:#?}");
    // Each total asks the price list (a collaborator held in a field) for every item, and
    // reads the discount; calls on the cart's own list are state, not interactions.
    let priced: Vec<Vec<&Event>> = total
        .iter()
        .map(|c| {
            c.events
                .iter()
                .filter(|e| matches!(e, Event::Call { .. }))
                .collect()
        })
        .collect();
    assert_eq!(
        priced.iter().map(Vec::len).collect::<Vec<_>>(),
        vec![3, 2, 1, 1, 3]
    );
    let kiwi = &total[3];
    assert_eq!(
        kiwi.outcome,
        Outcome::Threw {
            exception: ferrosuite_carve::model::Thrown {
                class: "java.lang.IllegalStateException".into(),
                message: Some("no price for kiwi".into()),
            }
        }
    );
    let Event::Call { outcome, .. } = priced[3][0] else {
        unreachable!()
    };
    assert!(matches!(outcome, Some(Outcome::Threw { .. })));
    let discounted = &total[4];
    assert_eq!(
        discounted.outcome,
        Outcome::Returned {
            value: Value::Long { v: 585 }
        }
    );
    assert!(discounted.events.iter().any(|e| matches!(
        e,
        Event::StaticRead {
            value: Value::Int { v: 10 },
            ..
        }
    )));
    // The receiver comes with its state: the price list inside, the items.
    let Value::Object { class, fields, .. } = &discounted.receiver else {
        panic!("{:?}", discounted.receiver)
    };
    assert_eq!(class, "shop.Cart");
    assert!(
        fields
            .iter()
            .any(|f| f.name == "count" && f.value == Value::Int { v: 3 })
    );
    // Constructors are recorded with their arguments and the object they built.
    let ctor = store
        .calls(run, method_id(&store, run, "shop/PriceList", "<init>"))
        .unwrap();
    assert_eq!(ctor.len(), 1);
    assert_eq!(ctor[0].kind, CallKind::Constructor);
    assert!(matches!(ctor[0].after, Value::Object { .. }));
    // Repeats (the same cart built from the same price list) are counted, not stored.
    assert!(s.repeats > 0);
}

#[test]
fn a_second_run_is_added_and_a_foreign_file_is_refused_untouched() {
    let dir = shop("record-twice");
    let cfg = shop_config(&dir, "java");
    let a = record(&cfg).unwrap();
    let b = record(&cfg).unwrap();
    assert_eq!(b.run, a.run + 1);
    let text = dir.join("notes.txt");
    std::fs::write(&text, "my notes\n").unwrap();
    let mut bad = shop_config(&dir, "java");
    bad.store = text.clone();
    let e = record(&bad).unwrap_err().to_string();
    assert!(e.contains("notes.txt") && e.contains("not touched"), "{e}");
    assert_eq!(std::fs::read_to_string(&text).unwrap(), "my notes\n");
}

#[test]
fn a_command_that_starts_no_jvm_records_nothing_and_keeps_its_exit_code() {
    let dir = scratch(TMP, "record-nojvm");
    let cfg = RecordConfig::new(
        dir.join("t.db"),
        vec!["sh".into(), "-c".into(), "exit 7".into()],
    );
    let s = record(&cfg).unwrap();
    assert_eq!(s.exit_code, 7);
    assert!(!s.connected);
    assert_eq!(s.calls, 0);
    let e = record(&RecordConfig::new(dir.join("t.db"), Vec::new())).unwrap_err();
    assert!(e.to_string().contains("no command"), "{e}");
}

#[test]
fn records_on_a_java_25_jvm_too() {
    let Some(home) = ["/usr/lib/jvm/temurin-25-jdk-amd64"]
        .iter()
        .map(PathBuf::from)
        .find(|h| h.join("bin/java").is_file())
    else {
        eprintln!("no JDK 25: skipped");
        return;
    };
    let dir = shop("record-java25");
    let cfg = shop_config(&dir, &home.join("bin/java").display().to_string());
    let s = record(&cfg).unwrap();
    assert_eq!(s.exit_code, 1);
    assert!(s.complete && s.calls > 20, "{s:?}");
}

#[test]
fn carves_passing_tests_from_the_shop_run() {
    let dir = shop("carve-shop");
    let cfg = shop_config(&dir, "java");
    record(&cfg).unwrap();
    let mut c = ferrosuite_carve::carve::CarveConfig::new(
        cfg.store.clone(),
        dir.join("classes").display().to_string(),
        dir.join("carved"),
    );
    c.classes = vec!["shop".into()];
    if std::env::var_os("CARVE_RAW").is_some() {
        c.validate = false;
    }
    let report = ferrosuite_carve::carve::carve(&c).unwrap();
    eprintln!("{}", serde_json::to_string_pretty(&report).unwrap());
    let cart = report
        .classes
        .iter()
        .find(|r| r.class == "shop.Cart")
        .unwrap();
    let text = std::fs::read_to_string(cart.file.as_ref().unwrap()).unwrap();
    eprintln!("{text}");
    // Every recorded call of the cart gets a passing test, the private helper's by reflection.
    assert_eq!(cart.passing, cart.calls, "{cart:?}");
    assert!(
        text.contains("CarveSupport.invoke(cart, \"shop.Cart\", \"unitPrice\""),
        "{text}"
    );
    assert!(
        text.contains("inOrder.verify(priceList).priceOf(eq(\"apple\"));"),
        "{text}"
    );
    assert!(text.contains("no price for kiwi"), "{text}");
}

#[test]
fn calls_with_interactions_past_the_event_limit_are_marked_and_not_carved() {
    let dir = shop("carve-event-limit");
    let mut cfg = shop_config(&dir, "java");
    cfg.max_events = 1;
    record(&cfg).unwrap();
    let store = Store::open(&cfg.store).unwrap();
    let run = store.last_run().unwrap().unwrap();
    let total = store
        .calls(run, method_id(&store, run, "shop/Cart", "total"))
        .unwrap();
    // Every total asks the price list and then reads the discount, except the one whose first
    // price is missing: that one alone fits in one event.
    let cut: Vec<bool> = total.iter().map(|c| c.events_cut).collect();
    assert_eq!(cut, vec![true, true, true, false, true], "{total:#?}");
    assert!(total.iter().all(|c| c.events.len() <= 1));
    assert!(total.iter().filter(|c| c.events_cut).all(|c| c.truncated));
    let mut c = ferrosuite_carve::carve::CarveConfig::new(
        cfg.store.clone(),
        dir.join("classes").display().to_string(),
        dir.join("carved"),
    );
    c.validate = false;
    c.classes = vec!["shop.Cart".into()];
    let report = ferrosuite_carve::carve::carve(&c).unwrap();
    assert_eq!(
        report
            .skipped
            .get("interactions past the recording's --max-events")
            .copied(),
        Some(4),
        "{report:#?}"
    );
}

#[test]
fn a_call_on_an_outer_collaborator_inside_an_inner_one_keeps_both_apart() {
    // Outer.run holds the log; the inner worker it builds holds a store that notes each lookup
    // in that log. Inside the worker's call on its store (no frame of its own: the store's one
    // recorded call was the warm-up), the call on the log is the outer call's event; its end
    // must not end the worker's call on the store.
    let dir = scratch(TMP, "record-nest");
    let src = repo().join("fixtures/carve/nest/src");
    let sources: Vec<PathBuf> = ["Log", "Store", "Inner", "Outer", "Main"]
        .iter()
        .map(|c| PathBuf::from(format!("nest/{c}.java")))
        .collect();
    javac(&src, &sources, &[], &dir.join("classes")).unwrap();
    let mut cfg = program_config(&dir, "java", "nest");
    cfg.max_per_method = 1;
    let s = record(&cfg).unwrap();
    assert_eq!(s.exit_code, 0);
    let store = Store::open(&cfg.store).unwrap();
    let run = store.last_run().unwrap().unwrap();
    let work = store
        .calls(run, method_id(&store, run, "nest/Inner", "work"))
        .unwrap();
    assert_eq!(work.len(), 1, "{work:#?}");
    let outcomes: Vec<_> = work[0]
        .events
        .iter()
        .map(|e| match e {
            Event::Call { outcome, .. } => outcome.clone(),
            _ => panic!("{e:?}"),
        })
        .collect();
    assert_eq!(
        outcomes,
        vec![Some(Outcome::Returned {
            value: Value::Int { v: 3 }
        })],
        "{work:#?}"
    );
    let outer = store
        .calls(run, method_id(&store, run, "nest/Outer", "run"))
        .unwrap();
    assert_eq!(outer.len(), 1);
    // "start", then one note per lookup of the two work calls.
    assert_eq!(outer[0].events.len(), 3, "{outer:#?}");
}

#[test]
fn carved_calls_get_the_clock_randomness_files_and_console_they_read() {
    let dir = scratch(TMP, "carve-env");
    let src = repo().join("fixtures/carve/env/src");
    let sources: Vec<PathBuf> = ["Settings", "Chance", "Clock", "Prompt", "Main"]
        .iter()
        .map(|c| PathBuf::from(format!("env/{c}.java")))
        .collect();
    javac(&src, &sources, &[], &dir.join("classes")).unwrap();
    let data = dir.join("data");
    std::fs::create_dir_all(data.join("sub")).unwrap();
    std::fs::write(data.join("settings.txt"), "size = 3\ncolour = teal\n").unwrap();
    let mut cfg = program_config(&dir, "java", "env");
    cfg.command.push(data.display().to_string());
    let s = record(&cfg).unwrap();
    assert_eq!(s.exit_code, 0);
    let store = Store::open(&cfg.store).unwrap();
    let run = store.last_run().unwrap().unwrap();
    let events = |class: &str, name: &str| -> Vec<Event> {
        store
            .calls(run, method_id(&store, run, class, name))
            .unwrap()
            .into_iter()
            .flat_map(|c| c.events)
            .collect()
    };
    let settings = data.join("settings.txt").display().to_string();
    assert!(
        events("env/Settings", "lookup").iter().any(|e| matches!(e,
            Event::File { path, state: FileState::File { content: Content::Text(t) } }
                if *path == settings && t.contains("colour = teal"))),
        "{:#?}",
        events("env/Settings", "lookup")
    );
    assert!(matches!(
        events("env/Chance", "roll").as_slice(),
        [Event::RandomSeed { .. }]
    ));
    assert!(matches!(
        events("env/Chance", "pick").as_slice(),
        [Event::RandomDouble { .. }]
    ));
    assert!(matches!(
        events("env/Clock", "since").as_slice(),
        [Event::Clock { .. }]
    ));
    assert!(matches!(
        events("env/Prompt", "greet").as_slice(),
        [Event::Console { input: Content::Text(t) }] if t == "Ada\n"
    ));
    // The tests must not need the machine's files: the data goes before carving.
    std::fs::remove_dir_all(&data).unwrap();
    let mut c = ferrosuite_carve::carve::CarveConfig::new(
        cfg.store.clone(),
        dir.join("classes").display().to_string(),
        dir.join("carved"),
    );
    c.classes = vec!["env".into()];
    let report = ferrosuite_carve::carve::carve(&c).unwrap();
    eprintln!("{}", serde_json::to_string_pretty(&report).unwrap());
    assert!(
        report.runtime_jar.as_ref().is_some_and(|j| j.is_file()),
        "{report:#?}"
    );
    let source = |class: &str| {
        let r = report.classes.iter().find(|r| r.class == class).unwrap();
        assert_eq!(r.passing, r.calls, "{r:#?}");
        std::fs::read_to_string(r.file.as_ref().unwrap()).unwrap()
    };
    let text = source("env.Settings");
    for want in [
        "Environment.install();",
        "Environment.begin();",
        "colour = teal",
        "Environment.makeDirectory(",
        "sub\");",
        // The file save wrote, checked after the call.
        "assertEquals(\"written by env.Main\", Environment.readFile(",
    ] {
        assert!(text.contains(want), "{want}:\n{text}");
    }
    assert!(
        !data.exists(),
        "a carved test wrote to the machine's file system"
    );
    assert!(source("env.Chance").contains("Environment.nextSeeds("));
    assert!(source("env.Chance").contains("Environment.nextRandoms("));
    assert!(source("env.Clock").contains("Environment.setTime("));
    assert!(source("env.Prompt").contains("Environment.consoleInput(\"Ada\\n\");"));
    // Without the controlled environment, the calls that read files, the clock and randomness
    // have no passing test.
    let mut plain = c.clone();
    plain.environment = false;
    plain.out = dir.join("plain");
    let report = ferrosuite_carve::carve::carve(&plain).unwrap();
    assert!(report.runtime_jar.is_none());
    for class in ["env.Settings", "env.Chance", "env.Clock"] {
        let r = report.classes.iter().find(|r| r.class == class).unwrap();
        assert!(r.passing < r.calls, "{r:#?}");
    }
}

/// Runs a carved test class against other classes; returns the names of the failing tests.
fn failing_against(file: &Path, qualified: &str, classes: &Path) -> Vec<String> {
    use ferrosuite_generate::validate::{Tools, check};
    let home = ferrosuite_bytecode::jdk::JdkSearch::from_env()
        .default_home()
        .unwrap();
    let jdk = ferrosuite_bytecode::jdk::Jdk::at(&home).unwrap();
    let tools = Tools::new(
        &jdk,
        ferrosuite_generate::JarSearch::new(Vec::new(), None, None),
    );
    let source = std::fs::read_to_string(file).unwrap();
    let names: Vec<String> = source
        .lines()
        .filter_map(|l| l.trim().strip_prefix("public void "))
        .filter_map(|l| l.split('(').next())
        .map(str::to_string)
        .collect();
    let dir = scratch(TMP, &format!("run-{qualified}"));
    let rel = PathBuf::from(format!("{}.java", qualified.replace('.', "/")));
    let round = check(
        &tools,
        ferrosuite_emit::JUnit::Five,
        jdk.feature,
        &dir,
        &rel,
        qualified,
        &source,
        &names,
        &[classes.to_path_buf()],
    )
    .unwrap();
    assert!(round.uncompilable.is_empty(), "{:?}", round.uncompilable);
    round.failing
}

#[test]
fn carved_tests_fail_when_a_recorded_behaviour_changes() {
    let dir = shop("carve-regression");
    let cfg = shop_config(&dir, "java");
    record(&cfg).unwrap();
    let mut c = ferrosuite_carve::carve::CarveConfig::new(
        cfg.store.clone(),
        dir.join("classes").display().to_string(),
        dir.join("carved"),
    );
    c.classes = vec!["shop.Cart".into()];
    let report = ferrosuite_carve::carve::carve(&c).unwrap();
    let file = report.classes[0].file.clone().unwrap();
    // The recorded version passes.
    assert!(failing_against(&file, "shop.CartCarvedTest", &dir.join("classes")).is_empty());
    // A regression in Cart.add (the count is overwritten instead of increased): the carved test
    // of the call that added to a non-empty cart fails, and only tests that depend on it.
    let src = repo().join("fixtures/carve/shop/src");
    let changed = scratch(TMP, "carve-regression-src");
    std::fs::create_dir_all(changed.join("shop")).unwrap();
    for f in ["PriceList.java", "Main.java"] {
        std::fs::copy(src.join("shop").join(f), changed.join("shop").join(f)).unwrap();
    }
    let cart = std::fs::read_to_string(src.join("shop/Cart.java")).unwrap();
    assert!(cart.contains("count += quantity;"));
    std::fs::write(
        changed.join("shop/Cart.java"),
        cart.replace("count += quantity;", "count = quantity;"),
    )
    .unwrap();
    let sources: Vec<PathBuf> = ["shop/PriceList.java", "shop/Cart.java", "shop/Main.java"]
        .iter()
        .map(PathBuf::from)
        .collect();
    let changed_classes = dir.join("changed-classes");
    javac(&changed, &sources, &[], &changed_classes).unwrap();
    let failing = failing_against(&file, "shop.CartCarvedTest", &changed_classes);
    assert!(!failing.is_empty(), "no carved test noticed the change");
    assert!(failing.iter().all(|t| t.starts_with("add_")), "{failing:?}");
}
