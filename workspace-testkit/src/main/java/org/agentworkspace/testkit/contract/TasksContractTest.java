package org.agentworkspace.testkit.contract;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Automation tasks without running anything: every task the suite creates is scheduled a year ahead and deleted
 * again. Create, read, list (both route families), update, pause, resume, cancel, delete; the documented 409s after
 * the end; schedule validation; status and help.
 */
@Tag("contract")
class TasksContractTest extends ProjectsFixture {
    @Test
    void aTaskGoesThroughItsLifecycleWithoutRunning(ContractClient client, ContractHost host) {
        String project = projects.quickStart(Names.serverTempFolder("tasks")).path("name").asText();
        Instant at = Instant.now().plus(365, ChronoUnit.DAYS).truncatedTo(ChronoUnit.SECONDS);
        JsonNode t = Served.require(client.post("/api/automation/tasks").as(session)
                .json(ContractClient.body("prompt", "contract task, never runs", "projectId", project,
                        "schedule", Map.of("kind", "once", "at", at.toString()))).send(), host, "automation tasks")
                .expectStatus(201).json();
        String id = t.path("id").asText();
        try {
            assertEquals("scheduled", t.path("status").asText());
            assertEquals(at, Instant.parse(t.path("nextRunAt").asText()));
            assertEquals(0, t.path("runCount").asInt());
            JsonNode read = client.get("/api/tasks/" + id).as(session).send().expectStatus(200).json();
            assertEquals(0, read.path("recentRuns").size());
            assertTrue(client.get("/api/automation/tasks?projectId=" + project).as(session).send().expectStatus(200)
                    .json().findValuesAsText("id").contains(id));

            JsonNode u = client.patch("/api/automation/tasks/" + id).as(session)
                    .json(ContractClient.body("name", "renamed", "schedule", Map.of("kind", "cron",
                            "expression", "0 3 1 1 *", "timezone", "UTC"))).send().expectStatus(200).json();
            assertEquals("renamed", u.path("name").asText());
            assertEquals(3, Instant.parse(u.path("nextRunAt").asText()).atZone(java.time.ZoneOffset.UTC).getHour());

            assertEquals("paused", client.post("/api/automation/tasks/" + id + "/pause").as(session).send()
                    .expectStatus(200).json().path("status").asText());
            client.post("/api/automation/tasks/" + id + "/pause").as(session).send()
                    .expectError(409, "TASK_STATE_CONFLICT");
            assertEquals("scheduled", client.post("/api/tasks/" + id + "/resume").as(session).send()
                    .expectStatus(200).json().path("status").asText());
            assertEquals("cancelled", client.post("/api/automation/tasks/" + id + "/cancel").as(session).send()
                    .expectStatus(200).json().path("status").asText());
            client.patch("/api/automation/tasks/" + id).as(session).json(ContractClient.body("name", "late"))
                    .send().expectError(409, "TASK_STATE_CONFLICT");
        } finally {
            client.delete("/api/automation/tasks/" + id).as(session).send().expectStatus(200);
        }
        client.get("/api/automation/tasks/" + id).as(session).send().expectError(404, "TASK_NOT_FOUND");

        client.post("/api/automation/tasks").as(session).json(ContractClient.body("prompt", "x", "projectId",
                project, "schedule", Map.of("kind", "interval", "everySeconds", 1))).send()
                .expectError(400, "INVALID_SCHEDULE");
        client.post("/api/automation/tasks").as(session).json(ContractClient.body("prompt", "x", "projectId",
                project, "schedule", Map.of("kind", "cron", "expression", "not a cron"))).send()
                .expectError(400, "INVALID_SCHEDULE");

        JsonNode status = client.get("/api/automation/status").as(session).send().expectStatus(200).json();
        assertTrue(status.path("schedulerRunning").isBoolean() && status.path("agents").isArray(), status.toString());
        JsonNode help = client.get("/api/automation/help").as(session).send().expectStatus(200).json();
        assertTrue(help.path("scheduleKinds").isArray() && help.path("endpoints").size() > 0, help.toString());
    }
}
