package org.agentworkspace.git;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.util.List;

import org.agentworkspace.api.WorkspaceException;
import org.agentworkspace.api.files.FileErrorCodes;
import org.agentworkspace.api.vcs.RestoreResult;
import org.agentworkspace.api.vcs.Snapshot;
import org.agentworkspace.api.vcs.TreeChange;
import org.agentworkspace.api.vcs.TreeChanges;
import org.agentworkspace.api.vcs.Vcs;
import org.agentworkspace.api.vcs.VcsErrorCodes;
import org.agentworkspace.api.vcs.WorkingTreeState;
import org.agentworkspace.testkit.git.GitCli;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Working-tree snapshots on private refs against real repositories, checked with {@code git}: what is recorded
 * (tracked with unstaged edits, untracked, not ignored, modes and links), that nothing the user sees changes, the
 * restore of contents, modes, links and file/folder swaps, the changes between two snapshots, and the refusals.
 */
class SnapshotTest {
    @TempDir
    Path tmp;
    Fixture fx;

    @BeforeEach
    void setUp() {
        fx = new Fixture(tmp);
    }

    @Test
    void aSnapshotRecordsTheWorkingTreeAndTouchesNothing() throws Exception {
        Path repo = fx.repo("proj", "a.txt", "a\n", "keep/b.txt", "b\n", ".gitignore", "build/\n*.tmp\n");
        Fixture.write(repo, "a.txt", "a edited\n");
        Fixture.write(repo, "new/c.txt", "c\n");
        Fixture.write(repo, "build/out.bin", "ignored\n");
        Fixture.write(repo, "x.tmp", "ignored\n");
        Fixture.write(repo, "run.sh", "#!/bin/sh\n");
        Files.setPosixFilePermissions(repo.resolve("run.sh"), java.util.Set.of(PosixFilePermission.OWNER_READ,
                PosixFilePermission.OWNER_WRITE, PosixFilePermission.OWNER_EXECUTE));
        Files.createSymbolicLink(repo.resolve("link"), Path.of("a.txt"));
        String status = fx.git.out(repo, "status", "--porcelain");
        String index = fx.git.out(repo, "ls-files", "-s", "--debug");
        String head = fx.git.out(repo, "rev-parse", "HEAD").strip();
        Snapshot s;
        try (Vcs vcs = fx.open(repo)) {
            s = vcs.snapshot("refs/agent-workspace/checkpoints/t1", "label: one\n");
            assertEquals(List.of(s), vcs.snapshots("refs/agent-workspace/checkpoints/"));
            WorkingTreeState now = vcs.workingTree();
            assertEquals(s.tree(), now.tree(), "an unchanged working tree records the same tree");
            assertFalse(now.clean());
        }
        assertEquals(status, fx.git.out(repo, "status", "--porcelain"));
        assertEquals(index, fx.git.out(repo, "ls-files", "-s", "--debug"), "the index file is not rewritten");
        assertEquals(head, fx.git.out(repo, "rev-parse", "HEAD").strip());
        assertEquals(head, fx.git.out(repo, "rev-parse", s.commit() + "^").strip());
        assertEquals(s.tree(), fx.git.out(repo, "rev-parse", s.ref() + "^{tree}").strip());
        assertEquals("label: one\n", fx.git.out(repo, "log", "-1", "--format=%B", s.ref()).replaceAll("\n+$", "\n"));
        assertEquals(List.of("100644 blob .gitignore", "100644 blob a.txt", "100644 blob keep/b.txt",
                        "120000 blob link", "100644 blob new/c.txt", "100755 blob run.sh"),
                GitCli.lines(fx.git.out(repo, "ls-tree", "-r", "--format=%(objectmode) %(objecttype) %(path)",
                        s.ref())));
        assertEquals("a edited\n", fx.git.out(repo, "show", s.ref() + ":a.txt"));
        assertEquals("a.txt", fx.git.out(repo, "show", s.ref() + ":link"));
        // git itself finds the recorded tree equal to `git add -A` of the same working tree
        fx.git.out(repo, "add", "-A");
        assertEquals(s.tree(), fx.git.out(repo, "write-tree").strip());
        try (Vcs vcs = fx.open(repo)) {
            assertTrue(vcs.workingTree().tree().equals(s.tree()));
        }
    }

