//! One test method: statements as Java, casts, expected exceptions, assertions and its name.

use std::collections::BTreeSet;
use std::fmt::Write as _;

use ferrosuite_bytecode::descriptor::FieldType;
use ferrosuite_executor::Observed;
use ferrosuite_testcase::statement::string_literal;
use ferrosuite_testcase::{Statement, VarRef};

use ferrosuite_testcase::cluster::{GenericType, TypeArg};

use super::checks::check_line;
use super::generics::{Call, Generics, Site, Typing, classes_of, is_closed, wants};
use super::imports::{TypeNames, catchable, is_checked, value_type};
use super::mocking;
use super::{Config, EmitTest, JUnit, TypeInfo};
use crate::assertions::{Assertion, Check};
use crate::names::{Scope, is_identifier, lower_camel, simple_name, type_base, upper_camel};

/// Writes one test method.
pub(super) struct MethodWriter<'a> {
    pub(super) t: &'a EmitTest,
    pub(super) cut: &'a str,
    pub(super) config: &'a Config,
    pub(super) types: &'a dyn TypeInfo,
    pub(super) names: &'a TypeNames,
    pub(super) package: &'a str,
    /// The test's parameterised declarations.
    pub(super) typing: &'a Typing,
    pub(super) generics: &'a Generics<'a>,
    /// Set when the method writes a generic class without type arguments.
    pub(super) raw: std::cell::Cell<bool>,
}

/// What a test method's `@SuppressWarnings` must name.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(super) struct Suppress {
    /// It writes a generic class raw: `rawtypes` and `unchecked`.
    pub(super) raw: bool,
    /// It uses deprecated API: `deprecation`.
    pub(super) deprecation: bool,
}

impl Suppress {
    /// The annotation, if any is needed.
    pub(super) fn annotation(self) -> Option<&'static str> {
        match (self.raw, self.deprecation) {
            (false, false) => None,
            (true, false) => Some("@SuppressWarnings({\"rawtypes\", \"unchecked\"})"),
            (false, true) => Some("@SuppressWarnings(\"deprecation\")"),
            (true, true) => {
                Some("@SuppressWarnings({\"rawtypes\", \"unchecked\", \"deprecation\"})")
            }
        }
    }
}

/// A written test method: its name, its body, and the warnings it must suppress.
pub(super) struct Written {
    pub(super) name: String,
    pub(super) body: String,
    pub(super) suppress: Suppress,
    /// The test's assertions (indices) that could not be written.
    pub(super) unwritten: Vec<usize>,
}

/// How a statement's value appears in the method.
#[derive(Debug, Clone)]
pub(super) enum Value {
    /// Not written (unused constant) or no value (void).
    None,
    /// Written in place where it is used.
    Inline(String),
    /// A variable.
    Var(String),
}

