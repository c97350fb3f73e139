package org.agentworkspace.server.web;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import org.agentworkspace.server.TestServer;
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

        Path jar = Path.of(System.getProperty("aw.server.jar"));
        Path libs = Path.of(System.getProperty("aw.server.libs"));
        assertTrue(Files.isRegularFile(jar), jar + " is built");
        Path data = Files.createDirectories(tmp.resolve("data"));
        Path home = Files.createDirectories(tmp.resolve("home"));
        Path serverLog = Files.createDirectories(Path.of("target", "restart-e2e").toAbsolutePath()).resolve("server.log");
        Files.deleteIfExists(serverLog);
        int port;
        try (ServerSocket probe = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = probe.getLocalPort();
        }
        String javaBin = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        List<String> cmd = List.of(javaBin, "--enable-native-access=org.xerial.sqlitejdbc,com.sun.jna",
                "-p", jar + java.io.File.pathSeparator + libs,
                "-m", "org.agentworkspace.server/org.agentworkspace.server.Main",
                "--port", String.valueOf(port), "--data-dir", data.toString(),
                "--project-roots", TestServer.TMP.toString());
        Launcher launcher = new Launcher(cmd, home, serverLog);
        try {
            launcher.start();
            launcher.waitListening(0, 90);

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
            pb.environment().put("AW_E2E_URL", "http://127.0.0.1:" + port);
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
            assertEquals(2, launcher.starts.get(), launcher.log());
            assertTrue(launcher.log().contains("exiting with code 42 for the launcher to start the server again"),
                    launcher.log());
        } finally {
            launcher.stop();
        }
    }

    /** What scripts/run.sh does, in small: start the server, and again whenever it exits with status 42. */
    private static final class Launcher {
        private final List<String> cmd;
        private final Path home;
        private final Path logFile;
        private final StringBuilder log = new StringBuilder();
        private final List<Integer> exits = new ArrayList<>();
        private final List<CompletableFuture<Void>> listening = new ArrayList<>();
        final AtomicInteger starts = new AtomicInteger();
        private final AtomicReference<Process> current = new AtomicReference<>();
        private volatile boolean stopping;

        Launcher(List<String> cmd, Path home, Path logFile) {
            this.cmd = cmd;
            this.home = home;
            this.logFile = logFile;
        }

        synchronized void start() throws IOException {
            int n = starts.getAndIncrement();
            CompletableFuture<Void> up = new CompletableFuture<>();
            listening.add(up);
            ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
            // an operator's environment with a home of its own (no dotfiles of the machine's user)
            pb.environment().put("HOME", home.toString());
            Process p = pb.start();
            current.set(p);
            append("--- launcher: start " + (n + 1) + " (pid " + p.pid() + ")");
            Thread.ofVirtual().start(() -> {
                try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(),
                        StandardCharsets.UTF_8))) {
                    String line;
                    while ((line = r.readLine()) != null) {
                        append(line);
                        if (line.contains("listening on http://127.0.0.1:")) {
                            up.complete(null);
                        }
                    }
                } catch (IOException e) {
                    append("--- launcher: reading the log failed: " + e);
                }
                int status;
                try {
                    status = p.waitFor();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
                up.completeExceptionally(new AssertionError("the server exited with " + status + " before listening"));
                synchronized (this) {
                    exits.add(status);
                }
                append("--- launcher: exited with " + status);
                if (status == 42 && !stopping) {
                    try {
                        start();
                    } catch (IOException e) {
                        append("--- launcher: the restart failed: " + e);
                    }
                }
            });
        }

        void waitListening(int start, int seconds) throws Exception {
            CompletableFuture<Void> up;
            synchronized (this) {
                up = listening.get(start);
            }
            try {
                up.get(seconds, TimeUnit.SECONDS);
            } catch (Exception e) {
                throw new AssertionError("the server did not listen within " + seconds + " s:\n" + log(), e);
            }
        }

        synchronized List<Integer> exits() {
            return List.copyOf(exits);
        }

        String log() {
            synchronized (log) {
                return log.toString();
            }
        }

        private void append(String line) {
            synchronized (log) {
                log.append(line).append('\n');
            }
            try {
                Files.writeString(logFile, line + "\n", StandardCharsets.UTF_8,
                        java.nio.file.StandardOpenOption.CREATE, java.nio.file.StandardOpenOption.APPEND);
            } catch (IOException ignored) {
                // the in-memory copy is what the assertions read
            }
        }

        void stop() throws InterruptedException {
            stopping = true;
            Process p = current.get();
            if (p != null) {
                p.toHandle().destroy();
                if (!p.waitFor(30, TimeUnit.SECONDS)) {
                    p.destroyForcibly();
                }
            }
        }
    }
}
