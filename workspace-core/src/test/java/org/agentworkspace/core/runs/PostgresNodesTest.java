package org.agentworkspace.core.runs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import org.agentworkspace.core.TestDatabases;
import org.agentworkspace.core.store.Store;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Several engines (nodes) on one PostgreSQL store (docs/scale-out.md "Ownership"): a live node's runs are never
 * touched by another node's start or sweep; a dead node's unfinished runs are settled once, {@code node_lost};
 * a node that comes back kills the leftover processes of its settled runs. Real processes, a throwaway database.
 */
class PostgresNodesTest {
    @TempDir
    Path tmp;

    String url;
    final List<AutoCloseable> open = new ArrayList<>();

    @BeforeEach
    void create() {
        url = TestDatabases.createPostgres();
    }

    @AfterEach
    void drop() throws Exception {
        for (AutoCloseable c : open.reversed()) {
            c.close();
        }
        TestDatabases.dropPostgres(url);
    }

    Store store() {
        Store s = Store.open(url);
        open.add(s);
        return s;
    }

    RunEngine engine(Store store, String nodeId) {
        RunEngine e = RunEngine.open(store, AbstractRunStoreTest.settings(), Clock.systemUTC(),
                new RunNode(nodeId, "test-host"));
        open.add(e);
        return e;
    }

    /** A run of a node that died: its row, its log, and optionally a process of it still on this host. */
    static void deadNodeRun(Store store, String runId, String nodeId, String status, long heartbeatAgoMs) {
        store.write(h -> {
            h.execute("INSERT INTO nodes (id, host, pid, started_at, heartbeat_at) VALUES (?, 'gone-host', 1, 1, "
                    + "CAST(EXTRACT(EPOCH FROM clock_timestamp()) * 1000 AS BIGINT) - ?) ON CONFLICT (id) DO NOTHING",
                    nodeId, heartbeatAgoMs);
            h.execute("INSERT INTO runs (id, provider, status, created_at, metadata, node_id) VALUES (?, 'claude', ?, "
                    + "1, '{}', ?)", runId, status, nodeId);
            h.execute("INSERT INTO run_events (run_id, seq, kind, payload, created_at) VALUES (?, 1, 'status', "
                    + "'{\"status\":\"queued\"}', 1)", runId);
            return null;
        });
    }

