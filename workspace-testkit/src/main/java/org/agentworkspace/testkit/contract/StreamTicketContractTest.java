package org.agentworkspace.testkit.contract;

import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Instant;
import org.agentworkspace.testkit.contract.ContractClient.Session;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Stream tickets: issued to any principal, and accepted nowhere but on SSE and WebSocket routes (their redemption is
 * checked by the live-channel families).
 */
@Tag("contract")
@ExtendWith(ContractExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class StreamTicketContractTest {
    private static final String TICKETS = "/api/auth/stream-ticket";

    private Session session;

    @BeforeAll
    void signIn(ContractClient client) {
        session = client.login();
    }

    @Test
    void ticketIsIssuedForAnEmptyBodyOrNoBody(ContractClient client) {
        JsonNode withBody = client.post(TICKETS).as(session).json("{}").send().expectStatus(200).json();
        JsonNode withoutBody = client.post(TICKETS).as(session).send().expectStatus(200).json();

        for (JsonNode ticket : new JsonNode[] {withBody, withoutBody}) {
            Instant expiresAt = Instant.parse(ticket.path("expiresAt").asText());
            assertTrue(expiresAt.isAfter(Instant.now().minusSeconds(60)), "ticket already expired: " + expiresAt);
            assertTrue(ticket.path("expiresIn").asInt() <= 30, "tickets live at most 30 s");
        }
        assertTrue(!withBody.path("ticket").asText().equals(withoutBody.path("ticket").asText()),
                "every ticket is new");
    }

    @Test
    void ticketNeedsACredential(ContractClient client) {
        client.post(TICKETS).json("{}").send().expectError(401, "AUTH_REQUIRED");
    }

    @Test
    void ticketIsNotABearerCredential(ContractClient client) {
        String ticket = issue(client);

        client.get("/api/auth/user").as(Credential.bearer(ticket)).send().expectStatus(401);
    }

    @Test
    void ticketIsRefusedOnRoutesThatAreNotStreams(ContractClient client) {
        String ticket = issue(client);

        client.get("/api/auth/user?streamTicket=" + ticket).send().expectStatus(401);
    }

    private String issue(ContractClient client) {
        return client.post(TICKETS).as(session).json("{}").send().expectStatus(200).json().path("ticket").asText();
    }
}
