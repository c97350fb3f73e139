package org.agentworkspace.server.agent;

import static org.agentworkspace.server.TestServer.bearer;
import static org.agentworkspace.server.TestServer.expect;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import com.fasterxml.jackson.databind.JsonNode;

import org.agentworkspace.api.provider.ProviderCredentials;
import org.agentworkspace.core.agent.AgentSettings;
import org.agentworkspace.server.TestServer;
import org.agentworkspace.testkit.fakecli.FakeClis;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code POST /api/automation/run} and the run read-back, event stream and cancel routes, through the running server
 * with the fake CLIs. The fakes are tuned per provider through the provider environment: gemini emits 400 events
 * slowly (for reconnects), qwen emits forever with grandchildren (for cancellation).
 */
class AutomationRouteTest {
    static final String KEY = "sk-aw-automation-test-key";
    static final String GRANDCHILD_SECONDS = "787";
    @TempDir
    static Path tmp;
    static TestServer s;
    static String session;
    static String key;
    static Path project;

    @BeforeAll
    static void start() throws Exception {
        Path bin = FakeClis.install(tmp.resolve("bin"));
        project = Files.createDirectories(tmp.resolve("project"));
        Map<String, Map<String, String>> env = new HashMap<>();
        env.put("gemini", Map.of("AW_FAKE_EVENTS", "400", "AW_FAKE_DELAY_MS", "2"));
        env.put("qwen", Map.of("AW_FAKE_EVENTS", "100000", "AW_FAKE_DELAY_MS", "250", "AW_FAKE_GRANDCHILDREN", "2",
                "AW_FAKE_GRANDCHILD_SECONDS", GRANDCHILD_SECONDS));
        // one account starts 100 runs at once here (the cancellation test): its per-account caps let it
        s = TestServer.start(c -> c.withEngine(c.engine().withRuns(c.engine().runs().withLimits(25, Map.of())
                        .withAccountLimits(100, 25).withKillGrace(Duration.ofMillis(300))))
                .withAgent(AgentSettings.defaults().withBinaries(Map.of("*", bin)).withProviderEnv(env)
                        .withCredentials(id -> new ProviderCredentials(KEY, null))));
        session = s.registerAdmin();
        key = s.createKey(session, "automation", List.of("tasks:write", "tasks:read"))[1];
    }

    @AfterAll
    static void stop() {
        s.close();
    }

    static JsonNode startRun(String prompt, String agentType) {
        Map<String, Object> body = new HashMap<>(Map.of("prompt", prompt, "projectPath", project.toString()));
        if (agentType != null) {
            body.put("agentType", agentType);
        }
        JsonNode run = expect(s.post("/api/automation/run", body, "X-API-Key", key), 202, null);
        assertTrue(run.path("id").asText().startsWith("run_"), run.toString());
        assertTrue(List.of("queued", "running").contains(run.path("status").asText()), run.toString());
        return run;
    }

