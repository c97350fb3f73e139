package org.agentworkspace.core.notifications;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import org.agentworkspace.api.WorkspaceException;
import org.agentworkspace.core.agent.AgentRuns;
import org.agentworkspace.core.agent.PermissionRequests;
import org.agentworkspace.core.agent.RunSummary;
import org.agentworkspace.core.journal.EventJournal;
import org.agentworkspace.core.journal.JournalCursor;
import org.agentworkspace.core.runs.RunInfo;
import org.agentworkspace.core.runs.RunOwner;
import org.agentworkspace.core.runs.RunRecord;
import org.agentworkspace.core.runs.RunStatus;
import org.agentworkspace.core.secrets.SecretBox;
import org.agentworkspace.core.settings.NotificationPreferences;
import org.agentworkspace.core.settings.UserSettings;
import org.agentworkspace.core.store.Store;
import org.agentworkspace.core.json.JsonMappers;

/**
 * Notification delivery: the one place the engine raises a notification, checks the user's
 * {@link NotificationPreferences} (the kind, then each channel) and hands it to the channels.
 *
 * <ul>
 *   <li>{@code inApp}: a bounded per-user list in the store (table {@code notifications}, the newest
 *       {@value #KEPT_PER_USER}), read by {@link #list}, marked read by {@link #markRead}/{@link #markAllRead}, and
 *       followed live by {@link #awaitAfter} (the server's {@code GET /api/events}). Ids grow across the whole
 *       service and across restarts (seeded from the clock and from the largest stored id), so an SSE client that
 *       reconnects with {@code Last-Event-ID} gets what it missed, as far as the list still holds it, also after a
 *       restart. A stream wakes at once for what this process raises; what another server on a shared PostgreSQL
 *       store raised it finds at its next look (the caller's wait bounds it).</li>
 *   <li>{@code webPush}: an encrypted message to each of the user's push subscriptions ({@link WebPush}).</li>
 * </ul>
 *
 * Sources are attached with {@link #attach}: the end of every run whose metadata names a {@code userId}
 * ({@code stop} when it succeeded, {@code error} when it failed or timed out; a cancelled run raises nothing, the
 * user stopped it) and every tool-permission request of an interactive run ({@code actionRequired}). Their work
 * (reading the run's summary, the preferences, encrypting) runs on a worker thread of this component behind a
 * bounded queue, never on the run's threads.
 */
