package org.agentworkspace.server.routes;

import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import io.helidon.http.HeaderNames;
import io.helidon.http.Status;

import org.agentworkspace.api.Scope;
import org.agentworkspace.api.WorkspaceException;
import org.agentworkspace.core.agent.AgentRunService;
import org.agentworkspace.core.agent.WorkflowGraph;
import org.agentworkspace.core.agent.WorkflowRuns;
import org.agentworkspace.core.json.JsonMappers;
import org.agentworkspace.core.projects.ProjectRegistry;
import org.agentworkspace.server.ServerConfig;
import org.agentworkspace.server.http.Access;
import org.agentworkspace.server.http.ApiService;
import org.agentworkspace.server.http.Call;
import org.agentworkspace.server.http.Guard;
import org.agentworkspace.server.http.JournalStream;
import org.agentworkspace.server.http.RouteTable;
import org.agentworkspace.server.http.StreamLimiter;

/**
 * The retired workflow family ({@code /api/orchestration/*}, retired from release 1.55 on) served as a compatibility
 * layer over automation runs (docs/workflows.md): the engine's {@link WorkflowRuns} expands and runs the graph; this
 * file maps HTTP only. Scopes and ownership are the automation runs' ({@code tasks:read} / {@code tasks:write}, the
 * owner or an administrator). Every answer carries {@code Deprecation: true} and a {@code Link} to the maintained
 * routes.
 */
public final class WorkflowsService extends ApiService {
    private static final String BASE = "/api/orchestration/workflows";
    static final Duration SNAPSHOT_EVERY = Duration.ofSeconds(1);

    private final WorkflowRuns workflows;
    private final AgentRunService runs;
    private final RunCallers callers;
    private final ServerConfig config;
    private final ObjectMapper mapper = JsonMappers.shared();

    public WorkflowsService(WorkflowRuns workflows, AgentRunService runs, ServerConfig config,
                            ProjectRegistry projects, Guard guard, RouteTable table) {
        super("orchestration (compatibility)", guard, table);
        this.workflows = workflows;
        this.runs = runs;
        this.config = config;
        this.callers = new RunCallers(runs, config, projects);
    }

    @Override
    protected void declare(Routes r) {
        Access read = Access.scope(Scope.TASKS_READ);
        Access write = Access.scope(Scope.TASKS_WRITE);
        r.get(BASE, read, c -> list(deprecated(c)))
                .get(BASE + "/context", read, c -> context(deprecated(c)))
                .post(BASE + "/{workflowId}/preview", read, c -> preview(deprecated(c)))
                .post(BASE + "/{workflowId}/runs", write, c -> start(deprecated(c)))
                .get(BASE + "/runs", read, c -> runs(deprecated(c)))
                .get(BASE + "/runs/{runId}", read, c -> get(deprecated(c)))
                .get(BASE + "/runs/{runId}/events", read.stream(), c -> events(deprecated(c)))
                .post(BASE + "/runs/{runId}/cancel", write, c -> cancel(deprecated(c)));
    }

    /** {@code Deprecation} and the link to the maintained routes, on every answer of the family. */
    private static Call deprecated(Call call) {
        call.response().header(HeaderNames.create("Deprecation"), "true");
        call.response().header(HeaderNames.create("Link"), "</api/automation/run>; rel=\"successor-version\", "
                + "</api/automation/runs>; rel=\"alternate\"");
        return call;
    }

    private void list(Call call) {
        ObjectNode o = mapper.createObjectNode();
        o.set("workflows", mapper.valueToTree(WorkflowGraph.workflows()));
        call.ok(o);
    }

    private void context(Call call) {
        ObjectNode o = mapper.createObjectNode();
        o.put("appRoot", config.engine().dataDir().toAbsolutePath().toString());
        o.put("defaultWorkspaceTarget", "selected_project");
        ArrayNode kinds = o.putArray("supportedWorkspaceTargets");
        kinds.add("selected_project").add("custom");
        call.ok(o);
    }

    private void preview(Call call) {
        JsonNode body = call.body();
        call.ok(workflows.preview(call.pathParam("workflowId"), body.get("metadata")));
    }

