package org.agentworkspace.core.runs;

import java.time.Instant;
import java.util.Objects;
import java.util.Optional;

/**
 * A run as the store has it.
 *
 * @param id         opaque id ({@code run_…})
 * @param provider   provider id the run was started for (used for per-provider limits)
 * @param status     current status
 * @param createdAt  when it was accepted (queued)
 * @param startedAt  when its process started, or {@code null}
 * @param finishedAt when it reached a terminal status, or {@code null}
 * @param exitCode   the process exit code (128 + signal when killed), or {@code null}
 * @param reason     why it ended (for every end but success), or {@code null}
 * @param metadata   the caller's free JSON object (project path, session id, route …)
 */
public record RunInfo(String id, String provider, RunStatus status, Instant createdAt, Instant startedAt,
                      Instant finishedAt, Integer exitCode, String reason, String metadata) {
    public RunInfo {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(provider, "provider");
        Objects.requireNonNull(status, "status");
        Objects.requireNonNull(createdAt, "createdAt");
        Objects.requireNonNull(metadata, "metadata");
    }

    public Optional<Instant> findStartedAt() {
        return Optional.ofNullable(startedAt);
    }

    public Optional<Instant> findFinishedAt() {
        return Optional.ofNullable(finishedAt);
    }

    public Optional<Integer> findExitCode() {
        return Optional.ofNullable(exitCode);
    }

    public Optional<String> findReason() {
        return Optional.ofNullable(reason);
    }
}
