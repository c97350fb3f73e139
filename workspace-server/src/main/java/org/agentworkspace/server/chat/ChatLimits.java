package org.agentworkspace.server.chat;

import java.time.Duration;

/**
 * Limits of {@code /ws}.
 *
 * @param maxConnectionsPerUser    open {@code /ws} sockets one user may hold; one more is refused before the upgrade
 *                                 (429 {@code TOO_MANY_CONNECTIONS})
 * @param maxSubscriptionsPerSocket runs one socket may follow at once ({@code TOO_MANY_SUBSCRIPTIONS})
 * @param maxMessageBytes          the largest client message (a frame, or a fragmented message in total); close 1009
 * @param heartbeat                how often the server pings; a socket silent for three intervals is closed (1001)
 * @param maxQueuedChars           frames waiting to be sent to one socket: a subscription waits for the queue to
 *                                 drain below this before reading on
 * @param slowConsumerGrace        how long a subscription may wait so before the socket counts as a slow consumer and
 *                                 is cut (1013)
 * @param writeTimeout             how long one send may block before the socket is dropped
 * @param maxMessagesPerSecond     client messages one socket may send per second; close 1008 beyond
 */
public record ChatLimits(int maxConnectionsPerUser, int maxSubscriptionsPerSocket, int maxMessageBytes,
                         Duration heartbeat, int maxQueuedChars, Duration slowConsumerGrace, Duration writeTimeout,
                         int maxMessagesPerSecond) {
    public ChatLimits {
        if (maxConnectionsPerUser < 1 || maxSubscriptionsPerSocket < 1 || maxMessageBytes < 1024
                || maxMessagesPerSecond < 1
                || heartbeat.isNegative() || heartbeat.isZero() || maxQueuedChars < 1024
                || slowConsumerGrace.isNegative() || writeTimeout.isNegative() || writeTimeout.isZero()) {
            throw new IllegalArgumentException("bad chat limits");
        }
    }

    /**
     * 16 sockets per user, 64 runs per socket, 64 KiB messages, a ping every 25 s, 4 Mi characters queued for up to
     * 10 s, 30 s per write, 200 messages a second.
     */
    public static ChatLimits defaults() {
        return new ChatLimits(16, 64, 64 * 1024, Duration.ofSeconds(25), 4 * 1024 * 1024, Duration.ofSeconds(10),
                Duration.ofSeconds(30), 200);
    }

    /**
     * The defaults, overridden by {@code AW_WS_MAX_CONNECTIONS} (sockets per user), {@code AW_WS_MAX_SUBSCRIPTIONS}
     * (runs per socket) and {@code AW_WS_MAX_MESSAGES_PER_SECOND} (client messages per socket and second) when set.
     *
     * @throws IllegalArgumentException a value that is not a positive whole number (the server does not start)
     */
    public static ChatLimits fromEnvironment(java.util.Map<String, String> env) {
        ChatLimits l = defaults();
        l = l.withConnections(positive(env, "AW_WS_MAX_CONNECTIONS", l.maxConnectionsPerUser()));
        l = l.withSubscriptions(positive(env, "AW_WS_MAX_SUBSCRIPTIONS", l.maxSubscriptionsPerSocket()));
        return l.withMessagesPerSecond(positive(env, "AW_WS_MAX_MESSAGES_PER_SECOND", l.maxMessagesPerSecond()));
    }

    private static int positive(java.util.Map<String, String> env, String name, int fallback) {
        String v = env.get(name);
        if (v == null || v.isBlank()) {
            return fallback;
        }
        try {
            int n = Integer.parseInt(v.strip());
            if (n >= 1) {
                return n;
            }
        } catch (NumberFormatException e) {
            // below
        }
        throw new IllegalArgumentException(name + " must be a positive whole number");
    }

    public ChatLimits withSubscriptions(int perSocket) {
        return new ChatLimits(maxConnectionsPerUser, perSocket, maxMessageBytes, heartbeat, maxQueuedChars,
                slowConsumerGrace, writeTimeout, maxMessagesPerSecond);
    }

    public ChatLimits withMessagesPerSecond(int n) {
        return new ChatLimits(maxConnectionsPerUser, maxSubscriptionsPerSocket, maxMessageBytes, heartbeat,
                maxQueuedChars, slowConsumerGrace, writeTimeout, n);
    }

    public ChatLimits withConnections(int perUser) {
        return new ChatLimits(perUser, maxSubscriptionsPerSocket, maxMessageBytes, heartbeat, maxQueuedChars,
                slowConsumerGrace, writeTimeout, maxMessagesPerSecond);
    }

    public ChatLimits withHeartbeat(Duration every) {
        return new ChatLimits(maxConnectionsPerUser, maxSubscriptionsPerSocket, maxMessageBytes, every, maxQueuedChars,
                slowConsumerGrace, writeTimeout, maxMessagesPerSecond);
    }

    public ChatLimits withQueue(int chars, Duration grace) {
        return new ChatLimits(maxConnectionsPerUser, maxSubscriptionsPerSocket, maxMessageBytes, heartbeat, chars,
                grace, writeTimeout, maxMessagesPerSecond);
    }

    public ChatLimits withWriteTimeout(Duration d) {
        return new ChatLimits(maxConnectionsPerUser, maxSubscriptionsPerSocket, maxMessageBytes, heartbeat,
                maxQueuedChars, slowConsumerGrace, d, maxMessagesPerSecond);
    }
}