    @Test
    void restoreBringsBackContentsModesLinksAndFolders() throws Exception {
        Path repo = fx.repo("proj", "a.txt", "a\n", "d/inner.txt", "inner\n", "f", "a file\n");
        Fixture.write(repo, "run.sh", "#!/bin/sh\n");
        Files.setPosixFilePermissions(repo.resolve("run.sh"), java.util.Set.of(PosixFilePermission.OWNER_READ,
                PosixFilePermission.OWNER_WRITE, PosixFilePermission.OWNER_EXECUTE));
        Files.createSymbolicLink(repo.resolve("link"), Path.of("a.txt"));
        Fixture.write(repo, "ignored.log", "stays\n");
        Fixture.write(repo, ".gitignore", "*.log\n");
        Snapshot s;
        try (Vcs vcs = fx.open(repo)) {
            s = vcs.snapshot("refs/agent-workspace/checkpoints/t2", "m");
        }
        // change everything: contents, mode, link target; a folder becomes a file and a file a folder
        Fixture.write(repo, "a.txt", "changed\n");
        Files.setPosixFilePermissions(repo.resolve("run.sh"), java.util.Set.of(PosixFilePermission.OWNER_READ,
                PosixFilePermission.OWNER_WRITE));
        Files.delete(repo.resolve("link"));
        Files.createSymbolicLink(repo.resolve("link"), Path.of("elsewhere"));
        fx.git.out(repo, "rm", "-q", "-r", "d");
        Fixture.write(repo, "d", "now a file\n");
        Files.delete(repo.resolve("f"));
        Fixture.write(repo, "f/deep/x.txt", "now a folder\n");
        Fixture.write(repo, "other.log", "ignored, stays\n");
        String headBefore = fx.git.out(repo, "rev-parse", "HEAD").strip();
        RestoreResult r;
        try (Vcs vcs = fx.open(repo)) {
            r = vcs.restoreSnapshot(s.ref());
            assertEquals(s.tree(), vcs.workingTree().tree(), "the working tree records the snapshot's tree again");
            TreeChanges none = vcs.changes(s.ref(), s.commit(), 10);
            assertEquals(0, none.total());
        }
        assertEquals("a\n", Files.readString(repo.resolve("a.txt")));
        assertTrue(Files.isExecutable(repo.resolve("run.sh")));
        assertEquals(Path.of("a.txt"), Files.readSymbolicLink(repo.resolve("link")));
        assertEquals("inner\n", Files.readString(repo.resolve("d/inner.txt")));
        assertEquals("a file\n", Files.readString(repo.resolve("f")));
        assertEquals("stays\n", Files.readString(repo.resolve("ignored.log")));
        assertEquals("ignored, stays\n", Files.readString(repo.resolve("other.log")));
        assertEquals(headBefore, fx.git.out(repo, "rev-parse", "HEAD").strip());
        assertTrue(r.written() >= 5, r.toString());
        assertEquals(2, r.deleted(), r.toString());
        try (var files = Files.list(repo)) {
            assertTrue(files.noneMatch(p -> p.getFileName().toString().startsWith(".aw-restore-")),
                    "no temporary file is left");
        }
    }

