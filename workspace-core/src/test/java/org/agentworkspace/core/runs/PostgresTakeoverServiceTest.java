package org.agentworkspace.core.runs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.agentworkspace.api.User;
import org.agentworkspace.api.provider.ProviderCredentials;
import org.agentworkspace.core.EngineConfig;
import org.agentworkspace.core.TestDatabases;
import org.agentworkspace.core.WorkspaceEngine;
import org.agentworkspace.core.agent.AgentRunService;
import org.agentworkspace.core.agent.AgentSettings;
import org.agentworkspace.core.store.Store;
import org.agentworkspace.testkit.fakecli.FakeClis;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The takeover through the agent service, as a server runs it: node A (a whole engine) accepts runs it cannot start
 * yet and dies; node B's heartbeat sweep rebuilds them from their launch specs (the fake claude CLI, the credential
 * resolved again on B) and runs them under the same ids. The stored spec holds no key. A throwaway PostgreSQL
 * database.
 */
class PostgresTakeoverServiceTest {
    @TempDir
    Path tmp;

    WorkspaceEngine open(String url, String dataDir, RunSettings runs) {
        WorkspaceEngine e = WorkspaceEngine.open(EngineConfig.create(tmp.resolve(dataDir)).withJdbcUrl(url)
                .withRuns(runs));
        e.agentRuns(AgentSettings.defaults().withBinaries(Map.of("*", tmp.resolve("bin")))
                .withProviderEnv(Map.of("opencode", Map.of("AW_FAKE_EVENTS", "100000", "AW_FAKE_DELAY_MS", "200")))
                .withCredentials(id -> new ProviderCredentials("sk-aw-takeover-key", null)));
        return e;
    }

    @Test
    void aDeadNodesQueuedAgentRunsAreStartedAgainOnAnotherNode() throws Exception {
        String url = TestDatabases.createPostgres();
        try (Store s = Store.open(url)) {
            FakeClis.install(tmp.resolve("bin"));
            Path project = Files.createDirectories(tmp.resolve("project"));
            RunSettings settings = RunSettings.defaults().withKillGrace(Duration.ofMillis(500))
                    .withPollInterval(Duration.ofMillis(100));
            try (WorkspaceEngine a = open(url, "data-a", settings.withLimits(1, Map.of()));
                 WorkspaceEngine b = open(url, "data-b", settings)) {
                User ann = a.auth().accounts().create("ann", "ann-password-1", null, true);
                AgentRunService onA = a.agentRuns();
                // A's one slot is taken by a long run; the runs after it wait in A's queue
                RunHandle busy = onA.start(new AgentRunService.Start(ann.id(), "agent", "opencode", "forever",
                        project, null, null, null, null, null, Map.of()));
                long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
                while (a.runs().find(busy.id()).orElseThrow().status() != RunStatus.RUNNING
                        && System.nanoTime() < deadline) {
                    Thread.sleep(20);
                }
                List<String> ids = new ArrayList<>();
                for (int i = 0; i < 2; i++) {
                    ids.add(onA.start(new AgentRunService.Start(ann.id(), "agent", "claude", "hello " + i, project,
                            null, null, "sonnet", null, null, Map.of("n", i))).id());
                }
                for (String id : ids) {
                    assertEquals(RunStatus.QUEUED, a.runs().find(id).orElseThrow().status());
                    String spec = s.read(h -> h.createQuery("SELECT launch_spec FROM runs WHERE id = :id")
                            .bind("id", id).mapTo(String.class).one());
                    assertTrue(spec.contains("\"prompt\":\"hello ") && spec.contains("\"model\":\"sonnet\""), spec);
                    assertFalse(spec.contains("sk-aw-takeover-key"), "no secret in the spec: " + spec);
                }
                // A dies: no more heartbeats, its last one a minute ago
                long killed = System.nanoTime();
                a.runs().stopHeartbeatForTest();
                s.write(h -> h.execute("UPDATE nodes SET heartbeat_at = heartbeat_at - 60000 WHERE id = ?",
                        a.runs().nodeId()));
                for (String id : ids) {
                    RunInfo done = b.runs().awaitCompletion(id, Duration.ofSeconds(60)).orElseThrow();
                    assertEquals(RunStatus.SUCCEEDED, done.status(), id);
                    assertEquals(b.runs().nodeId(), s.read(h -> h.createQuery("SELECT node_id FROM runs WHERE id = "
                            + ":id").bind("id", id).mapTo(String.class).one()));
                    List<RunEntry> log = RunFixtures.all(b.runs(), id);
                    assertTrue(log.get(1).payload().contains("\"reason\":\"taken_over\",\"from\":\""
                            + a.runs().nodeId() + "\""), log.get(1).payload());
                    assertTrue(log.stream().anyMatch(e -> e.kind() == EntryKind.EVENT), log.toString());
                    assertTrue(RunFixtures.all(b.runs(), id).stream().noneMatch(e -> e.payload()
                            .contains("sk-aw-takeover-key")), "the key never reaches the log");
                }
                System.out.println("PostgresTakeoverServiceTest: both queued runs ended on B "
                        + Duration.ofNanos(System.nanoTime() - killed).toMillis() + " ms after A's death was "
                        + "simulated (B sweeps after each 5 s heartbeat)");
                assertEquals("node_lost", b.runs().awaitCompletion(busy.id(), Duration.ofSeconds(30)).orElseThrow()
                        .reason(), "A's running run is settled, not taken over");
            }
        } finally {
            TestDatabases.dropPostgres(url);
        }
    }
}
