package org.ferrosuite.rt;

import java.nio.file.LinkOption;
import java.nio.file.OpenOption;
import java.nio.file.StandardOpenOption;

/**
 * Guards called by sandboxed code just before a call of an API that would exit the JVM, change
 * the file system, start or kill a process, or use the network (see the Rust module
 * {@code ferrosuite_bytecode::instrument::sandbox}). Every guard either returns normally (the
 * call is harmless) or throws {@link SandboxError}; none keeps state.
 */
public final class Sandbox {
    private Sandbox() {
    }

    /** Always throws: the API is never allowed. */
    public static void deny(String api) {
        throw new SandboxError(api);
    }

    /**
     * Allows the call when a {@code RandomAccessFile} mode is exactly {@code "r"} (read only),
     * throws otherwise ({@code "rw"}, {@code "rws"}, {@code "rwd"}, null, anything else).
     */
    public static void checkMode(String mode, String api) {
        if (!"r".equals(mode)) {
            throw new SandboxError(api, "mode " + (mode == null ? "null" : "\"" + mode + "\""));
        }
    }

    /**
     * Allows the call when no option asks to write, create, truncate or delete: throws if any of
     * {@code WRITE}, {@code APPEND}, {@code CREATE}, {@code CREATE_NEW},
     * {@code TRUNCATE_EXISTING} or {@code DELETE_ON_CLOSE} is present, and for options it does
     * not know (a custom file system's own options), so that only {@code READ}, {@code SPARSE},
     * {@code SYNC}, {@code DSYNC} and {@code LinkOption}s pass. A null or empty array means the
     * read-only defaults of the APIs this guards ({@code Files.newByteChannel},
     * {@code Files.newInputStream}, {@code FileChannel.open}, {@code AsynchronousFileChannel.open});
     * null elements are left to the API (it throws {@code NullPointerException}).
     */
    public static void checkOptions(OpenOption[] options, String api) {
        if (options == null) {
            return;
        }
        for (OpenOption o : options) {
            if (o == null || o instanceof LinkOption || o == StandardOpenOption.READ
                    || o == StandardOpenOption.SPARSE || o == StandardOpenOption.SYNC
                    || o == StandardOpenOption.DSYNC) {
                continue;
            }
            throw new SandboxError(api, "option " + o);
        }
    }
}
