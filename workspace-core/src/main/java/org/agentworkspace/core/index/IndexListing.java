package org.agentworkspace.core.index;

import java.io.IOException;
import java.lang.System.Logger.Level;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicLong;

import org.agentworkspace.core.history.HistoryReader;
import org.agentworkspace.core.history.HistoryReaders;
import org.agentworkspace.core.history.SessionFile;
import org.agentworkspace.core.store.Store;

import static org.agentworkspace.core.index.IndexState.key;

import org.agentworkspace.core.index.IndexState.Known;

/** Phase 1 of the {@link HistoryIndex}: lists every provider's sessions, storing new ones after a peek at their heads. */
final class IndexListing {
    private static final System.Logger LOG = System.getLogger(HistoryIndex.class.getName());
    private static final int INSERT_BATCH = 1_000;
    private final IndexState st;
    private final Store store;
    private final List<Path> homes;
    private final Clock clock;
    private final HistoryReaders readers;
    private final Map<String, Known> known;
    private final Map<String, String> projectNames;
    private final AtomicLong corruptLines;
    private final AtomicLong version;
    private final Instant startedAt;
    private final IndexChanges changes;
    private final ProjectCatalog projects;
    private final Runnable startBackground;

    IndexListing(IndexState st, IndexChanges changes, ProjectCatalog projects, Runnable startBackground) {
        this.st = st;
        this.changes = changes;
        this.projects = projects;
        this.startBackground = startBackground;
        this.store = st.store;
        this.homes = st.homes;
        this.clock = st.clock;
        this.readers = st.readers;
        this.known = st.known;
        this.projectNames = st.projectNames;
        this.corruptLines = st.corruptLines;
        this.version = st.version;
        this.startedAt = st.startedAt;
    }

