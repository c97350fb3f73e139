package org.agentworkspace.core.runs;

import java.time.Duration;
import java.util.Map;
import java.util.Objects;

/**
 * Limits and tuning of the run engine; {@link #defaults()} documents each default.
 *
 * @param globalLimit       runs with a live process at once, all providers together (default 8)
 * @param perProviderLimits lower limits for single providers (default none); a provider without an entry is bound
 *                          by the global limit only
 * @param maxQueued         runs waiting for a slot; one more is refused with 429 (default 1000)
 * @param inactivityTimeout no stdout or stderr output for this long kills the run: {@code timed_out} (default 10 min)
 * @param totalTimeout      a run's process may live this long in all (default 2 h)
 * @param killGrace         on cancel or timeout the tree first gets SIGTERM, then SIGKILL after this (default 2 s;
 *                          zero kills at once)
 * @param maxLineBytes      a longer stdout or stderr line is cut to this many bytes and flagged (default 1 MiB)
 * @param maxRunBytes       stdout bytes stored per run; after that the output is drained, not stored (default 64 MiB)
 * @param maxStderrBytes    stderr bytes stored per run (default 1 MiB)
 * @param writeBatch        most log entries written in one store transaction (default 2000)
 * @param writeLinger       how long the log writer waits for more entries before a transaction; zero writes as soon
 *                          as the previous transaction ends, so batches grow only under load (default 0)
 * @param pollInterval      how often a reader re-checks the store for a run this engine is not running, such as a
 *                          run on another node (default 500 ms)
 * @param maxQueuedPerAccount runs of one account ({@link RunRequest#account()}) waiting for a slot; one more is
 *                          refused with 429 {@code TOO_MANY_QUEUED_RUNS}, so one account cannot fill the shared queue
 *                          (default 20)
 * @param maxActivePerAccount runs of one account with a live process at once; its further runs wait in the queue
 *                          while other accounts' runs start; 0 (the default) is one less than {@code globalLimit}
 *                          (at least 1), so one account never holds every slot ({@link #activeLimitPerAccount()})
 */
