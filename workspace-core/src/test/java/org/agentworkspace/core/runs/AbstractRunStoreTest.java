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
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Collectors;

import org.agentworkspace.api.WorkspaceException;
import org.agentworkspace.core.store.Store;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The run log as every database must hold it: order, gap-free numbering, native and parsed entries, readers that
 * resume exactly once, restart recovery, queries. Real processes (the testkit's fake claude and small scripts).
 * Subclasses supply SQLite or PostgreSQL.
 */
abstract class AbstractRunStoreTest {
    @TempDir
    Path tmp;

    protected String url;
    protected Store store;
    protected RunEngine engine;
    protected RunFixtures fx;

    protected abstract String createDatabase() throws Exception;

    protected void dropDatabase() throws Exception {
    }

    static RunSettings settings() {
        return RunSettings.defaults().withTimeouts(Duration.ofSeconds(30), Duration.ofSeconds(60))
                .withKillGrace(Duration.ofMillis(500)).withPollInterval(Duration.ofMillis(100));
    }

    @BeforeEach
    void open() throws Exception {
        url = createDatabase();
        store = Store.open(url);
        fx = new RunFixtures(tmp);
        engine = RunEngine.open(store, settings(), Clock.systemUTC());
    }

    @AfterEach
    void close() throws Exception {
        if (engine != null) {
            engine.close();
        }
        store.close();
        dropDatabase();
    }

    @Test
    void entriesAreStoredInOrderWithGapFreeSeqNativeAndParsed() throws Exception {
        RunHandle run = engine.start(RunFixtures.request(fx.claude("AW_FAKE_EVENTS", "2000"))
                .withMetadata("{\"projectPath\":\"/tmp/p\",\"route\":\"test\"}"));
        RunInfo done = run.awaitCompletion(Duration.ofSeconds(30)).orElseThrow();
        assertEquals(RunStatus.SUCCEEDED, done.status());
        assertEquals(0, done.exitCode());
        assertTrue(done.findStartedAt().isPresent() && done.findFinishedAt().isPresent());
        assertEquals("{\"projectPath\":\"/tmp/p\",\"route\":\"test\"}", done.metadata());

        List<RunEntry> entries = RunFixtures.all(engine, run.id());
        for (int i = 0; i < entries.size(); i++) {
            assertEquals(i + 1, entries.get(i).seq(), "gap-free numbering");
            assertEquals(run.id(), entries.get(i).runId());
        }
        assertEquals("{\"status\":\"queued\"}", entries.getFirst().payload());
        assertTrue(entries.get(1).payload().startsWith("{\"status\":\"running\",\"pid\":"), entries.get(1).payload());
        assertEquals("{\"status\":\"succeeded\",\"exitCode\":0}", entries.getLast().payload());

        List<RunEntry> natives = entries.stream().filter(e -> e.kind() == EntryKind.NATIVE).toList();
        assertEquals(2002, natives.size(), "init line + 2000 deltas + result line");
        assertTrue(natives.getFirst().payload().startsWith("{\"line\":\"{\\\"type\\\":\\\"system\\\""));
        List<RunEntry> events = entries.stream().filter(e -> e.kind() == EntryKind.EVENT).toList();
        assertEquals(2001, events.size());
        for (int i = 0; i < 2000; i++) {
            assertEquals("{\"kind\":\"delta\",\"text\":\"tok-" + i + "\"}", events.get(i).payload());
            // each parsed event directly follows the native line it came from
            RunEntry before = entries.get((int) events.get(i).seq() - 2);
            assertEquals(EntryKind.NATIVE, before.kind());
            assertTrue(before.payload().contains("tok-" + i + " "), before.payload());
        }
        assertEquals("{\"kind\":\"complete\",\"exitCode\":0}", events.getLast().payload());
        assertEquals(events.getLast().seq() + 1, entries.getLast().seq(), "complete comes right before the end");

        // the store itself holds exactly these rows
        long rows = store.read(h -> h.createQuery("SELECT COUNT(*) FROM run_events WHERE run_id = :id")
                .bind("id", run.id()).mapTo(Long.class).one());
        long max = store.read(h -> h.createQuery("SELECT MAX(seq) FROM run_events WHERE run_id = :id")
                .bind("id", run.id()).mapTo(Long.class).one());
        assertEquals(entries.size(), rows);
        assertEquals(entries.size(), max);
        assertEquals(0, engine.activeCount());
    }

    @Test
    void readersThatDisconnectAtRandomAndResumeGetEveryEntryOnceInOrder() throws Exception {
        // 3,000 lines in 10 bursts, so readers catch up, wait, and are woken many times while the run is live
        ProcessSpec spec = fx.script("bursts", """
                i=0
                while [ $i -lt 3000 ]; do
                  echo "{\\"n\\":$i}"
                  i=$((i+1))
                  if [ $((i % 300)) -eq 0 ]; then sleep 0.05; fi
                done""");
        RunHandle run = engine.start(RunRequest.of("claude", spec, line -> List.of(line)));
        ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor();
        List<Future<List<RunEntry>>> readers = new ArrayList<>();
        for (int r = 0; r < 6; r++) {
            long seed = 1000 + r;
            readers.add(pool.submit((Callable<List<RunEntry>>) () -> resumingReader(run.id(), new Random(seed))));
        }
        List<RunEntry> whole = null;
        for (Future<List<RunEntry>> f : readers) {
            List<RunEntry> got = f.get();
            for (int i = 0; i < got.size(); i++) {
                assertEquals(i + 1, got.get(i).seq(), "exactly once, in order");
            }
            if (whole == null) {
                whole = RunFixtures.all(engine, run.id());
            }
            assertTrue(whole.equals(got), "a resumed reader saw exactly what a fresh reader sees ("
                    + got.size() + " vs " + whole.size() + " entries)");
        }
        pool.close();
        assertEquals(3000, whole.stream().filter(e -> e.kind() == EntryKind.NATIVE).count());
        assertEquals(3000, whole.stream().filter(e -> e.kind() == EntryKind.EVENT).count());
        assertEquals(RunStatus.SUCCEEDED, run.info().status());
    }

    /** Reads a random number of entries, drops the cursor (sometimes mid-wait), resumes from the last seq seen. */
    private List<RunEntry> resumingReader(String runId, Random random) throws InterruptedException {
        List<RunEntry> got = new ArrayList<>();
        long last = 0;
        while (true) {
            int take = 1 + random.nextInt(400);
            try (RunCursor c = engine.follow(runId, last)) {
                for (int i = 0; i < take; i++) {
                    Optional<RunEntry> e = c.poll(Duration.ofMillis(random.nextInt(30)));
                    if (e.isPresent()) {
                        got.add(e.get());
                    } else if (c.finished()) {
                        return got;
                    }
                }
                last = c.lastSeq();
            }
        }
    }

    @Test
    void aReaderStartingAfterTheEndGetsNothingAndFinishes() throws Exception {
        RunHandle run = engine.start(RunFixtures.request(fx.claude("AW_FAKE_EVENTS", "3")));
        run.awaitCompletion(Duration.ofSeconds(20)).orElseThrow();
        List<RunEntry> all = RunFixtures.all(engine, run.id());
        try (RunCursor c = engine.follow(run.id(), all.getLast().seq())) {
            assertEquals(Optional.empty(), c.poll(Duration.ofSeconds(5)));
            assertTrue(c.finished());
        }
        try (RunCursor c = engine.follow(run.id(), all.size() - 2)) {
            assertEquals(all.get(all.size() - 2), c.next().orElseThrow());
            assertEquals(all.getLast(), c.next().orElseThrow());
            assertEquals(Optional.empty(), c.next());
        }
    }

    @Test
    void runsCutOffByARestartAreMarkedFailedAndTheirProcessesKilled() throws Exception {
        engine.close();
        engine = null;
        // What a dead server leaves behind: a running run with its process (in its own session, as the engine
        // starts them) and a queued run. Written the way the engine writes them.
        String running = "run_restarttest" + System.nanoTime();
        String queued = "run_restartqueued" + System.nanoTime();
        store.write(h -> {
            for (String id : List.of(running, queued)) {
                h.execute("INSERT INTO runs (id, provider, status, created_at, metadata) VALUES (?, 'claude', ?, 1, '{}')",
                        id, id.equals(running) ? "running" : "queued");
                h.execute("INSERT INTO run_events (run_id, seq, kind, payload, created_at) VALUES (?, 1, 'status', "
                        + "'{\"status\":\"queued\"}', 1)", id);
            }
            h.execute("INSERT INTO run_events (run_id, seq, kind, payload, created_at) VALUES (?, 2, 'status', "
                    + "'{\"status\":\"running\",\"pid\":1}', 2)", running);
            return null;
        });
        ProcessBuilder pb = new ProcessBuilder("/bin/sh", "-c", "sleep 600 & sleep 600 & wait")
                .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")))
                .redirectOutput(ProcessBuilder.Redirect.DISCARD).redirectError(ProcessBuilder.Redirect.DISCARD);
        pb.environment().put("AW_RUN_ID", running);
        Process orphan = pb.start();
        try {
            long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
            while (RunFixtures.leftovers(Set.of(running), List.of()).size() < 3 && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            assertEquals(3, RunFixtures.leftovers(Set.of(running), List.of()).size(), "sh and two sleeps");

            engine = RunEngine.open(store, settings(), Clock.systemUTC());

            assertEquals(Set.of(), RunFixtures.leftovers(Set.of(running), List.of()), "orphans killed");
            for (String id : List.of(running, queued)) {
                RunInfo info = engine.find(id).orElseThrow();
                assertEquals(RunStatus.FAILED, info.status());
                assertEquals("server restarted", info.reason());
                assertTrue(info.findFinishedAt().isPresent());
                List<RunEntry> log = RunFixtures.all(engine, id);
                assertEquals("{\"status\":\"failed\",\"reason\":\"server restarted\"}", log.getLast().payload());
                assertEquals(log.size(), log.getLast().seq());
            }
            assertEquals(3, RunFixtures.all(engine, running).size());
            assertEquals(2, RunFixtures.all(engine, queued).size());
            // a second start finds nothing to recover
            engine.close();
            engine = RunEngine.open(store, settings(), Clock.systemUTC());
            assertEquals(3, RunFixtures.all(engine, running).size());
        } finally {
            orphan.destroyForcibly();
        }
    }

    @Test
    void findListAndUnknownRuns() throws Exception {
        RunHandle a = engine.start(RunFixtures.request(fx.claude()));
        RunHandle b = engine.start(RunRequest.of("codex", fx.script("fail", "echo oops >&2; exit 3"),
                LineParser.none()));
        a.awaitCompletion(Duration.ofSeconds(20)).orElseThrow();
        RunInfo failed = b.awaitCompletion(Duration.ofSeconds(20)).orElseThrow();
        assertEquals(RunStatus.FAILED, failed.status());
        assertEquals(3, failed.exitCode());
        assertEquals("exit code 3", failed.reason());
        List<RunEntry> log = RunFixtures.all(engine, b.id());
        assertEquals("{\"line\":\"oops\"}", log.stream().filter(e -> e.kind() == EntryKind.STDERR).findFirst()
                .orElseThrow().payload());
        assertEquals("{\"status\":\"failed\",\"reason\":\"exit code 3\",\"exitCode\":3}", log.getLast().payload());

        List<RunInfo> all = engine.list(RunQuery.newest());
        assertEquals(List.of(b.id(), a.id()).stream().sorted().toList(),
                all.stream().map(RunInfo::id).sorted().toList());
        assertEquals(List.of(b.id()), engine.list(RunQuery.newest().withProvider("codex")).stream()
                .map(RunInfo::id).toList());
        assertEquals(List.of(a.id()), engine.list(RunQuery.newest().withStatuses(Set.of(RunStatus.SUCCEEDED)))
                .stream().map(RunInfo::id).toList());
        assertEquals(Set.of(a.id(), b.id()), engine.list(RunQuery.newest().withStatuses(
                Set.of(RunStatus.SUCCEEDED, RunStatus.FAILED))).stream().map(RunInfo::id).collect(Collectors.toSet()));
        assertEquals(1, engine.list(RunQuery.newest().withLimit(1)).size());

        assertEquals(Optional.empty(), engine.find("run_nope"));
        assertThrows(WorkspaceException.NotFound.class, () -> engine.follow("run_nope", 0));
        assertThrows(WorkspaceException.NotFound.class, () -> engine.cancel("run_nope"));
        assertThrows(WorkspaceException.NotFound.class, () -> engine.awaitCompletion("run_nope", Duration.ofSeconds(1)));
        assertThrows(WorkspaceException.Validation.class, () -> engine.follow(a.id(), -1));
        assertFalse(engine.cancel(a.id()), "an ended run is not cancelled again");
        assertThrows(WorkspaceException.Validation.class,
                () -> engine.start(RunFixtures.request(fx.claude()).withMetadata("[1,2]")));
        assertThrows(IllegalArgumentException.class, () -> RunRequest.of("Claude; id", fx.claude(), LineParser.none()));
        assertThrows(IllegalArgumentException.class,
                () -> ProcessSpec.of(List.of("x"), Map.of("A=B", "c"), tmp));
    }

    /** Lines {@code KIND payload} of the script become unified events {@code {"kind":KIND,"data":payload}}. */
    private static LineParser unified() {
        return line -> {
            int sp = line.indexOf(' ');
            return sp < 0 || line.charAt(sp + 1) != '{' ? List.of() : List.of("{\"kind\":\"" + line.substring(0, sp) + "\",\"data\":"
                    + line.substring(sp + 1) + "}");
        };
    }

    @Test
    void theOwnerIsTypedAndTheOutcomeIsStoredAsEventsArriveSoAPageReadsNoLog() throws Exception {
        ProcessSpec spec = fx.script("outcome", """
                echo 'session {"sessionId":"s-1"}'
                echo 'text {"role":"user","text":"not me"}'
                echo 'text {"role":"assistant","text":"first"}'
                echo 'error {"code":"E1","message":"one"}'
                echo 'error {"code":"E2","message":"two"}'
                echo 'text-delta {"text":"x"}'
                echo 'usage {"input":3,"output":4,"cacheRead":5,"cacheWrite":6,"cost":0.25}'
                echo 'text {"role":"assistant","text":"last words"}'
                echo 'completed {"success":true,"sessionId":"s-2","resultText":"the result"}'
                echo 'a plain line'
                """);
        RunHandle run = engine.start(RunRequest.of("claude", spec, unified())
                .withOwner(new RunOwner(42L, "web", "task-1", "task", "s-0")));
        run.awaitCompletion(Duration.ofSeconds(20)).orElseThrow();
        RunRecord r = engine.record(run.id()).orElseThrow();
        assertEquals(new RunOwner(42L, "web", "task-1", "task", "s-2"), r.owner(), "the reported session replaces it");
        assertEquals(new RunOutcome(true, "s-2", "the result", "last words",
                new RunOutcome.Usage(3, 4, 5, 6, 0.25), "E1", "one"), r.outcome());
        RunTail tail = engine.tail(run.id(), 3);
        assertEquals(engine.lastSeq(run.id()), tail.lastSeq());
        assertEquals(List.of(EntryKind.STATUS, EntryKind.NATIVE, EntryKind.NATIVE),
                tail.lines().stream().map(RunEntry::kind).toList());
        assertEquals("{\"line\":\"a plain line\"}", tail.lines().get(1).payload());

        // a run without an owner of its own is nobody's: the free metadata is never read for ownership
        RunHandle legacy = engine.start(RunRequest.of("codex", fx.script("quiet", "true"), LineParser.none())
                .withMetadata("{\"userId\":7,\"projectId\":\"api\",\"route\":\"automation\"}"));
        legacy.awaitCompletion(Duration.ofSeconds(20)).orElseThrow();
        assertEquals(RunOwner.NONE, engine.record(legacy.id()).orElseThrow().owner());
        assertEquals(RunOutcome.EMPTY, engine.record(legacy.id()).orElseThrow().outcome());
    }

    @Test
    void rowsWrittenAlongWithARunAreStoredWithItOrNeitherIs() throws Exception {
        // the CI repair plan's shape: the plan row names the run, both in the transaction that stores the run
        WithRun plan = (h, runId) -> h.createUpdate("INSERT INTO agent_loop_ci_plans (id, project_id, "
                        + "run_id, agent_type, log_bytes, log_lines_used, created_at) VALUES ('plan_x', 'p', :run, "
                        + "'codex', 1, 1, 1)").bind("run", runId).execute();
        RunHandle first = engine.start(RunRequest.of("codex", fx.script("quiet", "true"), LineParser.none()), plan);
        first.awaitCompletion(Duration.ofSeconds(20)).orElseThrow();
        assertEquals(first.id(), store.read(h -> h.createQuery("SELECT run_id FROM agent_loop_ci_plans WHERE id = "
                + "'plan_x'").mapTo(String.class).one()));

        // the same plan id again: the plan row fails, so the run is neither stored, queued nor started
        int before = store.read(h -> h.createQuery("SELECT COUNT(*) FROM runs").mapTo(Integer.class).one());
        assertThrows(RuntimeException.class, () -> engine.start(
                RunRequest.of("codex", fx.script("never", "touch " + tmp.resolve("ran")), LineParser.none()), plan));
        assertEquals(before, (int) store.read(h -> h.createQuery("SELECT COUNT(*) FROM runs").mapTo(Integer.class).one()));
        assertEquals(0, (int) store.read(h -> h.createQuery("SELECT COUNT(*) FROM run_events WHERE run_id NOT IN "
                + "(SELECT id FROM runs)").mapTo(Integer.class).one()), "no event of a run that was not stored");
        assertEquals(List.of(), engine.activeIds());
        Thread.sleep(300);
        assertFalse(java.nio.file.Files.exists(tmp.resolve("ran")), "the refused run's process never started");
        assertEquals(1, (int) store.read(h -> h.createQuery("SELECT COUNT(*) FROM agent_loop_ci_plans").mapTo(Integer.class)
                .one()));
    }

    @Test
    void pagesAreFilteredInSqlAndTheCursorWalksThroughEveryRunOnce() throws Exception {
        // rows as the engine writes them, many more than a page, two owners interleaved
        store.write(h -> {
            for (int i = 0; i < 45; i++) {
                h.createUpdate("INSERT INTO runs (id, provider, status, created_at, metadata, account_id, project, "
                                + "outcome_known) VALUES (:id, 'claude', :status, :at, '{}', :acc, :project, 1)")
                        .bind("id", String.format("run_%03d", i)).bind("status", i % 5 == 0 ? "failed" : "succeeded")
                        .bind("at", 1_000L + i / 2).bind("acc", i % 3 == 0 ? 1L : 2L)
                        .bind("project", i % 2 == 0 ? "even" : "odd").execute();
            }
            return null;
        });
        List<String> seen = new ArrayList<>();
        String cursor = null;
        int pages = 0;
        do {
            RunPage.Query q = RunPage.Query.newest(4).visibleTo(2L);
            RunPage page = engine.page(cursor == null ? q : q.after(cursor));
            page.runs().forEach(r -> seen.add(r.info().id()));
            page.runs().forEach(r -> assertEquals(2L, r.owner().accountId()));
            cursor = page.nextCursor();
            pages++;
        } while (cursor != null);
        List<String> expected = new ArrayList<>();
        for (int i = 44; i >= 0; i--) {
            if (i % 3 != 0) {
                expected.add(String.format("run_%03d", i));
            }
        }
        assertEquals(expected, seen, "newest first (created_at, then id), each once");
        assertEquals(8, pages);
        assertEquals(List.of("run_030", "run_000"), engine.page(RunPage.Query.newest(10).visibleTo(1L)
                .withProject("even").withStatuses(Set.of(RunStatus.FAILED))).runs().stream()
                .map(r -> r.info().id()).toList());
        assertEquals(45, engine.page(RunPage.Query.newest(1000)).runs().size());
        assertThrows(IllegalArgumentException.class, () -> RunPage.Query.newest(10).after("bm90IGEgY3Vyc29y"));
        assertThrows(IllegalArgumentException.class, () -> RunPage.Query.newest(10).after("%%%"));
    }

    @Test
    void theRetentionSweepDeletesEndedRunsByCountAndAgeButNeverLiveOnes() throws Exception {
        List<String> ended = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            RunHandle h = engine.start(RunRequest.of("codex", fx.script("ok" + i, "echo done"), LineParser.none()));
            h.awaitCompletion(Duration.ofSeconds(20)).orElseThrow();
            ended.add(h.id());
            Thread.sleep(5);
        }
        RunHandle live = engine.start(RunRequest.of("codex", fx.script("long", "sleep 30"), LineParser.none()));
        // keep the 2 newest (the live run and the last ended one): the two oldest go with their logs
        assertEquals(2, engine.sweep(new RunRetention(Duration.ofDays(30), 2, Duration.ofHours(1))));
        assertEquals(Optional.empty(), engine.find(ended.get(0)));
        assertEquals(Optional.empty(), engine.find(ended.get(1)));
        assertThrows(WorkspaceException.NotFound.class, () -> engine.follow(ended.get(0), 0));
        assertTrue(engine.find(ended.get(2)).isPresent());
        // by age: every ended run finished more than 1 ms ago goes; the live one stays whatever its age
        Thread.sleep(10);
        assertEquals(1, engine.sweep(new RunRetention(Duration.ofMillis(1), 1000, Duration.ofHours(1))));
        assertEquals(Optional.empty(), engine.find(ended.get(2)));
        assertEquals(0, engine.sweep(new RunRetention(Duration.ofMillis(1), 1, Duration.ofHours(1))));
        assertTrue(engine.find(live.id()).isPresent(), "a running run is never deleted");
        assertTrue(engine.cancel(live.id()));
        live.awaitCompletion(Duration.ofSeconds(20)).orElseThrow();
    }
}
