package org.agentworkspace.server;

import org.agentworkspace.testkit.git.GitCli;
import static org.agentworkspace.server.TestServer.bearer;
import static org.agentworkspace.server.TestServer.expect;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.agentworkspace.api.Scope;
import org.agentworkspace.api.User;
import org.agentworkspace.server.http.RouteTable;
import org.agentworkspace.server.http.SessionTokens;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Every secured route in the route table, against every kind of bad credential: 401 and nothing changes. Then the
 * authorisation matrix: keys on session-only routes, non-administrators on administrator routes, and keys holding
 * every scope but the one a route needs: 403 and nothing changes.
 */
class SecurityMatrixTest {
    static TestServer s;
    static String admin;
    static String bob;
    static String[] key;
    static String bobId;
    static Map<String, String> badCredentials = new LinkedHashMap<>();
    static java.nio.file.Path work;
    static String project;

    @BeforeAll
    static void setUp() throws Exception {
        s = TestServer.start();
        admin = s.registerAdmin();
        bobId = expect(s.post("/api/users", Map.of("username", "bob", "password", "bob-password-1"), bearer(admin)),
                201, null).path("id").asText();
        bob = s.login("bob", "bob-password-1");
        key = s.createKey(admin, "default scopes", null);

        // A project that every file and git route could change: a repository one commit ahead of its bare remote,
        // with an untracked file to commit, a second branch to check out, and the administrator's git token set.
        work = Files.createTempDirectory("aw-matrix-");
        GitCli git = new GitCli(work.resolve("home"));
        java.nio.file.Path repo = git.repo(work.resolve("proj"), "a.txt", "alpha\n", "dir/b.txt", "beta\n");
        git.bareRemote(repo, work.resolve("remote.git"));
        git.out(repo, "branch", "other");
        GitCli.write(repo, "a.txt", "alpha 2\n");
        git.out(repo, "commit", "-q", "-am", "ahead");
        GitCli.write(repo, "dirty.txt", "untracked\n");
        project = s.quickStart(admin, repo);
        expect(s.put("/api/settings/git-token", Map.of("token", "matrix-token-0123456789"), bearer(admin)), 200, null);
        // provider state every provider route could change: a stored key, an MCP entry, a config file
        expect(s.post("/api/providers/claude/auth/api-key", Map.of("apiKey", "sk-matrix-claude-0123456789"),
                bearer(admin)), 200, null);
        expect(s.post("/api/providers/claude/mcp/servers", Map.of("name", "matrix-server", "command", "/bin/true"),
                bearer(admin)), 200, null);
        expect(s.put("/api/providers/claude/config-files/settings", Map.of("content", "{\"model\": \"opus\"}"),
                bearer(admin)), 200, null);

        byte[] secret = Files.readAllBytes(s.dataDir.resolve("jwt-secret"));
        User adminUser = s.server.engine().auth().accounts().list().getFirst();
        Clock past = Clock.fixed(Instant.now().minus(Duration.ofDays(8)), ZoneOffset.UTC);
        badCredentials.put("expired JWT", new SessionTokens(secret, past, Duration.ofDays(7)).issue(adminUser));
        byte[] other = new byte[32];
        new SecureRandom().nextBytes(other);
        badCredentials.put("JWT signed with another secret",
                new SessionTokens(other, Clock.systemUTC(), Duration.ofDays(1)).issue(adminUser));
        String[] parts = admin.split("\\.");
        String noneHeader = b64("{\"alg\":\"none\",\"typ\":\"JWT\"}");
        badCredentials.put("alg none", noneHeader + "." + parts[1] + ".");
        badCredentials.put("alg none with signature", noneHeader + "." + parts[1] + "." + parts[2]);
        badCredentials.put("HS512 header", b64("{\"alg\":\"HS512\",\"typ\":\"JWT\",\"kid\":\"aw-session-1\"}") + "."
                + parts[1] + "." + parts[2]);
        String sig = parts[2];
        // flip the FIRST character: the last one of a 32-byte signature carries padding bits, so changing it
        // (A to B) can leave the decoded signature identical and the "forgery" valid
        char first = sig.charAt(0);
        badCredentials.put("flipped signature", parts[0] + "." + parts[1] + "."
                + (first == 'A' ? 'B' : 'A') + sig.substring(1));
        badCredentials.put("malformed JWT", "abc.def.ghi");
        badCredentials.put("garbage", "not-a-token");

        String ghostId = expect(s.post("/api/users", Map.of("username", "ghost", "password", "ghost-password"),
                bearer(admin)), 201, null).path("id").asText();
        String ghost = s.login("ghost", "ghost-password");
        expect(s.send("DELETE", "/api/users/" + ghostId, null, bearer(admin)), 200, null);
        badCredentials.put("JWT of a deleted user", ghost);

        String[] inactive = s.createKey(admin, "inactive", null);
        expect(s.send("PATCH", "/api/settings/api-keys/" + inactive[0] + "/toggle", Map.of("is_active", false),
                bearer(admin)), 200, null);
        badCredentials.put("inactive key", inactive[1]);
        String[] deleted = s.createKey(admin, "deleted", null);
        expect(s.send("DELETE", "/api/settings/api-keys/" + deleted[0], null, bearer(admin)), 200, null);
        badCredentials.put("deleted key", deleted[1]);
        badCredentials.put("unknown key", "px_" + "0".repeat(32));
        badCredentials.put("malformed key", "px_" + "0".repeat(31));
    }

