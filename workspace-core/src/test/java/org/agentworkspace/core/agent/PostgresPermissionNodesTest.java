package org.agentworkspace.core.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.databind.ObjectMapper;
import org.agentworkspace.api.WorkspaceException;
import org.agentworkspace.core.TestDatabases;
import org.agentworkspace.core.json.JsonMappers;
import org.agentworkspace.core.runs.EntryKind;
import org.agentworkspace.core.runs.LineParser;
import org.agentworkspace.core.runs.ProcessSpec;
import org.agentworkspace.core.runs.RunCursor;
import org.agentworkspace.core.runs.RunEngine;
import org.agentworkspace.core.runs.RunEntry;
import org.agentworkspace.core.runs.RunHandle;
import org.agentworkspace.core.runs.RunInfo;
import org.agentworkspace.core.runs.RunRequest;
import org.agentworkspace.core.runs.RunSettings;
import org.agentworkspace.core.runs.RunStatus;
import org.agentworkspace.core.store.Store;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A permission request of a run on node A, seen and answered on node B (docs/scale-out.md "Control from any node"):
 * B finds the open request in the run's log, its answer is carried out by A (the {@code permission-response} event
 * and the CLI's {@code control_response} line on stdin, as for a local answer), and an abort from B denies A's open
 * requests before the run is cancelled. The run is {@code cat} in interactive mode, so the line A writes to its stdin
 * comes back in its log; the request is opened the way the claude bridge opens it on the CLI's {@code control_request}
 * line ({@link PermissionRequests#opened}). A throwaway PostgreSQL database; B polls every 5 s.
 */
class PostgresPermissionNodesTest {
    @TempDir
    Path tmp;

    String url;
    final List<AutoCloseable> open = new ArrayList<>();
    final ObjectMapper mapper = JsonMappers.shared();

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

    RunEngine node(String id) throws InterruptedException {
        Store s = Store.open(url);
        open.add(s);
        RunEngine e = RunEngine.open(s, RunSettings.defaults().withKillGrace(Duration.ofMillis(500))
                .withPollInterval(Duration.ofSeconds(5)), Clock.systemUTC(), new org.agentworkspace.core.runs.RunNode(id, "test-host"));
        open.add(e);
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (!e.listeningToOtherNodes() && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        assertTrue(e.listeningToOtherNodes());
        return e;
    }

    PermissionRequests permissions(RunEngine e) {
        PermissionRequests p = new PermissionRequests(e, mapper, Clock.systemUTC());
        open.add(p);
        return p;
    }

    /** Reads B's follower until an entry whose payload contains {@code text}. */
    static RunEntry until(RunCursor c, String text) throws InterruptedException {
        while (true) {
            java.util.Optional<RunEntry> e = c.poll(Duration.ofSeconds(10));
            assertTrue(e.isPresent(), "an entry with " + text);
            if (e.get().payload().contains(text)) {
                return e.get();
            }
        }
    }

    @Test
    void aRequestOfARunOnAIsSeenAnsweredAndAbortedThroughB() throws Exception {
        RunEngine a = node("node_a");
        RunEngine b = node("node_b");
        PermissionRequests onA = permissions(a);
        PermissionRequests onB = permissions(b);
        Path project = Files.createDirectories(tmp.resolve("project"));
        RunHandle h = a.start(RunRequest.of("claude", ProcessSpec.of(List.of("cat"),
                Map.of("PATH", "/usr/bin:/bin", "HOME", tmp.toString()), project).interactive(""), LineParser.none()));
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (a.find(h.id()).orElseThrow().status() != RunStatus.RUNNING && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        try (RunCursor c = b.follow(h.id(), 0)) {
            // the CLI asks (on A): B learns it from the log, with the same id and seq
            onA.opened(h.id(), "cli-req-1", "Write", mapper.readTree("{\"file_path\":\"a.txt\"}"));
            RunEntry asked = until(c, "permission-request");
            PermissionRequests.Pending onAView = onA.pending(h.id()).getFirst();
            List<PermissionRequests.Pending> seen = onB.pending(h.id());
            assertEquals(1, seen.size(), seen.toString());
            assertEquals(onAView.requestId(), seen.getFirst().requestId());
            assertEquals(asked.seq(), seen.getFirst().seq());
            assertEquals("Write", seen.getFirst().toolName());
            assertEquals(onAView.expiresAt(), seen.getFirst().expiresAt());
            assertTrue(onB.findOpen(h.id(), onAView.requestId()).isPresent());
            PermissionRequests.Pending located = onB.locate(onAView.requestId()).orElseThrow();
            assertEquals(h.id(), located.runId());

            long t0 = System.nanoTime();
            long seq = onB.answerAnywhere(located, true);
            long took = Duration.ofNanos(System.nanoTime() - t0).toMillis();
            System.out.println("PostgresPermissionNodesTest: an answer on B to a request of a run on A took " + took
                    + " ms");
            assertTrue(took < 1500, "at A's wake-up, not its 5 s poll: " + took + " ms");
            RunEntry answer = until(c, "permission-response");
            assertEquals(seq, answer.seq(), "B got the seq A stored");
            assertTrue(answer.payload().contains("\"decision\":\"allow\"") && answer.payload().contains("answered"),
                    answer.payload());
            // A wrote the CLI's answer to the run's stdin; cat prints it back
            RunEntry echoed = until(c, "control_response");
            assertEquals(EntryKind.NATIVE, echoed.kind());
            assertTrue(echoed.payload().contains("cli-req-1") && echoed.payload().contains("allow")
                    && echoed.payload().contains("a.txt"), echoed.payload());
            assertTrue(onA.pending(h.id()).isEmpty(), "closed on A");
            assertTrue(onB.pending(h.id()).isEmpty(), "closed as B reads the log");
            // a second answer: refused by A, and B throws the same error
            WorkspaceException.NotFound again = assertThrows(WorkspaceException.NotFound.class,
                    () -> onB.answerAnywhere(located, false));
            assertEquals(AgentErrorCodes.PERMISSION_REQUEST_NOT_FOUND, again.code());

            // a second request; abort through B denies it ("cancelled") on A, then cancels the run
            onA.opened(h.id(), "cli-req-2", "Bash", mapper.readTree("{\"command\":\"ls\"}"));
            until(c, "permission-request");
            assertEquals(1, onB.pending(h.id()).size());
            assertTrue(onB.abort(h.id()));
            RunEntry denied = until(c, "permission-response");
            assertTrue(denied.payload().contains("\"reason\":\"cancelled\"")
                    && denied.payload().contains("\"decision\":\"deny\""), denied.payload());
        }
        RunInfo done = b.awaitCompletion(h.id(), Duration.ofSeconds(20)).orElseThrow();
        assertEquals(RunStatus.CANCELLED, done.status(), done.toString());
        assertTrue(onB.pending(h.id()).isEmpty(), "an ended run has no open request");
    }
}
