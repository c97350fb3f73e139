package org.agentworkspace.api;

import java.time.Instant;
import java.util.Objects;
import java.util.Set;

/**
 * An API key as listed: the value is masked ({@code px_…abcd}) unless this is the creation response, the only time
 * the full value exists outside the caller.
 */
public record ApiKeyInfo(long id, String name, String value, Set<Scope> scopes, Instant createdAt, Instant lastUsed,
                         boolean active, boolean legacy) {
    public ApiKeyInfo {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(value, "value");
        scopes = Set.copyOf(scopes);
        Objects.requireNonNull(createdAt, "createdAt");
    }
}
