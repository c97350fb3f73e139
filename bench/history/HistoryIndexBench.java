import java.io.IOException;
import java.io.RandomAccessFile;
import java.net.ServerSocket;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * The history index over a generated 2 GB HOME (org.agentworkspace.testkit.historygen), end to end through the
 * server jar (a separate JVM): (a) fresh data dir → time until GET /api/projects lists every generated session,
 * time until GET /api/history/index says ready, peak VmHWM and idle VmRSS of the server; (c) warm latencies;
 * (d) a line appended to a session → time until it shows in its messages and in search; (b) restart on the same
 * data dir → time until the project list is complete again. The appended line is cut off again at the end (the
 * cached HOME stays as generated).
 *
 * <p>What the start-up times measure: the server, not the sign-in. Before (a), the server is started once on the
 * fresh data dir against an empty history home, the account is registered (an Argon2id hash in a cold JVM, reported
 * separately as "(a0)") and an API key created, and that server is stopped: the data dir then holds the account,
 * the key, the store's schema, the extracted SQLite library and the server's copy of the OpenAPI document, but no
 * index of the 2 GB HOME. (a) and (b) are each timed from the start of the server process (with the JVM flags of
 * scripts/run.sh, see scripts/jvm-opts.sh) to the first GET /api/projects, sent with that key, that lists every
 * generated session; nothing signs in inside either window.
 *
 * Usage: java -cp TESTKIT_RUNNER_JAR bench/history/HistoryIndexBench.java SERVER_JAR HOME [requests=50]
 */
public class HistoryIndexBench {
    static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    static final ObjectMapper JSON = new ObjectMapper();
    static final Map<String, String> RESULTS = new LinkedHashMap<>();
    static String base;
    static String key;

