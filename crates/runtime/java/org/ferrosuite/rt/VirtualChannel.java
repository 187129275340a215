package org.ferrosuite.rt;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.NonReadableChannelException;
import java.nio.channels.NonWritableChannelException;
import java.nio.channels.OverlappingFileLockException;
import java.nio.channels.ReadableByteChannel;
import java.nio.channels.WritableByteChannel;
import java.nio.file.AccessDeniedException;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileAttribute;
import java.util.Arrays;
import java.util.HashSet;
import java.util.Iterator;
import java.util.Set;

/**
 * A {@code FileChannel} over a virtual file ({@link VirtualFs}): what {@code FileChannel.open},
 * {@code Files.newByteChannel} and the {@code getChannel()} of the virtual file streams and
 * random access files return. Reads and writes go to the file's bytes as they are now, at the
 * channel's position (shared with the stream it came from), positional reads and writes and
 * transfers leave the position alone, locks are kept per file and exclude overlapping ones
 * as the JDK's do within one JVM. Memory mapping is refused with an {@code IOException}: a
 * virtual file has no pages to map.
 */
public final class VirtualChannel extends FileChannel {
    private final VirtualFs.Node node;
    private final boolean readable;
    private final boolean writable;
    private final boolean append;
    private long position;

    VirtualChannel(VirtualFs.Node node, boolean readable, boolean writable, boolean append) {
        this.node = node;
        this.readable = readable;
        this.writable = writable;
        this.append = append;
    }

    /** {@code FileChannel.open(Path, OpenOption...)}; other file systems' paths go on. */
    public static FileChannel open(Path p, OpenOption... o) throws IOException {
        if (!VirtualPaths.virtual(p)) {
            return FileChannel.open(p, o);
        }
        return openVirtual(p, new HashSet<OpenOption>(Arrays.asList(o)));
    }

    /** {@code FileChannel.open(Path, Set, FileAttribute...)}. */
    public static FileChannel open(Path p, Set<? extends OpenOption> o, FileAttribute<?>... a)
            throws IOException {
        if (!VirtualPaths.virtual(p)) {
            return FileChannel.open(p, o, a);
        }
        return openVirtual(p, new HashSet<OpenOption>(o));
    }

    /** Opens a channel on a virtual file with {@code java.nio.file}'s options and exceptions. */
    static VirtualChannel openVirtual(Path p, Set<OpenOption> o) throws IOException {
        boolean append = o.contains(StandardOpenOption.APPEND);
        boolean write = append || o.contains(StandardOpenOption.WRITE);
        boolean read = o.contains(StandardOpenOption.READ) || !write;
        if (read && append) {
            throw new IllegalArgumentException("READ + APPEND not allowed");
        }
        if (append && o.contains(StandardOpenOption.TRUNCATE_EXISTING)) {
            throw new IllegalArgumentException("APPEND + TRUNCATE_EXISTING not allowed");
        }
        if (!write) {
            try {
                return new VirtualChannel(VirtualFs.readable(p.toString()), true, false, false);
            } catch (FileNotFoundException e) {
                throw VirtualPaths.nio(p);
            }
        }
        VirtualFs.Node w = VirtualPaths.openForWriting(p, o);
        if (read && !w.readable) {
            throw new AccessDeniedException(p.toString());
        }
        return new VirtualChannel(w, read, true, append);
    }

    private void check() throws ClosedChannelException {
        if (!isOpen()) {
            throw new ClosedChannelException();
        }
    }

    private void checkReadable() throws ClosedChannelException {
        check();
        if (!readable) {
            throw new NonReadableChannelException();
        }
    }

    private void checkWritable() throws ClosedChannelException {
        check();
        if (!writable) {
            throw new NonWritableChannelException();
        }
    }

    /** Copies bytes at {@code at} into {@code dst}: the count, or -1 at the end. */
    private int readAt(ByteBuffer dst, long at) {
        if (at >= node.size) {
            return dst.hasRemaining() ? -1 : 0;
        }
        int n = (int) Math.min(dst.remaining(), node.size - at);
        dst.put(node.data, (int) at, n);
        return n;
    }

