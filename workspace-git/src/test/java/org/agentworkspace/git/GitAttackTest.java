package org.agentworkspace.git;

import org.agentworkspace.testkit.git.AuthWall;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Set;

import org.agentworkspace.api.WorkspaceException;
import org.agentworkspace.api.files.FileErrorCodes;
import org.agentworkspace.api.files.RelativePath;
import org.agentworkspace.api.vcs.CommitRequest;
import org.agentworkspace.api.vcs.DiffRequest;
import org.agentworkspace.api.vcs.GitCredentials;
import org.agentworkspace.api.vcs.PullResult;
import org.agentworkspace.api.vcs.PushRequest;
import org.agentworkspace.api.vcs.Vcs;
import org.agentworkspace.api.vcs.VcsErrorCodes;
import org.agentworkspace.api.vcs.VcsOptions;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Argument and configuration attacks on the git engine (security catalogue GT-1 to GT-7). Every test plants a
 * canary command; the canary file must never appear.
 */
class GitAttackTest {
    @TempDir
    Path tmp;
    Fixture fx;
    Path canary;

    @BeforeEach
    void setUp() {
        fx = new Fixture(tmp);
        canary = tmp.resolve("canary");
    }

    @AfterEach
    void canaryNeverRan() {
        assertFalse(Files.exists(canary), "a repository-controlled or request-controlled command ran");
    }

    private String touch() {
        return "touch " + canary;
    }

    private static String code(Runnable action) {
        try {
            action.run();
        } catch (WorkspaceException e) {
            return e.code();
        }
        return "OK";
    }

    // ------------------------------------------------------------ GT-1 / GT-3: ref names

    @Test
    void branchNamesThatAreOptionsOrInvalidRefsAreRefused() throws Exception {
        Path repo = fx.repo("proj", "a.txt", "a\n");
        fx.bareRemote(repo, "remote.git");
        List<String> attacks = List.of("-f", "--force", "--orphan=x", "--detach", "-b", "--upload-pack=" + touch(),
                "-", "@{-1}", "HEAD~1", "a..b", "a b", "a\nb", "refs/heads/../x", "x.lock", "\u001b[31m", "HEAD",
                "@", "+main", ":main", "main:x", "a//b", "/a", "a/", ".hidden", "a/.b", "a.", "a*", "a?", "a[",
                "a\\b", "a~1", "a^", "", "x".repeat(300), "-c core.fsmonitor=" + touch());
        try (Vcs vcs = fx.open(repo)) {
            for (String name : attacks) {
                assertEquals(VcsErrorCodes.INVALID_REF_NAME, code(() -> vcs.checkout(name)), name);
                assertEquals(VcsErrorCodes.INVALID_REF_NAME,
                        code(() -> vcs.push(new PushRequest("origin", name, false))), name);
            }
        }
        assertEquals("main", fx.git.out(repo, "branch", "--show-current").strip());
    }

    @Test
    void everyAcceptedBranchNameIsOneGitAccepts() throws Exception {
        Path repo = fx.repo("proj", "a.txt", "a\n");
        List<String> names = new ArrayList<>(List.of("main", "feature/one", "fix-1", "v1.2", "ünïcode", "a@b",
                "a+b", "a#b", "a,b", "a=b", "_x", "x-", "a/b/c", "a.b.c", "deep/a.lock/x", "emoji-😀"));
        names.addAll(List.of("-f", "a..b", "a b", "x.lock", "@{-1}", "a.", "a/", "/a", "@", "a\tb", "a~", "a:b"));
        try (Vcs vcs = fx.open(repo)) {
            for (String name : names) {
                boolean ours = !code(() -> vcs.checkout(name)).equals(VcsErrorCodes.INVALID_REF_NAME);
                boolean gits = fx.git.run(repo, "check-ref-format", "refs/heads/" + name).exit() == 0;
                if (ours && !gits) {
                    fail("accepted a name git refuses: " + name);
                }
            }
        }
    }

    // ------------------------------------------------------------ GT-2: remotes

    @Test
    void remotesAreConfiguredNamesNeverUrlsOrOptions() throws Exception {
        Path repo = fx.repo("proj", "a.txt", "a\n");
        Path remote = fx.bareRemote(repo, "remote.git");
        String before = fx.git.out(remote, "rev-parse", "main");
        Fixture.write(repo, "b.txt", "b\n");
        fx.git.out(repo, "add", "b.txt");
        fx.git.out(repo, "commit", "-q", "-m", "b");
        try (Vcs vcs = fx.open(repo)) {
            for (String name : List.of("--upload-pack=" + touch(), "ext::sh -c touch% " + canary,
                    "-oProxyCommand=" + touch(), "https://evil.example/x.git", remote.toString(),
                    "file://" + remote, "origin/../x", "--receive-pack=" + touch(), "")) {
                assertEquals(VcsErrorCodes.REMOTE_NOT_FOUND,
                        code(() -> vcs.push(new PushRequest(name, "main", false))), name);
            }
        }
        assertEquals(before, fx.git.out(remote, "rev-parse", "main"));
    }

