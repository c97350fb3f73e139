package org.agentworkspace.server.routes;

import com.fasterxml.jackson.databind.JsonNode;

import org.agentworkspace.api.ErrorCodes;
import org.agentworkspace.api.User;
import org.agentworkspace.core.auth.Accounts;
import org.agentworkspace.server.http.Access;
import org.agentworkspace.server.http.ApiService;
import org.agentworkspace.server.http.Call;
import org.agentworkspace.server.http.Guard;
import org.agentworkspace.server.http.RouteTable;
import org.agentworkspace.server.http.Views;

/** Account administration ({@code /api/users}): administrators, signed in, only. */
public final class UserService extends ApiService {
    private final Accounts accounts;

    public UserService(Accounts accounts, Guard guard, RouteTable table) {
        super("users", guard, table);
        this.accounts = accounts;
    }

    @Override
    protected void declare(Routes r) {
        r.get("/api/users", Access.session().admin(), this::list)
                .post("/api/users", Access.session().admin(), this::create)
                .delete("/api/users/{userId}", Access.session().admin(), this::delete);
    }

    private void list(Call call) {
        call.ok(accounts.list().stream().map(Views::user).toList());
    }

    private void create(Call call) {
        JsonNode body = call.body();
        JsonNode admin = body.get("is_admin");
        if (admin != null && !admin.isNull() && !admin.isBoolean()) {
            throw org.agentworkspace.api.WorkspaceException.Validation.of("is_admin must be true or false");
        }
        User user = accounts.create(Call.requiredString(body, "username"), Call.requiredString(body, "password"),
                Call.optionalString(body, "email").orElse(null), admin != null && admin.asBoolean());
        call.created(Views.user(user));
    }

    private void delete(Call call) {
        accounts.delete(call.principal().user().id(), call.pathId("userId", ErrorCodes.USER_NOT_FOUND));
        call.ack();
    }
}