    @Test
    void changesBetweenSnapshotsAndRefusals() throws Exception {
        Path repo = fx.repo("proj", "a.txt", "a\n", "b.txt", "b\n");
        try (Vcs vcs = fx.open(repo)) {
            Snapshot before = vcs.snapshot("refs/agent-workspace/runs/r1/before", "before");
            Fixture.write(repo, "a.txt", "a2\n");
            Files.delete(repo.resolve("b.txt"));
            Fixture.write(repo, "c/new.txt", "c\n");
            Snapshot after = vcs.snapshot("refs/agent-workspace/runs/r1/after", "after");
            TreeChanges c = vcs.changes(before.ref(), after.ref(), 10);
            assertEquals(List.of(new TreeChange("a.txt", TreeChange.Kind.MODIFIED, 1, 1),
                    new TreeChange("b.txt", TreeChange.Kind.DELETED, 0, 1),
                    new TreeChange("c/new.txt", TreeChange.Kind.ADDED, 1, 0)), c.changes());
            // the same counts as git's --numstat, and the same diff as git's
            assertEquals(List.of("1\t1\ta.txt", "0\t1\tb.txt", "1\t0\tc/new.txt"), GitCli.lines(fx.git.out(repo,
                    "diff", "--numstat", "--no-renames", before.ref(), after.ref())));
            assertEquals(fx.git.out(repo, "diff", "--no-renames", "--no-ext-diff", "--abbrev=7", before.ref(),
                    after.ref()), vcs.diff(before.ref(), after.ref()).diff());
            assertFalse(vcs.diff(before.ref(), after.ref()).truncated());
            TreeChanges one = vcs.changes(before.ref(), after.ref(), 1);
            assertEquals(3, one.total());
            assertTrue(one.truncated());
            assertEquals(2, vcs.snapshots("refs/agent-workspace/runs/").size());

            WorkspaceException exists = assertThrows(WorkspaceException.class,
                    () -> vcs.snapshot(before.ref(), "again"));
            assertEquals(FileErrorCodes.FILE_EXISTS, exists.code());
            for (String bad : List.of("refs/heads/main", "HEAD", "refs/agent-workspace/../heads/x",
                    "refs/agent-workspace/a b")) {
                WorkspaceException e = assertThrows(WorkspaceException.class, () -> vcs.snapshot(bad, "m"));
                assertEquals(VcsErrorCodes.INVALID_REF_NAME, e.code(), bad);
            }
            assertThrows(WorkspaceException.class, () -> vcs.snapshots("refs/heads/"));
            assertThrows(WorkspaceException.NotFound.class,
                    () -> vcs.restoreSnapshot("refs/agent-workspace/checkpoints/none"));
            assertTrue(vcs.deleteSnapshot(before.ref()));
            assertFalse(vcs.deleteSnapshot(before.ref()));
            assertTrue(vcs.findSnapshot(before.ref()).isEmpty());
        }
        assertEquals("main", fx.git.out(repo, "rev-parse", "--abbrev-ref", "HEAD").strip());
    }

    @Test
    void aLargeUntrackedFileIsNeitherRecordedNorTouchedByARestore() throws Exception {
        Path repo = fx.repo("big", "a.txt", "a\n");
        Path big = repo.resolve("data.bin");
        try (var out = java.nio.channels.FileChannel.open(big, java.nio.file.StandardOpenOption.CREATE_NEW,
                java.nio.file.StandardOpenOption.WRITE)) {
            out.write(java.nio.ByteBuffer.wrap("first".getBytes(java.nio.charset.StandardCharsets.UTF_8)),
                    JGitSnapshots.MAX_UNTRACKED_BYTES); // one byte past the limit and more
        }
        Fixture.write(repo, "small.bin", "small\n");
        try (Vcs vcs = fx.open(repo)) {
            Snapshot s = vcs.snapshot("refs/agent-workspace/checkpoints/big", "big");
            assertEquals(List.of("a.txt", "small.bin"), GitCli.lines(fx.git.out(repo, "ls-tree", "-r",
                    "--name-only", s.ref())));
            // not copied into the objects either
            String bigId = fx.git.out(repo, "hash-object", "data.bin").strip();
            assertTrue(fx.git.run(repo, "cat-file", "-e", bigId).exit() != 0, "the big file is not in the objects");
            // a restore to it leaves the big file as it is (neither deleted nor rewritten)
            Fixture.write(repo, "small.bin", "changed\n");
            vcs.restoreSnapshot(s.ref());
            assertEquals("small\n", Files.readString(repo.resolve("small.bin")));
            assertEquals(JGitSnapshots.MAX_UNTRACKED_BYTES + 5, Files.size(big));
        }
    }

