package org.agentworkspace.core.agent;

import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import org.agentworkspace.api.User;
import org.agentworkspace.api.WorkspaceException;
import org.agentworkspace.api.provider.PermissionMode;
import org.agentworkspace.core.json.JsonMappers;
import org.agentworkspace.core.runs.RunHandle;
import org.agentworkspace.core.runs.RunInfo;
import org.agentworkspace.core.runs.RunStatus;
import org.agentworkspace.core.store.Store;
import org.jdbi.v3.core.JdbiException;

/**
 * Runs of the retired workflow family served over automation runs (docs/workflows.md): a workflow run expands its
 * graph ({@link WorkflowGraph}), then starts each node as an automation run ({@link AgentRunService#start(
 * AgentRunService.Start, AgentRunService.Isolation, boolean)}, origin {@code workflow}) once the nodes it depends on
 * ended, at most {@code maxParallelAgents} at once, each given the outputs of its inputs; all share one
 * {@code contextId}. A failed node does what its {@code onFail} says: {@code abort} (the default) cancels the active
 * nodes and skips the rest, {@code continue} lets its dependents run without its output, {@code retry} starts it
 * again up to {@code maxRetries} times and then aborts. Cancelling the run cancels every active node run. The run
 * and its nodes are stored in {@code workflow_runs} (rewritten on every change); a run cut off by a stop is marked
 * failed at the next start. Visibility is the automation runs' rule: the owner or an administrator.
 */
public final class WorkflowRuns implements AutoCloseable {
    public static final String WORKFLOW_NOT_FOUND = "WORKFLOW_NOT_FOUND";
    public static final String WORKFLOW_RUN_NOT_FOUND = "WORKFLOW_RUN_NOT_FOUND";
    private static final System.Logger LOG = System.getLogger(WorkflowRuns.class.getName());
    private static final int MAX_OUTPUT_CHARS = 100_000;
    private static final int MAX_INPUT_CHARS = 200_000;

    private final AgentRunService service;
    private final Store store;
    private final Clock clock;
    private final ObjectMapper json = JsonMappers.shared();
    private final Map<String, Execution> active = new ConcurrentHashMap<>();
    private final Duration poll;
    private volatile boolean closed;

    private WorkflowRuns(AgentRunService service, Store store, Clock clock, Duration poll) {
        this.service = Objects.requireNonNull(service);
        this.store = Objects.requireNonNull(store);
        this.clock = Objects.requireNonNull(clock);
        this.poll = poll;
    }

    /** The workflow runs over {@code service}'s automation runs; runs left active by a stop are marked failed. */
    public static WorkflowRuns create(AgentRunService service, Store store, Clock clock) {
        WorkflowRuns w = new WorkflowRuns(service, store, clock, Duration.ofMillis(100));
        w.recover();
        return w;
    }

    /** A node run as stored and shown (WorkflowNodeRun), with what the engine needs besides. */
    static final class NodeState {
        String nodeId;
        String kind;
        String adapterId;
        String provider;
        String agentInstanceId;
        String agentLabel;
        String role;
        String instruction;
        String assignment;
        String model;
        String permissionMode;
        long timeoutMs;
        List<String> inputs = new ArrayList<>();
        String onFail;
        String status = "queued";
        String a2aTaskId;
        List<String> runIds = new ArrayList<>();
        int attempts;
        Long startedAt;
        Long finishedAt;
        String error;
        String outputText;
        String prompt;
        Long promptAt;
        Long outputAt;
    }

    /** A workflow run as stored. */
    static final class RunState {
        String id;
        String workflowId;
        String contextId;
        Long accountId;
        String project;
        String status = "queued";
        String input;
        ObjectNode metadata;
        List<NodeState> nodes = new ArrayList<>();
        Long startedAt;
        Long finishedAt;
        long createdAt;
    }

    /** What a started run needs besides the request: where its nodes work. */
    public record Where(Path projectDir, String project) {
    }

    // ------------------------------------------------------------------ preview and start

