package org.agentworkspace.core.runs;

import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.agentworkspace.api.ErrorCodes;
import org.agentworkspace.api.WorkspaceException;
import org.agentworkspace.core.store.Store;
import org.jdbi.v3.core.Handle;

/**
 * Requests for a run made on a node that does not run it: cancel, stdin writes, and the kinds other components
 * register (a permission answer, an abort that first denies open permission requests). docs/scale-out.md "Control
 * from any node".
 *
 * <p>The requesting node stores a row in {@code run_requests} for the run's node and, in the same transaction, sends
 * {@code node:<id>} on {@link RunWakeups#SIGNALS}. That node's worker (thread {@code aw-run-requests}) is woken by the
 * notice, or finds the row at the latest one {@link NodeLease#HEARTBEAT} later; it takes the row with a conditional
 * update ({@code pending → taken}), carries the request out through the same code as a local call, and stores the
 * outcome ({@code done} and a result, or {@code refused} and the error) with a {@code req:<id>} notice in the same
 * transaction. The requester, woken by that notice, reads the outcome and deletes the row. A request nobody took
 * within the requester's bound is deleted while still {@code pending} (one conditional delete, so it either was
 * taken and is answered, or is never carried out late). On SQLite (one node) nothing here runs.
 */
final class RunRequests implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(RunRequests.class.getName());
    static final String CANCEL = "cancel";
    static final String WRITE = "stdin";
    static final String CLOSE_INPUT = "close-stdin";
    /** A node silent this long (over two heartbeats) is not expected to answer: its run is about to be settled. */
    static final Duration SILENT = NodeLease.HEARTBEAT.multipliedBy(2).plusSeconds(2);
    /** Rows older than this are removed by any node's worker (their requester died before deleting them). */
    private static final Duration KEEP = Duration.ofHours(1);

    /** What the run's node answered: {@code done} with its result, or {@code refused} with the error it threw. */
    record Answer(boolean done, String result) {
    }

    private final Store store;
    private final NodeLease lease;
    private final RunWakeups wakeups;
    private final Json json;
    private final Clock clock;
    private final Map<String, RunRequestHandler> handlers = new ConcurrentHashMap<>();
    private volatile boolean closed;
    private Thread worker;
    private long lastCleanup;

    RunRequests(Store store, NodeLease lease, RunWakeups wakeups, Json json, Clock clock) {
        this.store = store;
        this.lease = lease;
        this.wakeups = wakeups;
        this.json = json;
        this.clock = clock;
    }

    /** Registers (or replaces) the handler of a kind. */
    void handle(String kind, RunRequestHandler handler) {
        handlers.put(kind, handler);
    }

    Optional<RunRequestHandler> handler(String kind) {
        return Optional.ofNullable(handlers.get(kind));
    }

    /** Starts the worker that carries out requests for this node (PostgreSQL only). */
    void start() {
        if (!lease.shared()) {
            return;
        }
        worker = Thread.ofPlatform().daemon().name("aw-run-requests").start(this::serve);
    }

    /** Whether the worker is alive (always true where it is not needed). */
    boolean healthy() {
        Thread t = worker;
        return t == null || closed || t.isAlive();
    }

    // ---- the requesting node ----

    /**
     * Stores a request for node {@code nodeId} and waits up to {@code wait} for its answer.
     *
     * @return the answer, or empty when nobody took the request in time (it was withdrawn and will never be
     *         carried out)
     */
    Optional<Answer> send(String runId, String nodeId, String kind, String payload, Duration wait)
            throws InterruptedException {
        long id = store.write(h -> {
            long rid = h.createUpdate("INSERT INTO run_requests (run_id, node_id, kind, payload, state, created_at) "
                            + "VALUES (:run, :node, :kind, :payload, 'pending', :at)")
                    .bind("run", runId).bind("node", nodeId).bind("kind", kind).bind("payload", payload)
                    .bind("at", clock.millis()).executeAndReturnGeneratedKeys("id").mapTo(Long.class).one();
            signal(h, List.of("node:" + nodeId));
            return rid;
        });
        String key = "req:" + id;
        long deadline = System.nanoTime() + wait.toNanos();
        boolean withdrawn = false;
        try {
            while (true) {
                long seen = wakeups.generation(key);
                Optional<Answer> a = read(id);
                if (a.isPresent()) {
                    return a;
                }
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    if (!withdrawn) {
                        withdrawn = true;
                        int n = store.write(h -> h.createUpdate("DELETE FROM run_requests WHERE id = :id "
                                + "AND state = 'pending'").bind("id", id).execute());
                        if (n == 1) {
                            return Optional.empty();
                        }
                        // taken just now: its node is carrying it out; its answer is a moment away
                        deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
                        continue;
                    }
                    return Optional.empty();
                }
                // woken by the answer's notice; the poll is only the fallback for a lost notice
                wakeups.await(key, seen, Math.min(left, Duration.ofMillis(500).toNanos()));
            }
        } finally {
            try {
                store.write(h -> h.createUpdate("DELETE FROM run_requests WHERE id = :id AND state <> 'pending'")
                        .bind("id", id).execute());
            } catch (RuntimeException e) {
                LOG.log(System.Logger.Level.DEBUG, "could not remove answered run request " + id, e);
            }
        }
    }

    private Optional<Answer> read(long id) {
        return store.read(h -> h.createQuery("SELECT state, result FROM run_requests WHERE id = :id").bind("id", id)
                .map((rs, ctx) -> new String[] {rs.getString(1), rs.getString(2)}).findOne())
                .filter(r -> r[0].equals("done") || r[0].equals("refused"))
                .map(r -> new Answer(r[0].equals("done"), r[1]));
    }

    /** The error a refused request's node threw, as the same exception type, code and message. */
    WorkspaceException refusal(String result) {
        JsonNode n = json.tree(result == null ? "" : result);
        String type = n == null ? "" : n.path("type").asText("");
        String code = n == null ? ErrorCodes.INTERNAL_ERROR : n.path("code").asText(ErrorCodes.INTERNAL_ERROR);
        String message = n == null ? "the run's node could not carry out the request"
                : n.path("message").asText("the run's node could not carry out the request");
        return switch (type) {
            case "Validation" -> new WorkspaceException.Validation(code, message);
            case "NotFound" -> new WorkspaceException.NotFound(code, message);
            case "Conflict" -> new WorkspaceException.Conflict(code, message);
            case "Forbidden" -> new WorkspaceException.Forbidden(code, message);
            case "Gone" -> new WorkspaceException.Gone(code, message);
            case "RateLimited" -> new WorkspaceException.RateLimited(code, message, 1);
            default -> new WorkspaceException.Unavailable(code, message, null);
        };
    }

    // ---- the run's node ----

    private void serve() {
        String key = "node:" + lease.id();
        while (!closed) {
            try {
                long seen = wakeups.generation(key);
                serveOnce();
                cleanup();
                wakeups.await(key, seen, NodeLease.HEARTBEAT.toNanos());
            } catch (InterruptedException e) {
                return;
            } catch (OutOfMemoryError e) {
                throw e;
            } catch (Throwable e) {
                // supervised in place: a failing store or handler never ends the worker; it tries again
                if (closed) {
                    return;
                }
                LOG.log(System.Logger.Level.WARNING, "carrying out run requests of other nodes failed; retrying in "
                        + "1 s: " + e, e);
                try {
                    Thread.sleep(1000);
                } catch (InterruptedException ie) {
                    return;
                }
            }
        }
    }

    /** Carries out this node's pending requests, oldest first. */
    int serveOnce() {
        List<Object[]> rows = store.read(h -> h.createQuery("SELECT id, run_id, kind, payload FROM run_requests "
                        + "WHERE node_id = :me AND state = 'pending' ORDER BY id LIMIT 100")
                .bind("me", lease.id())
                .map((rs, ctx) -> new Object[] {rs.getLong(1), rs.getString(2), rs.getString(3), rs.getString(4)})
                .list());
        int n = 0;
        for (Object[] r : rows) {
            long id = (Long) r[0];
            int took = store.write(h -> h.createUpdate("UPDATE run_requests SET state = 'taken' WHERE id = :id "
                    + "AND state = 'pending'").bind("id", id).execute());
            if (took == 0) {
                continue; // withdrawn by its requester
            }
            String runId = (String) r[1];
            String kind = (String) r[2];
            String state;
            String result;
            try {
                RunRequestHandler h = handlers.get(kind);
                if (h == null) {
                    throw new WorkspaceException.Validation(ErrorCodes.VALIDATION_FAILED, "the run's node does not "
                            + "know requests of kind '" + kind + "' (is it an older version?)");
                }
                result = h.handle(runId, (String) r[3]);
                state = "done";
            } catch (WorkspaceException e) {
                state = "refused";
                ObjectNode o = json.object().put("type", e.getClass().getSimpleName()).put("code", e.code())
                        .put("message", e.getMessage());
                result = o.toString();
            } catch (RuntimeException e) {
                LOG.log(System.Logger.Level.WARNING, "request " + kind + " for run " + runId + " failed", e);
                state = "refused";
                result = json.object().put("type", "Unavailable").put("code", ErrorCodes.INTERNAL_ERROR)
                        .put("message", "the run's node could not carry out the request").toString();
            }
            String s = state;
            String res = result;
            store.write(h -> {
                h.createUpdate("UPDATE run_requests SET state = :s, result = :r, done_at = :at WHERE id = :id")
                        .bind("s", s).bind("r", res).bind("at", clock.millis()).bind("id", id).execute();
                signal(h, List.of("req:" + id));
                return null;
            });
            n++;
        }
        return n;
    }

    private void cleanup() {
        long now = System.nanoTime();
        if (now - lastCleanup < Duration.ofMinutes(10).toNanos() && lastCleanup != 0) {
            return;
        }
        lastCleanup = now;
        store.write(h -> h.createUpdate("DELETE FROM run_requests WHERE created_at < :before")
                .bind("before", clock.millis() - KEEP.toMillis()).execute());
    }

    private void signal(Handle h, List<String> keys) {
        try {
            RunWakeups.signal(h.getConnection(), store.dialect(), keys);
        } catch (SQLException e) {
            throw new IllegalStateException("the run request notice failed", e);
        }
    }

    @Override
    public void close() {
        closed = true;
        Thread t = worker;
        if (t != null) {
            t.interrupt();
            try {
                t.join(2000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
