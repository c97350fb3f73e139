package org.agentworkspace.server.agent;

import static org.agentworkspace.server.TestServer.bearer;
import static org.agentworkspace.server.TestServer.expect;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.net.http.HttpClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import com.fasterxml.jackson.databind.JsonNode;

import org.agentworkspace.api.provider.ProviderCredentials;
import org.agentworkspace.core.agent.AgentSettings;
import org.agentworkspace.server.JsonSocketClient;
import org.agentworkspace.server.TestServer;
import org.agentworkspace.testkit.fakecli.FakeClis;
import org.agentworkspace.testkit.git.GitCli;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code isolation: worktree} through the running server with the fake CLIs and real git repositories: each run
 * works in its own worktree outside the project on its own branch, its changes are committed there, the project's
 * tree is untouched until an explicit merge, which refuses conflicts naming the files and leaving the tree clean.
 * claude writes {@code claude-out.txt}, gemini {@code gemini-out.txt} (each after half a second of silence, so
 * concurrent runs overlap).
 */
class WorktreeIsolationTest {
    static final int CAP = 3;
    @TempDir
    static Path tmp;
    static TestServer s;
    static String admin;
    static String key;
    static String bobKey;
    static GitCli git;

    @BeforeAll
    static void start() throws Exception {
        GitCli.assumeAvailable();
        git = new GitCli(tmp.resolve("git-home"));
        Path bin = FakeClis.install(tmp.resolve("bin"));
        Map<String, Map<String, String>> env = new HashMap<>();
        env.put("claude", Map.of("AW_FAKE_WRITE_FILE", "claude-out.txt", "AW_FAKE_SILENCE_MS", "400"));
        env.put("gemini", Map.of("AW_FAKE_WRITE_FILE", "gemini-out.txt", "AW_FAKE_SILENCE_MS", "400"));
        s = TestServer.start(c -> c.withEngine(c.engine().withRuns(c.engine().runs().withLimits(CAP, Map.of())
                        .withAccountLimits(50, CAP)))
                .withAgent(AgentSettings.defaults().withBinaries(Map.of("*", bin)).withProviderEnv(env)
                        .withCredentials(id -> new ProviderCredentials("sk-aw-iso-test", null))));
        admin = s.registerAdmin();
        key = s.createKey(admin, "iso", List.of("tasks:write", "tasks:read"))[1];
        expect(s.post("/api/users", Map.of("username", "bob", "password", "bob-password-1"), bearer(admin)), 201,
                null);
        String bob = s.login("bob", "bob-password-1");
        bobKey = s.createKey(bob, "bob", List.of("tasks:write", "tasks:read"))[1];
    }

    @AfterAll
    static void stop() {
        if (s != null) {
            s.close();
        }
    }

    static Path repo(String name) {
        return git.repo(tmp.resolve(name), "README.md", "hello\n");
    }

    static JsonNode startRun(Path project, String agent, Object... more) {
        Map<String, Object> body = new HashMap<>(Map.of("prompt", "change things", "projectPath", project.toString(),
                "agentType", agent, "isolation", "worktree"));
        for (int i = 0; i < more.length; i += 2) {
            body.put((String) more[i], more[i + 1]);
        }
        return expect(s.post("/api/automation/run", body, "X-API-Key", key), 202, null);
    }

