package org.agentworkspace.server.routes;

import java.util.Set;

import com.fasterxml.jackson.databind.JsonNode;

import org.agentworkspace.api.ApiKeyInfo;
import org.agentworkspace.api.ErrorCodes;
import org.agentworkspace.api.Scope;
import org.agentworkspace.core.auth.ApiKeys;
import org.agentworkspace.server.http.Access;
import org.agentworkspace.server.http.ApiService;
import org.agentworkspace.server.http.Call;
import org.agentworkspace.server.http.Guard;
import org.agentworkspace.server.http.RouteTable;
import org.agentworkspace.server.http.Views;

/**
 * The signed-in user's API keys ({@code /api/settings/api-keys}). Keys are minted and managed only from a session:
 * a key cannot create, list, toggle or delete keys.
 */
public final class ApiKeyService extends ApiService {
    private final ApiKeys keys;

    public ApiKeyService(ApiKeys keys, Guard guard, RouteTable table) {
        super("api-keys", guard, table);
        this.keys = keys;
    }

    @Override
    protected void declare(Routes r) {
        r.get("/api/settings/api-keys", Access.session(), this::list)
                .post("/api/settings/api-keys", Access.session(), this::create)
                .delete("/api/settings/api-keys/{keyId}", Access.session(), this::delete)
                .patch("/api/settings/api-keys/{keyId}/toggle", Access.session(), this::toggle);
    }

    private void list(Call call) {
        call.ok(keys.list(call.principal().user().id()).stream().map(Views::apiKey).toList());
    }

    private void create(Call call) {
        JsonNode body = call.body();
        String name = Call.requiredString(body, "name");
        Set<Scope> scopes = Call.optionalStrings(body, "scopes").map(ApiKeys::parseScopes).orElse(null);
        ApiKeyInfo created = keys.create(call.principal().user().id(), name, scopes);
        call.noStore().created(Views.apiKey(created));
    }

    private void delete(Call call) {
        keys.delete(call.principal().user().id(), call.pathId("keyId", ErrorCodes.API_KEY_NOT_FOUND));
        call.ack();
    }

    private void toggle(Call call) {
        long id = call.pathId("keyId", ErrorCodes.API_KEY_NOT_FOUND);
        boolean active = Call.requiredBoolean(call.body(), "is_active");
        call.ok(Views.apiKey(keys.setActive(call.principal().user().id(), id, active)));
    }

}
