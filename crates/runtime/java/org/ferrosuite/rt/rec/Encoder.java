package org.ferrosuite.rt.rec;

import java.lang.reflect.Array;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/**
 * Writes one recorded call: a growable big-endian buffer, the value encoding, and a hash of the
 * call's inputs (values without identities) that tells repeated calls apart.
 *
 * <p>Values (the tags the Rust decoder reads): null, the eight primitives (boxed values are
 * written as their primitive), strings, enum constants, class literals, arrays, objects of the
 * program with their fields (declaring class, name, value), JDK collections and maps by their
 * elements, JDK number and text types by their text, and, past the depth or size limit or where
 * reflection is refused, a reference or an opaque object. Every array and object gets a number
 * local to the record; a second meeting in the same snapshot writes a back reference (an object
 * cut by a limit is not entered in the snapshot: met again, it is written again, in full where
 * the limits allow). The
 * snapshot after the call (the receiver's state) is a new scope that keeps the numbers.
 */
final class Encoder {
    static final int NULL = 0;
    static final int BOOLEAN = 1;
    static final int BYTE = 2;
    static final int CHAR = 3;
    static final int SHORT = 4;
    static final int INT = 5;
    static final int LONG = 6;
    static final int FLOAT = 7;
    static final int DOUBLE = 8;
    static final int STRING = 9;
    static final int ENUM = 10;
    static final int CLASS = 11;
    static final int ARRAY = 12;
    static final int OBJECT = 13;
    static final int BACKREF = 14;
    static final int REF = 15;
    static final int TEXT = 16;
    static final int COLLECTION = 17;
    static final int MAP = 18;
    static final int OPAQUE = 19;
    static final int VOID = 20;
    /** The receiver's state after the call is the state before. */
    static final int SAME = 21;
    /** A name's length field that says "the name numbered next in this snapshot's table". */
    static final int NAME_REF = -1;

    private static final long FNV_OFFSET = 0xcbf29ce484222325L;
    private static final long FNV_PRIME = 0x100000001b3L;

    private static final ClassValue<Field[]> FIELDS = new ClassValue<Field[]>() {
        @Override
        protected Field[] computeValue(Class<?> c) {
            List<Field> out = new ArrayList<Field>();
            for (Field f : c.getDeclaredFields()) {
                if (Modifier.isStatic(f.getModifiers()) || f.getName().equals(Recorder.ID_FIELD)) {
                    continue;
                }
                try {
                    f.setAccessible(true);
                    out.add(f);
                } catch (RuntimeException e) {
                    // Module encapsulation: the field stays unread, the object is marked partial.
                    return null;
                }
            }
            return out.toArray(new Field[0]);
        }
    };

    byte[] buf = new byte[256];
    int len;
    long hash = FNV_OFFSET;
    /** Mix what is written into {@link #hash}. */
    boolean hashing;
    /** Only hash: write nothing (the pass that finds repeats). */
    boolean dry;
    private final Config cfg;
    private final IdentityHashMap<Object, Integer> numbers = new IdentityHashMap<Object, Integer>(64);
    /** Entries a per-snapshot table keeps its storage for (past that it is replaced). */
    private static final int SMALL = 32;
    private IdentityHashMap<Object, Boolean> scope = new IdentityHashMap<Object, Boolean>(SMALL);
    /** Names (classes, fields) written in the current snapshot, by their number. */
    private java.util.HashMap<String, Integer> names = new java.util.HashMap<String, Integer>();
    /** Objects met in the current snapshot (the callee's collaborators, for the entry snapshot). */
    IdentityHashMap<Object, Boolean> met;
    private int budget;
    boolean truncated;

    /** Values per snapshot: the configured limit, or fewer for a hashing pass. */
    private final int limit;

    Encoder(Config cfg) {
        this(cfg, cfg.values);
    }

    Encoder(Config cfg, int limit) {
        this.cfg = cfg;
        this.limit = limit;
    }

    private void ensure(int n) {
        if (len + n > buf.length) {
            byte[] b = new byte[Math.max(buf.length * 2, len + n)];
            System.arraycopy(buf, 0, b, 0, len);
            buf = b;
        }
    }

