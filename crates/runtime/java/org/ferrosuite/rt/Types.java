package org.ferrosuite.rt;

/** JVM type descriptors of classes, for the runtime classes that match members by descriptor. */
final class Types {
    private Types() {}

    /** The descriptor of a type: {@code I}, {@code V}, {@code Ljava/lang/String;}, {@code [I}. */
    static String descriptor(Class<?> c) {
        if (c.isArray()) return c.getName().replace('.', '/');
        if (c == int.class) return "I";
        if (c == long.class) return "J";
        if (c == boolean.class) return "Z";
        if (c == byte.class) return "B";
        if (c == char.class) return "C";
        if (c == short.class) return "S";
        if (c == float.class) return "F";
        if (c == double.class) return "D";
        if (c == void.class) return "V";
        return "L" + c.getName().replace('.', '/') + ";";
    }
}
