package org.agentworkspace.testkit.contract;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.agentworkspace.testkit.contract.ContractClient.Session;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;

/** API keys: created once in full, listed masked, accepted through both headers, refused when inactive or deleted. */
@Tag("contract")
@ExtendWith(ContractExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ApiKeysContractTest {
    private static final String KEYS = "/api/settings/api-keys";

    private final List<Long> created = new ArrayList<>();
    private Session session;

    @BeforeAll
    void signIn(ContractClient client) {
        session = client.login();
    }

    @AfterEach
    void deleteCreatedKeys(ContractClient client) {
        for (Long id : created) {
            client.delete(KEYS + "/" + id).as(session).send().expectStatus(200, 404);
        }
        created.clear();
    }

    @Test
    void createdKeyIsShownOnceAndListedMasked(ContractClient client) {
        ContractResponse response = client.post(KEYS).as(session)
                .json(ContractClient.body("name", Names.unique("key"))).send().expectStatus(201);
        JsonNode key = remember(response.json());
        String secret = key.path("api_key").asText();

        assertTrue(secret.matches("px_[0-9a-f]{32}"), "full key format: px_ and 32 lowercase hex");
        assertEquals("no-store", response.header("Cache-Control").orElse(""));
        assertEquals(Set.of("projects:read", "projects:write", "tasks:read", "tasks:write", "providers:read"),
                scopes(key),
                "default scopes");

        ContractResponse list = client.get(KEYS).as(session).send().expectStatus(200);
        assertFalse(list.body().contains(secret), "the full key must never be listed");
        JsonNode listed = find(list.json(), key.path("id").asLong());
        assertEquals("px_\u2026" + secret.substring(secret.length() - 4), listed.path("api_key").asText());
        assertEquals(key.path("key_name").asText(), listed.path("key_name").asText());
    }

    @Test
    void keyAuthenticatesThroughBearerAndXApiKey(ContractClient client) {
        String secret = createKey(client);

        JsonNode viaBearer = client.get("/api/auth/user").as(Credential.bearer(secret)).send()
                .expectStatus(200).json();
        JsonNode viaHeader = client.get("/api/auth/user").as(Credential.apiKeyHeader(secret)).send()
                .expectStatus(200).json();

        assertEquals(client.target().username(), viaBearer.path("user").path("username").asText());
        assertEquals(viaBearer.path("user"), viaHeader.path("user"));
    }

    @Test
    void inactiveKeyIsRefusedUntilReactivated(ContractClient client) {
        String secret = createKey(client);
        long id = created.getLast();

        JsonNode off = client.patch(KEYS + "/" + id + "/toggle").as(session)
                .json(ContractClient.body("is_active", false)).send().expectStatus(200).json();
        assertFalse(off.path("is_active").asBoolean());
        client.get("/api/auth/user").as(Credential.apiKeyHeader(secret)).send().expectError(401, "INVALID_API_KEY");
        client.get("/api/auth/user").as(Credential.bearer(secret)).send().expectError(401, "INVALID_API_KEY");

        JsonNode on = client.patch(KEYS + "/" + id + "/toggle").as(session)
                .json(ContractClient.body("is_active", true)).send().expectStatus(200).json();
        assertTrue(on.path("is_active").asBoolean());
        client.get("/api/auth/user").as(Credential.apiKeyHeader(secret)).send().expectStatus(200);
    }

    @Test
    void streamOpenedWithAKeyEndsSoonAfterTheKeyIsDeactivated(ContractClient client) {
        String secret = createKey(client);
        long id = created.getLast();

        try (ContractEventStream stream = client.get("/api/events").as(Credential.apiKeyHeader(secret)).openStream()) {
            stream.response().expectStatus(200);
            assertEquals("ready", stream.next(Duration.ofSeconds(10)).event());
            client.patch(KEYS + "/" + id + "/toggle").as(session)
                    .json(ContractClient.body("is_active", false)).send().expectStatus(200);
            long deactivated = System.nanoTime();

            ContractEventStream.Event event = stream.next(Duration.ofSeconds(10));
            while (event.event().equals("heartbeat")) {
                event = stream.next(Duration.ofSeconds(10));
            }
            Duration took = Duration.ofNanos(System.nanoTime() - deactivated);
            assertEquals("error", event.event(), "a revoked credential ends the stream with an error event");
            assertEquals("CREDENTIAL_REVOKED", event.json().path("code").asText());
            assertTrue(took.compareTo(Duration.ofSeconds(5)) <= 0, "stream ended " + took + " after revocation");
            assertTrue(stream.nextOrEnd(Duration.ofSeconds(5)).isEmpty(), "the stream closes after the error");
        }
    }

    @Test
    void deletedKeyIsRefused(ContractClient client) {
        String secret = createKey(client);
        long id = created.getLast();
        client.get("/api/auth/user").as(Credential.bearer(secret)).send().expectStatus(200);

        client.delete(KEYS + "/" + id).as(session).send().expectStatus(200);
        created.remove(Long.valueOf(id));

        client.get("/api/auth/user").as(Credential.bearer(secret)).send().expectError(401, "INVALID_API_KEY");
        client.delete(KEYS + "/" + id).as(session).send().expectError(404, "API_KEY_NOT_FOUND");
        client.patch(KEYS + "/" + id + "/toggle").as(session).json(ContractClient.body("is_active", true)).send()
                .expectError(404, "API_KEY_NOT_FOUND");
    }

    @Test
    void keyInTheQueryStringIsRefused(ContractClient client) {
        String secret = createKey(client);

        client.get("/api/auth/user?apiKey=" + secret).send().expectStatus(401);
    }

    @Test
    void malformedKeyIsRefused(ContractClient client) {
        client.get("/api/auth/user").as(Credential.apiKeyHeader("px_" + Names.hex(15) + "a")).send()
                .expectError(401, "INVALID_API_KEY");
        client.get("/api/auth/user").as(Credential.bearer("px_" + Names.hex(16))).send()
                .expectError(401, "INVALID_API_KEY");
    }

    @Test
    void keysCannotManageKeys(ContractClient client) {
        String secret = createKey(client);

        client.get(KEYS).as(Credential.apiKeyHeader(secret)).send().expectError(403, "SESSION_REQUIRED");
        ContractResponse attempt = client.post(KEYS).as(Credential.bearer(secret))
                .json(ContractClient.body("name", Names.unique("by-key"))).send();
        if (attempt.status() == 201) {
            remember(attempt.json());
        }
        attempt.expectError(403, "SESSION_REQUIRED");
        client.delete(KEYS + "/" + created.getFirst()).as(Credential.apiKeyHeader(secret)).send()
                .expectError(403, "SESSION_REQUIRED");
    }

    @Test
    void scopesAreValidatedAndKept(ContractClient client) {
        client.post(KEYS).as(session)
                .json(ContractClient.body("name", Names.unique("bad-scope"), "scopes", List.of("admin:everything")))
                .send().expectError(400, "UNKNOWN_SCOPE");
        client.post(KEYS).as(session).json(ContractClient.body("name", "")).send()
                .expectError(400, "VALIDATION_FAILED");

        JsonNode key = remember(client.post(KEYS).as(session)
                .json(ContractClient.body("name", Names.unique("read-only"), "scopes", List.of("projects:read")))
                .send().expectStatus(201).json());
        assertEquals(Set.of("projects:read"), scopes(key));
    }

    private String createKey(ContractClient client) {
        JsonNode key = remember(client.post(KEYS).as(session)
                .json(ContractClient.body("name", Names.unique("key"))).send().expectStatus(201).json());
        return key.path("api_key").asText();
    }

    private JsonNode remember(JsonNode key) {
        created.add(key.path("id").asLong());
        return key;
    }

    private static Set<String> scopes(JsonNode key) {
        Set<String> scopes = new TreeSet<>();
        key.path("scopes").forEach(s -> scopes.add(s.asText()));
        return scopes;
    }

    private static JsonNode find(JsonNode keys, long id) {
        for (JsonNode key : keys) {
            if (key.path("id").asLong() == id) {
                return key;
            }
        }
        throw new AssertionError("key " + id + " is not listed");
    }
}
