package org.agentworkspace.core.runs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.agentworkspace.api.WorkspaceException;
import org.agentworkspace.core.TestDatabases;
import org.agentworkspace.core.store.Store;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The launcher side of the engine with real processes: output bounds, timeouts and cancellation that kill whole
 * trees (counted independently through /proc), limits and the queue, the exact child environment, stdin, sessions.
 */
class RunProcessTest {
    @TempDir
    Path tmp;

    private Store store;
    private RunFixtures fx;
    private final List<RunEngine> engines = new ArrayList<>();

    @BeforeEach
    void setUp() {
        store = Store.open(TestDatabases.sqlite(tmp));
        fx = new RunFixtures(tmp);
    }

    @AfterEach
    void tearDown() {
        engines.forEach(RunEngine::close);
        store.close();
    }

    private RunEngine engine(RunSettings settings) {
        RunEngine e = RunEngine.open(store, settings.withPollInterval(Duration.ofMillis(100)), Clock.systemUTC());
        engines.add(e);
        return e;
    }

    private static RunSettings base() {
        return RunSettings.defaults().withTimeouts(Duration.ofSeconds(30), Duration.ofSeconds(60))
                .withKillGrace(Duration.ofMillis(500));
    }

    private static List<RunEntry> of(List<RunEntry> log, EntryKind kind) {
        return log.stream().filter(e -> e.kind() == kind).toList();
    }

    /** Waits until the run has stored at least {@code n} native lines. */
    private static void awaitNatives(RunEngine engine, String runId, int n) throws InterruptedException {
        int seen = 0;
        try (RunCursor c = engine.follow(runId, 0)) {
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (seen < n) {
                var e = c.poll(Duration.ofMillis(200));
                if (e.isPresent() && e.get().kind() == EntryKind.NATIVE) {
                    seen++;
                }
                if (c.finished() || System.nanoTime() > deadline) {
                    throw new AssertionError("run " + runId + " ended or stalled after " + seen + " lines");
                }
            }
        }
    }

    @Test
    void aGiantLineIsCutAndFlaggedAndTheNextLineIsIntact() throws Exception {
        RunEngine engine = engine(base().withOutputLimits(64 * 1024, 8L << 20, 64 * 1024));
        RunHandle run = engine.start(RunRequest.of("claude", fx.script("giant",
                "head -c 3145728 /dev/zero | tr '\\0' 'a'; echo; echo '{\"after\":1}'"), line -> List.of(line)));
        assertEquals(RunStatus.SUCCEEDED, run.awaitCompletion(Duration.ofSeconds(20)).orElseThrow().status());
        List<RunEntry> log = RunFixtures.all(engine, run.id());
        List<RunEntry> natives = of(log, EntryKind.NATIVE);
        assertEquals(2, natives.size());
        assertEquals("{\"line\":\"" + "a".repeat(64 * 1024) + "\",\"truncated\":true}", natives.get(0).payload());
        assertEquals("{\"line\":\"{\\\"after\\\":1}\"}", natives.get(1).payload());
        assertEquals(List.of("{\"what\":\"line\",\"limit\":65536,\"bytes\":3145728,\"seq\":" + natives.get(0).seq() + "}"),
                of(log, EntryKind.TRUNCATED).stream().map(RunEntry::payload).toList());
        // the cut line is not parsed; the next one is
        assertEquals(List.of("{\"after\":1}"), of(log, EntryKind.EVENT).stream().map(RunEntry::payload).toList());
    }

    @Test
    void aLineLongerThanTheRunLimitIsCutAndWhatFollowsIsStoredAndParsed() throws Exception {
        // 3 MiB in one line against a 1 MiB run limit: the cut line stores 4 KiB, so the budget is not used up
        RunEngine engine = engine(base().withOutputLimits(4096, 1L << 20, 4096));
        RunHandle run = engine.start(RunRequest.of("claude", fx.script("huge",
                "echo '{\"before\":1}'; head -c 3145728 /dev/zero | tr '\\0' 'a'; echo; echo '{\"after\":1}'"),
                line -> List.of(line)));
        assertEquals(RunStatus.SUCCEEDED, run.awaitCompletion(Duration.ofSeconds(20)).orElseThrow().status());
        List<RunEntry> log = RunFixtures.all(engine, run.id());
        assertEquals(3, of(log, EntryKind.NATIVE).size());
        assertEquals(List.of("{\"before\":1}", "{\"after\":1}"),
                of(log, EntryKind.EVENT).stream().map(RunEntry::payload).toList());
        assertEquals(1, of(log, EntryKind.TRUNCATED).size(), "only the line flag, no output flag");
    }

