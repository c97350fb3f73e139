package org.agentworkspace.server.routes;

import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.Optional;

import io.helidon.http.HeaderNames;
import io.helidon.http.HeaderValues;
import io.helidon.http.sse.SseEvent;
import io.helidon.webserver.sse.SseSink;
import org.agentworkspace.core.auth.AccountWatch;

import org.agentworkspace.api.Principal;
import org.agentworkspace.api.Scope;
import org.agentworkspace.core.auth.Authentication;
import org.agentworkspace.core.system.InstallMode;
import org.agentworkspace.core.system.SystemUpdater;
import org.agentworkspace.core.system.UpdateEvent;
import org.agentworkspace.core.system.UpdateJob;
import org.agentworkspace.core.system.UpdateOutcome;
import org.agentworkspace.server.ProcessExit;
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

/**
 * Health, the OpenAPI document, the per-user server event stream (with in-app notifications), self-update
 * and restart.
 *
 * <p>{@code POST /api/system/update} runs an update ({@link SystemUpdater}) and streams its events; when it put new
 * code in place ({@code done} with {@code selfRestarting: true}) the process exits with code 42 once the stream has
 * been written (or at the latest {@link #STREAM_WAIT} later, if the client went away). {@code POST
 * /api/system/restart} answers, then exits the same way. Both exits go through {@link ProcessExit}.
 */
public final class SystemService extends ApiService {
    private static final System.Logger LOG = System.getLogger(SystemService.class.getName());
    /** How long an exit after an update waits for its stream to be written. */
    static final Duration STREAM_WAIT = Duration.ofSeconds(10);
    /** Time for the last bytes of an answer to leave before the exit starts the shutdown. */
    static final Duration FLUSH_DELAY = Duration.ofMillis(250);
    private static final Duration POLL = Duration.ofSeconds(2);

    /** How often {@code /api/events} sends a heartbeat (keeps proxies from closing idle streams). */
    static final Duration HEARTBEAT = Duration.ofSeconds(15);
    /** How often a live stream re-checks that its credential is still valid. */
    static final Duration RECHECK = Duration.ofSeconds(2);

    private final BuildInfo build;
    private final OpenApiDocument openApi;
    private final Authentication auth;
    private final Json json;
    private final Notifications notifications;
    private final SystemUpdater updater;
    private final ProcessExit exit;
    private final AtomicBoolean exiting = new AtomicBoolean();

    public SystemService(BuildInfo build, OpenApiDocument openApi, Authentication auth, Notifications notifications,
                         Json json, SystemUpdater updater, ProcessExit exit, Guard guard, RouteTable table) {
        super("system", guard, table);
        this.notifications = notifications;
        this.build = build;
        this.openApi = openApi;
        this.auth = auth;
        this.json = json;
        this.updater = updater;
        this.exit = exit;
    }

    @Override
    protected void declare(Routes r) {
        r.get("/health", Access.PUBLIC, this::health)
                .get("/api/openapi.json", Access.PUBLIC, this::openApi)
                .get("/api/events", Access.authenticated().stream(), this::events)
                .post("/api/system/update", Access.scope(Scope.SYSTEM_UPDATE).admin().stream(), this::update)
                .post("/api/system/restart", Access.session().admin(), this::restart);
    }

    /**
     * Starts an update (409 {@code UPDATE_IN_PROGRESS} while one runs or a restart is pending) and writes its
     * events as they come: {@code log}, {@code progress}, then {@code done} or {@code error}. Each frame carries an
     * {@code id:}; a comment line every 15 s keeps proxies from closing a quiet stream. A client that goes away does
     * not stop the update.
     */
    private void update(Call call) throws InterruptedException {
        Principal p = call.principal();
        UpdateJob job = updater.start(InstallMode.fromWire(build.installMode()), build.version());
        LOG.log(System.Logger.Level.INFO, "self-update (" + build.installMode() + ") started by "
                + p.user().username() + (p.kind() == Principal.Kind.API_KEY ? " with an API key" : ""));
        CountDownLatch written = new CountDownLatch(1);
        job.finished().thenAccept(outcome -> {
            LOG.log(System.Logger.Level.INFO, "self-update finished: " + outcome.message());
            if (outcome.selfRestarting()) {
                exitAfter(written, "self-update to " + (outcome.toVersion() != null ? outcome.toVersion()
                        : outcome.toRevision()));
            }
        });
        call.response().header(HeaderNames.CACHE_CONTROL, "no-cache, no-transform");
        call.response().header(HeaderNames.create("X-Accel-Buffering"), "no");
        try (SseSink sink = call.response().sink(SseSink.TYPE)) {
            long last = 0;
            long quiet = 0;
            while (true) {
                List<UpdateEvent> events = job.eventsAfter(last, POLL);
                for (UpdateEvent e : events) {
                    sink.emit(frame(e));
                    last = e.id();
                    if (e.terminal()) {
                        return;
                    }
                }
                if (events.isEmpty()) {
                    quiet += POLL.toMillis();
                    if (!auth.stillValid(p)) {
                        sink.emit(event(last + 1, "error", Map.of("code", "CREDENTIAL_REVOKED",
                                "message", "the credential that opened this stream is no longer valid; the update "
                                        + "goes on")));
                        return;
                    }
                    if (quiet >= HEARTBEAT.toMillis()) {
                        quiet = 0;
                        sink.emit(RunStreams.keepAliveEvent("ping"));
                    }
                } else {
                    quiet = 0;
                }
            }
        } catch (java.io.UncheckedIOException e) {
            // the client went away; the update goes on
        } finally {
            written.countDown();
        }
    }

