package org.agentworkspace.testkit.contract;

import static org.agentworkspace.testkit.contract.ContractClient.body;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.agentworkspace.testkit.contract.ContractClient.Session;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * {@code POST /api/automation/run} and the run routes: authentication and scopes, validation, unknown runs; a full
 * run (accepted, read back, followed over SSE to {@code done}) only against a local target with fake CLIs
 * ({@link ContractHost}).
 */
@Tag("contract")
@ExtendWith(ContractExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class AutomationContractTest {
    static final String RUN = "/api/automation/run";
    private Session session;
    private long readerId;
    private Credential reader;

    @BeforeAll
    void setUp(ContractClient client) {
        session = client.login();
        JsonNode k = client.post("/api/settings/api-keys").as(session)
                .json(body("name", "contract reader", "scopes", List.of("tasks:read"))).send()
                .expectStatus(201).json();
        readerId = k.path("id").asLong();
        reader = Credential.apiKeyHeader(k.path("api_key").asText());
    }

    @AfterAll
    void tearDown(ContractClient client) {
        client.delete("/api/settings/api-keys/" + readerId).as(session).send().expectStatus(200);
    }

    @Test
    void credentialsAndScopes(ContractClient client) {
        client.post(RUN).json(body("prompt", "hi", "projectId", "x")).send().expectError(401, "AUTH_REQUIRED");
        client.get("/api/automation/runs").send().expectError(401, "AUTH_REQUIRED");
        client.post(RUN).as(reader).json(body("prompt", "hi", "projectId", "x")).send()
                .expectError(403, "INSUFFICIENT_SCOPE");
        client.get("/api/automation/runs").as(reader).send().expectStatus(200);
    }

    @Test
    void invalidRequestsAndUnknownRuns(ContractClient client) {
        client.post(RUN).as(session).json(body("projectId", "x")).send().expectError(400, "VALIDATION_FAILED");
        client.post(RUN).as(session).json(body("prompt", "hi", "agentType", "no-such-agent", "projectId", "x"))
                .send().expectError(400, "UNKNOWN_PROVIDER");
        client.post(RUN).as(session).json(body("prompt", "[agent:no-such-agent] hi", "projectId", "x")).send()
                .expectError(400, "UNKNOWN_PROVIDER");
        client.get("/api/automation/runs/run_nosuchrun").as(session).send().expectError(404, "RUN_NOT_FOUND");
        client.post("/api/automation/runs/run_nosuchrun/cancel").as(session).send()
                .expectError(404, "RUN_NOT_FOUND");
        client.get("/api/automation/runs?limit=0").as(session).send().expectError(400, "VALIDATION_FAILED");
        // isolation (docs/runs.md "Worktree isolation"): no container image can be configured, so docker is refused
        client.post(RUN).as(session).json(body("prompt", "hi", "projectId", "x", "isolation", "docker")).send()
                .expectError(400, "ISOLATION_UNAVAILABLE");
        client.post(RUN).as(session).json(body("prompt", "hi", "projectId", "x", "isolation", "vm")).send()
                .expectStatus(400);
        client.post(RUN).as(session).json(body("prompt", "hi", "projectId", "x", "sneaky", true)).send()
                .expectStatus(400);
        client.post("/api/automation/runs/run_nosuchrun/merge").as(session).send()
                .expectError(404, "RUN_NOT_FOUND");
        client.post("/api/automation/runs/run_nosuchrun/discard").as(session).send()
                .expectError(404, "RUN_NOT_FOUND");
        client.post("/api/automation/runs/run_nosuchrun/merge").as(reader).send()
                .expectError(403, "INSUFFICIENT_SCOPE");
    }

    @Test
    void aRunIsAcceptedReadBackAndFollowed(ContractClient client, ContractHost host) throws IOException {
        host.assumeLocal("a full automation run (project folder and fake CLIs on the service's host)");
        Path project = Files.createTempDirectory("aw-contract-automation");
        JsonNode run = client.post(RUN).as(session).json(body("prompt", "[agent:codex] Say hello", "projectPath",
                project.toString())).send().expectStatus(202).json();
        assertEquals("codex", run.path("agentType").asText());
        String id = run.path("id").asText();
        try (ContractEventStream s = client.get("/api/automation/runs/" + id + "/events").as(session).openStream()) {
            s.response().expectStatus(200);
            ContractEventStream.Event e;
            while (!(e = s.next(Duration.ofSeconds(30))).event().equals("done")) {
                assertFalse(e.event().equals("error"), e.data());
            }
            assertEquals("completed", e.json().path("status").asText(), e.data());
        }
        JsonNode back = client.get("/api/automation/runs/" + id).as(session).send().expectStatus(200).json();
        assertEquals("completed", back.path("status").asText());
        assertTrue(back.path("logs").size() > 0);
        JsonNode cancelled = client.post("/api/automation/runs/" + id + "/cancel").as(session).send()
                .expectStatus(200).json();
        assertEquals("completed", cancelled.path("status").asText(), "an ended run is returned unchanged");
    }
}
