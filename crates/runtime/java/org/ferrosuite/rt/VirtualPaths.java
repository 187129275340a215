package org.ferrosuite.rt;

import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.ByteArrayOutputStream;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.OutputStreamWriter;
import java.net.URI;
import java.nio.channels.SeekableByteChannel;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.CopyOption;
import java.nio.file.DirectoryStream;
import java.nio.file.FileVisitResult;
import java.nio.file.FileVisitor;
import java.nio.file.PathMatcher;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystems;
import java.nio.file.FileVisitOption;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Set;
import java.util.function.BiPredicate;
import java.util.stream.Stream;

/**
 * The {@code java.nio.file} side of the virtual file system ({@link VirtualFs}): stand-ins for
 * the static methods of {@code java.nio.file.Files} (same parameters) and for the methods of
 * {@code Path} that ask the file system ({@code toAbsolutePath}, {@code toRealPath},
 * {@code toUri}; the path first). Paths of the default file system are virtual; a path of any
 * other file system (a zip file's) goes to the JDK's {@code Files} as before.
 */
public final class VirtualPaths {
    private VirtualPaths() {
    }

    /** Whether a path belongs to the default file system (the one made virtual). */
    static boolean virtual(Path p) {
        return p.getFileSystem() == FileSystems.getDefault();
    }

    private static String s(Path p) {
        return p.toString();
    }

    private static VirtualFs.Node node(Path p) {
        return VirtualFs.node(VirtualFs.touch(s(p)));
    }

    public static boolean exists(Path p, LinkOption... o) {
        return virtual(p) ? node(p) != null : Files.exists(p, o);
    }

    public static boolean notExists(Path p, LinkOption... o) {
        return virtual(p) ? node(p) == null : Files.notExists(p, o);
    }

    public static boolean isDirectory(Path p, LinkOption... o) {
        if (!virtual(p)) {
            return Files.isDirectory(p, o);
        }
        VirtualFs.Node n = node(p);
        return n != null && n.dir;
    }

    public static boolean isRegularFile(Path p, LinkOption... o) {
        if (!virtual(p)) {
            return Files.isRegularFile(p, o);
        }
        VirtualFs.Node n = node(p);
        return n != null && !n.dir;
    }

    public static boolean isReadable(Path p) {
        if (!virtual(p)) {
            return Files.isReadable(p);
        }
        VirtualFs.Node n = node(p);
        return n != null && n.readable;
    }

    public static boolean isWritable(Path p) {
        if (!virtual(p)) {
            return Files.isWritable(p);
        }
        VirtualFs.Node n = node(p);
        return n != null && n.writable;
    }

    public static boolean isExecutable(Path p) {
        if (!virtual(p)) {
            return Files.isExecutable(p);
        }
        VirtualFs.Node n = node(p);
        return n != null && n.executable;
    }

    public static boolean isHidden(Path p) throws IOException {
        if (!virtual(p)) {
            return Files.isHidden(p);
        }
        Path name = p.getFileName();
        return name != null && name.toString().startsWith(".");
    }

    public static boolean isSymbolicLink(Path p) {
        return virtual(p) ? false : Files.isSymbolicLink(p);
    }

    public static boolean isSameFile(Path a, Path b) throws IOException {
        if (!virtual(a) || !virtual(b)) {
            return Files.isSameFile(a, b);
        }
        String x = VirtualFs.touch(s(a));
        String y = VirtualFs.touch(s(b));
        if (x.equals(y)) {
            return true;
        }
        existing(a);
        existing(b);
        return false;
    }

    private static VirtualFs.Node existing(Path p) throws NoSuchFileException {
        VirtualFs.Node n = node(p);
        if (n == null) {
            throw new NoSuchFileException(s(p));
        }
        return n;
    }

    public static long size(Path p) throws IOException {
        if (!virtual(p)) {
            return Files.size(p);
        }
        VirtualFs.Node n = existing(p);
        return n.dir ? 4096 : n.size;
    }

