package org.agentworkspace.server.providers;

import static org.agentworkspace.server.TestServer.bearer;
import static org.agentworkspace.server.TestServer.expect;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import com.fasterxml.jackson.databind.JsonNode;

import org.agentworkspace.server.SseClient;
import org.agentworkspace.server.TestServer;
import org.agentworkspace.testkit.realcli.RealCli;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Installing the real CLIs through the API from the npm registry, each on a fresh data directory, with the
 * machine's node and npm (the npm tarball cache makes repeats fast): the job streams npm's log over SSE, a
 * reconnect with {@code Last-Event-ID} gets only what it missed, the job ends {@code succeeded}, and the status then
 * reports the binary in {@code cli-bin} and the version the CLI itself prints. A cancelled install leaves no
 * process behind.
 */
@Tag("real-cli")
class RealInstallTest {

    @BeforeAll
    static void needsNodeAndNpm() {
        RealCli.unavailableReason().ifPresent(why -> {
            System.out.println("SKIPPED: " + why);
            Assumptions.abort(why);
        });
    }

    /** A server whose environment has the machine's PATH (node, npm) and the real npm cache, but its own HOME. */
    static TestServer server() {
        Map<String, String> env = new LinkedHashMap<>();
        env.put("PATH", System.getenv().getOrDefault("PATH", "/usr/local/bin:/usr/bin:/bin"));
        env.put("LANG", "C.UTF-8");
        env.put("npm_config_cache", Path.of(System.getProperty("user.home"), ".npm").toString());
        for (String v : List.of("HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY", "http_proxy", "https_proxy", "no_proxy",
                "npm_config_registry", "SSL_CERT_FILE", "SSL_CERT_DIR", "NODE_EXTRA_CA_CERTS")) {
            if (System.getenv(v) != null) {
                env.put(v, System.getenv(v));
            }
        }
        return TestServer.start(c -> c, env);
    }

