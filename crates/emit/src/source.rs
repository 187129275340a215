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
//! - Types are raw and erased (what the descriptors say), so the class carries
//!   `@SuppressWarnings({"rawtypes", "unchecked"})`.
//! - Class names are imported when their simple name is unambiguous in the file and written
//!   in full otherwise; classes of the test's package and `java.lang` need no import.
//! - Variables are named after the field or parameter they feed when [`TypeInfo`] knows it,
//!   else after their type ([`crate::names::type_base`]); tests after the method they end with
//!   and its outcome (`popThrowsEmptyStackException`, `isEmptyReturnsTrue`), numbered only
//!   when names clash.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::PathBuf;
use std::time::Duration;

use ferrosuite_bytecode::descriptor::{FieldType, MethodDescriptor};
use ferrosuite_executor::{Observed, Outcome, Status, TestResult, ThrowKind};
use ferrosuite_testcase::statement::{Prim, java_type, string_literal};
use ferrosuite_testcase::{Statement, Test, VarRef};
use serde::{Deserialize, Serialize};

use crate::assertions::{Assertion, Check, Limits, candidates};
use crate::error::{Error, Result};
use crate::names::{
    Scope, is_identifier, lower_camel, package_of, simple_name, type_base, upper_camel,
};

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
}

impl Default for Config {
    fn default() -> Self {
        Config {
            junit: JUnit::Five,
            class_name: None,
            class_suffix: "Test".into(),
            timeout: Duration::from_secs(4),
            limits: Limits::default(),
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
        for (i, o) in result.outcomes.iter().enumerate() {
            if let Outcome::Threw(t) = o {
                if t.kind != ThrowKind::Code {
                    return None;
                }
                expected = Some((i, t.class.clone()));
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
        })
    }
}

impl EmitTest {
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
        used.into_iter()
            .find(|c| !types.accessible(c, package))
            .map(|c| c.replace('/', "."))
    }
}

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
    for (k, t) in tests.iter().enumerate() {
        collect_classes(t, &mut used, types, &package)
            .map_err(|detail| Error::Test { test: k, detail })?;
    }
    for c in junit.types {
        used.insert((*c).to_string());
    }
    if config.junit == JUnit::Five && config.timeout.subsec_millis() != 0 {
        used.insert("java/util/concurrent/TimeUnit".into());
    }
    let names = TypeNames::new(&used, &package, &class_name);
    let mut methods = Vec::new();
    let mut method_scope = Scope::with_taken([
        "toString",
        "hashCode",
        "getClass",
        "wait",
        "notify",
        "notifyAll",
        "clone",
        "finalize",
        "equals",
    ]);
    let mut statics: BTreeSet<&'static str> = BTreeSet::new();
    for (k, t) in tests.iter().enumerate() {
        let w = MethodWriter {
            t,
            cut,
            config,
            types,
            names: &names,
            package: &package,
        };
        let m = w
            .write(&mut method_scope, &mut statics)
            .map_err(|detail| Error::Test { test: k, detail })?;
        methods.push(m);
    }
    let mut out = String::new();
    if !package.is_empty() {
        let _ = writeln!(out, "package {package};\n");
    }
    for s in &statics {
        let _ = writeln!(out, "import static {}.{s};", junit.assertions);
    }
    if !statics.is_empty() {
        out.push('\n');
    }
    for i in names.imports() {
        let _ = writeln!(out, "import {i};");
    }
    out.push('\n');
    let _ = writeln!(
        out,
        "@SuppressWarnings({{\"rawtypes\", \"unchecked\", \"deprecation\"}})"
    );
    let _ = writeln!(out, "public class {class_name} {{");
    let mut test_names = Vec::new();
    for (name, body) in &methods {
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
        let _ = writeln!(out, "    public void {name}() throws Throwable {{");
        out.push_str(body);
        out.push_str("    }\n");
        test_names.push(name.clone());
    }
    out.push_str("}\n");
    let mut path: PathBuf = package.split('.').filter(|p| !p.is_empty()).collect();
    path.push(format!("{class_name}.java"));
    Ok(EmittedClass {
        package,
        class_name,
        path,
        source: out,
        test_names,
    })
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

/// How each class is written in one file: simple (imported or not needing an import) or in
/// full.
struct TypeNames {
    /// Top-level class (internal name) → how it is written.
    written: BTreeMap<String, String>,
    imports: BTreeSet<String>,
    /// Names a variable must not take: simple type names and first package segments.
    reserved: BTreeSet<String>,
}

fn top_level(internal: &str) -> (&str, &str) {
    let start = internal.rfind('/').map_or(0, |i| i + 1);
    match internal[start..].find('$') {
        Some(j) => (&internal[..start + j], &internal[start + j..]),
        None => (internal, ""),
    }
}

