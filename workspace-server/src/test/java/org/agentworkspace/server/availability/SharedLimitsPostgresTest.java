package org.agentworkspace.server.availability;

import static org.agentworkspace.server.TestServer.bearer;
import static org.agentworkspace.server.TestServer.expect;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.WebSocket;
import java.net.http.WebSocketHandshakeException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import org.agentworkspace.server.JsonSocketClient;
import org.agentworkspace.server.ServerConfig;
import org.agentworkspace.server.TestServer;
import org.agentworkspace.server.WorkspaceServer;
import org.agentworkspace.server.shell.ShellLimits;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Limits shared by two servers (two nodes, in this JVM, each with its own data folder) on one throwaway PostgreSQL
 * database (docs/scale-out.md "Shared limits"): an account's open streams are capped over both nodes
 * ({@code TOO_MANY_STREAMS} on either once it holds the cap anywhere), and failed logins on one node lock the
 * account out on the other.
 */
class SharedLimitsPostgresTest {
    private static final String PG_ADMIN_URL = System.getProperty("aw.test.pg.url",
            "jdbc:postgresql://127.0.0.1:5432/postgres?user=postgres");

    @TempDir
    Path tmp;

    String dbName;
    String dbUrl;
    final List<TestServer> servers = new ArrayList<>();

    @BeforeEach
    void createDatabase() {
        dbName = "aw_test_" + UUID.randomUUID().toString().replace("-", "").substring(0, 16).toLowerCase(Locale.ROOT);
        try (Connection c = DriverManager.getConnection(PG_ADMIN_URL); Statement s = c.createStatement()) {
            s.execute("CREATE DATABASE " + dbName);
        } catch (SQLException e) {
            dbName = null;
            Assumptions.abort("PostgreSQL not reachable at " + PG_ADMIN_URL + " (" + e.getMessage() + ")");
        }
        dbUrl = PG_ADMIN_URL.replaceFirst("/[^/?]+(\\?|$)", "/" + dbName + "$1");
    }

    @AfterEach
    void dropDatabase() {
        for (TestServer s : servers.reversed()) {
            s.close();
        }
        if (dbName != null) {
            try (Connection c = DriverManager.getConnection(PG_ADMIN_URL); Statement s = c.createStatement()) {
                s.execute("DROP DATABASE IF EXISTS " + dbName + " WITH (FORCE)");
            } catch (SQLException e) {
                System.err.println("could not drop test database " + dbName + ": " + e.getMessage());
            }
        }
    }

    TestServer node(String name) {
        TestServer s = TestServer.start(c -> ServerConfig.from(Map.of(), List.of("--max-streams-per-account", "3",
                "--data-dir", tmp.resolve(name).toString(), "--port", "0", "--db-url", dbUrl, "--project-roots",
                tmp.toString())));
        servers.add(s);
        return s;
    }

    /** A node whose {@code /ws} and {@code /shell} caps are 2 sockets per user. */
    TestServer socketNode(String name) throws Exception {
        ServerConfig config = ServerConfig.from(Map.of(), List.of("--data-dir", tmp.resolve(name).toString(), "--port",
                "0", "--db-url", dbUrl, "--project-roots", tmp.toString()));
        Map<String, String> env = new java.util.HashMap<>(TestServer.isolatedEnv(tmp.resolve(name + "-env")));
        env.put("AW_WS_MAX_CONNECTIONS", "2");
        TestServer s = TestServer.wrap(WorkspaceServer.start(config, env, ShellLimits.defaults().withConnections(2)),
                tmp.resolve(name));
        servers.add(s);
        return s;
    }

    static final HttpClient HTTP = HttpClient.newHttpClient();

    /** A socket on {@code path}, authenticated by a stream ticket of the token's account. */
    static JsonSocketClient socket(TestServer s, String path, String token) throws Exception {
        String ticket = expect(s.post("/api/auth/stream-ticket", Map.of(), bearer(token)), 200, null)
                .path("ticket").asText();
        JsonSocketClient c = new JsonSocketClient();
        c.ws = HTTP.newWebSocketBuilder().connectTimeout(Duration.ofSeconds(5))
                .buildAsync(URI.create("ws://127.0.0.1:" + s.uri("/").getPort() + path + "?streamTicket=" + ticket),
                        c).get(10, TimeUnit.SECONDS);
        return c;
    }

    int storedStreams() throws SQLException {
        try (Connection c = DriverManager.getConnection(dbUrl); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT count(*) FROM open_streams")) {
            rs.next();
            return rs.getInt(1);
        }
    }