    /** The preview (WorkflowPreviewResponse) of {@code workflowId} for {@code metadata}; nothing runs. */
    public ObjectNode preview(String workflowId, JsonNode metadata) {
        WorkflowGraph.Plan plan = WorkflowGraph.expand(workflowId, metadata);
        ObjectNode r = json.createObjectNode();
        r.set("workflow", json.valueToTree(WorkflowGraph.workflows().getFirst()));
        r.put("nodeCount", plan.nodes().size());
        ArrayNode nodes = r.putArray("nodes");
        for (WorkflowGraph.Node n : plan.nodes()) {
            ObjectNode o = nodes.addObject();
            o.put("id", n.id());
            o.put("kind", n.kind());
            o.put("adapterId", n.agent().adapterId());
            o.put("agentInstanceId", n.agent().instanceId());
            o.put("agentLabel", n.agent().label());
            ArrayNode in = o.putArray("inputs");
            n.inputs().forEach(in::add);
            o.put("onFail", n.onFail());
            o.put("output", n.output());
            o.put("timeoutMs", n.timeoutMs());
        }
        ObjectNode settings = r.putObject("settings");
        settings.put("maxParallelAgents", plan.maxParallel());
        settings.put("isolation", plan.isolation().wireName());
        settings.put("keepWorkspace", plan.keepWorkspace());
        settings.put("maxRetries", plan.maxRetries());
        return r;
    }

    /**
     * Starts a run of {@code workflowId} as {@code owner} in {@code where}: the graph is expanded and checked
     * (400), the isolation checked as an automation run's, the run stored, then its nodes start in the background.
     *
     * @return the run as stored (WorkflowRun)
     */
    public ObjectNode start(User owner, String workflowId, String input, JsonNode metadata, Where where) {
        if (closed) {
            throw new WorkspaceException.Unavailable(org.agentworkspace.api.ErrorCodes.STORE_UNAVAILABLE,
                    "the service is stopping", null);
        }
        WorkflowGraph.Plan plan = WorkflowGraph.expand(workflowId, metadata);
        service.checkIsolation(plan.isolation());
        String text = input == null ? "" : input;
        if (text.length() > MAX_INPUT_CHARS) {
            throw WorkspaceException.Validation.of("input is longer than " + MAX_INPUT_CHARS + " characters");
        }
        RunState r = new RunState();
        r.id = "wr_" + hex(12);
        r.workflowId = workflowId;
        r.contextId = "ctx_" + hex(12);
        r.accountId = owner.id();
        r.project = where.project();
        r.input = text;
        r.metadata = metadata != null && metadata.isObject() ? ((ObjectNode) metadata).deepCopy()
                : json.createObjectNode();
        r.createdAt = clock.millis();
        for (WorkflowGraph.Node n : plan.nodes()) {
            NodeState s = new NodeState();
            s.nodeId = n.id();
            s.kind = n.kind();
            s.adapterId = n.agent().adapterId();
            s.provider = service.provider(n.agent().provider());
            s.agentInstanceId = n.agent().instanceId();
            s.agentLabel = n.agent().label();
            s.role = n.agent().role();
            s.instruction = n.agent().instruction();
            s.assignment = assignment(n, plan);
            s.model = n.agent().model();
            s.permissionMode = n.agent().permissionMode();
            s.timeoutMs = n.timeoutMs();
            s.inputs = new ArrayList<>(n.inputs());
            s.onFail = n.onFail();
            r.nodes.add(s);
        }
        insert(r);
        Execution e = new Execution(r, plan, owner, where);
        active.put(r.id, e);
        Thread.ofVirtual().name("workflow-" + r.id).start(e::run);
        return view(r);
    }

