package org.agentworkspace.server.routes;

import java.util.List;
import java.util.Map;

import org.agentworkspace.api.Scope;
import org.agentworkspace.core.index.HistoryIndex;
import org.agentworkspace.core.index.IndexedProject;
import org.agentworkspace.core.projects.ProjectRegistry;
import org.agentworkspace.core.projects.RegisteredProject;
import org.agentworkspace.server.http.Access;
import org.agentworkspace.server.http.ApiService;
import org.agentworkspace.server.http.Call;
import org.agentworkspace.server.http.Guard;
import org.agentworkspace.server.http.RouteTable;
import org.agentworkspace.server.http.Views;

/**
 * Projects ({@code /api/projects}): the unified list of projects found in the CLIs' histories (by the working
 * directory each session recorded) and registered folders, merged by name. Quick-start registers (and creates) a
 * folder; rename sets the display name (registered: in the registry; history-only: an override in the index);
 * delete deregisters and hides the history project until new activity, never touching files. A project's sessions
 * come from the history index; deleting one removes that provider's session file.
 */
public final class ProjectsService extends ApiService {
    private final ProjectRegistry projects;
    private final HistoryIndex history;

    public ProjectsService(ProjectRegistry projects, HistoryIndex history, Guard guard, RouteTable table) {
        super("projects", guard, table);
        this.projects = projects;
        this.history = history;
    }

    @Override
    protected void declare(Routes r) {
        r.get("/api/projects", Access.scope(Scope.PROJECTS_READ), this::list)
                .post("/api/projects/quick-start", Access.scope(Scope.PROJECTS_WRITE), this::quickStart)
                .put("/api/projects/{projectName}/rename", Access.scope(Scope.PROJECTS_WRITE), this::rename)
                .delete("/api/projects/{projectName}", Access.scope(Scope.PROJECTS_WRITE), this::delete)
                .get("/api/projects/{projectName}/sessions", Access.scope(Scope.PROJECTS_READ), this::sessions)
                .delete("/api/projects/{projectName}/sessions/{sessionId}", Access.scope(Scope.PROJECTS_WRITE),
                        this::deleteSession);
    }

    private void list(Call call) {
        List<Map<String, Object>> out = history.projects().stream().map(Views::project).toList();
        call.ok(out);
    }

    private Map<String, Object> view(String name, RegisteredProject fallback) {
        return history.findProject(name).map(Views::project)
                .orElseGet(() -> Views.project(new IndexedProject(fallback.name(), fallback.displayName(),
                        fallback.path(), true, fallback.createdAt(), 0, List.of())));
    }

    private void quickStart(Call call) {
        RegisteredProject p = projects.quickStart(Call.requiredString(call.body(), "path"));
        history.unhideProject(p.name());
        call.ok(view(p.name(), p));
    }

    private void rename(Call call) {
        String displayName = Call.requiredString(call.body(), "displayName");
        IndexedProject p = history.renameProject(call.pathParam("projectName"), displayName);
        call.ack("project", Views.project(p));
    }

    private void delete(Call call) {
        history.deleteProject(call.pathParam("projectName"));
        call.ack();
    }

    private void sessions(Call call) {
        call.ok(history.projectSessions(call.pathParam("projectName")).stream().map(Views::session).toList());
    }

    private void deleteSession(Call call) {
        history.deleteSession(call.pathParam("projectName"), call.pathParam("sessionId"),
                HistoryService.provider(call));
        call.ack();
    }
}
