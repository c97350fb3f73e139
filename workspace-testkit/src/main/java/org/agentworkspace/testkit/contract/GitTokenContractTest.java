package org.agentworkspace.testkit.contract;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
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
 * The git token. The suite never changes its own account's token: reading its status is checked for every
 * account; setting, masking and removing a token is checked on a user the suite creates and deletes
 * (administrator accounts only; skipped otherwise).
 */
@Tag("contract")
@ExtendWith(ContractExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class GitTokenContractTest {
    private static final String TOKEN_ROUTE = "/api/settings/git-token";

    private Session session;

    @BeforeAll
    void signIn(ContractClient client) {
        session = client.login();
    }

    @Test
    void statusNeverShowsTheTokenAndKeysAreRefused(ContractClient client, ContractHost host) {
        JsonNode body = Served.require(client.get(TOKEN_ROUTE).as(session).send(), host, "git token")
                .expectStatus(200).json();
        if (body.path("configured").asBoolean()) {
            assertTrue(body.path("masked").asText().matches("….{0,4}"), body.toString());
        }
        JsonNode key = client.post("/api/settings/api-keys").as(session)
                .json(ContractClient.body("name", Names.unique("git-token-key"))).send().expectStatus(201).json();
        try {
            Credential k = Credential.apiKeyHeader(key.path("api_key").asText());
            client.get(TOKEN_ROUTE).as(k).send().expectError(403, "SESSION_REQUIRED");
            client.put(TOKEN_ROUTE).as(k).json(ContractClient.body("token", "never-stored")).send()
                    .expectError(403, "SESSION_REQUIRED");
            client.delete(TOKEN_ROUTE).as(k).send().expectError(403, "SESSION_REQUIRED");
        } finally {
            client.delete("/api/settings/api-keys/" + key.path("id").asLong()).as(session).send().expectStatus(200);
        }
        assertEquals(body, client.get(TOKEN_ROUTE).as(session).send().expectStatus(200).json(), "nothing changed");
    }

    @Test
    void aTokenIsStoredMaskedAndRemoved(ContractClient client, ContractHost host) {
        Assumptions.assumeTrue(session.isAdmin(), "needs an administrator to create a throwaway user");
        Served.require(client.get(TOKEN_ROUTE).as(session).send(), host, "git token");
        String username = Names.unique("gittoken");
        String password = "password-" + Names.hex(8);
        JsonNode user = client.post("/api/users").as(session)
                .json(ContractClient.body("username", username, "password", password)).send().expectStatus(201).json();
        try {
            Session member = client.login(username, password);
            assertFalse(client.get(TOKEN_ROUTE).as(member).send().expectStatus(200).json().path("configured")
                    .asBoolean());
            String token = "contract_" + Names.hex(16) + "WXYZ";
            ContractResponse set = client.put(TOKEN_ROUTE).as(member)
                    .json(ContractClient.body("token", token, "username", "contract-user")).send().expectStatus(200);
            assertFalse(set.body().contains(token));
            assertEquals("…WXYZ", set.json().path("masked").asText());
            ContractResponse status = client.get(TOKEN_ROUTE).as(member).send().expectStatus(200);
            assertFalse(status.body().contains(token), "the token is never returned");
            assertEquals("contract-user", status.json().path("username").asText());
            client.put(TOKEN_ROUTE).as(member).json(ContractClient.body("token", "has space")).send()
                    .expectError(400, "VALIDATION_FAILED");
            assertTrue(client.delete(TOKEN_ROUTE).as(member).send().expectStatus(200).json().path("removed")
                    .asBoolean());
            assertFalse(client.get(TOKEN_ROUTE).as(member).send().expectStatus(200).json().path("configured")
                    .asBoolean());
        } finally {
            client.delete("/api/users/" + user.path("id").asLong()).as(session).send().expectStatus(200, 404);
        }
    }
}