    private void mix(int v) {
        hash = (hash ^ v) * FNV_PRIME;
    }

    void u8(int v) {
        if (!dry) {
            ensure(1);
            buf[len++] = (byte) v;
        }
        if (hashing) {
            mix(v & 0xff);
        }
    }

    void u16(int v) {
        if (!dry) {
            ensure(2);
            buf[len] = (byte) (v >>> 8);
            buf[len + 1] = (byte) v;
            len += 2;
        }
        if (hashing) {
            mix(v & 0xffff);
        }
    }

    void u32(int v) {
        if (!dry) {
            ensure(4);
            buf[len] = (byte) (v >>> 24);
            buf[len + 1] = (byte) (v >>> 16);
            buf[len + 2] = (byte) (v >>> 8);
            buf[len + 3] = (byte) v;
            len += 4;
        }
        if (hashing) {
            mix(v);
        }
    }

    void u64(long v) {
        u32((int) (v >>> 32));
        u32((int) v);
    }

    /** A number that is an identity (not hashed: equal inputs on other objects are repeats). */
    void id64(long v) {
        boolean h = hashing;
        hashing = false;
        u64(v);
        hashing = h;
    }

    void id32(int v) {
        boolean h = hashing;
        hashing = false;
        u32(v);
        hashing = h;
    }

    /** Bytes as they are (not hashed). */
    void raw(byte[] b) {
        if (dry) {
            return;
        }
        ensure(b.length);
        System.arraycopy(b, 0, buf, len, b.length);
        len += b.length;
    }

    void str(String s) {
        if (hashing) {
            mix(s.length());
            mix(s.hashCode());
        }
        if (dry) {
            return;
        }
        byte[] b = s.getBytes(StandardCharsets.UTF_8);
        boolean h = hashing;
        hashing = false;
        u32(b.length);
        hashing = h;
        ensure(b.length);
        System.arraycopy(b, 0, buf, len, b.length);
        len += b.length;
    }

    /**
     * A class or field name: written once per snapshot, then as {@code -1} and its number in
     * the snapshot's table (the decoder keeps the same table).
     */
    void name(String s) {
        if (dry) {
            str(s);
            return;
        }
        Integer n = names.get(s);
        boolean h = hashing;
        hashing = false;
        if (n != null) {
            u32(NAME_REF);
            u32(n);
        } else {
            names.put(s, names.size());
            str(s);
        }
        hashing = h;
        if (hashing) {
            mix(s.hashCode());
        }
    }

    /** Starts a new snapshot: budget reset, new back-reference scope and name table. */
    void snapshot(IdentityHashMap<Object, Boolean> collect) {
        budget = limit;
        // Clearing costs the table's capacity, not its size: a table that grew is replaced, so
        // that the many small snapshots (a static read, a call's arguments) stay cheap.
        if (scope.size() > SMALL) {
            scope = new IdentityHashMap<Object, Boolean>(SMALL);
        } else if (!scope.isEmpty()) {
            scope.clear();
        }
        if (names.size() > SMALL) {
            names = new java.util.HashMap<String, Integer>();
        } else if (!names.isEmpty()) {
            names.clear();
        }
        met = collect;
    }

    /** The record-wide number of an object (the same in every snapshot of the record). */
    int number(Object o) {
        Integer n = numbers.get(o);
        if (n == null) {
            n = numbers.size() + 1;
            numbers.put(o, n);
        }
        return n;
    }

    /** Whether this object has a number already (met before in the record). */
    boolean known(Object o) {
        return numbers.containsKey(o);
    }

