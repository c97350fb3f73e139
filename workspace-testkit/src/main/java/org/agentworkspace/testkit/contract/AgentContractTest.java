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
 * {@code POST /api/agent}: API key only (401 otherwise), 400 for a missing message, a missing project, an unknown
 * provider and an invalid repository URL, all before anything runs; safe against a real deployment. A full run
 * (buffered and SSE) only when the target is local ({@link ContractHost}: same host, with fake CLIs configured as
 * the embedded target does), since it needs a project directory on the server's host; otherwise it is skipped.
 */
@Tag("contract")
@ExtendWith(ContractExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class AgentContractTest {
    static final String AGENT = "/api/agent";
    private Session session;
    private long keyId;
    private Credential key;

    @BeforeAll
    void setUp(ContractClient client) {
        session = client.login();
        JsonNode k = client.post("/api/settings/api-keys").as(session)
                .json(body("name", "contract agent", "scopes", List.of("tasks:read", "tasks:write"))).send()
                .expectStatus(201).json();
        keyId = k.path("id").asLong();
        key = Credential.apiKeyHeader(k.path("api_key").asText());
    }

    @AfterAll
    void tearDown(ContractClient client) {
        client.delete("/api/settings/api-keys/" + keyId).as(session).send().expectStatus(200);
    }

    @Test
    void onlyAnApiKeyIsAccepted(ContractClient client) {
        client.post(AGENT).json(body("message", "hi", "projectPath", "/")).send().expectError(401, "API_KEY_REQUIRED");
        client.post(AGENT).as(session).json(body("message", "hi", "projectPath", "/")).send()
                .expectError(401, "API_KEY_REQUIRED");
        client.post(AGENT).as(Credential.apiKeyHeader("px_" + "0".repeat(32)))
                .json(body("message", "hi", "projectPath", "/")).send().expectError(401, "INVALID_API_KEY");
    }

    @Test
    void invalidRequestsAre400BeforeAnythingRuns(ContractClient client) {
        client.post(AGENT).as(key).json(body("projectPath", "/")).send().expectError(400, "VALIDATION_FAILED");
        client.post(AGENT).as(key).json(body("message", "hi")).send().expectError(400, "VALIDATION_FAILED");
        client.post(AGENT).as(key).json(body("message", "hi", "provider", "no-such-provider", "projectPath", "/"))
                .send().expectError(400, "UNKNOWN_PROVIDER");
        for (String url : List.of("file:///etc/passwd", "http://github.com/a/b", "https://127.0.0.1/a/b",
                "https://169.254.169.254/latest/meta-data", "https://user:pw@github.com/a/b", "ssh://github.com/a/b",
                "https://evil.example/a/b")) {
            client.post(AGENT).as(key).json(body("message", "hi", "githubUrl", url)).send()
                    .expectError(400, "INVALID_REPOSITORY_URL");
        }
    }

    @Test
    void aBufferedRunAndAStreamedRun(ContractClient client, ContractHost host) throws IOException {
        host.assumeLocal("a full agent run (project folder and fake CLIs on the service's host)");
        Path project = Files.createTempDirectory("aw-contract-agent");
        JsonNode r = client.post(AGENT).as(key).json(body("message", "Say hello", "provider", "claude",
                "projectPath", project.toString(), "stream", false)).send().expectStatus(200).json();
        assertTrue(r.path("success").asBoolean(), r.toString());
        assertFalse(r.path("text").asText().isBlank(), r.toString());
        assertFalse(r.path("sessionId").asText("").isBlank(), r.toString());
        try (ContractEventStream s = client.post(AGENT).as(key).json(body("message", "Say hello",
                "provider", "claude", "projectPath", project.toString())).openStream()) {
            s.response().expectStatus(200);
            ContractEventStream.Event e;
            boolean sawEvent = false;
            while (!(e = s.next(Duration.ofSeconds(30))).event().equals("done")) {
                assertFalse(e.event().equals("error"), e.data());
                sawEvent |= e.event().equals("event");
            }
            assertTrue(sawEvent, "agent events before done");
            assertEquals(true, e.json().path("success").asBoolean(), e.data());
        }
    }
}
