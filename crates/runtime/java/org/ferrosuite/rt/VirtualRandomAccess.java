package org.ferrosuite.rt;

import java.io.File;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.channels.FileChannel;

/**
 * {@code java.io.RandomAccessFile} on the virtual file system ({@link VirtualFs}): factories for
 * its constructors ({@code new RandomAccessFile(f, "rw")} becomes {@code
 * VirtualRandomAccess.newRandomAccessFile(f, "rw")}) returning a subclass whose reads, writes,
 * seeks and length go to the virtual file through a {@link VirtualChannel}, and stand-ins for the
 * three final methods that would bypass it ({@code writeBytes}, {@code writeChars}, {@code
 * getChannel}). The other final methods ({@code readInt}, {@code writeLong}, {@code readLine},
 * {@code readUTF}, …) call the overridden ones on every JDK from 8 on.
 *
 * <p>The subclass's JDK part holds the null device open for reading (a {@code RandomAccessFile}
 * must open something); nothing is ever read from or written to it.
 */
public final class VirtualRandomAccess {
    private VirtualRandomAccess() {
    }

    public static RandomAccessFile newRandomAccessFile(String name, String mode)
            throws FileNotFoundException {
        return newRandomAccessFile(name != null ? new File(name) : null, mode);
    }

    public static RandomAccessFile newRandomAccessFile(File file, String mode)
            throws FileNotFoundException {
        boolean write;
        if ("r".equals(mode)) {
            write = false;
        } else if (mode.startsWith("rw")
                && (mode.length() == 2 || mode.equals("rws") || mode.equals("rwd"))) {
            write = true;
        } else {
            throw new IllegalArgumentException("Illegal mode \"" + mode
                + "\" must be one of \"r\", \"rw\", \"rws\", or \"rwd\"");
        }
        if (file == null) {
            throw new NullPointerException();
        }
        String name = file.getPath();
        VirtualFs.Node node;
        synchronized (VirtualFs.class) {
            if (write) {
                node = VirtualFs.writable(name, true);
                if (!node.readable) {
                    throw new FileNotFoundException(name + " (Permission denied)");
                }
            } else {
                node = VirtualFs.readable(name);
            }
        }
        return new Handle(new VirtualChannel(node, true, write, false), write);
    }

    /** {@code raf.writeBytes(s)}: the low byte of each char. */
    public static void writeBytes(RandomAccessFile f, String s) throws IOException {
        if (!(f instanceof Handle)) {
            f.writeBytes(s);
            return;
        }
        byte[] b = new byte[s.length()];
        for (int k = 0; k < b.length; k++) {
            b[k] = (byte) s.charAt(k);
        }
        f.write(b, 0, b.length);
    }

    /** {@code raf.writeChars(s)}: each char as two bytes, high byte first. */
    public static void writeChars(RandomAccessFile f, String s) throws IOException {
        if (!(f instanceof Handle)) {
            f.writeChars(s);
            return;
        }
        byte[] b = new byte[2 * s.length()];
        for (int k = 0; k < s.length(); k++) {
            char c = s.charAt(k);
            b[2 * k] = (byte) (c >>> 8);
            b[2 * k + 1] = (byte) c;
        }
        f.write(b, 0, b.length);
    }

    /** {@code raf.getChannel()}: the virtual file's channel, sharing the file pointer. */
    public static FileChannel getChannel(RandomAccessFile f) {
        return f instanceof Handle ? ((Handle) f).channel : f.getChannel();
    }

    private static String nullDevice() {
        return File.separatorChar == '\\' ? "NUL" : "/dev/null";
    }

    /** A random access file on a virtual file. */
    static final class Handle extends RandomAccessFile {
        final VirtualChannel channel;
        private final boolean writable;

        Handle(VirtualChannel channel, boolean writable) throws FileNotFoundException {
            super(nullDevice(), "r");
            this.channel = channel;
            this.writable = writable;
        }

        private VirtualChannel open() throws IOException {
            if (!channel.isOpen()) {
                throw new IOException("Stream Closed");
            }
            return channel;
        }

        /** The channel, for a change of the file: as the JDK's, an error in mode "r". */
        private VirtualChannel forWriting() throws IOException {
            if (!writable) {
                throw new IOException("Bad file descriptor");
            }
            return open();
        }

        @Override
        public int read() throws IOException {
            return open().readByte();
        }

        @Override
        public int read(byte[] b) throws IOException {
            return read(b, 0, b.length);
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            return open().readBytes(b, off, len);
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
            forWriting().writeBytes(b, off, len);
        }

        @Override
        public long getFilePointer() throws IOException {
            return open().position();
        }

        @Override
        public void seek(long pos) throws IOException {
            if (pos < 0) {
                throw new IOException("Negative seek offset");
            }
            open().position(pos);
        }

        @Override
        public long length() throws IOException {
            return open().size();
        }

        @Override
        public void setLength(long newLength) throws IOException {
            forWriting().setLength(newLength);
        }

        @Override
        public void close() throws IOException {
            channel.close();
            super.close();
        }
    }
}
