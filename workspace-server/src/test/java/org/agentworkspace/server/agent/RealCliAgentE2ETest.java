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

import com.fasterxml.jackson.databind.JsonNode;

import org.agentworkspace.api.provider.ProviderCredentials;
import org.agentworkspace.core.agent.AgentSettings;
import org.agentworkspace.server.TestServer;
import org.agentworkspace.testkit.mockllm.MockLlmServer;
import org.agentworkspace.testkit.mockllm.RecordedRequest;
import org.agentworkspace.testkit.realcli.RealCli;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The six real CLIs from npm (cached by {@link RealCli#ensureInstalled}) driven THROUGH THE RUNNING SERVER's
 * {@code POST /api/agent} against the mock LLM: a buffered run returns the mock's text, a session id and usage; a
 * streamed run carries the write tool call the mock scripted and the file appears in the project; a second request
 * with the session id resumes the session (all but grok, which has no sessions). Each CLI gets its own HOME through
 * the provider environment setting; the credential comes from the {@code ProviderCredentialsSource}. The runs use
 * the routes' non-interactive permission mode (bypass). Skipped, with the reason printed, only when node or npm is
 * missing.
 */
@Tag("real-cli")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RealCliAgentE2ETest {
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

    static String apiKey(String provider) {
        return "sk-aw-e2e-" + provider;
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
        Map<String, Map<String, String>> env = new HashMap<>();
        for (String id : MODELS.keySet()) {
            Path bin = RealCli.ensureInstalled(id);
            bins.put(id, bin);
            Path home = home(id);
            Files.createDirectories(tmp.resolve("tmpdir-" + id));
            env.put(id, Map.of("HOME", home.toString(), "TMPDIR", tmp.resolve("tmpdir-" + id).toString(),
                    "PATH", bin.getParent() + ":" + node + ":/usr/local/bin:/usr/bin:/bin",
                    "CLAUDE_CODE_MAX_RETRIES", "0"));
        }
        mock = MockLlmServer.create().start();
        s = TestServer.start(c -> c.withAgent(AgentSettings.defaults().withBinaries(bins).withProviderEnv(env)
                .withCredentials(id -> new ProviderCredentials(apiKey(id), mock.baseUrl()
                        + URL_SUFFIX.getOrDefault(id, "")))));
        String session = s.registerAdmin();
        key = s.createKey(session, "e2e", List.of("tasks:write", "tasks:read"))[1];
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

    private Path home(String id) throws Exception {
        Path home = Files.createDirectories(tmp.resolve("home-" + id));
        if (id.equals("opencode")) {
            // on a fresh HOME opencode npm-installs its plugin in the background; pre-seed it from the cache
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
        Map<String, Object> body = new HashMap<>(Map.of("message", message, "provider", provider,
                "model", MODELS.get(provider), "projectPath", project.toString(), "stream", false));
        if (sessionId != null) {
            body.put("sessionId", sessionId);
        }
        HttpRequest req;
        try {
            req = HttpRequest.newBuilder(s.uri("/api/agent")).timeout(Duration.ofMinutes(3))
                    .header("Content-Type", "application/json").header("X-API-Key", key)
                    .POST(HttpRequest.BodyPublishers.ofString(TestServer.JSON.writeValueAsString(body))).build();
            return expect(s.http.send(req, HttpResponse.BodyHandlers.ofString()), 200, null);
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"claude", "codex", "gemini", "qwen", "opencode", "grok"})
    void bufferedStreamedAndResumedThroughTheServer(String provider) throws Exception {
        long t0 = System.nanoTime();
        Path project = Files.createDirectories(tmp.resolve("project-" + provider));
        int before = mock.requests().size();

        JsonNode first = buffered(provider, project, "--help -rf Say hello to the mock", null);
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
        assertEquals("done", frames.getLast().name(), () -> provider + ": " + frames);
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
            JsonNode second = buffered(provider, project, "And now the second turn", session);
            assertTrue(second.path("success").asBoolean(), provider + ": " + second);
            assertTrue(second.path("text").asText().contains("MOCK-REPLY: And now the second turn"),
                    provider + ": " + second);
            assertEquals(session, second.path("sessionId").asText(), "the same session continued");
        }
        List<RecordedRequest> reqs = mock.requests().subList(before, mock.requests().size());
        for (RecordedRequest q : reqs) {
            assertEquals(Optional.of(apiKey(provider)), q.apiKey(), () -> provider + " sent another credential");
        }
        System.out.printf("real-cli e2e %s through the server: %d ms%n", provider,
                (System.nanoTime() - t0) / 1_000_000);
    }
}