impl TypeNames {
    fn new(used: &BTreeSet<String>, package: &str, test_class: &str) -> Self {
        let mut by_simple: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
        for c in used {
            let (top, _) = top_level(c);
            by_simple.entry(simple_name(top)).or_default().insert(top);
        }
        let mut written = BTreeMap::new();
        let mut imports = BTreeSet::new();
        let mut reserved = BTreeSet::new();
        for (simple, tops) in &by_simple {
            let local = |t: &str| package_of(t) == package;
            let lang = |t: &str| package_of(t) == "java.lang";
            // Who gets the simple name: a class of the test's package, else one of
            // java.lang, else a lone class (imported). The others are written in full.
            let winner: Option<&str> = if *simple == test_class {
                None
            } else if let Some(t) = tops.iter().find(|t| local(t)) {
                Some(t)
            } else if let Some(t) = tops.iter().find(|t| lang(t)) {
                Some(t)
            } else if tops.len() == 1 {
                tops.iter().next().copied()
            } else {
                None
            };
            for t in tops {
                if Some(*t) == winner {
                    written.insert((*t).to_string(), (*simple).to_string());
                    if !local(t) && !lang(t) {
                        imports.insert(t.replace('/', "."));
                    }
                } else {
                    written.insert((*t).to_string(), t.replace('/', "."));
                    if let Some(first) = t.split('/').next() {
                        reserved.insert(first.to_string());
                    }
                }
                reserved.insert((*simple).to_string());
            }
        }
        TypeNames {
            written,
            imports,
            reserved,
        }
    }

    /// How class `internal` is written (nested classes through their top-level class).
    fn name(&self, internal: &str) -> String {
        let (top, rest) = top_level(internal);
        let base = self
            .written
            .get(top)
            .cloned()
            .unwrap_or_else(|| top.replace('/', "."));
        format!("{base}{}", rest.replace('$', "."))
    }

    fn ty(&self, t: &FieldType) -> String {
        match t {
            FieldType::Object(c) => self.name(c),
            FieldType::Array(c) => format!("{}[]", self.ty(c)),
            prim => java_type(prim),
        }
    }

    fn imports(&self) -> impl Iterator<Item = &String> {
        self.imports.iter()
    }
}

fn add_type(t: &FieldType, used: &mut BTreeSet<String>) {
    match t {
        FieldType::Object(c) => {
            used.insert(c.clone());
        }
        FieldType::Array(c) => add_type(c, used),
        _ => {}
    }
}

fn value_type(s: &Statement) -> std::result::Result<Option<FieldType>, String> {
    s.value_type().map_err(|e| e.to_string())
}

/// The classes a test's source names (a superset is harmless: an unused import is only
/// noise, and names not collected are written in full).
fn collect_classes(
    t: &EmitTest,
    used: &mut BTreeSet<String>,
    types: &dyn TypeInfo,
    package: &str,
) -> std::result::Result<(), String> {
    for s in &t.test.statements {
        if let Some(ty) = value_type(s)? {
            add_type(&ty, used);
        }
        match s {
            Statement::Constructor {
                class, descriptor, ..
            }
            | Statement::Method {
                class, descriptor, ..
            } => {
                used.insert(class.to_string());
                let d = MethodDescriptor::parse(descriptor).map_err(|e| e.to_string())?;
                for p in &d.params {
                    add_type(p, used);
                }
            }
            Statement::FieldRead {
                class, descriptor, ..
            }
            | Statement::FieldWrite {
                class, descriptor, ..
            } => {
                used.insert(class.to_string());
                add_type(
                    &FieldType::parse(descriptor).map_err(|e| e.to_string())?,
                    used,
                );
            }
            Statement::EnumConstant { class, .. } => {
                used.insert(class.to_string());
            }
            Statement::ArrayNew { component, .. } => add_type(component, used),
            Statement::Cast { ty, .. } | Statement::Null { ty } => add_type(ty, used),
            _ => {}
        }
    }
    for a in &t.assertions {
        if let Observed::Enum { class, .. } = &a.expected {
            used.insert(class.replace('.', "/"));
        }
    }
    if let Some((_, e)) = &t.expected {
        used.insert(catchable(&e.replace('.', "/"), types, package));
    }
    used.insert("java/lang/Exception".into());
    Ok(())
}

/// The exception class to name for `class`: itself when accessible from the test's
/// package, else its nearest accessible superclass (`Throwable` when none is known).
fn catchable(class: &str, types: &dyn TypeInfo, package: &str) -> String {
    let mut c = class.to_string();
    for _ in 0..64 {
        if types.accessible(&c, package) {
            return c;
        }
        match types.superclass(&c) {
            Some(s) => c = s,
            None => break,
        }
    }
    "java/lang/Throwable".into()
}

/// Whether catching `class` needs a `throws` in the `try` body: a checked exception (known
/// to extend `Exception` but not `RuntimeException`). Unknown hierarchies count as
/// unchecked.
fn is_checked(class: &str, types: &dyn TypeInfo) -> bool {
    let mut c = class.to_string();
    for _ in 0..64 {
        match c.as_str() {
            "java/lang/RuntimeException" | "java/lang/Error" => return false,
            "java/lang/Exception" | "java/lang/Throwable" => return true,
            _ => {}
        }
        match types.superclass(&c) {
            Some(s) => c = s,
            None => return false,
        }
    }
    false
}

/// Writes one test method.
struct MethodWriter<'a> {
    t: &'a EmitTest,
    cut: &'a str,
    config: &'a Config,
    types: &'a dyn TypeInfo,
    names: &'a TypeNames,
    package: &'a str,
}

/// How a statement's value appears in the method.
#[derive(Debug, Clone)]
enum Value {
    /// Not written (unused constant) or no value (void).
    None,
    /// Written in place where it is used.
    Inline(String),
    /// A variable.
    Var(String),
}

