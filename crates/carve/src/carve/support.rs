//! `CarveSupport`, a static class nested in each carved test class: builds objects from their
//! recorded state (allocation without a constructor, field writes by reflection), sets static
//! fields (and puts them back after the test), reads fields for the checks, and makes recorded exceptions and enum constants by
//! name. Plain Java 8 on the JDK alone (Objenesis is used when on the class path, else
//! `sun.misc.Unsafe`), so a carved test class is one file.

/// The helper's simple name.
pub const NAME: &str = "CarveSupport";

/// The helper's source, to be placed inside the test class (its lines indented by four).
#[must_use]
pub fn source() -> String {
    BODY.lines()
        .map(|l| {
            if l.is_empty() {
                String::new()
            } else {
                format!("    {l}")
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

const BODY: &str = r#"/** Rebuilds recorded state for the carved tests (written by ferrosuite carve). */
static final class CarveSupport {
    private CarveSupport() {
    }

    /** An instance of {@code type} made without running a constructor. */
    @SuppressWarnings("unchecked")
    static <T> T allocate(Class<T> type) {
        try {
            Class<?> std = Class.forName("org.objenesis.ObjenesisStd");
            Object objenesis = std.getConstructor().newInstance();
            return (T) std.getMethod("newInstance", Class.class).invoke(objenesis, type);
        } catch (ClassNotFoundException e) {
            // No Objenesis: Unsafe below.
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("cannot allocate " + type.getName(), e);
        }
        try {
            java.lang.reflect.Field f = Class.forName("sun.misc.Unsafe").getDeclaredField("theUnsafe");
            f.setAccessible(true);
            Object unsafe = f.get(null);
            return (T) unsafe.getClass().getMethod("allocateInstance", Class.class).invoke(unsafe, type);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("cannot allocate " + type.getName(), e);
        }
    }

    /** The class of this binary name. */
    static Class<?> type(String name) {
        try {
            return Class.forName(name, false, CarveSupport.class.getClassLoader());
        } catch (ClassNotFoundException e) {
            throw new IllegalStateException(e);
        }
    }

    private static java.lang.reflect.Field field(String declaring, String name) {
        try {
            java.lang.reflect.Field f = type(declaring).getDeclaredField(name);
            f.setAccessible(true);
            return f;
        } catch (NoSuchFieldException e) {
            throw new IllegalStateException(declaring + "." + name + " is gone", e);
        }
    }

    /** Writes a field of {@code target} (declared by {@code declaring}). */
    static void set(Object target, String declaring, String name, Object value) {
        try {
            java.lang.reflect.Field f = field(declaring, name);
            int mods = f.getModifiers();
            if (java.lang.reflect.Modifier.isFinal(mods) && java.lang.reflect.Modifier.isStatic(mods)) {
                return;
            }
            f.set(target, value);
        } catch (IllegalAccessException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Static fields a test set, with the values they had before (restored after the test). */
    private static final java.util.List<Object[]> SET_STATICS = new java.util.ArrayList<Object[]>();

    /** Writes a static field; a final one is left as it is. Restored by {@link #restoreStatics}. */
    static void setStatic(String declaring, String name, Object value) {
        try {
            java.lang.reflect.Field f = field(declaring, name);
            if (!java.lang.reflect.Modifier.isFinal(f.getModifiers())) {
                SET_STATICS.add(new Object[] {f, f.get(null)});
            }
        } catch (IllegalAccessException e) {
            throw new IllegalStateException(e);
        }
        set(null, declaring, name, value);
    }

    /**
     * Puts back the static fields the test set, last first: the program's static state is what
     * it was for the next test, in this class or another one run in the same JVM.
     */
    static void restoreStatics() {
        for (int i = SET_STATICS.size() - 1; i >= 0; i--) {
            Object[] e = SET_STATICS.get(i);
            try {
                ((java.lang.reflect.Field) e[0]).set(null, e[1]);
            } catch (IllegalAccessException x) {
                throw new IllegalStateException(x);
            }
        }
        SET_STATICS.clear();
    }

    /** Reads a field of {@code target} (null: static). */
    static Object get(Object target, String declaring, String name) {
        try {
            return field(declaring, name).get(target);
        } catch (IllegalAccessException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Calls a method a test cannot call directly; what it throws is thrown as it is. */
    static Object invoke(Object target, String declaring, String name, Class<?>[] types, Object[] args)
            throws Throwable {
        java.lang.reflect.Method m = type(declaring).getDeclaredMethod(name, types);
        m.setAccessible(true);
        try {
            return m.invoke(target, args);
        } catch (java.lang.reflect.InvocationTargetException e) {
            throw e.getCause();
        }
    }

    /** The constant {@code name} of the enum {@code type}. */
    @SuppressWarnings({"unchecked", "rawtypes"})
    static Object enumValue(String type, String name) {
        return Enum.valueOf((Class) type(type), name);
    }

    /** An exception of this class with this message (its (String) constructor, else its no-argument one). */
    static Throwable throwable(String type, String message) {
        Class<?> c = type(type);
        try {
            return (Throwable) c.getConstructor(String.class).newInstance(message);
        } catch (ReflectiveOperationException e) {
            try {
                return (Throwable) c.getConstructor().newInstance();
            } catch (ReflectiveOperationException e2) {
                return (Throwable) allocate(c);
            }
        }
    }

    /** {@code map} with the entries {@code k1, v1, k2, v2, ...} put in order. */
    @SuppressWarnings({"unchecked", "rawtypes"})
    static java.util.Map map(java.util.Map map, Object... entries) {
        for (int i = 0; i + 1 < entries.length; i += 2) {
            map.put(entries[i], entries[i + 1]);
        }
        return map;
    }
}
"#;
