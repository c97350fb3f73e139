package org.agentworkspace.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.WebSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import com.fasterxml.jackson.databind.JsonNode;
import org.agentworkspace.testkit.fakecli.FakeClis;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Where work runs (docs/scale-out.md "Where work runs"), through real server processes of the packaged jar on one
 * throwaway PostgreSQL database. Node A's project roots and node B's are separate folders; a project's folder lies
 * under B's only. Through A: the quick-start registers it (on B), a run of it executes on B ({@code runs.node_id}
 * is B) and its SSE stream from A follows it to the end, the file and git routes act on B's folder; {@code /shell}
 * on A answers {@code PROJECT_ON_OTHER_NODE} naming B's address. A runner-only node C refuses the web UI and its
 * public routes (a forged hop header too) but executes a run A forwards to it. With B stopped, A answers 503
 * {@code PROJECT_UNAVAILABLE} for B's project.
 */
class NodeRoutingIT {
    private static final Pattern LISTENING = Pattern.compile("listening on http://127\\.0\\.0\\.1:(\\d+)");
    private static final String PG_ADMIN_URL = System.getProperty("aw.test.pg.url",
            "jdbc:postgresql://127.0.0.1:5432/postgres?user=postgres");

    @TempDir
    Path tmp;

    final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
    final List<Node> nodes = new ArrayList<>();
    String dbName;
    String dbUrl;

    /** A server process, its port, its node id and what it printed. */
    static final class Node {
        final Process process;
        final StringBuilder log;
        final int port;
        final String id;

        Node(Process process, StringBuilder log, int port, String id) {
            this.process = process;
            this.log = log;
            this.port = port;
            this.id = id;
        }

        String output() {
            synchronized (log) {
                return log.toString();
            }
        }

        String url() {
            return "http://127.0.0.1:" + port;
        }
    }

    @AfterEach
    void stop() {
        for (Node n : nodes) {
            n.process.toHandle().destroy();
        }
        for (Node n : nodes) {
            try {
                if (!n.process.waitFor(30, TimeUnit.SECONDS)) {
                    n.process.destroyForcibly();
                }
            } catch (InterruptedException e) {
                n.process.destroyForcibly();
            }
        }
        if (dbName != null) {
            try (Connection c = DriverManager.getConnection(PG_ADMIN_URL); Statement s = c.createStatement()) {
                s.execute("DROP DATABASE IF EXISTS " + dbName + " WITH (FORCE)");
            } catch (SQLException e) {
                System.err.println("could not drop test database " + dbName + ": " + e.getMessage());
            }
        }
    }

    void createDatabase() {
        dbName = "aw_test_" + UUID.randomUUID().toString().replace("-", "").substring(0, 16).toLowerCase(Locale.ROOT);
        try (Connection c = DriverManager.getConnection(PG_ADMIN_URL); Statement s = c.createStatement()) {
            s.execute("CREATE DATABASE " + dbName);
        } catch (SQLException e) {
            dbName = null;
            Assumptions.abort("PostgreSQL not reachable at " + PG_ADMIN_URL + " (" + e.getMessage() + ")");
        }
        dbUrl = PG_ADMIN_URL.replaceFirst("/[^/?]+(\\?|$)", "/" + dbName + "$1");
    }