    public static void main(String[] args) throws Exception {
        Path jar = Path.of(args[0]);
        Path home = Path.of(args[1]);
        int requests = args.length > 2 ? Integer.parseInt(args[2]) : 50;
        JsonNode manifest = JSON.readTree(home.resolve("aw-historygen-manifest.json").toFile());
        int sessions = manifest.get("sessions").asInt();
        Path data = Files.createTempDirectory("aw-history-bench");
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        base = "http://127.0.0.1:" + port;
        System.out.printf(Locale.ROOT, "HOME %s: %,d sessions %s, %,d lines, %,d bytes; data dir %s; server JVM "
                + "options: %s%n", home, sessions, manifest.get("sessionsByProvider"), manifest.get("lines").asLong(),
                manifest.get("bytes").asLong(), data, System.getenv().getOrDefault("AW_BENCH_JAVA_OPTS", "(none)"));

        // ---- (a0) the account and API key, made by a server on the same data dir over an empty history home
        Path emptyHome = Files.createDirectories(data.resolve("empty-home"));
        long tp = System.nanoTime();
        Process server = start(jar, emptyHome, data, port, "server-0.log");
        try {
            waitHealthy(tp);
            RESULTS.put("(a0) preparation server (empty history home): health up after start", ms(tp));
            long tr = System.nanoTime();
            signIn();
            RESULTS.put("(a0) register + create API key (Argon2id in a cold JVM; not in any timed window)", ms(tr));
        } finally {
            stop(server);
        }

        // ---- (a) fresh data dir: no index yet; timed from the process start to the first complete list
        long t0 = System.nanoTime();
        server = start(jar, home, data, port, "server-1.log");
        AtomicLong hwm = new AtomicLong();
        Thread sampler = sampler(server.pid(), hwm);
        Path appended = null;
        long appendedSize = -1;
        FileTime appendedMtime = null;
        try {
            waitHealthy(t0);
            RESULTS.put("(a) health up after start", ms(t0));
            long listed = waitFor("complete project list", t0, 600, 50, () -> complete(manifest));
            RESULTS.put("(a) first complete project list (" + sessions + " sessions in "
                    + manifest.get("projectsWithSessions").asInt() + " projects)", fmt(listed));
            RESULTS.put("(a) sessions counted through every project's sessions route", verifyAll(manifest));
            JsonNode ready = pollIndex(t0, 1800);
            RESULTS.put("(a) index ready (client)", ms(t0));
            RESULTS.put("(a) server CPU time (user + system) when ready", cpu(server.pid()));
            RESULTS.put("(a) server CPU time by thread when ready", threadCpu(server.pid()));
            RESULTS.put("(a) index status", ready.toString());
            RESULTS.put("(a) server: startedAt → listedAt / → readyAt", serverTimes(ready));
            RESULTS.put("(a) peak RSS while listing+indexing (VmHWM)", mb(hwm.get()));
            Thread.sleep(5_000);
            RESULTS.put("(a) RSS after 5 s idle (VmRSS)", mb(status(server.pid(), "VmRSS")));
            Thread.sleep(25_000);
            RESULTS.put("(a) RSS after 30 s idle (VmRSS)", mb(status(server.pid(), "VmRSS")));
            RESULTS.put("(a) data dir size after indexing", mb(du(data) / 1024));

            // ---- (c) warm latencies
            JsonNode projects = JSON.readTree(get("/api/projects"));
            JsonNode busiest = null;
            for (JsonNode p : projects) {
                if (busiest == null || count(p) > count(busiest)) {
                    busiest = p;
                }
            }
            JsonNode sample = manifest.path("samples").path("claude");
            String sampleProject = projectName(projects, sample.get("projectPath").asText());
            String sid = sample.get("id").asText();
            String msgPath = "/api/sessions/" + sid + "/messages?projectName=" + enc(sampleProject);
            int limit = 50;
            JsonNode first = JSON.readTree(get(msgPath + "&limit=" + limit + "&offset=0"));
            int total = first.get("total").asInt();
            RESULTS.put("big session", sid + " (" + mb(sample.get("bytes").asLong() / 1024) + ", " + total
                    + " messages; manifest " + sample.get("messages").asInt() + ")");
            String common = manifest.get("commonWords").get(0).asText();
            String absent = manifest.get("absentWord").asText();
            JsonNode hit = JSON.readTree(get("/api/search/conversations?q=" + common + "&limit=20"));
            JsonNode miss = JSON.readTree(get("/api/search/conversations?q=" + absent + "&limit=20"));
            RESULTS.put("search '" + common + "' total / absent '" + absent + "' total",
                    hit.get("total").asInt() + " / " + miss.get("total").asInt());
            latency("(c) GET /api/projects", requests, "/api/projects");
            latency("(c) GET /api/projects/{busiest}/sessions (" + count(busiest) + " sessions)", requests,
                    "/api/projects/" + enc(busiest.get("name").asText()) + "/sessions");
            latency("(c) messages newest page (limit 50, offset 0)", requests, msgPath + "&limit=50&offset=0");
            latency("(c) messages oldest page (limit 50, offset total-50)", requests,
                    msgPath + "&limit=50&offset=" + Math.max(0, total - limit));
            latency("(c) search common word '" + common + "' (limit 20)", requests,
                    "/api/search/conversations?q=" + common + "&limit=20");
            latency("(c) search absent word (limit 20)", requests,
                    "/api/search/conversations?q=" + absent + "&limit=20");

            // ---- (d) append one line to the big session
            appended = home.resolve(sample.get("file").asText());
            appendedSize = Files.size(appended);
            appendedMtime = Files.getLastModifiedTime(appended);
            String marker = "awbench" + UUID.randomUUID().toString().replaceAll("[^a-f]", "");
            String line = "{\"parentUuid\":null,\"isSidechain\":false,\"type\":\"user\",\"message\":{\"role\":\"user\","
                    + "\"content\":\"appended by the benchmark " + marker + "\"},\"uuid\":\"" + UUID.randomUUID()
                    + "\",\"timestamp\":\"" + Instant.now() + "\",\"userType\":\"external\",\"cwd\":\""
                    + sample.get("projectPath").asText() + "\",\"sessionId\":\"" + sid + "\",\"version\":\"2.1.330\"}\n";
            long ta = System.nanoTime();
            Files.writeString(appended, line, java.nio.file.StandardOpenOption.APPEND);
            String newest = msgPath + "&limit=5&offset=0";
            long inMessages = waitFor("appended line in messages", ta, 120, 20, () -> get(newest).contains(marker));
            RESULTS.put("(d) appended line visible in messages", fmt(inMessages));
            long inSearch = waitFor("appended line in search", ta, 120, 20,
                    () -> JSON.readTree(get("/api/search/conversations?q=" + marker)).get("total").asInt() > 0);
            RESULTS.put("(d) appended line visible in search", fmt(inSearch));

            // ---- (b) restart on the same data dir
            stop(server);
            sampler.interrupt();
            long t1 = System.nanoTime();
            server = start(jar, home, data, port, "server-2.log");
            waitHealthy(t1);
            RESULTS.put("(b) restart: health up after start", ms(t1));
            // the key made in (a0): no sign-in inside the timed window
            long relisted = waitFor("complete project list after restart", t1, 600, 10,
                    () -> complete(manifest));
            RESULTS.put("(b) restart: first complete project list", fmt(relisted));
            JsonNode ready2 = pollIndex(t1, 1800);
            RESULTS.put("(b) restart: index ready (client)", ms(t1));
            RESULTS.put("(b) restart: index status", ready2.toString());
            RESULTS.put("(b) server: startedAt → listedAt / → readyAt", serverTimes(ready2));
        } finally {
            stop(server);
            if (appended != null && appendedSize >= 0) {
                try (RandomAccessFile f = new RandomAccessFile(appended.toFile(), "rw")) {
                    f.setLength(appendedSize);
                }
                Files.setLastModifiedTime(appended, appendedMtime);
            }
            System.out.println();
            System.out.println("| measurement | result |");
            System.out.println("|---|---|");
            RESULTS.forEach((k, v) -> System.out.println("| " + k + " | " + v + " |"));
            System.out.println("server logs: " + data);
        }
    }

