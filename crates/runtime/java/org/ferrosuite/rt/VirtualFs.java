package org.ferrosuite.rt;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The virtual file system that code under test reads and writes instead of the machine's: a
 * tree of directories and files held in memory, which starts every test with only the working
 * directory {@value #WORK} and the temporary directory {@value #TMP} (both empty).
 *
 * <p>Paths are Unix-like strings made absolute against {@value #WORK} and normalised
 * ({@code "a/./b/../c.txt"} is {@code /work/a/c.txt}), so a test is the same on every machine.
 * Each file has bytes and read, write and execute permissions; each entry has a modification
 * time from the virtual clock. Listings are in name order. The JDK's file APIs reach this
 * class through {@link VirtualFiles} (java.io) and {@link VirtualPaths} (java.nio.file).
 *
 * <p>What a test touched is recorded for the search: {@link #touched} counts operations, and
 * {@link #accessed} keeps the first paths asked for (as the code spelled them), which become
 * values for the statements that create files ({@link Environment#writeFile}).
 */
public final class VirtualFs {
    /** The working directory: relative paths start here. */
    public static final String WORK = "/work";
    /** The temporary directory ({@code java.io.tmpdir}). */
    public static final String TMP = "/tmp";
    /** How many accessed paths a test records. */
    static final int ACCESSED = 8;
    /** The largest file, in bytes (a larger write fails as a full disk would). */
    static final int MAX_FILE = 1 << 24;

    /** File system operations in this test. */
    public static int touched;
    /** The first paths this test asked for, as written ({@link #ACCESSED} at most). */
    public static final List<String> accessed = new ArrayList<String>();

    private static final Map<String, Node> NODES = new TreeMap<String, Node>();
    private static int temporaries;

    static {
        begin();
    }

    private VirtualFs() {
    }

    /** An entry of the tree. */
    static final class Node {
        final boolean dir;
        byte[] data = new byte[0];
        int size;
        boolean readable = true;
        boolean writable = true;
        boolean executable;
        long modified;
        /** The locks channels hold on this file ({@link VirtualChannel}). */
        final List<java.nio.channels.FileLock> locks =
            new ArrayList<java.nio.channels.FileLock>();

        Node(boolean dir) {
            this.dir = dir;
            this.executable = dir;
            this.modified = SystemTime.stamp();
        }

        byte[] bytes() {
            return Arrays.copyOf(data, size);
        }

        /** Writes {@code len} bytes at {@code at} (past the end: the gap reads as zeros). */
        void write(long at, byte[] b, int off, int len) throws IOException {
            long end = at + len;
            if (end > MAX_FILE) {
                throw new IOException("No space left on device");
            }
            if (end > data.length) {
                data = Arrays.copyOf(data, (int) Math.max(end, Math.max(16, data.length * 2L)));
            }
            if (at > size) {
                // Bytes left from before a truncation must read as zeros in the gap.
                Arrays.fill(data, size, (int) Math.min(at, data.length), (byte) 0);
            }
            System.arraycopy(b, off, data, (int) at, len);
            size = (int) Math.max(size, end);
            modified = SystemTime.stamp();
        }
    }

    /** Starts a test: the tree is back to the two empty directories. */
    public static synchronized void begin() {
        NODES.clear();
        NODES.put("/", new Node(true));
        NODES.put(WORK, new Node(true));
        NODES.put(TMP, new Node(true));
        touched = 0;
        accessed.clear();
        temporaries = 0;
    }

    /** {@link #accessed}, one path per line (for the worker). */
    public static synchronized String accessedText() {
        StringBuilder b = new StringBuilder();
        for (String p : accessed) {
            if (b.length() > 0) {
                b.append('\n');
            }
            b.append(p);
        }
        return b.toString();
    }

    /** The absolute, normalised form of a path ({@code null} stays null). */
    public static String resolve(String path) {
        if (path == null) {
            return null;
        }
        String p = path.replace('\\', '/');
        String full = p.startsWith("/") ? p : WORK + "/" + p;
        List<String> parts = new ArrayList<String>();
        for (String s : full.split("/")) {
            if (s.isEmpty() || s.equals(".")) {
                continue;
            }
            if (s.equals("..")) {
                if (!parts.isEmpty()) {
                    parts.remove(parts.size() - 1);
                }
                continue;
            }
            parts.add(s);
        }
        StringBuilder b = new StringBuilder();
        for (String s : parts) {
            b.append('/').append(s);
        }
        return b.length() == 0 ? "/" : b.toString();
    }

    /** The parent of an absolute path, or null for the root. */
    static String parent(String abs) {
        if (abs.equals("/")) {
            return null;
        }
        int i = abs.lastIndexOf('/');
        return i == 0 ? "/" : abs.substring(0, i);
    }

    /** Records an operation on {@code path} and returns its absolute form. */
    static synchronized String touch(String path) {
        touched++;
        if (path != null && accessed.size() < ACCESSED && !accessed.contains(path)) {
            accessed.add(path);
        }
        return resolve(path);
    }

    static synchronized Node node(String abs) {
        return abs == null ? null : NODES.get(abs);
    }

    static synchronized boolean exists(String path) {
        return node(touch(path)) != null;
    }

    /** The names in a directory, in order, or null when it is not a readable directory. */
    static synchronized String[] list(String path) {
        String abs = touch(path);
        Node n = node(abs);
        if (n == null || !n.dir || !n.readable) {
            return null;
        }
        String prefix = abs.equals("/") ? "/" : abs + "/";
        TreeSet<String> names = new TreeSet<String>();
        for (String k : NODES.keySet()) {
            if (k.startsWith(prefix) && k.length() > prefix.length()
                    && k.indexOf('/', prefix.length()) < 0) {
                names.add(k.substring(prefix.length()));
            }
        }
        return names.toArray(new String[0]);
    }

    /**
     * Creates an entry; false when it exists already.
     *
     * @throws IOException when the parent is missing, not a directory or not writable
     */
    static synchronized boolean create(String path, boolean dir) throws IOException {
        String abs = touch(path);
        if (NODES.containsKey(abs)) {
            return false;
        }
        Node p = node(parent(abs));
        if (p == null || !p.dir) {
            throw new IOException("No such file or directory: " + path);
        }
        if (!p.writable) {
            throw new IOException("Permission denied: " + path);
        }
        NODES.put(abs, new Node(dir));
        p.modified = SystemTime.stamp();
        return true;
    }

    /** Creates a directory and the missing ones above it; false when nothing was created. */
    static synchronized boolean mkdirs(String path) {
        String abs = touch(path);
        if (NODES.containsKey(abs)) {
            return false;
        }
        List<String> missing = new ArrayList<String>();
        for (String a = abs; a != null && !NODES.containsKey(a); a = parent(a)) {
            missing.add(0, a);
        }
        Node top = node(parent(missing.get(0)));
        if (top == null || !top.dir || !top.writable) {
            return false;
        }
        for (String a : missing) {
            NODES.put(a, new Node(true));
        }
        return true;
    }

    /** Deletes a file or an empty directory; false when missing, non-empty or protected. */
    static synchronized boolean delete(String path) {
        String abs = touch(path);
        Node n = node(abs);
        Node p = node(parent(abs));
        if (n == null || p == null || !p.writable || abs.equals(WORK) || abs.equals(TMP)) {
            return false;
        }
        if (n.dir && list(path).length > 0) {
            return false;
        }
        NODES.remove(abs);
        return true;
    }

    /** Moves an entry and what is under it; false when it cannot. */
    static synchronized boolean rename(String from, String to, boolean replace) {
        String a = touch(from);
        String b = touch(to);
        Node n = node(a);
        Node target = node(b);
        Node p = node(parent(b));
        if (n == null || p == null || !p.dir || !p.writable || b.startsWith(a + "/")
                || (target != null && (!replace || target.dir && list(to).length > 0))) {
            return false;
        }
        if (a.equals(b)) {
            return true;
        }
        Map<String, Node> moved = new TreeMap<String, Node>();
        for (Map.Entry<String, Node> e : NODES.entrySet()) {
            String k = e.getKey();
            if (k.equals(a) || k.startsWith(a + "/")) {
                moved.put(b + k.substring(a.length()), e.getValue());
            }
        }
        NODES.keySet().removeIf(k -> k.equals(a) || k.startsWith(a + "/"));
        NODES.keySet().removeIf(k -> k.equals(b));
        NODES.putAll(moved);
        return true;
    }

    /** A new name in {@code dir} (absolute) for a temporary file. */
    static synchronized String temporary(String dir, String prefix, String suffix) {
        String base = dir == null ? TMP : resolve(dir);
        String name;
        do {
            temporaries++;
            name = base + "/" + prefix + (1000000 + temporaries) + (suffix == null ? ".tmp" : suffix);
        } while (NODES.containsKey(name));
        return name;
    }

    /**
     * The content of a readable file.
     *
     * @throws FileNotFoundException as {@code FileInputStream} throws it, naming the reason
     */
    static synchronized byte[] read(String path) throws FileNotFoundException {
        return readable(path).bytes();
    }

    static synchronized Node readable(String path) throws FileNotFoundException {
        Node n = node(touch(path));
        if (n == null) {
            throw new FileNotFoundException(path + " (No such file or directory)");
        }
        if (n.dir) {
            throw new FileNotFoundException(path + " (Is a directory)");
        }
        if (!n.readable) {
            throw new FileNotFoundException(path + " (Permission denied)");
        }
        return n;
    }

    /**
     * Opens a file for writing, creating it or emptying it unless {@code append}.
     *
     * @throws FileNotFoundException as {@code FileOutputStream} throws it
     */
    static synchronized Node writable(String path, boolean append) throws FileNotFoundException {
        String abs = touch(path);
        Node n = node(abs);
        if (n == null) {
            Node p = node(parent(abs));
            if (p == null || !p.dir) {
                throw new FileNotFoundException(path + " (No such file or directory)");
            }
            if (!p.writable) {
                throw new FileNotFoundException(path + " (Permission denied)");
            }
            n = new Node(false);
            NODES.put(abs, n);
        } else if (n.dir) {
            throw new FileNotFoundException(path + " (Is a directory)");
        } else if (!n.writable) {
            throw new FileNotFoundException(path + " (Permission denied)");
        }
        if (!append) {
            n.data = new byte[0];
            n.size = 0;
        }
        n.modified = SystemTime.stamp();
        return n;
    }

    /**
     * Puts a file with these bytes at {@code path} for a test, making the directories above it
     * (not counted as the code's use); false when a file is in the way.
     */
    static synchronized boolean put(String path, byte[] content) {
        String abs = resolve(path);
        for (String a = parent(abs); a != null; a = parent(a)) {
            Node n = NODES.get(a);
            if (n != null && !n.dir) {
                return false;
            }
        }
        Node old = NODES.get(abs);
        if (old != null && old.dir) {
            return false;
        }
        for (String a = parent(abs); a != null && !NODES.containsKey(a); a = parent(a)) {
            NODES.put(a, new Node(true));
        }
        Node n = new Node(false);
        n.data = content.clone();
        n.size = content.length;
        NODES.put(abs, n);
        return true;
    }

    /** Makes a directory and those above it for a test; false when a file is in the way. */
    static synchronized boolean putDirectory(String path) {
        String abs = resolve(path);
        for (String a = abs; a != null; a = parent(a)) {
            Node n = NODES.get(a);
            if (n != null && !n.dir) {
                return false;
            }
        }
        for (String a = abs; a != null && !NODES.containsKey(a); a = parent(a)) {
            NODES.put(a, new Node(true));
        }
        return true;
    }

    /** The entry at {@code path} (not counted as the code's use), or null. */
    static synchronized Node peek(String path) {
        return NODES.get(resolve(path));
    }

    /** Reads a file's bytes as they were when opened. */
    static final class In extends InputStream {
        private final byte[] bytes;
        private int at;
        private boolean closed;

        In(byte[] bytes) {
            this.bytes = bytes;
        }

        private void open() throws IOException {
            if (closed) {
                throw new IOException("Stream Closed");
            }
        }

        @Override
        public synchronized int read() throws IOException {
            open();
            return at < bytes.length ? bytes[at++] & 0xff : -1;
        }

        @Override
        public synchronized int read(byte[] b, int off, int len) throws IOException {
            open();
            if (off < 0 || len < 0 || len > b.length - off) {
                throw new IndexOutOfBoundsException();
            }
            if (len == 0) {
                return 0;
            }
            if (at >= bytes.length) {
                return -1;
            }
            int n = Math.min(len, bytes.length - at);
            System.arraycopy(bytes, at, b, off, n);
            at += n;
            return n;
        }

        @Override
        public synchronized long skip(long n) throws IOException {
            open();
            long k = Math.max(0, Math.min(n, bytes.length - at));
            at += (int) k;
            return k;
        }

        @Override
        public synchronized int available() throws IOException {
            open();
            return bytes.length - at;
        }

        @Override
        public void close() {
            closed = true;
        }
    }

    /** Writes to the end of a file (a reader opened later sees what was written). */
    static final class Out extends OutputStream {
        private final Node node;
        private boolean closed;

        Out(Node node) {
            this.node = node;
        }

        @Override
        public void write(int b) throws IOException {
            write(new byte[] {(byte) b}, 0, 1);
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            if (off < 0 || len < 0 || len > b.length - off) {
                throw new IndexOutOfBoundsException();
            }
            synchronized (VirtualFs.class) {
                if (closed) {
                    throw new IOException("Stream Closed");
                }
                node.write(node.size, b, off, len);
            }
        }

        @Override
        public void close() {
            closed = true;
        }
    }
}
