package org.agentworkspace.core.runs;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

import org.agentworkspace.core.store.Dialect;
import org.agentworkspace.core.store.Store;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.statement.Query;

/**
 * The run tables: synchronous run creation and reads, and one writer thread that appends log entries in batches.
 *
 * <p>The writer takes whatever is queued (at most {@code writeBatch} entries, waiting up to {@code writeLinger} for
 * more) and writes it in one transaction, together with the run row changes of the status entries in it; then it
 * publishes the batch to the runs' readers. While a transaction runs, new entries collect, so batches grow with the
 * load and SQLite's single writer is not asked for one transaction per line. The queue is bounded by weight: when
 * the store falls behind, the readers of child output block, and the children with them (a pipe's back-pressure).
 */
final class EventLog implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(EventLog.class.getName());
    private static final long MAX_PENDING_WEIGHT = 32L << 20;
    private static final Duration GIVE_UP_WHEN_CLOSING = Duration.ofSeconds(10);

    /** The run row columns a status entry changes; {@code null} fields keep their value. */
    record RowChange(RunStatus status, Instant startedAt, Instant finishedAt, Integer exitCode, String reason) {
    }

    /** One entry waiting to be written. */
    record Pending(ActiveRun run, RunEntry entry, RowChange change) {
    }

    private final Store store;
    private final Json json;
    private final int batchMax;
    private final long lingerNanos;

    private final ReentrantLock lock = new ReentrantLock();
    private final Condition notEmpty = lock.newCondition();
    private final Condition notFull = lock.newCondition();
    private final ArrayDeque<Pending> queue = new ArrayDeque<>();
    private long pendingWeight;
    private boolean closing;
    private boolean stopped;
    private final AtomicLong written = new AtomicLong();
    private final AtomicLong transactions = new AtomicLong();
    private final AtomicLong busyNanos = new AtomicLong();
    private Thread writer;

    EventLog(Store store, Json json, int batchMax, Duration linger) {
        this.store = store;
        this.json = json;
        this.batchMax = batchMax;
        this.lingerNanos = linger.toNanos();
    }

    void start() {
        writer = Thread.ofPlatform().daemon().name("aw-run-log-writer").start(this::writeLoop);
    }

    /** Queues one entry; blocks (uninterruptibly, so no number is lost) while the queue is over its weight. */
    void enqueue(Pending p) {
        lock.lock();
        try {
            if (stopped) {
                throw new IllegalStateException("the run log is closed");
            }
            while (pendingWeight > MAX_PENDING_WEIGHT && !queue.isEmpty()) {
                notFull.awaitUninterruptibly();
            }
            queue.add(p);
            pendingWeight += p.entry().weight();
            notEmpty.signal();
        } finally {
            lock.unlock();
        }
    }

    private void writeLoop() {
        List<Pending> batch = new ArrayList<>(batchMax);
        while (true) {
            lock.lock();
            try {
                while (queue.isEmpty() && !closing) {
                    notEmpty.awaitUninterruptibly();
                }
                if (queue.isEmpty()) {
                    stopped = true;
                    return;
                }
                if (lingerNanos > 0 && !closing) {
                    long left = lingerNanos;
                    while (queue.size() < batchMax && left > 0 && !closing) {
                        left = notEmpty.awaitNanos(left);
                    }
                }
                while (batch.size() < batchMax && !queue.isEmpty()) {
                    Pending p = queue.poll();
                    pendingWeight -= p.entry().weight();
                    batch.add(p);
                }
                notFull.signalAll();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            } finally {
                lock.unlock();
            }
            long start = System.nanoTime();
            boolean ok = writeWithRetry(batch);
            busyNanos.addAndGet(System.nanoTime() - start);
            if (ok) {
                transactions.incrementAndGet();
                written.addAndGet(batch.size());
                publish(batch);
            }
            batch.clear();
        }
    }

    private boolean writeWithRetry(List<Pending> batch) {
        long backoffMillis = 50;
        long closingSince = 0;
        while (true) {
            try {
                store.write(h -> {
                    insert(h, batch);
                    return null;
                });
                return true;
            } catch (RuntimeException e) {
                if (Store.isUniqueViolation(e)) {
                    // Permanent: another engine wrote into this run (a node settled it as lost while this one was cut off
                    // from the store: docs/scale-out.md). Write what
                    // can be written, entry by entry, so one broken run does not stop every other run's log.
                    writeOneByOne(batch);
                    return true;
                }
                LOG.log(System.Logger.Level.WARNING, "writing " + batch.size() + " run log entries failed; retrying", e);
                if (closing) {
                    closingSince = closingSince == 0 ? System.nanoTime() : closingSince;
                    if (System.nanoTime() - closingSince > GIVE_UP_WHEN_CLOSING.toNanos()) {
                        LOG.log(System.Logger.Level.ERROR, "giving up on " + batch.size()
                                + " run log entries: the store stayed unavailable while the engine closed");
                        return false;
                    }
                }
                try {
                    Thread.sleep(backoffMillis);
                } catch (InterruptedException ie) {
                    Thread.currentThread().interrupt();
                    return false;
                }
                backoffMillis = Math.min(backoffMillis * 2, 5_000);
            }
        }
    }

    private void writeOneByOne(List<Pending> batch) {
        for (Pending p : batch) {
            try {
                store.write(h -> {
                    insert(h, List.of(p));
                    return null;
                });
            } catch (RuntimeException e) {
                LOG.log(System.Logger.Level.ERROR, "run " + p.entry().runId() + ": entry " + p.entry().seq()
                        + " could not be stored (another engine owns this run?)", e);
            }
        }
    }

    /**
     * Plain JDBC, many rows per statement: Jdbi's named binding costs more than the insert itself at these rates.
     * PostgreSQL gets the whole batch as five arrays in one constant statement (a JDBC batch would run row by row,
     * and a long VALUES list is parsed and planned anew on every fresh connection); SQLite, in-process, gets
     * multi-row VALUES statements.
     */
    private void insert(Handle h, List<Pending> batch) {
        try {
            if (store.dialect() == Dialect.POSTGRESQL) {
                insertArrays(h.getConnection(), batch);
            } else {
                insertValues(h.getConnection(), batch);
            }
        } catch (SQLException e) {
            throw new IllegalStateException("the run log batch insert failed", e);
        }
        for (Pending p : batch) {
            if (p.change() != null) {
                updateRow(h, p.entry().runId(), p.change());
            }
        }
        // readers of these runs on other nodes are woken at commit (PostgreSQL; docs/scale-out.md)
        try {
            List<String> ids = new ArrayList<>(batch.size());
            for (Pending p : batch) {
                ids.add(p.entry().runId());
            }
            RunWakeups.notify(h.getConnection(), store.dialect(), ids);
        } catch (SQLException e) {
            throw new IllegalStateException("the run log notice failed", e);
        }
        // the outcome its events reported goes into the run row with them: one update per run and batch at most
        Map<ActiveRun, Boolean> changed = new LinkedHashMap<>();
        for (Pending p : batch) {
            if (p.entry().kind() == EntryKind.EVENT && p.run().outcome.apply(p.entry().payload(), json)) {
                changed.put(p.run(), Boolean.TRUE);
            }
        }
        for (ActiveRun run : changed.keySet()) {
            run.outcome.takeChanged();
            updateOutcome(h, run.id, run.outcome.outcome(), false);
        }
    }

    private static void updateOutcome(Handle h, String runId, RunOutcome o, boolean markKnown) {
        RunOutcome.Usage u = o.usage();
        h.createUpdate("UPDATE runs SET success = :success, session_id = COALESCE(:session, session_id), "
                        + "reported_session_id = :session, "
                        + "result_text = :result, last_text = :last, usage_input = :ui, usage_output = :uo, "
                        + "usage_cache_read = :ucr, usage_cache_write = :ucw, cost = :cost, error_code = :ec, "
                        + "error_message = :em" + (markKnown ? ", outcome_known = 1" : "") + " WHERE id = :id")
                .bind("success", o.success() == null ? null : (Integer) (o.success() ? 1 : 0))
                .bind("session", o.sessionId())
                .bind("result", o.resultText())
                .bind("last", o.lastText())
                .bind("ui", u == null ? null : (Long) u.input())
                .bind("uo", u == null ? null : (Long) u.output())
                .bind("ucr", u == null ? null : (Long) u.cacheRead())
                .bind("ucw", u == null ? null : (Long) u.cacheWrite())
                .bind("cost", u == null ? null : u.cost())
                .bind("ec", o.errorCode())
                .bind("em", o.errorMessage())
                .bind("id", runId)
                .execute();
    }

    /** Stores the outcome of a run from before V017, read once from its log; only for an ended run. */
    void storeOutcome(String runId, RunOutcome outcome) {
        store.write(h -> {
            if (h.createQuery("SELECT status FROM runs WHERE id = :id").bind("id", runId).mapTo(String.class)
                    .findOne().map(RunStatus::ofWireName).filter(RunStatus::terminal).isPresent()) {
                updateOutcome(h, runId, outcome, true);
            }
            return null;
        });
    }

    private static final int ROWS_PER_INSERT = 100;

    private static void insertArrays(Connection c, List<Pending> batch) throws SQLException {
        int n = batch.size();
        String[] runs = new String[n];
        Long[] seqs = new Long[n];
        String[] kinds = new String[n];
        String[] payloads = new String[n];
        Long[] ats = new Long[n];
        for (int i = 0; i < n; i++) {
            RunEntry e = batch.get(i).entry();
            runs[i] = e.runId();
            seqs[i] = e.seq();
            kinds[i] = e.kind().wireName();
            payloads[i] = e.payload();
            ats[i] = e.at().toEpochMilli();
        }
        try (PreparedStatement ps = c.prepareStatement("INSERT INTO run_events (run_id, seq, kind, payload, created_at) "
                + "SELECT * FROM unnest(?::text[], ?::bigint[], ?::text[], ?::text[], ?::bigint[])")) {
            ps.setArray(1, c.createArrayOf("text", runs));
            ps.setArray(2, c.createArrayOf("bigint", seqs));
            ps.setArray(3, c.createArrayOf("text", kinds));
            ps.setArray(4, c.createArrayOf("text", payloads));
            ps.setArray(5, c.createArrayOf("bigint", ats));
            ps.executeUpdate();
        }
    }

    private static void insertValues(Connection c, List<Pending> batch) throws SQLException {
        int chunk = Math.min(ROWS_PER_INSERT, batch.size());
        try (PreparedStatement full = c.prepareStatement(insertSql(chunk))) {
            int i = 0;
            for (; i + chunk <= batch.size(); i += chunk) {
                bindRows(full, batch, i, chunk);
                full.executeUpdate();
            }
            if (i < batch.size()) {
                try (PreparedStatement rest = c.prepareStatement(insertSql(batch.size() - i))) {
                    bindRows(rest, batch, i, batch.size() - i);
                    rest.executeUpdate();
                }
            }
        }
    }

    private static String insertSql(int rows) {
        StringBuilder b = new StringBuilder("INSERT INTO run_events (run_id, seq, kind, payload, created_at) VALUES ");
        for (int r = 0; r < rows; r++) {
            b.append(r == 0 ? "(?, ?, ?, ?, ?)" : ", (?, ?, ?, ?, ?)");
        }
        return b.toString();
    }

    private static void bindRows(PreparedStatement ps, List<Pending> batch, int from, int rows) throws SQLException {
        int k = 1;
        for (int r = from; r < from + rows; r++) {
            RunEntry e = batch.get(r).entry();
            ps.setString(k++, e.runId());
            ps.setLong(k++, e.seq());
            ps.setString(k++, e.kind().wireName());
            ps.setString(k++, e.payload());
            ps.setLong(k++, e.at().toEpochMilli());
        }
    }

    private static void updateRow(Handle h, String runId, RowChange c) {
        h.createUpdate("UPDATE runs SET status = :status, started_at = COALESCE(:started, started_at), "
                        + "finished_at = COALESCE(:finished, finished_at), exit_code = COALESCE(:exit, exit_code), "
                        + "reason = COALESCE(:reason, reason) WHERE id = :id AND status IN ('queued', 'running')")
                .bind("status", c.status().wireName())
                .bind("started", c.startedAt() == null ? null : (Long) c.startedAt().toEpochMilli())
                .bind("finished", c.finishedAt() == null ? null : (Long) c.finishedAt().toEpochMilli())
                .bind("exit", c.exitCode())
                .bind("reason", c.reason())
                .bind("id", runId)
                .execute();
    }

    private void publish(List<Pending> batch) {
        Map<ActiveRun, List<RunEntry>> byRun = new LinkedHashMap<>();
        for (Pending p : batch) {
            byRun.computeIfAbsent(p.run(), r -> new ArrayList<>()).add(p.entry());
        }
        for (Map.Entry<ActiveRun, List<RunEntry>> e : byRun.entrySet()) {
            e.getKey().committed(e.getValue(), json);
        }
    }

    long written() {
        return written.get();
    }

    long transactions() {
        return transactions.get();
    }

    long busyNanos() {
        return busyNanos.get();
    }

    int pending() {
        lock.lock();
        try {
            return queue.size();
        } finally {
            lock.unlock();
        }
    }

    /**
     * Writes the run row, its first entry ({@code queued}) and {@code along}'s rows (null: none) in one
     * transaction, outside the batch writer.
     */
    void insertRun(RunInfo info, RunOwner owner, String nodeId, RunEntry first, WithRun along) {
        store.write(h -> {
            h.createUpdate("INSERT INTO runs (id, provider, status, created_at, metadata, account_id, project, "
                            + "task_id, origin, session_id, outcome_known, node_id) VALUES (:id, :provider, :status, "
                            + ":created, :metadata, :account, :project, :task, :origin, :session, 1, :node)")
                    .bind("node", nodeId).bind("id", info.id()).bind("provider", info.provider()).bind("status", info.status().wireName())
                    .bind("created", info.createdAt().toEpochMilli()).bind("metadata", info.metadata())
                    .bind("account", owner.accountId()).bind("project", owner.project())
                    .bind("task", owner.taskId()).bind("origin", owner.origin()).bind("session", owner.sessionId())
                    .execute();
            h.createUpdate("INSERT INTO run_events (run_id, seq, kind, payload, created_at) "
                            + "VALUES (:run, :seq, :kind, :payload, :at)")
                    .bind("run", first.runId()).bind("seq", first.seq()).bind("kind", first.kind().wireName())
                    .bind("payload", first.payload()).bind("at", first.at().toEpochMilli())
                    .execute();
            if (along != null) {
                along.write(h, info.id());
            }
            return null;
        });
    }

    /** Adds a status entry after the run's last stored one (a run no live engine writes to any more). */
    private static long appendStatusEntry(Handle h, String runId, String payload, Instant at) {
        long seq = h.createQuery("SELECT COALESCE(MAX(seq), 0) FROM run_events WHERE run_id = :id")
                .bind("id", runId).mapTo(Long.class).one() + 1;
        h.createUpdate("INSERT INTO run_events (run_id, seq, kind, payload, created_at) "
                        + "VALUES (:run, :seq, :kind, :payload, :at)")
                .bind("run", runId).bind("seq", seq).bind("kind", EntryKind.STATUS.wireName())
                .bind("payload", payload).bind("at", at.toEpochMilli())
                .execute();
        return seq;
    }

    /** Appends a terminal status to a run no engine owns any more (restart recovery), in one transaction. */
    void endOrphan(String runId, RunStatus status, String payload, String reason, Instant at) {
        store.write(h -> {
            appendStatusEntry(h, runId, payload, at);
            updateRow(h, runId, new RowChange(status, null, at, null, reason));
            wakeReaders(h, runId);
            return null;
        });
    }

    /**
     * Deletes up to {@code batch} ended runs (rows and logs, one transaction) that finished before
     * {@code finishedBefore} or are not among the {@code keep} newest runs by creation.
     *
     * @return how many runs were deleted
     */
    int deleteEnded(long finishedBefore, int keep, int batch) {
        return store.write(h -> {
            List<String> ids = h.createQuery("SELECT id FROM runs WHERE status NOT IN ('queued', 'running') "
                            + "AND (finished_at < :before OR id NOT IN "
                            + "(SELECT id FROM runs ORDER BY created_at DESC, id DESC LIMIT :keep)) "
                            + "ORDER BY created_at, id LIMIT :batch")
                    .bind("before", finishedBefore).bind("keep", keep).bind("batch", batch)
                    .mapTo(String.class).list();
            if (!ids.isEmpty()) {
                h.createUpdate("DELETE FROM run_events WHERE run_id IN (<ids>)").bindList("ids", ids).execute();
                h.createUpdate("DELETE FROM runs WHERE id IN (<ids>)").bindList("ids", ids).execute();
            }
            return ids.size();
        });
    }

    /** Ids of runs the store still has queued or running. */
    /** The unfinished runs of node {@code nodeId}, and those stored before runs had a node (V020). */
    List<String> unfinishedOf(String nodeId) {
        return store.read(h -> h.createQuery("SELECT id FROM runs WHERE status IN ('queued', 'running') "
                        + "AND (node_id = :node OR node_id IS NULL) ORDER BY id")
                .bind("node", nodeId).mapTo(String.class).list());
    }

    /** The runs of node {@code nodeId} that other nodes settled while it was gone (their processes may be alive). */
    List<String> settledAsLost(String nodeId) {
        return store.read(h -> h.createQuery("SELECT id FROM runs WHERE node_id = :node AND status = 'failed' "
                        + "AND reason = :reason ORDER BY id")
                .bind("node", nodeId).bind("reason", NodeLease.NODE_LOST).mapTo(String.class).list());
    }

    /**
     * Settles an unfinished run of a dead node: in one transaction, marks it {@code failed} with reason
     * {@link NodeLease#NODE_LOST} only if it is still unfinished, still that node's, and the node is still dead
     * ({@code deadCondition} binds {@code :node} and {@code :lease}), then appends the terminal status. Two nodes
     * sweeping at once: the row lock makes the second update find nothing.
     *
     * @return whether this call settled it
     */
    boolean settleLost(String runId, String nodeId, String payload, Instant at, NodeLease lease) {
        return store.write(h -> {
            int n = lease.withNow(h.createUpdate("UPDATE runs SET status = 'failed', finished_at = :at, reason = "
                            + ":reason WHERE id = :id AND status IN ('queued', 'running') AND node_id = :node AND "
                            + lease.deadCondition()))
                    .bind("at", at.toEpochMilli()).bind("reason", NodeLease.NODE_LOST).bind("id", runId)
                    .bind("node", nodeId).bind("lease", NodeLease.LEASE.toMillis()).execute();
            if (n == 0) {
                return false;
            }
            appendStatusEntry(h, runId, payload, at);
            wakeReaders(h, runId);
            return true;
        });
    }

    /**
     * Takes over a queued run of a dead node (docs/scale-out.md "Ownership"): in one transaction, makes node
     * {@code me} its node only if it is still {@code queued}, still {@code deadNode}'s and that node is still dead
     * (the row lock makes a second node's update find nothing: one node wins), clears a slot the dead node may have
     * claimed for it, and appends {@code payload} (a status entry saying it was taken over).
     *
     * @return the sequence number of the appended entry, or -1 when another node took it or it is no longer queued
     */
    long takeOver(String runId, String deadNode, String me, String payload, Instant at, NodeLease lease) {
        return store.write(h -> {
            int n = lease.withNow(h.createUpdate("UPDATE runs SET node_id = :me, admitted_at = NULL WHERE id = :id "
                            + "AND status = 'queued' AND node_id = :node AND " + lease.deadCondition()))
                    .bind("me", me).bind("id", runId).bind("node", deadNode)
                    .bind("lease", NodeLease.LEASE.toMillis()).execute();
            if (n == 0) {
                return -1L;
            }
            long seq = appendStatusEntry(h, runId, payload, at);
            wakeReaders(h, runId);
            return seq;
        });
    }

    /** A queued or running run's launch spec (null when it has none: not stored, or stored on SQLite). */
    String launchSpec(String runId) {
        return store.read(h -> h.createQuery("SELECT launch_spec FROM runs WHERE id = :id").bind("id", runId)
                .mapTo(String.class).findOne().orElse(null));
    }

    private void wakeReaders(Handle h, String runId) {
        try {
            RunWakeups.notify(h.getConnection(), store.dialect(), List.of(runId));
        } catch (SQLException e) {
            throw new IllegalStateException("the run log notice failed", e);
        }
    }

    /** {@code text} as a LIKE pattern matching it anywhere ({@code ESCAPE '\'}). */
    private static String containing(String text) {
        return "%" + text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%";
    }

    /** The {@code event} entries of a run whose payload contains {@code text}, oldest first. */
    List<RunEntry> eventsContaining(String runId, String text, int limit) {
        return store.read(h -> h.createQuery("SELECT seq, kind, payload, created_at FROM run_events WHERE run_id = :id "
                        + "AND kind = 'event' AND payload LIKE :p ESCAPE '\\' ORDER BY seq LIMIT :n")
                .bind("id", runId).bind("p", containing(text)).bind("n", limit)
                .map((rs, ctx) -> new RunEntry(runId, rs.getLong(1), EntryKind.ofWireName(rs.getString(2)),
                        rs.getString(3), Instant.ofEpochMilli(rs.getLong(4))))
                .list());
    }

    /** The unfinished runs that have an {@code event} entry whose payload contains {@code text}. */
    List<String> unfinishedWithEvent(String text) {
        return store.read(h -> h.createQuery("SELECT DISTINCT e.run_id FROM run_events e JOIN runs r ON r.id = e.run_id "
                        + "WHERE r.status IN ('queued', 'running') AND e.kind = 'event' AND e.payload LIKE :p "
                        + "ESCAPE '\\' ORDER BY e.run_id LIMIT 10")
                .bind("p", containing(text)).mapTo(String.class).list());
    }

    /** The run's status (wire name) and the node that executes it (null for runs stored before V020). */
    Optional<String[]> statusAndNode(String runId) {
        return store.read(h -> h.createQuery("SELECT status, node_id FROM runs WHERE id = :id").bind("id", runId)
                .map((rs, ctx) -> new String[] {rs.getString(1), rs.getString(2)}).findOne());
    }

    List<String> unfinished() {
        return store.read(h -> h.createQuery("SELECT id FROM runs WHERE status IN ('queued', 'running') ORDER BY id")
                .mapTo(String.class).list());
    }

    List<RunEntry> read(String runId, long afterSeq, int limit) {
        return store.read(h -> h.createQuery("SELECT seq, kind, payload, created_at FROM run_events "
                        + "WHERE run_id = :id AND seq > :after ORDER BY seq LIMIT :n")
                .bind("id", runId).bind("after", afterSeq).bind("n", limit)
                .map((rs, ctx) -> new RunEntry(runId, rs.getLong(1), EntryKind.ofWireName(rs.getString(2)),
                        rs.getString(3), Instant.ofEpochMilli(rs.getLong(4))))
                .list());
    }

    long lastSeq(String runId) {
        return store.read(h -> h.createQuery("SELECT COALESCE(MAX(seq), 0) FROM run_events WHERE run_id = :id")
                .bind("id", runId).mapTo(Long.class).one());
    }

    Optional<RunInfo> find(String runId) {
        return store.read(h -> h.createQuery("SELECT " + RUN_COLUMNS + " FROM runs WHERE id = :id")
                .bind("id", runId).map((rs, ctx) -> runInfo(rs)).findOne());
    }

    List<RunInfo> list(RunQuery q) {
        StringBuilder sql = new StringBuilder("SELECT " + RUN_COLUMNS + " FROM runs WHERE 1 = 1");
        if (q.provider() != null) {
            sql.append(" AND provider = :provider");
        }
        if (!q.statuses().isEmpty()) {
            sql.append(" AND status IN (<statuses>)");
        }
        sql.append(" ORDER BY created_at DESC, id DESC LIMIT :n");
        return store.read(h -> {
            Query query = h.createQuery(sql.toString()).bind("n", q.limit());
            if (q.provider() != null) {
                query.bind("provider", q.provider());
            }
            if (!q.statuses().isEmpty()) {
                query.bindList("statuses", q.statuses().stream().map(RunStatus::wireName).sorted().toList());
            }
            return query.map((rs, ctx) -> runInfo(rs)).list();
        });
    }

    private static final String RUN_COLUMNS =
            "id, provider, status, created_at, started_at, finished_at, exit_code, reason, metadata";
    private static final String RECORD_COLUMNS = RUN_COLUMNS + ", account_id, project, task_id, origin, session_id, "
            + "outcome_known, success, result_text, last_text, usage_input, usage_output, usage_cache_read, "
            + "usage_cache_write, cost, error_code, error_message, reported_session_id";

    Optional<RunRecord> record(String runId) {
        return store.read(h -> h.createQuery("SELECT " + RECORD_COLUMNS + " FROM runs WHERE id = :id")
                .bind("id", runId).map((rs, ctx) -> runRecord(rs)).findOne());
    }

    /** One page, newest first, after the cursor's position; one more row is read to know whether a next exists. */
    RunPage page(RunPage.Query q) {
        StringBuilder sql = new StringBuilder("SELECT " + RECORD_COLUMNS + " FROM runs WHERE 1 = 1");
        if (q.visibleTo() != null) {
            sql.append(" AND account_id = :account");
        }
        if (q.project() != null) {
            sql.append(" AND project = :project");
        }
        if (q.taskId() != null) {
            sql.append(" AND task_id = :task");
        }
        if (q.sessionId() != null) {
            sql.append(" AND session_id = :session");
        }
        if (q.provider() != null) {
            sql.append(" AND provider = :provider");
        }
        if (!q.statuses().isEmpty()) {
            sql.append(" AND status IN (<statuses>)");
        }
        RunPage.Position after = q.cursor() == null ? null : RunPage.decode(q.cursor());
        if (after != null) {
            sql.append(" AND (created_at < :at OR (created_at = :at AND id < :after))");
        }
        sql.append(" ORDER BY created_at DESC, id DESC LIMIT :n");
        List<RunRecord> rows = store.read(h -> {
            Query query = h.createQuery(sql.toString()).bind("n", q.limit() + 1);
            if (q.visibleTo() != null) {
                query.bind("account", q.visibleTo());
            }
            if (q.project() != null) {
                query.bind("project", q.project());
            }
            if (q.taskId() != null) {
                query.bind("task", q.taskId());
            }
            if (q.sessionId() != null) {
                query.bind("session", q.sessionId());
            }
            if (q.provider() != null) {
                query.bind("provider", q.provider());
            }
            if (!q.statuses().isEmpty()) {
                query.bindList("statuses", q.statuses().stream().map(RunStatus::wireName).sorted().toList());
            }
            if (after != null) {
                query.bind("at", after.createdAt()).bind("after", after.id());
            }
            return query.map((rs, ctx) -> runRecord(rs)).list();
        });
        if (rows.size() <= q.limit()) {
            return new RunPage(rows, null);
        }
        List<RunRecord> page = rows.subList(0, q.limit());
        return new RunPage(page, RunPage.encode(page.get(page.size() - 1).info()));
    }

    /**
     * The newest {@code n} entries of a run that are not parsed events (its log lines and statuses), newest first,
     * and the run's last seq: an index walk back from the end of the log, however long the log is.
     */
    RunTail tail(String runId, int n) {
        return store.read(h -> {
            List<RunEntry> lines = h.createQuery("SELECT seq, kind, payload, created_at FROM run_events "
                            + "WHERE run_id = :id AND kind <> 'event' ORDER BY seq DESC LIMIT :n")
                    .bind("id", runId).bind("n", n)
                    .map((rs, ctx) -> new RunEntry(runId, rs.getLong(1), EntryKind.ofWireName(rs.getString(2)),
                            rs.getString(3), Instant.ofEpochMilli(rs.getLong(4))))
                    .list();
            long last = h.createQuery("SELECT COALESCE(MAX(seq), 0) FROM run_events WHERE run_id = :id")
                    .bind("id", runId).mapTo(Long.class).one();
            return new RunTail(lines, last);
        });
    }

    private static RunRecord runRecord(ResultSet rs) throws SQLException {
        RunInfo info = runInfo(rs);
        long account = rs.getLong(10);
        Long accountId = rs.wasNull() ? null : account;
        RunOwner owner = new RunOwner(accountId, rs.getString(11), rs.getString(12), rs.getString(13),
                rs.getString(14));
        boolean known = rs.getInt(15) == 1;
        RunOutcome outcome = null;
        if (known) {
            int ok = rs.getInt(16);
            Boolean success = rs.wasNull() ? null : ok == 1;
            long in = rs.getLong(19);
            boolean noUsage = rs.wasNull();
            double cost = rs.getDouble(23);
            Double costOrNull = rs.wasNull() ? null : cost;
            RunOutcome.Usage usage = noUsage ? null
                    : new RunOutcome.Usage(in, rs.getLong(20), rs.getLong(21), rs.getLong(22), costOrNull);
            outcome = new RunOutcome(success, rs.getString(26), rs.getString(17), rs.getString(18), usage,
                    rs.getString(24), rs.getString(25));
        }
        return new RunRecord(info, owner, outcome);
    }

    private static RunInfo runInfo(ResultSet rs) throws SQLException {
        long started = rs.getLong(5);
        boolean noStart = rs.wasNull();
        long finished = rs.getLong(6);
        boolean noFinish = rs.wasNull();
        int exit = rs.getInt(7);
        boolean noExit = rs.wasNull();
        return new RunInfo(rs.getString(1), rs.getString(2), RunStatus.ofWireName(rs.getString(3)),
                Instant.ofEpochMilli(rs.getLong(4)), noStart ? null : Instant.ofEpochMilli(started),
                noFinish ? null : Instant.ofEpochMilli(finished), noExit ? null : exit, rs.getString(8),
                rs.getString(9));
    }

    /** Writes what is queued, then stops the writer. */
    @Override
    public void close() {
        lock.lock();
        try {
            closing = true;
            notEmpty.signalAll();
        } finally {
            lock.unlock();
        }
        if (writer != null) {
            try {
                writer.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
