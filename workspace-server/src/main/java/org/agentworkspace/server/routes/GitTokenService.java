package org.agentworkspace.server.routes;

import java.util.LinkedHashMap;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;

import org.agentworkspace.core.secrets.GitTokens;
import org.agentworkspace.server.http.Access;
import org.agentworkspace.server.http.ApiService;
import org.agentworkspace.server.http.Call;
import org.agentworkspace.server.http.Guard;
import org.agentworkspace.server.http.RouteTable;

/**
 * The signed-in user's git token ({@code /api/settings/git-token}), used for push and pull over HTTPS. Session
 * only; the token is stored sealed and never returned (only whether one is set and a mask of at most its last four
 * characters).
 */
public final class GitTokenService extends ApiService {
    private final GitTokens tokens;

    public GitTokenService(GitTokens tokens, Guard guard, RouteTable table) {
        super("git-token", guard, table);
        this.tokens = tokens;
    }

    @Override
    protected void declare(Routes r) {
        r.get("/api/settings/git-token", Access.session(), this::status)
                .put("/api/settings/git-token", Access.session(), this::set)
                .delete("/api/settings/git-token", Access.session(), this::delete);
    }

    private void status(Call call) {
        call.ok(view(tokens.status(call.principal().user().id())));
    }

    private void set(Call call) {
        JsonNode body = call.body();
        GitTokens.Status s = tokens.set(call.principal().user().id(), Call.requiredString(body, "token"),
                Call.optionalString(body, "username").orElse(null));
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("success", true);
        m.putAll(view(s));
        call.ok(m);
    }

    private void delete(Call call) {
        boolean removed = tokens.delete(call.principal().user().id());
        call.ack("removed", removed);
    }

    private static Map<String, Object> view(GitTokens.Status s) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("configured", s.configured());
        m.put("masked", s.masked());
        m.put("username", s.username());
        return m;
    }
}
