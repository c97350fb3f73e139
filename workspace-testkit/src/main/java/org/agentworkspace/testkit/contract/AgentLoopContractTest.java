package org.agentworkspace.testkit.contract;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import org.agentworkspace.testkit.git.GitCli;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The administrator's production agent loop ({@code /api/production-agent-loop/*}): every route wants a credential,
 * an administrator account and, for a key, {@code orchestration:read} / {@code orchestration:write}; the read
 * routes have their documented shapes (CI repair plans only with requests refused before a run starts); the release
 * policy round-trips, refuses bad documents without change, and is
 * put back as it was; a folder that is not a repository cannot be checkpointed. Local only: a checkpoint of a git
 * repository prepared on this host is created, listed, restored and deleted.
 */
@Tag("contract")
class AgentLoopContractTest extends ProjectsFixture {
    private static final String BASE = "/api/production-agent-loop";
    private static final String POLICY = BASE + "/release-policy";

    private final List<Long> keys = new ArrayList<>();
    private final List<Long> users = new ArrayList<>();

    private ContractResponse served(ContractClient client, ContractHost host) {
        return Served.require(client.get(BASE + "/jobs").as(session).send(), host, "production agent loop");
    }

    private void assumeAdmin(ContractClient client, ContractHost host) {
        served(client, host);
        Assumptions.assumeTrue(session.isAdmin(), "the suite's account is not an administrator");
    }

    private Credential key(ContractClient client, String... scopes) {
        JsonNode k = client.post("/api/settings/api-keys").as(session).json(ContractClient.body("name",
                Names.unique("loop-key"), "scopes", List.of(scopes))).send().expectStatus(201).json();
        keys.add(k.path("id").asLong());
        return Credential.apiKeyHeader(k.path("api_key").asText());
    }

    @AfterEach
    void removeKeysAndUsers(ContractClient client) {
        for (long id : keys) {
            client.delete("/api/settings/api-keys/" + id).as(session).send().expectStatus(200, 404);
        }
        keys.clear();
        for (long id : users) {
            client.delete("/api/users/" + id).as(session).send().expectStatus(200, 404);
        }
        users.clear();
    }

    @Test
    void everyRouteWantsAnAdministratorAndTheOrchestrationScopes(ContractClient client, ContractHost host) {
        served(client, host);
        for (String route : List.of("/jobs", "/review-queue", "/release-policy", "/checkpoints?projectId=x")) {
            client.get(BASE + route).send().expectError(401, "AUTH_REQUIRED");
        }
        client.post(BASE + "/jobs/history-index/cancel").send().expectError(401, "AUTH_REQUIRED");
        client.put(POLICY).json(ContractClient.body("channel", "stable", "autoUpdate", false)).send()
                .expectError(401, "AUTH_REQUIRED");
        if (!session.isAdmin()) {
            client.get(BASE + "/jobs").as(session).send().expectError(403, "ADMIN_REQUIRED");
            return;
        }
        Credential tasks = key(client, "tasks:read", "tasks:write");
        for (String route : List.of("/jobs", "/review-queue", "/release-policy")) {
            client.get(BASE + route).as(tasks).send().expectError(403, "INSUFFICIENT_SCOPE");
        }
        Credential read = key(client, "orchestration:read");
        client.get(BASE + "/jobs").as(read).send().expectStatus(200);
        client.get(BASE + "/review-queue").as(read).send().expectStatus(200);
        JsonNode policy = client.get(POLICY).as(read).send().expectStatus(200).json();
        client.put(POLICY).as(read).json(writable(policy)).send().expectError(403, "INSUFFICIENT_SCOPE");
        client.post(BASE + "/jobs/history-index/cancel").as(read).send().expectError(403, "INSUFFICIENT_SCOPE");
        client.post(BASE + "/checkpoints").as(read).json(ContractClient.body("projectId", "x")).send()
                .expectError(403, "INSUFFICIENT_SCOPE");

        // an account that is no administrator is refused whatever its key holds
        String username = Names.unique("loop-user");
        String password = "password-" + Names.hex(8);
        JsonNode user = client.post("/api/users").as(session).json(ContractClient.body("username", username,
                "password", password)).send().expectStatus(201).json();
        users.add(user.path("id").asLong());
        ContractClient.Session member = client.login(username, password);
        client.get(BASE + "/jobs").as(member).send().expectError(403, "ADMIN_REQUIRED");
        client.get(BASE + "/review-queue").as(member).send().expectError(403, "ADMIN_REQUIRED");
        client.get(POLICY).as(member).send().expectError(403, "ADMIN_REQUIRED");
    }

