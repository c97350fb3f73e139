package org.agentworkspace.testkit.contract;

import static org.junit.jupiter.api.Assertions.assertTrue;

import org.agentworkspace.testkit.contract.ContractClient.Session;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.extension.ExtendWith;

/** The error envelope on cross-cutting failures: unknown route, malformed body, wrong media type, wrong method. */
@Tag("contract")
@ExtendWith(ContractExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ErrorsContractTest {
    private Session session;

    @BeforeAll
    void signIn(ContractClient client) {
        session = client.login();
    }

    @Test
    void unknownRouteGives404RouteNotFound(ContractClient client) {
        client.get("/api/no-such-route-" + Names.hex(4)).as(session).send()
                .expectError(404, "ROUTE_NOT_FOUND");
    }

    @Test
    void malformedJsonGives400InvalidJson(ContractClient client) {
        ContractResponse response = client.post("/api/settings/api-keys").as(session)
                .json("{\"name\": \"contract-broken\", ").send();
        deleteIfCreated(client, response);
        response.expectError(400, "INVALID_JSON");
    }

    @Test
    void nonJsonBodyGives415(ContractClient client) {
        ContractResponse response = client.post("/api/settings/api-keys").as(session)
                .body("text/plain", "name=contract-plain").send();
        deleteIfCreated(client, response);
        response.expectError(415, "UNSUPPORTED_MEDIA_TYPE");
    }

    @Test
    void wrongMethodGives405Or404Envelope(ContractClient client) {
        for (ContractClient.Request request : new ContractClient.Request[] {
                client.delete("/health"), client.put("/api/auth/login").json("{}"), client.patch("/api/auth/status")}) {
            ContractResponse response = request.as(session).send().expectStatus(405, 404);
            String code = response.errorCode();
            assertTrue(code.equals("METHOD_NOT_ALLOWED") || code.equals("ROUTE_NOT_FOUND"),
                    response.describe() + ": unexpected code " + code);
        }
    }

    private void deleteIfCreated(ContractClient client, ContractResponse response) {
        if (response.status() == 201) {
            client.delete("/api/settings/api-keys/" + response.json().path("id").asLong()).as(session).send();
        }
    }
}
