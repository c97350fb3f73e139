package org.agentworkspace.server;

import static org.agentworkspace.server.TestServer.expect;

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
                    ServerConfig.forDataDir(java.nio.file.Path.of("/nonexistent")), null, java.util.Map.of()), table);
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

    /** The document describes what the server serves: every operation but those marked not implemented, and those not. */
    @Test
    void everyDocumentedOperationIsServedUnlessMarkedNotImplemented() {
        try (TestServer s = TestServer.start()) {
            java.util.Set<String> served = new java.util.HashSet<>();
            for (var r : s.server.routes().routes()) {
                served.add(r.method() + " " + r.path());
            }
            List<String> missing = new java.util.ArrayList<>();
            List<String> markedButServed = new java.util.ArrayList<>();
            for (String op : DOC.operations()) {
                String[] mp = op.split(" ", 2);
                boolean notImplemented = DOC.root().path("paths").path(mp[1])
                        .path(mp[0].toLowerCase(java.util.Locale.ROOT)).path("x-implemented").asBoolean(true) == false;
                if (!notImplemented && !served.contains(op)) {
                    missing.add(op);
                }
                if (notImplemented && served.contains(op)) {
                    markedButServed.add(op);
                }
            }
            assertEquals(List.of(), missing, "documented but not served (mark them x-implemented: false)");
            assertEquals(List.of(), markedButServed, "served but marked x-implemented: false");
            expect(s.get("/api/no-such-family/items"), 404, "ROUTE_NOT_FOUND");
        }
    }

    @Test
    void theServersOwnRoutesAgreeWithTheDocument() {
        try (TestServer s = TestServer.start()) {
            assertEquals(List.of(), DOC.mismatches(s.server.routes()));
            assertTrue(s.server.routes().routes().size() >= 16, "routes: " + s.server.routes().routes().size());
        }
    }
}
