package org.agentworkspace.server.http;

import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.URI;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.helidon.http.HeaderName;
import io.helidon.common.uri.UriQuery;
import io.helidon.http.HeaderNames;
import io.helidon.http.Headers;
import io.helidon.http.Method;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;

import org.agentworkspace.api.ErrorCodes;
import org.agentworkspace.api.Principal;
import org.agentworkspace.api.Scope;
import org.agentworkspace.api.WorkspaceException;
import org.agentworkspace.core.auth.ApiKeys;
import org.agentworkspace.core.auth.Authentication;
import org.agentworkspace.core.auth.StreamTickets;
import org.agentworkspace.server.ServerConfig;

/**
 * Authentication and authorisation of every routed request, in one place.
 *
 * <p>Credentials, each accepted only by its own carrier: {@code X-API-Key} (keys only), {@code Authorization: Bearer}
 * (a key when it starts with {@code px_}/{@code ck_}, otherwise a session JWT), the {@code token} cookie (session
 * JWTs only), and on streaming routes the one-shot {@code streamTicket} query parameter. An explicit header wins over
 * the cookie; two header credentials, or a repeated header, are refused. {@code ?apiKey=}, {@code ?token=} and
 * {@code ?access_token=} are refused outright unless legacy query credentials are switched on.
 *
 * <p>Browser safety: a state-changing request authenticated by the cookie alone must come from our own origin
 * (Origin, else Referer; {@code Sec-Fetch-Site} when present must be {@code same-origin}); any state-changing
 * request that names a foreign Origin is refused even on public routes; bodies of state-changing requests must be
 * JSON. Bearer and key requests are not subject to the origin rule: browsers never attach them on their own.
 */
public final class Guard {
    private static final Pattern BEARER = Pattern.compile("(?i)bearer ([^\\s]+)");
    private static final HeaderName X_API_KEY = HeaderNames.create("X-API-Key");
    private static final HeaderName X_FORWARDED_FOR = HeaderNames.create("X-Forwarded-For");
    private static final HeaderName X_FORWARDED_PROTO = HeaderNames.create("X-Forwarded-Proto");
    private static final HeaderName SEC_FETCH_SITE = HeaderNames.create("Sec-Fetch-Site");
    private static final List<String> QUERY_CREDENTIALS = List.of("apiKey", "token", "access_token");

    private final Authentication auth;
    private final SessionTokens tokens;
    private final ServerConfig config;
    private final Json json;
    /** Origins opened at run time (a public tunnel): allowed like configured ones while they are open. */
    private final java.util.Set<String> exposedOrigins = java.util.concurrent.ConcurrentHashMap.newKeySet();

    /** The JSON mapping every call of this guard uses. */
    public Json json() {
        return json;
    }

    /** What ends streams and sockets of an account the moment it is deleted. */
    public org.agentworkspace.core.auth.AccountWatch accountWatch() {
        return auth.accounts().watch();
    }

    /**
     * @param bodyFields the top-level fields each operation's JSON body may hold, by "METHOD path"
     *                   ({@link OpenApiDocument#bodyFields()}); any other field is refused by {@link Call#body()}
     */
    public Guard(Authentication auth, SessionTokens tokens, ServerConfig config, Json json,
                 java.util.Map<String, java.util.Set<String>> bodyFields) {
        this(auth, tokens, config, json, bodyFields, null);
    }

    /**
     * As above, with the store's count of open streams over every node ({@code RunEngine.openStreams()}), so the
     * per-account stream cap holds across the nodes of a shared store.
     */
    public Guard(Authentication auth, SessionTokens tokens, ServerConfig config, Json json,
                 java.util.Map<String, java.util.Set<String>> bodyFields,
                 org.agentworkspace.core.runs.OpenStreams everyNode) {
        this.auth = auth;
        this.tokens = tokens;
        this.config = config;
        this.json = json;
        this.bodyFields = java.util.Map.copyOf(bodyFields);
        this.streams = new StreamLimiter(config.connections().maxStreamsPerAccount(), everyNode);
        this.journals = new JournalStream(auth, streams);
    }