impl MethodWriter<'_> {
    #[allow(clippy::too_many_lines)]
    fn write(
        &self,
        method_scope: &mut Scope,
        statics: &mut BTreeSet<&'static str>,
    ) -> std::result::Result<(String, String), String> {
        let stmts = &self.t.test.statements;
        let end = self.t.expected.as_ref().map_or(stmts.len(), |(i, _)| i + 1);
        let stmts = &stmts[..end.min(stmts.len())];
        let decl: Vec<Option<FieldType>> = stmts
            .iter()
            .map(value_type)
            .collect::<std::result::Result<_, _>>()?;
        // Uses of each value: by later statements (with the position) and by assertions.
        let mut uses: Vec<Vec<(usize, bool)>> = vec![Vec::new(); stmts.len()];
        for (j, s) in stmts.iter().enumerate() {
            let recv = receiver_of(s);
            for r in s.uses() {
                let i = r.index();
                if i >= j {
                    return Err(format!(
                        "statement {j} uses v{i}, which is not defined before"
                    ));
                }
                uses[i].push((j, Some(r) == recv || is_array_target(s, r)));
            }
        }
        let mut asserted = vec![false; stmts.len()];
        for a in &self.t.assertions {
            match &a.check {
                Check::Value | Check::Inspector(_) => {
                    if let Some(x) = asserted.get_mut(a.statement) {
                        *x = true;
                    }
                }
                Check::ReceiverInspector(_) => {
                    if let Some(r) = stmts.get(a.statement).and_then(receiver_of) {
                        if let Some(x) = asserted.get_mut(r.index()) {
                            *x = true;
                        }
                    }
                }
            }
        }
        // Names: variables must not shadow type names or package roots.
        let mut scope = Scope::with_taken(self.names.reserved.iter().map(String::as_str));
        let mut values: Vec<Value> = Vec::with_capacity(stmts.len());
        for (i, s) in stmts.iter().enumerate() {
            let used = !uses[i].is_empty() || asserted[i];
            let thrower = self.t.expected.as_ref().is_some_and(|(e, _)| *e == i);
            let v = match (s, &decl[i]) {
                (_, None) => Value::None,
                _ if thrower => Value::None,
                (Statement::Primitive(_) | Statement::Null { .. }, _)
                    if uses[i].len() == 1 && !uses[i][0].1 && !asserted[i] =>
                {
                    Value::Inline(Self::constant(s))
                }
                (
                    Statement::Primitive(_)
                    | Statement::Null { .. }
                    | Statement::EnumConstant { .. },
                    _,
                ) if !used => Value::None,
                (Statement::Method { .. } | Statement::Constructor { .. }, _) if !used => {
                    Value::None
                }
                (_, Some(ty)) => Value::Var(scope.fresh(&self.base_name(i, ty, &uses[i]))),
            };
            values.push(v);
        }
        let mut body = String::new();
        let ind = "        ";
        for (i, s) in stmts.iter().enumerate() {
            let thrower = self.t.expected.as_ref().filter(|(e, _)| *e == i);
            if matches!(values[i], Value::Inline(_))
                || (matches!(values[i], Value::None)
                    && matches!(
                        s,
                        Statement::Primitive(_)
                            | Statement::Null { .. }
                            | Statement::EnumConstant { .. }
                    )
                    && thrower.is_none())
            {
                continue;
            }
            let expr = self.expression(s, &values, &decl)?;
            if let Some((_, exception)) = thrower {
                self.expect(
                    &mut body,
                    s,
                    &expr,
                    exception,
                    decl[i].as_ref(),
                    &mut scope,
                    statics,
                );
                continue;
            }
            match (&values[i], &decl[i]) {
                (Value::Var(name), Some(ty)) => {
                    let _ = writeln!(body, "{ind}{} {name} = {expr};", self.names.ty(ty));
                }
                _ => {
                    let _ = writeln!(body, "{ind}{expr};");
                }
            }
            for a in self.t.assertions.iter().filter(|a| a.statement == i) {
                if let Some(line) = self.assertion(a, stmts, &values, &decl, statics) {
                    let _ = writeln!(body, "{ind}{line}");
                }
            }
        }
        let name = method_scope.fresh(&self.test_name(stmts));
        Ok((name, body))
    }

    /// The literal of a constant statement.
    fn constant(s: &Statement) -> String {
        match s {
            Statement::Primitive(p) => p.java_literal(),
            _ => "null".into(),
        }
    }

    /// The base of a variable's name: the field it is written to or the parameter it is
    /// passed as (when known and it has one use), else its type.
    fn base_name(&self, i: usize, ty: &FieldType, uses: &[(usize, bool)]) -> String {
        if let [(j, false)] = uses {
            let call = match &self.t.test.statements[*j] {
                Statement::FieldWrite { name, .. } => return lower_camel(name),
                Statement::Method {
                    class,
                    name,
                    descriptor,
                    args,
                    ..
                } => Some((class, name.as_ref(), descriptor, args)),
                Statement::Constructor {
                    class,
                    descriptor,
                    args,
                } => Some((class, "<init>", descriptor, args)),
                _ => None,
            };
            if let Some((class, name, descriptor, args)) = call {
                let param = args
                    .iter()
                    .position(|a| a.index() == i)
                    .and_then(|k| self.types.parameter_name(class, name, descriptor, k));
                if let Some(p) = param.filter(|p| is_identifier(p)) {
                    return p;
                }
            }
        }
        type_base(ty)
    }

    /// `v` as an argument of declared type `want` (cast when its own type differs).
    fn argument(
        &self,
        r: VarRef,
        want: &FieldType,
        values: &[Value],
        decl: &[Option<FieldType>],
    ) -> String {
        let have = decl.get(r.index()).cloned().flatten();
        let text = match values.get(r.index()) {
            Some(Value::Inline(t)) => t.clone(),
            Some(Value::Var(n)) => n.clone(),
            _ => "null".into(),
        };
        let is_null_literal = text == "null";
        if have.as_ref() == Some(want) && !is_null_literal {
            text
        } else if is_null_literal || needs_parens(&text) {
            format!("({}) {}", self.names.ty(want), parenthesise(&text))
        } else {
            format!("({}) {text}", self.names.ty(want))
        }
    }

    /// The receiver `r` for a member of `class` (cast when declared otherwise).
    fn receiver(
        &self,
        r: VarRef,
        class: &str,
        values: &[Value],
        decl: &[Option<FieldType>],
    ) -> String {
        let name = match values.get(r.index()) {
            Some(Value::Var(n)) => n.clone(),
            Some(Value::Inline(t)) => parenthesise(t),
            _ => "null".into(),
        };
        let want = FieldType::Object(class.to_string());
        match decl.get(r.index()) {
            Some(Some(have)) if *have == want => name,
            _ => format!("(({}) {name})", self.names.name(class)),
        }
    }

    fn args(
        &self,
        callee: Option<(&str, &str)>,
        descriptor: &str,
        args: &[VarRef],
        values: &[Value],
        decl: &[Option<FieldType>],
    ) -> std::result::Result<String, String> {
        let mut d = MethodDescriptor::parse(descriptor).map_err(|e| e.to_string())?;
        if let Some(params) = callee
            .and_then(|(class, name)| self.types.source_params(class, name, descriptor))
            .filter(|p| p.len() == d.params.len())
        {
            d.params = params;
        }
        if d.params.len() != args.len() {
            return Err(format!(
                "{} arguments for descriptor {descriptor}",
                args.len()
            ));
        }
        Ok(args
            .iter()
            .zip(&d.params)
            .map(|(a, p)| self.argument(*a, p, values, decl))
            .collect::<Vec<_>>()
            .join(", "))
    }

    /// The Java expression of a statement (without declaration).
    fn expression(
        &self,
        s: &Statement,
        values: &[Value],
        decl: &[Option<FieldType>],
    ) -> std::result::Result<String, String> {
        let n = self.names;
        Ok(match s {
            Statement::Primitive(_) | Statement::Null { .. } => Self::constant(s),
            Statement::EnumConstant { class, name } => format!("{}.{name}", n.name(class)),
            Statement::Constructor {
                class,
                descriptor,
                args,
            } => format!(
                "new {}({})",
                n.name(class),
                self.args(None, descriptor, args, values, decl)?
            ),
            Statement::Method {
                class,
                name,
                descriptor,
                receiver,
                args,
            } => {
                let target = match receiver {
                    Some(r) => self.receiver(*r, class, values, decl),
                    None => n.name(class),
                };
                format!(
                    "{target}.{name}({})",
                    self.args(Some((class, name)), descriptor, args, values, decl)?
                )
            }
            Statement::FieldRead {
                class,
                name,
                receiver,
                ..
            } => {
                let target = match receiver {
                    Some(r) => self.receiver(*r, class, values, decl),
                    None => n.name(class),
                };
                format!("{target}.{name}")
            }
            Statement::FieldWrite {
                class,
                name,
                descriptor,
                receiver,
                value,
            } => {
                let target = match receiver {
                    Some(r) => self.receiver(*r, class, values, decl),
                    None => n.name(class),
                };
                let ty = FieldType::parse(descriptor).map_err(|e| e.to_string())?;
                format!(
                    "{target}.{name} = {}",
                    self.argument(*value, &ty, values, decl)
                )
            }
            Statement::ArrayNew { component, length } => {
                let mut base = component;
                let mut dims = 0;
                while let FieldType::Array(c) = base {
                    base = c;
                    dims += 1;
                }
                format!("new {}[{length}]{}", n.ty(base), "[]".repeat(dims))
            }
            Statement::ArrayStore {
                array,
                index,
                value,
            } => {
                let component = match decl.get(array.index()) {
                    Some(Some(FieldType::Array(c))) => (**c).clone(),
                    _ => return Err(format!("v{} is not an array", array.index())),
                };
                let arr = match values.get(array.index()) {
                    Some(Value::Var(v)) => v.clone(),
                    _ => return Err(format!("v{} is not a variable", array.index())),
                };
                format!(
                    "{arr}[{index}] = {}",
                    self.argument(*value, &component, values, decl)
                )
            }
            Statement::Cast { value, ty } => {
                let v = match values.get(value.index()) {
                    Some(Value::Var(v)) => v.clone(),
                    Some(Value::Inline(t)) => parenthesise(t),
                    _ => "null".into(),
                };
                format!("({}) {v}", n.ty(ty))
            }
            other => return Err(format!("cannot write statement {other}")),
        })
    }

    /// The expected exception of the last statement.
    #[allow(clippy::too_many_arguments)]
    fn expect(
        &self,
        body: &mut String,
        s: &Statement,
        expr: &str,
        exception: &str,
        ty: Option<&FieldType>,
        scope: &mut Scope,
        statics: &mut BTreeSet<&'static str>,
    ) {
        let ind = "        ";
        let internal = exception.replace('.', "/");
        let class = catchable(&internal, self.types, self.package);
        let written = self.names.name(&class);
        // Statement expressions can stand alone; a field read or a cast needs a declaration.
        let standalone = matches!(
            s,
            Statement::Method { .. }
                | Statement::Constructor { .. }
                | Statement::FieldWrite { .. }
                | Statement::ArrayStore { .. }
        );
        let stmt = if standalone {
            format!("{expr};")
        } else {
            let ty = ty.map_or_else(|| "Object".to_string(), |t| self.names.ty(t));
            let name = scope.fresh("unused");
            format!("{ty} {name} = {expr};")
        };
        match self.config.junit {
            JUnit::Five => {
                statics.insert("assertThrows");
                if standalone {
                    let _ = writeln!(body, "{ind}assertThrows({written}.class, () -> {expr});");
                } else {
                    let _ = writeln!(
                        body,
                        "{ind}assertThrows({written}.class, () -> {{ {stmt} }});"
                    );
                }
            }
            JUnit::Four => {
                statics.insert("fail");
                let short = simple_name(exception);
                let _ = writeln!(body, "{ind}try {{");
                let _ = writeln!(body, "{ind}    {stmt}");
                let _ = writeln!(
                    body,
                    "{ind}    fail({});",
                    string_literal(&format!("Expecting exception: {short}"))
                );
                if is_checked(&class, self.types) {
                    // `catch (Checked e)` does not compile unless the body declares it:
                    // catch any exception and check its type.
                    statics.insert("assertTrue");
                    let e = scope.fresh("e");
                    let _ = writeln!(
                        body,
                        "{ind}}} catch ({} {e}) {{",
                        self.names.name("java/lang/Exception")
                    );
                    let _ = writeln!(body, "{ind}    assertTrue({e} instanceof {written});");
                    let _ = writeln!(body, "{ind}}}");
                } else {
                    let e = scope.fresh("e");
                    let _ = writeln!(body, "{ind}}} catch ({written} {e}) {{");
                    let _ = writeln!(body, "{ind}    // expected");
                    let _ = writeln!(body, "{ind}}}");
                }
            }
        }
    }

    /// One assertion line, or `None` when it cannot be written safely.
    #[allow(clippy::many_single_char_names)]
    fn assertion(
        &self,
        a: &Assertion,
        stmts: &[Statement],
        values: &[Value],
        decl: &[Option<FieldType>],
        statics: &mut BTreeSet<&'static str>,
    ) -> Option<String> {
        let var_of = |i: usize| match values.get(i) {
            Some(Value::Var(v)) => Some(v.clone()),
            _ => None,
        };
        let (expr, ty) = match &a.check {
            Check::Value => (var_of(a.statement)?, decl.get(a.statement)?.clone()?),
            Check::Inspector(m) => {
                let v = var_of(a.statement)?;
                let FieldType::Object(c) = decl.get(a.statement)?.as_ref()? else {
                    return None;
                };
                let t = self.types.inspector_type(c, m)?;
                (format!("{v}.{m}()"), t)
            }
            Check::ReceiverInspector(m) => {
                let r = receiver_of(stmts.get(a.statement)?)?;
                let v = var_of(r.index())?;
                let FieldType::Object(c) = decl.get(r.index())?.as_ref()? else {
                    return None;
                };
                let t = self.types.inspector_type(c, m)?;
                (format!("{v}.{m}()"), t)
            }
        };
        let four = self.config.junit == JUnit::Four;
        let (method, line) = check_line(&a.expected, &expr, &ty, four, |c| {
            self.types
                .accessible(&c.replace('.', "/"), self.package)
                .then(|| self.names.name(&c.replace('.', "/")))
        })?;
        statics.insert(method);
        Some(line)
    }

    /// `<method><Outcome>`: the last call on the class under test (or the last call) and how
    /// the test ended.
    fn test_name(&self, stmts: &[Statement]) -> String {
        let is_cut = |s: &Statement| match s {
            Statement::Method { class, .. } | Statement::Constructor { class, .. } => {
                &**class == self.cut
            }
            _ => false,
        };
        let target = match &self.t.expected {
            Some((e, _)) => Some(*e),
            None => stmts
                .iter()
                .rposition(is_cut)
                .or_else(|| stmts.iter().rposition(Statement::is_call)),
        };
        let Some(target) = target else {
            return "test".into();
        };
        let base = match &stmts[target] {
            Statement::Method { name, .. } => lower_camel(name),
            Statement::Constructor { class, .. } => format!("new{}", simple_name(class)),
            Statement::FieldRead { name, .. } => format!("read{}", upper_camel(name)),
            Statement::FieldWrite { name, .. } => format!("write{}", upper_camel(name)),
            _ => "test".into(),
        };
        let outcome = if let Some((_, e)) = &self.t.expected {
            format!("Throws{}", simple_name(e))
        } else {
            self.t
                .assertions
                .iter()
                .find(|a| a.statement == target && a.check == Check::Value)
                .map_or(String::new(), |a| match &a.expected {
                    Observed::Boolean(true) => "ReturnsTrue".into(),
                    Observed::Boolean(false) => "ReturnsFalse".into(),
                    Observed::Null => "ReturnsNull".into(),
                    _ => String::new(),
                })
        };
        let name = format!("{base}{outcome}");
        if is_identifier(&name) {
            name
        } else {
            "test".into()
        }
    }
}

