//! The per-class pipeline of `ferrosuite generate` (from the test cluster to the report; see
//! `docs/ARCHITECTURE.md`), as a library so that tools other than the CLI can run it.
//!
//! For one class under test:
//!
//! 0. choose the JDK and the `--release` by its class file's version (Java 25 class files
//!    need a JDK 25: `JAVA_HOME` when it is one, else an installed one; see
//!    [`ferrosuite_bytecode::jdk`]);
//! 1. analyse it (`cfg`), build its test cluster and harvest its constants (`testcase`);
//! 2. start an execution host that instruments it (`exec`), build its goals (`fitness`);
//! 3. search (`search`: whole-suite GA, MOSA, DynaMOSA, …) and minimise;
//! 4. run the minimised tests once more with observation on: their outcomes and the values
//!    they produce become candidate assertions and expected exceptions (`emit::assertions`);
//! 5. stability: rerun those that can become regression tests (not one that timed out,
//!    crashed its worker or met the sandbox) [`Config::stability_runs`] times, each in a fresh host (new
//!    JVMs) with the clock the code under test reads moved by one of [`CLOCK_SHIFTS_MS`] (so
//!    that dates and times differ even within the same day: a test asserting today's day of
//!    the month would fail tomorrow), other random seeds (another salt of the controlled
//!    environment's seeds; new JVMs' own otherwise) and another test order, every
//!    other one with real identity hash codes (the search and the first run have every one
//!    1: [`ferrosuite_exec::FIXED_IDENTITY_HASHES`]) and the others without the static reset
//!    (static state carries from test to test, as in one JUnit run) and without class-data
//!    sharing, each under another time zone, locale and default charset
//!    ([`RERUN_LOCALES`]); a test whose outcome changes is dropped, an assertion whose value
//!    changes is dropped;
//! 6. emit the JUnit class (`emit`), with JDK signatures of the target release;
//! 7. validate: compile it with `javac --release N` and run it with JUnit, whose jars come
//!    from the test class path, the local Maven repository or `/usr/share/java` ([`jars`],
//!    [`validate`]); tests that do not compile or fail are removed and the class is
//!    emitted again until what is left compiles and passes.
//!
//! `search` and `emit` never depend on each other; this crate is where they meet (which is
//! why it exists: the CLI stays thin and the pipeline stays reusable).
//!
//! ```no_run
//! use ferrosuite_generate::{Config, generate};
//! use ferrosuite_search::engine::{Budget, Quiet};
//! # fn main() -> ferrosuite_generate::Result<()> {
//! let config = Config {
//!     classpath: vec!["fixtures/classes/java8".into()],
//!     budget: Budget::statements(20_000),
//!     ..Config::default()
//! };
//! let g = generate(&config, "examples.Stack", &mut Quiet)?;
//! if let Some(class) = &g.class {
//!     println!("{}", class.source);
//! }
//! # Ok(()) }
//! ```

pub mod batch;
pub mod contents;
pub mod coupling;
pub mod error;
pub mod jars;
pub mod mutation;
pub mod project;
pub mod reach;
pub mod report;
pub mod runtime_jar;
pub mod shard;
pub mod validate;

/// How far the stability reruns move the clock the code under test reads, in milliseconds,
/// one per rerun in turn: 400 days, 3 hours, 7 minutes, 11 seconds and 1 millisecond ahead,
/// and 2 years, 45 days, 5 hours, 17 minutes, 23 seconds and 371 milliseconds back, so that
/// every field of a date and a time (year, month, day, weekday, hour, minute, second,
/// millisecond) differs from the first run's.
pub const CLOCK_SHIFTS_MS: [i64; 2] = [
    (((400 * 24 + 3) * 60 + 7) * 60 + 11) * 1000 + 1,
    -((((2 * 365 + 45) * 24 + 5) * 60 + 17) * 60 + 23) * 1000 - 371,
];

/// The default time zone, locale and charset of each stability rerun in turn (the search and
/// the first run keep the machine's): a value that depends on them (a formatted date, an
/// upper-cased `i` in Turkish, the bytes of a non-ASCII string) changes, and its assertion
/// goes, as it would fail on a machine set otherwise. Chatham is 12:45 ahead of UTC (13:45 in
/// summer), St. John's 3:30 behind: no whole-hour offset hides a difference.
pub const RERUN_LOCALES: [[&str; 4]; 2] = [
    [
        "-Duser.timezone=Pacific/Chatham",
        "-Duser.language=tr",
        "-Duser.country=TR",
        "-Dfile.encoding=ISO-8859-1",
    ],
    [
        "-Duser.timezone=America/St_Johns",
        "-Duser.language=de",
        "-Duser.country=DE",
        "-Dfile.encoding=UTF-8",
    ],
];

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use ferrosuite_bytecode::classpath::ClassPath;
use ferrosuite_bytecode::jdk::{JdkSearch, feature_of_major};
use ferrosuite_cfg::Analyzer;
use ferrosuite_emit::assertions::stable;
use ferrosuite_emit::{
    ClassPathTypes, EmitTest, EmittedClass, TypeInfo, emit_class, unwritten_assertions,
};
use ferrosuite_exec::{Host, HostConfig, Status, TestResult, WorkerProgram};
use ferrosuite_fitness::{GoalSet, names};
use ferrosuite_search::Factory;
use ferrosuite_search::engine::{
    Algorithm, Budget, EngineConfig, Evaluator, Observer, WholeSuite, search,
};
use ferrosuite_testcase::Test;
use ferrosuite_testcase::cluster::{ClusterConfig, TestCluster};
use ferrosuite_testcase::constants::harvest_nested;
use mutation::same_outcome;
use rand_chacha::ChaCha8Rng;
use rand_chacha::rand_core::SeedableRng;

