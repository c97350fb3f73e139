package org.agentworkspace.server.routes;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import com.fasterxml.jackson.databind.JsonNode;

import io.helidon.http.Status;

import org.agentworkspace.api.Scope;
import org.agentworkspace.api.WorkspaceException;
import org.agentworkspace.api.vcs.TreeChange;
import org.agentworkspace.api.vcs.TreeChanges;
import java.nio.file.Path;

import org.agentworkspace.core.agent.AgentErrorCodes;
import org.agentworkspace.core.agent.AgentRunService;
import org.agentworkspace.core.agent.RunSummary;
import org.agentworkspace.core.loop.AgentLoop;
import org.agentworkspace.core.loop.CiRepairPlans;
import org.agentworkspace.core.runs.RunInfo;
import org.agentworkspace.core.runs.RunStatus;
import org.agentworkspace.core.loop.BackgroundJob;
import org.agentworkspace.core.loop.Checkpoint;
import org.agentworkspace.core.loop.Checkpoints;
import org.agentworkspace.core.loop.ReleasePolicies;
import org.agentworkspace.core.loop.ReleasePolicy;
import org.agentworkspace.core.loop.ReviewItem;
import org.agentworkspace.core.loop.ReviewQueue;
import org.agentworkspace.server.http.Access;
import org.agentworkspace.server.http.ApiService;
import org.agentworkspace.server.http.Call;
import org.agentworkspace.server.http.Guard;
import org.agentworkspace.server.http.RouteTable;

/**
 * The administrator's production agent loop ({@code /api/production-agent-loop/*}): background jobs, workspace
 * checkpoints, the review queue, CI repair plans and the desktop release policy. Every route is administrator-only; API keys need
 * {@code orchestration:read} to read and {@code orchestration:write} to change. A thin mapping of
 * {@link AgentLoop}; see docs/agent-loop.md.
 */
public final class AgentLoopService extends ApiService {
    private static final String BASE = "/api/production-agent-loop";
    private static final int DETAIL_CHANGES = 500;

    private final AgentLoop loop;
    private final AgentRunService service;
    private final AgentRunService runs;

    public AgentLoopService(AgentLoop loop, AgentRunService service, Guard guard, RouteTable table) {
        super("production agent loop", guard, table);
        this.loop = loop;
        this.service = service;
        this.runs = service;
    }

    @Override
    protected void declare(Routes r) {
        Access read = Access.scope(Scope.ORCHESTRATION_READ).admin();
        Access write = Access.scope(Scope.ORCHESTRATION_WRITE).admin();
        r.get(BASE + "/jobs", read, this::jobs)
                .post(BASE + "/jobs/{jobId}/cancel", write, this::cancelJob)
                .get(BASE + "/checkpoints", read, this::checkpoints)
                .post(BASE + "/checkpoints", write, this::createCheckpoint)
                .get(BASE + "/checkpoints/{checkpointId}", read, this::checkpoint)
                .delete(BASE + "/checkpoints/{checkpointId}", write, this::deleteCheckpoint)
                .post(BASE + "/checkpoints/{checkpointId}/restore", write, this::restoreCheckpoint)
                .get(BASE + "/review-queue", read, this::reviewQueue)
                .get(BASE + "/review-queue/{itemId}", read, this::reviewItem)
                .get(BASE + "/review-queue/{itemId}/diff", read, this::reviewDiff)
                .post(BASE + "/review-queue/{itemId}/approve", write, c -> decide(c, true))
                .post(BASE + "/review-queue/{itemId}/reject", write, c -> decide(c, false))
                .get(BASE + "/ci-repair-plans", read, this::plans)
                .post(BASE + "/ci-repair-plans", write, this::createPlan)
                .get(BASE + "/ci-repair-plans/{planId}", read, this::plan)
                .get(BASE + "/release-policy", read, this::releasePolicy)
                .put(BASE + "/release-policy", write, this::putReleasePolicy);
    }

    // ------------------------------------------------------------------ jobs

    private void jobs(Call call) {
        call.ok(Map.of("jobs", loop.jobs().list().stream().map(AgentLoopService::view).toList()));
    }

