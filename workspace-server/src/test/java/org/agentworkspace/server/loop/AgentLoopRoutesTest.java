package org.agentworkspace.server.loop;

import static org.agentworkspace.server.TestServer.bearer;
import static org.agentworkspace.server.TestServer.expect;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

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
 * The production agent loop through the running server, with real git repositories, the fake CLIs and the store in
 * a temporary folder: access rules; background jobs listed and cancelled; checkpoints recorded on private refs
 * without touching index, HEAD or files, restored with the lose-changes rule, deleted; unattended runs that change
 * files entering the review queue with their changes, approved or rejected (and reverted); the release policy
 * validated and stored.
 */
class AgentLoopRoutesTest {
    static final String BASE = "/api/production-agent-loop";
    @TempDir
    static Path tmp;
    static TestServer s;
    static String admin;
    static GitCli git;

    static Path bin;

    static java.util.function.UnaryOperator<org.agentworkspace.server.ServerConfig> config() {
        Map<String, Map<String, String>> env = new HashMap<>();
        // qwen streams for a long time (a run to cancel); claude writes a file into its project like a tool would
        env.put("qwen", Map.of("AW_FAKE_EVENTS", "100000", "AW_FAKE_DELAY_MS", "100"));
        env.put("claude", Map.of("AW_FAKE_WRITE_FILE", "agent-output.txt"));
        // gemini writes its argv down: the CI repair prompt it was given
        env.put("gemini", Map.of("AW_FAKE_ARGS_FILE", tmp.resolve("gemini-args.txt").toString()));
        return c -> c.withEngine(c.engine().withRuns(c.engine().runs().withKillGrace(Duration.ofMillis(200))))
                .withAgent(AgentSettings.defaults().withBinaries(Map.of("*", bin)).withProviderEnv(env)
                        .withCredentials(id -> new ProviderCredentials("sk-aw-loop-test", null)));
    }

    @BeforeAll
    static void start() throws Exception {
        GitCli.assumeAvailable();
        bin = FakeClis.install(tmp.resolve("bin"));
        s = TestServer.start(config());
        admin = s.registerAdmin();
        git = new GitCli(tmp.resolve("git-home"));
    }

    @AfterAll
    static void stop() {
        if (s != null) {
            s.close();
        }
    }

    static String[] auth() {
        return bearer(admin);
    }

    /** A fresh git repository with one commit, registered as a project; returns {name, path}. */
    static String[] repo(String name) {
        Path dir = git.repo(tmp.resolve(name), "a.txt", "one\n", "dir/b.txt", "bee\n", ".gitignore", "*.log\n");
        return new String[] {s.quickStart(admin, dir), dir.toString()};
    }

    static final org.agentworkspace.testkit.contract.OpenApiContract DOC =
            org.agentworkspace.testkit.contract.OpenApiContract.bundled();

    /** {@link TestServer#expect}, and the answer must conform to docs/openapi.yaml. */
    static JsonNode conform(String method, String path, java.net.http.HttpResponse<String> res, int status) {
        JsonNode body = expect(res, status, null);
        List<String> violations = DOC.validateResponse(method, path, res.statusCode(), res.headers().map(),
                res.body());
        assertEquals(List.of(), violations, method + " " + path + " does not conform: " + res.body());
        return body;
    }

