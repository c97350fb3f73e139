package org.agentworkspace.core.runs;

import java.security.SecureRandom;

/**
 * Who executes runs: a node's id (stable across its restarts, so a restarted node recognises its own runs) and
 * its host name.
 */
public record RunNode(String id, String host) {
    public RunNode {
        if (id == null || !id.matches("[A-Za-z0-9_.-]{1,64}")) {
            throw new IllegalArgumentException("a node id is 1..64 letters, digits, '_', '.', '-'");
        }
        host = host == null || host.isBlank() ? "unknown" : host;
    }

    /** A node id of its own for this engine only (an embedder without a data directory, tests). */
    public static RunNode ephemeral() {
        return new RunNode("node_" + Long.toString(new SecureRandom().nextLong() & Long.MAX_VALUE, 36), localHost());
    }

    /** This machine's host name, "unknown" when it cannot be found. */
    public static String localHost() {
        try {
            return java.net.InetAddress.getLocalHost().getHostName();
        } catch (java.io.IOException | RuntimeException e) {
            return System.getenv().getOrDefault("HOSTNAME", "unknown");
        }
    }
}
