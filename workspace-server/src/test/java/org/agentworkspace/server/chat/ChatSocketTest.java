package org.agentworkspace.server.chat;

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
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import com.fasterxml.jackson.databind.JsonNode;

import org.agentworkspace.api.Principal;
import org.agentworkspace.api.Scope;
import org.agentworkspace.api.User;
import org.agentworkspace.api.provider.ProviderCredentials;
import org.agentworkspace.core.agent.AgentSettings;
import org.agentworkspace.server.ServerConfig;
import org.agentworkspace.server.TestServer;
import org.agentworkspace.server.WorkspaceServer;
import org.agentworkspace.server.shell.ShellLimits;
import org.agentworkspace.testkit.fakecli.FakeClis;
import org.agentworkspace.server.JsonSocketClient;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code /ws} end to end with the fake CLIs: the real server, real processes, the JDK WebSocket client over a real
 * socket. gemini's fake streams 300 events slowly (reconnects), qwen's streams forever with grandchildren (abort),
 * claude's replays its recording (sessions).
 */
class ChatSocketTest {
    static final HttpClient HTTP = HttpClient.newHttpClient();
    static final String GRANDCHILD_SECONDS = "789";
    @TempDir
    static Path tmp;
    static TestServer s;
    static WorkspaceServer server;
    static String admin;
    static String bob;
    static String project;

    @BeforeAll
    static void start() throws Exception {
        Path bin = FakeClis.install(tmp.resolve("bin"));
        Path data = tmp.resolve("data");
        Map<String, Map<String, String>> env = new HashMap<>();
        env.put("gemini", Map.of("AW_FAKE_EVENTS", "300", "AW_FAKE_DELAY_MS", "4"));
        env.put("qwen", Map.of("AW_FAKE_EVENTS", "100000", "AW_FAKE_DELAY_MS", "200", "AW_FAKE_GRANDCHILDREN", "2",
                "AW_FAKE_GRANDCHILD_SECONDS", GRANDCHILD_SECONDS));
        ServerConfig config = org.agentworkspace.server.TestServer.config(data);
        config = config.withEngine(config.engine().withRuns(config.engine().runs()
                        .withKillGrace(Duration.ofMillis(300))))
                .withAgent(AgentSettings.defaults().withBinaries(Map.of("*", bin)).withProviderEnv(env)
                        .withCredentials(id -> new ProviderCredentials("sk-aw-chat-test", null)));
        ChatLimits limits = ChatLimits.defaults().withConnections(4).withHeartbeat(Duration.ofMillis(500));
        s = TestServer.wrap(WorkspaceServer.start(config, Map.of(), ShellLimits.defaults(), limits), data);
        server = s.server;
        admin = s.registerAdmin();
        expect(s.post("/api/users", Map.of("username", "bob", "password", "bob-password-1"), bearer(admin)), 201, null);
        bob = s.login("bob", "bob-password-1");
        project = s.quickStart(admin, Files.createDirectories(tmp.resolve("proj")));
    }

    @AfterAll
    static void stop() {
        s.close();
    }

    /** A client socket that queues every message it receives and the close code. */
    static final class Client extends JsonSocketClient {
        JsonNode next() throws InterruptedException {
            JsonNode m = messages.poll(20, TimeUnit.SECONDS);
            assertNotNull(m, "no message");
            assertTrue(m.has("seq"), "every frame carries seq: " + m);
            return m;
        }

        JsonNode next(String type) throws InterruptedException {
            JsonNode m = next();
            assertEquals(type, m.path("type").asText(), m.toString());
            return m;
        }

        /** Frames until (and with) the complete frame of {@code runId}. */
        List<JsonNode> untilComplete(String runId) throws InterruptedException {
            List<JsonNode> out = new ArrayList<>();
            while (true) {
                JsonNode m = next();
                out.add(m);
                if (m.path("type").asText().equals("complete") && m.path("runId").asText().equals(runId)) {
                    return out;
                }
                assertFalse(m.path("type").asText().equals("error"), m.toString());
            }
        }
    }

    String wsUri() {
        return "ws://127.0.0.1:" + server.port() + "/ws";
    }

    String ticket(String username) {
        User u = server.engine().auth().accounts().list().stream().filter(x -> x.username().equals(username))
                .findFirst().orElseThrow();
        return server.engine().auth().tickets().issue(new Principal(u, Principal.Kind.SESSION, null, Scope.all()))
                .value();
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

    /**
     * A socket of the administrator. The cap is 4 sockets per user and the server frees a slot only once it has seen
     * an earlier test's aborted socket close, so a 429 here is retried for a few seconds (as a client would).
     */
    Client adminSocket() throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (true) {
            try {
                return connect("?streamTicket=" + ticket("admin"));
            } catch (ExecutionException e) {
                boolean capped = e.getCause() instanceof WebSocketHandshakeException h
                        && h.getResponse() != null && h.getResponse().statusCode() == 429;
                if (!capped || System.nanoTime() > deadline) {
                    throw e;
                }
                Thread.sleep(50);
            }
        }
    }

