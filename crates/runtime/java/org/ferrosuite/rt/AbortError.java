package org.ferrosuite.rt;

/** Thrown by probes to stop a runaway test (loop limit, watchdog). Carries no stack trace. */
public final class AbortError extends Error {
    private static final long serialVersionUID = 1L;

    AbortError(String message) {
        super(message, null, false, false);
    }
}
