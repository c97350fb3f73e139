package org.agentworkspace.server.web;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

import org.agentworkspace.server.http.WebApp;
import org.agentworkspace.testkit.fakecli.FakeClis;
import org.agentworkspace.testkit.historygen.HistoryGenerator;
import org.agentworkspace.testkit.mockllm.MockLlmServer;
import org.agentworkspace.testkit.realcli.RealCli;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The web UI in a real browser: headless Chromium (Debian's, which scripts/test.sh installs when missing) driven by
 * playwright-core ({@code workspace-web/e2e/run.mjs}) against the packaged server as a process of its own
 * ({@link JarServer}, configured only with flags and environment as an operator would) with its UI, fake CLIs
 * (gemini streams 600 deltas at 50 a second), the real claude CLI from npm against the mock LLM (a permission prompt that is
 * allowed and a file written; its key and the mock as its base URL saved on the provider page in the browser, the
 * mock's loopback address allowed as an operator's {@code --outbound-allow}), and a claude session in the CLI history. Desktop and a 360x740 phone; screenshots in
 * {@code workspace-server/target/web-e2e/}. Skipped, with the reason printed, only when Chromium, Node or the UI
 * build is missing.
 */
@Tag("browser")
class WebUiBrowserIT {
    @TempDir
    Path tmp;

    @Test
    void theDailyLoopInABrowser() throws Exception {
        Path web = Path.of(System.getProperty("user.dir")).resolveSibling("workspace-web");
        Path chromium = Path.of(Optional.ofNullable(System.getenv("AW_CHROMIUM")).orElse("/usr/bin/chromium"));
        Optional<String> nodeMissing = RealCli.unavailableReason();
        String skip = !WebApp.load().present() ? "the UI was not built (-Dskip.web)"
                : !Files.isExecutable(chromium) ? "no Chromium at " + chromium + " (scripts/test.sh installs it)"
                : nodeMissing.isPresent() ? nodeMissing.get()
                : !Files.isDirectory(web.resolve("node_modules/playwright-core")) ? "workspace-web/node_modules is missing"
                : null;
        if (skip != null) {
            System.out.println("SKIPPED web UI browser test: " + skip);
        }
        Assumptions.assumeTrue(skip == null, skip);

        Path home = Files.createDirectories(tmp.resolve("home"));
        Path project = Files.createDirectories(tmp.resolve("ui-project"));
        HistoryGenerator.writeSession(home, "claude", project.toString(), "History title", "First prompt from history",
                Instant.now().minus(Duration.ofHours(2)), 7, 30_000);
        String hold = System.getProperty("aw.e2e.hold", "");
        if (!hold.isEmpty()) {
            // the benchmark's session (docs/benchmarks.md "Web UI"): about 5,000 messages
            Path bench = Files.createDirectories(tmp.resolve("bench-project"));
            HistoryGenerator.writeSession(home, "claude", bench.toString(), "Huge session", "First prompt of the huge session",
                    Instant.now().minus(Duration.ofHours(3)), 11, 10_000_000);
        }
        Path bin = FakeClis.install(tmp.resolve("bin"));
        Map<String, Path> binaries = new HashMap<>();
        for (String p : List.of("codex", "gemini", "qwen", "opencode", "grok", "cursor")) {
            binaries.put(p, FakeClis.binary(bin, p));
        }
        Map<String, Map<String, String>> providerEnv = new HashMap<>();
        providerEnv.put("gemini", Map.of("PATH", "/usr/bin:/bin", "AW_FAKE_EVENTS", "600", "AW_FAKE_DELAY_MS", "20"));
        boolean realClaude = true;
        try {
            Path node = RealCli.ensureNode();
            Path claude = RealCli.ensureInstalled("claude");
            binaries.put("claude", claude);
            Path claudeHome = Files.createDirectories(tmp.resolve("claude-home"));
            Files.createDirectories(tmp.resolve("tmpdir"));
            providerEnv.put("claude", Map.of("HOME", claudeHome.toString(), "TMPDIR", tmp.resolve("tmpdir").toString(),
                    "PATH", claude.getParent() + ":" + node + ":/usr/local/bin:/usr/bin:/bin",
                    "CLAUDE_CODE_MAX_RETRIES", "0"));
        } catch (RuntimeException e) {
            System.out.println("web UI browser test without the real claude CLI: " + e.getMessage());
            realClaude = false;
            binaries.put("claude", FakeClis.binary(bin, "claude"));
        }
        try (MockLlmServer mock = MockLlmServer.create().start()) {
            // the packaged server as a process of its own (JarServer), configured as an operator would: each CLI
            // named with --cli-path and its environment with --provider-env, Web Push to a stand-in push service on
            // loopback (e2e/pwa.mjs runs it) as --web-push-allow-loopback-http, the mock LLM's loopback address
            // allowed as --outbound-allow, HOME the folder with the CLI history. No key here: e2e/run.mjs saves
            // claude's key and the mock as its base URL on the provider page.
            URI mockUri = URI.create(mock.baseUrl());
            List<String> cliPaths = new ArrayList<>();
            binaries.forEach((p, b) -> cliPaths.add(p + "=" + b));
            List<String> env = new ArrayList<>();
            providerEnv.forEach((p, vars) -> vars.forEach((k, v) -> env.add(p + ":" + k + "=" + v)));
            Path serverLog = Path.of("target", "web-e2e-server.log").toAbsolutePath();
            try (JarServer s = JarServer.start(tmp.resolve("server"), serverLog, List.of(
                    "--cli-path", String.join(",", cliPaths),
                    "--provider-env", String.join(",", env),
                    "--web-push-allow-loopback-http",
                    "--outbound-allow", mockUri.getHost() + ":" + mockUri.getPort()),
                    Map.of("HOME", home.toString()))) {
                run(web, chromium, hold, s, project, realClaude, mock);
            }
        }
    }

    private static void run(Path web, Path chromium, String hold, JarServer s, Path project, boolean realClaude,
            MockLlmServer mock) throws Exception {
        Path shots = Path.of("target", "web-e2e").toAbsolutePath();
        if (!hold.isEmpty()) {
            // development: keep the server up for running e2e/run.mjs by hand until the file is deleted
            Files.writeString(Path.of(hold), "AW_E2E_URL=" + s.origin() + "\nAW_E2E_PROJECT=" + project.toRealPath()
                    + "\nAW_E2E_REAL_CLAUDE=" + (realClaude ? "1" : "0") + "\nAW_E2E_MOCK_URL=" + mock.baseUrl() + "\n");
            while (Files.exists(Path.of(hold))) {
                Thread.sleep(500);
            }
            return;
        }
        Files.createDirectories(shots);
        try (var old = Files.list(shots)) {
            for (Path f : old.toList()) {
                Files.deleteIfExists(f); // screenshots of an earlier run
            }
        }
        // the daily loop (run.mjs: it also sets the account up and adds the project), then the PWA and Web Push
        runScript(web, "e2e/run.mjs", shots.resolve("e2e.log"), s, project, realClaude, chromium, mock.baseUrl());
        runScript(web, "e2e/pwa.mjs", shots.resolve("pwa.log"), s, project, realClaude, chromium, mock.baseUrl());
    }

    /** Runs one browser script with node; its output goes to a file (the JVM's stdout is Surefire's), printed after. */
    private static void runScript(Path web, String script, Path log, JarServer s, Path project, boolean realClaude,
            Path chromium, String mockUrl) throws Exception {
        ProcessBuilder pb = new ProcessBuilder("node", script).directory(web.toFile())
                .redirectErrorStream(true).redirectOutput(log.toFile());
        pb.environment().put("AW_E2E_URL", s.origin());
        pb.environment().put("AW_E2E_PROJECT", project.toRealPath().toString());
        pb.environment().put("AW_E2E_SHOTS", log.getParent().toString());
        pb.environment().put("AW_E2E_REAL_CLAUDE", realClaude ? "1" : "0");
        pb.environment().put("AW_CHROMIUM", chromium.toString());
        pb.environment().put("AW_E2E_MOCK_URL", mockUrl);
        Process p = pb.start();
        boolean ended = p.waitFor(6, TimeUnit.MINUTES);
        if (!ended) {
            p.descendants().forEach(ProcessHandle::destroyForcibly);
            p.destroyForcibly();
        }
        System.out.println(Files.readString(log));
        if (!ended) {
            throw new AssertionError(script + " did not finish within 6 minutes");
        }
        assertEquals(0, p.exitValue(), script + " failed (its output is above; screenshots in " + log.getParent() + ")");
    }
}