    @AfterAll
    static void tearDown() {
        s.close();
    }

    static String b64(String s) {
        return Base64.getUrlEncoder().withoutPadding().encodeToString(s.getBytes(StandardCharsets.UTF_8));
    }

    /** A concrete path and a body that would change something if the request got through. */
    static HttpResponse<String> call(RouteTable.Route r, String... headers) {
        return s.send(r.method(), concretePath(r), body(r), headers);
    }

    /** The route's path with real ids and names, and the query a GET needs to succeed. */
    static String concretePath(RouteTable.Route r) {
        String path = r.path().replace("{keyId}", key[0]).replace("{userId}", bobId).replace("{projectName}", project)
                .replace("{runId}", "run_none").replace("{taskId}", "task_none").replace("{workflowId}", "agent_team")
                .replace("{provider}", "claude").replace("{jobId}", "no-such-job").replace("{fileId}", "settings")
                .replace("{name}", "matrix-server").replace("{sessionId}", "no-such-session")
                .replace("{notificationId}", "1").replace("{subscriptionId}", "wps_none")
                .replace("{checkpointId}", "cp_000000000000").replace("{itemId}", "run_none")
                .replace("{planId}", "plan_none");
        return switch (r.method() + " " + r.path()) {
            case "GET /api/projects/{projectName}/file" -> path + "?path=a.txt";
            case "GET /api/projects/{projectName}/files" -> path + "?path=dir";
            case "GET /api/git/status", "GET /api/git/diff", "GET /api/git/branches" -> path + "?project=" + project;
            case "GET /api/browse-filesystem" -> path + "?path=" + TestServer.q(work.toString());
            case "GET /api/sessions/{sessionId}/messages" -> path + "?projectName=" + project;
            case "GET /api/search/conversations" -> path + "?q=hello";
            default -> path;
        };
    }

