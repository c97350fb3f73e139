package org.agentworkspace.server.routes;

import java.util.List;
import java.util.Map;

import org.agentworkspace.api.Scope;
import org.agentworkspace.core.index.HistoryIndex;
import org.agentworkspace.core.index.IndexedProject;
import org.agentworkspace.core.projects.ProjectRegistry;
import org.agentworkspace.core.projects.RegisteredProject;
import org.agentworkspace.server.http.Access;
import org.agentworkspace.server.http.ApiService;
import org.agentworkspace.server.http.Call;
import org.agentworkspace.server.http.Guard;
import org.agentworkspace.server.http.RouteTable;
import org.agentworkspace.server.http.Views;

/**
 * Projects ({@code /api/projects}): the unified list of projects found in the CLIs' histories (by the working
 * directory each session recorded) and registered folders, merged by name. Quick-start registers (and creates) a
 * folder; rename sets the display name (registered: in the registry; history-only: an override in the index);
 * delete deregisters and hides the history project until new activity, never touching files. A project's sessions
 * come from the history index; deleting one removes that provider's session file.
 */
public final class ProjectsService extends ApiService {
    private final ProjectRegistry projects;
    private final HistoryIndex history;

    public ProjectsService(ProjectRegistry projects, HistoryIndex history, Guard guard, RouteTable table) {
        super("projects", guard, table);
        this.projects = projects;
        this.history = history;
        table.warmUp(this::warm);
    }

    /**
     * Serializes the project list ahead of the first request: once while the server starts listening (a restart:
     * the index is in the store) and again when the history listing completes (a fresh index; on the listing thread,
     * before the index starts reading every session), so a client's first list is a cached answer rather than a
     * query competing with the indexing for the CPU.
     */
    private void warm() {
        cachedList();
        history.whenListed(this::cachedList);
    }

    private byte[] cachedList() {
        return cachedList(true);
    }

    /**
     * The list for an administrator (each project's newest sessions with their titles), or for anyone else: the same
     * projects without their sessions — the CLIs' histories on disk are every account's conversations, and only
     * administrators list them (docs/auth.md "Host state and accounts"); {@code sessionCount} stays.
     */
    private byte[] cachedList(boolean admin) {
        long hv = history.version();
        long rv = projects.version() + sessionChanges.get();
        Serialized c = admin ? listCache : memberListCache;
        boolean fresh = c != null && c.historyVersion() == hv && c.registryVersion() == rv;
        boolean recentDuringListing = c != null && c.registryVersion() == rv && !history.listed()
                && System.nanoTime() - c.builtAt() < LISTING_REBUILD_NANOS;
        if (!fresh && !recentDuringListing) {
            List<Map<String, Object>> out = history.projects().stream().map(Views::project)
                    .map(m -> admin ? m : withoutSessions(m)).toList();
            c = new Serialized(hv, rv, json().write(out));
            if (admin) {
                listCache = c;
            } else {
                memberListCache = c;
            }
        }
        return c.bytes();
    }

    private static Map<String, Object> withoutSessions(Map<String, Object> project) {
        Map<String, Object> m = new java.util.LinkedHashMap<>(project);
        m.put("sessions", List.of());
        return m;
    }

    @Override
    protected void declare(Routes r) {
        r.get("/api/projects", Access.scope(Scope.PROJECTS_READ), this::list);
        // registered by a node whose roots hold the folder (docs/scale-out.md "Where work runs")
        r.placed((call, nodes) -> org.agentworkspace.server.http.NodeRouter.absolute(
                        Call.optionalString(call.body(), "path").orElse(null)))
                .post("/api/projects/quick-start", Access.scope(Scope.PROJECTS_WRITE), this::quickStart);
        // the registry and the histories on disk are host state everyone shares: administrators rename,
        // deregister, list and delete conversations (docs/auth.md "Host state and accounts")
        r.put("/api/projects/{projectName}/rename", Access.scope(Scope.PROJECTS_WRITE).admin(), this::rename)
                .delete("/api/projects/{projectName}", Access.scope(Scope.PROJECTS_WRITE).admin(), this::delete)
                .get("/api/projects/{projectName}/sessions", Access.scope(Scope.PROJECTS_READ).admin(), this::sessions)
                .delete("/api/projects/{projectName}/sessions/{sessionId}",
                        Access.scope(Scope.PROJECTS_WRITE).admin(), this::deleteSession);
    }