pub use coupling::{CoupledReport, Coupling};
pub use error::{Error, Result};
pub use ferrosuite_bytecode::jdk::Jdk;
pub use jars::JarSearch;
pub use report::{Generated, MutationSummary};
pub use validate::Tools;

/// The coverage criteria the pipeline offers (the command line's `--criteria`): the built-in
/// ones of `ferrosuite-fitness`, and those of other crates, registered here.
#[must_use]
pub fn criteria() -> ferrosuite_fitness::CriterionRegistry {
    registries().0
}

/// Both registries, with what `ferrosuite-cling` adds to each (the coupled-branch criterion
/// and Cling's search).
fn registries() -> (
    ferrosuite_fitness::CriterionRegistry,
    ferrosuite_search::engine::Algorithms,
) {
    let mut criteria = ferrosuite_fitness::CriterionRegistry::builtin();
    let mut algorithms = ferrosuite_search::engine::Algorithms::builtin();
    // MIO lives in a crate of its own, on the search's public interface.
    let registered = ferrosuite_mio::register(&mut algorithms);
    debug_assert!(registered.is_ok(), "mio is registered once: {registered:?}");
    let registered = ferrosuite_cling::register(&mut criteria, &mut algorithms);
    debug_assert!(
        registered.is_ok(),
        "cling is registered once: {registered:?}"
    );
    (criteria, algorithms)
}

/// The search algorithms the pipeline offers (the command line's `--algorithm`, the benches):
/// the built-in ones of `ferrosuite-search` and those of other crates, registered here.
#[must_use]
pub fn algorithms() -> ferrosuite_search::engine::Algorithms {
    registries().1
}

/// Settings of one generation run (every class under test gets the same).
#[derive(Debug, Clone)]
pub struct Config {
    /// The user's class path (directories and jars); the JDK is added.
    pub classpath: Vec<PathBuf>,
    /// Search budget per class (wall time and/or statements executed).
    pub budget: Budget,
    /// Seed of the search.
    pub seed: u64,
    /// The search algorithm (by default the whole-suite GA; any of an
    /// [`Algorithms`](ferrosuite_search::engine::Algorithms) registry).
    pub algorithm: Arc<dyn Algorithm>,
    /// The algorithms' parameters.
    pub engine: EngineConfig,
    /// Operator parameters.
    pub search: ferrosuite_search::Config,
    /// Criteria and goal options.
    pub fitness: ferrosuite_fitness::Config,
    /// JUnit version, class name, per-test timeout of the emitted tests, assertion limits.
    pub emit: ferrosuite_emit::Config,
    /// Worker processes of the execution host.
    pub workers: usize,
    /// Time limit of one test during the search.
    pub test_timeout: Duration,
    /// Reruns for the stability check (each in fresh JVMs, in another order).
    pub stability_runs: usize,
    /// Run the code under test in the controlled environment (a virtual clock, deterministic
    /// randomness: [`HostConfig::environment`]) during the search and the checks.
    pub environment: bool,
    /// `javac --release` of the emitted sources (and the JDK signatures they may use); by
    /// default the Java version of the class under test's class file (8 at least: major 69
    /// gives 25).
    pub release: Option<u16>,
    /// Compile and run the emitted class, removing tests that do not compile or fail.
    pub validate: bool,
    /// The JDK that runs, compiles and validates the tests. By default the one the class
    /// files need (see [`ferrosuite_bytecode::jdk`]): `JAVA_HOME` (else `java` on `PATH`)
    /// when it loads them, else the oldest installed JDK that does.
    pub java_home: Option<PathBuf>,
    /// The test class path: the libraries the tests may use (JUnit, Mockito, the project's
    /// test dependencies), looked up first for JUnit's jars (see [`jars`]).
    pub test_classpath: Vec<PathBuf>,
    /// The local Maven repository searched for JUnit's jars (default `~/.m2/repository`).
    pub maven_repository: Option<PathBuf>,
    /// The Debian-style directory of jars searched last (default `/usr/share/java`).
    pub jar_dir: Option<PathBuf>,
    /// The worker program (default: `ferrosuite-worker` next to the running executable).
    pub worker: Option<WorkerProgram>,
    /// Scratch directory for validation (default: a fresh one under the system's temporary
    /// directory, removed afterwards).
    pub scratch: Option<PathBuf>,
    /// Choose the tests and assertions by mutation analysis ([`mutation`]): candidates up to
    /// [`MUTATION_LIMITS`], stabilised; the tests that kill a mutant or cover something no
    /// other kept test does; of their assertions those that kill a mutant no other kept
    /// assertion kills. On by default.
    pub mutation_assertions: bool,
    /// A caller/callee pair whose coupled branches the run measures on its emitted tests, or
    /// tests ([`Coupling::integration`]).
    pub coupling: Option<Coupling>,
}