    /** Writes what remains of {@code src} at {@code at}: the count. */
    private int writeAt(ByteBuffer src, long at) throws IOException {
        int n = src.remaining();
        if (n == 0) {
            return 0;
        }
        byte[] b = new byte[n];
        src.get(b);
        node.write(at, b, 0, n);
        return n;
    }

    @Override
    public int read(ByteBuffer dst) throws IOException {
        synchronized (VirtualFs.class) {
            checkReadable();
            int n = readAt(dst, position);
            if (n > 0) {
                position += n;
            }
            return n;
        }
    }

    @Override
    public long read(ByteBuffer[] dsts, int offset, int length) throws IOException {
        if (offset < 0 || length < 0 || offset > dsts.length - length) {
            throw new IndexOutOfBoundsException();
        }
        synchronized (VirtualFs.class) {
            checkReadable();
            long total = 0;
            for (int k = offset; k < offset + length; k++) {
                int n = read(dsts[k]);
                if (n < 0) {
                    return total == 0 ? -1 : total;
                }
                total += n;
            }
            return total;
        }
    }

    @Override
    public int write(ByteBuffer src) throws IOException {
        synchronized (VirtualFs.class) {
            checkWritable();
            if (append) {
                position = node.size;
            }
            int n = writeAt(src, position);
            position += n;
            return n;
        }
    }

    @Override
    public long write(ByteBuffer[] srcs, int offset, int length) throws IOException {
        if (offset < 0 || length < 0 || offset > srcs.length - length) {
            throw new IndexOutOfBoundsException();
        }
        synchronized (VirtualFs.class) {
            long total = 0;
            for (int k = offset; k < offset + length; k++) {
                total += write(srcs[k]);
            }
            return total;
        }
    }

    @Override
    public long position() throws IOException {
        synchronized (VirtualFs.class) {
            check();
            return append ? node.size : position;
        }
    }

    @Override
    public FileChannel position(long p) throws IOException {
        if (p < 0) {
            throw new IllegalArgumentException();
        }
        synchronized (VirtualFs.class) {
            check();
            position = p;
            return this;
        }
    }

    /** The position, for the stream this channel belongs to. */
    long at() {
        return position;
    }

    /**
     * A stream's {@code read(b, off, len)} through this channel: the bounds checked, 0 when
     * {@code len} is 0, -1 at the end.
     */
    int readBytes(byte[] b, int off, int len) throws IOException {
        if (off < 0 || len < 0 || len > b.length - off) {
            throw new IndexOutOfBoundsException();
        }
        return len == 0 ? 0 : read(ByteBuffer.wrap(b, off, len));
    }

    /** A stream's {@code read()}: the next byte, or -1 at the end. */
    int readByte() throws IOException {
        byte[] one = new byte[1];
        return readBytes(one, 0, 1) == 1 ? one[0] & 0xff : -1;
    }

    /** A stream's {@code write(b, off, len)} through this channel, the bounds checked. */
    void writeBytes(byte[] b, int off, int len) throws IOException {
        if (off < 0 || len < 0 || len > b.length - off) {
            throw new IndexOutOfBoundsException();
        }
        write(ByteBuffer.wrap(b, off, len));
    }

    @Override
    public long size() throws IOException {
        synchronized (VirtualFs.class) {
            check();
            return node.size;
        }
    }

    @Override
    public FileChannel truncate(long size) throws IOException {
        if (size < 0) {
            throw new IllegalArgumentException("Negative size");
        }
        synchronized (VirtualFs.class) {
            checkWritable();
            if (size < node.size) {
                node.size = (int) size;
                node.modified = SystemTime.stamp();
            }
            position = Math.min(position, size);
            return this;
        }
    }

    /** Sets the length as {@code RandomAccessFile.setLength} does: longer reads as zeros. */
    void setLength(long length) throws IOException {
        if (length < 0) {
            throw new IOException("Invalid argument");
        }
        synchronized (VirtualFs.class) {
            checkWritable();
            if (length > node.size) {
                node.write(length, new byte[0], 0, 0);
            } else if (length < node.size) {
                node.size = (int) length;
                node.modified = SystemTime.stamp();
            }
            position = Math.min(position, length);
        }
    }

