package org.agentworkspace.core.index;

import java.io.IOException;
import java.lang.System.Logger.Level;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingDeque;
import java.util.concurrent.atomic.AtomicLong;

import org.agentworkspace.api.WorkspaceException;
import org.agentworkspace.api.history.HistoryProviders;
import org.agentworkspace.api.history.SessionSummary;
import org.agentworkspace.api.history.Usage;
import org.agentworkspace.core.history.HistoryReaders;
import org.agentworkspace.core.history.SessionFile;
import org.agentworkspace.core.projects.ProjectRegistry;
import org.agentworkspace.core.store.Dialect;
import org.agentworkspace.core.store.Store;
import org.jdbi.v3.core.Handle;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import org.agentworkspace.core.index.Op.Chunk;
import org.agentworkspace.core.json.JsonMappers;

/**
 * What the parts of the {@link HistoryIndex} share: the store, the sessions the index knows, the queue of sessions to
 * read, the hand-over to the writer, the full-text index, the phase timestamps and the helpers that map stored rows.
 */
final class IndexState {
    private static final System.Logger LOG = System.getLogger(HistoryIndex.class.getName());
    /*
     * How much is in flight between the readers, the writer and the full-text thread. Messages in flight outlive
     * young collections, so what is in flight is copied into the old generation and collected there with full
     * collections: on the 2 GB benchmark history (docs/benchmarks.md run 15), bounds four times smaller than before
     * (2 MiB in flight instead of 8, chunks of 500 rows instead of 2,000, a 1 MiB full-text queue instead of 4) took the
     * full collections from 21 to 5 and the collector's pauses from ~2.7 s to ~1.2 s, for slightly more commits;
     * another halving cost more writer and full-text CPU than it saved.
     */
    /** A reader hands its writes over in chunks of at most this many rows or chars. */
    static final int CHUNK_ROWS = 500;
    static final long CHUNK_CHARS = 512L * 1024;
    /** Chars (in KiB) handed over but not stored yet: readers wait beyond this, bounding the heap. */
    static final int IN_FLIGHT_KIB = 2 * 1024;
    /**
     * The writer stores chunks in transactions of up to this many rows or chars (a chunk's chars stay in flight until
     * its transaction commits, so a transaction never holds more than what may be in flight).
     */
    static final int TX_ROWS = 5_000;
    static final long TX_CHARS = IN_FLIGHT_KIB * 1024L;
    static final int MAX_TITLE = 200;
    static final Set<String> FILE_PROVIDERS = Set.of(HistoryProviders.CLAUDE, HistoryProviders.CODEX,
            HistoryProviders.GEMINI, HistoryProviders.QWEN);
    static final ObjectMapper JSON = JsonMappers.shared();

    final Store store;
    final ProjectRegistry registry;
    final List<Path> homes;
    final Clock clock;
    final HistoryReaders readers;
    /**
     * SQLite: the full-text index in its own file, written by its own thread ({@link #fullText()} opens it: the
     * listing does once it has listed, so opening it is part of neither the engine's start nor the first list); null
     * until then and on PostgreSQL.
     */
    volatile FullText fullText;
    boolean fullTextClosed;
    final Object fullTextLock = new Object();

    /** provider + '\n' + sessionId → what the store holds about the session's file. */
    final Map<String, Known> known = new ConcurrentHashMap<>();
    final Map<String, String> projectNames = new ConcurrentHashMap<>();
    final LinkedBlockingDeque<Long> queue = new LinkedBlockingDeque<>();
    final Map<Long, SessionFile> pending = new ConcurrentHashMap<>();
    final Set<Long> running = ConcurrentHashMap.newKeySet();
    final AtomicLong corruptLines = new AtomicLong();
    final AtomicLong version = new AtomicLong();
    final java.util.concurrent.LinkedBlockingQueue<Chunk> inbox = new java.util.concurrent.LinkedBlockingQueue<>();
    final java.util.concurrent.Semaphore inFlight = new java.util.concurrent.Semaphore(IN_FLIGHT_KIB);
    final AtomicLong readNanos = new AtomicLong();
    final AtomicLong writeNanos = new AtomicLong();
    final AtomicLong writerIdleNanos = new AtomicLong();
    final AtomicLong writerCpuNanos = new AtomicLong();
    final AtomicLong writtenMessages = new AtomicLong();

