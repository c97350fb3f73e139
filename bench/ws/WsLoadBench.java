import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.WebSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.LongStream;

/**
 * Live chat over /ws under load, end to end through the server jar: starts the server (a separate JVM) with the
 * timestamping emitter bench/agent/bin/claude as the claude CLI, starts RUNS automation runs that each stream EVENTS
 * text deltas at RATE per second, and follows every run with SUBS WebSocket subscribers on /ws:
 *
 * <ul>
 *   <li>live (6 of every 10): connect as soon as the run is accepted, {@code subscribe afterSeq:0};</li>
 *   <li>late (2 of 10): connect when 40 % of the run has been emitted, {@code subscribe afterSeq:0}, so they get a
 *       replay of the stored events and then the live tail;</li>
 *   <li>reconnecting (2 of 10): connect at once, drop the socket halfway (one aborts the TCP connection, one closes
 *       the WebSocket cleanly), wait 300 ms, reconnect and {@code subscribe} with the last seq they processed
 *       (frames still arriving on the dropped socket are ignored).</li>
 * </ul>
 *
 * Half the sockets authenticate with {@code Authorization: Bearer <api key>} on the upgrade, the other half with a
 * one-shot {@code ?streamTicket=} minted by that key. Every subscriber must receive every event frame of its run
 * exactly once, in seq order, with the emitter's counter n = 0, 1, 2, ... without a gap, and end with a
 * {@code complete} frame; as the run's log is numbered 1, 2, 3 ... without gaps and /ws sends one event frame per
 * entry, its event seqs must be exactly 1 .. lastSeq - 1 and its complete frame seq lastSeq (the terminal status
 * entry; lastSeq read back from GET /api/automation/runs/{id} afterwards).
 * Any difference makes the exit status 1.
 *
 * <p>Latency per live event frame (seq above the {@code subscribed} frame's seq) = the client's receipt time minus
 * the emitter's wall-clock stamp taken just before it wrote the line (same host clock). Server: VmRSS sampled every
 * 250 ms, VmHWM at the end, RSS after the load, CPU seconds from /proc/PID/stat, thread count.
 *
 * <p>Usage: {@code java bench/ws/WsLoadBench.java JAR [runs=20] [subs=10] [events=1000] [rate=40] [users=runs]}, or
 * {@code java bench/ws/WsLoadBench.java selftest} to check the frame parser and the verifier against synthetic
 * streams (lost, duplicated, reordered frames, a missing complete, a broken resume) and the client against a minimal
 * in-process WebSocket server. Run r belongs to account r % users and its subscribers use that account's key (runs
 * are visible to their owner); /ws allows 16 sockets per user by default, so keep subs * runs / users below that.
 * Extra server arguments come from the environment variable AW_WS_BENCH_SERVER_ARGS, extra JVM options of
 * the server (for example -Xmx256m) from AW_WS_BENCH_JVM_ARGS, both split on spaces.
 */
public class WsLoadBench {
    static final Pattern STAMP = Pattern.compile("n=(\\d+) t=(\\d+)");
    static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    enum Kind { LIVE, LATE, RECONNECT_ABORT, RECONNECT_CLOSE }

