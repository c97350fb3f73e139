import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Agent runs over SSE, end to end through the server jar: starts the server (a separate JVM) with the timestamping
 * emitter bench/agent/bin/claude as the claude CLI, starts RUNS runs of EVENTS events each through
 * POST /api/automation/run, follows every run over its SSE stream (GET /api/automation/runs/{id}/events), and
 * checks that every event arrives once and in order. Latency per event = receipt time at the client minus the
 * emitter's wall-clock stamp taken just before it wrote the line: everything the server adds (pipe, parser, log
 * commit, cursor wake-up, SSE write, HTTP) plus the client's own parsing. Memory: the server's VmRSS from
 * /proc/PID/status sampled every 250 ms, and its heap from `jcmd PID GC.heap_info` (no debug route).
 *
 * Usage: java bench/agent/AgentSseBench.java JAR [runs=20] [events=10000] [rate=0]
 */
public class AgentSseBench {
    static final Pattern STAMP = Pattern.compile("\\\\?\"text\\\\?\":\\\\?\"n=(\\d+) t=(\\d+)");
    static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    public static void main(String[] args) throws Exception {
        Path jar = Path.of(args[0]);
        int runs = args.length > 1 ? Integer.parseInt(args[1]) : 20;
        int events = args.length > 2 ? Integer.parseInt(args[2]) : 10_000;
        int rate = args.length > 3 ? Integer.parseInt(args[3]) : 0;
        Path emitter = Path.of("bench/agent/bin/claude").toAbsolutePath();
        Path tmp = Files.createTempDirectory("aw-agent-bench");
        Path project = Files.createDirectories(tmp.resolve("project"));
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        ProcessBuilder pb = new ProcessBuilder(java, "-jar", jar.toString(), "--port", Integer.toString(port),
                "--data-dir", tmp.resolve("data").toString(), "--cli-path", "claude=" + emitter,
                "--max-concurrent-runs", Integer.toString(runs),
                "--max-runs-per-account", Integer.toString(runs),
                "--max-queued-runs-per-account", Integer.toString(runs),
                // one client address and one account hold every stream of the benchmark
                "--max-connections-per-address", "10000", "--max-connections", "10000",
                "--max-streams-per-account", "10000",
                "--provider-env", "claude:AW_BENCH_EVENTS=" + events + ",claude:AW_BENCH_RATE=" + rate)
                .redirectErrorStream(true).redirectOutput(tmp.resolve("server.log").toFile());
        Process server = pb.start();
        String base = "http://127.0.0.1:" + port;
        try {
            waitHealthy(base);
            String token = field(post(base + "/api/auth/register", null,
                    "{\"username\":\"bench\",\"password\":\"bench-password-1\"}"), "token");
            String key = field(post(base + "/api/settings/api-keys", "Bearer " + token,
                    "{\"name\":\"bench\",\"scopes\":[\"tasks:read\",\"tasks:write\"]}"), "api_key");
            long pid = server.pid();
            AtomicLong maxRss = new AtomicLong();
            Thread sampler = Thread.ofPlatform().daemon().start(() -> {
                while (!Thread.currentThread().isInterrupted()) {
                    maxRss.accumulateAndGet(rssKb(pid), Math::max);
                    try {
                        Thread.sleep(250);
                    } catch (InterruptedException e) {
                        return;
                    }
                }
            });
            long rssBefore = rssKb(pid);
            String heapBefore = heap(pid);
            ConcurrentLinkedQueue<long[]> latencies = new ConcurrentLinkedQueue<>();
            List<String> problems = new java.util.concurrent.CopyOnWriteArrayList<>();
            List<Thread> followers = new ArrayList<>();
            long t0 = System.nanoTime();
            for (int i = 0; i < runs; i++) {
                String run = post(base + "/api/automation/run", "X-API-Key:" + key, "{\"prompt\":\"bench " + i
                        + "\",\"agentType\":\"claude\",\"projectPath\":\"" + project + "\"}");
                String id = field(run, "id");
                followers.add(Thread.ofVirtual().start(() -> follow(base, key, id, events, latencies, problems)));
            }
            String heapMid = null;
            Thread.sleep(1500);
            heapMid = heap(pid);
            for (Thread t : followers) {
                t.join();
            }
            double seconds = (System.nanoTime() - t0) / 1e9;
            String heapAfter = heap(pid);
            sampler.interrupt();
            long[] all = latencies.stream().flatMapToLong(Arrays::stream).sorted().toArray();
            System.out.printf("runs %d x events %d (rate %s), delivered %d events in %.1f s (%.0f events/s)%n",
                    runs, events, rate == 0 ? "unpaced" : rate + "/s", all.length, seconds, all.length / seconds);
            System.out.println("problems: " + (problems.isEmpty() ? "none (every event once, in order)" : problems));
            System.out.printf("latency stdout line -> SSE client (ms): p50 %.2f  p90 %.2f  p99 %.2f  max %.2f%n",
                    pct(all, 50) / 1000.0, pct(all, 90) / 1000.0, pct(all, 99) / 1000.0,
                    all.length == 0 ? 0 : all[all.length - 1] / 1000.0);
            System.out.printf("server RSS: before %d MB, peak %d MB%n", rssBefore / 1024, maxRss.get() / 1024);
            System.out.println("server heap before: " + heapBefore);
            System.out.println("server heap during: " + heapMid);
            System.out.println("server heap after:  " + heapAfter);
        } finally {
            server.destroy();
            server.waitFor();
        }
    }

