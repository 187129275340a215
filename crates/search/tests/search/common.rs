//! Fixtures, clusters and checks shared by the tests.

use std::path::PathBuf;
use std::sync::OnceLock;

use std::collections::HashMap;

use ferrosuite_bytecode::classpath::ClassPath;
use ferrosuite_bytecode::descriptor::{FieldType, MethodDescriptor};
use ferrosuite_bytecode::hierarchy::Hierarchy;
use ferrosuite_search::factory::{value_types, wanted};
use ferrosuite_search::suite::TestStore;
use ferrosuite_search::{Config, Factory, Suite};
use ferrosuite_testcase::cluster::{ClusterConfig, Operation, TestCluster};
use ferrosuite_testcase::constants::{Constants, harvest_nested};
use ferrosuite_testcase::statement::{Statement, Test};
pub use ferrosuite_testkit::subject as subject_jar;

/// The Java 8 fixtures compiled by `fixtures/build.sh`, once per test run.
pub fn fixtures() -> &'static PathBuf {
    ferrosuite_testkit::java8(env!("CARGO_TARGET_TMPDIR"))
}

pub fn fixture_cp() -> &'static ClassPath {
    static CP: OnceLock<ClassPath> = OnceLock::new();
    CP.get_or_init(|| ClassPath::parse(&format!("{}:jrt", fixtures().display())).unwrap())
}

/// A cluster with the constants of its CUT.
pub struct Subject {
    pub cluster: TestCluster,
    pub constants: Constants,
}

impl Subject {
    pub fn build(cp: &ClassPath, cut: &str) -> Subject {
        Subject {
            cluster: TestCluster::build(cp, cut, &ClusterConfig::default()).unwrap(),
            constants: harvest_nested(cp, cut).unwrap(),
        }
    }

    pub fn factory(&self, config: Config) -> Factory<'_> {
        Factory::new(&self.cluster, self.constants.clone(), config).unwrap()
    }
}

pub fn stack() -> &'static Subject {
    static S: OnceLock<Subject> = OnceLock::new();
    S.get_or_init(|| Subject::build(fixture_cp(), "examples/Stack"))
}

pub fn registry() -> &'static Subject {
    static S: OnceLock<Subject> = OnceLock::new();
    S.get_or_init(|| Subject::build(fixture_cp(), "cluster/Registry"))
}

/// Whether the statement calls or accesses a member of `cut`.
pub fn touches_cut(s: &Statement, cut: &str) -> bool {
    match s {
        Statement::Constructor { class, .. }
        | Statement::Method { class, .. }
        | Statement::FieldRead { class, .. }
        | Statement::FieldWrite { class, .. }
        | Statement::EnumConstant { class, .. } => &**class == cut,
        _ => false,
    }
}

/// The invariants every operator keeps.
pub fn check_test(t: &Test, config: &Config) {
    if let Err(e) = t.validate() {
        panic!("{e}\n{t}");
    }
    assert!(
        t.len() <= config.max_test_length,
        "{} statements:\n{t}",
        t.len()
    );
}

/// The invariants of a suite: within N tests, each in the store, not empty, of the length the
/// suite records, and valid.
pub fn check_suite(s: &Suite, store: &TestStore, config: &Config) {
    assert!(s.len() <= config.max_suite_size, "{} tests", s.len());
    for t in &s.tests {
        let test = store
            .get(t.id)
            .expect("every test of a suite is in the store");
        assert!(!test.is_empty(), "an empty test stays in the suite");
        assert_eq!(t.len, test.len(), "the suite's record of a test's length");
        check_test(test, config);
    }
}

/// Checks with the real class hierarchy that every value is passed where Java accepts it:
/// receivers of the member's class, arguments of the parameter types (the types the cluster's
/// generic signatures give, when they are more precise than the descriptor), field and array
/// element values of the field and component types.
pub struct TypeCheck<'c> {
    hierarchy: Hierarchy<'c>,
    ops: HashMap<(String, String, String), &'c Operation>,
}

impl<'c> TypeCheck<'c> {
    pub fn new(cp: &'c ClassPath, cluster: &'c TestCluster) -> Self {
        let mut ops = HashMap::new();
        for op in cluster
            .members()
            .chain(cluster.types.values().flat_map(|t| &t.generators))
        {
            ops.insert(
                (
                    op.class.to_string(),
                    op.name.to_string(),
                    op.descriptor.to_string(),
                ),
                op,
            );
        }
        TypeCheck {
            hierarchy: Hierarchy::new(cp),
            ops,
        }
    }

    fn fits(&self, have: &FieldType, want: &FieldType) -> bool {
        self.hierarchy.is_assignable(have, want).unwrap_or(false)
    }

    pub fn check(&self, t: &Test) {
        let types = value_types(&t.statements).unwrap();
        let ty = |r: &ferrosuite_testcase::VarRef| types[r.index()].clone().unwrap();
        let bad = |what: String| panic!("{what}\n{t}");
        for (i, s) in t.statements.iter().enumerate() {
            let (class, name, desc, receiver, args) = match s {
                Statement::Constructor {
                    class,
                    descriptor,
                    args,
                } => (class, "<init>", descriptor, None, args.clone()),
                Statement::Method {
                    class,
                    name,
                    descriptor,
                    receiver,
                    args,
                } => (class, &**name, descriptor, *receiver, args.clone()),
                Statement::FieldRead {
                    class, receiver, ..
                } => {
                    if let Some(r) = receiver {
                        if !self.fits(&ty(r), &FieldType::Object(class.to_string())) {
                            bad(format!("statement {i}: receiver {r} is no {class}"));
                        }
                    }
                    continue;
                }
                Statement::FieldWrite {
                    class,
                    name,
                    descriptor,
                    receiver,
                    value,
                } => {
                    let want = self
                        .ops
                        .get(&(class.to_string(), name.to_string(), descriptor.to_string()))
                        .and_then(|op| op.ret.as_ref())
                        .map_or_else(|| FieldType::parse(descriptor).unwrap(), wanted);
                    if !self.fits(&ty(value), &want) {
                        bad(format!("statement {i}: {value} does not fit field {name}"));
                    }
                    if let Some(r) = receiver {
                        if !self.fits(&ty(r), &FieldType::Object(class.to_string())) {
                            bad(format!("statement {i}: receiver {r} is no {class}"));
                        }
                    }
                    continue;
                }
                Statement::ArrayStore { array, value, .. } => {
                    let Some(FieldType::Array(c)) = types[array.index()].clone() else {
                        bad(format!("statement {i}: {array} is no array"));
                        continue;
                    };
                    if !self.fits(&ty(value), &c) {
                        bad(format!("statement {i}: {value} does not fit the array"));
                    }
                    continue;
                }
                _ => continue,
            };
            if let Some(r) = receiver {
                if !self.fits(&ty(&r), &FieldType::Object(class.to_string())) {
                    bad(format!("statement {i}: receiver {r} is no {class}"));
                }
            }
            let params: Vec<FieldType> =
                match self
                    .ops
                    .get(&(class.to_string(), name.to_string(), desc.to_string()))
                {
                    Some(op) => op.params.iter().map(wanted).collect(),
                    None => MethodDescriptor::parse(desc).unwrap().params,
                };
            for (a, p) in args.iter().zip(&params) {
                if !self.fits(&ty(a), p) {
                    bad(format!(
                        "statement {i}: argument {a} of type {} does not fit {p}",
                        ty(a)
                    ));
                }
            }
        }
    }
}