    @Test
    void aLiveNodesRunSurvivesAnotherNodesStartAndSweeps() throws Exception {
        RunFixtures fx = new RunFixtures(tmp);
        RunEngine a = engine(store(), "node_a");
        RunHandle run = a.start(RunFixtures.request(fx.claude("AW_FAKE_SILENCE_MS", "60000")));
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (a.find(run.id()).orElseThrow().status() != RunStatus.RUNNING && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        assertEquals(RunStatus.RUNNING, a.find(run.id()).orElseThrow().status());

        RunEngine b = engine(store(), "node_b");
        assertEquals(0, b.sweepLost(), "node_a is alive");
        assertEquals(RunStatus.RUNNING, b.find(run.id()).orElseThrow().status());
        assertTrue(!RunFixtures.leftovers(Set.of(run.id()), List.of()).isEmpty(), "its process is alive");
        // a's heartbeat goes on, b's sweeps keep finding nothing; a's run ends by a's own hand
        assertTrue(a.cancel(run.id()));
        RunInfo done = a.awaitCompletion(run.id(), Duration.ofSeconds(30)).orElseThrow();
        assertEquals(RunStatus.CANCELLED, done.status());
        assertEquals(0, b.sweepLost());
    }

    /**
     * A follower on node B of a run executed by node A gets each entry at A's commit through LISTEN/NOTIFY: B's poll
     * interval is 5 s here, so polling could not deliver within the bound checked.
     */
    @Test
    void aFollowerOnAnotherNodeIsWokenAtTheCommitNotByPolling() throws Exception {
        RunFixtures fx = new RunFixtures(tmp);
        RunEngine a = engine(store(), "node_a");
        Store sb = store();
        RunEngine b = RunEngine.open(sb, AbstractRunStoreTest.settings().withPollInterval(Duration.ofSeconds(5)),
                Clock.systemUTC(), new RunNode("node_b", "test-host"));
        open.add(b);
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (!b.listeningToOtherNodes() && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        assertTrue(b.listeningToOtherNodes(), "B listens");
        RunHandle run = a.start(RunFixtures.request(fx.claude("AW_FAKE_EVENTS", "30", "AW_FAKE_DELAY_MS", "150")));
        List<Long> latencies = new ArrayList<>();
        List<RunEntry> got = new ArrayList<>();
        try (RunCursor c = b.follow(run.id(), 0)) {
            for (java.util.Optional<RunEntry> e = c.poll(Duration.ofSeconds(60)); e.isPresent();
                 e = c.poll(Duration.ofSeconds(60))) {
                latencies.add(System.currentTimeMillis() - e.get().at().toEpochMilli());
                got.add(e.get());
            }
            assertTrue(c.finished(), "the follower on B saw the end");
        }
        for (int i = 0; i < got.size(); i++) {
            assertEquals(i + 1, got.get(i).seq(), "every entry once, in order");
        }
        assertTrue(got.size() > 30, "the whole log: " + got.size());
        List<Long> sorted = latencies.stream().sorted().toList();
        long median = sorted.get(sorted.size() / 2);
        long p90 = sorted.get(sorted.size() * 9 / 10);
        System.out.println("PostgresNodesTest: follower on another node, latency from the line to the reader: median "
                + median + " ms, p90 " + p90 + " ms, max " + sorted.getLast() + " ms over " + sorted.size()
                + " entries");
        // polling every 5 s would put the median near 2.5 s
        assertTrue(median < 100, "median " + median + " ms: " + sorted);
        assertTrue(p90 < 1000, "p90 " + p90 + " ms: " + sorted);
    }

    @Test
    void aDeadNodesUnfinishedRunsAreSettledOnceWithTheReason() throws Exception {
        Store s = store();
        RunEngine b = engine(s, "node_b");
        RunEngine c = engine(store(), "node_c");
        deadNodeRun(s, "run_deadrunning", "node_dead", "running", 60_000);
        deadNodeRun(s, "run_deadqueued", "node_dead", "queued", 60_000);
        // a node that is late by less than the lease is not dead
        deadNodeRun(s, "run_lateone", "node_late", "running", 10_000);

        // both nodes sweep at once, several times over (their heartbeats may sweep meanwhile too)
        ExecutorService pool = Executors.newFixedThreadPool(8);
        try {
            List<Callable<Integer>> all = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                all.add(b::sweepLost);
                all.add(c::sweepLost);
            }
            int settled = 0;
            for (Future<Integer> f : pool.invokeAll(all)) {
                settled += f.get();
            }
            assertTrue(settled <= 2, "each run is settled once at most: " + settled);
        } finally {
            pool.shutdownNow();
        }
        for (String id : List.of("run_deadrunning", "run_deadqueued")) {
            RunInfo info = b.find(id).orElseThrow();
            assertEquals(RunStatus.FAILED, info.status(), id);
            assertEquals("node_lost", info.reason());
            assertTrue(info.findFinishedAt().isPresent());
            List<RunEntry> log = RunFixtures.all(b, id);
            assertEquals(2, log.size(), "one terminal status: " + log);
            assertEquals("{\"status\":\"failed\",\"reason\":\"node_lost\",\"node\":\"node_dead\","
                    + "\"host\":\"gone-host\"}", log.getLast().payload());
        }
        assertEquals(RunStatus.RUNNING, b.find("run_lateone").orElseThrow().status(), "a late node is not dead");
        assertEquals(0, b.sweepLost());
    }

    @Test
    void aNodeThatComesBackKillsTheProcessesOfItsSettledRunsAndRecoversItsOwn() throws Exception {
        Store s = store();
        RunEngine b = engine(s, "node_b");
        deadNodeRun(s, "run_lostproc", "node_back", "running", 60_000);
        assertEquals(1, b.sweepLost());
        b.close(); // no sweep of b's may settle the run below before node_back is back
        // the node died but its process lives on (it was in its own session): it is still running on this host
        ProcessBuilder pb = new ProcessBuilder("/bin/sh", "-c", "sleep 600 & wait")
                .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")))
                .redirectOutput(ProcessBuilder.Redirect.DISCARD).redirectError(ProcessBuilder.Redirect.DISCARD);
        pb.environment().put("AW_RUN_ID", "run_lostproc");
        Process orphan = pb.start();
        // and a run it left unfinished within the lease (it came back quickly): its own, "server restarted"
        deadNodeRun(s, "run_ownunfinished", "node_back", "running", 0);
        try {
            long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
            while (RunFixtures.leftovers(Set.of("run_lostproc"), List.of()).size() < 2
                    && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            assertEquals(2, RunFixtures.leftovers(Set.of("run_lostproc"), List.of()).size(), "sh and sleep");

            RunEngine back = engine(store(), "node_back");

            assertEquals(Set.of(), RunFixtures.leftovers(Set.of("run_lostproc"), List.of()), "reaped");
            assertEquals("node_lost", back.find("run_lostproc").orElseThrow().reason(), "the settle stands");
            RunInfo own = back.find("run_ownunfinished").orElseThrow();
            assertEquals(RunStatus.FAILED, own.status());
            assertEquals("server restarted", own.reason());
        } finally {
            orphan.destroyForcibly();
        }
    }
}
