package org.agentworkspace.server;

import org.agentworkspace.testkit.git.GitCli;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

/**
 * Launches the packaged server on the module path ({@code java -p … -m org.agentworkspace.server/…}), as Surefire
 * cannot: Surefire adds every module and opens every package, hiding a missing {@code requires} or {@code opens}.
 * Then checks {@code /health}, the web UI's page at {@code /}, registration, a file write and git through JGit
 * (found by {@code ServiceLoader}), and that SIGTERM shuts the server down gracefully.
 */
class ModulePathLaunchIT {
    private static final Pattern LISTENING = Pattern.compile("listening on http://127\\.0\\.0\\.1:(\\d+)");

    @Test
    void theServerRunsOnTheModulePathAndStopsOnSigterm() throws Exception {
        Path jar = Path.of(System.getProperty("aw.server.jar"));
        Path libs = Path.of(System.getProperty("aw.server.libs"));
        assertTrue(Files.isRegularFile(jar), jar + " is built");
        Path data = Files.createTempDirectory("aw-modpath-");
        String javaBin = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        List<String> cmd = new ArrayList<>(List.of(javaBin, "--enable-native-access=org.xerial.sqlitejdbc,com.sun.jna",
                "-p", jar + java.io.File.pathSeparator + libs,
                "-m", "org.agentworkspace.server/org.agentworkspace.server.Main",
                "--port", "0", "--data-dir", data.toString(),
                // the test's project lies in a temporary folder, not in the home folder (the default root)
                "--project-roots", TestServer.TMP.toString()));
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
        // an operator's environment with a home of its own: the /shell login shell below never reads the real
        // home's dotfiles (a .bashrc that waits on a lock, as pyenv's rehash can, would stall the terminal)
        pb.environment().put("HOME", Files.createTempDirectory("aw-modpath-home-").toString());
        Process p = pb.start();
        StringBuilder log = new StringBuilder();
        CompletableFuture<Integer> port = new CompletableFuture<>();
        Thread reader = Thread.ofVirtual().start(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(),
                    StandardCharsets.UTF_8))) {
                String line;
                while ((line = r.readLine()) != null) {
                    synchronized (log) {
                        log.append(line).append('\n');
                    }
                    Matcher m = LISTENING.matcher(line);
                    if (m.find()) {
                        port.complete(Integer.parseInt(m.group(1)));
                    }
                }
            } catch (java.io.IOException e) {
                port.completeExceptionally(e);
            }
            port.completeExceptionally(new AssertionError("the server exited before listening"));
        });
        try {
            int actual = port.get(60, TimeUnit.SECONDS);
            HttpClient http = HttpClient.newHttpClient();
            HttpResponse<String> health = http.send(HttpRequest.newBuilder(
                    URI.create("http://127.0.0.1:" + actual + "/health")).build(), HttpResponse.BodyHandlers.ofString());
            assertEquals(200, health.statusCode());
            assertTrue(health.body().contains("\"version\":\"0.1.0\""), health.body());
            // the web UI's files come from module org.agentworkspace.web (resources outside any package)
            HttpResponse<String> page = http.send(HttpRequest.newBuilder(
                    URI.create("http://127.0.0.1:" + actual + "/")).build(), HttpResponse.BodyHandlers.ofString());
            if (org.agentworkspace.server.http.WebApp.load().present()) {
                assertEquals(200, page.statusCode(), page.body());
                assertTrue(page.body().contains("<div id=\"app\">"), page.body());
            }
            HttpResponse<String> reg = http.send(HttpRequest.newBuilder(
                            URI.create("http://127.0.0.1:" + actual + "/api/auth/register"))
                    .header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString("{\"username\":\"a\",\"password\":\"module-path\"}"))
                    .build(), HttpResponse.BodyHandlers.ofString());
            assertEquals(200, reg.statusCode(), reg.body());

            // Files and git (JGit found through ServiceLoader) work with the module graph as packaged.
            String token = TestServer.JSON.readTree(reg.body()).path("token").asText();
            Path work = Files.createTempDirectory("aw-modpath-work-");
            Path repo = new GitCli(work.resolve("home")).repo(work.resolve("proj"), "a.txt", "a\n");
            HttpResponse<String> project = call(http, actual, token, "POST", "/api/projects/quick-start",
                    "{\"path\":\"" + repo + "\"}");
            assertEquals(200, project.statusCode(), project.body());
            String name = TestServer.JSON.readTree(project.body()).path("name").asText();
            assertEquals(200, call(http, actual, token, "PUT", "/api/projects/" + name + "/file",
                    "{\"path\":\"b.txt\",\"content\":\"b\"}").statusCode());
            HttpResponse<String> status = call(http, actual, token, "GET", "/api/git/status?project=" + name, null);
            assertEquals(200, status.statusCode(), status.body());
            assertTrue(status.body().contains("\"untracked\":[\"b.txt\"]"), status.body());
            HttpResponse<String> commit = call(http, actual, token, "POST", "/api/git/commit",
                    "{\"project\":\"" + name + "\",\"message\":\"module path\",\"files\":[\"b.txt\"]}");
            assertEquals(200, commit.statusCode(), commit.body());

            // A terminal on /shell: pty4j (an automatic module) with JNA and kotlin-stdlib resolve as packaged.
            StringBuilder screen = new StringBuilder();
            CompletableFuture<Integer> exit = new CompletableFuture<>();
            StringBuilder partial = new StringBuilder();
            java.net.http.WebSocket ws = http.newWebSocketBuilder().header("Authorization", "Bearer " + token)
                    .buildAsync(URI.create("ws://127.0.0.1:" + actual + "/shell"), new java.net.http.WebSocket.Listener() {
                        @Override
                        public java.util.concurrent.CompletionStage<?> onText(java.net.http.WebSocket w,
                                                                               CharSequence data, boolean last) {
                            partial.append(data);
                            if (last) {
                                try {
                                    com.fasterxml.jackson.databind.JsonNode m = TestServer.JSON.readTree(partial.toString());
                                    synchronized (screen) {
                                        screen.append(m.path("data").asText(""));
                                    }
                                    if (m.path("type").asText().equals("exit")) {
                                        exit.complete(m.path("exitCode").asInt());
                                    } else if (m.path("type").asText().equals("error")) {
                                        exit.completeExceptionally(new AssertionError(m.toString()));
                                    }
                                } catch (java.io.IOException e) {
                                    exit.completeExceptionally(e);
                                }
                                partial.setLength(0);
                            }
                            w.request(1);
                            return null;
                        }
                    }).get(10, TimeUnit.SECONDS);
            ws.sendText("{\"type\":\"init\",\"projectName\":\"" + name + "\",\"cols\":80,\"rows\":24}", true)
                    .get(5, TimeUnit.SECONDS);
            ws.sendText("{\"type\":\"input\",\"data\":\"echo mod-$((6*7)); exit 5\\n\"}", true).get(5, TimeUnit.SECONDS);
            assertEquals(5, exit.get(20, TimeUnit.SECONDS), screen.toString());
            synchronized (screen) {
                assertTrue(screen.toString().contains("mod-42"), screen.toString());
            }

            // SIGTERM through the handle: Process.destroy() would also close our end of the child's output
            p.toHandle().destroy();
            assertTrue(p.waitFor(30, TimeUnit.SECONDS), "the server exits after SIGTERM");
            reader.join(5000);
            String out;
            synchronized (log) {
                out = log.toString();
            }
            assertTrue(out.contains("agent-workspace: shutting down") && out.contains("agent-workspace: stopped"), out);
            assertFalse(out.contains("Exception"), out);
            assertEquals(143, p.exitValue(), out);
        } finally {
            p.destroyForcibly();
        }
    }

    private static HttpResponse<String> call(HttpClient http, int port, String token, String method, String path,
                                             String json) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .header("Authorization", "Bearer " + token);
        if (json == null) {
            b.method(method, HttpRequest.BodyPublishers.noBody());
        } else {
            b.header("Content-Type", "application/json").method(method, HttpRequest.BodyPublishers.ofString(json));
        }
        return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }
}
