//! Test construction on a test cluster (whole-suite paper, Sections III-B and III-E2/3).
//!
//! A [`Factory`] holds the cluster of the class under test (CUT), the [`Config`] and the
//! [`Seeds`] for values. It builds statements only through *splices*: new statements are
//! generated after the first `pos` statements of a test, may refer only to those and to each
//! other, and the statements after `pos` are renumbered behind them. A splice that would make
//! the test longer than L ([`Config::max_test_length`]) is abandoned and leaves the test as it
//! was, so every test stays valid and within its limit.
//!
//! # Insertion (paper III-E2, *insert*)
//!
//! [`Factory::insert_random`] inserts at a random position, each with probability 1/3:
//!
//! 1. a random call on the CUT ([`Factory::insert_cut_call`]): a constructor, a method, or a
//!    field read or write, with a receiver of the CUT's type for instance members;
//! 2. a call on an existing non-null value ([`Factory::insert_call_on_value`]): a CUT instance
//!    member on a value of the CUT's type, or one of the cluster's
//!    [result methods](ferrosuite_testcase::cluster::TestCluster::result_methods) on a value of
//!    a class the CUT returned (`iterator()` on the `Iterable` of `Splitter.split`, then
//!    `next()` on the iterator) or of a library class it takes (`options.addOption(…)`) — the
//!    receiver is picked first, then the call;
//! 3. a call on the CUT that takes an existing value as one of its parameters
//!    ([`Factory::insert_call_with_value`]).
//!
//! The last two fall back to the first when no existing value fits.
//!
//! # Parameters
//!
//! Each parameter (and a receiver) is, in order of the checks:
//!
//! - `null` with probability [`Config::null_probability`] (0.1), for reference parameters
//!   (never for a receiver);
//! - an existing earlier value of a fitting type, with probability
//!   [`Config::object_reuse_probability`] (0.9) for references and
//!   [`Config::primitive_reuse_probability`] (0.5) for primitives and strings;
//! - a new value: a constant for primitives and strings ([`values`](crate::values)); for a
//!   class, one of the cluster's generators for it or its subtypes (constructors, static
//!   factories, static fields, enum constants, `valueOf` for boxes; a string when `String` is
//!   a listed subtype, as for `Object` or `CharSequence`), with its own parameters generated
//!   the same way one level deeper; for an array, `new T[n]` with n uniform in
//!   \[0, [`Config::max_array_length`]\] and a store of a generated value into each element;
//!   for an unbounded type variable erased to `Object`, a value of the cluster's
//!   erased-generic fallback (`Integer`, as in the paper's Section IV-A);
//! - `null` when nothing else works or beyond [`Config::max_recursion`] levels.
//!
//! A `Class` parameter is first, unless the draw for `null` says otherwise, a class literal
//! (`Number.class`) among the cluster's
//! [candidates](ferrosuite_testcase::cluster::TestCluster::class_literals) that fit the
//! parameter's generic type (`literals.rs`); only then does it follow the steps above.
//!
//! "Fitting" uses what the cluster knows about subtypes (a type's listed subtypes and the types
//! its generators return, plus `Object` for every reference), see [`Factory::assignable`].
//!
//! # Random tests (paper III-E3)
//!
//! [`Factory::random_test`] chooses r uniformly in \[1, L\] and applies the insertion operator
//! to an empty test until it has at least r statements.
//!
//! ```no_run
//! use ferrosuite_bytecode::classpath::ClassPath;
//! use ferrosuite_search::{Config, Factory};
//! use ferrosuite_testcase::cluster::{ClusterConfig, TestCluster};
//! use ferrosuite_testcase::constants::harvest_nested;
//! use rand_chacha::ChaCha8Rng;
//! use rand_chacha::rand_core::SeedableRng;
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let cp = ClassPath::parse("fixtures/classes/java8:jrt")?;
//! let cluster = TestCluster::build(&cp, "examples/Stack", &ClusterConfig::default())?;
//! let constants = harvest_nested(&cp, "examples/Stack")?;
//! let factory = Factory::new(&cluster, constants, Config::default())?;
//! let mut rng = ChaCha8Rng::seed_from_u64(42);
//! let test = factory.random_test(&mut rng)?;
//! assert!(test.validate().is_ok() && test.len() <= 80);
//! println!("{test}"); // examples.Stack v0 = new examples.Stack(); int v1 = 7; v0.push(v1); …
//! # Ok(()) }
//! ```

