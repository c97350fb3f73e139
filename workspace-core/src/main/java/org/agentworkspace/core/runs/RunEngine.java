package org.agentworkspace.core.runs;

import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;

import org.agentworkspace.api.ErrorCodes;
import org.agentworkspace.api.WorkspaceException;
import org.agentworkspace.core.journal.EventJournal;
import org.agentworkspace.core.store.Store;

/**
 * Runs provider CLIs and keeps their event logs. The one component of the engine that spawns agent processes.
 *
 * <ul>
 *   <li>{@link #start} stores the run ({@code queued}) and returns at once; it starts when the global and the
 *       provider's limit allow, first come first served per provider; an account has its own caps on queued and
 *       on running runs ({@link RunSettings#maxQueuedPerAccount()}, {@link RunSettings#activeLimitPerAccount()}), so
 *       one account cannot fill the queue or every slot.</li>
 *   <li>Every run's log is append-only in the store: entries numbered 1, 2, 3 … without gaps. {@link #follow}
 *       reads what is stored after a sequence number, then waits for more, and ends after the terminal status;
 *       a reader that reconnects with the last number it saw gets every later entry exactly once, in order.</li>
 *   <li>{@link #cancel}, the inactivity and total timeouts, and {@link #close} kill the run's whole process tree and
 *       verify that nothing is left.</li>
 *   <li>{@link #open} marks runs a previous process of this node left {@code queued} or {@code running} as
 *       {@code failed} ("server restarted") and kills processes still carrying their ids.</li>
 *   <li>Several engines (nodes) may share a PostgreSQL store: each run carries the node that executes it, each node
 *       holds a lease with a heartbeat, and a node settles only the runs of nodes whose lease expired
 *       ({@code failed}, reason {@code node_lost}); a live node's runs are never touched. A cancel, stdin write or
 *       other {@link #request} for another node's run is stored for that node, which carries it out at the
 *       requester's notice (a stored request). On SQLite there is one node. See docs/scale-out.md.</li>
 * </ul>
 */
