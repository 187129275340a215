package org.ferrosuite.rt;

import java.io.File;
import java.io.FileDescriptor;
import java.io.FileFilter;
import java.io.FileInputStream;
import java.io.FileNotFoundException;
import java.io.FileOutputStream;
import java.io.FileReader;
import java.io.FileWriter;
import java.io.FilenameFilter;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.OutputStreamWriter;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.Reader;
import java.io.UnsupportedEncodingException;
import java.io.Writer;
import java.net.URI;
import java.nio.channels.FileChannel;
import java.nio.charset.Charset;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Scanner;

/**
 * The {@code java.io} side of the virtual file system ({@link VirtualFs}): stand-ins for the
 * methods of {@code java.io.File} that read or change the file system (each takes the
 * {@code File} first, as the rewritten {@code invokevirtual} passes it), and factories for the
 * constructors that open files ({@code new FileInputStream(f)} becomes
 * {@code VirtualFiles.newFileInputStream(f)}, which returns a {@code FileInputStream} over the
 * virtual file). A {@code File} stays the JDK's own path holder; only its paths' meaning
 * changes: relative paths start at {@link VirtualFs#WORK}.
 */
public final class VirtualFiles {
    private VirtualFiles() {
    }

    private static String path(File f) {
        return f.getPath();
    }

    // ---- java.io.File ----

    public static boolean exists(File f) {
        return VirtualFs.exists(path(f));
    }

    public static boolean isFile(File f) {
        VirtualFs.Node n = VirtualFs.node(VirtualFs.touch(path(f)));
        return n != null && !n.dir;
    }

    public static boolean isDirectory(File f) {
        VirtualFs.Node n = VirtualFs.node(VirtualFs.touch(path(f)));
        return n != null && n.dir;
    }

    public static boolean isHidden(File f) {
        return f.getName().startsWith(".");
    }

    public static boolean canRead(File f) {
        VirtualFs.Node n = VirtualFs.node(VirtualFs.touch(path(f)));
        return n != null && n.readable;
    }

    public static boolean canWrite(File f) {
        VirtualFs.Node n = VirtualFs.node(VirtualFs.touch(path(f)));
        return n != null && n.writable;
    }

    public static boolean canExecute(File f) {
        VirtualFs.Node n = VirtualFs.node(VirtualFs.touch(path(f)));
        return n != null && n.executable;
    }

    public static long length(File f) {
        VirtualFs.Node n = VirtualFs.node(VirtualFs.touch(path(f)));
        return n == null || n.dir ? 0L : n.size;
    }

    public static long lastModified(File f) {
        VirtualFs.Node n = VirtualFs.node(VirtualFs.touch(path(f)));
        return n == null ? 0L : n.modified;
    }

    public static boolean setLastModified(File f, long time) {
        if (time < 0) {
            throw new IllegalArgumentException("Negative time");
        }
        VirtualFs.Node n = VirtualFs.node(VirtualFs.touch(path(f)));
        if (n == null || !n.writable) {
            return false;
        }
        n.modified = time;
        return true;
    }

    public static boolean delete(File f) {
        return VirtualFs.delete(path(f));
    }

    /** Nothing to delete at exit: the virtual tree starts over with every test. */
    public static void deleteOnExit(File f) {
        VirtualFs.touch(path(f));
    }

    public static boolean createNewFile(File f) throws IOException {
        return VirtualFs.create(path(f), false);
    }

    public static boolean mkdir(File f) {
        try {
            return VirtualFs.create(path(f), true);
        } catch (IOException e) {
            return false;
        }
    }

    public static boolean mkdirs(File f) {
        return VirtualFs.mkdirs(path(f));
    }

    public static boolean renameTo(File f, File to) {
        if (to == null) {
            throw new NullPointerException();
        }
        return VirtualFs.rename(path(f), path(to), true);
    }

    public static String[] list(File f) {
        return VirtualFs.list(path(f));
    }

