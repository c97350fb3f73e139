import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.agentworkspace.api.provider.AgentProviders;
import org.agentworkspace.core.agent.AgentRuns;
import org.agentworkspace.core.agent.AgentSettings;
import org.agentworkspace.core.agent.RunSummary;
import org.agentworkspace.core.runs.RunCursor;
import org.agentworkspace.core.runs.RunEngine;
import org.agentworkspace.core.runs.RunEntry;
import org.agentworkspace.core.runs.RunPage;
import org.agentworkspace.core.runs.RunRecord;
import org.agentworkspace.core.runs.RunSettings;
import org.agentworkspace.core.store.Store;

/**
 * A page of 200 runs out of one user's 5,000 (issue 19): what {@code GET /api/automation/runs?limit=200} does now
 * (one SQL page on the typed owner column, then each run's stored outcome plus its newest 100 log lines read back
 * from the end of its log) against what it did before (each listed run's whole log replayed to sum it up).
 *
 * The store gets R runs of one account (and one run of a second account after every fifth, so the owner filter has
 * to work), each with E log entries: per 10 entries 6 native lines, 3 parsed text deltas and one usage event, the
 * session event first and the completed event last, and the outcome columns as the log writer stores them. Rows
 * are written with plain JDBC (the shape the engine writes) so that 10,000 runs need no 10,000 processes.
 *
 * It counts the entries each way reads (the engine's cursor for the replay; the tail query returns at most 101) and
 * times, after 3 warm-ups, the median and worst of 15 rounds of: page 1, a page deep in the list (via the cursor),
 * and the replay of the same 200 runs.
 *
 * Usage (see run-page.sh): java -cp <workspace-core + deps> bench/runs/RunPageBench.java [runs=5000] [entries=2000]
 */
public class RunPageBench {
    public static void main(String[] args) throws Exception {
        int runs = args.length > 0 ? Integer.parseInt(args[0]) : 5000;
        int entries = args.length > 1 ? Integer.parseInt(args[1]) : 500;
        Path tmp = Files.createTempDirectory("aw-run-page-bench");
        String url = "jdbc:sqlite:" + tmp.resolve("bench.db");
        try (Store store = Store.open(url);
             RunEngine engine = RunEngine.open(store, RunSettings.defaults(), Clock.systemUTC())) {
            long t0 = System.nanoTime();
            fill(store, runs, entries);
            System.out.printf("filled %,d runs of account 7 and %,d of account 8, %,d entries each, in %d ms%n",
                    runs, runs / 5, entries, (System.nanoTime() - t0) / 1_000_000);
            AgentRuns agentRuns = AgentRuns.create(engine, AgentProviders.of(List.of()), tmp, Map.of(),
                    AgentSettings.defaults());
            RunPage.Query first = RunPage.Query.newest(200).visibleTo(7L);
            // a cursor up to 20 pages deep (fewer when the list is shorter; the last full page then)
            String deepCursor = engine.page(first).nextCursor();
            int deepPage = 2;
            while (deepPage < 21) {
                RunPage next = engine.page(first.after(deepCursor));
                if (next.nextCursor() == null || engine.page(first.after(next.nextCursor())).runs().size() < 200) {
                    break;
                }
                deepCursor = next.nextCursor();
                deepPage++;
            }
            RunPage.Query deepQuery = first.after(deepCursor);
            List<RunRecord> replayed = engine.page(first).runs();

            long[] pageFirst = new long[15];
            long[] pageDeep = new long[15];
            long[] replay = new long[15];
            long tailEntries = 0;
            long replayEntries = 0;
            for (int round = -3; round < 15; round++) {
                long a = System.nanoTime();
                int n1 = summarise(agentRuns, engine.page(first));
                long b = System.nanoTime();
                int n2 = summarise(agentRuns, engine.page(deepQuery));
                long c = System.nanoTime();
                long read = 0;
                for (RunRecord r : replayed) {
                    read += replayLog(engine, r.info().id());
                }
                long d = System.nanoTime();
                if (n1 != 200 || n2 == 0) {
                    throw new AssertionError("pages of " + n1 + " and " + n2);
                }
                if (round >= 0) {
                    pageFirst[round] = b - a;
                    pageDeep[round] = c - b;
                    replay[round] = d - c;
                    replayEntries = read;
                }
            }
            for (RunRecord r : engine.page(first).runs()) {
                tailEntries += engine.tail(r.info().id(), AgentRuns.MAX_LOG_LINES + 1).lines().size();
            }
            System.out.printf("entries read for one page of 200: %,d (stored outcome + log tails) vs %,d (replay)%n",
                    tailEntries, replayEntries);
            report("page 1 of 200 (SQL page + stored outcome + tails)", pageFirst);
            report("page " + deepPage + " of 200 (cursor)", pageDeep);
            report("the same 200 runs replayed (before)", replay);
        }
    }

