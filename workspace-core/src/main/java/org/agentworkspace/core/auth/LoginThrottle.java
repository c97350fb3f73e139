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
 * <p>{@link #begin} counts an attempt as a failure before the password is hashed, in the same transaction as the
 * check (on PostgreSQL under a transaction lock per subject), and {@link #succeeded} takes it back: so parallel
 * attempts cannot all pass the check before the first failure is stored.
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

    /** An attempt {@link #begin} counted: its rows, taken back by {@link #succeeded}. */
    public record Attempt(String username, long accountRow, long clientRow) {
    }

    /**
     * Checks the account and the client and, when neither is locked out, counts this attempt as a failure at once
     * (one transaction). Throws {@link WorkspaceException.RateLimited} when locked out (nothing is counted then).
     */
    public Attempt begin(String username, String client) {
        long now = clock.millis();
        String account = accountKey(username);
        String address = clientKey(client);
        long[] rows = store.write(h -> {
            if (store.dialect() == org.agentworkspace.core.store.Dialect.POSTGRESQL) {
                // concurrent attempts on one account or address wait for each other's count
                // (the account's lock first, then the address's: one order for everyone, no deadlock)
                h.createQuery("SELECT pg_advisory_xact_lock(hashtext(:a)) AS account_lock, "
                                + "pg_advisory_xact_lock(hashtext(:c)) AS client_lock")
                        .bind("a", "login:account:" + account).bind("c", "login:client:" + address).mapToMap().list();
            }
            long wait = Math.max(waitMs(h, ACCOUNT, account, accountLimit, now),
                    waitMs(h, CLIENT, address, clientLimit, now));
            if (wait > 0) {
                throw new WorkspaceException.RateLimited("too many failed logins; try again later",
                        (wait + 999) / 1000);
            }
            h.createUpdate("DELETE FROM login_failures WHERE failed_at <= :before")
                    .bind("before", now - windowMs).execute();
            return new long[] {insertReturningId(h, ACCOUNT, account, now), insertReturningId(h, CLIENT, address, now)};
        });
        return new Attempt(username, rows[0], rows[1]);
    }

    /** The attempt succeeded: its client row is taken back and the account's failures cleared. */
    public void succeeded(Attempt attempt) {
        store.write(h -> {
            h.createUpdate("DELETE FROM login_failures WHERE id = :c").bind("c", attempt.clientRow()).execute();
            h.createUpdate("DELETE FROM login_failures WHERE kind = :k AND subject = :s")
                    .bind("k", ACCOUNT).bind("s", accountKey(attempt.username())).execute();
            return null;
        });
    }

    private static long insertReturningId(Handle h, String kind, String subject, long now) {
        return h.createUpdate("INSERT INTO login_failures (kind, subject, failed_at) VALUES (:k, :s, :t)")
                .bind("k", kind).bind("s", subject).bind("t", now)
                .executeAndReturnGeneratedKeys("id").mapTo(Long.class).one();
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

    private static String accountKey(String username) {
        return ApiKeys.digest(username == null ? "" : Accounts.key(username));
    }

    private static String clientKey(String client) {
        return ApiKeys.digest(client == null ? "" : client);
    }
}
