package org.agentworkspace.core.store;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.sql.Connection;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sqlite.SQLiteDataSource;

/** Kept connections: reused when clean, dropped when a transaction was left open, all closed with the store. */
class IdleConnectionsTest {
    @TempDir
    Path tmp;

    @Test
    void aCleanConnectionIsReusedAndADirtyOneIsNot() throws Exception {
        SQLiteDataSource ds = new SQLiteDataSource();
        ds.setUrl("jdbc:sqlite:" + tmp.resolve("t.db"));
        IdleConnections pool = new IdleConnections(ds, 2);
        Connection a = pool.openConnection();
        pool.closeConnection(a);
        assertFalse(a.isClosed(), "kept open");
        assertSame(a, pool.openConnection(), "reused");

        a.setAutoCommit(false);
        pool.closeConnection(a);
        assertTrue(a.isClosed(), "a connection with an open transaction is closed, not kept");
        assertNotSame(a, pool.openConnection());

        Connection x = pool.openConnection();
        Connection y = pool.openConnection();
        Connection z = pool.openConnection();
        pool.closeConnection(x);
        pool.closeConnection(y);
        pool.closeConnection(z);
        assertTrue(z.isClosed(), "beyond the limit a connection is closed");
        pool.close();
        assertTrue(x.isClosed() && y.isClosed(), "closing the pool closes what it kept");
    }

    @Test
    void theStoreKeepsItsConnectionsBetweenReads() {
        try (Store store = Store.open("jdbc:sqlite:" + tmp.resolve("s.db"))) {
            Connection first = store.read(h -> h.getConnection());
            Connection second = store.read(h -> h.getConnection());
            assertSame(first, second);
            int one = store.write(h -> h.createQuery("SELECT 1").mapTo(Integer.class).one());
            assertTrue(one == 1);
        }
    }
}