    static void follow(String base, String key, String id, int events, ConcurrentLinkedQueue<long[]> out,
                       List<String> problems) {
        long[] lat = new long[events];
        int got = 0;
        long expected = 0;
        long lastSeq = 0;
        try {
            HttpRequest req = HttpRequest.newBuilder(URI.create(base + "/api/automation/runs/" + id + "/events"))
                    .header("X-API-Key", key).GET().build();
            HttpResponse<java.io.InputStream> res = HTTP.send(req, HttpResponse.BodyHandlers.ofInputStream());
            try (BufferedReader r = new BufferedReader(new InputStreamReader(res.body(), StandardCharsets.UTF_8))) {
                String line;
                String name = null;
                while ((line = r.readLine()) != null) {
                    if (line.startsWith("event:")) {
                        name = line.substring(6).strip();
                    } else if (line.startsWith("id:")) {
                        long seq = Long.parseLong(line.substring(3).strip());
                        if (seq < lastSeq) {
                            problems.add(id + ": id went back " + lastSeq + " -> " + seq);
                        }
                        lastSeq = seq;
                    } else if (line.startsWith("data:") && "event".equals(name) && line.contains("text-delta")) {
                        Instant now = Instant.now();
                        long nowMicros = now.getEpochSecond() * 1_000_000L + now.getNano() / 1000;
                        Matcher m = STAMP.matcher(line);
                        if (m.find()) {
                            long n = Long.parseLong(m.group(1));
                            if (n != expected) {
                                problems.add(id + ": expected n=" + expected + " got " + n);
                            }
                            expected = n + 1;
                            if (got < lat.length) {
                                lat[got++] = nowMicros - Long.parseLong(m.group(2));
                            }
                        }
                    } else if ("done".equals(name) && line.startsWith("data:")) {
                        break;
                    }
                }
            }
        } catch (IOException | InterruptedException e) {
            problems.add(id + ": " + e);
        }
        if (got != events) {
            problems.add(id + ": " + got + " of " + events + " events");
        }
        out.add(Arrays.copyOf(lat, got));
    }

    static double pct(long[] sorted, int p) {
        if (sorted.length == 0) {
            return 0;
        }
        return sorted[Math.min(sorted.length - 1, (int) Math.ceil(p / 100.0 * sorted.length) - 1)];
    }

    static long rssKb(long pid) {
        try {
            for (String l : Files.readAllLines(Path.of("/proc/" + pid + "/status"))) {
                if (l.startsWith("VmRSS:")) {
                    return Long.parseLong(l.replaceAll("[^0-9]", ""));
                }
            }
        } catch (IOException e) {
            // gone
        }
        return 0;
    }

    static String heap(long pid) {
        try {
            Process p = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "jcmd").toString(),
                    Long.toString(pid), "GC.heap_info").redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            p.waitFor();
            for (String l : out.split("\n")) {
                if (l.contains("total") && l.contains("used")) {
                    return l.strip().replaceAll("\\s+", " ");
                }
            }
            return out.strip();
        } catch (IOException | InterruptedException e) {
            return "jcmd failed: " + e;
        }
    }

    static void waitHealthy(String base) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (System.nanoTime() < deadline) {
            try {
                HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create(base + "/health")).build(),
                        HttpResponse.BodyHandlers.ofString());
                if (r.statusCode() == 200) {
                    return;
                }
            } catch (IOException e) {
                // not yet
            }
            Thread.sleep(200);
        }
        throw new IllegalStateException("the server did not start");
    }

    static String post(String url, String auth, String body) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(url)).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body));
        if (auth != null) {
            int colon = auth.indexOf(':');
            if (auth.startsWith("Bearer ")) {
                b.header("Authorization", auth);
            } else {
                b.header(auth.substring(0, colon), auth.substring(colon + 1));
            }
        }
        HttpResponse<String> r = HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() >= 300) {
            throw new IllegalStateException(url + " -> " + r.statusCode() + " " + r.body());
        }
        return r.body();
    }

    static String field(String json, String name) {
        Matcher m = Pattern.compile("\"" + name + "\":\"([^\"]+)\"").matcher(json);
        if (!m.find()) {
            throw new IllegalStateException("no " + name + " in " + json);
        }
        return m.group(1);
    }
}
