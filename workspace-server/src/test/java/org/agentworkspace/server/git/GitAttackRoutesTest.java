package org.agentworkspace.server.git;

import org.agentworkspace.testkit.git.GitCli;
import static org.agentworkspace.server.TestServer.bearer;
import static org.agentworkspace.server.TestServer.expect;
import static org.agentworkspace.server.TestServer.q;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;


import org.agentworkspace.server.TestServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Git argument attacks through the running server (security.md GT-1 to GT-6): branch and file names that look like
 * options, {@code --upload-pack=…}, URLs and {@code ext::} as the remote, refspec tricks, and a repository whose own
 * configuration, hooks and attributes name a command. Each is refused or inert, and the canary command, whose only
 * effect is to create a marker file, never runs.
 */
class GitAttackRoutesTest {
    static TestServer s;
    static String admin;
    Path work;
    GitCli git;
    Path repo;
    Path remote;
    Path canaryScript;
    Path marker;
    String project;

    @BeforeAll
    static void start() {
        s = TestServer.start();
        admin = s.registerAdmin();
    }

    @AfterAll
    static void stop() {
        s.close();
    }

    @BeforeEach
    void repositories() throws IOException {
        work = Files.createTempDirectory("aw-gitattack-");
        marker = work.resolve("CANARY-RAN");
        canaryScript = work.resolve("canary.sh");
        Files.writeString(canaryScript, "#!/bin/sh\ntouch '" + marker + "'\ncat >/dev/null 2>&1\nexit 0\n");
        Files.setPosixFilePermissions(canaryScript, PosixFilePermissions.fromString("rwxr-xr-x"));
        git = new GitCli(work.resolve("home"));
        repo = git.repo(work.resolve("proj"), "a.txt", "a\n", "b.txt", "b\n");
        remote = git.bareRemote(repo, work.resolve("remote.git"));
        git.out(repo, "branch", "other");
        Files.createDirectories(work.resolve("outside"));
        Files.createSymbolicLink(repo.resolve("lnk"), work.resolve("outside"));
        project = s.quickStart(admin, repo);
    }

    @AfterEach
    void canaryNeverRan() {
        assertFalse(Files.exists(marker), "the canary command ran");
    }

    private HttpResponse<String> post(String route, Object... kv) {
        Map<String, Object> body = new java.util.LinkedHashMap<>();
        body.put("project", project);
        for (int i = 0; i + 1 < kv.length; i += 2) {
            body.put((String) kv[i], kv[i + 1]);
        }
        return s.post(route, body, bearer(admin));
    }

    private static void refused(String what, HttpResponse<String> res) {
        assertTrue(res.statusCode() >= 400 && res.statusCode() < 500, what + " -> " + res.statusCode() + " "
                + res.body());
    }

    private String refs(Path dir) {
        return git.out(dir, "for-each-ref", "--format=%(refname) %(objectname)");
    }

    @Test
    void branchNamesThatLookLikeOptionsOrRevisionsAreRefused() {
        String before = refs(repo);
        String cmd = canaryScript.toString();
        List<String> names = List.of("-f", "--force", "--orphan=x", "--detach", "-b", "-B", "-",
                "--upload-pack=" + cmd, "--exec=" + cmd, "-c core.pager=" + cmd, "@{-1}", "HEAD~1", "HEAD", "a..b",
                "a b", "a\nb", "refs/heads/../x", "x.lock", "\u001b[31m", "a\0b", "+main", ":main", "main:other",
                "--output=" + work.resolve("out"), "..", "/main", "main/", "a//b", "a@{b", "a\\b", "*", "a?b");
        for (String name : names) {
            HttpResponse<String> res = post("/api/git/checkout", "branch", name);
            refused("checkout " + name, res);
            String code = TestServer.json(res).path("error").path("code").asText();
            assertTrue(code.equals("INVALID_REF_NAME") || code.equals("BRANCH_NOT_FOUND"), name + " -> " + code);
        }
        assertEquals(before, refs(repo));
        assertEquals("main", git.out(repo, "branch", "--show-current").strip());
        assertFalse(Files.exists(work.resolve("out")));
    }