    static Object body(RouteTable.Route r) {
        return switch (r.method() + " " + r.path()) {
            case "POST /api/settings/api-keys" -> Map.of("name", "sneaky");
            case "PATCH /api/settings/api-keys/{keyId}/toggle" -> Map.of("is_active", false);
            case "POST /api/users" -> Map.of("username", "sneaky", "password", "sneaky-password");
            case "POST /api/projects/quick-start" -> Map.of("path", work.resolve("sneaky-project").toString());
            case "PUT /api/projects/{projectName}/rename" -> Map.of("displayName", "sneaky");
            case "PUT /api/sessions/{sessionId}/rename" -> Map.of("title", "sneaky");
            case "DELETE /api/projects/{projectName}/files" -> Map.of("path", "dir");
            case "PUT /api/projects/{projectName}/file" -> Map.of("path", "a.txt", "content", "pwned");
            case "POST /api/projects/{projectName}/files/create" -> Map.of("path", "sneaky.txt", "type", "file");
            case "PUT /api/projects/{projectName}/files/rename" -> Map.of("oldPath", "a.txt", "newPath", "moved.txt");
            case "POST /api/git/commit" -> Map.of("project", project, "message", "sneaky", "files", List.of("dirty.txt"));
            case "POST /api/git/push", "POST /api/git/pull" -> Map.of("project", project);
            case "POST /api/git/checkout" -> Map.of("project", project, "branch", "other");
            case "PUT /api/settings/git-token" -> Map.of("token", "sneaky-token-0123456789");
            case "POST /api/automation/tasks", "POST /api/tasks" -> Map.of("prompt", "sneaky", "projectId", project,
                    "schedule", Map.of("kind", "once", "at", "2099-01-01T00:00:00Z"));
            case "PATCH /api/automation/tasks/{taskId}", "PATCH /api/tasks/{taskId}" -> Map.of("name", "sneaky");
            case "PUT /api/settings/notification-preferences" -> Map.of(
                    "channels", Map.of("inApp", false, "webPush", false),
                    "events", Map.of("actionRequired", false, "stop", false, "error", false));
            case "POST /api/notifications/web-push/subscriptions" -> Map.of(
                    "endpoint", "https://push.example.com/sneaky", "keys", PushKeys.random().json());
            case "POST /api/agent" -> Map.of("message", "sneaky", "projectPath", work.toString(), "stream", false);
            case "POST /api/automation/run" -> Map.of("prompt", "sneaky", "projectPath", work.toString());
            case "POST /api/providers/{provider}/auth/api-key" -> Map.of("apiKey", "sk-sneaky-0123456789abcdef");
            case "POST /api/providers/{provider}/oauth-paste" ->
                    Map.of("url", "https://login.example/done#access_token=sneaky-token-0123456789");
            case "PUT /api/providers/{provider}/config-files/{fileId}" -> Map.of("content", "{\"pwned\": true}");
            case "POST /api/providers/{provider}/mcp/servers", "POST /api/providers/mcp/servers/global" ->
                    Map.of("name", "sneaky", "command", "/bin/true");
            default -> r.method().equals("GET") ? null : Map.of();
        };
    }

    /** Users, keys, projects, the project's files and git state, and the git token, as the administrator sees them. */
    static String state() {
        String users = s.get("/api/users", bearer(admin)).body() + s.get("/api/automation/runs", bearer(admin)).body();
        String keys = s.get("/api/settings/api-keys", bearer(admin)).body().replaceAll("\"last_used\":(null|\"[^\"]*\")", "");
        String projects = s.get("/api/projects", bearer(admin)).body();
        String files = s.get("/api/projects/" + project + "/files", bearer(admin)).body()
                + s.get("/api/projects/" + project + "/files?path=dir", bearer(admin)).body()
                + s.get("/api/projects/" + project + "/file?path=a.txt", bearer(admin)).body();
        String git = s.get("/api/git/status?project=" + project, bearer(admin)).body()
                + s.get("/api/git/branches?project=" + project, bearer(admin)).body();
        String token = s.get("/api/settings/git-token", bearer(admin)).body()
                + s.get("/api/notifications/web-push/subscriptions", bearer(admin)).body();
        String providers = s.get("/api/providers/credentials", bearer(admin)).body()
                + s.get("/api/providers/claude/mcp/servers", bearer(admin)).body()
                + s.get("/api/providers/codex/mcp/servers", bearer(admin)).body()
                + s.get("/api/providers/claude/config-files/settings", bearer(admin)).body();
        assertTrue(providers.contains("\"hasCredential\":true") && providers.contains("matrix-server")
                && providers.contains("opus"), "the provider state is readable: " + providers);
        assertTrue(projects.contains(project) && files.contains("alpha 2") && git.contains("\"ahead\":1")
                && token.contains("\"configured\":true"), "the state is readable: " + projects + files + git + token);
        return users + keys + projects + files + git + token + providers
                + java.nio.file.Files.exists(work.resolve("sneaky-project"));
    }

