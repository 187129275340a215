//! Java source of one test class: statements as Java, assertions, expected exceptions, names
//! and imports.
//!
//! How a test becomes a method (JUnit 5 shown; JUnit 4 differs in imports, `@Test(timeout)`
//! and `try`/`fail`/`catch` for exceptions):
//!
//! ```text
//! v0 = new Stack()                       @Test
//! v1 = 3                                 @Timeout(4)
//! v0.push(v1)                 ──►        public void pop() throws Throwable {
//! v2 = v0.pop()   → 3                        Stack stack = new Stack();
//! v0.pop()        → throws                   stack.push(3);
//!   EmptyStackException                      int i = stack.pop();
//!                                            assertEquals(3, i);
//!                                            assertThrows(EmptyStackException.class, () -> stack.pop());
//!                                        }
//! ```
//!
//! - A primitive or `null` used once as an argument is written in place (`stack.push(3)`);
//!   a value nothing uses and nothing asserts is not declared (`stack.push(3);` rather than a
//!   variable for its result).
//! - An argument whose variable's declared type is not the parameter's type is cast to it
//!   (`m((Object) string)`), so the call resolves to the overload that was executed; a
//!   receiver declared with another type than the method's class is cast likewise.
//! - Values are declared with the type arguments their signatures give (`List<String>`,
//!   `new ArrayList<Object>()`: the `generics` module); an argument is cast only where an
//!   overload or its declared type needs it. A test that still writes a generic class raw
//!   carries `@SuppressWarnings({"rawtypes", "unchecked"})` on its method, one that uses
//!   deprecated API `@SuppressWarnings("deprecation")`; the class carries none.
//! - Class names are imported when their simple name is unambiguous in the file and written
//!   in full otherwise; classes of the test's package and `java.lang` need no import.
//! - Variables are named after the field or parameter they feed when [`TypeInfo`] knows it,
//!   else after their type ([`crate::names::type_base`]); tests after the method they end with
//!   and its outcome (`popThrowsEmptyStackException`, `isEmptyReturnsTrue`), numbered only
//!   when names clash.

mod checks;
mod environment;
mod generics;
mod imports;
mod method;
mod mocking;
#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests;

use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::path::PathBuf;
use std::time::Duration;

use ferrosuite_bytecode::descriptor::FieldType;
use ferrosuite_executor::{Observed, Outcome, Status, TestResult, ThrowKind};
use ferrosuite_testcase::Test;
use ferrosuite_testcase::cluster::{GenericType, MethodSignature};
use serde::{Deserialize, Serialize};

use crate::assertions::{Assertion, Check, Limits, candidates};
use crate::error::{Error, Result};
use crate::names::{Scope, is_identifier, package_of};

pub use generics::{GenericClass, generic_of};
use generics::{Generics, Typing, classes_of};
use imports::{TypeNames, collect_classes};
use method::{MethodWriter, written_values};

/// The JUnit version to write for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum JUnit {
    /// JUnit 4 (`org.junit.Test`, `Assert`).
    Four,
    /// JUnit 5 Jupiter (`org.junit.jupiter.api`).
    #[default]
    Five,
}

/// Settings of emission.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Config {
    /// JUnit version.
    pub junit: JUnit,
    /// Simple name of the test class; `None`: the CUT's simple name + [`class_suffix`].
    ///
    /// [`class_suffix`]: Config::class_suffix
    pub class_name: Option<String>,
    /// What follows the CUT's simple name in the test class's name (`Test`: `StackTest`).
    pub class_suffix: String,
    /// Time limit of each test method (EvoSuite's default: 4 s).
    pub timeout: Duration,
    /// How many assertions to keep.
    pub limits: Limits,
    /// Write the hooks that make the code under test read the controlled environment (the
    /// virtual clock, seeded randomness, files and console it read in the search); the tests need
    /// `ferrosuite-runtime.jar` and Byte Buddy's agent on their class path.
    #[serde(default)]
    pub environment: bool,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            junit: JUnit::Five,
            class_name: None,
            class_suffix: "Test".into(),
            timeout: Duration::from_secs(4),
            limits: Limits::default(),
            environment: false,
        }
    }
}

/// What emission may ask about classes of the classpath. Every method has a conservative
/// default, so [`Permissive`] works without a classpath (and writes more casts and fewer
/// inspector assertions than a real implementation).
pub trait TypeInfo {
    /// Whether `class` (internal name) can be named in source of package `package`
    /// (dotted), e.g. public, or package-private in the same package.
    fn accessible(&self, class: &str, package: &str) -> bool {
        let _ = (class, package);
        true
    }

