package org.agentworkspace.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import io.helidon.webserver.http.HttpRouting;

import org.agentworkspace.api.Scope;
import org.agentworkspace.server.http.Access;
import org.agentworkspace.server.http.ApiService;
import org.agentworkspace.server.http.OpenApiDocument;
import org.agentworkspace.server.http.RouteTable;
import org.junit.jupiter.api.Test;

/** The start-up checks: a route without a declaration, declared twice, or disagreeing with the document stops it. */
class RouteDeclarationTest {
    static final OpenApiDocument DOC = OpenApiDocument.load();

    /** A family whose routes are supplied by the test. */
    static final class Family extends ApiService {
        private final java.util.function.Consumer<Routes> routes;

        Family(RouteTable table, java.util.function.Consumer<Routes> routes) {
            super("test", new org.agentworkspace.server.http.Guard(null, null,
                    ServerConfig.forDataDir(java.nio.file.Path.of("/nonexistent")), null), table);
            this.routes = routes;
        }

        @Override
        protected void declare(Routes r) {
            routes.accept(r);
        }
    }

    static RouteTable declare(java.util.function.Consumer<ApiService.Routes> routes) {
        RouteTable table = new RouteTable();
        HttpRouting.builder().register(new Family(table, routes)).build();
        return table;
    }

    @Test
    void aRouteWithoutADeclarationCannotBeAdded() {
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> declare(r -> r.get("/api/auth/user", null, call -> call.ack())));
        assertTrue(e.getMessage().contains("no access declaration"), e.getMessage());
    }

    @Test
    void aRouteDeclaredTwiceIsRefused() {
        RouteTable t = declare(r -> r.get("/api/auth/user", Access.authenticated(), c -> c.ack())
                .get("/api/auth/user", Access.authenticated(), c -> c.ack()));
        assertThrows(IllegalStateException.class, t::verify);
    }

    @Test
    void undocumentedRoutesAndRulesThatDisagreeWithTheDocumentAreReported() {
        RouteTable t = declare(r -> r.get("/api/not-documented", Access.authenticated(), c -> c.ack())
                .get("/api/auth/user", Access.scope(Scope.TASKS_READ), c -> c.ack())
                .post("/api/settings/api-keys", Access.authenticated(), c -> c.ack())
                .get("/health", Access.authenticated(), c -> c.ack()));
        List<String> m = DOC.mismatches(t);
        assertEquals(4, m.size(), m.toString());
        assertTrue(m.get(0).contains("not in the OpenAPI document"), m.toString());
    }

    @Test
    void theServersOwnRoutesAgreeWithTheDocument() {
        try (TestServer s = TestServer.start()) {
            assertEquals(List.of(), DOC.mismatches(s.server.routes()));
            assertTrue(s.server.routes().routes().size() >= 16, "routes: " + s.server.routes().routes().size());
        }
    }
}
