package org.agentworkspace.server.agent;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.any;
import static com.github.tomakehurst.wiremock.client.WireMock.anyUrl;
import static com.github.tomakehurst.wiremock.client.WireMock.post;
import static com.github.tomakehurst.wiremock.client.WireMock.postRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.urlEqualTo;
import static org.agentworkspace.server.TestServer.expect;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;

import com.fasterxml.jackson.databind.JsonNode;
import com.github.tomakehurst.wiremock.WireMockServer;
import com.github.tomakehurst.wiremock.core.WireMockConfiguration;
import com.github.tomakehurst.wiremock.verification.LoggedRequest;

import org.agentworkspace.core.agent.AgentSettings;
import org.agentworkspace.server.TestServer;
import org.agentworkspace.testkit.fakecli.FakeClis;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code githubUrl} runs through the server: the clone from a local smart-HTTP git server (allowed by the test-only
 * insecure host setting), the branch pushed back, the pull request opened on a WireMock GitHub API, the temporary
 * clone removed; the token never lands in {@code .git/config} or a response. Then the SSRF attempts: every one is
 * 400 before any connection, which a canary listener proves by counting zero accepted connections.
 */
class GithubFlowTest {
    static final String TOKEN = "ghp_test_token_never_stored_1234";
    @TempDir
    static Path tmp;
    static GitHttpServer git;
    static WireMockServer github;
    static WireMockServer redirector;
    static ServerSocket canary;
    static final AtomicInteger canaryHits = new AtomicInteger();
    static TestServer s;
    static String key;
    static Path bare;