mod insert;
mod literals;
mod splice;
#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::panic)]
pub(crate) mod tests;

use std::borrow::Cow;
use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::sync::Arc;

use ferrosuite_bytecode::descriptor::FieldType;
use ferrosuite_executor::Resources;
use ferrosuite_testcase::cluster::TypeKind;
use ferrosuite_testcase::cluster::environment::Resource;
use ferrosuite_testcase::cluster::{
    GenericType, Operation, OperationKind, TestCluster, TypeUse, jdk_default_subtypes,
};
use ferrosuite_testcase::constants::Constants;
use ferrosuite_testcase::statement::{MockCalls, Prim, Statement, Test, VarRef};
use foldhash::fast::FixedState;

use crate::config::Config;
use crate::error::{Error, Result};
use crate::values::{ObservedPool, Seeds};

const OBJECT: &str = "java/lang/Object";
/// Tests whose mock feedback the factory keeps at most (it starts over past this).
const MAX_MOCK_FEEDBACK: usize = 1 << 14;
const STRING: &str = "java/lang/String";

/// Something a statement can do with a cluster operation: perform it (construct, call, read a
/// field, name an enum constant) or write the field it names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Call<'a> {
    /// The operation's own statement ([`Operation::statement`]).
    Op(&'a Operation),
    /// A write of a non-final field.
    Write(&'a Operation),
}

impl<'a> Call<'a> {
    /// The operation.
    #[must_use]
    pub fn operation(self) -> &'a Operation {
        match self {
            Call::Op(op) | Call::Write(op) => op,
        }
    }

    /// Whether the statement needs a receiver.
    #[must_use]
    pub fn needs_receiver(self) -> bool {
        self.operation().needs_receiver()
    }

    /// The receiver's type (the class the statement names), for instance members.
    #[must_use]
    pub fn receiver_type(self) -> Option<FieldType> {
        self.needs_receiver()
            .then(|| FieldType::Object(String::from(&*self.operation().class)))
    }

    /// Parameter types to generate values for ([`wanted`]), each with whether it is an
    /// unbounded type variable erased to `Object`.
    #[must_use]
    pub fn params(self) -> Vec<(FieldType, bool)> {
        match self {
            Call::Op(op) => op
                .params
                .iter()
                .map(|p| (wanted(p), p.erased_generic))
                .collect(),
            Call::Write(op) => op
                .ret
                .iter()
                .map(|r| (wanted(r), r.erased_generic))
                .collect(),
        }
    }

    /// The type of the value the statement defines (`None` for `void` and field writes).
    #[must_use]
    pub fn ret(self) -> Option<FieldType> {
        self.ret_ref().cloned()
    }

    /// [`ret`](Self::ret) borrowed from the operation.
    #[must_use]
    pub fn ret_ref(self) -> Option<&'a FieldType> {
        match self {
            Call::Op(op) => op.ret.as_ref().map(|r| &r.ty),
            Call::Write(_) => None,
        }
    }

    /// The statement, with `receiver` used only by instance members and `args` in parameter
    /// order (one value for a field write).
    /// A private member's statement is a [`Statement::Private`] (reflection in the test).
    #[must_use]
    pub fn statement(self, receiver: Option<VarRef>, args: Vec<VarRef>) -> Option<Statement> {
        let s = match self {
            Call::Op(op) => op.statement(receiver, args),
            Call::Write(op) => Statement::FieldWrite {
                class: op.class.clone(),
                name: op.name.clone(),
                descriptor: op.descriptor.clone(),
                receiver: if op.needs_receiver() { receiver } else { None },
                value: *args.first()?,
            },
        };
        Some(if self.is_private() {
            Statement::Private(Box::new(s))
        } else {
            s
        })
    }

    /// Whether the member is private (reached by reflection).
    #[must_use]
    pub fn is_private(self) -> bool {
        self.operation().access & ferrosuite_bytecode::access::PRIVATE != 0
    }

    /// Whether `s` is this call's kind of statement on the same member.
    #[must_use]
    pub fn same_member(self, s: &Statement) -> bool {
        let op = self.operation();
        if self.is_private() != matches!(s, Statement::Private(_)) {
            return false;
        }
        match (self, s.unwrapped()) {
            (
                Call::Op(_),
                Statement::Constructor {
                    class, descriptor, ..
                },
            ) => {
                op.kind == OperationKind::Constructor
                    && *class == op.class
                    && *descriptor == op.descriptor
            }
            (
                Call::Op(_),
                Statement::Method {
                    class,
                    name,
                    descriptor,
                    ..
                },
            ) => {
                op.kind == OperationKind::Method
                    && *class == op.class
                    && *name == op.name
                    && *descriptor == op.descriptor
            }
            (Call::Op(_), Statement::FieldRead { class, name, .. }) => {
                op.kind == OperationKind::Field && *class == op.class && *name == op.name
            }
            (Call::Op(_), Statement::EnumConstant { class, name }) => {
                op.kind == OperationKind::EnumConstant && *class == op.class && *name == op.name
            }
            (Call::Write(_), Statement::FieldWrite { class, name, .. }) => {
                *class == op.class && *name == op.name
            }
            _ => false,
        }
    }
}

