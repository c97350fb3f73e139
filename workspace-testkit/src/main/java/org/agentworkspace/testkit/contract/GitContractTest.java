package org.agentworkspace.testkit.contract;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.agentworkspace.testkit.git.GitCli;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Git on a project. Against any service: a folder that is not a repository, a missing or unknown project. With a
 * service on this host (it must see the folders the suite prepares with the local {@code git} command): status,
 * diff, branches, log, commit, push, pull and checkout against a local bare remote, each read back with {@code git}, and
 * option-like names refused.
 */
@Tag("contract")
class GitContractTest extends ProjectsFixture {
    private ContractResponse post(ContractClient client, String route, Object... kv) {
        return client.post(route).as(session).json(ContractClient.body(kv)).send();
    }

    @Test
    void aFolderThatIsNotARepositoryIsAConflict(ContractClient client) {
        String name = projects.quickStart(Names.serverTempFolder("not-a-repo")).path("name").asText();
        for (String route : List.of("/api/git/status", "/api/git/diff", "/api/git/branches", "/api/git/log")) {
            client.get(route + "?project=" + name).as(session).send().expectError(409, "NOT_A_GIT_REPOSITORY");
        }
        post(client, "/api/git/commit", "project", name, "message", "m").expectError(409, "NOT_A_GIT_REPOSITORY");
        post(client, "/api/git/stage", "project", name).expectError(409, "NOT_A_GIT_REPOSITORY");
        post(client, "/api/git/unstage", "project", name).expectError(409, "NOT_A_GIT_REPOSITORY");
        post(client, "/api/git/checkout", "project", name, "branch", "main")
                .expectError(409, "NOT_A_GIT_REPOSITORY");
        client.get("/api/git/status").as(session).send().expectError(400, "VALIDATION_FAILED");
        client.get("/api/git/status?project=contract-missing-00000000").as(session).send()
                .expectError(404, "PROJECT_NOT_FOUND");
    }

    /** A repository with one commit and a bare remote {@code origin}, on this host. */
    private record Repo(GitCli git, Path dir, Path remote, Path other, String name) {
        String head(Path d) {
            return git.out(d, "rev-parse", "HEAD").strip();
        }
    }

    private Repo repo(ContractHost host) throws IOException {
        host.assumeLocal("preparing a git repository and a bare remote");
        GitCli.assumeAvailable();
        Path work = Files.createTempDirectory("aw-contract-git-");
        GitCli git = new GitCli(work.resolve("home"), "Contract Suite", "contract@example.com");
        Path dir = work.resolve("proj");
        git.out(work, "init", "-q", "-b", "main", dir.toString());
        GitCli.write(dir, "a.txt", "one\ntwo\n");
        GitCli.write(dir, "b.txt", "bee\n");
        git.out(dir, "add", "-A");
        git.out(dir, "commit", "-q", "-m", "initial");
        Path remote = work.resolve("remote.git");
        git.out(work, "init", "-q", "--bare", "-b", "main", remote.toString());
        git.out(dir, "remote", "add", "origin", remote.toString());
        git.out(dir, "push", "-q", "-u", "origin", "main");
        Path other = work.resolve("other");
        git.out(work, "clone", "-q", remote.toString(), other.toString());
        String name = projects.quickStart(dir.toString()).path("name").asText();
        return new Repo(git, dir, remote, other, name);
    }