public final class RunEngine implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(RunEngine.class.getName());
    private static final String ID_ALPHABET = "0123456789abcdefghijklmnopqrstuvwxyz";
    private static final Duration CLOSE_WAIT = Duration.ofSeconds(30);
    static final String RESTARTED = "server restarted";
    /** The reason of the status entry a run gets when another node takes it over ({@link RunTakeover}). */
    public static final String TAKEN_OVER = "taken_over";
    static final String STOPPED = "engine stopped";
    /**
     * 503: the node that runs the run sends no heartbeat (it stopped or is cut off), so a cancel, stdin write or
     * permission answer made on another node cannot reach it; the run is settled {@code failed} ({@code node_lost})
     * once the node's lease expires (docs/scale-out.md).
     */
    public static final String RUN_NODE_LOST = "RUN_NODE_LOST";
    /**
     * 503: the node that runs the run is alive but did not take a request made on another node within
     * {@link #REQUEST_WAIT}; the request was withdrawn (never carried out late): try again.
     */
    public static final String RUN_NODE_NOT_ANSWERING = "RUN_NODE_NOT_ANSWERING";
    /** How long a request for another node's run waits for that node to take it. */
    public static final Duration REQUEST_WAIT = Duration.ofSeconds(10);
    /** 429: the run's account already has {@link RunSettings#maxQueuedPerAccount()} runs waiting. */
    public static final String TOO_MANY_QUEUED_RUNS = "TOO_MANY_QUEUED_RUNS";

    final Store store;
    final RunSettings settings;
    final Clock clock;
    final Json json = new Json();
    final EventLog log;
    final ProcessTree tree = new ProcessTree();
    private final Optional<Path> setsid;
    private final SecureRandom random = new SecureRandom();

    final ConcurrentHashMap<String, ActiveRun> active = new ConcurrentHashMap<>();
    private final List<RunObserver> observers = new java.util.concurrent.CopyOnWriteArrayList<>();
    final ReentrantLock schedule = new ReentrantLock();
    boolean closed;
    /** Rebuilds a dead node's queued run from its launch spec (null: none registered, such runs are settled). */
    volatile RunTakeover takeover;
    private final RetentionSweeps retentions;
    final NodeLease lease;
    private final RunWakeups wakeups;
    final RunRequests requests;
    /** What this node does with the other nodes of a shared store: recovery, dead nodes' runs, remote requests. */
    final RunNodes nodes;
    /** The caps counted in the store when several nodes share it (PostgreSQL); unused on SQLite. */
    private final SharedAdmission admission;
    final OpenStreams openStreams;
    /** The runs waiting here and the counts of those running (the schedule lock guards it). */
    final RunQueue queue;

    private RunEngine(Store store, RunSettings settings, Clock clock, RunNode node) {
        this.store = store;
        this.settings = settings;
        this.clock = clock;
        this.log = new EventLog(store, json, settings.writeBatch(), settings.writeLinger());
        this.setsid = findSetsid();
        this.lease = new NodeLease(store, node, clock);
        this.wakeups = new RunWakeups(store);
        this.requests = new RunRequests(store, lease, wakeups, json, clock);
        requests.handle(RunRequests.CANCEL, (runId, payload) -> String.valueOf(cancelHere(runId, () -> { })));
        requests.handle(RunRequests.WRITE, (runId, payload) -> String.valueOf(writeHere(runId, payload)));
        requests.handle(RunRequests.CLOSE_INPUT, (runId, payload) -> String.valueOf(closeInputHere(runId)));
        this.admission = new SharedAdmission(store, lease, settings);
        this.openStreams = new OpenStreams(store, lease);
        this.nodes = new RunNodes(this);
        this.queue = new RunQueue(this, settings, admission);
        this.retentions = new RetentionSweeps(log, clock);
    }

    /**
     * Opens the engine on a store: recovers runs a previous process left unfinished, then accepts runs. Programs
     * outside this module get their engine from {@code WorkspaceEngine.open(config).runs()} (the store package is
     * not exported); {@code EngineConfig.withRuns} sets its settings. The engine is a node of its own
     * ({@link Node#ephemeral()}): on PostgreSQL, runs an earlier process left unfinished are settled by the lease
     * ({@code node_lost} after 30 s), not at this open; {@code WorkspaceEngine} keeps its node id in the data folder.
     */
    public static RunEngine open(Store store, RunSettings settings, Clock clock) {
        return open(store, settings, clock, RunNode.ephemeral());
    }

    /**
     * Opens the engine as node {@code node}: registers the node, recovers this node's runs a previous process left
     * unfinished, settles runs of dead nodes (PostgreSQL), starts the heartbeat (PostgreSQL), then accepts runs.
     */
    public static RunEngine open(Store store, RunSettings settings, Clock clock, RunNode node) {
        RunEngine engine = new RunEngine(Objects.requireNonNull(store, "store"),
                Objects.requireNonNull(settings, "settings"), Objects.requireNonNull(clock, "clock"),
                Objects.requireNonNull(node, "node"));
        engine.lease.register();
        engine.openStreams.forgetOwn();
        engine.nodes.recover();
        engine.log.start();
        engine.wakeups.onSlotFreed(engine::admitSoon);
        engine.wakeups.start();
        engine.requests.start();
        engine.lease.start(engine.nodes::afterBeat);
        return engine;
    }

    /**
     * Whether node {@code nodeId} is this one or, on a shared store, has sent a heartbeat within the lease; on SQLite
     * every other node id is an earlier process of this data folder, so not alive.
     */
    public boolean nodeAlive(String nodeId) {
        if (nodeId.equals(nodeId())) {
            return true;
        }
        // one node per SQLite store: any other node id is an earlier process of this data folder
        return lease.shared() && lease.silence(nodeId).map(d -> d.compareTo(NodeLease.LEASE) < 0).orElse(false);
    }

    /** This engine's node id (the {@code node_id} of the runs it executes). */
    public String nodeId() {
        return lease.id();
    }

    /**
     * Whether the node's heartbeat worker is fine (always on SQLite); false once it gave up after repeated failures,
     * for the server's watchdog.
     */
    public boolean heartbeatHealthy() {
        return lease.healthy() && requests.healthy();
    }


    /** The per-account caps on open streams counted over every node of a shared store (docs/scale-out.md). */
    public OpenStreams openStreams() {
        return openStreams;
    }

    /**
     * Registers the one rebuilder of taken-over runs (the agent service's; a later call replaces it). Without one, a
     * dead node's queued runs are settled {@code node_lost} like its running ones.
     */
    public void onTakeover(RunTakeover rebuild) {
        this.takeover = rebuild;
    }

    /**
     * {@code along} (null: nothing) followed, on a shared store, by storing {@code spec} as the new run's launch
     * spec, so that another node can start the run if this one dies before it does. {@code spec} must hold no
     * secret. On SQLite (one node) nothing is stored: there is no other node.
     */
    public WithRun withLaunchSpec(WithRun along, String spec) {
        return nodes.withLaunchSpec(along, spec);
    }

    /**
     * Settles the unfinished runs of nodes whose lease expired ({@code failed}, reason {@code node_lost}), and takes
     * over their queued runs that have a launch spec when a {@link Takeover} is registered; a no-op on SQLite.
     * Called after every heartbeat.
     *
     * @return how many runs this call settled or took over
     */
    int sweepLost() {
        return nodes.sweepLost(false);
    }

    /**
     * Tests: this node stops sending heartbeats (and sweeping), as a node killed with {@code kill -9} does; its
     * runs stay in memory untouched.
     */
    void stopHeartbeatForTest() {
        lease.stopWorker();
    }



    /**
     * Accepts a run: stores it as {@code queued} (entry 1) and starts it as soon as the limits allow.
     *
     * @throws WorkspaceException.Validation  the metadata is not a JSON object
     * @throws WorkspaceException.RateLimited the queue is full ({@link RunSettings#maxQueued()}), or the run's
     *                                        account already has {@link RunSettings#maxQueuedPerAccount()} runs
     *                                        waiting ({@code TOO_MANY_QUEUED_RUNS})
     * @throws WorkspaceException.Unavailable the engine is closed
     */
    public RunHandle start(RunRequest request) {
        return start(request, null);
    }

    /**
     * As {@link #start(RunRequest)}, also writing {@code along} in the transaction that stores the run: when it
     * throws, nothing of the run is stored or started and its exception is thrown from here.
     */
    public RunHandle start(RunRequest request, WithRun along) {
        Objects.requireNonNull(request, "request");
        if (!json.isObject(request.metadata())) {
            throw WorkspaceException.Validation.of("run metadata must be a JSON object");
        }
        schedule.lock();
        try {
            if (closed) {
                throw new WorkspaceException.Unavailable(ErrorCodes.STORE_UNAVAILABLE, "the run engine is closed", null);
            }
            String account = request.account();
            // a run that can start at once never waits, so only a run that would queue counts against the cap
            // (on a shared store the count is of every node's waiting runs, taken in the insert's transaction)
            if (!admission.shared() && account != null && queue.wouldWait(request)
                    && queue.queuedOf(account) >= settings.maxQueuedPerAccount()) {
                throw new WorkspaceException.RateLimited(TOO_MANY_QUEUED_RUNS, "this account already has "
                        + settings.maxQueuedPerAccount() + " runs waiting to start; wait for them or cancel some", 5);
            }
            if (queue.size() >= settings.maxQueued()) {
                throw new WorkspaceException.RateLimited("too many runs are waiting to start", 5);
            }
            String id = newId();
            request.parser().bind(id);
            Instant now = clock.instant().truncatedTo(ChronoUnit.MILLIS);
            RunInfo info = new RunInfo(id, request.provider(), RunStatus.QUEUED, now, null, null, null, null,
                    request.metadata());
            RunEntry first = new RunEntry(id, 1, EntryKind.STATUS,
                    json.object().put("status", RunStatus.QUEUED.wireName()).toString(), now);
            // the owner is what the request names, never read back from its free metadata
            RunOwner owner = request.owner() != null ? request.owner() : RunOwner.NONE;
            boolean[] admitted = {false};
            boolean nothingWaits = queue.isEmpty();
            WithRun rows = !admission.shared() ? along : (h, runId) -> {
                if (along != null) {
                    along.write(h, runId);
                }
                admitted[0] = admission.onInsert(h, runId, request, nothingWaits);
            };
            log.insertRun(info, owner, lease.id(), first, rows);
            ActiveRun run = new ActiveRun(id, request.withOwner(owner), 2, this::ended);
            active.put(id, run);
            run.committed(List.of(first), json);
            queue.add(run);
            if (!admission.shared()) {
                queue.schedule();
            } else if (admitted[0]) {
                admission.holds(id);
                queue.launchNow(run);
            } else if (!nothingWaits) {
                // runs wait before it here; one of another provider or account may still fit
                queue.schedule();
            }
            return new RunHandle(this, id);
        } finally {
            schedule.unlock();
        }
    }

    /** Shared store: tries soon to give slots to this node's waiting runs (a slot was freed here or elsewhere). */
    void admitSoon() {
        queue.admitSoon();
    }

    /** Called by a run's supervisor when its process tree is gone and its terminal status is appended. */
    void released(ActiveRun run) {
        schedule.lock();
        try {
            // shared store: the slot is free once the run's terminal status is committed (ended), not before
            queue.released(run);
        } finally {
            schedule.unlock();
        }
    }

    /**
     * Cancels a run: a queued one ends {@code cancelled} at once; a running one has its process tree killed (SIGTERM,
     * then SIGKILL after the grace period) and ends {@code cancelled}.
     *
     * A run another node executes (shared store) is cancelled by that node: see {@link #request}.
     *
     * @return true when the run was queued or running and is now being cancelled; false when it had already ended
     * @throws WorkspaceException.NotFound    no such run
     * @throws WorkspaceException.Unavailable another node's run whose node cannot be reached ({@link #RUN_NODE_LOST},
     *                                        {@link #RUN_NODE_NOT_ANSWERING})
     */
    public boolean cancel(String runId) {
        return cancel(runId, () -> { });
    }

    /**
     * Cancels a run as {@link #cancel(String)} does, running {@code beforeKill} once the run is marked cancelled but
     * before its process is told to stop: what {@code beforeKill} makes the CLI do (deny a pending permission, which
     * a CLI may answer by finishing at once) is still logged, and however the process then ends, the run ends
     * {@code cancelled} (not {@code succeeded} because the CLI exited on its own first).
     */
    public boolean cancel(String runId, Runnable beforeKill) {
        if (!active.containsKey(runId)) {
            // another node's run: that node cancels it (beforeKill is this node's and is not run)
            return nodes.remote(runId, RunRequests.CANCEL, "").map(Boolean::parseBoolean).orElse(false);
        }
        return cancelHere(runId, beforeKill);
    }

    private boolean cancelHere(String runId, Runnable beforeKill) {
        ActiveRun run = active.get(runId);
        if (run == null) {
            requireExists(runId);
            return false;
        }
        schedule.lock();
        try {
            if (queue.remove(run)) {
                endQueued(run, RunStatus.CANCELLED, "cancelled while queued");
                return true;
            }
        } finally {
            schedule.unlock();
        }
        if (run.sealed()) {
            return false;
        }
        boolean first = run.markStop(new ActiveRun.Stop(RunStatus.CANCELLED, "cancelled"));
        try {
            beforeKill.run();
        } finally {
            run.wake();
        }
        return first;
    }

    private void endQueued(ActiveRun run, RunStatus status, String reason) {
        String payload = json.object().put("status", status.wireName()).put("reason", reason).toString();
        run.append(log, clock, EntryKind.STATUS, payload,
                new EventLog.RowChange(status, null, clock.instant(), null, reason));
    }

    /**
     * Writes text (typically one JSON line with its newline) to the stdin of an interactive run
     * ({@link ProcessSpec#interactive()}); text written while the run is queued is kept until its process starts.
     * Another node's run (shared store) is written by that node ({@link #request}; same exceptions).
     *
     * @return false when the run has ended, is not interactive, or its stdin is closed
     * @throws WorkspaceException.NotFound no such run
     */
    public boolean write(String runId, String text) {
        Objects.requireNonNull(text, "text");
        if (!active.containsKey(runId)) {
            return nodes.remote(runId, RunRequests.WRITE, text).map(Boolean::parseBoolean).orElse(false);
        }
        return writeHere(runId, text);
    }

    private boolean writeHere(String runId, String text) {
        ActiveRun run = active.get(runId);
        if (run == null) {
            requireExists(runId);
            return false;
        }
        if (!run.request.process().interactive() || run.sealed()) {
            return false;
        }
        return run.writeInput(text);
    }

    /**
     * Closes the stdin of an interactive run (the process sees EOF). Also done when the run ends.
     *
     * @return true when it was open
     * @throws WorkspaceException.NotFound no such run
     */
    public boolean closeInput(String runId) {
        if (!active.containsKey(runId)) {
            return nodes.remote(runId, RunRequests.CLOSE_INPUT, "").map(Boolean::parseBoolean).orElse(false);
        }
        return closeInputHere(runId);
    }

    private boolean closeInputHere(String runId) {
        ActiveRun run = active.get(runId);
        if (run == null) {
            requireExists(runId);
            return false;
        }
        return run.request.process().interactive() && run.closeInput();
    }

    /**
     * Registers what this node does with requests of kind {@code kind} for the runs it holds (made here or on
     * another node through {@link #request}). The kinds {@code cancel}, {@code stdin} and {@code close-stdin} are the
     * engine's own ({@link #cancel}, {@link #write}, {@link #closeInput} route them). A second registration of a
     * kind replaces the first.
     */
    public void handleRequests(String kind, RunRequestHandler handler) {
        requests.handle(Objects.requireNonNull(kind, "kind"), Objects.requireNonNull(handler, "handler"));
    }

    /**
     * Has the node that holds the run carry out a request of kind {@code kind} ({@link #handleRequests}): at once
     * on this thread when this engine holds it; else, on a shared (PostgreSQL) store, through a stored request that
     * node picks up on a notice (within milliseconds of the commit; at the latest at its next heartbeat), waiting up
     * to {@link #REQUEST_WAIT} for its answer. docs/scale-out.md "Control from any node".
     *
     * @return the handler's result; empty when the run has ended (or is held by no live node: a dead node's runs
     *         are settled {@code node_lost} first)
     * @throws WorkspaceException.NotFound    no such run
     * @throws WorkspaceException.Unavailable {@link #RUN_NODE_LOST}: the run's node sends no heartbeat;
     *                                        {@link #RUN_NODE_NOT_ANSWERING}: it did not take the request in time
     * @throws WorkspaceException             the handler's refusal, as it threw it
     */
    public Optional<String> request(String runId, String kind, String payload) {
        Objects.requireNonNull(payload, "payload");
        if (active.containsKey(runId)) {
            RunRequestHandler h = requests.handler(kind).orElseThrow(() ->
                    new IllegalArgumentException("no handler of '" + kind + "' requests"));
            return Optional.ofNullable(h.handle(runId, payload));
        }
        return nodes.remote(runId, kind, payload);
    }

    /**
     * The {@code event} entries of the run's log ({@link #note} and parsed events) whose JSON contains {@code text},
     * oldest first, at most {@code limit}: for finding what a log says without reading it whole (e.g. the open
     * permission requests of a run another node holds).
     */
    public List<RunEntry> eventsContaining(String runId, String text, int limit) {
        return log.eventsContaining(runId, Objects.requireNonNull(text, "text"), limit);
    }

    /** The queued or running runs (of any node) whose log has an {@code event} entry containing {@code text}. */
    public List<String> unfinishedWithEvent(String text) {
        return log.unfinishedWithEvent(Objects.requireNonNull(text, "text"));
    }

    /**
     * Tells every node sharing the store (this one included) that something about {@code topic} changed, at the
     * commit of a transaction of its own ({@code NOTIFY}); their {@link #onSignal} callbacks run within milliseconds.
     * Only a wake-up: it is lost when a node does not listen at that moment, so a listener still re-reads on its own
     * schedule. Nothing is sent on SQLite (one node).
     */
    public void signal(String topic) {
        nodes.signal(topic);
    }

    /**
     * Runs {@code callback} (on the listening thread: it must return at once) on each {@link #signal} of
     * {@code topic} by any node, and each time the listener (re)connects, as notices may have been lost meanwhile.
     */
    public void onSignal(String topic, Runnable callback) {
        wakeups.onKey("sig:" + Objects.requireNonNull(topic, "topic"), Objects.requireNonNull(callback, "callback"));
    }

    /** Whether this engine holds the run (queued or running here). */
    public boolean holds(String runId) {
        return active.containsKey(runId);
    }


    /**
     * Appends an event of the caller's own to a running run's log (kind {@code event}, the JSON object as is), in
     * the same numbering as the process's output: for things that happen to a run outside its process, such as an
     * answer to a permission request.
     *
     * @return the entry's seq, or -1 when the run has already ended (nothing is stored)
     * @throws WorkspaceException.NotFound   no such run
     * @throws WorkspaceException.Validation {@code eventJson} is not a JSON object
     */
    public long note(String runId, String eventJson) {
        if (!json.isObject(eventJson)) {
            throw WorkspaceException.Validation.of("an event must be a JSON object");
        }
        ActiveRun run = active.get(runId);
        if (run == null) {
            requireExists(runId);
            return -1;
        }
        return run.append(log, clock, EntryKind.EVENT, eventJson, null);
    }

    /**
     * The sequence number of the run's newest committed entry (what a reader can see now).
     *
     * @throws WorkspaceException.NotFound no such run
     */
    public long lastSeq(String runId) {
        ActiveRun run = active.get(runId);
        if (run != null) {
            return run.committedSeq();
        }
        requireExists(runId);
        return log.lastSeq(runId);
    }

    public Optional<RunInfo> find(String runId) {
        return log.find(runId);
    }

    /** The stored run with its typed owner and stored outcome (one row; no log read). */
    public Optional<RunRecord> record(String runId) {
        return log.record(runId);
    }

    /**
     * One page of runs, newest first, filtered in SQL (owner, project, task, session, provider, statuses) and
     * keyset-paged; no log is read.
     *
     * @throws IllegalArgumentException the query's cursor is not one of {@link RunPage#nextCursor()}'s
     */
    public RunPage page(RunPage.Query query) {
        return log.page(Objects.requireNonNull(query, "query"));
    }

    /**
     * The newest {@code lines} log lines and statuses of a run (no parsed events), newest first, and its last seq,
     * read back from the end of the log: the cost does not grow with the log.
     */
    public RunTail tail(String runId, int lines) {
        if (lines < 1 || lines > 10_000) {
            throw new IllegalArgumentException("lines must be 1..10000");
        }
        return log.tail(runId, lines);
    }

    /**
     * Stores the outcome of an ended run stored before outcomes were kept (its {@link RunRecord#outcome()} is null),
     * once its log was read; later reads take it from the row. Ignored for a run that has not ended.
     */
    public void storeOutcome(String runId, RunOutcome outcome) {
        log.storeOutcome(runId, Objects.requireNonNull(outcome, "outcome"));
    }

    /** Runs, newest first. */
    public List<RunInfo> list(RunQuery query) {
        return log.list(Objects.requireNonNull(query, "query"));
    }

    /**
     * A reader of a run's log from entry {@code afterSeq + 1} on ({@code 0} for the whole log).
     *
     * @throws WorkspaceException.NotFound   no such run
     * @throws WorkspaceException.Validation {@code afterSeq} is negative
     */
    public RunCursor follow(String runId, long afterSeq) {
        if (afterSeq < 0) {
            throw WorkspaceException.Validation.of("the event cursor must not be negative");
        }
        if (!active.containsKey(runId)) {
            requireExists(runId);
        }
        return new RunCursor(this, runId, afterSeq);
    }

    /**
     * The run's log as an event journal: entries numbered by {@code seq}, every one kept in the store, ending with the
     * terminal status entry; readers are {@link #follow} cursors.
     *
     * @throws WorkspaceException.NotFound no such run
     */
    public EventJournal<RunEntry> journal(String runId) {
        if (!active.containsKey(runId)) {
            requireExists(runId);
        }
        return new EventJournal<>() {
            @Override
            public long newest() {
                return lastSeq(runId);
            }

            @Override
            public RunCursor follow(long after) {
                return RunEngine.this.follow(runId, after);
            }
        };
    }

    /**
     * Waits until the run has ended and its terminal status is stored.
     *
     * @return the ended run, or empty when {@code timeout} passed first
     * @throws WorkspaceException.NotFound no such run
     */
    public Optional<RunInfo> awaitCompletion(String runId, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        ActiveRun run = active.get(runId);
        if (run != null && !run.awaitDone(timeout.toNanos())) {
            return Optional.empty();
        }
        while (true) {
            // taken before the read: another node's terminal status wakes this at its commit
            long seen = wakeups.generation(runId);
            RunInfo info = find(runId).orElseThrow(() -> notFound(runId));
            if (info.status().terminal()) {
                return Optional.of(info);
            }
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                return Optional.empty();
            }
            wakeups.await(runId, seen, Math.max(1_000_000, Math.min(left, settings.pollInterval().toNanos())));
        }
    }

    public RunSettings settings() {
        return settings;
    }

    /**
     * Starts the periodic retention sweep ({@link RunRetention}): the first a few seconds from now (or after
     * {@code every}, whichever is sooner), then every {@code every}; a failing sweep is logged and the next runs as
     * planned; {@link #close()} stops it. Calling this again replaces the previous schedule.
     */
    public void retain(RunRetention retention) {
        retentions.start(retention);
    }

    /**
     * Deletes ended runs (rows and event logs) that finished more than {@code maxAge} ago or are beyond the
     * {@code maxCount} newest runs; queued and running runs stay. In transactions of at most 500 runs.
     *
     * @return how many runs were deleted
     */
    public int sweep(RunRetention retention) {
        return retentions.sweep(retention);
    }

    /** Counters of this engine since it opened. */
    public RunStats stats() {
        int r;
        int q;
        schedule.lock();
        try {
            r = queue.running();
            q = queue.size();
        } finally {
            schedule.unlock();
        }
        return new RunStats(r, q, log.pending(), log.written(), log.transactions(), Duration.ofNanos(log.busyNanos()));
    }

    /** Runs of this engine that are queued or running right now. */
    public int activeCount() {
        return active.size();
    }

    /**
     * Stops the engine: queued runs end {@code failed} ("engine stopped") without starting, running ones have their
     * process trees killed and end the same way; then the log writer writes what is queued and stops.
     */
    @Override
    public void close() {
        retentions.close();
        List<ActiveRun> queued;
        schedule.lock();
        try {
            if (closed) {
                return;
            }
            closed = true;
            queued = queue.drain();
        } finally {
            schedule.unlock();
        }
        for (ActiveRun r : queued) {
            endQueued(r, RunStatus.FAILED, STOPPED);
        }
        for (ActiveRun r : active.values()) {
            r.requestStop(new ActiveRun.Stop(RunStatus.FAILED, STOPPED));
        }
        long deadline = System.nanoTime() + CLOSE_WAIT.toNanos();
        for (ActiveRun r : new ArrayList<>(active.values())) {
            try {
                if (!r.awaitDone(Math.max(0, deadline - System.nanoTime()))) {
                    LOG.log(System.Logger.Level.WARNING, "run " + r.id + " did not end within " + CLOSE_WAIT);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        requests.close();
        log.close();
        lease.close();
        wakeups.close();
    }

    // ---- for the package: RunProcess and RunCursor ----

    Json json() {
        return json;
    }

    EventLog log() {
        return log;
    }

    Clock clock() {
        return clock;
    }

    RunWakeups wakeups() {
        return wakeups;
    }

    /** Whether this node listens for other nodes' run notices (PostgreSQL; for diagnostics and tests). */
    public boolean listeningToOtherNodes() {
        return wakeups.listening();
    }

    ProcessTree tree() {
        return tree;
    }

    Optional<Path> setsid() {
        return setsid;
    }

    Optional<ActiveRun> activeRun(String runId) {
        return Optional.ofNullable(active.get(runId));
    }

    /** Called when a run's terminal status is committed: from now on readers use the store only. */
    void ended(ActiveRun run) {
        active.remove(run.id, run);
        if (admission.shared()) {
            Thread.ofVirtual().name("aw-run-slot-" + run.id).start(() -> {
                if (admission.ended(run.id)) {
                    admitSoon();
                }
            });
        }
        if (!observers.isEmpty()) {
            Thread.ofVirtual().name("aw-run-ended-" + run.id).start(() -> find(run.id).ifPresent(info -> {
                for (RunObserver o : observers) {
                    try {
                        o.ended(info);
                    } catch (RuntimeException e) {
                        LOG.log(System.Logger.Level.WARNING, "a run observer failed on the end of " + run.id, e);
                    }
                }
            }));
        }
    }

    /** Tells the observers that the run's process is about to start (on the run's supervisor thread). */
    void starting(ActiveRun run, Path workingDir) {
        if (observers.isEmpty()) {
            return;
        }
        find(run.id).ifPresent(info -> {
            for (RunObserver o : observers) {
                try {
                    o.starting(info, run.request.owner(), workingDir);
                } catch (RuntimeException e) {
                    LOG.log(System.Logger.Level.WARNING, "a run observer failed on the start of " + run.id, e);
                }
            }
        });
    }

    /** Adds an observer of run starts and ends (see {@link RunObserver}). */
    public void observe(RunObserver observer) {
        observers.add(Objects.requireNonNull(observer, "observer"));
    }

    /** Removes an observer added by {@link #observe}. */
    public void unobserve(RunObserver observer) {
        observers.remove(observer);
    }

    /** The ids of the runs this engine holds queued or running right now. */
    public List<String> activeIds() {
        return List.copyOf(active.keySet());
    }

    /**
     * Cancels every queued or running run whose typed owner is account {@code userId} (the account that started it;
     * {@link RunOwner#accountId()}): called when that account is deleted. This engine's at once; on a shared store,
     * also those other nodes run, each through its node (on a thread of its own, so this returns at once).
     *
     * @return how many runs are being cancelled
     */
    public int cancelOwnedBy(long userId) {
        int n = 0;
        for (ActiveRun r : new ArrayList<>(active.values())) {
            Long owner = r.request.owner().accountId();
            if (owner != null && owner == userId && cancel(r.id)) {
                n++;
            }
        }
        if (lease.shared()) {
            // the account's runs on other nodes: each cancelled there, off the caller's thread (a round trip each)
            List<String> elsewhere = log.page(RunPage.Query.newest(1000).visibleTo(userId)
                            .withStatuses(java.util.EnumSet.of(RunStatus.QUEUED, RunStatus.RUNNING))).runs().stream()
                    .map(r -> r.info().id()).filter(id -> !active.containsKey(id)).toList();
            if (!elsewhere.isEmpty()) {
                n += elsewhere.size();
                Thread.ofVirtual().name("aw-cancel-owned-" + userId).start(() -> {
                    for (String id : elsewhere) {
                        try {
                            cancel(id);
                        } catch (RuntimeException e) {
                            LOG.log(System.Logger.Level.WARNING, "run " + id + " of deleted account " + userId
                                    + " could not be cancelled on its node: " + e.getMessage());
                        }
                    }
                });
            }
        }
        if (n > 0) {
            LOG.log(System.Logger.Level.INFO, "cancelled " + n + " runs of deleted account " + userId);
        }
        return n;
    }

    private void requireExists(String runId) {
        if (log.find(runId).isEmpty()) {
            throw notFound(runId);
        }
    }

    static WorkspaceException.NotFound notFound(String runId) {
        return new WorkspaceException.NotFound(ErrorCodes.NOT_FOUND, "no such run");
    }

    private String newId() {
        StringBuilder b = new StringBuilder("run_");
        for (int i = 0; i < 20; i++) {
            b.append(ID_ALPHABET.charAt(random.nextInt(ID_ALPHABET.length())));
        }
        return b.toString();
    }

    /** util-linux setsid: starts the child as the leader of a new session (see docs/runs.md). */
    private static Optional<Path> findSetsid() {
        for (String p : List.of("/usr/bin/setsid", "/bin/setsid")) {
            Path path = Path.of(p);
            if (Files.isRegularFile(path) && Files.isExecutable(path)) {
                return Optional.of(path);
            }
        }
        return Optional.empty();
    }
}
