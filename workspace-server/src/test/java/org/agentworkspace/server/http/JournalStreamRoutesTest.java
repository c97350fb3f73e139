package org.agentworkspace.server.http;

import static org.agentworkspace.server.TestServer.bearer;
import static org.agentworkspace.server.TestServer.expect;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;

import org.agentworkspace.api.provider.ProviderCredentials;
import org.agentworkspace.core.agent.AgentSettings;
import org.agentworkspace.server.SseClient;
import org.agentworkspace.server.TestServer;
import org.agentworkspace.testkit.fakecli.FakeClis;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The one SSE follower through the running server (issue 19, point 4): a run stream opened with an API key ends with
 * {@code CREDENTIAL_REVOKED} once the key is deactivated (before, only install, update and {@code /api/events}
 * streams did), and the one {@code Last-Event-ID} rule on the run stream: an id the run handed out resumes after it,
 * anything else starts the stream as without the header ({@code afterSeq}, default the whole log).
 */
class JournalStreamRoutesTest {
    @TempDir
    static Path tmp;
    static TestServer s;
    static String admin;
    static Path project;

    @BeforeAll
    static void start() throws Exception {
        Path bin = FakeClis.install(tmp.resolve("bin"), List.of("claude", "codex"));
        project = Files.createDirectories(tmp.resolve("project"));
        Map<String, Map<String, String>> env = new HashMap<>();
        // claude thinks for a minute before it says anything: a run whose stream stays open
        env.put("claude", Map.of("AW_FAKE_SILENCE_MS", "60000"));
        s = TestServer.start(c -> c.withAgent(AgentSettings.defaults().withBinaries(Map.of("*", bin))
                .withProviderEnv(env).withCredentials(id -> new ProviderCredentials("sk-aw-journal-test", null))));
        admin = s.registerAdmin();
    }

    @AfterAll
    static void stop() {
        s.close();
    }

    static String startRun(String agent, String key) {
        return expect(s.post("/api/automation/run", Map.of("prompt", "Say hello", "agentType", agent,
                "projectPath", project.toString()), "X-API-Key", key), 202, null).path("id").asText();
    }

    static void await(String id) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (System.nanoTime() < deadline) {
            JsonNode r = expect(s.get("/api/automation/runs/" + id, bearer(admin)), 200, null);
            if (!List.of("queued", "running").contains(r.path("status").asText())) {
                return;
            }
            Thread.sleep(100);
        }
        throw new AssertionError("run " + id + " did not end");
    }

    static List<String> ids(String id, String query, String... headers) {
        List<String> all = new ArrayList<>(List.of("Authorization", "Bearer " + admin));
        all.addAll(List.of(headers));
        try (SseClient sse = SseClient.open(s.http, s.uri("/api/automation/runs/" + id + "/events" + query),
                all.toArray(String[]::new))) {
            assertEquals(200, sse.status);
            return sse.all().stream().map(SseClient.Event::id).toList();
        }
    }

    @Test
    void aRunStreamOpenedWithAKeyEndsWhenTheKeyIsDeactivated() throws Exception {
        String[] key = s.createKey(admin, "follow", List.of("tasks:write", "tasks:read"));
        String id = startRun("claude", key[1]);
        try (SseClient sse = SseClient.open(s.http, s.uri("/api/automation/runs/" + id + "/events"),
                "X-API-Key", key[1])) {
            assertEquals(200, sse.status);
            // the run is under way: its first status frames came
            sse.until(e -> e.name().equals("status") && e.data().contains("\"running\""));
            long t0 = System.nanoTime();
            expect(s.send("PATCH", "/api/settings/api-keys/" + key[0] + "/toggle", Map.of("is_active", false),
                    bearer(admin)), 200, null);
            List<SseClient.Event> rest = sse.all();
            assertTrue(System.nanoTime() - t0 < Duration.ofSeconds(5).toNanos(), "ended within 5 s");
            assertEquals("error", rest.getLast().name(), rest.toString());
            assertTrue(rest.getLast().data().contains("\"CREDENTIAL_REVOKED\""), rest.getLast().data());
        } finally {
            expect(s.post("/api/automation/runs/" + id + "/cancel", null, bearer(admin)), 200, null);
        }
    }

    @Test
    void theRunStreamReadsLastEventIdByTheOneRule() throws Exception {
        String key = s.createKey(admin, "rule", List.of("tasks:write", "tasks:read"))[1];
        String id = startRun("codex", key);
        await(id);
        List<String> full = ids(id, "");
        assertTrue(full.size() > 4, full.toString());
        assertEquals(full, ids(id, "?afterSeq=0"));
        // an id the run handed out: what came after it
        String third = full.get(2);
        List<String> after = full.stream().filter(i -> Long.parseLong(i) > Long.parseLong(third)).toList();
        assertEquals(after, ids(id, "", "Last-Event-ID", third));
        assertEquals(after, ids(id, "?afterSeq=0", "Last-Event-ID", third), "the header wins over afterSeq");
        // anything else is as if there were no header (before: 400 for a value that is not a number)
        for (String junk : List.of("junk", "-1", "1.5", "99999999")) {
            assertEquals(full, ids(id, "", "Last-Event-ID", junk), junk);
            assertEquals(after, ids(id, "?afterSeq=" + third, "Last-Event-ID", junk), junk + " with afterSeq");
        }
        // afterSeq is a query parameter, validated as before
        expect(s.get("/api/automation/runs/" + id + "/events?afterSeq=abc", bearer(admin)), 400,
                "VALIDATION_FAILED");
    }
}
