package org.agentworkspace.core.runs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
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
 * A node that dies with runs still queued (docs/scale-out.md "Ownership"): another node takes each queued run that
 * has a launch spec (exactly one node, even when several sweep at once), queues it under the same id and runs it to
 * the end; a queued run without a spec, or whose spec cannot be rebuilt on the taking node, is settled
 * {@code node_lost} with the reason. Real processes (the fake claude CLI), a throwaway PostgreSQL database.
 */
class PostgresTakeoverTest {
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

    RunEngine engine(Store store, String nodeId, RunSettings settings) {
        RunEngine e = RunEngine.open(store, settings, Clock.systemUTC(), new RunNode(nodeId, "host-" + nodeId));
        open.add(e);
        return e;
    }

    /** What the agent service does: rebuild the request from the spec, refuse what this node cannot start. */
    static RunTakeover rebuilder(RunFixtures fx) {
        return (runId, spec) -> {
            if (spec.contains("elsewhere")) {
                throw new IllegalStateException("its project folder /elsewhere is not on this node");
            }
            return new RunRequest("claude", fx.claude("AW_FAKE_EVENTS", "5"), RunFixtures.claudeParser(), "{}", "7");
        };
    }

    /** Node A, one run at a time, busy with a long run (no launch spec): the runs queued after it wait. */
    RunEngine nodeA(Store s, RunFixtures fx) throws InterruptedException {
        RunEngine a = engine(s, "node_a", AbstractRunStoreTest.settings().withLimits(1, Map.of()));
        RunHandle blocker = a.start(RunFixtures.request(fx.claude("AW_FAKE_SILENCE_MS", "60000")));
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (a.find(blocker.id()).orElseThrow().status() != RunStatus.RUNNING && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        assertEquals(RunStatus.RUNNING, a.find(blocker.id()).orElseThrow().status());
        return a;
    }

    static RunHandle queue(RunEngine a, RunFixtures fx, String spec) {
        RunRequest r = new RunRequest("claude", fx.claude("AW_FAKE_EVENTS", "5"), RunFixtures.claudeParser(), "{}",
                "7");
        return a.start(r, spec == null ? null : a.withLaunchSpec(null, spec));
    }

    /** A dies as far as the store can tell: no more heartbeats, and its last one a minute old. */
    static void kill(RunEngine a, Store s) {
        a.stopHeartbeatForTest();
        s.write(h -> h.execute("UPDATE nodes SET heartbeat_at = heartbeat_at - 60000 WHERE id = 'node_a'"));
    }

    static String nodeOf(Store s, String runId) {
        return s.read(h -> h.createQuery("SELECT node_id FROM runs WHERE id = :id").bind("id", runId)
                .mapTo(String.class).one());
    }

    static long takeovers(List<RunEntry> log) {
        return log.stream().filter(e -> e.kind() == EntryKind.STATUS && e.payload().contains("\"taken_over\""))
                .count();
    }

    @Test
    void aDeadNodesQueuedRunsAreTakenOverAndRunToTheEndUnderTheSameIds() throws Exception {
        RunFixtures fx = new RunFixtures(tmp);
        Store s = store();
        RunEngine a = nodeA(s, fx);
        RunEngine b = engine(store(), "node_b", AbstractRunStoreTest.settings());
        b.onTakeover(rebuilder(fx));
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            ids.add(queue(a, fx, "{\"v\":1}").id());
        }
        String noSpec = queue(a, fx, null).id();
        String elsewhere = queue(a, fx, "{\"v\":1,\"projectDir\":\"/elsewhere\"}").id();
        Thread.sleep(300);
        for (String id : ids) {
            assertEquals(RunStatus.QUEUED, a.find(id).orElseThrow().status(), "A cannot start it");
        }
        assertEquals(0, b.sweepLost(), "A is alive: nothing is taken");

        kill(a, s);
        assertEquals(6, b.sweepLost(), "3 taken over; 3 settled: A's running run, the one without a spec and the "
                + "one B cannot start");
        assertEquals(0, b.sweepLost());

        for (String id : ids) {
            RunInfo done = b.awaitCompletion(id, Duration.ofSeconds(60)).orElseThrow();
            assertEquals(RunStatus.SUCCEEDED, done.status(), id);
            assertEquals("node_b", nodeOf(s, id), "B ran it");
            List<RunEntry> log = RunFixtures.all(b, id);
            for (int i = 0; i < log.size(); i++) {
                assertEquals(i + 1, log.get(i).seq(), "one log, in order: " + log);
            }
            assertEquals("{\"status\":\"queued\"}", log.getFirst().payload(), "A's entry");
            assertEquals("{\"status\":\"queued\",\"reason\":\"taken_over\",\"from\":\"node_a\",\"fromHost\":"
                    + "\"host-node_a\",\"node\":\"node_b\"}", log.get(1).payload());
            assertEquals(1, takeovers(log));
            assertTrue(log.stream().anyMatch(e -> e.kind() == EntryKind.EVENT), "B's process wrote events: " + log);
            assertTrue(log.getLast().payload().contains("\"succeeded\""), log.getLast().payload());
        }
        RunInfo lost = b.find(noSpec).orElseThrow();
        assertEquals(RunStatus.FAILED, lost.status());
        assertEquals("node_lost", lost.reason());
        assertTrue(RunFixtures.all(b, noSpec).getLast().payload().contains("without a launch spec"));
        RunInfo notHere = b.find(elsewhere).orElseThrow();
        assertEquals(RunStatus.FAILED, notHere.status());
        assertEquals("node_lost", notHere.reason());
        assertTrue(RunFixtures.all(b, elsewhere).getLast().payload()
                .contains("could not start it: its project folder /elsewhere is not on this node"));
    }

    @Test
    void twoSweepingNodesTakeEachQueuedRunOnce() throws Exception {
        RunFixtures fx = new RunFixtures(tmp);
        Store s = store();
        RunEngine a = nodeA(s, fx);
        RunEngine b = engine(store(), "node_b", AbstractRunStoreTest.settings());
        RunEngine c = engine(store(), "node_c", AbstractRunStoreTest.settings());
        b.onTakeover(rebuilder(fx));
        c.onTakeover(rebuilder(fx));
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            ids.add(queue(a, fx, "{\"v\":1}").id());
        }
        kill(a, s);
        ExecutorService pool = Executors.newFixedThreadPool(8);
        int taken = 0;
        try {
            List<Callable<Integer>> all = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                all.add(b::sweepLost);
                all.add(c::sweepLost);
            }
            for (Future<Integer> f : pool.invokeAll(all)) {
                taken += f.get();
            }
        } finally {
            pool.shutdownNow();
        }
        assertTrue(taken <= 7, "each run is taken (or A's running one settled) once at most: " + taken);
        for (String id : ids) {
            String node = nodeOf(s, id);
            assertTrue(Set.of("node_b", "node_c").contains(node), node);
            RunEngine taker = node.equals("node_b") ? b : c;
            RunInfo done = taker.awaitCompletion(id, Duration.ofSeconds(60)).orElseThrow();
            assertEquals(RunStatus.SUCCEEDED, done.status(), id);
            List<RunEntry> log = RunFixtures.all(b, id);
            assertEquals(1, takeovers(log), "taken once: " + log);
            assertTrue(log.get(1).payload().contains("\"node\":\"" + node + "\""), log.get(1).payload());
            assertEquals(1, log.stream().filter(e -> e.payload().contains("\"running\"")).count(),
                    "started once: " + log);
        }
    }
}
