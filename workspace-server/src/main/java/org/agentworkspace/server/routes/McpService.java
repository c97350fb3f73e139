package org.agentworkspace.server.routes;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;

import org.agentworkspace.api.WorkspaceException;
import org.agentworkspace.core.providers.McpScope;
import org.agentworkspace.core.providers.McpServer;
import org.agentworkspace.core.providers.McpServerSpec;
import org.agentworkspace.core.providers.McpServers;
import org.agentworkspace.server.http.Access;
import org.agentworkspace.server.http.ApiService;
import org.agentworkspace.server.http.Call;
import org.agentworkspace.server.http.Guard;
import org.agentworkspace.server.http.RouteTable;

/**
 * MCP server entries of the providers ({@code /api/providers/{provider}/mcp/servers}, and the global add), written
 * into each CLI's own file in its native shape. Session only: the entries start programs, and their environment can
 * hold secrets (listed masked).
 */
public final class McpService extends ApiService {
    private final McpServers mcp;

    public McpService(McpServers mcp, Guard guard, RouteTable table) {
        super("mcp", guard, table);
        this.mcp = mcp;
    }

    @Override
    protected void declare(Routes r) {
        // an MCP entry's command runs in every account's sessions: administrators only
        r.get("/api/providers/{provider}/mcp/servers", Access.session().admin(), this::list)
                .post("/api/providers/{provider}/mcp/servers", Access.session().admin(), this::add)
                .delete("/api/providers/{provider}/mcp/servers/{name}", Access.session().admin(), this::remove)
                .post("/api/providers/mcp/servers/global", Access.session().admin(), this::addEverywhere);
    }

    private String provider(Call call) {
        return mcp.provider(call.pathParam("provider"));
    }

    private static McpScope scope(String value) {
        return McpScope.parse(value).orElseThrow(() -> WorkspaceException.Validation.of(
                "scope must be local or user"));
    }

    private void list(Call call) {
        String provider = provider(call);
        McpScope scope = call.query("scope").map(McpService::scope).orElse(null);
        List<Map<String, Object>> out = mcp.list(provider, scope, call.query("project").orElse(null)).stream()
                .map(McpService::view).toList();
        call.ok(out);
    }

    private static Map<String, Object> view(McpServer s) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("name", s.name());
        m.put("scope", s.scope().wire());
        m.put("transport", s.transport());
        if (s.command() != null) {
            m.put("command", s.command());
        }
        m.put("args", s.args());
        m.put("env", s.env());
        if (s.url() != null) {
            m.put("url", s.url());
        }
        m.put("native", s.nativeEntry());
        return m;
    }

    /** The server described by a request body. */
    static McpServerSpec spec(JsonNode body) {
        JsonNode env = body.get("env");
        Map<String, String> vars = new LinkedHashMap<>();
        if (env != null && !env.isNull()) {
            if (!env.isObject()) {
                throw WorkspaceException.Validation.of("env must be an object of strings");
            }
            for (Map.Entry<String, JsonNode> e : env.properties()) {
                if (!e.getValue().isTextual()) {
                    throw WorkspaceException.Validation.of("env values must be strings");
                }
                vars.put(e.getKey(), e.getValue().asText());
            }
        }
        return new McpServerSpec(Call.requiredString(body, "name"), Call.requiredString(body, "command"),
                Call.optionalStrings(body, "args").orElse(new ArrayList<>()), vars);
    }

    private void add(Call call) {
        String provider = provider(call);
        JsonNode body = call.body();
        McpServerSpec spec = spec(body);
        McpScope scope = Call.optionalString(body, "scope").map(McpService::scope).orElse(McpScope.USER);
        mcp.upsert(provider, spec, scope, Call.optionalString(body, "project").orElse(null));
        call.ok(saved(provider, spec.name(), scope));
    }

    private void remove(Call call) {
        String provider = provider(call);
        McpScope scope = call.query("scope").map(McpService::scope).orElse(McpScope.USER);
        String name = call.pathParam("name");
        mcp.remove(provider, name, scope, call.query("project").orElse(null));
        call.ok(saved(provider, name, scope));
    }

    private static Map<String, Object> saved(String provider, String name, McpScope scope) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("success", true);
        m.put("provider", provider);
        m.put("name", name);
        m.put("scope", scope.wire());
        return m;
    }

    private void addEverywhere(Call call) {
        JsonNode body = call.body();
        if (body.has("scope") && !"user".equals(body.path("scope").asText())) {
            throw WorkspaceException.Validation.of("the global add writes user scope only");
        }
        McpServerSpec spec = spec(body);
        List<Map<String, Object>> results = new ArrayList<>();
        for (McpServers.GlobalResult r : mcp.addEverywhere(spec)) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("provider", r.provider());
            m.put("success", r.success());
            if (!r.success()) {
                m.put("error", Map.of("code", r.errorCode(), "message", r.errorMessage()));
            }
            results.add(m);
        }
        call.ok(Map.of("success", true, "results", results));
    }
}
