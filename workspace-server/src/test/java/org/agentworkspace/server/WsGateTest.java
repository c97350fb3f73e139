package org.agentworkspace.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpResponse;
import java.net.http.WebSocket;
import java.net.http.WebSocketHandshakeException;
import java.nio.file.Files;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import io.helidon.http.Headers;
import io.helidon.http.HttpPrologue;
import io.helidon.webserver.WebServer;
import io.helidon.webserver.http.HttpRouting;
import io.helidon.webserver.websocket.WsRouting;
import io.helidon.websocket.WsListener;
import io.helidon.websocket.WsSession;
import io.helidon.websocket.WsUpgradeException;

import org.agentworkspace.api.ApiKeyInfo;
import org.agentworkspace.api.Principal;
import org.agentworkspace.api.Principal.Kind;
import org.agentworkspace.api.Scope;
import org.agentworkspace.api.User;
import org.agentworkspace.core.EngineConfig;
import org.agentworkspace.core.WorkspaceEngine;
import org.agentworkspace.server.http.Access;
import org.agentworkspace.server.http.ApiService;
import org.agentworkspace.server.http.RouteTable;
import org.agentworkspace.server.http.WsGate;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * WebSocket upgrades through the gate, with the JDK's WebSocket client over a real socket: tickets once, the cookie
 * only with our Origin, a foreign Origin refused before the 101 even with a valid credential, and no reusable
 * credential in the URL. The endpoint is a test one; the live-channel endpoints use the same gate.
 */
class WsGateTest {
    static WorkspaceEngine engine;
    static WebServer web;
    static String session;
    static String key;
    static User admin;
    static final HttpClient HTTP = HttpClient.newHttpClient();
    static final Access ACCESS = Access.authenticated().stream();

    /** Greets the admitted user by name, then echoes. */
    static final class Greeter implements WsListener {
        private final WsGate gate;
        private Principal principal;

        Greeter(WsGate gate) {
            this.gate = gate;
        }

        @Override
        public Optional<Headers> onHttpUpgrade(HttpPrologue prologue, Headers headers) throws WsUpgradeException {
            principal = gate.admit(ACCESS, prologue, headers);
            return Optional.empty();
        }

        @Override
        public void onOpen(WsSession session) {
            session.send("hello " + principal.user().username() + " via " + principal.kind(), true);
        }
    }

    static final class Fallback extends ApiService {
        private final WsGate gate;

        Fallback(WorkspaceServer.Context ctx, WsGate gate) {
            super("test-ws", ctx.guard(), new RouteTable());
            this.gate = gate;
        }

        @Override
        protected void declare(Routes r) {
            r.get("/test/ws", ACCESS, gate.fallback());
        }
    }

    @BeforeAll
    static void start() throws Exception {
        engine = WorkspaceEngine.open(EngineConfig.create(Files.createTempDirectory("aw-ws-")));
        ServerConfig config = org.agentworkspace.server.TestServer.config(engine.config().dataDir());
        WorkspaceServer.Context ctx = WorkspaceServer.Context.create(engine, config, Map.of());
        WsGate gate = new WsGate(ctx.guard());
        HttpRouting.Builder routing = HttpRouting.builder();
        routing.register(new Fallback(ctx, gate));
        WorkspaceServer.routing(routing, ctx);
        web = WebServer.builder().host("127.0.0.1").port(0).routing(routing)
                .addRouting(WsRouting.builder().endpoint("/test/ws", () -> new Greeter(gate)))
                .build().start();
        admin = engine.auth().accounts().registerFirstUser("admin", "admin-password");
        session = ctx.tokens().issue(admin);
        ApiKeyInfo k = engine.auth().apiKeys().create(admin.id(), "ws", java.util.EnumSet.of(Scope.TASKS_READ));
        key = k.value();
    }

    @AfterAll
    static void stop() {
        web.stop();
        engine.close();
    }

    static String ticket() {
        return engine.auth().tickets().issue(new Principal(admin, Kind.SESSION, null, Scope.all())).value();
    }

    /** Connects and returns the first text frame, or throws the handshake failure. */
    static String connect(String query, String... headers) throws Exception {
        CompletableFuture<String> first = new CompletableFuture<>();
        WebSocket.Builder b = HTTP.newWebSocketBuilder().connectTimeout(Duration.ofSeconds(5));
        for (int i = 0; i + 1 < headers.length; i += 2) {
            b.header(headers[i], headers[i + 1]);
        }
        WebSocket ws = b.buildAsync(URI.create("ws://127.0.0.1:" + web.port() + "/test/ws" + query),
                new WebSocket.Listener() {
                    @Override
                    public CompletionStage<?> onText(WebSocket w, CharSequence data, boolean last) {
                        first.complete(data.toString());
                        return null;
                    }
                }).get(10, TimeUnit.SECONDS);
        try {
            return first.get(10, TimeUnit.SECONDS);
        } finally {
            ws.sendClose(WebSocket.NORMAL_CLOSURE, "bye");
        }
    }

    static int refusedWith(String query, String... headers) {
        ExecutionException e = assertThrows(ExecutionException.class, () -> connect(query, headers));
        assertTrue(e.getCause() instanceof WebSocketHandshakeException, String.valueOf(e.getCause()));
        HttpResponse<?> res = ((WebSocketHandshakeException) e.getCause()).getResponse();
        return res.statusCode();
    }

    String origin() {
        return "http://127.0.0.1:" + web.port();
    }

    @Test
    void aTicketAdmitsOnce() throws Exception {
        String t = ticket();
        assertEquals("hello admin via SESSION", connect("?streamTicket=" + t));
        assertEquals(401, refusedWith("?streamTicket=" + t));
    }

    @Test
    void aForeignOriginIsRefusedBeforeTheUpgradeEvenWithAValidCredential() {
        String t = ticket();
        assertEquals(403, refusedWith("?streamTicket=" + t, "Origin", "https://evil.example"));
        assertEquals(403, refusedWith("", "Cookie", "token=" + session, "Origin", "https://evil.example"));
        assertEquals(403, refusedWith("", "Cookie", "token=" + session, "Origin", "http://127.0.0.1.evil.example"));
        assertEquals(403, refusedWith("", "Cookie", "token=" + session, "Origin", "null"));
    }

    @Test
    void theCookieNeedsOurOrigin() throws Exception {
        assertEquals(403, refusedWith("", "Cookie", "token=" + session));
        assertEquals("hello admin via SESSION", connect("", "Cookie", "token=" + session, "Origin", origin()));
    }

    @Test
    void noCredentialOrACredentialInTheUrlIsRefused() {
        assertEquals(401, refusedWith(""));
        assertEquals(401, refusedWith("?apiKey=" + key));
        assertEquals(401, refusedWith("?token=" + session));
    }

    @Test
    void nonBrowserClientsMayUseAHeader() throws Exception {
        assertEquals("hello admin via API_KEY", connect("", "X-API-Key", key));
    }

    @Test
    void aPlainGetOnTheWebSocketPathSaysUpgradeRequired() throws Exception {
        HttpResponse<String> res = HTTP.send(java.net.http.HttpRequest.newBuilder(
                        URI.create("http://127.0.0.1:" + web.port() + "/test/ws")).header("X-API-Key", key).build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(426, res.statusCode(), res.body());
        assertTrue(res.body().contains("UPGRADE_REQUIRED"));
    }

}