    private final java.util.Map<String, java.util.Set<String>> bodyFields;

    /** Where work runs (docs/scale-out.md): set once at start; null until then (and in tests that build no router). */
    private volatile NodeRouter nodes;

    /** Sets the node router the placed routes and the WebSocket endpoints use. */
    public void useNodes(NodeRouter router) {
        this.nodes = router;
    }

    /** The node router, or empty when none was set (every request is served here). */
    public Optional<NodeRouter> nodes() {
        return Optional.ofNullable(nodes);
    }

    /** The fields a body of this route may hold (none when the document gives the route no JSON body). */
    BodyShape bodyShape(String method, String path) {
        return new BodyShape(method + " " + path, bodyFields.getOrDefault(method + " " + path, java.util.Set.of()));
    }

    private final StreamLimiter streams;
    private final JournalStream journals;

    /** The one follower of every SSE / NDJSON stream of a journal, with this guard's stream cap. */
    public JournalStream journalStream() {
        return journals;
    }

    /** The per-account cap on open SSE and NDJSON streams, shared by every streaming route of this server. */
    public StreamLimiter streams() {
        return streams;
    }

    /** How a request proved who it is. */
    enum Carrier { HEADER, COOKIE, TICKET, QUERY }

    record Authenticated(Principal principal, Carrier carrier) {
    }

    /**
     * Runs {@code handler} if the request may reach it.
     *
     * @param maxBody the route's body limit; 0 for the server's default ({@code --max-payload-bytes}). A declared
     *                {@code Content-Length} over it is refused (413) before anything else; a chunked body is cut
     *                off by {@link Call} when it grows past it
     * @param shape   the fields the route's body may hold ({@link Call#body()} refuses any other)
     */
    void handle(Access access, long maxBody, BodyShape shape, ServerRequest req, ServerResponse res,
                ApiService.Handler handler) throws Exception {
        long limit = maxBody > 0 ? maxBody : config.maxPayloadBytes();
        if (req.headers().contentLength().orElse(0L) > limit) {
            throw new WorkspaceException.PayloadTooLarge("the request body is over " + limit + " bytes");
        }
        Principal principal = null;
        boolean unsafe = unsafe(req.prologue().method());
        if (access.isPublic()) {
            if (unsafe) {
                refuseForeignOrigin(req);
            }
        } else {
            Authenticated a = authenticate(access, req.query(), req.headers(),
                    req.headers().cookies().first("token").asOptional());
            authorize(access, a.principal());
            if (unsafe && a.carrier() == Carrier.COOKIE) {
                requireSameOrigin(req);
            }
            principal = a.principal();
        }
        if (unsafe) {
            requireJsonBody(req);
        }
        Call call = new Call(req, res, principal, json, limit, shape);
        if (unsafe) {
            // every change route, whether or not its handler reads a body: an unknown field is a 400 naming it
            call.checkBody();
        }
        handler.handle(call);
    }

    /** A ticket spent on a refused WebSocket upgrade, and why it was refused. */
    private record RefusedTicket(WorkspaceException why, long until) {
    }

    private static final int MAX_REFUSED_TICKETS = 10_000;
    private static final long REFUSAL_MEMORY_NANOS = 30_000_000_000L;
    private final java.util.concurrent.ConcurrentHashMap<String, RefusedTicket> refusedTickets =
            new java.util.concurrent.ConcurrentHashMap<>();

