package org.agentworkspace.server.shell;

import static org.agentworkspace.server.TestServer.bearer;
import static org.agentworkspace.server.TestServer.expect;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpResponse;
import java.net.http.WebSocket;
import java.net.http.WebSocketHandshakeException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import com.fasterxml.jackson.databind.JsonNode;

import org.agentworkspace.core.shell.ShellSettings;
import org.agentworkspace.server.ServerConfig;
import org.agentworkspace.server.TestServer;
import org.agentworkspace.server.WorkspaceServer;
import org.agentworkspace.server.JsonSocketClient;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@code /shell} end to end: the real server, real bash on a real PTY, the JDK WebSocket client over a real socket.
 */
class ShellSocketTest {
    static final HttpClient HTTP = HttpClient.newHttpClient();
    static WorkspaceServer server;
    static TestServer s;
    static String admin;
    static String bob;
    static String project;

    @BeforeAll
    static void start() throws Exception {
        Path dir = Files.createTempDirectory("aw-shell-ws-");
        ShellLimits limits = ShellLimits.defaults()
                .withSessions(ShellSettings.defaults().withMaxPerUser(3))
                .withConnections(5)
                // short, so sockets the tests abort are noticed quickly (Helidon reports an abort to nobody)
                .withHeartbeat(Duration.ofMillis(300));
        s = TestServer.wrap(WorkspaceServer.start(org.agentworkspace.server.TestServer.config(dir.resolve("data")), TestServer.isolatedEnv(dir),
                limits), dir.resolve("data"));
        server = s.server;
        admin = s.registerAdmin();
        expect(s.post("/api/users", Map.of("username", "bob", "password", "bob-password-1"), bearer(admin)), 201, null);
        bob = s.login("bob", "bob-password-1");
        Files.createDirectories(dir.resolve("proj"));
        project = s.quickStart(admin, dir.resolve("proj"));
    }

    @AfterAll
    static void stop() {
        s.close();
    }

    /** A client socket that queues every message it receives and the close code. */
    static final class Client extends JsonSocketClient {
        final StringBuilder screen = new StringBuilder();
        long offset = -1;
        String sessionId;

        JsonNode next() throws InterruptedException {
            JsonNode m = messages.poll(15, TimeUnit.SECONDS);
            assertNotNull(m, "no message; screen so far: " + screen);
            if (m.path("type").asText().equals("ready")) {
                sessionId = m.path("sessionId").asText();
            }
            if (m.path("type").asText().equals("output")) {
                screen.append(m.path("data").asText());
                offset = m.path("offset").asLong();
            }
            return m;
        }

        JsonNode next(String type) throws InterruptedException {
            JsonNode m = next();
            assertEquals(type, m.path("type").asText(), m.toString());
            return m;
        }

        /** Reads output until the screen shows {@code marker}; fails on exit or error first. */
        String until(String marker) throws InterruptedException {
            while (!screen.toString().contains(marker)) {
                JsonNode m = next();
                String type = m.path("type").asText();
                assertTrue(type.equals("output") || type.equals("pong"), "while waiting for " + marker + ": " + m);
            }
            return screen.toString();
        }
    }

    String wsUri() {
        return "ws://127.0.0.1:" + server.port() + "/shell";
    }

    /** A one-shot ticket for the user holding this session token (minted by the engine: the route is not ours). */
    String ticket(String session) {
        String name = session.equals(admin) ? "admin" : "bob";
        org.agentworkspace.api.User u = server.engine().auth().accounts().list().stream()
                .filter(x -> x.username().equals(name)).findFirst().orElseThrow();
        return server.engine().auth().tickets().issue(new org.agentworkspace.api.Principal(u,
                org.agentworkspace.api.Principal.Kind.SESSION, null, org.agentworkspace.api.Scope.all())).value();
    }

    Client connect(String query, String... headers) throws Exception {
        Client c = new Client();
        WebSocket.Builder b = HTTP.newWebSocketBuilder().connectTimeout(Duration.ofSeconds(5));
        for (int i = 0; i + 1 < headers.length; i += 2) {
            b.header(headers[i], headers[i + 1]);
        }
        c.ws = b.buildAsync(URI.create(wsUri() + query), c).get(10, TimeUnit.SECONDS);
        return c;
    }

    Client admin() throws Exception {
        return connect("?streamTicket=" + ticket(admin));
    }

    /** A new terminal: init, ready. */
    Client open() throws Exception {
        Client c = admin();
        c.send(Map.of("type", "init", "projectName", project, "cols", 80, "rows", 24));
        c.next("ready");
        return c;
    }

    int refusedWith(String query, String... headers) {
        ExecutionException e = assertThrows(ExecutionException.class, () -> connect(query, headers));
        assertTrue(e.getCause() instanceof WebSocketHandshakeException, String.valueOf(e.getCause()));
        HttpResponse<?> res = ((WebSocketHandshakeException) e.getCause()).getResponse();
        return res.statusCode();
    }

