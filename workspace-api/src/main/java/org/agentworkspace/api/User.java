package org.agentworkspace.api;

import java.time.Instant;
import java.util.Objects;

/**
 * An account. {@code admin} is true for the first user created at setup and for users an administrator creates as
 * such.
 */
public record User(long id, String username, String email, Instant createdAt, boolean admin) {
    public User {
        Objects.requireNonNull(username, "username");
        Objects.requireNonNull(createdAt, "createdAt");
    }
}