    private static String assignment(WorkflowGraph.Node n, WorkflowGraph.Plan plan) {
        return switch (n.kind()) {
            case "coordinator" -> "Coordinate the team: split the task into one assignment for each of "
                    + String.join(", ", plan.nodes().stream().filter(x -> x.kind().equals("worker"))
                    .map(x -> x.agent().label() + " (" + x.agent().role() + ")").toList())
                    + ", and name what each must deliver.";
            case "handoff" -> "Write the backend handoff contract (endpoints, data shapes, errors) the frontend agents "
                    + "will build against; keep it short and precise.";
            case "worker" -> "Carry out your part of the task as the " + n.agent().role() + " agent, following the "
                    + "coordinator's plan" + (n.inputs().size() > 1 ? " and the backend handoff contract" : "") + ".";
            case "review" -> "Review the workers' results below as the " + n.agent().role() + " agent; list the "
                    + "problems you find, most important first.";
            default -> "Write the final report of the run: what was done, by whom, and what is left, from the "
                    + "outputs below.";
        };
    }

    // ------------------------------------------------------------------ reading and cancelling

    /** A visible run (WorkflowRun); 404 {@link #WORKFLOW_RUN_NOT_FOUND} otherwise. */
    public ObjectNode find(User viewer, String runId) {
        return view(visible(viewer, runId));
    }

    /** Whether the run has ended ({@code completed}, {@code failed} or {@code canceled}); 404 when not visible. */
    public boolean ended(User viewer, String runId) {
        return terminal(visible(viewer, runId).status);
    }

    /** The runs {@code viewer} may see (administrators: all), newest first, optionally of one project. */
    public List<ObjectNode> list(User viewer, String project) {
        StringBuilder sql = new StringBuilder("SELECT * FROM workflow_runs WHERE 1 = 1");
        if (!viewer.admin()) {
            sql.append(" AND account_id = :a");
        }
        if (project != null) {
            sql.append(" AND project = :p");
        }
        sql.append(" ORDER BY created_at DESC, id DESC LIMIT 200");
        List<RunState> rows = read(h -> {
            var q = h.createQuery(sql.toString());
            if (!viewer.admin()) {
                q.bind("a", viewer.id());
            }
            if (project != null) {
                q.bind("p", project);
            }
            return q.map((rs, ctx) -> row(rs)).list();
        });
        return rows.stream().map(this::view).toList();
    }

    /**
     * Cancels a visible run: its queued nodes become {@code canceled}, every active node run is cancelled, and the
     * run is {@code canceled} once they ended (waiting up to {@code wait}). An ended run is returned as it is.
     */
    public ObjectNode cancel(User viewer, String runId, Duration wait) throws InterruptedException {
        RunState r = visible(viewer, runId);
        if (terminal(r.status)) {
            return view(r);
        }
        Execution e = active.get(runId);
        if (e == null) {
            // no execution (a stop cut it off before recovery marked it): end it here
            synchronized (r) {
                r.status = "canceled";
                r.finishedAt = clock.millis();
                for (NodeState n : r.nodes) {
                    if (!terminal(n.status)) {
                        n.status = "canceled";
                    }
                }
                update(r);
            }
            return view(r);
        }
        e.cancel();
        e.await(wait);
        return view(load(runId).orElseThrow());
    }

    private RunState visible(User viewer, String runId) {
        Execution e = active.get(runId);
        RunState r = e != null ? e.state : load(runId).orElse(null);
        if (r == null || !(viewer.admin() || (r.accountId != null && r.accountId == viewer.id()))) {
            throw new WorkspaceException.NotFound(WORKFLOW_RUN_NOT_FOUND, "no such workflow run");
        }
        return r;
    }

    static boolean terminal(String status) {
        return status.equals("completed") || status.equals("failed") || status.equals("canceled")
                || status.equals("skipped");
    }

    // ------------------------------------------------------------------ execution

    /** One run's scheduler: a virtual thread that starts ready nodes and watches their automation runs. */
    private final class Execution {
        final RunState state;
        final WorkflowGraph.Plan plan;
        final User owner;
        final Where where;
        volatile boolean cancelRequested;
        final java.util.concurrent.CountDownLatch done = new java.util.concurrent.CountDownLatch(1);

