package org.agentworkspace.server.web;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.GZIPInputStream;

import org.agentworkspace.server.TestServer;
import org.agentworkspace.server.http.WebApp;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The packaged UI through the running server: the app at / and at deep links, never cached; hashed assets cached for
 * good and compressed; a strict CSP without inline script; the API and unknown files keep their JSON errors; the
 * Host rule applies to the page too.
 */
class WebAppServingTest {
    static TestServer s;
    static final HttpClient RAW = HttpClient.newHttpClient();

    @BeforeAll
    static void start() {
        Assumptions.assumeTrue(WebApp.load().present(), "the UI was not built (-Dskip.web)");
        s = TestServer.start();
    }

    @AfterAll
    static void stop() {
        if (s != null) {
            s.close();
        }
    }

    static void assertPage(HttpResponse<String> r) {
        assertEquals(200, r.statusCode(), r.body());
        assertTrue(r.headers().firstValue("Content-Type").orElse("").startsWith("text/html"));
        assertTrue(r.body().contains("<div id=\"app\">"), r.body());
        assertEquals("no-store", r.headers().firstValue("Cache-Control").orElse(""));
        String csp = r.headers().firstValue("Content-Security-Policy").orElse("");
        assertEquals(WebApp.CSP, csp);
        assertTrue(csp.contains("script-src 'self'") && !csp.contains("unsafe-inline") && !csp.contains("unsafe-eval"), csp);
        assertEquals("DENY", r.headers().firstValue("X-Frame-Options").orElse(""));
        assertEquals("nosniff", r.headers().firstValue("X-Content-Type-Options").orElse(""));
    }

    @Test
    void theAppIsServedAtTheRootAndAtDeepLinks() {
        HttpResponse<String> root = s.get("/");
        assertPage(root);
        assertPage(s.get("/projects/some-project-1a2b3c4d/sessions/abc-123?provider=claude"));
        assertPage(s.get("/settings/notifications"));
        // no inline script in the page: every script is a same-origin file
        Matcher m = Pattern.compile("<script([^>]*)>(.*?)</script>", Pattern.DOTALL).matcher(root.body());
        int scripts = 0;
        while (m.find()) {
            scripts++;
            assertTrue(m.group(1).contains("src=\"/assets/"), m.group());
            assertEquals("", m.group(2).strip(), "inline script: " + m.group());
        }
        assertTrue(scripts >= 1, root.body());
    }

    @Test
    void hashedAssetsAreCachedForGoodAndCompressed() throws Exception {
        String page = s.get("/").body();
        Matcher m = Pattern.compile("src=\"(/assets/[^\"]+\\.js)\"").matcher(page);
        assertTrue(m.find(), page);
        String js = m.group(1);
        HttpResponse<byte[]> r = RAW.send(HttpRequest.newBuilder(s.uri(js)).header("Accept-Encoding", "gzip").build(),
                HttpResponse.BodyHandlers.ofByteArray());
        assertEquals(200, r.statusCode());
        assertEquals("public, max-age=31536000, immutable", r.headers().firstValue("Cache-Control").orElse(""));
        assertTrue(r.headers().firstValue("Content-Type").orElse("").startsWith("application/javascript"));
        assertEquals("gzip", r.headers().firstValue("Content-Encoding").orElse(""));
        byte[] plain = new GZIPInputStream(new java.io.ByteArrayInputStream(r.body())).readAllBytes();
        assertTrue(plain.length > r.body().length);
        String etag = r.headers().firstValue("ETag").orElseThrow();
        HttpResponse<String> again = s.get(js, "If-None-Match", etag);
        assertEquals(304, again.statusCode());
        // the worker and the manifest are revalidated at every load
        assertEquals("no-store", s.get("/sw.js").headers().firstValue("Cache-Control").orElse(""));
        HttpResponse<String> manifest = s.get("/manifest.webmanifest");
        assertEquals(200, manifest.statusCode());
        assertEquals("no-cache", manifest.headers().firstValue("Cache-Control").orElse(""));
        assertTrue(manifest.headers().firstValue("Content-Type").orElse("").startsWith("application/manifest+json"));
    }

    @Test
    void missingFilesAndApiPathsKeepTheirJsonErrors() {
        TestServer.expect(s.get("/assets/missing-0000.js"), 404, "ROUTE_NOT_FOUND");
        TestServer.expect(s.get("/favicon.ico"), 404, "ROUTE_NOT_FOUND");
        TestServer.expect(s.get("/api/no-such-route"), 404, "ROUTE_NOT_FOUND");
        HttpResponse<String> post = s.post("/projects/x", java.util.Map.of(), "Origin", s.origin());
        assertFalse(post.statusCode() == 200, "only GET and HEAD get the page");
        assertTrue(post.body().contains("\"success\":false"), post.body());
        // the API's own policy is unchanged
        assertEquals("default-src 'none'; frame-ancestors 'none'",
                s.get("/api/auth/status").headers().firstValue("Content-Security-Policy").orElse(""));
    }

    @Test
    void aForeignHostGetsNoPage() throws Exception {
        // a DNS-rebinding page: the Host names another site while the server is bound to loopback
        try (java.net.Socket sock = new java.net.Socket("127.0.0.1", s.server.port())) {
            sock.setSoTimeout(10_000);
            sock.getOutputStream().write(("GET /projects/x HTTP/1.1\r\nHost: attacker.example:" + s.server.port()
                    + "\r\nConnection: close\r\n\r\n").getBytes(java.nio.charset.StandardCharsets.US_ASCII));
            java.io.InputStream in = sock.getInputStream();
            StringBuilder buf = new StringBuilder();
            int b;
            while ((b = in.read()) >= 0) {
                buf.append((char) b);
                int end = buf.indexOf("\r\n\r\n");
                Matcher len = Pattern.compile("(?i)content-length: *(\\d+)").matcher(buf);
                if (end >= 0 && len.find() && buf.length() >= end + 4 + Integer.parseInt(len.group(1))) {
                    break;
                }
            }
            String answer = buf.toString();
            assertTrue(answer.startsWith("HTTP/1.1 403"), answer);
            assertTrue(answer.contains("HOST_REJECTED"), answer);
            assertFalse(answer.contains("<div id=\"app\">"), answer);
        }
    }
}