    @Test
    void aFloodPastTheRunLimitStopsTheRunWithAClearStatus() throws Exception {
        RunEngine engine = engine(base().withOutputLimits(4096, 1L << 20, 4096));
        // stdout without end (and 40 KB of stderr): storing stops at the limit and the run is stopped there
        RunHandle run = engine.start(RunRequest.of("claude", fx.script("flood", """
                i=0; while [ $i -lt 1000 ]; do echo "stderr line $i" >&2; i=$((i+1)); done
                yes '{"flood":"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"}'
                echo '{"last":true}'
                exit 7"""), RunFixtures.claudeParser()));
        RunInfo info = run.awaitCompletion(Duration.ofSeconds(30)).orElseThrow();
        assertEquals(RunStatus.FAILED, info.status());
        assertEquals("output limit: stopped after storing 1048576 bytes of output", info.reason());
        assertNotEquals(7, info.exitCode(), "stopped, not run to its end");
        List<RunEntry> log = RunFixtures.all(engine, run.id());
        long stored = of(log, EntryKind.NATIVE).size();
        // 43 bytes a line: the limit of 1 MiB holds at most 24,385 lines
        assertTrue(stored > 20_000 && stored <= (1 << 20) / 43, "stored lines stop at the run limit: " + stored);
        assertFalse(of(log, EntryKind.NATIVE).getLast().payload().contains("last"));
        List<String> truncated = of(log, EntryKind.TRUNCATED).stream().map(RunEntry::payload).toList();
        assertTrue(truncated.contains("{\"what\":\"output\",\"limit\":1048576}"), truncated.toString());
        assertTrue(truncated.contains("{\"what\":\"stderr\",\"limit\":4096}"), truncated.toString());
        assertEquals(2, truncated.size());
        long stderrBytes = of(log, EntryKind.STDERR).stream().mapToLong(e -> e.payload().length() - 11 + 1).sum();
        assertTrue(stderrBytes <= 4096, "stderr bounded: " + stderrBytes);
        assertTrue(log.getLast().payload().contains("\"limit\":\"output\""), log.getLast().payload());
        // the parser's closing event still comes, right before the end
        assertTrue(log.get(log.size() - 2).payload().startsWith("{\"kind\":\"complete\""),
                log.get(log.size() - 2).payload());
    }

    @Test
    void inactivityTimeoutKillsTheWholeTree() throws Exception {
        RunEngine engine = engine(base().withTimeouts(Duration.ofMillis(700), Duration.ofSeconds(30)));
        long t0 = System.nanoTime();
        // the fake starts two grandchildren, then sleeps 20 s before its first stdout line
        RunHandle run = engine.start(RunFixtures.request(fx.claude("AW_FAKE_GRANDCHILDREN", "2",
                "AW_FAKE_DELAY_MS", "20000")));
        RunInfo info = run.awaitCompletion(Duration.ofSeconds(20)).orElseThrow();
        assertTrue(System.nanoTime() - t0 < Duration.ofSeconds(10).toNanos());
        assertEquals(RunStatus.TIMED_OUT, info.status());
        assertEquals("inactivity timeout: no output for 700 ms", info.reason());
        List<RunEntry> log = RunFixtures.all(engine, run.id());
        assertTrue(log.getLast().payload().contains("\"timeout\":\"inactivity\""), log.getLast().payload());
        List<Long> grandchildren = RunFixtures.grandchildPids(log);
        assertEquals(2, grandchildren.size());
        assertEquals(Set.of(), RunFixtures.leftovers(Set.of(run.id()), grandchildren));
    }