    private SseEvent frame(UpdateEvent e) {
        return switch (e) {
            case UpdateEvent.Log l -> {
                Map<String, Object> m = new LinkedHashMap<>();
                m.put("stream", l.stream());
                m.put("text", l.text());
                m.put("at", l.at().toString());
                yield event(l.id(), "log", m);
            }
            case UpdateEvent.Progress pr -> {
                Map<String, Object> m = new LinkedHashMap<>();
                m.put("phase", pr.phase());
                m.put("percent", pr.percent());
                if (pr.message() != null) {
                    m.put("message", pr.message());
                }
                yield event(pr.id(), "progress", m);
            }
            case UpdateEvent.Done d -> event(d.id(), "done", done(d.outcome()));
            case UpdateEvent.Failed f -> event(f.id(), "error", Map.of("code", f.code(), "message", f.message()));
        };
    }

    static Map<String, Object> done(UpdateOutcome o) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("success", true);
        m.put("updated", o.updated());
        m.put("installMode", o.installMode().wireName());
        m.put("fromVersion", o.fromVersion());
        if (o.toVersion() != null) {
            m.put("toVersion", o.toVersion());
        }
        if (o.fromRevision() != null) {
            m.put("fromRevision", o.fromRevision());
            m.put("toRevision", o.toRevision());
        }
        m.put("selfRestarting", o.selfRestarting());
        m.put("message", o.message());
        return m;
    }

    /**
     * Answers, then exits with code 42 for the launcher to start the server again (409 {@code UPDATE_IN_PROGRESS}
     * while an update runs: it restarts the server itself when it needs to).
     */
    private void restart(Call call) {
        updater.beginRestart();
        Principal p = call.principal();
        LOG.log(System.Logger.Level.INFO, "restart requested by " + p.user().username()
                + (p.kind() == Principal.Kind.API_KEY ? " with an API key" : ""));
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("success", true);
        body.put("message", "the service exits with code " + SystemUpdater.RESTART_EXIT_CODE
                + " and its launcher starts it again; poll /health");
        body.put("exitCode", SystemUpdater.RESTART_EXIT_CODE);
        try {
            call.ok(body);
        } finally {
            // asked for is asked for: also when the client is gone before the answer was written
            exitAfter(new CountDownLatch(0), "restart requested by " + p.user().username());
        }
    }

    /**
     * Once {@code ready} is open (at the latest after {@link #STREAM_WAIT}) and the answer had {@link #FLUSH_DELAY}
     * to leave, exits with {@link SystemUpdater#RESTART_EXIT_CODE} through the {@link ProcessExit}. Only the first
     * call does anything.
     */
    private void exitAfter(CountDownLatch ready, String why) {
        if (!exiting.compareAndSet(false, true)) {
            return;
        }
        Thread.ofPlatform().name("aw-restart").start(() -> {
            try {
                ready.await(STREAM_WAIT.toMillis(), TimeUnit.MILLISECONDS);
                Thread.sleep(FLUSH_DELAY.toMillis());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            LOG.log(System.Logger.Level.INFO, "exiting with code " + SystemUpdater.RESTART_EXIT_CODE
                    + " for the launcher to start the server again (" + why + ")");
            exit.exit(SystemUpdater.RESTART_EXIT_CODE);
        });
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
        long newest = notifications.cursor(user);
        // an id above the newest kept one (another server's, a store put back from a backup) would silence the
        // stream for good: such a stream starts after the newest, as one without the header
        long cursor = lastEventId(call).filter(id -> id <= newest).orElse(newest);
        // deleting the account ends the stream at once: the wait below is interrupted (only while this stream is
        // open, under the lock, so a late deletion never interrupts the connection's next request)
        Thread streaming = Thread.currentThread();
        Object lock = new Object();
        boolean[] open = {true};
        AccountWatch.Watch watch = accountWatch().watch(user, () -> {
            synchronized (lock) {
                if (open[0]) {
                    streaming.interrupt();
                }
            }
        });
        SseSink sink = call.response().sink(SseSink.TYPE);
        try (sink) {
            Map<String, Object> ready = new LinkedHashMap<>();
            ready.put("version", build.version());
            ready.put("user", Map.of("id", p.user().id(), "username", p.user().username()));
            sink.emit(event(cursor, "ready", ready));
            long now = System.nanoTime();
            long nextCheck = now + RECHECK.toNanos();
            long nextBeat = now + HEARTBEAT.toNanos();
            while (true) {
                Duration wait = Duration.ofNanos(Math.max(0, Math.min(nextCheck, nextBeat) - System.nanoTime()));
                try {
                    if (notify) {
                        for (Notification n : notifications.awaitAfter(user, cursor, wait)) {
                            sink.emit(event(n.id(), "notification", n.view()));
                            cursor = n.id();
                        }
                    } else {
                        Thread.sleep(wait.toMillis());
                    }
                } catch (InterruptedException e) {
                    if (!watch.ended()) {
                        throw e;
                    }
                    synchronized (lock) {
                        open[0] = false;
                    }
                    Thread.interrupted();
                    sink.emit(event(cursor, "error", Map.of("code", "CREDENTIAL_REVOKED",
                            "message", "the account that opened this stream was deleted")));
                    return;
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
        } catch (InterruptedException e) {
            if (!watch.ended()) {
                throw e;
            }
        } finally {
            synchronized (lock) {
                open[0] = false;
            }
            watch.close();
            if (watch.ended()) {
                // the deletion's interrupt is spent here, not on the connection
                Thread.interrupted();
            }
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