    static void run(Path dir, String... argv) throws Exception {
        Process p = new ProcessBuilder(argv).directory(dir.toFile()).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, p.waitFor(), String.join(" ", argv) + ": " + out);
    }

    static String output(Path dir, String... argv) throws Exception {
        Process p = new ProcessBuilder(argv).directory(dir.toFile()).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        p.waitFor();
        return out;
    }

    @BeforeAll
    static void start() throws Exception {
        Path work = Files.createDirectories(tmp.resolve("seed"));
        run(work, "git", "init", "-q", "-b", "main");
        Files.writeString(work.resolve("README.md"), "# widgets\n");
        run(work, "git", "add", ".");
        run(work, "git", "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "initial");
        Path root = Files.createDirectories(tmp.resolve("git-root/acme"));
        bare = root.resolve("widgets.git");
        run(tmp, "git", "clone", "-q", "--bare", work.toString(), bare.toString());
        git = new GitHttpServer(tmp.resolve("git-root"), TOKEN);

        github = new WireMockServer(WireMockConfiguration.options().dynamicPort().bindAddress("127.0.0.1"));
        github.start();
        github.stubFor(post(urlEqualTo("/repos/acme/widgets/pulls")).willReturn(aResponse().withStatus(201)
                .withHeader("Content-Type", "application/json")
                .withBody("{\"number\":7,\"html_url\":\"https://github.example/acme/widgets/pull/7\"}")));

        canary = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread.ofVirtual().start(() -> {
            while (!canary.isClosed()) {
                try (Socket ignored = canary.accept()) {
                    canaryHits.incrementAndGet();
                } catch (IOException e) {
                    return;
                }
            }
        });
        redirector = new WireMockServer(WireMockConfiguration.options().dynamicPort().bindAddress("127.0.0.1"));
        redirector.start();
        redirector.stubFor(any(anyUrl()).willReturn(aResponse().withStatus(302)
                .withHeader("Location", "http://127.0.0.1:" + canary.getLocalPort() + "/acme/widgets.git/info/refs")));

        Path bin = FakeClis.install(tmp.resolve("bin"));
        s = TestServer.start(c -> c.withAgent(AgentSettings.defaults().withBinaries(Map.of("*", bin))
                .withProviderEnv(Map.of("claude", Map.of("AW_FAKE_WRITE_FILE", "agent-output.txt")))
                .withClone(Set.of("github.com", "localhost"), Set.of("127.0.0.1:" + git.port(),
                        "127.0.0.1:" + redirector.port()), URI.create(github.baseUrl()))));
        String session = s.registerAdmin();
        key = s.createKey(session, "ci", List.of("tasks:write", "tasks:read"))[1];
    }

    @AfterAll
    static void stop() throws IOException {
        s.close();
        git.close();
        github.stop();
        redirector.stop();
        canary.close();
    }

    static Map<String, Object> body(Object... kv) {
        Map<String, Object> m = new HashMap<>();
        for (int i = 0; i + 1 < kv.length; i += 2) {
            m.put((String) kv[i], kv[i + 1]);
        }
        return m;
    }

    String repoUrl() {
        return "http://127.0.0.1:" + git.port() + "/acme/widgets.git";
    }

    @Test
    void cloneBranchAndPullRequest() throws Exception {
        JsonNode r = expect(s.post("/api/agent", body("message", "Add the output file", "provider", "claude",
                "githubUrl", repoUrl(), "githubToken", TOKEN, "branchName", "agent/add-output", "createPR", true,
                "stream", false), "X-API-Key", key), 200, null);
        assertTrue(r.path("success").asBoolean(), r.toString());
        assertEquals("agent/add-output", r.path("branch").asText(), r.toString());
        assertEquals("https://github.example/acme/widgets/pull/7", r.path("pullRequestUrl").asText(), r.toString());
        assertFalse(r.toString().contains(TOKEN), "the token is never echoed");

        String refs = output(tmp, "git", "--git-dir", bare.toString(), "show-ref");
        assertTrue(refs.contains("refs/heads/agent/add-output"), refs);
        String files = output(tmp, "git", "--git-dir", bare.toString(), "ls-tree", "--name-only", "agent/add-output");
        assertTrue(files.contains("agent-output.txt"), "the agent's file was committed: " + files);

        List<LoggedRequest> prs = github.findAll(postRequestedFor(urlEqualTo("/repos/acme/widgets/pulls")));
        assertEquals(1, prs.size());
        JsonNode pr = TestServer.JSON.readTree(prs.getFirst().getBodyAsString());
        assertEquals("agent/add-output", pr.path("head").asText());
        assertEquals("main", pr.path("base").asText());
        assertTrue(pr.path("body").asText().contains("## Changes"), pr.toString());
        assertEquals("Bearer " + TOKEN, prs.getFirst().getHeader("Authorization"));

        Path clones = s.dataDir.resolve("clones");
        try (Stream<Path> left = Files.exists(clones) ? Files.list(clones) : Stream.empty()) {
            assertEquals(0, left.count(), "the temporary clone was removed (cleanup defaults to true)");
        }
        assertTrue(git.requests.stream().anyMatch(q -> q.contains("git-receive-pack")), git.requests.toString());
    }

    @Test
    void aCloneIntoProjectPathKeepsNoTokenInGitConfig() throws Exception {
        Path target = tmp.resolve("kept-clone");
        JsonNode r = expect(s.post("/api/agent", body("message", "Say hello", "provider", "codex",
                "githubUrl", repoUrl(), "githubToken", TOKEN, "projectPath", target.toString(), "cleanup", false,
                "stream", false), "X-API-Key", key), 200, null);
        assertTrue(r.path("success").asBoolean(), r.toString());
        assertTrue(Files.exists(target.resolve("README.md")), "cloned into projectPath");
        String config = Files.readString(target.resolve(".git/config"));
        assertFalse(config.contains(TOKEN), config);
        assertTrue(config.contains("followRedirects = false"), config);
        assertTrue(config.contains(repoUrl()), config);
        // the target is not empty any more: a second clone into it is refused
        expect(s.post("/api/agent", body("message", "again", "githubUrl", repoUrl(), "githubToken", TOKEN,
                "projectPath", target.toString(), "stream", false), "X-API-Key", key), 400, "INVALID_PATH");
    }

    @Test
    void aWrongTokenFailsTheCloneWithoutEchoingIt() {
        JsonNode e = expect(s.post("/api/agent", body("message", "hi", "githubUrl", repoUrl(), "githubToken",
                "ghp_wrong_token_value", "stream", false), "X-API-Key", key), 400, "CLONE_FAILED");
        assertFalse(e.toString().contains("ghp_wrong_token_value"), e.toString());
        Path target = tmp.resolve("failed-clone-target");
        expect(s.post("/api/agent", body("message", "hi", "githubUrl", repoUrl(), "githubToken",
                "ghp_wrong_token_value", "projectPath", target.toString(), "stream", false), "X-API-Key", key), 400,
                "CLONE_FAILED");
        try (Stream<Path> left = Files.list(target)) {
            assertEquals(0, left.count(), "no half clone is left in projectPath");
        } catch (IOException ex) {
            throw new AssertionError(ex);
        }
    }

    @Test
    void ssrfAttemptsAreRefusedBeforeAnyConnection() {
        int port = canary.getLocalPort();
        List<String> attempts = List.of(
                "https://127.0.0.1:" + port + "/acme/widgets.git",
                "http://127.0.0.1:" + port + "/acme/widgets.git",
                "https://localhost:" + port + "/acme/widgets",
                "https://localhost/acme/widgets",
                "https://github.com:" + port + "/acme/widgets",
                "http://github.com/acme/widgets",
                "https://user:secret@github.com/acme/widgets",
                "https://github.com@127.0.0.1:" + port + "/acme/widgets",
                "file:///etc/passwd",
                "file://" + bare,
                "ssh://git@github.com/acme/widgets.git",
                "git@github.com:acme/widgets.git",
                "git://github.com/acme/widgets.git",
                "https://169.254.169.254/latest/meta-data",
                "https://[::1]:" + port + "/acme/widgets",
                "https://2130706433:" + port + "/acme/widgets",
                "https://github.com/acme/widgets/../../../etc",
                "https://github.com/acme",
                "https://github.com/acme/widgets?x=1",
                "https://evil.example/acme/widgets",
                "https://github.com.evil.example/acme/widgets",
                "  https://github.com/acme/widgets",
                "https://github.com/-upload-pack=touch/x");
        for (String url : attempts) {
            JsonNode e = expect(s.post("/api/agent", body("message", "hi", "githubUrl", url, "stream", false),
                    "X-API-Key", key), 400, "INVALID_REPOSITORY_URL");
            assertFalse(e.toString().contains("secret"), e.toString());
        }
        assertEquals(0, canaryHits.get(), "no connection reached the canary");
    }

    @Test
    void aRedirectToAnotherHostIsNotFollowed() {
        String url = "http://127.0.0.1:" + redirector.port() + "/acme/widgets.git";
        expect(s.post("/api/agent", body("message", "hi", "githubUrl", url, "githubToken", TOKEN, "stream", false),
                "X-API-Key", key), 400, "CLONE_FAILED");
        assertEquals(0, canaryHits.get(), "the redirect target saw no connection");
        assertFalse(redirector.getAllServeEvents().isEmpty(), "the allowed host was asked");
    }
}