    @Test
    void aRefusedRestoreChangesNothingAndRestoredFilesKeepUsualModes() throws Exception {
        Path repo = fx.repo("forged", "keep.txt", "keep\n", "s/s.txt", "s\n");
        // a snapshot ref written by someone else, holding a ".." entry
        String blob = fx.git.run(repo, "hash-object", "-w", "keep.txt").out().strip();
        Path list = tmp.resolve("mktree.txt");
        Files.writeString(list, "100644 blob " + blob + "\tconfig\n");
        var mk = new ProcessBuilder("git", "mktree").directory(repo.toFile()).redirectInput(list.toFile()).start();
        String sub = new String(mk.getInputStream().readAllBytes()).strip();
        Files.writeString(list, "040000 tree " + sub + "\t..\n100644 blob " + blob + "\tkeep.txt\n");
        mk = new ProcessBuilder("git", "mktree").directory(repo.toFile()).redirectInput(list.toFile()).start();
        String top = new String(mk.getInputStream().readAllBytes()).strip();
        assertTrue(top.matches("[0-9a-f]{40}"), "git mktree gave " + top);
        String commit = fx.git.run(repo, "commit-tree", top, "-p", "HEAD", "-m", "forged").out().strip();
        fx.git.out(repo, "update-ref", "refs/agent-workspace/checkpoints/forged", commit);
        try (Vcs vcs = fx.open(repo)) {
            WorkspaceException e = assertThrows(WorkspaceException.class,
                    () -> vcs.restoreSnapshot("refs/agent-workspace/checkpoints/forged"));
            assertEquals(FileErrorCodes.PATH_OUTSIDE_PROJECT, e.code());
        }
        assertEquals("s\n", Files.readString(repo.resolve("s/s.txt")), "nothing was deleted before the refusal");
        assertEquals("", fx.git.out(repo, "status", "--porcelain"));

        // modes: a rewritten file keeps its mode, a new one gets rw-r--r--, an executable rwxr-xr-x
        Files.setPosixFilePermissions(repo.resolve("keep.txt"), java.nio.file.attribute.PosixFilePermissions
                .fromString("rw-r--r--"));
        Fixture.write(repo, "tool.sh", "#!/bin/sh\n");
        Files.setPosixFilePermissions(repo.resolve("tool.sh"), java.nio.file.attribute.PosixFilePermissions
                .fromString("rwxr-xr-x"));
        try (Vcs vcs = fx.open(repo)) {
            Snapshot snap = vcs.snapshot("refs/agent-workspace/checkpoints/modes", "modes");
            Files.writeString(repo.resolve("keep.txt"), "changed\n");
            Files.delete(repo.resolve("tool.sh"));
            Files.delete(repo.resolve("s/s.txt"));
            vcs.restoreSnapshot(snap.ref());
        }
        assertEquals("rw-r--r--", java.nio.file.attribute.PosixFilePermissions.toString(
                Files.getPosixFilePermissions(repo.resolve("keep.txt"))));
        assertEquals("rw-r--r--", java.nio.file.attribute.PosixFilePermissions.toString(
                Files.getPosixFilePermissions(repo.resolve("s/s.txt"))));
        assertEquals("rwxr-xr-x", java.nio.file.attribute.PosixFilePermissions.toString(
                Files.getPosixFilePermissions(repo.resolve("tool.sh"))));
    }

    @Test
    void aRepositoryWithoutCommitsHasNoHeadTree() throws Exception {
        Path repo = tmp.resolve("empty");
        fx.git.out(tmp, "init", "-q", "-b", "main", repo.toString());
        Fixture.write(repo, "first.txt", "1\n");
        try (Vcs vcs = fx.open(repo)) {
            WorkingTreeState w = vcs.workingTree();
            assertNull(w.headTree());
            assertFalse(w.clean());
            Snapshot s = vcs.snapshot("refs/agent-workspace/checkpoints/e", "m");
            assertEquals(w.tree(), s.tree());
            assertEquals(1, fx.git.run(repo, "rev-parse", "-q", "--verify", s.commit() + "^").exit(),
                    "no parent");
        }
    }

    @Test
    void aRestoreNeverWritesThroughALinkOutOfTheWorkingTree() throws Exception {
        Path repo = fx.repo("proj", "a.txt", "a\n");
        Path outside = Files.createDirectories(tmp.resolve("outside"));
        Fixture.write(repo, "esc/pwned.txt", "inside\n");
        try (Vcs vcs = fx.open(repo)) {
            vcs.snapshot("refs/agent-workspace/checkpoints/t3", "m");
        }
        // the folder is replaced by an ignored link to a folder outside: git does not see it, so the restore must
        // not write the snapshot's esc/pwned.txt through it
        fx.git.out(repo, "rm", "-q", "-r", "--cached", "--ignore-unmatch", "esc");
        deleteTree(repo.resolve("esc"));
        Files.createSymbolicLink(repo.resolve("esc"), outside);
        Fixture.write(repo, ".git/info/exclude", "esc\n");
        try (Vcs vcs = fx.open(repo)) {
            WorkspaceException e = assertThrows(WorkspaceException.class,
                    () -> vcs.restoreSnapshot("refs/agent-workspace/checkpoints/t3"));
            assertEquals(FileErrorCodes.PATH_OUTSIDE_PROJECT, e.code(), e.getMessage());
        }
        assertFalse(Files.exists(outside.resolve("pwned.txt")), "nothing was written outside");
    }

    private static void deleteTree(Path dir) throws Exception {
        try (var walk = Files.walk(dir)) {
            for (Path p : walk.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }
}