    @Test
    void echoRoundTripResizeAndExitCode() throws Exception {
        Client c = open();
        c.send(Map.of("type", "input", "data", "echo round-$((20+1))-trip\n"));
        c.until("round-21-trip");
        c.send(Map.of("type", "input", "data", "stty size; echo SIZE-$((7*3))\n"));
        assertTrue(c.until("SIZE-21").contains("24 80"), c.screen.toString());
        c.send(Map.of("type", "resize", "cols", 132, "rows", 40));
        c.send(Map.of("type", "input", "data", "stty size; echo RESIZED-$((1))\n"));
        assertTrue(c.until("RESIZED-1").contains("40 132"), c.screen.toString());
        c.send(Map.of("type", "ping"));
        while (!c.next().path("type").asText().equals("pong")) {
            // output before the pong
        }
        c.send(Map.of("type", "input", "data", "exit 3\n"));
        JsonNode m;
        do {
            m = c.next();
        } while (m.path("type").asText().equals("output") || m.path("type").asText().equals("pong"));
        assertEquals("exit", m.path("type").asText(), m.toString());
        assertEquals(3, m.path("exitCode").asInt());
        assertEquals(1000, c.closed.get(10, TimeUnit.SECONDS));
    }

    @Test
    void aReconnectReplaysTheMissedOutputExactlyOnceAndCloseKillsTheTree() throws Exception {
        Client c = open();
        c.send(Map.of("type", "input", "data", "echo BEFORE-$((1))\n"));
        c.until("BEFORE-1");
        long seen = c.offset;
        String id = c.sessionId;
        // drop the socket, then produce output while nobody listens
        c.ws.abort();
        Thread.sleep(200);
        var shell = server.shells().find(adminId(), id).orElseThrow();
        shell.write("sleep 300 & echo AFTER-$((2)); echo AGAIN-$((3))\n");
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (shell.offset() == seen || !screenOf(shell, seen).contains("AGAIN-3")) {
            assertTrue(System.nanoTime() < deadline, "no output after the drop");
            Thread.sleep(50);
        }
        Client again = admin();
        again.send(Map.of("type", "init", "sessionId", id, "lastOffset", seen, "cols", 80, "rows", 24));
        JsonNode ready = again.next("ready");
        assertEquals(id, ready.path("sessionId").asText());
        JsonNode start = again.next("replay-start");
        assertEquals(seen, start.path("from").asLong());
        assertFalse(start.path("truncated").asBoolean());
        JsonNode replay = again.next("output");
        String text = replay.path("data").asText();
        assertTrue(text.contains("AFTER-2") && text.contains("AGAIN-3"), text);
        assertFalse(text.contains("BEFORE-1"), "output already seen is not replayed: " + text);
        JsonNode end = again.next("replay-end");
        assertEquals(replay.path("offset").asLong(), end.path("offset").asLong());
        // live output continues after the replay, not repeated
        again.send(Map.of("type", "input", "data", "echo LIVE-$((4))\n"));
        String live = again.until("LIVE-4");
        assertEquals(1, count(live, "AFTER-2\r\n"), live);

        List<ProcessHandle> tree = ProcessHandle.of(shell.pid()).orElseThrow().descendants().toList();
        assertFalse(tree.isEmpty(), "the background sleep runs");
        again.send(Map.of("type", "close"));
        assertEquals(1000, again.closed.get(10, TimeUnit.SECONDS));
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (ProcessHandle.of(shell.pid()).map(ProcessHandle::isAlive).orElse(false)
                || tree.stream().anyMatch(ProcessHandle::isAlive)) {
            assertTrue(System.nanoTime() < until, "a process of the terminal is still alive");
            Thread.sleep(50);
        }
        assertTrue(server.shells().find(adminId(), id).isEmpty());

        Client gone = admin();
        gone.send(Map.of("type", "init", "sessionId", id, "lastOffset", 0, "cols", 80, "rows", 24));
        JsonNode err = gone.next("error");
        assertEquals("SHELL_NOT_FOUND", err.path("error").path("code").asText());
        gone.ws.abort();
    }

    /** What the terminal printed since {@code from}, read without attaching a consumer. */
    static String screenOf(org.agentworkspace.core.shell.ShellSession s, long from) {
        org.agentworkspace.core.shell.ShellListener none = new org.agentworkspace.core.shell.ShellListener() {
            @Override
            public void onOutput(String data, long offset) {
            }

            @Override
            public void onExit(int exitCode) {
            }
        };
        String seen = s.attach(from, none).replay();
        s.detach(none);
        return seen;
    }

    static int count(String text, String needle) {
        int n = 0;
        for (int i = text.indexOf(needle); i >= 0; i = text.indexOf(needle, i + 1)) {
            n++;
        }
        return n;
    }

    String adminId() {
        return String.valueOf(server.engine().auth().accounts().list().getFirst().id());
    }