    final Instant startedAt;
    volatile Instant listedAt;
    volatile Instant readyAt;
    volatile boolean closed;
    HistoryWatcher watcher;

    IndexState(Store store, ProjectRegistry registry, List<Path> homes, Clock clock) {
        this.store = store;
        this.registry = registry;
        this.homes = homes.stream().map(h -> h.toAbsolutePath().normalize()).distinct().toList();
        this.clock = clock;
        this.readers = HistoryReaders.create(this::knownProjectPaths);
        this.startedAt = clock.instant();
    }

    record Known(long key, String provider, String sessionId, Path home, String path, long size, long mtime,
            long offset, long messages) {
        Known with(long newSize, long newMtime, long newOffset, long newMessages) {
            return new Known(key, provider, sessionId, home, path, newSize, newMtime, newOffset, newMessages);
        }
    }

    /**
     * The full-text index of an SQLite store, opened on first use; null on PostgreSQL (and after close). It must be
     * open before the index writes anything: a rebuild it decides on reads the messages stored at that moment.
     */
    FullText fullText() {
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
    boolean fullTextIdle() {
        FullText ft = fullText;
        return ft == null || ft.idle();
    }

    void checkReady() {
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
     * The next id of an SQLite {@code AUTOINCREMENT} table, for rows numbered by their writer (under the store's write
     * lock, inside the writing transaction): past both the largest id and the largest ever handed out.
     */
    static long nextSqliteId(Handle h, String table) {
        return h.createQuery("SELECT MAX(COALESCE((SELECT MAX(id) FROM " + table + "), 0), COALESCE((SELECT seq "
                + "FROM sqlite_sequence WHERE name = :t), 0)) + 1").bind("t", table).mapTo(Long.class).one();
    }

    static int len(String s) {
        return s == null ? 0 : s.length();
    }

    // ------------------------------------------------------------------ helpers

    static IndexedSession sessionRow(java.sql.ResultSet rs, org.jdbi.v3.core.statement.StatementContext ctx)
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

    String projectName(String projectPath) {
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

    List<String> knownProjectPaths() {
        List<String> out = new ArrayList<>();
        try {
            registry.list().forEach(p -> out.add(p.path()));
        } catch (RuntimeException e) {
            // the store is closing
        }
        out.addAll(projectNames.keySet());
        return out;
    }

    static String checkText(String value, String field) {
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

    static String baseName(String path) {
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
    static String clean(String s) {
        return s == null || s.indexOf('\u0000') < 0 ? s : s.replace("\u0000", "");
    }

    static String clip(String s, int max) {
        String c = clean(s);
        return c == null || c.length() <= max ? c : c.substring(0, max);
    }

    static String usageJson(Usage u) {
        if (u == null) {
            return null;
        }
        // the text Jackson writes for this object, without building a tree for every stored message's usage
        return "{\"inputTokens\":" + u.inputTokens() + ",\"outputTokens\":" + u.outputTokens()
                + ",\"cacheReadTokens\":" + u.cacheReadTokens() + ",\"cacheWriteTokens\":" + u.cacheWriteTokens()
                + "}";
    }

    static Usage usage(String json) {
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
    WorkspaceException projectNotFound(String name) {
        return ProjectRegistry.notFound(name, registry.candidates(name));
    }

    static WorkspaceException sessionNotFound() {
        return new WorkspaceException.NotFound(HistoryErrorCodes.SESSION_NOT_FOUND, "no such session");
    }
}