    // ------------------------------------------------------------ GT-4: file arguments

    @Test
    void fileArgumentsThatLookLikeOptionsAreInertPaths() throws Exception {
        Path repo = fx.repo("proj", "a.txt", "a\n");
        String before = fx.git.out(repo, "rev-parse", "HEAD");
        try (Vcs vcs = fx.open(repo)) {
            for (String name : List.of("-rf", "--output=" + canary.getFileName(), "--amend", "-a")) {
                assertEquals(FileErrorCodes.FILE_NOT_FOUND, code(() -> vcs.commit(CommitRequest.ofFiles("m",
                        List.of(RelativePath.parse(name)), Fixture.AUTHOR))), name);
            }
            assertEquals(before, fx.git.out(repo, "rev-parse", "HEAD"));
            // A file that really has such a name is just a file.
            Fixture.write(repo, "--output=x", "literal\n");
            vcs.commit(CommitRequest.ofFiles("--amend", List.of(RelativePath.parse("--output=x")), Fixture.AUTHOR));
        }
        assertEquals(List.of("--output=x", "a.txt"), Fixture.lines(fx.git.out(repo, "ls-files")));
        assertEquals("--amend", fx.git.out(repo, "log", "-1", "--format=%s").strip());
        assertEquals(2, Fixture.lines(fx.git.out(repo, "log", "--format=%H")).size());
    }

    @Test
    void pathsLeavingTheRepositoryNeverReachGit() throws Exception {
        for (String path : List.of("../outside/x", "/etc/passwd", "a/../../x", "a\\..\\x", "a\0b")) {
            assertThrows(WorkspaceException.class, () -> RelativePath.parse(path), path);
        }
        Path repo = fx.repo("proj", "a.txt", "a\n");
        Path outside = Files.createDirectories(tmp.resolve("outside"));
        Fixture.write(outside, "x.txt", "outside\n");
        Files.createSymbolicLink(repo.resolve("lnk"), outside);
        try (Vcs vcs = fx.open(repo)) {
            // Through a symbolic link git never looks: nothing is staged from outside.
            assertEquals(FileErrorCodes.INVALID_PATH, code(() -> vcs.commit(CommitRequest.ofFiles("m",
                    List.of(RelativePath.parse("lnk/x.txt")), Fixture.AUTHOR))));
            assertEquals("", vcs.diff(DiffRequest.of(RelativePath.parse("lnk/x.txt"), false)).diff());
        }
        assertEquals(List.of("a.txt"), Fixture.lines(fx.git.out(repo, "ls-files")));
    }

    // ------------------------------------------------------------ GT-5: repository-controlled programs

    private void executable(Path file, String content) throws IOException {
        Files.createDirectories(file.getParent());
        Files.writeString(file, content);
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rwxr-xr-x"));
    }

    @Test
    void hooksNeverRunOnCommitOrPush() throws Exception {
        Path repo = fx.repo("proj", "a.txt", "a\n");
        fx.bareRemote(repo, "remote.git");
        for (String hook : List.of("pre-commit", "prepare-commit-msg", "commit-msg", "post-commit", "pre-push",
                "post-checkout", "post-merge", "reference-transaction", "pre-auto-gc")) {
            executable(repo.resolve(".git/hooks/" + hook), "#!/bin/sh\n" + touch() + "\n");
            executable(tmp.resolve("hooks/" + hook), "#!/bin/sh\n" + touch() + "\n");
        }
        Fixture.write(repo, "b.txt", "b\n");
        try (Vcs vcs = fx.open(repo)) {
            vcs.commit(CommitRequest.ofFiles("with hooks present", List.of(RelativePath.parse("b.txt")),
                    Fixture.AUTHOR));
            vcs.push(PushRequest.currentBranch());
        }
        fx.git.out(repo, "config", "core.hooksPath", tmp.resolve("hooks").toString());
        Fixture.write(repo, "c.txt", "c\n");
        fx.git.out(repo, "add", "c.txt");
        try (Vcs vcs = fx.open(repo)) {
            vcs.commit(CommitRequest.staged("with hooksPath", Fixture.AUTHOR));
            vcs.push(PushRequest.currentBranch());
            fx.git.out(repo, "branch", "other");
            vcs.checkout("other");
            vcs.checkout("main");
            assertEquals(PullResult.Outcome.UP_TO_DATE, vcs.pull().outcome());
        }
        assertEquals(3, Fixture.lines(fx.git.out(repo, "log", "--format=%H")).size());
    }

