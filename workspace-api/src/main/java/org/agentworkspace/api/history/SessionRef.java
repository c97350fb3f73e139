package org.agentworkspace.api.history;

import java.util.Objects;

/** Identifies one CLI session: the provider and the provider's own (native) session id. */
public record SessionRef(String provider, String sessionId) {
    public SessionRef {
        Objects.requireNonNull(provider, "provider");
        Objects.requireNonNull(sessionId, "sessionId");
    }
}
