package org.agentworkspace.core.loop;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

import com.fasterxml.jackson.databind.ObjectMapper;

import org.agentworkspace.api.WorkspaceException;
import org.agentworkspace.api.vcs.VcsFactory;
import org.agentworkspace.core.files.VcsProviders;
import org.agentworkspace.core.runs.RunInfo;
import org.agentworkspace.core.runs.RunOwner;
import org.agentworkspace.core.runs.RunStatus;
import org.agentworkspace.core.store.Store;
import org.agentworkspace.testkit.git.GitCli;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The loop's store tables on each database: the release policy document, the review queue's rows driven through
 * its run observer against a real repository (ordering, filters, decisions, restart recovery), and CI repair plans.
 */
abstract class AbstractAgentLoopStoreTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    @TempDir
    Path tmp;
    protected String url;
    Store store;
    Clock clock = Clock.systemUTC();
    VcsFactory git = VcsProviders.load().find("git").orElseThrow();

    protected abstract String createDatabase();

    protected abstract void dropDatabase();

    @BeforeEach
    void open() {
        url = createDatabase();
        store = Store.open(url);
    }

    @AfterEach
    void close() {
        store.close();
        dropDatabase();
    }

    @Test
    void theReleasePolicyIsOneDocumentReplacedWhole() throws Exception {
        ReleasePolicies policies = new ReleasePolicies(store, clock);
        assertEquals(ReleasePolicy.DEFAULT, policies.get());
        ReleasePolicy p = ReleasePolicies.parse(JSON.readTree("""
                {"channel":"nightly","autoUpdate":true,"minimumVersion":"2.0.10","rolloutPercent":0,
                 "maintenanceWindow":{"days":["fri","mon"],"start":"23:45","durationMinutes":1440,"timezone":"UTC"}}
                """));
        ReleasePolicy stored = policies.put(p, "root");
        assertEquals("nightly", stored.channel());
        assertEquals(List.of("mon", "fri"), stored.maintenanceWindow().days());
        assertEquals("root", stored.updatedBy());
        ReleasePolicy again = policies.put(ReleasePolicies.parse(JSON.readTree(
                "{\"channel\":\"stable\",\"autoUpdate\":false}")), "other");
        assertEquals("stable", again.channel());
        assertNull(again.maintenanceWindow());
        assertEquals("other", policies.get().updatedBy());
        assertThrows(WorkspaceException.Validation.class, () -> ReleasePolicies.parse(JSON.readTree(
                "{\"channel\":\"stable\",\"autoUpdate\":false,\"minimumVersion\":\"01.2.3\"}")));
        assertThrows(WorkspaceException.Validation.class, () -> ReleasePolicies.parse(JSON.readTree("[]")));
    }

    private RunInfo run(String id, RunStatus status, String route, Path dir) {
        // the metadata names another account: the queue must take the owner from the typed columns, not from here
        String meta = JSON.createObjectNode().put("route", route).put("projectId", "p").put("userId", 99)
                .put("projectPath", dir.toString()).toString();
        return new RunInfo(id, "claude", status, Instant.now(), null, null, null, null, meta);
    }

    private static RunOwner owner(String route) {
        return new RunOwner(7L, "p", null, route, null);
    }

    @Test
    void reviewItemsFollowTheirRunsAndDecisions() throws Exception {
        GitCli cli = new GitCli(tmp.resolve("home"));
        Path dir = cli.repo(tmp.resolve("repo"), "a.txt", "a\n");
        ReviewQueue q = new ReviewQueue(store, clock, Optional.of(git), d -> false);

        q.starting(run("run_one", RunStatus.RUNNING, "automation", dir), owner("automation"), dir);
        Files.writeString(dir.resolve("a.txt"), "changed\n");
        Files.writeString(dir.resolve("b.txt"), "new\n");
        assertEquals("recording", q.find("run_one").orElseThrow().status());
        assertTrue(q.list(null, null).isEmpty(), "a running run is not listed");
        q.ended(run("run_one", RunStatus.SUCCEEDED, "automation", dir));
        ReviewItem one = q.find("run_one").orElseThrow();
        assertEquals("pending", one.status());
        assertEquals("completed", one.runStatus());
        assertEquals(1, one.filesAdded());
        assertEquals(1, one.filesModified());
        assertEquals(0, one.filesDeleted());
        assertEquals(7L, one.userId());

        // a run that changes nothing leaves no item and no refs
        q.starting(run("run_two", RunStatus.RUNNING, "task", dir), owner("task"), dir);
        q.ended(run("run_two", RunStatus.FAILED, "task", dir));
        assertEquals("unchanged", q.find("run_two").orElseThrow().status());
        assertEquals("", cli.out(dir, "for-each-ref", "refs/agent-workspace/runs/run_two"));

        // chat turns are not recorded
        q.starting(run("run_ws", RunStatus.RUNNING, "ws", dir), owner("ws"), dir);
        assertTrue(q.find("run_ws").isEmpty());

        // a run cut off by a restart is finished by recover()
        q.starting(run("run_three", RunStatus.RUNNING, "agent", dir), owner("agent"), dir);
        Files.delete(dir.resolve("b.txt"));
        new ReviewQueue(store, clock, Optional.of(git), d -> false).recover();
        ReviewItem three = q.find("run_three").orElseThrow();
        assertEquals("pending", three.status());
        assertEquals("failed", three.runStatus());
        assertEquals(1, three.filesDeleted());

        assertEquals(List.of("run_one", "run_three"), q.list(null, null).stream().map(ReviewItem::id).toList(),
                "pending items oldest first");
        q.decide("run_three", true, "ok", "root", false, false);
        assertEquals(List.of("run_one", "run_three"), q.list(null, null).stream().map(ReviewItem::id).toList());
        assertEquals(List.of("run_three"), q.list("approved", "p").stream().map(ReviewItem::id).toList());
        assertTrue(q.list("approved", "other").isEmpty());
        WorkspaceException twice = assertThrows(WorkspaceException.class,
                () -> q.decide("run_three", false, null, "root", false, false));
        assertEquals(LoopErrorCodes.REVIEW_ALREADY_DECIDED, twice.code());
        ReviewQueue.Decided rejected = q.decide("run_one", false, "no", "root", true, true);
        assertEquals("rejected", rejected.item().status());
        assertEquals("a\n", Files.readString(dir.resolve("a.txt")));
        assertEquals(List.of("run_one", "run_three"), q.list(null, null).stream().map(ReviewItem::id).toList(),
                "decided items most recently decided first");
        assertEquals(LoopErrorCodes.REVIEW_ITEM_NOT_FOUND, assertThrows(WorkspaceException.class,
                () -> q.detail("run_two", 10)).code());
        assertEquals(2, q.detail("run_one", 10).changes().total());
    }

    @Test
    void aRunCannotHideOrRewriteItsOwnRecord() throws Exception {
        GitCli cli = new GitCli(tmp.resolve("home"));
        Path dir = cli.repo(tmp.resolve("repo"), "a.txt", "a\n");
        ReviewQueue q = new ReviewQueue(store, clock, Optional.of(git), d -> false);

        // deleting its before ref (and changing a file) does not drop the run from the queue
        q.starting(run("run_hide", RunStatus.RUNNING, "automation", dir), owner("automation"), dir);
        String recorded = q.find("run_hide").orElseThrow().beforeCommit();
        assertTrue(recorded.matches("[0-9a-f]{40}"), recorded);
        Files.writeString(dir.resolve("a.txt"), "evil\n");
        cli.out(dir, "update-ref", "-d", "refs/agent-workspace/runs/run_hide/before");
        q.ended(run("run_hide", RunStatus.SUCCEEDED, "automation", dir));
        ReviewItem hidden = q.find("run_hide").orElseThrow();
        assertEquals("pending", hidden.status());
        assertTrue(hidden.recordChanged());
        assertEquals(1, hidden.filesModified(), "counted from the recorded commit");
        assertTrue(q.diff("run_hide").diff().contains("+evil"), "the diff is read from the recorded commits");
        assertEquals(LoopErrorCodes.REVIEW_RECORD_CHANGED, assertThrows(WorkspaceException.class,
                () -> q.decide("run_hide", false, null, "root", true, true)).code());
        assertEquals("pending", q.find("run_hide").orElseThrow().status(), "a refused revert decides nothing");
        q.decide("run_hide", false, "hid its record", "root", false, false);

        // moving the before ref to a tree that already holds the change: not "unchanged", and no revert from it
        q.starting(run("run_move", RunStatus.RUNNING, "automation", dir), owner("automation"), dir);
        Files.writeString(dir.resolve("a.txt"), "evil again\n");
        cli.out(dir, "add", "-A");
        cli.out(dir, "commit", "-q", "-m", "looks harmless");
        cli.out(dir, "update-ref", "refs/agent-workspace/runs/run_move/before", "HEAD");
        q.ended(run("run_move", RunStatus.SUCCEEDED, "automation", dir));
        ReviewItem moved = q.find("run_move").orElseThrow();
        assertEquals("pending", moved.status());
        assertTrue(moved.recordChanged());
        assertEquals(1, moved.filesModified());
        assertTrue(q.detail("run_move", 10).changes().total() == 1, "the change list is read from the recorded commits");
        assertEquals(LoopErrorCodes.REVIEW_RECORD_CHANGED, assertThrows(WorkspaceException.class,
                () -> q.decide("run_move", false, null, "root", true, true)).code());

        // removing the repository itself keeps the item too
        q.starting(run("run_gone", RunStatus.RUNNING, "automation", dir), owner("automation"), dir);
        Path gitDir = dir.resolve(".git");
        Path aside = tmp.resolve("git-aside");
        Files.move(gitDir, aside);
        q.ended(run("run_gone", RunStatus.SUCCEEDED, "automation", dir));
        ReviewItem gone = q.find("run_gone").orElseThrow();
        assertEquals("pending", gone.status());
        assertTrue(gone.recordChanged());
        Files.move(aside, gitDir);
    }

    @Test
    void twoRejectsWithRevertAtOnceDecideOnce() throws Exception {
        GitCli cli = new GitCli(tmp.resolve("home"));
        Path dir = cli.repo(tmp.resolve("repo"), "a.txt", "a\n");
        ReviewQueue q = new ReviewQueue(store, clock, Optional.of(git), d -> false);
        q.starting(run("run_twice", RunStatus.RUNNING, "automation", dir), owner("automation"), dir);
        Files.writeString(dir.resolve("a.txt"), "changed\n");
        q.ended(run("run_twice", RunStatus.SUCCEEDED, "automation", dir));
        java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(2);
        java.util.concurrent.CountDownLatch go = new java.util.concurrent.CountDownLatch(1);
        List<java.util.concurrent.Future<String>> both = new java.util.ArrayList<>();
        for (int i = 0; i < 2; i++) {
            both.add(pool.submit(() -> {
                go.await();
                try {
                    q.decide("run_twice", false, null, "root", true, false);
                    return "decided";
                } catch (WorkspaceException e) {
                    return e.code();
                }
            }));
        }
        go.countDown();
        List<String> outcomes = new java.util.ArrayList<>();
        for (var f : both) {
            outcomes.add(f.get());
        }
        pool.shutdown();
        java.util.Collections.sort(outcomes);
        assertEquals(List.of(LoopErrorCodes.REVIEW_ALREADY_DECIDED, "decided"), outcomes);
        assertEquals("a\n", Files.readString(dir.resolve("a.txt")));
        assertEquals("rejected", q.find("run_twice").orElseThrow().status());
    }

    @Test
    void aRunStartingWhileItsTreeIsRestoredWaitsForTheRestore() throws Exception {
        GitCli cli = new GitCli(tmp.resolve("home"));
        Path dir = cli.repo(tmp.resolve("repo"), "a.txt", "a\n");
        ReviewQueue q = new ReviewQueue(store, clock, Optional.of(git), d -> false);
        java.util.concurrent.CountDownLatch calling = new java.util.concurrent.CountDownLatch(1);
        Thread[] starter = new Thread[1];
        WorkTreeLocks.with(dir, () -> {
            // the lock a restore holds while it writes
            starter[0] = Thread.ofPlatform().start(() -> {
                calling.countDown();
                q.starting(run("run_waits", RunStatus.RUNNING, "automation", dir), owner("automation"), dir);
            });
            try {
                calling.await();
                long deadline = System.nanoTime() + 5_000_000_000L;
                while (starter[0].getState() != Thread.State.WAITING && System.nanoTime() < deadline) {
                    Thread.sleep(10);
                }
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
            assertEquals(Thread.State.WAITING, starter[0].getState(), "the run's start waits for the lock");
            assertTrue(q.find("run_waits").isEmpty(), "nothing recorded while the restore writes");
            return null;
        });
        starter[0].join(10_000);
        assertEquals("recording", q.find("run_waits").orElseThrow().status());
    }

    @Test
    void ciRepairPlansAreStoredAndFoundByProject() {
        CiRepairPlans plans = new CiRepairPlans(store, clock);
        CiRepairPlans.Prompt prompt = CiRepairPlans.prompt("a\nb\nFAILED\n", "build");
        assertEquals(3, prompt.linesUsed());
        assertTrue(prompt.text().contains("The CI log (text between"), prompt.text());
        String id = plans.newId();
        CiRepairPlans.Plan p = plans.record(id, "p", "run_x", "claude", null, "build", prompt, "root");
        assertEquals(p, plans.get(id));
        assertEquals(List.of(p), plans.list("p"));
        assertTrue(plans.list("q").isEmpty());
        assertEquals(List.of(p), plans.list(null));
        assertEquals(LoopErrorCodes.CI_REPAIR_PLAN_NOT_FOUND, assertThrows(WorkspaceException.class,
                () -> plans.get("plan_0000000000000000")).code());
        assertEquals("drafting", CiRepairPlans.status(RunStatus.QUEUED));
        assertEquals("ready", CiRepairPlans.status(RunStatus.SUCCEEDED));
        assertEquals("failed", CiRepairPlans.status(RunStatus.TIMED_OUT));
        // a long log keeps only its tail, within the byte bound
        String big = ("x".repeat(400) + "\n").repeat(1000);
        CiRepairPlans.Prompt bounded = CiRepairPlans.prompt(big, null);
        assertTrue(bounded.linesUsed() < 200 && bounded.linesUsed() > 0, "" + bounded.linesUsed());
        assertTrue(bounded.text().length() < CiRepairPlans.TAIL_BYTES + 2000);
        assertThrows(WorkspaceException.Validation.class, () -> CiRepairPlans.prompt("x".repeat(
                CiRepairPlans.MAX_LOG_CHARS + 1), null));
    }
}
