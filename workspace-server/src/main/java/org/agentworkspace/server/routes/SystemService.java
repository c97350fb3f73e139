package org.agentworkspace.server.routes;

import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import io.helidon.http.HeaderValues;

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
import org.agentworkspace.core.journal.EventJournal;
import org.agentworkspace.core.journal.JournalCursor;
import org.agentworkspace.core.journal.LastEventId;
import org.agentworkspace.server.http.Access;
import org.agentworkspace.server.http.ApiService;
import org.agentworkspace.server.http.BuildInfo;
import org.agentworkspace.server.http.Call;
import org.agentworkspace.server.http.Guard;
import org.agentworkspace.server.http.StreamLimiter;
import org.agentworkspace.server.http.Json;
import org.agentworkspace.server.http.JournalStream;
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

    private final BuildInfo build;
    private final OpenApiDocument openApi;
    private final Json json;
    private final Notifications notifications;
    private final SystemUpdater updater;
    private final ProcessExit exit;
    private final AtomicBoolean exiting = new AtomicBoolean();
    /** When this server was built: {@code /health}'s {@code startedAt}, which changes with every restart. */
    private final Instant startedAt = Instant.now();

    public SystemService(BuildInfo build, OpenApiDocument openApi, Authentication auth, Notifications notifications,
                         Json json, SystemUpdater updater, ProcessExit exit, Guard guard, RouteTable table) {
        super("system", guard, table);
        this.notifications = notifications;
        this.build = build;
        this.openApi = openApi;
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
        // the stream's slot first: a refused stream (429) starts no update
        StreamLimiter.Slot slot = follower().slot(p);
        UpdateJob job;
        try {
            job = updater.start(InstallMode.fromWire(build.installMode()), build.version());
        } catch (RuntimeException e) {
            slot.close();
            throw e;
        }
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
        try {
            follower().follow(p, slot, job.journal().follow(0), new JournalStream.Frames<>() {
                @Override
                public boolean entry(UpdateEvent e, JournalStream.Out out) {
                    frame(e, out);
                    return e.terminal();
                }

                @Override
                public void heartbeat(long at, JournalStream.Out out) {
                    out.comment("ping");
                }

                @Override
                public void revoked(long at, String message, JournalStream.Out out) {
                    out.emit(at + 1, "error", JournalStream.error(JournalStream.CREDENTIAL_REVOKED,
                            message + "; the update goes on"));
                }
            }, JournalStream.sse(call.response(), "no-cache, no-transform", true));
        } finally {
            written.countDown();
        }
    }

    private void frame(UpdateEvent e, JournalStream.Out out) {
        switch (e) {
            case UpdateEvent.Log l -> {
                Map<String, Object> m = new LinkedHashMap<>();
                m.put("stream", l.stream());
                m.put("text", l.text());
                m.put("at", l.at().toString());
                out.emit(l.id(), "log", text(m));
            }
            case UpdateEvent.Progress pr -> {
                Map<String, Object> m = new LinkedHashMap<>();
                m.put("phase", pr.phase());
                m.put("percent", pr.percent());
                if (pr.message() != null) {
                    m.put("message", pr.message());
                }
                out.emit(pr.id(), "progress", text(m));
            }
            case UpdateEvent.Done d -> out.emit(d.id(), "done", text(done(d.outcome())));
            case UpdateEvent.Failed f -> out.emit(f.id(), "error", text(Map.of("code", f.code(), "message",
                    f.message())));
        }
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
        body.put("startedAt", startedAt.toString());
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
     * without the header, or with one the rule ignores (docs/live-channels.md), the stream starts after the newest
     * one. The {@link JournalStream} follower ends it with an {@code error} event when the credential that opened it
     * is revoked (at once for a deleted account, within 2 s for a key).
     */
    private void events(Call call) throws InterruptedException {
        Principal p = call.principal();
        long user = p.user().id();
        EventJournal<Notification> journal = notifications.journal(user);
        StreamLimiter.Slot slot = follower().slot(p);
        // without the header (or with one the rule ignores) the stream starts after the newest notification
        long newest = journal.newest();
        long start = LastEventId.resumeAfter(JournalStream.lastEventId(call), newest, newest);
        // a credential without tasks:read gets ready and heartbeats only
        JournalCursor<Notification> cursor = p.has(Scope.TASKS_READ) ? journal.follow(start)
                : JournalCursor.idle(start);
        follower().follow(p, slot, cursor, new JournalStream.Frames<>() {
            @Override
            public void opened(long at, JournalStream.Out out) {
                Map<String, Object> ready = new LinkedHashMap<>();
                ready.put("version", build.version());
                ready.put("user", Map.of("id", p.user().id(), "username", p.user().username()));
                out.emit(at, "ready", text(ready));
            }

            @Override
            public boolean entry(Notification n, JournalStream.Out out) {
                out.emit(n.id(), "notification", text(n.view()));
                return false;
            }

            @Override
            public void heartbeat(long at, JournalStream.Out out) {
                out.emit(at, "heartbeat", text(Map.of("timestamp", Instant.now().toString())));
            }

            @Override
            public void revoked(long at, String message, JournalStream.Out out) {
                out.emit(at, "error", JournalStream.error(JournalStream.CREDENTIAL_REVOKED, message));
            }
        }, JournalStream.sse(call.response(), null, false));
    }

    private String text(Object data) {
        return new String(json.write(data), java.nio.charset.StandardCharsets.UTF_8);
    }
}
