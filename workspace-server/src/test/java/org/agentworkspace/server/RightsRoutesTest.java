package org.agentworkspace.server;

import static org.agentworkspace.server.TestServer.bearer;
import static org.agentworkspace.server.TestServer.expect;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import com.fasterxml.jackson.databind.JsonNode;
import com.sun.net.httpserver.HttpServer;

import org.agentworkspace.core.agent.AgentSettings;
import org.agentworkspace.testkit.fakecli.FakeClis;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Rights over host state through the running server (issue 18 points 4–7, issue 17's project frictions): project
 * roots on quick-start and on runs' working directories, /api/agent under /api/automation/run's trusted-caller
 * rule, sessions resumed and read only by their account, and the outbound-address policy for a provider baseUrl
 * (a literal internal address refused when stored; a name resolving to one refused at connection time, through the
 * resolver hook).
 */
class RightsRoutesTest {
    static TestServer s;
    static String admin;
    static String bob;
    static String adminKey;
    static String bobKey;
    static Path dir;
    static Path allowed;
    static Path home;
    static Path bin;
    static HttpServer permitted;
    static HttpServer internal;
    static final AtomicInteger permittedHits = new AtomicInteger();
    static final AtomicInteger internalHits = new AtomicInteger();
    static final List<String> permittedKeys = new CopyOnWriteArrayList<>();
    static final List<String> resolved = new CopyOnWriteArrayList<>();

    static HttpServer modelServer(AtomicInteger hits, List<String> keys) throws Exception {
        HttpServer h = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        h.createContext("/", ex -> {
            hits.incrementAndGet();
            if (keys != null) {
                keys.add(ex.getRequestHeaders().getFirst("x-api-key"));
            }
            byte[] body = "{\"data\":[{\"id\":\"claude-from-endpoint\",\"display_name\":\"Endpoint\"}],\"has_more\":false}"
                    .getBytes(java.nio.charset.StandardCharsets.UTF_8);
            ex.getResponseHeaders().add("Content-Type", "application/json");
            ex.sendResponseHeaders(200, body.length);
            ex.getResponseBody().write(body);
            ex.close();
        });
        h.start();
        return h;
    }

    @BeforeAll
    static void start() throws Exception {
        dir = Files.createTempDirectory("aw-rights-");
        allowed = Files.createDirectories(dir.resolve("allowed"));
        home = Files.createDirectories(allowed.resolve("home"));
        bin = FakeClis.install(allowed.resolve("tools").resolve("bin"));
        permitted = modelServer(permittedHits, permittedKeys);
        internal = modelServer(internalHits, null);
        // the resolver hook: names under .rebind.test resolve to loopback; the rest as the system resolves them
        org.agentworkspace.core.network.OutboundPolicy.Resolver hook = host -> {
            resolved.add(host);
            if (host.endsWith(".rebind.test")) {
                return new InetAddress[] {InetAddress.getByName("127.0.0.1")};
            }
            if (host.endsWith(".test")) {
                throw new UnknownHostException(host);
            }
            return InetAddress.getAllByName(host);
        };
        // a conversation an administrator had with claude on this host, found in its history on disk
        org.agentworkspace.testkit.historygen.HistoryGenerator.writeSession(home, "claude",
                Files.createDirectories(allowed.resolve("admin-work")).toString(), "Admin's private title",
                "First prompt of the admin", java.time.Instant.now().minus(java.time.Duration.ofHours(1)), 3, 4_000);
        s = TestServer.start(c -> c.withEngine(c.engine().withAccess(c.engine().access().withResolver(hook)))
                .withProjectRoots(List.of(allowed))
                .withOutboundAllow(Set.of("127.0.0.1:" + permitted.getAddress().getPort()))
                .withAgent(AgentSettings.defaults().withBinaries(Map.of("*", bin))), Map.of("HOME", home.toString()));
        admin = s.registerAdmin();
        expect(s.post("/api/users", Map.of("username", "bob", "password", "bob-password-1"), bearer(admin)), 201, null);
        bob = s.login("bob", "bob-password-1");
        adminKey = s.createKey(admin, "admin ci", List.of("projects:read", "projects:write", "tasks:read",
                "tasks:write"))[1];
        bobKey = s.createKey(bob, "bob ci", List.of("projects:read", "projects:write", "tasks:read",
                "tasks:write"))[1];
    }

    @AfterAll
    static void stop() {
        s.close();
        permitted.stop(0);
        internal.stop(0);
    }

    /**
     * The project list is open to {@code projects:read}, but the conversations in the CLIs' histories are listed only
     * to administrators: another account sees the projects with their session count and no session (no title).
     */
    @Test
    void theProjectListShowsSessionTitlesOnlyToAdministrators() throws Exception {
        long deadline = System.nanoTime() + java.time.Duration.ofSeconds(30).toNanos();
        com.fasterxml.jackson.databind.JsonNode adminView = null;
        while (System.nanoTime() < deadline) {
            adminView = expect(s.get("/api/projects", bearer(admin)), 200, null);
            if (adminView.toString().contains("Admin's private title")) {
                break;
            }
            Thread.sleep(100);
        }
        org.junit.jupiter.api.Assertions.assertTrue(adminView.toString().contains("Admin's private title"),
                adminView.toString());
        for (com.fasterxml.jackson.databind.JsonNode bobView : List.of(
                expect(s.get("/api/projects", bearer(bob)), 200, null),
                expect(s.get("/api/projects", "X-API-Key", bobKey), 200, null))) {
            org.junit.jupiter.api.Assertions.assertFalse(bobView.toString().contains("Admin's private title"),
                    bobView.toString());
            org.junit.jupiter.api.Assertions.assertFalse(bobView.toString().contains("First prompt of the admin"));
            boolean found = false;
            for (com.fasterxml.jackson.databind.JsonNode p : bobView) {
                org.junit.jupiter.api.Assertions.assertEquals(0, p.path("sessions").size(), p.toString());
                if (p.path("path").asText().endsWith("admin-work")) {
                    found = true;
                    org.junit.jupiter.api.Assertions.assertEquals(1, p.path("sessionCount").asInt(), p.toString());
                }
            }
            org.junit.jupiter.api.Assertions.assertTrue(found, bobView.toString());
        }
    }

    /**
     * A project found only in the CLIs' histories (never registered) is one a run may name: a person who picks a
     * conversation from history and continues it sends that project's name, as the web UI does (a /ws turn and
     * /api/automation/run resolve projects through the engine's one rule).
     */
    @Test
    void aRunMayNameAProjectFoundOnlyInTheHistories() throws Exception {
        long deadline = System.nanoTime() + java.time.Duration.ofSeconds(30).toNanos();
        String name = null;
        while (name == null && System.nanoTime() < deadline) {
            for (com.fasterxml.jackson.databind.JsonNode p : expect(s.get("/api/projects", bearer(admin)), 200, null)) {
                if (p.path("path").asText().endsWith("admin-work")) {
                    assertFalse(p.path("registered").asBoolean(), p.toString());
                    name = p.path("name").asText();
                }
            }
            Thread.sleep(100);
        }
        assertTrue(name != null, "the history project is listed");
        com.fasterxml.jackson.databind.JsonNode started = expect(s.post("/api/automation/run",
                Map.of("prompt", "Say hello", "projectId", name), "X-API-Key", adminKey), 202, null);
        String runId = started.path("runId").asText(started.path("id").asText());
        com.fasterxml.jackson.databind.JsonNode run = null;
        while (System.nanoTime() < deadline + java.time.Duration.ofSeconds(30).toNanos()) {
            run = expect(s.get("/api/automation/runs/" + runId, "X-API-Key", adminKey), 200, null);
            if (List.of("completed", "failed", "cancelled", "timed_out").contains(run.path("status").asText())) {
                break;
            }
            Thread.sleep(50);
        }
        assertEquals("completed", run.path("status").asText(), run.toString());
        // an unknown name is still 404
        expect(s.post("/api/automation/run", Map.of("prompt", "Say hello", "projectId", "no-such-project-x"),
                "X-API-Key", adminKey), 404, "PROJECT_NOT_FOUND");
    }

    static Map<String, Object> quick(Path p, boolean create) {
        return Map.of("path", p.toString(), "create", create);
    }

    @Test
    void projectsStayInsideTheRootsAndAwayFromSystemDataHiddenAndCliFolders() throws Exception {
        String[] key = {"X-API-Key", bobKey};
        for (String p : List.of("/etc", "/proc", "/proc/self", "/sys", "/dev", "/usr/bin", "/")) {
            expect(s.post("/api/projects/quick-start", Map.of("path", p), key), 403, "PATH_NOT_ALLOWED");
        }
        expect(s.post("/api/projects/quick-start", quick(s.dataDir, false), key), 403, "PATH_NOT_ALLOWED");
        expect(s.post("/api/projects/quick-start", quick(s.dataDir.resolve("x"), true), key), 403,
                "PATH_NOT_ALLOWED");
        // the home folder (it holds ~/.ssh) and anything hidden
        expect(s.post("/api/projects/quick-start", quick(home, false), key), 403, "PATH_NOT_ALLOWED");
        Files.createDirectories(home.resolve(".ssh"));
        expect(s.post("/api/projects/quick-start", quick(home.resolve(".ssh"), false), key), 403,
                "PATH_NOT_ALLOWED");
        expect(s.post("/api/projects/quick-start", quick(home.resolve(".config").resolve("x"), true), key), 403,
                "PATH_NOT_ALLOWED");
        assertFalse(Files.exists(home.resolve(".config")), "nothing created for a refused path");
        // the folder the service runs CLIs from, and the folders around it
        expect(s.post("/api/projects/quick-start", quick(bin, false), key), 403, "PATH_NOT_ALLOWED");
        expect(s.post("/api/projects/quick-start", quick(bin.getParent(), false), key), 403, "PATH_NOT_ALLOWED");
        // outside the roots, also through a link that leads out of them
        Path outside = Files.createDirectories(dir.resolve("outside"));
        expect(s.post("/api/projects/quick-start", quick(outside, false), key), 403, "PATH_NOT_ALLOWED");
        Path link = Files.createSymbolicLink(allowed.resolve("link-out"), outside);
        expect(s.post("/api/projects/quick-start", quick(link, false), key), 403, "PATH_NOT_ALLOWED");
        // inside: fine
        Path code = Files.createDirectories(home.resolve("code"));
        expect(s.post("/api/projects/quick-start", quick(code, false), key), 200, null);
    }

    @Test
    void quickStartCreatesAMissingFolderOnlyWhenAsked() {
        Path typo = home.resolve("projcet-typo");
        expect(s.post("/api/projects/quick-start", Map.of("path", typo.toString()), bearer(admin)), 404,
                "DIRECTORY_NOT_FOUND");
        assertFalse(Files.exists(typo), "a mistyped path creates nothing");
        JsonNode created = expect(s.post("/api/projects/quick-start", quick(typo, true), bearer(admin)), 200, null);
        assertTrue(created.path("created").asBoolean(), created.toString());
        assertTrue(Files.isDirectory(typo));
        JsonNode again = expect(s.post("/api/projects/quick-start", quick(typo, true), bearer(admin)), 200, null);
        assertFalse(again.path("created").asBoolean(true), again.toString());
        assertEquals(created.path("name").asText(), again.path("name").asText());
    }

    @Test
    void aProjectIsFoundByWhatAPersonTypesOrTheNotFoundNamesIt() throws Exception {
        Path proj = Files.createDirectories(home.resolve("typed").resolve("proj"));
        String name = expect(s.post("/api/projects/quick-start", quick(proj, false), bearer(admin)), 200, null)
                .path("name").asText();
        assertTrue(name.startsWith("proj-"), name);
        Files.writeString(proj.resolve("a.txt"), "alpha");
        // the folder name without the hash, the display name, the path
        expect(s.get("/api/projects/proj/files", bearer(admin)), 200, null);
        expect(s.put("/api/projects/" + name + "/rename", Map.of("displayName", "My Proj"), bearer(admin)), 200,
                null);
        expect(s.get("/api/projects/" + TestServer.q("my proj") + "/file?path=a.txt", bearer(admin)), 200, null);
        // ambiguous: two more folders named proj (display name "proj" twice); the 404 names the candidates
        String name2 = expect(s.post("/api/projects/quick-start", quick(Files.createDirectories(home.resolve("typed2")
                .resolve("proj")), false), bearer(admin)), 200, null).path("name").asText();
        String name3 = expect(s.post("/api/projects/quick-start", quick(Files.createDirectories(home.resolve("typed3")
                .resolve("proj")), false), bearer(admin)), 200, null).path("name").asText();
        JsonNode err = expect(s.get("/api/projects/proj/files", bearer(admin)), 404, "PROJECT_NOT_FOUND");
        String message = err.path("error").path("message").asText();
        assertTrue(message.contains(name2) && message.contains(name3), message);
        JsonNode sessionsErr = expect(s.get("/api/projects/proj/sessions", bearer(admin)), 404, "PROJECT_NOT_FOUND");
        assertTrue(sessionsErr.path("error").path("message").asText().contains(name2), sessionsErr.toString());
    }

    @Test
    void agentFollowsTheAutomationRunRules() throws Exception {
        Path code = Files.createDirectories(home.resolve("agent-code"));
        Map<String, Object> body = Map.of("message", "Say hello", "projectPath", code.toString(), "stream", false);
        // forwarded: not a local trusted caller
        expect(s.post("/api/agent", body, "X-API-Key", bobKey, "X-Forwarded-For", "203.0.113.9"), 403,
                "PROJECT_PATH_NOT_TRUSTED");
        expect(s.post("/api/automation/run", Map.of("prompt", "Say hello", "projectPath", code.toString()),
                "X-API-Key", bobKey, "X-Forwarded-For", "203.0.113.9"), 403, "PROJECT_PATH_NOT_TRUSTED");
        // local, but outside the roots: the data folder, the root
        for (String p : List.of(s.dataDir.toString(), "/", "/etc")) {
            expect(s.post("/api/agent", Map.of("message", "hi", "projectPath", p, "stream", false),
                    "X-API-Key", bobKey), 403, "PATH_NOT_ALLOWED");
            expect(s.post("/api/automation/run", Map.of("prompt", "hi", "projectPath", p), "X-API-Key", bobKey),
                    403, "PATH_NOT_ALLOWED");
        }
        // inside the roots from a local caller: runs
        JsonNode done = expect(s.post("/api/agent", body, "X-API-Key", adminKey), 200, null);
        assertTrue(done.path("success").asBoolean(), done.toString());
        String sessionId = done.path("sessionId").asText();
        assertFalse(sessionId.isBlank(), done.toString());
        // another account cannot resume that CLI session, nor read it; its owner can
        expect(s.post("/api/agent", Map.of("message", "continue", "projectPath", code.toString(), "sessionId",
                sessionId, "stream", false), "X-API-Key", bobKey), 404, "SESSION_NOT_FOUND");
        expect(s.get("/api/sessions/" + sessionId + "/messages?projectName=x", bearer(bob)), 404,
                "SESSION_NOT_FOUND");
        JsonNode resumed = expect(s.post("/api/agent", Map.of("message", "continue", "projectPath", code.toString(),
                "sessionId", sessionId, "stream", false), "X-API-Key", adminKey), 200, null);
        assertTrue(resumed.path("success").asBoolean(), resumed.toString());
        // a session no run of this service started is the administrators' to resume
        expect(s.post("/api/agent", Map.of("message", "continue", "projectPath", code.toString(), "sessionId",
                "0f0e0d0c-0000-4000-8000-000000000001", "stream", false), "X-API-Key", bobKey), 404,
                "SESSION_NOT_FOUND");
    }

    @Test
    void aBaseUrlOnAnInternalAddressIsRefusedUnlessAllowed() {
        String internalPort = Integer.toString(internal.getAddress().getPort());
        for (String url : List.of("http://127.0.0.1:" + internalPort, "http://169.254.169.254/latest",
                "http://10.1.2.3:8080", "http://[::1]:" + internalPort, "http://localhost:" + internalPort,
                "http://metadata.google.internal")) {
            expect(s.post("/api/providers/claude/auth/api-key", Map.of("apiKey", "sk-rights-0123456789abcdef",
                    "baseUrl", url), bearer(admin)), 400, "OUTBOUND_ADDRESS_REFUSED");
        }
        assertEquals(0, internalHits.get(), "the internal endpoint never saw the key");
        // the endpoint the administrator allowed (--outbound-allow): stored, and the models route asks it
        String allowedUrl = "http://127.0.0.1:" + permitted.getAddress().getPort();
        expect(s.post("/api/providers/claude/auth/api-key", Map.of("apiKey", "sk-rights-allowed-0123456789",
                "baseUrl", allowedUrl), bearer(admin)), 200, null);
        JsonNode models = expect(s.get("/api/providers/claude/models", bearer(admin)), 200, null);
        assertTrue(models.toString().contains("claude-from-endpoint"), models.toString());
        assertTrue(permittedKeys.contains("sk-rights-allowed-0123456789"), permittedKeys.toString());
    }

    @Test
    void aNameThatResolvesToAnInternalAddressIsRefusedAtConnectionTime() {
        String url = "http://models.rebind.test:" + internal.getAddress().getPort();
        // a name is stored (no lookup then) ...
        expect(s.post("/api/providers/codex/auth/api-key", Map.of("apiKey", "sk-rights-rebind-0123456789",
                "baseUrl", url + "/v1"), bearer(admin)), 200, null);
        // ... and resolved when the models route would connect: loopback, so the key is not sent
        JsonNode models = expect(s.get("/api/providers/codex/models", bearer(admin)), 200, null);
        assertTrue(resolved.contains("models.rebind.test"), "the name was resolved through the hook: " + resolved);
        assertFalse(models.toString().contains("claude-from-endpoint"), models.toString());
        assertEquals(0, internalHits.get(), "the internal endpoint never saw the key");
    }
}
