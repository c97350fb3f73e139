package org.agentworkspace.testkit.contract;

import static org.agentworkspace.testkit.contract.ContractClient.body;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.agentworkspace.testkit.contract.ContractClient.Session;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The retired workflow family ({@code /api/orchestration/*}) served as a compatibility layer over automation runs
 * (docs/workflows.md): credentials and the automation scopes, the {@code Deprecation} header, the workflow list and
 * context, the {@code agent_team} preview and its 400/404 codes, unknown runs; a full run followed over its
 * {@code snapshot} stream only against a local target with fake CLIs ({@link ContractHost}).
 */
@Tag("contract")
@ExtendWith(ContractExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class WorkflowsContractTest {
    static final String BASE = "/api/orchestration/workflows";
    private Session session;
    private long readerId;
    private Credential reader;

    @BeforeAll
    void setUp(ContractClient client) {
        session = client.login();
        JsonNode k = client.post("/api/settings/api-keys").as(session)
                .json(body("name", "contract workflow reader", "scopes", List.of("tasks:read"))).send()
                .expectStatus(201).json();
        readerId = k.path("id").asLong();
        reader = Credential.apiKeyHeader(k.path("api_key").asText());
    }

    @AfterAll
    void tearDown(ContractClient client) {
        client.delete("/api/settings/api-keys/" + readerId).as(session).send().expectStatus(200);
    }

    private ContractResponse served(ContractClient client, ContractHost host) {
        return Served.require(client.get(BASE).as(session).send(), host, "workflow (compatibility)");
    }

    static Map<String, Object> request(String projectPath, String... adapters) {
        List<Map<String, Object>> agents = new ArrayList<>();
        for (String a : adapters) {
            agents.add(Map.of("adapterId", a));
        }
        return body("input", "contract workflow", "metadata", projectPath == null
                ? body("projectId", "x", "agents", agents)
                : body("projectPath", projectPath, "agents", agents, "settings", body("maxParallelAgents", 2)));
    }

    @Test
    void listContextAndDeprecation(ContractClient client, ContractHost host) {
        ContractResponse list = served(client, host).expectStatus(200);
        assertEquals(Optional.of("true"), list.header("Deprecation"), list.describe());
        assertTrue(list.header("Link").orElse("").contains("/api/automation/run"), list.describe());
        assertEquals("agent_team", list.json().path("workflows").get(0).path("id").asText(), list.describe());
        JsonNode ctx = client.get(BASE + "/context").as(reader).send().expectStatus(200).json();
        assertTrue(ctx.path("supportedWorkspaceTargets").toString().contains(ctx.path("defaultWorkspaceTarget")
                .asText()), ctx.toString());
    }

    @Test
    void credentialsAndScopes(ContractClient client, ContractHost host) {
        served(client, host);
        client.get(BASE).send().expectError(401, "AUTH_REQUIRED");
        client.post(BASE + "/agent_team/runs").json(request(null, "codex")).send().expectError(401, "AUTH_REQUIRED");
        client.get(BASE + "/runs").as(reader).send().expectStatus(200);
        client.post(BASE + "/agent_team/preview").as(reader).json(request(null, "codex")).send().expectStatus(200);
        client.post(BASE + "/agent_team/runs").as(reader).json(request(null, "codex")).send()
                .expectError(403, "INSUFFICIENT_SCOPE");
        client.post(BASE + "/runs/wr_nosuchrun/cancel").as(reader).send().expectError(403, "INSUFFICIENT_SCOPE");
    }

    @Test
    void previewExpandsTheTeamAndRefusesInvalidMetadata(ContractClient client, ContractHost host) {
        served(client, host);
        JsonNode p = client.post(BASE + "/agent_team/preview").as(session).json(request(null, "claude-code",
                "codex")).send().expectStatus(200).json();
        assertEquals(4, p.path("nodeCount").asInt(), p.toString());
        List<String> ids = new ArrayList<>();
        p.path("nodes").forEach(n -> ids.add(n.path("id").asText()));
        assertEquals(List.of("coordinator", "worker-claude-code-1", "worker-codex-1", "final-report"), ids);
        assertEquals("coordinator", p.path("nodes").get(1).path("inputs").get(0).asText());
        client.post(BASE + "/agent_team/preview").as(session).json(body("metadata", body("agents",
                List.of(Map.of("adapterId", "codex")), "settings", body("maxParallelAgents", 13)))).send()
                .expectError(400, "INVALID_WORKFLOW_METADATA");
        client.post(BASE + "/agent_team/preview").as(session).json(body("metadata", body("agents", List.of())))
                .send().expectError(400, "INVALID_WORKFLOW_METADATA");
        client.post(BASE + "/no-such-workflow/preview").as(session).json(request(null, "codex")).send()
                .expectError(404, "WORKFLOW_NOT_FOUND");
        client.post(BASE + "/agent_team/runs").as(session).json(body("input", "x", "sneaky", true)).send()
                .expectStatus(400);
    }

    @Test
    void unknownRuns(ContractClient client, ContractHost host) {
        served(client, host);
        client.get(BASE + "/runs/wr_nosuchrun").as(session).send().expectError(404, "WORKFLOW_RUN_NOT_FOUND");
        client.post(BASE + "/runs/wr_nosuchrun/cancel").as(session).send().expectError(404,
                "WORKFLOW_RUN_NOT_FOUND");
        client.get(BASE + "/runs/wr_nosuchrun/events").as(session).send().expectError(404,
                "WORKFLOW_RUN_NOT_FOUND");
    }

    @Test
    void aRunIsAcceptedFollowedAndReadBack(ContractClient client, ContractHost host) throws IOException {
        served(client, host);
        host.assumeLocal("a full workflow run (project folder and fake CLIs on the service's host)");
        Path project = Files.createTempDirectory("aw-contract-workflow");
        JsonNode run = client.post(BASE + "/agent_team/runs").as(session).json(request(project.toString(), "codex",
                "claude-code")).send().expectStatus(202).json();
        String id = run.path("id").asText();
        JsonNode last = null;
        try (ContractEventStream s = client.get(BASE + "/runs/" + id + "/events").as(session).openStream()) {
            s.response().expectStatus(200);
            Optional<ContractEventStream.Event> e;
            while ((e = s.nextOrEnd(Duration.ofSeconds(60))).isPresent()) {
                assertEquals("snapshot", e.get().event(), e.get().data());
                last = e.get().json().path("run");
            }
        }
        assertTrue(last != null, "at least one snapshot");
        assertEquals("completed", last.path("status").asText(), last.toString());
        JsonNode back = client.get(BASE + "/runs/" + id).as(session).send().expectStatus(200).json();
        assertEquals(4, back.path("nodeRuns").size(), back.toString());
        for (JsonNode n : back.path("nodeRuns")) {
            assertEquals("completed", n.path("status").asText(), n.toString());
            JsonNode auto = client.get("/api/automation/runs/" + n.path("a2aTaskId").asText()).as(session).send()
                    .expectStatus(200).json();
            assertEquals(auto.path("resultText").asText(), n.path("outputText").asText());
        }
        JsonNode list = client.get(BASE + "/runs").as(session).send().expectStatus(200).json();
        assertEquals(id, list.path("runs").get(0).path("id").asText(), "newest first");
        assertEquals("completed", client.post(BASE + "/runs/" + id + "/cancel").as(session).send()
                .expectStatus(200).json().path("status").asText(), "an ended run is returned unchanged");
    }
}