    @Test
    void refusedForNonAdministratorsHostileOriginsAndCredentialsInTheUrl() throws Exception {
        String origin = "http://127.0.0.1:" + server.port();
        assertEquals(403, refusedWith("", "Cookie", "token=" + bob, "Origin", origin), "a non-administrator");
        // the refused upgrade spends the ticket; the HTTP answer that follows still says why: 403, not 401
        assertEquals(403, refusedWith("?streamTicket=" + ticket(bob)), "a non-administrator's valid ticket");
        assertEquals(403, refusedWith("", "Cookie", "token=" + admin, "Origin", "https://evil.example"));
        assertEquals(403, refusedWith("", "Cookie", "token=" + admin), "a cookie without an Origin");
        assertEquals(401, refusedWith(""), "no credential");
        assertEquals(401, refusedWith("?token=" + admin), "a session token in the URL");
        String[] key = s.createKey(admin, "shell", null);
        assertEquals(401, refusedWith("?apiKey=" + key[1]), "a key in the URL");
        assertEquals(403, refusedWith("", "X-API-Key", key[1]), "an API key is not a session");
        // the cookie with our own Origin is fine
        Client c = connect("", "Cookie", "token=" + admin, "Origin", origin);
        c.send(Map.of("type", "ping"));
        c.next("pong");
        c.ws.abort();
        HttpResponse<String> plain = s.get("/shell", bearer(admin));
        expect(plain, 426, "UPGRADE_REQUIRED");
        expect(s.get("/shell", bearer(bob)), 403, "ADMIN_REQUIRED");
    }

    @Test
    void protocolErrorsCapsAndOversizeFrames() throws Exception {
        Client c = admin();
        c.send(Map.of("type", "input", "data", "ls\n"));
        assertEquals("INVALID_MESSAGE", c.next("error").path("error").path("code").asText());
        c.send(Map.of("type", "init", "projectName", "no-such-project", "cols", 80, "rows", 24));
        assertEquals("PROJECT_NOT_FOUND", c.next("error").path("error").path("code").asText());
        c.send(Map.of("type", "init", "projectName", project, "cols", 0, "rows", 24));
        assertEquals("INVALID_MESSAGE", c.next("error").path("error").path("code").asText());
        c.ws.sendText("x".repeat(70 * 1024), true);
        assertEquals(1009, c.closed.get(10, TimeUnit.SECONDS));
    }

    @Test
    void binaryFramesAndFloodsOfMessagesCloseTheSocket() throws Exception {
        Client bin = admin();
        bin.ws.sendBinary(java.nio.ByteBuffer.wrap(new byte[] {1, 2, 3}), true).get(5, TimeUnit.SECONDS);
        assertEquals(1007, bin.closed.get(10, TimeUnit.SECONDS));

        Client flood = admin();
        for (int i = 0; i < 5000 && !flood.closed.isDone(); i++) {
            try {
                flood.ws.sendText("{\"type\":\"ping\"}", true).get(5, TimeUnit.SECONDS);
            } catch (ExecutionException e) {
                break;
            }
        }
        assertEquals(1008, flood.closed.get(10, TimeUnit.SECONDS));
    }

    @Test
    void perUserTerminalAndConnectionCaps() throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (server.shellEndpoint().connections(adminId()) > 0) {
            assertTrue(System.nanoTime() < deadline, "sockets of other tests are still counted");
            Thread.sleep(50);
        }
        int before = server.shells().running(adminId());
        List<Client> open = new java.util.ArrayList<>();
        for (int i = before; i < 3; i++) {
            open.add(open());
        }
        Client extra = admin();
        extra.send(Map.of("type", "init", "projectName", project, "cols", 80, "rows", 24));
        JsonNode err = extra.next("error");
        assertEquals("TOO_MANY_SHELLS", err.path("error").path("code").asText());
        assertEquals(429, err.path("status").asInt());
        // connections: 5 per user; with these open, more sockets are closed with 1013
        List<Client> more = new java.util.ArrayList<>();
        Client refused = null;
        for (int i = 0; i < 6 && refused == null; i++) {
            Client x = admin();
            JsonNode m = x.messages.poll(500, TimeUnit.MILLISECONDS);
            if (m != null && m.path("type").asText().equals("error")) {
                assertEquals("TOO_MANY_CONNECTIONS", m.path("error").path("code").asText());
                refused = x;
            } else {
                more.add(x);
            }
        }
        assertNotNull(refused, "the connection cap was never reached");
        assertEquals(5, open.size() + 1 + more.size(), "refused exactly beyond 5");
        assertEquals(1013, refused.closed.get(10, TimeUnit.SECONDS));
        for (Client x : open) {
            x.send(Map.of("type", "close"));
            x.closed.get(10, TimeUnit.SECONDS);
        }
        extra.ws.abort();
        more.forEach(x -> x.ws.abort());
    }
}