/// The type to generate for a parameter: its erased type, or the class its generic type names
/// once the type arguments of generic supertypes are substituted. (`MutableInt` inherits
/// `setValue(T)` from `Mutable<Number>`: the descriptor says `Object`, the value must be a
/// `Number`.) An unsubstituted type variable keeps the erased type.
#[must_use]
pub fn wanted(u: &TypeUse) -> FieldType {
    fn erase(g: &GenericType) -> Option<FieldType> {
        match g {
            GenericType::Class(c) => Some(FieldType::Object(c.erasure())),
            GenericType::Array(c) => Some(FieldType::Array(Box::new(erase(c)?))),
            GenericType::Primitive(p) => Some(p.clone()),
            GenericType::Variable(_) => None,
        }
    }
    if !u.ty.is_reference() {
        return u.ty.clone();
    }
    u.generic
        .as_ref()
        .and_then(erase)
        .filter(FieldType::is_reference)
        .unwrap_or_else(|| u.ty.clone())
}

/// The value types of a test's statements (`None` for void ones).
pub fn value_types(statements: &[Statement]) -> Result<Vec<Option<FieldType>>> {
    statements
        .iter()
        .map(|s| s.value_type().map_err(Error::from))
        .collect()
}

/// Builds tests for one class under test. See the [module documentation](self).
#[derive(Debug, Clone)]
pub struct Factory<'a> {
    cluster: &'a TestCluster,
    config: Config,
    seeds: Seeds,
    cut_type: FieldType,
    /// What random insertion calls on the CUT.
    cut_calls: Vec<Call<'a>>,
    /// The instance members among `cut_calls`: what is called on a value of the CUT's type.
    instance_calls: Vec<Call<'a>>,
    /// The cluster's [`TestCluster::result_methods`]: what is called on a value of a class
    /// the CUT returns, by that class.
    result_calls: BTreeMap<String, Vec<Call<'a>>>,
    /// Known subtypes (internal names) per class (hashed: [`Factory::assignable`] asks it for
    /// every value a generated statement could reuse).
    subtypes: HashMap<String, HashSet<String, FixedState>, FixedState>,
    /// [`Call::params`] of every call the cluster offers, computed once (see
    /// [`Factory::params_of`]).
    params: CallParams,
    /// The distinct parameter types of `cut_calls`, each with the (call, parameter) positions
    /// that have it, in order of first appearance: what a value can be passed to.
    cut_param_types: Vec<(FieldType, Vec<(usize, usize)>)>,
    /// For each type of the cluster: [`TestCluster::generators_for`] it, and whether a string
    /// fits it (`String` is a listed subtype): what [`Gen::create`] chooses from.
    ///
    /// [`Gen::create`]: splice::Gen::create
    creators: HashMap<FieldType, Creators<'a>>,
    /// What [`Factory::value_types`] found for call results and field reads (see
    /// [`TypeMemo`]).
    type_memo: RefCell<TypeMemo>,
    /// [`Factory::calls_returning`] by type, computed on first use: it depends only on the
    /// type and the cluster, and a change of a call statement asks it every time.
    returning: RefCell<HashMap<Option<FieldType>, Arc<[Call<'a>]>, FixedState>>,
    /// The share of the budget spent, as the engine last said ([`Factory::set_progress`]):
    /// optional mocks start at `S_FM`.
    progress: f64,
    /// What the mocks of tests that ran were called for, by [`crate::mocks::test_key`], where
    /// their stubs did not say so: the next mutation of such a test makes its stubs follow.
    mock_feedback: HashMap<u64, Vec<MockCalls>, FixedState>,
    /// The CUT's private methods and field writes (PAFM private access), empty when private
    /// access is off.
    private_calls: Vec<Call<'a>>,
    /// The environment statements of the resources some test's code used (see
    /// [`Factory::add_environment_feedback`]), in the cluster's order.
    environment_calls: Vec<Call<'a>>,
    /// The resources whose statements are in `environment_calls`.
    environment_used: BTreeSet<Resource>,
    /// The paths the code asked the virtual file system for (at most
    /// [`MAX_ENVIRONMENT_PATHS`]): what file statements mostly name.
    environment_paths: Vec<String>,
}

