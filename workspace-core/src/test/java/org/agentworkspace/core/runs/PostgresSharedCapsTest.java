package org.agentworkspace.core.runs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import org.agentworkspace.api.WorkspaceException;
import org.agentworkspace.core.TestDatabases;
import org.agentworkspace.core.store.Store;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The run caps hold across the nodes of one PostgreSQL store (docs/scale-out.md "Shared limits"): two engines (two
 * nodes, each with its own connection pool) on a throwaway database, real processes of the fake CLI. A run waiting on
 * one node for a slot freed on the other starts at once (the {@code aw_run_slots} notice), not at the next heartbeat.
 */
class PostgresSharedCapsTest {
    /** Well under the heartbeat (5 s): a start this soon after the slot was freed came from the notice. */
    private static final long PROMPT_MS = 1500;

    @TempDir
    Path tmp;

    String url;
    RunFixtures fx;
    final List<AutoCloseable> open = new ArrayList<>();

    @BeforeEach
    void create() {
        url = TestDatabases.createPostgres();
        fx = new RunFixtures(tmp);
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

    RunEngine node(String id, RunSettings settings) throws InterruptedException {
        RunEngine e = RunEngine.open(store(), settings, Clock.systemUTC(), new RunNode(id, "test-host"));
        open.add(e);
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (!e.listeningToOtherNodes() && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertTrue(e.listeningToOtherNodes(), id + " listens");
        return e;
    }

    RunRequest longRun(String provider, String account) {
        return new RunRequest(provider, fx.claude("AW_FAKE_SILENCE_MS", "60000"), RunFixtures.claudeParser(), "{}",
                account);
    }

    static void awaitStatus(RunEngine e, String runId, RunStatus want) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (e.find(runId).orElseThrow().status() != want && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
        assertEquals(want, e.find(runId).orElseThrow().status(), runId);
    }

    /** Still queued after a while the run would have needed to start (its process spawns in a few ms). */
    static void staysQueued(RunEngine e, String runId) throws InterruptedException {
        Thread.sleep(1000);
        assertEquals(RunStatus.QUEUED, e.find(runId).orElseThrow().status(), runId + " waits");
    }

    /** Cancels {@code freed} on its node and measures how long {@code waiting} (on the other node) takes to start. */
    static long freeAndTime(RunEngine owner, String freed, RunEngine other, String waiting) throws Exception {
        assertTrue(owner.cancel(freed));
        owner.awaitCompletion(freed, Duration.ofSeconds(30)).orElseThrow();
        long t0 = System.nanoTime();
        awaitStatus(other, waiting, RunStatus.RUNNING);
        return (System.nanoTime() - t0) / 1_000_000;
    }

    @Test
    void theGlobalLimitHoldsAcrossNodesAndAWaitingRunStartsWhenAnotherNodeFreesASlot() throws Exception {
        RunSettings s = AbstractRunStoreTest.settings().withLimits(2, Map.of());
        RunEngine a = node("node_a", s);
        RunEngine b = node("node_b", s);
        String a1 = a.start(longRun("claude", null)).id();
        String a2 = a.start(longRun("claude", null)).id();
        awaitStatus(a, a1, RunStatus.RUNNING);
        awaitStatus(a, a2, RunStatus.RUNNING);
        String b1 = b.start(longRun("claude", null)).id();
        String b2 = b.start(longRun("claude", null)).id();
        staysQueued(b, b1);
        assertEquals(RunStatus.QUEUED, b.find(b2).orElseThrow().status());

        long first = freeAndTime(a, a1, b, b1);
        assertEquals(RunStatus.QUEUED, b.find(b2).orElseThrow().status(), "one slot was freed, one run started");
        long second = freeAndTime(a, a2, b, b2);
        System.out.println("PostgresSharedCapsTest: a run waiting on node B started " + first + " ms and " + second
                + " ms after node A's run ended");
        assertTrue(first < PROMPT_MS && second < PROMPT_MS, first + " ms, " + second + " ms");
        // and A, whose runs have ended, now finds the two slots taken by B
        String a3 = a.start(longRun("claude", null)).id();
        staysQueued(a, a3);
        long third = freeAndTime(b, b1, a, a3);
        assertTrue(third < PROMPT_MS, third + " ms");
    }

    @Test
    void theQueuedRunsOfAnAccountAreCountedOnEveryNode() throws Exception {
        RunSettings s = AbstractRunStoreTest.settings().withLimits(1, Map.of()).withAccountLimits(2, 1);
        RunEngine a = node("node_a", s);
        RunEngine b = node("node_b", s);
        String running = a.start(longRun("claude", "acct1")).id();
        awaitStatus(a, running, RunStatus.RUNNING);
        a.start(longRun("claude", "acct1"));
        b.start(longRun("claude", "acct1"));
        // two of acct1's runs wait, one on each node: a third is refused on either node
        for (RunEngine e : List.of(b, a)) {
            WorkspaceException.RateLimited refused = assertThrows(WorkspaceException.RateLimited.class,
                    () -> e.start(longRun("claude", "acct1")));
            assertEquals(RunEngine.TOO_MANY_QUEUED_RUNS, refused.code());
        }
        // nothing of a refused run is stored
        assertEquals(3, b.list(RunQuery.newest()).size(), "three runs stored");
        // another account may still queue
        String other = b.start(longRun("claude", "acct2")).id();
        assertEquals(RunStatus.QUEUED, b.find(other).orElseThrow().status());
    }

    @Test
    void theProviderAndAccountLimitsHoldAcrossNodes() throws Exception {
        RunSettings s = AbstractRunStoreTest.settings().withLimits(8, Map.of("claude", 1)).withAccountLimits(20, 1);
        RunEngine a = node("node_a", s);
        RunEngine b = node("node_b", s);
        String claudeOnA = a.start(longRun("claude", "acct1")).id();
        awaitStatus(a, claudeOnA, RunStatus.RUNNING);
        // claude is at its limit on A: B's claude run waits, B's codex run of another account starts
        String claudeOnB = b.start(longRun("claude", "acct2")).id();
        String codexOnB = b.start(longRun("codex", "acct2")).id();
        awaitStatus(b, codexOnB, RunStatus.RUNNING);
        // acct1 has its one running run on A: its codex run on B waits, though codex has room
        String acct1OnB = b.start(longRun("codex", "acct1")).id();
        staysQueued(b, claudeOnB);
        assertEquals(RunStatus.QUEUED, b.find(acct1OnB).orElseThrow().status());

        // acct2's codex run on B also holds acct2's one slot; end it so only the provider limit holds claudeOnB
        assertTrue(b.cancel(codexOnB));
        b.awaitCompletion(codexOnB, Duration.ofSeconds(30)).orElseThrow();
        staysQueued(b, claudeOnB);
        // A's claude run ends: B's claude run (acct2) and acct1's codex run start
        long claudeStart = freeAndTime(a, claudeOnA, b, claudeOnB);
        awaitStatus(b, acct1OnB, RunStatus.RUNNING);
        assertTrue(claudeStart < PROMPT_MS, claudeStart + " ms");
    }

    @Test
    void runsOfADeadNodeDoNotHoldSlots() throws Exception {
        RunSettings s = AbstractRunStoreTest.settings().withLimits(1, Map.of());
        RunEngine b = node("node_b", s);
        Store raw = store();
        PostgresNodesTest.deadNodeRun(raw, "run_deadslot", "node_dead", "running", 60_000);
        PostgresNodesTest.deadNodeRun(raw, "run_liveslot", "node_live", "running", 0);
        // a live node's running run holds the one slot
        String waits = b.start(longRun("claude", null)).id();
        staysQueued(b, waits);
        // once that node is dead too, its run no longer counts (the heartbeat retries, the sweep settles it)
        raw.write(h -> h.execute("UPDATE nodes SET heartbeat_at = heartbeat_at - 60000 WHERE id = 'node_live'"));
        b.sweepLost();
        awaitStatus(b, waits, RunStatus.RUNNING);
    }

    /**
     * Runs started at once on both nodes from many threads never have more than the global limit running: a slot
     * is counted and taken in one locked transaction.
     */
    @Test
    void concurrentStartsOnTwoNodesNeverExceedTheGlobalLimit() throws Exception {
        RunSettings s = AbstractRunStoreTest.settings().withLimits(2, Map.of());
        RunEngine a = node("node_a", s);
        RunEngine b = node("node_b", s);
        ExecutorService pool = Executors.newFixedThreadPool(8);
        List<String> ids = new ArrayList<>();
        try {
            List<Callable<String>> starts = new ArrayList<>();
            for (int i = 0; i < 12; i++) {
                RunEngine e = i % 2 == 0 ? a : b;
                starts.add(() -> e.start(new RunRequest("claude", fx.claude("AW_FAKE_SILENCE_MS", "400"),
                        RunFixtures.claudeParser(), "{}", null)).id());
            }
            for (Future<String> f : pool.invokeAll(starts)) {
                ids.add(f.get());
            }
        } finally {
            pool.shutdownNow();
        }
        List<long[]> spans = new ArrayList<>();
        for (String id : ids) {
            RunInfo info = a.awaitCompletion(id, Duration.ofSeconds(60)).orElseThrow();
            assertEquals(RunStatus.SUCCEEDED, info.status(), id + " " + info.reason());
            spans.add(new long[] {info.startedAt().toEpochMilli(), info.findFinishedAt().orElseThrow().toEpochMilli()});
        }
        int max = 0;
        for (long[] span : spans) {
            int overlapping = 0;
            for (long[] other : spans) {
                if (other[0] <= span[0] && span[0] < other[1]) {
                    overlapping++;
                }
            }
            max = Math.max(max, overlapping);
        }
        System.out.println("PostgresSharedCapsTest: at most " + max + " of 12 runs ran at once on two nodes");
        assertTrue(max <= 2, "at most 2 at once: " + max);
    }
}
