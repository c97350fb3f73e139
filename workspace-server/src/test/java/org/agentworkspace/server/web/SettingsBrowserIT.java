package org.agentworkspace.server.web;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

import org.agentworkspace.server.http.WebApp;
import org.agentworkspace.testkit.fakecli.FakeClis;
import org.agentworkspace.testkit.fakecli.FakeNpm;
import org.agentworkspace.testkit.realcli.RealCli;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The settings and automation pages in a real browser (headless Chromium driven by {@code workspace-web/e2e/settings.mjs})
 * against the packaged server ({@link JarServer}: the built jar started as a process of its own, configured with its
 * command-line flags and environment only) and its UI. No provider is ready at first: claude is installed from the UI
 * with the testkit's fake npm (its progress followed to the end, across a reload), then given a key; gemini is a fake
 * CLI (installed, no credential) that the tasks run. An API key made in the UI is used by the script's own HTTP
 * client. Desktop and a 360x740 phone; axe-core on every page; screenshots in
 * {@code workspace-server/target/settings-e2e/}. Skipped, with the reason printed, only when Chromium, Node or the UI
 * build is missing.
 */
@Tag("browser")
class SettingsBrowserIT {
    @TempDir
    Path tmp;

    @Test
    void settingsAndAutomationInABrowser() throws Exception {
        Path web = Paths.get(System.getProperty("user.dir")).resolveSibling("workspace-web");
        Path chromium = Path.of(Optional.ofNullable(System.getenv("AW_CHROMIUM")).orElse("/usr/bin/chromium"));
        Optional<String> nodeMissing = RealCli.unavailableReason();
        String skip = !WebApp.load().present() ? "the UI was not built (-Dskip.web)"
                : !Files.isExecutable(chromium) ? "no Chromium at " + chromium + " (scripts/test.sh installs it)"
                : nodeMissing.isPresent() ? nodeMissing.get()
                : !Files.isDirectory(web.resolve("node_modules/playwright-core")) ? "workspace-web/node_modules is missing"
                : null;
        if (skip != null) {
            System.out.println("SKIPPED settings browser test: " + skip);
        }
        Assumptions.assumeTrue(skip == null, skip);

        Path project = Files.createDirectories(tmp.resolve("task-project"));
        // the server's PATH: the fake npm and node only (installs go to <data-dir>/cli-bin), then the system's tools
        Path npmBin = FakeNpm.install(Files.createDirectories(tmp.resolve("npm-bin")), true);
        // gemini is a fake CLI outside PATH, named to the engine: installed, with no credential
        Path clis = FakeClis.install(tmp.resolve("clis"), List.of("gemini"));
        Path gemini = FakeClis.binary(clis, "gemini");
        // configured only as an operator can: flags and the server's environment
        List<String> flags = List.of("--cli-path", "gemini=" + gemini,
                "--provider-env", "gemini:PATH=/usr/bin:/bin,gemini:AW_FAKE_EVENTS=40,gemini:AW_FAKE_DELAY_MS=50");
        Map<String, String> env = Map.of("PATH", npmBin + ":/usr/bin:/bin", "npm_config_fake_lines", "80",
                "npm_config_fake_delay_ms", "60");
        Path serverLog = Path.of("target", "settings-e2e-server.log").toAbsolutePath();
        try (JarServer s = JarServer.start(tmp.resolve("server"), serverLog, flags, env)) {
            String hold = System.getProperty("aw.e2e.hold", "");
            if (!hold.isEmpty()) {
                // development: keep the server up for running e2e/settings.mjs by hand until the file is deleted
                Files.writeString(Path.of(hold), "AW_E2E_URL=" + s.origin() + "\nAW_E2E_PROJECT=" + project.toRealPath() + "\n");
                while (Files.exists(Path.of(hold))) {
                    Thread.sleep(500);
                }
                return;
            }
            Path shots = Path.of("target", "settings-e2e").toAbsolutePath();
            Files.createDirectories(shots);
            try (var old = Files.list(shots)) {
                for (Path f : old.toList()) {
                    Files.deleteIfExists(f);
                }
            }
            Path log = shots.resolve("e2e.log");
            ProcessBuilder pb = new ProcessBuilder("node", "e2e/settings.mjs").directory(web.toFile())
                    .redirectErrorStream(true).redirectOutput(log.toFile());
            pb.environment().put("AW_E2E_URL", s.origin());
            pb.environment().put("AW_E2E_PROJECT", project.toRealPath().toString());
            pb.environment().put("AW_E2E_SHOTS", shots.toString());
            pb.environment().put("AW_CHROMIUM", chromium.toString());
            Process p = pb.start();
            boolean ended = p.waitFor(6, TimeUnit.MINUTES);
            if (!ended) {
                p.descendants().forEach(ProcessHandle::destroyForcibly);
                p.destroyForcibly();
            }
            System.out.println(Files.readString(log));
            if (!ended) {
                throw new AssertionError("the browser test did not finish within 6 minutes");
            }
            assertEquals(0, p.exitValue(), "the settings browser test failed (its output is above; the server's log is "
                    + serverLog + ", screenshots in " + shots + ")");
        }
    }
}
