package org.agentworkspace.server;

import static org.agentworkspace.server.TestServer.bearer;
import static org.agentworkspace.server.TestServer.expect;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import com.fasterxml.jackson.databind.JsonNode;

import org.junit.jupiter.api.Test;

/** Setup, login, keys and tickets through the running server. */
class AuthFlowTest {

    @Test
    void fiftyConcurrentRegistrationsCreateExactlyOneAccount() throws Exception {
        try (TestServer s = TestServer.start()) {
            CountDownLatch go = new CountDownLatch(1);
            List<Future<Integer>> results = new ArrayList<>();
            try (ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor()) {
                for (int i = 0; i < 50; i++) {
                    String name = "racer" + i;
                    results.add(pool.submit(() -> {
                        go.await();
                        return s.post("/api/auth/register", Map.of("username", name, "password", "race-password"))
                                .statusCode();
                    }));
                }
                go.countDown();
                int ok = 0;
                for (Future<Integer> f : results) {
                    int status = f.get();
                    assertTrue(status == 200 || status == 403, "status " + status);
                    ok += status == 200 ? 1 : 0;
                }
                assertEquals(1, ok);
            }
            assertEquals(1, s.server.engine().auth().accounts().list().size());
            JsonNode status = expect(s.get("/api/auth/status"), 200, null);
            assertFalse(status.path("needsSetup").asBoolean());
            expect(s.post("/api/auth/register", Map.of("username", "late", "password", "late-password")), 403,
                    "SETUP_COMPLETE");
        }
    }

    @Test
    void registerLoginUseAKeyAndLogOut() {
        try (TestServer s = TestServer.start()) {
            JsonNode status = expect(s.get("/api/auth/status"), 200, null);
            assertTrue(status.path("needsSetup").asBoolean());
            assertFalse(status.path("isAuthenticated").asBoolean());
            expect(s.post("/api/auth/register", Map.of("username", "x", "password", "short")), 400,
                    "VALIDATION_FAILED");
            s.registerAdmin();
            HttpResponse<String> login = s.post("/api/auth/login",
                    Map.of("username", TestServer.ADMIN, "password", TestServer.ADMIN_PASSWORD));
            JsonNode body = expect(login, 200, null);
            String token = body.path("token").asText();
            assertTrue(body.path("user").path("is_admin").asBoolean());
            String cookie = login.headers().firstValue("Set-Cookie").orElseThrow();
            assertTrue(cookie.startsWith("token=" + token + ";"), cookie);
            assertTrue(cookie.contains("HttpOnly") && cookie.contains("SameSite=Lax") && cookie.contains("Path=/"),
                    cookie);
            assertTrue(cookie.contains("Max-Age=604800"), cookie);
            assertFalse(cookie.contains("Secure"), "plain HTTP from an untrusted peer: " + cookie);

            expect(s.get("/api/auth/user", "Cookie", "token=" + token), 200, null);
            JsonNode st = expect(s.get("/api/auth/status", "Cookie", "token=" + token), 200, null);
            assertTrue(st.path("isAuthenticated").asBoolean());

            String[] key = s.createKey(token, "ci", null);
            assertTrue(key[1].matches("px_[0-9a-f]{32}"), key[1]);
            JsonNode listed = expect(s.get("/api/settings/api-keys", bearer(token)), 200, null);
            assertEquals("px_\u2026" + key[1].substring(31), listed.get(0).path("api_key").asText());
            expect(s.get("/api/auth/user", "X-API-Key", key[1]), 200, null);
            JsonNode after = expect(s.get("/api/settings/api-keys", bearer(token)), 200, null);
            assertFalse(after.get(0).path("last_used").isNull(), "last_used is recorded");

            HttpResponse<String> logout = s.post("/api/auth/logout", null, "Cookie", "token=" + token,
                    "Origin", s.origin());
            expect(logout, 200, null);
            String cleared = logout.headers().firstValue("Set-Cookie").orElseThrow();
            assertTrue(cleared.startsWith("token=;") && cleared.contains("Max-Age=0") && cleared.contains("HttpOnly"),
                    cleared);
        }
    }

    @Test
    void loginIsThrottledPerAccountAndPerClientWithoutRevealingAccounts() {
        try (TestServer s = TestServer.start()) {
            s.registerAdmin();
            HttpResponse<String> known = s.post("/api/auth/login", Map.of("username", "admin", "password", "wrong-1"));
            HttpResponse<String> unknown = s.post("/api/auth/login", Map.of("username", "nobody", "password", "x-1"));
            expect(known, 401, "INVALID_CREDENTIALS");
            expect(unknown, 401, "INVALID_CREDENTIALS");
            assertEquals(known.body(), unknown.body());
            for (int i = 0; i < 4; i++) {
                expect(s.post("/api/auth/login", Map.of("username", "admin", "password", "wrong-" + i)), 401, null);
            }
            HttpResponse<String> limited = s.post("/api/auth/login",
                    Map.of("username", "admin", "password", TestServer.ADMIN_PASSWORD));
            expect(limited, 429, "RATE_LIMITED");
            long retry = Long.parseLong(limited.headers().firstValue("Retry-After").orElseThrow());
            assertTrue(retry > 0 && retry <= 900, "Retry-After " + retry);
            // the same client guessing other accounts is capped too (20 failures per client by default)
            for (int i = 0; i < 14; i++) {
                s.post("/api/auth/login", Map.of("username", "guess" + i, "password", "guess-password"));
            }
            expect(s.post("/api/auth/login", Map.of("username", "someone", "password", "guess-password")), 429,
                    "RATE_LIMITED");
        }
    }

