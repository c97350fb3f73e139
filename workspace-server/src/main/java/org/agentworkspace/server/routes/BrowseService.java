package org.agentworkspace.server.routes;

import org.agentworkspace.core.files.BrowseFilesystem;
import org.agentworkspace.server.http.Access;
import org.agentworkspace.server.http.ApiService;
import org.agentworkspace.server.http.Call;
import org.agentworkspace.server.http.Guard;
import org.agentworkspace.server.http.RouteTable;
import org.agentworkspace.server.http.Views;

/**
 * The host folder picker ({@code GET /api/browse-filesystem}): administrators, signed in, only; limited to the
 * configured browse roots ({@code --browse-roots}, the home folder by default); folders only. Without {@code path},
 * {@code ~} is listed when the home folder is inside a root, otherwise the first root.
 */
public final class BrowseService extends ApiService {
    private final BrowseFilesystem browser;
    private final String defaultPath;

    public BrowseService(BrowseFilesystem browser, String defaultPath, Guard guard, RouteTable table) {
        super("browse", guard, table);
        this.browser = browser;
        this.defaultPath = defaultPath;
    }

    @Override
    protected void declare(Routes r) {
        r.get("/api/browse-filesystem", Access.session().admin(), this::browse);
    }

    private void browse(Call call) {
        call.ok(Views.browse(browser.browse(call.query("path").orElse(defaultPath))));
    }
}