/// How many paths the code asked for a factory keeps for file statements.
const MAX_ENVIRONMENT_PATHS: usize = 64;

/// Value types of call and field-read statements by the address of their descriptor's shared
/// text and the statement's kind (the entry holds the text, so that its address cannot be
/// reused by another). The statements a search builds share their descriptors with the test
/// cluster's operations, so a mutation that needs a test's value types clones each type
/// instead of parsing its descriptor again. Starts over past [`TypeMemo::MAX`] entries.
#[derive(Debug, Clone, Default)]
struct TypeMemo(HashMap<(usize, bool), Remembered, FixedState>);

/// A [`TypeMemo`] entry: the descriptor (held) and the value type found for it.
type Remembered = (Arc<str>, Option<FieldType>);

impl TypeMemo {
    const MAX: usize = 1 << 16;

    fn value_type(&mut self, s: &Statement) -> Result<Option<FieldType>> {
        let (descriptor, method) = match s {
            Statement::Method { descriptor, .. } => (descriptor, true),
            Statement::FieldRead { descriptor, .. } => (descriptor, false),
            _ => return Ok(s.value_type()?),
        };
        let key = (Arc::as_ptr(descriptor).cast::<u8>() as usize, method);
        if let Some((_, ty)) = self.0.get(&key) {
            return Ok(ty.clone());
        }
        let ty = s.value_type()?;
        if self.0.len() >= Self::MAX {
            self.0.clear();
        }
        self.0.insert(key, (Arc::clone(descriptor), ty.clone()));
        Ok(ty)
    }
}

/// What can create a value of one class (see [`Factory::creators`]).
#[derive(Debug, Clone)]
struct Creators<'a> {
    generators: Vec<&'a Operation>,
    string_fits: bool,
    /// Whether a mock may stand for a value of the type (see `ferrosuite_mocking`).
    mockable: bool,
    /// Cast classes of the type that may be mocked (`TypeInfo::cast_subtypes`): each is one
    /// more way to make a value, chosen like a generator.
    cast_mocks: Vec<String>,
}

/// The parameter types of a cluster's calls, by call. Keyed by the address of the operation
/// (which the factory borrows from the cluster, so it does not move) and whether the call is a
/// field write: the types are computed once instead of at every generated statement.
#[derive(Debug, Clone, Default)]
struct CallParams(HashMap<(usize, bool), ParamTypes>);

/// The types to generate for a call's parameters, each with whether it is an erased type
/// variable.
type ParamTypes = Box<[(FieldType, bool)]>;

impl CallParams {
    fn key(call: Call<'_>) -> (usize, bool) {
        (
            std::ptr::from_ref(call.operation()) as usize,
            matches!(call, Call::Write(_)),
        )
    }

    fn add(&mut self, call: Call<'_>) {
        self.0
            .entry(Self::key(call))
            .or_insert_with(|| call.params().into_boxed_slice());
    }

    fn get(&self, call: Call<'_>) -> Option<&[(FieldType, bool)]> {
        self.0.get(&Self::key(call)).map(|p| &**p)
    }
}

