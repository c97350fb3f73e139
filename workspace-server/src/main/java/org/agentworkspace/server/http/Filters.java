package org.agentworkspace.server.http;

import java.util.Locale;
import java.util.Optional;
import java.util.Set;

import io.helidon.http.HeaderNames;
import io.helidon.http.Status;
import io.helidon.webserver.http.Filter;
import io.helidon.webserver.http.FilterChain;
import io.helidon.webserver.http.RoutingRequest;
import io.helidon.webserver.http.RoutingResponse;

import org.agentworkspace.api.ErrorCodes;
import org.agentworkspace.server.ServerConfig;

/** Filters that run on every request, routed or not. */
public final class Filters {
    private Filters() {
    }

    /**
     * Security headers on every response; API responses are never cached. The API serves no HTML, so its content
     * security policy forbids everything.
     */
    public static Filter securityHeaders() {
        return (FilterChain chain, RoutingRequest req, RoutingResponse res) -> {
            res.header(HeaderNames.X_CONTENT_TYPE_OPTIONS, "nosniff");
            res.header(HeaderNames.create("Referrer-Policy"), "no-referrer");
            res.header(HeaderNames.create("X-Frame-Options"), "DENY");
            res.header(HeaderNames.create("Cross-Origin-Resource-Policy"), "same-origin");
            if (req.path().path().startsWith("/api/") || req.path().path().equals("/health")) {
                res.header(HeaderNames.CACHE_CONTROL, "no-store");
                res.header(HeaderNames.create("Content-Security-Policy"), "default-src 'none'; frame-ancestors 'none'");
            }
            chain.proceed();
        };
    }

    /**
     * A runner-only node ({@code --runner-only}, docs/scale-out.md "Where work runs"): it serves {@code /health} and
     * the requests other nodes of its store forward to it (their proof checks out, {@link NodeRouter}); every other
     * request, the web UI's pages included, is 403 {@value NodeRouter#RUNNER_ONLY}.
     */
    public static Filter runnerOnly(ErrorResponses errors, NodeRouter nodes) {
        return (chain, req, res) -> {
            if (req.path().path().equals("/health") || nodes.forwardedByNode(req)) {
                chain.proceed();
                return;
            }
            errors.write(res, Status.FORBIDDEN_403, NodeRouter.RUNNER_ONLY, "this node only runs agents "
                    + "(--runner-only): it serves no web UI and no API to clients; use another node of the service");
        };
    }

    /**
     * DNS-rebinding guard: while bound to loopback, only requests addressed to a loopback name (or a configured
     * one, or the host of an open public tunnel) are served; a page on attacker.example that resolves to 127.0.0.1
     * gets 403.
     */
    public static Filter hostCheck(ServerConfig config, ErrorResponses errors, Guard guard) {
        Set<String> names = new java.util.HashSet<>(Set.of("localhost", "127.0.0.1", "[::1]", "::1"));
        names.addAll(config.allowedHosts());
        return (chain, req, res) -> {
            if (config.loopbackOnly()) {
                Optional<String> host = req.headers().first(HeaderNames.HOST).map(h -> hostName(h));
                if (host.isEmpty() || !(names.contains(host.get()) || guard.exposedHost(host.get()))) {
                    errors.write(res, Status.FORBIDDEN_403, ErrorCodes.HOST_REJECTED,
                            "this server answers only to its own host names");
                    return;
                }
            }
            chain.proceed();
        };
    }

    /** The host part of a Host header, without port, lower case ({@code [::1]:3001} → {@code [::1]}). */
    static String hostName(String hostHeader) {
        String h = hostHeader.strip().toLowerCase(Locale.ROOT);
        if (h.startsWith("[")) {
            int end = h.indexOf(']');
            return end < 0 ? h : h.substring(0, end + 1);
        }
        int colon = h.lastIndexOf(':');
        return colon < 0 ? h : h.substring(0, colon);
    }
}
