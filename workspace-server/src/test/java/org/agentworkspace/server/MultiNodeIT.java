package org.agentworkspace.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HexFormat;
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
 * Several nodes on one PostgreSQL store (docs/scale-out.md), as an operator runs them: real server processes of the
 * packaged jar on the module path, each with its own data folder, all on one throwaway database. Node A starts from a
 * data folder that already has its secrets (a single-node installation moving to several nodes); node B from an
 * empty one. Checked: a session token, an API key and a stream ticket from A work on B; a provider key saved through
 * A reaches a run on B; a long run on A survives B's start and B's sweeps past the lease; after kill -9 of A its
 * run is marked failed {@code node_lost}, seen from B, within the lease plus a heartbeat; when A comes back it kills
 * the run's leftover process.
 */
class MultiNodeIT {
    private static final Pattern LISTENING = Pattern.compile("listening on http://127\\.0\\.0\\.1:(\\d+)");
    private static final String PG_ADMIN_URL = System.getProperty("aw.test.pg.url",
            "jdbc:postgresql://127.0.0.1:5432/postgres?user=postgres");
    private static final String PROVIDER_KEY = "sk-ant-multinode-0123456789abcdef";

    @TempDir
    Path tmp;

    final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
    final List<Node> nodes = new ArrayList<>();
    String dbName;
    String dbUrl;

    /** A server process and what it printed. */
    static final class Node {
        final Process process;
        final StringBuilder log = new StringBuilder();
        final int port;

        Node(Process process, int port) {
            this.process = process;
            this.port = port;
        }

