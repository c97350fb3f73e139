package org.agentworkspace.core.store;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;

import org.agentworkspace.core.TestDatabases;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SqliteStoreMigrationTest extends AbstractStoreMigrationTest {
    @TempDir
    Path dir;

    @Override
    protected String createDatabase() {
        return TestDatabases.sqlite(dir);
    }

    @Test
    void aNewFileGetsTheLargerPageSizeInWalMode() {
        // missing, and empty as Store.sqliteUrl creates it
        for (String url : new String[] {"jdbc:sqlite:" + dir.resolve("new.db"), Store.sqliteUrl(dir)}) {
            try (Store s = Store.open(url)) {
                int page = s.read(h -> h.createQuery("PRAGMA page_size").mapTo(Integer.class).one());
                assertEquals(Store.SQLITE_PAGE_SIZE, page, url);
                assertEquals("wal", s.read(h -> h.createQuery("PRAGMA journal_mode").mapTo(String.class).one()));
            }
        }
    }

    @Test
    void anExistingFileKeepsItsPageSize() throws Exception {
        Path file = dir.resolve("old.db");
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + file); Statement st = c.createStatement()) {
            st.execute("PRAGMA page_size = 4096");
            st.execute("CREATE TABLE before_us (x INTEGER)");
        }
        try (Store s = Store.open("jdbc:sqlite:" + file)) {
            int page = s.read(h -> h.createQuery("PRAGMA page_size").mapTo(Integer.class).one());
            assertEquals(4096, page);
            // migrated all the same
            assertEquals(true, s.read(h -> h.createQuery("SELECT COUNT(*) FROM schema_version")
                    .mapTo(Integer.class).one()) > 0);
        }
        assertEquals(true, Files.size(file) > 0);
    }
}