    interface Check {
        boolean ok() throws Exception;
    }

    static Process start(Path jar, Path home, Path data, int port, String log) throws IOException {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        List<String> cmd = new ArrayList<>(List.of(java));
        String opts = System.getenv("AW_BENCH_JAVA_OPTS");
        if (opts != null && !opts.isBlank()) {
            cmd.addAll(Arrays.asList(opts.trim().split("\\s+")));
        }
        cmd.addAll(List.of("-jar", jar.toString(), "--port", Integer.toString(port), "--data-dir",
                data.resolve("data").toString(), "--history-home", home.toString()));
        return new ProcessBuilder(cmd).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(data.resolve(log).toFile())).start();
    }

    static void stop(Process p) throws InterruptedException {
        if (p.isAlive()) {
            p.destroy();
            if (!p.waitFor(30, java.util.concurrent.TimeUnit.SECONDS)) {
                p.destroyForcibly().waitFor();
            }
        }
    }

    /** The process's user and system CPU time from /proc/PID/stat (clock ticks of 1/100 s). */
    static String cpu(long pid) {
        try {
            String stat = Files.readString(Path.of("/proc/" + pid + "/stat"));
            String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            long user = Long.parseLong(f[11]);
            long sys = Long.parseLong(f[12]);
            return String.format(Locale.ROOT, "%.1f s (user %.1f, system %.1f)", (user + sys) / 100.0, user / 100.0,
                    sys / 100.0);
        } catch (IOException | RuntimeException e) {
            return "unavailable (" + e + ")";
        }
    }

    /** The CPU time of the process's threads, grouped by name with digits dropped, largest first. */
    static String threadCpu(long pid) {
        Map<String, Long> ticks = new java.util.TreeMap<>();
        try (var tasks = Files.list(Path.of("/proc/" + pid + "/task"))) {
            for (Path t : tasks.toList()) {
                try {
                    String stat = Files.readString(t.resolve("stat"));
                    String name = stat.substring(stat.indexOf('(') + 1, stat.lastIndexOf(')'))
                            .replaceAll("[0-9]+", "N");
                    String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
                    ticks.merge(name, Long.parseLong(f[11]) + Long.parseLong(f[12]), Long::sum);
                } catch (IOException | RuntimeException e) {
                    // the thread ended meanwhile
                }
            }
        } catch (IOException e) {
            return "unavailable (" + e + ")";
        }
        return String.join(", ", ticks.entrySet().stream().filter(e -> e.getValue() >= 10)
                .sorted(Map.Entry.<String, Long>comparingByValue().reversed())
                .map(e -> String.format(Locale.ROOT, "%s %.1f s", e.getKey(), e.getValue() / 100.0)).toList());
    }

    static Thread sampler(long pid, AtomicLong hwm) {
        return Thread.ofPlatform().daemon().start(() -> {
            while (!Thread.currentThread().isInterrupted()) {
                hwm.accumulateAndGet(status(pid, "VmHWM"), Math::max);
                try {
                    Thread.sleep(250);
                } catch (InterruptedException e) {
                    return;
                }
            }
        });
    }

    static void signIn() throws Exception {
        String body = "{\"username\":\"bench\",\"password\":\"bench-password-1\"}";
        HttpResponse<String> r = send(HttpRequest.newBuilder(URI.create(base + "/api/auth/register"))
                .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(body)), null);
        if (r.statusCode() >= 300) {
            r = send(HttpRequest.newBuilder(URI.create(base + "/api/auth/login"))
                    .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(body)), null);
        }
        String token = JSON.readTree(r.body()).get("token").asText();
        HttpResponse<String> k = send(HttpRequest.newBuilder(URI.create(base + "/api/settings/api-keys"))
                .header("Content-Type", "application/json").header("Authorization", "Bearer " + token)
                .POST(HttpRequest.BodyPublishers.ofString("{\"name\":\"bench\",\"scopes\":[\"projects:read\"]}")), null);
        key = JSON.readTree(k.body()).get("api_key").asText();
    }

    static HttpResponse<String> send(HttpRequest.Builder b, String apiKey) throws Exception {
        if (apiKey != null) {
            b.header("X-API-Key", apiKey);
        }
        return HTTP.send(b.timeout(Duration.ofSeconds(120)).build(), HttpResponse.BodyHandlers.ofString());
    }

    static String get(String path) throws Exception {
        HttpResponse<String> r = send(HttpRequest.newBuilder(URI.create(base + path)).GET(), key);
        if (r.statusCode() != 200) {
            throw new IllegalStateException("GET " + path + " -> " + r.statusCode() + " " + r.body());
        }
        return r.body();
    }

    static void waitHealthy(long t0) throws Exception {
        waitFor("health", t0, 120, 10, () -> {
            try {
                return send(HttpRequest.newBuilder(URI.create(base + "/health")).GET(), null).statusCode() == 200;
            } catch (IOException e) {
                return false;
            }
        });
    }

    /** Polls until the check holds; returns the nanos since t0 at that moment. */
    static long waitFor(String what, long t0, int timeoutSeconds, Check check) throws Exception {
        return waitFor(what, t0, timeoutSeconds, 100, check);
    }

    /**
     * Polls {@code check} every {@code pollMillis} until it holds; the time since {@code t0}. The poll interval is the
     * measurement's resolution (a result is late by up to one interval): 10 ms where a check is cheap or the answer
     * comes at once, 50 ms for the fresh project list (each poll serializes and parses the partial list, CPU taken
     * from the server being measured), 100 ms for the index status during indexing.
     */
    static long waitFor(String what, long t0, int timeoutSeconds, int pollMillis, Check check) throws Exception {
        long deadline = t0 + timeoutSeconds * 1_000_000_000L;
        while (true) {
            try {
                if (check.ok()) {
                    return System.nanoTime() - t0;
                }
            } catch (IllegalStateException | IOException e) {
                // a route not ready yet (503), or a connection the previous server left in the pool, counts as not yet
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("timed out waiting for " + what + " after " + timeoutSeconds + " s");
            }
            Thread.sleep(pollMillis);
        }
    }

    static JsonNode pollIndex(long t0, int timeoutSeconds) throws Exception {
        JsonNode[] last = new JsonNode[1];
        waitFor("index ready", t0, timeoutSeconds, () -> {
            last[0] = JSON.readTree(get("/api/history/index"));
            return "ready".equals(last[0].path("state").asText()) && !last[0].path("readyAt").isNull()
                    && !last[0].path("readyAt").isMissingNode();
        });
        return last[0];
    }

    /**
     * The project list is complete: every project the generator used is listed with sessions, and the sessions add
     * up to the generated number (each project's {@code sessionCount} when the list carries it, since the list
     * shows only the newest few sessions inline; otherwise the server's own {@code listedAt}).
     */
    static boolean complete(JsonNode manifest) throws Exception {
        JsonNode list = JSON.readTree(get("/api/projects"));
        int withSessions = 0;
        long counted = 0;
        boolean hasCount = true;
        for (JsonNode p : list) {
            if (p.path("sessions").size() > 0) {
                withSessions++;
            }
            hasCount &= p.has("sessionCount");
            counted += p.has("sessionCount") ? p.get("sessionCount").asLong() : p.path("sessions").size();
        }
        if (withSessions < manifest.get("projectsWithSessions").asInt()) {
            return false;
        }
        if (hasCount) {
            return counted >= manifest.get("sessions").asLong();
        }
        JsonNode status = JSON.readTree(get("/api/history/index"));
        return status.hasNonNull("listedAt");
    }

    /** Sums every project's GET /api/projects/{name}/sessions (checks the list really holds all sessions). */
    static String verifyAll(JsonNode manifest) throws Exception {
        long total = 0;
        long t = System.nanoTime();
        JsonNode list = JSON.readTree(get("/api/projects"));
        for (JsonNode p : list) {
            total += JSON.readTree(get("/api/projects/" + enc(p.get("name").asText()) + "/sessions")).size();
        }
        return total + " of " + manifest.get("sessions").asLong() + " (" + list.size() + " projects, "
                + fmt(System.nanoTime() - t) + " for all)";
    }

    /** A project's session count: {@code sessionCount} when the list carries it, else the inline sessions. */
    static int count(JsonNode project) {
        return project.has("sessionCount") ? project.get("sessionCount").asInt() : project.path("sessions").size();
    }

    static String serverTimes(JsonNode status) {
        Instant started = Instant.parse(status.get("startedAt").asText());
        return fmt(Duration.between(started, Instant.parse(status.get("listedAt").asText())).toNanos()) + " / "
                + fmt(Duration.between(started, Instant.parse(status.get("readyAt").asText())).toNanos());
    }

    static String projectName(JsonNode projects, String path) {
        for (JsonNode p : projects) {
            if (path.equals(p.path("fullPath").asText()) || path.equals(p.path("path").asText())) {
                return p.get("name").asText();
            }
        }
        throw new IllegalStateException("no project for " + path);
    }

    /** Requests before each latency is measured: "warm" means the JIT has compiled the route's code by then. */
    static final int WARM_UP = 200;

    static void latency(String name, int n, String path) throws Exception {
        for (int i = 0; i < WARM_UP; i++) {
            get(path);
        }
        long[] t = new long[n];
        long bytes = 0;
        for (int i = 0; i < n; i++) {
            long s = System.nanoTime();
            bytes = get(path).length();
            t[i] = System.nanoTime() - s;
        }
        Arrays.sort(t);
        RESULTS.put(name, String.format(Locale.ROOT, "p50 %.1f ms, p99 %.1f ms (%d requests, %,d bytes)",
                t[n / 2] / 1e6, t[Math.min(n - 1, (int) Math.ceil(n * 0.99) - 1)] / 1e6, n, bytes));
    }

    static long status(long pid, String field) {
        try {
            for (String l : Files.readAllLines(Path.of("/proc/" + pid + "/status"))) {
                if (l.startsWith(field + ":")) {
                    return Long.parseLong(l.replaceAll("[^0-9]", ""));
                }
            }
        } catch (IOException | NumberFormatException e) {
            return 0;
        }
        return 0;
    }

    static long du(Path dir) throws IOException {
        try (var s = Files.walk(dir)) {
            return s.filter(Files::isRegularFile).mapToLong(p -> p.toFile().length()).sum();
        }
    }

    static String enc(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8).replace("+", "%20");
    }

    static String ms(long t0) {
        return fmt(System.nanoTime() - t0);
    }

    static String fmt(long nanos) {
        return String.format(Locale.ROOT, "%.2f s", nanos / 1e9);
    }

    static String mb(long kb) {
        return String.format(Locale.ROOT, "%,d MB", kb / 1024);
    }
}
