package org.agentworkspace.server.agent;

import static org.agentworkspace.server.TestServer.bearer;
import static org.agentworkspace.server.TestServer.expect;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import com.fasterxml.jackson.databind.JsonNode;

import org.agentworkspace.api.provider.ProviderCredentials;
import org.agentworkspace.core.agent.AgentSettings;
import org.agentworkspace.core.runs.LineParser;
import org.agentworkspace.core.runs.ProcessSpec;
import org.agentworkspace.core.runs.RunEngine;
import org.agentworkspace.core.runs.RunHandle;
import org.agentworkspace.core.runs.RunRequest;
import org.agentworkspace.server.TestServer;
import org.agentworkspace.testkit.fakecli.FakeClis;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code GET /api/automation/runs} filters and pages in the store: a user whose runs are older than the service's
 * newest 1,000 runs sees every one of them and pages through them with the {@code X-Next-Cursor} cursor (before,
 * the list read the newest 1,000 runs and filtered them by owner, so this user saw none).
 */
class RunPagingTest {
    @TempDir
    static Path tmp;
    static TestServer s;
    static String admin;
    static String bob;
    static Path project;
    static List<String> bobRuns = new ArrayList<>();

    @BeforeAll
    static void start() throws Exception {
        Path bin = FakeClis.install(tmp.resolve("bin"));
        project = Files.createDirectories(tmp.resolve("project"));
        s = TestServer.start(c -> c.withEngine(c.engine().withRuns(c.engine().runs().withLimits(8, Map.of())))
                .withAgent(AgentSettings.defaults().withBinaries(Map.of("*", bin))
                        .withCredentials(id -> new ProviderCredentials("sk-aw-paging", null))));
        admin = s.registerAdmin();
        expect(s.post("/api/users", Map.of("username", "bob", "password", "bob-password-1"), bearer(admin)), 201,
                null);
        bob = s.login("bob", "bob-password-1");
        String name = s.quickStart(admin, project);
        // bob's three runs, through the route, as he starts them
        for (int i = 0; i < 3; i++) {
            JsonNode run = expect(s.post("/api/automation/run", Map.of("prompt", "hello " + i, "projectId", name),
                    bearer(bob)), 202, null);
            bobRuns.add(0, run.path("id").asText());
            awaitEnd(run.path("id").asText(), bob);
        }
        // then 1,001 newer runs of the administrator's (a trivial process each), so bob's are past the newest 1,000
        RunEngine engine = s.server.engine().runs();
        List<RunHandle> batch = new ArrayList<>();
        for (int i = 0; i < 1001; i++) {
            batch.add(engine.start(RunRequest.of("claude", ProcessSpec.of(List.of("/bin/true"),
                    Map.of("PATH", "/usr/bin:/bin"), project), LineParser.none())
                    .withMetadata("{\"userId\":1,\"route\":\"automation\"}")));
            if (batch.size() == 200) {
                for (RunHandle h : batch) {
                    h.awaitCompletion(Duration.ofSeconds(120)).orElseThrow();
                }
                batch.clear();
            }
        }
        for (RunHandle h : batch) {
            h.awaitCompletion(Duration.ofSeconds(120)).orElseThrow();
        }
    }

    @AfterAll
    static void stop() {
        s.close();
    }

    static void awaitEnd(String id, String token) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (System.nanoTime() < deadline) {
            JsonNode r = expect(s.get("/api/automation/runs/" + id, bearer(token)), 200, null);
            if (!List.of("queued", "running").contains(r.path("status").asText())) {
                return;
            }
            Thread.sleep(50);
        }
        throw new AssertionError("run " + id + " did not end");
    }

    static List<String> ids(JsonNode list) {
        List<String> out = new ArrayList<>();
        list.forEach(r -> out.add(r.path("id").asText()));
        return out;
    }

    static Optional<String> next(HttpResponse<String> res) {
        return res.headers().firstValue("X-Next-Cursor");
    }

    @Test
    void aUserWhoseRunsAreOlderThanTheNewestThousandSeesAndPagesThroughAllOfThem() {
        HttpResponse<String> all = s.get("/api/automation/runs", bearer(bob));
        JsonNode first = expect(all, 200, null);
        assertEquals(bobRuns, ids(first), "all three, newest first");
        assertFalse(next(all).isPresent(), "one page holds them all");
        assertEquals("completed", first.get(0).path("status").asText(), first.get(0).toString());
        assertFalse(first.get(0).path("resultText").asText("").isBlank(), "the stored outcome: " + first.get(0));
        assertFalse(first.get(0).path("sessionId").asText("").isBlank(), first.get(0).toString());
        assertTrue(first.get(0).path("logs").size() > 0, first.get(0).toString());

        HttpResponse<String> p1 = s.get("/api/automation/runs?limit=2", bearer(bob));
        assertEquals(bobRuns.subList(0, 2), ids(expect(p1, 200, null)));
        String cursor = next(p1).orElseThrow(() -> new AssertionError("a next page"));
        HttpResponse<String> p2 = s.get("/api/automation/runs?limit=2&cursor=" + TestServer.q(cursor), bearer(bob));
        assertEquals(bobRuns.subList(2, 3), ids(expect(p2, 200, null)));
        assertFalse(next(p2).isPresent(), "the last page has no cursor");

        // a cursor is only a position: the administrator continuing after bob's second run sees what is older
        HttpResponse<String> older = s.get("/api/automation/runs?limit=2&cursor=" + TestServer.q(cursor),
                bearer(admin));
        assertEquals(bobRuns.subList(2, 3), ids(expect(older, 200, null)));
        expect(s.get("/api/automation/runs?cursor=not-a-cursor", bearer(bob)), 400, "VALIDATION_FAILED");
    }

    @Test
    void anAdministratorPagesThroughEveryRunOnceWithoutAGapOrADuplicate() {
        Set<String> seen = new HashSet<>();
        List<String> order = new ArrayList<>();
        String cursor = null;
        int pages = 0;
        do {
            HttpResponse<String> res = s.get("/api/automation/runs?limit=200"
                    + (cursor == null ? "" : "&cursor=" + TestServer.q(cursor)), bearer(admin));
            JsonNode page = expect(res, 200, null);
            assertTrue(page.size() <= 200);
            for (String id : ids(page)) {
                assertTrue(seen.add(id), "seen once: " + id);
                order.add(id);
            }
            cursor = next(res).orElse(null);
            pages++;
        } while (cursor != null);
        assertEquals(1004, seen.size());
        assertEquals(6, pages);
        assertEquals(bobRuns, order.subList(1001, 1004), "bob's are the oldest");
    }

    @Test
    void filtersStillApplyAndNothingElseChangesForOldClients() {
        JsonNode failed = expect(s.get("/api/automation/runs?status=failed", bearer(bob)), 200, null);
        assertEquals(0, failed.size(), failed.toString());
        assertEquals(bobRuns, ids(expect(s.get("/api/automation/runs?status=completed", bearer(bob)), 200, null)));
        JsonNode limited = expect(s.get("/api/automation/runs?limit=1", bearer(bob)), 200, null);
        assertTrue(limited.isArray(), "the body is still the array it was");
        assertEquals(List.of(bobRuns.getFirst()), ids(limited));
        expect(s.get("/api/automation/runs?limit=201", bearer(bob)), 400, "VALIDATION_FAILED");
    }
}
