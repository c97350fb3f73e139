package org.agentworkspace.core.files;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Base64;
import java.util.List;
import java.util.stream.Stream;

import org.agentworkspace.api.WorkspaceException;
import org.agentworkspace.api.files.ContentEncoding;
import org.agentworkspace.api.files.DeleteResult;
import org.agentworkspace.api.files.EntryType;
import org.agentworkspace.api.files.FileContent;
import org.agentworkspace.api.files.FileEntry;
import org.agentworkspace.api.files.FileErrorCodes;
import org.agentworkspace.api.files.RelativePath;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The file operations on real files: shapes, encodings, atomicity and limits. */
class ProjectFilesTest {
    @TempDir
    Path tmp;
    Path root;
    ProjectFiles files;

    @BeforeEach
    void setUp() throws Exception {
        root = Files.createDirectories(tmp.resolve("proj"));
        files = ProjectFiles.create(root);
    }

    private static String code(Runnable action) {
        try {
            action.run();
        } catch (WorkspaceException e) {
            return e.code();
        }
        return "OK";
    }

    @Test
    void relativePathRules() {
        assertEquals("a/b", RelativePath.parse("a/b").value());
        assertEquals("a/b", RelativePath.parse("./a//b/").value());
        assertTrue(RelativePath.parse("").isRoot());
        assertTrue(RelativePath.parse(".").isRoot());
        assertEquals("..%2Fx", RelativePath.parse("..%2Fx").value());
        assertEquals("~", RelativePath.parse("~").value());
        for (String outside : List.of("..", "../x", "a/../../x", "a/..", "/etc/passwd", "//etc", "/")) {
            assertEquals(FileErrorCodes.PATH_OUTSIDE_PROJECT, code(() -> RelativePath.parse(outside)), outside);
        }
        for (String invalid : List.of("a\0b", "a\\b", "..\\x", "a\nb", "a\u007fb", "x".repeat(256),
                "a/".repeat(2100))) {
            assertEquals(FileErrorCodes.INVALID_PATH, code(() -> RelativePath.parse(invalid)), invalid);
        }
        assertEquals(FileErrorCodes.INVALID_PATH, code(() -> RelativePath.parse(null)));
    }

    @Test
    void createListReadWriteRenameDelete() throws Exception {
        assertEquals(new FileEntry("b.txt", "src/deep/b.txt", EntryType.FILE, 5L),
                files.create("src/deep/b.txt", EntryType.FILE, "hello"));
        assertEquals(new FileEntry("empty", "src/empty", EntryType.DIRECTORY, null),
                files.create("src/empty", EntryType.DIRECTORY, "ignored for folders"));
        files.create("a.txt", EntryType.FILE, null);
        files.write("src/c.md", "# title\n");
        assertEquals(List.of(new FileEntry("src", "src", EntryType.DIRECTORY, null),
                new FileEntry("a.txt", "a.txt", EntryType.FILE, 0L)), files.list(null));
        assertEquals(List.of(new FileEntry("deep", "src/deep", EntryType.DIRECTORY, null),
                new FileEntry("empty", "src/empty", EntryType.DIRECTORY, null),
                new FileEntry("c.md", "src/c.md", EntryType.FILE, 8L)), files.list("src"));
        assertEquals(new FileContent("hello", ContentEncoding.UTF_8), files.read("src/deep/b.txt"));
        files.write("src/deep/b.txt", "replaced ✓");
        assertEquals("replaced ✓", Files.readString(root.resolve("src/deep/b.txt")));
        assertEquals(new FileEntry("moved.txt", "src/moved.txt", EntryType.FILE, 12L),
                files.rename("src/deep/b.txt", "src/moved.txt"));
        assertFalse(Files.exists(root.resolve("src/deep/b.txt")));
        files.rename("src/deep", "deep2");
        assertTrue(Files.isDirectory(root.resolve("deep2")));
        assertEquals(new DeleteResult("src", EntryType.DIRECTORY, true, 4), files.delete("src", null));
        assertEquals(new DeleteResult("a.txt", EntryType.FILE, false, 1), files.delete("a.txt", EntryType.FILE));
        assertEquals(List.of(new FileEntry("deep2", "deep2", EntryType.DIRECTORY, null)), files.list(""));
        assertNoTemporaryFiles();
    }

