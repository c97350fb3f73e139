package org.agentworkspace.core.tasks;

import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.EnumMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

import org.agentworkspace.api.WorkspaceException;
import org.agentworkspace.core.runs.RunEngine;
import org.agentworkspace.core.runs.RunHandle;
import org.agentworkspace.core.runs.RunInfo;
import org.agentworkspace.core.runs.RunStatus;
import org.agentworkspace.core.store.Store;

/**
 * Automation tasks and their scheduler.
 *
 * <p><b>States.</b> {@code scheduled} → (due) {@code running} → {@code scheduled} again (interval, cron) or
 * {@code completed}/{@code failed} (once, by the run's outcome). Pause: scheduled|running → {@code paused} (an active
 * run finishes; nothing new starts). Resume: paused → scheduled ({@code running} while its run is still active),
 * with the next run recomputed from now; a one-time task whose moment passed runs at once. Cancel: any state that has
 * not ended → {@code cancelled}, stopping an active run. Update changes the given fields of a task that has not
 * ended. Delete cancels an active run and removes the task with its run links. Other transitions give 409
 * {@code TASK_STATE_CONFLICT}.
 *
 * <p><b>Scheduling.</b> One scheduler thread wakes at the earliest {@code nextRunAt} (at least every 30 s, and at
 * once after any change) and starts the due tasks through the {@link Launcher}, each occurrence only after claiming
 * it with a conditional update of the task's row (still {@code scheduled}, still due at the same moment): with
 * several nodes on one store exactly one of them fires it, and every node ends the occurrences of a node that died
 * (docs/scale-out.md). A task never overlaps itself: while
 * its run is active it is not {@code scheduled}, and when the run ends the next run is computed from that moment, so
 * occurrences missed while it ran, or while the service was down, are coalesced into one run. A run still active
 * after the task's {@code timeoutMs} is cancelled. After a restart, tasks whose run was interrupted are settled from
 * the run's stored outcome; overdue tasks run once at start.
 *
 * <p>Launch failures (the provider is not installed, the project is gone) count as a failed run: a one-time task
 * becomes {@code failed}, a recurring one waits for its next time.
 */
