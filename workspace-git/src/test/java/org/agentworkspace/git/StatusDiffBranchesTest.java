package org.agentworkspace.git;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;

import org.agentworkspace.api.WorkspaceException;
import org.agentworkspace.api.files.RelativePath;
import org.agentworkspace.api.vcs.Branches;
import org.agentworkspace.api.vcs.DiffRequest;
import org.agentworkspace.api.vcs.DiffResult;
import org.agentworkspace.api.vcs.Vcs;
import org.agentworkspace.api.vcs.VcsErrorCodes;
import org.agentworkspace.api.vcs.VcsOptions;
import org.agentworkspace.api.vcs.VcsStatus;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Status, diff and branches compared with what {@code git} itself prints for the same repository. */
class StatusDiffBranchesTest {
    @TempDir
    Path tmp;
    Fixture fx;

    @BeforeEach
    void setUp() {
        fx = new Fixture(tmp);
    }

    /** A repository holding one path in every index/working-tree state the status javadoc names. */
    private Path messyRepo() throws Exception {
        Path repo = fx.repo("proj", "a.txt", "a\n", "b.txt", "b\n", "c.txt", "c\n", "d.txt", "d\n", "e.txt", "e\n",
                "f.txt", "f\n", "g.txt", "g\n", "dir/h.txt", "h\n", ".gitignore", "*.log\n", "space name.txt", "s\n");
        Fixture.write(repo, "a.txt", "a changed in the working tree\n");                  // " M"
        Fixture.write(repo, "b.txt", "b staged\n");                                       // "M "
        fx.git.out(repo, "add", "b.txt");
        Fixture.write(repo, "c.txt", "c staged\n");                                       // "MM"
        fx.git.out(repo, "add", "c.txt");
        Fixture.write(repo, "c.txt", "c staged and changed again\n");
        Files.delete(repo.resolve("d.txt"));                                              // " D"
        fx.git.out(repo, "rm", "-q", "e.txt");                                            // "D "
        Fixture.write(repo, "f.txt", "f staged then removed\n");                          // "MD"
        fx.git.out(repo, "add", "f.txt");
        Files.delete(repo.resolve("f.txt"));
        Fixture.write(repo, "new1.txt", "n1\n");                                          // "A "
        Fixture.write(repo, "new2.txt", "n2\n");                                          // "AM"
        Fixture.write(repo, "new3.txt", "n3\n");                                          // "AD"
        fx.git.out(repo, "add", "new1.txt", "new2.txt", "new3.txt");
        Fixture.write(repo, "new2.txt", "n2 changed after add\n");
        Files.delete(repo.resolve("new3.txt"));
        fx.git.out(repo, "rm", "-q", "--cached", "g.txt");                                // "D " and "??"
        Files.delete(repo.resolve("dir/h.txt"));                                          // " T"
        Files.createSymbolicLink(repo.resolve("dir/h.txt"), Path.of("../a.txt"));
        Fixture.write(repo, "untracked.txt", "u\n");                                      // "??"
        Fixture.write(repo, "newdir/x.txt", "x\n");
        Fixture.write(repo, "newdir/sub/y.txt", "y\n");
        Fixture.write(repo, "debug.log", "ignored\n");                                    // ignored
        Fixture.write(repo, "space name.txt", "s changed\n");
        return repo;
    }

    /** The documented sorting rule, applied to git's own two-letter codes. */
    private VcsStatus expectedFromGit(Path repo, String branch, int ahead, int behind) {
        String out = fx.git.out(repo, "status", "--porcelain=v1", "-z", "--untracked-files=all", "--no-renames");
        TreeSet<String> modified = new TreeSet<>();
        TreeSet<String> added = new TreeSet<>();
        TreeSet<String> deleted = new TreeSet<>();
        TreeSet<String> untracked = new TreeSet<>();
        TreeSet<String> staged = new TreeSet<>();
        for (String entry : Fixture.nulSplit(out)) {
            char x = entry.charAt(0);
            char y = entry.charAt(1);
            String path = entry.substring(3);
            String xy = "" + x + y;
            boolean unmerged = x == 'U' || y == 'U' || xy.equals("AA") || xy.equals("DD");
            if (!unmerged && "MTAD".indexOf(x) >= 0) {
                staged.add(path);
            }
            if (xy.equals("??")) {
                untracked.add(path);
            } else if (x == 'U' || y == 'U' || xy.equals("AA") || xy.equals("DD")) {
                modified.add(path);
            } else if (x == 'D' || y == 'D') {
                deleted.add(path);
            } else if (x == 'A') {
                added.add(path);
            } else {
                modified.add(path);
            }
        }
        return new VcsStatus(branch, ahead, behind, List.copyOf(modified), List.copyOf(added), List.copyOf(deleted),
                List.copyOf(untracked), List.copyOf(staged));
    }