fn receiver_of(s: &Statement) -> Option<VarRef> {
    match s {
        Statement::Method { receiver, .. }
        | Statement::FieldRead { receiver, .. }
        | Statement::FieldWrite { receiver, .. } => *receiver,
        _ => None,
    }
}

fn is_array_target(s: &Statement, r: VarRef) -> bool {
    matches!(s, Statement::ArrayStore { array, .. } if *array == r)
        || matches!(s, Statement::Cast { value, .. } if *value == r)
}

fn needs_parens(t: &str) -> bool {
    t.starts_with('-') || t.starts_with('(') || t.contains(' ')
}

fn parenthesise(t: &str) -> String {
    if needs_parens(t) {
        format!("({t})")
    } else {
        t.to_string()
    }
}

fn box_of(ty: &FieldType) -> Option<FieldType> {
    let FieldType::Object(c) = ty else {
        return None;
    };
    Some(match c.as_str() {
        "java/lang/Boolean" => FieldType::Boolean,
        "java/lang/Byte" => FieldType::Byte,
        "java/lang/Character" => FieldType::Char,
        "java/lang/Short" => FieldType::Short,
        "java/lang/Integer" => FieldType::Int,
        "java/lang/Long" => FieldType::Long,
        "java/lang/Float" => FieldType::Float,
        "java/lang/Double" => FieldType::Double,
        _ => return None,
    })
}

