package org.agentworkspace.server.http;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;

import org.agentworkspace.api.Principal;
import org.agentworkspace.api.WorkspaceException;
import org.agentworkspace.core.runs.OpenStreams;

/**
 * The per-account cap on open streams (SSE and NDJSON answers that stay open: {@code GET /api/events}, run event
 * streams, {@code POST /api/agent} with {@code stream}, install and update streams), as {@code /ws} caps its
 * sockets. A route takes a {@link Slot} before it writes anything, so a refusal is an ordinary 429
 * {@code TOO_MANY_STREAMS} answer with {@code Retry-After}; the slot is given back when the stream ends.
 *
 * <p>On a store shared by several nodes (PostgreSQL) the cap counts the account's streams on every live node: a slot
 * is also a row of the store's open streams ({@link OpenStreams}), taken after this node's own count allows it. On
 * SQLite the count is this process's alone, in memory, as it always was.
 */
public final class StreamLimiter {
    /** 429: the account already holds the maximum of open streams. */
    public static final String TOO_MANY_STREAMS = "TOO_MANY_STREAMS";

    /** The kind of the store's rows for these streams. */
    static final String KIND = "stream";

    private final int perAccount;
    private final ConcurrentHashMap<Long, Integer> open = new ConcurrentHashMap<>();
    /** The store's count over every node; null on a store of one node. */
    private final OpenStreams shared;

    public StreamLimiter(int perAccount) {
        this(perAccount, null);
    }

    /** A cap that also counts the account's streams on the other nodes of a shared store (when it is shared). */
    public StreamLimiter(int perAccount, OpenStreams everyNode) {
        if (perAccount < 1) {
            throw new IllegalArgumentException("the stream cap must be at least 1");
        }
        this.perAccount = perAccount;
        this.shared = everyNode != null && everyNode.shared() ? everyNode : null;
    }

    public int perAccount() {
        return perAccount;
    }

    /**
     * The store's count of open connections over every node when the store is shared (PostgreSQL), else null: the
     * {@code /ws} and {@code /shell} caps count their sockets with it too.
     */
    public OpenStreams everyNode() {
        return shared;
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
            throw tooMany();
        }
        if (shared == null) {
            return new Slot(user, null);
        }
        java.util.Optional<String> place;
        try {
            place = shared.open(KIND, user, perAccount);
        } catch (RuntimeException e) {
            release(user);
            throw e;
        }
        if (place.isEmpty()) {
            release(user);
            throw tooMany();
        }
        return new Slot(user, place.get());
    }

    private WorkspaceException.RateLimited tooMany() {
        return new WorkspaceException.RateLimited(TOO_MANY_STREAMS, "this account already holds " + perAccount
                + " open streams; close one first", 5);
    }

    private void release(long user) {
        open.computeIfPresent(user, (k, n) -> n <= 1 ? null : n - 1);
    }

    /** One open stream; {@link #close} gives the slot back (once). */
    public final class Slot implements AutoCloseable {
        private final long user;
        /** The store's row of this stream (shared store), or null. */
        private final String place;
        private final AtomicBoolean closed = new AtomicBoolean();

        private Slot(long user, String place) {
            this.user = user;
            this.place = place;
        }

        @Override
        public void close() {
            if (closed.compareAndSet(false, true)) {
                release(user);
                if (place != null) {
                    shared.close(place);
                }
            }
        }
    }
}