    private static int summarise(AgentRuns agentRuns, RunPage page) {
        int n = 0;
        for (RunRecord r : page.runs()) {
            RunSummary s = agentRuns.summary(r);
            if (s.usage() == null || s.sessionId() == null || s.logs().size() != AgentRuns.MAX_LOG_LINES) {
                throw new AssertionError("incomplete summary of " + r.info().id() + ": " + s);
            }
            n++;
        }
        return n;
    }

    private static long replayLog(RunEngine engine, String id) throws InterruptedException {
        long n = 0;
        try (RunCursor c = engine.follow(id, 0)) {
            for (Optional<RunEntry> e = c.poll(Duration.ZERO); e.isPresent(); e = c.poll(Duration.ZERO)) {
                n++;
            }
        }
        return n;
    }

    private static void report(String what, long[] nanos) {
        long[] s = nanos.clone();
        Arrays.sort(s);
        System.out.printf("%-52s median %7.1f ms   worst %7.1f ms%n", what, s[s.length / 2] / 1e6,
                s[s.length - 1] / 1e6);
    }

    private static void fill(Store store, int runs, int entries) {
        store.write(h -> {
            Connection c = h.getConnection();
            try (PreparedStatement run = c.prepareStatement("INSERT INTO runs (id, provider, status, created_at, "
                    + "started_at, finished_at, exit_code, metadata, account_id, project, origin, session_id, "
                    + "outcome_known, success, result_text, usage_input, usage_output, usage_cache_read, "
                    + "usage_cache_write, cost, reported_session_id) VALUES (?, 'claude', 'succeeded', ?, ?, ?, 0, ?, "
                    + "?, 'bench', 'automation', ?, 1, 1, ?, 1000, 200, 0, 0, 0.01, ?)");
                 PreparedStatement ev = c.prepareStatement("INSERT INTO run_events (run_id, seq, kind, payload, "
                         + "created_at) VALUES (?, ?, ?, ?, ?)")) {
                long at = 1_700_000_000_000L;
                for (int i = 0; i < runs + runs / 5; i++) {
                    String id = String.format("run_%08d", i);
                    long account = i % 6 == 5 ? 8 : 7;
                    String session = "s-" + i;
                    run.setString(1, id);
                    run.setLong(2, at + i);
                    run.setLong(3, at + i);
                    run.setLong(4, at + i + 1);
                    run.setString(5, "{\"userId\":" + account + ",\"projectId\":\"bench\",\"route\":\"automation\"}");
                    run.setLong(6, account);
                    run.setString(7, session);
                    run.setString(8, "done " + i);
                    run.setString(9, session);
                    run.executeUpdate();
                    for (int seq = 1; seq <= entries; seq++) {
                        String kind;
                        String payload;
                        if (seq == 1) {
                            kind = "status";
                            payload = "{\"status\":\"queued\"}";
                        } else if (seq == 2) {
                            kind = "event";
                            payload = "{\"kind\":\"session\",\"data\":{\"sessionId\":\"" + session + "\"}}";
                        } else if (seq == entries) {
                            kind = "status";
                            payload = "{\"status\":\"succeeded\",\"exitCode\":0}";
                        } else if (seq == entries - 1) {
                            kind = "event";
                            payload = "{\"kind\":\"completed\",\"data\":{\"success\":true,\"sessionId\":\"" + session
                                    + "\",\"resultText\":\"done " + i + "\"}}";
                        } else if (seq % 10 < 6) {
                            kind = "native";
                            payload = "{\"line\":\"{\\\"type\\\":\\\"stream_event\\\",\\\"n\\\":" + seq
                                    + ",\\\"text\\\":\\\"some streamed text of a typical length\\\"}\"}";
                        } else if (seq % 10 < 9) {
                            kind = "event";
                            payload = "{\"kind\":\"text-delta\",\"data\":{\"text\":\"some streamed text\"}}";
                        } else {
                            kind = "event";
                            payload = "{\"kind\":\"usage\",\"data\":{\"input\":1000,\"output\":200,\"cacheRead\":0,"
                                    + "\"cacheWrite\":0,\"cost\":0.01}}";
                        }
                        ev.setString(1, id);
                        ev.setLong(2, seq);
                        ev.setString(3, kind);
                        ev.setString(4, payload);
                        ev.setLong(5, at + i);
                        ev.addBatch();
                    }
                    ev.executeBatch();
                }
            } catch (java.sql.SQLException e) {
                throw new IllegalStateException(e);
            }
            return null;
        });
    }
}
