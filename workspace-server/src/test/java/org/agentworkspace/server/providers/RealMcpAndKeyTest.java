package org.agentworkspace.server.providers;

import static org.agentworkspace.server.TestServer.bearer;
import static org.agentworkspace.server.TestServer.expect;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import com.fasterxml.jackson.databind.JsonNode;

import org.agentworkspace.api.provider.AgentEvent;
import org.agentworkspace.api.provider.LaunchPlan;
import org.agentworkspace.server.TestServer;
import org.agentworkspace.testkit.mockllm.MockLlmServer;
import org.agentworkspace.testkit.mockllm.RecordedRequest;
import org.agentworkspace.testkit.realcli.RealCli;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The real CLIs (the testkit's cached installs) read what the API wrote: an MCP server added through the API is
 * listed by {@code claude|codex|gemini|qwen|opencode mcp list} run with the server's HOME (and gemini's own home),
 * and is gone after it was removed. A key stored through the API reaches a real claude run against the mock LLM.
 */
@Tag("real-cli")
class RealMcpAndKeyTest {
    static final List<String> CLIS = List.of("claude", "codex", "gemini", "qwen", "opencode");
    static TestServer s;
    static String admin;
    static final Map<String, Path> BINARIES = new LinkedHashMap<>();
    static Path nodeDir;
    /** The model endpoint a stored key's baseUrl names: on loopback, so the administrator allows it. */
    static MockLlmServer mock;

    @BeforeAll
    static void start() {
        RealCli.unavailableReason().ifPresent(why -> {
            System.out.println("SKIPPED: " + why);
            Assumptions.abort(why);
        });
        nodeDir = RealCli.ensureNode();
        for (String cli : CLIS) {
            BINARIES.put(cli, RealCli.ensureInstalled(cli));
        }
        // the server finds claude on its PATH, as a run would; node 22 is on that PATH too
        mock = MockLlmServer.create().start();
        java.net.URI m = java.net.URI.create(mock.baseUrl());
        s = TestServer.start(c -> c.withOutboundAllow(java.util.Set.of(m.getHost() + ":" + m.getPort())),
                Map.of("PATH", nodeDir + ":" + BINARIES.get("claude").getParent()
                + ":/usr/bin:/bin", "LANG", "C.UTF-8"));
        admin = s.registerAdmin();
    }

    @AfterAll
    static void stop() {
        if (s != null) {
            s.close();
        }
        if (mock != null) {
            mock.close();
        }
    }

    /** {@code <cli> mcp list} with the server's HOME (gemini: its own home) in a scratch folder. */
    static String mcpList(String cli) throws Exception {
        return mcpList(cli, Files.createDirectories(s.home().resolve("scratch")));
    }