    @Test
    void configuredProgramsNeverRunOnStatusOrDiff() throws Exception {
        Path repo = fx.repo("proj", "a.txt", "a\n", "b.txt", "b\n");
        for (String[] kv : new String[][] {{"core.fsmonitor", touch()}, {"core.pager", touch()},
                {"diff.external", touch()}, {"core.sshCommand", touch()}, {"core.askPass", touch()},
                {"credential.helper", "!" + touch()}, {"gpg.program", touch()}, {"commit.gpgSign", "true"},
                {"core.editor", touch()}, {"sequence.editor", touch()}, {"uploadpack.packObjectsHook", touch()},
                {"core.alternateRefsCommand", touch()}, {"diff.txt.textconv", touch()}}) {
            fx.git.out(repo, "config", kv[0], kv[1]);
        }
        Fixture.write(repo, ".gitattributes", "*.txt diff=txt\n");
        Fixture.write(repo, "a.txt", "a changed with more bytes\n");
        try (Vcs vcs = fx.open(repo)) {
            assertEquals(List.of("a.txt"), vcs.status().modified());
            assertTrue(vcs.diff(DiffRequest.wholeTree(false)).diff().contains("+a changed with more bytes"));
            vcs.commit(CommitRequest.ofFiles("signed? no", List.of(RelativePath.parse("a.txt")), Fixture.AUTHOR));
            vcs.branches();
        }
        assertFalse(fx.git.out(repo, "cat-file", "commit", "HEAD").contains("gpgsig"));
    }

    @Test
    void filterDriversAreRefusedNotRun() throws Exception {
        Path repo = fx.repo("proj", "a.txt", "a\n");
        fx.git.out(repo, "config", "filter.evil.clean", touch() + "; cat");
        fx.git.out(repo, "config", "filter.evil.smudge", touch() + "; cat");
        fx.git.out(repo, "config", "filter.evil.process", touch());
        Fixture.write(repo, ".gitattributes", "*.txt filter=evil\n");
        Fixture.write(repo, "a.txt", "changed\n");
        Fixture.write(repo, "n.txt", "new\n");
        try (Vcs vcs = fx.open(repo)) {
            String status = code(vcs::status);
            assertTrue(status.equals("OK") || status.equals(VcsErrorCodes.GIT_UNSAFE_CONFIG), status);
            assertEquals(VcsErrorCodes.GIT_UNSAFE_CONFIG, code(() -> vcs.diff(DiffRequest.wholeTree(false))));
            assertEquals(VcsErrorCodes.GIT_UNSAFE_CONFIG, code(() -> vcs.commit(CommitRequest.ofFiles("m",
                    List.of(RelativePath.parse("n.txt")), Fixture.AUTHOR))));
        }
    }

    @Test
    void configuredUploadPackAndReceivePackAreIgnored() throws Exception {
        Path repo = fx.repo("proj", "a.txt", "a\n");
        Path remote = fx.bareRemote(repo, "remote.git");
        Path other = fx.clone(remote, "other");
        Fixture.write(other, "o.txt", "o\n");
        fx.git.out(other, "add", "o.txt");
        fx.git.out(other, "commit", "-q", "-m", "o");
        fx.git.out(other, "push", "-q");
        fx.git.out(repo, "config", "remote.origin.uploadpack", touch() + "; git-upload-pack");
        fx.git.out(repo, "config", "remote.origin.receivepack", touch() + "; git-receive-pack");
        try (Vcs vcs = fx.open(repo)) {
            assertEquals(PullResult.Outcome.FAST_FORWARD, vcs.pull().outcome());
            Fixture.write(repo, "l.txt", "l\n");
            vcs.commit(CommitRequest.ofFiles("l", List.of(RelativePath.parse("l.txt")), Fixture.AUTHOR));
            vcs.push(PushRequest.currentBranch());
        }
        assertEquals(fx.git.out(repo, "rev-parse", "HEAD"), fx.git.out(remote, "rev-parse", "main"));
    }

    @Test
    void remoteUrlsWithOddProtocolsAreRefused() throws Exception {
        Path repo = fx.repo("proj", "a.txt", "a\n");
        fx.bareRemote(repo, "remote.git");
        for (String url : List.of("ext::sh -c touch% " + canary, "amazon-s3://" + canary + "@bucket/x",
                "fd::17", "--upload-pack=" + touch())) {
            fx.git.out(repo, "config", "remote.origin.url", url);
            fx.git.out(repo, "config", "remote.origin.pushurl", url);
            try (Vcs vcs = fx.open(repo)) {
                String push = code(() -> vcs.push(PushRequest.currentBranch()));
                String pull = code(vcs::pull);
                for (String result : List.of(push, pull)) {
                    assertTrue(Set.of(VcsErrorCodes.GIT_UNSAFE_CONFIG, VcsErrorCodes.GIT_REMOTE_UNAVAILABLE,
                            VcsErrorCodes.REMOTE_NOT_FOUND)
                            .contains(result), url + " -> " + result);
                    if (url.contains("::")) {
                        assertEquals(VcsErrorCodes.GIT_UNSAFE_CONFIG, result, url + ": a transport helper is named");
                    }
                }
            }
        }
    }

