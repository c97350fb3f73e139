package org.agentworkspace.core.runs;

import java.util.EnumSet;
import java.util.Set;

/**
 * A filter for {@link RunEngine#list(RunQuery)}: newest first.
 *
 * @param provider only this provider, or {@code null} for all
 * @param statuses only these statuses; empty for all
 * @param limit    at most this many (1..1000)
 */
public record RunQuery(String provider, Set<RunStatus> statuses, int limit) {
    public RunQuery {
        statuses = statuses.isEmpty() ? Set.of() : Set.copyOf(EnumSet.copyOf(statuses));
        if (limit < 1 || limit > 1000) {
            throw new IllegalArgumentException("limit must be 1..1000");
        }
    }

    /** The 100 newest runs. */
    public static RunQuery newest() {
        return new RunQuery(null, Set.of(), 100);
    }

    public RunQuery withProvider(String p) {
        return new RunQuery(p, statuses, limit);
    }

    public RunQuery withStatuses(Set<RunStatus> s) {
        return new RunQuery(provider, s, limit);
    }

    public RunQuery withLimit(int n) {
        return new RunQuery(provider, statuses, n);
    }
}