public record RunSettings(int globalLimit, Map<String, Integer> perProviderLimits, int maxQueued,
                          Duration inactivityTimeout, Duration totalTimeout, Duration killGrace,
                          int maxLineBytes, long maxRunBytes, int maxStderrBytes,
                          int writeBatch, Duration writeLinger, Duration pollInterval,
                          int maxQueuedPerAccount, int maxActivePerAccount) {
    public RunSettings {
        perProviderLimits = Map.copyOf(Objects.requireNonNull(perProviderLimits, "perProviderLimits"));
        if (globalLimit < 1 || maxQueued < 0 || writeBatch < 1) {
            throw new IllegalArgumentException("globalLimit and writeBatch must be at least 1, maxQueued at least 0");
        }
        for (Map.Entry<String, Integer> e : perProviderLimits.entrySet()) {
            if (e.getValue() < 1) {
                throw new IllegalArgumentException("the limit of provider " + e.getKey() + " must be at least 1");
            }
        }
        if (maxQueuedPerAccount < 0 || maxActivePerAccount < 0) {
            throw new IllegalArgumentException("maxQueuedPerAccount and maxActivePerAccount must not be negative");
        }
        positive(inactivityTimeout, "inactivityTimeout");
        positive(totalTimeout, "totalTimeout");
        positive(pollInterval, "pollInterval");
        notNegative(killGrace, "killGrace");
        notNegative(writeLinger, "writeLinger");
        if (maxLineBytes < 1024 || maxRunBytes < maxLineBytes || maxStderrBytes < 1024) {
            throw new IllegalArgumentException("output limits: maxLineBytes and maxStderrBytes at least 1 KiB, "
                    + "maxRunBytes at least maxLineBytes");
        }
    }

    public static RunSettings defaults() {
        return new RunSettings(8, Map.of(), 1000, Duration.ofMinutes(10), Duration.ofHours(2), Duration.ofSeconds(2),
                1 << 20, 64L << 20, 1 << 20, 2000, Duration.ZERO, Duration.ofMillis(500), 20, 0);
    }

    /** The runs of one account that may have a live process at once. */
    public int activeLimitPerAccount() {
        return maxActivePerAccount > 0 ? maxActivePerAccount : Math.max(1, globalLimit - 1);
    }

    /** The limit that applies to a provider's runs. */
    public int limitFor(String provider) {
        return Math.min(globalLimit, perProviderLimits.getOrDefault(provider, globalLimit));
    }

    public RunSettings withLimits(int global, Map<String, Integer> perProvider) {
        return new RunSettings(global, perProvider, maxQueued, inactivityTimeout, totalTimeout, killGrace,
                maxLineBytes, maxRunBytes, maxStderrBytes, writeBatch, writeLinger, pollInterval, maxQueuedPerAccount,
                maxActivePerAccount);
    }

    public RunSettings withMaxQueued(int n) {
        return new RunSettings(globalLimit, perProviderLimits, n, inactivityTimeout, totalTimeout, killGrace,
                maxLineBytes, maxRunBytes, maxStderrBytes, writeBatch, writeLinger, pollInterval, maxQueuedPerAccount,
                maxActivePerAccount);
    }

    public RunSettings withTimeouts(Duration inactivity, Duration total) {
        return new RunSettings(globalLimit, perProviderLimits, maxQueued, inactivity, total, killGrace,
                maxLineBytes, maxRunBytes, maxStderrBytes, writeBatch, writeLinger, pollInterval, maxQueuedPerAccount,
                maxActivePerAccount);
    }

    public RunSettings withKillGrace(Duration d) {
        return new RunSettings(globalLimit, perProviderLimits, maxQueued, inactivityTimeout, totalTimeout, d,
                maxLineBytes, maxRunBytes, maxStderrBytes, writeBatch, writeLinger, pollInterval, maxQueuedPerAccount,
                maxActivePerAccount);
    }

    public RunSettings withOutputLimits(int lineBytes, long runBytes, int stderrBytes) {
        return new RunSettings(globalLimit, perProviderLimits, maxQueued, inactivityTimeout, totalTimeout, killGrace,
                lineBytes, runBytes, stderrBytes, writeBatch, writeLinger, pollInterval, maxQueuedPerAccount,
                maxActivePerAccount);
    }

    public RunSettings withWriting(int batch, Duration linger) {
        return new RunSettings(globalLimit, perProviderLimits, maxQueued, inactivityTimeout, totalTimeout, killGrace,
                maxLineBytes, maxRunBytes, maxStderrBytes, batch, linger, pollInterval, maxQueuedPerAccount,
                maxActivePerAccount);
    }

    public RunSettings withPollInterval(Duration d) {
        return new RunSettings(globalLimit, perProviderLimits, maxQueued, inactivityTimeout, totalTimeout, killGrace,
                maxLineBytes, maxRunBytes, maxStderrBytes, writeBatch, writeLinger, d, maxQueuedPerAccount,
                maxActivePerAccount);
    }

    /** The per-account caps: queued runs and runs with a live process. */
    public RunSettings withAccountLimits(int queuedPerAccount, int activePerAccount) {
        return new RunSettings(globalLimit, perProviderLimits, maxQueued, inactivityTimeout, totalTimeout, killGrace,
                maxLineBytes, maxRunBytes, maxStderrBytes, writeBatch, writeLinger, pollInterval, queuedPerAccount,
                activePerAccount);
    }

    private static void positive(Duration d, String name) {
        if (d == null || d.isNegative() || d.isZero()) {
            throw new IllegalArgumentException(name + " must be positive");
        }
    }

    private static void notNegative(Duration d, String name) {
        if (d == null || d.isNegative()) {
            throw new IllegalArgumentException(name + " must not be negative");
        }
    }
}
