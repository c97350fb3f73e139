package org.agentworkspace.server.web;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

import org.agentworkspace.server.http.WebApp;
import org.agentworkspace.testkit.fakecli.FakeClis;
import org.agentworkspace.testkit.realcli.RealCli;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The workspace panels in a real browser (headless Chromium driven by {@code workspace-web/e2e/workspace.mjs}) against
 * the packaged server ({@link JarServer}: the built jar as a process of its own, the fake CLIs named with
 * {@code --cli-path}) and its UI: a git project whose file is opened, edited and saved (with a
 * change on disk in between: the conflict warning), seen in git status and in the diff, staged, committed and
 * found in the Git panel's history (GET /api/git/log, with the commits made outside the browser); a
 * terminal over /shell runs {@code echo}, is disconnected while a command still prints, and shows the missed output
 * after reconnecting; the same at 360x740. The commits are checked here with the {@code git} command. Screenshots in
 * {@code workspace-server/target/web-e2e-workspace/}. Skipped, with the reason printed, when Chromium, Node, git or
 * the UI build is missing.
 */
@Tag("browser")
class WorkspaceBrowserIT {
    @TempDir
    Path tmp;

    @Test
    void filesGitAndTerminalInABrowser() throws Exception {
        Path web = Path.of(System.getProperty("user.dir")).resolveSibling("workspace-web");
        Path chromium = Path.of(Optional.ofNullable(System.getenv("AW_CHROMIUM")).orElse("/usr/bin/chromium"));
        Optional<String> nodeMissing = RealCli.unavailableReason();
        String skip = !WebApp.load().present() ? "the UI was not built (-Dskip.web)"
                : !Files.isExecutable(chromium) ? "no Chromium at " + chromium + " (scripts/test.sh installs it)"
                : nodeMissing.isPresent() ? nodeMissing.get()
                : !Files.isExecutable(Path.of("/usr/bin/git")) ? "no git command at /usr/bin/git"
                : !Files.isDirectory(web.resolve("node_modules/playwright-core")) ? "workspace-web/node_modules is missing"
                : null;
        if (skip != null) {
            System.out.println("SKIPPED workspace browser test: " + skip);
        }
        Assumptions.assumeTrue(skip == null, skip);

        Path project = gitRepo(tmp.resolve("ws-project"), Map.of(
                "README.md", "# A project\n",
                "src/hello.txt", "hello\n",
                "src/phone.txt", "phone\n",
                "logo.png", "")); // replaced below by real PNG bytes
        Files.write(project.resolve("logo.png"), PNG_1X1);
        git(project, "add", "-A");
        git(project, "commit", "-q", "-m", "the logo");

        String hold = System.getProperty("aw.e2e.hold", "");
        Path bench = null;
        if (!hold.isEmpty()) {
            // the benchmark's project (docs/benchmarks.md "Web UI"): 2,000 changed files and a 1 MB file
            Map<String, String> files = new HashMap<>();
            for (int i = 0; i < 2000; i++) {
                files.put("pkg" + (i / 100) + "/file" + i + ".txt", "line one of " + i + "\nline two\nline three\n");
            }
            StringBuilder big = new StringBuilder();
            for (int i = 0; big.length() < 1_000_000; i++) {
                big.append("export function f").append(i).append("(a, b) { return a + b * ").append(i).append("; }\n");
            }
            files.put("big.js", big.toString());
            bench = gitRepo(tmp.resolve("bench-ws"), files);
            for (int i = 0; i < 2000; i++) {
                Files.writeString(bench.resolve("pkg" + (i / 100) + "/file" + i + ".txt"), "line one of " + i + "\nline 2 changed\nline three\nadded " + i + "\n");
            }
        }

        Path bin = FakeClis.install(tmp.resolve("bin"));
        // each provider's CLI named with --cli-path, as an operator would; HOME is a fresh folder (JarServer)
        List<String> paths = new ArrayList<>();
        for (String p : List.of("claude", "codex", "gemini", "qwen", "opencode", "grok", "cursor")) {
            paths.add(p + "=" + FakeClis.binary(bin, p));
        }
        Path serverLog = Path.of("target", "web-e2e-workspace-server.log").toAbsolutePath();
        // the fake claude writes hello.txt in the project and replays a Write of it (the file tree marks what the
        // agent changed in the chat session: e2e/workspace.mjs)
        try (JarServer s = JarServer.start(tmp.resolve("server"), serverLog, List.of("--cli-path", String.join(",", paths),
                "--provider-env", "claude:PATH=/usr/bin:/bin,claude:AW_FAKE_WRITE_FILE=hello.txt,claude:AW_FAKE_REAL_CWD=1"),
                Map.of())) {
            if (!hold.isEmpty()) {
                Files.writeString(Path.of(hold), "AW_E2E_URL=" + s.origin() + "\nAW_E2E_PROJECT=" + project.toRealPath()
                        + "\nAW_E2E_BENCH_PROJECT=" + bench.toRealPath() + "\n");
                while (Files.exists(Path.of(hold))) {
                    Thread.sleep(500);
                }
                return;
            }
            Path shots = Path.of("target", "web-e2e-workspace").toAbsolutePath();
            Files.createDirectories(shots);
            try (var old = Files.list(shots)) {
                for (Path f : old.toList()) {
                    Files.deleteIfExists(f);
                }
            }
            Path log = shots.resolve("e2e.log");
            ProcessBuilder pb = new ProcessBuilder("node", "e2e/workspace.mjs").directory(web.toFile())
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
            assertEquals(0, p.exitValue(), "the browser test failed (its output is above; the server's log is " + serverLog
                    + ", screenshots in " + shots + ")");

            // what the browser did, as git sees it
            String logLines = git(project, "log", "--format=%s|%an", "-n", "3");
            assertTrue(logLines.startsWith("Phone commit from the browser|admin\nCommit from the browser|admin\n"), logLines);
            // everything committed but the agent's step: README.md edited by the user, hello.txt written by the agent
            assertEquals(" M README.md\n?? hello.txt\n", git(project, "status", "--porcelain"), "the rest was committed");
            assertTrue(Files.readString(project.resolve("README.md")).contains("edited by the user"));
            assertEquals("written by the fake claude CLI\n", Files.readString(project.resolve("hello.txt")));
            String hello = Files.readString(project.resolve("src/hello.txt"));
            assertTrue(hello.contains("edited in the browser") && hello.contains("kept after the conflict warning"), hello);
            assertTrue(Files.readString(project.resolve("src/phone.txt")).contains("typed on a phone"));
        }
    }

    private static Path gitRepo(Path dir, Map<String, String> files) throws IOException, InterruptedException {
        Files.createDirectories(dir);
        git(dir, "init", "-q", "-b", "main");
        for (var e : files.entrySet()) {
            Path f = dir.resolve(e.getKey());
            Files.createDirectories(f.getParent());
            Files.writeString(f, e.getValue());
        }
        git(dir, "add", "-A");
        git(dir, "commit", "-q", "-m", "the start");
        return dir.toRealPath();
    }

    private static String git(Path dir, String... args) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(List.of("git", "-c", "user.name=Test", "-c", "user.email=test@example.invalid",
                "-c", "commit.gpgsign=false", "-C", dir.toString()));
        cmd.addAll(List.of(args));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
            throw new IOException("git " + String.join(" ", args) + " failed: " + out);
        }
        return out;
    }

    /** A 1x1 PNG, for the image preview. */
    private static final byte[] PNG_1X1 = java.util.Base64.getDecoder().decode(
            "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==");
}