    private void cancelJob(Call call) {
        try {
            call.ok(view(loop.jobs().cancel(call.pathParam("jobId"))));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new WorkspaceException.Unavailable(org.agentworkspace.api.ErrorCodes.INTERNAL_ERROR,
                    "interrupted while cancelling", e);
        }
    }

    private static Map<String, Object> view(BackgroundJob j) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("id", j.id());
        m.put("kind", j.kind());
        m.put("label", j.label());
        m.put("status", j.status());
        m.put("cancellable", j.cancellable());
        m.put("progress", j.progress());
        m.put("createdAt", time(j.createdAt()));
        m.put("startedAt", time(j.startedAt()));
        m.put("finishedAt", time(j.finishedAt()));
        m.put("details", j.details());
        return m;
    }

    // ------------------------------------------------------------------ checkpoints

    private void checkpoints(Call call) {
        String project = call.query("projectId").or(() -> call.query("projectName")).filter(s -> !s.isBlank())
                .orElseThrow(() -> WorkspaceException.Validation.of("projectId is required"));
        call.ok(Map.of("checkpoints", loop.checkpoints().list(project).stream().map(AgentLoopService::view)
                .toList()));
    }

    private void createCheckpoint(Call call) {
        JsonNode body = call.body();
        only(body, "projectId", "projectName", "label");
        String project = project(body);
        Optional<String> label = Call.optionalString(body, "label");
        call.created(view(loop.checkpoints().create(project, label.orElse(null),
                call.principal().user().username())));
    }

    private void checkpoint(Call call) {
        call.ok(view(loop.checkpoints().get(projectQuery(call), call.pathParam("checkpointId"))));
    }

    private void deleteCheckpoint(Call call) {
        loop.checkpoints().delete(projectQuery(call), call.pathParam("checkpointId"));
        call.ack();
    }

    private void restoreCheckpoint(Call call) {
        JsonNode body = call.body();
        only(body, "projectId", "projectName", "force");
        alsoNeeds(call, Scope.PROJECTS_WRITE, "a restore rewrites the project's files");
        Checkpoints.Restored r = loop.checkpoints().restore(project(body), call.pathParam("checkpointId"),
                Call.optionalBoolean(body, "force", false));
        call.ack("checkpoint", view(r.checkpoint()), "written", r.written(), "deleted", r.deleted(),
                "forced", r.forced());
    }

    /**
     * A second scope some actions need besides {@code orchestration:write}, as the routes that do the same thing
     * elsewhere: starting an agent run ({@code tasks:write}), rewriting a project's files ({@code projects:write}).
     * A signed-in administrator holds every scope; a key must carry both.
     */
    private static void alsoNeeds(Call call, Scope scope, String why) {
        if (!call.principal().has(scope)) {
            throw new WorkspaceException.Forbidden(org.agentworkspace.api.ErrorCodes.INSUFFICIENT_SCOPE,
                    "this action also needs the scope " + scope.id() + " (" + why + ")");
        }
    }

    /** Refuses a body field the route does not know (400 {@code VALIDATION_FAILED}), so a typo is not ignored. */
    private static void only(JsonNode body, String... fields) {
        List<String> known = List.of(fields);
        for (var it = body.fieldNames(); it.hasNext(); ) {
            String f = it.next();
            if (!known.contains(f)) {
                throw WorkspaceException.Validation.of("unknown field " + f.substring(0, Math.min(64, f.length())));
            }
        }
    }

    private static String projectQuery(Call call) {
        return call.query("projectId").or(() -> call.query("projectName")).filter(s -> !s.isBlank())
                .orElseThrow(() -> WorkspaceException.Validation.of("projectId is required"));
    }

    /** {@code projectId} (the registered project's name), or its alias {@code projectName}. */
    private static String project(JsonNode body) {
        return Call.optionalString(body, "projectId").or(() -> Call.optionalString(body, "projectName"))
                .filter(s -> !s.isBlank()).orElseThrow(() -> WorkspaceException.Validation.of("projectId is required"));
    }

    private static Map<String, Object> view(Checkpoint c) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("id", c.id());
        m.put("projectId", c.projectId());
        m.put("label", c.label());
        m.put("ref", c.ref());
        m.put("commit", c.commit());
        m.put("tree", c.tree());
        m.put("createdAt", time(c.createdAt()));
        m.put("createdBy", c.createdBy());
        return m;
    }

    // ------------------------------------------------------------------ review queue

    private void reviewQueue(Call call) {
        String status = call.query("status").filter(s -> !s.isBlank()).orElse(null);
        String project = call.query("projectId").filter(s -> !s.isBlank()).orElse(null);
        List<ReviewItem> items = loop.reviews().list(status, project);
        long pending = items.stream().filter(i -> i.status().equals("pending")).count();
        call.ok(Map.of("items", items.stream().map(i -> view(i, null)).toList(), "pending", pending));
    }

    private void reviewItem(Call call) {
        ReviewQueue.Detail d = loop.reviews().detail(call.pathParam("itemId"), DETAIL_CHANGES);
        call.ok(view(d.item(), d.changes()));
    }

    private void reviewDiff(Call call) {
        org.agentworkspace.api.vcs.DiffResult d = loop.reviews().diff(call.pathParam("itemId"));
        call.ok(Map.of("diff", d.diff(), "truncated", d.truncated()));
    }

    private void decide(Call call, boolean approve) {
        JsonNode body = call.body();
        if (approve) {
            only(body, "note");
        } else {
            only(body, "note", "revert", "force");
            if (Call.optionalBoolean(body, "revert", false)) {
                alsoNeeds(call, Scope.PROJECTS_WRITE, "a revert rewrites the project's files");
            }
        }
        ReviewQueue.Decided d = loop.reviews().decide(call.pathParam("itemId"), approve,
                Call.optionalString(body, "note").orElse(null), call.principal().user().username(),
                Call.optionalBoolean(body, "revert", false), Call.optionalBoolean(body, "force", false));
        Map<String, Object> v = view(d.item(), null);
        if (d.reverted() != null) {
            v.put("reverted", Map.of("written", d.reverted().written(), "deleted", d.reverted().deleted()));
        }
        call.ok(v);
    }

    private static Map<String, Object> view(ReviewItem i, TreeChanges changes) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("id", i.id());
        m.put("runId", i.id());
        m.put("projectId", i.projectId());
        m.put("projectPath", i.projectPath());
        m.put("agentType", i.provider());
        m.put("route", i.route());
        m.put("taskId", i.taskId());
        m.put("userId", i.userId());
        m.put("runStatus", i.runStatus());
        m.put("status", i.status());
        Map<String, Object> summary = new LinkedHashMap<>();
        summary.put("added", i.filesAdded());
        summary.put("modified", i.filesModified());
        summary.put("deleted", i.filesDeleted());
        m.put("summary", summary);
        m.put("beforeRef", i.beforeRef());
        m.put("afterRef", i.afterRef());
        m.put("beforeCommit", i.beforeCommit());
        m.put("afterCommit", i.afterCommit());
        m.put("recordChanged", i.recordChanged());
        m.put("note", i.note());
        m.put("decidedBy", i.decidedBy());
        m.put("decidedAt", time(i.decidedAt()));
        m.put("createdAt", time(i.createdAt()));
        m.put("endedAt", time(i.endedAt()));
        if (changes != null) {
            m.put("changes", changes.changes().stream().map(c -> {
                Map<String, Object> e = new LinkedHashMap<>();
                e.put("path", c.path());
                e.put("change", c.kind().wireName());
                e.put("insertions", c.insertions());
                e.put("deletions", c.deletions());
                return e;
            }).toList());
            m.put("changesTruncated", changes.truncated());
        }
        return m;
    }

    // ------------------------------------------------------------------ CI repair plans

    private void createPlan(Call call) {
        JsonNode body = call.body();
        only(body, "projectId", "projectName", "ciLog", "failingJob", "agentType", "model");
        alsoNeeds(call, Scope.TASKS_WRITE, "a plan is drafted by an agent run");
        String project = project(body);
        String agentType = service.provider(Call.optionalString(body, "agentType").filter(s -> !s.isBlank())
                .orElse(null));
        String model = Call.optionalString(body, "model").filter(s -> !s.isBlank()).orElse(null);
        String failingJob = Call.optionalString(body, "failingJob").orElse(null);
        CiRepairPlans.Prompt prompt = CiRepairPlans.prompt(Call.optionalString(body, "ciLog").orElse(null),
                failingJob);
        Path dir = runs.settings().projects().find(project).orElseThrow(() -> new WorkspaceException.NotFound(
                AgentErrorCodes.PROJECT_NOT_FOUND, "no such project"));
        CiRepairPlans plans = loop.ciRepairPlans();
        String id = plans.newId();
        // the run and the plan are stored in one transaction: no plan without its run, no run without its plan
        CiRepairPlans.Plan p = plans.start(service, new AgentRunService.Start(call.principal().user().id(),
                        CiRepairPlans.ROUTE, agentType, prompt.text(), dir, project, null, model, null, null,
                        Map.of("planId", id)), id, project, agentType, model, failingJob, prompt,
                call.principal().user().username());
        call.send(Status.ACCEPTED_202, view(p, false));
    }

    private void plans(Call call) {
        String project = call.query("projectId").or(() -> call.query("projectName")).filter(s -> !s.isBlank())
                .orElse(null);
        call.ok(Map.of("plans", loop.ciRepairPlans().list(project).stream().map(p -> view(p, false)).toList()));
    }

    private void plan(Call call) {
        call.ok(view(loop.ciRepairPlans().get(call.pathParam("planId")), true));
    }

    private Map<String, Object> view(CiRepairPlans.Plan p, boolean withText) {
        Optional<RunInfo> run = runs.info(p.runId());
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("id", p.id());
        m.put("projectId", p.projectId());
        m.put("agentType", p.agentType());
        m.put("model", p.model());
        m.put("failingJob", p.failingJob());
        m.put("runId", p.runId());
        m.put("status", run.map(r -> CiRepairPlans.status(r.status())).orElse("failed"));
        m.put("logBytes", p.logBytes());
        m.put("logLinesUsed", p.logLinesUsed());
        m.put("createdBy", p.createdBy());
        m.put("createdAt", time(p.createdAt()));
        m.put("finishedAt", time(run.map(RunInfo::finishedAt).orElse(null)));
        if (withText) {
            RunSummary summary = run.map(runs::summary).orElse(null);
            boolean ready = run.isPresent() && run.get().status() == RunStatus.SUCCEEDED;
            m.put("plan", ready && summary != null ? summary.text() : null);
            String error = null;
            if (run.isEmpty()) {
                error = "the plan's run is no longer stored";
            } else if (run.get().status().terminal() && !ready) {
                error = summary != null && summary.error() != null ? summary.error().message()
                        : run.get().reason();
            }
            m.put("error", error);
        }
        return m;
    }

    // ------------------------------------------------------------------ release policy

    private void releasePolicy(Call call) {
        call.ok(view(loop.releasePolicy().get()));
    }

    private void putReleasePolicy(Call call) {
        ReleasePolicy p = ReleasePolicies.parse(call.body());
        call.ok(view(loop.releasePolicy().put(p, call.principal().user().username())));
    }

    private static Map<String, Object> view(ReleasePolicy p) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("channel", p.channel());
        m.put("autoUpdate", p.autoUpdate());
        m.put("minimumVersion", p.minimumVersion());
        m.put("rolloutPercent", p.rolloutPercent());
        if (p.maintenanceWindow() == null) {
            m.put("maintenanceWindow", null);
        } else {
            Map<String, Object> w = new LinkedHashMap<>();
            w.put("days", p.maintenanceWindow().days());
            w.put("start", p.maintenanceWindow().start());
            w.put("durationMinutes", p.maintenanceWindow().durationMinutes());
            w.put("timezone", p.maintenanceWindow().timezone());
            m.put("maintenanceWindow", w);
        }
        m.put("updatedAt", time(p.updatedAt()));
        m.put("updatedBy", p.updatedBy());
        return m;
    }

    private static String time(java.time.Instant t) {
        return t == null ? null : t.toString();
    }
}