    @Test
    void readRoutesHaveTheirShapes(ContractClient client, ContractHost host) {
        assumeAdmin(client, host);
        JsonNode jobs = client.get(BASE + "/jobs").as(session).send().expectStatus(200).json().path("jobs");
        JsonNode index = null;
        for (JsonNode j : jobs) {
            if (j.path("id").asText().equals("history-index")) {
                index = j;
            }
        }
        assertNotNull(index, "the history index is listed: " + jobs);
        assertFalse(index.path("cancellable").asBoolean());
        client.post(BASE + "/jobs/history-index/cancel").as(session).send()
                .expectError(409, "BACKGROUND_JOB_NOT_CANCELLABLE");
        client.post(BASE + "/jobs/contract-no-such-job/cancel").as(session).send()
                .expectError(404, "BACKGROUND_JOB_NOT_FOUND");

        JsonNode queue = client.get(BASE + "/review-queue").as(session).send().expectStatus(200).json();
        long pending = 0;
        for (JsonNode i : queue.path("items")) {
            pending += i.path("status").asText().equals("pending") ? 1 : 0;
        }
        assertEquals(pending, queue.path("pending").asLong());
        client.get(BASE + "/review-queue?status=pending").as(session).send().expectStatus(200);
        client.get(BASE + "/review-queue?status=maybe").as(session).send().expectError(400, "VALIDATION_FAILED");
        client.get(BASE + "/review-queue/run_contractnosuch").as(session).send()
                .expectError(404, "REVIEW_ITEM_NOT_FOUND");
        client.get(BASE + "/review-queue/run_contractnosuch/diff").as(session).send()
                .expectError(404, "REVIEW_ITEM_NOT_FOUND");
        client.post(BASE + "/review-queue/run_contractnosuch/approve").as(session).json(Map.of()).send()
                .expectError(404, "REVIEW_ITEM_NOT_FOUND");

        client.get(BASE + "/ci-repair-plans").as(session).send().expectStatus(200);
        client.get(BASE + "/ci-repair-plans/plan_0000000000000000").as(session).send()
                .expectError(404, "CI_REPAIR_PLAN_NOT_FOUND");
        // refused before anything starts: no agent runs on the target
        client.post(BASE + "/ci-repair-plans").as(session).json(ContractClient.body("projectId",
                "contract-missing-00000000")).send().expectError(400, "VALIDATION_FAILED");
        client.post(BASE + "/ci-repair-plans").as(session).json(ContractClient.body("projectId",
                "contract-missing-00000000", "ciLog", "x", "failingJob", "two\nlines")).send()
                .expectError(400, "VALIDATION_FAILED");
    }

    @Test
    void theReleasePolicyRoundTripsAndIsRestored(ContractClient client, ContractHost host) {
        assumeAdmin(client, host);
        JsonNode before = client.get(POLICY).as(session).send().expectStatus(200).json();
        Map<String, Object> window = new LinkedHashMap<>();
        window.put("days", List.of("sat", "sun"));
        window.put("start", "03:15");
        window.put("durationMinutes", 90);
        window.put("timezone", "UTC");
        Map<String, Object> changed = new LinkedHashMap<>();
        changed.put("channel", before.path("channel").asText().equals("beta") ? "nightly" : "beta");
        changed.put("autoUpdate", !before.path("autoUpdate").asBoolean());
        changed.put("minimumVersion", "1.2.3");
        changed.put("rolloutPercent", 42);
        changed.put("maintenanceWindow", window);
        try {
            JsonNode saved = client.put(POLICY).as(session).json(changed).send().expectStatus(200).json();
            assertEquals(changed.get("channel"), saved.path("channel").asText());
            assertEquals(42, saved.path("rolloutPercent").asInt());
            assertEquals("1.2.3", saved.path("minimumVersion").asText());
            assertEquals(client.target().username(), saved.path("updatedBy").asText());
            JsonNode read = client.get(POLICY).as(session).send().expectStatus(200).json();
            assertEquals(saved, read, "what was saved is what is read back");

            client.put(POLICY).as(session).json(ContractClient.body("channel", "canary", "autoUpdate", true)).send()
                    .expectError(400, "VALIDATION_FAILED");
            client.put(POLICY).as(session).json(ContractClient.body("channel", "stable")).send()
                    .expectError(400, "VALIDATION_FAILED");
            client.put(POLICY).as(session).json(ContractClient.body("channel", "stable", "autoUpdate", true,
                    "rolloutPercent", 150)).send().expectError(400, "VALIDATION_FAILED");
            client.put(POLICY).as(session).json(ContractClient.body("channel", "stable", "autoUpdate", true,
                    "maintenanceWindow", Map.of("days", List.of("mon"), "start", "9am", "durationMinutes", 60,
                            "timezone", "UTC"))).send().expectError(400, "VALIDATION_FAILED");
            assertEquals(read, client.get(POLICY).as(session).send().expectStatus(200).json(),
                    "a refused document changed nothing");
        } finally {
            client.put(POLICY).as(session).json(writable(before)).send().expectStatus(200);
        }
        assertEquals(writable(before), writable(client.get(POLICY).as(session).send().expectStatus(200).json()),
                "the policy is as it was");
    }

