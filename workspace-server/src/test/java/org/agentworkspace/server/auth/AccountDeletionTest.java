package org.agentworkspace.server.auth;

import static org.agentworkspace.server.TestServer.bearer;
import static org.agentworkspace.server.TestServer.expect;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.WebSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import com.fasterxml.jackson.databind.JsonNode;

import org.agentworkspace.api.provider.ProviderCredentials;
import org.agentworkspace.core.agent.AgentSettings;
import org.agentworkspace.server.JsonSocketClient;
import org.agentworkspace.server.SseClient;
import org.agentworkspace.server.TestServer;
import org.agentworkspace.testkit.fakecli.FakeClis;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Deleting an account ends its live work at once, through the running server (issue 18, point 10): its running
 * agent is cancelled, its run stream and its {@code /api/events} stream end with {@code CREDENTIAL_REVOKED}, and its
 * {@code /ws} and {@code /shell} sockets are closed with code 4401. Before, the run went on to its end and the
 * sockets stayed open.
 */
class AccountDeletionTest {
    static final HttpClient HTTP = HttpClient.newHttpClient();
    @TempDir
    Path tmp;

    @Test
    void deletingAnAccountStopsItsRunsStreamsAndSocketsAtOnce() throws Exception {
        Path bin = FakeClis.install(tmp.resolve("bin"), List.of("qwen"));
        Path project = Files.createDirectories(tmp.resolve("project"));
        // qwen prints slowly without end: only a cancel ends its run
        Map<String, Map<String, String>> env = Map.of("qwen", Map.of("AW_FAKE_EVENTS", "100000",
                "AW_FAKE_DELAY_MS", "200"));
        try (TestServer s = TestServer.start(c -> c.withEngine(c.engine().withRuns(c.engine().runs()
                        .withKillGrace(Duration.ofMillis(300))))
                .withAgent(AgentSettings.defaults().withBinaries(Map.of("*", bin)).withProviderEnv(env)
                        .withCredentials(id -> new ProviderCredentials("sk-aw-deletion-test", null))))) {
            String admin = s.registerAdmin();
            // a second administrator: /shell is for administrators, and one administrator may delete another
            long bobId = expect(s.post("/api/users", Map.of("username", "bob", "password", "bob's long password",
                    "is_admin", true), bearer(admin)), 201, null).path("id").asLong();
            String bob = s.login("bob", "bob's long password");
            String key = s.createKey(bob, "bob", List.of("tasks:write", "tasks:read"))[1];

            String runId = expect(s.post("/api/automation/run", Map.of("prompt", "Say hello", "agentType", "qwen",
                    "projectPath", project.toString()), "X-API-Key", key), 202, null).path("id").asText();
            SseClient runStream = SseClient.open(s.http, s.uri("/api/automation/runs/" + runId + "/events"),
                    "X-API-Key", key);
            assertEquals(200, runStream.status);
            assertTrue(runStream.until(e -> e.name().equals("event")).getLast().name().equals("event"),
                    "the run is streaming");
            SseClient events = SseClient.open(s.http, s.uri("/api/events"), "X-API-Key", key);
            assertEquals(200, events.status);
            assertEquals("ready", events.next().name());
            CompletableFuture<List<SseClient.Event>> runRest = CompletableFuture.supplyAsync(runStream::all);
            CompletableFuture<List<SseClient.Event>> eventsRest = CompletableFuture.supplyAsync(events::all);

            JsonSocketClient chat = socket(s, "/ws", bob);
            JsonSocketClient shell = socket(s, "/shell", bob);
            Thread.sleep(300);
            assertTrue(!chat.closed.isDone() && !shell.closed.isDone(), "both sockets are open");

            long t0 = System.nanoTime();
            expect(s.delete("/api/users/" + bobId, null, bearer(admin)), 200, null);

            // the sockets close with the documented code
            assertEquals(4401, chat.closed.get(3, TimeUnit.SECONDS), "the /ws socket");
            assertEquals(4401, shell.closed.get(3, TimeUnit.SECONDS), "the /shell socket");
            // both streams end, saying why
            List<SseClient.Event> rest = eventsRest.get(3, TimeUnit.SECONDS);
            assertEquals("error", rest.getLast().name(), rest.toString());
            assertTrue(rest.getLast().data().contains("CREDENTIAL_REVOKED"), rest.getLast().data());
            List<SseClient.Event> runTail = runRest.get(5, TimeUnit.SECONDS);
            assertTrue(runTail.stream().anyMatch(e -> e.name().equals("status") && e.data().contains("cancelled"))
                    || runTail.getLast().data().contains("CREDENTIAL_REVOKED"), runTail.toString());
            // the agent is cancelled, not left running
            JsonNode run = awaitEnd(s, admin, runId);
            assertEquals("cancelled", run.path("status").asText(), run.toString());
            assertTrue(System.nanoTime() - t0 < Duration.ofSeconds(8).toNanos(), "at once, not at a periodic check");
            // and the account's credentials are gone
            expect(s.get("/api/auth/user", "X-API-Key", key), 401, null);
        }
    }

    static JsonSocketClient socket(TestServer s, String path, String sessionToken) throws Exception {
        JsonSocketClient c = new JsonSocketClient();
        c.ws = HTTP.newWebSocketBuilder().connectTimeout(Duration.ofSeconds(5))
                .header("Authorization", "Bearer " + sessionToken)
                .buildAsync(URI.create("ws://127.0.0.1:" + s.server.port() + path), c).get(10, TimeUnit.SECONDS);
        return c;
    }

    static JsonNode awaitEnd(TestServer s, String admin, String runId) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
        JsonNode r = null;
        while (System.nanoTime() < deadline) {
            r = expect(s.get("/api/automation/runs/" + runId, bearer(admin)), 200, null);
            if (!List.of("queued", "running").contains(r.path("status").asText())) {
                return r;
            }
            Thread.sleep(50);
        }
        throw new AssertionError("the deleted account's run still runs: " + r);
    }
}
