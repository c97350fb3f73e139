package org.agentworkspace.server.routes;

import java.util.LinkedHashMap;
import java.util.Map;

import org.agentworkspace.core.settings.NotificationPreferences;
import org.agentworkspace.core.settings.UserSettings;
import org.agentworkspace.server.http.Access;
import org.agentworkspace.server.http.ApiService;
import org.agentworkspace.server.http.Call;
import org.agentworkspace.server.http.Guard;
import org.agentworkspace.server.http.RouteTable;

/**
 * The caller's notification preferences ({@code /api/settings/notification-preferences}): any credential reads
 * them, only a signed-in session changes them (a key used by automation should not switch its owner's
 * notifications off).
 */
public final class SettingsService extends ApiService {
    private final UserSettings settings;

    public SettingsService(UserSettings settings, Guard guard, RouteTable table) {
        super("settings", guard, table);
        this.settings = settings;
    }

    @Override
    protected void declare(Routes r) {
        r.get("/api/settings/notification-preferences", Access.authenticated(), this::get)
                .put("/api/settings/notification-preferences", Access.session(), this::put);
    }

    private void get(Call call) {
        call.ok(view(settings.notifications(call.principal().user().id())));
    }

    private void put(Call call) {
        NotificationPreferences p = UserSettings.parse(call.body());
        call.ok(view(settings.setNotifications(call.principal().user().id(), p)));
    }

    private static Map<String, Object> view(NotificationPreferences p) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("success", true);
        m.put("preferences", UserSettings.toJson(p));
        return m;
    }
}
