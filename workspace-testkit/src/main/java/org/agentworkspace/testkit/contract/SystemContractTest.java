package org.agentworkspace.testkit.contract;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import com.fasterxml.jackson.databind.JsonNode;
import org.agentworkspace.testkit.contract.ContractClient.Session;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Self-update and restart. By default only what is refused is exercised, so nothing on the service changes: no
 * credential (401), a key without {@code system:update} (403 {@code INSUFFICIENT_SCOPE}; restart refuses every key
 * with 403 {@code SESSION_REQUIRED}), a non-administrator
 * signed in or with a {@code system:update} key (403 {@code ADMIN_REQUIRED}, on a throwaway {@code contract-…}
 * user). A real update runs only with {@code aw.contract.allowUpdate=true} ({@code --allow-update}), a restart only
 * with {@code aw.contract.allowRestart=true} ({@code --allow-restart}); both wait until the service answers again.
 */
@Tag("contract")
@ExtendWith(ContractExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class SystemContractTest {
    private static final String UPDATE = "/api/system/update";
    private static final String RESTART = "/api/system/restart";
    private static final Duration BACK_WITHIN = Duration.ofMinutes(3);

    private Session session;
    private final List<Long> keys = new ArrayList<>();
    private final List<Long> users = new ArrayList<>();

    @BeforeAll
    void signIn(ContractClient client) {
        session = client.login();
    }

    @AfterEach
    void cleanUp(ContractClient client) {
        for (long id : keys) {
            client.delete("/api/settings/api-keys/" + id).as(session).send().expectStatus(200, 404);
        }
        keys.clear();
        for (long id : users) {
            client.delete("/api/users/" + id).as(session).send().expectStatus(200, 404);
        }
        users.clear();
    }

    private Credential key(ContractClient client, Session owner, String... scopes) {
        JsonNode k = client.post("/api/settings/api-keys").as(owner)
                .json(ContractClient.body("name", Names.unique("system-key"), "scopes", List.of(scopes))).send()
                .expectStatus(201).json();
        if (owner == session) {
            keys.add(k.path("id").asLong());
        }
        return Credential.apiKeyHeader(k.path("api_key").asText());
    }

    @Test
    @Order(1)
    void withoutACredentialBothRoutesAre401(ContractClient client, ContractHost host) {
        Served.require(client.post(UPDATE).send(), host, "system").expectError(401, "AUTH_REQUIRED");
        client.post(RESTART).send().expectError(401, "AUTH_REQUIRED");
    }

    @Test
    @Order(2)
    void aKeyWithoutSystemUpdateIsRefused(ContractClient client, ContractHost host) {
        Credential weak = key(client, session, "projects:read", "tasks:read");
        Served.require(client.post(UPDATE).as(weak).send(), host, "system").expectError(403, "INSUFFICIENT_SCOPE");
        // restart takes no key at all, whatever its scopes
        client.post(RESTART).as(weak).send().expectError(403, "SESSION_REQUIRED");
        Credential update = key(client, session, "system:update");
        client.post(RESTART).as(update).send().expectError(403, "SESSION_REQUIRED");
    }

    @Test
    @Order(3)
    void nonAdministratorsAreRefusedSignedInAndWithASystemUpdateKey(ContractClient client, ContractHost host) {
        if (!session.isAdmin()) {
            // the suite's own account is a non-administrator: refused, so nothing happens
            Served.require(client.post(UPDATE).as(session).send(), host, "system").expectError(403, "ADMIN_REQUIRED");
            client.post(RESTART).as(session).send().expectError(403, "ADMIN_REQUIRED");
            return;
        }
        String username = Names.unique("system-user");
        String password = "password-" + Names.hex(8);
        JsonNode user = client.post("/api/users").as(session)
                .json(ContractClient.body("username", username, "password", password)).send().expectStatus(201).json();
        users.add(user.path("id").asLong());
        Session member = client.login(username, password);
        Served.require(client.post(UPDATE).as(member).send(), host, "system").expectError(403, "ADMIN_REQUIRED");
        client.post(RESTART).as(member).send().expectError(403, "ADMIN_REQUIRED");
        // a browser session of a non-administrator (cookie with its own origin) is refused the same way
        client.post(RESTART).as(member.cookieCredential()).send().expectError(403, "ADMIN_REQUIRED");
        Credential memberKey = key(client, member, "system:update");
        client.post(UPDATE).as(memberKey).send().expectError(403, "ADMIN_REQUIRED");
        client.post(RESTART).as(memberKey).send().expectError(403, "SESSION_REQUIRED");
    }

    /**
     * Opt-in: a real update. It ends with {@code done} (perhaps {@code updated: false}) or a documented
     * {@code error}; every frame has an id; after {@code selfRestarting: true} the service answers again with a
     * version not older than before.
     */
    @Test
    @Order(10)
    void anUpdateStreamsItsEventsAndTheServiceComesBack(ContractClient client, ContractHost host) {
        host.assumeOptedIn(ContractHost.UPDATE, "a real self-update");
        Assumptions.assumeTrue(session.isAdmin(), "updates are for administrators");
        String before = client.get("/health").send().expectStatus(200).json().path("version").asText();
        JsonNode last;
        try (ContractEventStream stream = client.post(UPDATE).as(session).openStream()) {
            assertEquals(200, stream.response().status(), stream.response().describe());
            long previous = 0;
            while (true) {
                ContractEventStream.Event e = stream.next(Duration.ofMinutes(10));
                assertNotNull(e.id(), "every frame has an id");
                long id = Long.parseLong(e.id());
                assertTrue(id > previous, "ids grow");
                previous = id;
                if (e.event().equals("done") || e.event().equals("error")) {
                    last = e.json();
                    assertEquals(Optional.empty(), stream.nextOrEnd(Duration.ofSeconds(30)),
                            "the stream ends after " + e.event());
                    if (e.event().equals("error")) {
                        assertTrue(last.path("code").asText().matches("[A-Z][A-Z0-9_]*"), last.toString());
                        return;
                    }
                    break;
                }
            }
        }
        if (last.path("selfRestarting").asBoolean()) {
            JsonNode health = waitUntilBack(client);
            assertFalse(compare(health.path("version").asText(), before) < 0, "the version did not go back");
        }
    }

    /** Opt-in: a restart answers 200, and the service answers again afterwards. Runs last. */
    @Test
    @Order(20)
    void aRestartAnswersAndTheServiceComesBack(ContractClient client, ContractHost host) {
        host.assumeOptedIn(ContractHost.RESTART, "a restart");
        Assumptions.assumeTrue(session.isAdmin(), "restarts are for administrators");
        JsonNode body = client.post(RESTART).as(session).send().expectStatus(200).json();
        assertTrue(body.path("success").asBoolean());
        assertEquals(42, body.path("exitCode").asInt());
        waitUntilBack(client);
        // the session outlives the restart (its signing secret is on disk)
        client.get("/api/auth/user").as(session).send().expectStatus(200);
    }

    /** Polls {@code /health} (after a moment for the process to go) until it answers 200. */
    private static JsonNode waitUntilBack(ContractClient client) {
        long deadline = System.nanoTime() + BACK_WITHIN.toNanos();
        sleep(1000);
        while (System.nanoTime() < deadline) {
            try {
                ContractResponse r = client.get("/health").sendUnchecked();
                if (r.status() == 200) {
                    return r.json();
                }
            } catch (AssertionError | RuntimeException e) {
                // not listening yet
            }
            sleep(500);
        }
        return fail("the service did not answer /health within " + BACK_WITHIN);
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static int compare(String a, String b) {
        String[] x = a.split("\\.");
        String[] y = b.split("\\.");
        for (int i = 0; i < Math.min(x.length, y.length); i++) {
            int c = Long.compare(Long.parseLong(x[i]), Long.parseLong(y[i]));
            if (c != 0) {
                return c;
            }
        }
        return Integer.compare(x.length, y.length);
    }
}