    @Test
    void totalTimeoutKillsTheWholeTreeEvenWhileOutputFlows() throws Exception {
        RunEngine engine = engine(base().withTimeouts(Duration.ofSeconds(10), Duration.ofSeconds(1)));
        RunHandle run = engine.start(RunFixtures.request(fx.claude("AW_FAKE_GRANDCHILDREN", "2",
                "AW_FAKE_EVENTS", "10000", "AW_FAKE_DELAY_MS", "100")));
        RunInfo info = run.awaitCompletion(Duration.ofSeconds(20)).orElseThrow();
        assertEquals(RunStatus.TIMED_OUT, info.status());
        assertEquals("total timeout: ran longer than 1 s", info.reason());
        List<RunEntry> log = RunFixtures.all(engine, run.id());
        assertTrue(log.getLast().payload().contains("\"timeout\":\"total\""));
        assertTrue(of(log, EntryKind.NATIVE).size() >= 3, "output was flowing");
        assertEquals(Set.of(), RunFixtures.leftovers(Set.of(run.id()), RunFixtures.grandchildPids(log)));
    }

    @Test
    void cancelKillsATreeThatIgnoresSigtermAfterTheGracePeriod() throws Exception {
        RunEngine engine = engine(base().withKillGrace(Duration.ofMillis(400)));
        // the shell and everything it starts ignore SIGTERM (an ignored signal stays ignored across exec);
        // the grandchild detaches into its own process group and reports its pid
        RunHandle run = engine.start(RunRequest.of("claude", fx.script("stubborn", """
                trap '' TERM
                sleep 600 </dev/null >/dev/null 2>&1 &
                echo "aw-fake: grandchild pid $!" >&2
                while :; do echo '{"tick":1}'; sleep 0.05; done"""), LineParser.none()));
        awaitNatives(engine, run.id(), 3);
        long t0 = System.nanoTime();
        assertTrue(run.cancel());
        RunInfo info = run.awaitCompletion(Duration.ofSeconds(20)).orElseThrow();
        long took = System.nanoTime() - t0;
        assertEquals(RunStatus.CANCELLED, info.status());
        assertEquals("cancelled", info.reason());
        assertEquals(137, info.exitCode(), "SIGKILL after SIGTERM was ignored");
        assertTrue(took >= Duration.ofMillis(400).toNanos(), "waited the grace period");
        List<RunEntry> log = RunFixtures.all(engine, run.id());
        assertEquals(1, RunFixtures.grandchildPids(log).size());
        assertEquals(Set.of(), RunFixtures.leftovers(Set.of(run.id()), RunFixtures.grandchildPids(log)));
        assertFalse(run.cancel(), "a second cancel has nothing to do");
    }

    @Test
    void whatAProcessLeavesBehindWhenItExitsOnItsOwnIsKilledToo() throws Exception {
        RunEngine engine = engine(base());
        // a double fork: the sleep is re-parented to init at once, so it is no descendant of anything we started
        RunHandle run = engine.start(RunRequest.of("claude", fx.script("daemon", """
                (sleep 600 </dev/null >/dev/null 2>&1 & echo "aw-fake: grandchild pid $!" >&2)
                sleep 0.2
                echo '{"done":1}'"""), LineParser.none()));
        RunInfo info = run.awaitCompletion(Duration.ofSeconds(10)).orElseThrow();
        assertEquals(RunStatus.SUCCEEDED, info.status());
        List<Long> orphan = RunFixtures.grandchildPids(RunFixtures.all(engine, run.id()));
        assertEquals(1, orphan.size());
        assertEquals(Set.of(), RunFixtures.leftovers(Set.of(run.id()), orphan));
    }