    static List<RouteTable.Route> secured() {
        List<RouteTable.Route> out = new ArrayList<>();
        for (RouteTable.Route r : s.server.routes().routes()) {
            if (!r.access().isPublic()) {
                out.add(r);
            }
        }
        assertFalse(out.isEmpty());
        return out;
    }

    @Test
    void everySecuredRouteRefusesEveryBadCredential() {
        String before = state();
        int checked = 0;
        for (RouteTable.Route r : secured()) {
            assertEquals(401, call(r).statusCode(), "no credential: " + r);
            for (Map.Entry<String, String> bad : badCredentials.entrySet()) {
                HttpResponse<String> res = call(r, "Authorization", "Bearer " + bad.getValue());
                assertEquals(401, res.statusCode(), bad.getKey() + " as bearer on " + r + ": " + res.body());
                if (bad.getValue().startsWith("px_")) {
                    assertEquals(401, call(r, "X-API-Key", bad.getValue()).statusCode(), bad.getKey() + " " + r);
                } else {
                    assertEquals(401, call(r, "Cookie", "token=" + bad.getValue(), "Origin", s.origin())
                            .statusCode(), bad.getKey() + " as cookie on " + r);
                }
                checked++;
            }
            String concrete = concretePath(r);
            String q = concrete.contains("?") ? "&" : "?";
            HttpResponse<String> inQuery = s.send(r.method(), concrete + q + "apiKey=" + key[1], body(r));
            expect(inQuery, 401, "QUERY_CREDENTIALS_DISABLED");
            HttpResponse<String> tokenInQuery = s.send(r.method(), concrete + q + "token=" + admin, body(r));
            expect(tokenInQuery, 401, "QUERY_CREDENTIALS_DISABLED");
        }
        assertTrue(checked > 50, "checked " + checked);
        assertEquals(before, state(), "a refused request changed something");
    }

    @Test
    void credentialsAreAcceptedOnlyByTheirOwnCarrier() {
        expect(s.get("/api/auth/user", "X-API-Key", admin), 401, "INVALID_API_KEY");
        expect(s.get("/api/auth/user", "Cookie", "token=" + key[1]), 401, "INVALID_TOKEN");
        expect(s.get("/api/auth/user", "Authorization", "Basic " + b64("admin:" + TestServer.ADMIN_PASSWORD)), 401,
                "INVALID_TOKEN");
        expect(s.get("/api/auth/user", "Authorization", "Bearer"), 401, "INVALID_TOKEN");
        expect(s.get("/api/auth/user", "Authorization", "Bearer  " + key[1]), 401, "INVALID_TOKEN");
        expect(s.get("/api/auth/user", "Authorization", "Bearer " + key[1], "X-API-Key", key[1]), 401,
                "INVALID_TOKEN");
        expect(s.get("/api/auth/user", "Authorization", "bearer " + key[1]), 200, null);
        expect(s.get("/api/auth/user", "X-API-Key", key[1]), 200, null);
    }

