import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * Server start-up through the jar (a separate JVM per start): the time from starting the process to the first
 * {@code /health} 200 and to the first {@code GET /api/projects} that lists every session of a generated history
 * HOME, and the process's CPU time and RSS at that moment. Two cases, started alternately so that load from other
 * processes hits both alike: "fresh" (a copy of a data dir that holds an account and an API key but no index, so the
 * index lists HOME from scratch) and "restart" (a data dir whose index already holds HOME). The account and key are
 * made beforehand by a server on an empty history home, so no sign-in (Argon2id) is inside a timed window; the list
 * is polled every 10 ms with the key.
 *
 * <p>Usage: java -cp TESTKIT_RUNNER_JAR bench/startup/StartupBench.java SERVER_JAR HOME [runs=7]; the server's JVM
 * flags come from AW_BENCH_JAVA_OPTS (bench/startup/run.sh sets the flags of scripts/run.sh).
 */
public class StartupBench {
    static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    static final ObjectMapper JSON = new ObjectMapper();
    static String key;

    record Start(double health, double list, double cpu, long rssMb) {
    }

    public static void main(String[] args) throws Exception {
        Path jar = Path.of(args[0]);
        Path home = Path.of(args[1]);
        int runs = args.length > 2 ? Integer.parseInt(args[2]) : 7;
        long sessions = JSON.readTree(home.resolve("aw-historygen-manifest.json").toFile()).get("sessions").asLong();
        Path work = Files.createTempDirectory("aw-startup-bench");
        Path template = work.resolve("template");
        Path empty = Files.createDirectories(work.resolve("empty-home"));
        System.out.printf(Locale.ROOT, "HOME %s (%,d sessions); server JVM options: %s%n", home, sessions,
                System.getenv().getOrDefault("AW_BENCH_JAVA_OPTS", "(none)"));

        int port = freePort();
        Process prep = start(jar, empty, template, port, work.resolve("prepare.log"));
        try {
            waitFor(System.nanoTime(), 120, () -> status(port, "/health", null) == 200);
            signIn(port);
        } finally {
            stop(prep);
        }
        Path restartData = work.resolve("restart");
        copy(template, restartData);
        Start warm = measure(jar, home, restartData, sessions, work.resolve("restart-0.log"));
        System.out.printf(Locale.ROOT, "index of HOME built in the restart data dir (first list after %.2f s)%n",
                warm.list());

        List<Start> fresh = new ArrayList<>();
        List<Start> restart = new ArrayList<>();
        for (int i = 0; i < runs; i++) {
            Path data = work.resolve("fresh-" + i);
            copy(template, data);
            fresh.add(measure(jar, home, data, sessions, work.resolve("fresh-" + i + ".log")));
            delete(data);
            restart.add(measure(jar, home, restartData, sessions, work.resolve("restart-" + (i + 1) + ".log")));
            System.out.printf(Locale.ROOT, "run %d: fresh %s | restart %s%n", i, fmt(fresh.getLast()),
                    fmt(restart.getLast()));
        }
        System.out.println();
        System.out.println("| case (median of " + runs + ", min-max) | process start → /health 200 | → first complete "
                + "GET /api/projects | CPU time then | RSS then |");
        System.out.println("|---|---:|---:|---:|---:|");
        row("fresh data dir (index empty)", fresh);
        row("restart (index in place)", restart);
        System.out.println("load average: " + Files.readString(Path.of("/proc/loadavg")).strip() + "; logs: " + work);
    }

    static Start measure(Path jar, Path home, Path data, long sessions, Path log) throws Exception {
        int port = freePort();
        long t0 = System.nanoTime();
        Process p = start(jar, home, data, port, log);
        try {
            long health = waitFor(t0, 120, () -> status(port, "/health", null) == 200);
            long list = waitFor(t0, 300, () -> complete(port, sessions));
            double cpu = cpuSeconds(p.pid());
            long rss = rssKb(p.pid()) / 1024;
            return new Start(health / 1e9, list / 1e9, cpu, rss);
        } finally {
            stop(p);
        }
    }

    static void row(String name, List<Start> s) {
        System.out.printf(Locale.ROOT, "| %s | %s | %s | %s | %s |%n", name, stat(s, Start::health, "s"),
                stat(s, Start::list, "s"), stat(s, Start::cpu, "s"), stat(s, x -> x.rssMb(), "MB"));
    }

    static String stat(List<Start> s, java.util.function.ToDoubleFunction<Start> f, String unit) {
        double[] v = s.stream().mapToDouble(f).sorted().toArray();
        String pattern = unit.equals("MB") ? "%.0f %s (%.0f–%.0f)" : "%.2f %s (%.2f–%.2f)";
        return String.format(Locale.ROOT, pattern, v[v.length / 2], unit, v[0], v[v.length - 1]);
    }