    public static void main(String[] args) throws Exception {
        if (args.length > 0 && args[0].equals("selftest")) {
            System.exit(SelfTest.run() ? 0 : 1);
        }
        Path jar = Path.of(args[0]);
        int runs = args.length > 1 ? Integer.parseInt(args[1]) : 20;
        int subs = args.length > 2 ? Integer.parseInt(args[2]) : 10;
        int events = args.length > 3 ? Integer.parseInt(args[3]) : 1000;
        int rate = args.length > 4 ? Integer.parseInt(args[4]) : 40;
        int users = args.length > 5 ? Integer.parseInt(args[5]) : runs;
        if (rate <= 0) {
            throw new IllegalArgumentException("rate must be positive (the late and reconnecting subscribers are timed by it)");
        }
        double nominal = events / (double) rate;
        Path emitter = Path.of("bench/agent/bin/claude").toAbsolutePath();
        Path tmp = Files.createTempDirectory("aw-ws-bench");
        Path project = Files.createDirectories(tmp.resolve("project"));
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        List<String> cmd = new ArrayList<>(List.of(java));
        String jvm = System.getenv().getOrDefault("AW_WS_BENCH_JVM_ARGS", "").strip();
        if (!jvm.isEmpty()) {
            cmd.addAll(Arrays.asList(jvm.split("\\s+")));
        }
        cmd.addAll(List.of("-jar", jar.toString(), "--port", Integer.toString(port),
                "--data-dir", tmp.resolve("data").toString(), "--cli-path", "claude=" + emitter,
                "--max-concurrent-runs", Integer.toString(runs),
                "--max-runs-per-account", Integer.toString(runs),
                "--max-queued-runs-per-account", Integer.toString(runs),
                // one client address and one account hold every stream of the benchmark
                "--max-connections-per-address", "10000", "--max-connections", "10000",
                "--max-streams-per-account", "10000",
                "--provider-env", "claude:AW_BENCH_EVENTS=" + events + ",claude:AW_BENCH_RATE=" + rate));
        System.out.println("server: " + String.join(" ", cmd.subList(0, cmd.indexOf("-jar"))) + " -jar … "
                + String.join(" ", cmd.subList(cmd.indexOf("--max-concurrent-runs"), cmd.size())));
        String extra = System.getenv().getOrDefault("AW_WS_BENCH_SERVER_ARGS", "").strip();
        if (!extra.isEmpty()) {
            cmd.addAll(Arrays.asList(extra.split("\\s+")));
        }
        Process server = new ProcessBuilder(cmd).redirectErrorStream(true)
                .redirectOutput(tmp.resolve("server.log").toFile()).start();
        String base = "http://127.0.0.1:" + port;
        String wsBase = "ws://127.0.0.1:" + port + "/ws";
        boolean ok = false;
        try {
            waitHealthy(base);
            String[] keys = userKeys(base, users);
            long pid = server.pid();
            long rssBefore = status(pid, "VmRSS:");
            long cpuBefore = cpuTicks(pid);
            AtomicLong maxRss = new AtomicLong();
            AtomicLong maxThreads = new AtomicLong();
            Thread sampler = Thread.ofPlatform().daemon().start(() -> {
                while (!Thread.currentThread().isInterrupted()) {
                    maxRss.accumulateAndGet(status(pid, "VmRSS:"), Math::max);
                    maxThreads.accumulateAndGet(status(pid, "Threads:"), Math::max);
                    try {
                        Thread.sleep(250);
                    } catch (InterruptedException e) {
                        return;
                    }
                }
            });
            // a few clients, so that one selector thread does not serialise all 200 sockets' frames
            HttpClient[] clients = new HttpClient[Math.max(1, Math.min(runs, 8))];
            for (int i = 0; i < clients.length; i++) {
                clients[i] = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
            }
            List<Subscriber> all = new CopyOnWriteArrayList<>();
            List<Thread> drivers = new ArrayList<>();
            List<String> runIds = new ArrayList<>();
            List<String> setupProblems = new CopyOnWriteArrayList<>();
            long t0 = System.nanoTime();
            for (int r = 0; r < runs; r++) {
                String key = keys[r % users];
                String id = field(post(base + "/api/automation/run", "X-API-Key:" + key, "{\"prompt\":\"ws bench " + r
                        + "\",\"agentType\":\"claude\",\"projectPath\":\"" + project + "\"}"), "id");
                runIds.add(id);
                for (int j = 0; j < subs; j++) {
                    Kind kind = switch (j % 10) {
                        case 6, 7 -> Kind.LATE;
                        case 8 -> Kind.RECONNECT_ABORT;
                        case 9 -> Kind.RECONNECT_CLOSE;
                        default -> Kind.LIVE;
                    };
                    Subscriber s = new Subscriber(id, r + "/" + j, kind, j % 2 == 1);
                    s.verifier.steadyFrom = 5L * rate;
                    all.add(s);
                    HttpClient client = clients[(r * subs + j) % clients.length];
                    drivers.add(Thread.ofVirtual().start(() -> {
                        try {
                            drive(s, client, base, wsBase, key, nominal);
                        } catch (Exception e) {
                            s.verifier.problem("driver: " + e);
                            s.finished.complete(null);
                        }
                    }));
                }
            }
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos((long) (nominal * 3) + 90);
            for (Thread t : drivers) {
                t.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
            }
            double seconds = (System.nanoTime() - t0) / 1e9;
            long cpuAfterLoad = cpuTicks(pid);
            // the run's log is seq 1, 2, 3 ... without gaps, its terminal status last: /ws sends one event frame per
            // entry before it and the complete frame for it, so every subscriber must see exactly 1 .. lastSeq-1
            Map<String, long[]> reference = new LinkedHashMap<>();
            Map<String, Long> lastSeqs = new LinkedHashMap<>();
            for (int r = 0; r < runIds.size(); r++) {
                String id = runIds.get(r);
                long lastSeq = runLastSeq(base, keys[r % users], id);
                lastSeqs.put(id, lastSeq);
                reference.put(id, LongStream.range(1, lastSeq).toArray());
                if (lastSeq < 2L * events) {
                    setupProblems.add("run " + id + " has only " + lastSeq + " entries in its log");
                }
            }
            for (Subscriber s : all) {
                if (!s.finished.isDone()) {
                    s.verifier.problem("no complete frame before the deadline");
                }
                s.verifier.finish(reference.get(s.runId), events, lastSeqs.getOrDefault(s.runId, -1L));
            }
            Thread.sleep(3000);
            long rssAfter = status(pid, "VmRSS:");
            long hwm = status(pid, "VmHWM:");
            String heapAfter = heap(pid);
            sampler.interrupt();
            long warnings;
            try (var lines = Files.lines(tmp.resolve("server.log"))) {
                warnings = lines.filter(l -> l.contains("WARNING") || l.contains("SEVERE") || l.contains("Exception"))
                        .count();
            }
            System.out.println("server log lines with WARNING/SEVERE/Exception: " + warnings + " (" + tmp.resolve("server.log") + ")");
            ok = report(all, runs, subs, events, rate, users, seconds, rssBefore, maxRss.get(), hwm, rssAfter,
                    (cpuAfterLoad - cpuBefore) / (double) clockTicks(), maxThreads.get(), heapAfter, setupProblems);
        } finally {
            server.destroy();
            server.waitFor();
            if (!ok) {
                System.out.println("server log: " + tmp.resolve("server.log"));
            }
        }
        System.exit(ok ? 0 : 1);
    }

    /** One subscriber's life: connect (now or later), maybe drop and resume, until the complete frame. */
    static void drive(Subscriber s, HttpClient client, String base, String wsBase, String key, double nominal)
            throws Exception {
        if (s.kind == Kind.LATE) {
            Thread.sleep((long) (nominal * 400));
        }
        WebSocket ws = open(s, client, base, wsBase, key);
        ws.sendText("{\"type\":\"ping\"}", true).join();
        s.current.subscribeSent = System.nanoTime();
        ws.sendText("{\"type\":\"subscribe\",\"runId\":\"" + s.runId + "\",\"afterSeq\":0}", true).join();
        if (s.kind == Kind.RECONNECT_ABORT || s.kind == Kind.RECONNECT_CLOSE) {
            Thread.sleep((long) (nominal * 500));
            // stop taking frames from this socket first (frames already in flight on it are ignored, as a client
            // that hangs up would), so the last seq taken is exactly where the new subscription must resume
            long after = s.retire();
            if (after >= 0) {
                if (s.kind == Kind.RECONNECT_ABORT) {
                    ws.abort();
                } else {
                    ws.sendClose(WebSocket.NORMAL_CLOSURE, "bench reconnect").get(5, TimeUnit.SECONDS);
                }
                Thread.sleep(300);
                s.reconnects++;
                if (after == 0) {
                    s.silentFirstSocket = true; // nothing arrived on the first socket before the drop
                }
                ws = open(s, client, base, wsBase, key);
                ws.sendText("{\"type\":\"ping\"}", true).join();
                s.current.subscribeSent = System.nanoTime();
                ws.sendText("{\"type\":\"subscribe\",\"runId\":\"" + s.runId + "\",\"afterSeq\":" + after + "}", true)
                        .join();
            }
        }
        try {
            s.finished.get((long) (nominal * 3) + 60, TimeUnit.SECONDS);
        } catch (java.util.concurrent.TimeoutException e) {
            s.verifier.problem("timed out waiting for the complete frame");
        }
        // every socket is pinged once; the last one (which stayed open until complete) must have answered
        int pongs = s.verifier.pongs() - s.current.pongsBefore;
        if (pongs != 1) {
            s.verifier.problem(pongs + " pong frames for the ping on the last socket");
        }
        ws.abort();
    }