/// The assertion for an observed value of an expression of static type `ty`: the assertion
/// method used and the line; `None` when no assertion can be written that compiles and
/// checks exactly what was seen. `enum_name` writes an accessible enum class.
fn check_line(
    o: &Observed,
    expr: &str,
    ty: &FieldType,
    four: bool,
    enum_name: impl Fn(&str) -> Option<String>,
) -> Option<(&'static str, String)> {
    let reference = matches!(ty, FieldType::Object(_) | FieldType::Array(_));
    // A primitive, or a box (unboxed by a cast so that no overload is ambiguous).
    let (prim, e) = match box_of(ty) {
        Some(p) => (Some(p.clone()), format!("({}) {expr}", java_type(&p))),
        None if !reference => (Some(ty.clone()), expr.to_string()),
        None => (None, expr.to_string()),
    };
    let eq = |expected: String| ("assertEquals", format!("assertEquals({expected}, {e});"));
    match (o, prim.as_ref()) {
        (Observed::Null, None) => Some(("assertNull", format!("assertNull({expr});"))),
        (Observed::Null, Some(_)) if box_of(ty).is_some() => {
            Some(("assertNull", format!("assertNull({expr});")))
        }
        (Observed::Object { .. }, _) if reference => {
            Some(("assertNotNull", format!("assertNotNull({expr});")))
        }
        (Observed::Boolean(b), Some(FieldType::Boolean)) => Some(if *b {
            ("assertTrue", format!("assertTrue({e});"))
        } else {
            ("assertFalse", format!("assertFalse({e});"))
        }),
        (Observed::Char(c), Some(FieldType::Char)) => Some(eq(Prim::Char(*c).java_literal())),
        (Observed::Integer(v), Some(p)) => {
            let lit = match p {
                FieldType::Long => Prim::Long(*v).java_literal(),
                FieldType::Int => Prim::Int(i32::try_from(*v).ok()?).java_literal(),
                // JUnit 5 has (short, short) and (byte, byte); JUnit 4 widens to long.
                FieldType::Short if !four => Prim::Short(i16::try_from(*v).ok()?).java_literal(),
                FieldType::Byte if !four => Prim::Byte(i8::try_from(*v).ok()?).java_literal(),
                FieldType::Short | FieldType::Byte => v.to_string(),
                _ => return None,
            };
            Some(eq(lit))
        }
        (Observed::Floating(d), Some(FieldType::Double)) => Some((
            "assertEquals",
            format!(
                "assertEquals({}, {e}, 0.0);",
                Prim::Double(*d).java_literal()
            ),
        )),
        (Observed::Floating(d), Some(FieldType::Float)) => {
            #[allow(clippy::cast_possible_truncation)]
            let f = d.0 as f32;
            // The observation widened a float exactly: narrowing gives it back.
            if f64::from(f).to_bits() != d.0.to_bits() && !d.0.is_nan() {
                return None;
            }
            Some((
                "assertEquals",
                format!(
                    "assertEquals({}, {e}, 0.0F);",
                    Prim::Float(ferrosuite_testcase::statement::JFloat(f)).java_literal()
                ),
            ))
        }
        (
            Observed::String {
                text,
                truncated: false,
            },
            None,
        ) => Some(eq(string_literal(text))),
        (Observed::Enum { class, name }, None) => {
            let c = enum_name(class)?;
            Some(eq(format!("{c}.{name}")))
        }
        (
            Observed::Array {
                class,
                length,
                elements,
            },
            None,
        ) if matches!(ty, FieldType::Array(_)) => Some(
            elements
                .as_deref()
                .and_then(|e| array_contents_line(class, e, expr, four))
                .unwrap_or_else(|| {
                    (
                        "assertEquals",
                        format!("assertEquals({length}, {expr}.length);"),
                    )
                }),
        ),
        _ => None,
    }
}