    /**
     * Remembers (for 30 s) why an upgrade that redeemed {@code ticket} was refused: the plain HTTP request the refused
     * upgrade continues as presents the same, now spent, ticket, and must get that answer (403, 429) instead of 401.
     */
    void rememberRefusal(String ticket, WorkspaceException why) {
        long now = System.nanoTime();
        if (refusedTickets.size() >= MAX_REFUSED_TICKETS) {
            refusedTickets.values().removeIf(r -> r.until() - now <= 0);
            if (refusedTickets.size() >= MAX_REFUSED_TICKETS) {
                return;
            }
        }
        refusedTickets.put(ticket, new RefusedTicket(why, now + REFUSAL_MEMORY_NANOS));
    }

    /** The caller if the request carries a valid header or cookie credential; never throws for a bad one. */
    public Optional<Principal> tryAuthenticate(ServerRequest req) {
        try {
            return Optional.of(authenticate(Access.authenticated(), req.query(), req.headers(),
                    req.headers().cookies().first("token").asOptional()).principal());
        } catch (WorkspaceException e) {
            return Optional.empty();
        }
    }

    /**
     * Authenticates from the parts every request has, so HTTP routes and WebSocket upgrades share the rules.
     *
     * @param cookie the {@code token} cookie's value, when present
     */
    Authenticated authenticate(Access access, UriQuery query, Headers headers, Optional<String> cookie) {
        for (String name : QUERY_CREDENTIALS) {
            if (query.contains(name) && !config.legacyQueryCredentials()) {
                throw new WorkspaceException.Unauthenticated(ErrorCodes.QUERY_CREDENTIALS_DISABLED,
                        "credentials in the URL are refused; send an Authorization or X-API-Key header");
            }
        }
        List<String> authz = values(headers, HeaderNames.AUTHORIZATION);
        List<String> keys = values(headers, X_API_KEY);
        if (authz.size() > 1 || keys.size() > 1 || (!authz.isEmpty() && !keys.isEmpty())) {
            throw new WorkspaceException.Unauthenticated(ErrorCodes.INVALID_TOKEN,
                    "send exactly one credential header");
        }
        Authenticated found;
        if (!keys.isEmpty()) {
            found = new Authenticated(key(keys.getFirst()), Carrier.HEADER);
        } else if (!authz.isEmpty()) {
            Matcher m = BEARER.matcher(authz.getFirst());
            if (!m.matches()) {
                throw new WorkspaceException.Unauthenticated(ErrorCodes.INVALID_TOKEN,
                        "the Authorization header must be 'Bearer <token>'");
            }
            String value = m.group(1);
            found = new Authenticated(ApiKeys.looksLikeKey(value) ? key(value) : session(value), Carrier.HEADER);
        } else if (config.legacyQueryCredentials() && legacyQuery(query).isPresent()) {
            String value = legacyQuery(query).get();
            found = new Authenticated(ApiKeys.looksLikeKey(value) ? key(value) : session(value), Carrier.QUERY);
        } else if (cookie.isPresent()) {
            String value = cookie.get();
            if (ApiKeys.looksLikeKey(value)) {
                throw invalidToken();
            }
            found = new Authenticated(session(value), Carrier.COOKIE);
        } else if (access.streaming() && query.contains("streamTicket")) {
            String ticket = query.first("streamTicket").orElse("");
            RefusedTicket refused = refusedTickets.remove(ticket);
            if (refused != null && refused.until() - System.nanoTime() > 0) {
                throw refused.why();
            }
            found = new Authenticated(auth.tickets().redeem(ticket).orElseThrow(StreamTickets::invalid),
                    Carrier.TICKET);
        } else {
            throw access.keyOnly()
                    ? new WorkspaceException.Unauthenticated(ErrorCodes.API_KEY_REQUIRED, "this route needs an API key")
                    : new WorkspaceException.Unauthenticated(ErrorCodes.AUTH_REQUIRED, "authentication required");
        }
        if (access.keyOnly() && found.principal().kind() != Principal.Kind.API_KEY) {
            throw new WorkspaceException.Unauthenticated(ErrorCodes.API_KEY_REQUIRED, "this route needs an API key");
        }
        return found;
    }