    @Test
    void cancellingAHundredRunsMidStreamLeavesZeroProcesses() throws Exception {
        RunEngine engine = engine(base().withLimits(100, Map.of()));
        List<RunHandle> runs = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            runs.add(engine.start(RunFixtures.request(fx.claude("AW_FAKE_GRANDCHILDREN", "2",
                    "AW_FAKE_EVENTS", "1000", "AW_FAKE_DELAY_MS", "300"))));
        }
        Set<String> ids = new HashSet<>();
        for (RunHandle r : runs) {
            ids.add(r.id());
            awaitNatives(engine, r.id(), 2);
        }
        // mid-stream: every run is alive and has grandchildren (200 sleeps, 100 fakes, their pacing sleeps)
        assertTrue(RunFixtures.leftovers(ids, List.of()).size() >= 300,
                "the runs' processes are there before the cancel");
        for (RunHandle r : runs) {
            assertTrue(r.cancel());
        }
        List<Long> grandchildren = new ArrayList<>();
        for (RunHandle r : runs) {
            // a generous cap: 100 trees of SIGTERM, grace and SIGKILL on 2 busy cores; how fast is bench's business
            RunInfo info = r.awaitCompletion(Duration.ofSeconds(90))
                    .orElseThrow(() -> new AssertionError(r.id() + " did not end within 90 s of its cancel"));
            assertEquals(RunStatus.CANCELLED, info.status(), r.id());
            List<RunEntry> log = RunFixtures.all(engine, r.id());
            assertEquals(log.size(), log.getLast().seq());
            assertFalse(log.getLast().payload().contains("leftoverProcesses"), log.getLast().payload());
            grandchildren.addAll(RunFixtures.grandchildPids(log));
        }
        assertEquals(200, grandchildren.size());
        assertEquals(Set.of(), RunFixtures.leftovers(ids, grandchildren), "zero processes left");
        assertEquals(0, engine.activeCount());
    }

    @Test
    void limitsQueueAndCancelWhileQueued() throws Exception {
        RunEngine engine = engine(base().withLimits(3, Map.of("claude", 2)).withMaxQueued(2));
        Path gate = tmp.resolve("gate");
        ProcessSpec waitForGate = fx.script("gate", "while [ ! -f \"$GATE\" ]; do sleep 0.02; done; echo '{\"done\":1}'",
                "GATE", gate.toString());
        RunHandle a = engine.start(RunRequest.of("claude", waitForGate, LineParser.none()));
        RunHandle b = engine.start(RunRequest.of("claude", waitForGate, LineParser.none()));
        RunHandle c = engine.start(RunRequest.of("claude", waitForGate, LineParser.none()));
        // another provider is not held up by claude's limit (no head-of-line blocking)
        RunHandle other = engine.start(RunRequest.of("codex", waitForGate, LineParser.none()));
        awaitStatus(a, RunStatus.RUNNING);
        awaitStatus(b, RunStatus.RUNNING);
        awaitStatus(other, RunStatus.RUNNING);
        Thread.sleep(300);
        assertEquals(RunStatus.QUEUED, c.info().status(), "third claude run waits for claude's limit of 2");
        RunHandle d = engine.start(RunRequest.of("claude", waitForGate, LineParser.none()));
        assertThrows(WorkspaceException.RateLimited.class,
                () -> engine.start(RunRequest.of("claude", waitForGate, LineParser.none())), "queue of 2 is full");

        assertTrue(d.cancel(), "cancel while queued");
        RunInfo dInfo = d.awaitCompletion(Duration.ofSeconds(5)).orElseThrow();
        assertEquals(RunStatus.CANCELLED, dInfo.status());
        assertEquals("cancelled while queued", dInfo.reason());
        assertEquals(List.of("{\"status\":\"queued\"}", "{\"status\":\"cancelled\",\"reason\":\"cancelled while queued\"}"),
                RunFixtures.all(engine, d.id()).stream().map(RunEntry::payload).toList());
        assertTrue(dInfo.findStartedAt().isEmpty());

        assertTrue(a.cancel());
        assertEquals(RunStatus.CANCELLED, a.awaitCompletion(Duration.ofSeconds(10)).orElseThrow().status());
        awaitStatus(c, RunStatus.RUNNING);
        Files.createFile(gate);
        for (RunHandle h : List.of(b, c, other)) {
            assertEquals(RunStatus.SUCCEEDED, h.awaitCompletion(Duration.ofSeconds(10)).orElseThrow().status());
        }
        List<RunEntry> cLog = RunFixtures.all(engine, c.id());
        assertEquals("{\"status\":\"queued\"}", cLog.get(0).payload());
        assertTrue(cLog.get(1).payload().startsWith("{\"status\":\"running\""));
    }

    private static void awaitStatus(RunHandle h, RunStatus status) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (h.info().status() != status) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError(h.id() + " is " + h.info().status() + ", not " + status);
            }
            Thread.sleep(20);
        }
    }

    @Test
    void theChildGetsExactlyTheGivenEnvironmentPlusItsRunIdAndNothingOfTheServers() throws Exception {
        RunEngine engine = engine(base());
        String serverOnly = System.getenv().keySet().stream()
                .filter(k -> k.matches("[A-Za-z_][A-Za-z0-9_]*") && !k.equals("PATH") && !k.equals("HOME")
                        && !k.startsWith("AW_"))
                .findFirst().orElseThrow();
        RunHandle run = engine.start(RunFixtures.request(fx.claude("AW_FAKE_ECHO_ENV",
                "HOME,AW_RUN_ID,GIVEN," + serverOnly, "GIVEN", "1", "AW_RUN_ID", "forged")));
        run.awaitCompletion(Duration.ofSeconds(10)).orElseThrow();
        List<RunEntry> log = RunFixtures.all(engine, run.id());
        assertEquals("{\"line\":\"{\\\"type\\\":\\\"aw_fake_env\\\",\\\"set\\\":[\\\"HOME\\\",\\\"AW_RUN_ID\\\","
                + "\\\"GIVEN\\\"],\\\"unset\\\":[\\\"" + serverOnly + "\\\"]}\"}", of(log, EntryKind.NATIVE).getFirst().payload());

        // and the marker is the run's own id, whatever the caller put there
        RunHandle echo = engine.start(RunRequest.of("claude", fx.script("marker", "echo \"$AW_RUN_ID\"",
                "AW_RUN_ID", "forged"), LineParser.none()));
        echo.awaitCompletion(Duration.ofSeconds(10)).orElseThrow();
        assertEquals("{\"line\":\"" + echo.id() + "\"}",
                of(RunFixtures.all(engine, echo.id()), EntryKind.NATIVE).getFirst().payload());
    }

    @Test
    void aCancelWhoseDenialMakesTheCliFinishStillEndsCancelledWithTheDenialLogged() throws Exception {
        RunEngine engine = engine(base());
        // a CLI that waits for the answer to its request, then finishes successfully at once (as claude may when a
        // tool is denied): the cancel's denial reaches it before the process is told to stop
        Path cli = tmp.resolve("asks.sh");
        Files.writeString(cli, "echo '{\"asks\":1}'\nread -r answer\necho '{\"done\":1}'\nexit 0\n");
        RunHandle h = engine.start(RunRequest.of("claude",
                ProcessSpec.of(List.of("sh", cli.toString()), fx.env(), fx.project).interactive(""),
                LineParser.none()));
        awaitNatives(engine, h.id(), 1);
        long[] noted = new long[1];
        assertTrue(engine.cancel(h.id(), () -> {
            noted[0] = engine.note(h.id(), "{\"kind\":\"permission-response\",\"data\":{\"reason\":\"cancelled\"}}");
            assertTrue(engine.write(h.id(), "deny\n"));
            try {
                // the CLI has finished on its own before the cancel goes on: the engine must not call it a success
                awaitNatives(engine, h.id(), 2);
                Thread.sleep(300);
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        }));
        RunInfo done = h.awaitCompletion(Duration.ofSeconds(20)).orElseThrow();
        assertEquals(RunStatus.CANCELLED, done.status(), done.toString());
        assertEquals("cancelled", done.reason());
        List<RunEntry> log = RunFixtures.all(engine, h.id());
        assertTrue(noted[0] > 0 && log.stream().anyMatch(e -> e.seq() == noted[0] && e.payload().contains("cancelled")),
                "the denial is in the log: " + log);
        assertFalse(engine.cancel(h.id(), () -> {
            throw new AssertionError("an ended run runs nothing before a kill");
        }), "an ended run is not cancelled again");
    }

    @Test
    void interactiveStdinStaysOpenTakesLinesOnDemandAndNotesShareTheNumbering() throws Exception {
        RunEngine engine = engine(base().withTimeouts(Duration.ofSeconds(10), Duration.ofSeconds(20)));
        // `cat` echoes each line it reads and ends only at EOF: stdin must stay open until closeInput
        RunHandle h = engine.start(RunRequest.of("claude",
                ProcessSpec.of(List.of("cat"), fx.env(), fx.project).interactive("first\n"), LineParser.none()));
        assertTrue(engine.write(h.id(), "second\n"), "written while queued or running");
        awaitNatives(engine, h.id(), 2);
        long noted = engine.note(h.id(), "{\"kind\":\"permission-response\",\"data\":{\"decision\":\"deny\"}}");
        assertTrue(noted > 0);
        assertTrue(engine.write(h.id(), "third\n"));
        awaitNatives(engine, h.id(), 3);
        assertEquals(RunStatus.RUNNING, h.info().status(), "cat still waits for input");
        assertTrue(engine.lastSeq(h.id()) >= noted);
        assertThrows(org.agentworkspace.api.WorkspaceException.Validation.class, () -> engine.note(h.id(), "[1]"));
        assertTrue(engine.closeInput(h.id()));
        assertFalse(engine.closeInput(h.id()), "already closed");
        assertFalse(engine.write(h.id(), "late\n"), "nothing is written after EOF");
        RunInfo done = h.awaitCompletion(Duration.ofSeconds(10)).orElseThrow();
        assertEquals(RunStatus.SUCCEEDED, done.status());
        List<RunEntry> log = RunFixtures.all(engine, h.id());
        assertEquals(List.of("{\"line\":\"first\"}", "{\"line\":\"second\"}", "{\"line\":\"third\"}"),
                of(log, EntryKind.NATIVE).stream().map(RunEntry::payload).toList());
        RunEntry note = of(log, EntryKind.EVENT).getFirst();
        assertEquals(noted, note.seq());
        assertTrue(note.seq() > of(log, EntryKind.NATIVE).get(1).seq() && note.seq() < of(log, EntryKind.NATIVE).get(2).seq(),
                "the note sits between the lines it was written between: " + log);
        for (int i = 0; i < log.size(); i++) {
            assertEquals(i + 1, log.get(i).seq());
        }
        assertEquals(log.getLast().seq(), engine.lastSeq(h.id()));
        assertEquals(-1, engine.note(h.id(), "{}"), "an ended run takes no notes");
        assertFalse(engine.write(h.id(), "x\n"));
        // a run that is not interactive takes no input
        RunHandle plain = engine.start(RunRequest.of("claude",
                ProcessSpec.of(List.of("sleep", "1"), fx.env(), fx.project), LineParser.none()));
        assertFalse(engine.write(plain.id(), "x\n"));
        plain.awaitCompletion(Duration.ofSeconds(10)).orElseThrow();
    }

    @Test
    void stdinIsDevNullOrTheGivenTextAndTheProgramIsFoundOnTheChildsPath() throws Exception {
        RunEngine engine = engine(base().withTimeouts(Duration.ofSeconds(5), Duration.ofSeconds(10)));
        // `cat` with no input would wait forever on an open pipe; /dev/null ends it at once
        RunHandle empty = engine.start(RunRequest.of("claude",
                ProcessSpec.of(List.of("cat"), fx.env(), fx.project), LineParser.none()));
        RunInfo e = empty.awaitCompletion(Duration.ofSeconds(10)).orElseThrow();
        assertEquals(RunStatus.SUCCEEDED, e.status());
        RunHandle fed = engine.start(RunRequest.of("claude",
                ProcessSpec.of(List.of("cat"), fx.env(), fx.project).withStdin("first\nsecond -- --help\n"),
                LineParser.none()));
        fed.awaitCompletion(Duration.ofSeconds(10)).orElseThrow();
        assertEquals(List.of("{\"line\":\"first\"}", "{\"line\":\"second -- --help\"}"),
                of(RunFixtures.all(engine, fed.id()), EntryKind.NATIVE).stream().map(RunEntry::payload).toList());

        // a program not on the child's PATH: the run fails without ever running
        RunHandle missing = engine.start(RunRequest.of("claude",
                ProcessSpec.of(List.of("cat"), Map.of("PATH", tmp.toString()), fx.project), LineParser.none()));
        RunInfo m = missing.awaitCompletion(Duration.ofSeconds(10)).orElseThrow();
        assertEquals(RunStatus.FAILED, m.status());
        assertEquals("could not start: executable not found: cat", m.reason());
        assertEquals(2, RunFixtures.all(engine, missing.id()).size(), "queued, failed");
        RunHandle noDir = engine.start(RunRequest.of("claude",
                ProcessSpec.of(List.of("cat"), fx.env(), tmp.resolve("nowhere")), LineParser.none()));
        assertEquals("could not start: the working directory does not exist",
                noDir.awaitCompletion(Duration.ofSeconds(10)).orElseThrow().reason());
    }

    @Test
    void theChildLeadsItsOwnSessionWhenSetsidIsThere() throws Exception {
        RunEngine engine = engine(base());
        org.junit.jupiter.api.Assumptions.assumeTrue(engine.setsid().isPresent(), "no setsid on this system");
        RunHandle run = engine.start(RunRequest.of("claude", fx.script("session",
                "echo \"$$ $(cut -d' ' -f6 /proc/$$/stat)\""), LineParser.none()));
        run.awaitCompletion(Duration.ofSeconds(10)).orElseThrow();
        List<RunEntry> log = RunFixtures.all(engine, run.id());
        Matcher pid = Pattern.compile("\"pid\":(\\d+)").matcher(log.get(1).payload());
        assertTrue(pid.find());
        assertEquals("{\"line\":\"" + pid.group(1) + " " + pid.group(1) + "\"}",
                of(log, EntryKind.NATIVE).getFirst().payload(), "pid = session id = the pid the engine reported");
    }

    @Test
    void parserFailuresAreRecordedNotSwallowed() throws Exception {
        RunEngine engine = engine(base());
        LineParser parser = line -> switch (line) {
            case "boom" -> throw new IllegalStateException("cannot parse");
            case "bad" -> List.of("not json", "{\"a\":1} {\"b\":2}");
            default -> List.of("{\"ok\":\"" + line + "\"}");
        };
        RunHandle run = engine.start(RunRequest.of("claude", fx.script("parse", "echo one; echo boom; echo bad; echo two"),
                parser));
        run.awaitCompletion(Duration.ofSeconds(10)).orElseThrow();
        List<String> entries = RunFixtures.all(engine, run.id()).stream()
                .filter(e -> e.kind() == EntryKind.EVENT || e.kind() == EntryKind.PARSE_ERROR)
                .map(e -> e.kind().wireName() + " " + e.payload()).toList();
        assertEquals(List.of("event {\"ok\":\"one\"}",
                "parse_error {\"seq\":5,\"error\":\"IllegalStateException: cannot parse\"}",
                "parse_error {\"seq\":7,\"error\":\"the parser returned something that is not one JSON object\"}",
                "parse_error {\"seq\":7,\"error\":\"the parser returned something that is not one JSON object\"}",
                "event {\"ok\":\"two\"}"), entries);
    }

    @Test
    void theLogWriterBatchesEntriesIntoFewTransactions() throws Exception {
        RunEngine engine = engine(base().withWriting(2000, Duration.ofMillis(100)));
        RunHandle run = engine.start(RunFixtures.request(fx.claude("AW_FAKE_EVENTS", "5000")));
        run.awaitCompletion(Duration.ofSeconds(30)).orElseThrow();
        RunStats stats = engine.stats();
        long entries = RunFixtures.all(engine, run.id()).size();
        assertEquals(entries - 1, stats.entriesWritten(), "all but the first entry (written with the run) are batched");
        assertTrue(stats.transactions() <= 200, "10,000 entries in " + stats.transactions() + " transactions");
        assertEquals(0, stats.running());
        assertEquals(0, stats.queued());
        assertEquals(0, stats.pendingEntries());
    }

    @Test
    void closingTheEngineKillsRunningRunsAndEndsQueuedOnes() throws Exception {
        RunEngine engine = engine(base().withLimits(1, Map.of()));
        RunHandle running = engine.start(RunFixtures.request(fx.claude("AW_FAKE_GRANDCHILDREN", "1",
                "AW_FAKE_EVENTS", "1000", "AW_FAKE_DELAY_MS", "200")));
        RunHandle queued = engine.start(RunFixtures.request(fx.claude()));
        awaitNatives(engine, running.id(), 1);
        engine.close();
        RunEngine reopened = engine(base());
        for (RunHandle h : List.of(running, queued)) {
            RunInfo info = reopened.find(h.id()).orElseThrow();
            assertEquals(RunStatus.FAILED, info.status());
            assertEquals("engine stopped", info.reason());
        }
        assertEquals(Set.of(), RunFixtures.leftovers(Set.of(running.id()),
                RunFixtures.grandchildPids(RunFixtures.all(reopened, running.id()))));
        assertThrows(WorkspaceException.Unavailable.class, () -> engine.start(RunFixtures.request(fx.claude())));
    }
}
