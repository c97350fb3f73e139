package org.agentworkspace.server.projects;

import static org.agentworkspace.server.TestServer.bearer;
import static org.agentworkspace.server.TestServer.expect;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;

import org.agentworkspace.server.ServerConfig;
import org.agentworkspace.server.TestServer;
import org.agentworkspace.server.WorkspaceServer;
import org.junit.jupiter.api.Test;

/** Projects over HTTP: quick-start, list, rename, delete, refusals, and names that survive a restart. */
class ProjectsRoutesTest {

    @Test
    void quickStartListRenameDelete() throws IOException {
        Path work = Files.createTempDirectory("aw-projects-").toRealPath();
        try (TestServer s = TestServer.start()) {
            String admin = s.registerAdmin();
            String readOnly = s.createKey(admin, "read", List.of("projects:read"))[1];
            assertEquals("[]", expect(s.get("/api/projects", bearer(admin)), 200, null).toString());

            Path folder = work.resolve("new/My Project");
            JsonNode p = expect(s.post("/api/projects/quick-start", Map.of("path", folder.toString(), "create", true),
                    bearer(admin)), 200, null);
            assertTrue(p.path("created").asBoolean(), p.toString());
            ((com.fasterxml.jackson.databind.node.ObjectNode) p).remove("created");
            assertTrue(Files.isDirectory(folder), "quick-start creates the folder");
            String name = p.path("name").asText();
            assertTrue(name.matches("my-project-[0-9a-f]{8}"), name);
            assertEquals("My Project", p.path("displayName").asText());
            assertEquals(folder.toString(), p.path("path").asText());
            assertEquals(folder.toString(), p.path("fullPath").asText());
            assertEquals("[]", p.path("sessions").toString());
            JsonNode again = expect(s.post("/api/projects/quick-start", Map.of("path", folder + "/"), bearer(admin)),
                    200, null);
            assertFalse(again.path("created").asBoolean(true), again.toString());
            ((com.fasterxml.jackson.databind.node.ObjectNode) again).remove("created");
            assertEquals(p, again, "registering again returns the same project");
            JsonNode list = expect(s.get("/api/projects", "X-API-Key", readOnly), 200, null);
            assertEquals(1, list.size());
            assertEquals(p, list.get(0));
            expect(s.post("/api/projects/quick-start", Map.of("path", work.resolve("x").toString()), "X-API-Key",
                    readOnly), 403, "INSUFFICIENT_SCOPE");

            JsonNode renamed = expect(s.put("/api/projects/" + name + "/rename", Map.of("displayName", "Shiny"),
                    bearer(admin)), 200, null);
            assertEquals("Shiny", renamed.path("project").path("displayName").asText());
            assertEquals(name, renamed.path("project").path("name").asText(), "the name never changes");
            assertEquals("Shiny", expect(s.get("/api/projects", bearer(admin)), 200, null).get(0)
                    .path("displayName").asText());
            expect(s.put("/api/projects/" + name + "/rename", Map.of(), bearer(admin)), 400, "VALIDATION_FAILED");
            expect(s.put("/api/projects/unknown-00000000/rename", Map.of("displayName", "x"), bearer(admin)), 404,
                    "PROJECT_NOT_FOUND");

            Files.writeString(folder.resolve("keep.txt"), "kept");
            expect(s.delete("/api/projects/" + name, null, bearer(admin)), 200, null);
            assertEquals("[]", expect(s.get("/api/projects", bearer(admin)), 200, null).toString());
            assertEquals("kept", Files.readString(folder.resolve("keep.txt")), "files are never deleted");
            expect(s.delete("/api/projects/" + name, null, bearer(admin)), 404, "PROJECT_NOT_FOUND");
            expect(s.get("/api/projects/" + name + "/files", bearer(admin)), 404, "PROJECT_NOT_FOUND");
        }
    }

    @Test
    void quickStartRefusesRelativePathsTheDataDirectoryAndFiles() throws IOException {
        try (TestServer s = TestServer.start()) {
            String admin = s.registerAdmin();
            Path file = Files.writeString(Files.createTempDirectory("aw-projects-").resolve("f.txt"), "x");
            for (String p : List.of("relative", "./x", "~/x", "/tmp/a\0b")) {
                expect(s.post("/api/projects/quick-start", Map.of("path", p), bearer(admin)), 400, "INVALID_PATH");
            }
            for (String p : List.of("/", s.dataDir.toString(), s.dataDir.resolve("sub").toString(),
                    s.dataDir.getParent().toString())) {
                expect(s.post("/api/projects/quick-start", Map.of("path", p), bearer(admin)), 403,
                        "PATH_NOT_ALLOWED");
            }
            assertFalse(Files.exists(s.dataDir.resolve("sub")));
            expect(s.post("/api/projects/quick-start", Map.of("path", file.toString()), bearer(admin)), 400,
                    "NOT_A_DIRECTORY");
            expect(s.post("/api/projects/quick-start", Map.of(), bearer(admin)), 400, "VALIDATION_FAILED");
            expect(s.post("/api/projects/quick-start", Map.of("path", 42), bearer(admin)), 400, "VALIDATION_FAILED");
            assertEquals("[]", expect(s.get("/api/projects", bearer(admin)), 200, null).toString());
        }
    }

    @Test
    void namesSurviveARestart() throws IOException {
        Path dir = Files.createTempDirectory("aw-restart-");
        Path folder = Files.createDirectories(dir.resolve("work/app"));
        ServerConfig config = org.agentworkspace.server.TestServer.config(dir.resolve("data"));
        String name;
        try (WorkspaceServer first = WorkspaceServer.start(config, Map.of())) {
            name = first.engine().projects().quickStart(folder.toString()).name();
        }
        try (WorkspaceServer second = WorkspaceServer.start(config, Map.of())) {
            assertEquals(name, second.engine().projects().list().getFirst().name());
            assertEquals(name, second.engine().projects().quickStart(folder.toString()).name());
        }
    }
}
