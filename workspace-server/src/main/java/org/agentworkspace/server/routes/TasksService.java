package org.agentworkspace.server.routes;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import io.helidon.http.Status;

import org.agentworkspace.api.Principal;
import org.agentworkspace.api.Scope;
import org.agentworkspace.api.WorkspaceException;
import org.agentworkspace.core.agent.AgentErrorCodes;
import org.agentworkspace.core.agent.AgentRunService;
import org.agentworkspace.core.agent.RunSummary;
import org.agentworkspace.core.projects.ProjectRegistry;
import org.agentworkspace.core.providers.ProviderManagement;
import org.agentworkspace.core.providers.ProviderStatus;
import org.agentworkspace.core.runs.RunRecord;
import org.agentworkspace.core.runs.RunStats;
import org.agentworkspace.core.runs.RunStatus;
import org.agentworkspace.core.tasks.AutomationTask;
import org.agentworkspace.core.tasks.TaskErrorCodes;
import org.agentworkspace.core.tasks.TaskStatus;
import org.agentworkspace.core.tasks.Tasks;
import org.agentworkspace.server.http.Access;
import org.agentworkspace.server.http.ApiService;
import org.agentworkspace.server.http.Call;
import org.agentworkspace.server.http.Guard;
import org.agentworkspace.server.http.RouteTable;
import org.agentworkspace.core.json.JsonMappers;

/**
 * Automation tasks ({@code /api/automation/tasks}, and the same routes under {@code /api/tasks}), the automation
 * status and help. A task belongs to the user who created it (administrators see every task); its runs are started
 * as that user, in its registered project, through the same run engine as {@code POST /api/automation/run}. The
 * scheduler starts with the server and stops with it.
 */
public final class TasksService extends ApiService {
    private static final int RECENT_RUNS = 10;
    private static final List<String[]> HELP = List.of(
            new String[] {"POST", "/api/automation/run", "start a one-shot run: {prompt, agentType?, projectId, isolation?}"},
            new String[] {"GET", "/api/automation/runs", "your runs, newest first (?status, ?projectId, ?taskId)"},
            new String[] {"GET", "/api/automation/runs/{runId}/events", "a run's events (SSE, resumable)"},
            new String[] {"POST", "/api/automation/runs/{runId}/cancel", "stop a run and its processes"},
            new String[] {"POST", "/api/automation/tasks", "create a task: {prompt, projectId, schedule, isolation?, ...}"},
            new String[] {"GET", "/api/automation/tasks", "your tasks (?projectId, ?status)"},
            new String[] {"GET", "/api/automation/tasks/{taskId}", "a task with its recent runs and logs"},
            new String[] {"PATCH", "/api/automation/tasks/{taskId}", "change a task's fields"},
            new String[] {"POST", "/api/automation/tasks/{taskId}/pause", "pause"},
            new String[] {"POST", "/api/automation/tasks/{taskId}/resume", "resume"},
            new String[] {"POST", "/api/automation/tasks/{taskId}/cancel", "cancel (stops an active run)"},
            new String[] {"DELETE", "/api/automation/tasks/{taskId}", "delete with its run history"},
            new String[] {"GET", "/api/automation/status", "scheduler, queue and agents"});

    private final Tasks tasks;
    private final AgentRunService service;
    private final AgentRunService runs;
    private final ProjectRegistry projects;
    private final ProviderManagement providers;
    private final AutomationService automation;
    private final ObjectMapper mapper = JsonMappers.shared();

    public TasksService(Tasks tasks, AgentRunService service, ProjectRegistry projects, ProviderManagement providers,
                        AutomationService automation, Guard guard, RouteTable table) {
        super("tasks", guard, table);
        this.tasks = tasks;
        this.service = service;
        this.runs = service;
        this.projects = projects;
        this.providers = providers;
        this.automation = automation;
    }

    @Override
    protected void declare(Routes r) {
        for (String base : List.of("/api/automation/tasks", "/api/tasks")) {
            r.post(base, Access.scope(Scope.TASKS_WRITE), this::create)
                    .get(base, Access.scope(Scope.TASKS_READ), this::list)
                    .get(base + "/{taskId}", Access.scope(Scope.TASKS_READ), this::detail)
                    .patch(base + "/{taskId}", Access.scope(Scope.TASKS_WRITE), this::update)
                    .delete(base + "/{taskId}", Access.scope(Scope.TASKS_WRITE), this::delete)
                    .post(base + "/{taskId}/pause", Access.scope(Scope.TASKS_WRITE), c -> transition(c, "pause"))
                    .post(base + "/{taskId}/resume", Access.scope(Scope.TASKS_WRITE), c -> transition(c, "resume"))
                    .post(base + "/{taskId}/cancel", Access.scope(Scope.TASKS_WRITE), c -> transition(c, "cancel"));
        }
        r.get("/api/automation/status", Access.scope(Scope.TASKS_READ), this::status)
                .get("/api/automation/help", Access.scope(Scope.TASKS_READ), this::help);
    }