    static WebSocket open(Subscriber s, HttpClient client, String base, String wsBase, String key) throws Exception {
        WebSocket.Builder b = client.newWebSocketBuilder().connectTimeout(Duration.ofSeconds(20));
        String uri = wsBase;
        if (s.ticket) {
            String ticket = field(post(base + "/api/auth/stream-ticket", "X-API-Key:" + key, "{}"), "ticket");
            uri += "?streamTicket=" + URLEncoder.encode(ticket, StandardCharsets.UTF_8);
        } else {
            b.header("Authorization", "Bearer " + key);
        }
        Listener l = new Listener(s);
        s.current = l;
        try {
            return b.buildAsync(URI.create(uri), l).get(30, TimeUnit.SECONDS);
        } catch (java.util.concurrent.ExecutionException e) {
            if (e.getCause() instanceof java.net.http.WebSocketHandshakeException h) {
                throw new IllegalStateException("upgrade refused: " + h.getResponse().statusCode() + " "
                        + h.getResponse().body());
            }
            throw e;
        }
    }

    static final class Subscriber {
        final String runId;
        final String name;
        final Kind kind;
        final boolean ticket;
        final Verifier verifier;
        final CompletableFuture<Void> finished = new CompletableFuture<>();
        volatile Listener current;
        int reconnects;
        volatile boolean silentFirstSocket;
        /** Per socket: sending subscribe -> receiving the subscribed frame. */
        final List<Long> subscribeMicros = new CopyOnWriteArrayList<>();

        /** Frames that arrived on a socket after it was retired (ignored). */
        int ignoredAfterRetire;

        /** Stops taking frames from the current socket: the last seq taken, or -1 when the run had completed. */
        long retire() {
            synchronized (verifier) {
                current.retired = true;
                return verifier.complete ? -1 : verifier.lastSeq();
            }
        }

        Subscriber(String runId, String name, Kind kind, boolean ticket) {
            this.runId = runId;
            this.name = name;
            this.kind = kind;
            this.ticket = ticket;
            this.verifier = new Verifier(runId);
        }
    }

    static final class Listener implements WebSocket.Listener {
        final Subscriber s;
        final StringBuilder partial = new StringBuilder();
        /** Set before the bench drops this socket on purpose: its close is then expected. */
        volatile boolean retired;

        volatile long subscribeSent;
        /** Pongs the subscriber had seen before this socket opened. */
        final int pongsBefore;

        Listener(Subscriber s) {
            this.s = s;
            this.pongsBefore = s.verifier.pongs();
        }

        @Override
        public CompletionStage<?> onText(WebSocket ws, CharSequence data, boolean last) {
            partial.append(data);
            if (last) {
                long now = nowMicros();
                String text = partial.toString();
                partial.setLength(0);
                if (text.startsWith("{\"type\":\"subscribed\"") && subscribeSent != 0) {
                    s.subscribeMicros.add((System.nanoTime() - subscribeSent) / 1000);
                }
                synchronized (s.verifier) {
                    if (retired) {
                        s.ignoredAfterRetire++;
                    } else if (s.verifier.accept(text, now)) {
                        s.finished.complete(null);
                    }
                }
            }
            ws.request(1);
            return null;
        }

        @Override
        public CompletionStage<?> onClose(WebSocket ws, int code, String reason) {
            if (!s.finished.isDone() && !retired) {
                s.verifier.problem("closed by the server before complete: " + code + " " + reason);
                s.finished.complete(null);
            }
            return null;
        }

        @Override
        public void onError(WebSocket ws, Throwable error) {
            if (!s.finished.isDone() && !retired) {
                s.verifier.problem("socket error before complete: " + error);
                s.finished.complete(null);
            }
        }
    }

    /**
     * Checks one subscriber's frames (across its reconnects): every event frame's seq above the previous one, the
     * emitter's n without a gap, the subscribed frame echoing the request, a pong with seq 0, the complete frame last;
     * at the end, the event seqs equal the reference list. Collects latencies of live (non-replayed) stamped events.
     */
    static final class Verifier {
        final String runId;
        final List<String> problems = new ArrayList<>();
        final List<Long> seqs = new ArrayList<>();
        long[] live = new long[1024];
        int liveCount;
        /** Live latencies of emitter lines n >= steadyFrom (past the start-up of the runs, sockets and JIT). */
        long[] steady = new long[1024];
        int steadyCount;
        long steadyFrom = Long.MAX_VALUE;
        int replayed;
        int pongs;
        int subscribedFrames;
        long lastSeq;
        long subscribedSeq = -1;
        long expectedN;
        boolean complete;
        String status;
        boolean finished;
        long completeSeq = -1;

        Verifier(String runId) {
            this.runId = runId;
        }

        synchronized void problem(String p) {
            if (problems.size() < 20) {
                problems.add(p);
            }
        }

        synchronized long lastSeq() {
            return lastSeq;
        }

        synchronized int pongs() {
            return pongs;
        }

