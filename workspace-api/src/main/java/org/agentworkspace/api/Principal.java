package org.agentworkspace.api;

import java.util.Objects;
import java.util.Set;

/**
 * Who a request acts as, and with what rights.
 *
 * @param user     the account
 * @param kind     how the caller proved it
 * @param apiKeyId the key used, for {@link Kind#API_KEY} (and tickets minted by a key); otherwise {@code null}
 * @param scopes   what the credential allows; a session holds {@link Scope#all()}
 */
public record Principal(User user, Kind kind, Long apiKeyId, Set<Scope> scopes) {
    public Principal {
        Objects.requireNonNull(user, "user");
        Objects.requireNonNull(kind, "kind");
        scopes = Set.copyOf(scopes);
    }

    /** How a principal authenticated. */
    public enum Kind {
        /** A JWT from login, carried by the {@code token} cookie or a bearer header. */
        SESSION,
        /** An API key, carried by {@code X-API-Key} or a bearer header. */
        API_KEY
    }

    public boolean has(Scope scope) {
        return scopes.contains(scope);
    }
}
