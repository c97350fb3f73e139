package org.agentworkspace.server.agent;

import static org.agentworkspace.server.TestServer.bearer;
import static org.agentworkspace.server.TestServer.expect;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;

import org.agentworkspace.core.agent.AgentSettings;
import org.agentworkspace.server.ServerConfig;
import org.agentworkspace.server.TestServer;
import org.agentworkspace.testkit.fakecli.FakeClis;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Fair use of the run queue (issue 18, point 3), through the running server: one account that queues runs as fast as
 * it can is refused with 429 {@code TOO_MANY_QUEUED_RUNS} at its own cap, and another account can still start a
 * run, which gets a process although the first account's runs are waiting. The caps are set by the server's options
 * ({@code --max-concurrent-runs 2 --max-runs-per-account 1 --max-queued-runs-per-account 3}).
 */
class RunFairnessTest {
    @TempDir
    Path tmp;

    @Test
    void oneAccountCannotFillTheQueueOrEverySlot() throws Exception {
        Path bin = FakeClis.install(tmp.resolve("bin"));
        Path project = Files.createDirectories(tmp.resolve("project"));
        // qwen emits slowly for a long time: its runs hold their slots until cancelled
        Map<String, Map<String, String>> env = Map.of("qwen", Map.of("AW_FAKE_EVENTS", "100000",
                "AW_FAKE_DELAY_MS", "250"));
        List<String> options = List.of("--max-concurrent-runs", "2", "--max-runs-per-account", "1",
                "--max-queued-runs-per-account", "3");
        try (TestServer s = TestServer.start(c -> {
            ServerConfig parsed = ServerConfig.from(Map.of(), options);
            return c.withEngine(c.engine().withRuns(parsed.engine().runs().withKillGrace(Duration.ofMillis(200))))
                    .withAgent(AgentSettings.defaults().withBinaries(Map.of("*", bin)).withProviderEnv(env));
        })) {
            String admin = s.registerAdmin();
            expect(s.post("/api/users", Map.of("username", "bob", "password", "bob-password-1"), bearer(admin)),
                    201, null);
            String bob = s.login("bob", "bob-password-1");
            String aliceKey = s.createKey(admin, "flood", List.of("tasks:write", "tasks:read"))[1];
            String bobKey = s.createKey(bob, "mine", List.of("tasks:write", "tasks:read"))[1];
            Map<String, Object> body = Map.of("prompt", "work", "agentType", "qwen", "projectPath",
                    project.toString());

            List<String> flood = new ArrayList<>();
            HttpResponse<String> refused = null;
            for (int i = 0; i < 50 && refused == null; i++) {
                HttpResponse<String> res = s.post("/api/automation/run", body, "X-API-Key", aliceKey);
                if (res.statusCode() == 202) {
                    flood.add(TestServer.json(res).path("id").asText());
                } else {
                    refused = res;
                }
            }
            assertTrue(refused != null, "50 runs of one account were all accepted");
            expect(refused, 429, "TOO_MANY_QUEUED_RUNS");
            assertTrue(refused.headers().firstValue("Retry-After").isPresent(), refused.headers().toString());
            // one running (its account's cap) and three waiting (its queue cap)
            assertEquals(4, flood.size(), flood.toString());

            JsonNode bobs = expect(s.post("/api/automation/run", body, "X-API-Key", bobKey), 202, null);
            String bobRun = bobs.path("id").asText();
            assertEquals("running", awaitStatus(s, bobKey, bobRun, "running"),
                    "the other account's run gets the free slot although the first account's runs wait");
            int aliceRunning = 0;
            for (String id : flood) {
                String st = expect(s.get("/api/automation/runs/" + id, "X-API-Key", aliceKey), 200, null)
                        .path("status").asText();
                aliceRunning += st.equals("running") ? 1 : 0;
            }
            assertEquals(1, aliceRunning, "one account has at most --max-runs-per-account runs with a process");

            for (String id : flood) {
                s.post("/api/automation/runs/" + id + "/cancel", null, "X-API-Key", aliceKey);
            }
            s.post("/api/automation/runs/" + bobRun + "/cancel", null, "X-API-Key", bobKey);
            // once its queue drained, the first account is accepted again
            JsonNode again = expect(s.post("/api/automation/run", body, "X-API-Key", aliceKey), 202, null);
            s.post("/api/automation/runs/" + again.path("id").asText() + "/cancel", null, "X-API-Key", aliceKey);
        }
    }

    private static String awaitStatus(TestServer s, String key, String id, String wanted) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        String st = "";
        while (System.nanoTime() < deadline) {
            st = expect(s.get("/api/automation/runs/" + id, "X-API-Key", key), 200, null).path("status").asText();
            if (st.equals(wanted)) {
                return st;
            }
            Thread.sleep(50);
        }
        return st;
    }
}
