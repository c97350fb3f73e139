package org.agentworkspace.server.http;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The JSON copy of the OpenAPI document that spares later starts the YAML parse: written once (0700 folder), read
 * back as the same document, ignored when damaged, replaced when the document changes.
 */
class OpenApiDocumentCopyTest {
    @TempDir
    Path data;

    @Test
    void aSavedCopyIsReadBackAsTheSameDocument() throws Exception {
        Path cache = data.resolve("cache");
        OpenApiDocument parsed = OpenApiDocument.load(cache);
        assertFalse(Files.exists(cache), "loading never creates the folder");
        parsed.saveCopy(cache);
        assertEquals(PosixFilePermissions.fromString("rwx------"), Files.getPosixFilePermissions(cache));
        List<Path> copies = list(cache);
        assertEquals(1, copies.size(), copies.toString());
        assertTrue(copies.getFirst().getFileName().toString().matches("openapi-[0-9a-f]{8}-\\d+\\.json"));

        OpenApiDocument fromCopy = OpenApiDocument.load(cache);
        assertEquals(parsed.root(), fromCopy.root());
        assertArrayEquals(parsed.json(), fromCopy.json());
        assertEquals(parsed.operations(), fromCopy.operations());
        long written = Files.getLastModifiedTime(copies.getFirst()).toMillis();
        Files.setLastModifiedTime(copies.getFirst(), java.nio.file.attribute.FileTime.fromMillis(written - 60_000));
        fromCopy.saveCopy(cache);
        assertEquals(written - 60_000, Files.getLastModifiedTime(copies.getFirst()).toMillis(),
                "a document read from its copy does not write it again");
    }

    @Test
    void aDamagedCopyIsIgnoredAndOtherVersionsAreRemoved() throws Exception {
        Path cache = data.resolve("cache");
        OpenApiDocument parsed = OpenApiDocument.load(cache);
        parsed.saveCopy(cache);
        Path copy = list(cache).getFirst();
        Files.writeString(copy, "{\"paths\": {\"/truncated");
        OpenApiDocument again = OpenApiDocument.load(cache);
        assertEquals(parsed.root(), again.root(), "the YAML is parsed when the copy is not valid JSON");
        Files.writeString(copy, "[1, 2]");
        assertEquals(parsed.root(), OpenApiDocument.load(cache).root(), "or is not an OpenAPI document");

        Path older = Files.writeString(cache.resolve("openapi-00000000-1.json"), "{}");
        again.saveCopy(cache);
        assertFalse(Files.exists(older), "the copy of another version of the document is removed");
        assertEquals(List.of(copy), list(cache));
        assertEquals(parsed.root(), OpenApiDocument.load(cache).root());
    }

    private static List<Path> list(Path dir) throws Exception {
        try (var s = Files.list(dir)) {
            return s.sorted().toList();
        }
    }
}
