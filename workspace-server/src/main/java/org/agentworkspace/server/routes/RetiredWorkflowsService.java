package org.agentworkspace.server.routes;

import org.agentworkspace.api.ErrorCodes;
import org.agentworkspace.api.Scope;
import org.agentworkspace.api.WorkspaceException;
import org.agentworkspace.server.http.Access;
import org.agentworkspace.server.http.ApiService;
import org.agentworkspace.server.http.Call;
import org.agentworkspace.server.http.Guard;
import org.agentworkspace.server.http.RouteTable;

/**
 * The retired workflow family ({@code /api/orchestration/*}, retired from release 1.55 on). This server is built
 * without it: every route keeps its documented credential and scope check, then answers 410 {@code FAMILY_RETIRED}
 * naming the maintained replacement, so old clients learn where to go instead of getting a bare 404.
 */
public final class RetiredWorkflowsService extends ApiService {
    private static final String BASE = "/api/orchestration/workflows";

    public RetiredWorkflowsService(Guard guard, RouteTable table) {
        super("orchestration (retired)", guard, table);
    }

    @Override
    protected void declare(Routes r) {
        Access read = Access.scope(Scope.ORCHESTRATION_READ);
        Access write = Access.scope(Scope.ORCHESTRATION_WRITE);
        r.get(BASE, read, c -> retired(c, "runs start with POST /api/automation/run; schedules are /api/tasks"))
                .get(BASE + "/context", read, c -> retired(c, "projects are listed by GET /api/projects"))
                .post(BASE + "/{workflowId}/preview", read, c -> retired(c, "start a run with POST /api/automation/run"))
                .post(BASE + "/{workflowId}/runs", write, c -> retired(c, "start a run with POST /api/automation/run"))
                .get(BASE + "/runs", read, c -> retired(c, "runs are listed by GET /api/automation/runs"))
                .get(BASE + "/runs/{runId}", read, c -> retired(c, "read a run with GET /api/automation/runs/{runId}"))
                .get(BASE + "/runs/{runId}/events", read.stream(), c -> retired(c,
                        "follow a run with GET /api/automation/runs/{runId}/events"))
                .post(BASE + "/runs/{runId}/cancel", write, c -> retired(c,
                        "cancel a run with POST /api/automation/runs/{runId}/cancel"));
    }

    private static void retired(Call call, String instead) {
        throw new WorkspaceException.Gone(ErrorCodes.FAMILY_RETIRED, "the workflow family was retired in release "
                + "1.55: " + instead);
    }
}
