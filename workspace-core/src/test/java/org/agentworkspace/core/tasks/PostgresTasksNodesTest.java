package org.agentworkspace.core.tasks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;

import org.agentworkspace.api.WorkspaceException;
import org.agentworkspace.core.TestDatabases;
import org.agentworkspace.core.runs.LineParser;
import org.agentworkspace.core.runs.ProcessSpec;
import org.agentworkspace.core.runs.RunEngine;
import org.agentworkspace.core.runs.RunHandle;
import org.agentworkspace.core.runs.RunRequest;
import org.agentworkspace.core.runs.RunSettings;
import org.agentworkspace.core.store.Store;
import org.agentworkspace.testkit.fakecli.FakeClis;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Tasks fire once across nodes (issue 23, point 4; docs/scale-out.md "Tasks"): two schedulers, each with its own
 * {@link Store} (pool) and run engine, on one throwaway PostgreSQL database. Each occurrence is claimed by a
 * conditional update of the task row, so exactly one node fires it; a task created on a node that is gone is fired
 * by the other.
 */
class PostgresTasksNodesTest {
    @TempDir
    Path tmp;

    String url;
    final List<AutoCloseable> open = new ArrayList<>();

    /** A clock the test moves; both nodes read it. */
    static final class MovableClock extends Clock {
        final AtomicReference<Instant> now;

        MovableClock(Instant start) {
            now = new AtomicReference<>(start);
        }

        @Override
        public ZoneId getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(ZoneId zone) {
            return this;
        }

        @Override
        public Instant instant() {
            return now.get();
        }
    }

