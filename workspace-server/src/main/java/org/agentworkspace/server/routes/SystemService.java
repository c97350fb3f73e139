package org.agentworkspace.server.routes;

import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

import io.helidon.http.HeaderNames;
import io.helidon.http.HeaderValues;
import io.helidon.http.sse.SseEvent;
import io.helidon.webserver.sse.SseSink;

import org.agentworkspace.api.Principal;
import org.agentworkspace.api.Scope;
import org.agentworkspace.core.auth.Authentication;
import org.agentworkspace.core.notifications.Notification;
import org.agentworkspace.core.notifications.Notifications;
import org.agentworkspace.server.http.Access;
import org.agentworkspace.server.http.ApiService;
import org.agentworkspace.server.http.BuildInfo;
import org.agentworkspace.server.http.Call;
import org.agentworkspace.server.http.Guard;
import org.agentworkspace.server.http.Json;
import org.agentworkspace.server.http.OpenApiDocument;
import org.agentworkspace.server.http.RouteTable;

/** Health, the OpenAPI document and the per-user server event stream (with in-app notifications). */
public final class SystemService extends ApiService {
    /** How often {@code /api/events} sends a heartbeat (keeps proxies from closing idle streams). */
    static final Duration HEARTBEAT = Duration.ofSeconds(15);
    /** How often a live stream re-checks that its credential is still valid. */
    static final Duration RECHECK = Duration.ofSeconds(2);

    private final BuildInfo build;
    private final OpenApiDocument openApi;
    private final Authentication auth;
    private final Json json;
    private final Notifications notifications;

    public SystemService(BuildInfo build, OpenApiDocument openApi, Authentication auth, Notifications notifications,
                         Json json, Guard guard, RouteTable table) {
        super("system", guard, table);
        this.notifications = notifications;
        this.build = build;
        this.openApi = openApi;
        this.auth = auth;
        this.json = json;
    }

    @Override
    protected void declare(Routes r) {
        r.get("/health", Access.PUBLIC, this::health)
                .get("/api/openapi.json", Access.PUBLIC, this::openApi)
                .get("/api/events", Access.authenticated().stream(), this::events);
    }

    private void health(Call call) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("status", "ok");
        body.put("timestamp", Instant.now().toString());
        body.put("version", build.version());
        body.put("installMode", build.installMode());
        call.ok(body);
    }

    private void openApi(Call call) {
        call.response().header(HeaderValues.CONTENT_TYPE_JSON);
        call.response().send(openApi.json());
    }

    /**
     * Server-sent events for the signed-in user: {@code ready} once ({@code {version, user}}), then
     * {@code notification} for each in-app notification raised for the user (when the credential holds
     * {@code tasks:read}; a session holds every scope), and {@code heartbeat} every 15 s. Every event carries the id
     * of the newest notification the stream has delivered (the stream's cursor), so a client that reconnects with
     * {@code Last-Event-ID} first gets the notifications it missed (as far as the bounded list still holds them);
     * without the header the stream starts after the newest one. The stream ends with an {@code error} event when
     * the credential that opened it is revoked (key deactivated or deleted, account deleted) — checked every 2 s.
     */
    private void events(Call call) throws InterruptedException {
        Principal p = call.principal();
        long user = p.user().id();
        boolean notify = p.has(Scope.TASKS_READ);
        long cursor = lastEventId(call).orElseGet(() -> notifications.cursor(user));
        try (SseSink sink = call.response().sink(SseSink.TYPE)) {
            Map<String, Object> ready = new LinkedHashMap<>();
            ready.put("version", build.version());
            ready.put("user", Map.of("id", p.user().id(), "username", p.user().username()));
            sink.emit(event(cursor, "ready", ready));
            long now = System.nanoTime();
            long nextCheck = now + RECHECK.toNanos();
            long nextBeat = now + HEARTBEAT.toNanos();
            while (true) {
                Duration wait = Duration.ofNanos(Math.max(0, Math.min(nextCheck, nextBeat) - System.nanoTime()));
                if (notify) {
                    for (Notification n : notifications.awaitAfter(user, cursor, wait)) {
                        sink.emit(event(n.id(), "notification", n.view()));
                        cursor = n.id();
                    }
                } else {
                    Thread.sleep(wait.toMillis());
                }
                now = System.nanoTime();
                if (now - nextCheck >= 0) {
                    nextCheck = now + RECHECK.toNanos();
                    if (!auth.stillValid(p)) {
                        sink.emit(event(cursor, "error", Map.of("code", "CREDENTIAL_REVOKED",
                                "message", "the credential that opened this stream is no longer valid")));
                        return;
                    }
                }
                if (now - nextBeat >= 0) {
                    nextBeat = now + HEARTBEAT.toNanos();
                    sink.emit(event(cursor, "heartbeat", Map.of("timestamp", Instant.now().toString())));
                }
            }
        } catch (java.io.UncheckedIOException e) {
            // the client went away
        }
    }

    /** A numeric {@code Last-Event-ID}; anything else is ignored (the stream then starts at the newest). */
    private static Optional<Long> lastEventId(Call call) {
        return call.request().headers().first(HeaderNames.create("Last-Event-ID")).flatMap(v -> {
            try {
                long n = Long.parseLong(v.strip());
                return n >= 0 ? Optional.of(n) : Optional.empty();
            } catch (NumberFormatException e) {
                return Optional.empty();
            }
        });
    }

    private SseEvent event(long id, String name, Object data) {
        return SseEvent.builder().id(Long.toString(id)).name(name)
                .data(new String(json.write(data), java.nio.charset.StandardCharsets.UTF_8)).build();
    }
}
