package org.agentworkspace.server.routes;

import org.agentworkspace.api.Scope;
import org.agentworkspace.api.WorkspaceException;
import org.agentworkspace.api.history.HistoryProviders;
import org.agentworkspace.core.index.HistoryIndex;
import org.agentworkspace.core.index.IndexedSession;
import org.agentworkspace.server.http.Access;
import org.agentworkspace.server.http.ApiService;
import org.agentworkspace.server.http.Call;
import org.agentworkspace.server.http.Guard;
import org.agentworkspace.server.http.RouteTable;
import org.agentworkspace.server.http.Views;

/**
 * Conversation history from the index: a session's messages (paged back from the newest), its title override,
 * full-text search over every provider, and the index's progress ({@code /api/history/index}).
 */
public final class HistoryService extends ApiService {
    private static final int DEFAULT_MESSAGES = 100;
    private static final int MAX_MESSAGES = 1000;
    private static final int DEFAULT_RESULTS = 50;
    private static final int MAX_RESULTS = 500;

    private final HistoryIndex history;
    private final java.util.function.BiPredicate<String, Long> ownsSession;
    private final PageCache pages = new PageCache();

    /**
     * @param ownsSession whether a run of the account (the id) started or continued the CLI session (the id): a
     *                    non-administrator reads only those conversations (docs/auth.md "Host state and accounts")
     */
    public HistoryService(HistoryIndex history, java.util.function.BiPredicate<String, Long> ownsSession, Guard guard,
                          RouteTable table) {
        super("history", guard, table);
        this.history = history;
        this.ownsSession = ownsSession;
    }

    @Override
    protected void declare(Routes r) {
        r.get("/api/sessions/{sessionId}/messages", Access.scope(Scope.PROJECTS_READ), this::messages)
                .put("/api/sessions/{sessionId}/rename", Access.scope(Scope.PROJECTS_WRITE).admin(), this::rename)
                .get("/api/search/conversations", Access.scope(Scope.PROJECTS_READ).admin(), this::search)
                .get("/api/history/index", Access.scope(Scope.PROJECTS_READ), this::status);
    }

    private void messages(Call call) {
        String project = call.requiredQuery("projectName");
        int limit = intQuery(call, "limit", DEFAULT_MESSAGES, 1, MAX_MESSAGES);
        int offset = intQuery(call, "offset", 0, 0, Integer.MAX_VALUE);
        if (!call.principal().user().admin()
                && !ownsSession.test(call.pathParam("sessionId"), call.principal().user().id())) {
            throw new WorkspaceException.NotFound(org.agentworkspace.core.index.HistoryErrorCodes.SESSION_NOT_FOUND,
                    "no such session among your runs' sessions (other conversations on this host are for "
                            + "administrators)");
        }
        String sessionId = call.pathParam("sessionId");
        String provider = provider(call);
        // read before the page: a page computed while the index moves on is stored under the older version
        long version = history.version();
        PageKey key = new PageKey(project, sessionId, provider, limit, offset);
        byte[] bytes = pages.get(key, version);
        if (bytes == null) {
            bytes = call.serialize(Views.messagePage(history.messages(project, sessionId, provider, limit, offset)));
            pages.put(key, version, bytes);
        }
        call.okJson(bytes);
    }

    private record PageKey(String project, String sessionId, String provider, int limit, int offset) {
    }

    /**
     * Serialized message pages, valid while the index's {@link HistoryIndex#version()} stays where it was when they
     * were computed (any stored change to any session moves it), least recently used first out, bounded by their
     * bytes. A client re-reads the pages of an open conversation often: a warm page was a store query, the completion
     * of clipped tool payloads, a map per message and ~180 KB of JSON (docs/benchmarks.md, "Message pages").
     */
    private static final class PageCache {
        private static final long MAX_BYTES = 4L * 1024 * 1024;
        private final java.util.LinkedHashMap<PageKey, byte[]> map = new java.util.LinkedHashMap<>(32, 0.75f, true);
        private long version = Long.MIN_VALUE;
        private long bytes;

        synchronized byte[] get(PageKey key, long at) {
            return at == version ? map.get(key) : null;
        }

        synchronized void put(PageKey key, long at, byte[] page) {
            if (at != version) {
                if (at < version) {
                    return; // computed before a change that another request has seen already
                }
                map.clear();
                bytes = 0;
                version = at;
            }
            if (page.length > MAX_BYTES / 4) {
                return;
            }
            byte[] old = map.put(key, page);
            bytes += page.length - (old == null ? 0 : old.length);
            var it = map.values().iterator();
            while (bytes > MAX_BYTES && it.hasNext()) {
                bytes -= it.next().length;
                it.remove();
            }
        }
    }

    private void rename(Call call) {
        com.fasterxml.jackson.databind.JsonNode body = call.body(); // the entity can be read once
        String title = Call.requiredString(body, "title");
        String provider = Call.optionalString(body, "provider").orElse(null);
        checkProvider(provider);
        IndexedSession s = history.renameSession(call.pathParam("sessionId"), provider, title);
        call.ack("sessionId", s.sessionId(), "provider", s.provider(), "title", s.title());
    }

    private void search(Call call) {
        String q = call.query("q").orElseThrow(() -> new WorkspaceException.Validation(
                org.agentworkspace.core.index.HistoryErrorCodes.INVALID_QUERY, "q is required"));
        int limit = intQuery(call, "limit", DEFAULT_RESULTS, 1, MAX_RESULTS);
        call.ok(Views.searchResults(history.search(q, provider(call), limit)));
    }

    private void status(Call call) {
        call.ok(Views.indexStatus(history.status()));
    }

    /** The optional {@code provider} query parameter, checked. */
    static String provider(Call call) {
        String p = call.query("provider").filter(s -> !s.isEmpty()).orElse(null);
        checkProvider(p);
        return p;
    }

    private static void checkProvider(String p) {
        if (p != null && !HistoryProviders.ALL.contains(p)) {
            throw new WorkspaceException.Validation(org.agentworkspace.core.agent.AgentErrorCodes.UNKNOWN_PROVIDER,
                    "provider must be one of " + String.join(", ", HistoryProviders.ALL));
        }
    }

    private static int intQuery(Call call, String name, int otherwise, int min, int max) {
        String v = call.query(name).orElse(null);
        if (v == null || v.isEmpty()) {
            return otherwise;
        }
        int n;
        try {
            n = Integer.parseInt(v);
        } catch (NumberFormatException e) {
            throw WorkspaceException.Validation.of(name + " must be an integer");
        }
        if (n < min || n > max) {
            throw WorkspaceException.Validation.of(name + " must be between " + min + " and " + max);
        }
        return n;
    }
}