    @Test
    void statusDiffAndBranchesMatchGit(ContractClient client, ContractHost host) throws IOException {
        Repo r = repo(host);
        GitCli.write(r.dir(), "a.txt", "one\nTWO\n");
        GitCli.write(r.dir(), "new.txt", "new\n");
        r.git().out(r.dir(), "add", "new.txt");
        Files.delete(r.dir().resolve("b.txt"));
        GitCli.write(r.dir(), "untracked/u.txt", "u\n");
        r.git().out(r.dir(), "branch", "feature");

        JsonNode status = client.get("/api/git/status?project=" + r.name()).as(session).send().expectStatus(200)
                .json();
        assertEquals("main", status.path("branch").asText());
        assertEquals("[\"a.txt\"]", status.path("modified").toString());
        assertEquals("[\"new.txt\"]", status.path("added").toString());
        assertEquals("[\"b.txt\"]", status.path("deleted").toString());
        assertEquals("[\"untracked/u.txt\"]", status.path("untracked").toString());
        assertEquals(GitCli.lines(r.git().out(r.dir(), "status", "--porcelain", "--untracked-files=all")).size(),
                4);

        assertEquals(r.git().out(r.dir(), "diff", "--no-renames", "--no-ext-diff", "--abbrev=7"),
                client.get("/api/git/diff?project=" + r.name()).as(session).send().expectStatus(200).json()
                        .path("diff").asText());
        assertEquals(r.git().out(r.dir(), "diff", "--cached", "--no-renames", "--no-ext-diff", "--abbrev=7"),
                client.get("/api/git/diff?project=" + r.name() + "&staged=true").as(session).send()
                        .expectStatus(200).json().path("diff").asText());

        JsonNode branches = client.get("/api/git/branches?project=" + r.name()).as(session).send().expectStatus(200)
                .json();
        assertEquals("main", branches.path("current").asText());
        assertEquals(GitCli.lines(r.git().out(r.dir(), "for-each-ref", "--format=%(refname:short)", "refs/heads")),
                strings(branches.path("local")));
        assertEquals(List.of("origin/main"), strings(branches.path("remote")));
    }

    @Test
    void logPagesMatchGitLog(ContractClient client, ContractHost host) throws IOException {
        Repo r = repo(host);
        GitCli.write(r.dir(), "a.txt", "one\nsecond\n");
        r.git().out(r.dir(), "commit", "-q", "-am", "second");
        GitCli.write(r.dir(), "a.txt", "one\nthird\n");
        r.git().out(r.dir(), "commit", "-q", "-am", "third");
        List<String> expected = GitCli.lines(r.git().out(r.dir(), "log", "--format=%H %h %an|%s"));
        List<String> seen = new ArrayList<>();
        String cursor = null;
        int pages = 0;
        do {
            JsonNode page = client.get("/api/git/log?project=" + r.name() + "&limit=2"
                    + (cursor == null ? "" : "&cursor=" + java.net.URLEncoder.encode(cursor,
                    java.nio.charset.StandardCharsets.UTF_8))).as(session).send().expectStatus(200).json();
            for (JsonNode c : page.path("commits")) {
                seen.add(c.path("hash").asText() + " " + c.path("shortHash").asText() + " "
                        + c.path("author").asText() + "|" + c.path("subject").asText());
                assertFalse(c.path("date").asText().isEmpty());
            }
            cursor = page.path("next").isNull() ? null : page.path("next").asText();
            pages++;
        } while (cursor != null && pages < 10);
        assertEquals(expected, seen);
        assertEquals(2, pages);
        client.get("/api/git/log?project=" + r.name() + "&cursor=not-a-cursor").as(session).send()
                .expectError(400, "VALIDATION_FAILED");
    }

    @Test
    void commitPushPullAndCheckoutChangeTheRepositoryAsGitWould(ContractClient client, ContractHost host)
            throws IOException {
        Repo r = repo(host);
        GitCli.write(r.dir(), "a.txt", "one\nchanged\n");
        JsonNode commit = post(client, "/api/git/commit", "project", r.name(), "message", "from the contract suite",
                "files", List.of("a.txt")).expectStatus(200).json();
        assertEquals(r.head(r.dir()), commit.path("commit").asText());
        assertEquals("from the contract suite", r.git().out(r.dir(), "log", "-1", "--format=%s").strip());
        post(client, "/api/git/commit", "project", r.name(), "message", "nothing").expectError(409,
                "NOTHING_TO_COMMIT");

        post(client, "/api/git/push", "project", r.name()).expectStatus(200);
        assertEquals(r.head(r.dir()), r.git().out(r.remote(), "rev-parse", "main").strip());

        GitCli.write(r.other(), "theirs.txt", "theirs\n");
        r.git().out(r.other(), "add", "theirs.txt");
        r.git().out(r.other(), "commit", "-q", "-m", "theirs");
        r.git().out(r.other(), "pull", "-q", "--no-rebase", "origin", "main");
        r.git().out(r.other(), "push", "-q", "origin", "main");
        JsonNode pull = post(client, "/api/git/pull", "project", r.name()).expectStatus(200).json();
        assertEquals(r.head(r.other()), r.head(r.dir()));
        assertEquals(r.head(r.dir()), pull.path("head").asText());

        r.git().out(r.dir(), "branch", "feature");
        JsonNode checkout = post(client, "/api/git/checkout", "project", r.name(), "branch", "feature")
                .expectStatus(200).json();
        assertEquals("feature", checkout.path("branch").asText());
        assertEquals("feature", r.git().out(r.dir(), "branch", "--show-current").strip());
        post(client, "/api/git/checkout", "project", r.name(), "branch", "contract-no-such-branch")
                .expectError(404, "BRANCH_NOT_FOUND");
    }