    /** One firing as a launcher saw it. */
    record Fired(String node, String taskId, Instant at) {
    }

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
        RunEngine e = RunEngine.open(store, RunSettings.defaults().withPollInterval(Duration.ofMillis(100)),
                Clock.systemUTC(), new org.agentworkspace.core.runs.RunNode(nodeId, "test-host"));
        open.add(e);
        return e;
    }

    Tasks tasks(Store store, Clock clock, Duration maxSleep) {
        Tasks t = Tasks.create(store, clock, Duration.ofSeconds(1), maxSleep);
        open.add(t);
        return t;
    }

    static long user(Store store) {
        return store.write(h -> h.createUpdate("INSERT INTO users (username, username_key, password_hash, is_admin,"
                        + " created_at) VALUES ('u', 'u', 'x', TRUE, 1)").executeAndReturnGeneratedKeys("id")
                .mapTo(Long.class).one());
    }

    private static void await(BooleanSupplier condition, Duration within, String what) throws InterruptedException {
        long until = System.nanoTime() + within.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > until) {
                throw new AssertionError("not within " + within + ": " + what);
            }
            Thread.sleep(2);
        }
    }

    /**
     * 1,000 occurrences of an interval task with two nodes racing for each: the clock is moved to each due time in
     * turn, and every occurrence is fired by exactly one node — none twice, none missed. The launcher records the
     * firing and then refuses to start a run (the path of a provider that cannot start), which puts the task back to
     * {@code scheduled} at once, so 1,000 occurrences take seconds instead of 1,000 processes; real runs are in the
     * next test.
     */
    @Test
    void anIntervalTaskFiresOncePerOccurrenceAcrossTwoNodes() throws Exception {
        int occurrences = 1000;
        Instant t0 = Instant.parse("2030-01-01T00:00:00Z");
        MovableClock clock = new MovableClock(t0);
        Store sa = store();
        Store sb = store();
        long uid = user(sa);
        Tasks a = tasks(sa, clock, Duration.ofMillis(5));
        Tasks b = tasks(sb, clock, Duration.ofMillis(5));
        ConcurrentLinkedQueue<Fired> fired = new ConcurrentLinkedQueue<>();
        AutomationTask task = a.create(uid, new Tasks.NewTask("every second", "tick", "claude", null, "proj",
                new Schedule.Interval(Duration.ofSeconds(1), null), null));
        assertEquals(t0.plusSeconds(1), task.nextRunAt());
        a.start(engine(sa, "node_a"), t -> {
            fired.add(new Fired("node_a", t.id(), clock.instant()));
            throw WorkspaceException.Validation.of("no run for this occurrence");
        });
        b.start(engine(sb, "node_b"), t -> {
            fired.add(new Fired("node_b", t.id(), clock.instant()));
            throw WorkspaceException.Validation.of("no run for this occurrence");
        });
        long started = System.nanoTime();
        for (int k = 1; k <= occurrences; k++) {
            Instant due = t0.plusSeconds(k);
            assertEquals(due, a.find(task.id()).orElseThrow().nextRunAt(), "occurrence " + k + " is the next");
            clock.now.set(due);
            int expected = k;
            await(() -> {
                AutomationTask now = b.find(task.id()).orElseThrow();
                return fired.size() >= expected && now.status() == TaskStatus.SCHEDULED
                        && due.plusSeconds(1).equals(now.nextRunAt());
            }, Duration.ofSeconds(20), "occurrence " + k + " fired and the next one scheduled");
        }
        long tookMs = (System.nanoTime() - started) / 1_000_000;
        // both schedulers keep looking (every 5 ms) at the last, settled occurrence: nothing more may fire
        Thread.sleep(300);
        List<Fired> all = List.copyOf(fired);
        assertEquals(occurrences, all.size(), "one firing per occurrence, no duplicate");
        Set<Instant> at = new HashSet<>();
        Map<String, Integer> perNode = new HashMap<>();
        for (Fired f : all) {
            assertTrue(at.add(f.at()), "occurrence at " + f.at() + " fired twice");
            perNode.merge(f.node(), 1, Integer::sum);
        }
        for (int k = 1; k <= occurrences; k++) {
            assertTrue(at.contains(t0.plusSeconds(k)), "occurrence " + k + " missed");
        }
        assertEquals("failed", a.find(task.id()).orElseThrow().lastRunStatus());
        System.out.println("PostgresTasksNodesTest: " + occurrences + " occurrences in " + tookMs + " ms, fired by "
                + perNode);
    }

    /** A fake claude run on {@code engine}, in a project folder of the fixture. */
    synchronized RunHandle fakeRun(RunEngine engine) {
        try {
            Path bin = tmp.resolve("bin");
            if (!Files.isDirectory(bin)) {
                FakeClis.install(bin, List.of("claude"));
            }
            Path project = Files.createDirectories(tmp.resolve("project"));
            Path home = Files.createDirectories(tmp.resolve("home"));
            ProcessSpec spec = ProcessSpec.of(List.of(FakeClis.binary(bin, "claude").toString(), "-p",
                    "--output-format", "stream-json", "--verbose", "--", "hello"),
                    Map.of("PATH", "/usr/local/bin:/usr/bin:/bin", "HOME", home.toString()), project);
            return engine.start(RunRequest.of("claude", spec, new LineParser() {
                @Override
                public List<String> parse(String line) {
                    return List.of();
                }

                @Override
                public List<String> finish(int exitCode) {
                    return List.of("{\"kind\":\"complete\",\"exitCode\":" + exitCode + "}");
                }
            }));
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /**
     * Twenty one-time tasks due at once, two nodes racing with real runs: each task runs exactly one run, started
     * and recorded by the node that fired it, and ends {@code completed} by that run's outcome.
     */
    @Test
    void onceTasksFireOnceWithRealRuns() throws Exception {
        Store sa = store();
        Store sb = store();
        long uid = user(sa);
        RunEngine ea = engine(sa, "node_a");
        RunEngine eb = engine(sb, "node_b");
        Tasks a = tasks(sa, Clock.systemUTC(), Duration.ofMillis(50));
        Tasks b = tasks(sb, Clock.systemUTC(), Duration.ofMillis(50));
        ConcurrentLinkedQueue<Fired> fired = new ConcurrentLinkedQueue<>();
        Instant at = Instant.now().plusMillis(500);
        List<AutomationTask> created = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            created.add(a.create(uid, new Tasks.NewTask("once " + i, "hello", "claude", null, "proj",
                    new Schedule.Once(at), null)));
        }
        a.start(ea, t -> {
            fired.add(new Fired("node_a", t.id(), Instant.now()));
            return fakeRun(ea);
        });
        b.start(eb, t -> {
            fired.add(new Fired("node_b", t.id(), Instant.now()));
            return fakeRun(eb);
        });
        for (AutomationTask t : created) {
            await(() -> b.find(t.id()).orElseThrow().status() == TaskStatus.COMPLETED, Duration.ofSeconds(60),
                    t.name() + " completed");
        }
        Thread.sleep(500);
        Set<String> seen = new HashSet<>();
        for (Fired f : fired) {
            assertTrue(seen.add(f.taskId()), f.taskId() + " fired twice: " + fired);
        }
        assertEquals(20, fired.size());
        for (AutomationTask t : created) {
            AutomationTask now = a.find(t.id()).orElseThrow();
            assertEquals(1, now.runCount(), t.name());
            assertEquals("succeeded", now.lastRunStatus(), t.name());
            List<String> runIds = a.recentRunIds(t.id(), 10);
            assertEquals(1, runIds.size(), t.name() + " has one run: " + runIds);
            String node = fired.stream().filter(f -> f.taskId().equals(t.id())).findFirst().orElseThrow().node();
            RunEngine firing = node.equals("node_a") ? ea : eb;
            assertTrue(firing.find(runIds.getFirst()).isPresent(), "the run is stored");
        }
        System.out.println("PostgresTasksNodesTest: 20 once tasks fired by " + fired.stream()
                .collect(java.util.stream.Collectors.groupingBy(Fired::node, java.util.stream.Collectors.counting())));
    }

    /** A task created on node A, which is then closed before the task is due: node B fires it, once. */
    @Test
    void aTaskWhoseCreatingNodeIsGoneFiresOnAnotherNode() throws Exception {
        Store sa = store();
        Store sb = store();
        long uid = user(sa);
        RunEngine eb = engine(sb, "node_b");
        ConcurrentLinkedQueue<Fired> fired = new ConcurrentLinkedQueue<>();
        Tasks b = tasks(sb, Clock.systemUTC(), Duration.ofSeconds(1));
        b.start(eb, t -> {
            fired.add(new Fired("node_b", t.id(), Instant.now()));
            return fakeRun(eb);
        });
        Tasks a = Tasks.create(sa, Clock.systemUTC(), Duration.ofSeconds(1), Duration.ofSeconds(1));
        RunEngine ea = RunEngine.open(sa, RunSettings.defaults(), Clock.systemUTC(),
                new org.agentworkspace.core.runs.RunNode("node_a", "test-host"));
        a.start(ea, t -> {
            fired.add(new Fired("node_a", t.id(), Instant.now()));
            return fakeRun(ea);
        });
        AutomationTask t = a.create(uid, new Tasks.NewTask("later", "hello", "claude", null, "proj",
                new Schedule.Once(Instant.now().plusSeconds(2)), null));
        a.close();
        ea.close();
        await(() -> b.find(t.id()).orElseThrow().status() == TaskStatus.COMPLETED, Duration.ofSeconds(60),
                "node B fired the task node A created");
        assertEquals(List.of("node_b"), fired.stream().map(Fired::node).toList());
        assertEquals(1, b.recentRunIds(t.id(), 10).size());
    }
    /**
     * The node that fired a task died: its run is settled {@code node_lost} by node B's lease sweep, and B's task
     * scheduler then ends that occurrence (an interval task is scheduled again, its last run failed). A claim whose
     * node died before recording a run is ended once it is {@link Tasks#ABANDONED_CLAIM} old. Node B's launcher is
     * never called: nothing was due.
     */
    @Test
    void aTaskWhoseFiringNodeDiedIsFreedByAnotherNode() throws Exception {
        Store sb = store();
        long uid = user(sb);
        long now = System.currentTimeMillis();
        sb.write(h -> {
            h.execute("INSERT INTO nodes (id, host, pid, started_at, heartbeat_at) VALUES ('node_gone', 'gone-host',"
                    + " 1, 1, CAST(EXTRACT(EPOCH FROM clock_timestamp()) * 1000 AS BIGINT) - 60000)");
            h.execute("INSERT INTO runs (id, provider, status, created_at, metadata, node_id) VALUES ('run_lost',"
                    + " 'claude', 'running', ?, '{}', 'node_gone')", now - 60_000);
            h.execute("INSERT INTO run_events (run_id, seq, kind, payload, created_at) VALUES ('run_lost', 1,"
                    + " 'status', '{\"status\":\"running\"}', ?)", now - 60_000);
            h.execute("INSERT INTO automation_tasks (id, user_id, name, prompt, agent_type, project_id, schedule,"
                    + " status, next_run_at, last_run_at, run_count, active_run_id, created_at, updated_at)"
                    + " VALUES ('task_lost', ?, 'hourly', 'p', 'claude', 'proj',"
                    + " '{\"kind\":\"interval\",\"everySeconds\":3600}', 'running', ?, ?, 1, 'run_lost', ?, ?)",
                    uid, now + 3_540_000, now - 60_000, now - 120_000, now - 60_000);
            h.execute("INSERT INTO automation_task_runs (task_id, run_id, started_at) VALUES ('task_lost',"
                    + " 'run_lost', ?)", now - 60_000);
            long claimedAt = now - Tasks.ABANDONED_CLAIM.toMillis() - 60_000;
            h.execute("INSERT INTO automation_tasks (id, user_id, name, prompt, agent_type, project_id, schedule,"
                    + " status, next_run_at, last_run_at, run_count, active_run_id, created_at, updated_at)"
                    + " VALUES ('task_claimed', ?, 'once', 'p', 'claude', 'proj', ?, 'running', NULL, ?, 0, NULL,"
                    + " ?, ?)", uid, "{\"kind\":\"once\",\"at\":\"" + Instant.ofEpochMilli(claimedAt) + "\"}",
                    claimedAt, claimedAt, claimedAt);
            return null;
        });
        RunEngine eb = engine(sb, "node_b");
        ConcurrentLinkedQueue<Fired> fired = new ConcurrentLinkedQueue<>();
        Tasks b = tasks(sb, Clock.systemUTC(), Duration.ofSeconds(1));
        b.start(eb, t -> {
            fired.add(new Fired("node_b", t.id(), Instant.now()));
            throw WorkspaceException.Validation.of("nothing is due in this test");
        });
        await(() -> b.find("task_lost").orElseThrow().status() == TaskStatus.SCHEDULED, Duration.ofSeconds(90),
                "the task of the dead node's run is scheduled again");
        AutomationTask lost = b.find("task_lost").orElseThrow();
        assertEquals("failed", lost.lastRunStatus());
        assertEquals(null, lost.activeRunId());
        assertTrue(lost.nextRunAt().isAfter(Instant.now().plusSeconds(3000)), "next in an hour: " + lost.nextRunAt());
        assertEquals("failed", eb.find("run_lost").orElseThrow().status().wireName(), "settled node_lost");
        await(() -> b.find("task_claimed").orElseThrow().status() == TaskStatus.FAILED, Duration.ofSeconds(30),
                "the abandoned claim is ended");
        assertTrue(fired.isEmpty(), "nothing fired: " + fired);
    }
}