    /** The scheduler is the engine's (its launcher starts a task's run as its owner); the server starts it. */
    @Override
    public void beforeStart() {
        service.startScheduler();
    }

    private void create(Call call) {
        JsonNode body = call.body();
        String prompt = Call.requiredString(body, "prompt");
        String projectId = Call.requiredString(body, "projectId");
        String agentType = service.provider(Call.optionalString(body, "agentType").orElse(null));
        java.nio.file.Path projectDir = projects.find(projectId).map(p -> java.nio.file.Path.of(p.path()))
                .orElseThrow(() -> new WorkspaceException.NotFound(AgentErrorCodes.PROJECT_NOT_FOUND,
                        "no such project"));
        JsonNode schedule = body.get("schedule");
        if (schedule == null) {
            throw new WorkspaceException.Validation(TaskErrorCodes.INVALID_SCHEDULE, "schedule is required");
        }
        AutomationTask t = tasks.create(call.principal().user().id(), new Tasks.NewTask(
                Call.optionalString(body, "name").orElse(null), prompt, agentType,
                Call.optionalString(body, "model").filter(s -> !s.isBlank()).orElse(null), projectId,
                tasks.parseSchedule(schedule), optionalLong(body, "timeoutMs"), isolation(body, projectDir)));
        call.send(Status.CREATED_201, view(t));
    }

    private void list(Call call) {
        Principal p = call.principal();
        TaskStatus status = call.query("status").map(s -> {
            try {
                return TaskStatus.ofWireName(s);
            } catch (IllegalArgumentException e) {
                throw WorkspaceException.Validation.of("status must be one of scheduled, running, paused, "
                        + "completed, failed, cancelled");
            }
        }).orElse(null);
        List<ObjectNode> out = new ArrayList<>();
        for (AutomationTask t : tasks.list(p.user().admin() ? null : p.user().id(),
                call.query("projectId").filter(s -> !s.isBlank()).orElse(null), status)) {
            out.add(view(t));
        }
        call.ok(out);
    }

    private void detail(Call call) {
        AutomationTask t = owned(call);
        ObjectNode v = view(t);
        ArrayNode recent = v.putArray("recentRuns");
        ArrayNode logs = v.putArray("recentLogs");
        boolean first = true;
        for (String runId : tasks.recentRunIds(t.id(), RECENT_RUNS)) {
            Optional<RunRecord> info = runs.record(runId);
            if (info.isEmpty()) {
                continue;
            }
            RunSummary summary = service.summary(info.get());
            ObjectNode run = automation.view(info.get().info(), summary);
            recent.add(run);
            if (first) {
                logs.addAll((ArrayNode) run.path("logs"));
                first = false;
            }
        }
        call.ok(v);
    }

    private void update(Call call) {
        AutomationTask t = owned(call);
        JsonNode body = call.body();
        if (!body.isObject() || body.isEmpty()) {
            throw WorkspaceException.Validation.of("name at least one field to change");
        }
        for (var it = body.fieldNames(); it.hasNext(); ) {
            String f = it.next();
            if (!List.of("name", "prompt", "agentType", "model", "schedule", "timeoutMs", "isolation").contains(f)) {
                throw WorkspaceException.Validation.of("unknown field " + f.substring(0, Math.min(64, f.length())));
            }
        }
        String agentType = Call.optionalString(body, "agentType").orElse(null);
        if (agentType != null) {
            runs.provider(agentType);
        }
        boolean clearModel = body.has("model") && body.get("model").isNull();
        boolean clearTimeout = body.has("timeoutMs") && body.get("timeoutMs").isNull();
        AutomationTask u = tasks.update(t.id(), new Tasks.Changes(
                Call.optionalString(body, "name").orElse(null), Call.optionalString(body, "prompt").orElse(null),
                agentType, clearModel ? null : Call.optionalString(body, "model").orElse(null), clearModel,
                body.has("schedule") ? tasks.parseSchedule(body.get("schedule")) : null,
                clearTimeout ? null : optionalLong(body, "timeoutMs"), clearTimeout,
                body.has("isolation") ? isolation(body, projects.find(t.projectId())
                        .map(p -> java.nio.file.Path.of(p.path())).orElse(null)) : null));
        call.ok(view(u));
    }

    private void delete(Call call) {
        tasks.delete(owned(call).id());
        call.ack();
    }

    private void transition(Call call, String what) {
        String id = owned(call).id();
        AutomationTask t = switch (what) {
            case "pause" -> tasks.pause(id);
            case "resume" -> tasks.resume(id);
            default -> tasks.cancel(id);
        };
        call.ok(view(t));
    }

