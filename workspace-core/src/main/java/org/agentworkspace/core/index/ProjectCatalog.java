package org.agentworkspace.core.index;

import java.nio.file.Files;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;

import org.agentworkspace.api.WorkspaceException;
import org.agentworkspace.core.projects.ProjectRegistry;
import org.agentworkspace.core.projects.RegisteredProject;
import org.agentworkspace.core.store.Store;
import org.jdbi.v3.core.Handle;

import static org.agentworkspace.core.index.IndexState.sessionRow;
import static org.agentworkspace.core.index.HistoryIndex.LIST_SESSIONS;
import static org.agentworkspace.core.index.IndexState.baseName;
import static org.agentworkspace.core.index.IndexState.checkText;

/** The projects of the {@link HistoryIndex}: the history's projects merged with the registered ones, and their overrides. */
final class ProjectCatalog {
    private static final System.Logger LOG = System.getLogger(HistoryIndex.class.getName());
    private final IndexState st;
    private final IndexSessions sessions;
    private final Object listLock = new Object();
    private volatile Cached cached;
    private final Store store;
    private final ProjectRegistry registry;
    private final Clock clock;
    private final AtomicLong version;

    ProjectCatalog(IndexState st, IndexSessions sessions) {
        this.st = st;
        this.sessions = sessions;
        this.store = st.store;
        this.registry = st.registry;
        this.clock = st.clock;
        this.version = st.version;
    }

    private record Cached(long version, List<IndexedProject> history) {
    }
    // ------------------------------------------------------------------ projects

    /**
     * The unified project list: projects found in the history (hidden ones excluded) merged with the registered
     * projects by name, most recent activity first (a registered project without sessions by its registration).
     */
    List<IndexedProject> projects() {
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
    List<IndexedProject> historyProjects() {
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
                    .map(IndexState::sessionRow)
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
    Optional<IndexedProject> findProject(String name) {
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
        List<IndexedSession> sessions = this.sessions.sessions(name);
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
    IndexedProject renameProject(String name, String displayName) {
        if (registry.find(name).isPresent()) {
            registry.rename(name, displayName);
            return findProject(name).orElseThrow(() -> st.projectNotFound(name));
        }
        IndexedProject p = findProject(name).orElseThrow(() -> st.projectNotFound(name));
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
    void deleteProject(String name) {
        boolean registered = registry.find(name).isPresent();
        long last = store.read(h -> h.createQuery("SELECT COALESCE(MAX(last_activity), -1) FROM history_sessions "
                + "WHERE project_name = :n").bind("n", name).mapTo(Long.class).one());
        if (!registered && last < 0) {
            throw st.projectNotFound(name);
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
    void unhideProject(String name) {
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
}
