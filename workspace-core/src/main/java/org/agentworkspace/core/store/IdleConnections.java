package org.agentworkspace.core.store;

import java.util.ArrayList;
import java.util.List;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;

import javax.sql.DataSource;

import org.jdbi.v3.core.ConnectionFactory;

/**
 * Keeps a few closed-by-Jdbi connections open for the next handle instead of closing them. Opening a connection is
 * the largest cost of a small query (SQLite re-reads the schema and starts with an empty page cache each time; a
 * PostgreSQL connection is a new backend, ~5 ms): kept connections answer warm reads in well under a millisecond.
 *
 * <p>Only a connection in auto-commit mode (no transaction left open) is kept; one that fails a cheap validity check
 * after being idle for a while is dropped. At most {@code maxIdle} are kept; more are opened when needed (nothing
 * waits for a connection) and closed when handed back to a full pool.
 *
 * <p>SQLite only: PostgreSQL uses HikariCP (see {@link Store}). SQLite keeps this because nothing may wait for a
 * connection here (the index's writer, the full-text thread, the run log's writer and request threads hold SQLite
 * connections at once, and a fixed-size pool would make them queue behind each other for what is a file handle),
 * and {@link Store#releaseMemory} closes idle SQLite connections to drop their page caches.
 */
final class IdleConnections implements ConnectionFactory, AutoCloseable {
    private static final long VALIDATE_AFTER_NANOS = 30_000_000_000L;

    private record Idle(Connection connection, long since) {
    }

    private final DataSource source;
    private final BlockingQueue<Idle> idle;
    private volatile boolean closed;

    IdleConnections(DataSource source, int maxIdle) {
        this.source = source;
        this.idle = new ArrayBlockingQueue<>(maxIdle);
    }

    @Override
    public Connection openConnection() throws SQLException {
        Idle i;
        while ((i = idle.poll()) != null) {
            Connection c = i.connection();
            try {
                if (!c.isClosed() && (System.nanoTime() - i.since() < VALIDATE_AFTER_NANOS || c.isValid(2))) {
                    return c;
                }
            } catch (SQLException e) {
                // unusable: drop it
            }
            quietlyClose(c);
        }
        return source.getConnection();
    }

    @Override
    public void closeConnection(Connection c) throws SQLException {
        if (closed || c.isClosed()) {
            c.close();
            return;
        }
        boolean keep;
        try {
            keep = c.getAutoCommit() && !c.isReadOnly();
        } catch (SQLException e) {
            keep = false;
        }
        if (!keep || !idle.offer(new Idle(c, System.nanoTime()))) {
            c.close();
        }
        if (closed) {
            drain();
        }
    }

    /**
     * Runs {@code sql} on every idle connection (SQLite's {@code PRAGMA shrink_memory} after a burst of work: the
     * page caches go back to the allocator); a connection that fails it is dropped.
     */
    void onIdle(String sql) {
        List<Idle> taken = new ArrayList<>();
        idle.drainTo(taken);
        for (Idle i : taken) {
            try (java.sql.Statement st = i.connection().createStatement()) {
                st.execute(sql);
            } catch (SQLException e) {
                quietlyClose(i.connection());
                continue;
            }
            if (closed || !idle.offer(i)) {
                quietlyClose(i.connection());
            }
        }
    }

    @Override
    public void close() {
        closed = true;
        drain();
    }

    private void drain() {
        Idle i;
        while ((i = idle.poll()) != null) {
            quietlyClose(i.connection());
        }
    }

    private static void quietlyClose(Connection c) {
        try {
            c.close();
        } catch (SQLException e) {
            // closing an unusable connection
        }
    }
}
