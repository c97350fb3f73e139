package org.agentworkspace.server.agent;

import static org.agentworkspace.server.TestServer.bearer;
import static org.agentworkspace.server.TestServer.expect;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.WebSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import com.fasterxml.jackson.databind.JsonNode;

import org.agentworkspace.core.agent.AgentSettings;
import org.agentworkspace.server.JsonSocketClient;
import org.agentworkspace.server.TestServer;
import org.agentworkspace.testkit.fakecli.FakeClis;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 17: the credential a user saves through {@code POST /api/providers/{p}/auth/api-key} reaches the CLI of every
 * run that user starts, on every path that starts one ({@code /api/agent}, {@code /api/automation/run}, a {@code /ws}
 * turn, a scheduled task, the agent loop's CI repair plan), and the per-account rule holds: the account's own key,
 * else the service key only an administrator sets, else none. The server is configured as an operator would (fake
 * CLI binaries, nothing about credentials); keys are set only through the routes. The fake CLIs print the SHA-256 of
 * their credential variables ({@code AW_FAKE_ECHO_DIGEST}), which the test reads back from the run's log.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class RunCredentialsTest {
    static final String SERVICE_KEY = "sk-service-key-0000000000SVC1";
    static final String SERVICE_URL = "http://127.0.0.1:9/service";
    static final String BOB_KEY = "sk-bob-own-key-00000000000BOB2";
    static final String BOB_URL = "http://127.0.0.1:9/bob";
    static final String ADMIN_KEY = "sk-admin-own-key-0000000ADM3";
    /** The variable each adapter puts the key into (docs/provider-management.md §4). */
    static final Map<String, String> KEY_VARIABLE = Map.of("claude", "ANTHROPIC_API_KEY", "codex", "OPENAI_API_KEY",
            "gemini", "GEMINI_API_KEY", "qwen", "OPENAI_API_KEY", "opencode", "AW_OPENCODE_API_KEY",
            "grok", "GROK_API_KEY", "cursor", "CURSOR_API_KEY");

    @TempDir
    static Path tmp;
    TestServer s;
    String admin;
    String bob;
    String bobApiKey;
    String adminApiKey;
    String project;

    @BeforeAll
    void start() throws Exception {
        Path bin = FakeClis.install(tmp.resolve("bin"));
        // the base URLs name the discard port on loopback: the administrator allows it (--outbound-allow)
        s = TestServer.start(c -> c.withOutboundAllow(java.util.Set.of("127.0.0.1:9")).withAgent(AgentSettings.defaults().withBinaries(Map.of("*", bin))
                .withProviderEnv(Map.of("*", Map.of("AW_FAKE_ECHO_DIGEST", "ANTHROPIC_API_KEY,ANTHROPIC_BASE_URL,"
                        + "OPENAI_API_KEY,OPENAI_BASE_URL,GEMINI_API_KEY,AW_OPENCODE_API_KEY,GROK_API_KEY,"
                        + "CURSOR_API_KEY")))));
        admin = s.registerAdmin();
        expect(s.post("/api/users", Map.of("username", "bob", "password", "bob-password-1"), bearer(admin)), 201,
                null);
        bob = s.login("bob", "bob-password-1");
        bobApiKey = s.createKey(bob, "bob-ci", List.of("tasks:write", "tasks:read"))[1];
        adminApiKey = s.createKey(admin, "admin-ci", List.of("tasks:write", "tasks:read", "orchestration:write",
                "orchestration:read"))[1];
        project = s.quickStart(admin, Files.createDirectories(tmp.resolve("project")));
    }

    @AfterAll
    void stop() {
        if (s != null) {
            s.close();
        }
    }

    /**
     * The status route reports the binary a run spawns: with the CLIs configured as an operator does
     * ({@code --cli-path}), every provider's status names that binary (it used to say "not installed" while runs used
     * it, because the status route only looked in cli-bin, PATH and {@code AW_<ID>_PATH}).
     */
    @Test
    @Order(0)
    void statusNamesTheConfiguredBinaryRunsUse() throws Exception {
        for (String p : List.of("claude", "codex", "gemini", "qwen", "opencode", "grok", "cursor")) {
            JsonNode st = expect(s.get("/api/providers/" + p + "/auth/status", bearer(admin)), 200, null);
            assertTrue(st.path("installed").asBoolean(), p + ": " + st);
            assertEquals(FakeClis.binary(tmp.resolve("bin"), p).toRealPath().toString(),
                    Path.of(st.path("binaryPath").asText()).toRealPath().toString(), p + ": " + st);
        }
    }

    static String sha(String s) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256")
                    .digest(s.getBytes(StandardCharsets.UTF_8)));
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new AssertionError(e);
        }
    }

    /** The fake's digest line from the run's log, read back through the automation route as {@code apiKey}. */
    JsonNode digests(String runId, String apiKey) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        JsonNode run = null;
        while (System.nanoTime() < deadline) {
            run = expect(s.get("/api/automation/runs/" + runId, "X-API-Key", apiKey), 200, null);
            if (List.of("completed", "failed", "cancelled", "timed_out").contains(run.path("status").asText())) {
                break;
            }
            Thread.sleep(50);
        }
        for (JsonNode l : run.path("logs")) {
            String text = l.path("text").asText();
            if (text.contains("\"aw_fake_digest\"")) {
                try {
                    return TestServer.JSON.readTree(text);
                } catch (java.io.IOException e) {
                    throw new AssertionError(text, e);
                }
            }
        }
        throw new AssertionError("no digest line in run " + runId + ": " + run);
    }

    String agentRun(String provider, String apiKey) {
        JsonNode r = expect(s.post("/api/agent", Map.of("message", "Say hello", "provider", provider,
                "projectPath", tmp.resolve("project").toString(), "stream", false), "X-API-Key", apiKey), 200, null);
        assertTrue(r.path("success").asBoolean(), r.toString());
        return r.path("runId").asText();
    }

    @Test
    @Order(1)
    void withoutAStoredKeyARunGetsNoneAndTheStatusSaysSo() throws Exception {
        JsonNode d = digests(agentRun("claude", bobApiKey), bobApiKey);
        assertEquals("", d.path("ANTHROPIC_API_KEY").asText(), "no key in the child: " + d);
        JsonNode status = expect(s.get("/api/providers/claude/auth/status", bearer(bob)), 200, null);
        assertEquals("none", status.path("effectiveSource").asText(), status.toString());
        JsonNode inv = expect(s.get("/api/providers/credentials", bearer(bob)), 200, null).path("claude");
        assertEquals("none", inv.path("effectiveSource").asText(), inv.toString());
        assertFalse(inv.path("hasCredential").asBoolean());
    }

    @Test
    @Order(2)
    void onlyAnAdministratorSetsTheServiceKey() {
        expect(s.post("/api/providers/claude/auth/api-key", Map.of("apiKey", "sk-bob-hijack-000000000000",
                "baseUrl", "http://127.0.0.1:9/evil", "shared", true), bearer(bob)), 403, "ADMIN_REQUIRED");
        expect(s.delete("/api/providers/claude/auth/api-key?shared=true", null, bearer(bob)), 403, "ADMIN_REQUIRED");
        expect(s.post("/api/providers/claude/oauth-paste", Map.of("url", "https://example.com/cb?token=sk-x-1234567",
                "shared", true), bearer(bob)), 403, "ADMIN_REQUIRED");
        expect(s.post("/api/providers/claude/auth/api-key", Map.of("apiKey", "sk-whatever-00000000000",
                "owner", "admin"), bearer(bob)), 400, "VALIDATION_FAILED");
        expect(s.post("/api/providers/claude/auth/api-key", Map.of("apiKey", "sk-whatever-00000000000",
                "shared", "yes"), bearer(admin)), 400, "VALIDATION_FAILED");
        JsonNode svc = expect(s.get("/api/providers/credentials", bearer(admin)), 200, null).path("claude");
        assertFalse(svc.path("service").path("hasCredential").asBoolean(), "bob changed nothing: " + svc);

        JsonNode saved = expect(s.post("/api/providers/claude/auth/api-key", Map.of("apiKey", SERVICE_KEY,
                "baseUrl", SERVICE_URL, "shared", true), bearer(admin)), 200, null);
        assertTrue(saved.path("shared").asBoolean());
        assertEquals("service", saved.path("effectiveSource").asText());
        assertFalse(saved.toString().contains(SERVICE_KEY));
    }

    @Test
    @Order(3)
    void theServiceKeyReachesRunsOfAccountsWithoutTheirOwn() throws Exception {
        JsonNode d = digests(agentRun("claude", bobApiKey), bobApiKey);
        assertEquals(sha(SERVICE_KEY), d.path("ANTHROPIC_API_KEY").asText(), d.toString());
        assertEquals(sha(SERVICE_URL), d.path("ANTHROPIC_BASE_URL").asText(), d.toString());
        assertEquals("", d.path("OPENAI_API_KEY").asText(), "never another provider's variable");
        JsonNode status = expect(s.get("/api/providers/claude/auth/status", bearer(bob)), 200, null);
        assertEquals("service", status.path("effectiveSource").asText(), status.toString());
        assertEquals("stored-key", status.path("authMethod").asText());
        assertTrue(status.path("authenticated").asBoolean());
    }

    @Test
    @Order(4)
    void anAccountsOwnKeyReachesEveryRunItStartsAndNoOtherAccounts() throws Exception {
        JsonNode saved = expect(s.post("/api/providers/claude/auth/api-key", Map.of("apiKey", BOB_KEY,
                "baseUrl", BOB_URL), bearer(bob)), 200, null);
        assertFalse(saved.path("shared").asBoolean());
        assertEquals("own", saved.path("effectiveSource").asText());
        JsonNode inv = expect(s.get("/api/providers/credentials", bearer(bob)), 200, null).path("claude");
        assertEquals("own", inv.path("effectiveSource").asText(), inv.toString());
        assertEquals("…BOB2", inv.path("masked").asText());
        assertEquals(BOB_URL, inv.path("baseUrl").asText());
        assertEquals("…SVC1", inv.path("service").path("masked").asText());
        assertFalse(inv.toString().contains(BOB_KEY) || inv.toString().contains(SERVICE_KEY));
        JsonNode adminInv = expect(s.get("/api/providers/credentials", bearer(admin)), 200, null).path("claude");
        assertEquals("service", adminInv.path("effectiveSource").asText(), "bob's key is not the admin's");
        assertFalse(adminInv.path("own").path("hasCredential").asBoolean());

        String bobKeyDigest = sha(BOB_KEY);
        // 1. /api/agent
        JsonNode d = digests(agentRun("claude", bobApiKey), bobApiKey);
        assertEquals(bobKeyDigest, d.path("ANTHROPIC_API_KEY").asText(), "/api/agent: " + d);
        assertEquals(sha(BOB_URL), d.path("ANTHROPIC_BASE_URL").asText(), "/api/agent: " + d);
        // the administrator's runs keep the service key
        d = digests(agentRun("claude", adminApiKey), adminApiKey);
        assertEquals(sha(SERVICE_KEY), d.path("ANTHROPIC_API_KEY").asText(), "admin's /api/agent: " + d);

        // 2. /api/automation/run
        JsonNode run = expect(s.post("/api/automation/run", Map.of("prompt", "Say hello", "agentType", "claude",
                "projectId", project), "X-API-Key", bobApiKey), 202, null);
        d = digests(run.path("id").asText(), bobApiKey);
        assertEquals(bobKeyDigest, d.path("ANTHROPIC_API_KEY").asText(), "/api/automation/run: " + d);

        // 3. a /ws turn
        String ticket = expect(s.post("/api/auth/stream-ticket", Map.of(), bearer(bob)), 200, null)
                .path("ticket").asText();
        JsonSocketClient ws = new JsonSocketClient();
        ws.ws = HttpClient.newHttpClient().newWebSocketBuilder().connectTimeout(Duration.ofSeconds(5))
                .buildAsync(URI.create("ws://127.0.0.1:" + s.server.port() + "/ws?streamTicket=" + ticket), ws)
                .get(10, TimeUnit.SECONDS);
        try {
            ws.send(Map.of("type", "turn", "provider", "claude", "message", "Say hello", "projectName", project,
                    "clientRequestId", "cred-1"));
            String wsRun = null;
            while (wsRun == null) {
                JsonNode m = ws.messages.poll(20, TimeUnit.SECONDS);
                assertNotNull(m, "no subscribed frame");
                assertFalse(m.path("type").asText().equals("error"), m.toString());
                if (m.path("type").asText().equals("subscribed")) {
                    wsRun = m.path("runId").asText();
                }
            }
            d = digests(wsRun, bobApiKey);
            assertEquals(bobKeyDigest, d.path("ANTHROPIC_API_KEY").asText(), "/ws: " + d);
        } finally {
            ws.ws.sendClose(WebSocket.NORMAL_CLOSURE, "done");
        }

        // 4. a scheduled task runs as its owner, whoever else is signed in
        JsonNode task = expect(s.post("/api/automation/tasks", Map.of("prompt", "Say hello from a task",
                "agentType", "claude", "projectId", project, "schedule", Map.of("kind", "once",
                        "at", Instant.now().plusSeconds(1).toString())), "X-API-Key", bobApiKey), 201, null);
        String taskRun = null;
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (taskRun == null && System.nanoTime() < deadline) {
            JsonNode t = expect(s.get("/api/automation/tasks/" + task.path("id").asText(), "X-API-Key", bobApiKey),
                    200, null);
            if (t.path("recentRuns").size() > 0) {
                taskRun = t.path("recentRuns").get(0).path("id").asText();
            } else {
                Thread.sleep(100);
            }
        }
        assertNotNull(taskRun, "the task never ran");
        d = digests(taskRun, bobApiKey);
        assertEquals(bobKeyDigest, d.path("ANTHROPIC_API_KEY").asText(), "task: " + d);

        // 5. the agent loop's CI repair plan: the starting administrator's own key once there is one
        expect(s.post("/api/providers/claude/auth/api-key", Map.of("apiKey", ADMIN_KEY), bearer(admin)), 200, null);
        JsonNode plan = expect(s.post("/api/production-agent-loop/ci-repair-plans", Map.of("projectId", project,
                "ciLog", "error: test failed", "agentType", "claude"), "X-API-Key", adminApiKey), 202, null);
        d = digests(plan.path("runId").asText(), adminApiKey);
        assertEquals(sha(ADMIN_KEY), d.path("ANTHROPIC_API_KEY").asText(), "agent loop: " + d);
        assertEquals("", d.path("ANTHROPIC_BASE_URL").asText(), "the admin's own key has no base URL: " + d);
        // and bob still gets his
        d = digests(agentRun("claude", bobApiKey), bobApiKey);
        assertEquals(bobKeyDigest, d.path("ANTHROPIC_API_KEY").asText());
    }

    @Test
    @Order(5)
    void eachProvidersOwnKeyGoesOnlyToItsOwnVariable() throws Exception {
        Map<String, String> keys = new HashMap<>();
        for (String p : KEY_VARIABLE.keySet()) {
            keys.put(p, "sk-" + p + "-own-key-of-bob-000000" + p.length());
            expect(s.post("/api/providers/" + p + "/auth/api-key", Map.of("apiKey", keys.get(p)), bearer(bob)), 200,
                    null);
        }
        for (String p : KEY_VARIABLE.keySet()) {
            JsonNode d = digests(agentRun(p, bobApiKey), bobApiKey);
            assertEquals(sha(keys.get(p)), d.path(KEY_VARIABLE.get(p)).asText(), p + ": " + d);
            d.fields().forEachRemaining(f -> {
                if (!f.getKey().equals("type") && !f.getKey().equals(KEY_VARIABLE.get(p))
                        && !f.getKey().endsWith("_BASE_URL")) {
                    assertEquals("", f.getValue().asText(), p + " must not see " + f.getKey());
                }
            });
        }
    }

    @Test
    @Order(6)
    void deletingTheOwnKeyFallsBackToTheServiceKeyAndTheAdminCanRemoveThat() throws Exception {
        expect(s.delete("/api/providers/claude/auth/api-key", null, bearer(bob)), 200, null);
        JsonNode d = digests(agentRun("claude", bobApiKey), bobApiKey);
        assertEquals(sha(SERVICE_KEY), d.path("ANTHROPIC_API_KEY").asText(), d.toString());
        expect(s.delete("/api/providers/claude/auth/api-key?shared=true", null, bearer(admin)), 200, null);
        d = digests(agentRun("claude", bobApiKey), bobApiKey);
        assertEquals("", d.path("ANTHROPIC_API_KEY").asText(), d.toString());
        assertEquals("none", expect(s.get("/api/providers/claude/auth/status", bearer(bob)), 200, null)
                .path("effectiveSource").asText());
    }
}
