//! Mocks and private access in emitted tests: the Mockito lines of a mock statement (static
//! imports, typed matchers, the default answer), the `PrivateAccess` class and its calls, and
//! the class-level `assertThrows` that keeps an assumption failure a skip.
//!
//! A mock statement is written as a declaration and one stubbing line per stub:
//!
//! ```text
//! Sensor sensor = mock(Sensor.class, UNSTUBBED);
//! doReturn(5, 9).when(sensor).read();
//! doNothing().when(sensor).reset();
//! ```
//!
//! `doReturn(…).when(mock)` stubs without calling the mock (so the default answer is never
//! asked), and works for every return type and for Mockito 2 to 5. The default answer
//! `UNSTUBBED`, a constant of the test class, aborts the test as an assumption failure when
//! the code under test calls a non-`void` method the test did not stub: after a change of the
//! code the test is skipped, not failed (PAFM III-D). An unstubbed `void` call does nothing
//! (the stubs name the `void` methods the test's run called, with `doNothing()`);
//! `toString()` answers `"mock"`, as in the search.

use std::collections::BTreeSet;

use ferrosuite_bytecode::descriptor::{FieldType, MethodDescriptor};
use ferrosuite_testcase::statement::{Statement, Stub, VarRef, string_literal};

use super::JUnit;
use super::method::{MethodWriter, Value};

/// `Mockito.mock`.
pub(super) const MOCK: &str = "org.mockito.Mockito.mock";
/// `Mockito.doReturn`.
pub(super) const DO_RETURN: &str = "org.mockito.Mockito.doReturn";
/// `Mockito.doNothing`.
pub(super) const DO_NOTHING: &str = "org.mockito.Mockito.doNothing";
/// The name of the default answer constant.
pub(super) const UNSTUBBED: &str = "UNSTUBBED";
/// What the default answer gives for `toString()` (the runtime's `Mocks.TO_STRING`).
pub(super) const TO_STRING: &str = "mock";

/// The static import and the text of the matcher for a parameter of type `p`: `anyInt()` for
/// an `int`, …, `any()` for references (which matches `null` too, unlike `any(Class)`).
pub(super) fn matcher(p: &FieldType) -> (&'static str, &'static str) {
    match p {
        FieldType::Boolean => ("org.mockito.ArgumentMatchers.anyBoolean", "anyBoolean()"),
        FieldType::Byte => ("org.mockito.ArgumentMatchers.anyByte", "anyByte()"),
        FieldType::Char => ("org.mockito.ArgumentMatchers.anyChar", "anyChar()"),
        FieldType::Short => ("org.mockito.ArgumentMatchers.anyShort", "anyShort()"),
        FieldType::Int => ("org.mockito.ArgumentMatchers.anyInt", "anyInt()"),
        FieldType::Long => ("org.mockito.ArgumentMatchers.anyLong", "anyLong()"),
        FieldType::Float => ("org.mockito.ArgumentMatchers.anyFloat", "anyFloat()"),
        FieldType::Double => ("org.mockito.ArgumentMatchers.anyDouble", "anyDouble()"),
        FieldType::Object(_) | FieldType::Array(_) => ("org.mockito.ArgumentMatchers.any", "any()"),
    }
}

/// The classes the default answer names: Mockito's `Answer` and the assumption failure of
/// the JUnit generation (the private access class names the second only).
pub(super) fn classes(junit: JUnit) -> [&'static str; 2] {
    [
        "org/mockito/stubbing/Answer",
        match junit {
            JUnit::Five => "org/opentest4j/TestAbortedException",
            JUnit::Four => "org/junit/AssumptionViolatedException",
        },
    ]
}