        /** Returns true when the frame was the run's complete frame. */
        synchronized boolean accept(String text, long nowMicros) {
            Object parsed;
            try {
                parsed = Json.parse(text);
            } catch (RuntimeException e) {
                problem("unparseable frame: " + e.getMessage() + ": " + abbreviate(text));
                return false;
            }
            if (!(parsed instanceof Map<?, ?> m)) {
                problem("frame is not an object: " + abbreviate(text));
                return false;
            }
            String type = String.valueOf(m.get("type"));
            long seq = m.get("seq") instanceof Number n ? n.longValue() : -1;
            if (seq < 0) {
                problem(type + " frame without seq: " + abbreviate(text));
            }
            switch (type) {
                case "pong" -> {
                    pongs++;
                    if (seq != 0) {
                        problem("pong with seq " + seq);
                    }
                }
                case "subscribed" -> {
                    subscribedFrames++;
                    if (!runId.equals(m.get("runId"))) {
                        problem("subscribed to " + m.get("runId"));
                    }
                    long after = m.get("afterSeq") instanceof Number n ? n.longValue() : -1;
                    if (after != lastSeq) {
                        problem("subscribed afterSeq " + after + " but the last seq seen was " + lastSeq);
                    }
                    if (seq < after) {
                        problem("subscribed seq " + seq + " below afterSeq " + after);
                    }
                    subscribedSeq = seq;
                }
                case "event" -> {
                    if (!runId.equals(m.get("runId"))) {
                        problem("event of run " + m.get("runId") + " at seq " + seq);
                    }
                    if (subscribedSeq < 0) {
                        problem("event seq " + seq + " before the subscribed frame");
                    }
                    if (complete) {
                        problem("event seq " + seq + " after the complete frame");
                    }
                    if (seq <= lastSeq) {
                        problem((seq == lastSeq ? "duplicate" : "reordered") + " event seq " + seq + " after "
                                + lastSeq);
                        return false;
                    }
                    lastSeq = seq;
                    seqs.add(seq);
                    boolean isLive = seq > subscribedSeq;
                    if (!isLive) {
                        replayed++;
                    }
                    if (m.get("event") instanceof Map<?, ?> ev && ev.get("data") instanceof Map<?, ?> data
                            && "text-delta".equals(ev.get("kind")) && data.get("text") instanceof String t) {
                        Matcher sm = STAMP.matcher(t);
                        if (sm.matches()) {
                            long n = Long.parseLong(sm.group(1));
                            if (n != expectedN) {
                                problem("emitter line n=" + n + " where n=" + expectedN + " was due (seq " + seq + ")");
                            }
                            expectedN = n + 1;
                            if (isLive) {
                                if (liveCount == live.length) {
                                    live = Arrays.copyOf(live, live.length * 2);
                                }
                                long lat = nowMicros - Long.parseLong(sm.group(2));
                                live[liveCount++] = lat;
                                if (n >= steadyFrom) {
                                    if (steadyCount == steady.length) {
                                        steady = Arrays.copyOf(steady, steady.length * 2);
                                    }
                                    steady[steadyCount++] = lat;
                                }
                            }
                        }
                    }
                }
                case "complete" -> {
                    if (!runId.equals(m.get("runId"))) {
                        problem("complete of run " + m.get("runId"));
                    }
                    if (complete) {
                        problem("second complete frame");
                    }
                    if (seq < lastSeq) {
                        problem("complete seq " + seq + " below the last event seq " + lastSeq);
                    }
                    complete = true;
                    completeSeq = seq;
                    status = String.valueOf(m.get("status"));
                    return true;
                }
                case "error" -> problem("error frame: " + abbreviate(text));
                default -> {
                    // session-created and other frame types carry no event the check needs
                }
            }
            return false;
        }

        /** After the run: compare with the reference seq list and the expected number of emitter lines. */
        synchronized void finish(long[] reference, int events, long completeSeqDue) {
            if (finished) {
                return;
            }
            finished = true;
            if (!complete) {
                problem("no complete frame");
            } else if (!"completed".equals(status)) {
                problem("complete with status " + status);
            } else if (completeSeq != completeSeqDue) {
                problem("complete frame at seq " + completeSeq + ", the run's last seq is " + completeSeqDue);
            }
            if (expectedN != events) {
                problem("saw emitter lines up to n=" + (expectedN - 1) + " of " + events);
            }
            if (reference == null) {
                problem("no reference seq list");
                return;
            }
            long[] got = seqs.stream().mapToLong(Long::longValue).toArray();
            if (!Arrays.equals(got, reference)) {
                int i = 0;
                while (i < got.length && i < reference.length && got[i] == reference[i]) {
                    i++;
                }
                problem("event seqs differ from the run's log at index " + i + ": got "
                        + (i < got.length ? got[i] : "nothing") + ", the log has "
                        + (i < reference.length ? reference[i] : "nothing") + " (" + got.length + " vs "
                        + reference.length + " events)");
            }
        }

        synchronized long[] latencies() {
            return Arrays.copyOf(live, liveCount);
        }

        synchronized long[] steadyLatencies() {
            return Arrays.copyOf(steady, steadyCount);
        }
    }

    static boolean report(List<Subscriber> all, int runs, int subs, int events, int rate, int users, double seconds,
                          long rssBefore, long rssPeak, long hwm, long rssAfter, double cpuSeconds, long threads,
                          String heapAfter, List<String> setupProblems) {
        long frames = 0;
        long replayed = 0;
        int failed = 0;
        int reconnects = 0;
        int silent = 0;
        long ignored = 0;
        List<long[]> lats = new ArrayList<>();
        List<long[]> steadyLats = new ArrayList<>();
        Map<Kind, List<long[]>> byKind = new LinkedHashMap<>();
        for (Subscriber s : all) {
            Verifier v = s.verifier;
            frames += v.seqs.size();
            replayed += v.replayed;
            reconnects += s.reconnects;
            silent += s.silentFirstSocket ? 1 : 0;
            ignored += s.ignoredAfterRetire;
            long[] l = v.latencies();
            lats.add(l);
            steadyLats.add(v.steadyLatencies());
            byKind.computeIfAbsent(s.kind, k -> new ArrayList<>()).add(l);
            if (!v.problems.isEmpty()) {
                failed++;
                if (failed <= 10) {
                    System.out.println("FAIL " + s.name + " (" + s.kind + (s.ticket ? ", ticket" : ", bearer") + ", run "
                            + s.runId + "): " + v.problems);
                }
            }
        }
        long[] allLat = lats.stream().flatMapToLong(Arrays::stream).sorted().toArray();
        System.out.printf("%d runs x %d events at %d/s (%.1f s each), %d subscribers (%d per run, %d users), %.1f s wall%n",
                runs, events, rate, events / (double) rate, all.size(), subs, users, seconds);
        System.out.println();
        System.out.println("| measure | value |");
        System.out.println("|---|---:|");
        System.out.printf("| subscribers verified (every event once, in order, complete frame) | %d of %d |%n",
                all.size() - failed, all.size());
        System.out.printf("| event frames received (of which replayed) | %,d (%,d) |%n", frames, replayed);
        System.out.printf("| reconnects with afterSeq (first socket still silent at the drop; frames ignored after the drop) "
                + "| %d (%d; %,d) |%n", reconnects, silent, ignored);
        long[] sub = all.stream().flatMap(x -> x.subscribeMicros.stream()).mapToLong(Long::longValue).sorted().toArray();
        System.out.printf("| subscribe -> subscribed frame (%d sockets) p50 / p90 / p99 / max (ms) | %s |%n", sub.length,
                pcts(sub));
        System.out.printf("| live frames timed | %,d |%n", allLat.length);
        System.out.printf("| latency p50 / p90 / p99 / max (ms) | %s |%n", pcts(allLat));
        long[] steady = steadyLats.stream().flatMapToLong(Arrays::stream).sorted().toArray();
        System.out.printf("| latency from 5 s into each run on (%,d frames) p50 / p90 / p99 / max (ms) | %s |%n",
                steady.length, pcts(steady));
        for (Map.Entry<Kind, List<long[]>> e : byKind.entrySet()) {
            long[] k = e.getValue().stream().flatMapToLong(Arrays::stream).sorted().toArray();
            System.out.printf("| latency %s p50 / p90 / p99 / max (ms) | %s |%n", e.getKey().name().toLowerCase(),
                    pcts(k));
        }
        System.out.printf("| server RSS before / peak (sampled) / VmHWM / 3 s after (MB) | %d / %d / %d / %d |%n",
                rssBefore / 1024, rssPeak / 1024, hwm / 1024, rssAfter / 1024);
        System.out.printf("| server CPU during the load | %.1f s (%.2f cores on average) |%n", cpuSeconds,
                cpuSeconds / seconds);
        System.out.printf("| server threads (peak) | %d |%n", threads);
        System.out.printf("| bench client CPU (this JVM, whole run) | %.1f s |%n", ((com.sun.management.OperatingSystemMXBean)
                java.lang.management.ManagementFactory.getOperatingSystemMXBean()).getProcessCpuTime() / 1e9);
        System.out.println();
        System.out.println("server heap after: " + heapAfter);
        boolean ok = failed == 0 && setupProblems.isEmpty() && !all.isEmpty();
        System.out.println(ok ? "OK: no lost, duplicated or reordered event on any subscriber"
                : "FAILED: " + failed + " subscribers with problems " + setupProblems);
        return ok;
    }