    @Test
    void theDatabaseHoldsNeitherKeysNorPasswordsInClear() throws Exception {
        try (TestServer s = TestServer.start()) {
            String password = "canary-password-7f3a9c";
            s.post("/api/auth/register", Map.of("username", "owner", "password", password));
            String token = s.login("owner", password);
            String[] key = s.createKey(token, "canary", null);
            StringBuilder all = new StringBuilder();
            // every file, in subfolders too (native/, cache/)
            try (var files = Files.walk(s.dataDir)) {
                for (Path p : files.filter(Files::isRegularFile).toList()) {
                    all.append(new String(Files.readAllBytes(p), StandardCharsets.ISO_8859_1));
                }
            }
            String everything = all.toString();
            assertTrue(everything.contains("owner"), "the test reads the database");
            assertFalse(everything.contains(password));
            assertFalse(everything.contains(key[1]));
            assertFalse(everything.contains(key[1].substring(3, 31)));
            if (Files.getFileStore(s.dataDir).supportsFileAttributeView("posix")) {
                assertEquals("rw-------", java.nio.file.attribute.PosixFilePermissions.toString(
                        Files.getPosixFilePermissions(s.dataDir.resolve("jwt-secret"))));
                assertEquals("rw-------", java.nio.file.attribute.PosixFilePermissions.toString(
                        Files.getPosixFilePermissions(s.dataDir.resolve("workspace.db"))));
                assertEquals("rwx------", java.nio.file.attribute.PosixFilePermissions.toString(
                        Files.getPosixFilePermissions(s.dataDir)));
            }
        }
    }

    /** Opens {@code /api/events} and returns the reader positioned after the {@code ready} event. */
    static BufferedReader openEvents(TestServer s, String query, String... headers) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(s.uri("/api/events" + query)).timeout(Duration.ofSeconds(30));
        for (int i = 0; i + 1 < headers.length; i += 2) {
            b.header(headers[i], headers[i + 1]);
        }
        HttpResponse<InputStream> res = s.http.send(b.build(), HttpResponse.BodyHandlers.ofInputStream());
        if (res.statusCode() != 200) {
            String body = new String(res.body().readAllBytes(), StandardCharsets.UTF_8);
            throw new AssertionError(res.statusCode() + " " + body);
        }
        assertTrue(res.headers().firstValue("Content-Type").orElse("").startsWith("text/event-stream"));
        BufferedReader r = new BufferedReader(new InputStreamReader(res.body(), StandardCharsets.UTF_8));
        String line;
        while ((line = r.readLine()) != null) {
            if (line.equals("event:ready") || line.equals("event: ready")) {
                return r;
            }
        }
        throw new AssertionError("stream ended before the ready event");
    }

    @Test
    void aStreamTicketWorksOnceAndOnlyOnStreamingRoutes() throws Exception {
        try (TestServer s = TestServer.start()) {
            String token = s.registerAdmin();
            JsonNode t = expect(s.post("/api/auth/stream-ticket", null, bearer(token)), 200, null);
            String ticket = t.path("ticket").asText();
            assertTrue(t.path("expiresIn").asInt() > 0 && t.path("expiresIn").asInt() <= 30);
            expect(s.get("/api/auth/user", bearer(ticket)), 401, "INVALID_TOKEN");
            expect(s.get("/api/auth/user?streamTicket=" + ticket), 401, "AUTH_REQUIRED");
            try (BufferedReader r = openEvents(s, "?streamTicket=" + ticket)) {
                assertTrue(r.readLine().startsWith("data:"));
            }
            expect(s.get("/api/events?streamTicket=" + ticket), 401, "INVALID_STREAM_TICKET");
            expect(s.get("/api/events?streamTicket=st_" + "A".repeat(43)), 401, "INVALID_STREAM_TICKET");
        }
    }

    @Test
    void revokingAKeyEndsTheStreamsItOpened() throws Exception {
        try (TestServer s = TestServer.start()) {
            String token = s.registerAdmin();
            String[] key = s.createKey(token, "stream", null);
            String ticket = expect(s.post("/api/auth/stream-ticket", null, "X-API-Key", key[1]), 200, null)
                    .path("ticket").asText();
            try (BufferedReader viaHeader = openEvents(s, "", "X-API-Key", key[1]);
                 BufferedReader viaTicket = openEvents(s, "?streamTicket=" + ticket)) {
                long start = System.nanoTime();
                expect(s.send("PATCH", "/api/settings/api-keys/" + key[0] + "/toggle", Map.of("is_active", false),
                        bearer(token)), 200, null);
                for (BufferedReader r : List.of(viaHeader, viaTicket)) {
                    String line;
                    boolean revoked = false;
                    while ((line = r.readLine()) != null) {
                        if (line.contains("CREDENTIAL_REVOKED")) {
                            revoked = true;
                        }
                    }
                    assertTrue(revoked, "the stream ends with an error event");
                }
                assertTrue(System.nanoTime() - start < Duration.ofSeconds(5).toNanos(), "closed within 5 s");
            }
        }
    }
}
