package org.agentworkspace.core.providers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.net.ServerSocket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import org.agentworkspace.api.WorkspaceException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class OAuthCallbacksTest {
    private final ProvidersFixture f = new ProvidersFixture();

    @AfterEach
    void close() {
        f.close();
    }

    @Test
    void aUrlWithoutATokenIsRefused() {
        for (String url : List.of("http://localhost:1455/auth/callback", "https://example.com/done?state=x",
                "not a url", "file:///etc/passwd?code=1", "http://localhost:1455/cb?error=access_denied&code=x", "")) {
            WorkspaceException e = assertThrows(WorkspaceException.Validation.class,
                    () -> f.pm().oauth().paste("codex", url, null), url);
            assertEquals("INVALID_OAUTH_CALLBACK", e.code(), url);
        }
        assertTrue(f.pm().credentials().find("codex").isEmpty());
    }

    @Test
    void theCallbackIsReplayedToTheCliListenerThatWaitsForIt() throws Exception {
        List<String> seen = new CopyOnWriteArrayList<>();
        // a one-request HTTP listener, as a CLI's login command opens one
        ServerSocket listener = new ServerSocket(0, 5, InetAddress.getLoopbackAddress());
        Thread t = Thread.ofVirtual().start(() -> {
            try (Socket s = listener.accept()) {
                var in = new java.io.BufferedReader(new java.io.InputStreamReader(s.getInputStream(),
                        StandardCharsets.UTF_8));
                String requestLine = in.readLine();
                seen.add(requestLine.substring(0, requestLine.lastIndexOf(' ')));
                String line;
                while ((line = in.readLine()) != null && !line.isEmpty()) {
                    seen.add("header " + line.substring(0, line.indexOf(':')).toLowerCase(java.util.Locale.ROOT));
                }
                byte[] body = "Signed in; you may close this tab".getBytes(StandardCharsets.UTF_8);
                s.getOutputStream().write(("HTTP/1.1 200 OK\r\nContent-Length: " + body.length
                        + "\r\nConnection: close\r\n\r\n").getBytes(StandardCharsets.UTF_8));
                s.getOutputStream().write(body);
            } catch (java.io.IOException e) {
                seen.add("error " + e);
            }
        });
        try {
            int port = listener.getLocalPort();
            OAuthCallbacks.Result r = f.pm().oauth().paste("codex",
                    "http://localhost:" + port + "/auth/callback?code=ac_123&state=st%2Fx#ignored", 1L);
            assertTrue(r.forwarded());
            assertEquals(port, r.port());
            assertFalse(r.stored());
            t.join();
            assertEquals("GET /auth/callback?code=ac_123&state=st%2Fx", seen.getFirst());
            assertFalse(seen.stream().anyMatch(h -> h.contains("cookie") || h.contains("authorization")),
                    "nothing but the callback is sent: " + seen);
            assertTrue(f.pm().credentials().find("codex").isEmpty(), "the CLI stores its own login");
        } finally {
            listener.close();
        }
    }

    @Test
    void aCodeWithNobodyWaitingIsRefusedAndATokenIsStored() throws Exception {
        int free;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            free = s.getLocalPort();
        }
        WorkspaceException e = assertThrows(WorkspaceException.Validation.class,
                () -> f.pm().oauth().paste("gemini", "http://127.0.0.1:" + free + "/oauth2callback?code=4/abc", null));
        assertTrue(e.getMessage().contains("no login is waiting"), e.getMessage());

        OAuthCallbacks.Result r = f.pm().oauth().paste("claude",
                "https://console.example.com/oauth/done#access_token=sk-ant-oat01-TOKEN-0123456789&token_type=bearer",
                null);
        assertTrue(r.stored());
        assertEquals("…6789", r.masked());
        assertEquals("sk-ant-oat01-TOKEN-0123456789", f.pm().credentialsFor("claude").apiKey());
    }
}
