package org.agentworkspace.core.providers;

import java.time.Instant;
import java.util.Locale;

/**
 * A snapshot of an install job.
 *
 * @param jobId            opaque id
 * @param provider         the provider being installed
 * @param status           the state
 * @param npmPackage       the npm package
 * @param requested        the requested version or dist-tag ({@code latest} by default)
 * @param installedVersion the version the installed CLI printed, once succeeded
 * @param startedAt        when the job was created
 * @param finishedAt       when it ended, or {@code null}
 * @param exitCode         npm's exit code, or {@code null}
 * @param binaryPath       the installed binary, once succeeded
 * @param errorCode        why it failed ({@link ProviderErrorCodes} job codes), or {@code null}
 * @param errorMessage     a readable reason, or {@code null}
 */
public record InstallJob(String jobId, String provider, Status status, String npmPackage, String requested,
                         String installedVersion, Instant startedAt, Instant finishedAt, Integer exitCode,
                         String binaryPath, String errorCode, String errorMessage) {

    /** Job states; {@link #wire()} is the lower-case name used on the wire. */
    public enum Status {
        PENDING, RUNNING, SUCCEEDED, FAILED, CANCELLED;

        public String wire() {
            return name().toLowerCase(Locale.ROOT);
        }

        public boolean terminal() {
            return this == SUCCEEDED || this == FAILED || this == CANCELLED;
        }
    }
}