impl<'a> Factory<'a> {
    /// A factory for the cluster's CUT, seeding values from `constants` (harvested from the
    /// CUT, e.g. with `harvest_nested`). Fails on an invalid configuration and when the cluster
    /// offers nothing usable on the CUT: no constructor, method or field, or only instance
    /// members of a type that nothing creates.
    pub fn new(cluster: &'a TestCluster, constants: Constants, config: Config) -> Result<Self> {
        config.validate()?;
        let cut_type = FieldType::Object(cluster.cut.clone());
        let mut subtypes: HashMap<String, HashSet<String, FixedState>, FixedState> =
            HashMap::default();
        for info in cluster.types.values() {
            let FieldType::Object(w) = &info.ty else {
                continue;
            };
            let set = subtypes.entry(w.clone()).or_default();
            set.extend(info.subtypes.iter().cloned());
            set.extend(info.cast_subtypes.iter().cloned());
            set.extend(jdk_default_subtypes(w).iter().map(|s| (*s).to_string()));
            for op in cluster.generators_for(&info.ty) {
                if let Some(FieldType::Object(r)) = op.ret.as_ref().map(|r| &r.ty) {
                    set.insert(r.clone());
                }
            }
        }
        let receivers = !cluster.generators_for(&cut_type).is_empty();
        let mut cut_calls = Vec::new();
        for op in cluster.members() {
            if op.needs_receiver() && !receivers {
                continue;
            }
            cut_calls.push(Call::Op(op));
            if config.field_writes && op.kind == OperationKind::Field && !op.is_final_field() {
                cut_calls.push(Call::Write(op));
            }
        }
        if cut_calls.is_empty() {
            return Err(Error::NothingToCall(cluster.cut.replace('/', ".")));
        }
        let mut private_calls = Vec::new();
        if config.mocking.private_access {
            for op in &cluster.private_members {
                if op.needs_receiver() && !receivers {
                    continue;
                }
                private_calls.push(match op.kind {
                    OperationKind::Field => Call::Write(op),
                    _ => Call::Op(op),
                });
            }
        }
        let capacity = config.observed_pool_capacity;
        let instance_calls = cut_calls
            .iter()
            .copied()
            .filter(|c| c.needs_receiver())
            .collect();
        let result_calls: BTreeMap<String, Vec<Call<'a>>> = cluster
            .result_methods
            .iter()
            .map(|(class, ops)| (class.clone(), ops.iter().map(Call::Op).collect()))
            .collect();
        let mut params = CallParams::default();
        let generators = cluster.types.values().flat_map(|i| &i.generators);
        for c in cut_calls
            .iter()
            .chain(&private_calls)
            .chain(result_calls.values().flatten())
            .copied()
            .chain(cluster.environment.iter().map(|(_, op)| Call::Op(op)))
            .chain(generators.map(Call::Op))
        {
            // Generated statements are typed by what the call records (splices do not parse
            // them again): it must be what the statement's descriptor says.
            if let Call::Op(op) = c {
                let given = op.statement(None, Vec::new()).value_type()?;
                if given != c.ret() {
                    return Err(Error::Cluster(format!(
                        "{op} in {} records the value type {:?}, its statement gives {given:?}",
                        op.class,
                        c.ret()
                    )));
                }
            }
            params.add(c);
        }
        let mut cut_param_types: Vec<(FieldType, Vec<(usize, usize)>)> = Vec::new();
        for (k, &c) in cut_calls.iter().enumerate() {
            for (i, (p, _)) in params.get(c).unwrap_or_default().iter().enumerate() {
                match cut_param_types.iter_mut().find(|(t, _)| t == p) {
                    Some((_, at)) => at.push((k, i)),
                    None => cut_param_types.push((p.clone(), vec![(k, i)])),
                }
            }
        }
        let creators = cluster
            .types
            .values()
            .map(|info| {
                let mockable = match &info.ty {
                    FieldType::Object(n) => {
                        config.mocking.mocks
                            && *n != cluster.cut
                            && info.accessible
                            && !info.is_final
                            && matches!(
                                info.kind,
                                TypeKind::Class | TypeKind::Abstract | TypeKind::Interface
                            )
                            && !ferrosuite_mocking::never_mocked(n)
                    }
                    _ => false,
                };
                let c = Creators {
                    generators: cluster.generators_for(&info.ty),
                    string_fits: info.subtypes.iter().any(|s| s == STRING),
                    mockable,
                    cast_mocks: Vec::new(),
                };
                (info.ty.clone(), c)
            })
            .collect::<HashMap<FieldType, Creators<'a>>>();
        // Mocks of cast classes, once the cast classes' own creators say they may be mocked.
        let mut creators = creators;
        let cast_mocks: Vec<(FieldType, Vec<String>)> = cluster
            .types
            .values()
            .filter(|info| !info.cast_subtypes.is_empty())
            .map(|info| {
                let mockable = info
                    .cast_subtypes
                    .iter()
                    .filter(|s| {
                        creators
                            .get(&FieldType::Object((*s).clone()))
                            .is_some_and(|c| c.mockable)
                    })
                    .cloned()
                    .collect();
                (info.ty.clone(), mockable)
            })
            .collect();
        for (ty, mocks) in cast_mocks {
            if let Some(c) = creators.get_mut(&ty) {
                c.cast_mocks = mocks;
            }
        }
        Ok(Factory {
            cluster,
            config,
            seeds: Seeds::new(constants, capacity),
            cut_type,
            cut_calls,
            instance_calls,
            result_calls,
            subtypes,
            params,
            cut_param_types,
            creators,
            type_memo: RefCell::default(),
            returning: RefCell::default(),
            progress: 0.0,
            mock_feedback: HashMap::default(),
            private_calls,
            environment_calls: Vec::new(),
            environment_used: BTreeSet::new(),
            environment_paths: Vec::new(),
        })
    }

