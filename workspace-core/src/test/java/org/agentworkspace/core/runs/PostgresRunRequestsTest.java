package org.agentworkspace.core.runs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;

import org.agentworkspace.api.WorkspaceException;
import org.agentworkspace.core.TestDatabases;
import org.agentworkspace.core.store.Store;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Control of a run from a node that does not run it (docs/scale-out.md "Control from any node"): cancel, stdin
 * writes and closing stdin made on node B reach the run on node A through a stored request that A takes at B's
 * commit (its NOTIFY), not at A's heartbeat poll (5 s); B's poll interval is 5 s too, so only the notices can explain
 * the times checked. A request for a run whose node is dead or silent is answered at once and clearly. Real
 * processes, a throwaway PostgreSQL database.
 */
class PostgresRunRequestsTest {
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

    /** A node whose readers poll only every 5 s: what arrives sooner was woken by a notice. */
    RunEngine node(String nodeId) throws InterruptedException {
        RunEngine e = RunEngine.open(store(), AbstractRunStoreTest.settings().withPollInterval(Duration.ofSeconds(5)),
                Clock.systemUTC(), new RunNode(nodeId, "test-host"));
        open.add(e);
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (!e.listeningToOtherNodes() && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        assertTrue(e.listeningToOtherNodes(), nodeId + " listens");
        return e;
    }

    static void awaitStatus(RunEngine e, String runId, RunStatus status) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (e.find(runId).orElseThrow().status() != status && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        assertEquals(status, e.find(runId).orElseThrow().status());
    }

    static long ms(long sinceNanos) {
        return Duration.ofNanos(System.nanoTime() - sinceNanos).toMillis();
    }

    long requestRows(Store s) {
        return s.read(h -> h.createQuery("SELECT COUNT(*) FROM run_requests").mapTo(Long.class).one());
    }

    @Test
    void aCancelOnAnotherNodeReachesTheRunAtTheCommitAndAnswersAsALocalCancel() throws Exception {
        RunFixtures fx = new RunFixtures(tmp);
        RunEngine a = node("node_a");
        RunEngine b = node("node_b");
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            ids.add(a.start(RunFixtures.request(fx.claude("AW_FAKE_SILENCE_MS", "60000"))).id());
        }
        for (String id : ids) {
            awaitStatus(a, id, RunStatus.RUNNING);
        }
        List<Long> answered = new ArrayList<>();
        List<Long> ended = new ArrayList<>();
        for (String id : ids) {
            long t0 = System.nanoTime();
            assertTrue(b.cancel(id), "B's cancel of A's running run is carried out by A");
            answered.add(ms(t0));
            RunInfo done = b.awaitCompletion(id, Duration.ofSeconds(20)).orElseThrow();
            ended.add(ms(t0));
            assertEquals(RunStatus.CANCELLED, done.status(), done.toString());
            assertEquals("cancelled", done.reason());
        }
        System.out.println("PostgresRunRequestsTest: cancel on B of a run on A answered after " + answered
                + " ms, run seen cancelled on B after " + ended + " ms");
        List<Long> sorted = answered.stream().sorted().toList();
        // A's worker polls only every 5 s and B's readers every 5 s: these bounds hold only through the notices
        assertTrue(sorted.get(sorted.size() / 2) < 300, "median answer " + sorted);
        assertTrue(sorted.getLast() < 1500, "slowest answer " + sorted);
        assertTrue(ended.stream().allMatch(t -> t < 3000), "ends (kill grace 500 ms) " + ended);
        assertEquals(Set.of(), RunFixtures.leftovers(Set.copyOf(ids), List.of()), "A killed every process");
        assertFalse(b.cancel(ids.getFirst()), "an ended run: false, as a local cancel says");
        assertFalse(a.cancel(ids.getFirst()));
        assertEquals(0, requestRows(store()), "answered requests are removed");
        assertThrows(WorkspaceException.NotFound.class, () -> b.cancel("run_nosuchrun0000000000"));
    }

