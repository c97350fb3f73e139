package org.agentworkspace.server.agent;

import static org.agentworkspace.server.TestServer.bearer;
import static org.agentworkspace.server.TestServer.expect;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;

import org.agentworkspace.api.provider.ProviderCredentials;
import org.agentworkspace.core.agent.AgentSettings;
import org.agentworkspace.server.TestServer;
import org.agentworkspace.testkit.fakecli.FakeClis;
import org.agentworkspace.testkit.git.GitCli;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The workflow family ({@code /api/orchestration/*}) served over automation runs, through the running server with
 * the fake CLIs: claude and codex answer at once, qwen fails (exit 1), opencode streams for minutes (cancel), gemini
 * writes {@code gemini-out.txt} (worktrees).
 */
class WorkflowCompatibilityTest {
    static final String BASE = "/api/orchestration/workflows";
    @TempDir
    static Path tmp;
    static TestServer s;
    static String admin;
    static String key;
    static String bobKey;
    static String project;
    static GitCli git;

    @BeforeAll
    static void start() throws Exception {
        GitCli.assumeAvailable();
        git = new GitCli(tmp.resolve("git-home"));
        Path bin = FakeClis.install(tmp.resolve("bin"));
        Map<String, Map<String, String>> env = new HashMap<>();
        env.put("qwen", Map.of("AW_FAKE_EXIT", "1"));
        env.put("opencode", Map.of("AW_FAKE_EVENTS", "100000", "AW_FAKE_DELAY_MS", "200"));
        env.put("gemini", Map.of("AW_FAKE_WRITE_FILE", "gemini-out.txt"));
        s = TestServer.start(c -> c.withAgent(AgentSettings.defaults().withBinaries(Map.of("*", bin))
                .withProviderEnv(env).withCredentials(id -> new ProviderCredentials("sk-aw-wf-test", null))));
        admin = s.registerAdmin();
        key = s.createKey(admin, "wf", List.of("tasks:write", "tasks:read"))[1];
        expect(s.post("/api/users", Map.of("username", "bob", "password", "bob-password-1"), bearer(admin)), 201,
                null);
        bobKey = s.createKey(s.login("bob", "bob-password-1"), "bob", List.of("tasks:write", "tasks:read"))[1];
        project = s.quickStart(admin, Files.createDirectories(tmp.resolve("proj")));
    }

    @AfterAll
    static void stop() {
        if (s != null) {
            s.close();
        }
    }

    static Map<String, Object> agent(String adapter, Object... more) {
        Map<String, Object> a = new LinkedHashMap<>(Map.of("adapterId", adapter));
        for (int i = 0; i < more.length; i += 2) {
            a.put((String) more[i], more[i + 1]);
        }
        return a;
    }

    static Map<String, Object> request(List<Map<String, Object>> agents, Map<String, Object> settings) {
        Map<String, Object> meta = new LinkedHashMap<>();
        meta.put("projectId", project);
        meta.put("agents", agents);
        meta.put("settings", settings);
        return Map.of("input", "Build the thing", "metadata", meta);
    }

    static List<String> ids(JsonNode nodes, String field) {
        List<String> out = new ArrayList<>();
        nodes.forEach(n -> out.add(n.path(field).asText()));
        return out;
    }

    static List<String> texts(JsonNode array) {
        List<String> out = new ArrayList<>();
        array.forEach(n -> out.add(n.asText()));
        return out;
    }

    static JsonNode await(String runId) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
        while (System.nanoTime() < deadline) {
            JsonNode r = expect(s.get(BASE + "/runs/" + runId, "X-API-Key", key), 200, null);
            if (List.of("completed", "failed", "canceled").contains(r.path("status").asText())) {
                return r;
            }
            Thread.sleep(100);
        }
        throw new AssertionError("workflow run " + runId + " did not end");
    }

    static JsonNode node(JsonNode run, String nodeId) {
        for (JsonNode n : run.path("nodeRuns")) {
            if (n.path("nodeId").asText().equals(nodeId)) {
                return n;
            }
        }
        throw new AssertionError("no node " + nodeId + " in " + run);
    }

    @Test
    void previewExpandsTheTeamForTwoThreeAndTwelveAgents() {
        HttpResponse<String> listed = s.get(BASE, "X-API-Key", key);
        JsonNode workflows = expect(listed, 200, null);
        assertEquals("agent_team", workflows.path("workflows").get(0).path("id").asText(), workflows.toString());
        assertEquals("true", listed.headers().firstValue("Deprecation").orElse(""), "deprecated");
        assertTrue(listed.headers().firstValue("Link").orElse("").contains("/api/automation/run"));
        JsonNode ctx = expect(s.get(BASE + "/context", "X-API-Key", key), 200, null);
        assertEquals("selected_project", ctx.path("defaultWorkspaceTarget").asText(), ctx.toString());

        JsonNode two = expect(s.post(BASE + "/agent_team/preview", request(List.of(agent("claude-code"),
                agent("codex")), Map.of()), "X-API-Key", key), 200, null);
        assertEquals(4, two.path("nodeCount").asInt(), two.toString());
        assertEquals(List.of("coordinator", "worker-claude-code-1", "worker-codex-1", "final-report"),
                ids(two.path("nodes"), "id"));
        assertEquals(List.of("coordinator"), texts(two.path("nodes").get(1).path("inputs")));
        assertEquals(List.of("worker-claude-code-1", "worker-codex-1"), texts(two.path("nodes").get(3)
                .path("inputs")));
        assertEquals("abort", two.path("nodes").get(1).path("onFail").asText());
        assertEquals(3, two.path("settings").path("maxParallelAgents").asInt());

        // backend + frontend + reviewer: a handoff the frontend depends on, a review of both workers
        JsonNode three = expect(s.post(BASE + "/agent_team/preview", request(List.of(
                agent("codex", "role", "backend"), agent("claude-code", "role", "frontend", "label", "UI"),
                agent("gemini", "role", "review")), Map.of("maxParallelAgents", 2)), "X-API-Key", key), 200, null);
        assertEquals(List.of("coordinator", "handoff-codex-1", "worker-codex-1", "worker-claude-code-1",
                "review-gemini-1", "final-report"), ids(three.path("nodes"), "id"), three.toString());
        assertEquals(List.of("coordinator", "handoff-codex-1"), texts(three.path("nodes").get(3).path("inputs")));
        assertEquals("UI", three.path("nodes").get(3).path("agentLabel").asText());
        assertEquals(List.of("worker-codex-1", "worker-claude-code-1"),
                texts(three.path("nodes").get(4).path("inputs")));
        assertEquals(List.of("worker-codex-1", "worker-claude-code-1", "review-gemini-1"),
                texts(three.path("nodes").get(5).path("inputs")));

        List<Map<String, Object>> twelve = new ArrayList<>();
        String[] adapters = {"claude-code", "codex", "cursor", "gemini", "qwen", "opencode"};
        for (int i = 0; i < 12; i++) {
            twelve.add(agent(adapters[i % adapters.length]));
        }
        JsonNode big = expect(s.post(BASE + "/agent_team/preview", request(twelve, Map.of("maxParallelAgents", 12)),
                "X-API-Key", key), 200, null);
        assertEquals(14, big.path("nodeCount").asInt(), big.toString());
        assertTrue(ids(big.path("nodes"), "id").contains("worker-opencode-2"), "instance ids count per adapter");

        // invalid metadata: 400 INVALID_WORKFLOW_METADATA; an unknown workflow 404
        for (Map<String, Object> bad : List.of(request(twelve, Map.of("maxParallelAgents", 13)),
                request(twelve, Map.of("maxParallelAgents", 0)), request(List.of(), Map.of()),
                request(List.of(agent("claude-code", "enabled", false)), Map.of()),
                request(List.of(agent("vim")), Map.of()),
                request(List.of(agent("codex", "instanceId", "x"), agent("claude-code", "instanceId", "x")), Map.of()),
                request(List.of(agent("codex", "onFail", "shrug")), Map.of()),
                request(List.of(agent("codex", "sneaky", 1)), Map.of()))) {
            expect(s.post(BASE + "/agent_team/preview", bad, "X-API-Key", key), 400, "INVALID_WORKFLOW_METADATA");
        }
        List<Map<String, Object>> thirteen = new ArrayList<>(twelve);
        thirteen.add(agent("codex"));
        expect(s.post(BASE + "/agent_team/preview", request(thirteen, Map.of()), "X-API-Key", key), 400,
                "INVALID_WORKFLOW_METADATA");
        HttpResponse<String> refused = s.post(BASE + "/agent_team/preview", Map.of(), "X-API-Key", key);
        expect(refused, 400, "INVALID_WORKFLOW_METADATA");
        assertEquals("true", refused.headers().firstValue("Deprecation").orElse(""), "an error answer is deprecated too");
        HttpResponse<String> unknownRun = s.get(BASE + "/runs/wfr_nope", "X-API-Key", key);
        assertEquals(404, unknownRun.statusCode(), unknownRun.body());
        assertEquals("true", unknownRun.headers().firstValue("Deprecation").orElse(""), "a 404 answer is deprecated too");
        expect(s.post(BASE + "/nope/preview", request(twelve, Map.of()), "X-API-Key", key), 404,
                "WORKFLOW_NOT_FOUND");
        expect(s.post(BASE + "/nope/runs", request(twelve, Map.of()), "X-API-Key", key), 404, "WORKFLOW_NOT_FOUND");
        expect(s.post(BASE + "/agent_team/runs", request(List.of(agent("codex")), Map.of("isolation", "docker")),
                "X-API-Key", key), 400, "ISOLATION_UNAVAILABLE");
    }

    @Test
    void aRunCompletesWithEveryNodesOutputPassedToItsDependents() throws Exception {
        HttpResponse<String> started = s.post(BASE + "/agent_team/runs", request(List.of(agent("claude-code"),
                agent("codex")), Map.of("maxParallelAgents", 1)), "X-API-Key", key);
        JsonNode run = expect(started, 202, null);
        assertEquals("true", started.headers().firstValue("Deprecation").orElse(""));
        String id = run.path("id").asText();
        String context = run.path("contextId").asText();
        assertTrue(id.startsWith("wr_") && context.startsWith("ctx_"), run.toString());

        // the snapshot stream: one event at once, then every second, ending with the ended run
        List<JsonNode> snapshots = snapshots(id);
        JsonNode last = snapshots.getLast().path("run");
        assertEquals("completed", last.path("status").asText(), last.toString());

        JsonNode done = await(id);
        assertEquals("completed", done.path("status").asText(), done.toString());
        List<long[]> spans = new ArrayList<>();
        for (JsonNode n : done.path("nodeRuns")) {
            assertEquals("completed", n.path("status").asText(), n.toString());
            String runId = n.path("a2aTaskId").asText();
            JsonNode auto = expect(s.get("/api/automation/runs/" + runId, "X-API-Key", key), 200, null);
            assertEquals("completed", auto.path("status").asText(), auto.toString());
            assertEquals(project, auto.path("projectId").asText());
            assertFalse(n.path("outputText").asText().isBlank(), n.toString());
            assertEquals(auto.path("resultText").asText(), n.path("outputText").asText());
            String prompt = n.path("messages").get(0).path("text").asText();
            assertTrue(prompt.contains(context), "every node shares the context: " + prompt);
            assertTrue(prompt.contains("Build the thing"), prompt);
            for (JsonNode in : n.path("inputs")) {
                JsonNode dep = node(done, in.asText());
                assertTrue(prompt.contains("--- output of " + dep.path("nodeId").asText())
                        && prompt.contains(dep.path("outputText").asText()), "given its input's output: " + prompt);
            }
            assertEquals("agent", n.path("messages").get(1).path("role").asText());
            spans.add(new long[] {java.time.Instant.parse(auto.path("startedAt").asText()).toEpochMilli(),
                    java.time.Instant.parse(auto.path("finishedAt").asText()).toEpochMilli()});
        }
        assertEquals("claude", expect(s.get("/api/automation/runs/" + node(done, "worker-claude-code-1")
                .path("a2aTaskId").asText(), "X-API-Key", key), 200, null).path("agentType").asText());
        // maxParallelAgents 1: no two node runs overlap
        spans.sort((a, b) -> Long.compare(a[0], b[0]));
        for (int i = 1; i < spans.size(); i++) {
            assertTrue(spans.get(i)[0] >= spans.get(i - 1)[1], "node runs overlapped with maxParallelAgents 1");
        }
        // listed for its owner, newest first; another user sees nothing of it
        JsonNode list = expect(s.get(BASE + "/runs?projectId=" + project, "X-API-Key", key), 200, null);
        assertTrue(ids(list.path("runs"), "id").contains(id), list.toString());
        assertEquals(0, expect(s.get(BASE + "/runs", "X-API-Key", bobKey), 200, null).path("runs").size());
        expect(s.get(BASE + "/runs/" + id, "X-API-Key", bobKey), 404, "WORKFLOW_RUN_NOT_FOUND");
        expect(s.post(BASE + "/runs/" + id + "/cancel", Map.of(), "X-API-Key", bobKey), 404,
                "WORKFLOW_RUN_NOT_FOUND");
        // ended: cancel returns it as it is
        assertEquals("completed", expect(s.post(BASE + "/runs/" + id + "/cancel", Map.of(), "X-API-Key", key), 200,
                null).path("status").asText());
    }

    List<JsonNode> snapshots(String runId) throws Exception {
        HttpRequest req = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + s.server.port() + BASE + "/runs/"
                + runId + "/events")).header("X-API-Key", key).timeout(Duration.ofSeconds(120)).GET().build();
        HttpResponse<InputStream> res = HttpClient.newHttpClient().send(req, HttpResponse.BodyHandlers
                .ofInputStream());
        assertEquals(200, res.statusCode());
        List<JsonNode> out = new ArrayList<>();
        try (BufferedReader r = new BufferedReader(new InputStreamReader(res.body(), StandardCharsets.UTF_8))) {
            String event = null;
            for (String line; (line = r.readLine()) != null; ) {
                if (line.startsWith("event:")) {
                    event = line.substring(6).strip();
                } else if (line.startsWith("data:") && "snapshot".equals(event)) {
                    out.add(TestServer.JSON.readTree(line.substring(5).strip()));
                }
            }
        }
        assertFalse(out.isEmpty(), "snapshots");
        return out;
    }

    @Test
    void aFailingNodeAbortsContinuesOrIsRetried() throws Exception {
        // abort (the default): the rest is skipped, the run failed
        JsonNode aborted = await(expect(s.post(BASE + "/agent_team/runs", request(List.of(agent("claude-code"),
                agent("qwen")), Map.of("maxParallelAgents", 1)), "X-API-Key", key), 202, null).path("id").asText());
        assertEquals("failed", aborted.path("status").asText(), aborted.toString());
        assertEquals("failed", node(aborted, "worker-qwen-1").path("status").asText());
        assertEquals("skipped", node(aborted, "final-report").path("status").asText());
        assertEquals("failed", expect(s.get("/api/automation/runs/" + node(aborted, "worker-qwen-1")
                .path("a2aTaskId").asText(), "X-API-Key", key), 200, null).path("status").asText());

        // continue: the final report runs without the failed node's output and the run completes
        JsonNode continued = await(expect(s.post(BASE + "/agent_team/runs", request(List.of(agent("claude-code"),
                agent("qwen", "onFail", "continue")), Map.of()), "X-API-Key", key), 202, null).path("id").asText());
        assertEquals("completed", continued.path("status").asText(), continued.toString());
        assertEquals("failed", node(continued, "worker-qwen-1").path("status").asText());
        JsonNode report = node(continued, "final-report");
        assertEquals("completed", report.path("status").asText());
        assertTrue(report.path("messages").get(0).path("text").asText().contains("this node failed"),
                report.toString());

        // retry: started again maxRetries times, then the run is aborted
        JsonNode retried = await(expect(s.post(BASE + "/agent_team/runs", request(List.of(agent("claude-code"),
                agent("qwen", "onFail", "retry")), Map.of("maxRetries", 2)), "X-API-Key", key), 202, null)
                .path("id").asText());
        assertEquals("failed", retried.path("status").asText(), retried.toString());
        JsonNode q = node(retried, "worker-qwen-1");
        assertEquals(3, q.path("attempts").asInt(), q.toString());
        assertEquals(3, q.path("automationRunIds").size());
        assertEquals(3, new java.util.HashSet<>(texts(q.path("automationRunIds"))).size(), "three distinct runs");
        assertEquals("skipped", node(retried, "final-report").path("status").asText());
    }

    @Test
    @org.junit.jupiter.api.Timeout(180) // the revoked stream below must end; a stream that did not would hang here
    void cancelInFlightCancelsEveryActiveNodeRun() throws Exception {
        JsonNode run = expect(s.post(BASE + "/agent_team/runs", request(List.of(agent("opencode"),
                agent("claude-code")), Map.of()), "X-API-Key", key), 202, null);
        String id = run.path("id").asText();
        String coordinatorRun = null;
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (System.nanoTime() < deadline) {
            JsonNode r = expect(s.get(BASE + "/runs/" + id, "X-API-Key", key), 200, null);
            JsonNode c = node(r, "coordinator");
            if (c.path("status").asText().equals("running")) {
                coordinatorRun = c.path("a2aTaskId").asText();
                if (expect(s.get("/api/automation/runs/" + coordinatorRun, "X-API-Key", key), 200, null)
                        .path("status").asText().equals("running")) {
                    break;
                }
            }
            Thread.sleep(50);
        }
        assertTrue(coordinatorRun != null, "the coordinator started");
        // a snapshot stream opened with a key ends with CREDENTIAL_REVOKED once that key is switched off
        String[] watcher = s.createKey(admin, "watcher", List.of("tasks:read"));
        HttpRequest req = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + s.server.port() + BASE + "/runs/"
                + id + "/events")).header("X-API-Key", watcher[1]).timeout(Duration.ofSeconds(60)).GET().build();
        HttpResponse<InputStream> res = HttpClient.newHttpClient().send(req, HttpResponse.BodyHandlers.ofInputStream());
        assertEquals(200, res.statusCode());
        try (BufferedReader r = new BufferedReader(new InputStreamReader(res.body(), StandardCharsets.UTF_8))) {
            String event = null;
            boolean toggled = false;
            String revoked = null;
            for (String line; (line = r.readLine()) != null; ) {
                if (line.startsWith("event:")) {
                    event = line.substring(6).strip();
                } else if (line.startsWith("data:") && "snapshot".equals(event) && !toggled) {
                    expect(s.send("PATCH", "/api/settings/api-keys/" + watcher[0] + "/toggle",
                            Map.of("is_active", false), bearer(admin)), 200, null);
                    toggled = true;
                } else if (line.startsWith("data:") && "error".equals(event)) {
                    revoked = line.substring(5).strip();
                }
            }
            assertTrue(toggled, "a first snapshot came");
            assertTrue(revoked != null && revoked.contains("CREDENTIAL_REVOKED"), "the stream ended revoked: " + revoked);
        }
        // a tasks:read key may not cancel
        String reader = s.createKey(admin, "reader", List.of("tasks:read"))[1];
        expect(s.post(BASE + "/runs/" + id + "/cancel", Map.of(), "X-API-Key", reader), 403, "INSUFFICIENT_SCOPE");
        JsonNode cancelled = expect(s.post(BASE + "/runs/" + id + "/cancel", Map.of(), "X-API-Key", key), 200, null);
        assertEquals("canceled", cancelled.path("status").asText(), cancelled.toString());
        for (JsonNode n : cancelled.path("nodeRuns")) {
            assertEquals("canceled", n.path("status").asText(), n.toString());
        }
        assertEquals("cancelled", expect(s.get("/api/automation/runs/" + coordinatorRun, "X-API-Key", key), 200,
                null).path("status").asText());
        assertTrue(cancelled.has("finishedAt"));
    }

    @Test
    void worktreeNodesWorkApartAndTheirWorktreesAreRemovedAfterwards() throws Exception {
        Path repo = git.repo(tmp.resolve("wf-repo"), "README.md", "hello\n");
        String head = git.out(repo, "rev-parse", "HEAD").strip();
        String name = s.quickStart(admin, repo);
        Map<String, Object> meta = new LinkedHashMap<>();
        meta.put("projectId", name);
        meta.put("agents", List.of(agent("gemini"), agent("gemini")));
        meta.put("settings", Map.of("isolation", "worktree", "keepWorkspace", false, "maxParallelAgents", 2));
        JsonNode done = await(expect(s.post(BASE + "/agent_team/runs", Map.of("input", "write", "metadata", meta),
                "X-API-Key", key), 202, null).path("id").asText());
        assertEquals("completed", done.path("status").asText(), done.toString());
        assertEquals(4, done.path("nodeRuns").size());
        for (JsonNode n : done.path("nodeRuns")) {
            JsonNode auto = expect(s.get("/api/automation/runs/" + n.path("a2aTaskId").asText(), "X-API-Key", key),
                    200, null);
            assertEquals("worktree", auto.path("isolation").asText(), auto.toString());
            assertEquals("removed", auto.path("worktree").path("state").asText(), auto.toString());
            Path wt = Path.of(auto.path("worktree").path("path").asText());
            assertFalse(Files.exists(wt), "removed afterwards: " + wt);
            String branch = auto.path("worktree").path("branch").asText();
            assertEquals(List.of("gemini-out.txt"), GitCli.lines(git.out(repo, "diff", "--name-only", head, branch)));
            assertEquals("branch " + branch, n.path("artifacts").get(0).path("text").asText(), n.toString());
        }
        assertEquals(head, git.out(repo, "rev-parse", "HEAD").strip());
        assertEquals("", git.out(repo, "status", "--porcelain"));
        assertFalse(Files.exists(repo.resolve("gemini-out.txt")));
        try (var left = Files.list(s.dataDir.resolve("worktrees"))) {
            assertEquals(0, left.count(), "no worktree folder left");
        }
    }
}
