package org.agentworkspace.server.system;

import static org.agentworkspace.server.TestServer.bearer;
import static org.agentworkspace.server.TestServer.expect;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import com.fasterxml.jackson.databind.JsonNode;
import org.agentworkspace.core.system.UpdateSettings;
import org.agentworkspace.server.ServerConfig;
import org.agentworkspace.server.TestServer;
import org.agentworkspace.server.WorkspaceServer;
import org.agentworkspace.testkit.git.GitCli;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Self-update in {@code git} mode over HTTP: the server's "source checkout" is a clone of a bare origin in a
 * temporary folder, another clone pushes newer commits, and the update must fast-forward exactly to them — or
 * refuse, changing nothing, when the checkout has local changes, has diverged or has no upstream.
 */
class GitUpdateRoutesTest {
    @TempDir
    Path tmp;

    private GitCli git;
    private Path origin;
    private Path checkout;
    private Path other;
    private TestServer s;
    private CompletableFuture<Integer> exited;
    private String token;

    @BeforeEach
    void repositories() throws IOException {
        GitCli.assumeAvailable();
        git = new GitCli(tmp.resolve("git-home"));
        Path seed = git.repo(tmp.resolve("seed"), "README.md", "v1\n");
        origin = git.bareRemote(seed, tmp.resolve("origin.git"));
        checkout = tmp.resolve("checkout");
        git.out(tmp, "clone", "-q", origin.toString(), checkout.toString());
        other = tmp.resolve("other");
        git.out(tmp, "clone", "-q", origin.toString(), other.toString());

        exited = new CompletableFuture<>();
        Map<String, String> env = new LinkedHashMap<>();
        env.put("HOME", Files.createDirectories(tmp.resolve("home")).toString());
        env.put("PATH", System.getenv().getOrDefault("PATH", "/usr/bin:/bin"));
        env.put("AW_UPNP_DISCOVERY", "127.0.0.1:9");
        env.put("AW_INSTALL_MODE", "git");
        Path data = tmp.resolve("data");
        WorkspaceServer server = WorkspaceServer.start(org.agentworkspace.server.TestServer.config(data)
                .withUpdate(UpdateSettings.defaults(data).withSourceDir(checkout)), env, exited::complete);
        s = TestServer.wrap(server, data);
        token = s.registerAdmin();
    }

    @AfterEach
    void stop() {
        if (s != null) {
            s.close();
        }
    }

    private String head(Path repo) {
        return git.out(repo, "rev-parse", "HEAD").strip();
    }

    private String pushNewCommit(String file, String content) {
        GitCli.write(other, file, content);
        git.out(other, "add", "--", file);
        git.out(other, "commit", "-q", "-m", "change " + file);
        git.out(other, "push", "-q", "origin", "main");
        return head(other);
    }

    private List<UpdateStream.Event> update() {
        try (UpdateStream st = UpdateStream.post(s.http, s.uri("/api/system/update"), bearer(token))) {
            assertEquals(200, st.status, st.status == 200 ? "" : st.text());
            return st.all();
        }
    }

    private void assertNoExit() throws Exception {
        try {
            throw new AssertionError("the server exited with " + exited.get(1500, TimeUnit.MILLISECONDS));
        } catch (TimeoutException expected) {
            // still running
        }
    }