    @Override
    public void force(boolean metaData) throws IOException {
        check();
    }

    @Override
    public long transferTo(long at, long count, WritableByteChannel target) throws IOException {
        if (at < 0 || count < 0) {
            throw new IllegalArgumentException();
        }
        byte[] chunk;
        synchronized (VirtualFs.class) {
            checkReadable();
            if (at >= node.size) {
                return 0;
            }
            int n = (int) Math.min(count, node.size - at);
            chunk = Arrays.copyOfRange(node.data, (int) at, (int) at + n);
        }
        ByteBuffer b = ByteBuffer.wrap(chunk);
        long written = 0;
        while (b.hasRemaining()) {
            int w = target.write(b);
            if (w <= 0) {
                break;
            }
            written += w;
        }
        return written;
    }

    @Override
    public long transferFrom(ReadableByteChannel src, long at, long count) throws IOException {
        if (at < 0 || count < 0) {
            throw new IllegalArgumentException();
        }
        synchronized (VirtualFs.class) {
            checkWritable();
            if (at > node.size) {
                return 0;
            }
        }
        ByteBuffer b = ByteBuffer.allocate((int) Math.min(count, 8192));
        long done = 0;
        while (done < count) {
            b.clear();
            b.limit((int) Math.min(b.capacity(), count - done));
            int n = src.read(b);
            if (n <= 0) {
                break;
            }
            b.flip();
            synchronized (VirtualFs.class) {
                checkWritable();
                writeAt(b, at + done);
            }
            done += n;
        }
        return done;
    }

    @Override
    public int read(ByteBuffer dst, long at) throws IOException {
        if (at < 0) {
            throw new IllegalArgumentException("Negative position");
        }
        synchronized (VirtualFs.class) {
            checkReadable();
            return readAt(dst, at);
        }
    }

    @Override
    public int write(ByteBuffer src, long at) throws IOException {
        if (at < 0) {
            throw new IllegalArgumentException("Negative position");
        }
        synchronized (VirtualFs.class) {
            checkWritable();
            return writeAt(src, at);
        }
    }

    @Override
    public MappedByteBuffer map(MapMode mode, long at, long size) throws IOException {
        check();
        throw new IOException("ferrosuite: a virtual file cannot be memory-mapped");
    }

    @Override
    public FileLock lock(long at, long size, boolean shared) throws IOException {
        return tryLock(at, size, shared);
    }

    @Override
    public FileLock tryLock(long at, long size, boolean shared) throws IOException {
        if (at < 0 || size < 0 || at + size < 0) {
            throw new IllegalArgumentException();
        }
        synchronized (VirtualFs.class) {
            check();
            if (shared && !readable) {
                throw new NonReadableChannelException();
            }
            if (!shared && !writable) {
                throw new NonWritableChannelException();
            }
            for (FileLock l : node.locks) {
                if (l.isValid() && l.overlaps(at, size)) {
                    throw new OverlappingFileLockException();
                }
            }
            Lock l = new Lock(this, at, size, shared);
            node.locks.add(l);
            return l;
        }
    }

    @Override
    protected void implCloseChannel() {
        synchronized (VirtualFs.class) {
            for (Iterator<FileLock> i = node.locks.iterator(); i.hasNext(); ) {
                FileLock l = i.next();
                if (l.channel() == this) {
                    ((Lock) l).valid = false;
                    i.remove();
                }
            }
        }
    }

    /** A lock on a region of a virtual file, valid until released or its channel closes. */
    static final class Lock extends FileLock {
        private boolean valid = true;

        Lock(FileChannel channel, long at, long size, boolean shared) {
            super(channel, at, size, shared);
        }

        @Override
        public boolean isValid() {
            synchronized (VirtualFs.class) {
                return valid;
            }
        }

        @Override
        public void release() throws IOException {
            synchronized (VirtualFs.class) {
                if (!channel().isOpen()) {
                    throw new ClosedChannelException();
                }
                if (valid) {
                    valid = false;
                    ((VirtualChannel) channel()).node.locks.remove(this);
                }
            }
        }
    }
}