    @Test
    void pushTakesOnlyConfiguredRemoteNamesAndPlainBranchNames() {
        GitCli.write(repo, "a.txt", "ahead\n");
        git.out(repo, "commit", "-q", "-am", "ahead");
        String remoteBefore = refs(remote);
        String cmd = canaryScript.toString();
        for (String r : List.of("--upload-pack=" + cmd, "--receive-pack=" + cmd, "--exec=" + cmd,
                "ext::sh -c touch% " + marker, "ext::" + cmd, "https://evil.example/x.git", "http://127.0.0.1:9/x",
                "-oProxyCommand=" + cmd, remote.toString(), "file://" + remote, "../remote.git", "origin --force",
                "origin\n--force", "", " origin", "fd::3", "git@evil.example:x.git")) {
            HttpResponse<String> res = post("/api/git/push", "remote", r);
            refused("push remote " + r, res);
        }
        for (String b : List.of("--force", "--mirror", "--all", "--tags", ":main", "+main", "main:other",
                "refs/heads/main:refs/heads/x", "-f", "--delete", "main^", "--receive-pack=" + cmd)) {
            HttpResponse<String> res = post("/api/git/push", "branch", b);
            refused("push branch " + b, res);
        }
        assertEquals(remoteBefore, refs(remote), "the remote did not change");
        // The remote is looked up by name: a URL configured under that name is used, the request's never is.
        expect(post("/api/git/push"), 200, null);
        assertEquals(git.out(repo, "rev-parse", "main"), git.out(remote, "rev-parse", "main"));
    }

    @Test
    void commitFileNamesArePathsAndMessagesAreJustText() {
        String cmd = canaryScript.toString();
        for (String f : List.of("-rf", "--output=" + work.resolve("x"), "../outside/x", "lnk/x", "/etc/passwd",
                "a\0b", "..\\x", ".git/config", ".git")) {
            HttpResponse<String> res = post("/api/git/commit", "message", "m", "files", List.of(f));
            refused("commit file " + f, res);
        }
        assertFalse(Files.exists(work.resolve("x")));
        GitCli.write(repo, "-rf", "a file named like an option\n");
        GitCli.write(repo, "--amend", "another\n");
        String before = git.out(repo, "rev-parse", "HEAD").strip();
        JsonNode c = expect(post("/api/git/commit", "message", "--amend", "files", List.of("-rf", "--amend")), 200,
                null);
        assertEquals(before, git.out(repo, "rev-parse", "HEAD~1").strip(), "a new commit, nothing amended");
        assertEquals("--amend", git.out(repo, "log", "-1", "--format=%B").strip());
        assertEquals(List.of("--amend", "-rf"), GitCli.lines(git.out(repo, "show", "--name-only", "--format=",
                c.path("commit").asText())));
        GitCli.write(repo, "a.txt", "changed\n");
        expect(post("/api/git/commit", "message", "-m --author=evil <e@x> " + cmd, "files", List.of("a.txt")), 200,
                null);
        assertEquals("admin", git.out(repo, "log", "-1", "--format=%an").strip());
    }

    @Test
    void diffFileNamesThatLookLikeOptionsAreJustPaths() {
        for (String f : List.of("--output=" + work.resolve("diff-out"), "--ext-diff", "-p", "--no-index")) {
            HttpResponse<String> res = s.get("/api/git/diff?project=" + project + "&file=" + q(f), bearer(admin));
            assertTrue(res.statusCode() == 200 || res.statusCode() == 404 || res.statusCode() == 400, res.body());
            if (res.statusCode() == 200) {
                assertEquals("", TestServer.json(res).path("diff").asText(), f);
            }
        }
        for (String f : List.of("../outside", "lnk/x", "/etc/passwd", ".git/config")) {
            refused("diff " + f, s.get("/api/git/diff?project=" + project + "&file=" + q(f), bearer(admin)));
        }
        assertFalse(Files.exists(work.resolve("diff-out")));
    }