    @Test
    void aQueuedRunOfAnotherNodeIsCancelledToo() throws Exception {
        RunFixtures fx = new RunFixtures(tmp);
        RunEngine a = RunEngine.open(store(), AbstractRunStoreTest.settings().withLimits(1, java.util.Map.of()),
                Clock.systemUTC(), new RunNode("node_a", "test-host"));
        open.add(a);
        RunEngine b = node("node_b");
        RunHandle first = a.start(RunFixtures.request(fx.claude("AW_FAKE_SILENCE_MS", "60000")));
        RunHandle waiting = a.start(RunFixtures.request(fx.claude("AW_FAKE_SILENCE_MS", "60000")));
        awaitStatus(a, first.id(), RunStatus.RUNNING);
        assertEquals(RunStatus.QUEUED, a.find(waiting.id()).orElseThrow().status());
        assertTrue(b.cancel(waiting.id()));
        RunInfo done = b.awaitCompletion(waiting.id(), Duration.ofSeconds(10)).orElseThrow();
        assertEquals(RunStatus.CANCELLED, done.status());
        assertEquals("cancelled while queued", done.reason());
        assertTrue(b.cancel(first.id()));
        assertEquals(RunStatus.CANCELLED, b.awaitCompletion(first.id(), Duration.ofSeconds(20)).orElseThrow().status());
    }

    @Test
    void stdinWritesAndItsCloseFromAnotherNodeReachTheProcess() throws Exception {
        RunFixtures fx = new RunFixtures(tmp);
        RunEngine a = node("node_a");
        RunEngine b = node("node_b");
        // `cat` echoes each line it reads and ends only at EOF
        RunHandle h = a.start(RunRequest.of("claude",
                ProcessSpec.of(List.of("cat"), fx.env(), fx.project).interactive("first\n"), LineParser.none()));
        awaitStatus(a, h.id(), RunStatus.RUNNING);
        List<Long> answered = new ArrayList<>();
        try (RunCursor c = b.follow(h.id(), 0)) {
            for (String line : List.of("from-b-1", "from-b-2", "from-b-3")) {
                long t0 = System.nanoTime();
                assertTrue(b.write(h.id(), line + "\n"), "written by A on B's request");
                answered.add(ms(t0));
                // the echo arrives on B's follower (woken by A's notice)
                while (true) {
                    Optional<RunEntry> e = c.poll(Duration.ofSeconds(10));
                    assertTrue(e.isPresent(), "the echo of " + line);
                    if (e.get().kind() == EntryKind.NATIVE && e.get().payload().contains(line)) {
                        break;
                    }
                }
            }
            long t0 = System.nanoTime();
            assertTrue(b.closeInput(h.id()), "closed by A on B's request");
            answered.add(ms(t0));
            assertFalse(b.closeInput(h.id()), "already closed: false, as locally");
        }
        RunInfo done = b.awaitCompletion(h.id(), Duration.ofSeconds(10)).orElseThrow();
        assertEquals(RunStatus.SUCCEEDED, done.status(), "cat ended at EOF");
        assertFalse(b.write(h.id(), "late\n"), "an ended run takes nothing");
        System.out.println("PostgresRunRequestsTest: stdin requests on B of a run on A answered after " + answered
                + " ms");
        assertTrue(answered.stream().sorted().toList().get(answered.size() / 2) < 300, "median " + answered);
        assertTrue(answered.stream().allMatch(t -> t < 1500), "each " + answered);
        // a run that is not interactive: refused as locally (false), by A
        RunHandle plain = a.start(RunFixtures.request(fx.claude("AW_FAKE_SILENCE_MS", "60000")));
        awaitStatus(a, plain.id(), RunStatus.RUNNING);
        assertFalse(b.write(plain.id(), "x\n"));
        assertTrue(b.cancel(plain.id()));
    }

