package org.agentworkspace.server.agent;

import static org.agentworkspace.server.TestServer.bearer;
import static org.agentworkspace.server.TestServer.expect;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

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
 * {@code POST /api/agent} through the running server with the fake CLIs (real processes replaying recorded
 * streams): buffered JSON, SSE, NDJSON, resume, validation and authentication.
 */
class AgentRouteTest {
    static final String KEY = "sk-aw-agent-route-test-key";
    @TempDir
    static Path tmp;
    static TestServer s;
    static String key;
    static String session;
    static Path project;

    @BeforeAll
    static void start() throws Exception {
        Path bin = FakeClis.install(tmp.resolve("bin"));
        project = Files.createDirectories(tmp.resolve("project"));
        s = TestServer.start(c -> c.withAgent(AgentSettings.defaults().withBinaries(Map.of("*", bin))
                .withCredentials(id -> new ProviderCredentials(KEY, null))));
        session = s.registerAdmin();
        key = s.createKey(session, "ci", List.of("tasks:write", "tasks:read"))[1];
    }

    @AfterAll
    static void stop() {
        s.close();
    }

    static Map<String, Object> body(Object... kv) {
        Map<String, Object> m = new HashMap<>();
        for (int i = 0; i + 1 < kv.length; i += 2) {
            m.put((String) kv[i], kv[i + 1]);
        }
        return m;
    }

    @Test
    void bufferedRunReturnsTextSessionAndUsage() {
        for (String provider : List.of("claude", "codex", "gemini", "qwen", "opencode", "cursor", "grok")) {
            JsonNode r = expect(s.post("/api/agent", body("message", "Say hello", "provider", provider,
                    "projectPath", project.toString(), "stream", false), "X-API-Key", key), 200, null);
            assertTrue(r.path("success").asBoolean(), provider + ": " + r);
            assertFalse(r.path("text").asText().isBlank(), provider + ": " + r);
            assertEquals(provider, r.path("provider").asText());
            assertTrue(r.path("runId").asText().startsWith("run_"), r.toString());
            if (!provider.equals("grok")) {
                assertFalse(r.path("sessionId").asText("").isBlank(), provider + ": " + r);
            }
            if (!provider.equals("grok") && !provider.equals("cursor")) {
                assertTrue(r.path("usage").path("input").asLong() > 0, provider + ": " + r);
                assertTrue(r.path("usage").path("output").asLong() > 0, provider + ": " + r);
                assertEquals(r.path("usage").path("input").asLong() + r.path("usage").path("output").asLong(),
                        r.path("usage").path("total").asLong());
            }
            assertFalse(r.toString().contains(KEY), "no provider key in a response");
        }
    }

    @Test
    void aSessionIdResumesTheSession() {
        JsonNode first = expect(s.post("/api/agent", body("message", "Say hello", "projectPath", project.toString(),
                "stream", "false"), "Authorization", "Bearer " + key), 200, null);
        String id = first.path("sessionId").asText();
        JsonNode second = expect(s.post("/api/agent", body("message", "Again", "projectPath", project.toString(),
                "stream", false, "sessionId", id), "X-API-Key", key), 200, null);
        assertEquals(id, second.path("sessionId").asText(), second.toString());
    }

    HttpResponse<InputStream> open(Map<String, Object> body, String accept) throws Exception {
        HttpRequest req = HttpRequest.newBuilder(s.uri("/api/agent")).timeout(Duration.ofSeconds(60))
                .header("Content-Type", "application/json").header("X-API-Key", key).header("Accept", accept)
                .POST(HttpRequest.BodyPublishers.ofString(TestServer.JSON.writeValueAsString(body))).build();
        return s.http.send(req, HttpResponse.BodyHandlers.ofInputStream());
    }