    @Test
    void theCheckoutIsFastForwardedToItsUpstreamAndTheProcessExitsWith42() throws Exception {
        String before = head(checkout);
        // a hook of the checkout never runs (the merge would start it)
        Path hook = checkout.resolve(".git/hooks/post-merge");
        Path marker = checkout.getParent().resolve("post-merge-ran");
        Files.createDirectories(hook.getParent());
        Files.writeString(hook, "#!/bin/sh\ntouch '" + marker + "'\n");
        Files.setPosixFilePermissions(hook, java.nio.file.attribute.PosixFilePermissions.fromString("rwx------"));
        String newer = pushNewCommit("NEW.md", "new file\n");
        List<UpdateStream.Event> events = update();
        UpdateStream.Event done = events.getLast();
        assertEquals("done", done.name(), events.toString());
        JsonNode d = done.data();
        assertTrue(d.path("updated").asBoolean() && d.path("selfRestarting").asBoolean(), d.toString());
        assertEquals("git", d.path("installMode").asText());
        assertEquals(before, d.path("fromRevision").asText());
        assertEquals(newer, d.path("toRevision").asText());
        assertEquals(newer, head(checkout));
        assertEquals("new file\n", Files.readString(checkout.resolve("NEW.md")));
        assertTrue(events.stream().anyMatch(e -> e.name().equals("log")
                && e.data().path("text").asText().equals("$ git fetch --no-recurse-submodules")), events.toString());
        assertTrue(events.stream().anyMatch(e -> e.name().equals("log")
                && e.data().path("text").asText().contains("change NEW.md")), "the new commits are listed");
        assertEquals(42, exited.get(15, TimeUnit.SECONDS));
        assertFalse(Files.exists(marker), "the checkout's post-merge hook ran");
    }

    @Test
    void anUpToDateCheckoutEndsWithUpdatedFalse() throws Exception {
        String before = head(checkout);
        UpdateStream.Event done = update().getLast();
        assertEquals("done", done.name());
        assertFalse(done.data().path("updated").asBoolean(true));
        assertFalse(done.data().path("selfRestarting").asBoolean(true));
        assertEquals(before, head(checkout));
        assertNoExit();
    }

    @Test
    void uncommittedChangesRefuseTheUpdateAndStayAsTheyAre() throws Exception {
        String before = head(checkout);
        pushNewCommit("NEW.md", "new\n");
        GitCli.write(checkout, "README.md", "edited locally\n");
        UpdateStream.Event err = update().getLast();
        assertEquals("error", err.name());
        assertEquals("UPDATE_LOCAL_CHANGES", err.data().path("code").asText(), err.data().toString());
        assertEquals(before, head(checkout));
        assertEquals("edited locally\n", Files.readString(checkout.resolve("README.md")));
        assertFalse(Files.exists(checkout.resolve("NEW.md")));
        assertNoExit();
    }

    @Test
    void aDivergedBranchIsNotFastForwarded() throws Exception {
        pushNewCommit("NEW.md", "new\n");
        GitCli.write(checkout, "LOCAL.md", "local\n");
        git.out(checkout, "add", "--", "LOCAL.md");
        git.out(checkout, "commit", "-q", "-m", "local work");
        String before = head(checkout);
        UpdateStream.Event err = update().getLast();
        assertEquals("UPDATE_NOT_FAST_FORWARD", err.data().path("code").asText(), err.data().toString());
        assertEquals(before, head(checkout));
        assertFalse(Files.exists(checkout.resolve("NEW.md")));
        assertNoExit();
    }

    @Test
    void aBranchWithoutUpstreamIsRefused() throws Exception {
        git.out(checkout, "checkout", "-q", "-b", "local-only");
        UpdateStream.Event err = update().getLast();
        assertEquals("UPDATE_NO_UPSTREAM", err.data().path("code").asText(), err.data().toString());
        assertNoExit();
    }

    @Test
    void anUnreachableOriginIsUpdateSourceUnavailable() throws Exception {
        String before = head(checkout);
        git.out(checkout, "remote", "set-url", "origin", tmp.resolve("gone.git").toString());
        UpdateStream.Event err = update().getLast();
        assertEquals("UPDATE_SOURCE_UNAVAILABLE", err.data().path("code").asText(), err.data().toString());
        assertEquals(before, head(checkout));
        assertNoExit();
    }

    @Test
    void restartWorksTheSameInGitMode() throws Exception {
        expect(s.post("/api/system/restart", null, bearer(token)), 200, null);
        assertEquals(42, exited.get(10, TimeUnit.SECONDS));
    }
}
