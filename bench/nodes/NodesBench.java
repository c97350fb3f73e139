import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * One node against three nodes on one PostgreSQL store (docs/scale-out.md, issue #23 point 8). For each topology
 * (1 node, then 3 nodes) the harness creates a throwaway database, starts the nodes (processes of the packaged server
 * jar on the module path, each with its own data folder, all with the same --db-url; the CLI is
 * bench/nodes/bin/claude) and measures:
 * <ol>
 * <li><b>runs started per second</b>: C concurrent clients, client i talking to node i mod K, each in a loop
 * POST /api/automation/run (a run printing 3 lines at once), then following the run's SSE stream on the same node
 * until {@code done}; R runs per client after a warm-up of W each (default 2). Reported: runs per second (started and completed
 * within the wall time), the POST's latency (request to 202) and the run's latency (request to the {@code done}
 * frame), p50/p95/p99; every run must end {@code completed}.</li>
 * <li><b>event latency</b>: one run on node A printing L timestamped lines at P lines/s, followed over SSE on every
 * node at once from the start; per frame, the client's receipt time minus the emitter's stamp taken just before it
 * wrote the line; p50/p95/p99/max per follower node (A itself, and the other nodes, which learn of A's commits
 * through LISTEN/NOTIFY). Every follower must get every line once and in order.</li>
 * </ol>
 * The load average (/proc/loadavg) is printed at each phase: the build machine is shared.
 *
 * Usage (see run.sh): java -cp 'workspace-server/target/libs/*' bench/nodes/NodesBench.java JAR LIBS
 *     [topologies=1,3] [clients=8] [runsPerClient=25] [lines=1000] [rate=50] [warmup=2]
 * The admin URL of PostgreSQL comes from AW_BENCH_PG_URL (default jdbc:postgresql://127.0.0.1:5432/postgres?user=postgres).
 */
public class NodesBench {
    static final ObjectMapper JSON = new ObjectMapper();
    static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
    static final Pattern LISTENING = Pattern.compile("listening on http://127\\.0\\.0\\.1:(\\d+)");
    static final Pattern STAMP = Pattern.compile("n=(\\d+) t=(\\d+)");
    static final String PG_ADMIN = System.getenv().getOrDefault("AW_BENCH_PG_URL",
            "jdbc:postgresql://127.0.0.1:5432/postgres?user=postgres");

    record Node(String name, Process process, int port) {
        String base() {
            return "http://127.0.0.1:" + port;
        }
    }

    public static void main(String[] args) throws Exception {
        Path jar = Path.of(args[0]).toAbsolutePath();
        Path libs = Path.of(args[1]).toAbsolutePath();
        int[] topologies = Arrays.stream((args.length > 2 ? args[2] : "1,3").split(",")).mapToInt(Integer::parseInt)
                .toArray();
        int clients = args.length > 3 ? Integer.parseInt(args[3]) : 8;
        int perClient = args.length > 4 ? Integer.parseInt(args[4]) : 25;
        int lines = args.length > 5 ? Integer.parseInt(args[5]) : 1000;
        int rate = args.length > 6 ? Integer.parseInt(args[6]) : 50;
        int warmup = args.length > 7 ? Integer.parseInt(args[7]) : 2;
        Path emitter = Path.of("bench/nodes/bin/claude").toAbsolutePath();
        System.out.printf("machine: %d CPUs, load average at start %s%n", Runtime.getRuntime().availableProcessors(),
                load());
        for (int k : topologies) {
            topology(jar, libs, emitter, k, clients, perClient, lines, rate, warmup);
        }
    }

    static void topology(Path jar, Path libs, Path emitter, int k, int clients, int perClient, int lines, int rate,
                         int warmup) throws Exception {
        String db = "aw_bench_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12).toLowerCase(Locale.ROOT);
        try (Connection c = DriverManager.getConnection(PG_ADMIN); Statement s = c.createStatement()) {
            s.execute("CREATE DATABASE " + db);
        }
        String dbUrl = PG_ADMIN.replaceFirst("/[^/?]+(\\?|$)", "/" + db + "$1");
        Path tmp = Files.createTempDirectory("aw-nodes-bench");
        Path project = Files.createDirectories(tmp.resolve("project"));
        List<Node> nodes = new ArrayList<>();
        try {
            long t0 = System.nanoTime();
            List<CompletableFuture<Node>> starting = new ArrayList<>();
            for (int i = 0; i < k; i++) {
                String name = "node-" + (char) ('a' + i);
                starting.add(CompletableFuture.supplyAsync(() -> start(jar, libs, emitter, tmp, name, dbUrl)));
            }
            for (CompletableFuture<Node> f : starting) {
                nodes.add(f.join());
            }
            System.out.printf("%n=== %d node%s on one PostgreSQL database (%s): listening after %d ms%n", k,
                    k == 1 ? "" : "s", db, (System.nanoTime() - t0) / 1_000_000);
            String token = json(send(nodes.getFirst(), "POST", "/api/auth/register", null,
                    "{\"username\":\"bench\",\"password\":\"bench-password-1\"}", 200)).path("token").asText();

            // (i) runs started per second
            String load0 = load();
            runLoop(nodes, token, project, clients, warmup);
            long t = System.nanoTime();
            Stats s = runLoop(nodes, token, project, clients, perClient);
            double secs = (System.nanoTime() - t) / 1e9;
            System.out.printf("runs: %d clients x %d runs spread over %d node(s): %d runs in %.1f s = %.1f runs/s; "
                            + "failed %d; load average before %s, after %s%n", clients, perClient, k, s.runs(),
                    secs, s.runs() / secs, s.failures.size(), load0, load());
            System.out.printf("  POST -> 202 (ms):        p50 %s  p95 %s  p99 %s  max %s%n", s.posts.summary());
            System.out.printf("  POST -> done frame (ms): p50 %s  p95 %s  p99 %s  max %s%n", s.done.summary());
            if (!s.failures.isEmpty()) {
                System.out.println("  failures: " + s.failures.subList(0, Math.min(5, s.failures.size())));
            }

            // (ii) event latency: a run on node A, followed on every node
            load0 = load();
            Node a = nodes.getFirst();
            String id = json(send(a, "POST", "/api/automation/run", token, "{\"prompt\":\"events=" + lines + " rate="
                    + rate + " wait=1500\",\"agentType\":\"claude\",\"projectPath\":\"" + project + "\"}", 202)).path("id")
                    .asText();
            List<CompletableFuture<Lat>> followers = new ArrayList<>();
            for (Node n : nodes) {
                followers.add(CompletableFuture.supplyAsync(() -> latency(n, token, id, lines)));
            }
            for (int i = 0; i < nodes.size(); i++) {
                Lat l = followers.get(i).get(10, TimeUnit.MINUTES);
                System.out.printf("latency, %d lines at %d/s on node-a, SSE on %s%s: p50 %.1f  p95 %.1f  p99 %.1f  "
                                + "max %.1f ms; %s%n", lines, rate, nodes.get(i).name(), i == 0 ? " (same node)"
                                : " (another node)", l.pct(50), l.pct(95), l.pct(99), l.max(),
                        l.problems.isEmpty() ? "every line once, in order" : "PROBLEMS " + l.problems);
            }
            System.out.println("  load average before " + load0 + ", after " + load());
        } finally {
            for (Node n : nodes) {
                n.process().destroy();
            }
            for (Node n : nodes) {
                if (!n.process().waitFor(30, TimeUnit.SECONDS)) {
                    n.process().destroyForcibly();
                }
            }
            try (Connection c = DriverManager.getConnection(PG_ADMIN); Statement s = c.createStatement()) {
                s.execute("DROP DATABASE IF EXISTS " + db + " WITH (FORCE)");
            }
            try (java.util.stream.Stream<Path> all = Files.walk(tmp)) {
                for (Path p : all.sorted(java.util.Comparator.reverseOrder()).toList()) {
                    Files.deleteIfExists(p);
                }
            }
        }
    }

    /** Percentiles of millisecond samples. */
    static final class Samples {
        final ConcurrentLinkedQueue<Double> values = new ConcurrentLinkedQueue<>();

        Object[] summary() {
            double[] v = values.stream().mapToDouble(Double::doubleValue).sorted().toArray();
            return new Object[] {fmt(pct(v, 50)), fmt(pct(v, 95)), fmt(pct(v, 99)), fmt(v.length == 0 ? 0
                    : v[v.length - 1])};
        }
    }

    record Stats(Samples posts, Samples done, List<String> failures) {
        int runs() {
            return posts.values.size();
        }
    }

    static Stats runLoop(List<Node> nodes, String token, Path project, int clients, int perClient) throws Exception {
        Stats s = new Stats(new Samples(), new Samples(), new CopyOnWriteArrayList<>());
        List<Thread> threads = new ArrayList<>();
        for (int c = 0; c < clients; c++) {
            Node n = nodes.get(c % nodes.size());
            threads.add(Thread.ofVirtual().start(() -> {
                for (int i = 0; i < perClient; i++) {
                    try {
                        long t = System.nanoTime();
                        HttpResponse<String> r = request(n, "POST", "/api/automation/run", token,
                                "{\"prompt\":\"events=3\",\"agentType\":\"claude\",\"projectPath\":\"" + project
                                        + "\"}");
                        s.posts.values.add((System.nanoTime() - t) / 1e6);
                        if (r.statusCode() != 202) {
                            s.failures.add(r.statusCode() + " " + r.body());
                            continue;
                        }
                        String id = json(r.body()).path("id").asText();
                        String last = null;
                        try (InputStream in = stream(n, token, id, null)) {
                            BufferedReader br = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8));
                            String event = null;
                            for (String line = br.readLine(); line != null; line = br.readLine()) {
                                if (line.startsWith("event:")) {
                                    event = line.substring(6).strip();
                                } else if (line.startsWith("data:") && "done".equals(event)) {
                                    last = line.substring(5);
                                    break;
                                }
                            }
                        }
                        s.done.values.add((System.nanoTime() - t) / 1e6);
                        if (last == null || !json(last).path("status").asText().equals("completed")) {
                            s.failures.add(id + ": " + last);
                        }
                    } catch (Exception e) {
                        s.failures.add(e.toString());
                    }
                }
            }));
        }
        for (Thread t : threads) {
            t.join();
        }
        return s;
    }

    record Lat(double[] sorted, List<String> problems) {
        double pct(int p) {
            return NodesBench.pct(sorted, p);
        }

        double max() {
            return sorted.length == 0 ? 0 : sorted[sorted.length - 1];
        }
    }

    /** Follows run {@code id} on {@code n} from its start: latency per text delta, in ms. */
    static Lat latency(Node n, String token, String id, int lines) {
        List<String> problems = new ArrayList<>();
        double[] lat = new double[lines];
        int got = 0;
        long expected = 0;
        try (InputStream in = stream(n, token, id, null)) {
            BufferedReader br = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8));
            String event = null;
            for (String line = br.readLine(); line != null; line = br.readLine()) {
                if (line.startsWith("event:")) {
                    event = line.substring(6).strip();
                } else if (line.startsWith("data:") && "event".equals(event)) {
                    Instant now = Instant.now();
                    long nowMicros = now.getEpochSecond() * 1_000_000L + now.getNano() / 1000;
                    Matcher m = STAMP.matcher(line);
                    if (m.find()) {
                        long i = Long.parseLong(m.group(1));
                        if (i != expected) {
                            problems.add("expected n=" + expected + ", got " + i);
                        }
                        expected = i + 1;
                        if (got < lat.length) {
                            lat[got++] = (nowMicros - Long.parseLong(m.group(2))) / 1000.0;
                        }
                    }
                } else if (line.startsWith("data:") && "done".equals(event)) {
                    break;
                }
            }
        } catch (Exception e) {
            problems.add(e.toString());
        }
        if (got != lines) {
            problems.add(got + " of " + lines + " lines");
        }
        double[] v = Arrays.copyOf(lat, got);
        Arrays.sort(v);
        return new Lat(v, problems);
    }

    static Node start(Path jar, Path libs, Path emitter, Path tmp, String name, String dbUrl) {
        try {
            Path data = Files.createDirectories(tmp.resolve(name));
            String javaBin = Path.of(System.getProperty("java.home"), "bin", "java").toString();
            List<String> cmd = List.of(javaBin, "--enable-native-access=org.xerial.sqlitejdbc,com.sun.jna",
                    "-p", jar + java.io.File.pathSeparator + libs,
                    "-m", "org.agentworkspace.server/org.agentworkspace.server.Main",
                    "--port", "0", "--data-dir", data.toString(), "--db-url", dbUrl,
                    "--project-roots", tmp.toString(), "--history-index", "false",
                    "--cli-path", "claude=" + emitter,
                    // one account holds every run and stream of the benchmark: no cap of the server is measured
                    "--max-concurrent-runs", "64", "--max-runs-per-account", "64",
                    "--max-queued-runs-per-account", "1000",
                    "--max-connections-per-address", "10000", "--max-connections", "10000",
                    "--max-streams-per-account", "10000");
            ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true)
                    .redirectOutput(tmp.resolve(name + ".log").toFile());
            pb.environment().put("HOME", Files.createDirectories(tmp.resolve(name + "-home")).toString());
            pb.environment().put("AW_UPNP_DISCOVERY", "127.0.0.1:9");
            Process p = pb.start();
            long deadline = System.nanoTime() + Duration.ofSeconds(180).toNanos();
            while (System.nanoTime() < deadline) {
                Matcher m = LISTENING.matcher(Files.readString(tmp.resolve(name + ".log")));
                if (m.find()) {
                    return new Node(name, p, Integer.parseInt(m.group(1)));
                }
                if (!p.isAlive()) {
                    throw new IllegalStateException(name + " exited: " + Files.readString(tmp.resolve(name + ".log")));
                }
                Thread.sleep(100);
            }
            p.destroyForcibly();
            throw new IllegalStateException(name + " not listening after 180 s");
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        } catch (InterruptedException e) {
            throw new IllegalStateException(e);
        }
    }

    static InputStream stream(Node n, String token, String id, String lastEventId) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(n.base() + "/api/automation/runs/" + id + "/events"))
                .header("Accept", "text/event-stream").header("Authorization", "Bearer " + token).GET();
        if (lastEventId != null) {
            b.header("Last-Event-ID", lastEventId);
        }
        HttpResponse<InputStream> r = HTTP.send(b.build(), HttpResponse.BodyHandlers.ofInputStream());
        if (r.statusCode() != 200) {
            String body = new String(r.body().readAllBytes(), StandardCharsets.UTF_8);
            throw new IllegalStateException("stream of " + id + " on " + n.name() + ": " + r.statusCode() + " " + body);
        }
        return r.body();
    }

    static HttpResponse<String> request(Node n, String method, String path, String token, String body)
            throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(n.base() + path)).timeout(Duration.ofSeconds(60));
        if (token != null) {
            b.header("Authorization", "Bearer " + token);
        }
        b.header("Content-Type", "application/json").method(method, body == null
                ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
        return HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    static String send(Node n, String method, String path, String token, String body, int status) throws Exception {
        HttpResponse<String> r = request(n, method, path, token, body);
        if (r.statusCode() != status) {
            throw new IllegalStateException(method + " " + path + " -> " + r.statusCode() + " " + r.body());
        }
        return r.body();
    }

    static JsonNode json(String s) throws IOException {
        return JSON.readTree(s);
    }

    static String load() {
        try {
            String[] f = Files.readString(Path.of("/proc/loadavg")).split(" ");
            return f[0] + " " + f[1] + " " + f[2];
        } catch (IOException e) {
            return "?";
        }
    }

    static double pct(double[] sorted, int p) {
        if (sorted.length == 0) {
            return 0;
        }
        return sorted[Math.min(sorted.length - 1, (int) Math.ceil(p / 100.0 * sorted.length) - 1)];
    }

    static String fmt(double v) {
        return String.format(Locale.ROOT, "%.1f", v);
    }
}
