package org.agentworkspace.server.agent;

import static org.agentworkspace.server.TestServer.expect;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;

import org.agentworkspace.api.provider.ProviderCredentials;
import org.agentworkspace.core.agent.AgentSettings;
import org.agentworkspace.core.runs.RunRetention;
import org.agentworkspace.server.ServerConfig;
import org.agentworkspace.server.TestServer;
import org.agentworkspace.testkit.fakecli.FakeClis;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Retention of ended runs through the running server (issue 18, point 9): the periodic sweep deletes ended runs
 * beyond the newest N ({@code --run-retention-count}) and those older than the age limit, so the store does not grow
 * without bound. The flags are parsed as the server parses them; the sweep period and an age in seconds (the flag
 * counts days) are the engine's own settings.
 */
class RunRetentionTest {
    @TempDir
    static Path tmp;

    @Test
    void theSweepKeepsTheNewestRunsAndThenDropsTheOldOnes() throws Exception {
        ServerConfig flags = ServerConfig.from(Map.of("AW_RUN_RETENTION_DAYS", "7"),
                List.of("--run-retention-count", "2"));
        assertEquals(Duration.ofDays(7), flags.engine().runRetention().maxAge());
        assertEquals(2, flags.engine().runRetention().maxCount());
        Path bin = FakeClis.install(tmp.resolve("bin"), List.of("claude"));
        Path project = Files.createDirectories(tmp.resolve("project"));
        RunRetention retention = flags.engine().runRetention().withEvery(Duration.ofMillis(200));
        try (TestServer s = TestServer.start(c -> c.withEngine(c.engine().withRunRetention(retention))
                .withAgent(AgentSettings.defaults().withBinaries(Map.of("*", bin))
                        .withCredentials(id -> new ProviderCredentials("sk-aw-retention-test", null))))) {
            String session = s.registerAdmin();
            String key = s.createKey(session, "retention", List.of("tasks:write", "tasks:read"))[1];
            List<String> ids = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                String id = expect(s.post("/api/automation/run", Map.of("prompt", "Say hello", "projectPath",
                        project.toString()), "X-API-Key", key), 202, null).path("id").asText();
                await(s, key, id);
                ids.add(id);
            }
            // the two oldest go; the two newest stay
            awaitStatus(s, key, ids.get(0), 404);
            awaitStatus(s, key, ids.get(1), 404);
            assertEquals(200, s.get("/api/automation/runs/" + ids.get(2), "X-API-Key", key).statusCode());
            assertEquals(200, s.get("/api/automation/runs/" + ids.get(3), "X-API-Key", key).statusCode());
            JsonNode list = expect(s.get("/api/automation/runs?limit=200", "X-API-Key", key), 200, null);
            assertEquals(List.of(ids.get(3), ids.get(2)), list.findValuesAsText("id"), list.toString());
        }
        // the age limit: a server whose runs may be one second old
        try (TestServer s = TestServer.start(c -> c.withEngine(c.engine().withRunRetention(
                        retention.withMaxCount(1000).withMaxAge(Duration.ofSeconds(1))))
                .withAgent(AgentSettings.defaults().withBinaries(Map.of("*", bin))
                        .withCredentials(id -> new ProviderCredentials("sk-aw-retention-test", null))))) {
            String session = s.registerAdmin();
            String key = s.createKey(session, "retention", List.of("tasks:write", "tasks:read"))[1];
            String id = expect(s.post("/api/automation/run", Map.of("prompt", "Say hello", "projectPath",
                    project.toString()), "X-API-Key", key), 202, null).path("id").asText();
            await(s, key, id);
            awaitStatus(s, key, id, 404);
        }
    }

    static void await(TestServer s, String key, String id) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (System.nanoTime() < deadline) {
            JsonNode r = expect(s.get("/api/automation/runs/" + id, "X-API-Key", key), 200, null);
            if (!List.of("queued", "running").contains(r.path("status").asText())) {
                assertEquals("completed", r.path("status").asText(), r.toString());
                return;
            }
            Thread.sleep(50);
        }
        throw new AssertionError("run " + id + " did not end");
    }

    static void awaitStatus(TestServer s, String key, String id, int status) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        int last = -1;
        while (System.nanoTime() < deadline) {
            last = s.get("/api/automation/runs/" + id, "X-API-Key", key).statusCode();
            if (last == status) {
                return;
            }
            Thread.sleep(100);
        }
        assertTrue(false, "run " + id + " answers " + last + ", not " + status);
    }
}