    @Test
    void statusSortsEveryStateLikeGitPorcelain() throws Exception {
        Path repo = messyRepo();
        VcsStatus expected = expectedFromGit(repo, "main", 0, 0);
        try (Vcs vcs = fx.open(repo)) {
            VcsStatus actual = vcs.status();
            assertEquals(expected, actual);
            // Spot checks, so a shared mistake in both readings cannot hide.
            assertEquals(List.of("a.txt", "b.txt", "c.txt", "dir/h.txt", "space name.txt"), actual.modified());
            assertEquals(List.of("new1.txt", "new2.txt"), actual.added());
            assertEquals(List.of("d.txt", "e.txt", "f.txt", "g.txt", "new3.txt"), actual.deleted());
            assertEquals(List.of("g.txt", "newdir/sub/y.txt", "newdir/x.txt", "untracked.txt"), actual.untracked());
        }
    }

    @Test
    void statusOfCleanAndEmptyRepositories() throws Exception {
        Path empty = fx.repo("empty");
        try (Vcs vcs = fx.open(empty)) {
            assertEquals(new VcsStatus("main", 0, 0, List.of(), List.of(), List.of(), List.of(), List.of()), vcs.status());
        }
        Fixture.write(empty, "first.txt", "1\n");
        fx.git.out(empty, "add", "first.txt");
        try (Vcs vcs = fx.open(empty)) {
            assertEquals(expectedFromGit(empty, "main", 0, 0), vcs.status());
            assertEquals(List.of("first.txt"), vcs.status().added());
        }
        Path clean = fx.repo("clean", "x.txt", "x\n");
        try (Vcs vcs = fx.open(clean)) {
            assertEquals(new VcsStatus("main", 0, 0, List.of(), List.of(), List.of(), List.of(), List.of()), vcs.status());
        }
    }

    @Test
    void aheadAndBehindMatchRevList() throws Exception {
        Path repo = fx.repo("proj", "a.txt", "a\n");
        Path remote = fx.bareRemote(repo, "remote.git");
        Path other = fx.clone(remote, "other");
        for (int i = 0; i < 3; i++) {
            Fixture.write(other, "o" + i + ".txt", "o\n");
            fx.git.out(other, "add", "-A");
            fx.git.out(other, "commit", "-q", "-m", "other " + i);
        }
        fx.git.out(other, "push", "-q", "origin", "main");
        for (int i = 0; i < 2; i++) {
            Fixture.write(repo, "l" + i + ".txt", "l\n");
            fx.git.out(repo, "add", "-A");
            fx.git.out(repo, "commit", "-q", "-m", "local " + i);
        }
        fx.git.out(repo, "fetch", "-q", "origin");
        String[] counts = fx.git.out(repo, "rev-list", "--left-right", "--count", "main...origin/main").strip()
                .split("\\s+");
        try (Vcs vcs = fx.open(repo)) {
            VcsStatus status = vcs.status();
            assertEquals(Integer.parseInt(counts[0]), status.ahead());
            assertEquals(Integer.parseInt(counts[1]), status.behind());
            assertEquals(2, status.ahead());
            assertEquals(3, status.behind());
        }
    }

    @Test
    void detachedHeadAndUnmergedPaths() throws Exception {
        Path repo = fx.repo("proj", "a.txt", "base\n");
        fx.git.out(repo, "checkout", "-q", "-b", "side");
        Fixture.write(repo, "a.txt", "side\n");
        fx.git.out(repo, "commit", "-q", "-am", "side");
        fx.git.out(repo, "checkout", "-q", "main");
        Fixture.write(repo, "a.txt", "main\n");
        fx.git.out(repo, "commit", "-q", "-am", "main");
        assertEquals(1, fx.git.run(repo, "merge", "-q", "side").exit());
        try (Vcs vcs = fx.open(repo)) {
            VcsStatus status = vcs.status();
            assertEquals(expectedFromGit(repo, "main", 0, 0), status);
            assertEquals(List.of("a.txt"), status.modified());
        }
        fx.git.out(repo, "merge", "--abort");
        fx.git.out(repo, "checkout", "-q", "--detach", "HEAD~1");
        try (Vcs vcs = fx.open(repo)) {
            assertEquals("HEAD", vcs.status().branch());
            assertEquals("HEAD", vcs.branches().current());
        }
    }