    int refusedWith(String query, String... headers) {
        ExecutionException e = assertThrows(ExecutionException.class, () -> connect(query, headers));
        assertTrue(e.getCause() instanceof WebSocketHandshakeException, String.valueOf(e.getCause()));
        HttpResponse<?> res = ((WebSocketHandshakeException) e.getCause()).getResponse();
        return res.statusCode();
    }

    /** Starts a turn and returns the {@code subscribed} frame that answers it. */
    static JsonNode turn(Client c, String provider, String message, Map<String, Object> extra)
            throws InterruptedException {
        Map<String, Object> m = new HashMap<>(Map.of("type", "turn", "provider", provider, "message", message,
                "clientRequestId", "req-" + provider));
        m.putAll(extra);
        if (!m.containsKey("sessionId")) {
            m.put("projectName", project);
        }
        c.send(m);
        JsonNode sub = c.next("subscribed");
        assertTrue(sub.path("runId").asText().startsWith("run_"), sub.toString());
        assertEquals("req-" + provider, sub.path("clientRequestId").asText());
        return sub;
    }

    /** The seq of every event and complete frame, which must be 1..N without a gap or a repeat. */
    static void assertExactlyOnce(List<Long> seqs, long first) {
        for (int i = 0; i < seqs.size(); i++) {
            assertEquals(first + i, seqs.get(i), "frame " + i + " of " + seqs);
        }
    }

    @Test
    void aTurnStreamsEveryEntryOnceThenCompletesAndTheSessionContinues() throws Exception {
        Client c = adminSocket();
        JsonNode sub = turn(c, "claude", "Say hello", Map.of("permissionMode", "bypassPermissions"));
        String runId = sub.path("runId").asText();
        assertEquals(0, sub.path("afterSeq").asLong());
        List<JsonNode> frames = c.untilComplete(runId);
        List<Long> seqs = new ArrayList<>();
        String sessionId = null;
        boolean text = false;
        for (JsonNode f : frames) {
            switch (f.path("type").asText()) {
                case "event" -> {
                    seqs.add(f.path("seq").asLong());
                    assertEquals(runId, f.path("runId").asText());
                    if (f.path("event").path("kind").asText().equals("text")) {
                        text = true;
                    }
                }
                case "session-created" -> {
                    sessionId = f.path("sessionId").asText();
                    assertEquals("claude", f.path("provider").asText());
                    assertEquals("req-claude", f.path("clientRequestId").asText());
                }
                case "complete" -> {
                    seqs.add(f.path("seq").asLong());
                    assertEquals("completed", f.path("status").asText(), f.toString());
                    assertEquals(0, f.path("exitCode").asInt());
                    assertTrue(f.path("usage").path("output").asLong() > 0, f.toString());
                    assertEquals(sessionId, f.path("sessionId").asText());
                }
                default -> throw new AssertionError("unexpected frame " + f);
            }
        }
        assertTrue(text, "the assistant's text arrives as an event: " + frames);
        assertNotNull(sessionId, "a session-created frame");
        assertExactlyOnce(seqs, 1);
        assertEquals(server.engine().runs().lastSeq(runId), seqs.getLast());

        // continue the session: a resumed run of the same CLI session, followed by sessionId
        JsonNode second = turn(c, "claude", "And now a second turn", Map.of("sessionId", sessionId,
                "permissionMode", "bypassPermissions"));
        String run2 = second.path("runId").asText();
        assertFalse(run2.equals(runId));
        assertEquals(sessionId, second.path("sessionId").asText());
        List<JsonNode> more = c.untilComplete(run2);
        assertEquals("completed", more.getLast().path("status").asText());
        assertTrue(more.stream().noneMatch(f -> f.path("type").asText().equals("session-created")),
                "a continued session is not created again");
        assertTrue(server.engine().runs().find(run2).orElseThrow().metadata().contains(sessionId));
        // subscribe by sessionId: the session's latest run, replayed from the start
        c.send(Map.of("type", "subscribe", "sessionId", sessionId, "afterSeq", 0));
        JsonNode again = c.next("subscribed");
        assertEquals(run2, again.path("runId").asText());
        assertEquals(more.getLast().path("seq").asLong(), again.path("seq").asLong());
        List<JsonNode> replay = c.untilComplete(run2);
        assertEquals(more.stream().filter(f -> f.path("type").asText().equals("event")).count(),
                replay.stream().filter(f -> f.path("type").asText().equals("event")).count());
        c.send(Map.of("type", "ping"));
        assertEquals(0, c.next("pong").path("seq").asLong());
        c.ws.abort();
    }

