package org.agentworkspace.server.http;

import java.util.LinkedHashMap;
import java.util.Map;

import org.agentworkspace.api.ApiKeyInfo;
import org.agentworkspace.api.Scope;
import org.agentworkspace.api.User;

/** The wire shapes of engine records, exactly as the OpenAPI document names their fields. */
public final class Views {
    private Views() {
    }

    /** {@code User}: id, username, email, created_at, is_admin. */
    public static Map<String, Object> user(User u) {
        if (u == null) {
            return null;
        }
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("id", u.id());
        m.put("username", u.username());
        m.put("email", u.email());
        m.put("created_at", u.createdAt().toString());
        m.put("is_admin", u.admin());
        return m;
    }

    /** {@code ApiKey}: the value as given (full only in the creation response). */
    public static Map<String, Object> apiKey(ApiKeyInfo k) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("id", k.id());
        m.put("key_name", k.name());
        m.put("api_key", k.value());
        m.put("created_at", k.createdAt().toString());
        m.put("last_used", k.lastUsed() == null ? null : k.lastUsed().toString());
        m.put("is_active", k.active());
        m.put("scopes", k.scopes().stream().map(Scope::id).sorted().toList());
        m.put("legacy", k.legacy());
        return m;
    }
}
