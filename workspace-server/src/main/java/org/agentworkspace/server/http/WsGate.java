package org.agentworkspace.server.http;

import java.util.Optional;
import java.util.function.Consumer;

import io.helidon.http.HeaderNames;
import io.helidon.http.Headers;
import io.helidon.http.HttpPrologue;
import io.helidon.websocket.WsUpgradeException;

import org.agentworkspace.api.ErrorCodes;
import org.agentworkspace.api.Principal;
import org.agentworkspace.api.WorkspaceException;

/**
 * Admission of WebSocket upgrades, with the guard's rules: the credential in its own carrier (a one-shot
 * {@code streamTicket}, the session cookie, or an explicit header for non-browser clients; never a reusable
 * credential in the URL), the route's scope/session/administrator rule, and the Origin: any {@code Origin} must be our
 * own host or a configured origin, and a cookie-authenticated upgrade must carry one (browsers always do; a page on
 * another site cannot make the browser lie about it). All checks run before the 101 answer.
 *
 * <p>A refused upgrade continues as a plain HTTP request; register {@link #fallback} as the HTTP route of the same
 * path so the client gets the error envelope (401, 403) instead of a bare 404.
 */
public final class WsGate {
    private final Guard guard;

    /** What closes the sockets of an account the moment it is deleted. */
    public org.agentworkspace.core.auth.AccountWatch accountWatch() {
        return guard.accountWatch();
    }

    /**
     * The store's count of open connections over every node when several nodes share the store, else null (one node:
     * the socket caps count in memory alone).
     */
    public org.agentworkspace.core.runs.OpenStreams everyNode() {
        return guard.streams().everyNode();
    }

    public WsGate(Guard guard) {
        this.guard = guard;
    }

    /** Where work runs: the node router, when one is set (docs/scale-out.md "Where work runs"). */
    public Optional<NodeRouter> nodes() {
        return guard.nodes();
    }

    /** Admits or refuses an upgrade; called from {@code WsListener.onHttpUpgrade}. */
    public Principal admit(Access access, HttpPrologue prologue, Headers headers) throws WsUpgradeException {
        return admit(access, prologue, headers, p -> {
        });
    }

    /**
     * As {@link #admit(Access, HttpPrologue, Headers)}, then {@code admission} (for instance a connection cap that
     * throws {@link WorkspaceException.RateLimited}) once the caller is known and allowed.
     */
    public Principal admit(Access access, HttpPrologue prologue, Headers headers, Consumer<Principal> admission)
            throws WsUpgradeException {
        try {
            return check(access, prologue, headers, admission);
        } catch (WorkspaceException e) {
            throw new WsUpgradeException(e.code());
        }
    }

    private Principal check(Access access, HttpPrologue prologue, Headers headers, Consumer<Principal> admission) {
        if (guard.nodes().filter(NodeRouter::runnerOnly).isPresent()) {
            // a runner-only node serves no socket; the refused upgrade continues as HTTP, which says so (403)
            throw new WorkspaceException.Forbidden(NodeRouter.RUNNER_ONLY, "this node only runs agents");
        }
        Optional<String> origin = headers.first(HeaderNames.ORIGIN);
        if (origin.isPresent() && !guard.allowedOrigin(headers, null, origin.get())) {
            throw originRejected();
        }
        Guard.Authenticated a = guard.authenticate(access, prologue.query(), headers, cookie(headers));
        try {
            if (a.carrier() == Guard.Carrier.COOKIE && origin.isEmpty()) {
                throw originRejected();
            }
            Guard.authorize(access, a.principal());
            admission.accept(a.principal());
        } catch (WorkspaceException e) {
            if (a.carrier() == Guard.Carrier.TICKET) {
                // the ticket is spent now; the HTTP answer that follows this refused upgrade must still say why
                // (403, 429) rather than 401 for a reused ticket
                prologue.query().first("streamTicket").ifPresent(t -> guard.rememberRefusal(t, e));
            }
            throw e;
        }
        return a.principal();
    }

    /**
     * The HTTP route for a WebSocket path: reached only when the upgrade was refused or not asked for. Its guard
     * answers missing or bad credentials (401) and rights (403); here the origin is checked again (403), and a request
     * that passes everything but did not ask to upgrade gets 426.
     */
    public ApiService.Handler fallback() {
        return fallback(p -> {
        });
    }

    /** As {@link #fallback()}, with the same {@code admission} check as the upgrade (answered before the 426). */
    public ApiService.Handler fallback(Consumer<Principal> admission) {
        return call -> {
            Headers h = call.request().headers();
            Optional<String> origin = h.first(HeaderNames.ORIGIN);
            if (origin.isPresent() && !guard.allowedOrigin(h, null, origin.get())) {
                throw originRejected();
            }
            boolean cookieOnly = cookie(h).isPresent() && !h.contains(HeaderNames.AUTHORIZATION)
                    && !h.contains(HeaderNames.create("X-API-Key"));
            if (cookieOnly && origin.isEmpty()) {
                throw originRejected();
            }
            admission.accept(call.principal());
            call.response().header(HeaderNames.UPGRADE, "websocket");
            call.send(io.helidon.http.Status.create(426, "Upgrade Required"), ErrorResponses.envelope(
                    "UPGRADE_REQUIRED", "this is a WebSocket endpoint: connect with a WebSocket client"));
        };
    }

    static Optional<String> cookie(Headers headers) {
        if (!headers.contains(HeaderNames.COOKIE)) {
            return Optional.empty();
        }
        for (String header : headers.get(HeaderNames.COOKIE).allValues()) {
            for (String part : header.split(";")) {
                String p = part.strip();
                if (p.startsWith("token=")) {
                    return Optional.of(p.substring("token=".length()));
                }
            }
        }
        return Optional.empty();
    }

    private static WorkspaceException originRejected() {
        return new WorkspaceException.Forbidden(ErrorCodes.ORIGIN_REJECTED, "cross-origin WebSocket refused");
    }
}
