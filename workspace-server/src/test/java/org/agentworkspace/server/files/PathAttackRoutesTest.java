package org.agentworkspace.server.files;

import org.agentworkspace.testkit.fs.Fingerprints;
import static org.agentworkspace.server.TestServer.bearer;
import static org.agentworkspace.server.TestServer.expect;
import static org.agentworkspace.server.TestServer.q;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;

import com.fasterxml.jackson.databind.JsonNode;

import org.agentworkspace.server.TestServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Path attacks against every file route, through the running server (security.md FS-1 to FS-13): traversal,
 * absolute paths, percent-encoding in the query and in JSON, NUL, backslashes, a sibling folder whose name starts
 * with the project's, symbolic links to a file and to a folder outside, writing through them, renames with either
 * end outside. Every one is refused with a 4xx code, and nothing outside the project changes: the canary file is
 * hashed, and every file and link beside the project is fingerprinted, before and after each test.
 */
class PathAttackRoutesTest {
    static TestServer s;
    static String admin;
    static String readKey;
    Path base;
    Path root;
    Path outside;
    Path canary;
    String canaryHash;
    String project;
    Map<String, String> outsideBefore;

    static final Set<String> REFUSAL_CODES = Set.of("PATH_OUTSIDE_PROJECT", "INVALID_PATH", "FILE_NOT_FOUND",
            "NOT_A_DIRECTORY", "NOT_A_FILE", "FILE_EXISTS", "VALIDATION_FAILED");

    /** Escapes that must be refused by every route. */
    static final List<String> ESCAPES = List.of(
            // FS-1 traversal
            "../outside/canary.txt", "..", "../", "./../x", "a/../../x", "a/b/../../../x", "dir/../../outside/x",
            // FS-2 absolute (the canary's absolute path is added per test)
            "//etc/passwd", "/proc/self/environ", "/",
            // FS-4 NUL
            "a.txt\0.png", "a\0b", "dir/\0",
            // FS-5 backslash
            "..\\..\\outside\\canary.txt", "C:\\Windows\\win.ini", "\\\\srv\\share", "dir\\inside.txt",
            // FS-6 a sibling whose name starts with the project's name
            "../proj-evil/secret", "../proj-evil", "evillnk/secret",
            // FS-7, FS-10 symbolic links leaving the project (relative and absolute), writing through them
            "lnk/canary.txt", "abslnk/canary.txt", "lnk/sub/inner.txt", "lnk/new.txt", "abslnk/new-dir/x",
            // FS-8 link plus trailing slash or dot
            "lnk/./canary.txt",
            // FS-9 loops and long chains
            "loop/x", "chain39/canary.txt",
            // FS-18 long
            "a/".repeat(3000) + "x", "x".repeat(300));

    /** Names that are links themselves: reading or writing through them is refused; delete and rename move the link. */
    static final List<String> LINK_ENTRIES = List.of("filelnk", "lnk/", "lnk/.", "loop", "chain39", "broken");

    @BeforeAll
    static void start() {
        s = TestServer.start();
        admin = s.registerAdmin();
        readKey = s.createKey(admin, "files", List.of("projects:read", "projects:write"))[1];
    }

    @AfterAll
    static void stop() {
        s.close();
    }

    @BeforeEach
    void fixture() throws Exception {
        base = Files.createTempDirectory("aw-attack-").toRealPath();
        root = Files.createDirectories(base.resolve("proj"));
        outside = Files.createDirectories(base.resolve("outside"));
        canary = outside.resolve("canary.txt");
        Files.writeString(canary, "CANARY-CONTENT: must never change or be shown\n");
        canaryHash = sha256(canary);
        Files.createDirectories(outside.resolve("sub"));
        Files.writeString(outside.resolve("sub/inner.txt"), "CANARY-CONTENT inner\n");
        Path evil = Files.createDirectories(base.resolve("proj-evil"));
        Files.writeString(evil.resolve("secret"), "CANARY-CONTENT sibling\n");
        Files.writeString(root.resolve("ok.txt"), "inside\n");
        Files.createDirectories(root.resolve("dir"));
        Files.writeString(root.resolve("dir/inside.txt"), "inside\n");
        Files.createSymbolicLink(root.resolve("lnk"), Path.of("../outside"));
        Files.createSymbolicLink(root.resolve("abslnk"), outside);
        Files.createSymbolicLink(root.resolve("filelnk"), canary);
        Files.createSymbolicLink(root.resolve("loop"), Path.of("loop"));
        Files.createSymbolicLink(root.resolve("broken"), Path.of("../outside/not-there.txt"));
        Files.createSymbolicLink(root.resolve("evillnk"), Path.of("../proj-evil"));
        Path previous = root.resolve("lnk");
        for (int i = 0; i < 40; i++) {
            Path next = root.resolve("chain" + i);
            Files.createSymbolicLink(next, previous.getFileName());
            previous = next;
        }
        project = s.quickStart(admin, root);
        outsideBefore = fingerprint();
    }