    private Optional<String> legacyQuery(UriQuery query) {
        for (String name : QUERY_CREDENTIALS) {
            Optional<String> v = query.first(name).asOptional();
            if (v.isPresent()) {
                return v;
            }
        }
        return Optional.empty();
    }

    private Principal key(String value) {
        return auth.apiKeys().authenticate(value).orElseThrow(() -> new WorkspaceException.Unauthenticated(
                ErrorCodes.INVALID_API_KEY, "the API key is invalid or inactive"));
    }

    private Principal session(String jwt) {
        return tokens.verify(jwt)
                .flatMap(id -> auth.accounts().find(id))
                .map(user -> new Principal(user, Principal.Kind.SESSION, null, Scope.all()))
                .orElseThrow(Guard::invalidToken);
    }

    private static WorkspaceException invalidToken() {
        return new WorkspaceException.Unauthenticated(ErrorCodes.INVALID_TOKEN,
                "the session token is invalid or expired");
    }

    static void authorize(Access access, Principal p) {
        if (access.sessionOnly() && p.kind() != Principal.Kind.SESSION) {
            throw new WorkspaceException.Forbidden(ErrorCodes.SESSION_REQUIRED,
                    "this route is for signed-in users, not API keys");
        }
        if (access.scope() != null && !p.has(access.scope())) {
            throw new WorkspaceException.Forbidden(ErrorCodes.INSUFFICIENT_SCOPE,
                    "this route needs the scope " + access.scope().id());
        }
        if (access.adminOnly() && !p.user().admin()) {
            throw new WorkspaceException.Forbidden(ErrorCodes.ADMIN_REQUIRED, "this route is for administrators");
        }
    }

    static boolean unsafe(Method m) {
        return !(m == Method.GET || m == Method.HEAD || m == Method.OPTIONS || m == Method.TRACE);
    }

    /** Cookie-authenticated change: Origin (or Referer) must be ours; fetch metadata must not say cross-site. */
    private void requireSameOrigin(ServerRequest req) {
        Optional<String> site = req.headers().first(SEC_FETCH_SITE);
        if (site.isPresent() && !site.get().equalsIgnoreCase("same-origin") && !site.get().equalsIgnoreCase("none")) {
            throw originRejected();
        }
        Optional<String> origin = req.headers().first(HeaderNames.ORIGIN);
        if (origin.isPresent()) {
            if (!allowedOrigin(req, origin.get())) {
                throw originRejected();
            }
            return;
        }
        Optional<String> referer = req.headers().first(HeaderNames.REFERER);
        if (referer.isPresent() && referrerOrigin(referer.get()).filter(o -> allowedOrigin(req, o)).isPresent()) {
            return;
        }
        throw originRejected();
    }

    /** Any change naming a foreign Origin is refused, whatever its credential. */
    private void refuseForeignOrigin(ServerRequest req) {
        Optional<String> origin = req.headers().first(HeaderNames.ORIGIN);
        if (origin.isPresent() && !allowedOrigin(req, origin.get())) {
            throw originRejected();
        }
    }

    /**
     * Allows {@code origin} ({@code https://host}) like a configured origin, and its host name in the Host header of
     * a loopback-bound server, until {@link #unexpose} (a public tunnel while it is open).
     */
    public void expose(String origin) {
        exposedOrigins.add(origin.strip().toLowerCase(Locale.ROOT));
    }

    /** Withdraws an origin given to {@link #expose}. */
    public void unexpose(String origin) {
        exposedOrigins.remove(origin.strip().toLowerCase(Locale.ROOT));
    }

    /** Whether {@code hostName} (lower case, no port) is the host of an exposed origin. */
    public boolean exposedHost(String hostName) {
        for (String o : exposedOrigins) {
            int scheme = o.indexOf("://");
            String authority = scheme < 0 ? o : o.substring(scheme + 3);
            int colon = authority.lastIndexOf(':');
            String host = colon < 0 || authority.endsWith("]") ? authority : authority.substring(0, colon);
            if (host.equals(hostName)) {
                return true;
            }
        }
        return false;
    }

