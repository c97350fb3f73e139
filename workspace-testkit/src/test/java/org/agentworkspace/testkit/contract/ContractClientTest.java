package org.agentworkspace.testkit.contract;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import org.junit.jupiter.api.Test;
import org.opentest4j.AssertionFailedError;

/** The client's own behaviour: secrets stay out of messages, targets are normalised, violations fail the test. */
class ContractClientTest {

    @Test
    void failureMessagesHideSecrets() {
        String body = "{\"success\":true,\"token\":\"eyJhbGciOi.abc.def\",\"user\":{},\"api_key\" : \"px_0123\","
                + "\"ticket\":\"t-1\",\"note\":\"kept\"}";
        String redacted = ContractClient.redactBody(body);

        assertFalse(redacted.contains("eyJhbGciOi"), redacted);
        assertFalse(redacted.contains("px_0123"), redacted);
        assertFalse(redacted.contains("t-1"), redacted);
        assertTrue(redacted.contains("\"note\":\"kept\""), redacted);
        assertEquals("/api/auth/user?apiKey=***&x=1&streamTicket=***",
                ContractClient.redactQuery("/api/auth/user?apiKey=px_secret&x=1&streamTicket=abc"));
    }

    @Test
    void targetsAreNormalisedAndValidated() {
        ContractTarget target = ContractTarget.of("http://127.0.0.1:3001//", "admin", "pw");
        assertEquals(URI.create("http://127.0.0.1:3001"), target.baseUrl());
        assertEquals(URI.create("http://127.0.0.1:3001/health?x=1"), target.resolve("/health?x=1"));
        assertThrows(IllegalArgumentException.class, () -> target.resolve("health"));
        assertThrows(IllegalArgumentException.class, () -> ContractTarget.of("localhost:3001", "a", "b"));
        assertThrows(IllegalArgumentException.class, () -> ContractTarget.of("http://h/?q=1", "a", "b"));
        assertThrows(IllegalArgumentException.class, () -> ContractTarget.of("http://h", " ", "b"));
        assertFalse(target.toString().contains("pw"));
        assertFalse(Credential.bearer("px_secret").toString().contains("secret"));
        assertFalse(Credential.cookie("jwt-secret").toString().contains("secret"));
        assertFalse(Credential.apiKeyHeader("px_secret").toString().contains("secret"));
    }

    @Test
    void aNonConformingResponseFailsTheTest() throws Exception {
        try (ReferenceServer server = ReferenceServer.start(ReferenceServer.Defect.HEALTH_VERSION_NOT_SEMVER)) {
            ContractClient client = ContractClient.create(new ContractTarget(server.baseUrl(), "a", "b"));

            AssertionFailedError failure = assertThrows(AssertionFailedError.class,
                    () -> client.get("/health").send());
            assertTrue(failure.getMessage().contains("/version"), failure.getMessage());
            assertEquals(200, client.get("/health").sendUnchecked().status(), "unchecked sending still works");
            client.get("/api/auth/status").send().expectStatus(200);
        }
    }
}
