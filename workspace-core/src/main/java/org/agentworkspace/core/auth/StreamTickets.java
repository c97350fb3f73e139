package org.agentworkspace.core.auth;

import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

import org.agentworkspace.api.ErrorCodes;
import org.agentworkspace.api.Principal;
import org.agentworkspace.api.Scope;
import org.agentworkspace.api.WorkspaceException;
import org.agentworkspace.core.store.Store;

/**
 * One-shot tickets that let a browser open an SSE stream or a WebSocket without putting a reusable credential in
 * the URL. A ticket is 256 random bits, lives {@code ticketLifetime} (30 s by default), is bound to the principal
 * that minted it (its user, and its key when a key minted it, with that key's scopes), and is consumed by an
 * atomic {@code DELETE … RETURNING}: of any number of concurrent redemptions exactly one succeeds. Only digests
 * are stored.
 */
public final class StreamTickets {
    private static final Pattern FORMAT = Pattern.compile("st_[A-Za-z0-9_-]{43}");

    private final Store store;
    private final Accounts accounts;
    private final ApiKeys keys;
    private final Clock clock;
    private final Duration lifetime;
    private final int maxOutstanding;
    private final SecureRandom random = new SecureRandom();

    StreamTickets(Store store, Accounts accounts, ApiKeys keys, Clock clock, Duration lifetime, int maxOutstanding) {
        this.store = store;
        this.accounts = accounts;
        this.keys = keys;
        this.clock = clock;
        this.lifetime = lifetime;
        this.maxOutstanding = maxOutstanding;
    }

    /** A minted ticket: its value (shown once) and when it expires. */
    public record Ticket(String value, Instant expiresAt) {
    }

    /** Mints a ticket for the principal; 429 when it already holds the maximum of unredeemed tickets. */
    public Ticket issue(Principal principal) {
        byte[] bytes = new byte[32];
        random.nextBytes(bytes);
        String value = "st_" + Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
        long now = clock.millis();
        long expires = now + lifetime.toMillis();
        store.write(h -> {
            h.createUpdate("DELETE FROM stream_tickets WHERE expires_at <= :now").bind("now", now).execute();
            int outstanding = h.createQuery("SELECT COUNT(*) FROM stream_tickets WHERE user_id = :u")
                    .bind("u", principal.user().id()).mapTo(Integer.class).one();
            if (outstanding >= maxOutstanding) {
                throw new WorkspaceException.RateLimited("too many unredeemed stream tickets",
                        lifetime.toSeconds());
            }
            h.createUpdate("INSERT INTO stream_tickets (digest, user_id, api_key_id, scopes, expires_at, created_at) "
                            + "VALUES (:d, :u, :k, :s, :e, :t)")
                    .bind("d", ApiKeys.digest(value)).bind("u", principal.user().id())
                    .bind("k", principal.apiKeyId()).bind("s", ApiKeys.encode(principal.scopes()))
                    .bind("e", expires).bind("t", now).execute();
            return null;
        });
        return new Ticket(value, Instant.ofEpochMilli(expires));
    }

    /**
     * Redeems a ticket: consumes it whatever the outcome, and returns the principal it stands for while it is
     * unexpired, its user exists and (for key-minted tickets) its key is still active.
     */
    public Optional<Principal> redeem(String value) {
        if (value == null || !FORMAT.matcher(value).matches()) {
            return Optional.empty();
        }
        record Row(long userId, Long keyId, Set<Scope> scopes, long expiresAt) {
        }
        Optional<Row> row = store.write(h -> h.createQuery("DELETE FROM stream_tickets WHERE digest = :d "
                        + "RETURNING user_id, api_key_id, scopes, expires_at")
                .bind("d", ApiKeys.digest(value))
                .map((rs, ctx) -> {
                    long keyId = rs.getLong("api_key_id");
                    Long key = rs.wasNull() ? null : keyId;
                    return new Row(rs.getLong("user_id"), key, ApiKeys.decode(rs.getString("scopes")),
                            rs.getLong("expires_at"));
                })
                .findOne());
        if (row.isEmpty() || row.get().expiresAt() <= clock.millis()) {
            return Optional.empty();
        }
        Row r = row.get();
        if (r.keyId() != null && !keys.isActive(r.keyId())) {
            return Optional.empty();
        }
        return accounts.find(r.userId()).map(user -> new Principal(user,
                r.keyId() == null ? Principal.Kind.SESSION : Principal.Kind.API_KEY, r.keyId(), r.scopes()));
    }

    /** The error for a missing, used, expired or foreign ticket. */
    public static WorkspaceException invalid() {
        return new WorkspaceException.Unauthenticated(ErrorCodes.INVALID_STREAM_TICKET,
                "the stream ticket is invalid, expired or already used");
    }
}
