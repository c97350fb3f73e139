package org.agentworkspace.core.auth;

import java.time.Clock;
import java.time.Duration;
import java.util.Optional;

import org.jdbi.v3.core.Handle;

import org.agentworkspace.api.WorkspaceException;
import org.agentworkspace.core.store.Store;

/**
 * Slows password guessing: at most {@code accountLimit} failed logins per account and {@code clientLimit} per client
 * address within a sliding window. Once over, every attempt for that account or from that client gets 429 with the
 * seconds until enough failures have left the window — checked before the password is hashed, so a correct password
 * during a lockout is refused the same way (no oracle). Unknown accounts are counted exactly like known ones.
 *
 * <p>The failures are rows of the store ({@code login_failures}, subjects as SHA-256 digests), so servers sharing a
 * PostgreSQL store count them together and a restart does not reset a lockout. Rows older than the window are
 * deleted whenever a failure is recorded; the table holds at most the failures of one window, whose rate the
 * password hashing bounds.
 */
public final class LoginThrottle {
    private static final String ACCOUNT = "account";
    private static final String CLIENT = "client";

    private final Store store;
    private final Clock clock;
    private final int accountLimit;
    private final int clientLimit;
    private final long windowMs;

    LoginThrottle(Store store, Clock clock, int accountLimit, int clientLimit, Duration window) {
        if (accountLimit < 1 || clientLimit < 1 || window.isNegative() || window.isZero()) {
            throw new IllegalArgumentException("throttle limits must be positive");
        }
        this.store = store;
        this.clock = clock;
        this.accountLimit = accountLimit;
        this.clientLimit = clientLimit;
        this.windowMs = window.toMillis();
    }

    /** Throws {@link WorkspaceException.RateLimited} when the account or the client is locked out. */
    public void check(String username, String client) {
        long now = clock.millis();
        long wait = store.read(h -> Math.max(waitMs(h, ACCOUNT, accountKey(username), accountLimit, now),
                waitMs(h, CLIENT, clientKey(client), clientLimit, now)));
        if (wait > 0) {
            throw new WorkspaceException.RateLimited("too many failed logins; try again later",
                    (wait + 999) / 1000);
        }
    }

    public void recordFailure(String username, String client) {
        long now = clock.millis();
        store.write(h -> {
            h.createUpdate("DELETE FROM login_failures WHERE failed_at <= :before")
                    .bind("before", now - windowMs).execute();
            insert(h, ACCOUNT, accountKey(username), now);
            insert(h, CLIENT, clientKey(client), now);
            return null;
        });
    }

    /** A successful login clears the account's failures (the client's stay: it may be guessing other accounts). */
    public void recordSuccess(String username) {
        store.write(h -> h.createUpdate("DELETE FROM login_failures WHERE kind = :k AND subject = :s")
                .bind("k", ACCOUNT).bind("s", accountKey(username)).execute());
    }

    /**
     * How long until fewer than {@code limit} failures of the subject are inside the window: none while there are
     * fewer already, else until the {@code limit}-th newest one leaves it.
     */
    private long waitMs(Handle h, String kind, String subject, int limit, long now) {
        Optional<Long> limitth = h.createQuery("SELECT failed_at FROM login_failures WHERE kind = :k AND subject = :s "
                        + "AND failed_at > :since ORDER BY failed_at DESC LIMIT 1 OFFSET :o")
                .bind("k", kind).bind("s", subject).bind("since", now - windowMs).bind("o", limit - 1)
                .mapTo(Long.class).findOne();
        return limitth.map(at -> Math.max(1, at + windowMs - now)).orElse(0L);
    }

    private static void insert(Handle h, String kind, String subject, long now) {
        h.createUpdate("INSERT INTO login_failures (kind, subject, failed_at) VALUES (:k, :s, :t)")
                .bind("k", kind).bind("s", subject).bind("t", now).execute();
    }

    private static String accountKey(String username) {
        return ApiKeys.digest(username == null ? "" : Accounts.key(username));
    }

    private static String clientKey(String client) {
        return ApiKeys.digest(client == null ? "" : client);
    }
}
