package org.agentworkspace.core.runs;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import org.agentworkspace.api.WorkspaceException;
import org.agentworkspace.core.store.Dialect;
import org.agentworkspace.core.store.Store;
import org.jdbi.v3.core.Handle;

/**
 * The run caps of a PostgreSQL store shared by several nodes (docs/scale-out.md "Shared limits"): the global limit,
 * the per-provider limits and the per-account caps on running and on queued runs count the runs of every live node,
 * read from the store, not one node's memory.
 *
 * <p>A run holds a slot from the commit that gives it one ({@code runs.admitted_at}) until its row is no longer
 * {@code queued} or {@code running}; runs of nodes whose lease expired do not count. Counting and claiming happen in
 * one transaction that first takes a transaction-scoped advisory lock ({@link #LOCK}), so two nodes never both take
 * the last slot; the lock is released by the commit, never held across a wait. A slot needs no giving back: the
 * terminal status that ends the run (written by its node, or by the sweep that settles a dead node's runs) is what
 * frees it, and a node's death frees its slots as soon as its lease expires.
 *
 * <p>When a run that held a slot ends, its node sends {@code NOTIFY aw_run_slots} after the commit; every node's
 * {@link RunWakeups} listener passes it on, and a node with runs waiting tries to admit them again at once. Its
 * heartbeat (every 5 s) tries again as well, for a notice that was lost.
 *
 * <p>On SQLite (one node) this class does nothing: the engine counts in memory as before.
 */
final class SharedAdmission {
    private static final System.Logger LOG = System.getLogger(SharedAdmission.class.getName());
    /** The notice sent when a run that held a slot has ended. */
    static final String CHANNEL = "aw_run_slots";
    /** The advisory lock key taken by every admission transaction ("aw_caps"). */
    static final long LOCK = 0x6177_5f63_6170_73L;
    private static final String NOW = "CAST(EXTRACT(EPOCH FROM clock_timestamp()) * 1000 AS BIGINT)";

    private final Store store;
    private final NodeLease lease;
    private final RunSettings settings;
    private final boolean shared;
    /** Runs of this node that were given a slot and have not ended. */
    private final Set<String> holding = ConcurrentHashMap.newKeySet();

    SharedAdmission(Store store, NodeLease lease, RunSettings settings) {
        this.store = store;
        this.lease = lease;
        this.settings = settings;
        this.shared = store.dialect() == Dialect.POSTGRESQL;
    }

    /** Whether the caps are counted in the store (PostgreSQL). */
    boolean shared() {
        return shared;
    }

    /** Running and queued runs of the live nodes, as the store has them now (under the lock). */
    private static final class Counts {
        int admitted;
        final Map<String, Integer> byProvider = new HashMap<>();
        final Map<String, Integer> byAccount = new HashMap<>();
        int queuedOfAccount;

        boolean allows(RunSettings s, String provider, String account) {
            return admitted < s.globalLimit()
                    && byProvider.getOrDefault(provider, 0) < s.limitFor(provider)
                    && (account == null || byAccount.getOrDefault(account, 0) < s.activeLimitPerAccount());
        }

        void take(String provider, String account) {
            admitted++;
            byProvider.merge(provider, 1, Integer::sum);
            if (account != null) {
                byAccount.merge(account, 1, Integer::sum);
            }
        }
    }

    /**
     * Takes the lock and reads the slots held by the runs of live nodes (this node counts as live: its own runs are
     * running here whatever its heartbeat says) and, for {@code account}, its waiting runs other than {@code except}.
     */
    private Counts count(Handle h, String account, String except) {
        h.execute("SELECT pg_advisory_xact_lock(" + LOCK + ")");
        Counts c = new Counts();
        h.createQuery("SELECT r.provider, r.charge_account, CASE WHEN r.admitted_at IS NOT NULL OR r.status = "
                        + "'running' THEN 1 ELSE 0 END FROM runs r WHERE r.status IN ('queued', 'running') AND r.id <> "
                        + ":except AND (r.admitted_at IS NOT NULL OR r.status = 'running' OR r.charge_account = "
                        + ":account) AND (r.node_id = :me OR EXISTS (SELECT 1 FROM nodes n WHERE n.id = r.node_id "
                        + "AND n.heartbeat_at >= " + NOW + " - :lease))")
                .bind("except", except == null ? "" : except).bind("account", account).bind("me", lease.id())
                .bind("lease", NodeLease.LEASE.toMillis())
                .map((rs, ctx) -> {
                    String provider = rs.getString(1);
                    String acct = rs.getString(2);
                    if (rs.getInt(3) == 1) {
                        c.take(provider, acct);
                    } else if (acct != null && acct.equals(account)) {
                        c.queuedOfAccount++;
                    }
                    return null;
                }).list();
        return c;
    }

