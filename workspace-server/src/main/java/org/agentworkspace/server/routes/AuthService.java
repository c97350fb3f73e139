package org.agentworkspace.server.routes;

import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;

import io.helidon.http.HeaderNames;
import io.helidon.webserver.http.ServerRequest;

import org.agentworkspace.api.User;
import org.agentworkspace.api.WorkspaceException;
import org.agentworkspace.core.auth.Authentication;
import org.agentworkspace.core.auth.StreamTickets;
import org.agentworkspace.server.ServerConfig;
import org.agentworkspace.server.http.Access;
import org.agentworkspace.server.http.ApiService;
import org.agentworkspace.server.http.Call;
import org.agentworkspace.server.http.Guard;
import org.agentworkspace.server.http.RouteTable;
import org.agentworkspace.server.http.SessionTokens;
import org.agentworkspace.server.http.Views;

/** Setup, login, logout, the current user and stream tickets ({@code /api/auth/*}). */
public final class AuthService extends ApiService {
    private final Authentication auth;
    private final SessionTokens tokens;
    private final Guard guard;
    private final ServerConfig config;

    public AuthService(Authentication auth, SessionTokens tokens, Guard guard, RouteTable table, ServerConfig config) {
        super("auth", guard, table);
        this.auth = auth;
        this.tokens = tokens;
        this.guard = guard;
        this.config = config;
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
        User user = auth.accounts().registerFirstUser(Call.requiredString(body, "username"),
                Call.requiredString(body, "password"));
        signIn(call, user);
    }

    private void login(Call call) {
        JsonNode body = call.body();
        String username = Call.requiredString(body, "username");
        String password = Call.requiredString(body, "password");
        String client = guard.clientAddress(call.request());
        auth.throttle().check(username, client);
        User user;
        try {
            user = auth.accounts().authenticate(username, password);
        } catch (WorkspaceException.Unauthenticated e) {
            auth.throttle().recordFailure(username, client);
            throw e;
        }
        auth.throttle().recordSuccess(username);
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
