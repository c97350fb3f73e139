package org.agentworkspace.api.provider;

import java.util.Optional;

/**
 * The built-in providers and their wire ids. {@link AgentProvider#id()} is a plain string so that a provider outside
 * this list (one {@code provides} line in another module) can exist; the built-ins use {@link #wireId()}.
 */
public enum ProviderId {
    CLAUDE("claude"),
    CURSOR("cursor"),
    CODEX("codex"),
    GEMINI("gemini"),
    QWEN("qwen"),
    OPENCODE("opencode"),
    /** The seventh provider, for runs only (no sessions to resume). */
    GROK("grok");

    private final String wireId;

    ProviderId(String wireId) {
        this.wireId = wireId;
    }

    /** The id used on the wire and in {@link AgentProvider#id()}, e.g. {@code "claude"}. */
    public String wireId() {
        return wireId;
    }

    /** The built-in provider with this wire id (exact, case-sensitive match). */
    public static Optional<ProviderId> find(String wireId) {
        if (wireId == null) {
            return Optional.empty();
        }
        for (ProviderId id : values()) {
            if (id.wireId.equals(wireId)) {
                return Optional.of(id);
            }
        }
        return Optional.empty();
    }

    @Override
    public String toString() {
        return wireId;
    }
}
