package org.agentworkspace.server.chat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.WebSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.agentworkspace.api.Principal;
import org.agentworkspace.api.Scope;
import org.agentworkspace.api.User;
import org.agentworkspace.api.provider.ProviderCredentials;
import org.agentworkspace.core.agent.AgentSettings;
import org.agentworkspace.core.runs.RunInfo;
import org.agentworkspace.core.runs.RunQuery;
import org.agentworkspace.core.runs.RunStatus;
import org.agentworkspace.server.ServerConfig;
import org.agentworkspace.server.TestServer;
import org.agentworkspace.server.WorkspaceServer;
import org.agentworkspace.server.shell.ShellLimits;
import org.agentworkspace.testkit.fakecli.FakeClis;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A client that stops reading while it follows a run that floods its log: the socket is cut as a slow consumer and
 * released, and the run goes on to its end at its own pace, unaffected.
 */
class ChatSlowConsumerTest {
    @TempDir
    Path tmp;

    @Test
    void aClientThatStopsReadingIsCutAndTheRunIsNotStalled() throws Exception {
        Path bin = FakeClis.install(tmp.resolve("bin"));
        Path data = tmp.resolve("data");
        ServerConfig config = org.agentworkspace.server.TestServer.config(data)
                .withAgent(AgentSettings.defaults().withBinaries(Map.of("*", bin))
                        .withProviderEnv(Map.of("claude", Map.of("AW_FAKE_EVENTS", "100000")))
                        .withCredentials(id -> new ProviderCredentials("sk-aw-slow", null)));
        ChatLimits limits = ChatLimits.defaults().withQueue(64 * 1024, Duration.ofMillis(500))
                .withHeartbeat(Duration.ofSeconds(2)).withWriteTimeout(Duration.ofSeconds(1));
        try (TestServer s = TestServer.wrap(WorkspaceServer.start(config, Map.of(), ShellLimits.defaults(), limits),
                data)) {
            String admin = s.registerAdmin();
            String project = s.quickStart(admin, Files.createDirectories(tmp.resolve("proj")));
            User u = s.server.engine().auth().accounts().list().getFirst();
            String ticket = s.server.engine().auth().tickets().issue(new Principal(u, Principal.Kind.SESSION, null,
                    Scope.all())).value();
            AtomicInteger frames = new AtomicInteger();
            WebSocket ws = HttpClient.newHttpClient().newWebSocketBuilder()
                    .buildAsync(URI.create("ws://127.0.0.1:" + s.server.port() + "/ws?streamTicket=" + ticket),
                            new WebSocket.Listener() {
                                @Override
                                public CompletionStage<?> onText(WebSocket w, CharSequence d, boolean last) {
                                    frames.incrementAndGet();
                                    return null; // and never ask for more: the client stops reading
                                }
                            }).get(10, TimeUnit.SECONDS);
            ws.sendText(TestServer.JSON.writeValueAsString(Map.of("type", "turn", "provider", "claude",
                    "permissionMode", "bypassPermissions", "projectName", project, "message", "flood")), true)
                    .get(5, TimeUnit.SECONDS);

            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (s.server.chatEndpoint().slowConsumerCuts() == 0 || s.server.chatEndpoint().connections(u.id()) > 0) {
                assertTrue(System.nanoTime() < deadline, "not cut: cuts " + s.server.chatEndpoint().slowConsumerCuts()
                        + ", connections " + s.server.chatEndpoint().connections(u.id()));
                Thread.sleep(50);
            }
            List<RunInfo> list = s.server.engine().runs().list(RunQuery.newest());
            assertEquals(1, list.size());
            RunInfo done = s.server.engine().runs().awaitCompletion(list.getFirst().id(), Duration.ofSeconds(60))
                    .orElseThrow();
            assertEquals(RunStatus.SUCCEEDED, done.status(), "the run went on without its reader");
            assertTrue(s.server.engine().runs().lastSeq(done.id()) > 100_000, "every line stored");
            assertTrue(frames.get() <= 2, "the client read (almost) nothing: " + frames.get());
            ws.abort();
        }
    }
}
