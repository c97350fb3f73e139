package org.agentworkspace.server.git;

import org.agentworkspace.testkit.git.GitCli;
import static org.agentworkspace.server.TestServer.bearer;
import static org.agentworkspace.server.TestServer.expect;
import static org.agentworkspace.server.TestServer.q;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

import com.fasterxml.jackson.databind.JsonNode;


import org.agentworkspace.server.TestServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Git through the running server, against real repositories and a local bare remote. After every call the
 * repository is read back with the {@code git} command and must look exactly as git itself reports it.
 */
class GitRoutesTest {
    static TestServer s;
    static String admin;
    static String key;
    Path work;
    GitCli git;
    Path repo;
    Path remote;
    Path other;
    String project;

    @BeforeAll
    static void start() {
        s = TestServer.start();
        admin = s.registerAdmin();
        key = s.createKey(admin, "git", null)[1];
    }

    @AfterAll
    static void stop() {
        s.close();
    }

    @BeforeEach
    void repositories() throws IOException {
        work = Files.createTempDirectory("aw-git-");
        git = new GitCli(work.resolve("home"));
        repo = git.repo(work.resolve("proj"), "a.txt", "one\ntwo\nthree\n", "b.txt", "bee\n", "dir/c.txt", "sea\n",
                "d.txt", "dee\n", "space name.txt", "spaced\n");
        remote = git.bareRemote(repo, work.resolve("remote.git"));
        other = work.resolve("other");
        git.out(work, "clone", "-q", remote.toString(), other.toString());
        project = s.quickStart(admin, repo);
    }

    private JsonNode get(String route) {
        return expect(s.get(route, "X-API-Key", key), 200, null);
    }

    private HttpResponse<String> post(String route, Map<String, ?> body) {
        return s.post(route, body, bearer(admin));
    }

    private Map<String, Object> body(Object... kv) {
        Map<String, Object> m = new java.util.LinkedHashMap<>();
        m.put("project", project);
        for (int i = 0; i + 1 < kv.length; i += 2) {
            m.put((String) kv[i], kv[i + 1]);
        }
        return m;
    }

    private String head(Path dir) {
        return git.out(dir, "rev-parse", "HEAD").strip();
    }