    static JsonNode await(String id) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(90).toNanos();
        while (System.nanoTime() < deadline) {
            JsonNode r = expect(s.get("/api/automation/runs/" + id, "X-API-Key", key), 200, null);
            String wtState = r.path("worktree").path("state").asText();
            if (!List.of("queued", "running").contains(r.path("status").asText())
                    && !List.of("creating", "ready", "running").contains(wtState)) {
                return r;
            }
            Thread.sleep(50);
        }
        throw new AssertionError("run " + id + " did not end");
    }

    static String status(Path project) {
        return git.out(project, "status", "--porcelain");
    }

    @Test
    void aWorktreeRunCommitsOnItsOwnBranchAndLeavesTheProjectUntouched() throws Exception {
        Path project = repo("single");
        String head = git.out(project, "rev-parse", "HEAD").strip();
        JsonNode run = startRun(project, "claude");
        assertEquals("worktree", run.path("isolation").asText(), run.toString());
        Path wt = Path.of(run.path("worktree").path("path").asText());
        assertFalse(wt.startsWith(project), "the worktree lies outside the project: " + wt);
        assertTrue(wt.startsWith(s.dataDir.resolve("worktrees")), wt.toString());
        JsonNode done = await(run.path("id").asText());
        assertEquals("completed", done.path("status").asText(), done.toString());
        String branch = "aw/run-" + run.path("id").asText();
        assertEquals(branch, done.path("worktree").path("branch").asText(), done.toString());
        assertEquals("removed", done.path("worktree").path("state").asText(), done.toString());
        assertFalse(Files.exists(wt), "the worktree folder is removed after the run");
        // the project: same HEAD, no new file, clean
        assertEquals(head, git.out(project, "rev-parse", "HEAD").strip());
        assertFalse(Files.exists(project.resolve("claude-out.txt")));
        assertEquals("", status(project));
        // the branch: one commit on top of the base with the run's file, by the account
        assertEquals(List.of("claude-out.txt"), GitCli.lines(git.out(project, "diff", "--name-only", head, branch)));
        assertEquals("admin", git.out(project, "log", "-1", "--format=%an", branch).strip());
        assertEquals(done.path("worktree").path("headCommit").asText(),
                git.out(project, "rev-parse", branch).strip());
    }

    @Test
    void keepWorktreeKeepsTheFolderAndDiscardDeletesBranchAndFolder() throws Exception {
        Path project = repo("keep");
        JsonNode run = startRun(project, "claude", "keepWorktree", true);
        String id = run.path("id").asText();
        JsonNode done = await(id);
        assertEquals("ended", done.path("worktree").path("state").asText(), done.toString());
        Path wt = Path.of(done.path("worktree").path("path").asText());
        assertTrue(Files.isRegularFile(wt.resolve("claude-out.txt")), "kept on request");
        // someone else may not discard it
        expect(s.post("/api/automation/runs/" + id + "/discard", Map.of(), "X-API-Key", bobKey), 404,
                "RUN_NOT_FOUND");
        JsonNode discarded = expect(s.post("/api/automation/runs/" + id + "/discard", Map.of(), "X-API-Key", key),
                200, null);
        assertEquals("discarded", discarded.path("worktree").path("state").asText(), discarded.toString());
        assertFalse(Files.exists(wt));
        assertEquals("", git.out(project, "branch", "--list", "aw/run-" + id).strip());
        expect(s.post("/api/automation/runs/" + id + "/merge", Map.of(), "X-API-Key", key), 409, "WORKTREE_STATE");
        assertEquals("", status(project));
    }

    @Test
    void mergeBringsTheRunsCommitIntoTheProjectsBranch() throws Exception {
        Path project = repo("merge");
        JsonNode run = startRun(project, "claude");
        String id = run.path("id").asText();
        await(id);
        JsonNode merged = expect(s.post("/api/automation/runs/" + id + "/merge", Map.of(), "X-API-Key", key), 200,
                null);
        assertEquals("main", merged.path("mergedInto").asText(), merged.toString());
        assertEquals("merged", merged.path("worktree").path("state").asText());
        assertEquals("written by the fake claude CLI\n", Files.readString(project.resolve("claude-out.txt")));
        assertEquals("", status(project));
        assertEquals(merged.path("mergeCommit").asText(), git.out(project, "rev-parse", "HEAD").strip());
    }

    @Test
    void aConflictingMergeIsRefusedNamingTheFilesAndTheTreeStaysClean() throws Exception {
        Path project = repo("conflict");
        JsonNode run = startRun(project, "claude");
        String id = run.path("id").asText();
        await(id);
        GitCli.write(project, "claude-out.txt", "the project's own version\n");
        git.out(project, "add", "-A");
        git.out(project, "commit", "-q", "-m", "a competing change");
        String head = git.out(project, "rev-parse", "HEAD").strip();
        JsonNode err = expect(s.post("/api/automation/runs/" + id + "/merge", Map.of(), "X-API-Key", key), 409,
                "MERGE_CONFLICT");
        assertTrue(err.path("error").path("message").asText().contains("claude-out.txt"), err.toString());
        assertEquals(head, git.out(project, "rev-parse", "HEAD").strip());
        assertEquals("", status(project));
        assertEquals("the project's own version\n", Files.readString(project.resolve("claude-out.txt")));
        assertFalse(Files.exists(project.resolve(".git/MERGE_HEAD")));
    }

    @Test
    void aMergeGitRefusesForUncommittedWorkInTheProjectLeavesItAsItWas() throws Exception {
        Path project = repo("dirty-project");
        JsonNode run = startRun(project, "claude");
        String id = run.path("id").asText();
        await(id);
        // the user's own uncommitted file where the run's file would land: merge-tree sees no conflict, git refuses
        GitCli.write(project, "claude-out.txt", "mine, not committed\n");
        String head = git.out(project, "rev-parse", "HEAD").strip();
        expect(s.post("/api/automation/runs/" + id + "/merge", Map.of(), "X-API-Key", key), 409, "MERGE_CONFLICT");
        assertEquals(head, git.out(project, "rev-parse", "HEAD").strip());
        assertEquals("mine, not committed\n", Files.readString(project.resolve("claude-out.txt")));
        assertEquals("?? claude-out.txt", status(project).strip());
        // once the user moved it away the merge goes through
        Files.delete(project.resolve("claude-out.txt"));
        expect(s.post("/api/automation/runs/" + id + "/merge", Map.of(), "X-API-Key", key), 200, null);
        assertEquals("", status(project));
    }

    @Test
    void notARepositoryAndDockerAndUnknownIsolationAre400() throws Exception {
        Path plain = Files.createDirectories(tmp.resolve("plain"));
        Map<String, Object> body = new HashMap<>(Map.of("prompt", "x", "projectPath", plain.toString(),
                "isolation", "worktree"));
        expect(s.post("/api/automation/run", body, "X-API-Key", key), 400, "WORKTREE_NEEDS_GIT_REPOSITORY");
        body.put("isolation", "docker");
        expect(s.post("/api/automation/run", body, "X-API-Key", key), 400, "ISOLATION_UNAVAILABLE");
        body.put("isolation", "vm");
        expect(s.post("/api/automation/run", body, "X-API-Key", key), 400, null);
        body.put("isolation", "host");
        body.put("sneaky", true);
        expect(s.post("/api/automation/run", body, "X-API-Key", key), 400, null);
        Path project = repo("host-merge");
        JsonNode host = expect(s.post("/api/automation/run", Map.of("prompt", "x", "projectPath",
                project.toString(), "agentType", "gemini"), "X-API-Key", key), 202, null);
        assertEquals("host", host.path("isolation").asText());
        await(host.path("id").asText());
        assertTrue(Files.exists(project.resolve("gemini-out.txt")), "host runs still work in the project");
        expect(s.post("/api/automation/runs/" + host.path("id").asText() + "/merge", Map.of(), "X-API-Key", key),
                404, "WORKTREE_NOT_FOUND");
    }

    @Test
    void twoThenEightRunsInOneProjectStayApartAndTheCapHolds() throws Exception {
        for (int n : new int[] {2, 8}) {
            Path project = repo("parallel-" + n);
            String head = git.out(project, "rev-parse", "HEAD").strip();
            AtomicBoolean polling = new AtomicBoolean(true);
            AtomicInteger maxRunning = new AtomicInteger();
            Thread poller = Thread.ofVirtual().start(() -> {
                while (polling.get()) {
                    JsonNode list = expect(s.get("/api/automation/runs?status=running&limit=200", "X-API-Key", key),
                            200, null);
                    maxRunning.accumulateAndGet(list.size(), Math::max);
                    try {
                        Thread.sleep(20);
                    } catch (InterruptedException e) {
                        return;
                    }
                }
            });
            List<String> ids = new ArrayList<>();
            List<String> agents = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                String agent = i % 2 == 0 ? "claude" : "gemini";
                ids.add(startRun(project, agent).path("id").asText());
                agents.add(agent);
            }
            for (int i = 0; i < n; i++) {
                JsonNode done = await(ids.get(i));
                assertEquals("completed", done.path("status").asText(), done.toString());
                String branch = done.path("worktree").path("branch").asText();
                assertEquals("aw/run-" + ids.get(i), branch);
                // exactly its own file on its own branch: nothing of the runs beside it
                assertEquals(List.of(agents.get(i) + "-out.txt"),
                        GitCli.lines(git.out(project, "diff", "--name-only", head, branch)), branch);
                assertFalse(Files.exists(Path.of(done.path("worktree").path("path").asText())));
            }
            polling.set(false);
            poller.join();
            assertTrue(maxRunning.get() <= CAP, "at most " + CAP + " at once, saw " + maxRunning.get());
            assertEquals(head, git.out(project, "rev-parse", "HEAD").strip());
            assertEquals("", status(project));
            assertEquals(n, GitCli.lines(git.out(project, "branch", "--list", "aw/run-*")).size());
        }
    }

    /** Asserts what a finished worktree run left: its own file on its own branch, folder gone, project untouched. */
    static void leftOnItsBranchOnly(Path project, String head, JsonNode done, String file) {
        assertEquals("completed", done.path("status").asText(), done.toString());
        assertEquals("worktree", done.path("isolation").asText(), done.toString());
        String branch = "aw/run-" + done.path("id").asText();
        assertEquals(branch, done.path("worktree").path("branch").asText(), done.toString());
        assertEquals("removed", done.path("worktree").path("state").asText(), done.toString());
        assertFalse(Files.exists(Path.of(done.path("worktree").path("path").asText())));
        assertEquals(List.of(file), GitCli.lines(git.out(project, "diff", "--name-only", head, branch)));
        assertEquals(head, git.out(project, "rev-parse", "HEAD").strip());
        assertFalse(Files.exists(project.resolve(file)), "the project's tree is not touched");
        assertEquals("", status(project));
    }

    @Test
    void aTaskStoresItsIsolationAndEveryRunItFiresUsesIt() throws Exception {
        Path project = repo("task-project");
        String head = git.out(project, "rev-parse", "HEAD").strip();
        String name = s.quickStart(admin, project);
        Map<String, Object> body = new HashMap<>(Map.of("prompt", "change things", "projectId", name,
                "schedule", Map.of("kind", "once", "at", java.time.Instant.now().plusSeconds(3600).toString()),
                "isolation", "worktree"));
        // the run route's rule: docker needs an image, unknown values are refused, so are unknown fields
        body.put("isolation", "docker");
        expect(s.post("/api/automation/tasks", body, "X-API-Key", key), 400, "ISOLATION_UNAVAILABLE");
        body.put("isolation", "vm");
        expect(s.post("/api/automation/tasks", body, "X-API-Key", key), 400, null);
        body.put("isolation", "host");
        JsonNode hostTask = expect(s.post("/api/automation/tasks", body, "X-API-Key", key), 201, null);
        assertEquals("host", hostTask.path("isolation").asText(), hostTask.toString());
        expect(s.send("PATCH", "/api/automation/tasks/" + hostTask.path("id").asText(), Map.of("isolation", "docker"),
                "X-API-Key", key), 400, "ISOLATION_UNAVAILABLE");
        // a worktree task in a folder that is not a git repository is refused at once, not failed at every firing
        Path plain = Files.createDirectories(tmp.resolve("plain-task"));
        String plainName = s.quickStart(admin, plain);
        Map<String, Object> plainBody = new HashMap<>(body);
        plainBody.put("projectId", plainName);
        plainBody.put("isolation", "worktree");
        expect(s.post("/api/automation/tasks", plainBody, "X-API-Key", key), 400, "WORKTREE_NEEDS_GIT_REPOSITORY");
        plainBody.put("isolation", "host");
        String plainTask = expect(s.post("/api/automation/tasks", plainBody, "X-API-Key", key), 201, null)
                .path("id").asText();
        expect(s.send("PATCH", "/api/automation/tasks/" + plainTask, Map.of("isolation", "worktree"), "X-API-Key",
                key), 400, "WORKTREE_NEEDS_GIT_REPOSITORY");
        expect(s.delete("/api/automation/tasks/" + plainTask, null, "X-API-Key", key), 200, null);
        // a worktree task: changed by PATCH to fire now, it runs in its own worktree
        body.put("isolation", "worktree");
        JsonNode t = expect(s.post("/api/automation/tasks", body, "X-API-Key", key), 201, null);
        assertEquals("worktree", t.path("isolation").asText(), t.toString());
        String id = t.path("id").asText();
        JsonNode changed = expect(s.send("PATCH", "/api/automation/tasks/" + id, Map.of("schedule", Map.of("kind", "once",
                "at", java.time.Instant.now().toString())), "X-API-Key", key), 200, null);
        assertEquals("worktree", changed.path("isolation").asText(), "kept across an update");
        String runId = null;
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (runId == null && System.nanoTime() < deadline) {
            JsonNode runs = expect(s.get("/api/automation/runs?taskId=" + id, "X-API-Key", key), 200, null);
            if (runs.size() > 0) {
                runId = runs.get(0).path("id").asText();
            } else {
                Thread.sleep(100);
            }
        }
        assertTrue(runId != null, "the task fired");
        leftOnItsBranchOnly(project, head, await(runId), "claude-out.txt");
        expect(s.delete("/api/automation/tasks/" + hostTask.path("id").asText(), null, "X-API-Key", key), 200, null);
    }

    @Test
    void aWsTurnWithIsolationWorktreeRunsInItsOwnWorktree() throws Exception {
        Path project = repo("ws-project");
        String head = git.out(project, "rev-parse", "HEAD").strip();
        String name = s.quickStart(admin, project);
        JsonSocketClient c = new JsonSocketClient();
        c.ws = HttpClient.newHttpClient().newWebSocketBuilder().header("X-API-Key", key)
                .buildAsync(URI.create("ws://127.0.0.1:" + s.server.port() + "/ws"), c).get(10, TimeUnit.SECONDS);
        try {
            c.send(Map.of("type", "turn", "provider", "gemini", "message", "change things", "projectName", name,
                    "isolation", "docker", "clientRequestId", "d"));
            assertEquals("ISOLATION_UNAVAILABLE", frame(c, "error").path("error").path("code").asText());
            c.send(Map.of("type", "turn", "provider", "gemini", "message", "change things", "sessionId", "s-1",
                    "isolation", "worktree", "clientRequestId", "s"));
            assertEquals("INVALID_MESSAGE", frame(c, "error").path("error").path("code").asText());
            c.send(Map.of("type", "turn", "provider", "gemini", "message", "change things", "projectName", name,
                    "isolation", "worktree", "clientRequestId", "w"));
            String runId = frame(c, "subscribed").path("runId").asText();
            leftOnItsBranchOnly(project, head, await(runId), "gemini-out.txt");
        } finally {
            c.ws.abort();
        }
    }

    /** The next frame of {@code type}, skipping others (heartbeats). */
    static JsonNode frame(JsonSocketClient c, String type) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (System.nanoTime() < deadline) {
            JsonNode m = c.messages.poll(1, TimeUnit.SECONDS);
            if (m != null && m.path("type").asText().equals(type)) {
                return m;
            }
            assertFalse(m != null && !type.equals("error") && m.path("type").asText().equals("error"),
                    String.valueOf(m));
        }
        throw new AssertionError("no " + type + " frame");
    }
}
