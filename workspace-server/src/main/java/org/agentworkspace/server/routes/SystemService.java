package org.agentworkspace.server.routes;

import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;

import io.helidon.http.HeaderValues;
import io.helidon.http.sse.SseEvent;
import io.helidon.webserver.sse.SseSink;

import org.agentworkspace.api.Principal;
import org.agentworkspace.core.auth.Authentication;
import org.agentworkspace.server.http.Access;
import org.agentworkspace.server.http.ApiService;
import org.agentworkspace.server.http.BuildInfo;
import org.agentworkspace.server.http.Call;
import org.agentworkspace.server.http.Guard;
import org.agentworkspace.server.http.Json;
import org.agentworkspace.server.http.OpenApiDocument;
import org.agentworkspace.server.http.RouteTable;

/** Health, the OpenAPI document and the per-user server event stream. */
public final class SystemService extends ApiService {
    /** How often {@code /api/events} sends a heartbeat (keeps proxies from closing idle streams). */
    static final Duration HEARTBEAT = Duration.ofSeconds(15);
    /** How often a live stream re-checks that its credential is still valid. */
    static final Duration RECHECK = Duration.ofSeconds(2);

    private final BuildInfo build;
    private final OpenApiDocument openApi;
    private final Authentication auth;
    private final Json json;

    public SystemService(BuildInfo build, OpenApiDocument openApi, Authentication auth, Json json, Guard guard,
                         RouteTable table) {
        super("system", guard, table);
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
     * {@code heartbeat} every 15 s. The stream ends with an {@code error} event when the credential that opened it
     * is revoked (key deactivated or deleted, account deleted) — checked every 2 s.
     */
    private void events(Call call) throws InterruptedException {
        Principal p = call.principal();
        try (SseSink sink = call.response().sink(SseSink.TYPE)) {
            long seq = 1;
            Map<String, Object> ready = new LinkedHashMap<>();
            ready.put("version", build.version());
            ready.put("user", Map.of("id", p.user().id(), "username", p.user().username()));
            sink.emit(event(seq++, "ready", ready));
            long sinceBeat = 0;
            while (true) {
                Thread.sleep(RECHECK.toMillis());
                sinceBeat += RECHECK.toMillis();
                if (!auth.stillValid(p)) {
                    sink.emit(event(seq, "error", Map.of("code", "CREDENTIAL_REVOKED",
                            "message", "the credential that opened this stream is no longer valid")));
                    return;
                }
                if (sinceBeat >= HEARTBEAT.toMillis()) {
                    sinceBeat = 0;
                    sink.emit(event(seq++, "heartbeat", Map.of("timestamp", Instant.now().toString())));
                }
            }
        } catch (java.io.UncheckedIOException e) {
            // the client went away
        }
    }

    private SseEvent event(long id, String name, Object data) {
        return SseEvent.builder().id(Long.toString(id)).name(name)
                .data(new String(json.write(data), java.nio.charset.StandardCharsets.UTF_8)).build();
    }
}
