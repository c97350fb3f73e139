package org.agentworkspace.server.git;

import org.agentworkspace.testkit.git.AuthWall;
import org.agentworkspace.testkit.git.GitCli;
import static org.agentworkspace.server.TestServer.bearer;
import static org.agentworkspace.server.TestServer.expect;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;

import com.fasterxml.jackson.databind.JsonNode;


import org.agentworkspace.server.TestServer;
import org.junit.jupiter.api.Test;

/**
 * The git token: stored sealed, never shown, session only; sent by push and pull as HTTP Basic only to a configured
 * credential origin, and never in a message, the repository's configuration or the store in clear.
 */
class GitTokenRoutesTest {
    static final String TOKEN = "ghp_CANARYtoken0123456789abcdefWXYZ";


    @Test
    void theTokenIsStoredSealedShownMaskedAndOnlyToSessions() throws IOException {
        try (TestServer s = TestServer.start()) {
            String admin = s.registerAdmin();
            String key = s.createKey(admin, "k", null)[1];
            JsonNode none = expect(s.get("/api/settings/git-token", bearer(admin)), 200, null);
            assertFalse(none.path("configured").asBoolean());
            assertTrue(none.path("masked").isNull());

            HttpResponse<String> put = s.put("/api/settings/git-token", Map.of("token", TOKEN, "username", "octo"),
                    bearer(admin));
            JsonNode set = expect(put, 200, null);
            assertFalse(put.body().contains(TOKEN));
            assertEquals("…WXYZ", set.path("masked").asText());
            assertEquals("octo", set.path("username").asText());
            HttpResponse<String> status = s.get("/api/settings/git-token", bearer(admin));
            assertFalse(status.body().contains("CANARY"));
            assertEquals(Map.of("configured", true, "masked", "…WXYZ", "username", "octo"),
                    TestServer.JSON.convertValue(TestServer.json(status), Map.class));

            // API keys never reach it; another user has their own (none).
            for (String method : List.of("GET", "PUT", "DELETE")) {
                expect(s.send(method, "/api/settings/git-token", method.equals("PUT") ? Map.of("token", "x") : null,
                        "X-API-Key", key), 403, "SESSION_REQUIRED");
            }
            expect(s.post("/api/users", Map.of("username", "bob", "password", "bob-password-1"), bearer(admin)), 201,
                    null);
            String bob = s.login("bob", "bob-password-1");
            assertFalse(expect(s.get("/api/settings/git-token", bearer(bob)), 200, null).path("configured")
                    .asBoolean());
            // A cookie-authenticated change needs our own origin.
            expect(s.put("/api/settings/git-token", Map.of("token", "other-token"), "Cookie", "token=" + bob), 403,
                    "ORIGIN_REJECTED");
            expect(s.put("/api/settings/git-token", Map.of("token", "has space"), bearer(bob)), 400,
                    "VALIDATION_FAILED");
            expect(s.put("/api/settings/git-token", Map.of("username", "x"), bearer(bob)), 400, "VALIDATION_FAILED");
            expect(s.put("/api/settings/git-token", Map.of("token", "t", "username", "a:b"), bearer(bob)), 400,
                    "VALIDATION_FAILED");

            // At rest: only sealed; the key file is private.
            assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(
                    s.dataDir.resolve("secret.key"))));
            try (Stream<Path> files = Files.walk(s.dataDir)) {
                for (Path f : files.filter(Files::isRegularFile).toList()) {
                    String bytes = new String(Files.readAllBytes(f), StandardCharsets.ISO_8859_1);
                    assertFalse(bytes.contains("CANARYtoken"), "the token is in clear in " + f.getFileName());
                }
            }

            assertTrue(expect(s.delete("/api/settings/git-token", null, bearer(admin)), 200, null).path("removed")
                    .asBoolean());
            assertFalse(expect(s.delete("/api/settings/git-token", null, bearer(admin)), 200, null).path("removed")
                    .asBoolean());
            assertFalse(expect(s.get("/api/settings/git-token", bearer(admin)), 200, null).path("configured")
                    .asBoolean());
        }
    }

    @Test
    void pushAndPullSendTheStoredTokenOnlyToAConfiguredOriginAndNeverShowIt() throws Exception {
        Path work = Files.createTempDirectory("aw-gittoken-");
        GitCli git = new GitCli(work.resolve("home"));
        try (AuthWall allowed = new AuthWall(); AuthWall elsewhere = new AuthWall();
             TestServer s = TestServer.start(c -> c.withGitCredentialOrigins(Set.of(allowed.origin())))) {
            String admin = s.registerAdmin();
            Path repo = git.repo(work.resolve("proj"), "a.txt", "a\n");
            git.out(repo, "remote", "add", "origin", allowed.origin() + "/repo.git");
            git.out(repo, "remote", "add", "elsewhere", elsewhere.origin() + "/repo.git");
            git.out(repo, "config", "branch.main.remote", "origin");
            git.out(repo, "config", "branch.main.merge", "refs/heads/main");
            String project = s.quickStart(admin, repo);

            // No token stored: the remote asks, nothing is sent, the answer says so.
            expect(s.post("/api/git/push", Map.of("project", project), bearer(admin)), 403, "GIT_AUTH_FAILED");
            assertTrue(allowed.authorizations().isEmpty());

            expect(s.put("/api/settings/git-token", Map.of("token", TOKEN), bearer(admin)), 200, null);
            for (HttpResponse<String> res : List.of(
                    s.post("/api/git/push", Map.of("project", project), bearer(admin)),
                    s.post("/api/git/pull", Map.of("project", project), bearer(admin)))) {
                expect(res, 403, "GIT_AUTH_FAILED");
                assertFalse(res.body().contains("CANARY") || res.body().contains(TOKEN), res.body());
                assertFalse(res.body().contains("127.0.0.1"), "no remote URL in the message: " + res.body());
            }
            String basic = "Basic " + Base64.getEncoder().encodeToString(("x-access-token:" + TOKEN)
                    .getBytes(StandardCharsets.UTF_8));
            assertTrue(allowed.authorizations().contains(basic), "the token was offered to the configured origin");

            // A remote on another origin never sees it.
            HttpResponse<String> other = s.post("/api/git/push", Map.of("project", project, "remote", "elsewhere"),
                    bearer(admin));
            expect(other, 403, "GIT_AUTH_FAILED");
            assertFalse(elsewhere.requests().isEmpty(), "the other remote was contacted");
            assertTrue(elsewhere.authorizations().isEmpty(), "but got no credentials: " + elsewhere.authorizations());

            String config = Files.readString(repo.resolve(".git/config"));
            assertFalse(config.contains("CANARY"), "the token is never written to the repository");
        }
    }
}