public final class Notifications implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(Notifications.class.getName());
    /** Notifications kept per user for the list and for reconnecting streams. */
    public static final int KEPT_PER_USER = 200;
    /** Most entries one list call returns. */
    public static final int MAX_LIMIT = 200;
    private static final int QUEUE = 1024;

    /** Where a notification points, all optional. */
    public record Context(String projectName, String sessionId, String runId, String provider) {
        public static final Context NONE = new Context(null, null, null, null);

        /** Without a provider. */
        public Context(String projectName, String sessionId, String runId) {
            this(projectName, sessionId, runId, null);
        }
    }

    private final UserSettings settings;
    private final Clock clock;
    private final WebPush webPush;
    private final ObjectMapper mapper = JsonMappers.shared();
    private final Store store;
    /** Per user: signalled when this process adds one of their notifications. */
    private final Map<Long, Signal> signals = new ConcurrentHashMap<>();
    private final ReentrantLock idLock = new ReentrantLock();
    private long lastId;
    private final ThreadPoolExecutor worker;
    private final java.util.Set<Object> attachedEngines =
            java.util.Collections.synchronizedSet(java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>()));
    private final java.util.Set<Object> attachedPermissions =
            java.util.Collections.synchronizedSet(java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>()));

    private Notifications(Store store, UserSettings settings, Clock clock, WebPush webPush) {
        this.store = store;
        this.settings = settings;
        this.clock = clock;
        this.webPush = webPush;
        long stored = store.read(h -> h.createQuery("SELECT MAX(id) FROM notifications").mapTo(Long.class)
                .findOne().orElse(0L));
        this.lastId = Math.max(clock.millis(), stored);
        this.worker = new ThreadPoolExecutor(1, 1, 30, TimeUnit.SECONDS, new ArrayBlockingQueue<>(QUEUE), r -> {
            Thread t = new Thread(r, "aw-notifications");
            t.setDaemon(true);
            return t;
        }, new ThreadPoolExecutor.AbortPolicy());
        this.worker.allowCoreThreadTimeOut(true);
    }

    public static Notifications create(Store store, UserSettings settings, SecretBox box, Clock clock,
                                       WebPushSettings webPush) {
        return new Notifications(Objects.requireNonNull(store), Objects.requireNonNull(settings),
                Objects.requireNonNull(clock),
                new WebPush(store, box, clock, webPush));
    }

    /** The Web Push side: VAPID public key, subscriptions. */
    public WebPush webPush() {
        return webPush;
    }

    /**
     * Raises a notification for the user, as their preferences allow.
     *
     * @return the in-app notification, or empty when the kind is off or the in-app channel is off
     */
    public Optional<Notification> raise(long userId, NotificationKind kind, String title, String body, Context where) {
        NotificationPreferences prefs = settings.notifications(userId);
        if (!kind.enabledIn(prefs) || !(prefs.inApp() || prefs.webPush())) {
            return Optional.empty();
        }
        Context c = where == null ? Context.NONE : where;
        Notification n = new Notification(nextId(), userId, kind, title, body, c.projectName(), c.sessionId(),
                c.runId(), Instant.ofEpochMilli(clock.millis()), false);
        if (prefs.webPush()) {
            webPush.deliver(userId, pushPayload(n, c.provider()));
        }
        if (!prefs.inApp()) {
            return Optional.empty();
        }
        return Optional.of(keep(n));
    }

    /** The user's notifications, newest first; at most {@code limit} (1…{@value #MAX_LIMIT}). */
    public List<Notification> list(long userId, int limit, boolean unreadOnly) {
        if (limit < 1 || limit > MAX_LIMIT) {
            throw WorkspaceException.Validation.of("limit must be between 1 and " + MAX_LIMIT);
        }
        return store.read(h -> h.createQuery("SELECT * FROM notifications WHERE user_id = :u"
                        + (unreadOnly ? " AND read_at IS NULL" : "") + " ORDER BY id DESC LIMIT :l")
                .bind("u", userId).bind("l", limit).map(ROW).list());
    }

    /** How many of the user's kept notifications are unread. */
    public int unreadCount(long userId) {
        return store.read(h -> h.createQuery("SELECT COUNT(*) FROM notifications WHERE user_id = :u "
                + "AND read_at IS NULL").bind("u", userId).mapTo(Integer.class).one());
    }

    /**
     * Marks one notification read.
     *
     * @throws WorkspaceException.NotFound {@code NOTIFICATION_NOT_FOUND}: not the user's, unknown, or no longer kept
     */
    public Notification markRead(long userId, String id) {
        long n;
        try {
            n = Long.parseLong(id);
        } catch (NumberFormatException e) {
            n = -1;
        }
        long target = n;
        Optional<Notification> done = store.write(h -> {
            h.createUpdate("UPDATE notifications SET read_at = :t WHERE user_id = :u AND id = :i AND read_at IS NULL")
                    .bind("t", clock.millis()).bind("u", userId).bind("i", target).execute();
            return h.createQuery("SELECT * FROM notifications WHERE user_id = :u AND id = :i").bind("u", userId)
                    .bind("i", target).map(ROW).findOne();
        });
        return done.orElseThrow(() -> new WorkspaceException.NotFound(NotificationErrorCodes.NOTIFICATION_NOT_FOUND,
                "no notification of yours has this id"));
    }

    /** Marks all the user's notifications read; returns how many were unread. */
    public int markAllRead(long userId) {
        return store.write(h -> h.createUpdate("UPDATE notifications SET read_at = :t WHERE user_id = :u "
                + "AND read_at IS NULL").bind("t", clock.millis()).bind("u", userId).execute());
    }

    /** The id of the user's newest kept notification (0 when none): where a fresh stream starts. */
    public long cursor(long userId) {
        return store.read(h -> h.createQuery("SELECT MAX(id) FROM notifications WHERE user_id = :u")
                .bind("u", userId).mapTo(Long.class).findOne().orElse(0L));
    }

    /**
     * The user's kept notifications with an id above {@code afterId}, oldest first; waits up to {@code wait} for
     * one when there is none yet.
     */
    public List<Notification> awaitAfter(long userId, long afterId, Duration wait) throws InterruptedException {
        Signal signal = signals.computeIfAbsent(userId, u -> new Signal());
        long deadline = System.nanoTime() + wait.toNanos();
        while (true) {
            // the generation is read before the query: an add after the query moves it, so the wait returns at once
            long seen = signal.generation();
            List<Notification> out = store.read(h -> h.createQuery("SELECT * FROM notifications WHERE user_id = :u "
                            + "AND id > :a ORDER BY id LIMIT :l").bind("u", userId).bind("a", afterId)
                    .bind("l", KEPT_PER_USER).map(ROW).list());
            long left = deadline - System.nanoTime();
            if (!out.isEmpty() || left <= 0) {
                return out;
            }
            signal.awaitChange(seen, left);
        }
    }

    /**
     * The user's in-app notifications as a journal: sequence numbers are the notification ids (they grow, with gaps
     * where another account's notification took an id), the newest {@value #KEPT_PER_USER} are kept in the store, and
     * the journal never ends. A reader waits on this process's adds and looks at the store at least at every wait
     * it is given, so a notification another process raised reaches it at its next look.
     */
    public EventJournal<Notification> journal(long userId) {
        return new EventJournal<>() {
            @Override
            public long newest() {
                return cursor(userId);
            }

            @Override
            public JournalCursor<Notification> follow(long after) {
                return new JournalCursor<>() {
                    private final java.util.ArrayDeque<Notification> buffer = new java.util.ArrayDeque<>();
                    private long last = after;

                    @Override
                    public Optional<Notification> poll(Duration timeout) throws InterruptedException {
                        if (buffer.isEmpty()) {
                            buffer.addAll(awaitAfter(userId, last, timeout));
                        }
                        Notification n = buffer.poll();
                        if (n == null) {
                            return Optional.empty();
                        }
                        last = n.id();
                        return Optional.of(n);
                    }

                    @Override
                    public boolean finished() {
                        return false;
                    }

                    @Override
                    public long lastSeq() {
                        return last;
                    }

                    @Override
                    public void close() {
                        buffer.clear();
                    }
                };
            }
        };
    }

    /**
     * Connects the sources: the end of each user's run and each tool-permission request. Call once per
     * {@link AgentRuns}.
     */
    public void attach(AgentRuns runs) {
        // one end listener per run engine, even when several AgentRuns share it (each would report every run)
        if (attachedEngines.add(runs.engine())) {
            runs.engine().observe(new org.agentworkspace.core.runs.RunObserver() {
                @Override
                public void ended(RunInfo run) {
                    submit(() -> runEnded(runs, run.id()));
                }
            });
        }
        if (attachedPermissions.add(runs.permissions())) {
            runs.permissions().addOpenListener(p -> submit(() -> permissionRequested(runs, p)));
        }
    }

    private void submit(Runnable task) {
        try {
            worker.execute(() -> {
                try {
                    task.run();
                } catch (RuntimeException e) {
                    LOG.log(System.Logger.Level.WARNING, "a notification could not be raised", e);
                }
            });
        } catch (RejectedExecutionException e) {
            LOG.log(System.Logger.Level.WARNING, "notification queue full (or closed): one notification dropped");
        }
    }

    private void runEnded(AgentRuns runs, String runId) {
        // the run's typed owner and stored outcome: one row and the end of its log, no replay
        Optional<RunRecord> found = runs.engine().record(runId);
        if (found.isEmpty()) {
            return;
        }
        RunInfo info = found.get().info();
        RunOwner owner = found.get().owner();
        if (owner.accountId() == null || info.status() == RunStatus.CANCELLED || !info.status().terminal()) {
            return;
        }
        long userId = owner.accountId();
        RunSummary summary = runs.summary(found.get());
        String provider = displayName(info.provider());
        String project = owner.project();
        String where = project == null ? "" : " in " + project;
        Context ctx = new Context(project, summary.sessionId() != null ? summary.sessionId() : owner.sessionId(),
                info.id(), info.provider());
        boolean ok = info.status() == RunStatus.SUCCEEDED && !Boolean.FALSE.equals(summary.success());
        if (ok) {
            String text = summary.text() == null || summary.text().isBlank() ? "The run ended." : summary.text();
            raise(userId, NotificationKind.STOP, provider + " finished" + where, runs.redact(info, text),
                    ctx);
        } else {
            String title = provider + (info.status() == RunStatus.TIMED_OUT ? " timed out" : " failed") + where;
            String body = summary.error() != null && !summary.error().message().isBlank() ? summary.error().message()
                    : info.reason() != null ? info.reason()
                    : info.exitCode() != null ? "exit code " + info.exitCode() : "The run failed.";
            raise(userId, NotificationKind.ERROR, title, runs.redact(info, body), ctx);
        }
    }

    private void permissionRequested(AgentRuns runs, PermissionRequests.Pending p) {
        // the request's own log entry comes after the session event: once it is stored, so is the session the row
        // keeps (the request is announced while its entry may still wait for the log writer)
        if (p.seq() > 0) {
            try (org.agentworkspace.core.runs.RunCursor c = runs.engine().follow(p.runId(), p.seq() - 1)) {
                c.poll(java.time.Duration.ofSeconds(5));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            } catch (org.agentworkspace.api.WorkspaceException e) {
                return;
            }
        }
        Optional<RunRecord> found = runs.engine().record(p.runId());
        if (found.isEmpty()) {
            return;
        }
        RunInfo info = found.get().info();
        RunOwner owner = found.get().owner();
        if (owner.accountId() == null) {
            return;
        }
        long userId = owner.accountId();
        String project = owner.project();
        RunSummary summary = runs.summary(found.get());
        String tool = p.toolName() == null || p.toolName().isBlank() ? "a tool" : p.toolName();
        raise(userId, NotificationKind.ACTION_REQUIRED, displayName(info.provider()) + " needs your permission",
                "Allow " + tool + "? The request expires at " + p.expiresAt() + ".",
                new Context(project, summary.sessionId() != null ? summary.sessionId() : owner.sessionId(),
                        info.id(), info.provider()));
    }

    private static String displayName(String provider) {
        return provider.isEmpty() ? provider : Character.toUpperCase(provider.charAt(0)) + provider.substring(1);
    }

    /**
     * Sends a test message to every Web Push subscription of the user, whatever their preferences (the user asked
     * for it): the settings page's "Send a test". Nothing is kept in the in-app list.
     *
     * @return how many subscriptions the message was queued for
     */
    public int sendTestPush(long userId) {
        Notification n = new Notification(0, userId, NotificationKind.STOP, "Test notification",
                "Web Push works on this device.", null, null, null, Instant.ofEpochMilli(clock.millis()), false);
        Map<String, Object> view = new java.util.LinkedHashMap<>(n.view());
        view.remove("read");
        view.put("id", "test");
        view.put("kind", "test");
        try {
            return webPush.deliverCounting(userId, mapper.writeValueAsBytes(view));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    private byte[] pushPayload(Notification n, String provider) {
        Map<String, Object> view = new java.util.LinkedHashMap<>(n.view());
        view.remove("read");
        // the in-app view has no provider; the push message carries it so the worker opens the session under it
        view.put("provider", provider);
        try {
            byte[] bytes = mapper.writeValueAsBytes(view);
            if (bytes.length > WebPushCrypto.MAX_PLAINTEXT) {
                view.put("body", "");
                bytes = mapper.writeValueAsBytes(view);
            }
            return bytes;
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    private long nextId() {
        idLock.lock();
        try {
            lastId = Math.max(lastId + 1, clock.millis());
            return lastId;
        } finally {
            idLock.unlock();
        }
    }

    /**
     * Stores an in-app notification and drops the user's older ones beyond {@value #KEPT_PER_USER}. Another server
     * on the same store may have taken the id (its clock ahead): the next one is tried.
     */
    private Notification keep(Notification first) {
        Notification n = first;
        for (int attempt = 0; ; attempt++) {
            Notification row = n;
            try {
                store.write(h -> {
                    h.createUpdate("INSERT INTO notifications (id, user_id, kind, title, body, project_name, "
                                    + "session_id, run_id, created_at, read_at) VALUES (:id, :u, :k, :t, :b, :p, :s, "
                                    + ":r, :c, NULL)")
                            .bind("id", row.id()).bind("u", row.userId()).bind("k", row.kind().wireName())
                            .bind("t", row.title()).bind("b", row.body()).bind("p", row.projectName())
                            .bind("s", row.sessionId()).bind("r", row.runId())
                            .bind("c", row.createdAt().toEpochMilli()).execute();
                    Optional<Long> oldestKept = h.createQuery("SELECT id FROM notifications WHERE user_id = :u "
                                    + "ORDER BY id DESC LIMIT 1 OFFSET :o").bind("u", row.userId())
                            .bind("o", KEPT_PER_USER - 1).mapTo(Long.class).findOne();
                    oldestKept.ifPresent(min -> h.createUpdate("DELETE FROM notifications WHERE user_id = :u "
                            + "AND id < :m").bind("u", row.userId()).bind("m", min).execute());
                    return null;
                });
                break;
            } catch (RuntimeException e) {
                if (attempt >= 5 || !Store.isUniqueViolation(e)) {
                    throw e;
                }
                n = new Notification(nextId(), n.userId(), n.kind(), n.title(), n.body(), n.projectName(),
                        n.sessionId(), n.runId(), n.createdAt(), false);
            }
        }
        signals.computeIfAbsent(n.userId(), u -> new Signal()).changed();
        return n;
    }

    private static final org.jdbi.v3.core.mapper.RowMapper<Notification> ROW = (rs, ctx) -> {
        rs.getLong("read_at");
        boolean read = !rs.wasNull();
        return new Notification(rs.getLong("id"), rs.getLong("user_id"),
                NotificationKind.find(rs.getString("kind")).orElse(NotificationKind.ERROR), rs.getString("title"),
                rs.getString("body"), rs.getString("project_name"), rs.getString("session_id"), rs.getString("run_id"),
                Instant.ofEpochMilli(rs.getLong("created_at")), read);
    };

    @Override
    public void close() {
        worker.shutdownNow();
        webPush.close();
    }

    /** A counter a stream waits on to change: moved when this process adds one of the user's notifications. */
    private static final class Signal {
        private final ReentrantLock lock = new ReentrantLock();
        private final Condition changed = lock.newCondition();
        private long generation;

        long generation() {
            lock.lock();
            try {
                return generation;
            } finally {
                lock.unlock();
            }
        }

        void changed() {
            lock.lock();
            try {
                generation++;
                changed.signalAll();
            } finally {
                lock.unlock();
            }
        }

        void awaitChange(long seen, long nanos) throws InterruptedException {
            lock.lock();
            try {
                while (generation == seen && nanos > 0) {
                    nanos = changed.awaitNanos(nanos);
                }
            } finally {
                lock.unlock();
            }
        }
    }
}