    @Test
    void keysAreRefusedOnSessionOnlyRoutesAndNonAdministratorsOnAdministratorRoutes() {
        String before = state();
        int sessionOnly = 0;
        int adminOnly = 0;
        for (RouteTable.Route r : secured()) {
            if (r.access().sessionOnly()) {
                expect(call(r, "X-API-Key", key[1]), 403, "SESSION_REQUIRED");
                sessionOnly++;
            }
            if (r.access().adminOnly()) {
                expect(call(r, bearer(bob)), 403, "ADMIN_REQUIRED");
                adminOnly++;
            }
        }
        assertTrue(sessionOnly >= 4 && adminOnly >= 3, sessionOnly + " " + adminOnly);
        assertEquals(before, state());
    }

    /**
     * What belongs to the administrator's account, and the host state only administrators change (users, MCP
     * entries, config files, the project registry), as the administrator sees it. Shared state a non-administrator
     * may legitimately change (a registered project's files and git, registering another folder inside the roots)
     * is left out.
     */
    static String accountState(String taskId) {
        return s.get("/api/users", bearer(admin)).body()
                + s.get("/api/settings/api-keys", bearer(admin)).body()
                        .replaceAll("\"last_used\":(null|\"[^\"]*\")", "")
                + s.get("/api/settings/git-token", bearer(admin)).body()
                + s.get("/api/notifications/web-push/subscriptions", bearer(admin)).body()
                + s.get("/api/settings/notification-preferences", bearer(admin)).body()
                + s.get("/api/notifications", bearer(admin)).body()
                + s.get("/api/automation/tasks/" + taskId, bearer(admin)).body()
                + s.get("/api/projects", bearer(admin)).body().replaceAll("\"lastActivity\":\"[^\"]*\"", "")
                + s.get("/api/providers/claude/mcp/servers", bearer(admin)).body()
                + s.get("/api/providers/codex/mcp/servers", bearer(admin)).body()
                + s.get("/api/providers/claude/config-files/settings", bearer(admin)).body()
                + s.get("/api/providers/credentials", bearer(admin)).body();
    }

