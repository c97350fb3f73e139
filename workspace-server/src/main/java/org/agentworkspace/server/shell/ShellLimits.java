package org.agentworkspace.server.shell;

import java.time.Duration;

import org.agentworkspace.core.shell.ShellSettings;

/**
 * Limits of {@code /shell}: the terminals' own (caps, replay, reaping) and the connections'.
 *
 * @param sessions              terminal caps, replay size, detached and idle reaping
 * @param maxConnectionsPerUser open {@code /shell} sockets one user may hold
 * @param maxMessageBytes       the largest client message (a frame, or a fragmented message in total); close 1009
 * @param heartbeat             how often the server pings; a socket silent for three intervals is closed (1001)
 * @param maxQueuedChars        output waiting to be sent to one socket before it counts as a slow consumer (1013)
 * @param writeTimeout          how long one send may block before the socket is dropped
 */
public record ShellLimits(ShellSettings sessions, int maxConnectionsPerUser, int maxMessageBytes, Duration heartbeat,
                          int maxQueuedChars, Duration writeTimeout) {
    public ShellLimits {
        if (maxConnectionsPerUser < 1 || maxMessageBytes < 1024 || heartbeat.isNegative() || heartbeat.isZero()
                || maxQueuedChars < 1024 || writeTimeout.isNegative() || writeTimeout.isZero()) {
            throw new IllegalArgumentException("bad shell limits");
        }
    }

    /**
     * 8 sockets per user, 64 KiB messages, a ping every 25 s, 4 Mi characters queued (a full replay of escape-heavy
     * output fits), 30 s per write.
     */
    public static ShellLimits defaults() {
        return new ShellLimits(ShellSettings.defaults(), 8, 64 * 1024, Duration.ofSeconds(25), 4 * 1024 * 1024,
                Duration.ofSeconds(30));
    }

    public ShellLimits withSessions(ShellSettings s) {
        return new ShellLimits(s, maxConnectionsPerUser, maxMessageBytes, heartbeat, maxQueuedChars, writeTimeout);
    }

    public ShellLimits withConnections(int perUser) {
        return new ShellLimits(sessions, perUser, maxMessageBytes, heartbeat, maxQueuedChars, writeTimeout);
    }

    public ShellLimits withHeartbeat(Duration every) {
        return new ShellLimits(sessions, maxConnectionsPerUser, maxMessageBytes, every, maxQueuedChars, writeTimeout);
    }

    public ShellLimits withWriteTimeout(Duration d) {
        return new ShellLimits(sessions, maxConnectionsPerUser, maxMessageBytes, heartbeat, maxQueuedChars, d);
    }

    public ShellLimits withMaxQueuedChars(int chars) {
        return new ShellLimits(sessions, maxConnectionsPerUser, maxMessageBytes, heartbeat, chars, writeTimeout);
    }
}