public final class Tasks implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(Tasks.class.getName());
    private static final SecureRandom RANDOM = new SecureRandom();
    private static final Duration MAX_SLEEP = Duration.ofSeconds(30);
    /** How often every node looks for task runs whose firing node is gone ({@link #settleAbandoned}). */
    private static final Duration SWEEP_EVERY = Duration.ofSeconds(10);
    /** A claimed occurrence with no run recorded after this long was abandoned by a node that died launching it. */
    static final Duration ABANDONED_CLAIM = Duration.ofMinutes(5);
    private static final int MAX_NAME = 200;

    /** Starts a task's run; throws {@link WorkspaceException} when it cannot start. */
    @FunctionalInterface
    public interface Launcher {
        RunHandle launch(AutomationTask task);
    }

    /** What a caller may set when creating a task (validated by {@link #create}). */
    public record NewTask(String name, String prompt, String agentType, String model, String projectId,
                          Schedule schedule, Long timeoutMs, String isolation) {
        /** A task whose runs work in the project itself ({@code host}). */
        public NewTask(String name, String prompt, String agentType, String model, String projectId,
                       Schedule schedule, Long timeoutMs) {
            this(name, prompt, agentType, model, projectId, schedule, timeoutMs, null);
        }
    }

    /** A partial update: null fields stay as they are; {@code clearModel}/{@code clearTimeout} set them to null. */
    public record Changes(String name, String prompt, String agentType, String model, boolean clearModel,
                          Schedule schedule, Long timeoutMs, boolean clearTimeout, String isolation) {
        /** Changes that leave the task's isolation as it is. */
        public Changes(String name, String prompt, String agentType, String model, boolean clearModel,
                       Schedule schedule, Long timeoutMs, boolean clearTimeout) {
            this(name, prompt, agentType, model, clearModel, schedule, timeoutMs, clearTimeout, null);
        }
    }

    private final TaskStore store;
    private final Clock clock;
    private final Duration maxSleep;
    private long lastSweep = System.nanoTime() - SWEEP_EVERY.toNanos() - 1;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition changed = lock.newCondition();
    private RunEngine runs;
    private Launcher launcher;
    private Thread scheduler;
    private volatile boolean closed;
    /** Restarts of the scheduler after an error escaped its loop, and the last such error. */
    private final java.util.concurrent.atomic.AtomicInteger restarts = new java.util.concurrent.atomic.AtomicInteger();
    private volatile String lastError;
    private volatile boolean gaveUp;
    private final java.util.ArrayDeque<Long> recentRestarts = new java.util.ArrayDeque<>();
    static final int MAX_RESTARTS = 5;
    static final Duration RESTART_WINDOW = Duration.ofMinutes(10);

    private Tasks(TaskStore store, Clock clock, Duration maxSleep) {
        this.store = store;
        this.clock = clock;
        this.maxSleep = maxSleep;
    }

    /**
     * The tasks in {@code store}; nothing is scheduled until {@link #start}.
     *
     * @param minInterval the shortest interval schedule accepted (60 s in the service)
     */
    public static Tasks create(Store store, Clock clock, Duration minInterval) {
        return create(store, clock, minInterval, MAX_SLEEP);
    }

    /**
     * As {@link #create(Store, Clock, Duration)}, with the longest the scheduler sleeps before it reads the store
     * again ({@code 30 s} in the service): the bound on how late a task another node created, or whose node died,
     * is seen by this node.
     */
    public static Tasks create(Store store, Clock clock, Duration minInterval, Duration maxSleep) {
        if (maxSleep.isNegative() || maxSleep.isZero()) {
            throw new IllegalArgumentException("maxSleep must be positive");
        }
        return new Tasks(new TaskStore(Objects.requireNonNull(store), minInterval), Objects.requireNonNull(clock),
                maxSleep);
    }

    /** Reads a schedule's wire form with this service's minimum interval. */
    public Schedule parseSchedule(com.fasterxml.jackson.databind.JsonNode json) {
        return Schedule.parse(json, store.minInterval());
    }

    /** Starts the scheduler: settles interrupted tasks, then runs due tasks through {@code launcher}. */
    public void start(RunEngine runEngine, Launcher taskLauncher) {
        lock.lock();
        try {
            if (scheduler != null) {
                throw new IllegalStateException("already started");
            }
            this.runs = Objects.requireNonNull(runEngine);
            this.launcher = Objects.requireNonNull(taskLauncher);
            // a task created or changed on another node: its NOTIFY wakes this scheduler within milliseconds (the
            // callback runs on the listening thread, which must not wait for the scheduler's lock)
            runEngine.onSignal(SIGNAL, () -> Thread.ofVirtual().name("aw-task-wake").start(this::wakeUp));
            for (AutomationTask t : store.withStatus(TaskStatus.RUNNING)) {
                recover(t);
            }
            for (AutomationTask t : store.withStatus(TaskStatus.PAUSED)) {
                if (t.activeRunId() != null) {
                    recover(t);
                }
            }
            scheduler = Thread.ofPlatform().daemon().name("aw-task-scheduler").start(this::supervised);
        } finally {
            lock.unlock();
        }
    }

    /** Whether the scheduler thread is running. */
    public boolean schedulerRunning() {
        Thread t = scheduler;
        return t != null && t.isAlive() && !closed && !gaveUp;
    }

    /**
     * Whether the scheduler is fine: not started yet, running, or closed on purpose — false only when it gave up
     * after {@link #MAX_RESTARTS} restarts within {@link #RESTART_WINDOW} (the server's watchdog then ends the
     * process, for its launcher to start it again).
     */
    public boolean schedulerHealthy() {
        return !gaveUp;
    }

    /** How often the scheduler was restarted after an error escaped its loop. */
    public int schedulerRestarts() {
        return restarts.get();
    }

    /** The last error that stopped the scheduler's loop (class and message), if any. */
    public java.util.Optional<String> schedulerLastError() {
        return java.util.Optional.ofNullable(lastError);
    }

    /** The topic of {@link RunEngine#signal} a node sends after it changed a task. */
    static final String SIGNAL = "tasks";

    /** Wakes the scheduler to read the store again. */
    private void wakeUp() {
        lock.lock();
        try {
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /**
     * Tells the other nodes' schedulers that a task changed (after the change is committed); a lost notice only
     * delays them to their next read (at most {@code maxSleep}).
     */
    private void tellOtherNodes() {
        RunEngine r = runs;
        if (r == null) {
            return;
        }
        try {
            r.signal(SIGNAL);
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, "could not tell other nodes of a task change (they see it within "
                    + maxSleep.toSeconds() + " s): " + e);
        }
    }

    /** Cancels a task's run after the task's change is stored: on the node that runs it, which may be another. */
    private void stopRun(String taskId, String runId) {
        if (runId == null || runs == null) {
            return;
        }
        try {
            runs.cancel(runId);
        } catch (WorkspaceException e) {
            LOG.log(System.Logger.Level.WARNING, "task " + taskId + ": its run " + runId + " could not be stopped: "
                    + e.getMessage());
        }
    }

    // ------------------------------------------------------------------ operations

    public AutomationTask create(long userId, NewTask n) {
        String prompt = requirePrompt(n.prompt());
        // refused now, as a run would refuse it, instead of failing each time the task fires
        org.agentworkspace.api.provider.RunSpec.checkModel(n.model());
        String name = n.name() == null || n.name().isBlank() ? deriveName(prompt) : checkName(n.name());
        Instant now = clock.instant();
        Instant next = firstRun(n.schedule(), now);
        AutomationTask t = new AutomationTask("task_" + HexFormat.of().formatHex(randomBytes()), userId, name, prompt,
                n.agentType(), n.model(), n.projectId(), n.schedule(), TaskStatus.SCHEDULED, next, null, null, 0,
                checkTimeout(n.timeoutMs()), null, now, now, n.isolation());
        lock.lock();
        try {
            store.insert(t);
            changed.signalAll();
        } finally {
            lock.unlock();
        }
        tellOtherNodes();
        return t;
    }

    public Optional<AutomationTask> find(String id) {
        return store.find(id);
    }

    /** Tasks of {@code userId} (every user's when null), newest first. */
    public List<AutomationTask> list(Long userId, String projectId, TaskStatus status) {
        return store.list(userId, projectId, status);
    }

    /** The ids of the task's latest runs, newest first. */
    public List<String> recentRunIds(String taskId, int limit) {
        return store.recentRuns(taskId, limit);
    }

    public AutomationTask update(String id, Changes c) {
        lock.lock();
        try {
            AutomationTask t = get(id);
            if (t.status().ended()) {
                throw conflict(t, "update");
            }
            if (!c.clearModel()) {
                org.agentworkspace.api.provider.RunSpec.checkModel(c.model());
            }
            Instant now = clock.instant();
            Schedule schedule = c.schedule() != null ? c.schedule() : t.schedule();
            Instant next = t.nextRunAt();
            if (c.schedule() != null && t.status() == TaskStatus.SCHEDULED) {
                next = firstRun(schedule, now);
            }
            AutomationTask u = new AutomationTask(t.id(), t.userId(),
                    c.name() != null ? checkName(c.name()) : t.name(),
                    c.prompt() != null ? requirePrompt(c.prompt()) : t.prompt(),
                    c.agentType() != null ? c.agentType() : t.agentType(),
                    c.clearModel() ? null : c.model() != null ? c.model() : t.model(),
                    t.projectId(), schedule, t.status(), next, t.lastRunAt(), t.lastRunStatus(), t.runCount(),
                    c.clearTimeout() ? null : c.timeoutMs() != null ? checkTimeout(c.timeoutMs()) : t.timeoutMs(),
                    t.activeRunId(), t.createdAt(), now, c.isolation() != null ? c.isolation() : t.isolation());
            writeChange(t, u);
            changed.signalAll();
            return u;
        } finally {
            lock.unlock();
            tellOtherNodes();
        }
    }

    public AutomationTask pause(String id) {
        lock.lock();
        try {
            AutomationTask t = get(id);
            if (t.status() != TaskStatus.SCHEDULED && t.status() != TaskStatus.RUNNING) {
                throw conflict(t, "pause");
            }
            AutomationTask u = with(t, TaskStatus.PAUSED, null, t.activeRunId());
            writeChange(t, u);
            changed.signalAll();
            return u;
        } finally {
            lock.unlock();
            tellOtherNodes();
        }
    }

    public AutomationTask resume(String id) {
        lock.lock();
        try {
            AutomationTask t = get(id);
            if (t.status() != TaskStatus.PAUSED) {
                throw conflict(t, "resume");
            }
            Instant now = clock.instant();
            AutomationTask u;
            if (t.activeRunId() != null && runActive(t.activeRunId())) {
                u = with(t, TaskStatus.RUNNING, null, t.activeRunId());
            } else {
                Instant next = t.schedule() instanceof Schedule.Once once
                        ? (once.at().isAfter(now) ? once.at() : now)
                        : t.schedule().nextAfter(now).orElse(null);
                u = with(t, TaskStatus.SCHEDULED, next, null);
            }
            writeChange(t, u);
            changed.signalAll();
            return u;
        } finally {
            lock.unlock();
            tellOtherNodes();
        }
    }

    public AutomationTask cancel(String id) {
        AutomationTask u;
        lock.lock();
        try {
            AutomationTask t = get(id);
            if (t.status().ended()) {
                throw conflict(t, "cancel");
            }
            u = with(t, TaskStatus.CANCELLED, null, t.activeRunId());
            writeChange(t, u);
            changed.signalAll();
        } finally {
            lock.unlock();
        }
        tellOtherNodes();
        // outside the lock: a run on another node is cancelled there, which takes a round trip
        stopRun(id, u.activeRunId());
        return u;
    }

    public void delete(String id) {
        AutomationTask t;
        lock.lock();
        try {
            t = get(id);
            store.delete(id);
            changed.signalAll();
        } finally {
            lock.unlock();
        }
        tellOtherNodes();
        stopRun(id, t.activeRunId());
    }

    /** Tasks by status, every user's. */
    public Map<TaskStatus, Integer> counts() {
        Map<TaskStatus, Integer> m = new EnumMap<>(TaskStatus.class);
        for (TaskStatus s : TaskStatus.values()) {
            m.put(s, 0);
        }
        for (AutomationTask t : store.list(null, null, null)) {
            m.merge(t.status(), 1, Integer::sum);
        }
        return m;
    }

    @Override
    public void close() {
        closed = true;
        lock.lock();
        try {
            changed.signalAll();
        } finally {
            lock.unlock();
        }
        Thread t = scheduler;
        if (t != null) {
            try {
                t.join(5000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    // ------------------------------------------------------------------ scheduler

    /**
     * Runs the loop and restarts it when an error escapes it (the loop handles runtime exceptions itself; an
     * {@link Error} such as a stack overflow would otherwise end the thread without a word): logged at ERROR,
     * counted for {@code GET /api/automation/status}, restarted after a second. More than {@link #MAX_RESTARTS}
     * within {@link #RESTART_WINDOW}: the scheduler gives up and reports it ({@link #schedulerHealthy()}).
     */
    private void supervised() {
        while (!closed) {
            try {
                loop();
                return;
            } catch (OutOfMemoryError e) {
                // the JVM is not to be trusted any more (the server exits on it: -XX:+ExitOnOutOfMemoryError)
                lastError = e.toString();
                gaveUp = true;
                throw e;
            } catch (Throwable e) {
                lastError = e.toString();
                long now = System.nanoTime();
                boolean giveUp;
                synchronized (recentRestarts) {
                    recentRestarts.addLast(now);
                    while (!recentRestarts.isEmpty() && now - recentRestarts.peekFirst() > RESTART_WINDOW.toNanos()) {
                        recentRestarts.removeFirst();
                    }
                    giveUp = recentRestarts.size() > MAX_RESTARTS;
                }
                if (giveUp) {
                    gaveUp = true;
                    LOG.log(System.Logger.Level.ERROR, "task scheduler failed " + recentRestarts.size()
                            + " times within " + RESTART_WINDOW.toMinutes() + " minutes; it stays stopped: " + e, e);
                    return;
                }
                int n = restarts.incrementAndGet();
                LOG.log(System.Logger.Level.ERROR, "task scheduler stopped by " + e + "; restarting it (restart "
                        + n + ")", e);
                try {
                    Thread.sleep(1000);
                } catch (InterruptedException ie) {
                    return;
                }
            }
        }
    }

    private void loop() {
        while (!closed) {
            try {
                if (System.nanoTime() - lastSweep > SWEEP_EVERY.toNanos()) {
                    lastSweep = System.nanoTime();
                    settleAbandoned();
                }
                Instant now = clock.instant();
                leftToOthers = false;
                for (AutomationTask t : store.due(now, 50)) {
                    if (closed) {
                        return;
                    }
                    fire(t.id());
                }
                lock.lock();
                try {
                    if (closed) {
                        return;
                    }
                    Instant next = store.earliest().orElse(null);
                    long waitMs = next == null ? maxSleep.toMillis()
                            : Math.min(maxSleep.toMillis(), Duration.between(clock.instant(), next).toMillis());
                    if (leftToOthers) {
                        // the earliest due task may be one another node fires: do not spin on it
                        waitMs = Math.max(waitMs, Math.min(maxSleep.toMillis(), LEFT_TO_OTHERS_WAIT_MS));
                    }
                    if (waitMs > 0) {
                        changed.await(waitMs, TimeUnit.MILLISECONDS);
                    }
                } finally {
                    lock.unlock();
                }
            } catch (InterruptedException e) {
                return;
            } catch (RuntimeException e) {
                LOG.log(System.Logger.Level.ERROR, "task scheduler: " + e.getMessage(), e);
                try {
                    Thread.sleep(1000);
                } catch (InterruptedException ie) {
                    return;
                }
            }
        }
    }

    /**
     * Which due tasks this scheduler fires (docs/scale-out.md "Where work runs"): a task it does not is left, unclaimed,
     * for the node that has its project's folder. All of them by default.
     */
    public void fireOnlyWhere(java.util.function.Predicate<AutomationTask> firesHere) {
        this.firesHere = Objects.requireNonNull(firesHere, "firesHere");
    }

    private volatile java.util.function.Predicate<AutomationTask> firesHere = t -> true;
    /** Set by {@link #fire} when it left a due task to another node in this pass (the loop then waits a little). */
    private boolean leftToOthers;
    /** How long the loop waits while a due task is another node's, before it looks again. */
    private static final long LEFT_TO_OTHERS_WAIT_MS = 1000;

    private void fire(String id) {
        lock.lock();
        AutomationTask t;
        try {
            t = store.find(id).orElse(null);
            Instant now = clock.instant();
            if (t == null || t.status() != TaskStatus.SCHEDULED || t.nextRunAt() == null
                    || t.nextRunAt().isAfter(now)) {
                return;
            }
            if (!firesHere.test(t)) {
                leftToOthers = true;
                return; // another live node has the project's folder: it claims this occurrence
            }
            Instant shown = t.schedule() instanceof Schedule.Once ? null : t.schedule().nextAfter(now).orElse(null);
            if (!store.claim(t.id(), t.nextRunAt(), shown, now)) {
                return; // another node sharing the store fired this occurrence
            }
            RunHandle handle;
            try {
                handle = launcher.launch(t);
            } catch (WorkspaceException | java.io.UncheckedIOException e) {
                LOG.log(System.Logger.Level.WARNING, "task " + t.id() + " could not start its run: " + e.getMessage());
                boolean once = t.schedule() instanceof Schedule.Once;
                AutomationTask u = new AutomationTask(t.id(), t.userId(), t.name(), t.prompt(), t.agentType(),
                        t.model(), t.projectId(), t.schedule(), once ? TaskStatus.FAILED : TaskStatus.SCHEDULED,
                        once ? null : t.schedule().nextAfter(now).orElse(null), now, RunStatus.FAILED.wireName(),
                        t.runCount(), t.timeoutMs(), null, t.createdAt(), now, t.isolation());
                // unless it was paused or cancelled (on any node) while the launch was tried
                store.updateIf(u, TaskStatus.RUNNING, null);
                return;
            } catch (RuntimeException | Error e) {
                // not a refusal but a fault of this node (it escapes to the supervisor): the occurrence is given
                // back, due as it was, for this scheduler after its restart or for another node
                try {
                    store.release(t.id(), t.nextRunAt());
                } catch (RuntimeException | Error again) {
                    e.addSuppressed(again);
                }
                throw e;
            }
            store.started(t.id(), handle.id(), now);
            watch(t.id(), handle.id(), t.timeoutMs());
        } finally {
            lock.unlock();
        }
    }

    private void watch(String taskId, String runId, Long timeoutMs) {
        Thread.ofVirtual().name("aw-task-watch-" + taskId).start(() -> {
            try {
                Duration limit = timeoutMs == null ? Duration.ofDays(365) : Duration.ofMillis(timeoutMs);
                Optional<RunInfo> done = runs.awaitCompletion(runId, limit);
                if (done.isEmpty()) {
                    LOG.log(System.Logger.Level.INFO, "task " + taskId + ": run " + runId + " exceeded "
                            + timeoutMs + " ms and is stopped");
                    runs.cancel(runId);
                    done = runs.awaitCompletion(runId, Duration.ofMinutes(2));
                }
                if (done.isEmpty()) {
                    // not stopped within 2 minutes, or another node's run this node cannot stop: it stays the
                    // task's active run, and settleAbandoned ends the task when the run has ended
                    LOG.log(System.Logger.Level.WARNING, "task " + taskId + ": run " + runId
                            + " has not ended after it was stopped");
                    return;
                }
                ended(taskId, runId, done.get().status());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (WorkspaceException e) {
                ended(taskId, runId, RunStatus.FAILED);
            }
        });
    }

    private void ended(String taskId, String runId, RunStatus status) {
        lock.lock();
        try {
            AutomationTask t = store.find(taskId).orElse(null);
            if (t == null || !Objects.equals(runId, t.activeRunId())) {
                return;
            }
            Instant now = clock.instant();
            TaskStatus next = t.status();
            Instant nextRun = t.nextRunAt();
            if (t.status() == TaskStatus.RUNNING) {
                if (t.schedule() instanceof Schedule.Once) {
                    next = status == RunStatus.SUCCEEDED ? TaskStatus.COMPLETED : TaskStatus.FAILED;
                    nextRun = null;
                } else {
                    next = TaskStatus.SCHEDULED;
                    nextRun = t.schedule().nextAfter(now).orElse(null);
                }
            }
            // conditional: the run's own watcher and another node's sweep may both see it end; one write counts
            store.updateIf(new AutomationTask(t.id(), t.userId(), t.name(), t.prompt(), t.agentType(), t.model(),
                    t.projectId(), t.schedule(), next, nextRun, t.lastRunAt(), status.wireName(), t.runCount(),
                    t.timeoutMs(), null, t.createdAt(), now, t.isolation()), t.status(), t.activeRunId());
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /**
     * Ends the runs of tasks whose firing node is gone: a task {@code running} (or paused with a run) whose run has
     * ended without its watcher noticing — the run was settled {@code node_lost} by another node, or the node died
     * before it could record the end — or whose occurrence was claimed but no run recorded for
     * {@link #ABANDONED_CLAIM} (the claiming node died while launching). Every node does this; the conditional
     * write in {@link #ended} lets one of them settle each.
     */
    private void settleAbandoned() {
        List<AutomationTask> candidates = new java.util.ArrayList<>(store.withStatus(TaskStatus.RUNNING));
        candidates.addAll(store.withStatus(TaskStatus.PAUSED).stream().filter(t -> t.activeRunId() != null).toList());
        Instant now = clock.instant();
        for (AutomationTask t : candidates) {
            if (closed) {
                return;
            }
            if (t.activeRunId() == null) {
                if (t.updatedAt().plus(ABANDONED_CLAIM).isBefore(now)) {
                    ended(t.id(), null, RunStatus.FAILED);
                }
                continue;
            }
            Optional<RunInfo> info = runs.find(t.activeRunId());
            if (info.isEmpty() || info.get().status().terminal()) {
                ended(t.id(), t.activeRunId(), info.map(RunInfo::status).orElse(RunStatus.FAILED));
            }
        }
    }

    private void recover(AutomationTask t) {
        if (t.activeRunId() == null) {
            // claimed, no run recorded yet: another node may be launching it right now; settleAbandoned ends it
            // once the claim is ABANDONED_CLAIM old
            return;
        }
        Optional<RunInfo> info = runs.find(t.activeRunId());
        if (info.isPresent() && !info.get().status().terminal()) {
            watch(t.id(), t.activeRunId(), t.timeoutMs());
        } else {
            ended(t.id(), t.activeRunId(), info.map(RunInfo::status).orElse(RunStatus.FAILED));
        }
    }

    private boolean runActive(String runId) {
        return runs != null && runs.find(runId).map(i -> !i.status().terminal()).orElse(false);
    }

    // ------------------------------------------------------------------ helpers

    private AutomationTask get(String id) {
        return store.find(id).orElseThrow(() -> new WorkspaceException.NotFound(TaskErrorCodes.TASK_NOT_FOUND,
                "no such task"));
    }

    /**
     * Writes a user's change of {@code t} only if no other node changed the task's state meanwhile (fired it, ended
     * its run): otherwise 409 {@code TASK_STATE_CONFLICT}, and the caller may read the task again and retry. On one
     * node the lock makes this never happen.
     */
    private void writeChange(AutomationTask t, AutomationTask u) {
        if (!store.updateIf(u, t.status(), t.activeRunId())) {
            throw new WorkspaceException.Conflict(TaskErrorCodes.TASK_STATE_CONFLICT, "the task changed meanwhile"
                    + " (it fired or its run ended on another node); read it again and retry");
        }
    }

    private AutomationTask with(AutomationTask t, TaskStatus status, Instant next, String activeRunId) {
        return new AutomationTask(t.id(), t.userId(), t.name(), t.prompt(), t.agentType(), t.model(), t.projectId(),
                t.schedule(), status, next, t.lastRunAt(), t.lastRunStatus(), t.runCount(), t.timeoutMs(),
                activeRunId, t.createdAt(), clock.instant(), t.isolation());
    }

    private static Instant firstRun(Schedule s, Instant now) {
        if (s instanceof Schedule.Once once) {
            return once.at().isAfter(now) ? once.at() : now;
        }
        return s.nextAfter(now).orElseThrow(() -> new WorkspaceException.Validation(TaskErrorCodes.INVALID_SCHEDULE,
                "the schedule never fires"));
    }

    private static WorkspaceException conflict(AutomationTask t, String what) {
        return new WorkspaceException.Conflict(TaskErrorCodes.TASK_STATE_CONFLICT, "a " + t.status().wireName()
                + " task cannot " + what);
    }

    private static String requirePrompt(String p) {
        if (p == null || p.isBlank()) {
            throw WorkspaceException.Validation.of("prompt must not be blank");
        }
        if (p.length() > 200_000) {
            throw WorkspaceException.Validation.of("prompt is longer than 200000 characters");
        }
        return p;
    }

    private static String checkName(String n) {
        String s = n.strip();
        if (s.isEmpty() || s.length() > MAX_NAME || s.chars().anyMatch(Character::isISOControl)) {
            throw WorkspaceException.Validation.of("name must be 1-" + MAX_NAME + " characters without control"
                    + " characters");
        }
        return s;
    }

    private static String deriveName(String prompt) {
        String oneLine = prompt.strip().replaceAll("\\s+", " ");
        return oneLine.length() <= 60 ? oneLine : oneLine.substring(0, 59) + "…";
    }

    private static Long checkTimeout(Long ms) {
        if (ms != null && (ms < 1000 || ms > 86_400_000L)) {
            throw WorkspaceException.Validation.of("timeoutMs must be between 1000 and 86400000");
        }
        return ms;
    }

    private static byte[] randomBytes() {
        byte[] b = new byte[12];
        RANDOM.nextBytes(b);
        return b;
    }
}
