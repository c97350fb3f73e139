package org.agentworkspace.testkit.contract;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;
import org.agentworkspace.testkit.contract.ContractClient.Session;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * User administration (administrator sessions only). Skipped when the suite's account is not an administrator.
 * Creates users under unique names and deletes them; never deletes or changes the suite's own account.
 */
@Tag("contract")
@ExtendWith(ContractExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class UsersContractTest {
    private static final String USERS = "/api/users";

    private final List<Long> created = new ArrayList<>();
    private Session admin;

    @BeforeAll
    void signIn(ContractClient client) {
        admin = client.login();
    }

    @AfterEach
    void deleteCreatedUsers(ContractClient client) {
        for (Long id : created) {
            client.delete(USERS + "/" + id).as(admin).send().expectStatus(200, 404);
        }
        created.clear();
    }

    @Test
    void administratorListsUsersIncludingThemselves(ContractClient client) {
        Assumptions.assumeTrue(admin.isAdmin(), "the suite's account is not an administrator");

        JsonNode users = client.get(USERS).as(admin).send().expectStatus(200).json();

        boolean found = false;
        for (JsonNode user : users) {
            found |= client.target().username().equals(user.path("username").asText());
        }
        assertTrue(found, "the list holds the signed-in administrator");
    }

    @Test
    void createdUserCanSignInIsNoAdministratorAndIsGoneAfterDelete(ContractClient client) {
        Assumptions.assumeTrue(admin.isAdmin(), "the suite's account is not an administrator");
        String username = Names.unique("user");
        String password = "password-" + Names.hex(8);

        JsonNode user = client.post(USERS).as(admin).json(ContractClient.body("username", username, "password", password))
                .send().expectStatus(201).json();
        created.add(user.path("id").asLong());
        assertEquals(username, user.path("username").asText());
        assertFalse(user.path("is_admin").asBoolean(), "users are not administrators unless asked");

        client.post(USERS).as(admin).json(ContractClient.body("username", username, "password", password))
                .send().expectError(409, "USERNAME_TAKEN");

        Session member = client.login(username, password);
        client.get(USERS).as(member).send().expectError(403, "ADMIN_REQUIRED");
        client.get("/api/auth/user").as(member).send().expectStatus(200);

        client.delete(USERS + "/" + user.path("id").asLong()).as(admin).send().expectStatus(200);
        created.clear();
        client.get("/api/auth/user").as(member).send().expectError(401, "INVALID_TOKEN");
        client.delete(USERS + "/" + user.path("id").asLong()).as(admin).send().expectError(404, "USER_NOT_FOUND");
    }

    @Test
    void userAdministrationRefusesBadInputAndApiKeys(ContractClient client) {
        Assumptions.assumeTrue(admin.isAdmin(), "the suite's account is not an administrator");

        client.post(USERS).as(admin).json(ContractClient.body("username", "bad name!", "password", "password-123"))
                .send().expectError(400, "VALIDATION_FAILED");
        client.post(USERS).as(admin).json(ContractClient.body("username", Names.unique("short"), "password", "short"))
                .send().expectError(400, "VALIDATION_FAILED");

        JsonNode key = client.post("/api/settings/api-keys").as(admin)
                .json(ContractClient.body("name", Names.unique("users-key"))).send().expectStatus(201).json();
        try {
            client.get(USERS).as(Credential.apiKeyHeader(key.path("api_key").asText())).send()
                    .expectError(403, "SESSION_REQUIRED");
        } finally {
            client.delete("/api/settings/api-keys/" + key.path("id").asLong()).as(admin).send().expectStatus(200);
        }
    }
}