    /** Deletes a test server's folder (installed CLIs take 0.5-1.6 GB). */
    static void deleteTree(Path dataDir) {
        Path root = dataDir.getParent();
        try (var walk = java.nio.file.Files.walk(root)) {
            walk.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (java.io.IOException e) {
            System.out.println("could not delete " + root + ": " + e);
        }
    }

    /** What {@code binary --version} prints, run the way a run starts it (its folder first on PATH). */
    static String versionOutput(Path binary) throws Exception {
        ProcessBuilder pb = new ProcessBuilder(binary.toString(), "--version");
        pb.environment().clear();
        pb.environment().put("PATH", binary.getParent() + ":/usr/bin:/bin");
        pb.environment().put("HOME", binary.getParent().toString());
        pb.environment().put("TERM", "dumb");
        pb.redirectErrorStream(true).redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS));
        return out.strip();
    }

    /** Follows a job's stream to its end; returns the events. */
    static List<SseClient.Event> follow(TestServer s, String token, String provider, String jobId, String after) {
        String[] headers = after == null ? bearer(token)
                : new String[] {"Authorization", "Bearer " + token, "Last-Event-ID", after};
        try (SseClient sse = SseClient.open(s.http, s.uri("/api/providers/" + provider + "/install/" + jobId
                + "/stream"), headers)) {
            assertEquals(200, sse.status);
            return sse.all();
        }
    }

    static void assertInstalled(TestServer s, String token, String provider, List<SseClient.Event> events)
            throws Exception {
        SseClient.Event last = events.getLast();
        assertEquals("done", last.name(), provider + ": " + tail(events));
        JsonNode job = TestServer.JSON.readTree(last.data());
        assertEquals("succeeded", job.path("status").asText(), provider + ": " + tail(events));
        JsonNode status = expect(s.get("/api/providers/" + provider + "/auth/status", bearer(token)), 200, null);
        assertTrue(status.path("installed").asBoolean(), status.toString());
        Path binary = s.dataDir.resolve("cli-bin/node_modules/.bin").resolve(provider);
        assertEquals(binary.toString(), status.path("binaryPath").asText());
        String printed = versionOutput(binary);
        assertTrue(printed.contains(status.path("version").asText()) && !status.path("version").asText().isEmpty(),
                provider + " printed '" + printed + "', status says " + status.path("version"));
        assertEquals(job.path("version").asText(), status.path("version").asText());
        System.out.println(provider + ": installed " + status.path("version").asText() + " (" + printed + ")");
    }

    private static String tail(List<SseClient.Event> events) {
        List<SseClient.Event> t = events.subList(Math.max(0, events.size() - 15), events.size());
        StringBuilder b = new StringBuilder();
        t.forEach(e -> b.append('\n').append(e.name()).append(' ').append(e.data()));
        return b.toString();
    }

    @Test
    void claudeInstallsStreamsResumesAndReportsItsVersion() throws Exception {
        long t0 = System.nanoTime();
        TestServer s = server();
        try (s) {
            String admin = s.registerAdmin();
            JsonNode job = expect(s.post("/api/providers/claude/install", null, bearer(admin)), 202, null);
            String id = job.path("jobId").asText();

            List<SseClient.Event> first;
            try (SseClient sse = SseClient.open(s.http, s.uri("/api/providers/claude/install/" + id + "/stream"),
                    bearer(admin))) {
                // read until npm itself has printed a few lines, then drop the connection
                int[] npmLines = {0};
                first = sse.until(e -> npmLine(e) && ++npmLines[0] >= 3);
            }
            String lastSeen = first.getLast().id();
            List<SseClient.Event> rest = follow(s, admin, "claude", id, lastSeen);
            assertEquals(Long.parseLong(lastSeen) + 1, Long.parseLong(rest.getFirst().id()));
            List<SseClient.Event> all = follow(s, admin, "claude", id, null);
            List<SseClient.Event> joined = new ArrayList<>(first);
            joined.addAll(rest);
            assertEquals(all, joined, "the reconnect replayed exactly what was missed");
            assertTrue(all.stream().filter(RealInstallTest::npmLine).count() >= 10, "npm's own log is streamed");
            assertInstalled(s, admin, "claude", all);
        } finally {
            deleteTree(s.dataDir);
        }
        System.out.println("claude install through the API took " + Duration.ofNanos(System.nanoTime() - t0));
    }

    @Test
    void cancellingAnInstallMidwayLeavesNoNpmProcess() throws Exception {
        TestServer s = server();
        try (s) {
            String admin = s.registerAdmin();
            String cliBin = s.dataDir.resolve("cli-bin").toString();
            JsonNode job = expect(s.post("/api/providers/gemini/install", null, bearer(admin)), 202, null);
            String id = job.path("jobId").asText();
            try (SseClient sse = SseClient.open(s.http, s.uri("/api/providers/gemini/install/" + id + "/stream"),
                    bearer(admin))) {
                sse.until(RealInstallTest::npmLine);
            }
            assertTrue(!installProcesses(cliBin).isEmpty(), "npm runs while the job runs");
            JsonNode cancelled = expect(s.send("DELETE", "/api/providers/gemini/install/" + id, null, bearer(admin)),
                    200, null);
            assertEquals("cancelled", cancelled.path("status").asText(), cancelled.toString());
            assertEquals(List.of(), installProcesses(cliBin), "no process of the install is left");
            List<SseClient.Event> events = follow(s, admin, "gemini", id, null);
            assertEquals("done", events.getLast().name());
            assertEquals("cancelled", TestServer.JSON.readTree(events.getLast().data()).path("status").asText());
        } finally {
            deleteTree(s.dataDir);
        }
    }

    /** A log line npm printed (not one of the job's own notes). */
    static boolean npmLine(SseClient.Event e) {
        return e.name().equals("log") && (e.data().contains("\"stream\":\"stdout\"")
                || e.data().contains("\"stream\":\"stderr\""));
    }

    /**
     * Live processes working in the prefix or naming it (npm, its scripts and their children). npm rewrites its
     * process title to {@code npm install <pkg>}, dropping {@code --prefix}, so its working folder identifies it.
     */
    static List<String> installProcesses(String cliBin) {
        return ProcessHandle.allProcesses().filter(ProcessHandle::isAlive)
                .filter(p -> cwd(p).startsWith(cliBin)
                        || p.info().commandLine().map(c -> c.contains(cliBin)).orElse(false))
                .map(p -> p.pid() + " " + p.info().commandLine().orElse("?")).toList();
    }

    private static String cwd(ProcessHandle p) {
        try {
            return java.nio.file.Files.readSymbolicLink(Path.of("/proc/" + p.pid() + "/cwd")).toString();
        } catch (java.io.IOException | UnsupportedOperationException e) {
            return "";
        }
    }

    @Test
    void fiveClisInstallInOneGo() throws Exception {
        List<String> providers = List.of("claude", "codex", "gemini", "qwen", "opencode");
        long t0 = System.nanoTime();
        TestServer s = server();
        try (s) {
            String admin = s.registerAdmin();
            Map<String, String> jobs = new LinkedHashMap<>();
            for (String p : providers) {
                jobs.put(p, expect(s.post("/api/providers/" + p + "/install", null, bearer(admin)), 202, null)
                        .path("jobId").asText());
            }
            for (Map.Entry<String, String> j : jobs.entrySet()) {
                long t = System.nanoTime();
                List<SseClient.Event> events = follow(s, admin, j.getKey(), j.getValue(), null);
                assertInstalled(s, admin, j.getKey(), events);
                System.out.println(j.getKey() + " finished " + Duration.ofNanos(System.nanoTime() - t)
                        + " after the previous one");
            }
        } finally {
            deleteTree(s.dataDir);
        }
        System.out.println("five CLIs installed through the API in " + Duration.ofNanos(System.nanoTime() - t0));
    }
}
