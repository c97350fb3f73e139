package org.agentworkspace.core.runs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;

import org.agentworkspace.core.store.Store;
import org.agentworkspace.core.TestDatabases;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Where work runs (docs/scale-out.md): which node serves a folder, from the roots and addresses nodes recorded
 * (V022). On PostgreSQL: this node's roots, a live other node's, a stopped or silent node's, none. On SQLite every
 * folder is this node's.
 */
class NodeDirectoryTest {
    @TempDir
    Path tmp;

    static void node(Store store, String id, long heartbeatAgoMs, boolean stopped) {
        store.write(h -> h.execute("INSERT INTO nodes (id, host, pid, started_at, heartbeat_at, stopped_at) VALUES "
                + "(?, 'h-' || ?, 1, 1, CAST(EXTRACT(EPOCH FROM clock_timestamp()) * 1000 AS BIGINT) - ?, "
                + (stopped ? "1" : "NULL") + ")", id, id, heartbeatAgoMs));
    }

    @Test
    void aFolderIsPlacedOnTheLiveNodeWhoseRootsHoldIt() {
        String url = TestDatabases.createPostgres();
        try (Store store = Store.open(url)) {
            node(store, "node_a", 0, false);
            node(store, "node_b", 1000, false);
            node(store, "node_c", 0, true);
            node(store, "node_d", 20_000, false);
            NodeDirectory a = NodeDirectory.of(store, "node_a");
            NodeDirectory.of(store, "node_b").publish("http://b:3001", List.of(Path.of("/srv/b")), false);
            NodeDirectory.of(store, "node_c").publish("http://c:3001", List.of(Path.of("/srv/c")), false);
            NodeDirectory.of(store, "node_d").publish("http://d:3001", List.of(Path.of("/srv/d")), true);
            a.publish("http://a:3001", List.of(Path.of("/srv/a")), false);
            assertTrue(a.shared());

            assertTrue(a.place(Path.of("/srv/a/x")).isLocal(), "own roots");
            NodeDirectory.Placement onB = a.place(Path.of("/srv/b/proj/../proj"));
            assertFalse(onB.isLocal());
            assertEquals("http://b:3001", onB.target().orElseThrow().advertiseUrl());
            NodeDirectory.Placement onC = a.place(Path.of("/srv/c/p"));
            assertTrue(onC.unavailable(), "a stopped node serves nothing: " + onC);
            assertEquals("node_c", onC.holders().getFirst().id());
            NodeDirectory.Placement onD = a.place(Path.of("/srv/d/p"));
            assertTrue(onD.unavailable(), "a node silent for 20 s (over " + NodeDirectory.SERVING_AGE + ") neither");
            assertTrue(onD.holders().getFirst().runnerOnly());
            NodeDirectory.Placement nowhere = a.place(Path.of("/srv/bb/p"));
            assertFalse(nowhere.isLocal() || nowhere.unavailable() || nowhere.target().isPresent(),
                    "/srv/bb is not under /srv/b, and no node declares it: " + nowhere);
        } finally {
            TestDatabases.dropPostgres(url);
        }
    }

    @Test
    void onSqliteEveryFolderIsThisNodes() {
        try (Store store = Store.open("jdbc:sqlite:" + tmp.resolve("w.db"))) {
            store.write(h -> h.execute("INSERT INTO nodes (id, host, pid, started_at, heartbeat_at) VALUES "
                    + "('node_a', 'h', 1, 1, 1)"));
            NodeDirectory a = NodeDirectory.of(store, "node_a");
            a.publish("http://127.0.0.1:3001", List.of(Path.of("/srv/a")), false);
            assertFalse(a.shared());
            assertTrue(a.place(Path.of("/elsewhere/p")).isLocal());
            assertEquals("http://127.0.0.1:3001", a.nodes().getFirst().advertiseUrl());
            assertEquals(List.of(Path.of("/srv/a")), a.nodes().getFirst().roots());
        }
    }
}
