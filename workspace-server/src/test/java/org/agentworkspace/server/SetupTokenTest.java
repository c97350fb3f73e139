package org.agentworkspace.server;

import static org.agentworkspace.server.TestServer.expect;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;

import com.fasterxml.jackson.databind.ObjectMapper;

import org.agentworkspace.core.auth.SetupToken;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * RG-4: a fresh installation reachable from elsewhere cannot be claimed without the one-time setup token that only
 * the data directory's owner can read; a direct request from this machine needs none.
 */
class SetupTokenTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Map<String, String> ADMIN = Map.of("username", "owner", "password", "correct horse 42");

    @Test
    void forwardedFirstRegistrationNeedsTheTokenFromTheDataDirectory() throws Exception {
        try (TestServer s = TestServer.start()) {
            Path file = s.dataDir.resolve(SetupToken.FILE_NAME);
            assertTrue(Files.isRegularFile(file), "a fresh install writes its setup token");
            assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(file)));
            String token = Files.readString(file).strip();
            assertTrue(token.length() >= 43, token.length() + " characters");

            // through a tunnel or proxy (loopback peer, forwarding headers): refused without, or with a wrong token
            expect(s.send("POST", "/api/auth/register", ADMIN, "X-Forwarded-For", "203.0.113.9"), 403,
                    "SETUP_TOKEN_REQUIRED");
            expect(s.send("POST", "/api/auth/register", ADMIN, "Forwarded", "for=203.0.113.9",
                    "X-Setup-Token", token.substring(1) + "x"), 403, "SETUP_TOKEN_REQUIRED");
            expect(s.send("POST", "/api/auth/register", Map.of("username", "owner", "password", "correct horse 42",
                    "setupToken", "nope"), "CF-Connecting-IP", "203.0.113.9"), 403, "SETUP_TOKEN_REQUIRED");
            assertTrue(expect(s.send("GET", "/api/auth/status", null), 200, null).path("needsSetup").asBoolean(),
                    "refused attempts create nothing");

            // the right token opens setup once, and is then gone
            expect(s.send("POST", "/api/auth/register", ADMIN, "X-Forwarded-For", "203.0.113.9",
                    "X-Setup-Token", token), 200, null);
            assertFalse(Files.exists(file), "the token file is deleted once the first account exists");
            expect(s.send("POST", "/api/auth/register", Map.of("username", "second", "password", "another pass 42"),
                    "X-Forwarded-For", "203.0.113.9", "X-Setup-Token", token), 403, "SETUP_COMPLETE");
        }
    }

    @Test
    void aDirectLocalRegistrationNeedsNoToken() {
        try (TestServer s = TestServer.start()) {
            expect(s.send("POST", "/api/auth/register", ADMIN), 200, null);
            assertFalse(Files.exists(s.dataDir.resolve(SetupToken.FILE_NAME)));
        }
        // a data directory that already has its account issues no token at the next start
    }

    @Test
    void fromAnotherAddressTheTokenIsNeeded() throws Exception {
        Optional<InetAddress> lan = lanAddress();
        Assumptions.assumeTrue(lan.isPresent(), "this host has no non-loopback IPv4 address; skipped");
        String host = lan.get().getHostAddress();
        try (TestServer s = TestServer.start(c -> c.withHost(host))) {
            String token = Files.readString(s.dataDir.resolve(SetupToken.FILE_NAME)).strip();
            HttpClient http = HttpClient.newHttpClient();
            URI uri = URI.create("http://" + host + ":" + s.server.port() + "/api/auth/register");
            HttpResponse<String> refused = post(http, uri, null);
            assertEquals(403, refused.statusCode(), refused.body());
            assertEquals("SETUP_TOKEN_REQUIRED", JSON.readTree(refused.body()).path("error").path("code").asText());
            assertFalse(refused.body().contains(token));
            HttpResponse<String> ok = post(http, uri, token);
            assertEquals(200, ok.statusCode(), ok.body());
        }
    }

    private static HttpResponse<String> post(HttpClient http, URI uri, String token) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(30))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(JSON.writeValueAsString(ADMIN)));
        if (token != null) {
            b.header("X-Setup-Token", token);
        }
        return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    private static Optional<InetAddress> lanAddress() throws IOException {
        return NetworkInterface.networkInterfaces().filter(i -> {
            try {
                return i.isUp() && !i.isLoopback();
            } catch (IOException e) {
                return false;
            }
        }).flatMap(NetworkInterface::inetAddresses).filter(a -> a instanceof Inet4Address && !a.isLoopbackAddress()
                && !a.isLinkLocalAddress()).findFirst();
    }
}
