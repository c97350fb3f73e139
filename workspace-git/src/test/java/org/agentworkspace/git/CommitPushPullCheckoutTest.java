package org.agentworkspace.git;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.agentworkspace.api.WorkspaceException;
import org.agentworkspace.api.files.FileErrorCodes;
import org.agentworkspace.api.files.RelativePath;
import org.agentworkspace.api.vcs.CheckoutResult;
import org.agentworkspace.api.vcs.CommitRequest;
import org.agentworkspace.api.vcs.CommitResult;
import org.agentworkspace.api.vcs.PullResult;
import org.agentworkspace.api.vcs.PushRequest;
import org.agentworkspace.api.vcs.PushResult;
import org.agentworkspace.api.vcs.Vcs;
import org.agentworkspace.api.vcs.VcsErrorCodes;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Commit, push, pull and checkout against real repositories and bare remotes, checked with {@code git}. */
class CommitPushPullCheckoutTest {
    @TempDir
    Path tmp;
    Fixture fx;

    @BeforeEach
    void setUp() {
        fx = new Fixture(tmp);
    }

    private static List<RelativePath> paths(String... values) {
        return java.util.Arrays.stream(values).map(RelativePath::parse).toList();
    }

    private String head(Path repo) {
        return fx.git.out(repo, "rev-parse", "HEAD").strip();
    }

    // ------------------------------------------------------------ commit

    @Test
    void commitOfEverythingStaged() throws Exception {
        Path repo = fx.repo("proj", "a.txt", "a\n", "b.txt", "b\n");
        Fixture.write(repo, "a.txt", "a2\n");
        Fixture.write(repo, "c.txt", "c\n");
        fx.git.out(repo, "add", "a.txt", "c.txt");
        Fixture.write(repo, "b.txt", "b2 not staged\n");
        CommitResult result;
        try (Vcs vcs = fx.open(repo)) {
            result = vcs.commit(CommitRequest.staged("Add c, change a  \n\n\n\nbody line   \n", Fixture.AUTHOR));
        }
        assertEquals(head(repo), result.commitId());
        assertEquals("main", result.branch());
        assertEquals(List.of("M\ta.txt", "A\tc.txt"),
                Fixture.lines(fx.git.out(repo, "show", "--name-status", "--format=", "HEAD")));
        assertEquals("Api Author <api@example.com>|Api Author <api@example.com>",
                fx.git.out(repo, "log", "-1", "--format=%an <%ae>|%cn <%ce>").strip());
        assertEquals("Add c, change a\n\nbody line\n", fx.git.out(repo, "log", "-1", "--format=%B").replaceAll(
                "\n+$", "\n"));
        assertEquals(" M b.txt\n", fx.git.out(repo, "status", "--porcelain=v1"));
        assertEquals("", fx.git.out(repo, "fsck", "--no-progress").strip());
    }

    @Test
    void commitOfNamedFilesTakesExactlyThoseAndLeavesTheRestStaged() throws Exception {
        Path repo = fx.repo("proj", "a.txt", "a\n", "b.txt", "b\n", "gone.txt", "g\n", "dir/d1.txt", "1\n");
        Fixture.write(repo, "a.txt", "a2\n");               // modified, not staged: named
        Fixture.write(repo, "b.txt", "b2\n");               // staged: not named, must stay staged
        fx.git.out(repo, "add", "b.txt");
        Fixture.write(repo, "new.txt", "n\n");              // untracked: named
        Files.delete(repo.resolve("gone.txt"));             // deleted: named
        Fixture.write(repo, "dir/d2.txt", "2\n");           // new file under a named directory
        Fixture.write(repo, "other.txt", "o\n");            // untracked, not named
        try (Vcs vcs = fx.open(repo)) {
            vcs.commit(CommitRequest.ofFiles("named files", paths("a.txt", "new.txt", "gone.txt", "dir"),
                    Fixture.AUTHOR));
        }
        assertEquals(List.of("M\ta.txt", "A\tdir/d2.txt", "D\tgone.txt", "A\tnew.txt"),
                Fixture.lines(fx.git.out(repo, "show", "--name-status", "--format=", "HEAD")));
        assertEquals(List.of("M  b.txt", "?? other.txt"), Fixture.lines(fx.git.out(repo, "status",
                "--porcelain=v1")));
        assertEquals("b2\n", fx.git.out(repo, "show", ":b.txt"));
    }

