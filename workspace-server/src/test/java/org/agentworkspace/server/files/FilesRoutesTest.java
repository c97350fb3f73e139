package org.agentworkspace.server.files;

import static org.agentworkspace.server.TestServer.bearer;
import static org.agentworkspace.server.TestServer.expect;
import static org.agentworkspace.server.TestServer.q;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;

import com.fasterxml.jackson.databind.JsonNode;

import org.agentworkspace.core.files.FileLimits;
import org.agentworkspace.server.TestServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The file routes over HTTP against real folders: shapes, detection rule, limits, atomic writes. */
class FilesRoutesTest {
    /** Small limits so that the limit answers are cheap to reach: 64 KiB files, 50 entries. */
    static TestServer s;
    static String admin;
    static Path work;
    Path root;
    String project;

    @BeforeAll
    static void start() throws IOException {
        s = TestServer.start(c -> c.withFileLimits(new FileLimits(64 * 1024, 64 * 1024, 50)));
        admin = s.registerAdmin();
        work = Files.createTempDirectory("aw-files-");
    }

    @AfterAll
    static void stop() {
        s.close();
    }

    @BeforeEach
    void project() throws IOException {
        root = Files.createTempDirectory(work, "proj-");
        Files.createDirectories(root.resolve("src/main"));
        Files.writeString(root.resolve("README.md"), "# hello\n");
        Files.writeString(root.resolve("src/main/App.java"), "class App {}\n");
        Files.createDirectories(root.resolve("docs"));
        project = s.quickStart(admin, root);
    }

    String base() {
        return "/api/projects/" + project;
    }

    HttpResponse<String> get(String pathAndQuery) {
        return s.get(base() + pathAndQuery, bearer(admin));
    }

    HttpResponse<String> send(String method, String pathAndQuery, Object body) {
        return s.send(method, base() + pathAndQuery, body, bearer(admin));
    }

    @Test
    void listsOneLevelDirectoriesFirst() {
        JsonNode top = expect(get("/files"), 200, null);
        assertEquals(List.of("docs", "src", "README.md"), names(top));
        JsonNode readme = top.get(2);
        assertEquals("file", readme.path("type").asText());
        assertEquals(8, readme.path("size").asInt());
        assertEquals("README.md", readme.path("path").asText());
        assertTrue(top.get(0).path("size").isNull(), "directories have no size");

        JsonNode main = expect(get("/files?path=" + q("src//main/")), 200, null);
        assertEquals("src/main/App.java", main.get(0).path("path").asText(), "paths are canonical");
        assertEquals(main, expect(get("/files?path=" + q("./src/main")), 200, null));
        assertEquals(top, expect(get("/files?path="), 200, null), "an empty path is the root");

        expect(get("/files?path=missing"), 404, "FILE_NOT_FOUND");
        expect(get("/files?path=README.md"), 400, "NOT_A_DIRECTORY");
        expect(s.get("/api/projects/nope-00000000/files", bearer(admin)), 404, "PROJECT_NOT_FOUND");
    }