    /** The policy's fields that a PUT takes. */
    private static ObjectNode writable(JsonNode policy) {
        ObjectNode n = policy.deepCopy();
        n.remove("updatedAt");
        n.remove("updatedBy");
        return n;
    }

    @Test
    void aFolderThatIsNotARepositoryCannotBeCheckpointed(ContractClient client, ContractHost host) {
        assumeAdmin(client, host);
        String name = projects.quickStart(Names.serverTempFolder("loop-not-a-repo")).path("name").asText();
        client.post(BASE + "/checkpoints").as(session).json(ContractClient.body("projectId", name)).send()
                .expectError(409, "NOT_A_GIT_REPOSITORY");
        client.get(BASE + "/checkpoints?projectId=" + name).as(session).send()
                .expectError(409, "NOT_A_GIT_REPOSITORY");
        client.get(BASE + "/checkpoints").as(session).send().expectError(400, "VALIDATION_FAILED");
        client.post(BASE + "/checkpoints").as(session).json(ContractClient.body("projectId",
                "contract-missing-00000000")).send().expectError(404, "PROJECT_NOT_FOUND");
    }

    @Test
    void aCheckpointIsCreatedListedRestoredAndDeleted(ContractClient client, ContractHost host) throws IOException {
        assumeAdmin(client, host);
        host.assumeLocal("preparing a git repository");
        GitCli.assumeAvailable();
        Path work = Files.createTempDirectory("aw-contract-loop-");
        GitCli git = new GitCli(work.resolve("home"), "Contract Suite", "contract@example.com");
        Path dir = work.resolve("proj");
        git.out(work, "init", "-q", "-b", "main", dir.toString());
        GitCli.write(dir, "a.txt", "one\n");
        git.out(dir, "add", "-A");
        git.out(dir, "commit", "-q", "-m", "initial");
        String head = git.out(dir, "rev-parse", "HEAD").strip();
        String name = projects.quickStart(dir.toString()).path("name").asText();

        GitCli.write(dir, "a.txt", "two\n");
        GitCli.write(dir, "u.txt", "untracked\n");
        JsonNode cp = client.post(BASE + "/checkpoints").as(session).json(ContractClient.body("projectId", name,
                "label", "contract")).send().expectStatus(201).json();
        String id = cp.path("id").asText();
        assertEquals("contract", cp.path("label").asText());
        assertEquals(head, git.out(dir, "rev-parse", "HEAD").strip(), "HEAD stays");
        assertEquals(List.of("a.txt", "u.txt"), GitCli.lines(git.out(dir, "ls-tree", "-r", "--name-only",
                cp.path("ref").asText())));
        JsonNode list = client.get(BASE + "/checkpoints?projectId=" + name).as(session).send().expectStatus(200)
                .json().path("checkpoints");
        assertEquals(1, list.size());
        assertEquals(id, list.get(0).path("id").asText());

        GitCli.write(dir, "a.txt", "three\n");
        client.post(BASE + "/checkpoints/" + id + "/restore").as(session).json(ContractClient.body("projectId",
                name)).send().expectError(409, "WOULD_LOSE_CHANGES");
        assertEquals("three\n", Files.readString(dir.resolve("a.txt")));
        JsonNode restored = client.post(BASE + "/checkpoints/" + id + "/restore").as(session)
                .json(ContractClient.body("projectId", name, "force", true)).send().expectStatus(200).json();
        assertTrue(restored.path("forced").asBoolean());
        assertEquals("two\n", Files.readString(dir.resolve("a.txt")));

        client.delete(BASE + "/checkpoints/" + id + "?projectId=" + name).as(session).send().expectStatus(200);
        client.delete(BASE + "/checkpoints/" + id + "?projectId=" + name).as(session).send()
                .expectError(404, "CHECKPOINT_NOT_FOUND");
        assertEquals(0, client.get(BASE + "/checkpoints?projectId=" + name).as(session).send().expectStatus(200)
                .json().path("checkpoints").size());
    }
}