    @Test
    void commitRefusals() throws Exception {
        Path repo = fx.repo("proj", "a.txt", "a\n", ".gitignore", "*.log\n");
        Fixture.write(repo, "x.log", "ignored\n");
        String before = head(repo);
        try (Vcs vcs = fx.open(repo)) {
            assertEquals(VcsErrorCodes.NOTHING_TO_COMMIT, assertThrows(WorkspaceException.Conflict.class,
                    () -> vcs.commit(CommitRequest.staged("nothing", Fixture.AUTHOR))).code());
            assertEquals(VcsErrorCodes.NOTHING_TO_COMMIT, assertThrows(WorkspaceException.Conflict.class,
                    () -> vcs.commit(CommitRequest.ofFiles("unchanged", paths("a.txt"), Fixture.AUTHOR))).code());
            assertEquals(FileErrorCodes.FILE_NOT_FOUND, assertThrows(WorkspaceException.NotFound.class,
                    () -> vcs.commit(CommitRequest.ofFiles("m", paths("missing.txt"), Fixture.AUTHOR))).code());
            assertEquals(FileErrorCodes.INVALID_PATH, assertThrows(WorkspaceException.Validation.class,
                    () -> vcs.commit(CommitRequest.ofFiles("m", paths("x.log"), Fixture.AUTHOR))).code());
            assertEquals(FileErrorCodes.INVALID_PATH, assertThrows(WorkspaceException.Validation.class,
                    () -> vcs.commit(CommitRequest.ofFiles("m", paths(".git/config"), Fixture.AUTHOR))).code());
            assertThrows(WorkspaceException.Validation.class,
                    () -> vcs.commit(CommitRequest.staged("   \n", Fixture.AUTHOR)));
            assertThrows(WorkspaceException.Validation.class,
                    () -> vcs.commit(CommitRequest.staged("x".repeat(CommitRequest.MAX_MESSAGE_LENGTH + 1),
                            Fixture.AUTHOR)));
        }
        assertEquals(before, head(repo));
        Path empty = fx.repo("empty");
        try (Vcs vcs = fx.open(empty)) {
            assertEquals(VcsErrorCodes.NOTHING_TO_COMMIT, assertThrows(WorkspaceException.Conflict.class,
                    () -> vcs.commit(CommitRequest.staged("nothing", Fixture.AUTHOR))).code());
        }
        assertEquals(1, fx.git.run(empty, "rev-parse", "--verify", "-q", "HEAD").exit());
    }

    /** A repository in every state stage and unstage meet: modified, staged, new, deleted, below a folder. */
    private Path messy(String name) throws Exception {
        Path repo = fx.repo(name, "a.txt", "a\n", "b.txt", "b\n", "gone.txt", "g\n", "dir/d1.txt", "1\n",
                ".gitignore", "*.log\n");
        Fixture.write(repo, "a.txt", "a2\n");
        Fixture.write(repo, "b.txt", "b2\n");
        fx.git.out(repo, "add", "b.txt");
        Fixture.write(repo, "b.txt", "b3, longer than b2\n"); // another size: a same-second, same-size edit
        // is racily clean for JGit's index writer (a JGit limit, not stage's)
        Fixture.write(repo, "new.txt", "n\n");
        Files.delete(repo.resolve("gone.txt"));
        Fixture.write(repo, "dir/d2.txt", "2\n");
        Fixture.write(repo, "dir/sub/d3.txt", "3\n");
        Fixture.write(repo, "x.log", "ignored\n");
        return repo;
    }

    /** The index (mode, object, stage, path) and the porcelain status: equal when git and we did the same. */
    private String indexAndStatus(Path repo) {
        return fx.git.out(repo, "ls-files", "-s") + "\n" + fx.git.out(repo, "status", "--porcelain=v1",
                "--untracked-files=all");
    }