    static String pcts(long[] sorted) {
        if (sorted.length == 0) {
            return "-";
        }
        return String.format("%.1f / %.1f / %.1f / %.1f", pct(sorted, 50) / 1000.0, pct(sorted, 90) / 1000.0,
                pct(sorted, 99) / 1000.0, sorted[sorted.length - 1] / 1000.0);
    }

    static double pct(long[] sorted, int p) {
        return sorted[Math.min(sorted.length - 1, Math.max(0, (int) Math.ceil(p / 100.0 * sorted.length) - 1))];
    }

    static long nowMicros() {
        Instant now = Instant.now();
        return now.getEpochSecond() * 1_000_000L + now.getNano() / 1000;
    }

    static String abbreviate(String s) {
        return s.length() > 300 ? s.substring(0, 300) + "…" : s;
    }

    /** Accounts: the first registers (administrator) and creates the others; each gets a tasks:read/write key. */
    static String[] userKeys(String base, int users) throws Exception {
        String[] keys = new String[users];
        String password = "bench-password-1";
        String admin = field(post(base + "/api/auth/register", null,
                "{\"username\":\"bench0\",\"password\":\"" + password + "\"}"), "token");
        for (int u = 0; u < users; u++) {
            String token = admin;
            if (u > 0) {
                post(base + "/api/users", "Bearer " + admin,
                        "{\"username\":\"bench" + u + "\",\"password\":\"" + password + "\"}");
                token = field(post(base + "/api/auth/login", null,
                        "{\"username\":\"bench" + u + "\",\"password\":\"" + password + "\"}"), "token");
            }
            keys[u] = field(post(base + "/api/settings/api-keys", "Bearer " + token,
                    "{\"name\":\"ws bench\",\"scopes\":[\"tasks:read\",\"tasks:write\"]}"), "api_key");
        }
        return keys;
    }

