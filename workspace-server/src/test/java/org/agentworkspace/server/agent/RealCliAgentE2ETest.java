package org.agentworkspace.server.agent;

import static org.agentworkspace.server.TestServer.expect;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.InputStream;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;

import com.fasterxml.jackson.databind.JsonNode;

import org.agentworkspace.core.agent.AgentSettings;
import org.agentworkspace.server.ServerConfig;
import org.agentworkspace.server.TestServer;
import org.agentworkspace.testkit.mockllm.MockLlmServer;
import org.agentworkspace.testkit.mockllm.RecordedRequest;
import org.agentworkspace.testkit.realcli.RealCli;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The six real CLIs from npm (cached by {@link RealCli#ensureInstalled}) driven THROUGH THE RUNNING SERVER against the
 * mock LLM, with every credential set the way a user sets it: each provider's key and base URL (the mock) saved by a
 * signed-in user through {@code POST /api/providers/{p}/auth/api-key}. The server is configured only as an operator
 * would: the binaries ({@code --cli-path}) and its environment (an isolated {@code HOME} and a {@code PATH} with node
 * 22), nothing about keys.
 *
 * <p>Per CLI: {@code POST /api/agent} buffered (the mock's text, a session id, usage), streamed (the write tool call
 * the mock scripted, and the file appears in the project) and resumed by session id (all but grok, which has no
 * sessions); {@code POST /api/automation/run} followed on its event stream to {@code done}; a scheduled {@code once}
 * task; and a run of a second account, whose own key reaches the mock. The mock's request log proves each run sent
 * the key its account stored. The runs use the routes' non-interactive permission mode (bypass). Skipped, with the
 * reason printed, only when node or npm is missing.
 *
 * <p>The server's history home is that HOME (plus gemini's own), so afterwards the sessions the real CLIs wrote are
 * read back through the history routes: listed under the run's project with the first prompt as title, and every
 * message page by page.
 */
@Tag("real-cli")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class RealCliAgentE2ETest {
    static final String FIRST_PROMPT = "--help -rf Say hello to the mock";
    static final String SECOND_PROMPT = "And now the second turn";
    static final Map<String, String> MODELS = Map.of("claude", "claude-sonnet-4-5", "codex", "gpt-5.5",
            "gemini", "gemini-2.5-flash", "qwen", "qwen3-coder-plus", "opencode", "mock-model",
            "grok", "grok-code-fast-1");
    static final Map<String, String> URL_SUFFIX = Map.of("claude", "", "codex", "/v1", "gemini", "",
            "qwen", "/v1", "opencode", "/v1", "grok", "/v1");
    static final Map<String, String> WRITE_TOOL = Map.of("claude", "Write", "codex", "file_change",
            "gemini", "write_file", "qwen", "write_file", "opencode", "write", "grok", "create_file");

    @TempDir
    static Path tmp;
    MockLlmServer mock;
    TestServer s;
    String key;
    String admin;
    String bob;
    String bobKey;
    /** The session id of each provider's first (and resumed) run. */
    final Map<String, String> sessions = new java.util.concurrent.ConcurrentHashMap<>();

    static String apiKey(String provider) {
        return "sk-aw-e2e-" + provider;
    }

    static String bobsKey(String provider) {
        return "sk-aw-e2e-bob-" + provider;
    }

    /**
     * The test server's configuration, in one place: what an operator sets (the binaries). Anything an operator must
     * allow for the mock (a loopback endpoint, say) goes here.
     */
    static ServerConfig configure(ServerConfig c, Map<String, Path> bins, String mockBaseUrl) {
        java.net.URI mock = java.net.URI.create(mockBaseUrl);
        return c.withAgent(AgentSettings.defaults().withBinaries(bins))
                .withOutboundAllow(java.util.Set.of(mock.getHost() + ":" + mock.getPort()));
    }

    /** Saves the provider's key and the mock as its base URL through the route, as the signed-in user. */
    void storeKey(String session, String provider, String apiKey) {
        JsonNode saved = expect(s.post("/api/providers/" + provider + "/auth/api-key", Map.of("apiKey", apiKey,
                "baseUrl", mock.baseUrl() + URL_SUFFIX.getOrDefault(provider, "")), TestServer.bearer(session)), 200,
                null);
        assertEquals("own", saved.path("effectiveSource").asText(), saved.toString());
    }

    @BeforeAll
    void start() throws Exception {
        Optional<String> missing = RealCli.unavailableReason();
        if (missing.isPresent()) {
            System.out.println("SKIPPED real-cli e2e: " + missing.get());
        }
        Assumptions.assumeTrue(missing.isEmpty(), () -> missing.orElse(""));
        Path node = RealCli.ensureNode();
        Map<String, Path> bins = new HashMap<>();
        for (String id : MODELS.keySet()) {
            bins.put(id, RealCli.ensureInstalled(id));
        }
        Path home = home();
        Path tmpdir = Files.createDirectories(tmp.resolve("tmpdir"));
        mock = MockLlmServer.create().start();
        // the operator's environment: HOME, TMPDIR and a PATH with node 22 (the engine's environment map, which the
        // runs inherit like any server's); no credential anywhere in it
        s = TestServer.start(c -> configure(c, bins, mock.baseUrl()), Map.of("HOME", home.toString(), "TMPDIR", tmpdir.toString(),
                "PATH", node + ":/usr/local/bin:/usr/bin:/bin"));
        admin = s.registerAdmin();
        key = s.createKey(admin, "e2e", List.of("tasks:write", "tasks:read"))[1];
        expect(s.post("/api/users", Map.of("username", "bob", "password", "bob-password-1"),
                TestServer.bearer(admin)), 201, null);
        bob = s.login("bob", "bob-password-1");
        bobKey = s.createKey(bob, "bob-e2e", List.of("tasks:write", "tasks:read"))[1];
        for (String id : MODELS.keySet()) {
            storeKey(admin, id, apiKey(id));
            storeKey(bob, id, bobsKey(id));
        }
    }

    @AfterAll
    void stop() {
        if (s != null) {
            s.close();
        }
        if (mock != null) {
            mock.close();
        }
    }

    private Path home() throws Exception {
        Path home = Files.createDirectories(tmp.resolve("home"));
        {
            // on a fresh HOME opencode npm-installs its plugin in the background; pre-seed it from the cache, as an
            // operator's HOME would have it after the first run
            Path dir = Files.createDirectories(home.resolve(".config/opencode"));
            Path plugin = RealCli.cacheDir().resolve("opencode-plugin-" + RealCli.spec("opencode").version());
            for (String f : List.of("package.json", "package-lock.json")) {
                if (Files.exists(plugin.resolve(f))) {
                    Files.copy(plugin.resolve(f), dir.resolve(f), StandardCopyOption.REPLACE_EXISTING);
                }
            }
            if (!Files.exists(dir.resolve("node_modules"), LinkOption.NOFOLLOW_LINKS)) {
                Files.createSymbolicLink(dir.resolve("node_modules"), plugin.resolve("node_modules"));
            }
        }
        return home;
    }

    private JsonNode buffered(String provider, Path project, String message, String sessionId) {
        return buffered(provider, project, message, sessionId, key);
    }

    private JsonNode buffered(String provider, Path project, String message, String sessionId, String apiKey) {
        Map<String, Object> body = new HashMap<>(Map.of("message", message, "provider", provider,
                "model", MODELS.get(provider), "projectPath", project.toString(), "stream", false));
        if (sessionId != null) {
            body.put("sessionId", sessionId);
        }
        HttpRequest req;
        try {
            req = HttpRequest.newBuilder(s.uri("/api/agent")).timeout(Duration.ofMinutes(3))
                    .header("Content-Type", "application/json").header("X-API-Key", apiKey)
                    .POST(HttpRequest.BodyPublishers.ofString(TestServer.JSON.writeValueAsString(body))).build();
            return expect(s.http.send(req, HttpResponse.BodyHandlers.ofString()), 200, null);
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    /**
     * For a failed run's message: the run's stored log (stderr lines included, which /api/agent's stream leaves out),
     * replayed from the automation route; a real CLI that fails now and then says why there.
     */
    private String runLog(List<Sse.Frame> frames) {
        String runId = frames.stream().map(f -> f.data().path("runId").asText("")).filter(id -> !id.isEmpty())
                .findFirst().orElse(null);
        if (runId == null) {
            return "";
        }
        try {
            HttpRequest req = HttpRequest.newBuilder(s.uri("/api/automation/runs/" + runId + "/events"))
                    .timeout(Duration.ofSeconds(30)).header("X-API-Key", key).GET().build();
            HttpResponse<InputStream> res = s.http.send(req, HttpResponse.BodyHandlers.ofInputStream());
            return "\nrun log (" + res.statusCode() + "): " + new Sse(res.body()).until(f -> false);
        } catch (Exception e) {
            return "\nrun log unavailable: " + e;
        }
    }

    @Order(1)
    @ParameterizedTest
    @ValueSource(strings = {"claude", "codex", "gemini", "qwen", "opencode", "grok"})
    void bufferedStreamedAndResumedThroughTheServer(String provider) throws Exception {
        long t0 = System.nanoTime();
        Path project = Files.createDirectories(tmp.resolve("project-" + provider));
        int before = mock.requests().size();

        JsonNode first = buffered(provider, project, FIRST_PROMPT, null);
        assertTrue(first.path("success").asBoolean(), provider + ": " + first);
        assertTrue(first.path("text").asText().contains("MOCK-REPLY"), provider + ": " + first);
        assertFalse(first.toString().contains(apiKey(provider)), "no provider key in the response");
        if (!provider.equals("grok")) {
            assertTrue(first.path("usage").path("input").asLong() > 0, provider + ": " + first);
            assertTrue(first.path("usage").path("output").asLong() > 0, provider + ": " + first);
            assertFalse(first.path("sessionId").asText("").isBlank(), provider + ": " + first);
        }

        HttpRequest req = HttpRequest.newBuilder(s.uri("/api/agent")).timeout(Duration.ofMinutes(3))
                .header("Content-Type", "application/json").header("X-API-Key", key)
                .POST(HttpRequest.BodyPublishers.ofString(TestServer.JSON.writeValueAsString(Map.of(
                        "message", "Create it [[mock:tool:write_file path=made-by-tool.txt"
                                + " content=written-through-the-server]]",
                        "provider", provider, "model", MODELS.get(provider), "projectPath", project.toString()))))
                .build();
        HttpResponse<InputStream> res = s.http.send(req, HttpResponse.BodyHandlers.ofInputStream());
        assertEquals(200, res.statusCode());
        List<Sse.Frame> frames = new Sse(res.body()).until(f -> f.name().equals("done")
                || f.name().equals("error"));
        assertEquals("done", frames.getLast().name(), () -> provider + ": " + frames + runLog(frames));
        assertTrue(frames.stream().anyMatch(f -> f.name().equals("event")
                && f.data().path("kind").asText().equals("tool-use")
                && f.data().path("data").path("toolName").asText().equals(WRITE_TOOL.get(provider))
                && f.data().path("data").path("input").toString().contains("made-by-tool.txt")),
                () -> provider + ": " + frames);
        Path file = project.resolve("made-by-tool.txt");
        assertTrue(Files.exists(file), provider + " did not write the file");
        assertEquals("written-through-the-server", Files.readString(file).strip());

        if (!provider.equals("grok")) {
            String session = first.path("sessionId").asText();
            JsonNode second = buffered(provider, project, SECOND_PROMPT, session);
            assertTrue(second.path("success").asBoolean(), provider + ": " + second);
            assertTrue(second.path("text").asText().contains("MOCK-REPLY: And now the second turn"),
                    provider + ": " + second);
            assertEquals(session, second.path("sessionId").asText(), "the same session continued");
            sessions.put(provider, session);
        }
        assertSentOnly(provider, before, apiKey(provider));
        System.out.printf("real-cli e2e %s through the server: %d ms%n", provider,
                (System.nanoTime() - t0) / 1_000_000);
    }

    /** Every model request since {@code before} carried exactly {@code expected} (and there was at least one). */
    private void assertSentOnly(String provider, int before, String expected) {
        List<RecordedRequest> reqs = List.copyOf(mock.requests().subList(before, mock.requests().size()));
        assertFalse(reqs.isEmpty(), provider + " sent no request to the mock");
        for (RecordedRequest q : reqs) {
            assertEquals(Optional.of(expected), q.apiKey(), () -> provider + " sent another credential to "
                    + q.path());
        }
    }

    /**
     * {@code POST /api/automation/run} followed on its event stream to {@code done}; a scheduled {@code once} task;
     * and a run of the second account, which reaches the mock with that account's own key.
     */
    @Order(3)
    @ParameterizedTest
    @ValueSource(strings = {"claude", "codex", "gemini", "qwen", "opencode", "grok"})
    void automationRunTaskAndASecondAccountThroughTheServer(String provider) throws Exception {
        long t0 = System.nanoTime();
        Path dir = Files.createDirectories(tmp.resolve("project2-" + provider));
        String project = s.quickStart(admin, dir);
        int before = mock.requests().size();

        JsonNode accepted = expect(s.post("/api/automation/run", Map.of("prompt", "Say hello from automation",
                "agentType", provider, "model", MODELS.get(provider), "projectId", project), "X-API-Key", key), 202,
                null);
        String runId = accepted.path("id").asText();
        HttpRequest follow = HttpRequest.newBuilder(s.uri("/api/automation/runs/" + runId + "/events"))
                .timeout(Duration.ofMinutes(3)).header("X-API-Key", key).GET().build();
        HttpResponse<InputStream> res = s.http.send(follow, HttpResponse.BodyHandlers.ofInputStream());
        assertEquals(200, res.statusCode());
        List<Sse.Frame> frames = new Sse(res.body()).until(f -> f.name().equals("done"));
        Sse.Frame done = frames.getLast();
        assertEquals("done", done.name(), () -> provider + ": " + frames);
        assertEquals("completed", done.data().path("status").asText(), () -> provider + ": " + done.data());
        assertTrue(done.data().path("resultText").asText().contains("MOCK-REPLY"), () -> provider + ": "
                + done.data());
        assertTrue(frames.stream().anyMatch(f -> f.name().equals("event")), provider + ": events were streamed");
        assertFalse(done.data().toString().contains(apiKey(provider)), "no key in the run");

        JsonNode task = expect(s.post("/api/automation/tasks", Map.of("prompt", "Say hello from a task",
                "agentType", provider, "model", MODELS.get(provider), "projectId", project, "schedule",
                Map.of("kind", "once", "at", java.time.Instant.now().plusSeconds(1).toString())), "X-API-Key", key),
                201, null);
        JsonNode t = null;
        long deadline = System.nanoTime() + Duration.ofMinutes(3).toNanos();
        while (System.nanoTime() < deadline) {
            t = expect(s.get("/api/automation/tasks/" + task.path("id").asText(), "X-API-Key", key), 200, null);
            if (t.path("recentRuns").size() > 0 && List.of("completed", "failed", "timed_out", "cancelled")
                    .contains(t.path("recentRuns").get(0).path("status").asText())) {
                break;
            }
            Thread.sleep(200);
        }
        JsonNode taskRun = t.path("recentRuns").get(0);
        assertEquals("completed", taskRun.path("status").asText(), provider + ": " + t);
        assertTrue(taskRun.path("resultText").asText().contains("MOCK-REPLY"), provider + ": " + taskRun);
        assertSentOnly(provider, before, apiKey(provider));

        // the second account's run reaches the mock with that account's own key, not the first one's
        int beforeBob = mock.requests().size();
        JsonNode bobs = buffered(provider, dir, "Bob says hello", null, bobKey);
        assertTrue(bobs.path("success").asBoolean(), provider + ": " + bobs);
        assertTrue(bobs.path("text").asText().contains("MOCK-REPLY"), provider + ": " + bobs);
        assertSentOnly(provider, beforeBob, bobsKey(provider));
        System.out.printf("real-cli e2e %s automation, task and second account: %d ms%n", provider,
                (System.nanoTime() - t0) / 1_000_000);
    }

    /**
     * The sessions the real CLIs wrote during the runs above, read back through the history routes: the run's
     * project lists the resumed session under the first prompt (opencode: the title it generated) and the
     * tool-write run's session; its messages are the two prompts and the mock's answers in order, the same when
     * read one message per page from the newest back.
     */
    @Order(2)
    @ParameterizedTest
    @ValueSource(strings = {"claude", "codex", "gemini", "qwen", "opencode"})
    void sessionsTheRealClisWroteAreListedAndReadBack(String provider) throws Exception {
        String sid = sessions.get(provider);
        Assumptions.assumeTrue(sid != null, provider + " did not complete its runs above");
        String projectPath = tmp.resolve("project-" + provider).toRealPath().toString();
        String[] auth = TestServer.bearer(admin);
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        String name = null;
        JsonNode listed = null;
        JsonNode page = null;
        while (System.nanoTime() < deadline) {
            for (JsonNode p : TestServer.json(s.get("/api/projects", auth))) {
                if (projectPath.equals(p.path("fullPath").asText()) || projectPath.equals(p.path("path").asText())) {
                    name = p.path("name").asText();
                }
            }
            if (name != null) {
                listed = null;
                for (JsonNode x : expect(s.get("/api/projects/" + name + "/sessions", auth), 200, null)) {
                    if (sid.equals(x.path("id").asText())) {
                        listed = x;
                    }
                }
                if (listed != null) {
                    page = expect(s.get("/api/sessions/" + sid + "/messages?projectName=" + name + "&limit=1000",
                            auth), 200, null);
                    if (texts(page, "user").contains(SECOND_PROMPT) && texts(page, "assistant").stream()
                            .anyMatch(t -> t.contains("MOCK-REPLY: " + SECOND_PROMPT))
                            && (!provider.equals("opencode") || !listed.path("title").asText().equals(FIRST_PROMPT))) {
                        break;
                    }
                }
            }
            Thread.sleep(200);
        }
        if (name == null) {
            List<String> files;
            try (var w = Files.walk(provider.equals("gemini") ? s.dataDir.resolve("providers/gemini")
                    : tmp.resolve("home"))) {
                files = w.filter(Files::isRegularFile).map(Path::toString).filter(f -> !f.contains("node_modules"))
                        .limit(60).toList();
            }
            throw new AssertionError(provider + ": no project for " + projectPath + "; projects "
                    + s.get("/api/projects", auth).body() + "; index " + s.get("/api/history/index", auth).body()
                    + "; files " + files);
        }
        assertTrue(listed != null, provider + ": session " + sid + " not listed in " + name);
        assertEquals(provider, listed.path("provider").asText());
        if (provider.equals("opencode")) {
            assertFalse(listed.path("title").asText("").isBlank(), listed.toString());
        } else {
            assertEquals(FIRST_PROMPT, listed.path("title").asText(), listed.toString());
        }
        JsonNode all = expect(s.get("/api/projects/" + name + "/sessions", auth), 200, null);
        assertTrue(all.size() >= 2, provider + ": the tool-write run's session is listed too: " + all);

        assertEquals(List.of(FIRST_PROMPT, SECOND_PROMPT), texts(page, "user"), provider + ": " + page);
        List<String> answers = texts(page, "assistant");
        assertTrue(answers.getFirst().contains("MOCK-REPLY"), provider + ": " + answers);
        assertTrue(answers.getLast().contains("MOCK-REPLY: " + SECOND_PROMPT), provider + ": " + answers);
        assertEquals("user", page.path("messages").get(0).path("role").asText());
        assertEquals(FIRST_PROMPT, page.path("messages").get(0).path("text").asText());
        int total = page.path("total").asInt();
        assertEquals(total, page.path("messages").size());
        assertFalse(page.path("hasMore").asBoolean());
        for (int offset = 0; offset < total; offset++) {
            JsonNode one = expect(s.get("/api/sessions/" + sid + "/messages?projectName=" + name
                    + "&limit=1&offset=" + offset, auth), 200, null);
            assertEquals(1, one.path("messages").size());
            assertEquals(page.path("messages").get(total - 1 - offset), one.path("messages").get(0),
                    provider + ": message " + (total - 1 - offset) + " read alone");
            assertEquals(offset < total - 1, one.path("hasMore").asBoolean());
        }
        System.out.printf("real-cli history %s: session %s listed in %s with %d messages%n", provider, sid, name,
                total);
    }

    /** The texts of the {@code text} messages with this role, in order. */
    private static List<String> texts(JsonNode page, String role) {
        List<String> out = new java.util.ArrayList<>();
        for (JsonNode m : page.path("messages")) {
            if (role.equals(m.path("role").asText()) && "text".equals(m.path("kind").asText())) {
                out.add(m.path("text").asText());
            }
        }
        return out;
    }
}
