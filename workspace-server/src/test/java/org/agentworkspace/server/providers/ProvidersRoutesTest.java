package org.agentworkspace.server.providers;

import static org.agentworkspace.server.TestServer.bearer;
import static org.agentworkspace.server.TestServer.expect;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;

import org.agentworkspace.server.SseClient;
import org.agentworkspace.server.TestServer;
import org.agentworkspace.testkit.fakecli.FakeClis;
import org.agentworkspace.testkit.fakecli.FakeNpm;
import org.agentworkspace.testkit.mockllm.MockLlmServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The provider routes over HTTP with fake CLIs and a fake npm on the server's PATH: status, credentials (never
 * returned), models through a stored base URL, install jobs streamed and resumed by {@code Last-Event-ID},
 * cancel, config files.
 */
class ProvidersRoutesTest {
    static final String CANARY = "sk-ant-CANARY-3f9a0c7d1e2b4a6f8091";
    static TestServer s;
    static String admin;
    static Path bin;
    static MockLlmServer mock;

    @BeforeAll
    static void start() throws Exception {
        Path dir = Files.createTempDirectory("aw-prov-routes-");
        bin = Files.createDirectories(dir.resolve("bin"));
        FakeClis.install(bin, List.of("claude", "cursor", "gemini"));
        FakeNpm.install(bin, true);
        mock = MockLlmServer.builder().models(List.of("mock-sonnet", "mock-opus")).build().start();
        // the mock model endpoint is on loopback: the administrator allows it (--outbound-allow)
        java.net.URI m = java.net.URI.create(mock.baseUrl());
        s = TestServer.start(c -> c.withOutboundAllow(java.util.Set.of(m.getHost() + ":" + m.getPort())),
                Map.of("PATH", bin + ":/usr/bin:/bin", "npm_config_fake_lines", "30",
                "npm_config_fake_delay_ms", "20"));
        admin = s.registerAdmin();
    }

    @AfterAll
    static void stop() {
        s.close();
        mock.close();
    }

    @Test
    void statusReportsTheBinaryTheRunsUseAndItsVersion() {
        JsonNode claude = expect(s.get("/api/providers/claude/auth/status", bearer(admin)), 200, null);
        assertEquals("claude", claude.path("id").asText());
        assertTrue(claude.path("installed").asBoolean());
        assertEquals("2.1.330", claude.path("version").asText());
        assertEquals(bin.resolve("claude").toString(), claude.path("binaryPath").asText());
        assertEquals(s.server.engine().providers().resolveBinary("claude").orElseThrow().toString(),
                claude.path("binaryPath").asText());
        JsonNode codex = expect(s.get("/api/providers/codex/auth/status", bearer(admin)), 200, null);
        assertFalse(codex.path("installed").asBoolean());
        assertTrue(codex.path("binaryPath").isNull());
        expect(s.get("/api/providers/nope/auth/status", bearer(admin)), 404, "PROVIDER_NOT_FOUND");
    }

    @Test
    void aKeyIsStoredSealedShownMaskedAndNeverReturned() {
        JsonNode saved = expect(s.post("/api/providers/claude/auth/api-key", Map.of("apiKey", CANARY, "baseUrl",
                mock.baseUrl()), bearer(admin)), 200, null);
        assertEquals("…" + CANARY.substring(CANARY.length() - 4), saved.path("masked").asText());
        JsonNode inv = expect(s.get("/api/providers/credentials", bearer(admin)), 200, null);
        assertEquals(List.of("claude", "cursor", "codex", "gemini", "qwen", "opencode", "grok"),
                fieldNames(inv));
        assertTrue(inv.path("claude").path("hasCredential").asBoolean());
        assertEquals(mock.baseUrl(), inv.path("claude").path("baseUrl").asText());
        assertFalse(inv.path("codex").path("hasCredential").asBoolean());
        JsonNode status = expect(s.get("/api/providers/claude/auth/status", bearer(admin)), 200, null);
        assertTrue(status.path("authenticated").asBoolean());
        assertEquals("stored-key", status.path("authMethod").asText());

        // the canary appears in no answer of any readable provider route
        List<String> bodies = new ArrayList<>();
        bodies.add(s.get("/api/providers/credentials", bearer(admin)).body());
        for (String p : List.of("claude", "codex", "gemini", "qwen", "opencode", "grok", "cursor")) {
            bodies.add(s.get("/api/providers/" + p + "/auth/status", bearer(admin)).body());
            bodies.add(s.get("/api/providers/" + p + "/models", bearer(admin)).body());
            bodies.add(s.get("/api/providers/" + p + "/config-files", bearer(admin)).body());
        }
        bodies.add(s.post("/api/providers/claude/auth/api-key", Map.of("apiKey", CANARY + "\n"), bearer(admin))
                .body());
        for (String b : bodies) {
            assertFalse(b.contains("CANARY"), b);
        }
        // the key lives only sealed in the store: not in the data directory's files in clear
        long adminId = s.server.engine().auth().accounts().list().getFirst().id();
        var creds = s.server.engine().providers().credentials();
        assertEquals(CANARY, creds.resolve("claude", adminId).credentials().apiKey());
        assertEquals("own", creds.resolve("claude", adminId).source().wire(), "stored without shared: the admin's own");
        assertNull(creds.credentialsFor("claude").apiKey(), "not the service-wide key");
        assertNull(creds.resolve("codex", adminId).credentials().apiKey());
        expect(s.post("/api/providers/cursor/auth/api-key", Map.of("apiKey", "k-0123456789abcdef", "baseUrl",
                "https://x.example"), bearer(admin)), 400, "UNSUPPORTED_CAPABILITY");
        expect(s.post("/api/providers/codex/auth/api-key", Map.of("apiKey", ""), bearer(admin)), 400,
                "VALIDATION_FAILED");
        expect(s.post("/api/providers/codex/auth/api-key", Map.of("apiKey", "k", "baseUrl", "file:///etc"),
                bearer(admin)), 400, "VALIDATION_FAILED");
    }

