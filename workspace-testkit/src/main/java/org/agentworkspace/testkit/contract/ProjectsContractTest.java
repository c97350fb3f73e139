package org.agentworkspace.testkit.contract;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Projects: quick-start registers (and creates) a folder on the service's host, the list shows it, rename changes
 * only the display name, delete deregisters. Works on folders under {@code /tmp/aw-contract-<random>/} created by
 * the service itself, and deregisters every project it registered.
 */
@Tag("contract")
class ProjectsContractTest extends ProjectsFixture {
    private static final String PROJECTS = "/api/projects";


    private static JsonNode find(JsonNode list, String name) {
        for (JsonNode p : list) {
            if (name.equals(p.path("name").asText())) {
                return p;
            }
        }
        return null;
    }

    @Test
    void quickStartRegistersAFolderOnceAndListsIt(ContractClient client) {
        String folder = Names.serverTempFolder("Contract Project");
        JsonNode project = projects.quickStart(folder);
        String name = project.path("name").asText();
        assertTrue(project.path("created").asBoolean(), "the folder was missing and created on request: " + project);
        ((com.fasterxml.jackson.databind.node.ObjectNode) project).remove("created");

        assertTrue(name.matches("contract-project-[0-9a-f]{8,64}"), "name is the folder slug and a path hash: "
                + name);
        assertEquals("Contract Project", project.path("displayName").asText());
        assertTrue(project.path("path").asText().endsWith("/Contract Project"), project.toString());
        assertEquals(0, project.path("sessions").size());
        assertEquals(name, projects.quickStart(folder + "/").path("name").asText(), "the same folder, the same project");

        JsonNode listed = find(client.get(PROJECTS).as(session).send().expectStatus(200).json(), name);
        assertEquals(project, listed);
    }

    @Test
    void renameChangesOnlyTheDisplayName(ContractClient client) {
        JsonNode project = projects.quickStart(Names.serverTempFolder("rename-me"));
        String name = project.path("name").asText();

        JsonNode renamed = client.put(PROJECTS + "/" + name + "/rename").as(session)
                .json(ContractClient.body("displayName", "Renamed by the contract suite")).send().expectStatus(200)
                .json();
        assertEquals(name, renamed.path("project").path("name").asText());
        assertEquals("Renamed by the contract suite", renamed.path("project").path("displayName").asText());
        assertEquals("Renamed by the contract suite", find(client.get(PROJECTS).as(session).send().expectStatus(200)
                .json(), name).path("displayName").asText());
        assertEquals("rename-me", client.put(PROJECTS + "/" + name + "/rename").as(session)
                .json(ContractClient.body("displayName", "")).send().expectStatus(200).json()
                .path("project").path("displayName").asText(), "an empty display name restores the folder's name");
    }

    @Test
    void deleteDeregistersAndUnknownNamesAreNotFound(ContractClient client) {
        String name = projects.quickStart(Names.serverTempFolder("delete-me")).path("name").asText();

        client.delete(PROJECTS + "/" + name).as(session).send().expectStatus(200);
        assertEquals(null, find(client.get(PROJECTS).as(session).send().expectStatus(200).json(), name));
        client.delete(PROJECTS + "/" + name).as(session).send().expectError(404, "PROJECT_NOT_FOUND");
        client.put(PROJECTS + "/" + name + "/rename").as(session).json(ContractClient.body("displayName", "x"))
                .send().expectError(404, "PROJECT_NOT_FOUND");
        client.get(PROJECTS + "/" + name + "/files").as(session).send().expectError(404, "PROJECT_NOT_FOUND");
    }

    @Test
    void quickStartRefusesRelativePathsAndTheFilesystemRoot(ContractClient client, ContractHost host) {
        projects.quickStart(Names.serverTempFolder("probe"));
        client.post(PROJECTS + "/quick-start").as(session).json(ContractClient.body("path", "relative/folder"))
                .send().expectError(400, "INVALID_PATH");
        client.post(PROJECTS + "/quick-start").as(session).json(ContractClient.body("path", "/tmp/a\u0000b"))
                .send().expectError(400, "INVALID_PATH");
        client.post(PROJECTS + "/quick-start").as(session).json(ContractClient.body("path", "/"))
                .send().expectError(403, "PATH_NOT_ALLOWED");
        client.post(PROJECTS + "/quick-start").as(session).json(ContractClient.body())
                .send().expectError(400, "VALIDATION_FAILED");
    }

    @Test
    void keysNeedTheProjectScopes(ContractClient client) {
        projects.quickStart(Names.serverTempFolder("scopes"));
        JsonNode key = client.post("/api/settings/api-keys").as(session)
                .json(ContractClient.body("name", Names.unique("projects-read"), "scopes",
                        java.util.List.of("projects:read"))).send().expectStatus(201).json();
        try {
            Credential reader = Credential.apiKeyHeader(key.path("api_key").asText());
            assertFalse(client.get(PROJECTS).as(reader).send().expectStatus(200).json().isEmpty());
            client.post(PROJECTS + "/quick-start").as(reader)
                    .json(ContractClient.body("path", Names.serverTempFolder("never")))
                    .send().expectError(403, "INSUFFICIENT_SCOPE");
        } finally {
            client.delete("/api/settings/api-keys/" + key.path("id").asLong()).as(session).send().expectStatus(200);
        }
    }
}