    static String fmt(Start s) {
        return String.format(Locale.ROOT, "health %.2f s, list %.2f s, CPU %.2f s, RSS %d MB", s.health(), s.list(),
                s.cpu(), s.rssMb());
    }

    static boolean complete(int port, long sessions) throws Exception {
        HttpResponse<String> r = send(port, "/api/projects", key);
        if (r.statusCode() != 200) {
            return false;
        }
        long counted = 0;
        for (JsonNode p : JSON.readTree(r.body())) {
            counted += p.has("sessionCount") ? p.get("sessionCount").asLong() : p.path("sessions").size();
        }
        return counted >= sessions;
    }

    static void signIn(int port) throws Exception {
        String body = "{\"username\":\"bench\",\"password\":\"bench-password-1\"}";
        HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port
                + "/api/auth/register")).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
        String token = JSON.readTree(r.body()).get("token").asText();
        HttpResponse<String> k = HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port
                + "/api/settings/api-keys")).header("Content-Type", "application/json")
                .header("Authorization", "Bearer " + token)
                .POST(HttpRequest.BodyPublishers.ofString("{\"name\":\"bench\",\"scopes\":[\"projects:read\"]}"))
                .build(), HttpResponse.BodyHandlers.ofString());
        key = JSON.readTree(k.body()).get("api_key").asText();
    }

    static int status(int port, String path, String apiKey) throws Exception {
        return send(port, path, apiKey).statusCode();
    }

    static HttpResponse<String> send(int port, String path, String apiKey) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .timeout(Duration.ofSeconds(60)).GET();
        if (apiKey != null) {
            b.header("X-API-Key", apiKey);
        }
        return HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    interface Check {
        boolean ok() throws Exception;
    }

    /** Polls every 10 ms until the check holds; returns the nanos since t0. A refused connection is "not yet". */
    static long waitFor(long t0, int timeoutSeconds, Check check) throws Exception {
        long deadline = t0 + TimeUnit.SECONDS.toNanos(timeoutSeconds);
        while (true) {
            try {
                if (check.ok()) {
                    return System.nanoTime() - t0;
                }
            } catch (IOException e) {
                // not listening yet
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("timed out after " + timeoutSeconds + " s");
            }
            Thread.sleep(10);
        }
    }

    static Process start(Path jar, Path home, Path data, int port, Path log) throws IOException {
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString()));
        String opts = System.getenv("AW_BENCH_JAVA_OPTS");
        if (opts != null && !opts.isBlank()) {
            cmd.addAll(Arrays.asList(opts.trim().split("\\s+")));
        }
        cmd.addAll(List.of("-jar", jar.toString(), "--port", Integer.toString(port), "--data-dir", data.toString(),
                "--history-home", home.toString()));
        return new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    }

    static void stop(Process p) throws InterruptedException {
        p.destroy();
        if (!p.waitFor(30, TimeUnit.SECONDS)) {
            p.destroyForcibly().waitFor();
        }
    }

    static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    /** User + system CPU time of the process so far (Linux /proc; 0 elsewhere). */
    static double cpuSeconds(long pid) {
        try {
            String stat = Files.readString(Path.of("/proc/" + pid + "/stat"));
            String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            return (Long.parseLong(f[11]) + Long.parseLong(f[12])) / 100.0;
        } catch (IOException | RuntimeException e) {
            return 0;
        }
    }

    static long rssKb(long pid) {
        try {
            for (String l : Files.readAllLines(Path.of("/proc/" + pid + "/status"))) {
                if (l.startsWith("VmRSS:")) {
                    return Long.parseLong(l.replaceAll("[^0-9]", ""));
                }
            }
        } catch (IOException | RuntimeException e) {
            return 0;
        }
        return 0;
    }

    static void copy(Path from, Path to) throws IOException {
        try (Stream<Path> s = Files.walk(from)) {
            for (Path p : (Iterable<Path>) s::iterator) {
                Path t = to.resolve(from.relativize(p));
                if (Files.isDirectory(p)) {
                    Files.createDirectories(t);
                } else {
                    Files.copy(p, t, java.nio.file.StandardCopyOption.COPY_ATTRIBUTES);
                }
            }
        }
    }

    static void delete(Path dir) throws IOException {
        try (Stream<Path> s = Files.walk(dir)) {
            for (Path p : (Iterable<Path>) s.sorted(Comparator.reverseOrder())::iterator) {
                Files.deleteIfExists(p);
            }
        }
    }
}
