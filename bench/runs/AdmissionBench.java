import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import org.agentworkspace.core.runs.LineParser;
import org.agentworkspace.core.runs.ProcessSpec;
import org.agentworkspace.core.runs.RunEngine;
import org.agentworkspace.core.runs.RunRequest;
import org.agentworkspace.core.runs.RunSettings;
import org.agentworkspace.core.runs.RunStatus;
import org.agentworkspace.core.store.Store;

/**
 * What the shared run caps (docs/scale-out.md "Shared limits") cost a run's start on PostgreSQL. On a throwaway
 * database of the server named by the admin URL:
 *
 * 1. the store transaction a start pays, alone, as before (insert the run row and its first entry) and with the
 *    admission statements added to it (the advisory lock, the count of the live nodes' slots, the account charge,
 *    the claim), N of each, interleaved; with 1,000 ended runs in the table and 2 running;
 * 2. RunEngine.start() end to end, a run that gets a slot at once (its process: /bin/true), N sequentially;
 * 3. starts when every slot is taken (they wait; each start also tries to admit the waiting runs): two nodes, four
 *    threads each, N starts in all, their rate.
 *
 * Usage (see admission.sh): java -cp <workspace-core + deps> bench/runs/AdmissionBench.java [adminJdbcUrl] [n=300]
 * Not part of the test run.
 */
public class AdmissionBench {
    static final long LOCK = 0x6177_5f63_6170_73L;
    static final String NOW = "CAST(EXTRACT(EPOCH FROM clock_timestamp()) * 1000 AS BIGINT)";

    public static void main(String[] args) throws Exception {
        String admin = args.length > 0 ? args[0] : "jdbc:postgresql://127.0.0.1:5432/postgres?user=postgres";
        int n = args.length > 1 ? Integer.parseInt(args[1]) : 300;
        String name = "aw_bench_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
        try (Connection c = DriverManager.getConnection(admin); Statement s = c.createStatement()) {
            s.execute("CREATE DATABASE " + name);
        }
        String url = admin.replaceFirst("/[^/?]+(\\?|$)", "/" + name + "$1");
        try {
            run(url, n);
        } finally {
            try (Connection c = DriverManager.getConnection(admin); Statement s = c.createStatement()) {
                s.execute("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)");
            }
        }
    }

    static void run(String url, int n) throws Exception {
        System.out.println("load average at start: " + java.nio.file.Files.readString(Path.of("/proc/loadavg")).trim());
        try (Store store = Store.open(url)) {
            transactions(store, n);
        }
        try (Store store = Store.open(url)) {
            engineStarts(store, n);
        }
        try (Store a = Store.open(url); Store b = Store.open(url)) {
            waitingStarts(a, b, n);
        }
        System.out.println("load average at end: " + java.nio.file.Files.readString(Path.of("/proc/loadavg")).trim());
    }

    static void transactions(Store store, int n) {
        store.write(h -> {
            h.execute("INSERT INTO nodes (id, host, pid, started_at, heartbeat_at) VALUES ('node_bench', 'h', 1, 1, "
                    + NOW + ")");
            for (int i = 0; i < 1000; i++) {
                h.execute("INSERT INTO runs (id, provider, status, created_at, metadata, node_id) VALUES (?, "
                        + "'claude', 'succeeded', 1, '{}', 'node_bench')", "run_ended" + i);
            }
            for (int i = 0; i < 2; i++) {
                h.execute("INSERT INTO runs (id, provider, status, created_at, metadata, node_id, admitted_at, "
                        + "charge_account) VALUES (?, 'claude', 'running', 1, '{}', 'node_bench', 1, '7')",
                        "run_live" + i);
            }
            return null;
        });
        List<Long> plain = new ArrayList<>();
        List<Long> admitted = new ArrayList<>();
        for (int i = 0; i < n + 50; i++) {
            for (boolean withAdmission : new boolean[] {false, true}) {
                String id = "run_b" + withAdmission + i;
                long t0 = System.nanoTime();
                store.write(h -> {
                    h.createUpdate("INSERT INTO runs (id, provider, status, created_at, metadata, account_id, project, "
                                    + "task_id, origin, session_id, outcome_known, node_id) VALUES (:id, 'claude', "
                                    + "'queued', 1, '{}', 7, NULL, NULL, 'bench', NULL, 1, 'node_bench')")
                            .bind("id", id).execute();
                    h.createUpdate("INSERT INTO run_events (run_id, seq, kind, payload, created_at) VALUES (:id, 1, "
                            + "'status', '{\"status\":\"queued\"}', 1)").bind("id", id).execute();
                    if (withAdmission) {
                        h.execute("SELECT pg_advisory_xact_lock(" + LOCK + ")");
                        h.createQuery("SELECT r.provider, r.charge_account, CASE WHEN r.admitted_at IS NOT NULL OR "
                                        + "r.status = 'running' THEN 1 ELSE 0 END FROM runs r WHERE r.status IN "
                                        + "('queued', 'running') AND r.id <> :except AND (r.admitted_at IS NOT NULL OR "
                                        + "r.status = 'running' OR r.charge_account = :account) AND (r.node_id = :me OR "
                                        + "EXISTS (SELECT 1 FROM nodes n WHERE n.id = r.node_id AND n.heartbeat_at >= "
                                        + NOW + " - :lease))")
                                .bind("except", id).bind("account", "7").bind("me", "node_bench")
                                .bind("lease", 30_000).mapToMap().list();
                        h.createUpdate("UPDATE runs SET charge_account = '7', admitted_at = CASE WHEN :starts THEN "
                                + NOW + " END WHERE id = :id").bind("starts", true).bind("id", id).execute();
                    }
                    return null;
                });
                long us = (System.nanoTime() - t0) / 1000;
                // the ended run: it no longer counts (as a real run's terminal status would)
                store.write(h -> h.execute("UPDATE runs SET status = 'succeeded' WHERE id = ?", id));
                if (i >= 50) {
                    (withAdmission ? admitted : plain).add(us);
                }
            }
        }
        System.out.println("1. the start's store transaction, " + n + " each (µs): as before " + summary(plain)
                + "; with the admission statements " + summary(admitted));
    }