    /// The direct superclass of `class` (internal names), if known.
    fn superclass(&self, class: &str) -> Option<String> {
        let _ = class;
        None
    }

    /// The return type of the public no-argument method `name` of `class` (or its
    /// supertypes), if there is one: inspector assertions are written only for known ones.
    fn inspector_type(&self, class: &str, name: &str) -> Option<FieldType> {
        let _ = (class, name);
        None
    }

    /// The parameter types `javac` sees for a call of `name` `descriptor` on `class`, when
    /// they differ from the descriptor's: a descriptor that is a *bridge* (the erased
    /// `compareTo(Object)` of a `Comparable<Fraction>`) is not callable from source, and its
    /// arguments must be written for the method it bridges to (`compareTo(Fraction)`).
    fn source_params(&self, class: &str, name: &str, descriptor: &str) -> Option<Vec<FieldType>> {
        let _ = (class, name, descriptor);
        None
    }

    /// Whether source can use the member `name` `descriptor` (a method, constructor or field)
    /// of `class` (internal name), declared there or inherited: false when the compilation
    /// target lacks it (`List.of` under `--release 8`) or `class` is unknown.
    fn has_member(&self, class: &str, name: &str, descriptor: &str) -> bool {
        let _ = (class, name, descriptor);
        true
    }

    /// The type parameters and direct supertypes of `class` (see [`GenericClass`]); `None`
    /// when the class is unknown. Without it every generic class is written raw.
    fn generic_class(&self, class: &str) -> Option<GenericClass> {
        let _ = class;
        None
    }

    /// The class declaring the method or constructor `name` `descriptor` that a call on
    /// `class` reaches (itself or a supertype), and its generic signature (from the
    /// descriptor when it has no `Signature`); `None` when unknown or when the signature's
    /// parameters do not match the descriptor's (an inner class's constructor).
    fn method_signature(
        &self,
        class: &str,
        name: &str,
        descriptor: &str,
    ) -> Option<(String, MethodSignature)> {
        let _ = (class, name, descriptor);
        None
    }

    /// How many methods (constructors for `<init>`) named `name` with `arity` parameters a
    /// call on `class` can reach; `None` when unknown. With one, an argument needs no cast to
    /// pick the overload that was executed.
    fn overloads(&self, class: &str, name: &str, arity: usize) -> Option<usize> {
        let _ = (class, name, arity);
        None
    }

    /// Whether source using `member` (name and descriptor; `None`: the class itself) of
    /// `class` is using deprecated API (the member or its class carries `Deprecated`): the
    /// test method then needs `@SuppressWarnings("deprecation")`.
    fn deprecated(&self, class: &str, member: Option<(&str, &str)>) -> bool {
        let _ = (class, member);
        false
    }

    /// The class declaring field `name` reached from `class`, and the field's generic type.
    fn field_signature(&self, class: &str, name: &str) -> Option<(String, GenericType)> {
        let _ = (class, name);
        None
    }

    /// The source name of parameter `index` of method `name` `descriptor` of `class`, if the
    /// class file records it.
    fn parameter_name(
        &self,
        class: &str,
        name: &str,
        descriptor: &str,
        index: usize,
    ) -> Option<String> {
        let _ = (class, name, descriptor, index);
        None
    }
}

/// A [`TypeInfo`] that knows nothing: everything is accessible, no inspector is known.
#[derive(Debug, Clone, Copy, Default)]
pub struct Permissive;

impl TypeInfo for Permissive {}

/// One test ready to be written: the statements, the assertions to write, and the expected
/// exception of its last statement.
#[derive(Debug, Clone, PartialEq)]
pub struct EmitTest {
    /// The test (statements after `expected`'s statement are not written).
    pub test: Test,
    /// Assertions, in statement order.
    pub assertions: Vec<Assertion>,
    /// The statement that throws and the exception's binary class name.
    pub expected: Option<(usize, String)>,
    /// The expected exception's message, asserted too ([`stable_message`]).
    pub message: Option<String>,
    /// Write every value with its erased type (generic classes raw), not the parameterised
    /// types the signatures give: for a test whose inferred types do not compile.
    pub raw_types: bool,
}

