package org.agentworkspace.server.providers;

import static org.agentworkspace.server.TestServer.bearer;
import static org.agentworkspace.server.TestServer.expect;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;

import com.fasterxml.jackson.databind.JsonNode;

import org.agentworkspace.api.provider.AgentProviderFactory;
import org.agentworkspace.api.provider.AgentProviders;
import org.agentworkspace.core.agent.AgentSettings;
import org.agentworkspace.server.TestServer;
import org.agentworkspace.server.providers.acme.AcmeProvider;
import org.agentworkspace.testkit.fakecli.FakeClis;
import org.agentworkspace.testkit.fakecli.FakeNpm;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * A provider added in a test only proves that a new provider is one package plus its SPI entry: the test-scope
 * {@link AcmeProvider} ({@code acme}, "Acme Agent") is registered in {@code eighth-provider/META-INF/services} and
 * loaded by {@link ServiceLoader} from a class loader that sees that file, next to the seven built-ins; the engine
 * gets that provider set ({@code EngineConfig.withProviders}) and nothing else in the engine or the server knows
 * {@code acme}. Its CLI is the testkit's fake grok installed as {@code acme} on the server's PATH; npm is the
 * testkit's fake npm. Then every provider route answers for it through the running server: status (found on PATH,
 * the CLI's own login, a stored key), models, config files, MCP entries, install (of the descriptor's tested version),
 * and a run through {@code /api/agent} whose CLI gets the stored key in the descriptor's variable.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class EighthProviderTest {
    static final String KEY = "acme-key-0123456789abcdef";

    Path dir;
    Path bin;
    TestServer s;
    String admin;

    @BeforeAll
    void start() throws Exception {
        dir = Files.createTempDirectory("aw-eighth-");
        bin = Files.createDirectories(dir.resolve("bin"));
        FakeClis.installAs(bin, "grok", "acme");
        FakeNpm.install(bin, true);
        AgentProviders providers;
        URL services = EighthProviderTest.class.getResource("/eighth-provider/");
        try (URLClassLoader loader = new URLClassLoader(new URL[] {services},
                EighthProviderTest.class.getClassLoader())) {
            providers = AgentProviders.load(ServiceLoader.load(AgentProviderFactory.class, loader));
        }
        assertEquals(List.of("claude", "cursor", "codex", "gemini", "qwen", "opencode", "grok", "acme"),
                providers.ids(), "the seven built-ins and the eighth, all through the SPI");
        s = TestServer.start(c -> c.withEngine(c.engine().withProviders(providers))
                        .withAgent(AgentSettings.defaults().withProviderEnv(Map.of("acme",
                                Map.of("AW_FAKE_ECHO_DIGEST", AcmeProvider.KEY_VARIABLE)))),
                Map.of("PATH", bin + ":/usr/bin:/bin", "npm_config_fake_bin", "acme"));
        admin = s.registerAdmin();
    }

    @AfterAll
    void stop() {
        if (s != null) {
            s.close();
        }
    }

    @Test
    void everyProviderRouteAnswersForTheEighthProvider() throws Exception {
        // status: the fake CLI on PATH, no login yet
        JsonNode status = expect(s.get("/api/providers/acme/auth/status", bearer(admin)), 200, null);
        assertEquals("acme", status.path("id").asText());
        assertTrue(status.path("installed").asBoolean(), status.toString());
        assertEquals(bin.resolve("acme").toString(), status.path("binaryPath").asText());
        assertFalse(status.path("authenticated").asBoolean());

        // the CLI's own login, where the descriptor says it is
        Files.createDirectories(s.home().resolve(".acme"));
        Files.writeString(s.home().resolve(".acme/auth.json"), "{\"token\":\"t-1\"}");
        status = expect(s.get("/api/providers/acme/auth/status", bearer(admin)), 200, null);
        assertEquals("cli-login", status.path("authMethod").asText());
        assertEquals("~/.acme/auth.json (token)", status.path("authSource").asText());

        // models: the descriptor's built-in catalog (no key stored)
        JsonNode models = expect(s.get("/api/providers/acme/models", bearer(admin)), 200, null);
        assertEquals("acme/acme-1", models.get(0).path("id").asText());
        assertEquals("builtin", models.get(0).path("source").asText());
        assertEquals(2, models.size());

        // config files: the descriptor's catalog, written through the route
        JsonNode files = expect(s.get("/api/providers/acme/config-files", bearer(admin)), 200, null);
        assertEquals(1, files.size());
        assertEquals("settings", files.get(0).path("fileId").asText());
        expect(s.put("/api/providers/acme/config-files/settings", Map.of("content", "{\"theme\":\"dark\"}\n"),
                bearer(admin)), 200, null);
        expect(s.put("/api/providers/acme/config-files/settings", Map.of("content", "{not json"), bearer(admin)),
                400, "CONFIG_VALIDATION_FAILED");

        // MCP: the descriptor's file and shape, beside the settings written above
        expect(s.post("/api/providers/acme/mcp/servers", Map.of("name", "files", "command", "/usr/bin/env"),
                bearer(admin)), 200, null);
        JsonNode settings = TestServer.JSON.readTree(Files.readString(s.home().resolve(".acme/settings.json")));
        assertEquals("dark", settings.path("theme").asText());
        assertEquals("/usr/bin/env", settings.path("mcpServers").path("files").path("command").asText());
        assertEquals("files", expect(s.get("/api/providers/acme/mcp/servers", bearer(admin)), 200, null).get(0)
                .path("name").asText());

        // a stored key: the run's CLI gets it in the descriptor's variable
        expect(s.post("/api/providers/acme/auth/api-key", Map.of("apiKey", KEY), bearer(admin)), 200, null);
        expect(s.post("/api/providers/acme/auth/api-key", Map.of("apiKey", KEY, "baseUrl", "https://x.example"),
                bearer(admin)), 400, "UNSUPPORTED_CAPABILITY");
        assertTrue(expect(s.get("/api/providers/credentials", bearer(admin)), 200, null).path("acme")
                .path("hasCredential").asBoolean());
        Path project = Files.createDirectories(dir.resolve("project"));
        s.quickStart(admin, project);
        String apiKey = s.createKey(admin, "ci", List.of("tasks:write", "tasks:read"))[1];
        JsonNode started = expect(s.post("/api/agent", Map.of("message", "Say hello", "provider", "acme",
                "projectPath", project.toString(), "stream", false), "X-API-Key", apiKey), 200, null);
        JsonNode run = finished(started.path("runId").asText(), apiKey);
        assertEquals("completed", run.path("status").asText(), run.toString());
        List<String> logs = new ArrayList<>();
        run.path("logs").forEach(l -> logs.add(l.path("text").asText()));
        assertTrue(logs.stream().anyMatch(l -> l.contains("MOCK-REPLY")), logs.toString());
        String digest = logs.stream().filter(l -> l.contains("aw_fake_digest")).findFirst().orElseThrow();
        assertEquals(sha(KEY), TestServer.JSON.readTree(digest).path(AcmeProvider.KEY_VARIABLE).asText());

        // install: the descriptor's npm package at its tested version, into cli-bin, which status then reports
        JsonNode job = expect(s.post("/api/providers/acme/install", null, bearer(admin)), 202, null);
        assertEquals("acme", job.path("provider").asText());
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        Path installed = s.dataDir.resolve("cli-bin/node_modules/.bin/acme");
        do {
            status = expect(s.get("/api/providers/acme/auth/status", bearer(admin)), 200, null);
            Thread.sleep(100);
        } while (!installed.toString().equals(status.path("binaryPath").asText()) && System.nanoTime() < deadline);
        assertEquals(installed.toString(), status.path("binaryPath").asText());
        assertEquals(AcmeProvider.TESTED_VERSION, status.path("version").asText());
        assertEquals("stored-key", status.path("authMethod").asText());
    }

    @Test
    void theBuiltInsAreUnchangedBesideIt() {
        JsonNode inv = expect(s.get("/api/providers/credentials", bearer(admin)), 200, null);
        List<String> ids = new ArrayList<>();
        inv.fieldNames().forEachRemaining(ids::add);
        assertEquals(List.of("claude", "cursor", "codex", "gemini", "qwen", "opencode", "grok", "acme"), ids);
        expect(s.get("/api/providers/acme2/auth/status", bearer(admin)), 404, "PROVIDER_NOT_FOUND");
        expect(s.post("/api/providers/grok/mcp/servers", Map.of("name", "x", "command", "/usr/bin/env"),
                bearer(admin)), 400, "UNSUPPORTED_CAPABILITY");
    }

    JsonNode finished(String runId, String apiKey) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        JsonNode run = null;
        while (System.nanoTime() < deadline) {
            run = expect(s.get("/api/automation/runs/" + runId, "X-API-Key", apiKey), 200, null);
            if (List.of("completed", "failed", "cancelled", "timed_out").contains(run.path("status").asText())) {
                return run;
            }
            Thread.sleep(50);
        }
        throw new AssertionError("run " + runId + " did not finish: " + run);
    }

    static String sha(String value) throws Exception {
        return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256")
                .digest(value.getBytes(StandardCharsets.UTF_8)));
    }
}