impl MethodWriter<'_> {
    #[allow(clippy::too_many_lines)]
    pub(super) fn write(
        &self,
        method_scope: &mut Scope,
        statics: &mut BTreeSet<&'static str>,
    ) -> std::result::Result<Written, String> {
        let (stmts, decl) = written_values(self.t)?;
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
                Check::Argument(k, _) => {
                    if let Some(r) = stmts.get(a.statement).and_then(|s| argument_of(s, *k)) {
                        if let Some(x) = asserted.get_mut(r.index()) {
                            *x = true;
                        }
                    }
                }
                Check::Same(k) => {
                    for i in [a.statement, *k as usize] {
                        if let Some(x) = asserted.get_mut(i) {
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
                    | Statement::ClassLiteral { .. }
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
        let mut unwritten = Vec::new();
        let ind = "        ";
        for (i, s) in stmts.iter().enumerate() {
            let thrower = self.t.expected.as_ref().filter(|(e, _)| *e == i);
            if matches!(values[i], Value::Inline(_))
                || (matches!(values[i], Value::None)
                    && matches!(
                        s,
                        Statement::Primitive(_)
                            | Statement::Null { .. }
                            | Statement::ClassLiteral { .. }
                            | Statement::EnumConstant { .. }
                    )
                    && thrower.is_none())
            {
                continue;
            }
            let expr = self.expression(i, s, &values, &decl)?;
            if let Some((_, exception)) = thrower {
                self.expect(
                    &mut body,
                    s,
                    &expr,
                    exception,
                    decl[i].as_ref().map(|t| (i, t)),
                    &mut scope,
                    statics,
                );
                continue;
            }
            match (&values[i], &decl[i]) {
                (Value::Var(name), Some(ty)) => {
                    let _ = writeln!(body, "{ind}{} {name} = {expr};", self.declared(i, ty));
                    if let Statement::Mock { class, stubs } = s {
                        statics.insert(mocking::MOCK);
                        for line in self.stubs(class, name, stubs, &values, &decl, statics)? {
                            let _ = writeln!(body, "{ind}{line}");
                        }
                    }
                }
                _ => {
                    let _ = writeln!(body, "{ind}{expr};");
                }
            }
            for (k, a) in self.t.assertions.iter().enumerate() {
                if a.statement != i {
                    continue;
                }
                if let Some(line) = self.assertion(a, stmts, &values, &decl, statics) {
                    let _ = writeln!(body, "{ind}{line}");
                } else {
                    unwritten.push(k);
                }
            }
        }
        let name = method_scope.fresh(&self.test_name(stmts));
        let deprecation = stmts.iter().any(|s| self.uses_deprecated(s))
            || decl.iter().flatten().any(
                |t| matches!(t.innermost(), FieldType::Object(c) if self.types.deprecated(c, None)),
            );
        // Assertions after the statements written (none, unless the test was cut short).
        unwritten.extend(
            (0..self.t.assertions.len()).filter(|&k| self.t.assertions[k].statement >= stmts.len()),
        );
        unwritten.sort_unstable();
        Ok(Written {
            name,
            body,
            suppress: Suppress {
                raw: self.raw.get(),
                deprecation,
            },
            unwritten,
        })
    }

    /// Whether statement `s` uses deprecated API: the member it calls, reads or writes, or
    /// its class.
    fn uses_deprecated(&self, s: &Statement) -> bool {
        let (class, member) = match s {
            Statement::Constructor {
                class, descriptor, ..
            } => (class, Some(("<init>", &**descriptor))),
            Statement::Method {
                class,
                name,
                descriptor,
                ..
            }
            | Statement::FieldRead {
                class,
                name,
                descriptor,
                ..
            }
            | Statement::FieldWrite {
                class,
                name,
                descriptor,
                ..
            } => (class, Some((&**name, &**descriptor))),
            Statement::EnumConstant { class, .. } => (class, None),
            _ => return false,
        };
        self.types.deprecated(class, member)
    }

    /// The text of erased type `t` in a declaration, cast or array creation: a generic class
    /// so written is raw, which the method's annotation must then allow.
    pub(super) fn type_text(&self, t: &FieldType) -> String {
        if self.generics.is_raw(t) {
            self.raw.set(true);
        }
        self.names.ty(t)
    }

    /// The declared type of value `i` (erased `ty`): parameterised when the typing gives it.
    fn declared(&self, i: usize, ty: &FieldType) -> String {
        self.typing
            .types
            .get(i)
            .and_then(Option::as_ref)
            .and_then(|g| self.generic_text(g))
            .unwrap_or_else(|| self.type_text(ty))
    }

    /// Java text of a closed generic type, classes named as the file names them; `None` for
    /// what this does not write (type variables, arguments of an enclosing class).
    fn generic_text(&self, g: &GenericType) -> Option<String> {
        Some(match g {
            GenericType::Primitive(p) => self.names.ty(p),
            GenericType::Variable(_) => return None,
            GenericType::Array(c) => format!("{}[]", self.generic_text(c)?),
            GenericType::Class(c) => {
                if c.inner
                    .iter()
                    .take(c.inner.len().saturating_sub(1))
                    .any(|i| !i.args.is_empty())
                    || (!c.inner.is_empty() && !c.args.is_empty())
                {
                    return None;
                }
                let mut s = self.names.name(&c.erasure());
                let args = c.last_args();
                if args.is_empty() && self.generics.is_generic(&c.erasure()) {
                    // A raw class inside a parameterised type (`Function<Range, Cut>`).
                    self.raw.set(true);
                }
                if !args.is_empty() {
                    let texts: Vec<String> = args
                        .iter()
                        .map(|a| match a {
                            TypeArg::Any => Some("?".to_string()),
                            TypeArg::Exact(t) => self.generic_text(t),
                            TypeArg::Extends(t) => {
                                Some(format!("? extends {}", self.generic_text(t)?))
                            }
                            TypeArg::Super(t) => Some(format!("? super {}", self.generic_text(t)?)),
                        })
                        .collect::<Option<_>>()?;
                    s.push('<');
                    s.push_str(&texts.join(", "));
                    s.push('>');
                }
                s
            }
        })
    }

    /// The type to cast value `r` to where `want` (a class) is expected: its parameterised
    /// type seen as `want` when it has one, else `want` (raw when generic).
    pub(super) fn cast_text(&self, r: VarRef, want: &FieldType) -> String {
        if let (Some(Some(have)), FieldType::Object(class)) =
            (self.typing.types.get(r.index()), want)
        {
            if let Some(text) = self
                .generics
                .view(have, class)
                .filter(is_closed)
                .filter(|v| {
                    // Every class the view names must be nameable here.
                    let mut names = std::collections::BTreeSet::new();
                    classes_of(v, &mut names);
                    names.iter().all(|n| self.types.accessible(n, self.package))
                })
                .and_then(|v| self.generic_text(&v))
            {
                return text;
            }
        }
        self.type_text(want)
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
    pub(super) fn argument(
        &self,
        r: VarRef,
        want: &FieldType,
        values: &[Value],
        decl: &[Option<FieldType>],
        at: Option<(usize, usize)>,
        site: Option<Site<'_>>,
    ) -> String {
        let have = decl.get(r.index()).cloned().flatten();
        let text = match values.get(r.index()) {
            Some(Value::Inline(t)) => t.clone(),
            Some(Value::Var(n)) => n.clone(),
            _ => "null".into(),
        };
        let is_null_literal = text == "null";
        let cast = match &have {
            Some(h) => self.typing.casts(
                self.generics,
                at.map(|(i, _)| i),
                site,
                at.map_or(0, |(_, k)| k),
                h,
                want,
            ),
            None => true,
        };
        if !cast && !is_null_literal {
            text
        } else if is_null_literal {
            // The parameter's own type when the typing found one (`(List<Object>) null`).
            let cast = at
                .and_then(|at| self.typing.null_casts.get(&at))
                .and_then(|g| self.generic_text(g))
                .unwrap_or_else(|| self.cast_text(r, want));
            format!("({cast}) null")
        } else if needs_parens(&text) {
            format!("({}) {}", self.cast_text(r, want), parenthesise(&text))
        } else {
            format!("({}) {text}", self.cast_text(r, want))
        }
    }

    /// The receiver `r` for a member of `class` (cast when declared otherwise).
    fn receiver(
        &self,
        at: usize,
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
            _ => match self.typing.wild_receivers.get(&at) {
                // The member does not depend on the class's type arguments: `C<?>` needs
                // no raw type.
                Some(&n) => format!(
                    "(({}<{}>) {name})",
                    self.names.name(class),
                    vec!["?"; n].join(", ")
                ),
                None => format!("(({}) {name})", self.cast_text(r, &want)),
            },
        }
    }

    fn args(
        &self,
        at: usize,
        call: &Call<'_>,
        values: &[Value],
        decl: &[Option<FieldType>],
    ) -> std::result::Result<String, String> {
        let params = wants(self.generics, call)?;
        if params.len() != call.args.len() {
            return Err(format!(
                "{} arguments for descriptor {}",
                call.args.len(),
                call.descriptor
            ));
        }
        let site = call.site();
        Ok(call
            .args
            .iter()
            .zip(&params)
            .enumerate()
            .map(|(k, (a, p))| self.argument(*a, p, values, decl, Some((at, k)), Some(site)))
            .collect::<Vec<_>>()
            .join(", "))
    }

    /// The Java expression of a statement (without declaration).
    fn expression(
        &self,
        i: usize,
        s: &Statement,
        values: &[Value],
        decl: &[Option<FieldType>],
    ) -> std::result::Result<String, String> {
        let n = self.names;
        Ok(match s {
            Statement::Primitive(_) | Statement::Null { .. } => Self::constant(s),
            Statement::EnumConstant { class, name } => format!("{}.{name}", n.name(class)),
            Statement::ClassLiteral { ty } => format!("{}.class", self.names.ty(ty)),
            Statement::Constructor { class, .. } => {
                let type_args = self
                    .typing
                    .constructed
                    .get(i)
                    .and_then(Option::as_ref)
                    .filter(|_| self.typing.types.get(i).is_some_and(Option::is_some))
                    .and_then(|args| {
                        let t: Option<Vec<String>> =
                            args.iter().map(|a| self.generic_text(a)).collect();
                        t.map(|t| format!("<{}>", t.join(", ")))
                    });
                let type_args = type_args.unwrap_or_else(|| {
                    if self.generics.is_generic(class) {
                        self.raw.set(true);
                    }
                    String::new()
                });
                format!(
                    "new {}{type_args}({})",
                    n.name(class),
                    self.args(i, &Call::of(s).ok_or("not a call")?, values, decl)?
                )
            }
            Statement::Method {
                class,
                name,
                receiver,
                ..
            } => {
                let target = match receiver {
                    Some(r) => self.receiver(i, *r, class, values, decl),
                    None => n.name(class),
                };
                format!(
                    "{target}.{name}({})",
                    self.args(i, &Call::of(s).ok_or("not a call")?, values, decl)?
                )
            }
            Statement::FieldRead {
                class,
                name,
                receiver,
                ..
            } => {
                let target = match receiver {
                    Some(r) => self.receiver(i, *r, class, values, decl),
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
                    Some(r) => self.receiver(i, *r, class, values, decl),
                    None => n.name(class),
                };
                let ty = FieldType::parse(descriptor).map_err(|e| e.to_string())?;
                format!(
                    "{target}.{name} = {}",
                    self.argument(*value, &ty, values, decl, Some((i, 0)), None)
                )
            }
            Statement::ArrayNew { component, length } => {
                let mut base = component;
                let mut dims = 0;
                while let FieldType::Array(c) = base {
                    base = c;
                    dims += 1;
                }
                // `new C<?>[n]` when the typing gives the array a wildcard type.
                let mut typed = self.typing.types.get(i).cloned().flatten();
                while let Some(GenericType::Array(c)) = typed {
                    typed = Some(*c);
                }
                let base_text = typed
                    .as_ref()
                    .and_then(|g| self.generic_text(g))
                    .unwrap_or_else(|| self.type_text(base));
                format!("new {base_text}[{length}]{}", "[]".repeat(dims))
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
                    self.argument(*value, &component, values, decl, None, None)
                )
            }
            Statement::Cast { value, ty } => {
                let v = match values.get(value.index()) {
                    Some(Value::Var(v)) => v.clone(),
                    Some(Value::Inline(t)) => parenthesise(t),
                    _ => "null".into(),
                };
                format!("({}) {v}", self.type_text(ty))
            }
            Statement::Private(inner) => self.private_access(i, inner, values, decl)?,
            Statement::Mock { class, .. } => {
                format!("mock({}.class, {})", n.name(class), mocking::UNSTUBBED)
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
        ty: Option<(usize, &FieldType)>,
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
            let ty = ty.map_or_else(|| "Object".to_string(), |(i, t)| self.declared(i, t));
            let name = scope.fresh("unused");
            format!("{ty} {name} = {expr};")
        };
        match self.config.junit {
            JUnit::Five => {
                statics.insert("assertThrows");
                let lambda = if standalone {
                    format!("() -> {expr}")
                } else {
                    format!("() -> {{ {stmt} }}")
                };
                if self.t.message.is_some() {
                    let e = scope.fresh("e");
                    let _ = writeln!(
                        body,
                        "{ind}{written} {e} = assertThrows({written}.class, {lambda});"
                    );
                    self.message_check(body, ind, &e, statics);
                } else {
                    let _ = writeln!(body, "{ind}assertThrows({written}.class, {lambda});");
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
                    self.rethrow_abort(body, ind, &e, "java/lang/Exception");
                    let _ = writeln!(body, "{ind}    assertTrue({e} instanceof {written});");
                    self.message_check(body, &format!("{ind}    "), &e, statics);
                    let _ = writeln!(body, "{ind}}}");
                } else {
                    let e = scope.fresh("e");
                    let _ = writeln!(body, "{ind}}} catch ({written} {e}) {{");
                    self.rethrow_abort(body, ind, &e, &class);
                    if self.t.message.is_some() {
                        self.message_check(body, &format!("{ind}    "), &e, statics);
                    } else {
                        let _ = writeln!(body, "{ind}    // expected");
                    }
                    let _ = writeln!(body, "{ind}}}");
                }
            }
        }
    }

    /// In a JUnit 4 `catch (caught e)` of an expected exception, the lines that rethrow an
    /// assumption failure the catch would swallow: a mock's unstubbed call or a private member
    /// that is gone skips the test (PAFM III-D) even when the expected exception is
    /// `RuntimeException`, `Exception` or `Throwable`. Only tests with mocks or private access
    /// can abort.
    fn rethrow_abort(&self, body: &mut String, ind: &str, e: &str, caught: &str) {
        let wide = matches!(
            caught,
            "java/lang/RuntimeException" | "java/lang/Exception" | "java/lang/Throwable"
        );
        let aborts = self
            .t
            .test
            .statements
            .iter()
            .any(|s| matches!(s, Statement::Mock { .. } | Statement::Private(_)));
        if wide && aborts {
            let aborted = self.names.name(mocking::classes(JUnit::Four)[1]);
            let _ = writeln!(body, "{ind}    if ({e} instanceof {aborted}) {{");
            let _ = writeln!(body, "{ind}        throw ({aborted}) {e};");
            let _ = writeln!(body, "{ind}    }}");
        }
    }

    /// `assertEquals("<message>", e.getMessage());` for the expected exception's message, if
    /// the test has one, indented by `ind`.
    fn message_check(
        &self,
        body: &mut String,
        ind: &str,
        e: &str,
        statics: &mut BTreeSet<&'static str>,
    ) {
        if let Some(m) = &self.t.message {
            statics.insert("assertEquals");
            let _ = writeln!(
                body,
                "{ind}assertEquals({}, {e}.getMessage());",
                string_literal(m)
            );
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
            Check::Same(k) => {
                // The held object first: JUnit's (expected, actual).
                let (held, got) = (var_of(*k as usize)?, var_of(a.statement)?);
                if a.expected != Observed::Boolean(true) || *k as usize >= a.statement {
                    return None;
                }
                statics.insert("assertSame");
                return Some(format!("assertSame({held}, {got});"));
            }
            Check::Value => (var_of(a.statement)?, decl.get(a.statement)?.clone()?),
            Check::Inspector(m) => {
                let v = var_of(a.statement)?;
                let FieldType::Object(c) = decl.get(a.statement)?.as_ref()? else {
                    return None;
                };
                self.inspection(c, &v, m)?
            }
            Check::ReceiverInspector(m) => {
                let r = receiver_of(stmts.get(a.statement)?)?;
                let v = var_of(r.index())?;
                let FieldType::Object(c) = decl.get(r.index())?.as_ref()? else {
                    return None;
                };
                self.inspection(c, &v, m)?
            }
            Check::Argument(k, m) => {
                let r = argument_of(stmts.get(a.statement)?, *k)?;
                let v = var_of(r.index())?;
                let ty = decl.get(r.index())?.clone()?;
                if m.is_empty() {
                    (v, ty)
                } else {
                    let FieldType::Object(c) = &ty else {
                        return None;
                    };
                    self.inspection(c, &v, m)?
                }
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

    /// The expression of inspector `m` on variable `v` of class `c`, with its type: a getter
    /// call, or for a private field (`#name:descriptor`) its read through `PrivateAccess`
    /// (`(int) PrivateAccess.<Integer>get(Meter.class, meter, "readings")`).
    fn inspection(&self, class: &str, var: &str, inspector: &str) -> Option<(String, FieldType)> {
        let Some((name, desc)) = inspector.strip_prefix('#').and_then(|f| f.split_once(':')) else {
            let t = self.types.inspector_type(class, inspector)?;
            return Some((format!("{var}.{inspector}()"), t));
        };
        let ty = FieldType::parse(desc).ok()?;
        if !self.types.accessible(class, self.package) {
            return None;
        }
        let boxed = match &ty {
            FieldType::Object(string) if string == "java/lang/String" => "String",
            t => t.boxed_class()?.trim_start_matches("java/lang/"),
        };
        let read = format!(
            "{}.<{boxed}>get({}.class, {var}, {})",
            mocking::PRIVATE_ACCESS,
            self.names.name(class),
            string_literal(name)
        );
        let expr = if ty.is_reference() {
            read
        } else {
            format!("({}) {read}", self.names.ty(&ty))
        };
        Some((expr, ty))
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

/// Argument `k` of a call (a private one too).
fn argument_of(s: &Statement, k: u32) -> Option<VarRef> {
    match s.unwrapped() {
        Statement::Method { args, .. } | Statement::Constructor { args, .. } => {
            args.get(k as usize).copied()
        }
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

/// The statements a test method writes (up to the one expected to throw) and their values'
/// erased types.
pub(super) fn written_values(
    t: &EmitTest,
) -> std::result::Result<(&[Statement], Vec<Option<FieldType>>), String> {
    let stmts = &t.test.statements;
    let end = t.expected.as_ref().map_or(stmts.len(), |(i, _)| i + 1);
    let stmts = &stmts[..end.min(stmts.len())];
    let decl = stmts
        .iter()
        .map(value_type)
        .collect::<std::result::Result<_, _>>()?;
    Ok((stmts, decl))
}
