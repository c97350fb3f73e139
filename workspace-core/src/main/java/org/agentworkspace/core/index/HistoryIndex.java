package org.agentworkspace.core.index;

import java.io.IOException;
import java.lang.System.Logger.Level;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingDeque;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.agentworkspace.api.WorkspaceException;
import org.agentworkspace.api.history.HistoryMessage;
import org.agentworkspace.api.history.HistoryProviders;
import org.agentworkspace.api.history.MessagePage;
import org.agentworkspace.api.history.SessionSummary;
import org.agentworkspace.api.history.Usage;
import org.agentworkspace.core.history.HistoryReader;
import org.agentworkspace.core.history.HistoryReaders;
import org.agentworkspace.core.history.HistorySink;
import org.agentworkspace.core.history.ReadResult;
import org.agentworkspace.core.history.SessionFacts;
import org.agentworkspace.core.history.SessionFile;
import org.agentworkspace.core.projects.ProjectErrorCodes;
import org.agentworkspace.core.projects.ProjectRegistry;
import org.agentworkspace.core.projects.RegisteredProject;
import org.agentworkspace.core.store.Dialect;
import org.agentworkspace.core.store.Store;
import org.jdbi.v3.core.Handle;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * The conversation history index (see docs/history.md, "The index").
 *
 * <p>Phase 1 (listing) discovers every provider's sessions under the history homes; a session whose file size and
 * mtime match its stored row costs nothing, a new one is peeked at (head of the file only) and written in large
 * batches. Phase 2 (indexing): {@link #WORKERS} reader threads read each new or changed session from its stored
 * offset and hand its messages (long tool payloads clipped, completed from the file on page reads) and exact facts
 * to one writer thread, which stores them in transactions of up to {@link #TX_ROWS} rows and hands what it
 * committed to the full-text index ({@link FullText}: on SQLite a search file of its own, with a thread of its
 * own). A {@link HistoryWatcher} (JDK WatchService, 100 ms debounce) and a periodic size/mtime sweep keep the index
 * current. Routes read only the store (and, for searches, the search file).
 */
public final class HistoryIndex implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(HistoryIndex.class.getName());
    /** Reader threads of phase 2. */
    public static final int WORKERS = 2;
    /** Sessions shown inline in each project of the project list. */
    public static final int LIST_SESSIONS = 10;
    /** Pending sessions above which a ready index reports {@code indexing} again. */
    public static final int BACKLOG_INDEXING = 100;
    /** Search totals are counted up to this many matches. */
    public static final int MAX_TOTAL = 10_000;
    /** Matches ranked per search (the newest ones). */
    static final int RANK_CANDIDATES = 1_000;
    static final int MAX_QUERY = 500;
    /*
     * How much is in flight between the readers, the writer and the full-text thread. Messages in flight outlive
     * young collections, so what is in flight is copied into the old generation and collected there with full
     * collections: on the 2 GB benchmark history (docs/benchmarks.md run 15), bounds four times smaller than before
     * (2 MiB in flight instead of 8, chunks of 500 rows instead of 2,000, a 1 MiB full-text queue instead of 4) took the
     * full collections from 21 to 5 and the collector's pauses from ~2.7 s to ~1.2 s, for slightly more commits;
     * another halving cost more writer and full-text CPU than it saved.
     */
    /** A reader hands its writes over in chunks of at most this many rows or chars. */
    private static final int CHUNK_ROWS = 500;
    private static final long CHUNK_CHARS = 512L * 1024;
    /** Chars (in KiB) handed over but not stored yet: readers wait beyond this, bounding the heap. */
    private static final int IN_FLIGHT_KIB = 2 * 1024;
    /**
     * The writer stores chunks in transactions of up to this many rows or chars (a chunk's chars stay in flight until
     * its transaction commits, so a transaction never holds more than what may be in flight).
     */
    private static final int TX_ROWS = 5_000;
    private static final long TX_CHARS = IN_FLIGHT_KIB * 1024L;
    private static final int INSERT_BATCH = 1_000;
    private static final int MAX_TITLE = 200;
    private static final Set<String> FILE_PROVIDERS = Set.of(HistoryProviders.CLAUDE, HistoryProviders.CODEX,
            HistoryProviders.GEMINI, HistoryProviders.QWEN);
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Pattern WORD = Pattern.compile("[\\p{L}\\p{N}_]+");

    private final Store store;
    private final ProjectRegistry registry;
    private final List<Path> homes;
    private final Clock clock;
    private final HistoryReaders readers;
    private final Duration sweepInterval;
    /**
     * SQLite: the full-text index in its own file, written by its own thread ({@link #fullText()} opens it: the
     * listing does once it has listed, so opening it is part of neither the engine's start nor the first list); null
     * until then and on PostgreSQL.
     */
    private volatile FullText fullText;
    private boolean fullTextClosed;
    private final Object fullTextLock = new Object();

    /** provider + '\n' + sessionId → what the store holds about the session's file. */
    private final Map<String, Known> known = new ConcurrentHashMap<>();
    private final Map<String, String> projectNames = new ConcurrentHashMap<>();
    private final LinkedBlockingDeque<Long> queue = new LinkedBlockingDeque<>();
    private final Map<Long, SessionFile> pending = new ConcurrentHashMap<>();
    private final Set<Long> running = ConcurrentHashMap.newKeySet();
    private final AtomicLong corruptLines = new AtomicLong();
    private final AtomicLong version = new AtomicLong();
    private final java.util.concurrent.LinkedBlockingQueue<Chunk> inbox = new java.util.concurrent.LinkedBlockingQueue<>();
    private final java.util.concurrent.Semaphore inFlight = new java.util.concurrent.Semaphore(IN_FLIGHT_KIB);
    private final AtomicLong readNanos = new AtomicLong();
    private final AtomicLong writeNanos = new AtomicLong();
    private final AtomicLong writerIdleNanos = new AtomicLong();
    private final AtomicLong writerCpuNanos = new AtomicLong();
    private final AtomicLong writtenMessages = new AtomicLong();
    private final Object listLock = new Object();
    private volatile Cached cached;

    private final Instant startedAt;
    private volatile Instant listedAt;
    private volatile Instant readyAt;
    private volatile boolean closed;
    private final List<Thread> threads = new ArrayList<>();
    private ScheduledExecutorService scheduler;
    private HistoryWatcher watcher;

    record Known(long key, String provider, String sessionId, Path home, String path, long size, long mtime,
            long offset, long messages) {
        Known with(long newSize, long newMtime, long newOffset, long newMessages) {
            return new Known(key, provider, sessionId, home, path, newSize, newMtime, newOffset, newMessages);
        }
    }

    private record Cached(long version, List<IndexedProject> history) {
    }

    private HistoryIndex(Store store, ProjectRegistry registry, List<Path> homes, Clock clock,
            Duration sweepInterval) {
        this.store = store;
        this.registry = registry;
        this.homes = homes.stream().map(h -> h.toAbsolutePath().normalize()).distinct().toList();
        this.clock = clock;
        this.sweepInterval = sweepInterval;
        this.readers = HistoryReaders.create(this::knownProjectPaths);
        this.startedAt = clock.instant();
    }

    /**
     * The full-text index of an SQLite store, opened on first use; null on PostgreSQL (and after close). It must be
     * open before the index writes anything: a rebuild it decides on reads the messages stored at that moment.
     */
    private FullText fullText() {
        FullText ft = fullText;
        if (ft != null || store.dialect() != Dialect.SQLITE) {
            return ft;
        }
        synchronized (fullTextLock) {
            if (fullText == null && !fullTextClosed) {
                // more to come while sessions wait to be read or stored: the full-text thread gathers commits
                fullText = FullText.open(store, () -> !pending.isEmpty() || !running.isEmpty());
            }
            return fullText;
        }
    }

    /** Whether the full-text thread has applied everything handed over (true without one). */
    private boolean fullTextIdle() {
        FullText ft = fullText;
        return ft == null || ft.idle();
    }

    /**
     * The index of the histories under {@code homes} (users' home directories), not started.
     *
     * @param sweepInterval how often every history directory is listed again as a backstop to the watcher
     */
    public static HistoryIndex create(Store store, ProjectRegistry registry, List<Path> homes, Clock clock,
            Duration sweepInterval) {
        return new HistoryIndex(store, registry, List.copyOf(homes), clock, sweepInterval);
    }

    /** The homes whose histories are indexed. */
    public List<Path> homes() {
        return homes;
    }

    /** Whether {@link #start} ran (the engine starts the index unless its configuration turns it off). */
    public synchronized boolean started() {
        return !threads.isEmpty();
    }

    /** Starts phase 1 in the background (then phase 2, the watcher and the sweep). Returns at once. */
    public synchronized void start() {
        if (!threads.isEmpty() || closed) {
            return;
        }
        Thread lister = Thread.ofPlatform().daemon().name("history-index-list").unstarted(this::listPhase);
        threads.add(lister);
        lister.start();
    }

    // ------------------------------------------------------------------ phase 1

    private void listPhase() {
        try {
            // a restart: the project list is in the store already. Prepared first, before the listing below takes
            // the CPU, so the first clients get it at once; the listing changes it only where the disk changed
            historyProjects();
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
                    if (closed) {
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
                        } else if (needsRead(kn, f)) {
                            toRead.add(f);
                        }
                    }
                    for (int i = 0; i < fresh.size(); i += INSERT_BATCH) {
                        List<SessionFile> chunk = fresh.subList(i, Math.min(fresh.size(), i + INSERT_BATCH));
                        long p0 = System.nanoTime();
                        List<Peeked> peeked = chunk.parallelStream().map(this::peek).toList();
                        tPeek += System.nanoTime() - p0;
                        // stored by the inserter while the next chunk is peeked at
                        inserts.add(inserter.submit(() -> {
                            long i0 = System.nanoTime();
                            insertSessions(peeked);
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
            removeVanished(e -> seen.contains(e.getKey()), true);
            listedAt = clock.instant();
            // (inserts and removals moved the version already: a listing that found nothing new leaves the
            // prepared list valid)
            LOG.log(Level.INFO, "history listed in {0} ms (stored rows {1} ms, discover {2} ms, peek {3} ms, "
                    + "insert {4} ms): {5} sessions, {6} to read", Duration.between(startedAt, listedAt).toMillis(),
                    tLoad / 1_000_000, tDiscover / 1_000_000, tPeek / 1_000_000, tInsert / 1_000_000, known.size(),
                    toRead.size());
            runListedHooks();
            // before the writer starts (a rebuild it decides on reads the messages stored now); after the listing,
            // so that the first complete project list does not wait for it
            fullText();
            toRead.sort(Comparator.comparing(SessionFile::modified).reversed());
            for (SessionFile f : toRead) {
                Known kn = known.get(key(f.provider(), f.sessionId()));
                if (kn != null) {
                    enqueue(kn.key(), f, false);
                }
            }
            startBackground();
        } catch (RuntimeException e) {
            LOG.log(Level.ERROR, "history index listing failed", e);
            listedAt = clock.instant();
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
    public void whenListed(Runnable work) {
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
            hooks.forEach(HistoryIndex::runHook);
        }
    }

    private static void runHook(Runnable work) {
        try {
            work.run();
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "work after the history listing failed: {0}", e.toString());
        }
    }

    private synchronized void startBackground() {
        if (closed) {
            return;
        }
        Thread writer = Thread.ofPlatform().daemon().name("history-index-write").unstarted(this::writeLoop);
        threads.add(writer);
        writer.start();
        for (int i = 0; i < WORKERS; i++) {
            Thread t = Thread.ofPlatform().daemon().name("history-index-read-" + i).unstarted(this::readLoop);
            threads.add(t);
            t.start();
        }
        scheduler = Executors.newSingleThreadScheduledExecutor(r -> Thread.ofPlatform().daemon()
                .name("history-index-sweep").unstarted(r));
        try {
            watcher = HistoryWatcher.start(this, homes);
        } catch (IOException | RuntimeException e) {
            LOG.log(Level.WARNING, "history watcher unavailable, relying on the sweep: {0}", e.toString());
        }
        long ms = sweepInterval.toMillis();
        scheduler.scheduleWithFixedDelay(this::sweep, ms, ms, TimeUnit.MILLISECONDS);
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

    private static boolean needsRead(Known kn, SessionFile f) {
        return kn.offset() < 0 || kn.size() != f.size() || kn.mtime() != f.modified().toEpochMilli();
    }

    private record Peeked(SessionFile file, SessionSummary summary) {
    }

    private Peeked peek(SessionFile f) {
        SessionSummary s;
        try {
            s = readers.get(f.provider()).peek(f);
        } catch (IOException | RuntimeException e) {
            LOG.log(Level.DEBUG, "cannot peek at {0}: {1}", f.path(), e.toString());
            s = new SessionSummary(f.provider(), f.sessionId(), null, null, null, f.modified(), f.modified(), null,
                    false, null, List.of(f.path().toString()));
        }
        return new Peeked(f, s);
    }

    private void insertSessions(List<Peeked> rows) {
        if (rows.isEmpty()) {
            return;
        }
        boolean sqlite = store.dialect() == Dialect.SQLITE;
        List<Known> added = store.write(h -> {
            // SQLite: the rows are numbered here, so only sessions that were there already need reading back
            long firstId = sqlite ? nextSqliteId(h, "history_sessions") : 0;
            int[] counts;
            try (java.sql.PreparedStatement ps = h.getConnection().prepareStatement("INSERT INTO history_sessions "
                    + "(provider, session_id, home, path, size, mtime, read_offset, corrupt_lines, project_path, "
                    + "project_name, title, title_rank, first_prompt, created_at, last_activity, message_count, "
                    + "subagent, usage_json" + (sqlite ? ", id" : "") + ") VALUES (?, ?, ?, ?, ?, ?, -1, 0, ?, ?, ?, 0, "
                    + "?, ?, ?, 0, ?, NULL" + (sqlite ? ", ?" : "") + ") ON CONFLICT (provider, session_id) DO NOTHING")) {
                long nextId = firstId;
                for (Peeked p : rows) {
                    SessionFile f = p.file();
                    SessionSummary s = p.summary();
                    long mtime = f.modified().toEpochMilli();
                    ps.setString(1, f.provider());
                    ps.setString(2, f.sessionId());
                    ps.setString(3, f.home().toString());
                    ps.setString(4, f.path().toString());
                    ps.setLong(5, f.size());
                    ps.setLong(6, mtime);
                    ps.setString(7, clean(s.projectPath()));
                    ps.setString(8, projectName(s.projectPath()));
                    ps.setString(9, clean(s.title()));
                    ps.setString(10, clip(s.firstPrompt(), 4000));
                    ps.setLong(11, s.createdAt() == null ? mtime : s.createdAt().toEpochMilli());
                    ps.setLong(12, mtime);
                    ps.setInt(13, s.subagent() ? 1 : 0);
                    if (sqlite) {
                        ps.setLong(14, nextId++);
                    }
                    ps.addBatch();
                }
                counts = ps.executeBatch();
            } catch (java.sql.SQLException e) {
                throw new IllegalStateException("writing history sessions failed", e);
            }
            List<Known> out = new ArrayList<>();
            Map<String, List<SessionFile>> byProvider = new HashMap<>();
            for (int i = 0; i < rows.size(); i++) {
                SessionFile f = rows.get(i).file();
                if (sqlite && i < counts.length && counts[i] == 1) {
                    out.add(new Known(firstId + i, f.provider(), f.sessionId(), f.home(), f.path().toString(),
                            f.size(), f.modified().toEpochMilli(), -1, 0));
                } else {
                    byProvider.computeIfAbsent(f.provider(), x -> new ArrayList<>()).add(f);
                }
            }
            for (Map.Entry<String, List<SessionFile>> e : byProvider.entrySet()) {
                Map<String, SessionFile> bySid = new HashMap<>();
                e.getValue().forEach(f -> bySid.put(f.sessionId(), f));
                h.createQuery("SELECT id, session_id, size, mtime, read_offset, path FROM history_sessions WHERE "
                                + "provider = :p AND session_id IN (<ids>)").bind("p", e.getKey())
                        .bindList("ids", new ArrayList<>(bySid.keySet()))
                        .map((rs, ctx) -> {
                            SessionFile f = bySid.get(rs.getString("session_id"));
                            return new Known(rs.getLong("id"), f.provider(), f.sessionId(), f.home(),
                                    rs.getString("path"), rs.getLong("size"), rs.getLong("mtime"),
                                    rs.getLong("read_offset"), 0);
                        }).forEach(out::add);
            }
            return out;
        });
        for (Known k : added) {
            known.put(key(k.provider(), k.sessionId()), k);
        }
        version.incrementAndGet();
    }

    /**
     * Drops sessions not found by a full listing. At start-up this includes sessions of homes no longer configured;
     * a sweep (which runs while the watcher adds sessions) drops a file session only when its file is gone.
     */
    private void removeVanished(java.util.function.Predicate<Map.Entry<String, Known>> seen, boolean startup) {
        List<Known> gone = new ArrayList<>();
        for (Map.Entry<String, Known> e : known.entrySet()) {
            Known k = e.getValue();
            if (startup && !homes.contains(k.home())) {
                gone.add(k);
            } else if (!seen.test(e) && homes.contains(k.home())) {
                boolean fileGone = HistoryProviders.OPENCODE.equals(k.provider())
                        || !Files.exists(Path.of(k.path()), LinkOption.NOFOLLOW_LINKS);
                if (startup || fileGone) {
                    gone.add(k);
                }
            }
        }
        removeSessions(gone);
    }

    private void removeSessions(List<Known> gone) {
        if (gone.isEmpty()) {
            return;
        }
        List<FullText.Op> removed = new ArrayList<>();
        // opened outside the write: opening may write to the store itself
        FullText ft = fullText();
        store.write(h -> {
            for (Known k : gone) {
                removed.addAll(indexedIds(h, k.key(), ft));
                h.createUpdate("DELETE FROM history_messages WHERE session_key = :k").bind("k", k.key()).execute();
                h.createUpdate("DELETE FROM history_sessions WHERE id = :k").bind("k", k.key()).execute();
            }
            return null;
        });
        if (ft != null) {
            ft.submit(removed);
        }
        for (Known k : gone) {
            known.remove(key(k.provider(), k.sessionId()));
            pending.remove(k.key());
        }
        version.incrementAndGet();
    }

    /** SQLite: removals of the full-text rows of a session's messages (those with text), before they are deleted. */
    private static List<FullText.Op> indexedIds(Handle h, long key, FullText ft) {
        if (ft == null) {
            return List.of();
        }
        List<FullText.Op> out = new ArrayList<>();
        try (java.sql.PreparedStatement ps = h.getConnection().prepareStatement(IDS_OF)) {
            ps.setLong(1, key);
            try (java.sql.ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.add(new FullText.Remove(rs.getLong(1)));
                }
            }
        } catch (java.sql.SQLException e) {
            throw new IllegalStateException("reading a session's message ids failed", e);
        }
        return out;
    }

    // ------------------------------------------------------------------ keeping current

    /**
     * A file changed on disk (watcher or sweep): learn about it and schedule a read. Returns the session as the index
     * knows it (null when it could not be added).
     */
    Known fileChanged(SessionFile f, boolean priority) {
        String key = key(f.provider(), f.sessionId());
        Known kn = known.get(key);
        if (kn == null) {
            insertSessions(List.of(peek(f)));
            kn = known.get(key);
            if (kn == null) {
                return null;
            }
        } else if (!needsRead(kn, f)) {
            return kn;
        }
        enqueue(kn.key(), f, priority);
        return kn;
    }

    /** A path the watcher reported: the session file it belongs to, if any, is checked. */
    void pathChanged(Path home, Path path) {
        String p = path.toString();
        try {
            if (p.contains("/.local/share/opencode/")) {
                rescan(home, readers.get(HistoryProviders.OPENCODE));
                return;
            }
            Path file = path;
            if (p.contains("/.cursor/chats/")) {
                file = path.resolveSibling("store.db");
            }
            for (HistoryReader r : readers.all()) {
                Optional<SessionFile> f;
                try {
                    f = r.describe(home, file);
                } catch (java.nio.file.NoSuchFileException e) {
                    f = Optional.empty();
                }
                if (f.isPresent()) {
                    fileChanged(f.get(), true);
                    return;
                }
            }
            if (!Files.exists(file, LinkOption.NOFOLLOW_LINKS)) {
                String gone = file.toString();
                removeSessions(known.values().stream().filter(k -> k.path().equals(gone)
                        && FILE_PROVIDERS.contains(k.provider())).toList());
            }
        } catch (IOException | RuntimeException e) {
            LOG.log(Level.DEBUG, "cannot check changed history path {0}: {1}", path, e.toString());
        }
    }

    private void rescan(Path home, HistoryReader reader) throws IOException {
        List<SessionFile> files = reader.discover(home);
        Set<String> seen = new HashSet<>();
        for (SessionFile f : files) {
            seen.add(key(f.provider(), f.sessionId()));
            fileChanged(f, true);
        }
        removeSessions(known.entrySet().stream().filter(e -> e.getValue().provider().equals(reader.provider())
                && e.getValue().home().equals(home) && !seen.contains(e.getKey())).map(Map.Entry::getValue)
                .toList());
    }

    /** Lists every history directory again and reads what changed (a backstop to the watcher). */
    void sweep() {
        // while the first full read is under way the watcher reports changes; listing every file again then only
        // takes CPU from the readers (without a watcher the sweep is the only way to see changes, so it runs)
        if (closed || (readyAt == null && watcher != null)) {
            return;
        }
        try {
            // what the sweep found, by the sessions' row keys, and one file at a time: a list of every file and a
            // set of their ids would outlive the young collections a sweep of 10,000 files causes, and the old
            // generation of an idle server would creep by a megabyte or two at every sweep
            SeenKeys seen = new SeenKeys();
            for (Path home : homes) {
                for (HistoryReader reader : readers.all()) {
                    try {
                        reader.forEachFile(home, f -> {
                            Known kn = fileChanged(f, false);
                            if (kn != null) {
                                seen.add(kn.key());
                            }
                        });
                    } catch (IOException | RuntimeException e) {
                        LOG.log(Level.DEBUG, "sweep of {0} failed: {1}", reader.provider(), e.toString());
                        // a provider we could not list keeps its sessions
                        known.forEach((k, v) -> {
                            if (v.provider().equals(reader.provider())) {
                                seen.add(v.key());
                            }
                        });
                    }
                }
            }
            removeVanished(e -> seen.contains(e.getValue().key()), false);
            if (watcher != null) {
                watcher.registerMissingRoots();
            }
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "history sweep failed", e);
        }
    }

    /** Row keys of sessions, as bits (keys are the store's row ids: small and dense). */
    private static final class SeenKeys {
        private final java.util.BitSet bits = new java.util.BitSet();
        private final Set<Long> large = new HashSet<>();

        void add(long key) {
            if (key >= 0 && key <= Integer.MAX_VALUE) {
                bits.set((int) key);
            } else {
                large.add(key);
            }
        }

        boolean contains(long key) {
            return key >= 0 && key <= Integer.MAX_VALUE ? bits.get((int) key) : large.contains(key);
        }
    }

    private void enqueue(long key, SessionFile f, boolean priority) {
        boolean fresh = pending.put(key, f) == null;
        if (priority) {
            queue.addFirst(key);
        } else if (fresh) {
            queue.addLast(key);
        }
    }

    // ------------------------------------------------------------------ phase 2

    /**
     * A reader thread: takes sessions off the queue, reads each from its stored offset and hands what is to be
     * written to the writer thread in chunks. Parsing runs on up to {@link #WORKERS} threads beside the one thread
     * that writes, so the store sees a single writer with large transactions.
     */
    private void readLoop() {
        while (!closed) {
            Long key;
            try {
                key = queue.pollFirst(100, TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                break;
            }
            try {
                if (key == null) {
                    checkReady();
                    continue;
                }
                SessionFile f = pending.remove(key);
                if (f == null) {
                    continue;
                }
                if (!running.add(key)) {
                    // the writer has not stored this session's previous read yet
                    if (pending.putIfAbsent(key, f) == null) {
                        queue.addLast(key);
                    }
                    Thread.sleep(5);
                    continue;
                }
                boolean handedOver = false;
                try {
                    handedOver = readSession(key, f);
                } finally {
                    if (!handedOver) {
                        running.remove(key);
                    }
                }
            } catch (InterruptedException | Interrupted e) {
                break;
            } catch (RuntimeException e) {
                LOG.log(Level.WARNING, "history index read failed", e);
            }
        }
    }

    private void checkReady() {
        if (readyAt == null && listedAt != null && pending.isEmpty() && running.isEmpty()
                && fullTextIdle()) {
            readyAt = clock.instant();
            FullText ft = fullText;
            LOG.log(Level.INFO, "history index ready: {0} sessions, {1} messages (readers {2} ms, writer {3} ms "
                    + "writing, {4} ms CPU, {5} ms waiting for readers; full text {6} rows, {7} ms CPU)", known.size(),
                    writtenMessages.get(), readNanos.get() / 1_000_000, writeNanos.get() / 1_000_000,
                    writerCpuNanos.get() / 1_000_000, writerIdleNanos.get() / 1_000_000,
                    ft == null ? 0 : ft.indexed(), ft == null ? 0 : ft.cpuNanos() / 1_000_000);
            // indexing is over: the store's idle connections drop their page caches, and a collector that shrinks
            // the heap (scripts/run.sh) gives the memory back
            store.releaseMemory();
            if (ft != null) {
                ft.releaseMemory();
            }
            System.gc();
        }
    }

    /**
     * Reads the session and hands its writes, ending with its {@link Done}, to the writer (which releases the
     * session from {@link #running} once they are stored). False when the index no longer knows the session.
     */
    private boolean readSession(long key, SessionFile f) throws InterruptedException {
        Known kn = known.get(key(f.provider(), f.sessionId()));
        if (kn == null || kn.key() != key) {
            return false;
        }
        HistoryReader reader = readers.get(f.provider());
        long offset = kn.offset();
        boolean rewrite = offset > 0 && FILE_PROVIDERS.contains(f.provider()) && f.size() < offset;
        long from = offset < 0 || rewrite ? 0 : offset;
        Outbox out = new Outbox(redelivers(f));
        if (from == 0) {
            // a first read, a rewrite, or a read cut short earlier: start from an empty session
            out.add(new DropMessages(key));
        } else {
            // an incremental read: until its Done is stored the row says "read from the start", so a read cut short
            // (crash, shutdown) between its chunks is redone from the start instead of appending twice
            out.add(new MarkUnread(key));
        }
        SessionFacts base = from > 0 ? loadFacts(key, f.provider()) : null;
        long[] position = {from > 0 ? nextPosition(key) : 0};
        long[] count = {from > 0 ? kn.messages() : 0};
        boolean clip = reader.rereadsRecords(f);
        // providers that deliver an id again (an updated message): id -> position of this session's messages
        Map<String, Long> ids = redelivers(f) ? (from > 0 ? loadIds(key) : new HashMap<>()) : null;
        HistorySink sink = new HistorySink() {
            @Override
            public void accept(HistoryMessage m) {
                Long at = ids == null ? null : ids.get(m.id());
                // long tool payloads are clipped here, so what waits for the writer is as small as what it stores
                long src = clip ? clippedAt(m) : -1;
                HistoryMessage stored = src >= 0 ? clipped(m) : m;
                if (at != null) {
                    // an update of a message not handed over yet replaces its insert (no UPDATE, no full-text churn)
                    if (!out.replaceInsert(at, stored, src)) {
                        out.add(new UpdateMessage(key, at, stored, src));
                    }
                } else {
                    if (ids != null) {
                        ids.put(m.id(), position[0]);
                    }
                    out.add(new InsertMessage(key, position[0]++, stored, src));
                    count[0]++;
                }
                if (out.full()) {
                    out.send();
                }
            }

            @Override
            public void reset() {
                out.add(new DropMessages(key));
                count[0] = 0;
                if (ids != null) {
                    ids.clear();
                }
            }
        };
        ReadResult r;
        try {
            r = reader.readFrom(f, from, sink);
        } catch (IOException | RuntimeException | OutOfMemoryError e) {
            if (e instanceof Interrupted i) {
                throw i;
            }
            // a record too large for this heap fails alone (its arrays are garbage now); the index goes on
            LOG.log(e instanceof OutOfMemoryError ? Level.WARNING : Level.DEBUG, "cannot read {0}: {1}", f.path(),
                    e.toString());
            // unreadable now: remember the file state so it is not retried until it changes; a read that already
            // handed over messages is redone from the start next time
            out.add(new Done(key, f, out.sentMessages ? -1 : offset, null, 0, false, kn.messages()));
            out.send();
            return true;
        }
        SessionFacts facts = base == null ? r.facts() : base.merge(r.facts());
        out.add(new Done(key, f, r.nextOffset(), facts, r.corruptLines(), from == 0, count[0]));
        out.send();
        return true;
    }

    /** Thrown through a reader's sink when the index closes while a reader thread waits to hand over a chunk. */
    private static final class Interrupted extends RuntimeException {
        Interrupted() {
            super("interrupted", null, false, false);
        }
    }

    private SessionFacts loadFacts(long key, String provider) {
        return store.read(h -> h.createQuery("SELECT * FROM history_sessions WHERE id = :k").bind("k", key)
                .map((rs, ctx) -> new SessionFacts(rs.getString("session_id"), rs.getString("project_path"),
                        rs.getString("title"), rs.getInt("title_rank"), rs.getString("first_prompt"),
                        Instant.ofEpochMilli(rs.getLong("created_at")), Instant.ofEpochMilli(rs.getLong("last_activity")),
                        rs.getLong("message_count"), rs.getInt("subagent") != 0, usage(rs.getString("usage_json")),
                        HistoryProviders.CODEX.equals(provider), false))
                .findOne().orElse(SessionFacts.EMPTY));
    }

    /** Whether the reader may deliver a message id again in place of the earlier message (HistorySink contract). */
    private static boolean redelivers(SessionFile f) {
        return HistoryProviders.GEMINI.equals(f.provider()) || HistoryProviders.OPENCODE.equals(f.provider())
                || HistoryProviders.CURSOR.equals(f.provider())
                || (HistoryProviders.QWEN.equals(f.provider()) && f.path().toString().contains("/.qwen/tmp/"));
    }

    private Map<String, Long> loadIds(long key) {
        Map<String, Long> out = new HashMap<>();
        store.read(h -> {
            h.createQuery("SELECT msg_id, position FROM history_messages WHERE session_key = :k").bind("k", key)
                    .map((rs, ctx) -> out.put(rs.getString(1), rs.getLong(2))).forEach(x -> {
                    });
            return null;
        });
        return out;
    }

    private long nextPosition(long key) {
        return store.read(h -> h.createQuery("SELECT COALESCE(MAX(position) + 1, 0) FROM history_messages "
                + "WHERE session_key = :k").bind("k", key).mapTo(Long.class).one());
    }

    private sealed interface Op permits InsertMessage, UpdateMessage, DropMessages, MarkUnread, Done {
        long key();
    }

    /** {@code src}: the offset of the message's record when its tool payloads are clipped, else -1. */
    private record InsertMessage(long key, long position, HistoryMessage m, long src) implements Op {
    }

    private record UpdateMessage(long key, long position, HistoryMessage m, long src) implements Op {
    }

    private record DropMessages(long key) implements Op {
    }

    private record MarkUnread(long key) implements Op {
    }

    /** The end of a session's read: {@code offset} -1 makes the next read start over; null facts: unreadable. */
    private record Done(long key, SessionFile file, long offset, SessionFacts facts, long corrupt, boolean fromStart,
                        long messages) implements Op {
    }

    /** Writes of one or more sessions, in order, with their size in chars (bounded while in flight). */
    private record Chunk(List<Op> ops, long chars, int permits) {
    }

    /** One reader's writes for the session it reads, handed to the writer a chunk at a time. */
    private final class Outbox {
        private List<Op> ops = new ArrayList<>();
        /**
         * Position -> index in {@link #ops} of the inserts not handed over yet; kept only for readers that deliver an
         * id again (null for the others: they never replace an insert, and a map entry per message is not free).
         */
        private final Map<Long, Integer> inserts;
        private long chars;
        /** Since when this reader has been reading (not waiting to hand over): the readers' time in the log. */
        private long busySince = System.nanoTime();
        boolean sentMessages;

        Outbox(boolean replacesInserts) {
            inserts = replacesInserts ? new HashMap<>() : null;
        }

        void add(Op op) {
            if (inserts != null) {
                if (op instanceof DropMessages) {
                    inserts.clear();
                } else if (op instanceof InsertMessage i) {
                    inserts.put(i.position(), ops.size());
                }
            }
            ops.add(op);
            chars += 64;
            if (op instanceof InsertMessage i) {
                chars += chars(i.m());
            } else if (op instanceof UpdateMessage u) {
                chars += chars(u.m());
            }
        }

        /** Replaces the pending insert at {@code position} with the message's newer version; false if none. */
        boolean replaceInsert(long position, HistoryMessage m, long src) {
            Integer at = inserts == null ? null : inserts.get(position);
            if (at == null) {
                return false;
            }
            InsertMessage old = (InsertMessage) ops.get(at);
            ops.set(at, new InsertMessage(old.key(), position, m, src));
            chars += chars(m) - chars(old.m());
            return true;
        }

        boolean full() {
            return ops.size() >= CHUNK_ROWS || chars >= CHUNK_CHARS;
        }

        void send() {
            if (ops.isEmpty()) {
                return;
            }
            int permits = (int) Math.min(IN_FLIGHT_KIB, chars / 1024 + 1);
            readNanos.addAndGet(System.nanoTime() - busySince);
            try {
                inFlight.acquire(permits);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new Interrupted();
            }
            busySince = System.nanoTime();
            sentMessages |= ops.stream().anyMatch(o -> o instanceof InsertMessage || o instanceof UpdateMessage);
            inbox.add(new Chunk(ops, chars, permits));
            ops = new ArrayList<>();
            if (inserts != null) {
                inserts.clear();
            }
            chars = 0;
        }

        private static long chars(HistoryMessage m) {
            return len(m.text()) + len(m.toolOutput()) + len(m.toolInputJson()) + len(m.id());
        }
    }

    private static int len(String s) {
        return s == null ? 0 : s.length();
    }

    /**
     * The writer thread: stores the readers' chunks in transactions of up to {@link #TX_ROWS} rows, then updates
     * the in-memory state of the sessions whose reads it finished.
     */
    private void writeLoop() {
        List<Chunk> tx = new ArrayList<>();
        while (!closed) {
            long idle0 = System.nanoTime();
            Chunk first;
            try {
                first = inbox.poll(100, TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                break;
            }
            if (readyAt == null) {
                writerIdleNanos.addAndGet(System.nanoTime() - idle0);
            }
            if (first == null) {
                checkReady();
                continue;
            }
            long t0 = System.nanoTime();
            tx.add(first);
            long rows = first.ops().size();
            long chars = first.chars();
            Chunk next;
            while (rows < TX_ROWS && chars < TX_CHARS && (next = inbox.poll()) != null) {
                tx.add(next);
                rows += next.ops().size();
                chars += next.chars();
            }
            try {
                writeChunks(tx);
            } catch (RuntimeException e) {
                if (closed) {
                    break;
                }
                // one chunk spoiled the transaction (say, a session deleted meanwhile): store the others one by one
                LOG.log(Level.DEBUG, "history write of {0} chunks failed, retrying one by one: {1}", tx.size(),
                        e.toString());
                for (Chunk c : tx) {
                    try {
                        writeChunks(List.of(c));
                    } catch (RuntimeException e2) {
                        LOG.log(Level.WARNING, "cannot store history index changes: {0}", e2.toString());
                        for (Op op : c.ops()) {
                            if (op instanceof Done d) {
                                running.remove(d.key());
                            }
                        }
                    }
                }
            } finally {
                for (Chunk c : tx) {
                    inFlight.release(c.permits());
                }
                tx.clear();
            }
            writeNanos.addAndGet(System.nanoTime() - t0);
            if (readyAt == null) {
                writerCpuNanos.set(java.lang.management.ManagementFactory.getThreadMXBean()
                        .getCurrentThreadCpuTime());
            }
            checkReady();
        }
    }

    // plain JDBC batches for the bulk of the work (parameters 1-12 are the message, 13-14 the session and position)
    private static final String INSERT = "INSERT INTO history_messages (msg_id, role, kind, text, tool_name, "
            + "tool_call_id, tool_input, tool_output, tool_error, ts, usage_json, src_offset, session_key, position) "
            + "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)";
    private static final String UPDATE = "UPDATE history_messages SET msg_id = ?, role = ?, kind = ?, text = ?, "
            + "tool_name = ?, tool_call_id = ?, tool_input = ?, tool_output = ?, tool_error = ?, ts = ?, "
            + "usage_json = ?, src_offset = ? WHERE session_key = ? AND position = ?";
    /** SQLite: the writer numbers the rows itself (the full-text thread learns them from it). */
    private static final String INSERT_WITH_ID = "INSERT INTO history_messages (msg_id, role, kind, text, tool_name, "
            + "tool_call_id, tool_input, tool_output, tool_error, ts, usage_json, src_offset, session_key, position, "
            + "id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)";
    private static final String ID_AT = "SELECT id FROM history_messages WHERE session_key = ? AND position = ?";
    private static final String IDS_OF = "SELECT id FROM history_messages WHERE session_key = ? AND text <> ''";
    private static final String DROP = "DELETE FROM history_messages WHERE session_key = ?";
    private static final String MARK = "UPDATE history_sessions SET read_offset = -1 WHERE id = ?";
    private static final String DONE = "UPDATE history_sessions SET size = ?, mtime = ?, read_offset = ?, "
            + "corrupt_lines = CASE WHEN ? = 1 THEN ? ELSE corrupt_lines + ? END, project_path = ?, project_name = ?, "
            + "title = ?, title_rank = ?, first_prompt = ?, created_at = ?, last_activity = ?, message_count = ?, "
            + "subagent = ?, usage_json = ? WHERE id = ?";
    private static final String DONE_UNREADABLE = "UPDATE history_sessions SET size = ?, mtime = ?, read_offset = ? "
            + "WHERE id = ?";

    /** Stores the chunks in one transaction, then brings the in-memory state of finished sessions up to date. */
    private void writeChunks(List<Chunk> chunks) {
        List<Known> updated = new ArrayList<>();
        List<Long> finished = new ArrayList<>();
        long[] corruptAdded = {0};
        long[] messages = {0};
        boolean sqlite = store.dialect() == Dialect.SQLITE;
        // SQLite: what the full-text thread is to do once this transaction committed
        List<FullText.Op> fts = new ArrayList<>();
        FullText ft = fullText();
        store.write(h -> {
            fts.clear();
            java.sql.Connection c = h.getConnection();
            long nextId = sqlite ? nextSqliteId(h, "history_messages") : 0;
            try (java.sql.PreparedStatement insert = c.prepareStatement(sqlite ? INSERT_WITH_ID : INSERT);
                 java.sql.PreparedStatement idAt = c.prepareStatement(ID_AT);
                 java.sql.PreparedStatement idsOf = c.prepareStatement(IDS_OF);
                 java.sql.PreparedStatement update = c.prepareStatement(UPDATE);
                 java.sql.PreparedStatement drop = c.prepareStatement(DROP);
                 java.sql.PreparedStatement mark = c.prepareStatement(MARK);
                 java.sql.PreparedStatement done = c.prepareStatement(DONE);
                 java.sql.PreparedStatement unreadable = c.prepareStatement(DONE_UNREADABLE)) {
                TxOps tx = new TxOps(sqlite, nextId, insert, idAt, idsOf, update, drop, mark, done, unreadable, fts,
                        updated, finished);
                for (Chunk chunk : chunks) {
                    for (Op op : chunk.ops()) {
                        tx.apply(op);
                    }
                }
                tx.finish();
                messages[0] += tx.messages;
                corruptAdded[0] += tx.corrupt;
            } catch (java.sql.SQLException e) {
                throw new IllegalStateException("writing history messages failed", e);
            }
            return null;
        });
        if (ft != null) {
            ft.submit(fts);
        }
        for (Known k : updated) {
            known.computeIfPresent(key(k.provider(), k.sessionId()), (x, old) -> old.key() == k.key() ? k : old);
        }
        corruptLines.addAndGet(corruptAdded[0]);
        writtenMessages.addAndGet(messages[0]);
        version.incrementAndGet();
        running.removeAll(finished);
    }

    /**
     * The statements of one writer transaction and what it collects. {@link #apply} handles one op: kept out of the
     * loop over a transaction's ops, the loop compiles as a small unit (the JIT used to compile the loop with every
     * op's code inlined several times over, on-stack replacement included: about half a second of C2 time on the 2 GB
     * benchmark history).
     */
    private final class TxOps {
        private final boolean sqlite;
        private final java.sql.PreparedStatement insert;
        private final java.sql.PreparedStatement idAt;
        private final java.sql.PreparedStatement idsOf;
        private final java.sql.PreparedStatement update;
        private final java.sql.PreparedStatement drop;
        private final java.sql.PreparedStatement mark;
        private final java.sql.PreparedStatement done;
        private final java.sql.PreparedStatement unreadable;
        private final List<FullText.Op> fts;
        private final List<Known> updated;
        private final List<Long> finished;
        /** The statement whose batch is open: batches run in op order, one is executed before another is used. */
        private java.sql.PreparedStatement open;
        private int dones;
        private long nextId;
        long messages;
        long corrupt;

        TxOps(boolean sqlite, long nextId, java.sql.PreparedStatement insert, java.sql.PreparedStatement idAt,
                java.sql.PreparedStatement idsOf, java.sql.PreparedStatement update, java.sql.PreparedStatement drop,
                java.sql.PreparedStatement mark, java.sql.PreparedStatement done,
                java.sql.PreparedStatement unreadable, List<FullText.Op> fts, List<Known> updated,
                List<Long> finished) {
            this.sqlite = sqlite;
            this.nextId = nextId;
            this.insert = insert;
            this.idAt = idAt;
            this.idsOf = idsOf;
            this.update = update;
            this.drop = drop;
            this.mark = mark;
            this.done = done;
            this.unreadable = unreadable;
            this.fts = fts;
            this.updated = updated;
            this.finished = finished;
        }

        void apply(Op op) throws java.sql.SQLException {
            java.sql.PreparedStatement want = switch (op) {
                case InsertMessage i -> insert;
                case UpdateMessage u -> update;
                case DropMessages d -> drop;
                case MarkUnread m -> mark;
                case Done d -> null;
            };
            if (want != null && open != null && open != want) {
                open.executeBatch();
                open = null;
            }
            if (want != null) {
                open = want;
            }
            switch (op) {
                case InsertMessage i -> {
                    if (sqlite) {
                        long id = nextId++;
                        insert.setLong(15, id);
                        String text = clean(i.m().text());
                        if (!text.isEmpty()) {
                            fts.add(new FullText.Add(id, text));
                        }
                    }
                    bindMessage(insert, i.key(), i.position(), i.m(), i.src());
                    messages++;
                }
                case UpdateMessage u -> {
                    if (sqlite) {
                        // the rows before it are stored (a batch runs before another statement)
                        idAt.setLong(1, u.key());
                        idAt.setLong(2, u.position());
                        try (java.sql.ResultSet rs = idAt.executeQuery()) {
                            if (rs.next()) {
                                long id = rs.getLong(1);
                                fts.add(new FullText.Remove(id));
                                String text = clean(u.m().text());
                                if (!text.isEmpty()) {
                                    fts.add(new FullText.Add(id, text));
                                }
                            }
                        }
                    }
                    bindMessage(update, u.key(), u.position(), u.m(), u.src());
                }
                case DropMessages d -> {
                    if (sqlite) {
                        idsOf.setLong(1, d.key());
                        try (java.sql.ResultSet rs = idsOf.executeQuery()) {
                            while (rs.next()) {
                                fts.add(new FullText.Remove(rs.getLong(1)));
                            }
                        }
                    }
                    drop.setLong(1, d.key());
                    drop.addBatch();
                }
                case MarkUnread m -> {
                    mark.setLong(1, m.key());
                    mark.addBatch();
                }
                case Done d -> {
                    finished.add(d.key());
                    Known k = bindDone(done, unreadable, d);
                    if (k != null) {
                        dones++;
                        updated.add(k);
                        corrupt += d.corrupt();
                    }
                }
            }
        }

        /** Runs the batches still open. */
        void finish() throws java.sql.SQLException {
            if (open != null) {
                open.executeBatch();
            }
            if (dones > 0) {
                done.executeBatch();
                unreadable.executeBatch();
            }
        }
    }

    /**
     * The next id of an SQLite {@code AUTOINCREMENT} table, for rows numbered by their writer (under the store's write
     * lock, inside the writing transaction): past both the largest id and the largest ever handed out.
     */
    private static long nextSqliteId(Handle h, String table) {
        return h.createQuery("SELECT MAX(COALESCE((SELECT MAX(id) FROM " + table + "), 0), COALESCE((SELECT seq "
                + "FROM sqlite_sequence WHERE name = :t), 0)) + 1").bind("t", table).mapTo(Long.class).one();
    }

    /** Longest tool input or output stored whole for a message whose record the reader can re-read. */
    static final int CLIP_CHARS = 2_048;

    /** The offset of the message's record when a tool payload is too long to store whole, else -1. */
    private static long clippedAt(HistoryMessage m) {
        return m.nativeOffset() >= 0 && (len(m.toolInputJson()) > CLIP_CHARS || len(m.toolOutput()) > CLIP_CHARS)
                ? m.nativeOffset() : -1;
    }

    /**
     * The message as stored when clipped: a long input is left out (a cut JSON document is no JSON), a long output
     * keeps its head; a page of messages completes both from the file.
     */
    private static HistoryMessage clipped(HistoryMessage m) {
        String input = len(m.toolInputJson()) > CLIP_CHARS ? null : m.toolInputJson();
        String output = len(m.toolOutput()) > CLIP_CHARS ? clipText(m.toolOutput()) : m.toolOutput();
        return new HistoryMessage(m.id(), m.sessionId(), m.role(), m.kind(), m.text(), m.toolName(), m.toolCallId(),
                input, output, m.toolError(), m.timestamp(), m.usage(), m.nativeOffset());
    }

    private static void bindMessage(java.sql.PreparedStatement ps, long key, long position, HistoryMessage m,
            long src) throws java.sql.SQLException {
        boolean clipped = src >= 0;
        ps.setString(1, clean(m.id()));
        ps.setString(2, m.role());
        ps.setString(3, m.kind());
        ps.setString(4, clean(m.text()));
        ps.setString(5, clean(m.toolName()));
        ps.setString(6, clean(m.toolCallId()));
        ps.setString(7, clean(m.toolInputJson()));
        ps.setString(8, clean(m.toolOutput()));
        ps.setInt(9, m.toolError() ? 1 : 0);
        if (m.timestamp() == null) {
            ps.setNull(10, java.sql.Types.BIGINT);
        } else {
            ps.setLong(10, m.timestamp().toEpochMilli());
        }
        ps.setString(11, usageJson(m.usage()));
        if (clipped) {
            ps.setLong(12, src);
        } else {
            ps.setNull(12, java.sql.Types.BIGINT);
        }
        ps.setLong(13, key);
        ps.setLong(14, position);
        ps.addBatch();
    }

    /** The head of a clipped text, never ending inside a surrogate pair. */
    private static String clipText(String s) {
        int end = CLIP_CHARS;
        if (Character.isHighSurrogate(s.charAt(end - 1))) {
            end--;
        }
        return s.substring(0, end);
    }

    private Known bindDone(java.sql.PreparedStatement done, java.sql.PreparedStatement unreadable, Done d)
            throws java.sql.SQLException {
        SessionFile f = d.file();
        Optional<Known> cur = Optional.ofNullable(known.get(key(f.provider(), f.sessionId())))
                .filter(k -> k.key() == d.key());
        if (cur.isEmpty()) {
            return null;
        }
        long mtime = f.modified().toEpochMilli();
        if (d.facts() == null) {
            unreadable.setLong(1, f.size());
            unreadable.setLong(2, mtime);
            unreadable.setLong(3, d.offset());
            unreadable.setLong(4, d.key());
            unreadable.addBatch();
            return cur.get().with(f.size(), mtime, d.offset(), d.offset() < 0 ? 0 : cur.get().messages());
        }
        SessionFacts facts = d.facts();
        Instant last = facts.lastActivity() != null ? facts.lastActivity() : f.modified();
        Instant first = facts.firstActivity() != null ? facts.firstActivity() : last;
        done.setLong(1, f.size());
        done.setLong(2, mtime);
        done.setLong(3, d.offset());
        done.setInt(4, d.fromStart() ? 1 : 0);
        done.setLong(5, d.corrupt());
        done.setLong(6, d.corrupt());
        done.setString(7, clean(facts.projectPath()));
        done.setString(8, projectName(facts.projectPath()));
        done.setString(9, clean(facts.title()));
        done.setInt(10, facts.titleRank());
        done.setString(11, clip(facts.firstPrompt(), 4000));
        done.setLong(12, first.toEpochMilli());
        done.setLong(13, last.toEpochMilli());
        done.setLong(14, d.messages());
        done.setInt(15, facts.subagent() ? 1 : 0);
        done.setString(16, usageJson(facts.usage()));
        done.setLong(17, d.key());
        done.addBatch();
        return cur.get().with(f.size(), mtime, d.offset(), d.messages());
    }

    // ------------------------------------------------------------------ status

    /** Progress of the index. */
    /**
     * A number that changes whenever what the index answers may have changed (sessions listed or read, renames,
     * deletes, overrides): callers may cache derived answers, such as serialized lists, until it moves.
     */
    public long version() {
        return version.get();
    }

    public IndexStatus status() {
        int sessions = 0;
        int indexed = 0;
        long messages = 0;
        for (Known k : known.values()) {
            sessions++;
            if (k.offset() >= 0) {
                indexed++;
            }
            messages += k.messages();
        }
        int filesPending = pending.size() + running.size();
        String state;
        if (!started()) {
            state = "off"; // the configuration turned the index off (--history-index false)
        } else if (listedAt == null) {
            state = "listing";
        } else if (readyAt == null || filesPending > BACKLOG_INDEXING || rebuildingFullText()) {
            state = "indexing";
        } else {
            state = "ready";
        }
        return new IndexStatus(state, sessions, indexed, messages, filesPending, corruptLines.get(), startedAt,
                listedAt, readyAt);
    }

    private boolean rebuildingFullText() {
        FullText ft = fullText;
        return ft != null && ft.rebuilding();
    }

    /** Whether phase 1 finished: the project list holds every session found on disk. */
    public boolean listed() {
        return listedAt != null;
    }

    /** Waits until phase 1 finished; true when it did within {@code timeout}. */
    public boolean awaitListed(Duration timeout) throws InterruptedException {
        return await(() -> listedAt != null, timeout);
    }

    /**
     * Waits until the first full read is over (the index is ready, {@link IndexStatus#readyAt()}) or the index is
     * closed; true when it is ready within {@code timeout}.
     */
    public boolean awaitReady(Duration timeout) throws InterruptedException {
        await(() -> readyAt != null || closed, timeout);
        return readyAt != null;
    }

    /** Waits until the index is ready and nothing is pending; true when it was within {@code timeout}. */
    public boolean awaitIdle(Duration timeout) throws InterruptedException {
        return await(() -> readyAt != null && pending.isEmpty() && running.isEmpty()
                && fullTextIdle(), timeout);
    }

    private static boolean await(java.util.function.BooleanSupplier condition, Duration timeout)
            throws InterruptedException {
        long end = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > end) {
                return false;
            }
            Thread.sleep(10);
        }
        return true;
    }

    // ------------------------------------------------------------------ projects

    /**
     * The unified project list: projects found in the history (hidden ones excluded) merged with the registered
     * projects by name, most recent activity first (a registered project without sessions by its registration).
     */
    public List<IndexedProject> projects() {
        List<IndexedProject> history = historyProjects();
        Map<String, IndexedProject> byName = new LinkedHashMap<>();
        for (IndexedProject p : history) {
            byName.put(p.name(), p);
        }
        for (RegisteredProject r : registry.list()) {
            IndexedProject h = byName.get(r.name());
            if (h == null) {
                byName.put(r.name(), new IndexedProject(r.name(), r.displayName(), r.path(), true, r.createdAt(), 0,
                        List.of()));
            } else {
                byName.put(r.name(), new IndexedProject(r.name(), r.displayName(), r.path(), true,
                        h.lastActivity(), h.sessionCount(), h.sessions()));
            }
        }
        List<IndexedProject> out = new ArrayList<>(byName.values());
        out.sort(Comparator.comparing(IndexedProject::lastActivity).reversed().thenComparing(IndexedProject::name));
        return out;
    }

    /** The history projects (not hidden), cached until the index changes. */
    private List<IndexedProject> historyProjects() {
        long v = version.get();
        Cached c = cached;
        if (c != null && c.version() == v) {
            return c.history();
        }
        synchronized (listLock) {
            c = cached;
            if (c != null && c.version() == version.get()) {
                return c.history();
            }
            long now = version.get();
            List<IndexedProject> list = loadHistoryProjects();
            cached = new Cached(now, list);
            return list;
        }
    }

    private List<IndexedProject> loadHistoryProjects() {
        return store.read(h -> {
            Map<String, Object[]> overrides = new HashMap<>();
            h.createQuery("SELECT project_name, display_name, hidden_before FROM history_project_overrides")
                    .map((rs, ctx) -> overrides.put(rs.getString(1), new Object[] {rs.getString(2),
                            rs.getObject(3) == null ? null : rs.getLong(3)})).forEach(x -> {
                            });
            Map<String, List<IndexedSession>> top = new HashMap<>();
            h.createQuery("SELECT * FROM (SELECT s.*, o.title AS custom_title, ROW_NUMBER() OVER (PARTITION BY "
                    + "s.project_name ORDER BY s.last_activity DESC, s.id DESC) AS rn FROM history_sessions s "
                    + "LEFT JOIN history_session_overrides o ON o.provider = s.provider AND o.session_id = "
                    + "s.session_id WHERE s.project_name IS NOT NULL AND s.subagent = 0) t WHERE rn <= "
                    + LIST_SESSIONS + " ORDER BY last_activity DESC, id DESC")
                    .map(HistoryIndex::sessionRow)
                    .forEach(s -> top.computeIfAbsent(s.projectName(), k -> new ArrayList<>()).add(s));
            List<IndexedProject> out = new ArrayList<>();
            h.createQuery("SELECT project_name, MIN(project_path) AS path, COUNT(*) AS n, MAX(last_activity) AS last "
                    + "FROM history_sessions WHERE project_name IS NOT NULL AND subagent = 0 GROUP BY project_name")
                    .map((rs, ctx) -> {
                        String name = rs.getString("project_name");
                        String path = rs.getString("path");
                        long last = rs.getLong("last");
                        Object[] o = overrides.get(name);
                        if (o != null && o[1] != null && last <= (Long) o[1]) {
                            return null;
                        }
                        String display = o != null && o[0] != null ? (String) o[0] : baseName(path);
                        return new IndexedProject(name, display, path, false, Instant.ofEpochMilli(last),
                                rs.getInt("n"), List.copyOf(top.getOrDefault(name, List.of())));
                    }).forEach(p -> {
                        if (p != null) {
                            out.add(p);
                        }
                    });
            return Collections.unmodifiableList(out);
        });
    }

    /** The project of this name in the unified list (hidden history projects included). */
    public Optional<IndexedProject> findProject(String name) {
        if (name == null || name.isEmpty() || name.length() > 200) {
            return Optional.empty();
        }
        for (IndexedProject p : projects()) {
            if (p.name().equals(name)) {
                return Optional.of(p);
            }
        }
        boolean inHistory = store.read(h -> h.createQuery("SELECT COUNT(*) FROM history_sessions WHERE "
                + "project_name = :n").bind("n", name).mapTo(Long.class).one()) > 0;
        if (inHistory) {
            return historyProjectsIncludingHidden(name);
        }
        return Optional.empty();
    }

    private Optional<IndexedProject> historyProjectsIncludingHidden(String name) {
        List<IndexedSession> sessions = sessions(name);
        if (sessions.isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(new IndexedProject(name, baseName(sessions.getFirst().projectPath()),
                sessions.getFirst().projectPath(), false, sessions.getFirst().lastActivity(), sessions.size(),
                sessions.subList(0, Math.min(LIST_SESSIONS, sessions.size()))));
    }

    /**
     * Sets the display name of a project: a registered project's through the registry, a history-only project's in
     * the index's overrides (blank restores the folder name).
     */
    public IndexedProject renameProject(String name, String displayName) {
        if (registry.find(name).isPresent()) {
            registry.rename(name, displayName);
            return findProject(name).orElseThrow(() -> projectNotFound(name));
        }
        IndexedProject p = findProject(name).orElseThrow(() -> projectNotFound(name));
        if (displayName == null) {
            throw WorkspaceException.Validation.of("displayName is required");
        }
        String shown = checkText(displayName, "displayName");
        store.write(h -> upsertProjectOverride(h, name, shown.isEmpty() ? null : shown, false, null));
        version.incrementAndGet();
        return findProject(name).orElse(p);
    }

    /**
     * Removes a project from the list: deregisters it when registered, and hides its history until a session shows
     * new activity. Files are never touched.
     */
    public void deleteProject(String name) {
        boolean registered = registry.find(name).isPresent();
        long last = store.read(h -> h.createQuery("SELECT COALESCE(MAX(last_activity), -1) FROM history_sessions "
                + "WHERE project_name = :n").bind("n", name).mapTo(Long.class).one());
        if (!registered && last < 0) {
            throw projectNotFound(name);
        }
        if (registered) {
            registry.delete(name);
        }
        if (last >= 0) {
            store.write(h -> upsertProjectOverride(h, name, null, true, last));
            version.incrementAndGet();
        }
    }

    /** Shows a hidden history project again (a quick-start of its folder). */
    public void unhideProject(String name) {
        store.write(h -> h.createUpdate("UPDATE history_project_overrides SET hidden_before = NULL WHERE "
                + "project_name = :n").bind("n", name).execute());
        version.incrementAndGet();
    }

    private Object upsertProjectOverride(Handle h, String name, String display, boolean hide, Long hiddenBefore) {
        long now = clock.millis();
        int n = hide
                ? h.createUpdate("UPDATE history_project_overrides SET hidden_before = :hb, updated_at = :t WHERE "
                        + "project_name = :n").bind("hb", hiddenBefore).bind("t", now).bind("n", name).execute()
                : h.createUpdate("UPDATE history_project_overrides SET display_name = :d, updated_at = :t WHERE "
                        + "project_name = :n").bind("d", display).bind("t", now).bind("n", name).execute();
        if (n == 0) {
            h.createUpdate("INSERT INTO history_project_overrides (project_name, display_name, hidden_before, "
                    + "updated_at) VALUES (:n, :d, :hb, :t)").bind("n", name).bind("d", display)
                    .bind("hb", hide ? hiddenBefore : null).bind("t", now).execute();
        }
        return null;
    }

    // ------------------------------------------------------------------ sessions

    /** The sessions of a project (sub-agent sessions excluded), most recent activity first; empty when none. */
    public List<IndexedSession> sessions(String projectName) {
        return store.read(h -> h.createQuery("SELECT s.*, o.title AS custom_title FROM history_sessions s LEFT JOIN "
                + "history_session_overrides o ON o.provider = s.provider AND o.session_id = s.session_id WHERE "
                + "s.project_name = :p AND s.subagent = 0 ORDER BY s.last_activity DESC, s.id DESC")
                .bind("p", projectName).map(HistoryIndex::sessionRow).list());
    }

    /** The sessions of a project, or {@code PROJECT_NOT_FOUND} when the name is neither in history nor registered. */
    public List<IndexedSession> projectSessions(String projectName) {
        List<IndexedSession> s = sessions(projectName);
        if (s.isEmpty() && registry.find(projectName).isEmpty()) {
            throw projectNotFound(projectName);
        }
        return s;
    }

    /** {@code messages}: the stored rows' count, exact whenever {@code offset >= 0} (written with the last rows). */
    private record Row(long key, String provider, String sessionId, Path home, String path, long size, long mtime,
            long offset, String projectName, long messages) {
    }

    private Row findSession(String projectName, String sessionId, String provider) {
        if (sessionId == null || sessionId.isEmpty() || sessionId.length() > 300) {
            throw sessionNotFound();
        }
        List<Row> rows = store.read(h -> h.createQuery("SELECT * FROM history_sessions WHERE session_id = :s"
                        + (provider != null ? " AND provider = :p" : "") + " ORDER BY last_activity DESC")
                .bind("s", sessionId).bindMap(provider == null ? Map.of() : Map.of("p", provider))
                .map((rs, ctx) -> new Row(rs.getLong("id"), rs.getString("provider"), rs.getString("session_id"),
                        Path.of(rs.getString("home")), rs.getString("path"), rs.getLong("size"), rs.getLong("mtime"),
                        rs.getLong("read_offset"), rs.getString("project_name"), rs.getLong("message_count")))
                .list());
        for (Row r : rows) {
            if (projectName == null || projectName.equals(r.projectName())) {
                return r;
            }
        }
        throw sessionNotFound();
    }

    /**
     * A page of a session's messages, counted back from the newest (docs/history.md, "Paging direction"). A session
     * whose messages are not indexed yet is read from its file.
     *
     * @param provider null for any provider
     */
    public MessagePage messages(String projectName, String sessionId, String provider, int limit, int offset) {
        if (limit < 0 || offset < 0) {
            throw WorkspaceException.Validation.of("limit and offset must not be negative");
        }
        Row row = findSession(projectName, sessionId, provider);
        if (row.offset() < 0) {
            SessionFile f = new SessionFile(row.provider(), row.home(), Path.of(row.path()), row.sessionId(),
                    row.size(), Instant.ofEpochMilli(row.mtime()));
            try {
                return readers.get(row.provider()).messages(f, limit, offset);
            } catch (IOException e) {
                throw sessionNotFound();
            }
        }
        List<Long> sources = new ArrayList<>();
        MessagePage stored = store.read(h -> {
            int total = (int) Math.min(Integer.MAX_VALUE, row.messages());
            if (limit == 0 || offset >= total) {
                return new MessagePage(List.of(), total, false, offset, limit);
            }
            List<HistoryMessage> page = new ArrayList<>(h.createQuery("SELECT * FROM history_messages WHERE "
                            + "session_key = :k ORDER BY position DESC LIMIT :l OFFSET :o").bind("k", row.key())
                    .bind("l", limit).bind("o", offset)
                    .map((rs, ctx) -> {
                        long src = rs.getLong("src_offset");
                        sources.add(rs.wasNull() ? -1 : src);
                        return new HistoryMessage(rs.getString("msg_id"), row.sessionId(), rs.getString("role"),
                                rs.getString("kind"), rs.getString("text"), rs.getString("tool_name"),
                                rs.getString("tool_call_id"), rs.getString("tool_input"), rs.getString("tool_output"),
                                rs.getInt("tool_error") != 0,
                                rs.getObject("ts") == null ? null : Instant.ofEpochMilli(rs.getLong("ts")),
                                usage(rs.getString("usage_json")), -1);
                    }).list());
            Collections.reverse(page);
            Collections.reverse(sources);
            boolean more = total - offset - page.size() > 0;
            return new MessagePage(page, total, more, offset, limit);
        });
        if (sources.stream().anyMatch(o -> o >= 0)) {
            return new MessagePage(completeClipped(row, stored.messages(), sources), stored.total(), stored.hasMore(),
                    stored.offset(), stored.limit());
        }
        return stored;
    }

    /**
     * Completes the clipped tool payloads of a page from the session's file: each clipped message's record is read
     * again on its own; when a record no longer yields the message (the file was rewritten, or the message depends
     * on earlier records) the file is read once from the start instead. Messages that cannot be completed keep what
     * the index holds.
     */
    private List<HistoryMessage> completeClipped(Row row, List<HistoryMessage> page, List<Long> sources) {
        SessionFile f = new SessionFile(row.provider(), row.home(), Path.of(row.path()), row.sessionId(), row.size(),
                Instant.ofEpochMilli(row.mtime()));
        HistoryReader reader = readers.get(row.provider());
        List<HistoryMessage> out = new ArrayList<>(page);
        Map<Long, Map<String, HistoryMessage>> records = new HashMap<>();
        Map<String, Integer> missing = new HashMap<>();
        for (int i = 0; i < out.size(); i++) {
            long src = sources.get(i);
            if (src < 0) {
                continue;
            }
            HistoryMessage m = out.get(i);
            Map<String, HistoryMessage> record = records.computeIfAbsent(src, o -> {
                RecordKey rk = new RecordKey(f.path().toString(), o, f.size(), f.modified().toEpochMilli());
                Map<String, HistoryMessage> cached = recordCache.get(rk);
                if (cached != null) {
                    return cached;
                }
                Map<String, HistoryMessage> byId = new HashMap<>();
                try {
                    for (HistoryMessage r : reader.recordAt(f, o)) {
                        byId.put(r.id(), r);
                    }
                } catch (IOException | RuntimeException e) {
                    LOG.log(Level.DEBUG, "cannot re-read {0} at {1}: {2}", f.path(), o, e.toString());
                    return byId;
                }
                recordCache.put(rk, byId);
                return byId;
            });
            HistoryMessage whole = record.get(m.id());
            if (whole != null && sameCall(m, whole)) {
                out.set(i, withTools(m, whole));
            } else {
                missing.put(m.id(), i);
            }
        }
        if (!missing.isEmpty()) {
            try {
                reader.readFrom(f, 0, msg -> {
                    Integer at = missing.get(msg.id());
                    if (at != null && sameCall(out.get(at), msg)) {
                        out.set(at, withTools(out.get(at), msg));
                    }
                });
            } catch (IOException | RuntimeException e) {
                LOG.log(Level.DEBUG, "cannot read {0} to complete tool payloads: {1}", f.path(), e.toString());
            }
        }
        return out;
    }

    /** A record of a session file as it was at a given size and mtime (any change to the file is another key). */
    private record RecordKey(String path, long offset, long size, long mtime) {
    }

    /**
     * Records re-read to complete clipped tool payloads, least recently used first out, bounded by their chars:
     * clients re-read the newest page of an open session often, and its records are the expensive part of it.
     */
    private static final class RecordCache {
        private final long maxChars;
        private long chars;
        private final LinkedHashMap<RecordKey, Map<String, HistoryMessage>> map = new LinkedHashMap<>(64, 0.75f, true);

        RecordCache(long maxChars) {
            this.maxChars = maxChars;
        }

        synchronized Map<String, HistoryMessage> get(RecordKey k) {
            return map.get(k);
        }

        synchronized void put(RecordKey k, Map<String, HistoryMessage> record) {
            long size = size(record);
            if (size > maxChars / 4) {
                return;
            }
            Map<String, HistoryMessage> old = map.put(k, record);
            chars += size - (old == null ? 0 : size(old));
            var it = map.entrySet().iterator();
            while (chars > maxChars && it.hasNext()) {
                chars -= size(it.next().getValue());
                it.remove();
            }
        }

        private static long size(Map<String, HistoryMessage> record) {
            long n = 64;
            for (HistoryMessage m : record.values()) {
                n += len(m.text()) + len(m.toolInputJson()) + len(m.toolOutput()) + 64;
            }
            return n;
        }
    }

    private final RecordCache recordCache = new RecordCache(RECORD_CACHE_CHARS);

    /** Chars of re-read records kept (see {@link RecordCache}). */
    private static final long RECORD_CACHE_CHARS = 2L * 1024 * 1024;

    private static boolean sameCall(HistoryMessage stored, HistoryMessage read) {
        return java.util.Objects.equals(stored.kind(), read.kind())
                && java.util.Objects.equals(stored.toolCallId(), read.toolCallId());
    }

    private static HistoryMessage withTools(HistoryMessage m, HistoryMessage whole) {
        return new HistoryMessage(m.id(), m.sessionId(), m.role(), m.kind(), m.text(), m.toolName(), m.toolCallId(),
                whole.toolInputJson(), whole.toolOutput(), m.toolError(), m.timestamp(), m.usage(), m.nativeOffset());
    }

    /**
     * Sets a session's title (stored in the index, survives re-indexing); blank removes it, so the CLI's title shows
     * again. Returns the session's title now.
     *
     * @param provider null for any provider (the most recently active session with this id)
     */
    public IndexedSession renameSession(String sessionId, String provider, String title) {
        if (title == null) {
            throw WorkspaceException.Validation.of("title is required");
        }
        String shown = checkText(title, "title");
        Row row = findSession(null, sessionId, provider);
        store.write(h -> {
            h.createUpdate("DELETE FROM history_session_overrides WHERE provider = :p AND session_id = :s")
                    .bind("p", row.provider()).bind("s", row.sessionId()).execute();
            if (!shown.isEmpty()) {
                h.createUpdate("INSERT INTO history_session_overrides (provider, session_id, title, updated_at) "
                                + "VALUES (:p, :s, :t, :u)").bind("p", row.provider()).bind("s", row.sessionId())
                        .bind("t", shown).bind("u", clock.millis()).execute();
            }
            return null;
        });
        version.incrementAndGet();
        return session(row.key());
    }

    private IndexedSession session(long key) {
        return store.read(h -> h.createQuery("SELECT s.*, o.title AS custom_title FROM history_sessions s LEFT JOIN "
                + "history_session_overrides o ON o.provider = s.provider AND o.session_id = s.session_id WHERE "
                + "s.id = :k").bind("k", key).map(HistoryIndex::sessionRow).findOne().orElseThrow(
                        HistoryIndex::sessionNotFound));
    }

    /**
     * Deletes a session's history: for providers that keep one file per session, the file (after checking by real
     * path that it is inside that provider's history directory), claude's {@code <sessionId>/} folder next to it and
     * codex's lines in {@code session_index.jsonl}; then the index rows. Shared SQLite stores (opencode, cursor) are
     * refused with {@code SESSION_DELETE_UNSUPPORTED}.
     */
    public void deleteSession(String projectName, String sessionId, String provider) {
        Row row = findSession(projectName, sessionId, provider);
        if (!FILE_PROVIDERS.contains(row.provider())) {
            throw new WorkspaceException.Conflict(HistoryErrorCodes.SESSION_DELETE_UNSUPPORTED, row.provider()
                    + " keeps sessions in a shared database, which the service does not modify");
        }
        // stop indexing it first: a reader still holding its messages would write them after the delete
        known.remove(key(row.provider(), row.sessionId()));
        pending.remove(row.key());
        long until = System.nanoTime() + 5_000_000_000L;
        while (running.contains(row.key()) && System.nanoTime() < until) {
            try {
                Thread.sleep(5);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        Path file = Path.of(row.path());
        Path root = row.home().resolve(switch (row.provider()) {
            case HistoryProviders.CLAUDE -> ".claude/projects";
            case HistoryProviders.CODEX -> ".codex/sessions";
            case HistoryProviders.GEMINI -> ".gemini/tmp";
            default -> ".qwen";
        });
        try {
            if (Files.exists(file, LinkOption.NOFOLLOW_LINKS)) {
                Path realRoot = root.toRealPath();
                Path real = file.toRealPath();
                if (!real.startsWith(realRoot) || real.equals(realRoot) || !Files.isRegularFile(real)
                        || Files.isSymbolicLink(file)) {
                    throw new WorkspaceException.Forbidden(org.agentworkspace.api.files.FileErrorCodes
                            .PATH_OUTSIDE_PROJECT, "the session file is not inside the provider's history folder");
                }
                Files.delete(real);
                if (HistoryProviders.CLAUDE.equals(row.provider())) {
                    deleteTree(real.resolveSibling(row.sessionId()), realRoot);
                }
            }
            if (HistoryProviders.CODEX.equals(row.provider())) {
                CodexIndexFile.remove(row.home().resolve(".codex/session_index.jsonl"), row.sessionId());
            }
        } catch (IOException e) {
            throw new WorkspaceException.Unavailable(org.agentworkspace.api.ErrorCodes.INTERNAL_ERROR,
                    "the session file could not be deleted", e);
        }
        List<FullText.Op> removed = new ArrayList<>();
        FullText ft = fullText();
        store.write(h -> {
            removed.addAll(indexedIds(h, row.key(), ft));
            h.createUpdate("DELETE FROM history_messages WHERE session_key = :k").bind("k", row.key()).execute();
            h.createUpdate("DELETE FROM history_sessions WHERE id = :k").bind("k", row.key()).execute();
            h.createUpdate("DELETE FROM history_session_overrides WHERE provider = :p AND session_id = :s")
                    .bind("p", row.provider()).bind("s", row.sessionId()).execute();
            return null;
        });
        if (ft != null) {
            ft.submit(removed);
        }
        known.remove(key(row.provider(), row.sessionId()));
        pending.remove(row.key());
        version.incrementAndGet();
    }

    private static void deleteTree(Path dir, Path realRoot) throws IOException {
        if (!Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS) || !dir.toRealPath().startsWith(realRoot)) {
            return;
        }
        try (var walk = Files.walk(dir)) {
            List<Path> all = walk.sorted(Comparator.reverseOrder()).toList();
            for (Path p : all) {
                Files.deleteIfExists(p);
            }
        }
    }

    // ------------------------------------------------------------------ search

    /** A search candidate: its bm25 (FTS5's sign: lower is better; 0 unranked) and message id. */
    private record Ranked(double score, long id) {
    }

    /**
     * Full-text search over message text, best match first: SQLite FTS5 with bm25 over the newest
     * {@link #RANK_CANDIDATES} matches, PostgreSQL {@code websearch_to_tsquery}/{@code ts_rank}. Every word of the
     * query must match (words are letters, digits and {@code _}; other characters separate them).
     *
     * @param provider null for every provider
     */
    public SearchResults search(String query, String provider, int limit) {
        if (query == null || query.isBlank() || query.length() > MAX_QUERY) {
            throw new WorkspaceException.Validation(HistoryErrorCodes.INVALID_QUERY,
                    "give a query of 1 to " + MAX_QUERY + " characters");
        }
        List<String> words = new ArrayList<>();
        Matcher m = WORD.matcher(query.toLowerCase(Locale.ROOT));
        while (m.find() && words.size() < 32) {
            words.add(m.group());
        }
        if (words.isEmpty()) {
            throw new WorkspaceException.Validation(HistoryErrorCodes.INVALID_QUERY,
                    "the query holds no word to search for");
        }
        if (limit < 1 || limit > 500) {
            throw WorkspaceException.Validation.of("limit must be between 1 and 500");
        }
        return store.dialect() == Dialect.SQLITE ? searchSqlite(words, provider, limit)
                : searchPostgres(words, provider, limit);
    }

    private static final String HIT_COLUMNS = "s.provider, s.session_id, s.project_name, s.title, s.first_prompt, "
            + "o.title AS custom_title, m.msg_id, m.role, m.ts";

    private SearchResults searchSqlite(List<String> words, String provider, int limit) {
        // the search file keeps no token positions (FullText): each token of the query is a term of its own
        List<String> terms = Snippets.terms(words);
        if (terms.isEmpty()) {
            return new SearchResults(List.of(), 0);
        }
        String match = String.join(" ", terms.stream().map(w -> "\"" + w + "\"").toList());
        String fts = FullText.TABLE;
        String join = provider == null ? "" : " JOIN ws.history_messages m ON m.id = " + fts + ".rowid JOIN "
                + "ws.history_sessions s ON s.id = m.session_key";
        String pf = provider == null ? "" : " AND s.provider = ?";
        FullText ft = fullText();
        if (ft == null) {
            throw new WorkspaceException.Unavailable(org.agentworkspace.api.ErrorCodes.STORE_UNAVAILABLE,
                    "the search index is closed", null);
        }
        java.sql.Connection c;
        try {
            c = ft.reader();
        } catch (java.sql.SQLException e) {
            throw new WorkspaceException.Unavailable(org.agentworkspace.api.ErrorCodes.STORE_UNAVAILABLE,
                    "the search index is unavailable", e);
        }
        boolean ok = false;
        try {
            int total;
            try (java.sql.PreparedStatement ps = c.prepareStatement("SELECT COUNT(*) FROM (SELECT " + fts + ".rowid "
                    + "FROM " + fts + join + " WHERE " + fts + " MATCH ?" + pf + " LIMIT " + MAX_TOTAL + ") x")) {
                ps.setString(1, match);
                if (provider != null) {
                    ps.setString(2, provider);
                }
                try (java.sql.ResultSet rs = ps.executeQuery()) {
                    total = rs.next() ? rs.getInt(1) : 0;
                }
            }
            // bm25 reads the whole doclist of every term (its document frequency): for a query matching more than
            // MAX_TOTAL messages relevance hardly separates them, so the newest matches come first (score 0)
            boolean common = total >= MAX_TOTAL;
            List<SearchHit> hits = new ArrayList<>();
            // the rows to show, best first: the newest matches (score 0), or the best of the newest
            // RANK_CANDIDATES by bm25, computed here (the search file keeps no token positions: see Bm25). The
            // store's rows by id: a full-text row whose message is gone (removal not applied yet) drops out.
            List<Ranked> ranked = new ArrayList<>();
            try (java.sql.PreparedStatement ps = c.prepareStatement("SELECT c.rid" + (common ? "" : ", m.text")
                    + " FROM (SELECT " + fts + ".rowid AS rid FROM " + fts + join + " WHERE " + fts + " MATCH ?" + pf
                    + " ORDER BY " + fts + ".rowid DESC LIMIT " + (common ? limit : RANK_CANDIDATES)
                    + ") c JOIN ws.history_messages m ON m.id = c.rid")) {
                ps.setString(1, match);
                if (provider != null) {
                    ps.setString(2, provider);
                }
                // a lone term's row count is the total just counted (exact below MAX_TOTAL) unless a provider filtered
                Bm25 bm25 = common ? null : Bm25.of(c, fts, terms, terms.size() == 1 && provider == null ? total : -1);
                Snippets.TermCounter counter = Snippets.termCounter(terms);
                int[] counts = new int[terms.size()];
                try (java.sql.ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        double score = 0.0;
                        if (bm25 != null) {
                            score = bm25.score(counts, counter.count(rs.getString(2), counts));
                        }
                        ranked.add(new Ranked(score, rs.getLong(1)));
                    }
                }
            }
            // the lowest bm25 first, then the newest
            ranked.sort(Comparator.comparingDouble(Ranked::score).thenComparing(Ranked::id, Comparator.reverseOrder()));
            int n = Math.min(limit, ranked.size());
            if (n > 0) {
                Map<Long, SearchHit> byId = new HashMap<>();
                Map<Long, Double> scoreOf = new HashMap<>();
                for (int i = 0; i < n; i++) {
                    scoreOf.put(ranked.get(i).id(), ranked.get(i).score());
                }
                try (java.sql.PreparedStatement ps = c.prepareStatement("SELECT " + HIT_COLUMNS + ", m.text, m.id "
                        + "FROM ws.history_messages m JOIN ws.history_sessions s ON s.id = m.session_key LEFT JOIN "
                        + "ws.history_session_overrides o ON o.provider = s.provider AND o.session_id = s.session_id "
                        + "WHERE m.id IN (" + String.join(",", java.util.Collections.nCopies(n, "?")) + ")")) {
                    for (int i = 0; i < n; i++) {
                        ps.setLong(i + 1, ranked.get(i).id());
                    }
                    try (java.sql.ResultSet rs = ps.executeQuery()) {
                        while (rs.next()) {
                            long id = rs.getLong("id");
                            // a score as the API shows it: higher is better, 0 without ranking
                            byId.put(id, hit(rs, Snippets.snippet(rs.getString("text"), terms), 0.0 - scoreOf.get(id)));
                        }
                    }
                }
                for (int i = 0; i < n; i++) {
                    SearchHit h = byId.get(ranked.get(i).id());
                    if (h != null) {
                        hits.add(h);
                    }
                }
            }
            ok = true;
            return new SearchResults(hits, total);
        } catch (java.sql.SQLException e) {
            throw new WorkspaceException.Unavailable(org.agentworkspace.api.ErrorCodes.STORE_UNAVAILABLE,
                    "the search index is unavailable", e);
        } finally {
            if (ok) {
                ft.release(c);
            } else {
                try {
                    c.close();
                } catch (java.sql.SQLException e) {
                    // dropped
                }
            }
        }
    }

    private SearchResults searchPostgres(List<String> words, String provider, int limit) {
        String q = String.join(" ", words);
        String pf = provider == null ? "" : " AND s.provider = :prov";
        return store.read(h -> {
            Map<String, Object> binds = new HashMap<>();
            binds.put("q", q);
            if (provider != null) {
                binds.put("prov", provider);
            }
            int total = h.createQuery("SELECT COUNT(*) FROM (SELECT m.id FROM history_messages m JOIN history_sessions s "
                    + "ON s.id = m.session_key WHERE m.text_search @@ websearch_to_tsquery('simple', :q)" + pf
                    + " LIMIT " + MAX_TOTAL + ") x").bindMap(binds).mapTo(Integer.class).one();
            List<SearchHit> hits = h.createQuery("SELECT " + HIT_COLUMNS + ", ts_headline('simple', left(m.text, "
                    + "200000), websearch_to_tsquery('simple', :q), 'StartSel=«, StopSel=», MaxWords=24, MinWords=8') "
                    + "AS snip, c.score FROM (SELECT m.id, " + (total >= MAX_TOTAL ? "0.0"
                    : "ts_rank(m.text_search, websearch_to_tsquery('simple', :q))")
                    + " AS score FROM history_messages m JOIN history_sessions s ON s.id = m.session_key WHERE "
                    + "m.text_search @@ websearch_to_tsquery('simple', :q)" + pf + " ORDER BY score DESC, m.id DESC "
                    + "LIMIT :lim) c JOIN history_messages m ON m.id = c.id JOIN history_sessions s ON s.id = "
                    + "m.session_key LEFT JOIN history_session_overrides o ON o.provider = s.provider AND "
                    + "o.session_id = s.session_id ORDER BY c.score DESC, m.id DESC")
                    .bindMap(binds).bind("lim", limit)
                    .map((rs, ctx) -> hit(rs, rs.getString("snip"), rs.getDouble("score"))).list();
            return new SearchResults(hits, total);
        });
    }

    private static SearchHit hit(java.sql.ResultSet rs, String snippet, double score) throws java.sql.SQLException {
        return new SearchHit(rs.getString("provider"), rs.getString("session_id"), rs.getString("project_name"),
                displayTitle(rs.getString("custom_title"), rs.getString("title"), rs.getString("first_prompt"),
                        rs.getString("session_id")),
                rs.getString("msg_id"), rs.getString("role"),
                rs.getObject("ts") == null ? null : Instant.ofEpochMilli(rs.getLong("ts")), snippet, score);
    }

    // ------------------------------------------------------------------ helpers

    private static IndexedSession sessionRow(java.sql.ResultSet rs, org.jdbi.v3.core.statement.StatementContext ctx)
            throws java.sql.SQLException {
        String custom = rs.getString("custom_title");
        String title = rs.getString("title");
        String fp = rs.getString("first_prompt");
        String sid = rs.getString("session_id");
        boolean read = rs.getLong("read_offset") >= 0;
        return new IndexedSession(rs.getString("provider"), sid, rs.getString("project_name"),
                rs.getString("project_path"), displayTitle(custom, title, fp, sid), custom, fp,
                Instant.ofEpochMilli(rs.getLong("created_at")), Instant.ofEpochMilli(rs.getLong("last_activity")),
                read ? Integer.valueOf((int) Math.min(Integer.MAX_VALUE, rs.getLong("message_count"))) : null,
                rs.getInt("subagent") != 0);
    }

    static String displayTitle(String custom, String title, String firstPrompt, String sessionId) {
        return custom != null && !custom.isBlank() ? custom : SessionSummary.displayTitle(title, firstPrompt, sessionId);
    }

    private String projectName(String projectPath) {
        if (projectPath == null || projectPath.isBlank() || !projectPath.startsWith("/")) {
            return null;
        }
        String cleanPath = clean(projectPath);
        return projectNames.computeIfAbsent(cleanPath, p -> {
            Path path;
            try {
                path = Path.of(p).normalize();
            } catch (RuntimeException e) {
                return null;
            }
            try {
                path = path.toRealPath();
            } catch (IOException | RuntimeException e) {
                // the folder is gone or elsewhere: the recorded path names the project
            }
            return ProjectRegistry.nameFor(path);
        });
    }

    private List<String> knownProjectPaths() {
        List<String> out = new ArrayList<>();
        try {
            registry.list().forEach(p -> out.add(p.path()));
        } catch (RuntimeException e) {
            // the store is closing
        }
        out.addAll(projectNames.keySet());
        return out;
    }

    private static String checkText(String value, String field) {
        String shown = value.strip();
        if (shown.length() > MAX_TITLE) {
            throw WorkspaceException.Validation.of(field + " is longer than " + MAX_TITLE + " characters");
        }
        for (int i = 0; i < shown.length(); i++) {
            if (Character.isISOControl(shown.charAt(i))) {
                throw WorkspaceException.Validation.of(field + " contains a control character");
            }
        }
        return shown;
    }

    private static String baseName(String path) {
        if (path == null) {
            return null;
        }
        int i = path.lastIndexOf('/');
        String b = i >= 0 ? path.substring(i + 1) : path;
        return b.isEmpty() ? path : b;
    }

    static String key(String provider, String sessionId) {
        return provider + "\n" + sessionId;
    }

    /** PostgreSQL refuses NUL characters in text. */
    private static String clean(String s) {
        return s == null || s.indexOf('\u0000') < 0 ? s : s.replace("\u0000", "");
    }

    private static String clip(String s, int max) {
        String c = clean(s);
        return c == null || c.length() <= max ? c : c.substring(0, max);
    }

    private static String usageJson(Usage u) {
        if (u == null) {
            return null;
        }
        // the text Jackson writes for this object, without building a tree for every stored message's usage
        return "{\"inputTokens\":" + u.inputTokens() + ",\"outputTokens\":" + u.outputTokens()
                + ",\"cacheReadTokens\":" + u.cacheReadTokens() + ",\"cacheWriteTokens\":" + u.cacheWriteTokens()
                + "}";
    }

    private static Usage usage(String json) {
        if (json == null) {
            return null;
        }
        try {
            JsonNode n = JSON.readTree(json);
            return new Usage(n.path("inputTokens").asLong(), n.path("outputTokens").asLong(),
                    n.path("cacheReadTokens").asLong(), n.path("cacheWriteTokens").asLong());
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    /** {@code PROJECT_NOT_FOUND}, naming the registered projects the caller may have meant. */
    private WorkspaceException projectNotFound(String name) {
        return ProjectRegistry.notFound(name, registry.candidates(name));
    }

    private static WorkspaceException sessionNotFound() {
        return new WorkspaceException.NotFound(HistoryErrorCodes.SESSION_NOT_FOUND, "no such session");
    }

    /** Stops the background threads (the index stays in the store). */
    @Override
    public synchronized void close() {
        closed = true;
        if (watcher != null) {
            watcher.close();
        }
        if (scheduler != null) {
            scheduler.shutdownNow();
        }
        for (Thread t : threads) {
            t.interrupt();
        }
        boolean stopped = true;
        for (Thread t : threads) {
            try {
                t.join(5_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
            stopped &= !t.isAlive();
        }
        FullText ft;
        synchronized (fullTextLock) {
            ft = fullText;
            fullText = null;
            fullTextClosed = true;
        }
        if (ft != null) {
            // the writer has stopped: what it handed over is applied, then the search file is marked clean
            ft.close(stopped && !Thread.currentThread().isInterrupted(), Duration.ofSeconds(10));
        }
    }

}