    public static String[] list(File f, FilenameFilter filter) {
        String[] names = VirtualFs.list(path(f));
        if (names == null || filter == null) {
            return names;
        }
        List<String> kept = new ArrayList<String>();
        for (String n : names) {
            if (filter.accept(f, n)) {
                kept.add(n);
            }
        }
        return kept.toArray(new String[0]);
    }

    public static File[] listFiles(File f) {
        return listFiles(f, (FilenameFilter) null);
    }

    public static File[] listFiles(File f, FilenameFilter filter) {
        String[] names = list(f, filter);
        if (names == null) {
            return null;
        }
        File[] out = new File[names.length];
        for (int i = 0; i < names.length; i++) {
            out[i] = new File(f, names[i]);
        }
        return out;
    }

    public static File[] listFiles(File f, FileFilter filter) {
        File[] all = listFiles(f);
        if (all == null || filter == null) {
            return all;
        }
        List<File> kept = new ArrayList<File>();
        for (File c : all) {
            if (filter.accept(c)) {
                kept.add(c);
            }
        }
        return kept.toArray(new File[0]);
    }

    private static boolean permission(File f, int which, boolean on) {
        VirtualFs.Node n = VirtualFs.node(VirtualFs.touch(path(f)));
        if (n == null) {
            return false;
        }
        if (which == 0) {
            n.readable = on;
        } else if (which == 1) {
            n.writable = on;
        } else {
            n.executable = on;
        }
        return true;
    }

    public static boolean setReadable(File f, boolean on) {
        return permission(f, 0, on);
    }

    public static boolean setReadable(File f, boolean on, boolean ownerOnly) {
        return permission(f, 0, on);
    }

    public static boolean setWritable(File f, boolean on) {
        return permission(f, 1, on);
    }

    public static boolean setWritable(File f, boolean on, boolean ownerOnly) {
        return permission(f, 1, on);
    }

    public static boolean setExecutable(File f, boolean on) {
        return permission(f, 2, on);
    }

    public static boolean setExecutable(File f, boolean on, boolean ownerOnly) {
        return permission(f, 2, on);
    }

    public static boolean setReadOnly(File f) {
        return permission(f, 1, false);
    }

    public static String getAbsolutePath(File f) {
        String p = path(f);
        VirtualFs.touch(p);
        return p.startsWith("/") ? p : p.isEmpty() ? VirtualFs.WORK : VirtualFs.WORK + "/" + p;
    }

    public static File getAbsoluteFile(File f) {
        return new File(getAbsolutePath(f));
    }

    public static String getCanonicalPath(File f) {
        return VirtualFs.touch(path(f));
    }

    public static File getCanonicalFile(File f) {
        return new File(getCanonicalPath(f));
    }

