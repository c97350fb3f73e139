package org.agentworkspace.server.http;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;

import org.agentworkspace.api.Principal;
import org.agentworkspace.api.WorkspaceException;

/**
 * The per-account cap on open streams (SSE and NDJSON answers that stay open: {@code GET /api/events}, run event
 * streams, {@code POST /api/agent} with {@code stream}, install and update streams), as {@code /ws} caps its
 * sockets. A route takes a {@link Slot} before it writes anything, so a refusal is an ordinary 429
 * {@code TOO_MANY_STREAMS} answer with {@code Retry-After}; the slot is given back when the stream ends.
 */
public final class StreamLimiter {
    /** 429: the account already holds the maximum of open streams. */
    public static final String TOO_MANY_STREAMS = "TOO_MANY_STREAMS";

    private final int perAccount;
    private final ConcurrentHashMap<Long, Integer> open = new ConcurrentHashMap<>();

    public StreamLimiter(int perAccount) {
        if (perAccount < 1) {
            throw new IllegalArgumentException("the stream cap must be at least 1");
        }
        this.perAccount = perAccount;
    }

    public int perAccount() {
        return perAccount;
    }

    /** Streams the account holds open now. */
    public int open(long userId) {
        return open.getOrDefault(userId, 0);
    }

    /**
     * Takes one of the account's stream slots.
     *
     * @throws WorkspaceException.RateLimited the account already holds {@link #perAccount()} streams
     */
    public Slot acquire(Principal principal) {
        long user = principal.user().id();
        boolean[] taken = {false};
        open.compute(user, (k, n) -> {
            int now = n == null ? 0 : n;
            if (now >= perAccount) {
                return n;
            }
            taken[0] = true;
            return now + 1;
        });
        if (!taken[0]) {
            throw new WorkspaceException.RateLimited(TOO_MANY_STREAMS, "this account already holds " + perAccount
                    + " open streams; close one first", 5);
        }
        return new Slot(user);
    }

    /** One open stream; {@link #close} gives the slot back (once). */
    public final class Slot implements AutoCloseable {
        private final long user;
        private final AtomicBoolean closed = new AtomicBoolean();

        private Slot(long user) {
            this.user = user;
        }

        @Override
        public void close() {
            if (closed.compareAndSet(false, true)) {
                open.computeIfPresent(user, (k, n) -> n <= 1 ? null : n - 1);
            }
        }
    }
}
