package org.agentworkspace.server.retired;

import static org.agentworkspace.server.TestServer.bearer;
import static org.agentworkspace.server.TestServer.expect;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;

import org.agentworkspace.server.TestServer;
import org.junit.jupiter.api.Test;

/** The retired workflow family: still authenticated and scoped, then 410 FAMILY_RETIRED naming the replacement. */
class RetiredWorkflowsTest {
    @Test
    void everyRetiredRouteSaysWhereToGoInstead() {
        try (TestServer s = TestServer.start()) {
            String admin = s.registerAdmin();
            String[][] routes = {{"GET", "/api/orchestration/workflows"},
                    {"GET", "/api/orchestration/workflows/context"},
                    {"POST", "/api/orchestration/workflows/agent_team/preview"},
                    {"POST", "/api/orchestration/workflows/agent_team/runs"},
                    {"GET", "/api/orchestration/workflows/runs"},
                    {"GET", "/api/orchestration/workflows/runs/wr_1"},
                    {"GET", "/api/orchestration/workflows/runs/wr_1/events"},
                    {"POST", "/api/orchestration/workflows/runs/wr_1/cancel"}};
            String reader = s.createKey(admin, "old-ci", List.of("orchestration:read"))[1];
            for (String[] r : routes) {
                Object body = r[0].equals("POST") ? Map.of() : null;
                JsonNode gone = expect(s.send(r[0], r[1], body, bearer(admin)), 410, "FAMILY_RETIRED");
                assertTrue(gone.path("error").path("message").asText().contains("/api/"), gone.toString());
                expect(s.send(r[0], r[1], body), 401, "AUTH_REQUIRED");
                if (r[0].equals("GET")) {
                    expect(s.send(r[0], r[1], null, bearer(reader)), 410, "FAMILY_RETIRED");
                }
            }
            expect(s.send("POST", "/api/orchestration/workflows/runs/wr_1/cancel", Map.of(), bearer(reader)), 403,
                    "INSUFFICIENT_SCOPE");
        }
    }
}