    /**
     * Gives the slots; only to runs still this node's (a run another node took over while this node's lease had
     * expired stays with that node, docs/scale-out.md "Ownership").
     *
     * @return the ids that got a slot
     */
    private Set<String> claim(Handle h, List<String> ids) {
        return Set.copyOf(h.createQuery("UPDATE runs SET admitted_at = " + NOW + " WHERE id IN (<ids>) AND status = "
                        + "'queued' AND admitted_at IS NULL AND node_id = :me RETURNING id")
                .bindList("ids", ids).bind("me", lease.id()).mapTo(String.class).list());
    }

    /**
     * In the transaction that stores a new run (after its row is inserted): charges it to its account, refuses it
     * when it would wait and its account already has {@link RunSettings#maxQueuedPerAccount()} runs waiting on all
     * nodes (the transaction is rolled back), and gives it a slot at once when {@code mayStart} (nothing waits before
     * it on this node) and the shared limits allow.
     *
     * @return whether the run holds a slot and may start now
     */
    boolean onInsert(Handle h, String runId, RunRequest request, boolean mayStart) {
        String account = request.account();
        Counts c = count(h, account, runId);
        boolean starts = mayStart && c.allows(settings, request.provider(), account);
        if (account != null && !starts && c.queuedOfAccount >= settings.maxQueuedPerAccount()) {
            throw new WorkspaceException.RateLimited(RunEngine.TOO_MANY_QUEUED_RUNS, "this account already has "
                    + settings.maxQueuedPerAccount() + " runs waiting to start; wait for them or cancel some", 5);
        }
        if (account != null || starts) {
            // one statement: the charge and, when it starts now, the slot
            h.createUpdate("UPDATE runs SET charge_account = :a, admitted_at = CASE WHEN :starts THEN " + NOW
                            + " END WHERE id = :id")
                    .bind("a", account).bind("starts", starts).bind("id", runId).execute();
        }
        return starts;
    }

    /** After the commit that gave {@code runId} a slot: its end must tell the other nodes. */
    void holds(String runId) {
        holding.add(runId);
    }

    /**
     * Gives slots to waiting runs of this node, first come first served (a provider or an account at its limit does
     * not hold up others behind it), in one transaction.
     *
     * @return the runs that now hold a slot, in queue order
     */
    List<ActiveRun> admit(List<ActiveRun> waiting) {
        if (waiting.isEmpty()) {
            return List.of();
        }
        List<ActiveRun> admitted = store.write(h -> {
            Counts c = count(h, null, null);
            List<ActiveRun> picked = new ArrayList<>();
            for (ActiveRun r : waiting) {
                if (c.admitted >= settings.globalLimit()) {
                    break;
                }
                if (c.allows(settings, r.provider(), r.account())) {
                    c.take(r.provider(), r.account());
                    picked.add(r);
                }
            }
            if (!picked.isEmpty()) {
                Set<String> claimed = claim(h, picked.stream().map(r -> r.id).toList());
                picked.removeIf(r -> !claimed.contains(r.id));
            }
            return picked;
        });
        for (ActiveRun r : admitted) {
            holding.add(r.id);
        }
        return admitted;
    }

    /**
     * A run's terminal status is committed: when it held a slot, tells every node (itself included) that a slot is
     * free. Returns whether it held one.
     */
    boolean ended(String runId) {
        if (!holding.remove(runId)) {
            return false;
        }
        try {
            store.read(h -> h.execute("SELECT pg_notify(?, '')", CHANNEL));
        } catch (RuntimeException e) {
            // the other nodes' heartbeats try again within 5 s
            LOG.log(System.Logger.Level.WARNING, "could not tell the other nodes that a run slot is free: " + e);
        }
        return true;
    }
}
