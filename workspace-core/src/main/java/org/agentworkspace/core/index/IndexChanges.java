package org.agentworkspace.core.index;

import java.io.IOException;
import java.lang.System.Logger.Level;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.LinkedBlockingDeque;
import java.util.concurrent.atomic.AtomicLong;

import org.agentworkspace.api.history.HistoryProviders;
import org.agentworkspace.api.history.SessionSummary;
import org.agentworkspace.core.history.HistoryReader;
import org.agentworkspace.core.history.HistoryReaders;
import org.agentworkspace.core.history.SessionFile;
import org.agentworkspace.core.store.Dialect;
import org.agentworkspace.core.store.Store;
import org.jdbi.v3.core.Handle;

import static org.agentworkspace.core.index.IndexWriter.IDS_OF;
import static org.agentworkspace.core.index.IndexState.FILE_PROVIDERS;
import static org.agentworkspace.core.index.IndexState.clean;
import static org.agentworkspace.core.index.IndexState.clip;
import static org.agentworkspace.core.index.IndexState.key;
import static org.agentworkspace.core.index.IndexState.nextSqliteId;

import org.agentworkspace.core.index.IndexState.Known;

/**
 * How the {@link HistoryIndex} learns about sessions: rows for new files (a peek at their heads), removals, and the
 * changes the watcher and the periodic sweep report, scheduled for the readers.
 */
final class IndexChanges {
    private static final System.Logger LOG = System.getLogger(HistoryIndex.class.getName());
    private final IndexState st;
    private final Store store;
    private final List<Path> homes;
    private final HistoryReaders readers;
    private final Map<String, Known> known;
    private final LinkedBlockingDeque<Long> queue;
    private final Map<Long, SessionFile> pending;
    private final AtomicLong version;

    IndexChanges(IndexState st) {
        this.st = st;
        this.store = st.store;
        this.homes = st.homes;
        this.readers = st.readers;
        this.known = st.known;
        this.queue = st.queue;
        this.pending = st.pending;
        this.version = st.version;
    }

    static boolean needsRead(Known kn, SessionFile f) {
        return kn.offset() < 0 || kn.size() != f.size() || kn.mtime() != f.modified().toEpochMilli();
    }

    record Peeked(SessionFile file, SessionSummary summary) {
    }

    Peeked peek(SessionFile f) {
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
    void insertSessions(List<Peeked> rows) {
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
                    ps.setString(8, st.projectName(s.projectPath()));
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
    void removeVanished(java.util.function.Predicate<Map.Entry<String, Known>> seen, boolean startup) {
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

    void removeSessions(List<Known> gone) {
        if (gone.isEmpty()) {
            return;
        }
        List<FullText.Op> removed = new ArrayList<>();
        // opened outside the write: opening may write to the store itself
        FullText ft = st.fullText();
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
    static List<FullText.Op> indexedIds(Handle h, long key, FullText ft) {
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

    /** A path the st.watcher reported: the session file it belongs to, if any, is checked. */
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

    /** Lists every history directory again and reads what changed (a backstop to the st.watcher). */
    void sweep() {
        // while the first full read is under way the watcher reports changes; listing every file again then only
        // takes CPU from the readers (without a watcher the sweep is the only way to see changes, so it runs)
        if (st.closed || (st.readyAt == null && st.watcher != null)) {
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
            if (st.watcher != null) {
                st.watcher.registerMissingRoots();
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

    void enqueue(long key, SessionFile f, boolean priority) {
        boolean fresh = pending.put(key, f) == null;
        if (priority) {
            queue.addFirst(key);
        } else if (fresh) {
            queue.addLast(key);
        }
    }
}
