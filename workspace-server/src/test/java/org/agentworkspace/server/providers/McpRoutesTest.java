package org.agentworkspace.server.providers;

import static org.agentworkspace.server.TestServer.bearer;
import static org.agentworkspace.server.TestServer.expect;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;

import org.agentworkspace.server.TestServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** MCP routes over HTTP: native files, masking, scopes, the global add, validation, keys refused. */
class McpRoutesTest {
    static TestServer s;
    static String admin;
    static String project;
    static Path projectDir;

    @BeforeAll
    static void start() throws Exception {
        s = TestServer.start();
        admin = s.registerAdmin();
        projectDir = Files.createTempDirectory("aw-mcp-proj-").toRealPath();
        project = s.quickStart(admin, projectDir);
    }

    @AfterAll
    static void stop() {
        s.close();
    }

    @Test
    void addListRemoveInTheNativeFiles() throws Exception {
        Map<String, Object> body = Map.of("name", "files", "command", "npx", "args",
                List.of("-y", "@modelcontextprotocol/server-filesystem", "/srv"),
                "env", Map.of("FS_TOKEN", "fs-token-0123456789abcdef"));
        JsonNode saved = expect(s.post("/api/providers/codex/mcp/servers", body, bearer(admin)), 200, null);
        assertEquals("user", saved.path("scope").asText());
        String toml = Files.readString(s.home().resolve(".codex/config.toml"));
        assertTrue(toml.contains("[mcp_servers.files]") && toml.contains("[mcp_servers.files.env]"), toml);

        JsonNode list = expect(s.get("/api/providers/codex/mcp/servers", bearer(admin)), 200, null);
        assertEquals(1, list.size());
        JsonNode e = list.get(0);
        assertEquals("files", e.path("name").asText());
        assertEquals("stdio", e.path("transport").asText());
        assertEquals("npx", e.path("command").asText());
        assertEquals("…cdef", e.path("env").path("FS_TOKEN").asText());
        assertEquals("…cdef", e.path("native").path("env").path("FS_TOKEN").asText());
        assertFalse(list.toString().contains("fs-token-0123"));

        expect(s.post("/api/providers/opencode/mcp/servers", Map.of("name", "files", "command", "/usr/bin/env",
                "scope", "local", "project", project), bearer(admin)), 200, null);
        JsonNode oc = TestServer.JSON.readTree(Files.readString(projectDir.resolve("opencode.json")));
        assertEquals("[\"/usr/bin/env\"]", oc.path("mcp").path("files").path("command").toString());
        JsonNode both = expect(s.get("/api/providers/opencode/mcp/servers?project=" + project, bearer(admin)), 200,
                null);
        assertEquals("local", both.get(both.size() - 1).path("scope").asText());
        expect(s.send("DELETE", "/api/providers/opencode/mcp/servers/files?scope=local&project=" + project, null,
                bearer(admin)), 200, null);
        expect(s.send("DELETE", "/api/providers/opencode/mcp/servers/files?scope=local&project=" + project, null,
                bearer(admin)), 404, "MCP_SERVER_NOT_FOUND");

        expect(s.send("DELETE", "/api/providers/codex/mcp/servers/files", null, bearer(admin)), 200, null);
        assertEquals(0, expect(s.get("/api/providers/codex/mcp/servers", bearer(admin)), 200, null).size());
    }

    @Test
    void theGlobalAddReachesEveryMcpProvider() {
        JsonNode r = expect(s.post("/api/providers/mcp/servers/global", Map.of("name", "everywhere", "command",
                "/bin/true"), bearer(admin)), 200, null);
        assertEquals(6, r.path("results").size());
        for (JsonNode p : r.path("results")) {
            assertTrue(p.path("success").asBoolean(), p.toString());
            String provider = p.path("provider").asText();
            assertTrue(expect(s.get("/api/providers/" + provider + "/mcp/servers", bearer(admin)), 200, null)
                    .toString().contains("\"everywhere\""), provider);
            expect(s.send("DELETE", "/api/providers/" + provider + "/mcp/servers/everywhere", null, bearer(admin)),
                    200, null);
        }
        expect(s.post("/api/providers/mcp/servers/global", Map.of("name", "x", "command", "/bin/true", "scope",
                "local"), bearer(admin)), 400, "VALIDATION_FAILED");
    }