    @Test
    void aReconnectWithTheLastSeqGetsEveryEventExactlyOnceInOrder() throws Exception {
        Client c = adminSocket();
        String runId = turn(c, "gemini", "Stream slowly", Map.of()).path("runId").asText();
        List<Long> seqs = new ArrayList<>();
        long last = 0;
        int drops = 0;
        while (true) {
            JsonNode m = c.next();
            String type = m.path("type").asText();
            if (type.equals("event") || type.equals("complete")) {
                seqs.add(m.path("seq").asLong());
                last = m.path("seq").asLong();
            }
            if (type.equals("complete")) {
                assertEquals("completed", m.path("status").asText());
                break;
            }
            if (type.equals("event") && seqs.size() % 90 == 0 && drops < 3) {
                // drop the socket mid-run without a close handshake, lose what is in flight, come back
                c.ws.abort();
                drops++;
                Thread.sleep(150);
                c = adminSocket();
                c.send(Map.of("type", "subscribe", "runId", runId, "afterSeq", last));
                JsonNode sub = c.next("subscribed");
                assertEquals(last, sub.path("afterSeq").asLong());
                assertTrue(sub.path("seq").asLong() >= last, sub.toString());
            }
        }
        assertEquals(3, drops);
        assertTrue(seqs.size() > 300, "every entry of a 300-event run: " + seqs.size());
        assertExactlyOnce(seqs, 1);
        c.ws.abort();
    }

    @Test
    void oneSocketFollowsSeveralRunsAndAnIdleSocketIsKeptAlive() throws Exception {
        Client c = adminSocket();
        String slow = turn(c, "gemini", "Stream slowly", Map.of()).path("runId").asText();
        // the second turn's answer interleaves with the first run's frames
        c.send(Map.of("type", "turn", "provider", "claude", "message", "Say hello", "projectName", project,
                "permissionMode", "bypassPermissions", "clientRequestId", "second"));
        String quick = null;
        Map<String, List<Long>> seqs = new HashMap<>(Map.of(slow, new ArrayList<>()));
        int completes = 0;
        while (completes < 2) {
            JsonNode m = c.next();
            String type = m.path("type").asText();
            if (type.equals("subscribed")) {
                assertEquals("second", m.path("clientRequestId").asText());
                quick = m.path("runId").asText();
                seqs.put(quick, new ArrayList<>());
                continue;
            }
            if (type.equals("event") || type.equals("complete")) {
                seqs.get(m.path("runId").asText()).add(m.path("seq").asLong());
            }
            if (type.equals("complete")) {
                assertEquals("completed", m.path("status").asText(), m.toString());
                completes++;
            }
        }
        assertExactlyOnce(seqs.get(slow), 1);
        assertExactlyOnce(seqs.get(quick), 1);
        // a finished run subscribed at its end: only `subscribed`, which says how it ended
        long end = seqs.get(quick).getLast();
        c.send(Map.of("type", "subscribe", "runId", quick, "afterSeq", end));
        JsonNode sub = c.next("subscribed");
        assertEquals(end, sub.path("seq").asLong());
        assertEquals("completed", sub.path("status").asText());
        // idle for several heartbeats (500 ms here): the server's pings are answered by the client, the socket stays
        Thread.sleep(2500);
        assertFalse(c.closed.isDone(), "an idle socket that answers pings stays open");
        assertTrue(c.messages.isEmpty(), "nothing but pings while idle: " + c.messages);
        c.send(Map.of("type", "ping"));
        c.next("pong");
        c.ws.abort();
    }

    @Test
    void abortKillsTheRunsWholeProcessTree() throws Exception {
        Client c = adminSocket();
        String runId = turn(c, "qwen", "Run forever", Map.of()).path("runId").asText();
        // wait until it really runs (and has started its grandchildren)
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (grandchildren() < 2) {
            assertTrue(System.nanoTime() < deadline, "the fake started no grandchildren");
            Thread.sleep(50);
        }
        c.send(Map.of("type", "abort", "runId", runId));
        List<JsonNode> frames = c.untilComplete(runId);
        assertEquals("cancelled", frames.getLast().path("status").asText(), frames.getLast().toString());
        assertEquals(0, grandchildren(), "processes left after the abort");
        c.ws.abort();
    }

    /** Processes whose command line is the fakes' grandchild {@code sleep GRANDCHILD_SECONDS}. */
    static long grandchildren() throws Exception {
        try (Stream<Path> procs = Files.list(Path.of("/proc"))) {
            return procs.filter(p -> p.getFileName().toString().chars().allMatch(Character::isDigit)).filter(p -> {
                try {
                    String cmd = Files.readString(p.resolve("cmdline"));
                    return cmd.equals("sleep\0" + GRANDCHILD_SECONDS + "\0");
                } catch (Exception e) {
                    return false;
                }
            }).count();
        }
    }