        String output() {
            synchronized (log) {
                return log.toString();
            }
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

    /** claude prints the digest of the key it got; qwen thinks for ten minutes (a long run); codex streams 40 events. */
    static final String PROVIDER_ENV = "claude:AW_FAKE_ECHO_DIGEST=ANTHROPIC_API_KEY,qwen:AW_FAKE_SILENCE_MS=600000,"
            + "codex:AW_FAKE_EVENTS=40,codex:AW_FAKE_DELAY_MS=150";

    Node start(Path data, Path bin) throws Exception {
        return start(data, bin, PROVIDER_ENV);
    }

    Node start(Path data, Path bin, String providerEnv) throws Exception {
        Path jar = Path.of(System.getProperty("aw.server.jar"));
        Path libs = Path.of(System.getProperty("aw.server.libs"));
        assertTrue(Files.isRegularFile(jar), jar + " is built");
        String javaBin = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        List<String> cmd = List.of(javaBin, "--enable-native-access=org.xerial.sqlitejdbc,com.sun.jna",
                "-p", jar + java.io.File.pathSeparator + libs,
                "-m", "org.agentworkspace.server/org.agentworkspace.server.Main",
                "--port", "0", "--data-dir", data.toString(), "--db-url", dbUrl,
                "--project-roots", tmp.toString(), "--history-index", "false",
                "--cli-path", bin.toString(), "--provider-env", providerEnv);
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
        pb.environment().put("HOME", Files.createDirectories(data.resolveSibling(data.getFileName() + "-home"))
                .toString());
        pb.environment().put("AW_UPNP_DISCOVERY", "127.0.0.1:9");
        Process p = pb.start();
        CompletableFuture<Integer> port = new CompletableFuture<>();
        Node[] made = new Node[1];
        StringBuilder early = new StringBuilder();
        // a platform thread: the blocking pipe read never waits for a carrier of the virtual-thread scheduler
        Thread.ofPlatform().daemon().name("node-output").start(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(),
                    StandardCharsets.UTF_8))) {
                String line;
                while ((line = r.readLine()) != null) {
                    StringBuilder target = made[0] != null ? made[0].log : early;
                    synchronized (target) {
                        target.append(line).append('\n');
                    }
                    Matcher m = LISTENING.matcher(line);
                    if (m.find()) {
                        port.complete(Integer.parseInt(m.group(1)));
                    }
                }
            } catch (IOException e) {
                port.completeExceptionally(e);
            }
            port.completeExceptionally(new AssertionError("the server exited before listening: " + early));
        });
        // start-up on a loaded machine: the JVM, migrations and the engine's parts
        int listening;
        long t0 = System.nanoTime();
        try {
            listening = port.get(120, TimeUnit.SECONDS);
            System.out.println("MultiNodeIT: node on " + data.getFileName() + " listening after "
                    + Duration.ofNanos(System.nanoTime() - t0).toMillis() + " ms");
        } catch (java.util.concurrent.TimeoutException e) {
            // what the node was doing: its threads and its output
            Process jcmd = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "jcmd").toString(),
                    String.valueOf(p.pid()), "Thread.print").redirectErrorStream(true).start();
            String threads = new String(jcmd.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            p.destroyForcibly();
            String out;
            synchronized (early) {
                out = early.toString();
            }
            throw new AssertionError("node on " + data + " not listening after 120 s; output:\n" + out
                    + "\nthreads:\n" + threads, e);
        }
        Node n = new Node(p, listening);
        synchronized (early) {
            n.log.append(early);
            made[0] = n;
        }
        nodes.add(n);
        return n;
    }

    HttpResponse<String> call(Node n, String method, String path, String json, String... headers) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + n.port + path))
                .timeout(Duration.ofSeconds(60));
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

    JsonNode ok(HttpResponse<String> r, int status) throws IOException {
        assertEquals(status, r.statusCode(), r.body());
        return TestServer.JSON.readTree(r.body());
    }

    static String bearer(String token) {
        return "Bearer " + token;
    }

    JsonNode run(Node n, String token, String id) throws Exception {
        return ok(call(n, "GET", "/api/automation/runs/" + id, null, "Authorization", bearer(token)), 200);
    }

    /** Polls the run on {@code n} until its status is one of {@code statuses}. */
    JsonNode awaitStatus(Node n, String token, String id, Duration limit, String... statuses) throws Exception {
        long deadline = System.nanoTime() + limit.toNanos();
        JsonNode r = run(n, token, id);
        while (!List.of(statuses).contains(r.path("status").asText()) && System.nanoTime() < deadline) {
            Thread.sleep(200);
            r = run(n, token, id);
        }
        assertTrue(List.of(statuses).contains(r.path("status").asText()), "status of " + id + ": " + r);
        return r;
    }

    /** Processes on this host whose environment says {@code AW_RUN_ID=runId}. */
    static List<Long> processesOf(String runId) {
        List<Long> out = new ArrayList<>();
        byte[] marker = ("AW_RUN_ID=" + runId + "\0").getBytes(StandardCharsets.UTF_8);
        try (DirectoryStream<Path> dirs = Files.newDirectoryStream(Path.of("/proc"))) {
            for (Path d : dirs) {
                String name = d.getFileName().toString();
                if (!name.chars().allMatch(Character::isDigit)) {
                    continue;
                }
                try {
                    String stat = Files.readString(d.resolve("stat"));
                    char state = stat.charAt(stat.lastIndexOf(')') + 2);
                    byte[] env = Files.readAllBytes(d.resolve("environ"));
                    if (state != 'Z' && indexOf(env, marker) >= 0) {
                        out.add(Long.parseLong(name));
                    }
                } catch (IOException | RuntimeException e) {
                    // gone meanwhile, or not ours to read
                }
            }
        } catch (IOException e) {
            throw new AssertionError(e);
        }
        return out;
    }

    private static int indexOf(byte[] hay, byte[] needle) {
        outer:
        for (int i = 0; i + needle.length <= hay.length; i++) {
            if (i > 0 && hay[i - 1] != 0) {
                continue;
            }
            for (int j = 0; j < needle.length; j++) {
                if (hay[i + j] != needle[j]) {
                    continue outer;
                }
            }
            return i;
        }
        return -1;
    }

    static String sha(String s) throws Exception {
        return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8)));
    }

    /** The value of the store's shared key {@code name} (base64), read from the database. */
    String storedKey(String name) throws SQLException {
        try (Connection c = DriverManager.getConnection(dbUrl); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT value FROM shared_keys WHERE name = '" + name + "'")) {
            assertTrue(rs.next(), "shared key " + name + " is stored");
            return rs.getString(1);
        }
    }

    @Test
    void twoNodesShareIdentityAndOwnershipAndADeadNodesRunIsSettled() throws Exception {
        createDatabase();
        Path bin = FakeClis.install(tmp.resolve("bin"), List.of("claude", "qwen", "codex"));
        Path project = Files.createDirectories(tmp.resolve("project"));
        // node A's data folder is an existing installation's: its own signing secret and sealing key
        Path dataA = Files.createDirectories(tmp.resolve("node-a"));
        byte[] jwtA = new byte[32];
        byte[] sealA = new byte[32];
        new java.security.SecureRandom().nextBytes(jwtA);
        new java.security.SecureRandom().nextBytes(sealA);
        Files.write(dataA.resolve("jwt-secret"), jwtA);
        Files.write(dataA.resolve("secret.key"), sealA);
        Node a = start(dataA, bin);
        // the first node seeded the store from its files: what it signed and sealed before stays valid
        assertEquals("b64:" + Base64.getEncoder().encodeToString(jwtA), storedKey("jwt-secret"));
        assertEquals("b64:" + Base64.getEncoder().encodeToString(sealA), storedKey("secret.key"));

        JsonNode reg = ok(call(a, "POST", "/api/auth/register",
                "{\"username\":\"admin\",\"password\":\"multi-node-password\"}"), 200);
        String token = reg.path("token").asText();

        // a long run on A, running before B starts
        String longRun = ok(call(a, "POST", "/api/automation/run", "{\"prompt\":\"think long\",\"agentType\":\"qwen\","
                + "\"projectPath\":\"" + project + "\"}", "Authorization", bearer(token)), 202).path("id").asText();
        awaitStatus(a, token, longRun, Duration.ofSeconds(60), "running");
        long waitUntil = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (processesOf(longRun).isEmpty() && System.nanoTime() < waitUntil) {
            Thread.sleep(100);
        }
        assertFalse(processesOf(longRun).isEmpty(), "the long run's process is alive");
        long liveSince = System.nanoTime();

        Node b = start(Files.createDirectories(tmp.resolve("node-b")), bin);
        assertFalse(Files.readString(tmp.resolve("node-a").resolve("node-id")).strip()
                .equals(Files.readString(tmp.resolve("node-b").resolve("node-id")).strip()), "two node ids");

        // identity: A's session token, API key and stream ticket work on B
        JsonNode me = ok(call(b, "GET", "/api/auth/user", null, "Authorization", bearer(token)), 200);
        assertTrue(me.toString().contains("\"admin\""), me.toString());
        String apiKey = ok(call(a, "POST", "/api/settings/api-keys", "{\"name\":\"ci\",\"scopes\":[\"tasks:read\"]}",
                "Authorization", bearer(token)), 201).path("api_key").asText();
        assertTrue(apiKey.length() > 10, "a key: " + apiKey);
        ok(call(b, "GET", "/api/auth/user", null, "X-API-Key", apiKey), 200);
        String ticket = ok(call(a, "POST", "/api/auth/stream-ticket", null, "Authorization", bearer(token)), 200)
                .path("ticket").asText();
        HttpResponse<InputStream> stream = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + b.port
                + "/api/events?streamTicket=" + ticket)).timeout(Duration.ofSeconds(60)).build(),
                HttpResponse.BodyHandlers.ofInputStream());
        stream.body().close();
        assertEquals(200, stream.statusCode(), "A's stream ticket opens a stream on B");
        // and B's token works on A (one secret, not two)
        String tokenB = ok(call(b, "POST", "/api/auth/login",
                "{\"username\":\"admin\",\"password\":\"multi-node-password\"}"), 200).path("token").asText();
        ok(call(a, "GET", "/api/auth/user", null, "Authorization", bearer(tokenB)), 200);

        // a sealed provider key saved through A is opened by a run on B
        ok(call(a, "POST", "/api/providers/claude/auth/api-key", "{\"apiKey\":\"" + PROVIDER_KEY + "\","
                + "\"shared\":true}", "Authorization", bearer(token)), 200);
        String keyRun = ok(call(b, "POST", "/api/automation/run", "{\"prompt\":\"Say hello\",\"agentType\":\"claude\","
                + "\"projectPath\":\"" + project + "\"}", "Authorization", bearer(token)), 202).path("id").asText();
        JsonNode done = awaitStatus(b, token, keyRun, Duration.ofSeconds(90), "completed", "failed", "cancelled",
                "timed_out");
        assertTrue(done.toString().contains(sha(PROVIDER_KEY)), "the run on B got the key saved on A: " + done);

        // live events across nodes: a run on A followed on A, then resumed on B with Last-Event-ID; B's frames come
        // at A's commits (LISTEN/NOTIFY), not at B's poll interval (500 ms); no frame lost or repeated
        String streamed = ok(call(a, "POST", "/api/automation/run", "{\"prompt\":\"Say hello\",\"agentType\":"
                + "\"codex\",\"projectPath\":\"" + project + "\"}", "Authorization", bearer(token)), 202).path("id")
                .asText();
        String eventsPath = "/api/automation/runs/" + streamed + "/events";
        List<String> onA = new ArrayList<>();
        String lastId;
        try (SseClient sa = SseClient.open(http, URI.create("http://127.0.0.1:" + a.port + eventsPath),
                "Authorization", bearer(token))) {
            assertEquals(200, sa.status);
            int events = 0;
            SseClient.Event e = null;
            while (events < 5 && (e = sa.next()) != null) {
                onA.add(e.id() + " " + e.name());
                events += e.name().equals("event") ? 1 : 0;
            }
            assertEquals(5, events, "five events on A first: " + onA);
            lastId = e.id();
        }
        List<String> onB = new ArrayList<>();
        List<Long> latencies = new ArrayList<>();
        try (SseClient sb = SseClient.open(http, URI.create("http://127.0.0.1:" + b.port + eventsPath),
                "Authorization", bearer(token), "Last-Event-ID", lastId)) {
            assertEquals(200, sb.status);
            long opened = System.currentTimeMillis();
            for (SseClient.Event e = sb.next(); e != null; e = sb.next()) {
                long now = System.currentTimeMillis();
                onB.add(e.id() + " " + e.name());
                JsonNode data = TestServer.JSON.readTree(e.data());
                if (data.hasNonNull("at") && e.name().equals("event")) {
                    long at = java.time.Instant.parse(data.path("at").asText()).toEpochMilli();
                    if (at > opened) {
                        latencies.add(now - at);
                    }
                }
            }
        }
        List<String> full = new ArrayList<>();
        try (SseClient whole = SseClient.open(http, URI.create("http://127.0.0.1:" + b.port + eventsPath),
                "Authorization", bearer(token))) {
            for (SseClient.Event e = whole.next(); e != null; e = whole.next()) {
                full.add(e.id() + " " + e.name());
            }
        }
        List<String> joined = new ArrayList<>(onA);
        joined.addAll(onB);
        assertEquals(full, joined, "A's part and B's resumed part are the whole stream, once");
        assertTrue(full.getLast().endsWith(" done"), full.toString());
        List<Long> sorted = latencies.stream().sorted().toList();
        assertTrue(sorted.size() >= 10, "live frames on B: " + sorted);
        long median = sorted.get(sorted.size() / 2);
        System.out.println("MultiNodeIT: SSE on node B of a run on node A, from the line to the client: median "
                + median + " ms, max " + sorted.getLast() + " ms over " + sorted.size() + " frames");
        assertTrue(median < 100, "median " + median + " ms: " + sorted);

        // ownership: A's run outlives B's start and B's sweeps for longer than the lease (30 s)
        while (System.nanoTime() - liveSince < Duration.ofSeconds(40).toNanos()) {
            assertEquals("running", run(b, token, longRun).path("status").asText(), "seen from B");
            Thread.sleep(2000);
        }
        assertEquals("running", run(a, token, longRun).path("status").asText());
        List<Long> pids = processesOf(longRun);
        assertFalse(pids.isEmpty(), "still alive on A");
        assertFalse(b.output().contains("marked failed"), b.output());

        // kill -9 of A: its run is settled by B within the lease plus a heartbeat (generous bound for a loaded host)
        a.process.toHandle().destroyForcibly();
        assertTrue(a.process.waitFor(30, TimeUnit.SECONDS));
        long killed = System.nanoTime();
        JsonNode lost = awaitStatus(b, token, longRun, Duration.ofSeconds(120), "failed");
        Duration took = Duration.ofNanos(System.nanoTime() - killed);
        assertTrue(lost.toString().contains("node_lost"), lost.toString());
        assertTrue(took.compareTo(Duration.ofSeconds(20)) >= 0, "not before the lease ran out: " + took);
        System.out.println("MultiNodeIT: the dead node's run was marked failed (node_lost) " + took.toMillis()
                + " ms after kill -9");
        // its process was in its own session and outlived A: still there until A comes back
        assertFalse(processesOf(longRun).isEmpty(), "the orphan outlives its node");

        Node a2 = start(dataA, bin);
        long reapDeadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (!processesOf(longRun).isEmpty() && System.nanoTime() < reapDeadline) {
            Thread.sleep(100);
        }
        assertEquals(List.of(), processesOf(longRun), "A reaped its orphan when it came back: " + a2.output());
        assertEquals("failed", run(a2, token, longRun).path("status").asText());
        assertTrue(run(a2, token, longRun).toString().contains("node_lost"));
    }

    /** A {@code /ws} socket of {@code token}'s user on node {@code n}. */
    JsonSocketClient socket(Node n, String token) throws Exception {
        JsonSocketClient c = new JsonSocketClient();
        c.ws = http.newWebSocketBuilder().connectTimeout(Duration.ofSeconds(10)).header("Authorization",
                bearer(token)).buildAsync(URI.create("ws://127.0.0.1:" + n.port + "/ws"), c).get(30, TimeUnit.SECONDS);
        return c;
    }

    /** The next frame of {@code c} that is not a {@code pong}; fails after 60 s. */
    static JsonNode frame(JsonSocketClient c) throws InterruptedException {
        JsonNode m = c.messages.poll(60, TimeUnit.SECONDS);
        assertTrue(m != null, "a frame within 60 s");
        return m;
    }

    /** Frames of {@code c} up to and with the first of {@code type}; an error frame fails. */
    static List<JsonNode> until(JsonSocketClient c, String type) throws InterruptedException {
        List<JsonNode> out = new ArrayList<>();
        while (true) {
            JsonNode m = frame(c);
            out.add(m);
            assertFalse(m.path("type").asText().equals("error"), m.toString());
            if (m.path("type").asText().equals(type)) {
                return out;
            }
        }
    }

    /**
     * Any node serves any run (docs/scale-out.md "Control from any node"): a run on A cancelled through B's HTTP
     * route; a {@code /ws} turn started on A followed through B's socket (every entry once, in order), its permission
     * request shown on B and answered through B, the answer reaching the CLI on A; a second turn on A aborted through
     * B's socket. B carries each out through a stored request A takes at B's NOTIFY.
     */
    @Test
    void aRunOnACanBeCancelledAndItsTurnAnsweredAndAbortedThroughB() throws Exception {
        createDatabase();
        Path bin = FakeClis.install(tmp.resolve("bin"), List.of("claude", "qwen"));
        Path project = Files.createDirectories(tmp.resolve("project"));
        // claude asks for permission to use Write (in permission mode default, on stdin) and waits for the answer
        String env = "claude:AW_FAKE_ASK_PERMISSION=Write,qwen:AW_FAKE_SILENCE_MS=600000";
        Node a = start(Files.createDirectories(tmp.resolve("node-a")), bin, env);
        Node b = start(Files.createDirectories(tmp.resolve("node-b")), bin, env);
        String token = ok(call(a, "POST", "/api/auth/register",
                "{\"username\":\"admin\",\"password\":\"multi-node-password\"}"), 200).path("token").asText();

        // cancel through B of a run on A: answered as a local cancel, the run's process on A gone
        String longRun = ok(call(a, "POST", "/api/automation/run", "{\"prompt\":\"think long\",\"agentType\":\"qwen\","
                + "\"projectPath\":\"" + project + "\"}", "Authorization", bearer(token)), 202).path("id").asText();
        awaitStatus(a, token, longRun, Duration.ofSeconds(60), "running");
        long t0 = System.nanoTime();
        JsonNode cancelled = ok(call(b, "POST", "/api/automation/runs/" + longRun + "/cancel", null,
                "Authorization", bearer(token)), 200);
        long took = Duration.ofNanos(System.nanoTime() - t0).toMillis();
        System.out.println("MultiNodeIT: cancel through B of a run on A answered (run cancelled) after " + took
                + " ms");
        assertEquals("cancelled", cancelled.path("status").asText(), cancelled.toString());
        assertTrue(took < 10_000, took + " ms");
        long reapDeadline = System.nanoTime() + Duration.ofSeconds(15).toNanos();
        while (!processesOf(longRun).isEmpty() && System.nanoTime() < reapDeadline) {
            Thread.sleep(100);
        }
        assertEquals(List.of(), processesOf(longRun), "A killed the run's process");
        assertEquals("cancelled", run(a, token, longRun).path("status").asText());

        // a /ws turn on A, waiting for a permission answer
        String projectName = ok(call(a, "POST", "/api/projects/quick-start", "{\"path\":\"" + project + "\"}",
                "Authorization", bearer(token)), 200).path("name").asText();
        JsonSocketClient onA = socket(a, token);
        onA.send(Map.of("type", "turn", "provider", "claude", "permissionMode", "default", "projectName", projectName,
                "message", "write a file"));
        String runId = until(onA, "subscribed").getLast().path("runId").asText();
        List<JsonNode> framesA = until(onA, "permission-request");
        JsonNode askedOnA = framesA.getLast();
        long seenOnA = askedOnA.path("seq").asLong();

        // the client's connection drops; it reconnects, landing on B, and subscribes after the last seq it saw:
        // B sends the still-open request again (read from the log), then the rest of the run live
        onA.ws.abort();
        JsonSocketClient onB = socket(b, token);
        onB.send(Map.of("type", "subscribe", "runId", runId, "afterSeq", seenOnA));
        List<JsonNode> framesB = new ArrayList<>(until(onB, "permission-request"));
        assertEquals("subscribed", framesB.getFirst().path("type").asText(), framesB.toString());
        assertEquals(seenOnA, framesB.getFirst().path("afterSeq").asLong());
        JsonNode askedOnB = framesB.getLast();
        assertEquals(askedOnA.path("requestId").asText(), askedOnB.path("requestId").asText(), askedOnB.toString());
        assertEquals(seenOnA, askedOnB.path("seq").asLong());
        assertEquals("Write", askedOnB.path("toolName").asText());

        long t1 = System.nanoTime();
        onB.send(Map.of("type", "permission-response", "requestId", askedOnB.path("requestId").asText(),
                "decision", "allow"));
        framesB.addAll(until(onB, "complete"));
        long answered = Duration.ofNanos(System.nanoTime() - t1).toMillis();
        System.out.println("MultiNodeIT: a permission answered through B's /ws, the turn on A complete on B after "
                + answered + " ms");
        JsonNode complete = framesB.getLast();
        assertEquals("completed", complete.path("status").asText(), complete.toString());
        String framesText = framesB.toString();
        assertTrue(framesText.contains("\"decision\":\"allow\""), "the answer is logged: " + framesText);
        String cliSaw = framesB.stream().map(JsonNode::toString).filter(f -> f.contains("aw_fake_permission"))
                .findFirst().orElse("");
        assertTrue(cliSaw.contains("allow") && !cliSaw.contains("none"), "the CLI on A got the answer: "
                + framesText);
        // A's part and B's part together: seq 1 … N once each, in order; equal to a full replay
        List<Long> seqs = new ArrayList<>();
        for (JsonNode f : framesA) {
            if (f.path("type").asText().equals("event")) {
                seqs.add(f.path("seq").asLong());
            }
        }
        for (JsonNode f : framesB) {
            if (f.path("type").asText().equals("event") || f.path("type").asText().equals("complete")) {
                seqs.add(f.path("seq").asLong());
            }
        }
        for (int i = 0; i < seqs.size(); i++) {
            assertEquals(i + 1, seqs.get(i), "seq " + (i + 1) + " once, in order: " + seqs);
        }
        JsonSocketClient replay = socket(a, token);
        replay.send(Map.of("type", "subscribe", "runId", runId, "afterSeq", 0));
        List<JsonNode> whole = until(replay, "complete");
        assertEquals(seqs.getLast(), whole.getLast().path("seq").asLong(), "one log: " + whole);
        assertEquals(seqs.size(), whole.stream().filter(f -> f.path("type").asText().equals("event")
                || f.path("type").asText().equals("complete")).count());
        replay.ws.abort();
        onA = socket(a, token);

        // a second turn on A, aborted through B while its permission request is open
        onA.send(Map.of("type", "turn", "provider", "claude", "permissionMode", "default", "projectName", projectName,
                "message", "write another file"));
        String second = until(onA, "subscribed").getLast().path("runId").asText();
        until(onA, "permission-request");
        onB.send(Map.of("type", "subscribe", "runId", second, "afterSeq", 0));
        until(onB, "permission-request");
        onB.send(Map.of("type", "abort", "runId", second));
        List<JsonNode> aborted = until(onB, "complete");
        assertEquals("cancelled", aborted.getLast().path("status").asText(), aborted.getLast().toString());
        assertTrue(aborted.toString().contains("\"reason\":\"cancelled\""), "the open request was denied first: "
                + aborted);
        onA.ws.abort();
        onB.ws.abort();
    }
}
