package org.agentworkspace.core.shell;

import java.time.Duration;

/**
 * Limits of interactive terminals.
 *
 * @param maxPerUser    terminals one user may have running at once ({@code TOO_MANY_SHELLS} beyond)
 * @param replayBytes   output kept per terminal for replay after a reconnect
 * @param detachedTtl   how long a terminal with no connection is kept for a reconnect before it is killed
 * @param idleTtl       how long a terminal may see neither input nor output before it is killed, attached or not
 * @param reapInterval  how often the reaper looks
 */
public record ShellSettings(int maxPerUser, int replayBytes, Duration detachedTtl, Duration idleTtl,
                            Duration reapInterval) {
    public ShellSettings {
        if (maxPerUser < 1 || replayBytes < 1024 || detachedTtl.isNegative() || idleTtl.isNegative()
                || reapInterval.isNegative() || reapInterval.isZero()) {
            throw new IllegalArgumentException("bad shell settings");
        }
    }

    /** 4 terminals per user, 256 KiB replay, 5 minutes detached, 30 minutes idle, reaped every 15 seconds. */
    public static ShellSettings defaults() {
        return new ShellSettings(4, 256 * 1024, Duration.ofMinutes(5), Duration.ofMinutes(30), Duration.ofSeconds(15));
    }

    public ShellSettings withMaxPerUser(int n) {
        return new ShellSettings(n, replayBytes, detachedTtl, idleTtl, reapInterval);
    }

    public ShellSettings withReplayBytes(int n) {
        return new ShellSettings(maxPerUser, n, detachedTtl, idleTtl, reapInterval);
    }

    public ShellSettings withTimeouts(Duration detached, Duration idle, Duration interval) {
        return new ShellSettings(maxPerUser, replayBytes, detached, idle, interval);
    }
}