    @Test
    void stageUnstageAndACommitOfWhatIsStaged(ContractClient client, ContractHost host) throws IOException {
        Repo r = repo(host);
        GitCli.write(r.dir(), "a.txt", "one\nstaged\n");
        GitCli.write(r.dir(), "new.txt", "new\n");
        String before = r.head(r.dir());
        // nothing staged while files changed: a clear code and the way to stage, never NOTHING_TO_COMMIT
        String message = post(client, "/api/git/commit", "project", r.name(), "message", "m")
                .expectError(409, "NOTHING_STAGED").json().path("error").path("message").asText();
        assertTrue(message.contains("/api/git/stage"), message);
        assertEquals(before, r.head(r.dir()));

        JsonNode staged = post(client, "/api/git/stage", "project", r.name(), "files", List.of("a.txt", "new.txt"))
                .expectStatus(200).json();
        assertEquals(List.of("a.txt", "new.txt"), strings(staged.path("staged")));
        assertEquals(List.of("A  new.txt", "M  a.txt"), sorted(r.git().out(r.dir(), "status", "--porcelain")));
        JsonNode unstaged = post(client, "/api/git/unstage", "project", r.name(), "files", List.of("new.txt"))
                .expectStatus(200).json();
        assertEquals(List.of("a.txt"), strings(unstaged.path("staged")));
        assertEquals(List.of("?? new.txt", "M  a.txt"), sorted(r.git().out(r.dir(), "status", "--porcelain")));

        post(client, "/api/git/commit", "project", r.name(), "message", "what was staged").expectStatus(200);
        assertEquals(List.of("M\ta.txt"), GitCli.lines(r.git().out(r.dir(), "show", "--name-status", "--format=",
                "HEAD")));
        assertEquals("?? new.txt\n", r.git().out(r.dir(), "status", "--porcelain"));
        post(client, "/api/git/stage", "project", r.name(), "files", List.of("contract-no-such-file.txt"))
                .expectError(404, "FILE_NOT_FOUND");
        post(client, "/api/git/stage", "project", r.name(), "files", List.of("../outside"))
                .expectError(403, "PATH_OUTSIDE_PROJECT");
    }

    private static List<String> sorted(String porcelain) {
        return GitCli.lines(porcelain).stream().sorted().toList();
    }

    @Test
    void optionLikeNamesAndUrlsAreRefused(ContractClient client, ContractHost host) throws IOException {
        Repo r = repo(host);
        String before = r.git().out(r.remote(), "for-each-ref");
        for (String branch : List.of("--orphan=x", "-f", "--upload-pack=touch /tmp/aw-contract-pwned", "a..b",
                "HEAD~1")) {
            post(client, "/api/git/checkout", "project", r.name(), "branch", branch)
                    .expectError(400, "INVALID_REF_NAME");
        }
        for (String remote : List.of("https://evil.example/x.git", "--upload-pack=touch /tmp/aw-contract-pwned",
                r.remote().toString())) {
            post(client, "/api/git/push", "project", r.name(), "remote", remote).expectError(404, "REMOTE_NOT_FOUND");
        }
        post(client, "/api/git/push", "project", r.name(), "branch", "+main").expectError(400, "INVALID_REF_NAME");
        post(client, "/api/git/commit", "project", r.name(), "message", "m", "files", List.of("../outside"))
                .expectError(403, "PATH_OUTSIDE_PROJECT");
        assertEquals(before, r.git().out(r.remote(), "for-each-ref"));
        assertEquals("main", r.git().out(r.dir(), "branch", "--show-current").strip());
        assertFalse(Files.exists(Path.of("/tmp/aw-contract-pwned")));
    }

    private static List<String> strings(JsonNode array) {
        List<String> out = new ArrayList<>();
        array.forEach(n -> out.add(n.asText()));
        assertTrue(out.stream().noneMatch(String::isEmpty));
        return out;
    }
}