    @Test
    void credentialsOriginsScopesCapsAndOversizedFrames() throws Exception {
        String origin = "http://127.0.0.1:" + server.port();
        assertEquals(401, refusedWith(""), "no credential");
        assertEquals(401, refusedWith("?token=" + admin), "a session token in the URL");
        String[] writer = s.createKey(admin, "chat-writer", List.of("tasks:read", "tasks:write"));
        String[] reader = s.createKey(admin, "chat-reader", List.of("tasks:read"));
        String[] other = s.createKey(admin, "chat-other", List.of("projects:read"));
        assertEquals(401, refusedWith("?apiKey=" + writer[1]), "a key in the URL");
        assertEquals(403, refusedWith("", "Cookie", "token=" + admin, "Origin", "https://evil.example"));
        assertEquals(403, refusedWith("?streamTicket=" + ticket("admin"), "Origin", "https://evil.example"));
        assertEquals(403, refusedWith("", "Cookie", "token=" + admin), "a cookie without an Origin");
        assertEquals(403, refusedWith("", "X-API-Key", other[1]), "a key without tasks:read");
        expect(s.get("/ws", "X-API-Key", other[1]), 403, "INSUFFICIENT_SCOPE");
        expect(s.get("/ws", "X-API-Key", reader[1]), 426, "UPGRADE_REQUIRED");

        // a key with tasks:read only may follow but not start, abort or answer
        Client r = connect("", "X-API-Key", reader[1]);
        r.send(Map.of("type", "turn", "provider", "claude", "message", "hi", "projectName", project,
                "clientRequestId", "x1"));
        JsonNode err = r.next("error");
        assertEquals(false, err.path("success").asBoolean(true));
        assertEquals("INSUFFICIENT_SCOPE", err.path("error").path("code").asText());
        assertEquals("x1", err.path("clientRequestId").asText());
        r.send(Map.of("type", "permission-response", "requestId", "perm_x", "decision", "allow"));
        assertEquals("INSUFFICIENT_SCOPE", r.next("error").path("error").path("code").asText());
        r.send(Map.of("type", "subscribe", "runId", "run_nope"));
        assertEquals("RUN_NOT_FOUND", r.next("error").path("error").path("code").asText());
        r.send(Map.of("type", "what"));
        assertEquals("INVALID_MESSAGE", r.next("error").path("error").path("code").asText());
        r.ws.sendText("{not json", true);
        assertEquals("INVALID_MESSAGE", r.next("error").path("error").path("code").asText());

        // the cookie with our own Origin is fine; bob cannot see the admin's runs
        Client w = connect("?streamTicket=" + ticket("admin"));
        String runId = turn(w, "claude", "Say hello", Map.of("permissionMode", "bypassPermissions"))
                .path("runId").asText();
        w.untilComplete(runId);
        Client b = connect("", "Cookie", "token=" + bob, "Origin", origin);
        b.send(Map.of("type", "subscribe", "runId", runId));
        assertEquals("RUN_NOT_FOUND", b.next("error").path("error").path("code").asText());
        b.send(Map.of("type", "abort", "runId", runId));
        assertEquals("RUN_NOT_FOUND", b.next("error").path("error").path("code").asText());

        // per-user cap (4 here): bob holds 1; 3 more fit, the 5th is refused before the upgrade, by every carrier
        List<Client> held = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            held.add(connect("?streamTicket=" + ticket("bob")));
        }
        assertEquals(429, refusedWith("?streamTicket=" + ticket("bob")), "a ticket over the cap");
        assertEquals(429, refusedWith("", "Cookie", "token=" + bob, "Origin", origin), "a cookie over the cap");
        expect(s.get("/ws", bearer(bob)), 429, "TOO_MANY_CONNECTIONS");
        held.getFirst().ws.sendClose(1000, "bye").get(5, TimeUnit.SECONDS);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (server.chatEndpoint().connections(userId("bob")) > 3) {
            assertTrue(System.nanoTime() < deadline, "the closed socket was not released");
            Thread.sleep(20);
        }
        held.set(0, connect("?streamTicket=" + ticket("bob")));

        // an oversized frame closes the socket with 1009
        Client big = connect("", "X-API-Key", writer[1]);
        big.ws.sendText("x".repeat(70 * 1024), true);
        assertEquals(1009, big.closed.get(10, TimeUnit.SECONDS));
        for (Client h : held) {
            h.ws.abort();
        }
        b.ws.abort();
        w.ws.abort();
        r.ws.abort();
    }

    long userId(String name) {
        return server.engine().auth().accounts().list().stream().filter(x -> x.username().equals(name))
                .findFirst().orElseThrow().id();
    }
}
