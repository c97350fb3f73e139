package org.agentworkspace.server.routes;

import java.util.List;
import java.util.Map;

import org.agentworkspace.api.Scope;
import org.agentworkspace.core.projects.ProjectRegistry;
import org.agentworkspace.core.projects.RegisteredProject;
import org.agentworkspace.server.http.Access;
import org.agentworkspace.server.http.ApiService;
import org.agentworkspace.server.http.Call;
import org.agentworkspace.server.http.Guard;
import org.agentworkspace.server.http.RouteTable;
import org.agentworkspace.server.http.Views;

/**
 * Projects ({@code /api/projects}): the registered folders. Quick-start registers (and creates) a folder, rename sets
 * the display name, delete deregisters without touching files. Sessions are empty until the history readers fill
 * them.
 */
public final class ProjectsService extends ApiService {
    private final ProjectRegistry projects;

    public ProjectsService(ProjectRegistry projects, Guard guard, RouteTable table) {
        super("projects", guard, table);
        this.projects = projects;
    }

    @Override
    protected void declare(Routes r) {
        r.get("/api/projects", Access.scope(Scope.PROJECTS_READ), this::list)
                .post("/api/projects/quick-start", Access.scope(Scope.PROJECTS_WRITE), this::quickStart)
                .put("/api/projects/{projectName}/rename", Access.scope(Scope.PROJECTS_WRITE), this::rename)
                .delete("/api/projects/{projectName}", Access.scope(Scope.PROJECTS_WRITE), this::delete);
    }

    /** The unified project list: today the registered projects, each without sessions. */
    private List<Map<String, Object>> projectList() {
        return projects.list().stream().map(p -> Views.project(p, List.of())).toList();
    }

    private void list(Call call) {
        call.ok(projectList());
    }

    private void quickStart(Call call) {
        RegisteredProject p = projects.quickStart(Call.requiredString(call.body(), "path"));
        call.ok(Views.project(p, List.of()));
    }

    private void rename(Call call) {
        String displayName = Call.requiredString(call.body(), "displayName");
        RegisteredProject p = projects.rename(call.pathParam("projectName"), displayName);
        call.ack("project", Views.project(p, List.of()));
    }

    private void delete(Call call) {
        projects.delete(call.pathParam("projectName"));
        call.ack();
    }
}