    void value(Object v, int depth) {
        budget--;
        if (v == null) {
            u8(NULL);
            return;
        }
        Class<?> c = v.getClass();
        if (c == String.class) {
            String s = (String) v;
            if (s.length() > cfg.strings) {
                s = s.substring(0, cfg.strings);
                truncated = true;
            }
            u8(STRING);
            str(s);
            return;
        }
        if (c == Integer.class) {
            u8(INT);
            u32((Integer) v);
            return;
        }
        if (c == Boolean.class) {
            u8(BOOLEAN);
            u8(((Boolean) v) ? 1 : 0);
            return;
        }
        if (c == Long.class) {
            u8(LONG);
            u64((Long) v);
            return;
        }
        if (c == Character.class) {
            u8(CHAR);
            u16((Character) v);
            return;
        }
        if (c == Double.class) {
            u8(DOUBLE);
            u64(Double.doubleToRawLongBits((Double) v));
            return;
        }
        if (c == Float.class) {
            u8(FLOAT);
            u32(Float.floatToRawIntBits((Float) v));
            return;
        }
        if (c == Byte.class) {
            u8(BYTE);
            u8((Byte) v);
            return;
        }
        if (c == Short.class) {
            u8(SHORT);
            u16((Short) v);
            return;
        }
        if (v instanceof Enum) {
            u8(ENUM);
            name(((Enum<?>) v).getDeclaringClass().getName());
            name(((Enum<?>) v).name());
            return;
        }
        if (c == Class.class) {
            u8(CLASS);
            name(((Class<?>) v).getName());
            return;
        }
        if (met != null) {
            met.put(v, Boolean.TRUE);
        }
        int n = number(v);
        if (scope.containsKey(v)) {
            u8(BACKREF);
            id32(n);
            return;
        }
        if (depth <= 0 || budget <= 0) {
            // Not in the scope: met again nearer the top (a field of the receiver that a deep
            // path reached first), the object is written in full there.
            u8(REF);
            id32(n);
            name(c.getName());
            id64(Recorder.idOf(v));
            truncated = true;
            return;
        }
        scope.put(v, Boolean.TRUE);
        if (c.isArray()) {
            array(v, c, n, depth);
            return;
        }
        boolean jdk = c.getClassLoader() == null;
        if (jdk) {
            if (v instanceof CharSequence || v instanceof BigInteger || v instanceof BigDecimal
                    || v instanceof java.io.File || v instanceof java.net.URI || v instanceof java.net.URL
                    || v instanceof java.util.UUID || v instanceof java.util.Locale
                    || v instanceof java.nio.file.Path || v instanceof java.util.regex.Pattern
                    || v instanceof java.nio.charset.Charset) {
                // JDK value types, by the text they are built from (their own code, not the program's).
                u8(TEXT);
                id32(n);
                name(c.getName());
                str(v.toString());
                return;
            }
            if (v instanceof java.util.Date) {
                u8(TEXT);
                id32(n);
                name(c.getName());
                str(Long.toString(((java.util.Date) v).getTime()));
                return;
            }
            if (v instanceof Collection) {
                collection((Collection<?>) v, c, n, depth);
                return;
            }
            if (v instanceof Map) {
                map((Map<?, ?>) v, c, n, depth);
                return;
            }
        }
        object(v, c, n, depth, jdk);
    }

    /**
     * Writes a container's header (tag, number, class or component name, size, elements kept)
     * and returns how many elements follow: all, or none past the limit — a test cannot rebuild
     * a shortened container (the carver skips what needs one), and big buffers were most of the
     * bytes a recording wrote.
     */
    private int header(int tag, int n, String type, int size) {
        int k = size <= cfg.arrays ? size : 0;
        if (k < size) {
            truncated = true;
        }
        u8(tag);
        id32(n);
        name(type);
        u32(size);
        u32(k);
        return k;
    }

