package org.ferrosuite.rt.rec;

import java.io.ByteArrayOutputStream;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystems;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Events of the environment for the recorded calls on the stack, as {@link Observed}'s
 * stand-ins see it: the clock's first reading ({@code 0x25}, {@code u64} milliseconds), each
 * value of {@code Math.random()} ({@code 0x26}, the double's bits), each seed of
 * {@code new Random()} ({@code 0x27}), each file or directory's state the first time the call
 * asks about it ({@code 0x28}, below), and the console bytes read ({@code 0x29}, {@code u32}
 * length and bytes, once at the call's end).
 *
 * <p>A file event is the path as the program gave it, then its state before the call: {@code 0}
 * missing (then {@code u8} 1 when its parent directory exists), {@code 1} a regular file (then
 * {@code u32} length and its bytes), {@code 2} a directory (then {@code u32} count and per
 * entry its name and {@code u8} 1 for a directory), {@code 3} something a test cannot rebuild
 * (unreadable, a device or pipe, larger than the recording's file limit). Like calls on
 * collaborators, these are events of every recorded call on the thread's stack that takes
 * events, and count against the event limit.
 */
final class EnvRecorder {
    static final int MISSING = 0;
    static final int FILE = 1;
    static final int DIRECTORY = 2;
    static final int OTHER = 3;

    /** Entries of a directory reported at most. */
    private static final int MAX_ENTRIES = 1000;

    private EnvRecorder() {
    }

    /** The thread's state when some recorded call on it takes events now, else null (marked busy). */
    private static Recorder.Local open() {
        if (!Recorder.on || Recorder.ACTIVE.get() == 0) {
            return null;
        }
        Recorder.Local l = Recorder.local();
        if (l.busy || l.open == 0) {
            return null;
        }
        l.busy = true;
        return l;
    }

    /** A clock reading: reported once per call, its first (the time a test sets). */
    static void clock(long millis) {
        number(Recorder.EV_CLOCK, millis, true);
    }

    static void randomDouble(double d) {
        number(Recorder.EV_RANDOM, Double.doubleToRawLongBits(d), false);
    }

    static void seed(long s) {
        number(Recorder.EV_SEED, s, false);
    }

    /** A {@code u64} event of every recorded call on the stack that takes events ({@code clock}: once per call). */
    private static void number(int tag, long v, boolean clock) {
        Recorder.Local l = open();
        if (l == null) {
            return;
        }
        try {
            for (int i = l.size - 1; i >= 0; i--) {
                Recorder.Frame f = l.stack[i];
                if (!f.taking() || (clock && f.clockRead) || !Recorder.roomFor(l, f)) {
                    continue;
                }
                if (clock) {
                    f.clockRead = true;
                }
                f.enc.u8(tag);
                f.enc.u64(v);
            }
        } catch (Throwable t) {
            // Lost.
        } finally {
            l.busy = false;
        }
    }

    /** A file or directory the program asks about or opens: a {@code String}, {@code File} or {@code Path}. */
    static void file(Object where) {
        if (where == null) {
            return;
        }
        Recorder.Local l = open();
        if (l == null) {
            return;
        }
        try {
            String path;
            if (where instanceof String) {
                path = (String) where;
            } else if (where instanceof File) {
                path = ((File) where).getPath();
            } else if (where instanceof Path && ((Path) where).getFileSystem() == FileSystems.getDefault()) {
                path = where.toString();
            } else {
                return;
            }
            byte[] state = null;
            for (int i = l.size - 1; i >= 0; i--) {
                Recorder.Frame f = l.stack[i];
                if (!f.taking() || (f.files != null && f.files.containsKey(path))
                        || !Recorder.roomFor(l, f)) {
                    continue;
                }
                if (f.files == null) {
                    f.files = new LinkedHashMap<String, byte[]>();
                }
                if (state == null) {
                    state = state(path);
                }
                f.files.put(path, state);
                f.enc.u8(Recorder.EV_FILE);
                f.enc.str(path);
                f.enc.raw(state);
            }
        } catch (Throwable t) {
            // Lost.
        } finally {
            l.busy = false;
        }
    }

    /**
     * At the end of call {@code f}: the state of each path it asked about that is not what it
     * was before ({@code 0x2a}, path and state as in {@code 0x28}): the files it wrote, created
     * or deleted, which a test checks after the call.
     */
    static void after(Recorder.Frame f) {
        if (f.files == null) {
            return;
        }
        try {
            for (Map.Entry<String, byte[]> e : f.files.entrySet()) {
                byte[] now = state(e.getKey());
                if (!Arrays.equals(now, e.getValue())) {
                    f.enc.u8(Recorder.EV_FILE_AFTER);
                    f.enc.str(e.getKey());
                    f.enc.raw(now);
                }
            }
        } catch (Throwable t) {
            // Lost.
        }
    }

    /** The encoded state of the file at {@code path} now (reading it changes nothing). */
    private static byte[] state(String path) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        File f = new File(path);
        try {
            java.nio.file.Path p = f.toPath();
            if (!f.exists()) {
                File parent = f.getParentFile();
                out.write(MISSING);
                out.write(parent != null && parent.isDirectory() ? 1 : 0);
            } else if (f.isDirectory()) {
                String[] names = f.list();
                if (names == null || names.length > MAX_ENTRIES) {
                    out.write(OTHER);
                } else {
                    Arrays.sort(names);
                    out.write(DIRECTORY);
                    u32(out, names.length);
                    for (String n : names) {
                        byte[] b = n.getBytes(StandardCharsets.UTF_8);
                        u32(out, b.length);
                        out.write(b);
                        out.write(new File(f, n).isDirectory() ? 1 : 0);
                    }
                }
            } else if (java.nio.file.Files.isRegularFile(p) && f.canRead()
                    && f.length() <= Recorder.cfg.files) {
                byte[] b = java.nio.file.Files.readAllBytes(p);
                if (b.length > Recorder.cfg.files) {
                    out.reset();
                    out.write(OTHER);
                } else {
                    out.write(FILE);
                    u32(out, b.length);
                    out.write(b);
                }
            } else {
                out.write(OTHER);
            }
        } catch (Throwable e) {
            out.reset();
            out.write(OTHER);
        }
        return out.toByteArray();
    }

    private static void u32(ByteArrayOutputStream out, int v) {
        out.write(v >>> 24);
        out.write(v >>> 16);
        out.write(v >>> 8);
        out.write(v);
    }

    /** Bytes the program read from the console. */
    static void console(byte[] b, int off, int n) {
        Recorder.Local l = open();
        if (l == null) {
            return;
        }
        try {
            for (int i = l.size - 1; i >= 0; i--) {
                Recorder.Frame f = l.stack[i];
                if (!f.taking()) {
                    continue;
                }
                if (f.console == null) {
                    if (!Recorder.roomFor(l, f)) {
                        continue;
                    }
                    f.console = new ByteArrayOutputStream();
                }
                if (f.console.size() + n > Recorder.cfg.files) {
                    // More input than a test would carry: the call cannot be replayed.
                    f.enc.truncated = true;
                    f.eventsCut = true;
                    l.open--;
                    l.version++;
                    continue;
                }
                f.console.write(b, off, n);
            }
        } catch (Throwable t) {
            // Lost.
        } finally {
            l.busy = false;
        }
    }
}
