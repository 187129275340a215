package org.ferrosuite.rt;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Rewrites a class file so that its code reads the controlled environment (the virtual clock,
 * seeded randomness, the virtual file system and console): the twin, for emitted tests, of the
 * worker's rewrite (the Rust module {@code ferrosuite_bytecode::instrument::environment}),
 * driven by the same table ({@link EnvironmentTable}, generated from the Rust one at build time).
 *
 * <p>Nothing moves, so no branch offset, stack map frame or exception range needs fixing:
 * <ul>
 * <li>an {@code invokestatic} of a redirected API or a {@code getstatic} of a redirected field
 * gets, as its 2-byte operand, a new constant naming the stand-in, appended to the constant
 * pool (same descriptor); method handle constants are retargeted the same way;
 * <li>an instance call of a redirected method becomes {@code invokestatic} of a stand-in taking
 * the receiver first ({@code invokeinterface}'s two extra bytes become {@code nop}s);
 * <li>{@code new C; dup; args; invokespecial C.<init>} of a factory constructor becomes
 * {@code nop}s, the arguments and {@code invokestatic} of the factory
 * ({@code new Random()} draws the same seed as the worker's rewrite).
 * </ul>
 * A class that extends {@code Random} directly gets {@link SeededRandom} as its superclass
 * (its constructors' {@code super(…)} calls follow), so that its {@code super()} draws a seed as
 * the worker's rewrite makes it do, and one that extends {@code Thread} gets
 * {@link NamedThread}, so that its {@code super()} takes this test's next thread name; only
 * when the class is loaded, since a retransformation may not change a superclass. A
 * {@code super()} of a subclass of {@code Date} stays as it is.
 */
public final class Patcher {
    /** Superclasses replaced: the JDK class and the runtime's subclass standing in for it. */
    private static final Class<?>[][] PARENTS = {
        {java.util.Random.class, SeededRandom.class},
        {Thread.class, NamedThread.class},
    };

    /**
     * Per entry of {@link #PARENTS}: the JDK class's internal name, the runtime subclass's, and
     * the descriptors of the subclass's constructors (a class calling another constructor of
     * the JDK class keeps its superclass).
     */
    private static final List<String[]> PARENT_NAMES = new ArrayList<String[]>();

    static {
        for (Class<?>[] p : PARENTS) {
            StringBuilder ctors = new StringBuilder(" ");
            for (java.lang.reflect.Constructor<?> c : p[1].getConstructors()) {
                ctors.append('(');
                for (Class<?> t : c.getParameterTypes()) {
                    ctors.append(Types.descriptor(t));
                }
                ctors.append(")V ");
            }
            PARENT_NAMES.add(new String[] {
                p[0].getName().replace('.', '/'), p[1].getName().replace('.', '/'),
                ctors.toString()});
        }
    }

    /** Static APIs: owner, name, descriptor, the stand-in's owner and name. */
    static final List<String[]> REDIRECTS = new ArrayList<String[]>();

    /** Static fields read with {@code getstatic}: owner, name, descriptor, the stand-in's. */
    static final List<String[]> FIELDS = new ArrayList<String[]>();

    /**
     * Instance methods, made {@code invokestatic} calls of a stand-in taking the receiver
     * first: owner, name, descriptor, the stand-in's owner, name and descriptor.
     */
    static final List<String[]> INSTANCE_REDIRECTS = new ArrayList<String[]>();

    /** Constructors made factory calls: class, descriptor, the factory's owner, name, descriptor. */
    static final List<String[]> FACTORIES = new ArrayList<String[]>();

    static {
        for (String line : EnvironmentTable.LINES) {
            String[] w = line.split(" ");
            String[] rest = new String[w.length - 1];
            System.arraycopy(w, 1, rest, 0, rest.length);
            if (w[0].equals("static")) {
                REDIRECTS.add(rest);
            } else if (w[0].equals("field")) {
                FIELDS.add(rest);
            } else if (w[0].equals("instance")) {
                INSTANCE_REDIRECTS.add(rest);
            } else if (w[0].equals("factory")) {
                FACTORIES.add(rest);
            }
        }
    }

    private Patcher() {
    }

    /**
     * The rewritten class file, or null when it reads neither clock nor randomness.
     *
     * @throws IOException when the bytes are not a class file this patcher can read
     */
    public static byte[] patch(byte[] b) throws IOException {
        return patch(b, true);
    }

    /**
     * {@link #patch(byte[])}, with the superclass left as it is unless {@code hierarchy} (a
     * class being retransformed keeps its superclass).
     */
    public static byte[] patch(byte[] b, boolean hierarchy) throws IOException {
        try {
            return new Run(b).patch(hierarchy);
        } catch (RuntimeException e) {
            // An index past the end or into the wrong entry: a class file cut short or broken.
            throw new IOException("malformed class file: " + e, e);
        }
    }

    /** One rewrite: the class's constant pool read, new entries appended as needed. */
    private static final class Run {
        private final byte[] out;
        private final int count;
        private final int[] offsets;
        private final int cpEnd;
        private final ByteArrayOutputStream extra = new ByteArrayOutputStream();
        private final Map<String, Integer> added = new HashMap<String, Integer>();
        private int next;
        private int changed;

        Run(byte[] b) throws IOException {
            if (b.length < 10 || u4(b, 0) != 0xCAFEBABEL) {
                throw new IOException("not a class file (no 0xCAFEBABE at byte offset 0)");
            }
            out = b.clone();
            count = u2(b, 8);
            next = count;
            offsets = new int[count];
            int p = 10;
            for (int i = 1; i < count; i++) {
                if (p >= b.length) {
                    throw new IOException("constant pool ends early at byte offset " + p);
                }
                offsets[i] = p;
                int tag = b[p] & 0xff;
                switch (tag) {
                    case 1:
                        p += 3 + u2(b, p + 1);
                        break;
                    case 3: case 4:
                        p += 5;
                        break;
                    case 5: case 6:
                        p += 9;
                        i++;
                        break;
                    case 7: case 8: case 16: case 19: case 20:
                        p += 3;
                        break;
                    case 9: case 10: case 11: case 12: case 17: case 18:
                        p += 5;
                        break;
                    case 15:
                        p += 4;
                        break;
                    default:
                        throw new IOException("unknown constant tag " + tag + " at byte offset " + p);
                }
            }
            cpEnd = p;
        }

        private int tag(int i) {
            return i > 0 && i < count && offsets[i] != 0 ? out[offsets[i]] & 0xff : 0;
        }

        private String utf8(int i) throws IOException {
            if (tag(i) != 1) {
                throw new IOException("constant " + i + " is not a Utf8");
            }
            int p = offsets[i];
            DataInputStream in = new DataInputStream(
                new ByteArrayInputStream(out, p + 1, 2 + u2(out, p + 1)));
            return in.readUTF();
        }

        private String className(int i) throws IOException {
            if (tag(i) != 7) {
                throw new IOException("constant " + i + " is not a Class");
            }
            return utf8(u2(out, offsets[i] + 1));
        }

        /** owner, name, descriptor of a Fieldref, Methodref or InterfaceMethodref, else null. */
        private String[] member(int i) throws IOException {
            int t = tag(i);
            if (t != 9 && t != 10 && t != 11) {
                return null;
            }
            int p = offsets[i];
            int nat = u2(out, p + 3);
            if (tag(nat) != 12) {
                throw new IOException("constant " + nat + " is not a NameAndType");
            }
            int q = offsets[nat];
            return new String[] {
                className(u2(out, p + 1)), utf8(u2(out, q + 1)), utf8(u2(out, q + 3))};
        }

        private int add(String key, byte[] entry) throws IOException {
            Integer known = added.get(key);
            if (known != null) {
                return known;
            }
            if (next >= 0xFFFF) {
                throw new IOException("constant pool full");
            }
            extra.write(entry);
            int index = next++;
            added.put(key, index);
            return index;
        }

        private int addUtf8(String s) throws IOException {
            ByteArrayOutputStream e = new ByteArrayOutputStream();
            java.io.DataOutputStream d = new java.io.DataOutputStream(e);
            d.writeByte(1);
            d.writeUTF(s);
            return add("U" + s, e.toByteArray());
        }

        private int addMethodref(String owner, String name, String desc) throws IOException {
            return addMemberref(10, owner, name, desc);
        }

        private int addFieldref(String owner, String name, String desc) throws IOException {
            return addMemberref(9, owner, name, desc);
        }

        /** A Fieldref (tag 9) or Methodref (tag 10) constant, added once. */
        private int addMemberref(int tag, String owner, String name, String desc)
                throws IOException {
            int cls = add("C" + owner, entry(7, addUtf8(owner), -1));
            int nat = add("N" + name + " " + desc, entry(12, addUtf8(name), addUtf8(desc)));
            return add(tag + owner + "." + name + desc, entry(tag, cls, nat));
        }

        private byte[] patch(boolean hierarchy) throws IOException {
            // Constant indices to rewrite: redirected APIs and fields, factory constructors.
            Map<Integer, Integer> redirected = new HashMap<Integer, Integer>();
            Map<Integer, Integer> fields = new HashMap<Integer, Integer>();
            Map<Integer, Integer> instance = new HashMap<Integer, Integer>();
            Map<Integer, Integer> factories = new HashMap<Integer, Integer>();
            for (int i = 1; i < count; i++) {
                int t = tag(i);
                if (t == 9) {
                    String[] f = member(i);
                    for (String[] r : FIELDS) {
                        if (r[0].equals(f[0]) && r[1].equals(f[1]) && r[2].equals(f[2])) {
                            fields.put(i, addFieldref(r[3], r[4], r[2]));
                        }
                    }
                    continue;
                }
                String[] m = member(i);
                if (m == null) {
                    continue;
                }
                for (String[] r : REDIRECTS) {
                    if (t == 10 && r[0].equals(m[0]) && r[1].equals(m[1]) && r[2].equals(m[2])) {
                        redirected.put(i, addMethodref(r[3], r[4], r[2]));
                    }
                }
                for (String[] r : INSTANCE_REDIRECTS) {
                    if (r[0].equals(m[0]) && r[1].equals(m[1]) && r[2].equals(m[2])) {
                        instance.put(i, addMethodref(r[3], r[4], r[5]));
                    }
                }
                if (t == 10 && m[1].equals("<init>")) {
                    for (String[] f : FACTORIES) {
                        if (f[0].equals(m[0]) && f[1].equals(m[2])) {
                            factories.put(i, addMethodref(f[2], f[3], f[4]));
                        }
                    }
                }
            }
            int superIndex = u2(out, cpEnd + 4);
            String[] parent = null;
            if (hierarchy && superIndex != 0) {
                String name = className(superIndex);
                for (String[] p : PARENT_NAMES) {
                    if (p[0].equals(name)) {
                        parent = p;
                    }
                }
            }
            if (redirected.isEmpty() && fields.isEmpty() && instance.isEmpty()
                    && factories.isEmpty() && parent == null) {
                return null;
            }
            // Method handles of redirected APIs: REF_invokeVirtual (5), REF_invokeSpecial (7)
            // and REF_invokeInterface (9) of an instance redirect become REF_invokeStatic (6).
            for (int i = 1; i < count; i++) {
                if (tag(i) != 15) {
                    continue;
                }
                int kind = out[offsets[i] + 1] & 0xff;
                int ref = u2(out, offsets[i] + 2);
                if (kind == 6 && redirected.containsKey(ref)) {
                    put2(out, offsets[i] + 2, redirected.get(ref));
                    changed++;
                } else if ((kind == 5 || kind == 7 || kind == 9) && instance.containsKey(ref)) {
                    out[offsets[i] + 1] = 6;
                    put2(out, offsets[i] + 2, instance.get(ref));
                    changed++;
                }
            }
            int p = cpEnd + 6;
            p += 2 + 2 * u2(out, p);
            p = skipMembers(p);
            int methods = u2(out, p);
            p += 2;
            List<int[]> constructors = new ArrayList<int[]>();
            for (int m = 0; m < methods; m++) {
                boolean init = "<init>".equals(utf8(u2(out, p + 2)));
                int attributes = u2(out, p + 6);
                p += 8;
                for (int a = 0; a < attributes; a++) {
                    int length = (int) u4(out, p + 2);
                    if ("Code".equals(utf8(u2(out, p)))) {
                        int codeLength = (int) u4(out, p + 10);
                        if (init) {
                            constructors.add(new int[] {p + 14, codeLength});
                        }
                        code(p + 14, codeLength, redirected, fields, instance, factories);
                    }
                    p += 6 + length;
                }
            }
            if (parent != null) {
                reparent(constructors, parent);
            }
            if (changed == 0) {
                return null;
            }
            byte[] more = extra.toByteArray();
            byte[] result = new byte[out.length + more.length];
            System.arraycopy(out, 0, result, 0, cpEnd);
            put2(result, 8, next);
            System.arraycopy(more, 0, result, cpEnd, more.length);
            System.arraycopy(out, cpEnd, result, cpEnd + more.length, out.length - cpEnd);
            return result;
        }

        /**
         * Gives a direct subclass of {@code parent[0]} ({@code Random}, {@code Thread}) the
         * runtime's {@code parent[1]} as its superclass: the super_class entry, and every
         * {@code invokespecial parent[0].<init>} of its constructors. Left alone when a
         * constructor also makes a {@code new parent[0]} (whose own {@code <init>} call could not
         * be told from the superclass's) or calls a constructor the runtime's class lacks.
         */
        private void reparent(List<int[]> constructors, String[] parent) throws IOException {
            String from = parent[0];
            List<Integer> sites = new ArrayList<Integer>();
            for (int[] c : constructors) {
                int pc = 0;
                while (pc < c[1]) {
                    int at = c[0] + pc;
                    int op = out[at] & 0xff;
                    if (op == 0xbb && from.equals(className(u2(out, at + 1)))) {
                        return;
                    }
                    if (op == 0xb7) {
                        String[] m = member(u2(out, at + 1));
                        if (m != null && m[0].equals(from) && m[1].equals("<init>")) {
                            if (!parent[2].contains(" " + m[2] + " ")) {
                                return;
                            }
                            sites.add(at);
                        }
                    }
                    pc += length(pc, at, op);
                }
            }
            String to = parent[1];
            for (int at : sites) {
                String[] m = member(u2(out, at + 1));
                put2(out, at + 1, addMethodref(to, "<init>", m[2]));
            }
            put2(out, cpEnd + 4, add("C" + to, entry(7, addUtf8(to), -1)));
            changed++;
        }

        /** Skips the fields (count, then each with its attributes); returns where methods start. */
        private int skipMembers(int p) {
            int n = u2(out, p);
            p += 2;
            for (int i = 0; i < n; i++) {
                int attributes = u2(out, p + 6);
                p += 8;
                for (int a = 0; a < attributes; a++) {
                    p += 6 + (int) u4(out, p + 2);
                }
            }
            return p;
        }

        /**
         * Rewrites one method's code in place. A factory constructor is replaced where javac's
         * shape is there: {@code new C} directly followed by {@code dup}, the matching
         * {@code invokespecial C.<init>} (the innermost pending {@code new C}) and no jump,
         * switch, return or {@code athrow} in between, so that no stack map frame holds the
         * uninitialised object: {@code new} and {@code dup} become {@code nop}s and the call an
         * {@code invokestatic} of the factory (the rule of the worker's rewrite).
         */
        private void code(int start, int length, Map<Integer, Integer> redirected,
                Map<Integer, Integer> fields, Map<Integer, Integer> instance,
                Map<Integer, Integer> factories) throws IOException {
            List<int[]> pending = new ArrayList<int[]>();
            List<String> pendingClass = new ArrayList<String>();
            int lastJump = -1;
            int pc = 0;
            while (pc < length) {
                int at = start + pc;
                int op = out[at] & 0xff;
                int index = LENGTHS[op] >= 3 ? u2(out, at + 1) : 0;
                if (op == 0xb8 && redirected.containsKey(index)) {
                    put2(out, at + 1, redirected.get(index));
                    changed++;
                } else if (op == 0xb2 && fields.containsKey(index)) {
                    put2(out, at + 1, fields.get(index));
                    changed++;
                } else if ((op == 0xb6 || op == 0xb7) && instance.containsKey(index)) {
                    // Same stack effect: the receiver becomes the first argument.
                    put2(out, at + 1, instance.get(index));
                    out[at] = (byte) 0xb8;
                    changed++;
                } else if (op == 0xb9 && instance.containsKey(index)) {
                    put2(out, at + 1, instance.get(index));
                    out[at] = (byte) 0xb8;
                    out[at + 3] = 0;
                    out[at + 4] = 0;
                    changed++;
                } else if (op == 0xbb) {
                    boolean dup = pc + 3 < length && (out[at + 3] & 0xff) == 0x59;
                    pending.add(new int[] {pc, dup ? 1 : 0});
                    pendingClass.add(className(index));
                } else if (op == 0xb7) {
                    String[] m = member(index);
                    if (m != null && m[1].equals("<init>")) {
                        int k = pendingClass.lastIndexOf(m[0]);
                        if (k >= 0) {
                            int[] n = pending.get(k);
                            while (pending.size() > k) {
                                pending.remove(pending.size() - 1);
                                pendingClass.remove(pendingClass.size() - 1);
                            }
                            Integer to = factories.get(index);
                            if (to != null && n[1] == 1 && lastJump < n[0]) {
                                for (int j = 0; j < 4; j++) {
                                    out[start + n[0] + j] = 0;
                                }
                                out[at] = (byte) 0xb8;
                                put2(out, at + 1, to);
                                changed++;
                            }
                        }
                    }
                } else if ((op >= 0x99 && op <= 0xb1) || op == 0xbf || (op >= 0xc6 && op <= 0xc9)) {
                    lastJump = pc;
                }
                pc += length(pc, at, op);
            }
        }

        /** The length of the instruction at {@code pc} (at byte {@code at} of the file). */
        private int length(int pc, int at, int op) throws IOException {
            if (op == 0xaa || op == 0xab) {
                int pad = (4 - ((pc + 1) % 4)) % 4;
                int base = at + 1 + pad;
                if (op == 0xaa) {
                    int low = (int) u4(out, base + 4);
                    int high = (int) u4(out, base + 8);
                    return 1 + pad + 12 + 4 * (high - low + 1);
                }
                return 1 + pad + 8 + 8 * (int) u4(out, base + 4);
            }
            if (op == 0xc4) {
                return (out[at + 1] & 0xff) == 0x84 ? 6 : 4;
            }
            int n = LENGTHS[op];
            if (n == 0) {
                throw new IOException("unknown opcode " + op + " at code offset " + pc);
            }
            return n;
        }
    }

    /** Instruction lengths by opcode (0: unknown or variable). */
    private static final int[] LENGTHS = new int[256];

    static {
        for (int op = 0x00; op <= 0xc3; op++) {
            LENGTHS[op] = 1;
        }
        LENGTHS[0x10] = 2;
        LENGTHS[0x11] = 3;
        LENGTHS[0x12] = 2;
        LENGTHS[0x13] = 3;
        LENGTHS[0x14] = 3;
        for (int op = 0x15; op <= 0x19; op++) {
            LENGTHS[op] = 2;
        }
        for (int op = 0x36; op <= 0x3a; op++) {
            LENGTHS[op] = 2;
        }
        LENGTHS[0x84] = 3;
        for (int op = 0x99; op <= 0xa8; op++) {
            LENGTHS[op] = 3;
        }
        LENGTHS[0xa9] = 2;
        LENGTHS[0xaa] = 0;
        LENGTHS[0xab] = 0;
        for (int op = 0xb2; op <= 0xb8; op++) {
            LENGTHS[op] = 3;
        }
        LENGTHS[0xb9] = 5;
        LENGTHS[0xba] = 5;
        LENGTHS[0xbb] = 3;
        LENGTHS[0xbc] = 2;
        LENGTHS[0xbd] = 3;
        LENGTHS[0xc0] = 3;
        LENGTHS[0xc1] = 3;
        LENGTHS[0xc5] = 4;
        LENGTHS[0xc6] = 3;
        LENGTHS[0xc7] = 3;
        LENGTHS[0xc8] = 5;
        LENGTHS[0xc9] = 5;
        LENGTHS[0xca] = 1;
        LENGTHS[0xfe] = 1;
        LENGTHS[0xff] = 1;
    }

    private static byte[] entry(int tag, int a, int b) {
        return b < 0
            ? new byte[] {(byte) tag, (byte) (a >> 8), (byte) a}
            : new byte[] {(byte) tag, (byte) (a >> 8), (byte) a, (byte) (b >> 8), (byte) b};
    }

    private static int u2(byte[] b, int p) {
        return ((b[p] & 0xff) << 8) | (b[p + 1] & 0xff);
    }

    private static long u4(byte[] b, int p) {
        return ((long) (b[p] & 0xff) << 24) | ((b[p + 1] & 0xff) << 16) | ((b[p + 2] & 0xff) << 8)
            | (b[p + 3] & 0xff);
    }

    private static void put2(byte[] b, int p, int v) {
        b[p] = (byte) (v >> 8);
        b[p + 1] = (byte) v;
    }

    /**
     * {@code --table}: prints the redirects and seeded constructors, one per line; {@code IN
     * OUT}: patches one class file (OUT not written when nothing changed; exit status 3).
     */
    public static void main(String[] args) throws IOException {
        if (args.length == 1 && args[0].equals("--table")) {
            for (String[] r : REDIRECTS) {
                System.out.println(r[0] + "." + r[1] + r[2] + " -> " + r[3] + "." + r[4]);
            }
            for (String[] r : INSTANCE_REDIRECTS) {
                System.out.println(r[0] + "." + r[1] + r[2] + " -> " + r[3] + "." + r[4] + r[5]);
            }
            for (String[] f : FACTORIES) {
                System.out.println("new " + f[0] + f[1] + " -> " + f[2] + "." + f[3] + f[4]);
            }
            return;
        }
        if (args.length != 2) {
            System.err.println("usage: Patcher --table | Patcher IN.class OUT.class");
            System.exit(2);
        }
        byte[] patched = patch(Files.readAllBytes(Paths.get(args[0])));
        if (patched == null) {
            System.exit(3);
        }
        Files.write(Paths.get(args[1]), patched);
    }
}
