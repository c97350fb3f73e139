package org.agentworkspace.testkit.contract;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;

/** Test projects of the contract suite: registered under unique folders, deregistered afterwards. */
final class Projects {
    private final ContractClient client;
    private final ContractHost host;
    private final ContractClient.Session session;
    private final List<String> created = new ArrayList<>();

    Projects(ContractClient client, ContractHost host, ContractClient.Session session) {
        this.client = client;
        this.host = host;
        this.session = session;
    }

    /**
     * Registers {@code path} with quick-start and returns the project. When the service does not serve the projects
     * family at all (404 {@code ROUTE_NOT_FOUND}), a remote target is skipped (an older deployment); the local,
     * embedded target fails.
     */
    JsonNode quickStart(String path) {
        ContractResponse res = Served.require(client.post("/api/projects/quick-start").as(session)
                .json(ContractClient.body("path", path, "create", true)).send(), host, "projects");
        JsonNode project = res.expectStatus(200).json();
        created.add(project.path("name").asText());
        return project;
    }

    /** Deregisters every project this helper registered (already-deleted ones are fine). */
    void deregisterAll() {
        for (String name : created) {
            client.delete("/api/projects/" + name).as(session).send().expectStatus(200, 404);
        }
        created.clear();
    }
}