    @Test
    void stageAndUnstageDoWhatGitAddAndResetDo() throws Exception {
        Path ours = messy("ours");
        Path theirs = messy("theirs");
        try (Vcs vcs = fx.open(ours)) {
            vcs.stage(paths("a.txt", "gone.txt", "dir"));
            fx.git.out(theirs, "add", "-A", "--", "a.txt", "gone.txt", "dir");
            assertEquals(indexAndStatus(theirs), indexAndStatus(ours));
            assertEquals(List.of("a.txt", "b.txt", "dir/d2.txt", "dir/sub/d3.txt", "gone.txt"), vcs.status().staged());

            vcs.unstage(paths("a.txt", "dir/d2.txt", "gone.txt"));
            fx.git.out(theirs, "reset", "-q", "--", "a.txt", "dir/d2.txt", "gone.txt");
            assertEquals(indexAndStatus(theirs), indexAndStatus(ours));

            vcs.stage(List.of());
            fx.git.out(theirs, "add", "-A");
            assertEquals(indexAndStatus(theirs), indexAndStatus(ours));

            var status = vcs.unstage(List.of());
            fx.git.out(theirs, "reset", "-q");
            assertEquals(indexAndStatus(theirs), indexAndStatus(ours));
            assertEquals(List.of(), status.staged());

            assertEquals(FileErrorCodes.FILE_NOT_FOUND, assertThrows(WorkspaceException.NotFound.class,
                    () -> vcs.stage(paths("missing.txt"))).code());
            assertEquals(FileErrorCodes.INVALID_PATH, assertThrows(WorkspaceException.Validation.class,
                    () -> vcs.stage(paths("x.log"))).code());
            assertEquals(FileErrorCodes.FILE_NOT_FOUND, assertThrows(WorkspaceException.NotFound.class,
                    () -> vcs.unstage(paths("new.txt"))).code());
            assertEquals(FileErrorCodes.INVALID_PATH, assertThrows(WorkspaceException.Validation.class,
                    () -> vcs.stage(paths(".git/config"))).code());
        }
        assertEquals(indexAndStatus(theirs), indexAndStatus(ours));
        assertEquals("", fx.git.out(ours, "fsck", "--no-progress", "--no-dangling").strip()); // unstaged blobs dangle, as with git
    }

    @Test
    void unstageOnAnUnbornBranchTakesPathsOutOfTheIndex() throws Exception {
        Path ours = fx.repo("fresh-ours");
        Path theirs = fx.repo("fresh-theirs");
        for (Path repo : List.of(ours, theirs)) {
            Fixture.write(repo, "a.txt", "a\n");
            Fixture.write(repo, "b.txt", "b\n");
        }
        try (Vcs vcs = fx.open(ours)) {
            vcs.stage(List.of());
            fx.git.out(theirs, "add", "-A");
            vcs.unstage(paths("a.txt"));
            fx.git.out(theirs, "rm", "-q", "--cached", "a.txt");
            assertEquals(indexAndStatus(theirs), indexAndStatus(ours));
            vcs.commit(CommitRequest.staged("first", Fixture.AUTHOR));
        }
        assertEquals(List.of("A\tb.txt"), Fixture.lines(fx.git.out(ours, "show", "--name-status", "--format=",
                "HEAD")));
    }

    @Test
    void aCommitOfNothingStagedWhileFilesChangedSaysSo() throws Exception {
        Path repo = fx.repo("proj", "a.txt", "a\n");
        Fixture.write(repo, "a.txt", "a2\n");
        Fixture.write(repo, "new.txt", "n\n");
        String before = head(repo);
        try (Vcs vcs = fx.open(repo)) {
            WorkspaceException.Conflict e = assertThrows(WorkspaceException.Conflict.class,
                    () -> vcs.commit(CommitRequest.staged("nothing staged", Fixture.AUTHOR)));
            assertEquals(VcsErrorCodes.NOTHING_STAGED, e.code());
            assertTrue(e.getMessage().contains("2 paths have changes"), e.getMessage());
            assertEquals(before, head(repo));
            vcs.stage(paths("a.txt"));
            vcs.commit(CommitRequest.staged("staged one", Fixture.AUTHOR));
        }
        assertEquals(List.of("M\ta.txt"), Fixture.lines(fx.git.out(repo, "show", "--name-status", "--format=",
                "HEAD")));
        assertEquals("?? new.txt\n", fx.git.out(repo, "status", "--porcelain=v1"));
    }

    @Test
    void firstCommitOnAnUnbornBranch() throws Exception {
        Path repo = fx.repo("fresh");
        Fixture.write(repo, "a.txt", "a\n");
        try (Vcs vcs = fx.open(repo)) {
            vcs.commit(CommitRequest.ofFiles("first", paths("a.txt"), Fixture.AUTHOR));
        }
        assertEquals("first", fx.git.out(repo, "log", "--format=%s").strip());
        assertEquals("", fx.git.out(repo, "status", "--porcelain=v1"));
    }

