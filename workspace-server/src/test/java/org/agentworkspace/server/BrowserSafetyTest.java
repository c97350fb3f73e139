package org.agentworkspace.server;

import static org.agentworkspace.server.TestServer.bearer;
import static org.agentworkspace.server.TestServer.expect;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.Map;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** CSRF, DNS rebinding, content types, security headers and request limits. */
class BrowserSafetyTest {
    static TestServer s;
    static String token;

    @BeforeAll
    static void start() {
        s = TestServer.start();
        token = s.registerAdmin();
    }

    @AfterAll
    static void stop() {
        s.close();
    }

    int keys() {
        return s.server.engine().auth().apiKeys().list(1).size();
    }

    @Test
    void cookieAuthenticatedChangesMustComeFromOurOrigin() {
        int before = keys();
        String cookie = "token=" + token;
        Map<String, String> body = Map.of("name", "csrf");
        expect(s.post("/api/settings/api-keys", body, "Cookie", cookie, "Origin", "https://evil.example"), 403,
                "ORIGIN_REJECTED");
        expect(s.post("/api/settings/api-keys", body, "Cookie", cookie, "Origin", "null"), 403, "ORIGIN_REJECTED");
        expect(s.post("/api/settings/api-keys", body, "Cookie", cookie), 403, "ORIGIN_REJECTED");
        expect(s.post("/api/settings/api-keys", body, "Cookie", cookie, "Referer", "https://evil.example/x"), 403,
                "ORIGIN_REJECTED");
        expect(s.post("/api/settings/api-keys", body, "Cookie", cookie, "Origin", "http://localhost:1"), 403,
                "ORIGIN_REJECTED");
        expect(s.post("/api/settings/api-keys", body, "Cookie", cookie, "Origin", s.origin(),
                "Sec-Fetch-Site", "cross-site"), 403, "ORIGIN_REJECTED");
        assertEquals(before, keys(), "nothing was created");
        expect(s.post("/api/settings/api-keys", body, "Cookie", cookie, "Origin", s.origin()), 201, null);
        expect(s.post("/api/settings/api-keys", body, "Cookie", cookie, "Referer", s.origin() + "/settings"), 201,
                null);
        // explicit credentials are not subject to the origin rule
        expect(s.post("/api/settings/api-keys", body, "Authorization", "Bearer " + token, "Origin",
                "https://evil.example"), 201, null);
        // reads are not state changes
        expect(s.get("/api/auth/user", "Cookie", cookie, "Origin", "https://evil.example"), 200, null);
    }

    @Test
    void publicChangesFromAForeignOriginAreRefused() {
        expect(s.post("/api/auth/login", Map.of("username", "admin", "password", "x-wrong-password"),
                "Origin", "https://evil.example"), 403, "ORIGIN_REJECTED");
    }

    @Test
    void bodiesOfChangesMustBeJson() {
        int before = keys();
        String raw = raw("POST /api/settings/api-keys HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer " + token
                + "\r\nContent-Type: text/plain\r\nContent-Length: 13\r\nConnection: close\r\n\r\n{\"name\":\"x\"}");
        assertTrue(raw.startsWith("HTTP/1.1 415"), raw);
        assertTrue(raw.contains("UNSUPPORTED_MEDIA_TYPE"), raw);
        String form = raw("POST /api/settings/api-keys HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer " + token
                + "\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 6\r\nConnection: close"
                + "\r\n\r\nname=x");
        assertTrue(form.startsWith("HTTP/1.1 415"), form);
        assertEquals(before, keys());
    }

    @Test
    void foreignHostNamesAreRefusedWhileBoundToLoopback() {
        String rebound = raw("GET /api/auth/status HTTP/1.1\r\nHost: attacker.example:" + s.server.port()
                + "\r\nConnection: close\r\n\r\n");
        assertTrue(rebound.startsWith("HTTP/1.1 403"), rebound);
        assertTrue(rebound.contains("HOST_REJECTED"), rebound);
        for (String host : new String[] {"localhost", "127.0.0.1", "[::1]"}) {
            String ok = raw("GET /api/auth/status HTTP/1.1\r\nHost: " + host + ":" + s.server.port()
                    + "\r\nConnection: close\r\n\r\n");
            assertTrue(ok.startsWith("HTTP/1.1 200"), host + ": " + ok);
        }
    }

