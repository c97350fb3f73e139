package org.agentworkspace.server.routes;

import java.time.Duration;
import java.time.Instant;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;

import io.helidon.http.HeaderName;
import io.helidon.http.HeaderNames;
import io.helidon.webserver.http.ServerRequest;

import org.agentworkspace.api.ErrorCodes;
import org.agentworkspace.api.User;
import org.agentworkspace.api.WorkspaceException;
import org.agentworkspace.core.auth.Authentication;
import org.agentworkspace.core.auth.SetupToken;
import org.agentworkspace.core.auth.StreamTickets;
import org.agentworkspace.server.ServerConfig;
import org.agentworkspace.server.http.Access;
import org.agentworkspace.server.http.ApiService;
import org.agentworkspace.server.http.Call;
import org.agentworkspace.server.http.Guard;
import org.agentworkspace.server.http.RouteTable;
import org.agentworkspace.server.http.SessionTokens;
import org.agentworkspace.server.http.Views;

/**
 * Setup, login, logout, the current user and stream tickets ({@code /api/auth/*}).
 *
 * <p>First-run registration from another machine, or through anything that forwards requests (a tunnel or reverse
 * proxy connecting from loopback announces itself with forwarding headers), needs the one-time {@link SetupToken}
 * from the data directory, so an exposed fresh install cannot be claimed by a stranger.
 */
public final class AuthService extends ApiService {
    private static final System.Logger LOG = System.getLogger(AuthService.class.getName());
    /** Header that may carry the setup token (the body field {@code setupToken} works too). */
    static final HeaderName X_SETUP_TOKEN = HeaderNames.create("X-Setup-Token");
    /** Headers by which proxies and tunnels announce that a request was forwarded. */
    private static final List<HeaderName> FORWARDING = List.of(HeaderNames.create("Forwarded"),
            HeaderNames.X_FORWARDED_FOR, HeaderNames.create("X-Real-IP"), HeaderNames.create("CF-Connecting-IP"),
            HeaderNames.X_FORWARDED_HOST, HeaderNames.create("X-Forwarded-Proto"));

    private final Authentication auth;
    private final SessionTokens tokens;
    private final Guard guard;
    private final ServerConfig config;
    private final SetupToken setupToken;

    public AuthService(Authentication auth, SessionTokens tokens, Guard guard, RouteTable table, ServerConfig config) {
        super("auth", guard, table);
        this.auth = auth;
        this.tokens = tokens;
        this.guard = guard;
        this.config = config;
        if (auth.accounts().needsSetup()) {
            this.setupToken = SetupToken.issue(config.engine().dataDir());
            LOG.log(System.Logger.Level.INFO, "No account exists yet. Register the administrator from this machine,"
                    + " or from elsewhere with the one-time setup token in " + setupToken.file());
        } else {
            this.setupToken = SetupToken.none(config.engine().dataDir());
        }
    }

    @Override
    protected void declare(Routes r) {
        r.get("/api/auth/status", Access.PUBLIC, this::status)
                .post("/api/auth/register", Access.PUBLIC, this::register)
                .post("/api/auth/login", Access.PUBLIC, this::login)
                .get("/api/auth/user", Access.authenticated(), this::user)
                .post("/api/auth/logout", Access.authenticated(), this::logout)
                .post("/api/auth/stream-ticket", Access.authenticated(), this::streamTicket);
    }

    private void status(Call call) {
        User user = guard.tryAuthenticate(call.request()).map(p -> p.user()).orElse(null);
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("success", true);
        body.put("isAuthenticated", user != null);
        body.put("needsSetup", auth.accounts().needsSetup());
        body.put("user", Views.user(user));
        call.ok(body);
    }

    private void register(Call call) {
        JsonNode body = call.body();
        String username = Call.requiredString(body, "username");
        String password = Call.requiredString(body, "password");
        if (auth.accounts().needsSetup() && !direct(call.request())) {
            String offered = call.request().headers().first(X_SETUP_TOKEN)
                    .orElseGet(() -> body.path("setupToken").isTextual() ? body.path("setupToken").asText() : null);
            if (!setupToken.accepts(offered)) {
                throw new WorkspaceException.Forbidden(ErrorCodes.SETUP_TOKEN_REQUIRED, offered == null
                        ? "registering from another machine or through a proxy needs the setup token (the file "
                                + SetupToken.FILE_NAME + " in the data directory)"
                        : "the setup token does not match (see the file " + SetupToken.FILE_NAME
                                + " in the data directory)");
            }
        }
        User user = auth.accounts().registerFirstUser(username, password);
        setupToken.spend();
        signIn(call, user);
    }

    /** A request from this machine that no proxy or tunnel forwarded. */
    private static boolean direct(ServerRequest req) {
        SocketAddress a = req.remotePeer().address();
        if (!(a instanceof InetSocketAddress inet)) {
            return false;
        }
        InetAddress address = inet.getAddress();
        if (address == null || !address.isLoopbackAddress()) {
            return false;
        }
        for (HeaderName h : FORWARDING) {
            if (req.headers().contains(h)) {
                return false;
            }
        }
        return true;
    }

    private void login(Call call) {
        JsonNode body = call.body();
        String username = Call.requiredString(body, "username");
        String password = Call.requiredString(body, "password");
        String client = guard.clientAddress(call.request());
        // counted as a failure before the hashing, in one step with the check: parallel guesses cannot all pass
        // the check before the first failure is stored; a success takes the count back
        var attempt = auth.throttle().begin(username, client);
        User user = auth.accounts().authenticate(username, password);
        auth.throttle().succeeded(attempt);
        signIn(call, user);
    }

    private void signIn(Call call, User user) {
        String token = tokens.issue(user);
        call.response().header(HeaderNames.SET_COOKIE, cookie(call.request(), token, tokens.lifetime()));
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("success", true);
        body.put("token", token);
        body.put("user", Views.user(user));
        call.noStore().ok(body);
    }

    private void user(Call call) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("user", Views.user(call.principal().user()));
        call.ok(body);
    }

    private void logout(Call call) {
        call.response().header(HeaderNames.SET_COOKIE, cookie(call.request(), "", Duration.ZERO));
        call.ack();
    }

    private void streamTicket(Call call) {
        StreamTickets.Ticket t = auth.tickets().issue(call.principal());
        call.noStore().ack("ticket", t.value(), "expiresAt", t.expiresAt().toString(),
                "expiresIn", Math.max(0, Duration.between(Instant.now(), t.expiresAt()).toSeconds()));
    }

    /** The session cookie: HttpOnly, SameSite=Lax, Path=/, Secure over TLS (or when configured). */
    private String cookie(ServerRequest req, String value, Duration maxAge) {
        StringBuilder b = new StringBuilder("token=").append(value)
                .append("; Path=/; HttpOnly; SameSite=Lax; Max-Age=").append(maxAge.toSeconds());
        if (config.secureCookies() || "https".equals(guard.scheme(req))) {
            b.append("; Secure");
        }
        return b.toString();
    }

}
