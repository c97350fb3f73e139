package org.agentworkspace.core.agent;

import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

import org.agentworkspace.api.User;
import org.agentworkspace.api.WorkspaceException;
import org.agentworkspace.api.provider.PermissionMode;
import org.agentworkspace.core.index.HistoryErrorCodes;
import com.fasterxml.jackson.databind.JsonNode;
import org.agentworkspace.core.journal.EventJournal;
import org.agentworkspace.core.runs.RunCursor;
import org.agentworkspace.core.runs.RunEngine;
import org.agentworkspace.core.runs.RunEntry;
import org.agentworkspace.core.runs.RunHandle;
import org.agentworkspace.core.runs.RunStats;
import org.agentworkspace.core.runs.RunInfo;
import org.agentworkspace.core.runs.RunOwner;
import org.agentworkspace.core.runs.RunPage;
import org.agentworkspace.core.runs.RunRecord;
import org.agentworkspace.core.tasks.AutomationTask;
import org.agentworkspace.core.tasks.Tasks;

/**
 * The run use cases of the engine, for every caller (the HTTP routes, {@code /ws}, the scheduler, an embedding
 * program): starting a run (the default provider, the project, continuing a session and the "session busy" rule),
 * reading, paging and cancelling runs with the one visibility rule (the owner or an administrator, as an SQL filter
 * on the typed owner column), the session↔run index, and the task scheduler's launcher. Handlers parse, call this and
 * write the view; they never decide who may see a run or which provider runs by default.
 */
public final class AgentRunService {
    /** The provider a run gets when its caller names none. */
    public static final String DEFAULT_PROVIDER = "claude";
    /** 409: the session's newest run has not ended. */
    public static final String SESSION_BUSY = "SESSION_BUSY";

    private final AgentRuns runs;
    private final Tasks tasks;
    private final RunWorktrees worktrees;

    AgentRunService(AgentRuns runs, Tasks tasks, RunWorktrees worktrees) {
        this.runs = Objects.requireNonNull(runs);
        this.tasks = Objects.requireNonNull(tasks);
        this.worktrees = worktrees;
        // a dead node's queued runs are started here again from their launch specs (docs/scale-out.md "Ownership")
        runs.engine().onTakeover(this::takeOver);
    }

    /** A service over {@code runs} whose scheduled tasks are {@code tasks}' (the engine builds one: use that). */
    public static AgentRunService create(AgentRuns runs, Tasks tasks) {
        return new AgentRunService(runs, tasks, null);
    }

    /** {@link #create(AgentRuns, Tasks)} whose runs may be isolated in git worktrees ({@link RunWorktrees}). */
    public static AgentRunService create(AgentRuns runs, Tasks tasks, RunWorktrees worktrees) {
        return new AgentRunService(runs, tasks, worktrees);
    }

    /** Where a run works: the project itself ({@code host}), its own git worktree, or a container. */
    public enum Isolation {
        HOST, WORKTREE, DOCKER;

        /** {@code host}, {@code worktree}, {@code docker}; null is {@code host}; anything else 400. */
        public static Isolation parse(String s) {
            if (s == null) {
                return HOST;
            }
            return switch (s) {
                case "host" -> HOST;
                case "worktree" -> WORKTREE;
                case "docker" -> DOCKER;
                default -> throw WorkspaceException.Validation.of("isolation must be one of host, worktree, docker");
            };
        }

        public String wireName() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }

    /** The worktrees of isolated runs (empty when this service was built without them). */
    public Optional<RunWorktrees> worktrees() {
        return Optional.ofNullable(worktrees);
    }