    /// The paths the code under test asked the virtual file system for, oldest first.
    #[must_use]
    pub fn environment_paths(&self) -> &[String] {
        &self.environment_paths
    }

    /// The environment statements the search may insert now.
    #[must_use]
    pub fn environment_calls(&self) -> &[Call<'a>] {
        &self.environment_calls
    }

    /// Takes in what of the controlled environment the tests that ran used: the statements of
    /// each resource used for the first time join [`environment_calls`](Self::environment_calls)
    /// (the environment paper's rule: a file is created only for code that looks for files),
    /// and the paths the code asked for become string seeds.
    pub fn add_environment_feedback(&mut self, used: &Resources) {
        if self.cluster.environment.is_empty() {
            return;
        }
        let mut now = Vec::new();
        if !used.files.is_empty() {
            now.push(Resource::Files);
        }
        if used.console {
            now.push(Resource::Console);
        }
        if used.clock {
            now.push(Resource::Clock);
        }
        if used.random {
            now.push(Resource::Random);
        }
        for r in now {
            if self.environment_used.insert(r) {
                self.environment_calls.extend(
                    self.cluster
                        .environment
                        .iter()
                        .filter(|(k, _)| *k == r)
                        .map(|(_, op)| Call::Op(op)),
                );
            }
        }
        for f in &used.files {
            if self.environment_paths.len() < MAX_ENVIRONMENT_PATHS
                && !self.environment_paths.contains(f)
            {
                self.environment_paths.push(f.clone());
            }
            let v = Prim::String(f.clone());
            if !self.seeds.constants.contains(&v) {
                self.seeds.observed.add(&v);
            }
        }
    }

    /// The CUT's private methods and field writes the search may use by reflection.
    #[must_use]
    pub fn private_calls(&self) -> &[Call<'a>] {
        &self.private_calls
    }

    /// Tells the factory the share of the budget spent (in \[0, 1\]).
    pub fn set_progress(&mut self, progress: f64) {
        self.progress = progress;
    }

    /// The share of the budget spent, as last told.
    #[must_use]
    pub fn progress(&self) -> f64 {
        self.progress
    }

    /// Takes in what the mocks of tests that ran were called for (keyed by
    /// [`crate::mocks::test_key`]); the next mutation of each of those tests makes its stubs
    /// follow. The oldest feedback is dropped past a bound.
    pub fn add_mock_feedback(&mut self, feedback: Vec<(u64, Vec<MockCalls>)>) {
        if self.mock_feedback.len() + feedback.len() > MAX_MOCK_FEEDBACK {
            self.mock_feedback.clear();
        }
        self.mock_feedback.extend(feedback);
    }

    /// What the mocks of `test` were called for when it ran, if its stubs did not say so.
    #[must_use]
    pub fn mock_feedback(&self, test: &Test) -> Option<&[MockCalls]> {
        if self.mock_feedback.is_empty() || !crate::mocks::has_mocks(test) {
            return None;
        }
        self.mock_feedback
            .get(&crate::mocks::test_key(test))
            .map(Vec::as_slice)
    }

    /// [`value_types`] of `statements`, with the types of call results and field reads
    /// remembered by descriptor (see `TypeMemo`).
    ///
    /// # Errors
    /// A statement whose descriptor does not parse.
    pub fn value_types(&self, statements: &[Statement]) -> Result<Vec<Option<FieldType>>> {
        let mut memo = self.type_memo.borrow_mut();
        statements.iter().map(|s| memo.value_type(s)).collect()
    }

