//! Mockito in emitted tests: the static imports, argument matchers and the default answer of
//! the mocks.
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

use ferrosuite_bytecode::descriptor::FieldType;

use super::JUnit;

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