    private void start(Call call) {
        String workflowId = call.pathParam("workflowId");
        WorkflowGraph.requireKnown(workflowId);
        JsonNode body = call.body();
        JsonNode meta = body.get("metadata");
        // the graph first: invalid metadata is 400 before anything about the project is looked at
        WorkflowGraph.expand(workflowId, meta);
        String input = Call.optionalString(body, "input").orElse("");
        call.send(Status.ACCEPTED_202, workflows.start(call.principal().user(), workflowId, input, meta,
                where(call, meta)));
    }

    /**
     * Where the nodes work, by the automation run's rules: {@code metadata.projectId} (a registered project), else
     * a path ({@code projectPath}, {@code workspaceTarget.projectPath} of a {@code custom} target, or
     * {@code selectedProjectPath}) honoured for local trusted callers only.
     */
    private WorkflowRuns.Where where(Call call, JsonNode meta) {
        Optional<String> projectId = Call.optionalString(meta, "projectId").filter(s -> !s.isBlank());
        if (projectId.isPresent()) {
            return new WorkflowRuns.Where(runs.project(projectId.get()), projectId.get());
        }
        JsonNode target = meta.path("workspaceTarget");
        String kind = target.path("kind").asText("selected_project");
        if (!target.isMissingNode() && !target.isNull() && !kind.equals("selected_project") && !kind.equals("custom")) {
            throw new WorkspaceException.Validation(WorkflowGraph.INVALID_WORKFLOW_METADATA,
                    "metadata.workspaceTarget.kind must be selected_project or custom on this server");
        }
        Optional<String> path = Call.optionalString(meta, "projectPath")
                .or(() -> kind.equals("custom") ? Call.optionalString(target, "projectPath") : Optional.empty())
                .or(() -> Call.optionalString(meta, "selectedProjectPath"))
                .filter(s -> !s.isBlank());
        if (path.isEmpty()) {
            throw new WorkspaceException.Validation(WorkflowGraph.INVALID_WORKFLOW_METADATA,
                    "metadata.projectId (or a projectPath for local trusted callers) is required");
        }
        Path dir = callers.projectPath(call, path.get(), false);
        return new WorkflowRuns.Where(dir, null);
    }

    private void runs(Call call) {
        ObjectNode o = mapper.createObjectNode();
        ArrayNode list = o.putArray("runs");
        workflows.list(call.principal().user(), call.query("projectId").filter(s -> !s.isBlank()).orElse(null))
                .forEach(list::add);
        call.ok(o);
    }

    private void get(Call call) {
        call.ok(workflows.find(call.principal().user(), call.pathParam("runId")));
    }

    private void cancel(Call call) throws InterruptedException {
        call.ok(workflows.cancel(call.principal().user(), call.pathParam("runId"), Duration.ofSeconds(30)));
    }

    /**
     * A {@code snapshot} event ({@code {run: WorkflowRun}}) at once and every second while the run is active; the
     * stream ends after the snapshot that shows it ended, or with an {@code error} event {@code CREDENTIAL_REVOKED}
     * once the credential that opened it is no longer valid.
     */
    private void events(Call call) throws InterruptedException {
        String runId = call.pathParam("runId");
        ObjectNode first = workflows.find(call.principal().user(), runId);
        StreamLimiter.Slot slot = follower().slot(call.principal());
        try (slot; JournalStream.Out out = JournalStream.sse(call.response(), "no-store", true)) {
            ObjectNode run = first;
            while (true) {
                ObjectNode event = mapper.createObjectNode();
                event.set("run", run);
                out.emit(JournalStream.NO_ID, "snapshot", event.toString());
                String status = run.path("status").asText();
                if (status.equals("completed") || status.equals("failed") || status.equals("canceled")) {
                    return;
                }
                Thread.sleep(SNAPSHOT_EVERY);
                // a revoked key or a deleted account ends the stream, as the automation run streams do
                if (!follower().stillValid(call.principal(), out)) {
                    return;
                }
                run = workflows.find(call.principal().user(), runId);
            }
        } catch (UncheckedIOException e) {
            // the client went away; the run goes on
        }
    }
}