    @Test
    void errorsUseTheEnvelope() {
        // an unknown API path keeps the envelope; any other path is a deep link the web UI answers (WebAppServingTest)
        expect(s.get("/api/no/such/route"), 404, "ROUTE_NOT_FOUND");
        HttpResponse<String> wrong = s.send("DELETE", "/api/auth/status", null);
        expect(wrong, 405, "METHOD_NOT_ALLOWED");
        assertEquals("GET", wrong.headers().firstValue("Allow").orElse(""));
        expect(s.post("/api/auth/login", "{\"username\":", new String[0]), 400, "INVALID_JSON");
        expect(s.post("/api/auth/login", "{\"username\":\"a\",\"username\":\"b\",\"password\":\"x\"}", new String[0]),
                400, "INVALID_JSON");
        expect(s.post("/api/auth/login", "[1,2]", new String[0]), 400, "VALIDATION_FAILED");
        expect(s.post("/api/auth/login", Map.of("username", 5, "password", "x")), 400, "VALIDATION_FAILED");
        expect(s.post("/api/auth/login", "{\"username\":\"a\",\"password\":\"b\"} trailing", new String[0]), 400,
                "INVALID_JSON");
        expect(s.post("/api/auth/login", "[".repeat(5000) + "]".repeat(5000), new String[0]), 400, null);
        expect(s.get("/api/settings/api-keys/abc", bearer(token)), 405, "METHOD_NOT_ALLOWED");
        expect(s.send("DELETE", "/api/settings/api-keys/abc", null, bearer(token)), 404, "API_KEY_NOT_FOUND");
        expect(s.send("DELETE", "/api/settings/api-keys/99999", null, bearer(token)), 404, "API_KEY_NOT_FOUND");
    }

    @Test
    void oversizeBodiesAndHeadersGetEnvelopes() {
        String big = "{\"name\":\"" + "x".repeat(1024 * 1024 + 10) + "\"}";
        HttpResponse<String> res = s.post("/api/settings/api-keys", big, bearer(token));
        expect(res, 413, "PAYLOAD_TOO_LARGE");
        String huge = raw("GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: " + "y".repeat(20_000)
                + "\r\nConnection: close\r\n\r\n");
        assertTrue(huge.startsWith("HTTP/1.1 431") || huge.startsWith("HTTP/1.1 400"), huge);
        assertTrue(huge.contains("\"success\":false"), huge);
        assertFalse(huge.contains("yyyy"), "the error does not echo the input");
    }

    @Test
    void securityHeadersAreSet() {
        HttpResponse<String> res = s.get("/api/auth/status");
        assertEquals("nosniff", res.headers().firstValue("X-Content-Type-Options").orElse(""));
        assertEquals("no-store", res.headers().firstValue("Cache-Control").orElse(""));
        assertEquals("DENY", res.headers().firstValue("X-Frame-Options").orElse(""));
        assertEquals("no-referrer", res.headers().firstValue("Referrer-Policy").orElse(""));
        assertTrue(res.headers().firstValue("Content-Security-Policy").orElse("").contains("default-src 'none'"));
        assertTrue(res.headers().firstValue("Access-Control-Allow-Origin").isEmpty());
    }

    @Test
    void healthAnswersWithVersionAndInstallMode() {
        var h = expect(s.get("/health"), 200, null);
        assertEquals("ok", h.path("status").asText());
        assertTrue(h.path("version").asText().matches("\\d+\\.\\d+\\.\\d+"), h.toString());
        assertTrue(h.path("installMode").asText().matches("git|npm-global|runtime-dir|docker"), h.toString());
        java.time.Instant.parse(h.path("timestamp").asText());
    }

    @Test
    void aTakenPortStopsTheStartWithAClearError() {
        IllegalStateException e = org.junit.jupiter.api.Assertions.assertThrows(IllegalStateException.class,
                () -> TestServer.start(c -> c.withPort(s.server.port())));
        assertTrue(e.getMessage().contains("port"), e.getMessage());
    }

    /** Sends raw bytes (to control Host and Content-Type) and returns the whole response. */
    static String raw(String request) {
        try (Socket sock = new Socket("127.0.0.1", s.server.port())) {
            sock.setSoTimeout(10_000);
            OutputStream out = sock.getOutputStream();
            out.write(request.getBytes(StandardCharsets.UTF_8));
            out.flush();
            InputStream in = sock.getInputStream();
            java.io.ByteArrayOutputStream buf = new java.io.ByteArrayOutputStream();
            int contentLength = -1;
            int headerEnd = -1;
            int b;
            while ((b = in.read()) >= 0) {
                buf.write(b);
                String text = buf.toString(StandardCharsets.ISO_8859_1);
                if (headerEnd < 0 && text.endsWith("\r\n\r\n")) {
                    headerEnd = text.length();
                    java.util.regex.Matcher m = java.util.regex.Pattern.compile("(?i)content-length: *(\\d+)")
                            .matcher(text);
                    contentLength = m.find() ? Integer.parseInt(m.group(1)) : 0;
                }
                if (headerEnd >= 0 && buf.size() >= headerEnd + contentLength) {
                    break;
                }
            }
            return buf.toString(StandardCharsets.UTF_8);
        } catch (java.io.IOException e) {
            return "IO: " + e;
        }
    }
}