    /** The run's last log seq (its terminal status entry) from GET /api/automation/runs/{id}. */
    static long runLastSeq(String base, String key, String runId) throws Exception {
        HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create(base + "/api/automation/runs/" + runId))
                .header("X-API-Key", key).timeout(Duration.ofSeconds(60)).GET().build(),
                HttpResponse.BodyHandlers.ofString());
        Matcher m = Pattern.compile("\"lastSeq\":(\\d+)").matcher(r.body());
        if (r.statusCode() != 200 || !m.find()) {
            throw new IllegalStateException("run " + runId + " -> " + r.statusCode() + " " + r.body());
        }
        return Long.parseLong(m.group(1));
    }

    static long status(long pid, String field) {
        try {
            for (String l : Files.readAllLines(Path.of("/proc/" + pid + "/status"))) {
                if (l.startsWith(field)) {
                    return Long.parseLong(l.replaceAll("[^0-9]", ""));
                }
            }
        } catch (IOException e) {
            // gone
        }
        return 0;
    }

    static long cpuTicks(long pid) {
        try {
            String stat = Files.readString(Path.of("/proc/" + pid + "/stat"));
            String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            return Long.parseLong(f[11]) + Long.parseLong(f[12]); // utime, stime (fields 14 and 15)
        } catch (IOException | RuntimeException e) {
            return 0;
        }
    }

    static long clockTicks() {
        try {
            Process p = new ProcessBuilder("getconf", "CLK_TCK").start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
            p.waitFor();
            return Long.parseLong(out);
        } catch (IOException | InterruptedException | NumberFormatException e) {
            return 100;
        }
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
                .timeout(Duration.ofSeconds(60)).POST(HttpRequest.BodyPublishers.ofString(body));
        if (auth != null) {
            if (auth.startsWith("Bearer ")) {
                b.header("Authorization", auth);
            } else {
                int colon = auth.indexOf(':');
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

    /** A small JSON reader (objects to LinkedHashMap, arrays to List, numbers to Long or Double). */
    static final class Json {
        private final String s;
        private int i;

        private Json(String s) {
            this.s = s;
        }

        static Object parse(String text) {
            Json j = new Json(text);
            j.ws();
            Object v = j.value();
            j.ws();
            if (j.i != text.length()) {
                throw j.error("trailing characters");
            }
            return v;
        }

        private RuntimeException error(String what) {
            return new IllegalArgumentException(what + " at " + i);
        }

        private void ws() {
            while (i < s.length() && " \t\r\n".indexOf(s.charAt(i)) >= 0) {
                i++;
            }
        }

        private Object value() {
            if (i >= s.length()) {
                throw error("unexpected end");
            }
            char c = s.charAt(i);
            switch (c) {
                case '{': {
                    i++;
                    Map<String, Object> m = new LinkedHashMap<>();
                    ws();
                    if (peek('}')) {
                        return m;
                    }
                    while (true) {
                        ws();
                        if (i >= s.length() || s.charAt(i) != '"') {
                            throw error("expected a key");
                        }
                        String k = string();
                        ws();
                        expect(':');
                        ws();
                        m.put(k, value());
                        ws();
                        if (peek('}')) {
                            return m;
                        }
                        expect(',');
                    }
                }
                case '[': {
                    i++;
                    List<Object> l = new ArrayList<>();
                    ws();
                    if (peek(']')) {
                        return l;
                    }
                    while (true) {
                        ws();
                        l.add(value());
                        ws();
                        if (peek(']')) {
                            return l;
                        }
                        expect(',');
                    }
                }
                case '"':
                    return string();
                case 't':
                    word("true");
                    return Boolean.TRUE;
                case 'f':
                    word("false");
                    return Boolean.FALSE;
                case 'n':
                    word("null");
                    return null;
                default:
                    return number();
            }
        }

        private boolean peek(char c) {
            if (i < s.length() && s.charAt(i) == c) {
                i++;
                return true;
            }
            return false;
        }

        private void expect(char c) {
            if (!peek(c)) {
                throw error("expected '" + c + "'");
            }
        }

        private void word(String w) {
            if (!s.startsWith(w, i)) {
                throw error("expected " + w);
            }
            i += w.length();
        }

        private Object number() {
            int start = i;
            while (i < s.length() && "+-0123456789.eE".indexOf(s.charAt(i)) >= 0) {
                i++;
            }
            String n = s.substring(start, i);
            if (n.isEmpty()) {
                throw error("unexpected character");
            }
            try {
                return n.contains(".") || n.contains("e") || n.contains("E") ? (Object) Double.parseDouble(n)
                        : (Object) Long.parseLong(n);
            } catch (NumberFormatException e) {
                throw error("bad number " + n);
            }
        }

        private String string() {
            expect('"');
            StringBuilder b = new StringBuilder();
            while (true) {
                if (i >= s.length()) {
                    throw error("unterminated string");
                }
                char c = s.charAt(i++);
                if (c == '"') {
                    return b.toString();
                }
                if (c != '\\') {
                    b.append(c);
                    continue;
                }
                if (i >= s.length()) {
                    throw error("unterminated escape");
                }
                char e = s.charAt(i++);
                switch (e) {
                    case '"', '\\', '/' -> b.append(e);
                    case 'b' -> b.append('\b');
                    case 'f' -> b.append('\f');
                    case 'n' -> b.append('\n');
                    case 'r' -> b.append('\r');
                    case 't' -> b.append('\t');
                    case 'u' -> {
                        if (i + 4 > s.length()) {
                            throw error("short \\u escape");
                        }
                        b.append((char) Integer.parseInt(s.substring(i, i + 4), 16));
                        i += 4;
                    }
                    default -> throw error("bad escape \\" + e);
                }
            }
        }
    }

    /** Feeds synthetic frame streams through the parser and the verifier; each broken stream must be caught. */
    static final class SelfTest {
        static int failures;

        static boolean run() {
            String run = "run-1";
            long[] ref = {3, 5, 7, 9};
            // a clean stream: subscribed, four events (n 0..3), complete
            Verifier v = feed(run, List.of(pong(0), subscribed(run, 0, 0), ev(run, 3, 0), ev(run, 5, 1), ev(run, 7, 2),
                    ev(run, 9, 3), complete(run, 10, "completed")));
            check("clean stream passes", v, ref, 4, true);
            check("clean stream: four live latencies", v.latencies().length == 4);
            // the same with a replay part: subscribed at seq 5 -> events 3 and 5 are replayed, 7 and 9 live
            v = feed(run, List.of(pong(0), subscribed(run, 5, 0), ev(run, 3, 0), ev(run, 5, 1), ev(run, 7, 2),
                    ev(run, 9, 3), complete(run, 10, "completed")));
            check("replay + live passes", v, ref, 4, true);
            check("replayed frames are not timed", v.latencies().length == 2 && v.replayed == 2);
            // a resume: the second subscribe carries the last seq seen
            v = feed(run, List.of(pong(0), subscribed(run, 5, 0), ev(run, 3, 0), ev(run, 5, 1), subscribed(run, 7, 5),
                    ev(run, 7, 2), ev(run, 9, 3), complete(run, 10, "completed")));
            check("resume after seq 5 passes", v, ref, 4, true);
            // lost: seq 7 (n=2) missing
            v = feed(run, List.of(pong(0), subscribed(run, 0, 0), ev(run, 3, 0), ev(run, 5, 1), ev(run, 9, 3),
                    complete(run, 10, "completed")));
            check("a lost event is caught", v, ref, 4, false);
            // lost across a resume: resumed after 7 though only 5 was seen
            v = feed(run, List.of(pong(0), subscribed(run, 5, 0), ev(run, 3, 0), ev(run, 5, 1), subscribed(run, 7, 7),
                    ev(run, 9, 3), complete(run, 10, "completed")));
            check("a resume that skips is caught", v, ref, 4, false);
            // duplicated: seq 5 twice
            v = feed(run, List.of(pong(0), subscribed(run, 0, 0), ev(run, 3, 0), ev(run, 5, 1), ev(run, 5, 1),
                    ev(run, 7, 2), ev(run, 9, 3), complete(run, 10, "completed")));
            check("a duplicated event is caught", v, ref, 4, false);
            // reordered: 7 before 5
            v = feed(run, List.of(pong(0), subscribed(run, 0, 0), ev(run, 3, 0), ev(run, 7, 2), ev(run, 5, 1),
                    ev(run, 9, 3), complete(run, 10, "completed")));
            check("reordered events are caught", v, ref, 4, false);
            // an event the log does not have (seq 8, the emitter counter still consecutive)
            v = feed(run, List.of(pong(0), subscribed(run, 0, 0), ev(run, 3, 0), ev(run, 5, 1), ev(run, 8, 2),
                    ev(run, 9, 3), complete(run, 10, "completed")));
            check("a seq list that differs from the log is caught", v, ref, 4, false);
            // no complete frame
            v = feed(run, List.of(pong(0), subscribed(run, 0, 0), ev(run, 3, 0), ev(run, 5, 1), ev(run, 7, 2),
                    ev(run, 9, 3)));
            check("a missing complete frame is caught", v, ref, 4, false);
            // a failed run
            v = feed(run, List.of(pong(0), subscribed(run, 0, 0), ev(run, 3, 0), ev(run, 5, 1), ev(run, 7, 2),
                    ev(run, 9, 3), complete(run, 10, "failed")));
            check("a failed run is caught", v, ref, 4, false);
            // an event of another run
            v = feed(run, List.of(pong(0), subscribed(run, 0, 0), ev(run, 3, 0), ev("run-2", 5, 1), ev(run, 7, 2),
                    ev(run, 9, 3), complete(run, 10, "completed")));
            check("a foreign run's event is caught", v, ref, 4, false);
            // an error frame
            v = feed(run, List.of(pong(0), subscribed(run, 0, 0), ev(run, 3, 0), ev(run, 5, 1), ev(run, 7, 2),
                    ev(run, 9, 3), "{\"type\":\"error\",\"seq\":0,\"success\":false,\"error\":{\"code\":\"X\",\"message\":\"m\"}}",
                    complete(run, 10, "completed")));
            check("an error frame is caught", v, ref, 4, false);
            // the parser on escapes and nesting
            Object p = Json.parse("{\"a\":[1,2.5,true,false,null,\"x\\\"y\\u0041\\n\"],\"b\":{\"c\":-3}}");
            check("json parse", p.equals(Map.of("a", Arrays.asList(1L, 2.5, true, false, null, "x\"yA\n"),
                    "b", Map.of("c", -3L))));
            boolean threw;
            try {
                Json.parse("{\"a\":1,}");
                threw = false;
            } catch (IllegalArgumentException e) {
                threw = true;
            }
            check("json rejects a trailing comma", threw);
            try {
                socketChecks();
            } catch (Exception e) {
                failures++;
                System.out.println("FAIL socket checks: " + e);
            }
            System.out.println(failures == 0 ? "selftest: all checks passed" : "selftest: " + failures + " failed");
            return failures == 0;
        }

        /**
         * The real client path (java.net.http.WebSocket, the listener, drop and resume) against MiniWsServer, which
         * serves one synthetic run by the frozen /ws frame shapes: every subscriber kind must pass, and a server
         * that leaves out one event must be caught on every subscriber (live, late, and across either resume).
         */
        static void socketChecks() throws Exception {
            int events = 300;
            int rate = 100;
            for (boolean faulty : new boolean[] {false, true}) {
                try (MiniWsServer server = new MiniWsServer("run-mini", events, rate, faulty)) {
                    HttpClient client = HttpClient.newHttpClient();
                    List<Subscriber> subs = new ArrayList<>();
                    List<Thread> threads = new ArrayList<>();
                    for (Kind kind : Kind.values()) {
                        Subscriber sub = new Subscriber("run-mini", kind.name(), kind, false);
                        subs.add(sub);
                        threads.add(Thread.ofVirtual().start(() -> {
                            try {
                                drive(sub, client, "http://unused", server.uri(), "px_unused", events / (double) rate);
                            } catch (Exception e) {
                                sub.verifier.problem("driver: " + e);
                            }
                        }));
                    }
                    for (Thread t : threads) {
                        t.join(30_000);
                    }
                    int failed = 0;
                    for (Subscriber sub : subs) {
                        sub.verifier.finish(server.reference(), events, events + 1L);
                        if (!sub.verifier.problems.isEmpty()) {
                            failed++;
                        }
                        if (!faulty && sub.kind.name().startsWith("RECONNECT")) {
                            check("mini server, " + sub.kind + " subscriber reconnected once", sub.reconnects == 1);
                        }
                        if (!faulty && sub.kind == Kind.RECONNECT_CLOSE) {
                            check("mini server, frames sent after the client's close are ignored ("
                                    + sub.ignoredAfterRetire + ")", sub.ignoredAfterRetire > 0);
                        }
                        if (!faulty) {
                            check("mini server, " + sub.kind + " subscriber (" + sub.verifier.seqs.size() + " events, "
                                    + sub.verifier.replayed + " replayed, " + sub.reconnects + " reconnects)",
                                    sub.verifier, server.reference(), events, events + 1L, true);
                        }
                    }
                    if (faulty) {
                        check("mini server leaving out one event is caught on every subscriber (" + failed
                                + " of " + subs.size() + " failed)", failed == subs.size());
                    }
                }
            }
        }

        static Verifier feed(String run, List<String> frames) {
            Verifier v = new Verifier(run);
            long now = nowMicros();
            for (String f : frames) {
                v.accept(f, now);
            }
            return v;
        }

        static void check(String what, Verifier v, long[] ref, int events, boolean pass) {
            check(what, v, ref, events, 10, pass);
        }

        static void check(String what, Verifier v, long[] ref, int events, long completeSeq, boolean pass) {
            v.finish(ref, events, completeSeq);
            boolean passed = v.problems.isEmpty();
            if (passed != pass) {
                failures++;
                System.out.println("FAIL " + what + ": problems " + v.problems);
            } else {
                System.out.println("ok   " + what + (pass ? "" : " " + v.problems));
            }
        }

        static void check(String what, boolean cond) {
            if (!cond) {
                failures++;
                System.out.println("FAIL " + what);
            } else {
                System.out.println("ok   " + what);
            }
        }

        static String pong(long seq) {
            return "{\"type\":\"pong\",\"seq\":" + seq + "}";
        }

        static String subscribed(String run, long seq, long after) {
            return "{\"type\":\"subscribed\",\"seq\":" + seq + ",\"runId\":\"" + run + "\",\"afterSeq\":" + after + "}";
        }

        static String ev(String run, long seq, long n) {
            long t = nowMicros() - 1000;
            return "{\"type\":\"event\",\"seq\":" + seq + ",\"runId\":\"" + run + "\",\"sessionId\":null,\"event\":{\"seq\":"
                    + seq + ",\"runId\":\"" + run + "\",\"provider\":\"claude\",\"kind\":\"text-delta\",\"at\":\"x\","
                    + "\"data\":{\"text\":\"n=" + n + " t=" + t + "\"},\"native\":\"{\\\"text\\\":\\\"n=" + n + " t=" + t
                    + "\\\"}\"}}";
        }

        static String complete(String run, long seq, String status) {
            return "{\"type\":\"complete\",\"seq\":" + seq + ",\"runId\":\"" + run + "\",\"status\":\"" + status
                    + "\",\"exitCode\":0,\"usage\":{\"input\":1,\"output\":4}}";
        }
    }

    /**
     * A minimal WebSocket server (RFC 6455, text frames only) for the selftest: it serves one synthetic run whose
     * event seqs are 1, 2, 3 ... and whose complete frame is seq events + 1, produced at RATE per second,
     * by the frozen /ws frame shapes: pong, subscribed (with the latest seq), event frames after afterSeq (replay,
     * then live), complete. When faulty, no connection gets the event of n = events / 2.
     */
    static final class MiniWsServer implements AutoCloseable {
        final String runId;
        final int events;
        final boolean faulty;
        final ServerSocket socket;
        final List<long[]> log = new ArrayList<>(); // {seq, n, stampMicros}
        volatile boolean done;
        final java.util.concurrent.atomic.AtomicInteger connections = new java.util.concurrent.atomic.AtomicInteger();
        final List<java.net.Socket> open = new CopyOnWriteArrayList<>();

        MiniWsServer(String runId, int events, int rate, boolean faulty) throws IOException {
            this.runId = runId;
            this.events = events;
            this.faulty = faulty;
            this.socket = new ServerSocket(0, 50, java.net.InetAddress.getLoopbackAddress());
            Thread.ofPlatform().daemon().start(() -> {
                long start = System.nanoTime();
                for (int n = 0; n < events; n++) {
                    long due = start + (long) (n * 1e9 / rate);
                    long wait = due - System.nanoTime();
                    if (wait > 0) {
                        java.util.concurrent.locks.LockSupport.parkNanos(wait);
                    }
                    synchronized (log) {
                        log.add(new long[] {n + 1L, n, nowMicros()});
                        log.notifyAll();
                    }
                }
                synchronized (log) {
                    done = true;
                    log.notifyAll();
                }
            });
            Thread.ofPlatform().daemon().start(this::accept);
        }

        String uri() {
            return "ws://127.0.0.1:" + socket.getLocalPort() + "/ws";
        }

        long[] reference() {
            long[] r = new long[events];
            for (int n = 0; n < events; n++) {
                r[n] = n + 1L;
            }
            return r;
        }

        void accept() {
            while (!socket.isClosed()) {
                try {
                    java.net.Socket c = socket.accept();
                    open.add(c);
                    int number = connections.incrementAndGet();
                    Thread.ofPlatform().daemon().start(() -> serve(c, number));
                } catch (IOException e) {
                    return;
                }
            }
        }

        void serve(java.net.Socket c, int number) {
            try (c) {
                java.io.InputStream in = c.getInputStream();
                java.io.OutputStream out = c.getOutputStream();
                String key = null;
                StringBuilder line = new StringBuilder();
                while (true) {
                    int b = in.read();
                    if (b < 0) {
                        return;
                    }
                    if (b == '\n') {
                        String l = line.toString().strip();
                        line.setLength(0);
                        if (l.isEmpty()) {
                            break;
                        }
                        if (l.toLowerCase().startsWith("sec-websocket-key:")) {
                            key = l.substring(l.indexOf(':') + 1).strip();
                        }
                    } else {
                        line.append((char) b);
                    }
                }
                String accept = java.util.Base64.getEncoder().encodeToString(java.security.MessageDigest
                        .getInstance("SHA-1").digest((key + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11")
                                .getBytes(StandardCharsets.US_ASCII)));
                out.write(("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                        + "Sec-WebSocket-Accept: " + accept + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
                out.flush();
                while (true) {
                    int b0 = in.read();
                    int b1 = in.read();
                    if (b0 < 0 || b1 < 0) {
                        return;
                    }
                    long len = b1 & 0x7f;
                    if (len == 126) {
                        len = (in.read() << 8) | in.read();
                    } else if (len == 127) {
                        len = 0;
                        for (int k = 0; k < 8; k++) {
                            len = (len << 8) | in.read();
                        }
                    }
                    byte[] mask = in.readNBytes(4);
                    byte[] payload = in.readNBytes((int) len);
                    for (int k = 0; k < payload.length; k++) {
                        payload[k] ^= mask[k % 4];
                    }
                    int opcode = b0 & 0x0f;
                    if (opcode == 8) {
                        Thread.sleep(200); // a busy server: frames already queued still go out before the close
                        frame(out, 0x88, new byte[] {0x03, (byte) 0xe8});
                        return;
                    }
                    if (opcode != 1) {
                        continue;
                    }
                    Map<?, ?> m = (Map<?, ?>) Json.parse(new String(payload, StandardCharsets.UTF_8));
                    if ("ping".equals(m.get("type"))) {
                        text(out, "{\"type\":\"pong\",\"seq\":0}");
                    } else if ("subscribe".equals(m.get("type"))) {
                        long after = ((Number) m.get("afterSeq")).longValue();
                        Thread.ofPlatform().daemon().start(() -> stream(out, after, number));
                    }
                }
            } catch (Exception e) {
                // the client went away
            }
        }

        void stream(java.io.OutputStream out, long after, int number) {
            try {
                int next;
                long latest;
                synchronized (log) {
                    latest = log.isEmpty() ? 0 : log.get(log.size() - 1)[0];
                    next = (int) after;
                }
                text(out, "{\"type\":\"subscribed\",\"seq\":" + latest + ",\"runId\":\"" + runId + "\",\"afterSeq\":"
                        + after + "}");
                while (true) {
                    long[] e;
                    synchronized (log) {
                        while (next >= log.size() && !done) {
                            log.wait();
                        }
                        if (next >= log.size()) {
                            break;
                        }
                        e = log.get(next++);
                    }
                    if (faulty && e[1] == events / 2) {
                        continue;
                    }
                    text(out, "{\"type\":\"event\",\"seq\":" + e[0] + ",\"runId\":\"" + runId + "\",\"sessionId\":null,"
                            + "\"event\":{\"seq\":" + e[0] + ",\"kind\":\"text-delta\",\"data\":{\"text\":\"n=" + e[1]
                            + " t=" + e[2] + "\"}}}");
                }
                text(out, "{\"type\":\"complete\",\"seq\":" + (events + 1L) + ",\"runId\":\"" + runId
                        + "\",\"status\":\"completed\",\"exitCode\":0,\"usage\":null}");
            } catch (Exception e) {
                // the client went away
            }
        }

        static void text(java.io.OutputStream out, String s) throws IOException {
            frame(out, 0x81, s.getBytes(StandardCharsets.UTF_8));
        }

        static void frame(java.io.OutputStream out, int b0, byte[] p) throws IOException {
            synchronized (out) {
                out.write(b0);
                if (p.length < 126) {
                    out.write(p.length);
                } else if (p.length < 65536) {
                    out.write(126);
                    out.write(p.length >> 8);
                    out.write(p.length & 0xff);
                } else {
                    out.write(127);
                    for (int k = 7; k >= 0; k--) {
                        out.write((int) ((long) p.length >> (8 * k)) & 0xff);
                    }
                }
                out.write(p);
                out.flush();
            }
        }

        @Override
        public void close() throws IOException {
            socket.close();
            for (java.net.Socket c : open) {
                c.close();
            }
        }
    }
}