    /** {@code <cli> mcp list} run in {@code cwd}. */
    static String mcpList(String cli, Path cwd) throws Exception {
        Path bin = BINARIES.get(cli);
        ProcessBuilder pb = new ProcessBuilder(bin.toString(), "mcp", "list").directory(cwd.toFile());
        Map<String, String> env = pb.environment();
        env.clear();
        env.put("PATH", nodeDir + ":" + bin.getParent() + ":/usr/bin:/bin");
        env.put("HOME", s.home().toString());
        env.put("TMPDIR", Files.createDirectories(s.home().resolve("tmp")).toString());
        env.put("TERM", "dumb");
        env.put("NO_COLOR", "1");
        env.put("LANG", "C.UTF-8");
        env.put("GEMINI_CLI_HOME", s.dataDir.resolve("providers/gemini").toString());
        env.put("GEMINI_CLI_NO_RELAUNCH", "true");
        env.put("GEMINI_TELEMETRY_ENABLED", "false");
        env.put("QWEN_CODE_NO_RELAUNCH", "1");
        env.put("QWEN_USAGE_STATISTICS_ENABLED", "false");
        env.put("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1");
        env.put("OPENCODE_DISABLE_AUTOUPDATE", "1");
        env.put("OPENCODE_DISABLE_MODELS_FETCH", "1");
        env.put("OPENCODE_DISABLE_DEFAULT_PLUGINS", "1");
        pb.redirectErrorStream(true).redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(120, TimeUnit.SECONDS), cli + " mcp list did not end");
        return out;
    }

    @Test
    void theRealClisListWhatTheApiWroteAndForgetWhatItRemoved() throws Exception {
        // unrelated content the edits must keep
        Files.createDirectories(s.home().resolve(".codex"));
        Files.writeString(s.home().resolve(".codex/config.toml"), "# mine\nmodel = \"gpt-5.4\"\n");
        String name = "aw-mcp-" + Long.toHexString(System.nanoTime());
        long t0 = System.nanoTime();
        for (String cli : CLIS) {
            expect(s.post("/api/providers/" + cli + "/mcp/servers", Map.of("name", name, "command", "/bin/true",
                    "args", List.of("--stdio"), "env", Map.of("AW_MCP_TEST", "1")), bearer(admin)), 200, null);
        }
        for (String cli : CLIS) {
            String out = mcpList(cli);
            assertTrue(out.contains(name), cli + " mcp list does not show the entry:\n" + out);
        }
        assertTrue(Files.readString(s.home().resolve(".codex/config.toml")).startsWith("# mine\nmodel = \"gpt-5.4\"\n"));
        for (String cli : CLIS) {
            expect(s.send("DELETE", "/api/providers/" + cli + "/mcp/servers/" + name, null, bearer(admin)), 200, null);
        }
        for (String cli : CLIS) {
            String out = mcpList(cli);
            assertFalse(out.contains(name), cli + " mcp list still shows the entry:\n" + out);
        }
        System.out.println("mcp list of five real CLIs, twice: " + Duration.ofNanos(System.nanoTime() - t0));
    }

    @Test
    void localEntriesAreListedInTheirProject() throws Exception {
        Path project = Files.createDirectories(s.home().resolve("local-project")).toRealPath();
        String projectName = s.quickStart(admin, project);
        String name = "aw-local-" + Long.toHexString(System.nanoTime());
        for (String cli : CLIS) {
            expect(s.post("/api/providers/" + cli + "/mcp/servers", Map.of("name", name, "command", "/bin/true",
                    "scope", "local", "project", projectName), bearer(admin)), 200, null);
        }
        // codex reads a project's .codex/config.toml only for a project the user trusts in codex: that is the
        // user's decision (docs/provider-management.md), taken here through the config editor
        JsonNode config = expect(s.get("/api/providers/codex/config-files/config", bearer(admin)), 200, null);
        expect(s.put("/api/providers/codex/config-files/config", Map.of("content", config.path("content").asText()
                + "\n[projects.\"" + project + "\"]\ntrust_level = \"trusted\"\n"), bearer(admin)), 200, null);
        for (String cli : CLIS) {
            String out = mcpList(cli, project);
            assertTrue(out.contains(name), cli + " mcp list in the project does not show the local entry:\n" + out);
            assertFalse(mcpList(cli).contains(name), cli + " shows a local entry outside its project");
        }
        for (String cli : CLIS) {
            expect(s.send("DELETE", "/api/providers/" + cli + "/mcp/servers/" + name + "?scope=local&project="
                    + projectName, null, bearer(admin)), 200, null);
            assertFalse(mcpList(cli, project).contains(name), cli);
        }
    }

    @Test
    void aKeyStoredThroughTheApiReachesARealClaudeRun() throws Exception {
        {
            String key = "sk-ant-stored-through-the-api-" + Long.toHexString(System.nanoTime());
            // the administrator stores the service-wide keys, which a run of no account (this plan) uses
            expect(s.post("/api/providers/claude/auth/api-key", Map.of("apiKey", key, "baseUrl", mock.baseUrl(),
                    "shared", true), bearer(admin)), 200, null);
            // other providers' keys are stored too: none may reach the claude child
            List<String> others = List.of("sk-codex-other-" + System.nanoTime(), "sk-opencode-other-" + System.nanoTime());
            expect(s.post("/api/providers/codex/auth/api-key", Map.of("apiKey", others.get(0), "baseUrl",
                    mock.baseUrl() + "/v1", "shared", true), bearer(admin)), 200, null);
            expect(s.post("/api/providers/opencode/auth/api-key", Map.of("apiKey", others.get(1), "shared", true),
                    bearer(admin)), 200, null);
            JsonNode status = expect(s.get("/api/providers/claude/auth/status", bearer(admin)), 200, null);
            assertEquals(BINARIES.get("claude").toString(), status.path("binaryPath").asText());
            assertEquals("2.1.330", status.path("version").asText());

            Path project = Files.createDirectories(s.home().resolve("project"));
            LaunchPlan plan = s.server.engine().providers().plan("claude", "--help -rf Say hello", project, b -> b
                    .model("claude-sonnet-4-5").extraEnv("CLAUDE_CODE_MAX_RETRIES", "1"));
            assertEquals(BINARIES.get("claude").toString(), plan.argv().getFirst(), "the run spawns the status binary");
            List<String> lines = run(plan);
            List<AgentEvent> events = s.server.engine().providers().adapters().find("claude").orElseThrow()
                    .newParser().parseAll(lines, 0);
            AgentEvent.Completed done = (AgentEvent.Completed) events.getLast();
            assertTrue(done.success(), String.join("\n", lines));
            List<RecordedRequest> calls = mock.requests("/v1/messages");
            assertFalse(calls.isEmpty());
            for (RecordedRequest r : calls) {
                assertEquals(key, r.apiKey().orElseThrow(), "the model call carried the stored key");
            }
            for (RecordedRequest r : mock.requests()) {
                for (String other : others) {
                    assertFalse((r.headers() + r.body() + r.query()).contains(other), "another provider's key");
                }
            }
            for (String other : others) {
                assertFalse(plan.env().containsValue(other), "another provider's key in the claude child's env");
            }
        }
    }

    /** Runs a plan as the launcher is specified to: files, exactly its env, stdin /dev/null; stdout lines. */
    static List<String> run(LaunchPlan plan) throws Exception {
        for (Map.Entry<Path, String> f : plan.files().entrySet()) {
            Files.createDirectories(f.getKey().getParent());
            Files.writeString(f.getKey(), f.getValue());
        }
        ProcessBuilder pb = new ProcessBuilder(plan.argv()).directory(plan.workingDir().toFile());
        pb.environment().clear();
        pb.environment().putAll(plan.env());
        pb.redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
        pb.redirectError(ProcessBuilder.Redirect.DISCARD);
        Process p = pb.start();
        List<String> lines = new ArrayList<>(new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8)
                .lines().toList());
        assertTrue(p.waitFor(120, TimeUnit.SECONDS));
        return lines;
    }
}