impl EmitTest {
    /// A test and its final run: candidate assertions ([`candidates`]) and the exception the
    /// code threw, if any. `None` when the run cannot become a regression test: it timed out,
    /// crashed its worker, was aborted, was invalid, or was stopped by the sandbox or by a
    /// resource error (those outcomes would not repeat under JUnit).
    #[must_use]
    pub fn from_result(test: &Test, result: &TestResult, limits: &Limits) -> Option<EmitTest> {
        if !matches!(result.status, Status::Completed | Status::Stopped) {
            return None;
        }
        let mut expected = None;
        let mut message = None;
        for (i, o) in result.outcomes.iter().enumerate() {
            if let Outcome::Threw(t) = o {
                if t.kind != ThrowKind::Code {
                    return None;
                }
                expected = Some((i, t.class.clone()));
                message = stable_message(t);
                break;
            }
        }
        let end = expected.as_ref().map_or(test.len(), |(i, _)| i + 1);
        if result.outcomes.len() < end {
            return None;
        }
        let mut test = test.clone();
        test.statements.truncate(end);
        let assertions = candidates(&test, result, limits);
        Some(EmitTest {
            test,
            assertions,
            expected,
            raw_types: false,
            message,
        })
    }
}

/// The message of an expected exception worth asserting: one the library wrote — not the
/// JDK's, whose messages change between releases: not thrown in a JDK frame, not one the JVM
/// makes for a failed bytecode (an array index, a cast, a division by zero, a helpful
/// `NullPointerException`'s "Cannot invoke … because …") — short, on one line and without an
/// identity hash.
#[must_use]
pub fn stable_message(t: &ferrosuite_executor::Thrown) -> Option<String> {
    const JVM_MADE: [&str; 5] = [
        "java.lang.ArrayIndexOutOfBoundsException",
        "java.lang.ClassCastException",
        "java.lang.ArrayStoreException",
        "java.lang.NegativeArraySizeException",
        "java.lang.ArithmeticException",
    ];
    let m = t.message.as_ref()?;
    let jdk = ["java.", "javax.", "jdk.", "sun.", "com.sun."];
    let thrower = t.frames.first()?;
    let helpful_npe = t.class == "java.lang.NullPointerException"
        && m.starts_with("Cannot ")
        && m.contains(" because ");
    if jdk.iter().any(|p| thrower.starts_with(p))
        || JVM_MADE.contains(&t.class.as_str())
        || helpful_npe
        || m.len() > 200
        || m.contains(['\n', '\r'])
        || !crate::assertions::writable(&ferrosuite_executor::Observed::String {
            text: m.clone(),
            truncated: false,
        })
    {
        return None;
    }
    Some(m.clone())
}

impl EmitTest {
    /// Keeps the first `len` statements and their assertions, without the expected exception
    /// (a test cut before the statement that threw it).
    pub fn truncate(&mut self, len: usize) {
        self.test.statements.truncate(len);
        self.assertions.retain(|a| a.statement < len);
        if self.expected.as_ref().is_some_and(|(i, _)| *i >= len) {
            self.expected = None;
            self.message = None;
        }
    }

    /// Drops the assertions whose expected value names a class Java source in `package`
    /// (dotted) cannot name — an enum constant of a private nested enum an inspector returned,
    /// say: the assertion cannot be written, but the test can. Returns how many went.
    pub fn drop_inaccessible_assertions(&mut self, types: &dyn TypeInfo, package: &str) -> usize {
        let before = self.assertions.len();
        self.assertions.retain(|a| match &a.expected {
            Observed::Enum { class, .. } => types.accessible(&class.replace('.', "/"), package),
            _ => true,
        });
        before - self.assertions.len()
    }

    /// The first class this test's source would have to name that Java source in `package`
    /// (dotted) cannot name — a package-private JDK class a generator returned, say (the JVM
    /// lets JNI reach it during the search; `javac` does not). `None` when every class is
    /// accessible. Such a test cannot be written and must be left out.
    #[must_use]
    pub fn inaccessible_class(&self, types: &dyn TypeInfo, package: &str) -> Option<String> {
        let mut used = BTreeSet::new();
        if collect_classes(self, &mut used, types, package).is_err() {
            return None;
        }
        // The runtime's `Environment` (environment statements) comes with the runtime jar
        // written beside the tests.
        used.into_iter()
            .find(|c| {
                !ferrosuite_testcase::cluster::environment::is_environment_class(c)
                    && !types.accessible(c, package)
            })
            .map(|c| c.replace('/', "."))
    }
}

/// How every emitted test file begins: a tool that writes test files (the batch runs of
/// `ferrosuite-generate`) tells its own files, which it may skip or replace, from the user's,
/// which it never touches.
pub const MARKER: &str = "// Generated by ferrosuite";

/// A written test class.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EmittedClass {
    /// Package (dotted; empty for the default package).
    pub package: String,
    /// Simple name of the class.
    pub class_name: String,
    /// Path of the file relative to a source root (`p/q/FooTest.java`).
    pub path: PathBuf,
    /// The source text.
    pub source: String,
    /// The test method names, in test order.
    pub test_names: Vec<String>,
}

