package org.agentworkspace.server.notifications;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.post;
import static com.github.tomakehurst.wiremock.client.WireMock.postRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.urlPathEqualTo;
import static com.github.tomakehurst.wiremock.client.WireMock.urlPathMatching;
import static org.agentworkspace.server.TestServer.bearer;
import static org.agentworkspace.server.TestServer.expect;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import com.fasterxml.jackson.databind.JsonNode;
import com.github.tomakehurst.wiremock.WireMockServer;
import com.github.tomakehurst.wiremock.core.WireMockConfiguration;
import com.github.tomakehurst.wiremock.verification.LoggedRequest;

import org.agentworkspace.api.provider.PermissionMode;
import org.agentworkspace.api.provider.ProviderCredentials;
import org.agentworkspace.core.agent.AgentSettings;
import org.agentworkspace.server.PushKeys;
import org.agentworkspace.server.ServerConfig;
import org.agentworkspace.server.TestServer;
import org.agentworkspace.server.WorkspaceServer;
import org.agentworkspace.testkit.fakecli.FakeClis;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Notification delivery through the running server, with the fake CLIs as agents and WireMock as the push service:
 * a run's end raises {@code stop} (gemini) or {@code error} (codex exiting 3), a tool-permission request of an
 * interactive claude run raises {@code actionRequired}; each reaches the in-app list, the {@code notification} event
 * of {@code /api/events} (resumable by {@code Last-Event-ID}) and, when the user wants it, a Web Push message that
 * the test decrypts with the subscription's private key and auth secret, and whose VAPID token it verifies with the
 * server's public key. Preferences are honoured per kind and per channel.
 */
class NotificationsRoutesTest {
    @TempDir
    static Path tmp;
    static TestServer s;
    static WireMockServer push;
    static String admin;
    static String bob;
    static String key;
    static String project;
    static String publicKey;

    @BeforeAll
    static void start() throws Exception {
        Path bin = FakeClis.install(tmp.resolve("bin"));
        Path claude = permissionCli(tmp.resolve("claude-permission"));
        Map<String, Map<String, String>> env = new HashMap<>();
        env.put("codex", Map.of("AW_FAKE_EXIT", "3"));
        AgentSettings base = AgentSettings.defaults().withBinaries(Map.of("*", bin, "claude", claude))
                .withProviderEnv(env).withCredentials(id -> new ProviderCredentials("sk-notify-test-key", null));
        // DEFAULT: claude runs interactively, so its permission requests reach the service
        AgentSettings agent = new AgentSettings(base.binaries(), base.providerEnv(), PermissionMode.DEFAULT,
                base.credentials(), base.projects(), base.trustLocalProjectPaths(), base.cloneAllowedHosts(),
                base.insecureCloneHosts(), base.githubApiUrl());
        s = TestServer.start(c -> c.withEngine(c.engine().withWebPush(c.engine().webPush()
                .withAllowLoopbackHttp(true))).withAgent(agent));
        admin = s.registerAdmin();
        expect(s.post("/api/users", Map.of("username", "bob", "password", "bob-password-1"), bearer(admin)), 201,
                null);
        bob = s.login("bob", "bob-password-1");
        key = s.createKey(admin, "notify", List.of("tasks:read", "tasks:write"))[1];
        project = s.quickStart(admin, Files.createDirectories(tmp.resolve("project")));
        push = new WireMockServer(WireMockConfiguration.options().dynamicPort().bindAddress("127.0.0.1"));
        push.start();
        push.stubFor(post(urlPathMatching("/push/ok/.*")).willReturn(aResponse().withStatus(201)));
        push.stubFor(post(urlPathMatching("/push/gone/.*")).willReturn(aResponse().withStatus(410)));
        publicKey = expect(s.get("/api/notifications/web-push/public-key", bearer(admin)), 200, null)
                .path("publicKey").asText();
    }

    @AfterAll
    static void stop() {
        if (push != null) {
            push.stop();
        }
        s.close();
    }

