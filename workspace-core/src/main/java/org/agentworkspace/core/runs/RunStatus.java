package org.agentworkspace.core.runs;

import java.util.Locale;

/**
 * Where a run is. {@code QUEUED → RUNNING → SUCCEEDED | FAILED | CANCELLED | TIMED_OUT}; a queued run may also end
 * {@code CANCELLED} (cancelled while waiting) or {@code FAILED} (it could not start, or the engine stopped).
 */
public enum RunStatus {
    QUEUED,
    RUNNING,
    SUCCEEDED,
    FAILED,
    CANCELLED,
    TIMED_OUT;

    /** True for the four end states; a run's log ends with exactly one terminal status entry. */
    public boolean terminal() {
        return this != QUEUED && this != RUNNING;
    }

    /** The name in payloads, the store and the API: {@code queued}, {@code timed_out}, ... */
    public String wireName() {
        return name().toLowerCase(Locale.ROOT);
    }

    public static RunStatus ofWireName(String name) {
        return valueOf(name.toUpperCase(Locale.ROOT));
    }
}
