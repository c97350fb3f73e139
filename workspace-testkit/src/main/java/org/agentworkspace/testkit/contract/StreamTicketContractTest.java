package org.agentworkspace.testkit.contract;

import static org.junit.jupiter.api.Assertions.assertTrue;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Duration;
import java.time.Instant;
import org.agentworkspace.testkit.contract.ContractClient.Session;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Stream tickets: issued to any principal, redeemable once on a stream route ({@code GET /api/events}), and accepted
 * nowhere else.
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

    @Test
    void ticketOpensOneStreamOnlyOnce(ContractClient client) {
        String ticket = issue(client);

        try (ContractEventStream stream = client.get("/api/events?streamTicket=" + ticket).openStream()) {
            stream.response().expectStatus(200);
            ContractEventStream.Event ready = stream.next(Duration.ofSeconds(10));
            assertEquals("ready", ready.event());
            assertEquals(client.target().username(), ready.json().path("user").path("username").asText());
        }
        try (ContractEventStream again = client.get("/api/events?streamTicket=" + ticket).openStream()) {
            again.response().expectError(401, "INVALID_STREAM_TICKET");
        }
    }

    @Test
    void unknownTicketIsRefused(ContractClient client) {
        try (ContractEventStream stream = client.get("/api/events?streamTicket=" + Names.hex(24)).openStream()) {
            stream.response().expectError(401, "INVALID_STREAM_TICKET");
        }
    }

    private String issue(ContractClient client) {
        return client.post(TICKETS).as(session).json("{}").send().expectStatus(200).json().path("ticket").asText();
    }
}
