package org.agentworkspace.core.runs;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicInteger;

import org.agentworkspace.core.store.Dialect;
import org.agentworkspace.core.store.Store;

/**
 * This node's row in {@code nodes} and its lease (docs/scale-out.md "Ownership"). On a shared (PostgreSQL) store a
 * supervised worker writes the heartbeat every {@link #HEARTBEAT} from the database's own clock, so the hosts'
 * clocks never matter; a node whose heartbeat is older than {@link #LEASE} is dead, and any live node settles its
 * unfinished runs ({@code failed}, reason {@link #NODE_LOST}). On SQLite (one node) the row is written once and no
 * worker runs.
 */
final class NodeLease implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(NodeLease.class.getName());
    /** The reason of a run settled because its node died. */
    static final String NODE_LOST = "node_lost";
    /** How often the heartbeat is written (and dead nodes' runs are looked for). */
    static final Duration HEARTBEAT = Duration.ofSeconds(5);
    /** A node without a heartbeat for this long is dead. */
    static final Duration LEASE = Duration.ofSeconds(30);
    /** Restarts of the worker within {@link #RESTART_WINDOW} after which it gives up (the watchdog ends the process). */
    private static final int MAX_RESTARTS = 5;
    private static final Duration RESTART_WINDOW = Duration.ofMinutes(10);

    private final Store store;
    private final RunNode node;
    private final Clock clock;
    private final boolean shared;
    private final ArrayDeque<Long> recentRestarts = new ArrayDeque<>();
    private final AtomicInteger restarts = new AtomicInteger();
    private volatile Thread worker;
    private volatile boolean closed;
    private volatile boolean gaveUp;
    /** System.nanoTime() of the last heartbeat that reached the store. */
    private volatile long lastBeat = System.nanoTime();

    NodeLease(Store store, RunNode node, Clock clock) {
        this.store = store;
        this.node = node;
        this.clock = clock;
        this.shared = store.dialect() == Dialect.POSTGRESQL;
    }

    /** Whether several nodes may serve this store (PostgreSQL): leases and sweeps apply only then. */
    boolean shared() {
        return shared;
    }

    String id() {
        return node.id();
    }

    /** The store's "now" in epoch milliseconds as SQL: the database's clock on PostgreSQL, bound {@code :now} else. */
    private String now() {
        return shared ? "CAST(EXTRACT(EPOCH FROM clock_timestamp()) * 1000 AS BIGINT)" : ":now";
    }

    /** Binds {@code :now} when {@link #now()} names it (SQLite). */
    <S extends org.jdbi.v3.core.statement.SqlStatement<S>> S withNow(S statement) {
        return shared ? statement : statement.bind("now", clock.millis());
    }

    /** Writes (or rewrites, after a restart) this node's row with a fresh heartbeat. */
    void register() {
        long pid = ProcessHandle.current().pid();
        store.write(h -> withNow(h.createUpdate("INSERT INTO nodes (id, host, pid, started_at, heartbeat_at, stopped_at) "
                        + "VALUES (:id, :host, :pid, " + now() + ", " + now() + ", NULL) ON CONFLICT (id) DO UPDATE "
                        + "SET host = excluded.host, pid = excluded.pid, started_at = excluded.started_at, "
                        + "heartbeat_at = excluded.heartbeat_at, stopped_at = NULL"))
                .bind("id", node.id()).bind("host", node.host()).bind("pid", pid)
                .execute());
        lastBeat = System.nanoTime();
    }

    /** One heartbeat; re-registers when the row is gone. */
    void beat() {
        int n = store.write(h -> withNow(h.createUpdate("UPDATE nodes SET heartbeat_at = " + now() + " WHERE id = :id"))
                .bind("id", node.id()).execute());
        if (n == 0) {
            register();
        }
        lastBeat = System.nanoTime();
    }

    /** How long ago this node's heartbeat last reached the store. */
    Duration sinceLastBeat() {
        return Duration.ofNanos(System.nanoTime() - lastBeat);
    }

    /**
     * The unfinished runs whose node is not this one and has no heartbeat within the lease (or no row at all), with
     * that node's id and the run's status. Runs without a node (stored before V020) are not included: the starting
     * node recovers those.
     */
    List<String[]> lostRuns() {
        return store.read(h -> withNow(h.createQuery("SELECT r.id, r.node_id, r.status FROM runs r "
                        + "WHERE r.status IN ('queued', 'running') AND r.node_id IS NOT NULL AND r.node_id <> :me "
                        + "AND NOT EXISTS (SELECT 1 FROM nodes n WHERE n.id = r.node_id AND n.heartbeat_at >= "
                        + now() + " - :lease) ORDER BY r.id"))
                .bind("me", node.id()).bind("lease", LEASE.toMillis())
                .map((rs, ctx) -> new String[] {rs.getString(1), rs.getString(2), rs.getString(3)}).list());
    }

    /**
     * How long node {@code nodeId} has sent no heartbeat, by the store's clock; empty when it has no row (a node
     * that never registered, or whose row was removed: as dead as it gets).
     */
    java.util.Optional<Duration> silence(String nodeId) {
        return store.read(h -> withNow(h.createQuery("SELECT " + now() + " - heartbeat_at FROM nodes WHERE id = :id"))
                .bind("id", nodeId).mapTo(Long.class).findOne()).map(ms -> Duration.ofMillis(Math.max(0, ms)));
    }

    /** The host a node last registered from ("unknown" when it has no row). */
    String hostOf(String nodeId) {
        return store.read(h -> h.createQuery("SELECT host FROM nodes WHERE id = :id").bind("id", nodeId)
                .mapTo(String.class).findOne()).orElse("unknown");
    }

    /** The SQL condition "node {@code :node} has no heartbeat within the lease", for a conditional settle. */
    String deadCondition() {
        return "NOT EXISTS (SELECT 1 FROM nodes n WHERE n.id = :node AND n.heartbeat_at >= " + now() + " - :lease)";
    }

    /** Starts the heartbeat worker (shared stores only): {@code beat} every {@link #HEARTBEAT}, then {@code after}. */
    void start(Runnable after) {
        if (!shared) {
            return;
        }
        Objects.requireNonNull(after, "after");
        worker = Thread.ofPlatform().daemon().name("aw-node-heartbeat").start(() -> supervised(after));
    }

    /**
     * Whether the worker is fine: not needed (SQLite), running, or closed on purpose; false when it gave up after
     * {@link #MAX_RESTARTS} restarts within {@link #RESTART_WINDOW} (the server's watchdog then ends the process).
     */
    boolean healthy() {
        if (!shared || closed) {
            return true;
        }
        Thread t = worker;
        return t == null || (t.isAlive() && !gaveUp);
    }

    private void supervised(Runnable after) {
        while (!closed) {
            try {
                loop(after);
                return;
            } catch (OutOfMemoryError e) {
                gaveUp = true;
                throw e;
            } catch (Throwable e) {
                long now = System.nanoTime();
                boolean giveUp;
                synchronized (recentRestarts) {
                    recentRestarts.addLast(now);
                    while (!recentRestarts.isEmpty()
                            && now - recentRestarts.peekFirst() > RESTART_WINDOW.toNanos()) {
                        recentRestarts.removeFirst();
                    }
                    giveUp = recentRestarts.size() > MAX_RESTARTS;
                }
                if (giveUp) {
                    gaveUp = true;
                    LOG.log(System.Logger.Level.ERROR, "node heartbeat failed " + MAX_RESTARTS + " times within "
                            + RESTART_WINDOW.toMinutes() + " minutes; it stays stopped: " + e, e);
                    return;
                }
                LOG.log(System.Logger.Level.ERROR, "node heartbeat stopped by " + e + "; restarting it (restart "
                        + restarts.incrementAndGet() + ")", e);
                try {
                    Thread.sleep(1000);
                } catch (InterruptedException ie) {
                    return;
                }
            }
        }
    }

    private void loop(Runnable after) {
        while (!closed) {
            try {
                Thread.sleep(HEARTBEAT.toMillis());
            } catch (InterruptedException e) {
                return;
            }
            if (closed) {
                return;
            }
            try {
                beat();
            } catch (RuntimeException e) {
                // the store is unreachable: the next beat tries again; after() still runs (it may fence this node)
                LOG.log(System.Logger.Level.WARNING, "node heartbeat could not be written (last one "
                        + sinceLastBeat().toSeconds() + " s ago): " + e);
            }
            try {
                after.run();
            } catch (RuntimeException e) {
                LOG.log(System.Logger.Level.WARNING, "sweep for runs of dead nodes failed; retrying in " + HEARTBEAT,
                        e);
            }
        }
    }

    /** Stops the heartbeat worker only, as a killed process would (tests of a node's death). */
    void stopWorker() {
        closed = true;
        Thread t = worker;
        if (t != null) {
            t.interrupt();
            try {
                t.join(5000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** Stops the worker and marks the row stopped (its runs are settled by the engine's close before this). */
    @Override
    public void close() {
        closed = true;
        Thread t = worker;
        if (t != null) {
            t.interrupt();
            try {
                t.join(5000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        try {
            store.write(h -> withNow(h.createUpdate("UPDATE nodes SET stopped_at = " + now() + " WHERE id = :id"))
                    .bind("id", node.id()).execute());
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.DEBUG, "could not mark node " + node.id() + " stopped", e);
        }
    }
}