    @Test
    void anAccountsStreamsAreCappedOverBothNodes() throws Exception {
        TestServer a = node("a");
        TestServer b = node("b");
        String alice = a.registerAdmin();
        expect(a.post("/api/users", Map.of("username", "bob", "password", "bob-password-1"), bearer(alice)),
                201, null);
        String bob = b.login("bob", "bob-password-1");
        List<HttpResponse<InputStream>> held = new ArrayList<>();
        try {
            held.add(events(a, alice));
            held.add(events(a, alice));
            held.add(events(b, alice));
            for (HttpResponse<InputStream> r : held) {
                assertEquals(200, r.statusCode(), "three streams over two nodes are served");
            }
            for (TestServer s : List.of(b, a)) {
                HttpResponse<InputStream> fourth = events(s, alice);
                if (fourth.statusCode() != 429) {
                    held.add(fourth);
                }
                assertEquals(429, fourth.statusCode(), "a fourth stream of the account is refused on either node");
                String error = new String(fourth.body().readAllBytes(), StandardCharsets.UTF_8);
                assertTrue(error.contains("\"TOO_MANY_STREAMS\""), error);
                assertTrue(fourth.headers().firstValue("Retry-After").isPresent());
            }
            assertEquals(3, storedStreams(), "alice's three streams are rows of the store");
            HttpResponse<InputStream> bobs = events(b, bob);
            held.add(bobs);
            assertEquals(200, bobs.statusCode(), "another account is not affected");

            // one of alice's streams on A ends: its place is given back, and B serves a new one
            held.removeFirst().body().close();
            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            HttpResponse<InputStream> again = events(b, alice);
            while (again.statusCode() == 429 && System.nanoTime() < deadline) {
                again.body().close();
                Thread.sleep(250);
                again = events(b, alice);
            }
            held.add(again);
            assertEquals(200, again.statusCode(), "a stream closed on A frees a place used on B");
            System.out.println("SharedLimitsPostgresTest: a stream closed on A was usable on B after "
                    + (Duration.ofSeconds(60).toMillis() - (deadline - System.nanoTime()) / 1_000_000) + " ms");
        } finally {
            for (HttpResponse<InputStream> r : held) {
                r.body().close();
            }
        }
    }

    @Test
    void failedLoginsOnOneNodeLockTheAccountOutOnTheOther() throws Exception {
        TestServer a = node("a");
        TestServer b = node("b");
        a.registerAdmin();
        for (int i = 0; i < 5; i++) {
            expect(a.post("/api/auth/login", Map.of("username", TestServer.ADMIN, "password", "wrong-password-" + i)),
                    401, null);
        }
        // the right password, on the other node, during the lockout
        HttpResponse<String> locked = b.post("/api/auth/login", Map.of("username", TestServer.ADMIN,
                "password", TestServer.ADMIN_PASSWORD));
        assertEquals(429, locked.statusCode(), locked.body());
        assertTrue(locked.headers().firstValue("Retry-After").isPresent(), locked.headers().toString());
    }

    @Test
    void wsAndShellSocketsAreCappedOverBothNodes() throws Exception {
        TestServer a = socketNode("a");
        TestServer b = socketNode("b");
        String admin = a.registerAdmin();
        // /ws: one socket on each node; a third is refused before the upgrade on either node
        List<JsonSocketClient> held = new ArrayList<>();
        try {
            held.add(socket(a, "/ws", admin));
            held.add(socket(b, "/ws", admin));
            for (TestServer s : List.of(a, b)) {
                ExecutionException refused = org.junit.jupiter.api.Assertions.assertThrows(ExecutionException.class,
                        () -> held.add(socket(s, "/ws", admin)));
                assertTrue(refused.getCause() instanceof WebSocketHandshakeException, String.valueOf(refused));
                assertEquals(429, ((WebSocketHandshakeException) refused.getCause()).getResponse().statusCode());
            }
            expect(b.get("/ws", bearer(admin)), 429, "TOO_MANY_CONNECTIONS");
            // the socket on B closes: A takes a second one
            JsonSocketClient onB = held.remove(1);
            onB.ws.sendClose(WebSocket.NORMAL_CLOSURE, "bye").get(5, TimeUnit.SECONDS);
            onB.closed.get(10, TimeUnit.SECONDS);
            JsonSocketClient again = null;
            long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
            while (again == null && System.nanoTime() < deadline) {
                try {
                    again = socket(a, "/ws", admin);
                } catch (ExecutionException e) {
                    Thread.sleep(100);
                }
            }
            assertTrue(again != null, "a /ws socket closed on B frees a place used on A");
            held.add(again);

            // /shell: one terminal connection on each node; a third is closed with TOO_MANY_CONNECTIONS
            held.add(socket(a, "/shell", admin));
            held.add(socket(b, "/shell", admin));
            JsonSocketClient third = socket(a, "/shell", admin);
            held.add(third);
            com.fasterxml.jackson.databind.JsonNode m = third.messages.poll(10, TimeUnit.SECONDS);
            assertTrue(m != null, "the third terminal connection is answered");
            assertEquals("TOO_MANY_CONNECTIONS", m.path("error").path("code").asText(), m.toString());
        } finally {
            for (JsonSocketClient c : held) {
                c.ws.abort();
            }
        }
    }

    private static HttpResponse<InputStream> events(TestServer s, String token) throws Exception {
        HttpRequest req = HttpRequest.newBuilder(s.uri("/api/events")).timeout(Duration.ofSeconds(30))
                .header("Authorization", "Bearer " + token).header("Accept", "text/event-stream").GET().build();
        return s.http.send(req, HttpResponse.BodyHandlers.ofInputStream());
    }
}