    // ------------------------------------------------------------ push

    @Test
    void pushUpdatesTheRemoteAndSetsAnUpstream() throws Exception {
        Path repo = fx.repo("proj", "a.txt", "a\n");
        Path remote = fx.bareRemote(repo, "remote.git");
        Fixture.write(repo, "b.txt", "b\n");
        fx.git.out(repo, "add", "b.txt");
        fx.git.out(repo, "commit", "-q", "-m", "b");
        fx.git.out(repo, "checkout", "-q", "-b", "feature");
        Fixture.write(repo, "f.txt", "f\n");
        fx.git.out(repo, "add", "f.txt");
        fx.git.out(repo, "commit", "-q", "-m", "f");
        try (Vcs vcs = fx.open(repo)) {
            assertEquals(new PushResult("origin", "main", false), vcs.push(new PushRequest("origin", "main", false)));
            assertEquals(new PushResult("origin", "main", true), vcs.push(new PushRequest("origin", "main", false)));
            assertEquals(new PushResult("origin", "feature", false), vcs.push(PushRequest.currentBranch()));
        }
        assertEquals(fx.git.out(repo, "rev-parse", "main"), fx.git.out(remote, "rev-parse", "main"));
        assertEquals(fx.git.out(repo, "rev-parse", "feature"), fx.git.out(remote, "rev-parse", "feature"));
        assertEquals("origin/feature", fx.git.out(repo, "rev-parse", "--abbrev-ref", "feature@{upstream}").strip());
        assertEquals(fx.git.out(repo, "rev-parse", "feature"), fx.git.out(repo, "rev-parse", "origin/feature"));
        assertFalse(Fixture.read(repo.resolve(".git/config")).contains("token"));
    }

    @Test
    void pushRejectionsAndForceWithLease() throws Exception {
        Path repo = fx.repo("proj", "a.txt", "a\n");
        Path remote = fx.bareRemote(repo, "remote.git");
        Path other = fx.clone(remote, "other");
        Fixture.write(other, "o.txt", "o\n");
        fx.git.out(other, "add", "o.txt");
        fx.git.out(other, "commit", "-q", "-m", "other");
        fx.git.out(other, "push", "-q", "origin", "main");
        String remoteMain = fx.git.out(remote, "rev-parse", "main");
        Fixture.write(repo, "l.txt", "l\n");
        fx.git.out(repo, "add", "l.txt");
        fx.git.out(repo, "commit", "-q", "-m", "local");
        try (Vcs vcs = fx.open(repo)) {
            assertEquals(VcsErrorCodes.GIT_PUSH_REJECTED, assertThrows(WorkspaceException.Conflict.class,
                    () -> vcs.push(PushRequest.currentBranch())).code());
            // Our origin/main is stale (we never fetched), so the lease protects the other developer's commit.
            assertEquals(VcsErrorCodes.GIT_PUSH_REJECTED, assertThrows(WorkspaceException.Conflict.class,
                    () -> vcs.push(new PushRequest("origin", "main", true))).code());
            assertEquals(remoteMain, fx.git.out(remote, "rev-parse", "main"));
            fx.git.out(repo, "fetch", "-q", "origin");
            assertEquals(new PushResult("origin", "main", false), vcs.push(new PushRequest("origin", "main", true)));
        }
        assertEquals(head(repo), fx.git.out(remote, "rev-parse", "main").strip());
    }

    @Test
    void pushNamesOnlyConfiguredRemotesAndExistingBranches() throws Exception {
        Path repo = fx.repo("proj", "a.txt", "a\n");
        Path remote = fx.bareRemote(repo, "remote.git");
        try (Vcs vcs = fx.open(repo)) {
            for (String name : List.of("upstream", remote.toString(), "file://" + remote, "https://evil.example/x.git",
                    "../remote.git")) {
                assertEquals(VcsErrorCodes.REMOTE_NOT_FOUND, assertThrows(WorkspaceException.NotFound.class,
                        () -> vcs.push(new PushRequest(name, "main", false)), name).code());
            }
            assertEquals(VcsErrorCodes.BRANCH_NOT_FOUND, assertThrows(WorkspaceException.NotFound.class,
                    () -> vcs.push(new PushRequest("origin", "nope", false))).code());
            for (String branch : List.of(":main", "+main", "--mirror", "--force", "main:other", "refs/heads/../x")) {
                assertEquals(VcsErrorCodes.INVALID_REF_NAME, assertThrows(WorkspaceException.Validation.class,
                        () -> vcs.push(new PushRequest("origin", branch, false)), branch).code());
            }
        }
        assertEquals(List.of("main"), Fixture.lines(fx.git.out(remote, "for-each-ref", "--format=%(refname:short)",
                "refs/heads")));
    }