    public static void delete(Path p) throws IOException {
        if (!virtual(p)) {
            Files.delete(p);
            return;
        }
        VirtualFs.Node n = existing(p);
        if (!VirtualFs.delete(s(p))) {
            if (n.dir && VirtualFs.list(s(p)).length > 0) {
                throw new DirectoryNotEmptyException(s(p));
            }
            throw new AccessDeniedException(s(p));
        }
    }

    public static boolean deleteIfExists(Path p) throws IOException {
        if (!virtual(p)) {
            return Files.deleteIfExists(p);
        }
        if (node(p) == null) {
            return false;
        }
        delete(p);
        return true;
    }

    private static Path create(Path p, boolean dir) throws IOException {
        boolean created;
        try {
            created = VirtualFs.create(s(p), dir);
        } catch (IOException e) {
            VirtualFs.Node parent = VirtualFs.node(VirtualFs.parent(VirtualFs.resolve(s(p))));
            if (parent != null && parent.dir) {
                throw new AccessDeniedException(s(p));
            }
            throw new NoSuchFileException(s(p));
        }
        if (!created) {
            throw new FileAlreadyExistsException(s(p));
        }
        return p;
    }

    public static Path createFile(Path p, FileAttribute<?>... a) throws IOException {
        return virtual(p) ? create(p, false) : Files.createFile(p, a);
    }

    public static Path createDirectory(Path p, FileAttribute<?>... a) throws IOException {
        return virtual(p) ? create(p, true) : Files.createDirectory(p, a);
    }

    public static Path createDirectories(Path p, FileAttribute<?>... a) throws IOException {
        if (!virtual(p)) {
            return Files.createDirectories(p, a);
        }
        VirtualFs.Node n = node(p);
        if (n != null) {
            if (!n.dir) {
                throw new FileAlreadyExistsException(s(p));
            }
            return p;
        }
        if (!VirtualFs.mkdirs(s(p))) {
            throw new AccessDeniedException(s(p));
        }
        return p;
    }

    public static Path createTempFile(String prefix, String suffix, FileAttribute<?>... a)
            throws IOException {
        return temporary(null, prefix, suffix, false);
    }

    public static Path createTempFile(Path dir, String prefix, String suffix,
            FileAttribute<?>... a) throws IOException {
        return virtual(dir) ? temporary(dir, prefix, suffix, false)
            : Files.createTempFile(dir, prefix, suffix, a);
    }

    public static Path createTempDirectory(String prefix, FileAttribute<?>... a)
            throws IOException {
        return temporary(null, prefix, "", true);
    }

    public static Path createTempDirectory(Path dir, String prefix, FileAttribute<?>... a)
            throws IOException {
        return virtual(dir) ? temporary(dir, prefix, "", true)
            : Files.createTempDirectory(dir, prefix, a);
    }

    private static Path temporary(Path dir, String prefix, String suffix, boolean directory)
            throws IOException {
        String name = VirtualFs.temporary(dir == null ? null : s(dir),
            prefix == null ? "" : prefix, suffix);
        Path p = FileSystems.getDefault().getPath(name);
        return create(p, directory);
    }

    public static byte[] readAllBytes(Path p) throws IOException {
        if (!virtual(p)) {
            return Files.readAllBytes(p);
        }
        return bytes(p);
    }

    private static byte[] bytes(Path p) throws IOException {
        try {
            return VirtualFs.read(s(p));
        } catch (FileNotFoundException e) {
            throw nio(p);
        }
    }

    /** The {@code java.nio.file} exception for a file that cannot be read. */
    static IOException nio(Path p) {
        VirtualFs.Node n = VirtualFs.node(VirtualFs.resolve(s(p)));
        if (n == null) {
            return new NoSuchFileException(s(p));
        }
        return n.dir ? new IOException("Is a directory") : new AccessDeniedException(s(p));
    }

    public static List<String> readAllLines(Path p) throws IOException {
        return readAllLines(p, StandardCharsets.UTF_8);
    }

    public static List<String> readAllLines(Path p, Charset cs) throws IOException {
        if (!virtual(p)) {
            return Files.readAllLines(p, cs);
        }
        List<String> lines = new ArrayList<String>();
        BufferedReader r = newBufferedReader(p, cs);
        for (String l; (l = r.readLine()) != null; ) {
            lines.add(l);
        }
        return lines;
    }