/// Writes the test class for `cut` (internal name) with `tests`.
pub fn emit_class(
    cut: &str,
    tests: &[EmitTest],
    config: &Config,
    types: &dyn TypeInfo,
) -> Result<EmittedClass> {
    emit(cut, tests, config, types).map(|(class, _)| class)
}

/// Per test of [`emit_class`]'s `tests`, the indices of the assertions its source cannot
/// write: an inspector the variable's declared type lacks (`isEmpty()` on an `Appendable`, or
/// on a `StringBuilder` under a release before 15), an expected value no literal expresses.
/// A choice among assertions should not count on them.
///
/// # Errors
/// As [`emit_class`].
pub fn unwritten_assertions(
    cut: &str,
    tests: &[EmitTest],
    config: &Config,
    types: &dyn TypeInfo,
) -> Result<Vec<Vec<usize>>> {
    emit(cut, tests, config, types).map(|(_, unwritten)| unwritten)
}

/// [`emit_class`], with [`unwritten_assertions`].
fn emit(
    cut: &str,
    tests: &[EmitTest],
    config: &Config,
    types: &dyn TypeInfo,
) -> Result<(EmittedClass, Vec<Vec<usize>>)> {
    let package = package_of(cut);
    let cut_simple = cut.rsplit('/').next().unwrap_or(cut);
    let nested: Vec<&str> = cut_simple.split('$').collect();
    if nested.iter().any(|n| !is_identifier(n)) {
        return Err(Error::Name(format!(
            "{cut} has no name Java source can use (anonymous or local class)"
        )));
    }
    let class_name = config
        .class_name
        .clone()
        .unwrap_or_else(|| format!("{}{}", nested.join("_"), config.class_suffix));
    if !is_identifier(&class_name) {
        return Err(Error::Name(format!(
            "{class_name:?} is not a Java class name"
        )));
    }
    let junit = JunitNames::of(config.junit);
    // Every class the file names, to decide imports.
    let mut used: BTreeSet<String> = BTreeSet::new();
    let generics = Generics::new(types);
    let mut typings = Vec::with_capacity(tests.len());
    for (k, t) in tests.iter().enumerate() {
        collect_classes(t, &mut used, types, &package)
            .map_err(|detail| Error::Test { test: k, detail })?;
        let (stmts, decl) = written_values(t).map_err(|detail| Error::Test { test: k, detail })?;
        let typing = if t.raw_types {
            Typing::raw(stmts.len())
        } else {
            Typing::infer(stmts, &decl, &generics, &package)
        };
        for g in typing.types.iter().flatten() {
            classes_of(g, &mut used);
        }
        typings.push(typing);
    }
    for c in junit.types {
        used.insert((*c).to_string());
    }
    let any = |f: fn(&ferrosuite_testcase::Statement) -> bool| {
        tests.iter().any(|t| t.test.statements.iter().any(f))
    };
    // The types the tests mock (each gets one mock in the class hook).
    let mocked: BTreeSet<String> = tests
        .iter()
        .flat_map(|t| &t.test.statements)
        .filter_map(|s| match s {
            ferrosuite_testcase::Statement::Mock { class, .. } => Some(class.to_string()),
            _ => None,
        })
        .collect();
    let mocks = !mocked.is_empty();
    let private = any(|s| matches!(s, ferrosuite_testcase::Statement::Private(_)))
        || tests.iter().any(|t| {
            t.assertions.iter().any(|a| match &a.check {
                Check::Inspector(m) | Check::ReceiverInspector(m) | Check::Argument(_, m) => {
                    m.starts_with('#')
                }
                Check::Value | Check::Same(_) => false,
            })
        });
    let [answer, aborted] = mocking::classes(config.junit);
    if mocks {
        used.insert(answer.to_string());
        used.insert(environment::annotations(config.junit)[0].to_string());
    }
    if mocks || private {
        used.insert(aborted.to_string());
    }
    if config.junit == JUnit::Five && config.timeout.subsec_millis() != 0 {
        used.insert("java/util/concurrent/TimeUnit".into());
    }
    if config.environment {
        used.insert(environment::ENVIRONMENT.to_string());
        used.extend(environment::annotations(config.junit).map(str::to_string));
    }
    let names = TypeNames::with(&used, &package, &class_name, &|c| {
        package_of(c) != package && types.deprecated(c, None)
    });
    let mut methods = Vec::new();
    let mut method_scope = Scope::with_taken(
        [
            "toString",
            "hashCode",
            "getClass",
            "wait",
            "notify",
            "notifyAll",
            "clone",
            "finalize",
            "equals",
        ]
        .into_iter()
        .chain(environment::HOOKS)
        .chain([mocking::PREPARE_MOCKS]),
    );
    let mut statics: BTreeSet<&'static str> = BTreeSet::new();
    for (k, (t, typing)) in tests.iter().zip(&typings).enumerate() {
        let w = MethodWriter {
            t,
            cut,
            config,
            types,
            names: &names,
            package: &package,
            typing,
            generics: &generics,
            raw: std::cell::Cell::new(false),
        };
        let m = w
            .write(&mut method_scope, &mut statics)
            .map_err(|detail| Error::Test { test: k, detail })?;
        methods.push(m);
    }
    let mut out = String::new();
    let _ = writeln!(out, "{MARKER} for {}.", cut.replace('/', "."));
    if !package.is_empty() {
        let _ = writeln!(out, "package {package};\n");
    }
    if mocks {
        // The class hook mocks each type once.
        statics.insert(mocking::MOCK);
    }
    for s in statics.iter().filter(|s| !s.is_empty()) {
        if s.starts_with("org.mockito.") {
            let _ = writeln!(out, "import static {s};");
        } else {
            let _ = writeln!(out, "import static {}.{s};", junit.assertions);
        }
    }
    if !statics.is_empty() {
        out.push('\n');
    }
    for i in names.imports() {
        let _ = writeln!(out, "import {i};");
    }
    out.push('\n');
    let _ = writeln!(out, "public class {class_name} {{");
    if mocks {
        out.push('\n');
        out.push_str(&mocking::unstubbed_field(config.junit, &|c| names.name(c)));
        out.push('\n');
        out.push_str(&mocking::prepare_mocks_method(
            config.junit,
            &mocked,
            &|c| names.name(c),
        ));
    }
    if private {
        out.push('\n');
        out.push_str(&mocking::private_access_class(config.junit, &|c| {
            names.name(c)
        }));
    }
    if (mocks || private) && config.junit == JUnit::Five && statics.contains("assertThrows") {
        out.push('\n');
        out.push_str(&mocking::assert_throws_method(&|c| names.name(c)));
    }
    if config.environment {
        out.push('\n');
        out.push_str(&environment::hooks(config.junit, &|c| names.name(c)));
    }
    let mut test_names = Vec::new();
    for m in &methods {
        let (name, body) = (&m.name, &m.body);
        out.push('\n');
        let test = names.name("org/junit/jupiter/api/Test");
        match config.junit {
            JUnit::Five => {
                let _ = writeln!(out, "    @{test}");
                let _ = writeln!(out, "    @{}", timeout_annotation(&names, config.timeout));
            }
            JUnit::Four => {
                let _ = writeln!(
                    out,
                    "    @{}(timeout = {})",
                    names.name("org/junit/Test"),
                    config.timeout.as_millis()
                );
            }
        }
        if let Some(annotation) = m.suppress.annotation() {
            // Only where the test writes a generic class raw or uses deprecated API: the
            // rest of the class keeps javac's warnings.
            let _ = writeln!(out, "    {annotation}");
        }
        let _ = writeln!(out, "    public void {name}() throws Throwable {{");
        out.push_str(body);
        out.push_str("    }\n");
        test_names.push(name.clone());
    }
    out.push_str("}\n");
    let unwritten = methods.into_iter().map(|m| m.unwritten).collect();
    let mut path: PathBuf = package.split('.').filter(|p| !p.is_empty()).collect();
    path.push(format!("{class_name}.java"));
    Ok((
        EmittedClass {
            package,
            class_name,
            path,
            source: out,
            test_names,
        },
        unwritten,
    ))
}

fn timeout_annotation(names: &TypeNames, t: Duration) -> String {
    let timeout = names.name("org/junit/jupiter/api/Timeout");
    if t.subsec_millis() == 0 {
        format!("{timeout}({})", t.as_secs())
    } else {
        format!(
            "{timeout}(value = {}, unit = {}.MILLISECONDS)",
            t.as_millis(),
            names.name("java/util/concurrent/TimeUnit")
        )
    }
}

/// The JUnit classes a file uses.
struct JunitNames {
    types: &'static [&'static str],
    assertions: &'static str,
}

impl JunitNames {
    fn of(j: JUnit) -> Self {
        match j {
            JUnit::Five => JunitNames {
                types: &[
                    "org/junit/jupiter/api/Test",
                    "org/junit/jupiter/api/Timeout",
                ],
                assertions: "org.junit.jupiter.api.Assertions",
            },
            JUnit::Four => JunitNames {
                types: &["org/junit/Test"],
                assertions: "org.junit.Assert",
            },
        }
    }
}