    // ------------------------------------------------------------ pull

    @Test
    void pullFastForwardsMergesAndReportsConflicts() throws Exception {
        Path repo = fx.repo("proj", "a.txt", "a\n", "shared.txt", "base\n");
        Path remote = fx.bareRemote(repo, "remote.git");
        Path other = fx.clone(remote, "other");
        try (Vcs vcs = fx.open(repo)) {
            assertEquals(PullResult.Outcome.UP_TO_DATE, vcs.pull().outcome());
        }
        Fixture.write(other, "o1.txt", "o1\n");
        fx.git.out(other, "add", "-A");
        fx.git.out(other, "commit", "-q", "-m", "o1");
        fx.git.out(other, "push", "-q");
        try (Vcs vcs = fx.open(repo)) {
            PullResult result = vcs.pull();
            assertEquals(PullResult.Outcome.FAST_FORWARD, result.outcome());
            assertEquals(fx.git.out(remote, "rev-parse", "main").strip(), result.head());
        }
        assertEquals(head(repo), fx.git.out(remote, "rev-parse", "main").strip());
        // Diverged, no overlap: a merge commit with both parents.
        Fixture.write(other, "o2.txt", "o2\n");
        fx.git.out(other, "add", "-A");
        fx.git.out(other, "commit", "-q", "-m", "o2");
        fx.git.out(other, "push", "-q");
        Fixture.write(repo, "l1.txt", "l1\n");
        fx.git.out(repo, "add", "-A");
        fx.git.out(repo, "commit", "-q", "-m", "l1");
        String localBefore = head(repo);
        try (Vcs vcs = fx.open(repo)) {
            assertEquals(PullResult.Outcome.MERGED, vcs.pull().outcome());
        }
        String[] parents = fx.git.out(repo, "rev-list", "--parents", "-n", "1", "HEAD").strip().split(" ");
        assertEquals(List.of(localBefore, fx.git.out(remote, "rev-parse", "main").strip()),
                List.of(parents[1], parents[2]));
        assertEquals("", fx.git.out(repo, "status", "--porcelain=v1"));
        // Both sides change the same line: conflict, left as git leaves it.
        fx.git.out(repo, "push", "-q");
        fx.git.out(other, "pull", "-q", "--no-rebase");
        Fixture.write(other, "shared.txt", "theirs\n");
        fx.git.out(other, "commit", "-q", "-am", "theirs");
        fx.git.out(other, "push", "-q");
        Fixture.write(repo, "shared.txt", "ours\n");
        fx.git.out(repo, "commit", "-q", "-am", "ours");
        try (Vcs vcs = fx.open(repo)) {
            WorkspaceException e = assertThrows(WorkspaceException.Conflict.class, vcs::pull);
            assertEquals(VcsErrorCodes.GIT_CONFLICT, e.code());
            assertTrue(e.getMessage().contains("1 file"), e.getMessage());
            assertEquals(List.of("shared.txt"), vcs.status().modified());
            assertEquals(VcsErrorCodes.GIT_INVALID_STATE, assertThrows(WorkspaceException.Conflict.class,
                    vcs::pull).code());
        }
        assertEquals("UU shared.txt\n", fx.git.out(repo, "status", "--porcelain=v1"));
    }

    @Test
    void pullNeedsAnUpstreamOnAConfiguredRemote() throws Exception {
        Path repo = fx.repo("proj", "a.txt", "a\n");
        try (Vcs vcs = fx.open(repo)) {
            assertEquals(VcsErrorCodes.NO_UPSTREAM, assertThrows(WorkspaceException.Conflict.class, vcs::pull)
                    .code());
        }
        Path remote = fx.bareRemote(repo, "remote.git");
        fx.git.out(repo, "config", "branch.main.remote", remote.toString());
        try (Vcs vcs = fx.open(repo)) {
            assertEquals(VcsErrorCodes.REMOTE_NOT_FOUND, assertThrows(WorkspaceException.NotFound.class, vcs::pull)
                    .code());
        }
    }