    public static String readString(Path p) throws IOException {
        return readString(p, StandardCharsets.UTF_8);
    }

    public static String readString(Path p, Charset cs) throws IOException {
        byte[] b = virtual(p) ? bytes(p) : Files.readAllBytes(p);
        return new String(b, cs);
    }

    public static Path write(Path p, byte[] b, OpenOption... o) throws IOException {
        OutputStream out = newOutputStream(p, o);
        try {
            out.write(b);
        } finally {
            out.close();
        }
        return p;
    }

    public static Path write(Path p, Iterable<? extends CharSequence> lines, OpenOption... o)
            throws IOException {
        return write(p, lines, StandardCharsets.UTF_8, o);
    }

    public static Path write(Path p, Iterable<? extends CharSequence> lines, Charset cs,
            OpenOption... o) throws IOException {
        if (lines == null) {
            throw new NullPointerException();
        }
        StringBuilder b = new StringBuilder();
        String sep = System.lineSeparator();
        for (CharSequence l : lines) {
            b.append(l).append(sep);
        }
        return write(p, b.toString().getBytes(cs), o);
    }

    public static Path writeString(Path p, CharSequence text, OpenOption... o)
            throws IOException {
        return writeString(p, text, StandardCharsets.UTF_8, o);
    }

    public static Path writeString(Path p, CharSequence text, Charset cs, OpenOption... o)
            throws IOException {
        return write(p, text.toString().getBytes(cs), o);
    }

    public static InputStream newInputStream(Path p, OpenOption... o) throws IOException {
        if (!virtual(p)) {
            return Files.newInputStream(p, o);
        }
        for (OpenOption x : o) {
            if (x == StandardOpenOption.APPEND || x == StandardOpenOption.WRITE) {
                throw new UnsupportedOperationException("'" + x + "' not allowed");
            }
        }
        return new VirtualFs.In(bytes(p));
    }

    public static OutputStream newOutputStream(Path p, OpenOption... o) throws IOException {
        if (!virtual(p)) {
            return Files.newOutputStream(p, o);
        }
        List<OpenOption> options = Arrays.asList(o.length == 0
            ? new OpenOption[] {StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING}
            : o);
        if (options.contains(StandardOpenOption.READ)) {
            throw new IllegalArgumentException("READ not allowed");
        }
        boolean append = options.contains(StandardOpenOption.APPEND);
        if (append && options.contains(StandardOpenOption.TRUNCATE_EXISTING)) {
            throw new IllegalArgumentException("APPEND + TRUNCATE_EXISTING not allowed");
        }
        return new VirtualFs.Out(openForWriting(p, options));
    }

    /**
     * Opens a virtual file for writing as {@code options} say ({@code CREATE}, {@code
     * CREATE_NEW}, {@code TRUNCATE_EXISTING}), with the exceptions of {@code java.nio.file}.
     */
    static VirtualFs.Node openForWriting(Path p, Collection<? extends OpenOption> options)
            throws IOException {
        VirtualFs.Node n = node(p);
        if (options.contains(StandardOpenOption.CREATE_NEW) && n != null) {
            throw new FileAlreadyExistsException(s(p));
        }
        if (n == null && !options.contains(StandardOpenOption.CREATE)
                && !options.contains(StandardOpenOption.CREATE_NEW)) {
            throw new NoSuchFileException(s(p));
        }
        boolean truncate = options.contains(StandardOpenOption.TRUNCATE_EXISTING);
        try {
            return VirtualFs.writable(s(p), !truncate);
        } catch (FileNotFoundException e) {
            VirtualFs.Node parent = VirtualFs.node(VirtualFs.parent(VirtualFs.resolve(s(p))));
            throw parent == null ? new NoSuchFileException(s(p)) : new AccessDeniedException(s(p));
        }
    }

    public static BufferedReader newBufferedReader(Path p) throws IOException {
        return newBufferedReader(p, StandardCharsets.UTF_8);
    }

    public static BufferedReader newBufferedReader(Path p, Charset cs) throws IOException {
        if (!virtual(p)) {
            return Files.newBufferedReader(p, cs);
        }
        return new BufferedReader(new InputStreamReader(newInputStream(p), cs.newDecoder()));
    }

