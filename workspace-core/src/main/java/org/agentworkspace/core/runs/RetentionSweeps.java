package org.agentworkspace.core.runs;

import java.time.Clock;
import java.util.Objects;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/** The periodic retention sweep of a {@link RunEngine} ({@link RunRetention}; docs/runs.md "Retention"). */
final class RetentionSweeps {
    private static final System.Logger LOG = System.getLogger(RunEngine.class.getName());

    private final EventLog log;
    private final Clock clock;
    private ScheduledExecutorService sweeper;

    RetentionSweeps(EventLog log, Clock clock) {
        this.log = log;
        this.clock = clock;
    }

    /** Starts (or restarts with {@code retention}) the periodic sweep. */
    synchronized void start(RunRetention retention) {
        Objects.requireNonNull(retention, "retention");
        if (sweeper != null) {
            sweeper.shutdownNow();
        }
        sweeper = Executors.newSingleThreadScheduledExecutor(r -> Thread.ofPlatform().daemon()
                .name("aw-run-retention").unstarted(r));
        long every = retention.every().toMillis();
        sweeper.scheduleWithFixedDelay(() -> {
            try {
                sweep(retention);
            } catch (Throwable t) {
                // never rethrown: an exception would cancel every later sweep
                LOG.log(System.Logger.Level.WARNING, "run retention sweep failed; retrying in " + retention.every(), t);
            }
        }, Math.min(every, 5_000), every, TimeUnit.MILLISECONDS);
    }

    /** One sweep: ended runs past the age or count, in transactions of at most 500 runs; how many were deleted. */
    int sweep(RunRetention retention) {
        long before = clock.instant().minus(retention.maxAge()).toEpochMilli();
        int total = 0;
        while (true) {
            int n = log.deleteEnded(before, retention.maxCount(), 500);
            total += n;
            if (n < 500) {
                break;
            }
        }
        if (total > 0) {
            LOG.log(System.Logger.Level.INFO, "run retention: deleted " + total + " ended runs");
        }
        return total;
    }

    synchronized void close() {
        if (sweeper != null) {
            sweeper.shutdownNow();
        }
    }
}
