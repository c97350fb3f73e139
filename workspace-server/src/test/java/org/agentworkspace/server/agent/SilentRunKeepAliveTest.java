package org.agentworkspace.server.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import org.agentworkspace.api.provider.ProviderCredentials;
import org.agentworkspace.core.agent.AgentSettings;
import org.agentworkspace.server.TestServer;
import org.agentworkspace.testkit.fakecli.FakeClis;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An agent that says nothing for longer than the keep-alive interval (15 s): the SSE stream carries a keep-alive
 * that a browser does not dispatch, stays open, and delivers the run to its end (it used to fail with a 500 because
 * Helidon cannot write a data-less event).
 */
class SilentRunKeepAliveTest {
    @TempDir
    Path tmp;

    @Test
    void aLongSilenceKeepsTheStreamAliveUntilTheRunEnds() throws Exception {
        Path bin = FakeClis.install(tmp.resolve("bin"));
        Path project = Files.createDirectories(tmp.resolve("project"));
        try (TestServer s = TestServer.start(c -> c.withAgent(AgentSettings.defaults()
                .withBinaries(Map.of("*", bin))
                .withProviderEnv(Map.of("claude", Map.of("AW_FAKE_SILENCE_MS", "17000")))
                .withCredentials(id -> new ProviderCredentials("sk-keepalive", null))))) {
            String admin = s.registerAdmin();
            String key = s.createKey(admin, "ci", List.of("tasks:write", "tasks:read"))[1];
            HttpRequest req = HttpRequest.newBuilder(s.uri("/api/agent")).timeout(Duration.ofSeconds(90))
                    .header("Content-Type", "application/json").header("X-API-Key", key)
                    .header("Accept", "text/event-stream")
                    .POST(HttpRequest.BodyPublishers.ofString(TestServer.JSON.writeValueAsString(Map.of(
                            "message", "Think before you say hello", "projectPath", project.toString())))).build();
            HttpResponse<InputStream> res = s.http.send(req, HttpResponse.BodyHandlers.ofInputStream());
            assertEquals(200, res.statusCode());
            ByteArrayOutputStream raw = new ByteArrayOutputStream();
            try (InputStream in = res.body()) {
                in.transferTo(raw);
            }
            String text = raw.toString(StandardCharsets.UTF_8);
            assertTrue(text.replace("\r\n", "\n").matches("(?s):\\s?keep-alive\ndata:\n\n.*"),
                    "a keep-alive comment with empty data was sent during the silence:\n" + cut(text));
            List<Sse.Frame> frames = new Sse(new java.io.ByteArrayInputStream(raw.toByteArray()))
                    .until(f -> f.name().equals("done") || f.name().equals("error"));
            assertEquals("done", frames.getLast().name(), "the keep-alive is not seen as an event");
            assertTrue(frames.stream().noneMatch(f -> f.data() == null || f.data().isMissingNode()));
        }
    }

    private static String cut(String s) {
        return s.length() > 3000 ? s.substring(0, 3000) + "…" : s;
    }
}