    private static List<String> fieldNames(JsonNode n) {
        List<String> out = new ArrayList<>();
        n.fieldNames().forEachRemaining(out::add);
        return out;
    }

    @Test
    void modelsComeFromTheStoredBaseUrlAndTheCacheIsDroppedOnDemand() {
        expect(s.post("/api/providers/gemini/auth/api-key", Map.of("apiKey", "gemini-key-0123456789", "baseUrl",
                mock.baseUrl()), bearer(admin)), 200, null);
        int before = mock.requests("/v1beta/models").size();
        JsonNode models = expect(s.get("/api/providers/gemini/models", bearer(admin)), 200, null);
        assertEquals("gemini/mock-sonnet", models.get(0).path("id").asText());
        assertEquals("endpoint", models.get(0).path("source").asText());
        assertEquals(before + 1, mock.requests("/v1beta/models").size());
        expect(s.get("/api/providers/gemini/models", bearer(admin)), 200, null);
        assertEquals(before + 1, mock.requests("/v1beta/models").size(), "served from the cache");
        expect(s.send("DELETE", "/api/providers/gemini/models/cache", null, bearer(admin)), 200, null);
        expect(s.get("/api/providers/gemini/models", bearer(admin)), 200, null);
        assertEquals(before + 2, mock.requests("/v1beta/models").size(), "refetched after the cache was dropped");
        expect(s.send("DELETE", "/api/providers/gemini/auth/api-key", null, bearer(admin)), 200, null);
        assertEquals("builtin", expect(s.get("/api/providers/gemini/models", bearer(admin)), 200, null).get(0)
                .path("source").asText());
    }

    @Test
    void anInstallStreamsItsLogAndResumesAfterLastEventId() throws Exception {
        JsonNode job = expect(s.post("/api/providers/codex/install", null, bearer(admin)), 202, null);
        String id = job.path("jobId").asText();
        assertEquals("codex", job.path("provider").asText());
        assertTrue(List.of("pending", "running").contains(job.path("status").asText()));
        String stream = "/api/providers/codex/install/" + id + "/stream";

        List<SseClient.Event> first;
        try (SseClient sse = SseClient.open(s.http, s.uri(stream), bearer(admin))) {
            assertEquals(200, sse.status);
            first = sse.until(e -> e.name().equals("log") && e.data().contains("registry.invalid/@openai/codex 5"));
        }
        String lastSeen = first.getLast().id();
        List<SseClient.Event> rest;
        try (SseClient sse = SseClient.open(s.http, s.uri(stream), "Authorization", "Bearer " + admin,
                "Last-Event-ID", lastSeen)) {
            rest = sse.all();
        }
        assertEquals(Long.parseLong(lastSeen) + 1, Long.parseLong(rest.getFirst().id()),
                "the reconnect starts right after the last event seen");
        List<SseClient.Event> all;
        try (SseClient sse = SseClient.open(s.http, s.uri(stream), bearer(admin))) {
            all = sse.all();
        }
        List<SseClient.Event> joined = new ArrayList<>(first);
        joined.addAll(rest);
        assertEquals(all, joined, "nothing lost and nothing repeated");
        for (int i = 0; i < all.size(); i++) {
            assertEquals(String.valueOf(i + 1), all.get(i).id());
        }
        assertEquals("status", all.getFirst().name());
        SseClient.Event done = all.getLast();
        assertEquals("done", done.name());
        JsonNode finished = TestServer.JSON.readTree(done.data());
        assertEquals("succeeded", finished.path("status").asText());
        // no version asked: the tested one is installed
        assertEquals(org.agentworkspace.core.providers.TestedVersions.of("codex").orElseThrow(),
                finished.path("version").asText());
        assertTrue(all.stream().filter(e -> e.name().equals("log")).count() >= 30);

        JsonNode status = expect(s.get("/api/providers/codex/auth/status", bearer(admin)), 200, null);
        assertTrue(status.path("installed").asBoolean());
        assertEquals(s.dataDir.resolve("cli-bin/node_modules/.bin/codex").toString(),
                status.path("binaryPath").asText());
        assertEquals(org.agentworkspace.core.providers.TestedVersions.of("codex").orElseThrow(),
                status.path("version").asText());
        // a finished job: cancel returns it unchanged, the stream after the last id ends at once
        assertEquals("succeeded", expect(s.send("DELETE", "/api/providers/codex/install/" + id, null, bearer(admin)),
                200, null).path("status").asText());
        try (SseClient sse = SseClient.open(s.http, s.uri(stream), "Authorization", "Bearer " + admin,
                "Last-Event-ID", done.id())) {
            assertEquals(List.of(), sse.all());
        }
    }

