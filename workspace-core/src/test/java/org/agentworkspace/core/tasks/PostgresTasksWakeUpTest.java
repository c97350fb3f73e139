package org.agentworkspace.core.tasks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.BooleanSupplier;

import org.agentworkspace.core.TestDatabases;
import org.agentworkspace.core.runs.LineParser;
import org.agentworkspace.core.runs.ProcessSpec;
import org.agentworkspace.core.runs.RunEngine;
import org.agentworkspace.core.runs.RunHandle;
import org.agentworkspace.core.runs.RunInfo;
import org.agentworkspace.core.runs.RunRequest;
import org.agentworkspace.core.runs.RunSettings;
import org.agentworkspace.core.runs.RunStatus;
import org.agentworkspace.core.store.Store;
import org.agentworkspace.testkit.fakecli.FakeClis;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Task changes across nodes (docs/scale-out.md "Tasks"): a task created or resumed on node A wakes node B's scheduler
 * through a NOTIFY, not B's 30 s read of the store; cancelling on node B a task whose run executes on node A stops
 * that run (a stored cancel request A carries out). A throwaway PostgreSQL database, real (fake CLI) runs.
 */
class PostgresTasksWakeUpTest {
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

    RunEngine engine(Store store, String nodeId) throws InterruptedException {
        RunEngine e = RunEngine.open(store, RunSettings.defaults().withKillGrace(Duration.ofMillis(500)),
                Clock.systemUTC(), new org.agentworkspace.core.runs.RunNode(nodeId, "test-host"));
        open.add(e);
        await(e::listeningToOtherNodes, Duration.ofSeconds(30), nodeId + " listens");
        return e;
    }

    /** A scheduler that reads the store only every 30 s on its own (the service's bound). */
    Tasks tasks(Store store) {
        Tasks t = Tasks.create(store, Clock.systemUTC(), Duration.ofSeconds(1), Duration.ofSeconds(30));
        open.add(t);
        return t;
    }

    private static void await(BooleanSupplier condition, Duration within, String what) throws InterruptedException {
        long until = System.nanoTime() + within.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > until) {
                throw new AssertionError("not within " + within + ": " + what);
            }
            Thread.sleep(10);
        }
    }

    /** A fake claude run on {@code engine} that thinks for {@code silenceMs} first. */
    synchronized RunHandle fakeRun(RunEngine engine, long silenceMs) {
        try {
            Path bin = tmp.resolve("bin");
            if (!Files.isDirectory(bin)) {
                FakeClis.install(bin, List.of("claude"));
            }
            Path project = Files.createDirectories(tmp.resolve("project"));
            Path home = Files.createDirectories(tmp.resolve("home"));
            ProcessSpec spec = ProcessSpec.of(List.of(FakeClis.binary(bin, "claude").toString(), "-p",
                    "--output-format", "stream-json", "--verbose", "--", "hello"),
                    Map.of("PATH", "/usr/local/bin:/usr/bin:/bin", "HOME", home.toString(),
                            "AW_FAKE_SILENCE_MS", String.valueOf(silenceMs)), project);
            return engine.start(RunRequest.of("claude", spec, LineParser.none()));
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    @Test
    void aTaskCreatedOrResumedOnANodeIsFiredByAnotherNodeWithoutWaitingForItsNextRead() throws Exception {
        Store sa = store();
        Store sb = store();
        long uid = PostgresTasksNodesTest.user(sa);
        RunEngine ea = engine(sa, "node_a");
        RunEngine eb = engine(sb, "node_b");
        ConcurrentLinkedQueue<Instant> firedOnB = new ConcurrentLinkedQueue<>();
        Tasks b = tasks(sb);
        b.start(eb, t -> {
            firedOnB.add(Instant.now());
            return fakeRun(eb, 0);
        });
        // A's scheduler is stopped: only B can fire, and A's changes reach B by the notice alone
        Tasks a = tasks(sa);
        a.start(ea, t -> {
            throw new AssertionError("node A's scheduler is stopped");
        });
        a.close();
        Thread.sleep(1000); // B has read the empty store and sleeps its 30 s

        Instant due = Instant.now().plusSeconds(1);
        AutomationTask t = a.create(uid, new Tasks.NewTask("soon", "hello", "claude", null, "proj",
                new Schedule.Once(due), null));
        await(() -> !firedOnB.isEmpty(), Duration.ofSeconds(40), "B fired the task A created");
        long late = Duration.between(due, firedOnB.peek()).toMillis();
        System.out.println("PostgresTasksWakeUpTest: a task created on A fired by B " + late + " ms after it was due");
        assertTrue(late < 2000, "B woke at A's notice, not at its 30 s read: " + late + " ms late");
        await(() -> b.find(t.id()).orElseThrow().status() == TaskStatus.COMPLETED, Duration.ofSeconds(60),
                "its run completed");

        // paused on A, then resumed on A when it is already due: B fires it at once
        firedOnB.clear();
        AutomationTask later = a.create(uid, new Tasks.NewTask("paused", "hello", "claude", null, "proj",
                new Schedule.Once(Instant.now().plusSeconds(600)), null));
        a.pause(later.id());
        Thread.sleep(1000);
        Instant resumed = Instant.now();
        a.resume(later.id()); // a one-time task whose moment is not due keeps it; make it due first
        a.update(later.id(), new Tasks.Changes(null, null, null, null, false, new Schedule.Once(resumed), null,
                false));
        await(() -> !firedOnB.isEmpty(), Duration.ofSeconds(40), "B fired the task A resumed and made due");
        long after = Duration.between(resumed, firedOnB.peek()).toMillis();
        System.out.println("PostgresTasksWakeUpTest: a task changed on A fired by B " + after + " ms later");
        assertTrue(after < 2000, after + " ms");
    }

    @Test
    void cancellingOnBATaskWhoseRunIsOnAStopsThatRun() throws Exception {
        Store sa = store();
        Store sb = store();
        long uid = PostgresTasksNodesTest.user(sa);
        RunEngine ea = engine(sa, "node_a");
        RunEngine eb = engine(sb, "node_b");
        Tasks a = tasks(sa);
        a.start(ea, t -> fakeRun(ea, 600_000));
        AutomationTask t = a.create(uid, new Tasks.NewTask("long", "hello", "claude", null, "proj",
                new Schedule.Once(Instant.now()), null));
        await(() -> a.find(t.id()).orElseThrow().activeRunId() != null, Duration.ofSeconds(30), "A fired it");
        String runId = a.find(t.id()).orElseThrow().activeRunId();
        await(() -> ea.find(runId).orElseThrow().status() == RunStatus.RUNNING, Duration.ofSeconds(30), "running");
        Tasks b = tasks(sb);
        b.start(eb, x -> {
            throw new AssertionError("nothing is due for B");
        });
        long t0 = System.nanoTime();
        assertEquals(TaskStatus.CANCELLED, b.cancel(t.id()).status());
        RunInfo done = eb.awaitCompletion(runId, Duration.ofSeconds(20)).orElseThrow();
        long took = Duration.ofNanos(System.nanoTime() - t0).toMillis();
        System.out.println("PostgresTasksWakeUpTest: cancelling on B the task whose run is on A ended the run after "
                + took + " ms");
        assertEquals(RunStatus.CANCELLED, done.status(), done.toString());
        assertTrue(took < 5000, took + " ms");
    }
}
