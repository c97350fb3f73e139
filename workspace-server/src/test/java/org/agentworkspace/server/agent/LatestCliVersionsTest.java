package org.agentworkspace.server.agent;

import static org.agentworkspace.server.TestServer.bearer;
import static org.agentworkspace.server.TestServer.expect;

import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import com.fasterxml.jackson.databind.JsonNode;

import org.agentworkspace.core.providers.TestedVersions;
import org.agentworkspace.server.TestServer;
import org.agentworkspace.testkit.mockllm.MockLlmServer;
import org.agentworkspace.testkit.mockllm.RecordedRequest;
import org.agentworkspace.testkit.realcli.RealCli;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Opt-in ({@code AW_E2E_LATEST=1} or {@code -Daw.e2e.latest=true}; never part of the normal build, which must not
 * depend on whatever was published last): does the newest published version of each CLI still work with the
 * service? Exactly the user's path: a fresh server, {@code POST /api/providers/{p}/install {"version":"latest"}}, the
 * key and the mock's address saved through the route, then a buffered {@code POST /api/agent} run that must answer
 * with the mock's text and send the stored key. The failure names every CLI that broke and the version it got,
 * next to the tested one ({@link TestedVersions}).
 */
@Tag("real-cli")
class LatestCliVersionsTest {
    static final List<String> PROVIDERS = List.of("claude", "codex", "gemini", "qwen", "opencode", "grok");

    @TempDir
    static Path tmp;

    static boolean enabled() {
        return "1".equals(System.getenv("AW_E2E_LATEST")) || Boolean.getBoolean("aw.e2e.latest");
    }

    @Test
    void theNewestPublishedVersionOfEachCliStillWorksThroughTheServer() throws Exception {
        if (!enabled()) {
            System.out.println("SKIPPED latest CLI versions: set AW_E2E_LATEST=1 to run them");
        }
        Assumptions.assumeTrue(enabled(), "opt-in: AW_E2E_LATEST=1");
        Optional<String> missing = RealCli.unavailableReason();
        Assumptions.assumeTrue(missing.isEmpty(), () -> missing.orElse(""));
        Map<String, String> failures = new LinkedHashMap<>();
        Map<String, String> installed = new LinkedHashMap<>();
        try (MockLlmServer mock = MockLlmServer.create().start();
             TestServer s = TestServer.start(c -> c.withOutboundAllow(java.util.Set.of("127.0.0.1:" + java.net.URI
                     .create(mock.baseUrl()).getPort())), Map.of("HOME", Files.createDirectories(tmp.resolve("home"))
                     .toString()))) {
            String admin = s.registerAdmin();
            String key = s.createKey(admin, "latest", List.of("tasks:write", "tasks:read"))[1];
            Path project = Files.createDirectories(tmp.resolve("project"));
            for (String p : PROVIDERS) {
                try {
                    installed.put(p, install(s, admin, p));
                    String apiKey = "sk-aw-latest-" + p;
                    expect(s.post("/api/providers/" + p + "/auth/api-key", Map.of("apiKey", apiKey, "baseUrl",
                            mock.baseUrl() + RealCliAgentE2ETest.URL_SUFFIX.get(p)), bearer(admin)), 200, null);
                    int before = mock.requests().size();
                    HttpRequest req = HttpRequest.newBuilder(s.uri("/api/agent")).timeout(Duration.ofMinutes(3))
                            .header("Content-Type", "application/json").header("X-API-Key", key)
                            .POST(HttpRequest.BodyPublishers.ofString(TestServer.JSON.writeValueAsString(Map.of(
                                    "message", "Say hello to the mock", "provider", p, "model",
                                    RealCliAgentE2ETest.MODELS.get(p), "projectPath", project.toString(),
                                    "stream", false)))).build();
                    JsonNode r = TestServer.JSON.readTree(s.http.send(req, HttpResponse.BodyHandlers.ofString())
                            .body());
                    if (!r.path("success").asBoolean() || !r.path("text").asText().contains("MOCK-REPLY")) {
                        failures.put(p, "the run did not answer with the mock's text: " + cut(r.toString()));
                        continue;
                    }
                    List<RecordedRequest> sent = List.copyOf(mock.requests().subList(before, mock.requests().size()));
                    if (sent.isEmpty() || sent.stream().anyMatch(q -> !q.apiKey().equals(Optional.of(apiKey)))) {
                        failures.put(p, "the run did not send the stored key to the mock");
                    }
                } catch (Exception | AssertionError e) {
                    failures.put(p, cut(String.valueOf(e.getMessage())));
                }
            }
        }
        System.out.println("latest CLI versions: " + installed + "; tested: " + TestedVersions.all());
        if (!failures.isEmpty()) {
            StringBuilder b = new StringBuilder("newest published versions that do not work with the service:");
            failures.forEach((p, why) -> b.append("\n  ").append(p).append(' ')
                    .append(installed.getOrDefault(p, "(not installed)")).append(" (tested: ")
                    .append(TestedVersions.of(p).orElse("-")).append("): ").append(why));
            throw new AssertionError(b.toString());
        }
    }

    /** Installs {@code latest} through the route and waits for the job; the version it installed. */
    private static String install(TestServer s, String admin, String provider) throws Exception {
        JsonNode job = expect(s.post("/api/providers/" + provider + "/install", Map.of("version", "latest"),
                bearer(admin)), 202, null);
        String id = job.path("jobId").asText();
        HttpRequest follow = HttpRequest.newBuilder(s.uri("/api/providers/" + provider + "/install/" + id
                + "/stream")).timeout(Duration.ofMinutes(16)).header("Authorization", "Bearer " + admin).GET().build();
        HttpResponse<java.io.InputStream> res = s.http.send(follow, HttpResponse.BodyHandlers.ofInputStream());
        List<Sse.Frame> frames = new Sse(res.body()).until(f -> f.name().equals("done") || f.name().equals("error"));
        Sse.Frame last = frames.getLast();
        if (!last.name().equals("done") || !last.data().path("status").asText().equals("succeeded")) {
            throw new AssertionError("the install failed: " + last.data());
        }
        return last.data().path("version").asText();
    }

    private static String cut(String s) {
        return s.length() > 600 ? s.substring(0, 600) + "…" : s;
    }
}