    // ------------------------------------------------------------ GT-6 / GT-7: credentials


    @Test
    void credentialsGoOnlyToAllowedOriginsAndAreNeverStored() throws Exception {
        String token = "tok-SECRET-4242";
        GitCredentials credentials = new GitCredentials("x-access-token", token);
        assertFalse(credentials.toString().contains(token));
        Path repo = fx.repo("proj", "a.txt", "a\n");
        try (AuthWall wall = new AuthWall()) {
            String origin = "http://127.0.0.1:" + wall.port();
            fx.git.out(repo, "remote", "add", "origin", origin + "/repo.git");
            fx.git.out(repo, "config", "branch.main.remote", "origin");
            fx.git.out(repo, "config", "branch.main.merge", "refs/heads/main");
            // Not an allowed origin (defaults allow only https://github.com): the token is withheld.
            try (Vcs vcs = fx.open(repo)) {
                WorkspaceException e = assertThrows(WorkspaceException.class,
                        () -> vcs.push(PushRequest.currentBranch(), credentials));
                assertEquals(VcsErrorCodes.GIT_AUTH_FAILED, e.code());
                assertTrue(e.getMessage().contains("not an allowed credential origin"), e.getMessage());
                assertEquals(VcsErrorCodes.GIT_AUTH_FAILED, code(() -> vcs.pull(credentials)));
            }
            assertTrue(wall.authorizations().isEmpty(), wall.authorizations().toString());
            assertFalse(wall.requests().isEmpty());
            // Allowed origin: sent as HTTP Basic, refused by the server, reported without the token.
            VcsOptions allowed = VcsOptions.defaults().withCredentialOrigins(Set.of(origin));
            try (Vcs vcs = fx.open(repo, allowed)) {
                WorkspaceException e = assertThrows(WorkspaceException.class,
                        () -> vcs.push(PushRequest.currentBranch(), credentials));
                assertEquals(VcsErrorCodes.GIT_AUTH_FAILED, e.code());
                assertFalse(e.getMessage().contains(token));
                assertFalse(e.getMessage().contains("127.0.0.1"));
                assertEquals(VcsErrorCodes.GIT_AUTH_FAILED, code(() -> vcs.push(PushRequest.currentBranch())));
            }
            String basic = "Basic " + Base64.getEncoder().encodeToString(("x-access-token:" + token)
                    .getBytes(StandardCharsets.UTF_8));
            assertTrue(wall.authorizations().contains(basic), wall.authorizations().toString());
        }
        for (Path file : List.of(repo.resolve(".git/config"), repo.resolve(".git/FETCH_HEAD"))) {
            if (Files.exists(file)) {
                assertFalse(Fixture.read(file).contains(token), file.toString());
            }
        }
    }

    @Test
    void unsafeHttpSettingsAreRefusedBeforeConnecting() throws Exception {
        Path repo = fx.repo("proj", "a.txt", "a\n");
        fx.git.out(repo, "remote", "add", "origin", "https://github.com/example/never-contacted.git");
        GitCredentials credentials = new GitCredentials("u", "t0ken");
        fx.git.out(repo, "config", "http.sslVerify", "false");
        try (Vcs vcs = fx.open(repo)) {
            assertEquals(VcsErrorCodes.GIT_UNSAFE_CONFIG, code(() -> vcs.push(PushRequest.currentBranch(),
                    credentials)));
        }
        fx.git.out(repo, "config", "--unset", "http.sslVerify");
        fx.git.out(repo, "config", "http.https://github.com/.cookieFile", tmp.resolve("cookies").toString());
        fx.git.out(repo, "config", "http.saveCookies", "true");
        fx.git.out(repo, "config", "branch.main.remote", "origin");
        fx.git.out(repo, "config", "branch.main.merge", "refs/heads/main");
        try (Vcs vcs = fx.open(repo)) {
            assertEquals(VcsErrorCodes.GIT_UNSAFE_CONFIG, code(() -> vcs.push(PushRequest.currentBranch())));
            assertEquals(VcsErrorCodes.GIT_UNSAFE_CONFIG, code(vcs::pull));
        }
        assertFalse(Files.exists(tmp.resolve("cookies")));
    }
}