    @Test
    void aRequestForARunOfADeadOrSilentNodeIsAnsweredAtOnce() throws Exception {
        RunEngine b = node("node_b");
        Store s = store();
        // dead: no heartbeat for longer than the lease; the run is settled node_lost by the request itself
        PostgresNodesTest.deadNodeRun(s, "run_deadnode0000000000", "node_dead", "running", 60_000);
        long t0 = System.nanoTime();
        assertFalse(b.cancel("run_deadnode0000000000"), "nothing left to cancel");
        assertTrue(ms(t0) < 2000, "at once: " + ms(t0) + " ms");
        RunInfo lost = b.find("run_deadnode0000000000").orElseThrow();
        assertEquals(RunStatus.FAILED, lost.status());
        assertEquals("node_lost", lost.reason());

        // silent for 20 s (past two heartbeats, within the lease): not settled yet, so a clear refusal
        PostgresNodesTest.deadNodeRun(s, "run_silentnode00000000", "node_silent", "running", 20_000);
        t0 = System.nanoTime();
        WorkspaceException.Unavailable e = assertThrows(WorkspaceException.Unavailable.class,
                () -> b.write("run_silentnode00000000", "x\n"));
        assertEquals(RunEngine.RUN_NODE_LOST, e.code());
        assertTrue(e.getMessage().contains("node_lost") && e.getMessage().contains("gone-host"), e.getMessage());
        assertTrue(ms(t0) < 2000, "at once: " + ms(t0) + " ms");
        assertEquals(RunEngine.RUN_NODE_LOST, assertThrows(WorkspaceException.Unavailable.class,
                () -> b.cancel("run_silentnode00000000")).code());
        assertEquals(RunStatus.RUNNING, b.find("run_silentnode00000000").orElseThrow().status(), "not settled early");
        assertEquals(0, requestRows(s), "nothing was stored for a node that cannot answer");
    }

    @Test
    void aRequestNobodyTakesIsWithdrawnAndNeverCarriedOutLate() throws Exception {
        RunEngine b = node("node_b");
        Store s = store();
        // a node with a fresh heartbeat but no engine to take requests (as one stalled in a long pause)
        PostgresNodesTest.deadNodeRun(s, "run_stallednode0000000", "node_stalled", "running", 0);
        long t0 = System.nanoTime();
        WorkspaceException.Unavailable e = assertThrows(WorkspaceException.Unavailable.class,
                () -> b.cancel("run_stallednode0000000"));
        long took = ms(t0);
        assertEquals(RunEngine.RUN_NODE_NOT_ANSWERING, e.code(), e.getMessage());
        assertTrue(took >= RunEngine.REQUEST_WAIT.toMillis() - 100 && took < RunEngine.REQUEST_WAIT.toMillis() + 5000,
                "waited the bound: " + took + " ms");
        assertEquals(0, requestRows(s), "withdrawn: a node that wakes up later finds nothing to carry out");
    }

    @Test
    void deletingAnAccountOnOneNodeCancelsItsRunsOnTheOthers() throws Exception {
        RunFixtures fx = new RunFixtures(tmp);
        RunEngine a = node("node_a");
        RunEngine b = node("node_b");
        RunOwner owner = new RunOwner(42L, null, null, "test", null);
        RunHandle mine = a.start(RunFixtures.request(fx.claude("AW_FAKE_SILENCE_MS", "60000")).withOwner(owner));
        RunHandle other = a.start(RunFixtures.request(fx.claude("AW_FAKE_SILENCE_MS", "60000"))
                .withOwner(new RunOwner(7L, null, null, "test", null)));
        awaitStatus(a, mine.id(), RunStatus.RUNNING);
        awaitStatus(a, other.id(), RunStatus.RUNNING);
        assertEquals(1, b.cancelOwnedBy(42L), "account 42's run on A");
        RunInfo done = b.awaitCompletion(mine.id(), Duration.ofSeconds(20)).orElseThrow();
        assertEquals(RunStatus.CANCELLED, done.status());
        assertEquals(RunStatus.RUNNING, a.find(other.id()).orElseThrow().status(), "another account's run runs on");
        assertTrue(a.cancel(other.id()));
    }
}