    public static BufferedWriter newBufferedWriter(Path p, OpenOption... o) throws IOException {
        return newBufferedWriter(p, StandardCharsets.UTF_8, o);
    }

    public static BufferedWriter newBufferedWriter(Path p, Charset cs, OpenOption... o)
            throws IOException {
        if (!virtual(p)) {
            return Files.newBufferedWriter(p, cs, o);
        }
        return new BufferedWriter(new OutputStreamWriter(newOutputStream(p, o), cs.newEncoder()));
    }

    public static Stream<String> lines(Path p) throws IOException {
        return lines(p, StandardCharsets.UTF_8);
    }

    public static Stream<String> lines(Path p, Charset cs) throws IOException {
        if (!virtual(p)) {
            return Files.lines(p, cs);
        }
        return readAllLines(p, cs).stream();
    }

    public static Stream<Path> list(Path dir) throws IOException {
        if (!virtual(dir)) {
            return Files.list(dir);
        }
        return children(dir).stream();
    }

    private static List<Path> children(Path dir) throws IOException {
        VirtualFs.Node n = existing(dir);
        if (!n.dir) {
            throw new NotDirectoryException(s(dir));
        }
        String[] names = VirtualFs.list(s(dir));
        if (names == null) {
            throw new AccessDeniedException(s(dir));
        }
        List<Path> out = new ArrayList<Path>();
        for (String name : names) {
            out.add(dir.resolve(name));
        }
        return out;
    }

    public static Stream<Path> walk(Path start, FileVisitOption... o) throws IOException {
        return walk(start, Integer.MAX_VALUE, o);
    }

    public static Stream<Path> walk(Path start, int depth, FileVisitOption... o)
            throws IOException {
        if (!virtual(start)) {
            return Files.walk(start, depth, o);
        }
        if (depth < 0) {
            throw new IllegalArgumentException("'maxDepth' is negative");
        }
        existing(start);
        List<Path> out = new ArrayList<Path>();
        walk(start, depth, out);
        return out.stream();
    }

    private static void walk(Path p, int depth, List<Path> out) throws IOException {
        out.add(p);
        VirtualFs.Node n = node(p);
        if (depth > 0 && n != null && n.dir) {
            for (Path c : children(p)) {
                walk(c, depth - 1, out);
            }
        }
    }

    public static Path copy(Path from, Path to, CopyOption... o) throws IOException {
        if (!virtual(from) || !virtual(to)) {
            return Files.copy(from, to, o);
        }
        VirtualFs.Node n = existing(from);
        boolean replace = Arrays.asList(o).contains(StandardCopyOption.REPLACE_EXISTING);
        VirtualFs.Node target = node(to);
        if (target != null && !replace) {
            throw new FileAlreadyExistsException(s(to));
        }
        if (n.dir) {
            if (target != null) {
                delete(to);
            }
            return create(to, true);
        }
        byte[] b = bytes(from);
        return write(to, b);
    }

    public static long copy(InputStream in, Path to, CopyOption... o) throws IOException {
        if (!virtual(to)) {
            return Files.copy(in, to, o);
        }
        boolean replace = Arrays.asList(o).contains(StandardCopyOption.REPLACE_EXISTING);
        if (node(to) != null && !replace) {
            throw new FileAlreadyExistsException(s(to));
        }
        ByteArrayOutputStream all = new ByteArrayOutputStream();
        byte[] buf = new byte[8192];
        for (int n; (n = in.read(buf)) > 0; ) {
            all.write(buf, 0, n);
        }
        write(to, all.toByteArray());
        return all.size();
    }

    public static long copy(Path from, OutputStream out) throws IOException {
        if (!virtual(from)) {
            return Files.copy(from, out);
        }
        byte[] b = bytes(from);
        out.write(b);
        return b.length;
    }