/// The candidate assertions mutation analysis chooses from, per statement and per test.
pub const MUTATION_LIMITS: ferrosuite_emit::Limits = ferrosuite_emit::Limits {
    per_statement: 16,
    per_test: 64,
};

/// The share of a time budget mutation analysis may take after the search, and its least
/// time (a statement budget puts no limit on it: the output stays the same for a seed).
pub const MUTATION_TIME_SHARE: f64 = 0.25;
/// See [`MUTATION_TIME_SHARE`].
pub const MUTATION_MIN_TIME: Duration = Duration::from_secs(10);

impl Default for Config {
    fn default() -> Self {
        Config {
            classpath: Vec::new(),
            budget: Budget::time(Duration::from_secs(60)),
            seed: 0,
            algorithm: Arc::new(WholeSuite),
            engine: EngineConfig::default(),
            search: ferrosuite_search::Config {
                mocking: ferrosuite_mocking::Config::default(),
                ..ferrosuite_search::Config::default()
            },
            fitness: ferrosuite_fitness::Config::default(),
            emit: ferrosuite_emit::Config::default(),
            workers: 1,
            test_timeout: Duration::from_secs(3),
            stability_runs: 2,
            environment: true,
            release: None,
            validate: true,
            java_home: None,
            test_classpath: Vec::new(),
            maven_repository: None,
            jar_dir: None,
            worker: None,
            scratch: None,
            mutation_assertions: true,
            coupling: None,
        }
    }
}

fn class_error(cut: &str, e: impl std::fmt::Display) -> Error {
    Error::Class {
        class: cut.to_string(),
        detail: e.to_string(),
    }
}

fn host_config(
    config: &Config,
    jdk: &Jdk,
    instrument: &[String],
    mock_jars: &[PathBuf],
) -> HostConfig {
    HostConfig {
        mock_jars: mock_jars.to_vec(),
        // Private access reads private fields for assertions too.
        observe_private_fields: config.search.mocking.private_access,
        classpath: config.classpath.clone(),
        instrument: instrument.to_vec(),
        workers: config.workers.max(1),
        timeout: config.test_timeout,
        worker: config.worker.clone(),
        java_home: Some(jdk.home.clone()),
        environment: config.environment,
        ..HostConfig::default()
    }
}

/// The class-file major version of `internal` on `cp` (the user's class path, before the JDK
/// is added); `None` when it is not there (the analysis then says so, or finds it in the JDK).
fn class_major(cp: &ClassPath, internal: &str) -> std::result::Result<Option<u16>, String> {
    match cp.find_bytes(internal).map_err(|e| e.to_string())? {
        Some((_, bytes)) if bytes.len() >= 8 && bytes[..4] == [0xCA, 0xFE, 0xBA, 0xBE] => {
            Ok(Some(u16::from_be_bytes([bytes[6], bytes[7]])))
        }
        Some(_) => Err("not a class file (no 0xCAFEBABE at byte offset 0)".into()),
        None => Ok(None),
    }
}

