package org.agentworkspace.core.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import org.agentworkspace.api.User;
import org.agentworkspace.api.provider.ProviderCredentials;
import org.agentworkspace.core.EngineConfig;
import org.agentworkspace.core.TestDatabases;
import org.agentworkspace.core.WorkspaceEngine;
import org.agentworkspace.testkit.fakecli.FakeClis;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link WorkflowRuns}' rows on SQLite and PostgreSQL: a finished run reads back the same after the engine is
 * opened again, and a run a stop cut off is marked failed (its unfinished nodes canceled) at the next open.
 */
class WorkflowRunsStoreTest {
    @TempDir
    Path tmp;

    @Test
    void sqlite() throws Exception {
        roundTrip(TestDatabases.sqlite(tmp));
    }

    @Test
    void postgres() throws Exception {
        String url = TestDatabases.createPostgres();
        try {
            roundTrip(url);
        } finally {
            TestDatabases.dropPostgres(url);
        }
    }

    /**
     * Two nodes on one PostgreSQL store: node B starting while node A runs a workflow leaves A's workflow running
     * (B's start used to mark every unfinished workflow run failed, its coordinator being A's); A's own next start
     * ends it.
     */
    @Test
    void anotherNodesStartLeavesALiveNodesWorkflowRunning() throws Exception {
        String url = TestDatabases.createPostgres();
        try {
            FakeClis.install(tmp.resolve("bin"));
            Path project = Files.createDirectories(tmp.resolve("project"));
            JsonNode endless = new ObjectMapper().readTree("{\"agents\":[{\"adapterId\":\"opencode\"}]}");
            try (WorkspaceEngine a = open(url, "data-a")) {
                User ann = a.auth().accounts().create("ann", "ann-password-1", null, true);
                String id = a.workflowRuns().start(ann, "agent_team", "forever", endless,
                        new WorkflowRuns.Where(project, null)).path("id").asText();
                long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
                while (!a.workflowRuns().find(ann, id).path("nodeRuns").get(0).path("status").asText()
                        .equals("running") && System.nanoTime() < deadline) {
                    Thread.sleep(50);
                }
                try (WorkspaceEngine b = open(url, "data-b")) {
                    JsonNode seen = b.workflowRuns().find(ann, id);
                    assertEquals("running", seen.path("status").asText(), "a live node's workflow: " + seen);
                    assertEquals("running", seen.path("nodeRuns").get(0).path("status").asText(), seen.toString());
                }
                assertEquals("running", a.workflowRuns().find(ann, id).path("status").asText());
            }
        } finally {
            TestDatabases.dropPostgres(url);
        }
    }

    private WorkspaceEngine open(String url) {
        return open(url, "data");
    }

    private WorkspaceEngine open(String url, String dataDir) {
        WorkspaceEngine e = WorkspaceEngine.open(EngineConfig.create(tmp.resolve(dataDir)).withJdbcUrl(url));
        e.agentRuns(AgentSettings.defaults().withBinaries(Map.of("*", tmp.resolve("bin")))
                .withProviderEnv(Map.of("opencode", Map.of("AW_FAKE_EVENTS", "100000", "AW_FAKE_DELAY_MS", "200")))
                .withCredentials(id -> new ProviderCredentials("sk-aw-wf-store", null)));
        return e;
    }

    private void roundTrip(String url) throws Exception {
        FakeClis.install(tmp.resolve("bin"));
        Path project = Files.createDirectories(tmp.resolve("project"));
        ObjectMapper json = new ObjectMapper();
        JsonNode quick = json.readTree("{\"agents\":[{\"adapterId\":\"claude-code\"},{\"adapterId\":\"codex\"}]}");
        JsonNode endless = json.readTree("{\"agents\":[{\"adapterId\":\"opencode\"}]}");
        String done;
        String cut;
        JsonNode before;
        User ann;
        try (WorkspaceEngine e = open(url)) {
            ann = e.auth().accounts().create("ann", "ann-password-1", null, true);
            WorkflowRuns w = e.workflowRuns();
            done = w.start(ann, "agent_team", "hello", quick, new WorkflowRuns.Where(project, null))
                    .path("id").asText();
            long deadline = System.nanoTime() + Duration.ofSeconds(90).toNanos();
            while (!w.ended(ann, done) && System.nanoTime() < deadline) {
                Thread.sleep(100);
            }
            before = w.find(ann, done);
            assertEquals("completed", before.path("status").asText(), before.toString());
            cut = w.start(ann, "agent_team", "forever", endless, new WorkflowRuns.Where(project, null))
                    .path("id").asText();
            deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (!w.find(ann, cut).path("nodeRuns").get(0).path("status").asText().equals("running")
                    && System.nanoTime() < deadline) {
                Thread.sleep(50);
            }
        }
        try (WorkspaceEngine e = open(url)) {
            WorkflowRuns w = e.workflowRuns();
            assertEquals(before, w.find(ann, done), "read back as it was");
            JsonNode stopped = w.find(ann, cut);
            assertEquals("failed", stopped.path("status").asText(), stopped.toString());
            for (JsonNode n : stopped.path("nodeRuns")) {
                assertEquals("canceled", n.path("status").asText(), n.toString());
            }
            List<JsonNode> runs = List.copyOf(w.list(ann, null));
            assertEquals(List.of(cut, done), runs.stream().map(r -> r.path("id").asText()).toList(), "newest first");
            User bob = e.auth().accounts().create("bob", "bob-password-1", null, false);
            assertTrue(w.list(bob, null).isEmpty(), "another user sees none");
        }
    }
}