    static RunRequest trueRun(String account) {
        ProcessSpec spec = ProcessSpec.of(List.of("/bin/true"), Map.of("PATH", "/usr/bin:/bin"), Path.of("/tmp"));
        return new RunRequest("claude", spec, LineParser.none(), "{}", account);
    }

    static void engineStarts(Store store, int n) throws Exception {
        RunSettings s = RunSettings.defaults().withLimits(1000, Map.of()).withAccountLimits(1000, 1000);
        try (RunEngine e = RunEngine.open(store, s, Clock.systemUTC())) {
            List<Long> us = new ArrayList<>();
            List<String> ids = new ArrayList<>();
            for (int i = 0; i < n + 20; i++) {
                long t0 = System.nanoTime();
                String id = e.start(trueRun("acct" + (i % 10))).id();
                long took = (System.nanoTime() - t0) / 1000;
                if (i >= 20) {
                    us.add(took);
                }
                ids.add(id);
                // one at a time: what the next start sees is an idle node
                e.awaitCompletion(id, Duration.ofSeconds(30)).orElseThrow();
            }
            for (String id : ids) {
                if (e.find(id).orElseThrow().status() != RunStatus.SUCCEEDED) {
                    throw new AssertionError(id + " " + e.find(id));
                }
            }
            System.out.println("2. RunEngine.start() of a run that starts at once, " + n + " sequential (µs): "
                    + summary(us));
        }
    }

    static void waitingStarts(Store sa, Store sb, int n) throws Exception {
        RunSettings s = RunSettings.defaults().withLimits(1, Map.of()).withMaxQueued(n).withAccountLimits(n, 1);
        try (RunEngine a = RunEngine.open(sa, s, Clock.systemUTC()); RunEngine b = RunEngine.open(sb, s,
                Clock.systemUTC())) {
            ProcessSpec sleeper = ProcessSpec.of(List.of("/bin/sleep", "600"), Map.of("PATH", "/usr/bin:/bin"),
                    Path.of("/tmp"));
            String holder = a.start(new RunRequest("claude", sleeper, LineParser.none(), "{}", null)).id();
            while (a.find(holder).orElseThrow().status() != RunStatus.RUNNING) {
                Thread.sleep(5);
            }
            ExecutorService pool = Executors.newFixedThreadPool(8);
            List<Long> us = Collections.synchronizedList(new ArrayList<>());
            List<java.util.concurrent.Callable<Void>> jobs = new ArrayList<>();
            for (int t = 0; t < 8; t++) {
                RunEngine e = t % 2 == 0 ? a : b;
                int account = t;
                jobs.add(() -> {
                    for (int i = 0; i < n / 8; i++) {
                        long t0 = System.nanoTime();
                        e.start(trueRun("acct" + account));
                        us.add((System.nanoTime() - t0) / 1000);
                    }
                    return null;
                });
            }
            long t0 = System.nanoTime();
            for (Future<Void> f : pool.invokeAll(jobs)) {
                f.get();
            }
            double secs = (System.nanoTime() - t0) / 1e9;
            pool.shutdown();
            System.out.printf("3. starts that wait (every slot taken), two nodes x four threads, %d in %.2f s: "
                    + "%.0f starts/s; each (µs): %s%n", us.size(), secs, us.size() / secs, summary(us));
            a.cancel(holder);
        }
    }

    static String summary(List<Long> values) {
        List<Long> v = new ArrayList<>(values);
        Collections.sort(v);
        return "median " + v.get(v.size() / 2) + ", p90 " + v.get(v.size() * 9 / 10) + ", max " + v.getLast();
    }
}
