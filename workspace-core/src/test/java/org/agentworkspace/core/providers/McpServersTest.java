package org.agentworkspace.core.providers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import org.agentworkspace.api.WorkspaceException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** MCP entries in each CLI's native file and shape; unrelated content preserved; validation. */
class McpServersTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private final ProvidersFixture f = new ProvidersFixture();

    @AfterEach
    void close() {
        f.close();
    }

    private static McpServerSpec spec(String name) {
        return new McpServerSpec(name, "/usr/bin/env", List.of("mcp-server", "--port", "7 7"),
                Map.of("API_TOKEN", "secret-value-0123456789", "MODE", "x"));
    }

    private JsonNode json(Path file) throws Exception {
        return JSON.readTree(Files.readString(file));
    }

    @Test
    void claudeUserAndLocalEntriesGoToClaudeJsonAndKeepEverythingElse() throws Exception {
        Path claudeJson = f.home.resolve(".claude.json");
        ProvidersFixture.write(claudeJson, "{\"numStartups\": 3, \"oauthAccount\": {\"email\": \"a@b\"}, "
                + "\"projects\": {\"/elsewhere\": {\"allowedTools\": [\"Bash\"]}}, \"mcpServers\": {\"keep\": "
                + "{\"type\": \"stdio\", \"command\": \"keep-me\", \"args\": []}}}");
        Path project = Files.createDirectories(f.root.resolve("proj"));
        String name = f.engine().projects().quickStart(project.toString()).name();

        f.pm().mcp().upsert("claude", spec("one"), McpScope.USER, null);
        f.pm().mcp().upsert("claude", spec("two"), McpScope.LOCAL, name);
        JsonNode n = json(claudeJson);
        assertEquals(3, n.path("numStartups").asInt());
        assertEquals("a@b", n.path("oauthAccount").path("email").asText());
        assertEquals("keep-me", n.path("mcpServers").path("keep").path("command").asText());
        assertEquals("[\"Bash\"]", n.path("projects").path("/elsewhere").path("allowedTools").toString());
        JsonNode one = n.path("mcpServers").path("one");
        assertEquals("stdio", one.path("type").asText());
        assertEquals("/usr/bin/env", one.path("command").asText());
        assertEquals("[\"mcp-server\",\"--port\",\"7 7\"]", one.path("args").toString());
        assertEquals("secret-value-0123456789", one.path("env").path("API_TOKEN").asText());
        String real = project.toRealPath().toString();
        assertEquals("/usr/bin/env", n.path("projects").path(real).path("mcpServers").path("two").path("command")
                .asText());

        List<McpServer> user = f.pm().mcp().list("claude", McpScope.USER, null);
        assertEquals(List.of("keep", "one"), user.stream().map(McpServer::name).toList());
        McpServer listed = user.get(1);
        assertEquals("stdio", listed.transport());
        assertEquals("…6789", listed.env().get("API_TOKEN"), "env values are masked");
        assertEquals("…", listed.env().get("MODE"));
        assertFalse(JSON.writeValueAsString(listed).contains("secret-value"), "nothing unmasked in the view");
        assertEquals(List.of("keep", "one", "two"), f.pm().mcp().list("claude", null, name).stream()
                .map(McpServer::name).toList());

        f.pm().mcp().remove("claude", "one", McpScope.USER, null);
        f.pm().mcp().remove("claude", "two", McpScope.LOCAL, name);
        JsonNode after = json(claudeJson);
        assertFalse(after.path("mcpServers").has("one"));
        assertTrue(after.path("mcpServers").has("keep"));
        assertEquals(3, after.path("numStartups").asInt());
        WorkspaceException missing = assertThrows(WorkspaceException.NotFound.class,
                () -> f.pm().mcp().remove("claude", "one", McpScope.USER, null));
        assertEquals("MCP_SERVER_NOT_FOUND", missing.code());
    }

    @Test
    void plainJsonShapesForCursorGeminiAndQwenAndOpencodeNativeShape() throws Exception {
        f.pm().mcp().upsert("cursor", spec("s"), McpScope.USER, null);
        f.pm().mcp().upsert("gemini", spec("s"), McpScope.USER, null);
        ProvidersFixture.write(f.home.resolve(".qwen/settings.json"),
                "{\n  // comments are allowed here\n  \"model\": {\"name\": \"qwen3-coder-plus\"},\n}\n");
        f.pm().mcp().upsert("qwen", spec("s"), McpScope.USER, null);
        f.pm().mcp().upsert("opencode", spec("s"), McpScope.USER, null);

        for (Path p : List.of(f.home.resolve(".cursor/mcp.json"),
                f.dataDir.resolve("providers/gemini/.gemini/settings.json"), f.home.resolve(".qwen/settings.json"))) {
            JsonNode e = json(p).path("mcpServers").path("s");
            assertEquals("/usr/bin/env", e.path("command").asText(), p.toString());
            assertEquals(3, e.path("args").size());
            assertEquals("x", e.path("env").path("MODE").asText());
        }
        assertEquals("qwen3-coder-plus", json(f.home.resolve(".qwen/settings.json")).path("model").path("name")
                .asText());
        JsonNode oc = json(f.home.resolve(".config/opencode/opencode.json")).path("mcp").path("s");
        assertEquals("local", oc.path("type").asText());
        assertEquals("[\"/usr/bin/env\",\"mcp-server\",\"--port\",\"7 7\"]", oc.path("command").toString());
        assertEquals("x", oc.path("environment").path("MODE").asText());
        assertTrue(oc.path("enabled").asBoolean());
        McpServer listed = f.pm().mcp().list("opencode", McpScope.USER, null).getFirst();
        assertEquals("/usr/bin/env", listed.command());
        assertEquals(List.of("mcp-server", "--port", "7 7"), listed.args());
        assertEquals("…6789", listed.env().get("API_TOKEN"));
        assertTrue(JSON.writeValueAsString(listed.nativeEntry()).contains("\"environment\""));
        assertFalse(JSON.writeValueAsString(listed.nativeEntry()).contains("secret-value"));
    }

    @Test
    void projectFilesForLocalScope() throws Exception {
        Path project = Files.createDirectories(f.root.resolve("p2"));
        String name = f.engine().projects().quickStart(project.toString()).name();
        Path real = project.toRealPath();
        for (String p : f.pm().mcp().capableProviders()) {
            f.pm().mcp().upsert(p, spec("loc"), McpScope.LOCAL, name);
        }
        assertTrue(Files.exists(real.resolve(".cursor/mcp.json")));
        assertTrue(Files.exists(real.resolve(".gemini/settings.json")));
        assertTrue(Files.exists(real.resolve(".qwen/settings.json")));
        assertTrue(Files.exists(real.resolve("opencode.json")));
        assertTrue(Files.readString(real.resolve(".codex/config.toml")).contains("[mcp_servers.loc]"));
        assertEquals(WorkspaceException.Validation.class, assertThrows(WorkspaceException.class,
                () -> f.pm().mcp().upsert("codex", spec("x"), McpScope.LOCAL, null)).getClass());
        assertEquals("PROJECT_NOT_FOUND", assertThrows(WorkspaceException.NotFound.class,
                () -> f.pm().mcp().upsert("codex", spec("x"), McpScope.LOCAL, "no-such-project")).code());
    }

    @Test
    void codexTomlIsEditedInPlaceKeepingCommentsAndOtherTables() throws Exception {
        Path toml = f.home.resolve(".codex/config.toml");
        String original = """
                # my codex settings
                model = "gpt-5.4"   # the default model

                [mcp_servers.other]
                command = "other-server"
                args = ["a"]

                # profiles follow
                [profiles.fast]
                model = "gpt-5.4-mini"
                """;
        ProvidersFixture.write(toml, original);
        f.pm().mcp().upsert("codex", spec("my.server"), McpScope.USER, null);
        String after = Files.readString(toml);
        assertTrue(after.startsWith(original), "everything before is kept byte for byte:\n" + after);
        assertTrue(after.contains("[mcp_servers.\"my.server\"]"), after);
        JsonNode parsed = ConfigFormat.TOML_MAPPER.readTree(after);
        JsonNode s = parsed.path("mcp_servers").path("my.server");
        assertEquals("/usr/bin/env", s.path("command").asText());
        assertEquals("7 7", s.path("args").get(2).asText());
        assertEquals("secret-value-0123456789", s.path("env").path("API_TOKEN").asText());
        assertEquals("gpt-5.4-mini", parsed.path("profiles").path("fast").path("model").asText());

        // replace: the old tables go, the new ones are appended once
        f.pm().mcp().upsert("codex", new McpServerSpec("my.server", "npx", List.of("-y", "pkg"), Map.of()),
                McpScope.USER, null);
        String replaced = Files.readString(toml);
        assertEquals(1, replaced.split("\\[mcp_servers\\.\"my\\.server\"\\]", -1).length - 1, replaced);
        assertFalse(replaced.contains("API_TOKEN"), replaced);
        assertEquals("npx", ConfigFormat.TOML_MAPPER.readTree(replaced).path("mcp_servers").path("my.server")
                .path("command").asText());

        List<McpServer> listed = f.pm().mcp().list("codex", McpScope.USER, null);
        assertEquals(List.of("other", "my.server"), listed.stream().map(McpServer::name).toList());

        f.pm().mcp().remove("codex", "my.server", McpScope.USER, null);
        String removed = Files.readString(toml);
        assertTrue(removed.contains("# my codex settings") && removed.contains("# the default model")
                && removed.contains("# profiles follow") && removed.contains("[profiles.fast]"), removed);
        assertFalse(removed.contains("my.server"), removed);
        f.pm().mcp().remove("codex", "other", McpScope.USER, null);
        String none = Files.readString(toml);
        assertFalse(none.contains("mcp_servers"), none);
        assertTrue(none.contains("# profiles follow\n[profiles.fast]"), none);
    }

    @Test
    void codexEntriesWrittenInlineAreRefusedRatherThanBroken() throws Exception {
        Path toml = f.home.resolve(".codex/config.toml");
        String inline = "mcp_servers = { s = { command = \"x\" } }\n";
        ProvidersFixture.write(toml, inline);
        WorkspaceException e = assertThrows(WorkspaceException.Conflict.class,
                () -> f.pm().mcp().upsert("codex", spec("s"), McpScope.USER, null));
        assertTrue(e.getMessage().contains("config editor"), e.getMessage());
        assertThrows(WorkspaceException.Conflict.class, () -> f.pm().mcp().upsert("codex", spec("t"),
                McpScope.USER, null));
        assertEquals(inline, Files.readString(toml), "the file is unchanged");
        ProvidersFixture.write(toml, "not = [valid toml\n");
        assertThrows(WorkspaceException.Conflict.class,
                () -> f.pm().mcp().upsert("codex", spec("s"), McpScope.USER, null));
    }

    @Test
    void brokenJsonIsNotOverwritten() throws Exception {
        Path file = f.home.resolve(".cursor/mcp.json");
        ProvidersFixture.write(file, "{ broken");
        assertThrows(WorkspaceException.Conflict.class,
                () -> f.pm().mcp().upsert("cursor", spec("s"), McpScope.USER, null));
        assertEquals("{ broken", Files.readString(file));
    }

    @Test
    void globalAddReachesEveryCapableProviderAndReportsEach() throws Exception {
        ProvidersFixture.write(f.home.resolve(".cursor/mcp.json"), "{ broken");
        List<McpServers.GlobalResult> results = f.pm().mcp().addEverywhere(spec("everywhere"));
        assertEquals(List.of("claude", "cursor", "codex", "gemini", "qwen", "opencode"),
                results.stream().map(McpServers.GlobalResult::provider).toList());
        for (McpServers.GlobalResult r : results) {
            if (r.provider().equals("cursor")) {
                assertFalse(r.success());
                assertEquals("CONFLICT", r.errorCode());
            } else {
                assertTrue(r.success(), r.toString());
                assertEquals("everywhere", f.pm().mcp().list(r.provider(), McpScope.USER, null).getLast().name());
            }
        }
    }

    @Test
    void grokIsNotSupported() {
        assertEquals("UNSUPPORTED_CAPABILITY", assertThrows(WorkspaceException.Validation.class,
                () -> f.pm().mcp().list("grok", null, null)).code());
    }

    @ParameterizedTest
    @ValueSource(strings = {"LD_PRELOAD", "ld_preload", "LD_LIBRARY_PATH", "NODE_OPTIONS", "DYLD_INSERT_LIBRARIES",
        "PYTHONSTARTUP", "BASH_ENV", "PATH", "BASH_FUNC_x%%", "npm_config_node_options", "GLIBC_TUNABLES",
        "JAVA_TOOL_OPTIONS"})
    void loaderHijackingVariablesAreRefused(String name) {
        WorkspaceException e = assertThrows(WorkspaceException.Validation.class,
                () -> new McpServerSpec("s", "/bin/true", List.of(), Map.of(name, "/tmp/evil.so")));
        assertEquals("VALIDATION_FAILED", e.code());
    }

    @ParameterizedTest
    @ValueSource(strings = {"./x", "bin/server", "-e", "--help", "sh\nid", "a\u0000b", "/opt/../bin/sh", "", " x",
        "/usr/bin/"})
    void badCommandsAreRefused(String command) {
        assertThrows(WorkspaceException.Validation.class,
                () -> new McpServerSpec("s", command, List.of(), Map.of()));
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "a/b", "a b", "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx", "../x", "é"})
    void badNamesAreRefused(String name) {
        assertThrows(WorkspaceException.Validation.class,
                () -> new McpServerSpec(name, "/bin/true", List.of(), Map.of()));
    }

    @Test
    void argsAndValuesWithLineBreaksAreRefusedButShellCharactersAreData() throws Exception {
        assertThrows(WorkspaceException.Validation.class,
                () -> new McpServerSpec("s", "/bin/true", List.of("a\nb"), Map.of()));
        assertThrows(WorkspaceException.Validation.class,
                () -> new McpServerSpec("s", "/bin/true", List.of(), Map.of("A", "x\ny")));
        McpServerSpec shelly = new McpServerSpec("s", "npx", List.of("$(touch /tmp/x)", "; rm -rf /", "\"'`"),
                Map.of("A", "$HOME"));
        f.pm().mcp().upsert("codex", shelly, McpScope.USER, null);
        JsonNode s = ConfigFormat.TOML_MAPPER.readTree(Files.readString(f.home.resolve(".codex/config.toml")))
                .path("mcp_servers").path("s");
        assertEquals("$(touch /tmp/x)", s.path("args").get(0).asText());
        assertEquals("\"'`", s.path("args").get(2).asText());
        assertEquals("$HOME", s.path("env").path("A").asText());
    }

    @Test
    void aSymlinkedFileIsNotWrittenThrough() throws Exception {
        Path target = f.root.resolve("authorized_keys");
        Files.writeString(target, "ssh-ed25519 AAAA\n");
        Files.createDirectories(f.home.resolve(".cursor"));
        Files.createSymbolicLink(f.home.resolve(".cursor/mcp.json"), target);
        assertThrows(WorkspaceException.Conflict.class,
                () -> f.pm().mcp().upsert("cursor", spec("s"), McpScope.USER, null));
        assertEquals("ssh-ed25519 AAAA\n", Files.readString(target));
    }
}