    /** Starts a node on {@code data} whose project roots are {@code roots}, with {@code more} flags. */
    Node start(Path data, Path roots, Path bin, String... more) throws Exception {
        Files.createDirectories(data);
        Path jar = Path.of(System.getProperty("aw.server.jar"));
        Path libs = Path.of(System.getProperty("aw.server.libs"));
        assertTrue(Files.isRegularFile(jar), jar + " is built");
        String javaBin = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        List<String> cmd = new ArrayList<>(List.of(javaBin, "--enable-native-access=org.xerial.sqlitejdbc,com.sun.jna",
                "-p", jar + java.io.File.pathSeparator + libs,
                "-m", "org.agentworkspace.server/org.agentworkspace.server.Main",
                "--port", "0", "--data-dir", data.toString(), "--db-url", dbUrl,
                "--project-roots", roots.toString(), "--history-index", "false",
                "--cli-path", bin.toString(),
                // codex streams 30 events 100 ms apart
                "--provider-env", "codex:AW_FAKE_EVENTS=30,codex:AW_FAKE_DELAY_MS=100"));
        cmd.addAll(List.of(more));
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
        pb.environment().put("HOME", Files.createDirectories(data.resolveSibling(data.getFileName() + "-home"))
                .toString());
        pb.environment().put("AW_UPNP_DISCOVERY", "127.0.0.1:9");
        Process p = pb.start();
        CompletableFuture<Integer> port = new CompletableFuture<>();
        StringBuilder log = new StringBuilder();
        Thread.ofPlatform().daemon().name("node-output").start(() -> {
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
            } catch (IOException e) {
                port.completeExceptionally(e);
            }
            synchronized (log) {
                port.completeExceptionally(new AssertionError("the server exited before listening: " + log));
            }
        });
        int listening;
        try {
            listening = port.get(120, TimeUnit.SECONDS);
        } catch (java.util.concurrent.TimeoutException e) {
            p.destroyForcibly();
            synchronized (log) {
                throw new AssertionError("node on " + data + " not listening after 120 s: " + log, e);
            }
        }
        Node n = new Node(p, log, listening, Files.readString(data.resolve("node-id")).strip());
        nodes.add(n);
        return n;
    }

    HttpResponse<String> call(Node n, String method, String path, String json, String... headers) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(n.url() + path)).timeout(Duration.ofSeconds(60));
        for (int i = 0; i < headers.length; i += 2) {
            b.header(headers[i], headers[i + 1]);
        }
        if (json == null) {
            b.method(method, HttpRequest.BodyPublishers.noBody());
        } else {
            b.header("Content-Type", "application/json").method(method, HttpRequest.BodyPublishers.ofString(json));
        }
        return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    static JsonNode ok(HttpResponse<String> r, int status) throws IOException {
        assertEquals(status, r.statusCode(), r.uri() + ": " + r.body());
        return TestServer.JSON.readTree(r.body());
    }

    static String code(HttpResponse<String> r) throws IOException {
        return TestServer.JSON.readTree(r.body()).path("error").path("code").asText();
    }

    /** The node that executes (executed) run {@code id}, from the store. */
    String nodeOfRun(String id) throws SQLException {
        try (Connection c = DriverManager.getConnection(dbUrl);
             PreparedStatement s = c.prepareStatement("SELECT node_id FROM runs WHERE id = ?")) {
            s.setString(1, id);
            try (ResultSet rs = s.executeQuery()) {
                assertTrue(rs.next(), "run " + id + " is stored");
                return rs.getString(1);
            }
        }
    }

    /** The roots and address node {@code id} recorded (V022). */
    String[] recorded(String id) throws SQLException {
        try (Connection c = DriverManager.getConnection(dbUrl);
             PreparedStatement s = c.prepareStatement("SELECT advertise_url, roots, runner_only FROM nodes WHERE id = ?")) {
            s.setString(1, id);
            try (ResultSet rs = s.executeQuery()) {
                assertTrue(rs.next(), "node " + id + " is stored");
                return new String[] {rs.getString(1), rs.getString(2), String.valueOf(rs.getInt(3))};
            }
        }
    }

    static void git(Path dir, String... args) throws Exception {
        List<String> cmd = new ArrayList<>(List.of("git", "-c", "user.name=t", "-c", "user.email=t@example.com"));
        cmd.addAll(List.of(args));
        Process p = new ProcessBuilder(cmd).directory(dir.toFile()).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, p.waitFor(), String.join(" ", cmd) + ": " + out);
    }

    /** A git repository with one commit at {@code dir}. */
    static Path repo(Path dir) throws Exception {
        Files.createDirectories(dir);
        git(dir, "init", "-q", "-b", "main");
        Files.writeString(dir.resolve("README.md"), "hello\n");
        git(dir, "add", "README.md");
        git(dir, "commit", "-q", "-m", "first");
        return dir;
    }

    JsonNode awaitDone(Node n, String token, String id) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
        JsonNode r;
        do {
            Thread.sleep(200);
            r = ok(call(n, "GET", "/api/automation/runs/" + id, null, "Authorization", "Bearer " + token), 200);
        } while (List.of("queued", "running").contains(r.path("status").asText()) && System.nanoTime() < deadline);
        return r;
    }

    @Test
    void aProjectsRequestsGoToTheNodeThatHasItsFolder() throws Exception {
        createDatabase();
        Path bin = FakeClis.install(tmp.resolve("bin"), List.of("codex"));
        Path rootsA = Files.createDirectories(tmp.resolve("roots-a"));
        Path rootsB = Files.createDirectories(tmp.resolve("roots-b"));
        Path rootsC = Files.createDirectories(tmp.resolve("roots-c"));
        Path project = repo(rootsB.resolve("proj"));
        Path onC = repo(rootsC.resolve("work"));
        Node a = start(tmp.resolve("node-a"), rootsA, bin);
        Node b = start(tmp.resolve("node-b"), rootsB, bin);
        Node c = start(tmp.resolve("node-c"), rootsC, bin, "--runner-only");

        // each node recorded its roots and the address it is reached at (derived from the bind address and port)
        assertEquals(b.url(), recorded(b.id)[0]);
        assertTrue(recorded(b.id)[1].contains(rootsB.toRealPath().toString()), recorded(b.id)[1]);
        assertEquals("1", recorded(c.id)[2], "C is a runner only");

        String token = ok(call(a, "POST", "/api/auth/register",
                "{\"username\":\"admin\",\"password\":\"node-routing-password\"}"), 200).path("token").asText();
        String auth = "Bearer " + token;

        // quick-start through A of a folder under B's roots: registered by B
        HttpResponse<String> qs = call(a, "POST", "/api/projects/quick-start", "{\"path\":\"" + project + "\"}",
                "Authorization", auth);
        JsonNode registered = ok(qs, 200);
        assertEquals(b.id, qs.headers().firstValue("X-AW-Served-By").orElse(""), "served by B");
        String name = registered.path("name").asText();
        assertFalse(name.isEmpty(), registered.toString());

        // a run of it started through A executes on B; its SSE stream followed on A runs to the end
        String runId = ok(call(a, "POST", "/api/automation/run", "{\"prompt\":\"Say hello\",\"agentType\":\"codex\","
                + "\"projectId\":\"" + name + "\"}", "Authorization", auth), 202).path("id").asText();
        assertEquals(b.id, nodeOfRun(runId), "the run executes on B");
        List<String> events = new ArrayList<>();
        try (SseClient sse = SseClient.open(http, URI.create(a.url() + "/api/automation/runs/" + runId + "/events"),
                "Authorization", auth)) {
            assertEquals(200, sse.status);
            for (SseClient.Event e = sse.next(); e != null; e = sse.next()) {
                events.add(e.name());
            }
        }
        assertTrue(events.stream().filter("event"::equals).count() >= 30, events.toString());
        assertEquals("done", events.getLast(), events.toString());
        assertEquals("completed", awaitDone(a, token, runId).path("status").asText());

        // the file routes through A act on B's folder
        ok(call(a, "PUT", "/api/projects/" + name + "/file", "{\"path\":\"notes.txt\",\"content\":\"from A\"}",
                "Authorization", auth), 200);
        assertEquals("from A", Files.readString(project.resolve("notes.txt")), "written in B's folder");
        JsonNode read = ok(call(a, "GET", "/api/projects/" + name + "/file?path=README.md", null,
                "Authorization", auth), 200);
        assertEquals("hello\n", read.path("content").asText());
        JsonNode listed = ok(call(a, "GET", "/api/projects/" + name + "/files", null, "Authorization", auth), 200);
        assertTrue(listed.toString().contains("notes.txt"), listed.toString());

        // the git routes through A act on B's repository
        JsonNode status = ok(call(a, "GET", "/api/git/status?project=" + name, null, "Authorization", auth), 200);
        assertTrue(status.toString().contains("notes.txt"), status.toString());
        ok(call(a, "POST", "/api/git/stage", "{\"project\":\"" + name + "\"}", "Authorization", auth), 200);
        Process diff = new ProcessBuilder("git", "diff", "--cached", "--name-only").directory(project.toFile())
                .redirectErrorStream(true).start();
        assertEquals("notes.txt", new String(diff.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip(),
                "staged in B's repository");

        // a terminal for it on A: the answer names B
        JsonSocketClient shell = new JsonSocketClient();
        shell.ws = http.newWebSocketBuilder().header("Authorization", auth).connectTimeout(Duration.ofSeconds(10))
                .buildAsync(URI.create("ws://127.0.0.1:" + a.port + "/shell"), shell).get(20, TimeUnit.SECONDS);
        shell.send(Map.of("type", "init", "projectName", name, "cols", 80, "rows", 24));
        JsonNode refusal = shell.messages.poll(20, TimeUnit.SECONDS);
        assertNotNull(refusal, "an answer to init");
        assertEquals("PROJECT_ON_OTHER_NODE", refusal.path("error").path("code").asText(), refusal.toString());
        assertEquals(b.url(), refusal.path("error").path("nodeUrl").asText(), refusal.toString());
        assertTrue(refusal.path("error").path("message").asText().contains(b.url()), refusal.toString());
        shell.ws.abort();
        // a chat turn for it on A: the same answer, in the /ws error frame
        JsonSocketClient chat = new JsonSocketClient();
        chat.ws = http.newWebSocketBuilder().header("Authorization", auth).connectTimeout(Duration.ofSeconds(10))
                .buildAsync(URI.create("ws://127.0.0.1:" + a.port + "/ws"), chat).get(20, TimeUnit.SECONDS);
        chat.send(Map.of("type", "turn", "message", "Say hello", "provider", "codex", "projectName", name,
                "clientRequestId", "t1"));
        JsonNode turn = chat.messages.poll(20, TimeUnit.SECONDS);
        while (turn != null && !turn.path("type").asText().equals("error")) {
            turn = chat.messages.poll(20, TimeUnit.SECONDS);
        }
        assertNotNull(turn, "an error frame for the turn");
        assertEquals("PROJECT_ON_OTHER_NODE", turn.path("error").path("code").asText(), turn.toString());
        assertEquals(b.url(), turn.path("error").path("nodeUrl").asText(), turn.toString());
        chat.ws.abort();

        // a request that already carries a hop header is never forwarded again: A serves it and has no such folder
        HttpResponse<String> hopped = call(a, "GET", "/api/projects/" + name + "/files", null, "Authorization", auth,
                "X-AW-Forwarded-By", "node_x 0 AAAA");
        assertEquals(403, hopped.statusCode(), hopped.body());
        assertEquals("PATH_NOT_ALLOWED", code(hopped));

        // one-time tasks of B's project created through A, due at once: B fires them, not A (which would first, since
        // a task created through A wakes A's scheduler at once) nor C
        List<String> taskIds = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            taskIds.add(ok(call(a, "POST", "/api/automation/tasks", "{\"name\":\"t" + i + "\",\"prompt\":\"Say hello\","
                    + "\"agentType\":\"codex\",\"projectId\":\"" + name + "\",\"schedule\":{\"kind\":\"once\","
                    + "\"at\":\"" + java.time.Instant.now() + "\"}}", "Authorization", auth), 201).path("id").asText());
        }
        for (String taskId : taskIds) {
            long until = System.nanoTime() + Duration.ofSeconds(90).toNanos();
            JsonNode runs = ok(call(a, "GET", "/api/automation/runs?taskId=" + taskId, null, "Authorization", auth), 200);
            while (runs.isEmpty() && System.nanoTime() < until) {
                Thread.sleep(250);
                runs = ok(call(a, "GET", "/api/automation/runs?taskId=" + taskId, null, "Authorization", auth), 200);
            }
            assertEquals(1, runs.size(), "task " + taskId + " fired once: " + runs);
            assertEquals(b.id, nodeOfRun(runs.get(0).path("id").asText()), "task " + taskId + " fired on B");
        }

        // the runner-only node C: no web UI, no public route but /health, even with a forged hop header
        HttpResponse<String> page = call(c, "GET", "/", null);
        assertEquals(403, page.statusCode(), page.body());
        assertEquals("RUNNER_ONLY", code(page));
        HttpResponse<String> user = call(c, "GET", "/api/auth/user", null, "Authorization", auth);
        assertEquals(403, user.statusCode(), user.body());
        assertEquals("RUNNER_ONLY", code(user));
        HttpResponse<String> forged = call(c, "GET", "/api/auth/user", null, "Authorization", auth,
                "X-AW-Forwarded-By", a.id + " " + (System.currentTimeMillis() / 1000) + " AAAA");
        assertEquals("RUNNER_ONLY", code(forged), forged.body());
        assertEquals(200, call(c, "GET", "/health", null).statusCode());
        // … but it registers and runs what A forwards to it
        HttpResponse<String> qsC = call(a, "POST", "/api/projects/quick-start", "{\"path\":\"" + onC + "\"}",
                "Authorization", auth);
        String nameC = ok(qsC, 200).path("name").asText();
        assertEquals(c.id, qsC.headers().firstValue("X-AW-Served-By").orElse(""));
        String runC = ok(call(a, "POST", "/api/automation/run", "{\"prompt\":\"Say hello\",\"agentType\":\"codex\","
                + "\"projectId\":\"" + nameC + "\"}", "Authorization", auth), 202).path("id").asText();
        assertEquals(c.id, nodeOfRun(runC), "the run executes on the runner-only node");
        assertEquals("completed", awaitDone(a, token, runC).path("status").asText());

        // B stops: its project has no live node; A says so instead of failing on a folder it does not have
        b.process.toHandle().destroy();
        assertTrue(b.process.waitFor(60, TimeUnit.SECONDS), "B stopped");
        HttpResponse<String> noNode = call(a, "POST", "/api/automation/run", "{\"prompt\":\"Say hello\","
                + "\"agentType\":\"codex\",\"projectId\":\"" + name + "\"}", "Authorization", auth);
        assertEquals(503, noNode.statusCode(), noNode.body());
        assertEquals("PROJECT_UNAVAILABLE", code(noNode));
        assertTrue(noNode.body().contains(b.id), noNode.body());
        HttpResponse<String> noFiles = call(a, "GET", "/api/projects/" + name + "/files", null, "Authorization", auth);
        assertEquals(503, noFiles.statusCode(), noFiles.body());
        assertEquals("PROJECT_UNAVAILABLE", code(noFiles));
    }
}