    private String gitDiff(Path repo, boolean staged, String... paths) {
        List<String> args = new ArrayList<>(List.of("diff", "--no-renames", "--no-color", "--no-ext-diff",
                "--abbrev=7"));
        if (staged) {
            args.add("--cached");
        }
        args.add("--");
        args.addAll(List.of(paths));
        return fx.git.out(repo, args.toArray(String[]::new));
    }

    private Path diffRepo() throws Exception {
        StringBuilder longText = new StringBuilder();
        for (int i = 0; i < 200; i++) {
            longText.append("line ").append(i).append('\n');
        }
        Path repo = fx.repo("proj", "long.txt", longText.toString(), "small.txt", "one\ntwo\nthree\n",
                "gone.txt", "bye\n", "staged-gone.txt", "bye\n", "noeol.txt", "no newline", "bin.dat", "x",
                "dir/nested.txt", "n\n", "unicodé.txt", "u\n", "with space.txt", "s\n", "gone space.txt", "g\n");
        Fixture.write(repo, "long.txt", longText.toString().replace("line 10\n", "line ten\n")
                .replace("line 150\n", "line 150\nline 150b\n").replace("line 199\n", ""));
        Fixture.write(repo, "small.txt", "one\n2\nthree\nfour\n");
        Files.delete(repo.resolve("gone.txt"));
        fx.git.out(repo, "rm", "-q", "staged-gone.txt");
        Fixture.write(repo, "noeol.txt", "no newline, changed");
        Fixture.write(repo, "bin.dat", new byte[] {0, 1, 2, 3, 0, 5});
        Fixture.write(repo, "dir/nested.txt", "n\nstaged\n");
        Fixture.write(repo, "unicodé.txt", "u2\n");
        // git ends ---/+++ lines whose name holds a space with a tab
        Fixture.write(repo, "with space.txt", "s2\n");
        Files.delete(repo.resolve("gone space.txt"));
        Fixture.write(repo, "new space.txt", "n\n");
        fx.git.out(repo, "add", "new space.txt");
        Fixture.write(repo, "staged-new.txt", "fresh\n");
        fx.git.out(repo, "add", "dir/nested.txt", "staged-new.txt");
        Fixture.write(repo, "dir/nested.txt", "n\nstaged\nand unstaged\n");
        Fixture.write(repo, "untracked.txt", "never in git diff\n");
        return repo;
    }

    @Test
    void wholeTreeDiffsEqualGitDiff() throws Exception {
        Path repo = diffRepo();
        try (Vcs vcs = fx.open(repo)) {
            DiffResult unstaged = vcs.diff(DiffRequest.wholeTree(false));
            assertEquals(gitDiff(repo, false), unstaged.diff());
            assertFalse(unstaged.truncated());
            assertFalse(unstaged.diff().contains("untracked.txt"));
            DiffResult staged = vcs.diff(DiffRequest.wholeTree(true));
            assertEquals(gitDiff(repo, true), staged.diff());
            assertTrue(staged.diff().contains("staged-new.txt"));
        }
    }

    @Test
    void singleFileAndDirectoryDiffsEqualGitDiff() throws Exception {
        Path repo = diffRepo();
        try (Vcs vcs = fx.open(repo)) {
            for (String path : List.of("long.txt", "small.txt", "gone.txt", "noeol.txt", "bin.dat", "dir",
                    "dir/nested.txt", "untracked.txt", "does-not-exist.txt", "unicodé.txt")) {
                for (boolean staged : new boolean[] {false, true}) {
                    assertEquals(gitDiff(repo, staged, path),
                            vcs.diff(DiffRequest.of(RelativePath.parse(path), staged)).diff(),
                            path + (staged ? " staged" : ""));
                }
            }
        }
    }