    /**
     * Starts a run with {@code isolation}: {@code host} is {@link #start(Start)}; {@code worktree} first makes the
     * run's own git worktree of the project (400 {@link RunWorktrees#WORKTREE_NEEDS_GIT_REPOSITORY}) and runs there;
     * {@code docker} is 400 {@link RunWorktrees#ISOLATION_UNAVAILABLE}: no container image can be configured yet.
     *
     * @param keepWorktree keep the worktree folder after the run (its branch is kept either way)
     */
    public RunHandle start(Start s, Isolation isolation, boolean keepWorktree) {
        checkIsolation(isolation);
        if (isolation == Isolation.HOST) {
            return start(s);
        }
        RunWorktrees.Worktree w = worktrees.prepare(s.projectDir(), s.project(), s.account(), keepWorktree);
        Map<String, Object> extra = new LinkedHashMap<>(s.extra());
        extra.put("isolation", "worktree");
        extra.put("worktreeId", w.id());
        Start inTree = new Start(s.account(), s.origin(), s.provider(), s.prompt(), Path.of(w.path()), s.project(),
                s.taskId(), s.model(), s.resumeSessionId(), s.permissionMode(), extra);
        RunHandle h;
        try {
            h = start(inTree);
        } catch (RuntimeException e) {
            worktrees.abandon(w);
            throw e;
        }
        worktrees.attach(w.id(), h.id());
        return h;
    }

    /**
     * 400 {@link RunWorktrees#ISOLATION_UNAVAILABLE} unless this server can isolate runs that way: {@code docker}
     * needs an image an administrator configured, and no such setting exists yet, so it is always refused.
     */
    public void checkIsolation(Isolation isolation) {
        if (isolation == Isolation.DOCKER) {
            throw new WorkspaceException.Validation(RunWorktrees.ISOLATION_UNAVAILABLE,
                    "isolation 'docker' needs a container image configured by an administrator, and none is "
                            + "configured on this server; use 'host' or 'worktree'");
        }
        if (isolation == Isolation.WORKTREE && worktrees == null) {
            throw new WorkspaceException.Validation(RunWorktrees.ISOLATION_UNAVAILABLE,
                    "isolation 'worktree' is not available on this server");
        }
    }

    /**
     * As {@link #checkIsolation(Isolation)} for a task that will start its runs in {@code projectDir}: a
     * {@code worktree} task also needs the project to be a git repository with a commit (400
     * {@link RunWorktrees#WORKTREE_NEEDS_GIT_REPOSITORY} at once, rather than a failed run at every occurrence). A
     * folder not on this host (another node's project) is checked when its runs start.
     */
    public void checkIsolation(Isolation isolation, Path projectDir) {
        checkIsolation(isolation);
        if (isolation == Isolation.WORKTREE && projectDir != null && java.nio.file.Files.isDirectory(projectDir)) {
            worktrees.requireRepository(projectDir);
        }
    }

    /** The worktree of a visible run that was started isolated; 404 otherwise. */
    public Optional<RunWorktrees.Worktree> worktree(User viewer, String runId) {
        find(viewer, runId);
        return worktrees == null ? Optional.empty() : worktrees.byRun(runId);
    }

    /** Merges a visible, ended isolated run's branch into the project's checked-out branch. */
    public RunWorktrees.Merged mergeWorktree(User viewer, String runId) {
        find(viewer, runId);
        return requireWorktrees().merge(runId, viewer.username());
    }

    /** Deletes a visible, ended isolated run's branch and worktree folder. */
    public RunWorktrees.Worktree discardWorktree(User viewer, String runId) {
        find(viewer, runId);
        return requireWorktrees().discard(runId);
    }

    private RunWorktrees requireWorktrees() {
        if (worktrees == null) {
            throw new WorkspaceException.NotFound(RunWorktrees.WORKTREE_NOT_FOUND,
                    "the run was not started with isolation 'worktree'");
        }
        return worktrees;
    }

    /** The launcher below: provider processes, credentials, redaction, permission requests, summaries. */
    public AgentRuns runs() {
        return runs;
    }

    /**
     * The provider a run uses: {@code requested} when given (400 {@code UNKNOWN_PROVIDER} when no such provider),
     * else {@link #DEFAULT_PROVIDER}.
     */
    public String provider(String requested) {
        String id = requested == null ? DEFAULT_PROVIDER : requested;
        return runs.provider(id).id();
    }

    /** The checked working directory of a registered project; 404 {@code PROJECT_NOT_FOUND} otherwise. */
    public Path project(String name) {
        return runs.settings().projects().find(name).orElseThrow(() -> new WorkspaceException.NotFound(
                AgentErrorCodes.PROJECT_NOT_FOUND, "no project named '" + name.replaceAll("\\p{Cntrl}", "?")
                + "'; GET /api/projects lists them"));
    }

