package org.agentworkspace.core.loop;

import java.time.Instant;
import java.util.Map;
import java.util.Objects;

/**
 * One piece of work the engine is doing (or did recently) in the background.
 *
 * @param id          {@code run_…} for a run, {@code install-<uuid>} for a provider install, {@code history-index}
 * @param kind        {@code run}, {@code provider-install} or {@code history-index}
 * @param label       a readable line
 * @param status      {@code queued}, {@code running}, {@code succeeded}, {@code failed}, {@code cancelled},
 *                    {@code timed_out} (runs) or {@code ready} (the history index when idle)
 * @param cancellable whether {@link BackgroundJobs#cancel} can stop it now
 * @param progress    0..1 where the engine can tell, or {@code null}
 * @param createdAt   when it was accepted
 * @param startedAt   when it started working, or {@code null}
 * @param finishedAt  when it ended, or {@code null}
 * @param details     kind-specific facts (provider, project, task id, counts …)
 */
public record BackgroundJob(String id, String kind, String label, String status, boolean cancellable,
                            Double progress, Instant createdAt, Instant startedAt, Instant finishedAt,
                            Map<String, Object> details) {
    public BackgroundJob {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(status, "status");
        details = details == null ? Map.of() : java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(
                details));
    }
}
