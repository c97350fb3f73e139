package org.agentworkspace.testkit.contract;

import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import org.agentworkspace.testkit.contract.ContractClient.Session;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The network family, read-only: the suite never opens a tunnel or a router mapping on the service under test.
 * Endpoints and the exposure snapshot have their documented shapes for an administrator's session; keys are refused.
 */
@Tag("contract")
@ExtendWith(ContractExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class NetworkContractTest {
    private Session session;

    @BeforeAll
    void signIn(ContractClient client) {
        session = client.login();
    }

    @Test
    void endpointsAndSnapshotForAnAdministratorOnly(ContractClient client, ContractHost host) {
        Assumptions.assumeTrue(session.isAdmin(), "the network routes are for administrators");
        JsonNode e = Served.require(client.get("/api/network/endpoints").as(session).send(), host, "network")
                .expectStatus(200).json();
        int port = e.path("port").asInt();
        assertTrue(port > 0 && port < 65536, e.toString());
        for (JsonNode url : e.path("endpoints")) {
            assertTrue(url.asText().matches("http://\\d{1,3}(\\.\\d{1,3}){3}:" + port), url.asText());
        }
        JsonNode snap = client.get("/api/network/external").as(session).send().expectStatus(200).json();
        assertTrue(snap.path("upnp").has("active") && snap.path("tunnel").has("active"), snap.toString());
        if (!snap.path("tunnel").path("active").asBoolean()) {
            assertTrue(snap.path("tunnel").path("url").isNull(), snap.toString());
        }

        JsonNode key = client.post("/api/settings/api-keys").as(session)
                .json(ContractClient.body("name", Names.unique("network-key"))).send().expectStatus(201).json();
        try {
            Credential k = Credential.apiKeyHeader(key.path("api_key").asText());
            client.get("/api/network/endpoints").as(k).send().expectError(403, "SESSION_REQUIRED");
            client.post("/api/network/tunnel").as(k).send().expectError(403, "SESSION_REQUIRED");
            client.post("/api/network/upnp").as(k).send().expectError(403, "SESSION_REQUIRED");
        } finally {
            client.delete("/api/settings/api-keys/" + key.path("id").asLong()).as(session).send().expectStatus(200);
        }
        client.get("/api/network/external").send().expectError(401, "AUTH_REQUIRED");
    }
}