    /**
     * One run to start.
     *
     * @param account         the owning account (the caller; a task's owner); its own provider key is used first
     * @param origin          what starts it: {@code automation}, {@code agent}, {@code ws}, {@code task},
     *                        {@code agent-loop}, {@code ci-repair} …
     * @param provider        provider id, or null for {@link #DEFAULT_PROVIDER}
     * @param projectDir      the checked working directory ({@link #project} or a trusted path)
     * @param project         the registered project's name, or null
     * @param taskId          the task that starts it, or null
     * @param resumeSessionId the CLI session to continue, or null
     * @param extra           more metadata stored with the run (plain JSON values)
     */
    public record Start(Long account, String origin, String provider, String prompt, Path projectDir, String project,
                        String taskId, String model, String resumeSessionId, PermissionMode permissionMode,
                        Map<String, Object> extra) {
        public Start {
            Objects.requireNonNull(origin, "origin");
            Objects.requireNonNull(prompt, "prompt");
            Objects.requireNonNull(projectDir, "projectDir");
            extra = extra == null ? Map.of() : java.util.Collections.unmodifiableMap(new LinkedHashMap<>(extra));
        }
    }

    /** Starts a run (it may wait in the engine's queue); the owner is stored in the run row's typed columns. */
    public RunHandle start(Start s) {
        return start(s, null);
    }

    /**
     * As {@link #start(Start)}, writing {@code along}'s rows (given the new run's id) in the transaction that stores
     * the run: both are stored or neither, and when {@code along} throws the run is never queued.
     */
    public RunHandle start(Start s, org.agentworkspace.core.runs.WithRun along) {
        return runs.start(request(s), runs.engine().withLaunchSpec(along, launchSpec(s)));
    }

    /**
     * What another node needs to start the run again if this one dies with it queued: every field of the start,
     * never a credential (the taking node resolves it by account, as any start does).
     */
    private static String launchSpec(Start s) {
        com.fasterxml.jackson.databind.ObjectMapper mapper = org.agentworkspace.core.json.JsonMappers.shared();
        com.fasterxml.jackson.databind.node.ObjectNode o = mapper.createObjectNode();
        o.put("v", 1);
        if (s.account() != null) {
            o.put("account", s.account());
        }
        o.put("origin", s.origin());
        o.put("provider", s.provider());
        o.put("prompt", s.prompt());
        o.put("projectDir", s.projectDir().toString());
        o.put("project", s.project());
        o.put("taskId", s.taskId());
        o.put("model", s.model());
        o.put("resumeSessionId", s.resumeSessionId());
        o.put("permissionMode", s.permissionMode() == null ? null : s.permissionMode().wireId());
        o.set("extra", mapper.valueToTree(s.extra()));
        return o.toString();
    }

    /** Rebuilds a dead node's queued run from its launch spec ({@link org.agentworkspace.core.runs.RunTakeover}). */
    private org.agentworkspace.core.runs.RunRequest takeOver(String runId, String spec) {
        com.fasterxml.jackson.databind.ObjectMapper mapper = org.agentworkspace.core.json.JsonMappers.shared();
        JsonNode o;
        try {
            o = mapper.readTree(spec);
        } catch (java.io.IOException e) {
            throw new IllegalStateException("its launch spec is not JSON");
        }
        if (o == null || o.path("v").asInt() != 1) {
            throw new IllegalStateException("its launch spec is of an unknown version");
        }
        String mode = text(o, "permissionMode");
        PermissionMode permissionMode = mode == null ? null : PermissionMode.find(mode).orElseThrow(() ->
                new IllegalStateException("its permission mode " + mode + " is unknown here"));
        Path dir = Path.of(o.path("projectDir").asText());
        if (!java.nio.file.Files.isDirectory(dir)) {
            throw new IllegalStateException("its project folder " + dir + " is not on this node");
        }
        @SuppressWarnings("unchecked")
        Map<String, Object> extra = o.hasNonNull("extra") ? mapper.convertValue(o.get("extra"), Map.class) : Map.of();
        Start s = new Start(o.hasNonNull("account") ? o.get("account").asLong() : null, o.path("origin").asText(),
                text(o, "provider"), o.path("prompt").asText(), dir, text(o, "project"), text(o, "taskId"),
                text(o, "model"), text(o, "resumeSessionId"), permissionMode, extra);
        return runs.takeOver(runId, request(s));
    }