    @Test
    void cancelAndTheErrorsOfInstall() {
        JsonNode job = expect(s.post("/api/providers/qwen/install", Map.of("version", "0.24.4"), bearer(admin)), 202,
                null);
        expect(s.post("/api/providers/qwen/install", null, bearer(admin)), 409, "INSTALL_IN_PROGRESS");
        JsonNode cancelled = expect(s.send("DELETE", "/api/providers/qwen/install/" + job.path("jobId").asText(),
                null, bearer(admin)), 200, null);
        assertTrue(List.of("cancelled", "succeeded").contains(cancelled.path("status").asText()),
                cancelled.toString());
        expect(s.post("/api/providers/cursor/install", null, bearer(admin)), 400, "UNSUPPORTED_CAPABILITY");
        expect(s.get("/api/providers/qwen/install/nope/stream", bearer(admin)), 404, "INSTALL_JOB_NOT_FOUND");
        expect(s.send("DELETE", "/api/providers/qwen/install/nope", null, bearer(admin)), 404,
                "INSTALL_JOB_NOT_FOUND");
        expect(s.get("/api/providers/claude/install/" + job.path("jobId").asText() + "/stream", bearer(admin)), 404,
                "INSTALL_JOB_NOT_FOUND");
        expect(s.post("/api/providers/qwen/install", Map.of("version", "--global"), bearer(admin)), 400,
                "VALIDATION_FAILED");
    }

    @Test
    void configFilesOverHttp() throws Exception {
        JsonNode list = expect(s.get("/api/providers/claude/config-files", bearer(admin)), 200, null);
        assertEquals("settings", list.get(0).path("fileId").asText());
        expect(s.put("/api/providers/claude/config-files/settings", Map.of("content", "{\"model\": \"opus\"}\n"),
                bearer(admin)), 200, null);
        assertEquals("{\"model\": \"opus\"}\n", Files.readString(s.home().resolve(".claude/settings.json")));
        JsonNode read = expect(s.get("/api/providers/claude/config-files/settings", bearer(admin)), 200, null);
        assertEquals("{\"model\": \"opus\"}\n", read.path("content").asText());
        assertEquals("utf-8", read.path("encoding").asText());
        JsonNode bad = expect(s.put("/api/providers/claude/config-files/settings", Map.of("content", "{\"model\": }"),
                bearer(admin)), 400, "CONFIG_VALIDATION_FAILED");
        assertTrue(bad.path("error").path("message").asText().contains("line 1"), bad.toString());
        expect(s.put("/api/providers/codex/config-files/config", Map.of("content", "a = [\n"), bearer(admin)), 400,
                "CONFIG_VALIDATION_FAILED");
        expect(s.put("/api/providers/qwen/config-files/system-settings", Map.of("content", "{}"), bearer(admin)),
                403, "CONFIG_FILE_READ_ONLY");
        assertEquals(404, s.get("/api/providers/claude/config-files/..%2F..%2F.bashrc", bearer(admin)).statusCode());
        expect(s.get("/api/providers/claude/config-files/.bashrc", bearer(admin)), 404, "CONFIG_FILE_NOT_FOUND");
        assertEquals(404, s.get("/api/providers/claude/config-files/%2Fetc%2Fpasswd", bearer(admin)).statusCode());
        expect(s.put("/api/providers/claude/config-files/settings", Map.of("content", 5), bearer(admin)), 400,
                "VALIDATION_FAILED");
        String big = "x".repeat(1024 * 1024 + 1);
        expect(s.put("/api/providers/claude/config-files/instructions", Map.of("content", big), bearer(admin)), 413,
                "FILE_TOO_LARGE");
    }

    @Test
    void oauthPasteWithoutATokenIs400() {
        expect(s.post("/api/providers/codex/oauth-paste", Map.of("url", "http://localhost:1455/auth/callback"),
                bearer(admin)), 400, "INVALID_OAUTH_CALLBACK");
        expect(s.post("/api/providers/codex/oauth-paste", Map.of(), bearer(admin)), 400, "VALIDATION_FAILED");
    }
}