        Execution(RunState state, WorkflowGraph.Plan plan, User owner, Where where) {
            this.state = state;
            this.plan = plan;
            this.owner = owner;
            this.where = where;
        }

        void cancel() {
            cancelRequested = true;
        }

        void await(Duration wait) throws InterruptedException {
            done.await(wait.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS);
        }

        void run() {
            try {
                loop();
            } catch (RuntimeException | Error ex) {
                LOG.log(System.Logger.Level.WARNING, "workflow run " + state.id + " failed", ex);
                synchronized (state) {
                    cancelActive("the workflow engine failed: " + ex.getMessage());
                    finish("failed");
                }
            } finally {
                active.remove(state.id);
                done.countDown();
            }
        }

        private void loop() {
            synchronized (state) {
                state.status = "running";
                state.startedAt = clock.millis();
                update(state);
            }
            boolean aborted = false;
            while (true) {
                if (closed) {
                    return; // the next start marks it failed; its node runs end with the engine
                }
                synchronized (state) {
                    if (cancelRequested) {
                        cancelActive("the workflow run was cancelled");
                        for (NodeState n : state.nodes) {
                            if (n.status.equals("queued")) {
                                n.status = "canceled";
                            }
                        }
                        if (noneActive()) {
                            finish("canceled");
                            return;
                        }
                    } else {
                        aborted |= watchActive() || abortNow;
                        if (aborted) {
                            cancelActive("another node failed and its onFail is abort");
                            for (NodeState n : state.nodes) {
                                if (n.status.equals("queued")) {
                                    n.status = "skipped";
                                    n.error = "skipped: the run was aborted by a failed node";
                                }
                            }
                            if (noneActive()) {
                                finish("failed");
                                return;
                            }
                        } else {
                            startReady();
                            if (abortNow) {
                                update(state);
                                continue;
                            }
                            if (state.nodes.stream().allMatch(n -> terminal(n.status))) {
                                NodeState last = state.nodes.getLast();
                                finish(last.status.equals("completed") ? "completed" : "failed");
                                return;
                            }
                        }
                    }
                    update(state);
                }
                try {
                    Thread.sleep(poll);
                } catch (InterruptedException ex) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }

        private boolean noneActive() {
            return state.nodes.stream().noneMatch(n -> n.status.equals("running"));
        }

        /** Reads each running node's automation run; true when a node failed for good with {@code abort}. */
        private boolean watchActive() {
            boolean abort = false;
            for (NodeState n : state.nodes) {
                if (!n.status.equals("running")) {
                    continue;
                }
                RunInfo info = service.info(n.a2aTaskId).orElse(null);
                if (info == null) {
                    n.status = "failed";
                    n.error = "its automation run is gone";
                    n.finishedAt = clock.millis();
                    abort |= !n.onFail.equals("continue");
                    continue;
                }
                if (!info.status().terminal()) {
                    if (n.startedAt != null && clock.millis() - n.startedAt > n.timeoutMs) {
                        service.abort(n.a2aTaskId);
                    }
                    continue;
                }
                if (settling(n.a2aTaskId)) {
                    continue; // its changes are being committed on its branch: the node ends after that
                }
                RunSummary summary = service.summary(info);
                n.finishedAt = clock.millis();
                if (info.status() == RunStatus.SUCCEEDED) {
                    n.status = "completed";
                    n.outputText = clip(summary.text() == null ? "" : summary.text());
                    n.outputAt = n.finishedAt;
                    n.error = null;
                    continue;
                }
                String why = summary.error() != null ? summary.error().code() + ": " + summary.error().message()
                        : info.findReason().orElse("the automation run " + wire(info.status()));
                n.error = "attempt " + n.attempts + ": " + wire(info.status()) + " (" + why + ")";
                if (n.onFail.equals("retry") && n.attempts <= plan.maxRetries()) {
                    n.status = "queued"; // started again by startReady, ahead of nodes that wait for it
                    continue;
                }
                n.status = "failed";
                abort |= !n.onFail.equals("continue");
            }
            return abort;
        }

        private void startReady() {
            long running = state.nodes.stream().filter(n -> n.status.equals("running")).count();
            for (NodeState n : state.nodes) {
                if (running >= plan.maxParallel()) {
                    return;
                }
                if (!n.status.equals("queued") || !inputsEnded(n)) {
                    continue;
                }
                startNode(n);
                if (n.status.equals("running")) {
                    running++;
                }
            }
        }

        private boolean inputsEnded(NodeState n) {
            for (String in : n.inputs) {
                NodeState dep = node(in);
                // a retried input is queued again: wait for it
                if (!dep.status.equals("completed") && !dep.status.equals("failed")) {
                    return false;
                }
            }
            return true;
        }

        private NodeState node(String id) {
            return state.nodes.stream().filter(x -> x.nodeId.equals(id)).findFirst().orElseThrow();
        }

        private void startNode(NodeState n) {
            String prompt = prompt(n);
            Map<String, Object> extra = new LinkedHashMap<>();
            extra.put("workflowRunId", state.id);
            extra.put("workflowId", state.workflowId);
            extra.put("contextId", state.contextId);
            extra.put("nodeId", n.nodeId);
            PermissionMode mode = n.permissionMode == null ? null : PermissionMode.find(n.permissionMode)
                    .orElse(null);
            n.attempts++;
            n.prompt = prompt;
            n.promptAt = clock.millis();
            try {
                RunHandle h = service.start(new AgentRunService.Start(owner.id(), "workflow", n.provider, prompt,
                        where.projectDir(), where.project(), null, n.model, null, mode, extra), plan.isolation(),
                        plan.keepWorkspace());
                n.a2aTaskId = h.id();
                n.runIds.add(h.id());
                n.status = "running";
                n.startedAt = clock.millis();
                n.finishedAt = null;
            } catch (WorkspaceException ex) {
                n.status = "failed";
                n.error = "attempt " + n.attempts + ": " + ex.code() + ": " + ex.getMessage();
                n.finishedAt = clock.millis();
                // a node that cannot even start aborts the run unless its onFail is continue (no retry: it would
                // be refused again)
                abortNow |= !n.onFail.equals("continue");
            }
        }

        boolean abortNow;

        private String prompt(NodeState n) {
            StringBuilder p = new StringBuilder();
            p.append("You are ").append(n.agentLabel).append(" (").append(n.role).append("), node ").append(n.nodeId)
                    .append(" of workflow ").append(state.workflowId).append(" run ").append(state.id)
                    .append(" (context ").append(state.contextId).append(").\n\n");
            p.append("Task:\n").append(state.input.isBlank() ? "(no input given)" : state.input).append("\n\n");
            p.append("Your assignment:\n").append(n.assignment).append("\n");
            if (n.instruction != null) {
                p.append("\nInstruction:\n").append(n.instruction).append("\n");
            }
            for (String in : n.inputs) {
                NodeState dep = node(in);
                p.append("\n--- output of ").append(dep.nodeId).append(" (").append(dep.agentLabel).append(") ---\n");
                p.append(dep.status.equals("completed") ? dep.outputText
                        : "(this node failed and produced no output: " + dep.error + ")").append("\n");
            }
            return p.toString();
        }

        private void cancelActive(String why) {
            for (NodeState n : state.nodes) {
                if (n.status.equals("running") && n.a2aTaskId != null) {
                    service.abort(n.a2aTaskId);
                    RunInfo info = service.info(n.a2aTaskId).orElse(null);
                    if (info == null || info.status().terminal()) {
                        n.status = "canceled";
                        n.error = why;
                        n.finishedAt = clock.millis();
                    }
                }
            }
        }

        private void finish(String status) {
            state.status = status;
            state.finishedAt = clock.millis();
            update(state);
        }
    }