    private static String text(JsonNode o, String field) {
        return o.hasNonNull(field) ? o.get(field).asText() : null;
    }

    /** The launcher's request for a start. */
    private AgentRunRequest request(Start s) {
        Map<String, Object> meta = new LinkedHashMap<>();
        meta.put("route", s.origin());
        // written for the wire only (the run views and background jobs show the metadata as stored); ownership is
        // the typed owner below, and nothing reads this field back for a decision
        if (s.account() != null) {
            meta.put("userId", s.account());
        }
        if (s.project() != null) {
            meta.put("projectId", s.project());
        }
        if (s.taskId() != null) {
            meta.put("taskId", s.taskId());
        }
        meta.putAll(s.extra());
        return new AgentRunRequest(provider(s.provider()), s.prompt(), s.projectDir(), s.model(),
                s.resumeSessionId(), meta, s.permissionMode(), s.account(),
                new RunOwner(s.account(), s.project(), s.taskId(), s.origin(), s.resumeSessionId()));
    }

    /** Whether {@code viewer} may see the run: its owner or an administrator. */
    public static boolean visible(User viewer, RunRecord run) {
        return viewer.admin() || (run.owner().accountId() != null && run.owner().accountId() == viewer.id());
    }

    /** The run, if {@code viewer} may see it; 404 {@code RUN_NOT_FOUND} otherwise (someone else's run included). */
    public RunRecord find(User viewer, String runId) {
        return runs.engine().record(runId).filter(r -> visible(viewer, r)).orElseThrow(AgentRunService::notFound);
    }

    /**
     * A page of the runs {@code viewer} may see, newest first: every run for an administrator, else the viewer's
     * own (the query's own {@code visibleTo} is replaced). No log is read.
     *
     * @throws WorkspaceException.Validation the cursor is not one this service gave out
     */
    public RunPage page(User viewer, RunPage.Query query) {
        try {
            return runs.engine().page(query.visibleTo(viewer.admin() ? null : viewer.id()));
        } catch (IllegalArgumentException e) {
            throw WorkspaceException.Validation.of("cursor is not a cursor of this list; start without one");
        }
    }

    /** A page query continuing after {@code cursor}, refusing a cursor that is not ours (400). */
    public static RunPage.Query after(RunPage.Query query, String cursor) {
        try {
            return query.after(cursor);
        } catch (IllegalArgumentException e) {
            throw WorkspaceException.Validation.of("cursor is not a cursor of this list; start without one");
        }
    }

    /** Cancels a visible run and waits up to {@code wait} for its end; the run as it is then. */
    public RunInfo cancel(User viewer, String runId, Duration wait) throws InterruptedException {
        RunInfo info = find(viewer, runId).info();
        if (!info.status().terminal()) {
            // marked cancelled first, so a CLI that ends as soon as its request is denied still ends cancelled
            // on the node that holds the run: this one, or another through the engine's stored request
            runs.permissions().abort(info.id());
            runs.engine().awaitCompletion(info.id(), wait);
            info = runs.engine().find(info.id()).orElseThrow(AgentRunService::notFound);
        }
        return info;
    }

    /** The newest run of a CLI session (the typed session column: no log is read), whoever owns it. */
    public Optional<RunRecord> latestOfSession(String sessionId) {
        return runs.engine().page(RunPage.Query.newest(1).withSession(sessionId)).runs().stream().findFirst();
    }

    /** Whether {@code viewer} started or continued the session through a run of this service (administrators: any). */
    public boolean ownsSession(User viewer, String sessionId) {
        return latestOfSession(sessionId).filter(r -> visible(viewer, r)).isPresent();
    }

    /**
     * The rule for continuing a session: the viewer must own its newest run (a session no run of this service
     * started, found on disk, only for administrators), and that run must have ended.
     *
     * @return the session's newest run, empty for a session no run of this service touched (administrators only)
     * @throws WorkspaceException.NotFound {@code SESSION_NOT_FOUND}
     * @throws WorkspaceException.Conflict {@link #SESSION_BUSY}
     */
    public Optional<RunRecord> continueSession(User viewer, String sessionId) {
        Optional<RunRecord> last = latestOfSession(sessionId);
        if (last.isPresent() ? !visible(viewer, last.get()) : !viewer.admin()) {
            throw new WorkspaceException.NotFound(HistoryErrorCodes.SESSION_NOT_FOUND, "no such session");
        }
        if (last.isPresent() && !last.get().info().status().terminal()) {
            throw new WorkspaceException.Conflict(SESSION_BUSY,
                    "the session has a running turn: wait for its complete frame or abort it");
        }
        return last;
    }

