package org.agentworkspace.server.tasks;

import static org.agentworkspace.server.TestServer.bearer;
import static org.agentworkspace.server.TestServer.expect;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

import com.fasterxml.jackson.databind.JsonNode;

import org.agentworkspace.api.provider.ProviderCredentials;
import org.agentworkspace.core.agent.AgentSettings;
import org.agentworkspace.server.ServerConfig;
import org.agentworkspace.server.TestServer;
import org.agentworkspace.server.WorkspaceServer;
import org.agentworkspace.testkit.fakecli.FakeClis;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Automation tasks through the running server with the fake CLIs: one-time tasks run and end by their run's outcome,
 * recurring tasks are rescheduled, pause/resume/cancel/update/delete follow the documented transitions, ownership is
 * enforced, the schedule is validated, the alias routes behave the same, and a task survives a restart.
 */
class TasksRoutesTest {
    @TempDir
    static Path tmp;
    static Path bin;
    static TestServer s;
    static String admin;
    static String key;
    static String project;

    static UnaryOperator config(Path binDir) {
        Map<String, Map<String, String>> env = new HashMap<>();
        // qwen streams for a long time: a run that is still active when the task is paused or cancelled
        env.put("qwen", Map.of("AW_FAKE_EVENTS", "100000", "AW_FAKE_DELAY_MS", "100"));
        return c -> c.withEngine(c.engine().withRuns(c.engine().runs().withKillGrace(Duration.ofMillis(200))))
                .withAgent(AgentSettings.defaults().withBinaries(Map.of("*", binDir)).withProviderEnv(env)
                        .withCredentials(id -> new ProviderCredentials("sk-aw-tasks-test", null)));
    }

    interface UnaryOperator extends java.util.function.UnaryOperator<ServerConfig> {
    }

    @BeforeAll
    static void start() throws Exception {
        bin = FakeClis.install(tmp.resolve("bin"));
        s = TestServer.start(config(bin));
        admin = s.registerAdmin();
        key = s.createKey(admin, "tasks", List.of("tasks:write", "tasks:read"))[1];
        Path dir = Files.createDirectories(tmp.resolve("project"));
        project = expect(s.post("/api/projects/quick-start", Map.of("path", dir.toString()), bearer(admin)), 200,
                null).path("name").asText();
    }

    @AfterAll
    static void stop() {
        s.close();
    }

    static JsonNode create(String base, Map<String, Object> body) {
        return expect(s.post(base, body, "X-API-Key", key), 201, null);
    }

    static Map<String, Object> once(Instant at) {
        return Map.of("kind", "once", "at", at.toString());
    }