/// Generates, checks and emits the tests of `cut` (binary or internal name); `observer`
/// sees the search's progress.
pub fn generate(config: &Config, cut: &str, observer: &mut dyn Observer) -> Result<Generated> {
    let started = Instant::now();
    let internal = cut.replace('.', "/");
    let binary = internal.replace('/', ".");
    if config.classpath.is_empty() {
        return Err(Error::Class {
            class: binary,
            detail: "the class path is empty".into(),
        });
    }
    let spec: Vec<String> = config
        .classpath
        .iter()
        .map(|p| p.display().to_string())
        .collect();
    let user_cp = ClassPath::parse(&spec.join(":")).map_err(|e| class_error(&binary, e))?;
    // The JDK and the release follow the class file's version.
    let major = class_major(&user_cp, &internal)
        .map_err(|e| class_error(&binary, e))?
        .unwrap_or(ferrosuite_bytecode::jdk::major_of_feature(8));
    let release = config
        .release
        .unwrap_or_else(|| feature_of_major(major).max(8));
    // The JDK must load the class files and compile for the release.
    let needed = major.max(ferrosuite_bytecode::jdk::major_of_feature(release));
    let jdks = JdkSearch::from_env();
    let jdk = jdks
        .choose(config.java_home.as_deref(), needed)
        .map_err(|e| class_error(&binary, e))?;
    let mut notes = Vec::new();
    if config.java_home.is_none()
        && let Some(default) = jdks.default_home()
        && std::fs::canonicalize(&default).ok() != std::fs::canonicalize(&jdk.home).ok()
    {
        let why = match ferrosuite_bytecode::jdk::Jdk::at(&default) {
            Ok(d) => format!(
                "is Java {}, and Java {} is needed (class files of version {major}, release {release})",
                d.feature,
                feature_of_major(needed)
            ),
            Err(e) => e.to_string(),
        };
        notes.push(format!(
            "the default JDK at {} {why}: using Java {} at {}",
            default.display(),
            jdk.feature,
            jdk.home.display()
        ));
    }
    // A pair's coupled branches: what integration testing targets, or what a unit run
    // measures.
    // Analysed on the user's class path alone, as `analyze --pairs` ranks pairs: code the
    // classes inherit from the JDK is not theirs to integrate (nor instrumented).
    let mut pair_note = None;
    let plan = match &config.coupling {
        Some(c) => match ferrosuite_cling::Plan::new(
            &Analyzer::new(&user_cp, ferrosuite_cfg::Config::default()),
            &c.caller,
            &c.callee,
        ) {
            Ok(p) => Some(p),
            Err(e) if c.integration => return Err(class_error(&binary, e)),
            // A unit run only measures the pair: without it, the run goes on.
            Err(e) => {
                pair_note = Some(format!("coupled branches not measured: {e}"));
                None
            }
        },
        None => None,
    };
    let cp = user_cp
        .with_jdk(Some(&jdk.home))
        .map_err(|e| class_error(&binary, e))?;
    let analyzer = Analyzer::new(&cp, ferrosuite_cfg::Config::default());
    let integration = config.coupling.as_ref().is_some_and(|c| c.integration);
    let (internal, binary) = match &plan {
        // The tests are for the callee when it extends the caller (Cling 3.2.5).
        Some(p) if integration => (p.cut.clone(), p.cut.replace('/', ".")),
        _ => (internal, binary),
    };
    let named;
    let config = match &plan {
        Some(p) if integration && config.emit.class_name.is_none() => {
            let mut c = config.clone();
            c.emit.class_name = Some(p.test_class(&config.emit.class_suffix));
            named = c;
            &named
        }
        _ => config,
    };
    let analysis = analyzer
        .class(&internal)
        .map_err(|e| class_error(&binary, e))?;
    // The goals are the CUT's and those of its nested classes (anonymous iterators,
    // strategies, builders): their code runs on the CUT's behalf and JaCoCo counts it too.
    let mut nested = Vec::new();
    let nested_names = cp.nested_classes(&internal).unwrap_or_else(|e| {
        notes.push(format!("nested classes not read: {e}"));
        Vec::new()
    });
    for name in nested_names {
        match analyzer.class(&name) {
            Ok(a) => nested.push((name, a)),
            Err(e) => notes.push(format!(
                "nested class {} has no goals: {e}",
                name.replace('/', ".")
            )),
        }
    }
    let mut instrumented: Vec<String> = std::iter::once(internal.clone())
        .chain(nested.iter().map(|(n, _)| n.clone()))
        .collect();
    notes.extend(pair_note);
    if plan.is_none()
        && config
            .fitness
            .criteria
            .contains(ferrosuite_cling::criterion::NAME)
    {
        notes.push("the coupled-branch criterion has no goals without a pair (--pair R:E)".into());
    }
    // The classes a pair names beyond the CUT's: in integration testing instrumented, goals and
    // mutated, as the code under test; a unit run only probes them when it measures its
    // emitted tests, so that its search is the same as without the pair.
    let mut pair_classes = Vec::new();
    if let Some(p) = &plan {
        for c in &p.classes {
            if !instrumented.contains(c) {
                pair_classes.push(c.clone());
            }
        }
        if integration {
            instrumented.extend(pair_classes.iter().cloned());
        }
    }
    let mut fitness = config.fitness.clone();
    if let Some(p) = &plan
        && (integration || fitness.criteria.contains(ferrosuite_cling::criterion::NAME))
    {
        fitness.criteria = fitness.criteria.with(Arc::new(p.criterion()));
    }
    let pairs_in_goals = fitness.criteria.contains(ferrosuite_cling::criterion::NAME);
    // What the tests' source can name is decided by the compilation target's JDK.
    let release_types = ClassPathTypes::for_release(&cp, release, Some(&jdk.home));
    let plain_types;
    let types: &dyn TypeInfo = match &release_types {
        Ok(t) => t,
        Err(e) => {
            notes.push(format!(
                "JDK signatures of release {release} unavailable ({e}); using the running JDK's"
            ));
            plain_types = ClassPathTypes::new(&cp);
            &plain_types
        }
    };
    let cluster_config = ClusterConfig {
        // The shared state a caller reads through its package's classes is part of what an
        // integration test sets up.
        package_statics: integration,
        ..ClusterConfig::default()
    };
    let mut cluster =
        TestCluster::build(&cp, &internal, &cluster_config).map_err(|e| class_error(&binary, e))?;
    // A generator newer than the target (`List.of` for `--release 8`) would give tests that
    // do not compile: the search does without it.
    let too_new =
        cluster.retain_operations(|op| types.has_member(&op.class, &op.name, &op.descriptor));
    if too_new > 0 {
        notes.push(format!(
            "{too_new} calls of the class path are missing from release {release} and were not used"
        ));
    }
    // A class literal the tests' source cannot name (a JDK class outside the target's API).
    let package = ferrosuite_emit::names::package_of(&internal);
    cluster.retain_class_literals(|c| types.accessible(c, &package));
    if config.environment {
        // Files, console input, the time and seeds, once the code used them.
        cluster.add_environment();
    }
    // Classes whose statics the cluster reads (package statics): instrumented too, so that
    // their static state is reset before every test as the CUT's is (a list one test filled
    // must not make the next one pass).
    for op in cluster.methods.iter().chain(&cluster.fields) {
        let class = op.class.to_string();
        if op.is_static && !instrumented.contains(&class) {
            instrumented.push(class);
        }
    }
    let constants = harvest_nested(&cp, &internal).map_err(|e| class_error(&binary, e))?;
    // Mocks need Mockito in the workers: the one the tests will run with.
    let mut search_config = config.search.clone();
    let jar_search = JarSearch::new(
        config.test_classpath.clone(),
        config.maven_repository.clone(),
        config.jar_dir.clone(),
    );
    let mock_jars = if search_config.mocking.mocks {
        match jar_search.mockito() {
            Ok(jars) => jars,
            Err(e) => {
                search_config.mocking.mocks = false;
                notes.push(format!("no mocks: {e}"));
                Vec::new()
            }
        }
    } else {
        Vec::new()
    };
    let mut factory = match Factory::new(&cluster, constants, search_config) {
        Ok(f) => f,
        Err(ferrosuite_search::Error::NothingToCall(_)) => {
            return Err(Error::NothingToTest {
                class: binary,
                detail: "no accessible constructor, factory, static method or field".into(),
            });
        }
        Err(e) => return Err(e.into()),
    };
    let mut host = Host::start(host_config(config, &jdk, &instrumented, &mock_jars))?;
    if let Some(f) = host
        .ready()
        .init_failures
        .iter()
        .find(|f| f.class == binary)
    {
        return Err(Error::NothingToTest {
            class: binary.clone(),
            detail: format!("its static initialiser throws {}", f.error),
        });
    }
    let mut builder = GoalSet::builder(host.map(), fitness.clone());
    builder
        .add_class(&analysis, cp.load(&internal).ok().as_deref())
        .map_err(|e| class_error(&binary, e))?;
    for (name, a) in &nested {
        // A nested class the instrumentation left alone has no goals; the CUT still has.
        if let Err(e) = builder.add_class(a, cp.load(name).ok().as_deref()) {
            notes.push(format!(
                "nested class {} has no goals: {e}",
                name.replace('/', ".")
            ));
        }
    }
    let pair_analyses: Vec<(String, Arc<ferrosuite_cfg::ClassAnalysis>)> = pair_classes
        .iter()
        .map(|c| Ok((c.clone(), analyzer.class(c)?)))
        .collect::<std::result::Result<_, ferrosuite_cfg::Error>>()
        .map_err(|e| class_error(&binary, e))?;
    if pairs_in_goals {
        for (name, a) in &pair_analyses {
            builder
                .add_class(a, cp.load(name).ok().as_deref())
                .map_err(|e| class_error(&binary, e))?;
        }
    }
    let goals = builder.build();
    let algorithm: Arc<dyn Algorithm> = match &plan {
        Some(p) if integration => match config.algorithm.name() {
            "mosa" | "cling" => Arc::new(p.algorithm(false)),
            "dynamosa" => Arc::new(p.algorithm(true)),
            other => {
                notes.push(format!(
                    "the {other} search does not keep a covering method in each test (Cling's \
                     repair needs mosa, dynamosa or cling)"
                ));
                Arc::clone(&config.algorithm)
            }
        },
        _ => Arc::clone(&config.algorithm),
    };
    let mut eval = Evaluator::new(&mut host, goals, config.budget);
    let mut rng = ChaCha8Rng::seed_from_u64(config.seed);
    let result = search(
        &*algorithm,
        &config.engine,
        &mut factory,
        &mut eval,
        &mut rng,
        observer,
    )?;
    let goals = eval.into_goals();
    let search_host = host.stats();
    if search_host.crashes > 0 {
        // Each costs a JVM start: a class whose tests keep killing the JVM is searched slowly.
        notes.push(format!(
            "{} search test(s) ended their worker's JVM; the first: {}",
            search_host.crashes,
            search_host
                .first_crash
                .as_deref()
                .unwrap_or("no reason given")
        ));
    }
    let branch: Vec<_> = goals.goals_of(names::BRANCH).map(|g| g.id).collect();
    let branches_covered = branch.iter().filter(|g| result.covered.contains(g)).count();
    let mut out = Generated {
        cut: binary.clone(),
        class: None,
        goals: result.goals,
        covered: result.covered.len(),
        branches: branch.len(),
        branches_covered,
        statements_executed: result.usage.statements,
        tests_executed: result.usage.tests,
        search_host,
        search_seconds: result.elapsed.as_secs_f64(),
        seconds: 0.0,
        mutation_seconds: 0.0,
        validation_seconds: 0.0,
        tests_found: result.tests.len(),
        tests_emitted: 0,
        tests_unstable: 0,
        tests_foreign_exception: 0,
        tests_internal: 0,
        assertions_unstable: 0,
        tests_inaccessible: 0,
        assertions_inaccessible: 0,
        mutation: None,
        tests_uncompilable: 0,
        tests_raw_types: 0,
        tests_failing: 0,
        tests_skipped: 0,
        java: jdk.feature,
        release,
        environment: false,
        coupled_branches: None,
        notes,
    };
    // The final run, with observation, and the reruns.
    let mut tests = result.tests;
    if config.mutation_assertions {
        // Variants whose arrays have elements: mutation analysis keeps what matters.
        let variants: Vec<Test> = tests.iter().filter_map(contents::with_contents).collect();
        tests.extend(variants);
    }
    let first = host.run(&tests, true)?;
    drop(host);
    let sets_up = tests.iter().any(has_environment_statement);
    // Tests that read the controlled environment reproduce it when emitted (hooks in the
    // class; the runtime jar and Byte Buddy's agent, which comes with Mockito, on the test
    // class path); the reruns then leave it as the search had it.
    let reproduce = config.environment
        && (sets_up || first.iter().any(|r| r.reads_environment))
        && match jar_search.mockito() {
            Ok(jars) if jars.iter().any(|j| is_agent(j)) => true,
            found => {
                out.notes.push(format!(
                    "the tests do not reproduce the controlled environment (assertions on \
                     the clock and randomness are left out): no Byte Buddy agent{}",
                    found.err().map_or_else(String::new, |e| format!(" ({e})"))
                ));
                false
            }
        };
    out.environment = reproduce;
    let (tests, first) = if sets_up && !reproduce {
        // Environment statements need the runtime in the emitted tests: without it their
        // tests go.
        let keep: Vec<bool> = tests
            .iter()
            .map(|t| !has_environment_statement(t))
            .collect();
        out.notes.push(format!(
            "{} tests that set up files, console input, the time or seeds were left out",
            keep.iter().filter(|k| !**k).count()
        ));
        let first: Vec<TestResult> = first
            .into_iter()
            .zip(&keep)
            .filter_map(|(r, k)| k.then_some(r))
            .collect();
        let mut k = keep.iter();
        tests.retain(|_| *k.next().unwrap_or(&true));
        (tests, first)
    } else {
        (tests, first)
    };
    // Mutation analysis chooses from more candidates than the plain limits keep.
    let limits = if config.mutation_assertions {
        MUTATION_LIMITS
    } else {
        config.emit.limits
    };
    // The regression test each run can become (`None`: it timed out, crashed its worker or
    // met the sandbox). Only those are rerun: the others go whatever the reruns show, and a
    // hanging one would cost each rerun a time limit and a new worker.
    let built: Vec<Option<EmitTest>> = tests
        .iter()
        .zip(&first)
        .map(|(t, r)| EmitTest::from_result(t, r, &limits))
        .collect();
    let emittable: Vec<usize> = (0..built.len()).filter(|&i| built[i].is_some()).collect();
    let mut reruns: Vec<Vec<TestResult>> = Vec::new();
    for k in 0..config.stability_runs {
        if emittable.is_empty() {
            break;
        }
        let mut order: Vec<usize> = emittable.clone();
        if k % 2 == 0 {
            order.reverse();
        } else {
            let half = order.len() / 2;
            order.rotate_left(half);
        }
        let shuffled: Vec<Test> = order.iter().map(|&i| tests[i].clone()).collect();
        let mut hc = host_config(config, &jdk, &instrumented, &mock_jars);
        if !reproduce {
            // What the emitted tests will not reproduce moves, so what depends on it shows.
            hc.clock_shift_ms = CLOCK_SHIFTS_MS[k % CLOCK_SHIFTS_MS.len()];
            hc.random_salt = k as i64 + 1;
            hc.clock_step_ms = k as i64 + 2;
        }
        hc.jvm_options
            .extend(RERUN_LOCALES[k % RERUN_LOCALES.len()].map(String::from));
        if k % 2 == 1 {
            // Static state carried from test to test, as in one JUnit run (the search resets
            // it before every test): a test whose values depend on what an earlier test left
            // in a static field shows it here, in an order other than the emitted one.
            hc.probes.static_reset = false;
            // Without the class-data-sharing archive: the identity hashes of the JDK's own
            // objects (a `Class`'s hash code) differ from a run with it.
            for o in &mut hc.jvm_options {
                if o.starts_with("-Xshare:") {
                    *o = "-Xshare:off".into();
                }
            }
        }
        if k % 2 == 0 {
            // Real identity hash codes, where the search and the first run had all of them 1:
            // values that show identity hashes (or iteration orders that follow them)
            // change, and their assertions go.
            hc.real_identity_hashes();
        }
        let mut fresh = Host::start(hc)?;
        let results = fresh.run(&shuffled, true)?;
        let mut back: Vec<Option<TestResult>> = vec![None; tests.len()];
        for (&i, r) in order.iter().zip(results) {
            back[i] = Some(r);
        }
        reruns.push(
            back.into_iter()
                .map(|r| r.unwrap_or_else(|| TestResult::lost(Status::Crashed("not rerun".into()))))
                .collect(),
        );
    }
    // The pairs each test covers (keys `mutation::PAIR | goal`): the reduction keeps them
    // covered.
    let pair_goals: std::collections::BTreeSet<ferrosuite_fitness::GoalId> = goals
        .goals_of(ferrosuite_cling::criterion::NAME)
        .map(|g| g.id)
        .collect();
    let pair_keys: Vec<std::collections::BTreeSet<u64>> = if pair_goals.is_empty() {
        Vec::new()
    } else {
        tests
            .iter()
            .zip(&first)
            .map(|(t, r)| {
                let trace = ferrosuite_fitness::Trace::from_result(&goals, t, r);
                goals
                    .covered(&trace)
                    .into_iter()
                    .filter(|g| pair_goals.contains(g))
                    .map(|g| mutation::PAIR | u64::from(g.0))
                    .collect()
            })
            .collect()
    };
    let mut candidates: Vec<EmitTest> = Vec::new();
    // Per candidate, the pairs its test covered (a shortened test keeps what ran before).
    let mut candidate_keys: Vec<std::collections::BTreeSet<u64>> = Vec::new();
    for (i, (r, e)) in first.iter().zip(built).enumerate() {
        let Some(mut e) = e else {
            out.tests_unstable += 1;
            continue;
        };
        let again: Vec<&TestResult> = reruns.iter().filter_map(|rr| rr.get(i)).collect();
        if again.iter().any(|a| !same_outcome(r, a)) {
            out.tests_unstable += 1;
            continue;
        }
        let kept = stable(&e.test, &e.assertions, &again);
        out.assertions_unstable += e.assertions.len() - kept.len();
        e.assertions = kept;
        // The exception's message only when every rerun (other zones, locales, charsets)
        // gave the same.
        let message = |r: &TestResult| r.first_exception().and_then(|(_, t)| t.message.clone());
        if e.message.is_some() && again.iter().any(|a| message(a) != message(r)) {
            e.message = None;
        }
        if let Some((at, _)) = e.expected {
            let thrown = r.first_exception().map(|(_, t)| t);
            if !thrown.is_some_and(|t| thrown_by_code_under_test(t, &internal, types)) {
                out.tests_foreign_exception += 1;
                e.truncate(at);
                if e.test.is_empty() {
                    continue;
                }
            }
        }
        candidates.push(e);
        candidate_keys.push(pair_keys.get(i).cloned().unwrap_or_default());
    }
    // Tests that would name a class the test's package cannot see do not compile: out.
    let package = ferrosuite_emit::names::package_of(&internal);
    for t in &mut candidates {
        out.assertions_inaccessible += t.drop_inaccessible_assertions(types, &package);
    }
    let accessible: Vec<bool> = candidates
        .iter()
        .map(|t| match t.inaccessible_class(types, &package) {
            Some(c) => {
                out.tests_inaccessible += 1;
                if out.tests_inaccessible == 1 {
                    out.notes.push(format!(
                        "tests using {c} (not accessible from package {package}) were left out"
                    ));
                }
                false
            }
            None => true,
        })
        .collect();
    let mut k = accessible.iter();
    candidates.retain(|_| *k.next().unwrap_or(&true));
    let mut k = accessible.iter();
    candidate_keys.retain(|_| *k.next().unwrap_or(&true));
    // Assertions the source cannot write go before the choice, which would otherwise count
    // their kills. (When the class cannot be written at all, emission says why later.)
    if let Ok(unwritten) = unwritten_assertions(&internal, &candidates, &config.emit, types) {
        for (c, drop) in candidates.iter_mut().zip(unwritten) {
            out.assertions_inaccessible += drop.len();
            let mut k = 0;
            c.assertions.retain(|_| {
                k += 1;
                !drop.contains(&(k - 1))
            });
        }
    }
    if config.mutation_assertions && !candidates.is_empty() {
        let mut hc = host_config(config, &jdk, &instrumented, &mock_jars);
        hc.mutation = Some(ferrosuite_bytecode::instrument::mutation::Config::default());
        let deadline = config
            .budget
            .time
            .map(|t| Instant::now() + t.mul_f64(MUTATION_TIME_SHARE).max(MUTATION_MIN_TIME));
        let plain = config.emit.limits;
        let analysing = Instant::now();
        let chosen =
            mutation::choose_assertions(hc, &mut candidates, deadline, &plain, &candidate_keys);
        out.mutation_seconds = analysing.elapsed().as_secs_f64();
        match chosen {
            Ok(m) => out.mutation = Some(m),
            Err(e) => {
                // Without the analysis the suite keeps what it would without it.
                out.notes.push(format!(
                    "mutation analysis failed ({e}): assertions kept by the plain limits"
                ));
                for c in &mut candidates {
                    c.assertions = ferrosuite_emit::assertions::limited(&c.assertions, &plain);
                }
            }
        }
    }
    let with_environment;
    let config = if reproduce {
        let mut c = config.clone();
        c.emit.environment = true;
        with_environment = c;
        &with_environment
    } else {
        config
    };
    let class = if config.validate {
        let tools = Tools::new(&jdk, jar_search);
        let validating = Instant::now();
        let class = validate::validated(
            config,
            &tools,
            release,
            &internal,
            &mut candidates,
            types,
            &mut out,
        )?;
        out.validation_seconds = validating.elapsed().as_secs_f64();
        class
    } else if candidates.is_empty() {
        None
    } else {
        Some(emit_class(&internal, &candidates, &config.emit, types)?)
    };
    out.tests_emitted = class.as_ref().map_or(0, |c| c.test_names.len());
    if class.is_some() {
        let internals = ferrosuite_search::mocks::LastResorts::of(&cluster);
        out.tests_internal = candidates
            .iter()
            .filter(|c| internals.uses_internals(&c.test))
            .count();
    }
    if let Some(p) = &plan {
        let tests: Vec<Test> = if class.is_some() {
            candidates.iter().map(|c| c.test.clone()).collect()
        } else {
            Vec::new()
        };
        // The emitted tests once more, on a host that probes the pair's classes too.
        let mut probed = instrumented.clone();
        probed.extend(pair_classes.iter().cloned());
        let hc = host_config(config, &jdk, &probed, &mock_jars);
        let mut analyses = vec![analysis.clone()];
        analyses.extend(nested.iter().map(|(_, a)| a.clone()));
        analyses.extend(pair_analyses.iter().map(|(_, a)| a.clone()));
        match coupling::measure_pairs(hc, &config.fitness, &analyses, p, &tests) {
            Ok(report) => out.coupled_branches = Some(report),
            // The test class stands without the measurement.
            Err(e) => out
                .notes
                .push(format!("coupled branches not measured: {e}")),
        }
    }
    out.class = class;
    out.seconds = started.elapsed().as_secs_f64();
    Ok(out)
}