    public static Path move(Path from, Path to, CopyOption... o) throws IOException {
        if (!virtual(from) || !virtual(to)) {
            return Files.move(from, to, o);
        }
        existing(from);
        boolean replace = Arrays.asList(o).contains(StandardCopyOption.REPLACE_EXISTING);
        if (node(to) != null && !replace) {
            throw new FileAlreadyExistsException(s(to));
        }
        if (!VirtualFs.rename(s(from), s(to), replace)) {
            throw new AccessDeniedException(s(from), s(to), "cannot move");
        }
        return to;
    }

    public static FileTime getLastModifiedTime(Path p, LinkOption... o) throws IOException {
        if (!virtual(p)) {
            return Files.getLastModifiedTime(p, o);
        }
        return FileTime.fromMillis(existing(p).modified);
    }

    public static Path setLastModifiedTime(Path p, FileTime t) throws IOException {
        if (!virtual(p)) {
            return Files.setLastModifiedTime(p, t);
        }
        existing(p).modified = t.toMillis();
        return p;
    }

    // ---- attributes, directory streams, tree walks ----

    /** The basic attributes of a virtual entry. */
    static final class Attributes implements BasicFileAttributes {
        private final VirtualFs.Node node;
        private final String key;

        Attributes(VirtualFs.Node node, String key) {
            this.node = node;
            this.key = key;
        }

        public FileTime lastModifiedTime() {
            return FileTime.fromMillis(node.modified);
        }

        public FileTime lastAccessTime() {
            return lastModifiedTime();
        }

        public FileTime creationTime() {
            return lastModifiedTime();
        }

        public boolean isRegularFile() {
            return !node.dir;
        }

        public boolean isDirectory() {
            return node.dir;
        }

        public boolean isSymbolicLink() {
            return false;
        }

        public boolean isOther() {
            return false;
        }

        public long size() {
            return node.dir ? 4096 : node.size;
        }

        public Object fileKey() {
            return key;
        }
    }

    @SuppressWarnings("unchecked")
    public static <A extends BasicFileAttributes> A readAttributes(Path p, Class<A> type,
            LinkOption... o) throws IOException {
        if (!virtual(p)) {
            return Files.readAttributes(p, type, o);
        }
        if (type != BasicFileAttributes.class) {
            throw new UnsupportedOperationException("ferrosuite: only BasicFileAttributes of a virtual file");
        }
        return (A) new Attributes(existing(p), VirtualFs.resolve(s(p)));
    }

    /** The entries of a virtual directory, as a stream the caller closes. */
    static final class Listing implements DirectoryStream<Path> {
        private final List<Path> entries;
        private boolean open = true;
        private boolean iterated;

        Listing(List<Path> entries) {
            this.entries = entries;
        }

        public Iterator<Path> iterator() {
            if (!open) {
                throw new IllegalStateException("Directory stream is closed");
            }
            if (iterated) {
                throw new IllegalStateException("Iterator already obtained");
            }
            iterated = true;
            return entries.iterator();
        }

        public void close() {
            open = false;
        }
    }

    public static DirectoryStream<Path> newDirectoryStream(Path dir) throws IOException {
        return virtual(dir) ? new Listing(children(dir)) : Files.newDirectoryStream(dir);
    }

    public static DirectoryStream<Path> newDirectoryStream(Path dir, String glob)
            throws IOException {
        if (!virtual(dir)) {
            return Files.newDirectoryStream(dir, glob);
        }
        PathMatcher m = dir.getFileSystem().getPathMatcher("glob:" + glob);
        List<Path> kept = new ArrayList<Path>();
        for (Path c : children(dir)) {
            if (m.matches(c.getFileName())) {
                kept.add(c);
            }
        }
        return new Listing(kept);
    }

    public static DirectoryStream<Path> newDirectoryStream(Path dir,
            DirectoryStream.Filter<? super Path> filter) throws IOException {
        if (!virtual(dir)) {
            return Files.newDirectoryStream(dir, filter);
        }
        List<Path> kept = new ArrayList<Path>();
        for (Path c : children(dir)) {
            if (filter.accept(c)) {
                kept.add(c);
            }
        }
        return new Listing(kept);
    }

    public static Path walkFileTree(Path start, FileVisitor<? super Path> visitor)
            throws IOException {
        return walkFileTree(start, EnumSet.noneOf(FileVisitOption.class), Integer.MAX_VALUE,
            visitor);
    }

