package org.agentworkspace.core.files;

import org.agentworkspace.testkit.fs.Fingerprints;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

import org.agentworkspace.api.WorkspaceException;
import org.agentworkspace.api.files.DeleteResult;
import org.agentworkspace.api.files.EntryType;
import org.agentworkspace.api.files.FileEntry;
import org.agentworkspace.api.files.FileErrorCodes;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The path-confinement suite (security catalogue FS-1 to FS-15): every payload against every operation, with
 * a fingerprint of everything outside the project taken before and compared after.
 */
class FileAttackTest {
    @TempDir
    Path tmp;
    Path base;
    Path root;
    Path outside;
    Path canary;
    ProjectFiles files;
    Map<String, String> outsideBefore;

    @BeforeEach
    void setUp() throws Exception {
        base = Files.createDirectories(tmp.resolve("x"));
        root = Files.createDirectories(base.resolve("proj"));
        outside = Files.createDirectories(base.resolve("outside"));
        canary = outside.resolve("canary.txt");
        Files.writeString(canary, "canary: must never change\n");
        Files.createDirectories(outside.resolve("sub"));
        Files.writeString(outside.resolve("sub/inner.txt"), "inner\n");
        Path evil = Files.createDirectories(base.resolve("proj-evil"));
        Files.writeString(evil.resolve("secret"), "sibling secret\n");
        Files.writeString(root.resolve("ok.txt"), "inside\n");
        Files.createDirectories(root.resolve("dir"));
        Files.writeString(root.resolve("dir/inside.txt"), "inside\n");
        Files.createSymbolicLink(root.resolve("lnk"), Path.of("../outside"));
        Files.createSymbolicLink(root.resolve("abslnk"), outside);
        Files.createSymbolicLink(root.resolve("filelnk"), canary);
        Files.createSymbolicLink(root.resolve("dirlnk"), Path.of("/"));
        Files.createSymbolicLink(root.resolve("loop"), Path.of("loop"));
        Files.createSymbolicLink(root.resolve("broken"), Path.of("../outside/not-there.txt"));
        Files.createSymbolicLink(root.resolve("evillnk"), Path.of("../proj-evil"));
        Path previous = root.resolve("lnk");
        for (int i = 0; i < 40; i++) {
            Path next = root.resolve("chain" + i);
            Files.createSymbolicLink(next, previous.getFileName());
            previous = next;
        }
        Files.createLink(root.resolve("hard"), canary);
        files = ProjectFiles.create(root);
        outsideBefore = fingerprint();
    }

    private Map<String, String> fingerprint() throws IOException {
        return Fingerprints.outside(base, root);
    }

    private static String sha256(Path file) {
        return Fingerprints.sha256(file);
    }

    @AfterEach
    void nothingOutsideChanged() throws IOException {
        assertEquals(outsideBefore, fingerprint());
        assertTrue(Files.readString(canary).startsWith("canary"));
        // Spare JUnit's temp-dir cleanup the warning about a link to "/".
        Files.deleteIfExists(root.resolve("dirlnk"));
    }

    /** Runs an operation that must be refused with a 4xx code, and never echoes a host path. */
    private void refused(String what, Runnable action) {
        try {
            action.run();
            fail(what + " was not refused");
        } catch (WorkspaceException e) {
            assertFalse(e.getMessage().contains(tmp.toString()), what + " leaked a host path: " + e.getMessage());
            assertTrue(Set.of(FileErrorCodes.PATH_OUTSIDE_PROJECT, FileErrorCodes.INVALID_PATH,
                    FileErrorCodes.FILE_NOT_FOUND, FileErrorCodes.NOT_A_DIRECTORY, FileErrorCodes.NOT_A_FILE,
                    FileErrorCodes.FILE_EXISTS).contains(e.code()), what + " -> " + e.code());
        }
    }

    private static final List<String> ESCAPES = List.of(
            // FS-1 traversal
            "../outside/canary.txt", "..", "../", "./../x", "a/../../x", "a/b/../../../x", "dir/../../outside/x",
            // FS-2 absolute
            "/etc/passwd", "//etc/passwd", "/proc/self/environ", "/",
            // FS-4 NUL
            "a.txt\0.png", "a\0b",
            // FS-5 backslash
            "..\\..\\outside\\canary.txt", "C:\\Windows\\win.ini", "\\\\srv\\share", "dir\\inside.txt",
            // FS-6 sibling whose name starts with the project's name
            "../proj-evil/secret", "evillnk/secret",
            // FS-7 symbolic links leaving the project
            "lnk/canary.txt", "abslnk/canary.txt", "dirlnk/etc/hostname", "filelnk", "lnk/sub/inner.txt",
            // FS-8 link plus trailing slash or dot
            "lnk/", "lnk/.", "lnk/./canary.txt",
            // FS-9 loops and long chains
            "loop", "loop/x", "chain39/canary.txt", "chain39",
            // broken link pointing outside
            "broken",
            // FS-18 long
            "a/".repeat(3000) + "x", "x".repeat(300));

    @Test
    void readAndListRefuseEveryEscape() {
        for (String p : ESCAPES) {
            refused("read " + p, () -> files.read(p));
            refused("list " + p, () -> files.list(p));
        }
    }

    @Test
    void writeAndCreateRefuseEveryEscape() {
        for (String p : ESCAPES) {
            refused("write " + p, () -> files.write(p, "pwned"));
            String child = p.endsWith("/") ? p + "new.txt" : p + "/new.txt";
            refused("write " + child, () -> files.write(child, "pwned"));
            refused("create file " + p, () -> files.create(p, EntryType.FILE, "pwned"));
            refused("create file " + child, () -> files.create(child, EntryType.FILE, "pwned"));
            refused("create dir " + child, () -> files.create(child, EntryType.DIRECTORY, null));
        }
    }

