package org.agentworkspace.core.runs;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;

import org.agentworkspace.core.store.Dialect;
import org.agentworkspace.core.store.Store;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;

/**
 * Wake-ups for readers of runs executed by another node (docs/scale-out.md "Live events across nodes"). On
 * PostgreSQL the log writer of every node calls {@code pg_notify('aw_run_events', '<run ids>')} in the transaction
 * that stores a batch, so the notice is delivered at commit; each node keeps one dedicated connection that
 * {@code LISTEN}s and wakes the cursors of those runs, which then read the new entries from the table. The notice is
 * only a hint: it is not stored, and is lost while no connection listens, so a reader still re-reads on its poll
 * interval, and every reconnection of the listener wakes every reader once. On SQLite there is one node and nothing
 * is sent or listened to: readers of runs this engine does not hold wait their poll interval as before.
 */
final class RunWakeups implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(RunWakeups.class.getName());
    static final String CHANNEL = "aw_run_events";
    /**
     * Notices between nodes that are not run entries (docs/scale-out.md "Control from any node"): the payload is a
     * comma-separated list of keys, {@code node:<id>} (a request waits for that node), {@code req:<id>} (a request was
     * answered), {@code sig:<topic>} (a signal such as {@code sig:tasks}). They share the wake-up table of run ids
     * (run ids start with {@code run_}, so the keys never collide).
     */
    static final String SIGNALS = "aw_node_signals";
    /** PostgreSQL refuses payloads of 8000 bytes or more; past this a notice says "every run" ({@code *}). */
    private static final int MAX_PAYLOAD = 7000;
    /** Runs remembered; past it the table is cleared and every reader woken once. */
    private static final int MAX_REMEMBERED = 10_000;

    private final Object monitor = new Object();
    /** Run id → the counter value at its last notice. */
    private final Map<String, Long> lastNotice = new HashMap<>();
    private long counter;
    /** The counter value of the last notice for every run (a {@code *}, a reconnection). */
    private long everyRun;
    private final Store store;
    private volatile boolean closed;
    private volatile boolean listening;
    private Thread listener;
    /** Callbacks of {@code sig:} keys, run on the listening thread (they must return quickly). */
    private final Map<String, java.util.List<Runnable>> callbacks = new java.util.concurrent.ConcurrentHashMap<>();
    /** Called when another node (or this one) says a run slot is free ({@link SharedAdmission#CHANNEL}). */
    private volatile Runnable onSlotFreed = () -> { };

    RunWakeups(Store store) {
        this.store = store;
    }

    /** What to do on a {@link SharedAdmission#CHANNEL} notice, and after each (re)connection (notices were lost). */
    void onSlotFreed(Runnable action) {
        onSlotFreed = action;
    }

    /** Starts listening (PostgreSQL only). */
    void start() {
        if (store.dialect() != Dialect.POSTGRESQL) {
            return;
        }
        listener = Thread.ofPlatform().daemon().name("aw-run-listen").start(this::listen);
    }

    /** Whether the listening connection is up (always false on SQLite). */
    boolean listening() {
        return listening;
    }

    /** Sends the notice for {@code runIds} in the caller's transaction (PostgreSQL; nothing on SQLite). */
    static void notify(Connection c, Dialect dialect, Collection<String> runIds) throws SQLException {
        if (dialect != Dialect.POSTGRESQL || runIds.isEmpty()) {
            return;
        }
        String payload = String.join(",", new LinkedHashSet<>(runIds));
        if (payload.length() > MAX_PAYLOAD) {
            payload = "*";
        }
        try (PreparedStatement ps = c.prepareStatement("SELECT pg_notify(?, ?)")) {
            ps.setString(1, CHANNEL);
            ps.setString(2, payload);
            ps.execute();
        }
    }

    /** Sends {@code keys} on the {@link #SIGNALS} channel in the caller's transaction (PostgreSQL; nothing on SQLite). */
    static void signal(Connection c, Dialect dialect, Collection<String> keys) throws SQLException {
        if (dialect != Dialect.POSTGRESQL || keys.isEmpty()) {
            return;
        }
        try (PreparedStatement ps = c.prepareStatement("SELECT pg_notify(?, ?)")) {
            ps.setString(1, SIGNALS);
            ps.setString(2, String.join(",", new LinkedHashSet<>(keys)));
            ps.execute();
        }
    }

    /** Runs {@code callback} on each notice of {@code key} and on each (re)connection of the listener. */
    void onKey(String key, Runnable callback) {
        callbacks.computeIfAbsent(key, k -> new java.util.concurrent.CopyOnWriteArrayList<>()).add(callback);
    }

    /** The current notice count of a run: pass it to {@link #await} after reading, so no notice falls in between. */
    long generation(String runId) {
        synchronized (monitor) {
            return Math.max(everyRun, lastNotice.getOrDefault(runId, 0L));
        }
    }

    /** Waits until a notice for {@code runId} newer than {@code seen} arrives, or {@code nanos} pass. */
    void await(String runId, long seen, long nanos) throws InterruptedException {
        long deadline = System.nanoTime() + nanos;
        synchronized (monitor) {
            while (Math.max(everyRun, lastNotice.getOrDefault(runId, 0L)) == seen) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return;
                }
                monitor.wait(Math.max(1, left / 1_000_000));
            }
        }
    }

    /** Records notices (a run id each, or {@code *} for every run) and wakes the waiting readers. */
    void wake(Set<String> runIds) {
        synchronized (monitor) {
            counter++;
            if (runIds.contains("*") || lastNotice.size() + runIds.size() > MAX_REMEMBERED) {
                lastNotice.clear();
                everyRun = counter;
            } else {
                for (String id : runIds) {
                    lastNotice.put(id, counter);
                }
            }
            monitor.notifyAll();
        }
        if (!callbacks.isEmpty()) {
            boolean all = runIds.contains("*");
            for (Map.Entry<String, java.util.List<Runnable>> e : callbacks.entrySet()) {
                if (all || runIds.contains(e.getKey())) {
                    for (Runnable r : e.getValue()) {
                        try {
                            r.run();
                        } catch (RuntimeException ex) {
                            LOG.log(System.Logger.Level.WARNING, "a wake-up callback of " + e.getKey() + " failed", ex);
                        }
                    }
                }
            }
        }
    }

    private void listen() {
        long backoff = 200;
        while (!closed) {
            try (Connection c = store.dedicatedConnection(); Statement s = c.createStatement()) {
                s.execute("LISTEN " + CHANNEL);
                s.execute("LISTEN " + SIGNALS);
                s.execute("LISTEN " + SharedAdmission.CHANNEL);
                PGConnection pg = c.unwrap(PGConnection.class);
                listening = true;
                backoff = 200;
                // notices sent while nobody listened are lost: every reader reads once more
                wake(Set.of("*"));
                onSlotFreed.run();
                while (!closed) {
                    PGNotification[] got = pg.getNotifications(500);
                    if (got == null || got.length == 0) {
                        continue;
                    }
                    Set<String> ids = new java.util.HashSet<>();
                    boolean slotFreed = false;
                    for (PGNotification n : got) {
                        if (SharedAdmission.CHANNEL.equals(n.getName())) {
                            slotFreed = true;
                            continue;
                        }
                        for (String id : n.getParameter().split(",")) {
                            if (!id.isEmpty()) {
                                ids.add(id);
                            }
                        }
                    }
                    if (!ids.isEmpty()) {
                        wake(ids);
                    }
                    if (slotFreed) {
                        onSlotFreed.run();
                    }
                }
            } catch (SQLException | RuntimeException e) {
                listening = false;
                if (closed) {
                    return;
                }
                LOG.log(System.Logger.Level.WARNING, "listening for run events of other nodes failed; readers poll "
                        + "until it is back (retrying in " + backoff + " ms): " + e);
                try {
                    Thread.sleep(backoff);
                } catch (InterruptedException ie) {
                    return;
                }
                backoff = Math.min(backoff * 2, 10_000);
            } finally {
                listening = false;
            }
        }
    }

    @Override
    public void close() {
        closed = true;
        Thread t = listener;
        if (t != null) {
            try {
                t.join(2000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
