package org.agentworkspace.server.agent;

import static org.agentworkspace.server.TestServer.expect;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;

import org.agentworkspace.api.provider.ProviderCredentials;
import org.agentworkspace.core.agent.AgentSettings;
import org.agentworkspace.server.ServerConfig;
import org.agentworkspace.server.SseClient;
import org.agentworkspace.server.TestServer;
import org.agentworkspace.testkit.fakecli.FakeClis;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The run engine's output limits through the running server (issue 18, points 8 and 9): a line far longer than the
 * whole stored-output cap is cut and the run keeps its result; a CLI that prints without end is stopped at the cap
 * with a clear status instead of being drained until its 2-hour limit. The cap is set by its flag
 * ({@code --max-run-output-bytes}, 1 MiB here); the fakes are told what to print through the provider environment.
 */
class RunOutputLimitsTest {
    @TempDir
    static Path tmp;
    static TestServer s;
    static String key;
    static Path project;

    @BeforeAll
    static void start() {
        Path bin = FakeClis.install(tmp.resolve("bin"), List.of("claude", "codex", "gemini", "opencode"));
        project = tmp.resolve("project");
        Map<String, Map<String, String>> env = new HashMap<>();
        // 3 MiB on one line before the recorded stream: three times the whole cap
        env.put("claude", Map.of("AW_FAKE_HUGE_LINE_BYTES", String.valueOf(3 << 20)));
        env.put("codex", Map.of("AW_FAKE_ENDLESS", "1"));
        // a line exactly at the 64 KiB cap (kept whole) and one byte over it (cut)
        env.put("gemini", Map.of("AW_FAKE_HUGE_LINE_BYTES", String.valueOf(64 * 1024)));
        env.put("opencode", Map.of("AW_FAKE_HUGE_LINE_BYTES", String.valueOf(64 * 1024 + 1)));
        ServerConfig flags = ServerConfig.from(Map.of(), List.of("--max-run-output-bytes", String.valueOf(1 << 20)));
        assertEquals(1 << 20, flags.engine().runs().maxRunBytes());
        // lines are cut at 64 KiB (the engine's setting; 1 MiB by default, no flag)
        s = TestServer.start(c -> c.withEngine(c.engine().withRuns(flags.engine().runs()
                        .withOutputLimits(64 * 1024, flags.engine().runs().maxRunBytes(), 64 * 1024)
                        .withTimeouts(Duration.ofMinutes(2), Duration.ofMinutes(5))
                        .withKillGrace(Duration.ofMillis(300))))
                .withAgent(AgentSettings.defaults().withBinaries(Map.of("*", bin)).withProviderEnv(env)
                        .withCredentials(id -> new ProviderCredentials("sk-aw-output-test", null))));
        String session = s.registerAdmin();
        key = s.createKey(session, "limits", List.of("tasks:write", "tasks:read"))[1];
        try {
            Files.createDirectories(project);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    @AfterAll
    static void stop() {
        s.close();
    }

    static String startRun(String agent) {
        JsonNode run = expect(s.post("/api/automation/run", Map.of("prompt", "Say hello", "agentType", agent,
                "projectPath", project.toString()), "X-API-Key", key), 202, null);
        return run.path("id").asText();
    }

    static JsonNode await(String id) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(90).toNanos();
        while (System.nanoTime() < deadline) {
            JsonNode r = expect(s.get("/api/automation/runs/" + id, "X-API-Key", key), 200, null);
            if (!List.of("queued", "running").contains(r.path("status").asText())) {
                return r;
            }
            Thread.sleep(100);
        }
        throw new AssertionError("run " + id + " did not end: the output was not stopped");
    }

    /** The run record's log lines (its last 100): system lines carry the engine's truncation entries. */
    static String logs(JsonNode run) {
        return run.path("logs").toString();
    }

    @Test
    void aLineLongerThanTheWholeCapIsCutAndTheRunKeepsItsResult() throws Exception {
        JsonNode done = await(startRun("claude"));
        assertEquals("completed", done.path("status").asText(), done.toString());
        assertFalse(done.path("resultText").asText("").isBlank(), "the result after the huge line is kept: " + done);
        assertFalse(done.path("sessionId").asText("").isBlank(), done.toString());
        // the log keeps the cut line with its marker, and what came after it
        String events = logs(done);
        assertTrue(events.contains("truncated {\\\"what\\\":\\\"line\\\",\\\"limit\\\":65536,\\\"bytes\\\":"
                + (3 << 20)), "the log marks the cut line: " + events);
        assertFalse(events.contains("\\\"what\\\":\\\"output\\\""), "the cap was not reached by one cut line");
    }

    /**
     * The events of a run whose output had a cut line, followed live from the start and replayed after the end: both
     * serve every frame (the cut line's marker as a {@code log} frame, the result after it) and end with
     * {@code done}, with the same ids. A replay of such a run was reported to answer an empty body.
     */
    @Test
    void theEventsOfARunWithACutLineAreServedLiveAndReplayed() throws Exception {
        String id = startRun("claude");
        List<SseClient.Event> live;
        try (SseClient sse = SseClient.open(s.http, s.uri("/api/automation/runs/" + id + "/events"),
                "X-API-Key", key)) {
            assertEquals(200, sse.status);
            live = sse.all();
        }
        JsonNode done = await(id);
        assertEquals("completed", done.path("status").asText(), done.toString());
        List<SseClient.Event> replay;
        try (SseClient sse = SseClient.open(s.http, s.uri("/api/automation/runs/" + id + "/events"),
                "X-API-Key", key)) {
            assertEquals(200, sse.status);
            replay = sse.all();
        }
        for (List<SseClient.Event> all : List.of(live, replay)) {
            assertFalse(all.isEmpty(), "the stream has a body");
            assertEquals("done", all.getLast().name(), "the stream ends with done: " + all.size() + " frames");
            assertEquals("completed", TestServer.JSON.readTree(all.getLast().data()).path("status").asText());
            assertTrue(all.stream().anyMatch(e -> e.name().equals("log")
                    && e.data().contains("\\\"what\\\":\\\"line\\\"")), "the cut line's marker is a log frame");
            assertTrue(all.stream().anyMatch(e -> e.name().equals("event") && e.data().contains("MOCK-REPLY")),
                    "the result after the cut line is served");
            assertEquals(done.path("lastSeq").asLong(), Long.parseLong(all.getLast().id()),
                    "up to the last stored entry");
        }
        assertEquals(live.stream().map(SseClient.Event::id).toList(), replay.stream().map(SseClient.Event::id)
                .toList(), "live and replay serve the same frames");
    }

    /** Lines at the cap and just over it: the replay serves every entry and ends with {@code done}. */
    @Test
    void runsWithALineAtTheCapOrJustOverItReplayToTheEnd() throws Exception {
        for (String agent : List.of("gemini", "opencode")) {
            String id = startRun(agent);
            JsonNode done = await(id);
            try (SseClient sse = SseClient.open(s.http, s.uri("/api/automation/runs/" + id + "/events"),
                    "X-API-Key", key)) {
                assertEquals(200, sse.status);
                List<SseClient.Event> all = sse.all();
                assertFalse(all.isEmpty(), agent + ": the replay has a body");
                assertEquals("done", all.getLast().name(), agent + ": " + all.size() + " frames");
                assertEquals(done.path("lastSeq").asLong(), Long.parseLong(all.getLast().id()), agent);
                boolean cut = all.stream().anyMatch(e -> e.name().equals("log")
                        && e.data().contains("\\\"what\\\":\\\"line\\\""));
                assertEquals(agent.equals("opencode"), cut, agent + ": cut only over the cap");
            }
        }
    }

    @Test
    void endlessOutputIsStoppedAtTheCapWithAClearStatus() throws Exception {
        long t0 = System.nanoTime();
        JsonNode done = await(startRun("codex"));
        assertEquals("failed", done.path("status").asText(), done.toString());
        assertEquals("RUN_FAILED", done.path("error").path("code").asText(), done.toString());
        assertEquals("output limit: stopped after storing 1048576 bytes of output",
                done.path("error").path("message").asText(), "the record says why the run was stopped");
        assertTrue(System.nanoTime() - t0 < Duration.ofSeconds(90).toNanos());
        assertTrue(logs(done).contains("truncated {\\\"what\\\":\\\"output\\\""),
                "the log says where storing stopped");
    }
}