    @Test
    void commandsNamedByTheRepositoryItselfNeverRun() throws IOException {
        String cmd = canaryScript.toString();
        // What an agent working in the project could plant: config, hooks, attributes, a remote that runs a command.
        git.out(repo, "config", "core.fsmonitor", cmd);
        git.out(repo, "config", "core.pager", cmd);
        git.out(repo, "config", "core.sshCommand", cmd);
        git.out(repo, "config", "core.editor", cmd);
        git.out(repo, "config", "diff.external", cmd);
        git.out(repo, "config", "diff.evil.command", cmd);
        git.out(repo, "config", "diff.evil.textconv", cmd);
        git.out(repo, "config", "uploadpack.packObjectsHook", cmd);
        git.out(repo, "config", "credential.helper", "!" + cmd);
        git.out(repo, "config", "gpg.program", cmd);
        git.out(repo, "config", "commit.gpgSign", "true");
        git.out(repo, "config", "remote.origin.uploadpack", cmd);
        git.out(repo, "config", "remote.origin.receivepack", cmd);
        Path hooks = repo.resolve(".git/hooks");
        Files.createDirectories(hooks);
        for (String hook : List.of("pre-commit", "commit-msg", "post-commit", "pre-push", "post-checkout",
                "post-merge", "pre-merge-commit", "prepare-commit-msg", "reference-transaction", "pre-auto-gc")) {
            Path h = hooks.resolve(hook);
            Files.writeString(h, "#!/bin/sh\nexec '" + cmd + "'\n");
            Files.setPosixFilePermissions(h, PosixFilePermissions.fromString("rwxr-xr-x"));
        }
        GitCli.write(repo, ".gitattributes", "*.txt diff=evil\n");
        GitCli.write(repo, "a.txt", "changed\n");

        expect(s.get("/api/git/status?project=" + project, bearer(admin)), 200, null);
        expect(s.get("/api/git/diff?project=" + project, bearer(admin)), 200, null);
        expect(s.get("/api/git/branches?project=" + project, bearer(admin)), 200, null);
        expect(post("/api/git/commit", "message", "hooks must not run", "files", List.of("a.txt", ".gitattributes")),
                200, null);
        HttpResponse<String> push = post("/api/git/push");
        assertTrue(push.statusCode() == 200 || push.statusCode() == 403, push.body());
        post("/api/git/pull");
        expect(post("/api/git/checkout", "branch", "other"), 200, null);
        expect(post("/api/git/checkout", "branch", "main"), 200, null);

        // A filter driver would run on checkout and add: refused, never run.
        git.out(repo, "config", "filter.evil.clean", cmd);
        git.out(repo, "config", "filter.evil.smudge", cmd);
        git.out(repo, "config", "filter.evil.process", cmd);
        GitCli.write(repo, ".gitattributes", "*.txt diff=evil filter=evil\n");
        GitCli.write(repo, "b.txt", "filtered?\n");
        List<HttpResponse<String>> answers = new ArrayList<>();
        answers.add(s.get("/api/git/status?project=" + project, bearer(admin)));
        answers.add(s.get("/api/git/diff?project=" + project, bearer(admin)));
        answers.add(post("/api/git/commit", "message", "filters must not run", "files", List.of("b.txt")));
        answers.add(post("/api/git/checkout", "branch", "other"));
        for (HttpResponse<String> a : answers) {
            assertTrue(a.statusCode() < 500, a.body());
        }

        // A remote whose URL runs a command.
        git.out(repo, "remote", "add", "evil", "ext::" + cmd + " %S");
        HttpResponse<String> evil = post("/api/git/push", "remote", "evil");
        expect(evil, 403, "GIT_UNSAFE_CONFIG");
        assertFalse(evil.body().contains(cmd), "the remote URL is not echoed");
        git.out(repo, "config", "branch.main.remote", "evil");
        expect(post("/api/git/pull"), 403, "GIT_UNSAFE_CONFIG");
    }
}
