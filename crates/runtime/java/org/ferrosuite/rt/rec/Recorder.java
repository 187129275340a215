package org.ferrosuite.rt.rec;

import java.io.DataOutputStream;
import java.lang.reflect.Field;
import java.util.ArrayDeque;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What instrumented code calls while a program is recorded (see the Rust side's
 * {@code instrument::record}): one frame per call of an included method on a per-thread stack,
 * encoded as it happens and handed to a daemon writer thread when the call ends.
 *
 * <p>A method is recorded until it has {@code max} distinct calls (calls whose receiver and
 * arguments, without identities, hash alike are repeats) or has been seen {@code 20 * max}
 * times; then {@link #live} is false and its wrapper goes straight to the body. Only recorded
 * calls have frames. A recorded call's collaborators are the objects that came in through its
 * receiver's state or its arguments (JDK containers and values excepted: they are state), and
 * those returned by calls on collaborators. Every call on a collaborator made while the
 * recorded call runs, by whatever code, is one of its events, as is the first read of each static
 * field — but not
 * what happens inside a call on a collaborator (a test replaces the collaborator by a mock, so
 * that code does not run). The same event can belong to several recorded calls on the stack. Probes do nothing while the recorder itself runs (it never calls the
 * program's methods on purpose; an exception's {@code getMessage} is the one exception).
 *
 * <p>Record layout (big-endian; the Rust decoder in {@code ferrosuite-carve} reads it): a
 * length-prefixed frame per record, {@code 1} a call, {@code 2} the end of the run with the
 * per-method counts.
 */
public final class Recorder {
    /** The identity field of instrumented classes. */
    static final String ID_FIELD = "__ferrosuite$id";

    static final int REC_CALL = 1;
    static final int REC_END = 2;
    static final int EV_CALL = 0x21;
    static final int EV_RESULT = 0x22;
    static final int EV_THREW = 0x23;
    static final int EV_STATIC = 0x24;
    static final int EV_CLOCK = 0x25;
    static final int EV_RANDOM = 0x26;
    static final int EV_SEED = 0x27;
    static final int EV_FILE = 0x28;
    static final int EV_CONSOLE = 0x29;
    static final int EV_FILE_AFTER = 0x2a;
    static final int EV_END = 0x2f;

    private static final int BACKLOG_LIMIT = 64 << 20;
    /** Values per snapshot of the hashing pass that finds repeats. */
    private static final int HASH_VALUES = 64;

    static volatile boolean on;
    static Config cfg;
    private static final Object LOCK = new Object();
    /** Per method: 1 once it is no longer recorded. */
    private static volatile byte[] done = new byte[0];
    private static int[] seen = new int[0];
    private static int[] recorded = new int[0];
    private static int[] repeats = new int[0];
    private static int[] cut = new int[0];
    @SuppressWarnings("unchecked")
    private static HashSet<Long>[] hashes = new HashSet[0];
    private static final AtomicLong SEQ = new AtomicLong();
    private static final AtomicLong NEXT_OBJECT = new AtomicLong();
    static final AtomicInteger ACTIVE = new AtomicInteger();
    private static final AtomicLong DROPPED = new AtomicLong();
    private static final AtomicLong UNFINISHED = new AtomicLong();

    private static final ThreadLocal<Local> LOCAL = new ThreadLocal<Local>() {
        @Override
        protected Local initialValue() {
            return new Local();
        }
    };

    /** A thread and its {@link Local}. */
    private static final class Owner {
        final Thread thread;
        final Local local;

        Owner(Thread thread, Local local) {
            this.thread = thread;
            this.local = local;
        }
    }

    /**
     * The thread that asked last, with its state: the probes of calls and static reads ask on
     * every execution, and in a program that runs on one thread this spares them the
     * {@code ThreadLocal} lookup (most of the recording's cost on Rhino before it).
     */
    private static volatile Owner last = new Owner(null, null);

    /** The current thread's state. */
    static Local local() {
        Thread t = Thread.currentThread();
        Owner o = last;
        if (o.thread == t) {
            return o.local;
        }
        Local l = LOCAL.get();
        last = new Owner(t, l);
        return l;
    }

    private static final ClassValue<Field> ID = new ClassValue<Field>() {
        @Override
        protected Field computeValue(Class<?> c) {
            try {
                Field f = c.getDeclaredField(ID_FIELD);
                f.setAccessible(true);
                return f;
            } catch (Throwable e) {
                return null;
            }
        }
    };

    private static Writer writer;

    private Recorder() {
    }

    /** One call on a thread's stack. */
    static final class Frame {
        int method;
        boolean init;
        Encoder enc;
        long callId;
        Object receiver;
        /** Where the receiver's state before the call lies in the record. */
        int receiverStart;
        int receiverEnd;
        IdentityHashMap<Object, Boolean> collaborators;
        /** Events written (calls on collaborators, static reads). */
        int events;
        /** Some event was not written for the event limit. */
        boolean eventsCut;
        /** The static fields read so far (each is reported once, with its first value). */
        int[] statics;
        int staticCount;
        /** The clock was reported (its first reading is what a test sets). */
        boolean clockRead;
        /**
         * The paths whose state was reported (each once: its state before the call), with that
         * state as written, to tell at the call's end which ones it changed.
         */
        java.util.LinkedHashMap<String, byte[]> files;
        /** The console bytes read, written at the call's end. */
        java.io.ByteArrayOutputStream console;

        /** Whether static field {@code field} was reported for this call. */
        boolean readStatic(int field) {
            for (int i = 0; i < staticCount; i++) {
                if (statics[i] == field) {
                    return true;
                }
            }
            return false;
        }

        void addStatic(int field) {
            if (statics == null) {
                statics = new int[8];
            } else if (staticCount == statics.length) {
                statics = java.util.Arrays.copyOf(statics, staticCount * 2);
            }
            statics[staticCount++] = field;
        }

        /** Whether the call takes events now (see {@link Local#open}). */
        boolean taking() {
            return !eventsCut && openCall < 0;
        }
        /**
         * The token of the call on a collaborator this call is inside (what happens inside it is
         * not this call's), or -1.
         */
        int openCall = -1;
    }

    /** A thread's stack, the collaborators of its frames, and the re-entry guard. */
    static final class Local {
        Frame[] stack = new Frame[16];
        int size;
        boolean busy;
        /**
         * Frames on the stack that take events now (not cut, not inside a call on a
         * collaborator): when none does, calls on collaborators and static reads have nothing
         * to write or mark, and return at once.
         */
        int open;
        /** Collaborators of any frame on the stack, with the number of frames holding each. */
        final IdentityHashMap<Object, int[]> watched = new IdentityHashMap<Object, int[]>();
        /**
         * The classes of the watched objects, with how many of them each has: most calls are on
         * objects of other classes, and this test spares them the identity hash (which a new
         * or locked object pays dearly for).
         */
        final IdentityHashMap<Class<?>, int[]> classes = new IdentityHashMap<Class<?>, int[]>();
        /**
         * Changes with the stack, the collaborators and which frames take events: answers
         * computed at the same version still hold.
         */
        long version;
        /** Per static field, 1 + the version at which every taking frame had its read. */
        long[] staticsAt = new long[0];
        /** The last token given to a call on a collaborator. */
        int tokens;
        /** The last object {@link Recorder#watched} was asked about, and the answer. */
        Object lastAsked;
        long lastAskedAt = -1;
        boolean lastAnswer;

        /** Whether every frame that takes events has a read of static field {@code field}. */
        boolean hasStatic(int field) {
            return field < staticsAt.length && staticsAt[field] == version + 1;
        }

        void noteStatic(int field) {
            if (field >= staticsAt.length) {
                staticsAt = java.util.Arrays.copyOf(staticsAt, Math.max(field + 1, staticsAt.length * 2));
            }
            staticsAt[field] = version + 1;
        }

        void push(Frame f) {
            version++;
            if (size == stack.length) {
                Frame[] s = new Frame[size * 2];
                System.arraycopy(stack, 0, s, 0, size);
                stack = s;
            }
            stack[size++] = f;
            if (f.taking()) {
                open++;
            }
            for (Object o : f.collaborators.keySet()) {
                if (!isState(o)) {
                    watch(o);
                }
            }
        }

        Frame pop() {
            version++;
            Frame f = stack[--size];
            stack[size] = null;
            if (f.taking()) {
                open--;
            }
            for (Object o : f.collaborators.keySet()) {
                int[] n = watched.get(o);
                if (n != null && --n[0] <= 0) {
                    watched.remove(o);
                    int[] c = classes.get(o.getClass());
                    if (c != null && --c[0] <= 0) {
                        classes.remove(o.getClass());
                    }
                }
            }
            return f;
        }

        void watch(Object o) {
            version++;
            int[] n = watched.get(o);
            if (n == null) {
                watched.put(o, new int[] {1});
                int[] c = classes.get(o.getClass());
                if (c == null) {
                    classes.put(o.getClass(), new int[] {1});
                } else {
                    c[0]++;
                }
            } else {
                n[0]++;
            }
        }

        /** Makes {@code o} a collaborator of frame {@code f}. */
        void add(Frame f, Object o) {
            if (f.collaborators.put(o, Boolean.TRUE) == null) {
                watch(o);
            }
        }

        Frame top() {
            return size == 0 ? null : stack[size - 1];
        }

        long parentCall() {
            return size == 0 ? 0 : stack[size - 1].callId;
        }
    }

    static void start(Config c, DataOutputStream out) {
        cfg = c;
        writer = new Writer(out);
        Thread t = new Thread(writer, "ferrosuite-recorder");
        t.setDaemon(true);
        t.start();
        Runtime.getRuntime().addShutdownHook(new Thread(new Runnable() {
            @Override
            public void run() {
                finish();
            }
        }, "ferrosuite-recorder-end"));
        on = true;
    }

    /** The recorder's identity of an object of an instrumented class (0 for others). */
    static long idOf(Object o) {
        Field f = ID.get(o.getClass());
        if (f == null) {
            return 0;
        }
        try {
            long id = f.getLong(o);
            if (id == 0) {
                id = -NEXT_OBJECT.incrementAndGet();
                f.setLong(o, id);
            }
            return id;
        } catch (Throwable e) {
            return 0;
        }
    }

    private static void grow(int id) {
        synchronized (LOCK) {
            if (id < seen.length) {
                return;
            }
            int n = Math.max(id + 1, seen.length * 2 + 64);
            byte[] d = new byte[n];
            System.arraycopy(done, 0, d, 0, done.length);
            seen = java.util.Arrays.copyOf(seen, n);
            recorded = java.util.Arrays.copyOf(recorded, n);
            repeats = java.util.Arrays.copyOf(repeats, n);
            cut = java.util.Arrays.copyOf(cut, n);
            hashes = java.util.Arrays.copyOf(hashes, n);
            done = d;
        }
    }

    /** Whether a wrapper reports this call: the method is still recorded. */
    public static boolean live(int id) {
        if (!on) {
            return false;
        }
        byte[] d = done;
        return id >= d.length || d[id] == 0;
    }

    /** Whether a constructor reports this call (as {@link #live}). */
    public static boolean liveInit(int id) {
        return live(id);
    }

    /** Whether calls on this object are to be reported: a collaborator of a recorded call here. */
    public static boolean watched(Object receiver) {
        if (!on || receiver == null || ACTIVE.get() == 0) {
            return false;
        }
        Local l = local();
        if (l.open == 0 || l.busy) {
            return false;
        }
        if (receiver == l.lastAsked && l.lastAskedAt == l.version) {
            return l.lastAnswer;
        }
        boolean a = l.classes.containsKey(receiver.getClass()) && l.watched.containsKey(receiver);
        l.lastAsked = receiver;
        l.lastAskedAt = l.version;
        l.lastAnswer = a;
        return a;
    }

    /**
     * A wrapped method starts; returns the token its exit passes back (-1: nothing pushed).
     */
    public static int enter(int id, Object receiver, Object[] args) {
        if (!on) {
            return -1;
        }
        Local l = local();
        if (l.busy) {
            return -1;
        }
        l.busy = true;
        try {
            int token = l.size;
            Frame f = begin(l, id, false, receiver, args);
            if (f == null) {
                return -1;
            }
            l.push(f);
            return token;
        } catch (Throwable t) {
            return -1;
        } finally {
            l.busy = false;
        }
    }

    /** A constructor starts (no receiver yet). */
    public static void enterInit(int id, Object[] args) {
        if (!on) {
            return;
        }
        Local l = local();
        if (l.busy) {
            return;
        }
        l.busy = true;
        try {
            Frame f = begin(l, id, true, null, args);
            if (f != null) {
                l.push(f);
            }
        } catch (Throwable t) {
            // Unrecorded call.
        } finally {
            l.busy = false;
        }
    }

    /** Decides whether the call is recorded and writes its start; null when nothing is pushed. */
    private static Frame begin(Local l, int id, boolean init, Object receiver, Object[] args) {
        if (id >= seen.length) {
            grow(id);
        }
        Frame f = new Frame();
        f.method = id;
        f.init = init;
        boolean record;
        synchronized (LOCK) {
            record = done[id] == 0;
            if (record) {
                seen[id]++;
                if (seen[id] > 20 * cfg.maxPerMethod) {
                    done[id] = 1;
                    record = false;
                }
            }
        }
        if (!record) {
            return null;
        }
        // A cheap pass first: the inputs' hash over the first HASH_VALUES values of each
        // snapshot, so that a repeat costs no full snapshot.
        Encoder probe = new Encoder(cfg, HASH_VALUES);
        probe.hashing = true;
        probe.dry = true;
        probe.u32(id);
        probe.snapshot(null);
        probe.value(receiver, cfg.depth);
        for (Object a : args) {
            probe.snapshot(null);
            probe.value(a, cfg.depth);
        }
        long h = probe.hash;
        synchronized (LOCK) {
            if (hashes[id] == null) {
                hashes[id] = new HashSet<Long>();
            }
            if (!hashes[id].add(h)) {
                repeats[id]++;
                return null;
            }
        }
        Encoder e = new Encoder(cfg);
        f.callId = SEQ.incrementAndGet();
        f.receiver = receiver;
        f.collaborators = new IdentityHashMap<Object, Boolean>();
        e.u32(0);
        e.u8(REC_CALL);
        e.u8(init ? 2 : 1);
        e.u32(id);
        e.u64(f.callId);
        e.u64(l.parentCall());
        e.u64(Thread.currentThread().getId());
        e.snapshot(f.collaborators);
        if (receiver == null) {
            e.u8(Encoder.NULL);
            e.id64(0);
        } else {
            f.receiverStart = e.len;
            e.value(receiver, cfg.depth);
            f.receiverEnd = e.len;
            e.id64(idOf(receiver));
        }
        e.u16(args.length);
        for (Object a : args) {
            e.value(a, cfg.depth);
        }
        f.collaborators.remove(receiver);
        f.enc = e;
        ACTIVE.incrementAndGet();
        return f;
    }

    /** A wrapped method returns (a {@code void} method passes null). */
    public static void exit(Object value, int token) {
        end(token, value, null);
    }

    /** A wrapped method throws. */
    public static void thrown(Throwable t, int token) {
        end(token, null, t);
    }

    private static void end(int token, Object value, Throwable thrown) {
        if (token < 0) {
            return;
        }
        Local l = local();
        if (l.busy || token >= l.size) {
            return;
        }
        l.busy = true;
        try {
            while (l.size > token + 1) {
                discard(l.pop());
            }
            finishFrame(l.pop(), value, thrown, null);
        } catch (Throwable t) {
            // The record is lost; the program goes on.
        } finally {
            l.busy = false;
        }
    }

    /** A constructor returns normally: its object is built. */
    public static void exitInit(Object self, int id) {
        if (!on) {
            return;
        }
        Local l = local();
        Frame top = l.top();
        if (l.busy || top == null || !top.init || top.method != id) {
            return;
        }
        l.busy = true;
        try {
            Frame f = l.pop();
            {
                Field idField = ID.get(self.getClass());
                if (idField != null && idField.getDeclaringClass() == self.getClass()) {
                    idField.setLong(self, f.callId);
                }
            }
            finishFrame(f, null, null, self);
        } catch (Throwable t) {
            // The record is lost.
        } finally {
            l.busy = false;
        }
    }

    private static void discard(Frame f) {
        ACTIVE.decrementAndGet();
        UNFINISHED.incrementAndGet();
    }

    private static void finishFrame(Frame f, Object value, Throwable thrown, Object built) {
        Encoder e = f.enc;
        ACTIVE.decrementAndGet();
        EnvRecorder.after(f);
        if (f.console != null) {
            e.u8(EV_CONSOLE);
            e.u32(f.console.size());
            e.raw(f.console.toByteArray());
        }
        e.u8(EV_END);
        if (thrown != null) {
            e.u8(1);
            e.exception(thrown);
        } else {
            e.u8(0);
            e.snapshot(null);
            e.value(value, cfg.depth);
        }
        Object after = built != null ? built : f.receiver;
        e.snapshot(null);
        if (after == null) {
            e.u8(Encoder.NULL);
        } else {
            int start = e.len;
            e.value(after, cfg.depth);
            if (built == null && sameBytes(e.buf, start, e.len, f.receiverStart, f.receiverEnd)) {
                e.len = start;
                e.u8(Encoder.SAME);
            }
        }
        // Flags: 1 some value or event was cut, 2 events were cut (the interactions are not all
        // there, so no test can replay them).
        e.u8((e.truncated ? 1 : 0) | (f.eventsCut ? 2 : 0));
        int n = e.len - 4;
        e.buf[0] = (byte) (n >>> 24);
        e.buf[1] = (byte) (n >>> 16);
        e.buf[2] = (byte) (n >>> 8);
        e.buf[3] = (byte) n;
        boolean last;
        synchronized (LOCK) {
            recorded[f.method]++;
            last = recorded[f.method] >= cfg.maxPerMethod;
            if (last) {
                done[f.method] = 1;
            }
        }
        if (!writer.offer(e.bytes())) {
            DROPPED.incrementAndGet();
        }
    }

    private static boolean sameBytes(byte[] b, int s1, int e1, int s2, int e2) {
        if (e1 - s1 != e2 - s2) {
            return false;
        }
        for (int i = 0; i < e1 - s1; i++) {
            if (b[s1 + i] != b[s2 + i]) {
                return false;
            }
        }
        return true;
    }

    /** Whether the call may record one more event (else it is marked truncated and events-cut). */
    static boolean roomFor(Local l, Frame f) {
        if (f.events >= cfg.events) {
            f.enc.truncated = true;
            if (f.taking()) {
                l.open--;
                l.version++;
            }
            f.eventsCut = true;
            return false;
        }
        f.events++;
        return true;
    }

    /**
     * JDK containers and values: part of the state that snapshots record, not collaborators
     * whose answers a test would replay.
     */
    private static boolean isState(Object o) {
        return o.getClass().getClassLoader() == null
            && (o instanceof java.util.Collection || o instanceof java.util.Map
                || o instanceof java.util.Iterator || o instanceof java.util.Map.Entry
                || o instanceof CharSequence || o instanceof Number || o instanceof Boolean
                || o instanceof Character || o instanceof Enum || o instanceof Class
                || o.getClass().isArray());
    }

    /** A call on a collaborator begins; returns the token of its end (-1: not reported). */
    public static int callOut(int target, Object receiver, Object[] args) {
        Local l = local();
        if (l.busy || receiver == null || l.open == 0 || isState(receiver)) {
            return -1;
        }
        l.busy = true;
        try {
            // Unique per thread: a call on a collaborator of an outer frame, made inside a call
            // on a collaborator of an inner one, must not close the inner frame's call.
            int token = ++l.tokens & Integer.MAX_VALUE;
            boolean any = false;
            for (int i = l.size - 1; i >= 0; i--) {
                Frame f = l.stack[i];
                if (!f.taking() || !f.collaborators.containsKey(receiver) || !roomFor(l, f)) {
                    continue;
                }
                Encoder e = f.enc;
                f.openCall = token;
                l.open--;
                l.version++;
                any = true;
                e.u8(EV_CALL);
                e.u32(target);
                e.u32(e.number(receiver));
                e.u16(args.length);
                e.snapshot(null);
                for (Object a : args) {
                    e.value(a, 1);
                }
            }
            return any ? token : -1;
        } catch (Throwable t) {
            return -1;
        } finally {
            l.busy = false;
        }
    }

    /** The reported call returned (null for {@code void}). */
    public static void callReturn(Object value, int token) {
        closeCall(token, value, null);
    }

    /** The reported call threw. */
    public static void callThrew(Throwable thrown, int token) {
        closeCall(token, null, thrown);
    }

    private static void closeCall(int token, Object value, Throwable thrown) {
        if (token < 0) {
            return;
        }
        Local l = local();
        if (l.busy) {
            return;
        }
        l.busy = true;
        try {
            boolean collaborator = value != null && !isState(value);
            for (int i = l.size - 1; i >= 0; i--) {
                Frame f = l.stack[i];
                if (f.openCall != token) {
                    continue;
                }
                f.openCall = -1;
                l.version++;
                if (f.taking()) {
                    l.open++;
                }
                if (thrown != null) {
                    f.enc.u8(EV_THREW);
                    f.enc.exception(thrown);
                } else {
                    f.enc.u8(EV_RESULT);
                    f.enc.snapshot(null);
                    f.enc.value(value, cfg.depth);
                    if (collaborator) {
                        l.add(f, value);
                    }
                }
            }
        } catch (Throwable t) {
            // Lost.
        } finally {
            l.busy = false;
        }
    }

    /** A static field of an included class was read. */
    public static void staticRead(Object value, int field) {
        if (!on || ACTIVE.get() == 0) {
            return;
        }
        Local l = local();
        if (l.busy || l.open == 0 || l.hasStatic(field)) {
            return;
        }
        l.busy = true;
        try {
            for (int i = l.size - 1; i >= 0; i--) {
                Frame f = l.stack[i];
                // A test sets each static field to the value the call read first; later reads
                // (a loop over a static table) would only repeat it.
                if (!f.taking() || f.readStatic(field) || !roomFor(l, f)) {
                    continue;
                }
                f.addStatic(field);
                f.enc.u8(EV_STATIC);
                f.enc.u32(field);
                f.enc.snapshot(null);
                f.enc.value(value, cfg.depth);
            }
            l.noteStatic(field);
        } catch (Throwable t) {
            // Lost.
        } finally {
            l.busy = false;
        }
    }

    /** At exit: the counts per method, then the writer drains and closes. */
    static void finish() {
        if (!on) {
            return;
        }
        on = false;
        Encoder e = new Encoder(cfg);
        e.u32(0);
        e.u8(REC_END);
        synchronized (LOCK) {
            int n = seen.length;
            int used = 0;
            for (int i = 0; i < n; i++) {
                if (seen[i] > 0 || repeats[i] > 0) {
                    used++;
                }
            }
            e.u32(used);
            for (int i = 0; i < n; i++) {
                if (seen[i] > 0 || repeats[i] > 0) {
                    e.u32(i);
                    e.u32(seen[i]);
                    e.u32(recorded[i]);
                    e.u32(repeats[i]);
                }
            }
        }
        e.u64(DROPPED.get());
        e.u64(UNFINISHED.get());
        int n = e.len - 4;
        e.buf[0] = (byte) (n >>> 24);
        e.buf[1] = (byte) (n >>> 16);
        e.buf[2] = (byte) (n >>> 8);
        e.buf[3] = (byte) n;
        writer.close(e.bytes());
    }

    /** Hands finished records to the recording process off the program's threads. */
    static final class Writer implements Runnable {
        private final DataOutputStream out;
        private final ArrayDeque<byte[]> queue = new ArrayDeque<byte[]>();
        private long queued;
        private boolean closing;
        private boolean closed;
        private boolean broken;

        Writer(DataOutputStream out) {
            this.out = out;
        }

        synchronized boolean offer(byte[] rec) {
            if (closing || broken || queued + rec.length > BACKLOG_LIMIT) {
                return false;
            }
            queue.add(rec);
            queued += rec.length;
            notifyAll();
            return true;
        }

        void close(byte[] last) {
            synchronized (this) {
                closing = true;
                queue.add(last);
                notifyAll();
                long deadline = System.nanoTime() + 30_000_000_000L;
                while (!closed && !broken && System.nanoTime() < deadline) {
                    try {
                        wait(100);
                    } catch (InterruptedException e) {
                        return;
                    }
                }
            }
        }

        @Override
        public void run() {
            try {
                while (true) {
                    byte[] rec;
                    synchronized (this) {
                        while (queue.isEmpty()) {
                            if (closing) {
                                out.flush();
                                closed = true;
                                notifyAll();
                                return;
                            }
                            out.flush();
                            wait();
                        }
                        rec = queue.poll();
                        queued -= rec.length;
                    }
                    out.write(rec);
                }
            } catch (Throwable t) {
                synchronized (this) {
                    broken = true;
                    notifyAll();
                }
            }
        }
    }
}