    @Test
    void readReturnsTextOrBase64ByTheDocumentedRule() throws IOException {
        JsonNode text = expect(get("/file?path=README.md"), 200, null);
        assertEquals("# hello\n", text.path("content").asText());
        assertEquals("utf-8", text.path("encoding").asText());
        assertEquals("README.md", text.path("path").asText());

        byte[] png = {(byte) 0x89, 'P', 'N', 'G', 0, 1, 2, (byte) 0xff};
        Files.write(root.resolve("img.png"), png);
        JsonNode binary = expect(get("/file?path=img.png"), 200, null);
        assertEquals("base64", binary.path("encoding").asText());
        assertArrayEquals(png, Base64.getDecoder().decode(binary.path("content").asText()));

        byte[] latin1 = "caf\u00e9".getBytes(StandardCharsets.ISO_8859_1);
        Files.write(root.resolve("latin1.txt"), latin1);
        JsonNode invalid = expect(get("/file?path=latin1.txt"), 200, null);
        assertEquals("base64", invalid.path("encoding").asText(), "not valid UTF-8, no NUL: still base64");
        assertArrayEquals(latin1, Base64.getDecoder().decode(invalid.path("content").asText()));

        byte[] lateNul = new byte[9000];
        java.util.Arrays.fill(lateNul, (byte) 'x');
        lateNul[8999] = 0;
        Files.write(root.resolve("late-nul.txt"), lateNul);
        JsonNode late = expect(get("/file?path=late-nul.txt"), 200, null);
        assertEquals("utf-8", late.path("encoding").asText(), "only the first 8 KiB are sniffed for NUL");
        assertEquals(9000, late.path("content").asText().length());

        Files.writeString(root.resolve("unicode.txt"), "ünïcødé ✓ 😀");
        assertEquals("ünïcødé ✓ 😀", expect(get("/file?path=unicode.txt"), 200, null).path("content").asText());
        Files.write(root.resolve("empty"), new byte[0]);
        JsonNode empty = expect(get("/file?path=empty"), 200, null);
        assertEquals("", empty.path("content").asText());
        assertEquals("utf-8", empty.path("encoding").asText());

        expect(get("/file?path=missing.txt"), 404, "FILE_NOT_FOUND");
        expect(get("/file?path=src"), 400, "NOT_A_FILE");
        expect(get("/file"), 400, "VALIDATION_FAILED");
    }

    @Test
    void writeReplacesAtomicallyKeepsPermissionsAndTakesBase64() throws IOException {
        Path readme = root.resolve("README.md");
        Files.setPosixFilePermissions(readme, PosixFilePermissions.fromString("rwxr-x---"));
        JsonNode w = expect(send("PUT", "/file", Map.of("path", "README.md", "content", "new text ✓")), 200, null);
        assertEquals("README.md", w.path("path").asText());
        assertEquals("file", w.path("type").asText());
        assertEquals("new text ✓".getBytes(StandardCharsets.UTF_8).length, w.path("size").asInt());
        assertEquals("new text ✓", Files.readString(readme));
        assertEquals("rwxr-x---", PosixFilePermissions.toString(Files.getPosixFilePermissions(readme)));

        byte[] bytes = {0, 1, 2, (byte) 0xfe, (byte) 0xff};
        expect(send("PUT", "/file", Map.of("path", "docs/blob.bin", "content",
                Base64.getEncoder().encodeToString(bytes), "encoding", "base64")), 200, null);
        assertArrayEquals(bytes, Files.readAllBytes(root.resolve("docs/blob.bin")));
        JsonNode back = expect(get("/file?path=docs/blob.bin"), 200, null);
        assertArrayEquals(bytes, Base64.getDecoder().decode(back.path("content").asText()));

        expect(send("PUT", "/file", Map.of("path", "x.bin", "content", "not base64!", "encoding", "base64")), 400,
                "VALIDATION_FAILED");
        expect(send("PUT", "/file", Map.of("path", "x.txt", "content", "x", "encoding", "latin1")), 400,
                "VALIDATION_FAILED");
        expect(send("PUT", "/file", Map.of("path", "no/such/dir/x.txt", "content", "x")), 404, "FILE_NOT_FOUND");
        expect(send("PUT", "/file", Map.of("path", "src", "content", "x")), 400, "NOT_A_FILE");
        expect(send("PUT", "/file", Map.of("path", "", "content", "x")), 400, "INVALID_PATH");
        expect(send("PUT", "/file", Map.of("path", "a.txt")), 400, "VALIDATION_FAILED");
        assertEquals(List.of(), tempFiles(), "no temporary file is left behind");
    }

