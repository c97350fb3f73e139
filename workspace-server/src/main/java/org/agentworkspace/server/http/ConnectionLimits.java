package org.agentworkspace.server.http;

import java.time.Duration;
import java.util.Objects;

/**
 * Limits on TCP connections, applied when a connection is accepted, before any byte of it is read
 * ({@link ConnectionGate}; docs/configuration.md "Connections").
 *
 * @param maxConnections       connections open at once, all clients together (default 1,000; never more than
 *                             three quarters of the process's file-descriptor limit)
 * @param maxPerAddress        connections open at once from one client address (default 256); a configured trusted
 *                             proxy is bound by {@code maxConnections} only
 * @param headTimeout          a new connection must deliver its first request head (request line and headers)
 *                             within this time, or it is closed (default 10 s)
 * @param idleTimeout          a keep-alive connection idle for this long between requests is closed (default 10 min)
 * @param maxStreamsPerAccount SSE and NDJSON streams one account may hold open at once, all routes together; one more
 *                             is refused with 429 {@code TOO_MANY_STREAMS} before it starts (default 16)
 */
public record ConnectionLimits(int maxConnections, int maxPerAddress, Duration headTimeout, Duration idleTimeout,
                               int maxStreamsPerAccount) {
    public ConnectionLimits {
        Objects.requireNonNull(headTimeout, "headTimeout");
        Objects.requireNonNull(idleTimeout, "idleTimeout");
        if (maxConnections < 1 || maxPerAddress < 1 || maxStreamsPerAccount < 1) {
            throw new IllegalArgumentException("max-connections, max-connections-per-address and "
                    + "max-streams-per-account must be at least 1");
        }
        if (headTimeout.isNegative() || headTimeout.isZero() || idleTimeout.isNegative() || idleTimeout.isZero()) {
            throw new IllegalArgumentException("the head and idle timeouts must be positive");
        }
    }

    public static ConnectionLimits defaults() {
        return new ConnectionLimits(1000, 256, Duration.ofSeconds(10), Duration.ofMinutes(10), 16);
    }

    public ConnectionLimits withMaxConnections(int n) {
        return new ConnectionLimits(n, maxPerAddress, headTimeout, idleTimeout, maxStreamsPerAccount);
    }

    public ConnectionLimits withMaxPerAddress(int n) {
        return new ConnectionLimits(maxConnections, n, headTimeout, idleTimeout, maxStreamsPerAccount);
    }

    public ConnectionLimits withHeadTimeout(Duration d) {
        return new ConnectionLimits(maxConnections, maxPerAddress, d, idleTimeout, maxStreamsPerAccount);
    }

    public ConnectionLimits withMaxStreamsPerAccount(int n) {
        return new ConnectionLimits(maxConnections, maxPerAddress, headTimeout, idleTimeout, n);
    }

    public ConnectionLimits withIdleTimeout(Duration d) {
        return new ConnectionLimits(maxConnections, maxPerAddress, headTimeout, d, maxStreamsPerAccount);
    }
}
