package org.agentworkspace.core.runs;

/**
 * Rows stored in the same transaction as a new run's row (given the new run's id): both are stored or neither,
 * and a run whose rows could not be written is never queued.
 */
@FunctionalInterface
public interface WithRun {
    void write(org.jdbi.v3.core.Handle h, String runId);
}