    /** Whether the run's worktree is still being set up or finished (committed, its folder removed). */
    private boolean settling(String runId) {
        return service.worktrees().flatMap(w -> w.byRun(runId))
                .map(w -> List.of("creating", "ready", "running").contains(w.state())).orElse(false);
    }

    private static String wire(RunStatus s) {
        return s == RunStatus.SUCCEEDED ? "completed" : s.wireName();
    }

    private static String clip(String s) {
        return s.length() <= MAX_OUTPUT_CHARS ? s : s.substring(0, MAX_OUTPUT_CHARS) + "\n[output clipped]";
    }

    // ------------------------------------------------------------------ the record

    /** The WorkflowRun record (seed §2): times in epoch milliseconds. */
    ObjectNode view(RunState r) {
        synchronized (r) {
            ObjectNode o = json.createObjectNode();
            o.put("id", r.id);
            o.put("workflowId", r.workflowId);
            o.put("contextId", r.contextId);
            o.put("status", r.status);
            o.put("input", r.input);
            o.put("createdAt", r.createdAt);
            if (r.startedAt != null) {
                o.put("startedAt", r.startedAt);
            }
            if (r.finishedAt != null) {
                o.put("finishedAt", r.finishedAt);
            }
            o.set("metadata", r.metadata.deepCopy());
            ArrayNode nodes = o.putArray("nodeRuns");
            // only worktree runs have a branch to show (no store read per node otherwise)
            boolean isolated = r.metadata.path("settings").path("isolation").asText("host").equals("worktree");
            for (NodeState n : r.nodes) {
                ObjectNode x = nodes.addObject();
                x.put("nodeId", n.nodeId);
                x.put("adapterId", n.adapterId);
                x.put("agentInstanceId", n.agentInstanceId);
                x.put("agentLabel", n.agentLabel);
                x.put("assignment", n.assignment);
                if (n.model != null) {
                    x.put("model", n.model);
                }
                if (n.permissionMode != null) {
                    x.put("permissionMode", n.permissionMode);
                }
                x.put("timeoutMs", n.timeoutMs);
                x.put("status", n.status);
                if (n.a2aTaskId != null) {
                    x.put("a2aTaskId", n.a2aTaskId);
                }
                if (n.startedAt != null) {
                    x.put("startedAt", n.startedAt);
                }
                if (n.finishedAt != null) {
                    x.put("finishedAt", n.finishedAt);
                }
                if (n.error != null) {
                    x.put("error", n.error);
                }
                if (n.outputText != null) {
                    x.put("outputText", n.outputText);
                }
                ArrayNode in = x.putArray("inputs");
                n.inputs.forEach(in::add);
                x.put("onFail", n.onFail);
                x.put("attempts", n.attempts);
                ArrayNode runs = x.putArray("automationRunIds");
                n.runIds.forEach(runs::add);
                ArrayNode messages = x.putArray("messages");
                if (n.prompt != null) {
                    ObjectNode m = messages.addObject();
                    m.put("role", "user");
                    m.put("text", n.prompt);
                    m.put("createdAt", n.promptAt);
                }
                if (n.outputText != null) {
                    ObjectNode m = messages.addObject();
                    m.put("role", "agent");
                    m.put("text", n.outputText);
                    m.put("createdAt", n.outputAt);
                }
                ArrayNode artifacts = x.putArray("artifacts");
                if (n.a2aTaskId != null && isolated) {
                    Optional<RunWorktrees.Worktree> wt = service.worktrees().flatMap(w -> w.byRun(n.a2aTaskId));
                    if (wt.isPresent() && wt.get().branch() != null) {
                        ObjectNode a = artifacts.addObject();
                        a.put("type", "data");
                        a.put("text", "branch " + wt.get().branch());
                        ObjectNode d = a.putObject("data");
                        d.put("branch", wt.get().branch());
                        d.put("state", wt.get().state());
                        d.put("baseCommit", wt.get().baseCommit());
                        d.put("headCommit", wt.get().headCommit());
                        a.putObject("metadata").put("automationRunId", n.a2aTaskId);
                    }
                }
            }
            return o;
        }
    }

