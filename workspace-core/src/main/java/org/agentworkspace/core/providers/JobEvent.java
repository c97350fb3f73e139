package org.agentworkspace.core.providers;

import java.time.Instant;

/**
 * One event of an install job. Ids start at 1 and grow by one per event of the job; a stream resumes after the id
 * it last saw. Exactly one terminal event ({@link Done} or {@link Failed}) ends a job.
 */
public sealed interface JobEvent {
    long id();

    /** Whether this event ends the job's stream. */
    default boolean terminal() {
        return this instanceof Done || this instanceof Failed;
    }

    /**
     * A line of output.
     *
     * @param stream {@code stdout} or {@code stderr} of npm, or {@code meta} for the job's own notes
     */
    record Log(long id, String stream, String text, Instant at) implements JobEvent {
    }

    /** The job changed state. */
    record StatusChange(long id, InstallJob job) implements JobEvent {
    }

    /** The job ended as succeeded or cancelled. */
    record Done(long id, InstallJob job) implements JobEvent {
    }

    /** The job failed. */
    record Failed(long id, InstallJob job, String code, String message) implements JobEvent {
    }
}