    private void status(Call call) {
        RunStats stats = runs.stats();
        Map<TaskStatus, Integer> counts = tasks.counts();
        ObjectNode s = mapper.createObjectNode();
        s.put("success", true);
        s.put("schedulerRunning", tasks.schedulerRunning());
        s.put("schedulerRestarts", tasks.schedulerRestarts());
        if (tasks.schedulerLastError().isPresent()) {
            s.put("schedulerLastError", tasks.schedulerLastError().get());
        } else {
            s.putNull("schedulerLastError");
        }
        s.put("activeRuns", stats.running());
        s.put("queuedRuns", stats.queued());
        s.put("maxConcurrentRuns", runs.maxConcurrentRuns());
        ObjectNode t = s.putObject("tasks");
        t.put("total", counts.values().stream().mapToInt(Integer::intValue).sum());
        t.put("scheduled", counts.get(TaskStatus.SCHEDULED));
        t.put("running", counts.get(TaskStatus.RUNNING));
        t.put("paused", counts.get(TaskStatus.PAUSED));
        ArrayNode agents = s.putArray("agents");
        for (String id : runs.providerIds()) {
            ProviderStatus ps = providers.status(id);
            ObjectNode a = agents.addObject();
            a.put("agentType", id);
            a.put("installed", ps.installed());
            a.put("authenticated", ps.authenticated());
        }
        call.ok(s);
    }

    private void help(Call call) {
        ObjectNode h = mapper.createObjectNode();
        h.put("success", true);
        h.put("usage", """
                Automation runs agents without a browser. Authenticate with an API key (Authorization: Bearer px_...)
                holding tasks:write to start runs and manage tasks, tasks:read to read them.
                One-shot: POST /api/automation/run {"prompt": "...", "agentType": "claude", "projectId": "<project>"};
                a prompt may start with [agent:<agentType>] instead. Follow it with GET /api/automation/runs/{id}/events.
                Scheduled: POST /api/automation/tasks {"prompt": "...", "projectId": "<project>", "schedule": {...}}
                with a schedule {"kind": "once", "at": "2026-01-01T09:00:00Z"}, {"kind": "interval",
                "everySeconds": 3600} or {"kind": "cron", "expression": "0 9 * * 1-5", "timezone": "Europe/Berlin"}.
                A task never overlaps itself; runs missed while it ran or while the service was down are coalesced.
                """);
        ArrayNode e = h.putArray("endpoints");
        for (String[] row : HELP) {
            ObjectNode n = e.addObject();
            n.put("method", row[0]);
            n.put("path", row[1]);
            n.put("summary", row[2]);
        }
        ArrayNode types = h.putArray("agentTypes");
        runs.providerIds().forEach(types::add);
        ArrayNode kinds = h.putArray("scheduleKinds");
        kinds.add("once").add("interval").add("cron");
        h.put("promptMarker", "[agent:<agentType>]");
        call.ok(h);
    }

    private AutomationTask owned(Call call) {
        String id = call.request().path().pathParameters().get("taskId");
        AutomationTask t = tasks.find(id).orElseThrow(TasksService::notFound);
        Principal p = call.principal();
        if (!p.user().admin() && t.userId() != p.user().id()) {
            throw notFound();
        }
        return t;
    }

    private static WorkspaceException notFound() {
        return new WorkspaceException.NotFound(TaskErrorCodes.TASK_NOT_FOUND, "no such task");
    }

    /**
     * The task's {@code isolation}, checked as {@code POST /api/automation/run} checks it (the engine's rule: unknown
     * values 400, {@code docker} 400 {@code ISOLATION_UNAVAILABLE}, {@code worktree} in a folder that is not a git
     * repository 400 {@code WORKTREE_NEEDS_GIT_REPOSITORY}); absent is {@code host}.
     */
    private String isolation(JsonNode body, java.nio.file.Path projectDir) {
        AgentRunService.Isolation i = AgentRunService.Isolation.parse(
                Call.optionalString(body, "isolation").orElse(null));
        service.checkIsolation(i, projectDir);
        return i.wireName();
    }

    private static Long optionalLong(JsonNode body, String field) {
        JsonNode n = body.get(field);
        if (n == null || n.isNull()) {
            return null;
        }
        if (!n.isIntegralNumber()) {
            throw WorkspaceException.Validation.of(field + " must be a whole number");
        }
        return n.asLong();
    }

    private ObjectNode view(AutomationTask t) {
        ObjectNode n = mapper.createObjectNode();
        n.put("id", t.id());
        n.put("name", t.name());
        n.put("prompt", t.prompt());
        n.put("agentType", t.agentType());
        n.put("model", t.model());
        n.put("projectId", t.projectId());
        n.set("schedule", t.schedule().toJson());
        n.put("status", t.status().wireName());
        n.put("nextRunAt", t.nextRunAt() == null ? null : t.nextRunAt().toString());
        n.put("lastRunAt", t.lastRunAt() == null ? null : t.lastRunAt().toString());
        n.put("lastRunStatus", t.lastRunStatus() == null ? null
                : RunStreams.statusName(RunStatus.ofWireName(t.lastRunStatus())));
        n.put("runCount", t.runCount());
        if (t.timeoutMs() == null) {
            n.putNull("timeoutMs");
        } else {
            n.put("timeoutMs", t.timeoutMs());
        }
        n.put("activeRunId", t.activeRunId());
        n.put("isolation", t.isolation());
        n.put("createdAt", t.createdAt().toString());
        n.put("updatedAt", t.updatedAt().toString());
        return n;
    }
}
