package org.agentworkspace.core.runs;

import java.time.Duration;
import java.util.Objects;

/**
 * How long ended runs (their rows and event logs) are kept: a periodic sweep of the {@link RunEngine} deletes every
 * ended run that finished more than {@code maxAge} ago, and every ended run beyond the {@code maxCount} newest runs.
 * Queued and running runs are never deleted. See docs/runs.md "Retention".
 *
 * @param maxAge   ended runs older than this (by their end) are deleted (default 30 days)
 * @param maxCount at most this many runs are kept, the newest by creation (default 10,000)
 * @param every    how often the sweep runs (default 1 hour; the first sweep runs soon after the engine opens)
 */
public record RunRetention(Duration maxAge, int maxCount, Duration every) {
    public RunRetention {
        Objects.requireNonNull(maxAge, "maxAge");
        Objects.requireNonNull(every, "every");
        if (maxAge.isNegative() || maxAge.isZero() || every.isNegative() || every.isZero()) {
            throw new IllegalArgumentException("run retention: the age and the sweep period must be positive");
        }
        if (maxCount < 1) {
            throw new IllegalArgumentException("run retention: keep at least 1 run");
        }
    }

    public static RunRetention defaults() {
        return new RunRetention(Duration.ofDays(30), 10_000, Duration.ofHours(1));
    }

    public RunRetention withMaxAge(Duration d) {
        return new RunRetention(d, maxCount, every);
    }

    public RunRetention withMaxCount(int n) {
        return new RunRetention(maxAge, n, every);
    }

    public RunRetention withEvery(Duration d) {
        return new RunRetention(maxAge, maxCount, d);
    }
}
