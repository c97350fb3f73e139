package org.agentworkspace.core.runs;

import java.time.Instant;
import java.util.Objects;

/**
 * One entry of a run's append-only log.
 *
 * @param runId   the run
 * @param seq     1, 2, 3, … per run without gaps; a reader resumes after the last seq it saw
 * @param kind    what the payload holds
 * @param payload JSON text (always an object)
 * @param at      when the engine took the entry (the line was read, the status changed), millisecond precision
 */
public record RunEntry(String runId, long seq, EntryKind kind, String payload, Instant at) {
    public RunEntry {
        Objects.requireNonNull(runId, "runId");
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(payload, "payload");
        Objects.requireNonNull(at, "at");
        if (seq < 1) {
            throw new IllegalArgumentException("seq starts at 1");
        }
    }

    /** Approximate memory and storage size, for buffer accounting. */
    int weight() {
        return 64 + runId.length() + payload.length() * 2;
    }
}