    public static URI toURI(File f) {
        String p = getAbsolutePath(f);
        if (isDirectory(f) && !p.endsWith("/")) {
            p = p + "/";
        }
        try {
            return new URI("file", null, p, null);
        } catch (java.net.URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Space on the virtual disk: a fixed 1 GiB, all of it free. */
    public static long getTotalSpace(File f) {
        return VirtualFs.exists(path(f)) ? 1L << 30 : 0L;
    }

    public static long getFreeSpace(File f) {
        return getTotalSpace(f);
    }

    public static long getUsableSpace(File f) {
        return getTotalSpace(f);
    }

    public static File createTempFile(String prefix, String suffix) throws IOException {
        return createTempFile(prefix, suffix, null);
    }

    public static File createTempFile(String prefix, String suffix, File dir)
            throws IOException {
        if (prefix.length() < 3) {
            throw new IllegalArgumentException("Prefix string \"" + prefix + "\" too short: length must be at least 3");
        }
        String name = VirtualFs.temporary(dir == null ? null : path(dir), prefix, suffix);
        if (!VirtualFs.create(name, false)) {
            throw new IOException("Unable to create temporary file, " + name);
        }
        return new File(name);
    }

    public static File[] listRoots() {
        return new File[] {new File("/")};
    }

    // ---- constructors that open files ----

    public static FileInputStream newFileInputStream(String name) throws FileNotFoundException {
        if (name == null) {
            throw new NullPointerException();
        }
        return new Input(VirtualFs.readable(name));
    }

    public static FileInputStream newFileInputStream(File f) throws FileNotFoundException {
        return newFileInputStream(path(f));
    }

    public static FileOutputStream newFileOutputStream(String name) throws FileNotFoundException {
        return newFileOutputStream(name, false);
    }

    public static FileOutputStream newFileOutputStream(String name, boolean append)
            throws FileNotFoundException {
        if (name == null) {
            throw new NullPointerException();
        }
        return new Output(VirtualFs.writable(name, append), append);
    }

    public static FileOutputStream newFileOutputStream(File f) throws FileNotFoundException {
        return newFileOutputStream(path(f), false);
    }

    public static FileOutputStream newFileOutputStream(File f, boolean append)
            throws FileNotFoundException {
        return newFileOutputStream(path(f), append);
    }

    public static FileReader newFileReader(String name) throws FileNotFoundException {
        return reader(name, Charset.defaultCharset());
    }

    public static FileReader newFileReader(File f) throws FileNotFoundException {
        return reader(path(f), Charset.defaultCharset());
    }

    public static FileReader newFileReader(String name, Charset cs) throws IOException {
        return reader(name, cs);
    }

    public static FileReader newFileReader(File f, Charset cs) throws IOException {
        return reader(path(f), cs);
    }

    private static FileReader reader(String name, Charset cs)
            throws FileNotFoundException {
        if (name == null || cs == null) {
            throw new NullPointerException();
        }
        return new TextReader(new InputStreamReader(new VirtualFs.In(VirtualFs.read(name)), cs));
    }

    public static FileWriter newFileWriter(String name) throws IOException {
        return writer(name, Charset.defaultCharset(), false);
    }

    public static FileWriter newFileWriter(String name, boolean append) throws IOException {
        return writer(name, Charset.defaultCharset(), append);
    }

    public static FileWriter newFileWriter(File f) throws IOException {
        return writer(path(f), Charset.defaultCharset(), false);
    }

    public static FileWriter newFileWriter(File f, boolean append) throws IOException {
        return writer(path(f), Charset.defaultCharset(), append);
    }

    public static FileWriter newFileWriter(String name, Charset cs) throws IOException {
        return writer(name, cs, false);
    }

    public static FileWriter newFileWriter(String name, Charset cs, boolean append)
            throws IOException {
        return writer(name, cs, append);
    }

    public static FileWriter newFileWriter(File f, Charset cs) throws IOException {
        return writer(path(f), cs, false);
    }

    public static FileWriter newFileWriter(File f, Charset cs, boolean append)
            throws IOException {
        return writer(path(f), cs, append);
    }

    private static FileWriter writer(String name, Charset cs, boolean append) throws IOException {
        if (name == null || cs == null) {
            throw new NullPointerException();
        }
        return new TextWriter(new OutputStreamWriter(
            new VirtualFs.Out(VirtualFs.writable(name, append)), cs));
    }

    private static OutputStream out(String name) throws FileNotFoundException {
        if (name == null) {
            throw new NullPointerException();
        }
        return new VirtualFs.Out(VirtualFs.writable(name, false));
    }

    private static Charset charset(String csn) throws UnsupportedEncodingException {
        if (csn == null) {
            throw new NullPointerException("charsetName");
        }
        try {
            return Charset.forName(csn);
        } catch (IllegalArgumentException e) {
            throw new UnsupportedEncodingException(csn);
        }
    }

    public static PrintWriter newPrintWriter(String name) throws FileNotFoundException {
        return new PrintWriter(new OutputStreamWriter(out(name), Charset.defaultCharset()));
    }

    public static PrintWriter newPrintWriter(File f) throws FileNotFoundException {
        return newPrintWriter(path(f));
    }

    public static PrintWriter newPrintWriter(String name, String csn)
            throws FileNotFoundException, UnsupportedEncodingException {
        Charset cs = charset(csn);
        return new PrintWriter(new OutputStreamWriter(out(name), cs));
    }

    public static PrintWriter newPrintWriter(File f, String csn)
            throws FileNotFoundException, UnsupportedEncodingException {
        return newPrintWriter(path(f), csn);
    }

    public static PrintWriter newPrintWriter(String name, Charset cs) throws IOException {
        return new PrintWriter(new OutputStreamWriter(out(name), cs));
    }

    public static PrintWriter newPrintWriter(File f, Charset cs) throws IOException {
        return newPrintWriter(path(f), cs);
    }

    public static PrintStream newPrintStream(String name) throws FileNotFoundException {
        return new PrintStream(out(name), false);
    }

    public static PrintStream newPrintStream(File f) throws FileNotFoundException {
        return newPrintStream(path(f));
    }

    public static PrintStream newPrintStream(String name, String csn)
            throws FileNotFoundException, UnsupportedEncodingException {
        charset(csn);
        return new PrintStream(out(name), false, csn);
    }

    public static PrintStream newPrintStream(File f, String csn)
            throws FileNotFoundException, UnsupportedEncodingException {
        return newPrintStream(path(f), csn);
    }

    public static PrintStream newPrintStream(String name, Charset cs) throws IOException {
        return new PrintStream(out(name), false, cs.name());
    }

    public static PrintStream newPrintStream(File f, Charset cs) throws IOException {
        return newPrintStream(path(f), cs);
    }

    public static Scanner newScanner(File f) throws FileNotFoundException {
        return new Scanner(new VirtualFs.In(VirtualFs.read(path(f))), Charset.defaultCharset().name());
    }

    public static Scanner newScanner(File f, String csn) throws FileNotFoundException {
        if (csn == null) {
            throw new NullPointerException("charsetName");
        }
        return new Scanner(new VirtualFs.In(VirtualFs.read(path(f))), csn);
    }

    public static Scanner newScanner(File f, Charset cs) throws FileNotFoundException {
        return newScanner(f, cs.name());
    }

    public static Scanner newScanner(Path p) throws IOException {
        return newScanner(p, Charset.defaultCharset().name());
    }

    public static Scanner newScanner(Path p, String csn) throws IOException {
        if (!VirtualPaths.virtual(p)) {
            return new Scanner(p, csn);
        }
        return new Scanner(VirtualPaths.newInputStream(p), csn);
    }

    public static Scanner newScanner(Path p, Charset cs) throws IOException {
        return newScanner(p, cs.name());
    }

    /**
     * A {@code FileInputStream} reading a virtual file through its {@link VirtualChannel}, which
     * {@code getChannel()} returns (the two share the position, as the JDK's do).
     */
    static final class Input extends FileInputStream {
        private final VirtualChannel channel;

        Input(VirtualFs.Node node) {
            super(new FileDescriptor());
            channel = new VirtualChannel(node, true, false, false);
        }

        private void open() throws IOException {
            if (!channel.isOpen()) {
                throw new IOException("Stream Closed");
            }
        }

        @Override
        public int read() throws IOException {
            open();
            return channel.readByte();
        }

        @Override
        public int read(byte[] b) throws IOException {
            return read(b, 0, b.length);
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            open();
            return channel.readBytes(b, off, len);
        }

        public byte[] readAllBytes() throws IOException {
            java.io.ByteArrayOutputStream all = new java.io.ByteArrayOutputStream();
            byte[] buf = new byte[8192];
            for (int n; (n = read(buf, 0, buf.length)) > 0; ) {
                all.write(buf, 0, n);
            }
            return all.toByteArray();
        }

        public byte[] readNBytes(int len) throws IOException {
            if (len < 0) {
                throw new IllegalArgumentException("len < 0");
            }
            java.io.ByteArrayOutputStream all = new java.io.ByteArrayOutputStream();
            byte[] buf = new byte[Math.min(len, 8192)];
            int n;
            while (all.size() < len
                && (n = read(buf, 0, Math.min(buf.length, len - all.size()))) > 0) {
                all.write(buf, 0, n);
            }
            return all.toByteArray();
        }

        public long transferTo(OutputStream out) throws IOException {
            byte[] all = readAllBytes();
            out.write(all);
            return all.length;
        }

        /** Moves on at most to the end of the file, as {@link VirtualFs.In} does. */
        @Override
        public long skip(long n) throws IOException {
            open();
            synchronized (VirtualFs.class) {
                long at = channel.at();
                long k = Math.max(0, Math.min(n, channel.size() - at));
                channel.position(at + k);
                return k;
            }
        }

        @Override
        public int available() throws IOException {
            open();
            synchronized (VirtualFs.class) {
                return (int) Math.max(0, Math.min(Integer.MAX_VALUE, channel.size() - channel.at()));
            }
        }

        @Override
        public void close() throws IOException {
            channel.close();
        }

        @Override
        public FileChannel getChannel() {
            return channel;
        }
    }

    /**
     * A {@code FileOutputStream} writing a virtual file through its {@link VirtualChannel}
     * (appending when opened to append), which {@code getChannel()} returns.
     */
    static final class Output extends FileOutputStream {
        private final VirtualChannel channel;

        Output(VirtualFs.Node node, boolean append) {
            super(new FileDescriptor());
            channel = new VirtualChannel(node, false, true, append);
        }

        @Override
        public void write(int b) throws IOException {
            write(new byte[] {(byte) b}, 0, 1);
        }

        @Override
        public void write(byte[] b) throws IOException {
            write(b, 0, b.length);
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            if (!channel.isOpen()) {
                throw new IOException("Stream Closed");
            }
            channel.writeBytes(b, off, len);
        }

        @Override
        public void flush() {
        }

        @Override
        public void close() throws IOException {
            channel.close();
        }

        @Override
        public FileChannel getChannel() {
            return channel;
        }
    }

    /** A {@code FileReader} decoding a virtual file. */
    static final class TextReader extends FileReader {
        private final Reader in;

        TextReader(Reader in) {
            super(new FileDescriptor());
            this.in = in;
        }

        @Override
        public int read() throws IOException {
            return in.read();
        }

        @Override
        public int read(char[] b, int off, int len) throws IOException {
            return in.read(b, off, len);
        }

        @Override
        public int read(java.nio.CharBuffer target) throws IOException {
            return in.read(target);
        }

        @Override
        public boolean ready() throws IOException {
            return in.ready();
        }

        @Override
        public long skip(long n) throws IOException {
            return in.skip(n);
        }

        @Override
        public void close() throws IOException {
            in.close();
        }

        @Override
        public String getEncoding() {
            return in instanceof InputStreamReader ? ((InputStreamReader) in).getEncoding() : null;
        }
    }

    /** A {@code FileWriter} encoding into a virtual file. */
    static final class TextWriter extends FileWriter {
        private final Writer out;

        TextWriter(Writer out) {
            super(new FileDescriptor());
            this.out = out;
        }

        @Override
        public void write(int c) throws IOException {
            out.write(c);
        }

        @Override
        public void write(char[] b, int off, int len) throws IOException {
            out.write(b, off, len);
        }

        @Override
        public void write(String s, int off, int len) throws IOException {
            out.write(s, off, len);
        }

        @Override
        public void flush() throws IOException {
            out.flush();
        }

        @Override
        public void close() throws IOException {
            out.close();
        }

        @Override
        public String getEncoding() {
            return out instanceof OutputStreamWriter ? ((OutputStreamWriter) out).getEncoding() : null;
        }
    }
}
