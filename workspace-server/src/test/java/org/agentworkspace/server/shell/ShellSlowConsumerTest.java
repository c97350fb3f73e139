package org.agentworkspace.server.shell;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.WebSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;

import org.agentworkspace.core.shell.ShellSession;
import org.agentworkspace.server.ServerConfig;
import org.agentworkspace.server.TestServer;
import org.agentworkspace.server.WorkspaceServer;
import org.junit.jupiter.api.Test;

/**
 * A client that stops reading while its terminal floods output: the socket is cut (the terminal's reader never
 * waits for it), the terminal keeps running, and a reattach gets the tail of what was missed.
 */
class ShellSlowConsumerTest {

    @Test
    void aClientThatStopsReadingIsCutOffAndTheTerminalKeepsRunning() throws Exception {
        Path dir = Files.createTempDirectory("aw-shell-slow-");
        ShellLimits limits = ShellLimits.defaults().withMaxQueuedChars(64 * 1024)
                .withWriteTimeout(Duration.ofMillis(500)).withHeartbeat(Duration.ofSeconds(30));
        try (TestServer s = TestServer.wrap(WorkspaceServer.start(org.agentworkspace.server.TestServer.config(dir.resolve("data")), TestServer.isolatedEnv(dir), limits), dir.resolve("data"))) {
            String admin = s.registerAdmin();
            Files.createDirectories(dir.resolve("proj"));
            String project = s.quickStart(admin, dir.resolve("proj"));
            String adminId = String.valueOf(s.server.engine().auth().accounts().list().getFirst().id());
            String origin = s.origin();
            // reads one message (demand 1: the ready frame), then never asks for more
            java.util.concurrent.CompletableFuture<String> first = new java.util.concurrent.CompletableFuture<>();
            WebSocket ws = HttpClient.newHttpClient().newWebSocketBuilder()
                    .header("Cookie", "token=" + admin).header("Origin", origin)
                    .buildAsync(URI.create("ws://127.0.0.1:" + s.server.port() + "/shell"), new WebSocket.Listener() {
                        @Override
                        public CompletionStage<?> onText(WebSocket w, CharSequence data, boolean last) {
                            first.complete(data.toString());
                            return null;
                        }
                    }).get(10, TimeUnit.SECONDS);
            ws.sendText("{\"type\":\"init\",\"projectName\":\"" + project + "\",\"cols\":80,\"rows\":24}", true)
                    .get(5, TimeUnit.SECONDS);
            // the heartbeat is long here: a client that does not read does not answer pings either, and on a loaded
            // machine a 1 s heartbeat cut it for silence (after 3 s) before the flood had started
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (s.server.shells().running(adminId) == 0 || s.server.shellEndpoint().connections(adminId) == 0) {
                assertTrue(System.nanoTime() < deadline, "no terminal");
                Thread.sleep(5);
            }
            ws.sendText("{\"type\":\"input\",\"data\":\"head -c 40000000 /dev/zero | tr '\\\\0' x; echo\\n\"}", true)
                    .get(5, TimeUnit.SECONDS);
            // generous: 40 MB through a terminal takes a while on a loaded machine
            deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
            while (s.server.shellEndpoint().connections(adminId) > 0) {
                assertTrue(System.nanoTime() < deadline, "the slow socket is still open");
                Thread.sleep(50);
            }
            assertEquals(1, s.server.shells().running(adminId), "the terminal outlives the cut socket");
            assertEquals(1, s.server.shellEndpoint().slowConsumerCuts(), "cut as a slow reader (not for silence)");
            ws.abort();
            String id = TestServer.JSON.readTree(first.get(5, TimeUnit.SECONDS)).path("sessionId").asText();
            ShellSession shell = s.server.shells().find(adminId, id).orElseThrow();
            deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
            while (shell.offset() < 40_000_000) {
                assertTrue(System.nanoTime() < deadline, "the output did not all arrive: " + shell.offset());
                Thread.sleep(50);
            }
            ShellSocketTest.Client c = new ShellSocketTest.Client();
            c.ws = HttpClient.newHttpClient().newWebSocketBuilder().header("Cookie", "token=" + admin)
                    .header("Origin", origin).buildAsync(URI.create("ws://127.0.0.1:" + s.server.port() + "/shell"), c)
                    .get(10, TimeUnit.SECONDS);
            c.send(Map.of("type", "init", "sessionId", id, "lastOffset", 0, "cols", 80, "rows", 24));
            c.next("ready");
            assertTrue(c.next("replay-start").path("truncated").asBoolean(), "older output is gone from the ring");
            c.send(Map.of("type", "close"));
            assertEquals(1000, c.closed.get(10, TimeUnit.SECONDS));
            assertEquals(0, s.server.shells().running(adminId));
        }
    }
}
