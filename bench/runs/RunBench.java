import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import org.agentworkspace.core.runs.EntryKind;
import org.agentworkspace.core.runs.LineParser;
import org.agentworkspace.core.runs.ProcessSpec;
import org.agentworkspace.core.runs.RunCursor;
import org.agentworkspace.core.runs.RunEngine;
import org.agentworkspace.core.runs.RunEntry;
import org.agentworkspace.core.runs.RunHandle;
import org.agentworkspace.core.runs.RunRequest;
import org.agentworkspace.core.runs.RunSettings;
import org.agentworkspace.core.runs.RunStats;
import org.agentworkspace.core.runs.RunStatus;
import org.agentworkspace.core.store.Store;

/**
 * Run engine benchmark: R concurrent runs of bench/runs/emit.pl, each printing N timestamped JSON lines, with one
 * follower per run reading the log from seq 0 while it is written. Checks that every follower got every entry once
 * and in order; reports the latency from the child's timestamp (taken just before it writes the line) to the
 * follower receiving the native entry, p50/p99/max; throughput; heap and RSS sampled every 50 ms.
 *
 * Usage (see run.sh): java -cp <workspace-core + deps> bench/runs/RunBench.java
 *     [runs=20] [events=10000] [rate=0 (lines/s per run, 0 = flat out)] [lingerMs=0] [jdbcUrl | sqlite]
 *     [batch=the default writeBatch]
 * Not part of the test run.
 */
public class RunBench {
    public static void main(String[] args) throws Exception {
        int runs = args.length > 0 ? Integer.parseInt(args[0]) : 20;
        int events = args.length > 1 ? Integer.parseInt(args[1]) : 10_000;
        int rate = args.length > 2 ? Integer.parseInt(args[2]) : 0;
        int lingerMs = args.length > 3 ? Integer.parseInt(args[3]) : 0;
        Path tmp = Files.createTempDirectory("aw-run-bench");
        String url = args.length > 4 && !args[4].equals("sqlite") ? args[4] : "jdbc:sqlite:" + tmp.resolve("bench.db");
        int batch = args.length > 5 ? Integer.parseInt(args[5]) : RunSettings.defaults().writeBatch();
        Path emitter = Path.of("bench/runs/emit.pl").toAbsolutePath();

        RunSettings settings = RunSettings.defaults().withLimits(runs, Map.of())
                .withWriting(batch, Duration.ofMillis(lingerMs));
        Sampler sampler = new Sampler();
        try (Store store = Store.open(url); RunEngine engine = RunEngine.open(store, settings, Clock.systemUTC())) {
            sampler.start();
            long t0 = System.nanoTime();
            List<RunHandle> handles = new ArrayList<>();
            for (int i = 0; i < runs; i++) {
                ProcessSpec spec = ProcessSpec.of(List.of("/usr/bin/perl", emitter.toString(),
                        String.valueOf(events), String.valueOf(rate)), Map.of("PATH", "/usr/bin:/bin"), tmp);
                handles.add(engine.start(RunRequest.of("bench", spec, line -> List.of(line))));
            }
            List<Future<long[]>> followers = new ArrayList<>();
            try (ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor()) {
                for (RunHandle h : handles) {
                    followers.add(pool.submit(() -> follow(engine, h.id(), events)));
                }
                long[] all = new long[runs * events];
                int k = 0;
                for (Future<long[]> f : followers) {
                    long[] lat = f.get();
                    System.arraycopy(lat, 0, all, k, lat.length);
                    k += lat.length;
                }
                long wall = System.nanoTime() - t0;
                sampler.stop();
                for (RunHandle h : handles) {
                    if (h.awaitCompletion(Duration.ofMinutes(1)).orElseThrow().status() != RunStatus.SUCCEEDED) {
                        throw new IllegalStateException("run " + h.id() + " did not succeed");
                    }
                }
                Arrays.sort(all);
                long entries = store.read(h -> h.createQuery("SELECT COUNT(*) FROM run_events")
                        .mapTo(Long.class).one());
                System.out.printf("store: %s%n", url.startsWith("jdbc:sqlite:") ? "SQLite (temp file)" : url);
                System.out.printf("runs %d x %d lines, rate %s, writer linger %d ms, batch %d%n", runs, events,
                        rate == 0 ? "flat out" : rate + " lines/s per run", lingerMs, batch);
                System.out.printf("delivered in order to every follower: %d of %d lines; %d log entries stored%n",
                        all.length, runs * events, entries);
                System.out.printf("wall %.2f s, %.0f stored entries/s%n", wall / 1e9, entries / (wall / 1e9));
                System.out.printf("latency child line -> follower (ms): p50 %.2f  p90 %.2f  p99 %.2f  max %.2f%n",
                        pct(all, 50) / 1e3, pct(all, 90) / 1e3, pct(all, 99) / 1e3, all[all.length - 1] / 1e3);
                RunStats stats = engine.stats();
                System.out.printf("writer: %d transactions, %.0f entries each on average, busy %.2f s of the wall%n",
                        stats.transactions(), (double) stats.entriesWritten() / stats.transactions(),
                        stats.writerBusy().toNanos() / 1e9);
                System.out.printf("heap used max %d MiB (avg %d MiB); RSS max %d MiB (start %d MiB)%n",
                        sampler.heapMax.get() >> 20, sampler.heapAvg() >> 20, sampler.rssMax.get() >> 10,
                        sampler.rssStart >> 10);
            }
        } finally {
            try (var s = Files.walk(tmp)) {
                s.sorted((a, b) -> b.compareTo(a)).forEach(p -> p.toFile().delete());
            }
        }
    }