    /** A stand-in for claude's stream-json control protocol: asks to use Bash, then waits for the answer. */
    static Path permissionCli(Path file) throws IOException {
        Files.writeString(file, """
                #!/bin/sh
                for a in "$@"; do
                  if [ "$a" = --version ]; then echo "2.0.0 (Claude Code)"; exit 0; fi
                done
                read -r first
                echo '{"type":"system","subtype":"init","session_id":"0b5e2a7c-1d3f-4e6a-9b8c-7d6e5f4a3b2c"}'
                echo '{"type":"control_request","request_id":"req-1","request":{"subtype":"can_use_tool","tool_name":"Bash","input":{"command":"ls"}}}'
                read -r answer
                echo '{"type":"result","subtype":"success","is_error":false,"result":"done","session_id":"0b5e2a7c-1d3f-4e6a-9b8c-7d6e5f4a3b2c"}'
                """);
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rwx------"));
        return file;
    }

    static void prefs(boolean inApp, boolean webPush, boolean action, boolean stop, boolean error) {
        expect(s.put("/api/settings/notification-preferences", Map.of(
                "channels", Map.of("inApp", inApp, "webPush", webPush),
                "events", Map.of("actionRequired", action, "stop", stop, "error", error)), bearer(admin)), 200, null);
    }

    static String run(String agentType) {
        return expect(s.post("/api/automation/run", Map.of("prompt", "Say hello", "projectId", project,
                "agentType", agentType), "X-API-Key", key), 202, null).path("id").asText();
    }

