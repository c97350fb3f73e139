package org.agentworkspace.testkit.contract;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Duration;
import java.time.Instant;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** {@code GET /health} and {@code GET /api/openapi.json}: public, and shaped as documented. */
@Tag("contract")
@ExtendWith(ContractExtension.class)
class HealthContractTest {

    @Test
    void healthIsPublicAndReportsVersionAndInstallMode(ContractClient client) {
        JsonNode health = client.get("/health").send().expectStatus(200).json();

        assertEquals("ok", health.path("status").asText());
        Instant timestamp = Instant.parse(health.path("timestamp").asText());
        assertTrue(Duration.between(timestamp, Instant.now()).abs().compareTo(Duration.ofDays(1)) < 0,
                "timestamp should be the server's current time, was " + timestamp);
    }

    @Test
    void servesTheSameOpenApiDocumentAsTheSuite(ContractClient client, OpenApiContract contract) {
        JsonNode served = client.get("/api/openapi.json").send().expectStatus(200).json();
        JsonNode bundled = contract.document();

        assertEquals(bundled.path("openapi").asText(), served.path("openapi").asText(), "openapi version");
        assertEquals(bundled.path("info").path("version").asText(), served.path("info").path("version").asText(),
                "info.version");
        Set<String> servedPaths = new TreeSet<>();
        served.path("paths").fieldNames().forEachRemaining(servedPaths::add);
        Set<String> missing = new TreeSet<>(contract.pathTemplates());
        missing.removeAll(servedPaths);
        Set<String> extra = new TreeSet<>(servedPaths);
        extra.removeAll(contract.pathTemplates());
        if (!missing.isEmpty() || !extra.isEmpty()) {
            fail("served document's paths differ from the suite's: missing " + missing + ", extra " + extra);
        }
        for (String path : servedPaths) {
            if (!served.path("paths").path(path).equals(bundled.path("paths").path(path))) {
                fail("served document differs from the suite's at path " + path);
            }
        }
    }
}