    /** Follows one run; returns the latency of each native line in microseconds. Fails on any gap or reorder. */
    static long[] follow(RunEngine engine, String runId, int events) throws InterruptedException {
        long[] lat = new long[events];
        int next = 0;
        long seq = 0;
        try (RunCursor c = engine.follow(runId, 0)) {
            for (Optional<RunEntry> o = c.next(); o.isPresent(); o = c.next()) {
                RunEntry e = o.get();
                long now = ChronoUnit.MICROS.between(Instant.EPOCH, Instant.now());
                if (e.seq() != ++seq) {
                    throw new IllegalStateException(runId + ": seq " + e.seq() + " after " + (seq - 1));
                }
                if (e.kind() != EntryKind.NATIVE) {
                    continue;
                }
                String p = e.payload();
                int n = Integer.parseInt(field(p, "\\\"n\\\":"));
                long t = Long.parseLong(field(p, "\\\"t\\\":"));
                if (n != next) {
                    throw new IllegalStateException(runId + ": line " + n + " where " + next + " was due");
                }
                lat[next++] = now - t;
            }
        }
        if (next != events) {
            throw new IllegalStateException(runId + ": " + next + " lines of " + events);
        }
        return lat;
    }

    private static String field(String payload, String key) {
        int i = payload.indexOf(key) + key.length();
        int j = i;
        while (j < payload.length() && Character.isDigit(payload.charAt(j))) {
            j++;
        }
        return payload.substring(i, j);
    }

    private static double pct(long[] sorted, int p) {
        return sorted[Math.min(sorted.length - 1, (int) Math.ceil(sorted.length * p / 100.0) - 1)];
    }

    /** Heap used (MemoryMXBean) and RSS (/proc/self/status VmRSS, KiB) every 50 ms. */
    static final class Sampler {
        final AtomicLong heapMax = new AtomicLong();
        final AtomicLong heapSum = new AtomicLong();
        final AtomicLong samples = new AtomicLong();
        final AtomicLong rssMax = new AtomicLong();
        final AtomicBoolean running = new AtomicBoolean(true);
        long rssStart;
        Thread thread;

        void start() {
            rssStart = rss();
            rssMax.set(rssStart);
            thread = Thread.ofPlatform().daemon().start(() -> {
                while (running.get()) {
                    long heap = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
                    heapMax.accumulateAndGet(heap, Math::max);
                    heapSum.addAndGet(heap);
                    samples.incrementAndGet();
                    rssMax.accumulateAndGet(rss(), Math::max);
                    try {
                        Thread.sleep(50);
                    } catch (InterruptedException e) {
                        return;
                    }
                }
            });
        }

        void stop() throws InterruptedException {
            running.set(false);
            thread.join();
        }

        long heapAvg() {
            return samples.get() == 0 ? 0 : heapSum.get() / samples.get();
        }

        static long rss() {
            try {
                for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
                    if (line.startsWith("VmRSS:")) {
                        return Long.parseLong(line.replaceAll("[^0-9]", ""));
                    }
                }
            } catch (IOException e) {
                // not Linux
            }
            return 0;
        }
    }
}