    /**
     * Two accounts on every route: the second (a non-administrator, with its session and with its own key) is
     * refused every administrator route, never gets a 500, and whatever it sends — aimed at the administrator's key,
     * task, project and provider state — leaves the administrator's account and the administrators' host state as
     * they were.
     */
    @Test
    void aSecondAccountReachesNothingOfTheFirstOnAnyRoute() {
        String taskId = expect(s.post("/api/automation/tasks", Map.of("prompt", "admin's", "projectId", project,
                "schedule", Map.of("kind", "once", "at", "2099-01-01T00:00:00Z")), bearer(admin)), 201, null)
                .path("id").asText();
        String[] bobKey = s.createKey(bob, "bob's key", null);
        // a project's files and git are shared host state a non-administrator may change: the second account's
        // calls go to a scratch repository, so the fixture the other tests watch stays as it is
        GitCli git = new GitCli(work.resolve("home"));
        java.nio.file.Path scratchRepo = git.repo(work.resolve("scratch"), "a.txt", "alpha\n", "dir/b.txt", "beta\n");
        git.out(scratchRepo, "branch", "other");
        String scratch = s.quickStart(admin, scratchRepo);
        String before = accountState(taskId);
        assertTrue(before.contains("matrix-server") && before.contains("opus") && before.contains(key[0])
                && before.contains(taskId), before);
        int checked = 0;
        for (RouteTable.Route r : secured()) {
            if (r.access().streaming() && !r.access().adminOnly()) {
                continue; // an open stream only reads; which run or event a stream shows is its family's test
            }
            String path = concretePath(r).replace("task_none", taskId).replace(project, scratch);
            String body;
            try {
                body = body(r) == null ? null : TestServer.JSON.writeValueAsString(body(r)).replace(project, scratch);
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
            HttpResponse<String> asSession;
            try {
                asSession = s.send(r.method(), path, body, bearer(bob));
            } catch (RuntimeException e) {
                throw new AssertionError(r + " as the second account: " + e, e);
            }
            if (r.access().adminOnly()) {
                expect(asSession, 403, "ADMIN_REQUIRED");
            }
            assertFalse(asSession.body().contains("INTERNAL_ERROR"), r + ": " + asSession.body());
            if (!r.access().sessionOnly()) {
                HttpResponse<String> asKey = s.send(r.method(), path, body, "X-API-Key", bobKey[1]);
                assertFalse(asKey.body().contains("INTERNAL_ERROR"), r + ": " + asKey.body());
                assertTrue(asKey.statusCode() != 200 || !r.access().adminOnly(), r + ": " + asKey.body());
            }
            assertEquals(before, accountState(taskId), "the second account changed the first's state through " + r);
            checked++;
        }
        assertTrue(checked > 100, "routes checked: " + checked);
        System.out.println("two-account matrix checked " + checked + " routes");
    }

    @Test
    void aKeyWithEveryScopeButTheNeededOneIsRefused() {
        int checked = 0;
        for (RouteTable.Route r : secured()) {
            Scope needed = r.access().scope();
            if (needed == null || r.access().sessionOnly()) {
                continue;
            }
            List<String> others = Scope.all().stream().filter(x -> x != needed).map(Scope::id).toList();
            String[] k = s.createKey(admin, "all but " + needed.id(), others);
            String before = state();
            expect(call(r, "X-API-Key", k[1]), 403, "INSUFFICIENT_SCOPE");
            assertEquals(before, state());
            checked++;
        }
        // Every family that declares scoped routes is checked here without further changes: projects, files and
        // git give 17 so far.
        assertTrue(checked >= 17, "scoped routes checked: " + checked);
        System.out.println("scope matrix checked " + checked + " scoped routes");
    }

    /**
     * Every change route (public ones too), given the body that would change something plus one field it does not
     * take: 400 naming the field, before anything is done. A misspelt field (say {@code agent} for
     * {@code agentType}) must never be ignored and the request carried out with a default in its place.
     */
    @Test
    @SuppressWarnings("unchecked")
    void everyChangeRouteRefusesAnUnknownBodyField() {
        String[] everyScope = s.createKey(admin, "every scope", Scope.all().stream().map(Scope::id).toList());
        String before = state();
        int checked = 0;
        for (RouteTable.Route r : s.server.routes().routes()) {
            if (r.method().equals("GET")) {
                continue;
            }
            Object base = body(r);
            Map<String, Object> withTypo = new LinkedHashMap<>(base instanceof Map<?, ?> m
                    ? (Map<String, Object>) m : Map.of());
            withTypo.put("zzMisspeltField", "x");
            String[] credential = r.access().isPublic() ? new String[0]
                    : r.access().keyOnly() ? new String[] {"X-API-Key", everyScope[1]} : bearer(admin);
            HttpResponse<String> res = s.send(r.method(), concretePath(r), withTypo, credential);
            expect(res, 400, "VALIDATION_FAILED");
            assertTrue(TestServer.json(res).path("error").path("message").asText().contains("'zzMisspeltField'"),
                    r + ": " + res.body());
            checked++;
        }
        assertTrue(checked > 40, "change routes checked: " + checked);
        // the walk of issue 17: {"agent": "codex"} ran claude; now the answer names the field and the right one
        HttpResponse<String> typo = s.post("/api/automation/run", Map.of("prompt", "hi", "agent", "codex",
                "projectId", project), bearer(admin));
        String message = expect(typo, 400, "VALIDATION_FAILED").path("error").path("message").asText();
        assertTrue(message.contains("'agent'") && message.contains("agentType"), message);
        typo = s.post("/api/agent", Map.of("message", "hi", "agent", "codex", "projectPath", work.toString()),
                "X-API-Key", everyScope[1]);
        message = expect(typo, 400, "VALIDATION_FAILED").path("error").path("message").asText();
        assertTrue(message.contains("'agent'") && message.contains("provider"), message);
        assertEquals(before, state(), "a request with an unknown field changed something");
    }
}