    /** The spec's GitStatus as read from {@code git status --porcelain -z} and {@code git rev-list}. */
    private JsonNode expectedStatus() {
        String branch = git.out(repo, "branch", "--show-current").strip();
        int ahead = 0;
        int behind = 0;
        GitCli.Result upstream = git.run(repo, "rev-parse", "--abbrev-ref", "@{upstream}");
        if (upstream.exit() == 0) {
            String[] counts = git.out(repo, "rev-list", "--left-right", "--count", "HEAD...@{upstream}").strip()
                    .split("\\s+");
            ahead = Integer.parseInt(counts[0]);
            behind = Integer.parseInt(counts[1]);
        }
        TreeSet<String> modified = new TreeSet<>();
        TreeSet<String> added = new TreeSet<>();
        TreeSet<String> deleted = new TreeSet<>();
        TreeSet<String> untracked = new TreeSet<>();
        TreeSet<String> staged = new TreeSet<>();
        String out = git.out(repo, "status", "--porcelain=v1", "-z", "--untracked-files=all", "--no-renames");
        for (String entry : out.split("\0")) {
            if (entry.isEmpty()) {
                continue;
            }
            char x = entry.charAt(0);
            char y = entry.charAt(1);
            String xy = "" + x + y;
            String path = entry.substring(3);
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
        Map<String, Object> m = new java.util.LinkedHashMap<>();
        m.put("branch", branch.isEmpty() ? "HEAD" : branch);
        m.put("ahead", ahead);
        m.put("behind", behind);
        m.put("modified", List.copyOf(modified));
        m.put("added", List.copyOf(added));
        m.put("deleted", List.copyOf(deleted));
        m.put("untracked", List.copyOf(untracked));
        m.put("staged", List.copyOf(staged));
        return TestServer.JSON.valueToTree(m);
    }

    private JsonNode status() {
        return get("/api/git/status?project=" + project);
    }

    /** A working tree with every kind of change. */
    private void messUp() throws IOException {
        messUp(repo);
    }

    private void messUp(Path repo) throws IOException {
        GitCli.write(repo, "a.txt", "one\nTWO\nthree\n");
        GitCli.write(repo, "new-staged.txt", "fresh\n");
        git.out(repo, "add", "new-staged.txt");
        Files.delete(repo.resolve("b.txt"));
        git.out(repo, "rm", "-q", "--cached", "d.txt");
        GitCli.write(repo, "space name.txt", "changed\n");
        git.out(repo, "add", "space name.txt");
        GitCli.write(repo, "space name.txt", "changed again\n");
        GitCli.write(repo, "untracked/deep/u.txt", "u\n");
        GitCli.write(repo, "top-untracked.txt", "t\n");
    }

    /** {@code git log}'s fields of HEAD's history, newest first. */
    private List<String> gitLog() {
        return GitCli.lines(git.out(repo, "log", "--format=%H %h %ae %aI %an|%s"));
    }

    private static List<String> asLines(JsonNode page) {
        List<String> out = new ArrayList<>();
        for (JsonNode c : page.path("commits")) {
            assertEquals(40, c.path("hash").asText().length());
            out.add(c.path("hash").asText() + " " + c.path("shortHash").asText() + " "
                    + c.path("authorEmail").asText() + " "
                    + java.time.OffsetDateTime.parse(c.path("date").asText()).toInstant() + " "
                    + c.path("author").asText() + "|" + c.path("subject").asText());
        }
        return out;
    }

    @Test
    void logPagesThroughHistoryAsGitLogShowsIt() {
        GitCli.write(repo, "a.txt", "log one\n");
        git.out(repo, "commit", "-q", "-am", "second");
        GitCli.write(repo, "a.txt", "log two\n");
        git.out(repo, "commit", "-q", "-am", "third line one\nline two\n\nthe body");
        GitCli.write(repo, "a.txt", "log three\n");
        post("/api/git/commit", body("message", "through the service", "files", List.of("a.txt")));
        List<String> expected = new ArrayList<>();
        for (String line : gitLog()) {
            // git prints %aI with an offset; the service answers UTC instants
            String[] f = line.split(" ", 5);
            expected.add(f[0] + " " + f[1] + " " + f[2] + " " + java.time.OffsetDateTime.parse(f[3]).toInstant()
                    + " " + f[4]);
        }
        assertEquals(4, expected.size());
        assertTrue(expected.get(0).endsWith("|through the service"), expected.get(0));
        assertTrue(expected.get(1).endsWith("|third line one line two"), expected.get(1));

        JsonNode all = get("/api/git/log?project=" + q(project));
        assertEquals(expected, asLines(all));
        assertTrue(all.path("next").isNull());

        JsonNode first = get("/api/git/log?project=" + q(project) + "&limit=3");
        assertEquals(expected.subList(0, 3), asLines(first));
        String cursor = first.path("next").asText();
        assertFalse(cursor.isEmpty());
        // a commit made meanwhile does not shift the pages that follow
        GitCli.write(repo, "a.txt", "log four\n");
        git.out(repo, "commit", "-q", "-am", "meanwhile");
        JsonNode second = get("/api/git/log?project=" + q(project) + "&limit=3&cursor=" + q(cursor));
        assertEquals(expected.subList(3, 4), asLines(second));
        assertTrue(second.path("next").isNull());
        assertEquals(gitLog().subList(0, 1).get(0).split(" ")[0],
                get("/api/git/log?project=" + q(project) + "&limit=1").path("commits").get(0).path("hash").asText());

        for (String bad : List.of("x", cursor.substring(0, 40) + ".0", "0".repeat(40) + ".3",
                cursor.substring(0, 40) + ".-1", "--all")) {
            expect(s.get("/api/git/log?project=" + q(project) + "&cursor=" + q(bad), "X-API-Key", key), 400,
                    "VALIDATION_FAILED");
        }
        for (String limit : List.of("0", "201", "many")) {
            expect(s.get("/api/git/log?project=" + q(project) + "&limit=" + limit, "X-API-Key", key), 400,
                    "VALIDATION_FAILED");
        }
    }

    @Test
    void aRepositoryWithoutCommitsHasAnEmptyLog() throws IOException {
        Path empty = git.repo(work.resolve("empty"));
        String name = s.quickStart(admin, empty);
        JsonNode log = get("/api/git/log?project=" + q(name));
        assertEquals(0, log.path("commits").size());
        assertTrue(log.path("next").isNull());
    }

    @Test
    void statusEqualsGitPorcelain() throws IOException {
        assertEquals(expectedStatus(), status());
        messUp();
        JsonNode actual = status();
        assertEquals(expectedStatus(), actual);
        // spot checks, so a shared misreading cannot hide
        assertEquals("[\"a.txt\",\"space name.txt\"]", actual.path("modified").toString());
        assertEquals("[\"new-staged.txt\"]", actual.path("added").toString());
        assertEquals("[\"b.txt\",\"d.txt\"]", actual.path("deleted").toString());
        assertEquals("[\"d.txt\",\"top-untracked.txt\",\"untracked/deep/u.txt\"]", actual.path("untracked").toString());

        git.out(repo, "commit", "-q", "-m", "local");
        GitCli.write(other, "remote-only.txt", "r\n");
        git.out(other, "add", "-A");
        git.out(other, "commit", "-q", "-m", "theirs");
        git.out(other, "push", "-q", "origin", "main");
        git.out(repo, "fetch", "-q", "origin");
        JsonNode diverged = status();
        assertEquals(expectedStatus(), diverged);
        assertEquals(1, diverged.path("ahead").asInt());
        assertEquals(1, diverged.path("behind").asInt());
    }

    @Test
    void diffEqualsGitDiff() throws IOException {
        assertEquals("", get("/api/git/diff?project=" + project).path("diff").asText());
        messUp();
        GitCli.write(repo, "dir/c.txt", "sea\nmore\n");
        assertEquals(git.out(repo, "diff", "--no-renames", "--no-ext-diff", "--abbrev=7"),
                get("/api/git/diff?project=" + project).path("diff").asText());
        assertEquals(git.out(repo, "diff", "--cached", "--no-renames", "--no-ext-diff", "--abbrev=7"),
                get("/api/git/diff?project=" + project + "&staged=true").path("diff").asText());
        assertEquals(git.out(repo, "diff", "--no-renames", "--no-ext-diff", "--abbrev=7", "--", "dir/c.txt"),
                get("/api/git/diff?project=" + project + "&file=" + q("dir/c.txt")).path("diff").asText());
        assertEquals(git.out(repo, "diff", "--cached", "--no-renames", "--no-ext-diff", "--abbrev=7", "--",
                "space name.txt"), get("/api/git/diff?project=" + project + "&staged=true&file="
                + q("space name.txt")).path("diff").asText());
        assertFalse(get("/api/git/diff?project=" + project).path("truncated").asBoolean());
        expect(s.get("/api/git/diff?project=" + project + "&staged=yes", bearer(admin)), 400, "VALIDATION_FAILED");
    }

    @Test
    void branchesEqualGitForEachRef() {
        git.out(repo, "branch", "feature/x");
        git.out(other, "push", "-q", "origin", "HEAD:refs/heads/shared");
        git.out(repo, "fetch", "-q", "origin");
        JsonNode b = get("/api/git/branches?project=" + project);
        assertEquals(git.out(repo, "branch", "--show-current").strip(), b.path("current").asText());
        assertEquals(GitCli.lines(git.out(repo, "for-each-ref", "--format=%(refname:short)", "refs/heads")),
                strings(b.path("local")));
        List<String> remotes = new ArrayList<>(GitCli.lines(git.out(repo, "for-each-ref",
                "--format=%(refname:strip=2)", "refs/remotes")));
        remotes.remove("origin/HEAD");
        assertEquals(remotes, strings(b.path("remote")));
        assertEquals(List.of("origin/main", "origin/shared"), strings(b.path("remote")));
    }

    @Test
    void commitRecordsExactlyWhatGitShows() throws IOException {
        messUp();
        String before = head(repo);
        JsonNode c = expect(post("/api/git/commit", body("message", "api commit\n\nbody line", "files",
                List.of("a.txt", "top-untracked.txt", "b.txt"))), 200, null);
        assertEquals(head(repo), c.path("commit").asText());
        assertEquals("main", c.path("branch").asText());
        assertEquals(before, git.out(repo, "rev-parse", "HEAD~1").strip());
        assertEquals("admin\nadmin@agent-workspace.invalid\napi commit\n\nbody line",
                git.out(repo, "log", "-1", "--format=%an%n%ae%n%B").strip());
        assertEquals(List.of("M\ta.txt", "D\tb.txt", "A\ttop-untracked.txt"),
                GitCli.lines(git.out(repo, "show", "--no-renames", "--name-status", "--format=", "HEAD")));
        // Nothing else went in: the other changes are where they were.
        assertEquals(expectedStatus(), status());
        assertTrue(status().path("added").toString().contains("new-staged.txt"));

        // Without files: everything staged, like git commit.
        JsonNode staged = expect(post("/api/git/commit", body("message", "the staged rest")), 200, null);
        assertEquals(head(repo), staged.path("commit").asText());
        assertEquals(List.of("D\td.txt", "A\tnew-staged.txt", "M\tspace name.txt"),
                GitCli.lines(git.out(repo, "show", "--no-renames", "--name-status", "--format=", "HEAD")));
        assertEquals("changed\n", git.out(repo, "show", "HEAD:space name.txt"), "the staged version, not the tree");
        assertEquals(expectedStatus(), status());

        // nothing staged while files are changed: said so, with the way to stage (it was NOTHING_TO_COMMIT)
        JsonNode refused = expect(post("/api/git/commit", body("message", "again")), 409, "NOTHING_STAGED");
        String message = refused.path("error").path("message").asText();
        assertTrue(message.contains("3 paths have changes") && message.contains("POST /api/git/stage"), message);
        expect(post("/api/git/commit", body("message", "  ")), 400, null);
        expect(post("/api/git/commit", body()), 400, "VALIDATION_FAILED");
        assertEquals(staged.path("commit").asText(), head(repo));

        // a clean tree: nothing to commit at all
        git.out(repo, "add", "-A");
        git.out(repo, "commit", "-q", "-m", "clean");
        expect(post("/api/git/commit", body("message", "again")), 409, "NOTHING_TO_COMMIT");
    }

    @Test
    void stageAndUnstageChangeTheIndexAsGitAddAndResetDo() throws IOException {
        // the same changes in a clone of the same commit, where the git command does each step
        Path twin = work.resolve("twin");
        git.out(work, "clone", "-q", repo.toString(), twin.toString());
        messUp();
        messUp(twin);

        JsonNode st = expect(post("/api/git/stage", body("files", List.of("a.txt", "b.txt", "untracked"))), 200,
                null);
        git.out(twin, "add", "-A", "--", "a.txt", "b.txt", "untracked");
        assertEquals(git.out(twin, "ls-files", "-s"), git.out(repo, "ls-files", "-s"));
        assertTrue(st.path("success").asBoolean());
        assertEquals(List.of("a.txt", "b.txt", "d.txt", "new-staged.txt", "space name.txt", "untracked/deep/u.txt"),
                strings(st.path("staged")));
        JsonNode withoutSuccess = ((com.fasterxml.jackson.databind.node.ObjectNode) st.deepCopy()).without("success");
        assertEquals(expectedStatus(), withoutSuccess);

        JsonNode un = expect(post("/api/git/unstage", body("files", List.of("new-staged.txt", "a.txt"))), 200, null);
        git.out(twin, "reset", "-q", "--", "new-staged.txt", "a.txt");
        assertEquals(git.out(twin, "ls-files", "-s"), git.out(repo, "ls-files", "-s"));
        assertFalse(strings(un.path("staged")).contains("a.txt"));
        assertTrue(strings(un.path("untracked")).contains("new-staged.txt"));

        // stage what is left, commit it without naming files: exactly what was staged goes in
        expect(post("/api/git/stage", body()), 200, null);
        git.out(twin, "add", "-A");
        assertEquals(git.out(twin, "ls-files", "-s"), git.out(repo, "ls-files", "-s"));
        expect(post("/api/git/unstage", body("files", List.of("top-untracked.txt"))), 200, null);
        expect(post("/api/git/commit", body("message", "staged through the API")), 200, null);
        assertEquals(List.of("M\ta.txt", "D\tb.txt", "A\tnew-staged.txt", "M\tspace name.txt",
                "A\tuntracked/deep/u.txt"),
                GitCli.lines(git.out(repo, "show", "--no-renames", "--name-status", "--format=", "HEAD")));
        assertEquals("?? top-untracked.txt\n", git.out(repo, "status", "--porcelain=v1",
                "--untracked-files=all"));

        expect(post("/api/git/stage", body("files", List.of("no-such.txt"))), 404, "FILE_NOT_FOUND");
        expect(post("/api/git/stage", body("files", List.of("../outside.txt"))), 403, "PATH_OUTSIDE_PROJECT");
        expect(post("/api/git/unstage", body("files", List.of(".git/config"))), 400, "INVALID_PATH");
        expect(post("/api/git/stage", body("files", "a.txt")), 400, "VALIDATION_FAILED");
        expect(s.post("/api/git/stage", body(), "X-API-Key", s.createKey(admin, "read only",
                List.of("projects:read"))[1]), 403, "INSUFFICIENT_SCOPE");
    }

    @Test
    void pushUpdatesTheBareRemoteAsGitWould() {
        GitCli.write(repo, "a.txt", "pushed\n");
        git.out(repo, "commit", "-q", "-am", "to push");
        JsonNode p = expect(post("/api/git/push", body()), 200, null);
        assertEquals("origin", p.path("remote").asText());
        assertEquals("main", p.path("branch").asText());
        assertFalse(p.path("upToDate").asBoolean());
        assertEquals(head(repo), git.out(remote, "rev-parse", "main").strip());
        assertEquals(head(repo), git.out(repo, "rev-parse", "origin/main").strip());
        assertEquals(expectedStatus(), status());
        assertEquals(0, status().path("ahead").asInt());
        assertTrue(expect(post("/api/git/push", body()), 200, null).path("upToDate").asBoolean());

        // A new branch is pushed to the same name and tracks it afterwards.
        git.out(repo, "checkout", "-q", "-b", "feature");
        GitCli.write(repo, "f.txt", "f\n");
        git.out(repo, "add", "f.txt");
        git.out(repo, "commit", "-q", "-m", "feature");
        git.out(repo, "checkout", "-q", "main");
        expect(post("/api/git/push", body("branch", "feature", "remote", "origin")), 200, null);
        assertEquals(git.out(repo, "rev-parse", "feature").strip(), git.out(remote, "rev-parse", "feature").strip());
        assertEquals("origin/feature", git.out(repo, "rev-parse", "--abbrev-ref", "feature@{upstream}").strip());

        // Someone else pushed first: rejected, the remote keeps their commit; force (with lease) after a fetch wins.
        GitCli.write(other, "o.txt", "other\n");
        git.out(other, "add", "o.txt");
        git.out(other, "commit", "-q", "-m", "other");
        git.out(other, "pull", "-q", "--no-rebase", "origin", "main");
        git.out(other, "push", "-q", "origin", "main");
        String theirs = git.out(remote, "rev-parse", "main").strip();
        GitCli.write(repo, "a.txt", "mine\n");
        git.out(repo, "commit", "-q", "-am", "mine");
        expect(post("/api/git/push", body()), 409, "GIT_PUSH_REJECTED");
        assertEquals(theirs, git.out(remote, "rev-parse", "main").strip());
        expect(post("/api/git/push", body("force", true)), 409, "GIT_PUSH_REJECTED");
        assertEquals(theirs, git.out(remote, "rev-parse", "main").strip(), "the lease protects an unseen commit");
        git.out(repo, "fetch", "-q", "origin");
        expect(post("/api/git/push", body("force", true)), 200, null);
        assertEquals(head(repo), git.out(remote, "rev-parse", "main").strip());
        expect(post("/api/git/push", body("force", "yes")), 400, "VALIDATION_FAILED");
    }

    @Test
    void pullMergesTheOtherDevelopersCommitsAndStopsOnConflicts() {
        expect(post("/api/git/pull", body()), 200, null);
        GitCli.write(other, "theirs.txt", "theirs\n");
        git.out(other, "add", "theirs.txt");
        git.out(other, "commit", "-q", "-m", "theirs");
        git.out(other, "push", "-q", "origin", "main");
        JsonNode ff = expect(post("/api/git/pull", body()), 200, null);
        assertEquals("fast-forward", ff.path("outcome").asText());
        assertEquals(head(other), head(repo));
        assertEquals(head(repo), ff.path("head").asText());
        assertEquals("theirs\n", git.out(repo, "show", "HEAD:theirs.txt"));
        assertEquals(expectedStatus(), status());
        assertEquals("up-to-date", expect(post("/api/git/pull", body()), 200, null).path("outcome").asText());

        // Both change the same line: a conflict, left as git leaves it.
        GitCli.write(other, "a.txt", "one\nTHEIRS\nthree\n");
        git.out(other, "commit", "-q", "-am", "their line");
        git.out(other, "push", "-q", "origin", "main");
        GitCli.write(repo, "a.txt", "one\nOURS\nthree\n");
        git.out(repo, "commit", "-q", "-am", "our line");
        expect(post("/api/git/pull", body()), 409, "GIT_CONFLICT");
        assertEquals(List.of("a.txt"), GitCli.lines(git.out(repo, "diff", "--name-only", "--diff-filter=U")));
        assertTrue(Files.exists(repo.resolve(".git/MERGE_HEAD")), "the merge is in progress, as git leaves it");
        JsonNode conflicted = status();
        assertEquals(expectedStatus(), conflicted);
        assertTrue(conflicted.path("modified").toString().contains("a.txt"));
    }

    @Test
    void checkoutSwitchesAndCreatesTrackingBranchesLikeGit() throws IOException {
        git.out(repo, "branch", "local-one");
        JsonNode c = expect(post("/api/git/checkout", body("branch", "local-one")), 200, null);
        assertEquals("local-one", c.path("branch").asText());
        assertFalse(c.path("created").asBoolean());
        assertEquals("local-one", git.out(repo, "branch", "--show-current").strip());

        git.out(other, "checkout", "-q", "-b", "remote-only");
        GitCli.write(other, "r.txt", "r\n");
        git.out(other, "add", "r.txt");
        git.out(other, "commit", "-q", "-m", "remote only");
        git.out(other, "push", "-q", "origin", "remote-only");
        git.out(repo, "fetch", "-q", "origin");
        JsonNode created = expect(post("/api/git/checkout", body("branch", "remote-only")), 200, null);
        assertTrue(created.path("created").asBoolean());
        assertEquals("origin/remote-only", created.path("upstream").asText());
        assertEquals("remote-only", git.out(repo, "branch", "--show-current").strip());
        assertEquals("origin/remote-only", git.out(repo, "rev-parse", "--abbrev-ref", "@{upstream}").strip());
        assertEquals(head(other), head(repo));
        assertEquals(expectedStatus(), status());

        expect(post("/api/git/checkout", body("branch", "no-such-branch")), 404, "BRANCH_NOT_FOUND");
        // A local change that the switch would overwrite stops it and changes nothing.
        GitCli.write(repo, "r.txt", "local edit\n");
        String before = git.out(repo, "status", "--porcelain");
        expect(post("/api/git/checkout", body("branch", "main")), 409, "GIT_CONFLICT");
        assertEquals("remote-only", git.out(repo, "branch", "--show-current").strip());
        assertEquals(before, git.out(repo, "status", "--porcelain"));
        assertEquals("local edit\n", Files.readString(repo.resolve("r.txt")));
    }

    @Test
    void aFolderThatIsNotARepositoryAndUnknownProjectsHaveCodes() throws IOException {
        Path plain = Files.createDirectories(work.resolve("plain"));
        String name = s.quickStart(admin, plain);
        expect(s.get("/api/git/status?project=" + name, bearer(admin)), 409, "NOT_A_GIT_REPOSITORY");
        expect(s.post("/api/git/commit", Map.of("project", name, "message", "m"), bearer(admin)), 409,
                "NOT_A_GIT_REPOSITORY");
        Path sub = repo.resolve("dir");
        String subName = s.quickStart(admin, sub);
        expect(s.get("/api/git/branches?project=" + subName, bearer(admin)), 409, "NOT_A_GIT_REPOSITORY");
        expect(s.get("/api/git/status?project=missing-00000000", bearer(admin)), 404, "PROJECT_NOT_FOUND");
        expect(s.get("/api/git/status", bearer(admin)), 400, "VALIDATION_FAILED");
        expect(s.post("/api/git/pull", Map.of(), bearer(admin)), 400, "VALIDATION_FAILED");
        assertNotEquals("", head(repo));
    }

    private static List<String> strings(JsonNode array) {
        List<String> out = new ArrayList<>();
        array.forEach(n -> out.add(n.asText()));
        return out;
    }
}
