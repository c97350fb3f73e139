package org.agentworkspace.api.vcs;

import java.util.Objects;

/**
 * A user name and token for HTTPS git remotes (for GitHub any non-empty user name works with a personal access
 * token). They are handed to the transport only when the remote asks and the remote's origin is allowed by
 * {@link VcsOptions#credentialOrigins()}; they are never written to the repository's configuration and never
 * appear in a message. {@link #toString()} hides the token.
 */
public record GitCredentials(String username, String token) {
    public GitCredentials {
        Objects.requireNonNull(username, "username");
        Objects.requireNonNull(token, "token");
        if (username.isBlank() || token.isBlank()) {
            throw new IllegalArgumentException("username and token must not be blank");
        }
    }

    @Override
    public String toString() {
        return "GitCredentials[username=" + username + ", token=***]";
    }
}
