package org.agentworkspace.testkit.contract;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Set;
import org.agentworkspace.testkit.contract.ContractClient.Session;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Files of a project: create, write, read (text or base64), list, rename, delete, and path escapes refused. Uses one
 * project in a fresh folder the service creates under {@code /tmp/aw-contract-<random>/}, empties it after each test
 * and deregisters it at the end. The symbolic-link checks need a service on this host (they plant a link).
 */
@Tag("contract")
@ExtendWith(ContractExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class FilesContractTest {
    private static final Set<String> REFUSALS = Set.of("PATH_OUTSIDE_PROJECT", "INVALID_PATH", "FILE_NOT_FOUND",
            "NOT_A_DIRECTORY", "NOT_A_FILE", "FILE_EXISTS");

    private Session session;
    private Projects projects;
    private String base;
    private String folder;

    @BeforeAll
    void project(ContractClient client, ContractHost host) {
        session = client.login();
        projects = new Projects(client, host, session);
        JsonNode project = projects.quickStart(Names.serverTempFolder("files"));
        base = "/api/projects/" + project.path("name").asText();
        folder = project.path("path").asText();
    }

    @AfterAll
    void deregister() {
        projects.deregisterAll();
    }

    @BeforeEach
    void emptyBefore(ContractClient client) {
        empty(client);
    }

    @AfterEach
    void emptyAfter(ContractClient client) {
        empty(client);
    }

    private void empty(ContractClient client) {
        for (JsonNode e : client.get(base + "/files").as(session).send().expectStatus(200).json()) {
            client.delete(base + "/files").as(session).json(ContractClient.body("path", e.path("path").asText()))
                    .send().expectStatus(200);
        }
    }

    private static String q(String value) {
        return URLEncoder.encode(value, StandardCharsets.UTF_8).replace("+", "%20");
    }

    private JsonNode read(ContractClient client, String path) {
        return client.get(base + "/file?path=" + q(path)).as(session).send().expectStatus(200).json();
    }

    private static List<String> names(JsonNode entries) {
        List<String> out = new ArrayList<>();
        entries.forEach(e -> out.add(e.path("name").asText()));
        return out;
    }

    @Test
    void createWriteReadListRenameDelete(ContractClient client) {
        client.post(base + "/files/create").as(session).json(ContractClient.body("path", "docs/deep", "type",
                "directory")).send().expectStatus(201);
        JsonNode created = client.post(base + "/files/create").as(session).json(ContractClient.body("path",
                "docs/notes.md", "type", "file", "content", "# notes\n")).send().expectStatus(201).json();
        assertEquals("docs/notes.md", created.path("path").asText());
        client.post(base + "/files/create").as(session).json(ContractClient.body("path", "docs/notes.md", "type",
                "file")).send().expectError(409, "FILE_EXISTS");

        JsonNode text = read(client, "docs/notes.md");
        assertEquals("# notes\n", text.path("content").asText());
        assertEquals("utf-8", text.path("encoding").asText());

        JsonNode written = client.put(base + "/file").as(session).json(ContractClient.body("path", "docs/notes.md",
                "content", "rewritten ✓\n")).send().expectStatus(200).json();
        assertEquals("rewritten ✓\n".getBytes(StandardCharsets.UTF_8).length, written.path("size").asInt());
        assertEquals("rewritten ✓\n", read(client, "docs/notes.md").path("content").asText());

        assertEquals(List.of("docs"), names(client.get(base + "/files").as(session).send().expectStatus(200).json()));
        JsonNode docs = client.get(base + "/files?path=docs").as(session).send().expectStatus(200).json();
        assertEquals(List.of("deep", "notes.md"), names(docs), "folders first, then files");
        assertEquals("directory", docs.get(0).path("type").asText());

        client.put(base + "/files/rename").as(session).json(ContractClient.body("oldPath", "docs/notes.md",
                "newPath", "docs/deep/moved.md")).send().expectStatus(200);
        client.get(base + "/file?path=docs/notes.md").as(session).send().expectError(404, "FILE_NOT_FOUND");
        assertEquals("rewritten ✓\n", read(client, "docs/deep/moved.md").path("content").asText());

        JsonNode removed = client.delete(base + "/files").as(session).json(ContractClient.body("path", "docs",
                "type", "directory")).send().expectStatus(200).json();
        assertTrue(removed.path("recursive").asBoolean(), "a folder is deleted with its contents, and says so");
        assertEquals(3, removed.path("entriesRemoved").asInt());
        assertEquals(0, client.get(base + "/files").as(session).send().expectStatus(200).json().size());
    }

    @Test
    void binaryContentTravelsAsBase64(ContractClient client) {
        byte[] bytes = {0, 1, 2, (byte) 0x89, 'P', 'N', 'G', (byte) 0xff};
        client.put(base + "/file").as(session).json(ContractClient.body("path", "blob.bin", "content",
                Base64.getEncoder().encodeToString(bytes), "encoding", "base64")).send().expectStatus(200);
        JsonNode back = read(client, "blob.bin");
        assertEquals("base64", back.path("encoding").asText());
        assertArrayEquals(bytes, Base64.getDecoder().decode(back.path("content").asText()));
        client.put(base + "/file").as(session).json(ContractClient.body("path", "x.bin", "content", "*not base64*",
                "encoding", "base64")).send().expectError(400, "VALIDATION_FAILED");
    }

    @Test
    void pathEscapesAreRefusedOnEveryRoute(ContractClient client) {
        client.post(base + "/files/create").as(session).json(ContractClient.body("path", "ok.txt", "type", "file",
                "content", "ok")).send().expectStatus(201);
        for (String p : List.of("../x", "../../etc/passwd", "/etc/passwd", "a/../../x", "a\u0000b", "..\\x",
                "C:\\Windows\\win.ini", "../" + Path.of(folder).getFileName() + "-sibling/x")) {
            for (ContractResponse r : List.of(
                    client.get(base + "/files?path=" + q(p)).as(session).send(),
                    client.get(base + "/file?path=" + q(p)).as(session).send(),
                    client.put(base + "/file").as(session).json(ContractClient.body("path", p, "content", "x")).send(),
                    client.post(base + "/files/create").as(session)
                            .json(ContractClient.body("path", p, "type", "file")).send(),
                    client.put(base + "/files/rename").as(session)
                            .json(ContractClient.body("oldPath", "ok.txt", "newPath", p)).send(),
                    client.put(base + "/files/rename").as(session)
                            .json(ContractClient.body("oldPath", p, "newPath", "moved.txt")).send(),
                    client.delete(base + "/files").as(session).json(ContractClient.body("path", p)).send())) {
                assertTrue(r.status() >= 400 && r.status() < 500, r.describe());
                assertTrue(REFUSALS.contains(r.errorCode()), r.describe() + " " + r.errorCode());
                assertFalse(r.body().contains("root:"), r.describe());
            }
        }
        ContractResponse encoded = client.get(base + "/file?path=..%2F..%2F..%2Fetc%2Fpasswd").as(session).send();
        assertTrue(encoded.status() == 403 || encoded.status() == 400, encoded.describe());
        client.get(base + "/file?path=%252e%252e%252fetc%252fpasswd").as(session).send()
                .expectError(404, "FILE_NOT_FOUND");
        client.delete(base + "/files").as(session).json(ContractClient.body("path", "")).send()
                .expectError(400, "INVALID_PATH");
        assertEquals("ok", read(client, "ok.txt").path("content").asText());
    }

    @Test
    void symbolicLinksLeavingTheProjectAreRefused(ContractClient client, ContractHost host) throws IOException {
        host.assumeLocal("planting a symbolic link in the project folder");
        Path outside = Files.createTempDirectory("aw-contract-outside-");
        Path canary = Files.writeString(outside.resolve("canary.txt"), "CANARY\n");
        Path root = Path.of(folder);
        Files.createSymbolicLink(root.resolve("out"), outside);
        Files.createSymbolicLink(root.resolve("canary-link"), canary);
        client.get(base + "/file?path=out/canary.txt").as(session).send().expectError(403, "PATH_OUTSIDE_PROJECT");
        client.get(base + "/file?path=canary-link").as(session).send().expectError(403, "PATH_OUTSIDE_PROJECT");
        client.get(base + "/files?path=out").as(session).send().expectError(403, "PATH_OUTSIDE_PROJECT");
        client.put(base + "/file").as(session).json(ContractClient.body("path", "canary-link", "content", "pwned"))
                .send().expectError(403, "PATH_OUTSIDE_PROJECT");
        client.put(base + "/file").as(session).json(ContractClient.body("path", "out/new.txt", "content", "pwned"))
                .send().expectError(403, "PATH_OUTSIDE_PROJECT");
        assertEquals("CANARY\n", Files.readString(canary));
        assertFalse(Files.exists(outside.resolve("new.txt")));
        // deleting the link removes the link only
        client.delete(base + "/files").as(session).json(ContractClient.body("path", "out")).send().expectStatus(200);
        assertTrue(Files.exists(canary));
    }

    @Test
    void unknownProjectsAreNotFound(ContractClient client) {
        client.get("/api/projects/contract-missing-00000000/files").as(session).send()
                .expectError(404, "PROJECT_NOT_FOUND");
        client.get("/api/projects/contract-missing-00000000/file?path=a").as(session).send()
                .expectError(404, "PROJECT_NOT_FOUND");
    }
}