    private void array(Object v, Class<?> c, int n, int depth) {
        Class<?> t = c.getComponentType();
        int k = header(ARRAY, n, t.getName(), Array.getLength(v));
        if (!t.isPrimitive()) {
            Object[] a = (Object[]) v;
            for (int i = 0; i < k; i++) {
                value(a[i], depth - 1);
            }
            return;
        }
        // Primitive elements as value() writes them, without boxing each.
        budget -= k;
        if (t == int.class) {
            int[] a = (int[]) v;
            for (int i = 0; i < k; i++) {
                u8(INT);
                u32(a[i]);
            }
        } else if (t == byte.class) {
            byte[] a = (byte[]) v;
            for (int i = 0; i < k; i++) {
                u8(BYTE);
                u8(a[i]);
            }
        } else if (t == char.class) {
            char[] a = (char[]) v;
            for (int i = 0; i < k; i++) {
                u8(CHAR);
                u16(a[i]);
            }
        } else if (t == long.class) {
            long[] a = (long[]) v;
            for (int i = 0; i < k; i++) {
                u8(LONG);
                u64(a[i]);
            }
        } else if (t == double.class) {
            double[] a = (double[]) v;
            for (int i = 0; i < k; i++) {
                u8(DOUBLE);
                u64(Double.doubleToRawLongBits(a[i]));
            }
        } else if (t == float.class) {
            float[] a = (float[]) v;
            for (int i = 0; i < k; i++) {
                u8(FLOAT);
                u32(Float.floatToRawIntBits(a[i]));
            }
        } else if (t == short.class) {
            short[] a = (short[]) v;
            for (int i = 0; i < k; i++) {
                u8(SHORT);
                u16(a[i]);
            }
        } else {
            boolean[] a = (boolean[]) v;
            for (int i = 0; i < k; i++) {
                u8(BOOLEAN);
                u8(a[i] ? 1 : 0);
            }
        }
    }

    private void collection(Collection<?> v, Class<?> c, int n, int depth) {
        Object[] items = null;
        int size;
        try {
            // Past the limit only the size (as for arrays).
            size = v.size();
            if (size <= cfg.arrays) {
                items = v.toArray();
                size = items.length;
            }
        } catch (RuntimeException e) {
            opaque(c, n, "cannot read its elements: " + e.getClass().getName());
            return;
        }
        int k = header(COLLECTION, n, c.getName(), size);
        for (int i = 0; i < k; i++) {
            value(items[i], depth - 1);
        }
    }

    private void map(Map<?, ?> v, Class<?> c, int n, int depth) {
        Object[] entries = null;
        int size;
        try {
            size = v.size();
            if (size <= cfg.arrays) {
                entries = v.entrySet().toArray();
                size = entries.length;
            }
        } catch (RuntimeException e) {
            opaque(c, n, "cannot read its entries: " + e.getClass().getName());
            return;
        }
        int k = header(MAP, n, c.getName(), size);
        for (int i = 0; i < k; i++) {
            Map.Entry<?, ?> e = (Map.Entry<?, ?>) entries[i];
            value(e.getKey(), depth - 1);
            value(e.getValue(), depth - 1);
        }
    }

    private void opaque(Class<?> c, int n, String why) {
        u8(OPAQUE);
        id32(n);
        name(c.getName());
        str(why);
        truncated = true;
    }

    private void object(Object v, Class<?> c, int n, int depth, boolean jdk) {
        List<Field> fields = new ArrayList<Field>();
        boolean partial = false;
        for (Class<?> k = c; k != null && k != Object.class; k = k.getSuperclass()) {
            Field[] fs = FIELDS.get(k);
            if (fs == null) {
                partial = true;
                continue;
            }
            for (Field f : fs) {
                fields.add(f);
            }
        }
        if (jdk && partial) {
            opaque(c, n, "module encapsulation");
            return;
        }
        u8(OBJECT);
        id32(n);
        name(c.getName());
        id64(Recorder.idOf(v));
        u16(fields.size());
        for (Field f : fields) {
            name(f.getDeclaringClass().getName());
            name(f.getName());
            Object x;
            try {
                x = f.get(v);
            } catch (Throwable e) {
                x = null;
                partial = true;
            }
            value(x, depth - 1);
        }
        u8(partial ? 1 : 0);
        if (partial) {
            truncated = true;
        }
    }

    /** An exception: class name, message (when it has one). */
    void exception(Throwable t) {
        str(t.getClass().getName());
        String m;
        try {
            m = t.getMessage();
        } catch (Throwable e) {
            m = null;
        }
        if (m == null) {
            u8(0);
        } else {
            u8(1);
            str(m.length() > cfg.strings ? m.substring(0, cfg.strings) : m);
        }
    }

    /** A copy of the buffer's bytes. */
    byte[] bytes() {
        byte[] out = new byte[len];
        System.arraycopy(buf, 0, out, 0, len);
        return out;
    }
}