    /// [`Call::params`] of `call`: looked up for the calls of the factory's cluster (the CUT's
    /// members, result methods and generators), computed for others.
    #[must_use]
    pub fn params_of(&self, call: Call<'_>) -> Cow<'_, [(FieldType, bool)]> {
        match self.params.get(call) {
            Some(p) => Cow::Borrowed(p),
            None => Cow::Owned(call.params()),
        }
    }

    /// The configuration.
    #[must_use]
    pub fn config(&self) -> &Config {
        &self.config
    }

    /// The test cluster.
    #[must_use]
    pub fn cluster(&self) -> &'a TestCluster {
        self.cluster
    }

    /// The seeds for values.
    #[must_use]
    pub fn seeds(&self) -> &Seeds {
        &self.seeds
    }

    /// The pool of values observed at run time, for the search to feed.
    pub fn observed_mut(&mut self) -> &mut ObservedPool {
        &mut self.seeds.observed
    }

    /// The calls on the CUT that insertion chooses from (constructors, methods, field reads, and
    /// writes of non-final fields; instance members only when something creates the CUT).
    #[must_use]
    pub fn cut_calls(&self) -> &[Call<'a>] {
        &self.cut_calls
    }

    /// Whether a value of type `have` may be used where `want` is expected, as far as the
    /// cluster knows: equal types; any reference for `Object`; reference arrays covariantly;
    /// arrays for `Cloneable` and `Serializable`; a class listed as a subtype of `want` or
    /// returned by one of `want`'s generators (and the JDK's default implementations). Unknown
    /// relations count as not assignable, so values are never passed where they would fail a
    /// cast.
    #[must_use]
    pub fn assignable(&self, have: &FieldType, want: &FieldType) -> bool {
        if have == want {
            return true;
        }
        match (have, want) {
            (FieldType::Object(_) | FieldType::Array(_), FieldType::Object(w)) if w == OBJECT => {
                true
            }
            (FieldType::Array(h), FieldType::Array(w)) => {
                h.is_reference() && w.is_reference() && self.assignable(h, w)
            }
            (FieldType::Array(_), FieldType::Object(w)) => {
                w == "java/lang/Cloneable" || w == "java/io/Serializable"
            }
            (FieldType::Object(h), FieldType::Object(w)) => {
                self.subtypes.get(w).is_some_and(|s| s.contains(h))
            }
            _ => false,
        }
    }

    /// Calls giving a value that fits `ty` (`None`: void calls on the CUT), for replacing a
    /// statement: calls on the CUT and generators of the type and its subtypes.
    #[must_use]
    pub fn calls_returning(&self, ty: Option<&FieldType>) -> Vec<Call<'a>> {
        self.calls_returning_shared(ty).to_vec()
    }

    /// [`calls_returning`](Self::calls_returning), computed once per type.
    pub(crate) fn calls_returning_shared(&self, ty: Option<&FieldType>) -> Arc<[Call<'a>]> {
        let key = ty.cloned();
        if let Some(calls) = self.returning.borrow().get(&key) {
            return Arc::clone(calls);
        }
        let fits = |c: &Call<'a>| match (c.ret_ref(), ty) {
            (None, None) => true,
            (Some(r), Some(t)) => self.assignable(r, t),
            _ => false,
        };
        let mut out: Vec<Call<'a>> = self.cut_calls.iter().copied().filter(fits).collect();
        if let Some(t) = ty {
            for op in self.cluster.generators_for(t) {
                let c = Call::Op(op);
                if fits(&c) && !out.contains(&c) {
                    out.push(c);
                }
            }
        }
        let out: Arc<[Call<'a>]> = out.into();
        self.returning.borrow_mut().insert(key, Arc::clone(&out));
        out
    }

    /// The cluster call a statement performs, if it is one of the CUT's, a result method of
    /// the class it names, or a generator of its value type.
    #[must_use]
    pub fn call_for(&self, s: &Statement) -> Option<Call<'a>> {
        if let Some(c) = self
            .cut_calls
            .iter()
            .chain(&self.environment_calls)
            .find(|c| c.same_member(s))
        {
            return Some(*c);
        }
        if let Statement::Method { class, .. } = s {
            if let Some(c) = self
                .result_calls
                .get(&**class)
                .and_then(|calls| calls.iter().find(|c| c.same_member(s)))
            {
                return Some(*c);
            }
        }
        let ty = s.value_type().ok()??;
        self.cluster
            .generators_for(&ty)
            .into_iter()
            .map(Call::Op)
            .find(|c| c.same_member(s))
    }
}