    public static Path walkFileTree(Path start, Set<FileVisitOption> options, int depth,
            FileVisitor<? super Path> visitor) throws IOException {
        if (!virtual(start)) {
            return Files.walkFileTree(start, options, depth, visitor);
        }
        if (depth < 0) {
            throw new IllegalArgumentException("'maxDepth' is negative");
        }
        if (visitor == null) {
            throw new NullPointerException();
        }
        visit(start, 0, depth, visitor);
        return start;
    }

    /** One entry of a tree walk, as {@code Files.walkFileTree} visits it. */
    private static FileVisitResult visit(Path p, int depth, int max,
            FileVisitor<? super Path> visitor) throws IOException {
        VirtualFs.Node n = node(p);
        if (n == null) {
            return visitor.visitFileFailed(p, new NoSuchFileException(s(p)));
        }
        Attributes attrs = new Attributes(n, VirtualFs.resolve(s(p)));
        if (depth >= max || !n.dir) {
            return visitor.visitFile(p, attrs);
        }
        if (!n.readable) {
            return visitor.visitFileFailed(p, new AccessDeniedException(s(p)));
        }
        FileVisitResult r = visitor.preVisitDirectory(p, attrs);
        if (r != FileVisitResult.CONTINUE) {
            return r == FileVisitResult.SKIP_SUBTREE ? FileVisitResult.CONTINUE : r;
        }
        for (Path c : children(p)) {
            FileVisitResult k = visit(c, depth + 1, max, visitor);
            if (k == FileVisitResult.TERMINATE) {
                return k;
            }
            if (k == FileVisitResult.SKIP_SIBLINGS) {
                break;
            }
        }
        return visitor.postVisitDirectory(p, null);
    }

    public static Stream<Path> find(Path start, int depth,
            BiPredicate<Path, BasicFileAttributes> matcher, FileVisitOption... o)
            throws IOException {
        if (!virtual(start)) {
            return Files.find(start, depth, matcher, o);
        }
        List<Path> kept = new ArrayList<Path>();
        for (Path p : walk(start, depth, o).toArray(Path[]::new)) {
            VirtualFs.Node n = node(p);
            if (n != null && matcher.test(p, new Attributes(n, VirtualFs.resolve(s(p))))) {
                kept.add(p);
            }
        }
        return kept.stream();
    }

    // ---- byte channels ----

    public static SeekableByteChannel newByteChannel(Path p, OpenOption... o) throws IOException {
        if (!virtual(p)) {
            return Files.newByteChannel(p, o);
        }
        return VirtualChannel.openVirtual(p, new HashSet<OpenOption>(Arrays.asList(o)));
    }

    public static SeekableByteChannel newByteChannel(Path p, Set<? extends OpenOption> o,
            FileAttribute<?>... a) throws IOException {
        if (!virtual(p)) {
            return Files.newByteChannel(p, o, a);
        }
        return VirtualChannel.openVirtual(p, new HashSet<OpenOption>(o));
    }

    // ---- java.nio.file.Path ----

    public static Path toAbsolutePath(Path p) {
        if (!virtual(p)) {
            return p.toAbsolutePath();
        }
        VirtualFs.touch(s(p));
        if (p.isAbsolute()) {
            return p;
        }
        return FileSystems.getDefault().getPath(VirtualFs.WORK).resolve(p);
    }

    public static Path toRealPath(Path p, LinkOption... o) throws IOException {
        if (!virtual(p)) {
            return p.toRealPath(o);
        }
        existing(p);
        return FileSystems.getDefault().getPath(VirtualFs.resolve(s(p)));
    }

    public static URI toUri(Path p) {
        if (!virtual(p)) {
            return p.toUri();
        }
        String abs = toAbsolutePath(p).toString();
        VirtualFs.Node n = VirtualFs.node(VirtualFs.resolve(abs));
        if (n != null && n.dir && !abs.endsWith("/")) {
            abs = abs + "/";
        }
        try {
            // An empty host, as the default file system's URIs have: file:///work/x.
            return new URI("file", "", abs, null);
        } catch (java.net.URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }
}