    @Test
    void createMakesParentsAndRefusesExistingPaths() throws IOException {
        JsonNode file = expect(send("POST", "/files/create", Map.of("path", "a/b/c/new.txt", "type", "file",
                "content", "fresh")), 201, null);
        assertEquals("a/b/c/new.txt", file.path("path").asText());
        assertEquals("fresh", Files.readString(root.resolve("a/b/c/new.txt")));
        expect(send("POST", "/files/create", Map.of("path", "empty.txt", "type", "file")), 201, null);
        assertEquals(0, Files.size(root.resolve("empty.txt")));
        JsonNode dir = expect(send("POST", "/files/create", Map.of("path", "x/y", "type", "directory",
                "content", "ignored")), 201, null);
        assertEquals("directory", dir.path("type").asText());
        assertTrue(Files.isDirectory(root.resolve("x/y")));

        expect(send("POST", "/files/create", Map.of("path", "README.md", "type", "file")), 409, "FILE_EXISTS");
        expect(send("POST", "/files/create", Map.of("path", "src", "type", "directory")), 409, "FILE_EXISTS");
        Files.createSymbolicLink(root.resolve("dangling"), root.resolve("nowhere"));
        expect(send("POST", "/files/create", Map.of("path", "dangling", "type", "file")), 409, "FILE_EXISTS");
        expect(send("POST", "/files/create", Map.of("path", "README.md/inner", "type", "file")), 400,
                "NOT_A_DIRECTORY");
        expect(send("POST", "/files/create", Map.of("path", "z", "type", "symlink")), 400, "VALIDATION_FAILED");
        expect(send("POST", "/files/create", Map.of("path", "z")), 400, "VALIDATION_FAILED");
    }

    @Test
    void renameMovesFilesAndFolders() throws IOException {
        JsonNode moved = expect(send("PUT", "/files/rename", Map.of("oldPath", "README.md", "newPath",
                "docs/README.md")), 200, null);
        assertEquals("README.md", moved.path("oldPath").asText());
        assertEquals("docs/README.md", moved.path("newPath").asText());
        assertFalse(Files.exists(root.resolve("README.md")));
        assertEquals("# hello\n", Files.readString(root.resolve("docs/README.md")));
        expect(send("PUT", "/files/rename", Map.of("oldPath", "src", "newPath", "source")), 200, null);
        assertTrue(Files.isRegularFile(root.resolve("source/main/App.java")));

        expect(send("PUT", "/files/rename", Map.of("oldPath", "missing", "newPath", "x")), 404, "FILE_NOT_FOUND");
        expect(send("PUT", "/files/rename", Map.of("oldPath", "source", "newPath", "docs")), 409, "FILE_EXISTS");
        expect(send("PUT", "/files/rename", Map.of("oldPath", "source", "newPath", "nowhere/x")), 404,
                "FILE_NOT_FOUND");
        expect(send("PUT", "/files/rename", Map.of("oldPath", "source", "newPath", "source/main/inner")), 400,
                "INVALID_PATH");
        expect(send("PUT", "/files/rename", Map.of("oldPath", "source")), 400, "VALIDATION_FAILED");
    }

    @Test
    void aTreeTooDeepToWalkIsRefusedBeforeAnythingIsDeleted() throws IOException {
        // 80,000 levels used to overflow the walk's stack (a 500); past 512 levels the delete is refused up front
        Path deepest = Files.createDirectories(root.resolve("deep/" + "d/".repeat(600)));
        Files.writeString(root.resolve("deep/first.txt"), "kept\n");
        Files.writeString(deepest.resolve("bottom.txt"), "kept\n");
        JsonNode refused = expect(send("DELETE", "/files", Map.of("path", "deep")), 400, "TREE_TOO_DEEP");
        assertTrue(refused.path("error").path("message").asText().contains("512"), refused.toString());
        assertTrue(Files.exists(root.resolve("deep/first.txt")), "nothing was deleted");
        assertTrue(Files.exists(deepest.resolve("bottom.txt")), "nothing was deleted");
        // a tree of exactly 512 levels below the folder is deleted whole
        Files.createDirectories(root.resolve("fits/" + "d/".repeat(512)));
        JsonNode deleted = expect(send("DELETE", "/files", Map.of("path", "fits")), 200, null);
        assertEquals(513, deleted.path("entriesRemoved").asInt(), deleted.toString());
        assertFalse(Files.exists(root.resolve("fits")));
    }

