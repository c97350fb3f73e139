package org.agentworkspace.server;

import static org.agentworkspace.server.TestServer.expect;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.util.Map;

import io.helidon.webserver.WebServer;
import io.helidon.webserver.http.HttpRouting;

import org.agentworkspace.api.ApiKeyInfo;
import org.agentworkspace.api.Scope;
import org.agentworkspace.api.User;
import org.agentworkspace.core.WorkspaceEngine;
import org.agentworkspace.server.http.Access;
import org.agentworkspace.server.http.ApiService;
import org.agentworkspace.server.http.RouteTable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The guard and error mapping on routes the foundation does not have yet: a scoped route, and a handler that fails
 * unexpectedly. Uses the same static routing method as the server, with one extra test service in front.
 */
class ScopeMechanismTest {
    static WorkspaceEngine engine;
    static WebServer web;
    static String readKey;
    static String writeKey;
    static final HttpClient HTTP = HttpClient.newHttpClient();

    /** A family with a scoped route and a failing route. */
    static final class TestService extends ApiService {
        TestService(WorkspaceServer.Context ctx, RouteTable table) {
            super("test", ctx.guard(), table);
        }

        @Override
        protected void declare(Routes r) {
            r.get("/test/scoped", Access.scope(Scope.TASKS_WRITE), call -> call.ack())
                    .post("/test/boom", Access.PUBLIC, call -> {
                        throw new IllegalStateException("secret internal detail at /etc/shadow");
                    });
        }
    }

    @BeforeAll
    static void start() throws Exception {
        engine = WorkspaceEngine.open(org.agentworkspace.core.EngineConfig.create(
                Files.createTempDirectory("aw-scope-")));
        ServerConfig config = org.agentworkspace.server.TestServer.config(engine.config().dataDir());
        WorkspaceServer.Context ctx = WorkspaceServer.Context.create(engine, config, Map.of());
        HttpRouting.Builder routing = HttpRouting.builder();
        routing.register(new TestService(ctx, new RouteTable()));
        WorkspaceServer.routing(routing, ctx);
        web = WebServer.builder().host("127.0.0.1").port(0).routing(routing).build().start();
        User u = engine.auth().accounts().registerFirstUser("admin", "admin-password");
        ApiKeyInfo r = engine.auth().apiKeys().create(u.id(), "read", java.util.EnumSet.of(Scope.TASKS_READ));
        ApiKeyInfo w = engine.auth().apiKeys().create(u.id(), "write", java.util.EnumSet.of(Scope.TASKS_WRITE));
        readKey = r.value();
        writeKey = w.value();
    }

    @AfterAll
    static void stop() {
        web.stop();
        engine.close();
    }

    static HttpResponse<String> send(String method, String path, String... headers) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + web.port() + path))
                .method(method, HttpRequest.BodyPublishers.noBody());
        for (int i = 0; i + 1 < headers.length; i += 2) {
            b.header(headers[i], headers[i + 1]);
        }
        return HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void aKeyWithoutTheRouteScopeGets403AndOneWithItGetsThrough() throws Exception {
        expect(send("GET", "/test/scoped", "X-API-Key", readKey), 403, "INSUFFICIENT_SCOPE");
        expect(send("GET", "/test/scoped", "X-API-Key", writeKey), 200, null);
        expect(send("GET", "/test/scoped"), 401, "AUTH_REQUIRED");
    }

    @Test
    void anUnexpectedFailureIsA500WithoutTheExceptionText() throws Exception {
        HttpResponse<String> res = send("POST", "/test/boom");
        expect(res, 500, "INTERNAL_ERROR");
        assertFalse(res.body().contains("secret"), res.body());
        assertFalse(res.body().contains("shadow"), res.body());
        assertFalse(res.body().contains("IllegalStateException"), res.body());
    }

}
