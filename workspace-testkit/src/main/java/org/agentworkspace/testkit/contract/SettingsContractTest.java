package org.agentworkspace.testkit.contract;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;
import org.agentworkspace.testkit.contract.ContractClient.Session;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Notification preferences of the suite's own account: read, changed and put back exactly as they were; an
 * incomplete or mistyped document is refused and changes nothing; keys read but do not write.
 */
@Tag("contract")
@ExtendWith(ContractExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SettingsContractTest {
    private static final String ROUTE = "/api/settings/notification-preferences";

    private Session session;

    @BeforeAll
    void signIn(ContractClient client) {
        session = client.login();
    }

    @Test
    void preferencesRoundTripAndAreRestored(ContractClient client, ContractHost host) {
        JsonNode before = Served.require(client.get(ROUTE).as(session).send(), host, "notification preferences")
                .expectStatus(200).json().path("preferences");
        boolean inApp = before.path("channels").path("inApp").asBoolean();
        boolean stop = before.path("events").path("stop").asBoolean();
        Map<String, Object> flipped = prefs(!inApp, before.path("channels").path("webPush").asBoolean(),
                before.path("events").path("actionRequired").asBoolean(), !stop,
                before.path("events").path("error").asBoolean());
        try {
            JsonNode saved = client.put(ROUTE).as(session).json(flipped).send().expectStatus(200).json()
                    .path("preferences");
            assertEquals(!inApp, saved.path("channels").path("inApp").asBoolean());
            JsonNode read = client.get(ROUTE).as(session).send().expectStatus(200).json().path("preferences");
            assertEquals(saved, read, "what was saved is what is read back");

            client.put(ROUTE).as(session).json(ContractClient.body("channels", Map.of("inApp", true))).send()
                    .expectError(400, "VALIDATION_FAILED");
            client.put(ROUTE).as(session).json(ContractClient.body("channels",
                    Map.of("inApp", "yes", "webPush", true), "events",
                    Map.of("actionRequired", true, "stop", true, "error", true))).send()
                    .expectError(400, "VALIDATION_FAILED");
            assertEquals(read, client.get(ROUTE).as(session).send().expectStatus(200).json().path("preferences"),
                    "a refused document changed nothing");

            JsonNode key = client.post("/api/settings/api-keys").as(session)
                    .json(ContractClient.body("name", Names.unique("prefs-key"))).send().expectStatus(201).json();
            try {
                Credential k = Credential.apiKeyHeader(key.path("api_key").asText());
                assertEquals(read, client.get(ROUTE).as(k).send().expectStatus(200).json().path("preferences"));
                client.put(ROUTE).as(k).json(flipped).send().expectError(403, "SESSION_REQUIRED");
            } finally {
                client.delete("/api/settings/api-keys/" + key.path("id").asLong()).as(session).send()
                        .expectStatus(200);
            }
        } finally {
            client.put(ROUTE).as(session).json(before).send().expectStatus(200);
        }
        assertEquals(before, client.get(ROUTE).as(session).send().expectStatus(200).json().path("preferences"));
    }

    private static Map<String, Object> prefs(boolean inApp, boolean webPush, boolean action, boolean stop,
                                             boolean error) {
        return Map.of("channels", Map.of("inApp", inApp, "webPush", webPush),
                "events", Map.of("actionRequired", action, "stop", stop, "error", error));
    }
}