    static JsonNode await(String path, Predicate<JsonNode> done) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        JsonNode last = null;
        while (System.nanoTime() < deadline) {
            last = expect(s.get(path, auth()), 200, null);
            if (done.test(last)) {
                return last;
            }
            Thread.sleep(50);
        }
        throw new AssertionError(path + " never reached the expected state: " + last);
    }

    // ------------------------------------------------------------------ access

    @Test
    void everyRouteIsForAdministratorsWithTheOrchestrationScopes() {
        expect(s.get(BASE + "/jobs"), 401, "AUTH_REQUIRED");
        expect(s.get(BASE + "/review-queue"), 401, "AUTH_REQUIRED");
        String tasksKey = s.createKey(admin, "tasks-only", List.of("tasks:read", "tasks:write"))[1];
        expect(s.get(BASE + "/jobs", "X-API-Key", tasksKey), 403, "INSUFFICIENT_SCOPE");
        expect(s.get(BASE + "/release-policy", "X-API-Key", tasksKey), 403, "INSUFFICIENT_SCOPE");
        String readKey = s.createKey(admin, "loop-read", List.of("orchestration:read"))[1];
        expect(s.get(BASE + "/review-queue", "X-API-Key", readKey), 200, null);
        expect(s.get(BASE + "/release-policy", "X-API-Key", readKey), 200, null);
        expect(s.put(BASE + "/release-policy", Map.of("channel", "beta", "autoUpdate", true), "X-API-Key", readKey),
                403, "INSUFFICIENT_SCOPE");
        expect(s.post(BASE + "/jobs/history-index/cancel", null, "X-API-Key", readKey), 403, "INSUFFICIENT_SCOPE");
        // orchestration:write alone does not start an agent run nor rewrite a project's files
        String loopKey = s.createKey(admin, "loop-write", List.of("orchestration:read", "orchestration:write"))[1];
        JsonNode refused = expect(s.post(BASE + "/ci-repair-plans", Map.of("projectId", "any", "ciLog", "error"),
                "X-API-Key", loopKey), 403, "INSUFFICIENT_SCOPE");
        assertTrue(refused.path("error").path("message").asText().contains("tasks:write"), refused.toString());
        expect(s.post(BASE + "/checkpoints/cp_000000000000/restore", Map.of("projectId", "any"), "X-API-Key",
                loopKey), 403, "INSUFFICIENT_SCOPE");
        expect(s.post(BASE + "/review-queue/run_none/reject", Map.of("revert", true), "X-API-Key", loopKey), 403,
                "INSUFFICIENT_SCOPE");
        expect(s.post(BASE + "/review-queue/run_none/reject", Map.of(), "X-API-Key", loopKey), 404,
                "REVIEW_ITEM_NOT_FOUND");

        expect(s.post("/api/users", Map.of("username", "plain", "password", "plain-password-1"), auth()), 201, null);
        String plain = s.login("plain", "plain-password-1");
        expect(s.get(BASE + "/jobs", bearer(plain)), 403, "ADMIN_REQUIRED");
        expect(s.get(BASE + "/review-queue", bearer(plain)), 403, "ADMIN_REQUIRED");
        String plainKey = s.createKey(plain, "plain-loop", List.of("orchestration:read", "orchestration:write"))[1];
        expect(s.get(BASE + "/release-policy", "X-API-Key", plainKey), 403, "ADMIN_REQUIRED");
    }

    // ------------------------------------------------------------------ jobs

    @Test
    void runsAreListedAsJobsAndCancelledThroughTheLoop() throws Exception {
        String[] p = repo("jobs-project");
        JsonNode run = expect(s.post("/api/automation/run", Map.of("prompt", "stream for a while", "agentType",
                "qwen", "projectId", p[0]), auth()), 202, null);
        String runId = run.path("runId").asText(run.path("id").asText());
        assertTrue(runId.startsWith("run_"), run.toString());
        await(BASE + "/jobs", j -> find(j.path("jobs"), runId) != null
                && find(j.path("jobs"), runId).path("status").asText().equals("running"));
        JsonNode jobs = conform("GET", BASE + "/jobs", s.get(BASE + "/jobs", auth()), 200);
        JsonNode job = find(jobs.path("jobs"), runId);
        assertEquals("run", job.path("kind").asText());
        assertTrue(job.path("cancellable").asBoolean());
        assertEquals("qwen", job.path("details").path("provider").asText());
        assertEquals("automation", job.path("details").path("route").asText());
        assertEquals(p[0], job.path("details").path("projectId").asText());
        JsonNode index = find(jobs.path("jobs"), "history-index");
        assertNotNull(index, "the history index is always listed: " + jobs);
        assertFalse(index.path("cancellable").asBoolean());
        assertEquals("running", jobs.path("jobs").get(0).path("status").asText(), "running jobs come first");

        JsonNode cancelled = conform("POST", BASE + "/jobs/" + runId + "/cancel", s.post(BASE + "/jobs/" + runId
                + "/cancel", null, auth()), 200);
        assertEquals("cancelled", cancelled.path("status").asText(), cancelled.toString());
        assertFalse(cancelled.path("cancellable").asBoolean());
        JsonNode after = expect(s.get("/api/automation/runs/" + runId, auth()), 200, null);
        assertEquals("cancelled", after.path("status").asText(), after.toString());
        assertEquals(null, find(expect(s.get(BASE + "/jobs", auth()), 200, null).path("jobs"), runId),
                "an ended run is no longer a background job");
        // cancelling again returns it unchanged
        assertEquals("cancelled", expect(s.post(BASE + "/jobs/" + runId + "/cancel", null, auth()), 200, null)
                .path("status").asText());
        expect(s.post(BASE + "/jobs/history-index/cancel", null, auth()), 409, "BACKGROUND_JOB_NOT_CANCELLABLE");
        expect(s.post(BASE + "/jobs/run_nosuchrun/cancel", null, auth()), 404, "BACKGROUND_JOB_NOT_FOUND");
        expect(s.post(BASE + "/jobs/whatever/cancel", null, auth()), 404, "BACKGROUND_JOB_NOT_FOUND");
    }

    @Test
    void withTheHistoryIndexOffTheJobSaysOff() {
        try (TestServer off = TestServer.start(c -> c.withEngine(c.engine().withHistoryIndex(false)))) {
            String token = off.registerAdmin();
            JsonNode status = expect(off.get("/api/history/index", bearer(token)), 200, null);
            assertEquals("off", status.path("state").asText(), status.toString());
            var res = off.get(BASE + "/jobs", bearer(token));
            JsonNode jobs = expect(res, 200, null);
            assertEquals(List.of(), DOC.validateResponse("GET", BASE + "/jobs", res.statusCode(),
                    res.headers().map(), res.body()), res.body());
            JsonNode index = find(jobs.path("jobs"), "history-index");
            assertNotNull(index, jobs.toString());
            assertEquals("off", index.path("status").asText(), index.toString());
            assertTrue(index.path("progress").isNull(), index.toString());
        }
    }

    static JsonNode find(JsonNode array, String id) {
        for (JsonNode n : array) {
            if (n.path("id").asText().equals(id)) {
                return n;
            }
        }
        return null;
    }

    // ------------------------------------------------------------------ checkpoints

    @Test
    void aCheckpointRecordsTheWorkingTreeWithoutTouchingIndexHeadOrFiles() throws Exception {
        String[] p = repo("cp-project");
        Path dir = Path.of(p[1]);
        String head = git.out(dir, "rev-parse", "HEAD").strip();
        Files.writeString(dir.resolve("a.txt"), "one\nchanged\n");
        Files.writeString(dir.resolve("new.txt"), "untracked\n");
        Files.writeString(dir.resolve("debug.log"), "ignored\n");
        git.out(dir, "add", "a.txt");
        Files.writeString(dir.resolve("a.txt"), "one\nchanged again\n");
        String statusBefore = git.out(dir, "status", "--porcelain");
        String indexBefore = git.out(dir, "ls-files", "-s");

        JsonNode cp = expect(s.post(BASE + "/checkpoints", Map.of("projectId", p[0], "label", "before refactor"),
                auth()), 201, null);
        String id = cp.path("id").asText();
        assertTrue(id.matches("cp_[0-9a-z]{12}"), cp.toString());
        assertEquals("refs/agent-workspace/checkpoints/" + id, cp.path("ref").asText());
        assertEquals("before refactor", cp.path("label").asText());
        assertEquals(TestServer.ADMIN, cp.path("createdBy").asText());
        assertEquals(p[0], cp.path("projectId").asText());
        // nothing the user sees changed
        assertEquals(head, git.out(dir, "rev-parse", "HEAD").strip());
        assertEquals(statusBefore, git.out(dir, "status", "--porcelain"));
        assertEquals(indexBefore, git.out(dir, "ls-files", "-s"));
        // the commit holds the working tree: tracked (with the unstaged change) and untracked, not ignored files
        String ref = cp.path("ref").asText();
        assertEquals(cp.path("commit").asText(), git.out(dir, "rev-parse", ref).strip());
        assertEquals(head, git.out(dir, "rev-parse", ref + "^").strip(), "its parent is HEAD");
        assertEquals(List.of(".gitignore", "a.txt", "dir/b.txt", "new.txt"),
                GitCli.lines(git.out(dir, "ls-tree", "-r", "--name-only", ref)));
        assertEquals("one\nchanged again\n", git.out(dir, "show", ref + ":a.txt"));

        JsonNode list = expect(s.get(BASE + "/checkpoints?projectId=" + p[0], auth()), 200, null);
        assertEquals(1, list.path("checkpoints").size());
        assertEquals(id, list.path("checkpoints").get(0).path("id").asText());
        assertEquals(id, expect(s.get(BASE + "/checkpoints/" + id + "?projectId=" + p[0], auth()), 200, null)
                .path("id").asText());

        // changes after the checkpoint: restoring would lose them, so it is refused without force
        Files.writeString(dir.resolve("a.txt"), "three\n");
        Files.writeString(dir.resolve("later.txt"), "later\n");
        Files.delete(dir.resolve("dir/b.txt"));
        expect(s.post(BASE + "/checkpoints/" + id + "/restore", Map.of("projectId", p[0]), auth()), 409,
                "WOULD_LOSE_CHANGES");
        assertEquals("three\n", Files.readString(dir.resolve("a.txt")), "a refused restore changes nothing");

        // a second checkpoint keeps the later state: now nothing is lost and the restore goes through
        JsonNode cp2 = expect(s.post(BASE + "/checkpoints", Map.of("projectName", p[0]), auth()), 201, null);
        assertTrue(cp2.path("label").isNull());
        JsonNode restored = conform("POST", BASE + "/checkpoints/" + id + "/restore", s.post(BASE + "/checkpoints/"
                + id + "/restore", Map.of("projectId", p[0]), auth()), 200);
        assertTrue(restored.path("success").asBoolean());
        assertFalse(restored.path("forced").asBoolean());
        assertEquals("one\nchanged again\n", Files.readString(dir.resolve("a.txt")));
        assertEquals("untracked\n", Files.readString(dir.resolve("new.txt")));
        assertEquals("bee\n", Files.readString(dir.resolve("dir/b.txt")));
        assertFalse(Files.exists(dir.resolve("later.txt")), "a file the checkpoint lacks is removed");
        assertEquals("ignored\n", Files.readString(dir.resolve("debug.log")), "ignored files stay");
        assertEquals(head, git.out(dir, "rev-parse", "HEAD").strip());
        assertEquals(indexBefore, git.out(dir, "ls-files", "-s"), "the index is untouched");
        assertEquals(2, restored.path("written").asInt(), restored.toString());
        assertEquals(1, restored.path("deleted").asInt(), restored.toString());

        // unsaved changes again, then force
        Files.writeString(dir.resolve("a.txt"), "unsaved\n");
        expect(s.post(BASE + "/checkpoints/" + cp2.path("id").asText() + "/restore", Map.of("projectId", p[0]),
                auth()), 409, "WOULD_LOSE_CHANGES");
        JsonNode forced = expect(s.post(BASE + "/checkpoints/" + cp2.path("id").asText() + "/restore",
                Map.of("projectId", p[0], "force", true), auth()), 200, null);
        assertTrue(forced.path("forced").asBoolean());
        assertEquals("three\n", Files.readString(dir.resolve("a.txt")));
        assertTrue(Files.exists(dir.resolve("later.txt")));

        // list newest first, delete removes the ref
        JsonNode both = expect(s.get(BASE + "/checkpoints?projectId=" + p[0], auth()), 200, null);
        assertEquals(2, both.path("checkpoints").size());
        expect(s.delete(BASE + "/checkpoints/" + id + "?projectId=" + p[0], null, auth()), 200, null);
        assertEquals(1, git.run(dir, "rev-parse", "--verify", "-q", ref).exit(), "the ref is gone");
        expect(s.delete(BASE + "/checkpoints/" + id + "?projectId=" + p[0], null, auth()), 404,
                "CHECKPOINT_NOT_FOUND");
        expect(s.post(BASE + "/checkpoints/" + id + "/restore", Map.of("projectId", p[0]), auth()), 404,
                "CHECKPOINT_NOT_FOUND");
        assertEquals(1, expect(s.get(BASE + "/checkpoints?projectId=" + p[0], auth()), 200, null)
                .path("checkpoints").size());
    }

    @Test
    void checkpointRequestsAreValidated() throws Exception {
        String[] p = repo("cp-invalid");
        expect(s.post(BASE + "/checkpoints", Map.of(), auth()), 400, "VALIDATION_FAILED");
        expect(s.post(BASE + "/checkpoints", Map.of("projectId", p[0], "lable", "typo"), auth()), 400,
                "VALIDATION_FAILED");
        expect(s.post(BASE + "/checkpoints", Map.of("projectId", p[0], "label", "x".repeat(201)), auth()), 400,
                "VALIDATION_FAILED");
        expect(s.post(BASE + "/checkpoints", Map.of("projectId", p[0], "label", "two\nlines"), auth()), 400,
                "VALIDATION_FAILED");
        expect(s.post(BASE + "/checkpoints", Map.of("projectId", "no-such-project"), auth()), 404,
                "PROJECT_NOT_FOUND");
        expect(s.get(BASE + "/checkpoints", auth()), 400, "VALIDATION_FAILED");
        expect(s.get(BASE + "/checkpoints/cp_000000000000?projectId=" + p[0], auth()), 404, "CHECKPOINT_NOT_FOUND");
        // only checkpoint ids name refs: a branch name or HEAD is no checkpoint
        expect(s.get(BASE + "/checkpoints/main?projectId=" + p[0], auth()), 404, "CHECKPOINT_NOT_FOUND");
        expect(s.delete(BASE + "/checkpoints/HEAD?projectId=" + p[0], null, auth()), 404, "CHECKPOINT_NOT_FOUND");
        Path plain = Files.createDirectories(tmp.resolve("not-git"));
        String notGit = s.quickStart(admin, plain);
        expect(s.post(BASE + "/checkpoints", Map.of("projectId", notGit), auth()), 409, "NOT_A_GIT_REPOSITORY");
        // a repository without commits: the checkpoint has no parent and restores all the same
        Path empty = tmp.resolve("empty-repo");
        git.repo(empty);
        Files.writeString(empty.resolve("first.txt"), "first\n");
        String emptyName = s.quickStart(admin, empty);
        JsonNode cp = expect(s.post(BASE + "/checkpoints", Map.of("projectId", emptyName), auth()), 201, null);
        Files.writeString(empty.resolve("first.txt"), "changed\n");
        expect(s.post(BASE + "/checkpoints/" + cp.path("id").asText() + "/restore", Map.of("projectId", emptyName,
                "force", true), auth()), 200, null);
        assertEquals("first\n", Files.readString(empty.resolve("first.txt")));
    }

    @Test
    void onlyCheckpointsTheServiceMadeAreOfferedAndOnlyWhileTheirRefsAreUntouched() throws Exception {
        String[] p = repo("forge-project");
        Path dir = Path.of(p[1]);
        // a ref written in the repository (by a run, say) is no checkpoint of the service
        git.out(dir, "update-ref", "refs/agent-workspace/checkpoints/cp_forged000000", "HEAD");
        JsonNode listed = expect(s.get(BASE + "/checkpoints?projectId=" + p[0], auth()), 200, null);
        assertEquals(0, listed.path("checkpoints").size(), listed.toString());
        expect(s.get(BASE + "/checkpoints/cp_forged000000?projectId=" + p[0], auth()), 404, "CHECKPOINT_NOT_FOUND");
        expect(s.post(BASE + "/checkpoints/cp_forged000000/restore", Map.of("projectId", p[0], "force", true),
                auth()), 404, "CHECKPOINT_NOT_FOUND");
        // a real one is offered until its ref is moved
        JsonNode cp = expect(s.post(BASE + "/checkpoints", Map.of("projectId", p[0], "label", "real"), auth()), 201,
                null);
        String id = cp.path("id").asText();
        assertEquals(1, expect(s.get(BASE + "/checkpoints?projectId=" + p[0], auth()), 200, null)
                .path("checkpoints").size());
        Files.writeString(dir.resolve("a.txt"), "moved\n");
        git.out(dir, "commit", "-qam", "elsewhere");
        git.out(dir, "update-ref", "refs/agent-workspace/checkpoints/" + id, "HEAD");
        assertEquals(0, expect(s.get(BASE + "/checkpoints?projectId=" + p[0], auth()), 200, null)
                .path("checkpoints").size());
        expect(s.post(BASE + "/checkpoints/" + id + "/restore", Map.of("projectId", p[0], "force", true), auth()),
                404, "CHECKPOINT_NOT_FOUND");
        // a forged ref whose tree equals the working tree does not make unsaved changes safe to overwrite
        JsonNode second = expect(s.post(BASE + "/checkpoints", Map.of("projectId", p[0]), auth()), 201, null);
        Files.writeString(dir.resolve("a.txt"), "unsaved\n");
        git.out(dir, "add", "-A");
        String tree = git.out(dir, "write-tree").strip();
        git.out(dir, "reset", "-q");
        String forged = git.out(dir, "commit-tree", tree, "-m", "forged").strip();
        git.out(dir, "update-ref", "refs/agent-workspace/runs/run_forged/before", forged);
        expect(s.post(BASE + "/checkpoints/" + second.path("id").asText() + "/restore", Map.of("projectId", p[0]),
                auth()), 409, "WOULD_LOSE_CHANGES");
        assertEquals("unsaved\n", Files.readString(dir.resolve("a.txt")));
    }

    // ------------------------------------------------------------------ review queue

    @Test
    void anUnattendedRunThatChangesFilesWaitsForADecision() throws Exception {
        String[] p = repo("review-project");
        Path dir = Path.of(p[1]);
        String head = git.out(dir, "rev-parse", "HEAD").strip();
        String first = runAndWait(p[0]);
        JsonNode queue = await(BASE + "/review-queue?status=pending", q -> find(q.path("items"), first) != null);
        JsonNode item = find(queue.path("items"), first);
        assertEquals("pending", item.path("status").asText());
        assertEquals(p[0], item.path("projectId").asText());
        assertEquals("claude", item.path("agentType").asText());
        assertEquals("automation", item.path("route").asText());
        assertEquals("completed", item.path("runStatus").asText());
        assertEquals(1, item.path("summary").path("added").asInt(), item.toString());
        assertEquals(0, item.path("summary").path("modified").asInt());
        assertEquals(0, item.path("summary").path("deleted").asInt());
        assertTrue(queue.path("pending").asInt() >= 1);
        conform("GET", BASE + "/review-queue", s.get(BASE + "/review-queue", auth()), 200);
        JsonNode detail = conform("GET", BASE + "/review-queue/" + first, s.get(BASE + "/review-queue/" + first,
                auth()), 200);
        assertEquals(1, detail.path("changes").size(), detail.toString());
        assertEquals("agent-output.txt", detail.path("changes").get(0).path("path").asText());
        assertEquals("added", detail.path("changes").get(0).path("change").asText());
        assertTrue(detail.path("changes").get(0).path("insertions").asInt() >= 1, detail.toString());
        assertEquals(0, detail.path("changes").get(0).path("deletions").asInt());
        JsonNode diff = conform("GET", BASE + "/review-queue/" + first + "/diff", s.get(BASE + "/review-queue/"
                + first + "/diff", auth()), 200);
        assertTrue(diff.path("diff").asText().startsWith("diff --git a/agent-output.txt b/agent-output.txt\nnew file"),
                diff.toString());
        assertEquals(git.out(dir, "diff", "--no-renames", "--no-ext-diff", "--abbrev=7",
                "refs/agent-workspace/runs/" + first + "/before", "refs/agent-workspace/runs/" + first + "/after"),
                diff.path("diff").asText(), "the diff equals git's");
        assertFalse(detail.path("changesTruncated").asBoolean());
        assertEquals(head, git.out(dir, "rev-parse", "HEAD").strip(), "recording a run changes no branch");

        // reject with revert: the file the run wrote goes away
        assertTrue(Files.exists(dir.resolve("agent-output.txt")));
        JsonNode rejected = conform("POST", BASE + "/review-queue/" + first + "/reject", s.post(BASE
                + "/review-queue/" + first + "/reject", Map.of("note", "not wanted", "revert", true), auth()), 200);
        assertEquals("rejected", rejected.path("status").asText());
        assertEquals("not wanted", rejected.path("note").asText());
        assertEquals(TestServer.ADMIN, rejected.path("decidedBy").asText());
        assertEquals(1, rejected.path("reverted").path("deleted").asInt(), rejected.toString());
        assertFalse(Files.exists(dir.resolve("agent-output.txt")));
        expect(s.post(BASE + "/review-queue/" + first + "/approve", Map.of(), auth()), 409,
                "REVIEW_ALREADY_DECIDED");

        // a second run: approve keeps its files
        String second = runAndWait(p[0]);
        await(BASE + "/review-queue", q -> find(q.path("items"), second) != null);
        JsonNode approved = expect(s.post(BASE + "/review-queue/" + second + "/approve", Map.of("note", "fine"),
                auth()), 200, null);
        assertEquals("approved", approved.path("status").asText());
        assertTrue(Files.exists(dir.resolve("agent-output.txt")));
        expect(s.post(BASE + "/review-queue/" + second + "/reject", Map.of(), auth()), 409,
                "REVIEW_ALREADY_DECIDED");

        // a third run writes the same file again: no change, so no item
        String third = runAndWait(p[0]);
        Thread.sleep(500);
        JsonNode all = expect(s.get(BASE + "/review-queue", auth()), 200, null);
        assertEquals(null, find(all.path("items"), third), "a run that changed nothing is not queued: " + all);
        expect(s.get(BASE + "/review-queue/" + third, auth()), 404, "REVIEW_ITEM_NOT_FOUND");
        expect(s.get(BASE + "/review-queue/" + third + "/diff", auth()), 404, "REVIEW_ITEM_NOT_FOUND");
        JsonNode approvedList = expect(s.get(BASE + "/review-queue?status=approved", auth()), 200, null);
        assertNotNull(find(approvedList.path("items"), second));
        assertEquals(null, find(approvedList.path("items"), first));

        expect(s.get(BASE + "/review-queue?status=maybe", auth()), 400, "VALIDATION_FAILED");
        expect(s.post(BASE + "/review-queue/run_nosuchrun/approve", Map.of(), auth()), 404,
                "REVIEW_ITEM_NOT_FOUND");
        expect(s.post(BASE + "/review-queue/" + second + "/approve", Map.of("revert", true), auth()), 400,
                "VALIDATION_FAILED");
    }

    @Test
    void revertingARejectedRunRefusesToLoseLaterChanges() throws Exception {
        String[] p = repo("review-revert");
        Path dir = Path.of(p[1]);
        String run = runAndWait(p[0]);
        await(BASE + "/review-queue?status=pending", q -> find(q.path("items"), run) != null);
        Files.writeString(dir.resolve("a.txt"), "edited by hand after the run\n");
        expect(s.post(BASE + "/review-queue/" + run + "/reject", Map.of("revert", true), auth()), 409,
                "WOULD_LOSE_CHANGES");
        assertEquals("pending", expect(s.get(BASE + "/review-queue/" + run, auth()), 200, null).path("status")
                .asText(), "a refused decision leaves the item pending");
        JsonNode rejected = expect(s.post(BASE + "/review-queue/" + run + "/reject", Map.of("revert", true,
                "force", true), auth()), 200, null);
        assertEquals("rejected", rejected.path("status").asText());
        assertEquals("one\n", Files.readString(dir.resolve("a.txt")));
        assertFalse(Files.exists(dir.resolve("agent-output.txt")));
    }

    @Test
    void aRunCutOffByAStopIsQueuedForReviewAtTheNextStart() throws Exception {
        Path data = tmp.resolve("restart-data");
        Path dir = git.repo(tmp.resolve("restart-repo"), "a.txt", "one\n");
        Map<String, String> env = Map.of("HOME", tmp.resolve("restart-home").toString());
        String runId;
        try (TestServer first = TestServer.wrap(org.agentworkspace.server.WorkspaceServer.start(config().apply(
                org.agentworkspace.server.TestServer.config(data)), env), data)) {
            String a = first.registerAdmin();
            String name = first.quickStart(a, dir);
            JsonNode run = expect(first.post("/api/automation/run", Map.of("prompt", "stream for a while",
                    "agentType", "qwen", "projectId", name), bearer(a)), 202, null);
            runId = run.path("id").asText();
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (!expect(first.get("/api/automation/runs/" + runId, bearer(a)), 200, null).path("status").asText()
                    .equals("running")) {
                assertTrue(System.nanoTime() < deadline, "the run never started");
                Thread.sleep(50);
            }
            // what the run "did" while it ran: the record is of the folder
            Files.writeString(dir.resolve("written-during-run.txt"), "x\n");
        }
        try (TestServer second = TestServer.wrap(org.agentworkspace.server.WorkspaceServer.start(config().apply(
                org.agentworkspace.server.TestServer.config(data)), env), data)) {
            String a = second.login(TestServer.ADMIN, TestServer.ADMIN_PASSWORD);
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            JsonNode item = null;
            while (item == null) {
                assertTrue(System.nanoTime() < deadline, "the cut-off run never reached the queue");
                item = find(expect(second.get(BASE + "/review-queue", bearer(a)), 200, null).path("items"), runId);
                Thread.sleep(50);
            }
            assertEquals("pending", item.path("status").asText(), item.toString());
            assertEquals("failed", item.path("runStatus").asText(), item.toString());
            assertEquals(1, item.path("summary").path("added").asInt(), item.toString());
        }
    }

    static String runAndWait(String project) throws InterruptedException {
        JsonNode run = expect(s.post("/api/automation/run", Map.of("prompt", "write a file", "agentType", "claude",
                "projectId", project), auth()), 202, null);
        String id = run.path("runId").asText(run.path("id").asText());
        await("/api/automation/runs/" + id, r -> r.path("status").asText().matches("succeeded|completed|failed"));
        return id;
    }

    // ------------------------------------------------------------------ CI repair plans

    @Test
    void aCiRepairPlanIsDraftedFromTheLogsTail() throws Exception {
        String[] p = repo("ci-project");
        StringBuilder log = new StringBuilder();
        for (int i = 1; i <= 500; i++) {
            log.append(i % 50 == 0 ? "\u001B[31mline " + i + " red\u001B[0m" : "line " + i).append('\n');
        }
        log.append("ERROR: FooTest.bar failed: expected 2 but was 3\n\n\n");
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("projectId", p[0]);
        body.put("ciLog", log.toString());
        body.put("failingJob", "unit tests");
        body.put("agentType", "gemini");
        JsonNode plan = conform("POST", BASE + "/ci-repair-plans", s.post(BASE + "/ci-repair-plans", body, auth()),
                202);
        String id = plan.path("id").asText();
        assertTrue(id.matches("plan_[0-9a-z]{16}"), plan.toString());
        assertEquals("gemini", plan.path("agentType").asText());
        assertEquals("unit tests", plan.path("failingJob").asText());
        assertEquals(200, plan.path("logLinesUsed").asInt());
        assertEquals(log.toString().getBytes(java.nio.charset.StandardCharsets.UTF_8).length,
                plan.path("logBytes").asLong());
        assertTrue(plan.path("runId").asText().startsWith("run_"));

        JsonNode ready = await(BASE + "/ci-repair-plans/" + id, n -> !n.path("status").asText().equals("drafting"));
        conform("GET", BASE + "/ci-repair-plans/" + id, s.get(BASE + "/ci-repair-plans/" + id, auth()), 200);
        assertEquals("ready", ready.path("status").asText(), ready.toString());
        assertFalse(ready.path("plan").asText("").isBlank(), "the agent's answer is the plan: " + ready);
        assertTrue(ready.path("error").isNull());
        String argv = Files.readString(tmp.resolve("gemini-args.txt"));
        assertTrue(argv.contains("ERROR: FooTest.bar failed: expected 2 but was 3"), argv);
        assertTrue(argv.contains("line 500 red") && argv.contains("line 302\n"), "the tail, escapes removed");
        assertFalse(argv.contains("line 301\n"), "only the last 200 lines reach the agent");
        assertFalse(argv.contains("\u001B"), "no escape character reaches the agent");
        assertTrue(argv.contains("(job: unit tests)") && argv.contains("do not change any file"), argv);

        JsonNode list = conform("GET", BASE + "/ci-repair-plans?projectId=" + p[0], s.get(BASE
                + "/ci-repair-plans?projectId=" + p[0], auth()), 200);
        assertEquals(1, list.path("plans").size());
        assertEquals(id, list.path("plans").get(0).path("id").asText());
        assertTrue(list.path("plans").get(0).path("plan").isMissingNode(), "the list leaves the text out");
        assertNotNull(find(expect(s.get(BASE + "/ci-repair-plans", auth()), 200, null).path("plans"), id));
        assertEquals(0, expect(s.get(BASE + "/ci-repair-plans?projectId=other", auth()), 200, null).path("plans")
                .size());
        // the plan run changed no file: nothing to review
        assertEquals(null, find(expect(s.get(BASE + "/review-queue", auth()), 200, null).path("items"),
                plan.path("runId").asText()));

        Map<String, Object> bad = new LinkedHashMap<>(body);
        bad.remove("ciLog");
        expect(s.post(BASE + "/ci-repair-plans", bad, auth()), 400, "VALIDATION_FAILED");
        bad.put("ciLog", "   ");
        expect(s.post(BASE + "/ci-repair-plans", bad, auth()), 400, "VALIDATION_FAILED");
        bad.put("ciLog", "x");
        bad.put("failingJob", "two\nlines");
        expect(s.post(BASE + "/ci-repair-plans", bad, auth()), 400, "VALIDATION_FAILED");
        bad.put("failingJob", "ok");
        bad.put("agentType", "nobody");
        expect(s.post(BASE + "/ci-repair-plans", bad, auth()), 400, "UNKNOWN_PROVIDER");
        bad.put("agentType", "gemini");
        bad.put("projectId", "no-such-project");
        expect(s.post(BASE + "/ci-repair-plans", bad, auth()), 404, "PROJECT_NOT_FOUND");
        bad.put("projectId", p[0]);
        bad.put("repoToken", "x");
        expect(s.post(BASE + "/ci-repair-plans", bad, auth()), 400, "VALIDATION_FAILED");
        expect(s.get(BASE + "/ci-repair-plans/plan_0000000000000000", auth()), 404, "CI_REPAIR_PLAN_NOT_FOUND");
        expect(s.get(BASE + "/ci-repair-plans/whatever", auth()), 404, "CI_REPAIR_PLAN_NOT_FOUND");
    }

    // ------------------------------------------------------------------ release policy

    @Test
    void theReleasePolicyIsValidatedAndStored() {
        JsonNode initial = expect(s.get(BASE + "/release-policy", auth()), 200, null);
        Map<String, Object> window = new LinkedHashMap<>();
        window.put("days", List.of("sun", "sat"));
        window.put("start", "02:30");
        window.put("durationMinutes", 120);
        window.put("timezone", "Europe/Berlin");
        Map<String, Object> policy = new LinkedHashMap<>();
        policy.put("channel", "beta");
        policy.put("autoUpdate", true);
        policy.put("minimumVersion", "1.56.0");
        policy.put("rolloutPercent", 25);
        policy.put("maintenanceWindow", window);
        JsonNode stored = conform("PUT", BASE + "/release-policy", s.put(BASE + "/release-policy", policy, auth()),
                200);
        assertEquals("beta", stored.path("channel").asText());
        assertTrue(stored.path("autoUpdate").asBoolean());
        assertEquals("1.56.0", stored.path("minimumVersion").asText());
        assertEquals(25, stored.path("rolloutPercent").asInt());
        assertEquals("[\"sat\",\"sun\"]", stored.path("maintenanceWindow").path("days").toString(),
                "days come back in week order");
        assertEquals(TestServer.ADMIN, stored.path("updatedBy").asText());
        assertFalse(stored.path("updatedAt").isNull());
        assertEquals(stored, expect(s.get(BASE + "/release-policy", auth()), 200, null));

        for (Map<String, Object> bad : List.of(
                Map.<String, Object>of("channel", "canary", "autoUpdate", true),
                Map.<String, Object>of("channel", "stable"),
                Map.<String, Object>of("channel", "stable", "autoUpdate", "yes"),
                Map.<String, Object>of("channel", "stable", "autoUpdate", true, "minimumVersion", "v1"),
                Map.<String, Object>of("channel", "stable", "autoUpdate", true, "rolloutPercent", 101),
                Map.<String, Object>of("channel", "stable", "autoUpdate", true, "surprise", 1),
                Map.<String, Object>of("channel", "stable", "autoUpdate", true, "maintenanceWindow",
                        Map.of("days", List.of(), "start", "02:00", "durationMinutes", 60, "timezone", "UTC")),
                Map.<String, Object>of("channel", "stable", "autoUpdate", true, "maintenanceWindow",
                        Map.of("days", List.of("mon"), "start", "25:00", "durationMinutes", 60, "timezone", "UTC")),
                Map.<String, Object>of("channel", "stable", "autoUpdate", true, "maintenanceWindow",
                        Map.of("days", List.of("mon"), "start", "02:00", "durationMinutes", 0, "timezone", "UTC")),
                Map.<String, Object>of("channel", "stable", "autoUpdate", true, "maintenanceWindow",
                        Map.of("days", List.of("mon"), "start", "02:00", "durationMinutes", 60,
                                "timezone", "Mars/Olympus")))) {
            expect(s.put(BASE + "/release-policy", bad, auth()), 400, "VALIDATION_FAILED");
        }
        assertEquals(stored, expect(s.get(BASE + "/release-policy", auth()), 200, null),
                "refused documents change nothing");
        JsonNode minimal = expect(s.put(BASE + "/release-policy", Map.of("channel", "stable", "autoUpdate", false),
                auth()), 200, null);
        assertEquals(100, minimal.path("rolloutPercent").asInt());
        assertTrue(minimal.path("maintenanceWindow").isNull());
        assertTrue(minimal.path("minimumVersion").isNull());
        assertNotNull(initial.path("channel").asText());
    }
}
