package org.agentworkspace.server.http;

import org.agentworkspace.api.Scope;

/**
 * What a route demands of its caller. Every route declares one; the server refuses to start otherwise.
 *
 * @param isPublic    no credential needed
 * @param scope       the scope an API key must hold ({@code null}: any authenticated caller)
 * @param adminOnly   the account must be an administrator
 * @param sessionOnly only a signed-in user (cookie or bearer JWT), never an API key: the control plane
 * @param keyOnly     only an API key (the legacy {@code /api/agent} route)
 * @param streaming   an SSE or WebSocket route, where a one-shot {@code streamTicket} query parameter is accepted
 */
public record Access(boolean isPublic, Scope scope, boolean adminOnly, boolean sessionOnly, boolean keyOnly,
                     boolean streaming) {
    public Access {
        if (sessionOnly && keyOnly) {
            throw new IllegalArgumentException("a route cannot be session-only and key-only");
        }
        if (isPublic && (scope != null || adminOnly || sessionOnly || keyOnly)) {
            throw new IllegalArgumentException("a public route declares nothing else");
        }
    }

    public static final Access PUBLIC = new Access(true, null, false, false, false, false);

    /** Any authenticated caller (session, or a key of any scope). */
    public static Access authenticated() {
        return new Access(false, null, false, false, false, false);
    }

    /** A caller holding {@code scope} (sessions hold every scope). */
    public static Access scope(Scope scope) {
        return new Access(false, scope, false, false, false, false);
    }

    /** A signed-in user only; API keys are refused (403 SESSION_REQUIRED). */
    public static Access session() {
        return new Access(false, null, false, true, false, false);
    }

    /** An API key only (401 API_KEY_REQUIRED otherwise). */
    public static Access apiKey(Scope scope) {
        return new Access(false, scope, false, false, true, false);
    }

    public Access admin() {
        return new Access(isPublic, scope, true, sessionOnly, keyOnly, streaming);
    }

    public Access stream() {
        return new Access(isPublic, scope, adminOnly, sessionOnly, keyOnly, true);
    }

    /** A one-line description for docs and error messages. */
    public String describe() {
        if (isPublic) {
            return "public";
        }
        StringBuilder b = new StringBuilder(keyOnly ? "api-key" : sessionOnly ? "session" : "authenticated");
        if (scope != null) {
            b.append(" scope=").append(scope.id());
        }
        if (adminOnly) {
            b.append(" admin");
        }
        if (streaming) {
            b.append(" stream");
        }
        return b.toString();
    }
}