    void listPhase() {
        try {
            // a restart: the project list is in the store already. Prepared first, before the listing below takes
            // the CPU, so the first clients get it at once; the listing changes it only where the disk changed
            projects.historyProjects();
            long t0 = System.nanoTime();
            loadKnown();
            long tLoad = System.nanoTime() - t0;
            long tDiscover = 0;
            long tPeek = 0;
            long tInsert = 0;
            List<SessionFile> toRead = new ArrayList<>();
            Set<String> seen = new HashSet<>();
            AtomicLong insertNanos = new AtomicLong();
            List<java.util.concurrent.Future<?>> inserts = new ArrayList<>();
            java.util.concurrent.ExecutorService inserter = Executors.newSingleThreadExecutor(r -> Thread.ofPlatform()
                    .daemon().name("history-index-insert").unstarted(r));
            for (Path home : homes) {
                for (HistoryReader reader : readers.all()) {
                    if (st.closed) {
                        return;
                    }
                    List<SessionFile> files;
                    long d0 = System.nanoTime();
                    try {
                        files = reader.discover(home);
                        tDiscover += System.nanoTime() - d0;
                    } catch (IOException | RuntimeException e) {
                        LOG.log(Level.WARNING, "cannot list {0} history under {1}: {2}", reader.provider(), home,
                                e.toString());
                        continue;
                    }
                    List<SessionFile> fresh = new ArrayList<>();
                    for (SessionFile f : files) {
                        String k = key(f.provider(), f.sessionId());
                        if (!seen.add(k)) {
                            continue;
                        }
                        Known kn = known.get(k);
                        if (kn == null) {
                            fresh.add(f);
                        } else if (IndexChanges.needsRead(kn, f)) {
                            toRead.add(f);
                        }
                    }
                    for (int i = 0; i < fresh.size(); i += INSERT_BATCH) {
                        List<SessionFile> chunk = fresh.subList(i, Math.min(fresh.size(), i + INSERT_BATCH));
                        long p0 = System.nanoTime();
                        List<IndexChanges.Peeked> peeked = chunk.parallelStream().map(changes::peek).toList();
                        tPeek += System.nanoTime() - p0;
                        // stored by the inserter while the next chunk is peeked at
                        inserts.add(inserter.submit(() -> {
                            long i0 = System.nanoTime();
                            changes.insertSessions(peeked);
                            insertNanos.addAndGet(System.nanoTime() - i0);
                        }));
                        toRead.addAll(chunk);
                    }
                }
            }
            inserter.shutdown();
            for (java.util.concurrent.Future<?> f : inserts) {
                try {
                    f.get();
                } catch (java.util.concurrent.ExecutionException e) {
                    throw e.getCause() instanceof RuntimeException r ? r : new IllegalStateException(e.getCause());
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
            tInsert = insertNanos.get();
            changes.removeVanished(e -> seen.contains(e.getKey()), true);
            st.listedAt = clock.instant();
            // (inserts and removals moved the version already: a listing that found nothing new leaves the
            // prepared list valid)
            LOG.log(Level.INFO, "history listed in {0} ms (stored rows {1} ms, discover {2} ms, peek {3} ms, "
                    + "insert {4} ms): {5} sessions, {6} to read", Duration.between(startedAt, st.listedAt).toMillis(),
                    tLoad / 1_000_000, tDiscover / 1_000_000, tPeek / 1_000_000, tInsert / 1_000_000, known.size(),
                    toRead.size());
            runListedHooks();
            // before the writer starts (a rebuild it decides on reads the messages stored now); after the listing,
            // so that the first complete project list does not wait for it
            st.fullText();
            toRead.sort(Comparator.comparing(SessionFile::modified).reversed());
            for (SessionFile f : toRead) {
                Known kn = known.get(key(f.provider(), f.sessionId()));
                if (kn != null) {
                    changes.enqueue(kn.key(), f, false);
                }
            }
            startBackground.run();
        } catch (RuntimeException e) {
            LOG.log(Level.ERROR, "history index listing failed", e);
            st.listedAt = clock.instant();
            runListedHooks();
        }
    }

    private final Object listedHooksLock = new Object();
    private List<Runnable> listedHooks = new ArrayList<>();

    /**
     * Runs {@code work} once the listing (phase 1) has completed: on the listing thread before phase 2 starts
     * reading, so that it has the CPU to itself then (preparing the first complete project list for the clients
     * waiting for it, say); at once on the caller when the listing completed already. A failure is logged.
     */
    void whenListed(Runnable work) {
        synchronized (listedHooksLock) {
            if (listedHooks != null) {
                listedHooks.add(work);
                return;
            }
        }
        runHook(work);
    }

    private void runListedHooks() {
        List<Runnable> hooks;
        synchronized (listedHooksLock) {
            hooks = listedHooks;
            listedHooks = null;
        }
        if (hooks != null) {
            hooks.forEach(IndexListing::runHook);
        }
    }

    private static void runHook(Runnable work) {
        try {
            work.run();
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "work after the history listing failed: {0}", e.toString());
        }
    }
    private void loadKnown() {
        store.read(h -> {
            h.createQuery("SELECT id, provider, session_id, home, path, size, mtime, read_offset, message_count, "
                    + "corrupt_lines, project_path, project_name FROM history_sessions").map((rs, ctx) -> {
                        Known k = new Known(rs.getLong("id"), rs.getString("provider"), rs.getString("session_id"),
                                Path.of(rs.getString("home")), rs.getString("path"), rs.getLong("size"),
                                rs.getLong("mtime"), rs.getLong("read_offset"), rs.getLong("message_count"));
                        known.put(key(k.provider(), k.sessionId()), k);
                        corruptLines.addAndGet(rs.getLong("corrupt_lines"));
                        String pp = rs.getString("project_path");
                        String pn = rs.getString("project_name");
                        if (pp != null && pn != null) {
                            projectNames.putIfAbsent(pp, pn);
                        }
                        return 0;
                    }).forEach(x -> {
                    });
            return null;
        });
    }
}