    @Test
    void stagedDiffOnAnUnbornBranch() throws Exception {
        Path repo = fx.repo("fresh");
        Fixture.write(repo, "a.txt", "a\n");
        fx.git.out(repo, "add", "a.txt");
        try (Vcs vcs = fx.open(repo)) {
            assertEquals(gitDiff(repo, true), vcs.diff(DiffRequest.wholeTree(true)).diff());
            assertEquals("", vcs.diff(DiffRequest.wholeTree(false)).diff());
        }
    }

    @Test
    void largeDiffIsCutAtALineAndSaysSo() throws Exception {
        Path repo = diffRepo();
        String full = gitDiff(repo, false);
        int limit = 700;
        try (Vcs vcs = fx.open(repo, VcsOptions.defaults().withMaxDiffBytes(limit))) {
            DiffResult cut = vcs.diff(DiffRequest.wholeTree(false));
            assertTrue(cut.truncated());
            assertTrue(cut.diff().getBytes(StandardCharsets.UTF_8).length <= limit);
            assertTrue(cut.diff().endsWith("\n"));
            assertTrue(full.startsWith(cut.diff()));
            assertTrue(cut.diff().length() > limit / 2);
        }
        try (Vcs vcs = fx.open(repo, VcsOptions.defaults().withMaxDiffBytes(full.getBytes(StandardCharsets.UTF_8)
                .length))) {
            DiffResult exact = vcs.diff(DiffRequest.wholeTree(false));
            assertFalse(exact.truncated());
            assertEquals(full, exact.diff());
        }
    }

    @Test
    void diffRefusesPathsInsideDotGit() throws Exception {
        Path repo = fx.repo("proj", "a.txt", "a\n");
        try (Vcs vcs = fx.open(repo)) {
            WorkspaceException e = assertThrows(WorkspaceException.class,
                    () -> vcs.diff(DiffRequest.of(RelativePath.parse(".git/config"), false)));
            assertEquals("INVALID_PATH", e.code());
        }
    }

    @Test
    void branchesEqualForEachRef() throws Exception {
        Path repo = fx.repo("proj", "a.txt", "a\n");
        Path remote = fx.bareRemote(repo, "remote.git");
        fx.git.out(repo, "branch", "feature/one");
        fx.git.out(repo, "branch", "zeta");
        fx.git.out(repo, "push", "-q", "origin", "feature/one");
        Path other = fx.clone(remote, "other");
        fx.git.out(other, "push", "-q", "origin", "main:remote-only");
        fx.git.out(repo, "fetch", "-q", "origin");
        fx.git.out(repo, "remote", "set-head", "origin", "main");
        fx.git.out(repo, "checkout", "-q", "zeta");
        try (Vcs vcs = fx.open(repo)) {
            Branches branches = vcs.branches();
            assertEquals(fx.git.out(repo, "branch", "--show-current").strip(), branches.current());
            assertEquals(Fixture.lines(fx.git.out(repo, "for-each-ref", "--format=%(refname:lstrip=2)",
                    "refs/heads")), branches.local());
            List<String> remotes = new ArrayList<>();
            for (String line : Fixture.lines(fx.git.out(repo, "for-each-ref",
                    "--format=%(symref)|%(refname:lstrip=2)", "refs/remotes"))) {
                if (line.startsWith("|")) {
                    remotes.add(line.substring(1));
                }
            }
            assertEquals(remotes, branches.remote());
            assertEquals(List.of("feature/one", "main", "zeta"), branches.local());
            assertEquals(List.of("origin/feature/one", "origin/main", "origin/remote-only"), branches.remote());
        }
    }

    @Test
    void openRefusesWhatIsNotAWorkingTreeRoot() throws Exception {
        Path repo = fx.repo("proj", "sub/a.txt", "a\n");
        Path plain = Files.createDirectories(tmp.resolve("plain"));
        Path bare = tmp.resolve("bare.git");
        fx.git.out(tmp, "init", "-q", "--bare", bare.toString());
        Path linked = Files.createDirectories(tmp.resolve("linked"));
        Files.createSymbolicLink(linked.resolve(".git"), repo.resolve(".git"));
        for (Path dir : List.of(plain, bare, repo.resolve("sub"), linked, tmp.resolve("missing"))) {
            WorkspaceException e = assertThrows(WorkspaceException.Conflict.class, () -> fx.open(dir).close(),
                    dir.toString());
            assertEquals(VcsErrorCodes.NOT_A_GIT_REPOSITORY, e.code());
            assertFalse(fx.factory.isRepository(dir));
        }
        assertTrue(fx.factory.isRepository(repo));
    }
}
