package org.agentworkspace.providers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;
import org.agentworkspace.api.provider.AgentEvent;
import org.agentworkspace.api.provider.AgentProvider;
import org.agentworkspace.api.provider.BinaryLocator;
import org.agentworkspace.api.provider.LaunchContext;
import org.agentworkspace.api.provider.LaunchPlan;
import org.agentworkspace.api.provider.PermissionMode;
import org.agentworkspace.api.provider.ProviderCredentials;
import org.agentworkspace.api.provider.ProviderId;
import org.agentworkspace.api.provider.RunSpec;
import org.agentworkspace.testkit.mockllm.MockLlmServer;
import org.agentworkspace.testkit.mockllm.RecordedRequest;
import org.agentworkspace.testkit.realcli.RealCli;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * OUR launch plan (argv, environment, config files) run against the real CLI from npm (installed once into the
 * testkit's cache by {@link RealCli#ensureInstalled}) talking to {@link MockLlmServer}: plain prompt (which starts
 * with {@code --help}, so it must arrive as data) then a resumed turn, and the file-writing tool in each
 * non-interactive permission mode. The server environment handed to the context carries other providers' keys; the
 * mock must only ever see this test's key. Skipped, with the reason printed, only when node or npm is missing.
 */
@Tag("real-cli")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class RealCliRun {

    private static final Duration TIMEOUT = Duration.ofMinutes(3);
    private final ProviderId id;
    private final String model;
    private final String baseUrlSuffix;
    private final List<PermissionMode> toolModes;
    private final String key;
    private MockLlmServer mock;
    private Path bin;
    private Path nodeDir;
    private Path tmp;
    private AgentProvider provider;

    /**
     * @param baseUrlSuffix appended to the mock's base URL to form the CLI's base URL ({@code /v1} for OpenAI-style)
     * @param toolModes the permission modes in which the CLI must write the file without asking
     */
    RealCliRun(ProviderId id, String model, String baseUrlSuffix, List<PermissionMode> toolModes) {
        this.id = id;
        this.model = model;
        this.baseUrlSuffix = baseUrlSuffix;
        this.toolModes = toolModes;
        this.key = "sk-aw-providers-test-" + id.wireId();
    }

    @BeforeAll
    void installAndStartMock() throws IOException {
        Optional<String> missing = RealCli.unavailableReason();
        if (missing.isPresent()) {
            System.out.println("SKIPPED real-cli " + id + ": " + missing.get());
        }
        Assumptions.assumeTrue(missing.isEmpty(), () -> missing.orElse(""));
        bin = RealCli.ensureInstalled(id.wireId());
        nodeDir = RealCli.ensureNode();
        mock = MockLlmServer.create().start();
        tmp = Files.createTempDirectory("aw-real-" + id.wireId());
        Files.createDirectories(tmp.resolve("tmpdir"));
        provider = Plans.provider(id.wireId());
    }

    @AfterAll
    void stop() throws IOException {
        if (mock != null) {
            mock.close();
        }
        if (tmp != null) {
            try (Stream<Path> files = Files.walk(tmp)) {
                files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }

    /** The server's environment: node first on PATH, a HOME for the CLIs, and secrets that must not pass. */
    private LaunchContext context(Path home) {
        Map<String, String> server = new HashMap<>();
        server.put("PATH", nodeDir + ":/usr/local/bin:/usr/bin:/bin");
        server.put("HOME", home.toString());
        server.put("LANG", "C.UTF-8");
        // gemini writes error reports into the temp dir: keep them inside this test's directory
        server.put("TMPDIR", tmp.resolve("tmpdir").toString());
        for (String k : List.of("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "GEMINI_API_KEY", "GROK_API_KEY",
                "ANTHROPIC_BASE_URL", "OPENAI_BASE_URL")) {
            server.put(k, "server-secret-" + k);
        }
        return LaunchContext.create(tmp.resolve("data"), server);
    }

    private Path home(String name) throws IOException {
        Path home = Files.createDirectories(tmp.resolve(name + "-home"));
        if (id == ProviderId.OPENCODE) {
            // on a fresh HOME opencode npm-installs @opencode-ai/plugin in the background; pre-seed it from the cache
            Path dir = Files.createDirectories(home.resolve(".config/opencode"));
            Path plugin = RealCli.cacheDir().resolve("opencode-plugin-" + RealCli.spec("opencode").version());
            for (String f : List.of("package.json", "package-lock.json")) {
                if (Files.exists(plugin.resolve(f))) {
                    Files.copy(plugin.resolve(f), dir.resolve(f), StandardCopyOption.REPLACE_EXISTING);
                }
            }
            if (!Files.exists(dir.resolve("node_modules"), LinkOption.NOFOLLOW_LINKS)) {
                Files.createSymbolicLink(dir.resolve("node_modules"), plugin.resolve("node_modules"));
            }
        }
        return home;
    }

    private PlanRunner.Run run(String prompt, Path home, Path project, PermissionMode mode, String resume)
            throws Exception {
        PlanRunner.Run r = launch(prompt, home, project, mode, resume);
        assertEquals(0, r.exitCode(), r::describe);
        assertTrue(r.completed().success(), r::describe);
        return r;
    }

    private PlanRunner.Run launch(String prompt, Path home, Path project, PermissionMode mode, String resume)
            throws Exception {
        LaunchContext ctx = context(home);
        // the npm prefix is laid out like our cli-bin directory: <prefix>/node_modules/.bin/<name>
        Path cliBin = bin.getParent().getParent().getParent();
        Path binary = provider.resolveBinary(new BinaryLocator(cliBin, ctx.pathDirectories(), null)).orElseThrow();
        assertEquals(bin.toAbsolutePath(), binary);
        RunSpec spec = RunSpec.builder(prompt, Files.createDirectories(project)).model(model).permissionMode(mode)
                .resume(resume).credentials(new ProviderCredentials(key, mock.baseUrl() + baseUrlSuffix))
                // claude retries a 401 ten times with backoff by default
                .extraEnv("CLAUDE_CODE_MAX_RETRIES", "0").build();
        LaunchPlan plan = provider.plan(spec, binary, ctx);
        int before = mock.requests().size();
        PlanRunner.Run r = PlanRunner.run(plan, provider.newParser(), TIMEOUT);
        System.out.printf("real-cli %s (our plan): %s%s took %d ms (exit %d)%n", id, mode,
                resume == null ? "" : " resume", r.took().toMillis(), r.exitCode());
        List<RecordedRequest> reqs = mock.requests().subList(before, mock.requests().size());
        assertFalse(reqs.isEmpty(), "the CLI reached the mock");
        for (RecordedRequest q : reqs) {
            assertTrue(q.status() == 200 || q.scenario().startsWith("error:"), () -> id + " called " + q.method()
                    + " " + q.path());
            assertEquals(Optional.of(key), q.apiKey(), () -> id + " sent another credential to " + q.path());
        }
        return r;
    }

    @Test
    void plainPromptThenResumedTurn() throws Exception {
        Path home = home("plain");
        Path project = tmp.resolve("plain-project");
        PlanRunner.Run first = run("--help -rf Say hello to the mock", home, project, PermissionMode.DEFAULT, null);
        assertTrue(first.text().contains("MOCK-REPLY: --help -rf Say hello to the mock"), first::describe);
        if (id != ProviderId.GROK) {
            List<AgentEvent.Usage> usage = first.all(AgentEvent.Usage.class);
            assertFalse(usage.isEmpty(), first::describe);
            assertTrue(usage.get(usage.size() - 1).inputTokens() > 0, first::describe);
            assertTrue(usage.get(usage.size() - 1).outputTokens() > 0, first::describe);
        }
        if (!provider.supportsResume()) {
            assertEquals(null, first.completed().sessionId());
            return;
        }
        String session = first.completed().sessionId();
        assertTrue(session != null && !session.isBlank(), first::describe);
        assertEquals(List.of(new AgentEvent.SessionStarted(session)), first.all(AgentEvent.SessionStarted.class));

        int before = mock.requests().size();
        PlanRunner.Run second = run("And now the second turn", home, project, PermissionMode.DEFAULT, session);
        assertTrue(second.text().contains("MOCK-REPLY: And now the second turn"), second::describe);
        assertEquals(session, second.completed().sessionId(), "the same session continued");
        assertTrue(mock.requests().subList(before, mock.requests().size()).stream()
                .anyMatch(q -> q.body().contains("Say hello to the mock")), "the first turn was replayed");
    }

    @Test
    void writeFileToolRunsWithoutAsking() throws Exception {
        for (PermissionMode mode : toolModes) {
            Path project = tmp.resolve("tool-" + mode + "-project");
            PlanRunner.Run r = run("Create it [[mock:tool:write_file path=made-by-tool.txt"
                    + " content=written-through-the-tool]]", home("tool-" + mode), project, mode, null);
            Path file = project.resolve("made-by-tool.txt");
            assertTrue(Files.exists(file), () -> id + " in " + mode + " did not write the file\n" + r.describe());
            assertEquals("written-through-the-tool", Files.readString(file).strip());
            String tool = RecordedStreamsTest.WRITE_TOOL.get(id.wireId());
            assertTrue(r.all(AgentEvent.ToolCall.class).stream().anyMatch(c -> c.name().equals(tool)
                    && c.inputJson().contains("made-by-tool.txt")), r::describe);
            assertTrue(r.all(AgentEvent.ToolResult.class).stream().noneMatch(AgentEvent.ToolResult::isError),
                    r::describe);
            assertTrue(r.text().contains("MOCK-REPLY: tool result"), r::describe);
        }
    }

    @Test
    void anApiErrorIsAFailedRunWithAnError() throws Exception {
        PlanRunner.Run r = launch("Fail now [[mock:error:401]]", home("error"), tmp.resolve("error-project"),
                PermissionMode.DEFAULT, null);
        System.out.println("real-cli " + id + " on HTTP 401:\n" + r.describe());
        if (Boolean.getBoolean("aw.golden.update")) {
            // keep this real error stream as a golden input for RecordedStreamsTest
            Path dir = Files.createDirectories(Path.of(System.getProperty("basedir", System.getProperty("user.dir")),
                    "src", "test", "resources", "streams", id.wireId()));
            Files.writeString(dir.resolve("error-401.jsonl"), String.join("\n", r.stdoutLines()) + "\n");
            Files.writeString(dir.resolve("error-401.meta.json"), "{\"provider\": \"" + id.wireId()
                    + "\", \"scenario\": \"error-401\", \"cliVersion\": \"" + RealCli.spec(id.wireId()).version()
                    + "\", \"exitCode\": " + r.exitCode() + ", \"prompt\": \"Fail now [[mock:error:401]]\", "
                    + "\"recordedBy\": \"RealCliRun#anApiErrorIsAFailedRunWithAnError with -Daw.golden.update=true\"}\n");
        }
        assertFalse(r.completed().success(), r::describe);
        assertFalse(r.all(AgentEvent.Error.class).isEmpty(), r::describe);
    }
}