/// Whether `thrown` passed through the class under test (`internal`), one of its nested
/// classes or a superclass of it: an exception the code under test threw or let through, not
/// one the test's own statement caused.
fn thrown_by_code_under_test(
    thrown: &ferrosuite_exec::Thrown,
    internal: &str,
    types: &dyn TypeInfo,
) -> bool {
    let mut class = Some(internal.to_string());
    for _ in 0..16 {
        let Some(c) = class else { break };
        if c == "java/lang/Object" {
            break;
        }
        if thrown.through(&c.replace('/', ".")) {
            return true;
        }
        class = types.superclass(&c);
    }
    false
}

/// Whether a jar is Byte Buddy's agent (`byte-buddy-agent.jar`, `byte-buddy-agent-1.15.4.jar`).
/// Whether a test calls an [environment statement](ferrosuite_testcase::cluster::environment).
fn has_environment_statement(t: &Test) -> bool {
    t.statements.iter().any(|s| {
        matches!(s, ferrosuite_testcase::Statement::Method { class, .. }
            if ferrosuite_testcase::cluster::environment::is_environment_class(class))
    })
}

fn is_agent(jar: &Path) -> bool {
    jar.file_name()
        .is_some_and(|n| n.to_string_lossy().starts_with("byte-buddy-agent"))
}

