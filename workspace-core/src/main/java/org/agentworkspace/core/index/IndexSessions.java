package org.agentworkspace.core.index;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;

import org.agentworkspace.api.WorkspaceException;
import org.agentworkspace.api.history.HistoryProviders;
import org.agentworkspace.core.history.SessionFile;
import org.agentworkspace.core.projects.ProjectRegistry;
import org.agentworkspace.core.store.Store;

import static org.agentworkspace.core.index.IndexState.sessionRow;
import static org.agentworkspace.core.index.IndexState.FILE_PROVIDERS;
import static org.agentworkspace.core.index.IndexState.checkText;
import static org.agentworkspace.core.index.IndexState.key;
import static org.agentworkspace.core.index.IndexState.sessionNotFound;

import org.agentworkspace.core.index.IndexState.Known;

/** The sessions of the {@link HistoryIndex}: lists, lookup, titles and deleting a session with its files. */
final class IndexSessions {
    private static final System.Logger LOG = System.getLogger(HistoryIndex.class.getName());
    private final IndexState st;
    private final Store store;
    private final ProjectRegistry registry;
    private final Clock clock;
    private final Map<String, Known> known;
    private final Map<Long, SessionFile> pending;
    private final Set<Long> running;
    private final AtomicLong version;

    IndexSessions(IndexState st) {
        this.st = st;
        this.store = st.store;
        this.registry = st.registry;
        this.clock = st.clock;
        this.known = st.known;
        this.pending = st.pending;
        this.running = st.running;
        this.version = st.version;
    }

    // ------------------------------------------------------------------ sessions

    /** The sessions of a project (sub-agent sessions excluded), most recent activity first; empty when none. */
    List<IndexedSession> sessions(String projectName) {
        return store.read(h -> h.createQuery("SELECT s.*, o.title AS custom_title FROM history_sessions s LEFT JOIN "
                + "history_session_overrides o ON o.provider = s.provider AND o.session_id = s.session_id WHERE "
                + "s.project_name = :p AND s.subagent = 0 ORDER BY s.last_activity DESC, s.id DESC")
                .bind("p", projectName).map(IndexState::sessionRow).list());
    }

    /** The sessions of a project, or {@code PROJECT_NOT_FOUND} when the name is neither in history nor registered. */
    List<IndexedSession> projectSessions(String projectName) {
        List<IndexedSession> s = sessions(projectName);
        if (s.isEmpty() && registry.find(projectName).isEmpty()) {
            throw st.projectNotFound(projectName);
        }
        return s;
    }

    /** {@code messages}: the stored rows' count, exact whenever {@code offset >= 0} (written with the last rows). */
    record Row(long key, String provider, String sessionId, Path home, String path, long size, long mtime,
            long offset, String projectName, long messages) {
    }

    Row findSession(String projectName, String sessionId, String provider) {
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
     * Sets a session's title (stored in the index, survives re-indexing); blank removes it, so the CLI's title shows
     * again. Returns the session's title now.
     *
     * @param provider null for any provider (the most recently active session with this id)
     */
    IndexedSession renameSession(String sessionId, String provider, String title) {
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
                + "s.id = :k").bind("k", key).map(IndexState::sessionRow).findOne().orElseThrow(
                        IndexState::sessionNotFound));
    }

    /**
     * Deletes a session's history: for providers that keep one file per session, the file (after checking by real
     * path that it is inside that provider's history directory), claude's {@code <sessionId>/} folder next to it and
     * codex's lines in {@code session_index.jsonl}; then the index rows. Shared SQLite stores (opencode, cursor) are
     * refused with {@code SESSION_DELETE_UNSUPPORTED}.
     */
    void deleteSession(String projectName, String sessionId, String provider) {
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
        FullText ft = st.fullText();
        store.write(h -> {
            removed.addAll(IndexChanges.indexedIds(h, row.key(), ft));
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
}