    static JsonNode awaitTask(String id, Predicate<JsonNode> done) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        JsonNode t = null;
        while (System.nanoTime() < deadline) {
            t = expect(s.get("/api/automation/tasks/" + id, "X-API-Key", key), 200, null);
            if (done.test(t)) {
                return t;
            }
            Thread.sleep(50);
        }
        throw new AssertionError("task " + id + " never reached the expected state: " + t);
    }

    @Test
    void aOneTimeTaskRunsAtItsTimeAndCompletes() throws Exception {
        Instant at = Instant.now().plusSeconds(1);
        JsonNode t = create("/api/automation/tasks", Map.of("prompt", "Say hello from a task", "projectId", project,
                "schedule", once(at)));
        assertTrue(t.path("id").asText().startsWith("task_"));
        assertEquals("scheduled", t.path("status").asText());
        assertEquals("Say hello from a task", t.path("name").asText(), "the name is derived from the prompt");
        Instant next = Instant.parse(t.path("nextRunAt").asText());
        assertFalse(next.isBefore(at), "the run is planned no earlier than asked: " + next + " vs " + at);
        assertTrue(Duration.between(at, next).toMillis() < 1, next + " vs " + at);
        assertEquals(0, t.path("runCount").asInt());
        JsonNode done = awaitTask(t.path("id").asText(), n -> n.path("status").asText().equals("completed"));
        assertEquals(1, done.path("runCount").asInt());
        assertEquals("completed", done.path("lastRunStatus").asText());
        assertTrue(done.path("nextRunAt").isNull());
        assertFalse(Instant.parse(done.path("lastRunAt").asText()).isBefore(at), "it did not run early");
        assertEquals(1, done.path("recentRuns").size());
        JsonNode run = done.path("recentRuns").get(0);
        assertEquals(t.path("id").asText(), run.path("taskId").asText());
        assertEquals(project, run.path("projectId").asText());
        assertTrue(done.path("recentLogs").size() > 0, done.toString());
        // the run is the caller's and filterable by task
        JsonNode runs = expect(s.get("/api/automation/runs?taskId=" + t.path("id").asText(), "X-API-Key", key),
                200, null);
        assertEquals(1, runs.size());
        // an ended task cannot change any more
        expect(s.send("PATCH", "/api/automation/tasks/" + t.path("id").asText(), Map.of("name", "x"),
                "X-API-Key", key), 409, "TASK_STATE_CONFLICT");
        expect(s.post("/api/automation/tasks/" + t.path("id").asText() + "/pause", null, "X-API-Key", key), 409,
                "TASK_STATE_CONFLICT");
    }

    @Test
    void aTaskWhoseRunFailsIsFailedAndAMissingCliCountsAsAFailedRun() throws Exception {
        JsonNode t = create("/api/automation/tasks", Map.of("prompt", "fail please", "projectId", project,
                "agentType", "opencode", "schedule", once(Instant.now())));
        // a one-time task whose moment has already passed runs at once
        JsonNode done = awaitTask(t.path("id").asText(), n -> n.path("status").asText().matches("completed|failed"));
        assertEquals(1, done.path("runCount").asInt(), done.toString());

        Path gone = Files.createDirectories(tmp.resolve("vanishing"));
        String goneName = expect(s.post("/api/projects/quick-start", Map.of("path", gone.toString()),
                bearer(admin)), 200, null).path("name").asText();
        JsonNode t2 = create("/api/tasks", Map.of("prompt", "where is my project", "projectId", goneName,
                "schedule", once(Instant.now().plusSeconds(1))));
        expect(s.delete("/api/projects/" + goneName, null, bearer(admin)), 200, null);
        JsonNode failed = awaitTask(t2.path("id").asText(), n -> n.path("status").asText().equals("failed"));
        assertEquals("failed", failed.path("lastRunStatus").asText());
        assertEquals(0, failed.path("recentRuns").size(), "no run could start");
    }

    @Test
    void pauseResumeCancelAndDeleteFollowTheDocumentedTransitions() throws Exception {
        JsonNode t = create("/api/automation/tasks", Map.of("prompt", "long job", "projectId", project,
                "agentType", "qwen", "schedule", Map.of("kind", "interval", "everySeconds", 3600,
                        "startAt", Instant.now().plusSeconds(1).toString())));
        String id = t.path("id").asText();
        // between the claim and the stored run a task is already running with activeRunId null (docs/tasks.md):
        // wait for the id (reading the null as text gave "null" and a 404 now and then)
        JsonNode running = awaitTask(id, n -> n.path("status").asText().equals("running")
                && n.path("activeRunId").isTextual());
        String runId = running.path("activeRunId").asText();
        assertFalse(runId.isBlank(), running.toString());
        assertNotNull(running.path("nextRunAt").asText(null), "a recurring task shows its next time while running");

        JsonNode paused = expect(s.post("/api/automation/tasks/" + id + "/pause", null, "X-API-Key", key), 200, null);
        assertEquals("paused", paused.path("status").asText());
        assertTrue(paused.path("nextRunAt").isNull());
        expect(s.post("/api/automation/tasks/" + id + "/pause", null, "X-API-Key", key), 409, "TASK_STATE_CONFLICT");
        // the active run goes on while paused (it may still sit in the queue a moment on a loaded machine)
        String activeStatus = "";
        for (long end = System.nanoTime() + Duration.ofSeconds(30).toNanos(); System.nanoTime() < end; ) {
            activeStatus = expect(s.get("/api/automation/runs/" + runId, "X-API-Key", key), 200, null)
                    .path("status").asText();
            if (!activeStatus.equals("queued")) {
                break;
            }
            Thread.sleep(50);
        }
        assertEquals("running", activeStatus);
        JsonNode resumed = expect(s.post("/api/tasks/" + id + "/resume", null, "X-API-Key", key), 200, null);
        assertEquals("running", resumed.path("status").asText(), "its run is still active");

        JsonNode cancelled = expect(s.post("/api/automation/tasks/" + id + "/cancel", null, "X-API-Key", key), 200,
                null);
        assertEquals("cancelled", cancelled.path("status").asText());
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        String runStatus = "";
        while (System.nanoTime() < deadline) {
            runStatus = expect(s.get("/api/automation/runs/" + runId, "X-API-Key", key), 200, null).path("status")
                    .asText();
            if (runStatus.equals("cancelled")) {
                break;
            }
            Thread.sleep(50);
        }
        assertEquals("cancelled", runStatus, "cancelling the task stopped its run");
        expect(s.post("/api/automation/tasks/" + id + "/resume", null, "X-API-Key", key), 409, "TASK_STATE_CONFLICT");
        expect(s.post("/api/automation/tasks/" + id + "/cancel", null, "X-API-Key", key), 409, "TASK_STATE_CONFLICT");

        expect(s.delete("/api/tasks/" + id, null, "X-API-Key", key), 200, null);
        expect(s.get("/api/automation/tasks/" + id, "X-API-Key", key), 404, "TASK_NOT_FOUND");
    }

    @Test
    void updatesRecomputeTheNextRunAndCronFollowsItsZone() throws Exception {
        JsonNode t = create("/api/automation/tasks", Map.of("prompt", "weekday report", "projectId", project,
                "schedule", Map.of("kind", "cron", "expression", "30 9 * * 1-5", "timezone", "Europe/Berlin")));
        ZonedDateTime next = Instant.parse(t.path("nextRunAt").asText()).atZone(ZoneId.of("Europe/Berlin"));
        assertEquals(9, next.getHour());
        assertEquals(30, next.getMinute());
        assertTrue(next.getDayOfWeek().getValue() <= 5, next.toString());
        String id = t.path("id").asText();

        Instant later = Instant.now().plus(Duration.ofDays(30)).truncatedTo(java.time.temporal.ChronoUnit.SECONDS);
        JsonNode u = expect(s.send("PATCH", "/api/automation/tasks/" + id, Map.of("name", "Monthly",
                "schedule", once(later), "timeoutMs", 60000), "X-API-Key", key), 200, null);
        assertEquals("Monthly", u.path("name").asText());
        assertEquals(later.toString(), u.path("nextRunAt").asText());
        assertEquals(60000, u.path("timeoutMs").asLong());
        assertEquals("weekday report", u.path("prompt").asText(), "fields not named stay as they were");
        expect(s.send("PATCH", "/api/automation/tasks/" + id, Map.of(), "X-API-Key", key), 400, null);
        expect(s.send("PATCH", "/api/automation/tasks/" + id, Map.of("colour", "red"), "X-API-Key", key), 400, null);

        for (Object bad : List.of(Map.of("kind", "cron", "expression", "61 * * * *"),
                Map.of("kind", "cron", "expression", "* * * *"),
                Map.of("kind", "cron", "expression", "0 9 * * *", "timezone", "Mars/Olympus"),
                Map.of("kind", "interval", "everySeconds", 5), Map.of("kind", "interval", "everySeconds", "soon"),
                Map.of("kind", "once", "at", "tomorrow"), Map.of("kind", "weekly"),
                // beyond what a stored time holds (was a 500), and before 1970
                Map.of("kind", "once", "at", "+999999999-12-31T23:59:59Z"),
                Map.of("kind", "interval", "everySeconds", 60, "startAt", "+999999999-12-31T23:59:59Z"),
                Map.of("kind", "once", "at", "1969-12-31T23:59:59Z"))) {
            expect(s.post("/api/automation/tasks", Map.of("prompt", "x", "projectId", project, "schedule", bad),
                    "X-API-Key", key), 400, "INVALID_SCHEDULE");
        }
        expect(s.post("/api/automation/tasks", Map.of("prompt", "x", "projectId", "no-such-project",
                "schedule", once(later)), "X-API-Key", key), 404, "PROJECT_NOT_FOUND");
        expect(s.post("/api/automation/tasks", Map.of("prompt", "x", "projectId", project, "agentType", "eliza",
                "schedule", once(later)), "X-API-Key", key), 400, null);
        // a model a CLI would read as an option is refused when the task is made or changed, as runs refuse it
        for (String model : List.of("-rf", "--dangerously-skip-permissions", " gpt")) {
            expect(s.post("/api/automation/tasks", Map.of("prompt", "x", "projectId", project, "model", model,
                    "schedule", once(later)), "X-API-Key", key), 400, "VALIDATION_FAILED");
            expect(s.send("PATCH", "/api/automation/tasks/" + id, Map.of("model", model), "X-API-Key", key), 400,
                    "VALIDATION_FAILED");
        }
        expect(s.delete("/api/automation/tasks/" + id, null, "X-API-Key", key), 200, null);
    }

    @Test
    void tasksAreTheirOwnersAndKeysNeedTheirScopes() {
        JsonNode t = create("/api/automation/tasks", Map.of("prompt", "mine", "projectId", project,
                "schedule", once(Instant.now().plus(Duration.ofDays(1)))));
        String id = t.path("id").asText();
        expect(s.post("/api/users", Map.of("username", "taskmember", "password", "member-password-1"),
                bearer(admin)), 201, null);
        String member = s.login("taskmember", "member-password-1");
        expect(s.get("/api/automation/tasks/" + id, bearer(member)), 404, "TASK_NOT_FOUND");
        expect(s.post("/api/automation/tasks/" + id + "/cancel", null, bearer(member)), 404, "TASK_NOT_FOUND");
        assertFalse(expect(s.get("/api/tasks", bearer(member)), 200, null).findValuesAsText("id").contains(id));
        assertTrue(expect(s.get("/api/tasks", bearer(admin)), 200, null).findValuesAsText("id").contains(id));
        String reader = s.createKey(admin, "reader", List.of("tasks:read"))[1];
        expect(s.get("/api/automation/tasks?projectId=" + project, "X-API-Key", reader), 200, null);
        expect(s.post("/api/automation/tasks/" + id + "/pause", null, "X-API-Key", reader), 403,
                "INSUFFICIENT_SCOPE");
        expect(s.delete("/api/automation/tasks/" + id, null, "X-API-Key", key), 200, null);
    }

    @Test
    void statusAndHelpDescribeTheScheduler() {
        JsonNode st = expect(s.get("/api/automation/status", "X-API-Key", key), 200, null);
        assertTrue(st.path("schedulerRunning").asBoolean(), st.toString());
        assertTrue(st.path("maxConcurrentRuns").asInt() >= 1);
        assertEquals(7, st.path("agents").size(), st.toString());
        assertTrue(st.path("tasks").has("total"));
        JsonNode help = expect(s.get("/api/automation/help", "X-API-Key", key), 200, null);
        assertTrue(help.path("usage").asText().contains("/api/automation/tasks"));
        assertEquals(List.of("once", "interval", "cron"), List.of(help.path("scheduleKinds").get(0).asText(),
                help.path("scheduleKinds").get(1).asText(), help.path("scheduleKinds").get(2).asText()));
    }

    @Test
    void aScheduledTaskSurvivesARestartAndAnOverdueOneRunsOnceAtStart() throws Exception {
        Path data = tmp.resolve("restart-data");
        Path dir = Files.createDirectories(tmp.resolve("restart-project"));
        String id;
        String name;
        TestServer first = TestServer.wrap(WorkspaceServer.start(config(bin).apply(org.agentworkspace.server.TestServer.config(data)), Map.of("HOME", tmp.resolve("restart-home").toString())), data);
        try (first) {
            String a = first.registerAdmin();
            name = expect(first.post("/api/projects/quick-start", Map.of("path", dir.toString()), bearer(a)), 200,
                    null).path("name").asText();
            id = expect(first.post("/api/automation/tasks", Map.of("prompt", "after restart", "projectId", name,
                    "schedule", Map.of("kind", "interval", "everySeconds", 3600,
                            "startAt", Instant.now().plusSeconds(3).toString())), bearer(a)), 201, null)
                    .path("id").asText();
        }
        Thread.sleep(3500); // its time passes while the service is down
        try (TestServer second = TestServer.wrap(WorkspaceServer.start(config(bin).apply(
                org.agentworkspace.server.TestServer.config(data)), Map.of("HOME", tmp.resolve("restart-home").toString())),
                data)) {
            String a = second.login(TestServer.ADMIN, TestServer.ADMIN_PASSWORD);
            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            JsonNode t = null;
            while (System.nanoTime() < deadline) {
                t = expect(second.get("/api/automation/tasks/" + id, bearer(a)), 200, null);
                if (t.path("runCount").asInt() >= 1 && t.path("status").asText().equals("scheduled")) {
                    break;
                }
                Thread.sleep(50);
            }
            assertEquals(1, t.path("runCount").asInt(), "the missed run ran once: " + t);
            assertEquals("completed", t.path("lastRunStatus").asText(), t.toString());
            assertTrue(Instant.parse(t.path("nextRunAt").asText()).isAfter(Instant.now().plusSeconds(3000)),
                    "the next run is an hour on: " + t);
        }
    }
}