    /**
     * The serialized project list and per-project session lists, kept until the index or the registry changes (the
     * index's version moves with every change it makes, the registry's with every registration, rename and
     * deregistration; a second server on the same PostgreSQL store sees another node's change once its own index
     * or registry moves).
     */
    private record Serialized(long historyVersion, long registryVersion, byte[] bytes, long builtAt) {
        Serialized(long historyVersion, long registryVersion, byte[] bytes) {
            this(historyVersion, registryVersion, bytes, System.nanoTime());
        }
    }

    /**
     * While the index is still listing (its version moves with every 1,000 sessions stored), a list at most this old
     * is answered again rather than rebuilt: clients polling a first start see progress without taking the CPU the
     * listing needs.
     */
    private static final long LISTING_REBUILD_NANOS = 500_000_000L;

    private volatile Serialized listCache;
    private volatile Serialized memberListCache;
    private volatile Serialized sessionsCacheVersion;
    private final java.util.concurrent.ConcurrentHashMap<String, byte[]> sessionsCache =
            new java.util.concurrent.ConcurrentHashMap<>();

    private void list(Call call) {
        call.okJson(cachedList(call.principal().user().admin()));
    }

    /** Session deletes through this service (the index's version also moves once it notices the file is gone). */
    private final java.util.concurrent.atomic.AtomicLong sessionChanges = new java.util.concurrent.atomic.AtomicLong();

    private void changed() {
        sessionChanges.incrementAndGet();
    }

    private Map<String, Object> view(String name, RegisteredProject fallback) {
        return history.findProject(name).map(Views::project)
                .orElseGet(() -> Views.project(new IndexedProject(fallback.name(), fallback.displayName(),
                        fallback.path(), true, fallback.createdAt(), 0, List.of())));
    }

    private void quickStart(Call call) {
        // a missing folder is created only when asked: a mistyped path must not silently become a new project
        com.fasterxml.jackson.databind.JsonNode body = call.body(); // the entity can be read once
        ProjectRegistry.QuickStart q = projects.quickStart(Call.requiredString(body, "path"),
                Call.optionalBoolean(body, "create", false));
        RegisteredProject p = q.project();
        history.unhideProject(p.name());
        changed();
        Map<String, Object> out = new java.util.LinkedHashMap<>(view(p.name(), p));
        out.put("created", q.created());
        call.ok(out);
    }

    private void rename(Call call) {
        String displayName = Call.requiredString(call.body(), "displayName");
        IndexedProject p = history.renameProject(call.pathParam("projectName"), displayName);
        changed();
        call.ack("project", Views.project(p));
    }

    private void delete(Call call) {
        history.deleteProject(call.pathParam("projectName"));
        changed();
        call.ack();
    }

    private void sessions(Call call) {
        long hv = history.version();
        long rv = projects.version() + sessionChanges.get();
        Serialized v = sessionsCacheVersion;
        if (v == null || v.historyVersion() != hv || v.registryVersion() != rv) {
            sessionsCache.clear();
            sessionsCacheVersion = new Serialized(hv, rv, null);
        }
        String name = call.pathParam("projectName");
        byte[] bytes = sessionsCache.get(name);
        if (bytes == null) {
            bytes = call.serialize(history.projectSessions(name).stream().map(Views::session).toList());
            if (sessionsCache.size() < 1000) {
                sessionsCache.put(name, bytes);
            }
        }
        call.okJson(bytes);
    }

    private void deleteSession(Call call) {
        history.deleteSession(call.pathParam("projectName"), call.pathParam("sessionId"),
                HistoryService.provider(call));
        changed();
        call.ack();
    }
}