    @Test
    void deleteRemovesFilesAndWholeTreesAndSaysSo() throws IOException {
        JsonNode file = expect(send("DELETE", "/files", Map.of("path", "README.md")), 200, null);
        assertEquals("file", file.path("type").asText());
        assertFalse(file.path("recursive").asBoolean());
        assertFalse(Files.exists(root.resolve("README.md")));

        expect(send("DELETE", "/files", Map.of("path", "src", "type", "file")), 400, "NOT_A_FILE");
        assertTrue(Files.exists(root.resolve("src/main/App.java")), "a wrong hint removes nothing");
        JsonNode tree = expect(send("DELETE", "/files", Map.of("path", "src", "type", "directory")), 200, null);
        assertTrue(tree.path("recursive").asBoolean());
        assertEquals(3, tree.path("entriesRemoved").asInt(), "src, src/main, src/main/App.java");
        assertFalse(Files.exists(root.resolve("src")));

        for (String rootPath : List.of("", ".", "./", "/")) {
            HttpResponse<String> res = send("DELETE", "/files", Map.of("path", rootPath));
            assertTrue(res.statusCode() == 400 || res.statusCode() == 403, rootPath + ": " + res.body());
        }
        assertTrue(Files.isDirectory(root), "the project root is never deleted");
        expect(send("DELETE", "/files", Map.of("path", "missing")), 404, "FILE_NOT_FOUND");
        expect(send("DELETE", "/files", Map.of("path", "docs", "type", "folder")), 400, "VALIDATION_FAILED");
    }

    @Test
    void limitsAnswerWithCodes() throws IOException {
        Files.write(root.resolve("big.bin"), new byte[64 * 1024 + 1]);
        expect(get("/file?path=big.bin"), 413, "FILE_TOO_LARGE");
        Files.write(root.resolve("ok.bin"), new byte[64 * 1024]);
        expect(get("/file?path=ok.bin"), 200, null);
        String tooBig = "x".repeat(64 * 1024 + 1);
        expect(send("PUT", "/file", Map.of("path", "w.txt", "content", tooBig)), 413, "FILE_TOO_LARGE");
        expect(send("POST", "/files/create", Map.of("path", "c.txt", "type", "file", "content", tooBig)), 413,
                "FILE_TOO_LARGE");
        assertFalse(Files.exists(root.resolve("w.txt")) || Files.exists(root.resolve("c.txt")));

        Path many = Files.createDirectories(root.resolve("many"));
        for (int i = 0; i < 50; i++) {
            Files.writeString(many.resolve("f" + i), "");
        }
        assertEquals(50, expect(get("/files?path=many"), 200, null).size());
        Files.writeString(many.resolve("f50"), "");
        expect(get("/files?path=many"), 413, "TOO_MANY_ENTRIES");
    }

    @Test
    void fileRoutesTakeBodiesLargerThanTheDefaultLimitOthersDoNot() throws IOException {
        try (TestServer big = TestServer.start()) {
            String token = big.registerAdmin();
            Path dir = Files.createTempDirectory(work, "big-");
            String name = big.quickStart(token, dir);
            byte[] bytes = new byte[3 * 1024 * 1024];
            new java.util.Random(7).nextBytes(bytes);
            String b64 = Base64.getEncoder().encodeToString(bytes);
            expect(big.put("/api/projects/" + name + "/file", Map.of("path", "blob", "content", b64,
                    "encoding", "base64"), bearer(token)), 200, null);
            assertArrayEquals(bytes, Files.readAllBytes(dir.resolve("blob")), "a 4 MiB body reached the file");
            JsonNode back = expect(big.get("/api/projects/" + name + "/file?path=blob", bearer(token)), 200, null);
            assertArrayEquals(bytes, Base64.getDecoder().decode(back.path("content").asText()));

            // The same size on routes without file content: over their 1 MiB limit, refused on the declared length.
            for (String route : List.of("/rename", "/files/rename", "/files")) {
                String answer = declareOnly(big, route.equals("/files") ? "DELETE" : "PUT",
                        "/api/projects/" + name + route, token, 4L * 1024 * 1024);
                assertTrue(answer.startsWith("HTTP/1.1 413") && answer.contains("PAYLOAD_TOO_LARGE"), answer);
            }
            String justOver = "{\"oldPath\":\"blob\",\"newPath\":\"" + "n".repeat(1024 * 1024) + "\"}";
            expect(big.put("/api/projects/" + name + "/files/rename", justOver, bearer(token)), 413,
                    "PAYLOAD_TOO_LARGE");
            String eleven = "y".repeat(11 * 1024 * 1024);
            expect(big.put("/api/projects/" + name + "/file", Map.of("path", "t.txt", "content", eleven),
                    bearer(token)), 413, "FILE_TOO_LARGE");
            // Over even the file route's limit: refused on the declared length, before the body is read (a raw
            // socket, since an HTTP client still sending 21 MiB may miss the early answer when the server closes).
            String answer = declareOnly(big, "PUT", "/api/projects/" + name + "/file", token, 21L * 1024 * 1024);
            assertTrue(answer.startsWith("HTTP/1.1 413"), answer);
            assertTrue(answer.contains("PAYLOAD_TOO_LARGE"), answer);
            assertFalse(Files.exists(dir.resolve("t.txt")));
        }
    }