    // ------------------------------------------------------------ checkout

    @Test
    void checkoutOfLocalAndRemoteBranches() throws Exception {
        Path repo = fx.repo("proj", "a.txt", "a\n");
        Path remote = fx.bareRemote(repo, "remote.git");
        Path other = fx.clone(remote, "other");
        fx.git.out(other, "checkout", "-q", "-b", "feature");
        Fixture.write(other, "f.txt", "f\n");
        fx.git.out(other, "add", "-A");
        fx.git.out(other, "commit", "-q", "-m", "f");
        fx.git.out(other, "push", "-q", "origin", "feature", "feature:topic/x");
        fx.git.out(repo, "fetch", "-q", "origin");
        fx.git.out(repo, "branch", "local-only");
        Fixture.write(repo, "wip.txt", "uncommitted, carried over\n");
        try (Vcs vcs = fx.open(repo)) {
            assertEquals(new CheckoutResult("local-only", false, null), vcs.checkout("local-only"));
            assertEquals("local-only", fx.git.out(repo, "branch", "--show-current").strip());

            assertEquals(new CheckoutResult("feature", true, "origin/feature"), vcs.checkout("origin/feature"));
            assertEquals("feature", fx.git.out(repo, "branch", "--show-current").strip());
            assertEquals("origin/feature", fx.git.out(repo, "rev-parse", "--abbrev-ref", "feature@{upstream}")
                    .strip());
            assertEquals(fx.git.out(repo, "rev-parse", "origin/feature"), fx.git.out(repo, "rev-parse", "HEAD"));
            assertEquals("?? wip.txt\n", fx.git.out(repo, "status", "--porcelain=v1"));

            // git's guess: a name that only exists as <remote>/<name>.
            assertEquals(new CheckoutResult("topic/x", true, "origin/topic/x"), vcs.checkout("topic/x"));
            assertEquals("origin/topic/x", fx.git.out(repo, "rev-parse", "--abbrev-ref", "topic/x@{upstream}")
                    .strip());

            assertEquals(new CheckoutResult("main", false, "origin/main"), vcs.checkout("main"));
            assertEquals(FileErrorCodes.FILE_EXISTS, assertThrows(WorkspaceException.Conflict.class,
                    () -> vcs.checkout("origin/feature")).code());
            assertEquals(VcsErrorCodes.BRANCH_NOT_FOUND, assertThrows(WorkspaceException.NotFound.class,
                    () -> vcs.checkout("nope")).code());
            assertEquals("main", vcs.status().branch());
        }
    }

    @Test
    void checkoutThatWouldOverwriteLocalChangesChangesNothing() throws Exception {
        Path repo = fx.repo("proj", "a.txt", "a\n");
        Path remote = fx.bareRemote(repo, "remote.git");
        Path other = fx.clone(remote, "other");
        fx.git.out(other, "checkout", "-q", "-b", "feature");
        Fixture.write(other, "a.txt", "feature version\n");
        fx.git.out(other, "commit", "-q", "-am", "f");
        fx.git.out(other, "push", "-q", "origin", "feature");
        fx.git.out(repo, "fetch", "-q", "origin");
        fx.git.out(repo, "branch", "local-feature", "origin/feature");
        Fixture.write(repo, "a.txt", "my uncommitted edit\n");
        try (Vcs vcs = fx.open(repo)) {
            assertEquals(VcsErrorCodes.GIT_CONFLICT, assertThrows(WorkspaceException.Conflict.class,
                    () -> vcs.checkout("local-feature")).code());
            assertEquals(VcsErrorCodes.GIT_CONFLICT, assertThrows(WorkspaceException.Conflict.class,
                    () -> vcs.checkout("origin/feature")).code());
        }
        assertEquals("main", fx.git.out(repo, "branch", "--show-current").strip());
        assertEquals(" M a.txt\n", fx.git.out(repo, "status", "--porcelain=v1"));
        assertEquals("my uncommitted edit\n", Fixture.read(repo.resolve("a.txt")));
        assertEquals(List.of("local-feature", "main"), Fixture.lines(fx.git.out(repo, "for-each-ref",
                "--format=%(refname:short)", "refs/heads")));
    }
}
