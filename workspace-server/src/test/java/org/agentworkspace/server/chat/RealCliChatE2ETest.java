package org.agentworkspace.server.chat;

import static org.agentworkspace.server.TestServer.bearer;
import static org.agentworkspace.server.TestServer.expect;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.WebSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

import com.fasterxml.jackson.databind.JsonNode;

import org.agentworkspace.api.Principal;
import org.agentworkspace.api.Scope;
import org.agentworkspace.api.User;
import org.agentworkspace.core.agent.AgentSettings;
import org.agentworkspace.server.TestServer;
import org.agentworkspace.testkit.mockllm.MockLlmServer;
import org.agentworkspace.testkit.realcli.RealCli;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code /ws} with the REAL claude CLI from npm against the mock LLM, in permission mode {@code default}: the server
 * runs it with {@code --input-format stream-json --permission-prompt-tool stdio}, the CLI's {@code can_use_tool}
 * control request arrives as a {@code permission-request} frame, and the answer goes back to the CLI as its
 * {@code control_response}. The file the mock asks to write is written only when the answer is "allow". Skipped,
 * with the reason printed, only when node or npm is missing.
 */
@Tag("real-cli")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RealCliChatE2ETest {
    static final HttpClient HTTP = HttpClient.newHttpClient();
    @TempDir
    static Path tmp;
    static final String KEY = "sk-aw-chat-e2e-saved-through-the-route";
    MockLlmServer mock;
    TestServer s;
    String admin;

    @BeforeAll
    void start() throws Exception {
        Optional<String> missing = RealCli.unavailableReason();
        if (missing.isPresent()) {
            System.out.println("SKIPPED real-cli chat e2e: " + missing.get());
        }
        Assumptions.assumeTrue(missing.isEmpty(), () -> missing.orElse(""));
        Path node = RealCli.ensureNode();
        Path bin = RealCli.ensureInstalled("claude");
        Path home = Files.createDirectories(tmp.resolve("home"));
        Files.createDirectories(tmp.resolve("tmpdir"));
        mock = MockLlmServer.create().start();
        // configured as an operator would: the binary, and the server's environment (HOME, a PATH with node 22)
        // the mock LLM is a loopback endpoint: the administrator allows it, as an operator would (--outbound-allow)
        s = TestServer.start(c -> c.withAgent(AgentSettings.defaults().withBinaries(Map.of("claude", bin)))
                        .withOutboundAllow(java.util.Set.of(java.net.URI.create(mock.baseUrl()).getHost() + ":"
                                + java.net.URI.create(mock.baseUrl()).getPort())),
                Map.of("HOME", home.toString(), "TMPDIR", tmp.resolve("tmpdir").toString(),
                        "PATH", node + ":/usr/local/bin:/usr/bin:/bin"));
        admin = s.registerAdmin();
        // the key and the mock's address are saved as the signed-in user saves them
        expect(s.post("/api/providers/claude/auth/api-key", Map.of("apiKey", KEY, "baseUrl", mock.baseUrl()),
                bearer(admin)), 200, null);
    }

    @AfterAll
    void stop() {
        if (s != null) {
            s.close();
        }
        if (mock != null) {
            mock.close();
        }
    }

    ChatSocketTest.Client connect() throws Exception {
        User u = s.server.engine().auth().accounts().list().getFirst();
        String ticket = s.server.engine().auth().tickets().issue(new Principal(u, Principal.Kind.SESSION, null,
                Scope.all())).value();
        ChatSocketTest.Client c = new ChatSocketTest.Client();
        c.ws = HTTP.newWebSocketBuilder().connectTimeout(Duration.ofSeconds(5))
                .buildAsync(URI.create("ws://127.0.0.1:" + s.server.port() + "/ws?streamTicket=" + ticket), c)
                .get(10, TimeUnit.SECONDS);
        return c;
    }

    /** A registered project in a fresh folder; returns its name. */
    String project(String name) throws Exception {
        return s.quickStart(admin, Files.createDirectories(tmp.resolve(name)));
    }

    String turn(ChatSocketTest.Client c, String project, String file) throws Exception {
        c.send(Map.of("type", "turn", "provider", "claude", "model", "claude-sonnet-4-5", "permissionMode", "default",
                "projectName", project, "clientRequestId", "t-" + file,
                "message", "Create the file [[mock:tool:write_file path=" + file + " content=hello-from-ws]]"));
        JsonNode sub = c.next("subscribed");
        return sub.path("runId").asText();
    }

    /** Frames up to the first permission-request (returned last). */
    static List<JsonNode> untilPermission(ChatSocketTest.Client c) throws InterruptedException {
        List<JsonNode> out = new ArrayList<>();
        while (true) {
            JsonNode m = c.next();
            out.add(m);
            assertFalse(m.path("type").asText().equals("complete"), "completed without asking: " + out);
            assertFalse(m.path("type").asText().equals("error"), m.toString());
            if (m.path("type").asText().equals("permission-request")) {
                return out;
            }
        }
    }

    static boolean hasEvent(List<JsonNode> frames, String kind) {
        return frames.stream().anyMatch(f -> f.path("type").asText().equals("event")
                && f.path("event").path("kind").asText().equals(kind));
    }

    static JsonNode lastEvent(List<JsonNode> frames, String kind) {
        JsonNode found = null;
        for (JsonNode f : frames) {
            if (f.path("type").asText().equals("event") && f.path("event").path("kind").asText().equals(kind)) {
                found = f.path("event");
            }
        }
        return found;
    }

    @Test
    void allowLetsTheCliWriteTheFileAndTheTurnStreamsTextAndTheToolCall() throws Exception {
        int sent = mock.requests().size();
        String project = project("allow");
        ChatSocketTest.Client c = connect();
        String runId = turn(c, project, "allowed.txt");
        List<JsonNode> before = untilPermission(c);
        JsonNode ask = before.getLast();
        assertEquals(runId, ask.path("runId").asText());
        assertEquals("Write", ask.path("toolName").asText(), ask.toString());
        assertTrue(ask.path("input").path("file_path").asText().endsWith("allowed.txt"), ask.toString());
        assertTrue(Instant.parse(ask.path("expiresAt").asText()).isAfter(Instant.now()));
        assertTrue(hasEvent(before, "text"), "the assistant's text streamed before the tool: " + before);
        assertTrue(hasEvent(before, "tool-use"), "the tool call streamed: " + before);
        assertTrue(before.stream().anyMatch(f -> f.path("type").asText().equals("session-created")));
        // the permission request is an entry of the run's log: the event frame with the same seq came first
        JsonNode stored = before.get(before.size() - 2);
        assertEquals("permission-request", stored.path("event").path("kind").asText(), stored.toString());
        assertEquals(ask.path("seq").asLong(), stored.path("seq").asLong());
        assertFalse(Files.exists(tmp.resolve("allow/allowed.txt")), "nothing written before the answer");

        c.send(Map.of("type", "permission-response", "requestId", ask.path("requestId").asText(),
                "decision", "allow"));
        List<JsonNode> after = c.untilComplete(runId);
        JsonNode answered = lastEvent(after, "permission-response");
        assertEquals("allow", answered.path("data").path("decision").asText(), answered.toString());
        JsonNode result = lastEvent(after, "tool-result");
        assertFalse(result.path("data").path("isError").asBoolean(), result.toString());
        JsonNode complete = after.getLast();
        assertEquals("completed", complete.path("status").asText(), complete.toString());
        assertEquals(0, complete.path("exitCode").asInt());
        assertTrue(complete.path("usage").path("input").asLong() > 0, complete.toString());
        assertEquals("hello-from-ws", Files.readString(tmp.resolve("allow/allowed.txt")).strip());
        List<org.agentworkspace.testkit.mockllm.RecordedRequest> calls = List.copyOf(mock.requests().subList(sent,
                mock.requests().size()));
        assertFalse(calls.isEmpty());
        for (org.agentworkspace.testkit.mockllm.RecordedRequest r : calls) {
            assertEquals(Optional.of(KEY), r.apiKey(), "the turn sent the key saved through the route");
        }

        // one log: the SSE route of the same run serves the permission request and its answer under the same seq
        var req = java.net.http.HttpRequest.newBuilder(s.uri("/api/automation/runs/" + runId + "/events?afterSeq=0"))
                .timeout(Duration.ofSeconds(30)).header("Authorization", "Bearer " + admin).GET().build();
        String sse;
        try (var in = s.http.send(req, java.net.http.HttpResponse.BodyHandlers.ofInputStream()).body()) {
            sse = new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        }
        assertTrue(sseBlock(sse, "\"permission-request\"").contains("id:" + ask.path("seq").asLong() + "\n"), sse);
        assertTrue(sseBlock(sse, "\"permission-response\"").contains("\"decision\":\"allow\""), sse);
        c.ws.abort();
    }

    /** The SSE event (block) whose data contains {@code needle}, with "id: n" written as "id:n". */
    static String sseBlock(String sse, String needle) {
        for (String block : sse.split("\n\n")) {
            if (block.contains(needle)) {
                return block.replace("id: ", "id:") + "\n";
            }
        }
        throw new AssertionError("no SSE event with " + needle + " in " + sse);
    }

    @Test
    void abortWhileAPermissionIsPendingDeniesItAndKillsTheCli() throws Exception {
        String project = project("abort");
        ChatSocketTest.Client c = connect();
        String runId = turn(c, project, "aborted.txt");
        untilPermission(c);
        assertTrue(processesOf(runId) > 0, "the CLI is alive while it waits for the answer");
        c.send(Map.of("type", "abort", "runId", runId));
        List<JsonNode> after = c.untilComplete(runId);
        JsonNode answered = lastEvent(after, "permission-response");
        assertEquals("cancelled", answered.path("data").path("reason").asText(), answered.toString());
        assertEquals("cancelled", after.getLast().path("status").asText(), after.getLast().toString());
        assertEquals(0, processesOf(runId), "no process of the run is left");
        assertFalse(Files.exists(tmp.resolve("abort/aborted.txt")));
        c.ws.abort();
    }

    /** Live processes whose environment carries the run's marker {@code AW_RUN_ID=<runId>}. */
    static long processesOf(String runId) throws Exception {
        byte[] marker = ("AW_RUN_ID=" + runId + "\0").getBytes(java.nio.charset.StandardCharsets.UTF_8);
        try (java.util.stream.Stream<Path> procs = Files.list(Path.of("/proc"))) {
            return procs.filter(p -> p.getFileName().toString().chars().allMatch(Character::isDigit)).filter(p -> {
                try {
                    String stat = Files.readString(p.resolve("stat"));
                    if (stat.substring(stat.lastIndexOf(')') + 2).startsWith("Z")) {
                        return false;
                    }
                    String env = new String(Files.readAllBytes(p.resolve("environ")),
                            java.nio.charset.StandardCharsets.ISO_8859_1);
                    return env.contains(new String(marker, java.nio.charset.StandardCharsets.ISO_8859_1));
                } catch (Exception e) {
                    return false;
                }
            }).count();
        }
    }

    @Test
    void denyKeepsTheFileUnwrittenAndTheCliCarriesOn() throws Exception {
        String project = project("deny");
        ChatSocketTest.Client c = connect();
        String runId = turn(c, project, "denied.txt");
        JsonNode ask = untilPermission(c).getLast();
        c.send(Map.of("type", "permission-response", "requestId", ask.path("requestId").asText(),
                "decision", "deny"));
        List<JsonNode> after = c.untilComplete(runId);
        assertEquals("deny", lastEvent(after, "permission-response").path("data").path("decision").asText());
        JsonNode result = lastEvent(after, "tool-result");
        assertTrue(result.path("data").path("isError").asBoolean(), "the CLI got the denial: " + result);
        assertEquals("completed", after.getLast().path("status").asText(), after.getLast().toString());
        assertFalse(Files.exists(tmp.resolve("deny/denied.txt")), "a denied write is not done");
        // answering again: the request is gone
        c.send(Map.of("type", "permission-response", "requestId", ask.path("requestId").asText(),
                "decision", "allow"));
        assertEquals("PERMISSION_REQUEST_NOT_FOUND", c.next("error").path("error").path("code").asText());
        c.ws.abort();
    }

    @Test
    void aPendingRequestIsSentAgainToAReconnectingSubscriber() throws Exception {
        String project = project("reconnect");
        ChatSocketTest.Client c = connect();
        String runId = turn(c, project, "later.txt");
        List<JsonNode> seen = untilPermission(c);
        JsonNode ask = seen.getLast();
        long last = ask.path("seq").asLong();
        c.ws.abort();

        ChatSocketTest.Client again = connect();
        again.send(Map.of("type", "subscribe", "runId", runId, "afterSeq", last));
        JsonNode sub = again.next("subscribed");
        assertEquals(last, sub.path("afterSeq").asLong());
        JsonNode resent = again.next("permission-request");
        assertEquals(ask.path("requestId").asText(), resent.path("requestId").asText());
        assertEquals(last, resent.path("seq").asLong());
        again.send(Map.of("type", "permission-response", "requestId", resent.path("requestId").asText(),
                "decision", "allow"));
        List<JsonNode> after = again.untilComplete(runId);
        // nothing before the last seq is repeated; the rest follows in order
        long prev = last;
        for (JsonNode f : after) {
            if (f.path("type").asText().equals("event") || f.path("type").asText().equals("complete")) {
                assertEquals(prev + 1, f.path("seq").asLong(), f.toString());
                prev = f.path("seq").asLong();
            }
        }
        assertEquals("completed", after.getLast().path("status").asText());
        assertTrue(Files.exists(tmp.resolve("reconnect/later.txt")));
        again.ws.abort();
    }

    @Test
    void anUnansweredRequestIsDeniedWhenItExpires() throws Exception {
        s.server.chatEndpoint().permissions().setTimeout(Duration.ofSeconds(2));
        try {
            String project = project("expire");
            ChatSocketTest.Client c = connect();
            String runId = turn(c, project, "never.txt");
            untilPermission(c);
            List<JsonNode> after = c.untilComplete(runId);
            JsonNode answered = lastEvent(after, "permission-response");
            assertEquals("deny", answered.path("data").path("decision").asText(), answered.toString());
            assertEquals("expired", answered.path("data").path("reason").asText());
            assertFalse(Files.exists(tmp.resolve("expire/never.txt")));
            c.ws.abort();
        } finally {
            s.server.chatEndpoint().permissions().setTimeout(Duration.ofMinutes(5));
        }
    }
}