    @Test
    void renameRefusesEitherEndOutside() {
        for (String p : ESCAPES) {
            if (List.of("filelnk", "loop", "chain39", "broken", "lnk/", "lnk/.").contains(p)) {
                continue; // these name links inside the project, which rename may move (tested below)
            }
            refused("rename from " + p, () -> files.rename(p, "moved.txt"));
            refused("rename to " + p, () -> files.rename("ok.txt", p));
            String child = p.endsWith("/") ? p + "moved.txt" : p + "/moved.txt";
            refused("rename to " + child, () -> files.rename("ok.txt", child));
        }
        assertTrue(Files.exists(root.resolve("ok.txt")));
    }

    @Test
    void deleteRefusesEveryEscapeAndRemovesLinksNotTargets() throws Exception {
        for (String p : ESCAPES) {
            if (List.of("filelnk", "loop", "chain39", "broken", "lnk/", "lnk/.").contains(p)) {
                continue;
            }
            refused("delete " + p, () -> files.delete(p, null));
            refused("delete dir " + p, () -> files.delete(p, EntryType.DIRECTORY));
        }
        // FS-12: links themselves are removed, never what they point at.
        for (String link : List.of("lnk", "abslnk", "filelnk", "dirlnk", "loop", "broken", "chain39")) {
            assertEquals(new DeleteResult(link, EntryType.FILE, false, 1), files.delete(link, null), link);
            assertFalse(Files.exists(root.resolve(link), LinkOption.NOFOLLOW_LINKS));
        }
        // "lnk/" and "lnk/." name the same link once the dots and slashes are dropped.
        Files.createSymbolicLink(root.resolve("lnk"), Path.of("../outside"));
        assertEquals(new DeleteResult("lnk", EntryType.FILE, false, 1), files.delete("lnk/.", EntryType.DIRECTORY));
    }

    @Test
    void recursiveDeleteNeverFollowsLinksInside() throws Exception {
        Path tree = Files.createDirectories(root.resolve("tree/deeper"));
        Files.writeString(tree.resolve("f.txt"), "f");
        Files.createSymbolicLink(tree.resolve("out"), outside);
        Files.createSymbolicLink(root.resolve("tree/outfile"), canary);
        Files.createLink(root.resolve("tree/hard"), canary);
        DeleteResult result = files.delete("tree", EntryType.DIRECTORY);
        assertEquals(new DeleteResult("tree", EntryType.DIRECTORY, true, 6), result);
        assertFalse(Files.exists(root.resolve("tree"), LinkOption.NOFOLLOW_LINKS));
    }

    @Test
    void writingThroughAHardLinkReplacesTheEntryNotTheOutsideFile() throws Exception {
        files.write("hard", "replaced inside only");
        assertEquals("replaced inside only", Files.readString(root.resolve("hard")));
        assertEquals(1, ((Number) Files.getAttribute(root.resolve("hard"), "unix:nlink")).intValue());
    }

    @Test
    void linksAreRenamedAsLinks() throws Exception {
        files.rename("filelnk", "moved-link");
        assertTrue(Files.isSymbolicLink(root.resolve("moved-link")));
        assertEquals(canary, Files.readSymbolicLink(root.resolve("moved-link")));
        files.rename("lnk", "dir/moved-dir-link");
        assertTrue(Files.isSymbolicLink(root.resolve("dir/moved-dir-link")));
        refused("read through moved link", () -> files.read("dir/moved-dir-link/canary.txt"));
    }

    @Test
    void listingShowsLinksWithoutRevealingOutsideTargets() {
        List<FileEntry> entries = files.list("");
        Map<String, FileEntry> byName = new TreeMap<>();
        entries.forEach(e -> byName.put(e.name(), e));
        for (String link : List.of("lnk", "abslnk", "filelnk", "dirlnk", "loop", "broken", "evillnk", "chain39")) {
            assertEquals(new FileEntry(link, link, EntryType.FILE, null), byName.get(link), link);
        }
        assertEquals(new FileEntry("dir", "dir", EntryType.DIRECTORY, null), byName.get("dir"));
    }

    @Test
    void encodedNamesAreLiteralNamesInsideTheProject() throws Exception {
        // The server decodes the query once; what reaches the engine is never decoded again.
        List<String> literal = List.of("..%2Foutside%2Fcanary.txt", "%2e%2e%2foutside", "%252e%252e%252f",
                "%c0%ae%c0%ae", "..%5c..%5coutside");
        for (String name : literal) {
            refused("read " + name, () -> files.read(name));
            files.write(name, "literal");
            assertTrue(Files.isRegularFile(root.resolve(name)), name);
        }
        List<String> names = new ArrayList<>();
        files.list("").forEach(e -> names.add(e.name()));
        assertTrue(names.containsAll(literal));
    }

    @Test
    void guardComparesComponentsNotStringPrefixes() {
        PathGuard guard = PathGuard.create(root);
        assertFalse(guard.contains(base.resolve("proj-evil/secret")));
        assertTrue(guard.contains(root.resolve("dir")));
        assertEquals("dir/inside.txt", guard.relativize(guard.resolve("dir/inside.txt")));
        refused("resolve evillnk/secret", () -> guard.resolve("evillnk/secret"));
        refused("resolve entry evillnk/secret", () -> guard.resolveEntry("evillnk/secret"));
    }
}
