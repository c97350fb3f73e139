package org.agentworkspace.core.providers;

import java.util.Optional;

/**
 * Where an MCP server entry lives: {@code user} (the CLI's user-level file, every project) or {@code local} (one
 * project; the request names a registered project).
 */
public enum McpScope {
    LOCAL("local"), USER("user");

    private final String wire;

    McpScope(String wire) {
        this.wire = wire;
    }

    public String wire() {
        return wire;
    }

    public static Optional<McpScope> parse(String s) {
        for (McpScope v : values()) {
            if (v.wire.equals(s)) {
                return Optional.of(v);
            }
        }
        return Optional.empty();
    }
}