/// The default answer constant, with classes named by `name` (as the file imports them).
pub(super) fn unstubbed_field(junit: JUnit, name: &dyn Fn(&str) -> String) -> String {
    let [answer, aborted] = classes(junit);
    let (answer, aborted) = (name(answer), name(aborted));
    format!(
        "    /** Skips a test whose mock gets a call it did not stub: the code under test changed. */
    private static final {answer}<Object> {UNSTUBBED} = invocation -> {{
        if (invocation.getMethod().getReturnType() == void.class) {{
            return null;
        }}
        if (invocation.getMethod().getName().equals(\"toString\")
                && invocation.getArguments().length == 0) {{
            return \"{TO_STRING}\";
        }}
        throw new {aborted}(\"not stubbed: \" + invocation.getMethod());
    }};
"
    )
}

/// The name of the class hook that creates the mocks' classes before the tests.
pub(super) const PREPARE_MOCKS: &str = "prepareMocks";

/// The class hook (`@BeforeAll`, `@BeforeClass` in JUnit 4) that mocks each type the tests
/// mock once, before them: Mockito's start-up (its byte-code engine; for the inline mock
/// maker, an agent attached to the JVM) and each type's mock class are then no test's cost, so
/// the first test on a slow machine does not run out of its time limit. `mocked` are internal
/// names; `name` writes a class's name.
pub(super) fn prepare_mocks_method(
    junit: JUnit,
    mocked: &BTreeSet<String>,
    name: &dyn Fn(&str) -> String,
) -> String {
    use std::fmt::Write as _;
    let once = name(super::environment::annotations(junit)[0]);
    let mut out = String::new();
    let _ = writeln!(
        out,
        "    /** Mockito's start-up and the mocked types' classes, once, outside the tests' time limits. */"
    );
    let _ = writeln!(out, "    @{once}");
    let _ = writeln!(out, "    public static void {PREPARE_MOCKS}() {{");
    for c in mocked {
        let _ = writeln!(out, "        mock({}.class);", name(c));
    }
    let _ = writeln!(out, "    }}");
    out
}

/// The name of the nested class that reaches private members.
pub(super) const PRIVATE_ACCESS: &str = "PrivateAccess";

/// The nested class through which tests call private methods and read and write private
/// fields by reflection (PAFM III-A). A member that is gone (renamed, removed, or its
/// parameter types changed) aborts the test as an assumption failure (PAFM III-D): after a
/// refactoring the test is skipped, not failed. What the private method throws is rethrown as
/// it is, so that expected exceptions stay what the code threw.
pub(super) fn private_access_class(junit: JUnit, name: &dyn Fn(&str) -> String) -> String {
    let aborted = name(classes(junit)[1]);
    format!(
        "    /** Private members by reflection: a test whose member is gone is skipped, not failed. */
    private static final class {PRIVATE_ACCESS} {{
        static <T> T call(Class<?> owner, Object target, String name, Class<?>[] types,
                Object[] args) throws Throwable {{
            java.lang.reflect.Method m;
            try {{
                m = owner.getDeclaredMethod(name, types);
            }} catch (NoSuchMethodException e) {{
                throw new {aborted}(\"no method \" + name + \" in \" + owner.getName());
            }}
            m.setAccessible(true);
            try {{
                @SuppressWarnings(\"unchecked\")
                T result = (T) m.invoke(target, args);
                return result;
            }} catch (java.lang.reflect.InvocationTargetException e) {{
                throw e.getCause();
            }}
        }}

        static void set(Class<?> owner, Object target, String name, Object value) {{
            try {{
                field(owner, name).set(target, value);
            }} catch (IllegalArgumentException | IllegalAccessException e) {{
                throw new {aborted}(\"field \" + name + \" of \" + owner.getName() + \": \" + e);
            }}
        }}

        static <T> T get(Class<?> owner, Object target, String name) {{
            try {{
                @SuppressWarnings(\"unchecked\")
                T value = (T) field(owner, name).get(target);
                return value;
            }} catch (IllegalAccessException e) {{
                throw new {aborted}(\"field \" + name + \" of \" + owner.getName() + \": \" + e);
            }}
        }}

        private static java.lang.reflect.Field field(Class<?> owner, String name) {{
            try {{
                java.lang.reflect.Field f = owner.getDeclaredField(name);
                f.setAccessible(true);
                return f;
            }} catch (NoSuchFieldException e) {{
                throw new {aborted}(\"no field \" + name + \" in \" + owner.getName());
            }}
        }}
    }}
"
    )
}

/// A JUnit 5 `assertThrows` of the test class, which hides `Assertions.assertThrows` in it:
/// an assumption that fails inside the checked statement (a mock's unstubbed call, a private
/// member gone) skips the test as it does elsewhere, instead of becoming "unexpected
/// exception type thrown".
pub(super) fn assert_throws_method(name: &dyn Fn(&str) -> String) -> String {
    let aborted = name(classes(JUnit::Five)[1]);
    format!(
        "    /** Assertions.assertThrows, except that a test skipped inside it stays skipped. */
    private static <T extends Throwable> T assertThrows(Class<T> expected,
            org.junit.jupiter.api.function.Executable executable) {{
        try {{
            return org.junit.jupiter.api.Assertions.assertThrows(expected, executable);
        }} catch (org.opentest4j.AssertionFailedError e) {{
            if (e.getCause() instanceof {aborted}) {{
                throw ({aborted}) e.getCause();
            }}
            throw e;
        }}
    }}
"
    )
}

/// The mock and private-access statements of a test method.
impl MethodWriter<'_> {
    /// A private member's access through the test class's `PrivateAccess`:
    /// `PrivateAccess.call(Meter.class, meter, "calibrate", new Class<?>[] {int.class},
    /// new Object[] {4})`, `PrivateAccess.set(…, "readings", 4)`, `PrivateAccess.get(…)`.
    pub(super) fn private_access(
        &self,
        i: usize,
        s: &Statement,
        values: &[Value],
        decl: &[Option<FieldType>],
    ) -> std::result::Result<String, String> {
        let target = |receiver: &Option<VarRef>| match receiver {
            Some(r) => match values.get(r.index()) {
                Some(Value::Var(v)) => v.clone(),
                Some(Value::Inline(t)) => t.clone(),
                _ => "null".into(),
            },
            None => "null".into(),
        };
        let pa = PRIVATE_ACCESS;
        Ok(match s {
            Statement::Method {
                class,
                name,
                descriptor,
                receiver,
                args,
            } => {
                let d = MethodDescriptor::parse(descriptor).map_err(|e| e.to_string())?;
                let types: Vec<String> = d
                    .params
                    .iter()
                    .map(|p| format!("{}.class", self.names.ty(p)))
                    .collect();
                let values: Vec<String> = d
                    .params
                    .iter()
                    .zip(args)
                    .map(|(p, a)| self.argument(*a, p, values, decl, None, None))
                    .collect();
                format!(
                    "{pa}.call({}.class, {}, {}, new Class<?>[] {{{}}}, new Object[] {{{}}})",
                    self.names.name(class),
                    target(receiver),
                    string_literal(name),
                    types.join(", "),
                    values.join(", ")
                )
            }
            Statement::FieldWrite {
                class,
                name,
                descriptor,
                receiver,
                value,
            } => {
                let ty = FieldType::parse(descriptor).map_err(|e| e.to_string())?;
                format!(
                    "{pa}.set({}.class, {}, {}, {})",
                    self.names.name(class),
                    target(receiver),
                    string_literal(name),
                    self.argument(*value, &ty, values, decl, Some((i, 0)), None)
                )
            }
            Statement::FieldRead {
                class,
                name,
                receiver,
                ..
            } => format!(
                "{pa}.get({}.class, {}, {})",
                self.names.name(class),
                target(receiver),
                string_literal(name)
            ),
            other => return Err(format!("cannot write private access {other}")),
        })
    }

    /// The stubbing lines of a mock: `doReturn(a, b).when(mock).m(anyInt(), any());` per
    /// stub (`doNothing()` for a void method).
    pub(super) fn stubs(
        &self,
        class: &str,
        mock: &str,
        stubs: &[Stub],
        values: &[Value],
        decl: &[Option<FieldType>],
        statics: &mut BTreeSet<&'static str>,
    ) -> std::result::Result<Vec<String>, String> {
        let mut lines = Vec::with_capacity(stubs.len());
        for stub in stubs {
            let d = MethodDescriptor::parse(&stub.descriptor).map_err(|e| e.to_string())?;
            let answer = match &d.ret {
                None => {
                    statics.insert(DO_NOTHING);
                    "doNothing()".to_string()
                }
                Some(ret) => {
                    statics.insert(DO_RETURN);
                    let answers: Vec<String> = stub
                        .answers
                        .iter()
                        .map(|a| self.answer(*a, ret, values, decl))
                        .collect();
                    format!("doReturn({})", answers.join(", "))
                }
            };
            // An overload of the same arity needs the matchers' types spelled out.
            let overloaded = self
                .types
                .overloads(class, &stub.name, d.params.len())
                .is_none_or(|n| n > 1);
            let matchers: Vec<String> = d
                .params
                .iter()
                .map(|p| {
                    let (name, text) = matcher(p);
                    statics.insert(name);
                    match p {
                        FieldType::Object(_) | FieldType::Array(_) if overloaded => {
                            format!("({}) {text}", self.type_text(p))
                        }
                        _ => text.to_string(),
                    }
                })
                .collect();
            lines.push(format!(
                "{answer}.when({mock}).{}({});",
                stub.name,
                matchers.join(", ")
            ));
        }
        Ok(lines)
    }

    /// An answer of a stub, typed exactly as the method returns it (Mockito checks the
    /// boxed class of a primitive answer).
    fn answer(
        &self,
        r: VarRef,
        ret: &FieldType,
        values: &[Value],
        decl: &[Option<FieldType>],
    ) -> String {
        match values.get(r.index()) {
            Some(Value::Inline(t)) if t == "null" => format!("({}) null", self.cast_text(r, ret)),
            Some(Value::Inline(t)) => t.clone(),
            Some(Value::Var(n)) => n.clone(),
            _ => match decl.get(r.index()) {
                Some(Some(t)) if !t.is_reference() => "0".into(),
                _ => format!("({}) null", self.type_text(ret)),
            },
        }
    }
}