    /** The run summary of a run read without its record (its outcome is read from the row). */
    public RunSummary summary(RunInfo run) {
        return runs.summary(run);
    }

    /** The run summary: stored outcome plus the end of the log. */
    public RunSummary summary(RunRecord run) {
        return runs.summary(run);
    }

    /**
     * Starts a scheduled task's run as its owner, in its project (the scheduler's launcher), isolated as the task
     * says ({@link AutomationTask#isolation()}: a {@code worktree} task's every run gets its own worktree and branch).
     */
    public RunHandle launch(AutomationTask t) {
        Path dir = runs.settings().projects().find(t.projectId()).orElseThrow(() ->
                new WorkspaceException.NotFound(AgentErrorCodes.PROJECT_NOT_FOUND, "the task's project "
                        + t.projectId() + " is no longer registered"));
        // the task's owner's credential: a task never runs on the key of whoever else is signed in
        return start(new Start(t.userId(), "task", t.agentType(), t.prompt(), dir, t.projectId(), t.id(), t.model(),
                null, null, Map.of()), Isolation.parse(t.isolation()), false);
    }

    /** Starts the task scheduler with {@link #launch} (once; a second call does nothing). */
    public synchronized void startScheduler() {
        if (!tasks.schedulerRunning()) {
            tasks.start(runs.engine(), this::launch);
        }
    }

    // ------------------------------------------------------------------ what handlers need, without the launcher

    /** The stored run, whoever owns it (callers that already checked visibility, or the run they just started). */
    public Optional<RunInfo> info(String runId) {
        return runs.engine().find(runId);
    }

    /** The stored run with its typed owner and outcome, whoever owns it (one row, no log read). */
    public Optional<RunRecord> record(String runId) {
        return runs.engine().record(runId);
    }

    /** The run's metadata as stored (the view shows it; never read for a decision). */
    public JsonNode metadata(RunInfo info) {
        return runs.metadata(info);
    }

    /** The sequence number of the run's newest log entry (0: none). */
    public long lastSeq(String runId) {
        return runs.engine().lastSeq(runId);
    }

    /** Reads the run's log from after {@code afterSeq}, waiting for new entries until the run ends. */
    public RunCursor follow(String runId, long afterSeq) {
        return runs.engine().follow(runId, afterSeq);
    }

    /** The run's log as the core journal (the one SSE follower and {@code Last-Event-ID} rule read it). */
    public EventJournal<RunEntry> journal(String runId) {
        return runs.engine().journal(runId);
    }

    /**
     * A native output line of the run as a client may see it: the run's credential and any secret the provider's
     * redaction knows replaced.
     */
    public String redact(String runId, String provider, String line) {
        return runs.redact(runId, provider, line);
    }

    /**
     * Ends a run now, without waiting for its end: its pending permission requests are cancelled, then the run, on
     * the node that holds it (this one, or another node sharing the store, which carries it out at once).
     */
    public void abort(String runId) {
        runs.permissions().abort(runId);
    }

    /** The permission requests of interactive runs (answered over {@code /ws}). */
    public PermissionRequests permissions() {
        return runs.permissions();
    }

    /** The operator's agent settings (registered projects, whether local project paths are trusted). */
    public AgentSettings settings() {
        return runs.settings();
    }

    /** Whether the provider can continue a session. */
    public boolean supportsResume(String provider) {
        return runs.provider(provider).supportsResume();
    }

    /** The ids of every provider a run can use. */
    public java.util.List<String> providerIds() {
        return runs.providerIds();
    }

    /** Counts of the engine's runs (queued, running …). */
    public RunStats stats() {
        return runs.engine().stats();
    }

    /** How many runs may run at once, service-wide. */
    public int maxConcurrentRuns() {
        return runs.engine().settings().globalLimit();
    }

    private static WorkspaceException notFound() {
        return new WorkspaceException.NotFound(AgentErrorCodes.RUN_NOT_FOUND, "no such run");
    }
}
