package org.agentworkspace.server.availability;

import static org.agentworkspace.server.TestServer.bearer;
import static org.agentworkspace.server.TestServer.expect;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.InputStream;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.agentworkspace.core.agent.AgentSettings;
import org.agentworkspace.server.ServerConfig;
import org.agentworkspace.server.TestServer;
import org.agentworkspace.testkit.fakecli.FakeClis;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Streams per account (issue 18, point 2), through the running server with {@code --max-streams-per-account 3}: the
 * account's streams on every streaming route count together; one more is refused with 429 {@code TOO_MANY_STREAMS}
 * and {@code Retry-After} before it starts (a refused {@code POST /api/agent} starts no run); a stream that ended
 * gives its slot back; another account is not affected. Before the cap one account could hold thousands of
 * {@code GET /api/events} streams and run the server out of memory.
 */
class StreamCapTest {
    @TempDir
    Path tmp;

    @Test
    void anAccountsStreamsAreCappedOnEveryStreamingRouteAndOtherAccountsAreNotAffected() throws Exception {
        Path bin = FakeClis.install(tmp.resolve("bin"));
        Path project = Files.createDirectories(tmp.resolve("project"));
        try (TestServer s = TestServer.start(c -> {
            // the project lies in the test's temporary folder: a project root of its own (the default is HOME)
            List<String> args = List.of("--max-streams-per-account", "3", "--data-dir",
                    c.engine().dataDir().toString(), "--port", "0", "--project-roots", tmp.toString());
            return ServerConfig.from(Map.of(), args).withAgent(AgentSettings.defaults()
                    .withBinaries(Map.of("*", bin)));
        })) {
            String alice = s.registerAdmin();
            expect(s.post("/api/users", Map.of("username", "bob", "password", "bob-password-1"), bearer(alice)),
                    201, null);
            String bob = s.login("bob", "bob-password-1");
            String aliceKey = s.createKey(alice, "ci", List.of("tasks:write", "tasks:read"))[1];
            List<HttpResponse<InputStream>> held = new ArrayList<>();
            try {
                held.add(events(s, alice));
                held.add(events(s, alice));
                // a streamed run takes the third slot while it lasts and gives it back when it ends
                HttpResponse<InputStream> run = agent(s, aliceKey, project);
                assertEquals(200, run.statusCode());
                String body = new String(run.body().readAllBytes(), StandardCharsets.UTF_8);
                assertTrue(body.contains("event:done"), body.length() > 2000 ? body.substring(body.length() - 2000) : body);
                held.add(events(s, alice));
                for (HttpResponse<InputStream> r : held) {
                    assertEquals(200, r.statusCode(), "the first three streams are served");
                }

                HttpResponse<InputStream> fourth = events(s, alice);
                assertEquals(429, fourth.statusCode(), "a fourth stream of the account is refused");
                String error = new String(fourth.body().readAllBytes(), StandardCharsets.UTF_8);
                assertTrue(error.contains("\"TOO_MANY_STREAMS\""), error);
                assertTrue(fourth.headers().firstValue("Retry-After").isPresent(), fourth.headers().toString());

                HttpResponse<InputStream> refusedRun = agent(s, aliceKey, project);
                assertEquals(429, refusedRun.statusCode(), "POST /api/agent counts as a stream");
                refusedRun.body().close();
                assertEquals(1, expect(s.get("/api/automation/runs", bearer(alice)), 200, null).size(),
                        "the refused /api/agent started no run");

                HttpResponse<InputStream> bobs = events(s, bob);
                held.add(bobs);
                assertEquals(200, bobs.statusCode(), "another account's stream is served");
            } finally {
                for (HttpResponse<InputStream> r : held) {
                    r.body().close();
                }
            }
        }
    }

    private static HttpResponse<InputStream> events(TestServer s, String token) throws Exception {
        HttpRequest req = HttpRequest.newBuilder(s.uri("/api/events")).timeout(Duration.ofSeconds(30))
                .header("Authorization", "Bearer " + token).header("Accept", "text/event-stream").GET().build();
        return s.http.send(req, HttpResponse.BodyHandlers.ofInputStream());
    }

    private static HttpResponse<InputStream> agent(TestServer s, String key, Path project) throws Exception {
        String body = TestServer.JSON.writeValueAsString(Map.of("message", "Say hello", "provider", "claude",
                "projectPath", project.toString()));
        HttpRequest req = HttpRequest.newBuilder(s.uri("/api/agent")).timeout(Duration.ofSeconds(60))
                .header("X-API-Key", key).header("Content-Type", "application/json")
                .header("Accept", "text/event-stream").POST(HttpRequest.BodyPublishers.ofString(body)).build();
        return s.http.send(req, HttpResponse.BodyHandlers.ofInputStream());
    }
}