    @Test
    void refusedInput() {
        expect(s.post("/api/providers/claude/mcp/servers", Map.of("name", "x", "command", "/bin/true", "env",
                Map.of("LD_PRELOAD", "/tmp/evil.so")), bearer(admin)), 400, "VALIDATION_FAILED");
        expect(s.post("/api/providers/claude/mcp/servers", Map.of("name", "x", "command", "/bin/true", "env",
                Map.of("NODE_OPTIONS", "--require /tmp/x.js")), bearer(admin)), 400, "VALIDATION_FAILED");
        // what the outside test found missing: git's config injection, zsh start-up, cargo's wrapper, proxies
        for (String name : List.of("GIT_CONFIG_COUNT", "GIT_CONFIG_KEY_0", "git_config_value_0", "ZDOTDIR",
                "RUSTC_WRAPPER", "HTTPS_PROXY", "all_proxy", "HOME", "XDG_CONFIG_HOME", "PIP_INDEX_URL",
                "UV_INDEX_URL", "NODE_EXTRA_CA_CERTS", "SSL_CERT_FILE", "CARGO_HOME")) {
            expect(s.post("/api/providers/claude/mcp/servers", Map.of("name", "x", "command", "/bin/true", "env",
                    Map.of(name, "x")), bearer(admin)), 400, "VALIDATION_FAILED");
        }
        // the names MCP servers document still pass
        expect(s.post("/api/providers/claude/mcp/servers", Map.of("name", "env-ok", "command", "/bin/true", "env",
                Map.of("GITHUB_PERSONAL_ACCESS_TOKEN", "x", "BRAVE_API_KEY", "y", "DATABASE_URL", "z")),
                bearer(admin)), 200, null);
        expect(s.send("DELETE", "/api/providers/claude/mcp/servers/env-ok", null, bearer(admin)), 200, null);
        expect(s.post("/api/providers/claude/mcp/servers", Map.of("name", "x", "command", "./server"),
                bearer(admin)), 400, "VALIDATION_FAILED");
        expect(s.post("/api/providers/claude/mcp/servers", Map.of("name", "a/b", "command", "/bin/true"),
                bearer(admin)), 400, "VALIDATION_FAILED");
        expect(s.post("/api/providers/claude/mcp/servers", Map.of("name", "x", "command", "/bin/true", "scope",
                "project"), bearer(admin)), 400, "VALIDATION_FAILED");
        expect(s.post("/api/providers/claude/mcp/servers", Map.of("name", "x", "command", "/bin/true", "scope",
                "local"), bearer(admin)), 400, "VALIDATION_FAILED");
        expect(s.post("/api/providers/claude/mcp/servers", Map.of("name", "x", "command", "/bin/true", "scope",
                "local", "project", "no-such-project"), bearer(admin)), 404, "PROJECT_NOT_FOUND");
        expect(s.post("/api/providers/grok/mcp/servers", Map.of("name", "x", "command", "/bin/true"),
                bearer(admin)), 400, "UNSUPPORTED_CAPABILITY");
        expect(s.get("/api/providers/grok/mcp/servers", bearer(admin)), 400, "UNSUPPORTED_CAPABILITY");
        expect(s.post("/api/providers/nope/mcp/servers", Map.of("name", "x", "command", "/bin/true"),
                bearer(admin)), 404, "PROVIDER_NOT_FOUND");
        assertFalse(expect(s.get("/api/providers/claude/mcp/servers?project=" + project, bearer(admin)), 200, null)
                .toString().contains("\"x\""), "nothing was written");
        String[] key = s.createKey(admin, "all", List.of("providers:read", "projects:read", "projects:write"));
        expect(s.get("/api/providers/claude/mcp/servers", "X-API-Key", key[1]), 403, "SESSION_REQUIRED");
    }
}
