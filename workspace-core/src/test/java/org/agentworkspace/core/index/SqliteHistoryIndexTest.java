package org.agentworkspace.core.index;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;

import org.agentworkspace.core.EngineConfig;
import org.agentworkspace.core.TestDatabases;
import org.agentworkspace.core.WorkspaceEngine;
import org.junit.jupiter.api.Test;

/**
 * The shared history-index tests on SQLite, plus the life of its search file ({@link FullText}): trusted when it was
 * closed cleanly for this store, rebuilt from the stored messages when missing, unreadable, not closed cleanly or from
 * another copy of the store.
 */
class SqliteHistoryIndexTest extends AbstractHistoryIndexTest {
    @Override
    protected String createDatabase() {
        return TestDatabases.sqlite(tmp);
    }

    private Path searchFile() {
        return tmp.resolve("test-search.db");
    }

    /** Runs statements on the search file while the engine is closed. */
    private void onSearchFile(String... sql) throws SQLException {
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + searchFile());
             Statement s = c.createStatement()) {
            for (String q : sql) {
                s.execute(q);
            }
        }
    }

    private String state(String k) throws SQLException {
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + searchFile());
             Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT v FROM search_state WHERE k = '" + k + "'")) {
            return rs.next() ? rs.getString(1) : null;
        }
    }

    private void restart() throws InterruptedException {
        engine.close();
        engine = open();
    }

    @Test
    void theSearchFileIsTrustedAfterACleanCloseAndRebuiltOtherwise() throws Exception {
        int total = index().search("hello", null, 50).total();
        assertTrue(total > 0);
        engine.close();
        assertEquals("1", state("clean"), "closed cleanly");
        assertEquals("0", openAndReadClean(), "not clean while open");

        // closed cleanly: trusted as it is (rows removed behind its back stay removed: no rebuild at each start)
        onSearchFile("DELETE FROM message_fts");
        engine = open();
        assertEquals(0, index().search("hello", null, 50).total());

        // a crash (not closed cleanly): rebuilt from the stored messages
        engine.close();
        onSearchFile("DELETE FROM message_fts", "UPDATE search_state SET v = '0' WHERE k = 'clean'");
        engine = open();
        assertEquals(total, index().search("hello", null, 50).total());
        assertTrue(index().search("hello", null, 50).results().stream()
                .allMatch(h -> h.snippet().toLowerCase().contains("«hello»")));

        // an index of an earlier layout (with token positions), closed cleanly: rebuilt in the current one
        engine.close();
        onSearchFile("DROP TABLE message_fts", "CREATE VIRTUAL TABLE message_fts USING fts5(text, content='', "
                + "contentless_delete=1, tokenize='unicode61')");
        assertEquals("1", state("clean"));
        engine = open();
        assertEquals(total, index().search("hello", null, 50).total());
        engine.close();
        onSearchFile("DELETE FROM message_fts");
        engine = open();
        assertEquals(0, index().search("hello", null, 50).total(), "the rebuilt file is trusted after a clean close");

        // the file of another copy of the store
        engine.close();
        onSearchFile("DELETE FROM message_fts", "UPDATE search_state SET v = 'elsewhere' WHERE k = 'generation'");
        engine = open();
        assertEquals(total, index().search("hello", null, 50).total());

        // missing
        engine.close();
        Files.delete(searchFile());
        Files.deleteIfExists(Path.of(searchFile() + "-wal"));
        Files.deleteIfExists(Path.of(searchFile() + "-shm"));
        engine = open();
        assertEquals(total, index().search("hello", null, 50).total());

        // unreadable
        engine.close();
        Files.deleteIfExists(Path.of(searchFile() + "-wal"));
        Files.deleteIfExists(Path.of(searchFile() + "-shm"));
        Files.write(searchFile(), new byte[8192]);
        Files.writeString(searchFile(), "this is not an SQLite database, whatever it was");
        engine = open();
        assertEquals(total, index().search("hello", null, 50).total());
        restart();
        assertEquals(total, index().search("hello", null, 50).total());
    }

    @Test
    void idleConnectionsAreClosedAndOpenedAgainForTheNextWork() throws Exception {
        long saved = FullText.idleCloseNanos;
        FullText.idleCloseNanos = 200_000_000L;
        try {
            int total = index().search("hello", null, 50).total();
            Thread.sleep(600);
            // the writer's and the idle search connections are closed by now: a search and a change open them again
            assertEquals(total, index().search("hello", null, 50).total());
            Path dir = Files.createDirectories(tmp.resolve("home/.claude/projects/-idle"));
            String sid = "33333333-4444-5555-6666-777777777777";
            Files.writeString(dir.resolve(sid + ".jsonl"), "{\"type\":\"user\",\"message\":{\"role\":\"user\","
                    + "\"content\":\"an echidnaafteridle word\"},\"uuid\":\"idle-1\",\"timestamp\":"
                    + "\"2026-11-22T03:00:00.000Z\",\"cwd\":\"" + tmp.resolve("work") + "\",\"sessionId\":\"" + sid
                    + "\"}\n");
            long end = System.nanoTime() + 15_000_000_000L;
            while (index().search("echidnaafteridle", null, 5).total() != 1) {
                assertTrue(System.nanoTime() < end, "the new session's word indexed after the idle close");
                Thread.sleep(20);
            }
            engine.close();
            engine = null;
            assertEquals("1", state("clean"), "closed cleanly with the writer connection reopened to mark it");
        } finally {
            FullText.idleCloseNanos = saved;
        }
    }

    /** Opens the engine, reads the search file's clean mark while it is open, and leaves the engine closed. */
    private String openAndReadClean() throws Exception {
        engine = open();
        String clean = state("clean");
        engine.close();
        engine = null;
        return clean;
    }

    @Test
    void workAfterTheListingRunsBeforeAnySessionIsReadAndAtOnceWhenListedAlready() throws Exception {
        // a store of its own, so that every session is new to it; the index started by hand after the hook
        try (WorkspaceEngine fresh = WorkspaceEngine.open(EngineConfig.create(tmp.resolve("data-fresh"))
                .withJdbcUrl("jdbc:sqlite:" + tmp.resolve("fresh.db")).withHistoryHomes(List.of(home))
                .withHistoryIndex(false), Map.of("HOME", tmp.resolve("other-home").toString()))) {
            HistoryIndex index = fresh.history();
            AtomicReference<String> thread = new AtomicReference<>();
            AtomicReference<IndexStatus> status = new AtomicReference<>();
            AtomicReference<Integer> projects = new AtomicReference<>();
            index.whenListed(() -> {
                thread.set(Thread.currentThread().getName());
                status.set(index.status());
                projects.set(index.projects().size());
            });
            index.start();
            assertTrue(index.awaitIdle(Duration.ofSeconds(60)), "index ready");
            assertEquals("history-index-list", thread.get());
            assertTrue(status.get().listedAt() != null, "after the listing");
            assertEquals(engine.history().status().sessions(), status.get().sessions(), "every session listed");
            assertEquals(0, status.get().sessionsIndexed(), "before any session was read");
            assertEquals(engine.history().projects().size(), projects.get());

            index.whenListed(() -> thread.set(Thread.currentThread().getName()));
            assertEquals(Thread.currentThread().getName(), thread.get(), "at once on the caller when listed already");
        }
    }
}
