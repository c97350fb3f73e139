package org.agentworkspace.core.system;

import java.time.Instant;

/**
 * One event of an update job. Ids start at 1 and grow by one; exactly one terminal event ({@link Done} or
 * {@link Failed}) ends a job.
 */
public sealed interface UpdateEvent {
    long id();

    default boolean terminal() {
        return this instanceof Done || this instanceof Failed;
    }

    /**
     * A line of output.
     *
     * @param stream {@code stdout} / {@code stderr} of a program the update runs (git), or {@code meta} for the
     *               job's own notes
     */
    record Log(long id, String stream, String text, Instant at) implements UpdateEvent {
    }

    /**
     * The job reached a phase ({@code checking}, {@code downloading}, {@code verifying}, {@code unpacking},
     * {@code swapping}, {@code fetching}, {@code merging}, {@code restarting}).
     *
     * @param percent 0-100 within a phase that can tell, else null
     */
    record Progress(long id, String phase, Integer percent, String message) implements UpdateEvent {
    }

    /** The update finished; {@link UpdateOutcome#selfRestarting()} says whether the process now exits with 42. */
    record Done(long id, UpdateOutcome outcome) implements UpdateEvent {
    }

    /** The update failed with a stable code; nothing was switched. */
    record Failed(long id, String code, String message) implements UpdateEvent {
    }
}
