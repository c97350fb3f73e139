package org.agentworkspace.testkit.contract;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigInteger;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyPairGenerator;
import java.security.interfaces.ECPublicKey;
import java.security.spec.ECGenParameterSpec;
import java.security.spec.ECPoint;
import java.security.spec.ECPublicKeySpec;
import java.security.AlgorithmParameters;
import java.security.spec.ECParameterSpec;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;
import org.agentworkspace.testkit.contract.ContractClient.Session;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Notifications and Web Push subscriptions of the suite's own account, as a black box: the VAPID public key is a
 * P-256 point and stable; subscriptions are validated (400 with the family's codes), created, listed without their
 * endpoint path or keys, and removed; the list has its shape; the access rules hold (keys need {@code tasks:read}
 * for the list, subscriptions are session-only). Safe against a deployment: its subscriptions point at
 * {@code https://push.contract.invalid/…} (a name that never resolves) and are always removed; marking read is tried
 * on unknown ids only, and read-all only on a throwaway user.
 */
@Tag("contract")
@ExtendWith(ContractExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class NotificationsContractTest {
    private static final String LIST = "/api/notifications";
    private static final String KEY = "/api/notifications/web-push/public-key";
    private static final String SUBS = "/api/notifications/web-push/subscriptions";

    private Session session;

    @BeforeAll
    void signIn(ContractClient client) {
        session = client.login();
    }

    @Test
    void thePublicKeyIsAStableP256Point(ContractClient client, ContractHost host) throws Exception {
        JsonNode first = Served.require(client.get(KEY).as(session).send(), host, "notifications").expectStatus(200)
                .json();
        String key = first.path("publicKey").asText();
        assertEquals(87, key.length(), first.toString());
        byte[] point = Base64.getUrlDecoder().decode(key);
        assertEquals(65, point.length);
        assertEquals(4, point[0], "an uncompressed point");
        publicKey(point);
        assertEquals(key, client.get(KEY).as(session).send().expectStatus(200).json().path("publicKey").asText());
        assertFalse(first.has("privateKey"), "never the private key");
        client.get(KEY).as(Credential.none()).send().expectError(401, "AUTH_REQUIRED");
    }

    @Test
    void subscriptionsAreValidatedCreatedListedAndRemoved(ContractClient client, ContractHost host) throws Exception {
        int held = Served.require(client.get(SUBS).as(session).send(), host, "notifications").expectStatus(200)
                .json().path("subscriptions").size();
        Map<String, String> keys = keys();
        for (String bad : List.of("http://push.contract.invalid/x", "https://10.1.2.3/x", "https://localhost/x",
                "https://127.0.0.1/x", "not a url", "https://user@push.contract.invalid/x")) {
            client.post(SUBS).as(session).json(ContractClient.body("endpoint", bad, "keys", keys)).send()
                    .expectError(400, "INVALID_PUSH_ENDPOINT");
        }
        String endpoint = "https://push.contract.invalid/wpush/" + Names.hex(16);
        byte[] offCurve = new byte[65];
        offCurve[0] = 4;
        offCurve[64] = 7;
        for (Map<String, String> bad : List.of(Map.of("p256dh", b64(offCurve), "auth", keys.get("auth")),
                Map.of("p256dh", keys.get("p256dh"), "auth", b64(new byte[8])),
                Map.of("p256dh", "%%%", "auth", keys.get("auth")))) {
            client.post(SUBS).as(session).json(ContractClient.body("endpoint", endpoint, "keys", bad)).send()
                    .expectError(400, "INVALID_PUSH_KEYS");
        }
        client.post(SUBS).as(session).json(ContractClient.body("endpoint", endpoint)).send()
                .expectError(400, "INVALID_PUSH_KEYS");
        assertEquals(held, client.get(SUBS).as(session).send().expectStatus(200).json().path("subscriptions").size(),
                "nothing refused was stored");

        JsonNode created = client.post(SUBS).as(session).json(ContractClient.body("endpoint", endpoint,
                "expirationTime", null, "keys", keys)).send().expectStatus(201).json().path("subscription");
        String id = created.path("id").asText();
        try {
            assertEquals("https://push.contract.invalid", created.path("origin").asText(), created.toString());
            String listed = client.get(SUBS).as(session).send().expectStatus(200).body();
            assertTrue(listed.contains(id), listed);
            assertFalse(listed.contains("/wpush/") || listed.contains(keys.get("auth")),
                    "no endpoint path and no keys in the listing: " + listed);
        } finally {
            client.delete(SUBS + "/" + id).as(session).send().expectStatus(200);
        }
        assertFalse(client.get(SUBS).as(session).send().expectStatus(200).body().contains(id));
        client.delete(SUBS + "/" + id).as(session).send().expectError(404, "PUSH_SUBSCRIPTION_NOT_FOUND");
    }

    @Test
    void theListHasItsShapeAndKeysNeedTasksRead(ContractClient client, ContractHost host) throws Exception {
        JsonNode list = Served.require(client.get(LIST + "?limit=5").as(session).send(), host, "notifications")
                .expectStatus(200).json();
        assertTrue(list.path("notifications").isArray() && list.path("notifications").size() <= 5, list.toString());
        assertTrue(list.path("unread").isInt(), list.toString());
        long previous = Long.MAX_VALUE;
        for (JsonNode n : list.path("notifications")) {
            long id = Long.parseLong(n.path("id").asText());
            assertTrue(id < previous, "newest first: " + list);
            previous = id;
        }
        client.get(LIST + "?limit=0").as(session).send().expectError(400, "VALIDATION_FAILED");
        client.get(LIST + "?limit=abc").as(session).send().expectError(400, "VALIDATION_FAILED");
        client.post(LIST + "/0/read").as(session).send().expectError(404, "NOTIFICATION_NOT_FOUND");
        client.post(LIST + "/no-such-id/read").as(session).send().expectError(404, "NOTIFICATION_NOT_FOUND");
        client.get(LIST).as(Credential.none()).send().expectError(401, "AUTH_REQUIRED");

        JsonNode reader = createKey(client, List.of("tasks:read"));
        JsonNode other = createKey(client, List.of("projects:read"));
        try {
            Credential tasksRead = Credential.apiKeyHeader(reader.path("api_key").asText());
            Credential projectsRead = Credential.apiKeyHeader(other.path("api_key").asText());
            client.get(LIST).as(tasksRead).send().expectStatus(200);
            client.get(KEY).as(projectsRead).send().expectStatus(200);
            client.get(LIST).as(projectsRead).send().expectError(403, "INSUFFICIENT_SCOPE");
            client.post(LIST + "/read-all").as(projectsRead).send().expectError(403, "INSUFFICIENT_SCOPE");
            client.get(SUBS).as(tasksRead).send().expectError(403, "SESSION_REQUIRED");
            client.post(SUBS).as(tasksRead).json(ContractClient.body("endpoint",
                    "https://push.contract.invalid/" + Names.hex(8), "keys", keys())).send()
                    .expectError(403, "SESSION_REQUIRED");
            client.delete(SUBS + "/wps_none").as(tasksRead).send().expectError(403, "SESSION_REQUIRED");
        } finally {
            deleteKey(client, reader);
            deleteKey(client, other);
        }
    }

    @Test
    void aNewUserHasNoNotificationsAndReadAllMarksNone(ContractClient client, ContractHost host) {
        Assumptions.assumeTrue(session.isAdmin(), "needs an administrator to create a throwaway user");
        Served.require(client.get(LIST).as(session).send(), host, "notifications");
        String username = Names.unique("notify");
        String password = "password-" + Names.hex(8);
        JsonNode user = client.post("/api/users").as(session)
                .json(ContractClient.body("username", username, "password", password)).send().expectStatus(201).json();
        try {
            Session member = client.login(username, password);
            JsonNode list = client.get(LIST).as(member).send().expectStatus(200).json();
            assertEquals(0, list.path("notifications").size(), "notifications belong to their user: " + list);
            assertEquals(0, list.path("unread").asInt());
            assertEquals(0, client.post(LIST + "/read-all").as(member).send().expectStatus(200).json().path("marked")
                    .asInt());
            assertEquals("[]", client.get(SUBS).as(member).send().expectStatus(200).json().path("subscriptions")
                    .toString());
        } finally {
            client.delete("/api/users/" + user.path("id").asLong()).as(session).send().expectStatus(200, 404);
        }
    }

    private JsonNode createKey(ContractClient client, List<String> scopes) {
        return client.post("/api/settings/api-keys").as(session)
                .json(ContractClient.body("name", Names.unique("notify-key"), "scopes", scopes)).send()
                .expectStatus(201).json();
    }

    private void deleteKey(ContractClient client, JsonNode key) {
        client.delete("/api/settings/api-keys/" + key.path("id").asLong()).as(session).send().expectStatus(200);
    }

    /** A browser's subscription keys: a fresh P-256 public key and a 16-byte auth secret, base64url. */
    private static Map<String, String> keys() throws GeneralSecurityException {
        KeyPairGenerator g = KeyPairGenerator.getInstance("EC");
        g.initialize(new ECGenParameterSpec("secp256r1"));
        ECPublicKey k = (ECPublicKey) g.generateKeyPair().getPublic();
        byte[] point = new byte[65];
        point[0] = 4;
        copy32(k.getW().getAffineX(), point, 1);
        copy32(k.getW().getAffineY(), point, 33);
        return Map.of("p256dh", b64(point), "auth", b64(Names.hex(8).getBytes(java.nio.charset.StandardCharsets.US_ASCII)));
    }

    private static void publicKey(byte[] point) throws GeneralSecurityException {
        AlgorithmParameters ap = AlgorithmParameters.getInstance("EC");
        ap.init(new ECGenParameterSpec("secp256r1"));
        KeyFactory.getInstance("EC").generatePublic(new ECPublicKeySpec(new ECPoint(
                new BigInteger(1, Arrays.copyOfRange(point, 1, 33)), new BigInteger(1, Arrays.copyOfRange(point, 33, 65))),
                ap.getParameterSpec(ECParameterSpec.class)));
    }

    private static void copy32(BigInteger v, byte[] out, int at) {
        byte[] b = v.toByteArray();
        int len = Math.min(b.length, 32);
        System.arraycopy(b, b.length - len, out, at + 32 - len, len);
    }

    private static String b64(byte[] b) {
        return Base64.getUrlEncoder().withoutPadding().encodeToString(b);
    }
}
