package org.agentworkspace.core.index;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

import org.agentworkspace.core.store.Store;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * When the full-text thread commits: at once when the index has nothing more coming, gathered (up to
 * {@code COMMIT_NANOS}) while it does; until committed, words are not searchable and the thread is not idle.
 */
class FullTextTest {
    @TempDir
    Path tmp;

    private long rowsHolding(String word) throws SQLException {
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + tmp.resolve("test-search.db"));
             Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM " + FullText.TABLE + " WHERE " + FullText.TABLE
                     + " MATCH '" + word + "'")) {
            return rs.next() ? rs.getLong(1) : 0;
        }
    }

    private static long waitIdle(FullText ft, long timeoutMillis) throws InterruptedException {
        long t0 = System.nanoTime();
        while (!ft.idle()) {
            assertTrue(System.nanoTime() - t0 < timeoutMillis * 1_000_000L, "idle within " + timeoutMillis + " ms");
            Thread.sleep(5);
        }
        return (System.nanoTime() - t0) / 1_000_000;
    }

    @Test
    void commitsAtOnceWhenNothingMoreComesAndGathersWhileMoreDoes() throws Exception {
        AtomicBoolean more = new AtomicBoolean(false);
        try (Store store = Store.open("jdbc:sqlite:" + tmp.resolve("test.db"));
             FullText ft = FullText.open(store, more::get)) {
            ft.submit(List.of(new FullText.Add(1, "a quiet aardvark")));
            waitIdle(ft, 5_000);
            assertEquals(1, rowsHolding("aardvark"), "committed once applied: nothing more was coming");

            more.set(true);
            long t0 = System.nanoTime();
            ft.submit(List.of(new FullText.Add(2, "a busy bumblebee")));
            Thread.sleep(400);
            if ((System.nanoTime() - t0) / 1_000_000 < 1_500) {
                assertEquals(0, rowsHolding("bumblebee"), "not committed while more is coming");
                assertFalse(ft.idle(), "not idle with uncommitted words");
            }
            ft.submit(List.of(new FullText.Add(3, "another bumblebee"), new FullText.Remove(1)));
            waitIdle(ft, 10_000);
            assertTrue((System.nanoTime() - t0) / 1_000_000 >= 1_900, "committed after about two seconds");
            assertEquals(2, rowsHolding("bumblebee"));
            assertEquals(0, rowsHolding("aardvark"), "the removal applied in order");

            // nothing more coming again: the next one is committed at once
            more.set(false);
            ft.submit(List.of(new FullText.Add(4, "a prompt capybara")));
            assertTrue(waitIdle(ft, 5_000) < 1_500);
            assertEquals(1, rowsHolding("capybara"));
        }
    }

    @Test
    void aCloseCommitsWhatWasGathered() throws Exception {
        AtomicBoolean more = new AtomicBoolean(true);
        try (Store store = Store.open("jdbc:sqlite:" + tmp.resolve("test.db"))) {
            FullText ft = FullText.open(store, more::get);
            ft.submit(List.of(new FullText.Add(1, "a closing dugong")));
            Thread.sleep(200);
            ft.close();
            assertEquals(1, rowsHolding("dugong"));
        }
    }
}
