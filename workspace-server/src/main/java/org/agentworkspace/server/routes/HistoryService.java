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
        call.ok(Views.messagePage(history.messages(project, call.pathParam("sessionId"), provider(call), limit,
                offset)));
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