/// Writes `class` under the source root `out` (`out/p/q/FooTest.java`). An existing file is
/// an error unless `overwrite`: the user's files are never replaced silently.
pub fn write(out: &Path, class: &EmittedClass, overwrite: bool) -> Result<PathBuf> {
    let path = out.join(&class.path);
    if path.exists() && !overwrite {
        return Err(Error::Exists(path));
    }
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent)
            .map_err(|e| Error::Tool(format!("{}: {e}", parent.display())))?;
    }
    // Written whole or not at all: a file cut short would begin with the marker and a later
    // run would take the class as done.
    write_whole(&path, class.source.as_bytes())?;
    Ok(path)
}

/// Writes `bytes` to `path` whole or not at all (a temporary file beside it, then a rename).
pub(crate) fn write_whole(path: &Path, bytes: &[u8]) -> Result<()> {
    let file_name = path
        .file_name()
        .map_or_else(String::new, |f| f.to_string_lossy().into_owned());
    let temp = path.with_file_name(format!(".{file_name}.{}.tmp", std::process::id()));
    std::fs::write(&temp, bytes)
        .and_then(|()| std::fs::rename(&temp, path))
        .map_err(|e| {
            let _ = std::fs::remove_file(&temp);
            Error::Tool(format!("{}: {e}", path.display()))
        })
}