    @Test
    void concurrentReadersSeeTheOldOrTheNewFileNeverHalfOfOne() throws Exception {
        String a = "a".repeat(60_000);
        String b = "b".repeat(40_000);
        expect(send("PUT", "/file", Map.of("path", "doc.txt", "content", a)), 200, null);
        AtomicBoolean stop = new AtomicBoolean();
        AtomicInteger reads = new AtomicInteger();
        List<String> torn = new ArrayList<>();
        Thread reader = Thread.ofVirtual().start(() -> {
            while (!stop.get()) {
                JsonNode r = expect(get("/file?path=doc.txt"), 200, null);
                String content = r.path("content").asText();
                if (!content.equals(a) && !content.equals(b)) {
                    synchronized (torn) {
                        torn.add(content.length() + " chars");
                    }
                }
                reads.incrementAndGet();
            }
        });
        for (int i = 0; i < 60; i++) {
            expect(send("PUT", "/file", Map.of("path", "doc.txt", "content", i % 2 == 0 ? b : a)), 200, null);
        }
        stop.set(true);
        reader.join();
        assertTrue(reads.get() > 0);
        assertEquals(List.of(), torn, "reads that saw a partial file");
        assertEquals(a, Files.readString(root.resolve("doc.txt")));
        assertEquals(List.of(), tempFiles());
    }

    /** Sends only the head of a request declaring {@code length} body bytes, and returns what the server answers. */
    private static String declareOnly(TestServer server, String method, String path, String token, long length)
            throws IOException {
        try (java.net.Socket socket = new java.net.Socket("127.0.0.1", server.server.port())) {
            socket.setSoTimeout(10_000);
            socket.getOutputStream().write((method + " " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                    + "Authorization: Bearer " + token + "\r\nContent-Type: application/json\r\n"
                    + "Content-Length: " + length + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            socket.getOutputStream().flush();
            java.io.InputStream in = socket.getInputStream();
            java.io.ByteArrayOutputStream got = new java.io.ByteArrayOutputStream();
            byte[] buffer = new byte[4096];
            try {
                int n;
                while ((n = in.read(buffer)) > 0) {
                    got.write(buffer, 0, n);
                    if (got.toString(StandardCharsets.UTF_8).contains("}}")) {
                        break;
                    }
                }
            } catch (java.net.SocketTimeoutException e) {
                // whatever arrived is the answer
            }
            return got.toString(StandardCharsets.UTF_8);
        }
    }

    private List<String> tempFiles() throws IOException {
        try (Stream<Path> all = Files.walk(root)) {
            return all.map(p -> p.getFileName().toString()).filter(n -> n.startsWith(".aw-")).toList();
        }
    }

    private static List<String> names(JsonNode entries) {
        List<String> out = new ArrayList<>();
        entries.forEach(e -> out.add(e.path("name").asText()));
        return out;
    }
}