    @Test
    void clearCodesForTheUsualMistakes() throws Exception {
        files.create("dir/f.txt", EntryType.FILE, "x");
        assertEquals(FileErrorCodes.FILE_NOT_FOUND, code(() -> files.read("nope.txt")));
        assertEquals(FileErrorCodes.FILE_NOT_FOUND, code(() -> files.list("nope")));
        assertEquals(FileErrorCodes.FILE_NOT_FOUND, code(() -> files.write("nope/x.txt", "x")));
        assertEquals(FileErrorCodes.FILE_NOT_FOUND, code(() -> files.delete("nope.txt", null)));
        assertEquals(FileErrorCodes.FILE_NOT_FOUND, code(() -> files.rename("nope.txt", "x.txt")));
        assertEquals(FileErrorCodes.FILE_NOT_FOUND, code(() -> files.rename("dir/f.txt", "nope/x.txt")));
        assertEquals(FileErrorCodes.FILE_EXISTS, code(() -> files.create("dir/f.txt", EntryType.FILE, "y")));
        assertEquals(FileErrorCodes.FILE_EXISTS, code(() -> files.create("dir", EntryType.DIRECTORY, null)));
        files.create("g.txt", EntryType.FILE, "g");
        assertEquals(FileErrorCodes.FILE_EXISTS, code(() -> files.rename("g.txt", "dir/f.txt")));
        assertEquals(FileErrorCodes.NOT_A_FILE, code(() -> files.read("dir")));
        assertEquals(FileErrorCodes.NOT_A_FILE, code(() -> files.write("dir", "x")));
        assertEquals(FileErrorCodes.NOT_A_FILE, code(() -> files.delete("dir", EntryType.FILE)));
        assertEquals(FileErrorCodes.NOT_A_DIRECTORY, code(() -> files.delete("g.txt", EntryType.DIRECTORY)));
        assertEquals(FileErrorCodes.NOT_A_DIRECTORY, code(() -> files.list("g.txt")));
        assertEquals(FileErrorCodes.NOT_A_DIRECTORY, code(() -> files.create("g.txt/x", EntryType.FILE, "")));
        assertEquals(FileErrorCodes.INVALID_PATH, code(() -> files.rename("dir", "dir/inside")));
        for (String root : List.of("", ".", "./")) {
            assertEquals(FileErrorCodes.INVALID_PATH, code(() -> files.delete(root, null)));
            assertEquals(FileErrorCodes.INVALID_PATH, code(() -> files.write(root, "x")));
            assertEquals(FileErrorCodes.INVALID_PATH, code(() -> files.rename(root, "x")));
            assertEquals(FileErrorCodes.INVALID_PATH, code(() -> files.create(root, EntryType.DIRECTORY, null)));
        }
        assertTrue(Files.isDirectory(root.resolve("dir")));
        assertEquals("x", Files.readString(root.resolve("dir/f.txt")));
    }

    @Test
    void encodingRule() throws Exception {
        Files.write(root.resolve("text.txt"), "plain ünïcode\n".getBytes(StandardCharsets.UTF_8));
        byte[] nul = {'a', 0, 'b'};
        Files.write(root.resolve("nul.bin"), nul);
        byte[] latin1 = "caf\u00e9".getBytes(StandardCharsets.ISO_8859_1);
        Files.write(root.resolve("latin1.txt"), latin1);
        byte[] lateNul = new byte[9000];
        java.util.Arrays.fill(lateNul, (byte) 'x');
        lateNul[8500] = 0;
        Files.write(root.resolve("late-nul.txt"), lateNul);
        Files.write(root.resolve("empty.txt"), new byte[0]);
        assertEquals(new FileContent("plain ünïcode\n", ContentEncoding.UTF_8), files.read("text.txt"));
        assertEquals(new FileContent(Base64.getEncoder().encodeToString(nul), ContentEncoding.BASE64),
                files.read("nul.bin"));
        assertEquals(ContentEncoding.BASE64, files.read("latin1.txt").encoding());
        assertArrayEquals(latin1, Base64.getDecoder().decode(files.read("latin1.txt").content()));
        // A NUL after the first 8 KiB does not make a valid UTF-8 file binary.
        assertEquals(ContentEncoding.UTF_8, files.read("late-nul.txt").encoding());
        assertEquals(new FileContent("", ContentEncoding.UTF_8), files.read("empty.txt"));
    }