    private void insert(RunState r) {
        write(h -> h.createUpdate("INSERT INTO workflow_runs (id, workflow_id, context_id, account_id, project, status,"
                + " input, metadata, nodes, started_at, finished_at, created_at, updated_at, node_id) VALUES (:id, :w,"
                + " :c, :a, :p, :s, :i, :m, :n, :st, :f, :cr, :u, :node)").bind("id", r.id).bind("w", r.workflowId)
                .bind("node", service.runs().engine().nodeId())
                .bind("c", r.contextId).bind("a", r.accountId).bind("p", r.project).bind("s", r.status)
                .bind("i", r.input).bind("m", r.metadata.toString()).bind("n", nodesJson(r))
                .bind("st", r.startedAt).bind("f", r.finishedAt).bind("cr", r.createdAt).bind("u", clock.millis())
                .execute());
    }

    private void update(RunState r) {
        write(h -> h.createUpdate("UPDATE workflow_runs SET status = :s, nodes = :n, started_at = :st,"
                        + " finished_at = :f, updated_at = :u WHERE id = :id").bind("id", r.id).bind("s", r.status)
                .bind("n", nodesJson(r)).bind("st", r.startedAt).bind("f", r.finishedAt).bind("u", clock.millis())
                .execute());
    }

    private String nodesJson(RunState r) {
        try {
            return json.writeValueAsString(r.nodes.stream().map(n -> {
                Map<String, Object> m = new LinkedHashMap<>();
                m.put("nodeId", n.nodeId);
                m.put("kind", n.kind);
                m.put("adapterId", n.adapterId);
                m.put("provider", n.provider);
                m.put("agentInstanceId", n.agentInstanceId);
                m.put("agentLabel", n.agentLabel);
                m.put("role", n.role);
                m.put("instruction", n.instruction);
                m.put("assignment", n.assignment);
                m.put("model", n.model);
                m.put("permissionMode", n.permissionMode);
                m.put("timeoutMs", n.timeoutMs);
                m.put("inputs", n.inputs);
                m.put("onFail", n.onFail);
                m.put("status", n.status);
                m.put("a2aTaskId", n.a2aTaskId);
                m.put("runIds", n.runIds);
                m.put("attempts", n.attempts);
                m.put("startedAt", n.startedAt);
                m.put("finishedAt", n.finishedAt);
                m.put("error", n.error);
                m.put("outputText", n.outputText);
                m.put("prompt", n.prompt);
                m.put("promptAt", n.promptAt);
                m.put("outputAt", n.outputAt);
                return m;
            }).toList());
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    private RunState row(java.sql.ResultSet rs) throws java.sql.SQLException {
        RunState r = new RunState();
        r.id = rs.getString("id");
        r.workflowId = rs.getString("workflow_id");
        r.contextId = rs.getString("context_id");
        long a = rs.getLong("account_id");
        r.accountId = rs.wasNull() ? null : a;
        r.project = rs.getString("project");
        r.status = rs.getString("status");
        r.input = rs.getString("input");
        r.startedAt = (Long) nullableLong(rs, "started_at");
        r.finishedAt = (Long) nullableLong(rs, "finished_at");
        r.createdAt = rs.getLong("created_at");
        try {
            r.metadata = (ObjectNode) json.readTree(rs.getString("metadata"));
            for (JsonNode n : json.readTree(rs.getString("nodes"))) {
                NodeState s = new NodeState();
                s.nodeId = n.path("nodeId").asText();
                s.kind = n.path("kind").asText();
                s.adapterId = n.path("adapterId").asText();
                s.provider = n.path("provider").asText();
                s.agentInstanceId = n.path("agentInstanceId").asText();
                s.agentLabel = n.path("agentLabel").asText();
                s.role = n.path("role").asText();
                s.instruction = n.path("instruction").asText(null);
                s.assignment = n.path("assignment").asText();
                s.model = n.path("model").asText(null);
                s.permissionMode = n.path("permissionMode").asText(null);
                s.timeoutMs = n.path("timeoutMs").asLong();
                n.path("inputs").forEach(x -> s.inputs.add(x.asText()));
                s.onFail = n.path("onFail").asText();
                s.status = n.path("status").asText();
                s.a2aTaskId = n.path("a2aTaskId").asText(null);
                n.path("runIds").forEach(x -> s.runIds.add(x.asText()));
                s.attempts = n.path("attempts").asInt();
                s.startedAt = n.path("startedAt").isNumber() ? n.path("startedAt").asLong() : null;
                s.finishedAt = n.path("finishedAt").isNumber() ? n.path("finishedAt").asLong() : null;
                s.error = n.path("error").asText(null);
                s.outputText = n.path("outputText").asText(null);
                s.prompt = n.path("prompt").asText(null);
                s.promptAt = n.path("promptAt").isNumber() ? n.path("promptAt").asLong() : null;
                s.outputAt = n.path("outputAt").isNumber() ? n.path("outputAt").asLong() : null;
                r.nodes.add(s);
            }
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("stored workflow run " + r.id + " is damaged", e);
        }
        return r;
    }

    private static Object nullableLong(java.sql.ResultSet rs, String col) throws java.sql.SQLException {
        long v = rs.getLong(col);
        return rs.wasNull() ? null : v;
    }

    private Optional<RunState> load(String id) {
        return read(h -> h.createQuery("SELECT * FROM workflow_runs WHERE id = :id").bind("id", id)
                .map((rs, ctx) -> row(rs)).findOne());
    }

    /** Runs left queued or running by a stop: failed, their unfinished nodes canceled (their runs ended too). */
    private void recover() {
        // a workflow's coordinator runs in the memory of the node that started it: with several nodes on one store
        // the unfinished workflow runs of a live node are that node's, and only this node's own, those of nodes
        // without a heartbeat within the lease, and those stored before node_id are ended here
        var engine = service.runs().engine();
        List<String> mine = read(h -> h.createQuery("SELECT id, node_id FROM workflow_runs WHERE status IN ('queued',"
                + " 'running')").map((rs, ctx) -> {
                    String node = rs.getString("node_id");
                    return node == null || node.equals(engine.nodeId()) || !engine.nodeAlive(node)
                            ? rs.getString("id") : null;
                }).list()).stream().filter(java.util.Objects::nonNull).toList();
        List<RunState> stale = mine.stream().map(this::load).flatMap(Optional::stream).toList();
        for (RunState r : stale) {
            for (NodeState n : r.nodes) {
                if (!terminal(n.status)) {
                    // only a run this node holds: with several nodes on one store an unfinished run of another
                    // node is that node's (an abort would now reach it); this node's own were ended by its start
                    if (n.status.equals("running") && n.a2aTaskId != null
                            && service.runs().engine().holds(n.a2aTaskId)) {
                        service.abort(n.a2aTaskId);
                    }
                    n.status = "canceled";
                    n.error = "the service stopped during the run";
                }
            }
            r.status = "failed";
            r.finishedAt = clock.millis();
            update(r);
        }
    }

    private <R> R read(java.util.function.Function<org.jdbi.v3.core.Handle, R> work) {
        try {
            return store.read(work);
        } catch (JdbiException e) {
            throw Store.unavailable(e);
        }
    }

    private <R> R write(java.util.function.Function<org.jdbi.v3.core.Handle, R> work) {
        try {
            return store.write(work);
        } catch (JdbiException e) {
            throw Store.unavailable(e);
        }
    }

    private static String hex(int bytes) {
        byte[] b = new byte[bytes];
        new java.security.SecureRandom().nextBytes(b);
        return HexFormat.of().formatHex(b);
    }

    /**
     * Stops starting nodes and waits (a few seconds at most) for every execution to let go of its run, before the
     * engine stops the node runs: a run cut off by the stop is left as it was and marked failed by the next start.
     */
    @Override
    public void close() {
        closed = true;
        for (Execution e : List.copyOf(active.values())) {
            try {
                e.await(Duration.ofSeconds(5));
            } catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }
}
