package org.agentworkspace.server.web;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

import org.agentworkspace.server.http.WebApp;
import org.agentworkspace.testkit.realcli.RealCli;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The administrator's restart from the System page, in a real browser ({@code workspace-web/e2e/restart.mjs}), against
 * the packaged server started as its own process on the module path, as {@code scripts/run.sh} does. The test plays
 * the launcher: when the process exits with status 42 it starts it again with the same port and data folder. The
 * script presses Restart and sees the page wait, notice the new process on {@code /health} and reload itself, signed
 * in, showing the version. Screenshots in {@code workspace-server/target/restart-e2e/}. Skipped, with the reason
 * printed, only when Chromium, Node or the UI build is missing.
 */
@Tag("browser")
class RestartBrowserIT {
    @TempDir
    Path tmp;

    @Test
    void theSystemPageRestartsTheServerAndReloadsWhenItIsBack() throws Exception {
        Path web = Paths.get(System.getProperty("user.dir")).resolveSibling("workspace-web");
        Path chromium = Path.of(Optional.ofNullable(System.getenv("AW_CHROMIUM")).orElse("/usr/bin/chromium"));
        Optional<String> nodeMissing = RealCli.unavailableReason();
        String skip = !WebApp.load().present() ? "the UI was not built (-Dskip.web)"
                : !Files.isExecutable(chromium) ? "no Chromium at " + chromium + " (scripts/test.sh installs it)"
                : nodeMissing.isPresent() ? nodeMissing.get()
                : !Files.isDirectory(web.resolve("node_modules/playwright-core")) ? "workspace-web/node_modules is missing"
                : null;
        if (skip != null) {
            System.out.println("SKIPPED restart browser test: " + skip);
        }
        Assumptions.assumeTrue(skip == null, skip);

        Path serverLog = Path.of("target", "restart-e2e").toAbsolutePath().resolve("server.log");
        try (JarServer launcher = JarServer.relaunchingOn42(tmp, serverLog, List.of(), Map.of())) {
            launcher.launch();
            launcher.waitListening(0, 180);
            Path shots = Path.of("target", "restart-e2e").toAbsolutePath();
            try (var old = Files.list(shots)) {
                for (Path f : old.toList()) {
                    if (f.getFileName().toString().endsWith(".png")) {
                        Files.deleteIfExists(f);
                    }
                }
            }
            Path log = shots.resolve("e2e.log");
            ProcessBuilder pb = new ProcessBuilder("node", "e2e/restart.mjs").directory(web.toFile())
                    .redirectErrorStream(true).redirectOutput(log.toFile());
            pb.environment().put("AW_E2E_URL", launcher.origin());
            pb.environment().put("AW_E2E_SHOTS", shots.toString());
            pb.environment().put("AW_CHROMIUM", chromium.toString());
            Process p = pb.start();
            boolean ended = p.waitFor(5, TimeUnit.MINUTES);
            if (!ended) {
                p.descendants().forEach(ProcessHandle::destroyForcibly);
                p.destroyForcibly();
            }
            System.out.println(Files.readString(log));
            if (!ended) {
                throw new AssertionError("the browser test did not finish within 5 minutes");
            }
            assertEquals(0, p.exitValue(), "the restart browser test failed (its output is above; the server's log is "
                    + serverLog + ", screenshots in " + shots + ")");
            // the launcher saw exactly one exit, with 42, and the second process is the one that answers now
            assertEquals(List.of(42), launcher.exits(), launcher.log());
            assertEquals(2, launcher.starts(), launcher.log());
            assertTrue(launcher.log().contains("exiting with code 42 for the launcher to start the server again"),
                    launcher.log());
        }
    }
}
