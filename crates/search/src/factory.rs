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
//!    `next()` on the iterator) — the receiver is picked first, then the call;
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

use std::borrow::Cow;
use std::cell::RefCell;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::Arc;

use ferrosuite_bytecode::descriptor::FieldType;
use ferrosuite_testcase::cluster::{
    GenericType, Operation, OperationKind, TestCluster, TypeUse, jdk_default_subtypes,
};
use ferrosuite_testcase::constants::Constants;
use ferrosuite_testcase::statement::{Statement, Test, VarRef};
use foldhash::fast::FixedState;

use crate::config::Config;
use crate::error::{Error, Result};
use crate::random::{Rng, chance, index, int_in, pick, pick_index_where};
use crate::values::{ObservedPool, Seeds, random_prim};

const OBJECT: &str = "java/lang/Object";
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
    #[must_use]
    pub fn statement(self, receiver: Option<VarRef>, args: Vec<VarRef>) -> Option<Statement> {
        match self {
            Call::Op(op) => Some(op.statement(receiver, args)),
            Call::Write(op) => Some(Statement::FieldWrite {
                class: op.class.clone(),
                name: op.name.clone(),
                descriptor: op.descriptor.clone(),
                receiver: if op.needs_receiver() { receiver } else { None },
                value: *args.first()?,
            }),
        }
    }

    /// Whether `s` is this call's kind of statement on the same member.
    #[must_use]
    pub fn same_member(self, s: &Statement) -> bool {
        let op = self.operation();
        match (self, s) {
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

/// `ty` with its (innermost) element type replaced by `element`: `Object[][]` → `Integer[][]`,
/// `Object` → `Integer`; for an erased type variable `T` or `T[]`.
fn with_element(ty: &FieldType, element: &FieldType) -> FieldType {
    match ty {
        FieldType::Array(c) => FieldType::Array(Box::new(with_element(c, element))),
        _ => element.clone(),
    }
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
    creators: HashMap<FieldType, Creators<'a>>,
    /// What [`Factory::value_types`] found for call results and field reads (see
    /// [`TypeMemo`]).
    type_memo: RefCell<TypeMemo>,
    /// [`Factory::calls_returning`] by type, computed on first use: it depends only on the
    /// type and the cluster, and a change of a call statement asks it every time.
    returning: RefCell<HashMap<Option<FieldType>, Arc<[Call<'a>]>, FixedState>>,
}

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
            .chain(result_calls.values().flatten())
            .copied()
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
                let c = Creators {
                    generators: cluster.generators_for(&info.ty),
                    string_fits: info.subtypes.iter().any(|s| s == STRING),
                };
                (info.ty.clone(), c)
            })
            .collect();
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
        })
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
        if let Some(c) = self.cut_calls.iter().find(|c| c.same_member(s)) {
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

    // --- splices -----------------------------------------------------------------------------

    /// [`splice_typed`](Self::splice_typed) with the value types computed here (for tests).
    #[cfg(test)]
    pub(crate) fn splice<R: Rng + ?Sized>(
        &self,
        test: &mut Test,
        pos: usize,
        replace: bool,
        rng: &mut R,
        build: impl FnOnce(&mut Gen<'_, 'a, R>) -> Option<VarRef>,
    ) -> Result<bool> {
        let mut types = self.value_types(&test.statements)?;
        Ok(self.splice_typed(test, &mut types, pos, replace, rng, build))
    }

    /// Generates statements at `pos` with `build` and splices them into `test`. With `replace`,
    /// statement `pos` is removed and its uses are redirected to the value `build` returns
    /// (which must fit wherever statement `pos` was used). Returns whether the test changed;
    /// when `build` gives up or the test would exceed L, it is left unchanged. `types` are the
    /// test's value types ([`value_types`]), kept up to date, so that repeated changes of one
    /// test do not parse its descriptors again.
    pub(crate) fn splice_typed<R: Rng + ?Sized>(
        &self,
        test: &mut Test,
        types: &mut Vec<Option<FieldType>>,
        pos: usize,
        replace: bool,
        rng: &mut R,
        build: impl FnOnce(&mut Gen<'_, 'a, R>) -> Option<VarRef>,
    ) -> bool {
        let n = test.len();
        if pos > n || (replace && pos == n) {
            return false;
        }
        debug_assert_eq!(types.len(), n);
        let suffix_len = n - pos - usize::from(replace);
        let capacity = self.config.max_test_length.saturating_sub(suffix_len);
        if pos > capacity {
            return false;
        }
        // The generator reads the statements before `pos` where they are and builds the new
        // ones on their own; only when it succeeds is the test touched: the rest is
        // renumbered in place and the new statements spliced in (the rest moved once).
        let mut g = Gen {
            f: self,
            rng,
            prefix: &test.statements[..pos],
            prefix_types: &types[..pos],
            stmts: Vec::new(),
            types: Vec::new(),
            capacity,
        };
        let result = build(&mut g);
        let Gen {
            stmts: new,
            types: new_types,
            ..
        } = g;
        let added = new.len();
        // The generator records the type of each statement it adds as `value_types` gives it
        // (the declared type, as the statement's descriptor or class names it: checked after
        // the splice in debug builds), so nothing is parsed again here.
        let Some(result) = result else {
            return false;
        };
        if added == 0 && !replace {
            return false;
        }
        let removed = usize::from(replace);
        for s in &mut test.statements[pos + removed..] {
            for r in s.uses_mut() {
                let i = r.index();
                if i < pos {
                    continue;
                }
                *r = if replace && i == pos {
                    result
                } else {
                    VarRef((i - removed + added) as u32)
                };
            }
        }
        test.statements.splice(pos..pos + removed, new);
        types.splice(pos..pos + removed, new_types);
        debug_assert!(value_types(&test.statements).is_ok_and(|t| t == *types));
        true
    }

    // --- insertion ---------------------------------------------------------------------------

    /// The paper's insertion of one statement (with what it needs) at a random position: a
    /// random call on the CUT, a call on an existing value, or a call taking an existing value,
    /// each with probability 1/3. Returns whether the test changed.
    pub fn insert_random<R: Rng + ?Sized>(&self, test: &mut Test, rng: &mut R) -> Result<bool> {
        let mut types = self.value_types(&test.statements)?;
        self.insert_random_typed(test, &mut types, rng)
    }

    /// [`insert_random`](Self::insert_random) with the test's value types given (and kept up
    /// to date: `types` must be [`value_types`] of `test`).
    pub fn insert_random_typed<R: Rng + ?Sized>(
        &self,
        test: &mut Test,
        types: &mut Vec<Option<FieldType>>,
        rng: &mut R,
    ) -> Result<bool> {
        let pos = index(rng, test.len() + 1);
        Ok(match index(rng, 3) {
            0 => self.cut_call_at(test, types, pos, rng),
            1 => self.call_on_value_at(test, types, pos, rng),
            _ => self.call_with_value_at(test, types, pos, rng),
        })
    }

    /// Inserts a random call on the CUT at `pos`, generating its receiver and parameters.
    pub fn insert_cut_call<R: Rng + ?Sized>(
        &self,
        test: &mut Test,
        pos: usize,
        rng: &mut R,
    ) -> Result<bool> {
        let mut types = self.value_types(&test.statements)?;
        Ok(self.cut_call_at(test, &mut types, pos, rng))
    }

    fn cut_call_at<R: Rng + ?Sized>(
        &self,
        test: &mut Test,
        types: &mut Vec<Option<FieldType>>,
        pos: usize,
        rng: &mut R,
    ) -> bool {
        let Some(&call) = pick(rng, &self.cut_calls) else {
            return false;
        };
        self.splice_typed(test, types, pos, false, rng, |g| {
            g.call(call, 0, None, None)
        })
    }

    /// The result methods callable on a value of type `ty`: those of its own class, else of
    /// the first class it is assignable to (by class name).
    fn result_calls_on(&self, ty: &FieldType) -> &[Call<'a>] {
        let FieldType::Object(c) = ty else {
            return &[];
        };
        if let Some(calls) = self.result_calls.get(c) {
            return calls;
        }
        self.result_calls
            .iter()
            .find(|(class, _)| self.assignable(ty, &FieldType::Object((*class).clone())))
            .map_or(&[], |(_, calls)| calls.as_slice())
    }

    /// Inserts at `pos` a call on an existing non-null value defined before `pos`: of a CUT
    /// instance member on a value of the CUT's type, or of a
    /// [result method](TestCluster::result_methods) on a value of a class the CUT returns
    /// (`iterator()` on the `Iterable` a call returned); falls back to
    /// [`Factory::insert_cut_call`].
    pub fn insert_call_on_value<R: Rng + ?Sized>(
        &self,
        test: &mut Test,
        pos: usize,
        rng: &mut R,
    ) -> Result<bool> {
        let mut types = self.value_types(&test.statements)?;
        Ok(self.call_on_value_at(test, &mut types, pos, rng))
    }

    fn call_on_value_at<R: Rng + ?Sized>(
        &self,
        test: &mut Test,
        types: &mut Vec<Option<FieldType>>,
        pos: usize,
        rng: &mut R,
    ) -> bool {
        // Every non-null value before `pos` with something to call on it, then one of those.
        let mut receivers: Vec<(usize, &[Call<'a>])> = Vec::new();
        let before = test.statements.iter().zip(types.iter()).take(pos);
        for (k, (s, t)) in before.enumerate() {
            if matches!(s, Statement::Null { .. }) {
                continue;
            }
            let Some(t) = t.as_ref() else {
                continue;
            };
            let calls = if self.assignable(t, &self.cut_type) {
                self.instance_calls.as_slice()
            } else {
                self.result_calls_on(t)
            };
            if !calls.is_empty() {
                receivers.push((k, calls));
            }
        }
        let Some(&(r, calls)) = pick(rng, &receivers) else {
            return self.cut_call_at(test, types, pos, rng);
        };
        let Some(&call) = pick(rng, calls) else {
            return self.cut_call_at(test, types, pos, rng);
        };
        self.splice_typed(test, types, pos, false, rng, |g| {
            g.call(call, 0, Some(VarRef(r as u32)), None)
        })
    }

    /// Inserts at `pos` a call on the CUT that takes an existing value defined before `pos` as
    /// one of its parameters; falls back to [`Factory::insert_cut_call`].
    pub fn insert_call_with_value<R: Rng + ?Sized>(
        &self,
        test: &mut Test,
        pos: usize,
        rng: &mut R,
    ) -> Result<bool> {
        let mut types = self.value_types(&test.statements)?;
        Ok(self.call_with_value_at(test, &mut types, pos, rng))
    }

    fn call_with_value_at<R: Rng + ?Sized>(
        &self,
        test: &mut Test,
        types: &mut Vec<Option<FieldType>>,
        pos: usize,
        rng: &mut R,
    ) -> bool {
        let values: Vec<usize> = (0..pos.min(test.len()))
            .filter(|&k| {
                types[k].is_some() && !matches!(test.statements[k], Statement::Null { .. })
            })
            .collect();
        for _ in 0..3 {
            let Some(&k) = pick(rng, &values) else {
                break;
            };
            let Some(have) = types[k].as_ref() else {
                continue;
            };
            let slots = self.value_slots(have);
            if let Some(&(c, i)) = pick(rng, &slots) {
                let call = self.cut_calls[c];
                return self.splice_typed(test, types, pos, false, rng, |g| {
                    g.call(call, 0, None, Some((i, VarRef(k as u32))))
                });
            }
        }
        self.cut_call_at(test, types, pos, rng)
    }

    /// Every (index in `cut_calls`, parameter index) a value of type `have` fits, in call and
    /// then parameter order.
    fn value_slots(&self, have: &FieldType) -> Vec<(usize, usize)> {
        let mut slots: Vec<(usize, usize)> = Vec::new();
        for (p, at) in &self.cut_param_types {
            if self.assignable(have, p) {
                slots.extend(at);
            }
        }
        slots.sort_unstable();
        slots
    }

    /// A random test (paper III-E3): r uniform in \[1, L\], then insertions into an empty test
    /// until it has at least r statements (or [`Config::max_insertion_failures`] insertions in a
    /// row fail).
    pub fn random_test<R: Rng + ?Sized>(&self, rng: &mut R) -> Result<Test> {
        let target = int_in(rng, 1, self.config.max_test_length as i64) as usize;
        let mut test = Test::default();
        let mut failures = 0;
        let mut attempts = 0;
        let mut types = Vec::new();
        while test.len() < target && failures < self.config.max_insertion_failures.max(1) {
            attempts += 1;
            if self.insert_random_typed(&mut test, &mut types, rng)? {
                failures = 0;
            } else {
                failures += 1;
            }
        }
        if test.is_empty() {
            return Err(Error::Construction {
                cut: self.cluster.cut.clone(),
                attempts,
            });
        }
        Ok(test)
    }
}

/// Statement generation inside a splice: the statements before the insertion point (read
/// where they are) and the new ones, with their value types, and a capacity the new ones must
/// stay within. Value `k` is `prefix[k]` below the prefix's length, else `stmts[k - len]`.
pub(crate) struct Gen<'g, 'a, R: ?Sized> {
    f: &'g Factory<'a>,
    rng: &'g mut R,
    prefix: &'g [Statement],
    prefix_types: &'g [Option<FieldType>],
    stmts: Vec<Statement>,
    types: Vec<Option<FieldType>>,
    capacity: usize,
}

impl<'a, R: Rng + ?Sized> Gen<'_, 'a, R> {
    /// How many values there are (before the insertion point, and new).
    fn len(&self) -> usize {
        self.prefix.len() + self.stmts.len()
    }

    /// Appends a statement of value type `ty`; `None` when the capacity is reached.
    pub(crate) fn push(&mut self, s: Statement, ty: Option<FieldType>) -> Option<VarRef> {
        if self.len() >= self.capacity {
            return None;
        }
        self.stmts.push(s);
        self.types.push(ty);
        Some(VarRef((self.len() - 1) as u32))
    }

    /// Drops the new statements from value `len` on.
    fn truncate(&mut self, len: usize) {
        let keep = len.saturating_sub(self.prefix.len());
        self.stmts.truncate(keep);
        self.types.truncate(keep);
    }

    /// One of the existing values fitting `want` (not `null` statements when `non_null`),
    /// uniformly at random; `None` when none fits.
    fn pick_existing(&mut self, want: &FieldType, non_null: bool) -> Option<VarRef> {
        let (f, prefix, prefix_types) = (self.f, self.prefix, self.prefix_types);
        let (stmts, types) = (&self.stmts, &self.types);
        let k = pick_index_where(self.rng, prefix.len() + stmts.len(), |k| {
            let (s, t) = match k.checked_sub(prefix.len()) {
                None => (&prefix[k], prefix_types[k].as_ref()),
                Some(j) => (&stmts[j], types[j].as_ref()),
            };
            !(non_null && matches!(s, Statement::Null { .. }))
                && t.is_some_and(|t| f.assignable(t, want))
        })?;
        Some(VarRef(k as u32))
    }

    fn push_null(&mut self, ty: &FieldType) -> Option<VarRef> {
        self.push(Statement::Null { ty: ty.clone() }, Some(ty.clone()))
    }

    fn push_constant(&mut self, ty: &FieldType) -> Option<VarRef> {
        let f = self.f;
        let p = random_prim(ty, &f.seeds, &f.config, self.rng)?;
        let t = p.field_type();
        self.push(Statement::Primitive(p), Some(t))
    }

    /// A value for a parameter of type `ty` (see the module documentation): `null`, reuse, or
    /// new statements. `erased` marks an unbounded type variable; `allow_null` is false for
    /// receivers. `None` when the capacity is exhausted (or, for a receiver, nothing fits).
    pub(crate) fn value(
        &mut self,
        ty: &FieldType,
        erased: bool,
        depth: u32,
        allow_null: bool,
    ) -> Option<VarRef> {
        let f = self.f;
        let cfg = &f.config;
        let is_string = matches!(ty, FieldType::Object(n) if n == STRING);
        if !ty.is_reference() || is_string {
            if is_string && allow_null && chance(self.rng, cfg.null_probability) {
                return self.push_null(ty);
            }
            if chance(self.rng, cfg.primitive_reuse_probability) {
                if let Some(r) = self.pick_existing(ty, !allow_null) {
                    return Some(r);
                }
            }
            return self.push_constant(ty);
        }
        if allow_null && chance(self.rng, cfg.null_probability) {
            return self.push_null(ty);
        }
        if chance(self.rng, cfg.object_reuse_probability) {
            if let Some(r) = self.pick_existing(ty, !allow_null) {
                return Some(r);
            }
        }
        if depth <= cfg.max_recursion {
            let target = match (erased, pick(self.rng, &f.cluster.erased_generic_fallback)) {
                (true, Some(fallback)) => with_element(ty, fallback),
                _ => ty.clone(),
            };
            let mark = self.len();
            if let Some(r) = self.create(&target, depth) {
                return Some(r);
            }
            self.truncate(mark);
        }
        if allow_null {
            self.push_null(ty)
        } else {
            self.pick_existing(ty, true)
        }
    }

    /// New statements giving a value of `ty` (no reuse, no `null` unless inside parameters).
    pub(crate) fn create(&mut self, ty: &FieldType, depth: u32) -> Option<VarRef> {
        match ty {
            FieldType::Object(n) if n == STRING => self.push_constant(ty),
            FieldType::Object(_) => {
                // The type's generators, then a string when one fits: one chosen uniformly.
                let f = self.f;
                let (generators, string_fits) = f
                    .creators
                    .get(ty)
                    .map_or((&[][..], false), |c| (&c.generators[..], c.string_fits));
                let options = generators.len() + usize::from(string_fits);
                if options == 0 {
                    return None;
                }
                for _ in 0..3 {
                    let choice = index(self.rng, options);
                    let mark = self.len();
                    let made = match generators.get(choice) {
                        None => self.push_constant(&FieldType::Object(STRING.into())),
                        Some(&op) => self.call(Call::Op(op), depth, None, None),
                    };
                    if made.is_some() {
                        return made;
                    }
                    self.truncate(mark);
                }
                None
            }
            FieldType::Array(component) => self.array(component, depth),
            _ => self.push_constant(ty),
        }
    }

    /// `new T[n]` and a store of a generated value into each element.
    fn array(&mut self, component: &FieldType, depth: u32) -> Option<VarRef> {
        let f = self.f;
        let cfg = &f.config;
        let room = self.capacity.saturating_sub(self.len());
        let mut length = int_in(self.rng, 0, i64::from(cfg.max_array_length)) as usize;
        length = length.min(room.saturating_sub(1) / 2);
        let array_ty = FieldType::Array(Box::new(component.clone()));
        let array = self.push(
            Statement::ArrayNew {
                component: component.clone(),
                length: length as u32,
            },
            Some(array_ty),
        )?;
        for i in 0..length {
            let value = self.value(component, false, depth + 1, true)?;
            self.push(
                Statement::ArrayStore {
                    array,
                    index: i as u32,
                    value,
                },
                None,
            )?;
        }
        Some(array)
    }

    /// The statement of `call` with a receiver (given, or found/created) and arguments
    /// (generated, except `fixed` = (parameter index, value)).
    pub(crate) fn call(
        &mut self,
        call: Call<'a>,
        depth: u32,
        receiver: Option<VarRef>,
        fixed: Option<(usize, VarRef)>,
    ) -> Option<VarRef> {
        let recv = match receiver {
            Some(r) if call.needs_receiver() => Some(r),
            _ => match call.receiver_type() {
                None => None,
                Some(t) => Some(self.value(&t, false, depth + 1, false)?),
            },
        };
        let f = self.f;
        let params = f.params_of(call);
        let mut args = Vec::with_capacity(params.len());
        for (i, (p, erased)) in params.iter().enumerate() {
            match fixed {
                Some((j, v)) if j == i => args.push(v),
                _ => args.push(self.value(p, *erased, depth + 1, true)?),
            }
        }
        let s = call.statement(recv, args)?;
        self.push(s, call.ret())
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::panic)]
pub(crate) mod tests {
    use super::*;
    use ferrosuite_testcase::cluster::{TypeInfo, TypeKind};
    use ferrosuite_testcase::statement::Prim;
    use rand_chacha::ChaCha8Rng;
    use rand_chacha::rand_core::SeedableRng;

    fn op(
        kind: OperationKind,
        name: &str,
        desc: &str,
        params: &[FieldType],
        ret: Option<FieldType>,
        is_static: bool,
    ) -> Operation {
        Operation {
            kind,
            class: "p/Cut".into(),
            declared_in: "p/Cut".into(),
            name: name.into(),
            descriptor: desc.into(),
            access: 1,
            is_static,
            params: params.iter().cloned().map(TypeUse::plain).collect(),
            ret: ret.map(TypeUse::plain),
            type_params: Vec::new(),
        }
    }

    /// A hand-made cluster: `class Cut { Cut(); void put(int); String name; static Cut of(Shape) }`
    /// with `Shape` an interface implemented by `Circle(double)`.
    pub(crate) fn toy_cluster() -> TestCluster {
        let cut = FieldType::Object("p/Cut".into());
        let ctor = op(
            OperationKind::Constructor,
            "<init>",
            "()V",
            &[],
            Some(cut.clone()),
            false,
        );
        let shape = FieldType::Object("p/Shape".into());
        let of = op(
            OperationKind::Method,
            "of",
            "(Lp/Shape;)Lp/Cut;",
            std::slice::from_ref(&shape),
            Some(cut.clone()),
            true,
        );
        let mut types = BTreeMap::new();
        types.insert(
            cut.descriptor(),
            TypeInfo {
                ty: cut.clone(),
                kind: TypeKind::Class,
                accessible: true,
                depth: 0,
                generators: vec![ctor.clone(), of.clone()],
                subtypes: Vec::new(),
            },
        );
        types.insert(
            shape.descriptor(),
            TypeInfo {
                ty: shape.clone(),
                kind: TypeKind::Interface,
                accessible: true,
                depth: 1,
                generators: Vec::new(),
                subtypes: vec!["p/Circle".into()],
            },
        );
        let circle = FieldType::Object("p/Circle".into());
        let mut circle_ctor = op(
            OperationKind::Constructor,
            "<init>",
            "(D)V",
            &[FieldType::Double],
            Some(circle.clone()),
            false,
        );
        circle_ctor.class = "p/Circle".into();
        circle_ctor.declared_in = "p/Circle".into();
        types.insert(
            circle.descriptor(),
            TypeInfo {
                ty: circle.clone(),
                kind: TypeKind::Class,
                accessible: true,
                depth: 1,
                generators: vec![circle_ctor],
                subtypes: Vec::new(),
            },
        );
        TestCluster {
            cut: "p/Cut".into(),
            type_params: Vec::new(),
            result_methods: BTreeMap::new(),
            constructors: vec![ctor],
            methods: vec![
                of,
                op(
                    OperationKind::Method,
                    "put",
                    "(I)V",
                    &[FieldType::Int],
                    None,
                    false,
                ),
            ],
            fields: vec![op(
                OperationKind::Field,
                "name",
                "Ljava/lang/String;",
                &[],
                Some(FieldType::Object(STRING.into())),
                false,
            )],
            types,
            erased_generic_fallback: Vec::new(),
            warnings: Vec::new(),
        }
    }

    #[test]
    fn precomputed_parameters_are_what_the_calls_say() {
        let cluster = toy_cluster();
        let f = Factory::new(&cluster, Constants::default(), Config::default()).unwrap();
        let mut types: Vec<FieldType> = vec![FieldType::Int, FieldType::Object(OBJECT.into())];
        for &c in f.cut_calls() {
            assert_eq!(&*f.params_of(c), c.params().as_slice(), "{c:?}");
            types.extend(c.params().into_iter().map(|(p, _)| p));
            types.extend(c.ret());
        }
        for op in cluster.types.values().flat_map(|i| &i.generators) {
            let c = Call::Op(op);
            assert!(matches!(f.params_of(c), Cow::Borrowed(_)), "{c:?}");
            assert_eq!(&*f.params_of(c), c.params().as_slice());
        }
        // What creates a value of each type: as the cluster says.
        for info in cluster.types.values() {
            let c = &f.creators[&info.ty];
            assert_eq!(c.generators, cluster.generators_for(&info.ty));
            assert_eq!(
                c.string_fits,
                info.subtypes.iter().any(|s| s == STRING),
                "{:?}",
                info.ty
            );
        }
        // The slots a value fits: as asking every parameter of every call in turn.
        for have in &types {
            let mut every = Vec::new();
            for (k, &c) in f.cut_calls().iter().enumerate() {
                for (i, (p, _)) in c.params().iter().enumerate() {
                    if f.assignable(have, p) {
                        every.push((k, i));
                    }
                }
            }
            assert_eq!(f.value_slots(have), every, "{have:?}");
        }
    }

    #[test]
    fn assignability_follows_the_cluster() {
        let c = toy_cluster();
        let f = Factory::new(&c, Constants::default(), Config::default()).unwrap();
        let o = |n: &str| FieldType::Object(n.into());
        assert!(f.assignable(&o("p/Circle"), &o("p/Shape")));
        assert!(!f.assignable(&o("p/Shape"), &o("p/Circle")));
        assert!(f.assignable(&o("p/Cut"), &o(OBJECT)));
        assert!(f.assignable(
            &FieldType::Array(Box::new(o("p/Circle"))),
            &FieldType::Array(Box::new(o("p/Shape")))
        ));
        assert!(!f.assignable(
            &FieldType::Array(Box::new(FieldType::Int)),
            &FieldType::Array(Box::new(FieldType::Long))
        ));
        assert!(!f.assignable(&FieldType::Int, &o(OBJECT)));
        assert_eq!(
            f.cut_calls().len(),
            5,
            "ctor, of, put, name read, name write"
        );
    }

    #[test]
    fn insertion_splices_and_renumbers() {
        let c = toy_cluster();
        let config = Config {
            null_probability: 0.0,
            ..Config::default()
        };
        let f = Factory::new(&c, Constants::default(), config).unwrap();
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        let mut t = Test::new(vec![
            Statement::Primitive(Prim::Int(5)),
            Statement::constructor("p/Cut", "()V", vec![]),
            Statement::method("p/Cut", "put", "(I)V", Some(VarRef(1)), vec![VarRef(0)]),
        ]);
        for _ in 0..50 {
            let pos = index(&mut rng, t.len() + 1);
            f.insert_cut_call(&mut t, pos, &mut rng).unwrap();
            t.validate().unwrap();
            assert!(t.len() <= 80);
        }
        assert!(
            t.statements.iter().any(
                |s| matches!(s, Statement::Constructor { class, .. } if &**class == "p/Circle")
            ),
            "{t}"
        );
    }

    #[test]
    fn calls_returning_a_type_are_its_fitting_calls_and_generators_each_time() {
        let c = toy_cluster();
        let f = Factory::new(&c, Constants::default(), Config::default()).unwrap();
        let names = |calls: Vec<Call<'_>>| -> Vec<String> {
            calls
                .iter()
                .map(|c| format!("{}.{}", c.operation().class, c.operation().name))
                .collect()
        };
        let cut = FieldType::Object("p/Cut".into());
        let shape = FieldType::Object("p/Shape".into());
        // Asked twice each, in between other types: the remembered answer is the first one.
        for _ in 0..2 {
            assert_eq!(
                names(f.calls_returning(Some(&cut))),
                ["p/Cut.<init>", "p/Cut.of"]
            );
            assert_eq!(names(f.calls_returning(None)), ["p/Cut.put", "p/Cut.name"]);
            // Nothing on the CUT returns a Shape; the generator of its subtype Circle does.
            assert_eq!(names(f.calls_returning(Some(&shape))), ["p/Circle.<init>"]);
            assert!(f.calls_returning(Some(&FieldType::Long)).is_empty());
        }
    }

    #[test]
    fn remembered_value_types_are_the_parsed_ones() {
        let c = toy_cluster();
        let f = Factory::new(&c, Constants::default(), Config::default()).unwrap();
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        let mut t = Test::new(vec![Statement::constructor("p/Cut", "()V", vec![])]);
        for _ in 0..30 {
            f.insert_random(&mut t, &mut rng).unwrap();
            assert_eq!(
                f.value_types(&t.statements).unwrap(),
                value_types(&t.statements).unwrap()
            );
        }
        // One descriptor text (one address) read by a call and by a field read: each kind
        // keeps its own entry, and a bad descriptor is an error every time (never remembered).
        let d: Arc<str> = "(I)Ljava/lang/String;".into();
        let call = Statement::Method {
            class: "p/Cut".into(),
            name: "m".into(),
            descriptor: Arc::clone(&d),
            receiver: None,
            args: vec![],
        };
        let read = Statement::FieldRead {
            class: "p/Cut".into(),
            name: "f".into(),
            descriptor: Arc::clone(&d),
            receiver: None,
        };
        let string: Option<FieldType> = Some(FieldType::Object("java/lang/String".into()));
        for _ in 0..2 {
            assert_eq!(
                f.value_types(std::slice::from_ref(&call)).unwrap(),
                std::slice::from_ref(&string)
            );
            assert!(f.value_types(std::slice::from_ref(&read)).is_err());
        }
        // Emptied (as when it starts over past its bound), the memo answers the same.
        f.type_memo.borrow_mut().0.clear();
        assert_eq!(
            f.value_types(&t.statements).unwrap(),
            value_types(&t.statements).unwrap()
        );
    }

    #[test]
    fn a_splice_renumbers_exactly_and_leaves_a_test_it_cannot_change_alone() {
        let c = toy_cluster();
        let f = Factory::new(&c, Constants::default(), Config::default()).unwrap();
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        let put =
            |r, a| Statement::method("p/Cut", "put", "(I)V", Some(VarRef(r)), vec![VarRef(a)]);
        let original = Test::new(vec![
            Statement::Primitive(Prim::Int(5)),
            Statement::Primitive(Prim::Int(6)),
            Statement::constructor("p/Cut", "()V", vec![]),
            put(2, 1),
            put(2, 0),
        ]);
        // Replace v1 (an int) by two new statements: its use becomes the new value, later
        // values move up by one.
        let mut t = original.clone();
        let changed = f
            .splice(&mut t, 1, true, &mut rng, |g| {
                g.push(Statement::Primitive(Prim::Int(7)), Some(FieldType::Int))?;
                g.push(Statement::Primitive(Prim::Int(8)), Some(FieldType::Int))
            })
            .unwrap();
        assert!(changed);
        assert_eq!(
            t.statements,
            vec![
                Statement::Primitive(Prim::Int(5)),
                Statement::Primitive(Prim::Int(7)),
                Statement::Primitive(Prim::Int(8)),
                Statement::constructor("p/Cut", "()V", vec![]),
                put(3, 2),
                put(3, 0),
            ]
        );
        // Insert before the constructor: every later reference at or after 2 moves by one.
        let mut t = original.clone();
        assert!(
            f.splice(&mut t, 2, false, &mut rng, |g| g
                .push(Statement::Primitive(Prim::Int(9)), Some(FieldType::Int)))
                .unwrap()
        );
        assert_eq!(t.statements[4], put(3, 1));
        assert_eq!(t.statements[5], put(3, 0));
        // A generator that gives up, or a splice past the length limit, changes nothing.
        let mut t = original.clone();
        let gave_up = f.splice(&mut t, 3, false, &mut rng, |g| {
            g.push(Statement::Primitive(Prim::Int(1)), Some(FieldType::Int))?;
            None
        });
        assert!(!gave_up.unwrap());
        assert_eq!(t, original);
        let tight = Factory::new(
            &c,
            Constants::default(),
            Config {
                max_test_length: 5,
                ..Config::default()
            },
        )
        .unwrap();
        let mut t = original.clone();
        let full = tight.splice(&mut t, 5, false, &mut rng, |g| {
            g.push(Statement::Primitive(Prim::Int(1)), Some(FieldType::Int))
        });
        assert!(!full.unwrap());
        assert_eq!(t, original);
    }

    #[test]
    fn calls_on_values_include_result_methods_of_other_classes() {
        let mut c = toy_cluster();
        let mut area = op(
            OperationKind::Method,
            "area",
            "()D",
            &[],
            Some(FieldType::Double),
            false,
        );
        area.class = "p/Circle".into();
        area.declared_in = "p/Circle".into();
        c.result_methods.insert("p/Circle".into(), vec![area]);
        let f = Factory::new(&c, Constants::default(), Config::default()).unwrap();
        let base = Test::new(vec![
            Statement::Primitive(Prim::Double(ferrosuite_testcase::statement::JDouble(2.0))),
            Statement::constructor("p/Circle", "(D)V", vec![VarRef(0)]),
        ]);
        let (mut on_circle, mut on_cut) = (0, 0);
        for seed in 0..40 {
            let mut rng = ChaCha8Rng::seed_from_u64(seed);
            let mut t = base.clone();
            f.insert_call_on_value(&mut t, 2, &mut rng).unwrap();
            t.validate().unwrap();
            match &t.statements[2..] {
                [
                    Statement::Method {
                        class,
                        name,
                        receiver: Some(VarRef(1)),
                        ..
                    },
                ] if &**class == "p/Circle" && &**name == "area" => {
                    on_circle += 1;
                    assert_eq!(
                        f.call_for(&t.statements[2]).map(|c| &*c.operation().name),
                        Some("area")
                    );
                }
                _ => on_cut += 1, // no CUT value before: a fresh call on the CUT
            }
        }
        assert_eq!(
            on_circle, 40,
            "the only value with calls is the circle ({on_cut} others)"
        );
        // With a CUT value too, both kinds of receiver are picked.
        let mut both = base.clone();
        both.statements
            .push(Statement::constructor("p/Cut", "()V", vec![]));
        let mut circle_calls = 0;
        for seed in 0..40 {
            let mut rng = ChaCha8Rng::seed_from_u64(seed);
            let mut t = both.clone();
            f.insert_call_on_value(&mut t, 3, &mut rng).unwrap();
            t.validate().unwrap();
            if matches!(&t.statements[3], Statement::Method { class, .. } if &**class == "p/Circle")
            {
                circle_calls += 1;
            }
        }
        assert!((5..35).contains(&circle_calls), "{circle_calls} of 40");
    }

    #[test]
    fn splices_never_exceed_the_length_limit() {
        let c = toy_cluster();
        let config = Config {
            max_test_length: 3,
            ..Config::default()
        };
        let f = Factory::new(&c, Constants::default(), config).unwrap();
        let mut rng = ChaCha8Rng::seed_from_u64(2);
        for _ in 0..100 {
            let t = f.random_test(&mut rng).unwrap();
            assert!(t.len() <= 3 && !t.is_empty());
            t.validate().unwrap();
        }
    }

    #[test]
    fn an_empty_cluster_is_an_error() {
        let mut c = toy_cluster();
        c.constructors.clear();
        c.methods.clear();
        c.fields.clear();
        assert!(matches!(
            Factory::new(&c, Constants::default(), Config::default()),
            Err(Error::NothingToCall(_))
        ));
    }

    #[test]
    fn a_cluster_whose_types_contradict_its_descriptors_is_an_error() {
        // Splices type generated statements by what the cluster records: a recorded return
        // type that is not the descriptor's is refused up front, as is a broken descriptor.
        let mut c = toy_cluster();
        let m = c.methods.iter_mut().find(|m| m.ret.is_some()).unwrap();
        m.ret = Some(TypeUse::plain(FieldType::Object("p/Other".into())));
        let e = Factory::new(&c, Constants::default(), Config::default()).unwrap_err();
        assert!(matches!(e, Error::Cluster(_)), "{e}");
        assert!(e.to_string().contains("p/Cut"), "{e}");
        let mut c = toy_cluster();
        let m = c.methods.iter_mut().find(|m| m.ret.is_some()).unwrap();
        m.descriptor = "(I".into();
        assert!(Factory::new(&c, Constants::default(), Config::default()).is_err());
    }
}