    @Test
    void sseCarriesTheToolCallAndEndsWithDone() throws Exception {
        Path dir = Files.createDirectories(tmp.resolve("sse-project"));
        HttpResponse<InputStream> res = open(body("message",
                "Create it [[mock:tool:write_file path=hello.txt content=x]]", "provider", "claude",
                "projectPath", dir.toString()), "text/event-stream");
        assertEquals(200, res.statusCode());
        assertTrue(res.headers().firstValue("Content-Type").orElse("").startsWith("text/event-stream"));
        List<Sse.Frame> frames = new Sse(res.body()).until(f -> f.name().equals("done") || f.name().equals("error"));
        assertEquals("done", frames.getLast().name(), frames.toString());
        assertTrue(frames.stream().anyMatch(f -> f.name().equals("session-created")), frames.toString());
        assertTrue(frames.stream().anyMatch(f -> f.name().equals("event")
                && f.data().path("kind").asText().equals("tool-use")
                && f.data().path("data").path("toolName").asText().equals("Write")), frames.toString());
        assertTrue(frames.stream().anyMatch(f -> f.data().has("native")), "native lines are carried");
        long prev = 0;
        for (Sse.Frame f : frames) {
            assertTrue(f.seq() >= prev, "ids ascend");
            prev = f.seq();
        }
        JsonNode done = frames.getLast().data();
        assertTrue(done.path("success").asBoolean(), done.toString());
    }

    @Test
    void ndjsonWhenTheClientAsksForIt() throws Exception {
        HttpResponse<InputStream> res = open(body("message", "Say hello", "provider", "codex",
                "projectPath", project.toString()), "application/x-ndjson");
        assertEquals(200, res.statusCode());
        assertTrue(res.headers().firstValue("Content-Type").orElse("").startsWith("application/x-ndjson"));
        List<JsonNode> lines = new java.util.ArrayList<>();
        try (BufferedReader r = new BufferedReader(new InputStreamReader(res.body(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = r.readLine()) != null) {
                if (!line.isBlank()) {
                    lines.add(TestServer.JSON.readTree(line));
                }
            }
        }
        assertEquals("done", lines.getLast().path("event").asText(), lines.toString());
        assertTrue(lines.stream().anyMatch(l -> l.path("event").asText().equals("event")
                && l.path("data").path("kind").asText().equals("text")), lines.toString());
    }

    @Test
    void validationAndAuthentication() {
        expect(s.post("/api/agent", body("provider", "claude", "projectPath", project.toString()), "X-API-Key", key),
                400, "VALIDATION_FAILED");
        expect(s.post("/api/agent", body("message", "hi"), "X-API-Key", key), 400, "VALIDATION_FAILED");
        expect(s.post("/api/agent", body("message", "hi", "provider", "nope", "projectPath", project.toString()),
                "X-API-Key", key), 400, "UNKNOWN_PROVIDER");
        expect(s.post("/api/agent", body("message", "hi", "projectPath", "relative/path"), "X-API-Key", key),
                400, "INVALID_PATH");
        expect(s.post("/api/agent", body("message", "hi", "projectPath", tmp.resolve("missing").toString()),
                "X-API-Key", key), 400, "INVALID_PATH");
        expect(s.post("/api/agent", body("message", "hi", "githubUrl", "file:///etc"), "X-API-Key", key),
                400, "INVALID_REPOSITORY_URL");
        expect(s.post("/api/agent", body("message", "hi", "projectPath", project.toString())), 401,
                "API_KEY_REQUIRED");
        expect(s.post("/api/agent", body("message", "hi", "projectPath", project.toString()), bearer(session)),
                401, "API_KEY_REQUIRED");
        expect(s.post("/api/agent", body("message", "hi", "projectPath", project.toString()), "X-API-Key",
                "px_" + "0".repeat(32)), 401, "INVALID_API_KEY");
        expect(s.post("/api/agent?apiKey=" + key, body("message", "hi", "projectPath", project.toString())), 401,
                "QUERY_CREDENTIALS_DISABLED");
        String[] readOnly = s.createKey(session, "read only", List.of("tasks:read"));
        expect(s.post("/api/agent", body("message", "hi", "projectPath", project.toString()), "X-API-Key",
                readOnly[1]), 403, "INSUFFICIENT_SCOPE");
    }

    @Test
    void aMissingCliIs503() {
        try (TestServer other = TestServer.start(c -> c.withAgent(AgentSettings.defaults()
                .withBinaries(Map.of("*", tmp.resolve("no-such-dir")))))) {
            String sess = other.registerAdmin();
            String k = other.createKey(sess, "ci", List.of("tasks:write"))[1];
            JsonNode e = expect(other.post("/api/agent", body("message", "hi", "projectPath", project.toString(),
                    "stream", false), "X-API-Key", k), 503, "PROVIDER_NOT_INSTALLED");
            assertNotNull(e);
            // the answer says how to get it (issue 17: a newcomer had to find the install route alone)
            String message = e.path("error").path("message").asText();
            assertTrue(message.contains("POST /api/providers/claude/install") && message.contains("PATH"), message);
        }
    }
}