    /** True when {@code origin} is this server's own origin or a configured one. */
    public boolean allowedOrigin(ServerRequest req, String origin) {
        return allowedOrigin(req.headers(), scheme(req), origin);
    }

    /**
     * True when {@code origin} equals {@code scheme://Host} or is a configured origin. {@code scheme} null accepts
     * either http or https with our Host (WebSocket upgrades, where the connection's scheme is not at hand: a page
     * served from our own host name is same-site either way).
     */
    boolean allowedOrigin(Headers headers, String scheme, String origin) {
        String o = origin.strip().toLowerCase(Locale.ROOT);
        if (config.allowedOrigins().contains(o) || exposedOrigins.contains(o)) {
            return true;
        }
        Optional<String> host = headers.first(HeaderNames.HOST);
        if (host.isEmpty()) {
            return false;
        }
        String h = host.get().strip().toLowerCase(Locale.ROOT);
        if (scheme != null) {
            return o.equals(scheme + "://" + h);
        }
        return o.equals("http://" + h) || o.equals("https://" + h);
    }

    private static Optional<String> referrerOrigin(String referer) {
        try {
            URI u = URI.create(referer.strip());
            if (u.getScheme() == null || u.getHost() == null) {
                return Optional.empty();
            }
            return Optional.of(u.getScheme() + "://" + u.getRawAuthority());
        } catch (IllegalArgumentException e) {
            return Optional.empty();
        }
    }

    /** {@code https} when the connection is TLS or a trusted proxy says the client used https. */
    public String scheme(ServerRequest req) {
        if (req.isSecure()) {
            return "https";
        }
        if (fromTrustedProxy(req) && req.headers().first(X_FORWARDED_PROTO).map("https"::equalsIgnoreCase)
                .orElse(false)) {
            return "https";
        }
        return "http";
    }

    /** The client's address: the peer, or the nearest untrusted X-Forwarded-For hop behind trusted proxies. */
    public String clientAddress(ServerRequest req) {
        String peer = peerAddress(req);
        if (!config.trustedProxies().contains(peer)) {
            return peer;
        }
        List<String> hops = values(req.headers(), X_FORWARDED_FOR).stream()
                .flatMap(v -> java.util.Arrays.stream(v.split(","))).map(String::strip).toList();
        for (int i = hops.size() - 1; i >= 0; i--) {
            if (!config.trustedProxies().contains(hops.get(i))) {
                return hops.get(i);
            }
        }
        return peer;
    }

    private boolean fromTrustedProxy(ServerRequest req) {
        return config.trustedProxies().contains(peerAddress(req));
    }

    private static String peerAddress(ServerRequest req) {
        SocketAddress a = req.remotePeer().address();
        if (a instanceof InetSocketAddress inet && inet.getAddress() != null) {
            return inet.getAddress().getHostAddress();
        }
        return String.valueOf(a);
    }

    private void requireJsonBody(ServerRequest req) {
        if (!req.content().hasEntity()) {
            return;
        }
        String type = req.headers().first(HeaderNames.CONTENT_TYPE).orElse("").toLowerCase(Locale.ROOT);
        if (!(type.equals("application/json") || type.startsWith("application/json;"))) {
            throw new WorkspaceException.UnsupportedMediaType("request bodies must be application/json");
        }
    }

    private static List<String> values(Headers headers, HeaderName name) {
        if (!headers.contains(name)) {
            return List.of();
        }
        return headers.get(name).allValues();
    }

    private static WorkspaceException originRejected() {
        return new WorkspaceException.Forbidden(ErrorCodes.ORIGIN_REJECTED,
                "cross-origin request refused");
    }
}