    @Test
    void limitsAnswerWithCodes() throws Exception {
        ProjectFiles small = ProjectFiles.create(PathGuard.create(root), new FileLimits(10, 20, 3));
        Files.write(root.resolve("ten.txt"), new byte[10]);
        Files.write(root.resolve("eleven.txt"), new byte[11]);
        assertEquals(10, Base64.getDecoder().decode(small.read("ten.txt").content()).length);
        assertEquals(FileErrorCodes.FILE_TOO_LARGE, code(() -> small.read("eleven.txt")));
        assertEquals(FileErrorCodes.FILE_TOO_LARGE, code(() -> small.write("w.txt", "x".repeat(21))));
        assertEquals(FileErrorCodes.FILE_TOO_LARGE, code(() -> small.create("c.txt", EntryType.FILE, "x".repeat(21))));
        small.write("w.txt", "x".repeat(20));
        Files.writeString(root.resolve("fourth.txt"), "");
        assertEquals(FileErrorCodes.TOO_MANY_ENTRIES, code(() -> small.list("")));
        Files.createDirectories(root.resolve("three"));
        for (int i = 0; i < 3; i++) {
            Files.writeString(root.resolve("three/" + i), "");
        }
        assertEquals(3, small.list("three").size());
        assertFalse(Files.exists(root.resolve("c.txt")));
    }

    @Test
    void writesAreAtomicAndKeepPermissions() throws Exception {
        Path script = root.resolve("run.sh");
        Files.writeString(script, "#!/bin/sh\necho old\n");
        Files.setPosixFilePermissions(script, PosixFilePermissions.fromString("rwxr-x---"));
        Object inodeBefore = Files.readAttributes(script, "unix:ino").get("ino");
        files.write("run.sh", "#!/bin/sh\necho new\n");
        assertEquals("#!/bin/sh\necho new\n", Files.readString(script));
        assertEquals("rwxr-x---", PosixFilePermissions.toString(Files.getPosixFilePermissions(script)));
        // Replaced by rename, not rewritten in place: a reader holding the old file never sees half of the new.
        assertFalse(inodeBefore.equals(Files.readAttributes(script, "unix:ino").get("ino")));
        assertNoTemporaryFiles();
    }

    @Test
    void symbolicLinksInsideTheProjectAreFollowedForContentAndNotForDeletion() throws Exception {
        files.create("real/target.txt", EntryType.FILE, "target");
        Files.createSymbolicLink(root.resolve("link.txt"), Path.of("real/target.txt"));
        Files.createSymbolicLink(root.resolve("dirlink"), Path.of("real"));
        assertEquals(List.of(new FileEntry("dirlink", "dirlink", EntryType.DIRECTORY, null),
                new FileEntry("real", "real", EntryType.DIRECTORY, null),
                new FileEntry("link.txt", "link.txt", EntryType.FILE, 6L)), files.list(""));
        assertEquals("target", files.read("link.txt").content());
        assertEquals("target", files.read("dirlink/target.txt").content());
        files.write("link.txt", "via link");
        assertTrue(Files.isSymbolicLink(root.resolve("link.txt")));
        assertEquals("via link", Files.readString(root.resolve("real/target.txt")));
        assertEquals(new DeleteResult("dirlink", EntryType.FILE, false, 1),
                files.delete("dirlink", EntryType.DIRECTORY));
        assertTrue(Files.exists(root.resolve("real/target.txt")));
        files.rename("link.txt", "renamed-link.txt");
        assertTrue(Files.isSymbolicLink(root.resolve("renamed-link.txt")));
        assertEquals(Path.of("real/target.txt"), Files.readSymbolicLink(root.resolve("renamed-link.txt")));
    }

    private void assertNoTemporaryFiles() throws Exception {
        try (Stream<Path> all = Files.walk(root)) {
            assertEquals(List.of(), all.filter(p -> p.getFileName().toString().startsWith(".aw-")).toList());
        }
        assertTrue(Files.exists(root, LinkOption.NOFOLLOW_LINKS));
        assertThrows(IllegalArgumentException.class, () -> ProjectFiles.create(tmp.resolve("missing")));
    }
}