    static JsonNode await(String id) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (System.nanoTime() < deadline) {
            JsonNode r = expect(s.get("/api/automation/runs/" + id, "X-API-Key", key), 200, null);
            if (!List.of("queued", "running").contains(r.path("status").asText())) {
                return r;
            }
            Thread.sleep(50);
        }
        throw new AssertionError("run " + id + " did not end");
    }

    @Test
    void aRunIsAcceptedAndReadBackWithItsResultAndBoundedLogs() throws Exception {
        JsonNode run = startRun("Say hello", null);
        assertEquals("claude", run.path("agentType").asText(), "claude when nothing picks the agent");
        JsonNode done = await(run.path("id").asText());
        assertEquals("completed", done.path("status").asText(), done.toString());
        assertFalse(done.path("resultText").asText("").isBlank(), done.toString());
        assertFalse(done.path("sessionId").asText("").isBlank(), done.toString());
        assertTrue(done.path("logs").isArray() && done.path("logs").size() > 0, done.toString());
        assertTrue(done.path("logs").size() <= 100);
        assertEquals(0, done.path("exitCode").asInt(-1));
        assertFalse(done.toString().contains(KEY), "no provider key in a run record");
        JsonNode list = expect(s.get("/api/automation/runs?limit=200", "X-API-Key", key), 200, null);
        assertTrue(list.findValuesAsText("id").contains(run.path("id").asText()));
    }

    @Test
    void aProjectIdNamesARegisteredProject() throws Exception {
        Path dir = Files.createDirectories(tmp.resolve("registered-project"));
        String name = expect(s.post("/api/projects/quick-start", Map.of("path", dir.toString()), bearer(session)),
                200, null).path("name").asText();
        JsonNode run = expect(s.post("/api/automation/run", Map.of("prompt", "Say hello", "projectId", name),
                "X-API-Key", key, "X-Forwarded-For", "203.0.113.9"), 202, null);
        assertEquals(name, run.path("projectId").asText());
        JsonNode done = await(run.path("id").asText());
        assertEquals("completed", done.path("status").asText(), done.toString());
        JsonNode listed = expect(s.get("/api/automation/runs?projectId=" + name, "X-API-Key", key), 200, null);
        assertEquals(1, listed.size(), listed.toString());
    }

    @Test
    void theMarkerPicksTheAgentAndIsRemoved() throws Exception {
        JsonNode run = startRun("[agent:codex] Say hello", null);
        assertEquals("codex", run.path("agentType").asText());
        JsonNode done = await(run.path("id").asText());
        assertEquals("completed", done.path("status").asText(), done.toString());
        JsonNode explicit = startRun("[agent:codex] Say hello", "cursor");
        assertEquals("cursor", explicit.path("agentType").asText(), "agentType wins over the marker");
        await(explicit.path("id").asText());
    }

    @Test
    void validationTrustAndScopes() {
        expect(s.post("/api/automation/run", Map.of("projectPath", project.toString()), "X-API-Key", key), 400,
                "VALIDATION_FAILED");
        expect(s.post("/api/automation/run", Map.of("prompt", "hi"), "X-API-Key", key), 400, "VALIDATION_FAILED");
        expect(s.post("/api/automation/run", Map.of("prompt", "hi", "agentType", "nope", "projectPath",
                project.toString()), "X-API-Key", key), 400, "UNKNOWN_PROVIDER");
        expect(s.post("/api/automation/run", Map.of("prompt", "[agent:nope] hi", "projectPath",
                project.toString()), "X-API-Key", key), 400, "UNKNOWN_PROVIDER");
        expect(s.post("/api/automation/run", Map.of("prompt", "hi", "projectId", "no-such-project"), "X-API-Key",
                key), 404, "PROJECT_NOT_FOUND");
        expect(s.post("/api/automation/run", Map.of("prompt", "hi", "projectPath", project.toString()), "X-API-Key",
                key, "X-Forwarded-For", "203.0.113.9"), 403, "PROJECT_PATH_NOT_TRUSTED");
        String[] readOnly = s.createKey(session, "reader", List.of("tasks:read"));
        expect(s.post("/api/automation/run", Map.of("prompt", "hi", "projectPath", project.toString()), "X-API-Key",
                readOnly[1]), 403, "INSUFFICIENT_SCOPE");
        String[] writer = s.createKey(session, "writer only", List.of("tasks:write"));
        expect(s.get("/api/automation/runs", "X-API-Key", writer[1]), 403, "INSUFFICIENT_SCOPE");
        expect(s.get("/api/automation/runs/run_nope", "X-API-Key", key), 404, "RUN_NOT_FOUND");
        expect(s.post("/api/automation/runs/run_nope/cancel", null, "X-API-Key", key), 404, "RUN_NOT_FOUND");
        try (TestServer off = TestServer.start(c -> c.withAgent(AgentSettings.defaults()
                .withTrustLocalProjectPaths(false)))) {
            String sess = off.registerAdmin();
            expect(off.post("/api/automation/run", Map.of("prompt", "hi", "projectPath", project.toString()),
                    bearer(sess)), 403, "PROJECT_PATH_NOT_TRUSTED");
        }
    }

    @Test
    void anotherUsersRunIsNotFound() throws Exception {
        String bobId = expect(s.post("/api/users", Map.of("username", "bob", "password", "bob-password-1"),
                bearer(session)), 201, null).path("id").asText();
        String bob = s.login("bob", "bob-password-1");
        JsonNode run = startRun("Say hello", "claude");
        expect(s.get("/api/automation/runs/" + run.path("id").asText(), bearer(bob)), 404, "RUN_NOT_FOUND");
        expect(s.get("/api/automation/runs/" + run.path("id").asText() + "/events", bearer(bob)), 404,
                "RUN_NOT_FOUND");
        assertEquals(0, expect(s.get("/api/automation/runs", bearer(bob)), 200, null).size());
        await(run.path("id").asText());
        assertFalse(bobId.isEmpty());
    }

    static HttpResponse<InputStream> events(String id, String lastEventId, String query, String... headers)
            throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(s.uri("/api/automation/runs/" + id + "/events" + query))
                .timeout(Duration.ofSeconds(60)).GET();
        if (lastEventId != null) {
            b.header("Last-Event-ID", lastEventId);
        }
        for (int i = 0; i + 1 < headers.length; i += 2) {
            b.header(headers[i], headers[i + 1]);
        }
        return s.http.send(b.build(), HttpResponse.BodyHandlers.ofInputStream());
    }

    @Test
    void aClientThatReconnectsWithLastEventIdGetsEveryEventOnceInOrder() throws Exception {
        JsonNode run = startRun("Count", "gemini");
        String id = run.path("id").asText();
        List<Long> seen = new ArrayList<>();
        String last = null;
        int connections = 0;
        boolean done = false;
        while (!done) {
            connections++;
            HttpResponse<InputStream> res = events(id, last, "", "X-API-Key", key);
            assertEquals(200, res.statusCode());
            Sse sse = new Sse(res.body());
            // read a few frames, then drop the connection (the last connection reads to the end)
            int budget = connections < 8 ? 40 : Integer.MAX_VALUE;
            Sse.Frame f;
            while (budget-- > 0 && (f = sse.next()) != null) {
                if (f.name().equals("done")) {
                    done = true;
                    break;
                }
                if (!f.name().equals("done")) {
                    seen.add(f.seq());
                    last = f.id();
                }
            }
            sse.close();
        }
        assertTrue(connections >= 8, "reconnected " + connections);
        // a fresh reader of the finished run: the reference order
        List<Long> all = new ArrayList<>();
        HttpResponse<InputStream> res = events(id, null, "?afterSeq=0", "X-API-Key", key);
        for (Sse.Frame f : new Sse(res.body()).until(f -> f.name().equals("done"))) {
            if (!f.name().equals("done")) {
                all.add(f.seq());
            }
        }
        assertTrue(all.size() > 400, "events: " + all.size());
        assertEquals(all, seen, "every frame exactly once, in order, across " + connections + " connections");
        for (int i = 1; i < seen.size(); i++) {
            assertTrue(seen.get(i) > seen.get(i - 1), "strictly ascending ids");
        }
    }

    @Test
    void aStreamTicketOpensTheEventStreamOnce() throws Exception {
        JsonNode run = startRun("Say hello", "claude");
        String id = run.path("id").asText();
        await(id);
        String ticket = expect(s.post("/api/auth/stream-ticket", Map.of(), "X-API-Key", key), 200, null)
                .path("ticket").asText();
        HttpResponse<InputStream> res = events(id, null, "?streamTicket=" + ticket);
        assertEquals(200, res.statusCode());
        List<Sse.Frame> frames = new Sse(res.body()).until(f -> f.name().equals("done"));
        assertEquals("done", frames.getLast().name());
        assertEquals("completed", frames.getLast().data().path("status").asText());
        assertTrue(frames.stream().anyMatch(f -> f.name().equals("status")));
        HttpResponse<InputStream> again = events(id, null, "?streamTicket=" + ticket);
        assertEquals(401, again.statusCode(), "a ticket is redeemable once");
        again.body().close();
    }

    /** Processes whose command line is the fakes' grandchild {@code sleep GRANDCHILD_SECONDS}. */
    static long grandchildren() throws IOException {
        try (Stream<Path> procs = Files.list(Path.of("/proc"))) {
            return procs.filter(p -> p.getFileName().toString().chars().allMatch(Character::isDigit)).filter(p -> {
                try {
                    String cmd = new String(Files.readAllBytes(p.resolve("cmdline")), StandardCharsets.UTF_8);
                    return cmd.equals("sleep\0" + GRANDCHILD_SECONDS + "\0");
                } catch (IOException e) {
                    return false;
                }
            }).count();
        }
    }

    @Test
    void hundredRunsCancelledMidStreamLeaveNoProcess() throws Exception {
        assertEquals(0, grandchildren());
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            ids.add(startRun("Stream forever " + i, "qwen").path("id").asText());
        }
        long peak = 0;
        for (String id : ids) {
            HttpResponse<InputStream> res = events(id, null, "", "X-API-Key", key);
            Sse sse = new Sse(res.body());
            // mid-stream: the run is running and has produced events
            List<Sse.Frame> got = sse.until(f -> f.name().equals("event"));
            assertEquals("event", got.getLast().name(), id + ": " + got);
            peak = Math.max(peak, grandchildren());
            JsonNode cancelled = expect(s.post("/api/automation/runs/" + id + "/cancel", null, "X-API-Key", key),
                    200, null);
            assertEquals("cancelled", cancelled.path("status").asText(), cancelled.toString());
            List<Sse.Frame> rest = sse.until(f -> f.name().equals("done"));
            assertEquals("done", rest.getLast().name(), "the stream ends after the terminal status");
            assertEquals("cancelled", rest.getLast().data().path("status").asText());
            sse.close();
        }
        assertTrue(peak > 0, "the fakes did start grandchildren");
        long left = grandchildren();
        assertEquals(0, left, "processes left after cancelling 100 runs");
        System.out.println("cancelled 100 runs through the server; peak grandchildren " + peak + ", left " + left);
    }
}