    @AfterEach
    void nothingOutsideChanged() throws IOException {
        assertEquals(canaryHash, sha256(canary), "the canary file changed");
        assertEquals(outsideBefore, fingerprint(), "something beside the project changed");
        expect(s.send("DELETE", "/api/projects/" + project, null, bearer(admin)), 200, null);
        try (Stream<Path> all = Files.walk(base)) {
            for (Path p : all.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }

    private List<String> escapes() {
        List<String> all = new ArrayList<>(ESCAPES);
        all.add(canary.toString());
        all.add(outside.toString());
        return all;
    }

    private String base(String route) {
        return "/api/projects/" + project + route;
    }

    /** The request must be refused with a 4xx envelope that shows neither host paths nor outside content. */
    private void refused(String what, HttpResponse<String> res) {
        assertTrue(res.statusCode() >= 400 && res.statusCode() < 500, what + " -> " + res.statusCode() + " "
                + res.body());
        assertFalse(res.body().contains("CANARY-CONTENT"), what + " showed outside content");
        assertFalse(res.body().contains(base.toString()), what + " leaked a host path: " + res.body());
        String code = TestServer.json(res).path("error").path("code").asText();
        assertTrue(REFUSAL_CODES.contains(code), what + " -> " + code);
    }

    @Test
    void listAndReadRefuseEveryEscapeInTheQuery() {
        List<String> payloads = escapes();
        payloads.addAll(List.of("/etc/passwd", "filelnk", "lnk/", "lnk/.", "loop", "chain39", "broken",
                "lnk", "abslnk", "evillnk"));
        for (String p : payloads) {
            refused("list " + p, s.get(base("/files?path=" + q(p)), bearer(admin)));
            refused("read " + p, s.get(base("/file?path=" + q(p)), "X-API-Key", readKey));
        }
    }

    @Test
    void rawPercentEncodedQueriesAreDecodedOnceAndNeverTraverse() {
        for (String raw : List.of("..%2F..%2Fetc%2Fpasswd", "..%2Foutside%2Fcanary.txt", "%2e%2e%2foutside%2fcanary.txt",
                "%2E%2E/outside/canary.txt", "%252e%252e%252foutside%252fcanary.txt", "..%252f..%252fetc%252fpasswd",
                "..%5c..%5coutside%5ccanary.txt", "ok.txt%00.png", "%00", "lnk%2fcanary.txt", "lnk%2F",
                "%c0%ae%c0%ae/outside/canary.txt", "%2Fetc%2Fpasswd", "proj%2F..%2F..%2Foutside%2Fcanary.txt",
                "..%2F" + q("proj-evil") + "%2Fsecret")) {
            for (String route : List.of("/files?path=", "/file?path=")) {
                HttpResponse<String> res = s.get(base(route + raw), bearer(admin));
                assertTrue(res.statusCode() >= 400 && res.statusCode() < 500, route + raw + " -> " + res.statusCode());
                assertFalse(res.body().contains("CANARY-CONTENT"), route + raw);
                assertFalse(res.body().contains("root:"), route + raw);
            }
        }
        // The project name is only ever looked up, never used as a path.
        for (String name : List.of("..", "..%2F..%2Foutside", "%2e%2e", project + "%2F..")) {
            HttpResponse<String> res = s.get("/api/projects/" + name + "/file?path=canary.txt", bearer(admin));
            assertTrue(res.statusCode() == 404 || res.statusCode() == 400, name + " -> " + res.body());
            assertFalse(res.body().contains("CANARY-CONTENT"));
        }
    }

    @Test
    void writeAndCreateRefuseEveryEscapeAndNeverWriteThroughALink() {
        List<String> payloads = escapes();
        payloads.addAll(List.of("filelnk", "lnk/", "lnk/.", "chain39", "broken"));
        for (String p : payloads) {
            refused("write " + p, s.put(base("/file"), Map.of("path", p, "content", "pwned"), bearer(admin)));
            refused("create file " + p, s.post(base("/files/create"), Map.of("path", p, "type", "file",
                    "content", "pwned"), bearer(admin)));
            refused("create dir " + p, s.post(base("/files/create"), Map.of("path", p, "type", "directory"),
                    bearer(admin)));
        }
        assertFalse(Files.exists(outside.resolve("new.txt")));
        assertFalse(Files.exists(outside.resolve("new-dir")));
        assertFalse(Files.exists(outside.resolve("not-there.txt")), "writing through a broken link creates nothing");
    }

    @Test
    void renameRefusesEitherEndOutside() {
        for (String p : escapes()) {
            refused("rename to " + p, s.put(base("/files/rename"), Map.of("oldPath", "ok.txt", "newPath", p),
                    bearer(admin)));
            refused("rename from " + p, s.put(base("/files/rename"), Map.of("oldPath", p, "newPath", "moved.txt"),
                    bearer(admin)));
        }
        for (String into : List.of("lnk/ok.txt", "abslnk/ok.txt", "evillnk/ok.txt", "lnk/sub/ok.txt")) {
            refused("rename into " + into, s.put(base("/files/rename"), Map.of("oldPath", "ok.txt", "newPath", into),
                    bearer(admin)));
        }
        assertTrue(Files.exists(root.resolve("ok.txt")));
        assertFalse(Files.exists(root.resolve("moved.txt")));
    }

    @Test
    void deleteRefusesEveryEscapeAndRemovesLinksNotTheirTargets() throws IOException {
        for (String p : escapes()) {
            refused("delete " + p, s.send("DELETE", base("/files"), Map.of("path", p), bearer(admin)));
            refused("delete dir " + p, s.send("DELETE", base("/files"), Map.of("path", p, "type", "directory"),
                    bearer(admin)));
        }
        // A link is removed as a link: the folder or file it points to stays.
        JsonNode link = expect(s.send("DELETE", base("/files"), Map.of("path", "lnk"), bearer(admin)), 200, null);
        assertFalse(link.path("recursive").asBoolean());
        assertFalse(Files.exists(root.resolve("lnk"), LinkOption.NOFOLLOW_LINKS));
        expect(s.send("DELETE", base("/files"), Map.of("path", "filelnk"), bearer(admin)), 200, null);
        expect(s.send("DELETE", base("/files"), Map.of("path", "abslnk", "type", "directory"), bearer(admin)), 200,
                null);
        // A recursive delete of a folder holding links removes the links, never what they point to.
        Path tree = Files.createDirectories(root.resolve("tree/deep"));
        Files.createSymbolicLink(tree.resolve("out"), outside);
        Files.createSymbolicLink(root.resolve("tree/canary"), canary);
        JsonNode removed = expect(s.send("DELETE", base("/files"), Map.of("path", "tree"), bearer(admin)), 200,
                null);
        assertTrue(removed.path("recursive").asBoolean());
        assertEquals(4, removed.path("entriesRemoved").asInt());
        assertTrue(Files.exists(outside.resolve("sub/inner.txt")));
    }

    @Test
    void renamingALinkMovesTheLinkOnly() throws IOException {
        expect(s.put(base("/files/rename"), Map.of("oldPath", "filelnk", "newPath", "dir/renamed-link"),
                bearer(admin)), 200, null);
        assertTrue(Files.isSymbolicLink(root.resolve("dir/renamed-link")));
        assertEquals(canary, root.resolve("dir/renamed-link").toRealPath());
        refused("read through the moved link", s.get(base("/file?path=dir/renamed-link"), bearer(admin)));
    }

    @Test
    void escapesInJsonBodiesAreDecodedOnceAndRefused() {
        // JSON escapes decode to the same characters: \u002e\u002e/ is ../ and is refused like it.
        for (String json : List.of(
                "{\"path\":\"\\u002e\\u002e/outside/canary.txt\",\"content\":\"pwned\"}",
                "{\"path\":\"\\u002Foutside\\u002Fcanary.txt\",\"content\":\"pwned\"}",
                "{\"path\":\"ok.txt\\u0000.png\",\"content\":\"pwned\"}",
                "{\"path\":\"..\\\\outside\\\\canary.txt\",\"content\":\"pwned\"}",
                "{\"path\":\"lnk\\u002fcanary.txt\",\"content\":\"pwned\"}")) {
            refused("write " + json, s.put(base("/file"), json, bearer(admin)));
        }
        // Percent signs in a JSON string are not decoded: they name a file inside the project.
        String literal = "%2e%2e%2foutside%2fcanary.txt";
        expect(s.put(base("/file"), Map.of("path", literal, "content", "inert"), bearer(admin)), 200, null);
        assertTrue(Files.isRegularFile(root.resolve(literal)), "a literal name inside the project");
        assertEquals("inert", expect(s.get(base("/file?path=" + q(literal)), bearer(admin)), 200, null)
                .path("content").asText());
    }

    @Test
    void aHardLinkIsReplacedOnWriteNotWrittenThrough() throws IOException {
        Files.createLink(root.resolve("hard"), canary);
        outsideBefore = fingerprint();
        expect(s.put(base("/file"), Map.of("path", "hard", "content", "replaced"), bearer(admin)), 200, null);
        assertEquals("replaced", Files.readString(root.resolve("hard")));
        assertEquals(canaryHash, sha256(canary));
    }

    private Map<String, String> fingerprint() throws IOException {
        return Fingerprints.outside(base, root);
    }

    private static String sha256(Path file) {
        return Fingerprints.sha256(file);
    }
}
