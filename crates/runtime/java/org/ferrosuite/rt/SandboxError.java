package org.ferrosuite.rt;

/**
 * Thrown by {@link Sandbox} when code under test calls an API that would exit the JVM, change
 * the file system, start or kill a process, or use the network. Carries no stack trace.
 */
public final class SandboxError extends Error {
    private static final long serialVersionUID = 1L;

    private final String api;

    /** An error for the named API (for example {@code "java.io.File.delete"}). */
    public SandboxError(String api) {
        this(api, null);
    }

    /** An error for the named API with a detail (for example the file mode that was refused). */
    public SandboxError(String api, String detail) {
        super("ferrosuite sandbox: " + api + " is not allowed during test generation"
                + (detail == null ? "" : " (" + detail + ")"), null, false, false);
        this.api = api;
    }

    /** The API that was refused, as owner and member name ({@code "java.lang.System.exit"}). */
    public String getApi() {
        return api;
    }
}