    /** The in-app notification about {@code runId} of kind {@code kind}, waiting up to 30 s for it. */
    static JsonNode awaitNotification(String runId, String kind) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (System.nanoTime() < deadline) {
            JsonNode list = expect(s.get("/api/notifications?limit=200", bearer(admin)), 200, null);
            for (JsonNode n : list.path("notifications")) {
                if (runId.equals(n.path("runId").asText()) && kind.equals(n.path("kind").asText())) {
                    return n;
                }
            }
            Thread.sleep(50);
        }
        throw new AssertionError("no " + kind + " notification for " + runId);
    }

    static List<JsonNode> notificationsOf(String runId) {
        List<JsonNode> out = new ArrayList<>();
        for (JsonNode n : expect(s.get("/api/notifications?limit=200", bearer(admin)), 200, null)
                .path("notifications")) {
            if (runId.equals(n.path("runId").asText())) {
                out.add(n);
            }
        }
        return out;
    }

    static List<LoggedRequest> awaitPushes(String path, int count) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        List<LoggedRequest> got = List.of();
        while (System.nanoTime() < deadline) {
            got = push.findAll(postRequestedFor(urlPathEqualTo(path)));
            if (got.size() >= count) {
                return got;
            }
            Thread.sleep(50);
        }
        throw new AssertionError("the push service got " + got.size() + " messages at " + path);
    }

    static String subscribe(String path, PushKeys keys) {
        return expect(s.post("/api/notifications/web-push/subscriptions", Map.of("endpoint", "http://127.0.0.1:" + push.port() + path,
                "expirationTime", 1893456000000L, "keys", keys.json()), bearer(admin)), 201, null)
                .path("subscription").path("id").asText();
    }

    @Test
    void aFinishedRunIsListedStreamedAndPushedEncrypted() throws Exception {
        prefs(true, true, true, true, true);
        PushKeys browser = PushKeys.random();
        String path = "/push/ok/" + UUID.randomUUID();
        String subscription = subscribe(path, browser);
        try (Events events = Events.open(null)) {
            assertEquals("ready", events.next().name());
            String runId = run("gemini");
            JsonNode listed = awaitNotification(runId, "stop");
            assertEquals("Gemini finished in " + project, listed.path("title").asText(), listed.toString());
            assertEquals(project, listed.path("projectName").asText());
            assertFalse(listed.path("sessionId").asText("").isBlank(), listed.toString());
            assertFalse(listed.path("read").asBoolean(true));
            assertTrue(Instant.parse(listed.path("createdAt").asText()).isAfter(Instant.now().minusSeconds(60)));

            Events.Event live = events.nextNamed("notification");
            assertEquals(listed.path("id").asText(), live.id(), "the SSE id is the notification id");
            JsonNode liveData = TestServer.JSON.readTree(live.data());
            assertEquals(runId, liveData.path("runId").asText());
            assertEquals("stop", liveData.path("kind").asText());

            LoggedRequest req = awaitPushes(path, 1).getFirst();
            assertEquals("aes128gcm", req.getHeader("Content-Encoding"));
            assertEquals("86400", req.getHeader("TTL"));
            String auth = req.getHeader("Authorization");
            assertTrue(auth.startsWith("vapid t="), auth);
            String jwt = auth.substring("vapid t=".length(), auth.indexOf(','));
            String k = auth.substring(auth.indexOf("k=") + 2).strip();
            assertEquals(publicKey, k, "k is the server's VAPID public key");
            assertTrue(PushKeys.verifyJwt(jwt, publicKey), "ES256 signature (JOSE form) verifies");
            JsonNode claims = TestServer.JSON.readTree(Base64.getUrlDecoder().decode(jwt.split("\\.")[1]));
            assertEquals("http://127.0.0.1:" + push.port(), claims.path("aud").asText());
            long exp = claims.path("exp").asLong();
            long now = Instant.now().getEpochSecond();
            assertTrue(exp > now && exp <= now + 24 * 3600, claims.toString());
            assertTrue(claims.path("sub").asText().startsWith("mailto:"), claims.toString());
            JsonNode header = TestServer.JSON.readTree(Base64.getUrlDecoder().decode(jwt.split("\\.")[0]));
            assertEquals("ES256", header.path("alg").asText());

            JsonNode message = TestServer.JSON.readTree(browser.decrypt(req.getBody()));
            assertEquals(listed.path("id").asText(), message.path("id").asText());
            assertEquals("stop", message.path("kind").asText());
            assertEquals(runId, message.path("runId").asText());
            assertEquals("gemini", message.path("provider").asText(), "the worker opens the session under it");
            assertEquals(listed.path("title").asText(), message.path("title").asText());
            assertEquals(listed.path("body").asText(), message.path("body").asText());
            assertFalse(PushKeys.random().json().equals(browser.json()));
            try {
                PushKeys.random().decrypt(req.getBody());
                throw new AssertionError("another subscription's keys must not open the message");
            } catch (java.security.GeneralSecurityException expected) {
                // the AEAD tag does not verify
            }
        } finally {
            expect(s.delete("/api/notifications/web-push/subscriptions/" + subscription, null, bearer(admin)), 200,
                    null);
        }
    }

    @Test
    void aTestMessageGoesToTheCallersOwnSubscriptionsOnlyAndIsRateLimited() throws Exception {
        // preferences do not matter: the user asked for the test
        prefs(true, false, false, false, false);
        PushKeys browser = PushKeys.random();
        String path = "/push/ok/" + UUID.randomUUID();
        String subscription = subscribe(path, browser);
        try {
            // another user's test reaches none of admin's subscriptions
            assertEquals(0, expect(s.post("/api/notifications/web-push/test", Map.of(), bearer(bob)), 200, null)
                    .path("sent").asInt());
            expect(s.post("/api/notifications/web-push/test", Map.of(), "X-API-Key", key), 403, null);
            assertEquals(1, expect(s.post("/api/notifications/web-push/test", Map.of(), bearer(admin)), 200, null)
                    .path("sent").asInt());
            LoggedRequest req = awaitPushes(path, 1).getFirst();
            JsonNode message = TestServer.JSON.readTree(browser.decrypt(req.getBody()));
            assertEquals("test", message.path("kind").asText(), message.toString());
            assertEquals("Test notification", message.path("title").asText());
            assertTrue(message.path("sessionId").isNull(), message.toString());
            String auth = req.getHeader("Authorization");
            assertTrue(PushKeys.verifyJwt(auth.substring("vapid t=".length(), auth.indexOf(',')), publicKey));

            var again = s.post("/api/notifications/web-push/test", Map.of(), bearer(admin));
            expect(again, 429, "RATE_LIMITED");
            assertTrue(again.headers().firstValue("Retry-After").isPresent(), again.headers().toString());
            Thread.sleep(500);
            assertEquals(1, push.findAll(postRequestedFor(urlPathEqualTo(path))).size(), "one message, no more");
            // nothing kept in the in-app list
            assertTrue(expect(s.get("/api/notifications?limit=200", bearer(admin)), 200, null).path("notifications")
                    .findValuesAsText("kind").stream().noneMatch("test"::equals));
        } finally {
            expect(s.delete("/api/notifications/web-push/subscriptions/" + subscription, null, bearer(admin)), 200,
                    null);
        }
    }

    @Test
    void aFailedRunRaisesAnErrorAndTheKindsAndChannelsAreHonoured() throws Exception {
        prefs(true, false, true, true, true);
        String failed = run("codex");
        JsonNode error = awaitNotification(failed, "error");
        assertEquals("Codex failed in " + project, error.path("title").asText(), error.toString());
        assertFalse(error.path("body").asText().isBlank());

        // stop switched off: a successful run raises nothing; a failing run after it proves the first was handled
        prefs(true, false, true, false, true);
        String quiet = run("gemini");
        awaitNotification(run("codex"), "error");
        assertEquals(List.of(), notificationsOf(quiet), "stop is off");

        // in-app off, web push on: nothing listed, but a push message is sent
        PushKeys browser = PushKeys.random();
        String path = "/push/ok/" + UUID.randomUUID();
        String subscription = subscribe(path, browser);
        try {
            prefs(false, true, true, true, true);
            String pushedOnly = run("gemini");
            JsonNode message = TestServer.JSON.readTree(browser.decrypt(awaitPushes(path, 1).getFirst().getBody()));
            assertEquals(pushedOnly, message.path("runId").asText());
            assertEquals(List.of(), notificationsOf(pushedOnly), "in-app is off");
        } finally {
            prefs(true, false, true, true, true);
            s.delete("/api/notifications/web-push/subscriptions/" + subscription, null, bearer(admin));
        }
    }

    @Test
    void aPermissionRequestRaisesActionRequiredAndACancelledRunNothingMore() throws Exception {
        prefs(true, false, true, true, true);
        String runId = run("claude");
        JsonNode n = awaitNotification(runId, "actionRequired");
        assertEquals("Claude needs your permission", n.path("title").asText(), n.toString());
        assertTrue(n.path("body").asText().contains("Bash"), n.toString());
        assertEquals("0b5e2a7c-1d3f-4e6a-9b8c-7d6e5f4a3b2c", n.path("sessionId").asText(), n.toString());
        expect(s.post("/api/automation/runs/" + runId + "/cancel", Map.of(), "X-API-Key", key), 200, null);
        awaitNotification(run("codex"), "error");
        assertEquals(1, notificationsOf(runId).size(), "a cancelled run raises no stop or error");
    }

    @Test
    void aReconnectingStreamGetsWhatItMissed() throws Exception {
        prefs(true, false, true, true, true);
        String first = run("codex");
        String seen = awaitNotification(first, "error").path("id").asText();
        String second = run("codex");
        String secondId = awaitNotification(second, "error").path("id").asText();
        String third = run("codex");
        String thirdId = awaitNotification(third, "error").path("id").asText();
        assertTrue(Long.parseLong(seen) < Long.parseLong(secondId) && Long.parseLong(secondId) < Long.parseLong(thirdId));
        try (Events events = Events.open(seen)) {
            Events.Event ready = events.next();
            assertEquals("ready", ready.name());
            assertEquals(seen, ready.id());
            assertEquals(secondId, events.nextNamed("notification").id());
            assertEquals(thirdId, events.nextNamed("notification").id());
        }
        try (Events events = Events.open("not-a-number")) {
            Events.Event ready = events.next();
            assertEquals("ready", ready.name());
            assertTrue(Long.parseLong(ready.id()) >= Long.parseLong(thirdId), "starts after the newest");
        }
        // an id above every kept one (another server's, a store put back from a backup) does not silence the stream
        try (Events events = Events.open(Long.toString(Long.MAX_VALUE))) {
            Events.Event ready = events.next();
            assertEquals("ready", ready.name());
            long at = Long.parseLong(ready.id());
            assertTrue(at >= Long.parseLong(thirdId) && at < Long.MAX_VALUE, "starts after the newest kept one: " + at);
            String fourth = run("codex");
            assertEquals(awaitNotification(fourth, "error").path("id").asText(),
                    events.nextNamed("notification").id());
        }
    }

    @Test
    void notificationsAreMarkedReadAndBelongToTheirUser() throws Exception {
        prefs(true, false, true, true, true);
        String runId = run("codex");
        String id = awaitNotification(runId, "error").path("id").asText();
        expect(s.post("/api/notifications/" + id + "/read", null, bearer(bob)), 404, "NOTIFICATION_NOT_FOUND");
        assertEquals(0, expect(s.get("/api/notifications", bearer(bob)), 200, null).path("notifications").size(),
                "bob sees nobody else's notifications");
        JsonNode read = expect(s.post("/api/notifications/" + id + "/read", null, bearer(admin)), 200, null);
        assertTrue(read.path("notification").path("read").asBoolean(), read.toString());
        JsonNode unreadOnly = expect(s.get("/api/notifications?unread=true&limit=200", bearer(admin)), 200, null);
        for (JsonNode n : unreadOnly.path("notifications")) {
            assertFalse(id.equals(n.path("id").asText()), "a read notification is not listed as unread");
        }
        expect(s.post("/api/notifications/999/read", null, bearer(admin)), 404, "NOTIFICATION_NOT_FOUND");
        expect(s.post("/api/notifications/x%20y/read", null, bearer(admin)), 404, "NOTIFICATION_NOT_FOUND");
        JsonNode all = expect(s.post("/api/notifications/read-all", null, "X-API-Key", key), 200, null);
        assertTrue(all.path("marked").asInt() >= 0);
        JsonNode after = expect(s.get("/api/notifications", "X-API-Key", key), 200, null);
        assertEquals(0, after.path("unread").asInt(), after.toString());
        List<Long> ids = new ArrayList<>();
        after.path("notifications").forEach(n -> ids.add(Long.parseLong(n.path("id").asText())));
        List<Long> sorted = new ArrayList<>(ids);
        sorted.sort(java.util.Comparator.reverseOrder());
        assertEquals(sorted, ids, "newest first");
        expect(s.get("/api/notifications?limit=1", bearer(admin)), 200, null);
        expect(s.get("/api/notifications?limit=0", bearer(admin)), 400, "VALIDATION_FAILED");
        expect(s.get("/api/notifications?limit=201", bearer(admin)), 400, "VALIDATION_FAILED");
        String projectsOnly = s.createKey(admin, "projects-only", List.of("projects:read"))[1];
        expect(s.get("/api/notifications", "X-API-Key", projectsOnly), 403, "INSUFFICIENT_SCOPE");
        expect(s.get("/api/notifications"), 401, "AUTH_REQUIRED");
    }

    @Test
    void aGoneSubscriptionIsRemovedAfterItsPushServiceSaysSo() throws Exception {
        prefs(true, true, true, true, true);
        String path = "/push/gone/" + UUID.randomUUID();
        String id = subscribe(path, PushKeys.random());
        try {
            run("codex");
            awaitPushes(path, 1);
            long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
            boolean gone = false;
            while (!gone && System.nanoTime() < deadline) {
                gone = !expect(s.get("/api/notifications/web-push/subscriptions", bearer(admin)), 200, null)
                        .toString().contains(id);
                Thread.sleep(50);
            }
            assertTrue(gone, "410 removes the subscription");
            expect(s.delete("/api/notifications/web-push/subscriptions/" + id, null, bearer(admin)), 404,
                    "PUSH_SUBSCRIPTION_NOT_FOUND");
        } finally {
            prefs(true, false, true, true, true);
        }
    }

    @Test
    void subscriptionsAreValidatedListedAndRemoved() {
        PushKeys k = PushKeys.random();
        Map<String, String> keys = k.json();
        String url = "/api/notifications/web-push/subscriptions";
        for (String bad : List.of("http://push.example.com/x", "ftp://push.example.com/x", "https://10.0.0.1/x",
                "https://127.0.0.2/x", "https://localhost/x", "https://[::1]/x", "https://user@push.example.com/x",
                "https://push.example.com/x#frag", "push.example.com/x", "https://169.254.169.254/latest",
                "https://2130706433/x", "https://push.example.com/" + "a".repeat(2100))) {
            expect(s.post(url, Map.of("endpoint", bad, "keys", keys), bearer(admin)), 400, "INVALID_PUSH_ENDPOINT");
        }
        expect(s.post(url, Map.of("keys", keys), bearer(admin)), 400, "INVALID_PUSH_ENDPOINT");
        byte[] offCurve = new byte[65];
        offCurve[0] = 4;
        offCurve[64] = 1;
        for (Map<String, String> bad : List.of(Map.of("p256dh", PushKeys.b64(offCurve), "auth", keys.get("auth")),
                Map.of("p256dh", keys.get("p256dh").substring(4), "auth", keys.get("auth")),
                Map.of("p256dh", "not base64!", "auth", keys.get("auth")),
                Map.of("p256dh", keys.get("p256dh"), "auth", PushKeys.b64(new byte[15])),
                Map.of("p256dh", keys.get("p256dh")))) {
            expect(s.post(url, Map.of("endpoint", "https://push.example.com/x", "keys", bad), bearer(admin)), 400,
                    "INVALID_PUSH_KEYS");
        }
        expect(s.post(url, Map.of("endpoint", "https://push.example.com/x", "keys", keys, "extra", 1),
                bearer(admin)), 400, "VALIDATION_FAILED");
        expect(s.post(url, Map.of("endpoint", "https://push.example.com/x", "keys", keys), "X-API-Key", key), 403,
                "SESSION_REQUIRED");
        expect(s.get(url, "X-API-Key", key), 403, "SESSION_REQUIRED");

        String endpoint = "https://push.example.com/wpush/v2/" + UUID.randomUUID();
        JsonNode created = expect(s.post(url, Map.of("endpoint", endpoint, "expirationTime", 1,
                "keys", keys), bearer(admin)), 201, null).path("subscription");
        assertEquals("https://push.example.com", created.path("origin").asText());
        String id = created.path("id").asText();
        JsonNode again = expect(s.post(url, Map.of("endpoint", endpoint, "keys", keys), bearer(admin)), 201, null)
                .path("subscription");
        String listed = expect(s.get(url, bearer(admin)), 200, null).toString();
        assertFalse(listed.contains(id), "the same endpoint replaces its subscription");
        assertTrue(listed.contains(again.path("id").asText()), listed);
        assertFalse(listed.contains("wpush") || listed.contains(keys.get("auth")), "no endpoint path or keys: " + listed);
        expect(s.delete(url + "/" + again.path("id").asText(), null, bearer(bob)), 404, "PUSH_SUBSCRIPTION_NOT_FOUND");
        expect(s.delete(url + "/" + again.path("id").asText(), null, bearer(admin)), 200, null);
        expect(s.delete(url + "/" + again.path("id").asText(), null, bearer(admin)), 404,
                "PUSH_SUBSCRIPTION_NOT_FOUND");
    }

    @Test
    void theVapidKeyIsMadeOnceAndLoopbackEndpointsNeedTheFlag() throws Exception {
        Path dir = Files.createTempDirectory(tmp, "vapid").resolve("data");
        String first;
        try (TestServer a = TestServer.wrap(WorkspaceServer.start(org.agentworkspace.server.TestServer.config(dir),
                Map.of("HOME", tmp.toString())), dir)) {
            String session = a.registerAdmin();
            JsonNode pk = expect(a.get("/api/notifications/web-push/public-key", bearer(session)), 200, null);
            first = pk.path("publicKey").asText();
            assertEquals(87, first.length());
            assertEquals(4, Base64.getUrlDecoder().decode(first)[0]);
            PushKeys.publicKey(Base64.getUrlDecoder().decode(first));
            assertEquals(2, pk.size(), "only success and publicKey: " + pk);
            expect(a.post("/api/notifications/web-push/subscriptions", Map.of("endpoint",
                    "http://127.0.0.1:9/push", "keys", PushKeys.random().json()), bearer(session)), 400,
                    "INVALID_PUSH_ENDPOINT");
            expect(a.get("/api/notifications/web-push/public-key"), 401, "AUTH_REQUIRED");
        }
        try (TestServer b = TestServer.wrap(WorkspaceServer.start(org.agentworkspace.server.TestServer.config(dir),
                Map.of("HOME", tmp.toString())), dir)) {
            String session = b.login(TestServer.ADMIN, TestServer.ADMIN_PASSWORD);
            assertEquals(first, expect(b.get("/api/notifications/web-push/public-key", bearer(session)), 200, null)
                    .path("publicKey").asText(), "the key pair survives a restart");
        }
        expect(s.post("/api/notifications/web-push/subscriptions", Map.of("endpoint", "http://127.0.0.1:9/push",
                "keys", PushKeys.random().json()), bearer(admin)), 201, null);
    }

    /** {@code GET /api/events} read on a thread of its own. */
    static final class Events implements AutoCloseable {
        record Event(String id, String name, String data) {
        }

        private final InputStream body;
        private final BlockingQueue<Event> queue = new LinkedBlockingQueue<>();

        private Events(InputStream body) {
            this.body = body;
            Thread.ofVirtual().start(this::read);
        }

        static Events open(String lastEventId) throws Exception {
            HttpRequest.Builder b = HttpRequest.newBuilder(s.uri("/api/events")).header("Authorization",
                    "Bearer " + admin);
            if (lastEventId != null) {
                b.header("Last-Event-ID", lastEventId);
            }
            HttpResponse<InputStream> res = s.http.send(b.build(), HttpResponse.BodyHandlers.ofInputStream());
            assertEquals(200, res.statusCode());
            return new Events(res.body());
        }

        private void read() {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(body, StandardCharsets.UTF_8))) {
                String id = null;
                String name = null;
                StringBuilder data = new StringBuilder();
                String line;
                while ((line = r.readLine()) != null) {
                    if (line.isEmpty()) {
                        if (name != null) {
                            queue.add(new Event(id, name, data.toString()));
                        }
                        id = null;
                        name = null;
                        data.setLength(0);
                    } else if (line.startsWith("id:")) {
                        id = line.substring(3).strip();
                    } else if (line.startsWith("event:")) {
                        name = line.substring(6).strip();
                    } else if (line.startsWith("data:")) {
                        data.append(line.substring(5).strip());
                    }
                }
            } catch (IOException e) {
                // closed
            }
        }

        Event next() throws InterruptedException {
            Event e = queue.poll(30, TimeUnit.SECONDS);
            assertNotNull(e, "no event within 30 s");
            return e;
        }

        Event nextNamed(String name) throws InterruptedException {
            while (true) {
                Event e = next();
                if (e.name().equals(name)) {
                    return e;
                }
            }
        }

        @Override
        public void close() {
            try {
                body.close();
            } catch (IOException e) {
                // dropping the stream
            }
        }
    }
}