/// `assertArrayEquals(new int[] {1, 2}, expr);` for the observed elements of an array of
/// primitives or strings (runtime class `class`); `None` when an element cannot be written
/// back exactly (a cut string, one showing an identity hash, a float that is not one).
fn array_contents_line(
    class: &str,
    elements: &[Observed],
    expr: &str,
    four: bool,
) -> Option<(&'static str, String)> {
    let (component, delta) = match class {
        "[Z" => ("boolean", ""),
        "[B" => ("byte", ""),
        "[C" => ("char", ""),
        "[S" => ("short", ""),
        "[I" => ("int", ""),
        "[J" => ("long", ""),
        // JUnit 4 compares float and double arrays within a delta only: 0 is exact (and
        // NaN equals NaN there, as in JUnit 5).
        "[F" => ("float", if four { ", 0.0F" } else { "" }),
        "[D" => ("double", if four { ", 0.0" } else { "" }),
        "[Ljava.lang.String;" => ("String", ""),
        _ => return None,
    };
    let mut items = Vec::with_capacity(elements.len());
    for e in elements {
        items.push(match (component, e) {
            ("boolean", Observed::Boolean(b)) => b.to_string(),
            ("char", Observed::Char(c)) => Prim::Char(*c).java_literal(),
            ("byte", Observed::Integer(v)) => format!("(byte) {v}"),
            ("short", Observed::Integer(v)) => format!("(short) {v}"),
            ("int", Observed::Integer(v)) => Prim::Int(i32::try_from(*v).ok()?).java_literal(),
            ("long", Observed::Integer(v)) => Prim::Long(*v).java_literal(),
            ("double", Observed::Floating(d)) => Prim::Double(*d).java_literal(),
            ("float", Observed::Floating(d)) => {
                #[allow(clippy::cast_possible_truncation)]
                let f = d.0 as f32;
                if f64::from(f).to_bits() != d.0.to_bits() && !d.0.is_nan() {
                    return None;
                }
                Prim::Float(ferrosuite_testcase::statement::JFloat(f)).java_literal()
            }
            ("String", Observed::Null) => "null".into(),
            ("String", s @ Observed::String { text, .. }) if crate::assertions::writable(s) => {
                string_literal(text)
            }
            _ => return None,
        });
    }
    Some((
        "assertArrayEquals",
        format!(
            "assertArrayEquals(new {component}[] {{{}}}, {expr}{delta});",
            items.join(", ")
        ),
    ))
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn an_assertion_on_a_private_enum_goes_and_the_test_stays() {
        struct Hidden;
        impl TypeInfo for Hidden {
            fn accessible(&self, class: &str, _package: &str) -> bool {
                !class.contains("$Private")
            }
        }
        let enum_of = |class: &str| Assertion {
            statement: 0,
            check: Check::Inspector("getComparator".into()),
            expected: Observed::Enum {
                class: class.into(),
                name: "INSTANCE".into(),
            },
        };
        let mut t = EmitTest {
            test: Test::new(Vec::new()),
            assertions: vec![
                enum_of("p.Range$PrivateComparator"),
                enum_of("p.Range$Open"),
                Assertion {
                    statement: 0,
                    check: Check::Value,
                    expected: Observed::Boolean(true),
                },
            ],
            expected: None,
        };
        assert_eq!(t.drop_inaccessible_assertions(&Hidden, "p"), 1);
        assert_eq!(t.assertions.len(), 2);
        assert!(t.inaccessible_class(&Hidden, "p").is_none());
        assert_eq!(t.drop_inaccessible_assertions(&Hidden, "p"), 0);
    }

    #[test]
    fn nested_and_top_level_names() {
        assert_eq!(
            top_level("java/util/Map$Entry"),
            ("java/util/Map", "$Entry")
        );
        assert_eq!(top_level("Foo"), ("Foo", ""));
        let used: BTreeSet<String> = [
            "p/Stack",
            "java/lang/String",
            "q/String",
            "java/util/Map$Entry",
            "a/List",
            "b/List",
            "org/junit/jupiter/api/Test",
            "p/Test",
        ]
        .iter()
        .map(|s| (*s).to_string())
        .collect();
        let n = TypeNames::new(&used, "p", "StackTest");
        assert_eq!(n.name("p/Stack"), "Stack");
        assert_eq!(n.name("java/lang/String"), "String");
        assert_eq!(n.name("q/String"), "q.String");
        assert_eq!(n.name("java/util/Map$Entry"), "Map.Entry");
        assert_eq!(n.name("a/List"), "a.List");
        // The CUT's package has a `Test`: JUnit's is written in full.
        assert_eq!(n.name("p/Test"), "Test");
        assert_eq!(
            n.name("org/junit/jupiter/api/Test"),
            "org.junit.jupiter.api.Test"
        );
        assert_eq!(n.name("not/Collected"), "not.Collected");
        let imports: Vec<&String> = n.imports().collect();
        assert_eq!(imports, ["java.util.Map"]);
        // Package roots of names written in full are not variable names.
        assert!(n.reserved.contains("q") && n.reserved.contains("org"));
    }

    #[test]
    fn check_lines_compile_for_their_static_types() {
        let o = |s: &str| FieldType::Object(s.into());
        let none = |_: &str| None::<String>;
        let line = |obs: Observed, ty: FieldType, four: bool| {
            check_line(&obs, "v", &ty, four, none).map(|x| x.1)
        };
        assert_eq!(
            line(Observed::Integer(3), FieldType::Int, false).unwrap(),
            "assertEquals(3, v);"
        );
        assert_eq!(
            line(Observed::Integer(3), FieldType::Long, true).unwrap(),
            "assertEquals(3L, v);"
        );
        assert_eq!(
            line(Observed::Integer(3), o("java/lang/Integer"), true).unwrap(),
            "assertEquals(3, (int) v);"
        );
        assert_eq!(
            line(Observed::Integer(-3), FieldType::Byte, false).unwrap(),
            "assertEquals((byte) -3, v);"
        );
        assert_eq!(
            line(Observed::Integer(-3), FieldType::Byte, true).unwrap(),
            "assertEquals(-3, v);"
        );
        // A number seen through Object: its box class is unknown, so no assertion.
        assert_eq!(
            line(Observed::Integer(3), o("java/lang/Object"), false),
            None
        );
        assert_eq!(
            line(Observed::Boolean(true), o("java/lang/Boolean"), false).unwrap(),
            "assertTrue((boolean) v);"
        );
        assert_eq!(
            line(Observed::Boolean(true), o("java/lang/Object"), false),
            None
        );
        assert_eq!(
            line(Observed::Null, o("java/lang/Object"), false).unwrap(),
            "assertNull(v);"
        );
        assert_eq!(line(Observed::Null, FieldType::Int, false), None);
        assert_eq!(
            line(
                Observed::Floating(ferrosuite_testcase::statement::JDouble(f64::NAN)),
                FieldType::Double,
                false
            )
            .unwrap(),
            "assertEquals(Double.NaN, v, 0.0);"
        );
        assert_eq!(
            line(
                Observed::Floating(ferrosuite_testcase::statement::JDouble(0.5)),
                FieldType::Float,
                false
            )
            .unwrap(),
            "assertEquals(0.5F, v, 0.0F);"
        );
        assert_eq!(
            line(
                Observed::String {
                    text: "a\"b\n".into(),
                    truncated: false
                },
                o("java/lang/CharSequence"),
                false
            )
            .unwrap(),
            "assertEquals(\"a\\\"b\\n\", v);"
        );
        let ints = |elements: Option<Vec<Observed>>| Observed::Array {
            class: "[I".into(),
            length: 2,
            elements,
        };
        let int_array = || FieldType::Array(Box::new(FieldType::Int));
        assert_eq!(
            line(ints(None), int_array(), false).unwrap(),
            "assertEquals(2, v.length);"
        );
        let two = Some(vec![
            Observed::Integer(-1),
            Observed::Integer(i64::from(i32::MIN)),
        ]);
        assert_eq!(
            line(ints(two.clone()), int_array(), false).unwrap(),
            "assertArrayEquals(new int[] {-1, Integer.MIN_VALUE}, v);"
        );
        assert_eq!(line(ints(two), o("java/lang/Object"), false), None);
        let doubles = Observed::Array {
            class: "[D".into(),
            length: 2,
            elements: Some(vec![
                Observed::Floating(ferrosuite_testcase::statement::JDouble(f64::NAN)),
                Observed::Floating(ferrosuite_testcase::statement::JDouble(-0.0)),
            ]),
        };
        let double_array = FieldType::Array(Box::new(FieldType::Double));
        assert_eq!(
            line(doubles.clone(), double_array.clone(), true).unwrap(),
            "assertArrayEquals(new double[] {Double.NaN, -0.0}, v, 0.0);"
        );
        assert_eq!(
            line(doubles, double_array, false).unwrap(),
            "assertArrayEquals(new double[] {Double.NaN, -0.0}, v);"
        );
        // A cut string cannot be written back: the length is asserted instead.
        let strings = |truncated| Observed::Array {
            class: "[Ljava.lang.String;".into(),
            length: 2,
            elements: Some(vec![
                Observed::Null,
                Observed::String {
                    text: "x\"".into(),
                    truncated,
                },
            ]),
        };
        let string_array = || FieldType::Array(Box::new(o("java/lang/String")));
        assert_eq!(
            line(strings(false), string_array(), false).unwrap(),
            "assertArrayEquals(new String[] {null, \"x\\\"\"}, v);"
        );
        assert_eq!(
            line(strings(true), string_array(), false).unwrap(),
            "assertEquals(2, v.length);"
        );
        assert_eq!(
            line(
                Observed::Enum {
                    class: "p.Color".into(),
                    name: "RED".into()
                },
                o("p/Color"),
                false
            ),
            None
        );
        assert_eq!(
            check_line(
                &Observed::Enum {
                    class: "p.Color".into(),
                    name: "RED".into()
                },
                "v",
                &o("p/Color"),
                false,
                |_| Some("Color".into())
            )
            .unwrap()
            .1,
            "assertEquals(Color.RED, v);"
        );
    }
}
