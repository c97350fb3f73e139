package org.agentworkspace.core.runs;

import java.security.SecureRandom;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import org.agentworkspace.core.store.Dialect;
import org.agentworkspace.core.store.Store;

/**
 * Per-account caps on open connections that hold across the nodes of one PostgreSQL store (docs/scale-out.md
 * "Shared limits"): the server's cap on open SSE/NDJSON streams ({@code TOO_MANY_STREAMS}) counts the account's
 * streams on every live node, not only its own.
 *
 * <p>Each open connection is a row of {@code open_streams} with the node that holds it. Opening one counts the
 * account's rows of live nodes and inserts the new row in one transaction that first takes a transaction-scoped
 * advisory lock on the account (so two nodes never both take the last place); closing deletes the row. Rows of a
 * node that died are not counted once its lease expired, and are deleted by any node after its heartbeat; a node
 * that starts deletes the rows its previous process left.
 *
 * <p>On SQLite (one node) {@link #shared()} is false and nothing is stored: the server counts in memory alone.
 */
public final class OpenStreams {
    private static final System.Logger LOG = System.getLogger(OpenStreams.class.getName());
    /** The first half of the advisory lock key of an account's places ("aw_s"); the account id is the second. */
    private static final int LOCK_CLASS = 0x6177_5f73;
    private static final String LIVE = "(s.node_id = :me OR EXISTS (SELECT 1 FROM nodes n WHERE n.id = s.node_id AND "
            + "n.heartbeat_at >= CAST(EXTRACT(EPOCH FROM clock_timestamp()) * 1000 AS BIGINT) - :lease))";

    private final Store store;
    private final NodeLease lease;
    private final boolean shared;
    private final SecureRandom random = new SecureRandom();
    /** Rows whose delete failed (the store was unreachable): retried after the next heartbeat. */
    private final Set<String> undeleted = ConcurrentHashMap.newKeySet();

    OpenStreams(Store store, NodeLease lease) {
        this.store = store;
        this.lease = lease;
        this.shared = store.dialect() == Dialect.POSTGRESQL;
    }

    /** Whether the caps are counted in the store (PostgreSQL: several nodes may serve it). */
    public boolean shared() {
        return shared;
    }

    /**
     * Takes one of the account's {@code cap} places of this kind, counted over every live node.
     *
     * @param kind what is counted ({@code stream}: SSE and NDJSON streams); each kind has its own cap
     * @return the place's id (give it to {@link #close}), or empty when the account already holds {@code cap}
     * @throws IllegalStateException on SQLite ({@link #shared()} is false)
     */
    public Optional<String> open(String kind, long accountId, int cap) {
        if (!shared) {
            throw new IllegalStateException("open streams are counted in the store only when it is shared");
        }
        String id = "str_" + Long.toString(random.nextLong() & Long.MAX_VALUE, 36);
        boolean taken = store.write(h -> {
            h.execute("SELECT pg_advisory_xact_lock(?, ?)", LOCK_CLASS, (int) (accountId ^ (accountId >>> 32)));
            int open = h.createQuery("SELECT count(*) FROM open_streams s WHERE s.account_id = :a AND s.kind = :k AND "
                            + LIVE)
                    .bind("a", accountId).bind("k", kind).bind("me", lease.id())
                    .bind("lease", NodeLease.LEASE.toMillis()).mapTo(Integer.class).one();
            if (open >= cap) {
                return false;
            }
            h.createUpdate("INSERT INTO open_streams (id, kind, account_id, node_id, opened_at) VALUES (:id, :k, :a, "
                            + ":me, CAST(EXTRACT(EPOCH FROM clock_timestamp()) * 1000 AS BIGINT))")
                    .bind("id", id).bind("k", kind).bind("a", accountId).bind("me", lease.id()).execute();
            return true;
        });
        return taken ? Optional.of(id) : Optional.empty();
    }

    /** Gives a place back. Never throws: a delete that fails is retried after the next heartbeat. */
    public void close(String id) {
        try {
            store.write(h -> h.createUpdate("DELETE FROM open_streams WHERE id = :id").bind("id", id).execute());
        } catch (RuntimeException e) {
            undeleted.add(id);
            LOG.log(System.Logger.Level.WARNING, "could not give back an open stream's place; retrying later: " + e);
        }
    }

    /** How many places of this kind the account holds on live nodes (for tests and diagnostics). */
    public int count(String kind, long accountId) {
        if (!shared) {
            return 0;
        }
        return store.read(h -> h.createQuery("SELECT count(*) FROM open_streams s WHERE s.account_id = :a AND s.kind "
                        + "= :k AND " + LIVE)
                .bind("a", accountId).bind("k", kind).bind("me", lease.id()).bind("lease", NodeLease.LEASE.toMillis())
                .mapTo(Integer.class).one());
    }

    /** At this node's start: its previous process's connections are gone. */
    void forgetOwn() {
        if (shared) {
            store.write(h -> h.createUpdate("DELETE FROM open_streams WHERE node_id = :me").bind("me", lease.id())
                    .execute());
        }
    }

    /** After a heartbeat: deletes rows of dead nodes and retries failed deletes. */
    void sweep() {
        if (!shared) {
            return;
        }
        for (String id : Set.copyOf(undeleted)) {
            undeleted.remove(id);
            close(id);
        }
        store.write(h -> h.createUpdate("DELETE FROM open_streams s WHERE NOT " + LIVE).bind("me", lease.id())
                .bind("lease", NodeLease.LEASE.toMillis()).execute());
    }
}
