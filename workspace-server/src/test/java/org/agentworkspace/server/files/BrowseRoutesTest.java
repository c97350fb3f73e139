package org.agentworkspace.server.files;

import static org.agentworkspace.server.TestServer.bearer;
import static org.agentworkspace.server.TestServer.expect;
import static org.agentworkspace.server.TestServer.q;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;

import org.agentworkspace.server.TestServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The host folder picker: administrators' sessions only, inside the configured roots only, folders only. */
class BrowseRoutesTest {
    static Path tmp;
    static Path root1;
    static Path root2;
    static Path outside;
    static TestServer s;
    static String admin;
    static String bob;
    static String adminKey;

    @BeforeAll
    static void start() throws IOException {
        tmp = Files.createTempDirectory("aw-browse-").toRealPath();
        root1 = Files.createDirectories(tmp.resolve("root1"));
        root2 = Files.createDirectories(tmp.resolve("root2"));
        outside = Files.createDirectories(tmp.resolve("outside/secret-folder"));
        Files.createDirectories(root1.resolve("alpha/deeper"));
        Files.createDirectories(root1.resolve("beta"));
        Files.createDirectories(root1.resolve(".hidden"));
        Files.writeString(root1.resolve("file.txt"), "files are never listed");
        Files.createSymbolicLink(root1.resolve("link-out"), outside);
        Files.createSymbolicLink(root1.resolve("link-in"), root1.resolve("beta"));
        Files.createDirectories(tmp.resolve("root1-evil"));
        s = TestServer.start(c -> c.withBrowseRoots(List.of(root1, root2)));
        admin = s.registerAdmin();
        adminKey = s.createKey(admin, "all scopes", List.of("projects:read", "projects:write", "tasks:read",
                "tasks:write", "providers:read", "system:update", "orchestration:read", "orchestration:write"))[1];
        expect(s.post("/api/users", Map.of("username", "bob", "password", "bob-password-1"), bearer(admin)), 201,
                null);
        bob = s.login("bob", "bob-password-1");
    }

    @AfterAll
    static void stop() {
        s.close();
    }

    static JsonNode browse(String path) {
        return expect(s.get("/api/browse-filesystem" + (path == null ? "" : "?path=" + q(path)), bearer(admin)), 200,
                null);
    }

    @Test
    void listsFoldersInsideTheRoots() {
        JsonNode top = browse(root1.toString());
        assertEquals(root1.toString(), top.path("path").asText());
        assertTrue(top.path("parent").isNull(), "the roots' parent is not browsable");
        assertEquals(List.of("alpha", "beta", "link-in"), names(top));
        top.path("entries").forEach(e -> assertEquals("directory", e.path("type").asText()));
        assertFalse(top.toString().contains("file.txt") || top.toString().contains("secret"));

        JsonNode alpha = browse(root1.resolve("alpha").toString());
        assertEquals(root1.toString(), alpha.path("parent").asText());
        assertEquals(List.of("deeper"), names(alpha));
        assertEquals(root1.resolve("beta").toString(), browse(root1 + "/link-in").path("path").asText(),
                "a link inside the roots is shown by its real path");
        assertEquals(root2.toString(), browse(root2 + "/.").path("path").asText());
        assertEquals(root1.toString(), browse(null).path("path").asText(),
                "without a path: the first root, since the home folder is not in the roots");
    }

    @Test
    void everythingOutsideTheRootsIsRefused() {
        for (String p : List.of("/", "/etc", "/proc/self", tmp.toString(), outside.toString(),
                root1 + "/link-out", root1 + "/link-out/..", root1 + "/.hidden", root1 + "/../outside",
                tmp.resolve("root1-evil").toString(), "~", "~/.ssh")) {
            expect(s.get("/api/browse-filesystem?path=" + q(p), bearer(admin)), 403, "PATH_NOT_ALLOWED");
        }
        expect(s.get("/api/browse-filesystem?path=" + q(root1 + "/missing"), bearer(admin)), 404, "FILE_NOT_FOUND");
        expect(s.get("/api/browse-filesystem?path=" + q(root1 + "/file.txt"), bearer(admin)), 400, "NOT_A_DIRECTORY");
        for (String p : List.of("relative/path", "~root", root1 + "/a\0b")) {
            expect(s.get("/api/browse-filesystem?path=" + q(p), bearer(admin)), 400, "INVALID_PATH");
        }
    }

    @Test
    void onlyAdministratorSessions() {
        String path = "/api/browse-filesystem?path=" + q(root1.toString());
        expect(s.get(path, bearer(bob)), 403, "ADMIN_REQUIRED");
        expect(s.get(path, "X-API-Key", adminKey), 403, "SESSION_REQUIRED");
        expect(s.get(path, "Authorization", "Bearer " + adminKey), 403, "SESSION_REQUIRED");
        expect(s.get(path), 401, "AUTH_REQUIRED");
        expect(s.get(path, "Cookie", "token=" + admin), 200, null);
    }

    /**
     * {@code ~} and the listing without a path are the service's HOME (its environment's, the one the CLIs and their
     * histories use; issue 17: it was the JVM's user.home, which differs when HOME is changed).
     */
    @Test
    void theDefaultRootIsTheHomeFolder() throws IOException {
        Path home = Files.createDirectories(tmp.resolve("service-home")).toRealPath();
        try (TestServer d = TestServer.start(c -> c.withBrowseRoots(List.of(home)),
                java.util.Map.of("HOME", home.toString()))) {
            String token = d.registerAdmin();
            JsonNode listing = expect(d.get("/api/browse-filesystem", bearer(token)), 200, null);
            assertEquals(home.toString(), listing.path("path").asText());
            assertEquals(listing, expect(d.get("/api/browse-filesystem?path=~", bearer(token)), 200, null));
            expect(d.get("/api/browse-filesystem?path=" + q(tmp.toString()), bearer(token)), 403, "PATH_NOT_ALLOWED");
        }
    }

    private static List<String> names(JsonNode listing) {
        List<String> out = new ArrayList<>();
        listing.path("entries").forEach(e -> out.add(e.path("name").asText()));
        return out;
    }
}
